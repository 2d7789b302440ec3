/* An exploration as JSON (tessel_explore_to_json; doc/formats.md,
 * "Exploration"): the model's figures, then every candidate in rank order
 * with its stages, figures and placement (the placement JSON of
 * tessel_graph_to_json), and optionally its schedule (the schedule JSON of
 * tessel_schedule_to_json). */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "explore.h"
#include "json_util.h"
#include "util.h"

static void real(tsl_buf *b, const char *key, double v, int comma)
{
	char text[48];
	if (tsl_json_real_text(text, sizeof text, v))
		snprintf(text, sizeof text, "%.17g", v);
	tsl_buf_printf(b, "\"%s\": %s%s", key, text, comma ? ", " : "");
}

static void stages(tsl_buf *b, const tessel_explore *ex, const tsl_plan *p)
{
	tsl_buf_puts(b, "\"stages\": [");
	for (int s = 0; s < p->nstages; s++) {
		const tsl_plan_stage *st = &p->stages[s];
		tsl_buf_printf(b, "%s\n        {\"layers\": [", s ? "," : "");
		for (int i = st->lo; i < st->hi; i++) {
			if (i > st->lo)
				tsl_buf_puts(b, ", ");
			tsl_buf_json_string(b, ex->layer[i]);
		}
		tsl_buf_puts(b, "], \"devices\": [");
		for (int d = 0; d < st->ndev; d++)
			tsl_buf_printf(b, "%s%d", d ? ", " : "", st->dev + d);
		tsl_buf_printf(b, "], \"replica\": %d}", st->replica);
	}
	tsl_buf_puts(b, p->nstages ? "\n      ]" : "]");
}

static int candidate(tsl_buf *b, const tessel_explore *ex, int k,
		     int with_schedule)
{
	const tsl_candidate *c = &ex->c[ex->rank[k]];
	const tsl_plan *p = &c->plan;
	tsl_buf_printf(b, "%s\n    {", k ? "," : "");
	tsl_buf_printf(b, "\"rank\": %d, \"family\": ", k + 1);
	tsl_buf_json_string(b, p->family);
	tsl_buf_printf(b, ", \"baseline\": %s, ",
		       p->mode != TSL_PLAN_SEARCH ? "true" : "false");
	if (c->sched) {
		real(b, "time", c->time, 1);
		real(b, "peak_memory", c->peak, 1);
		real(b, "speedup_1f1b", c->speedup_1f1b, 1);
		real(b, "speedup_gpipe", c->speedup_gpipe, 1);
	} else {
		tsl_buf_puts(b, "\"reason\": ");
		tsl_buf_json_string(b, c->why);
		tsl_buf_puts(b, ", ");
	}
	tsl_buf_printf(b, "\"chunks\": %d, \"replicas\": %d, \"micro_batches\": %lld, \"work\": %lld,\n      ",
		       p->chunks, p->replicas, (long long)p->micros,
		       (long long)c->work);
	if (c->sched) {
		tsl_buf_puts(b, "\"device_memory\": [");
		for (int d = 0; d < ex->devices; d++) {
			char text[48];
			if (tsl_json_real_text(text, sizeof text, c->device_peak[d]))
				snprintf(text, sizeof text, "%.17g", c->device_peak[d]);
			tsl_buf_printf(b, "%s%s", d ? ", " : "", text);
		}
		tsl_buf_puts(b, "],\n      ");
	}
	stages(b, ex, c->graph ? p : &(tsl_plan){0});
	if (c->graph) {
		char *text = NULL;
		int rc = tessel_graph_to_json(&text, c->graph);
		if (rc)
			return rc;
		size_t n = strlen(text);
		while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
			n--;
		tsl_buf_puts(b, ",\n      \"placement\": ");
		tsl_buf_append(b, text, n);
		tessel_free(text);
	}
	if (with_schedule && c->sched) {
		char *text = NULL;
		int rc = tessel_schedule_to_json(&text, c->sched);
		if (rc)
			return rc;
		size_t n = strlen(text);
		while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
			n--;
		tsl_buf_puts(b, ",\n      \"schedule\": ");
		tsl_buf_append(b, text, n);
		tessel_free(text);
	}
	tsl_buf_puts(b, "}");
	return TSL_OK;
}

TESSEL_API int tessel_explore_to_json(char **out, const tessel_explore *ex,
				      int with_schedules)
{
	TSL_CHECK_ARG(out, "tessel_explore_to_json", "out");
	*out = NULL;
	TSL_CHECK_ARG(ex, "tessel_explore_to_json", "explore");
	if (with_schedules != 0 && with_schedules != 1)
		return tsl_error(TESSEL_EINVAL,
				 "tessel_explore_to_json: with_schedules must be 0 or 1, got %d",
				 with_schedules);
	int rc = tsl_explore_read_begin(ex, "tessel_explore_to_json");
	if (rc)
		return rc;
	tsl_buf b;
	tsl_buf_init(&b);
	tsl_buf_puts(&b, "{\n  \"model\": ");
	tsl_buf_json_string(&b, ex->name);
	tsl_buf_puts(&b, ",\n  \"unit\": ");
	tsl_buf_json_string(&b, ex->unit);
	tsl_buf_puts(&b, ",\n  \"memory_unit\": ");
	tsl_buf_json_string(&b, ex->memory_unit);
	tsl_buf_printf(&b, ",\n  \"devices\": %d,\n  ", ex->devices);
	real(&b, "memory_per_device", ex->memory, 0);
	tsl_buf_printf(&b, ",\n  \"micro_batches\": %lld,\n  \"mode\": \"%s\",\n  \"explored\": %s,\n  \"candidates\": [",
		       (long long)ex->micros, ex->infer ? "inference" : "training",
		       ex->ran ? "true" : "false");
	for (int k = 0; k < ex->n && !rc; k++)
		rc = candidate(&b, ex, k, with_schedules);
	tsl_buf_puts(&b, "\n  ]\n}\n");
	/* (the text is the caller's: complete even when a free asked
	 * meanwhile now frees ex) */
	tsl_explore_read_end(ex);
	return tsl_buf_finish(out, &b, rc);
}
