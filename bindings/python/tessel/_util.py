"""Small helpers shared by the modules of the package: owned handles and
the checks of every argument before it reaches C."""

import contextlib
import ctypes
import functools
import math
import numbers
import operator
import os
import signal
import threading
import weakref
from typing import Any, Callable, Iterator, Optional, Tuple, TypeVar, Union

from ._lib import lib
from .errors import check

H = TypeVar("H", bound="Handle")

__all__ = ["Handle", "take_string", "text_arg", "path_arg", "int_arg",
           "int64_arg", "size_arg", "uint64_arg", "double_arg", "bool_arg", "is_bool",
           "data_arg", "INT_MIN", "INT_MAX", "INT64_MIN", "INT64_MAX"]

INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1
INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1
SIZE_MAX = 2 ** (8 * ctypes.sizeof(ctypes.c_size_t)) - 1
UINT64_MAX = 2 ** 64 - 1


_LOCK_INIT = threading.Lock()


def _lock_of(obj: "Handle") -> Any:
    """The lock of ``obj``'s family: an object that reads from another
    (an iterator of a schedule, the graph of a schedule) shares its
    owner's lock, so that no two threads use one C object, or free it,
    at once, and no two locks are ever taken in opposite orders."""
    while obj._owner is not None:
        obj = obj._owner
    lock = obj.__dict__.get("_family_lock")
    if lock is None:
        with _LOCK_INIT:
            lock = obj.__dict__.get("_family_lock")
            if lock is None:
                lock = threading.RLock()
                obj.__dict__["_family_lock"] = lock
    return lock


def _cond_of(obj: "Handle") -> Any:
    """A condition on the lock of ``obj``'s family: what waits for the
    calls under way on an object of the family to end."""
    while obj._owner is not None:
        obj = obj._owner
    cond = obj.__dict__.get("_family_cond")
    if cond is None:
        lock = _lock_of(obj)
        with _LOCK_INIT:
            cond = obj.__dict__.get("_family_cond")
            if cond is None:
                cond = threading.Condition(lock)
                obj.__dict__["_family_cond"] = cond
    return cond


@contextlib.contextmanager
def unlocked(obj: "Handle") -> Iterator[None]:
    """The family's lock, held (at any depth) by this thread, released
    for the block and taken again after it: for a file object a C call on
    the object calls, which may wait for another thread that reads the
    object meanwhile (the call marks the object busy, :meth:`Handle._busy_enter`,
    so that no thread changes or closes it before the call ends)."""
    lock = _lock_of(obj)
    state = lock._release_save() if lock._is_owned() else None
    try:
        yield
    finally:
        if state is not None:
            lock._acquire_restore(state)


def _locked(func: Any) -> Any:
    @functools.wraps(func)
    def call(self: "Handle", *args: Any, **kwargs: Any) -> Any:
        with _lock_of(self):
            return func(self, *args, **kwargs)
    return call


#: The methods of a locked handle class that run under its lock: its
#: public methods and properties and these.
_LOCKED_SPECIAL = ("__next__", "__len__", "__repr__", "__str__", "__eq__",
                   "__getitem__", "__iter__", "__contains__")


@contextlib.contextmanager
def sigint_deferred(on_sigint: Optional[Callable[[], Any]] = None
                    ) -> Iterator[threading.Event]:
    """While a C call runs on a worker thread: Ctrl-C (SIGINT) on the main
    thread sets the event yielded, and calls ``on_sigint`` (the call's
    cancel), instead of raising KeyboardInterrupt at any moment, so that
    the waiting code waits for the call to end and only then raises (a
    KeyboardInterrupt in the middle of that would free C objects the call
    still uses). The cancel is made in the handler itself, so it reaches
    the call whatever the waiting code is blocked in (CPython's
    ``queue.SimpleQueue.get(timeout=...)`` can block for good when a signal
    comes as its timeout ends). Only on the main thread and with Python's
    own SIGINT handler in place (a handler of the program's is left as it
    is)."""
    event = threading.Event()
    previous = None
    handling = [False]

    def handler(signum: int, frame: Any) -> None:
        # (a signal that comes while the handler runs is that one's:
        # nested handlers under a flood of signals would recurse)
        if handling[0]:
            return
        handling[0] = True
        try:
            event.set()
            if on_sigint is not None:
                on_sigint()
        finally:
            handling[0] = False

    if threading.current_thread() is threading.main_thread():
        try:
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                previous = signal.signal(signal.SIGINT, handler)
        except (ValueError, OSError):
            previous = None
    try:
        yield event
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


