/* Internal: serial schedule generation with insertion, forward and
 * backward, and memory in mirrored time (complete_sgs.c). */
#ifndef TESSEL_COMPLETE_SGS_H
#define TESSEL_COMPLETE_SGS_H

#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "complete_compact.h" /* tsl_inst */
#include "schedule.h"

/* Serial schedule generation with insertion place the instances
 * in the priority order `prio` (dependencies first), each at the earliest
 * step its dependencies (finish plus latency), free windows on its devices
 * and the memory limits allow. TESSEL_EINFEASIBLE (without a message) if
 * some instance found no step within the memory limits; TESSEL_ETIMEOUT
 * (without a message) when the deadline `dl` (may be NULL) passed first.
 * On either the schedule's starts are partly overwritten: the caller
 * restores them. Time O(count log count). */
int tsl_sgs(tessel_schedule *s, const tsl_inst *prio, size_t count,
	    const tsl_deadline *dl);

/* The least work, in ticks, that one pass of tsl_sgs or tsl_sgs_backward
 * over all nmicros micro-batches of g's instances charges through dl (may
 * be NULL) before its last look at the deadline: a pass begun with at most
 * this much work left ends in TESSEL_ETIMEOUT, so a caller that would drop
 * such a result need not begin it. Depends on g, nmicros and dl's weight
 * only (no clock). */
int64_t tsl_sgs_pass_least_ticks(const tessel_graph *g, int64_t nmicros,
				  const tsl_deadline *dl);

/* The mirror image: take the instances in `prio` (successors
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

/* Memory in mirrored time, for the backward pass and the
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
