#!/usr/bin/env python3
"""The table of doc/explore.md from `tessel explore --format json` results.

Usage: explore-table.py RESULT.json ...   (one file per model profile,
named after it, e.g. gpt-8dev-40g.json; a RESULT.time file beside it, as
/usr/bin/time -f "%e s" writes it, gives the wall-clock seconds)
"""
import json
import os
import sys


def fmt(v, unit=""):
    if abs(v) >= 1000:
        return "%.0f%s" % (v, unit)
    return "%.4g%s" % (v, unit)


def row(path):
    d = json.load(open(path))
    name = os.path.splitext(os.path.basename(path))[0]
    c = d["candidates"]
    ranked = [x for x in c if "time" in x]
    best = ranked[0]
    base = {x["family"]: x for x in c}
    one = base.get("1f1b") or base.get("pipeline-order")
    gp = base.get("gpipe")
    second = next((x for x in ranked[1:] if x["family"] != best["family"]),
                  None)
    secs = ""
    tpath = os.path.splitext(path)[0] + ".time"
    if os.path.exists(tpath):
        secs = open(tpath).read().split()[0]
    unit, munit = d["unit"], d["memory_unit"]
    s1 = fmt(best["speedup_1f1b"], "x") if best.get("speedup_1f1b") else "-"
    if d["mode"] == "inference":
        sg = "(inference)"
    elif gp and "time" in gp:
        sg = fmt(best["speedup_gpipe"], "x")
    else:
        sg = "does not fit"
    return ("| %s | %d | %g %s | %s | %s %s | %s | %s | %s | %s | %s |"
            % (name, d["devices"], d["memory_per_device"], munit,
               best["family"], fmt(best["time"]), unit,
               fmt(best["peak_memory"]), s1, sg,
               "%s (%s)" % (second["family"], fmt(second["time"]))
               if second else "-",
               one and "time" in one and fmt(one["time"]) or "-") +
            (" %s |" % secs))


print("| profile | D | memory | best family | time per step | peak memory "
      "| vs 1F1B | vs GPipe | runner-up | 1F1B order | explore s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for p in sys.argv[1:]:
    print(row(p))
