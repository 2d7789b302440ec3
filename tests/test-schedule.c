/* Reading a schedule: figures, peak memory, iterators, entries, text grid,
 * and bad arguments. Schedules are made by hand (no search involved). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helpers.h"
#include "tessel.h"

enum { F0, F1, B1, B0 };
#define NM 4

/* 2-device pipeline: f0 (dev 0) -> f1 (dev 1) -> b1 (dev 1) -> b0 (dev 0);
 * forwards span 1 memory +1, backwards span 2 memory -1. */
static tessel_graph *pipeline2(int64_t limit)
{
	const char *names[] = {"f0", "f1", "b1", "b0"};
	const int dev[] = {0, 1, 1, 0}, span[] = {1, 1, 2, 2}, mem[] = {1, 1, -1, -1};
	const tessel_kind kind[] = {TESSEL_KIND_FORWARD, TESSEL_KIND_FORWARD, TESSEL_KIND_BACKWARD, TESSEL_KIND_BACKWARD};
	tessel_graph *g = th_chain(2, 4, names, dev, kind, span, mem);
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, limit));
	return g;
}

/* Hand-made 1F1B for 4 micro-batches: start step of [gid][mid]. */
static const int64_t starts_1f1b[4][NM] = {
	[F0] = {0, 1, 6, 9},
	[F1] = {1, 4, 7, 10},
	[B1] = {2, 5, 8, 11},
	[B0] = {4, 7, 10, 13},
};

static tessel_schedule *schedule_1f1b(int64_t limit)
{
	tessel_graph *g = pipeline2(limit);
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, NM));
	tessel_graph_free(g);
	for (int b = 0; b < 4; b++)
		for (int m = 0; m < NM; m++)
			TH_OK(tessel_schedule_set_step(s, b, m, starts_1f1b[b][m]));
	return s;
}

/* ------------------------------------------------------------------------ */

static void test_figures(void **state)
{
	(void)state;
	tessel_graph *g = pipeline2(TESSEL_UNLIMITED);
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, NM));
	assert_non_null(s);
	assert_int_equal(th_sched(s, TESSEL_SCHED_NDEVICES), 2);
	assert_int_equal(th_sched(s, TESSEL_SCHED_NBLOCKS), 4);
	assert_int_equal(th_sched(s, TESSEL_SCHED_NMICROS), NM);
	assert_int_equal(th_sched(s, TESSEL_SCHED_NENTRIES), 4 * NM);
	assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 0);
	/* figures only a search knows read as 0 */
	assert_int_equal(th_sched(s, TESSEL_SCHED_PERIOD), 0);
	assert_int_equal(th_sched(s, TESSEL_SCHED_PERIOD_OPTIMAL), 0);
	assert_int_equal(th_sched(s, TESSEL_SCHED_REPETEND_BEGIN), 0);
	assert_int_equal(th_sched(s, TESSEL_SCHED_REPETEND_END), 0);
	assert_int_equal(th_sched(s, TESSEL_SCHED_DEPTH), 0);
	assert_int_equal(th_sched(s, TESSEL_SCHED_SEARCH_MICROSECONDS), 0);
	/* bounds come from the graph */
	assert_int_equal(th_sched(s, TESSEL_SCHED_RESOURCE_BOUND), 3);
	/* device 1: head 1 + 4 * 3 + tail 2 */
	assert_int_equal(th_sched(s, TESSEL_SCHED_LOWER_BOUND), 15);
	double secs = -1;
	TH_OK(tessel_schedule_search_seconds(&secs, s));
	assert_true(secs == 0.0);

	/* the schedule holds its own copy of the graph */
	const tessel_graph *sg = NULL;
	TH_OK(tessel_schedule_graph(&sg, s));
	assert_non_null(sg);
	assert_ptr_not_equal(sg, g);
	int gid;
	TH_OK(tessel_graph_add_block(&gid, g, "extra", TESSEL_KIND_FORWARD, 1, 0));
	tessel_graph_free(g);
	int64_t v;
	TH_OK(tessel_graph_get(&v, sg, TESSEL_GRAPH_NBLOCKS));
	assert_int_equal(v, 4);
	assert_int_equal(th_sched(s, TESSEL_SCHED_NBLOCKS), 4);

	/* placing entries moves the makespan */
	TH_OK(tessel_schedule_set_step(s, B0, 3, 20));
	assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 22);
	TH_OK(tessel_schedule_set_step(s, B0, 3, 13));
	assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 15);
	tessel_schedule_free(s);

	s = schedule_1f1b(TESSEL_UNLIMITED);
	assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 15);
	TH_OK(tessel_schedule_validate(s));
	tessel_schedule_free(s);
}

