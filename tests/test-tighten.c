/* The period of a repetend lowered to what its own structure allows
 * (lib/repetend/repetend_tighten.c), white box: a valid repetend found by the
 * heuristic on published placements is given idle time (the same
 * repetition indices and residues at a larger period, which is valid
 * again), then tightened. The result must come back to the heuristic's
 * period or below, never below the resource bound, and be a valid
 * repetend by this file's own reading (no overlap on any device's circle,
 * every dependency met) whose completion passes the validator (memory
 * included). Tightening it again changes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bounds.h"
#include "complete.h"
#include "helpers.h"
#include "published.h"
#include "repetend.h"
#include "repetend_heuristic.h"
#include "repetend_tighten.h"
#include "schedule.h"
#include "tessel.h"
#include "util.h"
#include "validate.h"

static int on_device(const tsl_block *b, int d)
{
	for (int k = 0; k < b->ndevices; k++)
		if (b->devices[k] == d)
			return 1;
	return 0;
}

/* Starts T at period P: every dependency met, and no two blocks of a
 * device overlap on the circle of length P. */
static void check_repetend(const tessel_graph *g, const int64_t *T, int64_t P)
{
	for (int b = 0; b < g->nblocks; b++) {
		const tsl_block *B = &g->blocks[b];
		assert_true(T[b] >= 0);
		assert_true(B->span <= P);
		for (int k = 0; k < B->ndeps; k++) {
			int a = B->deps[k];
			if (T[b] < T[a] + tsl_dep_gap(g, B, k))
				fail_msg("%s starts at %lld, before %s's finish %lld",
					 B->name, (long long)T[b], g->blocks[a].name,
					 (long long)(T[a] + tsl_dep_gap(g, B, k)));
		}
	}
	for (int d = 0; d < g->ndevices; d++)
		for (int x = 0; x < g->nblocks; x++)
			for (int y = x + 1; y < g->nblocks; y++) {
				const tsl_block *X = &g->blocks[x], *Y = &g->blocks[y];
				if (!on_device(X, d) || !on_device(Y, d))
					continue;
				int64_t rx = T[x] % P, ry = T[y] % P;
				/* on the circle: y starts at least span(x)
				 * after x, and x at least span(y) after y */
				int64_t gap_xy = ((ry - rx) % P + P) % P;
				int64_t gap_yx = ((rx - ry) % P + P) % P;
				if (gap_xy < X->span || gap_yx < Y->span)
					fail_msg("%s and %s overlap on device %d at period %lld",
						 X->name, Y->name, d, (long long)P);
			}
}

/* The completion of the repetend passes the validator. */
static void check_completion(const tessel_graph *g, const tsl_bounds *bnd,
			     const tsl_repetend *rep, int64_t N)
{
	tessel_schedule *s = NULL;
	TH_OK(tsl_schedule_alloc(&s, g, N));
	TH_OK(tsl_complete(s, rep, &(tsl_stage){g, bnd, NULL, NULL}, 0));
	TH_OK(tsl_schedule_check(s, NULL));
	tessel_schedule_free(s);
}

typedef struct tcase {
	pub_family family;
	int D;
	int f, b, w;
} tcase;

