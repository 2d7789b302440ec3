/* Completion with latencies and deadlines (white box: links
 * libtessel_internal and calls tsl_complete, tsl_compact, tsl_sgs and
 * tsl_sgs_backward directly), and builds V pipelines' rounds
 * (tsl_vshape_schedule) and H pipelines by the Zero Bubble authors' greedy
 * (tsl_hshape_schedule). The validator checks devices, memory and
 * dependencies; the latency rule, start(c) >= start(a) + span(a) + latency
 * where c occupies a device a does not, is checked here with its own
 * reading of the graph. Serial generation is compared step for step with
 * a plain reference written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bounds.h"
#include "complete.h"
#include "complete_compact.h"
#include "complete_sgs.h"
#include "complete_gaps.h"
#include "complete_hshape.h"
#include "complete_list.h"
#include "complete_retime.h"
#include "complete_vshape.h"
#include "complete_window_z3.h"
#include "helpers.h"
#include "repetend.h"
#include "repetend_heuristic.h"
#include "repetend_z3.h"
#include "schedule.h"
#include "stage.h"
#include "tessel.h"
#include "util.h"
#include "validate.h"

/* ---- the latency rule, read from the graph here ---- */

static int occupies(const tsl_block *b, int d)
{
	for (int k = 0; k < b->ndevices; k++)
		if (b->devices[k] == d)
			return 1;
	return 0;
}

/* Latency block b waits after its j-th dependency finished. */
static int64_t latency_of(const tessel_graph *g, int b, int j)
{
	const tsl_block *B = &g->blocks[b], *A = &g->blocks[B->deps[j]];
	int64_t lat = B->deplat[j] >= 0 ? B->deplat[j] : g->latency;
	for (int k = 0; k < B->ndevices; k++)
		if (!occupies(A, B->devices[k]))
			return lat;
	return 0;
}

static int64_t start_of(const tessel_schedule *s, int gid, int64_t mid)
{
	return tsl_entry_at(s, gid, mid)->start;
}

/* Every latency honoured; returns how many dependencies with a latency
 * are tight (start exactly at finish + latency). */
static int64_t check_latencies(const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	int64_t tight = 0;
	for (int64_t m = 0; m < s->nmicros; m++)
		for (int b = 0; b < g->nblocks; b++)
			for (int j = 0; j < g->blocks[b].ndeps; j++) {
				int a = g->blocks[b].deps[j];
				int64_t lat = latency_of(g, b, j);
				int64_t ready = start_of(s, a, m) + g->blocks[a].span + lat;
				if (start_of(s, b, m) < ready)
					fail_msg("%s of micro-batch %lld starts at %lld, "
						 "before %s's finish + latency %lld = %lld",
						 g->blocks[b].name, (long long)m,
						 (long long)start_of(s, b, m),
						 g->blocks[a].name, (long long)lat,
						 (long long)ready);
				tight += lat > 0 && start_of(s, b, m) == ready;
			}
	return tight;
}

/* No two entries overlap on a device (memory not looked at). */
static void check_devices(const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	size_t count = (size_t)g->nblocks * (size_t)s->nmicros;
	for (int d = 0; d < g->ndevices; d++)
		for (size_t i = 0; i < count; i++) {
			const tsl_block *A = &g->blocks[i % (size_t)g->nblocks];
			if (!occupies(A, d))
				continue;
			for (size_t j = i + 1; j < count; j++) {
				const tsl_block *B = &g->blocks[j % (size_t)g->nblocks];
				int64_t sa = s->entries[i].start, sb = s->entries[j].start;
				if (occupies(B, d) && sa < sb + B->span && sb < sa + A->span)
					fail_msg("device %d: entries %zu and %zu overlap",
						 d, i, j);
			}
		}
}

/* ---- a pipeline and a repetend made by hand ---- */

/* f0 .. f{D-1} on devices 0 .. D-1 (span 1, memory +1), then b{D-1} .. b0
 * back (span 2, memory -1), each after the one before; `latency` for
 * every dependency (f{D-1} -> b{D-1} stays on its device: none counts). */
static tessel_graph *pipeline(int D, int latency, int64_t limit)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, D));
	for (int i = 0; i < 2 * D; i++) {
		char name[16];
		int fwd = i < D, dev = fwd ? i : 2 * D - 1 - i;
		snprintf(name, sizeof name, "%s%d", fwd ? "f" : "b", dev);
		TH_OK(tessel_graph_add_block(NULL, g, name,
					     fwd ? TESSEL_KIND_FORWARD : TESSEL_KIND_BACKWARD,
					     fwd ? 1 : 2, fwd ? 1 : -1));
		TH_OK(tessel_graph_place(g, i, &dev, 1));
		if (i > 0)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	TH_OK(tessel_graph_set_latency(g, latency));
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, limit));
	return g;
}

/* Period 3: each device runs its forward at residue 0 and its backward at
 * residue 1 (steps 1 and 2). Each block starts at the first step of its
 * residue after its dependency's finish plus latency. */
static void pipeline_repetend(tsl_repetend *rep, const tessel_graph *g)
{
	rep->period = 3;
	rep->optimal = 1;
	rep->T = tsl_calloc((size_t)g->nblocks, sizeof *rep->T);
	assert_non_null(rep->T);
	int64_t depth = 0;
	for (int b = 0; b < g->nblocks; b++) {
		const tsl_block *B = &g->blocks[b];
		int64_t t = 0;
		if (B->ndeps)
			t = rep->T[B->deps[0]] + g->blocks[B->deps[0]].span +
			    latency_of(g, b, 0);
		int64_t want = B->kind == TESSEL_KIND_FORWARD ? 0 : 1;
		t += ((want - t) % 3 + 3) % 3;
		rep->T[b] = t;
		if (t + B->span > depth)
			depth = t + B->span;
	}
	rep->depth = depth;
}

static tessel_schedule *complete(const tessel_graph *g, const tsl_repetend *rep,
				 int64_t nmicros, int64_t effort,
				 const tsl_deadline *dl, int64_t *lb)
{
	tessel_schedule *s = NULL;
	tsl_bounds bnd;
	TH_OK(tsl_schedule_alloc(&s, g, nmicros));
	TH_OK(tsl_bounds_compute(&bnd, s->graph));
	TH_OK(tsl_complete(s, rep, &(tsl_stage){s->graph, &bnd, NULL, dl}, effort));
	*lb = tsl_bounds_lower(&bnd, nmicros);
	tsl_bounds_release(&bnd);
	return s;
}

/* The 4-stage pipeline with latency 2 between stages, completed from the
 * hand-made repetend: every latency honoured, some of them tight, and the
 * makespan between LB(N) (which counts them) and the periodic schedule's. */
static void test_pipeline_latency(void **state)
{
	(void)state;
	struct {
		int64_t limit, nmicros;
	} cases[] = {{TESSEL_UNLIMITED, 8}, {10, 16}, {TESSEL_UNLIMITED, 1}};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		tessel_graph *g = pipeline(4, 2, cases[c].limit);
		tsl_repetend rep = {0};
		pipeline_repetend(&rep, g);
		int64_t cp = 0, N = cases[c].nmicros;
		/* 4 forwards, 4 backwards, 6 latencies (none at the turn) */
		TH_OK(tessel_graph_get(&cp, g, TESSEL_GRAPH_CRITICAL_PATH));
		assert_int_equal(cp, 4 * 1 + 4 * 2 + 6 * 2);
		assert_int_equal(rep.depth, 30);
		for (int64_t effort = 0; effort <= 1000000; effort += 1000000) {
			int64_t lb = 0;
			tessel_schedule *s = complete(g, &rep, N, effort, NULL, &lb);
			TH_OK(tessel_schedule_validate(s));
			int64_t tight = check_latencies(s);
			int64_t m = tsl_schedule_makespan(s);
			assert_true(tight > 0);
			assert_true(lb >= cp && m >= lb);
			assert_true(m <= (N - 1) * rep.period + rep.depth);
			if (N == 1)
				assert_int_equal(m, cp);
			assert_int_equal(s->period, 3);
			tessel_schedule_free(s);
		}
		tsl_repetend_release(&rep);
		tessel_graph_free(g);
	}
}

/* ---- random graphs against a plain serial generation ---- */

#define RB 7 /* blocks */
#define RD 4 /* devices */
#define RN 5 /* micro-batches */
#define RI (RB * RN)

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static int rnd(int lo, int hi)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return lo + (int)(rng_state % (uint64_t)(hi - lo + 1));
}

