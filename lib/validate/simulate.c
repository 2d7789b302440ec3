/* Stage: validate. Simulation: replay a schedule's per-device order with
 * real durations.
 *
 * Every entry waits until it is first in line on all its devices (the
 * devices run their entries in the schedule's start order, ties by block
 * id then micro-batch) and until each of its dependencies has finished,
 * plus the dependency's latency in the placement's unit where it counts
 * (the consumer occupies a device the producer does not), plus the extra
 * `latency` when producer and consumer share no device. Times are in the
 * placement's unit when it has a step, else in steps.
 *
 * Memory-time alternatives: a backward whose micro-batch recomputes a
 * forward runs its extra steps longer (times the step when the placement
 * has one). Each offloaded instance has, on each device of its block, an
 * offload and a reload of `transfer` steps (times the step) on the
 * device's copy channel, beside the compute: a channel runs its copies one
 * at a time in the schedule's order (by start step). An offload waits for
 * its block to finish, a reload for its offload to end, and each copy is
 * issued in the device's stream order: not before the compute that
 * precedes it on the device (the last one starting before an offload's
 * step, at or before a reload's) has started. The backward waits for its reloads to end. On a
 * device with a memory limit, a compute that takes memory at its start
 * waits for the offloads of the device that end, in the schedule, at or
 * before its start and that no earlier such compute waits for (the WAIT
 * actions of the device's action stream): the memory they free is what
 * the schedule's count lets it take. The jitter
 * draws one factor per entry in index order, then one per copy.
 *
 * The start times are the longest paths of that precedence graph,
 * computed in one event-driven pass (a node is released when its last
 * predecessor finishes): O(E log E) for the sorts, linear afterwards.
 * Contract: replaying a valid schedule with its spans, no latency and no
 * jitter, no entry or copy starts later than the schedule has it. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "schedule.h"
#include "schedule_alt.h"
#include "util.h"

#define SIM_NONE SIZE_MAX

struct tessel_simulation {
	int ndevices;
	double makespan;
	double *busy;    /* per device */
	int64_t *peak;   /* per device */
};

/* The copies of one replay: node 2q is the offload and 2q + 1 the reload
 * of pair q (an offloaded entry on one of its devices). */
typedef struct sim_copies {
	size_t n;            /* nodes */
	size_t *first;       /* per entry: its first node, SIM_NONE */
	size_t *entry;       /* per pair: the offloaded entry */
	int *dev;            /* per pair: the device */
	int64_t *step;       /* per node: the scheduled start */
	double *dur, *ready, *finish;
	int *wait;           /* per node: predecessors not yet finished */
	size_t *devoff;      /* ndevices + 1 offsets into line */
	size_t *line;        /* per device, its copies in channel order */
	size_t *pos;         /* per node: its position in line */
	size_t *abeg, *aend; /* per compute slot: the positions in line of
			      * the copies issued after that compute */
	size_t *waiter;      /* per node: the entry that waits for this
			      * offload to end (memory_waits), SIM_NONE */
} sim_copies;

/* Working state of one replay. */
typedef struct sim_state {
	const tessel_schedule *s;
	const tessel_graph *g;
	size_t n;            /* entries */
	double *dur;         /* per entry */
	double *ready;       /* per entry: earliest start so far */
	double *finish;      /* per entry */
	int *wait;           /* per entry: predecessors not yet finished */
	size_t *order;       /* entries by (start, gid, mid) */
	size_t *devoff;      /* ndevices + 1 offsets into slots */
	size_t *slots;       /* per device, its entries in line */
	size_t *head;        /* per device: position of the first in line */
	tsl_succ succ;       /* per block, the blocks that wait for it */
	double *conslat;     /* per succ entry: the placement's latency of
			      * that dependency where it counts, else 0 */
	size_t *queue;       /* released nodes: entries, then n + copies */
	size_t occ;          /* slots */
	sim_copies c;        /* all 0 without copies */
} sim_state;

