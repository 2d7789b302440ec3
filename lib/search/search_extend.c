/* Stage around every search (tessel_search): many micro-batches searched
 * as fewer, their steady state repeated. Contract:
 *   tsl_extend_fewer   - a search whose device entries (micro-batches x
 *                        blocks, a block on k devices counted k times)
 *                        exceed TSL_EXTEND_ENTRIES runs on fewer
 *                        micro-batches, in up to two tiers N': the least,
 *                        TSL_EXTEND_PER_DEVICE a device plus
 *                        TSL_EXTEND_LEAST, and TSL_EXTEND_ENTRIES
 *                        entries' worth (without declared alternatives,
 *                        half of N when N is less than twice that) when
 *                        that is more, each only when N is at least
 *                        twice it, and N - N' a multiple of
 *                        TSL_EXTEND_ALIGN (so that a repetend of 1, 2, 3,
 *                        4, 6 or 12 micro-batches fits it); with neither,
 *                        above TSL_EXTEND_HALVED entries (_ALT with
 *                        declared alternatives), half of N; with declared
 *                        alternatives, whose choices seldom repeat, N' is
 *                        made the size of tiles as equal as they come;
 *   the searches       - the caller's (the search over the alternatives,
 *                        or the plain one) on each N', with the caller's
 *                        options but for the micro-batches and a share of
 *                        four fifths of a time limit; their progress
 *                        events reach the caller with the makespan their
 *                        period gives N micro-batches and LB(N);
 *   runs               - in each schedule, per k = 1 .. TSL_EXTEND_MAX_K
 *                        dividing N - N', the longest run of
 *                        micro-batches m whose every entry is that of
 *                        m - k moved by the same P > 0 steps (the same
 *                        choices, their copies moved alike);
 *   tsl_extend_schedule- the longest run (ties: the smaller k) repeated:
 *                        micro-batch j keeps its steps up to the run's
 *                        end, j + (N - N') takes those of j moved by
 *                        (N - N') / k * P from the run's start on, and
 *                        the two agree on the run; the schedule validated
 *                        (the next run when it fails, up to a few);
 *   tiles              - where no run gives a valid schedule, or the tiles
 *                        end sooner (their makespan is known before they
 *                        are made: tsl_tile_makespan), the schedule of N'
 *                        laid end to end (extend_tile.c), validated;
 *   the shortest       - of the tiers' valid schedules (ties: the fewer
 *                        micro-batches), with the work of all searches;
 *                        after a cancel or a progress callback's stop, or
 *                        once a schedule ends at LB(N), no later tier runs;
 *   whole_beside_tiles - without declared alternatives, when no run gave
 *                        one (tiles alone) and N has at most twice
 *                        TSL_EXTEND_ENTRIES, the search of all N with what
 *                        the tiers left of the work budget of a search of
 *                        N (the default one, or the caller's work limit),
 *                        only when that is at least what they spent, and
 *                        with what is left of the time limit; the shorter
 *                        kept (tiles pay a warm-up and a cool-down each,
 *                        and where the whole search finds a steady state
 *                        it is shorter; where memory binds it is often
 *                        longer: see doc/guide.md);
 *   fallback           - without a valid one (no run, no tiles), the search
 *                        runs on all N micro-batches with what is left of
 *                        the time limit.
 * Two tiers because the search's steady state depends on N': the smallest
 * is cheap and its search has the most work per instance (a random
 * 4-device pipeline: 24 steps a micro-batch at N' = 105, as the search of
 * all 413,013; 26 at N' = 174,765), but a pipeline of many devices needs
 * more micro-batches before its steady state shows (see below). The
 * searches are deterministic, so is the result; its work is theirs (the
 * repetition and its check are passes over the entries, not counted, as
 * the final check is not). A steady state at the resource bound repeats
 * into a makespan at LB(N) when the search of N' ended at LB(N'). */
#include "search_extend.h"

#include <stdlib.h>
#include <string.h>

#include "complete.h"
#include "error.h"
#include "extend_tile.h"
#include "graph_alt.h"
#include "options.h"
#include "progress.h"
#include "search_opts.h"
#include "util.h"
#include "validate.h"

/* Searches of at most this many device entries run on all micro-batches
 * (the default budget's search of 2 million entries takes 5 to 15 s on
 * the placements of scripts/bench-extend.py). */
