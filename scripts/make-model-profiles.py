#!/usr/bin/env python3
"""Model profiles of doc/examples/models/ from published formulas.

Writes the model profiles (doc/formats.md, "Model profile") of four models,
each at 8 and 16 devices and two memory sizes, and one inference profile:

  gpt-*         GPT-3 2.7B (Brown et al. 2020), decoder only
  t5-*          an encoder-decoder of T5-3B's depth and size (Raffel et
                al. 2020) in Megatron-LM's uniform layer shape
  multimodal-*  a LLaVA-1.5-7B-like model (Liu et al. 2023): CLIP ViT-L/14
                at 336 px, a two-layer projector, a 7B decoder
  alphafold-*   AlphaFold 2 (Jumper et al. 2021) at its fine-tuning crop

Every number is computed here from the models' hyper-parameters, the
hardware figures below and these published formulas:

  [N21] Narayanan et al., "Efficient large-scale language model training
        on GPU clusters using Megatron-LM", SC21: forward FLOPs of a
        transformer layer 24 b s h^2 (1 + s/(6h)), the output layer
        2 b s h V; 43-52% of the A100's 312 TFLOP/s achieved end to end.
  [Q23] Qi et al., "Zero bubble pipeline parallelism", ICLR 2024, Table 1:
        the backward (about twice the forward) split into the input
        gradient, b s h (24h + 8s), and the weight gradient, 24 b s h^2.
  [K22] Korthikanti et al., "Reducing activation recomputation in large
        transformer models", 2022: activations of a layer kept for the
        backward without recomputation, s b h (34 + 5 a s / h) bytes, the
        output layer's 4 s b h + 4 s b V (logits in fp32 for the loss).
  [R20] Rajbhandari et al., "ZeRO: memory optimizations toward training
        trillion parameter models", SC20: mixed-precision Adam holds 16
        bytes per parameter (fp16 weight and gradient, fp32 master weight,
        momentum and variance).
  [J21] Jumper et al., "Highly accurate protein structure prediction with
        AlphaFold", Nature 2021, and its supplementary information: the
        architecture (Algorithms 2-32), the fine-tuning crop (384
        residues, 512 MSA clusters, 5120 extra sequences, 4 templates),
        gradient checkpointing of each Evoformer block.
  [C22] Cheng et al., "FastFold: reducing AlphaFold training time from 11
        days to 67 hours", 2022: 6.02 PFLOP/s on 512 A100s.

Usage: make-model-profiles.py [--out DIR] [--check] [--quiet]
  --out DIR  where to write (default: doc/examples/models of this tree)
  --check    write nothing; exit 1 when a file in DIR differs from what
             would be written
  --quiet    no summary table
Standard library only.
"""
import argparse
import json
import os
import sys

GIB = 2.0 ** 30

# ---- hardware (doc/examples/models/README.md, "Hardware") --------------
A100_PEAK = 312e12        # dense bf16 tensor-core FLOP/s of an A100 SXM
MFU = 0.45                # achieved share of the peak, as [N21] (43-52%)
ACHIEVED = A100_PEAK * MFU  # 140.4 TFLOP/s
HBM = 1.3e12              # achieved HBM bandwidth, bytes/s, for the lookups
LINK = 25e9               # pipeline link: one 200 Gb/s HDR InfiniBand
                          # adapter per GPU (DGX A100), bytes/s
NVLINK_BUS = 200e9        # all-reduce bus bandwidth over NVLink 3 /
                          # NVSwitch inside a DGX A100, bytes/s
TP_EFFICIENCY = 0.88      # tensor-parallel efficiency of a layer's compute
FASTFOLD = 6.02e15 / 512  # [C22]: achieved FLOP/s per A100 on AlphaFold

BF16, FP32 = 2, 4
ADAM = 16                 # bytes per trained parameter [R20]


def ms(flops, rate):
    """Milliseconds of `flops` at `rate` FLOP/s."""
    return flops / rate * 1e3


