#!/usr/bin/env python3
"""Default-budget search time on random placements of at most 8 devices,
of any shape: stages per device 1 to 4 in a round-robin, V or random
mapping, two forward branches joined, blocks on two devices at once,
inference graphs; spans 1 to 12 (1 to 40 for some), split backwards half
of the time, memory from the least one micro-batch needs to twice that
plus two stages, latency 0 to 3 (some dependencies with their own), 8 to
128 micro-batches. Prints each case and the median and largest seconds
outside the proof.

Usage: bench-any.py CASES SEED [DIR]   (TESSEL_LIBRARY names the library;
       DIR: each case's placement written there as CASE.json, with its
       memory limit, latency and micro-batches, for tessel search -n N)
"""
import random, sys, time, os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings", "python"))
import tessel

def build(rng):
    D = rng.randint(2, 8)
    shape = rng.choice(["rr", "v", "random", "branch", "tp", "infer"])
    c = rng.choice([1, 1, 2, 2, 3, 4]) if shape in ("rr", "random") else 2 if shape == "v" else 1
    S = c * D
    big = rng.random() < 0.25
    hi = 40 if big else 12
    g = tessel.Graph(D)
    if shape == "v":
        dev = [s if s < D else 2 * D - 1 - s for s in range(S)]
    elif shape == "random":
        dev = [rng.randrange(D) for _ in range(S)]
    else:
        dev = [s % D for s in range(S)]
    infer = shape == "infer"
    split = not infer and rng.random() < 0.5
    lat = []
    def after(prev):
        return [prev] if prev is not None else None
    f = []
    if shape == "branch" and D >= 3:
        # two branches on devices [0, h) and [h, D-1), joined on D-1
        h = (D - 1) // 2 or 1
        a = b = None
        for d in range(h):
            a = g.add_block("fa%d" % d, "forward", rng.randint(1, hi), 1, devices=[d], after=after(a))
        for d in range(h, D - 1):
            b = g.add_block("fb%d" % d, "forward", rng.randint(1, hi), 1, devices=[d], after=after(b))
        j = g.add_block("fj", "forward", rng.randint(1, hi), 1, devices=[D - 1],
                        after=[x for x in (a, b) if x is not None])
        fw = [(g, "fa%d" % d, d) for d in range(h)] + [(g, "fb%d" % d, d) for d in range(h, D - 1)]
        pb = g.add_block("bj", "backward", rng.randint(1, 2 * hi), 0 if split else -1, devices=[D - 1], after=[j])
        if split:
            g.add_block("wj", "weight", rng.randint(1, hi), -1, devices=[D - 1], after=[pb])
        for pre, rng_d in (("a", range(h - 1, -1, -1)), ("b", range(D - 2, h - 1, -1))):
            prev = pb
            for d in rng_d:
                prev = g.add_block("b%s%d" % (pre, d), "backward", rng.randint(1, 2 * hi), 0 if split else -1, devices=[d], after=[prev])
                if split:
                    g.add_block("w%s%d" % (pre, d), "weight", rng.randint(1, hi), -1, devices=[d], after=[prev])
        return g, D, "branch", S
    sdevs = []
    for s in range(S):
        devs = [dev[s]]
        if shape == "tp" and rng.random() < 0.4 and D >= 2:
            other = (dev[s] + 1) % D
            devs = sorted([dev[s], other])
        sdevs.append(devs)
        f.append(g.add_block("f%d" % s, "forward", rng.randint(1, hi), 0 if infer else 1,
                             devices=devs, after=after(f[-1] if f else None)))
    if not infer:
        prev = f[-1]
        for s in reversed(range(S)):
            b = g.add_block("b%d" % s, "backward", rng.randint(1, 2 * hi), 0 if split else -1, devices=sdevs[s], after=[prev])
            prev = b
            if split:
                g.add_block("w%d" % s, "weight", rng.randint(1, hi), -1, devices=sdevs[s], after=[b])
    return g, D, shape, S

def main():
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    rows = []
    for case in range(cases):
        g, D, shape, S = build(rng)
        need, _ = g.min_memory(1)
        mem = rng.randint(max(need, 1), 2 * max(need, 1) + 2)
        g.set_memory_limit(mem)
        g.set_latency(rng.choice([0, 0, 1, 3]))
        N = rng.choice([8, 16, 32, 64, 128])
        if len(sys.argv) > 3:
            with open(os.path.join(sys.argv[3], "%d.json" % case), "w") as f:
                f.write(g.to_json())
        t = time.time()
        s = tessel.search(g, micro_batches=N)
        el = time.time() - t
        w, p = s.work, s.proof_work
        out = el * (w - p) / max(w, 1)
        rows.append((out, el))
        print("%3d %-6s D=%d S=%d N=%d mem=%d: %.2f s (%.2f s outside the proof), work %d, proof %d, makespan %d LB %d" % (case, shape, D, S, N, mem, el, out, w, p, s.makespan, s.lower_bound), flush=True)
    ex = sorted(r[0] for r in rows); tot = sorted(r[1] for r in rows)
    print("outside the proof: median %.2f, max %.2f; total: median %.2f, max %.2f" % (ex[len(ex)//2], ex[-1], tot[len(tot)//2], tot[-1]))
main()
