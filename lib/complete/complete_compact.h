/* Internal: compaction of a schedule given as a priority order of its
 * (block, micro-batch) instances. */
#ifndef TESSEL_COMPLETE_COMPACT_H
#define TESSEL_COMPLETE_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "schedule.h"
#include "budget.h"
#include "util.h"

typedef struct tsl_inst {
	int gid;
	int64_t mid;
} tsl_inst;

/* Start every instance as early as its dependencies (each one's finish
 * plus its latency, tsl_dep_latency) and its devices allow, taking them in
 * the order of `seq` (which must list each (gid, mid) of the schedule
 * once, dependencies first) and keeping that order on every device. This
 * pass always runs, even past the deadline; it takes time linear in
 * `count`.
 * Then improve the makespan by local search: move an instance ahead of its
 * device predecessor on a critical path while the makespan (then the sum of
 * starts) drops and memory stays within the limits, until the makespan
 * reaches `bound` (a lower bound) or the work, counted in instance visits,
 * reaches `effort` (0 skips the local search) or the deadline `dl` (may be
 * NULL) passes. The result is written into
 * the schedule's entries; `seq` holds the final order. */
int tsl_compact(tessel_schedule *s, tsl_inst *seq, size_t count,
		int64_t effort, int64_t bound, const tsl_deadline *dl);

/* tsl_compact with the local search's work taken from *budget (instance
 * visits): it runs while *budget > 0 and leaves what is left there (<= 0
 * when it was spent), so that several compactions share one bound. */
int tsl_compact_within(tessel_schedule *s, tsl_inst *seq, size_t count,
		       int64_t *budget, int64_t bound, const tsl_deadline *dl);

#endif
