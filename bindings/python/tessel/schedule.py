"""Search, schedules, their entries and action streams, simulation."""

import ctypes

from ._lib import PROGRESS_CB, lib
from ._util import Handle, encode, get_int64, take_string
from .errors import ITEROVER, check
from .graph import ALL_DEVICES, KINDS, Graph

__all__ = ["Schedule", "Entry", "Action", "search", "min_memory",
           "PHASES", "ACTION_KINDS"]

#: Entry phases, in the order of tessel_phase.
PHASES = ("warmup", "repetend", "cooldown")
#: Action kinds, in the order of tessel_action_kind.
ACTION_KINDS = ("compute", "send", "recv")

# tessel_option
(_OPT_MICRO_BATCHES, _OPT_TIME_LIMIT_MS, _OPT_THREADS, _OPT_FAST,
 _OPT_MAX_PERIOD, _OPT_SEED, _OPT_MINIMIZE_DEPTH,
 _OPT_SOLVER_MEMORY_MB) = range(8)
# tessel_schedule_attr
(_S_NDEVICES, _S_NBLOCKS, _S_NMICROS, _S_NENTRIES, _S_MAKESPAN, _S_PERIOD,
 _S_RESOURCE_BOUND, _S_PERIOD_OPTIMAL, _S_LOWER_BOUND, _S_REPETEND_BEGIN,
 _S_REPETEND_END, _S_DEPTH, _S_SEARCH_US, _S_MAKESPAN_OPTIMAL) = range(14)
# tessel_entry_attr
(_E_GID, _E_MICRO_BATCH, _E_START, _E_SPAN, _E_PHASE, _E_KIND, _E_MEMORY,
 _E_NDEVICES) = range(8)
# tessel_action_attr
(_A_KIND, _A_GID, _A_MICRO_BATCH, _A_PEER, _A_PEER_GID, _A_STEP,
 _A_LATENCY) = range(7)
# tessel_sim_attr
_SIM_MAKESPAN, _SIM_BUSY, _SIM_IDLE, _SIM_PEAK = range(4)


class Entry:
    """One (block, micro-batch) of a schedule, copied out of the C entry.

    Attributes: ``block`` (name), ``gid``, ``micro_batch``, ``start``,
    ``span``, ``phase`` ("warmup", "repetend", "cooldown"), ``kind``
    ("forward", "backward", "weight"), ``memory`` and ``devices`` (list).
    """

    __slots__ = ("block", "gid", "micro_batch", "start", "span", "phase",
                 "kind", "memory", "devices")

    def __init__(self, block, gid, micro_batch, start, span, phase, kind,
                 memory, devices):
        self.block = block
        self.gid = gid
        self.micro_batch = micro_batch
        self.start = start
        self.span = span
        self.phase = phase
        self.kind = kind
        self.memory = memory
        self.devices = devices

    @property
    def end(self):
        """Step after the entry's last step."""
        return self.start + self.span

    @classmethod
    def _from_c(cls, entry):
        def get(attr):
            return get_int64(lib.tessel_entry_get, entry, attr)

        name = ctypes.c_char_p()
        check(lib.tessel_entry_name(ctypes.byref(name), entry))
        devices = []
        for index in range(get(_E_NDEVICES)):
            device = ctypes.c_int()
            check(lib.tessel_entry_device(ctypes.byref(device), entry, index))
            devices.append(device.value)
        return cls(name.value.decode("utf-8"), get(_E_GID),
                   get(_E_MICRO_BATCH), get(_E_START), get(_E_SPAN),
                   PHASES[get(_E_PHASE)], KINDS[get(_E_KIND)],
                   get(_E_MEMORY), devices)

    def __eq__(self, other):
        if not isinstance(other, Entry):
            return NotImplemented
        return all(getattr(self, a) == getattr(other, a)
                   for a in self.__slots__)

    def __repr__(self):
        return ("Entry(block=%r, micro_batch=%d, start=%d, span=%d, "
                "phase=%r, kind=%r, devices=%r)" % (
                    self.block, self.micro_batch, self.start, self.span,
                    self.phase, self.kind, self.devices))


