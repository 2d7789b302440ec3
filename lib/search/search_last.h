/* Internal: the last candidates of a search of a placement as it stands
 * (search_last.c). */
#ifndef TESSEL_SEARCH_LAST_H
#define TESSEL_SEARCH_LAST_H

#include "search_progress.h"
#include "stage.h"
#include "tessel.h"

/* After tsl_search_graph found *s on g: the placement without its memory
 * limits ("unlimited", when g has limits), then the heuristic mode's
 * search under its own default budget ("fast", under the default budget
 * only), each replacing *s when it is valid under g's limits and
 * shorter; neither once *s is optimal. dl, fin_dl: the search's
 * deadlines (the work spent is charged to their meter); all: the whole
 * search's budget and time limit. With two threads the second runs
 * beside the first on a meter of its own, so the schedule and the work
 * are those of the two one after the other. A cancel or a callback's stop
 * leaves *s as it stands (TSL_OK). TESSEL_ENOMEM, TESSEL_ESOLVER. */
int tsl_search_last_candidates(tessel_schedule **s, const tessel_graph *g,
			       const tsl_opts *o, const tsl_deadline *dl,
			       const tsl_deadline *fin_dl, const tsl_deadline *all,
			       tsl_shown *progress);

#endif
