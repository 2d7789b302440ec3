/* The exploration of placements (tessel_explore_*, include/tessel.h;
 * doc/guide.md, "Exploring placements"), as a pipeline of named stages:
 *
 *   tessel_explore_new:  families (explore_family.c)
 *                        -> partition of the layers (explore_partition.c)
 *                        -> placements (explore_placement.c)
 *   tessel_explore_run:  schedule every candidate, `threads` at a time
 *                        (tessel_search, or the baseline orders of
 *                        explore_baseline.c) -> figures -> speedups -> rank
 *
 * A candidate's search gets its own options (one thread, its share of the
 * work budget, what is left of the time limit), so its result does not
 * depend on which thread runs it or when. */
#include "explore.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "explore_baseline.h"
#include "explore_family.h"
#include "explore_partition.h"
#include "explore_placement.h"
#include "graph.h"
#include "model.h"
#include "options.h"
#include "util.h"

#define MAX_THREADS 256

/* ------------------------------------------------------------------------ */
/* Building the candidates                                                    */
/* ------------------------------------------------------------------------ */

static void candidate_release(tsl_candidate *c)
{
	tsl_plan_release(&c->plan);
	tessel_graph_free(c->graph);
	tessel_schedule_free(c->sched);
	tsl_free(c->params);
	tsl_free(c->device_peak);
	c->graph = NULL;
	c->sched = NULL;
}

static void destroy(tessel_explore *ex)
{
	for (int i = 0; i < ex->n; i++)
		candidate_release(&ex->c[i]);
	for (int i = 0; ex->layer && i < ex->nlayers; i++)
		tsl_free(ex->layer[i]);
	tsl_free(ex->layer);
	tsl_free(ex->c);
	tsl_free(ex->rank);
	tsl_free(ex->name);
	tsl_free(ex->unit);
	tsl_free(ex->memory_unit);
	pthread_mutex_destroy(&ex->lock);
	pthread_mutex_destroy(&ex->report_lock);
	tsl_free(ex);
}

/* Stop a run and cancel its searches under way, as a cancel does. */
static void stop_searches(tessel_explore *ex)
{
	atomic_store(&ex->stop, 1);
	for (int i = 0; i < ex->n; i++)
		if (ex->c[i].opts)
			tessel_options_cancel(ex->c[i].opts);
}

int tsl_explore_acquire(tessel_explore *ex, const char *fn)
{
	if (atomic_fetch_or(&ex->busy, TSL_EXPLORE_BUSY) & TSL_EXPLORE_BUSY)
		return tsl_error(TESSEL_EINVAL,
				 "%s: the exploration is in use by another call", fn);
	/* no getter begins from here on; the ones reading end soon (they
	 * neither wait nor call back) */
	while (atomic_load(&ex->busy) >= TSL_EXPLORE_READER)
		sched_yield();
	return TSL_OK;
}

/* A getter (or tessel_explore_to_json) begins to read ex: TSL_OK (a call acquiring ex meanwhile
 * waits for tsl_explore_read_end), or TESSEL_EINVAL while a call uses it. */
int tsl_explore_read_begin(const tessel_explore *cex, const char *fn)
{
	tessel_explore *ex = (tessel_explore *)cex;
	int old = atomic_load(&ex->busy);
	do {
		if (old & TSL_EXPLORE_BUSY)
			return tsl_error(TESSEL_EINVAL,
					 "%s: the exploration is running (or in use by another call)",
					 fn);
	} while (!atomic_compare_exchange_weak(&ex->busy, &old,
					       old + TSL_EXPLORE_READER));
	return TSL_OK;
}

/* The getter ends: the last reader frees ex when a free was asked
 * meanwhile (as tsl_explore_release does for a call). */
void tsl_explore_read_end(const tessel_explore *cex)
{
	tessel_explore *ex = (tessel_explore *)cex;
	int old = atomic_fetch_sub(&ex->busy, TSL_EXPLORE_READER);
	if ((old & TSL_EXPLORE_FREE) && !(old & TSL_EXPLORE_BUSY) &&
	    old < 2 * TSL_EXPLORE_READER)
		destroy(ex);
}

int tsl_explore_release(tessel_explore *ex)
{
	/* (one atomic step against tessel_explore_free's: exactly one of
	 * the two sees the other's bit and frees) */
	if (atomic_fetch_and(&ex->busy, ~TSL_EXPLORE_BUSY) & TSL_EXPLORE_FREE) {
		destroy(ex);
		return 1;
	}
	return 0;
}

