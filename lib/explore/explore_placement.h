/* Internal: the placement (a graph) of a partitioned plan
 * (explore_placement.c). */
#ifndef TESSEL_EXPLORE_PLACEMENT_H
#define TESSEL_EXPLORE_PLACEMENT_H

#include "explore_plan.h"

/* The smallest decimal quantum tried for a model's memory figures: 10^-9
 * of its memory unit. */
#define TSL_PLACEMENT_MIN_QUANTUM_EXP (-9)

/* Relative tolerance of the memory counts: a count within 1e-12 of a
 * whole number, relative (and within a thousandth of a unit), is that
 * number: the blur of floating-point sums of decimal figures, far below
 * what a figure can differ by (a figure of ten significant digits is not
 * taken for its rounding). */
#define TSL_PLACEMENT_MEMORY_TOLERANCE 1e-12

/* The memory of one unit of plan p's memory deltas and limits, in the
 * model's memory unit: the largest decimal quantum 10^e (e >= -9) of which
 * the memory per device and every layer's parameters and activation are
 * whole multiples, over the least common multiple of the device counts of
 * p's stages, so that every stage's share is counted exactly; when no such
 * quantum keeps a device's memory within TESSEL_MAX_MEMORY units, a
 * TESSEL_MAX_MEMORY-th of a device's memory (activations are then rounded
 * up to it, the limits down). */
double tsl_plan_memory_unit(const tsl_plan *p, const tessel_model *m);

/* `value` (>= 0) in units of `unit`, rounded up, or down: whole numbers
 * within TSL_PLACEMENT_MEMORY_TOLERANCE (relative, at most a thousandth
 * of a unit) are kept. */
double tsl_memory_units_up(double value, double unit);
double tsl_memory_units_down(double value, double unit);

/* The placement of plan p (partitioned) on m's devices: per stage a
 * forward block f<s> (its layers' forward time on its devices, keeping
 * their activation), in training a backward b<s> (with the weight time
 * unless split) and with a split a weight block w<s> that frees the
 * activation; the second pipeline's blocks are named rf<s>, rb<s>, rw<s>.
 * Stage s waits for every stage that holds a layer its layers take input
 * from (backwards the other way round), each dependency between devices
 * with the model's transfer time as latency. Times are in the model's
 * unit with a step picked by tessel_pick_step; memory in units of
 * p->memory_unit (tsl_plan_memory_unit); each device's memory limit is its
 * memory less the parameters of its stages (params[d], in the model's
 * unit; params may be NULL). When the plan does not fit (the
 * parameters exceed a device, or one micro-batch does not fit), `why`
 * says so and *out is NULL with TSL_OK. *out: new, release with
 * tessel_graph_free. */
int tsl_plan_graph(tessel_graph **out, double *params, const tsl_plan *p,
		   const tessel_model *m, char *why, size_t whylen);

#endif
