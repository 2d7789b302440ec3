/* A whole schedule of a V-shaped pipeline, built in rounds (a candidate
 * beside list scheduling, complete_list.c).
 *
 * In a V placement each of the p devices holds two chunks of the model:
 * forward stage s < p on device s and stage 2p-1-s on the same device, so
 * the forwards run down the devices and back up, and the backwards the
 * other way. The Zero Bubble authors' V scheduler (zbv.py of
 * sail-sg/zero-bubble-pipeline-parallelism) builds such a pipeline's
 * per-device orders in rounds, which list scheduling does not: a device
 * commits to the backward (then the forward) of its round and waits for
 * it, rather than starting whatever is ready. Rounds keep each device's
 * in-flight micro-batches in step with its neighbours', which is what a
 * memory limit of the 1F1B budget needs. This file builds those orders on
 * any V placement: each block's own span and memory delta, each
 * dependency's own latency, each device's own limit.
 *
 * The rounds, as that scheduler has them (peer chunk c of a backward or
 * weight block is the model's chunk 1-c):
 * 1. warm-up: every device one forward of chunk 0; then from the last
 *    device up, as many more chunk-0 forwards as fit in memory beside
 *    2 + 2i forwards kept for the chunks in flight and end before the
 *    chunk-1 forward arrives from the next device, then that chunk-1
 *    forward; then forwards of alternating chunks until every device has
 *    as many in flight as the one before it;
 * 2. 2N rounds: on every device one backward (chunk 1 once the next
 *    device has done its part, else chunk 0), weight blocks first where
 *    memory needs them or where they fit before the backward's input
 *    arrives, or where the wait would be larger than the largest bubble
 *    allowed; then one forward the same way;
 * 3. the weight blocks left.
 * Each device's bubble (idle time after its first forward) is summed;
 * the whole is run with four fill variants and each again with the
 * bubbles of its last run as the next run's allowance while the largest
 * bubble shrinks. Every run's starts are as early as its orders allow
 * under this library's model; the shortest run is kept.
 *
 * That scheduler takes one cost a kind (forward, backward, weight). Where
 * the spans of a kind differ (a heavier first or last stage, profiled
 * stages), the rounds run again on up to three even views of the spans,
 * every block of a kind at one statistic of the kind's spans (kind_view:
 * the median, the mean, and the upper middle of the devices' means, which
 * is what the authors' runtime gives that scheduler from its profiles),
 * and each run's orders are then started as early as they allow on the
 * blocks' own spans (tsl_compact without its local search): what that
 * scheduler's orders give on this placement, which the own spans' rounds
 * do not always match (a 16-device V pipeline at 48 micro-batches, first
 * stage x1.1: 39,641 steps from the own spans, 39,458 from the median
 * ones), and which depends on the one cost it is given (a 12-device V
 * pipeline of profiled stages, 72 micro-batches: 82,284 steps from the
 * median, 81,614 from the mean). A device's memory follows its order
 * alone, so the limits still hold. */
#include "complete_vshape.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "complete_chain.h"
#include "complete_compact.h"
#include "error.h"
#include "graph.h"
#include "util.h"

/* most runs of one variant with a new allowance */
#define VSHAPE_MAX_RUNS 16

typedef struct vshape {
	const tessel_graph *g;
	tessel_schedule *s;
	const tsl_deadline *dl;
	int p, n;
	int64_t N;
	int *blk;          /* [(cat * 2 + chunk) * p + stage]: the block */
	int *dev;          /* [stage]: the device */
	int64_t *lim;      /* [stage]: the memory limit (INT64_MAX: none) */
	/* one run's state */
	int64_t *endt;     /* [m * n + b]: end, -1 not placed */
	int64_t *count;    /* [stage * 6 + cat * 2 + chunk] */
	int64_t *cur;      /* [stage]: the device's time */
	int64_t *mem;      /* [stage] */
	int64_t *bubble;   /* [stage] */
	int64_t most;      /* the largest of bubble[] (they only grow) */
	int64_t *approved; /* [stage]: the allowance; NULL: none */
	int64_t max_approved;
	int *wq;           /* [stage * 2N ...]: chunks of the weight blocks
			    * put off, a queue per stage */
	int64_t *wq_head, *wq_tail;
	int *b0, *b1;      /* [stage]: the order of a round's backwards */
	const int64_t *span; /* [block]: the span the rounds read (below) */
	tsl_inst *seq;     /* [count]: this run's instances as placed */
	size_t nseq;
	int64_t puts;      /* counted work */
	int failed;
} vshape;

