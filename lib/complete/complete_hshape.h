/* Internal: a whole schedule of a pipeline of one stage per device with
 * forward, backward and weight blocks, as the Zero Bubble authors' greedy
 * builds it (complete_hshape.c). */
#ifndef TESSEL_COMPLETE_HSHAPE_H
#define TESSEL_COMPLETE_HSHAPE_H

#include "budget.h"
#include "schedule.h"

/* When the schedule's graph is such a pipeline of p devices (p forward
 * blocks in a chain F0 -> ... -> F(p-1), each on a single device of its
 * own; backward blocks in the reverse chain, B(p-1) after F(p-1), B(s)
 * after B(s+1); a weight block W(s) after B(s); B(s) and W(s) on F(s)'s
 * device; no other dependency), place every instance of the N
 * micro-batches as that scheduler orders them: a warm-up of as many
 * forwards per device as end before the first backward comes back (and
 * as memory allows), then per micro-batch one forward on each device and
 * its backward from the last device up, weight blocks put first where
 * memory needs them or where they fill the wait for an input; each of
 * its eight variants run. Spans, memory deltas and latencies are each
 * block's and dependency's own; every instance starts as early as its
 * device's order allows, and the memory limits hold at every step (an
 * order that would break one is dropped).
 * The shortest variant's starts go to the schedule's entries and *found
 * is 1; *found is 0 (entries partly overwritten) when the graph is no such
 * pipeline or no variant kept the limits. TESSEL_ENOMEM, or
 * TESSEL_ETIMEOUT (without a message) when dl's hard end passed or the
 * search was cancelled. Time O(p * N); charged to dl. */
/* 0 when g cannot be such a pipeline by its counts alone (3p blocks on
 * p >= 2 devices): a test in constant time, before a schedule is
 * allocated for tsl_hshape_schedule. */
int tsl_hshape_possible(const tessel_graph *g);

int tsl_hshape_schedule(tessel_schedule *s, int *found, const tsl_deadline *dl);

#endif
