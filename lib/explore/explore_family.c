/* The candidate placements of the exploration: for a model, one plan per
 * placement family (explore_plan.h), its stages laid out on the devices
 * and the micro-batches each stage keeps room for, before the layers are
 * partitioned (explore_partition.c).
 *
 * Families (doc/guide.md, "Exploring placements"), D devices, N
 * micro-batches:
 * - gpipe, 1f1b: the published orders on a pipeline of D stages, each
 *   partitioned for its own memory (GPipe keeps N micro-batches, 1F1B D - d
 *   on device d): the baselines. In inference one: pipeline order.
 * - pipeline: the same placement as 1F1B, searched (Tessel's V-shape).
 * - zero-bubble: the pipeline with the weight gradient as a block of its
 *   own (ZB-H1/H2's placement), searched.
 * - interleaved-2, interleaved-4: 2 or 4 stages per device, stage s on
 *   device s mod D (Megatron-LM's interleaved 1F1B placement).
 * - v-shape: 2 stages per device, stage s on device s, stage 2D-1-s on
 *   device s (ZB-V's and DualPipeV's placement; split backward).
 * - chimera: two pipelines of D stages in opposite directions, each with a
 *   copy of the model (Tessel's X-shape); one micro-batch of the placement
 *   is a pair, so N must be even.
 * - m-shape: the first and the last layer tensor-parallel on all devices,
 *   the layers between them a pipeline (Tessel's M-shape).
 * - nn-shape: the first layer and the middle one (by forward time)
 *   tensor-parallel on all devices, a pipeline on the first half of the
 *   devices between them, one on the second half after (Tessel's
 *   NN-shape).
 * - k-shape: a model with two input branches that meet: each branch a
 *   pipeline on half of the devices, the layers after the meeting
 *   tensor-parallel on all (Tessel's K-shape).
 * - tp2, tp4, tp8: a pipeline of D/t stages, each tensor-parallel on t
 *   devices (Megatron-LM's tensor and pipeline parallelism).
 * The tensor-parallel families need the model's tensor_parallel costs. */
#include "explore_family.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "util.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static void not_used(tsl_plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void not_used(tsl_plan *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->why, sizeof p->why, fmt, ap);
	va_end(ap);
}

/* Room for n stages, every one partitioned, on one device, no mirror. */
static int stages(tsl_plan *p, int n)
{
	p->stages = tsl_calloc((size_t)(n > 0 ? n : 1), sizeof *p->stages);
	if (!p->stages)
		return tsl_error_nomem();
	p->nstages = n;
	for (int s = 0; s < n; s++) {
		p->stages[s].ndev = 1;
		p->stages[s].share = 1;
		p->stages[s].mirror = -1;
	}
	return TSL_OK;
}

/* A pipeline of D / t stages, stage s on devices s t .. s t + t - 1,
 * keeping what `order` keeps. */
static int chain(tsl_plan *p, const tessel_model *m, int t, int64_t keep_all)
{
	int D = m->devices, S = D / t;
	int rc = stages(p, S);
	for (int s = 0; s < S && !rc; s++) {
		p->stages[s].dev = s * t;
		p->stages[s].ndev = t;
		p->stages[s].keep = keep_all > 0 ? min64(m->micros, keep_all)
						 : min64(m->micros, S - s);
	}
	p->tp = t;
	p->chunks = 1;
	p->groups[0] = (tsl_plan_group){0, S - 1, 0, m->nlayers};
	p->ngroups = 1;
	return rc;
}