#define TSL_EXTEND_ENTRIES ((int64_t)1 << 21)
/* ... and of at least so many micro-batches a device, and so many more:
 * the warm-up and the cool-down take several D micro-batches, and the
 * steady state must show between them (a V placement of 256 devices of
 * profiled stages, memory 2D: 1,365 micro-batches of warm-up and 511 of
 * cool-down at N = 4,096; at N = 1,372 no run at all) */
#define TSL_EXTEND_PER_DEVICE 8
#define TSL_EXTEND_LEAST 64
/* Searches of fewer than twice the least tier but more than this many
 * device entries (with declared alternatives, _ALT) run on half of the
 * micro-batches: the whole search takes about 2.4 microseconds an entry
 * without alternatives and 4 with them (52.6 s of search for 21.7
 * million entries on 128 devices; 38.7 s for 9.6 million with
 * alternatives on 64), writing the schedule about 0.5 more, so that
 * beyond these it would take over a minute. */
#define TSL_EXTEND_HALVED ((int64_t)1 << 24)
#define TSL_EXTEND_HALVED_ALT ((int64_t)3 << 22)
/* N - N' is a multiple of this: repetends of 1, 2, 3, 4, 6 and 12
 * micro-batches fit the micro-batches added */
#define TSL_EXTEND_ALIGN 12
/* The repetends looked for: up to this many micro-batches. */
#define TSL_EXTEND_MAX_K 16
/* Runs tried, the longest first. */
#define TSL_EXTEND_TRIES 3

/* fewer aligned: N - fewer a multiple of TSL_EXTEND_ALIGN */
static int64_t aligned(int64_t fewer, int64_t nmicros)
{
	return fewer + (nmicros - fewer) % TSL_EXTEND_ALIGN;
}

/* fewer made the size of tiles as equal as they come: ceil(nmicros / q),
 * q = floor(nmicros / fewer) (with fewer tiles than micro-batches in a
 * tile, q tiles, the last one lacking fewer than q micro-batches) */
static int64_t balanced(int64_t fewer, int64_t nmicros)
{
	int64_t tiles = nmicros / fewer;
	return (nmicros + tiles - 1) / tiles;
}

/* The device entries of a block instance of g (a block on k devices
 * counted k times). */
static int64_t placements_of(const tessel_graph *g)
{
	int64_t placements = 0;
	for (int b = 0; b < g->nblocks; b++)
		placements += g->blocks[b].ndevices;
	return placements;
}

int tsl_extend_fewer(int64_t fewer[TSL_EXTEND_TIERS], const tessel_graph *g,
		     int64_t nmicros)
{
	int64_t placements = placements_of(g);
	/* (beyond the limits: the whole search says so) */
	if (placements < 1 || placements * nmicros <= TSL_EXTEND_ENTRIES ||
	    nmicros > TESSEL_MAX_MICRO_BATCHES ||
	    placements * nmicros > TESSEL_MAX_ENTRIES)
		return 0;
	int64_t least = (int64_t)TSL_EXTEND_PER_DEVICE * g->ndevices + TSL_EXTEND_LEAST;
	int64_t most = TSL_EXTEND_ENTRIES / placements;
	/* with declared alternatives, whose schedules are tiled (stage
	 * tiles), the tiles equal */
	int tiles = tsl_graph_alternatives(g);
	/* without them, half of N when N is less than twice 2^21 entries'
	 * worth: a search of fewer instances whose steady state shows */
	if (!tiles && nmicros < 2 * most)
		most = nmicros / 2;
	int count = 0;
	if (nmicros >= 2 * least)
		fewer[count++] = tiles ? balanced(least, nmicros) : aligned(least, nmicros);
	if (most > least && nmicros >= 2 * most)
		fewer[count++] = tiles ? balanced(most, nmicros) : aligned(most, nmicros);
	if (count == 2 && fewer[1] == fewer[0])
		count = 1; /* (the same search twice) */
	/* fewer than twice the least, but more than TSL_EXTEND_HALVED
	 * entries: half of them (two tiles, or a run repeated) */
	if (!count &&
	    placements * nmicros > (tiles ? TSL_EXTEND_HALVED_ALT : TSL_EXTEND_HALVED) &&
	    nmicros / 2 >= TSL_EXTEND_LEAST)
		fewer[count++] = tiles ? balanced(nmicros / 2, nmicros)
				       : aligned(nmicros / 2, nmicros);
	return count;
}

