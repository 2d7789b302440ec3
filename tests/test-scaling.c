/* The search at real costs: spans multiplied by a factor give the same
 * schedule scaled, uneven spans as profiled keep the efficiency, and
 * latencies on dependencies are honoured at the resource bound.
 *
 * Every search has the default work budget (the verdicts do not depend on
 * the machine or its load). Without arguments (the plain suite) two
 * presets each; with --full (the opt-in suite "quality") all five. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "helpers.h"
#include "tessel.h"

/* The five presets on 8 devices, training, with the tight memory limits of
 * doc/bench-tight-limits.txt. */
/* All presets (--full), else the first two. */
static int full;

static size_t presets_run(size_t all)
{
	if (th_under_checker())
		return 1;
	return full ? all : 2;
}

static const struct {
	const char *name;
	int64_t memory;
} presets8[] = {
	{"vshape", 8}, {"mshape", 11}, {"nnshape", 12}, {"xshape", 6}, {"kshape", 6},
};

/* A copy of g with every span multiplied by `scale` and the factor of its
 * kind (forward, backward, weight), and the latency of every dependency
 * set to `latency`. */
static tessel_graph *scaled(const tessel_graph *g, int scale,
			    const int factor[3], int latency)
{
	int64_t nd = 0, nb = 0;
	TH_OK(tessel_graph_get(&nd, g, TESSEL_GRAPH_NDEVICES));
	TH_OK(tessel_graph_get(&nb, g, TESSEL_GRAPH_NBLOCKS));
	tessel_graph *t = NULL;
	TH_OK(tessel_graph_new(&t, (int)nd));
	for (int b = 0; b < nb; b++) {
		const char *name = NULL;
		int64_t kind = th_block(g, b, TESSEL_BLOCK_KIND);
		int64_t ndev = th_block(g, b, TESSEL_BLOCK_NDEVICES);
		int devs[64];
		TH_OK(tessel_graph_block_name(&name, g, b));
		for (int k = 0; k < ndev; k++)
			TH_OK(tessel_graph_block_device(&devs[k], g, b, (size_t)k));
		int span = (int)th_block(g, b, TESSEL_BLOCK_SPAN) * scale *
			   (factor ? factor[kind] : 1);
		TH_OK(tessel_graph_add_block(NULL, t, name, (tessel_kind)kind, span,
					     (int)th_block(g, b, TESSEL_BLOCK_MEMORY)));
		TH_OK(tessel_graph_place(t, b, devs, (size_t)ndev));
	}
	for (int b = 0; b < nb; b++)
		for (int k = 0; k < th_block(g, b, TESSEL_BLOCK_NDEPS); k++) {
			int dep = 0;
			TH_OK(tessel_graph_block_dep(&dep, g, b, (size_t)k));
			TH_OK(tessel_graph_add_dep(t, dep, b));
		}
	for (int d = 0; d < nd; d++) {
		int64_t lim = 0;
		TH_OK(tessel_graph_memory_limit(&lim, g, d));
		TH_OK(tessel_graph_set_memory_limit(t, d, lim));
	}
	TH_OK(tessel_graph_set_latency(t, latency));
	return t;
}

/* period: P_k of a repetend of k micro-batches (P_k / k per micro-batch) */
typedef struct figures {
	int64_t period, k, bound, proven, makespan, lb;
	double eff, seconds;
} figures;

static figures search_figures(const tessel_graph *g, int64_t nmicros, int fast)
{
	tessel_schedule *s = th_search(g, nmicros, fast, 0, 0);
	figures f;
	f.period = th_sched(s, TESSEL_SCHED_PERIOD);
	f.k = th_sched(s, TESSEL_SCHED_REPETEND_MICRO_BATCHES);
	if (f.k < 1)
		f.k = 1;
	f.bound = th_sched(s, TESSEL_SCHED_RESOURCE_BOUND);
	f.proven = th_sched(s, TESSEL_SCHED_PERIOD_OPTIMAL);
	f.makespan = th_sched(s, TESSEL_SCHED_MAKESPAN);
	f.lb = th_sched(s, TESSEL_SCHED_LOWER_BOUND);
	f.eff = (double)f.lb / (double)f.makespan;
	TH_OK(tessel_schedule_search_seconds(&f.seconds, s));
	TH_OK(tessel_schedule_validate(s));
	tessel_schedule_free(s);
	return f;
}

