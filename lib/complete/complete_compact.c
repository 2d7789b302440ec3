/* Compaction: ASAP starts for a fixed order, improved by local search on
 * the critical path. The order fixes each device's sequence of memory
 * deltas, so memory is checked only when the order changes. An instance
 * starts once its devices are free and each dependency has finished and
 * its latency (tsl_dep_latency) passed. A try of the local search passes
 * over the order only from where it changed, and only while it can still
 * be better (trial_better). */
#include "complete_compact.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "util.h"

typedef struct state {
	tessel_schedule *s;
	const tessel_graph *g;
	size_t count;
	int64_t *start;    /* per entry index (mid * nblocks + gid) */
	int64_t *bind;     /* entry index that fixed the start, -1 none: the
			    * dependency whose finish + latency it is, or
			    * the device predecessor whose finish it is */
	int64_t *path;     /* work space of improve_once */
	int64_t *gap;      /* per dependency, from dep_start[gid]: tsl_dep_gap */
	int *dep_start;
	int64_t *free_at;  /* per device: finish of the last instance */
	int64_t *last_on;  /* per device: entry index of the last instance */
	int64_t *mem;      /* per device: running memory */
	int64_t makespan, sum;
	int64_t last;      /* entry index finishing last */
	int64_t visits;    /* instances visited, not yet charged */
	/* what a trial of the local search needs (NULL without it): the
	 * pass kept per position (makespan and sum of starts before it), the
	 * first position of each device, and the trial's own starts (valid
	 * where stamp equals tid) and device state */
	int64_t *pmax, *psum;
	size_t *first_pos;
	int64_t *tstart, *tfree;
	uint32_t *stamp, *dstamp, tid;
} state;

/* Charge the visits made so far (whole ticks; the rest stays). */
static void charge_visits(state *st, const tsl_deadline *dl)
{
	int64_t ticks = st->visits / TSL_VISITS_PER_TICK;
	tsl_charge(dl, ticks);
	st->visits -= ticks * TSL_VISITS_PER_TICK;
}

static size_t index_of(const state *st, const tsl_inst *x)
{
	return (size_t)x->mid * (size_t)st->g->nblocks + (size_t)x->gid;
}

/* ASAP for the order `seq`; 0 on success, -1 if an instance comes before
 * one of its dependencies, -2 when the hard end of `hard` (may be NULL)
 * passed. */
static int asap_until(state *st, const tsl_inst *seq, const tsl_deadline *hard)
{
	const tessel_graph *g = st->g;
	for (size_t i = 0; i < st->count; i++)
		st->start[i] = -1;
	for (int d = 0; d < g->ndevices; d++) {
		st->free_at[d] = 0;
		st->last_on[d] = -1;
	}
	st->makespan = 0;
	st->sum = 0;
	st->last = -1;
	if (st->first_pos)
		for (int d = 0; d < g->ndevices; d++)
			st->first_pos[d] = SIZE_MAX;
	for (size_t i = 0; i < st->count; i++) {
		if ((i & 65535) == 65535 && tsl_deadline_hard_passed(hard))
			return -2;
		const tsl_block *B = &g->blocks[seq[i].gid];
		if (st->pmax) {
			st->pmax[i] = st->makespan;
			st->psum[i] = st->sum;
			for (int k = 0; k < B->ndevices; k++)
				if (st->first_pos[B->devices[k]] == SIZE_MAX)
					st->first_pos[B->devices[k]] = i;
		}
		size_t me = index_of(st, &seq[i]);
		int64_t t = 0, bind = -1;
		size_t base = (size_t)seq[i].mid * (size_t)g->nblocks;
		const int64_t *gap = st->gap + st->dep_start[seq[i].gid];
		for (int k = 0; k < B->ndeps; k++) {
			size_t dep = base + (size_t)B->deps[k];
			if (st->start[dep] < 0)
				return -1;
			int64_t e = st->start[dep] + gap[k];
			if (e > t) {
				t = e;
				bind = (int64_t)dep;
			}
		}
		for (int k = 0; k < B->ndevices; k++) {
			int d = B->devices[k];
			if (st->free_at[d] > t) {
				t = st->free_at[d];
				bind = st->last_on[d];
			}
		}
		st->start[me] = t;
		st->bind[me] = bind;
		for (int k = 0; k < B->ndevices; k++) {
			st->free_at[B->devices[k]] = t + B->span;
			st->last_on[B->devices[k]] = (int64_t)me;
		}
		st->sum += t;
		if (t + B->span > st->makespan || st->last < 0) {
			st->makespan = t + B->span;
			st->last = (int64_t)me;
		}
	}
	return 0;
}

