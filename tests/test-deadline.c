/* The time limit is a promise: every phase of a search stops at its
 * deadline. Each case makes one phase slow on purpose and checks that it
 * ends at the deadline: white box (links libtessel_internal and calls the
 * phase with a deadline already past, where without one it would take
 * seconds: the work it charged before it stopped is checked, the same
 * count on any machine), and through tessel_search with --time-limit
 * style limits, where the search must end with a valid schedule or
 * TESSEL_ETIMEOUT and honour the limit at all (within a few seconds: this
 * runs beside other processes; the overshoot itself is measured by
 * scripts/bench-deadline.sh, which prints it). The completion's own
 * deadlines are tested in test-complete.c. Under valgrind the large cases
 * are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "alternatives.h"
#include "bounds.h"
#define BAD_GRAPH ((tessel_graph *)(uintptr_t)1)
#include "complete_list.h"
#include "graph.h"
#include "helpers.h"
#include "repetend.h"
#include "repetend_dfs.h"
#include "repetend_heuristic.h"
#include "repetend_z3.h"
#include "schedule.h"
#include "search_deps.h"
#include "stage.h"
#include "tessel.h"
#include "util.h"
#include "validate.h"

/* How far past a time limit a search may end here: the limit honoured at
 * all, on a machine busy with other work (sanitizer builds run several
 * times slower). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TH_LIMIT_SLACK 30.0
#else
#define TH_LIMIT_SLACK 5.0
#endif


/* Seconds since `t0` (tsl_now_us). */
static double since(int64_t t0)
{
	return (double)(tsl_now_us() - t0) / 1e6;
}

/* A deadline that passed a second ago, its hard end too; the work done
 * under it counted on *meter. */
static tsl_deadline past(tsl_meter *meter)
{
	int64_t now = tsl_now_us();
	tsl_deadline d = {now - 2000000, now - 1000000, now - 1000000, NULL, meter, 0, 0, 0, 0};
	return d;
}

/* The generators' pseudo-random numbers (a fixed LCG). */
static uint64_t next_rand(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

/* Forward block i, named b<i>, of the given span and no memory. */
static void add_forward(tessel_graph *g, int i, int span)
{
	char name[32];
	snprintf(name, sizeof name, "b%d", i);
	TH_OK(tessel_graph_add_block(NULL, g, name, TESSEL_KIND_FORWARD, span, 0));
}

/* A random DAG of n blocks on `nd` devices: spans 1 .. 3 (times `scale`),
 * up to three dependencies on the 50 blocks before, one block in twenty
 * on four devices. Deterministic. */
static tessel_graph *random_dag(int n, int nd, int scale, uint64_t seed)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, nd));
	uint64_t x = seed;
#define NEXT() next_rand(&x)
	for (int i = 0; i < n; i++) {
		add_forward(g, i, (int)(1 + NEXT() % 3) * scale);
		int devs[4], k = NEXT() % 20 == 0 && nd >= 4 ? 4 : 1;
		devs[0] = (int)(NEXT() % (uint64_t)nd);
		for (int j = 1; j < k; j++)
			devs[j] = (devs[0] + j) % nd;
		TH_OK(tessel_graph_place(g, i, devs, (size_t)k));
		int ndeps = (int)(NEXT() % 4);
		for (int j = 0; j < ndeps && i > 0; j++) {
			int lo = i > 50 ? i - 50 : 0;
			int a = lo + (int)(NEXT() % (uint64_t)(i - lo));
			int rc = tessel_graph_add_dep(g, a, i);
			assert_true(rc == TESSEL_OK || rc == TESSEL_EEXISTS);
		}
	}
#undef NEXT
	return g;
}

/* Layers of 8 blocks, each block after 1 to 3 blocks of the layer before,
 * on one device (one block in twenty on 2 to 4 devices at once), spans
 * 1 .. 3 (the layered family of scripts/bench-large.py). Deterministic. */
static tessel_graph *layered_dag(int n, int nd, uint64_t seed)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, nd));
	uint64_t x = seed;
