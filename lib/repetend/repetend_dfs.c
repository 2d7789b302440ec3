/* Memory-aware modulo scheduling by depth-first search.
 *
 * When list scheduling finds no repetend within the memory limits at a
 * period (typically crossing pipelines under a tight limit: every slot of
 * the circle is used and the in-flight count decides), this search places
 * the blocks in a topological order, each at one of the candidate starts
 * within one period after its dependencies where it fits, and backtracks.
 * The candidates are every multiple of the graph's time unit (the gcd of
 * spans and latencies) when the period holds few of them, else the starts
 * that touch busy time or leave room for the blocks still to place: the
 * earliest, the start of a repetition, right after the end of an arc and
 * just before the start of one, each also moved by a sum of the spans of
 * some blocks still to place on the device (a perfect packing at the
 * resource bound puts every block at such a place). So the work depends
 * on the number of blocks, not on the span values. It prunes with
 *  - memory: once every block that allocates on a device is placed, the
 *    device's steady-state peak counts the placed blocks exactly and each
 *    unplaced freeing block at its earliest start (its least possible
 *    contribution, see peak_bound);
 *  - depth: after a first repetend, only shallower ones are searched.
 * The work is bounded (deterministic units), so the result does not depend
 * on the machine; the shallowest repetend found is kept. */
#include <stdlib.h>
#include <string.h>

#include "circle.h"
#include "error.h"
#include "options.h"
#include "repetend.h"
#include "repetend_dfs.h"
#include "repetend_heuristic.h"
#include "util.h"

typedef struct dfs {
	const tessel_graph *g;
	const tsl_bounds *bnd;
	const int *order;  /* topological */
	int n;
	int64_t P;
	int64_t unit;        /* gcd of spans and latencies */
	int fine;            /* every multiple of unit is a candidate */
	tsl_circles busy;
	int64_t *T;
	int64_t *lb;         /* per block: earliest start given the placed */
	char *placed;
	int *alloc_left;     /* per device: unplaced blocks with memory > 0 */
	int64_t *next;       /* per level: index of the next candidate */
	int64_t *cand;       /* per level: TSL_DFS_CANDIDATES start offsets */
	int *ncand;          /* per level: candidates, -1 not made yet */
	int64_t *sums;       /* work space: subset sums of spans */
	int *tried;          /* per level: promising starts taken so far */
	int *used;           /* per level: discrepancies of the levels above */
	int64_t *pin;        /* per block: reserved start mod P, or -1 */
	int64_t budget;
	int64_t start_budget; /* of the current reservation of wide blocks */
	int64_t charged;      /* of start_budget - budget, charged to dl */
	int64_t best_depth;  /* 0: none yet */
	int64_t *best_T;
	int64_t *term_q, *term_r, *term_m; /* work space of peak_bound */
	const tsl_deadline *dl;
	const tessel_options *src;
	int stopped;         /* deadline, cancel, or an allocation failed */
	int nomem;
} dfs;

static int fits(dfs *s, const tsl_block *B, int64_t t)
{
	return B->span <= s->P && !tsl_circles_conflict(&s->busy, B, t);
}

/* Occupy (v = 1) or free (v = 0) b's time at start t; a pinned block's
 * time stays reserved either way. */
static void mark(dfs *s, int b, int64_t t, unsigned char v)
{
	const tsl_block *B = &s->g->blocks[b];
	if (s->pin[b] < 0) {
		if (!v)
			tsl_circles_vacate(&s->busy, B, b, t);
		else if (tsl_circles_occupy(&s->busy, B, b, t))
			s->nomem = s->stopped = 1;
	}
	for (int k = 0; k < B->ndevices; k++)
		if (B->memory > 0)
			s->alloc_left[B->devices[k]] += v ? -1 : 1;
	s->placed[b] = v;
	s->T[b] = t;
}

