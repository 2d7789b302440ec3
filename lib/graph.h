/* Internal layout of a graph: one micro-batch's blocks, devices, deps. */
#ifndef TESSEL_GRAPH_H
#define TESSEL_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "tessel.h"

typedef struct tsl_block {
	char *name;
	int kind;       /* tessel_kind */
	int span;
	int memory;
	int stage;      /* -1: none */
	int *devices;   /* sorted, distinct */
	int ndevices;
	int *deps;      /* blocks this one waits for */
	int *deplat;    /* per dependency: its own latency, -1: the graph's */
	int ndeps;
	int depcap;
} tsl_block;

struct tessel_graph {
	int ndevices;
	int nblocks;
	int cap;
	tsl_block *blocks;
	int64_t *memory_limit; /* per device; TESSEL_UNLIMITED = none */
	int latency;           /* of every dependency without its own */
	/* name -> gid hash table (open addressing, gid + 1, 0 = empty) */
	int *hash;
	size_t hashcap;
};

/* Topological order of the blocks into `order` (nblocks entries).
 * TESSEL_ECYCLE (with a message naming a block on the cycle) if none. */
int tsl_graph_topo_order(int *order, const tessel_graph *g);

/* Validation without the memory check (structure only). */
int tsl_graph_check_structure(const tessel_graph *g);

/* "forward", "backward" or "weight" (static string). */
const char *tsl_kind_name(int kind);

/* Whether block b occupies device d. */
int tsl_block_on_device(const tsl_block *b, int d);

/* Earliest start of block b of a micro-batch whose blocks start at T:
 * the latest finish of its dependencies (0 without any); with `placed`
 * non-NULL, only the dependencies marked there count. */
int64_t tsl_ready_time(const tessel_graph *g, int b, const int64_t *T,
		       const char *placed);

/* Latency of block B's j-th dependency as a schedule honours it: the
 * dependency's own latency or the graph's, when B occupies a device its
 * producer does not; 0 otherwise (the data is already there). */
int tsl_dep_latency(const tessel_graph *g, const tsl_block *B, int j);

/* Steps from the start of B's j-th dependency to the earliest start of B:
 * the producer's span plus tsl_dep_latency. */
static inline int64_t tsl_dep_gap(const tessel_graph *g, const tsl_block *B,
				  int j)
{
	return (int64_t)g->blocks[B->deps[j]].span + tsl_dep_latency(g, B, j);
}

/* Whether blocks a and b occupy a common device. */
int tsl_blocks_share_device(const tsl_block *a, const tsl_block *b);

#endif
