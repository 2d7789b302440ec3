/* Serial schedule generation with insertion: instances are taken in a
 * priority order (dependencies first) and each is placed at the earliest
 * step after its dependencies (each one's finish plus its latency,
 * tsl_dep_latency) where all its devices are free for its whole span,
 * gaps left by earlier placements included, and where adding its memory
 * delta keeps every later step of its devices within the limits.
 * Unlike the order-keeping compaction it may reorder a device's work, which
 * packs warm-up and cool-down tighter. */
#include "complete_sgs.h"
#include "complete_gaps.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "util.h"

/* Each device keeps its free time as a set of gaps (complete_gaps.c) and
 * its memory deltas as a sequence of events in a treap (balanced by
 * random priorities from a fixed seed, so results never depend on them),
 * so that placing an instance costs O(log n) whatever the number of
 * instances already placed and whatever the span values: no walk over the
 * whole history. A set of devices that a block occupies together keeps
 * the gaps free on all of them (every instance on one of them takes its
 * time from the set too), so the block's earliest common window is one
 * look as well. */

/* A memory delta at a start step; ordered by time, then by insertion (an
 * event added at the time of others comes after them). */
typedef struct mev {
	int64_t time;
	int64_t delta;
	int64_t sum;    /* of the deltas in the subtree */
	int64_t maxpre; /* max over the subtree's events e of the summed
			 * deltas of the subtree's events before e */
	uint32_t prio;
	int l, r;
} mev;

typedef struct dev {
	tsl_gapset free;
	mev *mem;
	int nmem, capmem, mroot;
} dev;

/* Device sets of blocks on several devices with a gap set of their own:
 * at most this many (the largest first); blocks on other sets search
 * their devices in turn. */
#define TSL_SGS_MAX_SETS 16

typedef struct sgs_ctx {
	const tessel_graph *g;
	dev *devs;
	tsl_gapset *sets;   /* nsets */
	int nsets;
	int *block_set;     /* per block: its set, -1: none */
	uint32_t *touches;  /* per block: bit k when it shares a device with
			     * set k */
	int64_t *gap;       /* per dependency, from dep_start[block]:
			     * tsl_dep_gap */
	int *dep_start;
	uint32_t rng;
} sgs_ctx;

/* Looks at single devices in the search for a window free on all of a
 * block's devices without a set (at least 64 per device of the block)
 * before the block goes after the last work of every one of them. */
#define TSL_SGS_WINDOW_CHECKS ((int64_t)65536)
#define TSL_SGS_WINDOW_ROUNDS 64
/* Work (instances and gap set looks) between two looks at the deadline. */
#define TSL_SGS_DEADLINE_WORK ((int64_t)4096)

static uint32_t next_prio(sgs_ctx *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 17;
	c->rng ^= c->rng << 5;
	return c->rng;
}

/* A new node in a pool of `size`-byte nodes; -1 if it cannot grow. */
static int new_node(void **pool, int *n, int *cap, size_t size)
{
	if (*n == *cap) {
		if (*cap > INT32_MAX / 2)
			return -1;
		int c = *cap ? *cap * 2 : 16;
		void *p = tsl_reallocarray(*pool, (size_t)c, size);
		if (!p)
			return -1;
		*pool = p;
		*cap = c;
	}
	return (*n)++;
}

/* ---- memory events ---- */

static void mem_pull(mev *M, int n)
{
	int l = M[n].l, r = M[n].r;
	int64_t sl = l >= 0 ? M[l].sum : 0;
	int64_t best = sl; /* before n itself */
	if (l >= 0 && M[l].maxpre > best)
		best = M[l].maxpre;
	if (r >= 0 && sl + M[n].delta + M[r].maxpre > best)
		best = sl + M[n].delta + M[r].maxpre;
	M[n].sum = sl + M[n].delta + (r >= 0 ? M[r].sum : 0);
	M[n].maxpre = best;
}

static int mem_merge(mev *M, int x, int y)
{
	if (x < 0)
		return y;
	if (y < 0)
		return x;
	if (M[x].prio > M[y].prio) {
		M[x].r = mem_merge(M, M[x].r, y);
		mem_pull(M, x);
		return x;
	}
	M[y].l = mem_merge(M, x, M[y].l);
	mem_pull(M, y);
	return y;
}

/* Split n into the events at time <= t (*l) and the later ones (*r). */
static void mem_split(mev *M, int n, int64_t t, int *l, int *r)
{
	if (n < 0) {
		*l = *r = -1;
		return;
	}
	if (M[n].time <= t) {
		mem_split(M, M[n].r, t, &M[n].r, r);
		*l = n;
	} else {
		mem_split(M, M[n].l, t, l, &M[n].l);
		*r = n;
	}
	mem_pull(M, n);
}

