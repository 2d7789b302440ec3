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

/* The ids of entry `idx` of "blocks": `where` (size bytes) set to
 * "\"blocks\"[idx]: " for the messages, the entry an object, "gid" a block
 * of the graph (0 .. nblocks - 1), "mid" in 0 .. max_mid, "step" in
 * 0 .. TESSEL_MAX_STEP. TESSEL_EPARSE / TESSEL_ERANGE otherwise. */
int tsl_json_entry_ids(long long *gid, long long *mid, long long *step,
		       char *where, size_t size, const json_t *obj, size_t idx,
		       int nblocks, long long max_mid);

/* "ndevs" of a schedule object (required) equal to the placement's
 * devices; TESSEL_EPARSE otherwise. */
int tsl_json_check_ndevs(const json_t *root, const tessel_graph *g);

#endif
