#!/usr/bin/env python3
"""Catalogue of misuses of the tessel Python bindings.

Each case runs in its own python process: it must end cleanly, with no
crash and no invalid memory access, raising the exception listed (or, for
the cases marked "value", giving the documented value instead of a
silently changed one). Under valgrind (TESSEL_UNDER_VALGRIND=1, with
PYTHONMALLOC=malloc and --error-exitcode=99) the cases share three
processes (each start of python and libz3 under valgrind takes seconds;
a case that sends a signal keeps one of its own).

    misuse.py                  run every case, print one line per case
    misuse.py CASE ...         run these cases
    misuse.py --child CASE ... run these cases one after the other in
                               this process

Environment: TESSEL_LIBRARY, PYTHONPATH (as for test_tessel.py);
TESSEL_PRELOAD: LD_PRELOAD of the case processes (a sanitizer's runtime,
for a library built with it).
"""

import os
import signal
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir))

CASES = {}


def case(expected):
    """Register a case expecting the exception class named ``expected``
    (looked up in tessel, then builtins), or "value" for a case that
    checks a value itself."""
    def register(func):
        CASES[func.__name__] = (expected, func)
        return func
    return register


def small():
    import tessel
    return tessel.Graph.preset("vshape", devices=2, memory=4)


def schedule():
    import tessel
    return tessel.search(small(), micro_batches=4)


# -- lifetimes ----------------------------------------------------------

@case("ValueError")
def iterator_after_with():
    import tessel
    with tessel.search(small(), micro_batches=8) as s:
        it = s.entries(0)
        next(it)
    list(it)


@case("ValueError")
def graph_of_closed_schedule():
    s = schedule()
    sg = s.graph
    s.close()
    sg.block(0)


@case("ValueError")
def actions_of_closed_schedule():
    s = schedule()
    s.close()
    s.actions(0)


@case("ValueError")
def action_iterator_after_close():
    s = schedule()
    it = s.actions(1)
    next(it)
    s.close()
    next(it)


@case("ValueError")
def closed_graph():
    g = small()
    g.close()
    g.blocks


@case("value")
def iterator_keeps_schedule():
    import gc
    import tessel
    it = tessel.search(small(), micro_batches=4).entries(0)
    gc.collect()
    n = len(list(it))
    assert n == 4 * 2, n  # 2 blocks per device x 4 micro-batches
    return "%d entries read after the schedule's last name was dropped" % n


@case("value")
def graph_keeps_schedule():
    import gc
    import tessel
    sg = tessel.search(small(), micro_batches=4).graph
    gc.collect()
    return "graph of a dropped schedule: %d blocks" % sg.blocks


# -- types --------------------------------------------------------------

@case("TypeError")
def search_str():
    import tessel
    tessel.search("vshape")


@case("TypeError")
def search_int():
    import tessel
    tessel.search(12345)


@case("TypeError")
def search_schedule():
    import tessel
    tessel.search(schedule())


@case("TypeError")
def block_name_none():
    import tessel
    tessel.Graph(2).add_block(None, "forward", 1, 1)


@case("ValueError")
def block_name_nul():
    import tessel
    tessel.Graph(2).add_block("a\0b", "forward", 1, 1)


@case("TypeError")
def span_float():
    import tessel
    tessel.Graph(2).add_block("a", "forward", 1.5, 1)


@case("TypeError")
def from_json_dict():
    import tessel
    tessel.Graph.from_json({"devices": 2, "blocks": []})


@case("TypeError")
def micro_batches_float():
    import tessel
    tessel.search(small(), micro_batches=4.0)


# -- ranges -------------------------------------------------------------

@case("OverflowError")
def memory_2_40():
    import tessel
    tessel.Graph(2).add_block("m", "forward", 1, 2 ** 40)


@case("OverflowError")
def memory_2_32_plus_5():
    import tessel
    tessel.Graph(2).add_block("m", "forward", 1, 2 ** 32 + 5)


@case("OverflowError")
def span_2_32_plus_3():
    import tessel
    tessel.Graph(2).add_block("m", "forward", 2 ** 32 + 3, 1)


@case("OverflowError")
def devices_2_32_plus_2():
    import tessel
    tessel.Graph(2 ** 32 + 2)


@case("OverflowError")
def entries_device_2_40():
    schedule().entries(device=2 ** 40)


