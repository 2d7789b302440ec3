"""Python bindings (ctypes) for libtessel: schedule search for neural
networks split across devices.

    import tessel
    g = tessel.Graph.preset("mshape", devices=4, memory=6)
    s = tessel.search(g, micro_batches=16)
    print(s.period, s.makespan, s.lower_bound)
    for e in s.entries(device=0):
        print(e.block, e.micro_batch, e.start, e.span, e.phase)

The shared library is found through the TESSEL_LIBRARY environment
variable (a path), then the library installed with the package (the
location ``meson install`` writes into tessel._config), then
ctypes.util.find_library("tessel"), then "libtessel.so.1".

Presets get every device's memory limit 3 per 2 devices (6 on 4) unless
told otherwise (:data:`PRESET_DEFAULT`, as ``tessel search --preset``);
``memory=None`` means unlimited. A ``time_limit`` of None or 0 means no limit, as
everywhere in libtessel. Arguments are checked before they reach C
(TypeError, OverflowError, the library's RangeError: never truncation);
closed objects, and what reads from them, raise ValueError.

Memory-time alternatives (since 1.6): a placement may let a block drop
its activation and recompute it (Graph.set_recompute) or offload it to
host memory (Graph.set_offload); the search chooses per micro-batch
(Entry.choice, a tessel.Choice; ``search(..., alternatives=False)``
keeps every activation, ``alternatives="always"`` takes every one), and
Schedule.set_choice sets a choice by hand.
"""

from ._lib import lib as _clib
from .errors import (CancelledError, CycleError, ExistsError,
                     InfeasibleError, InternalError, InvalidError,
                     NotFoundError, OutOfMemoryError, ParseError,
                     RangeError, SolverError, TesselError,
                     TesselFileNotFoundError, TesselIOError,
                     TesselIsADirectoryError, TesselPermissionError,
                     TesselTimeout, UnsupportedError, ViolationError)
from .graph import (ALL_DEVICES, KINDS, PRESET_DEFAULT, PRESET_MEMORY, UNLIMITED, Graph,
                    Offload, Recompute, pick_step, presets)
from .explore import (Candidate, Model, explore, published, published_families,
                      published_on)
from .schedule import (ACTION_KINDS, ALTERNATIVES, CHOICES, FORMATS, PHASES, Action, CancelToken,
                       Choice, Entry, Progress, Schedule, min_memory, search,
                       search_sweep)

__all__ = [
    "Graph", "Schedule", "Entry", "Action", "Progress", "CancelToken",
    "search", "search_sweep", "min_memory", "explore", "Model", "Candidate", "published",
    "published_on", "published_families", "presets", "pick_step", "version", "KINDS",
    "PHASES", "ACTION_KINDS", "FORMATS", "CHOICES", "ALTERNATIVES", "Choice", "Recompute",
    "Offload", "UNLIMITED", "ALL_DEVICES", "PRESET_MEMORY", "PRESET_DEFAULT",
    "TesselError", "InternalError", "InvalidError", "OutOfMemoryError",
    "NotFoundError", "ExistsError", "CycleError", "ParseError",
    "InfeasibleError", "TesselTimeout", "CancelledError", "SolverError",
    "TesselIOError", "TesselFileNotFoundError", "TesselIsADirectoryError",
    "TesselPermissionError", "ViolationError", "UnsupportedError",
    "RangeError",
]

#: Version of the loaded libtessel, "MAJOR.MINOR.PATCH".
__version__: str = _clib.tessel_version().decode()


def version() -> str:
    """Return the version of the loaded libtessel as a string."""
    return str(_clib.tessel_version().decode())
