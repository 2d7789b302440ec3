/* Stages around the search of a dense graph (tsl_search_plain): before
 * it, the dependencies that a path of others implies are dropped (a
 * transitive reduction), since every step of the search walks a block's
 * dependencies and a dense graph's are mostly implied (1,500 blocks of 375
 * dependencies each keep a few a block); after it, the schedule goes back
 * onto the graph as given and is validated there.
 *
 * A dependency a -> c is implied by a path a -> b -> ... -> c when every
 * latency is the graph's own: each hop waits for its producer's span (at
 * least 1) and, where the consumer occupies a device its producer does not,
 * the latency; if c occupies a device a does not, some hop of the path
 * goes to a device its producer does not occupy and waits the latency, so
 * the path waits at least what a -> c does. A graph with a dependency of
 * its own latency is left as it is. Removing implied dependencies changes
 * neither the schedules that are valid nor the bounds (critical paths). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "search_deps.h"
#include "util.h"
#include "validate.h"

typedef struct ranked_dep {
	int pos; /* the producer's position in the topological order */
	int j;   /* the dependency's index */
} ranked_dep;

/* Latest producer first. */
static int cmp_ranked(const void *x, const void *y)
{
	const ranked_dep *a = x, *b = y;
	return (a->pos < b->pos) - (a->pos > b->pos);
}

static int reducible(const tessel_graph *g)
{
	int64_t n = g->nblocks, deps = 0;
	if (n < 3 || n > TSL_REDUCE_MAX_BLOCKS)
		return 0;
	for (int b = 0; b < g->nblocks; b++) {
		const tsl_block *B = &g->blocks[b];
		deps += B->ndeps;
		for (int j = 0; j < B->ndeps; j++)
			if (B->deplat[j] >= 0)
				return 0;
	}
	return deps > n * TSL_PLAIN_DEPS;
}

/* Blocks in topological order; each one's ancestors (a bit each) are the
 * union of its kept producers' and theirs: a producer already among them,
 * taken from the latest producer on, is implied by another. */
int tsl_deps_reduce(tessel_graph **out, const tessel_graph *g)
{
	*out = NULL;
	if (!reducible(g))
		return TSL_OK;
	int n = g->nblocks, maxdeps = 0;
	size_t words = ((size_t)n + 63) / 64;
	for (int b = 0; b < n; b++)
		if (g->blocks[b].ndeps > maxdeps)
			maxdeps = g->blocks[b].ndeps;
	int *order = tsl_calloc((size_t)n, sizeof *order);
	int *pos = tsl_calloc((size_t)n, sizeof *pos);
	uint64_t *anc = tsl_calloc((size_t)n * words, sizeof *anc);
	ranked_dep *rk = tsl_calloc((size_t)maxdeps + 1, sizeof *rk);
	char *keep = tsl_calloc((size_t)maxdeps + 1, 1);
	tessel_graph *r = NULL;
	int rc = !order || !pos || !anc || !rk || !keep ? tsl_error_nomem() : TSL_OK;
	if (!rc)
		rc = tsl_graph_topo_order(order, g);
	if (!rc)
		rc = tessel_graph_dup(&r, g);
	int64_t dropped = 0;
	for (int k = 0; k < n && !rc; k++)
		pos[order[k]] = k;
	for (int k = 0; k < n && !rc; k++) {
		int v = order[k];
		tsl_block *B = &r->blocks[v];
		uint64_t *mine = anc + (size_t)v * words;
		for (int j = 0; j < B->ndeps; j++)
			rk[j] = (ranked_dep){pos[B->deps[j]], j};
		qsort(rk, (size_t)B->ndeps, sizeof *rk, cmp_ranked);
		for (int i = 0; i < B->ndeps; i++) {
			int u = B->deps[rk[i].j];
			keep[rk[i].j] = !((mine[u / 64] >> (u % 64)) & 1);
			if (!keep[rk[i].j])
				continue;
			const uint64_t *theirs = anc + (size_t)u * words;
			for (size_t w = 0; w < words; w++)
				mine[w] |= theirs[w];
			mine[u / 64] |= (uint64_t)1 << (u % 64);
		}
		/* the kept ones in their own order */
		int m = 0;
		for (int j = 0; j < B->ndeps; j++) {
			if (!keep[j]) {
				r->blocks[B->deps[j]].nsucc--;
				dropped++;
				continue;
			}
			B->deps[m] = B->deps[j];
			B->deplat[m] = B->deplat[j];
			B->deptime[m] = B->deptime[j];
			m++;
		}
		B->ndeps = m;
	}
	tsl_free(order);
	tsl_free(pos);
	tsl_free(anc);
	tsl_free(rk);
	tsl_free(keep);
	if (rc || dropped == 0) {
		tessel_graph_free(r);
		return rc;
	}
	*out = r;
	return TSL_OK;
}

int tsl_deps_restore(tessel_schedule **s, const tessel_graph *g)
{
	tessel_schedule *t = NULL;
	int rc = tsl_schedule_copy_onto(&t, *s, g);
	if (!rc)
		rc = tessel_schedule_validate(t);
	if (rc) {
		tessel_schedule_free(t);
		return rc;
	}
	tessel_schedule_free(*s);
	*s = t;
	return TSL_OK;
}