/* splitmix64: small, fast and good enough for jitter. */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double uniform(uint64_t *x)
{
	return (double)(splitmix64(x) >> 11) * 0x1.0p-53;
}

static int check_args(tessel_simulation **out,
		      const tessel_schedule *s, const double *durations,
		      size_t count, double latency, double jitter)
{
	TSL_CHECK_ARG(out, "tessel_simulate", "out");
	TSL_CHECK_ARG(s, "tessel_simulate", "schedule");
	const tessel_graph *g = s->graph;
	if (durations && count != (size_t)g->nblocks)
		return tsl_error(TESSEL_EINVAL,
				 "tessel_simulate: %zu durations given for %d blocks",
				 count, g->nblocks);
	for (int b = 0; durations && b < g->nblocks; b++)
		if (!isfinite(durations[b]) || !(durations[b] > 0))
			return tsl_error(TESSEL_ERANGE,
					 "tessel_simulate: duration of block %d (\"%s\") must be a finite number > 0, got %g",
					 b, g->blocks[b].name, durations[b]);
	if (!isfinite(latency) || !(latency >= 0))
		return tsl_error(TESSEL_ERANGE,
				 "tessel_simulate: latency must be a finite number >= 0, got %g",
				 latency);
	if (!(jitter >= 0 && jitter < 1))
		return tsl_error(TESSEL_ERANGE,
				 "tessel_simulate: jitter must be in [0, 1), got %g",
				 jitter);
	return tsl_schedule_check_placed(s, "tessel_simulate");
}

static void copies_release(sim_copies *c)
{
	tsl_free(c->first);
	tsl_free(c->entry);
	tsl_free(c->dev);
	tsl_free(c->step);
	tsl_free(c->dur);
	tsl_free(c->ready);
	tsl_free(c->finish);
	tsl_free(c->wait);
	tsl_free(c->devoff);
	tsl_free(c->line);
	tsl_free(c->pos);
	tsl_free(c->abeg);
	tsl_free(c->aend);
	tsl_free(c->waiter);
	memset(c, 0, sizeof *c);
}

static void state_release(sim_state *st)
{
	tsl_free(st->dur);
	tsl_free(st->ready);
	tsl_free(st->finish);
	tsl_free(st->wait);
	tsl_free(st->order);
	tsl_free(st->devoff);
	tsl_free(st->slots);
	tsl_free(st->head);
	tsl_succ_release(&st->succ);
	tsl_free(st->conslat);
	tsl_free(st->queue);
	copies_release(&st->c);
}

static int state_alloc(sim_state *st, const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	size_t nd = (size_t)g->ndevices, nb = (size_t)g->nblocks;
	size_t occ = 0, ndeps = 0;

	memset(st, 0, sizeof *st);
	st->s = s;
	st->g = g;
	st->n = nb * (size_t)s->nmicros;
	for (size_t b = 0; b < nb; b++) {
		occ += (size_t)g->blocks[b].ndevices;
		ndeps += (size_t)g->blocks[b].ndeps;
	}
	occ *= (size_t)s->nmicros;
	st->occ = occ;
	st->dur = tsl_reallocarray(NULL, st->n, sizeof *st->dur);
	st->ready = tsl_calloc(st->n, sizeof *st->ready);
	st->finish = tsl_reallocarray(NULL, st->n, sizeof *st->finish);
	st->wait = tsl_reallocarray(NULL, st->n, sizeof *st->wait);
	st->order = tsl_reallocarray(NULL, st->n, sizeof *st->order);
	st->devoff = tsl_calloc(nd + 1, sizeof *st->devoff);
	st->slots = tsl_reallocarray(NULL, occ ? occ : 1, sizeof *st->slots);
	st->head = tsl_calloc(nd, sizeof *st->head);
	st->conslat = tsl_reallocarray(NULL, ndeps ? ndeps : 1,
				       sizeof *st->conslat);
	st->queue = tsl_reallocarray(NULL, st->n, sizeof *st->queue);
	if (!st->dur || !st->ready || !st->finish || !st->wait || !st->order ||
	    !st->devoff || !st->slots || !st->head || !st->conslat ||
	    !st->queue) {
		state_release(st);
		return tsl_error_nomem();
	}
	int rc = tsl_succ_build(&st->succ, g);
	if (rc)
		state_release(st);
	return rc;
}

