/* Heuristic repetends without a solver: modulo list scheduling.
 *
 * For a period P: place the blocks in a priority order, each at the
 * earliest start after its dependencies at which it fits on all its
 * devices on the circle of length P (busy intervals per device, circle.c).
 * Placing early keeps few micro-batches in flight, which keeps memory low;
 * the steady-state memory of the result is then checked against the
 * limits. Several orders are tried, one of them by iterative modulo
 * scheduling (placement with eviction), and the shallowest repetend of the
 * smallest period wins.
 *
 * Periods: the resource bound first, then a few steps of the unit of the
 * graph's times (the gcd of its spans and latencies), then steps growing
 * geometrically until a period works, then bisection between the last
 * period that failed and the first that worked. Every step of the work
 * handles blocks and intervals, never single time steps, so the cost does
 * not depend on the magnitude of the spans. */
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "circle.h"
#include "error.h"
#include "options.h"
#include "repetend.h"
#include "repetend_dfs.h"
#include "repetend_heuristic.h"
#include "util.h"

typedef struct heur {
	const tessel_graph *g;
	const tsl_bounds *bnd;
	const tsl_deadline *dl;
	const tessel_options *src; /* for cancellation; may be NULL */
	const tsl_stage *st;       /* all four: for the memory-aware search */
	int n;
	int64_t P;
	tsl_circles busy;
	int *order;
	int64_t *T;
	/* iterative modulo scheduling */
	tsl_succ succ;          /* successor lists */
	int64_t *last;       /* per block: last start tried, -1 none */
	char *placed;
	int64_t *pin;        /* per block: required start mod P, -1 free */
	int *evict;          /* work space: owners to evict (n entries) */
	int *heap;           /* unplaced blocks by position in order (min-heap) */
	int nheap;
	int *pos;            /* per block: its position in order */
	char *queued;        /* per block: in the heap */
	int stopped;         /* the deadline passed or a cancel came */
	int list_only;       /* try_period: list scheduling only (cheap) */
	int found_any;       /* a repetend within the limits is known */
	int64_t dfs_budget;  /* work bound of the memory-aware search */
	int nomem;           /* an allocation failed */
	int multi;           /* some block is on several devices */
	int64_t ims_left;    /* work left for iterative modulo scheduling */
	int64_t steps_charged; /* of busy.steps */
	int optional;        /* the deadline's end ends the search for a
			      * first repetend too */
} heur;

/* Charge the arcs the circle queries walked since the last charge. */
static void charge_steps(heur *h)
{
	int64_t ticks = (h->busy.steps - h->steps_charged) / TSL_ARC_STEPS_PER_TICK;
	tsl_charge(h->dl, ticks);
	h->steps_charged += ticks * TSL_ARC_STEPS_PER_TICK;
}

/* Past the deadline: its end once a repetend is known, else its hard end
 * (when it has one: finding any repetend may take longer than improving
 * it) or its must_end (when it has one), or a cancel. */
static int out_of_time(heur *h)
{
	if (h->stopped)
		return 1;
	int first = !h->found_any && !h->optional;
	int past = !first || !h->dl || !h->dl->hard_us
			   ? tsl_deadline_left_ms(h->dl) <= 0
			   : tsl_deadline_hard_passed(h->dl);
	/* the work bound ends only the improvement of a repetend found (or
	 * the search for an optional one) */
	if (past && first && h->dl && !h->dl->hard_us &&
	    !tsl_deadline_time_passed(h->dl))
		past = 0;
	/* a first repetend too ends at the deadline's must_end (a first
	 * schedule stands in for it) */
	if (first && h->dl && h->dl->must_end && tsl_deadline_must_stop(h->dl))
		past = 1;
	if (past || tsl_options_cancelled(h->src))
		h->stopped = 1;
	return h->stopped;
}

/* 1 when the steady state fits every limit, 0 if not, < 0 an error. */
static int memory_fits(heur *h)
{
	const tessel_graph *g = h->g;
	for (int d = 0; d < g->ndevices; d++) {
		int64_t limit = g->memory_limit[d], peak;
		if (limit == TESSEL_UNLIMITED)
			continue;
		int rc = tsl_repetend_peak(&peak, g, h->bnd, h->T, h->P, d);
		if (rc)
			return rc;
		if (peak > limit)
			return 0;
	}
	return 1;
}

