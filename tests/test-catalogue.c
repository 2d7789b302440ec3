/* A catalogue of malformed and hostile inputs: placement JSON, schedule
 * JSON, API call sequences and options. Every row states the error code and
 * a fragment of the message it must give, and the out-parameters must come
 * back NULL. Run `test-catalogue --discover` by hand to print what each row
 * gives instead of checking it: the run then fails, so that a discovery is
 * never taken for a pass (the suite runs it without arguments, and no
 * environment variable turns the checks off). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "helpers.h"
#include "tessel.h"

#define BAD_PTR ((void *)1)

enum row_kind { K_PLACEMENT, K_SCHEDULE, K_CALLS, K_OPTION };

static const char *const kind_names[] = { "placement JSON", "schedule JSON",
					  "API calls", "option" };

struct row {
	const char *desc;
	enum row_kind kind;
	const char *text;            /* placement / schedule text */
	size_t len;                  /* 0: strlen(text) */
	char *(*gen)(size_t *len);   /* generated text (malloc) */
	const char *from, *to;       /* schedule: an edit of the base schedule */
	int (*calls)(void);          /* call sequence, returns the rc to check */
	tessel_option key;           /* option row */
	int64_t value;
	int code;
	const char *fragment;
};

#define P(d, t, c, f) { .desc = d, .kind = K_PLACEMENT, .text = t, .code = c, .fragment = f }
#define PL(d, t, c, f) { .desc = d, .kind = K_PLACEMENT, .text = t, .len = sizeof t - 1, .code = c, .fragment = f }
#define PG(d, g, c, f) { .desc = d, .kind = K_PLACEMENT, .gen = g, .code = c, .fragment = f }
#define S(d, t, c, f) { .desc = d, .kind = K_SCHEDULE, .text = t, .code = c, .fragment = f }
#define SL(d, t, c, f) { .desc = d, .kind = K_SCHEDULE, .text = t, .len = sizeof t - 1, .code = c, .fragment = f }
#define SG(d, g, c, f) { .desc = d, .kind = K_SCHEDULE, .gen = g, .code = c, .fragment = f }
#define SE(d, fr, t, c, f) { .desc = d, .kind = K_SCHEDULE, .from = fr, .to = t, .code = c, .fragment = f }
#define C(d, fn, c, f) { .desc = d, .kind = K_CALLS, .calls = fn, .code = c, .fragment = f }
#define O(d, k, v, c, f) { .desc = d, .kind = K_OPTION, .key = k, .value = v, .code = c, .fragment = f }

static const struct row *current;

static int discover_mode;

static int discover(void)
{
	return discover_mode;
}

/* An out-parameter that must have come back NULL. */
#define OUT_NULL(p)                                                          \
	do {                                                                 \
		if ((p) != NULL) {                                           \
			print_error("%s: out-parameter %s not NULL\n",       \
				    current ? current->desc : "?", #p);      \
			if (!discover())                                     \
				fail();                                      \
		}                                                            \
	} while (0)

/* ------------------------------------------------------------------------ */
/* Fixtures                                                                   */
/* ------------------------------------------------------------------------ */

/* Two devices: "a" on 0, "b" on 1 after "a". */
static tessel_graph *two_blocks(void)
{
	const char *names[] = {"a", "b"};
	const int dev[] = {0, 1}, span[] = {1, 2}, mem[] = {1, -1};
	const tessel_kind kind[] = {TESSEL_KIND_FORWARD, TESSEL_KIND_BACKWARD};
	return th_chain(2, 2, names, dev, kind, span, mem);
}

#define SCHED_MICROS 2

/* A valid schedule of two_blocks(), one micro-batch after the other. */
static tessel_schedule *two_schedule(void)
{
	tessel_graph *g = two_blocks();
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, SCHED_MICROS));
	tessel_graph_free(g);
	for (int m = 0; m < SCHED_MICROS; m++) {
		TH_OK(tessel_schedule_set_step(s, 0, m, 3 * m));
		TH_OK(tessel_schedule_set_step(s, 1, m, 3 * m + 1));
	}
	TH_OK(tessel_schedule_validate(s));
	return s;
}

static char *base_schedule; /* two_schedule() as JSON */

/* ------------------------------------------------------------------------ */
/* Generated texts                                                            */
/* ------------------------------------------------------------------------ */

static char *repeat(const char *head, const char *unit, size_t count,
		    const char *tail, size_t *len)
{
	size_t nh = strlen(head), nu = strlen(unit), nt = strlen(tail);
	char *t = malloc(nh + nu * count + nt + 1);
	assert_non_null(t);
	memcpy(t, head, nh);
	for (size_t i = 0; i < count; i++)
		memcpy(t + nh + i * nu, unit, nu);
	memcpy(t + nh + nu * count, tail, nt + 1);
	*len = nh + nu * count + nt;
	return t;
}

static char *gen_deep_arrays(size_t *len)
{
	return repeat("", "[", 100000, "", len);
}

static char *gen_deep_arrays_closed(size_t *len)
{
	size_t n1, n2;
	char *open = repeat("", "[", 100000, "", &n1);
	char *t = repeat(open, "]", 100000, "", &n2);
	free(open);
	*len = n2;
	return t;
}

static char *gen_deep_objects(size_t *len)
{
	return repeat("{\"devices\": 2, \"blocks\": ", "{\"a\": ", 100000, "", len);
}

static char *gen_deep_in_block(size_t *len)
{
	size_t n1, n2;
	char *open = repeat("{\"devices\": 1, \"blocks\": [{\"name\": ", "[", 50000, "", &n1);
	char *t = repeat(open, "]", 50000, "}]}", &n2);
	free(open);
	*len = n2;
	return t;
}

/* Placement of `n` blocks in a chain over 4 devices (NUL-terminated). */
static char *gen_many_blocks(size_t n, size_t *len)
{
	size_t cap = 128 + n * 120, at = 0;
	char *t = malloc(cap);
	assert_non_null(t);
	at += (size_t)snprintf(t + at, cap - at, "{\"devices\": 4, \"blocks\": [\n");
	for (size_t i = 0; i < n; i++) {
		at += (size_t)snprintf(t + at, cap - at,
			"{\"name\": \"b%zu\", \"kind\": \"forward\", \"span\": 1, "
			"\"memory\": 0, \"devices\": [%zu]", i, i % 4);
		if (i)
			at += (size_t)snprintf(t + at, cap - at,
					       ", \"after\": [\"b%zu\"]", i - 1);
		at += (size_t)snprintf(t + at, cap - at, "}%s\n",
				       i + 1 < n ? "," : "");
	}
	at += (size_t)snprintf(t + at, cap - at, "]}");
	assert_true(at < cap);
	*len = at;
	return t;
}

static char *gen_100k_blocks(size_t *len)
{
	return gen_many_blocks(100000, len);
}

/* 10^5 blocks whose last one names an unknown block. */
static char *gen_100k_blocks_unknown(size_t *len)
{
	char *t = gen_many_blocks(100000, len);
	char *at = strstr(t, "\"after\": [\"b99998\"]");
	assert_non_null(at);
	memcpy(at, "\"after\": [\"z99998\"]", 19);
	return t;
}

/* 10^5 blocks, the last one named like the first. */
static char *gen_100k_blocks_dup(size_t *len)
{
	char *t = gen_many_blocks(100000, len);
	char *at = strstr(t, "{\"name\": \"b99999\"");
	assert_non_null(at);
	memcpy(at, "{\"name\":     \"b0\"", 17);
	return t;
}

/* A schedule whose placement has a block of span 10^6 and 10^6
 * micro-batches: nmicros * span overflows nothing but must not be trusted. */
static char *gen_sched_huge_span(size_t *len)
{
	char *t = malloc(1024);
	assert_non_null(t);
	*len = (size_t)snprintf(t, 1024,
		"{\"format\": \"tessel-schedule\", \"version\": 1, \"ndevs\": 1, "
		"\"nmicros\": 1000000, \"nsteps\": 1000000000000, \"blocks\": ["
		"{\"gid\": 0, \"name\": \"a\", \"mid\": 0, \"step\": 9223372036854775000, "
		"\"span\": 1000000, \"memory\": 0, \"btype\": \"forward\", \"device\": [0], "
		"\"phase\": \"repetend\"}], "
		"\"placement\": {\"devices\": 1, \"blocks\": [{\"name\": \"a\", "
		"\"kind\": \"forward\", \"span\": 1000000, \"memory\": 0, \"devices\": [0]}]}}");
	return t;
}

static char *gen_sched_deep(size_t *len)
{
	return repeat("{\"format\": \"tessel-schedule\", \"placement\": ", "[", 100000, "", len);
}

/* ------------------------------------------------------------------------ */
/* Call sequences                                                             */
/* ------------------------------------------------------------------------ */

static int c_graph_new_null(void) { return tessel_graph_new(NULL, 2); }

static int c_graph_new_n(int n)
{
	tessel_graph *g = BAD_PTR;
	int rc = tessel_graph_new(&g, n);
	OUT_NULL(g);
	return rc;
}
static int c_graph_new_0(void) { return c_graph_new_n(0); }
static int c_graph_new_m2(void) { return c_graph_new_n(-2); }
static int c_graph_new_big(void) { return c_graph_new_n(TESSEL_MAX_DEVICES + 1); }

static int c_graph_dup_null(void)
{
	tessel_graph *g = BAD_PTR;
	int rc = tessel_graph_dup(&g, NULL);
	OUT_NULL(g);
	return rc;
}