/* c stages per device: stage s on device s mod D, or (v) the V order. */
static int chunked(tsl_plan *p, const tessel_model *m, int c, int v)
{
	int D = m->devices;
	int rc = stages(p, c * D);
	for (int s = 0; s < c * D && !rc; s++) {
		int d = v ? (s < D ? s : 2 * D - 1 - s) : s % D;
		int64_t keep;
		if (v) /* ZB-V: about 2D chunks of activations a device */
			keep = D;
		else   /* Megatron-LM's warm-up, 2(D-1-d) + (c-1)D + 1, per chunk */
			keep = (2 * (int64_t)(D - 1 - d) + (int64_t)(c - 1) * D + 1 + c - 1) / c;
		p->stages[s].dev = d;
		p->stages[s].keep = min64(m->micros, keep);
		p->stages[s].share = c;
	}
	p->chunks = c;
	p->tp = 1;
	p->groups[0] = (tsl_plan_group){0, c * D - 1, 0, m->nlayers};
	p->ngroups = 1;
	return rc;
}

static int chimera(tsl_plan *p, const tessel_model *m)
{
	int D = m->devices;
	int rc = stages(p, 2 * D);
	int64_t half = m->micros / 2;
	for (int s = 0; s < D && !rc; s++) {
		tsl_plan_stage *a = &p->stages[s], *b = &p->stages[D + s];
		a->dev = s;
		a->keep = min64(half, D - s);
		a->share = 2;
		b->dev = D - 1 - s;
		b->replica = 1;
		b->keep = min64(half, D - s);
		b->share = 2;
		b->mirror = s;
	}
	p->replicas = 2;
	p->micros = half;
	p->chunks = 1;
	p->tp = 1;
	p->groups[0] = (tsl_plan_group){0, D - 1, 0, m->nlayers};
	p->ngroups = 1;
	return rc;
}

static int mshape(tsl_plan *p, const tessel_model *m)
{
	int D = m->devices, L = m->nlayers;
	int rc = stages(p, D + 2);
	if (rc)
		return rc;
	tsl_plan_stage *first = &p->stages[0], *last = &p->stages[D + 1];
	first->lo = 0, first->hi = 1, first->fixed = 1;
	first->dev = 0, first->ndev = D, first->keep = min64(m->micros, D);
	last->lo = L - 1, last->hi = L, last->fixed = 1;
	last->dev = 0, last->ndev = D, last->keep = 1;
	for (int s = 1; s <= D; s++) {
		p->stages[s].dev = s - 1;
		p->stages[s].keep = min64(m->micros, D - (s - 1));
	}
	p->chunks = 1;
	p->tp = D;
	p->groups[0] = (tsl_plan_group){1, D, 1, L - 1};
	p->ngroups = 1;
	return TSL_OK;
}

/* Tessel's NN-shape: the first layer and the middle layer (by time)
 * tensor-parallel on all devices, a pipeline on the first half of the
 * devices between them and one on the second half after the middle. */
static int nnshape(tsl_plan *p, const tessel_model *m)
{
	int D = m->devices, L = m->nlayers, h = D / 2;
	double total = 0, run = 0;
	for (int i = 1; i < L; i++)
		total += tsl_model_layer_time(m, i, 1, TSL_PASS_FORWARD);
	int mid = 1 + h;
	for (int i = 1; i < L; i++) {
		run += tsl_model_layer_time(m, i, 1, TSL_PASS_FORWARD);
		if (run >= total / 2) {
			mid = i;
			break;
		}
	}
	if (mid < 1 + h)
		mid = 1 + h;
	if (mid > L - 1 - (D - h))
		mid = L - 1 - (D - h);
	int rc = stages(p, D + 2);
	if (rc)
		return rc;
	tsl_plan_stage *first = &p->stages[0], *middle = &p->stages[h + 1];
	first->lo = 0, first->hi = 1, first->fixed = 1;
	first->dev = 0, first->ndev = D, first->keep = min64(m->micros, D);
	middle->lo = mid, middle->hi = mid + 1, middle->fixed = 1;
	middle->dev = 0, middle->ndev = D, middle->keep = min64(m->micros, h);
	for (int s = 0; s < D; s++) {
		tsl_plan_stage *st = &p->stages[s < h ? 1 + s : 2 + s];
		st->dev = s;
		st->keep = min64(m->micros, D - s);
	}
	p->groups[0] = (tsl_plan_group){1, h, 1, mid};
	p->groups[1] = (tsl_plan_group){h + 2, D + 1, mid + 1, L};
	p->ngroups = 2;
	p->chunks = 1;
	p->tp = D;
	return TSL_OK;
}

