/* The published schedules of lib/explore/published.c: every family's order runs
 * and validates for several devices, micro-batches and spans; makespans
 * match the closed forms of the papers where they hold, peaks match the
 * memory claims, a few orders match their reference implementation entry
 * for entry, and bad parameters or broken orders are refused. No search. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helpers.h"
#include "published.h"
#include "tessel.h"

/* A built case: the order, its published schedule, peaks per device. */
typedef struct built {
	pub_order *order;
	tessel_schedule *s;
	int64_t limit;
	int64_t makespan;
	int64_t peak[16];
	int64_t max_peak, min_peak;
} built;

static int try_build(built *b, pub_family f, int D, int64_t N, int F, int B,
		     int W, int chunks)
{
	pub_params p = {D, N, F, B, W, chunks, 0, NULL, NULL};
	char why[512];
	memset(b, 0, sizeof *b);
	int rc = pub_order_build(&b->order, f, &p, why, sizeof why);
	if (rc)
		return rc;
	rc = pub_order_schedule(&b->s, &b->limit, b->order, why, sizeof why);
	if (rc) {
		print_error("%s D=%d N=%lld %d-%d-%d: %s\n", pub_family_name(f), D,
			    (long long)N, F, B, W, why);
		fail();
	}
	b->makespan = th_sched(b->s, TESSEL_SCHED_MAKESPAN);
	b->max_peak = 0;
	b->min_peak = INT64_MAX;
	for (int d = 0; d < D && d < 16; d++) {
		TH_OK(tessel_schedule_peak_memory(&b->peak[d], b->s, d));
		if (b->peak[d] > b->max_peak)
			b->max_peak = b->peak[d];
		if (b->peak[d] < b->min_peak)
			b->min_peak = b->peak[d];
	}
	return TESSEL_OK;
}

static void build(built *b, pub_family f, int D, int64_t N, int F, int B,
		  int W, int chunks)
{
	int rc = try_build(b, f, D, N, F, B, W, chunks);
	if (rc) {
		print_error("%s D=%d N=%lld: build failed (%d)\n",
			    pub_family_name(f), D, (long long)N, rc);
		fail();
	}
}

static void unbuild(built *b)
{
	tessel_schedule_free(b->s);
	pub_order_free(b->order);
	memset(b, 0, sizeof *b);
}

static int64_t lower_bound(const built *b)
{
	const tessel_graph *g = NULL;
	int64_t lb = 0;
	TH_OK(tessel_schedule_graph(&g, b->s));
	TH_OK(tessel_graph_lower_bound(&lb, g, b->order->nmicros));
	return lb;
}

/* Device d's order as "name:micro name:micro ...". */
static char *order_text(const pub_order *o, int d)
{
	size_t cap = 16 * o->len[d] + 1, used = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	text[0] = '\0';
	for (size_t k = 0; k < o->len[d]; k++) {
		const char *name = NULL;
		TH_OK(tessel_graph_block_name(&name, o->graph, o->steps[d][k].gid));
		used += (size_t)snprintf(text + used, cap - used, "%s%s:%lld",
					 k ? " " : "", name,
					 (long long)o->steps[d][k].micro);
	}
	return text;
}

static void expect_order(const pub_order *o, int d, const char *want)
{
	char *got = order_text(o, d);
	if (strcmp(got, want) != 0)
		print_error("device %d:\n got  %s\n want %s\n", d, got, want);
	assert_string_equal(got, want);
	free(got);
}

/* ------------------------------------------------------------------------ */

/* Every family, for every D, N and spans it accepts: the order covers
 * each (block, micro-batch) once, runs, and the schedule validates under
 * the limit it reports (the highest peak), set on its graph; the
 * placement follows the memory convention. */
