/* JSON inputs beside the library's own formats: durations per block for
 * the simulator, and schedules saved by the public Tessel reference
 * implementation (read for the placement they were made for). */
#include "json_util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "schedule.h"
#include "schedule_json.h"
#include "util.h"

/* Limits of the schedule model (include/tessel.h). */
#define MAX_MICROS ((long long)TESSEL_MAX_MICRO_BATCHES)

static const char *const phase_names[] = { "warmup", "repetend", "cooldown" };

/* ------------------------------------------------------------------------ */
/* Durations                                                                  */
/* ------------------------------------------------------------------------ */

static int durations_from_root(double *dur, const tessel_graph *g,
			       json_t *root)
{
	const char *name;
	json_t *v;

	for (int b = 0; b < g->nblocks; b++)
		dur[b] = tsl_block_time(g, b);
	json_object_foreach(root, name, v) {
		int gid = -1;
		if (tessel_graph_find(&gid, g, name))
			return tsl_error(TESSEL_ENOTFOUND,
					 "\"%.200s\": no block of that name in the placement",
					 name);
		if (!json_is_number(v))
			return tsl_error(TESSEL_EPARSE,
					 "\"%.200s\": the duration must be a number, not %s",
					 name, tsl_json_type_name(v));
		double d = json_number_value(v);
		if (!isfinite(d) || !(d > 0))
			return tsl_error(TESSEL_ERANGE,
					 "\"%.200s\": the duration must be a number > 0, got %g",
					 name, d);
		dur[gid] = d;
	}
	return TSL_OK;
}

TESSEL_API int tessel_durations_from_json(double **out,
					  const tessel_graph *graph,
					  const char *text, size_t length)
{
	json_t *root = NULL;
	double *dur;
	int rc;

	TSL_CHECK_ARG(out, "tessel_durations_from_json", "out");
	*out = NULL;
	TSL_CHECK_ARG(graph, "tessel_durations_from_json", "graph");
	TSL_CHECK_ARG(text, "tessel_durations_from_json", "text");
	rc = tsl_json_load_text(&root, text, length);
	if (rc)
		return rc;
	dur = tsl_reallocarray(NULL, graph->nblocks > 0 ? (size_t)graph->nblocks
							 : 1, sizeof *dur);
	if (!dur)
		rc = tsl_error_nomem();
	else
		rc = durations_from_root(dur, graph, root);
	json_decref(root);
	if (rc) {
		tsl_free(dur);
		return rc;
	}
	*out = dur;
	return TSL_OK;
}

/* ------------------------------------------------------------------------ */
/* Schedules of the reference implementation                                  */
/* ------------------------------------------------------------------------ */

/* One entry of "blocks" once read. */
typedef struct ref_item {
	int gid;
	int phase;      /* -1: not given */
	long long mid;
	long long step;
} ref_item;

typedef struct ref_reader {
	const tessel_graph *g;
	int *tmp;       /* ndevices ints for sorting a "device" list */
} ref_reader;

/* "phase" is the library's own addition: used when it is one of the
 * three names, ignored otherwise. */
static int read_phase(const json_t *obj)
{
	const char *s = json_string_value(json_object_get(obj, "phase"));

	for (int p = 0; s && p < 3; p++)
		if (!strcmp(s, phase_names[p]))
			return p;
	return -1;
}

static int read_item(ref_reader *r, ref_item *it, const json_t *obj,
		     size_t idx)
{
	char where[64];
	long long gid = 0;
	int rc;

	rc = tsl_json_entry_ids(&gid, &it->mid, &it->step, where, sizeof where,
				obj, idx, r->g->nblocks, MAX_MICROS - 1);
	if (!rc)
		rc = tsl_json_check_entry(r->g, r->tmp, obj, (int)gid, 0, where);
	if (rc)
		return rc;
	it->gid = (int)gid;
	it->phase = read_phase(obj);
	return TSL_OK;
}

static int read_items(ref_item *items, long long *nmicros,
		      const tessel_graph *g, const json_t *blocks)
{
	ref_reader r = { g, NULL };
	size_t n = json_array_size(blocks);
	int rc = TSL_OK;

	*nmicros = 0;
	r.tmp = tsl_calloc((size_t)g->ndevices, sizeof *r.tmp);
	if (!r.tmp)
		return tsl_error_nomem();
	for (size_t i = 0; !rc && i < n; i++) {
		rc = read_item(&r, &items[i], json_array_get(blocks, i), i);
		if (!rc && items[i].mid + 1 > *nmicros)
			*nmicros = items[i].mid + 1;
	}
	tsl_free(r.tmp);
	return rc;
}

