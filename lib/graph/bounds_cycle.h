/* Internal: the memory round-trip term of LB(N) (bounds_cycle.c). */
#ifndef TESSEL_BOUNDS_CYCLE_H
#define TESSEL_BOUNDS_CYCLE_H

#include <stdint.h>

#include "bounds.h"
#include "graph.h"

/* Find the round trips of every device with a memory limit (part of
 * tsl_bounds_compute; needs the heads, tails, device lists and limits).
 * TESSEL_ENOMEM. */
int tsl_bounds_cycle(tsl_bounds *b, const tessel_graph *g);

/* The round-trip term of device d for N micro-batches (0 when none
 * applies). */
int64_t tsl_bounds_cycle_lower(const tsl_bounds *b, int d, int64_t nmicros);

#endif
