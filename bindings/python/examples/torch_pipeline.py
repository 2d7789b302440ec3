#!/usr/bin/env python3
"""Run a libtessel schedule for real: D processes train a small model.

    torch_pipeline.py --devices 4 --micro-batches 8 --steps 3 \
        --placement vshape|interleaved|zbsplit|xshape|PLACEMENT.json \
        [--recompute]

The placement (built here, or read from a placement JSON file,
doc/formats.md) is searched with the libtessel command line
(`tessel search PLACEMENT --format actions`), and each of the D processes
(torch.multiprocessing, gloo on 127.0.0.1) executes its device's action
stream: compute F, B and W (where the backward is split), send and
receive activations and gradients with torch.distributed point-to-point
operations, then the optimizer step. After --steps steps, every parameter
is compared with the same training in one process, and the same runtime is
driven by the 1F1B and GPipe orders of the same model on a plain D-stage
pipeline:

    max parameter difference 4.16e-17
    baselines: max parameter difference 1f1b 4.16e-17, gpipe 4.16e-17
    step time: tessel 0.2003 s, 1f1b 0.2104 s, gpipe 0.2635 s (median of
    5 steps, after one untimed step of each)

Placements:
  vshape       D stages, stage s on device s (F on 0..D-1, B back).
  interleaved  2D stages, stage s on device s mod D (two chunks a device).
  zbsplit      D stages, each backward split into B (input gradient) and
               W (weight gradient).
  xshape       two pipelines in opposite directions (Chimera-like): device
               d holds stage d of one and stage D-1-d of the other; both are
               replicas of the same model, each gets half the micro-batches
               (2N model micro-batches), and the two replicas of a stage sum
               their gradients (all-reduce) before the step.
  FILE         a placement JSON file. Its forward blocks must form chains
               (each forward after at most one forward); every chain is a
               replica of one model of K stages; each backward (and
               weight) block follows its chain back one stage at a time and
               runs on its forward's device.

Blocks on several devices (tensor parallelism: mshape, nnshape, kshape)
are refused with a message: this runtime runs every block on one device.

Recomputation (--recompute): every forward block of the placement that
declares no alternative gets a recompute (libtessel 1.6: its whole
activation, the forward's span again in its backward), and the memory
limit is half the placement's default (a file's: its own) unless
--memory is given. The search then decides per micro-batch: `tessel
search --format json` gives each entry its "choice", and the action
streams are built here from the schedule's per-device order (the rule of
libtessel's action streams: receives just before a block, sends just
after it). For a forward whose choice is "recompute" the runtime keeps
only the forward's input (the forward runs under torch.no_grad()), and
its backward runs the forward again with autograd before
backpropagating; the parameters must still match the one-process
training:

    recompute: 4 of 16 forward micro-batches recomputed (memory limit 2),
    4 by the runtime

A placement file's own recompute declarations are honoured the same way
(with or without --recompute; each must name its stage's backward). An
offload ("offload" and "reload" actions, or the choice "offload" of a
placement that declares one) is a copy to host memory: this runtime
already holds every tensor in host memory and lets it be.

The command line is found with --tessel, else $TESSEL_CLI, else `tessel`
on PATH, else build/tools/tessel of the source tree this file is in. The
CLI's JSON output is used (not the Python binding), so the example needs
only a libtessel install and torch. Exit status: 0 success, 1 the run
failed or the parameters differ by more than 1e-9, 2 bad usage, 77 torch
is not importable (the test suite counts it as skipped).
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
except ImportError as exc:  # torch is optional for libtessel's users
    print("torch_pipeline: torch is not importable (%s); install PyTorch "
          "(Debian: apt-get install --no-install-recommends python3-torch)"
          % exc, file=sys.stderr)
    sys.exit(77)

TOLERANCE = 1e-9


class UsageError(Exception):
    pass


# ---------------------------------------------------------------------------
# Placements
# ---------------------------------------------------------------------------

def _block(name, kind, span, memory, device, after=(), stage=None):
    b = {"name": name, "kind": kind, "span": span, "memory": memory,
         "devices": [device]}
    if after:
        b["after"] = list(after)
    if stage is not None:
        b["stage"] = stage
    return b


def chain_blocks(stage_devices, prefix="", split=False):
    """Blocks of one pipeline: forwards f<s>, backwards b<s> (and w<s>)."""
    k = len(stage_devices)
    blocks = []
    for s, d in enumerate(stage_devices):
        blocks.append(_block("%sf%d" % (prefix, s), "forward", 1, 1, d,
                             ["%sf%d" % (prefix, s - 1)] if s else [], s))
    for s in reversed(range(k)):
        d = stage_devices[s]
        after = ["%sb%d" % (prefix, s + 1)] if s < k - 1 else \
            ["%sf%d" % (prefix, s)]
        if split:
            blocks.append(_block("%sb%d" % (prefix, s), "backward", 1, 0, d,
                                 after, s))
            blocks.append(_block("%sw%d" % (prefix, s), "weight", 1, -1, d,
                                 ["%sb%d" % (prefix, s)], s))
        else:
            blocks.append(_block("%sb%d" % (prefix, s), "backward", 2, -1,
                                 d, after, s))
    return blocks


def build_placement(name, devices):
    """(placement dict, default memory limit) of a named placement."""
    D = devices
    if name == "vshape":
        return {"devices": D, "blocks": chain_blocks(list(range(D)))}, D
    if name == "interleaved":
        return ({"devices": D,
                 "blocks": chain_blocks([s % D for s in range(2 * D)])},
                2 * D)
    if name == "zbsplit":
        return ({"devices": D,
                 "blocks": chain_blocks(list(range(D)), split=True)}, D)
    if name == "xshape":
        blocks = chain_blocks(list(range(D)), "x") + \
            chain_blocks([D - 1 - s for s in range(D)], "y")
        return {"devices": D, "blocks": blocks}, D + 2
    raise UsageError("unknown placement '%s'" % name)


class Structure:
    """The model structure a placement implies (see the module doc)."""

    def __init__(self, placement):
        blocks = placement.get("blocks")
        if not isinstance(blocks, list) or not blocks:
            raise UsageError("placement: no blocks")
        self.ndevices = int(placement.get("devices", 0))
        self.blocks = blocks
        self.by_name = {}
        for gid, b in enumerate(blocks):
            devs = b.get("devices", [])
            if len(devs) != 1:
                raise UsageError(
                    "block '%s' occupies %d devices; this runtime runs "
                    "every block on one device (no tensor parallelism)"
                    % (b.get("name"), len(devs)))
            self.by_name[b["name"]] = gid
        deps = []
        for b in blocks:
            d = []
            for a in b.get("after", []):
                d.append(self.by_name[a if isinstance(a, str) else a["block"]])
            deps.append(d)
        self.deps = deps
        kind = [b["kind"] for b in blocks]
        self.kind = kind
        self.device = [b["devices"][0] for b in blocks]
        succ = [[] for _ in blocks]
        for c, ds in enumerate(deps):
            for a in ds:
                succ[a].append(c)
        # forward chains
        self.chain = [None] * len(blocks)   # chain index of every block
        self.stage = [None] * len(blocks)   # stage (model chunk) index
        chains = []
        for g, ds in enumerate(deps):
            if kind[g] != "forward":
                continue
            fdeps = [a for a in ds if kind[a] == "forward"]
            if len(fdeps) > 1:
                raise UsageError("forward block '%s' follows %d forward "
                                 "blocks; this runtime runs chains"
                                 % (blocks[g]["name"], len(fdeps)))
            if not fdeps:
                chains.append(g)
        self.nchains = len(chains)
        self.chain_forwards = []
        for c, root in enumerate(chains):
            seq = [root]
            while True:
                nxt = [s for s in succ[seq[-1]] if kind[s] == "forward"]
                if len(nxt) > 1:
                    raise UsageError("forward block '%s' feeds %d forward "
                                     "blocks" % (blocks[seq[-1]]["name"],
                                                 len(nxt)))
                if not nxt:
                    break
                seq.append(nxt[0])
            for s, g in enumerate(seq):
                self.chain[g] = c
                self.stage[g] = s
            self.chain_forwards.append(seq)
        ks = {len(seq) for seq in self.chain_forwards}
        if len(ks) != 1:
            raise UsageError("the forward chains have different lengths %s"
                             % sorted(ks))
        self.nstages = ks.pop()
        # backward and weight blocks: walk back along the chain
        self.backward_of = {}  # (chain, stage) -> gid
        self.weight_of = {}
        pending = [g for g in range(len(blocks)) if kind[g] != "forward"]
        progress = True
        while pending and progress:
            progress = False
            for g in list(pending):
                ds = deps[g]
                c = s = None
                if kind[g] == "backward":
                    fd = [a for a in ds if kind[a] == "forward"]
                    bd = [a for a in ds if kind[a] == "backward"]
                    if bd:
                        if self.stage[bd[0]] is None:
                            continue
                        c, s = self.chain[bd[0]], self.stage[bd[0]] - 1
                    elif fd and self.stage[fd[0]] == self.nstages - 1:
                        c, s = self.chain[fd[0]], self.nstages - 1
                    table = self.backward_of
                else:
                    bd = [a for a in ds if kind[a] == "backward"]
                    if bd:
                        if self.stage[bd[0]] is None:
                            continue
                        c, s = self.chain[bd[0]], self.stage[bd[0]]
                    table = self.weight_of
                if c is None or s < 0 or (c, s) in table:
                    raise UsageError("cannot tell which stage block '%s' "
                                     "belongs to" % blocks[g]["name"])
                table[(c, s)] = g
                self.chain[g], self.stage[g] = c, s
                pending.remove(g)
                progress = True
        if pending:
            raise UsageError("cannot tell which stage block '%s' belongs to"
                             % blocks[pending[0]]["name"])
        for c in range(self.nchains):
            for s in range(self.nstages):
                f = self.chain_forwards[c][s]
                b = self.backward_of.get((c, s))
                if b is None:
                    raise UsageError("stage %d of the chain of '%s' has no "
                                     "backward block (training only)"
                                     % (s, blocks[self.chain_forwards[c][0]]
                                        ["name"]))
                for g in (b, self.weight_of.get((c, s))):
                    if g is not None and self.device[g] != self.device[f]:
                        raise UsageError(
                            "block '%s' runs on device %d but its forward "
                            "'%s' on device %d; the activations stay where "
                            "the forward ran" % (blocks[g]["name"],
                                                 self.device[g],
                                                 blocks[f]["name"],
                                                 self.device[f]))
        self.split = {(c, s): (c, s) in self.weight_of
                      for c in range(self.nchains)
                      for s in range(self.nstages)}

    def runtime_blocks(self):
        """Per gid: (kind, chain, [stages]) for the runtime."""
        return [(self.kind[g], self.chain[g], [self.stage[g]])
                for g in range(len(self.blocks))]


# ---------------------------------------------------------------------------
# Orders
# ---------------------------------------------------------------------------

def find_tessel(arg):
    if arg:
        return arg
    env = os.environ.get("TESSEL_CLI")
    if env:
        return env
    on_path = shutil.which("tessel")
    if on_path:
        return on_path
    here = os.path.dirname(os.path.abspath(__file__))
    cand = os.path.join(here, "..", "..", "..", "build", "tools", "tessel")
    if os.path.exists(cand):
        return os.path.normpath(cand)
    raise UsageError("the tessel command line was not found: give --tessel "
                     "PATH or set TESSEL_CLI")


def tessel_streams(cli, placement, nmicros, memory, time_limit):
    """Per-device action streams from `tessel search --format actions`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "placement.json")
        with open(path, "w") as f:
            json.dump(placement, f)
        cmd = [cli, "search", path, "-n", str(nmicros), "--format",
               "actions", "-t", str(time_limit)]
        if memory is not None:
            cmd += ["-m", str(memory)]
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        secs = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s"
                           % (" ".join(cmd), r.returncode, r.stderr.strip()))
    doc = json.loads(r.stdout)
    streams = [[] for _ in range(doc["ndevs"])]
    for dev in doc["devices"]:
        for a in dev["actions"]:
            streams[dev["device"]].append(
                (a["op"], a["gid"], a["mid"], a.get("peer", -1),
                 a.get("peer_gid", -1)))
    return streams, secs


