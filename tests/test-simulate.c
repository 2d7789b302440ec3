/* The simulator (replay with real durations), recomputes and offloads in
 * the replay, durations JSON and schedules in the format of the public
 * Tessel reference implementation. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helpers.h"
#include "tessel.h"

/* A searched schedule of a preset (heuristic only: quick). */
static tessel_schedule *searched(const char *preset, int ndev)
{
	return th_search_preset(preset, ndev, 2 * ndev + 2,
				th_under_checker() ? 4 : 8, 1);
}

static double sim_get(const tessel_simulation *sim, tessel_sim_attr attr,
		      int device)
{
	double v = -1;

	TH_OK(tessel_simulation_get(&v, sim, attr, device));
	return v;
}

static double sim_makespan(const tessel_schedule *s, const double *dur,
			   size_t count, double latency, double jitter,
			   uint64_t seed)
{
	tessel_simulation *sim = NULL;

	TH_OK(tessel_simulate(&sim, s, dur, count, latency, jitter, seed));
	double m = sim_get(sim, TESSEL_SIM_MAKESPAN, 0);
	tessel_simulation_free(sim);
	return m;
}

static size_t nblocks(const tessel_schedule *s)
{
	return (size_t)th_sched(s, TESSEL_SCHED_NBLOCKS);
}

/* The spans as durations. */
static double *spans(const tessel_schedule *s)
{
	const tessel_graph *g = NULL;
	size_t n = nblocks(s);
	double *d = calloc(n, sizeof *d);

	assert_non_null(d);
	TH_OK(tessel_schedule_graph(&g, s));
	for (size_t b = 0; b < n; b++) {
		int64_t span = 0;
		TH_OK(tessel_graph_block_get(&span, g, (int)b, TESSEL_BLOCK_SPAN));
		d[b] = (double)span;
	}
	return d;
}

/* With the spans, no latency and no jitter, the replay is the schedule. */
static void test_spans_reproduce_makespan(void **state)
{
	static const char *const presets[] = { "vshape", "xshape", "mshape",
					       "kshape" };
	static const int devs[] = { 4, 8 };
	(void)state;

	for (size_t p = 0; p < 4; p++)
		for (size_t k = 0; k < 2; k++) {
			tessel_schedule *s = searched(presets[p], devs[k]);
			double *d = spans(s);
			double want = (double)th_sched(s, TESSEL_SCHED_MAKESPAN);
			tessel_simulation *sim = NULL;
			TH_OK(tessel_simulate(&sim, s, d, nblocks(s), 0, 0, 7));
			double got = sim_get(sim, TESSEL_SIM_MAKESPAN, 0);
			if (got != want)
				fail_msg("%s on %d devices: simulated %g, schedule %g",
					 presets[p], devs[k], got, want);
			assert_true(sim_makespan(s, NULL, 0, 0, 0, 0) == want);
			for (int dev = 0; dev < devs[k]; dev++) {
				int64_t peak = 0;
				TH_OK(tessel_schedule_peak_memory(&peak, s, dev));
				assert_true(sim_get(sim, TESSEL_SIM_PEAK_MEMORY,
						    dev) == (double)peak);
			}
			tessel_simulation_free(sim);
			free(d);
			tessel_schedule_free(s);
		}
}

static void test_jitter_deterministic(void **state)
{
	tessel_schedule *s = searched("mshape", 4);
	double base = sim_makespan(s, NULL, 0, 0, 0, 0);
	double a = sim_makespan(s, NULL, 0, 0, 0.3, 42);
	double b = sim_makespan(s, NULL, 0, 0, 0.3, 42);
	double c = sim_makespan(s, NULL, 0, 0, 0.3, 43);
	(void)state;

	assert_true(a == b);
	assert_true(a != base);
	assert_true(a != c);
	/* every duration within the jitter band: so is the makespan */
	assert_true(a >= 0.7 * base - 1e-9 && a <= 1.3 * base + 1e-9);
	tessel_schedule_free(s);
}

static void test_latency_never_shortens(void **state)
{
	static const char *const presets[] = { "vshape", "mshape", "kshape" };
	(void)state;

	for (size_t p = 0; p < 3; p++) {
		tessel_schedule *s = searched(presets[p], 4);
		for (uint64_t seed = 0; seed < 3; seed++) {
			double prev = sim_makespan(s, NULL, 0, 0, 0.2, seed);
			for (double lat = 0.25; lat <= 4; lat *= 2) {
				double m = sim_makespan(s, NULL, 0, lat, 0.2, seed);
				assert_true(m >= prev);
				prev = m;
			}
		}
		/* vshape's pipeline crosses devices: latency shows */
		if (p == 0)
			assert_true(sim_makespan(s, NULL, 0, 1, 0, 0) >
				    sim_makespan(s, NULL, 0, 0, 0, 0));
		tessel_schedule_free(s);
	}
}