static int asap(state *st, const tsl_inst *seq)
{
	return asap_until(st, seq, NULL);
}

/* Whether the ASAP pass of `seq` would be better than the committed one
 * (a shorter makespan, or the same and a smaller sum of starts), when `seq` differs from
 * the committed order only at positions from `from` on and pos[] gives
 * the committed position of each entry: the prefix's starts stand, so
 * only the rest is passed over, into the trial's own arrays (the
 * committed state is left as it is), and the pass ends as soon as it
 * can no longer be better. 0 also when an instance comes before one of
 * its dependencies. The same answer as a whole pass (asap) compared
 * with the committed one, in less time; the caller charges the same
 * work. */
static int trial_better(state *st, const tsl_inst *seq, const size_t *pos,
			size_t from)
{
	const tessel_graph *g = st->g;
	int nd = g->ndevices;
	if (++st->tid == 0) {
		memset(st->stamp, 0, st->count * sizeof *st->stamp);
		memset(st->dstamp, 0, (size_t)nd * sizeof *st->dstamp);
		st->tid = 1;
	}
	uint32_t tid = st->tid;
	/* each device's state at `from`: the finish of its last instance
	 * before it, found walking back (devices first seen later: free) */
	int need = 0;
	for (int d = 0; d < nd; d++) {
		st->tfree[d] = 0;
		need += st->first_pos[d] < from;
	}
	for (size_t i = from; i-- > 0 && need > 0;) {
		const tsl_block *B = &g->blocks[seq[i].gid];
		size_t me = index_of(st, &seq[i]);
		for (int k = 0; k < B->ndevices; k++) {
			int d = B->devices[k];
			if (st->dstamp[d] != tid) {
				st->dstamp[d] = tid;
				st->tfree[d] = st->start[me] + B->span;
				need--;
			}
		}
	}
	int64_t mk = st->pmax[from], sum = st->psum[from];
	for (size_t i = from; i < st->count; i++) {
		const tsl_block *B = &g->blocks[seq[i].gid];
		size_t me = index_of(st, &seq[i]);
		int64_t t = 0;
		size_t base = (size_t)seq[i].mid * (size_t)g->nblocks;
		const int64_t *gap = st->gap + st->dep_start[seq[i].gid];
		for (int k = 0; k < B->ndeps; k++) {
			size_t dep = base + (size_t)B->deps[k];
			int64_t at;
			if (st->stamp[dep] == tid)
				at = st->tstart[dep];
			else if (pos[dep] < from)
				at = st->start[dep];
			else
				return 0; /* comes before its dependency */
			if (at + gap[k] > t)
				t = at + gap[k];
		}
		for (int k = 0; k < B->ndevices; k++)
			if (st->tfree[B->devices[k]] > t)
				t = st->tfree[B->devices[k]];
		st->tstart[me] = t;
		st->stamp[me] = tid;
		for (int k = 0; k < B->ndevices; k++)
			st->tfree[B->devices[k]] = t + B->span;
		sum += t;
		if (t + B->span > mk)
			mk = t + B->span;
		/* starts are >= 0: neither can drop again */
		if (mk > st->makespan || (mk == st->makespan && sum >= st->sum))
			return 0;
	}
	return 1;
}