/* Earliest starts of the unplaced blocks (levels after k). */
static void update_lb(dfs *s, int k)
{
	const tessel_graph *g = s->g;
	s->budget -= s->n - k;
	for (int j = k + 1; j < s->n; j++) {
		int c = s->order[j];
		const tsl_block *C = &g->blocks[c];
		int64_t e = 0;
		for (int i = 0; i < C->ndeps; i++) {
			int a = C->deps[i];
			int64_t f = (s->placed[a] ? s->T[a] : s->lb[a]) +
				    tsl_dep_gap(g, C, i);
			if (f > e)
				e = f;
		}
		s->lb[c] = e;
		s->budget -= 1 + C->ndeps;
	}
}

/* A lower bound of device d's steady-state peak when all its allocating
 * blocks are placed (the formula of tsl_repetend_peak): an unplaced
 * freeing block c at start T >= lb[c] contributes m * (T / P - [T % P <=
 * rc]) with m = -memory, least at T / P = lb / P. */
static int64_t peak_bound(dfs *s, int d)
{
	const tessel_graph *g = s->g;
	const tsl_bounds *bnd = s->bnd;
	int64_t peak = 0, P = s->P;
	/* each block's term, m (r <= rc ? 1 : 0) - m q, with q and r of its
	 * start (placed) or earliest start (not placed) taken once, not once
	 * for every allocating block */
	int nm = 0;
	for (int y = bnd->dev_start[d]; y < bnd->dev_start[d + 1]; y++) {
		int b = bnd->dev_block[y];
		const tsl_block *B = &g->blocks[b];
		if (B->memory == 0)
			continue;
		int64_t t = s->placed[b] ? s->T[b] : s->lb[b]; /* memory < 0 if not */
		s->term_q[nm] = t / P;
		s->term_r[nm] = t % P;
		s->term_m[nm] = B->memory;
		nm++;
	}
	for (int x = bnd->dev_start[d]; x < bnd->dev_start[d + 1]; x++) {
		int c = bnd->dev_block[x];
		if (g->blocks[c].memory <= 0)
			continue;
		int64_t rc = s->T[c] % P, mem = 0;
		for (int i = 0; i < nm; i++)
			mem += s->term_m[i] * ((s->term_r[i] <= rc ? 1 : 0) - s->term_q[i]);
		s->budget -= bnd->dev_start[d + 1] - bnd->dev_start[d];
		if (mem > peak)
			peak = mem;
	}
	return peak;
}

/* Whether block c still has a free start somewhere on the circle. A
 * block of one device whose runs_fit said TSL_RUNS_EXACT has one (a free
 * run at least its span): then the circle is not walked again, for the
 * same work. */
static int has_room(dfs *s, int c, int exact)
{
	const tsl_block *C = &s->g->blocks[c];
	for (int k = 0; k < C->ndevices; k++)
		s->budget -= 1 + s->busy.dev[C->devices[k]].n;
	if (exact && C->ndevices == 1 && !s->placed[c])
		return 1;
	return tsl_circles_fit(&s->busy, C, 0) >= 0;
}

/* runs_fit's answers: no; yes, unchecked (too many runs or blocks to
 * look at); yes, every unplaced free block of the device has a run at
 * least its span. */
enum { TSL_RUNS_NO, TSL_RUNS_UNCHECKED, TSL_RUNS_EXACT };

/* Whether the unplaced blocks of device d fit its free runs, by best fit
 * in decreasing span order. Bin packing by a greedy rule can say no where
 * a packing exists: the search is a heuristic, it then only misses that
 * branch (every repetend it returns is still checked). */
