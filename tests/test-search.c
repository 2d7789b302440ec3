/* The search: valid schedules for every preset and example, proven optimal
 * periods, makespans at least as good as the reference implementation's,
 * infeasible inputs, options. Every schedule is checked by the validator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include <pthread.h>
#include <unistd.h>

#include "helpers.h"
#include "tessel.h"

/* Checks every schedule the search returns: the validator, exactly one
 * entry per (block, micro-batch), figures consistent with the entries. */
static void check_schedule(const tessel_schedule *s, int64_t nmicros)
{
	TH_OK(tessel_schedule_validate(s));
	int64_t nb = th_sched(s, TESSEL_SCHED_NBLOCKS);
	assert_int_equal(th_sched(s, TESSEL_SCHED_NMICROS), nmicros);
	assert_int_equal(th_sched(s, TESSEL_SCHED_NENTRIES), nb * nmicros);
	char *seen = calloc((size_t)(nb * nmicros), 1);
	assert_non_null(seen);
	tessel_iter *it = NULL;
	const tessel_entry *e;
	int64_t count = 0, last = -1, makespan = 0;
	TH_OK(tessel_iter_new(&it, s, TESSEL_ALL_DEVICES));
	while (tessel_iter_next(&e, it) == TESSEL_OK) {
		int64_t gid, mid, start, span;
		TH_OK(tessel_entry_get(&gid, e, TESSEL_ENTRY_GID));
		TH_OK(tessel_entry_get(&mid, e, TESSEL_ENTRY_MICRO_BATCH));
		TH_OK(tessel_entry_get(&start, e, TESSEL_ENTRY_START));
		TH_OK(tessel_entry_get(&span, e, TESSEL_ENTRY_SPAN));
		assert_true(start >= last);
		last = start;
		assert_false(seen[mid * nb + gid]);
		seen[mid * nb + gid] = 1;
		if (start + span > makespan)
			makespan = start + span;
		count++;
	}
	tessel_iter_free(it);
	free(seen);
	assert_int_equal(count, nb * nmicros);
	assert_int_equal(makespan, th_sched(s, TESSEL_SCHED_MAKESPAN));
	assert_true(th_sched(s, TESSEL_SCHED_MAKESPAN) >=
		    th_sched(s, TESSEL_SCHED_LOWER_BOUND));
	assert_true(th_sched(s, TESSEL_SCHED_PERIOD) >=
		    th_sched(s, TESSEL_SCHED_RESOURCE_BOUND));
}

static void search_and_check(const tessel_graph *g, const char *what)
{
	const int64_t ns[] = {1, 4, 16, 128};
	size_t count = th_under_checker() ? 2 : 4;
	for (size_t i = 0; i < count; i++) {
		tessel_schedule *s = th_search(g, ns[i], 0, 0, 0);
		if (!s)
			print_error("%s, N = %lld\n", what, (long long)ns[i]);
		assert_non_null(s);
		check_schedule(s, ns[i]);
		tessel_schedule_free(s);
	}
}

/* Every preset at D = 4, 6, 8, training and inference, N = 1, 4, 16, 128. */
static void test_presets_valid(void **state)
{
	(void)state;
	const char *names[] = {"vshape", "xshape", "mshape", "nnshape", "kshape"};
	int maxD = th_under_checker() ? 4 : 8;
	for (int D = 4; D <= maxD; D += 2)
		for (size_t i = 0; i < 5; i++)
			for (int infer = 0; infer <= 1; infer++) {
				tessel_graph *g = NULL;
				char what[64];
				snprintf(what, sizeof what, "%s D=%d%s", names[i], D,
					 infer ? " inference" : "");
				/* generous memory: the resource-bound period fits */
				TH_OK(tessel_preset(&g, names[i], D, infer, 2 * D + 2));
				search_and_check(g, what);
				tessel_graph_free(g);
			}
}

static void test_examples_valid(void **state)
{
	(void)state;
	const char *files[] = {"vshape-4dev.json", "mshape-4dev.json",
			       "kshape-4dev.json"};
	for (size_t i = 0; i < 3; i++) {
		tessel_graph *g = NULL;
		TH_OK(tessel_graph_from_file(&g, th_data_path(files[i])));
		search_and_check(g, files[i]);
		tessel_graph_free(g);
	}
}

/* The reference's cases at D = 4: proven optimal periods and makespans for
 * N = 16 no longer than the reference's (vshape matches 1F1B's 76). */
static void test_reference_cases(void **state)
{
	(void)state;
	struct {
		const char *name;
		int infer;
		int64_t memory, period, makespan;
	} cases[] = {
		{"vshape", 0, 4, 4, 76},  {"xshape", 0, 4, 8, 175},
		{"mshape", 0, 6, 6, 108}, {"nnshape", 0, 6, 8, 140},
		{"kshape", 1, 4, 2, 34},  {"vshape", 1, 4, 1, 19},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tessel_graph *g = NULL;
		TH_OK(tessel_preset(&g, cases[i].name, 4, cases[i].infer,
				    cases[i].memory));
		tessel_schedule *s = th_search(g, 16, 0, 0, 0);
		assert_non_null(s);
		check_schedule(s, 16);
		int64_t P = th_sched(s, TESSEL_SCHED_PERIOD);
		int64_t M = th_sched(s, TESSEL_SCHED_MAKESPAN);
		if (P != cases[i].period || M > cases[i].makespan)
			print_error("%s%s: period %lld (want %lld), makespan %lld (want <= %lld)\n",
				    cases[i].name, cases[i].infer ? " inference" : "",
				    (long long)P, (long long)cases[i].period,
				    (long long)M, (long long)cases[i].makespan);
		assert_int_equal(P, cases[i].period);
		assert_int_equal(th_sched(s, TESSEL_SCHED_PERIOD_OPTIMAL), 1);
		assert_true(M <= cases[i].makespan);
		tessel_schedule_free(s);
		tessel_graph_free(g);
	}
}