static int B(const vshape *v, int cat, int chunk, int stage)
{
	return v->blk[(cat * 2 + chunk) * v->p + stage];
}

/* End of an instance, -1 when not placed (or out of range). */
static int64_t E(const vshape *v, int cat, int chunk, int stage, int64_t m)
{
	if (stage < 0 || stage >= v->p || m < 0 || m >= v->N)
		return -1;
	return v->endt[m * v->n + B(v, cat, chunk, stage)];
}

/* The latency the block of (cat, chunk, stage) waits for its input. */
static int64_t C(const vshape *v, int cat, int chunk, int stage)
{
	const tsl_block *b = &v->g->blocks[B(v, cat, chunk, stage)];
	return b->ndeps > 0 ? tsl_dep_latency(v->g, b, 0) : 0;
}

static int64_t max_bubble(const vshape *v, int stage)
{
	int64_t m = v->most;
	if (stage >= 0 && v->approved && v->max_approved - v->approved[stage] > m)
		m = v->max_approved - v->approved[stage];
	return m;
}

static void put(vshape *v, int cat, int chunk, int stage)
{
	if (v->failed)
		return;
	int64_t *cnt = &v->count[stage * 6 + cat * 2 + chunk];
	if (*cnt >= v->N) {
		v->failed = 1;
		return;
	}
	int b = B(v, cat, chunk, stage);
	const tsl_block *blk = &v->g->blocks[b];
	int64_t m = *cnt;
	if (blk->memory > 0 && v->mem[stage] + blk->memory > v->lim[stage]) {
		v->failed = 1;
		return;
	}
	int64_t t = v->cur[stage];
	for (int j = 0; j < blk->ndeps; j++) {
		int64_t e = v->endt[m * v->n + blk->deps[j]];
		if (e < 0) {
			v->failed = 1;
			return;
		}
		e += tsl_dep_latency(v->g, blk, j);
		if (e > t)
			t = e;
	}
	if (v->count[stage * 6] > 0) {
		v->bubble[stage] += t - v->cur[stage];
		if (v->bubble[stage] > v->most)
			v->most = v->bubble[stage];
	}
	v->endt[m * v->n + b] = t + v->span[b];
	v->s->entries[m * v->n + b].start = t;
	v->seq[v->nseq].gid = b;
	v->seq[v->nseq].mid = m;
	v->nseq++;
	v->cur[stage] = t + v->span[b];
	v->mem[stage] += blk->memory;
	if (cat == 1) {
		int64_t q = 2 * v->N;
		v->wq[(int64_t)stage * q + v->wq_tail[stage] % q] = chunk;
		v->wq_tail[stage]++;
	}
	(*cnt)++;
	v->puts++;
}

/* Whether the next instance of (cat, chunk, stage) has every dependency
 * placed. */
static int inputs_placed(const vshape *v, int cat, int chunk, int stage)
{
	int64_t m = v->count[stage * 6 + cat * 2 + chunk];
	if (m >= v->N)
		return 0;
	const tsl_block *blk = &v->g->blocks[B(v, cat, chunk, stage)];
	for (int j = 0; j < blk->ndeps; j++)
		if (v->endt[m * v->n + blk->deps[j]] < 0)
			return 0;
	return 1;
}

static int pending_w(const vshape *v, int stage)
{
	return v->wq_tail[stage] > v->wq_head[stage];
}

static int next_w_chunk(const vshape *v, int stage)
{
	int64_t q = 2 * v->N;
	return v->wq[(int64_t)stage * q + v->wq_head[stage] % q];
}

static void put_w(vshape *v, int stage)
{
	if (!pending_w(v, stage)) {
		v->failed = 1;
		return;
	}
	int chunk = next_w_chunk(v, stage);
	v->wq_head[stage]++;
	put(v, 2, chunk, stage);
}

static int64_t w_span(const vshape *v, int stage)
{
	if (!pending_w(v, stage))
		return 0;
	return v->span[B(v, 2, next_w_chunk(v, stage), stage)];
}

/* The end of the instance a block waits for, as that scheduler reads it:
 * none (fa_id -1) reads its table's last entry, the last weight block of
 * the last micro-batch on the last stage. */
