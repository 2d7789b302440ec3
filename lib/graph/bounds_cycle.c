/* The memory round-trip term of LB(N): time that a device's memory limit
 * forces when every micro-batch holds memory on the device while it goes
 * a long way through the others (a pipeline's first stage holds its
 * activation from its forward to its backward, all the other stages and
 * their latencies in between).
 *
 * Memory on device d changes by a block's delta when the block starts
 * (bounds_memory.c). The blocks of one micro-batch started by a time form
 * an ideal of the order that the dependencies induce on d's blocks (a
 * block starts after every block it depends on, directly or not, has
 * finished), so a micro-batch holds at least the smallest sum of deltas
 * over those ideals. Take a block a and a block f on d that depends on a,
 * directly or not, and mu the smallest sum over the ideals that hold a and
 * not f. When mu > 0 and no ideal sums below 0 (no micro-batch ever holds
 * less than nothing), at most k = limit / mu micro-batches are between
 * their a's start and their f's start at any time.
 *
 * Take for each micro-batch the interval from its a's start to its f's end.
 * At most k of them are open at once: while f of micro-batch j runs, d runs
 * nothing else, so no a or f starts; the others open then were between a's
 * start and f's start just before f of j started, as j was. Intervals on a
 * line with at most k open at once split into k tracks of disjoint ones.
 * An interval lasts at least L = the longest path from a's start to f's
 * start (spans and latencies) + span(f), starts at head(a) or later and
 * ends tail(f) or more before the end T. The tracks' first intervals start
 * with different copies of a on d, at least span(a) apart, and their last
 * ones end with different copies of f, at least span(f) apart. So, with
 * s = max(span(a), span(f)) and the tracks in the matching order, track j
 * (from 0) holds at most floor((T - base - j s) / L) intervals, base =
 * head(a) + tail(f), and the tracks hold all N:
 *
 *   T >= the least X with sum over j < k of floor((X - base - j s) / L)^+ >= N
 *
 * (above TSL_TRIP_STAGGER_MAX tracks without s: T >= base + ceil(N / k) L).
 *
 * What is enumerated is bounded: devices of at most TSL_TRIP_BLOCKS
 * blocks, at most TSL_TRIP_IDEALS ideals each, and a pass over the graph
 * for the ancestors on each device and the paths from each block that
 * takes memory: TSL_TRIP_WORK steps in all (passes, ideals and what they
 * record), devices in order (the same terms on every machine). A graph with a memory-time alternative declared
 * has no term (an alternative changes what a micro-batch holds;
 * tessel_graph_lower_bound bounds such a graph by a copy with each
 * alternative at its cheapest memory and the declarations dropped). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bounds_cycle.h"
#include "error.h"
#include "graph_alt.h"
#include "util.h"

#define TSL_TRIP_BLOCKS 64
#define TSL_TRIP_IDEALS 1024
#define TSL_TRIP_WORK ((int64_t)1 << 22)
#define TSL_TRIP_PER_DEVICE 64
#define TSL_TRIP_STAGGER_MAX 256

/* One device's blocks and what their ideals hold. */
typedef struct trip_scan {
	int nloc;                      /* blocks on the device */
	int loc[TSL_TRIP_BLOCKS];      /* their ids, in topological order */
	uint64_t anc[TSL_TRIP_BLOCKS]; /* per block: its ancestors on d */
	uint64_t desc[TSL_TRIP_BLOCKS]; /* per block: its descendants on d */
	int64_t delta[TSL_TRIP_BLOCKS];
	uint64_t takes;                /* blocks of delta > 0 */
	int64_t least;                 /* smallest sum over all ideals */
	int64_t mu[TSL_TRIP_BLOCKS][TSL_TRIP_BLOCKS]; /* [a][f] */
	int ideals;
	int64_t work;                  /* steps spent, all devices */
} trip_scan;

/* The trips found so far. */
typedef struct trip_list {
	tsl_mem_trip *v;
	size_t n, cap;
} trip_list;

static int push_trip(trip_list *l, tsl_mem_trip t)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		tsl_mem_trip *v = tsl_reallocarray(l->v, cap, sizeof *v);
		if (!v)
			return tsl_error_nomem();
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = t;
	return TSL_OK;
}

/* An ideal's sum: the least of all, and of those holding a and not f. */
static void record_ideal(trip_scan *sc, uint64_t mask, int64_t sum)
{
	if (sum < sc->least)
		sc->least = sum;
	for (uint64_t as = sc->takes & mask; as; as &= as - 1) {
		int a = __builtin_ctzll(as);
		for (uint64_t fs = sc->desc[a] & ~mask; fs; fs &= fs - 1) {
			int f = __builtin_ctzll(fs);
			if (sum < sc->mu[a][f])
				sc->mu[a][f] = sum;
		}
		sc->work += sc->nloc;
	}
}

