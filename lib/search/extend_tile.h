/* Internal: a schedule of few micro-batches laid end to end, as tiles,
 * until there are many (extend_tile.c). */
#ifndef TESSEL_EXTEND_TILE_H
#define TESSEL_EXTEND_TILE_H

#include <stdint.h>

#include "budget.h"
#include "schedule.h"

/* Schedule s (N' = s->nmicros micro-batches) as tiles: micro-batch
 * t N' + i takes the steps of micro-batch i of s moved by t T, for t = 0,
 * 1, ... until there are nmicros (the last tile the first nmicros mod N'
 * of them when N' does not divide nmicros), T the least shift that keeps
 * every device's and copy channel's steps of one tile after those of the
 * tile before. *out new (the caller's), not checked: what the tiles hold
 * together in memory is the validator's to say. TESSEL_EINVAL when
 * nmicros is not more than N', TESSEL_ENOMEM, TESSEL_ETIMEOUT once the
 * hard end of dl (may be NULL) passed. */
int tsl_tile_schedule(tessel_schedule **out, const tessel_schedule *s,
		      int64_t nmicros, const tsl_deadline *dl);

/* The makespan of tsl_tile_schedule(s, nmicros) without making it (a
 * pass over s): *out, INT64_MAX when it would make none. Errors as
 * tsl_tile_schedule's but the time limit. */
int tsl_tile_makespan(int64_t *out, const tessel_schedule *s, int64_t nmicros);

#endif
