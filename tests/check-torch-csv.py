#!/usr/bin/env python3
"""The CSVs of `tessel search --format torch|torch-comms` against the rules
torch.distributed.pipelining applies when it loads one, checked without
torch (written from PyTorch's documented behaviour of _Action.from_str,
_validate_schedule, the compute-only lowering, _PipelineScheduleRuntime's
compute_comms execution and _simulate_comms_compute):

  - every action matches (\\d+)(F|I|B|W|UNSHARD|RESHARD|REDUCE_GRAD|SEND_F|
    RECV_F|SEND_B|RECV_B)(\\d*); one row per rank;
  - every stage on one rank; per stage N forwards, I and W counts equal,
    B + I = N; a B or I after its F, a W after its I (rank order);
  - compute-only: no communication, REDUCE_GRAD, UNSHARD nor RESHARD
    (PyTorch adds them);
    the lowering (sends after the compute, the receive put on the
    receiver's row when the sender computes) must progress;
  - compute+comms: a forward (backward) of a stage whose previous (next)
    stage is on another rank has its RECV_F (RECV_B) earlier on its row,
    no receive twice before its compute, each SEND after its compute,
    every send matched by one receive, REDUCE_GRAD once per stage after its
    N-th B or W, every compute of a stage between its one UNSHARD and its
    one RESHARD (after its REDUCE_GRAD), as the runtime asserts for a stage
    with FSDP; the lock-step simulation of all rows must finish (no
    deadlock). REDUCE_GRAD, UNSHARD and RESHARD are left out of the
    simulation: PyTorch's _simulate_comms_compute has no rule for them.

    check-torch-csv.py TESSEL
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ACTION = re.compile(r"(\d+)(F|I|B|W|UNSHARD|RESHARD|REDUCE_GRAD|SEND_F|"
                    r"RECV_F|SEND_B|RECV_B)(\d*)$")
COMPUTE = ("F", "I", "B", "W")


class Bad(Exception):
    pass


def parse(text):
    rows = []
    for line in text.splitlines():
        row = []
        for tok in line.split(","):
            tok = tok.strip()
            if not tok:
                continue
            m = ACTION.match(tok)
            if not m:
                raise Bad("invalid action %r" % tok)
            row.append((int(m.group(1)), m.group(2),
                        int(m.group(3)) if m.group(3) else None))
        rows.append(row)
    return rows


def validate(rows, nstages, n):
    """_validate_schedule's rules; returns the stage -> rank mapping."""
    seen = {s: {k: set() for k in COMPUTE} for s in range(nstages)}
    rank_of = {}
    for r, row in enumerate(rows):
        for step, (s, k, mb) in enumerate(row):
            if s >= nstages:
                raise Bad("rank %d step %d: stage %d >= %d" % (r, step, s,
                                                               nstages))
            if k in ("B", "I") and mb not in seen[s]["F"]:
                raise Bad("rank %d step %d: %d%s%d before its forward"
                          % (r, step, s, k, mb))
            if k == "W" and mb not in seen[s]["I"]:
                raise Bad("rank %d step %d: %dW%d before its I"
                          % (r, step, s, mb))
            if k in COMPUTE:
                seen[s][k].add(mb)
            if rank_of.setdefault(s, r) != r:
                raise Bad("stage %d on ranks %d and %d" % (s, rank_of[s], r))
    for s in range(nstages):
        f, b, i, w = (len(seen[s][k]) for k in COMPUTE[:1] + ("B", "I", "W"))
        if f != n:
            raise Bad("stage %d: %d forwards, expected %d" % (s, f, n))
        if i != w:
            raise Bad("stage %d: I=%d, W=%d" % (s, i, w))
        if b + (i + w) // 2 != n:
            raise Bad("stage %d: expected %d total backwards, got B=%d I=%d "
                      "W=%d" % (s, n, b, i, w))
    return rank_of