/* "repetend" (optional): [begin, end], clamped to the schedule. */
static int read_repetend(int *given, long long *begin, long long *end,
			 const json_t *root, long long makespan)
{
	int rc = tsl_json_member_range(begin, end, given, root, "repetend",
				       LLONG_MIN, LLONG_MAX, 0);

	if (rc || !*given)
		return rc;
	*begin = *begin < 0 ? 0 : *begin > makespan ? makespan : *begin;
	*end = *end < *begin ? *begin : *end > makespan ? makespan : *end;
	return TSL_OK;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* The first (mid, gid) with no entry, when there are fewer entries than
 * the micro-batches need. */
static int report_missing(const ref_item *items, size_t n,
			  const tessel_graph *g)
{
	long long *keys = tsl_reallocarray(NULL, n, sizeof *keys);
	long long want = 0;

	if (!keys)
		return tsl_error_nomem();
	for (size_t i = 0; i < n; i++)
		keys[i] = items[i].mid * g->nblocks + items[i].gid;
	qsort(keys, n, sizeof *keys, cmp_ll);
	for (size_t i = 0; i < n && keys[i] <= want; i++)
		if (keys[i] == want)
			want++;
	tsl_free(keys);
	return tsl_error(TESSEL_EPARSE,
			 "\"blocks\" has no entry for block %d (\"%.200s\") of micro-batch %lld",
			 (int)(want % g->nblocks), g->blocks[want % g->nblocks].name,
			 want / g->nblocks);
}

/* Place every item; each (gid, mid) exactly once. */
static int fill_schedule(tessel_schedule *s, const ref_item *items, size_t n)
{
	const tessel_graph *g = s->graph;

	for (size_t i = 0; i < n; i++) {
		struct tessel_entry *e = tsl_entry_at(s, items[i].gid,
						      items[i].mid);
		if (e->start >= 0)
			return tsl_error(TESSEL_EPARSE,
					 "\"blocks\"[%zu]: block %d (\"%.200s\") of micro-batch %lld appears twice",
					 i, items[i].gid,
					 g->blocks[items[i].gid].name,
					 items[i].mid);
		e->start = items[i].step;
	}
	for (int64_t mid = 0; mid < s->nmicros; mid++)
		for (int gid = 0; gid < g->nblocks; gid++)
			if (tsl_entry_at(s, gid, mid)->start < 0)
				return tsl_error(TESSEL_EPARSE,
						 "\"blocks\" has no entry for block %d (\"%.200s\") of micro-batch %lld",
						 gid, g->blocks[gid].name,
						 (long long)mid);
	return TSL_OK;
}

static void set_phases(tessel_schedule *s, const ref_item *items, size_t n,
		       int rep_given)
{
	for (size_t i = 0; i < n; i++) {
		struct tessel_entry *e = tsl_entry_at(s, items[i].gid,
						      items[i].mid);
		if (items[i].phase >= 0)
			e->phase = items[i].phase;
		else if (!rep_given || (e->start >= s->rep_begin &&
					e->start < s->rep_end))
			e->phase = TESSEL_PHASE_REPETEND;
		else
			e->phase = e->start < s->rep_begin ? TESSEL_PHASE_WARMUP
							   : TESSEL_PHASE_COOLDOWN;
	}
}

static int reference_from_root(tessel_schedule **out, const tessel_graph *g,
			       const json_t *root)
{
	tessel_schedule *s = NULL;
	ref_item *items = NULL;
	json_t *blocks = NULL;
	long long nmicros = 0, begin = 0, end = 0;
	size_t n;
	int rep_given = 0;
	int rc = tsl_json_check_ndevs(root, g);

	if (rc)
		return rc;
	rc = tsl_json_member(&blocks, root, "blocks", JSON_ARRAY, 1, "");
	if (rc)
		return rc;
	n = json_array_size(blocks);
	if (n == 0)
		return tsl_error(TESSEL_EPARSE, "\"blocks\" is empty");
	items = tsl_reallocarray(NULL, n, sizeof *items);
	if (!items)
		return tsl_error_nomem();
	rc = read_items(items, &nmicros, g, blocks);
	/* too few entries: name a missing one before allocating for all */
	if (!rc && (unsigned long long)nmicros * (unsigned long long)g->nblocks > n)
		rc = report_missing(items, n, g);
	if (!rc)
		rc = tsl_schedule_alloc(&s, g, nmicros);
	if (!rc)
		rc = fill_schedule(s, items, n);
	if (!rc)
		rc = read_repetend(&rep_given, &begin, &end, root,
				   tsl_schedule_makespan(s));
	if (rc) {
		tsl_free(items);
		tessel_schedule_free(s);
		return rc;
	}
	if (rep_given) {
		s->rep_begin = begin;
		s->rep_end = end;
	}
	set_phases(s, items, n, rep_given);
	tsl_free(items);
	*out = s;
	return TSL_OK;
}

TESSEL_API int tessel_schedule_from_reference_json(tessel_schedule **out,
						   const tessel_graph *placement,
						   const char *text,
						   size_t length)
{
	json_t *root = NULL;
	int rc;

	TSL_CHECK_ARG(out, "tessel_schedule_from_reference_json", "out");
	*out = NULL;
	TSL_CHECK_ARG(placement, "tessel_schedule_from_reference_json", "placement");
	TSL_CHECK_ARG(text, "tessel_schedule_from_reference_json", "text");
	rc = tsl_graph_check_structure(placement);
	if (rc)
		return rc;
	rc = tsl_json_load_text(&root, text, length);
	if (rc)
		return rc;
	rc = reference_from_root(out, placement, root);
	json_decref(root);
	return rc;
}
