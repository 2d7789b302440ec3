/* Internal: the stage around every search (tessel_search) that searches
 * many micro-batches as fewer, their steady state repeated
 * (search_extend.c). */
#ifndef TESSEL_SEARCH_EXTEND_H
#define TESSEL_SEARCH_EXTEND_H

#include <stdint.h>

#include "graph.h"
#include "schedule.h"
#include "tessel.h"

/* A search of g under options, as tessel_search runs it (the search over
 * the alternatives, or the plain one). */
typedef int (*tsl_search_fn)(tessel_schedule **out, const tessel_graph *g,
			     const tessel_options *options);

/* The searches of fewer micro-batches that a search of nmicros
 * micro-batches of g runs before repeating their steady state, fewest
 * first, in fewer[]: their count (0: the search runs on all of them; see
 * search_extend.c for when). */
#define TSL_EXTEND_TIERS 2
int tsl_extend_fewer(int64_t fewer[TSL_EXTEND_TIERS], const tessel_graph *g,
		     int64_t nmicros);

/* In schedule s of g (s->nmicros micro-batches), the longest run of
 * micro-batches that repeat the micro-batches k before them, moved by the
 * same steps, for a k dividing nmicros - s->nmicros, repeated until there
 * are nmicros micro-batches, and validated: *out new (the caller's), or
 * NULL with TSL_OK when no run gives a valid schedule (at most `tries`
 * runs, the longest first, are tried). TESSEL_ENOMEM, TESSEL_ETIMEOUT
 * once the hard end of dl (may be NULL) passed. */
int tsl_extend_schedule(tessel_schedule **out, const tessel_schedule *s,
			int64_t nmicros, int tries, const tsl_deadline *dl);

/* The stage: when tsl_extend_fewer(g, N) gives tiers, search each (with
 * options, its N' micro-batches and its share of a time limit) and
 * extend the result to N; *done 1 and *out the schedule (or the error) when that gave one,
 * else *done 0 and the caller searches all N micro-batches. Progress
 * events of the shorter search reach the callbacks of options with the
 * makespan its period gives N micro-batches, and LB(N). */
int tsl_search_extended(tessel_schedule **out, int *done, const tessel_graph *g,
			const tessel_options *options, int64_t nmicros,
			tsl_search_fn search);

/* The stage with the tiers given (fewer[0 .. tiers), each below
 * nmicros): each searched and repeated to nmicros, the shortest valid
 * schedule in *out (ties: the earlier tier), its work the searches' sum;
 * the whole search when none gives one (the search of
 * tsl_search_extended once it decided to run). */
int tsl_search_fewer(tessel_schedule **out, const tessel_graph *g,
		     const tessel_options *options, int64_t nmicros,
		     const int64_t *fewer, int tiers, tsl_search_fn search);

#endif