static int c_graph_dup_null_out(void)
{
	tessel_graph *g = two_blocks();
	int rc = tessel_graph_dup(NULL, g);
	tessel_graph_free(g);
	return rc;
}

static int add_block_to(const char *name, int kind, int span, int memory)
{
	tessel_graph *g = two_blocks();
	int gid = -7;
	int rc = tessel_graph_add_block(&gid, g, name, (tessel_kind)kind, span, memory);
	tessel_graph_free(g);
	return rc;
}
static int c_add_block_null_graph(void)
{
	return tessel_graph_add_block(NULL, NULL, "x", TESSEL_KIND_FORWARD, 1, 0);
}
static int c_add_block_null_name(void) { return add_block_to(NULL, 0, 1, 0); }
static int c_add_block_empty_name(void) { return add_block_to("", 0, 1, 0); }
static int c_add_block_dup_name(void) { return add_block_to("b", 0, 1, 0); }
static int c_add_block_span0(void) { return add_block_to("x", 0, 0, 0); }
static int c_add_block_span_big(void) { return add_block_to("x", 0, TESSEL_MAX_SPAN + 1, 0); }
static int c_add_block_span_neg(void) { return add_block_to("x", 0, -2147483647 - 1, 0); }
static int c_add_block_memory_big(void) { return add_block_to("x", 0, 1, TESSEL_MAX_MEMORY + 1); }
static int c_add_block_memory_min(void) { return add_block_to("x", 0, 1, -2147483647 - 1); }
static int c_add_block_kind(void) { return add_block_to("x", 7, 1, 0); }
static int c_add_block_kind_neg(void) { return add_block_to("x", -1, 1, 0); }

static int place_on(int gid, const int *devices, size_t count)
{
	tessel_graph *g = two_blocks();
	int rc = tessel_graph_place(g, gid, devices, count);
	tessel_graph_free(g);
	return rc;
}
static int c_place_null_graph(void) { int d = 0; return tessel_graph_place(NULL, 0, &d, 1); }
static int c_place_null_devices(void) { return place_on(0, NULL, 1); }
static int c_place_count0(void) { int d = 0; return place_on(0, &d, 0); }
static int c_place_dev_m2(void) { int d = -2; return place_on(0, &d, 1); }
static int c_place_dev_n(void) { int d = 2; return place_on(0, &d, 1); }
static int c_place_dev_twice(void) { int d[] = { 1, 1 }; return place_on(0, d, 2); }
static int c_place_too_many(void) { int d[] = { 1, 0, 1 }; return place_on(0, d, 3); }
static int c_place_gid_m2(void) { int d = 0; return place_on(-2, &d, 1); }
static int c_place_gid_n(void) { int d = 0; return place_on(2, &d, 1); }
static int c_place_count_huge(void) { int d[2] = { 0, 1 }; return place_on(0, d, SIZE_MAX); }

static int dep(int before, int after)
{
	tessel_graph *g = two_blocks();
	int rc = tessel_graph_add_dep(g, before, after);
	tessel_graph_free(g);
	return rc;
}
static int c_dep_null(void) { return tessel_graph_add_dep(NULL, 0, 1); }
static int c_dep_self(void) { return dep(1, 1); }
/* add_dep refuses a dependency that closes a cycle, and adds nothing */
static int c_dep_cycle(void)
{
	tessel_graph *g = two_blocks();
	int rc = tessel_graph_add_dep(g, 1, 0);
	TH_OK(tessel_graph_validate(g));
	tessel_graph_free(g);
	return rc;
}
/* the same through a longer path: a -> b -> c, then c -> a */
static int c_dep_cycle3(void)
{
	tessel_graph *g = two_blocks();
	int c = -1;
	const int dev0 = 0;
	TH_OK(tessel_graph_add_block(&c, g, "c", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_place(g, c, &dev0, 1));
	TH_OK(tessel_graph_add_dep(g, 1, c));
	int rc = tessel_graph_add_dep(g, c, 0);
	TH_OK(tessel_graph_validate(g));
	tessel_graph_free(g);
	return rc;
}
static int c_dep_dup(void) { return dep(0, 1); }
static int c_dep_unknown(void) { return dep(0, 2); }
static int c_dep_m2(void) { return dep(-2, 1); }

static int c_stage_m2(void)
{
	tessel_graph *g = two_blocks();
	int rc = tessel_graph_set_stage(g, 0, -2);
	tessel_graph_free(g);
	return rc;
}
static int c_stage_null(void) { return tessel_graph_set_stage(NULL, 0, 1); }

static int limit(int device, int64_t value)
{
	tessel_graph *g = two_blocks();
	int rc = tessel_graph_set_memory_limit(g, device, value);
	tessel_graph_free(g);
	return rc;
}
static int c_limit_dev_m2(void) { return limit(-2, 5); }
static int c_limit_dev_n(void) { return limit(2, 5); }
static int c_limit_m2(void) { return limit(0, -2); }
static int c_limit_huge(void) { return limit(0, INT64_MAX); }
static int c_limit_null(void) { return tessel_graph_set_memory_limit(NULL, 0, 5); }

static int c_limit_too_small(void)
{
	tessel_graph *g = two_blocks();
	TH_OK(tessel_graph_set_memory_limit(g, 0, 0));
	int rc = tessel_graph_validate(g);
	tessel_graph_free(g);
	return rc;
}

static int c_search_limit_too_small(void)
{
	tessel_graph *g = two_blocks();
	tessel_schedule *s = BAD_PTR;
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, 0));
	int rc = tessel_search(&s, g, NULL);
	OUT_NULL(s);
	tessel_graph_free(g);
	return rc;
}

static int c_validate_null(void) { return tessel_graph_validate(NULL); }

static int c_validate_empty(void)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 2));
	int rc = tessel_graph_validate(g);
	tessel_graph_free(g);
	return rc;
}

static int c_validate_unplaced(void)
{
	tessel_graph *g = two_blocks();
	TH_OK(tessel_graph_add_block(NULL, g, "c", TESSEL_KIND_FORWARD, 1, 0));
	int rc = tessel_graph_validate(g);
	tessel_graph_free(g);
	return rc;
}

static int c_find_null_name(void)
{
	tessel_graph *g = two_blocks();
	int gid = -7;
	int rc = tessel_graph_find(&gid, g, NULL);
	tessel_graph_free(g);
	return rc;
}
static int c_find_unknown(void)
{
	tessel_graph *g = two_blocks();
	int gid = -7;
	int rc = tessel_graph_find(&gid, g, "a\xff");
	tessel_graph_free(g);
	return rc;
}
static int c_find_null_out(void)
{
	tessel_graph *g = two_blocks();
	int rc = tessel_graph_find(NULL, g, "a");
	tessel_graph_free(g);
	return rc;
}

static int c_get_null_out(void)
{
	tessel_graph *g = two_blocks();
	int rc = tessel_graph_get(NULL, g, TESSEL_GRAPH_NBLOCKS);
	tessel_graph_free(g);
	return rc;
}
static int c_get_null_graph(void) { int64_t v; return tessel_graph_get(&v, NULL, TESSEL_GRAPH_NBLOCKS); }
static int c_get_bad_attr(void)
{
	tessel_graph *g = two_blocks();
	int64_t v;
	int rc = tessel_graph_get(&v, g, (tessel_graph_attr)99);
	tessel_graph_free(g);
	return rc;
}

static int c_block_get_gid(void)
{
	tessel_graph *g = two_blocks();
	int64_t v;
	int rc = tessel_graph_block_get(&v, g, -2, TESSEL_BLOCK_SPAN);
	tessel_graph_free(g);
	return rc;
}
static int c_block_get_attr(void)
{
	tessel_graph *g = two_blocks();
	int64_t v;
	int rc = tessel_graph_block_get(&v, g, 0, (tessel_block_attr)-1);
	tessel_graph_free(g);
	return rc;
}
static int c_block_name_gid(void)
{
	tessel_graph *g = two_blocks();
	const char *name = BAD_PTR;
	int rc = tessel_graph_block_name(&name, g, 2);
	OUT_NULL(name);
	tessel_graph_free(g);
	return rc;
}
static int c_block_device_index(void)
{
	tessel_graph *g = two_blocks();
	int d;
	int rc = tessel_graph_block_device(&d, g, 0, 1);
	tessel_graph_free(g);
	return rc;
}
static int c_block_dep_index(void)
{
	tessel_graph *g = two_blocks();
	int d;
	int rc = tessel_graph_block_dep(&d, g, 0, 0);
	tessel_graph_free(g);
	return rc;
}
static int c_memory_limit_dev(void)
{
	tessel_graph *g = two_blocks();
	int64_t v;
	int rc = tessel_graph_memory_limit(&v, g, -2);
	tessel_graph_free(g);
	return rc;
}

static int lower_bound(int64_t n)
{
	tessel_graph *g = two_blocks();
	int64_t v;
	int rc = tessel_graph_lower_bound(&v, g, n);
	tessel_graph_free(g);
	return rc;
}
static int c_lower_bound_0(void) { return lower_bound(0); }
static int c_lower_bound_big(void) { return lower_bound(INT64_MAX); }

/* Blocks of span 10^6 on one device and 10^6 micro-batches: LB(N) is
 * 4 * 10^12 and fits; INT64_MAX micro-batches must be refused, not wrap. */
