"""Search, schedules, their entries and action streams, simulation."""

import ctypes
import enum
import errno
import fractions
import io
import os
import queue
import stat
import tempfile
import threading
import time
from typing import (Any, Callable, Dict, Iterator, List, Mapping,
                    NamedTuple, Optional, Sequence, Tuple, TypeVar, Union)

from ._lib import (PROGRESS_FN, WRITE_FN, action_iter_p, action_p, entry_p, graph_p,
                   iter_p, lib, options_p, schedule_p, simulation_p)
from ._util import (Handle, Number, bool_arg, data_arg, double_arg, is_bool, unlocked,
                    enum_value, int64_arg, int_arg, path_arg, seconds_to_ms,
                    sigint_deferred, take_string, uint64_arg)
from .errors import (ITEROVER, NotFoundError, RangeError, TesselError, check,
                     check_file, make_error)
from .graph import ALL_DEVICES, KINDS, UNLIMITED, Block, Graph

I = TypeVar("I", bound="_Iterator")

__all__ = ["Schedule", "Entry", "Action", "Progress", "CancelToken",
           "search", "search_sweep", "min_memory", "PHASES", "ACTION_KINDS", "FORMATS",
           "Choice", "CHOICES", "ALTERNATIVES"]

#: Entry phases, in the order of tessel_phase.
PHASES = ("warmup", "repetend", "cooldown")
#: Export formats of Schedule.write, in the order of tessel_format.
FORMATS = ("text", "json", "actions", "torch", "torch-comms", "trace", "svg")
#: Action kinds, in the order of tessel_action_kind ("offload" and
#: "reload": the copies of an offloaded activation, since 1.6; "wait": the
#: next compute waits for an offload to end, since 1.8).
ACTION_KINDS = ("compute", "send", "recv", "offload", "reload", "wait")
#: What an entry does with its activation, in the order of tessel_choice,
#: spelled as the schedule JSON spells them (tessel_choice_name).
CHOICES = ("keep", "recompute", "offload")


class Choice(enum.IntEnum):
    """What a schedule does with the activation of one (block,
    micro-batch) of a block that declares alternatives (tessel_choice):
    KEEP it in device memory until the backward, RECOMPUTE it (dropped
    after the forward, the backward runs the forward again first), or
    OFFLOAD it to host memory and back. ``str()`` gives the schedule
    JSON's spelling ("keep", "recompute", "offload")."""

    KEEP = 0
    RECOMPUTE = 1
    OFFLOAD = 2

    def __str__(self) -> str:
        return CHOICES[self.value]


# tessel_option
(_OPT_MICRO_BATCHES, _OPT_TIME_LIMIT_MS, _OPT_THREADS, _OPT_FAST,
 _OPT_MAX_PERIOD, _OPT_SEED, _OPT_MINIMIZE_DEPTH, _OPT_SOLVER_MEMORY_MB,
 _OPT_REPETEND_MICRO_BATCHES, _OPT_WORK_LIMIT, _OPT_ALTERNATIVES) = range(11)
# tessel_schedule_attr
(_S_NDEVICES, _S_NBLOCKS, _S_NMICROS, _S_NENTRIES, _S_MAKESPAN, _S_PERIOD,
 _S_RESOURCE_BOUND, _S_PERIOD_OPTIMAL, _S_LOWER_BOUND, _S_REPETEND_BEGIN,
 _S_REPETEND_END, _S_DEPTH, _S_SEARCH_US, _S_MAKESPAN_OPTIMAL,
 _S_REPETEND_MICRO_BATCHES, _S_WORK, _S_PROOF_WORK) = range(17)
# tessel_progress_attr
(_P_IMPROVED, _P_PERIOD, _P_REPETEND_MICRO_BATCHES, _P_MAKESPAN,
 _P_LOWER_BOUND, _P_PERIOD_PROVEN, _P_WORK, _P_WORK_LIMIT,
 _P_MICROSECONDS) = range(9)
# tessel_entry_attr
(_E_GID, _E_MICRO_BATCH, _E_START, _E_SPAN, _E_PHASE, _E_KIND, _E_MEMORY,
 _E_NDEVICES, _E_CHOICE, _E_OFFLOAD_START, _E_RELOAD_START) = range(11)
# tessel_action_attr
(_A_KIND, _A_GID, _A_MICRO_BATCH, _A_PEER, _A_PEER_GID, _A_STEP,
 _A_LATENCY) = range(7)
# tessel_sim_attr
_SIM_MAKESPAN, _SIM_BUSY, _SIM_IDLE, _SIM_PEAK = range(4)


