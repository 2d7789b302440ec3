/* Internal: the candidate plans of the exploration, one per placement
 * family (explore_family.c). */
#ifndef TESSEL_EXPLORE_FAMILY_H
#define TESSEL_EXPLORE_FAMILY_H

#include "explore_plan.h"

/* The plans of every family for model m, in a fixed order: *out (new, each
 * plan released with tsl_plan_release and the array with tsl_free) holds *n
 * of them; a family the model cannot use has its reason in `why` and no
 * stages. Layers are not partitioned yet. TESSEL_ENOMEM. */
int tsl_family_plans(tsl_plan **out, int *n, const tessel_model *m);

#endif