/* Whether entry e has both copies of an offload. */
static int offloaded(const tessel_schedule *s, const struct tessel_entry *e)
{
	return e->choice == TESSEL_CHOICE_OFFLOAD &&
	       tsl_entry_copy_start(s, e, 0) >= 0 &&
	       tsl_entry_copy_start(s, e, 1) >= 0;
}

/* Room for the copies (none: st->c stays zero) and a queue for them. */
static int copies_alloc(sim_state *st)
{
	const tessel_schedule *s = st->s;
	sim_copies *c = &st->c;
	size_t pairs = 0, nd = (size_t)st->g->ndevices;
	for (size_t i = 0; i < st->n && s->copies; i++)
		if (offloaded(s, &s->entries[i]))
			pairs += (size_t)st->g->blocks[s->entries[i].gid].ndevices;
	if (pairs == 0)
		return TSL_OK;
	c->n = 2 * pairs;
	c->first = tsl_reallocarray(NULL, st->n, sizeof *c->first);
	c->entry = tsl_reallocarray(NULL, pairs, sizeof *c->entry);
	c->dev = tsl_reallocarray(NULL, pairs, sizeof *c->dev);
	c->step = tsl_reallocarray(NULL, c->n, sizeof *c->step);
	c->dur = tsl_reallocarray(NULL, c->n, sizeof *c->dur);
	c->ready = tsl_calloc(c->n, sizeof *c->ready);
	c->finish = tsl_reallocarray(NULL, c->n, sizeof *c->finish);
	c->wait = tsl_reallocarray(NULL, c->n, sizeof *c->wait);
	c->devoff = tsl_calloc(nd + 1, sizeof *c->devoff);
	c->line = tsl_reallocarray(NULL, c->n, sizeof *c->line);
	c->pos = tsl_reallocarray(NULL, c->n, sizeof *c->pos);
	c->waiter = tsl_reallocarray(NULL, c->n, sizeof *c->waiter);
	c->abeg = tsl_reallocarray(NULL, st->occ ? st->occ : 1, sizeof *c->abeg);
	c->aend = tsl_reallocarray(NULL, st->occ ? st->occ : 1, sizeof *c->aend);
	size_t *q = tsl_reallocarray(st->queue, st->n + c->n, sizeof *q);
	if (q)
		st->queue = q;
	if (!q || !c->first || !c->entry || !c->dev || !c->step || !c->dur ||
	    !c->ready || !c->finish || !c->wait || !c->devoff || !c->line ||
	    !c->pos || !c->abeg || !c->aend || !c->waiter)
		return tsl_error_nomem();
	return TSL_OK;
}

/* Durations of every entry, one jitter draw per entry in index order
 * (a recompute's extra steps added to its backward), then of every
 * copy. */
static void draw_durations(sim_state *st, const double *durations,
			   double jitter, uint64_t seed)
{
	uint64_t x = seed;
	double unit = st->g->step > 0 ? st->g->step : 1.0;

	for (size_t i = 0; i < st->n; i++) {
		const struct tessel_entry *e = &st->s->entries[i];
		double d = durations ? durations[e->gid]
				     : tsl_block_time(st->g, e->gid);
		d += (double)e->span_add * unit;
		if (jitter > 0)
			d *= 1.0 - jitter + 2.0 * jitter * uniform(&x);
		st->dur[i] = d;
	}
	for (size_t k = 0; k < st->c.n; k++) {
		int gid = st->s->entries[st->c.entry[k / 2]].gid;
		double d = (double)st->g->blocks[gid].of_transfer * unit;
		if (jitter > 0)
			d *= 1.0 - jitter + 2.0 * jitter * uniform(&x);
		st->c.dur[k] = d;
	}
}