static tessel_graph *random_graph(int *nmicros)
{
	int nd = rnd(1, RD), nb = rnd(2, RB);
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, nd));
	for (int b = 0; b < nb; b++) {
		char name[8];
		int devs[RD], k = 0;
		snprintf(name, sizeof name, "x%d", b);
		TH_OK(tessel_graph_add_block(NULL, g, name, TESSEL_KIND_FORWARD,
					     rnd(0, 4) ? rnd(1, 3) : rnd(1, 40),
					     rnd(-2, 3)));
		for (int d = 0; d < nd; d++)
			if (rnd(0, 3) == 0)
				devs[k++] = d;
		if (!k)
			devs[k++] = rnd(0, nd - 1);
		TH_OK(tessel_graph_place(g, b, devs, (size_t)k));
		for (int a = 0; a < b; a++) {
			if (rnd(0, 2))
				continue;
			if (rnd(0, 2) == 0)
				TH_OK(tessel_graph_add_dep_latency(g, a, b, rnd(0, 6)));
			else
				TH_OK(tessel_graph_add_dep(g, a, b));
		}
	}
	TH_OK(tessel_graph_set_latency(g, rnd(0, 4)));
	for (int d = 0; d < nd; d++)
		TH_OK(tessel_graph_set_memory_limit(
			g, d, rnd(0, 2) ? TESSEL_UNLIMITED : rnd(3, 8)));
	*nmicros = rnd(1, RN);
	return g;
}

/* A random order of the instances, each after its dependencies. */
static void random_order(tsl_inst *seq, const tessel_graph *g, int nmicros)
{
	int n = g->nblocks, total = n * nmicros, done[RI] = {0};
	for (int i = 0; i < total; i++) {
		int ready[RI], nr = 0;
		for (int x = 0; x < total; x++) {
			const tsl_block *B = &g->blocks[x % n];
			int ok = !done[x];
			for (int j = 0; j < B->ndeps && ok; j++)
				ok = done[x - x % n + B->deps[j]];
			if (ok)
				ready[nr++] = x;
		}
		assert_true(nr > 0);
		int x = ready[rnd(0, nr - 1)];
		done[x] = 1;
		seq[i].gid = x % n;
		seq[i].mid = x / n;
	}
}

typedef struct plain {
	int64_t bs[RI], be[RI];    /* busy intervals */
	int bd[RI * RD];           /* ... per device: which (index) */
	int nbusy[RD];
	int64_t mt[RI], mdelta[RI];
	int nmem[RD], md[RI * RD]; /* memory events per device, in order */
} plain;

/* Earliest t' >= t with [t', t' + span) free on every device of B. */
static int64_t plain_window(const plain *p, const tsl_block *B, int64_t t)
{
	for (int moved = 1; moved;) {
		moved = 0;
		for (int k = 0; k < B->ndevices; k++) {
			int d = B->devices[k];
			for (int i = 0; i < p->nbusy[d]; i++) {
				int x = p->bd[d * RI + i];
				if (p->bs[x] < t + B->span && p->be[x] > t) {
					t = p->be[x];
					moved = 1;
				}
			}
		}
	}
	return t;
}

/* Whether adding `delta` at step c keeps d's profile within `limit` from
 * c on: the level once the events up to c have happened, and after each
 * later event (ties in the order they were added). */
static int plain_fits(const plain *p, int d, int64_t c, int64_t delta,
		      int64_t limit)
{
	int64_t level = 0;
	for (int i = 0; i < p->nmem[d]; i++) {
		int x = p->md[d * RI + i];
		if (p->mt[x] <= c)
			level += p->mdelta[x];
	}
	if (level + delta > limit)
		return 0;
	for (int i = 0; i < p->nmem[d]; i++) {
		int x = p->md[d * RI + i];
		if (p->mt[x] <= c)
			continue;
		int64_t after = 0;
		for (int k = 0; k < p->nmem[d]; k++) {
			int y = p->md[d * RI + k];
			if (p->mt[y] < p->mt[x] || (p->mt[y] == p->mt[x] && k <= i))
				after += p->mdelta[y];
		}
		if (after + delta > limit)
			return 0;
	}
	return 1;
}

/* The earliest step from which every later one fits (INT64_MAX: none). */
static int64_t plain_memory_from(const plain *p, int d, int64_t delta,
				 int64_t limit)
{
	int64_t best = INT64_MAX;
	if (plain_fits(p, d, 0, delta, limit))
		return 0;
	for (int i = 0; i < p->nmem[d]; i++) {
		int64_t c = p->mt[p->md[d * RI + i]];
		if (c < best && plain_fits(p, d, c, delta, limit))
			best = c;
	}
	return best;
}

static void plain_add(plain *p, int x, const tsl_block *B, int64_t t, int mem)
{
	p->bs[x] = t;
	p->be[x] = t + B->span;
	p->mt[x] = t;
	p->mdelta[x] = B->memory;
	for (int k = 0; k < B->ndevices; k++) {
		int d = B->devices[k];
		p->bd[d * RI + p->nbusy[d]++] = x;
		if (mem && B->memory)
			p->md[d * RI + p->nmem[d]++] = x;
	}
}

/* Serial generation the plain way: 0, or TESSEL_EINFEASIBLE. */
static int plain_sgs(int64_t *start, const tessel_graph *g, const tsl_inst *seq,
		     int count)
{
	plain p;
	memset(&p, 0, sizeof p);
	int n = g->nblocks;
	for (int i = 0; i < count; i++) {
		const tsl_block *B = &g->blocks[seq[i].gid];
		int x = (int)seq[i].mid * n + seq[i].gid;
		int64_t t = 0;
		for (int j = 0; j < B->ndeps; j++) {
			int64_t r = start[x - seq[i].gid + B->deps[j]] +
				    g->blocks[B->deps[j]].span +
				    latency_of(g, seq[i].gid, j);
			t = r > t ? r : t;
		}
		for (int k = 0; k < B->ndevices && B->memory > 0; k++) {
			int d = B->devices[k];
			if (g->memory_limit[d] == TESSEL_UNLIMITED)
				continue;
			int64_t from = plain_memory_from(&p, d, B->memory,
							 g->memory_limit[d]);
			if (from == INT64_MAX)
				return TESSEL_EINFEASIBLE;
			t = from > t ? from : t;
		}
		t = plain_window(&p, B, t);
		start[x] = t;
		plain_add(&p, x, B, t, 1);
	}
	return 0;
}

/* The backward pass the plain way (mirrored time: each memory delta,
 * negated, at the instance's mirrored finish, within the limit minus the
 * device's total of all deltas): 0, or TESSEL_EINFEASIBLE. */
static int plain_backward(int64_t *start, const tessel_graph *g,
			  const tsl_inst *seq, int count, int64_t N)
{
	plain p;
	memset(&p, 0, sizeof p);
	int n = g->nblocks;
	int64_t u[RI], horizon = 0, room[RD];
	for (int d = 0; d < g->ndevices; d++) {
		int64_t total = 0;
		for (int b = 0; b < n; b++)
			if (occupies(&g->blocks[b], d))
				total += g->blocks[b].memory * N;
		room[d] = g->memory_limit[d] == TESSEL_UNLIMITED
				  ? INT64_MAX
				  : g->memory_limit[d] - total;
	}
	for (int i = 0; i < count; i++) {
		int b = seq[i].gid, x = (int)seq[i].mid * n + b;
		const tsl_block *B = &g->blocks[b];
		int64_t t = 0;
		for (int c = 0; c < n; c++)
			for (int j = 0; j < g->blocks[c].ndeps; j++) {
				if (g->blocks[c].deps[j] != b)
					continue;
				int64_t r = u[x - b + c] + g->blocks[c].span +
					    latency_of(g, c, j);
				t = r > t ? r : t;
			}
		for (int k = 0; k < B->ndevices && B->memory < 0; k++) {
			int d = B->devices[k];
			if (room[d] == INT64_MAX)
				continue;
			int64_t from = plain_memory_from(&p, d, -B->memory, room[d]);
			if (from == INT64_MAX)
				return TESSEL_EINFEASIBLE;
			t = from - B->span > t ? from - B->span : t;
		}
		t = plain_window(&p, B, t);
		u[x] = t;
		plain_add(&p, x, B, t, 0);
		p.mt[x] = t + B->span;
		p.mdelta[x] = -B->memory;
		for (int k = 0; k < B->ndevices && B->memory; k++)
			if (room[B->devices[k]] != INT64_MAX)
				p.md[B->devices[k] * RI + p.nmem[B->devices[k]]++] = x;
		horizon = t + B->span > horizon ? t + B->span : horizon;
	}
	for (int i = 0; i < count; i++) {
		int x = (int)seq[i].mid * n + seq[i].gid;
		start[x] = horizon - u[x] - g->blocks[seq[i].gid].span;
	}
	return 0;
}

/* seq sorted by the schedule's starts (ascending) or finishes
 * (descending), ties by index: an order with dependencies first (or
 * successors first). */
