/* The exact model of some instances of a schedule, every other one kept
 * (complete_model_z3.h), and the lowering of its makespan. Every free
 * instance starts after the kept work of its devices and its kept
 * dependencies (finish plus latency), after its free dependencies, within
 * its neighbourhood; one ordering literal per free pair sharing a device
 * (true or false where the neighbourhood fixes the order); memory just
 * after each positive delta is the kept work's total on that device plus
 * the deltas ordered before it, within the room: the kept instances all
 * come first on their devices, so their own memory steps do not change.
 * In mirrored time dependencies reverse and each delta, negated, applies
 * at the instance's real start (complete_window_z3.c), so the same model
 * holds. The whole problem (the direct solve) adds each block's head as
 * the least start and orders the micro-batches by their first block. */
#include "complete_model_z3.h"

#include <stdlib.h>
#include <string.h>
#include <z3.h>

#include "error.h"
#include "graph.h"
#include "solver.h"
#include "util.h"

typedef struct wmodel {
	tsl_z3 z;
	Z3_ast *var;      /* per instance: its start, NULL when kept */
	Z3_ast makespan;
} wmodel;

static int64_t delta_of(const tsl_problem *p, size_t i)
{
	int64_t d = p->g->blocks[i % (size_t)p->g->nblocks].memory;
	return p->mirror ? -d : d;
}

#define span_of tsl_problem_span

/* The predecessors of instance i in the problem's time, with the gap each
 * needs (start(i) >= start(pred) + gap): in real time the dependencies, in
 * mirrored time the successors. Calls f for each; stops when f returns
 * nonzero and returns that. */
typedef int (*pred_fn)(void *arg, size_t pred, int64_t gap);

static int for_each_pred(const tsl_problem *p, size_t i, pred_fn f, void *arg)
{
	const tessel_graph *g = p->g;
	int b = (int)(i % (size_t)g->nblocks);
	size_t base = i - (size_t)b;
	const tsl_block *B = &g->blocks[b];
	if (!p->mirror) {
		for (int k = 0; k < B->ndeps; k++) {
			int r = f(arg, base + (size_t)B->deps[k], tsl_dep_gap(g, B, k));
			if (r)
				return r;
		}
		return 0;
	}
	for (int k = p->succ.start[b]; k < p->succ.start[b + 1]; k++) {
		int c = p->succ.block[k];
		int r = f(arg, base + (size_t)c,
			  B->span + p->succ.lat[k]);
		if (r)
			return r;
	}
	return 0;
}

typedef struct pred_ctx {
	wmodel *m;
	const tsl_problem *p;
	size_t i;
	int64_t release;  /* the earliest start the kept predecessors allow */
} pred_ctx;

static int add_pred(void *arg, size_t j, int64_t gap)
{
	pred_ctx *c = arg;
	if (c->m->var[j])
		tsl_z3_assert_le(&c->m->z, tsl_z3_add_int(&c->m->z, c->m->var[j], gap), c->m->var[c->i]);
	else if (c->p->start[j] + gap > c->release)
		c->release = c->p->start[j] + gap;
	return 0;
}

/* What the parts of a window's model share while it is built. */
typedef struct wbuild {
	wmodel *m;
	const tsl_problem *p;
	const size_t *win;  /* the window's instances */
	size_t nwin;
	int64_t *busy;      /* per device: when its kept work ends */
	int64_t *base;      /* per device: the kept instances' deltas */
	size_t *dstart;     /* per device d: its window instances (indices */
	size_t *dlist;      /* into win) are dlist[dstart[d] .. dstart[d+1]) */
	Z3_ast **lit;       /* lit[x][y], x < y sharing a device: x first */
	int64_t reach;      /* how far an instance may move */
} wbuild;

/* The kept instances: each device's end of kept work and kept deltas,
 * and the latest finish of a kept instance. */
