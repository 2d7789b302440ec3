/* Progress reports: the event a progress callback reads, and the call of
 * the callbacks. */
#include "progress.h"

#include "error.h"
#include "options.h"

TESSEL_API int tessel_progress_get(int64_t *out, const tessel_progress *p,
				   tessel_progress_attr attr)
{
	TSL_CHECK_ARG(out, "tessel_progress_get", "out");
	TSL_CHECK_ARG(p, "tessel_progress_get", "progress");
	switch (attr) {
	case TESSEL_PROGRESS_IMPROVED: *out = p->improved; break;
	case TESSEL_PROGRESS_PERIOD: *out = p->period; break;
	case TESSEL_PROGRESS_REPETEND_MICRO_BATCHES: *out = p->k; break;
	case TESSEL_PROGRESS_MAKESPAN: *out = p->makespan; break;
	case TESSEL_PROGRESS_LOWER_BOUND: *out = p->lower_bound; break;
	case TESSEL_PROGRESS_PERIOD_PROVEN: *out = p->proven; break;
	case TESSEL_PROGRESS_WORK: *out = p->work; break;
	case TESSEL_PROGRESS_WORK_LIMIT: *out = p->work_limit; break;
	case TESSEL_PROGRESS_MICROSECONDS: *out = p->us; break;
	default:
		return tsl_error(TESSEL_EINVAL, "tessel_progress_get: unknown attribute %d",
				 (int)attr);
	}
	return TSL_OK;
}

TESSEL_API int tessel_progress_phase(const char **out, const tessel_progress *p)
{
	TSL_CHECK_ARG(out, "tessel_progress_phase", "out");
	*out = NULL;
	TSL_CHECK_ARG(p, "tessel_progress_phase", "progress");
	*out = p->phase;
	return TSL_OK;
}

int tsl_progress_wanted(const tessel_options *o)
{
	return o && (o->progress_fn || o->progress);
}

int tsl_progress_report(const tessel_options *o, const tessel_progress *p)
{
	if (!o)
		return TSL_OK;
	if (o->progress_fn && o->progress_fn(p, o->progress_fn_payload))
		return tsl_error(TESSEL_ECANCELLED,
				 "the search was stopped by its progress callback");
	if (p->improved && o->progress &&
	    o->progress(p->period, p->makespan, p->lower_bound, p->proven,
			o->progress_payload))
		return tsl_error(TESSEL_ECANCELLED,
				 "the search was stopped by its progress callback");
	return TSL_OK;
}
