/* Z3 context, error handling and bounded checks for both encodings. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "solver.h"
#include "util.h"

/* Z3 reports errors through a handler; a context is used by one thread,
 * so a thread-local flag carries the first error back to the caller. */
static _Thread_local int z3_failed;
static _Thread_local Z3_error_code z3_code;
/* whether a check of this thread's current search ended at the memory cap */
static _Thread_local int z3_capped;

/* Z3's integer arithmetic tries a Gomory cut every so many branches
 * (its smt.arith.branch_cut_ratio, 2 by default). The cuts' rational
 * arithmetic is not in Z3's resource count, and on the models of groups of
 * micro-batches it took most of the time: a check that ran to 196,744
 * resource units took 1.5 to 2.4 s with the default (8 to 12 us a unit,
 * where a unit is about 1 us elsewhere) and 0.13 s at 8, with the same
 * answer. One cut in 8 branches keeps the count a measure of the time. */
#define TSL_Z3_BRANCH_CUT_RATIO 8

void tsl_z3_reset_capped(void)
{
	z3_capped = 0;
}

int tsl_z3_capped(void)
{
	return z3_capped;
}

static void on_z3_error(Z3_context ctx, Z3_error_code code)
{
	(void)ctx;
	if (!z3_failed) {
		z3_failed = 1;
		z3_code = code;
	}
}

static void interrupt_ctx(void *ctx)
{
	Z3_interrupt((Z3_context)ctx);
}

const char *tsl_z3_take_error(tsl_z3 *z)
{
	if (!z3_failed)
		return NULL;
	z3_failed = 0;
	return Z3_get_error_msg(z->ctx, z3_code);
}

int tsl_z3_open(tsl_z3 *z, const tsl_opts *opts)
{
	memset(z, 0, sizeof *z);
	z3_failed = 0;
	Z3_config cfg = Z3_mk_config();
	if (!cfg)
		return tsl_error(TESSEL_ESOLVER, "Z3: cannot create a configuration");
	Z3_set_param_value(cfg, "model", "true");
	z->ctx = Z3_mk_context(cfg);
	Z3_del_config(cfg);
	if (!z->ctx)
		return tsl_error(TESSEL_ESOLVER, "Z3: cannot create a context");
	Z3_set_error_handler(z->ctx, on_z3_error);
	z->opts = opts;
	z->isort = Z3_mk_int_sort(z->ctx);
	z->solver = Z3_mk_solver_for_logic(z->ctx, Z3_mk_string_symbol(z->ctx, "QF_LIA"));
	if (z3_failed || !z->solver || !z->isort) {
		z3_failed = 0;
		Z3_del_context(z->ctx);
		memset(z, 0, sizeof *z);
		return tsl_error(TESSEL_ESOLVER, "Z3: cannot create a solver");
	}
	Z3_solver_inc_ref(z->ctx, z->solver);
	z->watch.fn = interrupt_ctx;
	z->watch.ctx = z->ctx;
	tsl_options_watch(opts->src, &z->watch);
	return TSL_OK;
}

void tsl_z3_close(tsl_z3 *z)
{
	if (z->watch.ctx)
		tsl_options_unwatch(z->opts->src, &z->watch);
	if (z->solver)
		Z3_solver_dec_ref(z->ctx, z->solver);
	if (z->ctx)
		Z3_del_context(z->ctx);
	memset(z, 0, sizeof *z);
	z3_failed = 0;
}

static void set_uint(tsl_z3 *z, Z3_params p, const char *name, unsigned v)
{
	Z3_params_set_uint(z->ctx, p, Z3_mk_string_symbol(z->ctx, name), v);
}

/* The terms asserted since the last charge: Z3 takes them in now. */
static void charge_terms(tsl_z3 *z, const tsl_deadline *dl)
{
	tsl_charge_ticks(dl, tsl_terms_ticks(z->terms - z->terms_charged));
	z->terms_charged = z->terms;
}

void tsl_z3_push(tsl_z3 *z, const tsl_deadline *dl)
{
	charge_terms(z, dl);
	Z3_solver_push(z->ctx, z->solver);
}

uint64_t tsl_z3_work(tsl_z3 *z)
{
	Z3_stats st = Z3_solver_get_statistics(z->ctx, z->solver);
	if (!st)
		return 0;
	Z3_stats_inc_ref(z->ctx, st);
	uint64_t v = 0;
	for (unsigned i = 0; i < Z3_stats_size(z->ctx, st); i++) {
		const char *key = Z3_stats_get_key(z->ctx, st, i);
		if (!key || strcmp(key, "rlimit count") != 0)
			continue;
		if (Z3_stats_is_uint(z->ctx, st, i))
			v = Z3_stats_get_uint_value(z->ctx, st, i);
		else
			v = (uint64_t)Z3_stats_get_double_value(z->ctx, st, i);
	}
	Z3_stats_dec_ref(z->ctx, st);
	return v;
}

