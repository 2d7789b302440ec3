#!/usr/bin/env python3
"""Tests of the tessel Python bindings (standard library unittest only).

Environment: TESSEL_LIBRARY (path of libtessel.so.1), PYTHONPATH with
bindings/python, and TESSEL_PROGRAM (the tessel program; the comparison
with its output is skipped when unset).
"""

import ctypes
import gc
import io
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))

import tessel  # noqa: E402
from tessel import _lib  # noqa: E402

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                      os.pardir, os.pardir, "include", "tessel.h")

SMALL = """{
  "devices": 2,
  "memory_limit": 4,
  "blocks": [
    {"name": "f0", "kind": "forward", "span": 1, "memory": 1,
     "devices": [0]},
    {"name": "f1", "kind": "forward", "span": 1, "memory": 1,
     "devices": [1], "after": ["f0"]},
    {"name": "b1", "kind": "backward", "span": 2, "memory": -1,
     "devices": [1], "after": ["f1"]},
    {"name": "b0", "kind": "backward", "span": 2, "memory": -1,
     "devices": [0], "after": ["b1"], "stage": 0}
  ]
}"""


def resident_bytes():
    """Resident set size of this process, from /proc/self/statm."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


class GraphTest(unittest.TestCase):
    """Graphs: presets, JSON, building by hand."""

    def test_library_named_or_none(self):
        # TESSEL_LIBRARY names the library to load, and no other in its place
        env = dict(os.environ, TESSEL_LIBRARY="/nonexistent/libtessel.so.1")
        r = subprocess.run([sys.executable, "-c", "import tessel"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(b"ImportError", r.stderr)
        self.assertIn(b"TESSEL_LIBRARY", r.stderr)

    def test_presets_listed(self):
        names = [name for name, _ in tessel.presets()]
        for name in ("vshape", "xshape", "mshape", "nnshape", "kshape"):
            self.assertIn(name, names)

    def test_preset_figures(self):
        g = tessel.Graph.preset("mshape", devices=4, memory=6, infer=False)
        self.assertEqual(g.devices, 4)
        self.assertEqual(g.blocks, 10)
        self.assertEqual(g.resource_bound, 6)
        self.assertEqual(g.memory_limit(0), 6)
        self.assertGreater(g.critical_path, 0)
        self.assertEqual(g.lower_bound(16), 108)
        infer = tessel.Graph.preset("vshape", devices=8, infer=True,
                                    memory=None)
        self.assertEqual(infer.devices, 8)
        self.assertIsNone(infer.memory_limit(0))
        # the default limit is that of tessel search --preset
        self.assertEqual(tessel.PRESET_MEMORY, 6)
        default = tessel.Graph.preset("vshape")
        self.assertEqual([default.memory_limit(d) for d in range(4)],
                         [6] * 4)
        # 3 per 2 devices, rounded up
        for devices, limit in ((2, 3), (6, 9), (7, 11), (64, 96)):
            scaled = tessel.Graph.preset("xshape" if devices != 7 else "vshape",
                                         devices=devices)
            self.assertEqual({scaled.memory_limit(d) for d in range(devices)},
                             {limit})
        # the smallest limit for any schedule: one micro-batch at a time
        big = tessel.Graph.preset("mshape", devices=64)
        self.assertEqual(big.min_memory(128), (1, True))
        with self.assertRaises(tessel.RangeError):
            big.min_memory(0)
        with self.assertRaises(TypeError):
            big.min_memory(2.5)
        tight = tessel.Graph.preset("mshape", devices=64, memory=1)
        s = tessel.search(tight, micro_batches=8, fast=True)
        self.assertLessEqual(max(s.peak_memory(d) for d in range(64)), 1)
        for block in range(infer.blocks):
            self.assertEqual(infer.block(block)["kind"], "forward")

    def test_json_round_trip(self):
        g = tessel.Graph.from_json(SMALL)
        self.assertEqual((g.devices, g.blocks), (2, 4))
        self.assertEqual(g.find("b1"), 2)
        b0 = g.block("b0")
        self.assertEqual(b0["kind"], "backward")
        self.assertEqual(b0["span"], 2)
        self.assertEqual(b0["devices"], [0])
        self.assertEqual(b0["after"], [2])
        self.assertEqual(b0["stage"], 0)
        text = g.to_json()
        self.assertEqual(json.loads(text), json.loads(SMALL))
        self.assertEqual(tessel.Graph.from_json(text).to_json(), text)
        self.assertEqual(tessel.Graph.from_json(text.encode()).to_json(),
                         text)

    def test_preset_json_round_trip(self):
        g = tessel.Graph.preset("kshape", devices=4, memory=4)
        text = g.to_json()
        self.assertEqual(tessel.Graph.from_json(text).to_json(), text)

    def test_from_file(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".json",
                                         delete=False) as f:
            f.write(SMALL)
        try:
            with tessel.Graph.from_file(f.name) as g:
                self.assertEqual(g.blocks, 4)
        finally:
            os.unlink(f.name)
        with self.assertRaises(tessel.TesselIOError):
            tessel.Graph.from_file("/nonexistent/placement.json")

    def test_build_by_hand(self):
        with tessel.Graph(2) as g:
            f0 = g.add_block("f0", "forward", 1, 1)
            f1 = g.add_block("f1", "forward", 1, 1)
            b1 = g.add_block("b1", "backward", 2, -1)
            b0 = g.add_block("b0", tessel.KINDS.index("backward"), 2, -1)
            self.assertEqual((f0, f1, b1, b0), (0, 1, 2, 3))
            for gid, device in ((f0, 0), (f1, 1), (b1, 1), (b0, 0)):
                g.place(gid, [device])
            g.add_dep(f0, f1)
            g.add_dep("f1", "b1")
            g.add_dep(b1, b0)
            g.set_stage(b0, 0)
            g.set_memory_limit(4)
            g.validate()
            self.assertEqual(json.loads(g.to_json()), json.loads(SMALL))
            copy = g.copy()
        self.assertEqual(copy.blocks, 4)
        with self.assertRaisesRegex(ValueError, "tessel.Graph is closed"):
            g.blocks  # closed: never passed to C
        self.assertTrue(g.closed)
        g.close()  # twice is fine

    def test_add_block_placed_and_after(self):
        g = tessel.Graph(2)
        g.add_block("f0", "forward", 1, 1, devices=[0])
        f1 = g.add_block("f1", "forward", 2, 1, devices=[1], after=["f0"])
        g.add_block("b1", "backward", 2, -1, devices=[1], after=[f1])
        g.add_block("b0", "backward", 1, -1, devices=[0], after=["b1"])
        self.assertEqual(g.block("b1")["after"], [f1])
        self.assertEqual(g.block("f1")["devices"], [1])
        tessel.search(g, micro_batches=4).validate()
        # checked before the block is added
        with self.assertRaises(tessel.NotFoundError):
            g.add_block("x", "forward", 1, 1, after=["nosuch"])
        with self.assertRaises(TypeError):
            g.add_block("x", "forward", 1, 1, devices="01")
        self.assertEqual(g.blocks, 4)

    def test_graph_errors(self):
        g = tessel.Graph(2)
        g.add_block("a", "forward", 1, 1)
        with self.assertRaises(tessel.ExistsError):
            g.add_block("a", "forward", 1, 1)
        with self.assertRaises(tessel.InvalidError):
            g.validate()  # "a" not placed
        g.place(0, [0])
        g.add_block("b", "backward", 1, -1)
        g.place(1, [1])
        g.add_dep(0, 1)
        with self.assertRaises(tessel.CycleError) as cyc:
            g.add_dep(1, 0)  # refused where the cycle is closed
        self.assertIn("closes a cycle", str(cyc.exception))
        g.validate()
        with self.assertRaises(tessel.NotFoundError) as ctx:
            g.find("zz")
        self.assertEqual(ctx.exception.code, -4)
        with self.assertRaises(tessel.TesselError):
            tessel.Graph(0)

    def test_step_durations_latency(self):
        g = tessel.Graph.from_json(SMALL)
        self.assertEqual(g.step, 0.0)
        self.assertIsNone(g.unit)
        with self.assertRaises(tessel.InvalidError):
            g.set_duration("f0", 1.5)  # no step yet
        g.set_step(0.1)
        g.set_unit("ms")
        g.set_duration("f0", 0.31)
        self.assertEqual(g.block("f0")["span"], 4)
        self.assertEqual(g.block("f0")["duration"], 0.31)
        self.assertIsNone(g.block("f1")["duration"])
        self.assertAlmostEqual(g.duration("f1"), 0.1)
        g.set_latency_time(0.25)
        self.assertEqual(g.latency, 3)
        self.assertEqual(g.latency_time, 0.25)
        g.set_latency(1)
        self.assertEqual(g.latency, 1)
        with self.assertRaises(tessel.RangeError):
            g.set_step(float("nan"))
        self.assertEqual(g.unit, "ms")
        h = tessel.Graph(2)
        h.add_block("a", "forward", 1, 0)
        h.add_block("b", "forward", 1, 0)
        h.add_dep("a", "b", latency=3)
        self.assertEqual(h.dep_latency("b", 0), (3, 3.0, True))
        with self.assertRaises(ValueError):
            h.add_dep("b", "a", latency=1, latency_time=1.0)
        self.assertEqual(tessel.pick_step([1.0, 1.5]), 0.5)
        with self.assertRaises(tessel.InvalidError):
            tessel.pick_step([0.0])


class SearchTest(unittest.TestCase):
    """Search and the schedule's figures, entries and exports."""

    @classmethod
    def setUpClass(cls):
        cls.graph = tessel.Graph.preset("mshape", devices=4, memory=6,
                                        infer=False)
        cls.schedule = tessel.search(cls.graph, micro_batches=16,
                                     time_limit=None)

    def test_search_sweep(self):
        g = tessel.Graph.preset("vshape", devices=4, memory=None, infer=False)
        limits = [3, None, 2, 5, 3]
        out = tessel.search_sweep(g, limits, micro_batches=16, work_limit=200)
        self.assertEqual(len(out), 5)
        ms = []
        for limit, s in zip(limits, out):
            self.assertIsInstance(s, tessel.Schedule)
            s.validate()
            self.assertEqual(s.graph.memory_limit(0), limit)
            ms.append(s.makespan)
            one = g.copy()
            one.set_memory_limit(limit)
            single = tessel.search(one, micro_batches=16, work_limit=200)
            self.assertLessEqual(s.makespan, single.makespan)
        # 2 <= 3 (twice) <= 5 <= unlimited
        self.assertGreaterEqual(ms[2], ms[0])
        self.assertEqual(ms[0], ms[4])
        self.assertGreaterEqual(ms[0], ms[3])
        self.assertGreaterEqual(ms[3], ms[1])
        # a time limit caps the whole sweep: one far away changes nothing
        capped = tessel.search_sweep(g, limits, micro_batches=16, work_limit=200,
                                     time_limit=3600)
        self.assertEqual([s.makespan for s in capped], ms)
        # under a limit nothing fits: None there
        out = tessel.search_sweep(g, [0, 4], micro_batches=16, work_limit=50)
        self.assertIsNone(out[0])
        self.assertIsInstance(out[1], tessel.Schedule)
        with self.assertRaises(tessel.InfeasibleError):
            tessel.search_sweep(g, [0], micro_batches=16, work_limit=50)
        # the boundary checks: types and ranges, never a silent change
        for bad in ([], [-2], [1 << 51], list(range(1025))):
            with self.assertRaises(tessel.RangeError):
                tessel.search_sweep(g, bad)
        for bad in ([2.5], ["3"], [True], 3, "34"):
            with self.assertRaises(TypeError):
                tessel.search_sweep(g, bad)
        with self.assertRaises(TypeError):
            tessel.search_sweep(g, [3], work_limt=5)
        with self.assertRaises(TypeError):
            tessel.search_sweep("graph", [3])

    def test_search_sweep_progress_stop(self):
        # a true result of progress on a better schedule ends the whole
        # sweep, as a cancel does: the tightest limit's search keeps its
        # best schedule so far, the looser limits are not searched (no
        # progress again) and keep what it found
        g = tessel.Graph.preset("vshape", devices=4, memory=None, infer=False)
        improved = []

        def stop(report):
            if report.improved:
                improved.append(report.makespan)
                return True
            return False

        out = tessel.search_sweep(g, [None, 3, 2, 4], micro_batches=8,
                                  work_limit=40, progress=stop,
                                  progress_interval=3600)
        self.assertEqual(len(improved), 1)
        self.assertTrue(all(isinstance(s, tessel.Schedule) for s in out))
        self.assertEqual({s.makespan for s in out}, {out[2].makespan})
        self.assertEqual({s.work for s in out}, {out[2].work})
        for s in out:
            s.validate()

    def test_figures(self):
        s = self.schedule
        self.assertEqual(s.period, 6)
        self.assertEqual(s.resource_bound, 6)
        self.assertTrue(s.period_optimal)
        self.assertEqual(s.makespan, 108)
        self.assertEqual(s.lower_bound, 108)
        self.assertTrue(s.makespan_optimal)
        self.assertEqual(s.micro_batches, 16)
        self.assertEqual(s.devices, 4)
        begin, end = s.repetend
        self.assertLessEqual(0, begin)
        self.assertLessEqual(begin, end)
        self.assertGreaterEqual(s.depth, 0)
        self.assertGreaterEqual(s.search_seconds, 0.0)
        for device in range(4):
            self.assertLessEqual(s.peak_memory(device), 6)
        s.validate()

    def test_period_per_micro_batch(self):
        import fractions
        g = tessel.Graph.preset("vshape", devices=4, memory=4)
        s = tessel.search(g, micro_batches=8, work_limit=200)
        k = s.repetend_micro_batches
        self.assertGreaterEqual(k, 1)
        self.assertEqual(s.period_per_micro_batch,
                         fractions.Fraction(s.period, k))
        self.assertIsInstance(s.period_per_micro_batch, fractions.Fraction)

    def test_entries_per_device(self):
        s = self.schedule
        total = 0
        for device in range(s.devices):
            entries = list(s.entries(device=device))
            self.assertTrue(entries)
            for before, after in zip(entries, entries[1:]):
                self.assertLessEqual(before.end, after.start)
            for e in entries:
                self.assertIn(device, e.devices)
                self.assertIn(e.phase, tessel.PHASES)
                self.assertIn(e.kind, tessel.KINDS)
                self.assertTrue(0 <= e.micro_batch < 16)
                self.assertEqual(e.block, self.graph.block_name(e.gid))
                self.assertGreater(e.span, 0)
            # blocks on this device x micro-batches
            on_device = sum(
                1 for gid in range(self.graph.blocks)
                if device in self.graph.block(gid)["devices"])
            self.assertEqual(len(entries), on_device * 16)
            total += len(entries)
        everything = list(s.entries())
        self.assertEqual(len(everything), self.graph.blocks * 16)
        self.assertEqual(len(s), len(everything))
        starts = [e.start for e in everything]
        self.assertEqual(starts, sorted(starts))
        self.assertEqual(max(e.end for e in everything), s.makespan)
        self.assertEqual(
            {e.phase for e in everything},
            {"warmup", "repetend", "cooldown"})
        self.assertGreaterEqual(total, len(everything))

    def test_entries_match_json(self):
        doc = json.loads(self.schedule.to_json())
        from_json = sorted((b["gid"], b["mid"], b["step"], b["phase"])
                           for b in doc["blocks"])
        from_iter = sorted((e.gid, e.micro_batch, e.start, e.phase)
                           for e in self.schedule.entries())
        self.assertEqual(from_json, from_iter)

    def test_fixed_interface(self):
        g = tessel.Graph.from_json(self.graph.to_json())
        s = tessel.search(g, micro_batches=16, time_limit=None)
        self.assertEqual((s.period, s.makespan, s.lower_bound),
                         (6, 108, 108))
        rows = [(e.block, e.micro_batch, e.start, e.span, e.phase)
                for e in s.entries(device=0)]
        self.assertEqual(rows[0][2], 0)
        self.assertTrue(s.to_json().startswith("{"))

    def test_to_json_matches_program(self):
        program = os.environ.get("TESSEL_PROGRAM")
        if not program:
            self.skipTest("TESSEL_PROGRAM is not set")
        out = subprocess.run(
            [program, "search", "--preset", "mshape", "--devices", "4",
             "--memory", "6", "--format", "json"],
            check=True, stdout=subprocess.PIPE).stdout.decode()

        def strip(text):
            return [line for line in text.rstrip("\n").split("\n")
                    if not line.lstrip().startswith('"search_seconds"')]

        self.assertEqual(strip(self.schedule.to_json()), strip(out))

    def test_schedule_json_round_trip(self):
        text = self.schedule.to_json()
        with tessel.Schedule.from_json(text) as s:
            s.validate()
            self.assertEqual(s.to_json(), text)
            self.assertEqual(s.makespan, 108)
            self.assertEqual(s.graph.to_json(), self.graph.to_json())

    def test_exports(self):
        s = self.schedule
        self.assertIn("dev 0", s.to_text())
        self.assertIn("<svg", s.to_svg())
        trace = json.loads(s.to_trace(step_us=10.0))
        self.assertTrue(trace)
        json.loads(s.actions_json())
        v = tessel.search(tessel.Graph.preset("vshape", memory=4))
        csv = v.to_torch_csv()
        self.assertEqual(len(csv.strip().splitlines()), 4)
        self.assertIn("SEND", v.to_torch_csv(comms=True))
        with self.assertRaises(tessel.UnsupportedError):
            s.to_torch_csv()  # mshape has blocks on several devices

    def test_cancel_token_not_copied(self):
        import copy
        import pickle
        token = tessel.CancelToken()
        for make in (copy.copy, copy.deepcopy, pickle.dumps):
            with self.assertRaises(TypeError):
                make(token)

    def test_add_block_all_or_nothing(self):
        # a refused add_block adds nothing
        g = tessel.Graph(2)
        for kw, err in ((dict(devices=[5]), tessel.InvalidError),
                        (dict(devices=[0, 0]), tessel.InvalidError),
                        (dict(devices=[]), tessel.InvalidError),
                        (dict(after=[999]), tessel.NotFoundError)):
            with self.assertRaises(err):
                g.add_block("a", "forward", 1, 1, **kw)
            self.assertEqual(g.blocks, 0)
        g.add_block("a", "forward", 1, 1, devices=[0])
        with self.assertRaises(tessel.ExistsError):
            g.add_block("b", "forward", 1, 1, devices=[1], after=[0, "a"])
        self.assertEqual(g.blocks, 1)
        self.assertEqual(g.add_block("b", "forward", 1, 1, devices=[1],
                                     after=["a"]), 1)

    def test_schedule_graph_read_only(self):
        # the graph a schedule was made for cannot be changed under it
        s = tessel.search(tessel.Graph.preset("mshape", devices=4),
                          micro_batches=4, work_limit=50)
        g = s.graph
        for change in (lambda: g.add_block("zz", "forward", 1, 1, devices=[0]),
                       lambda: g.set_latency(3),
                       lambda: g.set_memory_limit(2),
                       lambda: g.add_dep(0, 1),
                       lambda: g.set_stage(0, 1)):
            with self.assertRaises(ValueError):
                change()
        s.validate()
        self.assertEqual(len(list(s.entries())), 4 * g.blocks)
        c = g.copy()
        c.set_latency(3)
        self.assertEqual(c.blocks, g.blocks)

    def test_streamed_write(self):
        s = self.schedule
        v = tessel.search(tessel.Graph.preset("vshape", memory=4))
        made = {"text": s.to_text, "json": s.to_json, "svg": s.to_svg,
                "actions": s.actions_json,
                "trace": lambda: s.to_trace(step_us=10.0)}
        for fmt, make in made.items():
            step = 10.0 if fmt == "trace" else 0.0
            b = io.BytesIO()
            s.write(b, fmt, step_us=step)
            self.assertEqual(b.getvalue().decode("utf-8"), make(), fmt)
            t = io.StringIO()
            s.write(t, fmt, step_us=step)
            self.assertEqual(t.getvalue(), make(), fmt)
        b = io.BytesIO()
        v.write(b, "torch-comms")
        self.assertEqual(b.getvalue().decode(), v.to_torch_csv(comms=True))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.json")
            s.write(path, "json")
            with open(path, encoding="utf-8") as f:
                self.assertEqual(f.read(), s.to_json())
            s.write(pathlib.Path(path), "svg")
            with open(path, encoding="utf-8") as f:
                self.assertEqual(f.read(), s.to_svg())
            # an export refused leaves the file as it was, no temporary
            with self.assertRaises(tessel.UnsupportedError):
                s.write(path, "torch")
            with open(path, encoding="utf-8") as f:
                self.assertEqual(f.read(), s.to_svg())
            self.assertEqual(os.listdir(d), ["s.json"])
            # closing the schedule from the writer's own file object:
            # ValueError, the schedule intact
            class Closer:
                def write(self, data):
                    s.close()
            with self.assertRaises(ValueError):
                s.write(Closer(), "actions")
            self.assertFalse(s.closed)
            s.validate()
            # changing the schedule from the writer's own file object:
            # ValueError, the schedule and the text as they were; reading
            # it there works
            before = s.to_json()
            entry = next(s.entries(0))
            class Changer:
                def __init__(self, change):
                    self.change, self.read, self.parts = change, 0, []
                def write(self, data):
                    self.read += s.makespan > 0 and len(list(s.entries(0))) > 0
                    self.parts.append(data)
                    self.change()
            for change in (lambda: s.set_step(entry.gid, entry.micro_batch,
                                              entry.start + 1000),
                           lambda: s.set_choice(entry.gid, entry.micro_batch,
                                                "keep")):
                changer = Changer(change)
                with self.assertRaisesRegex(ValueError, "cannot be changed"):
                    s.write(changer, "json")
                self.assertEqual(changer.read, 1)
                self.assertEqual(s.to_json(), before)
            # and once the write has returned, a change is made
            s.set_step(entry.gid, entry.micro_batch, entry.start)
            self.assertEqual(s.to_json(), before)
            # a symbolic link: the file it names replaced, the link kept,
            # the permissions kept
            os.chmod(path, 0o640)
            link = os.path.join(d, "link.json")
            os.symlink("s.json", link)
            s.write(link, "json")
            self.assertTrue(os.path.islink(link))
            self.assertEqual(os.stat(path).st_mode & 0o777, 0o640)
            with open(path, encoding="utf-8") as f:
                self.assertEqual(f.read(), s.to_json())
        # a device is written as it is, never replaced by a file
        if os.access("/dev/full", os.W_OK):
            with self.assertRaises(OSError):
                s.write("/dev/full", "json")
            self.assertFalse(os.path.isfile("/dev/full"))

        class Broken:
            def write(self, data):
                raise OSError(28, "No space left on device")
        with self.assertRaises(OSError):
            s.write(Broken(), "json")
        with self.assertRaises(ValueError):
            s.write(io.BytesIO(), "pdf")
        with self.assertRaises(TypeError):
            s.write(io.BytesIO(), 1)
        with self.assertRaises(ValueError):
            s.write(io.BytesIO(), "json", step_us=5)
        with self.assertRaises(TypeError):
            s.write(io.BytesIO(), "trace", step_us=True)
        with self.assertRaises(TypeError):
            s.write(12, "json")

    def test_write_interrupted_and_drained(self):
        """Ctrl-C while a write runs ends it at the next piece and is
        raised once the C call has returned (never lost in the callback,
        never a piece dropped without a word); the file object runs
        without the schedule's lock, so a thread that drains a pipe and
        reads the schedule meanwhile does not wait for ever; a write to a
        file object ends with its flush (1.8.7: a partial file renamed
        into place, a bogus I/O error, or both threads stuck)."""
        s = tessel.search(tessel.Graph.preset("vshape", devices=8, memory=12),
                          micro_batches=64)
        whole = s.to_svg().encode()

        class Interrupter:
            def __init__(self):
                self.calls = 0
                self.data = b""
            def write(self, data):
                self.calls += 1
                if self.calls == 2:
                    os.kill(os.getpid(), signal.SIGINT)
                self.data += bytes(data)
                return len(data)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            f = Interrupter()
            with self.assertRaises(KeyboardInterrupt):
                s.write(f, "svg")
            self.assertLess(len(f.data), len(whole))
            self.assertTrue(whole.startswith(f.data))
        # a consumer thread that drains the pipe and reads the schedule
        import threading
        r, w = os.pipe()
        got = []
        def consume():
            with os.fdopen(r, "rb") as pipe:
                while True:
                    chunk = pipe.read(65536)
                    if not chunk:
                        break
                    got.append((s.makespan, len(chunk)))
        reader = threading.Thread(target=consume)
        reader.start()
        with os.fdopen(w, "wb") as pipe:
            s.write(pipe, "svg")
        reader.join(120)
        self.assertFalse(reader.is_alive())
        self.assertEqual(sum(n for _, n in got), len(whole))
        self.assertTrue(all(m == s.makespan for m, _ in got))

        class Flushed(io.RawIOBase):
            def __init__(self):
                self.flushed = 0
            def writable(self):
                return True
            def write(self, data):
                return len(data)
            def flush(self):
                self.flushed += 1
        f = Flushed()
        s.write(f, "json")
        self.assertEqual(f.flushed, 1)

    def test_written_reads_back(self):
        """A schedule written reads back, also one whose entries overlap
        (for the validator to say so) after an offload was set and taken
        back (1.8.8 reads the figures back against the entries: the peak
        was then written by the copies' events, read by steps)."""
        g = tessel.Graph(1)
        f = g.add_block("F", "forward", 1, 5, devices=[0])
        x = g.add_block("X", "forward", 1, -3, devices=[0])
        b = g.add_block("B", "backward", 1, -5, devices=[0], after=[f])
        g.set_offload(f, b, 5, 1)
        s = tessel.Schedule.empty(g, 1)
        s.set_step(f, 0, 0)
        s.set_step(x, 0, 0)
        s.set_step(b, 0, 5)
        s.set_choice(f, 0, "offload", 1, 3)
        s.set_choice(f, 0, "keep")
        r = tessel.Schedule.from_json(s.to_json())
        self.assertEqual(r.peak_memory(0), s.peak_memory(0))
        with self.assertRaises(tessel.ViolationError):
            r.validate()

    def test_actions(self):
        s = self.schedule
        actions = list(s.actions(1))
        computes = [a for a in actions if a.kind == "compute"]
        self.assertEqual(len(computes), len(list(s.entries(device=1))))
        self.assertTrue(any(a.kind == "recv" for a in actions))
        for a in actions:
            if a.kind == "compute":
                self.assertIsNone(a.peer)
                self.assertEqual(a.latency, 0)
            else:
                self.assertIsNotNone(a.peer)
                self.assertEqual(a.latency, 0)  # the preset has none

    def test_simulate(self):
        s = self.schedule
        plain = s.simulate()
        self.assertEqual(plain["makespan"], s.makespan)
        self.assertEqual(len(plain["busy"]), 4)
        for d in range(4):
            self.assertAlmostEqual(plain["busy"][d] + plain["idle"][d],
                                   plain["makespan"])
            self.assertEqual(plain["peak_memory"][d], s.peak_memory(d))
        slower = s.simulate(durations={"f0": 3.0}, latency=0.5, jitter=0.1,
                            seed=3)
        self.assertGreater(slower["makespan"], plain["makespan"])
        # one block named twice (its id and its name, a str and bytes):
        # refused, not the later value silently
        for twice in ({0: 3.0, "f0": 1.0}, {"f0": 3.0, b"f0": 1.0}):
            with self.assertRaisesRegex(ValueError, "block 0 twice"):
                s.simulate(durations=twice)
        # beyond a double: the message names the block, not the digits
        with self.assertRaisesRegex(OverflowError, "duration of block 0 .*characters"):
            s.simulate(durations={"f0": 10 ** 400})

    def test_text_subclass_conversions_not_asked(self):
        # JSON text is the str's or bytes' own, whatever a subclass's
        # encode() or __bytes__ answers
        class Text(str):
            def encode(self, *args, **kwargs):
                return b"garbage"

        class Data(bytes):
            def __bytes__(self):
                return b"garbage"
        text = self.graph.to_json()
        self.assertEqual(tessel.Graph.from_json(Text(text)).blocks, self.graph.blocks)
        self.assertEqual(tessel.Graph.from_json(Data(text.encode())).blocks,
                         self.graph.blocks)

    def test_min_memory(self):
        limit, proven = tessel.min_memory(self.graph)
        self.assertEqual(limit, 5)
        self.assertTrue(proven)

    def test_options(self):
        g = tessel.Graph.preset("vshape", devices=4, memory=4)
        s = tessel.search(g, micro_batches=32, time_limit=5, threads=1,
                          fast=True, seed=1)
        self.assertEqual(s.micro_batches, 32)
        with self.assertRaises(tessel.RangeError):
            tessel.search(g, micro_batches=0)

    def test_progress_stops(self):
        g = tessel.Graph.preset("xshape", devices=4, memory=4)
        seen = []
        full = tessel.search(g, progress=lambda p: seen.append(p) or False)
        improved = [p for p in seen if p.improved]
        # one call per improvement: at least the first candidate
        self.assertGreaterEqual(len(improved), 1)
        for p in improved:
            self.assertIsInstance(p, tessel.Progress)
            self.assertIsInstance(p.proven, bool)
            self.assertGreaterEqual(p.makespan, p.lower_bound)
            k = p.repetend_micro_batches or 1
            self.assertEqual(p.period_per_micro_batch * k, p.period)
        # reported before the final compaction, which can only shorten it
        self.assertGreaterEqual(improved[-1].makespan, full.makespan)
        self.assertTrue(0 <= full.proof_work <= full.work, full.proof_work)
        calls = []

        def stop(report):
            calls.append(report)
            return True

        # (no ticks here: one every hour)
        s = tessel.search(g, progress=stop, progress_interval=3600)
        self.assertEqual(len(calls), 1)
        self.assertTrue(calls[0].improved)
        self.assertEqual(s.period, calls[0].period)
        self.assertGreaterEqual(s.period, full.period)

        def boom(report):
            raise KeyError("from callback")

        with self.assertRaises(KeyError):
            tessel.search(g, progress=boom)


