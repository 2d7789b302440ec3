/* Presets: structure of each built-in placement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "helpers.h"
#include "tessel.h"

static int64_t graph_fig(const tessel_graph *g, tessel_graph_attr a)
{
	int64_t v = -1;
	TH_OK(tessel_graph_get(&v, g, a));
	return v;
}

static void test_list(void **state)
{
	(void)state;
	const char *want[] = {"vshape", "xshape", "mshape", "nnshape", "kshape"};
	assert_int_equal(tessel_preset_count(), 5);
	for (size_t i = 0; i < 5; i++) {
		const char *name, *desc;
		TH_OK(tessel_preset_info(&name, &desc, i));
		assert_string_equal(name, want[i]);
		assert_true(strlen(desc) > 10);
	}
	assert_int_equal(tessel_preset_info(NULL, NULL, 5), TESSEL_ENOTFOUND);
}

/* Block counts and resource bounds for D devices. */
static void test_shapes(void **state)
{
	(void)state;
	for (int D = 2; D <= 64; D += 2) {
		struct {
			const char *name;
			int64_t blocks, bound, blocks_inf, bound_inf;
		} want[] = {
			{"vshape", 2 * D, 4, D, 1},
			{"xshape", 4 * D, 8, 2 * D, 2},
			{"mshape", 2 * D + 2, 6, D + 1, 2},
			{"nnshape", 2 * D + 4, 8, D + 2, 3},
			{"kshape", 2 * D + 2, 6, D + 1, 2},
		};
		for (size_t i = 0; i < 5; i++) {
			for (int infer = 0; infer <= 1; infer++) {
				tessel_graph *g = NULL;
				TH_OK(tessel_preset(&g, want[i].name, D, infer,
						    TESSEL_UNLIMITED));
				assert_int_equal(graph_fig(g, TESSEL_GRAPH_NDEVICES), D);
				assert_int_equal(graph_fig(g, TESSEL_GRAPH_NBLOCKS),
						 infer ? want[i].blocks_inf : want[i].blocks);
				assert_int_equal(graph_fig(g, TESSEL_GRAPH_RESOURCE_BOUND),
						 infer ? want[i].bound_inf : want[i].bound);
				int64_t n = graph_fig(g, TESSEL_GRAPH_NBLOCKS);
				for (int b = 0; b < n; b++) {
					if (infer) {
						assert_int_equal(th_block(g, b, TESSEL_BLOCK_MEMORY), 0);
						assert_int_equal(th_block(g, b, TESSEL_BLOCK_KIND),
								 TESSEL_KIND_FORWARD);
					}
				}
				TH_OK(tessel_graph_validate(g));
				tessel_graph_free(g);
			}
		}
	}
}

/* nnshape on 4 devices: TPf, F0, F1, TPf, F2, F3, B3, B2, TPb, B1, B0, TPb. */
static void test_nnshape_order(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_preset(&g, "nnshape", 4, 0, 6));
	const int ndev[] = {4, 1, 1, 4, 1, 1, 1, 1, 4, 1, 1, 4};
	const int dev[] = {-1, 0, 1, -1, 2, 3, 3, 2, -1, 1, 0, -1};
	const int kind[] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
	for (int b = 0; b < 12; b++) {
		assert_int_equal(th_block(g, b, TESSEL_BLOCK_NDEVICES), ndev[b]);
		assert_int_equal(th_block(g, b, TESSEL_BLOCK_KIND), kind[b]);
		if (dev[b] >= 0) {
			int d;
			TH_OK(tessel_graph_block_device(&d, g, b, 0));
			assert_int_equal(d, dev[b]);
		}
		assert_int_equal(th_block(g, b, TESSEL_BLOCK_NDEPS), b ? 1 : 0);
		if (b) {
			int dep;
			TH_OK(tessel_graph_block_dep(&dep, g, b, 0));
			assert_int_equal(dep, b - 1);
		}
	}
	tessel_graph_free(g);
}

/* kshape: two independent branches merge in a block on all devices. */
static void test_kshape_structure(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_preset(&g, "kshape", 4, 0, 4));
	int mf, mb, xb1, d;
	TH_OK(tessel_graph_find(&mf, g, "mf0"));
	TH_OK(tessel_graph_find(&mb, g, "mb0"));
	TH_OK(tessel_graph_find(&xb1, g, "xb1"));
	assert_int_equal(th_block(g, mf, TESSEL_BLOCK_NDEPS), 2);
	assert_int_equal(th_block(g, mf, TESSEL_BLOCK_NDEVICES), 4);
	assert_int_equal(th_block(g, mf, TESSEL_BLOCK_MEMORY), 1);
	assert_int_equal(th_block(g, mb, TESSEL_BLOCK_MEMORY), -1);
	TH_OK(tessel_graph_block_device(&d, g, xb1, 0));
	assert_int_equal(d, 0);
	tessel_graph_free(g);
}

static void test_bad_preset_arguments(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	assert_int_equal(tessel_preset(&g, "zshape", 4, 0, 4), TESSEL_ENOTFOUND);
	assert_non_null(strstr(tessel_error_last(), "zshape"));
	assert_null(g);
	assert_int_equal(tessel_preset(&g, "kshape", 5, 0, 4), TESSEL_EINVAL);
	assert_non_null(strstr(tessel_error_last(), "even"));
	assert_int_equal(tessel_preset(&g, "vshape", 1, 0, 4), TESSEL_ERANGE);
	assert_int_equal(tessel_preset(&g, "vshape", 4, 2, 4), TESSEL_EINVAL);
	assert_int_equal(tessel_preset(&g, NULL, 4, 0, 4), TESSEL_EINVAL);
	assert_int_equal(tessel_preset(NULL, "vshape", 4, 0, 4), TESSEL_EINVAL);
	/* memory below one micro-batch's need */
	assert_int_equal(tessel_preset(&g, "vshape", 4, 0, 0), TESSEL_EINFEASIBLE);
	assert_non_null(strstr(tessel_error_last(), "device 0"));
	assert_null(g);
}

/* LB(N): the device bound, the bound for blocks on every device, and the
 * one-device subset bound each decide some preset. */
static void test_lower_bounds(void **state)
{
	(void)state;
	struct {
		const char *name;
		int D;
		int64_t N, want;
	} cases[] = {
		/* 1F1B: head 3 + 16 x 4 + tail 9 on the last device */
		{"vshape", 4, 16, 76},
		/* tensor-parallel blocks: 16 x 2 + 3 + 16 x 4 + 9 */
		{"mshape", 4, 16, 108},
		/* crossing pipelines: on device 31 the blocks of chain x alone,
		 * head 31 + 16 x 4 + tail 93... the best subset gives 218 */
		{"xshape", 32, 16, 218},
		{"vshape", 4, 1, 16}, /* the critical path */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tessel_graph *g = NULL;
		int64_t lb = 0;
		TH_OK(tessel_preset(&g, cases[i].name, cases[i].D, 0, TESSEL_UNLIMITED));
		TH_OK(tessel_graph_lower_bound(&lb, g, cases[i].N));
		assert_int_equal(lb, cases[i].want);
		tessel_graph_free(g);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_nnshape_order),
		cmocka_unit_test(test_kshape_structure),
		cmocka_unit_test(test_bad_preset_arguments),
		cmocka_unit_test(test_lower_bounds),
	};
	return cmocka_run_group_tests_name("presets", tests, NULL, NULL);
}
