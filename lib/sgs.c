/* Serial schedule generation with insertion: instances are taken in a
 * priority order (dependencies first) and each is placed at the earliest
 * step after its dependencies (each one's finish plus its latency,
 * tsl_dep_latency) where all its devices are free for its whole
 * span, gaps left by earlier placements included, and where adding its
 * memory delta keeps every later step of its devices within the limits.
 * Unlike the order-keeping compaction it may reorder a device's work, which
 * packs warm-up and cool-down tighter. */
#include "compact.h"

#include <stdint.h>
#include <stdlib.h>

#include "error.h"
#include "util.h"

/* Each device keeps its free time as a set of gaps and its memory deltas
 * as a sequence of events, both in treaps (balanced by random priorities
 * from a fixed seed, so results never depend on them), so that placing an
 * instance costs O(log n) whatever the number of instances already placed
 * and whatever the span values: no walk over the whole history. */

/* Free time [a, b) of a device; b == INT64_MAX for the gap after its last
 * work. Gaps are disjoint and never touch (work lies between them). */
typedef struct gap {
	int64_t a, b;
	int64_t maxlen; /* longest b - a in the subtree */
	uint32_t prio;
	int l, r;       /* children, -1: none */
} gap;

/* A memory delta at a start step; ordered by time, then by insertion (an
 * event added at the time of others comes after them). */
typedef struct mev {
	int64_t time;
	int64_t delta;
	int64_t sum;    /* of the deltas in the subtree */
	int64_t maxpre; /* max over the subtree's events e of the summed
			 * deltas of the subtree's events before e */
	uint32_t prio;
	int l, r;
} mev;

typedef struct dev {
	gap *gaps;      /* node pool; unreachable nodes are not reused */
	int ngaps, capgaps, groot;
	mev *mem;
	int nmem, capmem, mroot;
	uint32_t rng;
} dev;

/* Rounds of the search for a window free on all of a block's devices
 * before the block goes after the last work of every one of them. */
#define TSL_SGS_WINDOW_ROUNDS 64
/* Instances placed between two looks at the deadline. */
#define TSL_SGS_DEADLINE_EVERY 1024

static uint32_t next_prio(dev *d)
{
	d->rng ^= d->rng << 13;
	d->rng ^= d->rng >> 17;
	d->rng ^= d->rng << 5;
	return d->rng;
}

/* A new node in a pool of `size`-byte nodes; -1 if it cannot grow. */
static int new_node(void **pool, int *n, int *cap, size_t size)
{
	if (*n == *cap) {
		if (*cap > INT32_MAX / 2)
			return -1;
		int c = *cap ? *cap * 2 : 16;
		void *p = tsl_reallocarray(*pool, (size_t)c, size);
		if (!p)
			return -1;
		*pool = p;
		*cap = c;
	}
	return (*n)++;
}

/* ---- gaps ---- */

static void gap_pull(gap *G, int n)
{
	int64_t m = G[n].b - G[n].a;
	if (G[n].l >= 0 && G[G[n].l].maxlen > m)
		m = G[G[n].l].maxlen;
	if (G[n].r >= 0 && G[G[n].r].maxlen > m)
		m = G[G[n].r].maxlen;
	G[n].maxlen = m;
}

static int gap_merge(gap *G, int x, int y)
{
	if (x < 0)
		return y;
	if (y < 0)
		return x;
	if (G[x].prio > G[y].prio) {
		G[x].r = gap_merge(G, G[x].r, y);
		gap_pull(G, x);
		return x;
	}
	G[y].l = gap_merge(G, x, G[y].l);
	gap_pull(G, y);
	return y;
}

/* Split n into the gaps with a < key (*l) and the others (*r). */
static void gap_split(gap *G, int n, int64_t key, int *l, int *r)
{
	if (n < 0) {
		*l = *r = -1;
		return;
	}
	if (G[n].a < key) {
		gap_split(G, G[n].r, key, &G[n].r, r);
		*l = n;
	} else {
		gap_split(G, G[n].l, key, l, &G[n].l);
		*r = n;
	}
	gap_pull(G, n);
}

/* Set the gap that starts at `key` to [a, b) (its place in the order
 * stays), or remove it when a == b; returns the new root. */
static int gap_set(gap *G, int n, int64_t key, int64_t a, int64_t b)
{
	if (n < 0)
		return n;
	if (G[n].a == key) {
		if (a == b)
			return gap_merge(G, G[n].l, G[n].r);
		G[n].a = a;
		G[n].b = b;
	} else if (key < G[n].a) {
		G[n].l = gap_set(G, G[n].l, key, a, b);
	} else {
		G[n].r = gap_set(G, G[n].r, key, a, b);
	}
	gap_pull(G, n);
	return n;
}

