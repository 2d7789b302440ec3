/* The smallest period of a repetend's own structure.
 *
 * A repetend of period P places block b at T_b = P q_b + r_b, 0 <= r_b < P.
 * Keep every q_b and, on every device, the order of the residues (ties
 * kept as ties). What is left is a system of difference constraints in the
 * residues whose constants grow with P:
 *
 *   0 <= r_b <= P - 1
 *   r_a - r_b <= P (q_b - q_a) - gap(a, b)        for each dependency a -> b
 *   r_i + max(span_i, 1) <= r_j                   for i just before j on a
 *                                                 device (r_i = r_j when tied)
 *   r_last + span_last <= r_first + P             on each device of >= 2
 *
 * A device's blocks in that order never overlap on the circle (consecutive
 * ones by the third line, the last and the first by the fourth), and the
 * memory formula of repetend_z3.c reads only the q's and the orders, so it
 * keeps its value. The csystem is feasible at the repetend's own period;
 * larger P only loosens it (q_b >= q_a along a dependency with gap >= 0), so
 * bisection finds the smallest P, each probe a queue-based Bellman-Ford
 * pass over the constraint graph (a solution, or a negative cycle:
 * infeasible). The whole bisection has a work bound linear in the size of
 * the csystem, so that a repetend of 10^5 blocks is tightened in a fraction
 * of a second or keeps its best period so far. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "repetend_tighten.h"

typedef struct edge {
	int from, to;      /* x_to - x_from <= w0 + wP * P */
	int64_t w0, wP;
} edge;

typedef struct csystem {
	int nv; /* blocks, then the origin of the residues */
	edge *e;
	int ne, cap;
	int64_t *dist;
	/* the edges by their tail (built once, after the last add_edge) */
	int *out_start; /* nv + 1 */
	int *out_edge;  /* ne */
	/* work space of the queue-based pass */
	int *queue;     /* nv: a ring */
	char *queued;   /* nv */
	int *parent;    /* nv: the edge that last lowered dist, -1 none */
	int *mark;      /* nv: cycle search */
	int64_t work;   /* edge scans left for this repetend */
} csystem;

static int add_edge(csystem *s, int from, int to, int64_t w0, int64_t wP)
{
	if (s->ne == s->cap) {
		int cap = s->cap ? 2 * s->cap : 64;
		edge *e = tsl_reallocarray(s->e, (size_t)cap, sizeof *e);
		if (!e)
			return tsl_error_nomem();
		s->e = e;
		s->cap = cap;
	}
	s->e[s->ne++] = (edge){from, to, w0, wP};
	return TSL_OK;
}

/* The edges by tail, and the work space of feasible(). */
static int index_system(csystem *s)
{
	size_t nv = (size_t)s->nv;
	s->out_start = tsl_calloc(nv + 1, sizeof *s->out_start);
	s->out_edge = tsl_calloc((size_t)s->ne + 1, sizeof *s->out_edge);
	s->queue = tsl_calloc(nv, sizeof *s->queue);
	s->queued = tsl_calloc(nv, 1);
	s->parent = tsl_calloc(nv, sizeof *s->parent);
	s->mark = tsl_calloc(nv, sizeof *s->mark);
	if (!s->out_start || !s->out_edge || !s->queue || !s->queued ||
	    !s->parent || !s->mark)
		return tsl_error_nomem();
	for (int i = 0; i < s->ne; i++)
		s->out_start[s->e[i].from + 1]++;
	for (int v = 0; v < s->nv; v++)
		s->out_start[v + 1] += s->out_start[v];
	for (int i = 0; i < s->ne; i++)
		s->out_edge[s->mark[s->e[i].from]++ + s->out_start[s->e[i].from]] = i;
	return TSL_OK;
}

/* A cycle in the graph of parent edges. Every edge of it lowered its head
 * after its tail last changed, so such a cycle has negative weight: the
 * csystem is infeasible (Tarjan; Cherkassky and Goldberg's "amortized
 * search"). O(nv). */
