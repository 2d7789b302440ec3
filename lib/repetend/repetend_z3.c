/* The repetend as a modulo schedule, solved with Z3 (context and checks:
 * solver.c).
 *
 * For a fixed period P every block b gets an integer q_b (of any sign: the
 * first block in topological order is pinned at q = r = 0 and the others
 * may start before it) and 0 <= r_b < P; block b of micro-batch m starts
 * at T_b + m P with T_b = P q_b + r_b. Constraints:
 * dependencies T_a + span_a <= T_b; device exclusivity of blocks sharing a
 * device on the circle of length P (one ordering literal per pair); memory in
 * steady state on device d just after block c starts:
 *   sum_{b on d} mem_b ([r_b <= r_c] - q_b) <= limit_d.
 * P runs upward from the resource bound: the first satisfiable P is optimal
 * and the unsatisfiable ones below it are the proof. Then the depth
 * L = max T_b + span_b is minimised by bisection at that P. */
#include <stdlib.h>
#include <string.h>
#include <z3.h>

#include "solver.h"

#include "error.h"
#include "options.h"
#include "repetend.h"
#include "repetend_tighten.h"
#include "repetend_z3.h"
#include "stage.h"
#include "util.h"

/* Alternative repetends of the smallest depth tried for a better
 * completion. */
#define TSL_ALTERNATIVES 8

/* Work bounds (Z3 resource units, deterministic, roughly 0.8 million a
 * second here: TSL_TICKS_PER_RLIMIT) of one step of the depth bisection and of one alternative;
 * a step that runs out ends that phase with the best repetend so far. */
#define TSL_DEPTH_RLIMIT 100000u
#define TSL_ALTERNATIVE_RLIMIT 100000u
/* ... and of each check of a period below one already known: undecided
 * within it, the period stays unproven. */
#define TSL_PERIOD_RLIMIT 3000000u
/* All those checks of one period search together: as much as this many of
 * them (each at most one's), so that an undecided check of the resource
 * bound leaves work for the periods above it; spent, the search keeps the
 * best period known, unproven. */
#define TSL_PERIOD_CHECKS 2

typedef struct pair {
	int a, b;     /* a < b, sharing at least one device */
	Z3_ast before; /* r_a < r_b */
} pair;

typedef struct model {
	tsl_z3 z;          /* context and solver */
	const tessel_graph *g;
	const tsl_bounds *bnd;
	int64_t P;
	int n;
	Z3_ast *q, *r, *t;  /* per block: q, r, and the term P q + r */
	Z3_ast depth;      /* L */
	Z3_ast memvar;     /* one memory limit for all devices, or NULL */
	int have_model;    /* the last check was satisfiable */
	pair *pairs;
	int npairs;
	/* per block x: the pairs it is in, pair_of[pair_start[x] ..
	 * pair_start[x + 1]) by the other block's id */
	int *pair_start;
	struct pair_ref { int other, id; } *pair_of;
} model;

static Z3_ast mk_int(model *m, int64_t v)
{
	return Z3_mk_int64(m->z.ctx, v, m->z.isort);
}

static Z3_ast mk_add2(model *m, Z3_ast x, Z3_ast y)
{
	Z3_ast args[2] = {x, y};
	return Z3_mk_add(m->z.ctx, 2, args);
}

static Z3_ast mk_add_c(model *m, Z3_ast x, int64_t c)
{
	return c == 0 ? x : mk_add2(m, x, mk_int(m, c));
}

static void assert_le(model *m, Z3_ast x, Z3_ast y)
{
	tsl_z3_assert_le(&m->z, x, y);
}

static void model_release(model *m)
{
	tsl_z3_close(&m->z);
	tsl_free(m->q);
	tsl_free(m->r);
	tsl_free(m->t);
	tsl_free(m->pairs);
	tsl_free(m->pair_start);
	tsl_free(m->pair_of);
	memset(m, 0, sizeof *m);
}

/* Literal for [r_x <= r_y] (x != y, sharing a device). */
static Z3_ast le_literal(model *m, int x, int y)
{
	int lo = m->pair_start[x], hi = m->pair_start[x + 1];
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (m->pair_of[mid].other < y)
			lo = mid + 1;
		else
			hi = mid;
	}
	pair *p = &m->pairs[m->pair_of[lo].id];
	return p->a == x ? p->before : Z3_mk_not(m->z.ctx, p->before);
}

/* The smallest device blocks a and b share, -1 if none. */
static int first_shared_device(const tsl_block *a, const tsl_block *b)
{
	int i = 0, j = 0;
	while (i < a->ndevices && j < b->ndevices) {
		if (a->devices[i] == b->devices[j])
			return a->devices[i];
		if (a->devices[i] < b->devices[j])
			i++;
		else
			j++;
	}
	return -1;
}

static int cmp_ref(const void *x, const void *y)
{
	const struct pair_ref *a = x, *b = y;
	return (a->other > b->other) - (a->other < b->other);
}

/* The pairs of blocks sharing a device, each once (at the first device
 * they share), and the per-block index of them. */