/* Memory below what one micro-batch needs: a distinct error, no schedule. */
static void test_infeasible(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_preset(&g, "vshape", 4, 0, 4));
	TH_OK(tessel_graph_set_memory_limit(g, 2, 0));
	tessel_schedule *s = (tessel_schedule *)&s;
	assert_int_equal(tessel_search(&s, g, NULL), TESSEL_EINFEASIBLE);
	assert_null(s);
	assert_non_null(strstr(tessel_error_last(), "device 2"));
	tessel_graph_free(g);
}

/* Memory that no micro-batch gives back: a device whose blocks' changes
 * add up to 1 per micro-batch ends 16 micro-batches holding 16, so under
 * a limit of 3 no schedule of 16 exists: EINFEASIBLE saying so (before,
 * "every repetend found breaks a limit once completed"). Under 17 (15
 * left behind and the last micro-batch's 2) the search finds one. */
static void test_infeasible_leftover(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	int f = -1, b = -1, h = -1;
	TH_OK(tessel_graph_new(&g, 2));
	TH_OK(tessel_graph_add_block(&f, g, "f", TESSEL_KIND_FORWARD, 1, 2));
	TH_OK(tessel_graph_add_block(&h, g, "h", TESSEL_KIND_FORWARD, 1, 1));
	TH_OK(tessel_graph_add_block(&b, g, "b", TESSEL_KIND_BACKWARD, 1, -1));
	TH_OK(tessel_graph_place(g, f, (int[]){0}, 1));
	TH_OK(tessel_graph_place(g, h, (int[]){1}, 1));
	TH_OK(tessel_graph_place(g, b, (int[]){0}, 1));
	TH_OK(tessel_graph_add_dep(g, f, h));
	TH_OK(tessel_graph_add_dep(g, h, b));
	TH_OK(tessel_graph_set_memory_limit(g, 0, 3));
	tessel_schedule *s = (tessel_schedule *)&s;
	assert_int_equal(tessel_search(&s, g, NULL), TESSEL_EINFEASIBLE);
	assert_null(s);
	print_message("%s\n", tessel_error_last());
	assert_non_null(strstr(tessel_error_last(), "device 0: each micro-batch leaves 1"));
	assert_non_null(strstr(tessel_error_last(), "16 micro-batches end holding 16"));
	TH_OK(tessel_graph_set_memory_limit(g, 0, 17));
	s = th_search(g, 16, 0, 0, 0);
	assert_true(th_sched(s, TESSEL_SCHED_MAKESPAN) > 0);
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

/* Tight memory forces a longer period: vshape with memory 2 on device 0
 * cannot keep 4 micro-batches in flight. The period grows and stays proven. */
static void test_memory_forces_longer_period(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_preset(&g, "vshape", 4, 0, 2));
	tessel_schedule *s = th_search(g, 16, 0, 0, 0);
	assert_non_null(s);
	check_schedule(s, 16);
	assert_true(th_sched(s, TESSEL_SCHED_PERIOD) > 4);
	/* the proof needs more than a checker's budget */
	if (!th_under_checker())
		assert_int_equal(th_sched(s, TESSEL_SCHED_PERIOD_OPTIMAL), 1);
	for (int d = 0; d < 4; d++) {
		int64_t peak;
		TH_OK(tessel_schedule_peak_memory(&peak, s, d));
		assert_true(peak <= 2);
	}
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

static void test_options(void **state)
{
	(void)state;
	tessel_options *o = NULL;
	int64_t v, lo, hi;
	TH_OK(tessel_options_new(&o));
	TH_OK(tessel_options_get(&v, o, TESSEL_OPT_MICRO_BATCHES));
	assert_int_equal(v, 16);
	assert_int_equal(tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, 0),
			 TESSEL_ERANGE);
	assert_non_null(strstr(tessel_error_last(), "micro-batches"));
	TH_OK(tessel_options_get(&v, o, TESSEL_OPT_MICRO_BATCHES));
	assert_int_equal(v, 16);
	assert_int_equal(tessel_options_set(o, (tessel_option)99, 1), TESSEL_EINVAL);
	assert_int_equal(tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, -1),
			 TESSEL_ERANGE);
	TH_OK(tessel_options_bounds(&lo, &hi, TESSEL_OPT_THREADS));
	assert_int_equal(lo, 0);
	assert_true(hi >= 64);
	assert_int_equal(tessel_options_set(NULL, TESSEL_OPT_FAST, 1), TESSEL_EINVAL);
	tessel_options_free(o);
	tessel_options_free(NULL);

	tessel_schedule *s = NULL;
	assert_int_equal(tessel_search(&s, NULL, NULL), TESSEL_EINVAL);
	assert_int_equal(tessel_search(NULL, NULL, NULL), TESSEL_EINVAL);
}

/* A search with defaults (NULL options) gives N = 16 and is deterministic. */
static void test_defaults_deterministic(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_preset(&g, "mshape", 4, 0, 6));
	tessel_schedule *a = NULL, *b = NULL;
	TH_OK(tessel_search(&a, g, NULL));
	TH_OK(tessel_search(&b, g, NULL));
	assert_int_equal(th_sched(a, TESSEL_SCHED_NMICROS), 16);
	char *ta = NULL, *tb = NULL;
	TH_OK(tessel_schedule_to_text(&ta, a));
	TH_OK(tessel_schedule_to_text(&tb, b));
	/* identical apart from the search time line */
	char *cut_a = strstr(ta, "search time"), *cut_b = strstr(tb, "search time");
	if (cut_a)
		*cut_a = '\0';
	if (cut_b)
		*cut_b = '\0';
	assert_string_equal(ta, tb);
	tessel_free(ta);
	tessel_free(tb);
	tessel_schedule_free(a);
	tessel_schedule_free(b);
	tessel_graph_free(g);
}

static int progress_calls;

static int stop_at_first(int64_t period, int64_t makespan, int64_t lower_bound,
			 int proven, void *payload)
{
	assert_ptr_equal(payload, &progress_calls);
	assert_true(period >= 1);
	assert_true(makespan >= lower_bound);
	assert_true(proven == 0 || proven == 1);
	progress_calls++;
	return 1; /* stop */
}

static int count_progress(int64_t period, int64_t makespan, int64_t lower_bound,
			  int proven, void *payload)
{
	(void)period;
	(void)makespan;
	(void)lower_bound;
	(void)proven;
	(*(int *)payload)++;
	return 0;
}

