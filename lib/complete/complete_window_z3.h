/* Internal: the solver's improvement of a completed schedule's warm-up and
 * cool-down (complete_window_z3.c). */
#ifndef TESSEL_COMPLETE_WINDOW_Z3_H
#define TESSEL_COMPLETE_WINDOW_Z3_H

#include "bounds.h"
#include "schedule.h"
#include "stage.h"
#include "budget.h"
#include "util.h"

/* Re-solve, exactly with Z3, the instances of the schedule's last steps
 * with every other instance kept, then those of its first steps (the last
 * ones mirrored in time), in rounds while the makespan drops, memory
 * limits and latencies honoured. Each window holds at most a few hundred
 * instances; every check stops at the stage's deadline and a work bound
 * (st: s's graph, its bounds, the options, needed, and the deadline). The
 * schedule's starts change only to a valid, shorter schedule. TSL_OK
 * (also when nothing improved, the time ran out or Z3 failed) or
 * TESSEL_ENOMEM. */
int tsl_complete_window_z3(tessel_schedule *s, const tsl_stage *st);

#endif