def comm_of(action, rank_of, nstages):
    """(send, recv) a compute action needs, or None."""
    s, k, mb = action
    if k == "F" and s < nstages - 1 and rank_of[s + 1] != rank_of[s]:
        return (s, "SEND_F", mb), (s + 1, "RECV_F", mb)
    if k in ("B", "I") and s > 0 and rank_of[s - 1] != rank_of[s]:
        return (s, "SEND_B", mb), (s - 1, "RECV_B", mb)
    return None


def lower(rows, rank_of, nstages):
    """The compute-only lowering: each rank's compute in order, its send
    right after, the receive appended to the receiver's row then."""
    out = {r: [] for r in range(len(rows))}
    done = {r: set() for r in range(len(rows))}
    todo = {r: list(row) for r, row in enumerate(rows) if row}

    def ready(a, prev):
        s, k, mb = a
        if k == "F" and s != 0:
            return (s, "RECV_F", mb) in prev or (s - 1, "F", mb) in prev
        if k in ("B", "I") and s != nstages - 1:
            return ((s, "RECV_B", mb) in prev or (s + 1, "I", mb) in prev
                    or (s + 1, "B", mb) in prev)
        return True

    while todo:
        progress = False
        for r in sorted(todo):
            a = todo[r][0]
            if not ready(a, done[r]):
                continue
            out[r].append(a)
            done[r].add(a)
            c = comm_of(a, rank_of, nstages)
            if c:
                send, recv = c
                out[r].append(send)
                done[r].add(send)
                out[rank_of[recv[0]]].append(recv)
                done[rank_of[recv[0]]].add(recv)
            todo[r].pop(0)
            if not todo[r]:
                del todo[r]
            progress = True
        if not progress:
            raise Bad("lowering: malformed compute schedule, sends and "
                      "receives cannot be placed")
    return [out[r] for r in range(len(rows))]


def run_checks(rows, rank_of, nstages, n):
    """compute_comms execution rules, rank by rank."""
    for r, row in enumerate(rows):
        mine = {s for s, rk in rank_of.items() if rk == r}
        posted = set()
        done = set()
        reduced = set()
        unsharded = set()
        resharded = set()
        count = {}
        for step, (s, k, mb) in enumerate(row):
            where = "rank %d step %d (%d%s%s)" % (r, step, s, k,
                                                  "" if mb is None else mb)
            if k in ("RECV_F", "RECV_B"):
                if (s, k, mb) in posted:
                    raise Bad("%s: received twice before its compute" % where)
                posted.add((s, k, mb))
            elif k == "F":
                if s != 0 and (s - 1) not in mine:
                    if (s, "RECV_F", mb) not in posted:
                        raise Bad("%s: computed before receiving" % where)
                    posted.discard((s, "RECV_F", mb))
            elif k in ("B", "I"):
                if s != nstages - 1 and (s + 1) not in mine:
                    if (s, "RECV_B", mb) not in posted:
                        raise Bad("%s: computed before receiving" % where)
                    posted.discard((s, "RECV_B", mb))
            elif k in ("SEND_F", "SEND_B"):
                want = ("F",) if k == "SEND_F" else ("B", "I")
                if not any((s, w, mb) in done for w in want):
                    raise Bad("%s: sent before its compute" % where)
            elif k == "REDUCE_GRAD":
                if s in reduced:
                    raise Bad("%s: twice" % where)
                if count.get(s, 0) != n:
                    raise Bad("%s: after %d of %d backwards"
                              % (where, count.get(s, 0), n))
                reduced.add(s)
            elif k == "UNSHARD":
                if s in unsharded or s in resharded:
                    raise Bad("%s: unsharded twice" % where)
                unsharded.add(s)
            elif k == "RESHARD":
                if s not in unsharded:
                    raise Bad("%s: resharded without unsharding" % where)
                if s not in reduced:
                    raise Bad("%s: resharded before REDUCE_GRAD" % where)
                unsharded.discard(s)
                resharded.add(s)
            if k in ("B", "W"):
                count[s] = count.get(s, 0) + 1
            if k in COMPUTE:
                if s in reduced:
                    raise Bad("%s: compute after REDUCE_GRAD" % where)
                if s not in unsharded:
                    raise Bad("%s: compute on a sharded stage" % where)
                done.add((s, k, mb))
        if reduced != mine:
            raise Bad("rank %d: REDUCE_GRAD missing for stages %s"
                      % (r, sorted(mine - reduced)))
        if resharded != mine:
            raise Bad("rank %d: RESHARD missing for stages %s"
                      % (r, sorted(mine - resharded)))
        if posted:
            raise Bad("rank %d: receives never used: %s" % (r, sorted(posted)))


