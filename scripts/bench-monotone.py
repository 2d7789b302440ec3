#!/usr/bin/env python3
"""Monotone in memory, measured: for each placement of `tessel bench
--suite zb` at 1x its 1F1B budget (63 placements: ZB-H and V, 4 to 32
devices, 2p to 8p micro-batches, both communication costs, even and uneven
stages), `tessel search` at the limits 1.0x, 1.1x, ... 2.0x of that budget
(--steps changes the count), and every pair of limits of a placement
where the looser limit gave the longer schedule. Prints one line per such
pair and a summary line: placements, pairs, pairs longer with more
memory, the worst excess in percent, the slowest search and the sum of
all makespans. --json FILE keeps every makespan; --work-limit UNITS
gives every search that budget (tessel search --work-limit) instead of
the default one. --unlimited adds the search without a limit as the
loosest of each placement's limits. --sweep searches each placement's limits together
(tessel search --sweep, tessel_search_sweep) instead of one search per
limit; the seconds are then the whole sweep's.

Usage: scripts/bench-monotone.py [--fast] [--work-limit UNITS] [--steps K]
                                 [--unlimited] [--sweep] [--json FILE] BUILD_DIR
(BUILD_DIR holds tools/tessel.)
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--fast", action="store_true")
    ap.add_argument("--steps", type=int, default=10,
                    help="limits per placement, less one (default 10: 0.1x apart)")
    ap.add_argument("--json")
    ap.add_argument("--work-limit")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--unlimited", action="store_true",
                    help="also the search without a limit, the loosest")
    a = ap.parse_args()
    tessel = os.path.join(a.build, "tools", "tessel")
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([tessel, "bench", "--suite", "zb", "--write", tmp, "--work-limit", "1"],
                       check=True, capture_output=True)
        for path in sorted(glob.glob(os.path.join(tmp, "*_mem1x_*.placement.json"))):
            name = os.path.basename(path).replace(".placement.json", "")
            base = json.load(open(path))["memory_limit"]
            n = int(name.split("_m")[1].split("_")[0])
            row = []
            limits = [base + base * i // a.steps for i in range(a.steps + 1)]
            if a.unlimited:
                limits.append("unlimited")
            common = ["--format", "json", "-q"] + (["--fast"] if a.fast else []) + \
                (["--work-limit", a.work_limit] if a.work_limit else [])
            if a.sweep:
                cmd = [tessel, "search", path, "-n", str(n), "--sweep",
                       ",".join(map(str, limits))] + common
                t = time.monotonic()
                r = subprocess.run(cmd, capture_output=True, text=True, check=True)
                seconds = time.monotonic() - t
                for limit, item in zip(limits, json.loads(r.stdout)["sweep"]):
                    row.append((limit, item["schedule"]["nsteps"], seconds))
            for limit in ([] if a.sweep else limits):
                cmd = [tessel, "search", path, "-n", str(n), "-m", str(limit)] + common
                r = subprocess.run(cmd, capture_output=True, text=True, check=True)
                d = json.loads(r.stdout)
                row.append((limit, d["nsteps"], d["search_seconds"]))
            out[name] = row
    if a.json:
        json.dump(out, open(a.json, "w"), indent=1)
    pairs = longer = 0
    worst = slowest = 0.0
    for name, row in out.items():
        for i in range(len(row)):
            slowest = max(slowest, row[i][2])
            for j in range(i + 1, len(row)):
                pairs += 1
                if row[j][1] > row[i][1]:
                    longer += 1
                    worst = max(worst, row[j][1] / row[i][1] - 1)
                    print(f"{name}: {row[i][1]} at {row[i][0]}, {row[j][1]} at {row[j][0]}")
    total = sum(r[1] for row in out.values() for r in row)
    print(f"{len(out)} placements, {pairs} pairs, {longer} longer with more memory, "
          f"worst +{worst * 100:.3f} %, slowest {'sweep' if a.sweep else 'search'} "
          f"{slowest:.2f} s, makespans sum {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
