/* Internal: the published orders as candidates of a search
 * (search_published.c), its last stage. */
#ifndef TESSEL_SEARCH_PUBLISHED_H
#define TESSEL_SEARCH_PUBLISHED_H

#include <stdint.h>

#include "budget.h"
#include "graph.h"
#include "schedule.h"

/* For each published family whose placement g is (tessel_published_on:
 * its blocks, devices, memory deltas and dependencies; spans, latencies
 * and memory limits g's own), that family's order for `nmicros`
 * micro-batches replayed as early as possible on g and validated under
 * g's limits: the shortest of them replaces *s (a validated schedule of g,
 * taken) when it is shorter, with *s's bounds and its own repetend figures
 * (tsl_repetend_detect). Nothing when *s is optimal, when g has too few or
 * too many blocks for any family, when a family's order could exceed
 * 2^22 entries, or once dl's hard end passed or the
 * search was cancelled (dl->stop; the driver does not call it after a
 * cancel or a progress callback that asked to stop). Each order replayed is charged to dl's
 * meter (the validator's rate); the work budget does not stop it (it is as
 * cheap as the final check). TESSEL_ENOMEM, else TESSEL_OK. */
int tsl_published_candidates(tessel_schedule **s, const tessel_graph *g,
			     int64_t nmicros, const tsl_deadline *dl);

#endif
