/* The peer's orders: the data file read, each case's placement built and
 * the peer's order put on it (zb_peer.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "zb_peer.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *why, size_t whylen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *why, size_t whylen, int code, const char *fmt, ...)
{
	if (why && whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return code;
}

static void case_release(zb_case *c)
{
	free(c->stage_device);
	free(c->f);
	free(c->b);
	free(c->w);
	for (int d = 0; c->ops && d < c->devices; d++)
		free(c->ops[d]);
	free(c->ops);
	free(c->len);
	memset(c, 0, sizeof *c);
}

void zb_data_free(zb_data *data)
{
	if (!data)
		return;
	for (size_t i = 0; i < data->ncases; i++)
		case_release(&data->cases[i]);
	free(data->cases);
	free(data);
}

/* The reader: one line at a time, its words split in place. */
typedef struct reader {
	FILE *f;
	const char *path;
	long line;
	char *buf;
	size_t cap;
	char **word;
	size_t nword, capword;
	char *why;
	size_t whylen;
} reader;

static int bad(reader *r, const char *what)
{
	return fail(r->why, r->whylen, TESSEL_EPARSE, "%s, line %ld: %s", r->path,
		    r->line, what);
}

/* The next line that is neither blank nor a comment, split into words: 1,
 * 0 at the end of the file, < 0 an error. */
static int next_line(reader *r)
{
	for (;;) {
		size_t n = 0;
		int ch;
		while ((ch = fgetc(r->f)) != EOF && ch != '\n') {
			if (n + 1 >= r->cap) {
				size_t cap = r->cap ? 2 * r->cap : 4096;
				char *b = realloc(r->buf, cap);
				if (!b)
					return fail(r->why, r->whylen, TESSEL_ENOMEM,
						    "out of memory");
				r->buf = b;
				r->cap = cap;
			}
			if (ch == '\0') {
				r->line++;
				return bad(r, "a NUL byte (the file is text)");
			}
			r->buf[n++] = (char)ch;
		}
		if (ch == EOF && n == 0)
			return ferror(r->f) ? fail(r->why, r->whylen, TESSEL_EIO,
						   "%s: %s", r->path, strerror(errno))
					    : 0;
		r->line++;
		if (!r->buf)
			continue;
		r->buf[n] = '\0';
		r->nword = 0;
		for (char *p = r->buf; *p;) {
			while (*p && isspace((unsigned char)*p))
				*p++ = '\0';
			if (!*p)
				break;
			if (r->nword == r->capword) {
				size_t cap = r->capword ? 2 * r->capword : 256;
				char **w = realloc(r->word, cap * sizeof *w);
				if (!w)
					return fail(r->why, r->whylen, TESSEL_ENOMEM,
						    "out of memory");
				r->word = w;
				r->capword = cap;
			}
			r->word[r->nword++] = p;
			while (*p && !isspace((unsigned char)*p))
				p++;
		}
		if (r->nword && r->word[0][0] != '#')
			return 1;
	}
}

/* An integer word in lo .. hi. */
static int word_int(int64_t *out, reader *r, size_t i, int64_t lo, int64_t hi)
{
	char *end = NULL;
	if (i >= r->nword)
		return bad(r, "a number is missing");
	errno = 0;
	long long v = strtoll(r->word[i], &end, 10);
	if (errno || *end || end == r->word[i] || v < lo || v > hi)
		return bad(r, "a number is malformed or out of range");
	*out = v;
	return TESSEL_OK;
}

/* A line "KEY v0 v1 ... v(n-1)" into a new array of n ints in lo .. hi. */
static int int_list(int **out, reader *r, const char *key, int n, int64_t lo,
		    int64_t hi)
{
	int rc = next_line(r);
	if (rc <= 0)
		return rc < 0 ? rc : bad(r, "the case ends early");
	if (strcmp(r->word[0], key) || r->nword != (size_t)n + 1)
		return bad(r, key);
	*out = calloc((size_t)n, sizeof **out);
	if (!*out)
		return fail(r->why, r->whylen, TESSEL_ENOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		int64_t v = 0;
		rc = word_int(&v, r, (size_t)i + 1, lo, hi);
		if (rc)
			return rc;
		(*out)[i] = (int)v;
	}
	return TESSEL_OK;
}

