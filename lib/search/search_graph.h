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

/* A search's first schedule (list scheduling, else the micro-batches one
 * at a time), validated, and what making it took. It depends only on the
 * graph, the micro-batches and the time limit: neither the mode nor the
 * budget changes it (no work bound stops it), so a search of the same
 * graph in another mode may take it instead of making it again. */
typedef struct tsl_first {
	tessel_schedule *s; /* NULL: none */
	int64_t ticks;      /* the work it took (charged again by a search
			     * that takes it, so the work counts are those
			     * of making it) */
	int64_t list_ticks; /* of it, its list scheduling's */
	int64_t us;         /* the time it took */
} tsl_first;

/* Called by tsl_search_graph once its first schedule is made (or none
 * could be): first->s is that schedule (NULL: none), the search's own,
 * to be copied by a callback that keeps it. The driver starts there what
 * only a search that goes on needs. */
typedef struct tsl_after_first {
	void (*fn)(void *arg, const tsl_first *first);
	void *arg;
} tsl_after_first;

/* The search proper on g: bounds, the first schedule, repetends,
 * completion, list scheduling beside it, improvements, the final check;
 * *out the schedule (new, validated). dl ends the solver's part, fin_dl
 * the final compaction (both advanced by the phases as their shares of
 * the work budget end). progress: what the progress callbacks were told,
 * NULL for a search inside the search (no reports). budget: the work it
 * may spend after its first schedule (ticks; 0: none), shared out over
 * its phases. after: called after the first schedule (NULL: none).
 * given: the first schedule of a search of g with as many micro-batches
 * (NULL, or given->s NULL: made here); given->s is taken (set to NULL)
 * and used as this search's own, given->ticks charged to dl. A time
 * limit, a cancel or a callback's stop once a schedule exists returns
 * it; before: TESSEL_ETIMEOUT or TESSEL_ECANCELLED.
 * TESSEL_EINFEASIBLE (with the reason) when no schedule within the
 * limits was found, TESSEL_ENOMEM, TESSEL_ESOLVER. */
int tsl_search_graph(tessel_schedule **out, const tessel_graph *g,
		     const tsl_opts *o, tsl_deadline *dl, tsl_deadline *fin_dl,
		     tsl_shown *progress, int64_t budget,
		     const tsl_after_first *after, tsl_first *given);

#endif
