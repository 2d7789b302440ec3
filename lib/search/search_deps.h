/* Internal: the dependencies of a dense graph that others imply, dropped
 * before a search, and the schedule put back on the graph as given after
 * it (search_deps.c). */
#ifndef TESSEL_SEARCH_DEPS_H
#define TESSEL_SEARCH_DEPS_H

#include "graph.h"
#include "schedule.h"

/* Graphs of more blocks than this are not reduced (the reduction keeps a
 * bit per pair of blocks: 32 MB here). */
#define TSL_REDUCE_MAX_BLOCKS 16384

/* *out: a copy of g without the dependencies that a path of others
 * implies, or NULL when g keeps them all: when it has at most
 * TSL_PLAIN_DEPS dependencies a block on average, more than
 * TSL_REDUCE_MAX_BLOCKS blocks, a dependency of its own latency, or none
 * to drop. g must be valid (acyclic). TESSEL_ENOMEM (*out NULL). */
int tsl_deps_reduce(tessel_graph **out, const tessel_graph *g);

/* *s, found on the copy tsl_deps_reduce made, onto g (the graph it was
 * made from), checked by the validator there; *s is replaced (its error
 * when the check fails, TESSEL_ENOMEM: *s is then left as it was). */
int tsl_deps_restore(tessel_schedule **s, const tessel_graph *g);

#endif
