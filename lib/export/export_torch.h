/* Internal: the torch.distributed.pipelining CSV writer of
 * export_torch.c, for the streamed exports (export_write.c). */
#ifndef TESSEL_EXPORT_TORCH_H
#define TESSEL_EXPORT_TORCH_H

#include "schedule.h"
#include "util.h"

/* Append the CSV of schedule to b (tessel_schedule_to_torch_csv without
 * the result string); `fn` names the caller in messages. */
int tsl_write_torch_csv(tsl_buf *b, const tessel_schedule *schedule,
			int with_comms, const char *fn);

#endif