def tessel_schedule_streams(cli, placement, nmicros, memory, time_limit,
                            deps, device):
    """Per-device action streams and the recomputed (gid, mid) of
    `tessel search --format json`: each device's entries in the order of
    their start steps, with receives and sends added as libtessel's
    action streams add them."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "placement.json")
        with open(path, "w") as f:
            json.dump(placement, f)
        cmd = [cli, "search", path, "-n", str(nmicros), "--format", "json",
               "-t", str(time_limit)]
        if memory is not None:
            cmd += ["-m", str(memory)]
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        secs = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s"
                           % (" ".join(cmd), r.returncode, r.stderr.strip()))
    doc = json.loads(r.stdout)
    per_device = [[] for _ in range(doc["ndevs"])]
    recompute = set()
    for e in doc["blocks"]:
        for d in e["device"]:
            per_device[d].append((e["step"], e["gid"], e["mid"]))
        if e.get("choice") == "recompute":
            recompute.add((e["gid"], e["mid"]))
    orders = [[(g, m) for _, g, m in sorted(entries)]
              for entries in per_device]
    return streams_from_orders(orders, deps, device), recompute, secs


def declare_recompute(placement, st, add=True):
    """Give every forward block that declares no alternative a recompute
    of its whole activation, paired with its stage's backward (when
    `add`); check those a placement file declares. Returns the number
    declared."""
    declared = 0
    for g, b in enumerate(placement["blocks"]):
        if st.kind[g] != "forward":
            continue
        backward = st.backward_of[(st.chain[g], st.stage[g])]
        alt = b.get("recompute")
        if alt is not None:
            if alt.get("backward") != st.blocks[backward]["name"]:
                raise UsageError(
                    "block '%s' declares its recompute with '%s'; this "
                    "runtime recomputes in its stage's backward '%s'"
                    % (b["name"], alt.get("backward"),
                       st.blocks[backward]["name"]))
            continue
        if not add or "offload" in b or b.get("memory", 0) < 1:
            continue
        b["recompute"] = {"backward": st.blocks[backward]["name"],
                          "saves": b["memory"],
                          "extra": span_steps(placement, b)}
        declared += 1
    return declared


def span_steps(placement, b):
    """A block's span in steps: its "span", or its "duration" over the
    placement's "step" rounded up as libtessel rounds it."""
    if "span" in b:
        return int(b["span"])
    step = placement.get("step")
    if not step or "duration" not in b:
        raise UsageError("block '%s' gives no span and the placement no "
                         "step: declare its recompute in the file, or "
                         "give the placement a \"step\"" % b["name"])
    ratio = float(b["duration"]) / float(step)
    near = round(ratio)
    return max(1, int(near if abs(ratio - near) <= 1e-9 * max(1.0, ratio)
                      else math.ceil(ratio)))


