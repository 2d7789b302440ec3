/* Published pipeline schedules: the placement and the per-device order of
 * each family, rebuilt from its paper and reference code (cited at each
 * generator), and the schedule that order gives when executed as early as
 * possible. See published.h for the conventions.
 *
 * SPDX-License-Identifier: MIT
 */
#include "published.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Families                                                                   */
/* ------------------------------------------------------------------------ */

static const char *const family_names[PUB_NFAMILIES] = {
	"gpipe", "1f1b", "zb-h1", "zb-h2", "zb-v", "v-half", "v-min",
	"dualpipe", "dualpipe-v", "interleaved", "chimera",
};

const char *pub_family_name(pub_family family)
{
	if ((int)family < 0 || family >= PUB_NFAMILIES)
		return NULL;
	return family_names[family];
}

int pub_family_find(pub_family *out, const char *name)
{
	for (int f = 0; f < PUB_NFAMILIES; f++)
		if (name && strcmp(name, family_names[f]) == 0) {
			*out = (pub_family)f;
			return 0;
		}
	return -1;
}

int pub_family_splits(pub_family family)
{
	switch (family) {
	case PUB_ZB_H1:
	case PUB_ZB_H2:
	case PUB_ZB_V:
	case PUB_V_HALF:
	case PUB_V_MIN:
	case PUB_DUALPIPE:
	case PUB_DUALPIPE_V:
		return 1;
	default:
		return 0;
	}
}

int pub_family_pairs(pub_family family)
{
	return family == PUB_DUALPIPE || family == PUB_CHIMERA;
}

/* ------------------------------------------------------------------------ */
/* Errors, orders                                                             */
/* ------------------------------------------------------------------------ */

