/* LB(N) against the true optimum: random small graphs with memory limits
 * and latencies, every schedule enumerated by a branch and bound written
 * here (it shares nothing with the library). LB(N) must never exceed the
 * optimum, must include the latencies of the critical path and of each
 * device's head and tail, a search must never beat the optimum nor break a
 * latency, and a search that calls its makespan optimal must have found
 * it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "helpers.h"
#include "tessel.h"

#define MAXB 4
#define MAXD 3
#define MAXI 10 /* block instances: blocks x micro-batches */

typedef struct rgraph {
	int nb, nd, n;
	int span[MAXB], mem[MAXB];
	int on[MAXB][MAXD];   /* block b occupies device d */
	int dep[MAXB][MAXB];  /* dep[b][a]: b waits for a (a < b) */
	int lat[MAXB][MAXB];  /* its own latency, -1: the graph's */
	int latency;          /* the graph's */
	int64_t limit[MAXD];  /* TESSEL_UNLIMITED: none */
} rgraph;

/* The latency of b's dependency on a as a schedule honours it: counted
 * only when b occupies a device that a does not. */
static int dep_latency(const rgraph *r, int b, int a)
{
	int lat = r->lat[b][a] >= 0 ? r->lat[b][a] : r->latency;
	for (int d = 0; d < r->nd; d++)
		if (r->on[b][d] && !r->on[a][d])
			return lat;
	return 0;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static int rnd(int lo, int hi)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return lo + (int)(rng_state % (uint64_t)(hi - lo + 1));
}

/* Half of the graphs are pipeline-like: a chain whose first half takes
 * memory and whose second half frees it. A third have no latency at all;
 * the others a latency of the graph and some dependencies their own. */
static void random_graph(rgraph *r)
{
	memset(r, 0, sizeof *r);
	int pipeline = rnd(0, 1);
	r->nd = rnd(1, MAXD);
	r->nb = rnd(2, MAXB);
	r->n = rnd(1, MAXI / r->nb);
	for (int b = 0; b < r->nb; b++) {
		r->span[b] = rnd(1, 3);
		if (!pipeline)
			r->mem[b] = rnd(-2, 2);
		else
			r->mem[b] = 2 * b < r->nb ? rnd(0, 2) : rnd(-2, 0);
		if (r->nd > 1 && rnd(0, 4) == 0) { /* several devices */
			for (int d = 0; d < r->nd; d++)
				r->on[b][d] = rnd(0, 2) > 0;
			r->on[b][rnd(0, r->nd - 1)] = 1;
		} else {
			r->on[b][rnd(0, r->nd - 1)] = 1;
		}
		for (int a = 0; a < b; a++)
			r->dep[b][a] = (pipeline && a == b - 1) || rnd(0, 2) == 0;
	}
	for (int d = 0; d < r->nd; d++)
		r->limit[d] = rnd(0, 3) == 0 ? TESSEL_UNLIMITED : rnd(0, 3);
	int latencies = rnd(0, 2) > 0;
	r->latency = latencies ? rnd(0, 3) : 0;
	for (int b = 0; b < r->nb; b++)
		for (int a = 0; a < b; a++)
			r->lat[b][a] = latencies && rnd(0, 2) == 0 ? rnd(0, 4) : -1;
}

/* with_latency 0: the same graph without any latency. */
static tessel_graph *build(const rgraph *r, int with_limits, int with_latency)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, r->nd));
	for (int b = 0; b < r->nb; b++) {
		char name[16];
		int devs[MAXD], k = 0;
		snprintf(name, sizeof name, "b%d", b);
		TH_OK(tessel_graph_add_block(NULL, g, name, TESSEL_KIND_FORWARD,
					     r->span[b], r->mem[b]));
		for (int d = 0; d < r->nd; d++)
			if (r->on[b][d])
				devs[k++] = d;
		TH_OK(tessel_graph_place(g, b, devs, (size_t)k));
		for (int a = 0; a < b; a++) {
			if (!r->dep[b][a])
				continue;
			if (with_latency && r->lat[b][a] >= 0)
				TH_OK(tessel_graph_add_dep_latency(g, a, b,
								   r->lat[b][a]));
			else
				TH_OK(tessel_graph_add_dep(g, a, b));
		}
	}
	if (with_latency)
		TH_OK(tessel_graph_set_latency(g, r->latency));
	for (int d = 0; d < r->nd; d++)
		TH_OK(tessel_graph_set_memory_limit(
			g, d, with_limits ? r->limit[d] : TESSEL_UNLIMITED));
	return g;
}

