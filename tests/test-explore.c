/* Model profiles and the exploration of placements, through the public
 * API: the reader's errors, the candidates and their partitions, the
 * schedules (validated), the ranking and speedups, determinism under a
 * work budget, cancel, and the JSON. */
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

/* A profile of `layers` transformer layers between an embedding and a
 * head, on `devices` devices of `memory` each. */
static char *profile(int devices, double memory, int layers, int micros,
		     const char *extra)
{
	size_t cap = 4096 + (size_t)layers * 200;
	char *t = malloc(cap);
	assert_non_null(t);
	int n = snprintf(t, cap,
			 "{\"model\": \"t\", \"unit\": \"ms\", \"memory_unit\": \"GiB\", \"devices\": %d, "
			 "\"memory_per_device\": %g, \"transfer\": 0.2, \"micro_batches\": %d, %s"
			 "\"tensor_parallel\": {\"efficiency\": 0.85, \"allreduce\": 0.15}, \"layers\": ["
			 "{\"name\": \"embed\", \"forward\": 0.3, \"backward\": 0.3, \"weight\": 0.2, \"activation\": 0.1, \"parameters\": 1.2}",
			 devices, memory, micros, extra);
	for (int i = 0; i < layers; i++)
		n += snprintf(t + n, cap - (size_t)n,
			      ", {\"name\": \"l%d\", \"forward\": 1.1, \"backward\": 1.1, \"weight\": 1.0, \"activation\": 0.6, \"parameters\": 0.8}",
			      i);
	snprintf(t + n, cap - (size_t)n,
		 ", {\"name\": \"head\", \"forward\": 0.9, \"backward\": 0.9, \"weight\": 0.8, \"activation\": 0.4, \"parameters\": 1.2}]}");
	return t;
}

static tessel_model *model_of(const char *text)
{
	tessel_model *m = NULL;
	TH_OK(tessel_model_from_json(&m, text, strlen(text)));
	return m;
}

static void test_reader_errors(void **state)
{
	(void)state;
	static const struct {
		const char *from, *to;
		int code;
		const char *fragment;
	} cases[] = {
		{"\"devices\": 4", "\"devices\": 1", TESSEL_ERANGE, "devices"},
		{"\"memory_per_device\": 12", "\"memory_per_device\": 0", TESSEL_ERANGE, "memory_per_device"},
		{"\"micro_batches\": 8", "\"micro_batches\": 8.5", TESSEL_EPARSE, "micro_batches"},
		{"\"name\": \"l1\"", "\"name\": \"l0\"", TESSEL_EPARSE, "comes before"},
		{"\"forward\": 0.9", "\"forward\": -1", TESSEL_ERANGE, "forward"},
		{"\"forward\": 0.9", "\"forward\": 1.0000000000000002e15", TESSEL_ERANGE,
		 "at most 1e15, got 1000000000000000.2"},
		{"\"unit\": \"ms\", ", "", TESSEL_EPARSE, "unit"},
		{"\"unit\": \"ms\"", "\"unit\": \"m\\u0001s\"", TESSEL_EPARSE, "\"unit\" holds a control character"},
		{"\"name\": \"l1\"", "\"name\": \"l\\u0007x\"", TESSEL_EPARSE, "\"name\" holds a control character (byte 1)"},
		{"\"efficiency\": 0.85", "\"efficiency\": 1.5", TESSEL_ERANGE, "efficiency"},
		{"\"parameters\": 1.2}]", "\"parameters\": 1.2, \"after\": [\"nosuch\"]}]", TESSEL_EPARSE, "no layer \"nosuch\""},
		{"\"parameters\": 1.2}, {\"name\": \"l0\"", "\"parameters\": 1.2, \"after\": [\"l1\"]}, {\"name\": \"l0\"", TESSEL_EPARSE, "not earlier"},
		{"{\"name\": \"l1\", ", "{\"name\": \"l1\", \"after\": [\"l1\"], ", TESSEL_EPARSE, "the layer itself"},
		{"\"layers\": [", "\"mode\": \"training\", \"mode\": \"x\", \"layers\": [", TESSEL_EPARSE, ""},
		{"\"layers\": [", "\"mode\": \"sleep\", \"layers\": [", TESSEL_EPARSE, "mode"},
	};
	char *base = profile(4, 12, 3, 8, "");
	tessel_model *m = model_of(base);
	tessel_model_free(m);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *t = th_replace_first(base, cases[i].from, cases[i].to);
		m = NULL;
		th_expect_error(tessel_model_from_json(&m, t, strlen(t)),
				cases[i].code, cases[i].fragment);
		assert_null(m);
		free(t);
	}
	free(base);
	tessel_model_free(NULL);
	tessel_explore_free(NULL);
	th_expect_error(tessel_model_from_json(NULL, "{}", 2), TESSEL_EINVAL, "out");
	th_expect_error(tessel_explore_new(NULL, NULL), TESSEL_EINVAL, "out");
	tessel_explore *ex = (tessel_explore *)1;
	th_expect_error(tessel_explore_new(&ex, NULL), TESSEL_EINVAL, "model");
	assert_null(ex);
	th_expect_error(tessel_model_from_file(&m, "/nonexistent/model.json"),
			TESSEL_EIO, "/nonexistent/model.json");
}

