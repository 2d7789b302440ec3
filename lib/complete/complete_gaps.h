/* Internal: the free time of a device (or of a set of devices together)
 * in the serial schedule generation of complete_sgs.c, as a sorted set of
 * gaps. */
#ifndef TESSEL_COMPLETE_GAPS_H
#define TESSEL_COMPLETE_GAPS_H

#include <stdint.h>

/* Free time [a, b); b == INT64_MAX for the gap after the last work. Gaps
 * are disjoint and never touch (work lies between them). */
typedef struct tsl_gap {
	int64_t a, b;
} tsl_gap;

/* Gaps sorted by start, in chunks of at most TSL_GAP_CHUNK, with the
 * first start and the longest gap of every chunk, the latter in a
 * segment tree: a look costs a binary search in one small array and one in
 * a chunk, and the first long enough gap after a time one walk of the
 * tree, whatever the number of gaps. Arrays, not nodes: few cache misses
 * on the millions of gaps of a large completion. */
typedef struct tsl_gapset {
	tsl_gap **chunk;
	int *len;
	int64_t *first; /* per chunk: a of its first gap */
	int64_t *tree;  /* 2 * cap: tree[cap + c] longest gap of chunk c (-1
			 * past the last), tree[i] the max of its children */
	int nchunks, capchunks, cap;
} tsl_gapset;

/* All time free: one gap [0, INT64_MAX). -1 when out of memory (then
 * tsl_gapset_release is still due). */
int tsl_gapset_init(tsl_gapset *gs);
void tsl_gapset_release(tsl_gapset *gs);

/* Earliest t' >= t with [t', t' + span) free. */
int64_t tsl_gapset_earliest(const tsl_gapset *gs, int64_t t, int64_t span);

/* Where the work after the last one may start. */
int64_t tsl_gapset_last(const tsl_gapset *gs);

/* Take [s, e) out of the free time (parts of it may be taken already).
 * -1 when out of memory: the set is then as it was. */
int tsl_gapset_take(tsl_gapset *gs, int64_t s, int64_t e);

#endif