static int make_pairs(model *m)
{
	const tessel_graph *g = m->g;
	const tsl_bounds *bnd = m->bnd;
	int cap = 0;
	for (int d = 0; d < g->ndevices; d++)
		for (int x = bnd->dev_start[d]; x < bnd->dev_start[d + 1]; x++)
			for (int y = x + 1; y < bnd->dev_start[d + 1]; y++) {
				int a = bnd->dev_block[x], b = bnd->dev_block[y];
				if (first_shared_device(&g->blocks[a], &g->blocks[b]) != d)
					continue;
				if (a > b) {
					int t = a;
					a = b;
					b = t;
				}
				if (m->npairs == cap) {
					cap = cap ? cap * 2 : 64;
					pair *np = tsl_reallocarray(m->pairs, (size_t)cap,
								    sizeof *np);
					if (!np)
						return tsl_error_nomem();
					m->pairs = np;
				}
				pair *p = &m->pairs[m->npairs];
				p->a = a;
				p->b = b;
				p->before = Z3_mk_const(m->z.ctx,
					Z3_mk_int_symbol(m->z.ctx, 2 * m->n + m->npairs),
					Z3_mk_bool_sort(m->z.ctx));
				m->npairs++;
			}
	m->pair_start = tsl_calloc((size_t)m->n + 1, sizeof *m->pair_start);
	m->pair_of = tsl_calloc((size_t)m->npairs * 2 + 1, sizeof *m->pair_of);
	if (!m->pair_start || !m->pair_of)
		return tsl_error_nomem();
	for (int k = 0; k < m->npairs; k++) {
		m->pair_start[m->pairs[k].a + 1]++;
		m->pair_start[m->pairs[k].b + 1]++;
	}
	for (int x = 0; x < m->n; x++)
		m->pair_start[x + 1] += m->pair_start[x];
	int *fill = tsl_calloc((size_t)m->n + 1, sizeof *fill);
	if (!fill)
		return tsl_error_nomem();
	for (int k = 0; k < m->npairs; k++) {
		int a = m->pairs[k].a, b = m->pairs[k].b;
		m->pair_of[m->pair_start[a] + fill[a]++] = (struct pair_ref){b, k};
		m->pair_of[m->pair_start[b] + fill[b]++] = (struct pair_ref){a, k};
	}
	tsl_free(fill);
	for (int x = 0; x < m->n; x++)
		qsort(m->pair_of + m->pair_start[x],
		      (size_t)(m->pair_start[x + 1] - m->pair_start[x]),
		      sizeof *m->pair_of, cmp_ref);
	return TSL_OK;
}

static void add_exclusivity(model *m)
{
	for (int k = 0; k < m->npairs; k++) {
		pair *p = &m->pairs[k];
		const tsl_block *A = &m->g->blocks[p->a], *B = &m->g->blocks[p->b];
		Z3_ast ra = m->r[p->a], rb = m->r[p->b];
		Z3_ast c1[2] = {
			Z3_mk_le(m->z.ctx, mk_add_c(m, ra, A->span), rb),
			Z3_mk_le(m->z.ctx, mk_add_c(m, rb, B->span),
				 mk_add_c(m, ra, m->P)),
		};
		Z3_ast c2[2] = {
			Z3_mk_le(m->z.ctx, mk_add_c(m, rb, B->span), ra),
			Z3_mk_le(m->z.ctx, mk_add_c(m, ra, A->span),
				 mk_add_c(m, rb, m->P)),
		};
		tsl_z3_assert(&m->z,
				 Z3_mk_implies(m->z.ctx, p->before,
					       Z3_mk_and(m->z.ctx, 2, c1)));
		tsl_z3_assert(&m->z,
				 Z3_mk_implies(m->z.ctx, Z3_mk_not(m->z.ctx, p->before),
					       Z3_mk_and(m->z.ctx, 2, c2)));
	}
}

static int add_memory(model *m)
{
	const tessel_graph *g = m->g;
	int *on = tsl_calloc((size_t)m->n, sizeof *on);
	Z3_ast *terms = tsl_calloc((size_t)m->n * 2 + 1, sizeof *terms);
	if (!on || !terms) {
		tsl_free(on);
		tsl_free(terms);
		return tsl_error_nomem();
	}
	for (int d = 0; d < g->ndevices; d++) {
		int64_t limit = g->memory_limit[d];
		if (limit == TESSEL_UNLIMITED && !m->memvar)
			continue;
		int non = 0, any = 0;
		for (int b = 0; b < m->n; b++)
			if (tsl_block_on_device(&g->blocks[b], d)) {
				on[non++] = b;
				any |= g->blocks[b].memory != 0;
			}
		if (!any)
			continue;
		for (int i = 0; i < non; i++) {
			int c = on[i];
			if (g->blocks[c].memory <= 0)
				continue;
			int nt = 0;
			terms[nt++] = mk_int(m, g->blocks[c].memory);
			for (int j = 0; j < non; j++) {
				int b = on[j];
				int64_t mem = g->blocks[b].memory;
				if (mem == 0)
					continue;
				if (b != c)
					terms[nt++] = Z3_mk_ite(m->z.ctx,
						le_literal(m, b, c), mk_int(m, mem),
						mk_int(m, 0));
				Z3_ast qa[2] = {mk_int(m, -mem), m->q[b]};
				terms[nt++] = Z3_mk_mul(m->z.ctx, 2, qa);
			}
			assert_le(m, Z3_mk_add(m->z.ctx, (unsigned)nt, terms),
				  m->memvar ? m->memvar : mk_int(m, limit));
			m->z.terms += nt - 1;
		}
	}
	tsl_free(on);
	tsl_free(terms);
	return TSL_OK;
}

