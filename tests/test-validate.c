/* The validator: hand-made schedules that pass, and each kind of broken
 * schedule caught with TESSEL_EVIOLATION and a precise message. */
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

/* V-shape pipeline on `ndev` devices: forwards f0 .. f{n-1} (span 1,
 * memory +1) on devices 0 .. n-1, then backwards b{n-1} .. b0 (span 3,
 * memory -1) on devices n-1 .. 0, one chain. Block gid g < n is the forward
 * of device g; gid g >= n the backward of device 2n-1-g. */
static int vs_device(int ndev, int g)
{
	return g < ndev ? g : 2 * ndev - 1 - g;
}

static int vs_span(int ndev, int g)
{
	return g < ndev ? 1 : 3;
}

static tessel_graph *vshape(int ndev, const int64_t *limits)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, ndev));
	for (int i = 0; i < 2 * ndev; i++) {
		char name[16];
		int gid = -1, fwd = i < ndev, dev = vs_device(ndev, i);
		snprintf(name, sizeof name, "%c%d", fwd ? 'f' : 'b', dev);
		TH_OK(tessel_graph_add_block(&gid, g, name,
					     fwd ? TESSEL_KIND_FORWARD
						 : TESSEL_KIND_BACKWARD,
					     vs_span(ndev, i), fwd ? 1 : -1));
		assert_int_equal(gid, i);
		TH_OK(tessel_graph_place(g, gid, &dev, 1));
		if (i > 0)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	for (int d = 0; d < ndev && limits; d++)
		TH_OK(tessel_graph_set_memory_limit(g, d, limits[d]));
	return g;
}

/* List-schedule a per-device order of (gid, mid): each op starts as soon as
 * its device is free and its dependency (gid - 1, same mid) has finished.
 * start[mid * 2n + gid] receives the steps. */
static void list_schedule(int64_t *start, int ndev, int nm, const int *ops,
			  const int *nops)
{
	int nb = 2 * ndev;
	int *pos = calloc((size_t)ndev, sizeof *pos);
	int64_t *free_at = calloc((size_t)ndev, sizeof *free_at);
	assert_non_null(pos);
	assert_non_null(free_at);
	for (int i = 0; i < nb * nm; i++)
		start[i] = -1;
	int left = nb * nm, progress = 1;
	while (left > 0 && progress) {
		progress = 0;
		for (int d = 0; d < ndev; d++) {
			while (pos[d] < nops[d]) {
				const int *op = &ops[(d * nb * nm + pos[d]) * 2];
				int gid = op[0], mid = op[1];
				int64_t t = free_at[d];
				if (gid > 0) {
					int64_t ds = start[mid * nb + gid - 1];
					if (ds < 0)
						break;
					int64_t fin = ds + vs_span(ndev, gid - 1);
					if (fin > t)
						t = fin;
				}
				start[mid * nb + gid] = t;
				free_at[d] = t + vs_span(ndev, gid);
				pos[d]++;
				left--;
				progress = 1;
			}
		}
	}
	assert_int_equal(left, 0);
	free(pos);
	free(free_at);
}

/* Start steps of 1F1B (gpipe = 0) or GPipe (gpipe = 1) on the V-shape. */
static int64_t *plan(int ndev, int nm, int gpipe)
{
	int nb = 2 * ndev;
	int *ops = malloc(sizeof *ops * 2 * (size_t)(ndev * nb * nm));
	int *nops = calloc((size_t)ndev, sizeof *nops);
	int64_t *start = malloc(sizeof *start * (size_t)(nb * nm));
	assert_non_null(ops);
	assert_non_null(nops);
	assert_non_null(start);
	for (int d = 0; d < ndev; d++) {
		int fg = d, bg = 2 * ndev - 1 - d;
		int *o = &ops[d * nb * nm * 2];
		int n = 0;
#define PUSH(g, m) do { o[2 * n] = (g); o[2 * n + 1] = (m); n++; } while (0)
		if (gpipe) {
			for (int m = 0; m < nm; m++)
				PUSH(fg, m);
			for (int m = 0; m < nm; m++)
				PUSH(bg, m);
		} else {
			int warm = ndev - d < nm ? ndev - d : nm;
			for (int m = 0; m < warm; m++)
				PUSH(fg, m);
			for (int m = 0; m < nm; m++) {
				PUSH(bg, m);
				if (warm + m < nm)
					PUSH(fg, warm + m);
			}
		}
#undef PUSH
		nops[d] = n;
	}
	list_schedule(start, ndev, nm, ops, nops);
	free(ops);
	free(nops);
	return start;
}

