/* Internal: the exact model of some instances of a schedule with every
 * other instance kept (complete_model_z3.c): the one encoding of the
 * window improvement (complete_window_z3.c: the last steps, or the first
 * ones mirrored in time) and of the direct solve (complete_direct_z3.c:
 * every instance, nothing kept). */
#ifndef TESSEL_COMPLETE_MODEL_Z3_H
#define TESSEL_COMPLETE_MODEL_Z3_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "budget.h"
#include "graph.h"
#include "stage.h"

/* A problem: the starts of a schedule's instances (entry index i = micro-
 * batch * nblocks + block) in the problem's time: the schedule's, or
 * mirrored (u = H - start - span: dependencies reverse, each memory delta
 * negated, the limits made room for by tsl_mirrored_limits). */
typedef struct tsl_problem {
	const tessel_graph *g;
	int64_t nmicros;
	size_t n;            /* instances */
	int mirror;
	int64_t *start;      /* per instance */
	int64_t *room;       /* per device: the limit in this time, or INT64_MAX */
	tsl_succ succ;       /* successors of each block (for the mirror) */
	const int64_t *tail; /* per block: time needed after it finishes */
	/* The neighbourhood: each free instance moves at most `reach` of the
	 * free instances' longest spans earlier, and with `later` as much
	 * later too; pairs that far apart keep their order. 0: anywhere. */
	int reach;
	int later;
	/* NULL, or (the whole problem, nothing kept, not mirrored) the
	 * bounds: every start at least its block's head, and the micro-
	 * batches numbered in the order their first block starts (they are
	 * interchangeable) */
	const tsl_bounds *whole;
} tsl_problem;

static inline int64_t tsl_problem_span(const tsl_problem *p, size_t i)
{
	return p->g->blocks[i % (size_t)p->g->nblocks].span;
}

/* Lower the makespan of p below *best, instances movable[0 .. nmov-1] free
 * and every other one kept at its start (before them on its devices):
 * devices, dependencies with their latencies, memory within p->room, the
 * neighbourhood. Targets as tsl_z3_lower (solver.h), each check bounded by
 * rlimit and dl, at most *checks_left checks (NULL: any). *lo: at least the
 * lower bound on entry, raised by what the devices' loads and the refused
 * targets prove. *improved: found[x] holds movable[x]'s start in a schedule of
 * makespan *best, lower than on entry. A model Z3 cannot build (it failed,
 * a cancel, the deadline) is no attempt. TSL_OK or TESSEL_ENOMEM. */
int tsl_problem_lower(int *improved, int64_t *best, int64_t *lo,
		      int64_t *found, const tsl_problem *p, const size_t *movable,
		      size_t nmov, const tsl_opts *opts, unsigned rlimit,
		      int *checks_left, const tsl_deadline *dl);

#endif
