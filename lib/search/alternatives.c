/* Stage: search over memory-time alternatives (the entry point of
 * tessel_search). Contract: without declared alternatives (or with
 * TESSEL_OPT_ALTERNATIVES 0) it is the plain search of the placement; with
 * them, a pipeline of named stages:
 *   plans_rank      - the blocks with alternatives, cheapest relief first
 *                     (extra steps, or a copy's steps, per unit of memory);
 *   plan_graph      - for a plan (which blocks give up their activation),
 *                     the derived graph: a recompute keeps its memory less
 *                     the saves, its backward takes them back and runs
 *                     longer; an offload's copies become blocks on the
 *                     devices' copy channels (devices of their own) and
 *                     its memory moves at markers of one step;
 *   firsts_elsewhere- while no plan gave a schedule, for a plan whose
 *                     search has no first schedule of its own: the first
 *                     schedules of the plans after it, the most relieved
 *                     first, until one has one (once per search);
 *   tsl_search_plain- the plain search of that graph, with its share of the
 *                     work budget (the plans: all-keep, the cheapest
 *                     1/8, 2/8, ... 7/8 (the quarters with the larger
 *                     shares; 1, 2, ... blocks with fewer than 8) and
 *                     all of the blocks relieved; shares at ALT_STEPS);
 *   plans_within_reach - under the default budget, once a plan's first
 *                     schedule alone took more work than its share, the
 *                     plans between with at most that share are not
 *                     begun (the pairs likewise among themselves), nor
 *                     any plan between or pair once the plans begun
 *                     spent ALT_AUTO_CEILING units in all; the plan
 *                     relieving every block always is;
 *   plans_beyond_best - past that ceiling, a plan whose graph's lower
 *                     bound is not below the best makespan so far is not
 *                     begun (beyond_best);
 *   plan_schedule   - the schedule of the placement with the plan's choices
 *                     per instance, an offload's copies where the plan put
 *                     them (the markers dropped);
 *   pairs           - while the best period per micro-batch is above the
 *                     resource bound: between two consecutive ranked
 *                     plans, the larger in even micro-batches and the
 *                     smaller in odd ones, searched on the graph of two
 *                     copies and mapped back (plan_copies.c, run_plan_k);
 *   relax           - per instance, any choice becomes keep whenever the
 *                     devices' memory allows, in three orders (by start,
 *                     the latest first, the instances whose backward has
 *                     the least slack first); with offloads declared also
 *                     keep then recompute to offload, and offload then
 *                     keep (memory and channels allowing); in each every
 *                     block then starts as early as its dependencies, its
 *                     device's order and its reload allow (kept when it
 *                     validates); the shortest;
 *   the shortest validated schedule wins (ties: the earlier plan).
 * The schedule's lower bound is the placement's with every alternative at
 * its cheapest memory and no extra time. Every effort is counted (work
 * units of the searches, entry visits of the relaxation): deterministic. */
#include "alternatives.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "complete.h"
#include "complete_retime.h"
#include "error.h"
#include "graph.h"
#include "graph_alt.h"
#include "options.h"
#include "plan_copies.h"
#include "schedule.h"
#include "schedule_alt.h"
#include "search.h"
#include "search_extend.h"
#include "search_opts.h"
#include "sort.h"
#include "util.h"
#include "validate.h"

/* The plans between all-keep and all-relieved: the cheapest
 * ceil(na * p / steps) blocks relieved for p = 1 .. steps - 1, na the
 * number of blocks with alternatives and steps = min(na, ALT_STEPS); the
 * quarters among them (ceil(na * q / 4) blocks, q = 1, 2, 3) with a larger
 * share than the others. */
#define ALT_STEPS 8
/* Per mille of the budget each plan's search gets. Under a budget set
 * explicitly the plans share it in proportion to these: the all-keep plan
 * 400, each quarter, the plan relieving every block and the all-offload
 * plan 150, each other plan between and each plan of two micro-batches
 * (pairs) 60. Under the default budget
 * (TESSEL_WORK_AUTO) the all-keep plan and the plan relieving every block
 * get the whole default budget each, as the searches with
 * TESSEL_OPT_ALTERNATIVES 0 and 2 do (so the choice is never longer than
 * either while both fit within ALT_AUTO_TOTAL), each quarter and the
 * all-offload plan a quarter of it, each other plan between and each pair
 * a tenth. */
#define ALT_KEEP_SHARE 400
#define ALT_PLAN_SHARE 150
#define ALT_EXTRA_SHARE 60
#define ALT_AUTO_END_SHARE 1000
#define ALT_AUTO_MID_SHARE 250
#define ALT_AUTO_EXTRA_SHARE 100
/* Z3's resource count of each solver check in the search of a plan of two
 * micro-batches (about a fifth of a second here): its model is twice the
 * placement's, and Z3 spends more time per unit of its count on it. */
#define ALT_PAIR_RLIMIT 250000u
/* Under the default budget, the work (units) of the plans begun after
 * which no other plan between all-keep and all-relieved and no pair is
 * begun (plans_within_reach): about 40 s of one core by the unit's
 * measure, far above what placements of a few thousand instances spend
 * (at most 20,017 units on 49 such with recompute and offload declared,
 * 4 to 8 devices), reached by those of millions of instances, where
 * every plan's list scheduling, relaxation and validation are passes over
 * millions of entries (a plan took 3 to 22 s at 2.4 million instances).
 * What the plans still to come surely cost is held back from it: the
 * all-relieved plan (and the all-offload one) as much as the all-keep
 * plan took. */
#define ALT_AUTO_CEILING ((int64_t)40000)
/* Under the default budget, the most the plans may spend in all, with
 * the passes over their schedules: about a minute of one core by the
 * unit's measure. Each plan gets its own default budget (its share of it)
 * while that leaves as much; else what the plans before it left, at
 * least ALT_AUTO_LEAST. It binds where the plans' first schedules,
 * budgets and passes add up to more: 9,408 blocks on 64 devices at 256
 * micro-batches (2.4 million instances) spend 46,887 units in all and get
 * their whole default budgets; at 512 the all-relieved plan's search
 * gets a little less (81,804 units in all before, now 72,245, the same
 * schedule); at 1,024 the plans took 153,722 units, 58 to 66 s, and now
 * 87,624, 39 to 44 s, the same schedule. */
#define ALT_AUTO_TOTAL ((int64_t)60000)
/* The least a plan begun gets under the default budget (units): the
 * default base of a search (TSL_WORK_BASE, search_opts.c). */
#define ALT_AUTO_LEAST ((int64_t)5000)
/* Instances of the placement per unit counted against the ceiling for
 * each plan begun: mapping its schedule back to the placement, relaxing
 * and validating it are passes over every instance that its search's
 * work does not count (9,408 blocks on 64 devices at 64 and 256
 * micro-batches: 0.6 to 2.7 s a plan, 0.9 to 1.1 us an instance). */
#define ALT_PASS_INSTANCES_PER_UNIT ((int64_t)1000)
/* Entry visits the relaxation of one schedule may spend. */
#define ALT_RELAX_VISITS ((int64_t)20000000)

/* ------------------------------------------------------------------------ */
/* plans_rank                                                                 */
/* ------------------------------------------------------------------------ */

/* The relief a block would choose: recompute when declared, else offload. */
static int relief_of(const tsl_block *f)
{
	return f->rc_backward >= 0 ? TESSEL_CHOICE_RECOMPUTE
				   : TESSEL_CHOICE_OFFLOAD;
}

/* Whether block f declares an alternative. */
static int declares(const tsl_block *f)
{
	return f->rc_backward >= 0 || f->of_backward >= 0;
}

/* A block's relief: its extra steps per saved unit of memory (as the
 * fraction cost / saves; an offload costs no compute). */
typedef struct alt_rank {
	int gid;
	int64_t cost, saves;
	int64_t life;   /* steps from the block's head to its backward's */
} alt_rank;

static int rank_cmp(const void *pa, const void *pb)
{
	const alt_rank *a = pa, *b = pb;
	int64_t lhs = a->cost * b->saves, rhs = b->cost * a->saves;
	if (lhs != rhs)
		return lhs < rhs ? -1 : 1;
	if (a->life != b->life)
		return a->life > b->life ? -1 : 1;
	return (a->gid > b->gid) - (a->gid < b->gid);
}

/* The blocks with alternatives into *out (count *n), cheapest relief
 * first; ties: the activation that lives longest (from the block's head
 * to its backward's: in a pipeline more micro-batches hold it at once),
 * then the lower block id. */
static int plans_rank(int **out, int *n, const tessel_graph *g)
{
	int *v = tsl_calloc((size_t)g->nblocks + 1, sizeof *v);
	alt_rank *r = tsl_calloc((size_t)g->nblocks + 1, sizeof *r);
	tsl_bounds bnd;
	int rc = v && r ? tsl_bounds_compute(&bnd, g) : tsl_error_nomem();
	if (rc) {
		tsl_free(v);
		tsl_free(r);
		return rc;
	}
	*n = 0;
	for (int i = 0; i < g->nblocks; i++) {
		const tsl_block *f = &g->blocks[i];
		if (!declares(f))
			continue;
		int c = relief_of(f);
		int back = tsl_choice_backward(f, c);
		r[*n] = (alt_rank){i, c == TESSEL_CHOICE_RECOMPUTE ? f->rc_extra : 0,
				   tsl_choice_saves(f, c),
				   bnd.head[back] - bnd.head[i]};
		(*n)++;
	}
	tsl_bounds_release(&bnd);
	qsort(r, (size_t)*n, sizeof *r, rank_cmp);
	for (int i = 0; i < *n; i++)
		v[i] = r[i].gid;
	tsl_free(r);
	*out = v;
	return TSL_OK;
}