/* A schedule from start steps; (skip_gid, skip_mid) stays unplaced. */
static tessel_schedule *make(const tessel_graph *g, int ndev, int nm,
			     const int64_t *start, int skip_gid, int skip_mid)
{
	tessel_schedule *s = NULL;
	int nb = 2 * ndev;
	TH_OK(tessel_schedule_new(&s, g, nm));
	for (int m = 0; m < nm; m++)
		for (int b = 0; b < nb; b++)
			if (b != skip_gid || m != skip_mid)
				TH_OK(tessel_schedule_set_step(s, b, m,
							       start[m * nb + b]));
	return s;
}

static void expect_violation(const tessel_schedule *s, const char *const *fragments)
{
	int rc = tessel_schedule_validate(s);
	const char *msg = tessel_error_last();
	int ok = rc == TESSEL_EVIOLATION;
	for (const char *const *f = fragments; ok && *f; f++)
		ok = strstr(msg, *f) != NULL;
	if (!ok) {
		print_error("validate returned %d \"%s\"; wanted fragments:", rc,
			    msg);
		for (const char *const *f = fragments; *f; f++)
			print_error(" \"%s\"", *f);
		print_error("\n");
	}
	assert_int_equal(rc, TESSEL_EVIOLATION);
	assert_true(ok);
}

#define EXPECT_VIOLATION(s, ...)                                             \
	do {                                                                 \
		const char *frags_[] = {__VA_ARGS__, NULL};                  \
		expect_violation((s), frags_);                               \
	} while (0)

static const int64_t limit4[4] = {4, 4, 4, 4};

/* ------------------------------------------------------------------------ */

static void test_1f1b_valid(void **state)
{
	(void)state;
	tessel_graph *g = vshape(4, limit4);
	int64_t *st = plan(4, 16, 0);
	tessel_schedule *s = make(g, 4, 16, st, -1, -1);
	tessel_error_clear();
	TH_OK(tessel_schedule_validate(s));
	/* a success leaves no error behind */
	assert_int_equal(tessel_error_last_code(), TESSEL_OK);
	assert_string_equal(tessel_error_last(), "");
	/* every entry starts as early as its device and its dependency allow
	 * (list scheduling), so one step earlier breaks a rule: the validator
	 * must refuse each of these 128 near-copies */
	for (int m = 0; m < 16; m++)
		for (int b = 0; b < 8; b++) {
			int64_t t = st[m * 8 + b];
			if (t == 0)
				continue;
			tessel_schedule *e = make(g, 4, 16, st, -1, -1);
			TH_OK(tessel_schedule_set_step(e, b, m, t - 1));
			if (tessel_schedule_validate(e) != TESSEL_EVIOLATION)
				fail_msg("block %d, micro-batch %d one step "
					 "earlier (%lld) passed validation", b,
					 m, (long long)(t - 1));
			tessel_schedule_free(e);
		}
	/* plain 1F1B reaches the lower bound on the V-shape */
	assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 76);
	assert_int_equal(th_sched(s, TESSEL_SCHED_LOWER_BOUND), 76);
	for (int d = 0; d < 4; d++) {
		int64_t peak;
		TH_OK(tessel_schedule_peak_memory(&peak, s, d));
		assert_int_equal(peak, 4 - d);
	}
	tessel_schedule_free(s);
	free(st);

	/* fewer micro-batches than devices, and a single one */
	for (int nm = 1; nm <= 5; nm++) {
		st = plan(4, nm, 0);
		s = make(g, 4, nm, st, -1, -1);
		TH_OK(tessel_schedule_validate(s));
		tessel_schedule_free(s);
		free(st);
	}
	tessel_graph_free(g);
}