#define NEXT() next_rand(&x)
	for (int i = 0; i < n; i++) {
		add_forward(g, i, (int)(1 + NEXT() % 3));
		int devs[4], k = NEXT() % 20 == 0 ? 2 + (int)(NEXT() % 3) : 1;
		devs[0] = (int)(NEXT() % (uint64_t)nd);
		for (int j = 1; j < k; j++)
			devs[j] = (devs[0] + j * 5) % nd;
		TH_OK(tessel_graph_place(g, i, devs, (size_t)k));
		int ndeps = 1 + (int)(NEXT() % 3);
		for (int j = 0; j < ndeps && i >= 8; j++) {
			int a = (i / 8 - 1) * 8 + (int)(NEXT() % 8);
			int rc = tessel_graph_add_dep(g, a, i);
			assert_true(rc == TESSEL_OK || rc == TESSEL_EEXISTS);
		}
	}
#undef NEXT
	return g;
}

/* xshape with spans as profiled (forward 137, backward 281 steps): the
 * solver needs seconds for its periods. */
static tessel_graph *uneven_preset(const char *name, int nd, int64_t memory)
{
	tessel_graph *p = NULL, *g = NULL;
	TH_OK(tessel_preset(&p, name, nd, 0, memory));
	int64_t nb = 0;
	TH_OK(tessel_graph_get(&nb, p, TESSEL_GRAPH_NBLOCKS));
	TH_OK(tessel_graph_new(&g, nd));
	for (int b = 0; b < nb; b++) {
		const char *bn = NULL;
		int devs[TESSEL_MAX_DEVICES];
		int64_t kind = th_block(p, b, TESSEL_BLOCK_KIND);
		int64_t k = th_block(p, b, TESSEL_BLOCK_NDEVICES);
		TH_OK(tessel_graph_block_name(&bn, p, b));
		for (int i = 0; i < k; i++)
			TH_OK(tessel_graph_block_device(&devs[i], p, b, (size_t)i));
		int span = (int)th_block(p, b, TESSEL_BLOCK_SPAN) *
			   (kind == TESSEL_KIND_FORWARD ? 137 : 281);
		TH_OK(tessel_graph_add_block(NULL, g, bn, (tessel_kind)kind, span,
					     (int)th_block(p, b, TESSEL_BLOCK_MEMORY)));
		TH_OK(tessel_graph_place(g, b, devs, (size_t)k));
	}
	for (int b = 0; b < nb; b++)
		for (int i = 0; i < th_block(p, b, TESSEL_BLOCK_NDEPS); i++) {
			int a = 0;
			TH_OK(tessel_graph_block_dep(&a, p, b, (size_t)i));
			TH_OK(tessel_graph_add_dep(g, a, b));
		}
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, memory));
	tessel_graph_free(p);
	return g;
}

static tsl_opts plain_opts(void)
{
	tsl_opts o;
	memset(&o, 0, sizeof o);
	o.nmicros = 16;
	o.minimize_depth = 1;
	return o;
}

/* ---- white box: each phase with a deadline already past ---- */

/* The heuristic on a graph it needs seconds for. */
static void test_heuristic_stops(void **state)
{
	(void)state;
	if (th_under_checker())
		skip();
	tessel_graph *g = random_dag(30000, 256, 1, 1);
	tsl_bounds bnd;
	TH_OK(tsl_bounds_compute(&bnd, g));
	tsl_repetend rep = {0};
	rep.T = calloc((size_t)bnd.nblocks, sizeof *rep.T);
	tsl_meter m = {0};
	tsl_deadline dl = past(&m);
	int64_t t0 = tsl_now_us();
	int rc = tsl_repetend_heuristic(&rep, NULL, &(tsl_stage){g, &bnd, NULL, &dl}, 0, 0);
	double secs = since(t0);
	print_message("heuristic past its deadline: %.3f s, %lld ticks, rc %d\n",
		      secs, (long long)m.used, rc);
	assert_int_equal(rc, TESSEL_ETIMEOUT);
	/* at most its first look at the deadline: 1024 blocks placed */
	assert_true(m.used <= 1024);
	free(rep.T);
	tsl_bounds_release(&bnd);
	tessel_graph_free(g);
}

/* List scheduling of blocks on many devices without dependencies: every
 * such instance is waiting from the start, an entry per device of each
 * (16 x 400,000 here): the setup itself looks at the deadline. */