/* Every ideal: block i left out, or taken when its ancestors are.
 * -1 past TSL_TRIP_IDEALS or TSL_TRIP_WORK. */
static int each_ideal(trip_scan *sc, int i, uint64_t mask, int64_t sum)
{
	if (++sc->work > TSL_TRIP_WORK)
		return -1;
	if (i == sc->nloc) {
		if (++sc->ideals > TSL_TRIP_IDEALS)
			return -1;
		record_ideal(sc, mask, sum);
		return 0;
	}
	if (each_ideal(sc, i + 1, mask, sum))
		return -1;
	if (sc->anc[i] & ~mask)
		return 0;
	return each_ideal(sc, i + 1, mask | (uint64_t)1 << i, sum + sc->delta[i]);
}

/* Scratch of one graph: per block its local index on the device (-1: not
 * on it), its ancestors on the device, its longest path from a block. */
typedef struct trip_work {
	int *pos;      /* per block: place in the topological order */
	int *local;
	uint64_t *anc;
	int64_t *dist;
	int64_t pass;  /* steps of one pass over the graph */
} trip_work;

/* The device's blocks in topological order and their ancestors on it;
 * 0 when the device has none to look at. */
static int load_device(trip_scan *sc, trip_work *w, const tsl_bounds *b,
		       const tessel_graph *g, int d)
{
	int lo = b->dev_start[d], hi = b->dev_start[d + 1];
	if (hi - lo > TSL_TRIP_BLOCKS || hi == lo)
		return 0;
	sc->nloc = 0;
	sc->takes = 0;
	for (int i = lo; i < hi; i++) { /* insertion by topological place */
		int v = b->dev_block[i], at = sc->nloc++;
		while (at > 0 && w->pos[sc->loc[at - 1]] > w->pos[v]) {
			sc->loc[at] = sc->loc[at - 1];
			at--;
		}
		sc->loc[at] = v;
	}
	for (int i = 0; i < sc->nloc; i++) {
		w->local[sc->loc[i]] = i;
		sc->delta[i] = g->blocks[sc->loc[i]].memory;
		if (sc->delta[i] > 0)
			sc->takes |= (uint64_t)1 << i;
	}
	for (int k = 0; k < g->nblocks; k++) {
		int v = b->topo[k];
		const tsl_block *blk = &g->blocks[v];
		uint64_t m = 0;
		for (int j = 0; j < blk->ndeps; j++) {
			int p = blk->deps[j];
			m |= w->anc[p];
			if (w->local[p] >= 0)
				m |= (uint64_t)1 << w->local[p];
		}
		w->anc[v] = m;
	}
	for (int i = 0; i < sc->nloc; i++) {
		sc->anc[i] = w->anc[sc->loc[i]];
		sc->desc[i] = 0;
	}
	for (int i = 0; i < sc->nloc; i++)
		for (uint64_t as = sc->anc[i]; as; as &= as - 1)
			sc->desc[__builtin_ctzll(as)] |= (uint64_t)1 << i;
	for (int i = 0; i < sc->nloc; i++)
		w->local[sc->loc[i]] = -1;
	return sc->takes != 0;
}

/* Longest path from a's start to the start of every block after it
 * (-1: none). */
static void paths_from(trip_work *w, const tsl_bounds *b, const tessel_graph *g,
		       int a)
{
	for (int v = 0; v < g->nblocks; v++)
		w->dist[v] = -1;
	w->dist[a] = 0;
	for (int k = w->pos[a] + 1; k < g->nblocks; k++) {
		int v = b->topo[k];
		const tsl_block *blk = &g->blocks[v];
		int64_t best = -1;
		for (int j = 0; j < blk->ndeps; j++) {
			int p = blk->deps[j];
			if (w->dist[p] >= 0 && w->dist[p] + tsl_dep_gap(g, blk, j) > best)
				best = w->dist[p] + tsl_dep_gap(g, blk, j);
		}
		w->dist[v] = best;
	}
}