static tessel_graph *huge_spans(void)
{
	tessel_graph *g = NULL;
	int d = 0;
	TH_OK(tessel_graph_new(&g, 1));
	for (int i = 0; i < 4; i++) {
		char name[8];
		snprintf(name, sizeof name, "h%d", i);
		TH_OK(tessel_graph_add_block(NULL, g, name, TESSEL_KIND_FORWARD,
					     TESSEL_MAX_SPAN, 0));
		TH_OK(tessel_graph_place(g, i, &d, 1));
		if (i)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	return g;
}

static int c_huge_lower_bound(void)
{
	tessel_graph *g = huge_spans();
	int64_t v = -1;
	int rc = tessel_graph_lower_bound(&v, g, INT64_MAX / 2);
	tessel_graph_free(g);
	return rc;
}

static int c_huge_lower_bound_ok(void)
{
	tessel_graph *g = huge_spans();
	int64_t v = -1;
	int rc = tessel_graph_lower_bound(&v, g, 1000000);
	if (rc == TESSEL_OK)
		assert_true(v >= 4000000000000LL && v < 4000000000000LL + 10000000);
	tessel_graph_free(g);
	return rc;
}

static int c_huge_search(void)
{
	tessel_graph *g = huge_spans();
	tessel_options *o = NULL;
	tessel_schedule *s = BAD_PTR;
	TH_OK(tessel_options_new(&o));
	int64_t n = th_under_checker() ? 10000 : 1000000;
	TH_OK(tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, n));
	TH_OK(tessel_options_set(o, TESSEL_OPT_FAST, 1));
	TH_OK(tessel_options_set(o, TESSEL_OPT_THREADS, 1));
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, 1));
	int rc = tessel_search(&s, g, o);
	if (rc == TESSEL_OK) {
		/* A correct schedule would be acceptable, but it is 4 * 10^12
		 * steps: check its figures do not wrap. */
		assert_true(th_sched(s, TESSEL_SCHED_MAKESPAN) >= n * 4000000);
		assert_int_equal(th_sched(s, TESSEL_SCHED_NENTRIES), 4 * n);
		tessel_schedule_free(s);
	} else {
		OUT_NULL(s);
	}
	tessel_options_free(o);
	tessel_graph_free(g);
	return rc;
}

static int c_huge_schedule_steps(void)
{
	tessel_graph *g = huge_spans();
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 1000000));
	/* start + span would pass INT64_MAX */
	int rc = tessel_schedule_set_step(s, 0, 999999, INT64_MAX - 10);
	tessel_schedule_free(s);
	tessel_graph_free(g);
	return rc;
}

static int preset(const char *name, int n, int infer, int64_t mem)
{
	tessel_graph *g = BAD_PTR;
	int rc = tessel_preset(&g, name, n, infer, mem);
	OUT_NULL(g);
	return rc;
}
static int c_preset_null_name(void) { return preset(NULL, 4, 0, -1); }
static int c_preset_unknown(void) { return preset("ushape", 4, 0, -1); }
static int c_preset_bad_utf8(void) { return preset("v\xc3shape", 4, 0, -1); }
static int c_preset_n0(void) { return preset("vshape", 0, 0, -1); }
static int c_preset_n1(void) { return preset("vshape", 1, 0, -1); }
static int c_preset_n_big(void) { return preset("vshape", TESSEL_MAX_DEVICES + 1, 0, -1); }
static int c_preset_kshape_odd(void) { return preset("kshape", 3, 0, -1); }
static int c_preset_infer(void) { return preset("vshape", 4, 2, -1); }
static int c_preset_memory(void) { return preset("vshape", 4, 0, -3); }
static int c_preset_memory_small(void) { return preset("vshape", 4, 0, 0); }
static int c_preset_null_out(void) { return tessel_preset(NULL, "vshape", 4, 0, -1); }
static int c_preset_info(void)
{
	const char *n = BAD_PTR, *d = BAD_PTR;
	int rc = tessel_preset_info(&n, &d, tessel_preset_count());
	OUT_NULL(n);
	OUT_NULL(d);
	return rc;
}

static int c_from_json_null_text(void)
{
	tessel_graph *g = BAD_PTR;
	int rc = tessel_graph_from_json(&g, NULL, 10);
	OUT_NULL(g);
	return rc;
}
static int c_from_json_null_out(void) { return tessel_graph_from_json(NULL, "{}", 2); }
static int c_from_file_null(void)
{
	tessel_graph *g = BAD_PTR;
	int rc = tessel_graph_from_file(&g, NULL);
	OUT_NULL(g);
	return rc;
}
static int c_from_file_missing(void)
{
	tessel_graph *g = BAD_PTR;
	int rc = tessel_graph_from_file(&g, "/nonexistent/catalogue.json");
	OUT_NULL(g);
	return rc;
}
static int c_from_file_dir(void)
{
	tessel_graph *g = BAD_PTR;
	int rc = tessel_graph_from_file(&g, "/");
	OUT_NULL(g);
	return rc;
}
static int c_sched_from_file_null(void)
{
	tessel_schedule *s = BAD_PTR;
	int rc = tessel_schedule_from_file(&s, NULL);
	OUT_NULL(s);
	return rc;
}
static int c_to_json_null(void)
{
	char *t = BAD_PTR;
	int rc = tessel_graph_to_json(&t, NULL);
	OUT_NULL(t);
	return rc;
}
static int c_to_json_bad_utf8(void)
{
	tessel_graph *g = two_blocks();
	int d = 0;
	char *t = BAD_PTR;
	TH_OK(tessel_graph_add_block(NULL, g, "c\xe2\x82", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 2, &d, 1));
	int rc = tessel_graph_to_json(&t, g);
	OUT_NULL(t);
	tessel_graph_free(g);
	return rc;
}

static int c_options_new_null(void) { return tessel_options_new(NULL); }
static int c_options_set_null(void) { return tessel_options_set(NULL, TESSEL_OPT_SEED, 1); }
static int c_options_get_null(void)
{
	tessel_options *o = NULL;
	TH_OK(tessel_options_new(&o));
	int rc = tessel_options_get(NULL, o, TESSEL_OPT_SEED);
	tessel_options_free(o);
	return rc;
}
static int c_options_bounds_key(void) { int64_t a, b; return tessel_options_bounds(&a, &b, (tessel_option)99); }
static int c_options_progress_null(void) { return tessel_options_set_progress(NULL, NULL, NULL); }
static int c_options_cancel_null(void) { return tessel_options_cancel(NULL); }

static int search(const tessel_graph *g, const tessel_options *o)
{
	tessel_schedule *s = BAD_PTR;
	int rc = tessel_search(&s, g, o);
	OUT_NULL(s);
	return rc;
}
static int c_search_null_out(void)
{
	tessel_graph *g = two_blocks();
	int rc = tessel_search(NULL, g, NULL);
	tessel_graph_free(g);
	return rc;
}
static int c_search_null_graph(void) { return search(NULL, NULL); }
static int c_search_unplaced(void)
{
	tessel_graph *g = two_blocks();
	TH_OK(tessel_graph_add_block(NULL, g, "c", TESSEL_KIND_FORWARD, 1, 0));
	int rc = search(g, NULL);
	tessel_graph_free(g);
	return rc;
}
/* One block on all 4,096 devices, 30,000 micro-batches: 30,000 entries,
 * 122,880,000 device entries (refused before anything is allocated). */
static int c_search_device_entries(void)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 4096));
	static int devs[4096];
	for (int d = 0; d < 4096; d++)
		devs[d] = d;
	TH_OK(tessel_graph_add_block(NULL, g, "a", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 0, devs, 4096));
	tessel_options *o = NULL;
	TH_OK(tessel_options_new(&o));
	TH_OK(tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, 30000));
	int rc = search(g, o);
	tessel_options_free(o);
	tessel_graph_free(g);
	return rc;
}
static int c_clear_cancel_null(void) { return tessel_options_clear_cancel(NULL); }
static int c_min_memory_null(void)
{
	int64_t v;
	return tessel_min_memory(&v, NULL, NULL, 0, NULL);
}
static int c_min_memory_period(void)
{
	tessel_graph *g = two_blocks();
	int64_t v;
	int rc = tessel_min_memory(&v, NULL, g, -1, NULL);
	tessel_graph_free(g);
	return rc;
}
static int graph_min_memory(int64_t n)
{
	tessel_graph *g = two_blocks();
	int64_t v = -7;
	int rc = tessel_graph_min_memory(&v, NULL, g, n);
	assert_int_equal(v, -7); /* untouched on failure */
	tessel_graph_free(g);
	return rc;
}
static int c_graph_min_memory_null(void)
{
	int64_t v;
	return tessel_graph_min_memory(&v, NULL, NULL, 4);
}
static int c_graph_min_memory_out(void)
{
	tessel_graph *g = two_blocks();
	int rc = tessel_graph_min_memory(NULL, NULL, g, 4);
	tessel_graph_free(g);
	return rc;
}
static int c_graph_min_memory_n0(void) { return graph_min_memory(0); }
static int c_graph_min_memory_n_big(void) { return graph_min_memory(TESSEL_MAX_MICRO_BATCHES + 1); }

