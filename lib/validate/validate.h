/* Internal: the validator (validate.c), for the search's own checks. */
#ifndef TESSEL_VALIDATE_H
#define TESSEL_VALIDATE_H

#include "schedule.h"
#include "budget.h"
#include "util.h"

/* tessel_schedule_validate, giving up with TESSEL_ETIMEOUT when the hard
 * end of dl (may be NULL) passes. */
int tsl_schedule_check(const tessel_schedule *schedule, const tsl_deadline *dl);

#endif