/* A free asked while a call (a run, tessel_explore_to_json) uses the
 * exploration, from that call's callback or from another thread, is left
 * to the call, which frees it as it ends; a run is stopped first, as a
 * cancel stops it. */
TESSEL_API void tessel_explore_free(tessel_explore *ex)
{
	if (!ex)
		return;
	if (atomic_load(&ex->busy) & TSL_EXPLORE_BUSY) {
		/* (until the FREE bit is set below no one else frees ex; the
		 * progress callback runs without the lock) */
		atomic_store(&ex->stop, 1);
		pthread_mutex_lock(&ex->lock);
		stop_searches(ex);
		pthread_mutex_unlock(&ex->lock);
	}
	int old = atomic_fetch_or(&ex->busy, TSL_EXPLORE_FREE);
	if ((old & (TSL_EXPLORE_BUSY | TSL_EXPLORE_FREE)) ||
	    old >= TSL_EXPLORE_READER)
		return; /* the call (or getter) under way frees it, or was
			 * asked already */
	destroy(ex);
}

/* tessel_explore_free was asked during the call under way. */
static int free_asked(const tessel_explore *ex)
{
	return atomic_load(&((tessel_explore *)ex)->busy) & TSL_EXPLORE_FREE;
}

/* The run is to stop: a callback asked, the caller's options were
 * cancelled, or the exploration is to be freed. */
static int stopping(const tessel_explore *ex)
{
	return atomic_load(&((tessel_explore *)ex)->stop) || free_asked(ex);
}

/* The model's figures and names the exploration keeps. */
static int copy_model(tessel_explore *ex, const tessel_model *m)
{
	ex->name = tsl_strdup(m->name);
	ex->unit = tsl_strdup(m->unit);
	ex->memory_unit = tsl_strdup(m->memory_unit);
	ex->layer = tsl_calloc((size_t)m->nlayers, sizeof *ex->layer);
	if (!ex->name || !ex->unit || !ex->memory_unit || !ex->layer)
		return tsl_error_nomem();
	ex->nlayers = m->nlayers;
	for (int i = 0; i < m->nlayers; i++)
		if (!(ex->layer[i] = tsl_strdup(m->layers[i].name)))
			return tsl_error_nomem();
	ex->devices = m->devices;
	ex->infer = m->infer;
	ex->micros = m->micros;
	ex->memory = m->memory;
	return TSL_OK;
}

/* Partition and place one candidate (its plan made). */
static int place(tsl_candidate *c, const tessel_model *m)
{
	c->time = c->peak = -1;
	c->params = tsl_calloc((size_t)m->devices, sizeof *c->params);
	c->device_peak = tsl_calloc((size_t)m->devices, sizeof *c->device_peak);
	if (!c->params || !c->device_peak)
		return tsl_error_nomem();
	c->plan.memory_unit = tsl_plan_memory_unit(&c->plan, m);
	int rc = tsl_partition(&c->plan, m);
	if (!rc && !c->plan.why[0])
		rc = tsl_plan_graph(&c->graph, c->params, &c->plan, m,
				    c->plan.why, sizeof c->plan.why);
	if (rc && rc != TESSEL_ENOMEM) { /* this family only */
		snprintf(c->plan.why, sizeof c->plan.why, "%s",
			 tessel_error_last());
		tessel_error_clear();
		rc = TSL_OK;
	}
	snprintf(c->why, sizeof c->why, "%s", c->plan.why);
	return rc;
}

TESSEL_API int tessel_explore_new(tessel_explore **out,
				  const tessel_model *model)
{
	TSL_CHECK_ARG(out, "tessel_explore_new", "out");
	*out = NULL;
	TSL_CHECK_ARG(model, "tessel_explore_new", "model");
	tessel_explore *ex = tsl_calloc(1, sizeof *ex);
	if (!ex)
		return tsl_error_nomem();
	pthread_mutex_init(&ex->lock, NULL);
	pthread_mutex_init(&ex->report_lock, NULL);
	int rc = copy_model(ex, model);
	tsl_plan *plans = NULL;
	int n = 0;
	if (!rc)
		rc = tsl_family_plans(&plans, &n, model);
	if (!rc) {
		ex->c = tsl_calloc((size_t)n, sizeof *ex->c);
		ex->rank = tsl_calloc((size_t)n, sizeof *ex->rank);
		if (!ex->c || !ex->rank)
			rc = tsl_error_nomem();
	}
	for (int i = 0; i < n; i++) {
		if (ex->c)
			ex->c[i].plan = plans[i];
		else
			tsl_plan_release(&plans[i]);
	}
	tsl_free(plans);
	if (ex->c)
		ex->n = n;
	for (int i = 0; i < ex->n && !rc; i++) {
		ex->rank[i] = i;
		rc = place(&ex->c[i], model);
	}
	if (rc) {
		destroy(ex);
		return rc;
	}
	*out = ex;
	return TSL_OK;
}

