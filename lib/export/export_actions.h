/* Internal: the action-stream JSON writer of export_actions.c, for the
 * streamed exports (export_write.c), and the copies and recomputes of a
 * schedule as every export shows them. */
#ifndef TESSEL_EXPORT_ACTIONS_H
#define TESSEL_EXPORT_ACTIONS_H

#include "schedule.h"
#include "util.h"

/* Append the actions JSON of schedule to b (tessel_schedule_to_actions_json
 * without the result string); `fn` names the caller in messages. */
int tsl_write_actions_json(tsl_buf *b, const tessel_schedule *schedule,
			   const char *fn);

/* A copy of an offloaded activation on one device's copy channel. */
typedef struct tsl_copy {
	int64_t start, end; /* steps [start, end): end = start + transfer */
	int gid;            /* the offloaded block */
	int64_t mid;
	int reload;         /* 0: the offload, 1: the reload */
} tsl_copy;

/* The copies on device d's copy channel by start step (ties: offloads
 * first, then by gid and micro-batch): *out new (tsl_free; NULL when
 * there is none), *n their number. Costs device d's entries.
 * TESSEL_ENOMEM. */
int tsl_device_copies(tsl_copy **out, size_t *n, const tessel_schedule *s,
		      int d);

/* Which entries recompute a forward of their micro-batch: (*out)[i] = 1
 * for entry i (index mid * nblocks + gid) when a recomputing instance
 * names it as its backward; of every device (d = -1) or of device d only
 * (costing that device's entries); *out new (tsl_free), NULL when no entry
 * recomputes. TESSEL_ENOMEM. */
int tsl_recompute_marks(unsigned char **out, const tessel_schedule *s, int d);

#endif