/* A progress callback sees each improvement and can stop the search, which
 * then returns the best schedule so far. */
static void test_progress(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	tessel_options *o = NULL;
	tessel_schedule *s = NULL;
	TH_OK(tessel_preset(&g, "nnshape", 4, 0, 6));
	TH_OK(tessel_options_new(&o));
	int calls = 0;
	TH_OK(tessel_options_set_progress(o, count_progress, &calls));
	TH_OK(tessel_search(&s, g, o));
	assert_true(calls >= 1);
	check_schedule(s, 16);
	tessel_schedule_free(s);

	progress_calls = 0;
	TH_OK(tessel_options_set_progress(o, stop_at_first, &progress_calls));
	TH_OK(tessel_search(&s, g, o));
	assert_int_equal(progress_calls, 1);
	check_schedule(s, 16);
	tessel_schedule_free(s);
	TH_OK(tessel_options_set_progress(o, NULL, NULL));
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* Stopping at the n-th progress event, for every n: the search returns a
 * valid schedule, the best one so far (its makespan the last one
 * reported), never "no schedule". Deterministic under a work budget. */
typedef struct stop_at {
	int n, seen;
	int64_t makespan; /* the best reported when stopped */
	char phases[256];
} stop_at;

static int stop_at_event(const tessel_progress *p, void *payload)
{
	stop_at *st = payload;
	int64_t ms = 0, period = 0, k = 0;
	const char *phase = NULL;
	TH_OK(tessel_progress_get(&ms, p, TESSEL_PROGRESS_MAKESPAN));
	TH_OK(tessel_progress_get(&period, p, TESSEL_PROGRESS_PERIOD));
	TH_OK(tessel_progress_get(&k, p, TESSEL_PROGRESS_REPETEND_MICRO_BATCHES));
	TH_OK(tessel_progress_phase(&phase, p));
	assert_non_null(phase);
	if (strlen(st->phases) + strlen(phase) + 2 < sizeof st->phases) {
		strcat(st->phases, " ");
		strcat(st->phases, phase);
	}
	st->makespan = ms;
	return ++st->seen == st->n;
}

static void test_stop_anywhere(void **state)
{
	(void)state;
	static const struct {
		const char *preset;
		int devices;
		int64_t memory, nmicros;
	} cases[] = {{"nnshape", 4, 6, 16}, {"vshape", 4, 8, 12}};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		tessel_graph *g = NULL;
		tessel_options *o = NULL;
		TH_OK(tessel_preset(&g, cases[c].preset, cases[c].devices, 0,
				    cases[c].memory));
		TH_OK(tessel_options_new(&o));
		TH_OK(tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, cases[c].nmicros));
		TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT,
					 th_under_checker() ? TH_CHECKER_WORK : 2000));
		stop_at all = {.n = -1};
		tessel_schedule *s = NULL;
		TH_OK(tessel_options_set_progress_fn(o, stop_at_event, &all));
		TH_OK(tessel_search(&s, g, o));
		int64_t full = 0;
		TH_OK(tessel_schedule_get(&full, s, TESSEL_SCHED_MAKESPAN));
		tessel_schedule_free(s);
		print_message("%s: %d events:%s\n", cases[c].preset, all.seen, all.phases);
		assert_true(all.seen >= 2);
		int64_t last = INT64_MAX;
		for (int n = 1; n <= all.seen; n++) {
			stop_at st = {.n = n};
			TH_OK(tessel_options_set_progress_fn(o, stop_at_event, &st));
			TH_OK(tessel_search(&s, g, o));
			TH_OK(tessel_schedule_validate(s));
			int64_t ms = 0;
			TH_OK(tessel_schedule_get(&ms, s, TESSEL_SCHED_MAKESPAN));
			/* the best so far: the makespan last reported (none yet
			 * before the first schedule: then the first one) */
			if (st.makespan)
				assert_int_equal(ms, st.makespan);
			assert_true(ms >= full);
			assert_true(ms <= last); /* later stops are no worse */
			last = ms;
			tessel_schedule_free(s);
		}
		assert_int_equal(last, full);
		TH_OK(tessel_options_set_progress_fn(o, NULL, NULL));
		tessel_options_free(o);
		tessel_graph_free(g);
	}
}

static void *cancel_later(void *arg)
{
	usleep(20000);
	tessel_options_cancel(arg);
	return NULL;
}

/* Cancelling from another thread ends a long search promptly with the best
 * schedule so far (the heuristic's at least), or TESSEL_ECANCELLED. */
static void test_cancel(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	tessel_options *o = NULL;
	tessel_schedule *s = NULL;
	/* a memory-tight search that takes seconds without a cancel */
	TH_OK(tessel_preset(&g, "nnshape", 8, 0, 10));
	o = th_options(16);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, cancel_later, o), 0);
	int rc = tessel_search(&s, g, o);
	pthread_join(t, NULL);
	if (rc == TESSEL_OK) {
		check_schedule(s, 16);
		tessel_schedule_free(s);
	} else {
		assert_int_equal(rc, TESSEL_ECANCELLED);
		assert_null(s);
	}
	/* The request stays in force: every phase, the heuristic's too,
	 * stops at once, and without a schedule found there is none. */
	tessel_graph *x = NULL;
	TH_OK(tessel_preset(&x, "xshape", 4, 0, 3));
	assert_int_equal(tessel_search(&s, x, o), TESSEL_ECANCELLED);
	assert_null(s);
	/* cleared: the search runs again, every phase, to the schedule of
	 * makespan 150 (period 10; a period 9 schedule of the same makespan
	 * exists: the solver finds it with more work) under a budget above
	 * the default for these 192 instances; a slow checker's time limit
	 * cuts it short */
	TH_OK(tessel_options_clear_cancel(o));
	if (!th_under_checker())
		TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, 10000));
	TH_OK(tessel_search(&s, x, o));
	check_schedule(s, 16);
	if (!th_under_checker()) {
		assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 150);
		assert_true(th_sched(s, TESSEL_SCHED_PERIOD) <= 10);
	}
	tessel_schedule_free(s);
	s = NULL;
	tessel_graph_free(x);
	TH_OK(tessel_options_set(o, TESSEL_OPT_FAST, 1));
	TH_OK(tessel_search(&s, g, o));
	check_schedule(s, 16);
	tessel_schedule_free(s);
	assert_int_equal(tessel_options_cancel(NULL), TESSEL_EINVAL);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* The heuristic mode gives valid schedules for every preset up to 64
 * devices, training and inference. */
