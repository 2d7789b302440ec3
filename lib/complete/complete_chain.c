/* Stage: completion, the recognition its pipeline builders share. A
 * placement of the Zero Bubble authors' forms is a chain of stages, each
 * of a forward, a backward and a weight block: the forwards go down the
 * chain, the backwards come back, each weight block after its backward.
 * The H pipeline (complete_hshape.c, one stage per device) and the V
 * pipeline (complete_vshape.c, two stages per device) find the chain
 * here and check its devices themselves. */
#include "complete_chain.h"

#include <string.h>

#include "error.h"
#include "graph.h"
#include "util.h"

/* The successor of block b of `kind` that waits for b alone and is not
 * used yet, or -1. */
static int only_successor(const tessel_graph *g, const tsl_succ *x,
			  const char *used, int b, int kind)
{
	for (int k = x->start[b]; k < x->start[b + 1]; k++) {
		int c = x->block[k];
		if (!used[c] && g->blocks[c].kind == kind && g->blocks[c].ndeps == 1)
			return c;
	}
	return -1;
}

/* The block without a dependency, when it is the only one and a
 * forward, and every block is on one device with at most one
 * dependency; else -1. */
static int chain_head(const tessel_graph *g)
{
	int head = -1;
	for (int b = 0; b < g->nblocks; b++) {
		const tsl_block *y = &g->blocks[b];
		if (y->ndevices != 1 || y->ndeps > 1)
			return -1;
		if (y->ndeps == 0) {
			if (head >= 0 || y->kind != TESSEL_KIND_FORWARD)
				return -1;
			head = b;
		}
	}
	return head;
}

int tsl_chain_stages(int *F, int *Bk, int *W, const tessel_graph *g, int S)
{
	F[0] = chain_head(g);
	if (F[0] < 0)
		return 0;
	tsl_succ x;
	memset(&x, 0, sizeof x);
	char *used = tsl_calloc((size_t)g->nblocks, 1);
	if (!used || tsl_succ_build(&x, g)) {
		tsl_free(used);
		tsl_succ_release(&x);
		return tsl_error_nomem();
	}
	int ok = 1;
	used[F[0]] = 1;
	for (int s = 1; ok && s < S; s++) {
		F[s] = only_successor(g, &x, used, F[s - 1], TESSEL_KIND_FORWARD);
		ok = F[s] >= 0;
		if (ok)
			used[F[s]] = 1;
	}
	for (int s = S - 1; ok && s >= 0; s--) {
		Bk[s] = only_successor(g, &x, used, s == S - 1 ? F[S - 1] : Bk[s + 1],
				       TESSEL_KIND_BACKWARD);
		ok = Bk[s] >= 0;
		if (ok)
			used[Bk[s]] = 1;
	}
	for (int s = 0; ok && s < S; s++) {
		W[s] = only_successor(g, &x, used, Bk[s], TESSEL_KIND_WEIGHT);
		ok = W[s] >= 0;
		if (ok)
			used[W[s]] = 1;
	}
	tsl_free(used);
	tsl_succ_release(&x);
	return ok;
}
