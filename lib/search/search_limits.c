/* Stages around every search of a graph as it stands (tsl_search_plain):
 * before it, the memory limits no schedule can reach are lifted, so that
 * every such limit searches as no limit (whatever its value: a looser
 * limit is never longer between them); after it, the schedule goes back
 * under the limits asked for and is validated there. */
#include "search_limits.h"

#include "error.h"
#include "util.h"
#include "validate.h"

/* Stage before the search: a limit no schedule can reach is no limit.
 * Memory on a device starts at 0 and grows only by the blocks that take
 * memory, so no schedule of N micro-batches holds more than N times their
 * deltas; a device whose limit is at least that searches as one without a
 * limit, and every limit above what a schedule can hold gives the
 * schedule of no limit, whatever its value (a looser limit is never
 * longer, between such limits too). *out: a copy of g with those
 * devices' limits lifted, or NULL when no device has such a limit. */
int tsl_limits_lift(tessel_graph **out, const tessel_graph *g,
				   int64_t nmicros)
{
	*out = NULL;
	if (nmicros < 1)
		return TSL_OK;
	int64_t *most = tsl_calloc((size_t)g->ndevices, sizeof *most);
	if (!most)
		return tsl_error_nomem();
	for (int b = 0; b < g->nblocks; b++)
		for (int i = 0; g->blocks[b].memory > 0 && i < g->blocks[b].ndevices; i++)
			most[g->blocks[b].devices[i]] += g->blocks[b].memory;
	int rc = TSL_OK;
	for (int d = 0; d < g->ndevices && !rc; d++) {
		int64_t lim = g->memory_limit[d];
		/* most * nmicros <= lim, without overflow */
		if (lim == TESSEL_UNLIMITED || most[d] > lim / nmicros)
			continue;
		if (!*out)
			rc = tessel_graph_dup(out, g);
		if (!rc)
			rc = tessel_graph_set_memory_limit(*out, d, TESSEL_UNLIMITED);
	}
	tsl_free(most);
	if (rc) {
		tessel_graph_free(*out);
		*out = NULL;
	}
	return rc;
}

/* Stage after it: the schedule found with the lifted limits onto g's own
 * limits, which it fits (no schedule can reach them), with g's lower
 * bound, checked by the validator. */
int tsl_limits_restore(tessel_schedule *s, const tessel_graph *g)
{
	int64_t lb = 0;
	int rc = TSL_OK;
	for (int d = 0; d < g->ndevices && !rc; d++)
		rc = tessel_graph_set_memory_limit(s->graph, d, g->memory_limit[d]);
	if (!rc)
		rc = tessel_graph_lower_bound(&lb, g, s->nmicros);
	if (!rc)
		rc = tessel_schedule_validate(s);
	if (!rc) {
		s->lower_bound = lb;
		s->makespan_optimal = tsl_schedule_makespan(s) <= lb;
	}
	return rc;
}