/* Branch and bound over the order in which instances start. Every schedule
 * can be shifted left until each instance starts when its dependencies have
 * finished and their latencies passed, or when the blocks before it on its
 * devices have finished, without changing any device's order (so its
 * memory) or lengthening it; such a schedule is rebuilt by starting its
 * instances in order of start time, each as early as possible after those
 * before it. */
typedef struct bb {
	const rgraph *r;
	int done[MAXI];
	int64_t fin[MAXI];
	int64_t avail[MAXD], memory[MAXD], left[MAXD];
	int64_t best;
} bb;

static void branch(bb *s, int placed, int64_t makespan)
{
	const rgraph *r = s->r;
	int total = r->nb * r->n;
	if (makespan >= s->best)
		return;
	for (int d = 0; d < r->nd; d++)
		if (s->avail[d] + s->left[d] >= s->best)
			return;
	if (placed == total) {
		s->best = makespan;
		return;
	}
	for (int x = 0; x < total; x++) {
		int b = x / r->n, m = x % r->n;
		if (s->done[x])
			continue;
		/* micro-batches are interchangeable: block 0 starts in order */
		if (b == 0 && m > 0 && !s->done[x - 1])
			continue;
		int64_t start = 0;
		int ready = 1;
		for (int a = 0; a < b; a++)
			if (r->dep[b][a]) {
				int64_t at = s->fin[a * r->n + m] + dep_latency(r, b, a);
				if (!s->done[a * r->n + m])
					ready = 0;
				else if (at > start)
					start = at;
			}
		for (int d = 0; d < r->nd && ready; d++) {
			if (!r->on[b][d])
				continue;
			if (s->avail[d] > start)
				start = s->avail[d];
			if (r->limit[d] != TESSEL_UNLIMITED &&
			    s->memory[d] + r->mem[b] > r->limit[d])
				ready = 0;
		}
		if (!ready)
			continue;
		int64_t saved[MAXD];
		memcpy(saved, s->avail, sizeof saved);
		s->done[x] = 1;
		s->fin[x] = start + r->span[b];
		for (int d = 0; d < r->nd; d++)
			if (r->on[b][d]) {
				s->avail[d] = s->fin[x];
				s->memory[d] += r->mem[b];
				s->left[d] -= r->span[b];
			}
		branch(s, placed + 1, s->fin[x] > makespan ? s->fin[x] : makespan);
		for (int d = 0; d < r->nd; d++)
			if (r->on[b][d]) {
				s->memory[d] -= r->mem[b];
				s->left[d] += r->span[b];
			}
		memcpy(s->avail, saved, sizeof saved);
		s->done[x] = 0;
	}
}

/* The shortest makespan of any valid schedule, or -1 if there is none. */
static int64_t optimum(const rgraph *r)
{
	bb s;
	memset(&s, 0, sizeof s);
	s.r = r;
	s.best = INT64_MAX;
	for (int b = 0; b < r->nb; b++)
		for (int d = 0; d < r->nd; d++)
			if (r->on[b][d])
				s.left[d] += (int64_t)r->span[b] * r->n;
	branch(&s, 0, 0);
	return s.best == INT64_MAX ? -1 : s.best;
}

/* The graph of a failing round, for the log. */
static void print_graph(const rgraph *r)
{
	for (int b = 0; b < r->nb; b++) {
		print_message("b%d: span %d, memory %d, devices", b, r->span[b],
			      r->mem[b]);
		for (int d = 0; d < r->nd; d++)
			if (r->on[b][d])
				print_message(" %d", d);
		print_message(", after");
		for (int a = 0; a < b; a++)
			if (r->dep[b][a])
				print_message(" b%d (latency %d)", a, r->lat[b][a]);
		print_message("\n");
	}
	print_message("latency %d, %d micro-batches\n", r->latency, r->n);
	for (int d = 0; d < r->nd; d++)
		print_message("device %d: limit %lld\n", d, (long long)r->limit[d]);
}

/* Two parts of LB(N) computed here, latencies included: the critical
 * path, and max over devices of min head + N * load + min tail. */