/* The gap with the largest a <= t, -1 if none. */
static int gap_floor(const gap *G, int n, int64_t t)
{
	int best = -1;
	while (n >= 0) {
		if (G[n].a <= t) {
			best = n;
			n = G[n].r;
		} else {
			n = G[n].l;
		}
	}
	return best;
}

/* The first gap with a > t and b - a >= span, -1 if none. O(depth): once
 * in a subtree whose gaps all start after t, maxlen leads straight to it. */
static int gap_first_fit(const gap *G, int n, int64_t t, int64_t span)
{
	if (n < 0 || G[n].maxlen < span)
		return -1;
	if (G[n].a <= t)
		return gap_first_fit(G, G[n].r, t, span);
	int f = gap_first_fit(G, G[n].l, t, span);
	if (f >= 0)
		return f;
	if (G[n].b - G[n].a >= span)
		return n;
	return gap_first_fit(G, G[n].r, t, span);
}

static int dev_init(dev *d, uint32_t seed)
{
	d->groot = d->mroot = -1;
	d->rng = seed ? seed : 1;
	int n = new_node((void **)&d->gaps, &d->ngaps, &d->capgaps, sizeof *d->gaps);
	if (n < 0)
		return -1;
	d->gaps[n] = (gap){0, INT64_MAX, INT64_MAX, next_prio(d), -1, -1};
	d->groot = n;
	return 0;
}

static void dev_release(dev *d)
{
	tsl_free(d->gaps);
	tsl_free(d->mem);
}

/* Earliest t' >= t with [t', t' + span) free on d. */
static int64_t earliest_free(const dev *d, int64_t t, int64_t span)
{
	int f = gap_floor(d->gaps, d->groot, t);
	if (f >= 0 && d->gaps[f].b > t && d->gaps[f].b - t >= span)
		return t;
	f = gap_first_fit(d->gaps, d->groot, t, span);
	return f >= 0 ? d->gaps[f].a : t; /* the last gap always fits */
}

/* Where the work after the last one of d may start. */
static int64_t last_free(const dev *d)
{
	int n = d->groot;
	while (n >= 0 && d->gaps[n].r >= 0)
		n = d->gaps[n].r;
	return n >= 0 ? d->gaps[n].a : 0;
}

/* Mark [start, end) busy; it lies in one gap (earliest_free found it). */
static int insert_busy(dev *d, int64_t start, int64_t end)
{
	int f = gap_floor(d->gaps, d->groot, start);
	if (f < 0 || d->gaps[f].b < end)
		return 0; /* not free: cannot happen */
	int64_t a = d->gaps[f].a, b = d->gaps[f].b;
	if (a < start || b == end) {
		/* keep [a, start), and [end, b) if not empty */
		d->groot = gap_set(d->gaps, d->groot, a, a, start);
		if (b == end)
			return 0;
	} else {
		/* a == start: the gap becomes [end, b) (or goes) */
		d->groot = gap_set(d->gaps, d->groot, a, end, b);
		return 0;
	}
	int n = new_node((void **)&d->gaps, &d->ngaps, &d->capgaps, sizeof *d->gaps);
	if (n < 0)
		return -1;
	gap *G = d->gaps;
	G[n] = (gap){end, b, b - end, next_prio(d), -1, -1};
	int l, r;
	gap_split(G, d->groot, end, &l, &r);
	d->groot = gap_merge(G, gap_merge(G, l, n), r);
	return 0;
}

/* ---- memory events ---- */

static void mem_pull(mev *M, int n)
{
	int l = M[n].l, r = M[n].r;
	int64_t sl = l >= 0 ? M[l].sum : 0;
	int64_t best = sl; /* before n itself */
	if (l >= 0 && M[l].maxpre > best)
		best = M[l].maxpre;
	if (r >= 0 && sl + M[n].delta + M[r].maxpre > best)
		best = sl + M[n].delta + M[r].maxpre;
	M[n].sum = sl + M[n].delta + (r >= 0 ? M[r].sum : 0);
	M[n].maxpre = best;
}

static int mem_merge(mev *M, int x, int y)
{
	if (x < 0)
		return y;
	if (y < 0)
		return x;
	if (M[x].prio > M[y].prio) {
		M[x].r = mem_merge(M, M[x].r, y);
		mem_pull(M, x);
		return x;
	}
	M[y].l = mem_merge(M, x, M[y].l);
	mem_pull(M, y);
	return y;
}

