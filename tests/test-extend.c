/* Many micro-batches searched as fewer, their steady state repeated
 * (search_extend.c), white box: which searches run on fewer
 * (tsl_extend_fewer); the repetition of a run of a searched schedule,
 * validated, its makespan the shorter one's plus the added repetitions;
 * schedules without a run, or whose run collides with an entry outside
 * it, give none; the stage itself with given tiers (tsl_search_fewer): its
 * schedule, the shorter of two tiers, the progress events relayed for N
 * micro-batches, the whole search when the shorter one's schedule does
 * not repeat, no later tier after a callback's stop, and a timeout of the
 * shorter search as the stage's, with what was searched. With declared
 * alternatives: tiers of equal tiles; a searched schedule with offloads
 * laid out as tiles (extend_tile.c), validated, their makespan known
 * before; the stage's schedule the tiles' when the shorter one does not
 * repeat, and the whole search when the tiles do not fit either. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "budget.h"

#include "error.h"
#include "extend_tile.h"
#include "graph.h"
#include "helpers.h"
#include "options.h"
#include "schedule.h"
#include "search_extend.h"
#include "search_opts.h"
#include "tessel.h"

#define OK(x) th_check_ok((x), #x, __FILE__, __LINE__)

/* One device: F (span 1, memory 1), then B (span 2, memory -1). */
static tessel_graph *one_device(void)
{
	static const char *const names[] = {"f", "b"};
	static const int devices[] = {0, 0};
	static const tessel_kind kinds[] = {TESSEL_KIND_FORWARD, TESSEL_KIND_BACKWARD};
	static const int spans[] = {1, 2};
	static const int memory[] = {1, -1};
	return th_chain(1, 2, names, devices, kinds, spans, memory);
}

/* A schedule of g (one_device) for n micro-batches, F of m at f[m] and B
 * at b[m]. */
static tessel_schedule *placed(const tessel_graph *g, int64_t n,
			       const int64_t *f, const int64_t *b)
{
	tessel_schedule *s = NULL;
	OK(tsl_schedule_alloc(&s, g, n));
	for (int64_t m = 0; m < n; m++) {
		tsl_entry_at(s, 0, m)->start = f[m];
		tsl_entry_at(s, 1, m)->start = b[m];
	}
	return s;
}

