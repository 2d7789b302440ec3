/* Schedule JSON: writing a schedule with its placement, and reading it
 * back (structure and consistency with the placement, not timing). */
#include "schedule_json.h"
#include "schedule_alt.h"
#include "graph_alt.h"
#include "schedule_json_writer.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "graph_json.h"
#include "json_util.h"
#include "schedule.h"
#include "sort.h"
#include "util.h"

#define FORMAT_NAME "tessel-schedule"
#define FORMAT_VERSION 1
/* Limits of the schedule model (include/tessel.h). */
#define MAX_MICROS ((long long)TESSEL_MAX_MICRO_BATCHES)
#define MAX_ENTRIES ((long long)TESSEL_MAX_ENTRIES)
#define MAX_STEP ((long long)TESSEL_MAX_STEP)
/* Largest search time read, in seconds (keeps microseconds in int64). */
#define MAX_SECONDS 1e12

static const char *const phase_names[] = { "warmup", "repetend", "cooldown" };

/* ------------------------------------------------------------------------ */
/* Writing                                                                    */
/* ------------------------------------------------------------------------ */

/* Every entry placed and with a known phase. */
static int check_complete(const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	int64_t n = s->nmicros * g->nblocks;

	int rc = tsl_schedule_check_placed(s, NULL);

	if (rc)
		return rc;
	for (int64_t i = 0; i < n; i++) {
		const struct tessel_entry *e = &s->entries[i];
		if (e->phase < TESSEL_PHASE_WARMUP ||
		    e->phase > TESSEL_PHASE_COOLDOWN)
			return tsl_error(TESSEL_ERROR,
					 "block %d (\"%s\") of micro-batch %lld has phase %d",
					 e->gid, g->blocks[e->gid].name,
					 (long long)e->mid, e->phase);
	}
	return TSL_OK;
}

/* The entries sorted by step, then block id, then micro-batch. */
static int sorted_entries(const struct tessel_entry ***out,
			  const tessel_schedule *s)
{
	size_t n = (size_t)(s->nmicros * s->graph->nblocks);
	const struct tessel_entry **v = tsl_reallocarray(NULL, n + 1, sizeof *v);
	tsl_sort_rec *r = tsl_reallocarray(NULL, n + 1, sizeof *r);

	*out = NULL;
	int rc = v && r ? TSL_OK : tsl_error_nomem();
	/* (by radix: the tie, block then micro-batch, is unique; the
	 * records are made in its order, so the sort needs no pass on it) */
	size_t nb = (size_t)s->graph->nblocks, j = 0;
	for (size_t b = 0; !rc && b < nb; b++)
		for (size_t m = 0; m < (size_t)s->nmicros; m++, j++) {
			size_t i = m * nb + b;
			r[j] = (tsl_sort_rec){tsl_sort_key(s->entries[i].start), j, i};
		}
	if (!rc)
		rc = tsl_sort_recs(r, n);
	for (size_t i = 0; !rc && i < n; i++)
		v[i] = &s->entries[r[i].at];
	tsl_free(r);
	if (rc) {
		tsl_free(v);
		return rc;
	}
	*out = v;
	return TSL_OK;
}

/* memory_limit (array, -1 for unlimited; NULL when all unlimited) */
static json_t *limits_array(const tessel_graph *g, int *omit)
{
	*omit = 1;
	for (int d = 0; d < g->ndevices; d++)
		if (g->memory_limit[d] != TESSEL_UNLIMITED)
			*omit = 0;
	return *omit ? NULL : tsl_json_int_array(NULL, g->memory_limit, g->ndevices);
}

static int set(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) ? 1 : 0;
}

/* Every top-level member but "blocks", in the documented order. */
static int header_object(json_t **out, const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	int64_t *peaks = tsl_calloc((size_t)g->ndevices, sizeof *peaks);
	json_t *o = json_object();
	json_t *placement = NULL;
	int omit, rc, bad;

	*out = NULL;
	if (!peaks || !o) {
		rc = tsl_error_nomem();
		goto out;
	}
	rc = tsl_schedule_peaks(peaks, s);
	if (!rc)
		rc = tsl_graph_to_jansson(&placement, g);
	if (rc)
		goto out;
	bad = set(o, "format", json_string(FORMAT_NAME));
	bad |= set(o, "version", json_integer(FORMAT_VERSION));
	bad |= set(o, "ndevs", json_integer(g->ndevices));
	bad |= set(o, "nmicros", json_integer(s->nmicros));
	bad |= set(o, "nsteps", json_integer(tsl_schedule_makespan(s)));
	/* "period" per micro-batch, as the format has it: P_k / k, an
	 * integer when k divides P_k; P_k itself in "repetend_period" */
	if (s->rep_k > 1 && s->period % s->rep_k)
		bad |= set(o, "period", json_real((double)s->period / (double)s->rep_k));
	else
		bad |= set(o, "period", json_integer(s->rep_k > 1 ? s->period / s->rep_k
								  : s->period));
	bad |= set(o, "resource_bound", json_integer(s->resource_bound));
	bad |= set(o, "period_optimal", json_boolean(s->period_optimal));
	bad |= set(o, "makespan_optimal", json_boolean(s->makespan_optimal));
	bad |= set(o, "lower_bound", json_integer(s->lower_bound));
	bad |= set(o, "repetend", json_pack("[II]", (json_int_t)s->rep_begin,
					    (json_int_t)s->rep_end));
	bad |= set(o, "depth", json_integer(s->depth));
	if (s->rep_k > 1) {
		bad |= set(o, "repetend_micro_batches", json_integer(s->rep_k));
		bad |= set(o, "repetend_period", json_integer(s->period));
	}
	if (s->period > 0)
		bad |= set(o, "period_per_micro_batch",
			   json_real((double)s->period / (double)(s->rep_k > 1 ? s->rep_k : 1)));
	if (g->step > 0)
		bad |= set(o, "step", json_real(g->step));
	if (g->unit)
		bad |= set(o, "unit", json_string(g->unit));
	json_t *limits = limits_array(g, &omit);
	if (!omit)
		bad |= set(o, "memory_limit", limits);
	bad |= set(o, "peak_memory", tsl_json_int_array(NULL, peaks, g->ndevices));
	bad |= set(o, "search_seconds", json_real((double)s->search_us / 1e6));
	if (s->work > 0)
		bad |= set(o, "work", json_integer(s->work));
	if (s->proof_work > 0)
		bad |= set(o, "proof_work", json_integer(s->proof_work));
	bad |= set(o, "placement", placement);
	placement = NULL;
	if (bad) {
		rc = tsl_error_nomem();
		goto out;
	}
	*out = o;
	o = NULL;
out:
	json_decref(placement);
	json_decref(o);
	tsl_free(peaks);
	return rc;
}

