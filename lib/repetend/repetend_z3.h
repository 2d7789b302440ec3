/* Internal: the repetend solved with Z3, and the smallest memory for a
 * period (repetend_z3.c). */
#ifndef TESSEL_REPETEND_Z3_H
#define TESSEL_REPETEND_Z3_H

#include <stdint.h>

#include "bounds.h"
#include "graph.h"
#include "repetend.h"
#include "stage.h"
#include "budget.h"
#include "util.h"

/* Z3 search for the minimal period, then shallow repetends at that
 * period, as a generator the driver pulls candidates from: it makes the
 * next step of the search (the hint lowered to what its structure admits,
 * one check of the bisection of the periods, the final period's depth
 * lowered and its alternatives) only when every candidate of the last one
 * was taken, so the driver completes and checks each candidate between
 * two steps, with no solver call under way.
 *
 * tsl_period_search_new: the search of the stage st (its graph, bounds,
 * options, needed, and the deadline of every check) into *out (free it
 * with tsl_period_search_free; NULL is a no-op). `rep` is the caller's
 * work space, rep->T allocated for every block; once the search is over
 * it holds the repetend of the final period (rep->optimal when that
 * period is proven minimal). `hint` (may be NULL) is a repetend already
 * known (from the heuristic): periods above it are not tried and at its
 * period only its depth is lowered. `guide` (may be NULL) is a repetend
 * that ignores memory: at its period the solver first tries the device
 * orders it has. An error (TESSEL_EINFEASIBLE when the period cap is below
 * the resource bound, TESSEL_ETIMEOUT when the model is too large for the
 * deadline) leaves *out NULL.
 *
 * tsl_period_search_next: *out the next candidate, borrowed until the
 * next call (every improving repetend and a few alternatives of the
 * smallest depth found), TESSEL_ITEROVER when the search is over, or the
 * error that ended it once its candidates were taken: TESSEL_EINFEASIBLE
 * when no period up to the cap admits a repetend within the memory
 * limits, TESSEL_ETIMEOUT / TESSEL_ECANCELLED, TESSEL_ENOMEM,
 * TESSEL_ESOLVER. The driver may stop pulling at any time. */
typedef struct tsl_period_search tsl_period_search;
int tsl_period_search_new(tsl_period_search **out, tsl_repetend *rep,
			  const tsl_stage *st, const tsl_repetend *hint,
			  const tsl_repetend *guide);
int tsl_period_search_next(const tsl_repetend **out, tsl_period_search *ps);
void tsl_period_search_free(tsl_period_search *ps);

/* The whole search at once, each candidate passed to `cb` (NULL: none
 * wanted, and no depth lowering); for the white-box tests. TSL_OK once
 * the search is over (rep as above), or the first error of the search or
 * of cb. */
int tsl_repetend_z3(tsl_repetend *rep, const tsl_stage *st,
		    const tsl_repetend *hint, const tsl_repetend *guide,
		    tsl_candidate_fn cb, void *payload);

/* Smallest memory limit, the same on every device (the graph's limits are
 * ignored), under which a repetend of period P exists; *proven is 1 when
 * the limit below it was shown impossible. `known` > 0 is a limit already
 * known to admit one (from the heuristic): the solver starts below it and
 * returns it when it finds nothing smaller. */
int tsl_min_memory_z3(int64_t *out, int *proven, const tsl_stage *st,
		      int64_t P, int64_t known);

#endif
