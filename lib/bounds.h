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
	int64_t resource_bound;
	int64_t critical_path;
	int64_t total_span; /* sum of all spans */
} tsl_bounds;

/* Compute the bounds; the graph must be structurally valid. */
int tsl_bounds_compute(tsl_bounds *b, const tessel_graph *g);
void tsl_bounds_release(tsl_bounds *b);
/* LB(N) = max_d dev_head + N * load + dev_tail (devices with no block skip). */
int64_t tsl_bounds_lower(const tsl_bounds *b, int64_t nmicros);

#endif