static void test_busy_idle(void **state)
{
	tessel_schedule *s = searched("xshape", 4);
	double *d = spans(s);
	tessel_simulation *sim = NULL;
	(void)state;

	for (size_t b = 0; b < nblocks(s); b++)
		d[b] = d[b] * 1.5 + 0.25 * (double)(b % 3);
	TH_OK(tessel_simulate(&sim, s, d, nblocks(s), 0.5, 0.1, 9));
	double m = sim_get(sim, TESSEL_SIM_MAKESPAN, 0);
	for (int dev = 0; dev < 4; dev++) {
		double busy = sim_get(sim, TESSEL_SIM_BUSY, dev);
		double idle = sim_get(sim, TESSEL_SIM_IDLE, dev);
		assert_true(busy > 0);
		assert_true(idle >= 0);
		assert_true(fabs(busy + idle - m) < 1e-9 * m);
	}
	double v;
	assert_int_equal(tessel_simulation_get(&v, sim, TESSEL_SIM_BUSY, 4),
			 TESSEL_ENOTFOUND);
	assert_int_equal(tessel_simulation_get(&v, sim, TESSEL_SIM_BUSY, -1),
			 TESSEL_ENOTFOUND);
	assert_int_equal(tessel_simulation_get(&v, sim, (tessel_sim_attr)9, 0),
			 TESSEL_EINVAL);
	assert_int_equal(tessel_simulation_get(NULL, sim, TESSEL_SIM_BUSY, 0),
			 TESSEL_EINVAL);
	tessel_simulation_free(sim);
	tessel_simulation_free(NULL);
	free(d);
	tessel_schedule_free(s);
}

static void test_bad_arguments(void **state)
{
	tessel_schedule *s = searched("vshape", 4);
	double *d = spans(s);
	size_t n = nblocks(s);
	tessel_simulation *sim = (tessel_simulation *)&sim;
	(void)state;

	assert_int_equal(tessel_simulate(&sim, s, d, n - 1, 0, 0, 0),
			 TESSEL_EINVAL);
	assert_null(sim);
	assert_int_equal(tessel_simulate(&sim, NULL, NULL, 0, 0, 0, 0),
			 TESSEL_EINVAL);
	assert_int_equal(tessel_simulate(NULL, s, NULL, 0, 0, 0, 0),
			 TESSEL_EINVAL);
	assert_int_equal(tessel_simulate(&sim, s, NULL, 0, -1, 0, 0),
			 TESSEL_ERANGE);
	assert_int_equal(tessel_simulate(&sim, s, NULL, 0, NAN, 0, 0),
			 TESSEL_ERANGE);
	assert_int_equal(tessel_simulate(&sim, s, NULL, 0, INFINITY, 0, 0),
			 TESSEL_ERANGE);
	assert_int_equal(tessel_simulate(&sim, s, NULL, 0, 0, 1, 0),
			 TESSEL_ERANGE);
	assert_int_equal(tessel_simulate(&sim, s, NULL, 0, 0, -0.1, 0),
			 TESSEL_ERANGE);
	assert_int_equal(tessel_simulate(&sim, s, NULL, 0, 0, NAN, 0),
			 TESSEL_ERANGE);
	d[1] = 0;
	assert_int_equal(tessel_simulate(&sim, s, d, n, 0, 0, 0), TESSEL_ERANGE);
	assert_non_null(strstr(tessel_error_last(), "block 1"));
	d[1] = NAN;
	assert_int_equal(tessel_simulate(&sim, s, d, n, 0, 0, 0), TESSEL_ERANGE);
	d[1] = INFINITY;
	assert_int_equal(tessel_simulate(&sim, s, d, n, 0, 0, 0), TESSEL_ERANGE);
	/* finite durations and latencies whose sums overflow a double */
	assert_int_equal(tessel_simulate(&sim, s, NULL, 0, DBL_MAX, 0, 0),
			 TESSEL_ERANGE);
	assert_null(sim);
	assert_non_null(strstr(tessel_error_last(), "overflow"));
	for (size_t i = 0; i < n; i++)
		d[i] = DBL_MAX / 2;
	assert_int_equal(tessel_simulate(&sim, s, d, n, 0, 0, 0), TESSEL_ERANGE);
	assert_null(sim);
	d[1] = 1;

	/* an unplaced entry */
	const tessel_graph *g = NULL;
	tessel_schedule *e = NULL;
	TH_OK(tessel_schedule_graph(&g, s));
	TH_OK(tessel_schedule_new(&e, g, 1));
	assert_int_equal(tessel_simulate(&sim, e, NULL, 0, 0, 0, 0),
			 TESSEL_EINVAL);
	assert_non_null(strstr(tessel_error_last(), "not placed"));
	tessel_schedule_free(e);
	free(d);
	tessel_schedule_free(s);
}

