/* A whole schedule of a pipeline of one stage per device with forward,
 * backward and weight blocks, built as the Zero Bubble authors' greedy
 * builds it (a candidate beside list scheduling, complete_list.c).
 *
 * In such a placement (their "H" form) stage s runs on device s: the
 * forwards go down the devices, the backwards come back, and each
 * backward's weight block may wait. The scheduler of zb.py
 * (sail-sg/zero-bubble-pipeline-parallelism, Graph.manual_order) builds
 * the per-device orders micro-batch by micro-batch, which list
 * scheduling does not: the warm-up gives each device as many forwards as
 * end before the first backward comes back to it (and as memory allows),
 * then each micro-batch puts one forward per device and its backward from
 * the last device up, weight blocks put first where memory needs them,
 * where they fit before the input arrives, or where the wait would be
 * larger than the largest bubble (idle time after a device's first
 * forward) seen so far. Its eight variants (a bubble allowed before the
 * first backward or not, a forward held back for the next device's
 * backward or not, a weight block put into a wait within the largest
 * bubble or not) are each run; every run's starts are as early as its
 * orders allow under this library's model, with each block's own span
 * and memory delta, each dependency's own latency and each device's own
 * limit, and the shortest run is kept. */
#include "complete_hshape.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "complete_chain.h"
#include "error.h"
#include "graph.h"
#include "util.h"

enum { HF, HB, HW }; /* the kinds, as that scheduler numbers them */

typedef struct hshape {
	const tessel_graph *g;
	tessel_schedule *s;
	int p, n;
	int64_t N;
	int *blk;          /* [kind * p + stage]: the block */
	int64_t *lim;      /* [stage]: the memory limit (INT64_MAX / 4: none) */
	/* one run's state */
	int64_t *endt;     /* [m * n + b]: end, -1 not placed */
	int64_t *count;    /* [stage * 3 + kind]: placed */
	int64_t *cur;      /* [stage]: the device's time */
	int64_t *mem;      /* [stage] */
	int64_t *bubble;   /* [stage] */
	int64_t most;      /* the largest of bubble[] (they only grow) */
	int64_t puts;      /* counted work */
	int failed;
} hshape;

static const tsl_block *blk_of(const hshape *h, int kind, int stage)
{
	return &h->g->blocks[h->blk[kind * h->p + stage]];
}

static int64_t cnt(const hshape *h, int stage, int kind)
{
	return h->count[stage * 3 + kind];
}

/* End of micro-batch m's instance of (kind, stage); -1 when not placed
 * (a failed run). */
static int64_t E(const hshape *h, int kind, int stage, int64_t m)
{
	if (stage < 0 || stage >= h->p || m < 0 || m >= h->N)
		return -1;
	return h->endt[m * h->n + h->blk[kind * h->p + stage]];
}

/* The latency the block of (kind, stage) waits for its input. */
static int64_t C(const hshape *h, int kind, int stage)
{
	const tsl_block *b = blk_of(h, kind, stage);
	return b->ndeps > 0 ? tsl_dep_latency(h->g, b, 0) : 0;
}

static int64_t max_bubble(const hshape *h)
{
	return h->most;
}

/* The next instance of (kind, stage) after what its device ran, as early
 * as its dependencies allow. */
static void put(hshape *h, int stage, int kind)
{
	if (h->failed)
		return;
	int64_t *c = &h->count[stage * 3 + kind];
	if (*c >= h->N) {
		h->failed = 1;
		return;
	}
	int b = h->blk[kind * h->p + stage];
	const tsl_block *y = &h->g->blocks[b];
	int64_t m = *c;
	if (y->memory > 0 && h->mem[stage] + y->memory > h->lim[stage]) {
		h->failed = 1;
		return;
	}
	int64_t t = h->cur[stage];
	for (int j = 0; j < y->ndeps; j++) {
		int64_t e = h->endt[m * h->n + y->deps[j]];
		if (e < 0) {
			h->failed = 1;
			return;
		}
		e += tsl_dep_latency(h->g, y, j);
		if (e > t)
			t = e;
	}
	if (cnt(h, stage, HF) > 0) {
		h->bubble[stage] += t - h->cur[stage];
		if (h->bubble[stage] > h->most)
			h->most = h->bubble[stage];
	}
	h->endt[m * h->n + b] = t + y->span;
	h->s->entries[m * h->n + b].start = t;
	h->cur[stage] = t + y->span;
	h->mem[stage] += y->memory;
	(*c)++;
	h->puts++;
}