static void test_extend_fewer(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	OK(tessel_preset(&g, "vshape", 4, 0, TESSEL_PRESET_MEMORY)); /* 8 blocks */
	int64_t fewer[TSL_EXTEND_TIERS];
	assert_int_equal(tsl_extend_fewer(fewer, g, 16), 0);
	/* 2^21 entries are 262,144 micro-batches: up to them, all searched */
	assert_int_equal(tsl_extend_fewer(fewer, g, 262144), 0);
	/* beyond: 8 a device plus 64 (96), and 2^21 entries' worth once N
	 * is twice that, else half of N; N - N' a multiple of 12 */
	assert_int_equal(tsl_extend_fewer(fewer, g, 262145), 2);
	assert_true(fewer[0] >= 96 && fewer[0] < 96 + 12);
	assert_int_equal((262145 - fewer[0]) % 12, 0);
	assert_true(fewer[1] >= 131072 && fewer[1] < 131072 + 12);
	assert_int_equal((262145 - fewer[1]) % 12, 0);
	assert_int_equal(tsl_extend_fewer(fewer, g, 524287), 2);
	assert_true(fewer[1] >= 262143 && fewer[1] < 262143 + 12);
	assert_int_equal((524287 - fewer[1]) % 12, 0);
	assert_int_equal(tsl_extend_fewer(fewer, g, 1000000), 2);
	assert_true(fewer[0] >= 96 && fewer[0] < 96 + 12);
	assert_true(fewer[1] >= 262144 && fewer[1] < 262144 + 12);
	assert_int_equal((1000000 - fewer[0]) % 12, 0);
	assert_int_equal((1000000 - fewer[1]) % 12, 0);
	/* beyond the micro-batches a search takes: the whole search says so */
	assert_int_equal(tsl_extend_fewer(fewer, g, 1000001), 0);
	tessel_graph_free(g);
	OK(tessel_preset(&g, "vshape", 64, 0, TESSEL_PRESET_MEMORY)); /* 128 blocks */
	assert_int_equal(tsl_extend_fewer(fewer, g, 100000), 2);
	assert_true(fewer[0] >= 576 && fewer[0] < 576 + 12);
	assert_true(fewer[1] >= 16384 && fewer[1] < 16384 + 12);
	assert_int_equal(tsl_extend_fewer(fewer, g, 20000), 2);
	assert_true(fewer[1] >= 10000 && fewer[1] < 10000 + 12);
	tessel_graph_free(g);
	/* half of N not above the least (2,112): one tier */
	OK(tessel_preset(&g, "vshape", 256, 0, TESSEL_PRESET_MEMORY)); /* 512 blocks */
	assert_int_equal(tsl_extend_fewer(fewer, g, 4225), 1);
	assert_true(fewer[0] >= 2112 && fewer[0] < 2112 + 12);
	assert_int_equal(tsl_extend_fewer(fewer, g, 4300), 2);
	assert_true(fewer[1] >= 2150 && fewer[1] < 2150 + 12);
	tessel_graph_free(g);
	/* 2^21 entries' worth (1,024) below 8 a device plus 64: one tier */
	OK(tessel_preset(&g, "vshape", 1024, 0, TESSEL_PRESET_MEMORY)); /* 2,048 blocks */
	assert_int_equal(tsl_extend_fewer(fewer, g, 40000), 1);
	assert_true(fewer[0] >= 8256 && fewer[0] < 8256 + 12);
	/* fewer than twice the least: all searched up to 2^24 entries,
	 * above that half of them */
	assert_int_equal(tsl_extend_fewer(fewer, g, 8192), 0);
	assert_int_equal(tsl_extend_fewer(fewer, g, 8193), 1);
	assert_true(fewer[0] >= 4096 && fewer[0] < 4096 + 12);
	assert_int_equal((8193 - fewer[0]) % 12, 0);
	assert_int_equal(tsl_extend_fewer(fewer, g, 16000), 1);
	assert_true(fewer[0] >= 8000 && fewer[0] < 8000 + 12);
	tessel_graph_free(g);
}