class Action:
    """One action of a device's stream: compute, send or recv.

    Attributes: ``kind`` ("compute", "send", "recv"), ``gid``, ``block``
    (name of gid), ``micro_batch``, ``peer`` (None for compute),
    ``peer_gid`` (None for compute), ``step`` and ``latency`` (send and
    recv: the dependency's latency in steps, 0 for compute; the output
    arrives at the send's step + latency).
    """

    __slots__ = ("kind", "gid", "block", "micro_batch", "peer", "peer_gid",
                 "step", "latency")

    def __init__(self, kind, gid, block, micro_batch, peer, peer_gid, step,
                 latency=0):
        self.kind = kind
        self.gid = gid
        self.block = block
        self.micro_batch = micro_batch
        self.peer = peer
        self.peer_gid = peer_gid
        self.step = step
        self.latency = latency

    def __repr__(self):
        return ("Action(kind=%r, block=%r, micro_batch=%d, peer=%r, "
                "step=%d)" % (self.kind, self.block, self.micro_batch,
                              self.peer, self.step))


class _Options(Handle):
    """Search options (tessel_options), released deterministically."""

    def __init__(self, micro_batches=None, time_limit=None, threads=None,
                 fast=None, seed=None, max_period=None, minimize_depth=None,
                 solver_memory_mb=None):
        handle = ctypes.c_void_p()
        check(lib.tessel_options_new(ctypes.byref(handle)))
        self._handle = handle
        self._callback = None
        try:
            if micro_batches is not None:
                self.set(_OPT_MICRO_BATCHES, micro_batches)
            if time_limit is not None:
                millis = max(1, int(round(float(time_limit) * 1000)))
                self.set(_OPT_TIME_LIMIT_MS, millis)
            if threads is not None:
                self.set(_OPT_THREADS, threads)
            if fast is not None:
                self.set(_OPT_FAST, 1 if fast else 0)
            if seed is not None:
                self.set(_OPT_SEED, seed)
            if max_period is not None:
                self.set(_OPT_MAX_PERIOD, max_period)
            if minimize_depth is not None:
                self.set(_OPT_MINIMIZE_DEPTH, 1 if minimize_depth else 0)
            if solver_memory_mb is not None:
                self.set(_OPT_SOLVER_MEMORY_MB, solver_memory_mb)
        except BaseException:
            self.close()
            raise

    def set(self, key, value):
        check(lib.tessel_options_set(self, key, int(value)))

    def set_progress(self, progress):
        """Route the progress callback to the Python callable."""
        def trampoline(period, makespan, lower_bound, proven, payload):
            try:
                return 1 if progress(period, makespan, lower_bound,
                                     bool(proven)) else 0
            except BaseException as exc:  # stop, re-raise after the search
                self.exception = exc
                return 1

        self.exception = None
        # The CFUNCTYPE object must outlive the search: keep it here.
        self._callback = PROGRESS_CB(trampoline)
        check(lib.tessel_options_set_progress(self, self._callback, None))

    def _release(self, handle):
        lib.tessel_options_free(handle)
        self._callback = None