def chain_baseline(D, K, nmodel):
    """A plain D-stage pipeline of the same K-stage model (device d holds
    the consecutive stages of group d), its blocks for the runtime and its
    dependencies: gids 0..D-1 forwards, D..2D-1 backwards (D+d is stage d's
    backward)."""
    if K % D:
        raise UsageError("the baselines need the %d stages to split evenly "
                         "over %d devices" % (K, D))
    per = K // D
    blocks, deps, device = [], [], []
    for d in range(D):
        blocks.append(("forward", 0, list(range(d * per, (d + 1) * per))))
        deps.append([d - 1] if d else [])
        device.append(d)
    for d in range(D):
        blocks.append(("backward", 0, list(range(d * per, (d + 1) * per))))
        deps.append([D + d + 1] if d < D - 1 else [D - 1])
        device.append(d)
    return blocks, deps, device


def baseline_order(family, D, N):
    """Compute order (gid, mid) of each device for GPipe or 1F1B."""
    orders = []
    for d in range(D):
        o = []
        if family == "gpipe":
            o += [(d, m) for m in range(N)]
            o += [(D + d, m) for m in range(N)]
        else:
            warm = min(D - 1 - d, N)
            o += [(d, m) for m in range(warm)]
            for i in range(N - warm):
                o.append((d, warm + i))
                o.append((D + d, i))
            o += [(D + d, m) for m in range(N - warm, N)]
        orders.append(o)
    return orders


