/* Internal: a schedule retimed in its own order (complete_retime.c). */
#ifndef TESSEL_COMPLETE_RETIME_H
#define TESSEL_COMPLETE_RETIME_H

#include "schedule.h"

/* Every block and copy of s (every entry with a start) moved to the
 * earliest step its dependencies, its devices' (or channels') order and
 * the order of its devices' memory moves allow, that order being the one
 * of the starts (of the copies' memory moves) s has on entry, ties by
 * kind then entry index. In place; TESSEL_ENOMEM (s unchanged) on a
 * failed allocation. s is not validated: what its copies must respect
 * beyond that order is the validator's to say. */
int tsl_retime_in_order(tessel_schedule *s);

#endif