static void path_bounds(int64_t *cp, int64_t *dev, const rgraph *r)
{
	int64_t head[MAXB] = {0}, tail[MAXB] = {0};
	for (int b = 0; b < r->nb; b++) /* dependencies have lower ids */
		for (int a = 0; a < b; a++)
			if (r->dep[b][a] &&
			    head[a] + r->span[a] + dep_latency(r, b, a) > head[b])
				head[b] = head[a] + r->span[a] + dep_latency(r, b, a);
	for (int b = r->nb - 1; b >= 0; b--)
		for (int a = 0; a < b; a++)
			if (r->dep[b][a] &&
			    dep_latency(r, b, a) + r->span[b] + tail[b] > tail[a])
				tail[a] = dep_latency(r, b, a) + r->span[b] + tail[b];
	*cp = 0;
	*dev = 0;
	for (int b = 0; b < r->nb; b++)
		if (head[b] + r->span[b] + tail[b] > *cp)
			*cp = head[b] + r->span[b] + tail[b];
	for (int d = 0; d < r->nd; d++) {
		int64_t h = INT64_MAX, t = INT64_MAX, load = 0;
		for (int b = 0; b < r->nb; b++) {
			if (!r->on[b][d])
				continue;
			load += r->span[b];
			h = head[b] < h ? head[b] : h;
			t = tail[b] < t ? tail[b] : t;
		}
		if (load && h + r->n * load + t > *dev)
			*dev = h + r->n * load + t;
	}
}

typedef struct starts {
	int64_t at[MAXB][MAXI];
} starts;

static int take_start(const tessel_entry *e, void *payload)
{
	starts *st = payload;
	int64_t gid = th_entry(e, TESSEL_ENTRY_GID);
	int64_t mid = th_entry(e, TESSEL_ENTRY_MICRO_BATCH);
	st->at[gid][mid] = th_entry(e, TESSEL_ENTRY_START);
	return 0;
}

/* A searched schedule honours every latency (the validator is not asked:
 * this checks the rule itself). */
static void check_latencies(const tessel_schedule *s, const rgraph *r)
{
	starts st;
	TH_OK(tessel_schedule_foreach(s, TESSEL_ALL_DEVICES, take_start, &st));
	for (int b = 0; b < r->nb; b++)
		for (int a = 0; a < b; a++)
			for (int m = 0; r->dep[b][a] && m < r->n; m++)
				if (st.at[b][m] < st.at[a][m] + r->span[a] +
							  dep_latency(r, b, a)) {
					print_graph(r);
					fail_msg("b%d of micro-batch %d starts at %lld, "
						 "before b%d's finish %lld + latency %d",
						 b, m, (long long)st.at[b][m], a,
						 (long long)(st.at[a][m] + r->span[a]),
						 dep_latency(r, b, a));
				}
}

static void test_lower_bound_never_above_optimum(void **state)
{
	(void)state;
	int rounds = th_under_checker() ? 1000 : 20000;
	int feasible = 0, memory_decides = 0, memory_tight = 0, searched = 0;
	int latency_decides = 0, latency_tight = 0, latency_ignored = 0;
	for (int i = 0; i < rounds; i++) {
		rgraph r;
		random_graph(&r);
		/* dependencies with a latency that does not count */
		for (int b = 0; b < r.nb; b++)
			for (int a = 0; a < b; a++)
				latency_ignored += r.dep[b][a] && !dep_latency(&r, b, a) &&
						   (r.lat[b][a] > 0 ||
						    (r.lat[b][a] < 0 && r.latency > 0));
		int64_t opt = optimum(&r);
		if (opt < 0)
			continue;
		feasible++;
		tessel_graph *g = build(&r, 1, 1), *free_g = build(&r, 0, 1);
		tessel_graph *nolat_g = build(&r, 1, 0);
		int64_t lb = 0, lb_free = 0, lb_nolat = 0, cp = 0, dev = 0, got = 0;
		TH_OK(tessel_graph_lower_bound(&lb, g, r.n));
		TH_OK(tessel_graph_lower_bound(&lb_free, free_g, r.n));
		TH_OK(tessel_graph_lower_bound(&lb_nolat, nolat_g, r.n));
		if (lb > opt) {
			print_graph(&r);
			fail_msg("round %d: LB(%d) = %lld above the optimum %lld",
				 i, r.n, (long long)lb, (long long)opt);
		}
		/* the bound's paths count the latencies (and only those that
		 * count): its critical path is the one computed here */
		path_bounds(&cp, &dev, &r);
		assert_true(cp <= opt && dev <= opt);
		TH_OK(tessel_graph_get(&got, g, TESSEL_GRAPH_CRITICAL_PATH));
		if (got != cp || lb < dev) {
			print_graph(&r);
			fail_msg("round %d: critical path %lld (here %lld), LB(%d) = "
				 "%lld below the device term %lld", i,
				 (long long)got, (long long)cp, r.n, (long long)lb,
				 (long long)dev);
		}
		assert_true(lb >= lb_free && lb >= lb_nolat);
		memory_decides += lb > lb_free;
		memory_tight += lb > lb_free && lb == opt;
		latency_decides += lb > lb_nolat;
		latency_tight += lb > lb_nolat && lb == opt;
		/* a search on every 8th graph that passes validation */
		if (i % 8 == 0 && tessel_graph_validate(g) == TESSEL_OK) {
			tessel_options *o = NULL;
			tessel_schedule *s = NULL;
			TH_OK(tessel_options_new(&o));
			TH_OK(tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, r.n));
			TH_OK(tessel_options_set(o, TESSEL_OPT_THREADS, 1));
			int rc = tessel_search(&s, g, o);
			if (rc == TESSEL_OK) {
				int64_t m = th_sched(s, TESSEL_SCHED_MAKESPAN);
				TH_OK(tessel_schedule_validate(s));
				check_latencies(s, &r);
				if (m < opt) {
					print_graph(&r);
					fail_msg("round %d: the search's makespan %lld "
						 "beats the optimum %lld", i,
						 (long long)m, (long long)opt);
				}
				if (th_sched(s, TESSEL_SCHED_MAKESPAN_OPTIMAL))
					assert_int_equal(m, opt);
				searched++;
			}
			tessel_schedule_free(s);
			tessel_options_free(o);
		}
		tessel_graph_free(g);
		tessel_graph_free(free_g);
		tessel_graph_free(nolat_g);
	}
	print_message("%d feasible graphs of %d; memory raised LB on %d (to the "
		      "optimum on %d); latency raised LB on %d (to the optimum "
		      "on %d); %d dependencies with an uncounted latency; "
		      "%d searched\n",
		      feasible, rounds, memory_decides, memory_tight,
		      latency_decides, latency_tight, latency_ignored, searched);
	/* the random graphs do exercise the memory terms and the latencies */
	assert_true(feasible > rounds / 4);
	assert_true(memory_decides > 0 && memory_tight > 0 && searched > 0);
	assert_true(latency_decides > 0 && latency_tight > 0 &&
		    latency_ignored > 0);
}

