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

#endif
