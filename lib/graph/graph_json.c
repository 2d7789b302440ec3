/* Placement JSON: reading (through the public graph API) and writing
 * (doc/formats.md). */
#include "graph_json.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "json_util.h"
#include "util.h"

/* Largest memory limit the graph API accepts (2^50). */
#define MAX_LIMIT ((long long)1 << 50)

/* "block 3 ("f2"): " or "block 3: " when the name is not known yet. */
static void block_where(char *where, size_t size, size_t idx, const char *name)
{
	if (name)
		snprintf(where, size, "block %zu (\"%.200s\"): ", idx, name);
	else
		snprintf(where, size, "block %zu: ", idx);
}

/* An error of the graph API, prefixed with the block and the field. */
static int api_error(int code, const char *where, const char *field)
{
	char prefix[512];

	snprintf(prefix, sizeof prefix, "%s\"%s\": ", where, field);
	return tsl_json_error_prefix(code, prefix);
}

/* ------------------------------------------------------------------------ */
/* Reading a placement                                                        */
/* ------------------------------------------------------------------------ */

/* State of one placement read. */
typedef struct reader {
	tessel_graph *g;
	json_t *blocks;        /* the "blocks" array, or NULL: */
	tsl_json_parts *parts; /* its elements, parsed one at a time */
	int ndevices;
	int *devs;      /* device list being built (ndevices entries) */
	int *seen;      /* per device: 1 + index of the block that listed it */
	double *dur;    /* per block: its "duration", 0 when it has a span */
	int timed;      /* a "step" or a "duration": latencies in the unit */
} reader;

static size_t count_blocks(const reader *r)
{
	return r->parts ? r->parts->count : json_array_size(r->blocks);
}

/* Element idx of "blocks", borrowed until the next call; NULL when it
 * does not parse (in parts: the text is then read whole). */
static const json_t *block_at(reader *r, size_t idx)
{
	return r->parts ? tsl_json_parts_get(r->parts, idx)
			: json_array_get(r->blocks, idx);
}

static int parse_kind(int *kind, const json_t *obj, const char *where)
{
	const char *s = NULL;
	int rc = tsl_json_member_string(&s, obj, "kind", 1, where);

	if (rc)
		return rc;
	if (!strcmp(s, "forward"))
		*kind = TESSEL_KIND_FORWARD;
	else if (!strcmp(s, "backward"))
		*kind = TESSEL_KIND_BACKWARD;
	else if (!strcmp(s, "weight"))
		*kind = TESSEL_KIND_WEIGHT;
	else
		return tsl_error(TESSEL_EPARSE,
				 "%s\"kind\" must be \"forward\", \"backward\" or \"weight\", not \"%.100s\"",
				 where, s);
	return TSL_OK;
}

/* A number (integer or real) `what`: TESSEL_EPARSE for another type,
 * TESSEL_ERANGE unless finite and > 0 (positive) or >= 0. */
static int read_number(double *out, const json_t *v, int positive,
		       const char *where, const char *what)
{
	if (!json_is_number(v))
		return tsl_error(TESSEL_EPARSE, "%s%s must be a number, not %s",
				 where, what, tsl_json_type_name(v));
	double x = json_number_value(v);
	if (!isfinite(x) || !(positive ? x > 0 : x >= 0))
		return tsl_error(TESSEL_ERANGE, "%s%s must be a number %s, got %g",
				 where, what, positive ? "> 0" : ">= 0", x);
	/* an integer is taken as it is written or not at all: one beyond
	 * 2^53 that a double cannot hold is refused, not rounded */
	if (json_is_integer(v) && !tsl_int_exact_double(json_integer_value(v)))
		return tsl_error(TESSEL_ERANGE,
				 "%s%s is %lld, an integer a double cannot hold "
				 "exactly (at most 2^53 = 9007199254740992 is)",
				 where, what, (long long)json_integer_value(v));
	*out = x;
	return TSL_OK;
}

