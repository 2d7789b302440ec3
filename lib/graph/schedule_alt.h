/* The memory-time choices of a schedule's entries: recompute and offload
 * per (block, micro-batch), their copies and their memory events. */
#ifndef TESSEL_SCHEDULE_ALT_H
#define TESSEL_SCHEDULE_ALT_H

#include <stdint.h>

#include "schedule.h"

/* Set the choice (tessel_choice) of block gid's micro-batch mid, undoing
 * the previous one: a recompute adds its extra steps and saves to the
 * backward's entry of the same micro-batch and takes the saves off the
 * forward's; an offload records its copies' start steps. The choice must
 * be allowed (tsl_block_allows). TESSEL_ENOMEM (nothing changed). */
int tsl_schedule_choose(tessel_schedule *s, int gid, int64_t mid, int choice,
			int64_t offload_start, int64_t reload_start);

/* Start step of entry e's offload (reload: 0) or reload (reload: 1); -1
 * when it is not offloaded. */
int64_t tsl_entry_copy_start(const tessel_schedule *s,
			     const struct tessel_entry *e, int reload);

/* The step after the last copy of the schedule (0 without any). */
int64_t tsl_schedule_copies_end(const tessel_schedule *s);

/* A memory event of a device: an offload ends (order 0), a block starts
 * (1) or a reload starts (2) at `step`; tie: the entry's index. */
typedef struct tsl_alt_event {
	int64_t step;
	int order;
	int64_t tie;
	int64_t delta;
} tsl_alt_event;

/* qsort order of events: by step, order, tie (the validator's order). */
int tsl_alt_event_cmp(const void *pa, const void *pb);

/* Peak memory of device d with the copies' events: an offload frees its
 * saves when it ends, a reload takes them when it starts; at one step the
 * offloads' ends count first, then the block starting there, then the
 * reloads. TESSEL_ENOMEM. */
int tsl_schedule_copy_peak(int64_t *out, const tessel_schedule *s, int d);

#endif
