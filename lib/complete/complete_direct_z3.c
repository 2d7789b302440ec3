/* Direct scheduling of all N micro-batches with Z3, for small instances:
 * complete_model_z3.c's model of the whole problem (every instance free,
 * nothing kept, no neighbourhood: one start per (block, micro-batch), each
 * at least its block's head and its dependencies' finish plus their
 * latency, one ordering literal per pair of instances sharing a device,
 * memory after each positive start as the sum of the deltas ordered before
 * it), the makespan lowered step by step below a known schedule's. Where a steady state hardly exists
 * (small N), this can beat any completed repetend. Nothing is tried past
 * the deadline; every check stops at it with the best schedule so far. */
#include <stdlib.h>
#include <string.h>

#include "complete_direct_z3.h"
#include "complete_model_z3.h"
#include "error.h"
#include "options.h"
#include "stage.h"
#include "util.h"

/* Work bound (Z3 resource units) of each step. */
#define TSL_DIRECT_RLIMIT 500000u
/* Largest problems tried: instances and device-sharing pairs. */
#define TSL_DIRECT_MAX_INSTANCES 160
#define TSL_DIRECT_MAX_PAIRS 8000
/* ... and micro-batches: beyond, the steady state dominates. */
#define TSL_DIRECT_MAX_MICROS 8

int tsl_direct_z3(tessel_schedule *s, int *proven, const tsl_stage *st)
{
	const tessel_graph *g = s->graph;
	const tsl_bounds *bnd = st->bnd;
	const tsl_opts *opts = st->opts;
	const tsl_deadline *dl = st->dl;
	size_t E = (size_t)g->nblocks * (size_t)s->nmicros;
	int64_t best = tsl_schedule_makespan(s);
	int64_t lb = tsl_bounds_lower(bnd, s->nmicros);
	*proven = best <= lb;
	if (E > TSL_DIRECT_MAX_INSTANCES || s->nmicros > TSL_DIRECT_MAX_MICROS ||
	    best <= lb || tsl_deadline_left_ms(dl) <= 0)
		return TSL_OK;
	/* instance pairs that share a device: a literal each */
	size_t npairs = 0;
	for (size_t i = 0; i < E; i++)
		for (size_t j = i + 1; j < E; j++)
			if (tsl_blocks_share_device(&g->blocks[i % g->nblocks],
						    &g->blocks[j % g->nblocks]) &&
			    ++npairs > TSL_DIRECT_MAX_PAIRS)
				return TSL_OK; /* too large to be worth it */
	/* the whole problem: nothing kept, anywhere */
	tsl_problem p = {.g = g, .nmicros = s->nmicros, .n = E,
			 .tail = bnd->tail, .whole = bnd};
	p.start = tsl_calloc(E, sizeof *p.start);
	p.room = tsl_calloc((size_t)g->ndevices, sizeof *p.room);
	size_t *all = tsl_calloc(E, sizeof *all);
	int64_t *found = tsl_calloc(E, sizeof *found);
	int rc = !p.start || !p.room || !all || !found ? tsl_error_nomem() : TSL_OK;
	for (size_t i = 0; i < E && !rc; i++) {
		p.start[i] = s->entries[i].start;
		all[i] = i;
	}
	for (int d = 0; d < g->ndevices && !rc; d++)
		p.room[d] = g->memory_limit[d] == TESSEL_UNLIMITED ? INT64_MAX
								   : g->memory_limit[d];
	/* below the makespan `best`, at least LB(N) */
	int improved = 0;
	int64_t lo = lb;
	if (!rc)
		rc = tsl_problem_lower(&improved, &best, &lo, found, &p, all, E,
				       opts, TSL_DIRECT_RLIMIT, NULL, dl);
	*proven = best <= lo;
	if (!rc && improved) {
		/* (a model kept when the search stopped early may begin
		 * after step 0: from step 0) */
		int64_t first = INT64_MAX;
		for (size_t i = 0; i < E; i++)
			if (found[i] < first)
				first = found[i];
		if (first == INT64_MAX || first < 0)
			first = 0;
		for (size_t i = 0; i < E; i++)
			s->entries[i].start = found[i] - first;
	}
	tsl_free(p.start);
	tsl_free(p.room);
	tsl_free(all);
	tsl_free(found);
	return rc;
}
