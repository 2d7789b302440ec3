/* Internal: the published orders the exploration compares with
 * (explore_baseline.c). */
#ifndef TESSEL_EXPLORE_BASELINE_H
#define TESSEL_EXPLORE_BASELINE_H

#include <stddef.h>

#include "explore_plan.h"

/* The order of p->mode (TSL_PLAN_GPIPE: every forward, then every
 * backward; TSL_PLAN_1F1B: D-1-d forwards, then one forward and one
 * backward at a time, then the backwards left) on the pipeline placement
 * g of plan p (stage s: blocks f<s>, b<s> on device s), each entry as
 * early as its device and dependencies allow, for `nmicros`
 * micro-batches. *out: new (release with tessel_schedule_free), checked
 * by tessel_schedule_validate; when it breaks the memory limits, or the
 * schedule would hold more entries than the library's limit, `why` says
 * so and *out is NULL with TSL_OK. stop (may be NULL): asked now and then
 * whether to stop, when TESSEL_ECANCELLED comes back with *out NULL. */
typedef struct tsl_baseline_stop {
	int (*fn)(void *arg); /* nonzero: stop */
	void *arg;
} tsl_baseline_stop;

int tsl_baseline_schedule(tessel_schedule **out, const tessel_graph *g,
			  const tsl_plan *p, int64_t nmicros,
			  const tsl_baseline_stop *stop, char *why,
			  size_t whylen);

#endif