static void order_by(tsl_inst *seq, const tessel_schedule *s, int by_finish)
{
	const tessel_graph *g = s->graph;
	int count = g->nblocks * (int)s->nmicros;
	int64_t key[RI];
	int idx[RI];
	for (int i = 0; i < count; i++) {
		const tsl_block *B = &g->blocks[i % g->nblocks];
		key[i] = by_finish ? -(s->entries[i].start + B->span)
				   : s->entries[i].start;
		idx[i] = i;
	}
	for (int i = 1; i < count; i++) /* insertion sort, stable */
		for (int j = i; j > 0 && key[idx[j - 1]] > key[idx[j]]; j--) {
			int t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (int i = 0; i < count; i++) {
		seq[i].gid = idx[i] % g->nblocks;
		seq[i].mid = idx[i] / g->nblocks;
	}
}

/* tsl_sgs and tsl_sgs_backward give exactly the plain passes' starts on
 * random graphs with latencies, multi-device blocks, spans of all sizes and
 * memory limits; what they make honours every latency, compaction too. */
static void test_sgs_against_plain(void **state)
{
	(void)state;
	int rounds = th_under_checker() ? 300 : 4000;
	int feasible = 0, latency_tight = 0;
	for (int r = 0; r < rounds; r++) {
		int N = 0;
		tessel_graph *g = random_graph(&N);
		int count = g->nblocks * N;
		tsl_inst seq[RI];
		int64_t want[RI];
		random_order(seq, g, N);
		tessel_schedule *s = NULL;
		TH_OK(tsl_schedule_alloc(&s, g, N));
		int rc = tsl_sgs(s, seq, (size_t)count, NULL);
		int prc = plain_sgs(want, s->graph, seq, count);
		if (rc != prc)
			fail_msg("round %d: tsl_sgs returns %d, the plain pass %d",
				 r, rc, prc);
		if (rc == TESSEL_EINFEASIBLE) {
			tessel_schedule_free(s);
			tessel_graph_free(g);
			continue;
		}
		TH_OK(rc);
		feasible++;
		for (int i = 0; i < count; i++)
			if (s->entries[i].start != want[i])
				fail_msg("round %d: entry %d at %lld, plainly %lld", r,
					 i, (long long)s->entries[i].start,
					 (long long)want[i]);
		TH_OK(tessel_schedule_validate(s));
		latency_tight += check_latencies(s) > 0;

		/* backward from this schedule: in its reverse order every
		 * instance finds a place within the memory limits */
		order_by(seq, s, 1);
		TH_OK(tsl_sgs_backward(s, seq, (size_t)count, NULL));
		TH_OK(plain_backward(want, s->graph, seq, count, N));
		for (int i = 0; i < count; i++)
			if (s->entries[i].start != want[i])
				fail_msg("round %d: backward entry %d at %lld, "
					 "plainly %lld", r, i,
					 (long long)s->entries[i].start,
					 (long long)want[i]);
		TH_OK(tessel_schedule_validate(s));
		check_latencies(s);
		/* ... and forward again in its start order */
		order_by(seq, s, 0);
		TH_OK(tsl_sgs(s, seq, (size_t)count, NULL));
		TH_OK(tessel_schedule_validate(s));

		/* compaction of that order, with and without local search */
		order_by(seq, s, 0);
		tsl_inst copy[RI];
		memcpy(copy, seq, sizeof copy);
		TH_OK(tsl_compact(s, seq, (size_t)count, 0, 0, NULL));
		check_devices(s);
		check_latencies(s);
		int64_t plain_makespan = tsl_schedule_makespan(s);
		/* ASAP: each entry starts at a dependency's finish + latency,
		 * at a device predecessor's finish, or at 0 */
		for (int i = 0; i < count; i++) {
			int b = copy[i].gid;
			const tsl_block *B = &s->graph->blocks[b];
			int64_t t = 0, at = start_of(s, b, copy[i].mid);
			for (int j = 0; j < B->ndeps; j++) {
				int64_t e = start_of(s, B->deps[j], copy[i].mid) +
					    s->graph->blocks[B->deps[j]].span +
					    latency_of(s->graph, b, j);
				t = e > t ? e : t;
			}
			for (int k = 0; k < i; k++) {
				const tsl_block *A = &s->graph->blocks[copy[k].gid];
				int64_t e = start_of(s, copy[k].gid, copy[k].mid) + A->span;
				for (int x = 0; x < B->ndevices; x++)
					if (occupies(A, B->devices[x]) && e > t)
						t = e;
			}
			assert_int_equal(at, t);
		}
		memcpy(seq, copy, sizeof copy);
		TH_OK(tsl_compact(s, seq, (size_t)count, 100000, 0, NULL));
		check_devices(s);
		check_latencies(s);
		assert_true(tsl_schedule_makespan(s) <= plain_makespan);
		tessel_schedule_free(s);
		tessel_graph_free(g);
	}
	print_message("%d of %d orders feasible, %d with a tight latency\n",
		      feasible, rounds, latency_tight);
	assert_true(feasible > rounds / 4 && latency_tight > 0);
}

/* ---- the solver's windows at both ends ---- */

/* A schedule made worse by a gap of `gap` steps before every instance
 * starting at `from` or later (still valid: every later instance moves by
 * the same amount), then re-solved window by window: valid again, and
 * back to at most the makespan before the gap. */
static void spoil_and_repair(const char *preset, int D, int64_t memory,
			     int64_t N, double where)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_preset(&g, preset, D, 0, memory));
	tessel_schedule *s = th_search(g, N, 1, 0, 1);
	int64_t before = tsl_schedule_makespan(s);
	int64_t from = (int64_t)(where * (double)before), gap = 7;
	size_t count = (size_t)s->graph->nblocks * (size_t)N;
	for (size_t i = 0; i < count; i++)
		if (s->entries[i].start >= from)
			s->entries[i].start += gap;
	TH_OK(tessel_schedule_validate(s));
	assert_int_equal(tsl_schedule_makespan(s), before + gap);
	tsl_bounds bnd;
	TH_OK(tsl_bounds_compute(&bnd, s->graph));
	tsl_opts o;
	memset(&o, 0, sizeof o);
	o.nmicros = N;
	o.threads = 1;
	/* no deadline: each check is bounded by Z3's resource count alone,
	 * so the result is the same on a slow machine or under valgrind */
	tsl_deadline dl = {tsl_now_us(), 0, 0, NULL, NULL, 0, 0, 0, 0};
	TH_OK(tsl_complete_window_z3(s, &(tsl_stage){s->graph, &bnd, &o, &dl}));
	TH_OK(tessel_schedule_validate(s));
	print_message("%s D=%d memory %lld N=%lld, gap at %.0f%%: %lld, spoilt "
		      "%lld, re-solved %lld (LB %lld)\n", preset, D,
		      (long long)memory, (long long)N, 100 * where,
		      (long long)before, (long long)(before + gap),
		      (long long)tsl_schedule_makespan(s),
		      (long long)tsl_bounds_lower(&bnd, N));
	assert_true(tsl_schedule_makespan(s) <= before);
	tsl_bounds_release(&bnd);
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

/* ---- any order of blocks ---- */

/* The placement p with its blocks listed in the order `order` (order[i]:
 * the block of p listed i-th), through the public API: spans, memory,
 * devices, stages, dependencies with their own latencies, the latency and
 * the memory limits. */
static tessel_graph *reordered(const tessel_graph *p, const int *order)
{
	int64_t nb = 0, nd = 0, lat = 0;
	TH_OK(tessel_graph_get(&nb, p, TESSEL_GRAPH_NBLOCKS));
	TH_OK(tessel_graph_get(&nd, p, TESSEL_GRAPH_NDEVICES));
	TH_OK(tessel_graph_get(&lat, p, TESSEL_GRAPH_LATENCY));
	int *at = calloc((size_t)nb, sizeof *at); /* block of p -> new id */
	assert_non_null(at);
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, (int)nd));
	TH_OK(tessel_graph_set_latency(g, (int)lat));
	for (int i = 0; i < nb; i++) {
		int b = order[i], devs[TESSEL_MAX_DEVICES];
		const char *name = NULL;
		int64_t k = th_block(p, b, TESSEL_BLOCK_NDEVICES);
		TH_OK(tessel_graph_block_name(&name, p, b));
		for (int j = 0; j < k; j++)
			TH_OK(tessel_graph_block_device(&devs[j], p, b, (size_t)j));
		TH_OK(tessel_graph_add_block(&at[b], g, name,
					     (tessel_kind)th_block(p, b, TESSEL_BLOCK_KIND),
					     (int)th_block(p, b, TESSEL_BLOCK_SPAN),
					     (int)th_block(p, b, TESSEL_BLOCK_MEMORY)));
		TH_OK(tessel_graph_place(g, at[b], devs, (size_t)k));
		int64_t stage = th_block(p, b, TESSEL_BLOCK_STAGE);
		if (stage >= 0)
			TH_OK(tessel_graph_set_stage(g, at[b], (int)stage));
	}
	for (int b = 0; b < nb; b++)
		for (int j = 0; j < th_block(p, b, TESSEL_BLOCK_NDEPS); j++) {
			int a = 0, own = 0;
			int64_t l = 0;
			TH_OK(tessel_graph_block_dep(&a, p, b, (size_t)j));
			TH_OK(tessel_graph_block_dep_latency(&l, &own, p, b, (size_t)j));
			if (own)
				TH_OK(tessel_graph_add_dep_latency(g, at[a], at[b], (int)l));
			else
				TH_OK(tessel_graph_add_dep(g, at[a], at[b]));
		}
	for (int d = 0; d < nd; d++) {
		int64_t m = 0;
		TH_OK(tessel_graph_memory_limit(&m, p, d));
		TH_OK(tessel_graph_set_memory_limit(g, d, m));
	}
	TH_OK(tessel_graph_validate(g));
	free(at);
	return g;
}