class Handle:
    """An owned C handle, released by :meth:`close`, on leaving a ``with``
    block, or when the object is garbage-collected.

    Sharing between threads: in a class that sets ``_thread_safe``, every
    public method and property holds the lock of the object's family (the
    object and those that read from it) for its call, ``close`` included:
    a call from one thread waits while another thread uses or closes the
    object, and a closed object raises ValueError; never a crash. A
    search works on its own copy of its graph (``tessel.search``), so the
    graph may be changed or closed while it runs.

    Copies: ``copy.copy`` and ``copy.deepcopy`` raise TypeError unless the
    class defines a real copy (``tessel.Graph``: an independent graph
    through the C API); pickling likewise.

    Subclasses set ``_ctype`` (the pointer type of tessel._lib), store the
    handle in ``_handle`` and define ``_release(handle)``. Objects that
    read from this one (iterators) register with :meth:`_depend` and are
    closed first. After :meth:`close` every use raises ValueError saying
    the object is closed; so does every use of a dependent (an iterator of
    a closed schedule, the graph of a closed schedule).
    """

    _handle: Any = None
    _ctype: Any = None
    #: The object this one reads from and keeps alive (None: none).
    _owner: "Optional[Handle]" = None
    _dependents: "Optional[weakref.WeakSet[Handle]]" = None

    #: True: every public method runs under the family's lock.
    _thread_safe = False
    #: C calls under way on this object that call back into Python (a
    #: writer's file object), by thread (ident: count): it can be read,
    #: but neither changed (:meth:`_h_change`) nor closed from those
    #: callbacks; another thread's change or close waits for them to end.
    _busy_by: "Optional[dict]" = None

    @property
    def _busy(self) -> bool:
        return bool(self._busy_by)

    def _busy_enter(self) -> None:
        """A C call on this object that calls back into Python begins
        (with the family's lock held)."""
        if self._busy_by is None:
            self._busy_by = {}
        me = threading.get_ident()
        self._busy_by[me] = self._busy_by.get(me, 0) + 1

    def _busy_leave(self) -> None:
        """It ends (with the family's lock held): a change or a close
        waiting for it goes on."""
        me = threading.get_ident()
        assert self._busy_by is not None
        left = self._busy_by[me] - 1
        if left:
            self._busy_by[me] = left
        else:
            del self._busy_by[me]
        if not self._busy_by and self._thread_safe:
            with _cond_of(self):
                _cond_of(self).notify_all()

    def _not_busy(self, doing: str) -> None:
        """Before a change or a close: ValueError from a callback of a
        call under way on this object; the end of such calls of other
        threads waited for (with the family's lock held, released while
        waiting)."""
        if not self._busy_by:
            return
        if threading.get_ident() in self._busy_by or not self._thread_safe:
            raise ValueError("this %s cannot be %s from a callback of a "
                             "call under way on it (%s it once the call has "
                             "returned)" % (self._what(), doing,
                                            "change" if doing == "changed"
                                            else "close"))
        if self._thread_safe:
            cond = _cond_of(self)
            with cond:
                cond.wait_for(lambda: not self._busy_by)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls._thread_safe:
            return
        for name, value in list(vars(cls).items()):
            if name.startswith("_") and name not in _LOCKED_SPECIAL:
                continue
            if isinstance(value, property):
                setattr(cls, name, property(
                    _locked(value.fget) if value.fget else None,
                    _locked(value.fset) if value.fset else None,
                    value.fdel, value.__doc__))
            elif callable(value) and not isinstance(
                    value, (staticmethod, classmethod, type)):
                setattr(cls, name, _locked(value))

    def _guard(self) -> Any:
        """The family's lock (a context manager), for a call that uses
        this object's C handle outside its own methods."""
        return _lock_of(self)

    def __copy__(self) -> Any:
        raise TypeError("a tessel.%s cannot be copied%s"
                        % (type(self).__name__, self._copy_hint()))

    def __deepcopy__(self, memo: Any) -> Any:
        return self.__copy__()

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError("a tessel.%s cannot be pickled%s"
                        % (type(self).__name__, self._copy_hint()))

    def _copy_hint(self) -> str:
        return ""

    def _release(self, handle: Any) -> None:
        raise NotImplementedError

    def _h(self) -> Any:
        """The C handle, or ValueError when this object or its owner is
        closed (never NULL passed on to C)."""
        owner = self._owner
        if owner is not None and owner._handle is None:
            raise ValueError("the tessel.%s this %s belongs to is closed"
                             % (type(owner).__name__, self._what()))
        if self._handle is None:
            raise ValueError("this %s is closed" % self._what())
        return self._handle

    def _h_change(self) -> Any:
        """The C handle for a call that changes the object: as :meth:`_h`,
        and ValueError while a C call on the object calls back into Python
        (a writer's file object, which runs under the object's lock on
        the writing thread), so that what the call reads stays as it was
        when the call began."""
        self._h()
        self._not_busy("changed")
        return self._h()

    def _what(self) -> str:
        return "tessel.%s" % type(self).__name__

    @property
    def closed(self) -> bool:
        """True once this object (or the object it belongs to) is closed."""
        owner = self._owner
        return self._handle is None or (owner is not None and
                                        owner._handle is None)

    def _depend(self, dependent: "Handle") -> None:
        """Close ``dependent`` (first) when this object is closed."""
        if self._dependents is None:
            self._dependents = weakref.WeakSet()
        self._dependents.add(dependent)

    def close(self) -> None:
        """Release the C object now (a no-op the second time). Objects
        that read from it are closed first. With ``_thread_safe``, waits
        for a call of another thread on the object to end."""
        if self._thread_safe:
            with _lock_of(self):
                self._close()
        else:
            self._close()

    def _close(self) -> None:
        # (from a callback of a C call on this object, which still uses
        # it: refused; another thread's call: waited for)
        self._not_busy("closed")
        dependents, self._dependents = self._dependents, None
        if dependents is not None:
            for dependent in list(dependents):
                dependent.close()
        handle, self._handle = self._handle, None
        if handle is not None:
            self._release(handle)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __enter__(self: "H") -> "H":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def _as_parameter_(self) -> Any:
        return self._h()