class ErrorTest(unittest.TestCase):
    """Errors raise the subclass of their code with the library's text."""

    def test_bad_preset(self):
        with self.assertRaises(tessel.NotFoundError) as ctx:
            tessel.Graph.preset("no-such-shape")
        err = ctx.exception
        self.assertIsInstance(err, tessel.TesselError)
        self.assertEqual(err.code, -4)
        self.assertIn("no-such-shape", err.message)
        self.assertEqual(str(err), err.message)

    def test_infeasible_memory(self):
        with self.assertRaises(tessel.InfeasibleError) as ctx:
            tessel.Graph.preset("vshape", devices=4, memory=0)
        self.assertEqual(ctx.exception.code, -8)
        self.assertIn("memory limit 0", ctx.exception.message)
        g = tessel.Graph.preset("vshape", devices=4, memory=4)
        g.set_memory_limit(0, device=1)
        with self.assertRaises(tessel.InfeasibleError) as ctx:
            tessel.search(g)
        self.assertIn("device 1", ctx.exception.message)

    def test_malformed_json(self):
        with self.assertRaises(tessel.ParseError) as ctx:
            tessel.Graph.from_json('{"devices": 2, "blocks": [')
        self.assertEqual(ctx.exception.code, -7)
        self.assertIn("line 1", ctx.exception.message)
        with self.assertRaises(tessel.ParseError):
            tessel.Schedule.from_json("[]")
        self.assertIsInstance(ctx.exception, ValueError)

    def test_error_classes_match_the_header(self):
        # every error code of tessel.h has its class, named in its
        # docstring, and no class has a code the header does not
        body = re.search(r"typedef enum tessel_error_code \{(.*?)\}",
                         _header_text(), re.S).group(1)
        codes = {int(v): n for n, v in
                 re.findall(r"(TESSEL_E\w*|TESSEL_ERROR)\s*=\s*(-?\d+)", body)}
        classes = tessel.errors._CLASSES
        self.assertEqual(set(classes), set(codes))
        for code, name in codes.items():
            cls = classes[code]
            self.assertEqual(cls.CODE, code)
            self.assertIn("(%s)" % name, cls.__doc__, cls)
            self.assertIs(tessel.errors.error_class(code), cls)

    def test_error_classes(self):
        self.assertIs(tessel.errors.error_class(-9), tessel.TesselTimeout)
        self.assertIs(tessel.errors.error_class(-99), tessel.TesselError)
        with self.assertRaises(tessel.ViolationError):
            tessel.Schedule.empty(tessel.Graph.from_json(SMALL), 2).validate()