static void test_fast_every_preset(void **state)
{
	(void)state;
	const char *names[] = {"vshape", "xshape", "mshape", "nnshape", "kshape"};
	int maxD = th_under_checker() ? 8 : 64;
	for (int D = 4; D <= maxD; D *= 2)
		for (size_t i = 0; i < 5; i++)
			for (int infer = 0; infer <= 1; infer++) {
				tessel_graph *g = NULL;
				TH_OK(tessel_preset(&g, names[i], D, infer, 3 * D));
				tessel_schedule *s = th_search(g, 16, 1, 0, 0);
				check_schedule(s, 16);
				tessel_schedule_free(s);
				tessel_graph_free(g);
			}
}

/* Under the smallest memory limits that admit the resource-bound period
 * (crossing pipelines, and pipelines around blocks on every device), the
 * heuristic mode alone reaches that period: list scheduling does not, the
 * memory-aware search (repetend_dfs.c) does. */
static void test_fast_tight_memory(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int devices;
		int64_t memory, period;
	} cases[] = {
		{"xshape", 8, 6, 8},  {"xshape", 8, 7, 8},  {"mshape", 8, 11, 6},
		{"kshape", 8, 6, 6},  {"mshape", 16, 23, 6}, {"kshape", 16, 12, 6},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tessel_graph *g = NULL;
		TH_OK(tessel_preset(&g, cases[i].name, cases[i].devices, 0,
				    cases[i].memory));
		tessel_schedule *s = th_search(g, 16, 1, 0, 0);
		check_schedule(s, 16);
		if (th_sched(s, TESSEL_SCHED_PERIOD) != cases[i].period)
			print_error("%s on %d devices, memory %lld: period %lld\n",
				    cases[i].name, cases[i].devices,
				    (long long)cases[i].memory,
				    (long long)th_sched(s, TESSEL_SCHED_PERIOD));
		assert_int_equal(th_sched(s, TESSEL_SCHED_PERIOD), cases[i].period);
		assert_int_equal(th_sched(s, TESSEL_SCHED_RESOURCE_BOUND),
				 cases[i].period);
		for (int d = 0; d < cases[i].devices; d++) {
			int64_t peak = -1;
			TH_OK(tessel_schedule_peak_memory(&peak, s, d));
			assert_true(peak <= cases[i].memory);
		}
		tessel_schedule_free(s);
		tessel_graph_free(g);
	}
}

/* A solver memory cap too small for any check ends the solver's part like
 * a time limit: the heuristics' schedule comes back, valid. */
static void test_solver_memory_cap(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	tessel_options *o = NULL;
	tessel_schedule *s = NULL;
	TH_OK(tessel_preset(&g, "xshape", 8, 0, 12));
	TH_OK(tessel_options_new(&o));
	TH_OK(tessel_options_set(o, TESSEL_OPT_SOLVER_MEMORY_MB, 1));
	TH_OK(tessel_search(&s, g, o));
	check_schedule(s, 16);
	tessel_schedule_free(s);
	int64_t limit = 0;
	int proven = 1;
	TH_OK(tessel_min_memory(&limit, &proven, g, 0, o));
	assert_true(limit > 0);
	assert_false(proven);
	/* period 9: no heuristic repetend to start from, only the solver,
	 * which the cap stops: the message says so */
	limit = -1;
	th_expect_error(tessel_min_memory(&limit, &proven, g, 9, o),
			TESSEL_ETIMEOUT, "the solver memory cap was reached");
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* An interleaved pipeline of 32 devices x 75 chunks (F, B and W: 7,200
 * blocks, 2.5 10^6 pairs of blocks on a device) under a memory limit. */
static tessel_graph *long_interleaved(void)
{
	enum { D = 32, V = 75, S = D * V };
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, D));
	char name[32];
	for (int s = 0; s < S; s++) {
		int d = (s / D) % 2 == 0 ? s % D : D - 1 - s % D, gid = -1;
		snprintf(name, sizeof name, "f%d", s);
		TH_OK(tessel_graph_add_block(&gid, g, name, TESSEL_KIND_FORWARD, 2, 1));
		TH_OK(tessel_graph_place(g, gid, &d, 1));
		if (s)
			TH_OK(tessel_graph_add_dep(g, gid - 1, gid));
	}
	int prev = -1;
	for (int s = S - 1; s >= 0; s--) {
		int d = (s / D) % 2 == 0 ? s % D : D - 1 - s % D, b = -1, w = -1;
		snprintf(name, sizeof name, "b%d", s);
		TH_OK(tessel_graph_add_block(&b, g, name, TESSEL_KIND_BACKWARD, 2, 0));
		TH_OK(tessel_graph_place(g, b, &d, 1));
		TH_OK(tessel_graph_add_dep(g, s, b));
		if (prev >= 0)
			TH_OK(tessel_graph_add_dep(g, prev, b));
		snprintf(name, sizeof name, "w%d", s);
		TH_OK(tessel_graph_add_block(&w, g, name, TESSEL_KIND_WEIGHT, 1, -1));
		TH_OK(tessel_graph_place(g, w, &d, 1));
		TH_OK(tessel_graph_add_dep(g, b, w));
		prev = b;
	}
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, 300));
	return g;
}

/* tessel_min_memory keeps to its work budget on a graph whose solver
 * model is too large for it (the search's rule: a model that would take
 * more than half the work left to take in is not built): the limit the
 * memory-aware probes found, unproven, instead of a Z3 model of millions
 * of terms (it ran for minutes and took gigabytes before). */
