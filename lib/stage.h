/* Internal: what every stage of a search reads besides the graph, the
 * bounds and its deadline: the resolved options (the driver, search.c,
 * resolves them from tessel_options; the stages never include the
 * driver). */
#ifndef TESSEL_STAGE_H
#define TESSEL_STAGE_H

#include <stdint.h>

#include "bounds.h"
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
	int64_t proof_ticks;   /* > 0 (default budget only): the most the
				* solver's checks below a known period may
				* spend beside the budget (repetend_z3.c) */
	unsigned rlimit_cap;   /* > 0: every solver check gets at most this
				* much of Z3's resource count (the searches
				* of repetends of several micro-batches) */
	const tessel_options *src; /* for cancellation and progress; may be NULL */
} tsl_opts;

#endif