/* Every candidate with a placement covers every layer once per replica,
 * in order, each stage non-empty. */
static void check_partitions(const tessel_explore *ex, int nlayers)
{
	char *json = NULL;
	TH_OK(tessel_explore_to_json(&json, ex, 0));
	size_t n = 0;
	TH_OK(tessel_explore_count(&n, ex));
	for (size_t k = 0; k < n; k++) {
		const tessel_graph *g = NULL;
		double stages = 0, replicas = 0;
		TH_OK(tessel_explore_get(&stages, ex, k, TESSEL_EXPLORE_STAGES));
		TH_OK(tessel_explore_get(&replicas, ex, k, TESSEL_EXPLORE_REPLICAS));
		int rc = tessel_explore_graph(&g, ex, k);
		if (rc) {
			assert_int_equal(rc, TESSEL_ENOTFOUND);
			assert_true(stages == 0);
			continue;
		}
		TH_OK(tessel_graph_validate(g));
		assert_true(stages >= 2);
	}
	/* every layer appears once per replica in each placed candidate's
	 * stages: counted over the JSON */
	char name[32];
	snprintf(name, sizeof name, "\"l%d\"", nlayers - 1);
	assert_true(th_count(json, name) >= 1);
	tessel_free(json);
}

static void test_explore_small(void **state)
{
	(void)state;
	char *t = profile(4, 12, 12, 8, "");
	tessel_model *m = model_of(t);
	free(t);
	int64_t v = 0;
	TH_OK(tessel_model_get(&v, m, TESSEL_MODEL_LAYERS));
	assert_int_equal(v, 14);
	const char *unit = NULL, *munit = NULL;
	TH_OK(tessel_model_units(&unit, &munit, m));
	assert_string_equal(unit, "ms");
	assert_string_equal(munit, "GiB");
	tessel_explore *ex = NULL;
	TH_OK(tessel_explore_new(&ex, m));
	tessel_model_free(m); /* the exploration does not need it */
	check_partitions(ex, 12);
	tessel_options *o = th_options(8);
	/* a budget shared by the candidates (lighter under a checker) */
	TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT,
				 th_work_limit() == TESSEL_WORK_AUTO
					 ? 2000 : 4 * TH_CHECKER_WORK));
	TH_OK(tessel_options_set(o, TESSEL_OPT_THREADS, 2));
	TH_OK(tessel_explore_run(ex, o));
	size_t n = 0;
	TH_OK(tessel_explore_count(&n, ex));
	assert_true(n >= 8);
	double prev = 0, t1f1b = -1, best = -1;
	int with = 0;
	for (size_t k = 0; k < n; k++) {
		double time = 0, s1 = 0, peak = 0, base = 0;
		const char *family = NULL, *why = NULL;
		TH_OK(tessel_explore_get(&time, ex, k, TESSEL_EXPLORE_TIME));
		TH_OK(tessel_explore_get(&s1, ex, k, TESSEL_EXPLORE_SPEEDUP_1F1B));
		TH_OK(tessel_explore_get(&peak, ex, k, TESSEL_EXPLORE_PEAK_MEMORY));
		TH_OK(tessel_explore_get(&base, ex, k, TESSEL_EXPLORE_BASELINE));
		TH_OK(tessel_explore_family(&family, ex, k));
		TH_OK(tessel_explore_reason(&why, ex, k));
		if (time < 0) {
			assert_true(why[0] != '\0');
			prev = 1e300; /* the rest have none */
			continue;
		}
		assert_true(prev <= time); /* ranked */
		prev = time;
		with++;
		if (best < 0)
			best = time;
		if (strcmp(family, "1f1b") == 0)
			t1f1b = time;
		assert_true(peak > 0 && peak <= 12 * (1 + 1e-9));
		const tessel_schedule *s = NULL;
		TH_OK(tessel_explore_schedule(&s, ex, k));
		TH_OK(tessel_schedule_validate(s));
		for (int d = 0; d < 4; d++) {
			double dm = 0;
			TH_OK(tessel_explore_device_memory(&dm, ex, k, d));
			assert_true(dm <= peak);
		}
	}
	assert_true(with >= 5);
	assert_true(t1f1b > 0);
	/* the search beats or matches the 1F1B order on its own placement */
	assert_true(best <= t1f1b);
	double s1 = 0;
	TH_OK(tessel_explore_get(&s1, ex, 0, TESSEL_EXPLORE_SPEEDUP_1F1B));
	assert_true(s1 >= 1.0 && s1 < 3.0);
	assert_true(s1 * best > t1f1b * 0.999 && s1 * best < t1f1b * 1.001);
	/* the same budget gives the same ranking and times again, on one
	 * thread */
	char *first = NULL, *second = NULL;
	TH_OK(tessel_explore_to_json(&first, ex, 0));
	TH_OK(tessel_options_set(o, TESSEL_OPT_THREADS, 1));
	TH_OK(tessel_explore_run(ex, o));
	TH_OK(tessel_explore_to_json(&second, ex, 0));
	assert_string_equal(first, second);
	tessel_free(first);
	tessel_free(second);
	th_expect_error(tessel_explore_get(&s1, ex, n, TESSEL_EXPLORE_TIME),
			TESSEL_ENOTFOUND, "out of range");
	th_expect_error(tessel_explore_device_memory(&s1, ex, 0, 4),
			TESSEL_ENOTFOUND, "device 4");
	/* cancelled before it starts: nothing searched */
	TH_OK(tessel_options_cancel(o));
	th_expect_error(tessel_explore_run(ex, o), TESSEL_ECANCELLED, "cancelled");
	tessel_options_free(o);
	tessel_explore_free(ex);
}

