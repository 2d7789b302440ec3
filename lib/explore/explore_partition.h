/* Internal: the layers of a plan's stages (explore_partition.c). */
#ifndef TESSEL_EXPLORE_PARTITION_H
#define TESSEL_EXPLORE_PARTITION_H

#include "explore_plan.h"

/* Largest stages x layers of one group the partition takes on (its time
 * is about 50 times that). */
#define TSL_PARTITION_MAX_CELLS 4000000

/* The memory a stage holds on each of its devices, in the model's unit:
 * its parameters and `keep` micro-batches' activations, over its
 * devices. */
double tsl_stage_memory(const tessel_model *m, const tsl_plan_stage *st);

/* Give every partitioned stage of p its layers: each group's layers cut
 * into consecutive ranges, one per stage, so that the longest stage (its
 * forward, backward and weight time on its devices) is as short as
 * possible while every stage fits its share of the device's memory (what
 * the fixed stages on its devices leave, over `share`); mirrors copy
 * their stage. When no cut fits a searched family, the stages' `keep`
 * are halved (down to 1) until one does, then a device's stages may each
 * use all of its memory (the placement's limits say whether the cut
 * fits): the search finds what the memory allows. When none fits, p->why
 * says so and TSL_OK is returned.
 * TESSEL_ENOMEM. */
int tsl_partition(tsl_plan *p, const tessel_model *m);

#endif
