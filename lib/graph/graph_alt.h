/* Memory-time alternatives of a graph's blocks: recompute and offload
 * declarations (the public setters and getters live in graph_alt.c). */
#ifndef TESSEL_GRAPH_ALT_H
#define TESSEL_GRAPH_ALT_H

#include "graph.h"

/* Number of blocks that declare a recompute or an offload alternative. */
int tsl_graph_alternatives(const tessel_graph *g);

/* Whether block f's instance may take `choice` (tessel_choice): keep
 * always, the others when declared. */
int tsl_block_allows(const tsl_block *f, int choice);

/* The backward block a choice of block f concerns (-1 for keep or an
 * undeclared choice), the memory it moves and its time (recompute: the
 * backward's extra steps; offload: each copy's steps). */
int tsl_choice_backward(const tsl_block *f, int choice);
int tsl_choice_saves(const tsl_block *f, int choice);
int tsl_choice_time(const tsl_block *f, int choice);

/* Each block's memory delta (mem: nblocks values) under the cheapest
 * declared alternatives: a block that may recompute or offload keeps its
 * memory less the larger saving, which its backward takes back (an
 * offload's copies count as instant: for lower bounds). */
void tsl_graph_cheapest_memory(int64_t *mem, const tessel_graph *g);

/* Each block's memory delta at its own start (start: nblocks values)
 * under the cheapest declared alternatives, from mem (as
 * tsl_graph_cheapest_memory gives it): as mem, but a block whose cheapest
 * alternative is an offload holds its memory at its start less only what
 * recompute would save (the offload frees it after the block, once its
 * copy ends). */
void tsl_graph_cheapest_start(int64_t *start, const int64_t *mem,
			      const tessel_graph *g);

#endif
