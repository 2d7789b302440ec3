/* The search of one graph as it stands (search.c): every block keeps its
 * activation; the search over memory-time alternatives (alternatives.c)
 * calls it on graphs it derives. */
#ifndef TESSEL_SEARCH_H
#define TESSEL_SEARCH_H

#include "stage.h"
#include "tessel.h"

/* A part of a search's effort: per_mille of the work budget the options
 * give (the default budget as the graph sizes it, or the set limit), and a
 * time limit of its own (0: the options'). */
typedef struct tsl_share {
	int64_t per_mille;
	int64_t time_limit_ms;
	int halted;       /* out: a progress callback asked the search to stop */
	int64_t nmicros;  /* > 0: micro-batches instead of the options' */
	unsigned rlimit_cap; /* > 0: every solver check gets at most this
			      * much of Z3's resource count */
	int64_t work_cap; /* > 0: at most this many work units (the share
			   * of what is left of an explicit budget) */
	int64_t work_spent; /* out: the work units the search spent, with a
			     * schedule or without */
	int held;         /* the caller holds a schedule already (tsl_opts.held) */
	int first_only;   /* the search ends with its first schedule (list
			   * scheduling, the pipeline shapes or one
			   * micro-batch at a time; tsl_opts.first_only):
			   * TESSEL_EINFEASIBLE when there is none */
	/* NULL, or called once when the search made no first schedule (its
	 * memory too tight for list scheduling and for one micro-batch at a
	 * time): 1 when the caller now holds a schedule (found elsewhere),
	 * and the search then goes on as with `held`; *halted set when a
	 * progress callback asked to stop meanwhile (the search then stops) */
	int (*no_first)(void *arg, int *halted);
	void *no_first_arg;
	int64_t work_given; /* out: the work units the search was given
			     * (its share of its default budget, or of
			     * the budget set) */
	int64_t first_work; /* out: the work units its first schedule took
			     * (0: none made) */
} tsl_share;

/* tessel_search of g ignoring any declared alternative, with share (NULL:
 * all) of the effort. */
int tsl_search_plain(tessel_schedule **out, const tessel_graph *g,
		     const tessel_options *options, tsl_share *share);

#endif