/* Sort indices by (start, gid, mid) with a thread-safe merge sort (qsort
 * has no context argument in C11). */
static void merge_sort(size_t *v, size_t *tmp, size_t n,
		       const tessel_schedule *s)
{
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi) {
				const struct tessel_entry *a = &s->entries[v[i]];
				const struct tessel_entry *b = &s->entries[v[j]];
				int le = a->start != b->start ? a->start < b->start
				       : a->gid != b->gid ? a->gid < b->gid
				       : a->mid <= b->mid;
				tmp[k++] = le ? v[i++] : v[j++];
			}
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
		}
		memcpy(v, tmp, n * sizeof *v);
	}
}

/* Per device, its entries in line; per block, its consumers. */
static void build_lines(sim_state *st)
{
	const tessel_graph *g = st->g;
	size_t nd = (size_t)g->ndevices;

	for (size_t i = 0; i < st->n; i++)
		st->order[i] = i;
	/* queue is free until the replay: use it as the sort's buffer */
	merge_sort(st->order, st->queue, st->n, st->s);
	for (int b = 0; b < g->nblocks; b++)
		for (int k = 0; k < g->blocks[b].ndevices; k++)
			st->devoff[g->blocks[b].devices[k] + 1] +=
				(size_t)st->s->nmicros;
	for (size_t d = 0; d < nd; d++)
		st->devoff[d + 1] += st->devoff[d];
	/* head doubles as the fill cursor, reset afterwards */
	for (size_t k = 0; k < st->n; k++) {
		size_t i = st->order[k];
		const tsl_block *blk = &g->blocks[st->s->entries[i].gid];
		for (int j = 0; j < blk->ndevices; j++) {
			int d = blk->devices[j];
			st->slots[st->devoff[d] + st->head[d]++] = i;
		}
	}
	memset(st->head, 0, nd * sizeof *st->head);
	const tsl_succ *x = &st->succ;
	for (int at = 0; at < x->start[g->nblocks]; at++) {
		const tsl_block *B = &g->blocks[x->block[at]];
		int k = x->dep[at];
		st->conslat[at] = tsl_dep_latency(g, B, k) > 0
				  ? tsl_dep_latency_time(g, B, k) : 0;
	}
}

/* A copy node's place in its channel's line. */
typedef struct copy_key {
	int dev;
	int64_t step;
	size_t node;
} copy_key;

static int copy_key_cmp(const void *pa, const void *pb)
{
	const copy_key *a = pa, *b = pb;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	if ((a->node & 1) != (b->node & 1))
		return (a->node & 1) ? 1 : -1; /* offloads first */
	return (a->node > b->node) - (a->node < b->node);
}

/* Whether copy node k is issued before a compute that starts at `start`
 * (an offload at that step or earlier, a reload earlier: a reload of the
 * compute's step comes after it, as the validator counts the block's
 * memory before the reload's). */
static int issued_before(const sim_copies *c, size_t k, int64_t start)
{
	return (k & 1) ? c->step[k] < start : c->step[k] <= start;
}

/* The copies issued after each compute slot of device d: those the
 * device's stream lists between that compute and the next
 * (issued_before; a channel's line has a step's offloads before its
 * reloads). */
static void copy_anchors(sim_state *st, int d)
{
	sim_copies *c = &st->c;
	size_t j = c->devoff[d], jend = c->devoff[d + 1];
	size_t p0 = st->devoff[d], pend = st->devoff[d + 1];
	/* copies before the device's first compute wait for none */
	while (j < jend && (p0 == pend ||
			    issued_before(c, c->line[j],
					  st->s->entries[st->slots[p0]].start)))
		j++;
	for (size_t p = p0; p < pend; p++) {
		c->abeg[p] = j;
		while (j < jend &&
		       (p + 1 == pend ||
			issued_before(c, c->line[j],
				      st->s->entries[st->slots[p + 1]].start)))
			j++;
		c->aend[p] = j;
	}
}