@case("OverflowError")
def simulate_seed_2_64():
    schedule().simulate(seed=2 ** 64)


# -- meanings -----------------------------------------------------------

@case("RangeError")
def memory_limit_negative():
    import tessel
    tessel.Graph.preset("vshape").set_memory_limit(-5, device=1)


@case("ValueError")
def time_limit_negative():
    import tessel
    tessel.search(small(), time_limit=-5)


@case("value")
def time_limit_zero_is_none():
    import tessel
    g = tessel.Graph.preset("mshape", devices=4, memory=6)
    s = tessel.search(g, time_limit=0)
    assert (s.makespan, s.period_optimal) == (108, True), s
    return "time_limit=0: no limit, makespan 108, period proven"


@case("value")
def preset_memory_default():
    import tessel
    g = tessel.Graph.preset("vshape")
    limits = {g.memory_limit(d) for d in range(g.devices)}
    assert limits == {tessel.PRESET_MEMORY} == {6}, limits
    g = tessel.Graph.preset("vshape", devices=64)
    limits = {g.memory_limit(d) for d in range(g.devices)}
    assert limits == {96}, limits
    return "Graph.preset('vshape') memory limit 6 on every device, 96 on 64"


@case("FileNotFoundError")
def from_file_missing():
    import tessel
    tessel.Graph.from_file("/nonexistent/placement.json")


# -- cancel and Ctrl-C ----------------------------------------------------

@case("CancelledError")
def cancelled_before_start():
    import tessel
    token = tessel.CancelToken()
    token.cancel()
    tessel.search(tessel.Graph.preset("mshape", devices=8, memory=6), cancel=token)


@case("KeyboardInterrupt")
def ctrl_c_during_search():
    import tessel
    signal.signal(signal.SIGINT, signal.default_int_handler)
    g = tessel.Graph.preset("nnshape", devices=8, memory=6)
    threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
    tessel.search(g, micro_batches=64, work_limit=100000000)


@case("KeyboardInterrupt")
def ctrl_c_while_the_wait_blocks():
    # the waiting thread blocked, from the signal on, in a wait that
    # ignores its timeout (as CPython 3.11's SimpleQueue.get can when the
    # signal comes as its timeout ends): the SIGINT handler itself cancels
    # the search, which ends, and KeyboardInterrupt follows (not the search
    # run to its end). The signal goes to the waiting thread itself.
    import queue
    import types
    import tessel
    import tessel.schedule as sched
    fired = threading.Event()

    class BlockingQueue(queue.Queue):
        def get(self, block=True, timeout=None):
            end = None if timeout is None else time.monotonic() + timeout
            while not fired.is_set():
                try:
                    return super().get(block, 0.01)
                except queue.Empty:
                    if end is not None and time.monotonic() >= end:
                        raise
            return super().get(block)

    def ctrl_c(thread_id):
        fired.set()
        signal.pthread_kill(thread_id, signal.SIGINT)

    signal.signal(signal.SIGINT, signal.default_int_handler)
    g = tessel.Graph.preset("nnshape", devices=8, memory=6)
    saved = sched.queue
    sched.queue = types.SimpleNamespace(Queue=BlockingQueue, SimpleQueue=BlockingQueue,
                                        Empty=queue.Empty)
    try:
        threading.Timer(1.0, ctrl_c, (threading.get_ident(),)).start()
        tessel.search(g, micro_batches=64, work_limit=100000000)
    finally:
        sched.queue = saved


# -- sharing between threads, copies -------------------------------------

def _search_in_thread(g, **kw):
    import tessel
    out = {}

    def run():
        try:
            out["schedule"] = tessel.search(g, **kw)
        except Exception as error:  # reported by the case
            out["error"] = error
    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


@case("value")
def close_graph_during_search():
    import tessel
    g = tessel.Graph.preset("xshape", devices=8, memory=12)
    thread, out = _search_in_thread(g, micro_batches=64, work_limit=500)
    time.sleep(0.1)
    g.close()
    thread.join()
    assert "error" not in out, out
    out["schedule"].validate()
    assert g.closed
    return "the search ran on its own copy: makespan %d" % out["schedule"].makespan


