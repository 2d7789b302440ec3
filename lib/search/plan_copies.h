/* Internal: plans whose choices differ between the micro-batches of a
 * repetend of k (plan_copies.c), a stage of the search over alternatives. */
#ifndef TESSEL_PLAN_COPIES_H
#define TESSEL_PLAN_COPIES_H

#include <stdint.h>

#include "graph.h"
#include "schedule.h"

/* A plan of choices per (block, micro-batch mod k): the recompute of
 * block b in micro-batches m = j mod k when choice[j nblocks + b] is
 * TESSEL_CHOICE_RECOMPUTE (keep otherwise). */
typedef struct tsl_plan {
	int k;
	signed char *choice; /* k * nblocks */
} tsl_plan;

/* The graph of p->k copies of g (tsl_graph_copies: copy j of block b is
 * block j nblocks + b) with p's recomputes applied: the forward keeps its
 * memory less the saves, its backward takes them back and runs its extra
 * steps. *out: new (tessel_graph_free). */
int tsl_plan_graph_k(tessel_graph **out, const tessel_graph *g,
		     const tsl_plan *p);

/* The schedule of g's `nmicros` micro-batches from ds, a schedule of the
 * plan's graph (k micro-batches as one; ds->nmicros * k >= nmicros):
 * micro-batch m is copy m mod k of ds's micro-batch m / k, recomputed as
 * the plan says; ds's later micro-batches are dropped. Not checked (the
 * caller relaxes and validates it). *out: new (tessel_schedule_free). */
int tsl_plan_schedule_k(tessel_schedule **out, const tessel_graph *g,
			const tessel_schedule *ds, const tsl_plan *p,
			int64_t nmicros);

#endif