/* A line "KEY" with `n` words after it. */
static int keyed_line(reader *r, const char *key, size_t n)
{
	int rc = next_line(r);
	if (rc <= 0)
		return rc < 0 ? rc : bad(r, "the case ends early");
	if (strcmp(r->word[0], key) || r->nword != n + 1)
		return bad(r, key);
	return TESSEL_OK;
}

/* "F12", "b3": an op. */
static int parse_op(zb_op *op, reader *r, const char *w, int64_t micros)
{
	const char *kinds = "FBWfbw", *k = strchr(kinds, w[0]);
	char *end = NULL;
	if (!w[0] || !k || !isdigit((unsigned char)w[1]))
		return bad(r, "an op is not F, B or W (f, b or w) and a micro-batch");
	long v = strtol(w + 1, &end, 10);
	if (*end || v < 0 || v >= micros)
		return bad(r, "an op's micro-batch is out of range");
	op->kind = (unsigned char)((k - kinds) % 3);
	op->second = (unsigned char)(k - kinds >= 3);
	op->mb = (int)v;
	return TESSEL_OK;
}

/* The orders of c hold each block (kind, stage) of each micro-batch once,
 * on its stage's device: checked when read, before anything the size of
 * the case is made (whose size the file, holding every op, bounds). */
static int check_orders(const zb_case *c, reader *r)
{
	uint64_t total = 0, expect = 3 * (uint64_t)c->nstages * (uint64_t)c->micros;
	for (int d = 0; d < c->devices; d++)
		total += c->len[d];
	if (total != expect) {
		char what[160];
		snprintf(what, sizeof what,
			 "the orders hold %llu ops; 3 x %d stages x %lld micro-batches = %llu expected",
			 (unsigned long long)total, c->nstages, (long long)c->micros,
			 (unsigned long long)expect);
		return bad(r, what);
	}
	unsigned char *seen = calloc((size_t)expect, 1);
	if (!seen)
		return fail(r->why, r->whylen, TESSEL_ENOMEM, "out of memory");
	int rc = TESSEL_OK;
	for (int d = 0; d < c->devices && !rc; d++) {
		int stage[2] = {-1, -1};
		for (int s = 0; s < c->nstages; s++)
			if (c->stage_device[s] == d)
				stage[stage[0] < 0 ? 0 : 1] = s;
		for (size_t i = 0; i < c->len[d] && !rc; i++) {
			const zb_op *op = &c->ops[d][i];
			int s = stage[op->second];
			char what[120];
			if (s < 0) {
				snprintf(what, sizeof what, "device %d has no %s stage", d,
					 op->second ? "second" : "first");
				rc = bad(r, what);
				break;
			}
			size_t at = ((size_t)op->kind * (size_t)c->nstages + (size_t)s) *
				    (size_t)c->micros + (size_t)op->mb;
			if (seen[at]) {
				snprintf(what, sizeof what,
					 "device %d's order holds %c%d of stage %d twice", d,
					 "FBW"[op->kind], op->mb, s);
				rc = bad(r, what);
			}
			seen[at] = 1;
		}
	}
	free(seen);
	return rc;
}

