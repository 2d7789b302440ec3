/* Stage before every search: the options as the search reads them, and
 * the default work budget (TESSEL_WORK_AUTO) sized by the graph: what
 * one work unit is and how many a search gets is decided here alone
 * (doc/guide.md, "Work budget"). */
#include "search_opts.h"

#include <string.h>
#include <unistd.h>

#include "options.h"

/* The default work budget (tsl_search_auto_budget), in units. */
/* halves: 3 units per instance (2.5 before the completion's ordering
 * passes were charged, TSL_ORDER_ENTRIES_PER_TICK: what a placement whose
 * budget the instances decide gets done stays about the same) */
#define TSL_WORK_PER_INSTANCE 6
#define TSL_WORK_BASE 5000      /* ... up to this */
#define TSL_WORK_PER_KILO 4     /* and so many per 1,000 instances */
#define TSL_WORK_SMALL 1500     /* the base up to 8 devices ... */
#define TSL_WORK_PER_DEVICE 250 /* ... and so much more a device above */

void tsl_search_resolve(tsl_opts *o, const tessel_options *opts)
{
	tessel_options defaults;
	memset(o, 0, sizeof *o);
	o->src = opts;
	if (!opts) {
		tsl_options_defaults(&defaults);
		opts = &defaults;
	}
	o->nmicros = opts->value[TESSEL_OPT_MICRO_BATCHES];
	o->time_limit_ms = opts->value[TESSEL_OPT_TIME_LIMIT_MS];
	o->threads = (int)opts->value[TESSEL_OPT_THREADS];
	o->fast = (int)opts->value[TESSEL_OPT_FAST];
	o->max_period = opts->value[TESSEL_OPT_MAX_PERIOD];
	o->seed = opts->value[TESSEL_OPT_SEED];
	o->minimize_depth = (int)opts->value[TESSEL_OPT_MINIMIZE_DEPTH];
	o->solver_memory_mb = opts->value[TESSEL_OPT_SOLVER_MEMORY_MB];
	o->max_group = (int)opts->value[TESSEL_OPT_REPETEND_MICRO_BATCHES];
	o->work_ticks = opts->value[TESSEL_OPT_WORK_LIMIT] * TSL_TICKS_PER_UNIT;
	o->work_auto = opts->value[TESSEL_OPT_WORK_LIMIT] == TESSEL_WORK_AUTO;
	if (o->work_auto)
		o->work_ticks = TSL_WORK_BASE * TSL_TICKS_PER_UNIT;
}

/* The default budget of a search of g (TESSEL_WORK_AUTO, tessel.h), in
 * units: TSL_WORK_PER_INSTANCE / 2 per instance up to TSL_WORK_BASE, plus
 * TSL_WORK_PER_KILO per 1,000 instances; in heuristic mode a fifth of the
 * first and a quarter of the second. */
/* The least work the period proof of a search under the default budget
 * may spend beside the budget. */
#define TSL_PROOF_MIN_UNITS 1000

void tsl_search_auto_budget(tsl_opts *o, const tessel_graph *g)
{
	if (!o->work_auto)
		return;
	int64_t instances = (int64_t)g->nblocks * o->nmicros;
	int64_t first = instances * TSL_WORK_PER_INSTANCE / 2, base = TSL_WORK_BASE;
	/* few devices: a smaller base (TSL_WORK_SMALL up to 8 devices,
	 * growing by TSL_WORK_PER_DEVICE a device up to TSL_WORK_BASE) */
	int64_t small = TSL_WORK_SMALL +
			(g->ndevices > 8 ? (int64_t)(g->ndevices - 8) * TSL_WORK_PER_DEVICE : 0);
	int64_t per_kilo = TSL_WORK_PER_KILO;
	if (o->fast) { /* (the heuristics' own fifth, whatever the devices) */
		first /= 5;
		base /= 5;
		per_kilo /= 4;
	} else if (small < base) {
		base = small;
	}
	o->work_ticks = ((first < base ? first : base) + instances / 1000 * per_kilo) *
			TSL_TICKS_PER_UNIT;
	if (o->work_ticks < TSL_TICKS_PER_UNIT)
		o->work_ticks = TSL_TICKS_PER_UNIT;
	/* a cap on the default budget (a share of a larger one: the whole
	 * search beside the tiles, search_extend.c) */
	if (o->src && o->src->work_cap > 0 &&
	    o->work_ticks > o->src->work_cap * TSL_TICKS_PER_UNIT) {
		o->work_ticks = o->src->work_cap * TSL_TICKS_PER_UNIT;
		o->work_capped = 1;
	}
	/* the period proof beside it: on up to 8 devices as much again, at
	 * least TSL_PROOF_MIN_UNITS; on more, TSL_PROOF_MIN_UNITS (there a
	 * proof seldom succeeds with more, and the time goes to the other
	 * phases: a placement of 29 devices spent 5,044 units, 4 s, proving
	 * nothing) */
	int64_t least = TSL_PROOF_MIN_UNITS * TSL_TICKS_PER_UNIT;
	o->proof_ticks = g->ndevices <= 8 && o->work_ticks > least ? o->work_ticks : least;
}

void tsl_search_opts(tsl_opts *o, const tessel_graph *g,
		     const tessel_options *options)
{
	tsl_search_resolve(o, options);
	tsl_search_auto_budget(o, g);
}

int tsl_search_threads(const tsl_opts *o, int jobs)
{
	long n = o->threads;
	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n < jobs ? (int)n : jobs;
}
