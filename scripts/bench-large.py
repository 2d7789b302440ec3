#!/usr/bin/env python3
"""Large placements: search time, peak memory and validity.

Usage: python3 scripts/bench-large.py [--tessel PATH] [--sizes 1000,10000,100000]
           [--devices 16,256,4096] [--time-limit 20] [--modes fast,limit,default,first]
           [--micro-batches N] [--keep DIR] [--busy N]

Generates two families of placements, deterministically (a fixed seed per
placement, Python's random.Random):
  chain    blocks b0 -> b1 -> ... on 2 devices, block i on device i mod 2,
           span 1 + i mod 3, memory 0;
  layered  layers of 8 blocks, each block after 1 to 3 blocks of the layer
           before, on one device drawn at random (one block in 20 on 2 to 4
           devices at once), span 1 .. 3, memory 0.
Each placement is searched with `tessel search --fast` ("fast") and with
`tessel search --time-limit T` ("limit"), under /usr/bin/time (mode
"default", not by default: the default budget without a time limit); the schedule
found is checked with `tessel validate`. Mode "first" (not by default)
measures the anytime start instead: tessel.search through the Python
binding, with the library next to --tessel (../lib), stopped by its
progress callback at the first schedule; its seconds are the Progress's
elapsed time of that first report (from the search's start, the graph
read and copied before), its makespan the first schedule's, and the
schedule returned is checked as the others. One row per search:
  family blocks devices mode seconds peak_rss_kb exit valid makespan
  search_s overshoot_s
where seconds is the whole run (reading, searching, writing), search_s the
search itself (the schedule's "search_seconds") and overshoot_s, for
"limit", how far the search went past the time limit (negative: it ended
before it).
With --busy N, N processes spinning on the CPU run beside the searches
(the time limit must then hold on a loaded machine).
Exit 0 when every search found a valid schedule, 1 otherwise.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile


def chain(n):
    blocks = []
    for i in range(n):
        b = {"name": "b%d" % i, "kind": "forward", "span": 1 + i % 3,
             "memory": 0, "devices": [i % 2]}
        if i:
            b["after"] = ["b%d" % (i - 1)]
        blocks.append(b)
    return {"devices": 2, "blocks": blocks}


def layered(n, devices, width=8):
    rng = random.Random(n * 7919 + devices)
    blocks = []
    for i in range(n):
        layer = i // width
        if rng.random() < 0.05 and devices > 1:
            k = rng.randint(2, min(4, devices))
            devs = sorted(rng.sample(range(devices), k))
        else:
            devs = [rng.randrange(devices)]
        b = {"name": "b%d" % i, "kind": "forward", "span": rng.randint(1, 3),
             "memory": 0, "devices": devs}
        if layer:
            lo = (layer - 1) * width
            prev = sorted(set(rng.randrange(lo, lo + width)
                              for _ in range(rng.randint(1, 3))))
            b["after"] = ["b%d" % p for p in prev]
        blocks.append(b)
    return {"devices": devices, "blocks": blocks}


def run(cmd):
    p = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M"] + cmd,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    m = re.search(r"TIME ([0-9.]+) ([0-9]+)", p.stderr)
    secs, rss = (float(m.group(1)), int(m.group(2))) if m else (-1.0, -1)
    return p.returncode, secs, rss, p.stderr


# mode "first": the child process that searches through the binding
FIRST = r"""
import sys, tessel
path, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
g = tessel.Graph.from_file(path)
first = []
def stop(p):
    if p.makespan is not None and not first:
        first.append((p.elapsed, p.makespan))
    return bool(first)
s = tessel.search(g, micro_batches=n, progress=stop, progress_interval=60)
s.validate()
with open(out, "w") as f:
    f.write(s.to_json())