static void test_every_order_validates(void **state)
{
	(void)state;
	static const int devices[] = {2, 3, 4, 5, 6, 8};
	static const int64_t micros[] = {1, 2, 3, 4, 7, 8, 12, 16, 24, 32};
	static const int spans[][3] = {{1, 1, 1}, {2, 2, 1}, {1, 2, 1}, {3, 1, 2}};
	int light = th_under_checker();
	for (int f = 0; f < PUB_NFAMILIES; f++) {
		int ok = 0;
		for (size_t di = 0; di < sizeof devices / sizeof devices[0]; di++)
			for (size_t ni = 0; ni < sizeof micros / sizeof micros[0]; ni++)
				for (size_t si = 0; si < (light ? 1 : 4); si++)
					for (int chunks = 2; chunks <= (f == PUB_INTERLEAVED ? 4 : 2);
					     chunks++) {
						built b;
						int D = devices[di];
						int64_t N = micros[ni];
						int rc = try_build(&b, (pub_family)f, D, N, spans[si][0],
								   spans[si][1], spans[si][2],
								   chunks);
						if (rc) {
							/* only the documented constraints */
							assert_int_equal(rc, TESSEL_EINVAL);
							assert_true(f == PUB_DUALPIPE || f == PUB_DUALPIPE_V ||
								    f == PUB_INTERLEAVED || f == PUB_CHIMERA);
							continue;
						}
						ok++;
						const tessel_graph *g = NULL;
						int64_t nb = 0, lim = 0;
						TH_OK(tessel_schedule_validate(b.s));
						TH_OK(tessel_schedule_graph(&g, b.s));
						TH_OK(tessel_graph_get(&nb, g, TESSEL_GRAPH_NBLOCKS));
						assert_int_equal(th_sched(b.s, TESSEL_SCHED_NENTRIES),
								 nb * b.order->nmicros);
						assert_int_equal(b.order->nmicros,
								 pub_family_pairs((pub_family)f) ? N / 2 : N);
						assert_int_equal(b.limit, b.max_peak);
						for (int d = 0; d < D; d++) {
							TH_OK(tessel_graph_memory_limit(&lim, g, d));
							assert_int_equal(lim, b.limit);
						}
						for (int k = 0; k < nb; k++) {
							int64_t kind = th_block(g, k, TESSEL_BLOCK_KIND);
							int64_t mem = th_block(g, k, TESSEL_BLOCK_MEMORY);
							int64_t want = kind == TESSEL_KIND_FORWARD ? 1
								     : kind == TESSEL_KIND_WEIGHT ? -1
								     : pub_family_splits((pub_family)f) ? 0 : -1;
							assert_int_equal(mem, want);
							assert_true(th_block(g, k, TESSEL_BLOCK_STAGE) >= 0);
						}
						unbuild(&b);
					}
		if (ok < 10)
			print_error("%s: only %d cases built\n",
				    pub_family_name((pub_family)f), ok);
		assert_true(ok >= 10);
	}
}

/* With a latency the orders still run and validate, and take longer. */
static void test_latency(void **state)
{
	(void)state;
	for (int f = 0; f < PUB_NFAMILIES; f++) {
		pub_params p = {4, 16, 1, 2, 1, 2, 0, NULL, NULL};
		pub_order *o = NULL;
		tessel_schedule *s0 = NULL, *s2 = NULL;
		char why[512];
		TH_OK(pub_order_build(&o, (pub_family)f, &p, why, sizeof why));
		TH_OK(pub_order_schedule(&s0, NULL, o, why, sizeof why));
		pub_order_free(o);
		p.latency = 2;
		TH_OK(pub_order_build(&o, (pub_family)f, &p, why, sizeof why));
		TH_OK(pub_order_schedule(&s2, NULL, o, why, sizeof why));
		TH_OK(tessel_schedule_validate(s2));
		assert_true(th_sched(s2, TESSEL_SCHED_MAKESPAN) >
			    th_sched(s0, TESSEL_SCHED_MAKESPAN));
		tessel_schedule_free(s0);
		tessel_schedule_free(s2);
		pub_order_free(o);
	}
}

/* 1F1B and GPipe: (N + D - 1)(F + B) (Narayanan et al. 2021; Huang et al.
 * 2019: a bubble of (D - 1)(F + B)); 1F1B keeps min(D - d, N) activations
 * on device d, GPipe all N. */
static void test_1f1b_gpipe(void **state)
{
	(void)state;
	static const int spans[][2] = {{1, 1}, {1, 2}, {2, 3}, {3, 1}};
	for (int D = 2; D <= 8; D += 2)
		for (int64_t N = 1; N <= 32; N = N * 2 + 1)
			for (size_t si = 0; si < 4; si++) {
				int F = spans[si][0], B = spans[si][1];
				built a, g;
				build(&a, PUB_1F1B, D, N, F, B, 0, 0);
				build(&g, PUB_GPIPE, D, N, F, B, 0, 0);
				assert_int_equal(a.makespan, (N + D - 1) * (F + B));
				assert_int_equal(g.makespan, (N + D - 1) * (F + B));
				for (int d = 0; d < D; d++) {
					assert_int_equal(a.peak[d], D - d < N ? D - d : N);
					assert_int_equal(g.peak[d], N);
				}
				unbuild(&a);
				unbuild(&g);
			}
}

