/* Compaction: ASAP starts for a fixed order, improved by local search on
 * the critical path. The order fixes each device's sequence of memory
 * deltas, so memory is checked only when the order changes. An instance
 * starts once its devices are free and each dependency has finished and
 * its latency (tsl_dep_latency) passed. */
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
	for (size_t i = 0; i < st->count; i++) {
		if ((i & 65535) == 65535 && tsl_deadline_hard_passed(hard))
			return -2;
		const tsl_block *B = &g->blocks[seq[i].gid];
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

static int better(const state *st, int64_t makespan, int64_t sum)
{
	return st->makespan < makespan ||
	       (st->makespan == makespan && st->sum < sum);
}

/* One improving move along the critical path; 1 if made, 0 if none (also
 * when the deadline passed before one was found). Each try costs a full
 * ASAP pass, so the deadline is looked at before each. */
static int improve_once(state *st, tsl_inst *seq, size_t *pos,
			int64_t *budget, const tsl_deadline *dl)
{
	int64_t makespan = st->makespan, sum = st->sum;
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
			if (asap(st, seq) == 0 && better(st, makespan, sum) &&
			    memory_ok(st, seq)) {
				moved = 1;
				for (size_t i = pu; i <= pv; i++)
					pos[index_of(st, &seq[i])] = i;
			} else if (kind == 0) {
				move_after(seq, pu, pv);
			} else {
				move_before(seq, pv, pu);
			}
		}
	}
	if (!moved)
		asap(st, seq);
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
	int nb = st.g->nblocks, ndeps = 0;
	for (int b = 0; b < nb; b++)
		ndeps += st.g->blocks[b].ndeps;
	st.dep_start = tsl_calloc((size_t)nb + 1, sizeof *st.dep_start);
	st.gap = tsl_calloc((size_t)ndeps + 1, sizeof *st.gap);
	int rc = TSL_OK;
	if (!st.start || !st.bind || (effort > 0 && (!st.path || !pos)) ||
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
	return rc;
}