static int64_t fa_end(const vshape *v, int has, int cat, int chunk, int stage,
		      int64_t m)
{
	if (has)
		return E(v, cat, chunk, stage, m);
	return E(v, 2, 1, v->p - 1, v->N - 1);
}

/* Weight blocks before the instance of (cat, chunk, stage) whose input is
 * fa (has: whether there is one): those that fit before the input
 * arrives, and one more when the wait would be larger than allowed and
 * `fill`. */
static void fill_before(vshape *v, int cat, int chunk, int stage, int has,
			int64_t fa, int fill)
{
	int64_t c = has ? C(v, cat, chunk, stage) : v->g->latency;
	while (!v->failed && pending_w(v, stage) && has &&
	       fa + c >= v->cur[stage] + w_span(v, stage))
		put_w(v, stage);
	if (!v->failed && pending_w(v, stage) &&
	    fa + c - v->cur[stage] > max_bubble(v, stage) - v->bubble[stage] &&
	    fill)
		put_w(v, stage);
}

static int64_t cnt(const vshape *v, int stage, int k)
{
	return v->count[stage * 6 + k];
}

/* Whether a forward or backward is left to place. */
static int fb_left(const vshape *v)
{
	for (int i = 0; i < v->p; i++)
		for (int k = 0; k < 4; k++)
			if (v->count[i * 6 + k] < v->N)
				return 1;
	return 0;
}

/* One run: the orders and starts of every instance. */
/* A run's state cleared. */
static void run_reset(vshape *v)
{
	int p = v->p;
	size_t count = (size_t)v->n * (size_t)v->N;
	for (size_t i = 0; i < count; i++)
		v->endt[i] = -1;
	memset(v->count, 0, (size_t)p * 6 * sizeof *v->count);
	memset(v->cur, 0, (size_t)p * sizeof *v->cur);
	memset(v->mem, 0, (size_t)p * sizeof *v->mem);
	memset(v->bubble, 0, (size_t)p * sizeof *v->bubble);
	v->most = 0;
	v->nseq = 0;
	memset(v->wq_head, 0, (size_t)p * sizeof *v->wq_head);
	memset(v->wq_tail, 0, (size_t)p * sizeof *v->wq_tail);
	v->failed = 0;
}

/* 1. warm-up: a chunk-0 forward everywhere; from the last device up as
 * many more as memory and the second chunk's arrival allow, then its
 * chunk-1 forward; then forwards of alternating chunks until every device
 * has as many in flight as the one before it. */
static void run_warmup(vshape *v)
{
	int p = v->p;
	int64_t N = v->N;
	for (int i = 0; i < p; i++)
		put(v, 0, 0, i);
	for (int i = p - 1; i >= 0 && !v->failed; i--) {
		if (i == p - 1) {
			put(v, 0, 1, i);
			continue;
		}
		int64_t tmp = E(v, 0, 1, i + 1, 0) + C(v, 0, 1, i);
		int fb = B(v, 0, 0, i);
		const tsl_block *f = &v->g->blocks[fb];
		while (!v->failed &&
		       v->mem[i] + (int64_t)f->memory * (2 + 2 * (int64_t)i) <= v->lim[i] &&
		       v->cur[i] + v->span[fb] <= tmp && cnt(v, i, 0) < N)
			for (int j = 0; j <= i; j++)
				put(v, 0, 0, j);
		put(v, 0, 1, i);
	}
	int chunk = 0;
	for (int i = 1; i < p && !v->failed; i++) {
		while (!v->failed &&
		       (cnt(v, i, 0) + cnt(v, i, 1) < cnt(v, i - 1, 0) + cnt(v, i - 1, 1) ||
			(cnt(v, i, 1) <= cnt(v, i - 1, 1) && cnt(v, i - 1, 1) < N))) {
			int64_t before = v->puts;
			/* (a forward whose input is not there yet waits: with
			 * spans of their own, stages may run apart) */
			for (int j = p - 1; j >= i; j--)
				if (inputs_placed(v, 0, chunk, j))
					put(v, 0, chunk, j);
			chunk = 1 - chunk;
			if (v->puts == before) {
				/* a second pass of the other chunk */
				for (int j = p - 1; j >= i; j--)
					if (inputs_placed(v, 0, chunk, j))
						put(v, 0, chunk, j);
				chunk = 1 - chunk;
				if (v->puts == before)
					v->failed = 1; /* nothing moves */
			}
		}
	}
}

