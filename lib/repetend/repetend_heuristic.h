/* Internal: heuristic repetends by modulo list scheduling
 * (repetend_heuristic.c). */
#ifndef TESSEL_REPETEND_HEURISTIC_H
#define TESSEL_REPETEND_HEURISTIC_H

#include <stdint.h>

#include "bounds.h"
#include "graph.h"
#include "repetend.h"
#include "stage.h"
#include "tessel.h"
#include "budget.h"
#include "util.h"

/* Heuristic repetend (modulo list scheduling), no solver. Respects devices
 * and dependencies; memory only if it can. TESSEL_EINFEASIBLE if it found
 * none within the memory limits, TESSEL_ETIMEOUT / TESSEL_ECANCELLED when
 * the stage's deadline passed or its options' source was cancelled
 * before it found one (with one found, it returns it); st: graph, bounds,
 * options (may be NULL), deadline (may be NULL). It looks for better
 * repetends until the deadline's end, for a first one until its hard end
 * when it has one. `dfs_budget`: work bound of the memory-aware search
 * (0: its default, TSL_DFS_BUDGET). `relaxed`
 * (may be NULL; T allocated) gets the first repetend found that ignores
 * memory (period 0 if none), a guide for the solver. `optional`: the
 * caller has a repetend already, so the deadline's end (its work bound
 * included) ends the search for a first one too. */
int tsl_repetend_heuristic(tsl_repetend *rep, tsl_repetend *relaxed,
			   const tsl_stage *st, int64_t dfs_budget,
			   int optional);

#endif