static void test_peak_memory(void **state)
{
	(void)state;
	tessel_schedule *s = schedule_1f1b(2);
	int64_t peak = -1;
	TH_OK(tessel_schedule_peak_memory(&peak, s, 0));
	assert_int_equal(peak, 2);
	TH_OK(tessel_schedule_peak_memory(&peak, s, 1));
	assert_int_equal(peak, 1);
	tessel_schedule_free(s);

	/* an empty schedule uses nothing; peaks never read below 0 */
	tessel_graph *g = pipeline2(TESSEL_UNLIMITED);
	TH_OK(tessel_schedule_new(&s, g, NM));
	TH_OK(tessel_schedule_peak_memory(&peak, s, 0));
	assert_int_equal(peak, 0);
	TH_OK(tessel_schedule_set_step(s, B0, 0, 0));
	TH_OK(tessel_schedule_peak_memory(&peak, s, 0));
	assert_int_equal(peak, 0);
	/* GPipe-like order on device 0: all forwards first */
	for (int m = 0; m < NM; m++)
		TH_OK(tessel_schedule_set_step(s, F0, m, m));
	for (int m = 0; m < NM; m++)
		TH_OK(tessel_schedule_set_step(s, B0, m, 10 + 2 * m));
	TH_OK(tessel_schedule_peak_memory(&peak, s, 0));
	assert_int_equal(peak, NM);
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

/* A block on two devices applies its delta on each of them. */
static void test_multi_device_block(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	int gid;
	const int both[] = {0, 1}, one[] = {1};
	TH_OK(tessel_graph_new(&g, 3));
	TH_OK(tessel_graph_add_block(&gid, g, "tp", TESSEL_KIND_FORWARD, 2, 3));
	TH_OK(tessel_graph_place(g, gid, both, 2));
	TH_OK(tessel_graph_add_block(&gid, g, "x", TESSEL_KIND_BACKWARD, 1, -3));
	TH_OK(tessel_graph_place(g, gid, one, 1));
	TH_OK(tessel_graph_add_dep(g, 0, 1));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 2));
	tessel_graph_free(g);
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 2));
	TH_OK(tessel_schedule_set_step(s, 0, 1, 3));
	TH_OK(tessel_schedule_set_step(s, 1, 1, 5));
	TH_OK(tessel_schedule_validate(s));
	int64_t peak;
	TH_OK(tessel_schedule_peak_memory(&peak, s, 0));
	assert_int_equal(peak, 6);
	TH_OK(tessel_schedule_peak_memory(&peak, s, 1));
	assert_int_equal(peak, 3);
	TH_OK(tessel_schedule_peak_memory(&peak, s, 2));
	assert_int_equal(peak, 0);

	/* device 1 sees tp and x; device 2 nothing; all devices: 4 entries */
	tessel_iter *it = NULL;
	const tessel_entry *e;
	int n = 0;
	TH_OK(tessel_iter_new(&it, s, 1));
	while (tessel_iter_next(&e, it) == TESSEL_OK)
		n++;
	tessel_iter_free(it);
	assert_int_equal(n, 4);
	TH_OK(tessel_iter_new(&it, s, 2));
	assert_int_equal(tessel_iter_next(&e, it), TESSEL_ITEROVER);
	assert_null(e);
	tessel_iter_free(it);
	TH_OK(tessel_iter_new(&it, s, TESSEL_ALL_DEVICES));
	n = 0;
	while (tessel_iter_next(&e, it) == TESSEL_OK) {
		if (n == 0) {
			int d = -1;
			assert_int_equal(th_entry(e, TESSEL_ENTRY_NDEVICES), 2);
			TH_OK(tessel_entry_device(&d, e, 0));
			assert_int_equal(d, 0);
			TH_OK(tessel_entry_device(&d, e, 1));
			assert_int_equal(d, 1);
			th_expect_error(tessel_entry_device(&d, e, 2),
				     TESSEL_ENOTFOUND, "index");
		}
		n++;
	}
	tessel_iter_free(it);
	assert_int_equal(n, 4);
	tessel_schedule_free(s);
}