/* The offloads a compute of device d waits for (the rule of the action
 * streams' WAIT, export_actions.c): on a device with a memory limit, each
 * offload has as its waiter the first compute, in the device's line, that
 * starts at or after the offload's scheduled end and takes memory at its
 * start; the compute then starts only once the offload has ended, as the
 * schedule's memory count has it. (A channel's copies end in their line's
 * order.) */
static void memory_waits(sim_state *st, int d)
{
	sim_copies *c = &st->c;
	const tessel_schedule *s = st->s;
	for (size_t j = c->devoff[d]; j < c->devoff[d + 1]; j++)
		c->waiter[c->line[j]] = SIM_NONE;
	if (st->g->memory_limit[d] == TESSEL_UNLIMITED)
		return;
	size_t j = c->devoff[d], jend = c->devoff[d + 1];
	for (size_t p = st->devoff[d]; p < st->devoff[d + 1] && j < jend; p++) {
		size_t i = st->slots[p];
		const struct tessel_entry *e = &s->entries[i];
		if (tsl_entry_memory(s, e) <= 0)
			continue;
		while (j < jend) {
			size_t k = c->line[j];
			int gid = s->entries[c->entry[k / 2]].gid;
			if (c->step[k] + st->g->blocks[gid].of_transfer > e->start)
				break;
			if (!(k & 1)) {
				c->waiter[k] = i;
				st->wait[i]++;
			}
			j++;
		}
	}
}

/* The pairs of copies, each channel's line and the copies' anchors. */
static int copies_build(sim_state *st)
{
	const tessel_schedule *s = st->s;
	sim_copies *c = &st->c;
	if (c->n == 0)
		return TSL_OK;
	copy_key *keys = tsl_reallocarray(NULL, c->n, sizeof *keys);
	if (!keys)
		return tsl_error_nomem();
	size_t q = 0;
	for (size_t i = 0; i < st->n; i++) {
		const struct tessel_entry *e = &s->entries[i];
		c->first[i] = SIM_NONE;
		if (!offloaded(s, e))
			continue;
		const tsl_block *blk = &st->g->blocks[e->gid];
		c->first[i] = 2 * q;
		for (int k = 0; k < blk->ndevices; k++, q++) {
			c->entry[q] = i;
			c->dev[q] = blk->devices[k];
			for (int r = 0; r < 2; r++) {
				c->step[2 * q + r] = tsl_entry_copy_start(s, e, r);
				keys[2 * q + r] = (copy_key){blk->devices[k],
							     c->step[2 * q + r],
							     2 * q + r};
			}
			c->devoff[blk->devices[k] + 1] += 2;
		}
	}
	qsort(keys, c->n, sizeof *keys, copy_key_cmp);
	for (size_t k = 0; k < c->n; k++) {
		c->line[k] = keys[k].node;
		c->pos[keys[k].node] = k;
	}
	tsl_free(keys);
	for (int d = 0; d < st->g->ndevices; d++)
		c->devoff[d + 1] += c->devoff[d];
	for (int d = 0; d < st->g->ndevices; d++)
		copy_anchors(st, d);
	return TSL_OK;
}

/* One predecessor of entry i finished at time t: release i when it was the
 * last. */
static void arrive(sim_state *st, size_t i, double t, size_t *tail)
{
	if (t > st->ready[i])
		st->ready[i] = t;
	if (--st->wait[i] == 0)
		st->queue[(*tail)++] = i;
}

/* The same for copy node k. */
static void carrive(sim_state *st, size_t k, double t, size_t *tail)
{
	if (t > st->c.ready[k])
		st->c.ready[k] = t;
	if (--st->c.wait[k] == 0)
		st->queue[(*tail)++] = st->n + k;
}

