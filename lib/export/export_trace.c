/* Stage: export. The schedule in the Chrome trace event format
 * (chrome://tracing, Perfetto).
 *
 *   {"traceEvents": [
 *     {"name": "process_name", "ph": "M", "pid": 0,
 *      "args": {"name": "tessel schedule"}},
 *     {"name": "thread_name", "ph": "M", "pid": 0, "tid": 0,
 *      "args": {"name": "device 0"}},
 *     {"name": "f0 mb0", "cat": "forward", "ph": "X", "ts": 0, "dur": 1,
 *      "pid": 0, "tid": 0, "args": {"gid": 0, "mid": 0, "phase": "warmup"}},
 *     {"name": "f0 -> f1", "cat": "transfer", "ph": "s", "id": 1, ...},
 *     {"name": "f0 -> f1", "cat": "transfer", "ph": "f", "bp": "e", ...},
 *     ...],
 *    "displayTimeUnit": "ms"}
 *
 * One process named by a metadata event, one track (tid) per device, named
 * too; one complete event per placed entry and device it occupies, step t
 * at t * step_us microseconds, as long as the entry's real span. Each
 * dependency whose latency counts (the
 * consumer occupies a device the producer does not) is a flow from the
 * producer, on its first device, to the consumer on the first device it
 * travels to, with the latency and the arrival in its arguments.
 *
 * Memory-time alternatives: a block that recomputes a forward of its
 * micro-batch is named "b0 mb3 (recompute)" and has "recompute": true and
 * its "extra_steps" in its arguments. When the schedule offloads
 * activations, device d's copy channel is a track of its own (tid
 * ndevices + d, "device d copy", sorted just under the device's), each
 * copy a complete event named "offload f2 mb3" or "reload f2 mb3" (cat
 * "offload" / "reload").
 * Contract: every entry, every copy and every flow appears once per
 * device it concerns, at its real steps. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "export_actions.h"
#include "export_trace.h"
#include "graph.h"
#include "schedule.h"
#include "schedule_alt.h"
#include "util.h"

/* Without a placement step in a unit of time: 1 ms per step. */
#define DEFAULT_STEP_US 1000.0

static const char *phase_name(int phase)
{
	switch (phase) {
	case TESSEL_PHASE_WARMUP: return "warmup";
	case TESSEL_PHASE_REPETEND: return "repetend";
	case TESSEL_PHASE_COOLDOWN: return "cooldown";
	default: return "?";
	}
}

/* Microseconds in one `unit`, 0 when it is not a unit of time known here. */
static double unit_us(const char *unit)
{
	static const struct {
		const char *name;
		double us;
	} units[] = {
		{"s", 1e6}, {"ms", 1e3}, {"us", 1}, {"\xc2\xb5s", 1},
		{"\xce\xbcs", 1}, {"ns", 1e-3},
	};

	for (size_t i = 0; unit && i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(unit, units[i].name))
			return units[i].us;
	return 0;
}

/* Metadata events naming the process and device d's track; with
 * copies, each device's copy channel's track too, sorted under it. */
static void put_names(tsl_buf *b, int ndevices, int copies)
{
	tsl_buf_puts(b, "{\"name\": \"process_name\", \"ph\": \"M\", "
			"\"pid\": 0, \"args\": {\"name\": \"tessel schedule\"}}");
	for (int d = 0; d < ndevices; d++)
		tsl_buf_printf(b, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", "
				  "\"pid\": 0, \"tid\": %d, "
				  "\"args\": {\"name\": \"device %d\"}}", d, d);
	for (int d = 0; d < ndevices && copies; d++)
		tsl_buf_printf(b, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", "
				  "\"pid\": 0, \"tid\": %d, "
				  "\"args\": {\"name\": \"device %d copy\"}},"
				  "\n{\"name\": \"thread_sort_index\", \"ph\": \"M\", "
				  "\"pid\": 0, \"tid\": %d, "
				  "\"args\": {\"sort_index\": %d}},"
				  "\n{\"name\": \"thread_sort_index\", \"ph\": \"M\", "
				  "\"pid\": 0, \"tid\": %d, "
				  "\"args\": {\"sort_index\": %d}}",
			       ndevices + d, d, d, 2 * d, ndevices + d, 2 * d + 1);
}

/* The complete event of entry e on device d; `recompute`: it recomputes
 * a forward of its micro-batch. */
