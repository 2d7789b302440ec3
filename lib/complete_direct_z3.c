/* Direct scheduling of all N micro-batches with Z3, for small instances:
 * one start per (block, micro-batch), each at least its dependencies'
 * finish plus their latency (tsl_dep_latency), one ordering literal per
 * pair of instances sharing a device, memory after each positive start as
 * the sum of the deltas ordered before it, and the makespan lowered step
 * by step below a known schedule's. Where a steady state hardly exists
 * (small N), this can beat any completed repetend. Nothing is tried past
 * the deadline; every check stops at it with the best schedule so far. */
#include <stdlib.h>
#include <string.h>
#include <z3.h>

#include "complete_direct_z3.h"
#include "error.h"
#include "options.h"
#include "stage.h"
#include "solver.h"
#include "util.h"

/* encode(): Z3 could not build the model (it failed, or a cancel request
 * interrupted it); the direct attempt, an optional improvement, is left
 * out and the schedule kept. */
#define TSL_DIRECT_SKIP 1

/* Work bound (Z3 resource units) of each step. */
#define TSL_DIRECT_RLIMIT 500000u
/* Largest problems tried: instances and device-sharing pairs. */
#define TSL_DIRECT_MAX_INSTANCES 160
#define TSL_DIRECT_MAX_PAIRS 8000
/* ... and micro-batches: beyond, the steady state dominates. */
#define TSL_DIRECT_MAX_MICROS 8

typedef struct dmodel {
	tsl_z3 z;
	Z3_ast *start; /* per entry index */
	Z3_ast makespan;
} dmodel;

/* Every start (first: a block may depend on one listed after it), its
 * head, its finish plus tail before the makespan, its dependencies, and
 * the micro-batches numbered in the order their first block starts
 * (they are interchangeable). */
static void encode_starts(dmodel *m, const tessel_schedule *s, const tsl_bounds *bnd)
{
	const tessel_graph *g = s->graph;
	size_t E = (size_t)g->nblocks * (size_t)s->nmicros;
	m->makespan = Z3_mk_const(m->z.ctx, Z3_mk_string_symbol(m->z.ctx, "M"), m->z.isort);
	for (size_t i = 0; i < E; i++)
		m->start[i] = Z3_mk_const(m->z.ctx, Z3_mk_int_symbol(m->z.ctx, (int)i),
					  m->z.isort);
	for (size_t i = 0; i < E; i++) {
		int b = (int)(i % (size_t)g->nblocks);
		const tsl_block *B = &g->blocks[b];
		tsl_z3_assert_le(&m->z, tsl_z3_int(&m->z, bnd->head[b]), m->start[i]);
		tsl_z3_assert_le(&m->z, tsl_z3_add_int(&m->z, m->start[i], B->span + bnd->tail[b]), m->makespan);
		size_t base = i - (size_t)b;
		for (int k = 0; k < B->ndeps; k++)
			tsl_z3_assert_le(&m->z, tsl_z3_add_int(&m->z, m->start[base + (size_t)B->deps[k]],
				   tsl_dep_gap(g, B, k)), m->start[i]);
	}
	int first = bnd->topo[0];
	for (int64_t mb = 0; mb + 1 < s->nmicros; mb++)
		tsl_z3_assert_le(&m->z, tsl_z3_add_int(&m->z, m->start[(size_t)mb * g->nblocks + first],
			   g->blocks[first].span),
		   m->start[(size_t)(mb + 1) * g->nblocks + first]);
}

/* A literal per pair of entries sharing a device (before[k]: the first
 * ends before the second starts, else the other way round). */
