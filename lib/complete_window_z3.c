/* Large-neighbourhood improvement of a completed schedule with Z3: the
 * instances of its last steps (the cool-down) are re-solved exactly with
 * every other instance kept, the makespan lowered as far as the solver
 * proves possible; then the same for its first steps (the warm-up), as the
 * last steps of the schedule mirrored in time. Rounds alternate while one
 * of them shortens the schedule and time is left.
 *
 * The window of a problem (the schedule or its mirror image) is the set of
 * instances that start at T0 or later, T0 as early as the window's size
 * allows (TSL_WINDOW_MAX_INSTANCES instances, TSL_WINDOW_MAX_PAIRS pairs
 * sharing a device). Each window instance may move earlier by at most
 * TSL_WINDOW_REACH of the window's longest spans, never later; when such
 * rounds end without a gain, more rounds allow as much later too (one
 * moved later can free its device, or memory, for another earlier). Pairs
 * whose order the neighbourhood fixes need no literal. In the model every window instance starts after the
 * kept work of its devices and its kept dependencies (finish plus
 * latency), after its window dependencies, one ordering literal per window
 * pair sharing a device, and memory just after each positive delta is the
 * kept work's total on that device plus the deltas ordered before it,
 * within the limit: the kept instances all come first on their devices, so
 * their own memory steps do not change. In mirrored time (u = H - start -
 * span) dependencies reverse, each delta, negated, applies at the
 * instance's real start, and the limit is the limit minus the device's
 * total of all deltas (as in the backward pass of complete_sgs.c), so the same
 * model holds. The result is kept only when it passes the validator. */
#include "complete_window_z3.h"

#include <stdlib.h>
#include <string.h>
#include <z3.h>

#include "complete_compact.h"
#include "complete_sgs.h"
#include "error.h"
#include "graph.h"
#include "schedule.h"
#include "solver.h"
#include "util.h"
#include "validate.h"

#define TSL_WINDOW_MAX_INSTANCES 80
#define TSL_WINDOW_MAX_PAIRS 2500
/* Work bound (Z3 resource units) of each check. */
#define TSL_WINDOW_RLIMIT 2000000u
/* How far an instance may move, in its window's longest spans (the large
 * neighbourhood). */
#define TSL_WINDOW_REACH 6
/* Rounds of (cool-down, warm-up), and checks in all. */
#define TSL_WINDOW_ROUNDS 4
#define TSL_WINDOW_MAX_CHECKS 32

/* One problem: the schedule (mirror = 0) or its mirror image, starts in
 * the problem's time. */
typedef struct wprob {
	const tessel_graph *g;
	int64_t nmicros;
	size_t n;         /* instances: entry indices */
	int mirror;
	int later;        /* the neighbourhood also moves instances later */
	int64_t *start;   /* per instance */
	int64_t *room;    /* per device: the limit in this time, or INT64_MAX */
	tsl_succ succ;    /* successors of each block (for the mirror) */
	const int64_t *tail; /* per block: time needed after it finishes */
} wprob;

typedef struct wmodel {
	tsl_z3 z;
	Z3_ast *var;      /* per instance: its start, NULL when kept */
	Z3_ast makespan;
} wmodel;

static int64_t delta_of(const wprob *p, size_t i)
{
	int64_t d = p->g->blocks[i % (size_t)p->g->nblocks].memory;
	return p->mirror ? -d : d;
}

static int64_t span_of(const wprob *p, size_t i)
{
	return p->g->blocks[i % (size_t)p->g->nblocks].span;
}

/* The predecessors of instance i in the problem's time, with the gap each
 * needs (start(i) >= start(pred) + gap): in real time the dependencies, in
 * mirrored time the successors. Calls f for each; stops when f returns
 * nonzero and returns that. */
typedef int (*pred_fn)(void *arg, size_t pred, int64_t gap);