static int stop_after_two(const char *family, double time, int64_t work,
			  const char *reason, size_t done, size_t total,
			  void *payload)
{
	(void)family, (void)time, (void)work, (void)reason, (void)total;
	int *calls = payload;
	(*calls)++;
	return done >= 2;
}

static void test_progress_stops(void **state)
{
	(void)state;
	char *t = profile(4, 12, 12, 8, "");
	tessel_model *m = model_of(t);
	free(t);
	tessel_explore *ex = NULL;
	TH_OK(tessel_explore_new(&ex, m));
	tessel_model_free(m);
	int calls = 0;
	TH_OK(tessel_explore_set_progress(ex, stop_after_two, &calls));
	tessel_options *o = th_options(8);
	TH_OK(tessel_options_set(o, TESSEL_OPT_THREADS, 1));
	TH_OK(tessel_options_set(o, TESSEL_OPT_FAST, 1));
	TH_OK(tessel_explore_run(ex, o)); /* the first two have schedules */
	size_t n = 0, with = 0;
	TH_OK(tessel_explore_count(&n, ex));
	for (size_t k = 0; k < n; k++) {
		double time = 0;
		TH_OK(tessel_explore_get(&time, ex, k, TESSEL_EXPLORE_TIME));
		with += time >= 0;
	}
	assert_int_equal(with, 2);
	/* not called again once it asked to stop */
	assert_int_equal(calls, 2);
	/* nor with two threads, whose other report may wait meanwhile */
	calls = 0;
	TH_OK(tessel_options_set(o, TESSEL_OPT_THREADS, 2));
	TH_OK(tessel_explore_run(ex, o));
	assert_int_equal(calls, 2);
	tessel_options_free(o);
	tessel_explore_free(ex);
}

/* A callback that cancels the run's own options on the first candidate. */
struct cancel_job {
	tessel_options *o;
	int calls;
};

static int cancel_on_first(const char *family, double time, int64_t work,
			   const char *reason, size_t done, size_t total,
			   void *payload)
{
	(void)family, (void)time, (void)work, (void)reason, (void)done, (void)total;
	struct cancel_job *j = payload;
	j->calls++;
	TH_OK(tessel_options_cancel(j->o));
	return 0;
}

/* tessel_options_cancel from the exploration's own callback (the cancel
 * takes the run's lock, which the callback must not hold): the run stops
 * with the candidates done, on one thread and on two, and the callback is
 * not called again. */