static void test_list_setup_stops(void **state)
{
	(void)state;
	if (th_under_checker())
		skip();
	int nd = 16, devs[16];
	for (int d = 0; d < nd; d++)
		devs[d] = d;
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, nd));
	for (int i = 0; i < 10; i++) {
		char name[16];
		snprintf(name, sizeof name, "b%d", i);
		TH_OK(tessel_graph_add_block(NULL, g, name, TESSEL_KIND_FORWARD, 1, 0));
		TH_OK(tessel_graph_place(g, i, devs, (size_t)nd));
	}
	tsl_bounds bnd;
	TH_OK(tsl_bounds_compute(&bnd, g));
	tessel_schedule *s = NULL;
	TH_OK(tsl_schedule_alloc(&s, g, 40000));
	tsl_meter m = {0};
	tsl_deadline dl = past(&m);
	int64_t t0 = tsl_now_us();
	int rc = tsl_list_schedule(s, &(tsl_stage){g, &bnd, NULL, &dl}, &tsl_list_rules[0]);
	double secs = since(t0);
	print_message("list scheduling past its deadline: %.3f s, %lld ticks, rc %d\n",
		      secs, (long long)m.used, rc);
	assert_int_equal(rc, TESSEL_ETIMEOUT);
	/* at most its first look at the deadline: 65,536 instances of two
	 * entries a device (the whole setup: 400,000) */
	assert_true(m.used <= 65536 * 2 * nd / TSL_LIST_STEPS_PER_TICK);
	tessel_schedule_free(s);
	tsl_bounds_release(&bnd);
	tessel_graph_free(g);
}

/* The memory-aware search with an endless work budget. */
static void test_memory_aware_search_stops(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	/* no repetend at the bound under this limit: the search would use
	 * its whole budget */
	TH_OK(tessel_preset(&g, "xshape", 64, 0, 40));
	tsl_bounds bnd;
	TH_OK(tsl_bounds_compute(&bnd, g));
	tsl_repetend rep = {0};
	rep.T = calloc((size_t)bnd.nblocks, sizeof *rep.T);
	tsl_meter m = {0};
	tsl_deadline dl = past(&m);
	int found = 1;
	int64_t t0 = tsl_now_us();
	TH_OK(tsl_repetend_dfs(&rep, &found, &(tsl_stage){g, &bnd, NULL, &dl}, NULL,
			       bnd.resource_bound, INT64_MAX / 4));
	double secs = since(t0);
	print_message("memory-aware search past its deadline: %.3f s, %lld ticks\n",
		      secs, (long long)m.used);
	assert_int_equal(found, 0);
	/* at most its first look at the deadline: 1024 steps, each of a
	 * few hundred units on 64 devices */
	assert_true(m.used <= 1024 * 512 / TSL_DFS_UNITS_PER_TICK);
	free(rep.T);
	tsl_bounds_release(&bnd);
	tessel_graph_free(g);
}

static int count_candidates(const tsl_repetend *rep, void *payload)
{
	(void)rep;
	(*(int *)payload)++;
	return TESSEL_OK;
}

/* The solver on periods it needs seconds for. */
static void test_solver_stops(void **state)
{
	(void)state;
	if (th_under_checker())
		skip();
	tessel_graph *g = uneven_preset("mshape", 8, 8);
	tsl_bounds bnd;
	TH_OK(tsl_bounds_compute(&bnd, g));
	tsl_repetend rep = {0};
	rep.T = calloc((size_t)bnd.nblocks, sizeof *rep.T);
	tsl_opts o = plain_opts();
	int64_t t0 = tsl_now_us();
	tsl_deadline dl = {t0, t0 + 200000, t0 + 200000, NULL, NULL, 0, 0, 0, 0};
	int n = 0;
	int rc = tsl_repetend_z3(&rep, &(tsl_stage){g, &bnd, &o, &dl}, NULL, NULL,
				 count_candidates, &n);
	double secs = since(t0);
	print_message("solver with 0.2 s: %.3f s, rc %d, %d repetends\n", secs, rc, n);
	assert_true(rc == TESSEL_OK || rc == TESSEL_ETIMEOUT);
	assert_true(secs < 0.2 + TH_LIMIT_SLACK);
	/* and with a work budget instead: it ends at it, on any machine */
	tsl_meter m = {0};
	tsl_deadline wl = {tsl_now_us(), 0, 0, NULL, &m, 200 * TSL_TICKS_PER_UNIT, 0, 0, 0};
	n = 0;
	rc = tsl_repetend_z3(&rep, &(tsl_stage){g, &bnd, &o, &wl}, NULL, NULL, count_candidates, &n);
	print_message("solver with 200 work units: %lld ticks, rc %d, %d repetends\n",
		      (long long)m.used, rc, n);
	assert_true(rc == TESSEL_OK || rc == TESSEL_ETIMEOUT);
	/* a check ends within the work left; a model taken in is charged
	 * when it is, whole */
	assert_true(m.used <= 400 * TSL_TICKS_PER_UNIT);
	free(rep.T);
	tsl_bounds_release(&bnd);
	tessel_graph_free(g);
}