def simulate(rows, rank_of, nstages):
    """Lock-step simulation of all rows: each step every rank runs its next
    action if it is ready (a receive needs the peer's send earlier); the
    schedule must finish. Returns the number of steps."""
    todo = {r: [a for a in row
                if a[1] not in ("REDUCE_GRAD", "UNSHARD", "RESHARD")]
            for r, row in enumerate(rows)}
    prev = {r: set() for r in todo}

    def ready(a):
        s, k, mb = a
        mine = prev[rank_of[s]]
        if k == "F":
            return s == 0 or (s, "RECV_F", mb) in mine or \
                (s - 1, "F", mb) in mine
        if k in ("B", "I"):
            return s == nstages - 1 or (s, "RECV_B", mb) in mine or \
                (s + 1, "I", mb) in mine or (s + 1, "B", mb) in mine
        if k == "W":
            return True
        if k == "SEND_F":
            return (s, "F", mb) in mine
        if k == "SEND_B":
            return (s, "I", mb) in mine or (s, "B", mb) in mine
        if k == "RECV_F":
            return (s - 1, "SEND_F", mb) in prev[rank_of[s - 1]]
        if k == "RECV_B":
            return (s + 1, "SEND_B", mb) in prev[rank_of[s + 1]]
        raise Bad("unsupported action %r" % (a,))

    steps = 0
    while any(todo.values()):
        progress = False
        for r in sorted(todo):
            if todo[r] and ready(todo[r][0]):
                prev[r].add(todo[r].pop(0))
                progress = True
        steps += 1
        if not progress:
            heads = {r: todo[r][0] for r in todo if todo[r]}
            raise Bad("the schedule does not progress (deadlock): %s"
                      % heads)
    return steps


def check(text, fmt, nstages, n, ndev):
    rows = parse(text)
    if len(rows) != ndev:
        raise Bad("%d rows for %d ranks" % (len(rows), ndev))
    computes = [[a for a in row if a[1] in COMPUTE] for row in rows]
    rank_of = validate(computes, nstages, n)
    if fmt == "torch":
        for r, row in enumerate(rows):
            for a in row:
                if a[1] not in COMPUTE:
                    raise Bad("compute-only row %d has %r" % (r, a))
        full = lower(rows, rank_of, nstages)
    else:
        full = rows
        if not any(a[1] == "REDUCE_GRAD" for row in rows for a in row):
            raise Bad("no REDUCE_GRAD")
        run_checks(rows, rank_of, nstages, n)
        # every send has its receive and no other
        sends = sorted((s + (1 if k == "SEND_F" else -1), k[-1], mb)
                       for row in rows for s, k, mb in row
                       if k.startswith("SEND"))
        recvs = sorted((s, k[-1], mb) for row in rows for s, k, mb in row
                       if k.startswith("RECV"))
        if sends != recvs:
            raise Bad("sends and receives do not pair")
    return simulate(full, rank_of, nstages)


