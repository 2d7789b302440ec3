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

/* Z3 search for the minimal period, then shallow repetends at that period:
 * every improving solution and a few alternatives of the smallest depth
 * found are passed to `cb`. TESSEL_EINFEASIBLE when no period up to the cap
 * admits a repetend within the memory limits. `rep` is work space with
 * rep->T allocated for every block. `hint` (may be NULL) is a repetend
 * already known (from the heuristic): periods above it are not tried and at
 * its period only its depth is lowered. `guide` (may be NULL) is a
 * repetend that ignores memory: at its period the solver first tries the
 * device orders it has. st: the graph, its bounds, the options (needed)
 * and the deadline of every check. */
int tsl_repetend_z3(tsl_repetend *rep, const tsl_stage *st,
		    const tsl_repetend *hint,
		    const tsl_repetend *guide, tsl_candidate_fn cb,
		    void *payload);

/* Smallest memory limit, the same on every device (the graph's limits are
 * ignored), under which a repetend of period P exists; *proven is 1 when
 * the limit below it was shown impossible. `known` > 0 is a limit already
 * known to admit one (from the heuristic): the solver starts below it and
 * returns it when it finds nothing smaller. */
int tsl_min_memory_z3(int64_t *out, int *proven, const tsl_stage *st,
		      int64_t P, int64_t known);

#endif
