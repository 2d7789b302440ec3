/* The limits of a search: counted work, the time limit and cancellation. */
#include "budget.h"

#include "util.h"

int tsl_deadline_hard_passed(const tsl_deadline *d)
{
	if (!d)
		return 0;
	/* a search that is a candidate only (must_end set) gives up its
	 * work that must be done at a stop too */
	if (d->must_end && d->stop && atomic_load(d->stop))
		return 1;
	return d->hard_us && tsl_now_us() >= d->hard_us;
}

int tsl_deadline_must_stop(const tsl_deadline *d)
{
	return d && (tsl_deadline_hard_passed(d) ||
		     (d->stop && atomic_load(d->stop)) ||
		     (d->must_end && tsl_work_counted(d) >= d->must_end));
}

int64_t tsl_deadline_left_ms(const tsl_deadline *d)
{
	if (!d)
		return INT64_MAX;
	if (d->stop && atomic_load(d->stop))
		return 0;
	if (d->meter && d->work_end &&
	    d->meter->used - d->meter->exempt >= d->work_end)
		return 0;
	if (!d->end_us)
		return INT64_MAX;
	int64_t left = (d->end_us - tsl_now_us()) / 1000;
	return left > 0 ? left : 0;
}

int tsl_deadline_time_passed(const tsl_deadline *d)
{
	if (!d)
		return 0;
	if (d->stop && atomic_load(d->stop))
		return 1;
	return d->end_us && tsl_now_us() >= d->end_us;
}

int64_t tsl_deadline_time_left_ms(const tsl_deadline *d)
{
	if (!d)
		return INT64_MAX;
	if (d->stop && atomic_load(d->stop))
		return 0;
	if (!d->end_us)
		return INT64_MAX;
	int64_t left = (d->end_us - tsl_now_us()) / 1000;
	return left > 0 ? left : 0;
}

void tsl_charge(const tsl_deadline *d, int64_t ticks)
{
	if (d && d->visit_weight > 16 && ticks > 0)
		ticks = ticks <= INT64_MAX / d->visit_weight
				? ticks * d->visit_weight / 16
				: INT64_MAX / 16;
	tsl_charge_ticks(d, ticks);
}

void tsl_charge_ticks(const tsl_deadline *d, int64_t ticks)
{
	if (d && d->meter && ticks > 0) {
		d->meter->used += ticks;
		if (d->exempt)
			d->meter->exempt += ticks;
	}
}

int64_t tsl_work_left(const tsl_deadline *d)
{
	if (!d || !d->meter || !d->work_end)
		return INT64_MAX;
	int64_t counted = d->meter->used - d->meter->exempt;
	return d->work_end > counted ? d->work_end - counted : 0;
}

int64_t tsl_work_used(const tsl_deadline *d)
{
	return d && d->meter ? d->meter->used : 0;
}

int64_t tsl_work_counted(const tsl_deadline *d)
{
	return d && d->meter ? d->meter->used - d->meter->exempt : 0;
}

int64_t tsl_work_end_after(const tsl_deadline *d, int64_t ticks)
{
	if (!d || !d->meter)
		return 0;
	int64_t end = ticks > 0 ? tsl_work_counted(d) + ticks : 0;
	if (d->work_end && (!end || d->work_end < end))
		end = d->work_end;
	return end;
}