static void encode_pairs(dmodel *m, const tessel_schedule *s, const int *pairs,
			 size_t npairs, Z3_ast *before)
{
	const tessel_graph *g = s->graph;
	size_t E = (size_t)g->nblocks * (size_t)s->nmicros;
	for (size_t k = 0; k < npairs; k++) {
		int i = pairs[2 * k], j = pairs[2 * k + 1];
		const tsl_block *A = &g->blocks[i % g->nblocks];
		const tsl_block *B = &g->blocks[j % g->nblocks];
		before[k] = Z3_mk_const(m->z.ctx, Z3_mk_int_symbol(m->z.ctx, (int)(E + k)),
					Z3_mk_bool_sort(m->z.ctx));
		tsl_z3_assert(&m->z, Z3_mk_implies(m->z.ctx, before[k],
			Z3_mk_le(m->z.ctx, tsl_z3_add_int(&m->z, m->start[i], A->span), m->start[j])));
		tsl_z3_assert(&m->z, Z3_mk_implies(m->z.ctx,
			Z3_mk_not(m->z.ctx, before[k]),
			Z3_mk_le(m->z.ctx, tsl_z3_add_int(&m->z, m->start[j], B->span), m->start[i])));
	}
}

/* Memory just after each positive start on a limited device; the pairs
 * of each instance listed once (inc[inc_start[c] ..]) so that this costs
 * the pairs times the devices of a block, not times all devices and
 * instances. *late when the deadline passed first. TESSEL_ENOMEM. */
static int encode_memory(dmodel *m, const tessel_schedule *s, const int *pairs,
			 size_t npairs, Z3_ast *before, int *late,
			 const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	size_t E = (size_t)g->nblocks * (size_t)s->nmicros;
	Z3_ast *terms = tsl_calloc(E + 1, sizeof *terms);
	size_t *inc_start = tsl_calloc(E + 1, sizeof *inc_start);
	size_t *inc = tsl_calloc(2 * npairs + 1, sizeof *inc);
	size_t *fill = tsl_calloc(E + 1, sizeof *fill);
	int rc = terms && inc_start && inc && fill ? TSL_OK : tsl_error_nomem();
	for (size_t k = 0; k < 2 * npairs && !rc; k++)
		inc_start[(size_t)pairs[k] + 1]++;
	for (size_t c = 0; c < E && !rc; c++)
		inc_start[c + 1] += inc_start[c];
	for (size_t k = 0; k < npairs && !rc; k++)
		for (int side = 0; side < 2; side++) {
			size_t c = (size_t)pairs[2 * k + side];
			inc[inc_start[c] + fill[c]++] = k;
		}
	*late = 0;
	for (int d = 0; d < g->ndevices && !*late && !rc; d++) {
		int64_t limit = g->memory_limit[d];
		if (limit == TESSEL_UNLIMITED)
			continue;
		*late = tsl_deadline_left_ms(dl) <= 0;
		for (size_t c = 0; c < E && !*late; c++) {
			const tsl_block *C = &g->blocks[c % g->nblocks];
			if (C->memory <= 0 || !tsl_block_on_device(C, d))
				continue;
			unsigned nt = 0;
			terms[nt++] = tsl_z3_int(&m->z, C->memory);
			for (size_t x = inc_start[c]; x < inc_start[c + 1]; x++) {
				size_t k = inc[x];
				size_t i = (size_t)pairs[2 * k], j = (size_t)pairs[2 * k + 1];
				size_t other = i == c ? j : i;
				const tsl_block *O = &g->blocks[other % g->nblocks];
				if (O->memory == 0 || !tsl_block_on_device(O, d))
					continue;
				/* other starts before c */
				Z3_ast lit = other == i ? before[k] : Z3_mk_not(m->z.ctx, before[k]);
				terms[nt++] = Z3_mk_ite(m->z.ctx, lit, tsl_z3_int(&m->z, O->memory), tsl_z3_int(&m->z, 0));
			}
			tsl_z3_assert_le(&m->z, Z3_mk_add(m->z.ctx, nt, terms), tsl_z3_int(&m->z, limit));
		}
	}
	tsl_free(terms);
	tsl_free(inc_start);
	tsl_free(inc);
	tsl_free(fill);
	return rc;
}

/* The whole model of s's entries: starts, pairs, memory. TSL_OK,
 * TSL_DIRECT_SKIP (Z3 failed, a cancel, or the deadline: no attempt),
 * TESSEL_ENOMEM. */