/* Spans times k: period k P (proven when it was), the same efficiency,
 * whatever the magnitude of the spans. */
static void test_span_scaling(void **state)
{
	(void)state;
	static const int factors[] = {10, 1000};
	size_t npresets = presets_run(sizeof presets8 / sizeof presets8[0]);
	for (int fast = 0; fast <= 1; fast++)
		for (size_t p = 0; p < npresets; p++) {
			tessel_graph *g = NULL;
			TH_OK(tessel_preset(&g, presets8[p].name, 8, 0, presets8[p].memory));
			figures one = search_figures(g, 32, fast);
			for (size_t k = 0; k < sizeof factors / sizeof factors[0]; k++) {
				tessel_graph *t = scaled(g, factors[k], NULL, 0);
				figures f = search_figures(t, 32, fast);
				print_message("%s x%d%s: period %lld (x1 %lld), eff %.3f (x1 %.3f), %.3f s (x1 %.3f s)\n",
					      presets8[p].name, factors[k], fast ? " fast" : "",
					      (long long)f.period, (long long)one.period, f.eff,
					      one.eff, f.seconds, one.seconds);
				assert_int_equal(f.bound, one.bound * factors[k]);
				assert_true(f.period * one.k <= one.period * factors[k] * f.k);
				if (one.proven) {
					assert_int_equal(f.period * one.k,
							 one.period * factors[k] * f.k);
					assert_int_equal(f.proven, 1);
				}
				assert_true(f.eff >= one.eff - 0.01);
				tessel_graph_free(t);
			}
			tessel_graph_free(g);
		}
}

/* Uneven spans as profiled (F 137, B 281 steps): the resource bound and
 * an efficiency close to the unit spans'. */
static void test_uneven_spans(void **state)
{
	(void)state;
	static const int factor[3] = {137, 281, 96};
	size_t npresets = presets_run(sizeof presets8 / sizeof presets8[0]);
	for (size_t p = 0; p < npresets; p++) {
		tessel_graph *g = NULL;
		TH_OK(tessel_preset(&g, presets8[p].name, 8, 0, presets8[p].memory));
		tessel_graph *t = scaled(g, 1, factor, 0);
		figures one = search_figures(g, 32, 0);
		figures f = search_figures(t, 32, 0);
		print_message("%s uneven: period %lld / bound %lld, eff %.3f (unit spans %.3f), %.3f s\n",
			      presets8[p].name, (long long)f.period, (long long)f.bound,
			      f.eff, one.eff, f.seconds);
		if (one.period == one.bound * one.k)
			assert_int_equal(f.period, f.bound * f.k);
		assert_true(f.eff >= 0.97 || f.eff >= one.eff - 0.01);
		tessel_graph_free(t);
		tessel_graph_free(g);
	}
}

/* Latency 0, 1 and 4 steps on spans x4, memory 3D, 128 micro-batches:
 * the resource-bound period and an efficiency of at least 0.97 against
 * the latency-aware LB(N). */
static void test_latency_at_the_bound(void **state)
{
	(void)state;
	static const int latencies[] = {0, 1, 4};
	size_t npresets = presets_run(sizeof presets8 / sizeof presets8[0]);
	for (size_t p = 0; p < npresets; p++)
		for (size_t l = 0; l < sizeof latencies / sizeof latencies[0]; l++) {
			tessel_graph *g = NULL;
			TH_OK(tessel_preset(&g, presets8[p].name, 8, 0, 24));
			tessel_graph *t = scaled(g, 4, NULL, latencies[l]);
			figures f = search_figures(t, 128, 0);
			print_message("%s latency %d: period %lld / bound %lld, eff %.3f, %.3f s\n",
				      presets8[p].name, latencies[l], (long long)f.period,
				      (long long)f.bound, f.eff, f.seconds);
			assert_int_equal(f.period, f.bound * f.k);
			assert_true(f.eff >= 0.97);
			tessel_graph_free(t);
			tessel_graph_free(g);
		}
}

int main(int argc, char **argv)
{
	full = argc == 2 && strcmp(argv[1], "--full") == 0;
	if (argc > 1 && !full) {
		fprintf(stderr, "usage: %s [--full]\n", argv[0]);
		return 2;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_span_scaling),
		cmocka_unit_test(test_uneven_spans),
		cmocka_unit_test(test_latency_at_the_bound),
	};
	return cmocka_run_group_tests_name("scaling", tests, NULL, NULL);
}
