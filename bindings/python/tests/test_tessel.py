#!/usr/bin/env python3
"""Tests of the tessel Python bindings (standard library unittest only).

Environment: TESSEL_LIBRARY (path of libtessel.so.1), PYTHONPATH with
bindings/python, and TESSEL_PROGRAM (the tessel program; the comparison
with its output is skipped when unset).
"""

import gc
import json
import os
import re
import subprocess
import sys
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


def _header_prototype(name):
    """The declaration of ``name`` in include/tessel.h ("" if unknown)."""
    if not os.path.exists(HEADER):
        return ""
    with open(HEADER) as header:
        match = re.search(r"TESSEL_API[^;]*?\b%s\s*\([^;]*;" % name,
                          header.read())
    return match.group(0) if match else ""


class GraphTest(unittest.TestCase):
    """Graphs: presets, JSON, building by hand."""

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
        infer = tessel.Graph.preset("vshape", devices=8, infer=True)
        self.assertEqual(infer.devices, 8)
        self.assertIsNone(infer.memory_limit(0))
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
        with self.assertRaises(tessel.InvalidError):
            g.blocks  # closed: passed as NULL
        g.close()  # twice is fine

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
        g.add_dep(1, 0)
        with self.assertRaises(tessel.CycleError):
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
        full = tessel.search(g, progress=lambda *a: seen.append(a) or False)
        # one call per improvement: at least the first candidate
        self.assertGreaterEqual(len(seen), 1)
        for period, makespan, lower_bound, proven in seen:
            self.assertIsInstance(proven, bool)
            self.assertGreaterEqual(makespan, lower_bound)
        # reported before the final compaction, which can only shorten it
        self.assertGreaterEqual(seen[-1][1], full.makespan)
        calls = []

        def stop(*args):
            calls.append(args)
            return True

        s = tessel.search(g, progress=stop)
        self.assertEqual(len(calls), 1)
        self.assertEqual(s.period, calls[0][0])
        self.assertGreaterEqual(s.period, full.period)

        def boom(*args):
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

    def test_error_classes(self):
        self.assertIs(tessel.errors.error_class(-9), tessel.TesselTimeout)
        self.assertIs(tessel.errors.error_class(-99), tessel.TesselError)
        with self.assertRaises(tessel.ViolationError):
            tessel.Schedule.empty(tessel.Graph.from_json(SMALL), 2).validate()


class PrototypeTest(unittest.TestCase):
    """Every ctypes prototype declares argtypes and restype."""

    def test_table(self):
        self.assertTrue(_lib.PROTOTYPES)
        for name, (restype, argtypes) in _lib.PROTOTYPES.items():
            func = getattr(_lib.lib, name)
            self.assertIsInstance(argtypes, list, name)
            self.assertIsNotNone(func.argtypes, name)
            self.assertEqual(tuple(func.argtypes), tuple(argtypes), name)
            self.assertIs(func.restype, restype, name)
            if re.search(r"(?<!const )\b(char|double) \*\*out",
                         _header_prototype(name)):
                # new buffer: the pointer must survive for tessel_free
                self.assertIs(argtypes[0], _lib.c_void_pp, name)

    def test_table_covers_header(self):
        if not os.path.exists(HEADER):
            self.skipTest("include/tessel.h not found")
        with open(HEADER) as header:
            text = header.read()
        declared = set(re.findall(r"TESSEL_API[^;]*?\b(tessel_\w+)\s*\(",
                                  text))
        self.assertTrue(declared)
        self.assertEqual(declared, set(_lib.PROTOTYPES))


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


if __name__ == "__main__":
    unittest.main(verbosity=2)
