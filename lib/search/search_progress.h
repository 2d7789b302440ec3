/* Internal: what the progress callbacks of one tessel_search were told,
 * and the reports that tell them (search_progress.c). */
#ifndef TESSEL_SEARCH_PROGRESS_H
#define TESSEL_SEARCH_PROGRESS_H

#include <stdint.h>

#include "stage.h"

/* What the progress callbacks were last told: the phase and the best
 * schedule, for one tessel_search call. */
typedef struct tsl_shown {
	const char *phase;
	int64_t period, k, makespan, lower_bound;
	int proven;
	const tsl_deadline *dl;    /* its start and the work spent */
	int halted;                /* a callback asked to stop: no more calls */
} tsl_shown;

/* Tell the progress callbacks of o (none when sh is NULL: a search
 * inside the search) sh's figures, `improved` 1 for a better schedule, 0
 * for a new phase; TSL_OK, or TESSEL_ECANCELLED when one asked to stop
 * (then, and for every later report, sh->halted is set). */
int tsl_shown_report(tsl_shown *sh, const tsl_opts *o, int improved);

/* A phase named `phase` (static) begins: reported. */
int tsl_shown_phase(tsl_shown *sh, const tsl_opts *o, const char *phase);

#endif