def _recompute_placement(recompute=True):
    """4 devices, forwards f0..f3 (span 2, memory 4) and backwards b3..b0
    (span 4, memory -4), every forward may be recomputed (saves 3, extra
    2), memory limit 4: only one activation fits on a device unless
    some are recomputed."""
    blocks = []
    for s in range(4):
        block = {"name": "f%d" % s, "kind": "forward", "span": 2,
                 "memory": 4, "devices": [s]}
        if s:
            block["after"] = ["f%d" % (s - 1)]
        if recompute:
            block["recompute"] = {"backward": "b%d" % s, "saves": 3,
                                  "extra": 2}
        blocks.append(block)
    for s in reversed(range(4)):
        blocks.append({"name": "b%d" % s, "kind": "backward", "span": 4,
                       "memory": -4, "devices": [s],
                       "after": ["f%d" % s] + (["b%d" % (s + 1)]
                                               if s < 3 else [])})
    return {"devices": 4, "memory_limit": 4, "blocks": blocks}


def _one_device_graph():
    """f (span 1, memory 2) then b (span 1, memory -2) on one device with
    memory limit 2, f declaring both alternatives."""
    g = tessel.Graph(1)
    g.add_block("f", "forward", 1, 2, devices=[0])
    g.add_block("b", "backward", 1, -2, devices=[0], after=["f"])
    g.set_memory_limit(2)
    g.set_recompute("f", "b", 2, 1)
    g.set_offload("f", "b", 2, 1)
    return g