@case("value")
def change_graph_during_search():
    import tessel
    g = tessel.Graph.preset("xshape", devices=8, memory=12)
    blocks = g.blocks
    thread, out = _search_in_thread(g, micro_batches=64, work_limit=500)
    for i in range(300):
        g.add_block("extra%d" % i, "forward", 1, 0)
        g.place("extra%d" % i, [i % 8])
    thread.join()
    assert "error" not in out, out
    s = out["schedule"]
    s.validate()
    assert s.graph.blocks == blocks, (s.graph.blocks, blocks)
    return "the search saw the graph as it was: %d blocks" % s.graph.blocks


@case("value")
def close_schedule_while_iterating():
    import tessel
    s = tessel.search(tessel.Graph.preset("vshape", devices=8, memory=16),
                      micro_batches=64, work_limit=200)
    errors = []

    def walk():
        try:
            for _ in range(20):
                for d in range(8):
                    list(s.entries(d))
                    list(s.actions(d))
        except ValueError:
            pass  # closed under it: the documented error
        except Exception as error:
            errors.append(error)
    threads = [threading.Thread(target=walk) for _ in range(3)]
    for t in threads:
        t.start()
    time.sleep(0.05)
    s.close()
    for t in threads:
        t.join()
    assert not errors, errors
    return "closed while three threads iterated: ValueError only"


@case("value")
def copy_graph():
    import copy
    import pickle
    import tessel
    g = small()
    blocks = g.blocks
    copies = [copy.copy(g), copy.deepcopy(g), pickle.loads(pickle.dumps(g))]
    g.close()
    for c in copies:
        assert c.blocks == blocks and not c.closed
        tessel.search(c, micro_batches=4).validate()
    return "copy.copy, copy.deepcopy and pickle make independent graphs"


@case("InvalidError")
def pickle_graph_not_valid_yet():
    # refused when pickled, not a pickle that cannot be loaded
    import pickle
    import tessel
    g = tessel.Graph(2)
    g.add_block("a", "forward", 1, 1)
    pickle.dumps(g)


@case("value")
def write_never_through_a_link_left_there():
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        other = os.path.join(d, "other.txt")
        with open(other, "w") as f:
            f.write("kept")
        dest = os.path.join(d, "s.json")
        os.symlink(other, dest + ".tmp")
        os.chmod(d, 0o755)
        schedule().write(dest, "json")
        assert open(other).read() == "kept"
        assert sorted(os.listdir(d)) == ["other.txt", "s.json", "s.json.tmp"]
        assert os.stat(dest).st_mode & 0o777 == 0o666 & ~_umask()
    return "written through a new temporary file, the link left there untouched"


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@case("TypeError")
def copy_schedule():
    import copy
    copy.copy(schedule())


@case("TypeError")
def deepcopy_schedule():
    import copy
    copy.deepcopy(schedule())


@case("TypeError")
def pickle_schedule():
    import pickle
    pickle.dumps(schedule())


@case("TypeError")
def copy_iterator():
    import copy
    copy.copy(schedule().entries(0))


# -- no silent conversion -------------------------------------------------

@case("TypeError")
def graph_devices_bool():
    import tessel
    tessel.Graph(True)


@case("TypeError")
def micro_batches_bool():
    import tessel
    tessel.search(small(), micro_batches=True)


@case("TypeError")
def span_bool():
    small().add_block("x", "forward", True, 0)


@case("TypeError")
def work_limit_bool():
    import tessel
    tessel.search(small(), work_limit=True)


class _NumpyLikeBool:
    """What numpy's bool_ is to the binding (an __index__, numpy's name),
    for a machine without numpy."""
    __module__ = "numpy"

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return int(self.value)

    def __bool__(self):
        return bool(self.value)


_NumpyLikeBool.__name__ = "bool_"


@case("TypeError")
def span_numpy_bool():
    try:
        import numpy
        true = numpy.True_
    except ImportError:
        true = _NumpyLikeBool(True)
    small().add_block("x", "forward", true, 0)


@case("TypeError")
def device_numpy_bool():
    small().add_block("x", "forward", 1, 0, devices=[_NumpyLikeBool(False)])


@case("RuntimeError")
def iterator_after_set_step():
    s = schedule()
    it = s.entries(0)
    first = next(it)
    s.set_step(first.gid, first.micro_batch, first.start)
    next(it)


@case("value")
def iterator_after_refused_set_step():
    import tessel
    s = schedule()
    it = s.entries(0)
    next(it)
    for bad in (lambda: s.set_step("x", 0, 0), lambda: s.set_step(10**6, 0, 0)):
        try:
            bad()
        except (TypeError, tessel.TesselError):
            pass
    next(it)
    return "a refused set_step leaves the iterator going"


