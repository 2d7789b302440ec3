/* One micro-batch at a time: the schedule of least memory.
 *
 * Any schedule that runs every device's instances in the order (micro-batch,
 * position in one order of the blocks) has, on each device, the memory of
 * that order's running sum, repeated: the peak of one micro-batch plus, when
 * a micro-batch leaves memory behind on the device (its deltas there add up
 * to more than 0), what the earlier ones left. So the least memory under
 * which a schedule exists is at most the best such order's, and the
 * schedule that starts each instance as early as its dependencies and its
 * devices allow in that order (tsl_serial_schedule) reaches it.
 *
 * The order (tsl_serial_order): a block whose delta is <= 0 starts as soon
 * as it is ready (starting it earlier never raises a running sum); among
 * the others, each rule below picks one; the order whose largest need over
 * the devices is least wins (then the least sum, then the earlier rule):
 *   - topological (the blocks in breadth-first topological order),
 *   - last ready first (a depth-first walk: a branch is finished, and its
 *     memory freed, before the next begins),
 *   - smallest delta first;
 * then the same three mirrored: walked from the last blocks back with
 * every delta negated, the order reversed, so that a block whose delta is
 * >= 0 comes as late as the blocks after it allow (a reload, which takes
 * its memory back, just before the backward that needs it, not as soon as
 * the offload before it ended).
 * Finding the best order is NP-hard in general; tessel_graph_min_memory
 * says whether the result meets the lower bound of graph.c (what one
 * micro-batch needs when a block starts), and then it is the least. */
#include <stdlib.h>
#include <string.h>

#include "complete_serial.h"
#include "error.h"
#include "util.h"

#define TSL_NEED_CAP ((int64_t)1 << 62)
/* the largest memory limit a graph takes */
#define TSL_LIMIT_MAX ((int64_t)1 << 50)

enum { RULE_TOPO, RULE_LIFO, RULE_DELTA, NRULES };

typedef struct heap {
	int *item;
	int n;
	const int64_t *key; /* per gid: smaller first */
} heap;

static int before(const heap *h, int a, int b)
{
	return h->key[a] < h->key[b] || (h->key[a] == h->key[b] && a < b);
}

static void heap_push(heap *h, int v)
{
	int i = h->n++;
	while (i > 0) {
		int p = (i - 1) / 2;
		if (!before(h, v, h->item[p]))
			break;
		h->item[i] = h->item[p];
		i = p;
	}
	h->item[i] = v;
}

static int heap_pop(heap *h)
{
	int top = h->item[0], v = h->item[--h->n], i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(h, h->item[c + 1], h->item[c]))
			c++;
		if (!before(h, h->item[c], v))
			break;
		h->item[i] = h->item[c];
		i = c;
	}
	if (h->n)
		h->item[i] = v;
	return top;
}

/* What each device needs for nmicros micro-batches in `order`. */
static void order_need(int64_t *need, const tessel_graph *g, const int *order,
		       int64_t nmicros, int64_t *sum)
{
	for (int d = 0; d < g->ndevices; d++)
		sum[d] = need[d] = 0;
	for (int i = 0; i < g->nblocks; i++) {
		const tsl_block *b = &g->blocks[order[i]];
		for (int k = 0; k < b->ndevices; k++) {
			int d = b->devices[k];
			sum[d] += b->memory;
			if (sum[d] > need[d])
				need[d] = sum[d];
		}
	}
	/* (saturated at TSL_NEED_CAP: beyond any limit) */
	for (int d = 0; d < g->ndevices; d++)
		if (sum[d] > 0)
			need[d] = (TSL_NEED_CAP - need[d]) / sum[d] < nmicros - 1
					  ? TSL_NEED_CAP
					  : need[d] + (nmicros - 1) * sum[d];
}

/* The walk of a rule: the blocks each block lets start (next: start and
 * block arrays, as tsl_succ), how many must go before each (first), the
 * sign of the deltas and the topological position of each block (rank).
 * The forward walk follows the dependencies; the mirrored walk runs from
 * the last blocks back to the first with every delta negated, so that a
 * block that takes memory comes as late as the blocks after it allow. */
typedef struct walk {
	const int *start, *block;
	const int *first;
	int sign;
	const int *rank;
} walk;

/* One rule's order into `order` (in the walk's direction). key: per-gid
 * scratch; indeg: scratch. */
