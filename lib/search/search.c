/* The search driver of a placement as it stands (tsl_search_plain), as a
 * pipeline of stages: the graph validated, the limits no schedule can
 * reach lifted (search_limits.c), the search of the graph stage by stage
 * (search_graph.c), the last candidates: the placement without its limits
 * and the heuristic mode's search, started beside the search of the graph
 * (search_last.c), the published orders
 * of its family (search_published.c), the limits restored and the
 * schedule validated under them. */
#include <stdio.h>
#include <string.h>

#include "complete.h"
#include "error.h"
#include "options.h"
#include "progress.h"
#include "search.h"
#include "search_graph.h"
#include "search_last.h"
#include "search_limits.h"
#include "search_opts.h"
#include "search_deps.h"
#include "search_progress.h"
#include "search_published.h"
#include "stage.h"
#include "util.h"
#include "validate.h"

static int search_plain(tessel_schedule **out, const tessel_graph *g,
			const tessel_options *options, tsl_share *share);

int tsl_search_plain(tessel_schedule **out, const tessel_graph *g,
		     const tessel_options *options, tsl_share *share)
{
	TSL_CHECK_ARG(out, "tessel_search", "out");
	*out = NULL;
	int rc = tessel_graph_validate(g);
	if (rc)
		return rc;
	tsl_opts o;
	tsl_search_resolve(&o, options);
	if (share && share->nmicros > 0)
		o.nmicros = share->nmicros;
	rc = tsl_graph_check_leftover(g, o.nmicros);
	if (rc)
		return rc;
	/* what list scheduling and the completions keep an entry of */
	int64_t placements = 0; /* at most 10^6 blocks x 4,096 devices */
	for (int b = 0; b < g->nblocks; b++)
		placements += g->blocks[b].ndevices;
	if (placements * o.nmicros > TESSEL_MAX_ENTRIES)
		return tsl_error(TESSEL_ERANGE,
				 "%lld micro-batches of blocks on %lld devices in all "
				 "(a block on k devices counts k times): %lld device entries "
				 "exceed %d",
				 (long long)o.nmicros, (long long)placements,
				 (long long)(placements * o.nmicros), TESSEL_MAX_ENTRIES);
	tessel_graph *lifted = NULL, *reduced = NULL;
	rc = tsl_limits_lift(&lifted, g, o.nmicros);
	const tessel_graph *base = lifted ? lifted : g;
	if (!rc)
		rc = tsl_deps_reduce(&reduced, base);
	if (!rc)
		rc = search_plain(out, reduced ? reduced : base, options, share);
	if (!rc && reduced)
		rc = tsl_deps_restore(out, base);
	if (!rc && lifted)
		rc = tsl_limits_restore(*out, g);
	if (rc) {
		tessel_schedule_free(*out);
		*out = NULL;
	}
	tessel_graph_free(reduced);
	tessel_graph_free(lifted);
	return rc;
}

/* The heuristic mode's search beside the rest (search_last.c), started
 * once the first schedule is made, unless that one is optimal (then the
 * search ends with it, and a thread started would only be waited for). */
typedef struct fast_start {
	const tessel_graph *g;
	tsl_opts *o;      /* held set when share's no_first finds a schedule */
	const tsl_share *share; /* NULL: none */
	const tsl_deadline *dl, *fin_dl;
	tsl_shown *progress; /* halted set by share's no_first */
	tsl_fast_job *job;
	tsl_first first; /* a copy of the first schedule (s owned, NULL:
			  * none), for the heuristic mode's search */
} fast_start;

static void start_fast(void *arg, const tsl_first *first)
{
	fast_start *f = arg;
	/* no first schedule: the caller may find one elsewhere (another
	 * plan's), so that a first repetend is not needed at any cost */
	if (!first->s && f->share && f->share->no_first && !f->o->held &&
	    !tsl_options_cancelled(f->o->src))
		f->o->held = f->share->no_first(f->share->no_first_arg,
						&f->progress->halted);
	int64_t makespan = first->s ? tsl_schedule_makespan(first->s) : 0;
	if (makespan && makespan <= f->progress->lower_bound)
		return; /* optimal: the search ends with it */
	/* the copy only when that search will run (without one, for want
	 * of memory, it makes its own) */
	f->first = *first;
	f->first.s = NULL;
	if (first->s && !f->o->fast && f->o->work_auto &&
	    tsl_schedule_copy(&f->first.s, first->s))
		f->first.s = NULL;
	f->job = tsl_fast_begin(f->g, f->o, f->dl, f->fin_dl, &f->first);
}

