/* Internal: a whole schedule of an interleaved pipeline in the order of
 * interleaved 1F1B (complete_interleaved.c). */
#ifndef TESSEL_COMPLETE_INTERLEAVED_H
#define TESSEL_COMPLETE_INTERLEAVED_H

#include "budget.h"
#include "schedule.h"

/* When the schedule's graph is a pipeline of S = v x D stages (forward
 * blocks in a chain F0 -> ... -> F(S-1), each on one device, F(s) on the
 * device of F(s mod D), the first D on distinct devices; backward blocks
 * in the reverse chain, B(S-1) after F(S-1), B(s) after B(s+1) and
 * possibly F(s), on F(s)'s device; optionally a weight block W(s) after
 * B(s) only, on the same device; nothing else), place the N micro-batches
 * in the per-device order of interleaved 1F1B (Megatron-LM's virtual
 * pipeline; plain 1F1B when v = 1): device d runs 2(D-1-d) + (v-1)D
 * forwards, then one forward and one backward at a time, then the
 * backwards left, forwards taking micro-batches in groups of D chunk by
 * chunk; each weight block right after its backward. Spans, memory deltas
 * and latencies are each block's and dependency's own; every instance
 * starts as early as its device's order allows. When the order breaks a
 * memory limit, the warm-ups are shortened one forward at a time until it
 * keeps them (or no forward is left to drop).
 * *found is 1 with the starts in the schedule's entries; 0 (entries partly
 * overwritten) when the graph is no such pipeline or no order kept the
 * limits. TESSEL_ENOMEM, or TESSEL_ETIMEOUT (without a message) when dl's
 * hard end passed or the search was cancelled. Time O(S N) per order;
 * charged to dl. */
int tsl_interleaved_schedule(tessel_schedule *s, int *found,
			     const tsl_deadline *dl);

#endif
