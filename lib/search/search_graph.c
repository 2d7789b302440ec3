/* Stage by stage, the search of one graph with its memory limits as
 * they are (tsl_search_graph): its first schedule by list scheduling, the
 * repetends (the heuristic's, the solver's), the repetends of several
 * micro-batches, the completion of the best candidates, list scheduling
 * beside them and the improvements of the winner; find_schedule reads as
 * that pipeline. The driver (search.c) runs it on the placement, and the
 * last candidates (search_last.c) on the placement without its limits
 * and in heuristic mode. */
#include "search_graph.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "budget.h"
#include "complete.h"
#include "complete_direct_z3.h"
#include "complete_hshape.h"
#include "complete_list.h"
#include "complete_serial.h"
#include "complete_sgs.h"
#include "complete_vshape.h"
#include "complete_window_z3.h"
#include "error.h"
#include "options.h"
#include "repetend.h"
#include "repetend_group.h"
#include "repetend_heuristic.h"
#include "repetend_tighten.h"
#include "repetend_z3.h"
#include "search_opts.h"
#include "stage.h"
#include "util.h"
#include "validate.h"

/* Candidates are ranked by the makespan of their plain compaction (the
 * objective for the N micro-batches asked for), then by period (the steady
 * state's throughput); the best few then get the local search and the
 * shortest result wins, ties to the smaller period. */
#define TSL_FINALISTS 3
/* Work bound of the local search, in instance visits (deterministic). */
#define TSL_COMPACT_EFFORT ((int64_t)5000000)
#define TSL_FAST_EFFORT ((int64_t)300000)
/* The least work of a forward-backward round (its two passes of serial
 * generation) is below what one takes: by a 16th to a 5th on the
 * placements of scripts/bench-alt-large.py. A finalist is given work
 * beyond the phase's end for one round only when that holds the least
 * work and a TSL_ROUND_MARGIN-th of it more. */
#define TSL_ROUND_MARGIN 16
/* How many times the work budget the heuristic's search for a first
 * repetend may spend (from the phases' start) once the first schedule
 * exists (within the alternatives search once a plan gave a schedule:
 * the phase's share, tsl_opts.held). */
#define TSL_FIRST_REPETEND_BUDGETS 2
/* The phases after the first schedule, in order, with where each ends in
 * percent of the search's work budget, with the solver and in heuristic
 * mode (as the time limit's 70 % and 95 % end the solver's part and the
 * final compaction): what a phase leaves goes to the next. The search
 * without the memory limits, when it runs, may use what they left. */
typedef enum phase_id {
	PH_HEURISTIC,  /* repetends without the solver */
	PH_SOLVER,     /* the period proof, depths and alternatives */
	PH_GROUPS,     /* repetends of several micro-batches */
	PH_COMPACTION, /* the best candidates completed and improved */
	PH_LIST,       /* list scheduling, a candidate */
	PH_WINDOWS,    /* the ends re-solved exactly */
	PH_RESTARTS,   /* the completion restarted from the schedule's groups */
	PH_DIRECT,     /* few micro-batches all at once */
	PH_COUNT
} phase_id;

static const struct {
	const char *name; /* as tessel_progress_phase gives it */
	unsigned char until[2];
} phases[PH_COUNT] = {
	[PH_HEURISTIC] = {"heuristic", {35, 30}},
	[PH_SOLVER] = {"solver", {35, 30}},
	[PH_GROUPS] = {"groups", {45, 40}},
	[PH_COMPACTION] = {"compaction", {65, 80}},
	[PH_LIST] = {"list", {70, 85}},
	[PH_WINDOWS] = {"windows", {80, 85}},
	[PH_RESTARTS] = {"restarts", {87, 95}},
	[PH_DIRECT] = {"direct", {93, 95}},
};

typedef struct finalist {
	tsl_repetend rep;      /* copy, T owned */
	int64_t makespan;      /* after plain compaction */
} finalist;


typedef struct best {
	const tessel_graph *g;
	const tsl_bounds *bnd;
	const tsl_opts *opts;
	tsl_deadline *dl;     /* of the solver's part */
	tsl_deadline *fin_dl; /* of the final compaction */
	int64_t end_us;       /* the time limit itself, 0: none */
	int64_t complete_us;  /* longest plain completion with its check */
	int64_t first_us;     /* the first schedule's list scheduling and check */
	int64_t first_makespan; /* of b->first */
	int64_t first_ticks;   /* the work of its list scheduling */
	int64_t first_all_ticks; /* the work of the first schedule in all */
	int64_t nmicros;
	finalist fin[TSL_FINALISTS];
	int nfin;
	int rejected;          /* candidates whose completion broke a limit */
	char reason[TSL_REASON_LEN];
	/* why one micro-batch at a time does not fit ("" when it does, or
	 * was not tried) */
	char serial_short[TSL_REASON_LEN];
	int64_t single_period; /* smallest period of one micro-batch seen, 0: none */

	/* the first finalist's plain completion (validated): the result when
	 * the time limit leaves no time to complete any finalist again */
	tessel_schedule *plain;
	int plain_used;        /* the result is *plain (checked already) */
	/* the first schedule of the search, by list scheduling (validated):
	 * the result when the search ends before any repetend is completed */
	tessel_schedule *first;
	/* a copy of the final compaction's winner (validated) before the
	 * improvements after it: the result when the time limit leaves no
	 * time to check what they made */
	tessel_schedule *checked;
	int stopped;           /* a limit or a cancel ended the search: the
				* phases left do not run */
	int64_t w0, w;         /* the work budget: from meter reading w0, w
				* ticks (0: none) */
	tsl_shown *progress;       /* NULL: a search inside the search */
} best;

static int settle(best *b, int rc, int have);

/* A phase begins, to end at its share of the work budget. */
static int enter(best *b, phase_id ph)
{
	if (b->w) {
		int64_t end = b->w0 + b->w / 100 * phases[ph].until[b->opts->fast];
		b->dl->work_end = b->fin_dl->work_end = end > 0 ? end : 1;
	}
	return tsl_shown_phase(b->progress, b->opts, phases[ph].name);
}

/* A schedule of these figures was found: reported when it is shorter than
 * every one before (or has a shorter period per micro-batch at the same
 * makespan). */
static int offer(best *b, int64_t period, int64_t k, int64_t makespan,
		 int proven)
{
	tsl_shown *sh = b->progress;
	k = k > 1 ? k : 1;
	if (!sh || (sh->makespan &&
		    (makespan > sh->makespan ||
		     (makespan == sh->makespan && period * sh->k >= sh->period * k))))
		return TSL_OK;
	sh->period = period;
	sh->k = k;
	sh->makespan = makespan;
	sh->proven = proven;
	return tsl_shown_report(sh, b->opts, 1);
}