static void test_min_memory_large_model(void **state)
{
	(void)state;
	tessel_graph *g = long_interleaved();
	tessel_options *o = NULL;
	TH_OK(tessel_options_new(&o));
	TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, 300));
	int64_t limit = 0;
	int proven = 1;
	TH_OK(tessel_min_memory(&limit, &proven, g, 0, o));
	print_message("min_memory: limit %lld, proven %d\n", (long long)limit, proven);
	assert_true(limit > 0);
	assert_false(proven);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* With a time limit the search returns a valid schedule, the best so far:
 * a limit of ten times what the heuristic alone takes here (at least
 * 1 s), so that a slow or busy machine or valgrind does not turn it into
 * a timeout. */
static void test_time_limit(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	int D = th_under_checker() ? 8 : 32;
	TH_OK(tessel_preset(&g, "nnshape", D, 0, 3 * D));
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tessel_schedule *f = th_search(g, 128, 1, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tessel_schedule_free(f);
	int64_t fast_ms = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000 +
			  (t1.tv_nsec - t0.tv_nsec) / 1000000;
	int64_t limit = 10 * fast_ms > 1000 ? 10 * fast_ms : 1000;
	tessel_schedule *s = th_search(g, 128, 0, limit, 0);
	check_schedule(s, 128);
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

static char *schedule_text(const tessel_schedule *s)
{
	/* the JSON without its timing line */
	char *json = NULL;
	TH_OK(tessel_schedule_to_json(&json, s));
	char *t = strstr(json, "\"search_seconds\"");
	if (t) {
		char *end = strchr(t, '\n');
		memmove(t, end, strlen(end) + 1);
	}
	return json;
}

/* The same input, options and thread count give the same schedule; so do
 * different thread counts. */
static void test_deterministic_threads(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	/* under valgrind a smaller placement */
	if (th_under_checker())
		TH_OK(tessel_preset(&g, "xshape", 4, 0, 6));
	else
		TH_OK(tessel_preset(&g, "xshape", 8, 0, 12));
	tessel_schedule *a = th_search(g, 32, 0, 0, 1);
	tessel_schedule *b = th_search(g, 32, 0, 0, 2);
	tessel_schedule *c = th_search(g, 32, 0, 0, 2);
	char *ta = schedule_text(a), *tb = schedule_text(b), *tc = schedule_text(c);
	assert_string_equal(ta, tb);
	assert_string_equal(tb, tc);
	tessel_free(ta);
	tessel_free(tb);
	tessel_free(tc);
	tessel_schedule_free(a);
	tessel_schedule_free(b);
	tessel_schedule_free(c);
	tessel_graph_free(g);
}

/* The last two candidates of a search (the placement without its memory
 * limits, and the heuristic mode's search, which runs beside the whole
 * search on a thread of its own when two are allowed): the schedule and
 * the work reported are the same with one thread and with two. A ZB-H
 * pipeline of 4 devices at its 1F1B memory budget (profiled spans,
 * latency), whose search ends above the lower bound with work left for
 * both; a pipeline without memory limits (the heuristic mode's search
 * alone, beside the whole search); and a V pipeline whose search ends optimal (the heuristic mode's
 * search, started beside it, dropped with its work). */
static void test_deterministic_last_candidates(void **state)
{
	(void)state;
	/* (uneven spans, latency 3: its search ends above the lower bound) */
	static const char plain_pipeline[] =
		"{\"devices\": 4, \"latency\": 3, \"blocks\": ["
		"{\"name\": \"f0\", \"kind\": \"forward\", \"span\": 4, \"memory\": 1, \"devices\": [0]},"
		"{\"name\": \"f1\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [1], \"after\": [\"f0\"]},"
		"{\"name\": \"f2\", \"kind\": \"forward\", \"span\": 2, \"memory\": 1, \"devices\": [2], \"after\": [\"f1\"]},"
		"{\"name\": \"f3\", \"kind\": \"forward\", \"span\": 3, \"memory\": 1, \"devices\": [3], \"after\": [\"f2\"]},"
		"{\"name\": \"b3\", \"kind\": \"backward\", \"span\": 3, \"memory\": -1, \"devices\": [3], \"after\": [\"f3\"]},"
		"{\"name\": \"b2\", \"kind\": \"backward\", \"span\": 12, \"memory\": -1, \"devices\": [2], \"after\": [\"b3\"]},"
		"{\"name\": \"b1\", \"kind\": \"backward\", \"span\": 4, \"memory\": -1, \"devices\": [1], \"after\": [\"b2\"]},"
		"{\"name\": \"b0\", \"kind\": \"backward\", \"span\": 7, \"memory\": -1, \"devices\": [0], \"after\": [\"b1\"]}]}";
	for (int c = 0; c < 3; c++) {
		tessel_graph *g = NULL;
		if (c == 0)
			TH_OK(tessel_graph_from_file(&g, th_data_path("zb-h-4dev.json")));
		else if (c == 1)
			TH_OK(tessel_graph_from_json(&g, plain_pipeline, strlen(plain_pipeline)));
		else
			TH_OK(tessel_preset(&g, "vshape", 4, 0, 4));
		/* the default budget even under a checker (the heuristic
		 * mode's search runs under it only; the case is small; under
		 * a checker without the third search, which is the second on
		 * 2 cores) */
		tessel_schedule *r[3] = {NULL};
		int runs = th_under_checker() ? 2 : 3;
		for (int i = 0; i < runs; i++) {
			tessel_options *o = th_options(16);
			TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, TESSEL_WORK_AUTO));
			TH_OK(tessel_options_set(o, TESSEL_OPT_THREADS,
						 i == 0 ? 1 : i == 1 ? 2 : 0));
			TH_OK(tessel_search(&r[i], g, o));
			tessel_options_free(o);
		}
		check_schedule(r[0], 16);
		if (c < 2)
			assert_false(th_sched(r[0], TESSEL_SCHED_MAKESPAN_OPTIMAL));
		else
			assert_true(th_sched(r[0], TESSEL_SCHED_MAKESPAN_OPTIMAL));
		char *t0 = schedule_text(r[0]);
		assert_non_null(strstr(t0, "\"work\""));
		for (int i = 1; i < runs; i++) {
			char *t = schedule_text(r[i]);
			assert_string_equal(t0, t);
			tessel_free(t);
		}
		tessel_free(t0);
		for (int i = 0; i < runs; i++)
			tessel_schedule_free(r[i]);
		tessel_graph_free(g);
	}
}

