/* The memory sweep (tessel_search_sweep): the search under each of a list
 * of memory limits, whose makespans never grow with the limit. Built on
 * the search (tessel_search) and the validator: the limits are searched
 * from the tightest up; a schedule found under a tighter limit is valid
 * under every looser one and replaces a looser limit's result when
 * shorter, and a schedule found under a looser limit replaces a tighter
 * limit's result when it fits that limit and is shorter. Every result is
 * validated under its own limit before it is returned. A cancel, or a
 * progress callback asking to stop, ends the whole sweep: the search under
 * way keeps its best schedule so far and no looser limit is searched. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "options.h"
#include "schedule.h"
#include "tessel.h"
#include "util.h"

/* At most so many limits a sweep. */
#define TSL_SWEEP_MAX_LIMITS 1024
/* The largest memory limit (tessel_graph_set_memory_limit). */
#define TSL_SWEEP_MAX_LIMIT ((int64_t)1 << 50)

/* a before b: a tighter limit (TESSEL_UNLIMITED the loosest) */
static int tighter(int64_t a, int64_t b)
{
	if (a == TESSEL_UNLIMITED)
		return 0;
	return b == TESSEL_UNLIMITED || a < b;
}

/* A copy of g with every device's limit `limit`. */
static int graph_with_limit(tessel_graph **out, const tessel_graph *g,
			    int64_t limit)
{
	int rc = tessel_graph_dup(out, g);
	if (!rc)
		rc = tessel_graph_set_memory_limit(*out, TESSEL_ALL_DEVICES, limit);
	if (rc) {
		tessel_graph_free(*out);
		*out = NULL;
	}
	return rc;
}

/* s (a result under another limit) onto g, validated under g's limits:
 * *out the copy, with g's lower bound, or NULL when it breaks them.
 * `looser`: s was found under a looser limit, so a period proven minimal
 * there is minimal under g's too. TESSEL_ENOMEM, else TESSEL_OK. */
static int carry(tessel_schedule **out, const tessel_schedule *s,
		 const tessel_graph *g, int looser)
{
	int64_t lb = 0;
	*out = NULL;
	int rc = tsl_schedule_copy_onto(out, s, g);
	if (!rc)
		rc = tessel_schedule_validate(*out);
	if (!rc)
		rc = tessel_graph_lower_bound(&lb, g, s->nmicros);
	if (rc) {
		tessel_schedule_free(*out);
		*out = NULL;
		return rc == TESSEL_ENOMEM ? rc : TSL_OK;
	}
	(*out)->lower_bound = lb;
	(*out)->makespan_optimal = tsl_schedule_makespan(*out) <= lb;
	(*out)->period_optimal = looser && s->period_optimal;
	return TSL_OK;
}

/* res[u] replaced by `from` carried onto gs[u] when that is valid and
 * shorter (or res[u] is NULL). */
static int offer(tessel_schedule **res, const tessel_schedule *from,
		 const tessel_graph *g, int looser)
{
	if (!from || (*res && tsl_schedule_makespan(from) >= tsl_schedule_makespan(*res)))
		return TSL_OK;
	tessel_schedule *c = NULL;
	int rc = carry(&c, from, g, looser);
	if (!rc && c) {
		tessel_schedule_free(*res);
		*res = c;
	}
	return rc;
}

/* The caller's progress callbacks, called through the sweep's own so
 * that a stop one asks for ends the sweep, not only the search under
 * way (the searches of a sweep run one after the other on the calling
 * thread; atomic all the same, as a search's helpers never report). */
typedef struct sweep_progress {
	tessel_progress_cb cb;
	void *cb_payload;
	tessel_progress_fn fn;
	void *fn_payload;
	atomic_int stopped; /* a callback asked to stop */
} sweep_progress;

static int sweep_cb(int64_t period, int64_t makespan, int64_t lower_bound,
		    int period_proven, void *payload)
{
	sweep_progress *sp = payload;
	int stop = sp->cb(period, makespan, lower_bound, period_proven,
			  sp->cb_payload);
	if (stop)
		atomic_store(&sp->stopped, 1);
	return stop;
}