/* A latency `what`: in the unit (a number >= 0) when the placement is
 * timed, else an integer number of steps 0 .. TESSEL_MAX_LATENCY. */
static int read_latency(double *out, const json_t *v, int timed,
			const char *where, const char *what)
{
	long long steps = 0;

	if (timed)
		return read_number(out, v, 0, where, what);
	if (json_is_real(v))
		return tsl_error(TESSEL_EPARSE,
				 "%s%s must be an integer number of steps, not a real number (latencies are in a unit of time only when the placement gives a \"step\" or durations)",
				 where, what);
	int rc = tsl_json_int(&steps, v, 0, TESSEL_MAX_LATENCY, where, what);
	if (rc)
		return rc;
	*out = (double)steps;
	return TSL_OK;
}

/* One entry of "after": a block name, or {"block": NAME, "latency": L}.
 * *latency is -1 for a plain name. */
static int after_entry(const char **name, double *latency, const json_t *v,
		       int timed, const char *where, size_t i)
{
	char at[400], what[64];
	const char *key;
	json_t *x;

	*latency = -1;
	if (json_is_string(v)) {
		*name = json_string_value(v);
		return TSL_OK;
	}
	if (!json_is_object(v))
		return tsl_error(TESSEL_EPARSE,
				 "%s\"after\"[%zu] must be a block name (a string), not %s (or an object {\"block\": NAME, \"latency\": L})",
				 where, i, tsl_json_type_name(v));
	snprintf(at, sizeof at, "%s\"after\"[%zu]: ", where, i);
	json_object_foreach((json_t *)v, key, x)
		if (strcmp(key, "block") && strcmp(key, "latency"))
			return tsl_error(TESSEL_EPARSE,
					 "%sunknown key \"%.100s\" (an entry of \"after\" has \"block\" and \"latency\")",
					 at, key);
	int rc = tsl_json_member_string(name, v, "block", 1, at);
	if (rc)
		return rc;
	x = json_object_get(v, "latency");
	if (!x)
		return tsl_error(TESSEL_EPARSE, "%s\"latency\" is missing", at);
	snprintf(what, sizeof what, "\"latency\"");
	return read_latency(latency, x, timed, at, what);
}

/* "span" (steps) or "duration" (in the unit), not both. */
static int read_span(reader *r, long long *span, const json_t *obj,
		     size_t idx, const char *where)
{
	json_t *d = json_object_get(obj, "duration");

	if (!d)
		return tsl_json_member_int(span, obj, "span", 1, 1,
					   TESSEL_MAX_SPAN, where);
	if (json_object_get(obj, "span"))
		return tsl_error(TESSEL_EPARSE,
				 "%sgive \"span\" (in steps) or \"duration\" (in the unit), not both",
				 where);
	*span = 1; /* until the step is known */
	return read_number(&r->dur[idx], d, 1, where, "\"duration\"");
}

/* First pass over one block: name, kind, span or duration, memory; adds
 * the block (a duration gives its span once the step is known). */
