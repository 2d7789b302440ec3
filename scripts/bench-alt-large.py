#!/usr/bin/env python3
"""Large placements with recompute and offload declared: the time of the
default search (no time limit) and its schedule, checked.

Two families, made deterministically (Python's random.Random, a fixed
seed per placement):
  layers  a pipeline of D stages, one device each, LAYERS layers a stage:
          the forwards in a chain (span 2 .. 5, memory 2), then per layer
          from the last a backward (twice the forward's span, memory -1)
          and a weight block (the forward's span, memory -1); one forward
          in three declares a recompute (saves 1, extra its span), one in
          three an offload (saves 1, a copy three times its span); latency
          2 between devices; memory 0.7x the 1F1B budget (D micro-batches
          of stage 0's forwards);
  groups  tensor-parallel groups of T devices (every block of a stage on
          all of its T devices), D / T stages, LAYERS layers a stage
          (forward span 1 .. 6, memory 1 .. 3; 40 % declare a recompute,
          30 % an offload of 1 .. 4 times the span), the backward split
          into a backward and a weight block or not; memory a factor of
          the 1F1B budget.
Each is searched with `tessel search -n N --format json` under
/usr/bin/time and the schedule checked with `tessel validate`. One row a
search: name, blocks, devices, N, seconds of the whole command, peak RSS
(MB), makespan, lower bound, work, valid.

With --plain, the same placements without their declarations (every
activation kept).

Usage: scripts/bench-alt-large.py [--tessel PATH] [--cases NAME,...] [--keep DIR] [--plain]
(cases by default: every one of CASES below)
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile


def layers(D, L, lat=2, factor=0.7):
    rng = random.Random(D * 1000 + L)
    blocks, prev, spans = [], None, {}
    for s in range(D):
        for l in range(L):
            n = "f%d_%d" % (s, l)
            sp = rng.randint(2, 5)
            spans[(s, l)] = sp
            b = {"name": n, "kind": "forward", "span": sp, "memory": 2, "devices": [s]}
            if prev:
                b["after"] = [prev]
            if l % 3 == 0:
                b["recompute"] = {"backward": "b%d_%d" % (s, l), "saves": 1, "extra": sp}
            elif l % 3 == 1:
                b["offload"] = {"backward": "b%d_%d" % (s, l), "saves": 1, "transfer": 3 * sp}
            blocks.append(b)
            prev = n
    for s in reversed(range(D)):
        for l in reversed(range(L)):
            n = "b%d_%d" % (s, l)
            blocks.append({"name": n, "kind": "backward", "span": 2 * spans[(s, l)],
                           "memory": -1, "devices": [s], "after": [prev]})
            blocks.append({"name": "w%d_%d" % (s, l), "kind": "weight", "span": spans[(s, l)],
                           "memory": -1, "devices": [s], "after": [n]})
            prev = n
    return {"devices": D, "memory_limit": int(factor * D * 2 * L), "latency": lat,
            "blocks": blocks}


def groups(D, T, L, factor, lat, split):
    rng = random.Random(D * 7 + T * 13 + L)
    S = D // T
    blocks, prev, sp, mem = [], None, {}, {}
    for s in range(S):
        devs = list(range(s * T, s * T + T))
        for l in range(L):
            n = "f%d_%d" % (s, l)
            x = rng.randint(1, 6)
            sp[(s, l)] = x
            b = {"name": n, "kind": "forward", "span": x, "memory": rng.randint(1, 3),
                 "devices": devs}
            if prev:
                b["after"] = [prev]
            r = rng.random()
            if r < 0.4:
                b["recompute"] = {"backward": "b%d_%d" % (s, l), "saves": 1, "extra": x}
            elif r < 0.7:
                b["offload"] = {"backward": "b%d_%d" % (s, l), "saves": 1,
                                "transfer": rng.randint(1, 4) * x}
            mem[(s, l)] = b["memory"]
            blocks.append(b)
            prev = n
    for s in reversed(range(S)):
        devs = list(range(s * T, s * T + T))
        for l in reversed(range(L)):
            n = "b%d_%d" % (s, l)
            m = mem[(s, l)]
            if split:
                blocks.append({"name": n, "kind": "backward", "span": sp[(s, l)] * 2,
                               "memory": -(m // 2), "devices": devs, "after": [prev]})
                blocks.append({"name": "w" + n[1:], "kind": "weight", "span": sp[(s, l)],
                               "memory": -(m - m // 2), "devices": devs, "after": [n]})
            else:
                blocks.append({"name": n, "kind": "backward", "span": sp[(s, l)] * 3,
                               "memory": -m, "devices": devs, "after": [prev]})
            prev = n
    need = max(sum(mem[(s, l)] for l in range(L)) * (S - s) for s in range(S))
    return {"devices": D, "memory_limit": max(int(factor * need), 1), "latency": lat,
            "blocks": blocks}


# name: (placement maker, micro-batches)
CASES = {
    "layers_64x49_n64": (lambda: layers(64, 49), 64),
    "layers_64x49_n128": (lambda: layers(64, 49), 128),
    "layers_64x49_n256": (lambda: layers(64, 49), 256),
    "layers_64x49_n512": (lambda: layers(64, 49), 512),
    "layers_64x49_n1024": (lambda: layers(64, 49), 1024),
    "layers_64x49_n2048": (lambda: layers(64, 49), 2048),
    "layers_64x49_n4096": (lambda: layers(64, 49), 4096),
    "layers_8x49_n8192": (lambda: layers(8, 49), 8192),
    "layers_8x49_n3000": (lambda: layers(8, 49), 3000),
    "layers_64x49_n1100": (lambda: layers(64, 49), 1100),
    "layers_128x26_n2175": (lambda: layers(128, 26), 2175),
    "layers_256x13_n1200": (lambda: layers(256, 13), 1200),
    "layers_512x6_n1024": (lambda: layers(512, 6), 1024),
    "groups_64t4x100_n128": (lambda: groups(64, 4, 100, 0.7, 2, 1), 128),
    "groups_64t4x100_n32": (lambda: groups(64, 4, 100, 0.7, 2, 1), 32),
    "groups_256t8x60_n64": (lambda: groups(256, 8, 60, 0.6, 1, 0), 64),
    "groups_16t2x300_n256": (lambda: groups(16, 2, 300, 0.8, 3, 1), 256),
    "groups_16t2x300_n1024": (lambda: groups(16, 2, 300, 0.8, 3, 1), 1024),
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--tessel", default=os.path.join(here, "..", "build", "tools", "tessel"))
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--keep")
    ap.add_argument("--plain", action="store_true",
                    help="the placements with their recompute and offload declarations removed")
    a = ap.parse_args()
    names = a.cases.split(",")
    for n in names:
        if n not in CASES:
            sys.exit("unknown case %s (cases: %s)" % (n, ", ".join(CASES)))
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = a.keep or tmp
        os.makedirs(out_dir, exist_ok=True)
        print("case blocks devices N seconds rss_mb makespan lower_bound work valid", flush=True)
        for n in names:
            make, nmicros = CASES[n]
            pl = make()
            if a.plain:
                for b in pl["blocks"]:
                    b.pop("recompute", None)
                    b.pop("offload", None)
            path = os.path.join(out_dir, n + ".json")
            with open(path, "w") as f:
                json.dump(pl, f)
            res = os.path.join(out_dir, n + ".schedule.json")
            p = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M", a.tessel, "search", path,
                                "-n", str(nmicros), "--format", "json", "-o", res],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            m = re.search(r"TIME ([0-9.]+) ([0-9]+)", p.stderr)
            secs, rss = (float(m.group(1)), int(m.group(2)) // 1024) if m else (-1, -1)
            row = [n, len(pl["blocks"]), pl["devices"], nmicros, "%.1f" % secs, rss]
            if p.returncode == 0:
                d = json.load(open(res))
                v = subprocess.run([a.tessel, "validate", res], capture_output=True)
                row += [d["nsteps"], d["lower_bound"], d["work"], "yes" if v.returncode == 0 else "no"]
                ok &= v.returncode == 0
            else:
                row += ["-", "-", "-", "exit %d" % p.returncode]
                ok = False
            print(" ".join(str(x) for x in row), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