static int runs_fit(dfs *s, int d)
{
	const tsl_bounds *bnd = s->bnd;
	int64_t runs[64];
	int nr = tsl_circle_free_runs(&s->busy, d, runs, 64);
	if (nr > 64)
		return TSL_RUNS_UNCHECKED;
	int64_t spans[64];
	int ns = 0;
	for (int x = bnd->dev_start[d]; x < bnd->dev_start[d + 1]; x++) {
		int c = bnd->dev_block[x];
		if (s->placed[c] || s->pin[c] >= 0)
			continue;
		if (ns == 64)
			return TSL_RUNS_UNCHECKED;
		int64_t sp = s->g->blocks[c].span, j = ns++;
		while (j > 0 && spans[j - 1] < sp) {
			spans[j] = spans[j - 1];
			j--;
		}
		spans[j] = sp;
	}
	s->budget -= nr + ns + s->busy.dev[d].n;
	/* the largest blocks must each find a run; greedy best fit */
	for (int j = 0; j < ns; j++) {
		int best = -1;
		for (int i = 0; i < nr; i++)
			if (runs[i] >= spans[j] && (best < 0 || runs[i] < runs[best]))
				best = i;
		if (best < 0)
			return TSL_RUNS_NO;
		runs[best] -= spans[j];
	}
	return TSL_RUNS_EXACT;
}

/* Whether placing order[k] keeps a chance: room, memory and depth. */
static int promising(dfs *s, int k)
{
	const tessel_graph *g = s->g;
	int b = s->order[k];
	const tsl_block *B = &g->blocks[b];
	if (s->best_depth &&
	    s->T[b] + B->span + s->bnd->tail[b] >= s->best_depth)
		return 0;
	/* (the devices of B whose free runs were checked exactly; a block of
	 * one device shares a device with B only on one of them) */
	int exact = 1;
	for (int i = 0; i < B->ndevices; i++) {
		int fit = runs_fit(s, B->devices[i]);
		if (fit == TSL_RUNS_NO)
			return 0;
		exact &= fit == TSL_RUNS_EXACT;
	}
	s->budget -= s->n - k;
	for (int j = k + 1; j < s->n; j++) {
		int c = s->order[j];
		if (s->pin[c] < 0 && tsl_blocks_share_device(B, &g->blocks[c]) &&
		    !has_room(s, c, exact))
			return 0;
	}
	int lb_done = 0;
	for (int i = 0; i < B->ndevices; i++) {
		int d = B->devices[i];
		int64_t limit = g->memory_limit[d];
		if (limit == TESSEL_UNLIMITED || s->alloc_left[d] > 0)
			continue;
		if (!lb_done) {
			update_lb(s, k);
			lb_done = 1;
		}
		if (peak_bound(s, d) > limit)
			return 0;
	}
	return 1;
}

static void record(dfs *s)
{
	int64_t depth = 0;
	for (int b = 0; b < s->n; b++)
		if (s->T[b] + s->g->blocks[b].span > depth)
			depth = s->T[b] + s->g->blocks[b].span;
	if (s->best_depth && depth >= s->best_depth)
		return;
	/* after the first repetend, shallower ones get at most the work
	 * the first took */
	if (!s->best_depth && s->budget > s->start_budget - s->budget) {
		int64_t spent = s->start_budget - s->budget;
		s->budget = spent;
		s->start_budget = 2 * spent; /* start - budget: still the work spent */
	}
	s->best_depth = depth;
	memcpy(s->best_T, s->T, (size_t)s->n * sizeof *s->T);
}

static int64_t mod(int64_t t, int64_t P)
{
	int64_t x = t % P;
	return x < 0 ? x + P : x;
}

/* Candidate starts of a level, as offsets from the earliest start e, at
 * most this many (the smallest). */
#define TSL_DFS_CANDIDATES 256
/* Subset sums kept per device (the smallest). */
#define TSL_DFS_SUMS 48

/* Sort a[0..n) (n <= 4 TSL_DFS_CANDIDATES, values in [0, P)): by
 * insertion when few, else by radix, a byte a pass, as many passes as P
 * needs: linear in n, where qsort took most of the search's time. */