/* The validator on a schedule of a million entries. */
static void test_check_stops(void **state)
{
	(void)state;
	if (th_under_checker())
		skip();
	tessel_graph *g = NULL;
	tessel_schedule *s = NULL;
	TH_OK(tessel_preset(&g, "vshape", 8, 0, TESSEL_UNLIMITED));
	int64_t N = 100000;
	TH_OK(tessel_schedule_new(&s, g, N));
	/* one micro-batch after the other: valid */
	int64_t span = 0;
	TH_OK(tessel_graph_get(&span, g, TESSEL_GRAPH_CRITICAL_PATH));
	for (int64_t m = 0; m < N; m++) {
		int64_t t = m * span;
		for (int b = 0; b < 16; b++) {
			TH_OK(tessel_schedule_set_step(s, b, m, t));
			t += th_block(g, b, TESSEL_BLOCK_SPAN);
		}
	}
	int64_t t0 = tsl_now_us();
	TH_OK(tsl_schedule_check(s, NULL));
	double full = since(t0);
	tsl_deadline dl = past(NULL);
	t0 = tsl_now_us();
	int rc = tsl_schedule_check(s, &dl);
	double secs = since(t0);
	print_message("check: %.3f s, past its deadline %.3f s\n", full, secs);
	assert_int_equal(rc, TESSEL_ETIMEOUT);
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

/* ---- through tessel_search: the limit honoured ---- */

/* The search with `limit_ms`: returns its code; the wall time into *secs. */
static int timed_search(const tessel_graph *g, int64_t nmicros, int64_t limit_ms,
			int fast, double *secs)
{
	tessel_options *o = NULL;
	tessel_schedule *s = NULL;
	TH_OK(tessel_options_new(&o));
	TH_OK(tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, nmicros));
	TH_OK(tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, limit_ms));
	TH_OK(tessel_options_set(o, TESSEL_OPT_FAST, fast));
	int64_t t0 = tsl_now_us();
	int rc = tessel_search(&s, g, o);
	*secs = since(t0);
	if (rc == TESSEL_OK)
		TH_OK(tessel_schedule_validate(s));
	else
		assert_null(s);
	tessel_schedule_free(s);
	tessel_options_free(o);
	return rc;
}

static void expect_within(const char *what, int rc, double secs, double limit)
{
	print_message("%s: %.3f s (limit %.3f s), %s\n", what, secs, limit,
		      rc == TESSEL_OK ? "a schedule" : tessel_strerror(rc));
	assert_true(rc == TESSEL_OK || rc == TESSEL_ETIMEOUT);
	assert_true(secs <= limit + TH_LIMIT_SLACK);
}