/* Split n into the events at time <= t (*l) and the later ones (*r). */
static void mem_split(mev *M, int n, int64_t t, int *l, int *r)
{
	if (n < 0) {
		*l = *r = -1;
		return;
	}
	if (M[n].time <= t) {
		mem_split(M, M[n].r, t, &M[n].r, r);
		*l = n;
	} else {
		mem_split(M, M[n].l, t, l, &M[n].l);
		*r = n;
	}
	mem_pull(M, n);
}

static int insert_mem(dev *d, int64_t time, int64_t delta)
{
	int n = new_node((void **)&d->mem, &d->nmem, &d->capmem, sizeof *d->mem);
	if (n < 0)
		return -1;
	mev *M = d->mem;
	M[n] = (mev){time, delta, delta, 0, next_prio(d), -1, -1};
	int l, r;
	mem_split(M, d->mroot, time, &l, &r);
	d->mroot = mem_merge(M, mem_merge(M, l, n), r);
	return 0;
}

/* Earliest time from which the memory profile of d stays at most `room`
 * (limit minus the delta to add) forever; INT64_MAX if never: the time of
 * the last event before which the profile exceeds room, 0 if none. */
static int64_t memory_from(const dev *d, int64_t room)
{
	const mev *M = d->mem;
	int n = d->mroot;
	if (n < 0)
		return room < 0 ? INT64_MAX : 0;
	if (M[n].sum > room)
		return INT64_MAX; /* the profile after the last event */
	int64_t off = 0; /* summed deltas of the events before subtree n */
	while (n >= 0) {
		int l = M[n].l, r = M[n].r;
		int64_t sl = l >= 0 ? M[l].sum : 0;
		if (r >= 0 && off + sl + M[n].delta + M[r].maxpre > room) {
			off += sl + M[n].delta;
			n = r;
		} else if (off + sl > room) {
			return M[n].time;
		} else if (l >= 0 && off + M[l].maxpre > room) {
			n = l;
		} else {
			break;
		}
	}
	return 0;
}

/* Earliest t' >= t at which [t', t' + span) is free on every device of B;
 * after TSL_SGS_WINDOW_ROUNDS rounds without one, the step after the last
 * work of all of them (free on each). */
static int64_t common_window(const dev *devs, const tsl_block *B, int64_t t)
{
	for (int round = 0; round < TSL_SGS_WINDOW_ROUNDS; round++) {
		int moved = 0;
		for (int k = 0; k < B->ndevices; k++) {
			int64_t u = earliest_free(&devs[B->devices[k]], t, B->span);
			if (u != t) {
				t = u;
				moved = 1;
			}
		}
		if (!moved || B->ndevices == 1)
			return t;
	}
	for (int k = 0; k < B->ndevices; k++) {
		int64_t u = last_free(&devs[B->devices[k]]);
		if (u > t)
			t = u;
	}
	return t;
}

static dev *devs_new(int nd)
{
	dev *devs = tsl_calloc((size_t)nd, sizeof *devs);
	if (!devs)
		return NULL;
	for (int d = 0; d < nd; d++)
		if (dev_init(&devs[d], 0x9e3779b9u ^ (uint32_t)d * 2654435761u)) {
			for (int e = 0; e <= d; e++)
				dev_release(&devs[e]);
			tsl_free(devs);
			return NULL;
		}
	return devs;
}

static void devs_free(dev *devs, int nd)
{
	if (!devs)
		return;
	for (int d = 0; d < nd; d++)
		dev_release(&devs[d]);
	tsl_free(devs);
}

int tsl_sgs(tessel_schedule *s, const tsl_inst *prio, size_t count,
	    const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	int nd = g->ndevices;
	dev *devs = devs_new(nd);
	if (!devs)
		return tsl_error_nomem();
	int rc = TSL_OK;
	for (size_t i = 0; i < count; i++)
		tsl_entry_at(s, prio[i].gid, prio[i].mid)->start = -1;
	for (size_t i = 0; i < count && rc == TSL_OK; i++) {
		if (i % TSL_SGS_DEADLINE_EVERY == TSL_SGS_DEADLINE_EVERY - 1 &&
		    tsl_deadline_left_ms(dl) <= 0) {
			rc = TESSEL_ETIMEOUT; /* no message: the caller goes on */
			break;
		}
		const tsl_block *B = &g->blocks[prio[i].gid];
		int64_t t = 0;
		for (int k = 0; k < B->ndeps; k++) {
			const struct tessel_entry *e = tsl_entry_at(s, B->deps[k], prio[i].mid);
			if (e->start < 0) {
				rc = tsl_error(TESSEL_ERROR,
					       "internal: priority order puts a block before its dependency");
				break;
			}
			int64_t f = e->start + tsl_dep_gap(g, B, k);
			if (f > t)
				t = f;
		}
		if (rc)
			break;
		if (B->memory > 0) {
			for (int k = 0; k < B->ndevices; k++) {
				int d = B->devices[k];
				if (g->memory_limit[d] == TESSEL_UNLIMITED)
					continue;
				int64_t from = memory_from(&devs[d],
							   g->memory_limit[d] - B->memory);
				if (from == INT64_MAX) {
					rc = TESSEL_EINFEASIBLE; /* no message: a candidate */
					break;
				}
				if (from > t)
					t = from;
			}
			if (rc)
				break;
		}
		/* earliest common free window on all devices; the memory
		 * profile stays within the limits at any later step too */
		t = common_window(devs, B, t);
		for (int k = 0; k < B->ndevices && !rc; k++) {
			dev *d = &devs[B->devices[k]];
			if (insert_busy(d, t, t + B->span) ||
			    (B->memory && insert_mem(d, t, B->memory)))
				rc = tsl_error_nomem();
		}
		tsl_entry_at(s, prio[i].gid, prio[i].mid)->start = t;
	}
	devs_free(devs, nd);
	return rc;
}