static int sched_new(int64_t n)
{
	tessel_graph *g = two_blocks();
	tessel_schedule *s = BAD_PTR;
	int rc = tessel_schedule_new(&s, g, n);
	OUT_NULL(s);
	tessel_graph_free(g);
	return rc;
}
static int c_sched_new_0(void) { return sched_new(0); }
static int c_sched_new_m1(void) { return sched_new(-1); }
static int c_sched_new_big(void) { return sched_new(1000001); }
static int c_sched_new_null(void)
{
	tessel_schedule *s = BAD_PTR;
	int rc = tessel_schedule_new(&s, NULL, 2);
	OUT_NULL(s);
	return rc;
}

static int set_step(int gid, int64_t mid, int64_t step)
{
	tessel_schedule *s = two_schedule();
	int rc = tessel_schedule_set_step(s, gid, mid, step);
	tessel_schedule_free(s);
	return rc;
}
static int c_set_step_gid(void) { return set_step(-2, 0, 0); }
static int c_set_step_mid(void) { return set_step(0, SCHED_MICROS, 0); }
static int c_set_step_neg(void) { return set_step(0, 0, -1); }
static int c_set_step_null(void) { return tessel_schedule_set_step(NULL, 0, 0, 0); }

static int c_sched_validate_null(void) { return tessel_schedule_validate(NULL); }
static int c_sched_validate_overlap(void)
{
	tessel_schedule *s = two_schedule();
	TH_OK(tessel_schedule_set_step(s, 0, 1, 0));
	int rc = tessel_schedule_validate(s);
	tessel_schedule_free(s);
	return rc;
}
static int c_sched_get_null(void)
{
	int64_t v;
	return tessel_schedule_get(&v, NULL, TESSEL_SCHED_MAKESPAN);
}
static int c_peak_dev(int d)
{
	tessel_schedule *s = two_schedule();
	int64_t v;
	int rc = tessel_schedule_peak_memory(&v, s, d);
	tessel_schedule_free(s);
	return rc;
}
static int c_peak_m2(void) { return c_peak_dev(-2); }
static int c_peak_n(void) { return c_peak_dev(2); }
static int c_sched_graph_null(void)
{
	const tessel_graph *g = BAD_PTR;
	int rc = tessel_schedule_graph(&g, NULL);
	OUT_NULL(g);
	return rc;
}

static int iter_dev(int d)
{
	tessel_schedule *s = two_schedule();
	tessel_iter *it = BAD_PTR;
	int rc = tessel_iter_new(&it, s, d);
	OUT_NULL(it);
	tessel_schedule_free(s);
	return rc;
}
static int c_iter_m2(void) { return iter_dev(-2); }
static int c_iter_n(void) { return iter_dev(2); }
static int c_iter_next_null(void)
{
	const tessel_entry *e = BAD_PTR;
	int rc = tessel_iter_next(&e, NULL);
	OUT_NULL(e);
	return rc;
}
static int c_action_iter_n(void)
{
	tessel_schedule *s = two_schedule();
	tessel_action_iter *it = BAD_PTR;
	int rc = tessel_action_iter_new(&it, s, 2);
	OUT_NULL(it);
	tessel_schedule_free(s);
	return rc;
}
static int c_foreach_null_cb(void)
{
	tessel_schedule *s = two_schedule();
	int rc = tessel_schedule_foreach(s, TESSEL_ALL_DEVICES, NULL, NULL);
	tessel_schedule_free(s);
	return rc;
}
static int c_entry_get_null(void) { int64_t v; return tessel_entry_get(&v, NULL, TESSEL_ENTRY_GID); }

static int export(int which)
{
	tessel_schedule *s = which < 10 ? NULL : two_schedule();
	char *t = BAD_PTR;
	int rc;
	switch (which % 10) {
	case 0: rc = tessel_schedule_to_text(&t, s); break;
	case 1: rc = tessel_schedule_to_json(&t, s); break;
	case 2: rc = tessel_schedule_to_svg(&t, s); break;
	case 3: rc = tessel_schedule_to_actions_json(&t, s); break;
	case 4: rc = tessel_schedule_to_torch_csv(&t, s, 0); break;
	case 5: rc = tessel_schedule_to_trace_json(&t, s, -1.0); break;
	case 6: rc = tessel_schedule_to_trace_json(&t, s, NAN); break;
	default: rc = tessel_schedule_to_trace_json(&t, s, -INFINITY); break;
	}
	OUT_NULL(t);
	tessel_schedule_free(s);
	return rc;
}
static int c_text_null(void) { return export(0); }
static int c_json_null(void) { return export(1); }
static int c_svg_null(void) { return export(2); }
static int c_actions_null(void) { return export(3); }
static int c_torch_null(void) { return export(4); }
static int c_torch_no_stage(void) { return export(14); }
static int c_trace_neg(void) { return export(15); }
static int c_trace_nan(void) { return export(16); }
static int c_trace_ninf(void) { return export(17); }
/* a placement step in seconds beyond a double in microseconds */
static int c_trace_huge_step(void)
{
	tessel_graph *g = two_blocks();
	TH_OK(tessel_graph_set_step(g, 1.7e308));
	TH_OK(tessel_graph_set_unit(g, "s"));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 1));
	tessel_graph_free(g);
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 1));
	char *t = BAD_PTR;
	int rc = tessel_schedule_to_trace_json(&t, s, 0);
	OUT_NULL(t);
	tessel_schedule_free(s);
	return rc;
}

static int sim(const double *dur, size_t count, double latency, double jitter)
{
	tessel_schedule *s = two_schedule();
	tessel_simulation *r = BAD_PTR;
	int rc = tessel_simulate(&r, s, dur, count, latency, jitter, 1);
	OUT_NULL(r);
	tessel_schedule_free(s);
	return rc;
}
static int c_sim_jitter_1(void) { return sim(NULL, 0, 0, 1.0); }
static int c_sim_jitter_neg(void) { return sim(NULL, 0, 0, -0.1); }
static int c_sim_jitter_nan(void) { return sim(NULL, 0, 0, NAN); }
static int c_sim_latency_neg(void) { return sim(NULL, 0, -1, 0); }
static int c_sim_latency_inf(void) { return sim(NULL, 0, INFINITY, 0); }
static int c_sim_count(void) { double d[3] = { 1, 1, 1 }; return sim(d, 3, 0, 0); }
static int c_sim_negative(void) { double d[2] = { 1, -1 }; return sim(d, 2, 0, 0); }
static int c_sim_null(void)
{
	tessel_simulation *r = BAD_PTR;
	int rc = tessel_simulate(&r, NULL, NULL, 0, 0, 0, 1);
	OUT_NULL(r);
	return rc;
}
static int c_sim_get_null(void) { double v; return tessel_simulation_get(&v, NULL, TESSEL_SIM_MAKESPAN, 0); }

static int durations(const char *text, size_t len)
{
	tessel_graph *g = two_blocks();
	double *d = BAD_PTR;
	int rc = tessel_durations_from_json(&d, g, text, len);
	if (rc == TESSEL_OK)
		tessel_free(d);
	else
		OUT_NULL(d);
	tessel_graph_free(g);
	return rc;
}
static int c_dur_unknown(void) { return durations("{\"zz\": 1}", 9); }
static int c_dur_negative(void) { return durations("{\"a\": -1}", 9); }
static int c_dur_string(void) { return durations("{\"a\": \"1\"}", 10); }
static int c_dur_null_text(void) { return durations(NULL, 4); }
static int c_dur_nul(void) { return durations("{\"a\": 1\0}", 9); }

