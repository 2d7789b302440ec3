/* Allocation failure injection (white box: links libtessel_internal and
 * uses the internal hooks tsl_alloc_fail_site and tsl_alloc_fail_after of
 * lib/common/util.h). For each operation, the first allocation of every
 * allocating statement it reaches fails in turn, then the n-th allocation
 * through the library's wrappers for n = 0, 1, 2, ... (spread out past
 * the first few hundred) until the operation no longer reaches it: every
 * failing run must return an error (never success with a wrong result),
 * set its pointer out-parameter to NULL and leak nothing (run it under
 * AddressSanitizer, as scripts/check.sh --full does). Allocations of
 * jansson and Z3 themselves are not hooked. */
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
#include "util.h"

static tessel_graph *vshape4;       /* tests/data/vshape-4dev.json */
static char *vshape4_text;
static size_t vshape4_len;
static tessel_schedule *sched4;     /* a fast schedule of vshape4, N = 4 */
static char *sched4_json;
static tessel_options *fast_opts, *solver_opts, *group_opts;
static tessel_graph *xshape4, *xshape8; /* memory 4 and 6 (tight) */
static tessel_graph *vshape4_mem3;      /* memory 3: below the 1F1B need */

/* One operation: run() does the work under injection and stores its
 * result in *out; canon() describes a result as text (malloc, compared
 * with the run without injection) and releases it. */
struct op {
	const char *name;
	int (*run)(void **out);
	char *(*canon)(void *out);
};

static char *dup_text(char *t)
{
	char *d = strdup(t);
	assert_non_null(d);
	tessel_free(t);
	return d;
}

static char *graph_canon(void *p)
{
	char *t = NULL;
	TH_OK(tessel_graph_to_json(&t, p));
	tessel_graph_free(p);
	return dup_text(t);
}

/* Figures and the per-device grid, without the search time. */
static char *sched_canon(void *p)
{
	tessel_schedule *s = p;
	char *t = NULL, *out;
	size_t cap;
	TH_OK(tessel_schedule_to_json(&t, s));
	/* drop the lines with the search time and the work spent (a
	 * phase that recovers from a failed allocation spends less) */
	static const char *const dropped[] = {"\"search_seconds\"", "\"work\""};
	for (size_t i = 0; i < sizeof dropped / sizeof dropped[0]; i++) {
		char *at = strstr(t, dropped[i]);
		if (at) {
			char *eol = strchr(at, '\n');
			assert_non_null(eol);
			memmove(at, eol, strlen(eol) + 1);
		}
	}
	cap = strlen(t) + 256;
	out = malloc(cap);
	assert_non_null(out);
	snprintf(out, cap, "%s\nmakespan %lld period %lld\n", t,
		 (long long)th_sched(s, TESSEL_SCHED_MAKESPAN),
		 (long long)th_sched(s, TESSEL_SCHED_PERIOD));
	tessel_free(t);
	tessel_schedule_free(s);
	return out;
}

static char *text_canon(void *p)
{
	return dup_text(p);
}

static int op_preset(void **out)
{
	return tessel_preset((tessel_graph **)out, "vshape", 4, 0, 4);
}

static int op_preset_kshape(void **out)
{
	return tessel_preset((tessel_graph **)out, "kshape", 4, 1, TESSEL_UNLIMITED);
}

static int op_placement_parse(void **out)
{
	return tessel_graph_from_json((tessel_graph **)out, vshape4_text, vshape4_len);
}

static int op_graph_dup(void **out)
{
	return tessel_graph_dup((tessel_graph **)out, vshape4);
}

static int op_placement_write(void **out)
{
	return tessel_graph_to_json((char **)out, vshape4);
}

static int op_schedule_parse(void **out)
{
	return tessel_schedule_from_json((tessel_schedule **)out, sched4_json,
					 strlen(sched4_json));
}

static int op_schedule_write(void **out)
{
	return tessel_schedule_to_json((char **)out, sched4);
}