static int add_block(reader *r, size_t idx)
{
	char where[320];
	const json_t *obj = block_at(r, idx);
	const char *name = NULL;
	long long span = 0, memory = 0;
	int kind = 0, gid = 0, rc;

	block_where(where, sizeof where, idx, NULL);
	if (!obj) /* in parts: the whole read says why */
		return tsl_error(TESSEL_EPARSE, "%sdoes not parse", where);
	if (!json_is_object(obj))
		return tsl_error(TESSEL_EPARSE, "%smust be an object, not %s",
				 where, tsl_json_type_name(obj));
	rc = tsl_json_member_string(&name, obj, "name", 1, where);
	if (rc)
		return rc;
	if (!*name)
		return tsl_error(TESSEL_EINVAL, "%s\"name\" must not be empty",
				 where);
	block_where(where, sizeof where, idx, name);
	rc = parse_kind(&kind, obj, where);
	if (!rc && !json_object_get(obj, "span") &&
	    !json_object_get(obj, "duration"))
		return tsl_error(TESSEL_EPARSE,
				 "%s\"span\" is missing (give \"span\" in steps or \"duration\")",
				 where);
	if (!rc)
		rc = read_span(r, &span, obj, idx, where);
	if (!rc && json_object_get(obj, "duration"))
		r->timed = 1; /* latencies in the unit */
	if (!rc)
		rc = tsl_json_member_int(&memory, obj, "memory", 1,
					 -TESSEL_MAX_MEMORY, TESSEL_MAX_MEMORY,
					 where);
	if (rc)
		return rc;
	rc = tessel_graph_add_block(&gid, r->g, name, (tessel_kind)kind,
				    (int)span, (int)memory);
	if (rc == TESSEL_EEXISTS && !tessel_graph_find(&gid, r->g, name))
		return tsl_error(rc, "%s\"name\" is already used by block %d",
				 where, gid);
	if (rc)
		return api_error(rc, where, "name");
	return TSL_OK;
}

static int place_block(reader *r, int gid, const json_t *obj,
		       const char *where)
{
	char what[64];
	json_t *list;
	long long d = 0;
	size_t i, count;
	int rc = tsl_json_member(&list, obj, "devices", JSON_ARRAY, 1, where);

	if (rc)
		return rc;
	count = json_array_size(list);
	if (count == 0)
		return tsl_error(TESSEL_EINVAL, "%s\"devices\" must not be empty",
				 where);
	for (i = 0; i < count; i++) {
		snprintf(what, sizeof what, "\"devices\"[%zu]", i);
		rc = tsl_json_int(&d, json_array_get(list, i), LLONG_MIN,
				  LLONG_MAX, where, what);
		if (rc)
			return rc;
		if (d < 0 || d >= r->ndevices)
			return tsl_error(TESSEL_EINVAL,
					 "%s%s: unknown device %lld (devices are 0 .. %d)",
					 where, what, d, r->ndevices - 1);
		if (r->seen[d] == gid + 1)
			return tsl_error(TESSEL_EINVAL,
					 "%s\"devices\" lists device %lld twice",
					 where, d);
		r->seen[d] = gid + 1;
		r->devs[i] = (int)d;
	}
	rc = tessel_graph_place(r->g, gid, r->devs, count);
	return rc ? api_error(rc, where, "devices") : TSL_OK;
}

static int add_deps(reader *r, int gid, const json_t *obj, const char *where)
{
	const char *name = NULL;
	double lat = -1;
	json_t *list;
	int before;
	int rc = tsl_json_member(&list, obj, "after", JSON_ARRAY, 0, where);

	if (rc || !list)
		return rc;
	for (size_t i = 0; i < json_array_size(list); i++) {
		rc = after_entry(&name, &lat, json_array_get(list, i),
				 r->timed, where, i);
		if (rc)
			return rc;
		if (tessel_graph_find(&before, r->g, name))
			return tsl_error(TESSEL_ENOTFOUND,
					 "%s\"after\"[%zu]: unknown block \"%.200s\"",
					 where, i, name);
		if (lat < 0)
			rc = tessel_graph_add_dep(r->g, before, gid);
		else if (r->timed)
			rc = tessel_graph_add_dep_latency_time(r->g, before,
							       gid, lat);
		else
			rc = tessel_graph_add_dep_latency(r->g, before, gid,
							  (int)lat);
		if (rc)
			return api_error(rc, where, "after");
	}
	return TSL_OK;
}

