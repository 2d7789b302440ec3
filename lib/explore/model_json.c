/* Model profile JSON: reading (doc/formats.md, "Model profile";
 * doc/schema/model.schema.json) into the layout of model.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "json_util.h"
#include "model.h"
#include "util.h"

/* A number `what` of `obj` (required or not: *out untouched when
 * missing): TESSEL_EPARSE for another type, TESSEL_ERANGE unless finite and
 * > 0 (positive) or >= 0. */
static int member_number(double *out, const json_t *obj, const char *key,
			 int required, int positive, const char *where)
{
	const json_t *v = json_object_get(obj, key);
	if (!v) {
		if (required)
			return tsl_error(TESSEL_EPARSE, "%smissing \"%s\"", where,
					 key);
		return TSL_OK;
	}
	if (!json_is_number(v))
		return tsl_error(TESSEL_EPARSE, "%s\"%s\" must be a number, not %s",
				 where, key, tsl_json_type_name(v));
	double x = json_number_value(v);
	if (!isfinite(x) || !(positive ? x > 0 : x >= 0) || x > 1e15) {
		/* the value as read (a value just above 1e15 is not "1e+15") */
		char got[48];
		if (tsl_json_real_text(got, sizeof got, x) < 0)
			snprintf(got, sizeof got, "%g", x);
		return tsl_error(TESSEL_ERANGE,
				 "%s\"%s\" must be a number %s and at most 1e15, got %s",
				 where, key, positive ? "> 0" : ">= 0", got);
	}
	/* (an integer up to 1e15 is exact as a double) */
	*out = x;
	return TSL_OK;
}

/* A string member of at most `max` bytes, copied into *out (required or
 * not: *out untouched when missing). */
static int member_text(char **out, const json_t *obj, const char *key,
		       int required, size_t max, const char *where)
{
	const char *s = NULL;
	int rc = tsl_json_member_string(&s, obj, key, required, where);
	if (rc || !s)
		return rc;
	if (strlen(s) > max)
		return tsl_error(TESSEL_ERANGE, "%s\"%s\" is longer than %zu bytes",
				 where, key, max);
	char *copy = tsl_strdup(s);
	if (!copy)
		return tsl_error_nomem();
	tsl_free(*out);
	*out = copy;
	return TSL_OK;
}

/* A name's or a unit's text: printed in every table and given to each
 * placement (block names, tessel_graph_set_unit), so no control
 * character. */
static int plain_text(const char *s, const char *key, const char *where)
{
	if (!s)
		return TSL_OK;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return tsl_error(TESSEL_EPARSE,
					 "%s\"%s\" holds a control character (byte %d)",
					 where, key, (int)(p - (const unsigned char *)s));
	return TSL_OK;
}

/* One entry of tensor_parallel.times. */
static int read_tp_time(tsl_tp_time *t, const json_t *v, const char *where)
{
	if (!json_is_object(v))
		return tsl_error(TESSEL_EPARSE,
				 "%s\"tensor_parallel\": \"times\" holds %s, not an object",
				 where, tsl_json_type_name(v));
	long long devices = 0;
	int rc = tsl_json_member_int(&devices, v, "devices", 1, 2,
				     TESSEL_MAX_DEVICES, where);
	t->devices = (int)devices;
	/* a time left out comes from the efficiency, as without "times" */
	t->b = t->w = -1;
	if (!rc)
		rc = member_number(&t->f, v, "forward", 1, 1, where);
	if (!rc)
		rc = member_number(&t->b, v, "backward", 0, 0, where);
	if (!rc)
		rc = member_number(&t->w, v, "weight", 0, 0, where);
	return rc;
}

/* A tensor_parallel object (optional member of obj). */
static int read_tp(tsl_tp *tp, const json_t *obj, const char *where)
{
	json_t *v = NULL;
	int rc = tsl_json_member(&v, obj, "tensor_parallel", JSON_OBJECT, 0,
				 where);
	if (rc || !v)
		return rc;
	tp->given = 1;
	tp->allreduce = 0;
	rc = member_number(&tp->efficiency, v, "efficiency", 1, 1, where);
	if (!rc && tp->efficiency > 1)
		return tsl_error(TESSEL_ERANGE,
				 "%s\"tensor_parallel\": \"efficiency\" must be in (0, 1], got %g",
				 where, tp->efficiency);
	if (!rc)
		rc = member_number(&tp->allreduce, v, "allreduce", 0, 0, where);
	json_t *times = NULL;
	if (!rc)
		rc = tsl_json_member(&times, v, "times", JSON_ARRAY, 0, where);
	if (rc || !times)
		return rc;
	size_t n = json_array_size(times);
	if (n > TESSEL_MAX_DEVICES)
		return tsl_error(TESSEL_ERANGE,
				 "%s\"tensor_parallel\": \"times\" has more than %d entries",
				 where, TESSEL_MAX_DEVICES);
	tp->times = tsl_calloc(n ? n : 1, sizeof *tp->times);
	if (!tp->times)
		return tsl_error_nomem();
	for (size_t k = 0; k < n && !rc; k++) {
		rc = read_tp_time(&tp->times[k], json_array_get(times, k), where);
		for (size_t j = 0; j < k && !rc; j++)
			if (tp->times[j].devices == tp->times[k].devices)
				rc = tsl_error(TESSEL_EPARSE,
					       "%s\"tensor_parallel\": \"times\" gives %d devices twice",
					       where, tp->times[k].devices);
		tp->ntimes = (int)k + 1;
	}
	return rc;
}

