/* Threads: searches on distinct graphs and options at the same time, a
 * search cancelled from another thread, one const schedule read by
 * several threads at once, and an exploration freed from another thread
 * while it runs. Assertions run on the main thread only (CMocka
 * is not thread-safe): workers record their results and the main thread
 * checks them after joining. */
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
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "helpers.h"
#include "tessel.h"

#define NTHREADS 8
#define NMICROS 8

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- 8 searches at once ------------------------------------------------ */

typedef struct search_job {
	const char *preset;
	int ndevices;
	int64_t memory;
	int fast;
	/* results */
	int rc_graph, rc_search, rc_validate, rc_minmem;
	int64_t min_memory;
	int64_t nmicros, nblocks, makespan, lower_bound;
	char msg[256];
} search_job;

static void *search_worker(void *arg)
{
	search_job *j = arg;
	tessel_graph *g = NULL;
	tessel_options *o = NULL;
	tessel_schedule *s = NULL;

	j->rc_graph = tessel_preset(&g, j->preset, j->ndevices, 0, j->memory);
	if (j->rc_graph != TESSEL_OK) {
		snprintf(j->msg, sizeof j->msg, "%s", tessel_error_last());
		return NULL;
	}
	j->rc_search = tessel_options_new(&o);
	if (j->rc_search == TESSEL_OK)
		j->rc_search = tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, NMICROS);
	if (j->rc_search == TESSEL_OK)
		j->rc_search = tessel_options_set(o, TESSEL_OPT_FAST, j->fast);
	if (j->rc_search == TESSEL_OK)
		j->rc_search = tessel_options_set(o, TESSEL_OPT_THREADS, 1);
	if (j->rc_search == TESSEL_OK)
		j->rc_search = tessel_options_set(o, TESSEL_OPT_WORK_LIMIT,
						  th_work_limit());
	if (j->rc_search == TESSEL_OK)
		j->rc_search = tessel_search(&s, g, o);
	if (j->rc_search != TESSEL_OK) {
		snprintf(j->msg, sizeof j->msg, "%s", tessel_error_last());
	} else {
		j->rc_validate = tessel_schedule_validate(s);
		if (j->rc_validate != TESSEL_OK)
			snprintf(j->msg, sizeof j->msg, "%s", tessel_error_last());
		tessel_schedule_get(&j->nmicros, s, TESSEL_SCHED_NMICROS);
		tessel_schedule_get(&j->makespan, s, TESSEL_SCHED_MAKESPAN);
		tessel_schedule_get(&j->nblocks, s, TESSEL_SCHED_NBLOCKS);
		tessel_graph_lower_bound(&j->lower_bound, g, NMICROS);
	}
	/* The heuristics often settle a search alone; the minimum memory
	 * always asks the solver, so solver runs overlap too. */
	if (!j->fast && j->rc_search == TESSEL_OK) {
		int proven = 0;
		j->rc_minmem = tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, 20000);
		if (j->rc_minmem == TESSEL_OK)
			j->rc_minmem = tessel_min_memory(&j->min_memory, &proven, g, 0, o);
		if (j->rc_minmem != TESSEL_OK)
			snprintf(j->msg, sizeof j->msg, "%s", tessel_error_last());
	}
	tessel_schedule_free(s);
	tessel_options_free(o);
	tessel_graph_free(g);
	return NULL;
}