static void test_cancel_from_callback(void **state)
{
	(void)state;
	char *t = profile(4, 12, 12, 8, "");
	tessel_model *m = model_of(t);
	free(t);
	for (int threads = 1; threads <= 2; threads++) {
		tessel_explore *ex = NULL;
		TH_OK(tessel_explore_new(&ex, m));
		struct cancel_job j = {th_options(8), 0};
		TH_OK(tessel_options_set(j.o, TESSEL_OPT_THREADS, threads));
		TH_OK(tessel_options_set(j.o, TESSEL_OPT_FAST, 1));
		TH_OK(tessel_explore_set_progress(ex, cancel_on_first, &j));
		int rc = tessel_explore_run(ex, j.o);
		assert_true(rc == TESSEL_OK || rc == TESSEL_ECANCELLED);
		assert_int_equal(j.calls, 1);
		size_t n = 0, with = 0;
		TH_OK(tessel_explore_count(&n, ex));
		for (size_t k = 0; k < n; k++) {
			double time = 0;
			TH_OK(tessel_explore_get(&time, ex, k, TESSEL_EXPLORE_TIME));
			with += time >= 0;
		}
		assert_true(with <= (size_t)threads);
		tessel_options_free(j.o);
		tessel_explore_free(ex);
	}
	tessel_model_free(m);
}

/* A callback that frees its own exploration on the second candidate. */
struct free_job {
	tessel_explore *ex;
	int calls;
};

static int free_on_second(const char *family, double time, int64_t work,
			  const char *reason, size_t done, size_t total,
			  void *payload)
{
	(void)family, (void)time, (void)work, (void)reason, (void)total;
	struct free_job *j = payload;
	j->calls++;
	if (done == 2) {
		/* running: the getters refuse, the free is left to the run */
		double v = 0;
		if (tessel_explore_get(&v, j->ex, 0, TESSEL_EXPLORE_TIME) != TESSEL_EINVAL)
			j->calls += 100;
		tessel_explore_free(j->ex);
		tessel_explore_free(j->ex); /* (asked again: nothing more) */
	}
	return 0;
}

/* tessel_explore_free from the exploration's own callback: the run stops
 * as a cancel stops it (the callback is not called again), frees the
 * exploration as it returns and says so (TESSEL_ECANCELLED); also when
 * several threads search. Never a use of the freed exploration (the
 * checkers' suites). */
static void test_free_from_callback(void **state)
{
	(void)state;
	char *t = profile(4, 12, 12, 8, "");
	tessel_model *m = model_of(t);
	free(t);
	for (int threads = 1; threads <= 2; threads++) {
		struct free_job j = {0};
		TH_OK(tessel_explore_new(&j.ex, m));
		TH_OK(tessel_explore_set_progress(j.ex, free_on_second, &j));
		tessel_options *o = th_options(8);
		TH_OK(tessel_options_set(o, TESSEL_OPT_THREADS, threads));
		TH_OK(tessel_options_set(o, TESSEL_OPT_FAST, 1));
		th_expect_error(tessel_explore_run(j.ex, o), TESSEL_ECANCELLED,
				"freed");
		/* the callback is not called after the free */
		assert_int_equal(j.calls, 2);
		tessel_options_free(o);
	}
	/* not running: freed at once (valgrind and AddressSanitizer check
	 * that nothing is left) */
	tessel_explore *ex = NULL;
	TH_OK(tessel_explore_new(&ex, m));
	tessel_explore_free(ex);
	tessel_explore_free(NULL);
	tessel_model_free(m);
}

