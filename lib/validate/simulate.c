/* Simulation: replay a schedule's per-device order with real durations.
 *
 * Every entry waits until it is first in line on all its devices (the
 * devices run their entries in the schedule's start order, ties by block
 * id then micro-batch) and until each of its dependencies has finished,
 * plus the dependency's latency in the placement's unit where it counts
 * (the consumer occupies a device the producer does not), plus the extra
 * `latency` when producer and consumer share no device. Times are in the
 * placement's unit when it has a step, else in steps. The start
 * times are the longest paths of that precedence graph, computed in one
 * event-driven pass (an entry is released when its last predecessor
 * finishes): O(E log E) for the sort, linear afterwards. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "schedule.h"
#include "util.h"

struct tessel_simulation {
	int ndevices;
	double makespan;
	double *busy;    /* per device */
	int64_t *peak;   /* per device */
};

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
	size_t *queue;       /* released entries */
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

/* Durations of every entry, one jitter draw per entry in index order. */
static void draw_durations(sim_state *st, const double *durations,
			   double jitter, uint64_t seed)
{
	uint64_t x = seed;

	for (size_t i = 0; i < st->n; i++) {
		int gid = st->s->entries[i].gid;
		double d = durations ? durations[gid] : tsl_block_time(st->g, gid);
		if (jitter > 0)
			d *= 1.0 - jitter + 2.0 * jitter * uniform(&x);
		st->dur[i] = d;
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

/* One predecessor of entry i finished at time t: release i when it was the
 * last. */
static void arrive(sim_state *st, size_t i, double t, size_t *tail)
{
	if (t > st->ready[i])
		st->ready[i] = t;
	if (--st->wait[i] == 0)
		st->queue[(*tail)++] = i;
}

/* The replay. TESSEL_EVIOLATION when the device order and the
 * dependencies wait for each other. */
static int replay(sim_state *st, double latency)
{
	const tessel_graph *g = st->g;
	size_t qhead = 0, tail = 0;

	for (size_t i = 0; i < st->n; i++) {
		const tsl_block *b = &g->blocks[st->s->entries[i].gid];
		st->wait[i] = b->ndevices + b->ndeps;
	}
	for (int d = 0; d < g->ndevices; d++)
		if (st->devoff[d] < st->devoff[d + 1])
			arrive(st, st->slots[st->devoff[d]], 0, &tail);
	while (qhead < tail) {
		size_t i = st->queue[qhead++];
		const struct tessel_entry *e = &st->s->entries[i];
		const tsl_block *b = &g->blocks[e->gid];
		double fin = st->ready[i] + st->dur[i];
		st->finish[i] = fin;
		for (int k = 0; k < b->ndevices; k++) {
			int d = b->devices[k];
			size_t pos = st->devoff[d] + ++st->head[d];
			if (pos < st->devoff[d + 1])
				arrive(st, st->slots[pos], fin, &tail);
		}
		for (int k = st->succ.start[e->gid];
		     k < st->succ.start[e->gid + 1]; k++) {
			int c = st->succ.block[k];
			double t = fin + st->conslat[k];
			if (latency > 0 && !tsl_blocks_share_device(b, &g->blocks[c]))
				t += latency;
			arrive(st, (size_t)e->mid * (size_t)g->nblocks + (size_t)c,
			       t, &tail);
		}
	}
	if (tail == st->n)
		return TSL_OK;
	for (size_t i = 0; i < st->n; i++)
		if (st->wait[i] > 0) {
			const struct tessel_entry *e = &st->s->entries[i];
			return tsl_error(TESSEL_EVIOLATION,
					 "tessel_simulate: block %d (\"%s\") of micro-batch %lld never starts: the device order and the dependencies wait for each other",
					 e->gid, g->blocks[e->gid].name,
					 (long long)e->mid);
		}
	return tsl_error(TESSEL_ERROR, "tessel_simulate: replay incomplete");
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
	for (int d = 0; d < g->ndevices; d++) {
		int64_t sum = 0, peak = 0;
		double busy = 0;
		/* a device runs its entries one after another, in line order */
		for (size_t k = st->devoff[d]; k < st->devoff[d + 1]; k++) {
			size_t i = st->slots[k];
			busy += st->dur[i];
			sum += g->blocks[st->s->entries[i].gid].memory;
			if (sum > peak)
				peak = sum;
		}
		sim->busy[d] = busy;
		sim->peak[d] = peak;
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
	draw_durations(&st, durations, jitter, seed);
	build_lines(&st);
	rc = replay(&st, latency);
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