static void test_parallel_searches(void **state)
{
	(void)state;
	static const struct {
		const char *preset;
		int ndevices;
		int64_t memory;
		int fast;
	} cases[NTHREADS] = {
		{"vshape", 2, 6, 0},
		{"xshape", 2, 6, 1},
		{"mshape", 4, 5, 0},   /* these three reach the solver */
		{"nnshape", 4, 8, 0},
		{"xshape", 4, 6, 0},
		{"vshape", 4, TESSEL_UNLIMITED, 1},
		{"kshape", 4, 6, 1},
		{"nnshape", 2, 6, 1},
	};
	search_job jobs[NTHREADS];
	pthread_t tid[NTHREADS];
	memset(jobs, 0, sizeof jobs);
	for (int i = 0; i < NTHREADS; i++) {
		jobs[i].preset = cases[i].preset;
		jobs[i].ndevices = cases[i].ndevices;
		jobs[i].memory = cases[i].memory;
		jobs[i].fast = cases[i].fast;
		assert_int_equal(pthread_create(&tid[i], NULL, search_worker, &jobs[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(tid[i], NULL), 0);
	for (int i = 0; i < NTHREADS; i++) {
		search_job *j = &jobs[i];
		if (j->rc_graph || j->rc_search || j->rc_validate)
			print_error("%s D=%d fast=%d: rc %d/%d/%d: %s\n", j->preset,
				    j->ndevices, j->fast, j->rc_graph, j->rc_search,
				    j->rc_validate, j->msg);
		assert_int_equal(j->rc_graph, TESSEL_OK);
		assert_int_equal(j->rc_search, TESSEL_OK);
		assert_int_equal(j->rc_validate, TESSEL_OK);
		assert_int_equal(j->nmicros, NMICROS);
		assert_true(j->nblocks > 0);
		assert_true(j->makespan >= j->lower_bound);
		if (!j->fast) {
			if (j->rc_minmem)
				print_error("%s D=%d min_memory: %s\n", j->preset,
					    j->ndevices, j->msg);
			assert_int_equal(j->rc_minmem, TESSEL_OK);
			assert_true(j->min_memory > 0);
			if (j->memory != TESSEL_UNLIMITED)
				assert_true(j->min_memory <= j->memory);
		}
	}

	/* The same searches one at a time give the same makespans: the result
	 * does not depend on what else runs. */
	for (int i = 0; i < NTHREADS; i++) {
		search_job again = jobs[i];
		search_worker(&again);
		assert_int_equal(again.rc_search, TESSEL_OK);
		assert_int_equal(again.makespan, jobs[i].makespan);
	}
}

/* ---- cancelling a long search from another thread ------------------------ */

typedef struct cancel_job {
	const tessel_graph *graph;
	tessel_options *options;
	int rc, rc_validate;
	double finished;
	char msg[256];
} cancel_job;

static void *cancel_worker(void *arg)
{
	cancel_job *j = arg;
	tessel_schedule *s = NULL;
	j->rc = tessel_search(&s, j->graph, j->options);
	j->finished = now_s();
	if (j->rc == TESSEL_OK) {
		j->rc_validate = tessel_schedule_validate(s);
		if (j->rc_validate)
			snprintf(j->msg, sizeof j->msg, "%s", tessel_error_last());
	} else {
		snprintf(j->msg, sizeof j->msg, "%s", tessel_error_last());
	}
	tessel_schedule_free(s);
	return NULL;
}

static void test_cancel_from_other_thread(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	tessel_options *o = NULL;
	TH_OK(tessel_preset(&g, "nnshape", 8, 0, 10));
	TH_OK(tessel_options_new(&o));
	TH_OK(tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, 16));
	/* a safety net only: the cancel must come long before */
	TH_OK(tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, 600000));
	/* under a slow checker a smaller budget: the search still runs past
	 * the cancel, and takes in no model that Z3 would need minutes for
	 * (taking a model in is the one step a cancel cannot interrupt) */
	TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT,
				 th_under_checker() ? 1000 : TESSEL_WORK_AUTO));

	cancel_job j = {.graph = g, .options = o};
	pthread_t tid;
	double t0 = now_s();
	assert_int_equal(pthread_create(&tid, NULL, cancel_worker, &j), 0);
	usleep(th_under_checker() ? 2000000 : 300000);
	double cancelled = now_s();
	TH_OK(tessel_options_cancel(o));
	assert_int_equal(pthread_join(tid, NULL), 0);

	double delay = j.finished - cancelled;
	print_message("search ran %.3f s, returned %.3f s after the cancel, rc %d (%s)\n",
		      j.finished - t0, delay, j.rc, tessel_strerror(j.rc));
	if (j.rc != TESSEL_OK && j.rc != TESSEL_ECANCELLED)
		print_error("search: %s\n", j.msg);
	assert_true(j.rc == TESSEL_OK || j.rc == TESSEL_ECANCELLED);
	if (j.rc == TESSEL_OK) {
		if (j.rc_validate)
			print_error("validate: %s\n", j.msg);
		assert_int_equal(j.rc_validate, TESSEL_OK);
	}
	/* "promptly": well under the time limit, with room for slow machines */
	assert_true(delay < (th_under_checker() ? 60.0 : 5.0));

	/* The request stays in force until it is withdrawn. */
	tessel_schedule *s = NULL;
	int rc = tessel_search(&s, g, o);
	assert_true(rc == TESSEL_OK || rc == TESSEL_ECANCELLED);
	tessel_schedule_free(s);
	TH_OK(tessel_options_clear_cancel(o));

	tessel_options_free(o);
	tessel_graph_free(g);
}

