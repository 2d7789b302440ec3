#!/usr/bin/env python3
"""The peer's orders for tessel bench --suite zb: runs the Zero Bubble
authors' automatic pipeline scheduler, unmodified, and writes its
per-device orders in the format of tests/data/zb-peer.txt (read by
`tessel bench --suite zb --data FILE`).

The peer's scheduler files are graph.py, zb.py and zbv.py of
sail-sg/zero-bubble-pipeline-parallelism, commit
39f2c186a27580b7051eb51e0f651e1efd0a8170, folder
megatron/core/pipeline_parallel/zerobubble/scheduler/; --peer DIR is a
folder holding those three files (e.g. `git show COMMIT:PATH > DIR/zb.py`
for each). Their imports of torch and pulp are stubbed (the schedulers
use neither for what is run here), and the megatron package around them
is made in a temporary folder.

ZB-H (one stage per device) runs zb.py's initial_solution, the body of
zb.create_schedule, with per-stage costs: each device's order is its
operations by the peer's completion times. V (two chunks per device)
runs zbv.PipelineGraph.create_schedule, which takes one cost per kind:
the even stages' (on uneven cases its order is replayed on the uneven
spans). Costs: the Zero Bubble paper's GPT profiles (F, B, W per stage,
microseconds, at 0.1 ms a step; a V chunk half of it, each rounded to a
step), 6.2B on up to 6
devices, 1.5B up to 12, 14.6B up to 20, 28.3B above; memory in the
peer's units (mem_f = 34h + 5as, mem_w = -32h, mem_b = -mem_f - mem_w,
s = 1024); the limit a factor of the 1F1B budget (ZB-H: p mem_f per
device, V: 2p mem_f). Uneven: the first stage's costs x1.10, the last's
x1.30.

Usage:
  scripts/make-zb-peer.py --peer DIR --like FILE > OUT
      every case named in FILE (names like h_p8_m32_mem1.5x_c30_even),
      again: with FILE = tests/data/zb-peer.txt the orders and the peer's
      makespans come out as stored there (its seconds are measured anew)
  scripts/make-zb-peer.py --peer DIR --sizes > OUT
      a grid of sizes outside the suite's: 6, 10, 12, 20 and 24 devices,
      memory 1x to 1.75x, communication 0.6 to 3 ms, both forms
  scripts/make-zb-peer.py --peer DIR --random SEED COUNT [--devices 3,4,...]
                          [--jitter PCT] [--v-cost middle|mean|runtime]
      COUNT cases of random costs and sizes drawn from SEED (random_cases
      says from what; the same SEED gives the same cases): profiles other
      than the published ones, for `tessel bench --suite zb --data OUT`.
      --jitter PCT: every stage's spans its own, within PCT % of the
      kind's (as profiled stages are; then the first and last stage's
      factors); --v-cost: the one cost a kind the V scheduler is given:
      the middle stages' (the default), the mean of the stages' spans, or
      what the authors' runtime gives it from profiles (each device's mean,
      then the upper middle one of those: avg_then_mid in their
      runtime.py)
"""
import argparse
import contextlib
import io
import os
import re
import shutil
import sys
import tempfile
import time

# model: F, B, W (us per stage), hidden size, attention heads
MODELS = {
    "1.5B": (18522, 18086, 9337, 2304, 24),
    "6.2B": (29718, 29444, 19927, 4096, 32),
    "14.6B": (11347, 11248, 8132, 5120, 40),
    "28.3B": (10419, 10207, 7715, 6144, 48),
}

SIZES = [  # devices, micro-batches, memory factor, communication steps
    (6, 18, "1.25", 6), (6, 30, "1.75", 15), (6, 24, "1", 30),
    (10, 50, "1.5", 20), (12, 36, "1.25", 6), (12, 60, "1.75", 30),
    (12, 48, "1", 15), (20, 60, "1.25", 15), (24, 48, "1.25", 6),
    (24, 72, "1", 15),
]


def model_of(p):
    if p <= 6:
        return "6.2B"
    if p <= 12:
        return "1.5B"
    if p <= 20:
        return "14.6B"
    return "28.3B"