def allreduce_ms(message_bytes, count):
    """`count` ring all-reduces of `message_bytes` over NVLink: each moves
    2 (t-1)/t of the message per device, bounded here by 2 so that one
    figure serves every tensor-parallel width t."""
    return count * 2.0 * message_bytes / NVLINK_BUS * 1e3


def sig(x, digits=4):
    """x rounded to `digits` significant digits."""
    return float("%.*g" % (digits, x))


class Layer:
    def __init__(self, name, f, b, w, act, params, after=None, tp=None):
        self.name, self.f, self.b, self.w = name, f, b, w
        self.act, self.params = act, params  # bytes, parameter count
        self.after, self.tp = after, tp       # tp: allreduce ms or None

    def json(self, mode, bytes_per_param, tp_default):
        d = {"name": self.name, "forward": sig(self.f)}
        if mode == "training":
            d["backward"] = sig(self.b)
            d["weight"] = sig(self.w)
            d["activation"] = sig(self.act / GIB)
        else:
            d["activation"] = 0
        d["parameters"] = sig(self.params * bytes_per_param / GIB)
        if self.after is not None:
            d["after"] = list(self.after)
        if self.tp is not None and tp_default is not None and \
                sig(self.tp) != tp_default["allreduce"]:
            d["tensor_parallel"] = {"efficiency": tp_default["efficiency"],
                                    "allreduce": sig(self.tp)}
        return d


# ---- transformer layers ([N21], [Q23], [K22]) -------------------------
def transformer(name, s, b, h, a, rate, after=None):
    """One Megatron-LM layer (self-attention, 4h MLP, two LayerNorms)."""
    gemm = 24.0 * b * s * h * h          # the weight GEMMs, forward
    attn = 4.0 * b * s * s * h           # Q K^T and attention x V
    return Layer(name, ms(gemm + attn, rate), ms(gemm + 2 * attn, rate),
                 ms(gemm, rate), s * b * h * (34.0 + 5.0 * a * s / h),
                 12 * h * h + 13 * h, after,
                 allreduce_ms(BF16 * s * b * h, 2))


def decoder_with_cross(name, sd, se, b, h, a, rate, after=None):
    """A decoder layer with cross-attention, counted as [N21] and [K22]
    count the self-attention: queries on the sd decoder tokens, keys and
    values on the se encoder tokens."""
    gemm = 2.0 * b * (14 * sd * h * h + 2 * se * h * h)
    attn = 4.0 * b * sd * sd * h + 4.0 * b * sd * se * h
    # self-attention block, MLP and LayerNorms as [K22]: 34 sd b h +
    # 5 a sd^2 b; cross-attention: Q-projection input, Q, output-
    # projection input 2 sd b h each, dropout mask sd b h, its LayerNorm
    # 2 sd b h; encoder output (K/V-projection input), K, V 2 se b h each;
    # softmax, its dropout mask and output 5 a sd se b.
    act = (43.0 * sd * b * h + 6.0 * se * b * h
           + 5.0 * a * b * (sd * sd + sd * se))
    return Layer(name, ms(gemm + attn, rate), ms(gemm + 2 * attn, rate),
                 ms(gemm, rate), act, 16 * h * h + 19 * h, after,
                 allreduce_ms(BF16 * sd * b * h, 3))


def embedding(name, tokens, b, h, vocab, positions, after=None):
    """A token (and learned position) embedding: a lookup, timed by its
    memory traffic: the forward reads the rows and the positions and
    writes the sum (3 x 2 bytes per element); an input layer has no input
    gradient; the weight gradient reads the output gradient and adds it
    into the fp32 gradient rows (2 + 2 x 4 bytes per element). Keeps the
    dropout mask (1 byte per element, [K22])."""
    n = tokens * b * h
    return Layer(name, 6.0 * n / HBM * 1e3, 0.0, 10.0 * n / HBM * 1e3,
                 float(n), (vocab + positions) * h, after,
                 allreduce_ms(BF16 * n, 1))