static int fail(char *why, size_t whylen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *why, size_t whylen, int code, const char *fmt, ...)
{
	if (why && whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* A library call failed: its message. */
static int lib_fail(char *why, size_t whylen, int code, const char *what)
{
	const char *detail = tessel_error_last();
	return fail(why, whylen, code, "%s: %s", what,
		    detail[0] ? detail : tessel_strerror(code));
}

void pub_order_free(pub_order *order)
{
	if (!order)
		return;
	for (int d = 0; d < order->ndevices && order->steps; d++)
		free(order->steps[d]);
	free(order->steps);
	free(order->len);
	free(order->cap);
	tessel_graph_free(order->graph);
	free(order);
}

int pub_order_new(pub_order **out, int ndevices, int64_t nmicros)
{
	pub_order *o = calloc(1, sizeof *o);
	if (!o)
		return TESSEL_ENOMEM;
	o->ndevices = ndevices;
	o->nmicros = nmicros;
	o->len = calloc((size_t)ndevices, sizeof *o->len);
	o->cap = calloc((size_t)ndevices, sizeof *o->cap);
	o->steps = calloc((size_t)ndevices, sizeof *o->steps);
	int rc = o->len && o->cap && o->steps ? TESSEL_OK : TESSEL_ENOMEM;
	if (!rc)
		rc = tessel_graph_new(&o->graph, ndevices);
	if (rc) {
		pub_order_free(o);
		return rc;
	}
	*out = o;
	return TESSEL_OK;
}

int pub_order_push(pub_order *o, int d, int gid, int64_t micro)
{
	if (o->len[d] == o->cap[d]) {
		size_t cap = o->cap[d] ? 2 * o->cap[d] : 64;
		pub_step *s = realloc(o->steps[d], cap * sizeof *s);
		if (!s)
			return TESSEL_ENOMEM;
		o->steps[d] = s;
		o->cap[d] = cap;
	}
	o->steps[d][o->len[d]].gid = gid;
	o->steps[d][o->len[d]].micro = micro;
	o->len[d]++;
	return TESSEL_OK;
}

/* ------------------------------------------------------------------------ */
/* Placements: chains of stages                                               */
/* ------------------------------------------------------------------------ */

/* A chain of n stages: stage s on device dev[s], its forward, backward and
 * (split) weight blocks. */
typedef struct chain {
	int n;
	int *dev;
	int *f, *b, *w; /* gids; w[s] = -1 without a split */
} chain;

static void chain_free(chain *c)
{
	free(c->dev);
	free(c->f);
	free(c->b);
	free(c->w);
	memset(c, 0, sizeof *c);
}

static int chain_alloc(chain *c, int n)
{
	memset(c, 0, sizeof *c);
	c->n = n;
	c->dev = calloc((size_t)n, sizeof *c->dev);
	c->f = calloc((size_t)n, sizeof *c->f);
	c->b = calloc((size_t)n, sizeof *c->b);
	c->w = calloc((size_t)n, sizeof *c->w);
	if (!c->dev || !c->f || !c->b || !c->w) {
		chain_free(c);
		return TESSEL_ENOMEM;
	}
	return TESSEL_OK;
}

static int add_block(int *gid, tessel_graph *g, const char *prefix, char kind,
		     int stage, int span, int memory, int device, int stage_no)
{
	char name[48];
	tessel_kind k = kind == 'f' ? TESSEL_KIND_FORWARD
		      : kind == 'b' ? TESSEL_KIND_BACKWARD : TESSEL_KIND_WEIGHT;
	snprintf(name, sizeof name, "%s%c%d", prefix, kind, stage);
	int rc = tessel_graph_add_block(gid, g, name, k, span, memory);
	if (!rc)
		rc = tessel_graph_place(g, *gid, &device, 1);
	if (!rc)
		rc = tessel_graph_set_stage(g, *gid, stage_no);
	return rc;
}

/* Add chain c (c->n and c->dev set) to g: the forward blocks in stage
 * order, then for each stage from the last the backward block and, with a
 * split, the weight block. Stage numbers start at stage0. */
static int chain_build(chain *c, tessel_graph *g, const char *prefix,
		       int stage0, int split, const pub_params *p)
{
	int rc = TESSEL_OK;
	for (int s = 0; s < c->n && !rc; s++) {
		rc = add_block(&c->f[s], g, prefix, 'f', s, p->f, 1, c->dev[s],
			       stage0 + s);
		if (!rc && s > 0)
			rc = tessel_graph_add_dep(g, c->f[s - 1], c->f[s]);
	}
	for (int s = c->n - 1; s >= 0 && !rc; s--) {
		rc = add_block(&c->b[s], g, prefix, 'b', s, p->b, split ? 0 : -1,
			       c->dev[s], stage0 + s);
		if (!rc)
			rc = tessel_graph_add_dep(g, s == c->n - 1 ? c->f[s]
								     : c->b[s + 1],
						  c->b[s]);
		c->w[s] = -1;
		if (!rc && split) {
			rc = add_block(&c->w[s], g, prefix, 'w', s, p->w, -1,
				       c->dev[s], stage0 + s);
			if (!rc)
				rc = tessel_graph_add_dep(g, c->b[s], c->w[s]);
		}
	}
	return rc;
}

/* TESSEL_EINVAL when the caller does not want the order of o's placement
 * (pub_params.wanted), else TESSEL_OK. */
static int unwanted(const pub_order *o, const pub_params *p)
{
	return p->wanted && !p->wanted(o->graph, p->wanted_arg) ? TESSEL_EINVAL
								 : TESSEL_OK;
}

/* A plain pipeline: stage s on device s. */
static int plain_chain(chain *c, pub_order *o, int split, const pub_params *p)
{
	int rc = chain_alloc(c, p->devices);
	for (int s = 0; s < c->n && !rc; s++)
		c->dev[s] = s;
	if (!rc)
		rc = chain_build(c, o->graph, "", 0, split, p);
	if (!rc)
		rc = unwanted(o, p);
	return rc;
}

/* A V: 2D stages, stage s on device s for s < D, on device 2D-1-s after
 * (device d holds stages d and 2D-1-d). */
static int v_chain(chain *c, pub_order *o, const pub_params *p)
{
	int D = p->devices;
	int rc = chain_alloc(c, 2 * D);
	for (int s = 0; s < c->n && !rc; s++)
		c->dev[s] = s < D ? s : 2 * D - 1 - s;
	if (!rc)
		rc = chain_build(c, o->graph, "", 0, 1, p);
	if (!rc)
		rc = unwanted(o, p);
	return rc;
}

/* Two plain pipelines in opposite directions: direction 0 has stage s on
 * device s, direction 1 (names prefixed "r", stage numbers D + s) has stage
 * s on device D-1-s. */
static int two_chains(chain c[2], pub_order *o, int split, const pub_params *p)
{
	int D = p->devices;
	int rc = chain_alloc(&c[0], D);
	if (!rc)
		rc = chain_alloc(&c[1], D);
	for (int s = 0; s < D && !rc; s++) {
		c[0].dev[s] = s;
		c[1].dev[s] = D - 1 - s;
	}
	if (!rc)
		rc = chain_build(&c[0], o->graph, "", 0, split, p);
	if (!rc)
		rc = chain_build(&c[1], o->graph, "r", D, split, p);
	if (!rc)
		rc = unwanted(o, p);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* GPipe, 1F1B, ZB-H1, ZB-H2: one stage per device                            */
/* ------------------------------------------------------------------------ */

/* GPipe (Huang et al., NeurIPS 2019): every forward, then every backward,
 * micro-batches in order on each device (as ScheduleGPipe in PyTorch's
 * torch/distributed/pipelining/schedules.py). */
static int gen_gpipe(pub_order *o, const pub_params *p, char *why, size_t wl)
{
	chain c;
	int rc = plain_chain(&c, o, 0, p);
	for (int d = 0; d < p->devices && !rc; d++) {
		for (int64_t m = 0; m < o->nmicros && !rc; m++)
			rc = pub_order_push(o, d, c.f[d], m);
		for (int64_t m = 0; m < o->nmicros && !rc; m++)
			rc = pub_order_push(o, d, c.b[d], m);
	}
	chain_free(&c);
	(void)why;
	(void)wl;
	return rc;
}

/* 1F1B, PipeDream-flush (Narayanan et al., ICML 2021 "Memory-Efficient
 * Pipeline-Parallel DNN Training"; Megatron-LM's
 * forward_backward_pipelining_without_interleaving, PyTorch's
 * Schedule1F1B): device d runs min(D-1-d, N) forwards, then alternates one
 * forward and one backward, then runs the backwards left. */
static int gen_1f1b(pub_order *o, const pub_params *p, char *why, size_t wl)
{
	chain c;
	int64_t N = o->nmicros;
	int rc = plain_chain(&c, o, 0, p);
	for (int d = 0; d < p->devices && !rc; d++) {
		int64_t warm = p->devices - 1 - d < N ? p->devices - 1 - d : N;
		for (int64_t m = 0; m < warm && !rc; m++)
			rc = pub_order_push(o, d, c.f[d], m);
		for (int64_t k = 0; k < N - warm && !rc; k++) {
			rc = pub_order_push(o, d, c.f[d], warm + k);
			if (!rc)
				rc = pub_order_push(o, d, c.b[d], k);
		}
		for (int64_t k = N - warm; k < N && !rc; k++)
			rc = pub_order_push(o, d, c.b[d], k);
	}
	chain_free(&c);
	(void)why;
	(void)wl;
	return rc;
}

/* Split 1F1B after a warm-up of `warm` forwards: then each step runs a
 * forward (first, when forward_first) and a backward, and from the
 * (delay+1)-th backward on, after each backward, the weight block of the
 * oldest backward whose weight block has not run; the weight blocks left
 * run at the end. */
static int split_1f1b_device(pub_order *o, const chain *c, int d, int64_t warm,
			     int64_t delay, int forward_first)
{
	int64_t N = o->nmicros, f = 0, b = 0, w = 0;
	int rc = TESSEL_OK;
	if (warm > N)
		warm = N;
	while (f < warm && !rc)
		rc = pub_order_push(o, d, c->f[d], f++);
	while (b < N && !rc) {
		if (forward_first && f < N)
			rc = pub_order_push(o, d, c->f[d], f++);
		if (!rc)
			rc = pub_order_push(o, d, c->b[d], b++);
		if (!rc && b > delay && w < b)
			rc = pub_order_push(o, d, c->w[d], w++);
		if (!rc && !forward_first && f < N)
			rc = pub_order_push(o, d, c->f[d], f++);
	}
	while (w < N && !rc)
		rc = pub_order_push(o, d, c->w[d], w++);
	return rc;
}

/* ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024,
 * section 3.1, figure 3 top): 1F1B's warm-up of D-1-d forwards, then one
 * forward and one backward (input gradient) per step, the weight block of
 * device d delayed by d backwards so that it fills the bubbles while the
 * memory stays within 1F1B's peak (D activations). As PyTorch's
 * ScheduleInterleavedZeroBubble with one stage per rank
 * (torch/distributed/pipelining/schedules.py, _get_1f1b_rank_ops with
 * enable_zero_bubble, num_1f1b_microbatches = rank) and the
 * zb-h1-quick-start branch of sail-sg/zero-bubble-pipeline-parallelism
 * ("delay W by rank"). */
static int gen_zb_h1(pub_order *o, const pub_params *p, char *why, size_t wl)
{
	chain c;
	int rc = plain_chain(&c, o, 1, p);
	for (int d = 0; d < p->devices && !rc; d++)
		rc = split_1f1b_device(o, &c, d, p->devices - 1 - d, d, 1);
	chain_free(&c);
	(void)why;
	(void)wl;
	return rc;
}

/* ZB-H2 (the same paper, section 3.1, figure 3 bottom): extra forwards in
 * the warm-up fill the bubble before the first backward (device d runs
 * 2(D-1-d)+1 forwards, as many as fit before the first backward reaches
 * it), then backward, weight, forward per step; the weight blocks of the
 * last micro-batches move to the tail, device d delaying them by 2d
 * backwards, which turns the trapezoid into a parallelogram: for equal
 * spans no bubble is left and each device holds at most 2D-1 activations.
 * The order is built from that description (the paper gives the schedule
 * as a figure; the reference repository's schedules are searched, not
 * handcrafted). */
static int gen_zb_h2(pub_order *o, const pub_params *p, char *why, size_t wl)
{
	chain c;
	int rc = plain_chain(&c, o, 1, p);
	for (int d = 0; d < p->devices && !rc; d++)
		rc = split_1f1b_device(o, &c, d, 2 * (p->devices - 1 - d) + 1,
				       2 * d, 0);
	chain_free(&c);
	(void)why;
	(void)wl;
	return rc;
}

/* ------------------------------------------------------------------------ */
/* ZB-V: two chunks per device in a V                                         */
/* ------------------------------------------------------------------------ */

/* ZB-V (Qi et al., "Zero Bubble Pipeline Parallelism", arXiv 2401.10241,
 * section 6; the handcrafted schedule of
 * megatron/core/pipeline_parallel/handcrafted_zb_v.py in
 * sail-sg/zero-bubble-pipeline-parallelism (branch legacy-main) and
 * ScheduleZBVZeroBubble in PyTorch's schedules.py). Chunk 0 of device d is
 * stage d, chunk 1 stage 2D-1-d. With M = max(2D-1, N): 2(D-d)-1 forwards
 * of chunk 0; d pairs of forwards (chunk 1, chunk 0); D-d rounds of
 * forward, backward and weight of chunk 1; then rounds of forward, backward
 * and weight of chunk 0 and of chunk 1 until every forward has run; then d
 * pairs of backwards (chunk 0, chunk 1), D-d pairs (backward, weight) of
 * chunk 0, and the weight blocks left of chunk 1, then of chunk 0.
 * Entries of micro-batches N .. M-1 are dropped. */
static int gen_zb_v(pub_order *o, const pub_params *p, char *why, size_t wl)
{
	chain c;
	int D = p->devices;
	int64_t N = o->nmicros, M = 2 * (int64_t)D - 1 > N ? 2 * (int64_t)D - 1 : N;
	int rc = v_chain(&c, o, p);
	for (int d = 0; d < D && !rc; d++) {
		int s0 = d, s1 = 2 * D - 1 - d;
		int64_t f0 = 0, f1 = 0, b0 = 0, b1 = 0, w0, w1;
#define ZBV_PUSH(gid, m) \
	do { \
		if (!rc && (m) < N) \
			rc = pub_order_push(o, d, (gid), (m)); \
	} while (0)
		for (int i = 0; i < 2 * (D - d) - 1; i++, f0++)
			ZBV_PUSH(c.f[s0], f0);
		for (int i = 0; i < d; i++, f1++, f0++) {
			ZBV_PUSH(c.f[s1], f1);
			ZBV_PUSH(c.f[s0], f0);
		}
		for (int i = 0; i < D - d; i++, f1++, b1++) {
			ZBV_PUSH(c.f[s1], f1);
			ZBV_PUSH(c.b[s1], b1);
			ZBV_PUSH(c.w[s1], b1);
		}
		while ((f1 < f0 || f0 < M) && !rc) {
			if (f0 < M) {
				ZBV_PUSH(c.f[s0], f0);
				f0++;
			}
			ZBV_PUSH(c.b[s0], b0);
			ZBV_PUSH(c.w[s0], b0);
			b0++;
			ZBV_PUSH(c.f[s1], f1);
			ZBV_PUSH(c.b[s1], b1);
			ZBV_PUSH(c.w[s1], b1);
			f1++;
			b1++;
		}
		w0 = b0;
		w1 = b1;
		for (int i = 0; i < d; i++, b0++, b1++) {
			ZBV_PUSH(c.b[s0], b0);
			ZBV_PUSH(c.b[s1], b1);
		}
		for (int i = 0; i < D - d; i++, b0++, w0++) {
			ZBV_PUSH(c.b[s0], b0);
			ZBV_PUSH(c.w[s0], w0);
		}
		for (; w1 < b1; w1++)
			ZBV_PUSH(c.w[s1], w1);
		for (; w0 < b0; w0++)
			ZBV_PUSH(c.w[s0], w0);
#undef ZBV_PUSH
		if (!rc && !(f0 == M && b0 == M && w0 == M && f1 == M && b1 == M &&
			     w1 == M))
			rc = fail(why, wl, TESSEL_ERROR,
				  "zb-v: device %d ran %lld/%lld/%lld and "
				  "%lld/%lld/%lld blocks of %lld", d,
				  (long long)f0, (long long)b0, (long long)w0,
				  (long long)f1, (long long)b1, (long long)w1,
				  (long long)M);
	}
	chain_free(&c);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* V-Half and V-Min: building blocks, squeezed                                */
/* ------------------------------------------------------------------------ */

/* V-Half and V-Min (Qi et al., "Pipeline Parallelism with Controllable
 * Memory", NeurIPS 2024, arXiv 2405.15362, sections 3-4), as built by
 * megatron/core/pipeline_parallel/zerobubble/scheduler/zbv_greedy.py in
 * sail-sg/zero-bubble-pipeline-parallelism: a building block gives, on a
 * time line of unit slots, the slot of micro-batch 0's forward of chunk 0
 * (type 0), forward of chunk 1 (type 1), backward of chunk 1 (type 2) and
 * backward of chunk 0 (type 3) on each device; micro-batch m takes the
 * slots 6m later. The warm-up and the cool-down are then squeezed twice
 * (each block, in time order, moves to the first free slot after its
 * dependencies where the device's peak memory does not grow), the first
 * time with the weight blocks in the idle slots (type 4, in the order of
 * the backwards), the second time without them; the weight blocks are
 * finally put in the idle slots again, one list per chunk (types 4 and 5,
 * chunk 1's first), and each device runs its blocks in slot order. The
 * order does not depend on the spans. */

#define VT_TYPES 6

typedef struct vlay {
	int S;              /* devices */
	int n;              /* micro-batches */
	int ntypes;         /* 4, 5 or 6 */
	int len[VT_TYPES];  /* entries of each type per device */
	int *t;             /* slots: t[(s * VT_TYPES + type) * 2n + m] */
} vlay;

static int *vt(vlay *v, int s, int type, int m)
{
	return &v->t[((size_t)s * VT_TYPES + (size_t)type) * 2 * (size_t)v->n +
		     (size_t)m];
}

static int vlay_new(vlay *v, int S, int n)
{
	memset(v, 0, sizeof *v);
	v->S = S;
	v->n = n;
	v->ntypes = 4;
	for (int k = 0; k < VT_TYPES; k++)
		v->len[k] = k < 4 ? n : 0;
	v->t = calloc((size_t)S * VT_TYPES * 2 * (size_t)n, sizeof *v->t);
	return v->t ? TESSEL_OK : TESSEL_ENOMEM;
}

static int vlay_copy(vlay *dst, const vlay *src)
{
	*dst = *src;
	size_t sz = (size_t)src->S * VT_TYPES * 2 * (size_t)src->n;
	dst->t = malloc(sz * sizeof *dst->t);
	if (!dst->t)
		return TESSEL_ENOMEM;
	memcpy(dst->t, src->t, sz * sizeof *dst->t);
	return TESSEL_OK;
}

/* The last slot used by device s (types 0 .. ntypes-1). */
static int vlay_bound(vlay *v, int s, int ntypes)
{
	int bound = 0;
	for (int k = 0; k < ntypes; k++)
		for (int m = 0; m < v->len[k]; m++)
			if (*vt(v, s, k, m) > bound)
				bound = *vt(v, s, k, m);
	return bound;
}

/* The type whose next entry (p[type]) comes first on device s: its slot
 * in *slot (INT32_MAX when every type is done). Ties go to the lower
 * type. */
static int vlay_next(vlay *v, int s, const int *p, int ntypes, int *slot)
{
	int best = -1, bt = INT32_MAX;
	for (int k = 0; k < ntypes; k++)
		if (p[k] < v->len[k] && *vt(v, s, k, p[k]) < bt) {
			bt = *vt(v, s, k, p[k]);
			best = k;
		}
	*slot = bt;
	return best;
}

/* Put the weight blocks of device s in the idle slots of types 0-3, each
 * after a backward not yet followed by one (first the list of chunk 1's
 * backwards when split, one list in backward order otherwise), the rest
 * after the last slot. */
static void vlay_put_w(vlay *v, int s, int split)
{
	int p[4] = {0, 0, 0, 0}, cnt[2] = {0, 0}, nw[2] = {0, 0};
	int bound = vlay_bound(v, s, 4), i;
	for (i = 0; i <= bound; i++) {
		int slot, k = vlay_next(v, s, p, 4, &slot);
		if (k >= 0 && slot == i) {
			p[k]++;
			if (k >= 2)
				cnt[split ? k - 2 : 0]++;
		} else {
			for (int w = 0; w < 2; w++)
				if (cnt[w]) {
					*vt(v, s, 4 + w, nw[w]++) = i;
					cnt[w]--;
					break;
				}
		}
	}
	i = bound;
	for (int w = 0; w < 2; w++)
		while (cnt[w] > 0) {
			*vt(v, s, 4 + w, nw[w]++) = ++i;
			cnt[w]--;
		}
}

static void vlay_put_w_all(vlay *v, int split)
{
	for (int s = 0; s < v->S; s++)
		vlay_put_w(v, s, split);
	v->ntypes = split ? 6 : 5;
	v->len[4] = split ? v->n : 2 * v->n;
	v->len[5] = split ? v->n : 0;
}

/* Peak memory of device s: forwards +1, weight blocks -1 (with 4 types,
 * a weight block runs in each idle slot after a backward). */
static int vlay_mem(vlay *v, int s)
{
	static const int delta[5] = {1, 1, 0, 0, -1};
	int has_w = v->ntypes > 4, p[VT_TYPES] = {0};
	int bound = vlay_bound(v, s, v->ntypes);
	int pending = 0, cur = 0, peak = 0;
	for (int i = 0; i <= bound; i++) {
		int slot, k = vlay_next(v, s, p, v->ntypes, &slot);
		if (k >= 0 && slot == i) {
			p[k]++;
			cur += delta[k];
			if (k == 2 || k == 3)
				pending++;
		} else if (!has_w && pending) {
			cur--;
			pending--;
		}
		if (cur > peak)
			peak = cur;
	}
	return peak;
}

/* The entries of all devices and types in the order they come (slot,
 * then device, then type): a heap of each device and type's next entry,
 * one word each, slot << 16 | device << 3 | type (D <= 1024, slots below
 * 2^31), so that taking the next costs a log of S * ntypes, not a look at
 * every device and type. An entry's slot is read when it becomes its
 * stream's next: the caller may move an entry once it has been taken. */
typedef struct vqueue {
	uint64_t *a;
	size_t n;
} vqueue;

static void vq_push(vqueue *q, uint64_t key)
{
	size_t i = q->n++;
	while (i > 0 && q->a[(i - 1) / 2] > key) {
		q->a[i] = q->a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->a[i] = key;
}

static uint64_t vq_pop(vqueue *q)
{
	uint64_t top = q->a[0], last = q->a[--q->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && q->a[c + 1] < q->a[c])
			c++;
		if (q->a[c] >= last)
			break;
		q->a[i] = q->a[c];
		i = c;
	}
	if (q->n > 0)
		q->a[i] = last;
	return top;
}

static uint64_t vq_key(vlay *v, int s, int k, int m)
{
	return (uint64_t)(uint32_t)*vt(v, s, k, m) << 16 | (uint64_t)s << 3 |
	       (uint64_t)k;
}

/* The queue of v's entries from the first of each stream; TESSEL_ENOMEM. */
static int vq_init(vqueue *q, vlay *v)
{
	q->n = 0;
	q->a = malloc(((size_t)v->S * VT_TYPES + 1) * sizeof *q->a);
	if (!q->a)
		return TESSEL_ENOMEM;
	for (int s = 0; s < v->S; s++)
		for (int k = 0; k < v->ntypes; k++)
			if (v->len[k] > 0)
				vq_push(q, vq_key(v, s, k, 0));
	return TESSEL_OK;
}

/* The next entry: its device and type, its slot returned, -1 when every
 * entry is done; p[s][k] is its index (the caller counts it taken). */
static int vq_next(vqueue *q, vlay *v, int (*p)[VT_TYPES], int *s_out,
		   int *k_out)
{
	if (q->n == 0) {
		*s_out = *k_out = -1;
		return -1;
	}
	uint64_t key = vq_pop(q);
	int s = (int)((key >> 3) & 0x1fff), k = (int)(key & 7);
	int m = p[s][k];
	if (m + 1 < v->len[k])
		vq_push(q, vq_key(v, s, k, m + 1));
	*s_out = s;
	*k_out = k;
	return (int)(key >> 16);
}

/* Execute the layout as early as possible with unit spans, in slot order
 * (eager_execution_time of zbv_greedy.py): dependencies as in the V, and
 * the entry before on the same device and of the same type. `out` (same
 * shape) receives the start slots. */
static int vlay_eager(vlay *v, vlay *out)
{
	int S = v->S, rc = vlay_copy(out, v);
	int (*p)[VT_TYPES] = calloc((size_t)S, sizeof *p);
	int *dev_end = calloc((size_t)S, sizeof *dev_end);
	vlay endv;
	memset(&endv, 0, sizeof endv);
	if (!rc && (!p || !dev_end))
		rc = TESSEL_ENOMEM;
	vqueue q = {NULL, 0};
	if (!rc)
		rc = vlay_copy(&endv, v);
	if (!rc)
		rc = vq_init(&q, v);
	while (!rc) {
		int s, k;
		if (vq_next(&q, v, p, &s, &k) < 0)
			break;
		int m = p[s][k]++;
		int dep = 0;
		if ((k == 0 || k == 2) && s > 0)
			dep = *vt(&endv, s - 1, k, m) > dep ? *vt(&endv, s - 1, k, m) : dep;
		if ((k == 1 || k == 3) && s + 1 < S)
			dep = *vt(&endv, s + 1, k, m) > dep ? *vt(&endv, s + 1, k, m) : dep;
		if (k > 0 && k < 4)
			dep = *vt(&endv, s, k - 1, m) > dep ? *vt(&endv, s, k - 1, m) : dep;
		if (m > 0)
			dep = *vt(&endv, s, k, m - 1) > dep ? *vt(&endv, s, k, m - 1) : dep;
		if (dev_end[s] > dep)
			dep = dev_end[s];
		*vt(out, s, k, m) = dep;
		*vt(&endv, s, k, m) = dep + 1;
		dev_end[s] = dep + 1;
	}
	free(q.a);
	free(endv.t);
	free(p);
	free(dev_end);
	return rc;
}

/* The mb-th earliest backward slot (types 2 and 3) of device s. */
static int vlay_kth_backward(vlay *v, int s, int mb)
{
	int i = 0, j = 0, n = v->n, slot = 0;
	for (int c = 0; c <= mb; c++) {
		if (j >= n || (i < n && *vt(v, s, 2, i) <= *vt(v, s, 3, j)))
			slot = *vt(v, s, 2, i++);
		else
			slot = *vt(v, s, 3, j++);
	}
	return slot;
}

/* Device s's memory slot by slot as vlay_mem walks it, to try one
 * entry at earlier slots (vprof_try) without a walk of the whole device
 * at each: what each slot holds, the memory and the backwards waiting for
 * an idle slot after each slot, and the peaks up to and from each. */
typedef struct vprof {
	int bound;        /* the last slot used */
	signed char *at;  /* per slot: the type there, -1 idle */
	int *cur, *pend;  /* after each slot */
	int *pre, *suf;   /* the most memory after a slot <= i, >= i */
} vprof;

static int vprof_alloc(vprof *pf, int width)
{
	memset(pf, 0, sizeof *pf);
	pf->at = malloc((size_t)width + 1);
	pf->cur = malloc(((size_t)width + 1) * sizeof *pf->cur);
	pf->pend = malloc(((size_t)width + 1) * sizeof *pf->pend);
	pf->pre = malloc(((size_t)width + 1) * sizeof *pf->pre);
	pf->suf = malloc(((size_t)width + 2) * sizeof *pf->suf);
	return pf->at && pf->cur && pf->pend && pf->pre && pf->suf ? TESSEL_OK
								   : TESSEL_ENOMEM;
}

static void vprof_free(vprof *pf)
{
	free(pf->at);
	free(pf->cur);
	free(pf->pend);
	free(pf->pre);
	free(pf->suf);
}

/* One slot of vlay_mem's walk: type t there (-1: idle). */
static void vprof_step(int t, int has_w, int *cur, int *pend)
{
	static const int delta[5] = {1, 1, 0, 0, -1};
	if (t < 0) {
		if (!has_w && *pend) {
			(*cur)--;
			(*pend)--;
		}
		return;
	}
	*cur += delta[t];
	if (t == 2 || t == 3)
		(*pend)++;
}

/* Build pf for device s of v; -1 when its slots are not each of one
 * entry within [0, width) (vlay_mem's walk then counts them its own way:
 * the caller walks), else 0. */
static int vprof_build(vprof *pf, vlay *v, int s, int width)
{
	if (v->ntypes > 5)
		return -1;
	int bound = vlay_bound(v, s, v->ntypes);
	if (bound >= width)
		return -1;
	memset(pf->at, 0xff, (size_t)bound + 1);
	for (int k = 0; k < v->ntypes; k++)
		for (int m = 0; m < v->len[k]; m++) {
			int x = *vt(v, s, k, m);
			if (x < 0 || pf->at[x] >= 0)
				return -1;
			pf->at[x] = (signed char)k;
		}
	int has_w = v->ntypes > 4, cur = 0, pend = 0, peak = 0;
	for (int i = 0; i <= bound; i++) {
		vprof_step(pf->at[i], has_w, &cur, &pend);
		peak = cur > peak ? cur : peak;
		pf->cur[i] = cur;
		pf->pend[i] = pend;
		pf->pre[i] = peak;
	}
	pf->suf[bound + 1] = INT32_MIN;
	for (int i = bound; i >= 0; i--)
		pf->suf[i] = pf->cur[i] > pf->suf[i + 1] ? pf->cur[i] : pf->suf[i + 1];
	pf->bound = bound;
	return 0;
}

/* vlay_mem of the device of pf with its entry of type k moved from slot
 * `from` to the idle slot a < from: the walk from a only until its state
 * is again the one pf has after the same slot, past `from` (the slots
 * after are the same). */
static int vprof_try(const vprof *pf, int has_w, int k, int a, int from)
{
	int cur = a > 0 ? pf->cur[a - 1] : 0, pend = a > 0 ? pf->pend[a - 1] : 0;
	int peak = a > 0 ? pf->pre[a - 1] : 0;
	for (int i = a; i <= pf->bound; i++) {
		vprof_step(i == a ? k : i == from ? -1 : pf->at[i], has_w, &cur, &pend);
		peak = cur > peak ? cur : peak;
		if (i >= from && cur == pf->cur[i] && pend == pf->pend[i]) {
			if (pf->suf[i + 1] > peak)
				peak = pf->suf[i + 1];
			break;
		}
	}
	return peak;
}

/* Squeeze the warm-up (with the weight blocks, consider_w) and the
 * cool-down: reorder of zbv_greedy.py. The result, in `out` (5 types), is
 * the eager execution of the squeezed layout with its weight blocks. */
static int vlay_reorder(vlay *in, int consider_w, vlay *out, char *why,
			size_t wl)
{
	vlay v;
	int S = in->S, rc = vlay_copy(&v, in);
	int (*p)[VT_TYPES] = NULL;
	char *occupied = NULL;
	int width = 0, cur_mem = 0, phase = 0;
	if (rc)
		return rc;
	if (consider_w)
		vlay_put_w_all(&v, 0);
	for (int s = 0; s < S; s++) {
		int b = vlay_bound(&v, s, v.ntypes), mem = vlay_mem(&v, s);
		if (b + 2 > width)
			width = b + 2;
		if (mem > cur_mem)
			cur_mem = mem;
	}
	vqueue q = {NULL, 0};
	vprof pf;
	int pf_dev = -1, walk = 0; /* the device pf is of, -1 none */
	p = calloc((size_t)S, sizeof *p);
	occupied = calloc((size_t)S * (size_t)width, 1);
	rc = vprof_alloc(&pf, width);
	if (!p || !occupied)
		rc = TESSEL_ENOMEM;
	if (!rc)
		rc = vq_init(&q, &v);
	while (!rc) {
		int s, k, next = vq_next(&q, &v, p, &s, &k);
		if (next < 0)
			break;
		int m = p[s][k]++;
		if (k == 3 && s == 0 && phase == 0)
			phase = 1;
		if (phase == 1 || (phase == 0 && !consider_w)) {
			if (phase == 1 && k == 0 && m == v.len[0] - 1)
				phase = 2;
			occupied[(size_t)s * (size_t)width + (size_t)next] = 1;
			continue;
		}
		int dep = -1;
		if ((k == 0 || k == 2) && s > 0 && *vt(&v, s - 1, k, m) > dep)
			dep = *vt(&v, s - 1, k, m);
		if ((k == 1 || k == 3) && s + 1 < S && *vt(&v, s + 1, k, m) > dep)
			dep = *vt(&v, s + 1, k, m);
		if (k > 0 && k < 4 && *vt(&v, s, k - 1, m) > dep)
			dep = *vt(&v, s, k - 1, m);
		if (k == 4 && vlay_kth_backward(&v, s, m) > dep)
			dep = vlay_kth_backward(&v, s, m);
		if (m > 0 && *vt(&v, s, k, m - 1) > dep)
			dep = *vt(&v, s, k, m - 1);
		dep++;
		if (dep > next) {
			rc = fail(why, wl, TESSEL_ERROR,
				  "v schedule: device %d, type %d, micro-batch "
				  "%d needs slot %d, after its own %d", s, k, m,
				  dep, next);
			break;
		}
		/* (each free slot tried on the profile of s with the
		 * entry where it is, or by a walk when that is not one
		 * entry a slot) */
		int ok = 0;
		for (int slot = dep; slot < next && !ok; slot++)
			if (!occupied[(size_t)s * (size_t)width + (size_t)slot]) {
				/* (kept while no entry of s moves) */
				if (pf_dev != s) {
					walk = vprof_build(&pf, &v, s, width) < 0;
					pf_dev = s;
				}
				if (walk) {
					*vt(&v, s, k, m) = slot;
					ok = vlay_mem(&v, s) <= cur_mem;
				} else if (vprof_try(&pf, v.ntypes > 4, k, slot, next) <= cur_mem) {
					*vt(&v, s, k, m) = slot;
					ok = 1;
				}
				if (ok || walk)
					pf_dev = -1;
			}
		if (!ok)
			*vt(&v, s, k, m) = next;
		occupied[(size_t)s * (size_t)width + (size_t)*vt(&v, s, k, m)] = 1;
	}
	if (!rc && !consider_w)
		vlay_put_w_all(&v, 0);
	if (!rc)
		rc = vlay_eager(&v, out);
	vprof_free(&pf);
	free(q.a);
	free(p);
	free(occupied);
	free(v.t);
	return rc;
}

/* Slots of micro-batch 0 on device i (stable_pattern_v_half and
 * stable_pattern_v_min of zbv_greedy.py). */
static void v_pattern(int pattern[4], int S, int i, int half)
{
	if (half) {
		int gap = S % 2 == 0 ? 3 : 0;
		pattern[0] = 2 * i;
		pattern[1] = 3 * S - i - 2;
		pattern[2] = 3 * S + gap + 2 * i - 1;
		pattern[3] = 6 * S + gap - i - 2;
	} else {
		int gap = S % 3 == 0 ? 2 : 0;
		pattern[0] = i;
		pattern[1] = 2 * S - i - 1;
		pattern[2] = 2 * S + gap + i;
		pattern[3] = 4 * S + gap - i - 1;
	}
}

typedef struct vent {
	int slot, type, micro;
} vent;

static int vent_cmp(const void *a, const void *b)
{
	const vent *x = a, *y = b;
	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return x->type - y->type;
}

static int gen_v_greedy(pub_order *o, const pub_params *p, int half,
			char *why, size_t wl)
{
	chain c;
	int S = p->devices, n = (int)o->nmicros;
	vlay lay, r1, r2;
	vent *ents = NULL;
	memset(&lay, 0, sizeof lay);
	memset(&r1, 0, sizeof r1);
	memset(&r2, 0, sizeof r2);
	int rc = v_chain(&c, o, p);
	if (!rc)
		rc = vlay_new(&lay, S, n);
	for (int s = 0; s < S && !rc; s++) {
		int pat[4];
		v_pattern(pat, S, s, half);
		for (int k = 0; k < 4; k++)
			for (int m = 0; m < n; m++)
				*vt(&lay, s, k, m) = pat[k] + 6 * m;
	}
	if (!rc)
		rc = vlay_reorder(&lay, 1, &r1, why, wl);
	if (!rc) {
		r1.ntypes = 4;
		r1.len[4] = r1.len[5] = 0;
		rc = vlay_reorder(&r1, 0, &r2, why, wl);
	}
	if (!rc) {
		r2.ntypes = 4;
		r2.len[4] = r2.len[5] = 0;
		vlay_put_w_all(&r2, 1);
		ents = malloc((size_t)6 * (size_t)n * sizeof *ents);
		if (!ents)
			rc = TESSEL_ENOMEM;
	}
	for (int s = 0; s < S && !rc; s++) {
		/* types: forward of chunk 0 (stage s), forward of chunk 1
		 * (stage 2S-1-s), backward of chunk 1, backward of chunk 0,
		 * weight of chunk 1, weight of chunk 0 */
		int s1 = 2 * S - 1 - s;
		const int gids[6] = {c.f[s], c.f[s1], c.b[s1], c.b[s], c.w[s1],
				     c.w[s]};
		size_t ne = 0;
		for (int k = 0; k < 6; k++)
			for (int m = 0; m < n; m++) {
				ents[ne].slot = *vt(&r2, s, k, m);
				ents[ne].type = k;
				ents[ne].micro = m;
				ne++;
			}
		qsort(ents, ne, sizeof *ents, vent_cmp);
		for (size_t e = 0; e < ne && !rc; e++) {
			if (e > 0 && ents[e].slot == ents[e - 1].slot)
				rc = fail(why, wl, TESSEL_ERROR,
					  "v schedule: two blocks in slot %d of "
					  "device %d", ents[e].slot, s);
			if (!rc)
				rc = pub_order_push(o, s, gids[ents[e].type], ents[e].micro);
		}
	}
	free(ents);
	free(lay.t);
	free(r1.t);
	free(r2.t);
	chain_free(&c);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* DualPipe and DualPipeV                                                     */
/* ------------------------------------------------------------------------ */

/* The two chunks ("phases") of a device in DualPipe and DualPipeV, and the
 * queue of its weight blocks deferred by a split backward. */
typedef struct dp_dev {
	pub_order *o;
	int d;
	int f[2], b[2], w[2];   /* gids of the two chunks' blocks */
	int64_t nf[2], nb[2];   /* forwards and backwards run per chunk */
	int *qchunk;            /* deferred weight blocks: chunk, micro */
	int64_t *qmicro;
	size_t qhead, qtail;
	int rc;
} dp_dev;

static void dp_forward(dp_dev *x, int ph)
{
	if (!x->rc)
		x->rc = pub_order_push(x->o, x->d, x->f[ph], x->nf[ph]++);
}

/* A backward of chunk ph: with zb its weight block is deferred (FIFO),
 * without it runs right after (a full backward). */
static void dp_backward(dp_dev *x, int ph, int zb)
{
	int64_t m = x->nb[ph]++;
	if (!x->rc)
		x->rc = pub_order_push(x->o, x->d, x->b[ph], m);
	if (x->rc)
		return;
	if (zb) {
		x->qchunk[x->qtail] = ph;
		x->qmicro[x->qtail++] = m;
	} else {
		x->rc = pub_order_push(x->o, x->d, x->w[ph], m);
	}
}

static void dp_weight(dp_dev *x, char *why, size_t wl)
{
	if (x->rc)
		return;
	if (x->qhead == x->qtail) {
		x->rc = fail(why, wl, TESSEL_ERROR,
			     "dualpipe: device %d has no weight block to run",
			     x->d);
		return;
	}
	x->rc = pub_order_push(x->o, x->d, x->w[x->qchunk[x->qhead]],
		     x->qmicro[x->qhead]);
	x->qhead++;
}

/* The steps of DualPipe's step() (deepseek-ai/DualPipe dualpipe/dualpipe.py)
 * and DualPipeV's (dualpipe/dualpipev.py) on one device, with `half` the
 * number of ranks of a direction (DualPipe: D/2, DualPipeV: D), `r` the
 * device's rank within it (DualPipe: min(d, D-1-d)) and `chunks` the
 * micro-batches of each chunk. An overlapped forward and backward
 * (_forward_backward_chunk) is the forward then the full backward. */
static void dp_steps(dp_dev *x, int half, int r, int64_t chunks, char *why,
		     size_t wl)
{
	int64_t i;
	for (i = 0; i < (int64_t)(half - r - 1) * 2; i++)
		dp_forward(x, 0);                       /* 1: nF0 */
	for (i = 0; i < r + 1; i++) {                   /* 2: nF0F1 */
		dp_forward(x, 0);
		dp_forward(x, 1);
	}
	for (i = 0; i < half - r - 1; i++) {            /* 3: nB1W1F1 */
		dp_backward(x, 1, 1);
		dp_weight(x, why, wl);
		dp_forward(x, 1);
	}
	for (i = 0; i < chunks - 2 * (int64_t)half + r + 1; i++) {
		dp_forward(x, 0);                       /* 4: nF0B1F1B0 */
		dp_backward(x, 1, 0);
		dp_forward(x, 1);
		dp_backward(x, 0, 0);
	}
	for (i = 0; i < half - r - 1; i++) {            /* 5: nB1F1B0 */
		dp_backward(x, 1, 0);
		dp_forward(x, 1);
		dp_backward(x, 0, 0);
	}
	int zb = 0, step6 = r + 1;                      /* 6: nB1B0 */
	for (i = 0; i < step6; i++) {
		if (i == step6 / 2 && r % 2 == 1)
			zb = 1;
		dp_backward(x, 1, zb);
		if (i == step6 / 2 && r % 2 == 0)
			zb = 1;
		dp_backward(x, 0, zb);
	}
	for (i = 0; i < half - r - 1; i++) {            /* 7: nWB0 */
		dp_weight(x, why, wl);
		dp_backward(x, 0, 1);
	}
	for (i = 0; i < r + 1; i++)                     /* 8: nW */
		dp_weight(x, why, wl);
	if (!x->rc && (x->qhead != x->qtail || x->nf[0] != chunks ||
		       x->nf[1] != chunks || x->nb[0] != chunks ||
		       x->nb[1] != chunks))
		x->rc = fail(why, wl, TESSEL_ERROR,
			     "dualpipe: device %d ends with %zu weight blocks "
			     "queued, %lld/%lld forwards, %lld/%lld backwards of "
			     "%lld", x->d, x->qtail - x->qhead,
			     (long long)x->nf[0], (long long)x->nf[1],
			     (long long)x->nb[0], (long long)x->nb[1],
			     (long long)chunks);
}

static int dp_device(pub_order *o, int d, const int f[2], const int b[2],
		     const int w[2], int half, int r, int64_t chunks, char *why,
		     size_t wl)
{
	dp_dev x;
	memset(&x, 0, sizeof x);
	x.o = o;
	x.d = d;
	for (int k = 0; k < 2; k++) {
		x.f[k] = f[k];
		x.b[k] = b[k];
		x.w[k] = w[k];
	}
	x.qchunk = malloc(2 * (size_t)chunks * sizeof *x.qchunk);
	x.qmicro = malloc(2 * (size_t)chunks * sizeof *x.qmicro);
	if (!x.qchunk || !x.qmicro)
		x.rc = TESSEL_ENOMEM;
	else
		dp_steps(&x, half, r, chunks, why, wl);
	free(x.qchunk);
	free(x.qmicro);
	return x.rc;
}

/* DualPipe (DeepSeek-AI, "DeepSeek-V3 Technical Report", 2024, section
 * 3.2.1; deepseek-ai/DualPipe dualpipe/dualpipe.py): two pipelines of D
 * stages in opposite directions, device d holding stage d of direction 0
 * and stage D-1-d of direction 1, N/2 micro-batches each. Phase 0 of a
 * device is the direction in which it comes first (for d < D/2 direction
 * 0, else direction 1), at stage h = min(d, D-1-d); the steps are those of
 * dp_steps with half = D/2, rank h. */
static int gen_dualpipe(pub_order *o, const pub_params *p, char *why,
			size_t wl)
{
	chain c[2];
	int D = p->devices;
	memset(c, 0, sizeof c);
	int rc = two_chains(c, o, 1, p);
	for (int d = 0; d < D && !rc; d++) {
		int h = d < D - 1 - d ? d : D - 1 - d;
		int first = d < D / 2 ? 0 : 1;          /* direction of phase 0 */
		int st[2] = {d, D - 1 - d};             /* stage per direction */
		int f[2], b[2], w[2];
		for (int ph = 0; ph < 2; ph++) {
			int dir = ph == 0 ? first : 1 - first;
			f[ph] = c[dir].f[st[dir]];
			b[ph] = c[dir].b[st[dir]];
			w[ph] = c[dir].w[st[dir]];
		}
		rc = dp_device(o, d, f, b, w, D / 2, h, o->nmicros, why, wl);
	}
	chain_free(&c[0]);
	chain_free(&c[1]);
	return rc;
}

/* DualPipeV (deepseek-ai/DualPipe dualpipe/dualpipev.py, the "cut-in-half"
 * DualPipe of Sea AI Lab): a V of 2D stages, device d holding stage d
 * (phase 0) and stage 2D-1-d (phase 1); the steps of dp_steps with half =
 * D, rank d, N micro-batches per chunk. */
static int gen_dualpipe_v(pub_order *o, const pub_params *p, char *why,
			  size_t wl)
{
	chain c;
	int D = p->devices;
	int rc = v_chain(&c, o, p);
	for (int d = 0; d < D && !rc; d++) {
		int s1 = 2 * D - 1 - d;
		int f[2] = {c.f[d], c.f[s1]}, b[2] = {c.b[d], c.b[s1]};
		int w[2] = {c.w[d], c.w[s1]};
		rc = dp_device(o, d, f, b, w, D, d, o->nmicros, why, wl);
	}
	chain_free(&c);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Interleaved 1F1B and Chimera                                               */
/* ------------------------------------------------------------------------ */

/* Interleaved 1F1B (Narayanan et al., "Efficient Large-Scale Language
 * Model Training on GPU Clusters Using Megatron-LM", SC21, section 2.2;
 * Megatron-LM's forward_backward_pipelining_with_interleaving, PyTorch's
 * ScheduleInterleaved1F1B): v chunks per device, device d holding stages
 * d, d+D, ..., d+(v-1)D. The k-th forward of a device runs chunk
 * (k mod vD) / D of micro-batch (k / vD) D + k mod D, the k-th backward
 * chunk v-1 - (k mod vD) / D of the same micro-batch; device d runs
 * 2(D-1-d) + (v-1)D forwards (all when N = D), then one forward and one
 * backward per step, then the backwards left. N must be a multiple of D. */
static int gen_interleaved(pub_order *o, const pub_params *p, char *why,
			   size_t wl)
{
	chain c;
	int D = p->devices, v = p->chunks;
	int64_t N = o->nmicros, total = N * v;
	int rc = chain_alloc(&c, v * D);
	for (int s = 0; s < c.n && !rc; s++)
		c.dev[s] = s % D;
	if (!rc)
		rc = chain_build(&c, o->graph, "", 0, 0, p);
	if (!rc)
		rc = unwanted(o, p);
	for (int d = 0; d < D && !rc; d++) {
		int64_t warm = N == D ? total
				      : 2 * (int64_t)(D - 1 - d) + (int64_t)(v - 1) * D;
		if (warm > total)
			warm = total;
#define IL_CHUNK(k) ((int)(((k) % ((int64_t)v * D)) / D))
#define IL_MICRO(k) (((k) / ((int64_t)v * D)) * D + (k) % D)
		for (int64_t k = 0; k < warm && !rc; k++)
			rc = pub_order_push(o, d, c.f[IL_CHUNK(k) * D + d], IL_MICRO(k));
		for (int64_t k = 0; k < total - warm && !rc; k++) {
			int64_t kf = k + warm;
			rc = pub_order_push(o, d, c.f[IL_CHUNK(kf) * D + d], IL_MICRO(kf));
			if (!rc)
				rc = pub_order_push(o, d, c.b[(v - 1 - IL_CHUNK(k)) * D + d],
					  IL_MICRO(k));
		}
		for (int64_t k = total - warm; k < total && !rc; k++)
			rc = pub_order_push(o, d, c.b[(v - 1 - IL_CHUNK(k)) * D + d],
				  IL_MICRO(k));
#undef IL_CHUNK
#undef IL_MICRO
	}
	chain_free(&c);
	(void)why;
	(void)wl;
	return rc;
}

typedef struct cent {
	int64_t t;
	int gid;
	int64_t micro;
} cent;

static int cent_cmp(const void *a, const void *b)
{
	const cent *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->gid - y->gid;
}

/* Chimera (Li and Hoefler, "Chimera: Efficiently Training Large-Scale
 * Neural Networks with Bidirectional Pipelines", SC21, section 3; the
 * reference Shigangli/Chimera, chimera_pipeline_rank.py): two pipelines of
 * D stages in opposite directions (device d holds stage d of the down
 * pipeline and stage D-1-d of the up pipeline). A basic unit holds D
 * micro-batches, D/2 in each direction; in unit time steps, the j-th
 * micro-batch of a unit enters stage 0 at step 2j, runs the forward of
 * stage s at step 2j + s and the backward of stage s at step 2j + 2D-1-s.
 * Units are concatenated directly: the next unit of a direction starts
 * when the first micro-batch of the one before has finished, 2D steps
 * later (where the reference starts its next pipeline). Each device runs
 * its blocks in the order of those steps. N must be a multiple of D, D
 * even. */
static int gen_chimera(pub_order *o, const pub_params *p, char *why,
		       size_t wl)
{
	chain c[2];
	int D = p->devices, half = D / 2;
	int64_t pairs = o->nmicros;
	cent *e = NULL;
	memset(c, 0, sizeof c);
	int rc = two_chains(c, o, 0, p);
	size_t cap = (size_t)pairs * 4, ne = 0;
	if (!rc) {
		e = malloc(cap * sizeof *e);
		if (!e)
			rc = TESSEL_ENOMEM;
	}
	for (int d = 0; d < D && !rc; d++) {
		ne = 0;
		for (int dir = 0; dir < 2; dir++) {
			int s = dir == 0 ? d : D - 1 - d;
			for (int64_t m = 0; m < pairs; m++) {
				int64_t unit = m / half, j = m % half;
				int64_t t0 = 2 * (int64_t)D * unit + 2 * j;
				e[ne].t = t0 + s;
				e[ne].gid = c[dir].f[s];
				e[ne++].micro = m;
				e[ne].t = t0 + 2 * (int64_t)D - 1 - s;
				e[ne].gid = c[dir].b[s];
				e[ne++].micro = m;
			}
		}
		qsort(e, ne, sizeof *e, cent_cmp);
		for (size_t k = 0; k < ne && !rc; k++) {
			if (k > 0 && e[k].t == e[k - 1].t)
				rc = fail(why, wl, TESSEL_ERROR,
					  "chimera: two blocks at step %lld on "
					  "device %d", (long long)e[k].t, d);
			if (!rc)
				rc = pub_order_push(o, d, e[k].gid, e[k].micro);
		}
	}
	free(e);
	chain_free(&c[0]);
	chain_free(&c[1]);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Building                                                                   */
/* ------------------------------------------------------------------------ */

/* Largest N accepted (the V building blocks use int slots). */
#define PUB_MAX_MICROS 100000

/* The family's own conditions on D and N, and its micro-batches (the
 * bidirectional families pair two model micro-batches): -1 (the reason in
 * `why`) when it does not take them. */
static int64_t family_micros(pub_family family, const pub_params *p,
			     char *why, size_t wl)
{
	int D = p->devices;
	int64_t N = p->micros, nmicros = N;
	switch (family) {
	case PUB_DUALPIPE:
		if (D % 2 || N % 2 || N < 2 * (int64_t)D)
			return fail(why, wl, -1,
				    "dualpipe: needs an even number of devices "
				    "and an even N >= 2D (D = %d, N = %lld)",
				    D, (long long)N);
		nmicros = N / 2;
		break;
	case PUB_DUALPIPE_V:
		if (N < 2 * (int64_t)D)
			return fail(why, wl, -1,
				    "dualpipe-v: needs N >= 2D (D = %d, "
				    "N = %lld)", D, (long long)N);
		break;
	case PUB_INTERLEAVED:
		if (p->chunks < 2 || p->chunks > 64 || N % D)
			return fail(why, wl, -1,
				    "interleaved: needs 2 .. 64 chunks and N a "
				    "multiple of D (chunks = %d, D = %d, "
				    "N = %lld)", p->chunks, D, (long long)N);
		break;
	case PUB_CHIMERA:
		if (D % 2 || N % D)
			return fail(why, wl, -1,
				    "chimera: needs an even number of devices "
				    "and N a multiple of D (D = %d, N = %lld)",
				    D, (long long)N);
		nmicros = N / 2;
		break;
	default:
		break;
	}
	return nmicros;
}

/* Build the order of `family` into o (its generator). */
static int generate(pub_order *o, pub_family family, const pub_params *p,
		    char *why, size_t wl)
{
	int rc;
	switch (family) {
	case PUB_GPIPE:
		rc = gen_gpipe(o, p, why, wl);
		break;
	case PUB_1F1B:
		rc = gen_1f1b(o, p, why, wl);
		break;
	case PUB_ZB_H1:
		rc = gen_zb_h1(o, p, why, wl);
		break;
	case PUB_ZB_H2:
		rc = gen_zb_h2(o, p, why, wl);
		break;
	case PUB_ZB_V:
		rc = gen_zb_v(o, p, why, wl);
		break;
	case PUB_V_HALF:
		rc = gen_v_greedy(o, p, 1, why, wl);
		break;
	case PUB_V_MIN:
		rc = gen_v_greedy(o, p, 0, why, wl);
		break;
	case PUB_DUALPIPE:
		rc = gen_dualpipe(o, p, why, wl);
		break;
	case PUB_DUALPIPE_V:
		rc = gen_dualpipe_v(o, p, why, wl);
		break;
	case PUB_INTERLEAVED:
		rc = gen_interleaved(o, p, why, wl);
		break;
	case PUB_CHIMERA:
		rc = gen_chimera(o, p, why, wl);
		break;
	default:
		rc = TESSEL_EINVAL;
		break;
	}
	return rc;
}

int pub_order_build(pub_order **out, pub_family family,
		    const pub_params *p, char *why, size_t wl)
{
	const char *name = pub_family_name(family);
	int D, split, rc;
	int64_t N, nmicros;
	pub_order *o = NULL;

	if (why && wl)
		why[0] = '\0';
	if (!out || !p)
		return fail(why, wl, TESSEL_EINVAL, "no output or parameters");
	*out = NULL;
	if (!name)
		return fail(why, wl, TESSEL_EINVAL, "unknown family %d",
			    (int)family);
	D = p->devices;
	N = p->micros;
	split = pub_family_splits(family);
	if (D < 2 || D > 1024)
		return fail(why, wl, TESSEL_EINVAL,
			    "%s: %d devices (2 .. 1024)", name, D);
	if (N < 1 || N > PUB_MAX_MICROS)
		return fail(why, wl, TESSEL_EINVAL,
			    "%s: %lld micro-batches (1 .. %d)", name,
			    (long long)N, PUB_MAX_MICROS);
	if (p->f < 1 || p->f > TESSEL_MAX_SPAN || p->b < 1 ||
	    p->b > TESSEL_MAX_SPAN || (split && (p->w < 1 ||
						 p->w > TESSEL_MAX_SPAN)))
		return fail(why, wl, TESSEL_EINVAL,
			    "%s: spans %d-%d-%d (1 .. %d)", name, p->f, p->b,
			    p->w, TESSEL_MAX_SPAN);
	if (p->latency < 0 || p->latency > TESSEL_MAX_LATENCY)
		return fail(why, wl, TESSEL_EINVAL, "%s: latency %d (0 .. %d)",
			    name, p->latency, TESSEL_MAX_LATENCY);
	nmicros = family_micros(family, p, why, wl);
	if (nmicros < 0)
		return TESSEL_EINVAL;
	rc = pub_order_new(&o, D, nmicros);
	if (!rc && p->latency)
		rc = tessel_graph_set_latency(o->graph, p->latency);
	if (rc)
		return lib_fail(why, wl, rc, name);
	rc = generate(o, family, p, why, wl);
	if (rc) {
		if (why && wl && !why[0])
			lib_fail(why, wl, rc, name);
		pub_order_free(o);
		return rc;
	}
	*out = o;
	return TESSEL_OK;
}

/* ------------------------------------------------------------------------ */
/* Executing an order                                                         */
/* ------------------------------------------------------------------------ */

/* Start steps of every (block, micro-batch) when each device runs its
 * order as early as possible: starts[gid * nmicros + m]. */
/* An order and its placement read flat for order_starts. */
typedef struct flat_order {
	const pub_order *o;
	const tessel_graph *g;
	int64_t nb, N;
	int *dev, *ndeps, *deps;
	int64_t *lat, *ends, *free_at;
	size_t *pos, *first;
} flat_order;

/* Each block's device (one only), dependencies and their latencies (0 on
 * the same device). */
static int read_blocks(flat_order *f, char *why, size_t wl)
{
	const tessel_graph *g = f->g;
	int64_t nb = f->nb;
	int rc = TESSEL_OK;
	for (int64_t b = 0; b < nb && !rc; b++) {
		int64_t nd = 0, k = 0;
		rc = tessel_graph_block_get(&nd, g, (int)b, TESSEL_BLOCK_NDEVICES);
		if (!rc && nd != 1)
			return fail(why, wl, TESSEL_EINVAL,
				    "block %lld occupies %lld devices", (long long)b,
				    (long long)nd);
		if (!rc)
			rc = tessel_graph_block_device(&f->dev[b], g, (int)b, 0);
		if (!rc)
			rc = tessel_graph_block_get(&k, g, (int)b, TESSEL_BLOCK_NDEPS);
		f->ndeps[b] = (int)k;
		f->first[b + 1] = f->first[b] + (size_t)k;
	}
	if (rc)
		return rc;
	f->deps = malloc((f->first[nb] + 1) * sizeof *f->deps);
	f->lat = malloc((f->first[nb] + 1) * sizeof *f->lat);
	if (!f->deps || !f->lat)
		return TESSEL_ENOMEM;
	for (int64_t b = 0; b < nb && !rc; b++)
		for (int k = 0; k < f->ndeps[b] && !rc; k++) {
			size_t i = f->first[b] + (size_t)k;
			rc = tessel_graph_block_dep(&f->deps[i], g, (int)b, (size_t)k);
			if (!rc)
				rc = tessel_graph_block_dep_latency(&f->lat[i], NULL, g,
								    (int)b, (size_t)k);
			if (!rc && f->dev[f->deps[i]] == f->dev[b])
				f->lat[i] = 0;
		}
	return rc ? lib_fail(why, wl, rc, "placement") : TESSEL_OK;
}

/* Every (block, micro-batch) once in the orders, on its block's device;
 * marks each entry's end -1 (not run yet). */
static int check_entries(flat_order *f, char *why, size_t wl)
{
	const pub_order *o = f->o;
	size_t total = (size_t)f->nb * (size_t)f->N, N = (size_t)f->N;
	for (size_t i = 0; i < total; i++)
		f->ends[i] = -2;
	for (int d = 0; d < o->ndevices; d++)
		for (size_t k = 0; k < o->len[d]; k++) {
			const pub_step *s = &o->steps[d][k];
			if (s->gid < 0 || s->gid >= f->nb || s->micro < 0 ||
			    s->micro >= f->N)
				return fail(why, wl, TESSEL_EINVAL,
					    "device %d, entry %zu: no block %d of "
					    "micro-batch %lld", d, k, s->gid,
					    (long long)s->micro);
			if (f->dev[s->gid] != d)
				return fail(why, wl, TESSEL_EINVAL,
					    "device %d runs block %d of micro-batch "
					    "%lld, placed on device %d", d, s->gid,
					    (long long)s->micro, f->dev[s->gid]);
			size_t at = (size_t)s->gid * N + (size_t)s->micro;
			if (f->ends[at] != -2)
				return fail(why, wl, TESSEL_EINVAL,
					    "block %d of micro-batch %lld is in the "
					    "order twice", s->gid, (long long)s->micro);
			f->ends[at] = -1;
		}
	for (size_t i = 0; i < total; i++)
		if (f->ends[i] == -2)
			return fail(why, wl, TESSEL_EINVAL,
				    "block %zu of micro-batch %zu is in no order",
				    i / N, i % N);
	return TESSEL_OK;
}

/* Run the orders as early as possible: each device takes its next entry
 * as soon as its dependencies have ended (plus their latency); an order
 * that waits for an entry after it is refused. */
static int run_asap(int64_t *starts, flat_order *f, char *why, size_t wl)
{
	const pub_order *o = f->o;
	size_t total = (size_t)f->nb * (size_t)f->N, N = (size_t)f->N, done = 0;
	while (done < total) {
		size_t before = done;
		for (int d = 0; d < o->ndevices; d++)
			while (f->pos[d] < o->len[d]) {
				const pub_step *s = &o->steps[d][f->pos[d]];
				int64_t start = f->free_at[d];
				int ready = 1;
				for (size_t i = f->first[s->gid]; i < f->first[s->gid + 1]; i++) {
					int64_t e = f->ends[(size_t)f->deps[i] * N +
							    (size_t)s->micro];
					if (e < 0) {
						ready = 0;
						break;
					}
					if (e + f->lat[i] > start)
						start = e + f->lat[i];
				}
				if (!ready)
					break;
				int64_t span = 0;
				tessel_graph_block_get(&span, f->g, s->gid, TESSEL_BLOCK_SPAN);
				size_t at = (size_t)s->gid * N + (size_t)s->micro;
				starts[at] = start;
				f->ends[at] = start + span;
				f->free_at[d] = start + span;
				f->pos[d]++;
				done++;
			}
		if (done == before) {
			int d = 0;
			while (f->pos[d] >= o->len[d])
				d++;
			const char *name = "?";
			tessel_graph_block_name(&name, f->g, o->steps[d][f->pos[d]].gid);
			return fail(why, wl, TESSEL_EINVAL,
				    "the order cannot run: device %d waits at entry "
				    "%zu (%s of micro-batch %lld) for a dependency "
				    "that comes later", d, f->pos[d], name,
				    (long long)o->steps[d][f->pos[d]].micro);
		}
	}
	return TESSEL_OK;
}

static int order_starts(int64_t *starts, const pub_order *o, char *why,
			size_t wl)
{
	flat_order f = {o, o->graph, 0, o->nmicros, NULL, NULL, NULL,
			NULL, NULL, NULL, NULL, NULL};
	int rc = tessel_graph_get(&f.nb, f.g, TESSEL_GRAPH_NBLOCKS);
	if (rc)
		return lib_fail(why, wl, rc, "placement");
	size_t total = (size_t)f.nb * (size_t)f.N;
	f.dev = calloc((size_t)f.nb, sizeof *f.dev);
	f.ndeps = calloc((size_t)f.nb, sizeof *f.ndeps);
	f.first = calloc((size_t)f.nb + 1, sizeof *f.first);
	f.ends = malloc(total * sizeof *f.ends);
	f.free_at = calloc((size_t)o->ndevices, sizeof *f.free_at);
	f.pos = calloc((size_t)o->ndevices, sizeof *f.pos);
	if (!f.dev || !f.ndeps || !f.first || !f.ends || !f.free_at || !f.pos)
		rc = TESSEL_ENOMEM;
	if (!rc)
		rc = read_blocks(&f, why, wl);
	if (!rc)
		rc = check_entries(&f, why, wl);
	if (!rc)
		rc = run_asap(starts, &f, why, wl);
	if (rc == TESSEL_ENOMEM)
		fail(why, wl, rc, "out of memory");
	free(f.dev);
	free(f.ndeps);
	free(f.first);
	free(f.deps);
	free(f.lat);
	free(f.ends);
	free(f.free_at);
	free(f.pos);
	return rc;
}

static int fill_schedule(tessel_schedule **out, const tessel_graph *g,
			 int64_t N, const int64_t *starts, int64_t nb)
{
	tessel_schedule *s = NULL;
	int rc = tessel_schedule_new(&s, g, N);
	for (int64_t b = 0; b < nb && !rc; b++)
		for (int64_t m = 0; m < N && !rc; m++)
			rc = tessel_schedule_set_step(s, (int)b, m,
						      starts[b * N + m]);
	if (rc) {
		tessel_schedule_free(s);
		return rc;
	}
	*out = s;
	return TESSEL_OK;
}

int pub_order_replay(tessel_schedule **out, const pub_order *o, char *why,
		     size_t wl)
{
	tessel_schedule *s = NULL;
	int64_t nb = 0, *starts = NULL;
	int rc;

	if (why && wl)
		why[0] = '\0';
	if (!out || !o)
		return fail(why, wl, TESSEL_EINVAL, "no output or order");
	*out = NULL;
	rc = tessel_graph_get(&nb, o->graph, TESSEL_GRAPH_NBLOCKS);
	if (rc)
		return lib_fail(why, wl, rc, "placement");
	starts = malloc((size_t)nb * (size_t)o->nmicros * sizeof *starts);
	if (!starts)
		return fail(why, wl, TESSEL_ENOMEM, "out of memory");
	rc = order_starts(starts, o, why, wl);
	if (!rc) {
		rc = fill_schedule(&s, o->graph, o->nmicros, starts, nb);
		if (rc)
			lib_fail(why, wl, rc, "replayed schedule");
	}
	if (!rc) {
		rc = tessel_schedule_validate(s);
		if (rc)
			lib_fail(why, wl, rc, "replayed schedule");
	}
	free(starts);
	if (rc) {
		tessel_schedule_free(s);
		return rc;
	}
	*out = s;
	return TESSEL_OK;
}

int pub_order_schedule(tessel_schedule **out, int64_t *out_limit,
		       const pub_order *o, char *why, size_t wl)
{
	tessel_schedule *s0 = NULL, *s = NULL;
	tessel_graph *g = NULL;
	int64_t nb = 0, limit = 0, *starts = NULL;
	int rc;

	if (why && wl)
		why[0] = '\0';
	if (!out || !o)
		return fail(why, wl, TESSEL_EINVAL, "no output or order");
	*out = NULL;
	rc = tessel_graph_get(&nb, o->graph, TESSEL_GRAPH_NBLOCKS);
	if (rc)
		return lib_fail(why, wl, rc, "placement");
	starts = malloc((size_t)nb * (size_t)o->nmicros * sizeof *starts);
	if (!starts)
		return fail(why, wl, TESSEL_ENOMEM, "out of memory");
	rc = order_starts(starts, o, why, wl);
	if (rc)
		goto out;
	rc = fill_schedule(&s0, o->graph, o->nmicros, starts, nb);
	for (int d = 0; d < o->ndevices && !rc; d++) {
		int64_t peak = 0;
		rc = tessel_schedule_peak_memory(&peak, s0, d);
		if (peak > limit)
			limit = peak;
	}
	if (!rc)
		rc = tessel_graph_dup(&g, o->graph);
	if (!rc)
		rc = tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, limit);
	if (!rc)
		rc = fill_schedule(&s, g, o->nmicros, starts, nb);
	if (rc) {
		lib_fail(why, wl, rc, "published schedule");
		goto out;
	}
	rc = tessel_schedule_validate(s);
	if (rc) {
		lib_fail(why, wl, rc, "published schedule");
		goto out;
	}
	*out = s;
	s = NULL;
	if (out_limit)
		*out_limit = limit;
out:
	tessel_schedule_free(s);
	tessel_schedule_free(s0);
	tessel_graph_free(g);
	free(starts);
	return rc;
}
