/* The repetend: what every stage of a search passes on, and its
 * steady-state memory. */
#include "repetend.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "util.h"

void tsl_repetend_release(tsl_repetend *r)
{
	tsl_free(r->T);
	memset(r, 0, sizeof *r);
}

int tsl_residue_cmp(const void *x, const void *y)
{
	const tsl_residue *a = x, *b = y;
	if (a->r != b->r)
		return (a->r > b->r) - (a->r < b->r);
	return (a->b > b->b) - (a->b < b->b);
}

/* Steady-state memory (the formula of repetend_z3.c): just after block c
 * on d starts, sum over blocks b on d of mem_b ([r_b <= r_c] - q_b); the
 * peak over the blocks c that take memory. A sweep over d's blocks sorted
 * by residue. */
int tsl_repetend_peak(int64_t *out, const tessel_graph *g,
		      const tsl_bounds *bnd, const int64_t *T, int64_t P, int d)
{
	int lo = bnd->dev_start[d], hi = bnd->dev_start[d + 1];
	tsl_residue *k = tsl_calloc((size_t)(hi - lo) + 1, sizeof *k);
	if (!k)
		return tsl_error_nomem();
	int nk = 0;
	int64_t run = 0;
	for (int x = lo; x < hi; x++) {
		int b = bnd->dev_block[x];
		const tsl_block *B = &g->blocks[b];
		if (B->memory == 0)
			continue;
		k[nk] = (tsl_residue){T[b] % P, b};
		run -= (int64_t)B->memory * (T[b] / P);
		nk++;
	}
	qsort(k, (size_t)nk, sizeof *k, tsl_residue_cmp);
	int64_t peak = 0;
	for (int i = 0; i < nk;) {
		int j = i, alloc = 0;
		for (; j < nk && k[j].r == k[i].r; j++) {
			int64_t mem = g->blocks[k[j].b].memory;
			run += mem;
			alloc |= mem > 0;
		}
		if (alloc && run > peak)
			peak = run;
		i = j;
	}
	tsl_free(k);
	*out = peak;
	return TSL_OK;
}
