/* Internal: the schedule JSON writer of schedule_json.c, for the streamed
 * exports (export_write.c); declared apart from schedule_json.h so that
 * its callers do not reach the JSON library. */
#ifndef TESSEL_SCHEDULE_JSON_WRITER_H
#define TESSEL_SCHEDULE_JSON_WRITER_H

#include "schedule.h"
#include "util.h"

/* Append the schedule JSON of s to b (tessel_schedule_to_json without the
 * result string). */
int tsl_write_schedule_json(tsl_buf *b, const tessel_schedule *s);

#endif
