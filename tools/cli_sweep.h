/* tessel search --sweep (cli_sweep.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef TESSEL_CLI_SWEEP_H
#define TESSEL_CLI_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "tessel.h"

/* The limits of --sweep LIST: comma-separated integers 0 .. 2^50 or
 * "unlimited" (TESSEL_UNLIMITED), at most 1024, into *out (new, release
 * with free; the previous *out freed) and their count. -1 with the
 * reason printed. */
int cli_sweep_parse(int64_t **out, size_t *count, const char *arg);

/* Write the results s[0 .. n) of the limits (NULL: no schedule) to
 * `output` (NULL: the standard output): a table (limit, makespan, lower
 * bound, highest peak, period, work, seconds), or with as_json
 * {"sweep": [{"memory_limit": L or null, "schedule": schedule JSON or
 * null}, ...]}. Returns an exit status (the reason printed). */
int cli_sweep_emit(tessel_schedule *const *s, const int64_t *limits, size_t n,
		   int as_json, const char *output);

#endif
