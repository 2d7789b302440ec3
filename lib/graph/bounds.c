/* Bounds from the graph alone: resource bound, critical paths, LB(N).
 * Paths count the latency of each dependency as a schedule honours it
 * (tsl_dep_latency): c starts at least span(a) + latency after a starts. */
#include "bounds.h"
#include "bounds_cycle.h"
#include "bounds_memory.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "graph_alt.h"
#include "util.h"

void tsl_bounds_release(tsl_bounds *b)
{
	tsl_free(b->topo);
	tsl_free(b->head);
	tsl_free(b->tail);
	tsl_free(b->load);
	tsl_free(b->dev_head);
	tsl_free(b->dev_tail);
	tsl_free(b->sync_head);
	tsl_free(b->sync_tail);
	tsl_free(b->sync_load);
	tsl_free(b->dev_start);
	tsl_free(b->dev_block);
	tsl_free(b->span);
	tsl_free(b->limit);
	tsl_free(b->dev_mem);
	tsl_mem_phase_release(&b->warm);
	tsl_mem_phase_release(&b->cool);
	tsl_free(b->trip_start);
	tsl_free(b->trips);
	memset(b, 0, sizeof *b);
}

/* Each device's blocks, for the subset bound. */
static int device_lists(tsl_bounds *b, const tessel_graph *g)
{
	int n = g->nblocks, nd = g->ndevices;
	size_t total = 0;
	for (int v = 0; v < n; v++)
		total += (size_t)g->blocks[v].ndevices;
	b->dev_start = tsl_calloc((size_t)nd + 1, sizeof *b->dev_start);
	b->dev_block = tsl_calloc(total, sizeof *b->dev_block);
	b->span = tsl_calloc((size_t)n, sizeof *b->span);
	int *fill = tsl_calloc((size_t)nd, sizeof *fill);
	if (!b->dev_start || !b->dev_block || !b->span || !fill) {
		tsl_free(fill);
		tsl_bounds_release(b);
		return tsl_error_nomem();
	}
	for (int v = 0; v < n; v++) {
		b->span[v] = g->blocks[v].span;
		for (int k = 0; k < g->blocks[v].ndevices; k++)
			b->dev_start[g->blocks[v].devices[k] + 1]++;
	}
	for (int d = 0; d < nd; d++)
		b->dev_start[d + 1] += b->dev_start[d];
	for (int v = 0; v < n; v++)
		for (int k = 0; k < g->blocks[v].ndevices; k++) {
			int d = g->blocks[v].devices[k];
			b->dev_block[b->dev_start[d] + fill[d]++] = v;
		}
	tsl_free(fill);
	return TSL_OK;
}

/* Subsets larger than this are not enumerated (the whole-device bound
 * still applies). */
#define TSL_SUBSET_MAX 64

/* max over S = {j on d : head_j >= head_a, tail_j >= tail_c} of
 * min head(S) + N * span(S) + min tail(S). */
static int64_t subset_bound(const tsl_bounds *b, int d, int64_t nmicros)
{
	int lo = b->dev_start[d], hi = b->dev_start[d + 1];
	if (hi - lo > TSL_SUBSET_MAX)
		return 0;
	/* the device's blocks by tail, largest first: for a given head_a,
	 * the sets of every tail_c are the prefixes of this order that keep
	 * to head >= head_a, each ending at a block of its own (its tail is
	 * tail_c); O(k^2) for k blocks, not O(k^3) */
	int by_tail[TSL_SUBSET_MAX];
	int k = 0;
	for (int i = lo; i < hi; i++) {
		int v = b->dev_block[i], at = k++;
		while (at > 0 && b->tail[by_tail[at - 1]] < b->tail[v]) {
			by_tail[at] = by_tail[at - 1];
			at--;
		}
		by_tail[at] = v;
	}
	int64_t best = 0;
	for (int i = lo; i < hi; i++) {
		int64_t r = b->head[b->dev_block[i]];
		int64_t rmin = INT64_MAX, work = 0;
		for (int x = 0; x < k;) {
			/* the blocks of the next tail, then the set of it */
			int64_t q = b->tail[by_tail[x]];
			int added = 0;
			for (; x < k && b->tail[by_tail[x]] == q; x++) {
				int v = by_tail[x];
				if (b->head[v] < r)
					continue;
				work += b->span[v];
				if (b->head[v] < rmin)
					rmin = b->head[v];
				added = 1;
			}
			if (added && rmin + nmicros * work + q > best)
				best = rmin + nmicros * work + q;
		}
	}
	return best;
}