static void test_search_limits(void **state)
{
	(void)state;
	if (th_under_checker())
		skip();
	double secs;
	int rc;
	/* the heuristic: seconds for this graph */
	tessel_graph *g = random_dag(30000, 256, 1, 1);
	rc = timed_search(g, 16, 1000, 0, &secs);
	expect_within("heuristic, 30,000 blocks", rc, secs, 1.0);
	rc = timed_search(g, 16, 1000, 1, &secs);
	expect_within("heuristic, 30,000 blocks, fast", rc, secs, 1.0);
	tessel_graph_free(g);
	/* the solver's model: Z3 takes it in at the first step, which
	 * nothing interrupts (without the rule that skips it, this search
	 * took 27.5 s): the search must not start it in a 3 s limit, and
	 * still return a schedule */
	g = layered_dag(1000, 16, 7);
	rc = timed_search(g, 16, 3000, 0, &secs);
	expect_within("solver model, 1,000 blocks on 16 devices", rc, secs, 3.0);
	assert_int_equal(rc, TESSEL_OK);
	tessel_graph_free(g);
	/* the solver: seconds for its periods */
	g = uneven_preset("mshape", 8, 8);
	rc = timed_search(g, 32, 1000, 0, &secs);
	expect_within("solver, uneven mshape", rc, secs, 1.0);
	assert_int_equal(rc, TESSEL_OK); /* the heuristic's at least */
	tessel_graph_free(g);
	/* the completion and the final check: 1.6 million entries */
	TH_OK(tessel_preset(&g, "vshape", 8, 0, 8));
	rc = timed_search(g, 100000, 500, 0, &secs);
	expect_within("completion, 100,000 micro-batches", rc, secs, 0.5);
	rc = timed_search(g, 300000, 200, 1, &secs);
	expect_within("completion, 300,000 micro-batches", rc, secs, 0.2);
	tessel_graph_free(g);
}

/* tessel_min_memory: the memory-aware probes and the solver. */
static void test_min_memory_limit(void **state)
{
	(void)state;
	if (th_under_checker())
		skip();
	tessel_graph *g = uneven_preset("xshape", 16, TESSEL_UNLIMITED);
	tessel_options *o = NULL;
	TH_OK(tessel_options_new(&o));
	TH_OK(tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, 1000));
	int64_t limit = 0;
	int proven = 0;
	int64_t t0 = tsl_now_us();
	int rc = tessel_min_memory(&limit, &proven, g, 0, o);
	double secs = since(t0);
	print_message("min_memory: %.3f s, rc %d, limit %lld\n", secs, rc, (long long)limit);
	assert_true(rc == TESSEL_OK || rc == TESSEL_ETIMEOUT);
	assert_true(secs <= 1.0 + TH_LIMIT_SLACK);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* A block visit costs more when it walks many dependencies: up to
 * TSL_PLAIN_DEPS a block on average a graph's steps are charged as they
 * are (every pipeline: one search, one schedule and one work count as
 * before), beyond it tsl_charge weighs them, and the solver's counts
 * (tsl_charge_ticks) stay as they are. */
static void test_visit_weight(void **state)
{
	(void)state;
	int n = 200;
	tessel_graph *chain = NULL, *dense = NULL;
	TH_OK(tessel_graph_new(&chain, 4));
	TH_OK(tessel_graph_new(&dense, 4));
	for (int i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "b%d", i);
		TH_OK(tessel_graph_add_block(NULL, chain, name, TESSEL_KIND_FORWARD, 1, 0));
		TH_OK(tessel_graph_add_block(NULL, dense, name, TESSEL_KIND_FORWARD, 1, 0));
		int dev = i % 4;
		TH_OK(tessel_graph_place(chain, i, &dev, 1));
		TH_OK(tessel_graph_place(dense, i, &dev, 1));
		if (i > 0)
			TH_OK(tessel_graph_add_dep(chain, i - 1, i));
		/* every earlier block: 99.5 dependencies a block */
		for (int j = 0; j < i; j++)
			TH_OK(tessel_graph_add_dep(dense, j, i));
	}
	assert_int_equal(tsl_graph_visit_weight(chain), 16);
	int w = tsl_graph_visit_weight(dense);
	/* 16 (10 n + 19,900) / (14 n) */
	assert_int_equal(w, 16 * (10 * n + n * (n - 1) / 2) / (14 * n));
	assert_true(w > 16 * 7);
	tsl_meter m = {0};
	tsl_deadline d = {tsl_now_us(), 0, 0, NULL, &m, 0, 0, w, 0};
	tsl_charge(&d, 160);
	assert_int_equal(m.used, 160 * w / 16);
	tsl_charge_ticks(&d, 100);
	assert_int_equal(m.used, 160 * w / 16 + 100);
	d.visit_weight = 0; /* a deadline made without one: as they are */
	tsl_charge(&d, 10);
	assert_int_equal(m.used, 160 * w / 16 + 110);
	tessel_graph_free(chain);
	tessel_graph_free(dense);
}

/* A chain of 12 blocks on 3 devices with every implied dependency too
 * (5.5 a block, above TSL_PLAIN_DEPS), the graph's latency 2. */