static void test_iter_device(void **state)
{
	(void)state;
	tessel_schedule *s = schedule_1f1b(TESSEL_UNLIMITED);
	/* device 0 in time order */
	const int want_gid[] = {F0, F0, B0, F0, B0, F0, B0, B0};
	const int want_mid[] = {0, 1, 0, 2, 1, 3, 2, 3};
	const int want_start[] = {0, 1, 4, 6, 7, 9, 10, 13};
	tessel_iter *it = NULL;
	const tessel_entry *e = NULL;
	TH_OK(tessel_iter_new(&it, s, 0));
	for (int i = 0; i < 8; i++) {
		TH_OK(tessel_iter_next(&e, it));
		assert_non_null(e);
		assert_int_equal(th_entry(e, TESSEL_ENTRY_GID), want_gid[i]);
		assert_int_equal(th_entry(e, TESSEL_ENTRY_MICRO_BATCH),
				 want_mid[i]);
		assert_int_equal(th_entry(e, TESSEL_ENTRY_START), want_start[i]);
	}
	/* over, and stays over */
	e = (const tessel_entry *)1;
	assert_int_equal(tessel_iter_next(&e, it), TESSEL_ITEROVER);
	assert_null(e);
	e = (const tessel_entry *)1;
	assert_int_equal(tessel_iter_next(&e, it), TESSEL_ITEROVER);
	assert_null(e);
	tessel_iter_free(it);

	/* device 1: 8 entries, starts strictly increasing */
	TH_OK(tessel_iter_new(&it, s, 1));
	int n = 0;
	int64_t last = -1;
	while (tessel_iter_next(&e, it) == TESSEL_OK) {
		int64_t st = th_entry(e, TESSEL_ENTRY_START);
		assert_true(st > last);
		last = st;
		n++;
	}
	assert_int_equal(n, 8);
	tessel_iter_free(it);
	tessel_schedule_free(s);
}

static void test_iter_all(void **state)
{
	(void)state;
	tessel_schedule *s = schedule_1f1b(TESSEL_UNLIMITED);
	tessel_iter *it = NULL;
	const tessel_entry *e;
	TH_OK(tessel_iter_new(&it, s, TESSEL_ALL_DEVICES));
	int n = 0;
	int seen[4][NM] = {{0}};
	int64_t last_start = -1, last_dev = -1;
	while (tessel_iter_next(&e, it) == TESSEL_OK) {
		int64_t st = th_entry(e, TESSEL_ENTRY_START);
		int gid = (int)th_entry(e, TESSEL_ENTRY_GID);
		int64_t mid = th_entry(e, TESSEL_ENTRY_MICRO_BATCH);
		int dev = -1;
		TH_OK(tessel_entry_device(&dev, e, 0));
		assert_true(st >= last_start);
		if (st == last_start)
			assert_true(dev > last_dev);
		last_start = st;
		last_dev = dev;
		seen[gid][mid]++;
		n++;
	}
	assert_int_equal(n, 4 * NM);
	for (int b = 0; b < 4; b++)
		for (int m = 0; m < NM; m++)
			assert_int_equal(seen[b][m], 1);
	assert_int_equal(tessel_iter_next(&e, it), TESSEL_ITEROVER);
	tessel_iter_free(it);

	/* at step 4, b0 (gid 3, device 0) comes before f1 (gid 1, device 1) */
	TH_OK(tessel_iter_new(&it, s, TESSEL_ALL_DEVICES));
	const int want_gid[] = {F0, F0, F1, B1, B0, F1};
	for (int i = 0; i < 6; i++) {
		TH_OK(tessel_iter_next(&e, it));
		assert_int_equal(th_entry(e, TESSEL_ENTRY_GID), want_gid[i]);
	}
	tessel_iter_free(it);
	tessel_schedule_free(s);
}

/* Unplaced entries are skipped. */
static void test_iter_unplaced(void **state)
{
	(void)state;
	tessel_graph *g = pipeline2(TESSEL_UNLIMITED);
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, NM));
	tessel_graph_free(g);
	tessel_iter *it = NULL;
	const tessel_entry *e;
	TH_OK(tessel_iter_new(&it, s, TESSEL_ALL_DEVICES));
	assert_int_equal(tessel_iter_next(&e, it), TESSEL_ITEROVER);
	tessel_iter_free(it);
	TH_OK(tessel_schedule_set_step(s, B1, 2, 7));
	TH_OK(tessel_iter_new(&it, s, 1));
	TH_OK(tessel_iter_next(&e, it));
	const char *name = NULL;
	TH_OK(tessel_entry_name(&name, e));
	assert_string_equal(name, "b1");
	assert_int_equal(th_entry(e, TESSEL_ENTRY_MICRO_BATCH), 2);
	assert_int_equal(tessel_iter_next(&e, it), TESSEL_ITEROVER);
	tessel_iter_free(it);
	TH_OK(tessel_iter_new(&it, s, 0));
	assert_int_equal(tessel_iter_next(&e, it), TESSEL_ITEROVER);
	tessel_iter_free(it);
	tessel_schedule_free(s);
}

struct counter {
	int n;
	int stop_at;
	int64_t last_start;
	int ordered;
};

static int count_cb(const tessel_entry *e, void *payload)
{
	struct counter *c = payload;
	int64_t st = -1;
	if (tessel_entry_get(&st, e, TESSEL_ENTRY_START) != TESSEL_OK)
		return -100;
	if (st < c->last_start)
		c->ordered = 0;
	c->last_start = st;
	c->n++;
	return c->n == c->stop_at ? 7 : 0;
}