/* ------------------------------------------------------------------------ */
/* plan_graph                                                                 */
/* ------------------------------------------------------------------------ */

/* The blocks of g copied into d through the API (placements, stages,
 * dependencies with their own latencies, the graph's latency, the
 * limits), d having at least g's devices. */
static int copy_blocks(tessel_graph *d, const tessel_graph *g)
{
	int rc = TSL_OK;
	for (int b = 0; b < g->nblocks && !rc; b++) {
		const tsl_block *f = &g->blocks[b];
		rc = tessel_graph_add_block(NULL, d, f->name, f->kind, f->span,
					    f->memory);
		if (!rc)
			rc = tessel_graph_place(d, b, f->devices, f->ndevices);
		if (!rc && f->stage >= 0)
			rc = tessel_graph_set_stage(d, b, f->stage);
	}
	for (int b = 0; b < g->nblocks && !rc; b++) {
		const tsl_block *f = &g->blocks[b];
		for (int j = 0; j < f->ndeps && !rc; j++) {
			int own = f->deplat ? f->deplat[j] : -1;
			rc = own >= 0 ? tessel_graph_add_dep_latency(d, f->deps[j], b, own)
				      : tessel_graph_add_dep(d, f->deps[j], b);
		}
	}
	if (!rc)
		rc = tessel_graph_set_latency(d, g->latency);
	for (int k = 0; k < g->ndevices && !rc; k++)
		rc = tessel_graph_set_memory_limit(d, k, g->memory_limit[k]);
	return rc;
}

/* Add block "#KIND:f" on `devs` (count n) of `span` and `memory` after
 * block `after` (no latency); its id into *gid. */
static int add_marker(int *gid, tessel_graph *d, const char *kind, int f,
		      const int *devs, int n, int span, int memory, int after)
{
	/* "#kind:f", with more "#" in front while a block of the placement
	 * has that name (any name is a placement's to give) */
	char name[96];
	int hashes = 1, rc = TSL_OK;
	for (;;) {
		int at = 0;
		for (int i = 0; i < hashes && at < 32; i++)
			name[at++] = '#';
		snprintf(name + at, sizeof name - (size_t)at, "%s:%d", kind, f);
		int found = -1;
		if (tessel_graph_find(&found, d, name) != TESSEL_OK) {
			tessel_error_clear();
			break;
		}
		if (++hashes > 32)
			return tsl_error(TESSEL_ERANGE, "no free name for a copy of block %d", f);
	}
	rc = tessel_graph_add_block(gid, d, name, TESSEL_KIND_FORWARD, span,
				    memory);
	if (!rc)
		rc = tessel_graph_place(d, *gid, devs, (size_t)n);
	if (!rc)
		rc = tessel_graph_add_dep_latency(d, after, *gid, 0);
	return rc;
}

/* An offload of block f in the plan's graph d: device k's copy channel is
 * device ndevices + k of d (no limit). The copies are blocks on the
 * channels (the offload after f, the reload before its backward), and the
 * memory moves at two markers of one step on f's devices and channels: the
 * saves freed after the offload ends, taken before the reload starts. The
 * markers cost their step on the devices; in the placement's schedule
 * they are gone, and the memory moves no later (free) and no sooner
 * (take) than the copies do. */
static int add_offload(tessel_graph *d, const tessel_graph *g, int f)
{
	const tsl_block *b = &g->blocks[f];
	int ch[2 * TESSEL_MAX_DEVICES], both[2 * TESSEL_MAX_DEVICES];
	int n = b->ndevices, id[4];
	for (int k = 0; k < n; k++) {
		ch[k] = g->ndevices + b->devices[k];
		both[k] = b->devices[k];
		both[n + k] = ch[k];
	}
	int rc = add_marker(&id[0], d, "offload", f, ch, n, b->of_transfer, 0, f);
	if (!rc)
		rc = add_marker(&id[1], d, "offloaded", f, both, 2 * n, 1,
				-b->of_saves, id[0]);
	if (!rc)
		rc = add_marker(&id[2], d, "reloading", f, both, 2 * n, 1,
				b->of_saves, id[1]);
	if (!rc)
		rc = add_marker(&id[3], d, "reload", f, ch, n, b->of_transfer, 0,
				id[2]);
	if (!rc)
		rc = tessel_graph_add_dep_latency(d, id[3], b->of_backward, 0);
	return rc;
}

/* The graph of a plan (choice[b] per block: keep or its relief), every
 * declaration dropped: a recompute keeps its memory less the saves, which
 * its backward takes back, and the backward runs its extra steps; an
 * offload adds its copies on the devices' copy channels (add_offload,
 * blocks nblocks and above). */
static int plan_graph(tessel_graph **out, const tessel_graph *g,
		      const signed char *choice)
{
	tessel_graph *d = NULL;
	int offloads = 0;
	for (int i = 0; i < g->nblocks; i++)
		offloads += choice[i] == TESSEL_CHOICE_OFFLOAD;
	int rc = !offloads ? tessel_graph_dup(&d, g)
		 : 2 * g->ndevices > TESSEL_MAX_DEVICES
			 ? tsl_error(TESSEL_ERANGE,
				     "an offload is searched with a copy channel beside each device, "
				     "and %d devices with theirs exceed the %d a graph holds",
				     g->ndevices, TESSEL_MAX_DEVICES)
		 : g->nblocks + 4 * offloads > TESSEL_MAX_BLOCKS
			 ? tsl_error(TESSEL_ERANGE,
				     "%d offloads, searched as 4 copy blocks each beside the %d "
				     "blocks, exceed the %d blocks a graph holds",
				     offloads, g->nblocks, TESSEL_MAX_BLOCKS)
			 : tessel_graph_new(&d, 2 * g->ndevices);
	if (!rc && offloads) {
		/* (g is a DAG: no cycle walk per dependency) */
		d->defer_cycles = 1;
		rc = copy_blocks(d, g);
	}
	for (int i = 0; i < g->nblocks && !rc; i++) {
		const tsl_block *f = &g->blocks[i];
		if (choice[i] == TESSEL_CHOICE_OFFLOAD) {
			rc = add_offload(d, g, i);
		} else if (choice[i] == TESSEL_CHOICE_RECOMPUTE) {
			d->blocks[i].memory -= f->rc_saves;
			d->blocks[f->rc_backward].memory += f->rc_saves;
			d->blocks[f->rc_backward].span += f->rc_extra;
			d->blocks[f->rc_backward].duration = 0;
		}
	}
	for (int i = 0; d && i < d->nblocks; i++) {
		d->blocks[i].rc_backward = -1;
		d->blocks[i].of_backward = -1;
	}
	if (d)
		d->defer_cycles = 0;
	if (rc) {
		tessel_graph_free(d);
		return rc;
	}
	*out = d;
	return TSL_OK;
}

/* ------------------------------------------------------------------------ */
/* plan_schedule and relax                                                    */
/* ------------------------------------------------------------------------ */

/* Whether the copy channels of f's devices are free over [t, t + len),
 * apart from entry `self`'s own copies; when not, *a .. *z is a copy in
 * the way. */
static int channel_free(const tessel_schedule *s, const tsl_block *f,
			int64_t t, int64_t len, size_t self, int64_t *visits,
			int64_t *a, int64_t *z)
{
	const tessel_graph *g = s->graph;
	size_t n = (size_t)g->nblocks * (size_t)s->nmicros;
	if (!s->copies)
		return 1;
	*visits += (int64_t)n;
	for (size_t i = 0; i < n; i++) {
		const struct tessel_entry *e = &s->entries[i];
		if (i == self || e->choice != TESSEL_CHOICE_OFFLOAD)
			continue;
		const tsl_block *o = &g->blocks[e->gid];
		if (!tsl_blocks_share_device(o, f))
			continue;
		for (int r = 0; r < 2; r++) {
			int64_t c = s->copies[2 * i + r];
			if (c < t + len && t < c + o->of_transfer) {
				*a = c;
				*z = c + o->of_transfer;
				return 0;
			}
		}
	}
	return 1;
}

/* The relaxation's state: the entry visits spent, and each device's
 * entries in the order their memory moves (start step, then entry
 * index), made once: the passes change choices and copies, never a
 * start. */
typedef struct relax_ctx {
	int64_t visits;
	size_t *order; /* device d's entries: order[off[d] .. off[d + 1]) */
	size_t *off;
	tsl_alt_event *copy; /* room for one device's copy events */
	const tessel_options *src; /* a cancel ends the passes (may be NULL) */
	int64_t end_us;     /* the time limit's end (0: none) */
	int stopped;        /* the visits spent, the time limit or a cancel */
	int halted;         /* of those, the time limit or a cancel */
	int64_t changes;    /* choices the passes changed */
	unsigned looks;     /* calls of relax_stopped (the clock is read
			     * every 64th) */
} relax_ctx;

/* Whether the relaxation must end: its entry visits spent, the time
 * limit passed or the search cancelled (looked at once per instance and
 * per device walked; each pass keeps what it changed so far). */
static int relax_stopped(relax_ctx *cx)
{
	if (cx->stopped)
		return 1;
	if (cx->visits >= ALT_RELAX_VISITS)
		cx->stopped = 1;
	else if ((cx->looks++ & 63) == 0 &&
		 (tsl_options_cancelled(cx->src) ||
		  (cx->end_us && tsl_now_us() >= cx->end_us)))
		cx->stopped = cx->halted = 1;
	return cx->stopped;
}