/* A hand-made schedule: a (device 0) -> b (device 1) -> c (both), two
 * micro-batches; then an order that waits for itself. */
static void test_small_by_hand(void **state)
{
	tessel_graph *g = NULL;
	tessel_schedule *s = NULL;
	tessel_simulation *sim = NULL;
	int d0 = 0, d1 = 1, both[2] = { 0, 1 };
	(void)state;

	TH_OK(tessel_graph_new(&g, 2));
	TH_OK(tessel_graph_add_block(NULL, g, "a", TESSEL_KIND_FORWARD, 2, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "b", TESSEL_KIND_FORWARD, 3, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "c", TESSEL_KIND_BACKWARD, 1, -2));
	TH_OK(tessel_graph_place(g, 0, &d0, 1));
	TH_OK(tessel_graph_place(g, 1, &d1, 1));
	TH_OK(tessel_graph_place(g, 2, both, 2));
	TH_OK(tessel_graph_add_dep(g, 0, 1));
	TH_OK(tessel_graph_add_dep(g, 1, 2));
	TH_OK(tessel_schedule_new(&s, g, 2));
	/* mid 0: a@0 b@2 c@5; mid 1: a@2 b@5 c@8 */
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 2));
	TH_OK(tessel_schedule_set_step(s, 2, 0, 5));
	TH_OK(tessel_schedule_set_step(s, 0, 1, 2));
	TH_OK(tessel_schedule_set_step(s, 1, 1, 6));
	TH_OK(tessel_schedule_set_step(s, 2, 1, 9));
	TH_OK(tessel_schedule_validate(s));
	assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 10);
	TH_OK(tessel_simulate(&sim, s, NULL, 0, 0, 0, 0));
	assert_true(sim_get(sim, TESSEL_SIM_MAKESPAN, 0) == 10);
	assert_true(sim_get(sim, TESSEL_SIM_BUSY, 0) == 6);
	assert_true(sim_get(sim, TESSEL_SIM_BUSY, 1) == 8);
	assert_true(sim_get(sim, TESSEL_SIM_IDLE, 1) == 2);
	assert_true(sim_get(sim, TESSEL_SIM_PEAK_MEMORY, 0) == 2);
	tessel_simulation_free(sim);
	/* latency 1 on a -> b only (c shares a device with both) */
	TH_OK(tessel_simulate(&sim, s, NULL, 0, 1, 0, 0));
	/* a0 0-2, b0 3-6, a1 2-4, c0 6-7, b1 7-10, c1 10-11 */
	assert_true(sim_get(sim, TESSEL_SIM_MAKESPAN, 0) == 11);
	tessel_simulation_free(sim);
	/* c of micro-batch 1 first on device 1, before the b it waits for */
	TH_OK(tessel_schedule_set_step(s, 2, 1, 1));
	assert_int_equal(tessel_simulate(&sim, s, NULL, 0, 0, 0, 0),
			 TESSEL_EVIOLATION);
	assert_null(sim);
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

/* a (device 0) -> b (device 1) -> c (both devices), two micro-batches. */
static tessel_graph *lat_graph(void)
{
	tessel_graph *g = NULL;
	int d0 = 0, d1 = 1, both[2] = { 0, 1 };

	TH_OK(tessel_graph_new(&g, 2));
	TH_OK(tessel_graph_add_block(NULL, g, "a", TESSEL_KIND_FORWARD, 2, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "b", TESSEL_KIND_FORWARD, 3, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "c", TESSEL_KIND_BACKWARD, 1, -2));
	TH_OK(tessel_graph_place(g, 0, &d0, 1));
	TH_OK(tessel_graph_place(g, 1, &d1, 1));
	TH_OK(tessel_graph_place(g, 2, both, 2));
	return g;
}

/* mid 0: a@0 b@4 c@7; mid 1: a@2 b@8 c@11 (valid with a latency of 2
 * steps on a -> b). */