static void test_foreach(void **state)
{
	(void)state;
	tessel_schedule *s = schedule_1f1b(TESSEL_UNLIMITED);
	struct counter c = {0, -1, -1, 1};
	assert_int_equal(tessel_schedule_foreach(s, 0, count_cb, &c), 0);
	assert_int_equal(c.n, 8);
	assert_true(c.ordered);
	c = (struct counter){0, -1, -1, 1};
	assert_int_equal(tessel_schedule_foreach(s, TESSEL_ALL_DEVICES,
						 count_cb, &c), 0);
	assert_int_equal(c.n, 16);
	assert_true(c.ordered);
	/* early stop: the callback's value comes back */
	c = (struct counter){0, 3, -1, 1};
	assert_int_equal(tessel_schedule_foreach(s, 1, count_cb, &c), 7);
	assert_int_equal(c.n, 3);
	th_expect_error(tessel_schedule_foreach(s, 0, NULL, NULL), TESSEL_EINVAL,
		     "cb");
	th_expect_error(tessel_schedule_foreach(NULL, 0, count_cb, &c),
		     TESSEL_EINVAL, "schedule");
	th_expect_error(tessel_schedule_foreach(s, 2, count_cb, &c),
		     TESSEL_ENOTFOUND, "device 2");
	tessel_schedule_free(s);
}