static int op_fast_search(void **out)
{
	return tessel_search((tessel_schedule **)out, vshape4, fast_opts);
}

static int op_solver_search(void **out)
{
	return tessel_search((tessel_schedule **)out, vshape4, solver_opts);
}

/* Crossing pipelines under the tightest memory: the memory-aware search
 * (heuristic mode), and a solver-mode search that the heuristics finish
 * (their schedule reaches LB(N)). */
static int op_tight_search(void **out)
{
	return tessel_search((tessel_schedule **)out, xshape8, fast_opts);
}

static int op_solver_search_x(void **out)
{
	return tessel_search((tessel_schedule **)out, xshape4, solver_opts);
}

/* A limit that forces a period above the resource bound (8 for 4): the
 * solver proves the period, lowers the depth, tries alternatives, and the
 * direct scheduling of the 4 micro-batches proves the makespan. */
/* Repetends of two micro-batches (heuristic mode): vshape under memory 3
 * has a one-micro-batch period above its bound. */
static int op_group_search(void **out)
{
	return tessel_search((tessel_schedule **)out, vshape4_mem3, group_opts);
}

static int op_solver_search_v3(void **out)
{
	return tessel_search((tessel_schedule **)out, vshape4_mem3, solver_opts);
}

/* The memory sweep: two limits, the tighter's schedule carried to the
 * looser one or the looser's checked under the tighter; the loosest
 * limit's result is the one compared (the other released). */
static int op_sweep(void **out)
{
	static const int64_t limits[] = {3, TESSEL_UNLIMITED};
	tessel_schedule *s[2] = {(tessel_schedule *)1, (tessel_schedule *)1};
	int rc = tessel_search_sweep(s, vshape4, limits, 2, fast_opts);
	if (rc && (s[0] || s[1]))
		return TESSEL_EINVAL; /* (a failure must leave every out NULL) */
	tessel_schedule_free(s[0]);
	*out = s[1];
	return rc;
}

static int op_text(void **out)
{
	return tessel_schedule_to_text((char **)out, sched4);
}

static int op_svg(void **out)
{
	return tessel_schedule_to_svg((char **)out, sched4);
}

static int op_actions(void **out)
{
	return tessel_schedule_to_actions_json((char **)out, sched4);
}

/* One run of `op` with an injected failure armed (by count or by site):
 * 1 when the run did not reach it (the last run needed), else 0. Checks
 * the run: success means the result of the run without injection, a
 * failure is an error code with a message and a NULL out-parameter. */
static int injected_run(const struct op *op, const char *want, const char *how,
			long n, long *failures, long *swallowed)
{
	void *out = (void *)1;
	tessel_error_clear();
	int rc = op->run(&out);
	int triggered = tsl_alloc_fail_triggered();
	tsl_alloc_fail_after(-1);
	if (rc == TESSEL_OK) {
		/* success must mean the right result, whether or not the
		 * failure was hit (and recovered from) */
		assert_non_null(out);
		assert_true(out != (void *)1);
		char *got = op->canon(out);
		if (strcmp(got, want) != 0) {
			print_error("%s: allocation %s %ld failed, yet it succeeded "
				    "with a different result\n", op->name, how, n);
			fail();
		}
		free(got);
		if (!triggered)
			return 1;
		(*swallowed)++;
		return 0;
	}
	if (!triggered) {
		print_error("%s: failed with %d (%s) \"%s\" without an "
			    "injected failure (%s %ld)\n", op->name, rc,
			    tessel_strerror(rc), tessel_error_last(), how, n);
		fail();
	}
	if (rc >= 0 || rc == TESSEL_ITEROVER || out != NULL ||
	    tessel_error_last()[0] == '\0') {
		print_error("%s: allocation %s %ld failed: returned %d (%s) "
			    "\"%s\", out %p\n", op->name, how, n, rc,
			    tessel_strerror(rc), tessel_error_last(), out);
		fail();
	}
	if (rc != TESSEL_ENOMEM)
		print_message("%s: allocation %s %ld failed: %d (%s) \"%s\"\n",
			      op->name, how, n, rc, tessel_strerror(rc),
			      tessel_error_last());
	(*failures)++;
	return 0;
}