static void sort_offsets(int64_t *a, int n, int64_t P)
{
	if (n <= 64) {
		/* few: insertion, without the passes' fixed cost of 257
		 * counters each (the same order: a sort of plain values) */
		for (int i = 1; i < n; i++) {
			int64_t v = a[i];
			int j = i;
			for (; j > 0 && a[j - 1] > v; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return;
	}
	int64_t tmp[4 * TSL_DFS_CANDIDATES];
	int64_t *src = a, *dst = tmp;
	for (int shift = 0; shift < 64 && (shift == 0 || ((uint64_t)(P - 1) >> shift) != 0);
	     shift += 8) {
		int cnt[257] = {0};
		for (int i = 0; i < n; i++)
			cnt[(((uint64_t)src[i] >> shift) & 255) + 1]++;
		for (int d = 0; d < 256; d++)
			cnt[d + 1] += cnt[d];
		for (int i = 0; i < n; i++)
			dst[cnt[((uint64_t)src[i] >> shift) & 255]++] = src[i];
		int64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, (size_t)n * sizeof *a);
}

/* Sorted distinct sums (0 included, below P, at most TSL_DFS_SUMS of the
 * smallest) of the spans of the blocks on d still to place, b excepted:
 * the room that a gap before or after b may need to hold them. */
static int subset_sums(dfs *s, int d, int b, int64_t *out)
{
	const tsl_bounds *bnd = s->bnd;
	int64_t *tmp = out + TSL_DFS_SUMS;
	int n = 1;
	out[0] = 0;
	for (int x = bnd->dev_start[d]; x < bnd->dev_start[d + 1]; x++) {
		int c = bnd->dev_block[x];
		if (c == b || s->placed[c] || s->pin[c] >= 0)
			continue;
		int64_t sp = s->g->blocks[c].span;
		/* merge out with out + sp */
		int i = 0, j = 0, m = 0;
		while (m < TSL_DFS_SUMS && (i < n || j < n)) {
			int64_t v;
			if (j >= n || (i < n && out[i] <= out[j] + sp))
				v = out[i++];
			else
				v = out[j++] + sp;
			if (v >= s->P)
				break;
			if (m == 0 || tmp[m - 1] != v)
				tmp[m++] = v;
		}
		memcpy(out, tmp, (size_t)m * sizeof *out);
		n = m;
		s->budget -= n;
	}
	return n;
}

/* The candidate starts of block B with earliest start e: every multiple of
 * the time unit in fine mode; else e, the start of a repetition, right
 * after the end and just before the start of each arc on its devices,
 * each also moved by a subset sum of the spans still to place there (so
 * that a gap can be left for them). Sorted offsets from e in [0, P). */
static int make_candidates(dfs *s, int b, int64_t e, int64_t *out)
{
	const tsl_block *B = &s->g->blocks[b];
	int64_t P = s->P;
	int n = 0;
	if (s->fine) {
		for (int64_t off = 0; off < P && n < TSL_DFS_CANDIDATES; off += s->unit)
			out[n++] = off;
		s->budget -= n;
		return n;
	}
	/* collected with repeats into the work space, then sorted */
	int64_t *all = s->sums + 2 * TSL_DFS_SUMS;
	int na = 0, cap = 4 * TSL_DFS_CANDIDATES;
#define ADD(v)                                                               \
	do {                                                                 \
		if (na < cap)                                                \
			all[na++] = mod((v) - e, P);                         \
	} while (0)
	ADD(e);
	ADD(0);
	for (int k = 0; k < B->ndevices; k++) {
		int d = B->devices[k];
		const tsl_circle *cd = &s->busy.dev[d];
		int ns = subset_sums(s, d, b, s->sums);
		s->budget -= 1 + (int64_t)cd->n * ns;
		for (int j = 0; j < ns; j++) {
			ADD(e + s->sums[j]);
			ADD(s->sums[j]);
			for (tsl_circle_pos p = tsl_circle_begin(cd);
			     tsl_circle_valid(cd, p); p = tsl_circle_step(cd, p)) {
				ADD(tsl_circle_at(cd, p)->end + s->sums[j]);
				ADD(tsl_circle_at(cd, p)->start - B->span - s->sums[j]);
			}
		}
	}
#undef ADD
	sort_offsets(all, na, P);
	for (int i = 0; i < na && n < TSL_DFS_CANDIDATES; i++)
		if (n == 0 || out[n - 1] != all[i])
			out[n++] = all[i];
	return n;
}

/* The work spent since the last charge, charged (whole ticks). */
static void charge_spent(dfs *s)
{
	int64_t spent = s->start_budget - (s->budget > 0 ? s->budget : 0);
	int64_t ticks = (spent - s->charged) / TSL_DFS_UNITS_PER_TICK;
	tsl_charge(s->dl, ticks);
	s->charged += ticks * TSL_DFS_UNITS_PER_TICK;
}

static int out_of_time(dfs *s)
{
	charge_spent(s);
	if (!s->stopped && (tsl_deadline_left_ms(s->dl) <= 0 ||
			    tsl_options_cancelled(s->src)))
		s->stopped = 1;
	return s->stopped;
}

/* One pass of limited discrepancy search: at each level the first
 * promising start is free, every later one costs a discrepancy, and a pass
 * allows at most `limit` of them. */
static void search(dfs *s, int limit)
{
	const tessel_graph *g = s->g;
	int k = 0;
	long steps = 0;
	s->next[0] = 0;
	s->tried[0] = 0;
	s->used[0] = 0;
	s->ncand[0] = -1;
	while (k >= 0 && s->budget > 0 && !s->stopped) {
		if ((++steps & 1023) == 0 && out_of_time(s))
			break;
		if (k == s->n) {
			record(s);
			k--;
			continue;
		}
		int b = s->order[k];
		const tsl_block *B = &g->blocks[b];
		if (s->placed[b])
			mark(s, b, s->T[b], 0); /* undo the last try */
		int64_t e = tsl_ready_time(g, b, s->T, NULL);
		int64_t *cand = s->cand + (size_t)k * TSL_DFS_CANDIDATES;
		if (s->ncand[k] < 0)
			s->ncand[k] = s->pin[b] >= 0 ? 1 : make_candidates(s, b, e, cand);
		int advanced = 0;
		while (s->next[k] < s->ncand[k] && s->budget > 0 && !s->stopped &&
		       (s->tried[k] == 0 || s->used[k] < limit)) {
			int64_t t;
			s->budget -= 1 + B->ndevices;
			if (s->pin[b] >= 0) { /* the one start with its residue */
				t = e + mod(s->pin[b] - e, s->P);
				s->next[k] = s->ncand[k];
			} else {
				t = e + cand[s->next[k]++];
				if (!fits(s, B, t))
					continue;
			}
			mark(s, b, t, 1);
			if (promising(s, k)) {
				advanced = 1;
				break;
			}
			mark(s, b, t, 0);
		}
		if (advanced) {
			s->used[k + 1] = s->used[k] + (s->tried[k] > 0);
			s->tried[k]++;
			k++;
			if (k < s->n) {
				s->next[k] = 0;
				s->tried[k] = 0;
				s->ncand[k] = -1;
			}
		} else {
			k--;
		}
	}
	/* leave nothing placed */
	for (int b = 0; b < s->n; b++)
		if (s->placed[b])
			mark(s, b, s->T[b], 0);
}

/* Blocks on every device share one circle: their residues are chosen
 * first (the first at 0, the others side by side, then further apart)
 * and reserved, so the search places the rest around them. Fills
 * combo[0 .. count) with one residue per full-width block, for up to
 * `max` combinations; returns the count. */
#define MAX_WIDE 8
#define MAX_COMBOS 8

static int wide_combos(int64_t (*combo)[MAX_WIDE], int max, const int *span,
		       int nw, int64_t P)
{
	int count = 0;
	int64_t cur[MAX_WIDE];
	int64_t off[MAX_WIDE] = {0};
	int j = 1;
	cur[0] = 0;
	if (nw == 1) {
		combo[0][0] = 0;
		return 1;
	}
	/* block j starts off[j] slots after the end of block j-1 */
	off[1] = 0;
	while (j >= 1 && count < max) {
		if (off[j] >= P) {
			j--;
			if (j >= 1)
				off[j]++;
			continue;
		}
		int64_t r = (cur[j - 1] + span[j - 1] + off[j]) % P;
		int ok = 1;
		for (int i = 0; i < j && ok; i++) { /* circular overlap */
			int64_t d1 = ((r - cur[i]) % P + P) % P;
			int64_t d2 = ((cur[i] - r) % P + P) % P;
			ok = d1 >= span[i] && d2 >= span[j];
		}
		if (!ok) {
			off[j]++;
			continue;
		}
		cur[j] = r;
		if (j == nw - 1) {
			memcpy(combo[count++], cur, sizeof cur);
			off[j]++;
		} else {
			j++;
			off[j] = 0;
		}
	}
	return count;
}

static void reserve(dfs *s, int b, int64_t r, unsigned char v)
{
	const tsl_block *B = &s->g->blocks[b];
	if (!v)
		tsl_circles_vacate(&s->busy, B, b, r);
	else if (tsl_circles_occupy(&s->busy, B, b, r))
		s->nomem = s->stopped = 1;
}

/* Periods with at most this many multiples of the time unit try every one
 * of them as a start. */
#define TSL_DFS_FINE_POSITIONS 64

/* The grid the search places on: the gcd of the spans, the latencies
 * and P (at least 1); fine when P holds few enough of its steps. */
static void dfs_unit(dfs *s)
{
	const tessel_graph *g = s->g;
	for (int b = 0; b < s->n; b++) {
		const tsl_block *B = &g->blocks[b];
		s->unit = tsl_gcd64(s->unit, B->span);
		for (int j = 0; j < B->ndeps; j++)
			s->unit = tsl_gcd64(s->unit, tsl_dep_latency(g, B, j));
	}
	s->unit = tsl_gcd64(s->unit, s->P);
	if (s->unit < 1)
		s->unit = 1;
	s->fine = s->P / s->unit <= TSL_DFS_FINE_POSITIONS;
}

/* The search's arrays (the circles apart); TESSEL_ENOMEM. */
static int dfs_alloc(dfs *s)
{
	size_t n = (size_t)s->n;
	s->T = tsl_calloc(n, sizeof *s->T);
	s->lb = tsl_calloc(n, sizeof *s->lb);
	s->best_T = tsl_calloc(n, sizeof *s->best_T);
	s->term_q = tsl_calloc(n, sizeof *s->term_q);
	s->term_r = tsl_calloc(n, sizeof *s->term_r);
	s->term_m = tsl_calloc(n, sizeof *s->term_m);
	s->next = tsl_calloc(n + 1, sizeof *s->next);
	s->ncand = tsl_calloc(n + 1, sizeof *s->ncand);
	s->cand = tsl_reallocarray(NULL, n + 1, TSL_DFS_CANDIDATES * sizeof *s->cand);
	s->sums = tsl_calloc(2 * TSL_DFS_SUMS + 4 * TSL_DFS_CANDIDATES,
			     sizeof *s->sums);
	s->placed = tsl_calloc(n, 1);
	s->pin = tsl_calloc(n, sizeof *s->pin);
	s->tried = tsl_calloc(n + 1, sizeof *s->tried);
	s->used = tsl_calloc(n + 1, sizeof *s->used);
	s->alloc_left = tsl_calloc((size_t)s->g->ndevices, sizeof *s->alloc_left);
	if (!s->T || !s->lb || !s->best_T || !s->term_q || !s->term_r ||
	    !s->term_m || !s->next || !s->ncand || !s->cand ||
	    !s->sums || !s->placed || !s->pin || !s->tried || !s->used ||
	    !s->alloc_left)
		return tsl_error_nomem();
	return TSL_OK;
}

static void dfs_release(dfs *s)
{
	tsl_circles_release(&s->busy);
	tsl_free(s->T);
	tsl_free(s->lb);
	tsl_free(s->best_T);
	tsl_free(s->term_q);
	tsl_free(s->term_r);
	tsl_free(s->term_m);
	tsl_free(s->next);
	tsl_free(s->ncand);
	tsl_free(s->cand);
	tsl_free(s->sums);
	tsl_free(s->placed);
	tsl_free(s->pin);
	tsl_free(s->tried);
	tsl_free(s->used);
	tsl_free(s->alloc_left);
}

/* The blocks on every device (at most MAX_WIDE, else none: too many to
 * enumerate their positions) into wide[] and their spans into wspan[];
 * their count. Every block unpinned. */
static int wide_blocks(dfs *s, int *wide, int *wspan)
{
	const tessel_graph *g = s->g;
	int nw = 0;
	for (int k = 0; k < s->n; k++) {
		const tsl_block *B = &g->blocks[s->order[k]];
		if (B->ndevices == g->ndevices && g->ndevices > 1 && B->span <= s->P) {
			if (nw == MAX_WIDE) {
				nw = 0;
				break;
			}
			wspan[nw] = B->span;
			wide[nw++] = s->order[k];
		}
	}
	for (int k = 0; k < s->n; k++)
		s->pin[k] = -1;
	return nw;
}

/* The best repetend found into rep, shifted by whole periods to start
 * near 0 (which keeps the memory formula's value). */
static void dfs_store(const dfs *s, tsl_repetend *rep, const tsl_bounds *bnd)
{
	int64_t minT = INT64_MAX, P = s->P;
	for (int b = 0; b < s->n; b++)
		if (s->best_T[b] < minT)
			minT = s->best_T[b];
	minT -= minT % P;
	for (int b = 0; b < s->n; b++)
		rep->T[b] = s->best_T[b] - minT;
	rep->period = P;
	rep->depth = s->best_depth - minT;
	rep->optimal = P == bnd->resource_bound;
}

int tsl_repetend_dfs(tsl_repetend *rep, int *found, const tsl_stage *st,
		     const int *order, int64_t P, int64_t budget)
{
	const tessel_graph *g = st->g;
	const tsl_bounds *bnd = st->bnd;
	dfs s = {0};
	int n = g->nblocks;
	int *own_order = NULL;
	*found = 0;
	if (!order) {
		own_order = tsl_calloc((size_t)n, sizeof *own_order);
		if (!own_order)
			return tsl_error_nomem();
		int rc = tsl_bounds_order_by_head(own_order, bnd);
		if (rc) {
			tsl_free(own_order);
			return rc;
		}
		order = own_order;
	}
	s.g = g;
	s.bnd = bnd;
	s.order = order;
	s.n = n;
	s.P = P;
	s.budget = budget;
	s.dl = st->dl;
	s.src = tsl_stage_src(st);
	dfs_unit(&s);
	int rc = tsl_circles_init(&s.busy, g->ndevices);
	if (rc) {
		tsl_free(own_order);
		return rc;
	}
	tsl_circles_reset(&s.busy, P);
	rc = dfs_alloc(&s);
	if (rc)
		goto out;
	for (int b = 0; b < n; b++)
		if (g->blocks[b].memory > 0)
			for (int i = 0; i < g->blocks[b].ndevices; i++)
				s.alloc_left[g->blocks[b].devices[i]]++;
	int wide[MAX_WIDE], wspan[MAX_WIDE];
	int nw = wide_blocks(&s, wide, wspan);
	int64_t combo[MAX_COMBOS][MAX_WIDE];
	int ncombo = nw ? wide_combos(combo, MAX_COMBOS, wspan, nw, P) : 1;
	int64_t total = budget;
	for (int c = 0; c < ncombo && !s.best_depth && !s.stopped; c++) {
		s.budget = s.start_budget = total / ncombo;
		for (int i = 0; i < nw; i++) {
			reserve(&s, wide[i], combo[c][i], 1);
			s.pin[wide[i]] = combo[c][i];
		}
		s.charged = 0;
		for (int limit = 0; limit <= n && s.budget > 0 && !s.stopped; limit++)
			search(&s, limit);
		charge_spent(&s);
		for (int i = 0; i < nw; i++) {
			s.pin[wide[i]] = -1;
			reserve(&s, wide[i], combo[c][i], 0);
		}
	}
	if (s.nomem)
		rc = tsl_error_nomem();
	else if (s.best_depth) {
		dfs_store(&s, rep, bnd);
		*found = 1;
	}
out:
	dfs_release(&s);
	tsl_free(own_order);
	return rc;
}