def lm_head(name, s, b, h, vocab, rate, after=None):
    """Final LayerNorm, output projection to the vocabulary and the loss:
    2 b s h V FLOPs in each pass [N21]; keeps 4 s b h + 4 s b V bytes
    [K22]; its own copy of the (tied) word embedding, as Megatron-LM keeps
    on the last stage."""
    gemm = 2.0 * b * s * h * vocab
    return Layer(name, ms(gemm, rate), ms(gemm, rate), ms(gemm, rate),
                 4.0 * s * b * h + 4.0 * s * b * vocab, vocab * h + 2 * h,
                 after, allreduce_ms(BF16 * s * b * h, 1))


# ---- the models ----------------------------------------------------------
def gpt():
    """GPT-3 2.7B (Brown et al. 2020, Table 2.1): 32 layers, d_model 2560,
    32 heads, context 2048; GPT-2 BPE vocabulary 50257 padded to 50304 as
    Megatron-LM pads it (a multiple of 128)."""
    L, h, a, s, b, V = 32, 2560, 32, 2048, 1, 50304
    layers = [embedding("embed", s, b, h, V, s)]
    layers += [transformer("layer%d" % i, s, b, h, a, ACHIEVED)
               for i in range(L)]
    layers.append(lm_head("head", s, b, h, V, ACHIEVED))
    return dict(name="gpt3-2.7b", layers=layers,
                transfer=BF16 * s * b * h / LINK * 1e3,
                tp_allreduce=allreduce_ms(BF16 * s * b * h, 2),
                hyper=dict(layers=L, hidden=h, heads=a, seq=s, micro_batch=b,
                           vocab=V))


def t5():
    """T5-3B's depth (24 encoder + 24 decoder layers) and size (~3B
    parameters) in Megatron-LM's T5 layer shape (hidden h, MLP 4h, a heads
    of h/a), so that [N21] and [K22] apply; T5's SentencePiece vocabulary
    of 32128; 512 input and 512 target tokens, 4 sequences a
    micro-batch."""
    L, h, a, se, sd, b, V = 24, 2048, 32, 512, 512, 4, 32128
    layers = [embedding("enc_embed", se, b, h, V, se)]
    layers += [transformer("enc%d" % i, se, b, h, a, ACHIEVED)
               for i in range(L)]
    layers[-1].params += 2 * h                       # encoder's final norm
    layers.append(embedding("dec_embed", sd, b, h, V, sd, after=[]))
    layers.append(decoder_with_cross("dec0", sd, se, b, h, a, ACHIEVED,
                                     after=["enc%d" % (L - 1), "dec_embed"]))
    layers += [decoder_with_cross("dec%d" % i, sd, se, b, h, a, ACHIEVED)
               for i in range(1, L)]
    layers.append(lm_head("head", sd, b, h, V, ACHIEVED))
    return dict(name="t5-3b-like", layers=layers,
                transfer=BF16 * max(se, sd) * b * h / LINK * 1e3,
                tp_allreduce=allreduce_ms(BF16 * se * b * h, 2),
                hyper=dict(encoder_layers=L, decoder_layers=L, hidden=h,
                           heads=a, encoder_seq=se, decoder_seq=sd,
                           micro_batch=b, vocab=V))