def load_peer(peer_dir):
    """The peer's modules zb and zbv, from a temporary megatron package."""
    tmp = tempfile.mkdtemp(prefix="zb-peer-")
    pkg = os.path.join(tmp, "megatron", "core", "pipeline_parallel",
                       "zerobubble", "scheduler")
    os.makedirs(pkg)
    d = os.path.join(tmp, "megatron")
    for sub in ["", "core", "pipeline_parallel", "zerobubble", "scheduler"]:
        d = os.path.join(d, sub) if sub else d
        open(os.path.join(d, "__init__.py"), "w").close()
    for f in ["graph.py", "zb.py", "zbv.py"]:
        shutil.copy(os.path.join(peer_dir, f), pkg)
    with open(os.path.join(tmp, "torch.py"), "w") as f:
        f.write("Tensor = object\n")
    with open(os.path.join(tmp, "pulp.py"), "w") as f:
        f.write("def value(x):\n    return x\n")
    sys.path.insert(0, tmp)
    from megatron.core.pipeline_parallel.zerobubble.scheduler import zb, zbv
    from megatron.core.pipeline_parallel.zerobubble.scheduler.graph import GraphConfig
    return zb, zbv, GraphConfig


def costs(p, nstages, uneven, scale):
    """The model of p devices: its costs per kind at `scale` us a step,
    the spans of nstages stages (uneven: the first x1.10, the last x1.30,
    of the rounded costs), and the memory deltas of F, B, W."""
    F, B, W, h, a = MODELS[model_of(p)]
    even = [round(x / scale) for x in (F, B, W)]
    per = []
    for x in even:
        row = [x] * nstages
        if uneven:
            row[0] = (x * 11 + 5) // 10  # halves up
            row[-1] = (x * 13 + 5) // 10
        per.append(row)
    mf = 34 * h + 5 * a * 1024
    mw = -32 * h
    return even, per, (mf, -mf - mw, mw)


def emit(out, name, form, p, n, uneven, stages, spans, comm, mem, limit,
         peer_ms, secs, orders):
    out.write(f"case {name} {form} {p} {n} {int(uneven)}\n")
    out.write("stages " + " ".join(map(str, stages)) + "\n")
    for k, row in zip("fbw", spans):
        out.write(k + " " + " ".join(map(str, row)) + "\n")
    out.write(f"comm {comm}\nmemory {mem[0]} {mem[1]} {mem[2]} {limit}\n")
    out.write(f"peer {peer_ms} {secs:.4f}\n")
    for d, o in enumerate(orders):
        out.write(f"order {d} " + " ".join(o) + "\n")
    out.write("end\n")


def case_h(peer, out, p, n, factor, comm, uneven):
    _, (f, b, w), mem = costs(p, p, uneven, 100)
    limit = int(p * mem[0] * float(factor))
    name = f"h_p{p}_m{n}_mem{factor}x_c{comm}_{'uneven' if uneven else 'even'}"
    run_h(peer, out, name, p, n, uneven, (f, b, w), comm, mem, limit)


def run_h(peer, out, name, p, n, uneven, spans, comm, mem, limit):
    """zb.py's initial_solution on per-stage spans (f, b, w lists)."""
    zb, _, GraphConfig = peer
    f, b, w = spans
    cfg = GraphConfig(mem_f=[mem[0]] * p, mem_b=[mem[1]] * p, mem_w=[mem[2]] * p,
                      max_mem=[limit] * p, cost_f=[float(x) for x in f],
                      cost_b=[float(x) for x in b], cost_w=[float(x) for x in w],
                      cost_comm=float(comm), n_stages=p, n_micro=n)
    t0 = time.time()
    g = zb.Graph.build_graph(p, n, cfg)
    _, _, done = zb.initial_solution(g, False)
    secs = time.time() - t0
    orders = []
    for s in range(p):
        ops = [(done[g.get_id(k, s, m)], "FBW"[k] + str(m))
               for k in range(3) for m in range(n)]
        orders.append([o for _, o in sorted(ops)])
    emit(out, name, "h", p, n, uneven, list(range(p)), (f, b, w), comm, mem,
         limit, int(max(done)), secs, orders)


