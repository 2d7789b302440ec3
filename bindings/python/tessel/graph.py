"""Graphs (placements): one micro-batch's blocks, devices and dependencies."""

import ctypes
from typing import (Any, Dict, Iterable, List, NamedTuple, Optional, Tuple,
                    Union)

from ._lib import graph_p, lib
from ._util import (Handle, Number, bool_arg, data_arg, double_arg,
                    enum_value, int64_arg, int_arg, path_arg, sigint_deferred,
                    size_arg, take_string, text_arg)
from .errors import ExistsError, NotFoundError, RangeError, check, check_file

__all__ = ["Graph", "KINDS", "presets", "pick_step", "UNLIMITED",
           "ALL_DEVICES", "PRESET_MEMORY", "PRESET_DEFAULT", "Block",
           "Recompute", "Offload"]

#: Block kinds, in the order of tessel_kind.
KINDS = ("forward", "backward", "weight")
#: Memory limit meaning "no limit".
UNLIMITED = -1
#: Device argument meaning "every device".
ALL_DEVICES = -1
#: ``memory`` of :meth:`Graph.preset` meaning the preset's own default, 3
#: per 2 devices rounded up (6 on 4 devices, 96 on 64): the same as
#: ``tessel search --preset NAME`` without ``--memory`` (TESSEL_PRESET_MEMORY).
PRESET_DEFAULT = -2
#: The preset default on 4 devices (the default on every device count
#: before 1.4; see :data:`PRESET_DEFAULT`).
PRESET_MEMORY = 6

#: A block: its id (gid) or its name.
Block = Union[int, str]

_NDEVICES, _NBLOCKS, _RESOURCE_BOUND, _CRITICAL_PATH, _LATENCY = range(5)
(_B_KIND, _B_SPAN, _B_MEMORY, _B_NDEVICES, _B_NDEPS,
 _B_STAGE) = range(6)


class Recompute(NamedTuple):
    """The recompute alternative a block declares (:meth:`Graph.recompute`):
    a micro-batch that uses it drops ``saves`` of the block's activation
    after the forward, and its ``backward`` (a gid) runs ``extra`` steps
    longer and takes ``saves`` back when it starts."""

    backward: int
    saves: int
    extra: int


class Offload(NamedTuple):
    """The offload alternative a block declares (:meth:`Graph.offload`):
    ``saves`` of the activation goes to host memory after the block and
    comes back before its ``backward`` (a gid), each copy taking
    ``transfer`` steps on the device's copy channel."""

    backward: int
    saves: int
    transfer: int


def _decode(text: Optional[bytes]) -> str:
    """Text from C (never NULL where this is used) as str."""
    return (text or b"").decode("utf-8")


def presets() -> List[Tuple[str, str]]:
    """Return the built-in presets as a list of (name, description)."""
    result = []
    for index in range(lib.tessel_preset_count()):
        name = ctypes.c_char_p()
        description = ctypes.c_char_p()
        check(lib.tessel_preset_info(ctypes.byref(name),
                                     ctypes.byref(description), index))
        result.append((_decode(name.value), _decode(description.value)))
    return result


def pick_step(values: Iterable[Number]) -> float:
    """Return a step for profiled durations and latencies (one unit).

    The largest step s / k (s the smallest value > 0, k = 1 .. 100) that
    rounds no value up by more than 1 % (tessel_pick_step).
    """
    if isinstance(values, (str, bytes)):
        raise TypeError("values must be an iterable of numbers, not %s"
                        % type(values).__name__)
    numbers = [double_arg(v, "value") for v in values]
    array = (ctypes.c_double * max(len(numbers), 1))(*numbers)
    out = ctypes.c_double()
    check(lib.tessel_pick_step(ctypes.byref(out), array, len(numbers)))
    return out.value