/* A round's backwards: weight blocks first where memory needs them, then
 * chunk 1 from the last stage down and chunk 0 from the first up (kept
 * on the stacks of stage indexes), each after the blocks that fit before
 * its input arrives. */
static void round_backwards(vshape *v, int fill_b)
{
	int p = v->p;
	int64_t N = v->N;
	for (int i = 0; i < p && !v->failed; i++) {
		int64_t bm = v->g->blocks[B(v, 1, 0, i)].memory;
		int64_t bm1 = v->g->blocks[B(v, 1, 1, i)].memory;
		if (bm1 > bm)
			bm = bm1;
		while (!v->failed && bm > 0 && v->mem[i] + bm > v->lim[i])
			put_w(v, i);
	}
	int nb1 = 0, nb0 = 0;
	int *b1 = v->b1, *b0 = v->b0;
	for (int i = 0; i < p; i++) {
		if (cnt(v, i, 3) >= cnt(v, i, 2))
			b0[nb0++] = i;
		else if (i == p - 1)
			b1[nb1++] = i;
		else if (E(v, 1, 1, i + 1, cnt(v, i, 3)) >= 0 || cnt(v, i, 2) >= N)
			b1[nb1++] = i;
		else
			b0[nb0++] = i;
	}
	for (int k = 0; k < nb1 + nb0 && !v->failed; k++) {
		int i = k < nb1 ? b1[nb1 - 1 - k] : b0[k - nb1];
		int ch = k < nb1 ? 1 : 0;
		int has = 0;
		int64_t fa;
		if (ch == 1 && i < p - 1) {
			has = 1;
			fa = fa_end(v, 1, 1, 1, i + 1, cnt(v, i, 3));
		} else if (ch == 0 && i > 0) {
			has = 1;
			fa = fa_end(v, 1, 1, 0, i - 1, cnt(v, i, 2));
		} else {
			fa = fa_end(v, 0, 0, 0, 0, 0);
		}
		if (!inputs_placed(v, 1, ch, i))
			continue; /* (spans of their own) its input later */
		fill_before(v, 1, ch, i, has, fa, ch == 1 || fill_b);
		put(v, 1, ch, i);
	}
}

/* A round's forwards: one per device, the chunk whose input is there,
 * weight blocks first where memory needs them or where they fit before
 * the input arrives. */
static void round_forwards(vshape *v, int fill_f)
{
	int p = v->p;
	int64_t N = v->N;
	for (int i = 0; i < p && !v->failed; i++) {
		if (cnt(v, i, 1) >= N)
			continue;
		int item = -1;
		if (cnt(v, i, 1) >= cnt(v, i, 0))
			item = 0;
		else if (i == p - 1)
			item = 1;
		else if (E(v, 0, 1, i + 1, cnt(v, i, 1)) >= 0)
			item = 1;
		else if (cnt(v, i, 0) < N &&
			 (i == 0 || E(v, 0, 0, i - 1, cnt(v, i, 0)) >= 0))
			item = 0;
		if (item < 0 || !inputs_placed(v, 0, item, i))
			continue;
		int64_t fm = v->g->blocks[B(v, 0, item, i)].memory;
		while (!v->failed && fm > 0 && v->mem[i] + fm > v->lim[i])
			put_w(v, i);
		int has = 0;
		int64_t fa;
		if (item == 0 && i > 0) {
			has = 1;
			fa = fa_end(v, 1, 0, 0, i - 1, cnt(v, i, 0));
		} else if (item == 1 && i < p - 1) {
			has = 1;
			fa = fa_end(v, 1, 0, 1, i + 1, cnt(v, i, 1));
		} else {
			fa = fa_end(v, 0, 0, 0, 0, 0);
		}
		fill_before(v, 0, item, i, has, fa, fill_f);
		put(v, 0, item, i);
	}
}

/* One run of the rounds with its fill variant: warm-up, rounds, the
 * weight blocks left; v->failed when an instance was not placed. */