TESSEL_API int tessel_explore_set_progress(tessel_explore *ex,
					   tessel_explore_fn fn, void *payload)
{
	TSL_CHECK_ARG(ex, "tessel_explore_set_progress", "explore");
	int rc = tsl_explore_acquire(ex, "tessel_explore_set_progress");
	if (rc)
		return rc;
	ex->fn = fn;
	ex->payload = fn ? payload : NULL;
	tsl_explore_release(ex);
	return TSL_OK;
}

/* ------------------------------------------------------------------------ */
/* Running                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct run_ctx {
	tessel_explore *ex;
	const tessel_options *opts;
	int64_t work_share;       /* TESSEL_WORK_AUTO, 0 or units */
	int64_t end_us;           /* 0: no time limit */
	int total;
} run_ctx;

/* A candidate's own options: the caller's, with its micro-batches, one
 * thread, its work share and the time left. */
static int candidate_options(tessel_options **out, const run_ctx *r,
			     const tsl_candidate *c)
{
	tessel_options *o = NULL;
	int rc = tessel_options_new(&o);
	for (int k = 0; k < TSL_NOPTIONS && !rc && r->opts; k++)
		o->value[k] = r->opts->value[k];
	if (!rc) {
		o->value[TESSEL_OPT_MICRO_BATCHES] = c->plan.micros;
		o->value[TESSEL_OPT_THREADS] = 1;
		o->value[TESSEL_OPT_MAX_PERIOD] = 0;
		o->value[TESSEL_OPT_WORK_LIMIT] = r->work_share;
		o->value[TESSEL_OPT_TIME_LIMIT_MS] = 0;
		if (r->end_us) {
			int64_t left = (r->end_us - tsl_now_us()) / 1000;
			o->value[TESSEL_OPT_TIME_LIMIT_MS] = left > 1 ? left : 1;
		}
	}
	if (rc) {
		tessel_options_free(o);
		return rc;
	}
	*out = o;
	return TSL_OK;
}

/* The figures of a candidate with a schedule. */
static int figures(tessel_explore *ex, tsl_candidate *c)
{
	int64_t makespan = 0, work = 0;
	double step = 0;
	int rc = tessel_schedule_get(&makespan, c->sched, TESSEL_SCHED_MAKESPAN);
	if (!rc)
		rc = tessel_schedule_get(&work, c->sched, TESSEL_SCHED_WORK);
	if (!rc)
		rc = tessel_graph_step(&step, c->graph);
	double unit = c->plan.memory_unit;
	c->peak = 0;
	for (int d = 0; d < ex->devices && !rc; d++) {
		int64_t pk = 0;
		rc = tessel_schedule_peak_memory(&pk, c->sched, d);
		c->device_peak[d] = (double)pk * unit + c->params[d];
		if (c->device_peak[d] > c->peak)
			c->peak = c->device_peak[d];
	}
	c->time = (double)makespan * step;
	c->work = work;
	return rc;
}

/* Schedule one candidate: its search, or its baseline order. */
/* Whether a baseline is to stop: the run stops, or its time limit
 * passed. */
static int baseline_stop(void *arg)
{
	const run_ctx *r = arg;
	return stopping(r->ex) || (r->end_us && tsl_now_us() >= r->end_us);
}