static void order_by_rule(int *order, int rule, const tessel_graph *g,
			  const walk *w, int *indeg, int64_t *key,
			  heap *free_h, heap *take_h)
{
	int n = g->nblocks, placed = 0;
	int64_t clock = 0;
	free_h->n = take_h->n = 0;
	free_h->key = take_h->key = key;
	for (int v = 0; v < n; v++)
		indeg[v] = w->first[v];
	for (int i = 0; i < n; i++) {
		int v = i;
		if (indeg[v])
			continue;
		int64_t m = w->sign * (int64_t)g->blocks[v].memory;
		key[v] = rule == RULE_LIFO    ? -(clock++)
			 : rule == RULE_DELTA ? m * n + w->rank[v]
					      : w->rank[v];
		heap_push(m <= 0 ? free_h : take_h, v);
	}
	while (placed < n) {
		int v = free_h->n ? heap_pop(free_h) : heap_pop(take_h);
		order[placed++] = v;
		for (int k = w->start[v]; k < w->start[v + 1]; k++) {
			int u = w->block[k];
			if (--indeg[u])
				continue;
			int64_t m = w->sign * (int64_t)g->blocks[u].memory;
			key[u] = rule == RULE_LIFO    ? -(clock++)
				 : rule == RULE_DELTA ? m * n + w->rank[u]
						      : w->rank[u];
			heap_push(m <= 0 ? free_h : take_h, u);
		}
	}
}

static int worse(const int64_t *a, const int64_t *b, int nd)
{
	int64_t ma = 0, mb = 0, sa = 0, sb = 0;
	for (int d = 0; d < nd; d++) {
		ma = a[d] > ma ? a[d] : ma;
		mb = b[d] > mb ? b[d] : mb;
		sa += a[d];
		sb += b[d];
	}
	return ma > mb || (ma == mb && sa > sb);
}

int tsl_serial_order(int *order, int64_t *need, const tessel_graph *g,
		     int64_t nmicros)
{
	int n = g->nblocks, nd = g->ndevices;
	tsl_succ x = {0};
	int *topo = tsl_calloc((size_t)n + 1, sizeof *topo);
	int *rank = tsl_calloc(2 * (size_t)n + 1, sizeof *rank);
	int *indeg = tsl_calloc((size_t)n + 1, sizeof *indeg);
	int *trial = tsl_calloc((size_t)n + 1, sizeof *trial);
	int *items = tsl_calloc(2 * (size_t)n + 2, sizeof *items);
	int64_t *key = tsl_calloc((size_t)n + 1, sizeof *key);
	int64_t *tneed = tsl_calloc((size_t)nd, sizeof *tneed);
	int64_t *sum = tsl_calloc((size_t)nd, sizeof *sum);
	/* the mirrored walk: each block's dependencies (pstart, pblock) and
	 * successor count (nsucc); the forward one's dependency counts */
	int *pstart = tsl_calloc((size_t)n + 1, sizeof *pstart);
	int *nsucc = tsl_calloc((size_t)n + 1, sizeof *nsucc);
	int *ndeps = tsl_calloc((size_t)n + 1, sizeof *ndeps);
	int *pblock = NULL;
	int rc = topo && rank && indeg && trial && items && key && tneed && sum &&
			 pstart && nsucc && ndeps
		 ? tsl_graph_topo_order(topo, g)
		 : tsl_error_nomem();
	if (!rc)
		rc = tsl_succ_build(&x, g);
	if (!rc) {
		for (int v = 0; v < n; v++) {
			ndeps[v] = g->blocks[v].ndeps;
			pstart[v + 1] = pstart[v] + ndeps[v];
			nsucc[v] = x.start[v + 1] - x.start[v];
		}
		pblock = tsl_calloc((size_t)pstart[n] + 1, sizeof *pblock);
		if (!pblock)
			rc = tsl_error_nomem();
		for (int v = 0; v < n && !rc; v++)
			if (ndeps[v]) /* (a block without dependencies may have no list) */
				memcpy(pblock + pstart[v], g->blocks[v].deps,
				       (size_t)ndeps[v] * sizeof *pblock);
		if (rc)
			tsl_succ_release(&x);
	}
	if (!rc) {
		int *mrank = rank + n;
		for (int i = 0; i < n; i++) {
			rank[topo[i]] = i;
			mrank[topo[i]] = n - 1 - i;
		}
		heap free_h = {items, 0, key}, take_h = {items + n + 1, 0, key};
		const walk walks[2] = {{x.start, x.block, ndeps, 1, rank},
				       {pstart, pblock, nsucc, -1, mrank}};
		/* each rule forward, then each mirrored (its order reversed) */
		for (int t = 0; t < 2 * NRULES; t++) {
			const walk *w = &walks[t / NRULES];
			order_by_rule(trial, t % NRULES, g, w, indeg, key,
				      &free_h, &take_h);
			if (w->sign < 0)
				for (int i = 0, j = n - 1; i < j; i++, j--) {
					int tmp = trial[i];
					trial[i] = trial[j];
					trial[j] = tmp;
				}
			order_need(tneed, g, trial, nmicros, sum);
			if (t == 0 || worse(need, tneed, nd)) {
				memcpy(order, trial, (size_t)n * sizeof *order);
				memcpy(need, tneed, (size_t)nd * sizeof *need);
			}
		}
		tsl_succ_release(&x);
	}
	tsl_free(topo);
	tsl_free(rank);
	tsl_free(indeg);
	tsl_free(trial);
	tsl_free(items);
	tsl_free(key);
	tsl_free(tneed);
	tsl_free(sum);
	tsl_free(pstart);
	tsl_free(pblock);
	tsl_free(nsucc);
	tsl_free(ndeps);
	return rc;
}