class AlternativesTest(unittest.TestCase):
    """Recompute and offload (since 1.6): declared in the graph, chosen
    per micro-batch by the search or by hand."""

    def test_declare_and_read_back(self):
        g = tessel.Graph.from_json(SMALL)
        self.assertIsNone(g.recompute("f0"))
        self.assertIsNone(g.offload(0))
        g.set_recompute("f0", "b0", 1, 2)
        g.set_offload(1, "b1", 1, 3)
        self.assertEqual(g.recompute("f0"), tessel.Recompute(3, 1, 2))
        self.assertEqual(g.recompute(0), (g.find("b0"), 1, 2))
        r = g.recompute("f0")
        self.assertEqual((r.backward, r.saves, r.extra), (3, 1, 2))
        o = g.offload("f1")
        self.assertIsInstance(o, tessel.Offload)
        self.assertEqual((o.backward, o.saves, o.transfer), (2, 1, 3))
        self.assertIsNone(g.offload("f0"))
        self.assertIsNone(g.recompute("f1"))
        self.assertEqual(g.block("f0")["recompute"], r)
        self.assertIsNone(g.block("f0")["offload"])
        g.validate()
        # in the placement JSON, and back
        doc = json.loads(g.to_json())
        self.assertEqual(doc["blocks"][0]["recompute"],
                         {"backward": "b0", "saves": 1, "extra": 2})
        self.assertEqual(doc["blocks"][1]["offload"],
                         {"backward": "b1", "saves": 1, "transfer": 3})
        again = tessel.Graph.from_json(g.to_json())
        self.assertEqual(again.recompute("f0"), r)
        self.assertEqual(again.offload("f1"), o)
        self.assertEqual(g.copy().recompute("f0"), r)
        # redeclared, then removed
        g.set_recompute("f0", 3, 1, 0)
        self.assertEqual(g.recompute("f0").extra, 0)
        g.set_recompute("f0", None)
        g.set_offload("f1", None)
        self.assertIsNone(g.recompute("f0"))
        self.assertIsNone(g.offload("f1"))
        self.assertNotIn("recompute", g.to_json())
        # an expected "none" leaves no error behind
        self.assertEqual(_lib.lib.tessel_error_last_code(), 0)

    def test_declaration_errors(self):
        g = tessel.Graph.from_json(SMALL)
        with self.assertRaises(tessel.NotFoundError):
            g.set_recompute("nosuch", "b0", 1, 1)
        with self.assertRaises(tessel.NotFoundError):
            g.set_recompute("f0", "nosuch", 1, 1)
        with self.assertRaises(tessel.NotFoundError):
            g.set_recompute(9, 3, 1, 1)
        with self.assertRaises(tessel.NotFoundError):
            g.set_recompute("f0", -1, 1, 1)  # None removes, not -1
        with self.assertRaises(tessel.NotFoundError):
            g.recompute(9)
        with self.assertRaises(tessel.NotFoundError):
            g.offload("nosuch")
        with self.assertRaises(tessel.InvalidError):
            g.set_recompute("f0", "f0", 1, 1)  # its own backward
        with self.assertRaises(tessel.InvalidError):
            g.set_recompute("f0", "b1", 1, 1)  # b1 is on device 1
        with self.assertRaises(tessel.RangeError):
            g.set_recompute("f0", "b0", 2, 1)  # saves above its memory 1
        with self.assertRaises(tessel.RangeError):
            g.set_recompute("f0", "b0", 0, 1)
        with self.assertRaises(tessel.RangeError):
            g.set_recompute("f0", "b0", 1, -1)
        with self.assertRaises(tessel.RangeError):
            g.set_offload("f0", "b0", 1, 0)  # a copy takes >= 1 step
        for call in (lambda: g.set_recompute("f0", "b0", 1.0, 1),
                     lambda: g.set_recompute("f0", "b0", True, 1),
                     lambda: g.set_recompute("f0", "b0", 1, "1"),
                     lambda: g.set_recompute("f0", "b0", 1),
                     lambda: g.set_offload("f0", "b0", None, 1),
                     lambda: g.set_recompute("f0", 3.0, 1, 1),
                     lambda: g.set_recompute(None, "b0", 1, 1),
                     lambda: g.recompute(0.0),
                     lambda: g.offload(True)):
            with self.assertRaises(TypeError):
                call()
        with self.assertRaises(OverflowError):
            g.set_recompute("f0", "b0", 2 ** 40, 1)
        with self.assertRaises(ValueError):
            g.set_recompute("f0", None, 1, 1)
        self.assertIsNone(g.recompute("f0"))  # nothing was declared

    def test_search_recomputes_under_tight_memory(self):
        text = json.dumps(_recompute_placement())
        g = tessel.Graph.from_json(text)
        for s in range(4):
            self.assertEqual(g.recompute("f%d" % s),
                             (g.find("b%d" % s), 3, 2))
        with_alt = tessel.search(g, micro_batches=16)
        with_alt.validate()
        entries = list(with_alt.entries())
        chosen = [e for e in entries if e.choice == tessel.Choice.RECOMPUTE]
        self.assertTrue(chosen)
        for e in entries:
            self.assertIsInstance(e.choice, tessel.Choice)
            self.assertIn(e.choice, (tessel.Choice.KEEP,
                                     tessel.Choice.RECOMPUTE))
            self.assertIsNone(e.offload_start)
            self.assertIsNone(e.reload_start)
        for e in chosen:
            self.assertEqual(e.kind, "forward")
            self.assertEqual(e.memory, 4 - 3)
            self.assertEqual(str(e.choice), "recompute")
        # a recomputed forward's backward runs `extra` steps longer
        spans = {(e.gid, e.micro_batch): e.span for e in entries}
        for e in chosen:
            backward = g.recompute(e.gid).backward
            self.assertEqual(spans[(backward, e.micro_batch)], 4 + 2)
        for d in range(4):
            self.assertLessEqual(with_alt.peak_memory(d), 4)
        # every activation kept: one micro-batch at a time
        plain = tessel.search(g, micro_batches=16, alternatives=False)
        plain.validate()
        self.assertTrue(all(e.choice == tessel.Choice.KEEP
                            for e in plain.entries()))
        self.assertLess(with_alt.makespan, plain.makespan)
        self.assertLessEqual(with_alt.makespan, 160)  # about 148
        self.assertGreaterEqual(plain.makespan, 384)
        # the same as a placement that declares nothing
        bare = tessel.Graph.from_json(json.dumps(
            _recompute_placement(recompute=False)))
        self.assertEqual(tessel.search(bare, micro_batches=16).makespan,
                         plain.makespan)
        # the choices in the schedule JSON, kept by a round trip
        doc = json.loads(with_alt.to_json())
        self.assertEqual(sum(b.get("choice") == "recompute"
                             for b in doc["blocks"]), len(chosen))
        with tessel.Schedule.from_json(with_alt.to_json()) as again:
            again.validate()
            self.assertEqual(list(again.entries()), entries)
            self.assertEqual(again.to_json(), with_alt.to_json())
        # the fixed rule: every declared alternative taken
        always = tessel.search(g, micro_batches=16, alternatives="always")
        always.validate()
        self.assertEqual({(e.kind, e.choice) for e in always.entries()},
                         {("forward", tessel.Choice.RECOMPUTE),
                          ("backward", tessel.Choice.KEEP)})
        self.assertLessEqual(with_alt.makespan, always.makespan)
        self.assertEqual(tessel.search(g, micro_batches=16,
                                       alternatives="off").makespan,
                         plain.makespan)
        with self.assertRaises(ValueError):
            tessel.search(g, alternatives="no")
        with self.assertRaises(tessel.RangeError):
            tessel.search(g, alternatives=3)
        with self.assertRaises(TypeError):
            tessel.search(g, alternatives=1.0)

    def test_set_choice_by_hand(self):
        g = _one_device_graph()
        s = tessel.Schedule.empty(g, 2)
        for gid, mid, step in ((0, 0, 0), (0, 1, 1), (1, 0, 2), (1, 1, 4)):
            s.set_step(gid, mid, step)
        with self.assertRaisesRegex(tessel.ViolationError, "memory"):
            s.validate()  # both activations kept: 4 > 2
        s.set_choice("f", 0, tessel.Choice.RECOMPUTE)
        s.validate()
        first = [e for e in s.entries() if e.micro_batch == 0]
        self.assertEqual([(e.block, e.choice, e.span, e.memory)
                          for e in first],
                         [("f", tessel.Choice.RECOMPUTE, 1, 0),
                          ("b", tessel.Choice.KEEP, 2, 0)])
        self.assertEqual(s.makespan, 5)
        # the longer backward counts: b of micro-batch 1 at step 3 overlaps
        s.set_step(1, 1, 3)
        with self.assertRaisesRegex(tessel.ViolationError, "two blocks"):
            s.validate()
        s.set_step(1, 1, 4)
        # back to keep, by name and by number
        s.set_choice(0, 0, "keep")
        self.assertEqual(next(iter(s.entries())).choice, tessel.Choice.KEEP)
        with self.assertRaises(tessel.ViolationError):
            s.validate()
        s.set_choice(0, 0, 1)
        s.validate()
        # JSON round trip keeps the choice
        with tessel.Schedule.from_json(s.to_json()) as again:
            again.validate()
            self.assertEqual(list(again.entries()), list(s.entries()))

    def test_offload_by_hand(self):
        g = _one_device_graph()
        s = tessel.Schedule.empty(g, 2)
        for gid, mid, step in ((0, 0, 0), (0, 1, 2), (1, 1, 3), (1, 0, 5)):
            s.set_step(gid, mid, step)
        with self.assertRaises(tessel.ViolationError):
            s.validate()
        s.set_choice("f", 0, "offload", offload_step=1, reload_step=4)
        s.validate()
        e = next(iter(s.entries()))
        self.assertEqual((e.choice, e.offload_start, e.reload_start),
                         (tessel.Choice.OFFLOAD, 1, 4))
        self.assertIn("offload_start=1", repr(e))
        # the copies in the device's action stream
        copies = [(a.kind, a.block, a.micro_batch, a.step)
                  for a in s.actions(0) if a.kind in ("offload", "reload")]
        self.assertEqual(copies, [("offload", "f", 0, 1),
                                  ("reload", "f", 0, 4)])
        doc = json.loads(s.to_json())
        self.assertEqual([(b["choice"], b["offload"], b["reload"])
                          for b in doc["blocks"] if "choice" in b],
                         [("offload", 1, 4)])
        with tessel.Schedule.from_json(s.to_json()) as again:
            again.validate()
            self.assertEqual(list(again.entries()), list(s.entries()))
        # the reload must end before the backward starts
        s.set_choice("f", 0, "offload", offload_step=1, reload_step=5)
        with self.assertRaisesRegex(tessel.ViolationError, "reload"):
            s.validate()

    def test_set_choice_errors(self):
        g = tessel.Graph.from_json(SMALL)
        g.set_recompute("f0", "b0", 1, 1)
        s = tessel.Schedule.empty(g, 2)
        # undeclared alternatives
        with self.assertRaisesRegex(tessel.InvalidError, "declares no"):
            s.set_choice("f1", 0, tessel.Choice.RECOMPUTE)
        with self.assertRaisesRegex(tessel.InvalidError, "declares no"):
            s.set_choice("f0", 0, "offload", offload_step=1, reload_step=2)
        s.set_choice("f1", 0, "keep")  # always allowed
        # unknown entries
        with self.assertRaises(tessel.NotFoundError):
            s.set_choice("f0", 2, "recompute")
        with self.assertRaises(tessel.NotFoundError):
            s.set_choice(4, 0, "recompute")
        with self.assertRaises(tessel.NotFoundError):
            s.set_choice("nosuch", 0, "recompute")
        # unknown choices and wrong types
        for bad in ("drop", 3, -1):
            with self.assertRaises(ValueError):
                s.set_choice("f0", 0, bad)
        for call in (lambda: s.set_choice("f0", 0, True),
                     lambda: s.set_choice("f0", 0, 1.0),
                     lambda: s.set_choice("f0", 0, None),
                     lambda: s.set_choice("f0", 0.0, "recompute"),
                     lambda: s.set_choice("f0", True, "recompute"),
                     lambda: s.set_choice(0.0, 0, "recompute"),
                     lambda: s.set_choice("f0", 0, "offload"),
                     lambda: s.set_choice("f0", 0, "offload",
                                          offload_step=1.5, reload_step=2)):
            with self.assertRaises(TypeError):
                call()
        with self.assertRaises(ValueError):  # steps for an offload only
            s.set_choice("f0", 0, "recompute", offload_step=1,
                         reload_step=2)
        with self.assertRaises(OverflowError):
            s.set_choice("f0", 2 ** 63, "recompute")
        g.set_offload("f0", "b0", 1, 1)
        s = tessel.Schedule.empty(g, 2)
        with self.assertRaises(tessel.RangeError):
            s.set_choice("f0", 0, "offload", offload_step=-1, reload_step=2)
        with self.assertRaises(tessel.RangeError):
            s.set_choice("f0", 0, "offload", offload_step=1,
                         reload_step=10 ** 15 + 1)
        self.assertTrue(all(e.choice == tessel.Choice.KEEP
                            for e in s.entries()))

    def test_enums(self):
        self.assertEqual(list(tessel.Choice), [0, 1, 2])
        self.assertEqual(tessel.CHOICES, ("keep", "recompute", "offload"))
        for choice in tessel.Choice:
            self.assertEqual(str(choice),
                             _lib.lib.tessel_choice_name(choice).decode())
        self.assertEqual(_lib.lib.tessel_choice_name(7), b"?")
        self.assertEqual(tessel.ACTION_KINDS,
                         ("compute", "send", "recv", "offload", "reload", "wait"))
        header = _header_text()
        for name, value in (("TESSEL_OPT_ALTERNATIVES", 10),
                            ("TESSEL_ENTRY_CHOICE", 8),
                            ("TESSEL_ENTRY_OFFLOAD_START", 9),
                            ("TESSEL_ENTRY_RELOAD_START", 10),
                            ("TESSEL_ACTION_OFFLOAD", 3),
                            ("TESSEL_ACTION_RELOAD", 4),
                            ("TESSEL_ACTION_WAIT", 5),
                            ("TESSEL_CHOICE_KEEP", 0),
                            ("TESSEL_CHOICE_RECOMPUTE", 1),
                            ("TESSEL_CHOICE_OFFLOAD", 2)):
            self.assertRegex(header, r"\b%s = %d\b" % (name, value))
        from tessel.schedule import (_E_CHOICE, _E_OFFLOAD_START,
                                     _E_RELOAD_START, _OPT_ALTERNATIVES)
        self.assertEqual((_OPT_ALTERNATIVES, _E_CHOICE, _E_OFFLOAD_START,
                          _E_RELOAD_START), (10, 8, 9, 10))
        from tessel.schedule import _Options
        self.assertEqual(tessel.ALTERNATIVES, ("off", "search", "always"))
        for value, want in ((True, 1), (False, 0), ("off", 0),
                            ("search", 1), ("always", 2), (2, 2)):
            with _Options(alternatives=value) as options:
                out = ctypes.c_int64()
                tessel.errors.check(_lib.lib.tessel_options_get(
                    ctypes.byref(out), options._h(), _OPT_ALTERNATIVES))
                self.assertEqual(out.value, want)