/* Whether every entry of micro-batch m of s is that of m - k moved by P
 * steps, with the same choice and its copies moved alike. */
static int repeats(const tessel_schedule *s, int64_t m, int k, int64_t P)
{
	int n = s->graph->nblocks;
	const struct tessel_entry *now = tsl_entry_at(s, 0, m);
	const struct tessel_entry *was = tsl_entry_at(s, 0, m - k);
	for (int b = 0; b < n; b++)
		if (now[b].start - was[b].start != P || now[b].choice != was[b].choice ||
		    now[b].span_add != was[b].span_add || now[b].mem_add != was[b].mem_add)
			return 0;
	if (s->copies) {
		const int64_t *c1 = &s->copies[2 * (size_t)m * (size_t)n];
		const int64_t *c0 = &s->copies[2 * (size_t)(m - k) * (size_t)n];
		for (int i = 0; i < 2 * n; i++)
			if ((c1[i] < 0) != (c0[i] < 0) || (c1[i] >= 0 && c1[i] - c0[i] != P))
				return 0;
	}
	return 1;
}

typedef struct ext_run {
	int k;
	int64_t P;
	int64_t from, to; /* micro-batches from .. to repeat those k before */
} ext_run;

/* Longer runs first (in micro-batches they cover: to - from + 1 + k),
 * ties to the smaller k. */
static int run_cmp(const void *pa, const void *pb)
{
	const ext_run *a = pa, *b = pb;
	int64_t la = a->to - a->from + 1 + a->k, lb = b->to - b->from + 1 + b->k;
	if (la != lb)
		return la > lb ? -1 : 1;
	return (a->k > b->k) - (a->k < b->k);
}

/* runs[]: per k dividing `added`, the longest run of s (at least k
 * micro-batches: the repetend shows twice); *count of them. */
static void find_runs(ext_run *runs, int *count, const tessel_schedule *s,
		      int64_t added)
{
	int64_t N = s->nmicros;
	*count = 0;
	for (int k = 1; k <= TSL_EXTEND_MAX_K && k < N; k++) {
		if (added % k)
			continue;
		ext_run best = {k, 0, 0, -1}, cur = {k, 0, 0, -1};
		for (int64_t m = k; m < N; m++) {
			int64_t P = tsl_entry_at(s, 0, m)->start - tsl_entry_at(s, 0, m - k)->start;
			if (P > 0 && repeats(s, m, k, P)) {
				if (cur.to == m - 1 && cur.P == P) {
					cur.to = m;
				} else {
					cur.from = cur.to = m;
					cur.P = P;
				}
				if (cur.to - cur.from > best.to - best.from)
					best = cur;
			}
		}
		if (best.to - best.from + 1 >= k)
			runs[(*count)++] = best;
	}
	qsort(runs, (size_t)*count, sizeof *runs, run_cmp);
}