/* Build the model for period P (no bound on the depth beyond `max_depth`). */
static int model_build(model *m, const tessel_graph *g, const tsl_bounds *bnd,
		       int64_t P, int64_t max_depth, const tsl_opts *opts,
		       int memory_variable)
{
	memset(m, 0, sizeof *m);
	m->g = g;
	m->bnd = bnd;
	m->P = P;
	m->n = g->nblocks;
	int n = m->n;

	m->q = tsl_calloc((size_t)n, sizeof *m->q);
	m->r = tsl_calloc((size_t)n, sizeof *m->r);
	m->t = tsl_calloc((size_t)n, sizeof *m->t);
	if (!m->q || !m->r || !m->t) {
		model_release(m);
		return tsl_error_nomem();
	}

	int zrc = tsl_z3_open(&m->z, opts);
	if (zrc) {
		model_release(m);
		return zrc;
	}

	m->depth = Z3_mk_const(m->z.ctx, Z3_mk_string_symbol(m->z.ctx, "L"), m->z.isort);
	if (memory_variable)
		m->memvar = Z3_mk_const(m->z.ctx, Z3_mk_string_symbol(m->z.ctx, "M"),
					m->z.isort);
	/* lo: the earliest start. Shifting a whole repetend in time changes
	 * nothing, so the first block in topological order is pinned at 0
	 * (q = r = 0) and other blocks may start before it (q < 0). */
	Z3_ast lo = Z3_mk_const(m->z.ctx, Z3_mk_string_symbol(m->z.ctx, "lo"), m->z.isort);
	int pinned = bnd->topo[0];
	/* every block's terms first: a block may depend on one listed after
	 * it */
	for (int b = 0; b < n; b++) {
		m->q[b] = Z3_mk_const(m->z.ctx, Z3_mk_int_symbol(m->z.ctx, 2 * b), m->z.isort);
		m->r[b] = Z3_mk_const(m->z.ctx, Z3_mk_int_symbol(m->z.ctx, 2 * b + 1),
				      m->z.isort);
		Z3_ast pq[2] = {mk_int(m, P), m->q[b]};
		m->t[b] = mk_add2(m, Z3_mk_mul(m->z.ctx, 2, pq), m->r[b]);
	}
	for (int b = 0; b < n; b++) {
		const tsl_block *B = &g->blocks[b];
		if (b == pinned) {
			assert_le(m, m->q[b], mk_int(m, 0));
			assert_le(m, mk_int(m, 0), m->q[b]);
			assert_le(m, m->r[b], mk_int(m, 0));
		}
		assert_le(m, mk_int(m, 0), m->r[b]);
		assert_le(m, m->r[b], mk_int(m, P - 1));
		/* earliest start from the critical path into b */
		assert_le(m, mk_add_c(m, lo, bnd->head[b]), m->t[b]);
		/* depth covers b and what must follow it */
		Z3_ast sub[2] = {mk_add_c(m, m->t[b], B->span + bnd->tail[b]), lo};
		assert_le(m, Z3_mk_sub(m->z.ctx, 2, sub), m->depth);
		for (int k = 0; k < B->ndeps; k++) {
			int a = B->deps[k];
			assert_le(m, mk_add_c(m, m->t[a], tsl_dep_gap(g, B, k)), m->t[b]);
		}
	}
	assert_le(m, m->depth, mk_int(m, max_depth));

	/* ordering literals for pairs of blocks sharing a device */
	int prc = make_pairs(m);
	if (prc) {
		model_release(m);
		return prc;
	}
	add_exclusivity(m);
	int rc = add_memory(m);
	if (rc) {
		model_release(m);
		return rc;
	}
	const char *err = tsl_z3_take_error(&m->z);
	if (err) {
		/* a cancel request interrupts the building too (Z3 says
		 * "canceled": so also when the cancel was cleared since) */
		if (tsl_options_cancelled(opts->src) || strcmp(err, "canceled") == 0)
			rc = tsl_error(TESSEL_ECANCELLED,
				       "the search was cancelled while building the model of period %lld",
				       (long long)P);
		else
			rc = tsl_error(TESSEL_ESOLVER, "Z3 error while building the model: %s",
				       err);
		model_release(m);
		return rc;
	}
	return TSL_OK;
}

/* The work bounds are for a model of about 16 blocks; larger models get
 * proportionally more. */
static unsigned scaled(unsigned base, const model *m)
{
	uint64_t v = (uint64_t)base * (uint64_t)(m->n + m->npairs) / 32;
	if (v < base)
		v = base;
	if (m->z.opts->rlimit_cap && v > m->z.opts->rlimit_cap)
		v = m->z.opts->rlimit_cap;
	return v > 200000000u ? 200000000u : (unsigned)v;
}

/* Check with the time left and, if `rlimit` > 0, at most that much of Z3's
 * deterministic resource count; 1 sat, 0 unsat, -1 unknown (time or
 * resource limit), <-1 error. */
static int model_check(model *m, const tsl_deadline *dl, unsigned rlimit)
{
	int res = tsl_z3_check(&m->z, dl, rlimit, 0, NULL);
	m->have_model = res == 1;
	return res;
}

static int64_t model_value(model *m, Z3_model mdl, Z3_ast term)
{
	Z3_ast v = NULL;
	int64_t x = 0;
	if (Z3_model_eval(m->z.ctx, mdl, term, true, &v) && v)
		Z3_get_numeral_int64(m->z.ctx, v, &x);
	return x;
}

/* Read T and the depth from the current model into rep. */
static int model_read(model *m, tsl_repetend *rep)
{
	Z3_model mdl = Z3_solver_get_model(m->z.ctx, m->z.solver);
	if (!mdl || tsl_z3_take_error(&m->z))
		return tsl_error(TESSEL_ESOLVER, "Z3 returned no model");
	Z3_model_inc_ref(m->z.ctx, mdl);
	int64_t minT = INT64_MAX, depth = 0;
	for (int b = 0; b < m->n; b++) {
		rep->T[b] = model_value(m, mdl, m->t[b]);
		if (rep->T[b] < minT)
			minT = rep->T[b];
	}
	Z3_model_dec_ref(m->z.ctx, mdl);
	/* shift so that the earliest block starts at 0 */
	int64_t shift = minT;
	for (int b = 0; b < m->n; b++) {
		rep->T[b] -= shift;
		int64_t e = rep->T[b] + m->g->blocks[b].span;
		if (e > depth)
			depth = e;
	}
	rep->period = m->P;
	rep->depth = depth;
	return TSL_OK;
}

/* Lower the depth at the period of `m`, starting from a solution of depth
 * rep->depth: ask for depth <= hi - step, growing the step after each
 * success and shrinking it after a failure, until the bound is proven or
 * the work bounds run out. Each improvement goes to cb. */
static int minimise_depth(model *m, tsl_repetend *rep, const tsl_deadline *dl,
			  tsl_candidate_fn cb, void *payload)
{
	int64_t lo = m->bnd->critical_path, hi = rep->depth;
	int64_t step = (hi - lo) / 4 > 1 ? (hi - lo) / 4 : 1;
	int undecided = 0;
	while (lo < hi && undecided < 2) {
		int64_t target = hi - step > lo ? hi - step : lo;
		tsl_z3_push(&m->z, dl);
		assert_le(m, m->depth, mk_int(m, target));
		int res = model_check(m, dl, scaled(TSL_DEPTH_RLIMIT, m));
		int rc = TSL_OK;
		if (res == 1) {
			rc = model_read(m, rep);
			hi = rep->depth;
			step *= 2;
			if (!rc)
				rc = cb(rep, payload);
		} else if (res == 0) {
			lo = target + 1;
			step = step / 2 > 1 ? step / 2 : 1;
		} else if (res == -1) {
			undecided++;
			if (step == 1 || tsl_deadline_left_ms(dl) <= 0)
				undecided = 2;
			step = step / 4 > 1 ? step / 4 : 1;
		}
		Z3_solver_pop(m->z.ctx, m->z.solver, 1);
		if (rc)
			return rc;
		if (res < -1)
			return res;
	}
	return TSL_OK;
}