static void kept_state(wbuild *w, int64_t *kept_end)
{
	const tsl_problem *p = w->p;
	const tessel_graph *g = p->g;
	*kept_end = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (w->m->var[i])
			continue;
		const tsl_block *B = &g->blocks[i % (size_t)g->nblocks];
		int64_t e = p->start[i] + B->span;
		if (e > *kept_end)
			*kept_end = e;
		for (int k = 0; k < B->ndevices; k++) {
			int d = B->devices[k];
			if (e > w->busy[d])
				w->busy[d] = e;
			w->base[d] += delta_of(p, i);
		}
	}
}

/* Each free instance: after its kept predecessors and its devices' kept
 * work (and, for the whole problem, its block's head), within its
 * neighbourhood (at most w->reach earlier, and with p->later as much
 * later, else never later; none when p->reach is 0), before the makespan
 * less its tail; and the device lists of the free instances. */
static void place_bounds(wbuild *w)
{
	const tsl_problem *p = w->p;
	const tessel_graph *g = p->g;
	wmodel *m = w->m;
	for (size_t x = 0; x < w->nwin; x++)
		if (p->reach * span_of(p, w->win[x]) > w->reach)
			w->reach = p->reach * span_of(p, w->win[x]);
	for (size_t x = 0; x < w->nwin; x++) {
		size_t i = w->win[x];
		int b = (int)(i % (size_t)g->nblocks);
		const tsl_block *B = &g->blocks[b];
		pred_ctx c = {m, p, i, p->whole ? p->whole->head[b] : 0};
		for_each_pred(p, i, add_pred, &c);
		for (int k = 0; k < B->ndevices; k++)
			if (w->busy[B->devices[k]] > c.release)
				c.release = w->busy[B->devices[k]];
		int64_t from = p->start[i] - w->reach;
		if (!p->reach || c.release > from)
			from = c.release;
		tsl_z3_assert_le(&m->z, tsl_z3_int(&m->z, from), m->var[i]);
		if (p->reach)
			tsl_z3_assert_le(&m->z, m->var[i],
					 tsl_z3_int(&m->z, p->start[i] + (p->later ? w->reach : 0)));
		tsl_z3_assert_le(&m->z, tsl_z3_add_int(&m->z, m->var[i], B->span + p->tail[b]),
			    m->makespan);
		for (int k = 0; k < B->ndevices; k++)
			w->dstart[B->devices[k] + 1]++;
	}
	for (int d = 0; d < g->ndevices; d++)
		w->dstart[d + 1] += w->dstart[d];
}

/* The whole problem: the micro-batches are interchangeable, so they are
 * numbered in the order their first block starts. */
static void order_micro_batches(wbuild *w)
{
	const tsl_problem *p = w->p;
	const tessel_graph *g = p->g;
	wmodel *m = w->m;
	if (!p->whole)
		return;
	int first = p->whole->topo[0];
	for (int64_t mb = 0; mb + 1 < p->nmicros; mb++)
		tsl_z3_assert_le(&m->z,
				 tsl_z3_add_int(&m->z, m->var[(size_t)mb * g->nblocks + first],
						g->blocks[first].span),
				 m->var[(size_t)(mb + 1) * g->nblocks + first]);
}

/* No window schedule ends before a device's kept work plus its window
 * load plus the least time needed after it: *lower raised to that. */
static void load_bound(const wbuild *w, int64_t *lower)
{
	const tessel_graph *g = w->p->g;
	for (int d = 0; d < g->ndevices; d++) {
		int64_t load = 0, after = INT64_MAX;
		for (size_t x = 0; x < w->nwin; x++) {
			const tsl_block *B = &g->blocks[w->win[x] % (size_t)g->nblocks];
			if (!tsl_block_on_device(B, d))
				continue;
			load += B->span;
			int64_t t = w->p->tail[w->win[x] % (size_t)g->nblocks];
			after = t < after ? t : after;
		}
		if (load && w->busy[d] + load + after > *lower)
			*lower = w->busy[d] + load + after;
	}
}

/* The order of two window instances on a shared device: a literal per
 * pair (made once), or true / false where the neighbourhood fixes it. */