static tessel_schedule *lat_schedule(const tessel_graph *g)
{
	static const int64_t at[2][3] = { { 0, 4, 7 }, { 2, 8, 11 } };
	tessel_schedule *s = NULL;

	TH_OK(tessel_schedule_new(&s, g, 2));
	for (int m = 0; m < 2; m++)
		for (int b = 0; b < 3; b++)
			TH_OK(tessel_schedule_set_step(s, b, m, at[m][b]));
	TH_OK(tessel_schedule_validate(s));
	return s;
}

static int near(double x, double y)
{
	return fabs(x - y) < 1e-9;
}

/* The placement's latencies delay the replay where they count. */
static void test_placement_latency(void **state)
{
	(void)state;
	tessel_graph *g = lat_graph();
	TH_OK(tessel_graph_add_dep_latency(g, 0, 1, 2));
	/* b -> c: the graph's latency (0 for now) counts, c is on device 0 */
	TH_OK(tessel_graph_add_dep(g, 1, 2));
	tessel_schedule *s = lat_schedule(g);
	/* a0 0-2, a1 2-4; b0 from 2 + 2: 4-7; c0 7-8; b1 8-11; c1 11-12 */
	assert_true(sim_makespan(s, NULL, 0, 0, 0, 0) == 12);
	/* the extra latency adds to a -> b (no shared device), not b -> c:
	 * b0 5-8, c0 8-9, b1 9-12, c1 12-13 */
	assert_true(sim_makespan(s, NULL, 0, 1, 0, 0) == 13);
	tessel_schedule_free(s);
	/* with the graph's latency of 4 on b -> c, a schedule valid for the
	 * latencies: c0 at 11, b1 at 12, c1 at 19 */
	TH_OK(tessel_graph_set_latency(g, 4));
	tessel_schedule *t = NULL;
	TH_OK(tessel_schedule_new(&t, g, 2));
	static const int64_t at[2][3] = { { 0, 4, 11 }, { 2, 12, 19 } };
	for (int m = 0; m < 2; m++)
		for (int b = 0; b < 3; b++)
			TH_OK(tessel_schedule_set_step(t, b, m, at[m][b]));
	TH_OK(tessel_schedule_validate(t));
	/* a0 0-2, b0 4-7, c0 11-12, b1 12-15, c1 19-20 */
	assert_true(sim_makespan(t, NULL, 0, 0, 0, 0) == 20);
	tessel_schedule_free(t);
	tessel_graph_free(g);
}

/* With a step, the replay runs in the placement's unit: the durations and
 * latencies given, spans times the step for the rest. */
