/* Internal: a candidate placement of the exploration (tessel_explore_*,
 * doc/guide.md "Exploring placements") before it becomes a graph: its
 * family, its stages (a range of layers on a range of devices each) and
 * what the partition of the layers must respect. Made by
 * explore_family.c, its layers set by explore_partition.c, turned into a
 * placement by explore_placement.c. */
#ifndef TESSEL_EXPLORE_PLAN_H
#define TESSEL_EXPLORE_PLAN_H

#include <stdint.h>

#include "model.h"
#include "util.h"

#define TSL_PLAN_NAME_LEN 32
#define TSL_PLAN_WHY_LEN 256

/* How a candidate is scheduled. */
typedef enum tsl_plan_mode {
	TSL_PLAN_SEARCH = 0,   /* tessel_search on its placement */
	TSL_PLAN_GPIPE = 1,    /* the GPipe order, as early as possible */
	TSL_PLAN_1F1B = 2      /* the 1F1B order, as early as possible */
} tsl_plan_mode;

typedef struct tsl_plan_stage {
	int lo, hi;        /* its layers, [lo, hi) of the model's list */
	int dev, ndev;     /* its devices, dev .. dev + ndev - 1 (ndev > 1:
			    * tensor-parallel) */
	int replica;       /* 0, or 1 for the second of two pipelines */
	int64_t keep;      /* micro-batches whose activations the
			    * partition keeps room for */
	double cap;        /* memory the partition may give it (set by
			    * tsl_partition from the family's share) */
	int fixed;         /* 1: the family set its layers */
	int share;         /* partitioned stages on its devices: its cap is
			    * what the fixed stages leave, over share */
	int mirror;        /* >= 0: the stage whose layers it copies */
} tsl_plan_stage;

/* Stages first .. last (in order, none fixed or a mirror) share the
 * layers [lo, hi) of the model, at least one each. */
typedef struct tsl_plan_group {
	int first, last;
	int lo, hi;
} tsl_plan_group;

#define TSL_PLAN_MAX_GROUPS 2

typedef struct tsl_plan {
	char family[TSL_PLAN_NAME_LEN]; /* "1f1b", "interleaved-2", ... */
	tsl_plan_mode mode;
	int split;         /* the weight gradient as a block of its own */
	int replicas;      /* 1, or 2: two pipelines in opposite directions,
			    * one micro-batch of the placement a pair */
	int chunks;        /* pipelined stages per device */
	int tp;            /* devices of a tensor-parallel stage; 1: none */
	int nstages;
	tsl_plan_stage *stages;
	tsl_plan_group groups[TSL_PLAN_MAX_GROUPS]; /* what the partition
			    * splits */
	int ngroups;
	int64_t micros;    /* micro-batches of the placement */
	double memory_unit; /* memory of one unit of the placement's memory
			    * counts, in the model's unit (set by
			    * tsl_plan_memory_unit before the partition) */
	char why[TSL_PLAN_WHY_LEN]; /* "" or why the family cannot be used */
} tsl_plan;

/* Release what a plan owns (not the plan); a type-only header, so the
 * release is here too. */
static inline void tsl_plan_release(tsl_plan *p)
{
	tsl_free(p->stages);
	p->stages = NULL;
	p->nstages = 0;
}

#endif