static void test_inference_and_branches(void **state)
{
	(void)state;
	char *t = profile(4, 12, 12, 8, "\"mode\": \"inference\", ");
	tessel_model *m = model_of(t);
	free(t);
	tessel_explore *ex = NULL;
	TH_OK(tessel_explore_new(&ex, m));
	tessel_model_free(m);
	tessel_options *o = th_options(8);
	TH_OK(tessel_options_set(o, TESSEL_OPT_FAST, 1));
	TH_OK(tessel_explore_run(ex, o));
	const char *family = NULL;
	size_t n = 0;
	TH_OK(tessel_explore_count(&n, ex));
	int order = 0;
	for (size_t k = 0; k < n; k++) {
		TH_OK(tessel_explore_family(&family, ex, k));
		assert_true(strcmp(family, "zero-bubble") && strcmp(family, "1f1b"));
		order += strcmp(family, "pipeline-order") == 0;
	}
	assert_int_equal(order, 1);
	tessel_explore_free(ex);
	/* two branches meeting: every family places, k-shape among them */
	char *text = th_read_file(th_data_path("model-branches.json"), NULL);
	if (text) {
		m = model_of(text);
		free(text);
		TH_OK(tessel_explore_new(&ex, m));
		tessel_model_free(m);
		TH_OK(tessel_explore_run(ex, o));
		int k_placed = 0;
		TH_OK(tessel_explore_count(&n, ex));
		for (size_t k = 0; k < n; k++) {
			const tessel_graph *g = NULL;
			TH_OK(tessel_explore_family(&family, ex, k));
			if (strcmp(family, "k-shape") == 0 &&
			    tessel_explore_graph(&g, ex, k) == TESSEL_OK)
				k_placed = 1;
		}
		assert_true(k_placed);
		tessel_explore_free(ex);
	}
	tessel_options_free(o);
}

/* Few layers on many devices: 3 layers on 16 devices leave only the
 * pipeline of 2 stages each tensor-parallel on 8 devices (tp8): it is
 * placed, searched and ranked first; tp4 (4 stages) and the one-stage-a-
 * device families give their reasons. */
static void test_tp8_few_layers(void **state)
{
	(void)state;
	char *t = profile(16, 12, 1, 8, "");
	tessel_model *m = model_of(t);
	free(t);
	tessel_explore *ex = NULL;
	TH_OK(tessel_explore_new(&ex, m));
	tessel_model_free(m);
	tessel_options *o = th_options(8);
	TH_OK(tessel_options_set(o, TESSEL_OPT_FAST, 1));
	TH_OK(tessel_explore_run(ex, o));
	size_t n = 0;
	TH_OK(tessel_explore_count(&n, ex));
	const char *family = NULL, *why = NULL;
	double time = 0, stages = 0;
	TH_OK(tessel_explore_family(&family, ex, 0));
	assert_string_equal(family, "tp8");
	TH_OK(tessel_explore_get(&time, ex, 0, TESSEL_EXPLORE_TIME));
	TH_OK(tessel_explore_get(&stages, ex, 0, TESSEL_EXPLORE_STAGES));
	assert_true(time > 0);
	assert_true(stages == 2);
	const tessel_schedule *s = NULL;
	TH_OK(tessel_explore_schedule(&s, ex, 0));
	TH_OK(tessel_schedule_validate(s));
	for (size_t k = 1; k < n; k++) {
		TH_OK(tessel_explore_family(&family, ex, k));
		TH_OK(tessel_explore_get(&time, ex, k, TESSEL_EXPLORE_TIME));
		TH_OK(tessel_explore_reason(&why, ex, k));
		if (strcmp(family, "tp4") == 0) {
			assert_true(time < 0);
			assert_non_null(strstr(why, "layers"));
		}
	}
	tessel_options_free(o);
	tessel_explore_free(ex);
}

/* The tensor-parallel ends of an m-shape keep fewer micro-batches in
 * flight when nothing else makes a cut fit: on 2 devices of 8.2 GiB, 16
 * equal layers, m-shape and nn-shape have schedules (they were refused
 * with "no cut ... fits the memory" though a cut has one). */
static void test_tensor_parallel_ends_keep_fewer(void **state)
{
	(void)state;
	char text[4096];
	size_t n = (size_t)snprintf(text, sizeof text,
		"{\"unit\": \"ms\", \"memory_unit\": \"GiB\", \"devices\": 2, "
		"\"memory_per_device\": 8.2, \"transfer\": 0.1, \"micro_batches\": 8, "
		"\"tensor_parallel\": {\"efficiency\": 0.85, \"allreduce\": 0.1}, \"layers\": [");
	for (int i = 0; i < 16; i++)
		n += (size_t)snprintf(text + n, sizeof text - n,
			"%s{\"name\": \"l%d\", \"forward\": 1, \"backward\": 1, \"weight\": 0.8, "
			"\"activation\": 0.5, \"parameters\": 0.5}", i ? ", " : "", i);
	snprintf(text + n, sizeof text - n, "]}");
	tessel_model *m = model_of(text);
	tessel_explore *ex = NULL;
	TH_OK(tessel_explore_new(&ex, m));
	tessel_model_free(m);
	tessel_options *o = th_options(8);
	TH_OK(tessel_options_set(o, TESSEL_OPT_FAST, 1));
	TH_OK(tessel_explore_run(ex, o));
	size_t count = 0, found = 0;
	TH_OK(tessel_explore_count(&count, ex));
	for (size_t k = 0; k < count; k++) {
		const char *family = NULL, *why = NULL;
		double time = -1;
		TH_OK(tessel_explore_family(&family, ex, k));
		TH_OK(tessel_explore_reason(&why, ex, k));
		TH_OK(tessel_explore_get(&time, ex, k, TESSEL_EXPLORE_TIME));
		if (!strcmp(family, "m-shape") || !strcmp(family, "nn-shape")) {
			print_message("%s: %g %s\n", family, time, why);
			assert_true(time > 0);
			const tessel_schedule *s = NULL;
			TH_OK(tessel_explore_schedule(&s, ex, k));
			TH_OK(tessel_schedule_validate(s));
			found++;
		}
	}
	assert_int_equal(found, 2);
	tessel_options_free(o);
	tessel_explore_free(ex);
}