/* A cancel request reaches a running check through Z3_interrupt, which
 * only interrupts a check that has begun: one that comes between the
 * last look at the request and the check's start would be lost, and the
 * check would run to its bounds. So while a check of a cancellable search
 * runs, a guard thread interrupts it every few milliseconds once a cancel
 * is requested. */
typedef struct check_guard {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	Z3_context ctx;
	const tessel_options *src;
} check_guard;

#define TSL_GUARD_POLL_NS 5000000L /* 5 ms */

static void *guard_run(void *arg)
{
	check_guard *g = arg;
	pthread_mutex_lock(&g->lock);
	while (!g->done) {
		if (tsl_options_cancelled(g->src))
			Z3_interrupt(g->ctx);
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += TSL_GUARD_POLL_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		int rc = pthread_cond_timedwait(&g->cond, &g->lock, &ts);
		if (rc && rc != ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

/* Start the guard of a check (1), or run without one (0: not
 * cancellable, or no thread could be made: a cancel then reaches the
 * check through the watch only). */
static int guard_start(check_guard *g, pthread_t *tid, tsl_z3 *z)
{
	if (!z->opts->src)
		return 0;
	memset(g, 0, sizeof *g);
	g->ctx = z->ctx;
	g->src = z->opts->src;
	if (pthread_mutex_init(&g->lock, NULL))
		return 0;
	if (pthread_cond_init(&g->cond, NULL)) {
		pthread_mutex_destroy(&g->lock);
		return 0;
	}
	if (pthread_create(tid, NULL, guard_run, g)) {
		pthread_cond_destroy(&g->cond);
		pthread_mutex_destroy(&g->lock);
		return 0;
	}
	return 1;
}

static void guard_stop(check_guard *g, pthread_t tid)
{
	pthread_mutex_lock(&g->lock);
	g->done = 1;
	pthread_cond_signal(&g->cond);
	pthread_mutex_unlock(&g->lock);
	pthread_join(tid, NULL);
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}

/* The parameters of a check: the seed, the time and work left, the cut
 * ratio (`cuts`), Ctrl-C left to the caller, the memory cap. */
static void set_check_params(tsl_z3 *z, int64_t left, unsigned rlimit, int cuts)
{
	Z3_params p = Z3_mk_params(z->ctx);
	Z3_params_inc_ref(z->ctx, p);
	set_uint(z, p, "random_seed", (unsigned)z->opts->seed);
	set_uint(z, p, "timeout", left > UINT32_MAX - 1 ? UINT32_MAX - 1 : (unsigned)left);
	set_uint(z, p, "rlimit", rlimit);
	if (cuts)
		set_uint(z, p, "smt.arith.branch_cut_ratio", TSL_Z3_BRANCH_CUT_RATIO);
	/* Z3 would otherwise take over SIGINT during the check and swallow
	 * the caller's Ctrl-C: the caller's handler stays in place */
	Z3_params_set_bool(z->ctx, p, Z3_mk_string_symbol(z->ctx, "ctrl_c"), false);
	if (z->opts->solver_memory_mb > 0)
		set_uint(z, p, "max_memory", (unsigned)z->opts->solver_memory_mb);
	Z3_solver_set_params(z->ctx, z->solver, p);
	Z3_params_dec_ref(z->ctx, p);
}

int tsl_z3_check(tsl_z3 *z, const tsl_deadline *dl, unsigned rlimit,
		 unsigned n, const Z3_ast *assumptions)
{
	int64_t left = tsl_deadline_left_ms(dl);
	if (left <= 0 || tsl_options_cancelled(z->opts->src))
		return -1;
	/* the check gets at most the work left (tsl_ticks_per_rlimit ticks
	 * a resource unit), and is charged what it spent */
	int64_t per = tsl_ticks_per_rlimit(z->terms);
	int64_t work = tsl_work_left(dl);
	if (work != INT64_MAX)
		work /= per;
	if (work < UINT32_MAX - 1 && (rlimit == 0 || (uint64_t)work < rlimit))
		rlimit = work > 1 ? (unsigned)work : 1;
	uint64_t before = dl && dl->meter ? tsl_z3_work(z) : 0;
	/* what was asserted since the last check, taken in by this one */
	charge_terms(z, dl);
	/* a Z3 that does not know the cut ratio (another version than the
	 * one built against) rejects the parameters: then without it */
	int failed = z3_failed;
	set_check_params(z, left, rlimit, 1);
	if (z3_failed && !failed) {
		z3_failed = 0;
		set_check_params(z, left, rlimit, 0);
	}
	check_guard guard;
	pthread_t guard_tid;
	int guarded = guard_start(&guard, &guard_tid, z);
	Z3_lbool res = n ? Z3_solver_check_assumptions(z->ctx, z->solver, n, assumptions)
			 : Z3_solver_check(z->ctx, z->solver);
	if (guarded)
		guard_stop(&guard, guard_tid);
	if (dl && dl->meter) {
		uint64_t after = tsl_z3_work(z);
		tsl_charge_ticks(dl, after > before
				       ? (int64_t)(after - before) * per
				       : 0);
	}
	if (z3_failed) {
		z3_failed = 0;
		/* an interrupted check (time, cancel) or the memory cap is
		 * undecided; anything else a failure */
		const char *msg = Z3_get_error_msg(z->ctx, z3_code);
		if (z3_code == Z3_MEMOUT_FAIL) {
			z3_capped = 1;
			return -1;
		}
		if (z3_code == Z3_EXCEPTION && (tsl_deadline_left_ms(dl) <= 0 ||
						tsl_options_cancelled(z->opts->src)))
			return -1;
		/* the cap of TESSEL_OPT_SOLVER_MEMORY_MB ("max. memory
		 * exceeded") ends the check like a time limit */
		if (z3_code == Z3_EXCEPTION && z->opts->solver_memory_mb > 0 &&
		    msg && strstr(msg, "memory")) {
			z3_capped = 1;
			return -1;
		}
		return tsl_error(TESSEL_ESOLVER, "Z3 error during the search: %s", msg);
	}
	if (res == Z3_L_TRUE)
		return 1;
	if (res == Z3_L_FALSE)
		return 0;
	if (z->opts->solver_memory_mb > 0) {
		Z3_string why = Z3_solver_get_reason_unknown(z->ctx, z->solver);
		if (why && strstr(why, "memory"))
			z3_capped = 1;
		tsl_z3_take_error(z); /* a failed query of the reason */
	}
	return -1;
}

/* The starts of var[] in the model of a satisfied check, and the makespan
 * they give; 0 when some value cannot be read. */
static int read_starts(int64_t *out, int64_t *end, tsl_z3 *z, const Z3_ast *var,
		       const int64_t *span, size_t nvars, int64_t fixed_end)
{
	Z3_model mdl = Z3_solver_get_model(z->ctx, z->solver);
	if (!mdl)
		return 0;
	Z3_model_inc_ref(z->ctx, mdl);
	int ok = 1;
	*end = fixed_end;
	for (size_t i = 0; i < nvars && ok; i++) {
		Z3_ast v = NULL;
		int64_t t = 0;
		ok = Z3_model_eval(z->ctx, mdl, var[i], true, &v) && v &&
		     Z3_get_numeral_int64(z->ctx, v, &t);
		out[i] = t;
		if (ok && t + span[i] > *end)
			*end = t + span[i];
	}
	Z3_model_dec_ref(z->ctx, mdl);
	tsl_z3_take_error(z);
	return ok;
}

int tsl_z3_lower(int *improved, int64_t *best, int64_t *lo, int64_t *found,
		 tsl_z3 *z, Z3_ast makespan, const Z3_ast *var,
		 const int64_t *span, size_t nvars, int64_t fixed_end,
		 unsigned rlimit, int *checks_left, const tsl_deadline *dl)
{
	*improved = 0;
	int64_t *cand = tsl_calloc(nvars + 1, sizeof *cand);
	if (!cand)
		return tsl_error_nomem();
	int halving = 0;
	int64_t step = 1;
	while (*best > *lo && tsl_deadline_left_ms(dl) > 0 &&
	       !tsl_options_cancelled(z->opts->src) &&
	       (!checks_left || (*checks_left)-- > 0)) {
		int64_t target = halving ? *lo + (*best - 1 - *lo) / 2 : *best - step;
		if (target < *lo)
			target = *lo;
		tsl_z3_push(z, dl);
		tsl_z3_assert_le(z, makespan, tsl_z3_int(z, target));
		int res = tsl_z3_check(z, dl, rlimit, 0, NULL);
		int64_t end = INT64_MAX;
		if (res == 1 && !read_starts(cand, &end, z, var, span, nvars, fixed_end))
			res = -1;
		Z3_solver_pop(z->ctx, z->solver, 1);
		if (res == 0) {
			/* none ends by target: from now on at least target + 1 */
			*lo = target + 1;
			tsl_z3_assert_le(z, tsl_z3_int(z, *lo), makespan);
			halving = 1;
			continue;
		}
		if (res != 1 || end >= *best)
			break;
		memcpy(found, cand, nvars * sizeof *found);
		*best = end;
		*improved = 1;
		tsl_z3_assert_le(z, makespan, tsl_z3_int(z, *best - 1));
		step = step < (INT64_MAX >> 2) ? 2 * step : step;
	}
	tsl_free(cand);
	return TSL_OK;
}