/* Second pass over one block: devices, dependencies, stage. */
static int link_block(reader *r, int gid)
{
	char where[320];
	const json_t *obj = block_at(r, (size_t)gid);
	if (!obj)
		return tsl_error(TESSEL_EPARSE, "block %d does not parse", gid);
	const char *name = r->g->blocks[gid].name;
	long long stage = -1;

	block_where(where, sizeof where, (size_t)gid, name);
	int rc = place_block(r, gid, obj, where);
	if (!rc)
		rc = add_deps(r, gid, obj, where);
	if (!rc)
		rc = tsl_json_member_int(&stage, obj, "stage", 0, 0,
					 TESSEL_MAX_BLOCKS, where);
	if (rc || stage < 0)
		return rc;
	rc = tessel_graph_set_stage(r->g, gid, (int)stage);
	return rc ? api_error(rc, where, "stage") : TSL_OK;
}

/* One alternative of a block: {"backward": NAME, "saves": S, COST: C}
 * (member `key` of obj, optional). */
static int read_alternative(reader *r, int gid, const json_t *obj,
			    const char *key, const char *cost_key,
			    const char *where)
{
	json_t *alt;
	const char *back = NULL;
	long long saves = 0, cost = 0;
	int bgid;
	char at[400];
	int rc = tsl_json_member(&alt, obj, key, JSON_OBJECT, 0, where);

	if (rc || !alt)
		return rc;
	snprintf(at, sizeof at, "%s\"%s\": ", where, key);
	rc = tsl_json_member_string(&back, alt, "backward", 1, at);
	if (!rc)
		rc = tsl_json_member_int(&saves, alt, "saves", 1, 1,
					 TESSEL_MAX_MEMORY, at);
	if (!rc)
		rc = tsl_json_member_int(&cost, alt, cost_key, 1, 0,
					 TESSEL_MAX_SPAN, at);
	if (rc)
		return rc;
	if (tessel_graph_find(&bgid, r->g, back))
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s\"backward\": unknown block \"%.200s\"", at,
				 back);
	if (!strcmp(key, "recompute"))
		rc = tessel_graph_set_recompute(r->g, gid, bgid, (int)saves,
						(int)cost);
	else
		rc = tessel_graph_set_offload(r->g, gid, bgid, (int)saves,
					      (int)cost);
	return rc ? api_error(rc, where, key) : TSL_OK;
}

/* Third pass over one block: its alternatives (every block placed). */
static int read_alternatives(reader *r, int gid)
{
	char where[320];
	const json_t *obj = block_at(r, (size_t)gid);
	if (!obj)
		return tsl_error(TESSEL_EPARSE, "block %d does not parse", gid);
	block_where(where, sizeof where, (size_t)gid, r->g->blocks[gid].name);
	int rc = read_alternative(r, gid, obj, "recompute", "extra", where);
	if (!rc)
		rc = read_alternative(r, gid, obj, "offload", "transfer", where);
	return rc;
}

static int set_limit(reader *r, int device, const json_t *v, const char *what)
{
	long long limit = 0;
	int rc = tsl_json_int(&limit, v, TESSEL_UNLIMITED, MAX_LIMIT, "", what);

	if (rc)
		return rc;
	rc = tessel_graph_set_memory_limit(r->g, device, limit);
	return rc ? api_error(rc, "", "memory_limit") : TSL_OK;
}

static int read_limits(reader *r, const json_t *root)
{
	char what[64];
	json_t *v = json_object_get(root, "memory_limit");

	if (!v)
		return TSL_OK;
	if (json_is_integer(v))
		return set_limit(r, TESSEL_ALL_DEVICES, v, "\"memory_limit\"");
	if (!json_is_array(v))
		return tsl_error(TESSEL_EPARSE,
				 "\"memory_limit\" must be an integer or an array of integers, not %s",
				 tsl_json_type_name(v));
	if (json_array_size(v) != (size_t)r->ndevices)
		return tsl_error(TESSEL_EPARSE,
				 "\"memory_limit\" has %zu entries, expected one per device (%d)",
				 json_array_size(v), r->ndevices);
	for (int d = 0; d < r->ndevices; d++) {
		snprintf(what, sizeof what, "\"memory_limit\"[%d]", d);
		int rc = set_limit(r, d, json_array_get(v, (size_t)d), what);
		if (rc)
			return rc;
	}
	return TSL_OK;
}