/* Whether the running memory of every device stays within its limit. */
static int memory_ok(state *st, const tsl_inst *seq)
{
	const tessel_graph *g = st->g;
	int limited = 0;
	for (int d = 0; d < g->ndevices; d++) {
		st->mem[d] = 0;
		limited |= g->memory_limit[d] != TESSEL_UNLIMITED;
	}
	if (!limited)
		return 1;
	for (size_t i = 0; i < st->count; i++) {
		const tsl_block *B = &g->blocks[seq[i].gid];
		if (B->memory == 0)
			continue;
		for (int k = 0; k < B->ndevices; k++) {
			int d = B->devices[k];
			st->mem[d] += B->memory;
			if (g->memory_limit[d] != TESSEL_UNLIMITED &&
			    st->mem[d] > g->memory_limit[d])
				return 0;
		}
	}
	return 1;
}

/* Move seq[from] to position `to` (< from), shifting the rest right. */
static void move_before(tsl_inst *seq, size_t from, size_t to)
{
	tsl_inst x = seq[from];
	memmove(&seq[to + 1], &seq[to], (from - to) * sizeof *seq);
	seq[to] = x;
}

/* Move seq[at] to position `from` (> at), shifting the rest left; the
 * inverse of move_before(seq, from, at). */
static void move_after(tsl_inst *seq, size_t at, size_t from)
{
	tsl_inst x = seq[at];
	memmove(&seq[at], &seq[at + 1], (from - at) * sizeof *seq);
	seq[from] = x;
}

/* One improving move along the critical path; 1 if made, 0 if none (also
 * when the deadline passed before one was found). Each try is charged as
 * a full ASAP pass (`count` visits, whatever part of it trial_better
 * passes over, so the work and the result do not depend on how the pass
 * is made), and the deadline is looked at before each. A move made is
 * committed with a full pass. */
static int improve_once(state *st, tsl_inst *seq, size_t *pos,
			int64_t *budget, const tsl_deadline *dl)
{
	int64_t *path = st->path;
	size_t np = 0;
	/* the chain of binding arcs back from the last finish: each start is
	 * its binder's finish (+ the latency on a dependency arc) */
	for (int64_t v = st->last; v >= 0; v = st->bind[v])
		path[np++] = v;
	int moved = 0;
	for (size_t k = 0; k + 1 < np && !moved && *budget > 0 &&
			   tsl_deadline_left_ms(dl) > 0; k++) {
		int64_t v = path[k], u = path[k + 1];
		/* only device arcs: u is not one of v's dependencies */
		int gv = (int)(v % st->g->nblocks), gu = (int)(u % st->g->nblocks);
		if (v / st->g->nblocks == u / st->g->nblocks) {
			const tsl_block *B = &st->g->blocks[gv];
			int dep = 0;
			for (int j = 0; j < B->ndeps; j++)
				dep |= B->deps[j] == gu;
			if (dep)
				continue;
		}
		size_t pv = pos[v], pu = pos[u];
		if (pu >= pv)
			continue;
		/* first try v just before u, then u just after v */
		for (int kind = 0; kind < 2 && !moved; kind++) {
			if (kind == 0)
				move_before(seq, pv, pu);
			else
				move_after(seq, pu, pv);
			*budget -= (int64_t)st->count;
			st->visits += (int64_t)st->count;
			charge_visits(st, dl);
			if (trial_better(st, seq, pos, pu) &&
			    memory_ok(st, seq)) {
				moved = 1;
				for (size_t i = pu; i <= pv; i++)
					pos[index_of(st, &seq[i])] = i;
				asap(st, seq); /* the new order's state */
			} else if (kind == 0) {
				move_after(seq, pu, pv);
			} else {
				move_before(seq, pv, pu);
			}
		}
	}
	return moved;
}

int tsl_compact(tessel_schedule *s, tsl_inst *seq, size_t count,
		int64_t effort, int64_t bound, const tsl_deadline *dl)
{
	int64_t budget = effort;
	return tsl_compact_within(s, seq, count, &budget, bound, dl);
}

