"""Graphs (placements): one micro-batch's blocks, devices and dependencies."""

import ctypes

from ._lib import lib
from ._util import Handle, encode, get_int64, take_string
from .errors import check

__all__ = ["Graph", "KINDS", "presets", "pick_step", "UNLIMITED",
           "ALL_DEVICES"]

#: Block kinds, in the order of tessel_kind.
KINDS = ("forward", "backward", "weight")
#: Memory limit meaning "no limit".
UNLIMITED = -1
#: Device argument meaning "every device".
ALL_DEVICES = -1

_NDEVICES, _NBLOCKS, _RESOURCE_BOUND, _CRITICAL_PATH, _LATENCY = range(5)
(_B_KIND, _B_SPAN, _B_MEMORY, _B_NDEVICES, _B_NDEPS,
 _B_STAGE) = range(6)


def _kind_value(kind):
    """Return the tessel_kind value of ``kind`` (name or int)."""
    if isinstance(kind, str):
        try:
            return KINDS.index(kind)
        except ValueError:
            raise ValueError("kind must be one of %s, not %r"
                             % (", ".join(KINDS), kind)) from None
    return int(kind)


def presets():
    """Return the built-in presets as a list of (name, description)."""
    result = []
    for index in range(lib.tessel_preset_count()):
        name = ctypes.c_char_p()
        description = ctypes.c_char_p()
        check(lib.tessel_preset_info(ctypes.byref(name),
                                     ctypes.byref(description), index))
        result.append((name.value.decode(), description.value.decode()))
    return result


def pick_step(values):
    """Return a step for profiled durations and latencies (one unit).

    The largest step s / k (s the smallest value > 0, k = 1 .. 100) that
    rounds no value up by more than 1 % (tessel_pick_step).
    """
    values = [float(v) for v in values]
    array = (ctypes.c_double * max(len(values), 1))(*values)
    out = ctypes.c_double()
    check(lib.tessel_pick_step(ctypes.byref(out), array, len(values)))
    return out.value


