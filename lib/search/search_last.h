/* Internal: the last candidates of a search of a placement as it stands
 * (search_last.c). */
#ifndef TESSEL_SEARCH_LAST_H
#define TESSEL_SEARCH_LAST_H

#include "search_graph.h"
#include "search_progress.h"
#include "stage.h"
#include "tessel.h"

/* The heuristic mode's search of g under its own default budget, on a
 * thread of its own, started once the search of the graph made its
 * first schedule (search.c, tsl_after_first) when it is
 * wanted (the default budget, heuristic mode not asked) and two threads
 * may run (tsl_search_threads): it depends on nothing the search does.
 * NULL when it was not started (tsl_search_last_candidates then runs it
 * after the others). Ended by tsl_search_last_candidates or
 * tsl_fast_abandon. dl, fin_dl: the search's deadlines (copied). first:
 * the search's first schedule (a copy), which the heuristic mode's search
 * takes instead of making it again; first->s is taken (set to NULL) when
 * the job starts. */
typedef struct tsl_fast_job tsl_fast_job;
tsl_fast_job *tsl_fast_begin(const tessel_graph *g, const tsl_opts *o,
			     const tsl_deadline *dl, const tsl_deadline *fin_dl,
			     tsl_first *first);
/* Stop the job, wait for it and drop it with its schedule; NULL: none. */
void tsl_fast_abandon(tsl_fast_job *fj);

/* After tsl_search_graph found *s on g: the placement without its memory
 * limits ("unlimited", when g has limits), then the heuristic mode's
 * search under its own default budget ("fast", under the default budget
 * only: fj's when it was started, else run here), each replacing *s when
 * it is valid under g's limits and shorter; neither once *s is optimal.
 * dl, fin_dl: the search's deadlines (the work spent is charged to their
 * meter, fj's too, when its schedule is wanted); all: the whole search's
 * budget and time limit. The schedule and the work are those of the
 * candidates run one after the other. fj (taken; NULL: none) is ended
 * here whatever the outcome. first: as for tsl_fast_begin, for the
 * heuristic mode's search run here (its s taken when it runs; NULL:
 * none). A cancel or a callback's stop leaves *s as it stands (TSL_OK).
 * TESSEL_ENOMEM, TESSEL_ESOLVER. */
int tsl_search_last_candidates(tessel_schedule **s, const tessel_graph *g,
			       const tsl_opts *o, const tsl_deadline *dl,
			       const tsl_deadline *fin_dl, const tsl_deadline *all,
			       tsl_shown *progress, tsl_fast_job *fj,
			       tsl_first *first);

#endif
