/* The free time of a device in the serial schedule generation: sorted
 * gaps in chunks, a segment tree over the chunks' longest gaps. */
#include "complete_gaps.h"

#include <string.h>

#include "util.h"

#define TSL_GAP_CHUNK 128

static int64_t gap_len(const tsl_gap *g)
{
	return g->b - g->a;
}

static int64_t chunk_longest(const tsl_gapset *gs, int c)
{
	int64_t m = -1;
	for (int i = 0; i < gs->len[c]; i++)
		if (gap_len(&gs->chunk[c][i]) > m)
			m = gap_len(&gs->chunk[c][i]);
	return m;
}

static int64_t max64(int64_t x, int64_t y)
{
	return x > y ? x : y;
}

/* The inner nodes of the tree from its leaves. */
static void tree_rebuild(tsl_gapset *gs)
{
	for (int i = gs->cap - 1; i >= 1; i--)
		gs->tree[i] = max64(gs->tree[2 * i], gs->tree[2 * i + 1]);
}

/* Chunk c changed: its first start and its leaf (and the leaf's
 * ancestors while they change). */
static void refresh(tsl_gapset *gs, int c)
{
	gs->first[c] = gs->chunk[c][0].a;
	int i = gs->cap + c;
	gs->tree[i] = chunk_longest(gs, c);
	for (i >>= 1; i >= 1; i >>= 1) {
		int64_t m = max64(gs->tree[2 * i], gs->tree[2 * i + 1]);
		if (gs->tree[i] == m)
			break;
		gs->tree[i] = m;
	}
}

/* The first chunk after c whose longest gap is at least span, -1 if none. */
static int next_chunk_fitting(const tsl_gapset *gs, int c, int64_t span)
{
	if (c + 1 >= gs->nchunks)
		return -1;
	int node = gs->cap + c + 1;
	if (gs->tree[node] < span) {
		for (;;) {
			while (node & 1) { /* a right child: up */
				node >>= 1;
				if (node <= 1)
					return -1;
			}
			node++; /* the sibling to the right */
			if (gs->tree[node] >= span)
				break;
		}
	}
	while (node < gs->cap)
		node = gs->tree[2 * node] >= span ? 2 * node : 2 * node + 1;
	return node - gs->cap;
}

/* Room for one more chunk (directory and tree) and the chunk itself in
 * *fresh. -1 when out of memory; the set's contents are unchanged either
 * way. */
static int reserve_chunk(tsl_gapset *gs, tsl_gap **fresh)
{
	*fresh = NULL;
	if (gs->nchunks == gs->capchunks) {
		int cap = gs->capchunks ? 2 * gs->capchunks : 4;
		tsl_gap **nc = tsl_reallocarray(gs->chunk, (size_t)cap, sizeof *nc);
		if (!nc)
			return -1;
		gs->chunk = nc;
		int *nl = tsl_reallocarray(gs->len, (size_t)cap, sizeof *nl);
		if (!nl)
			return -1;
		gs->len = nl;
		int64_t *nf = tsl_reallocarray(gs->first, (size_t)cap, sizeof *nf);
		if (!nf)
			return -1;
		gs->first = nf;
		gs->capchunks = cap;
	}
	if (gs->nchunks + 1 > gs->cap) {
		int cap = gs->cap ? 2 * gs->cap : 4;
		int64_t *t = tsl_reallocarray(NULL, 2 * (size_t)cap, sizeof *t);
		if (!t)
			return -1;
		for (int c = 0; c < cap; c++)
			t[cap + c] = c < gs->nchunks ? gs->tree[gs->cap + c] : -1;
		tsl_free(gs->tree);
		gs->tree = t;
		gs->cap = cap;
		tree_rebuild(gs);
	}
	*fresh = tsl_reallocarray(NULL, TSL_GAP_CHUNK, sizeof **fresh);
	return *fresh ? 0 : -1;
}

int tsl_gapset_init(tsl_gapset *gs)
{
	tsl_gap *fresh;
	memset(gs, 0, sizeof *gs);
	if (reserve_chunk(gs, &fresh))
		return -1;
	fresh[0] = (tsl_gap){0, INT64_MAX};
	gs->chunk[0] = fresh;
	gs->len[0] = 1;
	gs->nchunks = 1;
	refresh(gs, 0);
	return 0;
}

void tsl_gapset_release(tsl_gapset *gs)
{
	for (int c = 0; c < gs->nchunks; c++)
		tsl_free(gs->chunk[c]);
	tsl_free(gs->chunk);
	tsl_free(gs->len);
	tsl_free(gs->first);
	tsl_free(gs->tree);
	memset(gs, 0, sizeof *gs);
}

