/* Busy intervals on the circle of a period, one sorted list per device.
 * Every query walks the arcs near a position (binary search, then a few
 * steps), so its cost grows with the number of blocks on the device, never
 * with the spans or the period. */
#include "circle.h"

#include <string.h>

#include "error.h"
#include "util.h"

int tsl_circles_init(tsl_circles *c, int ndevices)
{
	memset(c, 0, sizeof *c);
	c->dev = tsl_calloc((size_t)ndevices, sizeof *c->dev);
	c->known = tsl_calloc((size_t)ndevices + 1, sizeof *c->known);
	if (!c->dev || !c->known) {
		tsl_free(c->dev);
		tsl_free(c->known);
		c->dev = NULL;
		c->known = NULL;
		return tsl_error_nomem();
	}
	c->ndevices = ndevices;
	return TSL_OK;
}

void tsl_circles_release(tsl_circles *c)
{
	if (c->dev)
		for (int d = 0; d < c->ndevices; d++) {
			for (int k = 0; k < c->dev[d].nchunks; k++)
				tsl_free(c->dev[d].chunk[k]);
			tsl_free(c->dev[d].chunk);
			tsl_free(c->dev[d].len);
			tsl_free(c->dev[d].spare);
		}
	tsl_free(c->dev);
	tsl_free(c->known);
	memset(c, 0, sizeof *c);
}

/* A chunk no longer used: kept as the spare when there is none. */
static void drop_chunk(tsl_circle *cd, tsl_arc *a)
{
	if (!cd->spare)
		cd->spare = a;
	else
		tsl_free(a);
}

void tsl_circles_reset(tsl_circles *c, int64_t P)
{
	c->P = P;
	for (int d = 0; d < c->ndevices; d++) {
		for (int k = 0; k < c->dev[d].nchunks; k++)
			drop_chunk(&c->dev[d], c->dev[d].chunk[k]);
		c->dev[d].nchunks = 0;
		c->dev[d].n = 0;
	}
}

/* Position of the first arc whose end is after x (the ends are sorted
 * since the arcs are disjoint and sorted); {nchunks, 0} if none. */
static tsl_circle_pos first_ending_after(const tsl_circle *cd, int64_t x)
{
	int lo = 0, hi = cd->nchunks;
	if (hi == 1) /* (the common case: no directory to search) */
		lo = cd->chunk[0][cd->len[0] - 1].end <= x;
	else
		while (lo < hi) { /* first chunk whose last arc ends after x */
			int mid = lo + (hi - lo) / 2;
			if (cd->chunk[mid][cd->len[mid] - 1].end <= x)
				lo = mid + 1;
			else
				hi = mid;
		}
	if (lo == cd->nchunks)
		return (tsl_circle_pos){lo, 0};
	/* (without branches: the arcs searched are few and the outcome of
	 * each comparison unpredictable) */
	const tsl_arc *a = cd->chunk[lo], *base = a;
	int n = cd->len[lo];
	while (n > 1) {
		int half = n / 2;
		base = base[half - 1].end <= x ? base + half : base;
		n -= half;
	}
	int l = (int)(base - a) + (base->end <= x);
	return (tsl_circle_pos){lo, l};
}

/* The arcs unrolled from a position: as they are to the last, then from
 * the first again shifted by P, and so on. */
typedef struct unroll {
	const tsl_circle *cd;
	int64_t P, shift;
	tsl_circle_pos p;
} unroll;

static unroll unroll_from(const tsl_circle *cd, int64_t P, tsl_circle_pos p)
{
	unroll u = {cd, P, 0, p};
	if (p.c == cd->nchunks) {
		u.p = (tsl_circle_pos){0, 0};
		u.shift = P;
	}
	return u;
}

/* The current arc, then a step. */
static tsl_arc unroll_next(unroll *u)
{
	tsl_arc a = *tsl_circle_at(u->cd, u->p);
	a.start += u->shift;
	a.end += u->shift;
	u->p = tsl_circle_step(u->cd, u->p);
	if (u->p.c == u->cd->nchunks) {
		u->p = (tsl_circle_pos){0, 0};
		u->shift += u->P;
	}
	return a;
}