/* Paths that count only blocks not on every device, and no latency: while
 * a block of such a path runs, no block on every device can, so these
 * paths measure time that is neither a device's own work nor the blocks on
 * every device. A transfer occupies no device: blocks on every device may
 * run during a latency, which therefore does not count here. (Latencies
 * only add constraints, so a bound that ignores them stays valid.) */
static int sync_bounds(tsl_bounds *b, const tessel_graph *g)
{
	int n = g->nblocks, nd = g->ndevices;
	int64_t *head = tsl_calloc((size_t)n, sizeof *head);
	int64_t *tail = tsl_calloc((size_t)n, sizeof *tail);
	if (!head || !tail) {
		tsl_free(head);
		tsl_free(tail);
		tsl_bounds_release(b);
		return tsl_error_nomem();
	}
#define SPAN2(v) (g->blocks[v].ndevices == nd ? 0 : g->blocks[v].span)
	for (int k = 0; k < n; k++) {
		int v = b->topo[k];
		for (int j = 0; j < g->blocks[v].ndeps; j++) {
			int p = g->blocks[v].deps[j];
			if (head[p] + SPAN2(p) > head[v])
				head[v] = head[p] + SPAN2(p);
		}
	}
	for (int k = n - 1; k >= 0; k--) {
		int v = b->topo[k];
		for (int j = 0; j < g->blocks[v].ndeps; j++) {
			int p = g->blocks[v].deps[j];
			if (tail[v] + SPAN2(v) > tail[p])
				tail[p] = tail[v] + SPAN2(v);
		}
	}
#undef SPAN2
	for (int d = 0; d < nd; d++) {
		b->sync_head[d] = -1;
		b->sync_tail[d] = -1;
	}
	for (int v = 0; v < n; v++) {
		const tsl_block *blk = &g->blocks[v];
		if (blk->ndevices == nd) {
			b->sync_span += blk->span;
			continue;
		}
		for (int k = 0; k < blk->ndevices; k++) {
			int d = blk->devices[k];
			b->sync_load[d] += blk->span;
			if (b->sync_head[d] < 0 || head[v] < b->sync_head[d])
				b->sync_head[d] = head[v];
			if (b->sync_tail[d] < 0 || tail[v] < b->sync_tail[d])
				b->sync_tail[d] = tail[v];
		}
	}
	tsl_free(head);
	tsl_free(tail);
	return TSL_OK;
}

