/* Search options: an opaque, enum-keyed set of bounded integers. */
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "options.h"
#include "util.h"

typedef struct option_spec {
	const char *name;
	int64_t min, max, def;
} option_spec;

static const option_spec specs[TSL_NOPTIONS] = {
	[TESSEL_OPT_MICRO_BATCHES] = {"micro-batches", 1, TESSEL_MAX_MICRO_BATCHES, 16},
	[TESSEL_OPT_TIME_LIMIT_MS] = {"time limit (ms)", 0, 86400000, 0},
	[TESSEL_OPT_THREADS] = {"threads", 0, 256, 0},
	[TESSEL_OPT_FAST] = {"fast", 0, 1, 0},
	[TESSEL_OPT_MAX_PERIOD] = {"max period", 0, (int64_t)1 << 40, 0},
	[TESSEL_OPT_SEED] = {"seed", 0, UINT32_MAX, 0},
	[TESSEL_OPT_MINIMIZE_DEPTH] = {"minimize depth", 0, 1, 1},
	[TESSEL_OPT_SOLVER_MEMORY_MB] = {"solver memory (MB)", 0, 1 << 30, 0},
	[TESSEL_OPT_REPETEND_MICRO_BATCHES] = {"repetend micro-batches", 1, 16, 8},
	[TESSEL_OPT_WORK_LIMIT] = {"work limit (units)", -1, 1000000000000,
				   TESSEL_WORK_AUTO},
	[TESSEL_OPT_ALTERNATIVES] = {"alternatives", 0, 2, 1},
};

static int check_key(tessel_option key)
{
	if ((int)key < 0 || (int)key >= TSL_NOPTIONS)
		return tsl_error(TESSEL_EINVAL, "unknown option key %d", (int)key);
	return TSL_OK;
}

TESSEL_API int tessel_options_new(tessel_options **out)
{
	TSL_CHECK_ARG(out, NULL, "out");
	*out = NULL;
	tessel_options *o = tsl_calloc(1, sizeof *o);
	if (!o)
		return tsl_error_nomem();
	if (pthread_mutex_init(&o->lock, NULL)) {
		tsl_free(o);
		return tsl_error(TESSEL_ERROR, "cannot create a mutex");
	}
	atomic_init(&o->cancelled, 0);
	tsl_options_defaults(o);
	*out = o;
	return TSL_OK;
}

void tsl_options_defaults(tessel_options *o)
{
	for (int k = 0; k < TSL_NOPTIONS; k++)
		o->value[k] = specs[k].def;
}

int tsl_options_derive(tessel_options **out, const tessel_options *o)
{
	int rc = tessel_options_new(out);
	if (rc || !o)
		return rc;
	tessel_options *c = *out;
	memcpy(c->value, o->value, sizeof c->value);
	c->progress = o->progress;
	c->progress_payload = o->progress_payload;
	c->progress_fn = o->progress_fn;
	c->progress_fn_payload = o->progress_fn_payload;
	c->source = o->source ? o->source : o;
	c->work_cap = o->work_cap;
	return TSL_OK;
}

/* The options whose cancellation o's is. */
static tessel_options *cancel_owner(const tessel_options *o)
{
	return (tessel_options *)(o && o->source ? o->source : o);
}

TESSEL_API void tessel_options_free(tessel_options *o)
{
	if (!o)
		return;
	pthread_mutex_destroy(&o->lock);
	tsl_free(o);
}

TESSEL_API int tessel_options_set_progress(tessel_options *o,
					   tessel_progress_cb cb, void *payload)
{
	TSL_CHECK_ARG(o, NULL, "options");
	o->progress = cb;
	o->progress_payload = cb ? payload : NULL;
	return TSL_OK;
}

TESSEL_API int tessel_options_set_progress_fn(tessel_options *o,
					      tessel_progress_fn fn,
					      void *payload)
{
	TSL_CHECK_ARG(o, NULL, "options");
	o->progress_fn = fn;
	o->progress_fn_payload = fn ? payload : NULL;
	return TSL_OK;
}

TESSEL_API int tessel_options_cancel(tessel_options *o)
{
	TSL_CHECK_ARG(o, NULL, "options");
	atomic_store(&o->cancelled, 1);
	pthread_mutex_lock(&o->lock);
	for (tsl_interrupt *it = o->running; it; it = it->next)
		it->fn(it->ctx);
	pthread_mutex_unlock(&o->lock);
	return TSL_OK;
}

TESSEL_API int tessel_options_clear_cancel(tessel_options *o)
{
	TSL_CHECK_ARG(o, NULL, "options");
	atomic_store(&o->cancelled, 0);
	return TSL_OK;
}

int tsl_options_cancelled(const tessel_options *co)
{
	tessel_options *o = cancel_owner(co);
	return o && atomic_load(&o->cancelled);
}

const atomic_int *tsl_options_stop_flag(const tessel_options *co)
{
	tessel_options *o = cancel_owner(co);
	return o ? &o->cancelled : NULL;
}

void tsl_options_watch(const tessel_options *co, tsl_interrupt *it)
{
	tessel_options *o = cancel_owner(co); /* the mutable part */
	if (!o)
		return;
	pthread_mutex_lock(&o->lock);
	it->next = o->running;
	o->running = it;
	if (atomic_load(&o->cancelled))
		it->fn(it->ctx);
	pthread_mutex_unlock(&o->lock);
}

void tsl_options_unwatch(const tessel_options *co, tsl_interrupt *it)
{
	tessel_options *o = cancel_owner(co);
	if (!o)
		return;
	pthread_mutex_lock(&o->lock);
	for (tsl_interrupt **p = &o->running; *p; p = &(*p)->next)
		if (*p == it) {
			*p = it->next;
			break;
		}
	pthread_mutex_unlock(&o->lock);
}

TESSEL_API int tessel_options_set(tessel_options *o, tessel_option key,
				  int64_t value)
{
	TSL_CHECK_ARG(o, NULL, "options");
	int rc = check_key(key);
	if (rc)
		return rc;
	const option_spec *s = &specs[key];
	if (value < s->min || value > s->max)
		return tsl_error(TESSEL_ERANGE,
				 "option %s must be %lld .. %lld, got %lld",
				 s->name, (long long)s->min, (long long)s->max,
				 (long long)value);
	o->value[key] = value;
	return TSL_OK;
}

TESSEL_API int tessel_options_get(int64_t *out, const tessel_options *o,
				  tessel_option key)
{
	TSL_CHECK_ARG(out, NULL, "out");
	TSL_CHECK_ARG(o, NULL, "options");
	int rc = check_key(key);
	if (rc)
		return rc;
	*out = o->value[key];
	return TSL_OK;
}

TESSEL_API int tessel_options_bounds(int64_t *out_min, int64_t *out_max,
				     tessel_option key)
{
	int rc = check_key(key);
	if (rc)
		return rc;
	if (out_min)
		*out_min = specs[key].min;
	if (out_max)
		*out_max = specs[key].max;
	return TSL_OK;
}