static void order_literals(wbuild *w)
{
	const tsl_problem *p = w->p;
	wmodel *m = w->m;
	Z3_context ctx = m->z.ctx;
	unsigned sym = (unsigned)p->n + 1;
	/* apart: order fixed (anywhere: never) */
	int64_t fixed = !p->reach ? INT64_MAX : p->later ? 2 * w->reach : w->reach;
	for (int d = 0; d < p->g->ndevices; d++)
		for (size_t a = w->dstart[d]; a < w->dstart[d + 1]; a++)
			for (size_t b = a + 1; b < w->dstart[d + 1]; b++) {
				size_t x = w->dlist[a], y = w->dlist[b];
				if (x > y) {
					size_t t = x;
					x = y;
					y = t;
				}
				if (w->lit[x][y])
					continue;
				size_t i = w->win[x], j = w->win[y];
				if (p->reach &&
				    p->start[i] + span_of(p, i) <= p->start[j] - fixed) {
					w->lit[x][y] = Z3_mk_true(ctx);
					continue;
				}
				if (p->reach &&
				    p->start[j] + span_of(p, j) <= p->start[i] - fixed) {
					w->lit[x][y] = Z3_mk_false(ctx);
					continue;
				}
				Z3_ast l = Z3_mk_const(ctx, Z3_mk_int_symbol(ctx, (int)sym++),
						       Z3_mk_bool_sort(ctx));
				w->lit[x][y] = l;
				tsl_z3_assert(&m->z, Z3_mk_implies(ctx, l,
					Z3_mk_le(ctx, tsl_z3_add_int(&m->z, m->var[i], span_of(p, i)), m->var[j])));
				tsl_z3_assert(&m->z, Z3_mk_implies(ctx,
					Z3_mk_not(ctx, l),
					Z3_mk_le(ctx, tsl_z3_add_int(&m->z, m->var[j], span_of(p, j)), m->var[i])));
			}
}

/* Memory just after each positive delta on a limited device: the kept
 * deltas, its own and those of the window instances ordered before it.
 * terms: room for nwin + 1 terms. */
static void memory_limits(wbuild *w, Z3_ast *terms, const tsl_deadline *dl)
{
	const tsl_problem *p = w->p;
	wmodel *m = w->m;
	Z3_context ctx = m->z.ctx;
	for (int d = 0; d < p->g->ndevices; d++) {
		if (p->room[d] == INT64_MAX)
			continue;
		if (tsl_deadline_left_ms(dl) <= 0)
			break;
		for (size_t a = w->dstart[d]; a < w->dstart[d + 1]; a++) {
			size_t x = w->dlist[a];
			int64_t dx = delta_of(p, w->win[x]);
			if (dx <= 0)
				continue;
			unsigned nt = 0;
			terms[nt++] = tsl_z3_int(&m->z, w->base[d] + dx);
			for (size_t b = w->dstart[d]; b < w->dstart[d + 1]; b++) {
				size_t y = w->dlist[b];
				int64_t dy = delta_of(p, w->win[y]);
				if (y == x || dy == 0)
					continue;
				/* y before x */
				Z3_ast l = y < x ? w->lit[y][x] : Z3_mk_not(ctx, w->lit[x][y]);
				Z3_lbool known = Z3_get_bool_value(ctx, Z3_simplify(ctx, l));
				if (known == Z3_L_TRUE)
					terms[nt++] = tsl_z3_int(&m->z, dy);
				else if (known == Z3_L_UNDEF)
					terms[nt++] = Z3_mk_ite(ctx, l, tsl_z3_int(&m->z, dy), tsl_z3_int(&m->z, 0));
			}
			tsl_z3_assert_le(&m->z, Z3_mk_add(ctx, nt, terms), tsl_z3_int(&m->z, p->room[d]));
		}
	}
}

/* The model of the free instances win[] (var[i] != NULL); *kept_end: the
 * latest finish of a kept instance; *lower raised to what the devices'
 * loads prove.
 * TSL_OK, or 1 when Z3 could not build it. */