print("FIRST %.3f %d" % first[0])
"""


def run_first(tessel, pl, n, out):
    """Mode "first": (exit, seconds to the first schedule, its makespan,
    stderr)."""
    root = os.path.join(os.path.dirname(os.path.abspath(tessel)), "..")
    env = dict(os.environ,
               TESSEL_LIBRARY=os.path.join(root, "lib", "libtessel.so"),
               PYTHONPATH=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                       "..", "bindings", "python"))
    p = subprocess.run([sys.executable, "-c", FIRST, pl, n, out], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    m = re.search(r"FIRST ([0-9.]+) ([0-9]+)", p.stdout)
    if p.returncode or not m:
        return p.returncode or 1, -1.0, "-", p.stderr
    return 0, float(m.group(1)), m.group(2), p.stderr


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--tessel", default=os.path.join(here, "..", "build",
                                                     "tools", "tessel"))
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--devices", default="16,256,4096")
    ap.add_argument("--time-limit", default="20")
    ap.add_argument("--modes", default="fast,limit")
    ap.add_argument("--micro-batches", default="16")
    ap.add_argument("--families", default="chain,layered")
    ap.add_argument("--keep", help="write placements and schedules here")
    ap.add_argument("--busy", type=int, default=0,
                    help="run N busy processes beside the searches")
    a = ap.parse_args()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(a.busy)]
    try:
        return bench(a)
    finally:
        for p in busy:
            p.kill()
            p.wait()


def bench(a):
    sizes = [int(x) for x in a.sizes.split(",")]
    devs = [int(x) for x in a.devices.split(",")]
    cases = []
    for fam in a.families.split(","):
        for n in sizes:
            if fam == "chain":
                cases.append((fam, n, 2))
            else:
                cases.extend((fam, n, d) for d in devs)
    work = a.keep or tempfile.mkdtemp(prefix="tessel-large-")
    os.makedirs(work, exist_ok=True)
    print("# family blocks devices mode seconds peak_rss_kb exit valid "
          "makespan search_s overshoot_s")
    sys.stdout.flush()
    bad = 0
    for fam, n, d in cases:
        pl = os.path.join(work, "%s-%d-%d.json" % (fam, n, d))
        with open(pl, "w") as f:
            json.dump(chain(n) if fam == "chain" else layered(n, d), f)
        for mode in a.modes.split(","):
            out = os.path.join(work, "%s-%d-%d-%s.sched.json" % (fam, n, d,
                                                                 mode))
            if mode == "first":
                rc, secs, first_span, err = run_first(a.tessel, pl,
                                                      a.micro_batches, out)
                print("%s %d %d first %.3f - %d %s %s - -" % (
                    fam, n, d, secs, rc, "yes" if rc == 0 else "no",
                    first_span))
                sys.stdout.flush()
                bad += rc != 0
                if not a.keep and os.path.exists(out):
                    os.remove(out)
                continue
            extra = (["--fast"] if mode == "fast" else
                     [] if mode == "default" else
                     ["--time-limit", a.time_limit])
            rc, secs, rss, err = run([a.tessel, "search", pl, "-n",
                                      a.micro_batches, "--format", "json",
                                      "-o", out] + extra)
            valid, span, searched = "no", "-", None
            if rc == 0:
                v = subprocess.run([a.tessel, "validate", out],
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
                valid = "yes" if v.returncode == 0 else "no"
                try:
                    with open(out) as f:
                        doc = json.load(f)
                    span = str(doc.get("nsteps", "-"))
                    searched = doc.get("search_seconds")
                except (OSError, ValueError):
                    pass
            if valid != "yes":
                bad += 1
                msg = err.strip().splitlines()
                if msg:
                    print("# %s %d %d %s: %s" % (fam, n, d, mode, msg[0]))
            over = "-"
            if searched is not None and mode == "limit":
                over = "%+.3f" % (searched - float(a.time_limit))
            print("%s %d %d %s %.2f %d %d %s %s %s %s" % (
                fam, n, d, mode, secs, rss, rc, valid, span,
                "-" if searched is None else "%.3f" % searched, over))
            sys.stdout.flush()
            if not a.keep and os.path.exists(out):
                os.remove(out)
        if not a.keep:
            os.remove(pl)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