static int schedule_one(run_ctx *r, tsl_candidate *c)
{
	tessel_explore *ex = r->ex;
	int64_t t0 = tsl_now_us();
	int rc;
	if (c->plan.mode != TSL_PLAN_SEARCH) {
		tsl_baseline_stop stop = {baseline_stop, r};
		rc = tsl_baseline_schedule(&c->sched, c->graph, &c->plan,
					   c->plan.micros, &stop, c->why,
					   sizeof c->why);
		/* a baseline that cannot be had is that candidate's reason,
		 * as a search's failure is: the others go on */
		if (rc == TESSEL_ECANCELLED)
			snprintf(c->why, sizeof c->why, "not searched: %s",
				 stopping(ex) ? "the exploration was stopped"
					      : "the time limit was reached");
		else if (rc && rc != TESSEL_ENOMEM)
			snprintf(c->why, sizeof c->why, "%s: %s",
				 tessel_strerror(rc), tessel_error_last());
		if (rc && rc != TESSEL_ENOMEM)
			rc = TSL_OK;
	} else {
		tessel_options *o = NULL;
		rc = candidate_options(&o, r, c);
		if (!rc) {
			pthread_mutex_lock(&ex->lock);
			c->opts = o;
			if (stopping(ex))
				tessel_options_cancel(o);
			pthread_mutex_unlock(&ex->lock);
			rc = tessel_search(&c->sched, c->graph, o);
			pthread_mutex_lock(&ex->lock);
			c->opts = NULL;
			pthread_mutex_unlock(&ex->lock);
			tessel_options_free(o);
		}
		if (rc && rc != TESSEL_ENOMEM) {
			snprintf(c->why, sizeof c->why, "%s: %s",
				 tessel_strerror(rc), tessel_error_last());
			rc = TSL_OK;
		}
	}
	if (!rc && c->sched)
		rc = figures(ex, c);
	c->seconds = (double)(tsl_now_us() - t0) / 1e6;
	return rc;
}

/* Candidate c is done: the progress callback hears it, one call at a
 * time, in the order of the counts, and not at all once the run stops
 * (the callback asked, a cancel, a free). The callback runs outside
 * ex->lock, which a cancel of the caller's options from within it takes
 * (cancel_all). */
static void report(run_ctx *r, tsl_candidate *c)
{
	tessel_explore *ex = r->ex;
	pthread_mutex_lock(&ex->report_lock);
	pthread_mutex_lock(&ex->lock);
	c->done = 1;
	size_t done = (size_t)++ex->finished;
	pthread_mutex_unlock(&ex->lock);
	int stop = 0;
	if (!stopping(ex) && ex->fn)
		stop = ex->fn(c->plan.family, c->time, c->work, c->why, done,
			      (size_t)r->total, ex->payload) != 0;
	/* (before the next report may begin: it is not called again) */
	if (stop)
		atomic_store(&ex->stop, 1);
	pthread_mutex_unlock(&ex->report_lock);
	if (stop || free_asked(ex)) {
		pthread_mutex_lock(&ex->lock);
		stop_searches(ex);
		pthread_mutex_unlock(&ex->lock);
	}
}

typedef struct worker {
	run_ctx *r;
	int rc;
	char msg[512];
} worker;

static void *work(void *arg)
{
	worker *w = arg;
	tessel_explore *ex = w->r->ex;
	for (;;) {
		pthread_mutex_lock(&ex->lock);
		int i = ex->next;
		while (i < ex->n && !ex->c[i].graph)
			i++;
		ex->next = i + 1;
		pthread_mutex_unlock(&ex->lock);
		if (i >= ex->n || w->rc)
			break;
		tsl_candidate *c = &ex->c[i];
		if (stopping(ex)) {
			snprintf(c->why, sizeof c->why, "not searched: the exploration was stopped");
		} else if (w->r->end_us && tsl_now_us() >= w->r->end_us) {
			snprintf(c->why, sizeof c->why, "not searched: the time limit was reached");
		} else {
			int rc = schedule_one(w->r, c);
			if (rc) {
				w->rc = rc;
				snprintf(w->msg, sizeof w->msg, "%s", tessel_error_last());
			}
		}
		report(w->r, c);
	}
	return NULL;
}

/* The cancel of the caller's options: stop, and cancel every search. */
static void cancel_all(void *ctx)
{
	tessel_explore *ex = ctx;
	atomic_store(&ex->stop, 1);
	pthread_mutex_lock(&ex->lock);
	stop_searches(ex);
	pthread_mutex_unlock(&ex->lock);
}

static int threads_for(const tessel_options *o, int jobs)
{
	long n = o ? (long)o->value[TESSEL_OPT_THREADS] : 0;
	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if (n > jobs)
		n = jobs;
	return n > MAX_THREADS ? MAX_THREADS : (int)(n < 1 ? 1 : n);
}