/* Further repetends of depth at most rep->depth whose device orders or
 * repetition offsets differ from all seen so far; each goes to cb. */
static int alternatives(model *m, tsl_repetend *rep, const tsl_deadline *dl,
			int count, tsl_candidate_fn cb, void *payload)
{
	int rc = TSL_OK;
	Z3_ast *lits = tsl_calloc((size_t)m->npairs + (size_t)m->n, sizeof *lits);
	if (!lits)
		return tsl_error_nomem();
	tsl_z3_push(&m->z, dl);
	assert_le(m, m->depth, mk_int(m, rep->depth));
	if (!m->have_model) {
		/* the last check was a failed descent step (or none was
		 * made): find the current depth again to start from, in the
		 * same scope (a pop would drop the model) */
		int res = model_check(m, dl, scaled(TSL_ALTERNATIVE_RLIMIT, m));
		if (res != 1) {
			Z3_solver_pop(m->z.ctx, m->z.solver, 1);
			tsl_free(lits);
			return res < -1 ? res : TSL_OK;
		}
	}
	for (int k = 0; k < count && !rc; k++) {
		Z3_model mdl = Z3_solver_get_model(m->z.ctx, m->z.solver);
		if (!mdl || tsl_z3_take_error(&m->z))
			break;
		Z3_model_inc_ref(m->z.ctx, mdl);
		int nl = 0;
		for (int i = 0; i < m->npairs; i++) {
			Z3_ast v = NULL;
			Z3_model_eval(m->z.ctx, mdl, m->pairs[i].before, true, &v);
			int is_true = v && Z3_get_bool_value(m->z.ctx, v) == Z3_L_TRUE;
			lits[nl++] = is_true ? Z3_mk_not(m->z.ctx, m->pairs[i].before)
					     : m->pairs[i].before;
		}
		for (int b = 0; b < m->n; b++) {
			int64_t q = model_value(m, mdl, m->q[b]);
			lits[nl++] = Z3_mk_not(m->z.ctx,
					       Z3_mk_eq(m->z.ctx, m->q[b], mk_int(m, q)));
		}
		Z3_model_dec_ref(m->z.ctx, mdl);
		tsl_z3_assert(&m->z, Z3_mk_or(m->z.ctx, (unsigned)nl, lits));
		int res = model_check(m, dl, scaled(TSL_ALTERNATIVE_RLIMIT, m));
		if (res < -1)
			rc = res;
		if (res != 1)
			break;
		rc = model_read(m, rep);
		if (!rc)
			rc = cb(rep, payload);
	}
	Z3_solver_pop(m->z.ctx, m->z.solver, 1);
	tsl_free(lits);
	return rc;
}

/* Repetends deeper than the shallowest: one with its depth in each of
 * [d + j P, d + (j + 1) P) for j = 1 .. TSL_DEEPER (d: the smallest depth
 * found, rep->depth). More repetitions in flight use more of the memory
 * and complete differently; the completion ranks them with the rest. Each
 * goes to cb; rep is left at the last one found. */
#define TSL_DEEPER 4
static int deeper_alternatives(model *m, tsl_repetend *rep,
			       const tsl_deadline *dl, tsl_candidate_fn cb,
			       void *payload)
{
	int64_t d = rep->depth;
	int rc = TSL_OK;
	for (int j = 1; j <= TSL_DEEPER && !rc; j++) {
		if (tsl_deadline_left_ms(dl) <= 0 || tsl_options_cancelled(m->z.opts->src))
			break;
		tsl_z3_push(&m->z, dl);
		assert_le(m, mk_int(m, d + j * m->P), m->depth);
		assert_le(m, m->depth, mk_int(m, d + (j + 1) * m->P - 1));
		int res = model_check(m, dl, scaled(TSL_ALTERNATIVE_RLIMIT, m));
		if (res < -1)
			rc = res;
		if (res == 1) {
			rc = model_read(m, rep);
			if (!rc)
				rc = cb(rep, payload);
		}
		Z3_solver_pop(m->z.ctx, m->z.solver, 1);
	}
	return rc;
}

/* First check at a period guided by a repetend that ignores memory: assume
 * its device orders, dropping those in each unsatisfiable core, for a few
 * bounded rounds, all of them within `units` of Z3's resource count when
 * it is not 0. 1 sat, 0 unsat, -1 undecided. */
static int guided_check(model *m, const tsl_deadline *dl,
			const tsl_repetend *guide, unsigned units)
{
	uint64_t w0 = units ? tsl_z3_work(&m->z) : 0;
	Z3_ast *lits = tsl_calloc((size_t)m->npairs + 1, sizeof *lits);
	if (!lits)
		return tsl_error_nomem();
	int nl = 0;
	for (int i = 0; i < m->npairs; i++) {
		int a = m->pairs[i].a, b = m->pairs[i].b;
		int64_t ra = guide->T[a] % m->P, rb = guide->T[b] % m->P;
		lits[nl++] = ra < rb ? m->pairs[i].before
				     : Z3_mk_not(m->z.ctx, m->pairs[i].before);
	}
	int res = -1;
	for (int round = 0; round < 8 && nl > 0; round++) {
		if (tsl_deadline_left_ms(dl) <= 0 || tsl_options_cancelled(m->z.opts->src))
			break;
		unsigned each = scaled(TSL_DEPTH_RLIMIT, m);
		if (units) { /* the rounds together within units */
			uint64_t spent = tsl_z3_work(&m->z) - w0;
			if (spent >= units)
				break;
			if (units - spent < each)
				each = (unsigned)(units - spent);
		}
		int r = tsl_z3_check(&m->z, dl, each, (unsigned)nl, lits);
		if (r < 0)
			break; /* undecided or failed: the plain check decides */
		if (r == 1) {
			m->have_model = 1;
			res = 1;
			break;
		}
		/* drop the assumed orders in the core */
		Z3_ast_vector core = Z3_solver_get_unsat_core(m->z.ctx, m->z.solver);
		Z3_ast_vector_inc_ref(m->z.ctx, core);
		unsigned nc = Z3_ast_vector_size(m->z.ctx, core);
		if (nc == 0) {
			/* unsatisfiable without assumptions */
			Z3_ast_vector_dec_ref(m->z.ctx, core);
			res = 0;
			break;
		}
		int kept = 0;
		for (int i = 0; i < nl; i++) {
			int in_core = 0;
			for (unsigned k = 0; k < nc && !in_core; k++)
				in_core = Z3_is_eq_ast(m->z.ctx, lits[i],
						       Z3_ast_vector_get(m->z.ctx, core, k));
			if (!in_core)
				lits[kept++] = lits[i];
		}
		Z3_ast_vector_dec_ref(m->z.ctx, core);
		nl = kept;
	}
	tsl_free(lits);
	return res;
}

