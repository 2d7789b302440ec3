/* Heuristic repetends without a solver: modulo list scheduling.
 *
 * For P = resource bound, bound + 1, ...: place the blocks in a topological
 * order, each at the earliest start after its dependencies whose slots
 * (start + i) mod P, i < span, are free on all its devices (a modulo
 * reservation table per device). Placing early keeps few micro-batches in
 * flight, which keeps memory low; the steady-state memory of the result is
 * then checked against the limits. Several placement orders are tried and
 * the shallowest repetend of the smallest period wins. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "search.h"
#include "util.h"

typedef struct heur {
	const tessel_graph *g;
	const tsl_bounds *bnd;
	int n;
	int64_t P;
	unsigned char *busy; /* ndevices x P */
	int *order;
	int64_t *T;
	/* iterative modulo scheduling */
	int *owner;          /* ndevices x P: block in the slot, -1 free */
	int *succ, *succ_start; /* successor lists */
	int64_t *last;       /* per block: last start tried, -1 none */
	char *placed;
	int64_t *pin;        /* per block: required start mod P, -1 free */
} heur;

/* Whether block b fits at start t (mod P) on all its devices. */
static int fits(const heur *h, int b, int64_t t)
{
	const tsl_block *B = &h->g->blocks[b];
	for (int k = 0; k < B->ndevices; k++) {
		const unsigned char *row = h->busy + (size_t)B->devices[k] * h->P;
		for (int i = 0; i < B->span; i++)
			if (row[(t + i) % h->P])
				return 0;
	}
	return 1;
}

static void occupy(heur *h, int b, int64_t t)
{
	const tsl_block *B = &h->g->blocks[b];
	for (int k = 0; k < B->ndevices; k++) {
		unsigned char *row = h->busy + (size_t)B->devices[k] * h->P;
		for (int i = 0; i < B->span; i++)
			row[(t + i) % h->P] = 1;
	}
}

/* Steady-state memory check (the formula of repetend_z3.c). */
int64_t tsl_repetend_peak(const tessel_graph *g, const int64_t *T,
			  int64_t P, int d)
{
	int64_t peak = 0;
	for (int c = 0; c < g->nblocks; c++) {
		const tsl_block *C = &g->blocks[c];
		if (C->memory <= 0 || !tsl_block_on_device(C, d))
			continue;
		int64_t rc = T[c] % P, mem = 0;
		for (int b = 0; b < g->nblocks; b++) {
			const tsl_block *B = &g->blocks[b];
			if (B->memory == 0 || !tsl_block_on_device(B, d))
				continue;
			int64_t q = T[b] / P, r = T[b] % P;
			mem += B->memory * ((r <= rc ? 1 : 0) - q);
		}
		if (mem > peak)
			peak = mem;
	}
	return peak;
}

static int memory_fits(const heur *h)
{
	const tessel_graph *g = h->g;
	for (int d = 0; d < g->ndevices; d++) {
		int64_t limit = g->memory_limit[d];
		if (limit != TESSEL_UNLIMITED &&
		    tsl_repetend_peak(g, h->T, h->P, d) > limit)
			return 0;
	}
	return 1;
}

/* Try period P with the current order; 1 placed and fits memory, 0 not. */
static int place_all(heur *h)
{
	const tessel_graph *g = h->g;
	memset(h->busy, 0, (size_t)g->ndevices * (size_t)h->P);
	for (int k = 0; k < h->n; k++) {
		int b = h->order[k];
		const tsl_block *B = &g->blocks[b];
		if (B->span > h->P)
			return 0;
		int64_t e = tsl_ready_time(g, b, h->T, NULL);
		int64_t t = e;
		while (t < e + h->P && !fits(h, b, t))
			t++;
		if (t == e + h->P)
			return 0;
		occupy(h, b, t);
		h->T[b] = t;
	}
	return 1;
}

static int64_t depth_of(const heur *h)
{
	int64_t lo = INT64_MAX, hi = 0;
	for (int b = 0; b < h->n; b++) {
		if (h->T[b] < lo)
			lo = h->T[b];
		if (h->T[b] + h->g->blocks[b].span > hi)
			hi = h->T[b] + h->g->blocks[b].span;
	}
	return hi - lo;
}

/* Sort keys for the placement orders: topological order is kept for ties
 * by a stable merge of (key, topo position). */
typedef struct keyed {
	int64_t key;
	int pos;
	int b;
} keyed;