def parse_header(text):
    """(functions, callbacks, enums, structs) declared in tessel.h.

    functions and callbacks: name -> (return type, [parameter types]),
    each type as C text without the parameter's name ("const char *").
    """
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    enums = set(re.findall(
        r"typedef\s+enum\s+\w+\s*\{[^}]*\}\s*(\w+)\s*;", text))
    structs = set(re.findall(r"typedef\s+struct\s+(\w+)\s+\1\s*;", text))

    def params(body):
        body = " ".join(body.split())
        if body in ("void", ""):
            return []
        out = []
        for param in body.split(","):
            tokens = param.replace("*", " * ").split()
            if len(tokens) > 1 and re.match(r"^[A-Za-z_]\w*$", tokens[-1]):
                tokens = tokens[:-1]  # the parameter's name
            out.append(" ".join(tokens))
        return out

    callbacks = {
        name: (" ".join(ret.split()), params(body))
        for ret, name, body in re.findall(
            r"typedef\s+([\w\s\*]+?)\s*\(\s*\*\s*(\w+)\s*\)\s*\(([^)]*)\)"
            r"\s*;", text)}
    functions = {
        name: (" ".join(ret.split()), params(body))
        for ret, name, body in re.findall(
            r"TESSEL_API\s+([\w\s\*]+?)\s*\b(tessel_\w+)\s*\(([^)]*)\)\s*;",
            text)}
    return functions, callbacks, enums, structs