/* Every duration and latency of a timed placement without a "step", into
 * vals (n blocks + 1 + all "after" entries); *count the number found. */
static int gather_times(reader *r, const json_t *root, double *vals,
			size_t *count)
{
	char where[320];
	const char *name;
	double lat;
	size_t n = 0, nb = count_blocks(r);
	json_t *v = json_object_get(root, "latency");
	int rc;

	for (size_t i = 0; i < nb; i++)
		vals[n++] = r->dur[i];
	if (v) {
		rc = read_latency(&vals[n++], v, 1, "", "\"latency\"");
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < nb; i++) {
		json_t *list = json_object_get(block_at(r, i), "after");
		if (!json_is_array(list))
			continue; /* the link pass reports it */
		block_where(where, sizeof where, i, r->g->blocks[i].name);
		for (size_t k = 0; k < json_array_size(list); k++) {
			rc = after_entry(&name, &lat, json_array_get(list, k), 1,
					 where, k);
			if (rc)
				return rc;
			if (lat > 0)
				vals[n++] = lat;
		}
	}
	*count = n;
	return TSL_OK;
}

/* Number of "after" entries in all blocks. */
static size_t count_after(reader *r)
{
	size_t n = 0;

	for (size_t i = 0; i < count_blocks(r); i++)
		n += json_array_size(json_object_get(block_at(r, i), "after"));
	return n;
}

/* The step of a timed placement: "step", or picked from the durations and
 * latencies by the 1 % rule. */
static int pick_step(double *step, reader *r, const json_t *root)
{
	size_t n = 0, cap = count_blocks(r) + 1 + count_after(r);
	double *vals = tsl_reallocarray(NULL, cap, sizeof *vals);

	if (!vals)
		return tsl_error_nomem();
	int rc = gather_times(r, root, vals, &n);
	if (!rc) {
		rc = tessel_pick_step(step, vals, n);
		if (rc)
			tsl_json_error_prefix(rc, "no \"step\" given and none picked: ");
	}
	tsl_free(vals);
	return rc;
}

/* "step" and "unit" (both optional); whether the placement is timed. */
static int read_unit(reader *r, const json_t *root, double *step)
{
	const char *unit = NULL;
	json_t *v = json_object_get(root, "step");
	int rc;

	*step = 0;
	if (v) {
		rc = read_number(step, v, 1, "", "\"step\"");
		if (rc)
			return rc;
		r->timed = 1;
	}
	/* a block with a "duration" makes it timed too (add_block) */
	rc = tsl_json_member_string(&unit, root, "unit", 0, "");
	if (!rc && unit) {
		rc = tessel_graph_set_unit(r->g, unit);
		if (rc)
			return api_error(rc, "", "unit");
	}
	return rc;
}

/* The step (given or picked), then the spans of blocks with durations. */
static int apply_step(reader *r, const json_t *root, double step)
{
	char where[320];
	int rc = TSL_OK;

	if (!r->timed)
		return TSL_OK;
	if (step == 0)
		rc = pick_step(&step, r, root);
	if (rc)
		return rc;
	rc = tessel_graph_set_step(r->g, step);
	if (rc)
		return api_error(rc, "", "step");
	for (int b = 0; b < r->g->nblocks; b++) {
		if (r->dur[b] == 0)
			continue;
		rc = tessel_graph_set_block_duration(r->g, b, r->dur[b]);
		if (rc) {
			block_where(where, sizeof where, (size_t)b,
				    r->g->blocks[b].name);
			return api_error(rc, where, "duration");
		}
	}
	return TSL_OK;
}

