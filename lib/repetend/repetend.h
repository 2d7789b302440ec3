/* Internal: the repetend: starts of one or more micro-batches repeated
 * every period, its steady-state memory (repetend.c), and the callback
 * that receives candidates. */
#ifndef TESSEL_REPETEND_H
#define TESSEL_REPETEND_H

#include <stdint.h>

#include "bounds.h"
#include "graph.h"

/* A repetend as a modulo schedule of k micro-batches (k = 1 unless said):
 * micro-batch m = i k + j of block b starts at T[j * nblocks + b] + i *
 * period, for j = 0 .. k-1. k = 1: micro-batch m at T[b] + m * period. */
typedef struct tsl_repetend {
	int64_t period;
	int64_t *T;       /* k * nblocks entries, min T == 0 */
	int64_t depth;    /* max T + span */
	int optimal;      /* period proven minimal (for these k) */
	int k;            /* micro-batches per repetition; 0 means 1 */
} tsl_repetend;

void tsl_repetend_release(tsl_repetend *r);

/* A block's position on the circle of a period (its residue T mod P), for
 * sorting a device's blocks by position. */
typedef struct tsl_residue {
	int64_t r;
	int b;
} tsl_residue;

/* qsort comparator of tsl_residue: by residue, then by block. */
int tsl_residue_cmp(const void *x, const void *y);

/* Steady-state peak memory of device d for starts T (one per block of g,
 * T >= 0) at period P, the formula of repetend_z3.c, into *out: the
 * heuristics, the tightening and the driver check a repetend's memory
 * with it. TESSEL_ENOMEM. */
int tsl_repetend_peak(int64_t *out, const tessel_graph *g,
		      const tsl_bounds *bnd, const int64_t *T, int64_t P, int d);

/* k of a repetend (at least 1). */
static inline int tsl_repetend_k(const tsl_repetend *r)
{
	return r->k > 1 ? r->k : 1;
}

/* The periodic start of micro-batch m of block b (of n blocks). */
static inline int64_t tsl_periodic_start(const tsl_repetend *r, int n, int b,
					 int64_t m)
{
	int k = tsl_repetend_k(r);
	return r->T[(size_t)(m % k) * (size_t)n + (size_t)b] + (m / k) * r->period;
}


/* Receives each candidate repetend a search finds; returns TESSEL_OK to go
 * on or an error code to stop the search with it. */
typedef int (*tsl_candidate_fn)(const tsl_repetend *rep, void *payload);

#endif