_SCALARS = {"int": ctypes.c_int, "int64_t": ctypes.c_int64,
            "uint64_t": ctypes.c_uint64, "size_t": ctypes.c_size_t,
            "double": ctypes.c_double}


def ctype_for(ctext, enums, structs):
    """The ctypes type that must stand for the C type ``ctext``."""
    tokens = ctext.split()
    const = "const" in tokens
    tokens = [t for t in tokens if t != "const"]
    stars = tokens.count("*")
    base = [t for t in tokens if t != "*"]
    if len(base) != 1:
        raise ValueError("cannot read the C type %r" % ctext)
    base = base[0]
    if base in enums:
        base = "int"  # enumerations are int-sized
    if stars == 0:
        if base == "void":
            return None
        if base in _SCALARS:
            return _SCALARS[base]
        if base == "tessel_progress_cb":
            return _lib.PROGRESS_CB
        if base == "tessel_entry_cb":
            return _lib.ENTRY_CB
        if base == "tessel_progress_fn":
            return _lib.PROGRESS_FN
        if base == "tessel_write_fn":
            return _lib.WRITE_FN
        if base == "tessel_explore_fn":
            return _lib.EXPLORE_FN
    elif base in structs:
        # each opaque type has its own pointer type: a tessel_schedule *
        # where a tessel_graph * is declared does not pass
        single = getattr(_lib, base[len("tessel_"):] + "_p")
        if stars == 1:
            return single
        if stars == 2:
            return ctypes.POINTER(single)
    elif base == "void" and stars == 1:
        return ctypes.c_void_p
    elif base == "char" and stars == 1:
        return ctypes.c_char_p
    elif stars == 2 and base in ("char", "double") and not const:
        # new buffer: the pointer must survive for tessel_free
        return ctypes.POINTER(ctypes.c_void_p)
    elif base == "char" and stars == 2:
        return ctypes.POINTER(ctypes.c_char_p)  # borrowed text
    elif stars == 1 and base in _SCALARS:
        return ctypes.POINTER(_SCALARS[base])
    raise ValueError("no ctypes type for the C type %r" % ctext)


def prototype_mismatches(table, header_text):
    """Where ``table`` (name -> (restype, argtypes)) differs from the
    declarations of the header, one line per difference."""
    functions, _, enums, structs = parse_header(header_text)
    out = []
    for name, (ret, params) in sorted(functions.items()):
        if name not in table:
            out.append("%s: not in the table" % name)
            continue
        restype, argtypes = table[name]
        want = ctype_for(ret, enums, structs)
        if restype is not want:
            out.append("%s: returns %s, the header says %s (%s)"
                       % (name, restype, want, ret))
        if len(argtypes) != len(params):
            out.append("%s: %d arguments, the header has %d"
                       % (name, len(argtypes), len(params)))
            continue
        for index, (have, ctext) in enumerate(zip(argtypes, params)):
            want = ctype_for(ctext, enums, structs)
            if have is not want:
                out.append("%s: argument %d is %s, the header says %s (%s)"
                           % (name, index + 1, have.__name__,
                              want.__name__, ctext))
    for name in sorted(set(table) - set(functions)):
        out.append("%s: not declared in the header" % name)
    return out


def _header_text():
    with open(HEADER) as header:
        return header.read()


@unittest.skipUnless(os.path.exists(HEADER), "include/tessel.h not found")
class PrototypeTest(unittest.TestCase):
    """Every ctypes prototype matches its C declaration in tessel.h."""

    def test_table_matches_header(self):
        self.assertEqual(prototype_mismatches(_lib.PROTOTYPES,
                                              _header_text()), [])

    def test_loaded_functions_match_header(self):
        loaded = {}
        for name in _lib.PROTOTYPES:
            func = getattr(_lib.lib, name)
            loaded[name] = (func.restype, list(func.argtypes))
        self.assertEqual(prototype_mismatches(loaded, _header_text()), [])

    def test_callbacks_match_header(self):
        _, callbacks, enums, structs = parse_header(_header_text())
        self.assertEqual(set(callbacks),
                         {"tessel_progress_cb", "tessel_entry_cb",
                          "tessel_progress_fn", "tessel_write_fn",
                          "tessel_explore_fn"})
        for name, ret, cb in (("tessel_progress_cb", None, _lib.PROGRESS_CB),
                              ("tessel_entry_cb", None, _lib.ENTRY_CB),
                              ("tessel_progress_fn", None, _lib.PROGRESS_FN),
                              ("tessel_write_fn", None, _lib.WRITE_FN),
                              ("tessel_explore_fn", None, _lib.EXPLORE_FN)):
            ret, params = callbacks[name]
            self.assertIs(cb._restype_, ctype_for(ret, enums, structs), name)
            self.assertEqual(
                list(cb._argtypes_),
                [ctype_for(p, enums, structs) for p in params], name)

    def test_checker_finds_wrong_types(self):
        # the check itself: an int where the header has int64_t, a graph
        # where it has a schedule, a missing argument
        text = _header_text()
        table = dict(_lib.PROTOTYPES)
        restype, argtypes = table["tessel_graph_lower_bound"]
        self.assertIs(argtypes[2], ctypes.c_int64)
        table["tessel_graph_lower_bound"] = (
            restype, argtypes[:2] + [ctypes.c_int])
        restype, argtypes = table["tessel_schedule_validate"]
        table["tessel_schedule_validate"] = (restype, [_lib.graph_p])
        restype, argtypes = table["tessel_iter_new"]
        table["tessel_iter_new"] = (restype, argtypes[:2])
        found = prototype_mismatches(table, text)
        self.assertEqual(len(found), 3, found)
        self.assertIn("tessel_graph_lower_bound: argument 3 is c_int, the "
                      "header says c_long (int64_t)", found)
        self.assertTrue(found[1].startswith("tessel_iter_new: 2 arguments"))
        self.assertTrue(found[2].startswith("tessel_schedule_validate: "
                                            "argument 1 is tessel_graph_p"))

    def test_table_covers_header(self):
        functions, _, _, _ = parse_header(_header_text())
        declared = set(re.findall(r"TESSEL_API[^;]*?\b(tessel_\w+)\s*\(",
                                  _header_text()))
        self.assertTrue(declared)
        self.assertEqual(set(functions), declared)
        self.assertEqual(declared, set(_lib.PROTOTYPES))

    def test_handles_are_typed(self):
        # ctypes itself refuses what is no handle of the declared type
        out = ctypes.c_int64()
        for bad in ("vshape", 12345, b"x"):
            with self.assertRaises(ctypes.ArgumentError):
                _lib.lib.tessel_graph_get(ctypes.byref(out), bad, 0)
        s = tessel.search(tessel.Graph.preset("vshape", devices=2),
                          micro_batches=2)
        with self.assertRaises(ctypes.ArgumentError):
            _lib.lib.tessel_graph_get(ctypes.byref(out), s, 0)