/* The solver on g alone (no heuristic's repetend to start from), within
 * `units` of work: its period, or 0 when it proved none in that work. */
static int64_t solver_period(const tessel_graph *g, int64_t nmicros, int64_t units)
{
	tsl_bounds bnd;
	TH_OK(tsl_bounds_compute(&bnd, g));
	tsl_repetend rep = {0};
	rep.T = calloc((size_t)bnd.nblocks, sizeof *rep.T);
	assert_non_null(rep.T);
	tsl_opts o;
	memset(&o, 0, sizeof o);
	o.nmicros = nmicros;
	o.minimize_depth = 1;
	o.threads = 1;
	tsl_meter m = {0};
	tsl_deadline dl = {tsl_now_us(), 0, 0, NULL, &m, units * TSL_TICKS_PER_UNIT, 0, 0, 0};
	int rc = tsl_repetend_z3(&rep, &(tsl_stage){g, &bnd, &o, &dl}, NULL, NULL, NULL, NULL);
	assert_true(rc == TESSEL_OK || rc == TESSEL_ETIMEOUT || rc == TESSEL_EINFEASIBLE);
	int64_t period = rc == TESSEL_OK && rep.optimal ? rep.period : 0;
	free(rep.T);
	tsl_bounds_release(&bnd);
	return period;
}

/* Every placement, its blocks listed forwards, backwards and shuffled:
 * the solver (forced: no heuristic first) proves the same period, and
 * the search finds the same makespan. A block listed before the block
 * it waits for crashed the solver's model once. */
static void test_any_block_order(void **state)
{
	(void)state;
	/* 5 blocks on 8 devices, one of them on four, latency 50, the source
	 * listed last */
	static const char five[] =
		"{\"devices\": 8, \"latency\": 50, \"blocks\": ["
		"{\"name\": \"a\", \"kind\": \"forward\", \"span\": 7, \"memory\": 1, \"devices\": [1], \"after\": [\"src0\"]},"
		"{\"name\": \"b\", \"kind\": \"forward\", \"span\": 5, \"memory\": 1, \"devices\": [2, 3, 4, 5], \"after\": [\"a\"]},"
		"{\"name\": \"c\", \"kind\": \"backward\", \"span\": 9, \"memory\": -1, \"devices\": [6], \"after\": [\"b\", \"src0\"]},"
		"{\"name\": \"d\", \"kind\": \"backward\", \"span\": 4, \"memory\": -1, \"devices\": [7], \"after\": [\"c\"]},"
		"{\"name\": \"src0\", \"kind\": \"forward\", \"span\": 3, \"memory\": 1, \"devices\": [0]}]}";
	static const struct {
		const char *preset; /* NULL: the JSON */
		int64_t memory, nmicros;
		const char *file;
	} cases[] = {
		{NULL, 0, 8, NULL},
		{NULL, 0, 16, "latency-1f1b.json"},
		{"vshape", 4, 16, NULL},
		{"xshape", 4, 16, NULL},
		{"mshape", 6, 16, NULL},
		{"nnshape", 6, 16, NULL},
		{"kshape", 4, 16, NULL},
	};
	int checker = th_under_checker();
	int64_t units = checker ? TH_CHECKER_WORK : 3000;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		if (checker && c > 0)
			break; /* the same code paths: the five blocks */
		tessel_graph *p = NULL;
		if (cases[c].preset)
			TH_OK(tessel_preset(&p, cases[c].preset, 4, 0, cases[c].memory));
		else if (cases[c].file)
			TH_OK(tessel_graph_from_file(&p, th_data_path(cases[c].file)));
		else
			TH_OK(tessel_graph_from_json(&p, five, sizeof five - 1));
		int64_t nb = 0;
		TH_OK(tessel_graph_get(&nb, p, TESSEL_GRAPH_NBLOCKS));
		int *order = calloc((size_t)nb, sizeof *order);
		assert_non_null(order);
		int64_t period0 = -1, makespan0 = -1;
		for (int v = 0; v < (checker ? 3 : 5); v++) {
			/* 0 as listed, 1 reversed, 2.. shuffled (a fixed LCG) */
			uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(v + 1);
			for (int i = 0; i < nb; i++)
				order[i] = v == 1 ? (int)nb - 1 - i : i;
			for (int i = (int)nb - 1; v >= 2 && i > 0; i--) {
				x = x * 6364136223846793005ull + 1442695040888963407ull;
				int j = (int)((x >> 33) % (uint64_t)(i + 1));
				int t = order[i];
				order[i] = order[j];
				order[j] = t;
			}
			tessel_graph *g = reordered(p, order);
			int64_t period = solver_period(g, cases[c].nmicros, units);
			tessel_options *o = th_options(cases[c].nmicros);
			tessel_schedule *s = NULL;
			TH_OK(tessel_search(&s, g, o));
			TH_OK(tessel_schedule_validate(s));
			int64_t ms = th_sched(s, TESSEL_SCHED_MAKESPAN);
			print_message("%s, order %d: solver period %lld, makespan %lld\n",
				      cases[c].preset ? cases[c].preset
						      : cases[c].file ? cases[c].file : "five blocks",
				      v, (long long)period, (long long)ms);
			if (v == 0) {
				period0 = period;
				makespan0 = ms;
			} else {
				if (period && period0)
					assert_int_equal(period, period0);
				assert_int_equal(ms, makespan0);
			}
			tessel_schedule_free(s);
			tessel_options_free(o);
			tessel_graph_free(g);
		}
		free(order);
		tessel_graph_free(p);
	}
}

static void test_windows_repair(void **state)
{
	(void)state;
	/* in the cool-down (the last window) and in the warm-up (the first,
	 * solved as the last of the mirror image), with memory limits */
	spoil_and_repair("vshape", 4, 4, 8, 0.9);
	/* under a slow checker, the cool-down's window only */
	if (th_under_checker())
		return;
	spoil_and_repair("vshape", 4, 4, 8, 0.05);
	spoil_and_repair("xshape", 4, 6, 6, 0.92);
	spoil_and_repair("mshape", 4, 6, 6, 0.03);
}

/* ---- the least work of a pass ---- */

/* One pass of tsl_sgs (forward) or tsl_sgs_backward over s in order seq,
 * metered with visit weight vw and a work end (0: none): its return code,
 * *charged the ticks it charged. */
static int metered_pass(int64_t *charged, tessel_schedule *s, const tsl_inst *seq,
			size_t count, int backward, int vw, int64_t work_end)
{
	tsl_meter m = {0};
	tsl_deadline dl = {tsl_now_us(), 0, 0, NULL, &m, work_end, 0, vw, 0};
	int rc = backward ? tsl_sgs_backward(s, seq, count, &dl) : tsl_sgs(s, seq, count, &dl);
	*charged = m.used;
	return rc;
}

/* tsl_sgs_pass_least_ticks is what a pass charges at least, and close to
 * it (a pass's own count of steps, on pipelines and on tensor-parallel
 * blocks that share devices, forward and backward, weighted or not); and
 * a pass begun with no more work left than that ends in TESSEL_ETIMEOUT,
 * as its contract says. */
static void test_sgs_least_work(void **state)
{
	(void)state;
	static const struct {
		const char *preset;
		int devices;
	} cases[] = {{"vshape", 8}, {"mshape", 16}, {"xshape", 16}};
	/* (fewer micro-batches leave the least work within the steps a pass
	 * may take after its last look: 0; under a slow checker, the first
	 * placement only) */
	int64_t N = 512;
	size_t ncases = th_under_checker() ? 1 : sizeof cases / sizeof cases[0];
	for (size_t c = 0; c < ncases; c++) {
		tessel_graph *g = NULL;
		TH_OK(tessel_preset(&g, cases[c].preset, cases[c].devices, 0, TESSEL_UNLIMITED));
		TH_OK(tessel_graph_set_latency(g, 1));
		size_t count = (size_t)g->nblocks * (size_t)N;
		tsl_inst *seq = calloc(count, sizeof *seq);
		assert_non_null(seq);
		tessel_schedule *s = NULL;
		TH_OK(tsl_schedule_alloc(&s, g, N));
		/* micro-batch by micro-batch, each in the order of its blocks'
		 * depths: dependencies first */
		size_t i = 0;
		for (int64_t m = 0; m < N; m++) {
			int *depth = calloc((size_t)g->nblocks, sizeof *depth);
			assert_non_null(depth);
			int deepest = 0;
			for (int changed = 1; changed;) {
				changed = 0;
				for (int b = 0; b < g->nblocks; b++)
					for (int k = 0; k < g->blocks[b].ndeps; k++)
						if (depth[g->blocks[b].deps[k]] + 1 > depth[b]) {
							depth[b] = depth[g->blocks[b].deps[k]] + 1;
							deepest = depth[b] > deepest ? depth[b] : deepest;
							changed = 1;
						}
			}
			for (int d = 0; d <= deepest; d++)
				for (int b = 0; b < g->nblocks; b++)
					if (depth[b] == d)
						seq[i++] = (tsl_inst){b, m};
			free(depth);
		}
		assert_int_equal(i, count);
		for (int backward = 0; backward < 2; backward++) {
			if (backward) { /* successors first: the forward pass's reverse */
				TH_OK(metered_pass(&(int64_t){0}, s, seq, count, 0, 0, 0));
				for (size_t x = 0; x < count / 2; x++) {
					tsl_inst t = seq[x];
					seq[x] = seq[count - 1 - x];
					seq[count - 1 - x] = t;
				}
			}
			for (int vw = 16; vw <= 40; vw += 24) {
				int64_t charged = 0, again = 0;
				tsl_meter m = {0};
				tsl_deadline dl = {0, 0, 0, NULL, &m, 0, 0, vw, 0};
				int64_t least = tsl_sgs_pass_least_ticks(g, N, &dl);
				TH_OK(metered_pass(&charged, s, seq, count, backward, vw, 0));
				print_message("%s on %d devices, %lld micro-batches, %s, weight %d/16: "
					      "charged %lld ticks, least %lld\n",
					      cases[c].preset, cases[c].devices, (long long)N,
					      backward ? "backward" : "forward", vw,
					      (long long)charged, (long long)least);
				assert_true(least > 0);
				assert_true(least <= charged);
				assert_true(least * 2 >= charged);
				/* no more left than the least: cut */
				assert_int_equal(metered_pass(&again, s, seq, count, backward, vw, least),
						 TESSEL_ETIMEOUT);
				/* restore a complete schedule for the next pass */
				if (backward)
					TH_OK(metered_pass(&again, s, seq, count, 1, vw, 0));
				else
					TH_OK(metered_pass(&again, s, seq, count, 0, vw, 0));
				assert_int_equal(again, charged);
			}
		}
		free(seq);
		tessel_schedule_free(s);
		tessel_graph_free(g);
	}
}