/* The crossing pipelines under their tight limits: before the first
 * backward block can arrive, a middle device fits only `memory` forward
 * blocks; the idle rest of the wait adds to the makespan. */
static void test_memory_terms_on_presets(void **state)
{
	(void)state;
	struct {
		int D;
		int64_t memory, N, want, want_free;
	} cases[] = {
		/* device 15: first backward at 77 (32 + 15 x 3), 27 forwards
		 * before it, 1024 steps of work, tail 45: 77 + 997 + 45 */
		{32, 27, 128, 1119, 1084},
		{64, 54, 128, 1220, 1148},
		{32, TESSEL_UNLIMITED, 128, 1084, 1084},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tessel_graph *g = NULL;
		int64_t lb = 0;
		TH_OK(tessel_preset(&g, "xshape", cases[i].D, 0, cases[i].memory));
		TH_OK(tessel_graph_lower_bound(&lb, g, cases[i].N));
		assert_int_equal(lb, cases[i].want);
		TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES,
						    TESSEL_UNLIMITED));
		TH_OK(tessel_graph_lower_bound(&lb, g, cases[i].N));
		assert_int_equal(lb, cases[i].want_free);
		tessel_graph_free(g);
	}
}

/* A round trip: a block that takes memory on device 0, a long way through
 * device 1 (or both), and the blocks that free it on device 0, under a
 * limit of one or two round trips; 2 to 4 micro-batches. */
static void random_trip(rgraph *r)
{
	memset(r, 0, sizeof *r);
	r->nd = 2;
	r->nb = rnd(3, 4);
	r->n = MAXI / r->nb;
	int take = rnd(1, 2);
	for (int b = 0; b < r->nb; b++) {
		r->span[b] = rnd(1, 3);
		r->on[b][b == 1 ? 1 : 0] = 1;
		if (b == 1 && rnd(0, 3) == 0)
			r->on[b][0] = 1;
		if (b > 0)
			r->dep[b][b - 1] = 1;
		for (int a = 0; a < b; a++)
			r->lat[b][a] = rnd(0, 2) == 0 ? rnd(0, 4) : -1;
	}
	r->mem[0] = take;
	r->mem[1] = rnd(-1, 1);
	if (r->nb == 3) {
		r->mem[2] = -take;
	} else {
		r->mem[2] = rnd(0, 1) ? 0 : -take;
		r->mem[3] = -take - r->mem[2];
	}
	r->latency = rnd(0, 4);
	r->limit[0] = rnd(take, 2 * take + 1);
	r->limit[1] = rnd(0, 1) ? TESSEL_UNLIMITED : rnd(1, 3);
}

