/* Internal: the Chrome trace writer of export_trace.c, for the streamed
 * exports (export_write.c). */
#ifndef TESSEL_EXPORT_TRACE_H
#define TESSEL_EXPORT_TRACE_H

#include "schedule.h"
#include "util.h"

/* Append the trace JSON of schedule to b (tessel_schedule_to_trace_json
 * without the result string); `fn` names the caller in messages. */
int tsl_write_trace_json(tsl_buf *b, const tessel_schedule *schedule,
			 double step_us, const char *fn);

#endif