/* The top-level "latency": steps, or in the unit when timed. */
static int read_graph_latency(reader *r, const json_t *root)
{
	json_t *v = json_object_get(root, "latency");
	double lat = 0;

	if (!v)
		return TSL_OK;
	int rc = read_latency(&lat, v, r->timed, "", "\"latency\"");
	if (rc)
		return rc;
	if (r->timed)
		rc = tessel_graph_set_latency_time(r->g, lat);
	else
		rc = tessel_graph_set_latency(r->g, (int)lat);
	return rc ? api_error(rc, "", "latency") : TSL_OK;
}

static int read_graph(reader *r, const json_t *root)
{
	size_t n = count_blocks(r);
	double step = 0;
	int rc = read_unit(r, root, &step);

	for (size_t i = 0; !rc && i < n; i++)
		rc = add_block(r, i);
	if (!rc)
		rc = apply_step(r, root, step);
	/* the dependencies of a file come all at once: its cycles are found
	 * by the validation below, not by a walk per dependency */
	r->g->defer_cycles = 1;
	for (size_t i = 0; !rc && i < n; i++)
		rc = link_block(r, (int)i);
	r->g->defer_cycles = 0;
	for (size_t i = 0; !rc && i < n; i++)
		rc = read_alternatives(r, (int)i);
	if (!rc)
		rc = read_limits(r, root);
	if (!rc)
		rc = read_graph_latency(r, root);
	if (rc)
		return rc;
	return tessel_graph_validate(r->g);
}

/* The placement of root, its "blocks" in r (the array or the parts). */
static int read_root(tessel_graph **out, reader *r, const json_t *root)
{
	long long ndevices = 0;
	int rc;

	*out = NULL;
	if (!json_is_object(root))
		return tsl_error(TESSEL_EPARSE,
				 "a placement must be a JSON object, not %s",
				 tsl_json_type_name(root));
	rc = tsl_json_member_int(&ndevices, root, "devices", 1, 1,
				 TESSEL_MAX_DEVICES, "");
	if (!rc && !r->parts)
		rc = tsl_json_member(&r->blocks, root, "blocks", JSON_ARRAY, 1, "");
	if (rc)
		return rc;
	if (count_blocks(r) == 0)
		return tsl_error(TESSEL_EINVAL, "\"blocks\" must not be empty");
	if (count_blocks(r) > TESSEL_MAX_BLOCKS)
		return tsl_error(TESSEL_ERANGE,
				 "\"blocks\" has %zu blocks, at most %d are allowed",
				 count_blocks(r), TESSEL_MAX_BLOCKS);
	r->ndevices = (int)ndevices;
	rc = tessel_graph_new(&r->g, r->ndevices);
	if (!rc)
		rc = tsl_graph_reserve(r->g, (int)count_blocks(r));
	if (rc) {
		tessel_graph_free(r->g);
		return rc;
	}
	r->devs = tsl_calloc((size_t)r->ndevices, sizeof *r->devs);
	r->seen = tsl_calloc((size_t)r->ndevices, sizeof *r->seen);
	r->dur = tsl_calloc(count_blocks(r), sizeof *r->dur);
	if (!r->devs || !r->seen || !r->dur)
		rc = tsl_error_nomem();
	else
		rc = read_graph(r, root);
	tsl_free(r->devs);
	tsl_free(r->seen);
	tsl_free(r->dur);
	if (rc) {
		tessel_graph_free(r->g);
		return rc;
	}
	*out = r->g;
	return TSL_OK;
}

int tsl_graph_from_jansson(tessel_graph **out, const json_t *root)
{
	reader r = { 0 };
	return read_root(out, &r, root);
}

/* The placement from the parts of its text: the other members parsed,
 * the blocks one at a time. TSL_JSON_WHOLE when a block did not parse
 * (the whole read then gives the message). */