static void test_placement_times(void **state)
{
	(void)state;
	tessel_graph *g = lat_graph();
	TH_OK(tessel_graph_set_step(g, 0.5));
	TH_OK(tessel_graph_set_unit(g, "ms"));
	TH_OK(tessel_graph_set_block_duration(g, 0, 0.9));  /* 2 steps */
	TH_OK(tessel_graph_set_block_duration(g, 1, 1.4));  /* 3 steps */
	TH_OK(tessel_graph_add_dep_latency_time(g, 0, 1, 0.7)); /* 2 steps */
	TH_OK(tessel_graph_add_dep(g, 1, 2));
	assert_int_equal(th_block(g, 2, TESSEL_BLOCK_SPAN), 1);
	tessel_schedule *s = lat_schedule(g);
	/* a0 0-0.9, a1 0.9-1.8; b0 from 0.9 + 0.7: 1.6-3.0; c (span 1:
	 * 0.5 ms) 3.0-3.5; b1 3.5-4.9; c1 4.9-5.4 */
	tessel_simulation *sim = NULL;
	TH_OK(tessel_simulate(&sim, s, NULL, 0, 0, 0, 0));
	assert_true(near(sim_get(sim, TESSEL_SIM_MAKESPAN, 0), 5.4));
	assert_true(near(sim_get(sim, TESSEL_SIM_BUSY, 0), 0.9 + 0.9 + 0.5 + 0.5));
	assert_true(near(sim_get(sim, TESSEL_SIM_BUSY, 1), 1.4 + 1.4 + 0.5 + 0.5));
	tessel_simulation_free(sim);
	/* durations given: the placement's latency (in ms) still counts:
	 * a0 0-1, a1 1-2, b0 1.7-2.7, c0 2.7-3.7, b1 3.7-4.7, c1 4.7-5.7 */
	const double ones[3] = { 1, 1, 1 };
	assert_true(near(sim_makespan(s, ones, 3, 0, 0, 0), 5.7));
	/* the durations JSON starts from the placement's durations */
	const tessel_graph *sg = NULL;
	double *d = NULL;
	TH_OK(tessel_schedule_graph(&sg, s));
	TH_OK(tessel_durations_from_json(&d, sg, "{\"b\": 2}", 8));
	assert_true(d[0] == 0.9 && d[1] == 2 && d[2] == 0.5);
	tessel_free(d);
	tessel_schedule_free(s);
	/* a latency given in steps counts its steps times the step: 2 x 0.5 */
	tessel_graph_free(g);
	g = lat_graph();
	TH_OK(tessel_graph_set_step(g, 0.5));
	TH_OK(tessel_graph_add_dep_latency(g, 0, 1, 2));
	TH_OK(tessel_graph_add_dep(g, 1, 2));
	s = lat_schedule(g);
	/* every duration is its span x 0.5: the steps' replay, halved */
	assert_true(near(sim_makespan(s, NULL, 0, 0, 0, 0), 6));
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

static void test_durations_json(void **state)
{
	tessel_schedule *s = searched("vshape", 4);
	const tessel_graph *g = NULL;
	double *d = NULL;
	const char *name0 = NULL;
	char text[256];
	(void)state;

	TH_OK(tessel_schedule_graph(&g, s));
	TH_OK(tessel_graph_block_name(&name0, g, 0));
	snprintf(text, sizeof text, "{\"%s\": 2.5}", name0);
	TH_OK(tessel_durations_from_json(&d, g, text, strlen(text)));
	assert_non_null(d);
	assert_true(d[0] == 2.5);
	for (size_t b = 1; b < nblocks(s); b++) {
		int64_t span = 0;
		TH_OK(tessel_graph_block_get(&span, g, (int)b, TESSEL_BLOCK_SPAN));
		assert_true(d[b] == (double)span);
	}
	double longer = sim_makespan(s, d, nblocks(s), 0, 0, 0);
	assert_true(longer >= (double)th_sched(s, TESSEL_SCHED_MAKESPAN));
	tessel_free(d);

	d = (double *)&d;
	assert_int_equal(tessel_durations_from_json(&d, g, "{\"nosuch\": 1}", 13),
			 TESSEL_ENOTFOUND);
	assert_null(d);
	assert_non_null(strstr(tessel_error_last(), "nosuch"));
	snprintf(text, sizeof text, "{\"%s\": \"fast\"}", name0);
	assert_int_equal(tessel_durations_from_json(&d, g, text, strlen(text)),
			 TESSEL_EPARSE);
	snprintf(text, sizeof text, "{\"%s\": 0}", name0);
	assert_int_equal(tessel_durations_from_json(&d, g, text, strlen(text)),
			 TESSEL_ERANGE);
	snprintf(text, sizeof text, "{\"%s\": -1.5}", name0);
	assert_int_equal(tessel_durations_from_json(&d, g, text, strlen(text)),
			 TESSEL_ERANGE);
	assert_int_equal(tessel_durations_from_json(&d, g, "[1, 2]", 6),
			 TESSEL_EPARSE);
	assert_int_equal(tessel_durations_from_json(&d, g, "{", 1),
			 TESSEL_EPARSE);
	assert_int_equal(tessel_durations_from_json(&d, NULL, "{}", 2),
			 TESSEL_EINVAL);
	TH_OK(tessel_durations_from_json(&d, g, "{}", 2));
	tessel_free(d);
	tessel_schedule_free(s);
}

static void test_reference_round_trip(void **state)
{
	static const char *const presets[] = { "vshape", "mshape", "kshape" };
	(void)state;

	for (size_t p = 0; p < 3; p++) {
		tessel_schedule *s = searched(presets[p], 4), *r = NULL;
		const tessel_graph *g = NULL;
		char *json = NULL;
		TH_OK(tessel_schedule_graph(&g, s));
		TH_OK(tessel_schedule_to_json(&json, s));
		TH_OK(tessel_schedule_from_reference_json(&r, g, json,
							  strlen(json)));
		TH_OK(tessel_schedule_validate(r));
		int64_t nm = th_sched(s, TESSEL_SCHED_NMICROS);
		assert_int_equal(th_sched(r, TESSEL_SCHED_NMICROS), nm);
		assert_int_equal(th_sched(r, TESSEL_SCHED_MAKESPAN),
				 th_sched(s, TESSEL_SCHED_MAKESPAN));
		assert_int_equal(th_sched(r, TESSEL_SCHED_REPETEND_BEGIN),
				 th_sched(s, TESSEL_SCHED_REPETEND_BEGIN));
		assert_int_equal(th_sched(r, TESSEL_SCHED_REPETEND_END),
				 th_sched(s, TESSEL_SCHED_REPETEND_END));
		/* same starts and phases: the same "blocks" */
		char *json2 = NULL;
		TH_OK(tessel_schedule_to_json(&json2, r));
		assert_string_equal(strstr(json, "\"blocks\""),
				    strstr(json2, "\"blocks\""));
		tessel_free(json2);
		tessel_free(json);
		tessel_schedule_free(r);
		tessel_schedule_free(s);
	}
}

/* The reference implementation's own layout: no name, no phase. */
static const char ref_ok[] =
	"{\"ndevs\": 2, \"repetend\": [-5, 99], \"extra\": 1, \"blocks\": ["
	"{\"mid\": 0, \"span\": 1, \"memory\": 1, \"btype\": \"forward\", \"gid\": 0, \"step\": 0, \"device\": [0], \"x\": 3},"
	"{\"mid\": 0, \"span\": 1, \"memory\": -1, \"btype\": \"backward\", \"gid\": 1, \"step\": 1, \"device\": [1]},"
	"{\"mid\": 1, \"span\": 1, \"memory\": 1, \"btype\": \"forward\", \"gid\": 0, \"step\": 1, \"device\": [0]},"
	"{\"mid\": 1, \"span\": 1, \"memory\": -1, \"btype\": \"backward\", \"gid\": 1, \"step\": 2, \"device\": [1]}"
	"]}";

static tessel_graph *two_blocks(void)
{
	const char *names[] = {"f", "b"};
	const int dev[] = {0, 1}, span[] = {1, 1}, mem[] = {1, -1};
	const tessel_kind kind[] = {TESSEL_KIND_FORWARD, TESSEL_KIND_BACKWARD};
	return th_chain(2, 2, names, dev, kind, span, mem);
}

/* ref_ok with `from` replaced by `to` (once). */
static int ref_variant(tessel_graph *g, const char *from, const char *to)
{
	char text[sizeof ref_ok + 256];
	const char *at = strstr(ref_ok, from);
	tessel_schedule *s = (tessel_schedule *)&s;

	assert_non_null(at);
	snprintf(text, sizeof text, "%.*s%s%s", (int)(at - ref_ok), ref_ok, to,
		 at + strlen(from));
	int rc = tessel_schedule_from_reference_json(&s, g, text, strlen(text));
	if (rc)
		assert_null(s);
	tessel_schedule_free(s);
	return rc;
}

static void test_reference_inputs(void **state)
{
	tessel_graph *g = two_blocks();
	tessel_schedule *s = NULL;
	(void)state;

	TH_OK(tessel_schedule_from_reference_json(&s, g, ref_ok,
						  strlen(ref_ok)));
	TH_OK(tessel_schedule_validate(s));
	assert_int_equal(th_sched(s, TESSEL_SCHED_NMICROS), 2);
	assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 3);
	assert_int_equal(th_sched(s, TESSEL_SCHED_REPETEND_BEGIN), 0);
	assert_int_equal(th_sched(s, TESSEL_SCHED_REPETEND_END), 3);
	tessel_schedule_free(s);

	/* missing entry: the last one dropped */
	char text[sizeof ref_ok];
	const char *last = strstr(ref_ok, ",{\"mid\": 1, \"span\": 1, \"memory\": -1");
	assert_non_null(last);
	snprintf(text, sizeof text, "%.*s]}", (int)(last - ref_ok), ref_ok);
	assert_int_equal(tessel_schedule_from_reference_json(&s, g, text,
							     strlen(text)),
			 TESSEL_EPARSE);
	assert_non_null(strstr(tessel_error_last(), "no entry"));
	/* gid out of range */
	assert_int_equal(ref_variant(g, "\"gid\": 1, \"step\": 1",
				     "\"gid\": 2, \"step\": 1"), TESSEL_ERANGE);
	assert_non_null(strstr(tessel_error_last(), "\"blocks\"[1]"));
	assert_non_null(strstr(tessel_error_last(), "gid"));
	/* span mismatch */
	assert_int_equal(ref_variant(g, "\"span\": 1, \"memory\": -1",
				     "\"span\": 2, \"memory\": -1"), TESSEL_EPARSE);
	assert_non_null(strstr(tessel_error_last(), "\"blocks\"[1]"));
	assert_non_null(strstr(tessel_error_last(), "span"));
	/* memory, device, btype mismatches; negative mid; duplicates */
	assert_int_equal(ref_variant(g, "\"memory\": 1,", "\"memory\": 2,"),
			 TESSEL_EPARSE);
	assert_int_equal(ref_variant(g, "\"device\": [0], \"x\"",
				     "\"device\": [1], \"x\""), TESSEL_EPARSE);
	assert_int_equal(ref_variant(g, "\"btype\": \"forward\"",
				     "\"btype\": \"backward\""), TESSEL_EPARSE);
	assert_int_equal(ref_variant(g, "\"mid\": 0,", "\"mid\": -1,"),
			 TESSEL_ERANGE);
	assert_int_equal(ref_variant(g, "\"mid\": 1, \"span\": 1, \"memory\": 1",
				     "\"mid\": 0, \"span\": 1, \"memory\": 1"),
			 TESSEL_EPARSE);
	assert_non_null(strstr(tessel_error_last(), "twice"));
	assert_int_equal(ref_variant(g, "\"ndevs\": 2", "\"ndevs\": 3"),
			 TESSEL_EPARSE);
	assert_int_equal(ref_variant(g, "\"ndevs\": 2", "\"ndevz\": 2"),
			 TESSEL_EPARSE);
	assert_int_equal(ref_variant(g, "\"step\": 0", "\"step\": \"0\""),
			 TESSEL_EPARSE);
	assert_int_equal(ref_variant(g, "\"repetend\": [-5, 99]",
				     "\"repetend\": [1]"), TESSEL_EPARSE);
	assert_int_equal(tessel_schedule_from_reference_json(&s, g, "{", 1),
			 TESSEL_EPARSE);
	assert_int_equal(tessel_schedule_from_reference_json(&s, NULL, ref_ok,
							     strlen(ref_ok)),
			 TESSEL_EINVAL);
	/* a schedule that reads fine but breaks the timing rules */
	assert_int_equal(ref_variant(g, "\"gid\": 1, \"step\": 1",
				     "\"gid\": 1, \"step\": 0"), TESSEL_OK);
	TH_OK(tessel_schedule_from_reference_json(&s, g, ref_ok,
						  strlen(ref_ok)));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 0));
	assert_int_equal(tessel_schedule_validate(s), TESSEL_EVIOLATION);
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

