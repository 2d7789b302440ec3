/* Internal: progress reports of a search (progress.c): what the
 * callbacks of tessel_options_set_progress and
 * tessel_options_set_progress_fn receive. */
#ifndef TESSEL_PROGRESS_H
#define TESSEL_PROGRESS_H

#include <stdint.h>

#include "tessel.h"

struct tessel_progress {
	const char *phase;   /* static */
	int improved;        /* 1: a better schedule, 0: a new phase */
	int64_t period, k, makespan, lower_bound, work, work_limit, us;
	int proven;
};

/* Call the callbacks of `o` (may be NULL) with p: the event callback
 * always, the figures' callback (tessel_options_set_progress) when p is
 * an improvement. TESSEL_OK, or TESSEL_ECANCELLED (with the message) when
 * a callback asked to stop. */
int tsl_progress_report(const tessel_options *o, const tessel_progress *p);

/* Whether o has a progress callback (what a report would call). */
int tsl_progress_wanted(const tessel_options *o);

#endif
