/* Internal: what every stage of a search reads besides its own inputs
 * (tsl_stage: the graph, its bounds, the resolved options and the
 * deadline). The search resolves the options from tessel_options
 * (search_opts.c) and builds a context for each stage it runs
 * (search_graph.c); the stages never include the driver. */
#ifndef TESSEL_STAGE_H
#define TESSEL_STAGE_H

#include <stdint.h>

#include "bounds.h"
#include "budget.h"
#include "graph.h"
#include "schedule.h"
#include "util.h"

/* Resolved search options. */
typedef struct tsl_opts {
	int64_t nmicros;
	int64_t time_limit_ms; /* 0 = none */
	int threads;
	int fast;
	int64_t max_period;    /* 0 = automatic */
	int64_t seed;
	int minimize_depth;
	int64_t solver_memory_mb;
	int max_group;         /* largest k of a repetend of k micro-batches */
	int64_t work_ticks;    /* the work budget (ticks, budget.h); 0: none */
	int work_auto;         /* the default budget: it grows with the graph */
	int work_capped;       /* work_ticks is the default budget cut to a
				* cap (tsl_share.work_cap): the heuristic
				* mode's search beside it gets no more */
	int64_t proof_ticks;   /* > 0 (default budget only): the most the
				* solver's checks below a known period may
				* spend beside the budget (repetend_z3.c) */
	unsigned rlimit_cap;   /* > 0: every solver check gets at most this
				* much of Z3's resource count (the searches
				* of repetends of several micro-batches) */
	int held;              /* the caller holds a schedule already (a
				* search inside the search): the heuristic's
				* search for a first repetend ends at the
				* work bound, as it does once a first
				* schedule exists */
	int first_only;        /* the search ends with its first schedule
				* (tsl_share.first_only) */
	const tessel_options *src; /* for cancellation and progress; may be NULL */
} tsl_opts;

/* The context of one stage: the graph it works on (the placement, or one
 * the driver derived from it: k copies for a repetend of k micro-batches,
 * its memory limits lowered or lifted) with its bounds, the options, and
 * the deadline that ends its work (its share of the work budget, the time
 * limit, a cancel). A stage that completes or improves a schedule works on
 * that schedule's graph (g is it). */
typedef struct tsl_stage {
	const tessel_graph *g;
	const tsl_bounds *bnd;
	const tsl_opts *opts;   /* NULL: the defaults (no cancel, no progress);
				 * the solver's stages need it */
	const tsl_deadline *dl; /* NULL: none */
} tsl_stage;

/* The cancellation and progress source of a stage's options (NULL: none). */
static inline const tessel_options *tsl_stage_src(const tsl_stage *st)
{
	return st->opts ? st->opts->src : NULL;
}

#endif