/* *out: s repeated along run r to nmicros micro-batches (not checked). */
static int repeat_run(tessel_schedule **out, const tessel_schedule *s,
		      const ext_run *r, int64_t nmicros, const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	int n = g->nblocks;
	int64_t added = nmicros - s->nmicros, reps = added / r->k;
	tessel_schedule *u = NULL;
	int rc = tsl_schedule_alloc_until(&u, g, nmicros, dl);
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
	int64_t first = r->from - r->k; /* the run's first micro-batch */
	for (int64_t j = 0; j < nmicros; j++) {
		if ((j & 1023) == 0 && tsl_deadline_hard_passed(dl)) {
			tessel_schedule_free(u);
			return tsl_error(TESSEL_ETIMEOUT,
					 "time limit reached while repeating the steady state");
		}
		/* the micro-batch of s it repeats, and by how many repetends */
		int64_t src = j, q = 0;
		if (j > r->to) {
			if (j - added >= first) {
				src = j - added;
				q = reps;
			} else { /* j - q k in the run's last k micro-batches */
				q = (j - r->to + r->k - 1) / r->k;
				src = j - q * r->k;
			}
		}
		int64_t shift = q * r->P;
		const struct tessel_entry *from = tsl_entry_at(s, 0, src);
		struct tessel_entry *to = tsl_entry_at(u, 0, j);
		for (int b = 0; b < n; b++) {
			to[b].start = from[b].start + shift;
			to[b].choice = from[b].choice;
			to[b].span_add = from[b].span_add;
			to[b].mem_add = from[b].mem_add;
			to[b].phase = j < first ? TESSEL_PHASE_WARMUP
				      : j > r->to + added ? TESSEL_PHASE_COOLDOWN
							  : TESSEL_PHASE_REPETEND;
			if (from[b].choice != TESSEL_CHOICE_KEEP)
				u->nchoices++;
		}
		if (u->copies) {
			const int64_t *c0 = &s->copies[2 * (size_t)src * (size_t)n];
			int64_t *c1 = &u->copies[2 * (size_t)j * (size_t)n];
			for (int i = 0; i < 2 * n; i++)
				c1[i] = c0[i] < 0 ? -1 : c0[i] + shift;
		}
	}
	/* the figures: the repeated run's steady state */
	u->resource_bound = s->resource_bound;
	u->period = r->P;
	u->rep_k = r->k;
	int64_t rate = s->rep_k > 1 ? s->rep_k : 1;
	u->period_optimal = r->P <= s->resource_bound * r->k ||
			    (s->period_optimal && s->period * r->k == r->P * rate);
	tsl_repetend_range(u);
	int64_t lo = INT64_MAX, hi = 0;
	for (int b = 0; b < n; b++) {
		const struct tessel_entry *e = tsl_entry_at(u, b, first);
		if (e->start < lo)
			lo = e->start;
		if (e->start + tsl_entry_span(u, e) > hi)
			hi = e->start + tsl_entry_span(u, e);
	}
	u->depth = hi - lo;
	u->work = s->work;
	u->proof_work = s->proof_work;
	*out = u;
	return TSL_OK;
}

/* *out = u with its lower bound LB(nmicros) (u freed on an error). */
static int settle(tessel_schedule **out, tessel_schedule *u, int64_t nmicros)
{
	int64_t lb = 0;
	int rc = tessel_graph_lower_bound(&lb, u->graph, nmicros);
	if (rc) {
		tessel_schedule_free(u);
		return rc;
	}
	u->lower_bound = lb;
	u->makespan_optimal = tsl_schedule_makespan(u) <= lb;
	*out = u;
	return TSL_OK;
}

int tsl_extend_schedule(tessel_schedule **out, const tessel_schedule *s,
			int64_t nmicros, int tries, const tsl_deadline *dl)
{
	*out = NULL;
	int64_t added = nmicros - s->nmicros;
	if (added <= 0)
		return tsl_error(TESSEL_EINVAL, "repeating the steady state: %lld "
				 "micro-batches are not more than %lld",
				 (long long)nmicros, (long long)s->nmicros);
	ext_run runs[TSL_EXTEND_MAX_K];
	int count = 0;
	find_runs(runs, &count, s, added);
	for (int i = 0; i < count && i < tries; i++) {
		tessel_schedule *u = NULL;
		int rc = repeat_run(&u, s, &runs[i], nmicros, dl);
		if (rc)
			return rc;
		rc = tsl_schedule_check(u, dl);
		if (!rc)
			return settle(out, u, nmicros);
		tessel_schedule_free(u);
		if (rc != TESSEL_EVIOLATION)
			return rc;
		tessel_error_clear();
	}
	return TSL_OK;
}

/* Stage tiles: s laid end to end until there are nmicros micro-batches
 * (extend_tile.c), validated: *out, or NULL when it does not validate
 * (the memory the tiles leave behind for the next). */
static int tile_checked(tessel_schedule **out, const tessel_schedule *s,
			int64_t nmicros, const tsl_deadline *dl)
{
	tessel_schedule *u = NULL;
	*out = NULL;
	int rc = tsl_tile_schedule(&u, s, nmicros, dl);
	if (rc || !u)
		return rc;
	rc = tsl_schedule_check(u, dl);
	if (!rc)
		return settle(out, u, nmicros);
	tessel_schedule_free(u);
	if (rc != TESSEL_EVIOLATION)
		return rc;
	tessel_error_clear();
	return TSL_OK;
}