def multimodal():
    """LLaVA-1.5-7B-like (Liu et al. 2023, "Improved baselines with visual
    instruction tuning"), every part trained: CLIP ViT-L/14 at 336 px
    (Radford et al. 2021: 24 layers, width 1024, 16 heads; 576 patches +
    CLS = 577 tokens), its patch features through a two-layer GELU MLP
    projector (1024 -> 4096 -> 4096), then a LLaMA-7B-sized decoder
    (Touvron et al. 2023: 32 layers, width 4096, 32 heads, vocabulary
    32000, context 2048) on the 576 image tokens and 1472 text tokens.
    LLaMA's SwiGLU MLP (3 x 4096 x 11008 weights) is counted as the 4h MLP
    of [N21] (2 x 4096 x 16384 weights: 0.8% fewer, 0.5% of the layer)."""
    Lv, hv, av, sv, patch = 24, 1024, 16, 577, 14
    L, h, a, s, V, b = 32, 4096, 32, 2048, 32000, 1
    img = sv - 1
    text = s - img
    # patch embedding: a 14x14 stride-14 convolution of the 3 colour
    # channels (a GEMM), class token, positions, CLIP's pre-LayerNorm
    conv = 3 * patch * patch
    pe = 2.0 * b * img * conv * hv
    layers = [Layer("vit_embed", ms(pe, ACHIEVED), 0.0, ms(pe, ACHIEVED),
                    float(FP32 * b * img * conv + BF16 * b * sv * hv),
                    conv * hv + hv + sv * hv + 2 * hv,
                    tp=allreduce_ms(BF16 * b * sv * hv, 1))]
    layers += [transformer("vit%d" % i, sv, b, hv, av, ACHIEVED)
               for i in range(Lv)]
    proj = 2.0 * b * img * (hv * h + h * h)
    layers.append(Layer("projector", ms(proj, ACHIEVED), ms(proj, ACHIEVED),
                        ms(proj, ACHIEVED),
                        float(BF16 * b * img * (hv + 2 * h)),
                        hv * h + h + h * h + h,
                        tp=allreduce_ms(BF16 * b * img * h, 1)))
    layers.append(embedding("text_embed", text, b, h, V, 0, after=[]))
    layers.append(transformer("lm0", s, b, h, a, ACHIEVED,
                              after=["projector", "text_embed"]))
    layers += [transformer("lm%d" % i, s, b, h, a, ACHIEVED)
               for i in range(1, L)]
    layers.append(lm_head("head", s, b, h, V, ACHIEVED))
    return dict(name="llava-1.5-7b-like", layers=layers,
                transfer=BF16 * s * b * h / LINK * 1e3,
                tp_allreduce=allreduce_ms(BF16 * s * b * h, 2),
                hyper=dict(vision_layers=Lv, vision_hidden=hv,
                           vision_heads=av, vision_tokens=sv, layers=L,
                           hidden=h, heads=a, seq=s, text_tokens=text,
                           vocab=V, micro_batch=b))


# ---- AlphaFold 2 ([J21]) ------------------------------------------------
class Cost:
    """FLOPs of weight GEMMs and of weightless products (attention,
    triangle and outer products: input gradient only, twice their
    forward), parameters, fp32 elements kept by a checkpoint-free
    backward, and how many of those are attention probabilities."""

    def __init__(self, gemm=0.0, prod=0.0, params=0, elems=0.0, probs=0.0):
        self.gemm, self.prod, self.params = gemm, prod, params
        self.elems, self.probs = elems, probs

    def __add__(self, o):
        return Cost(self.gemm + o.gemm, self.prod + o.prod,
                    self.params + o.params, self.elems + o.elems,
                    self.probs + o.probs)

    def __mul__(self, k):
        return Cost(self.gemm * k, self.prod * k, self.params * k,
                    self.elems * k, self.probs * k)


def linear(rows, cin, cout, bias=True):
    """A linear layer on `rows` vectors: (FLOPs, parameters)."""
    return 2.0 * rows * cin * cout, cin * cout + (cout if bias else 0)


def msa_row_attention(ns, r, cm, cz, H, c):
    """Algorithm 7: gated row attention with pair bias."""
    M, P = ns * r, r * r
    g1, p1 = linear(M, cm, 4 * H * c)       # q, k, v, gate
    g2, p2 = linear(P, cz, H, bias=False)   # pair bias
    g3, p3 = linear(M, H * c, cm)           # output
    return Cost(g1 + g2 + g3, 4.0 * ns * H * r * r * c,
                p1 + p2 + p3 + 2 * cm + 2 * cz,
                2 * M * cm + 5 * M * H * c + ns * H * r * r + 2 * P * cz,
                ns * H * r * r)