/* One period: 1 found (rep filled, passed to cb), 0 proven impossible,
 * -1 undecided (time, cancel, or `rlimit` > 0 work units spent), < -1 an
 * error. With a `hint` of period P only its depth is lowered. */
static int try_period(tsl_repetend *rep, const tessel_graph *g,
		      const tsl_bounds *bnd, int64_t P, const tsl_opts *opts,
		      const tsl_deadline *dl, const tsl_repetend *hint,
		      const tsl_repetend *guide, unsigned rlimit,
		      uint64_t *units_left, tsl_candidate_fn cb, void *payload)
{
	model m;
	/* a repetend needs no more than n repetitions in flight */
	int64_t max_depth = bnd->critical_path + (int64_t)g->nblocks * P + P;
	int rc = model_build(&m, g, bnd, P, max_depth, opts, 0);
	if (rc)
		return rc;
	int res;
	if (hint && hint->period == P) {
		/* a repetend of this period is known: only lower its depth */
		memcpy(rep->T, hint->T, (size_t)g->nblocks * sizeof *rep->T);
		rep->period = P;
		rep->depth = hint->depth;
		res = 1;
	} else {
		res = -1;
		unsigned units = rlimit || opts->rlimit_cap
					 ? scaled(rlimit ? rlimit : opts->rlimit_cap, &m)
					 : 0;
		/* a budget of all such checks, first set from this one's */
		if (units_left && *units_left == UINT64_MAX) {
			*units_left = (uint64_t)TSL_PERIOD_CHECKS * units;
			/* (a large model's units cost more: budget.h) */
			int64_t most = opts->proof_ticks /
				       (tsl_ticks_per_rlimit(m.z.terms) / TSL_TICKS_PER_RLIMIT);
			if (opts->proof_ticks > 0 && *units_left > (uint64_t)most)
				*units_left = (uint64_t)(most > 1 ? most : 1);
		}
		if (units_left && *units_left < units)
			units = (unsigned)*units_left;
		uint64_t w0 = tsl_z3_work(&m.z);
		if (guide && guide->period == P && (!units_left || units > 0))
			res = guided_check(&m, dl, guide, units);
		/* undecided: on in the same solver, which keeps what the
		 * guided rounds learnt, with what they left of units (when
		 * bounded: the guided rounds and the check together) */
		unsigned rest = units;
		if (units) {
			uint64_t spent = tsl_z3_work(&m.z) - w0;
			rest = spent >= units ? 0 : (unsigned)(units - spent);
		}
		if (res == -1 && (!units_left || units > 0) && (!units || rest > 0))
			res = model_check(&m, dl, rest);
		if (units_left) {
			uint64_t used = tsl_z3_work(&m.z);
			*units_left = used < *units_left ? *units_left - used : 0;
		}
		if (res == 1)
			rc = model_read(&m, rep);
		if (!rc && res == 1 && cb)
			rc = cb(rep, payload);
	}
	if (res == 1) {
		if (!rc && cb && opts->minimize_depth)
			rc = minimise_depth(&m, rep, dl, cb, payload);
		if (!rc && cb && opts->minimize_depth)
			rc = alternatives(&m, rep, dl, TSL_ALTERNATIVES, cb, payload);
		if (!rc && cb && opts->minimize_depth)
			rc = deeper_alternatives(&m, rep, dl, cb, payload);
		if (rc)
			res = rc;
	}
	model_release(&m);
	return res;
}

/* Largest model given to the solver: pairs of blocks sharing a device
 * (an upper bound: sum over devices of n_d (n_d - 1) / 2). Beyond, the
 * model alone would take longer to build than a search should. */
#define TSL_Z3_MAX_PAIRS 40000
/* Z3 takes about this many terms of a model (blocks, dependencies and
 * pairs) per millisecond to take it in, before its first check can start
 * (measured: about 20 s for 37,000 and 17 s for 44,000, on 1,000 blocks on
 * 16 devices and 10,000 on 4,096); no limit interrupts that. */
#define TSL_Z3_TERMS_PER_MS 2

/* The upper bound of the pairs above, stopping past the largest. */
static int64_t model_pairs(const tessel_graph *g, const tsl_bounds *bnd)
{
	int64_t pairs = 0;
	for (int d = 0; d < g->ndevices && pairs <= TSL_Z3_MAX_PAIRS; d++) {
		int64_t k = bnd->dev_start[d + 1] - bnd->dev_start[d];
		pairs += k * (k - 1) / 2;
	}
	return pairs;
}

/* The terms of the model of g (model_build): per block its bounds and
 * its dependencies, two per pair of blocks sharing a device, and the sums
 * of the memory constraints of the limited devices. */
static int64_t model_terms(const tessel_graph *g, const tsl_bounds *bnd,
			   int64_t pairs)
{
	int64_t terms = 2 * pairs + 4 * (int64_t)g->nblocks;
	for (int b = 0; b < g->nblocks; b++)
		terms += g->blocks[b].ndeps;
	for (int d = 0; d < g->ndevices; d++) {
		if (g->memory_limit[d] == TESSEL_UNLIMITED)
			continue;
		int64_t pos = 0, any = 0;
		for (int x = bnd->dev_start[d]; x < bnd->dev_start[d + 1]; x++) {
			int64_t mem = g->blocks[bnd->dev_block[x]].memory;
			pos += mem > 0;
			any += mem != 0;
		}
		terms += pos * (2 * any + 1);
	}
	return terms;
}

/* TESSEL_ETIMEOUT with the reason when the solver is not used on g (a
 * model too large, or one that would take more than half the work or the
 * time left to take in), else TSL_OK. With a repetend known, `proof`
 * > 0: the most the proof below its period may spend beside the search's
 * budget, which counts as left too. */