static void tighten_case(const tcase *c)
{
	pub_params p = {c->D, 2 * c->D, c->f, c->b, c->w, 0, 0, NULL, NULL};
	pub_order *order = NULL;
	tessel_schedule *pub = NULL;
	char why[512];
	TH_OK(pub_order_build(&order, c->family, &p, why, sizeof why));
	TH_OK(pub_order_schedule(&pub, NULL, order, why, sizeof why));
	const tessel_graph *g = NULL;
	TH_OK(tessel_schedule_graph(&g, pub));
	tsl_bounds bnd;
	TH_OK(tsl_bounds_compute(&bnd, g));
	int n = g->nblocks;
	tsl_repetend heur = {0}, rep = {0};
	heur.T = tsl_calloc((size_t)n, sizeof *heur.T);
	rep.T = tsl_calloc((size_t)n, sizeof *rep.T);
	assert_non_null(heur.T);
	assert_non_null(rep.T);
	TH_OK(tsl_repetend_heuristic(&heur, NULL, &(tsl_stage){g, &bnd, NULL, NULL}, 0, 0));
	check_repetend(g, heur.T, heur.period);
	int64_t P = heur.period;
	const int64_t extra[] = {1, 7, P / 3 + 1, 2 * P};
	for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
		/* idle time: the same q and residues at a larger period */
		int64_t Q = P + extra[i], depth = 0;
		for (int b = 0; b < n; b++) {
			rep.T[b] = heur.T[b] / P * Q + heur.T[b] % P;
			if (rep.T[b] + g->blocks[b].span > depth)
				depth = rep.T[b] + g->blocks[b].span;
		}
		rep.period = Q;
		rep.depth = depth;
		check_repetend(g, rep.T, Q);
		int lowered = 0;
		TH_OK(tsl_repetend_tighten(&rep, &lowered, &(tsl_stage){g, &bnd, NULL, NULL},
				   bnd.resource_bound));
		assert_true(lowered);
		if (rep.period > P || rep.period < bnd.resource_bound)
			fail_msg("%s D%d: period %lld from %lld, heuristic %lld, bound %lld",
				 pub_family_name(c->family), c->D, (long long)rep.period,
				 (long long)Q, (long long)P, (long long)bnd.resource_bound);
		check_repetend(g, rep.T, rep.period);
		int64_t depth_max = 0;
		for (int b = 0; b < n; b++)
			if (rep.T[b] + g->blocks[b].span > depth_max)
				depth_max = rep.T[b] + g->blocks[b].span;
		assert_int_equal(rep.depth, depth_max);
		check_completion(g, &bnd, &rep, 3 * (int64_t)c->D);
		/* its own minimum: nothing more to take */
		int64_t again = rep.period;
		TH_OK(tsl_repetend_tighten(&rep, &lowered, &(tsl_stage){g, &bnd, NULL, NULL},
				   bnd.resource_bound));
		assert_false(lowered);
		assert_int_equal(rep.period, again);
	}
	tsl_repetend_release(&heur);
	tsl_repetend_release(&rep);
	tsl_bounds_release(&bnd);
	tessel_schedule_free(pub);
	pub_order_free(order);
}

/* Memory-bound V shapes, zero-bubble and DualPipeV, at unit and profiled
 * spans, each under its published schedule's peak. */
static void test_tighten_published(void **state)
{
	(void)state;
	static const tcase cases[] = {
		{PUB_ZB_H2, 4, 2, 2, 1},
		{PUB_ZB_V, 4, 137, 281, 96},
		{PUB_V_HALF, 4, 1, 1, 1},
		{PUB_V_HALF, 8, 137, 281, 96},
		{PUB_V_MIN, 4, 137, 281, 96},
		{PUB_V_MIN, 8, 2, 2, 1},
		{PUB_DUALPIPE_V, 4, 274, 562, 96},
	};
	/* under valgrind and TSan: a unit-span case and a profiled one */
	size_t ncases = th_under_checker() ? 2 : sizeof cases / sizeof cases[0];
	for (size_t i = 0; i < ncases; i++)
		tighten_case(&cases[i]);
}

/* A repetend at the resource bound is left alone. */
static void test_tighten_at_bound(void **state)
{
	(void)state;
	pub_params p = {4, 8, 1, 2, 0, 0, 0, NULL, NULL};
	pub_order *order = NULL;
	tessel_schedule *pub = NULL;
	char why[512];
	TH_OK(pub_order_build(&order, PUB_1F1B, &p, why, sizeof why));
	TH_OK(pub_order_schedule(&pub, NULL, order, why, sizeof why));
	const tessel_graph *g = NULL;
	TH_OK(tessel_schedule_graph(&g, pub));
	tsl_bounds bnd;
	TH_OK(tsl_bounds_compute(&bnd, g));
	tsl_repetend rep = {0};
	rep.T = tsl_calloc((size_t)g->nblocks, sizeof *rep.T);
	assert_non_null(rep.T);
	TH_OK(tsl_repetend_heuristic(&rep, NULL, &(tsl_stage){g, &bnd, NULL, NULL}, 0, 0));
	assert_int_equal(rep.period, bnd.resource_bound);
	int lowered = 1;
	TH_OK(tsl_repetend_tighten(&rep, &lowered, &(tsl_stage){g, &bnd, NULL, NULL},
				   bnd.resource_bound));
	assert_false(lowered);
	assert_int_equal(rep.period, bnd.resource_bound);
	tsl_repetend_release(&rep);
	tsl_bounds_release(&bnd);
	tessel_schedule_free(pub);
	pub_order_free(order);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tighten_published),
		cmocka_unit_test(test_tighten_at_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
