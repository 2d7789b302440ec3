/* Internal: the memory limits no schedule can reach, lifted before a
 * search and put back after it (search_limits.c). */
#ifndef TESSEL_SEARCH_LIMITS_H
#define TESSEL_SEARCH_LIMITS_H

#include <stdint.h>

#include "graph.h"
#include "schedule.h"

/* *out: a copy of g with the limit of every device lifted whose limit is
 * at least nmicros times the memory its blocks take (no schedule of
 * nmicros micro-batches reaches it), or NULL when no device has such a
 * limit (or nmicros < 1). TESSEL_ENOMEM (*out NULL). */
int tsl_limits_lift(tessel_graph **out, const tessel_graph *g, int64_t nmicros);

/* s, found on the copy tsl_limits_lift made, back under g's own limits
 * (which it fits), with g's lower bound and optimality flag, checked by
 * the validator (its error when it fails, TESSEL_ENOMEM). */
int tsl_limits_restore(tessel_schedule *s, const tessel_graph *g);

#endif