static void run(vshape *v, int fill_f, int fill_b)
{
	int64_t N = v->N;
	size_t count = (size_t)v->n * (size_t)N;
	run_reset(v);
	run_warmup(v);
	/* 2. 2N rounds, as that scheduler has them; more while they place
	 * something and forwards or backwards are left (with spans of their
	 * own, a device may skip a round whose input is not there yet) */
	int64_t round_puts = -1;
	for (int64_t r = 0; !v->failed; r++) {
		if (r >= 2 * N && (v->puts == round_puts || !fb_left(v) ||
				   r >= 8 * N))
			break; /* (a run that needs more rounds is dropped) */
		round_puts = v->puts;
		if ((r & 15) == 0 && v->dl && v->dl->stop && atomic_load(v->dl->stop))
			break;
		round_backwards(v, fill_b);
		round_forwards(v, fill_f);
	}
	/* 3. the weight blocks left */
	for (int i = 0; i < v->p && !v->failed; i++)
		while (!v->failed && pending_w(v, i))
			put_w(v, i);
	for (size_t i = 0; i < count && !v->failed; i++)
		if (v->endt[i] < 0)
			v->failed = 1; /* stopped early, or some never placed */
}

/* The blocks of a V pipeline into v->blk, v->dev, v->lim: 1, or 0 when g
 * is none (or TESSEL_ENOMEM). Time linear in the blocks. */
static int recognise(vshape *v)
{
	const tessel_graph *g = v->g;
	int p = g->ndevices, S = 2 * p;
	int *F = tsl_calloc((size_t)3 * (size_t)S, sizeof *F);
	char *dev_seen = tsl_calloc((size_t)p, 1);
	int ok = F && dev_seen ? tsl_chain_stages(F, F + S, F + 2 * S, g, S)
			       : tsl_error_nomem();
	if (ok < 0) {
		tsl_free(F);
		tsl_free(dev_seen);
		return ok;
	}
	int *Bk = F + S, *W = F + 2 * S;
	/* the devices: stage s and 2p-1-s on one, each its own */
	for (int s = 0; ok && s < p; s++) {
		int d = g->blocks[F[s]].devices[0];
		int t = S - 1 - s;
		ok = !dev_seen[d] &&
		     g->blocks[F[t]].devices[0] == d &&
		     g->blocks[Bk[s]].devices[0] == d && g->blocks[Bk[t]].devices[0] == d &&
		     g->blocks[W[s]].devices[0] == d && g->blocks[W[t]].devices[0] == d;
		if (!ok)
			break;
		dev_seen[d] = 1;
		v->dev[s] = d;
		/* peer chunk 0 of a forward is the model's chunk 0; of a
		 * backward or weight block the model's chunk 1 */
		v->blk[(0 * 2 + 0) * p + s] = F[s];
		v->blk[(0 * 2 + 1) * p + s] = F[t];
		v->blk[(1 * 2 + 0) * p + s] = Bk[t];
		v->blk[(1 * 2 + 1) * p + s] = Bk[s];
		v->blk[(2 * 2 + 0) * p + s] = W[t];
		v->blk[(2 * 2 + 1) * p + s] = W[s];
		int64_t lim = g->memory_limit[d];
		v->lim[s] = lim == TESSEL_UNLIMITED ? INT64_MAX / 4 : lim;
	}
	tsl_free(dev_seen);
	tsl_free(F);
	return ok;
}

