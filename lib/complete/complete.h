/* Internal: completion of the N-micro-batch schedule from a repetend
 * (complete.c). */
#ifndef TESSEL_COMPLETE_H
#define TESSEL_COMPLETE_H

#include <stdint.h>

#include "bounds.h"
#include "repetend.h"
#include "schedule.h"
#include "stage.h"
#include "budget.h"
#include "util.h"

/* The repetend range of s from its entries' phases (complete.c). */
void tsl_repetend_range(tessel_schedule *s);

/* Build the N-micro-batch schedule from a repetend: periodic unrolling,
 * phase labels, then compaction (ASAP in periodic order, then a local
 * search bounded by `effort` instance visits, 0 skips it, and stopped at
 * the stage's deadline, which may be NULL). st: s's graph, its bounds, the
 * options (may be NULL) and the deadline; so for every stage below. */
int tsl_complete(tessel_schedule *s, const tsl_repetend *rep,
		 const tsl_stage *st, int64_t effort);

/* The restarts of tsl_complete from the groups of micro-batches of the
 * finished schedule s (its period and repetend micro-batches): its starts
 * are replaced when they find a shorter schedule (phases, period and
 * depth kept), within `effort` instance visits and the deadline. */
int tsl_complete_regroup(tessel_schedule *s, const tsl_stage *st,
			 int64_t effort);

/* The improvement passes of tsl_complete on a complete schedule s made
 * without a repetend (list scheduling, complete_list.c), from its own
 * order: the compaction with its local search, the forward-backward
 * rounds and the perturbed restarts, within `effort` instance visits (as
 * tsl_complete) and the deadline; s is only replaced by valid, shorter
 * starts. */
int tsl_complete_improve(tessel_schedule *s, const tsl_stage *st,
			 int64_t effort);

/* The figures of a repetend for a schedule made without one: the longest
 * run of micro-batches in which each micro-batch m + k repeats m's
 * pattern shifted by the same P_k (k = 1 .. 8) is the steady state (its
 * entries labelled repetend, those before warm-up, after cool-down), P_k
 * the period, proven optimal when it is k times the resource bound. With
 * no repeated pattern: the whole schedule, k 1, its average period. */
void tsl_repetend_detect(tessel_schedule *s, const tsl_bounds *bnd);

#endif
