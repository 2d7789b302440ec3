#!/usr/bin/env python3
"""Recompute as a decision of the search, measured: for the presets and
the published placements, at memory limits of 0.5x, 0.75x and 1x their
1F1B budget, the makespan and period of `tessel search` without
alternatives (--alternatives off), with a recompute declared on every
forward block and chosen per micro-batch (--recompute, the default
--alternatives search), and with every forward recomputed (--recompute
--alternatives always, the fixed rule). Prints a Markdown table (the one
in doc/baselines.md).

The 1F1B budget of a placement: D micro-batches in flight, each holding on
a device the memory of that device's forward blocks; the largest over the
devices. The recompute of a forward block drops its whole activation and
runs the forward again in its backward (extra = the forward's span).

With --offload STEPS, instead, at 0.5x the 1F1B budget: recompute alone
against recompute and offload (an offload declared on every forward block
too, STEPS a copy) and offload alone.

Usage: scripts/bench-alternatives.py [--fast] [-n N] [--offload STEPS] BUILD_DIR
(BUILD_DIR holds tools/tessel and lib/libtessel.so; the published
placements come from the Python binding.)
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def budget(placement):
    """D x the largest per-device forward memory of one micro-batch."""
    per = [0] * placement["devices"]
    for b in placement["blocks"]:
        if b["kind"] == "forward" and b["memory"] > 0:
            for d in b["devices"]:
                per[d] += b["memory"]
    return placement["devices"] * max(per)


def search(program, source, limit, n, mode, fast, declare=("--recompute",)):
    args = [program, "search"] + source + ["-m", str(limit), "-n", str(n),
                                            "-q", "--format", "json"]
    if mode != "off":
        args += list(declare) + ["--alternatives", mode]
    else:
        args += ["--alternatives", "off"]
    if fast:
        args.append("--fast")
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    d = json.loads(r.stdout)
    choices = sum(1 for e in d["blocks"] if e.get("choice") == "recompute")
    offloads = sum(1 for e in d["blocks"] if e.get("choice") == "offload")
    # "period" is per micro-batch (P_k / k for a repetend of k)
    return {"makespan": d["nsteps"], "period": d["period"],
            "recomputed": choices, "offloaded": offloads,
            "entries": len(d["blocks"]),
            "lb": d.get("lower_bound", 0)}


def cell(r):
    if r is None:
        return "none"
    return "%d (P %.3g)" % (r["makespan"], r["period"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("-n", type=int, default=32)
    ap.add_argument("--fast", action="store_true")
    ap.add_argument("--offload", type=int, default=0,
                    help="instead: recompute against recompute and offload "
                         "(STEPS a copy) and offload alone, at 0.5x")
    a = ap.parse_args()
    program = os.path.join(a.build, "tools", "tessel")
    os.environ.setdefault("TESSEL_LIBRARY",
                          os.path.join(a.build, "lib", "libtessel.so"))
    sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
    import tessel  # noqa: F401
    explore = sys.modules["tessel.explore"]
    tmp = tempfile.mkdtemp()
    cases = []
    for preset in ("vshape", "xshape", "mshape", "nnshape", "kshape"):
        out = subprocess.run([program, "search", "-p", preset, "-d", "8",
                              "-m", "unlimited", "-n", "1", "--fast", "-q",
                              "--format", "json"], check=True,
                             capture_output=True, text=True).stdout
        placement = json.loads(out)["placement"]
        cases.append(("%s, 8 devices" % preset, ["-p", preset, "-d", "8"],
                      budget(placement)))
    for family, f, b, w in (("1f1b", 1, 2, 1), ("zb-h1", 1, 1, 1),
                            ("zb-v", 1, 1, 1), ("interleaved", 1, 2, 1)):
        s = explore.published(family, 8, a.n, f, b, w)
        placement = json.loads(s.to_json())["placement"]
        placement.pop("memory_limit", None)
        path = os.path.join(tmp, family + ".json")
        with open(path, "w") as fh:
            json.dump(placement, fh)
        cases.append(("%s, 8 devices (F %d, B %d%s)" %
                      (family, f, b, ", W %d" % w if "zb" in family else ""),
                      [path], budget(placement)))
    if a.offload:
        offload_table(program, cases, a)
        return
    print("| placement | 1F1B budget | limit | without | recompute chosen "
          "(recomputed instances) | every forward recomputed | "
          "chosen / without | chosen / every |")
    print("|---|---|---|---|---|---|---|---|")
    for name, source, full in cases:
        for frac in (0.5, 0.75, 1.0):
            limit = max(1, int(math.floor(full * frac)))
            off = search(program, source, limit, a.n, "off", a.fast)
            chosen = search(program, source, limit, a.n, "search", a.fast)
            every = search(program, source, limit, a.n, "always", a.fast)
            r1 = ("%.3f" % (chosen["makespan"] / off["makespan"])
                  if chosen and off else "-")
            r2 = ("%.3f" % (chosen["makespan"] / every["makespan"])
                  if chosen and every else "-")
            rec = ("%s (%d of %d)" % (cell(chosen), chosen["recomputed"],
                                      chosen["entries"]) if chosen else "none")
            print("| %s | %d | %.2gx = %d | %s | %s | %s | %s | %s |" %
                  (name, full, frac, limit, cell(off), rec, cell(every),
                   r1, r2), flush=True)


def offload_table(program, cases, a):
    """Recompute alone, recompute and offload, offload alone, at 0.5x."""
    t = str(a.offload)
    print("| placement | limit | without | recompute | recompute and offload "
          "(recomputed, offloaded) | offload alone (offloaded) |")
    print("|---|---|---|---|---|---|")
    for name, source, full in cases:
        limit = max(1, full // 2)
        off = search(program, source, limit, a.n, "off", a.fast)
        rc = search(program, source, limit, a.n, "search", a.fast)
        both = search(program, source, limit, a.n, "search", a.fast,
                      ("--recompute", "--offload", t))
        of = search(program, source, limit, a.n, "search", a.fast,
                    ("--offload", t))
        print("| %s | 0.5x = %d | %s | %s | %s | %s |" %
              (name, limit, cell(off), cell(rc),
               "%s (%d, %d)" % (cell(both), both["recomputed"],
                                both["offloaded"]) if both else "none",
               "%s (%d)" % (cell(of), of["offloaded"]) if of else "none"),
              flush=True)


if __name__ == "__main__":
    main()