/* A model of two layers on 2 devices with `micros` micro-batches:
 * memory per device, each layer's parameters and activation, transfer. */
static tessel_model *two_layers(double memory, int micros, double parameters,
				double activation, double transfer,
				double second_time)
{
	char t[1024];
	snprintf(t, sizeof t,
		 "{\"model\": \"two\", \"unit\": \"ms\", \"devices\": 2, \"memory_per_device\": %.17g, "
		 "\"micro_batches\": %d, \"transfer\": %.17g, \"layers\": ["
		 "{\"name\": \"a\", \"forward\": 1, \"backward\": 2, \"activation\": %.17g, \"parameters\": %.17g}, "
		 "{\"name\": \"b\", \"forward\": %.17g, \"backward\": %.17g, \"activation\": %.17g, \"parameters\": %.17g}]}",
		 memory, micros, transfer, activation, parameters, second_time,
		 second_time, activation, parameters);
	return model_of(t);
}

/* The rank of `family` in the exploration. */
static size_t family_at(const tessel_explore *ex, const char *family)
{
	size_t n = 0;
	TH_OK(tessel_explore_count(&n, ex));
	for (size_t k = 0; k < n; k++) {
		const char *f = NULL;
		TH_OK(tessel_explore_family(&f, ex, k));
		if (strcmp(f, family) == 0)
			return k;
	}
	fail_msg("no family %s", family);
	return 0;
}

/* The exploration of m, run with the tests' budget; the model freed. */
static tessel_explore *explore_run(tessel_model *m, int micros)
{
	tessel_explore *ex = NULL;
	TH_OK(tessel_explore_new(&ex, m));
	tessel_model_free(m);
	tessel_options *o = th_options(micros);
	TH_OK(tessel_explore_run(ex, o));
	tessel_options_free(o);
	return ex;
}

/* GPipe's time and peak memory, which it must have. */
static void gpipe_figures(double *time, double *peak, const tessel_explore *ex)
{
	size_t k = family_at(ex, "gpipe");
	TH_OK(tessel_explore_get(time, ex, k, TESSEL_EXPLORE_TIME));
	TH_OK(tessel_explore_get(peak, ex, k, TESSEL_EXPLORE_PEAK_MEMORY));
	assert_true(*time > 0);
}

/* Memory the model's figures fill exactly is counted exactly: a model
 * that fits in real numbers is not refused for rounding, and the peaks
 * are the real ones, tiny activations and large memories included. */