/* ---- deadlines on a large instance ---- */

static double seconds_since(int64_t t0)
{
	return (double)(tsl_now_us() - t0) / 1e6;
}

/* A pipeline between tensor-parallel first and last blocks on 32 devices,
 * latency 2, 4096 micro-batches (270336 entries), from the heuristic's
 * repetend; its full completion takes seconds (the plain compaction does
 * not reach LB(N) there, so the local search has work). With a deadline
 * that has already passed, tsl_complete returns at once with the plain
 * compaction of the periodic schedule (the same starts as effort 0),
 * valid and honouring every latency; with a short one it returns soon
 * after it, never worse than that. */
static void test_deadline_large(void **state)
{
	(void)state;
	int64_t N = th_under_checker() ? 64 : 4096;
	tessel_graph *g = NULL;
	TH_OK(tessel_preset(&g, "mshape", 32, 0, TESSEL_UNLIMITED));
	TH_OK(tessel_graph_set_latency(g, 2));
	tsl_bounds bnd;
	tsl_repetend rep = {0}, guide = {0};
	rep.T = tsl_calloc((size_t)g->nblocks, sizeof *rep.T);
	guide.T = tsl_calloc((size_t)g->nblocks, sizeof *guide.T);
	assert_true(rep.T && guide.T);
	TH_OK(tsl_bounds_compute(&bnd, g));
	TH_OK(tsl_repetend_heuristic(&rep, &guide, &(tsl_stage){g, &bnd, NULL, NULL}, 0, 0));
	tsl_bounds_release(&bnd);
	int64_t lb = 0;

	int64_t t0 = tsl_now_us();
	tessel_schedule *plain_s = complete(g, &rep, N, 0, NULL, &lb);
	double plain_time = seconds_since(t0);
	int64_t plain_makespan = tsl_schedule_makespan(plain_s);

	tsl_deadline past = {tsl_now_us() - 2000000, tsl_now_us() - 1000000, 0, NULL, NULL, 0, 0, 0, 0};
	t0 = tsl_now_us();
	tessel_schedule *s = complete(g, &rep, N, 5000000, &past, &lb);
	double past_time = seconds_since(t0);
	size_t count = (size_t)g->nblocks * (size_t)N;
	for (size_t i = 0; i < count; i++)
		assert_int_equal(s->entries[i].start, plain_s->entries[i].start);
	TH_OK(tessel_schedule_validate(s));
	check_latencies(s);
	tessel_schedule_free(s);

	tsl_deadline soon = {tsl_now_us(), tsl_now_us() + 100000, 0, NULL, NULL, 0, 0, 0, 0};
	t0 = tsl_now_us();
	s = complete(g, &rep, N, 5000000, &soon, &lb);
	double soon_time = seconds_since(t0);
	TH_OK(tessel_schedule_validate(s));
	check_latencies(s);
	assert_true(tsl_schedule_makespan(s) <= plain_makespan);
	assert_true(tsl_schedule_makespan(s) >= lb);
	print_message("plain completion %.3f s, past deadline %.3f s, "
		      "deadline 0.1 s: %.3f s; makespan %lld (plain %lld, LB %lld)\n",
		      plain_time, past_time, soon_time,
		      (long long)tsl_schedule_makespan(s),
		      (long long)plain_makespan, (long long)lb);
	/* generous: the plain pass (and the sorts and checks around it)
	 * again after the deadline */
	if (!th_under_checker()) {
		assert_true(past_time < 3 * plain_time + 0.5);
		assert_true(soon_time < 0.1 + 3 * plain_time + 0.5);
	}
	tessel_schedule_free(s);
	tessel_schedule_free(plain_s);
	tsl_repetend_release(&rep);
	tsl_repetend_release(&guide);
	tessel_graph_free(g);
}

/* The free time of the serial generation (lib/complete/complete_gaps.c) against a
 * plain model, one flag per step of a horizon: random takes (inside one
 * gap, across several, over time already taken), each followed by
 * earliest-fit looks at every time and a few spans, and the last start.
 * Enough gaps to split chunks of the set and to empty some again. */
#define GAP_HORIZON 60000

static int64_t model_earliest(const char *busy, int64_t t, int64_t span)
{
	for (int64_t x = t;; x++) {
		if (span == 0) { /* a free step (a zero span starts in a gap) */
			if (x >= GAP_HORIZON || !busy[x])
				return x;
			continue;
		}
		int64_t k = 0;
		while (k < span && (x + k >= GAP_HORIZON || !busy[x + k]))
			k++;
		if (k == span)
			return x;
	}
}

static void test_gapset_against_model(void **state)
{
	(void)state;
	char *busy = calloc(GAP_HORIZON, 1);
	assert_non_null(busy);
	tsl_gapset gs;
	assert_int_equal(tsl_gapset_init(&gs), 0);
	uint64_t rng = 12345;
	int most = 0;
	for (int round = 0; round < 24000; round++) {
		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		int64_t s = (int64_t)((rng >> 33) % (GAP_HORIZON - 400));
		/* short takes first (many gaps, chunks split), then long
		 * ones (gaps and chunks go) */
		int64_t len = round < 20000 ? 1 + (int64_t)((rng >> 13) % 2)
					    : 20 + (int64_t)((rng >> 13) % 200);
		assert_int_equal(tsl_gapset_take(&gs, s, s + len), 0);
		for (int64_t x = s; x < s + len; x++)
			busy[x] = 1;
		if (gs.nchunks > most)
			most = gs.nchunks;
		if (round % 4000 != 3999)
			continue;
		for (int64_t t = round % 11; t < GAP_HORIZON; t += 11)
			for (int64_t span = 0; span <= 4; span++)
				assert_int_equal(tsl_gapset_earliest(&gs, t, span),
						 model_earliest(busy, t, span));
		int64_t last = GAP_HORIZON;
		while (last > 0 && !busy[last - 1])
			last--;
		assert_int_equal(tsl_gapset_last(&gs), last);
	}
	/* the chunks were split, and some went again */
	assert_true(most > 50);
	assert_true(gs.nchunks < most);
	tsl_gapset_release(&gs);
	free(busy);
}

/* ---- a V pipeline's rounds (complete_vshape.c) ---- */

/* A V pipeline of p devices as the Zero Bubble authors' V scheduler takes
 * it: stages 0 .. 2p-1, forward s on device s for s < p and 2p-1-s after,
 * the backwards back, a weight block after each backward; spans 10, 10, 7
 * (first stage x1.1, last x1.3 when uneven), memory +5, -3, -2; at most
 * `room` forwards' memory per device (0: no limit). extra: one more
 * dependency (w0 also after f1), which no V pipeline has. */