static int solver_skipped(const tessel_graph *g, const tsl_bounds *bnd,
			  const tsl_deadline *dl, int64_t proof)
{
	int64_t pairs = model_pairs(g, bnd);
	if (pairs > TSL_Z3_MAX_PAIRS)
		return tsl_error(TESSEL_ETIMEOUT,
				 "the solver was not used: more than %d pairs of blocks share a device",
				 TSL_Z3_MAX_PAIRS);
	int64_t terms = model_terms(g, bnd, pairs);
	int64_t cost = tsl_terms_ticks(terms), work = tsl_work_left(dl);
	if (proof && work < INT64_MAX) {
		/* the checks' bound as scaled() gives it */
		int64_t size = (int64_t)g->nblocks + pairs;
		int64_t each = (int64_t)TSL_PERIOD_RLIMIT * (size > 32 ? size : 32) / 32;
		int64_t all = TSL_PERIOD_CHECKS * (each < 200000000 ? each : 200000000);
		work += all < proof ? all : proof;
	}
	if (work < INT64_MAX && cost > work / 2)
		return tsl_error(TESSEL_ETIMEOUT,
				 "the solver was not used: its model of %lld terms would take "
				 "about %lld work units to take in, more than half of the %lld left",
				 (long long)terms, (long long)(cost / TSL_TICKS_PER_UNIT),
				 (long long)(work / TSL_TICKS_PER_UNIT));
	int64_t left = tsl_deadline_time_left_ms(dl);
	if (left < INT64_MAX && terms / TSL_Z3_TERMS_PER_MS > left / 2)
		return tsl_error(TESSEL_ETIMEOUT,
				 "the solver was not used: its model of %lld terms would take "
				 "about %lld ms to build, more than half of the %lld ms left",
				 (long long)terms, (long long)(terms / TSL_Z3_TERMS_PER_MS),
				 (long long)left);
	return TSL_OK;
}

/* The error that ends the period search after an undecided check. */
static int undecided_error(const tsl_opts *opts, int64_t P)
{
	if (tsl_options_cancelled(opts->src))
		return tsl_error(TESSEL_ECANCELLED,
				 "the search was cancelled while trying period %lld",
				 (long long)P);
	return tsl_error(TESSEL_ETIMEOUT, "time limit reached while trying period %lld",
			 (long long)P);
}

/* A repetend of period P implies one of period P + 1 (insert one idle step
 * on the circle: residues after it shift by one, which keeps every device
 * order, dependency, offset and memory sum), so feasibility is monotone
 * in P and bisection finds the smallest feasible period: it is proven
 * minimal once P - 1 is unsatisfiable. The resource bound is tried first
 * (the usual answer), then bisection between it and the heuristic's
 * period (or the cap); the final period gets the depth minimisation. */
/* The repetends one step of the search found, in order (copies, T
 * owned), handed out one at a time by tsl_period_search_next. */
typedef struct found_queue {
	tsl_repetend *r;
	int n, cap, next;
} found_queue;

/* Where the search over periods stands between two steps. */
typedef enum period_state {
	PS_HINT,   /* the hint as the known repetend */
	PS_BISECT, /* one check of the bisection of the periods */
	PS_FINAL,  /* the final period: its depth lowered, alternatives */
	PS_DONE
} period_state;

/* The search over periods (tsl_period_search_*): what its steps share. */
struct tsl_period_search {
	const tessel_graph *g;
	const tsl_bounds *bnd;
	const tsl_opts *opts;
	tsl_opts quick;          /* opts without depth minimisation */
	const tsl_deadline *dl;
	tsl_deadline proof;      /* the checks below a known period */
	const tsl_repetend *guide;
	const tsl_repetend *hint;
	tsl_candidate_fn cb;     /* collect(): into `found` */
	void *payload;           /* the search itself */
	tsl_repetend *rep;       /* the caller's work space: the result */
	period_state state;
	int first;               /* the bisection's first check is next */
	int rc;                  /* the error that ended the search */
	found_queue found;
	int64_t lo, hi;          /* the periods still open */
	tsl_repetend known;      /* the repetend of period hi, when have */
	int have, proven;
	uint64_t units_left;     /* of the checks below a known period */
};
typedef struct tsl_period_search period_search;

/* A candidate of the current step, copied into the queue. */
static int collect(const tsl_repetend *rep, void *payload)
{
	period_search *ps = payload;
	found_queue *q = &ps->found;
	if (q->n == q->cap) {
		int cap = q->cap ? 2 * q->cap : 8;
		tsl_repetend *r = tsl_reallocarray(q->r, (size_t)cap, sizeof *r);
		if (!r)
			return tsl_error_nomem();
		q->r = r;
		q->cap = cap;
	}
	tsl_repetend copy = *rep;
	copy.T = tsl_reallocarray(NULL, (size_t)ps->g->nblocks, sizeof *copy.T);
	if (!copy.T)
		return tsl_error_nomem();
	memcpy(copy.T, rep->T, (size_t)ps->g->nblocks * sizeof *copy.T);
	q->r[q->n++] = copy;
	return TSL_OK;
}

static void found_clear(found_queue *q)
{
	for (int i = 0; i < q->n; i++)
		tsl_repetend_release(&q->r[i]);
	q->n = q->next = 0;
}

/* The periods to search: from the resource bound (or the longest block)
 * to the cap, the hint's period or the total span. */
static int period_range(period_search *ps, const tsl_repetend *hint)
{
	const tessel_graph *g = ps->g;
	ps->lo = ps->bnd->resource_bound;
	ps->hi = ps->opts->max_period ? ps->opts->max_period
				      : ps->bnd->total_span;
	if (hint && hint->period < ps->hi)
		ps->hi = hint->period;
	for (int b = 0; b < g->nblocks; b++)
		if (g->blocks[b].span > ps->lo)
			ps->lo = g->blocks[b].span;
	if (ps->hi < ps->lo)
		return tsl_error(TESSEL_EINFEASIBLE,
				 "the period cap %lld is below the resource bound %lld",
				 (long long)ps->hi, (long long)ps->lo);
	return TSL_OK;
}

/* The hint, when its period is the top of the range, is the known
 * repetend, its period lowered as far as its own structure admits. */
