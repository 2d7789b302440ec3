/* Internal: memory-aware modulo scheduling by depth-first search
 * (repetend_dfs.c). */
#ifndef TESSEL_REPETEND_DFS_H
#define TESSEL_REPETEND_DFS_H

#include <stdint.h>

#include "bounds.h"
#include "graph.h"
#include "repetend.h"
#include "tessel.h"
#include "budget.h"
#include "util.h"

/* Memory-aware modulo scheduling at period P by a bounded depth-first
 * search over the blocks in `order` (topological; NULL: by earliest
 * start), see repetend_dfs.c.
 * *found 1 with the shallowest repetend found in rep (rep->T allocated),
 * 0 when none was found within `budget` work units or before the deadline
 * `dl` (may be NULL) or a cancel of `src` (may be NULL). */
int tsl_repetend_dfs(tsl_repetend *rep, const tessel_graph *g,
		     const tsl_bounds *bnd, const int *order, int64_t P,
		     int64_t budget, const tsl_deadline *dl,
		     const tessel_options *src, int *found);

#endif
