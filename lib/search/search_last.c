/* The last stage of a search of a placement as it stands
 * (tsl_search_last_candidates): the same placement searched without its
 * memory limits (phase "unlimited"), whose schedule is kept when it fits
 * them and is shorter: more memory never gives a longer schedule than
 * none; and, under the default budget, the search in heuristic mode
 * (phase "fast"), so that the default search is never longer than the
 * heuristic mode's. */
#include "search_last.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "error.h"
#include "options.h"
#include "search_graph.h"
#include "search_opts.h"
#include "util.h"
#include "validate.h"

static int has_memory_limit(const tessel_graph *g)
{
	for (int d = 0; d < g->ndevices; d++)
		if (g->memory_limit[d] != TESSEL_UNLIMITED)
			return 1;
	return 0;
}

/* More memory never yields a longer schedule: the same placement searched
 * without its limits (given as much work again as the search so far, at
 * least TSL_GROUP_MIN_TICKS, within the budget and the time limit) is a
 * candidate. *u is that schedule, NULL when none came in time. */
static int search_without_limits(tessel_schedule **u, const tessel_graph *g,
				 const tsl_opts *o, const tsl_deadline *dl,
				 const tsl_deadline *fin_dl)
{
	*u = NULL;
	int64_t spent = tsl_work_counted(fin_dl);
	int64_t share = spent > TSL_GROUP_MIN_TICKS ? spent : TSL_GROUP_MIN_TICKS;
	int64_t left = tsl_work_left(fin_dl);
	if (share > left)
		share = left; /* INT64_MAX without a budget */
	tsl_deadline dl2 = *dl, fin2 = *fin_dl;
	if (tsl_deadline_left_ms(&fin2) <= 0 || tsl_options_cancelled(o->src))
		return TSL_OK;
	/* its first schedule too gives up past its share (at least
	 * TSL_GROUP_MIN_TICKS): without the limits, list scheduling runs to
	 * its end where under them it stopped early (a 1 million instance
	 * placement on 512 devices under tight limits: 37,000 units there,
	 * about 1,000 in all before) */
	int64_t first = share > TSL_GROUP_MIN_TICKS ? share : TSL_GROUP_MIN_TICKS;
	dl2.must_end = fin2.must_end = tsl_work_counted(&dl2) + first;
	tessel_graph *free_g = NULL;
	int rc = tessel_graph_dup(&free_g, g);
	if (!rc)
		rc = tessel_graph_set_memory_limit(free_g, TESSEL_ALL_DEVICES,
						   TESSEL_UNLIMITED);
	if (!rc)
		rc = tsl_search_graph(u, free_g, o, &dl2, &fin2, NULL, share, NULL, NULL);
	tessel_graph_free(free_g);
	if (rc == TESSEL_ETIMEOUT || rc == TESSEL_ECANCELLED ||
	    rc == TESSEL_EINFEASIBLE) {
		tessel_schedule_free(*u);
		*u = NULL;
		return TSL_OK; /* nothing better in time */
	}
	return rc;
}

/* The schedule found without the limits, u (taken), replaces *s when it
 * passes the validator under g's limits and is shorter. */
static int keep_without_limits(tessel_schedule **s, tessel_schedule *u,
			       const tessel_graph *g, const tsl_deadline *fin_dl)
{
	int rc = TSL_OK;
	for (int d = 0; d < g->ndevices && !rc; d++)
		rc = tessel_graph_set_memory_limit(u->graph, d, g->memory_limit[d]);
	if (!rc && tsl_schedule_makespan(u) < tsl_schedule_makespan(*s) &&
	    tsl_schedule_check(u, fin_dl) == TSL_OK) {
		u->resource_bound = (*s)->resource_bound;
		u->lower_bound = (*s)->lower_bound;
		/* a period optimal without limits is optimal with them */
		u->makespan_optimal = tsl_schedule_makespan(u) <= u->lower_bound;
		tessel_schedule_free(*s);
		*s = u;
		u = NULL;
	}
	tessel_schedule_free(u);
	return rc;
}

/* Under the default budget the search is never longer than the heuristic
 * mode's: that search, with its own default budget (charged besides), is a
 * candidate too (the solver's phases share the budget differently and can
 * end a few steps above it). *u is that schedule, NULL when none came in
 * time or there is none to make (heuristic mode asked, or a budget of the
 * caller's). first (may be NULL): the search's first schedule, taken as
 * this one's (it is what this search would make first). */