/* ZB-H1 (Qi et al. 2024, section 3.1): a bubble of (D - 1)(F + B - W)
 * when W <= F, B and N >= D, and every device's peak is 1F1B's highest,
 * D. */
static void test_zb_h1(void **state)
{
	(void)state;
	static const int spans[][3] = {{1, 1, 1}, {2, 2, 1}, {2, 1, 1}, {3, 2, 2},
				       {3, 3, 1}};
	for (int D = 2; D <= 8; D++)
		for (int64_t N = D; N <= 32; N += D + 1)
			for (size_t si = 0; si < 5; si++) {
				int F = spans[si][0], B = spans[si][1], W = spans[si][2];
				built z, a;
				build(&z, PUB_ZB_H1, D, N, F, B, W, 0);
				build(&a, PUB_1F1B, D, N, F, B + W, 0, 0);
				assert_int_equal(z.makespan,
						 N * (F + B + W) + (D - 1) * (F + B - W));
				assert_true(z.makespan < a.makespan);
				assert_int_equal(z.max_peak, a.max_peak);
				for (int d = 0; d < D; d++)
					assert_int_equal(z.peak[d], D);
				unbuild(&z);
				unbuild(&a);
			}
}

/* ZB-H2 (same paper): no bubble but the fill, N(F + B + W) + (D - 1)F,
 * which is LB(N), for N >= 2D - 1; 2D - 1 activations on every device. */
static void test_zb_h2(void **state)
{
	(void)state;
	static const int spans[][3] = {{1, 1, 1}, {2, 2, 1}, {2, 2, 2}, {1, 2, 1},
				       {2, 1, 1}};
	for (int D = 2; D <= 8; D++)
		for (int64_t N = 2 * D - 1; N <= 40; N += D + 3)
			for (size_t si = 0; si < 5; si++) {
				int F = spans[si][0], B = spans[si][1], W = spans[si][2];
				built z;
				build(&z, PUB_ZB_H2, D, N, F, B, W, 0);
				assert_int_equal(z.makespan, N * (F + B + W) + (D - 1) * F);
				assert_int_equal(z.makespan, lower_bound(&z));
				for (int d = 0; d < D; d++)
					assert_int_equal(z.peak[d], 2 * D - 1);
				unbuild(&z);
			}
}

/* ZB-V (Qi et al., arXiv 2401.10241, section 6): zero bubble for equal
 * spans, (6N + D - 1)F = LB(N), with 1F1B's memory, 2D chunk activations
 * on every device, for N >= 2D - 1; its order is the handcrafted one. */
static void test_zb_v(void **state)
{
	(void)state;
	for (int D = 2; D <= 8; D++)
		for (int64_t N = 2 * D - 1; N <= 40; N += D + 2)
			for (int F = 1; F <= 2; F++) {
				built z;
				build(&z, PUB_ZB_V, D, N, F, F, F, 0);
				assert_int_equal(z.makespan, (6 * N + D - 1) * F);
				assert_int_equal(z.makespan, lower_bound(&z));
				for (int d = 0; d < D; d++)
					assert_int_equal(z.peak[d], 2 * D);
				unbuild(&z);
			}
	built z;
	build(&z, PUB_ZB_V, 2, 3, 1, 1, 1, 0);
	expect_order(z.order, 0, "f0:0 f0:1 f0:2 f3:0 b3:0 w3:0 f3:1 b3:1 w3:1 "
				 "b0:0 w0:0 f3:2 b3:2 w3:2 b0:1 w0:1 b0:2 w0:2");
	expect_order(z.order, 1, "f1:0 f2:0 f1:1 f2:1 b2:0 w2:0 f1:2 b1:0 w1:0 "
				 "f2:2 b2:1 w2:1 b1:1 b2:2 b1:2 w1:1 w2:2 w1:2");
	unbuild(&z);
}