/* Whether the passes are over: stopped, or their visits spent (what
 * relax_stopped would find first, without its look at the clock). */
static int spent(const relax_ctx *cx)
{
	return cx->stopped || cx->visits >= ALT_RELAX_VISITS;
}

/* cx's orders for the starts of s: every entry once sorted by start
 * (ties by index), then dealt to its devices in that order (a sort per
 * device cost its entries' log on each of them: 37 million device entries
 * of 512 devices took seconds). */
static int relax_ctx_init(relax_ctx *cx, const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	size_t nd = (size_t)g->ndevices;
	size_t n = (size_t)g->nblocks * (size_t)s->nmicros, most = 0;
	cx->off = tsl_calloc(nd + 1, sizeof *cx->off);
	if (!cx->off)
		return tsl_error_nomem();
	for (size_t d = 0; d < nd; d++) {
		size_t m = (s->dev_off[d + 1] - s->dev_off[d]) * (size_t)s->nmicros;
		cx->off[d + 1] = cx->off[d] + m;
		most = m > most ? m : most;
	}
	cx->order = tsl_reallocarray(NULL, cx->off[nd] + 1, sizeof *cx->order);
	cx->copy = tsl_reallocarray(NULL, 2 * most + 1, sizeof *cx->copy);
	tsl_sort_rec *key = tsl_reallocarray(NULL, n + 1, sizeof *key);
	size_t *fill = tsl_reallocarray(NULL, nd + 1, sizeof *fill);
	int rc = cx->order && cx->copy && key && fill ? TSL_OK
						      : tsl_error_nomem();
	for (size_t i = 0; !rc && i < n; i++)
		key[i] = (tsl_sort_rec){tsl_sort_key(s->entries[i].start), i, i};
	if (!rc)
		rc = tsl_sort_recs(key, n);
	if (rc) {
		tsl_free(key);
		tsl_free(fill);
		return rc;
	}
	memcpy(fill, cx->off, nd * sizeof *fill);
	for (size_t i = 0; i < n; i++) {
		const tsl_block *b = &g->blocks[s->entries[key[i].at].gid];
		for (int k = 0; k < b->ndevices; k++)
			cx->order[fill[b->devices[k]]++] = key[i].at;
	}
	tsl_free(key);
	tsl_free(fill);
	return TSL_OK;
}

static void relax_ctx_release(relax_ctx *cx)
{
	tsl_free(cx->order);
	tsl_free(cx->off);
	tsl_free(cx->copy);
}

/* The peak memory of device d in s, as tsl_schedule_copy_peak counts it
 * (the same events in the same order), from cx's order: the entries'
 * events merged with the few copy events, sorted on their own. */
static int device_peak(int64_t *out, const tessel_schedule *s, int d,
		       relax_ctx *cx)
{
	const tessel_graph *g = s->graph;
	size_t nc = 0;
	for (size_t k = cx->off[d]; s->copies && k < cx->off[d + 1]; k++) {
		size_t at = cx->order[k];
		const struct tessel_entry *e = &s->entries[at];
		if (e->choice != TESSEL_CHOICE_OFFLOAD || e->start < 0)
			continue;
		const tsl_block *blk = &g->blocks[e->gid];
		int64_t tie = (int64_t)at;
		int64_t off = tsl_entry_copy_start(s, e, 0);
		int64_t rel = tsl_entry_copy_start(s, e, 1);
		if (off >= 0)
			cx->copy[nc++] = (tsl_alt_event){off + blk->of_transfer, 0,
						     tie, -blk->of_saves};
		if (rel >= 0)
			cx->copy[nc++] = (tsl_alt_event){rel, 2, tie, blk->of_saves};
	}
	if (nc > 1)
		qsort(cx->copy, nc, sizeof *cx->copy, tsl_alt_event_cmp);
	int64_t sum = 0, peak = 0;
	size_t c = 0;
	for (size_t k = cx->off[d]; k < cx->off[d + 1]; k++) {
		size_t at = cx->order[k];
		const struct tessel_entry *e = &s->entries[at];
		if (e->start < 0)
			continue;
		tsl_alt_event ev = {e->start, 1, (int64_t)at, 0};
		while (c < nc && tsl_alt_event_cmp(&cx->copy[c], &ev) < 0) {
			sum += cx->copy[c++].delta;
			peak = sum > peak ? sum : peak;
		}
		sum += tsl_entry_memory(s, e);
		peak = sum > peak ? sum : peak;
	}
	for (; c < nc; c++) {
		sum += cx->copy[c].delta;
		peak = sum > peak ? sum : peak;
	}
	*out = peak;
	return TSL_OK;
}

/* Whether every device of f stays within its limit. */
static int memory_fits(const tessel_schedule *s, const tsl_block *f,
		       relax_ctx *cx)
{
	for (int k = 0; k < f->ndevices; k++) {
		int d = f->devices[k];
		int64_t peak = 0, limit = s->graph->memory_limit[d];
		/* (the bound looked at per device: a block on 512 devices
		 * walked 37 million entries in one call) */
		if (relax_stopped(cx))
			return 0;
		cx->visits += (int64_t)(s->dev_off[d + 1] - s->dev_off[d]) *
			      s->nmicros;
		if (limit == TESSEL_UNLIMITED)
			continue;
		if (device_peak(&peak, s, d, cx) || peak > limit)
			return 0;
	}
	return 1;
}

/* Offload instance (gid, mid): the offload at the first free step after
 * the block, the reload at the last free step before its backward.
 * 1 when placed (and the memory fits), 0 when not (nothing changed but
 * the choice put back), < 0 on error. */
static int try_offload(tessel_schedule *s, int gid, int64_t mid,
		       relax_ctx *cx)
{
	const tsl_block *f = &s->graph->blocks[gid];
	struct tessel_entry *e = tsl_entry_at(s, gid, mid);
	int old = e->choice;
	size_t self = (size_t)mid * (size_t)s->graph->nblocks + (size_t)gid;
	int64_t t = f->of_transfer;
	int64_t fin = e->start + tsl_entry_span(s, e);
	int64_t need = tsl_entry_at(s, f->of_backward, mid)->start;
	int64_t off = fin, rel, a, z;
	while (off + 2 * t <= need && cx->visits < ALT_RELAX_VISITS &&
	       !channel_free(s, f, off, t, self, &cx->visits, &a, &z))
		off = z;
	rel = need - t;
	while (rel >= off + t && cx->visits < ALT_RELAX_VISITS &&
	       !channel_free(s, f, rel, t, self, &cx->visits, &a, &z))
		rel = a - t;
	if (off + 2 * t > need || rel < off + t ||
	    !channel_free(s, f, off, t, self, &cx->visits, &a, &z) ||
	    !channel_free(s, f, rel, t, self, &cx->visits, &a, &z))
		return 0;
	int rc = tsl_schedule_choose(s, gid, mid, TESSEL_CHOICE_OFFLOAD, off, rel);
	if (rc)
		return rc;
	if (memory_fits(s, f, cx)) {
		cx->changes++;
		return 1;
	}
	rc = tsl_schedule_choose(s, gid, mid, old, -1, -1);
	return rc ? rc : 0;
}

/* Instance (gid, mid) keeps its activation when the memory allows. */
static int try_keep(tessel_schedule *s, int gid, int64_t mid, relax_ctx *cx)
{
	const tsl_block *f = &s->graph->blocks[gid];
	struct tessel_entry *e = tsl_entry_at(s, gid, mid);
	int old = e->choice;
	size_t at = (size_t)mid * (size_t)s->graph->nblocks + (size_t)gid;
	int64_t off = s->copies ? s->copies[2 * at] : -1;
	int64_t rel = s->copies ? s->copies[2 * at + 1] : -1;
	int rc = tsl_schedule_choose(s, gid, mid, TESSEL_CHOICE_KEEP, -1, -1);
	if (rc)
		return rc;
	if (memory_fits(s, f, cx)) {
		cx->changes++;
		return TSL_OK;
	}
	return tsl_schedule_choose(s, gid, mid, old, off, rel);
}

typedef struct alt_inst {
	int64_t start;
	int gid;
	int64_t mid;
} alt_inst;

/* Every instance of s in start order (ties by block, micro-batch). */
static int instances(alt_inst **out, const tessel_schedule *s)
{
	size_t n = (size_t)s->graph->nblocks * (size_t)s->nmicros;
	alt_inst *v = tsl_reallocarray(NULL, n + 1, sizeof *v);
	tsl_sort_rec *r = tsl_reallocarray(NULL, n + 1, sizeof *r);
	int rc = v && r ? TSL_OK : tsl_error_nomem();
	/* made in the order of their ties (block, then micro-batch): the
	 * sort then needs no pass on them */
	size_t nb = (size_t)s->graph->nblocks, j = 0;
	for (size_t b = 0; !rc && b < nb; b++)
		for (size_t m = 0; m < (size_t)s->nmicros; m++, j++) {
			size_t i = m * nb + b;
			r[j] = (tsl_sort_rec){tsl_sort_key(s->entries[i].start), j, i};
		}
	if (!rc)
		rc = tsl_sort_recs(r, n);
	for (size_t i = 0; !rc && i < n; i++) {
		const struct tessel_entry *e = &s->entries[r[i].at];
		v[i] = (alt_inst){e->start, e->gid, e->mid};
	}
	tsl_free(r);
	if (rc) {
		tsl_free(v);
		return rc;
	}
	*out = v;
	return TSL_OK;
}