def case_v(peer, out, p, n, factor, comm, uneven):
    (f, b, w), per, mem = costs(p, 2 * p, uneven, 200)
    limit = int(2 * p * mem[0] * float(factor))
    name = f"v_p{p}_m{n}_mem{factor}x_c{comm}_{'uneven' if uneven else 'even'}"
    run_v(peer, out, name, p, n, uneven, (f, b, w), per, comm, mem, limit)


def run_v(peer, out, name, p, n, uneven, kinds, per, comm, mem, limit):
    """zbv.py's create_schedule on one cost per kind (f, b, w), its order
    replayed on the per-stage spans `per`."""
    _, zbv, GraphConfig = peer
    f, b, w = kinds
    t0 = time.time()
    pg = zbv.PipelineGraph(p, n, f, b, w, comm, mem[0], mem[1], mem[2], max_mem=limit)
    cfg = GraphConfig(mem_f=[], mem_b=[], mem_w=[], cost_f=[float(f)] * p,
                      cost_b=[float(b)] * p, cost_w=[float(w)] * p,
                      cost_comm=float(comm), n_stages=p, n_micro=n, max_chunks=2)
    with contextlib.redirect_stdout(io.StringIO()):
        nodes = pg.create_schedule(cfg)
    secs = time.time() - t0
    # the peer's own makespan: the end of its chosen try (the one of the
    # smallest largest bubble, the first of equals, as create_schedule)
    best = None
    for fill_b in [True, False]:
        for fill_f in [True, False]:
            _, end, bubble = pg.try_v_schedule(fill_b=fill_b, fill_f=fill_f)
            if best is None or bubble < best[0]:
                best = (bubble, max(end))
    orders = [[("FBW" if nd.chunk == 0 else "fbw")["FBW".index(str(nd.type))] +
               str(nd.microbatch) for nd in nodes[s]] for s in range(p)]
    stages = list(range(p)) + list(range(p - 1, -1, -1))
    emit(out, name, "v", p, n, uneven, stages, per, comm, mem, limit,
         int(best[1]), secs, orders)


