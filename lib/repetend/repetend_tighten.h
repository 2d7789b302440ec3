/* Internal: the smallest period of a repetend's own structure. */
#ifndef TESSEL_REPETEND_TIGHTEN_H
#define TESSEL_REPETEND_TIGHTEN_H

#include <stdint.h>

#include "bounds.h"
#include "graph.h"
#include "repetend.h"
#include "stage.h"
#include "budget.h"
#include "util.h"

/* Lower rep's period (of the stage's graph g, with its bounds: rep->T has
 * g->nblocks entries) as far
 * as its structure allows: each block keeps its repetition index q and its
 * place in every device's order of residues (T = P q + r, 0 <= r < P), so
 * the memory formula of repetend_z3.c keeps its value, and the residues are
 * re-solved as difference constraints at the smallest period >= floor that
 * admits them. On success rep->T, period and depth are replaced and
 * *lowered is 1; otherwise rep is unchanged. The stage's deadline (may be NULL)
 * and a work bound linear in the blocks and dependencies end the bisection
 * early with the best period so far. TESSEL_ENOMEM. */
int tsl_repetend_tighten(tsl_repetend *rep, int *lowered, const tsl_stage *st,
			 int64_t floor);

#endif