/* The smallest memory that admits the resource-bound period. */
static void test_min_memory(void **state)
{
	(void)state;
	struct {
		const char *name;
		int64_t want;
	} cases[] = {{"vshape", 4}, {"kshape", 3}, {"mshape", 5}, {"nnshape", 6}};
	/* under a slow checker two cases, with its budget, and what the
	 * budget decides (the proof, the period) unchecked */
	size_t count = th_under_checker() ? 2 : 4;
	tessel_options *o = th_options(16);
	for (size_t i = 0; i < count; i++) {
		tessel_graph *g = NULL;
		int64_t mem = -1;
		int proven = -1;
		TH_OK(tessel_preset(&g, cases[i].name, 4, 0, TESSEL_UNLIMITED));
		TH_OK(tessel_min_memory(&mem, &proven, g, 0, o));
		assert_true(mem >= cases[i].want);
		if (!th_under_checker()) {
			assert_int_equal(mem, cases[i].want);
			assert_int_equal(proven, 1);
		}
		/* and a search with that limit reaches the bound */
		TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, mem));
		tessel_schedule *s = th_search(g, 16, 0, 0, 0);
		check_schedule(s, 16);
		if (!th_under_checker())
			assert_int_equal(th_sched(s, TESSEL_SCHED_PERIOD),
					 th_sched(s, TESSEL_SCHED_RESOURCE_BOUND));
		tessel_schedule_free(s);
		int64_t bound;
		TH_OK(tessel_graph_get(&bound, g, TESSEL_GRAPH_RESOURCE_BOUND));
		assert_int_equal(tessel_min_memory(&mem, NULL, g, bound - 1, NULL),
				 TESSEL_EINFEASIBLE);
		assert_int_equal(tessel_min_memory(NULL, NULL, g, 0, NULL), TESSEL_EINVAL);
		if (i == 0) {
			/* any period from the spans summed on (no latency
			 * here) has their answer: 2^63 - 1 included */
			int64_t nblocks = 0, sum = 0, at_sum = -1, at_max = -1;
			TH_OK(tessel_graph_get(&nblocks, g, TESSEL_GRAPH_NBLOCKS));
			for (int b = 0; b < (int)nblocks; b++)
				sum += th_block(g, b, TESSEL_BLOCK_SPAN);
			TH_OK(tessel_min_memory(&at_sum, NULL, g, sum, o));
			TH_OK(tessel_min_memory(&at_max, NULL, g, INT64_MAX, o));
			assert_int_equal(at_max, at_sum);
			assert_true(at_sum <= mem);
		}
		tessel_graph_free(g);
	}
	tessel_options_free(o);
	/* a device each micro-batch leaves memory on: no repetend under any
	 * limit (not the limit one repetition needs, proven) */
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 1));
	int f = -1;
	TH_OK(tessel_graph_add_block(&f, g, "f", TESSEL_KIND_FORWARD, 1, 1));
	TH_OK(tessel_graph_place(g, f, (const int[]){0}, 1));
	int64_t mem = -1;
	th_expect_error(tessel_min_memory(&mem, NULL, g, 0, NULL), TESSEL_EINFEASIBLE,
			"leaves 1 of memory behind");
	assert_int_equal(mem, -1);
	tessel_graph_free(g);
}

/* Few micro-batches are also scheduled directly; a makespan at the lower
 * bound is reported optimal. */
static void test_direct_small(void **state)
{
	(void)state;
	const char *names[] = {"xshape", "nnshape"};
	/* under valgrind (about 60 times slower) N = 2 only */
	int64_t nmax = th_under_checker() ? 2 : 3;
	for (size_t i = 0; i < 2; i++)
		for (int64_t n = 2; n <= nmax; n++) {
			tessel_graph *g = NULL;
			TH_OK(tessel_preset(&g, names[i], 4, 0, 5));
			tessel_schedule *s = th_search(g, n, 0, 0, 0);
			check_schedule(s, n);
			int64_t m = th_sched(s, TESSEL_SCHED_MAKESPAN);
			int64_t lb = th_sched(s, TESSEL_SCHED_LOWER_BOUND);
			int64_t opt = th_sched(s, TESSEL_SCHED_MAKESPAN_OPTIMAL);
			assert_true(opt == 0 || opt == 1);
			if (m == lb)
				assert_int_equal(opt, 1);
			tessel_schedule_free(s);
			tessel_graph_free(g);
		}
}

/* s's JSON without its "search_seconds" line (the clock's); free(). */
static char *json_without_seconds(const tessel_schedule *s)
{
	char *text = NULL;
	TH_OK(tessel_schedule_to_json(&text, s));
	char *out = strdup(text);
	assert_non_null(out);
	tessel_free(text);
	char *at = strstr(out, "\"search_seconds\"");
	if (at) {
		char *end = strchr(at, '\n');
		if (end)
			memmove(at, end + 1, strlen(end + 1) + 1);
		else
			*at = '\0';
	}
	return out;
}

/* A search never ends longer than its first schedule, which on a
 * pipeline of the Zero Bubble authors' H form is their greedy's order
 * where that is shorter than list scheduling: with a budget of one work
 * unit, 32 devices with heavier first and last stages, memory for 32
 * forwards, 192 micro-batches, the lower bound (list scheduling alone
 * ends later, tests/test-complete.c hshape_greedy). */
