/* What the progress callbacks of a search are told, for every stage of
 * it: the phase that begins and each better schedule, with the work spent
 * and the time since the search began (progress.c calls them). */
#include "search_progress.h"

#include "error.h"
#include "options.h"
#include "progress.h"
#include "util.h"

/* Tell the progress callbacks (none for a search inside the search);
 * TSL_OK, or TESSEL_ECANCELLED when one asked to stop. */
int tsl_shown_report(tsl_shown *sh, const tsl_opts *o, int improved)
{
	const tessel_options *src = o->src;
	if (sh && sh->halted)
		return tsl_error(TESSEL_ECANCELLED,
				 "the search was stopped by its progress callback");
	if (!sh || !src || (!src->progress && !src->progress_fn))
		return TSL_OK;
	tessel_progress p = {
		.phase = sh->phase ? sh->phase : "list",
		.improved = improved,
		.period = sh->period,
		.k = sh->k,
		.makespan = sh->makespan,
		.lower_bound = sh->lower_bound,
		.work = tsl_work_used(sh->dl) / TSL_TICKS_PER_UNIT,
		.work_limit = o->work_ticks / TSL_TICKS_PER_UNIT,
		.us = tsl_now_us() - sh->dl->start_us,
		.proven = sh->proven,
	};
	int rc = tsl_progress_report(src, &p);
	sh->halted = rc == TESSEL_ECANCELLED;
	return rc;
}

/* A phase begins. */
int tsl_shown_phase(tsl_shown *sh, const tsl_opts *o, const char *phase)
{
	if (!sh)
		return TSL_OK;
	sh->phase = phase;
	return tsl_shown_report(sh, o, 0);
}