static void test_memory_counted_exactly(void **state)
{
	(void)state;
	double time = 0, peak = 0;
	/* parameters 1 and one micro-batch's activation 2 fill 3 exactly */
	tessel_explore *ex = explore_run(two_layers(3, 1, 1, 2, 0, 1), 1);
	gpipe_figures(&time, &peak, ex);
	assert_true(fabs(peak - 3) < 1e-12);
	tessel_explore_free(ex);
	/* 70000 micro-batches of 1e-9 each hold 7e-5 of 1: GPipe fits */
	tessel_model *m = two_layers(1, 70000, 0, 1e-9, 0, 1);
	TH_OK(tessel_explore_new(&ex, m));
	tessel_model_free(m);
	const tessel_graph *g = NULL;
	TH_OK(tessel_explore_graph(&g, ex, family_at(ex, "gpipe")));
	tessel_explore_free(ex);
	/* the peak of 8 of them is 8e-9, not 8 whole units of the memory */
	ex = explore_run(two_layers(1, 8, 0, 1e-9, 0, 1), 8);
	gpipe_figures(&time, &peak, ex);
	assert_true(fabs(peak - 8e-9) < 1e-18);
	tessel_explore_free(ex);
	/* a large memory: parameters 1 and 8 activations of 0.5 */
	ex = explore_run(two_layers(1e6, 8, 1, 0.5, 0, 1), 8);
	gpipe_figures(&time, &peak, ex);
	assert_true(fabs(peak - 5) < 1e-9);
	tessel_explore_free(ex);
	/* a memory too large for its figures' quantum (1e9 / 0.1 units):
	 * counted in billionths of it, never below the real peak */
	ex = explore_run(two_layers(1e9, 8, 1, 0.55, 0, 1), 8);
	gpipe_figures(&time, &peak, ex);
	assert_true(peak >= 1 + 8 * 0.55 && peak <= 1 + 8 * 0.55 + 8 * 1e9 * 1e-9);
	tessel_explore_free(ex);
	/* parameters 0.1 + 0.2 beside 0.3 fill 0.3 on each device exactly
	 * (0.3 - (0.1 + 0.2) is below 0 in doubles) */
	ex = explore_run(model_of(
		"{\"model\": \"sums\", \"unit\": \"ms\", \"devices\": 2, "
		"\"memory_per_device\": 0.3, \"micro_batches\": 2, \"layers\": ["
		"{\"name\": \"a\", \"forward\": 1, \"backward\": 1, \"activation\": 0, \"parameters\": 0.1}, "
		"{\"name\": \"b\", \"forward\": 1, \"backward\": 1, \"activation\": 0, \"parameters\": 0.2}, "
		"{\"name\": \"c\", \"forward\": 1, \"backward\": 1, \"activation\": 0, \"parameters\": 0.3}]}"), 2);
	gpipe_figures(&time, &peak, ex);
	assert_true(fabs(peak - 0.3) < 1e-12);
	tessel_explore_free(ex);
	/* an activation a billionth above the memory (counted in the fallback
	 * unit, a billionth of it) does not fit */
	m = two_layers(1, 1, 0, 1.0000000005, 0, 1);
	TH_OK(tessel_explore_new(&ex, m));
	tessel_model_free(m);
	tessel_options *o = th_options(1);
	th_expect_error(tessel_explore_run(ex, o), TESSEL_EINFEASIBLE, "fits the memory");
	tessel_options_free(o);
	const char *why = NULL;
	TH_OK(tessel_explore_reason(&why, ex, family_at(ex, "gpipe")));
	assert_non_null(strstr(why, "fits the memory"));
	tessel_explore_free(ex);
}

/* Times a step cannot resolve together: the negligible ones round on
 * their own and every family keeps its placement. */
static void test_negligible_times(void **state)
{
	(void)state;
	double time = 0, peak = 0, plain = 0;
	/* a transfer of 1e-6 beside layers of 1 to 2 adds no latency */
	tessel_explore *ex = explore_run(two_layers(16, 4, 1, 1, 0, 1.5), 4);
	gpipe_figures(&plain, &peak, ex);
	tessel_explore_free(ex);
	ex = explore_run(two_layers(16, 4, 1, 1, 1e-6, 1.5), 4);
	gpipe_figures(&time, &peak, ex);
	assert_true(fabs(time - plain) < 1e-9 * plain);
	size_t n = 0;
	TH_OK(tessel_explore_count(&n, ex));
	for (size_t k = 0; k < n; k++) {
		const char *why = NULL;
		TH_OK(tessel_explore_reason(&why, ex, k));
		assert_null(strstr(why, "tessel_pick_step"));
	}
	tessel_explore_free(ex);
	/* layer times a factor 1e9 apart: the short one takes one step */
	ex = explore_run(two_layers(16, 4, 1, 1, 0, 1e-9), 4);
	gpipe_figures(&time, &peak, ex);
	assert_true(time >= 12 && time <= 16);
	tessel_explore_free(ex);
	/* a transfer 1e9 times the layers': the layers are negligible, but
	 * not made as long as it (a step of 1e9 would give > 1e10) */
	ex = explore_run(two_layers(16, 4, 1, 1, 1e9, 1.5), 4);
	gpipe_figures(&time, &peak, ex);
	assert_true(time >= 2e9 && time <= 2e9 * 1.0001);
	tessel_explore_free(ex);
}

/* A measured tensor-parallel time that gives the forward only: the
 * backward and weight times come from the efficiency, not 0. */