/* List scheduling at period P in the current order: 1 placed, 0 not.
 * multi_first: the blocks on several devices first take their residues
 * (each at the first fit after its head, in the order), then every block
 * in the order its start: those at the first start after their
 * dependencies with their residue, the others at the first fit. A block
 * that needs a common free window on several devices then finds one
 * before the single-device blocks fragment the circles. */
static int place_all(heur *h, int multi_first)
{
	const tessel_graph *g = h->g;
	tsl_circles_reset(&h->busy, h->P);
	int64_t placed = 0; /* charged at the end */
	int ok = 1;
	for (int k = 0; k < h->n && ok; k++) {
		int b = h->order[k];
		const tsl_block *B = &g->blocks[b];
		h->pin[b] = -1;
		if (!multi_first || B->ndevices < 2)
			continue;
		if ((k & 63) == 63 && out_of_time(h)) {
			ok = 0;
			break;
		}
		placed++;
		int64_t t = tsl_circles_fit(&h->busy, B, h->bnd->head[b]);
		if (t < 0) {
			ok = 0;
			break;
		}
		if (tsl_circles_occupy(&h->busy, B, b, t)) {
			h->nomem = 1;
			ok = 0;
			break;
		}
		h->pin[b] = t % h->P;
	}
	for (int k = 0; k < h->n && ok; k++) {
		int b = h->order[k];
		const tsl_block *B = &g->blocks[b];
		if ((k & 63) == 63 && out_of_time(h)) {
			ok = 0;
			break;
		}
		placed++;
		int64_t e = tsl_ready_time(g, b, h->T, NULL);
		if (h->pin[b] >= 0) {
			h->T[b] = e + ((h->pin[b] - e % h->P) + h->P) % h->P;
			continue;
		}
		int64_t t = tsl_circles_fit(&h->busy, B, e);
		if (t < 0) {
			ok = 0;
			break;
		}
		if (tsl_circles_occupy(&h->busy, B, b, t)) {
			h->nomem = 1;
			ok = 0;
			break;
		}
		h->T[b] = t;
	}
	tsl_charge(h->dl, placed / TSL_PLACEMENTS_PER_TICK);
	charge_steps(h);
	return ok;
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

/* Sort keys of the placement orders; topological order breaks ties. */
typedef struct keyed {
	int64_t key, key2;
	int pos;
	int b;
} keyed;

static int cmp_keyed(const void *x, const void *y)
{
	const keyed *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->key2 != b->key2)
		return a->key2 < b->key2 ? -1 : 1;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Orders: 0 topological; 1 by earliest start (head); 2 (the default case)
 * by head, longest tail first among equals; 3 by decreasing height (for
 * iterative modulo scheduling). Sorting by head keeps dependencies first
 * since head grows strictly along every dependency. */
static void make_order(heur *h, int variant, keyed *tmp)
{
	const tsl_bounds *bnd = h->bnd;
	for (int k = 0; k < h->n; k++) {
		int b = bnd->topo[k];
		tmp[k].b = b;
		tmp[k].pos = k;
		tmp[k].key2 = 0;
		switch (variant) {
		case 0: tmp[k].key = 0; break;
		case 3: tmp[k].key = -(bnd->tail[b] + h->g->blocks[b].span); break;
		case 1: tmp[k].key = bnd->head[b]; break;
		default:
			tmp[k].key = bnd->head[b];
			tmp[k].key2 = -bnd->tail[b];
			break;
		}
	}
	qsort(tmp, (size_t)h->n, sizeof *tmp, cmp_keyed);
	for (int k = 0; k < h->n; k++)
		h->order[k] = tmp[k].b;
}

#define NVARIANTS 3

/* Iterative modulo scheduling (after Rau): blocks in order of decreasing
 * height are placed at the first free start within one period after their
 * placed dependencies; when there is none, the block takes a start anyway
 * (its earliest, or the next event after the start it last tried) and
 * evicts what overlaps it, and placed successors it now runs too late
 * for. A work bound ends the attempt. */
static void heap_push(heur *h, int b)
{
	if (h->queued[b])
		return;
	h->queued[b] = 1;
	int i = h->nheap++;
	while (i > 0 && h->pos[h->heap[(i - 1) / 2]] > h->pos[b]) {
		h->heap[i] = h->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->heap[i] = b;
}

static int heap_pop(heur *h)
{
	int top = h->heap[0], last = h->heap[--h->nheap];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= h->nheap)
			break;
		if (c + 1 < h->nheap && h->pos[h->heap[c + 1]] < h->pos[h->heap[c]])
			c++;
		if (h->pos[h->heap[c]] >= h->pos[last])
			break;
		h->heap[i] = h->heap[c];
		i = c;
	}
	if (h->nheap > 0)
		h->heap[i] = last;
	h->queued[top] = 0;
	return top;
}

