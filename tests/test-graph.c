/* The graph API: building, validation errors, accessors, bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "helpers.h"
#include "tessel.h"

/* A 2-device pipeline: f0 (dev 0) -> f1 (dev 1) -> b1 (dev 1) -> b0 (dev 0). */
static tessel_graph *small_pipeline(void)
{
	const char *names[] = {"f0", "f1", "b1", "b0"};
	const int dev[] = {0, 1, 1, 0}, span[] = {1, 1, 3, 3}, mem[] = {1, 1, -1, -1};
	const tessel_kind kind[] = {TESSEL_KIND_FORWARD, TESSEL_KIND_FORWARD, TESSEL_KIND_BACKWARD, TESSEL_KIND_BACKWARD};
	return th_chain(2, 4, names, dev, kind, span, mem);
}

static void test_build_and_read(void **state)
{
	(void)state;
	tessel_graph *g = small_pipeline();
	int64_t v;
	TH_OK(tessel_graph_validate(g));
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_NDEVICES));
	assert_int_equal(v, 2);
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_NBLOCKS));
	assert_int_equal(v, 4);
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_RESOURCE_BOUND));
	assert_int_equal(v, 4);
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_CRITICAL_PATH));
	assert_int_equal(v, 8);
	TH_OK(tessel_graph_block_get(&v, g, 2, TESSEL_BLOCK_SPAN));
	assert_int_equal(v, 3);
	TH_OK(tessel_graph_block_get(&v, g, 3, TESSEL_BLOCK_MEMORY));
	assert_int_equal(v, -1);
	TH_OK(tessel_graph_block_get(&v, g, 3, TESSEL_BLOCK_KIND));
	assert_int_equal(v, TESSEL_KIND_BACKWARD);
	TH_OK(tessel_graph_block_get(&v, g, 3, TESSEL_BLOCK_NDEPS));
	assert_int_equal(v, 1);
	TH_OK(tessel_graph_block_get(&v, g, 3, TESSEL_BLOCK_STAGE));
	assert_int_equal(v, -1);
	int x;
	TH_OK(tessel_graph_block_dep(&x, g, 3, 0));
	assert_int_equal(x, 2);
	TH_OK(tessel_graph_block_device(&x, g, 3, 0));
	assert_int_equal(x, 0);
	const char *name;
	TH_OK(tessel_graph_block_name(&name, g, 2));
	assert_string_equal(name, "b1");
	TH_OK(tessel_graph_find(&x, g, "b0"));
	assert_int_equal(x, 3);
	th_expect_error(tessel_graph_find(&x, g, "nope"), TESSEL_ENOTFOUND, "nope");
	/* LB(N): device 1 has head 1, load 4 per micro-batch, tail 3 */
	TH_OK(tessel_graph_lower_bound(&v, g, 4));
	assert_int_equal(v, 1 + 16 + 3);
	TH_OK(tessel_graph_memory_limit(&v, g, 1));
	assert_int_equal(v, TESSEL_UNLIMITED);
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, 2));
	TH_OK(tessel_graph_set_memory_limit(g, 1, 3));
	TH_OK(tessel_graph_memory_limit(&v, g, 0));
	assert_int_equal(v, 2);
	TH_OK(tessel_graph_memory_limit(&v, g, 1));
	assert_int_equal(v, 3);

	tessel_graph *copy = NULL;
	TH_OK(tessel_graph_dup(&copy, g));
	TH_OK(tessel_graph_find(&x, copy, "f1"));
	assert_int_equal(x, 1);
	TH_OK(tessel_graph_memory_limit(&v, copy, 1));
	assert_int_equal(v, 3);
	tessel_graph_free(copy);
	tessel_graph_free(g);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	th_expect_error(tessel_graph_new(&g, 0), TESSEL_ERANGE, "devices");
	assert_null(g);
	th_expect_error(tessel_graph_new(NULL, 2), TESSEL_EINVAL, "out");
	TH_OK(tessel_graph_new(&g, 2));
	int gid, dev = 0, two[2] = {1, 1}, bad = 2;
	th_expect_error(tessel_graph_add_block(&gid, g, "", TESSEL_KIND_FORWARD, 1, 0),
		     TESSEL_EINVAL, "name");
	th_expect_error(tessel_graph_add_block(&gid, g, NULL, TESSEL_KIND_FORWARD, 1, 0),
		     TESSEL_EINVAL, "name");
	th_expect_error(tessel_graph_add_block(&gid, g, "a", TESSEL_KIND_FORWARD, 0, 0),
		     TESSEL_ERANGE, "span");
	th_expect_error(tessel_graph_add_block(&gid, g, "a", (tessel_kind)7, 1, 0),
		     TESSEL_EINVAL, "kind");
	th_expect_error(tessel_graph_add_block(&gid, g, "a", TESSEL_KIND_FORWARD, 1,
					    TESSEL_MAX_MEMORY + 1),
		     TESSEL_ERANGE, "memory");
	TH_OK(tessel_graph_add_block(&gid, g, "a", TESSEL_KIND_FORWARD, 1, 1));
	th_expect_error(tessel_graph_add_block(NULL, g, "a", TESSEL_KIND_FORWARD, 1, 1),
		     TESSEL_EEXISTS, "\"a\"");
	th_expect_error(tessel_graph_validate(g), TESSEL_EINVAL, "not placed");
	th_expect_error(tessel_graph_place(g, gid, &bad, 1), TESSEL_EINVAL,
		     "unknown device 2");
	th_expect_error(tessel_graph_place(g, gid, two, 2), TESSEL_EINVAL, "twice");
	th_expect_error(tessel_graph_place(g, gid, NULL, 0), TESSEL_EINVAL, "empty");
	th_expect_error(tessel_graph_place(g, 5, &dev, 1), TESSEL_ENOTFOUND, "5");
	TH_OK(tessel_graph_place(g, gid, &dev, 1));
	th_expect_error(tessel_graph_add_dep(g, 0, 0), TESSEL_ECYCLE, "itself");
	th_expect_error(tessel_graph_add_dep(g, 0, 3), TESSEL_ENOTFOUND, "3");
	th_expect_error(tessel_graph_set_memory_limit(g, 9, 1), TESSEL_ENOTFOUND,
		     "device 9");
	th_expect_error(tessel_graph_set_memory_limit(g, 0, -5), TESSEL_ERANGE, "-5");
	th_expect_error(tessel_graph_set_stage(g, 0, -2), TESSEL_ERANGE, "stage");
	int64_t v;
	th_expect_error(tessel_graph_get(&v, NULL, TESSEL_GRAPH_NBLOCKS), TESSEL_EINVAL,
		     "graph");
	th_expect_error(tessel_graph_get(&v, g, (tessel_graph_attr)99), TESSEL_EINVAL,
		     "attribute");
	th_expect_error(tessel_graph_block_get(&v, g, 0, (tessel_block_attr)99),
		     TESSEL_EINVAL, "attribute");
	th_expect_error(tessel_graph_lower_bound(&v, g, 0), TESSEL_ERANGE,
		     "micro-batches");
	tessel_graph_free(g);
	tessel_graph_free(NULL);
}