/* Per block, the text around "mid" and "step" of its entries:
 * pre = {"gid": G, "name": "N", ; post = "span": ..., "phase": */
typedef struct entry_text {
	char **pre;
	char **post;
	size_t *pre_len, *post_len;
	int n;
} entry_text;

static void entry_text_release(entry_text *t)
{
	for (int i = 0; i < t->n; i++) {
		if (t->pre)
			tsl_free(t->pre[i]);
		if (t->post)
			tsl_free(t->post[i]);
	}
	tsl_free(t->pre);
	tsl_free(t->post);
	tsl_free(t->pre_len);
	tsl_free(t->post_len);
}

static void block_post(tsl_buf *b, const tsl_block *blk)
{
	tsl_buf_printf(b, "\"span\": %d, \"memory\": %d, \"btype\": \"%s\", ",
		       blk->span, blk->memory,
		       blk->kind == TESSEL_KIND_FORWARD ? "forward" : "backward");
	if (blk->kind == TESSEL_KIND_WEIGHT)
		tsl_buf_puts(b, "\"kind\": \"weight\", ");
	tsl_buf_puts(b, "\"device\": [");
	for (int k = 0; k < blk->ndevices; k++)
		tsl_buf_printf(b, k ? ", %d" : "%d", blk->devices[k]);
	tsl_buf_puts(b, "], \"phase\": ");
}

static int entry_text_build(entry_text *t, const tessel_graph *g)
{
	tsl_buf b;

	t->n = g->nblocks;
	t->pre = tsl_calloc((size_t)t->n, sizeof *t->pre);
	t->post = tsl_calloc((size_t)t->n, sizeof *t->post);
	t->pre_len = tsl_calloc((size_t)t->n, sizeof *t->pre_len);
	t->post_len = tsl_calloc((size_t)t->n, sizeof *t->post_len);
	if (!t->pre || !t->post || !t->pre_len || !t->post_len)
		return tsl_error_nomem();
	for (int i = 0; i < t->n; i++) {
		tsl_buf_init(&b);
		tsl_buf_printf(&b, "{\"gid\": %d, \"name\": ", i);
		tsl_buf_json_string(&b, g->blocks[i].name);
		tsl_buf_puts(&b, ", ");
		t->pre[i] = tsl_buf_take(&b);
		block_post(&b, &g->blocks[i]);
		t->post[i] = tsl_buf_take(&b);
		if (!t->pre[i] || !t->post[i])
			return tsl_error_nomem();
		t->pre_len[i] = strlen(t->pre[i]);
		t->post_len[i] = strlen(t->post[i]);
	}
	return TSL_OK;
}

/* Decimal text of v at out (room for 21 bytes); its length. */
static size_t decimal(char *out, long long v)
{
	char tmp[24];
	size_t n = 0, len = 0;
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v
				     : (unsigned long long)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		out[len++] = '-';
	while (n)
		out[len++] = tmp[--n];
	return len;
}

static void write_header(tsl_buf *b, json_t *head)
{
	const char *key;
	json_t *v;

	tsl_buf_puts(b, "{\n");
	json_object_foreach(head, key, v) {
		tsl_json_indent(b, 1);
		tsl_buf_json_string(b, key);
		tsl_buf_puts(b, ": ");
		tsl_json_write(b, v, 1);
		tsl_buf_puts(b, ",\n");
	}
}

/* ", "choice": ..." of an entry that does not keep its activation (an
 * offload with its copies' steps). */
static void write_choice(tsl_buf *b, const struct tessel_entry *e)
{
	tsl_buf_printf(b, ", \"choice\": \"%s\"",
		       tessel_choice_name(e->choice));
	if (e->choice == TESSEL_CHOICE_OFFLOAD)
		tsl_buf_printf(b, ", \"offload\": %lld, \"reload\": %lld",
			       (long long)tsl_entry_copy_start(e->sched, e, 0),
			       (long long)tsl_entry_copy_start(e->sched, e, 1));
}