/* The entry of the backward that reload node k precedes. */
static size_t reload_target(const sim_state *st, size_t k)
{
	const struct tessel_entry *e = &st->s->entries[st->c.entry[k / 2]];
	return (size_t)e->mid * (size_t)st->g->nblocks +
	       (size_t)st->g->blocks[e->gid].of_backward;
}

/* Every node's predecessors, and the heads of the lines released. */
static void replay_init(sim_state *st, size_t *tail)
{
	const tessel_graph *g = st->g;
	sim_copies *c = &st->c;

	for (size_t i = 0; i < st->n; i++) {
		const tsl_block *b = &g->blocks[st->s->entries[i].gid];
		st->wait[i] = b->ndevices + b->ndeps;
	}
	/* a copy waits for its line and its producer (the block, the
	 * offload); a reload's backward waits for it */
	for (size_t k = 0; k < c->n; k++) {
		c->wait[k] = 2;
		if (k & 1)
			st->wait[reload_target(st, k)]++;
	}
	for (size_t p = 0; p < st->occ && c->n; p++)
		for (size_t j = c->abeg[p]; j < c->aend[p]; j++)
			c->wait[c->line[j]]++;
	for (int d = 0; d < g->ndevices && c->n; d++)
		memory_waits(st, d);
	for (int d = 0; d < g->ndevices; d++) {
		if (st->devoff[d] < st->devoff[d + 1])
			arrive(st, st->slots[st->devoff[d]], 0, tail);
		if (c->n && c->devoff[d] < c->devoff[d + 1])
			carrive(st, c->line[c->devoff[d]], 0, tail);
	}
}

/* Entry i runs: its finish releases the next in line on its devices, its
 * consumers and its offloads; its start the copies issued after it. */
static void run_entry(sim_state *st, size_t i, double latency, size_t *tail)
{
	const tessel_graph *g = st->g;
	const struct tessel_entry *e = &st->s->entries[i];
	const tsl_block *b = &g->blocks[e->gid];
	sim_copies *c = &st->c;
	double fin = st->ready[i] + st->dur[i];
	st->finish[i] = fin;
	for (int k = 0; k < b->ndevices; k++) {
		int d = b->devices[k];
		size_t own = st->devoff[d] + st->head[d]++;
		for (size_t j = c->n ? c->abeg[own] : 0;
		     c->n && j < c->aend[own]; j++)
			carrive(st, c->line[j], st->ready[i], tail);
		if (own + 1 < st->devoff[d + 1])
			arrive(st, st->slots[own + 1], fin, tail);
	}
	for (int k = st->succ.start[e->gid]; k < st->succ.start[e->gid + 1];
	     k++) {
		int cb = st->succ.block[k];
		double t = fin + st->conslat[k];
		if (latency > 0 && !tsl_blocks_share_device(b, &g->blocks[cb]))
			t += latency;
		arrive(st, (size_t)e->mid * (size_t)g->nblocks + (size_t)cb, t,
		       tail);
	}
	if (c->n && c->first[i] != SIM_NONE)
		for (int k = 0; k < b->ndevices; k++)
			carrive(st, c->first[i] + 2 * (size_t)k, fin, tail);
}

/* Copy node k runs: its end releases the next copy of its channel and the
 * reload (an offload) or the backward (a reload). */
static void run_copy(sim_state *st, size_t k, size_t *tail)
{
	sim_copies *c = &st->c;
	double fin = c->ready[k] + c->dur[k];
	int d = c->dev[k / 2];
	c->finish[k] = fin;
	if (c->pos[k] + 1 < c->devoff[d + 1])
		carrive(st, c->line[c->pos[k] + 1], fin, tail);
	if (k & 1) {
		arrive(st, reload_target(st, k), fin, tail);
	} else {
		carrive(st, k + 1, fin, tail);
		if (c->waiter[k] != SIM_NONE)
			arrive(st, c->waiter[k], fin, tail);
	}
}