static int start_from_hint(period_search *ps, const tsl_repetend *hint,
			   const tsl_repetend *rep)
{
	const tessel_graph *g = ps->g;
	if (!hint || hint->period != ps->hi)
		return TSL_OK;
	memcpy(ps->known.T, hint->T, (size_t)g->nblocks * sizeof *ps->known.T);
	ps->known.period = hint->period;
	ps->known.depth = hint->depth;
	ps->known.k = rep->k;
	ps->have = 1;
	int lowered = 0;
	tsl_stage ts = {g, ps->bnd, ps->opts, ps->dl};
	int rc = tsl_repetend_tighten(&ps->known, &lowered, &ts,
				      ps->bnd->resource_bound);
	if (!rc && lowered) {
		ps->hi = ps->known.period;
		ps->known.optimal = ps->hi <= ps->lo;
		if (ps->cb)
			rc = ps->cb(&ps->known, ps->payload);
	}
	return rc;
}

/* With a repetend known, the checks below its period (the proof that it
 * is minimal, or a shorter one) have a work bound of their own,
 * TSL_PERIOD_RLIMIT for the model's size: under the default budget,
 * whatever is left of it, up to opts->proof_ticks (the proof does not
 * depend on how much of the budget the search spent improving its
 * schedule; its work is charged but not counted against the budget);
 * under a budget set explicitly, within it. */
static void proof_deadline(period_search *ps)
{
	ps->proof = *ps->dl;
	if (ps->opts->work_auto) {
		/* an explicit budget bounds everything, the proof included */
		ps->proof.work_end = 0;
		ps->proof.exempt = 1;
	}
}

/* A repetend found at period P (res 1 of try_period): lowered as far as
 * its structure admits, it becomes the known one and the top of the
 * range. */
static int found_at(period_search *ps, tsl_repetend *rep)
{
	const tessel_graph *g = ps->g;
	int lowered = 0;
	tsl_stage ts = {g, ps->bnd, ps->opts, ps->dl};
	int rc = tsl_repetend_tighten(rep, &lowered, &ts,
				      ps->bnd->resource_bound);
	if (!rc && lowered) {
		rep->optimal = ps->proven && rep->period <= ps->lo;
		if (ps->cb)
			rc = ps->cb(rep, ps->payload);
	}
	ps->hi = rep->period;
	ps->have = 1;
	memcpy(ps->known.T, rep->T, (size_t)g->nblocks * sizeof *ps->known.T);
	ps->known.period = rep->period;
	ps->known.depth = rep->depth;
	return rc;
}

/* One check of the bisection of the periods lo .. hi: the lowest first,
 * then the middle of what is open, each a check of try_period (with a work
 * bound once a repetend is known). *over when the bisection ended: the
 * range closed, or a check ran out of time, work or was cancelled (the
 * best period known is kept). */
static int bisect_step(period_search *ps, tsl_repetend *rep, int *over)
{
	int rc = TSL_OK;
	*over = ps->have && ps->lo >= ps->hi;
	if (!*over) {
		int64_t lo = ps->lo, hi = ps->hi;
		int64_t P = ps->first ? lo : lo >= hi ? hi : lo + (hi - lo) / 2;
		ps->first = 0;
		rep->optimal = ps->proven && P == lo;
		int res = try_period(rep, ps->g, ps->bnd, P, &ps->quick,
				     ps->have ? &ps->proof : ps->dl, NULL,
				     ps->guide, ps->have ? TSL_PERIOD_RLIMIT : 0,
				     ps->have ? &ps->units_left : NULL, ps->cb,
				     ps->payload);
		if (res < -1) {
			rc = res;
		} else if (res == 1) {
			rc = found_at(ps, rep);
		} else if (res == 0 && P == hi) {
			rc = tsl_error(TESSEL_EINFEASIBLE,
				       "no repetend with period %lld .. %lld fits the memory limits",
				       (long long)ps->bnd->resource_bound, (long long)hi);
		} else if (res == 0) {
			ps->lo = P + 1;
		} else if (tsl_options_cancelled(ps->opts->src) ||
			   tsl_deadline_left_ms(ps->have ? &ps->proof : ps->dl) <= 0 ||
			   ps->units_left == 0) {
			ps->proven = 0;
			if (!ps->have)
				rc = undecided_error(ps->opts, P);
			*over = 1; /* keep the best period known, hi */
		} else if (P == hi) {
			rc = tsl_error(TESSEL_ETIMEOUT, "period %lld was not decided%s",
				       (long long)P,
				       tsl_z3_capped() ? " within the solver memory cap"
						       : " within the solver's work bound");
		} else {
			ps->proven = 0;
			ps->lo = P + 1;
		}
	}
	return rc;
}

/* The final period: its depth lowered and alternatives (try_period with
 * the full options); the known repetend when nothing new comes of it. */
static int final_period(period_search *ps, tsl_repetend *rep)
{
	const tessel_graph *g = ps->g;
	int optimal = ps->proven && ps->lo >= ps->hi;
	rep->optimal = optimal;
	int rc = TSL_OK;
	int res = try_period(rep, g, ps->bnd, ps->hi, ps->opts, ps->dl,
			     &ps->known, ps->guide, 0, NULL, ps->cb, ps->payload);
	if (res < -1)
		rc = res;
	rep->optimal = optimal;
	if (res != 1) { /* nothing new: the known repetend */
		memcpy(rep->T, ps->known.T, (size_t)g->nblocks * sizeof *rep->T);
		rep->period = ps->known.period;
		rep->depth = ps->known.depth;
	}
	return rc;
}

int tsl_period_search_new(tsl_period_search **out, tsl_repetend *rep,
			  const tsl_stage *st, const tsl_repetend *hint,
			  const tsl_repetend *guide)
{
	const tessel_graph *g = st->g;
	const tsl_opts *opts = st->opts;
	*out = NULL;
	tsl_z3_reset_capped();
	period_search *ps = tsl_calloc(1, sizeof *ps);
	if (!ps)
		return tsl_error_nomem();
	ps->g = g;
	ps->bnd = st->bnd;
	ps->opts = opts;
	ps->dl = st->dl;
	ps->guide = guide;
	ps->hint = hint;
	ps->cb = collect;
	ps->payload = ps;
	ps->rep = rep;
	ps->state = PS_HINT;
	ps->first = 1;
	ps->proven = 1;
	ps->units_left = UINT64_MAX;
	int rc = period_range(ps, hint);
	if (!rc)
		rc = solver_skipped(g, st->bnd, st->dl, hint ? opts->proof_ticks : 0);
	ps->quick = *opts;
	ps->quick.minimize_depth = 0;
	if (!rc) {
		ps->known.T = tsl_calloc((size_t)g->nblocks, sizeof *ps->known.T);
		if (!ps->known.T)
			rc = tsl_error_nomem();
	}
	if (rc) {
		tsl_period_search_free(ps);
		return rc;
	}
	*out = ps;
	return TSL_OK;
}

