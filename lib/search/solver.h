/* What the Z3 encodings (repetend_z3.c, complete_model_z3.c) share: a context whose
 * errors never abort, a QF_LIA solver, cancellation from another thread,
 * and checks bounded by time, Z3's deterministic resource count and the
 * solver memory cap. */
#ifndef TESSEL_SOLVER_H
#define TESSEL_SOLVER_H

#include <z3.h>

#include "options.h"
#include "stage.h"
#include "budget.h"
#include "util.h"

typedef struct tsl_z3 {
	Z3_context ctx;
	Z3_solver solver;
	Z3_sort isort;
	const tsl_opts *opts;
	tsl_interrupt watch; /* lets a cancel request interrupt the solver */
	int64_t terms;       /* constraints asserted (tsl_z3_assert): Z3
			      * takes them in at the next check, work
			      * outside its resource count */
	int64_t terms_charged; /* ... of which charged already */
} tsl_z3;

/* Open a context and solver for `opts` (seed); TESSEL_ESOLVER when Z3
 * cannot. On failure z is left closed. */
int tsl_z3_open(tsl_z3 *z, const tsl_opts *opts);

/* Release everything; a closed or zeroed z is fine. */
void tsl_z3_close(tsl_z3 *z);

/* Check, under the assumptions if n > 0, with the time left before `dl`,
 * at most `rlimit` resource units (0: no bound) and the memory cap:
 * 1 sat, 0 unsat, -1 undecided (a limit, a cancel, the memory cap),
 * or a negative error code below -1 (the error set) when Z3 failed. */
int tsl_z3_check(tsl_z3 *z, const tsl_deadline *dl, unsigned rlimit,
		 unsigned n, const Z3_ast *assumptions);

/* Push a scope on z's solver. The first push or check of a solver takes
 * in what was asserted before (work outside Z3's resource count, charged
 * to dl per term). */
void tsl_z3_push(tsl_z3 *z, const tsl_deadline *dl);

/* Work the solver of z has done so far, in Z3's deterministic resource
 * units (its statistic "rlimit count"; 0 when not reported). */
uint64_t tsl_z3_work(tsl_z3 *z);

/* Whether a check of this thread ended at the memory cap (Z3 out of
 * memory included) since the last reset: for the messages of a search
 * that found nothing. */
void tsl_z3_reset_capped(void);
int tsl_z3_capped(void);

/* The message of the first Z3 error since the last check (and forget
 * it), or NULL when there was none. */
const char *tsl_z3_take_error(tsl_z3 *z);

/* Lowering a makespan: `makespan` is a variable of z's model, at least
 * every var[i] + span[i] (i < nvars) and at least `fixed_end`. Targets 1,
 * 2, 4, ... steps below *best while they are met, then halving between the
 * last refused target and *best: checks logarithmic in the gap, whatever
 * the spans. Each check is bounded by `rlimit` and dl; at most *checks_left
 * checks (when checks_left is not NULL, decreased as they run). A refused
 * target raises *lo (nothing shorter exists). *improved: found[0 ..
 * nvars-1] holds the starts of a schedule of makespan *best, lower than
 * on entry. An undecided check, a Z3 failure or an unreadable model ends
 * the lowering (the best so far stands). TSL_OK or TESSEL_ENOMEM. */
int tsl_z3_lower(int *improved, int64_t *best, int64_t *lo, int64_t *found,
		 tsl_z3 *z, Z3_ast makespan, const Z3_ast *var,
		 const int64_t *span, size_t nvars, int64_t fixed_end,
		 unsigned rlimit, int *checks_left, const tsl_deadline *dl);

/* Terms of the integer encoding (complete_model_z3.c): the constant v,
 * x + c, and the assertion x <= y. */
static inline Z3_ast tsl_z3_int(const tsl_z3 *z, int64_t v)
{
	return Z3_mk_int64(z->ctx, v, z->isort);
}

static inline Z3_ast tsl_z3_add_int(const tsl_z3 *z, Z3_ast x, int64_t c)
{
	Z3_ast a[2] = {x, tsl_z3_int(z, c)};
	return c ? Z3_mk_add(z->ctx, 2, a) : x;
}

static inline void tsl_z3_assert(tsl_z3 *z, Z3_ast a)
{
	Z3_solver_assert(z->ctx, z->solver, a);
	z->terms++;
}

static inline void tsl_z3_assert_le(tsl_z3 *z, Z3_ast x, Z3_ast y)
{
	tsl_z3_assert(z, Z3_mk_le(z->ctx, x, y));
}

#endif