/* Device d's trips; *stop set when the work is spent. */
static int device_trips(trip_list *out, trip_scan *sc, trip_work *w,
			const tsl_bounds *b, const tessel_graph *g, int d,
			int *stop)
{
	if (b->limit[d] == TESSEL_UNLIMITED)
		return TSL_OK;
	if (sc->work + w->pass > TSL_TRIP_WORK) {
		*stop = 1;
		return TSL_OK;
	}
	sc->work += w->pass;
	if (!load_device(sc, w, b, g, d))
		return TSL_OK;
	sc->least = 0; /* the empty ideal */
	sc->ideals = 0;
	for (int a = 0; a < sc->nloc; a++)
		for (int f = 0; f < sc->nloc; f++)
			sc->mu[a][f] = INT64_MAX;
	if (each_ideal(sc, 0, 0, 0) || sc->least < 0) {
		*stop = sc->work > TSL_TRIP_WORK;
		return TSL_OK;
	}
	size_t first = out->n;
	for (uint64_t as = sc->takes; as; as &= as - 1) {
		int a = __builtin_ctzll(as);
		if (sc->work + w->pass > TSL_TRIP_WORK) {
			*stop = 1;
			return TSL_OK;
		}
		sc->work += w->pass;
		int ga = sc->loc[a];
		paths_from(w, b, g, ga);
		for (uint64_t fs = sc->desc[a]; fs; fs &= fs - 1) {
			int f = __builtin_ctzll(fs), gf = sc->loc[f];
			int64_t mu = sc->mu[a][f];
			if (mu <= 0 || mu == INT64_MAX || w->dist[gf] < 0 ||
			    b->limit[d] / mu < 1)
				continue;
			if (out->n - first >= TSL_TRIP_PER_DEVICE)
				return TSL_OK;
			int64_t sa = g->blocks[ga].span, sf = g->blocks[gf].span;
			tsl_mem_trip t = {
				.holders = b->limit[d] / mu,
				.length = w->dist[gf] + sf,
				.stagger = sa > sf ? sa : sf,
				.base = b->head[ga] + b->tail[gf],
			};
			int rc = push_trip(out, t);
			if (rc)
				return rc;
		}
	}
	return TSL_OK;
}

int tsl_bounds_cycle(tsl_bounds *b, const tessel_graph *g)
{
	int n = g->nblocks, nd = g->ndevices;
	b->trip_start = tsl_calloc((size_t)nd + 1, sizeof *b->trip_start);
	if (!b->trip_start)
		return tsl_error_nomem();
	if (n == 0 || tsl_graph_alternatives(g))
		return TSL_OK;
	trip_scan *sc = tsl_calloc(1, sizeof *sc);
	trip_work w = {
		.pos = tsl_calloc((size_t)n, sizeof *w.pos),
		.local = tsl_calloc((size_t)n, sizeof *w.local),
		.anc = tsl_calloc((size_t)n, sizeof *w.anc),
		.dist = tsl_calloc((size_t)n, sizeof *w.dist),
		.pass = n,
	};
	trip_list out = {0};
	int rc = sc && w.pos && w.local && w.anc && w.dist ? TSL_OK
							  : tsl_error_nomem();
	for (int v = 0; !rc && v < n; v++) {
		w.pos[b->topo[v]] = v;
		w.local[v] = -1;
		w.pass += g->blocks[v].ndeps;
	}
	int stop = 0;
	for (int d = 0; !rc && d < nd; d++) {
		b->trip_start[d] = (int)out.n;
		if (!stop)
			rc = device_trips(&out, sc, &w, b, g, d, &stop);
	}
	b->trip_start[nd] = (int)out.n;
	if (!rc) {
		b->trips = out.v;
		out.v = NULL;
	}
	tsl_free(out.v);
	tsl_free(sc);
	tsl_free(w.pos);
	tsl_free(w.local);
	tsl_free(w.anc);
	tsl_free(w.dist);
	return rc;
}

/* Intervals that fit in X on k tracks: sum over j < k of
 * floor((X - base - j s) / L), the terms down to 0 dropped. */
static int64_t trip_fits(const tsl_mem_trip *t, int64_t x, int64_t k)
{
	int64_t n = 0;
	for (int64_t j = 0; j < k; j++) {
		int64_t room = x - t->base - j * t->stagger;
		if (room < t->length)
			break;
		n += room / t->length;
	}
	return n;
}

static int64_t trip_lower(const tsl_mem_trip *t, int64_t nmicros)
{
	int64_t k = t->holders;
	if (k >= nmicros || t->length <= 0 ||
	    t->length > (INT64_MAX / 4 - t->base) / (nmicros + 1))
		return 0;
	/* below base + ceil(N / k) L every term is under ceil(N / k), so
	 * the k of them under N; base + ceil(N / k) L + (k - 1) s fits N */
	int64_t lo = t->base + (nmicros + k - 1) / k * t->length;
	if (k > TSL_TRIP_STAGGER_MAX)
		return lo;
	int64_t hi = lo + (k - 1) * t->stagger;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (trip_fits(t, mid, k) >= nmicros)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int64_t tsl_bounds_cycle_lower(const tsl_bounds *b, int d, int64_t nmicros)
{
	int64_t best = 0;
	if (!b->trip_start || !b->trips)
		return 0;
	for (int i = b->trip_start[d]; i < b->trip_start[d + 1]; i++) {
		int64_t v = trip_lower(&b->trips[i], nmicros);
		if (v > best)
			best = v;
	}
	return best;
}