static void test_entry_accessors(void **state)
{
	(void)state;
	tessel_schedule *s = schedule_1f1b(TESSEL_UNLIMITED);
	tessel_iter *it = NULL;
	const tessel_entry *e;
	TH_OK(tessel_iter_new(&it, s, 0));
	TH_OK(tessel_iter_next(&e, it));
	TH_OK(tessel_iter_next(&e, it));
	TH_OK(tessel_iter_next(&e, it)); /* b0 of micro-batch 0 at step 4 */
	assert_int_equal(th_entry(e, TESSEL_ENTRY_GID), B0);
	assert_int_equal(th_entry(e, TESSEL_ENTRY_MICRO_BATCH), 0);
	assert_int_equal(th_entry(e, TESSEL_ENTRY_START), 4);
	assert_int_equal(th_entry(e, TESSEL_ENTRY_SPAN), 2);
	assert_int_equal(th_entry(e, TESSEL_ENTRY_PHASE), TESSEL_PHASE_REPETEND);
	assert_int_equal(th_entry(e, TESSEL_ENTRY_KIND), TESSEL_KIND_BACKWARD);
	assert_int_equal(th_entry(e, TESSEL_ENTRY_MEMORY), -1);
	assert_int_equal(th_entry(e, TESSEL_ENTRY_NDEVICES), 1);
	const char *name = NULL;
	TH_OK(tessel_entry_name(&name, e));
	assert_string_equal(name, "b0");
	int d = -1;
	TH_OK(tessel_entry_device(&d, e, 0));
	assert_int_equal(d, 0);
	th_expect_error(tessel_entry_device(&d, e, 1), TESSEL_ENOTFOUND, "index 1");
	int64_t v = 42;
	th_expect_error(tessel_entry_get(&v, e, (tessel_entry_attr)99),
		     TESSEL_EINVAL, "attribute");
	assert_int_equal(v, 42);
	th_expect_error(tessel_entry_get(NULL, e, TESSEL_ENTRY_GID), TESSEL_EINVAL,
		     "out");
	th_expect_error(tessel_entry_get(&v, NULL, TESSEL_ENTRY_GID),
		     TESSEL_EINVAL, "entry");
	th_expect_error(tessel_entry_name(NULL, e), TESSEL_EINVAL, "out");
	name = "x";
	th_expect_error(tessel_entry_name(&name, NULL), TESSEL_EINVAL, "entry");
	assert_null(name);
	th_expect_error(tessel_entry_device(NULL, e, 0), TESSEL_EINVAL, "out");
	th_expect_error(tessel_entry_device(&d, NULL, 0), TESSEL_EINVAL, "entry");
	tessel_iter_free(it);
	tessel_schedule_free(s);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	tessel_graph *g = pipeline2(TESSEL_UNLIMITED);
	tessel_schedule *s = (tessel_schedule *)1;
	int64_t v = 42;

	/* creation */
	th_expect_error(tessel_schedule_new(NULL, g, 4), TESSEL_EINVAL, "out");
	th_expect_error(tessel_schedule_new(&s, NULL, 4), TESSEL_EINVAL, "graph");
	assert_null(s);
	th_expect_error(tessel_schedule_new(&s, g, 0), TESSEL_ERANGE, "nmicros");
	th_expect_error(tessel_schedule_new(&s, g, -5), TESSEL_ERANGE, "nmicros");
	th_expect_error(tessel_schedule_new(&s, g, 1000001), TESSEL_ERANGE,
		     "nmicros");
	assert_null(s);
	/* an invalid graph is refused */
	tessel_graph *bad = NULL;
	int gid;
	TH_OK(tessel_graph_new(&bad, 2));
	TH_OK(tessel_graph_add_block(&gid, bad, "lost", TESSEL_KIND_FORWARD, 1, 0));
	assert_int_not_equal(tessel_schedule_new(&s, bad, 4), TESSEL_OK);
	assert_null(s);
	tessel_graph_free(bad);
	/* too many entries: 101 blocks x 1000000 micro-batches > 100 million */
	TH_OK(tessel_graph_new(&bad, 1));
	for (int i = 0; i < 101; i++) {
		char name[16];
		const int dev0 = 0;
		snprintf(name, sizeof name, "b%d", i);
		TH_OK(tessel_graph_add_block(&gid, bad, name,
					     TESSEL_KIND_FORWARD, 1, 0));
		TH_OK(tessel_graph_place(bad, gid, &dev0, 1));
	}
	th_expect_error(tessel_schedule_new(&s, bad, 1000000), TESSEL_ERANGE,
		     "micro-batches");
	assert_null(s);
	tessel_graph_free(bad);

	TH_OK(tessel_schedule_new(&s, g, 4));
	tessel_graph_free(g);

	/* set_step */
	th_expect_error(tessel_schedule_set_step(NULL, 0, 0, 0), TESSEL_EINVAL,
		     "schedule");
	th_expect_error(tessel_schedule_set_step(s, -1, 0, 0), TESSEL_ENOTFOUND,
		     "gid -1");
	th_expect_error(tessel_schedule_set_step(s, 4, 0, 0), TESSEL_ENOTFOUND,
		     "gid 4");
	th_expect_error(tessel_schedule_set_step(s, 0, -1, 0), TESSEL_ENOTFOUND,
		     "micro-batch -1");
	th_expect_error(tessel_schedule_set_step(s, 0, 4, 0), TESSEL_ENOTFOUND,
		     "micro-batch 4");
	th_expect_error(tessel_schedule_set_step(s, 0, 0, -1), TESSEL_ERANGE,
		     "step -1");
	th_expect_error(tessel_schedule_set_step(s, 0, 0, INT64_MAX),
		     TESSEL_ERANGE, "step");
	assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 0);

	/* figures */
	th_expect_error(tessel_schedule_get(NULL, s, TESSEL_SCHED_NMICROS),
		     TESSEL_EINVAL, "out");
	th_expect_error(tessel_schedule_get(&v, NULL, TESSEL_SCHED_NMICROS),
		     TESSEL_EINVAL, "schedule");
	th_expect_error(tessel_schedule_get(&v, s, (tessel_schedule_attr)99),
		     TESSEL_EINVAL, "attribute");
	th_expect_error(tessel_schedule_get(&v, s, (tessel_schedule_attr)-1),
		     TESSEL_EINVAL, "attribute");
	assert_int_equal(v, 42);
	double secs;
	th_expect_error(tessel_schedule_search_seconds(NULL, s), TESSEL_EINVAL,
		     "out");
	th_expect_error(tessel_schedule_search_seconds(&secs, NULL),
		     TESSEL_EINVAL, "schedule");
	const tessel_graph *sg = (const tessel_graph *)1;
	th_expect_error(tessel_schedule_graph(NULL, s), TESSEL_EINVAL, "out");
	th_expect_error(tessel_schedule_graph(&sg, NULL), TESSEL_EINVAL,
		     "schedule");
	assert_null(sg);

	/* peak memory */
	th_expect_error(tessel_schedule_peak_memory(NULL, s, 0), TESSEL_EINVAL,
		     "out");
	th_expect_error(tessel_schedule_peak_memory(&v, NULL, 0), TESSEL_EINVAL,
		     "schedule");
	th_expect_error(tessel_schedule_peak_memory(&v, s, 2), TESSEL_ENOTFOUND,
		     "device 2");
	th_expect_error(tessel_schedule_peak_memory(&v, s, -1), TESSEL_ENOTFOUND,
		     "device -1");
	assert_int_equal(v, 42);

	/* iterators */
	tessel_iter *it = (tessel_iter *)1;
	const tessel_entry *e = (const tessel_entry *)1;
	th_expect_error(tessel_iter_new(NULL, s, 0), TESSEL_EINVAL, "out");
	th_expect_error(tessel_iter_new(&it, NULL, 0), TESSEL_EINVAL, "schedule");
	assert_null(it);
	th_expect_error(tessel_iter_new(&it, s, 2), TESSEL_ENOTFOUND, "device 2");
	th_expect_error(tessel_iter_new(&it, s, -2), TESSEL_ENOTFOUND,
		     "device -2");
	assert_null(it);
	th_expect_error(tessel_iter_next(NULL, it), TESSEL_EINVAL, "out");
	th_expect_error(tessel_iter_next(&e, NULL), TESSEL_EINVAL, "iter");
	assert_null(e);

	/* outputs and validation */
	char *text = (char *)1;
	th_expect_error(tessel_schedule_to_text(NULL, s), TESSEL_EINVAL, "out");
	th_expect_error(tessel_schedule_to_text(&text, NULL), TESSEL_EINVAL,
		     "schedule");
	assert_null(text);
	th_expect_error(tessel_schedule_validate(NULL), TESSEL_EINVAL, "schedule");

	/* releasing NULL does nothing */
	tessel_schedule_free(NULL);
	tessel_iter_free(NULL);
	tessel_free(NULL);
	tessel_schedule_free(s);
}

