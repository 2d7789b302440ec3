/* Stage of the search of many micro-batches as fewer (search_extend.c):
 * the schedule of the fewer laid end to end, as tiles, when it has no
 * steady state to repeat. Contract:
 *   tile_shift - T, the least shift after which no device and no copy
 *                channel has a step of the next tile before the last step
 *                of the tile before: max over devices (and channels) of
 *                the end of its last block (copy) less the start of its
 *                first. One tile's fill then overlaps the drain of the
 *                one before wherever the devices allow it (the first
 *                devices of a pipeline start the next tile while the last
 *                ones finish this one).
 *   tsl_tile_schedule - micro-batch t N' + i takes micro-batch i's steps
 *                (its choice, its copies) moved by t T; the last tile
 *                holds the first nmicros mod N' when N' does not divide
 *                nmicros. Dependencies are within a micro-batch, so they
 *                hold; every device's and channel's steps of one tile come
 *                after those of the one before, so no two overlap. Memory
 *                is not checked here: a tile starts where the tile before
 *                left the devices' memory (what its micro-batches leave
 *                behind), and the caller validates.
 * Phases: the first tile's warm-up, the last one's cool-down, every other
 * entry in the steady state; the figures: period T for N' micro-batches. */
#include "extend_tile.h"

#include <stdint.h>
#include <stdlib.h>

#include "complete.h"
#include "error.h"
#include "util.h"

/* Per device (and per copy channel): the first start and the last end. */
typedef struct tile_window {
	int64_t first, last;
} tile_window;

static void widen(tile_window *w, int64_t from, int64_t to)
{
	if (w->first < 0 || from < w->first)
		w->first = from;
	if (to > w->last)
		w->last = to;
}

/* *shift: T of s (at least 1). */
static int tile_shift(int64_t *shift, const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	int n = g->nblocks;
	tile_window *w = tsl_reallocarray(NULL, 2 * (size_t)g->ndevices + 1, sizeof *w);
	if (!w)
		return tsl_error_nomem();
	for (int d = 0; d < 2 * g->ndevices; d++)
		w[d] = (tile_window){-1, 0};
	for (int64_t m = 0; m < s->nmicros; m++)
		for (int b = 0; b < n; b++) {
			const struct tessel_entry *e = tsl_entry_at(s, b, m);
			const tsl_block *f = &g->blocks[b];
			if (e->start < 0)
				continue;
			int64_t fin = e->start + tsl_entry_span(s, e);
			for (int k = 0; k < f->ndevices; k++)
				widen(&w[f->devices[k]], e->start, fin);
			if (e->choice != TESSEL_CHOICE_OFFLOAD || !s->copies)
				continue;
			size_t at = (size_t)m * (size_t)n + (size_t)b;
			for (int r = 0; r < 2; r++) {
				int64_t c = s->copies[2 * at + r];
				if (c < 0)
					continue;
				for (int k = 0; k < f->ndevices; k++)
					widen(&w[g->ndevices + f->devices[k]], c,
					      c + f->of_transfer);
			}
		}
	int64_t T = 1;
	for (int d = 0; d < 2 * g->ndevices; d++)
		if (w[d].first >= 0 && w[d].last - w[d].first > T)
			T = w[d].last - w[d].first;
	tsl_free(w);
	*shift = T;
	return TSL_OK;
}

/* The end of micro-batches 0 .. upto - 1 of s (their copies too). */
static int64_t end_of_first(const tessel_schedule *s, int64_t upto)
{
	const tessel_graph *g = s->graph;
	int n = g->nblocks;
	int64_t end = 0;
	for (int64_t m = 0; m < upto; m++)
		for (int b = 0; b < n; b++) {
			const struct tessel_entry *e = tsl_entry_at(s, b, m);
			if (e->start < 0)
				continue;
			int64_t fin = e->start + tsl_entry_span(s, e);
			if (fin > end)
				end = fin;
			if (e->choice != TESSEL_CHOICE_OFFLOAD || !s->copies)
				continue;
			size_t at = (size_t)m * (size_t)n + (size_t)b;
			int64_t rel = s->copies[2 * at + 1];
			if (rel >= 0 && rel + g->blocks[b].of_transfer > end)
				end = rel + g->blocks[b].of_transfer;
		}
	return end;
}