/* Schedule every candidate with a placement, `threads` at a time. */
static int schedule_all(run_ctx *r)
{
	tessel_explore *ex = r->ex;
	int nt = threads_for(r->opts, r->total);
	worker w[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	int started[MAX_THREADS] = {0};
	for (int t = 0; t < nt; t++)
		w[t] = (worker){r, TSL_OK, ""};
	tsl_interrupt it = {cancel_all, ex, NULL};
	tsl_options_watch(r->opts, &it);
	for (int t = 1; t < nt; t++)
		started[t] = pthread_create(&tid[t], NULL, work, &w[t]) == 0;
	work(&w[0]);
	for (int t = 1; t < nt; t++)
		if (started[t])
			pthread_join(tid[t], NULL);
	tsl_options_unwatch(r->opts, &it);
	(void)ex;
	for (int t = 0; t < nt; t++)
		if (w[t].rc)
			return tsl_error(w[t].rc, "%s", w[t].msg);
	return TSL_OK;
}

/* Speedups over the baselines. */
static void speedups(tessel_explore *ex)
{
	double t1 = -1, tg = -1;
	for (int i = 0; i < ex->n; i++) {
		const tsl_candidate *c = &ex->c[i];
		if (c->plan.mode == TSL_PLAN_1F1B ||
		    (ex->infer && c->plan.mode == TSL_PLAN_GPIPE))
			t1 = c->time;
		if (c->plan.mode == TSL_PLAN_GPIPE && !ex->infer)
			tg = c->time;
	}
	for (int i = 0; i < ex->n; i++) {
		tsl_candidate *c = &ex->c[i];
		c->speedup_1f1b = c->time > 0 && t1 > 0 ? t1 / c->time : 0;
		c->speedup_gpipe = c->time > 0 && tg > 0 ? tg / c->time : 0;
	}
}

/* Rank: by time, ties and the candidates without a schedule in family
 * order. */
static void rank(tessel_explore *ex)
{
	int k = 0;
	for (int i = 0; i < ex->n; i++)
		if (ex->c[i].time >= 0)
			ex->rank[k++] = i;
	for (int a = 1; a < k; a++) { /* insertion sort: stable, n small */
		int x = ex->rank[a], b = a;
		while (b > 0 && ex->c[ex->rank[b - 1]].time > ex->c[x].time) {
			ex->rank[b] = ex->rank[b - 1];
			b--;
		}
		ex->rank[b] = x;
	}
	for (int i = 0; i < ex->n; i++)
		if (ex->c[i].time < 0)
			ex->rank[k++] = i;
}

/* Back to the state after tessel_explore_new. */
static void reset(tessel_explore *ex)
{
	for (int i = 0; i < ex->n; i++) {
		tsl_candidate *c = &ex->c[i];
		tessel_schedule_free(c->sched);
		c->sched = NULL;
		c->time = c->peak = -1;
		c->speedup_1f1b = c->speedup_gpipe = 0;
		c->seconds = 0;
		c->work = 0;
		c->done = 0;
		snprintf(c->why, sizeof c->why, "%s", c->plan.why);
		ex->rank[i] = i;
	}
	ex->ran = 0;
	ex->next = ex->finished = 0;
	atomic_store(&ex->stop, 0);
}

/* The result code when no candidate has a schedule. */
static int none_found(const tessel_explore *ex, const tessel_options *o)
{
	if (tsl_options_cancelled(o) || stopping(ex))
		return tsl_error(TESSEL_ECANCELLED,
				 "the exploration was cancelled before any candidate had a schedule");
	for (int i = 0; i < ex->n; i++)
		if (strstr(ex->c[i].why, "time limit"))
			return tsl_error(TESSEL_ETIMEOUT,
					 "the time limit was reached before any candidate had a schedule");
	/* the reason of the first family searched (or else of the first
	 * family to search, not a baseline, whose placement could not be
	 * made for a reason other than its shape, "needs ...", or of the
	 * first with a placement, or of the first): what kept it from a
	 * schedule, be it memory or not */
	int first = -1;
	for (int i = 0; i < ex->n && first < 0; i++)
		if (ex->c[i].graph && ex->c[i].plan.mode == TSL_PLAN_SEARCH &&
		    ex->c[i].why[0])
			first = i;
	for (int i = 0; i < ex->n && first < 0; i++)
		if (!ex->c[i].graph && ex->c[i].why[0] &&
		    ex->c[i].plan.mode == TSL_PLAN_SEARCH &&
		    strncmp(ex->c[i].why, "needs ", 6) != 0)
			first = i;
	for (int i = 0; i < ex->n && first < 0; i++)
		if (ex->c[i].graph && ex->c[i].why[0])
			first = i;
	for (int i = 0; i < ex->n && first < 0; i++)
		if (ex->c[i].why[0])
			first = i;
	if (first >= 0)
		return tsl_error(TESSEL_EINFEASIBLE,
				 "no placement family has a schedule for the model on %d devices with %g %s each; %s: %.300s (tessel explore lists why for each)",
				 ex->devices, ex->memory, ex->memory_unit,
				 ex->c[first].plan.family, ex->c[first].why);
	return tsl_error(TESSEL_EINFEASIBLE,
			 "no placement family fits the model on %d devices with %g %s each (tessel explore lists why for each)",
			 ex->devices, ex->memory, ex->memory_unit);
}

static int run(tessel_explore *ex, const tessel_options *opts)
{
	reset(ex);
	run_ctx r = {ex, opts, TESSEL_WORK_AUTO, 0, 0};
	int searched = 0;
	for (int i = 0; i < ex->n; i++)
		if (ex->c[i].graph) {
			r.total++;
			searched += ex->c[i].plan.mode == TSL_PLAN_SEARCH;
		}
	int64_t work = opts ? opts->value[TESSEL_OPT_WORK_LIMIT] : TESSEL_WORK_AUTO;
	if (work > 0)
		r.work_share = work / (searched ? searched : 1) > 0
			       ? work / (searched ? searched : 1) : 1;
	else
		r.work_share = work;
	int64_t limit = opts ? opts->value[TESSEL_OPT_TIME_LIMIT_MS] : 0;
	if (limit > 0)
		r.end_us = tsl_now_us() + limit * 1000;
	int rc = r.total ? schedule_all(&r) : TSL_OK;
	if (rc)
		return rc;
	speedups(ex);
	rank(ex);
	ex->ran = 1;
	return ex->c[ex->rank[0]].time >= 0 ? TSL_OK : none_found(ex, opts);
}

TESSEL_API int tessel_explore_run(tessel_explore *ex,
				  const tessel_options *options)
{
	TSL_CHECK_ARG(ex, "tessel_explore_run", "explore");
	int rc = tsl_explore_acquire(ex, "tessel_explore_run");
	if (rc)
		return rc;
	rc = run(ex, options);
	if (tsl_explore_release(ex))
		rc = tsl_error(TESSEL_ECANCELLED,
			       "tessel_explore_run: the exploration was freed "
			       "(tessel_explore_free) while it ran");
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Reading the results                                                        */
/* ------------------------------------------------------------------------ */

/* Candidate `index` in rank order, or an error. */
static int at(const tsl_candidate **out, const tessel_explore *ex,
	      size_t index, const char *fn)
{
	*out = NULL;
	TSL_CHECK_ARG(ex, fn, "explore");
	if (index >= (size_t)ex->n)
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s: candidate %zu out of range (%d candidates)",
				 fn, index, ex->n);
	int rc = tsl_explore_read_begin(ex, fn);
	if (rc)
		return rc;
	*out = &ex->c[ex->rank[index]];
	return TSL_OK;
}

/* The end of a getter that at() let read (c not NULL). */
static int read_done(const tessel_explore *ex, const tsl_candidate *c, int rc)
{
	if (c)
		tsl_explore_read_end(ex);
	return rc;
}

TESSEL_API int tessel_explore_count(size_t *out, const tessel_explore *ex)
{
	TSL_CHECK_ARG(out, "tessel_explore_count", "out");
	*out = 0;
	TSL_CHECK_ARG(ex, "tessel_explore_count", "explore");
	*out = (size_t)ex->n;
	return TSL_OK;
}

TESSEL_API int tessel_explore_family(const char **out,
				     const tessel_explore *ex, size_t index)
{
	TSL_CHECK_ARG(out, "tessel_explore_family", "out");
	const tsl_candidate *c;
	int rc = at(&c, ex, index, "tessel_explore_family");
	*out = c ? c->plan.family : NULL;
	return read_done(ex, c, rc);
}

TESSEL_API int tessel_explore_reason(const char **out,
				     const tessel_explore *ex, size_t index)
{
	TSL_CHECK_ARG(out, "tessel_explore_reason", "out");
	const tsl_candidate *c;
	int rc = at(&c, ex, index, "tessel_explore_reason");
	*out = c ? c->why : NULL;
	return read_done(ex, c, rc);
}

static double widest(const tsl_plan *p)
{
	int w = 0;
	for (int s = 0; s < p->nstages; s++)
		if (p->stages[s].ndev > w)
			w = p->stages[s].ndev;
	return w;
}

/* Figure `attr` of candidate c: TSL_OK, or TESSEL_EINVAL. */
static int figure(double *out, const tsl_candidate *c, tessel_explore_attr attr)
{
	const tsl_plan *p = &c->plan;
	switch (attr) {
	case TESSEL_EXPLORE_TIME: *out = c->time; return TSL_OK;
	case TESSEL_EXPLORE_PEAK_MEMORY: *out = c->peak; return TSL_OK;
	case TESSEL_EXPLORE_SPEEDUP_1F1B: *out = c->speedup_1f1b; return TSL_OK;
	case TESSEL_EXPLORE_SPEEDUP_GPIPE: *out = c->speedup_gpipe; return TSL_OK;
	case TESSEL_EXPLORE_STAGES: *out = c->graph ? p->nstages : 0; return TSL_OK;
	case TESSEL_EXPLORE_CHUNKS: *out = p->chunks; return TSL_OK;
	case TESSEL_EXPLORE_TENSOR_PARALLEL: *out = widest(p); return TSL_OK;
	case TESSEL_EXPLORE_REPLICAS: *out = p->replicas; return TSL_OK;
	case TESSEL_EXPLORE_MICRO_BATCHES: *out = (double)p->micros; return TSL_OK;
	case TESSEL_EXPLORE_BASELINE: *out = p->mode != TSL_PLAN_SEARCH; return TSL_OK;
	case TESSEL_EXPLORE_WORK: *out = (double)c->work; return TSL_OK;
	case TESSEL_EXPLORE_SECONDS: *out = c->seconds; return TSL_OK;
	}
	return tsl_error(TESSEL_EINVAL, "tessel_explore_get: unknown attribute %d",
			 (int)attr);
}

TESSEL_API int tessel_explore_get(double *out, const tessel_explore *ex,
				  size_t index, tessel_explore_attr attr)
{
	TSL_CHECK_ARG(out, "tessel_explore_get", "out");
	*out = 0;
	const tsl_candidate *c;
	int rc = at(&c, ex, index, "tessel_explore_get");
	if (!rc)
		rc = figure(out, c, attr);
	return read_done(ex, c, rc);
}

TESSEL_API int tessel_explore_device_memory(double *out,
					    const tessel_explore *ex,
					    size_t index, int device)
{
	TSL_CHECK_ARG(out, "tessel_explore_device_memory", "out");
	*out = -1;
	const tsl_candidate *c;
	int rc = at(&c, ex, index, "tessel_explore_device_memory");
	if (!rc && (device < 0 || device >= ex->devices))
		rc = tsl_error(TESSEL_ENOTFOUND,
			       "tessel_explore_device_memory: device %d out of range (%d devices)",
			       device, ex->devices);
	else if (!rc)
		*out = c->sched ? c->device_peak[device] : -1;
	return read_done(ex, c, rc);
}

TESSEL_API int tessel_explore_graph(const tessel_graph **out,
				    const tessel_explore *ex, size_t index)
{
	TSL_CHECK_ARG(out, "tessel_explore_graph", "out");
	*out = NULL;
	const tsl_candidate *c;
	int rc = at(&c, ex, index, "tessel_explore_graph");
	if (!rc && !c->graph)
		rc = tsl_error(TESSEL_ENOTFOUND, "%s: %s", c->plan.family, c->why);
	else if (!rc)
		*out = c->graph;
	return read_done(ex, c, rc);
}

TESSEL_API int tessel_explore_schedule(const tessel_schedule **out,
				       const tessel_explore *ex, size_t index)
{
	TSL_CHECK_ARG(out, "tessel_explore_schedule", "out");
	*out = NULL;
	const tsl_candidate *c;
	int rc = at(&c, ex, index, "tessel_explore_schedule");
	if (!rc && !c->sched)
		rc = tsl_error(TESSEL_ENOTFOUND, "%s: %s", c->plan.family,
			       c->why[0] ? c->why : "not run yet (tessel_explore_run)");
	else if (!rc)
		*out = c->sched;
	return read_done(ex, c, rc);
}