static void vshape_release(vshape *v)
{
	tsl_free(v->blk);
	tsl_free(v->dev);
	tsl_free(v->lim);
	tsl_free(v->endt);
	tsl_free(v->count);
	tsl_free(v->cur);
	tsl_free(v->mem);
	tsl_free(v->bubble);
	tsl_free(v->approved);
	tsl_free(v->wq);
	tsl_free(v->wq_head);
	tsl_free(v->wq_tail);
	tsl_free(v->seq);
	tsl_free(v->b0);
	tsl_free(v->b1);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The even views the rounds also run on, as that scheduler takes one
 * cost a kind: every block of a kind at one statistic of the kind's
 * spans. */
enum {
	VIEW_MEDIAN,        /* the lower middle one */
	VIEW_DEVICE_MEDIAN, /* each device's mean (of its two blocks, to the
			     * nearest step, halves up), then the upper
			     * middle one of those: the cost the authors'
			     * runtime gives that scheduler from its
			     * profiles */
	VIEW_MEAN,          /* to the nearest step, halves up */
	VIEW_STATS
};

/* The spans of every kind (cat) of the pipeline's blocks, each set to the
 * statistic `stat` (VIEW_*) of the kind's spans. Returns whether any
 * block's span changed, or -1 (out of memory). */
static int kind_view(int64_t *span, const vshape *v, int stat)
{
	int p = v->p, changed = 0;
	int64_t *x = tsl_reallocarray(NULL, 2 * (size_t)p, sizeof *x);
	if (!x)
		return -1;
	for (int cat = 0; cat < 3; cat++) {
		int k = 0;
		int64_t sum = 0; /* (spans below 2^31, at most 2^13 of them) */
		if (stat == VIEW_DEVICE_MEDIAN)
			for (int i = 0; i < p; i++)
				x[k++] = (v->g->blocks[B(v, cat, 0, i)].span +
					  v->g->blocks[B(v, cat, 1, i)].span + 1) / 2;
		else
			for (int c = 0; c < 2; c++)
				for (int i = 0; i < p; i++) {
					x[k] = v->g->blocks[B(v, cat, c, i)].span;
					sum += x[k++];
				}
		qsort(x, (size_t)k, sizeof *x, cmp_i64);
		int64_t at = stat == VIEW_MEDIAN ? x[(k - 1) / 2]
			     : stat == VIEW_DEVICE_MEDIAN ? x[k / 2]
			     : (2 * sum + k) / (2 * k);
		for (int c = 0; c < 2; c++)
			for (int i = 0; i < p; i++) {
				int b = B(v, cat, c, i);
				changed |= span[b] != at;
				span[b] = at;
			}
	}
	tsl_free(x);
	return changed;
}

/* The run's orders started as early as they allow with each block's own
 * span (the orders, hence each device's memory, stay as the run placed
 * them): the makespan, or -1 (TESSEL_ENOMEM in *rc). */
static int64_t replay_own_spans(vshape *v, int *rc)
{
	*rc = tsl_compact(v->s, v->seq, v->nseq, 0, 0, NULL);
	if (*rc)
		return -1;
	int64_t m = 0;
	for (size_t i = 0; i < v->nseq; i++) {
		const tsl_inst *x = &v->seq[i];
		int64_t e = v->s->entries[x->mid * v->n + x->gid].start +
			    v->g->blocks[x->gid].span;
		if (e > m)
			m = e;
	}
	return m;
}

static int64_t makespan_of(const vshape *v)
{
	size_t count = (size_t)v->n * (size_t)v->N;
	int64_t m = 0;
	for (size_t i = 0; i < count; i++)
		if (v->endt[i] > m)
			m = v->endt[i];
	return m;
}

int tsl_vshape_possible(const tessel_graph *g)
{
	return g->ndevices >= 2 && g->nblocks == 6 * g->ndevices;
}

int tsl_vshape_schedule(tessel_schedule *s, int *found, const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	vshape v;
	memset(&v, 0, sizeof v);
	*found = 0;
	v.g = g;
	v.s = s;
	v.dl = dl;
	v.p = g->ndevices;
	v.n = g->nblocks;
	v.N = s->nmicros;
	if (!tsl_vshape_possible(g) || v.N < 1)
		return TSL_OK;
	size_t p = (size_t)v.p, count = (size_t)v.n * (size_t)v.N;
	v.blk = tsl_calloc(6 * p, sizeof *v.blk);
	v.dev = tsl_calloc(p, sizeof *v.dev);
	v.lim = tsl_calloc(p, sizeof *v.lim);
	if (!v.blk || !v.dev || !v.lim) {
		vshape_release(&v);
		return tsl_error_nomem();
	}
	int is_v = recognise(&v);
	if (is_v <= 0) {
		vshape_release(&v);
		return is_v < 0 ? is_v : TSL_OK;
	}
	int64_t *best = tsl_reallocarray(NULL, count, sizeof *best);
	v.endt = tsl_reallocarray(NULL, count, sizeof *v.endt);
	v.count = tsl_calloc(6 * p, sizeof *v.count);
	v.cur = tsl_calloc(p, sizeof *v.cur);
	v.mem = tsl_calloc(p, sizeof *v.mem);
	v.bubble = tsl_calloc(p, sizeof *v.bubble);
	v.approved = tsl_calloc(p, sizeof *v.approved);
	v.wq = tsl_reallocarray(NULL, p * 2 * (size_t)v.N, sizeof *v.wq);
	v.wq_head = tsl_calloc(p, sizeof *v.wq_head);
	v.wq_tail = tsl_calloc(p, sizeof *v.wq_tail);
	int rc = TSL_OK;
	v.b0 = tsl_calloc(p, sizeof *v.b0);
	v.b1 = tsl_calloc(p, sizeof *v.b1);
	if (!best || !v.b0 || !v.b1 || !v.endt || !v.count || !v.cur || !v.mem ||
	    !v.bubble || !v.approved || !v.wq || !v.wq_head || !v.wq_tail)
		rc = tsl_error_nomem();
	/* the spans the rounds read: each block's own, then (when some
	 * differ) every block of a kind at one statistic of the kind's
	 * spans (kind_view), as that scheduler has one cost a kind, the
	 * orders then started with the own spans; a view the same as one
	 * before it is not run again */
	int64_t *own = NULL, *view_span[1 + VIEW_STATS] = {NULL};
	int views = 1;
	if (!rc) {
		own = tsl_reallocarray(NULL, (size_t)v.n, sizeof *own);
		v.seq = tsl_reallocarray(NULL, count, sizeof *v.seq);
		if (!own || !v.seq)
			rc = tsl_error_nomem();
		for (int b = 0; !rc && b < v.n; b++)
			own[b] = g->blocks[b].span;
		view_span[0] = own;
	}
	for (int stat = 0; stat < VIEW_STATS && !rc; stat++) {
		int64_t *x = tsl_reallocarray(NULL, (size_t)v.n, sizeof *x);
		if (!x) {
			rc = tsl_error_nomem();
			break;
		}
		memcpy(x, own, (size_t)v.n * sizeof *x);
		int changed = kind_view(x, &v, stat);
		int again = changed <= 0;
		for (int k = 1; k < views && !again; k++)
			again = !memcmp(x, view_span[k], (size_t)v.n * sizeof *x);
		if (changed < 0)
			rc = tsl_error_nomem();
		if (again)
			tsl_free(x);
		else
			view_span[views++] = x;
	}
	int64_t best_makespan = INT64_MAX, charged = 0;
	int64_t *approved = v.approved;
	for (int variant = 0; variant < 4 * views && !rc; variant++) {
		int view = variant / 4;
		v.span = view_span[view];
		int fill_b = variant % 4 < 2, fill_f = variant % 2 == 0;
		int64_t prev = -1; /* the largest bubble of the run before */
		v.approved = NULL;
		for (int k = 0; k < VSHAPE_MAX_RUNS && !rc; k++) {
			if (v.approved)
				v.max_approved = 0;
			for (size_t i = 0; v.approved && i < p; i++)
				if (v.approved[i] > v.max_approved)
					v.max_approved = v.approved[i];
			run(&v, fill_f, fill_b);
			int64_t m = -1;
			if (!v.failed && view) {
				m = replay_own_spans(&v, &rc);
				v.puts += (int64_t)v.nseq;
			}
			tsl_charge(dl, (v.puts - charged) / TSL_LIST_STEPS_PER_TICK);
			charged = v.puts - (v.puts - charged) % TSL_LIST_STEPS_PER_TICK;
			if (rc)
				break; /* (the replay's memory) */
			if (tsl_deadline_hard_passed(dl) ||
			    (dl && dl->stop && atomic_load(dl->stop))) {
				rc = TESSEL_ETIMEOUT;
				break;
			}
			if (v.failed)
				break;
			if (!view)
				m = makespan_of(&v);
			if (m < best_makespan) {
				best_makespan = m;
				*found = 1;
				for (size_t i = 0; i < count; i++)
					best[i] = s->entries[i].start;
			}
			int64_t mb = max_bubble(&v, -1);
			/* again with these bubbles allowed while the largest
			 * shrinks */
			if (prev >= 0 && mb >= prev)
				break;
			prev = mb;
			memcpy(approved, v.bubble, p * sizeof *approved);
			v.approved = approved;
		}
	}
	v.approved = approved;
	if (*found && rc != TESSEL_ENOMEM)
		for (size_t i = 0; i < count; i++)
			s->entries[i].start = best[i];
	if (rc == TESSEL_ETIMEOUT && *found)
		rc = TSL_OK;
	tsl_free(best);
	for (int k = 0; k < views; k++)
		tsl_free(view_span[k]);
	vshape_release(&v);
	return rc;
}