static void test_empty_graph(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 3));
	th_expect_error(tessel_graph_validate(g), TESSEL_EINVAL, "no blocks");
	tessel_graph_free(g);
}

static void test_cycle_named(void **state)
{
	(void)state;
	tessel_graph *g = small_pipeline();
	/* b0 -> f1 would close a cycle: refused, nothing added */
	th_expect_error(tessel_graph_add_dep(g, 3, 1), TESSEL_ECYCLE,
			"dependency \"b0\" -> \"f1\" closes a cycle");
	TH_OK(tessel_graph_validate(g));
	tessel_graph_free(g);
	/* beyond the walk of add_dep (4096 blocks), validation finds it: a
	 * chain of 6000 blocks closed from its end to its start */
	enum { LONG = 6000 };
	TH_OK(tessel_graph_new(&g, 1));
	const int dev0 = 0;
	for (int i = 0; i < LONG; i++) {
		char name[16];
		int gid = -1;
		snprintf(name, sizeof name, "c%d", i);
		TH_OK(tessel_graph_add_block(&gid, g, name, TESSEL_KIND_FORWARD, 1, 0));
		TH_OK(tessel_graph_place(g, gid, &dev0, 1));
		if (i)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	TH_OK(tessel_graph_add_dep(g, 1, 10)); /* a shortcut, no cycle */
	th_expect_error(tessel_graph_add_dep(g, 100, 50), TESSEL_ECYCLE,
			"closes a cycle");
	TH_OK(tessel_graph_add_dep(g, LONG - 1, 0)); /* beyond the walk */
	int rc = tessel_graph_validate(g);
	assert_int_equal(rc, TESSEL_ECYCLE);
	assert_non_null(strstr(tessel_error_last(), "dependency cycle"));
	tessel_graph_free(g);
}

/* A block of graph g on device d with memory delta mem after `after`
 * (-1: none); its gid. */
static int add_on(tessel_graph *g, const char *name, int d, int mem, int after)
{
	int gid = -1;
	TH_OK(tessel_graph_add_block(&gid, g, name, TESSEL_KIND_FORWARD, 1, mem));
	TH_OK(tessel_graph_place(g, gid, &d, 1));
	if (after >= 0)
		TH_OK(tessel_graph_add_dep(g, after, gid));
	return gid;
}

/* tessel_graph_min_memory: the least memory of one micro-batch at a time,
 * and a search under it that finds a schedule within it. */
static void test_min_memory_any_schedule(void **state)
{
	(void)state;
	int64_t limit = -1;
	int proven = -1;
	/* two branches, each taking 2 then freeing it, then a join: one
	 * branch after the other needs 2 (both first would need 4) */
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 1));
	int root = add_on(g, "root", 0, 0, -1);
	int a1 = add_on(g, "a1", 0, 2, root);
	int a2 = add_on(g, "a2", 0, -2, a1);
	int b1 = add_on(g, "b1", 0, 2, root);
	int b2 = add_on(g, "b2", 0, -2, b1);
	int join = add_on(g, "join", 0, 0, a2);
	TH_OK(tessel_graph_add_dep(g, b2, join));
	TH_OK(tessel_graph_min_memory(&limit, &proven, g, 4));
	assert_int_equal(limit, 2);
	/* (not proven: the lower bound lets b2 free memory before b1 took
	 * it) */
	assert_int_equal(proven, 0);
	/* the graph's own limit is ignored */
	TH_OK(tessel_graph_set_memory_limit(g, 0, 100));
	TH_OK(tessel_graph_min_memory(&limit, NULL, g, 4));
	assert_int_equal(limit, 2);
	/* and the search under it finds a schedule within it */
	TH_OK(tessel_graph_set_memory_limit(g, 0, limit));
	tessel_options *o = NULL;
	tessel_schedule *s = NULL;
	TH_OK(tessel_options_new(&o));
	TH_OK(tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, 4));
	TH_OK(tessel_options_set(o, TESSEL_OPT_FAST, 1));
	TH_OK(tessel_search(&s, g, o));
	int64_t peak = -1;
	TH_OK(tessel_schedule_peak_memory(&peak, s, 0));
	assert_true(peak <= 2);
	tessel_schedule_free(s);
	tessel_options_free(o);
	tessel_graph_free(g);

	/* memory left behind by every micro-batch: 3 for one, 3 more each */
	TH_OK(tessel_graph_new(&g, 2));
	int x = add_on(g, "x", 0, 3, -1);
	add_on(g, "y", 1, 1, x);
	TH_OK(tessel_graph_min_memory(&limit, &proven, g, 1));
	assert_int_equal(limit, 3);
	TH_OK(tessel_graph_min_memory(&limit, &proven, g, 5));
	assert_int_equal(limit, 15);
	assert_int_equal(proven, 1);
	/* nothing stored: 0 */
	tessel_graph_free(g);
	TH_OK(tessel_graph_new(&g, 1));
	add_on(g, "free", 0, -5, -1);
	TH_OK(tessel_graph_min_memory(&limit, &proven, g, 3));
	assert_int_equal(limit, 0);
	assert_int_equal(proven, 1);
	th_expect_error(tessel_graph_min_memory(&limit, NULL, g, 0), TESSEL_ERANGE,
			"micro-batches");
	tessel_graph_free(g);
}