int tsl_bounds_compute(tsl_bounds *b, const tessel_graph *g)
{
	int n = g->nblocks, nd = g->ndevices;
	memset(b, 0, sizeof *b);
	b->nblocks = n;
	b->ndevices = nd;
	b->topo = tsl_calloc((size_t)n, sizeof *b->topo);
	b->head = tsl_calloc((size_t)n, sizeof *b->head);
	b->tail = tsl_calloc((size_t)n, sizeof *b->tail);
	b->load = tsl_calloc((size_t)nd, sizeof *b->load);
	b->dev_head = tsl_calloc((size_t)nd, sizeof *b->dev_head);
	b->dev_tail = tsl_calloc((size_t)nd, sizeof *b->dev_tail);
	b->sync_head = tsl_calloc((size_t)nd, sizeof *b->sync_head);
	b->sync_tail = tsl_calloc((size_t)nd, sizeof *b->sync_tail);
	b->sync_load = tsl_calloc((size_t)nd, sizeof *b->sync_load);
	if (!b->topo || !b->head || !b->tail || !b->load || !b->dev_head ||
	    !b->dev_tail || !b->sync_head || !b->sync_tail || !b->sync_load) {
		tsl_bounds_release(b);
		return tsl_error_nomem();
	}
	int rc = tsl_graph_topo_order(b->topo, g);
	if (rc) {
		tsl_bounds_release(b);
		return rc;
	}
	/* head: longest path into each block (forward pass in topo order),
	 * every dependency a -> v counting span(a) + its latency: v starts
	 * no earlier than head(v) in any schedule */
	for (int k = 0; k < n; k++) {
		int v = b->topo[k];
		const tsl_block *blk = &g->blocks[v];
		int64_t h = 0;
		for (int j = 0; j < blk->ndeps; j++) {
			int64_t e = b->head[blk->deps[j]] + tsl_dep_gap(g, blk, j);
			if (e > h)
				h = e;
		}
		b->head[v] = h;
	}
	/* tail: longest path after each block finishes (backward pass):
	 * the latency of a -> v, then v's span and tail; a finishes no
	 * later than tail(a) steps before the end */
	for (int k = n - 1; k >= 0; k--) {
		int v = b->topo[k];
		const tsl_block *blk = &g->blocks[v];
		for (int j = 0; j < blk->ndeps; j++) {
			int p = blk->deps[j];
			int64_t t = b->tail[v] + blk->span + tsl_dep_latency(g, blk, j);
			if (t > b->tail[p])
				b->tail[p] = t;
		}
	}
	for (int d = 0; d < nd; d++) {
		b->dev_head[d] = -1;
		b->dev_tail[d] = -1;
	}
	for (int v = 0; v < n; v++) {
		const tsl_block *blk = &g->blocks[v];
		int64_t cp = b->head[v] + blk->span + b->tail[v];
		if (cp > b->critical_path)
			b->critical_path = cp;
		b->total_span += blk->span;
		for (int k = 0; k < blk->ndevices; k++) {
			int d = blk->devices[k];
			b->load[d] += blk->span;
			if (b->dev_head[d] < 0 || b->head[v] < b->dev_head[d])
				b->dev_head[d] = b->head[v];
			if (b->dev_tail[d] < 0 || b->tail[v] < b->dev_tail[d])
				b->dev_tail[d] = b->tail[v];
		}
	}
	for (int d = 0; d < nd; d++)
		if (b->load[d] > b->resource_bound)
			b->resource_bound = b->load[d];
	rc = device_lists(b, g);
	if (!rc)
		rc = sync_bounds(b, g);
	if (!rc) {
		rc = tsl_bounds_memory(b, g);
		if (!rc)
			rc = tsl_bounds_cycle(b, g);
		if (rc)
			tsl_bounds_release(b);
	}
	return rc;
}

void tsl_bounds_keep_lower(tsl_bounds *b, int64_t nmicros)
{
	b->lower_n = 0;
	b->lower = tsl_bounds_lower(b, nmicros);
	b->lower_n = nmicros;
}

int64_t tsl_bounds_lower(const tsl_bounds *b, int64_t nmicros)
{
	if (b->lower_n > 0 && b->lower_n == nmicros)
		return b->lower;
	int64_t lb = b->critical_path;
	for (int d = 0; d < b->ndevices; d++) {
		if (b->load[d] == 0)
			continue;
		int64_t v = b->dev_head[d] + nmicros * b->load[d] + b->dev_tail[d];
		if (v > lb)
			lb = v;
		v = subset_bound(b, d, nmicros);
		if (v > lb)
			lb = v;
		v = tsl_bounds_memory_lower(b, d, nmicros);
		if (v > lb)
			lb = v;
		v = tsl_bounds_cycle_lower(b, d, nmicros);
		if (v > lb)
			lb = v;
		if (b->sync_load[d] == 0)
			continue;
		v = nmicros * (b->sync_span + b->sync_load[d]) + b->sync_head[d] +
		    b->sync_tail[d];
		if (v > lb)
			lb = v;
	}
	return lb;
}

/* The bounds of a graph whose structure passes the checks. */
static int checked_bounds(tsl_bounds *b, const tessel_graph *g)
{
	int rc = tsl_graph_check_structure(g);
	return rc ? rc : tsl_bounds_compute(b, g);
}

/* The resource bound (critical_path 0) or the critical path (1) of a
 * structurally valid graph (its error otherwise). */
