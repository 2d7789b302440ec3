/* The smallest memory limit under which a repetend of a given period
 * exists (tessel_min_memory): the heuristic's repetend without limits
 * gives a limit that works, the memory-aware search (repetend_dfs.c)
 * lowers it by bisection, and the solver (repetend_z3.c) looks below it
 * and proves the result when it can. Not a stage of tessel_search: a
 * question of its own about a placement, answered with the search's
 * parts under the options' time limit and work budget. */
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "error.h"
#include "graph.h"
#include "options.h"
#include "repetend.h"
#include "repetend_dfs.h"
#include "repetend_heuristic.h"
#include "repetend_z3.h"
#include "search_opts.h"
#include "stage.h"
#include "util.h"

/* Work bound of each probe of the memory-aware search in min_memory
 * (units of repetend_dfs.c): 62.5 work units (62,500 ticks). */
#define TSL_DFS_PROBE_BUDGET ((int64_t)62500 * TSL_DFS_UNITS_PER_TICK)

/* Lower a uniform memory limit `known` that admits period P with the
 * memory-aware search: bisection between 0 and known, each probe a search
 * of graph `work` with its limits set to the probe (a probe that finds
 * nothing counts as too low: this only chooses where the solver starts). */
static int descend_with_dfs(int64_t *known, tessel_graph *work,
			    const tsl_bounds *bnd, int64_t P, int64_t *T,
			    const tsl_opts *o, const tsl_deadline *dl)
{
	int64_t lo = 0, hi = *known;
	tsl_repetend rep = {.T = T};
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2, peak = 0;
		int found = 0;
		int rc = tessel_graph_set_memory_limit(work, TESSEL_ALL_DEVICES, mid);
		tsl_stage st = {work, bnd, o, dl};
		if (!rc)
			rc = tsl_repetend_dfs(&rep, &found, &st, NULL, P,
					      TSL_DFS_PROBE_BUDGET);
		if (rc)
			return rc;
		if (!found && (tsl_deadline_left_ms(dl) <= 0 ||
			       tsl_options_cancelled(o->src)))
			break; /* out of time: keep what is known */
		if (!found) {
			lo = mid + 1;
			continue;
		}
		for (int d = 0; d < work->ndevices; d++) {
			int64_t p;
			rc = tsl_repetend_peak(&p, work, bnd, T, P, d);
			if (rc)
				return rc;
			if (p > peak)
				peak = p;
		}
		hi = peak < mid ? peak : mid;
	}
	*known = hi;
	return TSL_OK;
}

/* The heuristic's repetend (memory ignored) gives a limit that works when
 * its period is the one asked for, the memory-aware search a lower one;
 * the solver then looks below it. */
static int min_memory(int64_t *out, int *proven, const tessel_graph *g,
		      const tsl_bounds *bnd, int64_t period, const tsl_opts *o,
		      const tsl_deadline *dl)
{
	tessel_graph *free_g = NULL;
	tsl_repetend rep = {0};
	int64_t known = 0;
	int rc = tessel_graph_dup(&free_g, g);
	if (!rc)
		rc = tessel_graph_set_memory_limit(free_g, TESSEL_ALL_DEVICES,
						   TESSEL_UNLIMITED);
	rep.T = tsl_calloc((size_t)g->nblocks, sizeof *rep.T);
	if (!rc && !rep.T)
		rc = tsl_error_nomem();
	tsl_stage unlimited = {free_g, bnd, o, dl};
	if (!rc && tsl_repetend_heuristic(&rep, NULL, &unlimited, 0, 0) == TSL_OK &&
	    rep.period == period) {
		for (int d = 0; d < g->ndevices && !rc; d++) {
			int64_t p = 0;
			rc = tsl_repetend_peak(&p, g, bnd, rep.T, period, d);
			if (p > known)
				known = p;
		}
		if (!rc && known == 0) { /* nothing to store: 0 is the minimum */
			*out = 0;
			*proven = 1;
			tsl_repetend_release(&rep);
			tessel_graph_free(free_g);
			return TSL_OK;
		}
		if (!rc)
			rc = descend_with_dfs(&known, free_g, bnd, period, rep.T, o, dl);
	}
	tsl_repetend_release(&rep);
	tessel_graph_free(free_g);
	if (rc)
		return rc;
	tsl_stage st = {g, bnd, o, dl};
	return tsl_min_memory_z3(out, proven, &st, period, known);
}

TESSEL_API int tessel_min_memory(int64_t *out, int *out_proven,
				 const tessel_graph *g, int64_t period,
				 const tessel_options *options)
{
	TSL_CHECK_ARG(out, "tessel_min_memory", "out");
	int rc = tsl_graph_check_structure(g);
	if (rc)
		return rc;
	if (period < 0)
		return tsl_error(TESSEL_ERANGE, "period must be >= 0, got %lld",
				 (long long)period);
	/* a device each micro-batch leaves memory on holds more with every
	 * repetition of a repetend: none holds under any limit */
	for (int d = 0; d < g->ndevices; d++) {
		int64_t net = 0; /* at most 10^6 blocks of |memory| <= 10^9 */
		for (int v = 0; v < g->nblocks; v++)
			if (tsl_block_on_device(&g->blocks[v], d))
				net += g->blocks[v].memory;
		if (net > 0)
			return tsl_error(TESSEL_EINFEASIBLE,
					 "device %d: each micro-batch leaves %lld of memory behind "
					 "(its blocks' memory changes add up to it), so a repetend "
					 "holds more at every repetition: none fits any limit "
					 "(tessel_graph_min_memory gives the limit for a number of "
					 "micro-batches)",
					 d, (long long)net);
	}
	tsl_opts o;
	tsl_search_resolve(&o, options);
	tsl_meter meter = {0};
	tsl_deadline dl = {tsl_now_us(), 0, 0, tsl_options_stop_flag(o.src),
			   &meter, o.work_ticks, 0, tsl_graph_visit_weight(g), 0};
	if (o.time_limit_ms)
		dl.end_us = dl.hard_us = dl.start_us + o.time_limit_ms * 1000;
	tsl_bounds bnd;
	rc = tsl_bounds_compute(&bnd, g);
	if (rc)
		return rc;
	if (period == 0)
		period = bnd.resource_bound;
	/* one micro-batch run a block at a time, in the order of any
	 * schedule's starts, holds what that schedule holds on every device
	 * and takes at most the spans and latencies summed: from that period
	 * on nothing changes (and a period as large as the caller likes
	 * stays within the model's arithmetic) */
	int64_t sequential = bnd.total_span;
	for (int b = 0; b < g->nblocks; b++)
		for (int j = 0; j < g->blocks[b].ndeps; j++)
			sequential += tsl_dep_latency(g, &g->blocks[b], j);
	if (period > sequential && sequential >= bnd.resource_bound)
		period = sequential;
	int proven = 0;
	int64_t value = 0;
	if (period < bnd.resource_bound)
		rc = tsl_error(TESSEL_EINFEASIBLE,
			       "period %lld is below the resource bound %lld",
			       (long long)period, (long long)bnd.resource_bound);
	else
		rc = min_memory(&value, &proven, g, &bnd, period, &o, &dl);
	tsl_bounds_release(&bnd);
	if (rc)
		return rc;
	*out = value;
	if (out_proven)
		*out_proven = proven;
	return TSL_OK;
}