static void test_extend_searched(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	OK(tessel_preset(&g, "vshape", 4, 0, TESSEL_PRESET_MEMORY));
	tessel_schedule *s = th_search(g, 40, 0, 0, 0);
	int64_t before = tsl_schedule_makespan(s);
	static const int64_t adds[] = {1, 12, 600};
	for (size_t i = 0; i < sizeof adds / sizeof *adds; i++) {
		int64_t n = 40 + adds[i];
		tessel_schedule *u = NULL;
		OK(tsl_extend_schedule(&u, s, n, 3, NULL));
		assert_non_null(u);
		OK(tessel_schedule_validate(u));
		assert_int_equal(u->nmicros, n);
		int64_t k = u->rep_k > 1 ? u->rep_k : 1;
		assert_int_equal(adds[i] % k, 0);
		assert_int_equal(tsl_schedule_makespan(u), before + adds[i] / k * u->period);
		int64_t lb = 0;
		OK(tessel_graph_lower_bound(&lb, g, n));
		assert_int_equal(u->lower_bound, lb);
		assert_true(tsl_schedule_makespan(u) >= lb);
		assert_int_equal(u->makespan_optimal, tsl_schedule_makespan(u) <= lb);
		/* the first micro-batch as it was */
		for (int b = 0; b < g->nblocks; b++)
			assert_int_equal(tsl_entry_at(u, b, 0)->start,
					 tsl_entry_at(s, b, 0)->start);
		tessel_schedule_free(u);
	}
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

static void test_extend_no_run(void **state)
{
	(void)state;
	tessel_graph *g = one_device();
	/* all forwards, then all backwards: F moves by 1, B by 2 */
	int64_t f[6], b[6];
	for (int m = 0; m < 6; m++) {
		f[m] = m;
		b[m] = 6 + 2 * m;
	}
	tessel_schedule *s = placed(g, 6, f, b);
	OK(tessel_schedule_validate(s));
	tessel_schedule *u = (tessel_schedule *)1;
	OK(tsl_extend_schedule(&u, s, 30, 3, NULL));
	assert_null(u);
	/* not more micro-batches: an error, nothing made */
	u = (tessel_schedule *)1;
	th_expect_error(tsl_extend_schedule(&u, s, 6, 3, NULL), TESSEL_EINVAL,
			"not more than");
	assert_null(u);
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

static void test_extend_collides(void **state)
{
	(void)state;
	tessel_graph *g = one_device();
	/* micro-batches 1 .. 3 repeat by 3 steps from 2 on; micro-batch 0's
	 * backward waits until step 11, where the repeated ones would run */
	int64_t f[] = {0, 1, 4, 7}, b[] = {11, 2, 5, 8};
	tessel_schedule *s = placed(g, 4, f, b);
	OK(tessel_schedule_validate(s));
	tessel_schedule *u = (tessel_schedule *)1;
	OK(tsl_extend_schedule(&u, s, 10, 3, NULL));
	assert_null(u);
	/* with micro-batch 0's backward past them, the run repeats */
	int64_t b2[] = {40, 2, 5, 8};
	tessel_schedule *s2 = placed(g, 4, f, b2);
	OK(tsl_extend_schedule(&u, s2, 10, 3, NULL));
	assert_non_null(u);
	OK(tessel_schedule_validate(u));
	assert_int_equal(tsl_entry_at(u, 0, 9)->start, 7 + 6 * 3);
	assert_int_equal(tsl_entry_at(u, 1, 0)->start, 40);
	tessel_schedule_free(u);
	tessel_schedule_free(s2);
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

typedef struct events {
	int count, done;
	int64_t last_makespan, lower_bound;
	int lb_wrong;
	char last_phase[32];
} events;

static int on_event(const tessel_progress *p, void *payload)
{
	events *e = payload;
	const char *phase = NULL;
	int64_t makespan = 0, lb = 0;
	OK(tessel_progress_phase(&phase, p));
	OK(tessel_progress_get(&makespan, p, TESSEL_PROGRESS_MAKESPAN));
	OK(tessel_progress_get(&lb, p, TESSEL_PROGRESS_LOWER_BOUND));
	e->count++;
	e->lb_wrong |= lb != e->lower_bound;
	e->last_makespan = makespan;
	e->done += strcmp(phase, "done") == 0;
	strncpy(e->last_phase, phase, sizeof e->last_phase - 1);
	return 0;
}

static void test_search_fewer(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	OK(tessel_preset(&g, "vshape", 4, 0, TESSEL_PRESET_MEMORY));
	tessel_options *o = th_options(660);
	events e = {0};
	OK(tessel_graph_lower_bound(&e.lower_bound, g, 660));
	OK(tessel_options_set_progress_fn(o, on_event, &e));
	tessel_schedule *u = NULL;
	static const int64_t tiers[] = {60};
	OK(tsl_search_fewer(&u, g, o, 660, tiers, 1, tessel_search));
	OK(tessel_schedule_validate(u));
	assert_int_equal(u->nmicros, 660);
	/* the same as the search of 60 repeated */
	tessel_schedule *s = th_search(g, 60, 0, 0, 0), *x = NULL;
	OK(tsl_extend_schedule(&x, s, 660, 3, NULL));
	assert_non_null(x);
	assert_int_equal(tsl_schedule_makespan(u), tsl_schedule_makespan(x));
	/* events for 660 micro-batches, the last one the schedule's */
	assert_true(e.count > 0);
	assert_false(e.lb_wrong);
	assert_string_equal(e.last_phase, "done");
	assert_int_equal(e.last_makespan, tsl_schedule_makespan(u));
	/* two tiers: the shorter of the two repetitions, the work of both */
	static const int64_t two[] = {60, 120};
	tessel_schedule *v = NULL, *s2 = th_search(g, 120, 0, 0, 0), *x2 = NULL;
	OK(tsl_extend_schedule(&x2, s2, 660, 3, NULL));
	assert_non_null(x2);
	OK(tsl_search_fewer(&v, g, o, 660, two, 2, tessel_search));
	OK(tessel_schedule_validate(v));
	int64_t m1 = tsl_schedule_makespan(x), m2 = tsl_schedule_makespan(x2);
	if (m1 <= x->lower_bound) { /* at LB(660): the second not searched */
		assert_int_equal(tsl_schedule_makespan(v), m1);
		assert_int_equal(v->work, s->work);
	} else {
		assert_int_equal(tsl_schedule_makespan(v), m1 <= m2 ? m1 : m2);
		assert_int_equal(v->work, s->work + s2->work);
	}
	tessel_schedule_free(x2);
	tessel_schedule_free(s2);
	tessel_schedule_free(v);
	tessel_schedule_free(x);
	tessel_schedule_free(s);
	tessel_schedule_free(u);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* A search whose schedule of 6 micro-batches never repeats (all
 * forwards first), and the real one for any other count. */
static int searches;
static int gpipe_at_six(tessel_schedule **out, const tessel_graph *g,
			const tessel_options *options)
{
	int64_t n = 0;
	OK(tessel_options_get(&n, options, TESSEL_OPT_MICRO_BATCHES));
	searches++;
	if (n != 6)
		return tessel_search(out, g, options);
	int64_t f[6], b[6];
	for (int m = 0; m < 6; m++) {
		f[m] = m;
		b[m] = 6 + 2 * m;
	}
	*out = placed(g, 6, f, b);
	return TESSEL_OK;
}

static void test_search_fewer_whole(void **state)
{
	(void)state;
	/* one_device, but each micro-batch leaves 1 behind (F takes 2, B
	 * gives back 1), memory 53: the schedule of 6 has no run, and its
	 * tiles do not fit (the eighth starts with 42 left behind, and its
	 * forwards take 12 more); one micro-batch at a time fits */
	static const char *const names[] = {"f", "b"};
	static const int devices[] = {0, 0};
	static const tessel_kind kinds[] = {TESSEL_KIND_FORWARD, TESSEL_KIND_BACKWARD};
	static const int spans[] = {1, 2};
	static const int memory[] = {2, -1};
	tessel_graph *g = th_chain(1, 2, names, devices, kinds, spans, memory);
	OK(tessel_graph_set_memory_limit(g, 0, 53));
	tessel_options *o = th_options(50);
	tessel_schedule *u = NULL;
	static const int64_t six[] = {6};
	searches = 0;
	OK(tsl_search_fewer(&u, g, o, 50, six, 1, gpipe_at_six));
	assert_int_equal(searches, 2);
	OK(tessel_schedule_validate(u));
	assert_int_equal(u->nmicros, 50);
	assert_int_equal(tsl_schedule_makespan(u), 150); /* the device's load */
	tessel_schedule_free(u);
	/* a time limit: still a schedule (these searches take milliseconds) */
	OK(tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, 60000));
	searches = 0;
	OK(tsl_search_fewer(&u, g, o, 50, six, 1, gpipe_at_six));
	assert_int_equal(searches, 2);
	assert_int_equal(u->nmicros, 50);
	tessel_schedule_free(u);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* A search counted, the library's. */
static int counted(tessel_schedule **out, const tessel_graph *g,
		   const tessel_options *options)
{
	searches++;
	return tessel_search(out, g, options);
}

static int stop_at_once(const tessel_progress *p, void *payload)
{
	(void)p;
	++*(int *)payload;
	return 1;
}

static void test_search_fewer_stopped(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	OK(tessel_preset(&g, "vshape", 4, 0, TESSEL_PRESET_MEMORY));
	tessel_options *o = th_options(660);
	int calls = 0;
	OK(tessel_options_set_progress_fn(o, stop_at_once, &calls));
	static const int64_t two[] = {60, 120};
	tessel_schedule *u = NULL;
	searches = 0;
	OK(tsl_search_fewer(&u, g, o, 660, two, 2, counted));
	/* the callback's stop ends the first tier's search at its first
	 * event; its schedule is repeated, and no later tier runs */
	assert_int_equal(searches, 1);
	assert_int_equal(calls, 1);
	OK(tessel_schedule_validate(u));
	assert_int_equal(u->nmicros, 660);
	tessel_schedule_free(u);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* A search out of time before any schedule. */
static int out_of_time(tessel_schedule **out, const tessel_graph *g,
		       const tessel_options *options)
{
	(void)g;
	(void)options;
	*out = NULL;
	searches++;
	return tsl_error(TESSEL_ETIMEOUT, "time limit reached before any schedule was found");
}

static void test_search_fewer_timeout(void **state)
{
	(void)state;
	tessel_graph *g = one_device();
	tessel_options *o = th_options(50);
	OK(tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, 1000));
	static const int64_t six[] = {6};
	tessel_schedule *u = (tessel_schedule *)1;
	searches = 0;
	/* with a time limit, the shorter search's timeout is the stage's: no
	 * whole search after it, and the message says what was searched */
	th_expect_error(tsl_search_fewer(&u, g, o, 50, six, 1, out_of_time),
			TESSEL_ETIMEOUT, "50 micro-batches were searched as fewer");
	assert_null(u);
	assert_int_equal(searches, 1);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* A pipeline on `ndev` devices: forwards (span 2, memory 4) then
 * backwards (span 4, memory -4), every forward may offload (saves 4,
 * transfer 2); memory `limit` a device. */
static tessel_graph *offloading(int ndev, int64_t limit)
{
	tessel_graph *g = NULL;
	OK(tessel_graph_new(&g, ndev));
	for (int i = 0; i < 2 * ndev; i++) {
		char name[16];
		int gid = -1, fwd = i < ndev, dev = fwd ? i : 2 * ndev - 1 - i;
		snprintf(name, sizeof name, "%c%d", fwd ? 'f' : 'b', dev);
		OK(tessel_graph_add_block(&gid, g, name,
					  fwd ? TESSEL_KIND_FORWARD : TESSEL_KIND_BACKWARD,
					  fwd ? 2 : 4, fwd ? 4 : -4));
		OK(tessel_graph_place(g, gid, &dev, 1));
		if (i > 0)
			OK(tessel_graph_add_dep(g, i - 1, i));
	}
	for (int d = 0; d < ndev; d++) {
		OK(tessel_graph_set_offload(g, d, 2 * ndev - 1 - d, 4, 2));
		OK(tessel_graph_set_memory_limit(g, d, limit));
	}
	return g;
}

static void test_extend_fewer_tiles(void **state)
{
	(void)state;
	/* 8 blocks on 4 devices: as without alternatives, but each tier
	 * N' = ceil(N / q), q the tiles of the least N' (96; 2^21 entries'
	 * worth, 262,144) that fit in N, and no tier of half of N */
	tessel_graph *g = offloading(4, 16);
	int64_t fewer[TSL_EXTEND_TIERS];
	assert_int_equal(tsl_extend_fewer(fewer, g, 262144), 0);
	assert_int_equal(tsl_extend_fewer(fewer, g, 262145), 1);
	assert_int_equal(fewer[0], 97); /* ceil(262,145 / 2,730) */
	assert_int_equal(tsl_extend_fewer(fewer, g, 1000000), 2);
	assert_int_equal(fewer[0], 97); /* ceil(10^6 / 10,416) */
	/* 3 tiles, the last lacking 2 */
	assert_int_equal(fewer[1], 333334);
	assert_int_equal(tsl_extend_fewer(fewer, g, 2000), 0);
	tessel_graph_free(g);
	/* few tiles: equal but for fewer micro-batches than the tiles */
	g = offloading(64, 16); /* 128 blocks: 576, 16,384 */
	assert_int_equal(tsl_extend_fewer(fewer, g, 20000), 1);
	assert_int_equal(fewer[0], 589); /* 34 tiles: the last lacks 26 */
	assert_int_equal(tsl_extend_fewer(fewer, g, 40000), 2);
	assert_int_equal(fewer[1], 20000); /* 2 tiles */
	tessel_graph_free(g);
	/* fewer than twice the least (8,256): all searched up to 3 x 2^22
	 * entries, above that half of them, as 2 tiles */
	g = offloading(1024, 16); /* 2,048 blocks */
	assert_int_equal(tsl_extend_fewer(fewer, g, 6144), 0);
	assert_int_equal(tsl_extend_fewer(fewer, g, 6145), 1);
	assert_int_equal(fewer[0], 3073);
	tessel_graph_free(g);
}

static void test_tile_schedule(void **state)
{
	(void)state;
	/* every offload taken (memory for one forward a device) */
	tessel_graph *g = offloading(3, 4);
	tessel_options *o = th_options(6);
	OK(tessel_options_set(o, TESSEL_OPT_ALTERNATIVES, 2));
	tessel_schedule *s = NULL;
	OK(tessel_search(&s, g, o));
	tessel_options_free(o);
	assert_int_equal(s->nchoices, 3 * 6);
	assert_non_null(s->copies);
	tessel_schedule *u = NULL;
	OK(tsl_tile_schedule(&u, s, 20, NULL)); /* tiles of 6, 6, 6 and 2 */
	assert_non_null(u);
	OK(tessel_schedule_validate(u));
	assert_int_equal(u->nmicros, 20);
	assert_int_equal(u->rep_k, 6);
	int64_t T = u->period, n = g->nblocks;
	assert_true(T > 0 && T <= tsl_schedule_makespan(s));
	for (int64_t j = 0; j < 20; j++)
		for (int b = 0; b < g->nblocks; b++) {
			const struct tessel_entry *e = tsl_entry_at(u, b, j),
						  *f = tsl_entry_at(s, b, j % 6);
			assert_int_equal(e->start, f->start + j / 6 * T);
			assert_int_equal(e->choice, f->choice);
			for (int r = 0; r < 2; r++) {
				int64_t c0 = s->copies[2 * ((j % 6) * n + b) + r];
				int64_t c1 = u->copies[2 * (j * n + b) + r];
				assert_int_equal(c1, c0 < 0 ? -1 : c0 + j / 6 * T);
			}
		}
	assert_true(tsl_schedule_makespan(u) <= 3 * T + tsl_schedule_makespan(s));
	int64_t told = 0; /* (known before the tiles are made) */
	OK(tsl_tile_makespan(&told, s, 20));
	assert_int_equal(told, tsl_schedule_makespan(u));
	OK(tsl_tile_makespan(&told, s, 18)); /* 3 whole tiles */
	assert_int_equal(told, 2 * T + tsl_schedule_makespan(s));
	int64_t part = 0; /* the choices of the last tile's 2 */
	for (int64_t m = 0; m < 2; m++)
		for (int b = 0; b < g->nblocks; b++)
			part += tsl_entry_at(s, b, m)->choice != TESSEL_CHOICE_KEEP;
	assert_int_equal(u->nchoices, 3 * s->nchoices + part);
	tessel_schedule_free(u);
	/* not more micro-batches: an error, nothing made */
	u = (tessel_schedule *)1;
	th_expect_error(tsl_tile_schedule(&u, s, 6, NULL), TESSEL_EINVAL,
			"not more than");
	assert_null(u);
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

/* gpipe_at_six's schedule of 6, or the search of any other count. */
static int gpipe_six_only(tessel_schedule **out, const tessel_graph *g,
			  const tessel_options *options)
{
	int64_t n = 0;
	OK(tessel_options_get(&n, options, TESSEL_OPT_MICRO_BATCHES));
	if (n == 6)
		return gpipe_at_six(out, g, options); /* (counted there) */
	searches++;
	return tessel_search(out, g, options);
}

/* gpipe_at_six's schedule of 6, or for any other count one micro-batch
 * every 4 steps (a step idle between them). */
static int gpipe_six_gaps(tessel_schedule **out, const tessel_graph *g,
			  const tessel_options *options)
{
	int64_t n = 0;
	OK(tessel_options_get(&n, options, TESSEL_OPT_MICRO_BATCHES));
	if (n == 6)
		return gpipe_at_six(out, g, options);
	searches++;
	int64_t f[64], b[64];
	assert_true(n <= 64);
	for (int64_t m = 0; m < n; m++) {
		f[m] = 4 * m;
		b[m] = 4 * m + 1;
	}
	*out = placed(g, n, f, b);
	return TESSEL_OK;
}

static void test_search_fewer_tiles(void **state)
{
	(void)state;
	/* one_device with a recompute declared: its schedule of 6 (all
	 * forwards, then all backwards) has no run, and is laid out as 9
	 * tiles, one every 18 steps, the last of 2 micro-batches (their
	 * backwards end at step 10) */
	tessel_graph *g = one_device();
	OK(tessel_graph_set_recompute(g, 0, 1, 1, 1));
	tessel_options *o = th_options(50);
	static const int64_t six[] = {6};
	tessel_schedule *u = NULL;
	searches = 0;
	OK(tsl_search_fewer(&u, g, o, 50, six, 1, gpipe_six_only));
	assert_int_equal(searches, 1);
	OK(tessel_schedule_validate(u));
	assert_int_equal(u->nmicros, 50);
	assert_int_equal(u->rep_k, 6);
	assert_int_equal(u->period, 18);
	assert_int_equal(tsl_schedule_makespan(u), 8 * 18 + 10);
	assert_int_equal(tsl_entry_at(u, 1, 49)->start, 8 * 18 + 8);
	tessel_schedule_free(u);
	/* without declared alternatives: the whole search too (as without
	 * tiles), the shorter kept: the whole search's 150 steps */
	tessel_graph_free(g);
	g = one_device();
	searches = 0;
	OK(tsl_search_fewer(&u, g, o, 50, six, 1, gpipe_six_only));
	assert_int_equal(searches, 2);
	assert_int_equal(tsl_schedule_makespan(u), 150);
	tessel_schedule_free(u);
	/* ... and the tiles where the whole search ends later */
	searches = 0;
	OK(tsl_search_fewer(&u, g, o, 50, six, 1, gpipe_six_gaps));
	assert_int_equal(searches, 2);
	OK(tessel_schedule_validate(u));
	assert_int_equal(u->rep_k, 6);
	assert_int_equal(tsl_schedule_makespan(u), 8 * 18 + 10);
	tessel_schedule_free(u);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* The tier of 6 (gpipe_at_six's schedule, its work tier_work), or the
 * whole search: its work limit and cap recorded, one micro-batch every
 * 4 steps (longer than the tiles), work 1. */
static int64_t tier_work, whole_limit, whole_cap;
static int whole_searches;
static int six_then_record(tessel_schedule **out, const tessel_graph *g,
			   const tessel_options *options)
{
	int64_t n = 0;
	OK(tessel_options_get(&n, options, TESSEL_OPT_MICRO_BATCHES));
	if (n == 6) {
		OK(gpipe_at_six(out, g, options));
		(*out)->work = tier_work;
		return TESSEL_OK;
	}
	whole_searches++;
	OK(tessel_options_get(&whole_limit, options, TESSEL_OPT_WORK_LIMIT));
	whole_cap = options->work_cap;
	int64_t f[64], b[64];
	for (int64_t m = 0; m < n; m++) {
		f[m] = 4 * m;
		b[m] = 4 * m + 1;
	}
	*out = placed(g, n, f, b);
	(*out)->work = 1;
	return TESSEL_OK;
}

static void test_search_fewer_whole_budget(void **state)
{
	(void)state;
	/* the whole search beside the tiles gets what the tier left of the
	 * budget of a search of all 50, when that is at least what the
	 * tier spent */
	tessel_graph *g = one_device();
	tessel_options *o = th_options(50);
	static const int64_t six[] = {6};
	tessel_schedule *u = NULL;
	OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, 100));
	tier_work = 30;
	whole_searches = 0;
	OK(tsl_search_fewer(&u, g, o, 50, six, 1, six_then_record));
	assert_int_equal(whole_searches, 1);
	assert_int_equal(whole_limit, 70);
	assert_int_equal(u->work, 31);
	assert_int_equal(tsl_schedule_makespan(u), 8 * 18 + 10); /* the tiles */
	tessel_schedule_free(u);
	tier_work = 51; /* 49 left: not run */
	whole_searches = 0;
	OK(tsl_search_fewer(&u, g, o, 50, six, 1, six_then_record));
	assert_int_equal(whole_searches, 0);
	assert_int_equal(u->work, 51);
	OK(tessel_schedule_validate(u));
	tessel_schedule_free(u);
	/* the default budget: the whole search keeps it, capped */
	OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, TESSEL_WORK_AUTO));
	tsl_opts whole;
	tsl_search_opts(&whole, g, o);
	int64_t budget = whole.work_ticks / TSL_TICKS_PER_UNIT;
	assert_true(budget > 60);
	tier_work = 30;
	whole_searches = 0;
	OK(tsl_search_fewer(&u, g, o, 50, six, 1, six_then_record));
	assert_int_equal(whole_searches, 1);
	assert_int_equal(whole_limit, TESSEL_WORK_AUTO);
	assert_int_equal(whole_cap, budget - 30);
	tessel_schedule_free(u);
	/* the cap bounds the default budget as a search sizes it */
	tessel_options *capped = NULL;
	OK(tsl_options_derive(&capped, o));
	capped->work_cap = budget - 30;
	tsl_search_opts(&whole, g, capped);
	assert_int_equal(whole.work_ticks, (budget - 30) * TSL_TICKS_PER_UNIT);
	assert_true(whole.work_capped);
	tessel_options_free(capped);
	tier_work = budget / 2 + 1;
	whole_searches = 0;
	OK(tsl_search_fewer(&u, g, o, 50, six, 1, six_then_record));
	assert_int_equal(whole_searches, 0);
	tessel_schedule_free(u);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* One micro-batch at a time (F at 3 m, B at 3 m + 1): at LB, counted. */
static int serial_counted(tessel_schedule **out, const tessel_graph *g,
			  const tessel_options *options)
{
	int64_t n = 0;
	OK(tessel_options_get(&n, options, TESSEL_OPT_MICRO_BATCHES));
	searches++;
	int64_t f[64], b[64];
	assert_true(n <= 64);
	for (int64_t m = 0; m < n; m++) {
		f[m] = 3 * m;
		b[m] = 3 * m + 1;
	}
	*out = placed(g, n, f, b);
	return TESSEL_OK;
}

static void test_search_fewer_at_bound(void **state)
{
	(void)state;
	/* the first tier's schedule repeated ends at LB(50) = 150: the
	 * second tier is not searched */
	tessel_graph *g = one_device();
	tessel_options *o = th_options(50);
	static const int64_t tiers[] = {14, 26};
	tessel_schedule *u = NULL;
	searches = 0;
	OK(tsl_search_fewer(&u, g, o, 50, tiers, 2, serial_counted));
	assert_int_equal(searches, 1);
	assert_int_equal(tsl_schedule_makespan(u), 150);
	assert_int_equal(u->lower_bound, 150);
	assert_true(u->makespan_optimal);
	OK(tessel_schedule_validate(u));
	tessel_schedule_free(u);
	/* above it, both are */
	searches = 0;
	OK(tsl_search_fewer(&u, g, o, 50, tiers, 2, gpipe_six_gaps));
	assert_int_equal(searches, 2);
	tessel_schedule_free(u);
	tessel_options_free(o);
	tessel_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extend_fewer),
		cmocka_unit_test(test_extend_searched),
		cmocka_unit_test(test_extend_no_run),
		cmocka_unit_test(test_extend_collides),
		cmocka_unit_test(test_search_fewer),
		cmocka_unit_test(test_search_fewer_whole),
		cmocka_unit_test(test_search_fewer_stopped),
		cmocka_unit_test(test_search_fewer_timeout),
		cmocka_unit_test(test_extend_fewer_tiles),
		cmocka_unit_test(test_tile_schedule),
		cmocka_unit_test(test_search_fewer_tiles),
		cmocka_unit_test(test_search_fewer_whole_budget),
		cmocka_unit_test(test_search_fewer_at_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