def msa_column_attention(ns, r, cm, H, c):
    """Algorithm 8: gated column attention."""
    M = ns * r
    g1, p1 = linear(M, cm, 4 * H * c)
    g2, p2 = linear(M, H * c, cm)
    return Cost(g1 + g2, 4.0 * r * H * ns * ns * c, p1 + p2 + 2 * cm,
                2 * M * cm + 5 * M * H * c + r * H * ns * ns,
                r * H * ns * ns)


def msa_column_global_attention(ns, r, cm, H, c):
    """Algorithm 19 (extra MSA stack): one averaged query per column and
    head, one key and value head."""
    M = ns * r
    g1, p1 = linear(M, cm, H * c, bias=False)   # q
    g2, p2 = linear(M, cm, 2 * c, bias=False)   # k, v
    g3, p3 = linear(M, cm, H * c)               # gate
    g4, p4 = linear(M, H * c, cm)
    return Cost(g1 + g2 + g3 + g4, 4.0 * r * H * ns * c,
                p1 + p2 + p3 + p4 + 2 * cm,
                2 * M * cm + M * (2 * c + 2 * H * c) + r * H * ns,
                r * H * ns)


def transition(rows, ch, n):
    """Algorithms 9 and 15: LayerNorm, ch -> n ch, ReLU, -> ch."""
    g1, p1 = linear(rows, ch, n * ch)
    g2, p2 = linear(rows, n * ch, ch)
    return Cost(g1 + g2, 0.0, p1 + p2 + 2 * ch,
                2 * rows * ch + 2 * rows * n * ch)


def outer_product_mean(ns, r, cm, cz, c):
    """Algorithm 10."""
    M, P = ns * r, r * r
    g1, p1 = linear(M, cm, 2 * c)
    g2, p2 = linear(P, c * c, cz)
    return Cost(g1 + g2, 2.0 * ns * P * c * c, p1 + p2 + 2 * cm,
                2 * M * cm + 2 * M * c + P * c * c)


def triangle_multiplication(r, cz, c):
    """Algorithms 11 and 12 (one of them)."""
    P = r * r
    g1, p1 = linear(P, cz, 4 * c)        # a, b and their gates
    g2, p2 = linear(P, cz, cz)           # output gate
    g3, p3 = linear(P, c, cz)            # output
    return Cost(g1 + g2 + g3, 2.0 * r * P * c, p1 + p2 + p3 + 2 * cz + 2 * c,
                3 * P * cz + 8 * P * c)


def triangle_attention(r, cz, H, c):
    """Algorithms 13 and 14 (one of them)."""
    P = r * r
    g1, p1 = linear(P, cz, 4 * H * c)
    g2, p2 = linear(P, cz, H, bias=False)
    g3, p3 = linear(P, H * c, cz)
    return Cost(g1 + g2 + g3, 4.0 * r * H * r * r * c,
                p1 + p2 + p3 + 2 * cz,
                2 * P * cz + 5 * P * H * c + r * H * r * r,
                r * H * r * r)


def pair_stack_block(r, cz, mul_c, tri_H, tri_c, n):
    return (triangle_multiplication(r, cz, mul_c) * 2
            + triangle_attention(r, cz, tri_H, tri_c) * 2
            + transition(r * r, cz, n))


def evoformer_block(ns, r, cm, cz, H, c, global_column=False):
    """Algorithm 6 (and 18 for the extra MSA stack)."""
    col = (msa_column_global_attention(ns, r, cm, H, c) if global_column
           else msa_column_attention(ns, r, cm, H, c))
    return (msa_row_attention(ns, r, cm, cz, H, c) + col
            + transition(ns * r, cm, 4)
            + outer_product_mean(ns, r, cm, cz, 32)
            + pair_stack_block(r, cz, 128, 4, 32, 4))


def checkpointed(name, cost, kept_elems, rate, after=None):
    """A block under gradient checkpointing [J21]: it keeps its inputs
    (fp32) until the backward, whose time includes the forward run again;
    the weight gradient is the GEMMs once more."""
    f = ms(cost.gemm + cost.prod, rate)
    return Layer(name, f, f + ms(cost.gemm + 2 * cost.prod, rate),
                 ms(cost.gemm, rate), FP32 * kept_elems, cost.params, after)