static int search_heuristic_mode(tessel_schedule **u, const tessel_graph *g,
				 const tsl_opts *o, const tsl_deadline *dl,
				 const tsl_deadline *fin_dl, tsl_first *first)
{
	*u = NULL;
	if (o->fast || !o->work_auto || tsl_deadline_time_left_ms(fin_dl) <= 0 ||
	    tsl_options_cancelled(o->src))
		return TSL_OK;
	tsl_opts f = *o;
	f.fast = 1;
	tsl_search_auto_budget(&f, g);
	/* never more than the search beside it when its budget was capped
	 * (alternatives.c: the plans' default budgets in all) */
	if (o->work_capped && f.work_ticks > o->work_ticks)
		f.work_ticks = o->work_ticks;
	/* counted on a meter of its own from zero, as a search in heuristic
	 * mode alone counts (its phases' bounds are read off the meter), its
	 * own budget alone bounding it; charged to dl's meter after: what it
	 * does depends on no work counted before it */
	tsl_meter m = {0};
	tsl_deadline dl2 = *dl, fin2 = *fin_dl;
	dl2.work_end = fin2.work_end = 0;
	/* a candidate only: a stop ends even its work that must be done (a
	 * completion of a million instances went on for seconds after a
	 * cancel) */
	dl2.must_end = fin2.must_end = INT64_MAX;
	dl2.meter = fin2.meter = dl->meter ? &m : NULL;
	int rc = tsl_search_graph(u, g, &f, &dl2, &fin2, NULL, f.work_ticks, NULL, first);
	if (dl->meter) {
		dl->meter->used += m.used;
		dl->meter->exempt += m.exempt;
	}
	if (rc == TESSEL_ETIMEOUT || rc == TESSEL_ECANCELLED ||
	    rc == TESSEL_EINFEASIBLE) {
		tessel_schedule_free(*u);
		*u = NULL;
		return TSL_OK; /* nothing better in time */
	}
	return rc;
}

/* The search in heuristic mode on a thread of its own, started once the
 * search of the graph made its first schedule, unless that is optimal
 * (tsl_fast_begin): its deadlines carry a meter
 * of its own (from zero), so what it does depends on nothing done beside
 * it, and a stop flag of its own, set when its result is no longer wanted
 * (or the search was cancelled). */
struct tsl_fast_job {
	const tessel_graph *g;
	tsl_opts o;
	tsl_deadline dl, fin_dl;
	tsl_meter meter;
	atomic_int stop;
	atomic_int done;
	pthread_t tid;
	tessel_schedule *u;
	tsl_first first; /* the search's first schedule (s owned) */
	int rc;
	char msg[TSL_REASON_LEN];
};

static void *run_fast_job(void *arg)
{
	tsl_fast_job *j = arg;
	j->rc = search_heuristic_mode(&j->u, j->g, &j->o, &j->dl, &j->fin_dl, &j->first);
	if (j->rc)
		snprintf(j->msg, sizeof j->msg, "%s", tessel_error_last());
	atomic_store(&j->done, 1);
	return NULL;
}

tsl_fast_job *tsl_fast_begin(const tessel_graph *g, const tsl_opts *o,
			     const tsl_deadline *dl, const tsl_deadline *fin_dl,
			     tsl_first *first)
{
	if (o->fast || !o->work_auto || tsl_search_threads(o, 2) != 2 ||
	    tsl_deadline_time_left_ms(fin_dl) <= 0 || tsl_options_cancelled(o->src))
		return NULL;
	tsl_fast_job *j = tsl_calloc(1, sizeof *j);
	if (!j)
		return NULL; /* (then run after the others, on this thread) */
	j->g = g;
	j->o = *o;
	j->dl = *dl;
	j->fin_dl = *fin_dl;
	j->dl.meter = j->fin_dl.meter = dl->meter ? &j->meter : NULL;
	atomic_init(&j->stop, 0);
	atomic_init(&j->done, 0);
	j->dl.stop = j->fin_dl.stop = &j->stop;
	if (first)
		j->first = *first;
	if (pthread_create(&j->tid, NULL, run_fast_job, j)) {
		tsl_free(j);
		return NULL;
	}
	if (first)
		first->s = NULL;
	return j;
}

