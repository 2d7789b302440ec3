/* Internal: memory-aware modulo scheduling by depth-first search
 * (repetend_dfs.c). */
#ifndef TESSEL_REPETEND_DFS_H
#define TESSEL_REPETEND_DFS_H

#include <stdint.h>

#include "bounds.h"
#include "graph.h"
#include "repetend.h"
#include "stage.h"
#include "tessel.h"
#include "budget.h"
#include "util.h"

/* Memory-aware modulo scheduling at period P by a bounded depth-first
 * search over the blocks in `order` (topological; NULL: by earliest
 * start), see repetend_dfs.c.
 * *found 1 with the shallowest repetend found in rep (rep->T allocated),
 * 0 when none was found within `budget` work units or before the deadline
 * of the stage st or its cancel (st: graph, bounds, options, deadline). */
int tsl_repetend_dfs(tsl_repetend *rep, int *found, const tsl_stage *st,
		     const int *order, int64_t P, int64_t budget);

#endif
