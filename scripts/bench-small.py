#!/usr/bin/env python3
"""Default-budget search time on random pipelines of at most 8 devices.

Random plain and V pipelines (2 to 8 devices, spans 1 to 12, half of
them with a split backward, memory between what one micro-batch needs
and two per stage, latency 0 to 3, 16 to 128 micro-batches), each
searched with the default budget; prints the seconds, the work and the
part of it on the period proof (Schedule.proof_work), and the median and
largest time outside the proof (the seconds scaled by the work outside
the proof). The same cases for the same seed.

Usage: bench-small.py [CASES [SEED]]
       (TESSEL_LIBRARY names the libtessel to use; the package is taken
       from bindings/python)
"""
import random, sys, time, os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings", "python"))

import tessel
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
rows = []
for case in range(int(sys.argv[1]) if len(sys.argv) > 1 else 30):
    D = rng.randint(2, 8)
    S = rng.choice([D, 2 * D])  # stages
    g = tessel.Graph(D)
    split = rng.random() < 0.5
    f = []
    for s in range(S):
        dev = s % D if S == D or s < D else 2 * D - 1 - s
        f.append(g.add_block("f%d" % s, "forward", rng.randint(1, 6), 1, devices=[dev], after=[f[-1]] if f else None))
    prev = f[-1]
    for s in reversed(range(S)):
        dev = s % D if S == D or s < D else 2 * D - 1 - s
        b = g.add_block("b%d" % s, "backward", rng.randint(1, 12), 0 if split else -1, devices=[dev], after=[prev])
        prev = b
        if split:
            g.add_block("w%d" % s, "weight", rng.randint(1, 6), -1, devices=[dev], after=[b])
    need, _ = g.min_memory(1)
    mem = rng.randint(max(need, 1), 2 * S)
    g.set_memory_limit(mem)
    g.set_latency(rng.choice([0, 0, 1, 3]))
    N = rng.choice([16, 32, 64, 128])
    t = time.time()
    s = tessel.search(g, micro_batches=N)
    el = time.time() - t
    w, p = s.work, s.proof_work
    rows.append((el, el * (w - p) / max(w, 1), w, p, D, S, N, mem, s.makespan, s.lower_bound))
    print("D=%d S=%d N=%d mem=%d: %.2f s (%.2f s outside the proof), work %d, proof %d, makespan %d LB %d" % (D, S, N, mem, el, rows[-1][1], w, p, s.makespan, s.lower_bound), flush=True)
ex = sorted(r[1] for r in rows); tot = sorted(r[0] for r in rows)
print("outside the proof: median %.2f, max %.2f; total: median %.2f, max %.2f" % (ex[len(ex)//2], ex[-1], tot[len(tot)//2], tot[-1]))
