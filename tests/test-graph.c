/* The graph API: building, validation errors, accessors, bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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
	TH_OK(tessel_graph_add_dep(g, 3, 1)); /* b0 -> f1 closes a cycle */
	th_expect_error(tessel_graph_add_dep(g, 3, 1), TESSEL_EEXISTS, "already");
	int rc = tessel_graph_validate(g);
	assert_int_equal(rc, TESSEL_ECYCLE);
	const char *msg = tessel_error_last();
	assert_true(strstr(msg, "\"f1\"") || strstr(msg, "\"b1\"") ||
		    strstr(msg, "\"b0\""));
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

static void test_many_blocks(void **state)
{
	(void)state;
	/* a long chain: name lookup and topological order stay fast */
	int n = th_under_valgrind() ? 2000 : 100000;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_and_read),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_empty_graph),
		cmocka_unit_test(test_cycle_named),
		cmocka_unit_test(test_memory_below_one_micro_batch),
		cmocka_unit_test(test_many_blocks),
		cmocka_unit_test(test_errors_and_version),
	};
	return cmocka_run_group_tests_name("graph", tests, NULL, NULL);
}