static void write_entries(tsl_buf *b, const entry_text *t,
			  const struct tessel_entry **order, size_t n)
{
	tsl_buf_puts(b, "  \"blocks\": [");
	for (size_t i = 0; i < n && !b->failed; i++) {
		const struct tessel_entry *e = order[i];
		/* (by hand, not printf: 10^5 blocks x 16 micro-batches are
		 * 1.6 10^6 entries) */
		char mid[96];
		size_t len = 0;
		tsl_buf_append(b, i ? ",\n    " : "\n    ", i ? 6 : 5);
		tsl_buf_append(b, t->pre[e->gid], t->pre_len[e->gid]);
		memcpy(mid, "\"mid\": ", 7);
		len = 7 + decimal(mid + 7, (long long)e->mid);
		memcpy(mid + len, ", \"step\": ", 10);
		len += 10;
		len += decimal(mid + len, (long long)e->start);
		memcpy(mid + len, ", ", 2);
		len += 2;
		tsl_buf_append(b, mid, len);
		tsl_buf_append(b, t->post[e->gid], t->post_len[e->gid]);
		tsl_buf_puts(b, "\"");
		tsl_buf_puts(b, phase_names[e->phase]);
		tsl_buf_puts(b, "\"");
		if (e->choice != TESSEL_CHOICE_KEEP)
			write_choice(b, e);
		if (e->span_add)
			tsl_buf_printf(b, ", \"extra\": %d", e->span_add);
		tsl_buf_puts(b, "}");
		tsl_buf_flush_point(b);
	}
	tsl_buf_puts(b, n ? "\n  ]\n}\n" : "]\n}\n");
}

int tsl_write_schedule_json(tsl_buf *b, const tessel_schedule *s)
{
	const struct tessel_entry **order = NULL;
	entry_text text = { 0 };
	json_t *head = NULL;

	TSL_CHECK_ARG(s, NULL, "schedule");
	int rc = check_complete(s);
	if (!rc)
		rc = header_object(&head, s);
	if (!rc)
		rc = entry_text_build(&text, s->graph);
	if (!rc)
		rc = sorted_entries(&order, s);
	if (!rc) {
		write_header(b, head);
		write_entries(b, &text, order,
			      (size_t)(s->nmicros * s->graph->nblocks));
	}
	tsl_free(order);
	entry_text_release(&text);
	json_decref(head);
	return rc;
}

