/* Internal: the generic JSON helpers of json_util.c, shared by the readers
 * and writers of lib/ (graph_json.c, schedule_json.c, reference_json.c).
 * Only those files and json_util.c include this header, and so jansson.h
 * (checked by tests/check-walls). */
#ifndef TESSEL_JSON_UTIL_H
#define TESSEL_JSON_UTIL_H

#include <stddef.h>

#include <jansson.h>

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

/* A JSON array of n integers, from v (int) or, when v is NULL, from w
 * (int64_t). New reference, NULL when out of memory. */
json_t *tsl_json_int_array(const int *v, const int64_t *w, int n);

/* Append `depth` levels of indentation. */
void tsl_json_indent(tsl_buf *b, int depth);

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

/* A member `key` (optional) that must be [begin, end]: *given 0 when it is
 * missing, else 1 with both read; begin in lo .. hi, end in lo .. hi, or
 * in begin .. hi when `ordered`. TESSEL_EPARSE / TESSEL_ERANGE naming the
 * member otherwise. */
int tsl_json_member_range(long long *begin, long long *end, int *given,
			  const json_t *obj, const char *key, long long lo,
			  long long hi, int ordered);

/* Build a value from a parsed JSON object: the reader behind a public
 * _from_json / _from_file function. `out` is the caller's out-parameter
 * (a pointer to the pointer the reader sets). */
typedef int (*tsl_json_reader)(void *out, const json_t *root);

/* A bound on the size of the text's top-level array `member`, checked by
 * a scan of the text before it is parsed (the parse builds a tree of
 * several times the text's size): a text over it is refused at once with
 * TESSEL_ERANGE, "\"MEMBER\" has more than MAX WHAT". */
typedef struct tsl_json_limit {
	const char *member; /* NULL: none */
	size_t max;
	const char *what;   /* e.g. "blocks" */
} tsl_json_limit;

/* The body of a public _from_json: (scan,) parse, read, release. */
int tsl_json_read_text(void *out, const char *text, size_t length,
		       tsl_json_reader read, const tsl_json_limit *limit);

/* The body of a public _from_file: load, (scan,) parse, read, release;
 * every error message starts with "PATH: ". */
int tsl_json_read_file(void *out, const char *path, tsl_json_reader read,
		       const tsl_json_limit *limit);

/* A top-level object read in parts, so that the tree of a large text is
 * never built whole: its members but one, parsed, and the elements of
 * that one (an array) as spans of the text, each parsed when asked for,
 * one at a time. Only for well-formed text: anything the scan does not
 * expect (and any element that does not parse) sends the caller back to
 * the whole parse, which gives the same result or its error message. */
typedef struct tsl_json_parts {
	json_t *root;        /* the other members */
	const char *text;    /* NULL: the elements are read from fd */
	int fd;              /* the file, when text is NULL */
	char *win;           /* its window: bytes win_at .. win_at + win_len */
	size_t win_at, win_len, win_cap;
	size_t *start, *end; /* element i is text[start[i] .. end[i]) */
	size_t count;
	json_t *cur;         /* the element last asked for */
	size_t cur_idx;
	int failed;          /* an element did not parse */
} tsl_json_parts;

/* The element idx (borrowed until the next call); NULL, with failed set,
 * when it does not parse. */
const json_t *tsl_json_parts_get(tsl_json_parts *p, size_t idx);

/* Build a value from the parts of a text whose array member was read as
 * spans (tsl_json_read_text_parts). Return TSL_JSON_WHOLE when
 * parts->failed was set: the text is then read whole. */
typedef int (*tsl_json_parts_reader)(void *out, tsl_json_parts *parts);
#define TSL_JSON_WHOLE 1

/* tsl_json_read_text / _read_file, with the array `member` of the
 * limit read in parts by read_parts when the text has the simple form
 * (a top-level object with that member a non-empty array), else whole
 * by read. Peak memory: the text, the parts' spans and the value built. */
int tsl_json_read_text_parts(void *out, const char *text, size_t length,
			     tsl_json_reader read,
			     tsl_json_parts_reader read_parts,
			     const tsl_json_limit *limit);
int tsl_json_read_file_parts(void *out, const char *path,
			     tsl_json_reader read,
			     tsl_json_parts_reader read_parts,
			     const tsl_json_limit *limit);

#endif
