"""Python bindings (ctypes) for libtessel: schedule search for neural
networks split across devices.

    import tessel
    g = tessel.Graph.preset("mshape", devices=4, memory=6)
    s = tessel.search(g, micro_batches=16)
    print(s.period, s.makespan, s.lower_bound)
    for e in s.entries(device=0):
        print(e.block, e.micro_batch, e.start, e.span, e.phase)

The shared library is found through the TESSEL_LIBRARY environment
variable (a path), then ctypes.util.find_library("tessel"), then
"libtessel.so.1".
"""

from ._lib import lib as _clib
from .errors import (CancelledError, CycleError, ExistsError,
                     InfeasibleError, InternalError, InvalidError,
                     NotFoundError, OutOfMemoryError, ParseError,
                     RangeError, SolverError, TesselError, TesselIOError,
                     TesselTimeout, UnsupportedError, ViolationError)
from .graph import ALL_DEVICES, KINDS, UNLIMITED, Graph, pick_step, presets
from .schedule import (ACTION_KINDS, PHASES, Action, Entry, Schedule,
                       min_memory, search)

__all__ = [
    "Graph", "Schedule", "Entry", "Action", "search", "min_memory",
    "presets", "pick_step", "version", "KINDS", "PHASES", "ACTION_KINDS", "UNLIMITED",
    "ALL_DEVICES",
    "TesselError", "InternalError", "InvalidError", "OutOfMemoryError",
    "NotFoundError", "ExistsError", "CycleError", "ParseError",
    "InfeasibleError", "TesselTimeout", "CancelledError", "SolverError",
    "TesselIOError", "ViolationError", "UnsupportedError", "RangeError",
]

#: Version of the loaded libtessel, "MAJOR.MINOR.PATCH".
__version__ = _clib.tessel_version().decode()


def version():
    """Return the version of the loaded libtessel as a string."""
    return _clib.tessel_version().decode()