/* V-Half and V-Min ("Pipeline Parallelism with Controllable Memory"):
 * about a half and a third of ZB-V's (and 1F1B's) 2D chunk activations,
 * plus a constant: at most D + 2 and 2(D + 1)/3 + 2 (so for D >= 4
 * V-Min <= V-Half < ZB-V); the orders and the
 * unit-span makespans are those of zbv_greedy.py (53 and 59 for D = 4,
 * N = 8). */
static void test_v_half_min(void **state)
{
	(void)state;
	for (int D = 2; D <= 8; D++)
		for (int64_t N = 8; N <= 32; N += 8) {
			built h, m, z;
			build(&h, PUB_V_HALF, D, N, 1, 1, 1, 0);
			build(&m, PUB_V_MIN, D, N, 1, 1, 1, 0);
			build(&z, PUB_ZB_V, D, N, 1, 1, 1, 0);
			assert_true(h.max_peak <= D + 2);
			assert_true(3 * m.max_peak <= 2 * (D + 1) + 6);
			if (D >= 4) {
				assert_true(m.max_peak <= h.max_peak);
				assert_true(h.max_peak < z.max_peak);
			}
			unbuild(&h);
			unbuild(&m);
			unbuild(&z);
		}
	built h, m;
	build(&h, PUB_V_HALF, 4, 8, 1, 1, 1, 0);
	build(&m, PUB_V_MIN, 4, 8, 1, 1, 1, 0);
	assert_int_equal(h.makespan, 53);
	assert_int_equal(m.makespan, 59);
	expect_order(h.order, 0,
		     "f0:0 f0:1 f0:2 f0:3 f0:4 f7:0 b7:0 w7:0 f7:1 b7:1 w7:1 f7:2 "
		     "b0:0 b7:2 w7:2 f7:3 w0:0 f0:5 b0:1 b7:3 w7:3 f7:4 w0:1 f0:6 "
		     "b0:2 b7:4 w7:4 f7:5 w0:2 f0:7 b0:3 b7:5 w7:5 f7:6 b7:6 w7:6 "
		     "b0:4 w0:3 w0:4 f7:7 b7:7 b0:5 w7:7 b0:6 w0:5 w0:6 b0:7 w0:7");
	expect_order(m.order, 3,
		     "f3:0 f4:0 f3:1 f4:1 b4:0 b3:0 w4:0 w3:0 f3:2 f4:2 b4:1 b3:1 "
		     "w4:1 w3:1 f3:3 f4:3 b4:2 b3:2 w4:2 w3:2 f3:4 f4:4 b4:3 b3:3 "
		     "w4:3 w3:3 f3:5 f4:5 b4:4 b3:4 w4:4 w3:4 f3:6 f4:6 b4:5 b3:5 "
		     "w4:5 w3:5 f3:7 f4:7 b4:6 b3:6 w4:6 w3:6 b4:7 b3:7 w4:7 w3:7");
	unbuild(&h);
	unbuild(&m);
}

/* DualPipe and DualPipeV (deepseek-ai/DualPipe README): PP + 1
 * activations per device, PP the stages (DualPipe: D + 1, DualPipeV:
 * 2D + 1); with equal spans DualPipe ends at LB(N) (3N + D/2 - 1),
 * DualPipeV at (6N + D - 1)F like ZB-V. */
static void test_dualpipe(void **state)
{
	(void)state;
	for (int D = 2; D <= 8; D += 2)
		for (int64_t N = 2 * D; N <= 48; N += 2 * D)
			for (int F = 1; F <= 2; F++) {
				built b;
				build(&b, PUB_DUALPIPE, D, N, F, F, F, 0);
				assert_int_equal(b.makespan, (3 * N + D / 2 - 1) * F);
				assert_int_equal(b.makespan, lower_bound(&b));
				for (int d = 0; d < D; d++)
					assert_int_equal(b.peak[d], D + 1);
				unbuild(&b);
			}
	for (int D = 2; D <= 8; D++)
		for (int64_t N = 2 * D; N <= 48; N += 2 * D) {
			built b;
			build(&b, PUB_DUALPIPE_V, D, N, 1, 1, 1, 0);
			assert_int_equal(b.makespan, 6 * N + D - 1);
			assert_int_equal(b.max_peak, 2 * D + 1);
			unbuild(&b);
		}
	built b;
	build(&b, PUB_DUALPIPE, 4, 8, 1, 1, 1, 0);
	expect_order(b.order, 0,
		     "f0:0 f0:1 f0:2 rf3:0 rb3:0 rw3:0 rf3:1 f0:3 rb3:1 rw3:1 rf3:2 "
		     "b0:0 w0:0 rb3:2 rw3:2 rf3:3 b0:1 w0:1 rb3:3 rw3:3 b0:2 w0:2 "
		     "b0:3 w0:3");
	expect_order(b.order, 1,
		     "f1:0 rf2:0 f1:1 rf2:1 f1:2 rb2:0 rw2:0 rf2:2 b1:0 w1:0 f1:3 "
		     "rb2:1 rw2:1 rf2:3 b1:1 w1:1 rb2:2 rw2:2 b1:2 w1:2 rb2:3 b1:3 "
		     "rw2:3 w1:3");
	unbuild(&b);
}