static tessel_graph *vpipe_mem(int p, int lat, int uneven, int64_t room,
			       int extra, const int *mem)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, p));
	int S = 2 * p;
	static const char kinds[] = "fbw";
	static const int span[] = {10, 10, 7};
	for (int k = 0; k < 3; k++)
		for (int s = 0; s < S; s++) {
			char name[16];
			int gid = 0, dev = s < p ? s : S - 1 - s;
			int sp = span[k];
			if (uneven && s == 0)
				sp = sp * 11 / 10;
			if (uneven && s == S - 1)
				sp = sp * 13 / 10;
			snprintf(name, sizeof name, "%c%d", kinds[k], s);
			TH_OK(tessel_graph_add_block(&gid, g, name, (tessel_kind)k, sp, mem[k]));
			TH_OK(tessel_graph_place(g, gid, &dev, 1));
		}
	for (int s = 0; s < S; s++) {
		if (s > 0)
			TH_OK(tessel_graph_add_dep(g, s - 1, s));
		TH_OK(tessel_graph_add_dep(g, s == S - 1 ? s : S + s + 1, S + s));
		TH_OK(tessel_graph_add_dep(g, S + s, 2 * S + s));
	}
	if (extra)
		TH_OK(tessel_graph_add_dep(g, 1, 2 * S));
	TH_OK(tessel_graph_set_latency(g, lat));
	if (room)
		TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, room * 5));
	return g;
}

static tessel_graph *vpipe(int p, int lat, int uneven, int64_t room, int extra)
{
	static const int mem[] = {5, -3, -2};
	return vpipe_mem(p, lat, uneven, room, extra, mem);
}

/* The rounds of the even pipeline (every block of a kind at the kind's
 * span, as that scheduler takes one cost a kind) started as early as
 * their orders allow on the uneven one g: the makespan. */
static int64_t rounds_of_on(const tessel_graph *e, const tessel_graph *g, int64_t N);

static int64_t even_rounds_on(const tessel_graph *g, int p, int lat, int64_t room,
			      int64_t N)
{
	tessel_graph *e = vpipe(p, lat, 0, room, 0);
	int64_t ms = rounds_of_on(e, g, N);
	tessel_graph_free(e);
	return ms;
}

/* The rounds of the V pipeline e started as early as their orders allow
 * on g (the same pipeline with other spans): the makespan. */
static int64_t rounds_of_on(const tessel_graph *e, const tessel_graph *g, int64_t N)
{
	tessel_schedule *es = NULL, *s = NULL;
	int found = 0;
	TH_OK(tsl_schedule_alloc(&es, e, N));
	TH_OK(tsl_vshape_schedule(es, &found, NULL));
	assert_int_equal(found, 1);
	/* the instances by their starts there: each device's order, and
	 * every dependency before what waits for it (spans > 0) */
	size_t count = (size_t)e->nblocks * (size_t)N, n = 0;
	tsl_inst *seq = calloc(count, sizeof *seq);
	assert_non_null(seq);
	for (int64_t m = 0; m < N; m++)
		for (int b = 0; b < e->nblocks; b++) {
			seq[n].gid = b;
			seq[n].mid = m;
			n++;
		}
	for (size_t i = 1; i < count; i++) /* (insertion: a few hundred) */
		for (size_t j = i; j > 0; j--) {
			const tessel_entry *x = &es->entries[seq[j - 1].mid * e->nblocks + seq[j - 1].gid];
			const tessel_entry *y = &es->entries[seq[j].mid * e->nblocks + seq[j].gid];
			if (x->start <= y->start)
				break;
			tsl_inst t = seq[j];
			seq[j] = seq[j - 1];
			seq[j - 1] = t;
		}
	TH_OK(tsl_schedule_alloc(&s, g, N));
	TH_OK(tsl_compact(s, seq, count, 0, 0, NULL));
	TH_OK(tsl_schedule_check(s, NULL));
	int64_t ms = tsl_schedule_makespan(s);
	free(seq);
	tessel_schedule_free(s);
	tessel_schedule_free(es);
	return ms;
}

/* A V pipeline as vpipe's, each block's span given: span[k * 2p + s] for
 * kind k (forward, backward, weight) of stage s. */