static int offer_schedule(best *b, const tessel_schedule *s)
{
	return offer(b, s->period, s->rep_k, tsl_schedule_makespan(s),
		     s->period_optimal);
}

static void best_release(best *b)
{
	for (int i = 0; i < b->nfin; i++)
		tsl_repetend_release(&b->fin[i].rep);
	b->nfin = 0;
	tessel_schedule_free(b->plain);
	b->plain = NULL;
	tessel_schedule_free(b->first);
	b->first = NULL;
	tessel_schedule_free(b->checked);
	b->checked = NULL;
}

/* The context of a stage of this search on its graph, ending at dl. */
static tsl_stage stage_of(const best *b, const tsl_deadline *dl)
{
	return (tsl_stage){b->g, b->bnd, b->opts, dl};
}

/* Complete `rep` into a new validated schedule; *out NULL (and the reason
 * kept) when the completion breaks a limit. */
static int complete_one(tessel_schedule **out, best *b, const tsl_repetend *rep,
			int64_t effort, const tsl_deadline *dl, char *reason)
{
	tessel_schedule *s = NULL;
	*out = NULL;
	tsl_stage st = stage_of(b, dl);
	int rc = tsl_schedule_alloc_until(&s, b->g, b->nmicros, dl);
	if (!rc)
		rc = tsl_complete(s, rep, &st, effort);
	if (rc) {
		tessel_schedule_free(s);
		return rc;
	}
	int vrc = tsl_schedule_check(s, dl);
	if (vrc != TESSEL_OK && vrc != TESSEL_EVIOLATION) {
		tessel_schedule_free(s); /* e.g. out of memory: an error */
		return vrc;
	}
	if (vrc == TESSEL_EVIOLATION) {
		snprintf(reason, TSL_REASON_LEN, "%s", tessel_error_last());
		tessel_schedule_free(s);
		return TSL_OK;
	}
	*out = s;
	return TSL_OK;
}

/* Keep time before the limit for what must follow: the final compaction
 * leaves two plain completions' worth (its own result and the check of
 * the result), the solver's part three. */
static void reserve_time(best *b)
{
	if (!b->end_us)
		return;
	int64_t margin = 20000 + 2 * b->complete_us;
	int64_t fin = b->end_us - margin, sol = b->end_us - margin - b->complete_us;
	if (fin < b->fin_dl->end_us)
		b->fin_dl->end_us = fin > 1 ? fin : 1;
	if (sol < b->dl->end_us)
		b->dl->end_us = sol > 1 ? sol : 1;
}

/* Whether the time limit leaves less than `us` before `end` (a work
 * bound alone never does: what runs then depends on no clock). */
static int no_time_for(const best *b, int64_t us, int64_t end)
{
	return b->end_us && tsl_now_us() + us >= end;
}

/* Whether repetend a has a smaller period per micro-batch than b. */
static int period_less(const tsl_repetend *a, const tsl_repetend *b)
{
	return a->period * tsl_repetend_k(b) < b->period * tsl_repetend_k(a);
}

/* A candidate repetend: completed (plainly) and checked by the validator;
 * kept among the finalists, sorted by that makespan, when it is valid and
 * short enough (the best one reported as progress). */
static int consider(best *b, const tsl_repetend *rep)
{
	tessel_schedule *s;
	/* stopped (a cancel, the time limit itself) once a schedule exists:
	 * a repetend found at the stop is not completed, which takes time
	 * the caller asked back; the schedules so far stand */
	if (b->first || b->nfin) {
		if (tsl_options_cancelled(b->opts->src))
			return tsl_error(TESSEL_ECANCELLED, "the search was cancelled");
		if (b->end_us && tsl_now_us() >= b->end_us)
			return tsl_error(TESSEL_ETIMEOUT, "time limit reached");
		/* nor one that would end after it: as long as the longest
		 * completion took, before the first one half the first
		 * schedule's time (list scheduling and its check take about
		 * twice a plain completion with its check) */
		if (no_time_for(b, b->complete_us ? b->complete_us : b->first_us / 2,
				b->end_us)) {
			b->stopped = 1; /* nor any later */
			return tsl_error(TESSEL_ETIMEOUT, "time limit reached");
		}
	}
	int64_t t0 = tsl_now_us();
	if (tsl_repetend_k(rep) == 1 &&
	    (!b->single_period || rep->period < b->single_period))
		b->single_period = rep->period;
	int rc = complete_one(&s, b, rep, 0, b->dl, b->reason);
	if (tsl_now_us() - t0 > b->complete_us) {
		b->complete_us = tsl_now_us() - t0;
		reserve_time(b);
	}
	if (!rc && !s)
		b->rejected++;
	if (rc || !s)
		return rc;
	int64_t makespan = tsl_schedule_makespan(s);
	/* insert into the sorted finalists (stable: earlier wins ties) */
	int pos = b->nfin;
	while (pos > 0 && (b->fin[pos - 1].makespan > makespan ||
			   (b->fin[pos - 1].makespan == makespan &&
			    period_less(rep, &b->fin[pos - 1].rep))))
		pos--;
	if (pos >= TSL_FINALISTS) {
		tessel_schedule_free(s);
		return TSL_OK;
	}
	tsl_repetend copy = *rep;
	size_t len = (size_t)tsl_repetend_k(rep) * (size_t)b->g->nblocks;
	copy.T = tsl_reallocarray(NULL, len, sizeof *copy.T);
	if (!copy.T) {
		tessel_schedule_free(s);
		return tsl_error_nomem();
	}
	memcpy(copy.T, rep->T, len * sizeof *copy.T);
	if (pos == 0) {
		tessel_schedule_free(b->plain);
		b->plain = s;
	} else {
		tessel_schedule_free(s);
	}
	if (b->nfin == TSL_FINALISTS)
		tsl_repetend_release(&b->fin[--b->nfin].rep);
	memmove(&b->fin[pos + 1], &b->fin[pos],
		(size_t)(b->nfin - pos) * sizeof b->fin[0]);
	b->fin[pos].rep = copy;
	b->fin[pos].makespan = makespan;
	b->nfin++;
	if (pos == 0)
		return offer(b, rep->period, tsl_repetend_k(rep), makespan,
			     rep->optimal);
	return TSL_OK;
}

/* The solver's repetends (tsl_period_search: a generator), each pulled
 * and considered in turn: the driver completes and checks each one
 * between two steps of the solver. `rep`: its work space and, once it is
 * over, its final repetend. Stops at the first error of either. */
