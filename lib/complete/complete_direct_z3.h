/* Internal: all micro-batches scheduled directly with Z3
 * (complete_direct_z3.c). */
#ifndef TESSEL_COMPLETE_DIRECT_Z3_H
#define TESSEL_COMPLETE_DIRECT_Z3_H

#include "bounds.h"
#include "schedule.h"
#include "stage.h"
#include "budget.h"
#include "util.h"

/* For small problems (a few micro-batches): schedule all N micro-batches
 * directly with the solver, below the makespan of the schedule s; on
 * success s's starts are replaced (phases kept). Does nothing for larger
 * problems or when s already reaches the lower bound. *proven: 1 when
 * s's makespan is then known to be minimal. st: s's graph, its bounds,
 * the options (needed) and the deadline of every check. */
int tsl_direct_z3(tessel_schedule *s, int *proven, const tsl_stage *st);

#endif