static tessel_graph *implied_chain(void)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 3));
	TH_OK(tessel_graph_set_latency(g, 2));
	for (int i = 0; i < 12; i++) {
		char name[16];
		snprintf(name, sizeof name, "b%d", i);
		TH_OK(tessel_graph_add_block(NULL, g, name, i < 6 ? TESSEL_KIND_FORWARD
							: TESSEL_KIND_BACKWARD,
					     1 + i % 4, i < 6 ? 1 : -1));
		int dev = i % 3;
		TH_OK(tessel_graph_place(g, i, &dev, 1));
		for (int j = i - 1; j >= 0; j--) /* the chain's own first */
			TH_OK(tessel_graph_add_dep(g, j, i));
	}
	return g;
}

/* Under the default budget the plans of the search over alternatives
 * spend at most a total (ALT_AUTO_TOTAL, reached at millions of
 * instances), each at least a least: with both lowered to 1 unit every
 * plan gets its first schedule and little more, so the search spends less
 * than with its whole default budgets, and still gives a valid schedule,
 * the same one each time (8 devices at 32 micro-batches under tight
 * memory: 412 units against 5,021). */
static void test_alt_total(void **state)
{
	(void)state;
	if (th_under_checker())
		skip(); /* (the default budget's searches: seconds each) */
	tessel_graph *g = NULL;
	const int ndev = 8;
	TH_OK(tessel_graph_new(&g, ndev));
	for (int i = 0; i < 2 * ndev; i++) {
		char name[16];
		int gid = -1, fwd = i < ndev, dev = fwd ? i : 2 * ndev - 1 - i;
		snprintf(name, sizeof name, "%c%d", fwd ? 'f' : 'b', dev);
		TH_OK(tessel_graph_add_block(&gid, g, name,
					     fwd ? TESSEL_KIND_FORWARD : TESSEL_KIND_BACKWARD,
					     fwd ? 2 : 4, fwd ? 4 : -4));
		TH_OK(tessel_graph_place(g, gid, &dev, 1));
		if (i > 0)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	for (int s = 0; s < ndev; s++) {
		TH_OK(tessel_graph_set_recompute(g, s, 2 * ndev - 1 - s, 3, 2));
		TH_OK(tessel_graph_set_memory_limit(g, s, 20));
	}
	tessel_options *o = th_options(32);
	TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, TESSEL_WORK_AUTO));
	tessel_schedule *whole = NULL, *cut = NULL, *again = NULL;
	TH_OK(tessel_search(&whole, g, o));
	tsl_alt_auto_total_for_tests(1, 1);
	int rc = tessel_search(&cut, g, o);
	if (rc == TESSEL_OK)
		rc = tessel_search(&again, g, o);
	tsl_alt_auto_total_for_tests(0, 0);
	TH_OK(rc);
	TH_OK(tessel_schedule_validate(cut));
	int64_t w_whole = th_sched(whole, TESSEL_SCHED_WORK),
		w_cut = th_sched(cut, TESSEL_SCHED_WORK);
	assert_true(w_cut < w_whole);
	assert_int_equal(th_sched(again, TESSEL_SCHED_WORK), w_cut);
	assert_int_equal(th_sched(again, TESSEL_SCHED_MAKESPAN),
			 th_sched(cut, TESSEL_SCHED_MAKESPAN));
	tessel_schedule_free(whole);
	tessel_schedule_free(cut);
	tessel_schedule_free(again);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* Past the plans' ceiling, a plan whose graph's bound is not below the
 * best makespan so far is not begun (plans_beyond_best): with that point
 * lowered to 1 unit, 8 devices whose memory holds every activation (each
 * relief only lengthens a backward) spend less and give the all-keep
 * plan's schedule, the same each time; under tight memory the schedule
 * is still no longer than with every relief taken (the plan relieving
 * every block is searched whenever its bound is below the best). */