/* Room in the directory for one more chunk, and the chunk; NULL when out
 * of memory (the circle is unchanged). */
static tsl_arc *new_chunk(tsl_circle *cd)
{
	if (cd->nchunks == cd->capchunks) {
		int cap = cd->capchunks ? cd->capchunks * 2 : 4;
		tsl_arc **nc = tsl_reallocarray(cd->chunk, (size_t)cap, sizeof *nc);
		if (!nc)
			return NULL;
		cd->chunk = nc;
		int *nl = tsl_reallocarray(cd->len, (size_t)cap, sizeof *nl);
		if (!nl)
			return NULL;
		cd->len = nl;
		cd->capchunks = cap;
	}
	if (cd->spare) {
		tsl_arc *a = cd->spare;
		cd->spare = NULL;
		return a;
	}
	return tsl_reallocarray(NULL, TSL_CIRCLE_CHUNK, sizeof(tsl_arc));
}

static int insert_arc(tsl_circle *cd, int64_t start, int64_t end, int owner)
{
	tsl_circle_pos p = first_ending_after(cd, start);
	if (cd->nchunks == 0 || (p.c == cd->nchunks &&
				 cd->len[cd->nchunks - 1] == TSL_CIRCLE_CHUNK)) {
		/* a new chunk at the end */
		tsl_arc *a = new_chunk(cd);
		if (!a)
			return tsl_error_nomem();
		cd->chunk[cd->nchunks] = a;
		cd->len[cd->nchunks] = 0;
		p = (tsl_circle_pos){cd->nchunks, 0};
		cd->nchunks++;
	} else if (p.c == cd->nchunks) {
		p = (tsl_circle_pos){cd->nchunks - 1, cd->len[cd->nchunks - 1]};
	}
	if (cd->len[p.c] == TSL_CIRCLE_CHUNK) {
		/* split the full chunk in two halves */
		tsl_arc *half = new_chunk(cd);
		if (!half)
			return tsl_error_nomem();
		int keep = TSL_CIRCLE_CHUNK / 2;
		memcpy(half, cd->chunk[p.c] + keep,
		       (size_t)(TSL_CIRCLE_CHUNK - keep) * sizeof *half);
		memmove(&cd->chunk[p.c + 2], &cd->chunk[p.c + 1],
			(size_t)(cd->nchunks - p.c - 1) * sizeof *cd->chunk);
		memmove(&cd->len[p.c + 2], &cd->len[p.c + 1],
			(size_t)(cd->nchunks - p.c - 1) * sizeof *cd->len);
		cd->chunk[p.c + 1] = half;
		cd->len[p.c + 1] = TSL_CIRCLE_CHUNK - keep;
		cd->len[p.c] = keep;
		cd->nchunks++;
		if (p.i > keep) {
			p.c++;
			p.i -= keep;
		}
	}
	tsl_arc *a = cd->chunk[p.c];
	memmove(&a[p.i + 1], &a[p.i], (size_t)(cd->len[p.c] - p.i) * sizeof *a);
	a[p.i] = (tsl_arc){start, end, owner};
	cd->len[p.c]++;
	cd->n++;
	return TSL_OK;
}

static void remove_arc(tsl_circle *cd, int64_t start, int owner)
{
	tsl_circle_pos p = first_ending_after(cd, start);
	for (; tsl_circle_valid(cd, p) && tsl_circle_at(cd, p)->start <= start;
	     p = tsl_circle_step(cd, p)) {
		const tsl_arc *x = tsl_circle_at(cd, p);
		if (x->start != start || x->owner != owner)
			continue;
		tsl_arc *a = cd->chunk[p.c];
		memmove(&a[p.i], &a[p.i + 1],
			(size_t)(cd->len[p.c] - p.i - 1) * sizeof *a);
		cd->n--;
		if (--cd->len[p.c] == 0) {
			drop_chunk(cd, cd->chunk[p.c]);
			memmove(&cd->chunk[p.c], &cd->chunk[p.c + 1],
				(size_t)(cd->nchunks - p.c - 1) * sizeof *cd->chunk);
			memmove(&cd->len[p.c], &cd->len[p.c + 1],
				(size_t)(cd->nchunks - p.c - 1) * sizeof *cd->len);
			cd->nchunks--;
		}
		return;
	}
}