int tsl_tile_makespan(int64_t *out, const tessel_schedule *s, int64_t nmicros)
{
	*out = INT64_MAX;
	int64_t few = s->nmicros;
	if (nmicros <= few)
		return tsl_error(TESSEL_EINVAL, "tiling a schedule: %lld micro-batches "
				 "are not more than %lld", (long long)nmicros,
				 (long long)few);
	int64_t tiles = (nmicros + few - 1) / few, T = 0;
	int rc = tile_shift(&T, s);
	if (rc)
		return rc;
	if (T > INT64_MAX / 8 / tiles)
		return TSL_OK;
	/* the tiles do not share a device or a channel: the last full tile
	 * or the part after it ends last */
	int64_t part = nmicros % few, whole = end_of_first(s, few);
	if (!part) {
		*out = (tiles - 1) * T + whole;
		return TSL_OK;
	}
	int64_t a = (tiles - 2) * T + whole, b = (tiles - 1) * T + end_of_first(s, part);
	*out = a > b ? a : b;
	return TSL_OK;
}

int tsl_tile_schedule(tessel_schedule **out, const tessel_schedule *s,
		      int64_t nmicros, const tsl_deadline *dl)
{
	*out = NULL;
	int64_t few = s->nmicros;
	if (nmicros <= few)
		return tsl_error(TESSEL_EINVAL, "tiling a schedule: %lld micro-batches "
				 "are not more than %lld", (long long)nmicros,
				 (long long)few);
	const tessel_graph *g = s->graph;
	int n = g->nblocks;
	int64_t tiles = (nmicros + few - 1) / few, T = 0;
	int rc = tile_shift(&T, s);
	if (rc)
		return rc;
	/* (steps beyond what any schedule holds: no tiles) */
	if (T > INT64_MAX / 8 / tiles)
		return TSL_OK;
	tessel_schedule *u = NULL;
	rc = tsl_schedule_alloc_until(&u, g, nmicros, dl);
	if (rc)
		return rc;
	if (s->copies) {
		u->copies = tsl_reallocarray(NULL, (size_t)n * (size_t)nmicros,
					     2 * sizeof *u->copies);
		if (!u->copies) {
			tessel_schedule_free(u);
			return tsl_error_nomem();
		}
	}
	for (int64_t j = 0; j < nmicros; j++) {
		if ((j & 1023) == 0 && tsl_deadline_hard_passed(dl)) {
			tessel_schedule_free(u);
			return tsl_error(TESSEL_ETIMEOUT,
					 "time limit reached while laying out the tiles");
		}
		int64_t t = j / few, i = j % few, shift = t * T;
		const struct tessel_entry *from = tsl_entry_at(s, 0, i);
		struct tessel_entry *to = tsl_entry_at(u, 0, j);
		for (int b = 0; b < n; b++) {
			to[b].start = from[b].start < 0 ? -1 : from[b].start + shift;
			to[b].choice = from[b].choice;
			to[b].span_add = from[b].span_add;
			to[b].mem_add = from[b].mem_add;
			signed char ph = from[b].phase;
			if ((ph == TESSEL_PHASE_WARMUP && t > 0) ||
			    (ph == TESSEL_PHASE_COOLDOWN && t < tiles - 1))
				ph = TESSEL_PHASE_REPETEND;
			to[b].phase = ph;
			if (from[b].choice != TESSEL_CHOICE_KEEP)
				u->nchoices++;
		}
		if (u->copies) {
			const int64_t *c0 = &s->copies[2 * (size_t)i * (size_t)n];
			int64_t *c1 = &u->copies[2 * (size_t)j * (size_t)n];
			for (int c = 0; c < 2 * n; c++)
				c1[c] = c0[c] < 0 ? -1 : c0[c] + shift;
		}
	}
	/* the figures: one tile every T steps */
	u->resource_bound = s->resource_bound;
	u->period = T;
	u->rep_k = few;
	u->period_optimal = T <= s->resource_bound * few;
	tsl_repetend_range(u);
	int64_t lo = INT64_MAX, hi = 0;
	for (int b = 0; b < n; b++) {
		const struct tessel_entry *e = tsl_entry_at(u, b, 0);
		if (e->start < 0)
			continue;
		if (e->start < lo)
			lo = e->start;
		if (e->start + tsl_entry_span(u, e) > hi)
			hi = e->start + tsl_entry_span(u, e);
	}
	u->depth = lo == INT64_MAX ? 0 : hi - lo;
	u->work = s->work;
	u->proof_work = s->proof_work;
	*out = u;
	return TSL_OK;
}
