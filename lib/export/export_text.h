/* Internal: the text grid's pieces shared with the other exports and its
 * writer (export_text.c). */
#ifndef TESSEL_EXPORT_TEXT_H
#define TESSEL_EXPORT_TEXT_H

#include "schedule.h"
#include "util.h"

/* The key figures (period and its bound, makespan, lower bound and
 * efficiency) as the text grid prints them, `sep` between the two. */
int tsl_put_key_figures(tsl_buf *b, const tessel_schedule *s, const char *sep);

/* Append the text grid of schedule and its figures to b
 * (tessel_schedule_to_text without the result string, for the streamed
 * exports of export_write.c); `fn` names the caller in messages. */
int tsl_write_text(tsl_buf *b, const tessel_schedule *schedule,
		   const char *fn);

#endif