/* The replay. TESSEL_EVIOLATION when the device orders, the copies and
 * the dependencies wait for each other. */
static int replay(sim_state *st, double latency)
{
	const tessel_graph *g = st->g;
	size_t qhead = 0, tail = 0;

	replay_init(st, &tail);
	while (qhead < tail) {
		size_t i = st->queue[qhead++];
		if (i < st->n)
			run_entry(st, i, latency, &tail);
		else
			run_copy(st, i - st->n, &tail);
	}
	if (tail == st->n + st->c.n)
		return TSL_OK;
	for (size_t i = 0; i < st->n; i++)
		if (st->wait[i] > 0) {
			const struct tessel_entry *e = &st->s->entries[i];
			return tsl_error(TESSEL_EVIOLATION,
					 "tessel_simulate: block %d (\"%s\") of micro-batch %lld never starts: the device order and the dependencies wait for each other",
					 e->gid, g->blocks[e->gid].name,
					 (long long)e->mid);
		}
	for (size_t k = 0; k < st->c.n; k++)
		if (st->c.wait[k] > 0) {
			const struct tessel_entry *e =
				&st->s->entries[st->c.entry[k / 2]];
			return tsl_error(TESSEL_EVIOLATION,
					 "tessel_simulate: the %s of block %d (\"%s\") of micro-batch %lld never starts: its copy channel's order and the computes wait for each other",
					 (k & 1) ? "reload" : "offload", e->gid,
					 g->blocks[e->gid].name, (long long)e->mid);
		}
	return tsl_error(TESSEL_ERROR, "tessel_simulate: replay incomplete");
}

/* A memory event of a device with copies. */
typedef struct sim_event {
	double t;
	int order;     /* 0: an offload ends, 1: a block starts, 2: a reload */
	size_t seq;
	int64_t delta;
} sim_event;