/* GPipe keeps every forward alive: fine without a limit. */
static void test_gpipe_unlimited_valid(void **state)
{
	(void)state;
	tessel_graph *g = vshape(4, NULL);
	int64_t *st = plan(4, 8, 1);
	tessel_schedule *s = make(g, 4, 8, st, -1, -1);
	TH_OK(tessel_schedule_validate(s));
	tessel_schedule_free(s);
	free(st);
	tessel_graph_free(g);
}

static void test_unplaced(void **state)
{
	(void)state;
	tessel_graph *g = vshape(4, limit4);
	int64_t *st = plan(4, 8, 0);
	/* b2 is gid 5 */
	tessel_schedule *s = make(g, 4, 8, st, 5, 6);
	EXPECT_VIOLATION(s, "'b2'", "gid 5", "micro-batch 6", "device 2",
			 "not placed");
	tessel_schedule_free(s);
	free(st);
	tessel_graph_free(g);
}

static void test_empty(void **state)
{
	(void)state;
	tessel_graph *g = vshape(4, limit4);
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 3));
	EXPECT_VIOLATION(s, "'f0'", "gid 0", "micro-batch 0", "not placed");
	tessel_schedule_free(s);
	tessel_graph_free(g);
}


/* The first block starts at step 0 (the schedule format's rule): the
 * same valid schedule every step later is not one. */
static void test_starts_at_zero(void **state)
{
	(void)state;
	tessel_graph *g = vshape(4, limit4);
	int64_t *st = plan(4, 8, 0);
	tessel_schedule *s = make(g, 4, 8, st, -1, -1);
	TH_OK(tessel_schedule_validate(s));
	tessel_schedule_free(s);
	for (int i = 0; i < 4 * 2 * 8; i++)
		st[i] += 3;
	s = make(g, 4, 8, st, -1, -1);
	EXPECT_VIOLATION(s, "starts at step 3, not 0", "'f0'", "micro-batch 0");
	tessel_schedule_free(s);
	free(st);
	tessel_graph_free(g);
}

/* Unplaced entries are reported before anything else. */
static void test_unplaced_first(void **state)
{
	(void)state;
	tessel_graph *g = vshape(4, limit4);
	int64_t *st = plan(4, 8, 0);
	tessel_schedule *s = make(g, 4, 8, st, 7, 7);
	TH_OK(tessel_schedule_set_step(s, 0, 1, 0)); /* overlap too */
	EXPECT_VIOLATION(s, "'b0'", "micro-batch 7", "not placed");
	tessel_schedule_free(s);
	free(st);
	tessel_graph_free(g);
}

/* Two forwards of device 0 start at the same step. */
static void test_overlap_same_start(void **state)
{
	(void)state;
	tessel_graph *g = vshape(4, limit4);
	int64_t *st = plan(4, 8, 0);
	tessel_schedule *s = make(g, 4, 8, st, -1, -1);
	TH_OK(tessel_schedule_set_step(s, 0, 1, 0));
	EXPECT_VIOLATION(s, "device 0", "two blocks", "'f0' (gid 0) micro-batch 0",
			 "'f0' (gid 0) micro-batch 1 starts at step 0");
	tessel_schedule_free(s);
	free(st);
	tessel_graph_free(g);
}

/* The entries are sorted by start one of two ways: counted when the starts
 * span at most twice the entries, merged otherwise. The violations found
 * first are the same: the schedules of test_overlap_same_start and
 * test_memory_gpipe with their last entry (b0 of the last micro-batch,
 * which nothing follows) moved far out, past twice the 64 entries. */
