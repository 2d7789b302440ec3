/* Internal: the memory terms of LB(N) (bounds_memory.c). */
#ifndef TESSEL_BOUNDS_MEMORY_H
#define TESSEL_BOUNDS_MEMORY_H

#include <stdint.h>

#include "bounds.h"
#include "graph.h"

/* Fill the memory terms of b (part of tsl_bounds_compute). TESSEL_ENOMEM. */
int tsl_bounds_memory(tsl_bounds *b, const tessel_graph *g);

/* Free a phase of the memory terms. */
void tsl_mem_phase_release(tsl_mem_phase *ph);

/* The memory term of device d for N micro-batches (0 when the device has
 * no limit or none applies). */
int64_t tsl_bounds_memory_lower(const tsl_bounds *b, int d, int64_t nmicros);

#endif
