/* Internal: the SVG writer of export_svg.c, for the streamed exports
 * (export_write.c). */
#ifndef TESSEL_EXPORT_SVG_H
#define TESSEL_EXPORT_SVG_H

#include "schedule.h"
#include "util.h"

/* Append the SVG picture of schedule to b (tessel_schedule_to_svg without
 * the result string); `fn` names the caller in messages. */
int tsl_write_svg(tsl_buf *b, const tessel_schedule *schedule,
		  const char *fn);

#endif