class Entry:
    """One (block, micro-batch) of a schedule, copied out of the C entry
    (it stays valid after the schedule is closed).

    Attributes: ``block`` (name), ``gid``, ``micro_batch``, ``start``,
    ``span``, ``phase`` ("warmup", "repetend", "cooldown"), ``kind``
    ("forward", "backward", "weight"), ``memory`` and ``devices`` (list).
    ``span`` and ``memory`` are those of this entry: a backward whose
    forward is recomputed runs longer, a recomputed forward keeps less.

    Since 1.6: ``choice`` (a :class:`Choice`: what the entry does with its
    activation, KEEP unless its block declares an alternative the
    schedule uses), and ``offload_start`` and ``reload_start``, the start
    steps of an offloaded activation's copies (None unless ``choice`` is
    OFFLOAD).
    """

    __slots__ = ("block", "gid", "micro_batch", "start", "span", "phase",
                 "kind", "memory", "devices", "choice", "offload_start",
                 "reload_start")

    def __init__(self, block: str, gid: int, micro_batch: int, start: int,
                 span: int, phase: str, kind: str, memory: int,
                 devices: List[int], choice: "Choice" = Choice.KEEP,
                 offload_start: Optional[int] = None,
                 reload_start: Optional[int] = None) -> None:
        self.block = block
        self.gid = gid
        self.micro_batch = micro_batch
        self.start = start
        self.span = span
        self.phase = phase
        self.kind = kind
        self.memory = memory
        self.devices = devices
        self.choice = choice
        self.offload_start = offload_start
        self.reload_start = reload_start

    @property
    def end(self) -> int:
        """Step after the entry's last step."""
        return self.start + self.span

    @classmethod
    def _from_c(cls, entry: Any) -> "Entry":
        def get(attr: int) -> int:
            out = ctypes.c_int64()
            check(lib.tessel_entry_get(ctypes.byref(out), entry, attr))
            return out.value

        name = ctypes.c_char_p()
        check(lib.tessel_entry_name(ctypes.byref(name), entry))
        devices = []
        for index in range(get(_E_NDEVICES)):
            device = ctypes.c_int()
            check(lib.tessel_entry_device(ctypes.byref(device), entry, index))
            devices.append(device.value)
        offload = get(_E_OFFLOAD_START)
        reload = get(_E_RELOAD_START)
        return cls((name.value or b"").decode("utf-8"), get(_E_GID),
                   get(_E_MICRO_BATCH), get(_E_START), get(_E_SPAN),
                   PHASES[get(_E_PHASE)], KINDS[get(_E_KIND)],
                   get(_E_MEMORY), devices, Choice(get(_E_CHOICE)),
                   None if offload < 0 else offload,
                   None if reload < 0 else reload)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Entry):
            return NotImplemented
        return all(getattr(self, a) == getattr(other, a)
                   for a in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        extra = ""
        if self.choice != Choice.KEEP:
            extra = ", choice=%r" % str(self.choice)
            if self.choice == Choice.OFFLOAD:
                extra += ", offload_start=%r, reload_start=%r" % (
                    self.offload_start, self.reload_start)
        return ("Entry(block=%r, micro_batch=%d, start=%d, span=%d, "
                "phase=%r, kind=%r, devices=%r%s)" % (
                    self.block, self.micro_batch, self.start, self.span,
                    self.phase, self.kind, self.devices, extra))


class Action:
    """One action of a device's stream: compute, send or recv (or, since
    1.6, offload and reload), copied out of the C action.

    Attributes: ``kind`` (one of :data:`ACTION_KINDS`), ``gid``, ``block``
    (name of gid), ``micro_batch``, ``peer`` (None but for send and
    recv), ``peer_gid`` (likewise), ``step`` and ``latency`` (send and
    recv: the dependency's latency in steps, 0 for compute; the output
    arrives at the send's step + latency).
    """

    __slots__ = ("kind", "gid", "block", "micro_batch", "peer", "peer_gid",
                 "step", "latency")

    def __init__(self, kind: str, gid: int, block: str, micro_batch: int,
                 peer: Optional[int], peer_gid: Optional[int], step: int,
                 latency: int = 0) -> None:
        self.kind = kind
        self.gid = gid
        self.block = block
        self.micro_batch = micro_batch
        self.peer = peer
        self.peer_gid = peer_gid
        self.step = step
        self.latency = latency

    def __repr__(self) -> str:
        return ("Action(kind=%r, block=%r, micro_batch=%d, peer=%r, "
                "step=%d)" % (self.kind, self.block, self.micro_batch,
                              self.peer, self.step))


class _Iterator(Handle):
    """A C iterator over a schedule. It keeps the schedule alive; closing
    the schedule closes it, and it then raises ValueError."""

    _thread_safe = True

    _free: Any = None

    def __init__(self, schedule: "Schedule", handle: Any) -> None:
        self._handle = handle
        self._owner = schedule
        self._done = False
        self._changes = schedule._changes
        schedule._depend(self)

    def _what(self) -> str:
        return "iterator"

    def _release(self, handle: Any) -> None:
        type(self)._free(handle)

    def __iter__(self: "I") -> "I":
        return self

    def _next_item(self, func: Any, ctype: Any) -> Any:
        owner = self._owner
        if owner is not None and owner._handle is None:
            raise ValueError("the tessel.Schedule this iterator belongs to "
                             "is closed")
        if self._done:
            raise StopIteration
        if owner is not None and owner._changes != self._changes:
            # (the C iterator's order is the schedule's when it was made)
            raise RuntimeError("the tessel.Schedule changed during iteration "
                               "(set_step or set_choice): iterate it anew")
        item = ctype()
        rc = func(ctypes.byref(item), self._h())
        if rc == ITEROVER:
            self._done = True
            self.close()  # the C iterator is not needed any more
            raise StopIteration
        check(rc)
        return item


class EntryIterator(_Iterator):
    """Iterator over a schedule's entries (:class:`Entry`)."""

    _ctype = iter_p
    _free = lib.tessel_iter_free

    def __next__(self) -> Entry:
        entry = self._next_item(lib.tessel_iter_next, entry_p)
        return Entry._from_c(entry)


class ActionIterator(_Iterator):
    """Iterator over a device's action stream (:class:`Action`)."""

    _ctype = action_iter_p
    _free = lib.tessel_action_iter_free

    def __init__(self, schedule: "Schedule", handle: Any) -> None:
        super().__init__(schedule, handle)
        self._names: Dict[int, str] = {}

    def __next__(self) -> Action:
        action = self._next_item(lib.tessel_action_iter_next, action_p)

        def get(attr: int) -> int:
            out = ctypes.c_int64()
            check(lib.tessel_action_get(ctypes.byref(out), action, attr))
            return out.value

        kind = ACTION_KINDS[get(_A_KIND)]
        gid = get(_A_GID)
        if gid not in self._names:
            owner = self._owner
            assert isinstance(owner, Schedule)
            self._names[gid] = owner.graph.block_name(gid)
        peer = get(_A_PEER)
        peer_gid = get(_A_PEER_GID)
        return Action(kind, gid, self._names[gid], get(_A_MICRO_BATCH),
                      None if peer < 0 else peer,
                      None if peer_gid < 0 else peer_gid,
                      get(_A_STEP), get(_A_LATENCY))


class Progress(NamedTuple):
    """What a progress callback receives.

    ``improved`` is True when the search has just found a schedule better
    than all before (``period``, ``makespan`` (before the final compaction,
    which can only shorten it), ``lower_bound`` LB(N) and ``proven``, the
    period proven optimal, are then that schedule's), False for a tick: a
    call made when no improvement came for ``interval`` seconds, repeating
    the best figures so far (all None before the first schedule).
    ``elapsed`` is the seconds since the search started.

    Since 1.2 the callback is also called, with ``improved`` False, when a
    phase of the search begins: ``phase`` names it ("list", "heuristic",
    "solver", "groups", "compaction", "windows", "restarts", "direct",
    "unlimited", "fast", "extend", "done"; see tessel_progress_phase), ``work`` is the work
    spent so far and ``work_limit`` the budget (0: none), and
    ``repetend_micro_batches`` is k of the best period (``period`` / k
    steps per micro-batch).
    """

    period: Optional[int]
    makespan: Optional[int]
    lower_bound: Optional[int]
    proven: Optional[bool]
    improved: bool
    elapsed: float
    phase: Optional[str] = None
    work: Optional[int] = None
    work_limit: Optional[int] = None
    repetend_micro_batches: Optional[int] = None

    @property
    def period_per_micro_batch(self) -> Optional[fractions.Fraction]:
        """``period`` / k exactly (None before the first schedule)."""
        if self.period is None:
            return None
        return fractions.Fraction(self.period, self.repetend_micro_batches or 1)


class CancelToken:
    """Cancels the searches it is given to (``search(..., cancel=token)``).

    :meth:`cancel` may be called from any thread, a signal handler or a
    progress callback; every search running with the token stops as soon
    as it can and returns the best schedule found so far, or raises
    CancelledError when it has none. The request stays until
    :meth:`reset`: searches started later with the token stop at once.
    """

    def __init__(self) -> None:
        # reentrant: cancel() may run in a signal handler on the thread
        # that holds the lock
        self._lock = threading.RLock()
        self._cancelled = False
        self._options: List["_Options"] = []

    def __copy__(self) -> Any:
        raise TypeError("a tessel.CancelToken cannot be copied (share the "
                        "token itself)")

    def __deepcopy__(self, memo: Any) -> Any:
        return self.__copy__()

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError("a tessel.CancelToken cannot be pickled")

    def cancel(self) -> None:
        """Ask every search using this token to stop."""
        with self._lock:
            self._cancelled = True
            for options in list(self._options):
                options.cancel()

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called (until :meth:`reset`)."""
        return self._cancelled

    def reset(self) -> None:
        """Withdraw the request, for later searches (not running ones)."""
        with self._lock:
            self._cancelled = False

    def _attach(self, options: "_Options") -> None:
        with self._lock:
            self._options.append(options)
            if self._cancelled:
                options.cancel()

    def _detach(self, options: "_Options") -> None:
        with self._lock:
            self._options.remove(options)


def _umask() -> int:
    """The process's umask, read without changing it where Linux tells
    it (os.umask sets it, which another thread creating a file could
    see)."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class _Options(Handle):
    """Search options (tessel_options), released deterministically."""

    _ctype = options_p

    #: The options whose None means "the library's default" (documented
    #: so); None anywhere else is a TypeError, as any other wrong type.
    _NONE_IS_DEFAULT = frozenset(("work_limit", "repetend_micro_batches"))

    def __init__(self, **values: Any) -> None:
        # reentrant: cancel() may come from a signal handler
        self._lock = threading.RLock()
        self._callback: Any = None
        handle = options_p()
        check(lib.tessel_options_new(ctypes.byref(handle)))
        self._handle = handle
        keys = {
            "micro_batches": _OPT_MICRO_BATCHES,
            "threads": _OPT_THREADS,
            "seed": _OPT_SEED,
            "max_period": _OPT_MAX_PERIOD,
            "solver_memory_mb": _OPT_SOLVER_MEMORY_MB,
            "repetend_micro_batches": _OPT_REPETEND_MICRO_BATCHES,
            "work_limit": _OPT_WORK_LIMIT,
        }
        flags = {"fast": _OPT_FAST, "minimize_depth": _OPT_MINIMIZE_DEPTH}
        try:
            for name, value in values.items():
                if name == "time_limit":
                    self.set(_OPT_TIME_LIMIT_MS,
                             seconds_to_ms(value, "time_limit"))
                elif value is None:
                    if name in self._NONE_IS_DEFAULT:
                        continue
                    raise TypeError("%s must be %s, not None" % (
                        name, "True or False" if name in flags else "an integer"))
                elif name == "alternatives":
                    self.set(_OPT_ALTERNATIVES, _alternatives_arg(value))
                elif name in flags:
                    self.set(flags[name], bool_arg(value, name))
                else:
                    self.set(keys[name], int64_arg(value, name))
        except BaseException:
            self.close()
            raise

    def set(self, key: int, value: int) -> None:
        check(lib.tessel_options_set(self._h(), key, value))

    def cancel(self) -> None:
        """tessel_options_cancel, safe from any thread while the options
        live."""
        with self._lock:
            if self._handle is not None:
                lib.tessel_options_cancel(self._handle)

    def _release(self, handle: Any) -> None:
        with self._lock:
            lib.tessel_options_free(handle)
        self._callback = None


#: Values of ``search(..., alternatives=)`` by name, in the order of
#: TESSEL_OPT_ALTERNATIVES (the names of ``tessel search --alternatives``).
ALTERNATIVES = ("off", "search", "always")


def _alternatives_arg(value: Any) -> int:
    """TESSEL_OPT_ALTERNATIVES from True ("search"), False ("off"), a name
    of :data:`ALTERNATIVES` or the option's number (range-checked by the
    library)."""
    if is_bool(value):
        return 1 if value else 0
    if isinstance(value, str):
        return enum_value(value, ALTERNATIVES, "alternatives")
    return int64_arg(value, "alternatives")


_DONE = object()


def _run(call: Callable[[Any], int], options: _Options,
         progress: Optional[Callable[[Progress], Any]], interval: float,
         cancel: Optional[CancelToken]) -> Tuple[int, Optional[TesselError]]:
    """Run ``call(options_handle)`` (a search in C) in a worker thread while
    this thread waits: it calls ``progress`` (improvements handed over from
    the C callback, ticks every ``interval`` seconds), and on any exception
    here (KeyboardInterrupt from Ctrl-C, or one raised by ``progress``)
    cancels the search, waits for it to end and raises the exception again.
    Returns (rc, the error of a failed call read on its own thread)."""
    # queue.Queue, not SimpleQueue: a signal as SimpleQueue.get's timeout
    # ends can leave it blocked for good (CPython 3.11)
    events: "queue.Queue[Any]" = queue.Queue()
    abandoned = threading.Event()
    outcome: Dict[str, Any] = {}
    start = time.monotonic()

    class Reply:
        def __init__(self) -> None:
            self.event = threading.Event()
            self.stop = 1

    pending: List[Reply] = []

    def figure(event: Any, attr: int) -> int:
        out = ctypes.c_int64()
        lib.tessel_progress_get(ctypes.byref(out), event, attr)
        return int(out.value)

    def trampoline(event: Any, payload: Any) -> int:
        # on the searching thread: hand over, wait for the answer
        if abandoned.is_set():
            return 1
        phase = ctypes.c_char_p()
        lib.tessel_progress_phase(ctypes.byref(phase), event)
        have = figure(event, _P_MAKESPAN) > 0
        report = Progress(
            figure(event, _P_PERIOD) if have else None,
            figure(event, _P_MAKESPAN) if have else None,
            figure(event, _P_LOWER_BOUND),
            bool(figure(event, _P_PERIOD_PROVEN)) if have else None,
            bool(figure(event, _P_IMPROVED)), time.monotonic() - start,
            phase.value.decode() if phase.value else None,
            figure(event, _P_WORK), figure(event, _P_WORK_LIMIT),
            figure(event, _P_REPETEND_MICRO_BATCHES) if have else None)
        reply = Reply()
        pending.append(reply)
        events.put((report, reply))
        while not reply.event.wait(0.05):
            if abandoned.is_set():
                return 1
        return reply.stop

    handle = options._h()
    if progress is not None:
        options._callback = PROGRESS_FN(trampoline)
        check(lib.tessel_options_set_progress_fn(handle, options._callback,
                                                 None))

    def worker() -> None:
        try:
            rc = call(handle)
            outcome["rc"] = rc
            if rc < 0:
                outcome["error"] = make_error(rc)
        except BaseException as exc:  # not expected; reported below
            outcome["exception"] = exc
        finally:
            events.put(_DONE)

    def abandon() -> None:
        abandoned.set()
        options.cancel()
        for reply in pending:
            reply.event.set()

    if cancel is not None:
        cancel._attach(options)
    thread = threading.Thread(target=worker, name="tessel-search",
                              daemon=True)
    interrupted = False
    try:
        # Ctrl-C while the search runs: it is cancelled, waited for, and
        # KeyboardInterrupt raised once it ended (sigint_deferred)
        with sigint_deferred(options.cancel) as sigint:
            thread.start()
            best = Progress(None, None, None, None, False, 0.0)
            last = start
            while True:
                if sigint.is_set() and not interrupted:
                    interrupted = True
                    abandon()
                wait = 0.05 if interrupted else 0.1
                if progress is not None and not interrupted:
                    wait = min(wait, max(0.0, last + interval - time.monotonic()))
                try:
                    item = events.get(timeout=wait)
                except queue.Empty:
                    item = None
                if item is _DONE:
                    break
                if interrupted:
                    if item is not None:
                        item[1].event.set()
                    continue
                now = time.monotonic()
                if item is None:
                    if progress is not None and now - last >= interval:
                        last = now
                        if progress(best._replace(improved=False,
                                                  elapsed=now - start)):
                            options.cancel()
                    continue
                report, reply = item
                best = report
                try:
                    reply.stop = 1 if progress(report) else 0  # type: ignore
                finally:
                    last = time.monotonic()
                    reply.event.set()
    except BaseException:
        abandon()
        _join(thread)
        raise
    finally:
        if cancel is not None:
            cancel._detach(options)
    _join(thread)
    if interrupted or sigint.is_set():
        raise KeyboardInterrupt
    if "exception" in outcome:
        raise outcome["exception"]
    return outcome["rc"], outcome.get("error")


def _join(thread: threading.Thread) -> None:
    """Wait for the search thread; a second Ctrl-C does not abandon it
    (its C objects must not be freed under it)."""
    while thread.is_alive():
        try:
            thread.join(0.1)
        except KeyboardInterrupt:
            pass


class _WriteState:
    """A write under way (Schedule._write_to): its Ctrl-C, and whether its
    file object is writing."""

    def __init__(self) -> None:
        # (plain flags: the signal handler sets them without a lock)
        self.sigint = [False]
        self.in_write = [False]


_WRITES = threading.local()


def _write_stack() -> List[_WriteState]:
    """The writes under way on this thread, the innermost last."""
    stack = getattr(_WRITES, "stack", None)
    if stack is None:
        stack = _WRITES.stack = []
    return stack


class Schedule(Handle):
    """A schedule: every block of every micro-batch with its start step.

    Get one from :func:`search` or :meth:`Schedule.from_json`. The C handle
    is released by :meth:`close`, on leaving a ``with`` block, or when the
    object is garbage-collected. Iterators over its entries and actions
    and its :attr:`graph` keep it alive; after :meth:`close` they (and the
    schedule) raise ValueError.
    """

    _ctype = schedule_p
    _thread_safe = True
    #: set_step and set_choice calls so far: an iterator made before one
    #: raises RuntimeError (the C iterator's order would be stale)
    _changes = 0

    def _copy_hint(self) -> str:
        return ("; Schedule.from_json(schedule.to_json()) makes an "
                "independent one")

    def __init__(self, _handle: Any) -> None:
        if type(_handle) is not schedule_p:
            raise TypeError("use tessel.search() or Schedule.from_json() "
                            "to get a schedule")
        self._handle = _handle

    # -- life cycle -------------------------------------------------------

    def _release(self, handle: Any) -> None:
        lib.tessel_schedule_free(handle)

    # -- constructors -----------------------------------------------------

    @classmethod
    def from_json(cls, text: Union[str, bytes]) -> "Schedule":
        """Parse schedule JSON (not validated: call :meth:`validate`)."""
        data = data_arg(text, "schedule JSON")
        handle = schedule_p()
        check(lib.tessel_schedule_from_json(ctypes.byref(handle), data,
                                            len(data)))
        return cls(handle)

    @classmethod
    def from_file(cls, path: Any) -> "Schedule":
        """Read schedule JSON from the file at ``path``."""
        name = path_arg(path)
        handle = schedule_p()
        check_file(lib.tessel_schedule_from_file(ctypes.byref(handle), name),
                   name)
        return cls(handle)

    @classmethod
    def from_reference_json(cls, placement: Graph,
                            text: Union[str, bytes]) -> "Schedule":
        """Read a schedule saved by the Tessel reference implementation."""
        _graph_arg(placement, "placement")
        data = data_arg(text, "reference JSON")
        handle = schedule_p()
        with placement._guard():
            check(lib.tessel_schedule_from_reference_json(
                ctypes.byref(handle), placement._h(), data, len(data)))
        return cls(handle)

    @classmethod
    def empty(cls, graph: Graph, micro_batches: int) -> "Schedule":
        """An empty schedule for ``graph``: fill it with :meth:`set_step`."""
        handle = schedule_p()
        _graph_arg(graph, "graph")
        nmicros = int64_arg(micro_batches, "micro_batches")
        with graph._guard():
            check(lib.tessel_schedule_new(ctypes.byref(handle), graph._h(),
                                          nmicros))
        return cls(handle)

    def set_step(self, gid: int, micro_batch: int, step: int) -> None:
        """Set the start step of block ``gid`` of ``micro_batch``.

        Refused (ValueError) from the file object of a :meth:`write` of
        this schedule, as :meth:`set_choice` is: the export under way
        reads the schedule as it was when it began.
        """
        handle = self._h_change()
        rc = lib.tessel_schedule_set_step(
            handle, int_arg(gid, "block id"),
            int64_arg(micro_batch, "micro_batch"), int64_arg(step, "step"))
        if rc == 0:
            self._changes += 1  # (a change refused leaves iterators valid)
        check(rc)

    def set_choice(self, block: Block, micro_batch: int,
                   choice: Union["Choice", str, int],
                   offload_step: Optional[int] = None,
                   reload_step: Optional[int] = None) -> None:
        """Choose what ``micro_batch`` of ``block`` (a gid or a name) does
        with its activation: a :class:`Choice`, its name ("keep",
        "recompute", "offload") or its number. RECOMPUTE and OFFLOAD need
        the block to declare that alternative (:meth:`Graph.set_recompute`,
        :meth:`Graph.set_offload`; InvalidError otherwise). OFFLOAD needs
        ``offload_step`` and ``reload_step``, the start steps of the two
        copies (0 .. 10**15, RangeError otherwise); the other choices take
        neither. A new schedule keeps every activation; :meth:`validate`
        checks the choices (the copies' times, the memory). Refused
        (ValueError) from the file object of a :meth:`write` of this
        schedule.
        """
        which = enum_value(choice, CHOICES, "choice")
        offload, reload = 0, 0
        if which == Choice.OFFLOAD:
            if offload_step is None or reload_step is None:
                raise TypeError("an offload needs offload_step and "
                                "reload_step (the copies' start steps)")
            offload = int64_arg(offload_step, "offload_step")
            reload = int64_arg(reload_step, "reload_step")
        elif offload_step is not None or reload_step is not None:
            raise ValueError("offload_step and reload_step are for the "
                             "offload choice only, not %s"
                             % CHOICES[which])
        mid = int64_arg(micro_batch, "micro_batch")
        if isinstance(block, (str, bytes)):
            gid = self.graph._gid(block)
        else:
            gid = int_arg(block, "block id")
        handle = self._h_change()
        rc = lib.tessel_schedule_set_choice(handle, gid, mid, which,
                                            offload, reload)
        if rc == 0:
            self._changes += 1
        check(rc)

    # -- figures ----------------------------------------------------------

    def _get(self, attr: int) -> int:
        out = ctypes.c_int64()
        check(lib.tessel_schedule_get(ctypes.byref(out), self._h(), attr))
        return out.value

    @property
    def period(self) -> int:
        """Steps of one repetition of the steady state: P_k, for
        :attr:`repetend_micro_batches` (k) micro-batches; per micro-batch
        it is :attr:`period_per_micro_batch` (P_k / k)."""
        return self._get(_S_PERIOD)

    @property
    def period_per_micro_batch(self) -> "fractions.Fraction":
        """Steps per micro-batch in the steady state, exactly: P_k / k
        (a Fraction; equal to :attr:`period` when k is 1)."""
        k = self.repetend_micro_batches
        return fractions.Fraction(self.period, k if k > 0 else 1)

    @property
    def resource_bound(self) -> int:
        """Max over devices of the summed spans on that device."""
        return self._get(_S_RESOURCE_BOUND)

    @property
    def period_optimal(self) -> bool:
        """True when the period is proven optimal."""
        return bool(self._get(_S_PERIOD_OPTIMAL))

    @property
    def makespan(self) -> int:
        """Last finish step."""
        return self._get(_S_MAKESPAN)

    @property
    def makespan_optimal(self) -> bool:
        """True when no schedule of these micro-batches is shorter."""
        return bool(self._get(_S_MAKESPAN_OPTIMAL))

    @property
    def lower_bound(self) -> int:
        """LB(N), the lower bound on the makespan."""
        return self._get(_S_LOWER_BOUND)

    @property
    def repetend(self) -> Tuple[int, int]:
        """(begin, end): first step and step after the steady state."""
        return (self._get(_S_REPETEND_BEGIN), self._get(_S_REPETEND_END))

    @property
    def repetend_micro_batches(self) -> int:
        """k: micro-batches the repetend holds (0 for an empty schedule)."""
        return self._get(_S_REPETEND_MICRO_BATCHES)

    @property
    def work(self) -> int:
        """Work units the search spent (0 for a schedule not searched)."""
        return self._get(_S_WORK)

    @property
    def proof_work(self) -> int:
        """Of :attr:`work`, the units spent proving the period minimal
        beside the default budget (0 when none)."""
        return self._get(_S_PROOF_WORK)

    @property
    def depth(self) -> int:
        """Length of one micro-batch inside the repetend."""
        return self._get(_S_DEPTH)

    @property
    def micro_batches(self) -> int:
        """Number of micro-batches N."""
        return self._get(_S_NMICROS)

    @property
    def devices(self) -> int:
        """Number of devices."""
        return self._get(_S_NDEVICES)

    @property
    def blocks(self) -> int:
        """Number of blocks per micro-batch."""
        return self._get(_S_NBLOCKS)

    def __len__(self) -> int:
        return self._get(_S_NENTRIES)

    @property
    def search_seconds(self) -> float:
        """Wall-clock seconds the search took."""
        out = ctypes.c_double()
        check(lib.tessel_schedule_search_seconds(ctypes.byref(out),
                                                 self._h()))
        return out.value

    def peak_memory(self, device: int) -> int:
        """Peak memory reached on ``device`` over the whole schedule."""
        out = ctypes.c_int64()
        check(lib.tessel_schedule_peak_memory(ctypes.byref(out), self._h(),
                                              int_arg(device, "device")))
        return out.value

    @property
    def graph(self) -> Graph:
        """The graph the schedule was made for, read-only (a change raises
        ValueError). It belongs to the schedule and keeps it alive; once
        the schedule is closed it raises ValueError (use ``graph.copy()``
        for an independent graph)."""
        out = graph_p()
        check(lib.tessel_schedule_graph(ctypes.byref(out), self._h()))
        return Graph._wrap(out, owner=self)

    def validate(self) -> None:
        """Check the schedule; raise ViolationError when it breaks a rule."""
        check(lib.tessel_schedule_validate(self._h()))

    # -- exports ----------------------------------------------------------

    def to_json(self) -> str:
        """Serialise as schedule JSON (doc/formats.md)."""
        return take_string(lib.tessel_schedule_to_json, self._h())

    def to_text(self) -> str:
        """Render as a text grid with the key figures."""
        return take_string(lib.tessel_schedule_to_text, self._h())

    def to_svg(self) -> str:
        """Render as an SVG picture."""
        return take_string(lib.tessel_schedule_to_svg, self._h())

    def to_trace(self, step_us: Number = 0.0) -> str:
        """Chrome trace event JSON, ``step_us`` microseconds per step.

        0 (the default): the placement's step in its unit of time when it
        has both, else 1000 microseconds per step.
        """
        return take_string(lib.tessel_schedule_to_trace_json, self._h(),
                           double_arg(step_us, "step_us"))

    def to_torch_csv(self, comms: bool = False) -> str:
        """The CSV of torch.distributed.pipelining (with comms if asked)."""
        return take_string(lib.tessel_schedule_to_torch_csv, self._h(),
                           bool_arg(comms, "comms"))

    def actions_json(self) -> str:
        """Every device's action stream as JSON."""
        return take_string(lib.tessel_schedule_to_actions_json, self._h())

    def write(self, dest: Any, format: str = "text",
              step_us: Number = 0.0) -> None:
        """Export in ``format`` (one of FORMATS) to ``dest``, streamed.

        The text is the one the matching ``to_*`` method returns ("torch":
        to_torch_csv(), "torch-comms": with comms, "trace": to_trace(step_us),
        "actions": actions_json()), handed over in pieces as it is made, so
        that a large schedule is never held whole. ``dest``: a path (str,
        bytes or os.PathLike; written through a temporary file renamed into
        place, so that a failure leaves no partial file: a symbolic link's
        file is replaced, the link kept, and an existing file keeps its
        permissions; a device, a pipe or a link to nothing yet is written
        as it is) or a file object
        (a text stream gets str, anything else with ``write`` bytes; a raw
        stream that takes part of the bytes gets the rest, one that would
        block raises BlockingIOError).
        ``step_us`` is for "trace" only. An exception raised by the file
        object ends the export and is raised again. The file object may
        read this schedule; changing it (:meth:`set_step`,
        :meth:`set_choice`) or closing it from there raises ValueError, so
        the text written is that of the schedule as it was when the write
        began.
        """
        if not isinstance(format, str):
            raise TypeError("format must be a str, not %s"
                            % type(format).__name__)
        if format not in FORMATS:
            raise ValueError("format must be one of %s, not %r"
                             % (", ".join(FORMATS), format))
        code = FORMATS.index(format)
        us = double_arg(step_us, "step_us")
        if format != "trace" and us != 0:
            raise ValueError("step_us is for the trace format only")
        if hasattr(dest, "write"):
            self._write_to(dest, code, us)
            return
        name = os.fsdecode(path_arg(dest, "dest"))
        if not name:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name)
        try:
            st: Optional[os.stat_result] = os.stat(name)
        except (OSError, ValueError):
            st = None
        link = os.path.islink(name)
        if (st is not None and not stat.S_ISREG(st.st_mode)) or (link and st is None):
            # a rename would replace it with a regular file
            with open(name, "wb") as f:
                self._write_to(f, code, us)
                f.flush()
            return
        if st is not None and not os.access(name, os.W_OK):
            # a file the caller may not write is not replaced through its
            # folder (a rename needs only the folder's permission)
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), name)
        target = os.path.realpath(name) if link else name
        # a new file of its own (never one, or a link, left at a fixed
        # name), with the mode the target has or a new file would get
        try:
            fd, tmp = tempfile.mkstemp(
                prefix=os.path.basename(target) + ".",
                dir=os.path.dirname(target) or ".")
        except OSError as exc:
            # (named after the path asked for, not the temporary file)
            raise type(exc)(exc.errno, exc.strerror, name) from None
        try:
            with os.fdopen(fd, "wb") as f:
                os.chmod(f.fileno(), stat.S_IMODE(st.st_mode) if st is not None
                         else 0o666 & ~_umask())
                self._write_to(f, code, us)
                f.flush()
                os.fsync(f.fileno())
            try:
                os.replace(tmp, target)
            except OSError as exc:
                raise type(exc)(exc.errno, exc.strerror, name) from None
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def _write_to(self, f: Any, code: int, step_us: float) -> None:
        text = isinstance(f, io.TextIOBase)
        failure: List[BaseException] = []
        sigint = threading.Event()  # (sigint_deferred's, below)
        # this write's Ctrl-C, and whether its file object is writing: a
        # Ctrl-C then raises there (a write blocked on a full pipe ends),
        # inside put's try. The writes under way on this thread (one
        # inside another's file object) form a stack: the handler of the
        # outermost tells the innermost, the one whose callback runs.
        me = _WriteState()
        stack = _write_stack()
        in_write = me.in_write

        def on_sigint() -> None:
            top = stack[-1] if stack else me
            top.sigint[0] = True
            if top.in_write[0]:
                raise KeyboardInterrupt

        def write_all(data: bytes) -> None:
            if text:
                f.write(data.decode("utf-8"))
                return
            # a raw stream (a pipe, a socket, an unbuffered file) may
            # take only part of the data, or none when it would block;
            # another writer that returns no count took it all
            raw = isinstance(f, io.RawIOBase)
            view = data
            while len(view):
                n = f.write(view)
                if n is None and raw:
                    raise BlockingIOError(
                        errno.EAGAIN, "the stream would block: "
                        "%d bytes of the export not written" % len(view))
                if isinstance(n, bool) or not isinstance(n, int) or n >= len(view):
                    break
                if n <= 0:
                    raise OSError(errno.EIO, "the stream took %r of %d bytes"
                                  % (n, len(view)))
                view = view[n:]

        def put(payload: Any, data: bytes, length: int) -> int:
            try:
                if me.sigint[0]:
                    raise KeyboardInterrupt
                if len(data) != length:
                    raise ValueError("a piece of the export was cut short")
                # the file object runs without the family's lock: a
                # thread that drains it may read this schedule meanwhile
                # (a change or a close waits for the write to end)
                with unlocked(self):
                    in_write[0] = True
                    try:
                        write_all(data)
                    finally:
                        in_write[0] = False
                return 0
            except BaseException as exc:  # raised again below
                failure.append(exc)
                return 1

        callback = WRITE_FN(put)
        # Ctrl-C ends the export at the next piece, or in the file object
        # (its write or its flush), and is raised once the call has
        # returned (Python's handler would raise it in the callback before
        # its try, and ctypes would lose it); the busy mark is left under
        # the same handler, so that no Ctrl-C leaves it behind
        stack.append(me)
        with sigint_deferred(on_sigint) as sigint:
            self._busy_enter()
            try:
                rc = lib.tessel_schedule_write(self._h(), code, step_us,
                                               callback, None)
                in_write[0] = False
                flush = getattr(f, "flush", None)
                if not rc and not failure and callable(flush):
                    try:
                        with unlocked(self):
                            in_write[0] = True
                            try:
                                flush()
                            finally:
                                in_write[0] = False
                    except BaseException as exc:
                        failure.append(exc)
            finally:
                in_write[0] = False
                self._busy_leave()
                stack.pop()
        if failure:
            raise failure[0]
        if sigint.is_set() or me.sigint[0]:
            raise KeyboardInterrupt
        check(rc)

    # -- iteration --------------------------------------------------------

    def entries(self, device: Optional[int] = None) -> EntryIterator:
        """Iterate over entries (Entry objects).

        With ``device`` the entries on that device in time order; with None
        every entry once, by start step (ties by device then block id).
        The iterator keeps the schedule alive; closing the schedule closes
        it (it then raises ValueError); :meth:`set_step` or
        :meth:`set_choice` after it was made makes its next step raise
        RuntimeError (as a dict changed during iteration).
        """
        which = ALL_DEVICES if device is None else int_arg(device, "device")
        it = iter_p()
        check(lib.tessel_iter_new(ctypes.byref(it), self._h(), which))
        return EntryIterator(self, it)

    def __iter__(self) -> Iterator[Entry]:
        return self.entries()

    def actions(self, device: int) -> ActionIterator:
        """Iterate over the action stream (Action objects) of ``device``
        (the iterator behaves like that of :meth:`entries`)."""
        it = action_iter_p()
        check(lib.tessel_action_iter_new(ctypes.byref(it), self._h(),
                                         int_arg(device, "device")))
        return ActionIterator(self, it)

    # -- simulation -------------------------------------------------------

    def simulate(self, durations: Optional[Mapping[Block, Number]] = None,
                 latency: Number = 0.0, jitter: Number = 0.0,
                 seed: int = 0) -> Dict[str, Any]:
        """Replay the schedule with real durations.

        ``durations`` maps block names (or gids) to durations (a block
        named twice, by name and by id, raises ValueError); blocks not
        named keep the placement's (its duration, else its span times the
        step, else its span). Times are in the placement's unit when it has
        a step, else in steps; the placement's latencies count too. Returns
        a dict with "makespan" and, per device, lists "busy", "idle" and
        "peak_memory" (also as "devices": a list of dicts).
        """
        array = None
        count = 0
        if durations is not None:
            if not isinstance(durations, Mapping):
                raise TypeError("durations must be a mapping of blocks to "
                                "numbers, not %s" % type(durations).__name__)
            graph = self.graph
            count = graph.blocks
            values = [graph.duration(g) for g in range(count)]
            given: Dict[int, Any] = {}
            for key, value in durations.items():
                gid = graph._gid(key)
                if not 0 <= gid < count:
                    # as the library says it for any other block id
                    raise NotFoundError("block id %d out of range (graph "
                                        "has %d blocks)" % (gid, count))
                if gid in given:
                    # two keys of one block (its name and its id, a str
                    # and bytes): which would win is no choice to make
                    # silently (the JSON reader refuses a key twice)
                    raise ValueError("durations name block %d twice (%r and "
                                     "%r)" % (gid, given[gid], key))
                given[gid] = key
                values[gid] = double_arg(value, "duration of block %d" % gid)
            array = (ctypes.c_double * max(count, 1))(*values)
        lat = double_arg(latency, "latency")
        jit = double_arg(jitter, "jitter")
        rng = uint64_arg(seed, "seed")
        sim = simulation_p()
        check(lib.tessel_simulate(ctypes.byref(sim), self._h(), array, count,
                                  lat, jit, rng))
        try:
            def get(attr: int, device: int = 0) -> float:
                out = ctypes.c_double()
                check(lib.tessel_simulation_get(ctypes.byref(out), sim, attr,
                                                device))
                return out.value

            ndev = self.devices
            result: Dict[str, Any] = {
                "makespan": get(_SIM_MAKESPAN),
                "busy": [get(_SIM_BUSY, d) for d in range(ndev)],
                "idle": [get(_SIM_IDLE, d) for d in range(ndev)],
                "peak_memory": [get(_SIM_PEAK, d) for d in range(ndev)],
            }
        finally:
            lib.tessel_simulation_free(sim)
        result["devices"] = [
            {"busy": result["busy"][d], "idle": result["idle"][d],
             "peak_memory": result["peak_memory"][d]} for d in range(ndev)]
        return result

    def __repr__(self) -> str:
        if self._handle is None:
            return "<tessel.Schedule closed>"
        return "<tessel.Schedule devices=%d period=%d makespan=%d>" % (
            self.devices, self.period, self.makespan)