/* ---- one const schedule read by several threads -------------------------- */

#define NREADERS 6

typedef struct read_job {
	const tessel_schedule *schedule;
	int ndevices;
	int rounds;
	int errors;
	uint64_t checksum;  /* over every entry seen, per round */
	char *json;         /* last round's JSON */
} read_job;

static int foreach_cb(const tessel_entry *e, void *payload)
{
	uint64_t *sum = payload;
	int64_t v = 0;
	if (tessel_entry_get(&v, e, TESSEL_ENTRY_START) == TESSEL_OK)
		*sum += (uint64_t)v;
	return 0;
}

static uint64_t read_once(const tessel_schedule *s, int ndevices, int *errors)
{
	uint64_t sum = 0;
	for (int d = -1; d < ndevices; d++) {
		tessel_iter *it = NULL;
		const tessel_entry *e;
		if (tessel_iter_new(&it, s, d == -1 ? TESSEL_ALL_DEVICES : d) != TESSEL_OK) {
			(*errors)++;
			continue;
		}
		int rc;
		while ((rc = tessel_iter_next(&e, it)) == TESSEL_OK) {
			int64_t gid = 0, mid = 0, start = 0, span = 0;
			const char *name = NULL;
			if (tessel_entry_get(&gid, e, TESSEL_ENTRY_GID) ||
			    tessel_entry_get(&mid, e, TESSEL_ENTRY_MICRO_BATCH) ||
			    tessel_entry_get(&start, e, TESSEL_ENTRY_START) ||
			    tessel_entry_get(&span, e, TESSEL_ENTRY_SPAN) ||
			    tessel_entry_name(&name, e) || !name)
				(*errors)++;
			sum = sum * 31 + (uint64_t)(gid * 1000003 + mid * 1009 + start * 7 + span) +
			      (uint64_t)(d + 1) + (name ? (uint64_t)strlen(name) : 0);
		}
		if (rc != TESSEL_ITEROVER)
			(*errors)++;
		tessel_iter_free(it);
		uint64_t fsum = 0;
		if (tessel_schedule_foreach(s, d == -1 ? TESSEL_ALL_DEVICES : d, foreach_cb,
					    &fsum) != TESSEL_OK)
			(*errors)++;
		sum ^= fsum;
		int64_t peak = 0;
		if (d >= 0 && tessel_schedule_peak_memory(&peak, s, d) != TESSEL_OK)
			(*errors)++;
		sum += (uint64_t)peak;
	}
	if (tessel_schedule_validate(s) != TESSEL_OK)
		(*errors)++;
	return sum;
}

static void *read_worker(void *arg)
{
	read_job *j = arg;
	for (int r = 0; r < j->rounds; r++) {
		uint64_t sum = read_once(j->schedule, j->ndevices, &j->errors);
		if (r == 0)
			j->checksum = sum;
		else if (sum != j->checksum)
			j->errors++;
	}
	if (tessel_schedule_to_json(&j->json, j->schedule) != TESSEL_OK)
		j->errors++;
	return NULL;
}