def chain(stage_devices, split=False):
    k = len(stage_devices)
    blocks = []
    for s, d in enumerate(stage_devices):
        b = {"name": "f%d" % s, "kind": "forward", "span": 1, "memory": 1,
             "devices": [d]}
        if s:
            b["after"] = ["f%d" % (s - 1)]
        blocks.append(b)
    for s in reversed(range(k)):
        d = stage_devices[s]
        after = ["b%d" % (s + 1)] if s < k - 1 else ["f%d" % s]
        blocks.append({"name": "b%d" % s, "kind": "backward",
                       "span": 1 if split else 2,
                       "memory": 0 if split else -1, "devices": [d],
                       "after": after})
        if split:
            blocks.append({"name": "w%d" % s, "kind": "weight", "span": 1,
                           "memory": -1, "devices": [d],
                           "after": ["b%d" % s]})
    return blocks


def main():
    cli = sys.argv[1]
    D, N = 4, 8
    cases = [
        ("vshape", ["--preset", "vshape", "-d", str(D), "-m", str(D)], D),
        ("interleaved", {"devices": D, "memory_limit": 2 * D,
                         "blocks": chain([s % D for s in range(2 * D)])},
         2 * D),
        ("v-shape (stage s and 2D-1-s on one device)",
         {"devices": D, "memory_limit": 2 * D,
          "blocks": chain(list(range(D)) + list(reversed(range(D))))}, 2 * D),
        ("split backward", {"devices": D, "memory_limit": D,
                            "blocks": chain(list(range(D)), split=True)}, D),
    ]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, spec, nstages in cases:
            if isinstance(spec, dict):
                path = os.path.join(tmp, "placement.json")
                with open(path, "w") as f:
                    json.dump(spec, f)
                args = [path]
            else:
                args = spec
            for fmt in ("torch", "torch-comms"):
                r = subprocess.run([cli, "search"] + args +
                                   ["-n", str(N), "-t", "20",
                                    "--format", fmt],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    print("FAIL %s --format %s: exit %d: %s"
                          % (name, fmt, r.returncode, r.stderr.strip()))
                    failures += 1
                    continue
                try:
                    steps = check(r.stdout, fmt, nstages, N, D)
                    print("ok   %s --format %s: parsed, validated, "
                          "simulated in %d steps" % (name, fmt, steps))
                except Bad as exc:
                    print("FAIL %s --format %s: %s" % (name, fmt, exc))
                    failures += 1
    # the checker itself refuses what PyTorch refuses
    bad = [
        ("0F0,0B0\n", "torch-comms", "no REDUCE_GRAD"),
        ("0UNSHARD,0F0,0REDUCE_GRAD,0B0\n", "torch-comms", "after 0 of 1"),
        ("0F0,0B0,0REDUCE_GRAD,0RESHARD\n", "torch-comms", "sharded stage"),
        ("0UNSHARD,0F0,0B0,0REDUCE_GRAD\n", "torch-comms", "RESHARD missing"),
        ("0UNSHARD,0F0,0RESHARD,0B0,0REDUCE_GRAD\n", "torch-comms",
         "before REDUCE_GRAD"),
        ("0UNSHARD,0F0,0B0\n", "torch", "compute-only row"),
        ("0B0,0F0\n", "torch", "before its forward"),
        ("0F0\n", "torch", "expected 1 total backwards"),
        ("0F0,0X0\n", "torch", "invalid action"),
    ]
    for text, fmt, want in bad:
        try:
            check(text, fmt, 1, 1, 1)
            print("FAIL the checker accepted %r" % text)
            failures += 1
        except Bad as exc:
            if want not in str(exc):
                print("FAIL %r: %s (wanted %r)" % (text, exc, want))
                failures += 1
    two = ("0UNSHARD,0F0,0RECV_B0,0SEND_F0,0B0,0REDUCE_GRAD,0RESHARD\n"
           "1UNSHARD,1RECV_F0,1F0,1B0,1SEND_B0,1REDUCE_GRAD,1RESHARD\n")
    try:
        check(two, "torch-comms", 2, 1, 2)
        print("FAIL the checker accepted a deadlock")
        failures += 1
    except Bad as exc:
        if "deadlock" not in str(exc):
            print("FAIL deadlock case: %s" % exc)
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