/* Two passes over `op`. By site: the first allocation of every distinct
 * allocating statement it reaches fails, one run each, until a run
 * reaches no new site. By count: the n-th allocation fails for n = 0, 1,
 * ... up to TH_EVERY_COUNT (every `stride`-th), then one in each
 * 1/TH_COUNT_SPREAD of the count, until a run no longer reaches it: the
 * later occurrences of a statement (a loop's tenth allocation, the
 * search's later rounds) with its state by then. Under a slow checker
 * only the site pass runs. Returns the allocations seen. */
#define TH_EVERY_COUNT 200
#define TH_COUNT_SPREAD 32

static long exercise(const struct op *op, long stride)
{
	void *out = NULL;

	tsl_alloc_fail_after(-1);
	TH_OK(op->run(&out));
	assert_non_null(out);
	char *want = op->canon(out);

	long failures = 0, swallowed = 0, sites, n = 0, tried = 0;
	for (sites = 0;; sites++) {
		tsl_alloc_fail_site(sites);
		if (injected_run(op, want, "at new site", sites, &failures, &swallowed))
			break;
	}
	if (!th_under_checker())
		for (n = 0;; n += n < TH_EVERY_COUNT ? stride : n / TH_COUNT_SPREAD,
		     tried++) {
			tsl_alloc_fail_after(n);
			if (injected_run(op, want, "number", n, &failures, &swallowed))
				break;
		}
	print_message("%-18s %4ld allocating statements, %5ld allocations (%ld "
		      "failed by count); %ld failed cleanly, %ld recovered\n",
		      op->name, sites, n, tried, failures, swallowed);
	free(want);
	return sites;
}

static const struct op ops[] = {
	{ "preset vshape", op_preset, graph_canon },
	{ "preset kshape", op_preset_kshape, graph_canon },
	{ "placement parse", op_placement_parse, graph_canon },
	{ "graph dup", op_graph_dup, graph_canon },
	{ "placement write", op_placement_write, text_canon },
	{ "schedule parse", op_schedule_parse, sched_canon },
	{ "schedule write", op_schedule_write, text_canon },
	{ "fast search", op_fast_search, sched_canon },
	{ "memory sweep", op_sweep, sched_canon },
	{ "text export", op_text, text_canon },
	{ "svg export", op_svg, text_canon },
	{ "actions export", op_actions, text_canon },
	{ "solver search", op_solver_search, sched_canon },
	{ "tight search", op_tight_search, sched_canon },
	{ "solver search x", op_solver_search_x, sched_canon },
	{ "solver search v3", op_solver_search_v3, sched_canon },
	{ "group search", op_group_search, sched_canon },
};

static long total_sites;

static void run_op(const struct op *op)
{
	total_sites += exercise(op, 1);
}

#define OP_TEST(i)                                                            \
	static void test_op##i(void **state)                                  \
	{                                                                     \
		(void)state;                                                  \
		run_op(&ops[i]);                                              \
	}
OP_TEST(0) OP_TEST(1) OP_TEST(2) OP_TEST(3) OP_TEST(4) OP_TEST(5)
OP_TEST(6) OP_TEST(7) OP_TEST(8) OP_TEST(9) OP_TEST(10) OP_TEST(11)
OP_TEST(12) OP_TEST(13) OP_TEST(14) OP_TEST(15) OP_TEST(16)