static int read_case(zb_case *c, reader *r)
{
	int64_t v = 0;
	/* case NAME FORM DEVICES MICROS UNEVEN */
	if (r->nword != 6 || strlen(r->word[1]) >= sizeof c->name)
		return bad(r, "case NAME FORM DEVICES MICRO-BATCHES UNEVEN");
	/* the name names the files bench --write makes: letters, digits,
	 * '.', '_' and '-', not starting with '.' (no path) */
	for (const char *p = r->word[1]; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
			return bad(r, "a case name holds letters, digits, '.', '_' and '-' only");
	if (r->word[1][0] == '.')
		return bad(r, "a case name does not start with '.'");
	snprintf(c->name, sizeof c->name, "%s", r->word[1]);
	if (strcmp(r->word[2], "h") && strcmp(r->word[2], "v"))
		return bad(r, "the form is h or v");
	c->form = r->word[2][0];
	int rc = word_int(&v, r, 3, 2, TESSEL_MAX_DEVICES);
	c->devices = (int)v;
	if (!rc)
		rc = word_int(&c->micros, r, 4, 1, 100000);
	if (!rc)
		rc = word_int(&v, r, 5, 0, 1);
	c->uneven = (int)v;
	if (rc)
		return rc;
	c->nstages = c->form == 'h' ? c->devices : 2 * c->devices;
	rc = int_list(&c->stage_device, r, "stages", c->nstages, 0, c->devices - 1);
	if (!rc)
		rc = int_list(&c->f, r, "f", c->nstages, 1, TESSEL_MAX_SPAN);
	if (!rc)
		rc = int_list(&c->b, r, "b", c->nstages, 1, TESSEL_MAX_SPAN);
	if (!rc)
		rc = int_list(&c->w, r, "w", c->nstages, 1, TESSEL_MAX_SPAN);
	if (!rc)
		rc = keyed_line(r, "comm", 1);
	if (!rc)
		rc = word_int(&v, r, 1, 0, TESSEL_MAX_SPAN);
	c->comm = (int)v;
	if (!rc)
		rc = keyed_line(r, "memory", 4);
	int64_t m[3] = {0, 0, 0};
	for (int k = 0; k < 3 && !rc; k++)
		rc = word_int(&m[k], r, (size_t)k + 1, -2147483647, 2147483647);
	c->mem_f = (int)m[0];
	c->mem_b = (int)m[1];
	c->mem_w = (int)m[2];
	if (!rc)
		rc = word_int(&c->limit, r, 4, 0, (int64_t)1 << 50);
	if (!rc)
		rc = keyed_line(r, "peer", 2);
	if (!rc)
		rc = word_int(&c->peer_makespan, r, 1, 0, INT64_MAX / 4);
	if (!rc) {
		/* seconds: a finite decimal number >= 0 */
		char *end = NULL;
		const char *w = r->word[2];
		c->peer_seconds = strtod(w, &end);
		if (end == w || *end || strpbrk(w, "xX") || !isfinite(c->peer_seconds) ||
		    c->peer_seconds < 0)
			return bad(r, "peer MAKESPAN SECONDS (a number of seconds >= 0)");
	}
	if (rc)
		return rc;
	c->len = calloc((size_t)c->devices, sizeof *c->len);
	c->ops = calloc((size_t)c->devices, sizeof *c->ops);
	if (!c->len || !c->ops)
		return fail(r->why, r->whylen, TESSEL_ENOMEM, "out of memory");
	for (int d = 0; d < c->devices; d++) {
		rc = next_line(r);
		if (rc <= 0)
			return rc < 0 ? rc : bad(r, "the case ends early");
		if (strcmp(r->word[0], "order") || r->nword < 2 ||
		    word_int(&v, r, 1, d, d))
			return bad(r, "order D OPS, one line per device in order");
		c->len[d] = r->nword - 2;
		c->ops[d] = calloc(c->len[d] + 1, sizeof *c->ops[d]);
		if (!c->ops[d])
			return fail(r->why, r->whylen, TESSEL_ENOMEM, "out of memory");
		for (size_t i = 0; i < c->len[d]; i++) {
			rc = parse_op(&c->ops[d][i], r, r->word[i + 2], c->micros);
			if (rc)
				return rc;
		}
	}
	rc = next_line(r);
	if (rc <= 0 || strcmp(r->word[0], "end") || r->nword != 1)
		return rc < 0 ? rc : bad(r, "end");
	return check_orders(c, r);
}

int zb_data_read(zb_data **out, const char *path, char *why, size_t whylen)
{
	*out = NULL;
	reader r = {.path = path, .why = why, .whylen = whylen};
	r.f = fopen(path, "r");
	if (!r.f)
		return fail(why, whylen, errno == ENOENT ? TESSEL_ENOTFOUND : TESSEL_EIO,
			    "%s: %s", path, strerror(errno));
	zb_data *data = calloc(1, sizeof *data);
	size_t cap = 0;
	int rc = data ? TESSEL_OK : fail(why, whylen, TESSEL_ENOMEM, "out of memory");
	while (!rc) {
		int more = next_line(&r);
		if (more <= 0) {
			rc = more;
			break;
		}
		if (strcmp(r.word[0], "case")) {
			rc = bad(&r, "a case starts with \"case\"");
			break;
		}
		if (data->ncases == cap) {
			cap = cap ? 2 * cap : 64;
			zb_case *c = realloc(data->cases, cap * sizeof *c);
			if (!c) {
				rc = fail(why, whylen, TESSEL_ENOMEM, "out of memory");
				break;
			}
			data->cases = c;
		}
		zb_case *c = &data->cases[data->ncases++];
		memset(c, 0, sizeof *c);
		rc = read_case(c, &r);
		for (size_t k = 0; !rc && k + 1 < data->ncases; k++)
			if (!strcmp(data->cases[k].name, c->name))
				rc = bad(&r, "a case name comes twice");
	}
	if (!rc && data->ncases == 0)
		rc = fail(why, whylen, TESSEL_EPARSE, "%s: no case", path);
	fclose(r.f);
	free(r.buf);
	free(r.word);
	if (rc) {
		zb_data_free(data);
		return rc;
	}
	*out = data;
	return TESSEL_OK;
}

/* Block kind k (0 F, 1 B, 2 W) of stage s. */
static int add_stage_block(tessel_graph *g, int k, int s, const zb_case *c)
{
	static const char letter[3] = {'f', 'b', 'w'};
	static const tessel_kind kind[3] = {TESSEL_KIND_FORWARD,
					    TESSEL_KIND_BACKWARD, TESSEL_KIND_WEIGHT};
	const int *span[3] = {c->f, c->b, c->w};
	int mem[3] = {c->mem_f, c->mem_b, c->mem_w};
	char name[32];
	int gid = -1, dev = c->stage_device[s];
	snprintf(name, sizeof name, "%c%d", letter[k], s);
	int rc = tessel_graph_add_block(&gid, g, name, kind[k], span[k][s], mem[k]);
	if (!rc)
		rc = tessel_graph_place(g, gid, &dev, 1);
	if (!rc)
		rc = tessel_graph_set_stage(g, gid, s);
	return rc;
}

int zb_case_order(pub_order **out, const zb_case *c, char *why, size_t whylen)
{
	pub_order *o = NULL;
	int S = c->nstages;
	*out = NULL;
	int rc = pub_order_new(&o, c->devices, c->micros);
	/* gid of kind k at stage s: k * S + s */
	for (int k = 0; k < 3 && !rc; k++)
		for (int s = 0; s < S && !rc; s++)
			rc = add_stage_block(o->graph, k, s, c);
	for (int s = 0; s < S && !rc; s++) {
		if (s > 0)
			rc = tessel_graph_add_dep(o->graph, s - 1, s);
		if (!rc)
			rc = tessel_graph_add_dep(o->graph, s == S - 1 ? s : S + s + 1,
						  S + s);
		if (!rc)
			rc = tessel_graph_add_dep(o->graph, S + s, 2 * S + s);
	}
	if (!rc)
		rc = tessel_graph_set_latency(o->graph, c->comm);
	if (!rc)
		rc = tessel_graph_set_memory_limit(o->graph, TESSEL_ALL_DEVICES, c->limit);
	if (rc) {
		fail(why, whylen, rc, "%s: placement: %s", c->name, tessel_error_last());
		pub_order_free(o);
		return rc;
	}
	/* the stages of each device: the first, then the second (V) */
	for (int d = 0; d < c->devices && !rc; d++) {
		int stage[2] = {-1, -1};
		for (int s = 0; s < S; s++)
			if (c->stage_device[s] == d)
				stage[stage[0] < 0 ? 0 : 1] = s;
		for (size_t i = 0; i < c->len[d] && !rc; i++) {
			const zb_op *op = &c->ops[d][i];
			int s = stage[op->second];
			if (s < 0)
				rc = fail(why, whylen, TESSEL_EINVAL,
					  "%s: device %d has no %s stage", c->name, d,
					  op->second ? "second" : "first");
			else
				rc = pub_order_push(o, d, op->kind * S + s, op->mb);
		}
	}
	if (rc) {
		pub_order_free(o);
		return rc;
	}
	*out = o;
	return TESSEL_OK;
}