/* Interleaved 1F1B (Narayanan et al., SC21): the bubble shrinks to
 * (D - 1)(F + B) for chunk spans F, B, so (Nv + D - 1)(F + B); device d
 * holds 2(D - 1 - d) + (v - 1)D + 1 chunk activations (all Nv when
 * N = D: every forward first). */
static void test_interleaved(void **state)
{
	(void)state;
	static const int spans[][2] = {{1, 1}, {1, 2}, {2, 3}};
	for (int v = 2; v <= 4; v++)
		for (int D = 2; D <= 8; D += 2)
			for (int64_t N = D; N <= 3 * D; N += D)
				for (size_t si = 0; si < 3; si++) {
					int F = spans[si][0], B = spans[si][1];
					built b;
					build(&b, PUB_INTERLEAVED, D, N, F, B, 0, v);
					assert_int_equal(b.makespan, (N * v + D - 1) * (F + B));
					for (int d = 0; d < D; d++) {
						int64_t want = 2 * (D - 1 - d) + (int64_t)(v - 1) * D + 1;
						if (N == D || want > N * v)
							want = N * v;
						assert_int_equal(b.peak[d], want);
					}
					unbuild(&b);
				}
	built b;
	build(&b, PUB_INTERLEAVED, 4, 8, 1, 2, 0, 2);
	expect_order(b.order, 0,
		     "f0:0 f0:1 f0:2 f0:3 f4:0 f4:1 f4:2 f4:3 f0:4 f0:5 f0:6 b4:0 "
		     "f0:7 b4:1 f4:4 b4:2 f4:5 b4:3 f4:6 b0:0 f4:7 b0:1 b0:2 b0:3 "
		     "b4:4 b4:5 b4:6 b4:7 b0:4 b0:5 b0:6 b0:7");
	unbuild(&b);
}

/* Chimera (Li and Hoefler, SC21): D - 2 bubbles of one step for F = B
 * ((2N + D - 2)F for N micro-batches), and between D/2 + 1 (the end
 * devices) and D (the middle ones) activations per device; the order is
 * the reference's (Shigangli/Chimera). */
static void test_chimera(void **state)
{
	(void)state;
	for (int D = 2; D <= 8; D += 2)
		for (int64_t N = D; N <= 4 * D; N += D)
			for (int F = 1; F <= 2; F++) {
				built b;
				build(&b, PUB_CHIMERA, D, N, F, F, 0, 0);
				assert_int_equal(b.makespan, (2 * N + D - 2) * F);
				assert_int_equal(b.peak[0], D / 2 + 1);
				assert_int_equal(b.peak[D - 1], D / 2 + 1);
				assert_int_equal(b.peak[D / 2], D);
				assert_true(b.min_peak >= D / 2 + 1 && b.max_peak <= D);
				unbuild(&b);
			}
	built b;
	build(&b, PUB_CHIMERA, 4, 8, 1, 2, 0, 0);
	expect_order(b.order, 0,
		     "f0:0 f0:1 rf3:0 rb3:0 rf3:1 rb3:1 b0:0 f0:2 b0:1 f0:3 rf3:2 "
		     "rb3:2 rf3:3 rb3:3 b0:2 b0:3");
	unbuild(&b);
}

