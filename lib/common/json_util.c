/* Generic JSON helpers of the readers and writers of lib/: loading a
 * text or a file, typed members with messages naming the field, and the
 * pretty writer. Only the JSON files of lib/ (*_json.c) and this one
 * include jansson.h (tests/check-walls). */
#include "json_util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "util.h"

/* ------------------------------------------------------------------------ */
/* Errors                                                                     */
/* ------------------------------------------------------------------------ */

int tsl_json_error_prefix(int code, const char *prefix)
{
	char copy[1024];

	snprintf(copy, sizeof copy, "%s", tessel_error_last());
	return tsl_error(code, "%s%s", prefix, copy);
}


/* ------------------------------------------------------------------------ */
/* Typed values                                                               */
/* ------------------------------------------------------------------------ */

const char *tsl_json_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE: return "true";
	case JSON_FALSE: return "false";
	case JSON_NULL: return "null";
	}
	return "an unknown value";
}

static const char *expected_name(json_type type)
{
	switch (type) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	default: return "a value";
	}
}

int tsl_json_int(long long *out, const json_t *v, long long lo, long long hi,
		 const char *where, const char *what)
{
	if (!json_is_integer(v))
		return tsl_error(TESSEL_EPARSE, "%s%s must be an integer, not %s",
				 where, what, tsl_json_type_name(v));
	long long x = json_integer_value(v);
	if (x < lo || x > hi) {
		if (hi == LLONG_MAX)
			return tsl_error(TESSEL_ERANGE,
					 "%s%s must be an integer >= %lld, got %lld",
					 where, what, lo, x);
		return tsl_error(TESSEL_ERANGE,
				 "%s%s must be an integer in %lld .. %lld, got %lld",
				 where, what, lo, hi, x);
	}
	*out = x;
	return TSL_OK;
}

static int missing(const char *where, const char *key)
{
	return tsl_error(TESSEL_EPARSE, "%s\"%s\" is missing", where, key);
}

int tsl_json_member_int(long long *out, const json_t *obj, const char *key,
			int required, long long lo, long long hi,
			const char *where)
{
	char what[128];
	json_t *v = json_object_get(obj, key);

	if (!v)
		return required ? missing(where, key) : TSL_OK;
	snprintf(what, sizeof what, "\"%s\"", key);
	return tsl_json_int(out, v, lo, hi, where, what);
}

int tsl_json_member(json_t **out, const json_t *obj, const char *key,
		    json_type type, int required, const char *where)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v)
		return required ? missing(where, key) : TSL_OK;
	if (json_typeof(v) != type)
		return tsl_error(TESSEL_EPARSE, "%s\"%s\" must be %s, not %s",
				 where, key, expected_name(type),
				 tsl_json_type_name(v));
	*out = v;
	return TSL_OK;
}