def plain(name, cost, rate, after=None):
    return Layer(name, ms(cost.gemm + cost.prod, rate),
                 ms(cost.gemm + 2 * cost.prod, rate), ms(cost.gemm, rate),
                 FP32 * cost.elems, cost.params, after)


def alphafold():
    """AlphaFold 2 [J21], fine-tuning crop: 384 residues, 512 MSA
    clusters, 5120 extra sequences, 4 templates; c_m 256, c_z 128,
    c_e 64, c_t 64, c_s 384; one sample a micro-batch; one recycling
    iteration (the gradient-free recycling passes are left out)."""
    r, ns, ne, nt = 384, 512, 5120, 4
    cm, cz, ce, ct, cs = 256, 128, 64, 64, 384
    P, M = r * r, ns * r
    rate = FASTFOLD

    # input embedder, relative positions, recycling embedder, template
    # angle features, extra MSA features (Algorithms 2-5, 32)
    emb = Cost()
    for rows, cin, cout in [(r, 22, 2 * cz), (r, 22, cm), (M, 49, cm),
                            (P, 65, cz), (P, 15, cz), (nt * r, 57, cm),
                            (nt * r, cm, cm), (ne * r, 25, ce)]:
        g, p = linear(rows, cin, cout)
        emb += Cost(g, 0.0, p, rows * cin)
    emb.params += 2 * cm + 2 * cz                # recycling LayerNorms

    # template pair stack: each template's pair features (88 channels) to
    # c_t, two checkpointed pair-stack blocks at c_t, then pointwise
    # attention of the pair representation over the templates (Alg. 16,17)
    g, p = linear(P, 88, ct)
    tpl_block = pair_stack_block(r, ct, 64, 4, 16, 2)
    tq, tqp = linear(P, cz, 4 * 16, bias=False)
    tkv, tkvp = linear(nt * P, ct, 2 * 4 * 16, bias=False)
    to, top = linear(P, 4 * 16, cz)
    tpl = Cost(nt * (g + 2 * tpl_block.gemm) + tq + tkv + to,
               nt * 2 * tpl_block.prod + 4.0 * P * 4 * nt * 16,
               p + 2 * tpl_block.params + tqp + tkvp + top + 2 * ct,
               0.0)
    tpl_kept = nt * (P * 88 + 2 * P * ct) + 2 * P * cz + P * 4 * nt

    extra = evoformer_block(ne, r, ce, cz, 8, 8, global_column=True)
    evo = evoformer_block(ns, r, cm, cz, 8, 32)

    # structure module (Algorithm 20): 8 layers sharing their weights,
    # invariant point attention with 12 heads of 16 channels, 4 query
    # and 8 value points (Algorithm 22), transition, backbone update,
    # side-chain angle ResNet; not checkpointed
    H, c, pq, pv = 12, 16, 4, 8
    proj_out = 3 * H * c + 2 * H * pq * 3 + H * pv * 3
    concat = H * (cz + c + pv * 4)
    per_gemm = (2.0 * r * cs * proj_out + 2.0 * P * cz * H
                + 2.0 * r * concat * cs + 2.0 * r * 3 * cs * cs
                + 2.0 * r * (2 * cs * 128 + 4 * 128 * 128 + 128 * 14)
                + 2.0 * r * cs * 6)
    per_prod = (2.0 * P * H * (c + pq * 3) + 2.0 * P * H * (c + pv * 3)
                + 2.0 * P * H * cz)
    sm_params = (cs * cs + cs + 2 * cs + 2 * cz
                 + cs * proj_out + 3 * H * c + cz * H + H
                 + concat * cs + cs + 3 * (cs * cs + cs) + 6 * cs
                 + 2 * cs * 128 + 4 * (128 * 128 + 128) + 128 * 14 + 4 * cs)
    per_elems = (2 * H * P + r * (proj_out + concat + 8 * cs))
    sm = Cost(8 * per_gemm, 8 * per_prod, sm_params,
              2 * P * cz + 8 * per_elems)
    g1, p1 = linear(r, cs, cs)                   # initial single projection
    sm += Cost(g1, 0.0, p1, 0.0)

    # heads (1.9): distogram (64 bins), masked MSA (23 classes), pLDDT
    # (50 bins), experimentally resolved (37 atoms), predicted aligned
    # error (64 bins)
    heads = Cost()
    for rows, cin, cout in [(P, cz, 64), (M, cm, 23), (r, cs, 128),
                            (r, 128, 128), (r, 128, 50), (r, cs, 37),
                            (P, cz, 64)]:
        g, p = linear(rows, cin, cout)
        heads += Cost(g, 0.0, p, rows * cin + rows * cout)

    layers = [plain("embed", emb, rate)]
    layers[0].b = 0.0                           # features need no gradient
    layers.append(checkpointed("templates", tpl, tpl_kept, rate))
    for i in range(4):
        layers.append(checkpointed("extra_msa%d" % i, extra,
                                   ne * r * ce + P * cz, rate))
    for i in range(48):
        layers.append(checkpointed(
            "evo%d" % i, evo, M * cm + P * cz, rate,
            after=["embed", "extra_msa3"] if i == 0 else None))
    layers.append(plain("structure", sm, rate))
    layers.append(plain("heads", heads, rate, after=["evo47", "structure"]))
    return dict(name="alphafold2", layers=layers,
                transfer=FP32 * (M * cm + P * cz) / LINK * 1e3,
                tp_allreduce=None,
                # what the backward of the largest checkpointed block holds
                # while it runs (the block run again, checkpoint-free),
                # with attention kernels that recompute their
                # probabilities instead of keeping them
                workspace=max(FP32 * (x.elems - x.probs)
                              for x in (evo, extra, tpl_block)),
                hyper=dict(residues=r, msa=ns, extra_msa=ne, templates=nt,
                           c_m=cm, c_z=cz, c_e=ce, c_t=ct, c_s=cs,
                           evoformer_blocks=48, extra_msa_blocks=4,
                           micro_batch=1))