static void test_concurrent_readers(void **state)
{
	(void)state;
	tessel_schedule *s = th_search_preset("mshape", 4, 6, NMICROS, 1);
	const tessel_schedule *cs = s;

	int errors = 0;
	uint64_t expect = read_once(cs, 4, &errors);
	assert_int_equal(errors, 0);
	char *expect_json = NULL;
	TH_OK(tessel_schedule_to_json(&expect_json, cs));

	read_job jobs[NREADERS];
	pthread_t tid[NREADERS];
	memset(jobs, 0, sizeof jobs);
	for (int i = 0; i < NREADERS; i++) {
		jobs[i].schedule = cs;
		jobs[i].ndevices = 4;
		jobs[i].rounds = th_under_checker() ? 3 : 50;
		assert_int_equal(pthread_create(&tid[i], NULL, read_worker, &jobs[i]), 0);
	}
	for (int i = 0; i < NREADERS; i++)
		assert_int_equal(pthread_join(tid[i], NULL), 0);
	for (int i = 0; i < NREADERS; i++) {
		assert_int_equal(jobs[i].errors, 0);
		assert_true(jobs[i].checksum == expect);
		assert_non_null(jobs[i].json);
		assert_string_equal(jobs[i].json, expect_json);
		tessel_free(jobs[i].json);
	}
	tessel_free(expect_json);
	tessel_schedule_free(s);
}

/* ---- an exploration freed from another thread while it runs ------------ */

typedef struct explore_job {
	tessel_explore *ex;
	tessel_options *options;
	int block;              /* the first report waits for the free */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int started, freed;     /* under lock */
	int calls;              /* under lock */
	int rc;
	char msg[256];
} explore_job;

static int explore_report(const char *family, double time, int64_t work,
			  const char *reason, size_t done, size_t total,
			  void *payload)
{
	(void)family, (void)time, (void)work, (void)reason, (void)done, (void)total;
	explore_job *j = payload;
	pthread_mutex_lock(&j->lock);
	j->calls++;
	j->started = 1;
	pthread_cond_broadcast(&j->cond);
	while (j->block && !j->freed)
		pthread_cond_wait(&j->cond, &j->lock);
	pthread_mutex_unlock(&j->lock);
	return 0;
}

static void *explore_worker(void *arg)
{
	explore_job *j = arg;
	j->rc = tessel_explore_run(j->ex, j->options);
	/* (the exploration may be gone now: not touched again) */
	snprintf(j->msg, sizeof j->msg, "%s", tessel_error_last());
	return NULL;
}

/* tessel_explore_free from another thread while tessel_explore_run runs:
 * the free returns at once, the run stops as a cancel stops it (the
 * callback is not called again) and frees the exploration as it returns
 * TESSEL_ECANCELLED. First with the free made while the run's callback
 * waits (the free certainly during the run), then while its searches run
 * (the run may also have ended first: then the free is an ordinary one).
 * Under ThreadSanitizer no data race, under valgrind no use after the
 * free. */
static void test_explore_free_from_other_thread(void **state)
{
	(void)state;
	tessel_model *m = NULL;
	TH_OK(tessel_model_from_file(&m, th_data_path("model-small.json")));
	for (int block = 1; block >= 0; block--) {
		explore_job j = {.block = block};
		pthread_mutex_init(&j.lock, NULL);
		pthread_cond_init(&j.cond, NULL);
		TH_OK(tessel_explore_new(&j.ex, m));
		TH_OK(tessel_explore_set_progress(j.ex, explore_report, &j));
		j.options = th_options(8);
		TH_OK(tessel_options_set(j.options, TESSEL_OPT_THREADS, 2));
		TH_OK(tessel_options_set(j.options, TESSEL_OPT_FAST, 1));
		pthread_t tid;
		assert_int_equal(pthread_create(&tid, NULL, explore_worker, &j), 0);
		pthread_mutex_lock(&j.lock);
		while (!j.started)
			pthread_cond_wait(&j.cond, &j.lock);
		pthread_mutex_unlock(&j.lock);
		tessel_explore_free(j.ex);
		pthread_mutex_lock(&j.lock);
		j.freed = 1;
		int calls = j.calls;
		pthread_cond_broadcast(&j.cond);
		pthread_mutex_unlock(&j.lock);
		assert_int_equal(pthread_join(tid, NULL), 0);
		print_message("free %s: run rc %d (%s), %d reports\n",
			      block ? "during the callback" : "during the searches",
			      j.rc, j.msg, j.calls);
		if (block) {
			assert_int_equal(j.rc, TESSEL_ECANCELLED);
			assert_non_null(strstr(j.msg, "freed"));
			assert_int_equal(j.calls, 1);
		} else if (j.rc != TESSEL_OK) {
			assert_int_equal(j.rc, TESSEL_ECANCELLED);
			assert_non_null(strstr(j.msg, "freed"));
			/* (a report may have begun before the free) */
			assert_true(j.calls <= calls + 1);
		}
		tessel_options_free(j.options);
		pthread_cond_destroy(&j.cond);
		pthread_mutex_destroy(&j.lock);
	}
	tessel_model_free(m);
}