/* Wait for the job to end, passing a cancel on while it runs (its
 * deadlines stop at its own flag): looked at after 20 us, then twice as
 * long each time up to every millisecond; a job already told to stop is
 * only waited for. */
static void fast_join(tsl_fast_job *j, const tsl_opts *o)
{
	long ns = 20000;
	while (!atomic_load(&j->stop) && !atomic_load(&j->done)) {
		if (tsl_options_cancelled(o->src))
			atomic_store(&j->stop, 1);
		nanosleep(&(struct timespec){0, ns}, NULL);
		ns = ns < 500000 ? 2 * ns : 1000000;
	}
	pthread_join(j->tid, NULL);
}

void tsl_fast_abandon(tsl_fast_job *j)
{
	if (!j)
		return;
	atomic_store(&j->stop, 1);
	pthread_join(j->tid, NULL);
	tessel_schedule_free(j->u);
	tessel_schedule_free(j->first.s);
	tsl_free(j);
}

/* The work a job's own meter counted beyond `from`, charged to d's. */
static void charge_meter(const tsl_deadline *d, const tsl_meter *m,
			 const tsl_meter *from)
{
	if (!d->meter)
		return;
	d->meter->used += m->used - from->used;
	d->meter->exempt += m->exempt - from->exempt;
}

/* Stage: the two last candidates of a search, in this order: the
 * placement without its memory limits ("unlimited", when it has limits),
 * then the heuristic mode's search ("fast"), each kept when shorter;
 * neither once the schedule is optimal. With two threads the second was
 * started beside the search of the graph (fj, tsl_fast_begin), with a
 * meter of its own: it depends on nothing the search does, its work is
 * charged here, and it is dropped, work and all, when the schedule is
 * optimal, so the schedule and the work are those of the search and the
 * two run one after the other. A cancel or a progress callback that asks
 * to stop ends them with the schedule as it stands. */
int tsl_search_last_candidates(tessel_schedule **s, const tessel_graph *g,
			       const tsl_opts *o, const tsl_deadline *dl,
			       const tsl_deadline *fin_dl, const tsl_deadline *all,
			       tsl_shown *progress, tsl_fast_job *fj,
			       tsl_first *first)
{
	int rc = TSL_OK;
	int optimal = (*s)->makespan_optimal;
	int unlimited = has_memory_limit(g) && !optimal;
	if (unlimited)
		rc = tsl_shown_phase(progress, o, "unlimited");
	if (unlimited && !rc) {
		tsl_meter from = dl->meter ? *dl->meter : (tsl_meter){0};
		tsl_meter m = from;
		tsl_deadline d1 = *dl, a1 = *all;
		d1.meter = a1.meter = dl->meter ? &m : NULL;
		tessel_schedule *u = NULL;
		rc = search_without_limits(&u, g, o, &d1, &a1);
		charge_meter(dl, &m, &from);
		if (!rc && u)
			rc = keep_without_limits(s, u, g, all);
		else
			tessel_schedule_free(u);
	}
	if (!rc && !optimal)
		rc = tsl_shown_phase(progress, o, "fast");
	/* wanted as search_heuristic_mode would decide it now */
	int wanted = !rc && !(*s)->makespan_optimal;
	tessel_schedule *u = NULL;
	if (fj) {
		wanted = wanted && tsl_deadline_time_left_ms(fin_dl) > 0 &&
			 !tsl_options_cancelled(o->src);
		if (!wanted)
			atomic_store(&fj->stop, 1);
		fast_join(fj, o);
		if (wanted) {
			charge_meter(dl, &fj->meter, &(tsl_meter){0});
			if (fj->rc)
				rc = tsl_error(fj->rc, "%s", fj->msg);
			u = fj->u;
			fj->u = NULL;
		}
		tessel_schedule_free(fj->u);
		tessel_schedule_free(fj->first.s);
		tsl_free(fj);
	} else if (wanted) {
		rc = search_heuristic_mode(&u, g, o, dl, fin_dl, first);
	}
	if (!rc && u && tsl_schedule_makespan(u) < tsl_schedule_makespan(*s)) {
		tessel_schedule_free(*s);
		*s = u;
		u = NULL;
	}
	tessel_schedule_free(u);
	if (rc == TESSEL_ECANCELLED)
		rc = TSL_OK; /* the schedule as it stands */
	return rc;
}
