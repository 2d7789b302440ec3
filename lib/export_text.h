/* Internal: the text grid's pieces shared with the other exports
 * (export_text.c). */
#ifndef TESSEL_EXPORT_TEXT_H
#define TESSEL_EXPORT_TEXT_H

#include "schedule.h"
#include "util.h"

/* The key figures (period and its bound, makespan, lower bound and
 * efficiency) as the text grid prints them, `sep` between the two. */
int tsl_put_key_figures(tsl_buf *b, const tessel_schedule *s, const char *sep);

#endif
