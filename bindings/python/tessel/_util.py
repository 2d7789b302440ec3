"""Small helpers shared by the modules of the package."""

import ctypes

from ._lib import lib
from .errors import check

__all__ = ["Handle", "take_string", "encode", "get_int64"]


class Handle:
    """An owned C handle, released by :meth:`close`, on leaving a ``with``
    block, or when the object is garbage-collected. Subclasses set
    ``_handle`` and define ``_release(handle)``. A closed handle is passed
    to C as NULL, which libtessel answers with TESSEL_EINVAL
    (InvalidError) instead of crashing."""

    _handle = None

    def _release(self, handle):
        raise NotImplementedError

    def close(self):
        """Release the C object now (a no-op the second time)."""
        handle, self._handle = self._handle, None
        if handle is not None:
            self._release(handle)

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def _as_parameter_(self):
        return self._handle


def take_string(func, *args):
    """Call ``func(&out, *args)`` returning new text; copy it and free it.

    The out pointer is a c_void_p, so the pointer itself is kept and
    released with tessel_free after the text was copied.
    """
    out = ctypes.c_void_p()
    check(func(ctypes.byref(out), *args))
    try:
        return ctypes.string_at(out.value).decode("utf-8")
    finally:
        lib.tessel_free(out)


def encode(text):
    """Encode ``text`` (str or bytes) as UTF-8 bytes."""
    if isinstance(text, bytes):
        return text
    return str(text).encode("utf-8")


def get_int64(func, *args):
    """Call ``func(&out, *args)`` with an int64_t out-parameter."""
    out = ctypes.c_int64()
    check(func(ctypes.byref(out), *args))
    return out.value