/* Parameters a family does not take, and orders that cannot run. */
static void test_refusals(void **state)
{
	(void)state;
	pub_order *o = NULL;
	tessel_schedule *s = NULL;
	char why[512];
	pub_params p = {4, 16, 1, 2, 1, 2, 0, NULL, NULL};
	pub_family f;

	assert_int_equal(pub_family_find(&f, "zb-h1"), 0);
	assert_int_equal(f, PUB_ZB_H1);
	assert_int_equal(pub_family_find(&f, "zb-h3"), -1);
	assert_null(pub_family_name(PUB_NFAMILIES));

	p.devices = 3;
	assert_int_equal(pub_order_build(&o, PUB_DUALPIPE, &p, why, sizeof why),
			 TESSEL_EINVAL);
	assert_non_null(strstr(why, "even number of devices"));
	assert_null(o);
	assert_int_equal(pub_order_build(&o, PUB_CHIMERA, &p, why, sizeof why),
			 TESSEL_EINVAL);
	p.devices = 4;
	p.micros = 6;
	assert_int_equal(pub_order_build(&o, PUB_DUALPIPE_V, &p, why, sizeof why),
			 TESSEL_EINVAL);
	assert_non_null(strstr(why, "N >= 2D"));
	assert_int_equal(pub_order_build(&o, PUB_INTERLEAVED, &p, why, sizeof why),
			 TESSEL_EINVAL);
	p.micros = 16;
	p.chunks = 1;
	assert_int_equal(pub_order_build(&o, PUB_INTERLEAVED, &p, why, sizeof why),
			 TESSEL_EINVAL);
	p.chunks = 2;
	p.w = 0;
	assert_int_equal(pub_order_build(&o, PUB_ZB_H1, &p, why, sizeof why),
			 TESSEL_EINVAL);
	assert_non_null(strstr(why, "spans"));
	/* w is ignored without a split */
	TH_OK(pub_order_build(&o, PUB_1F1B, &p, why, sizeof why));
	pub_order_free(o);
	p.w = 1;
	p.devices = 1;
	assert_int_equal(pub_order_build(&o, PUB_1F1B, &p, why, sizeof why),
			 TESSEL_EINVAL);
	p.devices = 4;
	p.latency = -1;
	assert_int_equal(pub_order_build(&o, PUB_1F1B, &p, why, sizeof why),
			 TESSEL_EINVAL);
	p.latency = 0;
	assert_int_equal(pub_order_build(&o, PUB_NFAMILIES, &p, why, sizeof why),
			 TESSEL_EINVAL);
	assert_int_equal(pub_order_build(NULL, PUB_1F1B, &p, why, sizeof why),
			 TESSEL_EINVAL);

	/* device 0 starts with a backward: it waits for itself */
	TH_OK(pub_order_build(&o, PUB_1F1B, &p, why, sizeof why));
	pub_step first = o->steps[0][0];
	size_t last = o->len[0] - 1;
	o->steps[0][0] = o->steps[0][last];
	o->steps[0][last] = first;
	assert_int_equal(pub_order_schedule(&s, NULL, o, why, sizeof why),
			 TESSEL_EINVAL);
	assert_non_null(strstr(why, "cannot run"));
	assert_null(s);
	/* an entry twice (and another in no order) */
	o->steps[0][last] = o->steps[0][0];
	assert_int_equal(pub_order_schedule(&s, NULL, o, why, sizeof why),
			 TESSEL_EINVAL);
	assert_non_null(strstr(why, "twice"));
	/* an entry on the wrong device */
	o->steps[0][last] = o->steps[1][0];
	assert_int_equal(pub_order_schedule(&s, NULL, o, why, sizeof why),
			 TESSEL_EINVAL);
	assert_non_null(strstr(why, "placed on device 1"));
	pub_order_free(o);
	pub_order_free(NULL);
}

/* The public API (tessel_published*): every family by name, the same
 * schedule as the order's; replayed on its own placement and on one with
 * slower spans; refusals. */