static int64_t mod(int64_t t, int64_t P)
{
	int64_t x = t % P;
	return x < 0 ? x + P : x;
}

int tsl_circles_occupy(tsl_circles *c, const tsl_block *b, int owner,
		       int64_t t)
{
	int64_t P = c->P, x = mod(t, P), end = x + b->span;
	c->steps += (int64_t)(b->ndevices - 1) * TSL_ARC_LOOK_STEPS;
	for (int k = 0; k < b->ndevices; k++) {
		tsl_circle *cd = &c->dev[b->devices[k]];
		int rc = insert_arc(cd, x, end < P ? end : P, owner);
		if (!rc && end > P)
			rc = insert_arc(cd, 0, end - P, owner);
		if (rc)
			return rc;
	}
	return TSL_OK;
}

void tsl_circles_vacate(tsl_circles *c, const tsl_block *b, int owner,
			int64_t t)
{
	int64_t P = c->P, x = mod(t, P);
	c->steps += (int64_t)(b->ndevices - 1) * TSL_ARC_LOOK_STEPS;
	for (int k = 0; k < b->ndevices; k++) {
		tsl_circle *cd = &c->dev[b->devices[k]];
		remove_arc(cd, x, owner);
		if (x + b->span > P)
			remove_arc(cd, 0, owner);
	}
}

/* Least y >= 0 with [x + y, x + y + span) free on the circle, -1 if none
 * below P. */
static int64_t fit_one(const tsl_circle *cd, int64_t P, int64_t x,
		       int64_t span, int64_t *steps)
{
	if (cd->n == 0)
		return 0;
	unroll u = unroll_from(cd, P, first_ending_after(cd, x));
	int64_t pos = x;
	for (int k = 0; k <= 2 * cd->n; k++) {
		if (pos >= x + P)
			return -1;
		++*steps;
		tsl_arc a = unroll_next(&u);
		if (a.start >= pos + span)
			return pos - x;
		if (a.end > pos)
			pos = a.end;
	}
	return -1;
}

/* The devices are looked at in turns until none moves t. A device known
 * to be free at the current t (it moved t there, or was found free at
 * it) is not searched again: its answer would be 0, found at the first
 * arc, and that one step is charged as the search would have been. */
int64_t tsl_circles_fit(tsl_circles *c, const tsl_block *b, int64_t t)
{
	int64_t P = c->P, t0 = t;
	if (b->span > P)
		return -1;
	int64_t *known = c->known;
	for (int k = 0; k < b->ndevices; k++)
		known[k] = -1; /* (t >= 0) */
	for (int moved = 1; moved;) {
		moved = 0;
		c->steps += (int64_t)(b->ndevices - 1) * TSL_ARC_LOOK_STEPS;
		for (int k = 0; k < b->ndevices; k++) {
			const tsl_circle *cd = &c->dev[b->devices[k]];
			if (known[k] == t) {
				c->steps += cd->n > 0;
				continue;
			}
			int64_t y = fit_one(cd, P, mod(t, P), b->span, &c->steps);
			if (y < 0)
				return -1;
			if (y > 0) {
				t += y;
				moved = 1;
			}
			known[k] = t;
		}
		if (t - t0 >= P)
			return -1;
	}
	return t;
}

/* Whether [x, x + span) is free on the circle: the first arc ending after
 * x (unrolled) starts at or after its end (fit_one's answer is 0 exactly
 * then, without walking on past the arc). */
static int free_at(const tsl_circle *cd, int64_t P, int64_t x, int64_t span,
		   int64_t *steps)
{
	if (cd->n == 0)
		return 1;
	++*steps;
	unroll u = unroll_from(cd, P, first_ending_after(cd, x));
	return unroll_next(&u).start >= x + span;
}

int tsl_circles_conflict(tsl_circles *c, const tsl_block *b, int64_t t)
{
	int64_t P = c->P, x = mod(t, P);
	for (int k = 0; k < b->ndevices; k++) {
		if (k > 0)
			c->steps += TSL_ARC_LOOK_STEPS;
		if (!free_at(&c->dev[b->devices[k]], P, x, b->span, &c->steps))
			return 1;
	}
	return 0;
}