static int bound_figure(int64_t *out, const tessel_graph *g, int critical_path)
{
	tsl_bounds b;
	int rc = checked_bounds(&b, g);
	if (rc)
		return rc;
	*out = critical_path ? b.critical_path : b.resource_bound;
	tsl_bounds_release(&b);
	return TSL_OK;
}

/* tessel_graph_get is here, not in graph.c, because two of its figures
 * are bounds: the graph model does not depend on the bounds. */
TESSEL_API int tessel_graph_get(int64_t *out, const tessel_graph *g,
				tessel_graph_attr attr)
{
	TSL_CHECK_ARG(out, NULL, "out");
	TSL_CHECK_ARG(g, NULL, "graph");
	switch (attr) {
	case TESSEL_GRAPH_NDEVICES:
		*out = g->ndevices;
		return TSL_OK;
	case TESSEL_GRAPH_NBLOCKS:
		*out = g->nblocks;
		return TSL_OK;
	case TESSEL_GRAPH_LATENCY:
		*out = g->latency;
		return TSL_OK;
	case TESSEL_GRAPH_RESOURCE_BOUND:
	case TESSEL_GRAPH_CRITICAL_PATH:
		return bound_figure(out, g,
				    attr == TESSEL_GRAPH_CRITICAL_PATH);
	}
	return tsl_error(TESSEL_EINVAL, "unknown graph attribute %d", (int)attr);
}

/* A copy of g with every alternative at its cheapest memory and no extra
 * time (tsl_graph_cheapest_memory), the declarations dropped. */
static int cheapest_graph(tessel_graph **out, const tessel_graph *g)
{
	int64_t *mem = tsl_calloc((size_t)g->nblocks + 1, sizeof *mem);
	tessel_graph *d = NULL;
	int rc = mem ? tessel_graph_dup(&d, g) : tsl_error_nomem();
	if (!rc) {
		tsl_graph_cheapest_memory(mem, g);
		for (int i = 0; i < d->nblocks; i++) {
			d->blocks[i].memory = (int)mem[i];
			d->blocks[i].rc_backward = -1;
			d->blocks[i].of_backward = -1;
		}
		*out = d;
	}
	tsl_free(mem);
	return rc;
}

TESSEL_API int tessel_graph_lower_bound(int64_t *out, const tessel_graph *g,
					int64_t nmicros)
{
	TSL_CHECK_ARG(out, NULL, "out");
	TSL_CHECK_ARG(g, NULL, "graph");
	if (nmicros < 1 || nmicros > TESSEL_MAX_MICRO_BATCHES)
		return tsl_error(TESSEL_ERANGE,
				 "micro-batches must be 1 .. %d, got %lld",
				 TESSEL_MAX_MICRO_BATCHES,
				 (long long)nmicros);
	/* with alternatives declared, the bound of every choice: each at its
	 * cheapest memory, no extra time */
	tessel_graph *cheap = NULL;
	if (tsl_graph_alternatives(g)) {
		int rc = cheapest_graph(&cheap, g);
		if (rc)
			return rc;
		g = cheap;
	}
	tsl_bounds b;
	int rc = checked_bounds(&b, g);
	if (!rc) {
		*out = tsl_bounds_lower(&b, nmicros);
		tsl_bounds_release(&b);
	}
	tessel_graph_free(cheap);
	return rc;
}

/* Sort key of tsl_bounds_order_by_head. */
typedef struct head_key {
	int64_t head;
	int pos; /* in topological order */
	int b;
} head_key;

static int cmp_head(const void *x, const void *y)
{
	const head_key *a = x, *b = y;
	if (a->head != b->head)
		return a->head < b->head ? -1 : 1;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

int tsl_bounds_order_by_head(int *order, const tsl_bounds *b)
{
	head_key *keys = tsl_calloc((size_t)b->nblocks, sizeof *keys);
	if (!keys)
		return tsl_error_nomem();
	for (int k = 0; k < b->nblocks; k++) {
		int g = b->topo[k];
		keys[k] = (head_key){b->head[g], k, g};
	}
	qsort(keys, (size_t)b->nblocks, sizeof *keys, cmp_head);
	for (int k = 0; k < b->nblocks; k++)
		order[k] = keys[k].b;
	tsl_free(keys);
	return TSL_OK;
}