static int pull_repetends(best *b, tsl_repetend *rep, const tsl_stage *st,
			  const tsl_repetend *hint, const tsl_repetend *guide)
{
	tsl_period_search *ps = NULL;
	const tsl_repetend *c = NULL;
	int rc = tsl_period_search_new(&ps, rep, st, hint, guide);
	while (!rc && (rc = tsl_period_search_next(&c, ps)) == TSL_OK)
		rc = consider(b, c);
	tsl_period_search_free(ps);
	return rc == TESSEL_ITEROVER ? TSL_OK : rc;
}

/* consider() the heuristic's repetend `rep` (of graph g: the placement or
 * its copies, with their bounds: the stage st), then the same with its period lowered as
 * far as its structure allows (repetend_tighten.c), which replaces it in
 * *rep. */
static int consider_tightened(best *b, tsl_repetend *rep, const tsl_stage *st)
{
	int rc = consider(b, rep), lowered = 0;
	if (!rc)
		rc = tsl_repetend_tighten(rep, &lowered, st, st->bnd->resource_bound);
	if (!rc && lowered)
		rc = consider(b, rep);
	return rc;
}

/* One finalist's final compaction, possibly on a worker thread: it writes
 * only its own job. */
typedef struct job {
	best *b;
	int first, step;          /* finalists first, first + step, ... */
	int count;                /* ... below count */
	tessel_schedule **result; /* per finalist */
	int *rc;                  /* per finalist */
	char (*msg)[TSL_REASON_LEN];         /* per finalist: error message */
	int64_t *spent;           /* per finalist: ticks of work */
	int64_t share;            /* ticks each finalist may use, 0: any */
} job;

static void *run_job(void *arg)
{
	job *j = arg;
	best *b = j->b;
	for (int i = j->first; i < j->count; i += j->step) {
		/* cancelled: none (the first one's plain completion stands) */
		if (tsl_options_cancelled(b->opts->src)) {
			j->rc[i] = TESSEL_ECANCELLED;
			continue;
		}
		/* past the deadline only the first finalist */
		if (i > 0 && tsl_deadline_left_ms(b->fin_dl) <= 0)
			break;
		/* a meter of its own, from the work spent before any
		 * finalist: what one does depends on nothing the others do */
		tsl_meter m = {tsl_work_used(b->fin_dl),
			       b->fin_dl->meter ? b->fin_dl->meter->exempt : 0};
		tsl_deadline dl = *b->fin_dl;
		dl.meter = b->fin_dl->meter ? &m : NULL;
		if (dl.meter)
			dl.work_end = tsl_work_end_after(b->fin_dl, j->share);
		j->rc[i] = complete_one(&j->result[i], b, &b->fin[i].rep,
					b->opts->fast ? TSL_FAST_EFFORT
						      : TSL_COMPACT_EFFORT,
					&dl, j->msg[i]);
		if (j->rc[i])
			snprintf(j->msg[i], sizeof j->msg[i], "%s", tessel_error_last());
		j->spent[i] = m.used - tsl_work_used(b->fin_dl);
	}
	return NULL;
}

/* The local search on each finalist (on up to `threads` threads); the
 * shortest result wins, then the smaller period, then the earlier
 * finalist, so the result does not depend on the thread count. */
static int finish(tessel_schedule **out, best *b)
{
	tessel_schedule *result[TSL_FINALISTS] = {NULL};
	int rcs[TSL_FINALISTS] = {0};
	char msg[TSL_FINALISTS][TSL_REASON_LEN] = {""};
	int64_t spent[TSL_FINALISTS] = {0};
	job jobs[TSL_FINALISTS];
	pthread_t tid[TSL_FINALISTS];
	int started[TSL_FINALISTS] = {0};
	*out = NULL;
	if (b->nfin == 0)
		return TSL_OK; /* no candidate survived: the caller says why */
	/* the work left shared out evenly */
	int count = b->nfin;
	int64_t left = tsl_work_left(b->fin_dl);
	int64_t share = left == INT64_MAX ? 0 : left / count > 0 ? left / count : 1;
	/* a share that pays for no forward-backward round of the local
	 * search (two passes of serial generation, their least work:
	 * tsl_sgs_pass_least_ticks) gets none of it: then the best
	 * finalist alone, with what two rounds least take, beyond the
	 * phase's end up to the budget's (the phases after it have the
	 * rest), when that is TSL_ROUND_MARGIN more than one round's
	 * least work. The others' plain completions are no shorter than
	 * its. */
	int64_t round = share ? 2 * tsl_sgs_pass_least_ticks(b->g, b->nmicros, b->fin_dl) : 0;
	if (b->w && round > 0 && share <= round) {
		int64_t counted = tsl_work_counted(b->fin_dl), end = b->w0 + b->w;
		if (round <= (end - counted) / 2)
			end = counted + 2 * round;
		if (end - counted > round + round / TSL_ROUND_MARGIN &&
		    end > b->fin_dl->work_end) {
			b->fin_dl->work_end = end;
			count = 1;
			share = end - counted;
		}
	}
	int nthreads = tsl_search_threads(b->opts, count);
	for (int t = 0; t < nthreads; t++) {
		jobs[t] = (job){b, t, nthreads, count, result, rcs, msg, spent, share};
		if (t > 0)
			started[t] = pthread_create(&tid[t], NULL, run_job, &jobs[t]) == 0;
	}
	run_job(&jobs[0]);
	for (int t = 1; t < nthreads; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			run_job(&jobs[t]); /* no thread: do it here */
	}
	for (int i = 0; i < b->nfin; i++)
		tsl_charge_ticks(b->fin_dl, spent[i]);
	int rc = TSL_OK;
	tessel_schedule *winner = NULL;
	int64_t wm = 0;
	int timed_out = 0;
	for (int i = 0; i < b->nfin; i++) {
		tessel_schedule *s = result[i];
		/* a finalist the time limit or a cancel stopped is left out */
		if (rcs[i] == TESSEL_ETIMEOUT || rcs[i] == TESSEL_ECANCELLED) {
			timed_out = 1;
			continue;
		}
		if (rcs[i] && !rc)
			rc = tsl_error(rcs[i], "%s", msg[i]);
		if (!rcs[i] && !s && msg[i][0]) {
			b->rejected++;
			snprintf(b->reason, sizeof b->reason, "%.255s", msg[i]);
		}
		if (!s || rc) {
			tessel_schedule_free(s);
			continue;
		}
		int64_t m = tsl_schedule_makespan(s);
		if (!winner || m < wm ||
		    (m == wm && s->period * winner->rep_k < winner->period * s->rep_k)) {
			tessel_schedule_free(winner);
			winner = s;
			wm = m;
		} else {
			tessel_schedule_free(s);
		}
	}
	if (rc) {
		tessel_schedule_free(winner);
		return rc;
	}
	/* no time to complete any finalist again (a step of the solver that
	 * no limit interrupts can overrun): the first one's plain completion */
	if (!winner && timed_out && b->plain) {
		winner = b->plain;
		b->plain = NULL;
		b->plain_used = 1;
		/* proven since it was made, by the solver */
		winner->period_optimal = b->fin[0].rep.optimal;
	}
	if (!winner && timed_out)
		return tsl_error(TESSEL_ETIMEOUT,
				 "time limit reached while completing the schedule");
	*out = winner;
	return TSL_OK;
}