def take_string(func: Any, *args: Any) -> str:
    """Call ``func(&out, *args)`` returning new text; copy it and free it.

    The out pointer is a c_void_p, so the pointer itself is kept and
    released with tessel_free after the text was copied.
    """
    out = ctypes.c_void_p()
    check(func(ctypes.byref(out), *args))
    try:
        return ctypes.string_at(out).decode("utf-8")
    finally:
        lib.tessel_free(out)


def _type_name(value: Any) -> str:
    return type(value).__name__


def text_arg(value: Any, what: str, none: bool = False,
             utf8: bool = True) -> Optional[bytes]:
    """``value`` (str or bytes) as NUL-terminated UTF-8 for a C string.

    TypeError for anything else (None only when ``none``), ValueError for
    an embedded NUL, which C would silently cut the text at, and for bytes
    that are not UTF-8 (unless ``utf8`` is False: a file system path).
    """
    if value is None and none:
        return None
    # (a subclass's text as it holds it, not what an override of encode
    # or __bytes__ would make of it)
    if isinstance(value, str):
        data = str.encode(value, "utf-8")
    elif isinstance(value, bytes):
        data = bytes(memoryview(value))
    else:
        raise TypeError("%s must be str or bytes, not %s"
                        % (what, _type_name(value)))
    if b"\0" in data:
        raise ValueError("%s contains a NUL character" % what)
    if utf8 and isinstance(value, bytes):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError("%s is not valid UTF-8: %s" % (what, error)) from None
    return data


def path_arg(value: Any, what: str = "path") -> bytes:
    """A file system path (str, bytes or os.PathLike) for C."""
    try:
        value = os.fspath(value)
    except TypeError:
        raise TypeError("%s must be a str, bytes or os.PathLike, not %s"
                        % (what, _type_name(value))) from None
    if isinstance(value, str):
        value = os.fsencode(value)
    data = text_arg(value, what, utf8=False)
    assert data is not None
    return data


def data_arg(value: Any, what: str) -> bytes:
    """JSON text (str, bytes or bytearray) as UTF-8 bytes; length is
    passed to C, so the text need not end in NUL."""
    # the base classes' own conversions: a subclass's encode() or
    # __bytes__ is not asked what the text is
    if isinstance(value, str):
        return str.encode(value, "utf-8")
    if isinstance(value, (bytes, bytearray)):
        return bytes(memoryview(value))
    raise TypeError("%s must be str or bytes (JSON text), not %s"
                    % (what, _type_name(value)))


def is_bool(value: Any) -> bool:
    """Python's bool, or a truth value of another library that converts
    to an integer (numpy's bool_)."""
    if isinstance(value, bool):
        return True
    kind = type(value)
    return (kind.__name__ in ("bool_", "bool8", "bool")
            and kind.__module__.split(".")[0] == "numpy")