static void test_memory_below_one_micro_batch(void **state)
{
	(void)state;
	tessel_graph *g = small_pipeline();
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, 1));
	TH_OK(tessel_graph_validate(g));
	TH_OK(tessel_graph_set_memory_limit(g, 1, 0));
	th_expect_error(tessel_graph_validate(g), TESSEL_EINFEASIBLE, "device 1");
	assert_non_null(strstr(tessel_error_last(), "\"f1\""));
	tessel_graph_free(g);

	/* two forwards on device 0 before their backwards need 2 */
	TH_OK(tessel_graph_new(&g, 2));
	int d0 = 0, d1 = 1, gid;
	const char *names[] = {"a", "b", "c", "d"};
	const int devs[] = {0, 0, 1, 0};
	const int mem[] = {1, 1, 0, -2};
	for (int i = 0; i < 4; i++) {
		TH_OK(tessel_graph_add_block(&gid, g, names[i], TESSEL_KIND_FORWARD, 1,
					     mem[i]));
		TH_OK(tessel_graph_place(g, gid, devs[i] ? &d1 : &d0, 1));
		if (i)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	TH_OK(tessel_graph_set_memory_limit(g, 0, 1));
	th_expect_error(tessel_graph_validate(g), TESSEL_EINFEASIBLE, "\"b\"");
	TH_OK(tessel_graph_set_memory_limit(g, 0, 2));
	TH_OK(tessel_graph_validate(g));
	tessel_graph_free(g);
}

