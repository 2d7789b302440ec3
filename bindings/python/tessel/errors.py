"""Exceptions raised for libtessel error codes.

Each class also derives from the builtin exception that matches its code,
so that ``except ValueError`` or ``except TimeoutError`` catch it too:
InvalidError, ExistsError, CycleError, ParseError, ViolationError and
RangeError are ValueErrors, NotFoundError a LookupError, OutOfMemoryError
a MemoryError, TesselTimeout a TimeoutError, TesselIOError an OSError (a
missing file a FileNotFoundError, a directory an IsADirectoryError, an
unreadable file a PermissionError), UnsupportedError a
NotImplementedError, InternalError and SolverError RuntimeErrors.
"""

import os
from typing import Any, Dict, Optional, Type

from ._lib import lib

__all__ = [
    "TesselError", "InternalError", "InvalidError", "OutOfMemoryError",
    "NotFoundError", "ExistsError", "CycleError", "ParseError",
    "InfeasibleError", "TesselTimeout", "CancelledError", "SolverError",
    "TesselIOError", "ViolationError", "UnsupportedError", "RangeError",
    "check", "error_class", "TesselFileNotFoundError",
    "TesselIsADirectoryError", "TesselPermissionError",
]

OK = 0
ITEROVER = -31


class TesselError(Exception):
    """A libtessel function failed.

    ``code`` is the negative tessel_error_code and ``message`` the detail
    that tessel_error_last() gave for the failure.
    """

    #: The error code this class stands for (None for the base class).
    CODE: Optional[int] = None

    def __init__(self, code: Any = None, message: str = "") -> None:
        # NotFoundError("text") as well as TesselError(code, "text"): a
        # subclass knows its code
        if isinstance(code, str) and not message:
            code, message = None, code
        if code is None:
            code = self.CODE if self.CODE is not None else -1
        if isinstance(code, bool) or not isinstance(code, int):
            raise TypeError("code must be a tessel error code (int), not %s"
                            % type(code).__name__)
        self.code = code
        self.message = message
        strerror = lib.tessel_strerror(code).decode("utf-8", "replace")
        text = message or strerror
        super().__init__(text)

    def __repr__(self) -> str:
        return "%s(code=%d, message=%r)" % (type(self).__name__, self.code,
                                            self.message)


class InternalError(TesselError, RuntimeError):
    """Unexpected internal failure (TESSEL_ERROR)."""

    CODE = -1


class InvalidError(TesselError, ValueError):
    """Invalid argument or invalid placement (TESSEL_EINVAL)."""

    CODE = -2


class OutOfMemoryError(TesselError, MemoryError):
    """An allocation failed (TESSEL_ENOMEM)."""

    CODE = -3


class NotFoundError(TesselError, LookupError):
    """No such block, device, preset or field (TESSEL_ENOTFOUND)."""

    CODE = -4


class ExistsError(TesselError, ValueError):
    """Duplicate name or dependency (TESSEL_EEXISTS)."""

    CODE = -5


class CycleError(TesselError, ValueError):
    """The dependencies form a cycle (TESSEL_ECYCLE)."""

    CODE = -6


class ParseError(TesselError, ValueError):
    """Malformed JSON or wrong JSON layout (TESSEL_EPARSE)."""

    CODE = -7


class InfeasibleError(TesselError):
    """No schedule satisfies the memory limits (TESSEL_EINFEASIBLE)."""

    CODE = -8


class TesselTimeout(TesselError, TimeoutError):
    """The time limit passed before any schedule (TESSEL_ETIMEOUT)."""

    CODE = -9


class CancelledError(TesselError):
    """The search was cancelled before any schedule (TESSEL_ECANCELLED)."""

    CODE = -10


class SolverError(TesselError, RuntimeError):
    """The SMT solver failed (TESSEL_ESOLVER)."""

    CODE = -11


class TesselIOError(TesselError, OSError):
    """A file could not be read or written (TESSEL_EIO)."""

    CODE = -12


class TesselFileNotFoundError(TesselIOError, FileNotFoundError):
    """The file to read does not exist (TESSEL_EIO)."""


class TesselIsADirectoryError(TesselIOError, IsADirectoryError):
    """The path to read is a directory (TESSEL_EIO)."""


class TesselPermissionError(TesselIOError, PermissionError):
    """The file to read may not be read (TESSEL_EIO)."""


class ViolationError(TesselError, ValueError):
    """A schedule breaks a rule (TESSEL_EVIOLATION)."""

    CODE = -13


class UnsupportedError(TesselError, NotImplementedError):
    """A valid request this version cannot do (TESSEL_EUNSUPPORTED)."""

    CODE = -14


class RangeError(TesselError, ValueError):
    """A number is out of its allowed range (TESSEL_ERANGE)."""

    CODE = -15


_CLASSES: "Dict[Optional[int], Type[TesselError]]" = {
    cls.CODE: cls for cls in (
    InternalError, InvalidError, OutOfMemoryError, NotFoundError,
    ExistsError, CycleError, ParseError, InfeasibleError, TesselTimeout,
    CancelledError, SolverError, TesselIOError, ViolationError,
    UnsupportedError, RangeError)}


def error_class(code: int) -> "Type[TesselError]":
    """Return the exception class for a negative error code."""
    return _CLASSES.get(code, TesselError)


def make_error(code: int) -> TesselError:
    """Build the exception for ``code`` with the thread's last message."""
    message = lib.tessel_error_last().decode("utf-8", "replace")
    cls = error_class(code)
    if cls is TesselError:
        return TesselError(code, message)
    return cls(code, message)


def check(rc: int) -> int:
    """Raise the matching TesselError when ``rc`` < 0; return ``rc``."""
    if rc < 0:
        raise make_error(rc)
    return rc


def check_file(rc: int, path: Any) -> int:
    """Like :func:`check`; an I/O error on reading ``path`` is raised as
    the subclass that says why (missing, a directory, not readable)."""
    if rc == TesselIOError.CODE:
        error = make_error(rc)
        cls: Type[TesselIOError] = TesselIOError
        if not os.path.lexists(path):
            cls = TesselFileNotFoundError
        elif os.path.isdir(path):
            cls = TesselIsADirectoryError
        elif not os.access(path, os.R_OK):
            cls = TesselPermissionError
        raise cls(error.code, error.message)
    return check(rc)