static int sim_event_cmp(const void *pa, const void *pb)
{
	const sim_event *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Peak memory of device d in a replay with copies: each block's delta
 * (its choices applied) at its start, an offload's saves freed when it
 * ends and taken again when its reload starts (at one time: the
 * offloads' ends, then the block, then the reloads, as the validator
 * counts them). */
static int copy_peak(int64_t *out, const sim_state *st, int d)
{
	const sim_copies *c = &st->c;
	size_t nb = st->devoff[d + 1] - st->devoff[d];
	size_t nk = c->devoff[d + 1] - c->devoff[d], n = 0;
	sim_event *ev = tsl_reallocarray(NULL, nb + nk + 1, sizeof *ev);
	if (!ev)
		return tsl_error_nomem();
	for (size_t p = st->devoff[d]; p < st->devoff[d + 1]; p++) {
		size_t i = st->slots[p];
		ev[n++] = (sim_event){st->ready[i], 1, p,
				      tsl_entry_memory(st->s, &st->s->entries[i])};
	}
	for (size_t j = c->devoff[d]; j < c->devoff[d + 1]; j++) {
		size_t k = c->line[j];
		int gid = st->s->entries[c->entry[k / 2]].gid;
		int64_t saves = st->g->blocks[gid].of_saves;
		ev[n++] = (k & 1) ? (sim_event){c->ready[k], 2, j, saves}
				  : (sim_event){c->finish[k], 0, j, -saves};
	}
	qsort(ev, n, sizeof *ev, sim_event_cmp);
	int64_t sum = 0, peak = 0;
	for (size_t i = 0; i < n; i++) {
		sum += ev[i].delta;
		if (sum > peak)
			peak = sum;
	}
	tsl_free(ev);
	*out = peak;
	return TSL_OK;
}

/* Makespan, busy time and peak memory from the replay. */
static int collect(tessel_simulation **out, const sim_state *st)
{
	const tessel_graph *g = st->g;
	tessel_simulation *sim = tsl_calloc(1, sizeof *sim);

	if (!sim)
		return tsl_error_nomem();
	sim->ndevices = g->ndevices;
	sim->busy = tsl_calloc((size_t)g->ndevices, sizeof *sim->busy);
	sim->peak = tsl_calloc((size_t)g->ndevices, sizeof *sim->peak);
	if (!sim->busy || !sim->peak) {
		tessel_simulation_free(sim);
		return tsl_error_nomem();
	}
	for (size_t i = 0; i < st->n; i++)
		if (st->finish[i] > sim->makespan)
			sim->makespan = st->finish[i];
	for (size_t k = 0; k < st->c.n; k++)
		if (st->c.finish[k] > sim->makespan)
			sim->makespan = st->c.finish[k];
	/* (each device's busy time is at most the makespan) */
	if (!isfinite(sim->makespan)) {
		tessel_simulation_free(sim);
		return tsl_error(TESSEL_ERANGE,
				 "tessel_simulate: the times overflow (durations and "
				 "latencies too large for the replay to add them up)");
	}
	int rc = TSL_OK;
	for (int d = 0; d < g->ndevices && !rc; d++) {
		int64_t sum = 0, peak = 0;
		double busy = 0;
		/* a device runs its entries one after another, in line order */
		for (size_t k = st->devoff[d]; k < st->devoff[d + 1]; k++) {
			size_t i = st->slots[k];
			busy += st->dur[i];
			sum += tsl_entry_memory(st->s, &st->s->entries[i]);
			if (sum > peak)
				peak = sum;
		}
		sim->busy[d] = busy;
		sim->peak[d] = peak;
		if (st->c.n)
			rc = copy_peak(&sim->peak[d], st, d);
	}
	if (rc) {
		tessel_simulation_free(sim);
		return rc;
	}
	*out = sim;
	return TSL_OK;
}

TESSEL_API int tessel_simulate(tessel_simulation **out,
			       const tessel_schedule *schedule,
			       const double *durations, size_t count,
			       double latency, double jitter, uint64_t seed)
{
	sim_state st;
	int rc;

	if (out)
		*out = NULL;
	rc = check_args(out, schedule, durations, count, latency, jitter);
	if (rc)
		return rc;
	rc = state_alloc(&st, schedule);
	if (rc)
		return rc;
	rc = copies_alloc(&st);
	if (!rc) {
		build_lines(&st);
		rc = copies_build(&st);
	}
	if (!rc) {
		draw_durations(&st, durations, jitter, seed);
		rc = replay(&st, latency);
	}
	if (!rc)
		rc = collect(out, &st);
	state_release(&st);
	return rc;
}

TESSEL_API void tessel_simulation_free(tessel_simulation *sim)
{
	if (!sim)
		return;
	tsl_free(sim->busy);
	tsl_free(sim->peak);
	tsl_free(sim);
}

TESSEL_API int tessel_simulation_get(double *out,
				     const tessel_simulation *sim,
				     tessel_sim_attr attr, int device)
{
	static const char fn[] = "tessel_simulation_get";

	TSL_CHECK_ARG(out, fn, "out");
	TSL_CHECK_ARG(sim, fn, "simulation");
	if (attr == TESSEL_SIM_MAKESPAN) {
		*out = sim->makespan;
		return TSL_OK;
	}
	if (attr != TESSEL_SIM_BUSY && attr != TESSEL_SIM_IDLE &&
	    attr != TESSEL_SIM_PEAK_MEMORY)
		return tsl_error(TESSEL_EINVAL, "%s: unknown attribute %d", fn,
				 (int)attr);
	if (device < 0 || device >= sim->ndevices)
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s: device %d is out of range 0 .. %d", fn,
				 device, sim->ndevices - 1);
	switch (attr) {
	case TESSEL_SIM_BUSY:
		*out = sim->busy[device];
		break;
	case TESSEL_SIM_IDLE:
		*out = sim->makespan - sim->busy[device];
		break;
	default:
		*out = (double)sim->peak[device];
		break;
	}
	return TSL_OK;
}