/* Whether `text` has a line exactly equal to `line`. */
static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return 1;
	}
	return 0;
}

static void expect_line(const char *text, const char *line)
{
	if (!has_line(text, line))
		print_error("line \"%s\" missing from:\n%s\n", line, text);
	assert_true(has_line(text, line));
}

static void test_text_grid(void **state)
{
	(void)state;
	tessel_schedule *s = schedule_1f1b(2);
	char *text = NULL;
	TH_OK(tessel_schedule_to_text(&text, s));
	assert_non_null(text);
	expect_line(text, "dev 0: f0 f1 -- -- b0-b0 f2 b1-b1 f3 b2-b2 -- b3-b3");
	expect_line(text, "dev 1: -- f0 b0-b0 f1 b1-b1 f2 b2-b2 f3 b3-b3 -- --");
	expect_line(text, "period unknown (resource bound 3, not proven optimal)");
	expect_line(text, "makespan 15 (lower bound 15, efficiency 1.00)");
	expect_line(text, "peak memory: d0 2/2, d1 1/2");
	expect_line(text, "search time 0.000 s");
	tessel_free(text);
	tessel_schedule_free(s);

	/* unlimited memory reads "inf"; an empty schedule prints bare rows */
	tessel_graph *g = pipeline2(TESSEL_UNLIMITED);
	TH_OK(tessel_schedule_new(&s, g, 1));
	tessel_graph_free(g);
	TH_OK(tessel_schedule_to_text(&text, s));
	expect_line(text, "dev 0:");
	expect_line(text, "peak memory: d0 0/inf, d1 0/inf");
	tessel_free(text);
	tessel_schedule_free(s);
}

/* A span-3 block repeats its label; wider labels pad the cells. */
static void test_text_spans(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	int gid;
	const int dev0 = 0;
	TH_OK(tessel_graph_new(&g, 1));
	TH_OK(tessel_graph_add_block(&gid, g, "b", TESSEL_KIND_BACKWARD, 3, 0));
	TH_OK(tessel_graph_place(g, gid, &dev0, 1));
	TH_OK(tessel_graph_add_block(&gid, g, "w", TESSEL_KIND_WEIGHT, 1, 0));
	TH_OK(tessel_graph_place(g, gid, &dev0, 1));
	TH_OK(tessel_graph_add_dep(g, 0, 1));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 2));
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 3));
	TH_OK(tessel_schedule_set_step(s, 0, 1, 5));
	TH_OK(tessel_schedule_set_step(s, 1, 1, 8));
	char *text = NULL;
	TH_OK(tessel_schedule_to_text(&text, s));
	expect_line(text, "dev 0: b0-b0-b0 w0 -- b1-b1-b1 w1");
	tessel_free(text);
	tessel_schedule_free(s);

	/* 12 micro-batches: labels up to 3 characters, cells of width 3 */
	TH_OK(tessel_schedule_new(&s, g, 12));
	tessel_graph_free(g);
	for (int m = 0; m < 12; m++) {
		TH_OK(tessel_schedule_set_step(s, 0, m, 4 * m));
		TH_OK(tessel_schedule_set_step(s, 1, m, 4 * m + 3));
	}
	TH_OK(tessel_schedule_to_text(&text, s));
	assert_non_null(strstr(text, "dev 0: b0--b0--b0  w0  b1--b1--b1  w1  b2-"));
	assert_non_null(strstr(text, " b11-b11-b11 w11\n"));
	tessel_free(text);
	tessel_schedule_free(s);
}

