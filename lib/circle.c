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
	if (!c->dev)
		return tsl_error_nomem();
	c->ndevices = ndevices;
	return TSL_OK;
}

void tsl_circles_release(tsl_circles *c)
{
	if (c->dev)
		for (int d = 0; d < c->ndevices; d++)
			tsl_free(c->dev[d].arcs);
	tsl_free(c->dev);
	memset(c, 0, sizeof *c);
}

void tsl_circles_reset(tsl_circles *c, int64_t P)
{
	c->P = P;
	for (int d = 0; d < c->ndevices; d++)
		c->dev[d].n = 0;
}

/* First arc whose end is after x (arcs are disjoint and sorted, so their
 * ends are sorted too); n if none. */
static int first_ending_after(const tsl_circle *cd, int64_t x)
{
	int lo = 0, hi = cd->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (cd->arcs[mid].end <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Arc k of the circle unrolled from index i: arcs i, i+1, ..., n-1 as they
 * are, then 0, 1, ... shifted by P, and so on. */
static tsl_arc unrolled(const tsl_circle *cd, int64_t P, int i, int k)
{
	int idx = (i + k) % cd->n;
	tsl_arc a = cd->arcs[idx];
	int64_t shift = (int64_t)((i + k) / cd->n) * P;
	a.start += shift;
	a.end += shift;
	return a;
}

static int insert_arc(tsl_circle *cd, int64_t start, int64_t end, int owner)
{
	if (cd->n == cd->cap) {
		int cap = cd->cap ? cd->cap * 2 : 8;
		tsl_arc *na = tsl_reallocarray(cd->arcs, (size_t)cap, sizeof *na);
		if (!na)
			return tsl_error_nomem();
		cd->arcs = na;
		cd->cap = cap;
	}
	int i = first_ending_after(cd, start);
	memmove(&cd->arcs[i + 1], &cd->arcs[i],
		(size_t)(cd->n - i) * sizeof *cd->arcs);
	cd->arcs[i] = (tsl_arc){start, end, owner};
	cd->n++;
	return TSL_OK;
}

static void remove_arc(tsl_circle *cd, int64_t start, int owner)
{
	int i = first_ending_after(cd, start);
	for (; i < cd->n && cd->arcs[i].start <= start; i++)
		if (cd->arcs[i].start == start && cd->arcs[i].owner == owner) {
			memmove(&cd->arcs[i], &cd->arcs[i + 1],
				(size_t)(cd->n - i - 1) * sizeof *cd->arcs);
			cd->n--;
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
		       int64_t span)
{
	if (cd->n == 0)
		return 0;
	int i = first_ending_after(cd, x);
	int64_t pos = x;
	for (int k = 0; k <= 2 * cd->n; k++) {
		if (pos >= x + P)
			return -1;
		tsl_arc a = unrolled(cd, P, i, k);
		if (a.start >= pos + span)
			return pos - x;
		if (a.end > pos)
			pos = a.end;
	}
	return -1;
}

int64_t tsl_circles_fit(const tsl_circles *c, const tsl_block *b, int64_t t)
{
	int64_t P = c->P, t0 = t;
	if (b->span > P)
		return -1;
	for (int moved = 1; moved;) {
		moved = 0;
		for (int k = 0; k < b->ndevices; k++) {
			int64_t y = fit_one(&c->dev[b->devices[k]], P, mod(t, P),
					    b->span);
			if (y < 0)
				return -1;
			if (y > 0) {
				t += y;
				moved = 1;
			}
		}
		if (t - t0 >= P)
			return -1;
	}
	return t;
}

int tsl_circles_conflict(const tsl_circles *c, const tsl_block *b, int64_t t)
{
	int64_t P = c->P, x = mod(t, P);
	for (int k = 0; k < b->ndevices; k++)
		if (fit_one(&c->dev[b->devices[k]], P, x, b->span) != 0)
			return 1;
	return 0;
}

int tsl_circle_overlaps(const tsl_circles *c, int d, int64_t t, int64_t span,
			int *out, int max)
{
	const tsl_circle *cd = &c->dev[d];
	int64_t P = c->P, x = mod(t, P);
	if (cd->n == 0)
		return 0;
	int i = first_ending_after(cd, x), count = 0;
	for (int k = 0; k < 2 * cd->n; k++) {
		tsl_arc a = unrolled(cd, P, i, k);
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

int64_t tsl_circles_next_event(const tsl_circles *c, const tsl_block *b,
			       int64_t t)
{
	int64_t P = c->P, x = mod(t, P), best = P;
	for (int k = 0; k < b->ndevices; k++) {
		const tsl_circle *cd = &c->dev[b->devices[k]];
		for (int i = 0; i < cd->n; i++) {
			int64_t ends[4] = {
				cd->arcs[i].start, cd->arcs[i].end,
				cd->arcs[i].start - b->span, cd->arcs[i].end - b->span,
			};
			for (int j = 0; j < 4; j++) {
				int64_t y = mod(ends[j] - x, P);
				if (y > 0 && y < best)
					best = y;
			}
		}
	}
	return t + best;
}

int64_t tsl_circle_free_time(const tsl_circles *c, int d)
{
	const tsl_circle *cd = &c->dev[d];
	int64_t busy = 0;
	for (int i = 0; i < cd->n; i++)
		busy += cd->arcs[i].end - cd->arcs[i].start;
	return c->P - busy;
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
	for (int i = 0; i < cd->n; i++) {
		int64_t end = cd->arcs[i].end;
		int64_t next = i + 1 < cd->n ? cd->arcs[i + 1].start
					     : cd->arcs[0].start + P;
		if (next > end) {
			if (count < max)
				out[count] = next - end;
			count++;
		}
	}
	return count;
}