static int insert_mem(dev *d, int64_t time, int64_t delta, sgs_ctx *c)
{
	int n = new_node((void **)&d->mem, &d->nmem, &d->capmem, sizeof *d->mem);
	if (n < 0)
		return -1;
	mev *M = d->mem;
	M[n] = (mev){time, delta, delta, 0, next_prio(c), -1, -1};
	int l, r;
	mem_split(M, d->mroot, time, &l, &r);
	d->mroot = mem_merge(M, mem_merge(M, l, n), r);
	return 0;
}

/* Earliest time from which the memory profile of d stays at most `room`
 * (limit minus the delta to add) forever; INT64_MAX if never: the time of
 * the last event before which the profile exceeds room, 0 if none. */
static int64_t memory_from(const dev *d, int64_t room)
{
	const mev *M = d->mem;
	int n = d->mroot;
	if (n < 0)
		return room < 0 ? INT64_MAX : 0;
	if (M[n].sum > room)
		return INT64_MAX; /* the profile after the last event */
	int64_t off = 0; /* summed deltas of the events before subtree n */
	while (n >= 0) {
		int l = M[n].l, r = M[n].r;
		int64_t sl = l >= 0 ? M[l].sum : 0;
		if (r >= 0 && off + sl + M[n].delta + M[r].maxpre > room) {
			off += sl + M[n].delta;
			n = r;
		} else if (off + sl > room) {
			return M[n].time;
		} else if (l >= 0 && off + M[l].maxpre > room) {
			n = l;
		} else {
			break;
		}
	}
	return 0;
}

/* ---- the devices and sets of a pass ---- */

/* Blocks by device count (most first), then by device list. */
static int cmp_devlist(const tsl_block *a, const tsl_block *b)
{
	if (a->ndevices != b->ndevices)
		return a->ndevices > b->ndevices ? -1 : 1;
	for (int k = 0; k < a->ndevices; k++)
		if (a->devices[k] != b->devices[k])
			return a->devices[k] < b->devices[k] ? -1 : 1;
	return 0;
}

static int cmp_blockptr(const void *x, const void *y)
{
	return cmp_devlist(*(const tsl_block *const *)x,
			   *(const tsl_block *const *)y);
}

static void ctx_release(sgs_ctx *c)
{
	if (c->devs)
		for (int d = 0; d < c->g->ndevices; d++) {
			tsl_gapset_release(&c->devs[d].free);
			tsl_free(c->devs[d].mem);
		}
	if (c->sets)
		for (int k = 0; k < c->nsets; k++)
			tsl_gapset_release(&c->sets[k]);
	tsl_free(c->devs);
	tsl_free(c->sets);
	tsl_free(c->block_set);
	tsl_free(c->touches);
	tsl_free(c->gap);
	tsl_free(c->dep_start);
}

/* A gap set for each of the TSL_SGS_MAX_SETS longest distinct device
 * lists of blocks on several devices. -1 when out of memory. */
static int ctx_init(sgs_ctx *c, const tessel_graph *g)
{
	int nd = g->ndevices, nb = g->nblocks, nmulti = 0, ndeps = 0;
	memset(c, 0, sizeof *c);
	for (int b = 0; b < nb; b++)
		ndeps += g->blocks[b].ndeps;
	c->dep_start = tsl_calloc((size_t)nb + 1, sizeof *c->dep_start);
	c->gap = tsl_calloc((size_t)ndeps + 1, sizeof *c->gap);
	c->g = g;
	c->rng = 0x9e3779b9u;
	c->devs = tsl_calloc((size_t)nd, sizeof *c->devs);
	c->sets = tsl_calloc(TSL_SGS_MAX_SETS, sizeof *c->sets);
	c->block_set = tsl_calloc((size_t)nb, sizeof *c->block_set);
	c->touches = tsl_calloc((size_t)nb, sizeof *c->touches);
	uint32_t *dev_sets = tsl_calloc((size_t)nd, sizeof *dev_sets);
	const tsl_block **multi = tsl_calloc((size_t)nb, sizeof *multi);
	int rc = !c->devs || !c->sets || !c->block_set || !c->touches ||
		 !dev_sets || !multi || !c->dep_start || !c->gap ? -1 : 0;
	for (int b = 0; b < nb && !rc; b++) {
		const tsl_block *B = &g->blocks[b];
		c->dep_start[b + 1] = c->dep_start[b] + B->ndeps;
		for (int k = 0; k < B->ndeps; k++)
			c->gap[c->dep_start[b] + k] = tsl_dep_gap(g, B, k);
	}
	for (int d = 0; d < nd && !rc; d++) {
		c->devs[d].mroot = -1;
		rc = tsl_gapset_init(&c->devs[d].free);
	}
	for (int b = 0; b < nb && !rc; b++) {
		c->block_set[b] = -1;
		if (g->blocks[b].ndevices > 1)
			multi[nmulti++] = &g->blocks[b];
	}
	if (!rc)
		qsort(multi, (size_t)nmulti, sizeof *multi, cmp_blockptr);
	for (int i = 0; i < nmulti && !rc; i++) {
		int b = (int)(multi[i] - g->blocks);
		if (i > 0 && !cmp_devlist(multi[i - 1], multi[i])) {
			c->block_set[b] = c->block_set[multi[i - 1] - g->blocks];
			continue;
		}
		if (c->nsets == TSL_SGS_MAX_SETS)
			continue;
		int k = c->nsets++;
		rc = tsl_gapset_init(&c->sets[k]);
		c->block_set[b] = k;
		for (int j = 0; j < multi[i]->ndevices; j++)
			dev_sets[multi[i]->devices[j]] |= (uint32_t)1 << k;
	}
	for (int b = 0; b < nb && !rc; b++)
		for (int j = 0; j < g->blocks[b].ndevices; j++)
			c->touches[b] |= dev_sets[g->blocks[b].devices[j]];
	tsl_free(dev_sets);
	tsl_free(multi);
	if (rc)
		ctx_release(c);
	return rc;
}