static int cmp_keyed(const void *x, const void *y)
{
	const keyed *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Orders: 0 topological; 1 by earliest start (head); 2 (the default case)
 * by head, longest tail first among equals; 3 by decreasing height (for
 * iterative modulo scheduling). Sorting by head keeps dependencies first
 * since head grows strictly along every dependency. */
static void make_order(heur *h, int variant, keyed *tmp)
{
	for (int k = 0; k < h->n; k++) {
		int b = h->bnd->topo[k];
		tmp[k].b = b;
		tmp[k].pos = k;
		switch (variant) {
		case 0: tmp[k].key = 0; break;
		case 3: /* decreasing height */
			tmp[k].key = -(h->bnd->tail[b] + h->g->blocks[b].span);
			break;
		case 1: tmp[k].key = h->bnd->head[b]; break;
		default:
			tmp[k].key = h->bnd->head[b] * (h->bnd->critical_path + 1) -
				     h->bnd->tail[b];
			break;
		}
	}
	qsort(tmp, (size_t)h->n, sizeof *tmp, cmp_keyed);
	for (int k = 0; k < h->n; k++)
		h->order[k] = tmp[k].b;
}

#define NVARIANTS 3

int tsl_order_by_head(int *order, const tessel_graph *g, const tsl_bounds *bnd)
{
	heur h = {.g = g, .bnd = bnd, .n = g->nblocks, .order = order};
	keyed *tmp = tsl_calloc((size_t)h.n, sizeof *tmp);
	if (!tmp)
		return tsl_error_nomem();
	make_order(&h, 1, tmp);
	tsl_free(tmp);
	return TSL_OK;
}

/* Iterative modulo scheduling (after Rau): blocks in order of decreasing
 * height are placed at the first free start within one period after their
 * placed dependencies; when there is none, the block takes a start anyway
 * and evicts what conflicts with it, and placed successors it now runs too
 * late for. A work bound ends the attempt. */
static void ims_unplace(heur *h, int b)
{
	const tsl_block *B = &h->g->blocks[b];
	for (int k = 0; k < B->ndevices; k++) {
		int *row = h->owner + (size_t)B->devices[k] * h->P;
		for (int i = 0; i < B->span; i++)
			if (row[(h->T[b] + i) % h->P] == b)
				row[(h->T[b] + i) % h->P] = -1;
	}
	h->placed[b] = 0;
}

static int ims_conflicts(const heur *h, int b, int64_t t)
{
	const tsl_block *B = &h->g->blocks[b];
	for (int k = 0; k < B->ndevices; k++) {
		const int *row = h->owner + (size_t)B->devices[k] * h->P;
		for (int i = 0; i < B->span; i++)
			if (row[(t + i) % h->P] >= 0)
				return 1;
	}
	return 0;
}

static void ims_place(heur *h, int b, int64_t t)
{
	const tsl_block *B = &h->g->blocks[b];
	for (int k = 0; k < B->ndevices; k++) {
		int *row = h->owner + (size_t)B->devices[k] * h->P;
		for (int i = 0; i < B->span; i++) {
			int o = row[(t + i) % h->P];
			if (o >= 0)
				ims_unplace(h, o);
			row[(t + i) % h->P] = b;
		}
	}
	h->T[b] = t;
	h->last[b] = t;
	h->placed[b] = 1;
	/* successors placed too early for b */
	for (int k = h->succ_start[b]; k < h->succ_start[b + 1]; k++) {
		int v = h->succ[k];
		if (h->placed[v] && h->T[v] < t + B->span)
			ims_unplace(h, v);
	}
}

/* Pin the blocks on every device to consecutive residues, in priority
 * order (packed), or leave every block free. 0 if they do not fit. */
static int pin_full_width(heur *h, int packed)
{
	int64_t at = 0;
	for (int k = 0; k < h->n; k++) {
		int b = h->order[k];
		const tsl_block *B = &h->g->blocks[b];
		h->pin[b] = -1;
		if (!packed || B->ndevices != h->g->ndevices || h->g->ndevices == 1)
			continue;
		if (at + B->span > h->P)
			return 0;
		h->pin[b] = at;
		at += B->span;
	}
	return 1;
}

static int ims(heur *h)
{
	const tessel_graph *g = h->g;
	for (size_t i = 0; i < (size_t)g->ndevices * (size_t)h->P; i++)
		h->owner[i] = -1;
	for (int b = 0; b < h->n; b++) {
		h->placed[b] = 0;
		h->last[b] = -1;
	}
	int64_t budget = (int64_t)h->n * 40;
	for (;;) {
		/* highest-priority block not placed (order is by priority) */
		int b = -1;
		for (int k = 0; k < h->n && b < 0; k++)
			if (!h->placed[h->order[k]])
				b = h->order[k];
		if (b < 0)
			break;
		if (budget-- <= 0)
			return 0;
		const tsl_block *B = &g->blocks[b];
		if (B->span > h->P)
			return 0;
		int64_t e = tsl_ready_time(g, b, h->T, h->placed);
		int64_t t = e;
		if (h->pin[b] >= 0) {
			/* the one start in the window with the pinned residue */
			t = e + ((h->pin[b] - e % h->P) + h->P) % h->P;
		} else {
			while (t < e + h->P && ims_conflicts(h, b, t))
				t++;
			if (t == e + h->P)
				t = h->last[b] < 0 || e > h->last[b] ? e
								   : h->last[b] + 1;
		}
		ims_place(h, b, t);
	}
	return 1;
}

/* Copy h's placement, shifted to start at 0, into r. */
static void store(tsl_repetend *r, const heur *h, int64_t depth)
{
	int64_t minT = INT64_MAX;
	for (int b = 0; b < h->n; b++)
		if (h->T[b] < minT)
			minT = h->T[b];
	for (int b = 0; b < h->n; b++)
		r->T[b] = h->T[b] - minT;
	r->depth = depth;
	r->period = h->P;
	r->optimal = h->P == h->bnd->resource_bound;
}

/* Work bound of the memory-aware search (units of repetend_dfs.c). */
#define TSL_DFS_BUDGET ((int64_t)16000000)

static int has_limit(const tessel_graph *g)
{
	for (int d = 0; d < g->ndevices; d++)
		if (g->memory_limit[d] != TESSEL_UNLIMITED)
			return 1;
	return 0;
}

int tsl_repetend_heuristic(tsl_repetend *rep, tsl_repetend *relaxed,
			   const tessel_graph *g, const tsl_bounds *bnd)
{
	heur h = {0};
	h.g = g;
	h.bnd = bnd;
	h.n = g->nblocks;
	int64_t lo = bnd->resource_bound, hi = bnd->total_span;
	h.order = tsl_calloc((size_t)h.n, sizeof *h.order);
	h.T = tsl_calloc((size_t)h.n, sizeof *h.T);
	h.last = tsl_calloc((size_t)h.n, sizeof *h.last);
	h.placed = tsl_calloc((size_t)h.n, 1);
	h.pin = tsl_calloc((size_t)h.n, sizeof *h.pin);
	h.succ_start = tsl_calloc((size_t)h.n + 1, sizeof *h.succ_start);
	int ndeps = 0;
	for (int b = 0; b < h.n; b++)
		ndeps += g->blocks[b].ndeps;
	h.succ = tsl_calloc((size_t)ndeps, sizeof *h.succ);
	keyed *tmp = tsl_calloc((size_t)h.n, sizeof *tmp);
	int rc = TSL_OK;
	if (!h.order || !h.T || !tmp || !h.last || !h.placed || !h.succ_start ||
	    !h.succ || !h.pin) {
		rc = tsl_error_nomem();
		goto out;
	}
	for (int b = 0; b < h.n; b++)
		for (int j = 0; j < g->blocks[b].ndeps; j++)
			h.succ_start[g->blocks[b].deps[j] + 1]++;
	for (int b = 0; b < h.n; b++)
		h.succ_start[b + 1] += h.succ_start[b];
	/* T serves as fill counters here; it is zero from calloc */
	for (int b = 0; b < h.n; b++)
		for (int j = 0; j < g->blocks[b].ndeps; j++) {
			int a = g->blocks[b].deps[j];
			h.succ[h.succ_start[a] + h.T[a]++] = b;
		}
	int found = 0, have_relaxed = 0;
	for (int64_t P = lo; P <= hi && !found; P++) {
		h.P = P;
		/* on failure the old arrays stay in h, freed at out */
		unsigned char *busy = tsl_reallocarray(h.busy, (size_t)g->ndevices, (size_t)P);
		if (busy)
			h.busy = busy;
		int *owner = busy ? tsl_reallocarray(h.owner,
						     (size_t)g->ndevices * (size_t)P,
						     sizeof *h.owner)
				  : NULL;
		if (owner)
			h.owner = owner;
		if (!busy || !owner) {
			rc = tsl_error_nomem();
			goto out;
		}
		for (int v = 0; v <= NVARIANTS + 1; v++) {
			/* the last variant packs the blocks that occupy every
			 * device side by side on the circle */
			int packed = v == NVARIANTS + 1;
			make_order(&h, v < NVARIANTS ? v : NVARIANTS, tmp);
			if (!pin_full_width(&h, packed))
				continue;
			if (v < NVARIANTS ? !place_all(&h) : !ims(&h))
				continue;
			int64_t depth = depth_of(&h);
			if (relaxed && (!have_relaxed ||
					(relaxed->period == P && depth < relaxed->depth))) {
				store(relaxed, &h, depth);
				have_relaxed = 1;
			}
			if (!memory_fits(&h))
				continue;
			if (!found || depth < rep->depth) {
				store(rep, &h, depth);
				found = 1;
			}
		}
		/* at the resource bound, when list scheduling broke the
		 * memory limits: the memory-aware search */
		if (!found && P == lo && has_limit(g)) {
			make_order(&h, 1, tmp);
			rc = tsl_repetend_dfs(rep, g, bnd, h.order, P, TSL_DFS_BUDGET,
					      &found);
			if (rc)
				goto out;
		}
		/* large periods: step faster, the fine scan is for the solver */
		if (!found && P - lo > 64)
			P += (P - lo) / 8;
	}
	if (!found)
		rc = tsl_error(TESSEL_EINFEASIBLE,
			       "the heuristic found no repetend within the memory limits "
			       "(periods %lld .. %lld)", (long long)lo, (long long)hi);
out:
	tsl_free(h.busy);
	tsl_free(h.owner);
	tsl_free(h.last);
	tsl_free(h.placed);
	tsl_free(h.pin);
	tsl_free(h.succ);
	tsl_free(h.succ_start);
	tsl_free(h.order);
	tsl_free(h.T);
	tsl_free(tmp);
	return rc;
}
