/* Internal: the search of one graph with its memory limits as they are,
 * stage by stage (search_graph.c). */
#ifndef TESSEL_SEARCH_GRAPH_H
#define TESSEL_SEARCH_GRAPH_H

#include <stdint.h>

#include "search_progress.h"
#include "stage.h"
#include "tessel.h"

/* Room for the reason a candidate was dropped (a validator's message). */
#define TSL_REASON_LEN 256
/* The least work a search inside the search gets (ticks): the repetends
 * of several micro-batches with the solver, and the placement searched
 * without its limits (search_last.c). */
#define TSL_GROUP_MIN_TICKS ((int64_t)1000 * TSL_TICKS_PER_UNIT)

/* Called by tsl_search_graph once its first schedule is made (or none
 * could be), with that schedule's makespan (0: none): the driver starts
 * there what only a search that goes on needs. */
typedef struct tsl_after_first {
	void (*fn)(void *arg, int64_t first_makespan);
	void *arg;
} tsl_after_first;

/* The search proper on g: bounds, the first schedule, repetends,
 * completion, list scheduling beside it, improvements, the final check;
 * *out the schedule (new, validated). dl ends the solver's part, fin_dl
 * the final compaction (both advanced by the phases as their shares of
 * the work budget end). progress: what the progress callbacks were told,
 * NULL for a search inside the search (no reports). budget: the work it
 * may spend after its first schedule (ticks; 0: none), shared out over
 * its phases. after: called after the first schedule (NULL: none). A time limit, a cancel or a callback's stop once a schedule
 * exists returns it; before: TESSEL_ETIMEOUT or TESSEL_ECANCELLED.
 * TESSEL_EINFEASIBLE (with the reason) when no schedule within the
 * limits was found, TESSEL_ENOMEM, TESSEL_ESOLVER. */
int tsl_search_graph(tessel_schedule **out, const tessel_graph *g,
		     const tsl_opts *o, tsl_deadline *dl, tsl_deadline *fin_dl,
		     tsl_shown *progress, int64_t budget,
		     const tsl_after_first *after);

#endif
