/* Internal: repetends that hold several micro-batches (repetend_group.c). */
#ifndef TESSEL_REPETEND_GROUP_H
#define TESSEL_REPETEND_GROUP_H

#include "graph.h"
#include "repetend.h"

/* The graph of k independent copies of g (copy j of
 * block b is block j n + b; names "NAME#j"), same devices, dependencies,
 * latencies and memory limits. *out: new (tessel_graph_free). */
int tsl_graph_copies(tessel_graph **out, const tessel_graph *g, int k);

/* The k-repetend of k copies of the one-micro-batch repetend `one` (of n
 * blocks), one period apart: period k P, the same periodic schedule.
 * out->T is (re)allocated. */
int tsl_repetend_replicate(tsl_repetend *out, const tsl_repetend *one, int n,
			   int k);

#endif