# ---- profiles ------------------------------------------------------------
def profile(model, devices, memory, micros, mode="training"):
    """The JSON document of `model` on `devices` devices of `memory` GiB."""
    tp = None
    if model["tp_allreduce"] is not None:
        tp = {"efficiency": TP_EFFICIENCY,
              "allreduce": sig(model["tp_allreduce"])}
    bpp = ADAM if mode == "training" else BF16   # inference: weights only
    doc = {"model": model["name"] + ("-inference" if mode != "training"
                                     else ""),
           "unit": "ms", "memory_unit": "GiB", "devices": devices,
           "memory_per_device": memory,
           "transfer": sig(model["transfer"]), "micro_batches": micros,
           "mode": mode}
    if tp:
        doc["tensor_parallel"] = tp
    doc["layers"] = [L.json(mode, bpp, tp) for L in model["layers"]]
    return doc


def dump(doc):
    """One member a line, one layer a line."""
    out = ["{"]
    keys = list(doc)
    for k in keys:
        comma = "," if k != keys[-1] else ""
        if k == "layers":
            out.append('  "layers": [')
            n = len(doc[k])
            for i, L in enumerate(doc[k]):
                out.append("    " + json.dumps(L) + ("," if i < n - 1 else ""))
            out.append("  ]" + comma)
        else:
            out.append("  %s: %s%s" % (json.dumps(k), json.dumps(doc[k]), comma))
    out.append("}")
    return "\n".join(out) + "\n"