def _graph_arg(graph: Any, what: str) -> Any:
    """The C handle of ``graph``, which must be a tessel.Graph."""
    if not isinstance(graph, Graph):
        raise TypeError("%s must be a tessel.Graph, not %s"
                        % (what, type(graph).__name__))
    return graph._h()


def _snapshot(graph: Any, what: str) -> Graph:
    """A copy of ``graph`` (a tessel.Graph) for a search to work on: the
    caller's graph may be changed or closed from another thread while the
    search runs."""
    _graph_arg(graph, what)
    return graph.copy()


def _progress_arg(progress: Any, interval: Any) -> float:
    if progress is not None and not callable(progress):
        raise TypeError("progress must be callable or None, not %s"
                        % type(progress).__name__)
    seconds = double_arg(interval, "progress_interval")
    if not 0.0 < seconds <= 3600.0:
        raise ValueError("progress_interval must be > 0 and <= 3600 "
                         "seconds, not %r" % interval)
    return seconds


def _cancel_arg(cancel: Any) -> Optional[CancelToken]:
    if cancel is not None and not isinstance(cancel, CancelToken):
        raise TypeError("cancel must be a tessel.CancelToken or None, not %s"
                        % type(cancel).__name__)
    return cancel


def search(graph: Graph, micro_batches: int = 16,
           time_limit: Optional[Number] = None, threads: int = 0,
           fast: bool = False, seed: int = 0,
           progress: Optional[Callable[[Progress], Any]] = None,
           max_period: int = 0, minimize_depth: bool = True,
           solver_memory_mb: int = 0,
           repetend_micro_batches: Optional[int] = None,
           cancel: Optional[CancelToken] = None,
           progress_interval: Number = 0.5,
           work_limit: Optional[int] = None,
           alternatives: Union[bool, str, int] = True) -> Schedule:
    """Search a schedule for ``graph`` and return a :class:`Schedule`.

    ``alternatives`` (TESSEL_OPT_ALTERNATIVES, since 1.6): True or
    "search" (the default) lets the search choose, per micro-batch, among
    the recompute and offload alternatives the placement declares
    (:attr:`Entry.choice`); False or "off" keeps every activation;
    "always" takes every declared alternative (recompute where declared,
    else offload: a fixed rule, a baseline). The option's numbers (0, 1,
    2) work too.

    ``work_limit`` is the work budget in work units (TESSEL_OPT_WORK_LIMIT:
    the same schedule on any machine and under any load); None keeps the
    library's default, 0 means none. :attr:`Schedule.work` is what the
    search spent.

    ``time_limit`` is in seconds, rounded up to whole milliseconds; None or
    0 mean no limit (as ``tessel search --time-limit 0`` and
    TESSEL_OPT_TIME_LIMIT_MS 0). When it passes the search returns the best
    schedule so far, or raises TesselTimeout (a TimeoutError) with none.
    ``repetend_micro_batches`` None keeps the library's default.

    ``progress``, when given, is called with a :class:`Progress` each time
    a better schedule is found (``improved`` True) and, between those, at
    least every ``progress_interval`` seconds (a tick, ``improved``
    False). It runs on the calling thread. A true result stops the search,
    which then returns the best schedule so far; an exception in it stops
    the search and is raised again here. The search waits for it on each
    improvement, so the time it takes adds to the search's (a slow
    callback can keep a search past its ``time_limit``).

    The search runs in C on a worker thread while the calling thread
    waits, so Ctrl-C (KeyboardInterrupt) is raised within a fraction of a
    second: the search is cancelled, waited for and its objects released
    first. The KeyboardInterrupt carries the best schedule found so far
    as its ``schedule`` attribute (None when there was none yet), as a
    KeyboardInterrupt raised by ``progress`` does. ``cancel`` (a
    :class:`CancelToken`) cancels it from elsewhere.
    """
    _graph_arg(graph, "graph")
    interval = _progress_arg(progress, progress_interval)
    token = _cancel_arg(cancel)
    with _snapshot(graph, "graph") as snapshot, _Options(micro_batches=micro_batches, time_limit=time_limit,
                  threads=threads, fast=fast, seed=seed,
                  max_period=max_period, minimize_depth=minimize_depth,
                  solver_memory_mb=solver_memory_mb,
                  repetend_micro_batches=repetend_micro_batches,
                  work_limit=work_limit,
                  alternatives=alternatives) as options:
        handle = snapshot._h()
        out = schedule_p()
        holder: Dict[str, Any] = {}

        def call(options_handle: Any) -> int:
            rc = int(lib.tessel_search(ctypes.byref(out), handle,
                                       options_handle))
            if rc >= 0:
                holder["schedule"] = out
            return rc

        try:
            rc, error = _run(call, options, progress, interval, token)
        except KeyboardInterrupt as exc:
            # the best schedule so far goes with the interruption
            exc.schedule = (Schedule(holder.pop("schedule"))  # type: ignore[attr-defined]
                            if "schedule" in holder else None)
            raise
        except BaseException:
            if "schedule" in holder:
                lib.tessel_schedule_free(holder.pop("schedule"))
            raise
        if error is not None:
            raise error
        check(rc)
        return Schedule(out)