/* Whether the heuristic's repetend is already optimal in every respect:
 * its period is the resource bound and its completed makespan the lower
 * bound. Then the solver has nothing to add, and *kept is that completed
 * schedule (the one finish() would make again). */
static int reaches_bounds(int *done, tessel_schedule **kept, best *b,
			  const tsl_repetend *hint)
{
	*done = 0;
	*kept = NULL;
	if (hint->period != b->bnd->resource_bound ||
	    no_time_for(b, b->complete_us, b->end_us))
		return TSL_OK;
	tessel_schedule *s;
	char reason[TSL_REASON_LEN];
	int rc = complete_one(&s, b, hint, TSL_COMPACT_EFFORT, b->dl, reason);
	if (rc || !s)
		return rc;
	*done = tsl_schedule_makespan(s) <= tsl_bounds_lower(b->bnd, b->nmicros);
	if (*done)
		*kept = s;
	else
		tessel_schedule_free(s);
	return TSL_OK;
}

/* Repetends of several micro-batches are tried on graphs of at most this
 * many blocks (k copies of the placement). */
#define TSL_GROUP_MAX_BLOCKS 4096
/* Work bound of every solver check for such repetends (Z3 resource units,
 * about half a second). */
#define TSL_GROUP_RLIMIT 500000u
/* ... up to a model of so many blocks and block pairs (group_rlimit) */
#define TSL_GROUP_RLIMIT_SIZE 256
/* ... and of its memory-aware search (units of repetend_dfs.c): 62.5 work
 * units (62,500 ticks). */
#define TSL_GROUP_DFS_BUDGET ((int64_t)62500 * TSL_DFS_UNITS_PER_TICK)
/* The least work they get (ticks): TSL_GROUP_MIN_TICKS (search_graph.h)
 * with the solver, this in heuristic mode; otherwise half the work of the
 * search so far. */
#define TSL_GROUP_MIN_FAST_TICKS ((int64_t)100 * TSL_TICKS_PER_UNIT)

/* The finalist of one micro-batch per repetend with the smallest period,
 * or NULL. */
static const tsl_repetend *best_single(const best *b)
{
	const tsl_repetend *r = NULL;
	for (int i = 0; i < b->nfin; i++)
		if (tsl_repetend_k(&b->fin[i].rep) == 1 &&
		    (!r || b->fin[i].rep.period < r->period))
			r = &b->fin[i].rep;
	return r;
}

/* The work bound of each solver check of a group's model: TSL_GROUP_RLIMIT
 * up to TSL_GROUP_RLIMIT_SIZE blocks and pairs of blocks sharing a device,
 * falling with the square of the size above (Z3's resource count costs
 * more time a unit in a larger model). */
static unsigned group_rlimit(const tessel_graph *gk, const tsl_bounds *bk)
{
	int64_t size = gk->nblocks;
	for (int d = 0; d < gk->ndevices; d++) {
		int64_t c = bk->dev_start[d + 1] - bk->dev_start[d];
		size += c * (c - 1) / 2;
	}
	if (size <= TSL_GROUP_RLIMIT_SIZE)
		return TSL_GROUP_RLIMIT;
	int64_t v = (int64_t)TSL_GROUP_RLIMIT * TSL_GROUP_RLIMIT_SIZE / size *
		    TSL_GROUP_RLIMIT_SIZE / size;
	return v > 1000 ? (unsigned)v : 1000;
}

/* One k: the heuristic on the graph of k copies, then the solver (not in
 * heuristic mode) below the better of its repetend and k copies of the
 * best one-micro-batch repetend. Every repetend found is a candidate. */
static int search_group(best *b, const tessel_graph *g, const tsl_opts *o,
			const tsl_deadline *hdl, int k)
{
	tessel_graph *gk = NULL;
	tsl_bounds bk;
	tsl_repetend heur = {0}, guide = {0}, known = {0}, work = {0};
	const tsl_repetend *one = best_single(b);
	size_t len = (size_t)k * (size_t)g->nblocks;
	int rc = tsl_graph_copies(&gk, g, k);
	if (rc)
		return rc;
	rc = tsl_bounds_compute(&bk, gk);
	if (rc) {
		tessel_graph_free(gk);
		return rc;
	}
	heur.T = tsl_calloc(len, sizeof *heur.T);
	guide.T = tsl_calloc(len, sizeof *guide.T);
	work.T = tsl_calloc(len, sizeof *work.T);
	if (!heur.T || !guide.T || !work.T)
		rc = tsl_error_nomem();
	int have = 0;
	tsl_stage st = {gk, &bk, o, hdl};
	if (!rc) {
		rc = tsl_repetend_heuristic(&heur, &guide, &st, TSL_GROUP_DFS_BUDGET, 1);
		have = rc == TSL_OK;
		if (rc == TESSEL_EINFEASIBLE || rc == TESSEL_ETIMEOUT)
			rc = TSL_OK;
	}
	heur.k = guide.k = work.k = k;
	if (!rc && have)
		rc = consider_tightened(b, &heur, &st);
	int64_t lb = tsl_bounds_lower(b->bnd, b->nmicros);
	int reached = b->nfin && b->fin[0].makespan <= lb;
	if (!rc && one)
		rc = tsl_repetend_replicate(&known, one, g->nblocks, k);
	/* the solver only where the period per micro-batch can improve:
	 * at the resource bound, the heuristic's start is what k adds */
	int room = b->single_period > b->bnd->resource_bound;
	if (!rc && !o->fast && !reached && room && tsl_deadline_left_ms(hdl) > 0) {
		const tsl_repetend *hint = have ? &heur : NULL;
		if (one && (!hint || known.period < hint->period))
			hint = &known;
		/* each check of the larger model gets a fixed work bound */
		tsl_opts bounded = *o;
		bounded.rlimit_cap = group_rlimit(gk, &bk);
		/* and counts against the budget: a group's period has
		 * nothing to prove (the period proof is the one micro-batch
		 * repetend's, beside the default budget) */
		bounded.work_auto = 0;
		tsl_stage sz = {gk, &bk, &bounded, hdl};
		rc = pull_repetends(b, &work, &sz, hint, guide.period ? &guide : NULL);
	}
	tsl_repetend_release(&heur);
	tsl_repetend_release(&guide);
	tsl_repetend_release(&known);
	tsl_repetend_release(&work);
	tsl_bounds_release(&bk);
	tessel_graph_free(gk);
	return rc;
}

