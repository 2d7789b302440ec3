/* Internal: list scheduling of all N micro-batches at once, without a
 * repetend (complete_list.c). */
#ifndef TESSEL_COMPLETE_LIST_H
#define TESSEL_COMPLETE_LIST_H

#include <stdint.h>

#include "bounds.h"
#include "budget.h"
#include "schedule.h"
#include "stage.h"

/* How a device chooses among the instances ready on it. */
typedef struct tsl_list_rule {
	/* per kind (tessel_kind): its rank, 0 first; among the ready
	 * instances of one rank the earliest micro-batch first, then the
	 * longest path to the end */
	unsigned char rank[3];
	/* a weight block starts only when it ends before the next instance
	 * of a better rank becomes ready on its device, or when memory holds
	 * that instance back (0: whenever it is the best that can start) */
	int weight_in_gaps;
	/* memory kept for the earliest micro-batches still to allocate on a
	 * device: an instance that takes memory starts only when what the
	 * `reserve` earliest other micro-batches still take on each of its
	 * devices fits beside it (0: none). With 1 the earliest micro-batch
	 * can always go on, so memory never holds every instance back. */
	int reserve;
	/* micro-batches in flight on a device (some of its blocks there
	 * started, not all): at most what keeps it busy while one makes its
	 * way through the others, the span one micro-batch has on the
	 * device over its load there (rounded up), plus `flight_slack`;
	 * < 0: no cap */
	int flight_slack;
	/* a forward starts only when it ends before the next instance of a
	 * better rank becomes ready on its device, or when memory holds
	 * that instance back: the backward pass is never held up by a
	 * forward begun just before it arrives (0: whenever it is the best
	 * that can start) */
	int forward_in_gaps;
} tsl_list_rule;

/* The rules tsl_list_best tries, in order. */
#define TSL_LIST_NRULES 25
extern const tsl_list_rule tsl_list_rules[TSL_LIST_NRULES];

/* Parallel schedule generation: time moves forward; whenever every
 * device of an instance whose dependencies have finished (plus their
 * latencies) is free and its memory fits on each, the best instance by
 * `rule` starts. Each instance starts at its final time, so the memory
 * limits hold at every step. The starts go to the schedule's entries;
 * TESSEL_EINFEASIBLE (without a message) when no instance can start
 * before all are placed (memory holds every ready instance back),
 * TESSEL_ETIMEOUT (without a message) when the hard end of the stage's
 * deadline passed or the search was cancelled (st: s's graph, its bounds,
 * the options, may be NULL, and the deadline).
 * Time O(I log I) for I instances; charged to the deadline. */
int tsl_list_schedule(tessel_schedule *s, const tsl_stage *st,
		      const tsl_list_rule *rule);

/* The rounds of a V pipeline (tsl_vshape_schedule, when the graph is
 * one), then tsl_list_schedule with each rule of tsl_list_rules, then the
 * four shortest rules keeping every device to caps of a fixed grid of the
 * memory axis (8 points between half the largest limit and it, cap by
 * cap, within half the work left when they begin); the shortest result
 * stays in s (*found 1), or *found 0 when none placed every instance.
 * Stops at the stage's deadline once one was found (its hard end
 * before). */
int tsl_list_best(tessel_schedule *s, int *found, const tsl_stage *st);

/* How many more results tsl_list_top gives besides the shortest. */
#define TSL_LIST_MORE 2

/* tsl_list_best, and the starts of the next shortest results (of
 * makespans other than the shortest's and each other's, shortest first)
 * into more[0 .. *nmore) (room for TSL_LIST_MORE; each an array of the
 * schedule's instances in entry order, the caller's to free), so that a
 * caller improving the results may start from each. more and nmore may be
 * NULL (none). */
int tsl_list_top(tessel_schedule *s, int *found, const tsl_stage *st,
		 int64_t **more, int *nmore);

#endif