/* Past 4,096 blocks the bound is still exact (each device's blocks'
 * ancestors among them): a chain of 3,000 forwards (+1 each) round 512
 * devices, then its backwards (-1 each), holds 6 on device 0 once its
 * sixth forward starts. */
/* A block that takes memory and is needed only late (as a reload before
 * its backward) comes just before the block that needs it: r, ready with
 * f2 and ranked before it (by position, by delta and as the last ready),
 * taken at once holds f1 + r + f2 = 4; the mirrored orders hold 3 (f1, f2,
 * b2, r, b1), the bound. */
static void test_min_memory_takes_late(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 1));
	int f1 = add_on(g, "f1", 0, 1, -1);
	int c = add_on(g, "c", 0, 0, f1);
	int a = add_on(g, "a", 0, 0, f1);
	int r = add_on(g, "r", 0, 1, c);
	int f2 = add_on(g, "f2", 0, 2, a);
	int b2 = add_on(g, "b2", 0, -2, f2);
	int b1 = add_on(g, "b1", 0, -1, b2);
	TH_OK(tessel_graph_add_dep(g, r, b1));
	(void)add_on(g, "b0", 0, -1, b1);
	int64_t limit = -1;
	int proven = -1;
	TH_OK(tessel_graph_min_memory(&limit, &proven, g, 1));
	assert_int_equal(limit, 3);
	assert_int_equal(proven, 1);
	tessel_graph_free(g);
}

static void test_memory_need_past_4096_blocks(void **state)
{
	(void)state;
	enum { L = 3000, D = 512 };
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, D));
	char name[32];
	for (int i = 0; i < 2 * L; i++) {
		int fwd = i < L, k = fwd ? i : 2 * L - 1 - i, d = k % D, gid;
		snprintf(name, sizeof name, "%c%d", fwd ? 'f' : 'b', k);
		TH_OK(tessel_graph_add_block(&gid, g, name,
					     fwd ? TESSEL_KIND_FORWARD : TESSEL_KIND_BACKWARD,
					     1, fwd ? 1 : -1));
		TH_OK(tessel_graph_place(g, gid, &d, 1));
		if (i)
			TH_OK(tessel_graph_add_dep(g, gid - 1, gid));
	}
	TH_OK(tessel_graph_set_memory_limit(g, 0, 5));
	th_expect_error(tessel_graph_validate(g), TESSEL_EINFEASIBLE,
			"below the 6 that one micro-batch needs");
	assert_non_null(strstr(tessel_error_last(), "\"f2560\""));
	int64_t limit = 0;
	int proven = 0;
	TH_OK(tessel_graph_min_memory(&limit, &proven, g, 1));
	assert_int_equal(limit, 6);
	assert_int_equal(proven, 1);
	TH_OK(tessel_graph_set_memory_limit(g, 0, 6));
	TH_OK(tessel_graph_validate(g));
	tessel_graph_free(g);
}

static void test_many_blocks(void **state)
{
	(void)state;
	/* a long chain: name lookup and topological order stay fast */
	int n = th_under_checker() ? 2000 : 100000;
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 8));
	char name[32];
	for (int i = 0; i < n; i++) {
		int gid, d = i % 8;
		snprintf(name, sizeof name, "blk%d", i);
		TH_OK(tessel_graph_add_block(&gid, g, name, TESSEL_KIND_FORWARD, 1, 0));
		TH_OK(tessel_graph_place(g, gid, &d, 1));
		if (i)
			TH_OK(tessel_graph_add_dep(g, gid - 1, gid));
	}
	int x;
	snprintf(name, sizeof name, "blk%d", n - 1);
	TH_OK(tessel_graph_find(&x, g, name));
	assert_int_equal(x, n - 1);
	int64_t v;
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_CRITICAL_PATH));
	assert_int_equal(v, n);
	TH_OK(tessel_graph_validate(g));
	tessel_graph_free(g);
}