class Graph(Handle):
    """A placement: blocks with span, memory, kind, devices, dependencies.

    ``Graph(devices)`` creates an empty graph; use :meth:`from_json`,
    :meth:`from_file` or :meth:`preset` for the other ways to get one. The
    C handle is released by :meth:`close`, on leaving a ``with`` block, or
    when the object is garbage-collected; a closed graph raises ValueError.
    The graph of a schedule (:attr:`Schedule.graph`) belongs to it: it
    keeps the schedule alive, raises ValueError once the schedule is
    closed, and is read-only (a change raises ValueError; change a
    ``copy()``).

    Every argument is checked before it reaches C: TypeError for a wrong
    type (a float where an integer is needed, None for a name),
    OverflowError for an integer the C type cannot hold, and the library's
    own errors (RangeError, ...) for values outside its limits; nothing is
    silently truncated or converted.
    """

    _ctype = graph_p
    _thread_safe = True

    def __init__(self, devices: int) -> None:
        handle = graph_p()
        check(lib.tessel_graph_new(ctypes.byref(handle),
                                   int_arg(devices, "devices")))
        self._handle = handle

    @classmethod
    def _wrap(cls, handle: Any, owner: Optional[Handle] = None) -> "Graph":
        graph = cls.__new__(cls)
        graph._handle = handle
        graph._owner = owner
        return graph

    # -- life cycle -------------------------------------------------------

    def _release(self, handle: Any) -> None:
        # a borrowed graph (of a Schedule) is its owner's to free
        if self._owner is None:
            lib.tessel_graph_free(handle)

    def _hw(self) -> Any:
        """The C handle for a change: ValueError for the graph of a
        schedule, which is read-only (the schedule was made for it)."""
        if self._owner is not None:
            raise ValueError("the graph of a tessel.Schedule is read-only "
                             "(change a copy: graph.copy())")
        return self._h()

    def copy(self) -> "Graph":
        """Return a deep copy (an independent Graph)."""
        handle = graph_p()
        check(lib.tessel_graph_dup(ctypes.byref(handle), self._h()))
        return Graph._wrap(handle)

    def __copy__(self) -> "Graph":
        """``copy.copy`` and ``copy.deepcopy``: an independent Graph, as
        :meth:`copy` (a graph has no Python parts to share)."""
        return self.copy()

    def __deepcopy__(self, memo: Any) -> "Graph":
        return self.copy()

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickled as its placement JSON, which is loaded by
        :meth:`from_json` and so validated: a graph that does not validate
        yet (no blocks, a block not placed) raises its InvalidError here,
        rather than write a pickle that cannot be loaded."""
        self.validate()
        return (Graph.from_json, (self.to_json(),))

    # -- constructors -----------------------------------------------------

    @classmethod
    def from_json(cls, text: Union[str, bytes]) -> "Graph":
        """Parse placement JSON (str or bytes); the graph is validated."""
        data = data_arg(text, "placement JSON")
        handle = graph_p()
        check(lib.tessel_graph_from_json(ctypes.byref(handle), data,
                                         len(data)))
        return cls._wrap(handle)

    @classmethod
    def from_file(cls, path: Any) -> "Graph":
        """Read placement JSON from the file at ``path``.

        A file that cannot be read raises TesselIOError, which is an
        OSError (FileNotFoundError for a missing file).
        """
        name = path_arg(path)
        handle = graph_p()
        check_file(lib.tessel_graph_from_file(ctypes.byref(handle), name),
                   name)
        return cls._wrap(handle)

    @classmethod
    def preset(cls, name: str, devices: int = 4,
               memory: Optional[int] = PRESET_DEFAULT,
               infer: bool = False) -> "Graph":
        """Build a built-in placement ("vshape", "mshape", ...).

        ``memory`` is every device's memory limit; None means unlimited.
        It defaults to :data:`PRESET_DEFAULT`: 3 per 2 devices, rounded up
        (6 on 4 devices), the same limit as ``tessel search --preset NAME``
        without ``--memory``.
        """
        limit = UNLIMITED if memory is None else int64_arg(memory, "memory")
        handle = graph_p()
        check(lib.tessel_preset(ctypes.byref(handle),
                                text_arg(name, "preset name"),
                                int_arg(devices, "devices"),
                                bool_arg(infer, "infer"), limit))
        return cls._wrap(handle)

    # -- building ---------------------------------------------------------

    def add_block(self, name: str, kind: Union[str, int], span: int,
                  memory: int, devices: Optional[Iterable[int]] = None,
                  after: Optional[Iterable[Block]] = None) -> int:
        """Add a block and return its id (gid).

        ``kind`` is "forward", "backward" or "weight" (or its number).
        ``devices``, when given, places it (as :meth:`place`); ``after``
        names the blocks it waits for (gids or names, as :meth:`add_dep`).
        Every argument is checked before the block is added.
        """
        if isinstance(devices, (str, bytes)):
            raise TypeError("devices must be an iterable of integers, not %s"
                            % type(devices).__name__)
        if isinstance(after, (str, bytes)):
            raise TypeError("after must be an iterable of blocks (gids or "
                            "names), not %s" % type(after).__name__)
        ids = None if devices is None else [int_arg(d, "device")
                                            for d in devices]
        waits = [] if after is None else [self._gid(b) for b in after]
        # (checked here, before the block exists: a failure adds nothing)
        count = self.blocks
        for before in waits:
            if not 0 <= before < count:
                raise NotFoundError(NotFoundError.CODE,
                                    "after: no block with id %d (the graph "
                                    "has %d)" % (before, count))
        if len(set(waits)) != len(waits):
            raise ExistsError(ExistsError.CODE, "after: a block given twice")
        if ids is not None:
            # the placement tried on a scratch graph of as many devices
            scratch = graph_p()
            check(lib.tessel_graph_new(ctypes.byref(scratch), self.devices))
            try:
                one = ctypes.c_int()
                check(lib.tessel_graph_add_block(
                    ctypes.byref(one), scratch, text_arg(name, "block name"),
                    enum_value(kind, KINDS, "kind"), int_arg(span, "span"),
                    int_arg(memory, "memory")))
                array = (ctypes.c_int * len(ids))(*ids)
                check(lib.tessel_graph_place(scratch, one.value, array,
                                             len(ids)))
            finally:
                lib.tessel_graph_free(scratch)
        gid = ctypes.c_int()
        # the block, its placement and its dependencies (checked above)
        # are made together: Ctrl-C waits for the end, then is raised
        with sigint_deferred() as sigint:
            check(lib.tessel_graph_add_block(
                ctypes.byref(gid), self._hw(), text_arg(name, "block name"),
                enum_value(kind, KINDS, "kind"), int_arg(span, "span"),
                int_arg(memory, "memory")))
            if ids is not None:
                self.place(gid.value, ids)
            for before in waits:
                self.add_dep(before, gid.value)
        if sigint.is_set():
            raise KeyboardInterrupt
        return gid.value

    def place(self, gid: Block, devices: Iterable[int]) -> None:
        """Place block ``gid`` on the given devices (an iterable of ids)."""
        if isinstance(devices, (str, bytes)):
            raise TypeError("devices must be an iterable of integers, not %s"
                            % type(devices).__name__)
        ids = [int_arg(d, "device") for d in devices]
        array = (ctypes.c_int * max(len(ids), 1))(*ids)
        check(lib.tessel_graph_place(self._hw(), self._gid(gid), array,
                                     len(ids)))

    def add_dep(self, before: Block, after: Block,
                latency: Optional[int] = None,
                latency_time: Optional[Number] = None) -> None:
        """Make block ``after`` wait for block ``before`` (gids or names).

        ``latency`` gives the dependency its own latency in steps,
        ``latency_time`` in the step's unit (the graph needs a step).
        A dependency that closes a cycle raises CycleError and is not
        added (a cycle longer than 4096 blocks is found by
        :meth:`validate`).
        """
        if latency is not None and latency_time is not None:
            raise ValueError("give latency or latency_time, not both")
        first, second = self._gid(before), self._gid(after)
        if latency is not None:
            check(lib.tessel_graph_add_dep_latency(
                self._hw(), first, second, int_arg(latency, "latency")))
        elif latency_time is not None:
            check(lib.tessel_graph_add_dep_latency_time(
                self._hw(), first, second,
                double_arg(latency_time, "latency_time")))
        else:
            check(lib.tessel_graph_add_dep(self._hw(), first, second))

    def set_latency(self, latency: int) -> None:
        """Set the latency (steps) of dependencies without their own."""
        check(lib.tessel_graph_set_latency(self._hw(),
                                           int_arg(latency, "latency")))

    def set_latency_time(self, latency: Number) -> None:
        """Set that latency in the step's unit (the graph needs a step)."""
        check(lib.tessel_graph_set_latency_time(
            self._hw(), double_arg(latency, "latency")))

    @property
    def latency(self) -> int:
        """Latency in steps of dependencies without their own."""
        return self._get(_LATENCY)

    @property
    def latency_time(self) -> float:
        """The same latency in the step's unit."""
        out = ctypes.c_double()
        check(lib.tessel_graph_latency_time(ctypes.byref(out), self._h()))
        return out.value

    def dep_latency(self, gid: Block, index: int) -> Tuple[int, float, bool]:
        """(steps, time, own) of the index-th dependency of a block."""
        block = self._gid(gid)
        position = size_arg(index, "index")
        steps = ctypes.c_int64()
        own = ctypes.c_int()
        check(lib.tessel_graph_block_dep_latency(
            ctypes.byref(steps), ctypes.byref(own), self._h(), block,
            position))
        time = ctypes.c_double()
        check(lib.tessel_graph_block_dep_latency_time(
            ctypes.byref(time), None, self._h(), block, position))
        return steps.value, time.value, bool(own.value)

    def set_step(self, step: Number) -> None:
        """Set the length of one step; durations are rounded again."""
        check(lib.tessel_graph_set_step(self._hw(), double_arg(step, "step")))

    @property
    def step(self) -> float:
        """Length of one step in the unit (0.0: none)."""
        out = ctypes.c_double()
        check(lib.tessel_graph_step(ctypes.byref(out), self._h()))
        return out.value

    def set_unit(self, unit: Optional[str]) -> None:
        """Name the unit of the step ("ms", ...); None removes it."""
        check(lib.tessel_graph_set_unit(self._hw(),
                                        text_arg(unit, "unit", none=True)))

    @property
    def unit(self) -> Optional[str]:
        """Name of the unit, or None."""
        out = ctypes.c_char_p()
        check(lib.tessel_graph_unit(ctypes.byref(out), self._h()))
        return None if out.value is None else out.value.decode("utf-8")

    def set_duration(self, gid: Block, duration: Number) -> None:
        """Give a block a duration in the step's unit (sets its span)."""
        check(lib.tessel_graph_set_block_duration(
            self._hw(), self._gid(gid), double_arg(duration, "duration")))

    def duration(self, gid: Block) -> float:
        """Duration of a block in the step's unit (span x step if none)."""
        out = ctypes.c_double()
        check(lib.tessel_graph_block_duration(ctypes.byref(out), None,
                                              self._h(), self._gid(gid)))
        return out.value

    def set_stage(self, gid: Block, stage: int) -> None:
        """Set the pipeline stage of a block (-1: no stage)."""
        check(lib.tessel_graph_set_stage(self._hw(), self._gid(gid),
                                         int_arg(stage, "stage")))

    def set_memory_limit(self, limit: Optional[int],
                         device: Optional[int] = None) -> None:
        """Set the memory limit of ``device`` (None: of every device).

        ``limit`` None means unlimited; else 0 .. 2**50 (RangeError).
        """
        value = UNLIMITED if limit is None else int64_arg(limit, "limit")
        if limit is not None and not 0 <= value <= 1 << 50:
            raise RangeError(RangeError.CODE,
                             "memory limit must be None (unlimited) or "
                             "0 .. 2**50, got %d" % value)
        which = ALL_DEVICES if device is None else int_arg(device, "device")
        check(lib.tessel_graph_set_memory_limit(self._hw(), which, value))

    # -- memory-time alternatives (since 1.6) ----------------------------

    def set_recompute(self, block: Block, backward: Optional[Block],
                      saves: Optional[int] = None,
                      extra: Optional[int] = None) -> None:
        """Declare that ``block`` may drop ``saves`` (1 .. its memory) of
        its activation and have it recomputed: its ``backward`` (a block
        on the same devices that depends on it) then runs ``extra`` steps
        longer (0 .. TESSEL_MAX_SPAN). A search chooses per micro-batch
        whether to use it (``search(..., alternatives=True)``, the
        default). ``backward`` None removes the declaration (``saves``
        and ``extra`` are then not given).

        Blocks are gids or names. RangeError for a figure out of range,
        InvalidError when the backward is the block itself or on other
        devices; that it depends on the block is checked by
        :meth:`validate`.
        """
        self._set_alternative(lib.tessel_graph_set_recompute, block,
                              backward, saves, extra, "extra")

    def set_offload(self, block: Block, backward: Optional[Block],
                    saves: Optional[int] = None,
                    transfer: Optional[int] = None) -> None:
        """Declare that ``block`` may offload ``saves`` (1 .. its memory)
        of its activation to host memory after it finishes and have it
        reloaded before ``backward`` starts, each copy taking ``transfer``
        steps (1 .. TESSEL_MAX_SPAN) on the copy channel of each of the
        block's devices. ``backward`` None removes the declaration.
        Errors as :meth:`set_recompute`.
        """
        self._set_alternative(lib.tessel_graph_set_offload, block,
                              backward, saves, transfer, "transfer")

    def _set_alternative(self, func: Any, block: Block,
                         backward: Optional[Block], saves: Optional[int],
                         cost: Optional[int], cost_name: str) -> None:
        gid = self._gid(block)
        if backward is None:
            if saves is not None or cost is not None:
                raise ValueError("backward None removes the declaration: "
                                 "give no saves or %s" % cost_name)
            check(func(self._hw(), gid, -1, 0, 0))
            return
        back = self._gid(backward)
        if back < 0:
            # -1 would remove the declaration in C: here that is None
            raise NotFoundError(NotFoundError.CODE,
                                "backward block id %d out of range (None "
                                "removes the declaration)" % back)
        check(func(self._hw(), gid, back, int_arg(saves, "saves"),
                   int_arg(cost, cost_name)))

    def recompute(self, block: Block) -> Optional[Recompute]:
        """The recompute alternative of ``block`` (a gid or a name) as a
        :class:`Recompute` (backward gid, saves, extra), or None when the
        block declares none. NotFoundError for an unknown block."""
        values = self._alternative(lib.tessel_graph_block_recompute, block)
        return None if values is None else Recompute(*values)

    def offload(self, block: Block) -> Optional[Offload]:
        """The offload alternative of ``block`` as an :class:`Offload`
        (backward gid, saves, transfer), or None when it declares none."""
        values = self._alternative(lib.tessel_graph_block_offload, block)
        return None if values is None else Offload(*values)

    def _alternative(self, func: Any,
                     block: Block) -> Optional[Tuple[int, int, int]]:
        gid = self._gid(block)
        handle = self._h()
        backward, saves, cost = (ctypes.c_int(), ctypes.c_int(),
                                 ctypes.c_int())
        rc = func(ctypes.byref(backward), ctypes.byref(saves),
                  ctypes.byref(cost), handle, gid)
        if rc == NotFoundError.CODE and 0 <= gid < self.blocks:
            # a block that declares no such alternative (an unknown
            # block id raises below)
            lib.tessel_error_clear()
            return None
        check(rc)
        return backward.value, saves.value, cost.value

    def validate(self) -> None:
        """Check the whole graph; raise a TesselError when it is bad."""
        check(lib.tessel_graph_validate(self._h()))

    def find(self, name: str) -> int:
        """Return the gid of the block called ``name`` (NotFoundError)."""
        gid = ctypes.c_int()
        check(lib.tessel_graph_find(ctypes.byref(gid), self._h(),
                                    text_arg(name, "block name")))
        return gid.value

    def _gid(self, block: Any) -> int:
        if isinstance(block, (str, bytes)):
            return self.find(block)  # type: ignore[arg-type]
        return int_arg(block, "block id")

    # -- reading ----------------------------------------------------------

    def _get(self, attr: int) -> int:
        out = ctypes.c_int64()
        check(lib.tessel_graph_get(ctypes.byref(out), self._h(), attr))
        return out.value

    @property
    def devices(self) -> int:
        """Number of devices."""
        return self._get(_NDEVICES)

    @property
    def blocks(self) -> int:
        """Number of blocks."""
        return self._get(_NBLOCKS)

    def __len__(self) -> int:
        return self.blocks

    @property
    def resource_bound(self) -> int:
        """Max over devices of the summed spans of the device's blocks."""
        return self._get(_RESOURCE_BOUND)

    @property
    def critical_path(self) -> int:
        """Longest dependency chain, in steps."""
        return self._get(_CRITICAL_PATH)

    def lower_bound(self, n: int) -> int:
        """LB(n): a lower bound on the makespan for ``n`` micro-batches."""
        out = ctypes.c_int64()
        check(lib.tessel_graph_lower_bound(ctypes.byref(out), self._h(),
                                           int64_arg(n, "micro-batches")))
        return out.value

    def min_memory(self, micro_batches: int = 16) -> Tuple[int, bool]:
        """Smallest memory limit, equal on every device, for any schedule.

        The memory of ``micro_batches`` micro-batches run one at a time in
        the order of the blocks that needs least (``tessel search --memory
        min``); no solver, fast on any size. Returns ``(limit, proven)``:
        proven is True when no schedule can do with less. The graph's own
        limits are ignored. Compare :func:`tessel.min_memory`: the smallest
        limit under which the period reaches a given value.
        """
        out = ctypes.c_int64()
        proven = ctypes.c_int()
        check(lib.tessel_graph_min_memory(
            ctypes.byref(out), ctypes.byref(proven), self._h(),
            int64_arg(micro_batches, "micro_batches")))
        return out.value, bool(proven.value)

    def memory_limit(self, device: int) -> Optional[int]:
        """Memory limit of ``device`` (None when unlimited)."""
        out = ctypes.c_int64()
        check(lib.tessel_graph_memory_limit(ctypes.byref(out), self._h(),
                                            int_arg(device, "device")))
        return None if out.value == UNLIMITED else out.value

    def block_name(self, gid: int) -> str:
        """Name of block ``gid``."""
        out = ctypes.c_char_p()
        check(lib.tessel_graph_block_name(ctypes.byref(out), self._h(),
                                          int_arg(gid, "block id")))
        return _decode(out.value)

    def block(self, gid: Block) -> Dict[str, Any]:
        """Describe block ``gid`` (or name) as a dict: gid, name, kind,
        span, memory, devices, after (gids), stage, duration, and its
        alternatives recompute and offload (None when not declared)."""
        block = self._gid(gid)
        handle = self._h()

        def get(attr: int) -> int:
            out = ctypes.c_int64()
            check(lib.tessel_graph_block_get(ctypes.byref(out), handle,
                                             block, attr))
            return out.value

        devices = []
        for index in range(get(_B_NDEVICES)):
            out = ctypes.c_int()
            check(lib.tessel_graph_block_device(ctypes.byref(out), handle,
                                                block, index))
            devices.append(out.value)
        deps = []
        for index in range(get(_B_NDEPS)):
            out = ctypes.c_int()
            check(lib.tessel_graph_block_dep(ctypes.byref(out), handle,
                                             block, index))
            deps.append(out.value)
        stage = get(_B_STAGE)
        given = ctypes.c_int()
        duration = ctypes.c_double()
        check(lib.tessel_graph_block_duration(ctypes.byref(duration),
                                              ctypes.byref(given), handle,
                                              block))
        return {
            "gid": block,
            "name": self.block_name(block),
            "kind": KINDS[get(_B_KIND)],
            "span": get(_B_SPAN),
            "memory": get(_B_MEMORY),
            "devices": devices,
            "after": deps,
            "stage": None if stage < 0 else stage,
            "duration": duration.value if given.value else None,
            "recompute": self.recompute(block),
            "offload": self.offload(block),
        }

    def to_json(self) -> str:
        """Serialise as placement JSON (doc/formats.md)."""
        return take_string(lib.tessel_graph_to_json, self._h())

    def __repr__(self) -> str:
        if self.closed:
            return "<tessel.Graph closed>"
        return "<tessel.Graph devices=%d blocks=%d>" % (self.devices,
                                                        self.blocks)