def _integer(value: Any, what: str) -> int:
    # bool is an int to Python, never a count or a number to libtessel
    if is_bool(value):
        raise TypeError("%s must be an integer, not %s"
                        % (what, _type_name(value)))
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError("%s must be an integer, not %s"
                        % (what, _type_name(value))) from None


def _ranged(value: Any, what: str, low: int, high: int, ctype: str) -> int:
    number = _integer(value, what)
    if not low <= number <= high:
        raise OverflowError("%s %d is out of range for the C type %s "
                            "(%d .. %d)" % (what, number, ctype, low, high))
    return number


def int_arg(value: Any, what: str) -> int:
    """An int for a C ``int``: TypeError for a non-integer (a float too),
    OverflowError when C's int cannot hold it (never truncated)."""
    return _ranged(value, what, INT_MIN, INT_MAX, "int")


def int64_arg(value: Any, what: str) -> int:
    """An int for a C ``int64_t`` (see :func:`int_arg`)."""
    return _ranged(value, what, INT64_MIN, INT64_MAX, "int64_t")


def size_arg(value: Any, what: str) -> int:
    """An int for a C ``size_t`` (see :func:`int_arg`)."""
    return _ranged(value, what, 0, SIZE_MAX, "size_t")


def uint64_arg(value: Any, what: str) -> int:
    """An int for a C ``uint64_t`` (see :func:`int_arg`)."""
    return _ranged(value, what, 0, UINT64_MAX, "uint64_t")


def double_arg(value: Any, what: str) -> float:
    """A real number (int or float, not bool, not str) for a C double."""
    if is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a number, not %s"
                        % (what, _type_name(value)))
    # a subclass of float or int by the value it holds, not by an
    # override of __float__
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, int):
        value = int.__int__(value)
    try:
        number = float(value)
    except OverflowError:
        # (an int, a Fraction beyond the largest double: the message
        # names the argument)
        text = str(value)
        if len(text) > 40:
            text = text[:20] + "..." + text[-8:] + " (%d characters)" % len(text)
        raise OverflowError("%s %s is beyond the largest double" % (what, text)) \
            from None
    # an integer a double cannot hold exactly (beyond 2**53) is refused,
    # not rounded to a neighbour
    if isinstance(value, numbers.Integral) and int(value) != number:
        raise ValueError("%s %d has no exact double (integers beyond 2**53 "
                         "are rounded): give a float to accept the nearest"
                         % (what, int(value)))
    # likewise another kind of number (a Fraction, a Decimal) a double
    # does not hold exactly (NaN is left to the library's check)
    if number == number and not isinstance(value, numbers.Integral) and \
            value != number:
        raise ValueError("%s %s has no exact double: give float(%s) to "
                         "accept the nearest" % (what, value, value))
    return number


def bool_arg(value: Any, what: str) -> int:
    """True/False (or the integers 0 and 1) as the C int 1/0."""
    if is_bool(value):
        return 1 if value else 0
    number = _integer(value, what)
    if number not in (0, 1):
        raise ValueError("%s must be True or False, not %d" % (what, number))
    return number


def seconds_to_ms(value: Any, what: str) -> int:
    """A time limit in seconds as the library's milliseconds: None or 0
    mean no limit (0 ms); otherwise rounded up to whole milliseconds, as
    the command line's --time-limit does."""
    if value is None:
        return 0
    seconds = double_arg(value, what)
    if math.isnan(seconds) or seconds < 0:
        raise ValueError("%s must be None (no limit) or a number of "
                         "seconds >= 0, not %r" % (what, value))
    if math.isinf(seconds):
        raise ValueError("%s must be finite (None: no limit)" % what)
    millis = math.ceil(seconds * 1000.0)
    if millis > INT64_MAX:
        raise OverflowError("%s %r is out of range" % (what, value))
    return int(millis)


def enum_value(value: Any, names: "Tuple[str, ...]", what: str) -> int:
    """The number of ``value``, a name out of ``names`` or its index."""
    if isinstance(value, str):
        try:
            return names.index(value)
        except ValueError:
            raise ValueError("%s must be one of %s, not %r"
                             % (what, ", ".join(names), value)) from None
    number = _integer(value, what)
    if not 0 <= number < len(names):
        raise ValueError("%s must be one of %s (or 0 .. %d), not %d"
                         % (what, ", ".join(names), len(names) - 1, number))
    return number


Number = Union[int, float]