/* The last gap with a <= t: *c = -1 when there is none. */
static void gap_floor(const tsl_gapset *gs, int64_t t, int *c, int *i)
{
	int lo = 0, hi = gs->nchunks;
	while (lo < hi) { /* the first chunk that starts after t */
		int mid = lo + (hi - lo) / 2;
		if (gs->first[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	*c = lo - 1;
	if (*c < 0)
		return;
	const tsl_gap *g = gs->chunk[*c];
	int l = 0, h = gs->len[*c];
	while (l < h) { /* the first gap that starts after t */
		int mid = l + (h - l) / 2;
		if (g[mid].a <= t)
			l = mid + 1;
		else
			h = mid;
	}
	*i = l - 1;
}

/* The position after (c, i); c == nchunks past the last gap. */
static void step(const tsl_gapset *gs, int *c, int *i)
{
	if (++*i == gs->len[*c]) {
		++*c;
		*i = 0;
	}
}

int64_t tsl_gapset_earliest(const tsl_gapset *gs, int64_t t, int64_t span)
{
	int c, i;
	gap_floor(gs, t, &c, &i);
	if (c >= 0) {
		const tsl_gap *g = &gs->chunk[c][i];
		if (g->b > t && g->b - t >= span)
			return t;
		step(gs, &c, &i);
	} else {
		c = i = 0;
	}
	/* the first gap after t long enough: in this chunk, or the first
	 * start of the next chunk that has one */
	if (c < gs->nchunks)
		for (; i < gs->len[c]; i++)
			if (gap_len(&gs->chunk[c][i]) >= span)
				return gs->chunk[c][i].a;
	c = next_chunk_fitting(gs, c < gs->nchunks ? c : gs->nchunks - 1, span);
	if (c < 0)
		return t; /* the last gap always fits: not reached */
	for (i = 0; i < gs->len[c]; i++)
		if (gap_len(&gs->chunk[c][i]) >= span)
			return gs->chunk[c][i].a;
	return t;
}

int64_t tsl_gapset_last(const tsl_gapset *gs)
{
	int c = gs->nchunks - 1;
	return gs->chunk[c][gs->len[c] - 1].a;
}

/* Insert g at position i of chunk c; a full chunk splits first, into
 * `fresh` (reserved by the caller). */
static void put_gap(tsl_gapset *gs, int c, int i, tsl_gap g, tsl_gap *fresh)
{
	if (gs->len[c] == TSL_GAP_CHUNK) {
		int keep = TSL_GAP_CHUNK / 2, n = gs->nchunks;
		memcpy(fresh, gs->chunk[c] + keep,
		       (size_t)(TSL_GAP_CHUNK - keep) * sizeof *fresh);
		memmove(&gs->chunk[c + 2], &gs->chunk[c + 1],
			(size_t)(n - c - 1) * sizeof *gs->chunk);
		memmove(&gs->len[c + 2], &gs->len[c + 1],
			(size_t)(n - c - 1) * sizeof *gs->len);
		memmove(&gs->first[c + 2], &gs->first[c + 1],
			(size_t)(n - c - 1) * sizeof *gs->first);
		memmove(&gs->tree[gs->cap + c + 2], &gs->tree[gs->cap + c + 1],
			(size_t)(n - c - 1) * sizeof *gs->tree);
		gs->chunk[c + 1] = fresh;
		gs->len[c + 1] = TSL_GAP_CHUNK - keep;
		gs->len[c] = keep;
		gs->nchunks++;
		gs->tree[gs->cap + c] = chunk_longest(gs, c);
		gs->tree[gs->cap + c + 1] = chunk_longest(gs, c + 1);
		gs->first[c + 1] = fresh[0].a;
		tree_rebuild(gs);
		if (i > keep) {
			c++;
			i -= keep;
		}
	}
	tsl_gap *a = gs->chunk[c];
	memmove(&a[i + 1], &a[i], (size_t)(gs->len[c] - i) * sizeof *a);
	a[i] = g;
	gs->len[c]++;
	refresh(gs, c);
}

/* Remove the gap at position i of chunk c (not the last gap of all). */
static void drop_gap(tsl_gapset *gs, int c, int i)
{
	tsl_gap *a = gs->chunk[c];
	memmove(&a[i], &a[i + 1], (size_t)(gs->len[c] - i - 1) * sizeof *a);
	if (--gs->len[c] > 0) {
		refresh(gs, c);
		return;
	}
	int n = gs->nchunks;
	tsl_free(gs->chunk[c]);
	memmove(&gs->chunk[c], &gs->chunk[c + 1], (size_t)(n - c - 1) * sizeof *gs->chunk);
	memmove(&gs->len[c], &gs->len[c + 1], (size_t)(n - c - 1) * sizeof *gs->len);
	memmove(&gs->first[c], &gs->first[c + 1], (size_t)(n - c - 1) * sizeof *gs->first);
	memmove(&gs->tree[gs->cap + c], &gs->tree[gs->cap + c + 1],
		(size_t)(n - c - 1) * sizeof *gs->tree);
	gs->tree[gs->cap + n - 1] = -1;
	gs->nchunks--;
	tree_rebuild(gs);
}

int tsl_gapset_take(tsl_gapset *gs, int64_t s, int64_t e)
{
	if (e <= s)
		return 0;
	/* the first gap that ends after s */
	int c, i;
	gap_floor(gs, s, &c, &i);
	if (c < 0)
		c = i = 0;
	else if (gs->chunk[c][i].b <= s)
		step(gs, &c, &i);
	if (c == gs->nchunks)
		return 0;
	tsl_gap *g = &gs->chunk[c][i];
	if (g->a < s && g->b > e) {
		/* inside one gap: it splits in two */
		tsl_gap *fresh = NULL;
		if (gs->len[c] == TSL_GAP_CHUNK && reserve_chunk(gs, &fresh))
			return -1;
		int64_t b = g->b;
		g->b = s;
		put_gap(gs, c, i + 1, (tsl_gap){e, b}, fresh);
		return 0;
	}
	/* each gap that meets [s, e) loses that part */
	while (c < gs->nchunks) {
		g = &gs->chunk[c][i];
		if (g->a >= e)
			break;
		if (g->a < s) { /* its part before s stays (g->b <= e) */
			g->b = s;
			refresh(gs, c);
			step(gs, &c, &i);
		} else if (g->b > e) { /* its part after e stays */
			g->a = e;
			refresh(gs, c);
			break;
		} else { /* all of it goes; (c, i) is then the next one */
			int n = gs->nchunks;
			drop_gap(gs, c, i);
			if (gs->nchunks < n)
				i = 0;
			else if (i == gs->len[c]) {
				c++;
				i = 0;
			}
		}
	}
	return 0;
}