static int read_placement_parts(void *out, tsl_json_parts *parts)
{
	reader r = { .parts = parts };
	tessel_graph *g = NULL;
	int rc = read_root(&g, &r, parts->root);
	if (parts->failed) {
		tessel_graph_free(g);
		return TSL_JSON_WHOLE;
	}
	if (!rc)
		*(tessel_graph **)out = g;
	return rc;
}

static int read_placement(void *out, const json_t *root)
{
	return tsl_graph_from_jansson(out, root);
}

/* A placement of more blocks than a graph may hold is refused before it
 * is parsed. */
static const tsl_json_limit blocks_limit = {"blocks", TESSEL_MAX_BLOCKS, "blocks"};

TESSEL_API int tessel_graph_from_json(tessel_graph **out, const char *text,
				      size_t length)
{
	TSL_CHECK_ARG(out, NULL, "out");
	*out = NULL;
	return tsl_json_read_text_parts(out, text, length, read_placement,
					read_placement_parts, &blocks_limit);
}

TESSEL_API int tessel_graph_from_file(tessel_graph **out, const char *path)
{
	TSL_CHECK_ARG(out, NULL, "out");
	*out = NULL;
	return tsl_json_read_file_parts(out, path, read_placement,
					read_placement_parts, &blocks_limit);
}

/* ------------------------------------------------------------------------ */
/* Writing a placement                                                        */
/* ------------------------------------------------------------------------ */

/* A JSON string of a block name; *bad_utf8 set when it is not UTF-8. */
static json_t *name_string(const char *name, int *bad_utf8)
{
	json_t *s = json_string(name);

	if (!s && !*bad_utf8) {
		/* json_string fails on bad UTF-8 and on lack of memory. */
		json_t *raw = json_string_nocheck(name);
		if (raw)
			*bad_utf8 = 1;
		json_decref(raw);
	}
	return s;
}

/* One entry of "after": the producer's name, or {"block": NAME,
 * "latency": L} for a dependency with its own latency (L in the unit when
 * the graph has a step, else in steps). */