static int encode(dmodel *m, const tessel_schedule *s, const tsl_bounds *bnd,
		 const tsl_opts *opts, const int *pairs, size_t npairs,
		 const tsl_deadline *dl)
{
	if (tsl_z3_open(&m->z, opts))
		return TSL_DIRECT_SKIP;
	encode_starts(m, s, bnd);
	Z3_ast *before = tsl_calloc(npairs + 1, sizeof *before);
	if (!before)
		return tsl_error_nomem();
	encode_pairs(m, s, pairs, npairs, before);
	int late = 0;
	int rc = encode_memory(m, s, pairs, npairs, before, &late, dl);
	tsl_free(before);
	if (rc)
		return rc;
	/* a Z3 failure (or a cancel request) while building, or the
	 * deadline: no attempt */
	if (tsl_z3_take_error(&m->z) || late)
		return TSL_DIRECT_SKIP;
	return TSL_OK;
}

static void dmodel_release(dmodel *m)
{
	tsl_z3_close(&m->z);
}

int tsl_direct_z3(tessel_schedule *s, const tsl_bounds *bnd,
		  const tsl_opts *opts, const tsl_deadline *dl, int *proven)
{
	const tessel_graph *g = s->graph;
	size_t E = (size_t)g->nblocks * (size_t)s->nmicros;
	int64_t best = tsl_schedule_makespan(s);
	int64_t lb = tsl_bounds_lower(bnd, s->nmicros);
	*proven = best <= lb;
	if (E > TSL_DIRECT_MAX_INSTANCES || s->nmicros > TSL_DIRECT_MAX_MICROS ||
	    best <= lb || tsl_deadline_left_ms(dl) <= 0)
		return TSL_OK;
	/* instance pairs that share a device */
	int *pairs = NULL;
	size_t npairs = 0, cap = 0;
	for (size_t i = 0; i < E; i++)
		for (size_t j = i + 1; j < E; j++) {
			if (!tsl_blocks_share_device(&g->blocks[i % g->nblocks],
						     &g->blocks[j % g->nblocks]))
				continue;
			if (npairs == TSL_DIRECT_MAX_PAIRS) {
				tsl_free(pairs);
				return TSL_OK; /* too large to be worth it */
			}
			if (npairs == cap) {
				cap = cap ? cap * 2 : 256;
				int *np = tsl_reallocarray(pairs, cap, 2 * sizeof *np);
				if (!np) {
					tsl_free(pairs);
					return tsl_error_nomem();
				}
				pairs = np;
			}
			pairs[2 * npairs] = (int)i;
			pairs[2 * npairs + 1] = (int)j;
			npairs++;
		}
	dmodel m = {0};
	m.start = tsl_calloc(E, sizeof *m.start);
	int64_t *found = tsl_calloc(E, sizeof *found);
	int64_t *span = tsl_calloc(E, sizeof *span);
	int rc = !m.start || !found || !span ? tsl_error_nomem() : TSL_OK;
	if (!rc)
		rc = encode(&m, s, bnd, opts, pairs, npairs, dl);
	tsl_free(pairs);
	int skip = rc == TSL_DIRECT_SKIP;
	if (skip)
		rc = TSL_OK;
	/* below the makespan `best`, at least LB(N) */
	int improved = 0;
	int64_t lo = lb;
	for (size_t i = 0; i < E && !rc && !skip; i++)
		span[i] = g->blocks[i % (size_t)g->nblocks].span;
	if (!rc && !skip)
		rc = tsl_z3_lower(&improved, &best, &lo, found, &m.z, m.makespan,
				  m.start, span, E, 0, TSL_DIRECT_RLIMIT, NULL, dl);
	*proven = best <= lo;
	if (!rc && improved)
		for (size_t i = 0; i < E; i++)
			s->entries[i].start = found[i];
	dmodel_release(&m);
	tsl_free(m.start);
	tsl_free(found);
	tsl_free(span);
	return rc;
}