def streams_from_orders(orders, deps, device):
    """Action streams from compute orders: receives right before a compute,
    sends right after, the same rule as libtessel's action streams."""
    succ = [[] for _ in deps]
    for c, ds in enumerate(deps):
        for a in ds:
            succ[a].append(c)
    streams = []
    for d, order in enumerate(orders):
        s = []
        for g, m in order:
            for a in deps[g]:
                if device[a] != d:
                    s.append(("recv", g, m, device[a], a))
            s.append(("compute", g, m, -1, -1))
            for c in succ[g]:
                if device[c] != d:
                    s.append(("send", g, m, device[c], c))
        streams.append(s)
    return streams


# ---------------------------------------------------------------------------
# The model and its training
# ---------------------------------------------------------------------------

def make_model(K, hidden, seed):
    torch.manual_seed(seed)
    layers = []
    for _ in range(K):
        layers.append(torch.nn.Linear(hidden, hidden).double())
    return layers


def stage_forward(layer, x):
    return torch.tanh(layer(x))


def make_data(nmodel, mbsize, hidden, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(nmodel * mbsize, hidden, generator=g, dtype=torch.float64)
    t = torch.randn(nmodel * mbsize, hidden, generator=g, dtype=torch.float64)
    return x, t


def sgd_step(params, state, lr, momentum):
    with torch.no_grad():
        for p in params:
            buf = state.get(id(p))
            if buf is None:
                buf = p.grad.clone()
                state[id(p)] = buf
            else:
                buf.mul_(momentum).add_(p.grad)
            p.add_(buf, alpha=-lr)
            p.grad = None


def reference_training(cfg):
    layers = make_model(cfg["K"], cfg["hidden"], cfg["seed"])
    x, t = make_data(cfg["nmodel"], cfg["mbsize"], cfg["hidden"],
                     cfg["seed"] + 1)
    params = [p for layer in layers for p in layer.parameters()]
    state = {}
    for _ in range(cfg["steps"]):
        y = x
        for layer in layers:
            y = stage_forward(layer, y)
        loss = ((y - t) ** 2).sum() / x.shape[0]
        loss.backward()
        sgd_step(params, state, cfg["lr"], cfg["momentum"])
    return [[p.detach().clone() for p in layer.parameters()]
            for layer in layers]


class Runtime:
    """One device's executor of an action stream."""

    def __init__(self, rank, cfg, blocks, deps, device, nchains,
                 recompute=frozenset()):
        self.rank = rank
        # (forward gid, mid) whose activation is not kept: recomputed in
        # the backward
        self.recompute = recompute
        self.recomputed = 0
        self.cfg = cfg
        self.blocks = blocks      # gid -> (kind, chain, [stages])
        self.deps = deps
        self.device = device
        self.nchains = nchains
        self.nb = len(blocks)
        K = cfg["K"]
        self.K = K
        # the forward block of each (chain, first stage) and the backward
        # block of each (chain, stage group) for the hand-offs
        self.fwd_of = {}
        self.bwd_of = {}
        self.wgt_of = {}
        for g, (kind, c, stages) in enumerate(blocks):
            key = (c, stages[0])
            {"forward": self.fwd_of, "backward": self.bwd_of,
             "weight": self.wgt_of}[kind][key] = g

    def tag(self, producer, consumer, mid):
        return (mid * self.nb + producer) * self.nb + consumer

    def run(self, streams, steps, replicas):
        cfg = self.cfg
        layers = make_model(self.K, cfg["hidden"], cfg["seed"])
        x_all, t_all = make_data(cfg["nmodel"], cfg["mbsize"], cfg["hidden"],
                                 cfg["seed"] + 1)
        mine = sorted({s for g, (kind, c, stages) in enumerate(self.blocks)
                       if self.device[g] == self.rank for s in stages})
        params = [p for s in mine for p in layers[s].parameters()]
        state = {}
        times = []
        for _ in range(steps):
            dist.barrier()
            t0 = time.perf_counter()
            self.step(streams[self.rank], layers, x_all, t_all)
            # replicas of a stage (xshape) sum their gradients
            for s in mine:
                group = replicas.get(s)
                if group is not None:
                    for p in layers[s].parameters():
                        dist.all_reduce(p.grad, group=group)
            sgd_step(params, state, cfg["lr"], cfg["momentum"])
            dist.barrier()
            times.append(time.perf_counter() - t0)
        return ({s: [p.detach().clone() for p in layers[s].parameters()]
                 for s in mine}, times, self.recomputed // steps)

    def step(self, stream, layers, x_all, t_all):
        cfg = self.cfg
        mbs = cfg["mbsize"]
        hidden = cfg["hidden"]
        recvs = {}      # (consumer, producer, mid) -> (work, buffer)
        local = {}      # (producer, mid) -> tensor made on this device
        saved = {}      # (forward gid, mid) -> (input, output)
        grads_in = {}   # (backward gid, mid) -> gradient of the output
        sends = []
        for op, g, m, peer, pg in stream:
            kind, c, stages = self.blocks[g]
            model_mb = m * self.nchains + c
            if op in ("offload", "reload", "wait"):
                # a copy to host memory and back: every tensor of this
                # runtime is in host memory already
                continue
            if op == "recv":
                buf = torch.empty(mbs, hidden, dtype=torch.float64)
                work = dist.irecv(buf, src=peer, tag=self.tag(pg, g, m))
                recvs[(g, pg, m)] = (work, buf)
            elif op == "send":
                t = local[(g, m)]
                sends.append((dist.isend(t, dst=peer, tag=self.tag(g, pg, m)),
                              t))
            elif kind == "forward":
                if stages[0] == 0:
                    x = x_all[model_mb * mbs:(model_mb + 1) * mbs]
                else:
                    x = self.input_of(g, m, recvs, local).requires_grad_()
                if (g, m) in self.recompute:
                    # keep the input only: no autograd graph, no
                    # activations; the backward runs the forward again
                    with torch.no_grad():
                        y = self.forward(layers, stages, x, t_all, model_mb)
                    saved[(g, m)] = (x, None)
                else:
                    y = self.forward(layers, stages, x, t_all, model_mb)
                    saved[(g, m)] = (x, y)
                local[(g, m)] = y.detach()
            elif kind == "backward":
                fg = self.fwd_of[(c, stages[0])]
                x, y = saved[(fg, m)]
                if y is None:
                    # recompute: the forward again, with autograd (a
                    # weight block, where the backward is split, uses it)
                    y = self.forward(layers, stages, x, t_all, model_mb)
                    saved[(fg, m)] = (x, y)
                    self.recomputed += 1
                gy = None if stages[-1] == self.K - 1 else \
                    self.input_of(g, m, recvs, local)
                split = (c, stages[0]) in self.wgt_of
                if not split:
                    torch.autograd.backward(y, gy)
                    gx = x.grad if stages[0] > 0 else None
                    del saved[(fg, m)]
                else:
                    gx = None
                    if stages[0] > 0:
                        gx, = torch.autograd.grad(y, [x], gy,
                                                  retain_graph=True)
                    grads_in[(g, m)] = gy
                if gx is not None:
                    local[(g, m)] = gx
            else:  # weight
                fg = self.fwd_of[(c, stages[0])]
                bg = self.bwd_of[(c, stages[0])]
                x, y = saved.pop((fg, m))
                ps = [p for s in stages for p in layers[s].parameters()]
                gs = torch.autograd.grad(y, ps, grads_in.pop((bg, m)))
                for p, gp in zip(ps, gs):
                    p.grad = gp if p.grad is None else p.grad + gp
        for work, _ in sends:
            work.wait()
        if recvs:
            raise RuntimeError("device %d: %d receives never used"
                               % (self.rank, len(recvs)))

    def forward(self, layers, stages, x, t_all, model_mb):
        """The output of a forward block's stages (the loss on the last
        stage)."""
        y = x
        for s in stages:
            y = stage_forward(layers[s], y)
        if stages[-1] == self.K - 1:
            mbs = self.cfg["mbsize"]
            total = self.cfg["nmodel"] * mbs
            t = t_all[model_mb * mbs:(model_mb + 1) * mbs]
            y = ((y - t) ** 2).sum() / total
        return y

    def input_of(self, g, m, recvs, local):
        """The activation (forward) or gradient (backward) block g needs."""
        kind = self.blocks[g][0]
        for a in self.deps[g]:
            if self.blocks[a][0] != kind:
                continue
            key = (g, a, m)
            if key in recvs:
                work, buf = recvs.pop(key)
                work.wait()
                return buf
            if (a, m) in local and self.device[a] == self.rank:
                return local[(a, m)]
        raise RuntimeError("device %d: block %d micro-batch %d has no input "
                           "(the stream computes it before its input)"
                           % (self.rank, g, m))


def worker(rank, cfg, runs, outdir):
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(cfg["port"])
    import datetime
    dist.init_process_group(
        "gloo", rank=rank, world_size=cfg["D"],
        timeout=datetime.timedelta(seconds=cfg["timeout"]))
    results = {}
    # one untimed step of each order first: gloo connects a pair of ranks
    # on its first transfer, and the first steps allocate; the timed runs
    # then start alike
    for warm in (True, False):
        for name in runs:
            out = run_one(rank, cfg, runs[name], 1 if warm else cfg["steps"])
            if not warm:
                results[name] = out
    torch.save(results, os.path.join(outdir, "rank%d.pt" % rank))
    dist.barrier()
    dist.destroy_process_group()


def run_one(rank, cfg, run, steps):
    """Train `steps` steps from the initial model with one order."""
    blocks, deps, device, nchains, streams, recompute = run
    # the devices holding each stage (several only for replicas);
    # new_group is collective: every rank creates every group in order
    holders = {}
    for g, (kind, c, stages) in enumerate(blocks):
        for s in stages:
            holders.setdefault(s, set()).add(device[g])
    replicas = {}
    for s in sorted(holders):
        if len(holders[s]) > 1:
            grp = dist.new_group(sorted(holders[s]))
            if rank in holders[s]:
                replicas[s] = grp
    rt = Runtime(rank, cfg, blocks, deps, device, nchains, recompute)
    return rt.run(streams, steps, replicas)


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--devices", type=int, default=4)
    ap.add_argument("--micro-batches", type=int, default=8)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--placement", default="vshape")
    ap.add_argument("--memory", default=None,
                    help="memory limit for the search (default: D for "
                         "vshape and zbsplit, 2D interleaved, D+2 xshape, "
                         "the file's own)")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--micro-batch-size", type=int, default=16)
    ap.add_argument("--tessel", default=None,
                    help="the tessel command line (default $TESSEL_CLI, "
                         "PATH, then the source tree's build/tools/tessel)")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="watchdog: seconds before a stuck run is ended")
    ap.add_argument("--time-limit", type=float, default=30.0,
                    help="time limit of the search")
    ap.add_argument("--recompute", action="store_true",
                    help="declare a recompute on every forward block (the "
                         "search decides per micro-batch; default memory "
                         "limit: half the placement's)")
    a = ap.parse_args(argv)
    try:
        return run(a)
    except UsageError as exc:
        print("torch_pipeline: %s" % exc, file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print("torch_pipeline: error: %s" % exc, file=sys.stderr)
        return 1


def run(a):
    D, N, S = a.devices, a.micro_batches, a.steps
    if D < 1 or N < 1 or S < 1:
        raise UsageError("--devices, --micro-batches and --steps must be "
                         ">= 1")
    if a.hidden < 1 or a.micro_batch_size < 1 or a.timeout <= 0:
        raise UsageError("--hidden, --micro-batch-size and --timeout must "
                         "be > 0")
    if os.path.exists(a.placement) or a.placement.endswith(".json"):
        try:
            with open(a.placement) as f:
                placement = json.load(f)
        except (OSError, ValueError) as exc:
            raise UsageError("cannot read %s: %s" % (a.placement, exc))
        memory = a.memory
        if int(placement.get("devices", 0)) != D:
            raise UsageError("%s has %s devices, --devices is %d"
                             % (a.placement, placement.get("devices"), D))
    else:
        placement, memory = build_placement(a.placement, D)
        if a.recompute:
            # tighter than the placement needs: recomputing pays off
            memory = max(1, memory // 2)
        if a.memory is not None:
            memory = a.memory
    st = Structure(placement)
    K = st.nstages
    nmodel = N * st.nchains
    cli = find_tessel(a.tessel)
    recompute = frozenset()
    # a placement file may declare recomputes of its own: honoured too
    choices = a.recompute or any("recompute" in b for b in st.blocks)
    if choices:
        declare_recompute(placement, st, add=a.recompute)
        streams, recompute, search_s = tessel_schedule_streams(
            cli, placement, N, memory, a.time_limit, st.deps, st.device)
    else:
        streams, search_s = tessel_streams(cli, placement, N, memory,
                                           a.time_limit)
    runs = {"tessel": (st.runtime_blocks(), st.deps, st.device, st.nchains,
                       streams, recompute)}
    bblocks, bdeps, bdev = chain_baseline(D, K, nmodel)
    for fam in ("1f1b", "gpipe"):
        runs[fam] = (bblocks, bdeps, bdev, 1,
                     streams_from_orders(baseline_order(fam, D, nmodel),
                                         bdeps, bdev), frozenset())
    cfg = {"D": D, "K": K, "nmodel": nmodel, "mbsize": a.micro_batch_size,
           "hidden": a.hidden, "seed": 1234, "lr": 0.05, "momentum": 0.9,
           "steps": S, "port": free_port(), "timeout": a.timeout}
    print("placement %s: %d devices, %d stages, %d pipeline(s), %d model "
          "micro-batches; search %.3f s" % (a.placement, D, K, st.nchains,
                                           nmodel, search_s))
    with tempfile.TemporaryDirectory() as outdir:
        ctx = mp.spawn(worker, args=(cfg, runs, outdir), nprocs=D,
                       join=False)
        deadline = time.monotonic() + a.timeout
        try:
            while not ctx.join(timeout=0.5):
                if time.monotonic() > deadline:
                    for p in ctx.processes:
                        if p.is_alive():
                            p.terminate()
                    raise RuntimeError(
                        "watchdog: the run did not finish within %g s (a "
                        "device waits for a transfer that never comes, or "
                        "a worker hung); ended" % a.timeout)
        except mp.ProcessRaisedException as exc:
            raise RuntimeError("a worker failed:\n%s" % exc)
        except mp.ProcessExitedException as exc:
            raise RuntimeError("a worker exited: %s" % exc)
        results = [torch.load(os.path.join(outdir, "rank%d.pt" % r))
                   for r in range(D)]
    ref = reference_training(cfg)
    diffs, times = {}, {}
    for name in runs:
        worst = 0.0
        seen = set()
        for r in range(D):
            got = results[r][name][0]
            for s, ps in got.items():
                seen.add(s)
                for p, q in zip(ps, ref[s]):
                    worst = max(worst, (p - q).abs().max().item())
        if seen != set(range(K)):
            raise RuntimeError("%s: stages %s were not trained"
                               % (name, sorted(set(range(K)) - seen)))
        diffs[name] = worst
        # a step lasts as long as its slowest device (barriers around it)
        per_step = [max(results[r][name][1][i] for r in range(D))
                    for i in range(S)]
        times[name] = sorted(per_step)[len(per_step) // 2]
    if choices:
        forwards = sum(1 for k in st.kind if k == "forward") * N
        by_runtime = sum(results[r]["tessel"][2] for r in range(D))
        print("recompute: %d of %d forward micro-batches recomputed "
              "(memory limit %s), %d by the runtime"
              % (len(recompute), forwards,
                 memory if memory is not None else "of the file",
                 by_runtime))
        if by_runtime != len(recompute):
            raise RuntimeError("the runtime recomputed %d forwards, the "
                               "schedule %d" % (by_runtime, len(recompute)))
    print("max parameter difference %.3g" % diffs["tessel"])
    print("baselines: max parameter difference 1f1b %.3g, gpipe %.3g"
          % (diffs["1f1b"], diffs["gpipe"]))
    print("step time: tessel %.4f s, 1f1b %.4f s, gpipe %.4f s (median of "
          "%d steps, after one untimed step of each)"
          % (times["tessel"], times["1f1b"], times["gpipe"], S))
    bad = [n for n, v in diffs.items() if not v <= TOLERANCE]
    if bad:
        print("torch_pipeline: parameters differ by more than %g from the "
              "one-process training: %s" % (TOLERANCE, ", ".join(bad)),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