/* s retimed (tsl_retime_in_order), into *sp when it validates and is no longer. */
static int retime_if_shorter(tessel_schedule **sp)
{
	tessel_schedule *t = NULL;
	int rc = tsl_schedule_copy(&t, *sp);
	if (!rc)
		rc = tsl_retime_in_order(t);
	if (!rc && tsl_schedule_check(t, NULL) == TSL_OK &&
	    tsl_schedule_makespan(t) <= tsl_schedule_makespan(*sp)) {
		tessel_schedule_free(*sp);
		*sp = t;
		t = NULL;
	}
	tessel_error_clear();
	tessel_schedule_free(t);
	return rc;
}

/* Of the variants v[0 .. n) (n at most 5; NULL: none), each retimed when
 * that validates and is no longer (retime_if_shorter), the shortest
 * (the first on ties) into *best, and *checked 1 when that variant was
 * validated here (it is its retiming). Each variant's retimed makespan is
 * found first, then the variants in the order of the makespan they may
 * have are checked (retimed again: but the two leading ones' retimings
 * are kept from the first round) until the first is confirmed: the choice of
 * retiming and checking every variant, with one check where that made
 * five (on a million instances over 512 devices a check took seconds, a
 * retiming a fraction of that). */
static int pick_retimed(tessel_schedule **v, int n, int *best, int *checked)
{
	int64_t own[5], may[5];
	int open[5] = {0}; /* 1: may[k] is the retiming's, not yet checked */
	int valid[5] = {0}; /* 1: v[k] is its retiming, validated */
	/* the retimings of the two variants of least `may` so far (the
	 * first on ties), kept for their checks: the leading one's check
	 * fails at times, and the next one's retiming was then made again */
	tessel_schedule *kept[5] = {NULL};
	int nkept = 0;
	int rc = TSL_OK;
	*checked = 0;
	for (int k = 0; k < n && !rc; k++) {
		if (!v[k])
			continue;
		tessel_schedule *t = NULL;
		own[k] = may[k] = tsl_schedule_makespan(v[k]);
		rc = tsl_schedule_copy(&t, v[k]);
		if (!rc)
			rc = tsl_retime_in_order(t);
		if (!rc && tsl_schedule_makespan(t) <= own[k]) {
			may[k] = tsl_schedule_makespan(t);
			open[k] = 1;
			/* the kept one of the larger `may` (the later on ties) */
			int w = -1;
			for (int j = 0; j < k; j++)
				if (kept[j] && (w < 0 || may[j] >= may[w]))
					w = j;
			if (nkept < 2 || may[k] < may[w]) {
				if (nkept == 2) {
					tessel_schedule_free(kept[w]);
					kept[w] = NULL;
					nkept--;
				}
				kept[k] = t;
				nkept++;
				t = NULL;
			}
		}
		tessel_schedule_free(t);
	}
	while (!rc) {
		int k = -1;
		for (int j = 0; j < n; j++)
			if (v[j] && (k < 0 || may[j] < may[k]))
				k = j;
		if (k < 0 || !open[k]) {
			*best = k < 0 ? 0 : k;
			*checked = k >= 0 && valid[k];
			break;
		}
		tessel_schedule *was = v[k];
		if (kept[k]) {
			/* (retime_if_shorter with the retiming made above) */
			if (tsl_schedule_check(kept[k], NULL) == TSL_OK &&
			    tsl_schedule_makespan(kept[k]) <= own[k]) {
				tessel_schedule_free(v[k]);
				v[k] = kept[k];
			} else {
				tessel_schedule_free(kept[k]);
			}
			kept[k] = NULL;
			tessel_error_clear();
		} else {
			rc = retime_if_shorter(&v[k]);
		}
		open[k] = 0;
		if (v[k] == was)
			may[k] = own[k]; /* (it did not validate) */
		else
			valid[k] = 1;
	}
	for (int k = 0; k < n; k++)
		tessel_schedule_free(kept[k]);
	return rc;
}

/* Every choice of s (in the order of v) that may become keep does. */
static int pass_keep(tessel_schedule *s, const alt_inst *v, relax_ctx *cx,
		     int backwards)
{
	size_t n = (size_t)s->graph->nblocks * (size_t)s->nmicros;
	int rc = TSL_OK;
	for (size_t k = 0; k < n && !rc && !relax_stopped(cx); k++) {
		size_t i = backwards ? n - 1 - k : k;
		if (tsl_entry_at(s, v[i].gid, v[i].mid)->choice != TESSEL_CHOICE_KEEP)
			rc = try_keep(s, v[i].gid, v[i].mid, cx);
	}
	return rc;
}

/* Slack of every entry of s (by entry index): how much later it could
 * start with its devices' order, its dependencies and the makespan kept
 * (the copies aside), from v, the start order. */
static int slacks(int64_t **out, const tessel_schedule *s, const alt_inst *v)
{
	const tessel_graph *g = s->graph;
	size_t n = (size_t)g->nblocks * (size_t)s->nmicros;
	int64_t *late = tsl_reallocarray(NULL, n + 1, sizeof *late);
	int64_t *next = tsl_reallocarray(NULL, (size_t)g->ndevices + 1, sizeof *next);
	tsl_succ x = {0};
	int rc = late && next ? tsl_succ_build(&x, g) : tsl_error_nomem();
	int64_t end = tsl_schedule_makespan(s);
	for (int d = 0; !rc && d < g->ndevices; d++)
		next[d] = INT64_MAX;
	for (size_t k = n; !rc && k-- > 0;) {
		const struct tessel_entry *e = tsl_entry_at(s, v[k].gid, v[k].mid);
		const tsl_block *b = &g->blocks[e->gid];
		int64_t span = tsl_entry_span(s, e), t = end - span;
		for (int j = x.start[e->gid]; j < x.start[e->gid + 1]; j++) {
			int c = x.block[j];
			int64_t l = late[(size_t)e->mid * g->nblocks + c] -
				    tsl_dep_latency(g, &g->blocks[c], x.dep[j]) - span;
			if (l < t)
				t = l;
		}
		for (int i = 0; i < b->ndevices; i++)
			if (next[b->devices[i]] != INT64_MAX &&
			    next[b->devices[i]] - span < t)
				t = next[b->devices[i]] - span;
		late[(size_t)e->mid * g->nblocks + e->gid] = t;
		for (int i = 0; i < b->ndevices; i++)
			next[b->devices[i]] = t;
	}
	for (size_t i = 0; !rc && i < n; i++)
		late[i] -= s->entries[i].start;
	tsl_succ_release(&x);
	tsl_free(next);
	if (rc) {
		tsl_free(late);
		return rc;
	}
	*out = late;
	return TSL_OK;
}

typedef struct alt_crit {
	int64_t slack;   /* of the backward the choice lengthens */
	int64_t start;
	int gid;
	int64_t mid;
} alt_crit;

/* The least slack first, then the latest start, then block and
 * micro-batch. */
static int crit_cmp(const void *pa, const void *pb)
{
	const alt_crit *a = pa, *b = pb;
	if (a->slack != b->slack)
		return a->slack < b->slack ? -1 : 1;
	if (a->start != b->start)
		return a->start > b->start ? -1 : 1;
	if (a->gid != b->gid)
		return a->gid < b->gid ? -1 : 1;
	return (a->mid > b->mid) - (a->mid < b->mid);
}

/* Every choice of s that may become keep does, the instances whose
 * backward is the most critical (least slack in s) first. */
static int pass_keep_critical(tessel_schedule *s, const alt_inst *v,
			      relax_ctx *cx)
{
	const tessel_graph *g = s->graph;
	size_t n = (size_t)g->nblocks * (size_t)s->nmicros, k = 0;
	int64_t *slack = NULL;
	alt_crit *c = tsl_reallocarray(NULL, n + 1, sizeof *c);
	int rc = c ? slacks(&slack, s, v) : tsl_error_nomem();
	for (size_t i = 0; !rc && i < n; i++) {
		const struct tessel_entry *e = &s->entries[i];
		if (e->choice == TESSEL_CHOICE_KEEP)
			continue;
		int back = tsl_choice_backward(&g->blocks[e->gid], e->choice);
		c[k++] = (alt_crit){slack[(size_t)e->mid * g->nblocks + back],
				    e->start, e->gid, e->mid};
	}
	if (!rc)
		qsort(c, k, sizeof *c, crit_cmp);
	for (size_t i = 0; !rc && i < k && !relax_stopped(cx); i++)
		rc = try_keep(s, c[i].gid, c[i].mid, cx);
	tsl_free(slack);
	tsl_free(c);
	return rc;
}

/* Every recompute of s (in the order of v) that may become an offload
 * does. */
static int pass_offload(tessel_schedule *s, const alt_inst *v,
			relax_ctx *cx)
{
	const tessel_graph *g = s->graph;
	size_t n = (size_t)g->nblocks * (size_t)s->nmicros;
	int rc = TSL_OK;
	for (size_t i = 0; i < n && !rc && !relax_stopped(cx); i++) {
		const tsl_block *f = &g->blocks[v[i].gid];
		struct tessel_entry *e = tsl_entry_at(s, v[i].gid, v[i].mid);
		if (e->choice == TESSEL_CHOICE_RECOMPUTE && f->of_backward >= 0) {
			int got = try_offload(s, v[i].gid, v[i].mid, cx);
			rc = got < 0 ? got : TSL_OK;
		}
	}
	return rc;
}

/* The relaxation of s (see the file's head): keep where memory allows,
 * in start order, the latest first and the most critical first; with
 * offloads declared also keep then offload, and offload then keep; each
 * retimed; the shortest (ties: the first of them); *checked 1 when that
 * one was validated on the way (its caller's check would repeat it). */
