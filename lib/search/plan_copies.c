/* Stage: plans whose choices differ between the micro-batches of a
 * repetend of k (a stage of the search over alternatives, alternatives.c).
 * Contract: a plan per (block, micro-batch mod k) is searched as the plain
 * search of the graph of k copies of the placement with each copy's
 * choices applied (tsl_plan_graph_k), k micro-batches as one; its
 * schedule is mapped back to the placement's micro-batches with the
 * choices per instance (tsl_plan_schedule_k). Where a recompute in every
 * micro-batch costs more steps than the period has room for, recomputing
 * in every other one can still free enough memory: a period per
 * micro-batch between the plans' (e.g. 6.5 between 6 and 7). */
#include "plan_copies.h"

#include <string.h>

#include "error.h"
#include "repetend_group.h"
#include "schedule_alt.h"
#include "util.h"

int tsl_plan_graph_k(tessel_graph **out, const tessel_graph *g,
		     const tsl_plan *p)
{
	int n = g->nblocks;
	tessel_graph *d = NULL;
	*out = NULL;
	int rc = tsl_graph_copies(&d, g, p->k);
	for (int j = 0; j < p->k && !rc; j++)
		for (int f = 0; f < n; f++) {
			const tsl_block *B = &g->blocks[f];
			if (p->choice[(size_t)j * (size_t)n + (size_t)f] !=
				    TESSEL_CHOICE_RECOMPUTE ||
			    B->rc_backward < 0)
				continue;
			int back = j * n + B->rc_backward;
			d->blocks[j * n + f].memory -= B->rc_saves;
			d->blocks[back].memory += B->rc_saves;
			d->blocks[back].span += B->rc_extra;
			d->blocks[back].duration = 0;
		}
	if (rc) {
		tessel_graph_free(d);
		return rc;
	}
	*out = d;
	return TSL_OK;
}

int tsl_plan_schedule_k(tessel_schedule **out, const tessel_graph *g,
			const tessel_schedule *ds, const tsl_plan *p,
			int64_t nmicros)
{
	int n = g->nblocks, k = p->k;
	tessel_schedule *s = NULL;
	*out = NULL;
	if (k < 1 || ds->nmicros * k < nmicros ||
	    ds->graph->nblocks != k * n)
		return tsl_error(TESSEL_ERROR,
				 "the plan's schedule does not hold the placement's micro-batches");
	int rc = tsl_schedule_alloc(&s, g, nmicros);
	if (rc)
		return rc;
	for (int64_t m = 0; m < nmicros && !rc; m++) {
		int64_t dm = m / k;
		int j = (int)(m % k);
		for (int b = 0; b < n && !rc; b++) {
			const struct tessel_entry *e = tsl_entry_at(ds, j * n + b, dm);
			tsl_entry_at(s, b, m)->start = e->start;
			tsl_entry_at(s, b, m)->phase = e->phase;
			if (p->choice[(size_t)j * (size_t)n + (size_t)b] ==
				    TESSEL_CHOICE_RECOMPUTE &&
			    g->blocks[b].rc_backward >= 0)
				rc = tsl_schedule_choose(s, b, m, TESSEL_CHOICE_RECOMPUTE,
							 -1, -1);
		}
	}
	if (rc) {
		tessel_schedule_free(s);
		return rc;
	}
	/* the repetend: ds's (its steps), of k times its micro-batches */
	int64_t dk = ds->rep_k > 1 ? ds->rep_k : 1;
	int64_t end = tsl_schedule_makespan(s);
	s->period = ds->period;
	s->rep_k = dk * k;
	s->rep_begin = ds->rep_begin < end ? ds->rep_begin : end;
	s->rep_end = ds->rep_end < end ? ds->rep_end : end;
	s->depth = ds->depth;
	s->resource_bound = 0; /* the placement's, figured when asked */
	s->lower_bound = ds->lower_bound;
	*out = s;
	return TSL_OK;
}