static int c_reference_null(void)
{
	tessel_schedule *s = BAD_PTR;
	int rc = tessel_schedule_from_reference_json(&s, NULL, "{}", 2);
	OUT_NULL(s);
	return rc;
}
static int c_reference_garbage(void)
{
	tessel_graph *g = two_blocks();
	tessel_schedule *s = BAD_PTR;
	int rc = tessel_schedule_from_reference_json(&s, g, "{\"ndevs\": \"x\"}", 14);
	OUT_NULL(s);
	tessel_graph_free(g);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* The catalogue                                                              */
/* ------------------------------------------------------------------------ */

#define BLOCK_A "{\"name\": \"a\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}"
#define ONE(b) "{\"devices\": 2, \"blocks\": [" b "]}"
#define TWO(b) "{\"devices\": 2, \"blocks\": [" BLOCK_A ", {" b "}]}"
#define BODY_B "\"name\": \"b\", \"kind\": \"backward\", \"span\": 2, \"memory\": -1, "

static const struct row catalogue[] = {
	/* placement: text shape */
	P("empty placement", "", TESSEL_EPARSE, "empty"),
	P("only whitespace", " \n\t\r  ", TESSEL_EPARSE, "unexpected token"),
	PL("NUL byte inside placement", "{\"devices\": 2,\0 \"blocks\": []}", TESSEL_EPARSE, "NUL byte at offset 14"),
	PL("NUL byte inside a name", ONE("{\"name\": \"a\0b\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}"),
	   TESSEL_EPARSE, "NUL byte at offset"),
	P("escaped NUL in a name", ONE("{\"name\": \"a\\u0000b\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}"),
	  TESSEL_EPARSE, "a string holds a NUL character"),
	PL("NUL bytes after numbers", "{\"devices\": 2\0, \"blocks\": [{\"name\": \"a\", \"kind\": \"forward\", \"span\": 1\0, \"memory\": 0, \"devices\": [0]}]}",
	   TESSEL_EPARSE, "NUL byte at offset 13"),
	P("trailing garbage", ONE(BLOCK_A) " x", TESSEL_EPARSE, "end of file expected"),
	P("two documents", ONE(BLOCK_A) ONE(BLOCK_A), TESSEL_EPARSE, "end of file expected"),
	P("null root", "null", TESSEL_EPARSE, "the top level must be a JSON object, not null"),
	P("truncated", "{\"devices\": 2, \"blocks\": [{\"name\": \"a", TESSEL_EPARSE, "premature end of input"),
	PG("100000 '['", gen_deep_arrays, TESSEL_EPARSE, "maximum parsing depth reached"),
	PG("100000 '[' then ']'", gen_deep_arrays_closed, TESSEL_EPARSE, "maximum parsing depth reached"),
	PG("100000 nested objects", gen_deep_objects, TESSEL_EPARSE, "maximum parsing depth reached"),
	PG("50000 nested arrays as a name", gen_deep_in_block, TESSEL_EPARSE, "maximum parsing depth reached"),
	/* names */
	P("invalid UTF-8 byte in a name", ONE("{\"name\": \"a\xff\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}"),
	  TESSEL_EPARSE, "unable to decode byte 0xff"),
	P("overlong UTF-8 in a name", ONE("{\"name\": \"\xc0\xaf\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}"),
	  TESSEL_EPARSE, "unable to decode byte 0xc0"),
	P("truncated UTF-8 in a name", ONE("{\"name\": \"\xe2\x82\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}"),
	  TESSEL_EPARSE, "unable to decode byte 0xe2"),
	P("lone surrogate escape in a name", ONE("{\"name\": \"\\ud800\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}"),
	  TESSEL_EPARSE, "invalid Unicode '\\uD800'"),
	P("invalid UTF-8 in \"after\"", TWO(BODY_B "\"devices\": [1], \"after\": [\"a\xfe\"]"), TESSEL_EPARSE, "unable to decode byte 0xfe"),
	P("duplicate block name", TWO("\"name\": \"a\", \"kind\": \"backward\", \"span\": 2, \"memory\": -1, \"devices\": [1]"),
	  TESSEL_EEXISTS, "block 1 (\"a\"): \"name\" is already used by block 0"),
	P("unknown block in \"after\"", TWO(BODY_B "\"devices\": [1], \"after\": [\"A\"]"), TESSEL_ENOTFOUND, "unknown block \"A\""),
	P("self dependency", TWO(BODY_B "\"devices\": [1], \"after\": [\"b\"]"), TESSEL_ECYCLE, "block 1 (\"b\")"),
	/* numbers */
	P("devices a string", "{\"devices\": \"2\", \"blocks\": [" BLOCK_A "]}", TESSEL_EPARSE, "\"devices\" must be an integer, not a string"),
	P("devices -1", "{\"devices\": -1, \"blocks\": [" BLOCK_A "]}", TESSEL_ERANGE, "\"devices\" must be an integer in 1 .. 4096, got -1"),
	P("devices 4097", "{\"devices\": 4097, \"blocks\": [" BLOCK_A "]}", TESSEL_ERANGE, "got 4097"),
	P("devices 1e999", "{\"devices\": 1e999, \"blocks\": [" BLOCK_A "]}", TESSEL_EPARSE, "real number overflow"),
	P("span 1000001", TWO("\"name\": \"b\", \"kind\": \"forward\", \"span\": 1000001, \"memory\": 0, \"devices\": [1]"),
	  TESSEL_ERANGE, "\"span\" must be an integer in 1 .. 1000000, got 1000001"),
	P("span -1", TWO("\"name\": \"b\", \"kind\": \"forward\", \"span\": -1, \"memory\": 0, \"devices\": [1]"),
	  TESSEL_ERANGE, "got -1"),
	P("span INT64_MIN", TWO("\"name\": \"b\", \"kind\": \"forward\", \"span\": -9223372036854775808, \"memory\": 0, \"devices\": [1]"),
	  TESSEL_ERANGE, "got -9223372036854775808"),
	P("memory 1000000001", TWO("\"name\": \"b\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1000000001, \"devices\": [1]"),
	  TESSEL_ERANGE, "\"memory\" must be an integer in -1000000000 .. 1000000000"),
	P("kind an array", TWO("\"name\": \"b\", \"kind\": [\"forward\"]"), TESSEL_EPARSE, "\"kind\" must be a string, not an array"),
	P("name an object", TWO("\"name\": {}"), TESSEL_EPARSE, "\"name\" must be a string, not an object"),
	P("device -2", TWO(BODY_B "\"devices\": [-2]"), TESSEL_EINVAL, "unknown device -2"),
	P("device = ndevices", TWO(BODY_B "\"devices\": [2]"), TESSEL_EINVAL, "unknown device 2 (devices are 0 .. 1)"),
	P("device INT64_MAX", TWO(BODY_B "\"devices\": [9223372036854775807]"), TESSEL_EINVAL, "unknown device 9223372036854775807"),
	P("memory limit too small", "{\"devices\": 2, \"memory_limit\": 0, \"blocks\": [" BLOCK_A "]}", TESSEL_EINFEASIBLE, "device 0"),
	P("memory limit list too long", "{\"devices\": 2, \"memory_limit\": [1, 1, 1], \"blocks\": [" BLOCK_A "]}", TESSEL_EPARSE, "has 3 entries"),
	P("stage 1000001", ONE("{\"name\": \"a\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0], \"stage\": 1000001}"),
	  TESSEL_ERANGE, "\"stage\" must be an integer in 0 .. 1000000"),
	PG("10^5 blocks in a chain", gen_100k_blocks, TESSEL_OK, NULL),
	PG("10^5 blocks, unknown name at the end", gen_100k_blocks_unknown, TESSEL_ENOTFOUND, "block 99999 (\"b99999\"): \"after\"[0]: unknown block \"z99998\""),
	PG("10^5 blocks, duplicate name at the end", gen_100k_blocks_dup, TESSEL_EEXISTS, "block 99999 (\"b0\"): \"name\" is already used by block 0"),

	/* schedule JSON */
	S("empty schedule", "", TESSEL_EPARSE, "empty"),
	S("whitespace schedule", "\n\n   \t", TESSEL_EPARSE, "unexpected token"),
	SL("NUL byte inside schedule", "{\"format\": \"tessel-\0schedule\"}", TESSEL_EPARSE, "NUL byte at offset 19"),
	SG("100000 '[' in a schedule", gen_sched_deep, TESSEL_EPARSE, "maximum parsing depth reached"),
	SG("huge span x 10^6 micro-batches, step near INT64_MAX", gen_sched_huge_span, TESSEL_ERANGE, "\"blocks\"[0]: \"step\" must be an integer in 0 .. 1000000000000000, got 9223372036854775000"),
	SE("nmicros 0", "\"nmicros\": 2", "\"nmicros\": 0", TESSEL_ERANGE, "\"nmicros\""),
	SE("nmicros too large", "\"nmicros\": 2", "\"nmicros\": 1000001", TESSEL_ERANGE, "\"nmicros\""),
	SE("nmicros a string", "\"nmicros\": 2", "\"nmicros\": \"2\"", TESSEL_EPARSE, "\"nmicros\" must be an integer, not a string"),
	SE("entry gid out of range", "{\"gid\": 1,", "{\"gid\": 2,", TESSEL_ERANGE, "\"blocks\"[1]: \"gid\" must be an integer in 0 .. 1, got 2"),
	SE("entry gid -2", "{\"gid\": 1,", "{\"gid\": -2,", TESSEL_ERANGE, "\"blocks\"[1]: \"gid\" must be an integer in 0 .. 1, got -2"),
	SE("entry mid = nmicros", "\"mid\": 1", "\"mid\": 2", TESSEL_ERANGE, "\"blocks\"[2]: \"mid\" must be an integer in 0 .. 1, got 2"),
	SE("entry step -1", "\"step\": 0", "\"step\": -1", TESSEL_ERANGE, "\"blocks\"[0]: \"step\" must be an integer in 0 .. 1000000000000000, got -1"),
	SE("entry step INT64_MAX", "\"step\": 0", "\"step\": 9223372036854775807", TESSEL_ERANGE, "\"blocks\"[0]: \"step\" must be an integer in 0 .. 1000000000000000, got 9223372036854775807"),
	SE("entry device -2", "\"device\": [0]", "\"device\": [-2]", TESSEL_ERANGE, "\"blocks\"[0]: \"device\"[0] must be an integer in 0 .. 1, got -2"),
	SE("entry device = ndevices", "\"device\": [0]", "\"device\": [2]", TESSEL_ERANGE, "\"blocks\"[0]: \"device\"[0] must be an integer in 0 .. 1, got 2"),
	SE("entry name differs", "\"name\": \"a\", \"mid\"", "\"name\": \"z\", \"mid\"", TESSEL_EPARSE, "\"blocks\"[0]: \"name\" is \"z\" but block 0 is \"a\" in the placement"),
	SE("entry name invalid UTF-8", "\"name\": \"a\", \"mid\"", "\"name\": \"a\xff\", \"mid\"", TESSEL_EPARSE, "unable to decode byte 0xff"),
	SE("entry twice", "\"mid\": 1", "\"mid\": 0", TESSEL_EPARSE, "\"blocks\"[2]: block 0 (\"a\") of micro-batch 0 appears twice"),
	SE("placement cycle", "\"after\": [\"a\"]", "\"after\": [\"b\"]", TESSEL_ECYCLE, "\"placement\": "),
	SE("placement unknown device", "\"devices\": [1]", "\"devices\": [7]", TESSEL_EINVAL, "\"placement\": "),

	/* call sequences */
	C("graph_new(NULL)", c_graph_new_null, TESSEL_EINVAL, "out is NULL"),
	C("graph_new N = 0", c_graph_new_0, TESSEL_ERANGE, "devices must be 1 .. 4096, got 0"),
	C("graph_new N = -2", c_graph_new_m2, TESSEL_ERANGE, "devices must be 1 .. 4096, got -2"),
	C("graph_new N = 4097", c_graph_new_big, TESSEL_ERANGE, "devices must be 1 .. 4096, got 4097"),
	C("graph_dup of NULL", c_graph_dup_null, TESSEL_EINVAL, "graph is NULL"),
	C("graph_dup to NULL", c_graph_dup_null_out, TESSEL_EINVAL, "out is NULL"),
	C("add_block to NULL graph", c_add_block_null_graph, TESSEL_EINVAL, "graph is NULL"),
	C("add_block NULL name", c_add_block_null_name, TESSEL_EINVAL, "block 2: name is empty"),
	C("add_block empty name", c_add_block_empty_name, TESSEL_EINVAL, "block 2: name is empty"),
	C("add_block duplicate name", c_add_block_dup_name, TESSEL_EEXISTS, "block 2: name \"b\" is already used by block 1"),
	C("add_block span 0", c_add_block_span0, TESSEL_ERANGE, "block \"x\": span must be 1 .. 1000000, got 0"),
	C("add_block span 1000001", c_add_block_span_big, TESSEL_ERANGE, "block \"x\": span must be 1 .. 1000000, got 1000001"),
	C("add_block span INT_MIN", c_add_block_span_neg, TESSEL_ERANGE, "block \"x\": span must be 1 .. 1000000, got -2147483648"),
	C("add_block memory 1000000001", c_add_block_memory_big, TESSEL_ERANGE, "block \"x\": memory must be within +-1000000000, got 1000000001"),
	C("add_block memory INT_MIN", c_add_block_memory_min, TESSEL_ERANGE, "block \"x\": memory must be within +-1000000000, got -2147483648"),
	C("add_block kind 7", c_add_block_kind, TESSEL_EINVAL, "block \"x\": unknown kind 7"),
	C("add_block kind -1", c_add_block_kind_neg, TESSEL_EINVAL, "block \"x\": unknown kind -1"),
	C("place on NULL graph", c_place_null_graph, TESSEL_EINVAL, "graph is NULL"),
	C("place NULL devices", c_place_null_devices, TESSEL_EINVAL, "block \"a\": device list is empty"),
	C("place count 0", c_place_count0, TESSEL_EINVAL, "block \"a\": device list is empty"),
	C("place device -2", c_place_dev_m2, TESSEL_EINVAL, "block \"a\": unknown device -2 (devices are 0 .. 1)"),
	C("place device = ndevices", c_place_dev_n, TESSEL_EINVAL, "block \"a\": unknown device 2 (devices are 0 .. 1)"),
	C("place device twice", c_place_dev_twice, TESSEL_EINVAL, "block \"a\": device 1 listed twice"),
	C("place on more devices than the graph has", c_place_too_many, TESSEL_EINVAL, "3 devices listed, graph has 2"),
	C("place gid -2", c_place_gid_m2, TESSEL_ENOTFOUND, "block id -2 out of range (graph has 2 blocks)"),
	C("place gid = nblocks", c_place_gid_n, TESSEL_ENOTFOUND, "block id 2 out of range (graph has 2 blocks)"),
	C("place count SIZE_MAX", c_place_count_huge, TESSEL_EINVAL, "block \"a\": 18446744073709551615 devices listed, graph has 2"),
	C("add_dep NULL graph", c_dep_null, TESSEL_EINVAL, "graph is NULL"),
	C("add_dep self", c_dep_self, TESSEL_ECYCLE, "block \"b\" cannot depend on itself"),
	C("add_dep closing a cycle", c_dep_cycle, TESSEL_ECYCLE, "dependency \"b\" -> \"a\" closes a cycle: \"b\" already waits for \"a\""),
	C("add_dep closing a cycle of three", c_dep_cycle3, TESSEL_ECYCLE, "dependency \"c\" -> \"a\" closes a cycle: \"c\" already waits for \"a\""),
	C("add_dep duplicate", c_dep_dup, TESSEL_EEXISTS, "block \"b\" already depends on \"a\""),
	C("add_dep unknown block", c_dep_unknown, TESSEL_ENOTFOUND, "block id 2 out of range (graph has 2 blocks)"),
	C("add_dep gid -2", c_dep_m2, TESSEL_ENOTFOUND, "block id -2 out of range (graph has 2 blocks)"),
	C("set_stage -2", c_stage_m2, TESSEL_ERANGE, "block \"a\": stage must be -1 .. 1000000, got -2"),
	C("set_stage NULL graph", c_stage_null, TESSEL_EINVAL, "graph is NULL"),
	C("memory limit device -2", c_limit_dev_m2, TESSEL_ENOTFOUND, "memory limit: unknown device -2 (devices are 0 .. 1)"),
	C("memory limit device = ndevices", c_limit_dev_n, TESSEL_ENOTFOUND, "memory limit: unknown device 2 (devices are 0 .. 1)"),
	C("memory limit -2", c_limit_m2, TESSEL_ERANGE, "memory limit of device 0 must be -1 (unlimited) .. 2^50, got -2"),
	C("memory limit INT64_MAX", c_limit_huge, TESSEL_ERANGE, "memory limit of device 0 must be -1 (unlimited) .. 2^50, got 9223372036854775807"),
	C("memory limit NULL graph", c_limit_null, TESSEL_EINVAL, "graph is NULL"),
	C("memory limit too small (validate)", c_limit_too_small, TESSEL_EINFEASIBLE, "device 0: memory limit 0 is below the 1 that one micro-batch needs when block \"a\" starts"),
	C("memory limit too small (search)", c_search_limit_too_small, TESSEL_EINFEASIBLE, "device 0: memory limit 0 is below the 1 that one micro-batch needs when block \"a\" starts"),
	C("validate NULL", c_validate_null, TESSEL_EINVAL, "graph is NULL"),
	C("validate no blocks", c_validate_empty, TESSEL_EINVAL, "the graph has no blocks"),
	C("validate unplaced block", c_validate_unplaced, TESSEL_EINVAL, "block \"c\" (block 2) is not placed on any device"),
	C("find NULL name", c_find_null_name, TESSEL_EINVAL, "name is NULL"),
	C("find invalid UTF-8 name", c_find_unknown, TESSEL_ENOTFOUND, "no block named \"a\xff""\""),
	C("find NULL out", c_find_null_out, TESSEL_EINVAL, "out is NULL"),
	C("graph_get NULL out", c_get_null_out, TESSEL_EINVAL, "out is NULL"),
	C("graph_get NULL graph", c_get_null_graph, TESSEL_EINVAL, "graph is NULL"),
	C("graph_get attr 99", c_get_bad_attr, TESSEL_EINVAL, "unknown graph attribute 99"),
	C("block_get gid -2", c_block_get_gid, TESSEL_ENOTFOUND, "block id -2 out of range (graph has 2 blocks)"),
	C("block_get attr -1", c_block_get_attr, TESSEL_EINVAL, "unknown block attribute -1"),
	C("block_name gid = nblocks", c_block_name_gid, TESSEL_ENOTFOUND, "block id 2 out of range (graph has 2 blocks)"),
	C("block_device index out of range", c_block_device_index, TESSEL_ENOTFOUND, "block \"a\" has 1 devices, index 1 requested"),
	C("block_dep index out of range", c_block_dep_index, TESSEL_ENOTFOUND, "block \"a\" has 0 dependencies, index 0 requested"),
	C("memory_limit of device -2", c_memory_limit_dev, TESSEL_ENOTFOUND, "unknown device -2 (devices are 0 .. 1)"),
	C("lower_bound N = 0", c_lower_bound_0, TESSEL_ERANGE, "micro-batches must be 1 .. 1000000, got 0"),
	C("lower_bound N = INT64_MAX", c_lower_bound_big, TESSEL_ERANGE, "micro-batches must be 1 .. 1000000, got 9223372036854775807"),
	C("lower_bound huge spans, N = INT64_MAX / 2", c_huge_lower_bound, TESSEL_ERANGE, "micro-batches must be 1 .. 1000000, got 4611686018427387903"),
	C("lower_bound huge spans, N = 10^6 (4 * 10^12, no wrap)", c_huge_lower_bound_ok, TESSEL_OK, ""),
	C("search huge spans x 10^6 micro-batches", c_huge_search, TESSEL_OK, ""),
	C("set_step start + span past INT64_MAX", c_huge_schedule_steps, TESSEL_ERANGE, "tessel_schedule_set_step: step 9223372036854775797 of block 'h0' micro-batch 999999 is out of range 0 .. 1000000000000000"),
	C("preset NULL name", c_preset_null_name, TESSEL_EINVAL, "preset name is NULL"),
	C("preset unknown name", c_preset_unknown, TESSEL_ENOTFOUND, "unknown preset \"ushape\" (presets: vshape, xshape, mshape, nnshape, kshape)"),
	C("preset invalid UTF-8 name", c_preset_bad_utf8, TESSEL_ENOTFOUND, "unknown preset \"v\xc3""shape\" (presets: vshape, xshape, mshape, nnshape, kshape)"),
	C("preset N = 0", c_preset_n0, TESSEL_ERANGE, "preset vshape: devices must be 2 .. 4096, got 0"),
	C("preset N = 1", c_preset_n1, TESSEL_ERANGE, "preset vshape: devices must be 2 .. 4096, got 1"),
	C("preset N = 4097", c_preset_n_big, TESSEL_ERANGE, "preset vshape: devices must be 2 .. 4096, got 4097"),
	C("preset kshape N = 3", c_preset_kshape_odd, TESSEL_EINVAL, "preset kshape needs an even number of devices, got 3"),
	C("preset infer = 2", c_preset_infer, TESSEL_EINVAL, "infer must be 0 or 1, got 2"),
	C("preset memory -3", c_preset_memory, TESSEL_ERANGE, "memory limit of every device must be -1 (unlimited) .. 2^50, got -3"),
	C("preset memory too small", c_preset_memory_small, TESSEL_EINFEASIBLE, "device 0: memory limit 0 is below the 1 that one micro-batch needs when block \"f0\" starts"),
	C("preset NULL out", c_preset_null_out, TESSEL_EINVAL, "out is NULL"),
	C("preset_info index = count", c_preset_info, TESSEL_ENOTFOUND, "preset index 5 out of range (5 presets)"),
	C("graph_from_json NULL text", c_from_json_null_text, TESSEL_EINVAL, "text is NULL"),
	C("graph_from_json NULL out", c_from_json_null_out, TESSEL_EINVAL, "out is NULL"),
	C("graph_from_file NULL path", c_from_file_null, TESSEL_EINVAL, "path is NULL"),
	C("graph_from_file missing", c_from_file_missing, TESSEL_EIO, "/nonexistent/catalogue.json"),
	C("graph_from_file directory", c_from_file_dir, TESSEL_EIO, "/: Is a directory"),
	C("schedule_from_file NULL path", c_sched_from_file_null, TESSEL_EINVAL, "path is NULL"),
	C("graph_to_json NULL", c_to_json_null, TESSEL_EINVAL, "graph is NULL"),
	C("graph_to_json truncated UTF-8 name", c_to_json_bad_utf8, TESSEL_EINVAL, "block 2"),
	C("options_new NULL", c_options_new_null, TESSEL_EINVAL, "out is NULL"),
	C("options_set NULL", c_options_set_null, TESSEL_EINVAL, "options is NULL"),
	C("options_get NULL out", c_options_get_null, TESSEL_EINVAL, "out is NULL"),
	C("options_bounds key 99", c_options_bounds_key, TESSEL_EINVAL, "unknown option key 99"),
	C("options_set_progress NULL", c_options_progress_null, TESSEL_EINVAL, "options is NULL"),
	C("options_cancel NULL", c_options_cancel_null, TESSEL_EINVAL, "options is NULL"),
	C("search NULL out", c_search_null_out, TESSEL_EINVAL, "out is NULL"),
	C("search NULL graph", c_search_null_graph, TESSEL_EINVAL, "graph is NULL"),
	C("search unplaced block", c_search_unplaced, TESSEL_EINVAL, "block \"c\" (block 2) is not placed on any device"),
	C("search device entries", c_search_device_entries, TESSEL_ERANGE, "122880000 device entries exceed 100000000"),
	C("options_clear_cancel NULL", c_clear_cancel_null, TESSEL_EINVAL, "options is NULL"),
	C("min_memory NULL graph", c_min_memory_null, TESSEL_EINVAL, "graph is NULL"),
	C("min_memory period -1", c_min_memory_period, TESSEL_ERANGE, "period must be >= 0, got -1"),
	C("graph_min_memory NULL graph", c_graph_min_memory_null, TESSEL_EINVAL, "graph is NULL"),
	C("graph_min_memory NULL out", c_graph_min_memory_out, TESSEL_EINVAL, "out is NULL"),
	C("graph_min_memory 0 micro-batches", c_graph_min_memory_n0, TESSEL_ERANGE, "micro-batches must be 1 .. 1000000, got 0"),
	C("graph_min_memory too many micro-batches", c_graph_min_memory_n_big, TESSEL_ERANGE, "micro-batches must be 1 .. 1000000, got 1000001"),
	C("schedule_new N = 0", c_sched_new_0, TESSEL_ERANGE, "tessel_schedule_new: nmicros 0 is out of range 1 .. 1000000"),
	C("schedule_new N = -1", c_sched_new_m1, TESSEL_ERANGE, "tessel_schedule_new: nmicros -1 is out of range 1 .. 1000000"),
	C("schedule_new N = 1000001", c_sched_new_big, TESSEL_ERANGE, "tessel_schedule_new: nmicros 1000001 is out of range 1 .. 1000000"),
	C("schedule_new NULL graph", c_sched_new_null, TESSEL_EINVAL, "tessel_schedule_new: graph is NULL"),
	C("set_step gid -2", c_set_step_gid, TESSEL_ENOTFOUND, "tessel_schedule_set_step: gid -2 is out of range 0 .. 1"),
	C("set_step mid = N", c_set_step_mid, TESSEL_ENOTFOUND, "tessel_schedule_set_step: micro-batch 2 is out of range 0 .. 1"),
	C("set_step step -1", c_set_step_neg, TESSEL_ERANGE, "tessel_schedule_set_step: step -1 of block 'a' micro-batch 0 is out of range 0 .. 1000000000000000"),
	C("set_step NULL", c_set_step_null, TESSEL_EINVAL, "tessel_schedule_set_step: schedule is NULL"),
	C("schedule_validate NULL", c_sched_validate_null, TESSEL_EINVAL, "tessel_schedule_validate: schedule is NULL"),
	C("schedule_validate overlap", c_sched_validate_overlap, TESSEL_EVIOLATION, "device 0 runs two blocks at once: block 'a' (gid 0) micro-batch 0 runs steps 0..0 and block 'a' (gid 0) micro-batch 1 starts at step 0"),
	C("schedule_get NULL", c_sched_get_null, TESSEL_EINVAL, "tessel_schedule_get: schedule is NULL"),
	C("peak_memory device -2", c_peak_m2, TESSEL_ENOTFOUND, "tessel_schedule_peak_memory: device -2 is out of range 0 .. 1"),
	C("peak_memory device = ndevices", c_peak_n, TESSEL_ENOTFOUND, "tessel_schedule_peak_memory: device 2 is out of range 0 .. 1"),
	C("schedule_graph NULL", c_sched_graph_null, TESSEL_EINVAL, "tessel_schedule_graph: schedule is NULL"),
	C("iter_new device -2", c_iter_m2, TESSEL_ENOTFOUND, "tessel_iter_new: device -2 is out of range 0 .. 1"),
	C("iter_new device = ndevices", c_iter_n, TESSEL_ENOTFOUND, "tessel_iter_new: device 2 is out of range 0 .. 1"),
	C("iter_next NULL iter", c_iter_next_null, TESSEL_EINVAL, "tessel_iter_next: iter is NULL"),
	C("action_iter_new device = ndevices", c_action_iter_n, TESSEL_ENOTFOUND, "tessel_action_iter_new: device 2 is out of range 0 .. 1"),
	C("foreach NULL callback", c_foreach_null_cb, TESSEL_EINVAL, "tessel_schedule_foreach: cb is NULL"),
	C("entry_get NULL", c_entry_get_null, TESSEL_EINVAL, "tessel_entry_get: entry is NULL"),
	C("to_text NULL", c_text_null, TESSEL_EINVAL, "tessel_schedule_to_text: schedule is NULL"),
	C("to_json NULL", c_json_null, TESSEL_EINVAL, "schedule is NULL"),
	C("to_svg NULL", c_svg_null, TESSEL_EINVAL, "tessel_schedule_to_svg: schedule is NULL"),
	C("to_actions_json NULL", c_actions_null, TESSEL_EINVAL, "tessel_schedule_to_actions_json: schedule is NULL"),
	C("to_torch_csv NULL", c_torch_null, TESSEL_EINVAL, "tessel_schedule_to_torch_csv: schedule is NULL"),
	C("to_torch_csv without stages", c_torch_no_stage, TESSEL_EUNSUPPORTED, "torch CSV: stage 0 is on device 0 (block \"a\") and on device 1 (block \"b\"); PyTorch runs each stage on one rank"),
	C("to_trace_json step -1", c_trace_neg, TESSEL_EINVAL, "tessel_schedule_to_trace_json: step_us must be > 0 (or 0: from the placement), got -1"),
	C("to_trace_json step NaN", c_trace_nan, TESSEL_EINVAL, "tessel_schedule_to_trace_json: step_us must be > 0 (or 0: from the placement), got nan"),
	C("to_trace_json step -inf", c_trace_ninf, TESSEL_EINVAL, "tessel_schedule_to_trace_json: step_us must be > 0 (or 0: from the placement), got -inf"),
	C("to_trace_json placement step beyond a double", c_trace_huge_step, TESSEL_ERANGE, "tessel_schedule_to_trace_json: the placement's step, 1.7e+308 s, is beyond what a double holds in microseconds (give step_us)"),
	C("simulate jitter 1", c_sim_jitter_1, TESSEL_ERANGE, "tessel_simulate: jitter must be in [0, 1), got 1"),
	C("simulate jitter -0.1", c_sim_jitter_neg, TESSEL_ERANGE, "tessel_simulate: jitter must be in [0, 1), got -0.1"),
	C("simulate jitter NaN", c_sim_jitter_nan, TESSEL_ERANGE, "tessel_simulate: jitter must be in [0, 1), got nan"),
	C("simulate latency -1", c_sim_latency_neg, TESSEL_ERANGE, "tessel_simulate: latency must be a finite number >= 0, got -1"),
	C("simulate latency inf", c_sim_latency_inf, TESSEL_ERANGE, "tessel_simulate: latency must be a finite number >= 0, got inf"),
	C("simulate durations count 3", c_sim_count, TESSEL_EINVAL, "tessel_simulate: 3 durations given for 2 blocks"),
	C("simulate duration -1", c_sim_negative, TESSEL_ERANGE, "tessel_simulate: duration of block 1 (\"b\") must be a finite number > 0, got -1"),
	C("simulate NULL schedule", c_sim_null, TESSEL_EINVAL, "tessel_simulate: schedule is NULL"),
	C("simulation_get NULL", c_sim_get_null, TESSEL_EINVAL, "tessel_simulation_get: simulation is NULL"),
	C("durations unknown block", c_dur_unknown, TESSEL_ENOTFOUND, "\"zz\": no block of that name in the placement"),
	C("durations negative", c_dur_negative, TESSEL_ERANGE, "\"a\": the duration must be a number > 0, got -1"),
	C("durations a string", c_dur_string, TESSEL_EPARSE, "\"a\": the duration must be a number, not a string"),
	C("durations NULL text", c_dur_null_text, TESSEL_EINVAL, "tessel_durations_from_json: text is NULL"),
	C("durations NUL byte after a number", c_dur_nul, TESSEL_EPARSE, "NUL byte at offset"),
	C("reference_json NULL placement", c_reference_null, TESSEL_EINVAL, "tessel_schedule_from_reference_json: placement is NULL"),
	C("reference_json wrong type", c_reference_garbage, TESSEL_EPARSE, "\"ndevs\" must be an integer, not a string"),

	/* options: every one out of range */
	O("micro-batches 0", TESSEL_OPT_MICRO_BATCHES, 0, TESSEL_ERANGE, "option micro-batches must be 1 .. 1000000, got 0"),
	O("micro-batches 1000001", TESSEL_OPT_MICRO_BATCHES, 1000001, TESSEL_ERANGE, "option micro-batches must be 1 .. 1000000, got 1000001"),
	O("time limit -1", TESSEL_OPT_TIME_LIMIT_MS, -1, TESSEL_ERANGE, "option time limit (ms) must be 0 .. 86400000, got -1"),
	O("time limit 86400001", TESSEL_OPT_TIME_LIMIT_MS, 86400001, TESSEL_ERANGE, "option time limit (ms) must be 0 .. 86400000, got 86400001"),
	O("threads -1", TESSEL_OPT_THREADS, -1, TESSEL_ERANGE, "option threads must be 0 .. 256, got -1"),
	O("threads 257", TESSEL_OPT_THREADS, 257, TESSEL_ERANGE, "option threads must be 0 .. 256, got 257"),
	O("fast 2", TESSEL_OPT_FAST, 2, TESSEL_ERANGE, "option fast must be 0 .. 1, got 2"),
	O("fast -1", TESSEL_OPT_FAST, -1, TESSEL_ERANGE, "option fast must be 0 .. 1, got -1"),
	O("max period -1", TESSEL_OPT_MAX_PERIOD, -1, TESSEL_ERANGE, "option max period must be 0 .. 1099511627776, got -1"),
	O("max period INT64_MAX", TESSEL_OPT_MAX_PERIOD, INT64_MAX, TESSEL_ERANGE, "option max period must be 0 .. 1099511627776, got 9223372036854775807"),
	O("seed -1", TESSEL_OPT_SEED, -1, TESSEL_ERANGE, "option seed must be 0 .. 4294967295, got -1"),
	O("seed INT64_MAX", TESSEL_OPT_SEED, INT64_MAX, TESSEL_ERANGE, "option seed must be 0 .. 4294967295, got 9223372036854775807"),
	O("minimize depth 2", TESSEL_OPT_MINIMIZE_DEPTH, 2, TESSEL_ERANGE, "option minimize depth must be 0 .. 1, got 2"),
	O("minimize depth -1", TESSEL_OPT_MINIMIZE_DEPTH, -1, TESSEL_ERANGE, "option minimize depth must be 0 .. 1, got -1"),
	O("solver memory -1", TESSEL_OPT_SOLVER_MEMORY_MB, -1, TESSEL_ERANGE, "option solver memory (MB) must be 0 .. 1073741824, got -1"),
	O("solver memory INT64_MAX", TESSEL_OPT_SOLVER_MEMORY_MB, INT64_MAX, TESSEL_ERANGE, "option solver memory (MB) must be 0 .. 1073741824, got 9223372036854775807"),
	O("unknown key 99", (tessel_option)99, 1, TESSEL_EINVAL, "unknown option key 99"),
	O("unknown key -1", (tessel_option)-1, 1, TESSEL_EINVAL, "unknown option key -1"),
};

#define NROWS (sizeof catalogue / sizeof catalogue[0])

/* Run one row; returns its rc. */
static int run_row(const struct row *r)
{
	char *owned = NULL;
	const char *text = r->text;
	size_t len = r->len;
	int rc;

	if (r->kind == K_PLACEMENT || r->kind == K_SCHEDULE) {
		if (r->gen) {
			owned = r->gen(&len);
			text = owned;
		} else if (r->from) {
			owned = th_replace_first(base_schedule, r->from, r->to);
			text = owned;
			len = strlen(text);
		} else if (!len) {
			len = strlen(text);
		}
	}
	switch (r->kind) {
	case K_PLACEMENT: {
		tessel_graph *g = BAD_PTR;
		rc = tessel_graph_from_json(&g, text, len);
		if (rc == TESSEL_OK) {
			assert_non_null(g);
			assert_true(g != BAD_PTR);
			tessel_graph_free(g);
		} else {
			OUT_NULL(g);
		}
		break;
	}
	case K_SCHEDULE: {
		tessel_schedule *s = BAD_PTR;
		rc = tessel_schedule_from_json(&s, text, len);
		if (rc == TESSEL_OK) {
			assert_non_null(s);
			assert_true(s != BAD_PTR);
			tessel_schedule_free(s);
		} else {
			OUT_NULL(s);
		}
		break;
	}
	case K_CALLS:
		rc = r->calls();
		break;
	default: {
		tessel_options *o = NULL;
		int64_t before = -77, after = -77;
		TH_OK(tessel_options_new(&o));
		int known = tessel_options_get(&before, o, r->key) == TESSEL_OK;
		tessel_error_clear();
		rc = tessel_options_set(o, r->key, r->value);
		if (known) {
			/* a refused value leaves the option as it was */
			TH_OK(tessel_options_get(&after, o, r->key));
			if (rc != TESSEL_OK)
				assert_int_equal(before, after);
			/* restore the error for the checks that follow */
			(void)tessel_options_set(o, r->key, r->value);
		}
		tessel_options_free(o);
		break;
	}
	}
	free(owned);
	return rc;
}

static void test_catalogue(void **state)
{
	(void)state;
	size_t nspecial = 0;
	assert_true(NROWS >= 50);
	for (size_t i = 0; i < NROWS; i++) {
		const struct row *r = &catalogue[i];
		current = r;
		/* the rows of 10^5 blocks run the code of the smaller ones
		 * at size: not under a slow checker */
		if (th_under_checker() && strncmp(r->desc, "10^5 ", 5) == 0)
			continue;
		tessel_error_clear();
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		int rc = run_row(r);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double secs = (double)(t1.tv_sec - t0.tv_sec) +
			      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		const char *msg = tessel_error_last();
		assert_non_null(msg);
		if (discover()) {
			printf("[%zu] %s (%s): %d %s \"%s\" %.3fs\n", i, r->desc,
			       kind_names[r->kind], rc, tessel_strerror(rc), msg, secs);
			continue;
		}
		/* generous: the slowest rows parse 10^5 blocks */
		double limit = th_under_checker() ? 600.0 : 30.0;
		if (rc != r->code ||
		    (r->code != TESSEL_OK &&
		     (!strstr(msg, r->fragment) ||
		      tessel_error_last_code() != r->code)) ||
		    secs > limit) {
			print_error("row %zu \"%s\" (%s): got %d (%s) \"%s\" in %.2fs, "
				    "wanted %d (%s) with \"%s\"\n", i, r->desc,
				    kind_names[r->kind], rc, tessel_strerror(rc), msg,
				    secs, r->code, tessel_strerror(r->code),
				    r->fragment ? r->fragment : "");
			fail();
		}
		if (r->code == TESSEL_OK)
			nspecial++;
	}
	current = NULL;
	if (discover())
		fail_msg("--discover: %zu rows printed, none checked", NROWS);
	print_message("%zu catalogue rows (%zu expected to succeed)\n",
		      NROWS, nspecial);
}

static int setup(void **state)
{
	(void)state;
	tessel_schedule *s = two_schedule();
	if (tessel_schedule_to_json(&base_schedule, s) != TESSEL_OK)
		return -1;
	tessel_schedule_free(s);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tessel_free(base_schedule);
	base_schedule = NULL;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--discover"))) {
		fprintf(stderr, "usage: test-catalogue [--discover]\n");
		return 2;
	}
	discover_mode = argc == 2;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalogue),
	};
	return cmocka_run_group_tests_name("catalogue", tests, setup, teardown);
}