static int relax(tessel_schedule **sp, int *checked, const tessel_options *src,
		 int64_t end_us)
{
	tessel_schedule *v3[5] = {*sp, NULL, NULL, NULL, NULL};
	const tessel_graph *g = (*sp)->graph;
	alt_inst *v = NULL;
	relax_ctx cx = {.src = src, .end_us = end_us};
	int offloads = 0;
	for (int b = 0; b < g->nblocks; b++)
		offloads |= g->blocks[b].of_backward >= 0;
	/* every instance keeps its activation (the all-keep plan): no pass
	 * changes a choice that is keep, so that every variant is the
	 * schedule as given, retimed once (its orders, copies and passes
	 * took seconds at millions of instances, for nothing) */
	size_t n = (size_t)g->nblocks * (size_t)(*sp)->nmicros, kept = 0;
	while (kept < n && (*sp)->entries[kept].choice == TESSEL_CHOICE_KEEP)
		kept++;
	if (kept == n) {
		int best = 0;
		*checked = 0;
		if (tsl_options_cancelled(src) || (end_us && tsl_now_us() >= end_us))
			return TSL_OK; /* (as the passes would stop: as it stands) */
		int rc = pick_retimed(v3, 5, &best, checked);
		*sp = v3[0];
		return rc;
	}
	int rc = instances(&v, *sp);
	if (!rc)
		rc = relax_ctx_init(&cx, *sp);
	/* the choices each variant's passes changed (0: the schedule as
	 * given, which is retimed and checked once). A variant is not made
	 * once the passes are spent (spent): its passes would change
	 * nothing, and neither would those of the schedule as given after
	 * it, so it would be dropped below as the same schedule. */
	int64_t ch[5] = {0}, c = 0;
	if (!rc)
		rc = tsl_schedule_copy(&v3[3], *sp);
	c = cx.changes;
	if (!rc)
		rc = pass_keep(v3[3], v, &cx, 1);
	ch[3] = cx.changes - c;
	if (!rc && !spent(&cx))
		rc = tsl_schedule_copy(&v3[4], *sp);
	c = cx.changes;
	if (!rc && v3[4])
		rc = pass_keep_critical(v3[4], v, &cx);
	ch[4] = cx.changes - c;
	/* (the schedule as given, before its own pass) */
	if (!rc && offloads && !spent(&cx))
		rc = tsl_schedule_copy(&v3[2], *sp);
	c = cx.changes;
	if (!rc)
		rc = pass_keep(v3[0], v, &cx, 0);
	ch[0] = ch[1] = cx.changes - c;
	if (!rc && offloads && !spent(&cx))
		rc = tsl_schedule_copy(&v3[1], v3[0]);
	c = cx.changes;
	if (!rc && v3[1])
		rc = pass_offload(v3[1], v, &cx);
	ch[1] += cx.changes - c;
	c = cx.changes;
	if (!rc && v3[2])
		rc = pass_offload(v3[2], v, &cx);
	if (!rc && v3[2])
		rc = pass_keep(v3[2], v, &cx, 0);
	ch[2] = cx.changes - c;
	int best = 0, same = -1; /* same: the first variant as given */
	for (int k = 0; k < 5 && !rc; k++) {
		if (!v3[k])
			continue;
		if (!ch[k] && same >= 0) {
			/* the same schedule as variant `same`: its retiming
			 * and check again would change nothing */
			tessel_schedule_free(v3[k]);
			v3[k] = NULL;
			continue;
		}
		if (!ch[k])
			same = k;
		/* (stopped by the time limit or a cancel: as they stand) */
		if (cx.halted && tsl_schedule_makespan(v3[k]) <
				 tsl_schedule_makespan(v3[best]))
			best = k;
	}
	*checked = 0;
	if (!rc && !cx.halted)
		rc = pick_retimed(v3, 5, &best, checked);
	for (int k = 0; k < 5; k++)
		if (k != best)
			tessel_schedule_free(v3[k]);
	*sp = v3[best];
	relax_ctx_release(&cx);
	tsl_free(v);
	return rc;
}

/* The schedule of the placement g from the plan's schedule ds: the same
 * starts and figures, each instance of a relieved block with the plan's
 * choice, an offload's copies where the plan's copy blocks are (*out NULL
 * when it does not validate); relaxed (relax, until end_us when not 0 or
 * a cancel of src) when asked, *moved 1 when
 * that moved a start. */
static int plan_schedule(tessel_schedule **out, int *moved,
			 const tessel_graph *g, const tessel_schedule *ds,
			 const signed char *choice, int relaxed,
			 const tessel_options *src, int64_t end_us)
{
	tessel_schedule *s = NULL;
	*out = NULL;
	*moved = 0;
	int rc = tsl_schedule_alloc(&s, g, ds->nmicros);
	if (rc)
		return rc;
	/* the plan's graph has the placement's blocks first (then the
	 * offloads' copies and markers) */
	for (int64_t m = 0; m < ds->nmicros; m++)
		for (int b = 0; b < g->nblocks; b++) {
			tsl_entry_at(s, b, m)->start = tsl_entry_at(ds, b, m)->start;
			tsl_entry_at(s, b, m)->phase = tsl_entry_at(ds, b, m)->phase;
		}
	s->period = ds->period;
	s->resource_bound = ds->resource_bound;
	s->period_optimal = ds->period_optimal;
	s->rep_begin = ds->rep_begin;
	s->rep_end = ds->rep_end;
	s->depth = ds->depth;
	s->rep_k = ds->rep_k;
	s->work = ds->work;
	s->proof_work = ds->proof_work;
	s->search_us = ds->search_us;
	/* the plan's bound: the placement's when the plan keeps every
	 * activation (alternatives off) or takes every relief (always); the
	 * search over plans replaces it with the cheapest choices' */
	s->lower_bound = ds->lower_bound;
	/* each offload's copies where the plan put them (its copy blocks:
	 * 4 per offloaded block, in block order, after the placement's) */
	for (int64_t m = 0; m < s->nmicros && !rc; m++) {
		int copy = g->nblocks;
		for (int b = 0; b < g->nblocks && !rc; b++) {
			if (choice[b] == TESSEL_CHOICE_RECOMPUTE)
				rc = tsl_schedule_choose(s, b, m, choice[b], -1, -1);
			if (choice[b] != TESSEL_CHOICE_OFFLOAD)
				continue;
			rc = tsl_schedule_choose(s, b, m, TESSEL_CHOICE_OFFLOAD,
						 tsl_entry_at(ds, copy, m)->start,
						 tsl_entry_at(ds, copy + 3, m)->start);
			copy += 4;
		}
	}
	int checked = 0; /* (validated by the relaxation already) */
	if (!rc && relaxed)
		rc = relax(&s, &checked, src, end_us);
	for (int64_t m = 0; !rc && relaxed && m < ds->nmicros && !*moved; m++)
		for (int b = 0; b < g->nblocks && !*moved; b++)
			*moved = tsl_entry_at(s, b, m)->start != tsl_entry_at(ds, b, m)->start;
	if (!rc && !checked && tsl_schedule_check(s, NULL) != TSL_OK) {
		tessel_error_clear();
		tessel_schedule_free(s);
		return TSL_OK;
	}
	if (rc) {
		tessel_schedule_free(s);
		return rc;
	}
	s->makespan_optimal = s->lower_bound > 0 &&
			      tsl_schedule_makespan(s) <= s->lower_bound;
	*out = s;
	return TSL_OK;
}

/* The steady state's figures of s, a schedule of the placement g. When
 * `restate`, they are read off its own starts: the plan's search counted
 * them on the plan's graph (its recomputes' extra steps, its offloads'
 * copy blocks and markers), and the retiming after it moves blocks; the
 * repetend, its period, micro-batches and depth are then those
 * tsl_repetend_detect finds, the resource bound g's (every activation
 * kept: no plan's period is below it). The period is proven minimal when
 * it meets that bound; otherwise only when `searched` is 0 (the
 * alternatives off: the search's proof covers every schedule asked for)
 * and the search proved this very period (not moved since). With the
 * alternatives searched, a proof over the schedules that keep every
 * activation says nothing of those that relieve some. */
static int settle_figures(tessel_schedule *s, const tessel_graph *g,
			  int restate, int searched)
{
	int64_t period = s->period, k = s->rep_k > 1 ? s->rep_k : 1;
	int proven = s->period_optimal && s->nchoices == 0 && !searched;
	tsl_bounds bnd;
	int rc = tsl_bounds_compute(&bnd, g);
	if (rc)
		return rc;
	if (restate) {
		tsl_repetend_detect(s, &bnd);
		s->resource_bound = bnd.resource_bound;
		if (proven && s->period == period &&
		    (s->rep_k > 1 ? s->rep_k : 1) == k)
			s->period_optimal = 1;
	} else if (!proven) {
		int64_t kk = s->rep_k > 1 ? s->rep_k : 1;
		s->period_optimal = s->period == bnd.resource_bound * kk;
	}
	tsl_bounds_release(&bnd);
	return TSL_OK;
}

/* ------------------------------------------------------------------------ */
/* The pipeline                                                               */
/* ------------------------------------------------------------------------ */