static int for_each_pred(const wprob *p, size_t i, pred_fn f, void *arg)
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
			  B->span + tsl_dep_latency(g, &g->blocks[c], p->succ.dep[k]));
		if (r)
			return r;
	}
	return 0;
}

static int cmp_desc(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? 1 : a > b ? -1 : 0;
}

/* T0: the earliest start such that the instances starting at T0 or later
 * stay within the window's size; INT64_MAX when even the last step's
 * instances do not. */
static int64_t window_start(const wprob *p, int64_t *sorted)
{
	const tessel_graph *g = p->g;
	memcpy(sorted, p->start, p->n * sizeof *sorted);
	qsort(sorted, p->n, sizeof *sorted, cmp_desc);
	int64_t *count = tsl_calloc((size_t)g->ndevices, sizeof *count);
	if (!count)
		return INT64_MAX;
	/* pairs are counted per device (a multi-device pair more than once:
	 * an over-estimate, which only shrinks the window) */
	int64_t t0 = INT64_MAX, pairs = 0;
	size_t taken = 0;
	while (taken < p->n) {
		int64_t t = sorted[taken];
		size_t end = taken;
		int64_t add = 0;
		/* all instances at step t together */
		while (end < p->n && sorted[end] == t)
			end++;
		if (end > TSL_WINDOW_MAX_INSTANCES)
			break;
		for (size_t i = 0; i < p->n; i++) {
			if (p->start[i] != t)
				continue;
			const tsl_block *B = &g->blocks[i % (size_t)g->nblocks];
			for (int k = 0; k < B->ndevices; k++)
				add += count[B->devices[k]]++;
		}
		pairs += add;
		if (pairs > TSL_WINDOW_MAX_PAIRS)
			break;
		t0 = t;
		taken = end;
	}
	tsl_free(count);
	return t0;
}