/* ---- an exploration's getters while another thread runs it ------------- */

typedef struct rerun_job {
	tessel_explore *ex;
	tessel_options *options;
	atomic_int done;
	int ok, busy;
} rerun_job;

static void *rerun_worker(void *arg)
{
	rerun_job *j = arg;
	for (int i = 0; i < 3; i++) {
		int rc = tessel_explore_run(j->ex, j->options);
		j->ok += rc == TESSEL_OK;
		j->busy += rc == TESSEL_EINVAL;
		assert_true(rc == TESSEL_OK || rc == TESSEL_EINVAL);
	}
	atomic_store(&j->done, 1);
	return NULL;
}

/* The getters and tessel_explore_to_json on one thread while another runs
 * the exploration again and again: each call either reads a whole state
 * or returns TESSEL_EINVAL (running), never a candidate rewritten under
 * it: a run waits for the getters reading to end (ThreadSanitizer's suite
 * checks that no access races). */
static void test_explore_readers_during_runs(void **state)
{
	(void)state;
	tessel_model *m = NULL;
	TH_OK(tessel_model_from_file(&m, th_data_path("model-small.json")));
	rerun_job j = {0};
	TH_OK(tessel_explore_new(&j.ex, m));
	j.options = th_options(8);
	TH_OK(tessel_options_set(j.options, TESSEL_OPT_THREADS, 1));
	TH_OK(tessel_options_set(j.options, TESSEL_OPT_FAST, 1));
	pthread_t tid;
	assert_int_equal(pthread_create(&tid, NULL, rerun_worker, &j), 0);
	int reads = 0, refused = 0;
	while (!atomic_load(&j.done)) {
		size_t n = 0;
		TH_OK(tessel_explore_count(&n, j.ex));
		for (size_t k = 0; k < n; k++) {
			double v = 0;
			const char *text = NULL;
			const tessel_schedule *s = NULL;
			int rc = tessel_explore_get(&v, j.ex, k, TESSEL_EXPLORE_TIME);
			assert_true(rc == TESSEL_OK || rc == TESSEL_EINVAL);
			rc = tessel_explore_reason(&text, j.ex, k);
			assert_true(rc == TESSEL_OK || rc == TESSEL_EINVAL);
			if (!rc)
				assert_non_null(text);
			rc = tessel_explore_schedule(&s, j.ex, k);
			assert_true(rc == TESSEL_OK || rc == TESSEL_EINVAL ||
				    rc == TESSEL_ENOTFOUND);
			reads += rc != TESSEL_EINVAL;
			refused += rc == TESSEL_EINVAL;
		}
		char *json = NULL;
		int rc = tessel_explore_to_json(&json, j.ex, 0);
		assert_true(rc == TESSEL_OK || rc == TESSEL_EINVAL);
		tessel_free(json);
		sched_yield();
	}
	assert_int_equal(pthread_join(tid, NULL), 0);
	print_message("%d runs done, %d refused; %d reads, %d refused\n", j.ok,
		      j.busy, reads, refused);
	assert_int_equal(j.ok, 3);
	tessel_options_free(j.options);
	tessel_explore_free(j.ex);
	tessel_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parallel_searches),
		cmocka_unit_test(test_cancel_from_other_thread),
		cmocka_unit_test(test_concurrent_readers),
		cmocka_unit_test(test_explore_free_from_other_thread),
		cmocka_unit_test(test_explore_readers_during_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