/* Names to indices of the layers read so far (open addressing). */
typedef struct names {
	int *slot;     /* index + 1, 0 empty */
	size_t cap;
} names;

static size_t name_hash(const char *s)
{
	size_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static int names_find(const names *t, const tessel_model *m, const char *s)
{
	for (size_t i = name_hash(s) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		if (!t->slot[i])
			return -1;
		if (strcmp(m->layers[t->slot[i] - 1].name, s) == 0)
			return t->slot[i] - 1;
	}
}

static void names_add(names *t, const tessel_model *m, int idx)
{
	size_t i = name_hash(m->layers[idx].name) & (t->cap - 1);
	while (t->slot[i])
		i = (i + 1) & (t->cap - 1);
	t->slot[i] = idx + 1;
}

/* The `after` list of layer idx: indices of earlier layers. */
static int read_after(tessel_model *m, int idx, const json_t *obj,
		      const names *t, const json_t *all, const char *where)
{
	tsl_layer *L = &m->layers[idx];
	json_t *v = NULL;
	int rc = tsl_json_member(&v, obj, "after", JSON_ARRAY, 0, where);
	if (rc)
		return rc;
	if (!v) {
		if (idx == 0)
			return TSL_OK;
		L->after = tsl_malloc(sizeof *L->after);
		if (!L->after)
			return tsl_error_nomem();
		L->after[0] = idx - 1;
		L->nafter = 1;
		return TSL_OK;
	}
	size_t n = json_array_size(v);
	L->after = tsl_malloc((n ? n : 1) * sizeof *L->after);
	if (!L->after)
		return tsl_error_nomem();
	for (size_t k = 0; k < n; k++) {
		const json_t *e = json_array_get(v, k);
		if (!json_is_string(e))
			return tsl_error(TESSEL_EPARSE,
					 "%s\"after\" holds %s, not a layer name",
					 where, tsl_json_type_name(e));
		const char *s = json_string_value(e);
		int p = names_find(t, m, s);
		if (p == idx)
			return tsl_error(TESSEL_EPARSE,
					 "%s\"after\" names the layer itself (it takes earlier layers' outputs)",
					 where);
		if (p < 0) {
			int later = 0;
			for (size_t j = (size_t)idx; j < json_array_size(all) && !later; j++) {
				const json_t *nm = json_object_get(json_array_get(all, j), "name");
				later = json_is_string(nm) && strcmp(json_string_value(nm), s) == 0;
			}
			return tsl_error(TESSEL_EPARSE,
					 later ? "%s\"after\": layer \"%.200s\" is not earlier in the list (list the layers in an order of their inputs)"
					       : "%s\"after\": no layer \"%.200s\"",
					 where, s);
		}
		for (int j = 0; j < L->nafter; j++)
			if (L->after[j] == p)
				return tsl_error(TESSEL_EPARSE,
						 "%s\"after\" names \"%.200s\" twice",
						 where, s);
		L->after[L->nafter++] = p;
	}
	return TSL_OK;
}

static int read_layer(tessel_model *m, int idx, const json_t *all, names *t)
{
	const json_t *obj = json_array_get(all, (size_t)idx);
	char where[300];
	snprintf(where, sizeof where, "layer %d: ", idx);
	if (!json_is_object(obj))
		return tsl_error(TESSEL_EPARSE, "%smust be an object, not %s",
				 where, tsl_json_type_name(obj));
	tsl_layer *L = &m->layers[idx];
	int rc = member_text(&L->name, obj, "name", 1, TSL_MODEL_NAME_LEN, where);
	if (!rc && !L->name[0])
		rc = tsl_error(TESSEL_EPARSE, "%s\"name\" is empty", where);
	if (!rc)
		rc = plain_text(L->name, "name", where);
	if (rc)
		return rc;
	snprintf(where, sizeof where, "layer %d (\"%s\"): ", idx, L->name);
	if (names_find(t, m, L->name) >= 0)
		return tsl_error(TESSEL_EPARSE, "%sa layer of that name comes before",
				 where);
	names_add(t, m, idx);
	rc = member_number(&L->f, obj, "forward", 1, 1, where);
	if (!rc)
		rc = member_number(&L->b, obj, "backward", !m->infer, 0, where);
	if (!rc)
		rc = member_number(&L->w, obj, "weight", 0, 0, where);
	if (!rc)
		rc = member_number(&L->activation, obj, "activation", !m->infer, 0,
				   where);
	if (!rc)
		rc = member_number(&L->parameters, obj, "parameters", 1, 0, where);
	if (!rc)
		rc = read_after(m, idx, obj, t, all, where);
	if (!rc)
		rc = read_tp(&L->tp, obj, where);
	return rc;
}

static int read_layers(tessel_model *m, const json_t *root)
{
	json_t *all = NULL;
	int rc = tsl_json_member(&all, root, "layers", JSON_ARRAY, 1, "");
	if (rc)
		return rc;
	size_t n = json_array_size(all);
	if (n == 0)
		return tsl_error(TESSEL_EPARSE, "\"layers\" is empty");
	if (n > TSL_MODEL_MAX_LAYERS)
		return tsl_error(TESSEL_ERANGE, "\"layers\" has more than %d layers",
				 TSL_MODEL_MAX_LAYERS);
	m->layers = tsl_calloc(n, sizeof *m->layers);
	names t = {NULL, 16};
	while (t.cap < 2 * n)
		t.cap *= 2;
	t.slot = tsl_calloc(t.cap, sizeof *t.slot);
	if (!m->layers || !t.slot) {
		tsl_free(t.slot);
		return tsl_error_nomem();
	}
	for (size_t i = 0; i < n && !rc; i++) {
		m->nlayers = (int)i + 1;
		rc = read_layer(m, (int)i, all, &t);
	}
	tsl_free(t.slot);
	return rc;
}

static int read_mode(tessel_model *m, const json_t *root)
{
	const char *mode = NULL;
	int rc = tsl_json_member_string(&mode, root, "mode", 0, "");
	if (rc || !mode)
		return rc;
	if (strcmp(mode, "training") == 0)
		m->infer = 0;
	else if (strcmp(mode, "inference") == 0)
		m->infer = 1;
	else
		return tsl_error(TESSEL_EPARSE,
				 "\"mode\" must be \"training\" or \"inference\", not \"%.100s\"",
				 mode);
	return TSL_OK;
}

static int read_model(void *out, const json_t *root)
{
	tessel_model *m = tsl_calloc(1, sizeof *m);
	if (!m)
		return tsl_error_nomem();
	long long devices = 0, micros = 0;
	int rc = member_text(&m->name, root, "model", 0, TSL_MODEL_NAME_LEN, "");
	if (!rc && !m->name && !(m->name = tsl_strdup("")))
		rc = tsl_error_nomem();
	if (!rc)
		rc = member_text(&m->unit, root, "unit", 1, 32, "");
	if (!rc)
		rc = member_text(&m->memory_unit, root, "memory_unit", 0, 32, "");
	if (!rc && !m->memory_unit && !(m->memory_unit = tsl_strdup("GB")))
		rc = tsl_error_nomem();
	if (!rc)
		rc = plain_text(m->name, "model", "");
	if (!rc)
		rc = plain_text(m->unit, "unit", "");
	if (!rc)
		rc = plain_text(m->memory_unit, "memory_unit", "");
	if (!rc)
		rc = tsl_json_member_int(&devices, root, "devices", 1, 2,
					 TESSEL_MAX_DEVICES, "");
	m->devices = (int)devices;
	if (!rc)
		rc = member_number(&m->memory, root, "memory_per_device", 1, 1, "");
	if (!rc)
		rc = member_number(&m->transfer, root, "transfer", 0, 0, "");
	if (!rc)
		rc = tsl_json_member_int(&micros, root, "micro_batches", 1, 1,
					 TSL_MODEL_MAX_MICROS, "");
	m->micros = micros;
	if (!rc)
		rc = read_mode(m, root);
	if (!rc)
		rc = read_tp(&m->tp, root, "");
	if (!rc)
		rc = read_layers(m, root);
	if (rc) {
		tsl_model_release(m);
		return rc;
	}
	*(tessel_model **)out = m;
	return TSL_OK;
}

static const tsl_json_limit layers_limit = {"layers", TSL_MODEL_MAX_LAYERS,
					    "layers"};

TESSEL_API int tessel_model_from_json(tessel_model **out, const char *text,
				      size_t length)
{
	TSL_CHECK_ARG(out, "tessel_model_from_json", "out");
	*out = NULL;
	TSL_CHECK_ARG(text, "tessel_model_from_json", "text");
	return tsl_json_read_text(out, text, length, read_model, &layers_limit);
}

TESSEL_API int tessel_model_from_file(tessel_model **out, const char *path)
{
	TSL_CHECK_ARG(out, "tessel_model_from_file", "out");
	*out = NULL;
	TSL_CHECK_ARG(path, "tessel_model_from_file", "path");
	return tsl_json_read_file(out, path, read_model, &layers_limit);
}
