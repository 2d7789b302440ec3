/* Internal: busy time of each device on the circle of a period (the
 * modulo reservation table of modulo scheduling, kept as intervals so that
 * its cost depends on the number of blocks, not on their spans). */
#ifndef TESSEL_CIRCLE_H
#define TESSEL_CIRCLE_H

#include <stdint.h>

#include "graph.h"

/* [start, end) on the circle [0, P): 0 <= start < end <= P. A block whose
 * span wraps past P is kept as two arcs. */
typedef struct tsl_arc {
	int64_t start, end;
	int owner; /* block id */
} tsl_arc;

/* One device's arcs, sorted by start and disjoint, in chunks of at most
 * TSL_CIRCLE_CHUNK (so an insertion moves a chunk, not the whole list). */
#define TSL_CIRCLE_CHUNK 256

/* The arcs' worth of a look at one more device's circle: a search in its
 * directory and chunk, or an insertion or removal moving part of a chunk.
 * Measured alone on a pipeline of 3,000 stages on 1,024 devices whose
 * every 4th stage is on a random 9 to 1,024 of them (hundreds of arcs a
 * circle): the heuristic repetends took 7.5 ms a work unit when such
 * looks were not charged, 0.9 ms at this rate. */
#define TSL_ARC_LOOK_STEPS 8

typedef struct tsl_circle {
	tsl_arc **chunk;
	int *len;
	int nchunks, capchunks;
	int n; /* arcs in all */
	tsl_arc *spare; /* an emptied chunk kept for the next one (or NULL) */
} tsl_circle;

/* A position in a circle's arcs: chunk and index within it. */
typedef struct tsl_circle_pos {
	int c, i;
} tsl_circle_pos;

/* The first arc (pos.c == nchunks when there is none), the arc at pos and
 * the step to the next one (without wrapping). */
static inline tsl_circle_pos tsl_circle_begin(const tsl_circle *cd)
{
	(void)cd;
	return (tsl_circle_pos){0, 0};
}

static inline int tsl_circle_valid(const tsl_circle *cd, tsl_circle_pos p)
{
	return p.c < cd->nchunks;
}

static inline const tsl_arc *tsl_circle_at(const tsl_circle *cd,
					   tsl_circle_pos p)
{
	return &cd->chunk[p.c][p.i];
}

static inline tsl_circle_pos tsl_circle_step(const tsl_circle *cd,
					     tsl_circle_pos p)
{
	if (++p.i == cd->len[p.c]) {
		p.c++;
		p.i = 0;
	}
	return p;
}

typedef struct tsl_circles {
	int64_t P;
	int ndevices;
	tsl_circle *dev;
	/* arcs walked by the queries so far: their cost, for the work count
	 * (a query on a crowded circle walks many), and the devices after a
	 * block's first looked at or changed by a query, occupy or vacate,
	 * TSL_ARC_LOOK_STEPS each (what charges a block's placement covers
	 * one device: a block on many devices costs one look per device) */
	int64_t steps;
	/* tsl_circles_fit's scratch: per device of the block placed (by
	 * its index in the block's list), the start at which that device
	 * is known to be free (ndevices entries) */
	int64_t *known;
} tsl_circles;

/* Allocate empty circles for `ndevices` devices; TESSEL_ENOMEM. */
int tsl_circles_init(tsl_circles *c, int ndevices);
void tsl_circles_release(tsl_circles *c);
/* Empty every circle and set the period. */
void tsl_circles_reset(tsl_circles *c, int64_t P);

/* Occupy the devices of block b (id `owner`) at start t (any t >= 0; taken
 * mod P; span <= P). The caller knows the time is free. TESSEL_ENOMEM. */
int tsl_circles_occupy(tsl_circles *c, const tsl_block *b, int owner,
		       int64_t t);
/* Free what block `owner` occupies at start t. */
void tsl_circles_vacate(tsl_circles *c, const tsl_block *b, int owner,
			int64_t t);

/* Earliest t' >= t at which block b fits on all its devices, or -1 when it
 * fits nowhere on the circle (no t' in [t, t + P)). */
int64_t tsl_circles_fit(tsl_circles *c, const tsl_block *b, int64_t t);

/* Whether block b at start t overlaps busy time of one of its devices. */
int tsl_circles_conflict(tsl_circles *c, const tsl_block *b, int64_t t);

/* The owners of the arcs that block b at start t would overlap on device
 * `d`, into out (at most `max`); returns how many were found (it may
 * exceed max: then only max were written). */
int tsl_circle_overlaps(tsl_circles *c, int d, int64_t t, int64_t span,
			int *out, int max);

/* Smallest event after `t` for block b: the least t' > t at which the
 * block's start or its end meets the start or end of an arc on one of its
 * devices (t + P when the circles of its devices are empty). */
int64_t tsl_circles_next_event(tsl_circles *c, const tsl_block *b,
			       int64_t t);

/* Lengths of the free runs of device d in `out` (at most `max`); returns
 * their number (it may exceed max). */
int tsl_circle_free_runs(const tsl_circles *c, int d, int64_t *out, int max);

#endif