static void test_sort_paths_agree(void **state)
{
	(void)state;
	for (int far = 0; far < 2; far++) {
		tessel_graph *g = vshape(4, limit4);
		int64_t *st = plan(4, 8, 0);
		tessel_schedule *s = make(g, 4, 8, st, -1, -1);
		if (far)
			TH_OK(tessel_schedule_set_step(s, 7, 7, 100000));
		TH_OK(tessel_schedule_validate(s));
		TH_OK(tessel_schedule_set_step(s, 0, 1, 0));
		EXPECT_VIOLATION(s, "device 0", "two blocks",
				 "'f0' (gid 0) micro-batch 0",
				 "'f0' (gid 0) micro-batch 1 starts at step 0");
		/* two entries of one start, in the other order in memory
		 * (b0 of micro-batch 0 is entry 7, f0 of micro-batch 1
		 * entry 8) than by block: f0's comes first */
		int64_t x = st[7];
		TH_OK(tessel_schedule_set_step(s, 0, 1, x));
		char runs[96], starts[96];
		snprintf(runs, sizeof runs,
			 "'f0' (gid 0) micro-batch 1 runs steps %lld..%lld",
			 (long long)x, (long long)x);
		snprintf(starts, sizeof starts,
			 "'b0' (gid 7) micro-batch 0 starts at step %lld",
			 (long long)x);
		EXPECT_VIOLATION(s, "device 0", "two blocks", runs, starts);
		tessel_schedule_free(s);
		free(st);
		st = plan(4, 8, 1);
		s = make(g, 4, 8, st, -1, -1);
		if (far)
			TH_OK(tessel_schedule_set_step(s, 7, 7, 100000));
		EXPECT_VIOLATION(s, "memory", "device 0", "5 at step 4",
				 "limit 4", "'f0' (gid 0) micro-batch 4");
		tessel_schedule_free(s);
		free(st);
		tessel_graph_free(g);
	}
}

/* The schedule is valid except on device 3, where the last backward starts
 * while the last forward still runs (its dependency breaks too, but the
 * overlap is found first). */
static void test_overlap_one_device(void **state)
{
	(void)state;
	tessel_graph *g = vshape(4, limit4);
	int64_t *st = plan(4, 8, 0);
	tessel_schedule *s = make(g, 4, 8, st, -1, -1);
	int nb = 8;
	int64_t f3 = st[7 * nb + 3];
	assert_int_equal(st[7 * nb + 4], f3 + 1);
	TH_OK(tessel_schedule_set_step(s, 4, 7, f3));
	char frag[64];
	snprintf(frag, sizeof frag, "runs steps %lld..%lld", (long long)f3,
		 (long long)f3);
	EXPECT_VIOLATION(s, "device 3", "'f3' (gid 3) micro-batch 7", frag,
			 "'b3' (gid 4) micro-batch 7");
	tessel_schedule_free(s);
	free(st);
	tessel_graph_free(g);
}

/* A block on several devices: tp occupies devices 0..2 for 2 steps; x on
 * device 2 waits for it. */
static tessel_graph *tp_graph(void)
{
	tessel_graph *g = NULL;
	int gid;
	const int three[] = {0, 1, 2}, two[] = {2};
	TH_OK(tessel_graph_new(&g, 3));
	TH_OK(tessel_graph_add_block(&gid, g, "tp", TESSEL_KIND_FORWARD, 2, 1));
	TH_OK(tessel_graph_place(g, gid, three, 3));
	TH_OK(tessel_graph_add_block(&gid, g, "x", TESSEL_KIND_BACKWARD, 1, -1));
	TH_OK(tessel_graph_place(g, gid, two, 1));
	TH_OK(tessel_graph_add_dep(g, 0, 1));
	return g;
}

static void test_overlap_multi_device(void **state)
{
	(void)state;
	tessel_graph *g = tp_graph();
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 2));
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 2));
	TH_OK(tessel_schedule_set_step(s, 0, 1, 3));
	TH_OK(tessel_schedule_set_step(s, 1, 1, 5));
	TH_OK(tessel_schedule_validate(s));
	/* tp of micro-batch 1 starts while x of micro-batch 0 runs on 2 */
	TH_OK(tessel_schedule_set_step(s, 0, 1, 2));
	EXPECT_VIOLATION(s, "device 2", "'x' (gid 1) micro-batch 0",
			 "'tp' (gid 0) micro-batch 1");
	/* x starts inside tp's span */
	TH_OK(tessel_schedule_set_step(s, 0, 1, 3));
	TH_OK(tessel_schedule_validate(s));
	TH_OK(tessel_schedule_set_step(s, 1, 1, 4));
	EXPECT_VIOLATION(s, "device 2", "'tp' (gid 0) micro-batch 1 runs steps 3..4",
			 "'x' (gid 1) micro-batch 1 starts at step 4");
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

