/* Serial schedule generation with insertion: instances are taken in a
 * priority order (dependencies first) and each is placed at the earliest
 * step after its dependencies where all its devices are free for its whole
 * span, gaps left by earlier placements included, and where adding its
 * memory delta keeps every later step of its devices within the limits.
 * Unlike the order-keeping compaction it may reorder a device's work, which
 * packs warm-up and cool-down tighter. */
#include "compact.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "util.h"

typedef struct ival {
	int64_t start, end;
} ival;

typedef struct mev {
	int64_t time;
	int64_t delta;
} mev;

typedef struct dev {
	ival *busy;   /* sorted by start, disjoint, touching ones merged */
	size_t nbusy, capbusy;
	mev *mem;     /* sorted by time */
	size_t nmem, capmem;
	int64_t total; /* sum of the deltas in mem */
} dev;

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	while (c < need)
		c *= 2;
	void *p = tsl_reallocarray(*arr, c, size);
	if (!p)
		return -1;
	*arr = p;
	*cap = c;
	return 0;
}

/* First busy interval ending after t (binary search). */
static size_t first_after(const dev *d, int64_t t)
{
	size_t lo = 0, hi = d->nbusy;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->busy[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Earliest t' >= t with [t', t' + span) free on d. */
static int64_t earliest_free(const dev *d, int64_t t, int64_t span)
{
	for (size_t i = first_after(d, t); i < d->nbusy; i++) {
		if (d->busy[i].start >= t + span)
			break;
		t = d->busy[i].end;
	}
	return t;
}

/* Mark [start, end) busy (free before); an interval touching a busy one
 * joins it, so that earliest_free steps over a run of back-to-back work
 * at once. */
static int insert_busy(dev *d, int64_t start, int64_t end)
{
	size_t i = first_after(d, start); /* busy[i - 1].end <= start */
	int join_prev = i > 0 && d->busy[i - 1].end == start;
	int join_next = i < d->nbusy && d->busy[i].start == end;
	if (join_prev && join_next) {
		d->busy[i - 1].end = d->busy[i].end;
		memmove(&d->busy[i], &d->busy[i + 1],
			(d->nbusy - i - 1) * sizeof *d->busy);
		d->nbusy--;
		return 0;
	}
	if (join_prev) {
		d->busy[i - 1].end = end;
		return 0;
	}
	if (join_next) {
		d->busy[i].start = start;
		return 0;
	}
	if (grow((void **)&d->busy, &d->capbusy, d->nbusy + 1, sizeof *d->busy))
		return -1;
	memmove(&d->busy[i + 1], &d->busy[i], (d->nbusy - i) * sizeof *d->busy);
	d->busy[i].start = start;
	d->busy[i].end = end;
	d->nbusy++;
	return 0;
}

static int insert_mem(dev *d, int64_t time, int64_t delta)
{
	if (grow((void **)&d->mem, &d->capmem, d->nmem + 1, sizeof *d->mem))
		return -1;
	size_t i = d->nmem;
	while (i > 0 && d->mem[i - 1].time > time)
		i--;
	memmove(&d->mem[i + 1], &d->mem[i], (d->nmem - i) * sizeof *d->mem);
	d->mem[i].time = time;
	d->mem[i].delta = delta;
	d->nmem++;
	d->total += delta;
	return 0;
}

/* Earliest time from which the memory profile of d stays at most `room`
 * (limit minus the delta to add) forever; INT64_MAX if never. */
static int64_t memory_from(const dev *d, int64_t room)
{
	int64_t level = d->total; /* the profile after the last event */
	int64_t suffix_max = level;
	if (suffix_max > room)
		return INT64_MAX;
	int64_t t = 0;
	for (size_t i = d->nmem; i-- > 0;) {
		/* profile just before event i (after events < i) */
		int64_t before = level - d->mem[i].delta;
		if (before > room) {
			t = d->mem[i].time;
			break;
		}
		level = before;
	}
	return t;
}

int tsl_sgs(tessel_schedule *s, const tsl_inst *prio, size_t count)
{
	const tessel_graph *g = s->graph;
	int nd = g->ndevices;
	dev *devs = tsl_calloc((size_t)nd, sizeof *devs);
	if (!devs)
		return tsl_error_nomem();
	int rc = TSL_OK;
	for (size_t i = 0; i < count; i++)
		tsl_entry_at(s, prio[i].gid, prio[i].mid)->start = -1;
	for (size_t i = 0; i < count && rc == TSL_OK; i++) {
		const tsl_block *B = &g->blocks[prio[i].gid];
		int64_t t = 0;
		for (int k = 0; k < B->ndeps; k++) {
			const struct tessel_entry *e = tsl_entry_at(s, B->deps[k], prio[i].mid);
			if (e->start < 0) {
				rc = tsl_error(TESSEL_ERROR,
					       "internal: priority order puts a block before its dependency");
				break;
			}
			int64_t f = e->start + g->blocks[B->deps[k]].span;
			if (f > t)
				t = f;
		}
		if (rc)
			break;
		if (B->memory > 0) {
			for (int k = 0; k < B->ndevices; k++) {
				int d = B->devices[k];
				if (g->memory_limit[d] == TESSEL_UNLIMITED)
					continue;
				int64_t from = memory_from(&devs[d],
							   g->memory_limit[d] - B->memory);
				if (from == INT64_MAX) {
					rc = TESSEL_EINFEASIBLE; /* no message: a candidate */
					break;
				}
				if (from > t)
					t = from;
			}
			if (rc)
				break;
		}
		/* earliest common free window on all devices */
		for (int moved = 1; moved;) {
			moved = 0;
			for (int k = 0; k < B->ndevices; k++) {
				int64_t u = earliest_free(&devs[B->devices[k]], t, B->span);
				if (u != t) {
					t = u;
					moved = 1;
				}
			}
		}
		for (int k = 0; k < B->ndevices && !rc; k++) {
			dev *d = &devs[B->devices[k]];
			if (insert_busy(d, t, t + B->span) ||
			    (B->memory && insert_mem(d, t, B->memory)))
				rc = tsl_error_nomem();
		}
		tsl_entry_at(s, prio[i].gid, prio[i].mid)->start = t;
	}
	for (int d = 0; d < nd; d++) {
		tsl_free(devs[d].busy);
		tsl_free(devs[d].mem);
	}
	tsl_free(devs);
	return rc;
}

int tsl_sgs_backward(tessel_schedule *s, const tsl_inst *prio, size_t count)
{
	const tessel_graph *g = s->graph;
	int nd = g->ndevices, n = g->nblocks;
	dev *devs = tsl_calloc((size_t)nd, sizeof *devs);
	int *succ_start = tsl_calloc((size_t)n + 1, sizeof *succ_start);
	int nsucc = 0;
	for (int b = 0; b < n; b++)
		nsucc += g->blocks[b].ndeps;
	int *succ = tsl_calloc((size_t)nsucc + 1, sizeof *succ);
	int *fill = tsl_calloc((size_t)n, sizeof *fill);
	int64_t *u = tsl_reallocarray(NULL, count, sizeof *u); /* mirrored starts */
	int rc = TSL_OK;
	if (!devs || !succ_start || !succ || !fill || !u) {
		rc = tsl_error_nomem();
		goto out;
	}
	for (int b = 0; b < n; b++)
		for (int k = 0; k < g->blocks[b].ndeps; k++)
			succ_start[g->blocks[b].deps[k] + 1]++;
	for (int b = 0; b < n; b++)
		succ_start[b + 1] += succ_start[b];
	for (int b = 0; b < n; b++)
		for (int k = 0; k < g->blocks[b].ndeps; k++) {
			int a = g->blocks[b].deps[k];
			succ[succ_start[a] + fill[a]++] = b;
		}
	for (size_t i = 0; i < count; i++)
		u[i] = -1;
	int64_t horizon = 0;
	for (size_t i = 0; i < count && !rc; i++) {
		int b = prio[i].gid;
		const tsl_block *B = &g->blocks[b];
		size_t base = (size_t)prio[i].mid * (size_t)n;
		int64_t t = 0;
		for (int k = succ_start[b]; k < succ_start[b + 1]; k++) {
			int64_t us = u[base + (size_t)succ[k]];
			if (us < 0) {
				rc = tsl_error(TESSEL_ERROR,
					       "internal: backward order puts a block before its successor");
				break;
			}
			if (us + g->blocks[succ[k]].span > t)
				t = us + g->blocks[succ[k]].span;
		}
		if (rc)
			break;
		for (int moved = 1; moved;) {
			moved = 0;
			for (int k = 0; k < B->ndevices; k++) {
				int64_t v = earliest_free(&devs[B->devices[k]], t, B->span);
				if (v != t) {
					t = v;
					moved = 1;
				}
			}
		}
		for (int k = 0; k < B->ndevices && !rc; k++)
			if (insert_busy(&devs[B->devices[k]], t, t + B->span))
				rc = tsl_error_nomem();
		u[base + (size_t)b] = t;
		if (t + B->span > horizon)
			horizon = t + B->span;
	}
	/* back to real time: the block that ends last in mirrored time
	 * starts at 0 */
	for (size_t i = 0; i < count && !rc; i++) {
		size_t idx = (size_t)prio[i].mid * (size_t)n + (size_t)prio[i].gid;
		s->entries[idx].start = horizon - u[idx] - g->blocks[prio[i].gid].span;
	}
out:
	if (devs)
		for (int d = 0; d < nd; d++) {
			tsl_free(devs[d].busy);
			tsl_free(devs[d].mem);
		}
	tsl_free(devs);
	tsl_free(succ_start);
	tsl_free(succ);
	tsl_free(fill);
	tsl_free(u);
	return rc;
}