@case("value")
def write_raw_stream_in_parts():
    import io
    s = schedule()

    class Trickle(io.RawIOBase):
        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, b):
            self.data += bytes(b[:7])
            return min(7, len(b))
    out = Trickle()
    s.write(out, "json")
    assert out.data.decode() == s.to_json()
    return "a raw stream taking 7 bytes a call gets every byte"


@case("BlockingIOError")
def write_raw_stream_would_block():
    import io

    class Full(io.RawIOBase):
        def writable(self):
            return True

        def write(self, b):
            return None
    schedule().write(Full(), "json")


@case("FileNotFoundError")
def write_empty_path():
    schedule().write("", "json")


@case("ValueError")
def name_bytes_not_utf8():
    small().add_block(b"\xff", "forward", 1, 0)


@case("value")
def name_bytes_utf8():
    g = small()
    gid = g.add_block("caf\u00e9".encode("utf-8"), "forward", 1, 0)
    assert g.block_name(gid) == "caf\u00e9"
    return "UTF-8 bytes are a name: %r" % g.block_name(gid)


# -- memory-time alternatives -------------------------------------------

@case("TypeError")
def recompute_saves_float():
    small().set_recompute("f0", "b3", 1.0, 1)


@case("NotFoundError")
def recompute_backward_minus_one():
    small().set_recompute("f0", -1, 1, 1)  # None removes, -1 is no block


@case("value")
def recompute_undeclared_is_none():
    g = small()
    assert g.recompute("f0") is None and g.offload(0) is None
    return "an undeclared alternative reads as None"


@case("InvalidError")
def set_choice_undeclared():
    import tessel
    s = tessel.Schedule.empty(small(), 2)
    s.set_choice("f0", 0, tessel.Choice.RECOMPUTE)


@case("TypeError")
def set_choice_bool():
    import tessel
    g = small()
    g.set_recompute("f0", "b3", 1, 1)
    tessel.Schedule.empty(g, 2).set_choice("f0", 0, True)


@case("TypeError")
def set_choice_offload_without_steps():
    import tessel
    g = small()
    g.set_offload("f0", "b3", 1, 1)
    tessel.Schedule.empty(g, 2).set_choice("f0", 0, "offload")


@case("TypeError")
def search_threads_none():
    # None means the default only where documented (work_limit,
    # repetend_micro_batches, time_limit)
    import tessel
    tessel.search(small(), micro_batches=2, threads=None)


@case("TypeError")
def search_fast_none():
    import tessel
    tessel.search(small(), micro_batches=2, fast=None)


@case("TypeError")
def explore_threads_none():
    import tessel
    tessel.explore({"unit": "ms", "devices": 2, "memory_per_device": 10,
                    "micro_batches": 4, "layers": [
                        {"name": "a", "forward": 1, "backward": 2,
                         "activation": 1, "parameters": 1}]}, threads=None)


@case("ValueError")
def step_integer_without_exact_double():
    # 2**53 + 1 would become 2**53 as a double: refused, not rounded
    small().set_step(2**53 + 1)


@case("value")
def step_integer_with_exact_double():
    g = small()
    g.set_step(2**53)
    assert g.step == float(2**53)
    g.set_step(2.0**53 + 2)
    return "an integer a double holds exactly, and any float, are taken"


@case("NotFoundError")
def simulate_unknown_block_id():
    schedule().simulate({-1: 1.0})


@case("RangeError")
def alternatives_out_of_range():
    import tessel
    tessel.search(small(), micro_batches=2, alternatives=3)


# -- running ------------------------------------------------------------

#: Cases that signal their own process: never in a shared one.
ISOLATED = {"ctrl_c_during_search", "ctrl_c_while_the_wait_blocks"}


def child(name):
    """Run one case here; print its outcome; 0 when as expected."""
    expected, func = CASES[name]
    import builtins
    import tessel
    try:
        value = func()
    except BaseException as exc:  # the outcome under test
        want = getattr(tessel, expected, None) or getattr(builtins, expected,
                                                          None)
        got = "%s: %s" % (type(exc).__name__, exc)
        if want is not None and isinstance(exc, want):
            print("%s: raises %s" % (name, got))
            return 0
        print("%s: expected %s, raised %s" % (name, expected, got))
        return 1
    if expected == "value":
        print("%s: %s" % (name, value))
        return 0
    print("%s: expected %s, nothing raised" % (name, expected))
    return 1