/* The first layer of the second branch, when the model is two input
 * branches (layers 0 .. b-1 and b .. j-1, each taking input only from its
 * own) that meet at layer j; 0 otherwise (*meet = j). */
static int branches(int *meet, const tessel_model *m)
{
	int second = 0;
	for (int i = 1; i < m->nlayers; i++) {
		const tsl_layer *L = &m->layers[i];
		if (L->nafter == 0) {
			if (second)
				return 0; /* a third input */
			second = i;
			continue;
		}
		int a = 0, b = 0;
		for (int k = 0; k < L->nafter; k++) {
			if (second && L->after[k] >= second)
				b = 1;
			else
				a = 1;
		}
		if (second && a && b) {
			*meet = i;
			return second;
		}
		if (second && a)
			return 0; /* the second branch takes from the first */
	}
	return 0;
}

static int kshape(tsl_plan *p, const tessel_model *m)
{
	int D = m->devices, h = D / 2, meet = 0;
	int second = branches(&meet, m);
	int rc = stages(p, D + 1);
	if (rc)
		return rc;
	for (int s = 0; s < D; s++) {
		p->stages[s].dev = s;
		p->stages[s].keep = min64(m->micros, h - s % h + 1);
	}
	tsl_plan_stage *t = &p->stages[D];
	t->lo = meet, t->hi = m->nlayers, t->fixed = 1;
	t->dev = 0, t->ndev = D, t->keep = 1;
	/* the branches: [0, second) over stages 0 .. h-1, [second, meet)
	 * over h .. D-1 */
	p->groups[0] = (tsl_plan_group){0, h - 1, 0, second};
	p->groups[1] = (tsl_plan_group){h, D - 1, second, meet};
	p->ngroups = 2;
	p->chunks = 1;
	p->tp = D;
	return TSL_OK;
}

/* Why the family of plan p cannot be used on m ("" when it can), from
 * what it needs of the model alone. */
static void check_needs(tsl_plan *p, const tessel_model *m, int needs_tp,
			int needs_even, int needs_split)
{
	if (needs_tp && !tsl_model_all_tp(m))
		not_used(p, "the model gives no tensor-parallel cost (\"tensor_parallel\")");
	else if (needs_even && m->micros % 2)
		not_used(p, "needs an even number of micro-batches (pairs, one each way), got %lld",
			 (long long)m->micros);
	else if (needs_split) {
		for (int i = 0; i < m->nlayers; i++)
			if (m->layers[i].w > 0)
				return;
		not_used(p, "the model gives no weight-gradient time (\"weight\") to split the backward");
	}
}

typedef struct family {
	const char *name;
	tsl_plan_mode mode;
	int train_only, infer_name; /* infer_name: the name in inference */
	int split, tp, chunks, v, even;
} family;

