/* The schedule in the Chrome trace event format (chrome://tracing, Perfetto).
 *
 *   {"traceEvents": [
 *     {"name": "thread_name", "ph": "M", "pid": 0, "tid": 0,
 *      "args": {"name": "device 0"}},
 *     {"name": "f0 mb0", "cat": "forward", "ph": "X", "ts": 0, "dur": 1,
 *      "pid": 0, "tid": 0, "args": {"gid": 0, "mid": 0, "phase": "warmup"}},
 *     ...],
 *    "displayTimeUnit": "ms"}
 *
 * One track (tid) per device, named by a metadata event; one complete event
 * per placed entry and device it occupies, step t at t * step_us
 * microseconds. */
#include <math.h>
#include <stdio.h>

#include "error.h"
#include "graph.h"
#include "json_internal.h"
#include "schedule.h"
#include "util.h"


static const char *phase_name(int phase)
{
	switch (phase) {
	case TESSEL_PHASE_WARMUP: return "warmup";
	case TESSEL_PHASE_REPETEND: return "repetend";
	case TESSEL_PHASE_COOLDOWN: return "cooldown";
	default: return "?";
	}
}

/* Metadata event naming device d's track. */
static void put_track_name(tsl_buf *b, int d)
{
	tsl_buf_printf(b, "{\"name\": \"thread_name\", \"ph\": \"M\", "
			  "\"pid\": 0, \"tid\": %d, "
			  "\"args\": {\"name\": \"device %d\"}}", d, d);
}

static void put_event(tsl_buf *b, const struct tessel_entry *e, int d,
		      double step_us)
{
	const tsl_block *blk = &e->sched->graph->blocks[e->gid];
	char mb[32];
	tsl_buf_puts(b, "{\"name\": \"");
	tsl_buf_json_escaped(b, blk->name);
	snprintf(mb, sizeof mb, " mb%lld\"", (long long)e->mid);
	tsl_buf_puts(b, mb);
	tsl_buf_printf(b, ", \"cat\": \"%s\", \"ph\": \"X\", "
			  "\"ts\": %.15g, \"dur\": %.15g, \"pid\": 0, "
			  "\"tid\": %d, \"args\": {\"gid\": %d, \"mid\": %lld, "
			  "\"phase\": \"%s\"}}",
		       tsl_kind_name(blk->kind), (double)e->start * step_us,
		       (double)blk->span * step_us, d, e->gid,
		       (long long)e->mid, phase_name(e->phase));
}

static int put_device(tsl_buf *b, const tessel_schedule *s, int d,
		      double step_us)
{
	tessel_iter *it = NULL;
	int rc = tessel_iter_new(&it, s, d);
	if (rc)
		return rc;
	const tessel_entry *e;
	while (tessel_iter_next(&e, it) == TESSEL_OK) {
		tsl_buf_puts(b, ",\n");
		put_event(b, e, d, step_us);
	}
	tessel_iter_free(it);
	return TSL_OK;
}

TESSEL_API int tessel_schedule_to_trace_json(char **out,
					     const tessel_schedule *schedule,
					     double step_us)
{
	static const char fn[] = "tessel_schedule_to_trace_json";
	if (!out)
		return tsl_error(TESSEL_EINVAL, "%s: out is NULL", fn);
	*out = NULL;
	if (!schedule)
		return tsl_error(TESSEL_EINVAL, "%s: schedule is NULL", fn);
	if (isnan(step_us) || step_us <= 0)
		return tsl_error(TESSEL_EINVAL,
				 "%s: step_us must be > 0, got %g", fn, step_us);
	if (!isfinite(step_us))
		return tsl_error(TESSEL_ERANGE,
				 "%s: step_us must be finite, got %g", fn,
				 step_us);
	int64_t makespan = tsl_schedule_makespan(schedule);
	if (!isfinite((double)makespan * step_us))
		return tsl_error(TESSEL_ERANGE,
				 "%s: step_us %g times the makespan %lld "
				 "overflows", fn, step_us, (long long)makespan);
	const tessel_graph *g = schedule->graph;
	int rc = tsl_json_check_names(g, fn);
	if (rc)
		return rc;
	tsl_buf b;
	tsl_buf_init(&b);
	tsl_buf_puts(&b, "{\"traceEvents\": [\n");
	for (int d = 0; d < g->ndevices; d++) {
		if (d)
			tsl_buf_puts(&b, ",\n");
		put_track_name(&b, d);
	}
	for (int d = 0; d < g->ndevices && !rc; d++)
		rc = put_device(&b, schedule, d, step_us);
	if (!rc)
		tsl_buf_puts(&b, "\n],\n\"displayTimeUnit\": \"ms\"}\n");
	return tsl_buf_finish(out, &b, rc);
}
