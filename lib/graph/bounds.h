/* Internal: bounds derived from a graph (no search involved). */
#ifndef TESSEL_BOUNDS_H
#define TESSEL_BOUNDS_H

#include <stdint.h>

#include "graph.h"

/* One phase (warm-up or cool-down) of the memory terms: per device d, the
 * blocks that may run in the phase as knapsack items,
 * items[start[d] .. start[d+1]) by value per unit of memory, best first. */
typedef struct tsl_mem_item {
	int64_t value;  /* steps of the block inside the phase */
	int64_t weight; /* |memory delta| > 0 */
} tsl_mem_item;

typedef struct tsl_mem_phase {
	int *start;
	tsl_mem_item *items;
	int64_t *free_value; /* per device: summed values of blocks of delta 0 */
	int64_t *at;         /* per device: warm_at or cool_at, -1: no term */
	int64_t *over;       /* per device, cool-down: most steps after
			      * T - cool_at of a block running at that time */
} tsl_mem_phase;

/* A memory round trip of a device (bounds_cycle.c): at most `holders`
 * micro-batches at a time are between the start of a block a and the end
 * of a block f on the device, each for at least `length` steps. */
typedef struct tsl_mem_trip {
	int64_t holders;
	int64_t length;  /* longest path from a's start to f's start, + span(f) */
	int64_t stagger; /* max(span(a), span(f)) */
	int64_t base;    /* head(a) + tail(f) */
} tsl_mem_trip;

typedef struct tsl_bounds {
	int nblocks;
	int ndevices;
	int *topo;          /* a topological order of the blocks */
	int64_t *head;      /* per block: longest dependency path into it
			     * (spans and latencies): its earliest start */
	int64_t *tail;      /* per block: longest path after it finishes
			     * (latencies and spans) */
	int64_t *load;      /* per device: summed spans */
	int64_t *dev_head;  /* per device: min head over its blocks */
	int64_t *dev_tail;  /* per device: min tail over its blocks */
	/* Blocks on every device run while every device is busy with them;
	 * the rest of a device's work fits in the remaining time only. */
	int64_t sync_span;    /* summed spans of blocks on every device */
	int64_t *sync_head;   /* per device: min over its other blocks of the
			       * longest path into them, counting other blocks
			       * and no latency (see sync_bounds) */
	int64_t *sync_tail;   /* per device: same, after them */
	int64_t *sync_load;   /* per device: load outside blocks on every device */
	int *dev_start;       /* per device d: its blocks are */
	int *dev_block;       /* dev_block[dev_start[d] .. dev_start[d+1]) */
	int64_t *span;        /* per block */
	/* memory terms (bounds_memory.c) */
	int64_t *limit;       /* per device: memory limit or TESSEL_UNLIMITED */
	int64_t *dev_mem;     /* per device: summed deltas of one micro-batch */
	tsl_mem_phase warm, cool;
	/* round-trip terms (bounds_cycle.c): device d's are
	 * trips[trip_start[d] .. trip_start[d+1]) */
	int *trip_start;
	tsl_mem_trip *trips;
	int64_t resource_bound;
	int64_t critical_path; /* max head + span + tail */
	int64_t total_span; /* sum of all spans */
	/* LB(lower_n) once tsl_bounds_keep_lower has run (lower_n 0: none):
	 * set before any thread reads the bounds */
	int64_t lower_n, lower;
} tsl_bounds;

/* Compute the bounds; the graph must be structurally valid. */
int tsl_bounds_compute(tsl_bounds *b, const tessel_graph *g);
void tsl_bounds_release(tsl_bounds *b);
/* LB(N), the largest of:
 * - the critical path (latencies included);
 * - max_d of dev_head + N * load + dev_tail and, on a device of at most
 *   TSL_SUBSET_MAX (64, bounds.c) blocks, max over the subsets
 *   S = {j on d : head_j >= head_a, tail_j >= tail_c} (a, c on d) of
 *   min head(S) + N * span(S) + min tail(S): one device as a one-machine
 *   problem with release and delivery times (S = all its blocks gives the
 *   first term), latencies included in head and tail;
 * - max_d N * (sync_span + sync_load) + sync_head + sync_tail (time on
 *   blocks that occupy every device cannot overlap a device's other work,
 *   and that work waits for the other blocks on its paths; no latency, as
 *   blocks on every device may run during one);
 * - max_d of the memory terms (tsl_bounds_memory_lower): idle time that
 *   the memory limit forces before the first block that frees memory and
 *   after the last one that takes memory;
 * - max_d of the round-trip terms (tsl_bounds_cycle_lower): a micro-batch
 *   holds memory on d from the start of a block a to the start of a later
 *   block f, so at most limit / held micro-batches are on that way at a
 *   time, each for the longest path from a to f. */
int64_t tsl_bounds_lower(const tsl_bounds *b, int64_t nmicros);

/* Keep LB(nmicros) in b, so that tsl_bounds_lower(b, nmicros) is one look
 * (the passes of a search ask for it often; on thousands of devices its
 * terms take milliseconds). Call it before b is shared between threads. */
void tsl_bounds_keep_lower(tsl_bounds *b, int64_t nmicros);

/* The blocks by earliest start (head), ties in topological order: a
 * topological order, since head grows along every dependency. order:
 * b->nblocks entries. */
int tsl_bounds_order_by_head(int *order, const tsl_bounds *b);

#endif