/* A dependency broken: one entry of a valid 1F1B (or GPipe) schedule of
 * vshape on 4 devices, 8 micro-batches, moved earlier, and the fragments
 * the validator's message must hold. */
static void test_dep_broken(void **state)
{
	(void)state;
	static const struct {
		const char *what;
		int gpipe;            /* plan(): 1 GPipe, 0 1F1B */
		int limited;          /* memory limit 4 on every device */
		int gid;
		int64_t was, moved_to; /* micro-batch 0's start, and the new one */
		const char *frags[7];
	} cases[] = {
		/* device 1 is idle before f1 */
		{"f1 one step early", 0, 1, 1, 1, 0,
		 {"dependency", "micro-batch 0", "'f1' (gid 1, device 1) starts at step 0",
		  "'f0' (gid 0, device 0)", "finishes at step 1", "1 step too early", NULL}},
		/* device 0 idles before b0 */
		{"b0 one step early", 0, 1, 7, 13, 12,
		 {"dependency", "micro-batch 0", "'b0' (gid 7, device 0) starts at step 12",
		  "'b1' (gid 6, device 1)", "finishes at step 13", "1 step too early", NULL}},
		/* GPipe: device 3 idles before its first forward at step 3 */
		{"f3 three steps early", 1, 0, 3, 3, 0,
		 {"micro-batch 0", "'f3' (gid 3, device 3)", "'f2' (gid 2, device 2)",
		  "3 steps too early", NULL}},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		print_message("%s\n", cases[i].what);
		tessel_graph *g = vshape(4, cases[i].limited ? limit4 : NULL);
		int64_t *st = plan(4, 8, cases[i].gpipe);
		tessel_schedule *s = make(g, 4, 8, st, -1, -1);
		TH_OK(tessel_schedule_validate(s));
		assert_int_equal(st[cases[i].gid], cases[i].was);
		TH_OK(tessel_schedule_set_step(s, cases[i].gid, 0, cases[i].moved_to));
		expect_violation(s, cases[i].frags);
		tessel_schedule_free(s);
		free(st);
		tessel_graph_free(g);
	}
}

/* ---- latency ------------------------------------------------------------ */

/* a (span 2) on `adevs`, then c (span 1) on `cdevs`, 2 devices. The
 * dependency a -> c has its own latency `own` (-1: none); the graph's is
 * `graph_lat`. */
static tessel_graph *lat_pair(const int *adevs, size_t na, const int *cdevs,
			      size_t nc, int own, int graph_lat)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 2));
	TH_OK(tessel_graph_add_block(NULL, g, "a", TESSEL_KIND_FORWARD, 2, 0));
	TH_OK(tessel_graph_place(g, 0, adevs, na));
	TH_OK(tessel_graph_add_block(NULL, g, "c", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 1, cdevs, nc));
	if (own >= 0)
		TH_OK(tessel_graph_add_dep_latency(g, 0, 1, own));
	else
		TH_OK(tessel_graph_add_dep(g, 0, 1));
	TH_OK(tessel_graph_set_latency(g, graph_lat));
	return g;
}

/* Two micro-batches: a at 0 and 5 on its devices, c of micro-batch m at
 * cstart[m]. */
static tessel_schedule *lat_schedule(const tessel_graph *g,
				     const int64_t cstart[2])
{
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 2));
	for (int m = 0; m < 2; m++) {
		TH_OK(tessel_schedule_set_step(s, 0, m, 5 * m));
		TH_OK(tessel_schedule_set_step(s, 1, m, cstart[m]));
	}
	return s;
}

/* A consumer on another device may start only latency steps after its
 * producer finishes. */