/* Earliest t' >= t at which [t', t' + span) is free on every device of B.
 * One device or a set: one look. Otherwise the devices in turn move t to
 * their earliest window (never past the common one) until all of them in
 * a row accept it; after TSL_SGS_WINDOW_CHECKS looks (but at least
 * TSL_SGS_WINDOW_ROUNDS per device) without one, the step after the last
 * work of all of them (free on each). *work grows by the looks. */
static int64_t common_window(const sgs_ctx *c, int b, int64_t t, int64_t *work)
{
	const tsl_block *B = &c->g->blocks[b];
	if (c->block_set[b] >= 0 || B->ndevices == 1) {
		*work += 1;
		return tsl_gapset_earliest(c->block_set[b] >= 0 ? &c->sets[c->block_set[b]]
					: &c->devs[B->devices[0]].free, t, B->span);
	}
	int64_t cap = (int64_t)TSL_SGS_WINDOW_ROUNDS * B->ndevices;
	if (cap < TSL_SGS_WINDOW_CHECKS)
		cap = TSL_SGS_WINDOW_CHECKS;
	int agree = 0;
	for (int64_t looks = 0, k = 0; looks < cap; looks++) {
		int64_t u = tsl_gapset_earliest(&c->devs[B->devices[k]].free, t, B->span);
		agree = u == t ? agree + 1 : 1;
		t = u;
		if (agree == B->ndevices) {
			*work += looks + 1;
			return t;
		}
		k = k + 1 == B->ndevices ? 0 : k + 1;
	}
	*work += cap;
	for (int k = 0; k < B->ndevices; k++) {
		int64_t u = tsl_gapset_last(&c->devs[B->devices[k]].free);
		if (u > t)
			t = u;
	}
	return t;
}

/* Block b's instance takes [t, t + span) on its devices and the sets
 * that share one of them. */
static int take_window(sgs_ctx *c, int b, int64_t t, int64_t *work)
{
	const tsl_block *B = &c->g->blocks[b];
	for (int k = 0; k < B->ndevices; k++)
		if (tsl_gapset_take(&c->devs[B->devices[k]].free, t, t + B->span))
			return -1;
	for (uint32_t m = c->touches[b]; m; m &= m - 1) {
		*work += 1;
		if (tsl_gapset_take(&c->sets[__builtin_ctz(m)], t, t + B->span))
			return -1;
	}
	return 0;
}

/* What a step is charged on a pass over `count` instances, in sixteenths
 * of its rate (TSL_SGS_STEPS_PER_TICK): one rate up to
 * TSL_SGS_PLAIN_COUNT instances, then growing with the square root of the
 * count, as the devices' gap sets and memory events outgrow the caches.
 * Measured alone on kshape, mshape and xshape at 16 to 4096 devices, per
 * device an instance takes: 0.23 to 0.26 us up to 16,640 instances, 0.34
 * us at 131,000, 0.47 at 262,000, 0.80 at 525,000, 2.0 at 2.1 million. */
#define TSL_SGS_PLAIN_COUNT ((int64_t)65536)

