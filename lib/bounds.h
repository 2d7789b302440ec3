/* Internal: bounds derived from a graph (no search involved). */
#ifndef TESSEL_BOUNDS_H
#define TESSEL_BOUNDS_H

#include <stdint.h>

#include "graph.h"

typedef struct tsl_bounds {
	int nblocks;
	int ndevices;
	int *topo;          /* a topological order of the blocks */
	int64_t *head;      /* per block: longest dependency path into it */
	int64_t *tail;      /* per block: longest path after it finishes */
	int64_t *load;      /* per device: summed spans */
	int64_t *dev_head;  /* per device: min head over its blocks */
	int64_t *dev_tail;  /* per device: min tail over its blocks */
	/* Blocks on every device run while every device is busy with them;
	 * the rest of a device's work fits in the remaining time only. */
	int64_t sync_span;    /* summed spans of blocks on every device */
	int64_t *sync_head;   /* per device: min over its other blocks of the
			       * longest path into them, counting other blocks */
	int64_t *sync_tail;   /* per device: same, after them */
	int64_t *sync_load;   /* per device: load outside blocks on every device */
	int *dev_start;       /* per device d: its blocks are */
	int *dev_block;       /* dev_block[dev_start[d] .. dev_start[d+1]) */
	int64_t *span;        /* per block */
	int64_t resource_bound;
	int64_t critical_path;
	int64_t total_span; /* sum of all spans */
} tsl_bounds;

/* Compute the bounds; the graph must be structurally valid. */
int tsl_bounds_compute(tsl_bounds *b, const tessel_graph *g);
void tsl_bounds_release(tsl_bounds *b);
/* LB(N): the largest of the critical path, max_d over subsets S of the
 * device's blocks of min head(S) + N * span(S) + min tail(S) (one device
 * as a one-machine problem with release and delivery times; S = all its
 * blocks gives dev_head + N * load + dev_tail), and max_d N * sync_span + sync_head + N * sync_load + sync_tail
 * (time on blocks that occupy every device cannot overlap a device's other
 * work, and that work waits for the other blocks on its paths). */
int64_t tsl_bounds_lower(const tsl_bounds *b, int64_t nmicros);

#endif