static void test_alt_beyond_best(void **state)
{
	(void)state;
	if (th_under_checker())
		skip(); /* (the default budget's searches: seconds each) */
	for (int tight = 0; tight < 2; tight++) {
		tessel_graph *g = NULL;
		const int ndev = 8;
		TH_OK(tessel_graph_new(&g, ndev));
		for (int i = 0; i < 2 * ndev; i++) {
			char name[16];
			int gid = -1, fwd = i < ndev, dev = fwd ? i : 2 * ndev - 1 - i;
			snprintf(name, sizeof name, "%c%d", fwd ? 'f' : 'b', dev);
			TH_OK(tessel_graph_add_block(&gid, g, name,
						     fwd ? TESSEL_KIND_FORWARD
							 : TESSEL_KIND_BACKWARD,
						     fwd ? 2 : 4, fwd ? 4 : -4));
			TH_OK(tessel_graph_place(g, gid, &dev, 1));
			if (i > 0)
				TH_OK(tessel_graph_add_dep(g, i - 1, i));
		}
		for (int s = 0; s < ndev; s++) {
			TH_OK(tessel_graph_set_recompute(g, s, 2 * ndev - 1 - s, 3, 2));
			TH_OK(tessel_graph_set_memory_limit(g, s, tight ? 12 : 64));
		}
		tessel_options *o = th_options(32);
		TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, TESSEL_WORK_AUTO));
		tessel_schedule *whole = NULL, *cut = NULL, *again = NULL,
				*keep = NULL, *always = NULL;
		TH_OK(tessel_search(&whole, g, o));
		tsl_alt_beyond_best_for_tests(1);
		int rc = tessel_search(&cut, g, o);
		if (rc == TESSEL_OK)
			rc = tessel_search(&again, g, o);
		tsl_alt_beyond_best_for_tests(0);
		TH_OK(rc);
		TH_OK(tessel_options_set(o, TESSEL_OPT_ALTERNATIVES, 0));
		TH_OK(tessel_search(&keep, g, o));
		TH_OK(tessel_options_set(o, TESSEL_OPT_ALTERNATIVES, 2));
		TH_OK(tessel_search(&always, g, o));
		TH_OK(tessel_schedule_validate(cut));
		int64_t w_whole = th_sched(whole, TESSEL_SCHED_WORK),
			w_cut = th_sched(cut, TESSEL_SCHED_WORK),
			m_cut = th_sched(cut, TESSEL_SCHED_MAKESPAN);
		print_message("%s: work %lld, then %lld; makespan %lld, then %lld "
			      "(all-keep %lld, every relief %lld)\n",
			      tight ? "tight" : "loose", (long long)w_whole,
			      (long long)w_cut,
			      (long long)th_sched(whole, TESSEL_SCHED_MAKESPAN),
			      (long long)m_cut,
			      (long long)th_sched(keep, TESSEL_SCHED_MAKESPAN),
			      (long long)th_sched(always, TESSEL_SCHED_MAKESPAN));
		assert_int_equal(th_sched(again, TESSEL_SCHED_WORK), w_cut);
		assert_int_equal(th_sched(again, TESSEL_SCHED_MAKESPAN), m_cut);
		assert_true(m_cut <= th_sched(always, TESSEL_SCHED_MAKESPAN));
		assert_true(m_cut <= th_sched(keep, TESSEL_SCHED_MAKESPAN));
		if (!tight) {
			assert_true(w_cut < w_whole);
			assert_int_equal(m_cut, th_sched(keep, TESSEL_SCHED_MAKESPAN));
		}
		tessel_schedule_free(whole);
		tessel_schedule_free(cut);
		tessel_schedule_free(again);
		tessel_schedule_free(keep);
		tessel_schedule_free(always);
		tessel_options_free(o);
		tessel_graph_free(g);
	}
}

/* The dependencies a path implies go before the search of a dense graph,
 * and only where every latency is the graph's; the schedule comes back on
 * the graph as given. */