static void test_public_api(void **state)
{
	(void)state;
	assert_int_equal(tessel_published_count(), PUB_NFAMILIES);
	for (size_t i = 0; i < tessel_published_count(); i++) {
		const char *name = NULL, *desc = NULL;
		TH_OK(tessel_published_info(&name, &desc, i));
		assert_non_null(name);
		assert_true(strlen(desc) > 10);
		int D = 4;
		int64_t N = 16;
		tessel_schedule *s = NULL;
		TH_OK(tessel_published(&s, name, D, N, 1, 2, 1, 2, 0));
		TH_OK(tessel_schedule_validate(s));
		pub_family fam;
		assert_int_equal(pub_family_find(&fam, name), 0);
		pub_params p = {D, N, 1, 2, 1, 2, 0, NULL, NULL};
		pub_order *o = NULL;
		char why[256];
		TH_OK(pub_order_build(&o, fam, &p, why, sizeof why));
		tessel_schedule *ref = NULL;
		TH_OK(pub_order_schedule(&ref, NULL, o, why, sizeof why));
		assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN),
				 th_sched(ref, TESSEL_SCHED_MAKESPAN));
		/* on its own placement, and with stage 0 twice as slow */
		const tessel_graph *g = NULL;
		TH_OK(tessel_schedule_graph(&g, s));
		tessel_schedule *on = NULL;
		int64_t nm = th_sched(s, TESSEL_SCHED_NMICROS);
		TH_OK(tessel_published_on(&on, g, name, nm));
		assert_int_equal(th_sched(on, TESSEL_SCHED_MAKESPAN),
				 th_sched(s, TESSEL_SCHED_MAKESPAN));
		tessel_schedule_free(on);
		tessel_graph *slow = NULL;
		TH_OK(tessel_graph_dup(&slow, g));
		TH_OK(tessel_graph_set_memory_limit(slow, TESSEL_ALL_DEVICES,
						    TESSEL_UNLIMITED));
		TH_OK(tessel_graph_set_step(slow, 1.0));
		TH_OK(tessel_graph_set_block_duration(
			slow, 0, 2.0 * (double)th_block(g, 0, TESSEL_BLOCK_SPAN)));
		on = NULL;
		TH_OK(tessel_published_on(&on, slow, name, nm));
		TH_OK(tessel_schedule_validate(on));
		assert_true(th_sched(on, TESSEL_SCHED_MAKESPAN) >
			    th_sched(s, TESSEL_SCHED_MAKESPAN));
		tessel_schedule_free(on);
		tessel_graph_free(slow);
		tessel_schedule_free(ref);
		pub_order_free(o);
		tessel_schedule_free(s);
	}
	tessel_schedule *s = NULL;
	th_expect_error(tessel_published(&s, "nosuch", 4, 8, 1, 2, 1, 0, 0),
			TESSEL_ENOTFOUND, "nosuch");
	th_expect_error(tessel_published(&s, "dualpipe", 3, 8, 1, 2, 1, 0, 0),
			TESSEL_EINVAL, "dualpipe");
	th_expect_error(tessel_published(NULL, "1f1b", 4, 8, 1, 2, 1, 0, 0),
			TESSEL_EINVAL, "out");
	th_expect_error(tessel_published(&s, NULL, 4, 8, 1, 2, 1, 0, 0),
			TESSEL_EINVAL, "family");
	th_expect_error(tessel_published(&s, "1f1b", 4, 0, 1, 2, 1, 0, 0),
			TESSEL_EINVAL, "micro-batches");
	assert_null(s);
	/* a placement that is not the family's */
	tessel_graph *g = NULL;
	TH_OK(tessel_preset(&g, "mshape", 4, 0, TESSEL_PRESET_MEMORY));
	th_expect_error(tessel_published_on(&s, g, "1f1b", 8), TESSEL_EINVAL,
			"not a 1f1b placement");
	tessel_graph_free(g);
	/* 1F1B's order on a placement whose limit it breaks */
	TH_OK(tessel_published(&s, "gpipe", 4, 8, 1, 2, 1, 0, 0));
	const tessel_graph *pg = NULL;
	TH_OK(tessel_schedule_graph(&pg, s));
	tessel_graph *tight = NULL;
	TH_OK(tessel_graph_dup(&tight, pg));
	TH_OK(tessel_graph_set_memory_limit(tight, TESSEL_ALL_DEVICES, 4));
	tessel_schedule *t = NULL;
	th_expect_error(tessel_published_on(&t, tight, "gpipe", 8),
			TESSEL_EVIOLATION, "memory");
	TH_OK(tessel_published_on(&t, tight, "1f1b", 8));
	tessel_schedule_free(t);
	tessel_graph_free(tight);
	tessel_schedule_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_order_validates),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_1f1b_gpipe),
		cmocka_unit_test(test_zb_h1),
		cmocka_unit_test(test_zb_h2),
		cmocka_unit_test(test_zb_v),
		cmocka_unit_test(test_v_half_min),
		cmocka_unit_test(test_dualpipe),
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_chimera),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_public_api),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