/* A weight block, when one is left to put (its backward placed). */
static int w_left(const hshape *h, int stage)
{
	return cnt(h, stage, HW) < cnt(h, stage, HB);
}

/* Weight blocks until `memory` more fits on the stage's device. */
static void free_for(hshape *h, int stage, int64_t memory)
{
	while (!h->failed && memory > 0 && h->mem[stage] + memory > h->lim[stage]) {
		if (!w_left(h, stage)) {
			h->failed = 1; /* no order of this run fits */
			return;
		}
		put(h, stage, HW);
	}
}

/* Weight blocks before an instance whose input arrives at `arrive`: those
 * that end by then, and one more when the wait left is within the
 * largest bubble beside the stage's own (and `greedy`) or beyond it. */
static void fill_before(hshape *h, int stage, int64_t arrive, int greedy)
{
	while (!h->failed && w_left(h, stage) &&
	       h->cur[stage] + blk_of(h, HW, stage)->span <= arrive)
		put(h, stage, HW);
	if (!h->failed && w_left(h, stage) && h->cur[stage] < arrive) {
		if (arrive - h->cur[stage] <= max_bubble(h) - h->bubble[stage]) {
			if (greedy)
				put(h, stage, HW);
		} else {
			put(h, stage, HW);
		}
	}
}

/* The first micro-batch: a forward on every device, then on each device
 * as many more forwards as memory allows that end (or, without
 * `bubble_first`, begin) before the first backward comes back to it, no
 * more than the device before it takes, then the first backward from the
 * last device up. */
static void run_first(hshape *h, int64_t *f_required, int bubble_first)
{
	int p = h->p;
	for (int j = 0; j < p; j++)
		put(h, j, HF);
	if (h->failed)
		return;
	memset(f_required, 0, (size_t)p * sizeof *f_required);
	int64_t last_t = 0;
	for (int j = p - 1; j >= 0; j--) {
		if (j == p - 1) {
			last_t = E(h, HF, j, 0) + blk_of(h, HB, j)->span;
			continue;
		}
		int64_t mem = h->mem[j], t = h->cur[j];
		int64_t comm = C(h, HB, j);
		const tsl_block *f = blk_of(h, HF, j);
		while (cnt(h, j, HF) + f_required[j] < h->N &&
		       mem + f->memory <= h->lim[j]) {
			if (bubble_first ? t + f->span > last_t + comm : t >= last_t + comm)
				break;
			mem += f->memory;
			t += f->span;
			f_required[j]++;
		}
		last_t = (t > last_t + comm ? t : last_t + comm) + blk_of(h, HB, j)->span;
	}
	for (int j = 1; j < p; j++)
		while (f_required[j] > 0 && f_required[j] >= f_required[j - 1] &&
		       cnt(h, j, HF) + f_required[j] < h->N)
			f_required[j]--;
	for (int j = 0; j < p; j++)
		for (int64_t k = 0; k < f_required[j]; k++)
			put(h, j, HF);
	for (int j = p - 1; j >= 0; j--)
		put(h, j, HB);
}

/* Micro-batch i > 0: a forward on every device that takes one (a device
 * two forwards ahead of the next may hold it back for that device's
 * backward, with prioritize_b), then backward i from the last device up;
 * weight blocks before each where memory or the wait for the input asks
 * for them. */