static int sweep_fn(const tessel_progress *p, void *payload)
{
	sweep_progress *sp = payload;
	int stop = sp->fn(p, sp->fn_payload);
	if (stop)
		atomic_store(&sp->stopped, 1);
	return stop;
}

/* own's callbacks (those of the caller's options) through sp. */
static void sweep_watch(tessel_options *own, sweep_progress *sp)
{
	sp->cb = own->progress;
	sp->cb_payload = own->progress_payload;
	sp->fn = own->progress_fn;
	sp->fn_payload = own->progress_fn_payload;
	atomic_init(&sp->stopped, 0);
	if (sp->cb) {
		own->progress = sweep_cb;
		own->progress_payload = sp;
	}
	if (sp->fn) {
		own->progress_fn = sweep_fn;
		own->progress_fn_payload = sp;
	}
}

/* The search under limit `limit` (its graph g) with the options' time
 * limit `cap` (ms, 0: none) of the whole sweep begun at start_us: an
 * equal share of the time left among the `left` searches still to run
 * (own: the options of that search, a derived copy). */
static int search_one(tessel_schedule **res, const tessel_graph *g,
		      tessel_options *own, sweep_progress *sp, int64_t cap,
		      int64_t start_us, size_t left, int64_t limit)
{
	/* a cancel, or a callback's stop, ends the searches: the looser
	 * limits keep what the tighter ones found */
	if (tsl_options_cancelled(own))
		return tsl_error(TESSEL_ECANCELLED, "the sweep was cancelled");
	if (atomic_load(&sp->stopped))
		return tsl_error(TESSEL_ECANCELLED,
				 "the sweep was stopped by its progress callback");
	if (cap) {
		int64_t time_left = cap - (tsl_now_us() - start_us) / 1000;
		if (time_left < (int64_t)left && limit == TESSEL_UNLIMITED)
			return tsl_error(TESSEL_ETIMEOUT,
					 "the sweep's time limit passed before the search "
					 "without a memory limit");
		if (time_left < (int64_t)left)
			return tsl_error(TESSEL_ETIMEOUT,
					 "the sweep's time limit passed before the search "
					 "under limit %lld", (long long)limit);
		int rc = tessel_options_set(own, TESSEL_OPT_TIME_LIMIT_MS,
					    time_left / (int64_t)left);
		if (rc)
			return rc;
	}
	return tessel_search(res, g, own);
}

/* The searches: results into res[0 .. n) for the distinct limits lim[]
 * (tightest first), their graphs into gs[]. *last: the error of the last
 * search that found nothing (TSL_OK: none). */
static int sweep(tessel_schedule **res, tessel_graph **gs, const int64_t *lim,
		 size_t n, const tessel_graph *graph,
		 const tessel_options *options, int *last)
{
	int64_t start_us = tsl_now_us();
	int64_t cap = options ? options->value[TESSEL_OPT_TIME_LIMIT_MS] : 0;
	tessel_options *own = NULL;
	sweep_progress sp;
	int rc = tsl_options_derive(&own, options);
	if (!rc)
		sweep_watch(own, &sp);
	*last = TSL_OK;
	for (size_t u = 0; u < n && !rc; u++) {
		rc = graph_with_limit(&gs[u], graph, lim[u]);
		if (rc)
			break;
		int src = search_one(&res[u], gs[u], own, &sp, cap, start_us,
				     n - u, lim[u]);
		if (src == TESSEL_EINFEASIBLE || src == TESSEL_ETIMEOUT ||
		    src == TESSEL_ECANCELLED)
			*last = src; /* none under this limit */
		else if (src)
			rc = src;
		if (!rc && u > 0)
			rc = offer(&res[u], res[u - 1], gs[u], 0);
	}
	tessel_options_free(own);
	/* a looser limit's schedule that fits a tighter one */
	for (size_t u = n - 1; u-- > 0 && !rc;)
		rc = offer(&res[u], res[u + 1], gs[u], 1);
	return rc;
}