/* k = 2 .. the option's bound, while the best schedule is above LB(N),
 * the graph of copies stays small and time is left. */
static int search_groups(best *b, const tessel_graph *g, const tsl_opts *o,
			 const tsl_deadline *hdl)
{
	int64_t lb = tsl_bounds_lower(b->bnd, b->nmicros);
	int rc = TSL_OK;
	/* at most half the work of the search so far (or the least work
	 * above), within the solver's part of the budget and of the time
	 * limit */
	int64_t spent = tsl_work_counted(hdl);
	int64_t least = o->fast ? TSL_GROUP_MIN_FAST_TICKS : TSL_GROUP_MIN_TICKS;
	tsl_deadline gdl = *hdl;
	gdl.work_end = tsl_work_end_after(b->dl, spent / 2 > least ? spent / 2 : least);
	gdl.end_us = b->dl->end_us;
	for (int k = 2; k <= o->max_group && k <= b->nmicros && !rc; k++) {
		if (b->nfin && b->fin[0].makespan <= lb)
			break;
		if ((int64_t)g->nblocks * k > TSL_GROUP_MAX_BLOCKS ||
		    tsl_deadline_left_ms(&gdl) <= 0 || tsl_options_cancelled(o->src))
			break;
		rc = search_group(b, g, o, &gdl, k);
		if (rc == TESSEL_ETIMEOUT || rc == TESSEL_EINFEASIBLE)
			rc = TSL_OK; /* nothing for this k */
	}
	return rc;
}

/* The pipeline schedulers' orders on a placement of their shape: the
 * Zero Bubble authors' V rounds (complete_vshape.c) and their H greedy
 * (complete_hshape.c), each in time linear in the instances (none on
 * another placement). The shortest replaces *s when *have is 0 (*s
 * allocated, its entries whatever) or it is shorter; *have is then 1. */
static int pipeline_shapes(tessel_schedule **s, int *have, best *b)
{
	if (!tsl_vshape_possible(b->g) && !tsl_hshape_possible(b->g))
		return TSL_OK; /* (no schedule allocated in vain) */
	tessel_schedule *t = NULL;
	int rc = tsl_schedule_alloc_until(&t, b->g, b->nmicros, b->dl);
	for (int shape = 0; shape < 2 && !rc; shape++) {
		int found = 0;
		rc = shape == 0 ? tsl_vshape_schedule(t, &found, b->dl)
				: tsl_hshape_schedule(t, &found, b->dl);
		if (rc == TESSEL_ETIMEOUT)
			rc = TSL_OK; /* (without a message) the schedule so far */
		if (!rc && found &&
		    (!*have || tsl_schedule_makespan(t) < tsl_schedule_makespan(*s))) {
			tessel_schedule *x = *s;
			*s = t;
			t = x;
			*have = 1;
		}
	}
	tessel_schedule_free(t);
	return rc;
}

/* The first schedule of a search, in time about linear in the instances:
 * list scheduling by the first rule of complete_list.c, or the pipeline
 * schedulers' order where the placement has their shape and it is
 * shorter (pipeline_shapes), its repetend figures read off it, validated.
 * Kept in b->first (none when memory held it back or the hard end came
 * first). A search never ends longer than its first schedule: on those
 * shapes never longer than the peer schedulers, whatever its budget. */
/* One micro-batch at a time in the order of least memory
 * (complete_serial.c) into *out, when it fits the limits;
 * TESSEL_EINFEASIBLE (nothing made) otherwise. */
static int serial_schedule(tessel_schedule **out, best *b)
{
	const tessel_graph *g = b->g;
	int *order = tsl_calloc((size_t)g->nblocks + 1, sizeof *order);
	int64_t *need = tsl_calloc((size_t)g->ndevices, sizeof *need);
	int rc = order && need ? tsl_serial_order(order, need, g, b->nmicros)
			       : tsl_error_nomem();
	if (!rc && !tsl_serial_fits(g, need)) {
		for (int d = 0; d < g->ndevices; d++)
			if (g->memory_limit[d] != TESSEL_UNLIMITED &&
			    need[d] > g->memory_limit[d]) {
				snprintf(b->serial_short, sizeof b->serial_short,
					 "the micro-batches one at a time need %lld on device %d, "
					 "above its limit %lld",
					 (long long)need[d], d,
					 (long long)g->memory_limit[d]);
				break;
			}
		rc = tsl_error(TESSEL_EINFEASIBLE,
			       "not even one micro-batch at a time fits the memory limits");
	}
	if (!rc)
		rc = tsl_schedule_alloc_until(out, g, b->nmicros, b->dl);
	if (!rc)
		rc = tsl_serial_schedule(*out, order, b->dl);
	if (rc) {
		tessel_schedule_free(*out);
		*out = NULL;
	}
	tsl_free(order);
	tsl_free(need);
	return rc;
}

static int first_schedule(best *b, tsl_first *given)
{
	tessel_schedule *s = NULL;
	if (tsl_options_cancelled(b->opts->src))
		return TSL_OK; /* nothing found before the cancel */
	/* the phase is reported with its schedule: a callback's first call
	 * has one to stop with */
	if (b->progress)
		b->progress->phase = "list";
	if (given && given->s) {
		/* made by a search of the same graph: taken as it is, its
		 * work charged as if made here */
		s = given->s;
		given->s = NULL;
		tsl_charge_ticks(b->dl, given->ticks);
		b->first_ticks = given->list_ticks;
		b->first_us = given->us;
		b->first_all_ticks = given->ticks;
		b->first = s;
		b->first_makespan = tsl_schedule_makespan(s);
		return settle(b, offer(b, s->period, s->rep_k, b->first_makespan,
				      s->period_optimal), 1);
	}
	int64_t t0 = tsl_now_us();
	tsl_stage st = stage_of(b, b->dl);
	int64_t w0 = tsl_work_used(b->dl);
	int rc = tsl_schedule_alloc_until(&s, b->g, b->nmicros, b->dl);
	if (!rc)
		rc = tsl_list_schedule(s, &st, &tsl_list_rules[0]);
	b->first_ticks = tsl_work_used(b->dl) - w0;
	if (s && (!rc || rc == TESSEL_EINFEASIBLE || rc == TESSEL_EVIOLATION)) {
		int have = rc == TSL_OK;
		int prc = pipeline_shapes(&s, &have, b);
		if (prc)
			rc = prc;
		else if (have)
			rc = TSL_OK;
	}
	if (rc == TESSEL_EINFEASIBLE || rc == TESSEL_EVIOLATION) {
		/* memory too tight for list scheduling: one micro-batch at a
		 * time, when that fits */
		tessel_schedule_free(s);
		s = NULL;
		rc = serial_schedule(&s, b);
	}
	if (!rc) {
		tsl_repetend_detect(s, b->bnd);
		rc = tsl_schedule_check(s, b->dl);
	}
	b->first_us = tsl_now_us() - t0;
	b->first_all_ticks = tsl_work_used(b->dl) - w0;
	if (rc == TESSEL_EINFEASIBLE || rc == TESSEL_ETIMEOUT ||
	    rc == TESSEL_EVIOLATION) {
		/* nothing to keep (a violation would be a fault of the list
		 * scheduler: the search goes on without it) */
		tessel_schedule_free(s);
		return TSL_OK;
	}
	if (rc) {
		tessel_schedule_free(s);
		return rc;
	}
	b->first = s;
	b->first_makespan = tsl_schedule_makespan(s);
	return settle(b, offer(b, s->period, s->rep_k, b->first_makespan,
			      s->period_optimal), 1);
}