static void test_errors_and_version(void **state)
{
	(void)state;
	assert_string_equal(tessel_version(), TESSEL_VERSION_STRING);
	assert_int_equal(tessel_version_number(), TESSEL_VERSION_NUMBER);
	assert_int_equal(tessel_version_number(),
			 TESSEL_VERSION_MAJOR * 10000 + TESSEL_VERSION_MINOR * 100 +
				 TESSEL_VERSION_PATCH);
	tessel_error_clear();
	assert_string_equal(tessel_error_last(), "");
	assert_int_equal(tessel_error_last_code(), TESSEL_OK);
	tessel_graph *g = NULL;
	assert_int_equal(tessel_graph_new(&g, -1), TESSEL_ERANGE);
	assert_int_equal(tessel_error_last_code(), TESSEL_ERANGE);
	assert_string_equal(tessel_strerror(TESSEL_EINFEASIBLE),
			    "no schedule satisfies the memory limits");
	assert_non_null(tessel_strerror(12345));
	tessel_free(NULL);
}

/* Step, durations and latencies in the step's unit. */
static void test_step_and_durations(void **state)
{
	(void)state;
	tessel_graph *g = small_pipeline();
	double d;
	int given = -1, own = -1;
	int64_t v;

	TH_OK(tessel_graph_step(&d, g));
	assert_true(d == 0);
	/* without a step, times cannot be given */
	th_expect_error(tessel_graph_set_block_duration(g, 0, 1.5), TESSEL_EINVAL,
			"no step");
	th_expect_error(tessel_graph_set_latency_time(g, 0.5), TESSEL_EINVAL,
			"no step");
	th_expect_error(tessel_graph_add_dep_latency_time(g, 0, 3, 0.5),
			TESSEL_EINVAL, "no step");
	/* spans read as durations of one step each */
	TH_OK(tessel_graph_block_duration(&d, &given, g, 2));
	assert_true(d == 3);
	assert_int_equal(given, 0);

	th_expect_error(tessel_graph_set_step(g, 0), TESSEL_ERANGE, "step");
	th_expect_error(tessel_graph_set_step(g, -1), TESSEL_ERANGE, "step");
	th_expect_error(tessel_graph_set_step(g, NAN), TESSEL_ERANGE, "step");
	th_expect_error(tessel_graph_set_step(g, INFINITY), TESSEL_ERANGE, "step");
	TH_OK(tessel_graph_set_step(g, 0.1));
	TH_OK(tessel_graph_step(&d, g));
	assert_true(d == 0.1);

	/* 2.8 / 0.1 is 27.999... and 1.1 / 0.1 is 11.000...2: both whole */
	TH_OK(tessel_graph_set_block_duration(g, 0, 2.8));
	assert_int_equal(th_block(g, 0, TESSEL_BLOCK_SPAN), 28);
	TH_OK(tessel_graph_set_block_duration(g, 1, 1.1));
	assert_int_equal(th_block(g, 1, TESSEL_BLOCK_SPAN), 11);
	/* rounded up */
	TH_OK(tessel_graph_set_block_duration(g, 2, 0.31));
	assert_int_equal(th_block(g, 2, TESSEL_BLOCK_SPAN), 4);
	TH_OK(tessel_graph_set_block_duration(g, 3, 0.001));
	assert_int_equal(th_block(g, 3, TESSEL_BLOCK_SPAN), 1);
	TH_OK(tessel_graph_block_duration(&d, &given, g, 2));
	assert_true(d == 0.31);
	assert_int_equal(given, 1);
	th_expect_error(tessel_graph_set_block_duration(g, 0, 0), TESSEL_ERANGE,
			"\"f0\": duration");
	th_expect_error(tessel_graph_set_block_duration(g, 0, -1), TESSEL_ERANGE,
			"duration");
	th_expect_error(tessel_graph_set_block_duration(g, 0, NAN), TESSEL_ERANGE,
			"duration");
	th_expect_error(tessel_graph_set_block_duration(g, 0, INFINITY),
			TESSEL_ERANGE, "duration");
	th_expect_error(tessel_graph_set_block_duration(g, 0, 1e6), TESSEL_ERANGE,
			"at most 1000000");
	th_expect_error(tessel_graph_set_block_duration(g, 9, 1), TESSEL_ENOTFOUND,
			"9");
	assert_int_equal(th_block(g, 0, TESSEL_BLOCK_SPAN), 28);

	/* latencies in the unit, rounded up */
	TH_OK(tessel_graph_set_latency_time(g, 0.25));
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_LATENCY));
	assert_int_equal(v, 3);
	TH_OK(tessel_graph_latency_time(&d, g));
	assert_true(d == 0.25);
	th_expect_error(tessel_graph_set_latency_time(g, -0.5), TESSEL_ERANGE,
			"latency");
	th_expect_error(tessel_graph_set_latency_time(g, NAN), TESSEL_ERANGE,
			"latency");
	th_expect_error(tessel_graph_set_latency_time(g, 1e6), TESSEL_ERANGE,
			"latency");
	TH_OK(tessel_graph_add_dep_latency_time(g, 0, 3, 0.42));
	TH_OK(tessel_graph_block_dep_latency(&v, &own, g, 3, 1));
	assert_int_equal(v, 5);
	assert_int_equal(own, 1);
	TH_OK(tessel_graph_block_dep_latency_time(&d, &own, g, 3, 1));
	assert_true(d == 0.42);
	TH_OK(tessel_graph_block_dep_latency_time(&d, &own, g, 3, 0));
	assert_true(d == 0.25);
	assert_int_equal(own, 0);
	th_expect_error(tessel_graph_add_dep_latency_time(g, 1, 3, -1),
			TESSEL_ERANGE, "\"f1\" -> \"b0\": latency");
	th_expect_error(tessel_graph_add_dep_latency_time(g, 0, 3, 1),
			TESSEL_EEXISTS, "already");
	th_expect_error(tessel_graph_block_dep_latency_time(&d, NULL, g, 3, 2),
			TESSEL_ENOTFOUND, "index 2");
	/* in steps: as steps times the step */
	TH_OK(tessel_graph_add_dep_latency(g, 1, 3, 2));
	TH_OK(tessel_graph_block_dep_latency_time(&d, &own, g, 3, 2));
	assert_true(fabs(d - 0.2) < 1e-12);

	/* a new step rounds every time again; steps stay */
	TH_OK(tessel_graph_set_step(g, 0.2));
	assert_int_equal(th_block(g, 0, TESSEL_BLOCK_SPAN), 14);
	assert_int_equal(th_block(g, 2, TESSEL_BLOCK_SPAN), 2);
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_LATENCY));
	assert_int_equal(v, 2);
	TH_OK(tessel_graph_block_dep_latency(&v, NULL, g, 3, 1));
	assert_int_equal(v, 3);
	TH_OK(tessel_graph_block_dep_latency(&v, NULL, g, 3, 2));
	assert_int_equal(v, 2);
	/* a step that makes a span too long changes nothing */
	th_expect_error(tessel_graph_set_step(g, 1e-7), TESSEL_ERANGE, "\"f0\"");
	TH_OK(tessel_graph_step(&d, g));
	assert_true(d == 0.2);
	assert_int_equal(th_block(g, 0, TESSEL_BLOCK_SPAN), 14);

	/* the unit */
	const char *unit = "x";
	TH_OK(tessel_graph_unit(&unit, g));
	assert_null(unit);
	TH_OK(tessel_graph_set_unit(g, "ms"));
	TH_OK(tessel_graph_unit(&unit, g));
	assert_string_equal(unit, "ms");
	th_expect_error(tessel_graph_set_unit(g, "m\ns"), TESSEL_EINVAL, "control");
	th_expect_error(tessel_graph_set_unit(g, "\xff"), TESSEL_EINVAL, "UTF-8");
	th_expect_error(tessel_graph_set_unit(g, "0123456789012345678901234567890123"),
			TESSEL_EINVAL, "32 bytes");
	TH_OK(tessel_graph_unit(&unit, g));
	assert_string_equal(unit, "ms");

	/* a copy keeps everything */
	tessel_graph *copy = NULL;
	TH_OK(tessel_graph_dup(&copy, g));
	TH_OK(tessel_graph_set_unit(g, NULL));
	TH_OK(tessel_graph_unit(&unit, g));
	assert_null(unit);
	TH_OK(tessel_graph_unit(&unit, copy));
	assert_string_equal(unit, "ms");
	TH_OK(tessel_graph_step(&d, copy));
	assert_true(d == 0.2);
	TH_OK(tessel_graph_block_duration(&d, &given, copy, 0));
	assert_true(d == 2.8);
	assert_int_equal(given, 1);
	TH_OK(tessel_graph_block_dep_latency_time(&d, &own, copy, 3, 1));
	assert_true(d == 0.42);
	TH_OK(tessel_graph_latency_time(&d, copy));
	assert_true(d == 0.25);
	/* and the latency given in steps forgets the time */
	TH_OK(tessel_graph_set_latency(copy, 1));
	TH_OK(tessel_graph_latency_time(&d, copy));
	assert_true(d == 0.2);
	tessel_graph_free(copy);
	tessel_graph_free(g);
}