static void test_tp_times_forward_only(void **state)
{
	(void)state;
	double t_eff = 0, t_fwd = 0;
	for (int given = 0; given < 2; given++) {
		char *t = profile(4, 80, 4, 4,
				  given ? "\"tensor_parallel\": {\"efficiency\": 0.85, "
					  "\"allreduce\": 0.15, \"times\": [{\"devices\": 2, "
					  "\"forward\": 0.6470588235294118}]}, "
					: "");
		/* (the profile's own "tensor_parallel" comes after: the first
		 * given is a duplicate key unless replaced) */
		if (given) {
			char *at = strstr(t, "\"tensor_parallel\": {\"efficiency\": 0.85, \"allreduce\": 0.15}, \"layers\"");
			assert_non_null(at);
			memmove(at, at + strlen("\"tensor_parallel\": {\"efficiency\": 0.85, \"allreduce\": 0.15}, "),
				strlen(at + strlen("\"tensor_parallel\": {\"efficiency\": 0.85, \"allreduce\": 0.15}, ")) + 1);
		}
		tessel_explore *ex = explore_run(model_of(t), 4);
		free(t);
		size_t k = family_at(ex, "tp2");
		TH_OK(tessel_explore_get(given ? &t_fwd : &t_eff, ex, k,
					 TESSEL_EXPLORE_TIME));
		tessel_explore_free(ex);
	}
	/* the layers' forward as the efficiency gives it (the embedding's
	 * and head's a little longer): about the same time, where backward
	 * and weight taken as 0 would give well under half */
	assert_true(t_eff > 0);
	assert_true(t_fwd >= 0.95 * t_eff && t_fwd <= 1.5 * t_eff);
}

/* Memory too small for any family: EINFEASIBLE, every reason given. */
static void test_nothing_fits(void **state)
{
	(void)state;
	char *t = profile(4, 2, 12, 8, "");
	tessel_model *m = model_of(t);
	free(t);
	tessel_explore *ex = NULL;
	TH_OK(tessel_explore_new(&ex, m));
	tessel_model_free(m);
	th_expect_error(tessel_explore_run(ex, NULL), TESSEL_EINFEASIBLE,
			"no placement family has a schedule");
	size_t n = 0;
	TH_OK(tessel_explore_count(&n, ex));
	for (size_t k = 0; k < n; k++) {
		const char *why = NULL;
		TH_OK(tessel_explore_reason(&why, ex, k));
		assert_true(why[0] != '\0');
	}
	tessel_explore_free(ex);
}

/* A tensor-parallel efficiency so small that a stage's time overflows:
 * the families that divide by it say so, the others run. */
static void test_tiny_tp_efficiency(void **state)
{
	(void)state;
	char *t = profile(4, 12, 12, 8, "");
	const char *key = "\"efficiency\": 0.85";
	char *at = strstr(t, key);
	assert_non_null(at);
	size_t cap = strlen(t) + 32;
	char *u = malloc(cap);
	assert_non_null(u);
	snprintf(u, cap, "%.*s\"efficiency\": 5e-324%s", (int)(at - t), t,
		 at + strlen(key));
	free(t);
	tessel_explore *ex = explore_run(model_of(u), 8);
	free(u);
	const char *why = NULL;
	TH_OK(tessel_explore_reason(&why, ex, family_at(ex, "tp2")));
	assert_non_null(strstr(why, "time is out of range"));
	assert_non_null(strstr(why, "tensor-parallel efficiency"));
	double time = 0;
	TH_OK(tessel_explore_get(&time, ex, family_at(ex, "1f1b"),
				 TESSEL_EXPLORE_TIME));
	assert_true(time > 0);
	tessel_explore_free(ex);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_errors),
		cmocka_unit_test(test_explore_small),
		cmocka_unit_test(test_progress_stops),
		cmocka_unit_test(test_cancel_from_callback),
		cmocka_unit_test(test_free_from_callback),
		cmocka_unit_test(test_inference_and_branches),
		cmocka_unit_test(test_nothing_fits),
		cmocka_unit_test(test_tp_times_forward_only),
		cmocka_unit_test(test_tensor_parallel_ends_keep_fewer),
		cmocka_unit_test(test_tp8_few_layers),
		cmocka_unit_test(test_memory_counted_exactly),
		cmocka_unit_test(test_negligible_times),
		cmocka_unit_test(test_tiny_tp_efficiency),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