int tsl_circle_overlaps(tsl_circles *c, int d, int64_t t, int64_t span,
			int *out, int max)
{
	const tsl_circle *cd = &c->dev[d];
	int64_t P = c->P, x = mod(t, P);
	if (cd->n == 0)
		return 0;
	unroll u = unroll_from(cd, P, first_ending_after(cd, x));
	int count = 0;
	for (int k = 0; k < 2 * cd->n; k++) {
		c->steps++;
		tsl_arc a = unroll_next(&u);
		if (a.start >= x + span)
			break;
		if (a.end <= x)
			continue;
		/* an owner with two arcs is listed once */
		int seen = 0;
		for (int j = 0; j < count && j < max && !seen; j++)
			seen = out[j] == a.owner;
		if (seen)
			continue;
		if (count < max)
			out[count] = a.owner;
		count++;
	}
	return count;
}

/* The least positive (v - q) mod P over the arcs' starts (ends 0) or
 * ends (ends 1) v of cd (not empty), P when every one is q mod P. The
 * starts lie in [0, P) and the ends in (0, P], both ascending (an end of
 * P, the last arc's at most, counts as 0): the least v above q mod P
 * when there is one, else the least v, one turn later. A binary search
 * and a step or two, not a walk over the arcs. */
static int64_t least_after(const tsl_circle *cd, int64_t P, int64_t q, int ends)
{
	q = mod(q, P);
	const tsl_arc *last = &cd->chunk[cd->nchunks - 1][cd->len[cd->nchunks - 1] - 1];
	tsl_circle_pos p = first_ending_after(cd, q);
	int64_t above = -1; /* the least v above q, -1: none */
	if (tsl_circle_valid(cd, p)) {
		const tsl_arc *a = tsl_circle_at(cd, p);
		if (ends) {
			if (a->end < P)
				above = a->end;
		} else if (a->start > q) {
			above = a->start;
		} else {
			/* (a holds q: the next starts after its end) */
			p = tsl_circle_step(cd, p);
			if (tsl_circle_valid(cd, p))
				above = tsl_circle_at(cd, p)->start;
		}
	}
	if (above >= 0)
		return above - q;
	const tsl_arc *first = tsl_circle_at(cd, tsl_circle_begin(cd));
	int64_t least = ends ? (last->end == P ? 0 : first->end) : first->start;
	return least < q ? least + P - q : P;
}

int64_t tsl_circles_next_event(tsl_circles *c, const tsl_block *b,
			       int64_t t)
{
	int64_t P = c->P, x = mod(t, P), best = P;
	for (int k = 0; k < b->ndevices; k++) {
		const tsl_circle *cd = &c->dev[b->devices[k]];
		/* (charged as the walk over its arcs it replaces) */
		c->steps += cd->n;
		if (cd->n == 0)
			continue;
		/* an arc's start or end at x + y, or a start of the block
		 * ending there: y after x, or after x + span */
		for (int j = 0; j < 4; j++) {
			int64_t y = least_after(cd, P, j < 2 ? x : x + b->span, j & 1);
			if (y < best)
				best = y;
		}
	}
	return t + best;
}

int tsl_circle_free_runs(const tsl_circles *c, int d, int64_t *out, int max)
{
	const tsl_circle *cd = &c->dev[d];
	int64_t P = c->P;
	if (cd->n == 0) {
		if (max > 0)
			out[0] = P;
		return 1;
	}
	int count = 0;
	int64_t first = tsl_circle_at(cd, tsl_circle_begin(cd))->start;
	for (tsl_circle_pos p = tsl_circle_begin(cd); tsl_circle_valid(cd, p);) {
		int64_t end = tsl_circle_at(cd, p)->end;
		p = tsl_circle_step(cd, p);
		int64_t next = tsl_circle_valid(cd, p) ? tsl_circle_at(cd, p)->start
						       : first + P;
		if (next > end) {
			if (count < max)
				out[count] = next - end;
			count++;
		}
	}
	return count;
}