static int parent_cycle(csystem *s)
{
	for (int v = 0; v < s->nv; v++)
		s->mark[v] = -1;
	for (int v = 0; v < s->nv; v++) {
		int u = v;
		while (u >= 0 && s->mark[u] < 0) {
			s->mark[u] = v;
			u = s->parent[u] >= 0 ? s->e[s->parent[u]].from : -1;
		}
		if (u >= 0 && s->mark[u] == v)
			return 1;
	}
	return 0;
}

/* Bellman-Ford from 0 everywhere, queue-based, with a search for a cycle
 * of parent edges after every nv edge scans: 1 with a solution in s->dist,
 * 0 when a negative cycle makes P infeasible, -1 when the deadline passed
 * or the work bound ran out first. */
static int feasible(csystem *s, int64_t P, const tsl_deadline *dl)
{
	int nv = s->nv, head = 0, count = nv;
	for (int v = 0; v < nv; v++) {
		s->dist[v] = 0;
		s->parent[v] = -1;
		s->queue[v] = v;
		s->queued[v] = 1;
	}
	int64_t scans = 0;
	while (count > 0) {
		int u = s->queue[head];
		head = head + 1 == nv ? 0 : head + 1;
		count--;
		s->queued[u] = 0;
		for (int k = s->out_start[u]; k < s->out_start[u + 1]; k++) {
			const edge *e = &s->e[s->out_edge[k]];
			int64_t d = s->dist[u] + e->w0 + e->wP * P;
			if (d >= s->dist[e->to])
				continue;
			s->dist[e->to] = d;
			s->parent[e->to] = s->out_edge[k];
			if (!s->queued[e->to]) {
				int at = head + count;
				s->queue[at >= nv ? at - nv : at] = e->to;
				s->queued[e->to] = 1;
				count++;
			}
		}
		scans += 1 + s->out_start[u + 1] - s->out_start[u];
		if (scans >= nv) {
			s->work -= scans;
			scans = 0;
			/* (nv scans take milliseconds: the clock every time) */
			if (s->work <= 0 || tsl_deadline_left_ms(dl) <= 0)
				return -1;
			if (parent_cycle(s))
				return 0;
		}
	}
	s->work -= scans;
	return 1;
}

/* Work bound of one tightening, in edge scans of feasible(): the whole
 * bisection of a repetend shares it. A bound reached keeps the best period
 * found so far. */
#define TSL_TIGHTEN_SCANS_PER_EDGE 16
#define TSL_TIGHTEN_SCANS_BASE ((int64_t)1 << 22)

/* The constraints of the repetend T at period P (T >= 0). */
static int build_system(csystem *s, const tessel_graph *g, const tsl_bounds *bnd,
			const int64_t *T, int64_t P, tsl_residue *ord)
{
	int n = g->nblocks, z = n, rc = TSL_OK;
	for (int b = 0; b < n && !rc; b++) {
		rc = add_edge(s, z, b, -1, 1); /* r_b - z <= P - 1 */
		if (!rc)
			rc = add_edge(s, b, z, 0, 0); /* z - r_b <= 0 */
		const tsl_block *B = &g->blocks[b];
		for (int k = 0; k < B->ndeps && !rc; k++) {
			int a = B->deps[k];
			rc = add_edge(s, b, a, -tsl_dep_gap(g, B, k),
				      T[b] / P - T[a] / P);
		}
	}
	for (int d = 0; d < g->ndevices && !rc; d++) {
		int lo = bnd->dev_start[d], cnt = bnd->dev_start[d + 1] - lo;
		for (int i = 0; i < cnt; i++) {
			int b = bnd->dev_block[lo + i];
			ord[i] = (tsl_residue){T[b] % P, b};
		}
		qsort(ord, (size_t)cnt, sizeof *ord, tsl_residue_cmp);
		for (int i = 0; i + 1 < cnt && !rc; i++) {
			int x = ord[i].b, y = ord[i + 1].b;
			if (ord[i].r == ord[i + 1].r) {
				rc = add_edge(s, y, x, 0, 0);
				if (!rc)
					rc = add_edge(s, x, y, 0, 0);
				continue;
			}
			int64_t span = g->blocks[x].span > 0 ? g->blocks[x].span : 1;
			rc = add_edge(s, y, x, -span, 0);
		}
		if (!rc && cnt >= 2) {
			int first = ord[0].b, last = ord[cnt - 1].b;
			rc = add_edge(s, first, last, -(int64_t)g->blocks[last].span, 1);
		}
	}
	return rc;
}