static json_t *after_value(const tessel_graph *g, const tsl_block *b, int j,
			   int *bad_utf8)
{
	json_t *name = name_string(g->blocks[b->deps[j]].name, bad_utf8);

	if (!name || b->deplat[j] < 0)
		return name;
	json_t *o = json_object();
	json_t *lat = g->step > 0 ? json_real(tsl_dep_latency_time(g, b, j))
				  : json_integer(b->deplat[j]);
	int bad = !o;
	if (!bad)
		bad |= json_object_set_new(o, "block", name);
	else
		json_decref(name);
	if (!bad)
		bad |= json_object_set_new(o, "latency", lat);
	else
		json_decref(lat);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *block_object(const tessel_graph *g, int gid, int *bad_utf8)
{
	const tsl_block *b = &g->blocks[gid];
	json_t *o = json_object();
	int bad = !o;

	if (bad)
		return NULL;
	bad |= json_object_set_new(o, "name", name_string(b->name, bad_utf8));
	bad |= json_object_set_new(o, "kind",
				   json_string(tsl_kind_name(b->kind)));
	if (b->duration > 0)
		bad |= json_object_set_new(o, "duration", json_real(b->duration));
	else
		bad |= json_object_set_new(o, "span", json_integer(b->span));
	bad |= json_object_set_new(o, "memory", json_integer(b->memory));
	bad |= json_object_set_new(o, "devices",
				   tsl_json_int_array(b->devices, NULL, b->ndevices));
	if (b->ndeps > 0) {
		json_t *after = json_array();
		for (int i = 0; after && i < b->ndeps; i++)
			bad |= json_array_append_new(after,
				after_value(g, b, i, bad_utf8));
		bad |= json_object_set_new(o, "after", after);
	}
	if (b->stage >= 0)
		bad |= json_object_set_new(o, "stage", json_integer(b->stage));
	if (b->rc_backward >= 0)
		bad |= json_object_set_new(o, "recompute",
			json_pack("{s:o,s:i,s:i}", "backward",
				  name_string(g->blocks[b->rc_backward].name, bad_utf8),
				  "saves", b->rc_saves, "extra", b->rc_extra));
	if (b->of_backward >= 0)
		bad |= json_object_set_new(o, "offload",
			json_pack("{s:o,s:i,s:i}", "backward",
				  name_string(g->blocks[b->of_backward].name, bad_utf8),
				  "saves", b->of_saves, "transfer", b->of_transfer));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* "step", "unit" and "latency" of the top level (each when it is set). */
static int time_members(json_t *root, const tessel_graph *g)
{
	int bad = 0;

	if (g->step > 0)
		bad |= json_object_set_new(root, "step", json_real(g->step));
	if (g->unit)
		bad |= json_object_set_new(root, "unit", json_string(g->unit));
	if (g->step > 0 && (g->latency > 0 || g->latency_time > 0)) {
		double lat = g->latency_time >= 0 ? g->latency_time
						  : g->latency * g->step;
		bad |= json_object_set_new(root, "latency", json_real(lat));
	} else if (g->step == 0 && g->latency > 0) {
		bad |= json_object_set_new(root, "latency",
					   json_integer(g->latency));
	}
	return bad;
}

/* memory_limit: one integer when all devices agree, an array otherwise,
 * NULL (and *omit) when every device is unlimited. */
static json_t *limits_value(const tessel_graph *g, int *omit)
{
	int same = 1;

	*omit = 0;
	for (int d = 1; d < g->ndevices; d++)
		if (g->memory_limit[d] != g->memory_limit[0])
			same = 0;
	if (same && g->memory_limit[0] == TESSEL_UNLIMITED) {
		*omit = 1;
		return NULL;
	}
	if (same)
		return json_integer(g->memory_limit[0]);
	json_t *a = json_array();
	for (int d = 0; a && d < g->ndevices; d++)
		if (json_array_append_new(a, json_integer(g->memory_limit[d]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static int first_bad_name(const tessel_graph *g)
{
	for (int i = 0; i < g->nblocks; i++)
		if (!tsl_utf8_valid(g->blocks[i].name))
			return i;
	return 0;
}

int tsl_graph_to_jansson(json_t **out, const tessel_graph *g)
{
	json_t *root = json_object();
	json_t *blocks = json_array();
	int omit, bad_utf8 = 0;
	int bad = !root || !blocks;

	*out = NULL;
	if (!bad) {
		bad |= json_object_set_new(root, "devices",
					   json_integer(g->ndevices));
		json_t *limits = limits_value(g, &omit);
		if (!omit)
			bad |= json_object_set_new(root, "memory_limit", limits);
		bad |= time_members(root, g);
	}
	for (int i = 0; !bad && i < g->nblocks; i++)
		bad |= json_array_append_new(blocks,
					     block_object(g, i, &bad_utf8));
	if (!bad) {
		bad |= json_object_set_new(root, "blocks", blocks);
		blocks = NULL;
	}
	json_decref(blocks);
	if (bad) {
		json_decref(root);
		if (bad_utf8) {
			int i = first_bad_name(g);
			return tsl_error(TESSEL_EINVAL,
					 "block %d: the name is not valid UTF-8",
					 i);
		}
		return tsl_error_nomem();
	}
	*out = root;
	return TSL_OK;
}
TESSEL_API int tessel_graph_to_json(char **out, const tessel_graph *g)
{
	json_t *root;
	tsl_buf b;

	TSL_CHECK_ARG(out, NULL, "out");
	*out = NULL;
	TSL_CHECK_ARG(g, NULL, "graph");
	int rc = tsl_graph_to_jansson(&root, g);
	if (rc)
		return rc;
	tsl_buf_init(&b);
	tsl_json_write(&b, root, 0);
	tsl_buf_puts(&b, "\n");
	json_decref(root);
	return tsl_buf_finish(out, &b, TSL_OK);
}