class Graph(Handle):
    """A placement: blocks with span, memory, kind, devices, dependencies.

    ``Graph(devices)`` creates an empty graph; use :meth:`from_json`,
    :meth:`from_file` or :meth:`preset` for the other ways to get one. The
    C handle is released by :meth:`close`, on leaving a ``with`` block, or
    when the object is garbage-collected.
    """

    def __init__(self, devices=None, _handle=None, _owner=None):
        self._handle = None
        # _owner: a Schedule whose graph this is (borrowed handle).
        self._owner = _owner
        if _handle is not None:
            self._handle = _handle
            return
        if devices is None:
            raise TypeError("Graph() needs the number of devices")
        handle = ctypes.c_void_p()
        check(lib.tessel_graph_new(ctypes.byref(handle), int(devices)))
        self._handle = handle

    @classmethod
    def _wrap(cls, handle):
        return cls(_handle=handle)

    # -- life cycle -------------------------------------------------------

    def _release(self, handle):
        # a borrowed graph (of a Schedule) is its owner's to free
        if self._owner is None:
            lib.tessel_graph_free(handle)
        self._owner = None

    def copy(self):
        """Return a deep copy (an independent Graph)."""
        handle = ctypes.c_void_p()
        check(lib.tessel_graph_dup(ctypes.byref(handle), self))
        return Graph._wrap(handle)

    # -- constructors -----------------------------------------------------

    @classmethod
    def from_json(cls, text):
        """Parse placement JSON (str or bytes); the graph is validated."""
        data = encode(text)
        handle = ctypes.c_void_p()
        check(lib.tessel_graph_from_json(ctypes.byref(handle), data,
                                         len(data)))
        return cls._wrap(handle)

    @classmethod
    def from_file(cls, path):
        """Read placement JSON from the file at ``path``."""
        handle = ctypes.c_void_p()
        check(lib.tessel_graph_from_file(ctypes.byref(handle),
                                         encode(str(path))))
        return cls._wrap(handle)

    @classmethod
    def preset(cls, name, devices=4, memory=None, infer=False):
        """Build a built-in placement ("vshape", "mshape", ...).

        ``memory`` is every device's memory limit (None: unlimited).
        """
        limit = UNLIMITED if memory is None else int(memory)
        handle = ctypes.c_void_p()
        check(lib.tessel_preset(ctypes.byref(handle), encode(name),
                                int(devices), 1 if infer else 0, limit))
        return cls._wrap(handle)

    # -- building ---------------------------------------------------------

    def add_block(self, name, kind, span, memory):
        """Add a block and return its id (gid).

        ``kind`` is "forward", "backward" or "weight" (or its number).
        """
        gid = ctypes.c_int()
        check(lib.tessel_graph_add_block(ctypes.byref(gid), self,
                                         encode(name), _kind_value(kind),
                                         int(span), int(memory)))
        return gid.value

    def place(self, gid, devices):
        """Place block ``gid`` on the given devices (an iterable of ids)."""
        devices = [int(d) for d in devices]
        array = (ctypes.c_int * max(len(devices), 1))(*devices)
        check(lib.tessel_graph_place(self, int(gid), array, len(devices)))

    def add_dep(self, before, after, latency=None, latency_time=None):
        """Make block ``after`` wait for block ``before`` (gids or names).

        ``latency`` gives the dependency its own latency in steps,
        ``latency_time`` in the step's unit (the graph needs a step).
        """
        before, after = self._gid(before), self._gid(after)
        if latency is not None and latency_time is not None:
            raise ValueError("give latency or latency_time, not both")
        if latency is not None:
            check(lib.tessel_graph_add_dep_latency(self, before, after,
                                                   int(latency)))
        elif latency_time is not None:
            check(lib.tessel_graph_add_dep_latency_time(
                self, before, after, float(latency_time)))
        else:
            check(lib.tessel_graph_add_dep(self, before, after))

    def set_latency(self, latency):
        """Set the latency (steps) of dependencies without their own."""
        check(lib.tessel_graph_set_latency(self, int(latency)))

    def set_latency_time(self, latency):
        """Set that latency in the step's unit (the graph needs a step)."""
        check(lib.tessel_graph_set_latency_time(self, float(latency)))

    @property
    def latency(self):
        """Latency in steps of dependencies without their own."""
        return self._get(_LATENCY)

    @property
    def latency_time(self):
        """The same latency in the step's unit."""
        out = ctypes.c_double()
        check(lib.tessel_graph_latency_time(ctypes.byref(out), self))
        return out.value

    def dep_latency(self, gid, index):
        """(steps, time, own) of the index-th dependency of a block."""
        gid = self._gid(gid)
        steps = ctypes.c_int64()
        own = ctypes.c_int()
        check(lib.tessel_graph_block_dep_latency(ctypes.byref(steps),
                                                 ctypes.byref(own), self,
                                                 gid, int(index)))
        time = ctypes.c_double()
        check(lib.tessel_graph_block_dep_latency_time(ctypes.byref(time),
                                                      None, self, gid,
                                                      int(index)))
        return steps.value, time.value, bool(own.value)

    def set_step(self, step):
        """Set the length of one step; durations are rounded again."""
        check(lib.tessel_graph_set_step(self, float(step)))

    @property
    def step(self):
        """Length of one step in the unit (0.0: none)."""
        out = ctypes.c_double()
        check(lib.tessel_graph_step(ctypes.byref(out), self))
        return out.value

    def set_unit(self, unit):
        """Name the unit of the step ("ms", ...); None removes it."""
        check(lib.tessel_graph_set_unit(self, None if unit is None
                                        else encode(unit)))

    @property
    def unit(self):
        """Name of the unit, or None."""
        out = ctypes.c_char_p()
        check(lib.tessel_graph_unit(ctypes.byref(out), self))
        return None if out.value is None else out.value.decode("utf-8")

    def set_duration(self, gid, duration):
        """Give a block a duration in the step's unit (sets its span)."""
        check(lib.tessel_graph_set_block_duration(self, self._gid(gid),
                                                  float(duration)))

    def duration(self, gid):
        """Duration of a block in the step's unit (span x step if none)."""
        out = ctypes.c_double()
        check(lib.tessel_graph_block_duration(ctypes.byref(out), None, self,
                                              self._gid(gid)))
        return out.value

    def set_stage(self, gid, stage):
        """Set the pipeline stage of a block (-1: no stage)."""
        check(lib.tessel_graph_set_stage(self, self._gid(gid), int(stage)))

    def set_memory_limit(self, limit, device=None):
        """Set the memory limit of ``device`` (None: of every device).

        ``limit`` None means unlimited.
        """
        limit = UNLIMITED if limit is None else int(limit)
        device = ALL_DEVICES if device is None else int(device)
        check(lib.tessel_graph_set_memory_limit(self, device, limit))

    def validate(self):
        """Check the whole graph; raise a TesselError when it is bad."""
        check(lib.tessel_graph_validate(self))

    def find(self, name):
        """Return the gid of the block called ``name`` (NotFoundError)."""
        gid = ctypes.c_int()
        check(lib.tessel_graph_find(ctypes.byref(gid), self, encode(name)))
        return gid.value

    def _gid(self, block):
        if isinstance(block, (str, bytes)):
            return self.find(block)
        return int(block)

    # -- reading ----------------------------------------------------------

    def _get(self, attr):
        return get_int64(lib.tessel_graph_get, self, attr)

    @property
    def devices(self):
        """Number of devices."""
        return self._get(_NDEVICES)

    @property
    def blocks(self):
        """Number of blocks."""
        return self._get(_NBLOCKS)

    def __len__(self):
        return self.blocks

    @property
    def resource_bound(self):
        """Max over devices of the summed spans of the device's blocks."""
        return self._get(_RESOURCE_BOUND)

    @property
    def critical_path(self):
        """Longest dependency chain, in steps."""
        return self._get(_CRITICAL_PATH)

    def lower_bound(self, n):
        """LB(n): a lower bound on the makespan for ``n`` micro-batches."""
        return get_int64(lib.tessel_graph_lower_bound, self, int(n))

    def memory_limit(self, device):
        """Memory limit of ``device`` (None when unlimited)."""
        value = get_int64(lib.tessel_graph_memory_limit, self, int(device))
        return None if value == UNLIMITED else value

    def block_name(self, gid):
        """Name of block ``gid``."""
        out = ctypes.c_char_p()
        check(lib.tessel_graph_block_name(ctypes.byref(out), self, int(gid)))
        return out.value.decode("utf-8")

    def block(self, gid):
        """Describe block ``gid`` (or name) as a dict."""
        gid = self._gid(gid)

        def get(attr):
            return get_int64(lib.tessel_graph_block_get, self, gid, attr)

        devices = []
        for index in range(get(_B_NDEVICES)):
            out = ctypes.c_int()
            check(lib.tessel_graph_block_device(ctypes.byref(out), self, gid,
                                                index))
            devices.append(out.value)
        deps = []
        for index in range(get(_B_NDEPS)):
            out = ctypes.c_int()
            check(lib.tessel_graph_block_dep(ctypes.byref(out), self, gid,
                                             index))
            deps.append(out.value)
        stage = get(_B_STAGE)
        given = ctypes.c_int()
        duration = ctypes.c_double()
        check(lib.tessel_graph_block_duration(ctypes.byref(duration),
                                              ctypes.byref(given), self, gid))
        return {
            "gid": gid,
            "name": self.block_name(gid),
            "kind": KINDS[get(_B_KIND)],
            "span": get(_B_SPAN),
            "memory": get(_B_MEMORY),
            "devices": devices,
            "after": deps,
            "stage": None if stage < 0 else stage,
            "duration": duration.value if given.value else None,
        }

    def to_json(self):
        """Serialise as placement JSON (doc/formats.md)."""
        return take_string(lib.tessel_graph_to_json, self)

    def __repr__(self):
        if self._handle is None:
            return "<tessel.Graph closed>"
        return "<tessel.Graph devices=%d blocks=%d>" % (self.devices,
                                                        self.blocks)