static void test_first_schedule_hshape(void **state)
{
	(void)state;
	static const int end[3] = {354, 451, 481}, mid[3] = {272, 347, 370};
	static const int mem[3] = {6, -5, -1};
	static const tessel_kind kinds[3] = {TESSEL_KIND_FORWARD, TESSEL_KIND_BACKWARD,
					     TESSEL_KIND_WEIGHT};
	const int D = 32;
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, D));
	for (int k = 0; k < 3; k++)
		for (int d = 0; d < D; d++) {
			char name[16];
			int id = 0;
			snprintf(name, sizeof name, "%c%d", "fbw"[k], d);
			TH_OK(tessel_graph_add_block(&id, g, name, kinds[k],
						     d == 0 || d == D - 1 ? end[k] : mid[k],
						     mem[k]));
			TH_OK(tessel_graph_place(g, id, &d, 1));
		}
	for (int d = 0; d < D; d++) {
		if (d > 0)
			TH_OK(tessel_graph_add_dep(g, d - 1, d));
		TH_OK(tessel_graph_add_dep(g, d == D - 1 ? d : D + d + 1, D + d));
		TH_OK(tessel_graph_add_dep(g, D + d, 2 * D + d));
	}
	TH_OK(tessel_graph_set_latency(g, 5));
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, 6 * D));
	tessel_options *o = NULL;
	TH_OK(tessel_options_new(&o));
	TH_OK(tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, 192));
	TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, 1));
	tessel_schedule *s = NULL;
	TH_OK(tessel_search(&s, g, o));
	TH_OK(tessel_schedule_validate(s));
	int64_t lb = 0;
	TH_OK(tessel_graph_lower_bound(&lb, g, 192));
	print_message("H pipeline, 32 devices, budget 1: makespan %lld, LB %lld\n",
		      (long long)th_sched(s, TESSEL_SCHED_MAKESPAN), (long long)lb);
	assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), lb);
	tessel_schedule_free(s);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* tessel_search_sweep on a small placement (also under the checkers):
 * limits out of order, one twice, unlimited and one under which nothing
 * fits; every result valid under its own limit, the makespans never
 * growing with the limit, the same limit the same schedule, the same
 * sweep again the same schedules. (test-search-published.c: a case where
 * single searches are not monotone.) */
static void test_search_sweep_small(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_preset(&g, "vshape", 4, 0, TESSEL_UNLIMITED));
	tessel_options *o = NULL;
	TH_OK(tessel_options_new(&o));
	TH_OK(tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, 8));
	TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, 40));
	const int64_t limits[] = {4, 2, TESSEL_UNLIMITED, 0, 3, 2};
	enum { NL = sizeof limits / sizeof limits[0] };
	tessel_schedule *out[NL];
	TH_OK(tessel_search_sweep(out, g, limits, NL, o));
	assert_null(out[3]);
	int64_t ms[NL] = {0};
	for (int i = 0; i < NL; i++) {
		if (i == 3)
			continue;
		assert_non_null(out[i]);
		TH_OK(tessel_schedule_validate(out[i]));
		const tessel_graph *sg = NULL;
		int64_t lim = 0;
		TH_OK(tessel_schedule_graph(&sg, out[i]));
		TH_OK(tessel_graph_memory_limit(&lim, sg, 0));
		assert_int_equal(lim, limits[i]);
		ms[i] = th_sched(out[i], TESSEL_SCHED_MAKESPAN);
		for (int d = 0; d < 4 && limits[i] != TESSEL_UNLIMITED; d++) {
			int64_t peak = 0;
			TH_OK(tessel_schedule_peak_memory(&peak, out[i], d));
			assert_true(peak <= limits[i]);
		}
	}
	/* 2 (twice) >= 3 >= 4 >= unlimited */
	assert_int_equal(ms[1], ms[5]);
	assert_true(ms[1] >= ms[4] && ms[4] >= ms[0] && ms[0] >= ms[2]);
	char *a = NULL, *b = NULL;
	TH_OK(tessel_schedule_to_json(&a, out[1]));
	TH_OK(tessel_schedule_to_json(&b, out[5]));
	assert_string_equal(a, b);
	tessel_free(a);
	tessel_free(b);
	for (int i = 0; i < NL; i++)
		tessel_schedule_free(out[i]);
	/* the graph's own limit, too tight for any schedule, is replaced */
	tessel_graph *tight = NULL;
	TH_OK(tessel_graph_dup(&tight, g));
	TH_OK(tessel_graph_set_memory_limit(tight, TESSEL_ALL_DEVICES, 0));
	TH_OK(tessel_search_sweep(out, tight, &limits[0], 1, o));
	assert_true(th_sched(out[0], TESSEL_SCHED_MAKESPAN) >= ms[0]); /* (ms[0] may be carried) */
	tessel_schedule_free(out[0]);
	tessel_graph_free(tight);
	/* the same sweep twice: the same schedules (deterministic) */
	tessel_schedule *again[2], *first[2];
	TH_OK(tessel_search_sweep(first, g, limits, 2, o));
	TH_OK(tessel_search_sweep(again, g, limits, 2, o));
	for (int i = 0; i < 2; i++) {
		a = json_without_seconds(first[i]);
		b = json_without_seconds(again[i]);
		assert_string_equal(a, b);
		free(a);
		free(b);
		tessel_schedule_free(again[i]);
	}
	/* the time limit caps the whole sweep, shared out among its searches:
	 * one far away changes nothing; with one of a millisecond only the
	 * loosest limit is searched (the others' shares are under a
	 * millisecond), whatever it finds is carried to the tighter limits it
	 * fits, and the caller's options keep their own limit */
	TH_OK(tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, 3600000));
	TH_OK(tessel_search_sweep(again, g, limits, 2, o));
	for (int i = 0; i < 2; i++) {
		a = json_without_seconds(first[i]);
		b = json_without_seconds(again[i]);
		assert_string_equal(a, b);
		free(a);
		free(b);
		tessel_schedule_free(first[i]);
		tessel_schedule_free(again[i]);
	}
	TH_OK(tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, 1));
	int rc = tessel_search_sweep(out, g, limits, NL, o);
	if (rc == TESSEL_ETIMEOUT) { /* (the loosest found nothing in 1 ms) */
		assert_non_null(strstr(tessel_error_last(), "time limit"));
		for (int i = 0; i < NL; i++)
			assert_null(out[i]);
	} else {
		TH_OK(rc);
		assert_non_null(out[2]);
		assert_null(out[3]);
		for (int i = 0; i < NL; i++) {
			if (!out[i])
				continue;
			TH_OK(tessel_schedule_validate(out[i]));
			assert_true(th_sched(out[i], TESSEL_SCHED_MAKESPAN) >=
				    th_sched(out[2], TESSEL_SCHED_MAKESPAN));
			tessel_schedule_free(out[i]);
		}
	}
	int64_t v = 0;
	TH_OK(tessel_options_get(&v, o, TESSEL_OPT_TIME_LIMIT_MS));
	assert_int_equal(v, 1);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* What a sweep's progress callbacks saw, and whether they stop it or
 * cancel its options at the first better schedule. */
