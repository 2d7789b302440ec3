/* Internal: completion of the N-micro-batch schedule from a repetend
 * (complete.c). */
#ifndef TESSEL_COMPLETE_H
#define TESSEL_COMPLETE_H

#include <stdint.h>

#include "bounds.h"
#include "repetend.h"
#include "schedule.h"
#include "budget.h"
#include "util.h"

/* The repetend range of s from its entries' phases (complete.c). */
void tsl_repetend_range(tessel_schedule *s);

/* Build the N-micro-batch schedule from a repetend: periodic unrolling,
 * phase labels, then compaction (ASAP in periodic order, then a local
 * search bounded by `effort` instance visits, 0 skips it, and stopped at
 * the deadline `dl`, which may be NULL). */
int tsl_complete(tessel_schedule *s, const tsl_repetend *rep,
		 const tsl_bounds *bnd, int64_t effort, const tsl_deadline *dl);

/* The restarts of tsl_complete from the groups of micro-batches of the
 * finished schedule s (its period and repetend micro-batches): its starts
 * are replaced when they find a shorter schedule (phases, period and
 * depth kept), within `effort` instance visits and the deadline. */
int tsl_complete_regroup(tessel_schedule *s, const tsl_bounds *bnd,
			 int64_t effort, const tsl_deadline *dl);

#endif
