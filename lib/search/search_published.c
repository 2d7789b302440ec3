/* Stage of the search: the published orders as candidates (the last stage
 * of tsl_search_plain). A placement that is a published family's (GPipe,
 * 1F1B, ZB-H1, ZB-H2, ZB-V, V-Half, V-Min, DualPipe, DualPipeV,
 * interleaved 1F1B, Chimera: lib/explore/published.c, through
 * tessel_published_on) with spans, latencies and limits of its own has
 * that family's order as a candidate, replayed as early as possible and
 * validated: the search is never longer than a published schedule that
 * fits the placement's limits. */
#include <stdatomic.h>

#include "bounds.h"
#include "complete.h"
#include "error.h"
#include "search_published.h"
#include "tessel.h"

/* A family's placement has from 2 (GPipe, 1F1B) to 16 (interleaved 1F1B of
 * 8 chunks) blocks a device. */
#define TSL_PUBLISHED_MIN_BLOCKS 2
#define TSL_PUBLISHED_MAX_BLOCKS 16
/* Orders are built (for every family, before its placement is compared)
 * only up to this many entries a family: 64 MB of steps at most. */
#define TSL_PUBLISHED_MAX_ENTRIES ((int64_t)1 << 22)

static int stopped(const tsl_deadline *dl)
{
	return dl && (tsl_deadline_hard_passed(dl) ||
		      (dl->stop && atomic_load(dl->stop)));
}

/* u (a validated replay of g) in place of *s, with *s's bounds. */
static int take(tessel_schedule **s, tessel_schedule *u, const tessel_graph *g)
{
	tsl_bounds bnd;
	int rc = tsl_bounds_compute(&bnd, g);
	if (rc) {
		tessel_schedule_free(u);
		return rc;
	}
	tsl_repetend_detect(u, &bnd);
	tsl_bounds_release(&bnd);
	u->resource_bound = (*s)->resource_bound;
	u->lower_bound = (*s)->lower_bound;
	u->makespan_optimal = tsl_schedule_makespan(u) <= u->lower_bound;
	tessel_schedule_free(*s);
	*s = u;
	return TSL_OK;
}

int tsl_published_candidates(tessel_schedule **s, const tessel_graph *g,
			     int64_t nmicros, const tsl_deadline *dl)
{
	if ((*s)->makespan_optimal ||
	    g->nblocks < TSL_PUBLISHED_MIN_BLOCKS * g->ndevices ||
	    g->nblocks > TSL_PUBLISHED_MAX_BLOCKS * g->ndevices ||
	    (int64_t)TSL_PUBLISHED_MAX_BLOCKS * g->ndevices * nmicros >
		    TSL_PUBLISHED_MAX_ENTRIES)
		return TSL_OK;
	tessel_schedule *best = NULL;
	size_t count = tessel_published_count();
	for (size_t i = 0; i < count && !stopped(dl); i++) {
		const char *name = NULL;
		tessel_schedule *u = NULL;
		if (tessel_published_info(&name, NULL, i))
			continue;
		int rc = tessel_published_on(&u, g, name, nmicros);
		if (rc == TESSEL_ENOMEM) {
			tessel_schedule_free(best);
			return tsl_error_nomem();
		}
		if (rc)
			continue; /* not this family's placement, or beyond
				   * g's limits */
		tsl_charge(dl, (int64_t)g->nblocks * nmicros / TSL_ENTRIES_PER_TICK);
		int64_t m = tsl_schedule_makespan(u);
		if (m < tsl_schedule_makespan(best ? best : *s)) {
			tessel_schedule_free(best);
			best = u;
		} else {
			tessel_schedule_free(u);
		}
	}
	return best ? take(s, best, g) : TSL_OK;
}