struct sweep_watch {
	tessel_options *options;
	int cancel;             /* 1: cancel the options, 0: return nonzero */
	int improved;           /* better schedules */
	int after;              /* events after the callback asked to stop */
};

static int sweep_stop_fn(const tessel_progress *p, void *payload)
{
	struct sweep_watch *w = payload;
	int64_t improved = 0;
	TH_OK(tessel_progress_get(&improved, p, TESSEL_PROGRESS_IMPROVED));
	w->after += w->improved > 0 && !w->cancel;
	if (!improved)
		return 0;
	w->improved++;
	if (w->cancel) {
		TH_OK(tessel_options_cancel(w->options));
		return 0;
	}
	return 1;
}

static int sweep_stop_cb(int64_t period, int64_t makespan, int64_t lower_bound,
			 int period_proven, void *payload)
{
	(void)period, (void)makespan, (void)lower_bound, (void)period_proven;
	struct sweep_watch *w = payload;
	w->after += w->improved > 0;
	w->improved++;
	return 1;
}

/* A progress callback asking to stop ends the whole sweep, as a cancel
 * does: the search under way returns its best schedule so far, no looser
 * limit is searched (no callback is called again) and they keep what the
 * tighter limits found. Either callback (tessel_options_set_progress_fn,
 * tessel_options_set_progress); the caller's options keep their
 * callbacks. */
static void test_search_sweep_stop(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_preset(&g, "vshape", 4, 0, TESSEL_UNLIMITED));
	const int64_t limits[] = {TESSEL_UNLIMITED, 3, 2, 4};
	enum { NL = sizeof limits / sizeof limits[0] };
	int64_t ms[2][NL];
	for (int how = 0; how < 3; how++) {
		tessel_options *o = th_options(8);
		TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, 40));
		struct sweep_watch w = { .options = o, .cancel = how == 1 };
		if (how < 2)
			TH_OK(tessel_options_set_progress_fn(o, sweep_stop_fn, &w));
		else
			TH_OK(tessel_options_set_progress(o, sweep_stop_cb, &w));
		tessel_schedule *out[NL];
		TH_OK(tessel_search_sweep(out, g, limits, NL, o));
		/* one search (limit 2, the tightest), one better schedule,
		 * no callback after the stop */
		assert_int_equal(w.improved, 1);
		assert_int_equal(w.after, 0);
		assert_non_null(out[2]);
		int64_t found = th_sched(out[2], TESSEL_SCHED_MAKESPAN);
		int64_t work = th_sched(out[2], TESSEL_SCHED_WORK);
		for (int i = 0; i < NL; i++) {
			assert_non_null(out[i]);
			TH_OK(tessel_schedule_validate(out[i]));
			if (how < 2)
				ms[how][i] = th_sched(out[i], TESSEL_SCHED_MAKESPAN);
			/* the tightest limit's schedule, carried */
			assert_int_equal(th_sched(out[i], TESSEL_SCHED_MAKESPAN), found);
			assert_int_equal(th_sched(out[i], TESSEL_SCHED_WORK), work);
			tessel_schedule_free(out[i]);
		}
		/* the options' own callbacks are the caller's still */
		w.improved = w.after = 0;
		tessel_schedule *s = NULL;
		TH_OK(tessel_options_clear_cancel(o));
		TH_OK(tessel_search(&s, g, o));
		assert_int_equal(w.improved, 1);
		tessel_schedule_free(s);
		tessel_options_free(o);
	}
	/* a stop and a cancel, the same sweep */
	for (int i = 0; i < NL; i++)
		assert_int_equal(ms[0][i], ms[1][i]);
	tessel_graph_free(g);
}

/* A search whose work budget ends before any repetend fits the limits
 * says so (1.8.7: "every repetend found breaks a limit once completed: "
 * and nothing after it); without the budget the solver's reason. */
static void test_budget_ends_before_repetend(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 3));
	const int span[6] = {1, 2, 1, 2, 3, 2}, mem[6] = {1, 1, 1, -1, -1, -1};
	const int dev[6] = {0, 1, 2, 2, 1, 0};
	const char *name[6] = {"f0", "f1", "f2", "b2", "b1", "b0"};
	for (int i = 0; i < 6; i++) {
		TH_OK(tessel_graph_add_block(NULL, g, name[i],
					     i < 3 ? TESSEL_KIND_FORWARD
						   : TESSEL_KIND_BACKWARD,
					     span[i], mem[i]));
		TH_OK(tessel_graph_place(g, i, &dev[i], 1));
		if (i)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, 2));
	for (int budget = 50; budget >= 0; budget -= 50) {
		tessel_options *o = th_options(3);
		TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, budget));
		TH_OK(tessel_options_set(o, TESSEL_OPT_MAX_PERIOD, 6));
		tessel_schedule *s = NULL;
		th_expect_error(tessel_search(&s, g, o), TESSEL_EINFEASIBLE,
				budget ? "within the work budget" : "period 5 .. 6");
		assert_null(s);
		tessel_options_free(o);
	}
	tessel_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_cases),
		cmocka_unit_test(test_presets_valid),
		cmocka_unit_test(test_examples_valid),
		cmocka_unit_test(test_infeasible),
		cmocka_unit_test(test_memory_forces_longer_period),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_defaults_deterministic),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_stop_anywhere),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_fast_every_preset),
		cmocka_unit_test(test_fast_tight_memory),
		cmocka_unit_test(test_solver_memory_cap),
		cmocka_unit_test(test_time_limit),
		cmocka_unit_test(test_deterministic_threads),
		cmocka_unit_test(test_deterministic_last_candidates),
		cmocka_unit_test(test_min_memory),
		cmocka_unit_test(test_min_memory_large_model),
		cmocka_unit_test(test_infeasible_leftover),
		cmocka_unit_test(test_direct_small),
		cmocka_unit_test(test_search_sweep_small),
		cmocka_unit_test(test_search_sweep_stop),
		cmocka_unit_test(test_first_schedule_hshape),
		cmocka_unit_test(test_budget_ends_before_repetend),
	};
	return cmocka_run_group_tests_name("search", tests, NULL, NULL);
}
