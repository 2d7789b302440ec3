/* Internal: compaction of a schedule given as a priority order of its
 * (block, micro-batch) instances. */
#ifndef TESSEL_COMPACT_H
#define TESSEL_COMPACT_H

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

/* Serial schedule generation with insertion (complete_sgs.c): place the instances
 * in the priority order `prio` (dependencies first), each at the earliest
 * step its dependencies (finish plus latency), free windows on its devices
 * and the memory limits allow. TESSEL_EINFEASIBLE (without a message) if
 * some instance found no step within the memory limits; TESSEL_ETIMEOUT
 * (without a message) when the deadline `dl` (may be NULL) passed first.
 * On either the schedule's starts are partly overwritten: the caller
 * restores them. Time O(count log count). */
int tsl_sgs(tessel_schedule *s, const tsl_inst *prio, size_t count,
	    const tsl_deadline *dl);

/* The mirror image (complete_sgs.c): take the instances in `prio` (successors
 * first, e.g. by decreasing finish) and place each as late as its
 * successors (their start minus the latency) and free windows allow, then
 * shift so the first starts at 0. The memory limits hold throughout (in
 * mirrored time each delta, negated, applies at the instance's real
 * start): when `prio` is the reverse start order of a schedule within the
 * limits, every instance finds a place, and the result, taken in start
 * order by tsl_sgs, again does. Together they form a forward-backward
 * improvement pass that never leaves the limits. TESSEL_EINFEASIBLE
 * (without a message) if some instance found no place within the limits,
 * TESSEL_ETIMEOUT (without a message) when the deadline `dl` (may be NULL)
 * passed first; on either the starts are partly overwritten. */
int tsl_sgs_backward(tessel_schedule *s, const tsl_inst *prio, size_t count,
		     const tsl_deadline *dl);

/* Memory in mirrored time (complete_sgs.c), for the backward pass and the
 * solver's windows of the warm-up: with u = horizon - start - span, each
 * delta, negated, applies at the instance's mirrored finish (its real
 * start). The real profile just after x's start is total - (the mirrored
 * profile before x's mirrored finish), total the device's sum of all
 * deltas (N per micro-batch), so it stays within the limit exactly when
 * the mirrored profile stays within limit - total. room[d] (ndevices
 * values, the caller's): that mirrored limit, INT64_MAX where device d has
 * none. */
void tsl_mirrored_limits(int64_t *room, const tessel_graph *g, int64_t nmicros);

#endif
