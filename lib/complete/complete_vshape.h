/* Internal: a whole schedule of a V-shaped pipeline built in rounds, as
 * the Zero Bubble authors' V scheduler builds it (complete_vshape.c). */
#ifndef TESSEL_COMPLETE_VSHAPE_H
#define TESSEL_COMPLETE_VSHAPE_H

#include "budget.h"
#include "schedule.h"

/* When the schedule's graph is a V-shaped pipeline of p devices (2p
 * forward blocks in a chain F0 -> ... -> F(2p-1), F(s) and F(2p-1-s) on
 * the same single device, one device per s < p; backward blocks in the
 * reverse chain, B(2p-1) after F(2p-1), B(s) after B(s+1); a weight
 * block W(s) after B(s); B(s) and W(s) on F(s)'s device; no other
 * dependency), place every instance of the N micro-batches by the rounds
 * of that scheduler: a warm-up of forwards as memory and the arrival of
 * the second chunk allow, then rounds of one backward and one forward per
 * device with weight blocks put off into the bubbles (or forced by
 * memory), each of its four fill variants repeated with the bubbles it
 * left as the next round's allowance while the largest bubble shrinks.
 * Spans, memory deltas and latencies are each block's and dependency's
 * own (where a kind's spans differ, the rounds also run with one span a
 * kind, as that scheduler takes them: the kind's median, its mean and the
 * upper middle of the devices' means, and their orders start on the own
 * spans); every instance starts as early as its
 * device's order allows, and
 * the memory limits hold at every step (an order that would break one is
 * dropped).
 * The shortest variant's starts go to the schedule's entries and *found
 * is 1; *found is 0 (entries partly overwritten) when the graph is no such
 * pipeline or no variant kept the limits. TESSEL_ENOMEM, or
 * TESSEL_ETIMEOUT (without a message) when dl's hard end passed or the
 * search was cancelled. Time O(rounds * p * N); charged to dl. */
/* 0 when g cannot be such a pipeline by its counts alone (6p blocks on
 * p >= 2 devices): a test in constant time, before a schedule is
 * allocated for tsl_vshape_schedule. */
int tsl_vshape_possible(const tessel_graph *g);

int tsl_vshape_schedule(tessel_schedule *s, int *found, const tsl_deadline *dl);

#endif