/* The search of a graph without alternatives (tsl_search_plain). */
static int search_plain(tessel_schedule **out, const tessel_graph *g,
			const tessel_options *options, tsl_share *share)
{
	*out = NULL;
	int rc = TSL_OK;
	tsl_opts o;
	tsl_search_resolve(&o, options);
	if (share && share->nmicros > 0)
		o.nmicros = share->nmicros;
	tsl_search_auto_budget(&o, g);
	if (share) {
		o.work_ticks = o.work_ticks / 1000 * share->per_mille;
		if (o.work_ticks < TSL_TICKS_PER_UNIT)
			o.work_ticks = TSL_TICKS_PER_UNIT;
		o.proof_ticks = o.proof_ticks / 1000 * share->per_mille;
		if (share->work_cap > 0 && o.work_ticks / TSL_TICKS_PER_UNIT > share->work_cap) {
			o.work_ticks = share->work_cap * TSL_TICKS_PER_UNIT;
			o.work_capped = o.work_auto;
		}
		if (share->work_cap > 0 && o.proof_ticks / TSL_TICKS_PER_UNIT > share->work_cap)
			o.proof_ticks = share->work_cap * TSL_TICKS_PER_UNIT;
		if (share->rlimit_cap)
			o.rlimit_cap = share->rlimit_cap;
		if (share->time_limit_ms > 0)
			o.time_limit_ms = share->time_limit_ms;
		o.held = share->held;
		o.first_only = share->first_only;
		share->work_given = o.work_ticks / TSL_TICKS_PER_UNIT;
	}
	/* With a time limit, the solver's part ends at 70% of it and the
	 * final compaction at 95%, leaving time to check and return. */
	/* tessel_options_cancel stops every optional phase as the time
	 * limit would */
	/* The work budget is shared out over the phases (phases[]); the
	 * search without the memory limits may use what they left. */
	tsl_meter meter = {0};
	tsl_deadline dl = {tsl_now_us(), 0, 0, tsl_options_stop_flag(o.src),
			   &meter, 0, 0, tsl_graph_visit_weight(g), 0};
	tsl_deadline fin_dl = dl, all = dl;
	if (o.time_limit_ms) {
		dl.end_us = dl.start_us + o.time_limit_ms * 700;
		fin_dl.end_us = dl.start_us + o.time_limit_ms * 950;
		all.end_us = fin_dl.end_us;
		dl.hard_us = fin_dl.hard_us = all.hard_us =
			dl.start_us + o.time_limit_ms * 1000;
	}
	if (o.work_ticks)
		all.work_end = o.work_ticks;
	tessel_schedule *s = NULL;
	tsl_shown progress = {.dl = &fin_dl};
	tessel_graph_lower_bound(&progress.lower_bound, g, o.nmicros);
	fast_start fast = {g, &o, share, &dl, &fin_dl, &progress, NULL, {0}};
	tsl_after_first after = {start_fast, &fast};
	rc = tsl_search_graph(&s, g, &o, &dl, &fin_dl, &progress, o.work_ticks,
			      o.first_only ? NULL : &after, NULL);
	if (!rc && !o.first_only)
		rc = tsl_search_last_candidates(&s, g, &o, &dl, &fin_dl, &all,
						&progress, fast.job, &fast.first);
	else
		tsl_fast_abandon(fast.job);
	tessel_schedule_free(fast.first.s);
	/* (not once a progress callback asked to stop: the schedule as it
	 * stands) */
	if (!rc && !progress.halted && !tsl_options_cancelled(o.src) &&
	    !o.first_only)
		rc = tsl_published_candidates(&s, g, o.nmicros, &all);
	if (share) {
		share->work_spent = (meter.used + TSL_TICKS_PER_UNIT - 1) / TSL_TICKS_PER_UNIT;
		share->first_work = fast.first.ticks / TSL_TICKS_PER_UNIT;
	}
	if (rc) {
		tessel_schedule_free(s);
		return rc;
	}
	s->search_us = tsl_now_us() - dl.start_us;
	/* the repetend's steps as the entries now stand: the passes that
	 * moved entries after the repetend was labelled (windows, restarts,
	 * compaction) left it where it was, past the makespan at times */
	tsl_repetend_range(s);
	s->work = (meter.used + TSL_TICKS_PER_UNIT - 1) / TSL_TICKS_PER_UNIT;
	s->proof_work = meter.exempt / TSL_TICKS_PER_UNIT;
	/* the last report is the schedule returned (the improvements after
	 * a candidate was reported may have changed its period) */
	/* (a walk over every entry: only for a callback to tell) */
	int told = !progress.halted && tsl_progress_wanted(o.src);
	int64_t makespan = told ? tsl_schedule_makespan(s) : 0;
	if (told &&
	    (progress.makespan != makespan ||
	     progress.period != s->period || progress.k != (s->rep_k > 1 ? s->rep_k : 1) ||
	     progress.proven != s->period_optimal)) {
		progress.phase = "done";
		progress.period = s->period;
		progress.k = s->rep_k > 1 ? s->rep_k : 1;
		progress.makespan = makespan;
		progress.proven = s->period_optimal;
		tsl_shown_report(&progress, &o, 1); /* a stop asked for now changes nothing */
	}
	if (share)
		share->halted = progress.halted;
	*out = s;
	return TSL_OK;
}