#: The keyword arguments of search() that search_sweep() takes too.
_SEARCH_KEYWORDS = frozenset((
    "time_limit", "threads", "fast", "seed", "progress", "max_period",
    "minimize_depth", "solver_memory_mb", "repetend_micro_batches", "cancel",
    "progress_interval", "work_limit", "alternatives"))


def search_sweep(graph: Graph, limits: Sequence[Optional[int]],
                 micro_batches: int = 16, **kwargs: Any) -> List[Optional[Schedule]]:
    """Search ``graph`` under each memory limit of ``limits`` (every
    device's limit set to it; None: unlimited) and return, in the same
    order, a :class:`Schedule` or None (no schedule under that limit) each
    (tessel_search_sweep, since 1.7): the makespans never grow with the
    limit, as a single :func:`search` per limit does not promise once its
    budget cuts it short. The keyword arguments are those of
    :func:`search` and apply to each limit's search (its work budget),
    except ``time_limit``, which caps the whole sweep (each search gets an
    equal share of the time left); ``cancel``, or a true result of
    ``progress``, ends the whole sweep: the search under way keeps its
    best schedule so far, the looser limits are not searched and the
    sweep returns what the tighter limits found; Ctrl-C ends it
    too, then raises KeyboardInterrupt, whose ``schedules`` attribute is
    the list the sweep would have returned (None when it had found
    nothing to return). Raises as :func:`search` when no limit
    has a schedule; 1 to 1024 limits, each None or 0 .. 2**50
    (RangeError)."""
    _graph_arg(graph, "graph")
    if isinstance(limits, (str, bytes)) or not isinstance(limits, Sequence):
        raise TypeError("limits must be a sequence of int or None, not %s"
                        % type(limits).__name__)
    values = []
    for i, limit in enumerate(limits):
        value = UNLIMITED if limit is None else int64_arg(limit, "limits[%d]" % i)
        if limit is not None and not 0 <= value <= 1 << 50:
            raise RangeError(RangeError.CODE,
                             "limits[%d] must be None (unlimited) or 0 .. 2**50, "
                             "not %d" % (i, value))
        values.append(value)
    if not 1 <= len(values) <= 1024:
        raise RangeError(RangeError.CODE,
                         "limits must hold 1 .. 1024 values, not %d" % len(values))
    unknown = set(kwargs) - _SEARCH_KEYWORDS
    if unknown:
        raise TypeError("search_sweep() got an unexpected keyword argument %r"
                        % sorted(unknown)[0])
    progress = kwargs.pop("progress", None)
    interval = _progress_arg(progress, kwargs.pop("progress_interval", 0.5))
    token = _cancel_arg(kwargs.pop("cancel", None))
    kwargs.setdefault("alternatives", True)
    array = (ctypes.c_int64 * len(values))(*values)
    outs = (schedule_p * len(values))()
    with _snapshot(graph, "graph") as snapshot, \
            _Options(micro_batches=micro_batches, **kwargs) as options:
        handle = snapshot._h()
        holder: Dict[str, Any] = {}

        def call(options_handle: Any) -> int:
            rc = int(lib.tessel_search_sweep(outs, handle, array, len(values),
                                             options_handle))
            if rc >= 0:
                holder["done"] = True
            return rc

        def release() -> None:
            for i in range(len(values)):
                if outs[i]:
                    lib.tessel_schedule_free(outs[i])
                    outs[i] = None

        try:
            rc, error = _run(call, options, progress, interval, token)
        except KeyboardInterrupt as exc:
            # what the limits searched found goes with the interruption
            exc.schedules = ([Schedule(ctypes.cast(outs[i], schedule_p))  # type: ignore[attr-defined]
                              if outs[i] else None for i in range(len(values))]
                             if "done" in holder else None)
            raise
        except BaseException:
            if "done" in holder:
                release()
            raise
        if error is not None:
            raise error
        check(rc)
        return [Schedule(ctypes.cast(outs[i], schedule_p)) if outs[i] else None
                for i in range(len(values))]


def min_memory(graph: Graph, period: int = 0,
               time_limit: Optional[Number] = None,
               cancel: Optional[CancelToken] = None,
               work_limit: Optional[int] = None) -> Tuple[int, bool]:
    """Smallest memory limit, equal on every device, for a repetend.

    ``period`` 0 means the resource bound; ``time_limit`` and
    ``work_limit`` as for :func:`search`. Returns ``(limit, proven)``.
    Ctrl-C and ``cancel`` stop it as they stop :func:`search`.
    """
    _graph_arg(graph, "graph")
    wanted = int64_arg(period, "period")
    token = _cancel_arg(cancel)
    with _snapshot(graph, "graph") as snapshot, \
            _Options(time_limit=time_limit, work_limit=work_limit) as options:
        handle = snapshot._h()
        out = ctypes.c_int64()
        proven = ctypes.c_int()

        def call(options_handle: Any) -> int:
            return int(lib.tessel_min_memory(ctypes.byref(out),
                                             ctypes.byref(proven), handle,
                                             wanted, options_handle))

        rc, error = _run(call, options, None, 1.0, token)
        if error is not None:
            raise error
        check(rc)
        return out.value, bool(proven.value)