/* 1 when T at period P fits every memory limit, 0 if not, < 0 an error. */
static int fits_memory(const tessel_graph *g, const tsl_bounds *bnd,
		       const int64_t *T, int64_t P)
{
	for (int d = 0; d < g->ndevices; d++) {
		int64_t peak;
		if (g->memory_limit[d] == TESSEL_UNLIMITED)
			continue;
		int rc = tsl_repetend_peak(&peak, g, bnd, T, P, d);
		if (rc)
			return rc;
		if (peak > g->memory_limit[d])
			return 0;
	}
	return 1;
}

int tsl_repetend_tighten(tsl_repetend *rep, int *lowered, const tsl_stage *st,
			 int64_t floor)
{
	const tessel_graph *g = st->g;
	const tsl_bounds *bnd = st->bnd;
	const tsl_deadline *dl = st->dl;
	int n = g->nblocks;
	int64_t P0 = rep->period;
	*lowered = 0;
	for (int b = 0; b < n; b++)
		if (g->blocks[b].span > floor)
			floor = g->blocks[b].span;
	if (floor < 1)
		floor = 1;
	if (n == 0 || P0 <= floor)
		return TSL_OK;
	for (int b = 0; b < n; b++)
		if (rep->T[b] < 0)
			return TSL_OK; /* not the form this reads */
	csystem s = {.nv = n + 1};
	tsl_residue *ord = tsl_calloc((size_t)n + 1, sizeof *ord);
	int64_t *best = tsl_calloc((size_t)n + 1, sizeof *best);
	s.dist = tsl_calloc((size_t)n + 1, sizeof *s.dist);
	int rc = !ord || !best || !s.dist ? tsl_error_nomem() : TSL_OK;
	if (!rc)
		rc = build_system(&s, g, bnd, rep->T, P0, ord);
	if (!rc)
		rc = index_system(&s);
	s.work = TSL_TIGHTEN_SCANS_PER_EDGE * ((int64_t)s.ne + s.nv) +
		 TSL_TIGHTEN_SCANS_BASE;
	int64_t given = s.work;
	/* the repetend's own period must pass, or this reads it wrongly */
	int64_t lo = floor, hi = P0;
	if (!rc && feasible(&s, P0, dl) != 1)
		lo = hi;
	while (!rc && lo < hi) {
		if (tsl_deadline_left_ms(dl) <= 0)
			break;
		int64_t mid = lo + (hi - lo) / 2;
		int f = feasible(&s, mid, dl);
		if (f < 0)
			break;
		if (f) {
			hi = mid;
			memcpy(best, s.dist, (size_t)(n + 1) * sizeof *best);
		} else {
			lo = mid + 1;
		}
	}
	tsl_charge(dl, (given - (s.work > 0 ? s.work : 0)) / TSL_SCANS_PER_TICK);
	if (!rc && hi < P0) {
		int64_t *T = tsl_calloc((size_t)n, sizeof *T);
		if (!T)
			rc = tsl_error_nomem();
		int64_t minT = INT64_MAX, depth = 0;
		for (int b = 0; b < n && !rc; b++) {
			T[b] = hi * (rep->T[b] / P0) + best[b] - best[n];
			if (T[b] < minT)
				minT = T[b];
		}
		for (int b = 0; b < n && !rc; b++) {
			T[b] -= minT;
			if (T[b] + g->blocks[b].span > depth)
				depth = T[b] + g->blocks[b].span;
		}
		int fits = rc ? 0 : fits_memory(g, bnd, T, hi);
		if (fits < 0)
			rc = fits;
		if (fits > 0) {
			memcpy(rep->T, T, (size_t)n * sizeof *T);
			rep->period = hi;
			rep->depth = depth;
			*lowered = 1;
		}
		tsl_free(T);
	}
	tsl_free(s.e);
	tsl_free(s.dist);
	tsl_free(s.out_start);
	tsl_free(s.out_edge);
	tsl_free(s.queue);
	tsl_free(s.queued);
	tsl_free(s.parent);
	tsl_free(s.mark);
	tsl_free(best);
	tsl_free(ord);
	return rc;
}
