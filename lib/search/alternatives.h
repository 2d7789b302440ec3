/* The search over memory-time alternatives (alternatives.c): tessel_search
 * itself. No function of its own is called from elsewhere but a test's
 * hook. */
#ifndef TESSEL_ALTERNATIVES_H
#define TESSEL_ALTERNATIVES_H

#include <stdint.h>

/* Tests only: ALT_AUTO_TOTAL and ALT_AUTO_LEAST (the total of the plans'
 * default budgets and the least a plan gets, units) replaced by total and
 * least for the searches begun after it (<= 0: the defaults again). Not
 * for use while a search runs. */
void tsl_alt_auto_total_for_tests(int64_t total, int64_t least);

/* Tests only: the work (units, the passes over the plans' schedules
 * counted) past which a plan whose graph's lower bound is not below the
 * best makespan so far is not begun (plans_beyond_best; ALT_AUTO_CEILING)
 * replaced by `from` for the searches begun after it (<= 0: the default
 * again). Not for use while a search runs. */
void tsl_alt_beyond_best_for_tests(int64_t from);

#endif