static void put_event(tsl_buf *b, const struct tessel_entry *e, int d,
		      double step_us, int recompute)
{
	const tsl_block *blk = &e->sched->graph->blocks[e->gid];
	char mb[48];
	tsl_buf_puts(b, "{\"name\": \"");
	tsl_buf_json_escaped(b, blk->name);
	snprintf(mb, sizeof mb, " mb%lld%s\"", (long long)e->mid,
		 recompute ? " (recompute)" : "");
	tsl_buf_puts(b, mb);
	tsl_buf_printf(b, ", \"cat\": \"%s\", \"ph\": \"X\", "
			  "\"ts\": %.15g, \"dur\": %.15g, \"pid\": 0, "
			  "\"tid\": %d, \"args\": {\"gid\": %d, \"mid\": %lld, "
			  "\"phase\": \"%s\"",
		       tsl_kind_name(blk->kind), (double)e->start * step_us,
		       (double)tsl_entry_span(e->sched, e) * step_us, d, e->gid,
		       (long long)e->mid, phase_name(e->phase));
	if (recompute)
		tsl_buf_printf(b, ", \"recompute\": true, \"extra_steps\": %d",
			       e->span_add);
	tsl_buf_puts(b, "}}");
}

static int put_device(tsl_buf *b, const tessel_schedule *s, int d,
		      double step_us, const unsigned char *marks)
{
	tessel_iter *it = NULL;
	int rc = tessel_iter_new(&it, s, d);
	if (rc)
		return rc;
	const tessel_entry *e;
	while (tessel_iter_next(&e, it) == TESSEL_OK) {
		size_t at = (size_t)e->mid * (size_t)s->graph->nblocks +
			    (size_t)e->gid;
		tsl_buf_puts(b, ",\n");
		put_event(b, e, d, step_us, marks && marks[at]);
	}
	tessel_iter_free(it);
	return TSL_OK;
}

/* The copies of device d's copy channel, on its own track. */
static int put_copies(tsl_buf *b, const tessel_schedule *s, int d,
		      double step_us)
{
	tsl_copy *cp = NULL;
	size_t n = 0;
	int rc = tsl_device_copies(&cp, &n, s, d);
	for (size_t i = 0; i < n && !rc; i++) {
		const tsl_copy *c = &cp[i];
		const tsl_block *blk = &s->graph->blocks[c->gid];
		const char *what = c->reload ? "reload" : "offload";
		tsl_buf_printf(b, ",\n{\"name\": \"%s ", what);
		tsl_buf_json_escaped(b, blk->name);
		tsl_buf_printf(b, " mb%lld\", \"cat\": \"%s\", \"ph\": \"X\", "
				  "\"ts\": %.15g, \"dur\": %.15g, \"pid\": 0, "
				  "\"tid\": %d, \"args\": {\"gid\": %d, "
				  "\"mid\": %lld, \"saves\": %d, \"backward\": \"",
			       (long long)c->mid, what,
			       (double)c->start * step_us,
			       (double)(c->end - c->start) * step_us,
			       s->graph->ndevices + d, c->gid, (long long)c->mid,
			       blk->of_saves);
		tsl_buf_json_escaped(b, s->graph->blocks[blk->of_backward].name);
		tsl_buf_puts(b, "\"}}");
	}
	tsl_free(cp);
	return rc;
}

/* "a -> c" as a JSON string's content. */
static void put_flow_name(tsl_buf *b, const tsl_block *a, const tsl_block *c)
{
	tsl_buf_puts(b, "{\"name\": \"");
	tsl_buf_json_escaped(b, a->name);
	tsl_buf_puts(b, " -> ");
	tsl_buf_json_escaped(b, c->name);
	tsl_buf_puts(b, "\", \"cat\": \"transfer\", ");
}

/* The first device of c that a does not occupy. */
static int target_device(const tsl_block *c, const tsl_block *a)
{
	for (int k = 0; k < c->ndevices; k++)
		if (!tsl_block_on_device(a, c->devices[k]))
			return c->devices[k];
	return c->devices[0];
}

/* A flow per dependency and micro-batch whose latency counts: it starts in
 * the producer's slice and ends at the consumer's start. */