typedef struct alt_best {
	int64_t start_us;  /* when the search began */
	tessel_schedule *s;
	int64_t makespan;
	int64_t work;      /* of every plan's search */
	int64_t proof;
	int failed_rc;     /* the first plan's error, when none succeeds */
	char failed_msg[256]; /* and its message */
	int halted;        /* a progress callback asked to stop */
	int restate;       /* s's steady-state figures are its plan graph's
			    * (settle_figures) */
	int64_t nmicros;   /* the micro-batches asked for, read once when the
			    * search began: every plan searches these (a
			    * progress callback may change the options) */
	int64_t over_share; /* the largest share (per mille) of a plan whose
			     * first schedule alone took more work than the
			     * plan was given (0: none; plans_within_reach) */
	int64_t over_pairs; /* the same of the plans of two micro-batches */
	int64_t keep_work; /* the work of the all-keep plan (0: before it) */
	int64_t passes;    /* units of the passes over each plan's schedule
			    * (ALT_PASS_INSTANCES_PER_UNIT), not in work:
			    * counted against ALT_AUTO_CEILING only */
	int64_t pass_units; /* those of one plan */
	int autob;         /* under the default budget */
	int total_cap;     /* the search over the plans under the default
			    * budget: ALT_AUTO_TOTAL bounds them in all
			    * (plan_work_cap; not the single plan of
			    * TESSEL_OPT_ALTERNATIVES 0 and 2) */
} alt_best;

/* When the time limit ends (0: none). */
static int64_t search_end_us(const alt_best *best, const tessel_options *options)
{
	int64_t limit = options ? options->value[TESSEL_OPT_TIME_LIMIT_MS] : 0;
	return limit ? best->start_us + limit * 1000 : 0;
}


/* The time limit of a plan's search: the options' in proportion to the
 * plan's share of all plans', at most what is left of it (0: none). */
static int64_t plan_time_limit(const alt_best *best,
			       const tessel_options *options,
			       int64_t per_mille, int64_t total)
{
	int64_t limit = options ? options->value[TESSEL_OPT_TIME_LIMIT_MS] : 0;
	if (!limit)
		return 0;
	int64_t left = limit - (tsl_now_us() - best->start_us) / 1000;
	int64_t ms = (limit * per_mille + total - 1) / total;
	if (ms > left)
		ms = left > 1 ? left : 1;
	return ms;
}

/* After a plan's search ended with rc: whether it found nothing without
 * an error of its own (no schedule, time, cancel: the next plan goes
 * on), noting the first such reason and a stop asked for. */
static int plan_found_nothing(alt_best *best, const tsl_share *share, int rc)
{
	best->halted |= share->halted || rc == TESSEL_ECANCELLED;
	if (rc != TESSEL_EINFEASIBLE && rc != TESSEL_ETIMEOUT &&
	    rc != TESSEL_ECANCELLED)
		return 0;
	if (!best->failed_rc) {
		best->failed_rc = rc;
		snprintf(best->failed_msg, sizeof best->failed_msg, "%s",
			 tessel_error_last());
	}
	tessel_error_clear();
	return 1;
}

/* Keep *s in best when it is the shortest so far (*s then NULL); restate:
 * its figures are those of a plan graph other than the placement, or of
 * starts retimed since (settle_figures). */
static void keep_if_shortest(alt_best *best, tessel_schedule **s, int restate)
{
	if (!*s)
		return;
	int64_t ms = tsl_schedule_makespan(*s);
	if (!best->s || ms < best->makespan) {
		tessel_schedule_free(best->s);
		best->s = *s;
		best->makespan = ms;
		best->restate = restate;
		*s = NULL;
	}
}

/* Whether a plan takes a relief anywhere: its graph is not the
 * placement's. */
static int takes_relief(const tessel_graph *g, const signed char *choice)
{
	for (int b = 0; b < g->nblocks; b++)
		if (choice[b] != TESSEL_CHOICE_KEEP)
			return 1;
	return 0;
}

/* Stage plans_beyond_best: under the default budget, once the plans
 * begun spent ALT_AUTO_CEILING units with the passes over their
 * schedules (placements of millions of instances), whether the lower
 * bound of a plan's graph d at nmicros (its own micro-batches: those of
 * g, or of the pairs' copies) is not below the best makespan so far: the
 * plan's search alone cannot give a shorter schedule, and is not begun.
 * The relaxation of its schedule could (it turns reliefs back into keeps
 * where memory allows): below the ceiling that is worth the search (8
 * devices, 32 micro-batches, 0.5x to 1x the 1F1B budget: 9 of the 24 rows of
 * scripts/bench-alternatives.py end up to 3.8 % longer without it), above
 * it a search that cannot win by itself costs tens of seconds (9,216
 * blocks on 512 devices at 1,024 micro-batches: the plan relieving every
 * block, bound 143,449 against the all-keep plan's 142,942, took 17 s
 * for 176,970). An error computing the bound: searched as before. */
static _Atomic int64_t beyond_best_set; /* (tests: 0, the default) */

void tsl_alt_beyond_best_for_tests(int64_t from)
{
	beyond_best_set = from > 0 ? from : 0;
}

static int beyond_best(const alt_best *best, const tessel_graph *d,
		       int64_t nmicros)
{
	int64_t from = beyond_best_set ? beyond_best_set : ALT_AUTO_CEILING;
	if (!best->s || !best->autob || best->work + best->passes < from)
		return 0;
	int64_t lb = 0;
	if (tessel_graph_lower_bound(&lb, d, nmicros)) {
		tessel_error_clear();
		return 0;
	}
	return lb >= best->makespan;
}

/* The plain search of a plan's graph d, which the plan's builder returned
 * with build_rc (a graph the plan cannot have, copy channels beyond the
 * devices' limit or a name taken: not tried), with `share`: *ds its
 * schedule, NULL when the plan found nothing; its work counted in best,
 * and its first schedule's against its share (pair: a plan of two
 * micro-batches; plans_within_reach). */
static int search_plan_graph(tessel_schedule **ds, alt_best *best,
			     const tessel_graph *d, int build_rc,
			     const tessel_options *options, tsl_share *share,
			     int pair)
{
	*ds = NULL;
	if (build_rc && build_rc != TESSEL_ENOMEM) {
		/* a plan whose graph cannot be made is not searched; its
		 * reason is the search's when no plan gives a schedule */
		if (!best->failed_rc) {
			best->failed_rc = TESSEL_EINFEASIBLE;
			snprintf(best->failed_msg, sizeof best->failed_msg, "%s",
				 tessel_error_last());
		}
		tessel_error_clear();
		return TSL_OK;
	}
	/* once a plan gave a schedule, the next ones need none of their own
	 * at any cost */
	share->held = best->s != NULL;
	int rc = build_rc ? build_rc : tsl_search_plain(ds, d, options, share);
	/* the work of a plan that found nothing counts too */
	if (!build_rc) {
		best->work += rc ? share->work_spent : (*ds)->work;
		best->passes += best->pass_units;
	}
	/* plans like this one cost as much again to begin */
	int64_t *over = pair ? &best->over_pairs : &best->over_share;
	if (!build_rc && share->work_given > 0 &&
	    share->first_work > share->work_given && share->per_mille > *over)
		*over = share->per_mille;
	if (rc == TESSEL_EINFEASIBLE && share->first_only) {
		tessel_error_clear(); /* (the plan's search may still find one) */
		return TSL_OK;
	}
	if (plan_found_nothing(best, share, rc))
		return TSL_OK;
	if (!rc)
		best->proof += (*ds)->proof_work;
	return rc;
}

/* ALT_AUTO_TOTAL and ALT_AUTO_LEAST, or what a test set instead
 * (tsl_alt_auto_total_for_tests; 0: the defaults). */
static _Atomic int64_t auto_total_set, auto_least_set;

void tsl_alt_auto_total_for_tests(int64_t total, int64_t least)
{
	auto_total_set = total > 0 ? total : 0;
	auto_least_set = least > 0 ? least : 0;
}

/* The most a plan may spend: of a work budget set explicitly, what the
 * plans before it left (at least 1); under the default budget, what they
 * left of ALT_AUTO_TOTAL with the passes over their schedules, at least
 * ALT_AUTO_LEAST (0: no budget, or the default one of a single plan: the
 * share alone). */
static int64_t plan_work_cap(const alt_best *best, const tessel_options *options)
{
	int64_t w = options ? options->value[TESSEL_OPT_WORK_LIMIT]
			    : TESSEL_WORK_AUTO;
	if (w == TESSEL_WORK_AUTO) {
		if (!best->total_cap)
			return 0;
		int64_t total = auto_total_set ? auto_total_set : ALT_AUTO_TOTAL;
		int64_t least = auto_least_set ? auto_least_set : ALT_AUTO_LEAST;
		int64_t left = total - best->work - best->passes;
		return left > least ? left : least;
	}
	if (w <= 0)
		return 0;
	return w - best->work > 1 ? w - best->work : 1;
}

/* Stage firsts_elsewhere: when a plan's search has no first schedule of
 * its own (its memory too tight for list scheduling and for one
 * micro-batch at a time) and no plan gave a schedule yet, the plans after
 * it that relieve more memory make theirs, the most relieved first, until
 * one has one (once per search: a schedule in hand at the cost of a few
 * list schedules; that plan's search then needs no first repetend at any
 * cost, and a time limit or a cancel from then on returns a schedule). */
typedef struct alt_firsts {
	alt_best *best;
	const tessel_graph *g;
	const tessel_options *options;
	const int *rank;   /* the blocks with alternatives, ranked */
	const int *upto;   /* plan p relieves rank[0 .. upto[p]) */
	int steps;         /* the plans 1 .. steps */
	int both;          /* and the all-offload plan (steps + 1) */
	int current;       /* the plan searched (0: all-keep): the plans
			    * after it are tried */
	int done;          /* tried once already */
} alt_firsts;