/* The replay of recomputes and offloads: the backward runs its extra
 * steps longer (in the placement's unit), the copies run one at a time
 * on their device's channel, the backward waits for its reload; the
 * memory counts the choices as the schedule does. */
static void test_alternatives(void **state)
{
	(void)state;
	tessel_simulation *sim = NULL;
	tessel_schedule *s = th_alt_schedule(1, 1, 0);
	TH_OK(tessel_simulate(&sim, s, NULL, 0, 0, 0, 0));
	/* the spans: the schedule itself (its makespan 20, the longer b1) */
	assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 20);
	assert_true(sim_get(sim, TESSEL_SIM_MAKESPAN, 0) == 20);
	assert_true(sim_get(sim, TESSEL_SIM_BUSY, 0) == 12);
	assert_true(sim_get(sim, TESSEL_SIM_BUSY, 1) == 2 + 2 + 6 + 4);
	assert_true(sim_get(sim, TESSEL_SIM_IDLE, 1) == 6);
	for (int d = 0; d < 2; d++) {
		int64_t peak = 0;
		TH_OK(tessel_schedule_peak_memory(&peak, s, d));
		assert_true(sim_get(sim, TESSEL_SIM_PEAK_MEMORY, d) == (double)peak);
	}
	/* device 0: 8 before the offloads end; device 1: 1 + 4 */
	assert_true(sim_get(sim, TESSEL_SIM_PEAK_MEMORY, 0) == 8);
	assert_true(sim_get(sim, TESSEL_SIM_PEAK_MEMORY, 1) == 5);
	tessel_simulation_free(sim);

	/* f0, f1, b1 one unit each, b0 four: f0 0-1, 1-2; offloads 1-3
	 * and 3-5 (one at a time), the reload of micro-batch 0 after them
	 * 5-7; f1 1-2, 2-3, b1 mb0 (1 + 2 extra) 3-6, b1 mb1 6-7; b0 mb0
	 * waits for its reload: 7-11, b0 mb1 11-15 */
	static const double dur[4] = { 1, 1, 1, 4 };
	assert_true(sim_makespan(s, dur, 4, 0, 0, 0) == 15);
	TH_OK(tessel_simulate(&sim, s, dur, 4, 0, 0, 0));
	assert_true(sim_get(sim, TESSEL_SIM_BUSY, 1) == 1 + 1 + 3 + 1);
	assert_true(sim_get(sim, TESSEL_SIM_PEAK_MEMORY, 0) == 8);
	tessel_simulation_free(sim);
	/* jitter on the copies too: deterministic, within its band */
	double a = sim_makespan(s, dur, 4, 0, 0.2, 5);
	assert_true(a == sim_makespan(s, dur, 4, 0, 0.2, 5));
	assert_true(a >= 0.8 * 15 - 1e-9 && a <= 1.2 * 15 + 1e-9);
	tessel_schedule_free(s);

	/* without the offloads b0 mb0 starts when b1 mb0 ends: 6-10, 10-14 */
	s = th_alt_schedule(1, 0, 0);
	assert_true(sim_makespan(s, dur, 4, 0, 0, 0) == 14);
	tessel_schedule_free(s);
	/* nor the recompute: b1 mb0 2 steps shorter, f1 mb0 keeps all 4 */
	s = th_alt_schedule(0, 0, 0);
	TH_OK(tessel_simulate(&sim, s, NULL, 0, 0, 0, 0));
	assert_true(sim_get(sim, TESSEL_SIM_BUSY, 1) == 12);
	assert_true(sim_get(sim, TESSEL_SIM_PEAK_MEMORY, 1) == 8);
	tessel_simulation_free(sim);
	tessel_schedule_free(s);

	/* with a step: the extra steps and the copies times the step */
	s = th_alt_schedule(1, 1, 1);
	TH_OK(tessel_simulate(&sim, s, NULL, 0, 0, 0, 0));
	assert_true(near(sim_get(sim, TESSEL_SIM_MAKESPAN, 0), 10));
	assert_true(near(sim_get(sim, TESSEL_SIM_BUSY, 0), 6));
	assert_true(near(sim_get(sim, TESSEL_SIM_BUSY, 1), 7));
	tessel_simulation_free(sim);
	/* durations in ms: b1 mb0 0.5 + 2 x 0.5; copies 2 x 0.5 each */
	static const double ms[4] = { 0.5, 0.5, 0.5, 2 };
	assert_true(near(sim_makespan(s, ms, 4, 0, 0, 0), 7.5));
	tessel_schedule_free(s);
}

