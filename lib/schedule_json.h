/* Internal: what schedule_json.c shares with the other schedule reader,
 * reference_json.c. */
#ifndef TESSEL_SCHEDULE_JSON_H
#define TESSEL_SCHEDULE_JSON_H

#include "graph.h"
#include "json_util.h"

/* Check a schedule entry (schedule JSON, reference files) against block
 * `gid` of g: "span" and "memory" equal, "btype" "forward" for a forward
 * block and "backward" otherwise (absent allowed unless btype_required),
 * "device" the same devices in any order. TESSEL_EPARSE naming the field
 * and the block otherwise. `tmp` has room for g->ndevices ints. */
int tsl_json_check_entry(const tessel_graph *g, int *tmp, const json_t *obj,
			 int gid, int btype_required, const char *where);

/* "ndevs" of a schedule object (required) equal to the placement's
 * devices; TESSEL_EPARSE otherwise. */
int tsl_json_check_ndevs(const json_t *root, const tessel_graph *g);

#endif
