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
 * whose order the neighbourhood fixes need no literal. The model is
 * complete_model_z3.c's (the direct solve's too); in mirrored time (u = H -
 * start - span) dependencies reverse, each delta, negated, applies at the
 * instance's real start, and the limit is the limit minus the device's
 * total of all deltas (as in the backward pass of complete_sgs.c), so the
 * same model holds. The result is kept only when it passes the validator. */
#include "complete_window_z3.h"

#include <stdlib.h>
#include <string.h>

#include "complete_compact.h"
#include "complete_model_z3.h"
#include "complete_sgs.h"
#include "error.h"
#include "graph.h"
#include "options.h"
#include "schedule.h"
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

#define span_of tsl_problem_span

/* An instance by its start, for the window's selection. */
typedef struct late {
	int64_t start;
	size_t i;
} late;

static int cmp_late_desc(const void *x, const void *y)
{
	const late *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? 1 : -1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Heap of the latest starts, the earliest of them at the root. */
static void late_sift_down(late *h, size_t n, size_t k)
{
	for (;;) {
		size_t l = 2 * k + 1, m = k;
		if (l < n && h[l].start < h[m].start)
			m = l;
		if (l + 1 < n && h[l + 1].start < h[m].start)
			m = l + 1;
		if (m == k)
			return;
		late t = h[k];
		h[k] = h[m];
		h[m] = t;
		k = m;
	}
}

/* T0: the earliest start such that the instances starting at T0 or later
 * stay within the window's size; INT64_MAX when even the last step's
 * instances do not. One pass keeps the TSL_WINDOW_MAX_INSTANCES + 1
 * latest starts (a heap): every instance starting after the earliest of
 * them is among them, and a step that reaches that earliest start makes
 * the window too large. */
static int64_t window_start(const tsl_problem *p)
{
	const tessel_graph *g = p->g;
	enum { KEEP = TSL_WINDOW_MAX_INSTANCES + 1 };
	late h[KEEP];
	size_t nh = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (nh < KEEP) {
			h[nh++] = (late){p->start[i], i};
			if (nh == KEEP)
				for (size_t k = KEEP / 2; k-- > 0;)
					late_sift_down(h, KEEP, k);
		} else if (p->start[i] > h[0].start) {
			h[0] = (late){p->start[i], i};
			late_sift_down(h, KEEP, 0);
		}
	}
	qsort(h, nh, sizeof *h, cmp_late_desc);
	int64_t *count = tsl_calloc((size_t)g->ndevices, sizeof *count);
	if (!count)
		return INT64_MAX;
	/* pairs are counted per device (a multi-device pair more than once:
	 * an over-estimate, which only shrinks the window) */
	int64_t t0 = INT64_MAX, pairs = 0;
	size_t taken = 0;
	while (taken < nh) {
		int64_t t = h[taken].start;
		size_t end = taken;
		int64_t add = 0;
		/* all instances at step t together */
		while (end < nh && h[end].start == t)
			end++;
		if (end > TSL_WINDOW_MAX_INSTANCES)
			break;
		for (size_t x = taken; x < end; x++) {
			const tsl_block *B = &g->blocks[h[x].i % (size_t)g->nblocks];
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

/* Lower the window's makespan below the problem's: *improved when p->start
 * now holds a shorter schedule. Targets 1, 2, 4, ... steps below the best
 * while they are met, then halving from the first that is not (as in
 * complete_direct_z3.c); every check is bounded by the deadline and a work bound. */
static int solve_window(int *improved, tsl_problem *p, int64_t lb,
			const tsl_opts *opts, const tsl_deadline *dl, int *checks)
{
	*improved = 0;
	int64_t t0 = window_start(p);
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
	size_t *win = tsl_calloc(nwin + 1, sizeof *win);
	int64_t *found = tsl_calloc(nwin + 1, sizeof *found);
	int rc = !win || !found ? tsl_error_nomem() : TSL_OK;
	size_t x = 0;
	for (size_t i = 0; i < p->n && !rc; i++)
		if (p->start[i] >= t0)
			win[x++] = i;
	int left = TSL_WINDOW_MAX_CHECKS - *checks;
	if (!rc)
		rc = tsl_problem_lower(improved, &best, &lb, found, p, win, nwin,
				       opts, TSL_WINDOW_RLIMIT, &left, dl);
	*checks = TSL_WINDOW_MAX_CHECKS - (left > 0 ? left : 0);
	if (!rc && *improved)
		for (x = 0; x < nwin; x++)
			p->start[win[x]] = found[x];
	tsl_free(win);
	tsl_free(found);
	return rc;
}

/* The problem's starts from the schedule's (mirror: u = H - start - span)
 * and back. */
static void load_problem(tsl_problem *p, const tessel_schedule *s)
{
	int64_t H = tsl_schedule_makespan(s);
	for (size_t i = 0; i < p->n; i++)
		p->start[i] = p->mirror ? H - s->entries[i].start - span_of(p, i)
					: s->entries[i].start;
}

static void store_problem(tessel_schedule *s, const tsl_problem *p)
{
	int64_t H = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->start[i] + span_of(p, i) > H)
			H = p->start[i] + span_of(p, i);
	/* (a window that moved the first entries later: from step 0, as a
	 * mirrored one always is) */
	int64_t first = INT64_MAX;
	for (size_t i = 0; i < p->n && !p->mirror; i++)
		if (p->start[i] < first)
			first = p->start[i];
	if (p->mirror || first == INT64_MAX || first < 0)
		first = 0;
	for (size_t i = 0; i < p->n; i++)
		s->entries[i].start = p->mirror ? H - p->start[i] - span_of(p, i)
						: p->start[i] - first;
}

static int prepare(tsl_problem *p, const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	memset(p, 0, sizeof *p);
	p->g = g;
	p->nmicros = s->nmicros;
	p->reach = TSL_WINDOW_REACH;
	p->n = (size_t)g->nblocks * (size_t)s->nmicros;
	p->start = tsl_reallocarray(NULL, p->n, sizeof *p->start);
	p->room = tsl_calloc((size_t)g->ndevices, sizeof *p->room);
	if (!p->start || !p->room)
		return tsl_error_nomem();
	return tsl_succ_build(&p->succ, g);
}

/* Per device the limit in the problem's time (see the top comment). */
static void set_rooms(tsl_problem *p)
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

static void release_problem(tsl_problem *p)
{
	tsl_free(p->start);
	tsl_free(p->room);
	tsl_succ_release(&p->succ);
}

int tsl_complete_window_z3(tessel_schedule *s, const tsl_stage *st)
{
	const tsl_bounds *bnd = st->bnd;
	const tsl_opts *opts = st->opts;
	const tsl_deadline *dl = st->dl;
	int64_t lb = tsl_bounds_lower(bnd, s->nmicros);
	if (tsl_schedule_makespan(s) <= lb || tsl_deadline_left_ms(dl) <= 0)
		return TSL_OK;
	tsl_problem p;
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