static void unplace(heur *h, int b)
{
	tsl_circles_vacate(&h->busy, &h->g->blocks[b], b, h->T[b]);
	h->placed[b] = 0;
	heap_push(h, b);
}

static void evict_overlaps(heur *h, const tsl_block *B, int64_t t)
{
	for (int k = 0; k < B->ndevices; k++) {
		int c = tsl_circle_overlaps(&h->busy, B->devices[k], t, B->span,
					    h->evict, h->n);
		if (c > h->n)
			c = h->n;
		for (int i = 0; i < c; i++)
			if (h->placed[h->evict[i]])
				unplace(h, h->evict[i]);
	}
}

static int ims_place(heur *h, int b, int64_t t)
{
	const tessel_graph *g = h->g;
	const tsl_block *B = &g->blocks[b];
	evict_overlaps(h, B, t);
	if (tsl_circles_occupy(&h->busy, B, b, t)) {
		h->nomem = 1;
		return -1;
	}
	h->T[b] = t;
	h->last[b] = t;
	h->placed[b] = 1;
	/* successors placed too early for b */
	for (int k = h->succ.start[b]; k < h->succ.start[b + 1]; k++) {
		int v = h->succ.block[k];
		if (!h->placed[v])
			continue;
		if (h->T[v] < t + tsl_dep_gap(g, &g->blocks[v], h->succ.dep[k]))
			unplace(h, v);
	}
	return 0;
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

/* Work bound of one attempt of iterative modulo scheduling (visits): on
 * large graphs it grows more slowly than 40 visits a block, so that a
 * probe stays cheap. */
static int64_t ims_attempt_work(int n)
{
	return n <= 10000 ? (int64_t)n * 40 : 400000 + (int64_t)n * 4;
}

/* Arcs walked on the circles worth a visit of iterative modulo
 * scheduling (their rates, TSL_ARC_STEPS_PER_TICK and
 * TSL_IMS_VISITS_PER_TICK). An attempt also ends once the arcs it walked
 * are worth many times its bound of visits, so that visits that walk many (a
 * block on hundreds of devices, each circle crowded, looked at for its
 * next event) do not make an attempt unbounded: a 2,000-block pipeline on
 * 1,024 devices, half of its blocks on hundreds of them, ran one attempt
 * for minutes. */
#define TSL_IMS_STEPS_PER_VISIT (TSL_ARC_STEPS_PER_TICK / TSL_IMS_VISITS_PER_TICK)
/* How many times its bound of visits an attempt's arcs may be worth: at
 * 1, nnshape on 64 devices (blocks on all of them) lost its repetend at
 * the bound (1,326 steps for 1,276) */
#define TSL_IMS_WALK_BOUNDS 16

/* The placement of iterative modulo scheduling within *budget visits
 * (what is left stays there) and arcs worth TSL_IMS_WALK_BOUNDS times as
 * many: 1 placed, 0 not
 * (work bound, deadline, or no room). */
static int ims_attempt(heur *h, int64_t *budget)
{
	const tessel_graph *g = h->g;
	int64_t steps0 = h->busy.steps, bound = *budget;
	h->nheap = 0;
	for (int k = 0; k < h->n; k++) {
		h->pos[h->order[k]] = k;
		h->queued[h->order[k]] = 0;
	}
	for (int k = 0; k < h->n; k++)
		heap_push(h, h->order[k]);
	while (h->nheap > 0) {
		/* the highest-priority block not placed */
		int b = heap_pop(h);
		if ((*budget)-- <= 0 || ((*budget & 255) == 0 && out_of_time(h)) ||
		    (h->busy.steps - steps0) / TSL_IMS_STEPS_PER_VISIT >
			    TSL_IMS_WALK_BOUNDS * bound)
			return 0;
		const tsl_block *B = &g->blocks[b];
		if (B->span > h->P)
			return 0;
		int64_t e = tsl_ready_time(g, b, h->T, h->placed);
		int64_t t;
		if (h->pin[b] >= 0) {
			/* the one start in the window with the pinned residue */
			t = e + ((h->pin[b] - e % h->P) + h->P) % h->P;
		} else {
			t = tsl_circles_fit(&h->busy, B, e);
			if (t < 0)
				t = h->last[b] < 0 || e > h->last[b]
					    ? e
					    : tsl_circles_next_event(&h->busy, B, h->last[b]);
		}
		if (ims_place(h, b, t))
			return 0;
	}
	return 1;
}

/* 1 placed, 0 not (work bound, deadline, or no room); the visits made are
 * charged. */
static int modulo_schedule_iteratively(heur *h)
{
	tsl_circles_reset(&h->busy, h->P);
	for (int b = 0; b < h->n; b++) {
		h->placed[b] = 0;
		h->last[b] = -1;
	}
	/* large graphs: the work bound grows more slowly than 40 visits a
	 * block, so that a probe stays cheap */
	int64_t budget = ims_attempt_work(h->n);
	if (budget > h->ims_left)
		return 0;
	h->ims_left -= budget;
	int64_t given = budget;
	int ok = ims_attempt(h, &budget);
	tsl_charge(h->dl, (given - (budget > 0 ? budget : 0)) / TSL_IMS_VISITS_PER_TICK);
	charge_steps(h);
	return ok;
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

/* Work bound of the memory-aware search (units of repetend_dfs.c): about
 * 781 work units (781,250 ticks). */
#define TSL_DFS_BUDGET ((int64_t)781250 * TSL_DFS_UNITS_PER_TICK)

static int has_limit(const tessel_graph *g)
{
	for (int d = 0; d < g->ndevices; d++)
		if (g->memory_limit[d] != TESSEL_UNLIMITED)
			return 1;
	return 0;
}

/* Every order at period h->P: the shallowest repetend within the memory
 * limits into rep (*found 1), the first one that ignores them into
 * relaxed (when not yet set). */
static int try_period(heur *h, tsl_repetend *rep, tsl_repetend *relaxed,
		      int *have_relaxed, keyed *tmp, int *found)
{
	*found = 0;
	for (int v = 0; v <= (h->list_only ? NVARIANTS : NVARIANTS + 2) &&
			!out_of_time(h); v++) {
		/* variant NVARIANTS: list scheduling of the multi-device
		 * blocks first, in the default order; then iterative modulo
		 * scheduling, and last the same packing the blocks that occupy
		 * every device side by side on the circle */
		int packed = v == NVARIANTS + 2;
		int multi = v == NVARIANTS;
		if (multi && !h->multi)
			continue;
		make_order(h, v < NVARIANTS ? v : multi ? 2 : NVARIANTS, tmp);
		int ok;
		if (v <= NVARIANTS) {
			ok = place_all(h, multi);
		} else {
			if (!pin_full_width(h, packed))
				continue;
			ok = modulo_schedule_iteratively(h);
		}
		if (h->nomem)
			return tsl_error_nomem();
		if (!ok)
			continue;
		int64_t depth = depth_of(h);
		if (relaxed && (!*have_relaxed ||
				(relaxed->period == h->P && depth < relaxed->depth))) {
			store(relaxed, h, depth);
			*have_relaxed = 1;
		}
		int fits = memory_fits(h);
		if (fits < 0)
			return fits;
		if (!fits)
			continue;
		if (!*found || depth < rep->depth) {
			store(rep, h, depth);
			*found = 1;
		}
	}
	/* at the resource bound, when list scheduling broke the memory
	 * limits: the memory-aware search */
	if (!*found && !h->list_only && h->P == h->bnd->resource_bound &&
	    has_limit(h->g) && !out_of_time(h)) {
		make_order(h, 1, tmp);
		int rc = tsl_repetend_dfs(rep, found, h->st, h->order, h->P,
					  h->dfs_budget);
		if (rc)
			return rc;
	}
	return TSL_OK;
}

/* The unit of the graph's times: gcd of its spans and latencies. */
static int64_t time_unit(const tessel_graph *g)
{
	int64_t u = 0;
	for (int b = 0; b < g->nblocks && u != 1; b++) {
		const tsl_block *B = &g->blocks[b];
		u = tsl_gcd64(u, B->span);
		for (int j = 0; j < B->ndeps; j++)
			u = tsl_gcd64(u, tsl_dep_latency(g, B, j));
	}
	return u > 0 ? u : 1;
}

/* Probes of the period search: this many steps of the resolution above
 * the bound, then geometric steps, then at most this many bisection
 * steps. */
#define TSL_UNIT_PROBES 16
#define TSL_BISECT_PROBES 24
/* Graphs of more blocks than this search periods at a resolution of
 * 1/TSL_COARSE_STEPS of the bound (at least the unit of times): each probe
 * places every block several times. */
#define TSL_FINE_BLOCKS 8192
#define TSL_COARSE_STEPS 1024
/* Work of iterative modulo scheduling in one period search on a graph of
 * more than TSL_FINE_BLOCKS blocks (visits, about two seconds): a few
 * attempts, from the bisection's middle. Smaller graphs have no such
 * bound. */
#define TSL_IMS_WORK ((int64_t)2000000)

/* One probe at period P into trial; when it finds a repetend of a smaller
 * period than rep's (or the first), rep takes it. *ok: found at P. */
static int probe(heur *h, int64_t P, tsl_repetend *rep, tsl_repetend *trial,
		 tsl_repetend *relaxed, int *have_relaxed, keyed *tmp,
		 int *found, int *ok)
{
	h->P = P;
	int rc = try_period(h, trial, relaxed, have_relaxed, tmp, ok);
	if (rc || !*ok || (*found && trial->period >= rep->period))
		return rc;
	memcpy(rep->T, trial->T, (size_t)h->n * sizeof *rep->T);
	rep->period = trial->period;
	rep->depth = trial->depth;
	rep->optimal = trial->optimal;
	*found = 1;
	h->found_any = 1;
	return TSL_OK;
}

/* Every order but iterative modulo scheduling ran in the list phase:
 * once its work is spent, a probe of every order only repeats that. */
static int ims_spent(const heur *h)
{
	return !h->list_only && h->ims_left < ims_attempt_work(h->n);
}

typedef struct period_search {
	tsl_repetend *rep, *relaxed, trial;
	keyed *tmp;
	int *found, have_relaxed;
	int64_t lo, hi;
} period_search;

/* Periods from lo up: `units` steps of `step`, then doubling steps, to
 * the first that works (below the best known); then bisection between
 * the last failure and the best, until they are `step` apart. */
static int search_periods(heur *h, period_search *ps, int64_t step, int units)
{
	int ok = 0, rc = TSL_OK;
	int64_t failed = ps->lo, P = ps->lo + step, s = step;
	for (int k = 1; !rc && !ok && P < (*ps->found ? ps->rep->period : ps->hi + 1) &&
			!out_of_time(h) && !ims_spent(h); k++) {
		rc = probe(h, P, ps->rep, &ps->trial, ps->relaxed, &ps->have_relaxed,
			   ps->tmp, ps->found, &ok);
		if (rc || ok)
			break;
		failed = P;
		if (k >= units)
			s *= 2;
		P += s;
	}
	for (int k = 0; !rc && *ps->found && ps->rep->period - failed > step &&
			k < TSL_BISECT_PROBES && !out_of_time(h) && !ims_spent(h); k++) {
		int64_t mid = failed + (ps->rep->period - failed) / 2;
		rc = probe(h, mid, ps->rep, &ps->trial, ps->relaxed, &ps->have_relaxed,
			   ps->tmp, ps->found, &ok);
		if (!rc && !ok)
			failed = mid;
	}
	return rc;
}

/* The bound first by list scheduling (cheap); when it fails, the periods
 * above it the same way, so that a repetend is known early; then the
 * bound with every order and the memory-aware search, and the periods
 * between the bound and the best again with every order. */
static int heuristic_search(heur *h, tsl_repetend *rep, tsl_repetend *relaxed,
			    keyed *tmp, int *found)
{
	const tsl_bounds *bnd = h->bnd;
	period_search ps = {rep, relaxed, {0}, tmp, found, 0, bnd->resource_bound,
			    bnd->total_span};
	int64_t unit = time_unit(h->g), step = unit;
	int ok = 0, units = TSL_UNIT_PROBES;
	for (int b = 0; b < h->n; b++)
		if (h->g->blocks[b].span > ps.lo)
			ps.lo = h->g->blocks[b].span;
	if (ps.hi < ps.lo)
		ps.hi = ps.lo;
	if (h->n > TSL_FINE_BLOCKS && ps.lo / TSL_COARSE_STEPS > unit) {
		step = ps.lo / TSL_COARSE_STEPS / unit * unit;
		units = 1;
	}
	*found = 0;
	h->ims_left = h->n <= TSL_FINE_BLOCKS ? INT64_MAX : TSL_IMS_WORK;
	ps.trial.T = tsl_reallocarray(NULL, (size_t)h->n, sizeof *ps.trial.T);
	if (!ps.trial.T)
		return tsl_error_nomem();
	h->list_only = 1;
	int rc = probe(h, ps.lo, rep, &ps.trial, relaxed, &ps.have_relaxed, tmp,
		       found, &ok);
	if (!rc && !*found && !out_of_time(h))
		rc = search_periods(h, &ps, step, units);
	if (!rc && !*found && ps.hi > ps.lo && !out_of_time(h))
		rc = probe(h, ps.hi, rep, &ps.trial, relaxed, &ps.have_relaxed, tmp,
			   found, &ok);
	h->list_only = 0;
	if (!rc && (!*found || rep->period > ps.lo) && !out_of_time(h))
		rc = probe(h, ps.lo, rep, &ps.trial, relaxed, &ps.have_relaxed, tmp,
			   found, &ok);
	/* every order from the bound to the list orders' best; large
	 * graphs: doubling steps at once, in the work left */
	if (!rc && !ok && !out_of_time(h))
		rc = search_periods(h, &ps, step,
				    h->n <= TSL_FINE_BLOCKS ? units : 0);
	tsl_repetend_release(&ps.trial);
	return rc;
}

int tsl_repetend_heuristic(tsl_repetend *rep, tsl_repetend *relaxed,
			   const tsl_stage *st, int64_t dfs_budget,
			   int optional)
{
	const tessel_graph *g = st->g;
	const tsl_bounds *bnd = st->bnd;
	const tsl_deadline *dl = st->dl;
	const tessel_options *src = tsl_stage_src(st);
	heur h = {0};
	h.g = g;
	h.bnd = bnd;
	h.dl = dl;
	h.src = src;
	h.st = st;
	h.dfs_budget = dfs_budget > 0 ? dfs_budget : TSL_DFS_BUDGET;
	h.optional = optional;
	h.n = g->nblocks;
	h.order = tsl_calloc((size_t)h.n, sizeof *h.order);
	h.T = tsl_calloc((size_t)h.n, sizeof *h.T);
	h.last = tsl_calloc((size_t)h.n, sizeof *h.last);
	h.placed = tsl_calloc((size_t)h.n, 1);
	h.pin = tsl_calloc((size_t)h.n, sizeof *h.pin);
	h.evict = tsl_calloc((size_t)h.n, sizeof *h.evict);
	h.heap = tsl_calloc((size_t)h.n, sizeof *h.heap);
	h.pos = tsl_calloc((size_t)h.n, sizeof *h.pos);
	h.queued = tsl_calloc((size_t)h.n, 1);
	keyed *tmp = tsl_calloc((size_t)h.n, sizeof *tmp);
	int rc = tsl_circles_init(&h.busy, g->ndevices);
	if (!rc)
		rc = tsl_succ_build(&h.succ, g);
	if (!rc && (!h.order || !h.T || !tmp || !h.last || !h.placed ||
		    !h.pin || !h.evict || !h.heap || !h.pos || !h.queued))
		rc = tsl_error_nomem();
	if (rc)
		goto out;
	for (int b = 0; b < h.n; b++)
		h.multi |= g->blocks[b].ndevices > 1;
	int found = 0;
	rc = heuristic_search(&h, rep, relaxed, tmp, &found);
	if (!rc && !found && h.stopped)
		rc = tsl_options_cancelled(src)
			     ? tsl_error(TESSEL_ECANCELLED,
					 "the search was cancelled during the heuristic")
			     : tsl_error(TESSEL_ETIMEOUT,
					 "time limit reached during the heuristic, before any repetend");
	else if (!rc && !found)
		rc = tsl_error(TESSEL_EINFEASIBLE,
			       "the heuristic found no repetend within the memory limits "
			       "(periods %lld .. %lld)",
			       (long long)bnd->resource_bound, (long long)bnd->total_span);
out:
	tsl_circles_release(&h.busy);
	tsl_free(h.last);
	tsl_free(h.placed);
	tsl_free(h.pin);
	tsl_free(h.evict);
	tsl_free(h.heap);
	tsl_free(h.pos);
	tsl_free(h.queued);
	tsl_succ_release(&h.succ);
	tsl_free(h.order);
	tsl_free(h.T);
	tsl_free(tmp);
	return rc;
}