/* th_wait_schedule: the replay keeps the memory waits (the WAIT
 * actions, and a reload after the compute of its step), so its peak is
 * the limit; without them f0 mb1 would start at 2 holding 8. */
static void test_memory_waits(void **state)
{
	(void)state;
	tessel_schedule *s = th_wait_schedule();
	tessel_simulation *sim = NULL;
	TH_OK(tessel_simulate(&sim, s, NULL, 0, 0, 0, 0));
	assert_true(sim_get(sim, TESSEL_SIM_PEAK_MEMORY, 0) == 4);
	assert_true(sim_get(sim, TESSEL_SIM_MAKESPAN, 0) ==
		    (double)th_sched(s, TESSEL_SCHED_MAKESPAN));
	tessel_simulation_free(sim);
	/* shorter blocks and copies: the order and the waits still hold the
	 * memory to the limit */
	static const double dur[4] = { 0.5, 1, 1, 1 };
	TH_OK(tessel_simulate(&sim, s, dur, 4, 0, 0, 0));
	assert_true(sim_get(sim, TESSEL_SIM_PEAK_MEMORY, 0) == 4);
	tessel_simulation_free(sim);
	for (uint64_t seed = 1; seed <= 20; seed++) {
		TH_OK(tessel_simulate(&sim, s, NULL, 0, 0, 0.5, seed));
		assert_true(sim_get(sim, TESSEL_SIM_PEAK_MEMORY, 0) == 4);
		tessel_simulation_free(sim);
	}
	tessel_schedule_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spans_reproduce_makespan),
		cmocka_unit_test(test_jitter_deterministic),
		cmocka_unit_test(test_latency_never_shortens),
		cmocka_unit_test(test_busy_idle),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_small_by_hand),
		cmocka_unit_test(test_placement_latency),
		cmocka_unit_test(test_placement_times),
		cmocka_unit_test(test_alternatives),
		cmocka_unit_test(test_memory_waits),
		cmocka_unit_test(test_durations_json),
		cmocka_unit_test(test_reference_round_trip),
		cmocka_unit_test(test_reference_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
