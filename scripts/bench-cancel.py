#!/usr/bin/env python3
"""How fast a cancel stops a search on large placements.

Usage: python3 scripts/bench-cancel.py [--sizes 100000] [--devices 16,256,4096]
           [--phases list,heuristic,groups,compaction,restarts] [--fast]

For each placement (the "layered" family of scripts/bench-large.py, the
same seed) and each phase named, a search (default budget, or --fast) is
started through the Python bindings with a progress callback that asks to
stop once that phase has run for a quarter of a second (on the first
progress call at or after that moment; calls come at least every 0.1 s).
The latency is the time from that request to the return of
tessel.search with the best schedule so far. One row per search:
  blocks devices phase cancel_at_s latency_s makespan
A phase the search never reached (it ended first) prints "-". The
libtessel used is the one the bindings find (TESSEL_LIBRARY, or the
package's own search).
"""
import argparse
import importlib.util
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bindings", "python"))
import tessel  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "bench_large", os.path.join(HERE, "bench-large.py"))
bench_large = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_large)


def cancel_latency(graph, phase, fast):
    state = {"since": None, "asked": None}

    def progress(p):
        now = time.monotonic()
        if p.phase == phase and state["since"] is None:
            state["since"] = now
        if state["since"] is not None and now - state["since"] >= 0.25:
            state["asked"] = now
            return True
        return False

    start = time.monotonic()
    s = tessel.search(graph, micro_batches=16, fast=fast, progress=progress,
                      progress_interval=0.1)
    end = time.monotonic()
    if state["asked"] is None:
        return None, None, s.makespan
    return state["asked"] - start, end - state["asked"], s.makespan


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000")
    ap.add_argument("--devices", default="16,256,4096")
    ap.add_argument("--phases",
                    default="list,heuristic,groups,compaction,restarts")
    ap.add_argument("--fast", action="store_true")
    a = ap.parse_args()
    print("# blocks devices phase cancel_at_s latency_s makespan")
    worst = 0.0
    for n in [int(x) for x in a.sizes.split(",")]:
        for d in [int(x) for x in a.devices.split(",")]:
            graph = tessel.Graph.from_json(json.dumps(bench_large.layered(n, d)))
            for phase in a.phases.split(","):
                at, lat, mk = cancel_latency(graph, phase, a.fast)
                if lat is None:
                    print("%d %d %s - - %d" % (n, d, phase, mk), flush=True)
                    continue
                worst = max(worst, lat)
                print("%d %d %s %.2f %.3f %d" % (n, d, phase, at, lat, mk),
                      flush=True)
    print("# slowest cancel: %.3f s" % worst)


if __name__ == "__main__":
    main()
