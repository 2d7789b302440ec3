"""Model profiles and the exploration of placements (tessel_explore_*).

    import tessel
    model = tessel.Model.from_file("doc/examples/models/gpt-8dev-40g.json")
    for c in tessel.explore(model, fast=True):
        print(c.family, c.time, c.peak_memory, c.speedup_1f1b)

Each :class:`Candidate` is plain data read from the exploration once it
ran; its ``schedule`` and ``placement`` are independent copies.
"""

import ctypes
import json
import queue
import threading
from typing import Any, Callable, List, Optional

from ._lib import EXPLORE_FN, explore_p, graph_p, lib, model_p, schedule_p
from ._util import (Handle, Number, bool_arg, data_arg, int64_arg, path_arg,
                    seconds_to_ms, sigint_deferred)
from .errors import TesselError, check, check_file, error_class
from .graph import Graph
from .schedule import CancelToken, Schedule, _cancel_arg, _join, _Options

__all__ = ["Model", "Candidate", "explore", "published", "published_on",
           "published_families"]

_MODEL_DEVICES, _MODEL_LAYERS, _MODEL_MICRO_BATCHES, _MODEL_INFERENCE = range(4)
(_X_TIME, _X_PEAK, _X_S1F1B, _X_SGPIPE, _X_STAGES, _X_CHUNKS, _X_TP,
 _X_REPLICAS, _X_MICROS, _X_BASELINE, _X_WORK, _X_SECONDS) = range(12)


class Model(Handle):
    """A model profile (doc/formats.md, "Model profile"): read with
    :meth:`from_json` (text, bytes or a dict) or :meth:`from_file`."""

    _ctype = model_p
    _thread_safe = True

    def __init__(self, _handle: Any) -> None:
        if type(_handle) is not model_p:
            raise TypeError("use Model.from_json() or Model.from_file()")
        self._handle = _handle

    def _release(self, handle: Any) -> None:
        lib.tessel_model_free(handle)

    @classmethod
    def from_json(cls, text: Any) -> "Model":
        """Parse a model profile: JSON text (str or bytes) or a dict."""
        if isinstance(text, dict):
            text = json.dumps(text)
        data = data_arg(text, "model JSON")
        handle = model_p()
        check(lib.tessel_model_from_json(ctypes.byref(handle), data,
                                         len(data)))
        return cls(handle)

    @classmethod
    def from_file(cls, path: Any) -> "Model":
        """Read a model profile from the file at ``path``."""
        name = path_arg(path)
        handle = model_p()
        check_file(lib.tessel_model_from_file(ctypes.byref(handle), name),
                   name)
        return cls(handle)

    def _get(self, attr: int) -> int:
        out = ctypes.c_int64()
        check(lib.tessel_model_get(ctypes.byref(out), self._h(), attr))
        return int(out.value)

    @property
    def devices(self) -> int:
        return self._get(_MODEL_DEVICES)

    @property
    def layers(self) -> int:
        return self._get(_MODEL_LAYERS)

    @property
    def micro_batches(self) -> int:
        return self._get(_MODEL_MICRO_BATCHES)

    @property
    def inference(self) -> bool:
        return bool(self._get(_MODEL_INFERENCE))

    @property
    def unit(self) -> str:
        out = ctypes.c_char_p()
        check(lib.tessel_model_units(ctypes.byref(out), None, self._h()))
        return (out.value or b"").decode()

    @property
    def memory_unit(self) -> str:
        out = ctypes.c_char_p()
        check(lib.tessel_model_units(None, ctypes.byref(out), self._h()))
        return (out.value or b"").decode()


class Candidate:
    """One placement family's result, in rank order (:func:`explore`).

    ``time`` is the time per training step (inference: the latency) in
    the model's unit, None when the family has no schedule (``reason``
    says why); ``peak_memory`` and ``device_memory`` (per device) are in
    the model's memory unit, parameters included; ``speedup_1f1b`` and
    ``speedup_gpipe`` are None when that baseline has no schedule.
    """

    __slots__ = ("rank", "family", "time", "peak_memory", "device_memory",
                 "speedup_1f1b", "speedup_gpipe", "stages", "chunks",
                 "tensor_parallel", "replicas", "micro_batches", "baseline",
                 "work", "seconds", "reason", "placement", "schedule")

    def __repr__(self) -> str:
        return ("Candidate(rank=%r, family=%r, time=%r, peak_memory=%r)"
                % (self.rank, self.family, self.time, self.peak_memory))