/* The progress events of the shorter search, as the caller's: its
 * makespan with the added micro-batches at its period, LB(N). */
typedef struct ext_progress {
	const tessel_options *caller;
	int64_t added, lower_bound;
	int64_t last_makespan;
	int *stopped; /* set once a callback asked to stop */
} ext_progress;

static int relay(const tessel_progress *p, void *payload)
{
	ext_progress *x = payload;
	tessel_progress q = *p;
	int64_t k = p->k > 1 ? p->k : 1;
	if (p->makespan > 0 && p->period > 0)
		q.makespan = p->makespan + (x->added * p->period + k - 1) / k;
	q.lower_bound = x->lower_bound;
	if (strcmp(q.phase, "done") == 0)
		q.phase = "extend"; /* the steady state is repeated next */
	if (q.makespan > 0)
		x->last_makespan = q.makespan;
	if (tsl_progress_report(x->caller, &q) == TSL_OK)
		return 0;
	*x->stopped = 1;
	return 1;
}

/* The fallback: the search of all micro-batches, with what is left of
 * the time limit (limit_ms, counted from t0; 0: none). */
static int search_whole(tessel_schedule **out, const tessel_graph *g,
			const tessel_options *options, int64_t limit_ms,
			int64_t t0, tsl_search_fn search)
{
	if (limit_ms <= 0)
		return search(out, g, options);
	int64_t left = limit_ms - (tsl_now_us() - t0) / 1000;
	if (left < 1)
		return tsl_error(TESSEL_ETIMEOUT, "time limit reached before a "
				 "schedule of all the micro-batches");
	tessel_options *own = NULL;
	int rc = tsl_options_derive(&own, options);
	if (rc)
		return rc;
	own->value[TESSEL_OPT_TIME_LIMIT_MS] = left;
	rc = search(out, g, own);
	tessel_options_free(own);
	return rc;
}

/* Stage whole_beside_tiles: the progress events of the whole search
 * but its "done" (the stage's comes last). */
typedef struct whole_progress {
	const tessel_options *caller;
	int *stopped;
} whole_progress;

static int whole_relay(const tessel_progress *p, void *payload)
{
	whole_progress *x = payload;
	if (strcmp(p->phase, "done") == 0)
		return 0;
	if (tsl_progress_report(x->caller, p) == TSL_OK)
		return 0;
	*x->stopped = 1;
	return 1;
}

/* Stage whole_beside_tiles: the work a search of nmicros micro-batches
 * of g under options may spend, in units: the caller's work limit, or
 * the default budget (search_opts.c) sized for nmicros; 0: none. */
static int64_t whole_budget(const tessel_graph *g, const tessel_options *options,
			    int64_t nmicros)
{
	tessel_options sized; /* (the values only: what the sizing reads) */
	memset(&sized, 0, sizeof sized);
	tsl_options_defaults(&sized);
	if (options)
		memcpy(sized.value, options->value, sizeof sized.value);
	if (sized.value[TESSEL_OPT_WORK_LIMIT] != TESSEL_WORK_AUTO)
		return sized.value[TESSEL_OPT_WORK_LIMIT];
	sized.value[TESSEL_OPT_MICRO_BATCHES] = nmicros;
	tsl_opts o;
	tsl_search_opts(&o, g, &sized);
	return o.work_ticks / TSL_TICKS_PER_UNIT;
}

/* Stage whole_beside_tiles: a placement without declared alternatives
 * whose tiers gave tiles but no repeated run: the whole search with what
 * the tiers (their work *spent) left of the budget of a search of
 * nmicros, when that is at least *spent (with less, its search of every
 * instance seldom reaches the steady state the tiers found), and with
 * what is left of the time limit; the shorter of its schedule and *best
 * (the tiles) in *best, its work added. Whatever ends it without a
 * schedule (the time limit, a cancel, memory) leaves the tiles. */