TESSEL_API int tessel_schedule_to_json(char **out,
				       const tessel_schedule *s)
{
	TSL_CHECK_ARG(out, NULL, "out");
	*out = NULL;
	tsl_buf b;
	tsl_buf_init(&b);
	int rc = tsl_write_schedule_json(&b, s);
	return tsl_buf_finish(out, &b, rc);
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                    */
/* ------------------------------------------------------------------------ */

/* Figures of the top level, all optional (0 when absent). */
typedef struct figures {
	long long nsteps;
	long long period, resource_bound, lower_bound, depth, rep_k;
	long long rep_begin, rep_end;
	int period_optimal;
	int makespan_optimal;
	int64_t search_us;
	long long work;
	long long proof_work;
} figures;

static int read_header(long long *nmicros, const json_t *root,
		       const tessel_graph *g)
{
	const char *format = NULL;
	long long version = 0;
	int rc = tsl_json_member_string(&format, root, "format", 1, "");

	if (rc)
		return rc;
	if (strcmp(format, FORMAT_NAME))
		return tsl_error(TESSEL_EPARSE,
				 "\"format\" must be \"%s\", not \"%.100s\"",
				 FORMAT_NAME, format);
	rc = tsl_json_member_int(&version, root, "version", 1, LLONG_MIN,
				 LLONG_MAX, "");
	if (rc)
		return rc;
	if (version != FORMAT_VERSION)
		return tsl_error(TESSEL_EUNSUPPORTED,
				 "\"version\" %lld is not supported (this library reads version %d)",
				 version, FORMAT_VERSION);
	rc = tsl_json_check_ndevs(root, g);
	if (rc)
		return rc;
	rc = tsl_json_member_int(nmicros, root, "nmicros", 1, 1, MAX_MICROS,
				 "");
	if (rc)
		return rc;
	if (*nmicros > MAX_ENTRIES / g->nblocks)
		return tsl_error(TESSEL_ERANGE,
				 "\"nmicros\" (%lld) times %d blocks is more than %lld entries",
				 *nmicros, g->nblocks, MAX_ENTRIES);
	return TSL_OK;
}

static int read_repetend(figures *f, const json_t *root)
{
	int given;

	return tsl_json_member_range(&f->rep_begin, &f->rep_end, &given, root,
				     "repetend", 0, MAX_STEP, 1);
}

static int read_seconds(figures *f, const json_t *root)
{
	json_t *v = json_object_get(root, "search_seconds");

	if (!v)
		return TSL_OK;
	if (!json_is_number(v))
		return tsl_error(TESSEL_EPARSE,
				 "\"search_seconds\" must be a number, not %s",
				 tsl_json_type_name(v));
	double sec = json_number_value(v);
	if (!(sec >= 0 && sec <= MAX_SECONDS))
		return tsl_error(TESSEL_ERANGE,
				 "\"search_seconds\" must be in 0 .. %g, got %g",
				 MAX_SECONDS, sec);
	f->search_us = (int64_t)(sec * 1e6 + 0.5);
	return TSL_OK;
}

/* Whether x is y within a millionth (of y + 1). */
static int about(double x, double y)
{
	return x >= y - 1e-6 * (y + 1) && x <= y + 1e-6 * (y + 1);
}

/* "period" (steps per micro-batch in the steady state, a number: P_k / k
 * for a repetend of k micro-batches), "repetend_micro_batches" (k, 1 when
 * absent), "repetend_period" (P_k, an integer; written when k > 1) and
 * "period_per_micro_batch" (P_k / k again: checked, not kept) into
 * f->period (P_k) and f->rep_k. A file of libtessel 1.8.6 or before gave
 * P_k in "period" and no "repetend_period": with k > 1, "period" is
 * read as P_k. */
static int read_period(figures *f, const json_t *root)
{
	const json_t *v = json_object_get(root, "period");
	const json_t *pk = json_object_get(root, "repetend_period");
	const json_t *ppmb = json_object_get(root, "period_per_micro_batch");
	double per = 0;
	long long total = -1;
	int rc = TSL_OK;

	if (v && !json_is_number(v))
		return tsl_error(TESSEL_EPARSE, "\"period\" must be a number, not %s",
				 tsl_json_type_name(v));
	if (v)
		per = json_number_value(v);
	if (v && !(per >= 0 && per <= 1e18))
		return tsl_error(TESSEL_ERANGE,
				 "\"period\" must be a number >= 0 (at most 1e18), got %g",
				 per);
	if (ppmb && !json_is_number(ppmb))
		return tsl_error(TESSEL_EPARSE,
				 "\"period_per_micro_batch\" must be a number, not %s",
				 tsl_json_type_name(ppmb));
	/* micro-batches per repetition: 1 unless said (0 without a period) */
	f->rep_k = per > 0 || pk ? 1 : 0;
	rc = tsl_json_member_int(&f->rep_k, root, "repetend_micro_batches", 0,
				 1, MAX_MICROS, "");
	if (!rc)
		rc = tsl_json_member_int(&total, root, "repetend_period", 0, 0,
					 LLONG_MAX, "");
	if (rc)
		return rc;
	long long k = f->rep_k > 0 ? f->rep_k : 1;
	if (pk && !v)
		return tsl_error(TESSEL_EPARSE,
				 "\"repetend_period\" is given but \"period\" is missing");
	if (pk) {
		if (!about(per, (double)total / (double)k))
			return tsl_error(TESSEL_EINVAL,
					 "\"period\" is %g, but \"repetend_period\" / "
					 "\"repetend_micro_batches\" is %g",
					 per, (double)total / (double)k);
	} else if (k > 1) {
		/* no "repetend_period": a file of 1.8.6 or before, whose
		 * "period" is P_k */
		if (!json_is_integer(v))
			return tsl_error(TESSEL_EINVAL,
					 "\"period\" %g with \"repetend_micro_batches\" %lld "
					 "and no \"repetend_period\" is read as the steps of "
					 "the %lld micro-batches (as libtessel 1.8.6 and "
					 "before wrote it): it must be an integer",
					 per, k, k);
		total = json_integer_value(v);
	} else if (v && json_is_integer(v)) {
		total = json_integer_value(v);
	} else {
		/* one micro-batch a repetition: a whole number of steps */
		double r = floor(per + 0.5);
		if (!about(per, r) || r > 9e18)
			return tsl_error(TESSEL_EINVAL,
					 "\"period\" %g is not a whole number of steps", per);
		total = (long long)r;
	}
	f->period = total;
	if (ppmb && !about(json_number_value(ppmb), (double)total / (double)k))
		return tsl_error(TESSEL_EINVAL,
				 "\"period_per_micro_batch\" is %g, but the period "
				 "per micro-batch is %g",
				 json_number_value(ppmb), (double)total / (double)k);
	return TSL_OK;
}

static int read_optimal(figures *f, const json_t *root)
{
	json_t *v = json_object_get(root, "period_optimal");

	if (v && !json_is_boolean(v))
		return tsl_error(TESSEL_EPARSE,
				 "\"period_optimal\" must be true or false, not %s",
				 tsl_json_type_name(v));
	f->period_optimal = v && json_is_true(v);
	/* each read on its own: either may be left out */
	v = json_object_get(root, "makespan_optimal");
	if (!v)
		return TSL_OK;
	if (!json_is_boolean(v))
		return tsl_error(TESSEL_EPARSE,
				 "\"makespan_optimal\" must be true or false, not %s",
				 tsl_json_type_name(v));
	f->makespan_optimal = json_is_true(v);
	return TSL_OK;
}

static int read_figures(figures *f, const json_t *root)
{
	int rc;

	memset(f, 0, sizeof *f);
	f->nsteps = -1;
	rc = tsl_json_member_int(&f->nsteps, root, "nsteps", 0, 0, LLONG_MAX, "");
	if (!rc)
		rc = read_period(f, root);
	if (!rc)
		rc = tsl_json_member_int(&f->resource_bound, root,
					 "resource_bound", 0, 0, LLONG_MAX, "");
	if (!rc)
		rc = tsl_json_member_int(&f->lower_bound, root, "lower_bound",
					 0, 0, LLONG_MAX, "");
	if (!rc)
		rc = tsl_json_member_int(&f->depth, root, "depth", 0, 0,
					 LLONG_MAX, "");
	if (!rc)
		rc = read_optimal(f, root);
	if (!rc)
		rc = read_repetend(f, root);
	if (!rc)
		rc = read_seconds(f, root);
	if (!rc)
		rc = tsl_json_member_int(&f->work, root, "work", 0, 0, LLONG_MAX, "");
	if (!rc)
		rc = tsl_json_member_int(&f->proof_work, root, "proof_work", 0, 0,
					 f->work, "");
	return rc;
}

/* "memory_limit" (optional) must agree with the placement; "peak_memory"
 * (optional, recomputed by the writer) must be one integer per device. */
static int read_device_arrays(const json_t *root, const tessel_graph *g)
{
	char what[64];
	long long v = 0;
	json_t *a;
	int rc = tsl_json_member(&a, root, "peak_memory", JSON_ARRAY, 0, "");

	if (!rc && a && json_array_size(a) != (size_t)g->ndevices)
		rc = tsl_error(TESSEL_EPARSE,
			       "\"peak_memory\" has %zu entries, expected one per device (%d)",
			       json_array_size(a), g->ndevices);
	for (int d = 0; !rc && a && d < g->ndevices; d++) {
		snprintf(what, sizeof what, "\"peak_memory\"[%d]", d);
		rc = tsl_json_int(&v, json_array_get(a, (size_t)d), LLONG_MIN,
				  LLONG_MAX, "", what);
	}
	if (!rc)
		rc = tsl_json_member(&a, root, "memory_limit", JSON_ARRAY, 0, "");
	if (!rc && a && json_array_size(a) != (size_t)g->ndevices)
		rc = tsl_error(TESSEL_EPARSE,
			       "\"memory_limit\" has %zu entries, expected one per device (%d)",
			       json_array_size(a), g->ndevices);
	for (int d = 0; !rc && a && d < g->ndevices; d++) {
		snprintf(what, sizeof what, "\"memory_limit\"[%d]", d);
		rc = tsl_json_int(&v, json_array_get(a, (size_t)d),
				  TESSEL_UNLIMITED, LLONG_MAX, "", what);
		if (!rc && v != g->memory_limit[d])
			rc = tsl_error(TESSEL_EPARSE,
				       "%s is %lld but the placement says %lld",
				       what, v, (long long)g->memory_limit[d]);
	}
	return rc;
}

/* "step" and "unit" (optional, written for a placement with a step and
 * a unit) must agree with the placement. */
static int read_step(const json_t *root, const tessel_graph *g)
{
	const char *unit = NULL;
	json_t *v = json_object_get(root, "step");

	if (v && !json_is_number(v))
		return tsl_error(TESSEL_EPARSE, "\"step\" must be a number, not %s",
				 tsl_json_type_name(v));
	if (v && json_number_value(v) != g->step) {
		char got[40], want[40];
		tsl_json_real_text(got, sizeof got, json_number_value(v));
		tsl_json_real_text(want, sizeof want, g->step);
		if (g->step > 0)
			return tsl_error(TESSEL_EPARSE,
					 "\"step\" is %s but the placement's is %s",
					 got, want);
		return tsl_error(TESSEL_EPARSE,
				 "\"step\" is %s but the placement has no step",
				 got);
	}
	int rc = tsl_json_member_string(&unit, root, "unit", 0, "");
	if (rc || !unit)
		return rc;
	if (!g->unit || strcmp(unit, g->unit))
		return tsl_error(TESSEL_EPARSE,
				 "\"unit\" is \"%.100s\" but the placement's is %s%.100s%s",
				 unit, g->unit ? "\"" : "", g->unit ? g->unit : "none",
				 g->unit ? "\"" : "");
	return TSL_OK;
}

/* State of one "blocks" read. */
typedef struct entries_reader {
	tessel_schedule *s;
	const tessel_graph *g;
	int *tmp;  /* ndevices ints for sorting a "device" list */
} entries_reader;




/* name, span, memory, btype, device (tsl_json_check_entry) and kind agree
 * with the placement. */
static int check_block(entries_reader *r, const json_t *obj, int gid,
		       const char *where)
{
	const tsl_block *b = &r->g->blocks[gid];
	const char *name = NULL, *kind = NULL;
	int rc = tsl_json_member_string(&name, obj, "name", 1, where);

	if (rc)
		return rc;
	if (strcmp(name, b->name))
		return tsl_error(TESSEL_EPARSE,
				 "%s\"name\" is \"%.200s\" but block %d is \"%.200s\" in the placement",
				 where, name, gid, b->name);
	rc = tsl_json_check_entry(r->g, r->tmp, obj, gid, 1, where);
	if (!rc)
		rc = tsl_json_member_string(&kind, obj, "kind", 0, where);
	if (rc)
		return rc;
	if (kind && strcmp(kind, tsl_kind_name(b->kind)))
		return tsl_error(TESSEL_EPARSE,
				 "%s\"kind\" is \"%.100s\" but block %d (\"%.200s\") is \"%s\" in the placement",
				 where, kind, gid, b->name,
				 tsl_kind_name(b->kind));
	return TSL_OK;
}

static int read_phase(int *phase, const json_t *obj, const char *where)
{
	const char *s = NULL;
	int rc = tsl_json_member_string(&s, obj, "phase", 1, where);

	if (rc)
		return rc;
	for (int p = 0; p < 3; p++)
		if (!strcmp(s, phase_names[p])) {
			*phase = p;
			return TSL_OK;
		}
	return tsl_error(TESSEL_EPARSE,
			 "%s\"phase\" must be \"warmup\", \"repetend\" or \"cooldown\", not \"%.100s\"",
			 where, s);
}

/* "choice" of an entry (optional, "keep" by default); an offload's
 * "offload" and "reload" steps. The choice must be the block's. */
static int read_choice(entries_reader *r, const json_t *obj, int gid,
		       int64_t mid, const char *where)
{
	const char *name = NULL;
	long long off = 0, rel = 0;
	int choice = -1;
	int rc = tsl_json_member_string(&name, obj, "choice", 0, where);

	if (rc || !name)
		return rc;
	for (int c = TESSEL_CHOICE_KEEP; c <= TESSEL_CHOICE_OFFLOAD; c++)
		if (!strcmp(name, tessel_choice_name(c)))
			choice = c;
	if (choice < 0)
		return tsl_error(TESSEL_EPARSE,
				 "%s\"choice\" must be \"keep\", \"recompute\" or \"offload\", not \"%.100s\"",
				 where, name);
	if (!tsl_block_allows(&r->g->blocks[gid], choice))
		return tsl_error(TESSEL_EPARSE,
				 "%s\"choice\" is \"%s\" but block %d (\"%.200s\") declares no such alternative",
				 where, name, gid, r->g->blocks[gid].name);
	if (choice == TESSEL_CHOICE_OFFLOAD) {
		rc = tsl_json_member_int(&off, obj, "offload", 1, 0, MAX_STEP,
					 where);
		if (!rc)
			rc = tsl_json_member_int(&rel, obj, "reload", 1, 0,
						 MAX_STEP, where);
		if (rc)
			return rc;
	}
	return tsl_schedule_choose(r->s, gid, mid, choice, off, rel);
}

static int read_entry(entries_reader *r, const json_t *obj, size_t idx)
{
	char where[64];
	long long gid = 0, mid = 0, step = 0;
	int phase = 0, rc;

	rc = tsl_json_entry_ids(&gid, &mid, &step, where, sizeof where, obj,
				idx, r->g->nblocks, r->s->nmicros - 1);
	if (!rc)
		rc = check_block(r, obj, (int)gid, where);
	if (!rc)
		rc = read_phase(&phase, obj, where);
	if (rc)
		return rc;
	struct tessel_entry *e = tsl_entry_at(r->s, (int)gid, mid);
	if (e->start >= 0)
		return tsl_error(TESSEL_EPARSE,
				 "%sblock %lld (\"%.200s\") of micro-batch %lld appears twice",
				 where, gid, r->g->blocks[gid].name, mid);
	e->start = step;
	e->phase = phase;
	return read_choice(r, obj, (int)gid, mid, where);
}

/* The entries, from the array blocks or (blocks NULL) from parts, one
 * at a time; TSL_JSON_WHOLE when an element of parts does not parse. */
static int read_entries(tessel_schedule *s, const json_t *blocks,
			tsl_json_parts *parts)
{
	entries_reader r = { s, s->graph, NULL };
	const tessel_graph *g = s->graph;
	int rc = TSL_OK;

	r.tmp = tsl_calloc((size_t)g->ndevices, sizeof *r.tmp);
	if (!r.tmp)
		return tsl_error_nomem();
	for (int64_t mid = 0; mid < s->nmicros; mid++)
		for (int gid = 0; gid < g->nblocks; gid++)
			tsl_entry_at(s, gid, mid)->start = -1;
	size_t count = blocks ? json_array_size(blocks) : parts->count;
	for (size_t i = 0; !rc && i < count; i++) {
		const json_t *obj = blocks ? json_array_get(blocks, i)
					   : tsl_json_parts_get(parts, i);
		rc = obj ? read_entry(&r, obj, i) : TSL_JSON_WHOLE;
	}
	tsl_free(r.tmp);
	for (int64_t mid = 0; !rc && mid < s->nmicros; mid++)
		for (int gid = 0; !rc && gid < g->nblocks; gid++)
			if (tsl_entry_at(s, gid, mid)->start < 0)
				rc = tsl_error(TESSEL_EPARSE,
					       "\"blocks\" has no entry for block %d (\"%.200s\") of micro-batch %lld",
					       gid, g->blocks[gid].name,
					       (long long)mid);
	return rc;
}

static void set_figures(tessel_schedule *s, const figures *f)
{
	s->period = f->period;
	s->resource_bound = f->resource_bound;
	s->period_optimal = f->period_optimal;
	s->makespan_optimal = f->makespan_optimal;
	s->lower_bound = f->lower_bound;
	s->rep_begin = f->rep_begin;
	s->rep_end = f->rep_end;
	s->depth = f->depth;
	s->rep_k = f->rep_k;
	s->search_us = f->search_us;
	s->work = f->work;
	s->proof_work = f->proof_work;
}

/* The figures a file gives that its entries decide, checked against
 * them (since 1.8.8; before, a file claiming them otherwise was read as
 * it claimed): "nsteps" the makespan, the repetend within it, "period"
 * at least what one micro-batch's blocks take on a device for each of
 * the repetend's micro-batches, "peak_memory" the peak each device
 * reaches. */
static int check_figures(const tessel_schedule *s, const figures *f,
			 const json_t *root)
{
	const tessel_graph *g = s->graph;
	int64_t makespan = tsl_schedule_makespan(s);
	if (f->nsteps >= 0 && f->nsteps != makespan)
		return tsl_error(TESSEL_EPARSE,
				 "\"nsteps\" is %lld, but the entries end at step %lld (the makespan)",
				 f->nsteps, (long long)makespan);
	if (f->rep_end > makespan)
		return tsl_error(TESSEL_EPARSE,
				 "\"repetend\" [%lld, %lld] ends after the makespan %lld",
				 f->rep_begin, f->rep_end, (long long)makespan);
	if (f->period > 0) {
		int64_t most = 0;
		int at = 0;
		int64_t *busy = tsl_calloc((size_t)g->ndevices, sizeof *busy);
		if (!busy)
			return tsl_error_nomem();
		for (int b = 0; b < g->nblocks; b++)
			for (int k = 0; k < g->blocks[b].ndevices; k++)
				busy[g->blocks[b].devices[k]] += g->blocks[b].span;
		for (int d = 0; d < g->ndevices; d++)
			if (busy[d] > most) {
				most = busy[d];
				at = d;
			}
		tsl_free(busy);
		long long k = f->rep_k > 0 ? f->rep_k : 1;
		if ((double)f->period < (double)most * (double)k)
			return tsl_error(TESSEL_EPARSE,
					 "\"period\" %lld is below the %lld steps device %d's blocks take for %lld micro-batch%s: no repetend has it",
					 f->period, (long long)(most * k), at, k,
					 k == 1 ? "" : "es");
	}
	json_t *a = json_object_get(root, "peak_memory");
	for (int d = 0; a && d < g->ndevices; d++) {
		int64_t peak = 0;
		int rc = tessel_schedule_peak_memory(&peak, s, d);
		if (rc)
			return rc;
		json_int_t v = json_integer_value(json_array_get(a, (size_t)d));
		if (v != peak)
			return tsl_error(TESSEL_EPARSE,
					 "\"peak_memory\"[%d] is %lld, but the entries reach %lld on device %d",
					 d, (long long)v, (long long)peak, d);
	}
	return TSL_OK;
}

/* The placement first (everything else is checked against it). */
static int read_placement(tessel_graph **g, const json_t *root)
{
	json_t *p;
	int rc = tsl_json_member(&p, root, "placement", JSON_OBJECT, 1, "");

	if (rc)
		return rc;
	rc = tsl_graph_from_jansson(g, p);
	return rc ? tsl_json_error_prefix(rc, "\"placement\": ") : TSL_OK;
}

static int schedule_from_jansson(tessel_schedule **out, const json_t *root,
				 tsl_json_parts *parts)
{
	tessel_graph *g = NULL;
	tessel_schedule *s = NULL;
	json_t *blocks = NULL;
	long long nmicros = 0;
	figures f;
	int rc = read_placement(&g, root);

	if (!rc)
		rc = read_header(&nmicros, root, g);
	if (!rc)
		rc = read_figures(&f, root);
	if (!rc)
		rc = read_device_arrays(root, g);
	if (!rc)
		rc = read_step(root, g);
	if (!rc && !parts)
		rc = tsl_json_member(&blocks, root, "blocks", JSON_ARRAY, 1, "");
	/* far fewer entries than a large schedule holds (one per block and
	 * micro-batch): refused before the schedule is made, whose size
	 * would otherwise follow "nmicros" and not the text (below 2^20
	 * entries, or a few missing, each entry is read and what is missing
	 * named) */
	if (!rc) {
		size_t count = parts ? parts->count : json_array_size(blocks);
		size_t need = (size_t)nmicros * (size_t)g->nblocks;
		if (count < need && need > ((size_t)1 << 20) &&
		    need - count > count + 4096)
			rc = tsl_error(TESSEL_EPARSE,
				       "\"blocks\" has %zu entries, but %lld micro-batches of %d blocks need %zu (one per block and micro-batch)",
				       count, nmicros, g->nblocks, need);
	}
	if (!rc)
		rc = tsl_schedule_alloc(&s, g, nmicros);
	if (!rc)
		rc = read_entries(s, blocks, parts);
	tessel_graph_free(g);
	if (!rc)
		rc = check_figures(s, &f, root);
	if (rc) {
		tessel_schedule_free(s);
		return rc;
	}
	set_figures(s, &f);
	*out = s;
	return TSL_OK;
}

static int read_schedule(void *out, const json_t *root)
{
	return schedule_from_jansson(out, root, NULL);
}

/* In parts: the entries one at a time (a schedule of 10^5 blocks x 16
 * micro-batches has 1.6 10^6), never the whole tree. */
static int read_schedule_parts(void *out, tsl_json_parts *parts)
{
	int rc = schedule_from_jansson(out, parts->root, parts);
	if (parts->failed && !rc) {
		tessel_schedule_free(*(tessel_schedule **)out);
		*(tessel_schedule **)out = NULL;
	}
	return parts->failed ? TSL_JSON_WHOLE : rc;
}

/* More entries than a schedule may hold are refused before the parse. */
static const tsl_json_limit entries_limit = {"blocks", TESSEL_MAX_ENTRIES, "entries"};

TESSEL_API int tessel_schedule_from_json(tessel_schedule **out,
					 const char *text, size_t length)
{
	TSL_CHECK_ARG(out, NULL, "out");
	*out = NULL;
	return tsl_json_read_text_parts(out, text, length, read_schedule,
					read_schedule_parts, &entries_limit);
}

TESSEL_API int tessel_schedule_from_file(tessel_schedule **out,
					 const char *path)
{
	TSL_CHECK_ARG(out, NULL, "out");
	*out = NULL;
	return tsl_json_read_file_parts(out, path, read_schedule,
					read_schedule_parts, &entries_limit);
}

/* ------------------------------------------------------------------------ */
/* Checking a schedule against its placement                                  */
/* ------------------------------------------------------------------------ */

int tsl_json_entry_ids(long long *gid, long long *mid, long long *step,
		       char *where, size_t size, const json_t *obj, size_t idx,
		       int nblocks, long long max_mid)
{
	int rc;

	snprintf(where, size, "\"blocks\"[%zu]: ", idx);
	if (!json_is_object(obj))
		return tsl_error(TESSEL_EPARSE, "%smust be an object, not %s",
				 where, tsl_json_type_name(obj));
	rc = tsl_json_member_int(gid, obj, "gid", 1, 0, nblocks - 1, where);
	if (!rc)
		rc = tsl_json_member_int(mid, obj, "mid", 1, 0, max_mid, where);
	if (!rc)
		rc = tsl_json_member_int(step, obj, "step", 1, 0, MAX_STEP,
					 where);
	return rc;
}

int tsl_json_check_ndevs(const json_t *root, const tessel_graph *g)
{
	long long ndevs = 0;
	int rc = tsl_json_member_int(&ndevs, root, "ndevs", 1, 1,
				     TESSEL_MAX_DEVICES, "");

	if (rc)
		return rc;
	if (ndevs != g->ndevices)
		return tsl_error(TESSEL_EPARSE,
				 "\"ndevs\" is %lld but the placement has %d devices",
				 ndevs, g->ndevices);
	return TSL_OK;
}

static int block_mismatch(const char *where, const char *field,
			  long long got, const tsl_block *b, int gid,
			  long long want)
{
	return tsl_error(TESSEL_EPARSE,
			 "%s\"%s\" is %lld but block %d (\"%.200s\") has %s %lld in the placement",
			 where, field, got, gid, b->name, field, want);
}

static int cmp_device(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int check_devices(const tessel_graph *g, int *tmp, const json_t *obj,
			 int gid, const char *where)
{
	const tsl_block *b = &g->blocks[gid];
	char what[64];
	long long d = 0;
	json_t *a;
	size_t n;
	int rc = tsl_json_member(&a, obj, "device", JSON_ARRAY, 1, where);

	if (rc)
		return rc;
	n = json_array_size(a);
	if (n != (size_t)b->ndevices)
		return tsl_error(TESSEL_EPARSE,
				 "%s\"device\" lists %zu devices but block %d (\"%.200s\") has %d in the placement",
				 where, n, gid, b->name, b->ndevices);
	for (size_t k = 0; k < n; k++) {
		snprintf(what, sizeof what, "\"device\"[%zu]", k);
		rc = tsl_json_int(&d, json_array_get(a, k), 0,
				  g->ndevices - 1, where, what);
		if (rc)
			return rc;
		tmp[k] = (int)d;
	}
	qsort(tmp, n, sizeof *tmp, cmp_device);
	for (size_t k = 0; k < n; k++)
		if (tmp[k] != b->devices[k])
			return tsl_error(TESSEL_EPARSE,
					 "%s\"device\" does not match the devices of block %d (\"%.200s\") in the placement",
					 where, gid, b->name);
	return TSL_OK;
}

int tsl_json_check_entry(const tessel_graph *g, int *tmp, const json_t *obj,
			 int gid, int btype_required, const char *where)
{
	const tsl_block *b = &g->blocks[gid];
	const char *want = b->kind == TESSEL_KIND_FORWARD ? "forward" : "backward";
	const char *btype = NULL;
	long long span = 0, memory = 0;
	int rc = tsl_json_member_int(&span, obj, "span", 1, LLONG_MIN, LLONG_MAX,
				     where);

	if (rc)
		return rc;
	if (span != b->span)
		return block_mismatch(where, "span", span, b, gid, b->span);
	rc = tsl_json_member_int(&memory, obj, "memory", 1, LLONG_MIN,
				 LLONG_MAX, where);
	if (rc)
		return rc;
	if (memory != b->memory)
		return block_mismatch(where, "memory", memory, b, gid, b->memory);
	rc = tsl_json_member_string(&btype, obj, "btype", btype_required, where);
	if (rc)
		return rc;
	if (btype && strcmp(btype, want))
		return tsl_error(TESSEL_EPARSE,
				 "%s\"btype\" is \"%.100s\" but block %d (\"%.200s\") needs \"%s\"",
				 where, btype, gid, b->name, want);
	return check_devices(g, tmp, obj, gid, where);
}