/* List scheduling as a candidate beside the repetends: every rule of
 * complete_list.c, the shortest improved by the completion's passes from
 * its own order; it replaces *out (validated) when shorter. */
static int list_candidate(tessel_schedule **out, best *b, int64_t effort)
{
	/* not begun when the time limit, or the work left in the phase,
	 * leaves less than one list schedule takes (as the first one did:
	 * a rule runs to its end once begun) */
	if (tsl_schedule_makespan(*out) <= tsl_bounds_lower(b->bnd, b->nmicros) ||
	    tsl_deadline_left_ms(b->fin_dl) <= 0 ||
	    no_time_for(b, b->first_us, b->fin_dl->end_us) ||
	    tsl_work_left(b->fin_dl) < b->first_ticks)
		return TSL_OK;
	tessel_schedule *s = NULL, *alt = NULL;
	int found = 0, nmore = 0;
	int64_t *more[TSL_LIST_MORE];
	tsl_stage st = stage_of(b, b->fin_dl);
	int rc = tsl_schedule_alloc_until(&s, b->g, b->nmicros, b->fin_dl);
	if (!rc)
		rc = tsl_list_top(s, &found, &st, more, &nmore);
	if (!rc && found)
		rc = tsl_complete_improve(s, &st, effort);
	/* the next shortest list schedules improved too: the improvement
	 * of the shortest is not always the shortest improvement */
	for (int i = 0; i < nmore && !rc; i++) {
		rc = tsl_schedule_copy(&alt, s);
		size_t count = (size_t)b->g->nblocks * (size_t)b->nmicros;
		for (size_t j = 0; !rc && j < count; j++)
			alt->entries[j].start = more[i][j];
		if (!rc)
			rc = tsl_complete_improve(alt, &st, effort);
		if (!rc && tsl_schedule_makespan(alt) < tsl_schedule_makespan(s)) {
			tessel_schedule *t = s;
			s = alt;
			alt = t;
		}
		tessel_schedule_free(alt);
		alt = NULL;
	}
	for (int i = 0; i < nmore; i++)
		tsl_free(more[i]);
	if (rc == TESSEL_ETIMEOUT || rc == TESSEL_ECANCELLED)
		rc = TSL_OK; /* the list schedule as it stands */
	if (!rc && found && tsl_schedule_makespan(s) < tsl_schedule_makespan(*out)) {
		tsl_repetend_detect(s, b->bnd);
		int vrc = tsl_schedule_check(s, b->fin_dl);
		if (vrc == TESSEL_OK) {
			tessel_schedule_free(*out);
			*out = s;
			s = NULL;
		} else if (vrc != TESSEL_ETIMEOUT && vrc != TESSEL_EVIOLATION) {
			rc = vrc;
		}
	}
	tessel_schedule_free(s);
	return rc;
}

/* After a phase: a time limit or a cancel (or a progress callback that
 * asked to stop) that ends the search once a candidate exists leaves the
 * best so far, and no later phase runs (b->stopped). */
static int settle(best *b, int rc, int have)
{
	if ((rc == TESSEL_ETIMEOUT || rc == TESSEL_ECANCELLED) && have) {
		b->stopped = 1;
		return TSL_OK;
	}
	return rc;
}

/* The repetends: the heuristic's (kept in *kept when it already reaches
 * both bounds: *done), then the solver's; each a candidate (consider). */
/* The deadline of the heuristics: better repetends until the solver's
 * part ends (its work bound as the phase set it), a first one until the
 * final compaction's time. */
static tsl_deadline heuristic_deadline(const best *b)
{
	tsl_deadline hdl = *b->dl;
	hdl.hard_us = b->fin_dl->end_us;
	return hdl;
}

static int find_repetends(best *b, tsl_repetend *rep, tessel_schedule **kept,
			  int *done)
{
	const tessel_graph *g = b->g;
	const tsl_opts *o = b->opts;
	tsl_repetend hint = {0}, guide = {0};
	*done = 0;
	hint.T = tsl_calloc((size_t)g->nblocks, sizeof *hint.T);
	guide.T = tsl_calloc((size_t)g->nblocks, sizeof *guide.T);
	int rc = hint.T && guide.T ? enter(b, PH_HEURISTIC)
				    : tsl_error_nomem();
	tsl_deadline hdl = heuristic_deadline(b);
	/* with a first schedule in hand, a first repetend is not worth any
	 * cost: its search ends at TSL_FIRST_REPETEND_BUDGETS times the
	 * budget (a 8,000-block pipeline on 512 devices, its first schedule
	 * made, looked for one for minutes) */
	if (b->first && b->w > 0 && !o->held)
		hdl.must_end = b->w0 + TSL_FIRST_REPETEND_BUDGETS * b->w;
	tsl_stage heuristic = stage_of(b, &hdl), solver = stage_of(b, b->dl);
	if (!rc)
		rc = tsl_repetend_heuristic(&hint, &guide, &heuristic, 0,
					    o->held);
	/* a period cap applies to the heuristic's repetend too */
	if (!rc && o->max_period && hint.period > o->max_period)
		rc = tsl_error(TESSEL_EINFEASIBLE,
			       "the heuristic found no repetend with period at most %lld",
			       (long long)o->max_period);
	int have_hint = rc == TSL_OK;
	if (have_hint)
		rc = consider_tightened(b, &hint, &solver);
	else if (rc == TESSEL_EINFEASIBLE && !o->fast)
		rc = TSL_OK; /* the solver may still find one */
	if (!rc && have_hint && !o->fast)
		rc = reaches_bounds(done, kept, b, &hint);
	if (!rc && !o->fast && !*done)
		rc = enter(b, PH_SOLVER);
	if (!rc && !o->fast && !*done)
		rc = pull_repetends(b, rep, &solver, have_hint ? &hint : NULL,
				    guide.period ? &guide : NULL);
	/* the solver not used (a model too large for the work or time
	 * left), or its work spent, is no stop, with a repetend of the
	 * heuristic or without: the phases after it still run, unless the
	 * time limit itself passed or the search was cancelled */
	if (rc == TESSEL_ETIMEOUT && !tsl_options_cancelled(o->src) &&
	    !b->stopped && !(b->end_us && tsl_now_us() >= b->end_us))
		rc = TSL_OK;
	tsl_repetend_release(&hint);
	tsl_repetend_release(&guide);
	/* the solver proved its period minimal: so is any candidate's
	 * (the heuristic's) of the same period */
	if (!rc && !o->fast && rep->optimal)
		for (int i = 0; i < b->nfin; i++)
			if (b->fin[i].rep.period == rep->period &&
			    tsl_repetend_k(&b->fin[i].rep) == 1)
				b->fin[i].rep.optimal = 1;
	return rc;
}