int tsl_family_plans(tsl_plan **out, int *n, const tessel_model *m)
{
	const family fams[] = {
		{"gpipe", TSL_PLAN_GPIPE, 0, 0, 0, 1, 1, 0, 0},
		{"1f1b", TSL_PLAN_1F1B, 1, 0, 0, 1, 1, 0, 0},
		{"pipeline", TSL_PLAN_SEARCH, 0, 0, 0, 1, 1, 0, 0},
		{"zero-bubble", TSL_PLAN_SEARCH, 1, 0, 1, 1, 1, 0, 0},
		{"interleaved-2", TSL_PLAN_SEARCH, 0, 0, 0, 1, 2, 0, 0},
		{"interleaved-4", TSL_PLAN_SEARCH, 0, 0, 0, 1, 4, 0, 0},
		{"v-shape", TSL_PLAN_SEARCH, 0, 0, 1, 1, 2, 1, 0},
		{"chimera", TSL_PLAN_SEARCH, 0, 0, 0, 1, 1, 0, 1},
		{"m-shape", TSL_PLAN_SEARCH, 0, 0, 0, -1, 1, 0, 0},
		{"nn-shape", TSL_PLAN_SEARCH, 0, 0, 0, -3, 1, 0, 0},
		{"k-shape", TSL_PLAN_SEARCH, 0, 0, 0, -2, 1, 0, 0},
		{"tp2", TSL_PLAN_SEARCH, 0, 0, 0, 2, 1, 0, 0},
		{"tp4", TSL_PLAN_SEARCH, 0, 0, 0, 4, 1, 0, 0},
		{"tp8", TSL_PLAN_SEARCH, 0, 0, 0, 8, 1, 0, 0},
	};
	const int nf = (int)(sizeof fams / sizeof fams[0]);
	*out = NULL;
	*n = 0;
	tsl_plan *plans = tsl_calloc((size_t)nf, sizeof *plans);
	if (!plans)
		return tsl_error_nomem();
	int k = 0, rc = TSL_OK, D = m->devices;
	for (int f = 0; f < nf && !rc; f++) {
		const family *F = &fams[f];
		if (F->train_only && m->infer)
			continue;
		tsl_plan *p = &plans[k++];
		snprintf(p->family, sizeof p->family, "%s", F->name);
		if (m->infer && F->mode == TSL_PLAN_GPIPE)
			snprintf(p->family, sizeof p->family, "pipeline-order");
		p->mode = F->mode;
		p->split = F->split && !m->infer;
		p->replicas = 1;
		p->micros = m->micros;
		if (F->tp == -1) {
			check_needs(p, m, 1, 0, 0);
			if (!p->why[0] && m->nlayers < D + 2)
				not_used(p, "needs at least %d layers, the model has %d",
					 D + 2, m->nlayers);
			if (!p->why[0])
				rc = mshape(p, m);
		} else if (F->tp == -3) {
			check_needs(p, m, 1, 0, 0);
			if (!p->why[0] && (D % 2 || m->nlayers < D + 2))
				not_used(p, "needs an even number of devices and at least %d layers",
					 D + 2);
			if (!p->why[0])
				rc = nnshape(p, m);
		} else if (F->tp == -2) {
			int meet = 0;
			check_needs(p, m, 1, 0, 0);
			if (!p->why[0] && (D % 2 || !branches(&meet, m)))
				not_used(p, "needs two input branches that meet and an even number of devices");
			if (!p->why[0]) {
				int second = branches(&meet, m);
				if (second < D / 2 || meet - second < D / 2)
					not_used(p, "needs at least %d layers in each branch",
						 D / 2);
			}
			if (!p->why[0])
				rc = kshape(p, m);
		} else if (F->tp > 1) {
			check_needs(p, m, 1, 0, 0);
			if (!p->why[0] && (D % F->tp || D / F->tp < 2))
				not_used(p, "needs a multiple of %d devices, at least %d",
					 F->tp, 2 * F->tp);
			if (!p->why[0] && m->nlayers < D / F->tp)
				not_used(p, "needs at least %d layers, the model has %d",
					 D / F->tp, m->nlayers);
			if (!p->why[0])
				rc = chain(p, m, F->tp, 0);
		} else {
			check_needs(p, m, 0, F->even, p->split);
			int need = F->chunks * D * (F->even ? 1 : 1);
			if (!p->why[0] && m->nlayers < need)
				not_used(p, "needs at least %d layers (%d stage%s on each of %d devices), the model has %d",
					 need, F->chunks, F->chunks > 1 ? "s" : "", D,
					 m->nlayers);
			if (p->why[0])
				;
			else if (F->even)
				rc = chimera(p, m);
			else if (F->chunks > 1)
				rc = chunked(p, m, F->chunks, F->v);
			else
				rc = chain(p, m, 1, F->mode == TSL_PLAN_GPIPE ? m->micros : 0);
		}
	}
	if (rc) {
		for (int i = 0; i < k; i++)
			tsl_plan_release(&plans[i]);
		tsl_free(plans);
		return rc;
	}
	*out = plans;
	*n = k;
	return TSL_OK;
}