/* More than 400 steps: the first 200 and the last 100, " ... " between. */
static void test_text_long(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	int gid;
	const int dev0 = 0;
	TH_OK(tessel_graph_new(&g, 1));
	TH_OK(tessel_graph_add_block(&gid, g, "f", TESSEL_KIND_FORWARD, 1, 1));
	TH_OK(tessel_graph_place(g, gid, &dev0, 1));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 500));
	tessel_graph_free(g);
	for (int m = 0; m < 500; m++)
		TH_OK(tessel_schedule_set_step(s, 0, m, m));
	char *text = NULL;
	TH_OK(tessel_schedule_to_text(&text, s));
	assert_non_null(strstr(text, "dev 0: f0   f1   f2   "));
	assert_non_null(strstr(text, " f199 ... f400 f401 "));
	assert_non_null(strstr(text, " f499\n"));
	assert_null(strstr(text, "f200"));
	assert_null(strstr(text, "f399"));
	/* 300 cells on the row */
	const char *row = strstr(text, "dev 0:");
	const char *end = strchr(row, '\n');
	int cells = 0;
	for (const char *p = row; p < end; p++)
		if (*p == 'f')
			cells++;
	assert_int_equal(cells, 300);
	expect_line(text, "peak memory: d0 500/inf");
	tessel_free(text);
	tessel_schedule_free(s);
}

/* Two blocks on one device, spans `fs` and `bs`, micro-batches one after
 * another (f at (fs + bs + gap) * m, b right after it). */
static tessel_schedule *two_block_schedule(int fs, int bs, int gap, int n)
{
	tessel_graph *g = NULL;
	const int dev0 = 0;
	TH_OK(tessel_graph_new(&g, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "f", TESSEL_KIND_FORWARD, fs, 1));
	TH_OK(tessel_graph_place(g, 0, &dev0, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "b", TESSEL_KIND_BACKWARD, bs, -1));
	TH_OK(tessel_graph_place(g, 1, &dev0, 1));
	TH_OK(tessel_graph_add_dep(g, 0, 1));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, n));
	tessel_graph_free(g);
	for (int m = 0; m < n; m++) {
		TH_OK(tessel_schedule_set_step(s, 0, m, (int64_t)(fs + bs + gap) * m));
		TH_OK(tessel_schedule_set_step(s, 1, m, (int64_t)(fs + bs + gap) * m + fs));
	}
	TH_OK(tessel_schedule_validate(s));
	return s;
}

/* Large spans: one cell per gcd of the steps, said under the grid. */
static void test_text_cells(void **state)
{
	(void)state;
	/* spans 200 and 600, an idle gap of 200: cells of 200 steps */
	tessel_schedule *s = two_block_schedule(200, 600, 200, 2);
	char *text = NULL;
	TH_OK(tessel_schedule_to_text(&text, s));
	expect_line(text, "dev 0: f0 b0-b0-b0 -- f1 b1-b1-b1");
	expect_line(text, "one cell = 200 steps");
	expect_line(text, "makespan 1800 (lower bound 1600, efficiency 0.89)");
	tessel_free(text);
	tessel_schedule_free(s);

	/* spans 137 and 281: gcd 1 would give 1672 cells; coarse cells of
	 * 5 steps (1672 / 400 rounded up) instead, each showing the block
	 * at its first step */
	s = two_block_schedule(137, 281, 0, 4);
	TH_OK(tessel_schedule_to_text(&text, s));
	expect_line(text, "one cell = 5 steps (coarse: a cell shows the block running at its first step)");
	const char *row = strstr(text, "dev 0: f0");
	assert_non_null(row);
	const char *end = strchr(row, '\n');
	size_t cells = 0, f0 = 0, b3 = 0;
	for (const char *p = row + 6; p < end; p++)
		if (*p == 'f' || *p == 'b')
			cells++;
	/* ceil(1672 / 5) cells, f0 in the 28 starting at 0, 5, .., 135 */
	assert_int_equal(cells, 335);
	for (const char *p = strstr(row, "f0"); p && p < end; p = strstr(p + 1, "f0"))
		f0++;
	for (const char *p = strstr(row, "b3"); p && p < end; p = strstr(p + 1, "b3"))
		b3++;
	assert_int_equal(f0, 28);
	/* b3 from step 1391 to 1672: cells from 1395 */
	assert_int_equal(b3, (1672 - 1395 + 4) / 5);
	assert_null(strstr(text, " ... "));
	tessel_free(text);
	tessel_schedule_free(s);

	/* no coarser than the shortest span: spans 3 and 5 over 2000 steps
	 * keep cells of 3 steps, and the grid is cut as before */
	s = two_block_schedule(3, 5, 0, 250);
	TH_OK(tessel_schedule_to_text(&text, s));
	expect_line(text, "one cell = 3 steps (coarse: a cell shows the block running at its first step)");
	assert_non_null(strstr(text, " ... "));
	tessel_free(text);
	tessel_schedule_free(s);
}