def _model_arg(model: Any) -> "Model":
    if isinstance(model, Model):
        return model
    if isinstance(model, dict):
        return Model.from_json(model)
    if isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
        return Model.from_file(model)
    raise TypeError("model must be a tessel.Model, a dict or a path, not %s"
                    % type(model).__name__)


def _read(ex: Any, k: int, devices: int) -> Candidate:
    c = Candidate()

    def num(attr: int) -> float:
        out = ctypes.c_double()
        check(lib.tessel_explore_get(ctypes.byref(out), ex, k, attr))
        return float(out.value)

    text = ctypes.c_char_p()
    check(lib.tessel_explore_family(ctypes.byref(text), ex, k))
    c.family = (text.value or b"").decode()
    check(lib.tessel_explore_reason(ctypes.byref(text), ex, k))
    c.reason = (text.value or b"").decode()
    time = num(_X_TIME)
    c.rank = k + 1 if time >= 0 else None
    c.time = time if time >= 0 else None
    peak = num(_X_PEAK)
    c.peak_memory = peak if time >= 0 else None
    s1, sg = num(_X_S1F1B), num(_X_SGPIPE)
    c.speedup_1f1b = s1 if s1 > 0 else None
    c.speedup_gpipe = sg if sg > 0 else None
    c.stages = int(num(_X_STAGES))
    c.chunks = int(num(_X_CHUNKS))
    c.tensor_parallel = int(num(_X_TP))
    c.replicas = int(num(_X_REPLICAS))
    c.micro_batches = int(num(_X_MICROS))
    c.baseline = bool(num(_X_BASELINE))
    c.work = int(num(_X_WORK))
    c.seconds = num(_X_SECONDS)
    c.device_memory = None
    c.placement = None
    c.schedule = None
    graph = graph_p()
    if lib.tessel_explore_graph(ctypes.byref(graph), ex, k) == 0:
        copy = graph_p()
        check(lib.tessel_graph_dup(ctypes.byref(copy), graph))
        c.placement = Graph._wrap(copy)
    else:
        lib.tessel_error_clear()
    if time >= 0:
        mem = []
        for d in range(devices):
            out = ctypes.c_double()
            check(lib.tessel_explore_device_memory(ctypes.byref(out), ex, k,
                                                   d))
            mem.append(float(out.value))
        c.device_memory = mem
        s = schedule_p()
        check(lib.tessel_explore_schedule(ctypes.byref(s), ex, k))
        buf = ctypes.c_void_p()
        check(lib.tessel_schedule_to_json(ctypes.byref(buf), s))
        try:
            data = ctypes.string_at(buf)
        finally:
            lib.tessel_free(buf)
        c.schedule = Schedule.from_json(data)
    return c


def _done(ex: Any, devices: int, result: Any) -> Optional[List[Candidate]]:
    """The candidates of an exploration that ended, as :func:`explore`
    returns them, or None when it ended without a schedule."""
    if result.get("rc", -1) < 0:
        return None
    count = ctypes.c_size_t()
    check(lib.tessel_explore_count(ctypes.byref(count), ex))
    return [_read(ex, k, devices) for k in range(count.value)]


