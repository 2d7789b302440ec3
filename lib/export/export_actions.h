/* Internal: the action-stream JSON writer of export_actions.c, for the
 * streamed exports (export_write.c). */
#ifndef TESSEL_EXPORT_ACTIONS_H
#define TESSEL_EXPORT_ACTIONS_H

#include "schedule.h"
#include "util.h"

/* Append the actions JSON of schedule to b (tessel_schedule_to_actions_json
 * without the result string); `fn` names the caller in messages. */
int tsl_write_actions_json(tsl_buf *b, const tessel_schedule *schedule,
			   const char *fn);

#endif