static int whole_beside_tiles(tessel_schedule **best, int64_t *spent,
			      int64_t *proof, int *stopped, const tessel_graph *g,
			      const tessel_options *options, int64_t nmicros,
			      int64_t limit_ms, int64_t t0, tsl_search_fn search)
{
	int64_t left = 0;
	if (limit_ms > 0) {
		left = limit_ms - (tsl_now_us() - t0) / 1000;
		if (left < 1)
			return TSL_OK;
	}
	int64_t work = whole_budget(g, options, nmicros);
	if (work > 0) {
		work -= *spent;
		if (work < *spent || work < 1)
			return TSL_OK;
	}
	tessel_options *own = NULL;
	int rc = tsl_options_derive(&own, options);
	if (rc)
		return rc;
	if (left > 0)
		own->value[TESSEL_OPT_TIME_LIMIT_MS] = left;
	if (own->value[TESSEL_OPT_WORK_LIMIT] == TESSEL_WORK_AUTO)
		own->work_cap = work; /* (the default budget's ways kept) */
	else
		own->value[TESSEL_OPT_WORK_LIMIT] = work;
	whole_progress x = {options, stopped};
	if (tsl_progress_wanted(options)) {
		own->progress = NULL;
		own->progress_payload = NULL;
		own->progress_fn = whole_relay;
		own->progress_fn_payload = &x;
	}
	tessel_schedule *w = NULL;
	rc = search(&w, g, own);
	tessel_options_free(own);
	if (rc) {
		tessel_error_clear();
		return TSL_OK;
	}
	*spent += w->work;
	*proof += w->proof_work;
	if (tsl_schedule_makespan(w) < tsl_schedule_makespan(*best)) {
		tessel_schedule_free(*best);
		*best = w;
	} else {
		tessel_schedule_free(w);
	}
	return TSL_OK;
}

/* One tier: the search of `fewer` micro-batches (within limit_ms when
 * not 0) and its schedule repeated to nmicros, or laid out as tiles
 * where that is shorter, validated: *u, or NULL when the search found
 * none (its error cleared: the whole search will say) or neither gives a
 * valid one; *repeated set when a run gave a valid one. *spent: the
 * search's work. An error only for what ends the stage: no memory, a
 * cancel or the time limit before the shorter search had a schedule, the
 * time limit during the repetition. */
static int extend_tier(tessel_schedule **u, int *repeated, int64_t *spent,
		       int64_t *proof, int *stopped, const tessel_graph *g,
		       const tessel_options *options, int64_t nmicros,
		       int64_t fewer, int64_t limit_ms, int64_t hard_us,
		       tsl_search_fn search)
{
	*u = NULL;
	tessel_options *own = NULL;
	int rc = tsl_options_derive(&own, options);
	if (rc)
		return rc;
	own->value[TESSEL_OPT_MICRO_BATCHES] = fewer;
	if (limit_ms > 0)
		own->value[TESSEL_OPT_TIME_LIMIT_MS] = limit_ms;
	ext_progress x = {options, nmicros - fewer, 0, 0, stopped};
	if (tsl_progress_wanted(options)) {
		rc = tessel_graph_lower_bound(&x.lower_bound, g, nmicros);
		if (rc) {
			tessel_options_free(own);
			return rc;
		}
		own->progress = NULL;
		own->progress_payload = NULL;
		own->progress_fn = relay;
		own->progress_fn_payload = &x;
	}
	tessel_schedule *s = NULL;
	rc = search(&s, g, own);
	tessel_options_free(own);
	if (rc == TESSEL_ENOMEM || rc == TESSEL_ECANCELLED ||
	    (rc == TESSEL_ETIMEOUT && limit_ms > 0))
		return rc;
	if (rc) {
		tessel_error_clear();
		return TSL_OK;
	}
	*spent += s->work;
	*proof += s->proof_work;
	tsl_deadline dl = {0};
	dl.start_us = tsl_now_us();
	dl.hard_us = hard_us;
	rc = tsl_extend_schedule(u, s, nmicros, TSL_EXTEND_TRIES, &dl);
	*repeated |= *u != NULL;
	/* the tiles, where no run gives a valid schedule or they end
	 * sooner (their makespan known before they are made) */
	int64_t tiled = INT64_MAX;
	if (!rc)
		rc = tsl_tile_makespan(&tiled, s, nmicros);
	if (!rc && tiled < INT64_MAX && (!*u || tiled < tsl_schedule_makespan(*u))) {
		tessel_schedule *t = NULL;
		rc = tile_checked(&t, s, nmicros, &dl);
		if (t) {
			tessel_schedule_free(*u);
			*u = t;
		}
	}
	tessel_schedule_free(s);
	return rc;
}