def explore(model: Any, time_limit: Optional[Number] = None,
            threads: int = 0, fast: bool = False,
            work_limit: Optional[int] = None,
            progress: Optional[Callable[..., Any]] = None,
            cancel: Optional[CancelToken] = None) -> List[Candidate]:
    """Explore the placements of ``model`` (a :class:`Model`, a dict or a
    path) and return every candidate, the fastest first, those without a
    schedule last.

    ``work_limit`` is the budget of the whole exploration, shared by the
    candidates searched (None: each its own default budget; the same
    result on any machine); ``time_limit`` (seconds) caps the whole
    exploration; ``threads`` candidates are searched at a time (0: all
    cores). ``progress(family, time, reason, done, total)`` is called on
    the calling thread after each candidate; a true result stops the
    exploration (the candidates done are kept). Ctrl-C and ``cancel``
    stop it likewise; with no candidate done they raise. Ctrl-C raises
    KeyboardInterrupt once the exploration has stopped, whose
    ``candidates`` attribute is the list it would have returned (None
    when no candidate was done).
    """
    m = _model_arg(model)
    if progress is not None and not callable(progress):
        raise TypeError("progress must be callable or None")
    token = _cancel_arg(cancel)
    bool_arg(fast, "fast")
    if work_limit is not None:
        int64_arg(work_limit, "work_limit")
    seconds_to_ms(time_limit, "time_limit")
    handle = explore_p()
    with m._guard():
        check(lib.tessel_explore_new(ctypes.byref(handle), m._h()))
        devices = m.devices
    # queue.Queue, not SimpleQueue: a signal as SimpleQueue.get's timeout
    # ends can leave it blocked for good (CPython 3.11)
    events: "queue.Queue[Any]" = queue.Queue()

    def trampoline(family: bytes, time: float, work: int, reason: bytes,
                   done: int, total: int, payload: Any) -> int:
        events.put(((family or b"").decode(), time if time >= 0 else None,
                    (reason or b"").decode(), int(done), int(total)))
        return 0

    callback = EXPLORE_FN(trampoline)
    try:
        check(lib.tessel_explore_set_progress(handle, callback, None))
        with _Options(time_limit=time_limit, threads=threads, fast=fast,
                      work_limit=work_limit) as options:
            if token is not None:
                token._attach(options)
            result = {}

            def run() -> None:
                result["rc"] = int(lib.tessel_explore_run(handle,
                                                          options._h()))
                if result["rc"] < 0:
                    result["error"] = (lib.tessel_error_last() or b"").decode()

            worker = threading.Thread(target=run, daemon=True)
            interrupted = False
            try:
                # Ctrl-C: the exploration cancelled, waited for, then
                # KeyboardInterrupt (sigint_deferred)
                with sigint_deferred(options.cancel) as sigint:
                    worker.start()
                    while worker.is_alive() or not events.empty():
                        if sigint.is_set() and not interrupted:
                            interrupted = True
                            options.cancel()
                        try:
                            item = events.get(timeout=0.05)
                        except queue.Empty:
                            continue
                        if (not interrupted and progress is not None and
                                progress(*item)):
                            options.cancel()
            except BaseException as exc:
                options.cancel()
                _join(worker)
                if isinstance(exc, KeyboardInterrupt):
                    exc.candidates = _done(handle, devices, result)  # type: ignore[attr-defined]
                raise
            finally:
                if token is not None:
                    token._detach(options)
            _join(worker)
            if interrupted or sigint.is_set():
                stop = KeyboardInterrupt()
                stop.candidates = _done(handle, devices, result)  # type: ignore[attr-defined]
                raise stop
            rc = result["rc"]
            if rc < 0:
                cls = error_class(rc)
                raise cls(rc, result.get("error", "")) if cls is not \
                    TesselError else TesselError(rc, result.get("error", ""))
        done = _done(handle, devices, result)
        assert done is not None
        return done
    finally:
        lib.tessel_explore_free(handle)


def published_families() -> List[Any]:
    """[(name, description)] of the published families."""
    out = []
    for i in range(lib.tessel_published_count()):
        name, desc = ctypes.c_char_p(), ctypes.c_char_p()
        check(lib.tessel_published_info(ctypes.byref(name), ctypes.byref(desc),
                                        i))
        out.append(((name.value or b"").decode(), (desc.value or b"").decode()))
    return out


def published(family: str, devices: int, micro_batches: int, forward: int,
              backward: int, weight: int = 1, chunks: int = 2,
              latency: int = 0) -> Schedule:
    """The published schedule of ``family`` on its own placement
    (tessel_published): its graph is the placement, with the schedule's
    peak as every device's memory limit, ready for :func:`tessel.search`."""
    from ._util import int_arg, text_arg
    handle = schedule_p()
    check(lib.tessel_published(
        ctypes.byref(handle), text_arg(family, "family"),
        int_arg(devices, "devices"), int64_arg(micro_batches, "micro_batches"),
        int_arg(forward, "forward"), int_arg(backward, "backward"),
        int_arg(weight, "weight"), int_arg(chunks, "chunks"),
        int_arg(latency, "latency")))
    return Schedule(handle)


def published_on(graph: Graph, family: str, micro_batches: int) -> Schedule:
    """The published order of ``family`` replayed on ``graph``, a placement
    of that family's structure with spans, latencies and memory limits of
    its own (tessel_published_on)."""
    from ._util import text_arg
    if not isinstance(graph, Graph):
        raise TypeError("graph must be a tessel.Graph, not %s"
                        % type(graph).__name__)
    handle = schedule_p()
    with graph._guard():
        check(lib.tessel_published_on(ctypes.byref(handle), graph._h(),
                                      text_arg(family, "family"),
                                      int64_arg(micro_batches,
                                                "micro_batches")))
    return Schedule(handle)