class LifetimeTest(unittest.TestCase):
    """What reads from an object keeps it alive; close() makes it and its
    dependents raise ValueError."""

    def setUp(self):
        self.graph = tessel.Graph.preset("vshape", devices=2, memory=4)

    def test_iterator_after_with(self):
        with tessel.search(self.graph, micro_batches=8) as s:
            it = s.entries(0)
            first = next(it)
            self.assertEqual(first.start, 0)
        with self.assertRaisesRegex(ValueError, "Schedule .* is closed"):
            list(it)
        with self.assertRaisesRegex(ValueError, "closed"):
            next(it)

    def test_graph_of_closed_schedule(self):
        s = tessel.search(self.graph, micro_batches=4)
        sg = s.graph
        self.assertEqual(sg.block(0)["name"], self.graph.block_name(0))
        copy = sg.copy()
        s.close()
        self.assertTrue(sg.closed)
        with self.assertRaisesRegex(ValueError, "Schedule .* is closed"):
            sg.block(0)
        with self.assertRaisesRegex(ValueError, "closed"):
            s.actions(0)
        with self.assertRaisesRegex(ValueError, "closed"):
            s.entries()
        with self.assertRaisesRegex(ValueError, "closed"):
            s.period
        self.assertEqual(copy.blocks, self.graph.blocks)  # independent

    def test_action_iterator_after_close(self):
        s = tessel.search(self.graph, micro_batches=4)
        it = s.actions(1)
        self.assertIsInstance(next(it), tessel.Action)
        s.close()
        with self.assertRaisesRegex(ValueError, "closed"):
            next(it)

    def test_dependents_keep_owner_alive(self):
        it = tessel.search(self.graph, micro_batches=4).entries(0)
        sg = tessel.search(self.graph, micro_batches=4).graph
        actions = tessel.search(self.graph, micro_batches=4).actions(0)
        gc.collect()
        self.assertEqual(len(list(it)), 8)
        self.assertEqual(sg.blocks, 4)
        self.assertTrue(list(actions))

    def test_exhausted_iterator(self):
        s = tessel.search(self.graph, micro_batches=2)
        it = s.entries()
        self.assertEqual(len(list(it)), len(s))
        self.assertEqual(list(it), [])  # stays exhausted
        s.close()
        with self.assertRaisesRegex(ValueError, "closed"):
            next(it)

    def test_entries_outlive_schedule(self):
        s = tessel.search(self.graph, micro_batches=2)
        entries = list(s.entries())
        s.close()
        self.assertEqual(entries[0].start, 0)  # copied values


class ArgumentTest(unittest.TestCase):
    """Types and ranges are checked before C sees them."""

    def test_wrong_types(self):
        g = tessel.Graph(2)
        for call in (lambda: tessel.search("vshape"),
                     lambda: tessel.search(12345),
                     lambda: tessel.search(tessel.search(
                         tessel.Graph.preset("vshape", devices=2),
                         micro_batches=2)),
                     lambda: g.add_block(None, "forward", 1, 1),
                     lambda: g.add_block("a", "forward", 1.0, 1),
                     lambda: g.add_block("a", "forward", "1", 1),
                     lambda: tessel.Graph.from_json({"devices": 2}),
                     lambda: tessel.Schedule.from_json([]),
                     lambda: tessel.Graph("2"),
                     lambda: g.set_step("0.5"),
                     lambda: tessel.min_memory(None),
                     lambda: tessel.Schedule(5)):
            with self.assertRaises(TypeError):
                call()

    def test_no_truncation(self):
        g = tessel.Graph(2)
        for call in (lambda: g.add_block("m", "forward", 1, 2 ** 40),
                     lambda: g.add_block("m", "forward", 1, 2 ** 32 + 5),
                     lambda: g.add_block("m", "forward", 2 ** 32 + 3, 1),
                     lambda: tessel.Graph(2 ** 32 + 2),
                     lambda: g.set_memory_limit(2 ** 63),
                     lambda: tessel.search(g, micro_batches=2 ** 64)):
            with self.assertRaises(OverflowError):
                call()
        self.assertEqual(g.blocks, 0)
        s = tessel.search(tessel.Graph.preset("vshape", devices=2),
                          micro_batches=2)
        with self.assertRaises(OverflowError):
            s.entries(device=2 ** 40)
        with self.assertRaises(tessel.NotFoundError):
            s.entries(device=7)
        # within the C type but beyond the library's limits
        with self.assertRaises(tessel.RangeError):
            g.add_block("m", "forward", 1, 2 * 10 ** 9)

    def test_text(self):
        g = tessel.Graph(2)
        with self.assertRaises(ValueError):
            g.add_block("a\0b", "forward", 1, 1)
        self.assertEqual(g.add_block(b"bytes", "forward", 1, 1), 0)
        self.assertEqual(g.block_name(0), "bytes")
        with self.assertRaises(ValueError):
            g.add_block("k", "sideways", 1, 1)
        with self.assertRaises(ValueError):
            g.add_block("k", 3, 1, 1)

    def test_time_limit(self):
        from tessel._util import seconds_to_ms
        self.assertEqual(seconds_to_ms(None, "t"), 0)
        self.assertEqual(seconds_to_ms(0, "t"), 0)
        self.assertEqual(seconds_to_ms(0.0004, "t"), 1)  # never "none"
        self.assertEqual(seconds_to_ms(1.5, "t"), 1500)
        self.assertEqual(seconds_to_ms(2, "t"), 2000)
        for bad in (-5, -0.001, float("nan"), float("inf")):
            with self.assertRaises(ValueError):
                seconds_to_ms(bad, "t")
        for bad in ("1", True, [1]):
            with self.assertRaises(TypeError):
                seconds_to_ms(bad, "t")
        from tessel.schedule import _OPT_TIME_LIMIT_MS, _Options
        for seconds, millis in ((None, 0), (0, 0), (0.25, 250)):
            with _Options(time_limit=seconds) as options:
                out = ctypes.c_int64()
                tessel.errors.check(_lib.lib.tessel_options_get(
                    ctypes.byref(out), options._h(), _OPT_TIME_LIMIT_MS))
                self.assertEqual(out.value, millis)
        g = tessel.Graph.preset("vshape", devices=2)
        with self.assertRaises(ValueError):
            tessel.search(g, time_limit=-5)
        with self.assertRaises(tessel.RangeError):  # beyond a day
            tessel.search(g, time_limit=10 ** 6)

    def test_flags(self):
        g = tessel.Graph.preset("vshape", devices=2)
        with self.assertRaises(TypeError):
            tessel.search(g, fast="no")
        with self.assertRaises(ValueError):
            tessel.search(g, fast=2)
        with self.assertRaises(TypeError):
            tessel.Graph.preset("vshape", infer="yes")


# a search of minutes on any machine: a work budget far beyond what the
# tests wait for
SLOW = tessel.Graph.preset("nnshape", devices=8, memory=6)
LONG = {"micro_batches": 64, "work_limit": 100000000}