static tessel_graph *vpipe_spans(int p, int lat, int64_t room, const int *span)
{
	tessel_graph *g = vpipe(p, lat, 0, room, 0);
	tessel_graph *h = NULL;
	/* (vpipe adds the blocks kind by kind, stage by stage) */
	TH_OK(tessel_graph_new(&h, p));
	for (int b = 0; b < g->nblocks; b++) {
		int gid = 0;
		const tsl_block *B = &g->blocks[b];
		TH_OK(tessel_graph_add_block(&gid, h, B->name, B->kind, span[b], B->memory));
		TH_OK(tessel_graph_place(h, gid, B->devices, 1));
	}
	for (int b = 0; b < g->nblocks; b++)
		for (int d = 0; d < g->blocks[b].ndeps; d++)
			TH_OK(tessel_graph_add_dep(h, g->blocks[b].deps[d], b));
	TH_OK(tessel_graph_set_latency(h, lat));
	if (room)
		TH_OK(tessel_graph_set_memory_limit(h, TESSEL_ALL_DEVICES, room * 5));
	tessel_graph_free(g);
	return h;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

/* Profiled V pipelines (every stage's spans its own, within 15 % of
 * 100, 100 and 70): the rounds are never longer than those of the same
 * pipeline with one cost a kind, as that scheduler takes them, started
 * on the own spans: the kind's median, its mean, or the upper middle of
 * the devices' means (what the authors' runtime gives it). */
static void test_vshape_views(void **state)
{
	(void)state;
	int checker = th_under_checker();
	int done = 0, shorter = 0;
	uint32_t rng = 12345;
	for (int p = 2; p <= (checker ? 4 : 8); p *= 2)
		for (int lat = 0; lat <= 30; lat += 15)
			for (int r = 0; r < 2; r++)
				for (int rep = 0; rep < (checker ? 1 : 4); rep++) {
					int S = 2 * p, span[3 * 16], even[3][3 * 16];
					static const int base[] = {100, 100, 70};
					for (int k = 0; k < 3; k++)
						for (int t = 0; t < S; t++) {
							rng = rng * 1103515245u + 12345u;
							int pct = 85 + (int)((rng >> 16) % 31);
							span[k * S + t] = base[k] * pct / 100;
						}
					for (int k = 0; k < 3; k++) {
						int x[16], dm[8];
						long sum = 0;
						for (int t = 0; t < S; t++) {
							x[t] = span[k * S + t];
							sum += x[t];
						}
						for (int d = 0; d < p; d++)
							dm[d] = (span[k * S + d] + span[k * S + S - 1 - d] + 1) / 2;
						qsort(x, (size_t)S, sizeof *x, cmp_int);
						qsort(dm, (size_t)p, sizeof *dm, cmp_int);
						int v[3] = {x[(S - 1) / 2], (int)((2 * sum + S) / (2 * S)), dm[p / 2]};
						for (int w = 0; w < 3; w++)
							for (int t = 0; t < S; t++)
								even[w][k * S + t] = v[w];
					}
					int64_t room = r == 0 ? 2 * p : 3 * p, N = 2 * p * (1 + r);
					tessel_graph *g = vpipe_spans(p, lat, room, span);
					tessel_schedule *s = NULL;
					int found = 0;
					TH_OK(tsl_schedule_alloc(&s, g, N));
					TH_OK(tsl_vshape_schedule(s, &found, NULL));
					assert_int_equal(found, 1);
					TH_OK(tsl_schedule_check(s, NULL));
					int64_t ms = tsl_schedule_makespan(s), least = INT64_MAX;
					for (int w = 0; w < 3; w++) {
						tessel_graph *e = vpipe_spans(p, lat, room, even[w]);
						int64_t em = rounds_of_on(e, g, N);
						if (ms > em)
							fail_msg("V p=%d latency %d room %lld N=%lld: %lld steps, "
								 "the rounds of view %d %lld",
								 p, lat, (long long)room, (long long)N,
								 (long long)ms, w, (long long)em);
						least = em < least ? em : least;
						tessel_graph_free(e);
					}
					shorter += ms < least;
					tessel_schedule_free(s);
					tessel_graph_free(g);
					done++;
				}
	assert_true(done > 0);
	print_message("profiled V pipelines: %d of %d shorter than every view's rounds\n",
		      shorter, done);
}

/* Its rounds on a V pipeline, validated, in any order of blocks; none on
 * other placements. On uneven stages, never longer than the rounds of
 * the even pipeline started on the uneven spans (what that scheduler,
 * one cost a kind, gives there). */
static void test_vshape_rounds(void **state)
{
	(void)state;
	int checker = th_under_checker();
	int done = 0, shorter = 0;
	for (int p = 2; p <= (checker ? 4 : 8); p *= 2)
		for (int lat = 0; lat <= 30; lat += 6)
			for (int uneven = 0; uneven < 2; uneven++)
				for (int r = 0; r < 3; r++) {
					if (checker && (lat % 30 || uneven))
						continue;
					int64_t room = r == 0 ? 2 * p : r == 1 ? 3 * p : 0;
					int64_t N = 2 * p * (1 + r);
					tessel_graph *g = vpipe(p, lat, uneven, room, 0);
					tessel_schedule *s = NULL;
					int found = 0;
					TH_OK(tsl_schedule_alloc(&s, g, N));
					TH_OK(tsl_vshape_schedule(s, &found, NULL));
					assert_int_equal(found, 1);
					TH_OK(tsl_schedule_check(s, NULL));
					check_latencies(s);
					int64_t ms = tsl_schedule_makespan(s);
					/* each device's work at least */
					assert_true(ms >= N * 27 * 2);
					if (uneven) {
						int64_t even = even_rounds_on(g, p, lat, room, N);
						if (ms > even)
							fail_msg("V p=%d latency %d room %lld N=%lld: "
								 "%lld steps, the even rounds %lld",
								 p, lat, (long long)room, (long long)N,
								 (long long)ms, (long long)even);
						shorter += ms < even;
					}
					/* the blocks listed backwards: the same */
					int nb = 6 * p, order[6 * 8];
					for (int i = 0; i < nb; i++)
						order[i] = nb - 1 - i;
					tessel_graph *h = reordered(g, order);
					tessel_schedule *t = NULL;
					TH_OK(tsl_schedule_alloc(&t, h, N));
					TH_OK(tsl_vshape_schedule(t, &found, NULL));
					assert_int_equal(found, 1);
					assert_int_equal(tsl_schedule_makespan(t), ms);
					tessel_schedule_free(t);
					tessel_graph_free(h);
					tessel_schedule_free(s);
					tessel_graph_free(g);
					done++;
				}
	assert_true(done > 0);
	print_message("V pipelines, uneven: %d shorter than the even rounds\n", shorter);
	/* many devices and few micro-batches; and unusual memory deltas
	 * (the backward adds, the forward frees): placed or not, never a
	 * schedule that breaks a rule */
	for (int c = 0; c < 2; c++) {
		int p = c == 0 ? (checker ? 64 : 512) : 4;
		static const int odd[] = {-1, 4, -3};
		tessel_graph *g = c == 0 ? vpipe(p, 6, 1, 2 * p, 0)
					 : vpipe_mem(p, 6, 1, 3, 0, odd);
		tessel_schedule *s = NULL;
		int found = 0;
		TH_OK(tsl_schedule_alloc(&s, g, c == 0 ? 2 : 16));
		TH_OK(tsl_vshape_schedule(s, &found, NULL));
		print_message("V pipeline, case %d: %s\n", c, found ? "placed" : "none");
		if (found)
			TH_OK(tsl_schedule_check(s, NULL));
		tessel_schedule_free(s);
		tessel_graph_free(g);
	}
	/* not a V pipeline: an extra dependency, one stage per device, a
	 * memory limit too small for the rounds */
	tessel_graph *gs[] = {vpipe(4, 6, 0, 8, 1), pipeline(4, 6, 8), vpipe(4, 6, 0, 1, 0)};
	for (size_t i = 0; i < sizeof gs / sizeof gs[0]; i++) {
		tessel_schedule *s = NULL;
		int found = 1;
		TH_OK(tsl_schedule_alloc(&s, gs[i], 16));
		TH_OK(tsl_vshape_schedule(s, &found, NULL));
		assert_int_equal(found, 0);
		tessel_schedule_free(s);
		tessel_graph_free(gs[i]);
	}
}

/* tsl_list_top: the shortest list schedule in s (the one tsl_list_best
 * gives), the next ones of other makespans in more, longer each than the
 * one before, each within the rules (memory limits, dependencies). */
static void test_list_top(void **state)
{
	(void)state;
	tessel_graph *gs[] = {vpipe(4, 6, 1, 8, 0), vpipe(4, 0, 0, 12, 0),
			      pipeline(4, 6, 3), pipeline(4, 0, TESSEL_UNLIMITED)};
	int with_more = 0;
	for (size_t c = 0; c < sizeof gs / sizeof gs[0]; c++) {
		tsl_bounds bnd;
		TH_OK(tsl_bounds_compute(&bnd, gs[c]));
		for (int fast = 0; fast < 2; fast++) {
			tsl_opts o = {.fast = fast};
			tsl_stage st = {gs[c], &bnd, &o, NULL};
			tessel_schedule *s = NULL, *b = NULL, *t = NULL;
			int64_t *more[TSL_LIST_MORE];
			int found = 0, found_b = 0, nmore = -1;
			TH_OK(tsl_schedule_alloc(&s, gs[c], 16));
			TH_OK(tsl_schedule_alloc(&b, gs[c], 16));
			TH_OK(tsl_list_top(s, &found, &st, more, &nmore));
			TH_OK(tsl_list_best(b, &found_b, &st));
			assert_int_equal(found, 1);
			assert_int_equal(found_b, 1);
			TH_OK(tsl_schedule_check(s, NULL));
			int64_t prev = tsl_schedule_makespan(s);
			assert_int_equal(prev, tsl_schedule_makespan(b));
			assert_true(nmore >= 0 && nmore <= TSL_LIST_MORE);
			with_more += nmore > 0;
			size_t count = (size_t)gs[c]->nblocks * 16;
			for (int i = 0; i < nmore; i++) {
				TH_OK(tsl_schedule_copy(&t, s));
				for (size_t j = 0; j < count; j++)
					t->entries[j].start = more[i][j];
				TH_OK(tsl_schedule_check(t, NULL));
				assert_true(tsl_schedule_makespan(t) > prev);
				prev = tsl_schedule_makespan(t);
				tessel_schedule_free(t);
				t = NULL;
				tsl_free(more[i]);
			}
			tessel_schedule_free(s);
			tessel_schedule_free(b);
		}
		tsl_bounds_release(&bnd);
		tessel_graph_free(gs[c]);
	}
	assert_true(with_more > 0);
}

/* One stage per device with forward, backward and weight blocks (the Zero
 * Bubble authors' H form): F 156 steps, B 271, W 197, latency 60, memory
 * for all 16 micro-batches on 8 devices. The lower bound (device 0: its
 * forwards, the wait for the first backward to come back, then its
 * backward and weight blocks without a gap) is reached only when no
 * device starts a forward just before a backward arrives: the backward
 * pass, held up by a forward on each device, comes back late. The rule
 * that keeps forwards for the gaps reaches it; every other rule of the
 * table ends later. */
static void test_list_forward_in_gaps(void **state)
{
	(void)state;
	const int D = 8, N = 16;
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, D));
	static const tessel_kind kinds[3] = {TESSEL_KIND_FORWARD, TESSEL_KIND_BACKWARD,
					     TESSEL_KIND_WEIGHT};
	static const int64_t span[3] = {156, 271, 197}, mem[3] = {7, -4, -3};
	for (int k = 0; k < 3; k++)
		for (int d = 0; d < D; d++) {
			char name[16];
			int id = 0;
			snprintf(name, sizeof name, "%c%d", "fbw"[k], d);
			TH_OK(tessel_graph_add_block(&id, g, name, kinds[k], span[k], mem[k]));
			TH_OK(tessel_graph_place(g, id, &d, 1));
		}
	/* f_d is block d, b_d block D + d, w_d block 2D + d */
	for (int d = 0; d < D; d++) {
		if (d > 0)
			TH_OK(tessel_graph_add_dep(g, d - 1, d));
		TH_OK(tessel_graph_add_dep(g, d == D - 1 ? d : D + d + 1, D + d));
		TH_OK(tessel_graph_add_dep(g, D + d, 2 * D + d));
	}
	TH_OK(tessel_graph_set_latency(g, 60));
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, 7 * N));
	tsl_bounds bnd;
	TH_OK(tsl_bounds_compute(&bnd, g));
	int64_t lb = tsl_bounds_lower(&bnd, N);
	tsl_stage st = {g, &bnd, NULL, NULL};
	tessel_schedule *s = NULL;
	TH_OK(tsl_schedule_alloc(&s, g, N));
	int in_gaps = 0;
	for (int r = 0; r < TSL_LIST_NRULES; r++) {
		TH_OK(tsl_list_schedule(s, &st, &tsl_list_rules[r]));
		TH_OK(tsl_schedule_check(s, NULL));
		int64_t ms = tsl_schedule_makespan(s);
		assert_true(ms >= lb);
		if (tsl_list_rules[r].forward_in_gaps) {
			in_gaps++;
			assert_int_equal(ms, lb);
		} else {
			assert_true(ms > lb);
		}
	}
	assert_true(in_gaps > 0);
	int found = 0;
	TH_OK(tsl_list_best(s, &found, &st));
	assert_int_equal(found, 1);
	assert_int_equal(tsl_schedule_makespan(s), lb);
	tessel_schedule_free(s);
	tsl_bounds_release(&bnd);
	tessel_graph_free(g);
}

/* A pipeline of D = 10 devices, forward, backward and weight blocks per
 * device, with a block on every device (wide: more than TSL_LIST_WIDE)
 * between the passes; every span and the latency times `scale`. */