int tsl_serial_fits(const tessel_graph *g, const int64_t *need)
{
	for (int d = 0; d < g->ndevices; d++)
		if (g->memory_limit[d] != TESSEL_UNLIMITED &&
		    need[d] > g->memory_limit[d])
			return 0;
	return 1;
}

int tsl_serial_schedule(tessel_schedule *s, const int *order,
			const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	int n = g->nblocks;
	int64_t *free_at = tsl_calloc((size_t)g->ndevices, sizeof *free_at);
	if (!free_at)
		return tsl_error_nomem();
	int64_t placed = 0;
	for (int64_t m = 0; m < s->nmicros; m++) {
		for (int i = 0; i < n; i++) {
			const tsl_block *b = &g->blocks[order[i]];
			int64_t t = 0;
			for (int j = 0; j < b->ndeps; j++) {
				int64_t r = tsl_entry_at(s, b->deps[j], m)->start +
					    tsl_dep_gap(g, b, j);
				t = r > t ? r : t;
			}
			for (int k = 0; k < b->ndevices; k++)
				t = free_at[b->devices[k]] > t ? free_at[b->devices[k]] : t;
			tsl_entry_at(s, order[i], m)->start = t;
			for (int k = 0; k < b->ndevices; k++)
				free_at[b->devices[k]] = t + b->span;
			if (++placed % 4096 == 0) {
				tsl_charge(dl, 4096 / TSL_VISITS_PER_TICK);
				if (tsl_deadline_hard_passed(dl)) {
					tsl_free(free_at);
					return tsl_error(TESSEL_ETIMEOUT,
							 "time limit reached");
				}
			}
		}
	}
	tsl_free(free_at);
	return TSL_OK;
}

TESSEL_API int tessel_graph_min_memory(int64_t *out, int *out_proven,
				       const tessel_graph *g, int64_t nmicros)
{
	TSL_CHECK_ARG(out, "tessel_graph_min_memory", "out");
	int rc = tsl_graph_check_structure(g);
	if (rc)
		return rc;
	if (nmicros < 1 || nmicros > TESSEL_MAX_MICRO_BATCHES)
		return tsl_error(TESSEL_ERANGE,
				 "tessel_graph_min_memory: micro-batches must be 1 .. %d, got %lld",
				 TESSEL_MAX_MICRO_BATCHES, (long long)nmicros);
	int n = g->nblocks, nd = g->ndevices;
	int *order = tsl_calloc((size_t)n + 1, sizeof *order);
	int *at = tsl_calloc((size_t)nd, sizeof *at);
	int64_t *need = tsl_calloc((size_t)nd, sizeof *need);
	int64_t *lower = tsl_calloc((size_t)nd, sizeof *lower);
	int64_t *net = tsl_calloc((size_t)nd, sizeof *net);
	rc = order && at && need && lower && net
		     ? tsl_serial_order(order, need, g, nmicros)
		     : tsl_error_nomem();
	if (!rc)
		rc = tsl_graph_memory_need(lower, at, g);
	if (!rc) {
		/* what nmicros micro-batches leave behind: a bound too */
		for (int b = 0; b < n; b++)
			for (int k = 0; k < g->blocks[b].ndevices; k++)
				net[g->blocks[b].devices[k]] += g->blocks[b].memory;
		int64_t most = 0, bound = 0;
		for (int d = 0; d < nd; d++) {
			if (net[d] > 0 && net[d] > lower[d] / nmicros)
				lower[d] = net[d] > TSL_NEED_CAP / nmicros
						   ? TSL_NEED_CAP
						   : net[d] * nmicros;
			most = need[d] > most ? need[d] : most;
			bound = lower[d] > bound ? lower[d] : bound;
		}
		if (most > TSL_LIMIT_MAX)
			rc = tsl_error(TESSEL_EINFEASIBLE,
				       "tessel_graph_min_memory: %lld micro-batches one at a "
				       "time need more than any memory limit (%lld)",
				       (long long)nmicros, (long long)TSL_LIMIT_MAX);
		if (!rc) {
			*out = most;
			if (out_proven)
				*out_proven = most <= bound;
		}
	}
	tsl_free(order);
	tsl_free(at);
	tsl_free(need);
	tsl_free(lower);
	tsl_free(net);
	return rc;
}