static void run_next(hshape *h, int64_t *f_required, int64_t i, int prioritize_b,
		     int greedy)
{
	int p = h->p;
	int64_t N = h->N;
	for (int j = 0; j < p; j++) {
		f_required[j] = 0;
		if (cnt(h, j, HF) >= N)
			continue;
		if (j + 1 < p && cnt(h, j, HF) >= cnt(h, j + 1, HF) + 2 && prioritize_b) {
			int64_t next_plus_fw = h->cur[j + 1] + blk_of(h, HF, j + 1)->span +
					       blk_of(h, HB, j + 1)->span + C(h, HF, j + 1);
			if (h->cur[j] >= next_plus_fw)
				continue;
			const tsl_block *f = blk_of(h, HF, j), *w = blk_of(h, HW, j);
			int64_t w_cost = 0, mem_with_w = h->mem[j] + f->memory;
			for (int64_t k = cnt(h, j, HW);
			     mem_with_w > h->lim[j] && k < cnt(h, j, HB); k++) {
				w_cost += w->span;
				mem_with_w += w->memory;
			}
			if (h->cur[j] + f->span + w_cost <= next_plus_fw) {
				f_required[j] = 1;
				continue;
			}
			if (next_plus_fw - h->cur[j] <= max_bubble(h) - h->bubble[j])
				continue;
		}
		f_required[j] = 1;
	}
	for (int j = p - 2; j >= 0; j--)
		if (f_required[j + 1] < f_required[j])
			f_required[j] = f_required[j + 1];
	for (int j = 0; j < p && !h->failed; j++) {
		if (!f_required[j])
			continue;
		free_for(h, j, blk_of(h, HF, j)->memory);
		if (j > 0) {
			int64_t in = E(h, HF, j - 1, cnt(h, j, HF));
			if (in < 0) {
				h->failed = 1; /* its input not placed */
				return;
			}
			fill_before(h, j, in + C(h, HF, j), greedy);
		}
		put(h, j, HF);
	}
	for (int j = p - 1; j >= 0 && !h->failed; j--) {
		if (cnt(h, j, HB) != i) {
			h->failed = 1;
			return;
		}
		free_for(h, j, blk_of(h, HB, j)->memory);
		if (j + 1 < p) {
			int64_t in = E(h, HB, j + 1, i);
			if (in < 0) {
				h->failed = 1;
				return;
			}
			fill_before(h, j, in + C(h, HB, j), greedy);
		}
		if (j == 0 && cnt(h, j, HF) == N)
			while (!h->failed && w_left(h, j))
				put(h, j, HW);
		put(h, j, HB);
	}
}

/* One run of a variant: the orders and starts of every instance;
 * h->failed when one was not placed. */
static void run(hshape *h, int64_t *f_required, int variant, const tsl_deadline *dl)
{
	int bubble_first = !(variant & 4), prioritize_b = !(variant & 2),
	    greedy = !(variant & 1);
	size_t count = (size_t)h->n * (size_t)h->N;
	for (size_t i = 0; i < count; i++)
		h->endt[i] = -1;
	memset(h->count, 0, (size_t)h->p * 3 * sizeof *h->count);
	memset(h->cur, 0, (size_t)h->p * sizeof *h->cur);
	memset(h->mem, 0, (size_t)h->p * sizeof *h->mem);
	memset(h->bubble, 0, (size_t)h->p * sizeof *h->bubble);
	h->most = 0;
	h->failed = 0;
	run_first(h, f_required, bubble_first);
	for (int64_t i = 1; i < h->N && !h->failed; i++) {
		if ((i & 15) == 0 && dl && dl->stop && atomic_load(dl->stop))
			h->failed = 1;
		run_next(h, f_required, i, prioritize_b, greedy);
	}
	for (int j = 0; j < h->p && !h->failed; j++)
		while (!h->failed && cnt(h, j, HW) < h->N)
			put(h, j, HW);
	for (size_t i = 0; i < count && !h->failed; i++)
		if (h->endt[i] < 0)
			h->failed = 1;
}

/* The blocks of an H pipeline into h->blk and h->lim: 1, or 0 when g is
 * none (or TESSEL_ENOMEM). Time linear in the blocks. */
