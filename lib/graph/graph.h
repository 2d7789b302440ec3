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
	double *deptime; /* per dependency: its own latency in the placement's
			  * unit as given (tessel_graph_add_dep_latency_time);
			  * -1: given in steps, or none */
	double duration; /* in the placement's unit as given; 0: none (the
			  * span was given in steps) */
	int ndeps;
	int depcap;
	int nsucc;      /* blocks that depend on this one */
	/* Memory-time alternatives (graph_alt.c): -1 when not declared. */
	int rc_backward; /* recompute: the backward that runs the forward again */
	int rc_saves;    /* memory not kept after the forward */
	int rc_extra;    /* steps the backward runs longer */
	int of_backward; /* offload: the backward before which it is reloaded */
	int of_saves;    /* memory moved to the host */
	int of_transfer; /* steps of each copy on the device's copy channel */
} tsl_block;

struct tessel_graph {
	int ndevices;
	int nblocks;
	int cap;
	tsl_block *blocks;
	int64_t *memory_limit; /* per device; TESSEL_UNLIMITED = none */
	int latency;           /* of every dependency without its own */
	double latency_time;   /* `latency` in the unit as given; -1: given in
				* steps */
	double step;           /* length of one step in the unit; 0: none */
	char *unit;            /* name of the unit; NULL: none */
	/* name -> gid hash table (open addressing, gid + 1, 0 = empty) */
	int *hash;
	size_t hashcap;
	/* the cycle check of add_dep: a mark per block (walk_cap of them,
	 * a block is marked when it holds walk_stamp) and its stack */
	unsigned *walk_mark;
	int *walk_stack;
	int walk_cap;
	unsigned walk_stamp;
	int defer_cycles; /* 1: add_dep leaves cycles to the validation (a
			   * reader that validates what it read) */
};

/* Room for nblocks blocks in all (and their names' table) at once, so
 * that a reader that knows the count never grows them by doubling;
 * TESSEL_ENOMEM. More than TESSEL_MAX_BLOCKS: nothing done. */
int tsl_graph_reserve(tessel_graph *g, int nblocks);

/* Topological order of the blocks into `order` (nblocks entries).
 * TESSEL_ECYCLE (with a message naming a block on the cycle) if none. */
int tsl_graph_topo_order(int *order, const tessel_graph *g);

/* Lower bound on the memory one micro-batch needs on each device (need:
 * ndevices values, 0 on a device where no block takes memory) and the
 * block at which it is needed (at: -1 for none). TESSEL_ENOMEM,
 * TESSEL_ECYCLE. */
int tsl_graph_memory_need(int64_t *need, int *at, const tessel_graph *g);

/* What nmicros micro-batches leave behind within every device's limit: a
 * device whose blocks' memory deltas sum to c > 0 ends a run of nmicros
 * micro-batches holding nmicros * c. TESSEL_EINFEASIBLE naming the first
 * device where that is above its limit, TESSEL_ENOMEM, else TSL_OK. */
int tsl_graph_check_leftover(const tessel_graph *g, int64_t nmicros);

/* What a counted step of the heuristics is charged on g, in sixteenths of
 * a tick (tsl_deadline.visit_weight): 16 up to an average of
 * TSL_PLAIN_DEPS dependencies a block, then growing with the average (a
 * step visits a block and its dependencies; the rates of budget.h were
 * measured on pipelines of about one a block). */
#define TSL_PLAIN_DEPS 4
int tsl_graph_visit_weight(const tessel_graph *g);

/* The dependency before -> after with latency `lat` (-1: the graph's),
 * taken from a valid graph (a copy of it, a copy of its blocks): neither a
 * duplicate nor a cycle can come of it, so neither is looked for (on a
 * graph of d dependencies a block that look is d^2 a block). Ids and
 * the latency are checked. */
int tsl_graph_add_dep_known(tessel_graph *g, int before, int after, int lat);

/* Validation without the memory check (structure only). */
int tsl_graph_check_structure(const tessel_graph *g);

/* The successor index of a graph (compressed rows): the consumers of block
 * b are block[start[b] .. start[b + 1]) in ascending gid, and dep[k] is
 * the index of the dependency in the deps of block[k] (so its latency is
 * tsl_dep_latency(g, &g->blocks[block[k]], dep[k]), kept in lat[k]: the
 * schedulers read it once per instance). The one successor index of the
 * library: build it with tsl_succ_build, release it with tsl_succ_release
 * (TESSEL_ENOMEM, and x zeroed, on failure). */
typedef struct tsl_succ {
	int *start; /* nblocks + 1 */
	int *block;
	int *dep;
	int *lat;
} tsl_succ;

int tsl_succ_build(tsl_succ *x, const tessel_graph *g);
void tsl_succ_release(tsl_succ *x);

/* "forward", "backward" or "weight" (static string), as the placement
 * JSON and the exports spell a tessel_kind; "?" for another value. */
const char *tsl_kind_name(int kind);

/* TESSEL_EINVAL naming the first block (and `fn`) whose name is not valid
 * UTF-8: JSON text cannot hold it. For the hand-written JSON writers
 * (actions, trace), which do not use jansson. */
int tsl_json_check_names(const tessel_graph *g, const char *fn);

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

/* Time of block b in the placement's unit: its duration when it has one,
 * else its span times the step, else (no step) its span. */
double tsl_block_time(const tessel_graph *g, int b);

/* Latency of block B's j-th dependency in the placement's unit (its own or
 * the graph's, as given; latencies given in steps count step each, or 1
 * without a step), whether or not the devices make it count. */
double tsl_dep_latency_time(const tessel_graph *g, const tsl_block *B, int j);

/* Whole steps of `value` (> 0) for a step of `step`: value / step rounded
 * up, but to the nearest integer when within 1e-9 of it (so that 2.8 / 0.1
 * gives 28), at least 1. A double, as it may exceed every int. */
double tsl_steps_of(double value, double step);

/* Whether blocks a and b occupy a common device. */
int tsl_blocks_share_device(const tsl_block *a, const tsl_block *b);

#endif