int tsl_compact_within(tessel_schedule *s, tsl_inst *seq, size_t count,
		       int64_t *budget, int64_t bound, const tsl_deadline *dl)
{
	int64_t effort = *budget > 0 ? *budget : 0;
	state st = {0};
	st.s = s;
	st.g = s->graph;
	st.count = count;
	int nd = st.g->ndevices;
	st.start = tsl_reallocarray(NULL, count, sizeof *st.start);
	st.bind = tsl_reallocarray(NULL, count, sizeof *st.bind);
	/* the local search's work space only when it runs */
	st.path = effort > 0 ? tsl_reallocarray(NULL, count, sizeof *st.path) : NULL;
	st.free_at = tsl_calloc((size_t)nd, sizeof *st.free_at);
	st.last_on = tsl_calloc((size_t)nd, sizeof *st.last_on);
	st.mem = tsl_calloc((size_t)nd, sizeof *st.mem);
	size_t *pos = effort > 0 ? tsl_reallocarray(NULL, count, sizeof *pos) : NULL;
	if (effort > 0) {
		st.pmax = tsl_reallocarray(NULL, count + 1, sizeof *st.pmax);
		st.psum = tsl_reallocarray(NULL, count + 1, sizeof *st.psum);
		st.first_pos = tsl_calloc((size_t)nd, sizeof *st.first_pos);
		st.tstart = tsl_reallocarray(NULL, count, sizeof *st.tstart);
		st.tfree = tsl_calloc((size_t)nd, sizeof *st.tfree);
		st.stamp = tsl_calloc(count ? count : 1, sizeof *st.stamp);
		st.dstamp = tsl_calloc((size_t)nd, sizeof *st.dstamp);
	}
	int nb = st.g->nblocks, ndeps = 0;
	for (int b = 0; b < nb; b++)
		ndeps += st.g->blocks[b].ndeps;
	st.dep_start = tsl_calloc((size_t)nb + 1, sizeof *st.dep_start);
	st.gap = tsl_calloc((size_t)ndeps + 1, sizeof *st.gap);
	int rc = TSL_OK;
	if (!st.start || !st.bind ||
	    (effort > 0 && (!st.path || !pos || !st.pmax || !st.psum ||
			    !st.first_pos || !st.tstart || !st.tfree ||
			    !st.stamp || !st.dstamp)) ||
	    !st.free_at || !st.last_on || !st.mem || !st.dep_start || !st.gap) {
		rc = tsl_error_nomem();
		goto out;
	}
	for (int b = 0; b < nb; b++) {
		const tsl_block *B = &st.g->blocks[b];
		st.dep_start[b + 1] = st.dep_start[b] + B->ndeps;
		for (int k = 0; k < B->ndeps; k++)
			st.gap[st.dep_start[b] + k] = tsl_dep_gap(st.g, B, k);
	}
	/* the plain ASAP pass always runs, whatever the deadline: it is the
	 * result when nothing better comes in time */
	int r = asap_until(&st, seq, dl);
	if (r == -2) {
		rc = tsl_error(TESSEL_ETIMEOUT,
			       "time limit reached while compacting %zu instances", count);
		goto out;
	}
	if (r) {
		rc = tsl_error(TESSEL_ERROR,
			       "internal: compaction order puts a block before its dependency");
		goto out;
	}
	if (effort > 0 && memory_ok(&st, seq)) {
		for (size_t i = 0; i < count; i++)
			pos[index_of(&st, &seq[i])] = i;
		while (*budget > 0 && st.makespan > bound &&
		       tsl_deadline_left_ms(dl) > 0 &&
		       improve_once(&st, seq, pos, budget, dl) > 0)
			;
	}
	for (size_t i = 0; i < count; i++)
		s->entries[i].start = st.start[i];
	/* the plain pass, and what is left of the local search's visits */
	st.visits += (int64_t)count;
	charge_visits(&st, dl);
out:
	tsl_free(st.start);
	tsl_free(st.bind);
	tsl_free(st.path);
	tsl_free(st.gap);
	tsl_free(st.dep_start);
	tsl_free(st.free_at);
	tsl_free(st.last_on);
	tsl_free(st.mem);
	tsl_free(pos);
	tsl_free(st.pmax);
	tsl_free(st.psum);
	tsl_free(st.first_pos);
	tsl_free(st.tstart);
	tsl_free(st.tfree);
	tsl_free(st.stamp);
	tsl_free(st.dstamp);
	return rc;
}