static void test_latency_other_device(void **state)
{
	(void)state;
	const int d0 = 0, d1 = 1;
	tessel_graph *g = lat_pair(&d0, 1, &d1, 1, 3, 0);
	/* a finishes at 2 and 7; c at 5 and 10 is right on time */
	const int64_t ok[2] = {5, 10};
	tessel_schedule *s = lat_schedule(g, ok);
	TH_OK(tessel_schedule_validate(s));
	tessel_schedule_free(s);
	/* micro-batch 1's c one step early */
	const int64_t early[2] = {5, 9};
	s = lat_schedule(g, early);
	EXPECT_VIOLATION(s, "dependency broken in micro-batch 1",
			 "'c' (gid 1, device 1) starts at step 9",
			 "'a' (gid 0, device 0) it waits for finishes at step 7",
			 "latency of 3 steps", "at step 10", "1 step too early");
	tessel_schedule_free(s);
	/* at the producer's finish: 3 steps early */
	const int64_t finish[2] = {2, 10};
	s = lat_schedule(g, finish);
	EXPECT_VIOLATION(s, "micro-batch 0", "'c' (gid 1, device 1) starts at step 2",
			 "latency of 3 steps", "3 steps too early");
	tessel_schedule_free(s);
	tessel_graph_free(g);

	/* the graph's latency counts for a dependency without its own */
	g = lat_pair(&d0, 1, &d1, 1, -1, 1);
	s = lat_schedule(g, finish);
	EXPECT_VIOLATION(s, "micro-batch 0", "latency of 1 step ",
			 "1 step too early");
	tessel_schedule_free(s);
	const int64_t one[2] = {3, 8};
	s = lat_schedule(g, one);
	TH_OK(tessel_schedule_validate(s));
	tessel_schedule_free(s);
	tessel_graph_free(g);

	/* an own latency of 0 overrides the graph's */
	g = lat_pair(&d0, 1, &d1, 1, 0, 4);
	const int64_t at_finish[2] = {2, 7};
	s = lat_schedule(g, at_finish);
	TH_OK(tessel_schedule_validate(s));
	tessel_schedule_free(s);
	tessel_graph_free(g);

	/* a latency given in the unit counts in whole steps: 0.25 at step 0.1
	 * is 3 steps */
	g = lat_pair(&d0, 1, &d1, 1, -1, 0);
	TH_OK(tessel_graph_set_step(g, 0.1));
	TH_OK(tessel_graph_set_latency_time(g, 0.25));
	const int64_t two[2] = {4, 10};
	s = lat_schedule(g, two);
	EXPECT_VIOLATION(s, "micro-batch 0", "latency of 3 steps", "at step 5");
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

/* The data is already there when the consumer occupies only devices of its
 * producer: no latency. */
static void test_latency_same_device(void **state)
{
	(void)state;
	const int d0 = 0, both[2] = {0, 1};
	const int64_t at_finish[2] = {2, 7};
	/* same device */
	tessel_graph *g = lat_pair(&d0, 1, &d0, 1, 5, 5);
	tessel_schedule *s = lat_schedule(g, at_finish);
	TH_OK(tessel_schedule_validate(s));
	tessel_schedule_free(s);
	tessel_graph_free(g);
	/* producer on both devices, consumer on one of them */
	g = lat_pair(both, 2, &d0, 1, -1, 5);
	s = lat_schedule(g, at_finish);
	TH_OK(tessel_schedule_validate(s));
	tessel_schedule_free(s);
	tessel_graph_free(g);
	/* consumer on both devices, producer on one: the latency counts */
	g = lat_pair(&d0, 1, both, 2, 2, 0);
	const int64_t late[2] = {4, 9};
	s = lat_schedule(g, late);
	TH_OK(tessel_schedule_validate(s));
	tessel_schedule_free(s);
	s = lat_schedule(g, at_finish);
	EXPECT_VIOLATION(s, "micro-batch 0", "'c' (gid 1, devices 0,1)",
			 "latency of 2 steps", "2 steps too early");
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

/* GPipe with limit 4: the fifth forward on device 0 reaches 5. */
static void test_memory_gpipe(void **state)
{
	(void)state;
	tessel_graph *g = vshape(4, limit4);
	int64_t *st = plan(4, 8, 1);
	tessel_schedule *s = make(g, 4, 8, st, -1, -1);
	EXPECT_VIOLATION(s, "memory", "device 0", "5 at step 4", "limit 4",
			 "'f0' (gid 0) micro-batch 4");
	tessel_schedule_free(s);
	free(st);
	tessel_graph_free(g);
}

/* 1F1B needs 4 on device 0: a limit of 3 is one short. */
static void test_memory_by_one(void **state)
{
	(void)state;
	const int64_t lim[4] = {3, 4, 4, 4};
	tessel_graph *g = vshape(4, lim);
	int64_t *st = plan(4, 8, 0);
	tessel_schedule *s = make(g, 4, 8, st, -1, -1);
	EXPECT_VIOLATION(s, "memory", "device 0", "4 at step 3", "limit 3",
			 "'f0' (gid 0) micro-batch 3");
	tessel_schedule_free(s);
	free(st);
	tessel_graph_free(g);
}

/* Valid everywhere except device 2, whose limit is 1 (1F1B needs 2). */
static void test_memory_one_device(void **state)
{
	(void)state;
	const int64_t lim[4] = {4, 4, 1, 4};
	tessel_graph *g = vshape(4, lim);
	int64_t *st = plan(4, 8, 0);
	tessel_schedule *s = make(g, 4, 8, st, -1, -1);
	EXPECT_VIOLATION(s, "memory", "device 2", "2 at step", "limit 1",
			 "'f2' (gid 2) micro-batch 1");
	tessel_schedule_free(s);
	free(st);
	tessel_graph_free(g);
	/* the same schedule on unlimited devices passes */
	g = vshape(4, NULL);
	st = plan(4, 8, 0);
	s = make(g, 4, 8, st, -1, -1);
	TH_OK(tessel_schedule_validate(s));
	tessel_schedule_free(s);
	free(st);
	tessel_graph_free(g);
}

/* Overlaps are reported before memory excesses found earlier. */
static void test_order_of_rules(void **state)
{
	(void)state;
	tessel_graph *g = vshape(4, limit4);
	int64_t *st = plan(4, 8, 1); /* GPipe: memory broken on device 0 */
	tessel_schedule *s = make(g, 4, 8, st, -1, -1);
	/* and a dependency broken on device 3 */
	TH_OK(tessel_schedule_set_step(s, 3, 0, 0));
	EXPECT_VIOLATION(s, "dependency", "'f3'");
	/* and an overlap on device 3 */
	TH_OK(tessel_schedule_set_step(s, 3, 1, 0));
	EXPECT_VIOLATION(s, "device 3", "two blocks");
	tessel_schedule_free(s);
	free(st);
	tessel_graph_free(g);
}

/* A large pipeline stays fast: 16 devices, many micro-batches. */
static void test_large(void **state)
{
	(void)state;
	int nm = th_under_checker() ? 64 : 1024;
	int64_t lim[16];
	for (int d = 0; d < 16; d++)
		lim[d] = 16 - d;
	tessel_graph *g = vshape(16, lim);
	int64_t *st = plan(16, nm, 0);
	tessel_schedule *s = make(g, 16, nm, st, -1, -1);
	TH_OK(tessel_schedule_validate(s));
	/* device 15 idles before its first forward: start it one step early */
	assert_int_equal(st[15], 15);
	TH_OK(tessel_schedule_set_step(s, 15, 0, 14));
	EXPECT_VIOLATION(s, "micro-batch 0", "'f15' (gid 15, device 15)",
			 "'f14'", "1 step too early");
	tessel_schedule_free(s);
	free(st);
	tessel_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_1f1b_valid),
		cmocka_unit_test(test_gpipe_unlimited_valid),
		cmocka_unit_test(test_unplaced),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_unplaced_first),
		cmocka_unit_test(test_overlap_same_start),
		cmocka_unit_test(test_sort_paths_agree),
		cmocka_unit_test(test_overlap_one_device),
		cmocka_unit_test(test_overlap_multi_device),
		cmocka_unit_test(test_dep_broken),
		cmocka_unit_test(test_latency_other_device),
		cmocka_unit_test(test_latency_same_device),
		cmocka_unit_test(test_memory_gpipe),
		cmocka_unit_test(test_memory_by_one),
		cmocka_unit_test(test_memory_one_device),
		cmocka_unit_test(test_order_of_rules),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_starts_at_zero),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