static int recognise(hshape *h)
{
	const tessel_graph *g = h->g;
	int p = g->ndevices;
	int *F = h->blk, *Bk = h->blk + p, *W = h->blk + 2 * p;
	int ok = tsl_chain_stages(F, Bk, W, g, p);
	if (ok <= 0)
		return ok;
	char *dev_seen = tsl_calloc((size_t)p, 1);
	if (!dev_seen)
		return tsl_error_nomem();
	/* stage s on a device of its own, its three blocks there */
	for (int s = 0; ok && s < p; s++) {
		int d = g->blocks[F[s]].devices[0];
		ok = !dev_seen[d] && g->blocks[Bk[s]].devices[0] == d &&
		     g->blocks[W[s]].devices[0] == d;
		if (!ok)
			break;
		dev_seen[d] = 1;
		int64_t lim = g->memory_limit[d];
		h->lim[s] = lim == TESSEL_UNLIMITED ? INT64_MAX / 4 : lim;
	}
	tsl_free(dev_seen);
	return ok;
}

static void hshape_release(hshape *h)
{
	tsl_free(h->blk);
	tsl_free(h->lim);
	tsl_free(h->endt);
	tsl_free(h->count);
	tsl_free(h->cur);
	tsl_free(h->mem);
	tsl_free(h->bubble);
}

static int64_t makespan_of(const hshape *h)
{
	size_t count = (size_t)h->n * (size_t)h->N;
	int64_t m = 0;
	for (size_t i = 0; i < count; i++)
		if (h->endt[i] > m)
			m = h->endt[i];
	return m;
}

int tsl_hshape_possible(const tessel_graph *g)
{
	return g->ndevices >= 2 && g->nblocks == 3 * g->ndevices;
}

int tsl_hshape_schedule(tessel_schedule *s, int *found, const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	hshape h;
	memset(&h, 0, sizeof h);
	*found = 0;
	h.g = g;
	h.s = s;
	h.p = g->ndevices;
	h.n = g->nblocks;
	h.N = s->nmicros;
	if (!tsl_hshape_possible(g) || h.N < 1)
		return TSL_OK;
	size_t p = (size_t)h.p, count = (size_t)h.n * (size_t)h.N;
	h.blk = tsl_calloc(3 * p, sizeof *h.blk);
	h.lim = tsl_calloc(p, sizeof *h.lim);
	if (!h.blk || !h.lim) {
		hshape_release(&h);
		return tsl_error_nomem();
	}
	int is_h = recognise(&h);
	if (is_h <= 0) {
		hshape_release(&h);
		return is_h < 0 ? is_h : TSL_OK;
	}
	int64_t *best = tsl_reallocarray(NULL, count, sizeof *best);
	int64_t *f_required = tsl_calloc(p, sizeof *f_required);
	h.endt = tsl_reallocarray(NULL, count, sizeof *h.endt);
	h.count = tsl_calloc(3 * p, sizeof *h.count);
	h.cur = tsl_calloc(p, sizeof *h.cur);
	h.mem = tsl_calloc(p, sizeof *h.mem);
	h.bubble = tsl_calloc(p, sizeof *h.bubble);
	int rc = TSL_OK;
	if (!best || !f_required || !h.endt || !h.count || !h.cur || !h.mem ||
	    !h.bubble)
		rc = tsl_error_nomem();
	int64_t best_makespan = INT64_MAX, charged = 0;
	for (int variant = 0; variant < 8 && !rc; variant++) {
		run(&h, f_required, variant, dl);
		tsl_charge(dl, (h.puts - charged) / TSL_LIST_STEPS_PER_TICK);
		charged = h.puts - (h.puts - charged) % TSL_LIST_STEPS_PER_TICK;
		if (tsl_deadline_hard_passed(dl) || (dl && dl->stop && atomic_load(dl->stop))) {
			rc = TESSEL_ETIMEOUT;
			break;
		}
		if (h.failed)
			continue;
		int64_t m = makespan_of(&h);
		if (m < best_makespan) {
			best_makespan = m;
			*found = 1;
			for (size_t i = 0; i < count; i++)
				best[i] = s->entries[i].start;
		}
	}
	if (*found && rc != TESSEL_ENOMEM)
		for (size_t i = 0; i < count; i++)
			s->entries[i].start = best[i];
	if (rc == TESSEL_ETIMEOUT && *found)
		rc = TSL_OK;
	tsl_free(best);
	tsl_free(f_required);
	hshape_release(&h);
	return rc;
}