int tsl_json_member_string(const char **out, const json_t *obj,
			   const char *key, int required, const char *where)
{
	json_t *v;
	int rc = tsl_json_member(&v, obj, key, JSON_STRING, required, where);

	if (!rc && v)
		*out = json_string_value(v);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Loading                                                                    */
/* ------------------------------------------------------------------------ */

static int load(json_t **out, const char *text, size_t length)
{
	json_error_t err;
	json_t *root;

	if (length == 0)
		return tsl_error(TESSEL_EPARSE, "line 1, column 1: the text is empty");
	root = json_loadb(text, length, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
			  &err);
	if (!root)
		/* columns count from 1; jansson says 0 for the end of a
		 * line that ends the text (nothing read on it yet); its words
		 * for a NUL name one of its flags, not what is wrong */
		return tsl_error(TESSEL_EPARSE, "line %d, column %d: %s",
				 err.line, err.column < 1 ? 1 : err.column,
				 strstr(err.text, "JSON_ALLOW_NUL")
					 ? "a string holds a NUL character (\\u0000), "
					   "which names and fields cannot carry"
					 : err.text);
	if (!json_is_object(root)) {
		int rc = tsl_error(TESSEL_EPARSE,
				   "the top level must be a JSON object, not %s",
				   tsl_json_type_name(root));
		json_decref(root);
		return rc;
	}
	*out = root;
	return TSL_OK;
}

int tsl_json_load_text(json_t **out, const char *text, size_t length)
{
	*out = NULL;
	TSL_CHECK_ARG(text, NULL, "text");
	const char *nul = memchr(text, '\0', length);
	if (nul)
		return tsl_error(TESSEL_EPARSE, "NUL byte at offset %zu of the text",
				 (size_t)(nul - text));
	return load(out, text, length);
}

/* The file at path into b. keep_fd: NULL, or where a descriptor of the
 * file opened stays (the caller's to close) when it is a regular file,
 * which can be read again; -1 otherwise (a pipe, a FIFO, a terminal: what
 * was read is all there is). */
static int read_file(tsl_buf *b, const char *path, int *keep_fd)
{
	char chunk[65536];
	size_t n;
	FILE *f = fopen(path, "rb");
	struct stat st;

	if (keep_fd)
		*keep_fd = -1;
	if (!f)
		return tsl_error(TESSEL_EIO, "%s: %s", path, strerror(errno));
	int regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
	/* a regular file: room for all of it at once (growing by doubling
	 * would hold up to twice its size) */
	if (regular && st.st_size > 0 &&
	    (unsigned long long)st.st_size < SIZE_MAX / 2) {
		tsl_buf_append(b, "", 0);
		if (!b->failed && b->cap < (size_t)st.st_size + 1) {
			char *d = realloc(b->data, (size_t)st.st_size + 1);
			if (d) {
				b->data = d;
				b->cap = (size_t)st.st_size + 1;
			}
		}
	}
	errno = 0;
	/* JSON text holds no NUL byte: reading stops at the first (so that
	 * /dev/zero is not read until memory runs out) */
	size_t at = 0;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		const char *nul = memchr(chunk, '\0', n);
		if (nul) {
			fclose(f);
			return tsl_error(TESSEL_EPARSE,
					 "%s: NUL byte at offset %zu: not JSON text",
					 path, at + (size_t)(nul - chunk));
		}
		tsl_buf_append(b, chunk, n);
		at += n;
	}
	int bad = ferror(f), err = errno;
	if (!bad && !b->failed && regular && keep_fd)
		*keep_fd = fcntl(fileno(f), F_DUPFD_CLOEXEC, 0);
	fclose(f);
	if (bad)
		return tsl_error(TESSEL_EIO, "%s: %s", path,
				 err ? strerror(err) : "read error");
	if (b->failed)
		return tsl_error_nomem();
	return TSL_OK;
}

static int check_limit(const char *text, size_t length,
		       const tsl_json_limit *limit);

static int load_file(json_t **out, const char *path, const tsl_json_limit *limit)
{
	tsl_buf b;
	char prefix[512];

	*out = NULL;
	TSL_CHECK_ARG(path, NULL, "path");
	tsl_buf_init(&b);
	int rc = read_file(&b, path, NULL);
	if (!rc) {
		rc = b.data ? check_limit(b.data, b.len, limit) : TSL_OK;
		if (!rc)
			rc = load(out, b.data ? b.data : "", b.len);
		snprintf(prefix, sizeof prefix, "%s: ", path);
		if (rc)
			tsl_json_error_prefix(rc, prefix);
	}
	tsl_buf_release(&b);
	return rc;
}

int tsl_json_load_file(json_t **out, const char *path)
{
	return load_file(out, path, NULL);
}

/* ------------------------------------------------------------------------ */
/* Pretty writer                                                              */
/* ------------------------------------------------------------------------ */

/* Integers, true, false and null: jansson's own encoding. */
#define INLINE_FLAGS (JSON_ENCODE_ANY | JSON_PRESERVE_ORDER)

static int buf_sink(const char *text, size_t size, void *data)
{
	tsl_buf *b = data;

	tsl_buf_append(b, text, size);
	return b->failed ? -1 : 0;
}

int tsl_json_real_text(char *text, size_t size, double v)
{
	int len = 0;

	for (int digits = 15; digits <= 17; digits++) {
		len = snprintf(text, size, "%.*g", digits, v);
		if (len < 0 || (size_t)len + 3 > size)
			return -1;
		if (strtod(text, NULL) == v)
			break;
	}
	char *e = strchr(text, 'e');
	if (!strchr(text, '.') && !e && isfinite(v)) {
		memcpy(text + len, ".0", 3);
	} else if (e) {
		char *from = e + 1, *to = e + 1;
		if (*from == '+')
			from++;
		else if (*from == '-')
			from++, to++;
		while (*from == '0' && from[1])
			from++;
		memmove(to, from, strlen(from) + 1);
	}
	return 0;
}

static void write_real(tsl_buf *b, double v)
{
	char text[40];

	if (tsl_json_real_text(text, sizeof text, v))
		b->failed = 1;
	else
		tsl_buf_puts(b, text);
}