/* The 1 % rule of tessel_pick_step. */
static void pick_obeys(const double *v, size_t n, double step)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i] == 0)
			continue;
		double k = ceil(v[i] / step - 1e-9);
		assert_true(k >= 1);
		assert_true(k * step <= v[i] * 1.01 + 1e-12);
	}
}

static void test_pick_step(void **state)
{
	(void)state;
	double step = 0;
	/* 1 and 2: the smallest value itself */
	const double even[] = {1, 2, 3};
	TH_OK(tessel_pick_step(&step, even, 3));
	assert_true(step == 1);
	/* 1.37 and 2.81 need small steps; zeros are ignored */
	const double prof[] = {1.37, 2.81, 0.96, 0, 0.2};
	TH_OK(tessel_pick_step(&step, prof, 5));
	pick_obeys(prof, 5, step);
	/* the largest such step of the form 0.2 / k */
	int k = (int)(0.2 / step + 0.5);
	assert_true(fabs(step - 0.2 / k) < 1e-15);
	assert_true(k >= 1 && k <= 100);
	for (int j = 1; j < k; j++) {
		double s = 0.2 / j;
		int fits = 1;
		for (int i = 0; i < 5; i++) {
			if (prof[i] == 0)
				continue;
			double n = ceil(prof[i] / s - 1e-9);
			if (n * s > prof[i] * 1.01 + 1e-12)
				fits = 0;
		}
		assert_false(fits);
	}
	/* 1 and 1.5: 1 / 2 */
	const double half[] = {1, 1.5};
	TH_OK(tessel_pick_step(&step, half, 2));
	assert_true(step == 0.5);
	/* k = 100 always fits the 1 % */
	const double odd[] = {1, 1.00999, 1.0197};
	TH_OK(tessel_pick_step(&step, odd, 3));
	pick_obeys(odd, 3, step);
	/* too wide a range for the span limit */
	const double wide[] = {1e-3, 1e4};
	th_expect_error(tessel_pick_step(&step, wide, 2), TESSEL_ERANGE, "1 %");
	const double none[] = {0, 0};
	th_expect_error(tessel_pick_step(&step, none, 2), TESSEL_EINVAL, "> 0");
	const double bad[] = {1, NAN};
	th_expect_error(tessel_pick_step(&step, bad, 2), TESSEL_ERANGE, "value 1");
	const double neg[] = {-1};
	th_expect_error(tessel_pick_step(&step, neg, 1), TESSEL_ERANGE, "value 0");
	th_expect_error(tessel_pick_step(NULL, even, 3), TESSEL_EINVAL, "out");
	th_expect_error(tessel_pick_step(&step, NULL, 3), TESSEL_EINVAL, "values");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_and_read),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_empty_graph),
		cmocka_unit_test(test_cycle_named),
		cmocka_unit_test(test_memory_below_one_micro_batch),
		cmocka_unit_test(test_min_memory_any_schedule),
		cmocka_unit_test(test_min_memory_takes_late),
		cmocka_unit_test(test_memory_need_past_4096_blocks),
		cmocka_unit_test(test_many_blocks),
		cmocka_unit_test(test_errors_and_version),
		cmocka_unit_test(test_step_and_durations),
		cmocka_unit_test(test_pick_step),
	};
	return cmocka_run_group_tests_name("graph", tests, NULL, NULL);
}