def random_cases(peer, out, seed, count, devices, jitter=0, v_cost="middle"):
    """`count` cases drawn from random.Random(seed): either form, p from
    `devices`, 1-8 (ZB-H) or 2-6 (V) times p micro-batches, F 50-400
    steps, B 0.8-2.2 F, W 0.3-1.5 F (a V chunk half of each), communication
    0-120 steps, memory 1x-2x the 1F1B budget, hidden size 1024-4096, the
    first stage's spans x1, 1.1 or 1.3 and the last's x1, 1.3 or 1.6
    (with jitter: every stage's spans drawn within `jitter` % of the
    kind's first, drawn after the case's other choices)."""
    import random
    rng = random.Random(seed)
    for i in range(count):
        form = rng.choice("hv")
        p = rng.choice(devices)
        n = p * (rng.choice([1, 2, 3, 4, 6, 8]) if form == "h" else rng.choice([2, 3, 4, 6]))
        F = rng.randint(50, 400)
        B = int(F * rng.uniform(0.8, 2.2))
        W = int(F * rng.uniform(0.3, 1.5))
        comm = rng.choice([0, 1, 5, 10, 30, 60, 120])
        factor = rng.choice(["1", "1.1", "1.25", "1.5", "2"])
        h = rng.choice([1024, 2048, 4096])
        mf = 34 * h + 5 * 32 * 1024
        mw = -32 * h
        mem = (mf, -mf - mw, mw)
        first = rng.choice([1.0, 1.0, 1.1, 1.3])
        last = rng.choice([1.0, 1.0, 1.3, 1.6])
        uneven = first != 1.0 or last != 1.0 or jitter > 0
        name = f"r{seed}_{i}_{form}_p{p}_m{n}_mem{factor}x_c{comm}"

        def spans(kinds, nst):
            rows = []
            for x in kinds:
                row = [x] * nst
                if jitter:
                    row = [max(1, round(x * rng.uniform(1 - jitter / 100, 1 + jitter / 100)))
                           for _ in range(nst)]
                row[0] = max(1, round(x * first))
                row[-1] = max(1, round(x * last))
                rows.append(row)
            return rows
        if form == "h":
            limit = int(p * mem[0] * float(factor))
            try:
                run_h(peer, out, name, p, n, uneven, spans((F, B, W), p), comm, mem, limit)
            except AssertionError as e:
                # zb.py's own check of its order fails on some profiled
                # stages: no order of the peer, no case
                out.write(f"# {name}: the peer failed its own check ({e})\n")
                print(f"make-zb-peer: {name}: the peer failed its own check ({e})",
                      file=sys.stderr)
        else:
            kinds = (max(1, F // 2), max(1, B // 2), max(1, W // 2))
            limit = int(2 * p * mem[0] * float(factor))
            per = spans(kinds, 2 * p)
            if v_cost == "mean":
                kinds = tuple(max(1, round(sum(r) / len(r))) for r in per)
            elif v_cost == "runtime":
                # their runtime.py: each device's mean, the upper middle one
                dev = [[(r[d] + r[2 * p - 1 - d]) / 2 for d in range(p)] for r in per]
                kinds = tuple(max(sorted(x)[len(x) // 2], 1) for x in dev)
            run_v(peer, out, name, p, n, uneven, kinds, per, comm, mem, limit)


NAME = re.compile(r"^([hv])_p(\d+)_m(\d+)_mem([0-9.]+)x_c(\d+)_(even|uneven)$")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", required=True,
                    help="folder holding the peer's graph.py, zb.py, zbv.py")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--like", help="a file of cases: make each named there again")
    g.add_argument("--sizes", action="store_true", help="the grid of other sizes")
    g.add_argument("--random", nargs=2, type=int, metavar=("SEED", "COUNT"),
                   help="COUNT cases of random costs and sizes")
    ap.add_argument("--devices", default="3,4,5,6,7,8,9,12,16",
                    help="--random: the device counts to draw from")
    ap.add_argument("--jitter", type=float, default=0,
                    help="--random: every stage's spans within this percent of the kind's")
    ap.add_argument("--v-cost", choices=["middle", "mean", "runtime"], default="middle",
                    help="--random: the one cost a kind the V scheduler is given")
    a = ap.parse_args()
    peer = load_peer(a.peer)
    cases = []
    if a.like:
        for line in open(a.like):
            if line.startswith("case "):
                m = NAME.match(line.split()[1])
                if not m:
                    sys.exit(f"make-zb-peer: cannot read the case name in: {line.strip()}")
                form, p, n, factor, comm, kind = m.groups()
                cases.append((form, int(p), int(n), factor, int(comm), kind == "uneven"))
    elif a.sizes:
        for p, n, factor, comm in SIZES:
            for form in "hv":
                cases.append((form, p, n, factor, comm, False))
    out = sys.stdout
    how = ("--like " + os.path.basename(a.like) if a.like else
           f"--random {a.random[0]} {a.random[1]} --devices {a.devices}"
           + (f" --jitter {a.jitter:g}" if a.jitter else "")
           + (f" --v-cost {a.v_cost}" if a.v_cost != "middle" else "") if a.random
           else "--sizes")
    out.write("# The Zero Bubble authors' automatic pipeline scheduler (the peer): its\n"
              "# per-device orders, made by scripts/make-zb-peer.py "
              + how +
              " (its docstring says\n# how); the format is tests/data/zb-peer.txt's.\n")
    if a.random:
        devices = [int(x) for x in a.devices.split(",")]
        random_cases(peer, out, a.random[0], a.random[1], devices, a.jitter, a.v_cost)
    for form, p, n, factor, comm, uneven in cases:
        (case_h if form == "h" else case_v)(peer, out, p, n, factor, comm, uneven)
    return 0


if __name__ == "__main__":
    sys.exit(main())