/* The round-trip term (lib/graph/bounds_cycle.c) against the optimum on
 * graphs where it applies, and on a pipeline where it is the bound. */
static void test_round_trip_term(void **state)
{
	(void)state;
	int rounds = th_under_checker() ? 300 : 3000;
	int feasible = 0, decides = 0, tight = 0;
	for (int i = 0; i < rounds; i++) {
		rgraph r;
		random_trip(&r);
		int64_t opt = optimum(&r);
		if (opt < 0)
			continue;
		feasible++;
		tessel_graph *g = build(&r, 1, 1), *free_g = build(&r, 0, 1);
		int64_t lb = 0, lb_free = 0;
		TH_OK(tessel_graph_lower_bound(&lb, g, r.n));
		TH_OK(tessel_graph_lower_bound(&lb_free, free_g, r.n));
		if (lb > opt) {
			print_graph(&r);
			fail_msg("round %d: LB(%d) = %lld above the optimum %lld",
				 i, r.n, (long long)lb, (long long)opt);
		}
		decides += lb > lb_free;
		tight += lb > lb_free && lb == opt;
		tessel_graph_free(g);
		tessel_graph_free(free_g);
	}
	print_message("round trips: %d feasible of %d; memory raised LB on %d "
		      "(to the optimum on %d)\n", feasible, rounds, decides,
		      tight);
	assert_true(feasible > rounds / 2 && decides > feasible / 4 &&
		    tight > decides / 4);

	/* 1F1B on 4 devices, forward 1, backward 2, latency 1, memory 3 on
	 * every device, 16 micro-batches: device 0 holds a micro-batch from
	 * f0's start to b0's start, 16 steps (4 forwards, 3 backwards, 6
	 * latencies), then b0 runs 2: at most 3 such trips at a time, the
	 * 16 on 3 tracks whose first starts are 2 steps apart (6 + 5 + 5
	 * trips of 18 steps): 108, where the other terms give 63. The search
	 * reaches it. Memory 2: 8 + 8 trips, the second track 2 steps
	 * later: 146. */
	struct {
		int64_t memory, want;
	} cases[] = {{3, 108}, {2, 146}, {1, 288}, {TESSEL_UNLIMITED, 63}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tessel_graph *g = NULL;
		TH_OK(tessel_graph_new(&g, 4));
		int f[4], b[4];
		for (int d = 0; d < 4; d++) {
			char name[16];
			snprintf(name, sizeof name, "f%d", d);
			TH_OK(tessel_graph_add_block(&f[d], g, name,
						     TESSEL_KIND_FORWARD, 1, 1));
			TH_OK(tessel_graph_place(g, f[d], &d, 1));
			if (d > 0)
				TH_OK(tessel_graph_add_dep(g, f[d - 1], f[d]));
		}
		for (int d = 3; d >= 0; d--) {
			char name[16];
			snprintf(name, sizeof name, "b%d", d);
			TH_OK(tessel_graph_add_block(&b[d], g, name,
						     TESSEL_KIND_BACKWARD, 2, -1));
			TH_OK(tessel_graph_place(g, b[d], &d, 1));
			TH_OK(tessel_graph_add_dep(g, d == 3 ? f[3] : b[d + 1],
						   b[d]));
		}
		TH_OK(tessel_graph_set_latency(g, 1));
		TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES,
						    cases[i].memory));
		int64_t lb = 0;
		TH_OK(tessel_graph_lower_bound(&lb, g, 16));
		assert_int_equal(lb, cases[i].want);
		if (cases[i].memory == 3) {
			tessel_options *o = NULL;
			tessel_schedule *s = NULL;
			TH_OK(tessel_options_new(&o));
			TH_OK(tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, 16));
			TH_OK(tessel_search(&s, g, o));
			TH_OK(tessel_schedule_validate(s));
			assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 108);
			assert_true(th_sched(s, TESSEL_SCHED_MAKESPAN_OPTIMAL));
			tessel_schedule_free(s);
			tessel_options_free(o);
		}
		/* a declared recompute changes what a micro-batch holds: the
		 * bound is then that of its cheapest memory */
		TH_OK(tessel_graph_set_recompute(g, f[0], b[0], 1, 1));
		int64_t lb_alt = 0;
		TH_OK(tessel_graph_lower_bound(&lb_alt, g, 16));
		assert_true(lb_alt <= lb);
		tessel_graph_free(g);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lower_bound_never_above_optimum),
		cmocka_unit_test(test_memory_terms_on_presets),
		cmocka_unit_test(test_round_trip_term),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