static void put_transfers(tsl_buf *b, const tessel_schedule *s, double step_us)
{
	const tessel_graph *g = s->graph;
	long long id = 0;

	for (int64_t m = 0; m < s->nmicros && !b->failed; m++) {
		for (int c = 0; c < g->nblocks; c++) {
			const tsl_block *C = &g->blocks[c];
			int64_t cs = tsl_entry_at(s, c, m)->start;
			for (int j = 0; j < C->ndeps; j++) {
				int lat = tsl_dep_latency(g, C, j);
				const tsl_block *A = &g->blocks[C->deps[j]];
				const struct tessel_entry *ae =
					tsl_entry_at(s, C->deps[j], m);
				int64_t as = ae->start;
				if (lat <= 0 || as < 0 || cs < 0)
					continue;
				int64_t fin = as + tsl_entry_span(s, ae);
				id++;
				tsl_buf_puts(b, ",\n");
				put_flow_name(b, A, C);
				tsl_buf_printf(b, "\"ph\": \"s\", \"id\": %lld, "
						  "\"ts\": %.15g, \"pid\": 0, "
						  "\"tid\": %d, \"args\": {\"mid\": %lld, "
						  "\"latency_steps\": %d, \"sent\": %.15g, "
						  "\"arrives\": %.15g}}",
					       id, (double)as * step_us,
					       A->devices[0], (long long)m, lat,
					       (double)fin * step_us,
					       (double)(fin + lat) * step_us);
				tsl_buf_puts(b, ",\n");
				put_flow_name(b, A, C);
				tsl_buf_printf(b, "\"ph\": \"f\", \"bp\": \"e\", "
						  "\"id\": %lld, \"ts\": %.15g, "
						  "\"pid\": 0, \"tid\": %d}",
					       id, (double)cs * step_us,
					       target_device(C, A));
			}
		}
	}
}

/* step_us 0: the placement's step in microseconds, when it has a step and
 * a unit of time; else DEFAULT_STEP_US. -1 when it has both but the step
 * in microseconds is beyond a double (or rounds to 0). */
static double placement_step_us(const tessel_graph *g)
{
	double us = unit_us(g->unit);

	if (g->step > 0 && us > 0)
		return isfinite(g->step * us) && g->step * us > 0 ? g->step * us : -1;
	return DEFAULT_STEP_US;
}

int tsl_write_trace_json(tsl_buf *b, const tessel_schedule *schedule,
			 double step_us, const char *fn)
{
	TSL_CHECK_ARG(schedule, fn, "schedule");
	if (isnan(step_us) || step_us < 0)
		return tsl_error(TESSEL_EINVAL,
				 "%s: step_us must be > 0 (or 0: from the placement), got %g",
				 fn, step_us);
	if (!isfinite(step_us))
		return tsl_error(TESSEL_ERANGE,
				 "%s: step_us must be finite, got %g", fn,
				 step_us);
	const tessel_graph *g = schedule->graph;
	if (step_us == 0) {
		step_us = placement_step_us(g);
		if (step_us < 0)
			return tsl_error(TESSEL_ERANGE,
					 "%s: the placement's step, %g %s, is beyond what a "
					 "double holds in microseconds (give step_us)",
					 fn, g->step, g->unit);
	}
	int64_t makespan = tsl_schedule_makespan(schedule);
	if (!isfinite((double)makespan * step_us))
		return tsl_error(TESSEL_ERANGE,
				 "%s: step_us %g times the makespan %lld "
				 "overflows", fn, step_us, (long long)makespan);
	int rc = tsl_json_check_names(g, fn);
	if (rc)
		return rc;
	unsigned char *marks = NULL;
	rc = tsl_recompute_marks(&marks, schedule, -1);
	if (rc)
		return rc;
	int copies = tsl_schedule_copies_end(schedule) > 0;
	tsl_buf_puts(b, "{\"traceEvents\": [\n");
	put_names(b, g->ndevices, copies);
	for (int d = 0; d < g->ndevices && !rc && !b->failed; d++) {
		rc = put_device(b, schedule, d, step_us, marks);
		if (!rc && copies)
			rc = put_copies(b, schedule, d, step_us);
		tsl_buf_flush_point(b);
	}
	tsl_free(marks);
	if (!rc) {
		put_transfers(b, schedule, step_us);
		tsl_buf_puts(b, "\n],\n\"displayTimeUnit\": \"ms\"}\n");
	}
	return rc;
}

TESSEL_API int tessel_schedule_to_trace_json(char **out,
					     const tessel_schedule *schedule,
					     double step_us)
{
	static const char fn[] = "tessel_schedule_to_trace_json";
	TSL_CHECK_ARG(out, fn, "out");
	*out = NULL;
	tsl_buf b;
	tsl_buf_init(&b);
	int rc = tsl_write_trace_json(&b, schedule, step_us, fn);
	return tsl_buf_finish(out, &b, rc);
}
