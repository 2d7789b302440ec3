#!/usr/bin/env python3
"""Searches of many micro-batches: the default search (no time limit) of
plain placements at millions of device entries, where tessel_search runs
on fewer micro-batches and repeats their steady state (search_extend.c).

Placements (made deterministically, a fixed seed each):
  vprof   a V placement of D devices (two stages a device), every stage's
          F/B/W spans within 15 % of 200/190/130, the first stage's x1.1 and
          the last's x1.3, latency 10, memory 2D;
  chain   D stages of 4 layers each (forward span 2 .. 6, memory 1; a
          backward of twice that and a weight block of the forward's span,
          memory -1), memory 4D, latency 0 to 3;
  groups  tensor-parallel pairs (every block of a stage on 2 devices), a
          forward of span 3 .. 9 (memory 2) and a backward of twice it;
  vshape  the preset, memory 2D.
Each is searched with `tessel search -n N --format json` under
/usr/bin/time; one row a search: name, blocks, devices, N, device
entries, seconds of the whole command, peak RSS (MB), search seconds,
makespan, lower bound, the makespan's excess over it, work. With
--baseline PATH, the same searches with that tessel too (another build),
and the ratio of the makespans and of the seconds.

Usage: scripts/bench-extend.py [--tessel PATH] [--baseline PATH]
                               [--cases NAME,...] [--list]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile


def vprof(D, seed=1):
    rng = random.Random(seed)
    S = 2 * D

    def j(x):
        return max(1, int(round(x * rng.uniform(0.85, 1.15))))
    spans = []
    for s in range(S):
        f, b, w = j(200), j(190), j(130)
        fac = 1.1 if s == 0 else (1.3 if s == S - 1 else 1.0)
        spans.append((int(f * fac), int(b * fac), int(w * fac)))
    dev = [s if s < D else 2 * D - 1 - s for s in range(S)]
    blocks, prev = [], None
    for s in range(S):
        blk = {"name": "f%d" % s, "kind": "forward", "span": spans[s][0], "memory": 1,
               "devices": [dev[s]]}
        if prev:
            blk["after"] = [prev]
        blocks.append(blk)
        prev = "f%d" % s
    for s in reversed(range(S)):
        blocks.append({"name": "b%d" % s, "kind": "backward", "span": spans[s][1],
                       "memory": 0, "devices": [dev[s]], "after": [prev]})
        prev = "b%d" % s
        blocks.append({"name": "w%d" % s, "kind": "weight", "span": spans[s][2],
                       "memory": -1, "devices": [dev[s]], "after": [prev]})
    return {"devices": D, "memory_limit": 2 * D, "latency": 10, "blocks": blocks}


def chain(D, L=4, seed=1):
    rng = random.Random(seed)
    blocks, prev, fw = [], None, []
    for s in range(D):
        for l in range(L):
            n = "f%d_%d" % (s, l)
            sp = rng.randint(2, 6)
            blk = {"name": n, "kind": "forward", "span": sp, "memory": 1, "devices": [s]}
            if prev:
                blk["after"] = [prev]
            blocks.append(blk)
            prev = n
            fw.append((s, n, sp))
    for s, n, sp in reversed(fw):
        b = "b" + n[1:]
        blocks.append({"name": b, "kind": "backward", "span": 2 * sp, "memory": 0,
                       "devices": [s], "after": [prev]})
        prev = b
        blocks.append({"name": "w" + n[1:], "kind": "weight", "span": sp, "memory": -1,
                       "devices": [s], "after": [b]})
    return {"devices": D, "memory_limit": L * D, "latency": rng.choice([0, 1, 3]),
            "blocks": blocks}


def groups(D, seed=2):
    rng = random.Random(seed)
    T, S = 2, D // 2
    blocks, prev, fw = [], None, []
    for s in range(S):
        n = "f%d" % s
        sp = rng.randint(3, 9)
        blk = {"name": n, "kind": "forward", "span": sp, "memory": 2,
               "devices": list(range(s * T, s * T + T))}
        if prev:
            blk["after"] = [prev]
        blocks.append(blk)
        prev = n
        fw.append((s, n, sp))
    for s, n, sp in reversed(fw):
        b = "b" + n[1:]
        blocks.append({"name": b, "kind": "backward", "span": 2 * sp, "memory": -2,
                       "devices": list(range(s * T, s * T + T)), "after": [prev]})
        prev = b
    return {"devices": D, "memory_limit": 2 * S, "latency": rng.choice([0, 1, 3]),
            "blocks": blocks}


# name: (placement maker or preset arguments, micro-batches)
CASES = {
    "vprof_32_n16384": (lambda: vprof(32), 16384),
    "vprof_32_n65536": (lambda: vprof(32), 65536),
    "vprof_256_n4096": (lambda: vprof(256), 4096),
    "vprof_256_n8192": (lambda: vprof(256), 8192),
    "vprof_32_n12000": (lambda: vprof(32), 12000),
    "chain_8_n30000": (lambda: chain(8), 30000),
    "groups_16_n100000": (lambda: groups(16), 100000),
    "vshape_16_n100000": (["-p", "vshape", "-d", "16", "-m", "32"], 100000),
    "chain_8_n100000": (lambda: chain(8), 100000),
    "chain_8_n1000000": (lambda: chain(8), 1000000),
    "groups_16_n300000": (lambda: groups(16), 300000),
    "vshape_16_n300000": (["-p", "vshape", "-d", "16", "-m", "32"], 300000),
    "vshape_8_unlimited_n300000": (["-p", "vshape", "-d", "8", "-m", "unlimited"], 300000),
}


def run(tessel, args, n, tmp):
    out = os.path.join(tmp, "schedule.json")
    err = os.path.join(tmp, "time.txt")
    cmd = ["/usr/bin/time", "-f", "%e %M", "-o", err, tessel, "search"] + args + \
        ["-n", str(n), "--format", "json", "-o", out]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        return None, p.stderr.strip()
    secs, rss = open(err).read().split()[-2:]
    with open(out) as f:
        d = json.load(f)
    os.unlink(out)
    return (float(secs), int(rss) // 1024, d.get("search_seconds", 0.0), d["nsteps"],
            d["lower_bound"], d.get("work", 0)), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tessel", default="build/tools/tessel")
    ap.add_argument("--baseline")
    ap.add_argument("--cases")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print("\n".join(CASES))
        return 0
    names = a.cases.split(",") if a.cases else list(CASES)
    for n in names:
        if n not in CASES:
            sys.exit("unknown case %s (--list)" % n)
    print("case blocks devices N entries seconds rss_mb search_s makespan lower_bound "
          "excess work" + (" | baseline: seconds search_s makespan work ratio_makespan "
                           "ratio_seconds" if a.baseline else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            make, N = CASES[name]
            if callable(make):
                pl = make()
                path = os.path.join(tmp, "placement.json")
                with open(path, "w") as f:
                    json.dump(pl, f)
                args = [path]
                blocks = len(pl["blocks"])
                devices = pl["devices"]
                entries = sum(len(b["devices"]) for b in pl["blocks"]) * N
            else:
                args = make
                devices = int(make[make.index("-d") + 1])
                blocks = 2 * devices
                entries = blocks * N
            r, why = run(a.tessel, args, N, tmp)
            if not r:
                print("%s failed: %s" % (name, why), flush=True)
                continue
            line = "%s %d %d %d %d %.1f %d %.1f %d %d %d %d" % (
                name, blocks, devices, N, entries, r[0], r[1], r[2], r[3], r[4],
                r[3] - r[4], r[5])
            if a.baseline:
                b, why = run(a.baseline, args, N, tmp)
                if b:
                    line += " | %.1f %.1f %d %d %.6f %.2f" % (
                        b[0], b[2], b[3], b[5], r[3] / b[3], r[0] / max(b[0], 0.01))
                else:
                    line += " | failed: %s" % why
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