/* The search of the plan `choice` with `per_mille` of `total` (its
 * share of the budget), its schedule mapped to the placement (relaxed
 * when asked) and kept when it is the shortest so far. first_only: its
 * first schedule alone (tsl_share.first_only), not relaxed. hook: NULL,
 * or what the plan's search calls when it has no first schedule
 * (tsl_share.no_first). */
static int search_plan(alt_best *best, const tessel_graph *g,
		       const tessel_options *options, const signed char *choice,
		       int64_t per_mille, int64_t total, int relaxed,
		       int first_only, alt_firsts *hook);

static int run_plan(alt_best *best, const tessel_graph *g,
		    const tessel_options *options, const signed char *choice,
		    int64_t per_mille, int64_t total, int relaxed)
{
	return search_plan(best, g, options, choice, per_mille, total, relaxed,
			   0, NULL);
}

/* f when its search may still run (no plan gave a schedule, not run
 * yet, some plan after the current one), else NULL. */
static alt_firsts *first_hook(alt_firsts *f)
{
	int last = f->both ? f->steps + 1 : f->steps;
	return f->best->s || f->done || f->current >= last ? NULL : f;
}

static int firsts_elsewhere(void *arg, int *halted)
{
	alt_firsts *f = arg;
	const tessel_graph *g = f->g;
	signed char *choice = tsl_calloc((size_t)g->nblocks + 1, 1);
	int rc = choice ? TSL_OK : TESSEL_ENOMEM;
	f->done = 1;
	for (int p = f->both ? f->steps + 1 : f->steps;
	     !rc && p > f->current && !f->best->s && !f->best->halted &&
	     !tsl_options_cancelled(f->options); p--) {
		if (p <= f->steps && p < f->steps && f->upto[p] == f->upto[p + 1])
			continue; /* (the same plan) */
		for (int b = 0; b < g->nblocks; b++)
			choice[b] = TESSEL_CHOICE_KEEP;
		if (p > f->steps) {
			for (int b = 0; b < g->nblocks; b++)
				if (g->blocks[b].of_backward >= 0)
					choice[b] = TESSEL_CHOICE_OFFLOAD;
		} else {
			for (int i = 0; i < f->upto[p]; i++)
				choice[f->rank[i]] = (signed char)relief_of(&g->blocks[f->rank[i]]);
		}
		rc = search_plan(f->best, g, f->options, choice, 1000, 1000, 0, 1, NULL);
	}
	tsl_free(choice);
	/* (an error of these searches, memory: as if none had one) */
	if (rc)
		tessel_error_clear();
	*halted |= f->best->halted;
	return f->best->s != NULL;
}

static int search_plan(alt_best *best, const tessel_graph *g,
		       const tessel_options *options, const signed char *choice,
		       int64_t per_mille, int64_t total, int relaxed,
		       int first_only, alt_firsts *hook)
{
	tessel_graph *d = NULL;
	tessel_schedule *ds = NULL, *s = NULL;
	tsl_share share = {per_mille, plan_time_limit(best, options, per_mille, total),
			   0, best->nmicros, 0, plan_work_cap(best, options), 0, 0,
			   first_only, hook ? firsts_elsewhere : NULL, hook, 0, 0};
	int rc = plan_graph(&d, g, choice);
	if (!rc && !first_only && beyond_best(best, d, best->nmicros)) {
		tessel_graph_free(d);
		return TSL_OK;
	}
	rc = search_plan_graph(&ds, best, d, rc, options, &share, 0);
	int moved = 0;
	if (!rc && ds)
		rc = plan_schedule(&s, &moved, g, ds, choice, relaxed && !first_only,
				   options, search_end_us(best, options));
	if (!rc)
		keep_if_shortest(best, &s, moved || takes_relief(g, choice));
	tessel_schedule_free(s);
	tessel_schedule_free(ds);
	tessel_graph_free(d);
	return rc;
}

/* The error when no plan gave a schedule: its first plan's reason. */
static int no_schedule(const alt_best *best, const char *how)
{
	switch (best->failed_rc) {
	case TESSEL_ECANCELLED:
		return tsl_error(TESSEL_ECANCELLED,
				 "the search was cancelled before it found a schedule");
	case TESSEL_ETIMEOUT:
		return tsl_error(TESSEL_ETIMEOUT,
				 "time limit reached before a schedule was found");
	default:
		/* the first plan's reason where it is not the memory's (a
		 * period cap below the resource bound) */
		if (best->failed_msg[0] && !strstr(best->failed_msg, "memory"))
			return tsl_error(TESSEL_EINFEASIBLE, "no schedule %s: %s", how,
					 best->failed_msg);
		return tsl_error(TESSEL_EINFEASIBLE,
				 "no schedule within the memory limits %s", how);
	}
}

/* Whether the time limit has passed once a schedule is in hand (the
 * plans after it are then not tried: the best so far is returned). */
static int out_of_time(const alt_best *best, const tessel_options *options)
{
	int64_t limit = options ? options->value[TESSEL_OPT_TIME_LIMIT_MS] : 0;
	return best->s && limit &&
	       tsl_now_us() - best->start_us >= limit * 1000;
}

/* Whether a work budget set explicitly is spent once a schedule is in
 * hand: the plans after it are then not tried (each plan's search has a
 * minimum of its own, its first schedule, that a share cannot cut; the
 * budget bounds the plans begun, not each plan's minimum). */
static int out_of_work(const alt_best *best, const tessel_options *options)
{
	int64_t w = options ? options->value[TESSEL_OPT_WORK_LIMIT]
			    : TESSEL_WORK_AUTO;
	return best->s && w > 0 && best->work >= w;
}

/* Stage plans_within_reach: under the default budget, a plan whose first
 * schedule alone took more work than it was given shows what the plans
 * of a share as small cost to begin (the plans' graphs differ little):
 * the plans between all-keep and all-relieved with at most that share
 * are then not begun, and so for the pairs among themselves (a placement of 400 blocks on 1,024
 * devices at 128 micro-batches: each such plan took 2,700 to 5,300 units
 * for its first schedule against a share of 520 to 1,330, 3 s a plan).
 * Nor is any plan between or pair begun once the plans begun spent,
 * with the passes over their schedules, ALT_AUTO_CEILING units in all
 * less `reserve`, what the plans that are always searched after it will
 * cost (9,441 blocks on 64 devices at 256 micro-batches: 17 plans,
 * 166,336 units, 142 s; then all-keep, the cheapest eighth and
 * all-relieved, 101,311 units, 56 to 62 s, the same schedule). The plan
 * relieving every block is always searched (the choice is never longer
 * than it), and so is the all-offload plan. A budget set explicitly
 * bounds the plans begun instead (out_of_work). */
static int within_reach(const alt_best *best, int64_t over, int autob,
			int64_t per_mille, int last, int64_t reserve)
{
	return !autob || last ||
	       (per_mille > over &&
		best->work + best->passes + reserve < ALT_AUTO_CEILING);
}

/* What a plan that is always searched is held to cost
 * (plans_within_reach): what the all-keep plan took, with the passes
 * over its schedule. */
static int64_t plan_reserve(const alt_best *best)
{
	return best->keep_work + best->pass_units;
}

/* A plan of two micro-batches (plan_copies.c): its graph of k copies
 * searched with `per_mille` of the budget, k micro-batches as one, the
 * schedule mapped back to g's micro-batches, relaxed, and kept when it
 * validates and is the shortest so far. */
static int run_plan_k(alt_best *best, const tessel_graph *g,
		      const tessel_options *options, const tsl_plan *p,
		      int64_t per_mille, int64_t total)
{
	tessel_graph *d = NULL;
	tessel_schedule *ds = NULL, *s = NULL;
	tsl_share share = {per_mille, plan_time_limit(best, options, per_mille, total),
			   0, (best->nmicros + p->k - 1) / p->k, ALT_PAIR_RLIMIT,
			   plan_work_cap(best, options), 0, 0, 0, NULL, NULL, 0, 0};
	int rc = tsl_plan_graph_k(&d, g, p);
	/* (k copies of nmicros / k: the bound of the schedule mapped back
	 * when k divides nmicros) */
	if (!rc && best->nmicros % p->k == 0 && beyond_best(best, d, share.nmicros)) {
		tessel_graph_free(d);
		return TSL_OK;
	}
	rc = search_plan_graph(&ds, best, d, rc, options, &share, 1);
	if (!rc && ds)
		rc = tsl_plan_schedule_k(&s, g, ds, p, best->nmicros);
	int checked = 0; /* (validated by the relaxation already) */
	if (!rc && s)
		rc = relax(&s, &checked, options, search_end_us(best, options));
	if (!rc && s && !checked && tsl_schedule_check(s, NULL) != TSL_OK) {
		tessel_error_clear();
		tessel_schedule_free(s);
		s = NULL;
	}
	if (!rc)
		keep_if_shortest(best, &s, 1);
	tessel_schedule_free(s);
	tessel_schedule_free(ds);
	tessel_graph_free(d);
	return rc;
}

/* Whether the best schedule's period per micro-batch is above the
 * resource bound of g (every block kept): only then can a plan between
 * two of the ranked ones shorten it. */
static int period_has_room(const alt_best *best, const tessel_graph *g)
{
	if (!best->s || best->s->period <= 0)
		return 0;
	tsl_bounds bnd;
	if (tsl_bounds_compute(&bnd, g)) {
		tessel_error_clear();
		return 0;
	}
	int64_t k = best->s->rep_k > 1 ? best->s->rep_k : 1;
	int room = best->s->period > bnd.resource_bound * k;
	tsl_bounds_release(&bnd);
	return room;
}