/* Whether s ends at its lower bound (LB(N) of the repetition and the
 * tiles). */
static int at_bound(const tessel_schedule *s)
{
	return s->lower_bound > 0 && tsl_schedule_makespan(s) <= s->lower_bound;
}

int tsl_search_extended(tessel_schedule **out, int *done, const tessel_graph *g,
			const tessel_options *options, int64_t nmicros,
			tsl_search_fn search)
{
	*out = NULL;
	*done = 0;
	int64_t fewer[TSL_EXTEND_TIERS];
	int tiers = tsl_extend_fewer(fewer, g, nmicros);
	if (!tiers)
		return TSL_OK;
	*done = 1;
	return tsl_search_fewer(out, g, options, nmicros, fewer, tiers, search);
}

int tsl_search_fewer(tessel_schedule **out, const tessel_graph *g,
		     const tessel_options *options, int64_t nmicros,
		     const int64_t *fewer, int tiers, tsl_search_fn search)
{
	*out = NULL;
	int64_t t0 = tsl_now_us();
	int64_t limit_ms = options ? options->value[TESSEL_OPT_TIME_LIMIT_MS] : 0;
	int64_t hard_us = limit_ms > 0 ? t0 + limit_ms * 1000 : 0;
	tessel_schedule *best = NULL;
	int64_t spent = 0, proof = 0;
	int rc = TSL_OK, stopped = 0, repeated = 0;
	for (int i = 0; i < tiers && !rc; i++) {
		/* a time limit: four fifths of it for the searches, shared
		 * out over the tiers left */
		int64_t share = 0;
		if (limit_ms > 0) {
			share = (limit_ms * 4 / 5 - (tsl_now_us() - t0) / 1000) / (tiers - i);
			if (share < 1)
				break;
		}
		/* after a cancel, or a callback that asked to stop, the
		 * schedule in hand; none shorter than one at LB(N) */
		if (best && (stopped || tsl_options_cancelled(options) ||
			     at_bound(best)))
			break;
		tessel_schedule *u = NULL;
		rc = extend_tier(&u, &repeated, &spent, &proof, &stopped, g, options,
				 nmicros, fewer[i], share, hard_us, search);
		if (u && (!best || tsl_schedule_makespan(u) < tsl_schedule_makespan(best))) {
			tessel_schedule_free(best);
			best = u;
		} else {
			tessel_schedule_free(u);
		}
	}
	if (rc && best) {
		/* a later tier stopped: the schedule in hand */
		tessel_error_clear();
		rc = TSL_OK;
	}
	if (rc == TESSEL_ETIMEOUT)
		return tsl_error(TESSEL_ETIMEOUT, "time limit reached before any "
				 "schedule was found (%lld micro-batches were searched "
				 "as fewer, whose steady state is repeated: no schedule "
				 "of them in time)", (long long)nmicros);
	if (rc)
		return rc;
	if (!best)
		return search_whole(out, g, options, limit_ms, t0, search);
	/* tiles alone: without declared alternatives, up to twice
	 * TSL_EXTEND_ENTRIES (a search of N costs about two of the larger
	 * tier), the whole search too, and the shorter is kept */
	if (!repeated && !tsl_graph_alternatives(g) && !stopped && !at_bound(best) &&
	    placements_of(g) * nmicros <= 2 * TSL_EXTEND_ENTRIES &&
	    !tsl_options_cancelled(options))
		rc = whole_beside_tiles(&best, &spent, &proof, &stopped, g, options,
					nmicros, limit_ms, t0, search);
	if (rc) {
		tessel_schedule_free(best);
		return rc;
	}
	best->work = spent;
	best->proof_work = proof;
	best->search_us = tsl_now_us() - t0;
	if (tsl_progress_wanted(options) && !stopped && !tsl_options_cancelled(options)) {
		tessel_progress p = {"done", 1, best->period, best->rep_k > 1 ? best->rep_k : 1,
				     tsl_schedule_makespan(best), best->lower_bound, spent, 0,
				     best->search_us, best->period_optimal};
		tsl_progress_report(options, &p); /* a stop asked now changes nothing */
		tessel_error_clear();
	}
	*out = best;
	return TSL_OK;
}
