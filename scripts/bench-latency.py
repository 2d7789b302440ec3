#!/usr/bin/env python3
"""Search time with and without latency on the same random pipelines.

Random plain and V pipelines of 2 to 8 devices (spans 1 to 12, or ten
times that; half of them with a split backward; memory between what one
micro-batch needs and two per stage; 16 to 128 micro-batches), each
searched with the default budget twice: without latency and with a
latency of 1 to 50 steps on every dependency. Prints both searches'
seconds, work, period-proof work, makespan and lower bound, the ratio of
the seconds (the one without latency counted as at least 0.05 s) and of the
work (at least 100 units: the work is the same on every machine, the
seconds are not), and how many are within 2x. The same cases for the
same seed.

Usage: bench-latency.py [CASES [SEED]]
       (TESSEL_LIBRARY names the libtessel to use; the package is taken
       from bindings/python)
"""
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings", "python"))

import tessel


def build(D, S, spans, split, mem, lat):
    g = tessel.Graph(D)
    f = []
    for s in range(S):
        dev = s % D if S == D or s < D else 2 * D - 1 - s
        f.append(g.add_block("f%d" % s, "forward", spans[s][0], 1, devices=[dev],
                             after=[f[-1]] if f else None))
    prev = f[-1]
    for s in reversed(range(S)):
        dev = s % D if S == D or s < D else 2 * D - 1 - s
        b = g.add_block("b%d" % s, "backward", spans[s][1], 0 if split else -1,
                        devices=[dev], after=[prev])
        prev = b
        if split:
            g.add_block("w%d" % s, "weight", spans[s][2], -1, devices=[dev], after=[b])
    if mem:
        g.set_memory_limit(mem)
    g.set_latency(lat)
    return g


def main():
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    worst, within, within_work = 0.0, 0, 0
    for _ in range(cases):
        D = rng.randint(2, 8)
        S = rng.choice([D, 2 * D])
        split = rng.random() < 0.5
        scale = rng.choice([1, 10])
        spans = [(rng.randint(1, 6) * scale, rng.randint(1, 12) * scale,
                  rng.randint(1, 6) * scale) for _ in range(S)]
        need, _ = build(D, S, spans, split, 0, 0).min_memory(1)
        mem = rng.randint(max(need, 1), 2 * S)
        lat = (rng.choice([1, 3, 5]) * scale if rng.random() < 0.5
               else rng.choice([1, 2, 3]))
        N = rng.choice([16, 32, 64, 128])
        res = []
        for L in (0, lat):
            g = build(D, S, spans, split, mem, L)
            t = time.time()
            s = tessel.search(g, micro_batches=N)
            res.append((time.time() - t, s.work, s.proof_work, s.makespan, s.lower_bound))
        r = res[1][0] / max(res[0][0], 0.05)
        rw = res[1][1] / max(res[0][1], 100)
        worst = max(worst, r)
        within += r <= 2
        within_work += rw <= 2
        print("D=%d S=%d split=%d N=%d mem=%d latency=%d: without %.2f s, work %d "
              "(proof %d), makespan %d, LB %d | with %.2f s, work %d (proof %d), "
              "makespan %d, LB %d | ratio %.2f, of the work %.2f"
              % (D, S, split, N, mem, lat, *res[0], *res[1], r, rw), flush=True)
    print("seconds: %d of %d within 2x, largest ratio %.2f; work: %d of %d within 2x"
          % (within, cases, worst, within_work, cases))


if __name__ == "__main__":
    main()