def valgrind_python():
    """The interpreter to run under valgrind: TESSEL_VALGRIND_PYTHON, else
    the system's /usr/bin/python3 (Debian's build runs clean under
    memcheck; a pyenv build of CPython 3.11 reports uninitialised values
    in its own int.from_bytes and in its garbage collector at exit), else
    this one."""
    chosen = os.environ.get("TESSEL_VALGRIND_PYTHON")
    if chosen:
        return chosen
    if os.access("/usr/bin/python3", os.X_OK):
        return "/usr/bin/python3"
    return sys.executable


def under_valgrind():
    return os.environ.get("TESSEL_UNDER_VALGRIND") == "1"


def batches(names):
    """The processes to run: one case each, or under valgrind the cases
    shared out over two processes and the ISOLATED ones alone."""
    if not under_valgrind():
        return [[n] for n in names]
    shared = [n for n in names if n not in ISOLATED]
    return ([b for b in (shared[0::2], shared[1::2]) if b] +
            [[n] for n in names if n in ISOLATED])


def command(names):
    import shutil
    # -S: no site module, a second less per process under valgrind
    cmd = [sys.executable, "-S", os.path.abspath(__file__), "--child"] + names
    if under_valgrind():
        valgrind = shutil.which("valgrind")
        if valgrind:
            cmd[0] = valgrind_python()
            # --fair-sched=yes: valgrind runs one thread at a time, and
            # by default a thread busy in C can keep the others waiting
            # for many seconds (a SIGINT's handler ran up to 18 s after
            # the signal, the search meanwhile running on)
            cmd = [valgrind, "--quiet", "--fair-sched=yes", "--error-exitcode=99",
                   "--leak-check=full", "--show-leak-kinds=definite",
                   "--errors-for-leak-kinds=definite"] + cmd
    return cmd


def run(names):
    import subprocess
    env = dict(os.environ, PYTHONMALLOC="malloc")
    # a sanitizer's runtime for the cases only (TESSEL_PRELOAD): not for
    # this runner, which may have been started through a shell wrapper
    if os.environ.get("TESSEL_PRELOAD"):
        env["LD_PRELOAD"] = os.environ["TESSEL_PRELOAD"]
    start = time.monotonic()
    try:
        proc = subprocess.run(command(names), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=600)
    except subprocess.TimeoutExpired as expired:
        out = (expired.output or b"").decode("utf-8", "replace").rstrip()
        return (" ".join(names), "TIMEOUT (600 s)", time.monotonic() - start,
                out)
    seconds = time.monotonic() - start
    out = proc.stdout.decode("utf-8", "replace").rstrip()
    if proc.returncode < 0:
        verdict = "CRASH (signal %d)" % -proc.returncode
    elif proc.returncode == 99:
        verdict = "VALGRIND ERRORS"
    elif proc.returncode:
        verdict = "FAIL"
    else:
        verdict = "ok"
    return " ".join(names), verdict, seconds, out


def main(argv):
    if len(argv) >= 3 and argv[1] == "--child":
        return 1 if sum(child(name) for name in argv[2:]) else 0
    names = argv[1:] or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        print("unknown cases: %s" % ", ".join(unknown))
        return 2
    from concurrent.futures import ThreadPoolExecutor
    start = time.monotonic()
    failed = 0
    with ThreadPoolExecutor(max_workers=2) as pool:
        for name, verdict, seconds, out in pool.map(run, batches(names)):
            lines = out.splitlines()
            if len(name.split()) == 1:
                last = lines[-1] if lines else ""
                print("%-32s %-5s %5.1f s  %s" % (name, verdict, seconds,
                                                  last if verdict == "ok"
                                                  else ""))
            else:
                print("%d cases in one process: %s, %.1f s" % (
                    len(name.split()), verdict, seconds))
                if verdict == "ok":
                    print("    " + "\n    ".join(lines))
            if verdict != "ok":
                failed += len([l for l in lines if "expected" in l]) or 1
                print("    " + "\n    ".join(lines))
    print("%d cases, %d failed, %.1f s%s" % (
        len(names), failed, time.monotonic() - start,
        " (under valgrind)" if under_valgrind() else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