TESSEL_API int tessel_search_sweep(tessel_schedule **out, const tessel_graph *graph,
				   const int64_t *limits, size_t nlimits,
				   const tessel_options *options)
{
	TSL_CHECK_ARG(out, "tessel_search_sweep", "out");
	if (nlimits < 1 || nlimits > TSL_SWEEP_MAX_LIMITS)
		return tsl_error(TESSEL_ERANGE,
				 "tessel_search_sweep: %zu limits (1 .. %d)", nlimits,
				 TSL_SWEEP_MAX_LIMITS);
	memset(out, 0, nlimits * sizeof *out);
	TSL_CHECK_ARG(limits, "tessel_search_sweep", "limits");
	for (size_t i = 0; i < nlimits; i++)
		if (limits[i] != TESSEL_UNLIMITED &&
		    (limits[i] < 0 || limits[i] > TSL_SWEEP_MAX_LIMIT))
			return tsl_error(TESSEL_ERANGE,
					 "tessel_search_sweep: limit %zu is %lld (0 .. 2^50, or "
					 "TESSEL_UNLIMITED)",
					 i, (long long)limits[i]);
	TSL_CHECK_ARG(graph, "tessel_search_sweep", "graph");
	/* (the graph is checked with each limit by its search: its own
	 * limits, which the sweep replaces, may be below what it needs) */
	int rc = TSL_OK;
	/* the limits in order, tightest first (insertion sort: n <= 1024),
	 * and the distinct ones */
	size_t *order = tsl_reallocarray(NULL, nlimits, sizeof *order);
	size_t *slot = tsl_reallocarray(NULL, nlimits, sizeof *slot);
	int64_t *lim = tsl_reallocarray(NULL, nlimits, sizeof *lim);
	tessel_schedule **res = tsl_calloc(nlimits, sizeof *res);
	tessel_graph **gs = tsl_calloc(nlimits, sizeof *gs);
	unsigned char *taken = NULL;
	if (!order || !slot || !lim || !res || !gs) {
		rc = tsl_error_nomem();
		goto done;
	}
	for (size_t i = 0; i < nlimits; i++) {
		size_t at = i;
		for (; at > 0 && tighter(limits[i], limits[order[at - 1]]); at--)
			order[at] = order[at - 1];
		order[at] = i;
	}
	size_t n = 0;
	for (size_t i = 0; i < nlimits; i++) {
		if (!n || lim[n - 1] != limits[order[i]])
			lim[n++] = limits[order[i]];
		slot[order[i]] = n - 1;
	}
	int last = TSL_OK;
	rc = sweep(res, gs, lim, n, graph, options, &last);
	int any = 0;
	for (size_t u = 0; u < n; u++)
		any |= res[u] != NULL;
	if (!rc && !any)
		rc = last; /* its message stands */
	/* each result to the first of its limits, a copy to the others
	 * (taken[u]: res[u] now belongs to out[]) */
	taken = tsl_calloc(n, 1);
	if (!rc && !taken)
		rc = tsl_error_nomem();
	for (size_t i = 0; i < nlimits && !rc; i++) {
		size_t u = slot[i];
		if (!res[u])
			continue;
		if (!taken[u]) {
			out[i] = res[u];
			taken[u] = 1;
		} else {
			rc = tsl_schedule_copy(&out[i], res[u]);
		}
	}
	for (size_t u = 0; taken && u < n; u++)
		if (taken[u])
			res[u] = NULL; /* (freed below with out[] on an error) */
	if (rc)
		for (size_t i = 0; i < nlimits; i++) {
			tessel_schedule_free(out[i]);
			out[i] = NULL;
		}
done:
	for (size_t u = 0; res && gs && u < nlimits; u++) {
		tessel_schedule_free(res[u]);
		tessel_graph_free(gs[u]);
	}
	tsl_free(taken);
	tsl_free(order);
	tsl_free(slot);
	tsl_free(lim);
	tsl_free(res);
	tsl_free(gs);
	return rc;
}
