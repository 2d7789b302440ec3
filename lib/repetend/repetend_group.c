/* Repetends of several micro-batches.
 *
 * A repetend that holds k micro-batches, each block once per micro-batch,
 * is a repetend of the graph of k independent copies of the placement:
 * copy j of block b is block j n + b of that graph, and micro-batch
 * m = i k + j of b runs as repetition i of copy j. So the heuristics, the
 * memory-aware search and the solver find such repetends unchanged, with
 * period P_k for k micro-batches (P_k / k per micro-batch), proven minimal
 * for that k when the solver proves it; the completion reads them through
 * tsl_periodic_start. Where memory forces the one-micro-batch period above
 * the resource bound, P_k / k can be smaller; where the warm-up of a
 * one-micro-batch repetend leaves idle steps (interleaved pipelines), the
 * start of a k-repetend can be tighter. */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "repetend.h"
#include "repetend_group.h"
#include "util.h"

int tsl_graph_copies(tessel_graph **out, const tessel_graph *g, int k)
{
	tessel_graph *c = NULL;
	int n = g->nblocks;
	*out = NULL;
	int rc = tessel_graph_new(&c, g->ndevices);
	for (int j = 0; j < k && !rc; j++)
		for (int b = 0; b < n && !rc; b++) {
			const tsl_block *B = &g->blocks[b];
			/* names only need to be unique: "#" and the copy */
			size_t len = strlen(B->name) + 16;
			char *name = tsl_malloc(len);
			if (!name) {
				rc = tsl_error_nomem();
				break;
			}
			snprintf(name, len, "%s#%d", B->name, j);
			rc = tessel_graph_add_block(NULL, c, name, (tessel_kind)B->kind,
						    B->span, B->memory);
			tsl_free(name);
			if (!rc)
				rc = tessel_graph_place(c, j * n + b, B->devices,
							(size_t)B->ndevices);
		}
	for (int j = 0; j < k && !rc; j++)
		for (int b = 0; b < n && !rc; b++) {
			const tsl_block *B = &g->blocks[b];
			/* g is valid: its copies' dependencies need no
			 * look for duplicates or cycles */
			for (int i = 0; i < B->ndeps && !rc; i++)
				rc = tsl_graph_add_dep_known(c, j * n + B->deps[i], j * n + b,
							     B->deplat[i] >= 0 ? B->deplat[i] : -1);
		}
	if (!rc)
		rc = tessel_graph_set_latency(c, g->latency);
	for (int d = 0; d < g->ndevices && !rc; d++)
		rc = tessel_graph_set_memory_limit(c, d, g->memory_limit[d]);
	if (rc) {
		tessel_graph_free(c);
		return rc;
	}
	*out = c;
	return TSL_OK;
}

int tsl_repetend_replicate(tsl_repetend *out, const tsl_repetend *one, int n,
			   int k)
{
	int64_t *T = tsl_reallocarray(NULL, (size_t)k * (size_t)n, sizeof *T);
	if (!T)
		return tsl_error_nomem();
	for (int j = 0; j < k; j++)
		for (int b = 0; b < n; b++)
			T[(size_t)j * (size_t)n + (size_t)b] = one->T[b] + j * one->period;
	tsl_free(out->T);
	out->T = T;
	out->period = one->period * k;
	out->depth = one->depth + (k - 1) * one->period;
	out->optimal = 0;
	out->k = k;
	return TSL_OK;
}