class ControlTest(unittest.TestCase):
    """Cancel, Ctrl-C and progress ticks."""

    def test_cancel_from_another_thread(self):
        token = tessel.CancelToken()
        import threading
        timer = threading.Timer(0.5, token.cancel)
        start = time.monotonic()
        timer.start()
        try:
            s = tessel.search(SLOW, cancel=token, **LONG)
            s.validate()  # the best schedule so far
        except tessel.CancelledError:
            pass
        elapsed = time.monotonic() - start
        self.assertTrue(token.cancelled)
        self.assertLess(elapsed, 3.0)
        # stays cancelled until reset
        with self.assertRaises(tessel.CancelledError):
            tessel.search(SLOW, cancel=token)
        token.reset()
        tessel.search(tessel.Graph.preset("vshape", devices=2), cancel=token)

    def test_progress_ticks(self):
        calls = []
        start = time.monotonic()
        s = tessel.search(SLOW, time_limit=2.5, **LONG,
                          progress=lambda p: calls.append(
                              (time.monotonic(), p)) and False)
        end = time.monotonic()
        self.assertTrue(any(p.improved for _, p in calls))
        self.assertTrue(any(not p.improved for _, p in calls))
        times = [start] + [t for t, _ in calls] + [end]
        gaps = [b - a for a, b in zip(times, times[1:])]
        self.assertLess(max(gaps), 1.0, gaps)
        for _, p in calls:
            if not p.improved and p.period is not None:
                self.assertGreaterEqual(p.period, s.period)
        elapsed = [p.elapsed for _, p in calls]
        self.assertEqual(elapsed, sorted(elapsed))

    def test_stop_from_a_tick(self):
        ticks = []

        def progress(p):
            if not p.improved:
                ticks.append(p)
                return True
            return False

        start = time.monotonic()
        try:
            tessel.search(SLOW, progress=progress, progress_interval=0.3, **LONG)
        except tessel.CancelledError:
            pass
        self.assertLess(time.monotonic() - start, 3.0)
        self.assertEqual(len(ticks), 1)
        with self.assertRaises(ValueError):
            tessel.search(SLOW, progress=print, progress_interval=0)

    def test_ctrl_c(self):
        code = r"""
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
import tessel
g = tessel.Graph.preset("nnshape", devices=8, memory=6)
print("searching", flush=True)
try:
    tessel.search(g, micro_batches=64, work_limit=100000000)
    print("finished")
except KeyboardInterrupt as stop:
    print("interrupted %.6f" % time.time(), flush=True)
    # the best schedule so far comes with it
    stop.schedule.validate()
    print("best", stop.schedule.micro_batches)
s = tessel.search(tessel.Graph.preset("vshape", devices=2))
print("then", s.makespan)
"""
        proc = subprocess.Popen([sys.executable, "-c", code],
                                stdout=subprocess.PIPE, env=os.environ)
        self.assertEqual(proc.stdout.readline().strip(), b"searching")
        time.sleep(1.5)
        sent = time.time()
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0)
        lines = out.decode().split("\n")
        self.assertTrue(lines[0].startswith("interrupted "), lines)
        self.assertLess(float(lines[0].split()[1]) - sent, 1.0)
        self.assertEqual(lines[1], "best 64")
        self.assertTrue(lines[2].startswith("then "), lines)

    def test_interrupt_keeps_the_best(self):
        # a KeyboardInterrupt (from Ctrl-C or the progress callback) stops
        # the search and carries its best schedule so far; the sweep's
        # carries its list, the exploration's its candidates
        def interrupt(report):
            if report.improved:
                raise KeyboardInterrupt
        with self.assertRaises(KeyboardInterrupt) as stop:
            tessel.search(SLOW, progress=interrupt, **LONG)
        stop.exception.schedule.validate()
        self.assertEqual(stop.exception.schedule.micro_batches, 64)
        with self.assertRaises(KeyboardInterrupt) as stop:
            tessel.search_sweep(SLOW, [6, None], progress=interrupt, **LONG)
        found = stop.exception.schedules
        self.assertEqual(len(found), 2)
        self.assertIsNotNone(found[0])
        for s in found:
            if s is not None:
                s.validate()

        def after_first(family, time, reason, done, total):
            raise KeyboardInterrupt
        with self.assertRaises(KeyboardInterrupt) as stop:
            tessel.explore(_SMALL_MODEL, fast=True, threads=1,
                           progress=after_first)
        done = [c for c in stop.exception.candidates if c.time is not None]
        self.assertGreaterEqual(len(done), 1)
        done[0].schedule.validate()

    def test_ctrl_c_burst(self):
        # Ctrl-C again and again while a search (and an exploration) runs:
        # a KeyboardInterrupt once the call ended, never a crash (the C
        # objects the call uses are not freed under it)
        code = r"""
import os, signal, sys, threading, time
signal.signal(signal.SIGINT, signal.default_int_handler)
import tessel
def burst():
    time.sleep(0.5)
    for _ in range(300):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.002)
threading.Thread(target=burst, daemon=True).start()
try:
    tessel.search(tessel.Graph.preset("nnshape", devices=8, memory=4),
                  micro_batches=16, threads=1, work_limit=0, time_limit=20)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""
        interrupted = 0
        for _ in range(3):
            proc = subprocess.run([sys.executable, "-c", code], env=os.environ,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  timeout=60)
            # the burst may also end the program after the search, even
            # inside its except clause: exit 0, or by the KeyboardInterrupt
            # (1, or SIGINT); never a signal of a crash
            self.assertIn(proc.returncode, (0, 1, 130, -signal.SIGINT),
                          proc.stderr.decode()[-2000:])
            self.assertNotIn(b"Fatal Python error", proc.stderr)
            interrupted += (proc.stdout.startswith(b"interrupted") or
                            b"KeyboardInterrupt" in proc.stderr)
        self.assertGreater(interrupted, 0)


class ErrorClassTest(unittest.TestCase):
    """The exceptions also derive from the matching builtins."""

    def test_builtins(self):
        for cls, builtin in ((tessel.TesselTimeout, TimeoutError),
                             (tessel.TesselIOError, OSError),
                             (tessel.TesselFileNotFoundError,
                              FileNotFoundError),
                             (tessel.InvalidError, ValueError),
                             (tessel.RangeError, ValueError),
                             (tessel.ParseError, ValueError),
                             (tessel.NotFoundError, LookupError),
                             (tessel.OutOfMemoryError, MemoryError),
                             (tessel.UnsupportedError, NotImplementedError),
                             (tessel.SolverError, RuntimeError),
                             (tessel.InternalError, RuntimeError)):
            self.assertTrue(issubclass(cls, builtin), cls)
            self.assertTrue(issubclass(cls, tessel.TesselError), cls)

    def test_files(self):
        import tempfile
        with self.assertRaises(FileNotFoundError) as ctx:
            tessel.Graph.from_file("/nonexistent/placement.json")
        self.assertIsInstance(ctx.exception, tessel.TesselIOError)
        self.assertEqual(ctx.exception.code, -12)
        with tempfile.TemporaryDirectory() as directory:
            with self.assertRaises(IsADirectoryError):
                tessel.Schedule.from_file(directory)
        import pathlib
        with self.assertRaises(FileNotFoundError):
            tessel.Graph.from_file(pathlib.Path("/nonexistent/x.json"))
        with self.assertRaises(TypeError):
            tessel.Graph.from_file(None)

    def test_timeout_is_timeout_error(self):
        try:
            tessel.min_memory(SLOW, time_limit=0.001)
        except TimeoutError as exc:
            self.assertIsInstance(exc, tessel.TesselTimeout)


class PackagingTest(unittest.TestCase):
    """pyproject.toml, type hints, the configured library."""

    ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        os.pardir)

    def test_py_typed(self):
        package = os.path.dirname(tessel.__file__)
        self.assertTrue(os.path.exists(os.path.join(package, "py.typed")))

    def test_pyproject_version(self):
        path = os.path.join(self.ROOT, "pyproject.toml")
        if not os.path.exists(path) or not os.path.exists(HEADER):
            self.skipTest("not in the source tree")
        import tomllib
        with open(path, "rb") as f:
            project = tomllib.load(f)["project"]
        with open(HEADER) as header:
            version = re.search(r'TESSEL_VERSION_STRING "([^"]+)"',
                                header.read()).group(1)
        self.assertEqual(project["version"], version)
        self.assertEqual(project["name"], "tessel")

    def test_annotations(self):
        import typing
        hints = typing.get_type_hints(tessel.search)
        self.assertIn("graph", hints)
        self.assertIn("return", hints)
        self.assertTrue(typing.get_type_hints(tessel.Graph.add_block))


class LeakTest(unittest.TestCase):
    """No memory growth over 1,000 searches."""

    def test_no_leak(self):
        g = tessel.Graph.preset("vshape", devices=4, memory=4)

        def once():
            s = tessel.search(g, fast=True)
            entries = list(s.entries(device=0))
            s.to_json()
            s.close() if len(entries) % 2 else None
            del s

        for _ in range(100):
            once()
        gc.collect()
        before = resident_bytes()
        for _ in range(1000):
            once()
        gc.collect()
        grown = resident_bytes() - before
        self.assertLess(grown, 3 * 1024 * 1024,
                        "resident memory grew by %d bytes" % grown)


_SMALL_MODEL = {
    "unit": "ms", "memory_unit": "GiB", "devices": 2, "memory_per_device": 10,
    "micro_batches": 4, "transfer": 0.1,
    "layers": [{"name": n, "forward": 1, "backward": 2, "weight": 1,
                "activation": 1, "parameters": 1} for n in "abcd"],
}


class ExploreTest(unittest.TestCase):
    """tessel.Model and tessel.explore."""

    def test_model(self):
        m = tessel.Model.from_json(_SMALL_MODEL)
        self.assertEqual((m.devices, m.layers, m.micro_batches, m.inference),
                         (2, 4, 4, False))
        self.assertEqual((m.unit, m.memory_unit), ("ms", "GiB"))
        with self.assertRaises(tessel.ParseError):
            tessel.Model.from_json('{"devices": 2}')
        with self.assertRaises(tessel.RangeError):
            tessel.Model.from_json(dict(_SMALL_MODEL, devices=1))
        with self.assertRaises(FileNotFoundError):
            tessel.Model.from_file("/nonexistent/model.json")
        with self.assertRaises(TypeError):
            tessel.explore(42)

    def test_explore(self):
        seen = []
        cs = tessel.explore(_SMALL_MODEL, fast=True, threads=2,
                            progress=lambda *a: seen.append(a))
        self.assertTrue(seen)
        ranked = [c for c in cs if c.time is not None]
        self.assertTrue(ranked)
        self.assertEqual([c.time for c in ranked],
                         sorted(c.time for c in ranked))
        best = ranked[0]
        self.assertEqual(best.rank, 1)
        best.schedule.validate()
        self.assertEqual(best.placement.devices, 2)
        self.assertEqual(len(best.device_memory), 2)
        self.assertLessEqual(best.peak_memory, 10 + 1e-9)
        one = [c for c in cs if c.family == "1f1b"][0]
        self.assertAlmostEqual(one.speedup_1f1b, 1.0)
        for c in cs:
            if c.time is None:
                self.assertTrue(c.reason)
        # a budget: the same result again
        a = tessel.explore(_SMALL_MODEL, work_limit=400, threads=1)
        b = tessel.explore(_SMALL_MODEL, work_limit=400, threads=2)
        self.assertEqual([(c.family, c.time) for c in a],
                         [(c.family, c.time) for c in b])

    def test_published(self):
        names = [n for n, _ in tessel.published_families()]
        self.assertIn("zb-v", names)
        s = tessel.published("1f1b", 4, 8, 1, 2)
        s.validate()
        g = s.graph
        again = tessel.published_on(g.copy(), "1f1b", 8)
        self.assertEqual(again.makespan, s.makespan)
        better = tessel.search(g.copy(), micro_batches=8, fast=True)
        self.assertLessEqual(better.makespan, s.makespan)
        with self.assertRaises(tessel.NotFoundError):
            tessel.published("nosuch", 4, 8, 1, 2)
        with self.assertRaises(tessel.InvalidError):
            tessel.published_on(tessel.Graph.preset("mshape"), "1f1b", 8)
        with self.assertRaises(TypeError):
            tessel.published_on("1f1b", "1f1b", 8)

    def test_stop(self):
        cs = tessel.explore(_SMALL_MODEL, fast=True, threads=1,
                            progress=lambda f, t, r, done, total: done >= 1)
        # the callback runs on this thread after the fact: at least the
        # first is done, those started after the stop are not searched
        self.assertGreaterEqual(sum(c.time is not None for c in cs), 1)
        token = tessel.CancelToken()
        token.cancel()
        with self.assertRaises(tessel.CancelledError):
            tessel.explore(_SMALL_MODEL, cancel=token)


if __name__ == "__main__":
    unittest.main(verbosity=2)
