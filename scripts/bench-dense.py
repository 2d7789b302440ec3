#!/usr/bin/env python3
"""Dense dependency graphs: search time against the work charged.

Usage: python3 scripts/bench-dense.py [--tessel PATH] [--cases SPEC,...]
           [--keep DIR] [--work-limit UNITS]

The work budget's rates (lib/common/budget.h) were measured on pipelines,
about one dependency a block; every visit of a block walks its
dependencies, and tsl_graph_visit_weight weighs the steps of a graph of
more than 4 a block on average. This prints what a work unit of such
graphs costs. Each case BLOCKS/DEVICES/P/N (default 300/8/0.1/64,
600/4/0.3/32, 1500/8/0.5/16, 3000/16/0.1/16) is a random DAG, generated
deterministically (Python's random.Random(1)): block i on one device
drawn at random, span 1 .. 9, after each earlier block with probability
P, the first half forward blocks of memory 1, the second half backward
blocks of memory -1, no memory limit. Each is searched with
`tessel search FILE -n N --format json -q` (the default budget, or
--work-limit) and the schedule is checked with `tessel validate`. One row
per case:
  blocks devices deps_per_block N seconds work ms_per_unit makespan lower_bound valid
Exit 0 when every search found a valid schedule, 1 otherwise.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time


def placement(blocks, devices, p):
    rng = random.Random(1)
    out = []
    for i in range(blocks):
        fwd = i < blocks // 2
        b = {"name": "b%d" % i, "kind": "forward" if fwd else "backward",
             "span": rng.randint(1, 9), "memory": 1 if fwd else -1,
             "devices": [rng.randrange(devices)]}
        after = ["b%d" % j for j in range(i) if rng.random() < p]
        if after:
            b["after"] = after
        out.append(b)
    return {"devices": devices, "blocks": out}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--tessel", default=os.path.join(here, "..", "build", "tools", "tessel"))
    ap.add_argument("--cases", default="300/8/0.1/64,600/4/0.3/32,1500/8/0.5/16,3000/16/0.1/16")
    ap.add_argument("--keep")
    ap.add_argument("--work-limit")
    a = ap.parse_args()
    ok = True
    print("blocks devices deps_per_block N seconds work ms_per_unit makespan lower_bound valid")
    with tempfile.TemporaryDirectory() as tmp:
        where = a.keep or tmp
        os.makedirs(where, exist_ok=True)
        for spec in a.cases.split(","):
            nb, nd, p, n = spec.split("/")
            pl = placement(int(nb), int(nd), float(p))
            deps = sum(len(b.get("after", [])) for b in pl["blocks"]) / int(nb)
            path = os.path.join(where, "dense-%s-%s-%s.json" % (nb, nd, p))
            with open(path, "w") as f:
                json.dump(pl, f)
            out = os.path.join(where, "dense-%s-%s-%s-%s.sched.json" % (nb, nd, p, n))
            cmd = [a.tessel, "search", path, "-n", n, "--format", "json", "-q", "-o", out]
            if a.work_limit:
                cmd += ["--work-limit", a.work_limit]
            t = time.monotonic()
            r = subprocess.run(cmd, capture_output=True, text=True)
            secs = time.monotonic() - t
            if r.returncode != 0:
                print("%s %s %.1f %s %.2f - - - - search failed: %s" %
                      (nb, nd, deps, n, secs, r.stderr.strip()), flush=True)
                ok = False
                continue
            s = json.load(open(out))
            v = subprocess.run([a.tessel, "validate", out], capture_output=True)
            valid = v.returncode == 0
            ok &= valid
            work = s.get("work", 0)
            print("%s %s %.1f %s %.2f %d %.3f %d %d %s" %
                  (nb, nd, deps, n, secs, work, 1000 * secs / max(work, 1),
                   s.get("nsteps", 0), s.get("lower_bound", 0),
                   "yes" if valid else "NO"), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
