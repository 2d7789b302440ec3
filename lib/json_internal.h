/* Internal: what the placement and schedule JSON code share. Only
 * the JSON readers and writers of lib/ include this header (and jansson.h). */
#ifndef TESSEL_JSON_INTERNAL_H
#define TESSEL_JSON_INTERNAL_H

#include <stddef.h>

#include <jansson.h>

#include "graph.h"
#include "tessel.h"
#include "util.h"

/* Parse `length` bytes of JSON text whose root must be an object.
 * TESSEL_EPARSE with "line L, column C: ..." on a syntax error.
 * *out: new reference, NULL on error. */
int tsl_json_load_text(json_t **out, const char *text, size_t length);

/* Same for the file at `path` (TESSEL_EIO if it cannot be read). */
int tsl_json_load_file(json_t **out, const char *path);

/* Set the last error again with `prefix` in front of its message; returns
 * `code`. */
int tsl_json_error_prefix(int code, const char *prefix);

/* Build and validate a graph from a parsed placement object. Errors name
 * the block (index and name) and the field. *out: new, NULL on error. */
int tsl_graph_from_jansson(tessel_graph **out, json_t *root);

/* The placement object of a graph. *out: new reference. TESSEL_EINVAL if
 * a block name is not valid UTF-8, TESSEL_ENOMEM. */
int tsl_graph_to_jansson(json_t **out, const tessel_graph *g);

/* Append `v` pretty-printed at nesting level `depth` (2 spaces a level):
 * objects one member a line, arrays of scalars on one line, arrays of
 * objects or arrays one element a line (each element on one line).
 * Allocation failures mark the buffer as failed. */
void tsl_json_write(tsl_buf *b, json_t *v, int depth);

/* A real as the writers spell it: the shortest of 15, 16 or 17
 * significant digits that reads back as the same double, with ".0" when
 * it would read as an integer and exponents without '+' or leading zeros
 * (jansson's spelling). -1 when `size` (at least 40 is enough) is too
 * small. */
int tsl_json_real_text(char *text, size_t size, double v);

/* Append the JSON encoding (quotes and escapes) of a string. */
void tsl_json_write_string(tsl_buf *b, const char *s);

/* Append `depth` levels of indentation. */
void tsl_json_indent(tsl_buf *b, int depth);

/* Name of a tessel_kind as written in JSON ("forward", ...). */
const char *tsl_json_kind_name(int kind);

/* "an object", "a string", ... for messages. */
const char *tsl_json_type_name(const json_t *v);

/* Readers of typed values. `where` starts every message (for instance
 * "block 3 (\"f2\"): ", or ""); `what` names the value ("\"span\"").
 * Wrong type: TESSEL_EPARSE; outside lo .. hi: TESSEL_ERANGE. */
int tsl_json_int(long long *out, const json_t *v, long long lo, long long hi,
		 const char *where, const char *what);

/* Member `key` of `obj`. When it is missing: TESSEL_EPARSE if `required`,
 * else TESSEL_OK with *out left untouched (NULL for tsl_json_member). */
int tsl_json_member_int(long long *out, const json_t *obj, const char *key,
			int required, long long lo, long long hi,
			const char *where);
int tsl_json_member_string(const char **out, const json_t *obj,
			   const char *key, int required, const char *where);
/* `type`: JSON_OBJECT, JSON_ARRAY or JSON_STRING. */
int tsl_json_member(json_t **out, const json_t *obj, const char *key,
		    json_type type, int required, const char *where);

/* TESSEL_EINVAL naming the first block (and `fn`) whose name is not valid
 * UTF-8: JSON text cannot hold it. For the hand-written JSON writers. */
int tsl_json_check_names(const tessel_graph *g, const char *fn);

/* Check a schedule entry (schedule JSON, reference files) against block
 * `gid` of g: "span" and "memory" equal, "btype" "forward" for a forward
 * block and "backward" otherwise (absent allowed unless btype_required),
 * "device" the same devices in any order. TESSEL_EPARSE naming the field
 * and the block otherwise. `tmp` has room for g->ndevices ints. */
int tsl_json_check_entry(const tessel_graph *g, int *tmp, const json_t *obj,
			 int gid, int btype_required, const char *where);

#endif