# ---- estimates for the summary -------------------------------------------
def split(times, p):
    """Contiguous split of `times` into p stages minimising the largest
    stage (dynamic programme); returns the stage boundaries."""
    n = len(times)
    pre = [0.0]
    for t in times:
        pre.append(pre[-1] + t)
    INF = float("inf")
    best = [[INF] * (n + 1) for _ in range(p + 1)]
    cut = [[0] * (n + 1) for _ in range(p + 1)]
    best[0][0] = 0.0
    for k in range(1, p + 1):
        for j in range(k, n + 1):
            for i in range(k - 1, j):
                v = max(best[k - 1][i], pre[j] - pre[i])
                if v < best[k][j]:
                    best[k][j], cut[k][j] = v, i
    bounds, j = [], n
    for k in range(p, 0, -1):
        bounds.append((cut[k][j], j))
        j = cut[k][j]
    return bounds[::-1]


def estimate(doc):
    """Peak memory per device of a time-balanced contiguous split without
    tensor parallelism: 1F1B (stage i keeps min(p - i, m) micro-batches)
    and GPipe (all m)."""
    L = doc["layers"]
    p, m = doc["devices"], doc["micro_batches"]
    times = [x["forward"] + x.get("backward", 0) + x.get("weight", 0)
             for x in L]
    ofb = gp = 0.0
    for i, (lo, hi) in enumerate(split(times, p)):
        par = sum(x["parameters"] for x in L[lo:hi])
        act = sum(x["activation"] for x in L[lo:hi])
        ofb = max(ofb, par + min(p - i, m) * act)
        gp = max(gp, par + m * act)
    return ofb, gp


# memory_per_device of each file (GiB); README.md says why
TRAINING = {
    "gpt": [(8, 24), (8, 40), (16, 24), (16, 40)],
    "t5": [(8, 24), (8, 40), (16, 24), (16, 40)],
    "multimodal": [(8, 40), (8, 80), (16, 40), (16, 80)],
    "alphafold": [(8, 40), (8, 80), (16, 40), (16, 80)],
}
MICROS = 32
INFERENCE = ("gpt", 8, 40, 8)


def build():
    models = {"gpt": gpt(), "t5": t5(), "multimodal": multimodal(),
              "alphafold": alphafold()}
    files = {}
    for key, sizes in TRAINING.items():
        m = models[key]
        reserve = m.get("workspace", 0.0) / GIB
        for devices, mem in sizes:
            # AlphaFold: the block being recomputed holds all its
            # activations at once on top of what the profile counts
            usable = sig(mem - reserve, 3) if reserve else mem
            files["%s-%ddev-%dg.json" % (key, devices, mem)] = \
                profile(m, devices, usable, MICROS)
    key, devices, mem, micros = INFERENCE
    files["%s-%ddev-infer.json" % (key, devices)] = \
        profile(models[key], devices, mem, micros, mode="inference")
    return models, files


def summary(models, files):
    print("%-26s %6s %10s %10s %10s %9s %9s" % (
        "file", "layers", "F+B+W ms", "params GiB", "act GiB", "1F1B GiB",
        "GPipe GiB"))
    for name, doc in sorted(files.items()):
        L = doc["layers"]
        t = sum(x["forward"] + x.get("backward", 0) + x.get("weight", 0)
                for x in L)
        ofb, gp = estimate(doc)
        print("%-26s %6d %10.1f %10.2f %10.2f %9.1f %9.1f   (memory %g)" % (
            name, len(L), t, sum(x["parameters"] for x in L),
            sum(x["activation"] for x in L), ofb, gp,
            doc["memory_per_device"]))
    for key, m in models.items():
        n = sum(L.params for L in m["layers"])
        print("%s: %.4g parameters%s" % (
            key, n, "" if "workspace" not in m else
            "; the backward of one checkpointed block holds %.3g GiB" %
            (m["workspace"] / GIB)))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(here, "..", "doc",
                                                  "examples", "models"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    models, files = build()
    stale = []
    for name, doc in sorted(files.items()):
        path = os.path.join(args.out, name)
        text = dump(doc)
        if args.check:
            try:
                with open(path) as f:
                    if f.read() != text:
                        stale.append(name)
            except OSError:
                stale.append(name)
        else:
            os.makedirs(args.out, exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
    if not args.quiet:
        summary(models, files)
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