static int search_alternatives(tessel_schedule **out, const tessel_graph *g,
			       const tessel_options *options, int64_t nmicros)
{
	int64_t t0 = tsl_now_us();
	int *rank = NULL, na = 0;
	alt_best best = {.start_us = t0, .nmicros = nmicros, .total_cap = 1};
	best.pass_units = (int64_t)g->nblocks * nmicros /
			  ALT_PASS_INSTANCES_PER_UNIT;
	int autob = !options ||
		    options->value[TESSEL_OPT_WORK_LIMIT] == TESSEL_WORK_AUTO;
	best.autob = autob;
	signed char *choice = tsl_calloc((size_t)g->nblocks + 1, 1);
	int rc = choice ? plans_rank(&rank, &na, g) : tsl_error_nomem();
	int steps = na < ALT_STEPS ? na : ALT_STEPS;
	/* blocks that may recompute and offload: one more plan, offloading
	 * every block that may */
	int both = 0;
	for (int b = 0; b < g->nblocks; b++)
		both |= g->blocks[b].rc_backward >= 0 &&
			g->blocks[b].of_backward >= 0;
	int64_t keep_share = autob ? ALT_AUTO_END_SHARE : ALT_KEEP_SHARE;
	int64_t end_share = autob ? ALT_AUTO_END_SHARE : ALT_PLAN_SHARE;
	int64_t mid_share = autob ? ALT_AUTO_MID_SHARE : ALT_PLAN_SHARE;
	int64_t extra_share = autob ? ALT_AUTO_EXTRA_SHARE : ALT_EXTRA_SHARE;
	int64_t both_share = mid_share;
	int64_t pair_share = extra_share;
	int64_t share[ALT_STEPS + 1],
		total = keep_share + steps * pair_share + (both ? both_share : 0);
	int upto[ALT_STEPS + 1];
	upto[0] = 0;
	for (int p = 1; p <= steps; p++) {
		upto[p] = (na * p + steps - 1) / steps;
		int quarter = 0;
		for (int q = 1; q < 4; q++)
			quarter |= upto[p] == (na * q + 3) / 4;
		share[p] = upto[p] == na ? end_share : quarter ? mid_share : extra_share;
		total += share[p]; /* (steps <= na: upto grows with p) */
	}
	/* a budget set explicitly is shared out in proportion */
	if (!autob) {
		keep_share = keep_share * 1000 / total;
		pair_share = pair_share * 1000 / total;
		both_share = both_share * 1000 / total;
		for (int p = 1; p <= steps; p++)
			share[p] = share[p] * 1000 / total;
	}
	/* each plan, while no plan gave a schedule, with the first schedules
	 * of those after it when it has none of its own (firsts_elsewhere) */
	alt_firsts firsts = {&best, g, options, rank, upto, steps, both, 0, 0};
	if (!rc)
		rc = search_plan(&best, g, options, choice, keep_share, total, 1, 0,
				 first_hook(&firsts));
	best.keep_work = best.work;
	int prev = 0;
	for (int p = 1; p <= steps && !rc; p++) {
		if (tsl_options_cancelled(options) || best.halted ||
		    out_of_time(&best, options) || out_of_work(&best, options))
			break;
		if (upto[p] == prev)
			continue;
		for (int i = prev; i < upto[p]; i++)
			choice[rank[i]] = (signed char)relief_of(&g->blocks[rank[i]]);
		prev = upto[p];
		if (!within_reach(&best, best.over_share, autob, share[p], upto[p] == na,
				  plan_reserve(&best) * (1 + both)))
			continue;
		firsts.current = p;
		rc = search_plan(&best, g, options, choice, share[p], total, 1, 0,
				 first_hook(&firsts));
	}
	/* pairs: between two ranked plans, the larger one in even
	 * micro-batches and the smaller in odd ones (plan_copies.c), while
	 * the period per micro-batch has room */
	tsl_plan pair = {2, NULL};
	int recomputes = 0;
	for (int i = 0; i < na; i++)
		recomputes |= relief_of(&g->blocks[rank[i]]) == TESSEL_CHOICE_RECOMPUTE;
	if (!rc && recomputes && steps > 0 && period_has_room(&best, g)) {
		pair.choice = tsl_calloc((size_t)2 * (size_t)g->nblocks + 1, 1);
		if (!pair.choice)
			rc = tsl_error_nomem();
	}
	for (int p = 1; p <= steps && !rc && pair.choice; p++) {
		if (tsl_options_cancelled(options) || best.halted ||
		    out_of_time(&best, options) || out_of_work(&best, options))
			break;
		if (upto[p] == upto[p - 1])
			continue;
		if (!within_reach(&best, best.over_pairs, autob, pair_share, 0,
				  both ? plan_reserve(&best) : 0))
			break;
		memset(pair.choice, 0, (size_t)2 * (size_t)g->nblocks);
		for (int i = 0; i < upto[p]; i++)
			if (relief_of(&g->blocks[rank[i]]) == TESSEL_CHOICE_RECOMPUTE)
				pair.choice[rank[i]] = TESSEL_CHOICE_RECOMPUTE;
		for (int i = 0; i < upto[p - 1]; i++)
			if (relief_of(&g->blocks[rank[i]]) == TESSEL_CHOICE_RECOMPUTE)
				pair.choice[g->nblocks + rank[i]] = TESSEL_CHOICE_RECOMPUTE;
		rc = run_plan_k(&best, g, options, &pair, pair_share, total);
	}
	tsl_free(pair.choice);
	for (int b = 0; choice && b < g->nblocks; b++)
		choice[b] = g->blocks[b].of_backward >= 0 ? TESSEL_CHOICE_OFFLOAD
							  : TESSEL_CHOICE_KEEP;
	if (!rc && both && !tsl_options_cancelled(options) && !best.halted &&
	    !out_of_time(&best, options) && !out_of_work(&best, options))
		rc = run_plan(&best, g, options, choice, both_share, total, 1);
	tsl_free(rank);
	tsl_free(choice);
	if (!rc && !best.s)
		rc = no_schedule(&best, "with or without the declared alternatives");
	int64_t lb = 0;
	if (!rc)
		rc = tessel_graph_lower_bound(&lb, g, best.s->nmicros);
	if (!rc)
		rc = settle_figures(best.s, g, best.restate, 1);
	if (rc) {
		tessel_schedule_free(best.s);
		return rc;
	}
	tessel_schedule *s = best.s;
	s->lower_bound = lb;
	s->makespan_optimal = best.makespan <= lb;
	s->work = best.work;
	s->proof_work = best.proof;
	s->search_us = tsl_now_us() - t0;
	*out = s;
	return TSL_OK;
}

/* The search of g as it stands: over the plans of its alternatives, or
 * the plain one. */
static int search_any(tessel_schedule **out, const tessel_graph *g,
		      const tessel_options *options)
{
	int rc = TSL_OK;
	if (!tsl_graph_alternatives(g))
		return tsl_search_plain(out, g, options, NULL);
	/* what the micro-batches leave behind, whatever the plan (a relief
	 * takes back what it saves) */
	tsl_opts o;
	tsl_search_opts(&o, g, options);
	rc = tsl_graph_check_leftover(g, o.nmicros);
	if (rc)
		return rc;
	int64_t mode = options ? options->value[TESSEL_OPT_ALTERNATIVES] : 1;
	if (mode == 1)
		return search_alternatives(out, g, options, o.nmicros);
	/* 0: the all-keep plan; 2: every declared relief, always */
	alt_best best = {.start_us = tsl_now_us(), .nmicros = o.nmicros};
	signed char *choice = tsl_calloc((size_t)g->nblocks + 1, 1);
	for (int i = 0; choice && mode == 2 && i < g->nblocks; i++)
		if (declares(&g->blocks[i]))
			choice[i] = (signed char)relief_of(&g->blocks[i]);
	rc = choice ? run_plan(&best, g, options, choice, 1000, 1000, mode != 2)
		    : tsl_error_nomem();
	tsl_free(choice);
	if (!rc && !best.s)
		rc = no_schedule(&best, mode == 2 ? "with every declared alternative taken"
						  : "without the declared alternatives");
	if (!rc)
		rc = settle_figures(best.s, g, best.restate, mode == 2);
	if (rc) {
		tessel_schedule_free(best.s);
		return rc;
	}
	*out = best.s;
	return TSL_OK;
}

TESSEL_API int tessel_search(tessel_schedule **out, const tessel_graph *g,
			     const tessel_options *options)
{
	TSL_CHECK_ARG(out, "tessel_search", "out");
	*out = NULL;
	int rc = tessel_graph_validate(g);
	if (rc)
		return rc;
	/* many micro-batches: fewer searched, their steady state repeated
	 * (search_extend.c), or with declared alternatives, whose choices
	 * instance by instance seldom repeat exactly, the schedule of the
	 * fewer laid end to end (extend_tile.c); when what all of them leave
	 * behind fits */
	tsl_opts o;
	tsl_search_resolve(&o, options);
	int done = 0;
	int64_t fewer[TSL_EXTEND_TIERS];
	if (tsl_extend_fewer(fewer, g, o.nmicros)) {
		if (tsl_graph_check_leftover(g, o.nmicros))
			tessel_error_clear();
		else
			rc = tsl_search_extended(out, &done, g, options, o.nmicros,
						 search_any);
	}
	return done ? rc : search_any(out, g, options);
}