/* The step, the unit and the latencies in the figures. */
static void test_text_latency(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	const int d0 = 0, d1 = 1;
	TH_OK(tessel_graph_new(&g, 2));
	TH_OK(tessel_graph_add_block(NULL, g, "f", TESSEL_KIND_FORWARD, 2, 0));
	TH_OK(tessel_graph_place(g, 0, &d0, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "b", TESSEL_KIND_BACKWARD, 2, 0));
	TH_OK(tessel_graph_place(g, 1, &d1, 1));
	TH_OK(tessel_graph_add_dep_latency(g, 0, 1, 4));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 1));
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 6));
	TH_OK(tessel_schedule_validate(s));
	char *text = NULL;
	TH_OK(tessel_schedule_to_text(&text, s));
	/* gcd of spans 2, latency 4 and starts 0, 6: cells of 2 steps */
	expect_line(text, "dev 0: f0 -- -- --");
	expect_line(text, "dev 1: -- -- -- b0");
	expect_line(text, "one cell = 2 steps");
	expect_line(text, "latency: 1 dependency with its own (4 steps)");
	assert_null(strstr(text, "step 1"));
	tessel_free(text);
	tessel_schedule_free(s);

	/* a step in ms: the makespan in ms too */
	TH_OK(tessel_graph_set_step(g, 0.5));
	TH_OK(tessel_graph_set_unit(g, "ms"));
	TH_OK(tessel_graph_set_latency_time(g, 0.9));
	TH_OK(tessel_schedule_new(&s, g, 1));
	tessel_graph_free(g);
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 6));
	TH_OK(tessel_schedule_to_text(&text, s));
	assert_non_null(strstr(text, "\nmakespan 8 = 4 ms (lower bound "));
	expect_line(text, "step 0.5 ms (durations rounded up to whole steps)");
	expect_line(text, "latency 2 steps (0.9 ms) between devices; 1 dependency with its own (4 steps)");
	tessel_free(text);
	tessel_schedule_free(s);

	/* no latency: no line */
	s = two_block_schedule(1, 1, 0, 1);
	TH_OK(tessel_schedule_to_text(&text, s));
	assert_null(strstr(text, "latency"));
	assert_null(strstr(text, "one cell"));
	tessel_free(text);
	tessel_schedule_free(s);
}

/* Read-only use of one const schedule from several threads at once. */
struct reader {
	const tessel_schedule *s;
	int entries;
	int64_t peak0;
	int valid;
	char *text;
};

static void *read_schedule(void *arg)
{
	struct reader *r = arg;
	for (int round = 0; round < 50; round++) {
		tessel_iter *it = NULL;
		const tessel_entry *e;
		r->entries = 0;
		if (tessel_iter_new(&it, r->s, TESSEL_ALL_DEVICES) != TESSEL_OK)
			return NULL;
		while (tessel_iter_next(&e, it) == TESSEL_OK)
			r->entries++;
		tessel_iter_free(it);
		if (tessel_schedule_peak_memory(&r->peak0, r->s, 0) != TESSEL_OK)
			return NULL;
		r->valid = tessel_schedule_validate(r->s) == TESSEL_OK;
		tessel_free(r->text);
		r->text = NULL;
		if (tessel_schedule_to_text(&r->text, r->s) != TESSEL_OK)
			return NULL;
	}
	return NULL;
}

static void test_concurrent_readers(void **state)
{
	(void)state;
	tessel_schedule *s = schedule_1f1b(2);
	char *want = NULL;
	TH_OK(tessel_schedule_to_text(&want, s));
	enum { NT = 4 };
	pthread_t th[NT];
	struct reader r[NT];
	for (int i = 0; i < NT; i++) {
		r[i] = (struct reader){s, 0, 0, 0, NULL};
		assert_int_equal(pthread_create(&th[i], NULL, read_schedule,
						&r[i]), 0);
	}
	for (int i = 0; i < NT; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(r[i].entries, 4 * NM);
		assert_int_equal(r[i].peak0, 2);
		assert_true(r[i].valid);
		assert_non_null(r[i].text);
		assert_string_equal(r[i].text, want);
		tessel_free(r[i].text);
	}
	tessel_free(want);
	tessel_schedule_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_figures),
		cmocka_unit_test(test_peak_memory),
		cmocka_unit_test(test_multi_device_block),
		cmocka_unit_test(test_iter_device),
		cmocka_unit_test(test_iter_all),
		cmocka_unit_test(test_iter_unplaced),
		cmocka_unit_test(test_foreach),
		cmocka_unit_test(test_entry_accessors),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_text_grid),
		cmocka_unit_test(test_text_spans),
		cmocka_unit_test(test_text_long),
		cmocka_unit_test(test_text_cells),
		cmocka_unit_test(test_text_latency),
		cmocka_unit_test(test_concurrent_readers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