/* The improvements of the finished schedule *out (validated, a copy of it
 * kept in b->checked): the ends re-solved window by window, the
 * completion's restarts from the patterns they made, and for few
 * micro-batches all of them scheduled at once. Each stops at the limits,
 * keeping what it made so far. */
static int improve(tessel_schedule **out, best *b, int64_t effort)
{
	const tsl_opts *o = b->opts;
	/* not begun when the time limit leaves less than a completion */
	if (no_time_for(b, b->complete_us, b->fin_dl->end_us))
		return TSL_OK;
	int rc = tsl_schedule_copy(&b->checked, *out);
	tsl_stage st = stage_of(b, b->fin_dl);
	if (!rc && !o->fast && !b->stopped) {
		rc = enter(b, PH_WINDOWS);
		if (!rc)
			rc = tsl_complete_window_z3(*out, &st);
		rc = settle(b, rc, 1);
	}
	if (!rc && !b->stopped) {
		rc = enter(b, PH_RESTARTS);
		if (!rc)
			rc = tsl_complete_regroup(*out, &st, effort);
		rc = settle(b, rc, 1);
	}
	if (!rc && !o->fast && !b->stopped) {
		rc = enter(b, PH_DIRECT);
		if (!rc)
			rc = tsl_direct_z3(*out, &(*out)->makespan_optimal, &st);
		if (!rc)
			tsl_repetend_range(*out);
		rc = settle(b, rc, 1);
	}
	return rc;
}

/* Stage: repetends of several micro-batches (PH_GROUPS), unless the
 * repetends already reach both bounds (done) or none was found. */
static int stage_groups(best *b, int done)
{
	if (done || !b->nfin || b->stopped)
		return TSL_OK;
	int rc = enter(b, PH_GROUPS);
	tsl_deadline hdl = heuristic_deadline(b);
	if (!rc)
		rc = search_groups(b, b->g, b->opts, &hdl);
	return settle(b, rc, b->nfin > 0 || b->first);
}

/* Stage: the schedule from the candidates into *out: the heuristic's
 * (kept, when it reaches both bounds), or the best candidate's plain
 * completion when the search was stopped or the time limit leaves less
 * than one completion, else the best candidates completed and improved
 * (PH_COMPACTION, finish). *kept is taken. */
static int stage_completion(tessel_schedule **out, best *b,
			    tessel_schedule **kept)
{
	int rc = TSL_OK;
	if (*kept) {
		*out = *kept;
		*kept = NULL;
	} else if (b->plain &&
		   (b->stopped || no_time_for(b, b->complete_us, b->fin_dl->end_us))) {
		/* stopped (a time limit, a cancel, a callback), or the time
		 * limit leaves less than one completion: the best candidate's
		 * plain completion, made and validated when it was found, is
		 * the best schedule so far; nothing is completed again */
		b->stopped = 1;
		*out = b->plain;
		b->plain = NULL;
		b->plain_used = 1;
		(*out)->period_optimal = b->fin[0].rep.optimal;
	} else {
		rc = enter(b, PH_COMPACTION);
		if (!rc || rc == TESSEL_ECANCELLED)
			rc = finish(out, b); /* the best so far, at least */
	}
	if (!rc && *out)
		rc = settle(b, offer_schedule(b, *out), 1);
	return rc;
}

/* Stage: list scheduling beside the repetends (PH_LIST), then the
 * improvements of the schedule (improve), each result reported. Not when
 * the plain completion was kept for a time limit (no time for more, and
 * it stays the schedule that was validated) or the search was stopped. */
static int stage_list_and_improve(tessel_schedule **out, best *b)
{
	if (!*out || b->plain_used || b->stopped)
		return TSL_OK;
	int64_t effort = b->opts->fast ? TSL_FAST_EFFORT : TSL_COMPACT_EFFORT;
	int rc = enter(b, PH_LIST);
	if (!rc)
		rc = list_candidate(out, b, effort);
	rc = settle(b, rc, 1);
	if (!rc)
		rc = settle(b, offer_schedule(b, *out), 1);
	if (!rc)
		rc = improve(out, b, effort);
	if (!rc)
		rc = settle(b, offer_schedule(b, *out), 1);
	return rc;
}

/* The pipeline of a search on g (first_schedule has run): the
 * repetends, the repetends of several micro-batches, the completion of
 * the best candidates, list scheduling beside them and the
 * improvements. */