static int build_model(wmodel *m, const tsl_problem *p, const tsl_opts *opts,
			const size_t *win, size_t nwin, int64_t *kept_end,
			int64_t *lower, const tsl_deadline *dl)
{
	const tessel_graph *g = p->g;
	int nd = g->ndevices;
	if (tsl_z3_open(&m->z, opts))
		return 1;
	Z3_context ctx = m->z.ctx;
	for (size_t x = 0; x < nwin; x++)
		m->var[win[x]] = Z3_mk_const(ctx, Z3_mk_int_symbol(ctx, (int)win[x]),
					     m->z.isort);
	size_t ndl = 0;
	for (size_t x = 0; x < nwin; x++)
		ndl += (size_t)g->blocks[win[x] % (size_t)g->nblocks].ndevices;
	wbuild w = {.m = m, .p = p, .win = win, .nwin = nwin};
	w.busy = tsl_calloc((size_t)nd, sizeof *w.busy);
	w.base = tsl_calloc((size_t)nd, sizeof *w.base);
	w.dstart = tsl_calloc((size_t)nd + 1, sizeof *w.dstart);
	w.dlist = tsl_calloc(ndl + 1, sizeof *w.dlist);
	w.lit = tsl_calloc(nwin + 1, sizeof *w.lit);
	size_t *fill = tsl_calloc((size_t)nd, sizeof *fill);
	Z3_ast *terms = tsl_calloc(nwin + 1, sizeof *terms);
	int rc = !w.busy || !w.base || !w.dstart || !w.dlist || !w.lit || !fill ||
			 !terms ? tsl_error_nomem() : TSL_OK;
	for (size_t x = 0; x < nwin && !rc; x++)
		if (!(w.lit[x] = tsl_calloc(nwin, sizeof *w.lit[x])))
			rc = tsl_error_nomem();
	if (!rc) {
		kept_state(&w, kept_end);
		m->makespan = Z3_mk_const(ctx, Z3_mk_string_symbol(ctx, "M"), m->z.isort);
		place_bounds(&w);
		order_micro_batches(&w);
		load_bound(&w, lower);
		for (size_t x = 0; x < nwin; x++) {
			const tsl_block *B = &g->blocks[win[x] % (size_t)g->nblocks];
			for (int k = 0; k < B->ndevices; k++) {
				int d = B->devices[k];
				w.dlist[w.dstart[d] + fill[d]++] = x;
			}
		}
		order_literals(&w);
		memory_limits(&w, terms, dl);
	}
	for (size_t x = 0; w.lit && x < nwin; x++)
		tsl_free(w.lit[x]);
	tsl_free(w.lit);
	tsl_free(w.busy);
	tsl_free(w.base);
	tsl_free(w.dstart);
	tsl_free(w.dlist);
	tsl_free(fill);
	tsl_free(terms);
	if (!rc && (tsl_z3_take_error(&m->z) || tsl_deadline_left_ms(dl) <= 0))
		rc = 1;
	return rc;
}

int tsl_problem_lower(int *improved, int64_t *best, int64_t *lo,
		      int64_t *found, const tsl_problem *p, const size_t *movable,
		      size_t nmov, const tsl_opts *opts, unsigned rlimit,
		      int *checks_left, const tsl_deadline *dl)
{
	*improved = 0;
	wmodel m = {0};
	m.var = tsl_calloc(p->n, sizeof *m.var);
	int64_t *spans = tsl_calloc(nmov + 1, sizeof *spans);
	Z3_ast *wvar = tsl_calloc(nmov + 1, sizeof *wvar);
	int rc = !m.var || !spans || !wvar ? tsl_error_nomem() : TSL_OK;
	int64_t kept_end = 0;
	int skip = 0;
	if (!rc) {
		rc = build_model(&m, p, opts, movable, nmov, &kept_end, lo, dl);
		skip = rc == 1; /* no attempt */
		if (skip)
			rc = TSL_OK;
	}
	if (kept_end > *lo)
		*lo = kept_end;
	for (size_t x = 0; x < nmov && !rc && !skip; x++) {
		wvar[x] = m.var[movable[x]];
		spans[x] = span_of(p, movable[x]);
	}
	if (!rc && !skip)
		rc = tsl_z3_lower(improved, best, lo, found, &m.z, m.makespan,
				  wvar, spans, nmov, kept_end, rlimit, checks_left, dl);
	tsl_z3_close(&m.z);
	tsl_free(m.var);
	tsl_free(spans);
	tsl_free(wvar);
	return rc;
}
