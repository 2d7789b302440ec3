/* Internal: the placement (a graph) of a partitioned plan
 * (explore_placement.c). */
#ifndef TESSEL_EXPLORE_PLACEMENT_H
#define TESSEL_EXPLORE_PLACEMENT_H

#include "explore_plan.h"

/* The memory of one unit of the placements' memory deltas and limits: a
 * 65536th of a device's memory (activations are rounded up to it, the
 * limits down). */
#define TSL_PLACEMENT_MEMORY_UNITS 65536

/* The placement of plan p (partitioned) on m's devices: per stage a
 * forward block f<s> (its layers' forward time on its devices, keeping
 * their activation), in training a backward b<s> (with the weight time
 * unless split) and with a split a weight block w<s> that frees the
 * activation; the second pipeline's blocks are named rf<s>, rb<s>, rw<s>.
 * Stage s waits for every stage that holds a layer its layers take input
 * from (backwards the other way round), each dependency between devices
 * with the model's transfer time as latency. Times are in the model's
 * unit with a step picked by tessel_pick_step; each device's memory limit
 * is its memory less the parameters of its stages (params[d], in the
 * model's unit; params may be NULL). When the plan does not fit (the
 * parameters exceed a device, or one micro-batch does not fit), `why`
 * says so and *out is NULL with TSL_OK. *out: new, release with
 * tessel_graph_free. */
int tsl_plan_graph(tessel_graph **out, double *params, const tsl_plan *p,
		   const tessel_model *m, char *why, size_t whylen);

#endif