static int find_schedule(tessel_schedule **out, best *b, tsl_repetend *rep)
{
	tessel_schedule *kept = NULL; /* the heuristic's, when optimal */
	int done = 0;
	int rc = find_repetends(b, rep, &kept, &done);
	rc = settle(b, rc, b->nfin > 0 || b->first);
	if (!rc)
		rc = stage_groups(b, done);
	/* stopped before any repetend was completed: the first schedule
	 * stands (search_graph) */
	if (!rc && b->stopped && !kept && !b->nfin)
		return tsl_options_cancelled(b->opts->src)
			       ? tsl_error(TESSEL_ECANCELLED, "the search was cancelled")
			       : tsl_error(TESSEL_ETIMEOUT, "time limit reached");
	if (!rc)
		rc = stage_completion(out, b, &kept);
	tessel_schedule_free(kept);
	if (!rc)
		rc = stage_list_and_improve(out, b);
	/* (no reason: no repetend was completed before the budget ended) */
	const char *none = "no repetend that fits the memory limits was found "
			   "within the work budget (TESSEL_OPT_WORK_LIMIT, "
			   "tessel search --work-limit; 0 for none)";
	if (!rc && !*out && b->serial_short[0] && !b->first)
		rc = b->reason[0]
		     ? tsl_error(TESSEL_EINFEASIBLE,
				 "no schedule within the memory limits was found: %s, "
				 "list scheduling broke a limit and every repetend "
				 "found breaks one once completed: %s",
				 b->serial_short, b->reason)
		     : tsl_error(TESSEL_EINFEASIBLE,
				 "no schedule within the memory limits was found: %s, "
				 "list scheduling broke a limit and %s",
				 b->serial_short, none);
	else if (!rc && !*out)
		rc = b->reason[0]
		     ? tsl_error(TESSEL_EINFEASIBLE,
				 "every repetend found breaks a limit once completed: %s",
				 b->reason)
		     : tsl_error(TESSEL_EINFEASIBLE, "%s", none);
	return rc;
}

/* The search proper on g: bounds, repetends, completion, the final check.
 * progress: what the progress callbacks were told, NULL for a search
 * inside the search (no reports). budget: the work it may spend after its
 * first schedule (ticks; 0: none), shared out over its phases
 * (phases[]). */
int tsl_search_graph(tessel_schedule **out, const tessel_graph *g,
		     const tsl_opts *o, tsl_deadline *dl, tsl_deadline *fin_dl,
		     tsl_shown *progress, int64_t budget,
		     const tsl_after_first *after, tsl_first *given)
{
	tsl_bounds bnd;
	int rc = tsl_bounds_compute(&bnd, g);
	if (rc)
		return rc;
	tsl_bounds_keep_lower(&bnd, o->nmicros);
	tsl_repetend rep = {0};
	best b = {.g = g, .bnd = &bnd, .opts = o, .dl = dl, .fin_dl = fin_dl,
		  .nmicros = o->nmicros, .end_us = dl->hard_us,
		  .progress = progress, .w0 = tsl_work_counted(dl), .w = budget};
	tessel_schedule *s = NULL;
	rep.T = tsl_calloc((size_t)g->nblocks, sizeof *rep.T);
	if (!rep.T)
		rc = tsl_error_nomem();
	if (!rc)
		rc = first_schedule(&b, given);
	/* a search that is a candidate only, whose first schedule gave up at
	 * its bound (tsl_deadline.must_end): nothing more */
	if (!rc && !b.first && dl->must_end && tsl_deadline_must_stop(dl))
		rc = tsl_error(TESSEL_ETIMEOUT, "work bound reached before a first schedule");
	if (!rc && after)
		after->fn(after->arg, &(tsl_first){b.first, b.first_all_ticks,
						   b.first_ticks, b.first_us});
	/* the budget is for the phases after it: the first schedule is made
	 * whatever it costs */
	b.w0 = tsl_work_counted(dl);
	if (!rc && o->first_only && !b.first)
		rc = tsl_error(TESSEL_EINFEASIBLE,
			       "no first schedule: list scheduling and the micro-batches "
			       "one at a time break a memory limit");
	else if (!rc && !o->first_only)
		rc = find_schedule(&s, &b, &rep);
	/* every schedule returned has passed the validator: each candidate
	 * was checked when it was made (a completion, the list schedule),
	 * so only what the improvements changed is checked again (they kept
	 * a checked copy in b.checked); when the time limit leaves no time
	 * for that check (as long as a completion with its check took) or
	 * ends it, the copy */
	int checked = b.plain_used || !b.checked;
	if (!rc && !checked && s && no_time_for(&b, b.complete_us, b.end_us)) {
		tessel_schedule_free(s);
		s = b.checked;
		b.checked = NULL;
		checked = 1;
	}
	if (!rc && !checked) {
		/* (every pass keeps the schedule at step 0; the format's
		 * rule, which the check holds it to, is kept here too) */
		tsl_schedule_to_origin(s);
		rc = tsl_schedule_check(s, fin_dl);
		if (rc == TESSEL_EVIOLATION)
			rc = tsl_error(TESSEL_ERROR, "internal: the search made an invalid schedule: %s",
				       tessel_error_last());
		if (rc == TESSEL_ETIMEOUT && b.checked) {
			tessel_schedule_free(s);
			s = b.checked;
			b.checked = NULL;
			rc = TSL_OK;
		}
		checked = !rc;
	}
	/* the search ended before a repetend was completed, or ended longer:
	 * the first schedule (validated when it was made) */
	/* (a walk over every entry: 1.6 10^6 of them take 15 ms) */
	int64_t makespan = !rc && s ? tsl_schedule_makespan(s) : 0;
	if (b.first && ((!rc && s && b.first_makespan < makespan) ||
			(!rc && !s && o->first_only) ||
			((rc == TESSEL_ETIMEOUT || rc == TESSEL_ECANCELLED) && !s) ||
			/* no repetend within the memory limits (the first
			 * schedule has none to keep to a period cap) */
			(rc == TESSEL_EINFEASIBLE && !s && !o->max_period) ||
			(rc == TESSEL_ETIMEOUT && s))) {
		tessel_schedule_free(s);
		s = b.first;
		b.first = NULL;
		makespan = b.first_makespan;
		rc = TSL_OK;
	}
	if (rc == TESSEL_ETIMEOUT && !s && !b.first && !b.nfin && !b.end_us &&
	    !tsl_options_cancelled(o->src)) {
		/* no time limit to lengthen: what ran out was the work budget
		 * or a solver not used, so no schedule was found */
		char why[256];
		snprintf(why, sizeof why, "%s", tessel_error_last());
		rc = tsl_error(TESSEL_EINFEASIBLE,
			       "no schedule was found within the work budget (%s)",
			       why[0] ? why : "spent");
	} else if (rc == TESSEL_ETIMEOUT && !s && !b.first && !b.nfin)
		rc = tsl_error(TESSEL_ETIMEOUT,
			       "time limit reached before any schedule was found "
			       "(%lld instances; not even the first, a list schedule, "
			       "was done)", (long long)g->nblocks * o->nmicros);
	best_release(&b);
	if (!rc) {
		s->resource_bound = bnd.resource_bound;
		s->lower_bound = tsl_bounds_lower(&bnd, o->nmicros);
		if (makespan <= s->lower_bound)
			s->makespan_optimal = 1;
	}
	tsl_repetend_release(&rep);
	tsl_bounds_release(&bnd);
	if (rc) {
		tessel_schedule_free(s);
		return rc;
	}
	*out = s;
	return TSL_OK;
}