int tsl_sgs_backward(tessel_schedule *s, const tsl_inst *prio, size_t count,
		     const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	int nd = g->ndevices, n = g->nblocks;
	dev *devs = devs_new(nd);
	int *succ_start = tsl_calloc((size_t)n + 1, sizeof *succ_start);
	int nsucc = 0;
	for (int b = 0; b < n; b++)
		nsucc += g->blocks[b].ndeps;
	int *succ = tsl_calloc((size_t)nsucc + 1, sizeof *succ);
	int *succ_lat = tsl_calloc((size_t)nsucc + 1, sizeof *succ_lat);
	int *fill = tsl_calloc((size_t)n, sizeof *fill);
	int64_t *u = tsl_reallocarray(NULL, count, sizeof *u); /* mirrored starts */
	int rc = TSL_OK;
	if (!devs || !succ_start || !succ || !succ_lat || !fill || !u) {
		rc = tsl_error_nomem();
		goto out;
	}
	/* successors of each block, with the latency of the dependency */
	for (int b = 0; b < n; b++)
		for (int k = 0; k < g->blocks[b].ndeps; k++)
			succ_start[g->blocks[b].deps[k] + 1]++;
	for (int b = 0; b < n; b++)
		succ_start[b + 1] += succ_start[b];
	for (int b = 0; b < n; b++)
		for (int k = 0; k < g->blocks[b].ndeps; k++) {
			int a = g->blocks[b].deps[k];
			succ[succ_start[a] + fill[a]] = b;
			succ_lat[succ_start[a] + fill[a]++] =
				tsl_dep_latency(g, &g->blocks[b], k);
		}
	for (size_t i = 0; i < count; i++)
		u[i] = -1;
	/* in mirrored time a successor c of b comes first, and b starts
	 * span(c) + latency after it: in real time c starts that latency
	 * after b finishes */
	int64_t horizon = 0;
	for (size_t i = 0; i < count && !rc; i++) {
		if (i % TSL_SGS_DEADLINE_EVERY == TSL_SGS_DEADLINE_EVERY - 1 &&
		    tsl_deadline_left_ms(dl) <= 0) {
			rc = TESSEL_ETIMEOUT; /* no message: the caller goes on */
			break;
		}
		int b = prio[i].gid;
		const tsl_block *B = &g->blocks[b];
		size_t base = (size_t)prio[i].mid * (size_t)n;
		int64_t t = 0;
		for (int k = succ_start[b]; k < succ_start[b + 1]; k++) {
			int64_t us = u[base + (size_t)succ[k]];
			if (us < 0) {
				rc = tsl_error(TESSEL_ERROR,
					       "internal: backward order puts a block before its successor");
				break;
			}
			int64_t e = us + g->blocks[succ[k]].span + succ_lat[k];
			if (e > t)
				t = e;
		}
		if (rc)
			break;
		t = common_window(devs, B, t);
		for (int k = 0; k < B->ndevices && !rc; k++)
			if (insert_busy(&devs[B->devices[k]], t, t + B->span))
				rc = tsl_error_nomem();
		u[base + (size_t)b] = t;
		if (t + B->span > horizon)
			horizon = t + B->span;
	}
	/* back to real time: the block that ends last in mirrored time
	 * starts at 0 */
	for (size_t i = 0; i < count && !rc; i++) {
		size_t idx = (size_t)prio[i].mid * (size_t)n + (size_t)prio[i].gid;
		s->entries[idx].start = horizon - u[idx] - g->blocks[prio[i].gid].span;
	}
out:
	devs_free(devs, nd);
	tsl_free(succ_start);
	tsl_free(succ);
	tsl_free(succ_lat);
	tsl_free(fill);
	tsl_free(u);
	return rc;
}