static tessel_graph *wide_pipeline(int64_t scale)
{
	enum { D = 10 };
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, D));
	static const tessel_kind kinds[3] = {TESSEL_KIND_FORWARD, TESSEL_KIND_BACKWARD,
					     TESSEL_KIND_WEIGHT};
	static const int64_t span[3] = {156, 271, 197}, mem[3] = {7, -4, -3};
	for (int k = 0; k < 3; k++)
		for (int d = 0; d < D; d++) {
			char name[16];
			int id = 0;
			snprintf(name, sizeof name, "%c%d", "fbw"[k], d);
			TH_OK(tessel_graph_add_block(&id, g, name, kinds[k],
						     span[k] * scale, mem[k]));
			TH_OK(tessel_graph_place(g, id, &d, 1));
		}
	int x = 0, all[D];
	for (int d = 0; d < D; d++)
		all[d] = d;
	TH_OK(tessel_graph_add_block(&x, g, "x", TESSEL_KIND_FORWARD, 50 * scale, 0));
	TH_OK(tessel_graph_place(g, x, all, D));
	for (int d = 0; d < D; d++) {
		if (d > 0)
			TH_OK(tessel_graph_add_dep(g, d - 1, d));
		TH_OK(tessel_graph_add_dep(g, d == D - 1 ? x : D + d + 1, D + d));
		TH_OK(tessel_graph_add_dep(g, D + d, 2 * D + d));
	}
	TH_OK(tessel_graph_add_dep(g, D - 1, x));
	TH_OK(tessel_graph_set_latency(g, 60 * scale));
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, 40));
	return g;
}

/* List scheduling keeps its events in a ring of time buckets when spans
 * and latencies are short, in a heap when they are long: the same
 * placement with every time 1,000 times longer (spans of 156,000 steps
 * and more, past the ring) must give every rule the same decisions, so
 * each start 1,000 times later. */
static void test_list_events_ring_and_heap(void **state)
{
	(void)state;
	enum { N = 12 };
	tessel_graph *g1 = wide_pipeline(1), *gk = wide_pipeline(1000);
	tsl_bounds b1, bk;
	TH_OK(tsl_bounds_compute(&b1, g1));
	TH_OK(tsl_bounds_compute(&bk, gk));
	tsl_stage st1 = {g1, &b1, NULL, NULL}, stk = {gk, &bk, NULL, NULL};
	tessel_schedule *s1 = NULL, *sk = NULL;
	TH_OK(tsl_schedule_alloc(&s1, g1, N));
	TH_OK(tsl_schedule_alloc(&sk, gk, N));
	size_t n = (size_t)g1->nblocks * N;
	int ran = 0;
	for (int r = 0; r < TSL_LIST_NRULES; r++) {
		int rc1 = tsl_list_schedule(s1, &st1, &tsl_list_rules[r]);
		int rck = tsl_list_schedule(sk, &stk, &tsl_list_rules[r]);
		assert_int_equal(rc1, rck);
		if (rc1)
			continue;
		ran++;
		TH_OK(tsl_schedule_check(s1, NULL));
		TH_OK(tsl_schedule_check(sk, NULL));
		for (size_t i = 0; i < n; i++)
			assert_true(sk->entries[i].start == 1000 * s1->entries[i].start);
	}
	assert_true(ran > 0);
	tessel_schedule_free(s1);
	tessel_schedule_free(sk);
	tsl_bounds_release(&b1);
	tsl_bounds_release(&bk);
	tessel_graph_free(g1);
	tessel_graph_free(gk);
}

/* An H pipeline (one stage per device, forward, backward and weight
 * blocks, stage d on device d) of D devices: F/B/W spans `mid` on the
 * inner stages, `end` on the first and last; memory +6, -5, -1; latency
 * lat; every device's limit `limit`. Blocks f_d = d, b_d = D + d,
 * w_d = 2D + d. */
static tessel_graph *hpipe(int D, const int end[3], const int mid[3], int lat,
			   int64_t limit)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, D));
	static const tessel_kind kinds[3] = {TESSEL_KIND_FORWARD, TESSEL_KIND_BACKWARD,
					     TESSEL_KIND_WEIGHT};
	static const int mem[3] = {6, -5, -1};
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
	TH_OK(tessel_graph_set_latency(g, lat));
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, limit));
	return g;
}

/* tsl_hshape_schedule: the Zero Bubble authors' greedy on an H pipeline.
 * 32 devices, heavier first and last stages, memory for 32 forwards (the
 * 1F1B budget), 192 micro-batches: the greedy's warm-up and its weight
 * blocks put off reach the lower bound (both end devices busy without a
 * gap), which no list rule reaches. Its schedule passes the validator;
 * the blocks listed in another order give the same; a graph that is no
 * H pipeline gives none. */
static void test_hshape_greedy(void **state)
{
	(void)state;
	static const int end[3] = {354, 451, 481}, mid[3] = {272, 347, 370};
	const int D = 32;
	const int64_t N = 192;
	tessel_graph *g = hpipe(D, end, mid, 5, 6 * D);
	tsl_bounds bnd;
	TH_OK(tsl_bounds_compute(&bnd, g));
	int64_t lb = tsl_bounds_lower(&bnd, N);
	tessel_schedule *s = NULL;
	int found = 0;
	TH_OK(tsl_schedule_alloc(&s, g, N));
	TH_OK(tsl_hshape_schedule(s, &found, NULL));
	assert_int_equal(found, 1);
	TH_OK(tsl_schedule_check(s, NULL));
	check_latencies(s);
	assert_int_equal(tsl_schedule_makespan(s), lb);
	/* the list rules alone end later */
	tsl_stage st = {g, &bnd, NULL, NULL};
	tessel_schedule *t = NULL;
	TH_OK(tsl_schedule_alloc(&t, g, N));
	for (int r = 0; r < TSL_LIST_NRULES; r++) {
		int rc = tsl_list_schedule(t, &st, &tsl_list_rules[r]);
		if (rc == TESSEL_EINFEASIBLE)
			continue;
		TH_OK(rc);
		assert_true(tsl_schedule_makespan(t) > lb);
	}
	tessel_schedule_free(t);
	/* the blocks listed backwards: the same */
	int nb = 3 * D, order[3 * 32];
	for (int i = 0; i < nb; i++)
		order[i] = nb - 1 - i;
	tessel_graph *h = reordered(g, order);
	TH_OK(tsl_schedule_alloc(&t, h, N));
	TH_OK(tsl_hshape_schedule(t, &found, NULL));
	assert_int_equal(found, 1);
	assert_int_equal(tsl_schedule_makespan(t), lb);
	tessel_schedule_free(t);
	tessel_graph_free(h);
	tessel_schedule_free(s);
	tsl_bounds_release(&bnd);
	tessel_graph_free(g);
	/* memory too tight for even the first forwards: none; no H
	 * pipeline (a V pipeline, one without weight blocks): none */
	tessel_graph *gs[] = {hpipe(4, end, mid, 5, 5), vpipe(4, 6, 0, 8, 0),
			      pipeline(4, 6, 8)};
	for (size_t i = 0; i < sizeof gs / sizeof gs[0]; i++) {
		found = 1;
		TH_OK(tsl_schedule_alloc(&s, gs[i], 16));
		TH_OK(tsl_hshape_schedule(s, &found, NULL));
		assert_int_equal(found, 0);
		tessel_schedule_free(s);
		tessel_graph_free(gs[i]);
	}
}

/* The retiming in order waits for the end of a reload, not only its
 * start (where the device's memory moves): one device, f (2 steps,
 * memory 4, an offload of 2 steps declared) and its backward b (4
 * steps), memory 4; f 0..2, offload 2..4, reload 4..6, b 6..10 is valid
 * and as early as it can be: retimed, b stays at 6 (at 4 it would start
 * before its activation is back). */
static void test_retime_waits_for_reload(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	int f = -1, b = -1, dev = 0;
	TH_OK(tessel_graph_new(&g, 1));
	TH_OK(tessel_graph_add_block(&f, g, "f", TESSEL_KIND_FORWARD, 2, 4));
	TH_OK(tessel_graph_add_block(&b, g, "b", TESSEL_KIND_BACKWARD, 4, -4));
	TH_OK(tessel_graph_place(g, f, &dev, 1));
	TH_OK(tessel_graph_place(g, b, &dev, 1));
	TH_OK(tessel_graph_add_dep(g, f, b));
	TH_OK(tessel_graph_set_offload(g, f, b, 4, 2));
	TH_OK(tessel_graph_set_memory_limit(g, 0, 4));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 1));
	TH_OK(tessel_schedule_set_step(s, f, 0, 0));
	TH_OK(tessel_schedule_set_step(s, b, 0, 6));
	TH_OK(tessel_schedule_set_choice(s, f, 0, TESSEL_CHOICE_OFFLOAD, 2, 4));
	TH_OK(tessel_schedule_validate(s));
	TH_OK(tsl_retime_in_order(s));
	TH_OK(tessel_schedule_validate(s));
	assert_int_equal(tsl_entry_at(s, b, 0)->start, 6);
	assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 10);
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipeline_latency),
		cmocka_unit_test(test_sgs_against_plain),
		cmocka_unit_test(test_sgs_least_work),
		cmocka_unit_test(test_gapset_against_model),
		cmocka_unit_test(test_windows_repair),
		cmocka_unit_test(test_any_block_order),
		cmocka_unit_test(test_deadline_large),
		cmocka_unit_test(test_vshape_rounds),
		cmocka_unit_test(test_vshape_views),
		cmocka_unit_test(test_list_top),
		cmocka_unit_test(test_list_forward_in_gaps),
		cmocka_unit_test(test_list_events_ring_and_heap),
		cmocka_unit_test(test_hshape_greedy),
		cmocka_unit_test(test_retime_waits_for_reload),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