class Schedule(Handle):
    """A schedule: every block of every micro-batch with its start step.

    Get one from :func:`search` or :meth:`Schedule.from_json`. The C handle
    is released by :meth:`close`, on leaving a ``with`` block, or when the
    object is garbage-collected.
    """

    def __init__(self, _handle):
        self._handle = _handle

    # -- life cycle -------------------------------------------------------

    def _release(self, handle):
        lib.tessel_schedule_free(handle)

    # -- constructors -----------------------------------------------------

    @classmethod
    def from_json(cls, text):
        """Parse schedule JSON (not validated: call :meth:`validate`)."""
        data = encode(text)
        handle = ctypes.c_void_p()
        check(lib.tessel_schedule_from_json(ctypes.byref(handle), data,
                                            len(data)))
        return cls(handle)

    @classmethod
    def from_file(cls, path):
        """Read schedule JSON from the file at ``path``."""
        handle = ctypes.c_void_p()
        check(lib.tessel_schedule_from_file(ctypes.byref(handle),
                                            encode(str(path))))
        return cls(handle)

    @classmethod
    def from_reference_json(cls, placement, text):
        """Read a schedule saved by the Tessel reference implementation."""
        data = encode(text)
        handle = ctypes.c_void_p()
        check(lib.tessel_schedule_from_reference_json(
            ctypes.byref(handle), placement, data, len(data)))
        return cls(handle)

    @classmethod
    def empty(cls, graph, micro_batches):
        """An empty schedule for ``graph``: fill it with :meth:`set_step`."""
        handle = ctypes.c_void_p()
        check(lib.tessel_schedule_new(ctypes.byref(handle), graph,
                                      int(micro_batches)))
        return cls(handle)

    def set_step(self, gid, micro_batch, step):
        """Set the start step of block ``gid`` of ``micro_batch``."""
        check(lib.tessel_schedule_set_step(self, int(gid), int(micro_batch),
                                           int(step)))

    # -- figures ----------------------------------------------------------

    def _get(self, attr):
        return get_int64(lib.tessel_schedule_get, self, attr)

    @property
    def period(self):
        """Steps per micro-batch in the steady state."""
        return self._get(_S_PERIOD)

    @property
    def resource_bound(self):
        """Max over devices of the summed spans on that device."""
        return self._get(_S_RESOURCE_BOUND)

    @property
    def period_optimal(self):
        """True when the period is proven optimal."""
        return bool(self._get(_S_PERIOD_OPTIMAL))

    @property
    def makespan(self):
        """Last finish step."""
        return self._get(_S_MAKESPAN)

    @property
    def makespan_optimal(self):
        """True when no schedule of these micro-batches is shorter."""
        return bool(self._get(_S_MAKESPAN_OPTIMAL))

    @property
    def lower_bound(self):
        """LB(N), the lower bound on the makespan."""
        return self._get(_S_LOWER_BOUND)

    @property
    def repetend(self):
        """(begin, end): first step and step after the steady state."""
        return (self._get(_S_REPETEND_BEGIN), self._get(_S_REPETEND_END))

    @property
    def depth(self):
        """Length of one micro-batch inside the repetend."""
        return self._get(_S_DEPTH)

    @property
    def micro_batches(self):
        """Number of micro-batches N."""
        return self._get(_S_NMICROS)

    @property
    def devices(self):
        """Number of devices."""
        return self._get(_S_NDEVICES)

    @property
    def blocks(self):
        """Number of blocks per micro-batch."""
        return self._get(_S_NBLOCKS)

    def __len__(self):
        return self._get(_S_NENTRIES)

    @property
    def search_seconds(self):
        """Wall-clock seconds the search took."""
        out = ctypes.c_double()
        check(lib.tessel_schedule_search_seconds(ctypes.byref(out), self))
        return out.value

    def peak_memory(self, device):
        """Peak memory reached on ``device`` over the whole schedule."""
        return get_int64(lib.tessel_schedule_peak_memory, self, int(device))

    @property
    def graph(self):
        """The graph the schedule was made for (borrowed: keeps self)."""
        out = ctypes.c_void_p()
        check(lib.tessel_schedule_graph(ctypes.byref(out), self))
        return Graph(_handle=out, _owner=self)

    def validate(self):
        """Check the schedule; raise ViolationError when it breaks a rule."""
        check(lib.tessel_schedule_validate(self))

    # -- exports ----------------------------------------------------------

    def to_json(self):
        """Serialise as schedule JSON (doc/formats.md)."""
        return take_string(lib.tessel_schedule_to_json, self)

    def to_text(self):
        """Render as a text grid with the key figures."""
        return take_string(lib.tessel_schedule_to_text, self)

    def to_svg(self):
        """Render as an SVG picture."""
        return take_string(lib.tessel_schedule_to_svg, self)

    def to_trace(self, step_us=0.0):
        """Chrome trace event JSON, ``step_us`` microseconds per step.

        0 (the default): the placement's step in its unit of time when it
        has both, else 1000 microseconds per step.
        """
        return take_string(lib.tessel_schedule_to_trace_json, self,
                           float(step_us))

    def to_torch_csv(self, comms=False):
        """The CSV of torch.distributed.pipelining (with comms if asked)."""
        return take_string(lib.tessel_schedule_to_torch_csv, self,
                           1 if comms else 0)

    def actions_json(self):
        """Every device's action stream as JSON."""
        return take_string(lib.tessel_schedule_to_actions_json, self)

    # -- iteration --------------------------------------------------------

    def entries(self, device=None):
        """Iterate over entries (Entry objects).

        With ``device`` the entries on that device in time order; with None
        every entry once, by start step (ties by device then block id).
        """
        device = ALL_DEVICES if device is None else int(device)
        it = ctypes.c_void_p()
        check(lib.tessel_iter_new(ctypes.byref(it), self, device))
        return self._entry_gen(it)

    def _entry_gen(self, it):
        # Holds self (the schedule must outlive the C iterator).
        try:
            entry = ctypes.c_void_p()
            while True:
                rc = lib.tessel_iter_next(ctypes.byref(entry), it)
                if rc == ITEROVER:
                    return
                check(rc)
                yield Entry._from_c(entry)
        finally:
            lib.tessel_iter_free(it)

    def __iter__(self):
        return self.entries()

    def actions(self, device):
        """Iterate over the action stream (Action objects) of ``device``."""
        it = ctypes.c_void_p()
        check(lib.tessel_action_iter_new(ctypes.byref(it), self,
                                         int(device)))
        return self._action_gen(it)

    def _action_gen(self, it):
        graph = self.graph
        names = {}
        try:
            action = ctypes.c_void_p()
            while True:
                rc = lib.tessel_action_iter_next(ctypes.byref(action), it)
                if rc == ITEROVER:
                    return
                check(rc)

                def get(attr):
                    return get_int64(lib.tessel_action_get, action, attr)

                kind = ACTION_KINDS[get(_A_KIND)]
                gid = get(_A_GID)
                if gid not in names:
                    names[gid] = graph.block_name(gid)
                peer = get(_A_PEER)
                peer_gid = get(_A_PEER_GID)
                yield Action(kind, gid, names[gid], get(_A_MICRO_BATCH),
                             None if peer < 0 else peer,
                             None if peer_gid < 0 else peer_gid,
                             get(_A_STEP), get(_A_LATENCY))
        finally:
            lib.tessel_action_iter_free(it)

    # -- simulation -------------------------------------------------------

    def simulate(self, durations=None, latency=0.0, jitter=0.0, seed=0):
        """Replay the schedule with real durations.

        ``durations`` maps block names (or gids) to durations; blocks not
        named keep the placement's (its duration, else its span times the
        step, else its span). Times are in the placement's unit when it has
        a step, else in steps; the placement's latencies count too. Returns a dict with "makespan" and, per
        device, lists "busy", "idle" and "peak_memory" (also as
        "devices": a list of dicts).
        """
        array = None
        count = 0
        if durations:
            graph = self.graph
            count = graph.blocks
            values = [graph.duration(g) for g in range(count)]
            for key, value in durations.items():
                gid = key if isinstance(key, int) else graph.find(key)
                values[gid] = float(value)
            array = (ctypes.c_double * count)(*values)
        sim = ctypes.c_void_p()
        check(lib.tessel_simulate(ctypes.byref(sim), self, array, count,
                                  float(latency), float(jitter), int(seed)))
        try:
            def get(attr, device=0):
                out = ctypes.c_double()
                check(lib.tessel_simulation_get(ctypes.byref(out), sim, attr,
                                                device))
                return out.value

            ndev = self.devices
            result = {
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

    def __repr__(self):
        if self._handle is None:
            return "<tessel.Schedule closed>"
        return "<tessel.Schedule devices=%d period=%d makespan=%d>" % (
            self.devices, self.period, self.makespan)


def search(graph, micro_batches=16, time_limit=None, threads=0, fast=False,
           seed=0, progress=None, max_period=0, minimize_depth=True,
           solver_memory_mb=0):
    """Search a schedule for ``graph`` and return a :class:`Schedule`.

    ``time_limit`` is in seconds (None: none). ``progress``, when given, is
    called as ``progress(period, makespan, lower_bound, proven)`` each time
    a better schedule is found; a true result stops the search, which then
    returns the best schedule so far. An exception in ``progress`` stops the
    search and is raised again here.
    """
    with _Options(micro_batches=micro_batches, time_limit=time_limit,
                  threads=threads, fast=fast, seed=seed,
                  max_period=max_period, minimize_depth=minimize_depth,
                  solver_memory_mb=solver_memory_mb) as options:
        if progress is not None:
            options.set_progress(progress)
        handle = ctypes.c_void_p()
        rc = lib.tessel_search(ctypes.byref(handle), graph, options)
        exception = getattr(options, "exception", None)
        if exception is not None:
            if rc >= 0:
                lib.tessel_schedule_free(handle)
            raise exception
        check(rc)
        return Schedule(handle)


def min_memory(graph, period=0, time_limit=None):
    """Smallest memory limit, equal on every device, for a repetend.

    ``period`` 0 means the resource bound. Returns ``(limit, proven)``.
    """
    with _Options(time_limit=time_limit) as options:
        out = ctypes.c_int64()
        proven = ctypes.c_int()
        check(lib.tessel_min_memory(ctypes.byref(out), ctypes.byref(proven),
                                    graph, int(period), options))
        return out.value, bool(proven.value)