/* One line: jansson's compact-with-spaces layout ({"a": 1, "b": [1, 2]}),
 * reals by write_real so that they read back exactly. */
static void write_inline(tsl_buf *b, json_t *v)
{
	const char *key;
	json_t *x;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		tsl_buf_puts(b, "{");
		i = 0;
		json_object_foreach(v, key, x) {
			if (i++)
				tsl_buf_puts(b, ", ");
			tsl_buf_json_string(b, key);
			tsl_buf_puts(b, ": ");
			write_inline(b, x);
		}
		tsl_buf_puts(b, "}");
		return;
	case JSON_ARRAY:
		tsl_buf_puts(b, "[");
		json_array_foreach(v, i, x) {
			if (i)
				tsl_buf_puts(b, ", ");
			write_inline(b, x);
		}
		tsl_buf_puts(b, "]");
		return;
	case JSON_REAL:
		write_real(b, json_real_value(v));
		return;
	case JSON_STRING:
		tsl_buf_json_string(b, json_string_value(v));
		return;
	default:
		if (json_dump_callback(v, buf_sink, b, INLINE_FLAGS))
			b->failed = 1;
		return;
	}
}

json_t *tsl_json_int_array(const int *v, const int64_t *w, int n)
{
	json_t *a = json_array();

	for (int i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_integer(v ? v[i] : w[i]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

void tsl_json_indent(tsl_buf *b, int depth)
{
	for (int i = 0; i < depth; i++)
		tsl_buf_append(b, "  ", 2);
}


static int all_scalars(json_t *a)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (json_is_object(v) || json_is_array(v))
			return 0;
	return 1;
}

static void write_object(tsl_buf *b, json_t *o, int depth)
{
	const char *key;
	json_t *v;
	size_t left = json_object_size(o);

	tsl_buf_puts(b, "{\n");
	json_object_foreach(o, key, v) {
		tsl_json_indent(b, depth + 1);
		tsl_buf_json_string(b, key);
		tsl_buf_puts(b, ": ");
		tsl_json_write(b, v, depth + 1);
		tsl_buf_puts(b, --left ? ",\n" : "\n");
	}
	tsl_json_indent(b, depth);
	tsl_buf_puts(b, "}");
}

static void write_array(tsl_buf *b, json_t *a, int depth)
{
	size_t i, n = json_array_size(a);
	json_t *v;

	tsl_buf_puts(b, "[\n");
	json_array_foreach(a, i, v) {
		tsl_json_indent(b, depth + 1);
		write_inline(b, v);
		tsl_buf_puts(b, i + 1 < n ? ",\n" : "\n");
		tsl_buf_flush_point(b);
	}
	tsl_json_indent(b, depth);
	tsl_buf_puts(b, "]");
}

void tsl_json_write(tsl_buf *b, json_t *v, int depth)
{
	if (json_is_object(v) && json_object_size(v) > 0)
		write_object(b, v, depth);
	else if (json_is_array(v) && !all_scalars(v))
		write_array(b, v, depth);
	else
		write_inline(b, v);
}

/* ------------------------------------------------------------------------ */
/* Shared readers                                                             */
/* ------------------------------------------------------------------------ */

int tsl_json_member_range(long long *begin, long long *end, int *given,
			  const json_t *obj, const char *key, long long lo,
			  long long hi, int ordered)
{
	char what[2][128];
	json_t *a;
	int rc = tsl_json_member(&a, obj, key, JSON_ARRAY, 0, "");

	*given = 0;
	if (rc || !a)
		return rc;
	if (json_array_size(a) != 2)
		return tsl_error(TESSEL_EPARSE,
				 "\"%s\" must be [begin, end], not an array of %zu values",
				 key, json_array_size(a));
	snprintf(what[0], sizeof what[0], "\"%s\"[0]", key);
	snprintf(what[1], sizeof what[1], "\"%s\"[1]", key);
	rc = tsl_json_int(begin, json_array_get(a, 0), lo, hi, "", what[0]);
	if (!rc)
		rc = tsl_json_int(end, json_array_get(a, 1),
				  ordered ? *begin : lo, hi, "", what[1]);
	if (!rc)
		*given = 1;
	return rc;
}

/* ------------------------------------------------------------------------ */
/* The size scan                                                              */
/* ------------------------------------------------------------------------ */

/* The end of the JSON string whose opening quote is at p[0]: the index
 * after its closing quote, or n when the text ends first. */
static size_t skip_string(const char *p, size_t i, size_t n)
{
	for (i++; i < n; i++) {
		if (p[i] == '\\')
			i++;
		else if (p[i] == '"')
			return i + 1;
	}
	return n;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The elements of the array that is the value of the top-level member
 * `key`, counted up to max + 1 without building anything; 0 when the
 * text has no such array or is not well formed there (the parse then
 * says why). */
static size_t scan_member_array(const char *p, size_t n, const char *key,
				size_t max)
{
	size_t klen = strlen(key), i = 0;
	int depth = 0;
	while (i < n && is_space(p[i]))
		i++;
	if (i >= n || p[i] != '{')
		return 0;
	while (i < n) {
		char c = p[i];
		if (c == '"') {
			size_t end = skip_string(p, i, n);
			int match = depth == 1 && end - i - 2 == klen &&
				    memcmp(p + i + 1, key, klen) == 0;
			i = end;
			if (!match)
				continue;
			while (i < n && is_space(p[i]))
				i++;
			if (i >= n || p[i] != ':')
				continue; /* a value, not a key */
			i++;
			while (i < n && is_space(p[i]))
				i++;
			if (i >= n || p[i] != '[')
				return 0;
			/* count the array's elements: commas at its depth */
			size_t count = 0;
			int d = 0, seen = 0;
			for (i++; i < n; i++) {
				c = p[i];
				if (c == '"') {
					i = skip_string(p, i, n) - 1;
					seen = 1;
				} else if (c == '[' || c == '{') {
					d++;
					seen = 1;
				} else if (c == ']' || c == '}') {
					if (d == 0)
						return seen ? count + 1 : 0;
					d--;
				} else if (c == ',' && d == 0) {
					if (++count > max)
						return count;
				} else if (!is_space(c)) {
					seen = 1;
				}
			}
			return 0;
		}
		if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']')
			depth--;
		i++;
	}
	return 0;
}

static int check_limit(const char *text, size_t length,
		       const tsl_json_limit *limit)
{
	if (!limit || !limit->member)
		return TSL_OK;
	size_t count = scan_member_array(text, length, limit->member, limit->max);
	if (count > limit->max)
		return tsl_error(TESSEL_ERANGE,
				 "\"%s\" has more than %zu %s (found before parsing the rest)",
				 limit->member, limit->max, limit->what);
	return TSL_OK;
}

int tsl_json_read_text(void *out, const char *text, size_t length,
		       tsl_json_reader read, const tsl_json_limit *limit)
{
	json_t *root;
	int rc = text ? check_limit(text, length, limit) : TSL_OK;
	if (rc)
		return rc;
	rc = tsl_json_load_text(&root, text, length);

	if (rc)
		return rc;
	rc = read(out, root);
	json_decref(root);
	return rc;
}

int tsl_json_read_file(void *out, const char *path, tsl_json_reader read,
		       const tsl_json_limit *limit)
{
	char prefix[512];
	json_t *root;
	int rc = load_file(&root, path, limit);

	if (rc)
		return rc;
	rc = read(out, root);
	json_decref(root);
	if (rc) {
		snprintf(prefix, sizeof prefix, "%s: ", path);
		tsl_json_error_prefix(rc, prefix);
	}
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Reading in parts                                                           */
/* ------------------------------------------------------------------------ */

static size_t skip_space(const char *p, size_t i, size_t n)
{
	while (i < n && is_space(p[i]))
		i++;
	return i;
}

/* The end of the value starting at p[i] (strings and nesting followed,
 * scalars up to the next delimiter); 0 when the text ends first. Not a
 * validation: the parse of the value does that. */
static size_t skip_value(const char *p, size_t i, size_t n)
{
	if (i >= n)
		return 0;
	if (p[i] == '"') {
		size_t e = skip_string(p, i, n);
		return e <= n && p[e - 1] == '"' && e > i + 1 ? e : 0;
	}
	if (p[i] == '{' || p[i] == '[') {
		int depth = 0;
		for (; i < n; i++) {
			char c = p[i];
			if (c == '"') {
				size_t e = skip_string(p, i, n);
				if (e >= n)
					return 0;
				i = e - 1;
			} else if (c == '{' || c == '[') {
				depth++;
			} else if (c == '}' || c == ']') {
				if (--depth == 0)
					return i + 1;
			}
		}
		return 0;
	}
	size_t s = i;
	while (i < n && !is_space(p[i]) && p[i] != ',' && p[i] != '}' &&
	       p[i] != ']')
		i++;
	return i > s ? i : 0;
}

static json_t *parse_span(const char *p, size_t s, size_t e)
{
	json_error_t err;
	return json_loadb(p + s, e - s, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
			  &err);
}

static void parts_release(tsl_json_parts *p)
{
	if (!p->text && p->fd >= 0)
		close(p->fd);
	tsl_free(p->win);
	json_decref(p->root);
	json_decref(p->cur);
	tsl_free(p->start);
	tsl_free(p->end);
	memset(p, 0, sizeof *p);
}

/* Record the elements of the array at p[i] ('['); the index after it, 0
 * when it is not of the simple form. */
static size_t scan_elements(tsl_json_parts *parts, const char *p, size_t i,
			    size_t n)
{
	size_t cap = 0;
	i = skip_space(p, i + 1, n);
	if (i < n && p[i] == ']')
		return 0; /* empty: the whole read says what that means */
	for (;;) {
		i = skip_space(p, i, n);
		size_t e = skip_value(p, i, n);
		if (!e)
			return 0;
		if (parts->count == cap) {
			cap = cap ? 2 * cap : 1024;
			size_t *s = tsl_reallocarray(parts->start, cap, sizeof *s);
			if (s)
				parts->start = s;
			size_t *x = s ? tsl_reallocarray(parts->end, cap, sizeof *x) : NULL;
			if (!x)
				return 0;
			parts->end = x;
		}
		parts->start[parts->count] = i;
		parts->end[parts->count] = e;
		parts->count++;
		i = skip_space(p, e, n);
		if (i < n && p[i] == ',') {
			i++;
			continue;
		}
		return i < n && p[i] == ']' ? i + 1 : 0;
	}
}

/* Scan text into parts: 1 when it has the simple form (an object whose
 * member `member` is a non-empty array, plain keys, no duplicates), 0
 * when not (read it whole). */
static int scan_parts(tsl_json_parts *parts, const char *p, size_t n,
		      const char *member)
{
	int have = 0;
	memset(parts, 0, sizeof *parts);
	parts->fd = -1;
	parts->text = p;
	parts->root = json_object();
	if (!parts->root)
		return 0;
	size_t i = skip_space(p, 0, n);
	if (i >= n || p[i] != '{')
		return 0;
	i = skip_space(p, i + 1, n);
	while (i < n && p[i] == '"') {
		size_t ke = skip_string(p, i, n);
		if (ke >= n || memchr(p + i + 1, '\\', ke - i - 2))
			return 0;
		/* a key of ours is plain ASCII: anything else (a control
		 * character, which JSON does not allow raw, or UTF-8 to
		 * check) goes to the whole parse */
		for (size_t c = i + 1; c + 1 < ke; c++)
			if ((unsigned char)p[c] < 0x20 || (unsigned char)p[c] >= 0x7f)
				return 0;
		char key[64];
		size_t klen = ke - i - 2;
		if (klen >= sizeof key)
			return 0; /* no member of ours is that long */
		memcpy(key, p + i + 1, klen);
		key[klen] = '\0';
		i = skip_space(p, ke, n);
		if (i >= n || p[i] != ':')
			return 0;
		i = skip_space(p, i + 1, n);
		if (json_object_get(parts->root, key) ||
		    (have && strcmp(key, member) == 0))
			return 0; /* a duplicate: the whole parse refuses it */
		if (strcmp(key, member) == 0) {
			if (i >= n || p[i] != '[')
				return 0;
			i = scan_elements(parts, p, i, n);
			if (!i)
				return 0;
			have = 1;
		} else {
			size_t e = skip_value(p, i, n);
			json_t *v = e ? parse_span(p, i, e) : NULL;
			if (!v || json_object_set_new(parts->root, key, v))
				return 0;
			i = e;
		}
		i = skip_space(p, i, n);
		if (i < n && p[i] == ',') {
			i = skip_space(p, i + 1, n);
			if (i >= n || p[i] != '"')
				return 0;
			continue;
		}
		if (i < n && p[i] == '}')
			break;
		return 0;
	}
	if (i >= n || p[i] != '}')
		return 0;
	i = skip_space(p, i + 1, n);
	return have && i == n;
}

/* The window of the file holds bytes [s, e): 0, or -1 when they cannot
 * be read (a read error, the file changed). */
#define TSL_PARTS_WINDOW ((size_t)1 << 20)
static int window_hold(tsl_json_parts *p, size_t s, size_t e)
{
	if (p->win && s >= p->win_at && e <= p->win_at + p->win_len)
		return 0;
	size_t want = e - s > TSL_PARTS_WINDOW ? e - s : TSL_PARTS_WINDOW;
	if (want > p->win_cap) {
		char *w = tsl_realloc(p->win, want);
		if (!w)
			return -1;
		p->win = w;
		p->win_cap = want;
	}
	size_t got = 0;
	while (got < want) {
		ssize_t r = pread(p->fd, p->win + got, want - got, (off_t)(s + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	p->win_at = s;
	p->win_len = got;
	return got >= e - s ? 0 : -1;
}

const json_t *tsl_json_parts_get(tsl_json_parts *p, size_t idx)
{
	if (p->cur && p->cur_idx == idx)
		return p->cur;
	json_decref(p->cur);
	p->cur = NULL;
	if (idx < p->count && p->text)
		p->cur = parse_span(p->text, p->start[idx], p->end[idx]);
	else if (idx < p->count && !window_hold(p, p->start[idx], p->end[idx]))
		p->cur = parse_span(p->win, p->start[idx] - p->win_at,
				    p->end[idx] - p->win_at);
	p->cur_idx = idx;
	if (!p->cur)
		p->failed = 1;
	return p->cur;
}

int tsl_json_read_text_parts(void *out, const char *text, size_t length,
			     tsl_json_reader read,
			     tsl_json_parts_reader read_parts,
			     const tsl_json_limit *limit)
{
	tsl_json_parts parts;
	memset(&parts, 0, sizeof parts);
	parts.fd = -1;
	parts.text = text;
	if (text && length && !memchr(text, '\0', length) &&
	    check_limit(text, length, limit) == TSL_OK) {
		int simple = scan_parts(&parts, text, length, limit->member);
		int rc = simple ? read_parts(out, &parts) : TSL_JSON_WHOLE;
		parts_release(&parts);
		if (rc != TSL_JSON_WHOLE)
			return rc;
	}
	return tsl_json_read_text(out, text, length, read, limit);
}

/* The text in b read as one document, its messages prefixed with
 * path (as tsl_json_read_file gives them). */
static int read_whole_text(void *out, const char *path, const tsl_buf *b,
			   tsl_json_reader read, const tsl_json_limit *limit)
{
	char prefix[512];
	json_t *root = NULL;
	int rc = b->data ? check_limit(b->data, b->len, limit) : TSL_OK;
	if (!rc)
		rc = load(&root, b->data ? b->data : "", b->len);
	if (!rc) {
		rc = read(out, root);
		json_decref(root);
	}
	if (rc) {
		snprintf(prefix, sizeof prefix, "%s: ", path);
		tsl_json_error_prefix(rc, prefix);
	}
	return rc;
}

int tsl_json_read_file_parts(void *out, const char *path,
			     tsl_json_reader read,
			     tsl_json_parts_reader read_parts,
			     const tsl_json_limit *limit)
{
	tsl_buf b;
	char prefix[512];
	int fd = -1, released = 0;

	TSL_CHECK_ARG(path, NULL, "path");
	tsl_buf_init(&b);
	/* the file is read once; a regular file is read again by windows
	 * (the text goes), anything else (a pipe, a FIFO) from the text */
	int rc = read_file(&b, path, &fd);
	if (!rc && b.data && b.len && !memchr(b.data, '\0', b.len) &&
	    check_limit(b.data, b.len, limit) == TSL_OK) {
		tsl_json_parts parts;
		int simple = scan_parts(&parts, b.data, b.len, limit->member);
		if (simple && fd >= 0) {
			parts.fd = fd;
			fd = -1;
			parts.text = NULL;
			tsl_buf_release(&b);
			released = 1;
		}
		rc = simple ? read_parts(out, &parts) : TSL_JSON_WHOLE;
		parts_release(&parts);
		if (rc != TSL_JSON_WHOLE) {
			if (fd >= 0)
				close(fd);
			tsl_buf_release(&b);
			if (rc) {
				snprintf(prefix, sizeof prefix, "%s: ", path);
				tsl_json_error_prefix(rc, prefix);
			}
			return rc;
		}
		rc = TSL_OK;
	}
	if (fd >= 0)
		close(fd);
	/* the whole read (its messages): from the text when it is still
	 * here (an empty one too: a FIFO is not opened again), else from
	 * the regular file again */
	if (!rc && !released)
		rc = read_whole_text(out, path, &b, read, limit);
	else if (!rc)
		rc = tsl_json_read_file(out, path, read, limit);
	tsl_buf_release(&b);
	return rc;
}