static void test_deps_reduce(void **state)
{
	(void)state;
	tessel_graph *g = implied_chain(), *r = NULL;
	TH_OK(tsl_deps_reduce(&r, g));
	assert_non_null(r);
	for (int i = 0; i < 12; i++) {
		assert_int_equal(r->blocks[i].ndeps, i > 0);
		if (i > 0)
			assert_int_equal(r->blocks[i].deps[0], i - 1);
		assert_int_equal(r->blocks[i].nsucc, i < 11);
	}
	/* the search: on the reduced graph, its schedule on g's */
	tessel_options *o = th_options(8);
	tessel_schedule *s = NULL;
	TH_OK(tessel_search(&s, g, o));
	const tessel_graph *sg = NULL;
	TH_OK(tessel_schedule_graph(&sg, s));
	char *a = NULL, *b = NULL;
	TH_OK(tessel_graph_to_json(&a, g));
	TH_OK(tessel_graph_to_json(&b, sg));
	assert_string_equal(a, b);
	TH_OK(tessel_schedule_validate(s));
	tessel_free(a);
	tessel_free(b);
	tessel_schedule_free(s);
	tessel_options_free(o);
	tessel_graph_free(r);
	/* a dependency of its own latency: nothing dropped */
	TH_OK(tessel_graph_add_block(NULL, g, "x", TESSEL_KIND_FORWARD, 1, 0));
	int dev = 0;
	TH_OK(tessel_graph_place(g, 12, &dev, 1));
	TH_OK(tessel_graph_add_dep_latency(g, 11, 12, 0));
	r = BAD_GRAPH;
	TH_OK(tsl_deps_reduce(&r, g));
	assert_null(r);
	tessel_graph_free(g);
	/* random dense graphs, blocks on one to three devices, the graph's
	 * latency: every block's earliest start and longest path after it
	 * are the same with and without the dependencies dropped */
	uint64_t x = 11;
	int reduced = 0;
	for (int c = 0; c < 40; c++) {
		int nd = 2 + (int)(next_rand(&x) % 5), n = 10 + (int)(next_rand(&x) % 40);
		int p = 30 + (int)(next_rand(&x) % 66); /* percent */
		TH_OK(tessel_graph_new(&g, nd));
		TH_OK(tessel_graph_set_latency(g, (int)(next_rand(&x) % 4)));
		for (int i = 0; i < n; i++) {
			char name[16];
			snprintf(name, sizeof name, "b%d", i);
			TH_OK(tessel_graph_add_block(NULL, g, name, TESSEL_KIND_FORWARD,
						     1 + (int)(next_rand(&x) % 9), 0));
			int devs[3], k = 0, first = (int)(next_rand(&x) % (uint64_t)nd);
			int want = 1 + (int)(next_rand(&x) % 3);
			for (int d = first; k < want && d < nd; d++)
				devs[k++] = d;
			TH_OK(tessel_graph_place(g, i, devs, (size_t)k));
			for (int j = 0; j < i; j++)
				if ((int)(next_rand(&x) % 100) < p)
					TH_OK(tessel_graph_add_dep(g, j, i));
		}
		r = NULL;
		TH_OK(tsl_deps_reduce(&r, g));
		if (r) {
			reduced++;
			tsl_bounds bg, br;
			TH_OK(tsl_bounds_compute(&bg, g));
			TH_OK(tsl_bounds_compute(&br, r));
			assert_int_equal(bg.critical_path, br.critical_path);
			for (int i = 0; i < n; i++) {
				assert_int_equal(bg.head[i], br.head[i]);
				assert_int_equal(bg.tail[i], br.tail[i]);
				assert_true(r->blocks[i].ndeps <= g->blocks[i].ndeps);
			}
			tsl_bounds_release(&bg);
			tsl_bounds_release(&br);
			tessel_graph_free(r);
		}
		tessel_graph_free(g);
	}
	print_message("%d of 40 random graphs reduced\n", reduced);
	assert_true(reduced >= 20);
	/* a pipeline: 1 a block */
	g = uneven_preset("vshape", 4, TESSEL_UNLIMITED);
	r = BAD_GRAPH;
	TH_OK(tsl_deps_reduce(&r, g));
	assert_null(r);
	tessel_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deps_reduce),
		cmocka_unit_test(test_alt_total),
		cmocka_unit_test(test_alt_beyond_best),
		cmocka_unit_test(test_visit_weight),
		cmocka_unit_test(test_heuristic_stops),
		cmocka_unit_test(test_list_setup_stops),
		cmocka_unit_test(test_memory_aware_search_stops),
		cmocka_unit_test(test_solver_stops),
		cmocka_unit_test(test_check_stops),
		cmocka_unit_test(test_search_limits),
		cmocka_unit_test(test_min_memory_limit),
	};
	return cmocka_run_group_tests_name("deadline", tests, NULL, NULL);
}