/* The hook itself: n < 0 never fails, the n+1-th allocation fails once. */
static void test_hook(void **state)
{
	(void)state;
	tsl_alloc_fail_after(2);
	void *a = tsl_malloc(8), *b = tsl_calloc(2, 4);
	assert_false(tsl_alloc_fail_triggered());
	void *c = tsl_strdup("x");
	assert_null(c);
	assert_true(tsl_alloc_fail_triggered());
	void *d = tsl_realloc(NULL, 4);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(d);
	tsl_alloc_fail_after(0);
	tsl_buf buf;
	tsl_buf_init(&buf);
	tsl_buf_puts(&buf, "hello");
	assert_null(tsl_buf_take(&buf));
	tsl_alloc_fail_after(0);
	assert_null(tsl_reallocarray(NULL, 3, 3));
	tsl_alloc_fail_after(-5);
	void *e = tsl_reallocarray(NULL, 3, 3);
	assert_non_null(e);
	assert_false(tsl_alloc_fail_triggered());
	tsl_free(a);
	tsl_free(b);
	tsl_free(d);
	tsl_free(e);
}

static int setup(void **state)
{
	(void)state;
	tsl_alloc_fail_after(-1);
	vshape4_text = th_read_file(th_data_path("vshape-4dev.json"), &vshape4_len);
	if (!vshape4_text)
		return -1;
	if (tessel_graph_from_json(&vshape4, vshape4_text, vshape4_len) ||
	    tessel_options_new(&fast_opts) || tessel_options_new(&solver_opts) ||
	    tessel_options_set(fast_opts, TESSEL_OPT_FAST, 1) ||
	    tessel_options_set(fast_opts, TESSEL_OPT_MICRO_BATCHES, 4) ||
	    tessel_options_set(fast_opts, TESSEL_OPT_THREADS, 1) ||
	    tessel_options_set(solver_opts, TESSEL_OPT_MICRO_BATCHES, 4) ||
	    tessel_options_set(solver_opts, TESSEL_OPT_THREADS, 1) ||
	    /* one micro-batch per repetend here (each failure point costs a
	     * search); the groups have their own case below */
	    tessel_options_set(solver_opts, TESSEL_OPT_REPETEND_MICRO_BATCHES, 1) ||
	    tessel_options_set(fast_opts, TESSEL_OPT_REPETEND_MICRO_BATCHES, 1) ||
	    tessel_options_new(&group_opts) ||
	    tessel_options_set(group_opts, TESSEL_OPT_FAST, 1) ||
	    tessel_options_set(group_opts, TESSEL_OPT_MICRO_BATCHES, 4) ||
	    tessel_options_set(group_opts, TESSEL_OPT_THREADS, 1) ||
	    tessel_options_set(group_opts, TESSEL_OPT_REPETEND_MICRO_BATCHES, 2) ||
	    tessel_preset(&xshape4, "xshape", 4, 0, 4) ||
	    tessel_preset(&vshape4_mem3, "vshape", 4, 0, 3) ||
	    tessel_preset(&xshape8, "xshape", 8, 0, 6) ||
	    tessel_search(&sched4, vshape4, fast_opts) ||
	    tessel_schedule_to_json(&sched4_json, sched4))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tsl_alloc_fail_after(-1);
	print_message("%ld allocating statements exercised in all\n", total_sites);
	tessel_free(sched4_json);
	tessel_schedule_free(sched4);
	tessel_options_free(fast_opts);
	tessel_options_free(solver_opts);
	tessel_options_free(group_opts);
	tessel_graph_free(vshape4);
	tessel_graph_free(xshape4);
	tessel_graph_free(vshape4_mem3);
	tessel_graph_free(xshape8);
	free(vshape4_text);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hook),
		cmocka_unit_test(test_op0), cmocka_unit_test(test_op1),
		cmocka_unit_test(test_op2), cmocka_unit_test(test_op3),
		cmocka_unit_test(test_op4), cmocka_unit_test(test_op5),
		cmocka_unit_test(test_op6), cmocka_unit_test(test_op7),
		cmocka_unit_test(test_op8), cmocka_unit_test(test_op9),
		cmocka_unit_test(test_op10), cmocka_unit_test(test_op11),
		cmocka_unit_test(test_op12), cmocka_unit_test(test_op13),
		cmocka_unit_test(test_op14), cmocka_unit_test(test_op15),
		cmocka_unit_test(test_op16),
	};
	return cmocka_run_group_tests_name("alloc", tests, setup, teardown);
}