/* The next step of the search: its candidates into ps->found. */
static int period_step(period_search *ps)
{
	int rc = TSL_OK, over = 0;
	switch (ps->state) {
	case PS_HINT:
		rc = start_from_hint(ps, ps->hint, ps->rep);
		proof_deadline(ps);
		ps->state = PS_BISECT;
		break;
	case PS_BISECT:
		rc = bisect_step(ps, ps->rep, &over);
		if (over)
			ps->state = PS_FINAL;
		break;
	case PS_FINAL:
		rc = final_period(ps, ps->rep);
		ps->state = PS_DONE;
		break;
	case PS_DONE:
		break;
	}
	return rc;
}

int tsl_period_search_next(const tsl_repetend **out, tsl_period_search *ps)
{
	*out = NULL;
	while (ps->found.next == ps->found.n) {
		found_clear(&ps->found);
		if (ps->state == PS_DONE)
			return ps->rc ? ps->rc : TESSEL_ITEROVER;
		int rc = period_step(ps);
		if (rc) {
			/* the candidates found before the error first */
			ps->rc = rc;
			ps->state = PS_DONE;
		}
	}
	*out = &ps->found.r[ps->found.next++];
	return TSL_OK;
}

void tsl_period_search_free(tsl_period_search *ps)
{
	if (!ps)
		return;
	found_clear(&ps->found);
	tsl_free(ps->found.r);
	tsl_repetend_release(&ps->known);
	tsl_free(ps);
}

int tsl_repetend_z3(tsl_repetend *rep, const tsl_stage *st,
		    const tsl_repetend *hint, const tsl_repetend *guide,
		    tsl_candidate_fn cb, void *payload)
{
	tsl_period_search *ps = NULL;
	const tsl_repetend *c = NULL;
	int rc = tsl_period_search_new(&ps, rep, st, hint, guide);
	if (!rc && !cb)
		ps->cb = NULL; /* no candidates wanted: no depth lowering */
	while (!rc && (rc = tsl_period_search_next(&c, ps)) == TSL_OK)
		rc = cb ? cb(c, payload) : TSL_OK;
	tsl_period_search_free(ps);
	return rc == TESSEL_ITEROVER ? TSL_OK : rc;
}

int tsl_min_memory_z3(int64_t *out, int *proven, const tsl_stage *st,
		      int64_t P, int64_t known)
{
	const tessel_graph *g = st->g;
	const tsl_bounds *bnd = st->bnd;
	const tsl_opts *opts = st->opts;
	const tsl_deadline *dl = st->dl;
	model m;
	*proven = 0;
	/* a model too large for the work or the time left (the search's
	 * rule): the limit known, unproven, or none */
	int rc = solver_skipped(g, bnd, dl, 0);
	if (rc && known > 0) {
		*out = known;
		return TSL_OK;
	}
	if (rc)
		return rc;
	tsl_z3_reset_capped();
	int64_t max_depth = bnd->critical_path + (int64_t)g->nblocks * P + P;
	rc = model_build(&m, g, bnd, P, max_depth, opts, 1);
	if (rc)
		return rc;
	int res;
	if (known > 0) {
		/* a limit that works is known: look below it only */
		tsl_z3_push(&m.z, dl);
		assert_le(&m, m.memvar, mk_int(&m, known - 1));
		res = model_check(&m, dl, 0);
		if (res != 1) {
			Z3_solver_pop(m.z.ctx, m.z.solver, 1);
			if (res >= -1) {
				*out = known;
				*proven = res == 0;
				res = TSL_OK;
			}
			model_release(&m);
					return res;
		}
	} else {
		res = model_check(&m, dl, 0);
	}
	if (res == 0)
		rc = tsl_error(TESSEL_EINFEASIBLE,
			       "no repetend of period %lld exists at any memory limit",
			       (long long)P);
	else if (res == -1 && tsl_options_cancelled(opts->src))
		rc = tsl_error(TESSEL_ECANCELLED,
			       "cancelled before any repetend of period %lld",
			       (long long)P);
	else if (res == -1)
		rc = tsl_error(TESSEL_ETIMEOUT,
			       "%s before any repetend of period %lld",
			       tsl_z3_capped() ? "the solver memory cap was reached"
			       : tsl_deadline_hard_passed(dl) ? "time limit reached"
			       : "the work budget ran out",
			       (long long)P);
	else if (res < -1)
		rc = res;
	int64_t lo = 0, hi = 0;
	if (!rc) {
		Z3_model mdl = Z3_solver_get_model(m.z.ctx, m.z.solver);
		Z3_model_inc_ref(m.z.ctx, mdl);
		hi = model_value(&m, mdl, m.memvar);
		Z3_model_dec_ref(m.z.ctx, mdl);
		if (hi < 0)
			hi = 0;
	}
	while (!rc && lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		tsl_z3_push(&m.z, dl);
		assert_le(&m, m.memvar, mk_int(&m, mid));
		res = model_check(&m, dl, 0);
		if (res == 1) {
			Z3_model mdl = Z3_solver_get_model(m.z.ctx, m.z.solver);
			Z3_model_inc_ref(m.z.ctx, mdl);
			int64_t v = model_value(&m, mdl, m.memvar);
			Z3_model_dec_ref(m.z.ctx, mdl);
			hi = v < mid ? (v > lo ? v : lo) : mid;
		} else if (res == 0) {
			lo = mid + 1;
		}
		Z3_solver_pop(m.z.ctx, m.z.solver, 1);
		if (res < -1)
			rc = res;
		if (res == -1)
			break;
	}
	if (!rc) {
		*out = hi;
		*proven = lo == hi;
	}
	model_release(&m);
	return rc;
}