typedef struct pred_ctx {
	wmodel *m;
	const wprob *p;
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
	const wprob *p;
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
	const wprob *p = w->p;
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

/* Each window instance: after its kept predecessors and its devices'
 * kept work, within its neighbourhood (at most `reach` earlier, and with
 * p->later as much later, else never later), before the makespan less
 * its tail; and the device lists of the window. */
static void place_bounds(wbuild *w)
{
	const wprob *p = w->p;
	const tessel_graph *g = p->g;
	wmodel *m = w->m;
	for (size_t x = 0; x < w->nwin; x++)
		if (TSL_WINDOW_REACH * span_of(p, w->win[x]) > w->reach)
			w->reach = TSL_WINDOW_REACH * span_of(p, w->win[x]);
	for (size_t x = 0; x < w->nwin; x++) {
		size_t i = w->win[x];
		const tsl_block *B = &g->blocks[i % (size_t)g->nblocks];
		pred_ctx c = {m, p, i, 0};
		for_each_pred(p, i, add_pred, &c);
		for (int k = 0; k < B->ndevices; k++)
			if (w->busy[B->devices[k]] > c.release)
				c.release = w->busy[B->devices[k]];
		int64_t from = p->start[i] - w->reach;
		tsl_z3_assert_le(&m->z, tsl_z3_int(&m->z, c.release > from ? c.release : from), m->var[i]);
		tsl_z3_assert_le(&m->z, m->var[i],
				 tsl_z3_int(&m->z, p->start[i] + (p->later ? w->reach : 0)));
		tsl_z3_assert_le(&m->z, tsl_z3_add_int(&m->z, m->var[i], B->span + p->tail[i % (size_t)g->nblocks]),
			    m->makespan);
		for (int k = 0; k < B->ndevices; k++)
			w->dstart[B->devices[k] + 1]++;
	}
	for (int d = 0; d < g->ndevices; d++)
		w->dstart[d + 1] += w->dstart[d];
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
	const wprob *p = w->p;
	wmodel *m = w->m;
	Z3_context ctx = m->z.ctx;
	unsigned sym = (unsigned)p->n + 1;
	int64_t fixed = p->later ? 2 * w->reach : w->reach; /* apart: order fixed */
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
				if (p->start[i] + span_of(p, i) <= p->start[j] - fixed) {
					w->lit[x][y] = Z3_mk_true(ctx);
					continue;
				}
				if (p->start[j] + span_of(p, j) <= p->start[i] - fixed) {
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
	const wprob *p = w->p;
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

/* The model of the window (var[i] != NULL); *kept_end: the latest finish
 * of a kept instance; *lower raised to what the devices' loads prove.
 * TSL_OK, or 1 when Z3 could not build it. */
static int build_window(wmodel *m, const wprob *p, const tsl_opts *opts,
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

/* Lower the window's makespan below the problem's: *improved when p->start
 * now holds a shorter schedule. Targets 1, 2, 4, ... steps below the best
 * while they are met, then halving from the first that is not (as in
 * complete_direct_z3.c); every check is bounded by the deadline and a work bound. */
static int solve_window(int *improved, wprob *p, int64_t lb,
			const tsl_opts *opts, const tsl_deadline *dl, int *checks)
{
	*improved = 0;
	int64_t *sorted = tsl_reallocarray(NULL, p->n, sizeof *sorted);
	if (!sorted)
		return tsl_error_nomem();
	int64_t t0 = window_start(p, sorted);
	tsl_free(sorted);
	if (t0 == INT64_MAX)
		return TSL_OK;
	int64_t best = 0;
	size_t nwin = 0;
	for (size_t i = 0; i < p->n; i++) {
		int64_t e = p->start[i] + span_of(p, i);
		if (e > best)
			best = e;
		nwin += p->start[i] >= t0;
	}
	wmodel m = {0};
	m.var = tsl_calloc(p->n, sizeof *m.var);
	size_t *win = tsl_calloc(nwin + 1, sizeof *win);
	int64_t *spans = tsl_calloc(nwin + 1, sizeof *spans);
	int64_t *found = tsl_calloc(nwin + 1, sizeof *found);
	int rc = !m.var || !win || !spans || !found ? tsl_error_nomem() : TSL_OK;
	size_t x = 0;
	for (size_t i = 0; i < p->n && !rc; i++)
		if (p->start[i] >= t0)
			win[x++] = i;
	int64_t kept_end = 0;
	int skip = 0;
	if (!rc) {
		rc = build_window(&m, p, opts, win, nwin, &kept_end, &lb, dl);
		skip = rc == 1;
		if (skip)
			rc = TSL_OK;
	}
	int64_t lo = lb > kept_end ? lb : kept_end;
	Z3_ast *wvar = tsl_calloc(nwin + 1, sizeof *wvar);
	if (!rc && !wvar)
		rc = tsl_error_nomem();
	for (x = 0; x < nwin && !rc && !skip; x++) {
		wvar[x] = m.var[win[x]];
		spans[x] = span_of(p, win[x]);
	}
	int left = TSL_WINDOW_MAX_CHECKS - *checks;
	if (!rc && !skip)
		rc = tsl_z3_lower(improved, &best, &lo, found, &m.z, m.makespan,
				  wvar, spans, nwin, kept_end, TSL_WINDOW_RLIMIT,
				  &left, dl);
	*checks = TSL_WINDOW_MAX_CHECKS - (left > 0 ? left : 0);
	tsl_free(wvar);
	if (!rc && *improved)
		for (x = 0; x < nwin; x++)
			p->start[win[x]] = found[x];
	tsl_z3_close(&m.z);
	tsl_free(m.var);
	tsl_free(win);
	tsl_free(spans);
	tsl_free(found);
	return rc;
}

/* The problem's starts from the schedule's (mirror: u = H - start - span)
 * and back. */
static void load_problem(wprob *p, const tessel_schedule *s)
{
	int64_t H = tsl_schedule_makespan(s);
	for (size_t i = 0; i < p->n; i++)
		p->start[i] = p->mirror ? H - s->entries[i].start - span_of(p, i)
					: s->entries[i].start;
}

static void store_problem(tessel_schedule *s, const wprob *p)
{
	int64_t H = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->start[i] + span_of(p, i) > H)
			H = p->start[i] + span_of(p, i);
	for (size_t i = 0; i < p->n; i++)
		s->entries[i].start = p->mirror ? H - p->start[i] - span_of(p, i)
						: p->start[i];
}

static int prepare(wprob *p, const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	memset(p, 0, sizeof *p);
	p->g = g;
	p->nmicros = s->nmicros;
	p->n = (size_t)g->nblocks * (size_t)s->nmicros;
	p->start = tsl_reallocarray(NULL, p->n, sizeof *p->start);
	p->room = tsl_calloc((size_t)g->ndevices, sizeof *p->room);
	if (!p->start || !p->room)
		return tsl_error_nomem();
	return tsl_succ_build(&p->succ, g);
}

/* Per device the limit in the problem's time (see the top comment). */
static void set_rooms(wprob *p)
{
	const tessel_graph *g = p->g;
	if (p->mirror) {
		tsl_mirrored_limits(p->room, g, p->nmicros);
		return;
	}
	for (int d = 0; d < g->ndevices; d++)
		p->room[d] = g->memory_limit[d] == TESSEL_UNLIMITED ? INT64_MAX
								    : g->memory_limit[d];
}

static void release_problem(wprob *p)
{
	tsl_free(p->start);
	tsl_free(p->room);
	tsl_succ_release(&p->succ);
}

int tsl_complete_window_z3(tessel_schedule *s, const tsl_bounds *bnd,
			   const tsl_opts *opts, const tsl_deadline *dl)
{
	int64_t lb = tsl_bounds_lower(bnd, s->nmicros);
	if (tsl_schedule_makespan(s) <= lb || tsl_deadline_left_ms(dl) <= 0)
		return TSL_OK;
	wprob p;
	int64_t *saved = NULL;
	int rc = prepare(&p, s);
	if (!rc) {
		saved = tsl_reallocarray(NULL, p.n, sizeof *saved);
		if (!saved)
			rc = tsl_error_nomem();
	}
	int checks = 0, last_gain = -1;
	for (int round = 0; round < 4 * TSL_WINDOW_ROUNDS && !rc; round++) {
		/* never later first; both ways once that stops gaining */
		if (!p.later && (round >= 2 * TSL_WINDOW_ROUNDS ||
				 (round >= 2 && round - last_gain > 2))) {
			p.later = 1;
			last_gain = round - 1;
		}
		int64_t before = tsl_schedule_makespan(s);
		if (before <= lb || tsl_deadline_left_ms(dl) <= 0 ||
		    tsl_options_cancelled(opts->src) || checks >= TSL_WINDOW_MAX_CHECKS)
			break;
		p.mirror = round % 2;
		p.tail = p.mirror ? bnd->head : bnd->tail;
		set_rooms(&p);
		load_problem(&p, s);
		int improved = 0;
		rc = solve_window(&improved, &p, lb, opts, dl, &checks);
		if (rc || !improved) {
			/* both ends tried since the last gain: the next round
			 * would repeat them (in the wider neighbourhood: the
			 * end) */
			if (!rc && p.later && round - last_gain >= 2)
				break;
			continue;
		}
		last_gain = round;
		for (size_t i = 0; i < p.n; i++)
			saved[i] = s->entries[i].start;
		store_problem(s, &p);
		/* kept only when valid and shorter */
		if (tsl_schedule_check(s, dl) != TSL_OK ||
		    tsl_schedule_makespan(s) >= before) {
			for (size_t i = 0; i < p.n; i++)
				s->entries[i].start = saved[i];
		}
	}
	if (rc == TESSEL_ETIMEOUT || rc == TESSEL_ECANCELLED)
		rc = TSL_OK; /* an improvement only: the schedule stands */
	release_problem(&p);
	tsl_free(saved);
	return rc;
}