static int64_t step_weight(size_t count)
{
	if ((int64_t)count <= TSL_SGS_PLAIN_COUNT)
		return 16;
	/* 16 * sqrt(count / TSL_SGS_PLAIN_COUNT), rounded down */
	int64_t x = (int64_t)(count > (size_t)INT64_MAX / 256 ? INT64_MAX / 256 : count) *
		    256 / TSL_SGS_PLAIN_COUNT;
	int64_t r = 16;
	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

/* The steps of a pass: counted, and charged at each look at the deadline
 * (every TSL_SGS_DEADLINE_WORK steps) and at its end, in whole ticks. */
typedef struct sgs_meter {
	int64_t work;      /* steps so far: an instance on each of its
			    * devices, and the gap set looks */
	int64_t next_look; /* when the deadline is looked at next */
	int64_t looked;    /* work at the last look */
	int64_t weight;    /* step_weight of the pass */
} sgs_meter;

static void meter_init(sgs_meter *m, size_t count)
{
	*m = (sgs_meter){0, TSL_SGS_DEADLINE_WORK, 0, step_weight(count)};
}

static void charge_steps(sgs_meter *m, const tsl_deadline *dl)
{
	int64_t ticks = (m->work - m->looked) / TSL_SGS_STEPS_PER_TICK;
	m->looked = m->work;
	tsl_charge(dl, ticks > INT64_MAX / m->weight ? INT64_MAX / 16
						      : ticks * m->weight / 16);
}

/* One more instance: whether the deadline has passed, looked at every
 * TSL_SGS_DEADLINE_WORK steps (the steps since the last look charged
 * first). */
static int deadline_due(sgs_meter *m, const tsl_deadline *dl)
{
	if (++m->work < m->next_look)
		return 0;
	charge_steps(m, dl);
	m->next_look = m->work + TSL_SGS_DEADLINE_WORK;
	return tsl_deadline_left_ms(dl) <= 0;
}

int64_t tsl_sgs_pass_least_ticks(const tessel_graph *g, int64_t nmicros,
				  const tsl_deadline *dl)
{
	sgs_ctx c;
	if (!g || nmicros <= 0 || ctx_init(&c, g))
		return 0;
	/* an instance's steps: one, one more per further device, its
	 * window's looks (one on one device or a set, else at least one a
	 * device: common_window) and one per set it touches (take_window) */
	int64_t per = 0, widest = 0;
	for (int b = 0; b < g->nblocks; b++) {
		int64_t n = g->blocks[b].ndevices;
		int64_t looks = c.block_set[b] >= 0 || n == 1 ? 1 : n;
		int64_t steps = n + looks + __builtin_popcount(c.touches[b]);
		per += steps;
		widest = steps > widest ? steps : widest;
	}
	ctx_release(&c);
	if (per > INT64_MAX / 256 / nmicros)
		return INT64_MAX / 256;
	int64_t steps = per * nmicros;
	size_t count = (size_t)g->nblocks * (size_t)nmicros;
	/* not counted: the steps after the last look (fewer than
	 * TSL_SGS_DEADLINE_WORK before the last instance begins, then at
	 * least that instance's), and what each charge rounds down, once
	 * a look and once at the end */
	int64_t looks = steps / TSL_SGS_DEADLINE_WORK + 2;
	int64_t ticks = (steps - TSL_SGS_DEADLINE_WORK - widest) / TSL_SGS_STEPS_PER_TICK - looks;
	if (ticks <= 0)
		return 0;
	ticks = ticks * step_weight(count) / 16 - looks;
	if (dl && dl->visit_weight > 16 && ticks > 0)
		ticks = ticks * dl->visit_weight / 16 - looks;
	return ticks > 0 ? ticks : 0;
}

int tsl_sgs(tessel_schedule *s, const tsl_inst *prio, size_t count,
	    const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	sgs_ctx c;
	if (ctx_init(&c, g))
		return tsl_error_nomem();
	int rc = TSL_OK;
	sgs_meter mt;
	meter_init(&mt, count);
	for (size_t i = 0; i < count; i++)
		tsl_entry_at(s, prio[i].gid, prio[i].mid)->start = -1;
	for (size_t i = 0; i < count && rc == TSL_OK; i++) {
		if (deadline_due(&mt, dl)) {
			rc = TESSEL_ETIMEOUT; /* no message: the caller goes on */
			break;
		}
		int b = prio[i].gid;
		const tsl_block *B = &g->blocks[b];
		mt.work += B->ndevices - 1; /* the instance on each device */
		int64_t t = 0;
		for (int k = 0; k < B->ndeps; k++) {
			const struct tessel_entry *e = tsl_entry_at(s, B->deps[k], prio[i].mid);
			if (e->start < 0) {
				rc = tsl_error(TESSEL_ERROR,
					       "internal: priority order puts a block before its dependency");
				break;
			}
			int64_t f = e->start + c.gap[c.dep_start[b] + k];
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
				int64_t from = memory_from(&c.devs[d],
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
		/* earliest common free window on all devices; the memory
		 * profile stays within the limits at any later step too */
		t = common_window(&c, b, t, &mt.work);
		if (take_window(&c, b, t, &mt.work))
			rc = tsl_error_nomem();
		for (int k = 0; k < B->ndevices && !rc && B->memory; k++)
			if (insert_mem(&c.devs[B->devices[k]], t, B->memory, &c))
				rc = tsl_error_nomem();
		tsl_entry_at(s, b, prio[i].mid)->start = t;
	}
	charge_steps(&mt, dl);
	ctx_release(&c);
	return rc;
}

void tsl_mirrored_limits(int64_t *room, const tessel_graph *g, int64_t nmicros)
{
	for (int d = 0; d < g->ndevices; d++)
		room[d] = 0;
	for (int b = 0; b < g->nblocks; b++)
		for (int k = 0; k < g->blocks[b].ndevices; k++)
			room[g->blocks[b].devices[k]] += g->blocks[b].memory;
	for (int d = 0; d < g->ndevices; d++)
		room[d] = g->memory_limit[d] == TESSEL_UNLIMITED
				  ? INT64_MAX
				  : g->memory_limit[d] - room[d] * nmicros;
}

int tsl_sgs_backward(tessel_schedule *s, const tsl_inst *prio, size_t count,
		     const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	int n = g->nblocks;
	sgs_ctx c;
	if (ctx_init(&c, g))
		return tsl_error_nomem();
	tsl_succ x;
	int64_t *u = tsl_reallocarray(NULL, count, sizeof *u); /* mirrored starts */
	int64_t *room = tsl_calloc((size_t)g->ndevices, sizeof *room); /* mirrored limits */
	int rc = u && room ? tsl_succ_build(&x, g) : tsl_error_nomem();
	if (rc) {
		ctx_release(&c);
		tsl_free(u);
		tsl_free(room);
		return rc;
	}
	for (size_t i = 0; i < count; i++)
		u[i] = -1;
	tsl_mirrored_limits(room, g, s->nmicros);
	/* in mirrored time a successor c of b comes first, and b starts
	 * span(c) + latency after it: in real time c starts that latency
	 * after b finishes */
	int64_t horizon = 0;
	sgs_meter mt;
	meter_init(&mt, count);
	for (size_t i = 0; i < count && !rc; i++) {
		if (deadline_due(&mt, dl)) {
			rc = TESSEL_ETIMEOUT; /* no message: the caller goes on */
			break;
		}
		int b = prio[i].gid;
		const tsl_block *B = &g->blocks[b];
		mt.work += B->ndevices - 1; /* the instance on each device */
		size_t base = (size_t)prio[i].mid * (size_t)n;
		int64_t t = 0;
		for (int k = x.start[b]; k < x.start[b + 1]; k++) {
			int sc = x.block[k];
			int64_t us = u[base + (size_t)sc];
			if (us < 0) {
				rc = tsl_error(TESSEL_ERROR,
					       "internal: backward order puts a block before its successor");
				break;
			}
			int64_t e = us + g->blocks[sc].span +
				    x.lat[k];
			if (e > t)
				t = e;
		}
		if (rc)
			break;
		/* memory in mirrored time: the block's delta, negated, at its
		 * mirrored finish (its real start) */
		int64_t m = -(int64_t)B->memory;
		for (int k = 0; k < B->ndevices && m > 0; k++) {
			int d = B->devices[k];
			if (room[d] == INT64_MAX)
				continue;
			int64_t from = memory_from(&c.devs[d], room[d] - m);
			if (from == INT64_MAX) {
				rc = TESSEL_EINFEASIBLE; /* no message: a candidate */
				break;
			}
			if (from - B->span > t)
				t = from - B->span;
		}
		if (rc)
			break;
		t = common_window(&c, b, t, &mt.work);
		if (take_window(&c, b, t, &mt.work))
			rc = tsl_error_nomem();
		for (int k = 0; k < B->ndevices && !rc && m; k++)
			if (room[B->devices[k]] != INT64_MAX &&
			    insert_mem(&c.devs[B->devices[k]], t + B->span, m, &c))
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
	charge_steps(&mt, dl);
	ctx_release(&c);
	tsl_succ_release(&x);
	tsl_free(u);
	tsl_free(room);
	return rc;
}
