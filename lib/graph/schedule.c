/* Schedules: creation, figures, peak memory, entries and iterators.
 *
 * A schedule is read-only once built: every reader (figures, iterators,
 * peaks) works on its own scratch memory, so a const schedule can be read
 * from several threads at once. */
#include "schedule.h"
#include "schedule_alt.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "util.h"

/* The limits of include/tessel.h; the largest start step keeps
 * start + span far from overflow. */
#define TSL_MAX_MICROS TESSEL_MAX_MICRO_BATCHES
#define TSL_MAX_ENTRIES TESSEL_MAX_ENTRIES
#define TSL_MAX_STEP ((int64_t)TESSEL_MAX_STEP)

/* ------------------------------------------------------------------------ */
/* Sort keys: (start, tie), tie encodes the rest of the order and the entry.  */
/* ------------------------------------------------------------------------ */

typedef struct sched_key {
	int64_t start;
	int64_t tie;
} sched_key;

static int key_less(const sched_key *a, const sched_key *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	return a->tie < b->tie;
}

/* Merge sort of a[0..n) using tmp (n keys). Skips merges of runs already in
 * order, so the nearly sorted arrays schedules give sort in about O(n). */
static void key_sort_rec(sched_key *a, sched_key *tmp, size_t n)
{
	if (n < 2)
		return;
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			sched_key k = a[i];
			size_t j = i;
			while (j > 0 && key_less(&k, &a[j - 1])) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = k;
		}
		return;
	}
	size_t half = n / 2;
	key_sort_rec(a, tmp, half);
	key_sort_rec(a + half, tmp, n - half);
	if (!key_less(&a[half], &a[half - 1]))
		return;
	memcpy(tmp, a, half * sizeof *a);
	size_t i = 0, j = half, k = 0;
	while (i < half && j < n) {
		if (key_less(&a[j], &tmp[i]))
			a[k++] = a[j++];
		else
			a[k++] = tmp[i++];
	}
	while (i < half)
		a[k++] = tmp[i++];
}

static int key_sort(sched_key *a, size_t n)
{
	if (n < 2)
		return TSL_OK;
	sched_key *tmp = tsl_reallocarray(NULL, n / 2 + 1, sizeof *tmp);
	if (!tmp)
		return tsl_error_nomem();
	key_sort_rec(a, tmp, n);
	tsl_free(tmp);
	return TSL_OK;
}

/* ------------------------------------------------------------------------ */
/* Blocks of each device (compressed rows: gids of device d are              */
/* list[off[d] .. off[d + 1]))                                               */
/* ------------------------------------------------------------------------ */

/* Build s->dev_off / s->dev_list from s->graph. */
static int dev_index_build(tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	size_t total = 0;
	for (int b = 0; b < g->nblocks; b++)
		total += (size_t)g->blocks[b].ndevices;
	s->dev_off = tsl_calloc((size_t)g->ndevices + 1, sizeof *s->dev_off);
	s->dev_list = tsl_reallocarray(NULL, total ? total : 1,
				       sizeof *s->dev_list);
	size_t *fill = tsl_calloc((size_t)g->ndevices + 1, sizeof *fill);
	if (!s->dev_off || !s->dev_list || !fill) {
		tsl_free(fill);
		return tsl_error_nomem(); /* the caller frees s */
	}
	for (int b = 0; b < g->nblocks; b++)
		for (int i = 0; i < g->blocks[b].ndevices; i++)
			s->dev_off[g->blocks[b].devices[i] + 1]++;
	for (int d = 0; d < g->ndevices; d++)
		s->dev_off[d + 1] += s->dev_off[d];
	for (int b = 0; b < g->nblocks; b++) {
		for (int i = 0; i < g->blocks[b].ndevices; i++) {
			int d = g->blocks[b].devices[i];
			s->dev_list[s->dev_off[d] + fill[d]++] = b;
		}
	}
	tsl_free(fill);
	return TSL_OK;
}

/* Sort the n keys and hand them to the caller (freed on failure). */
static int sorted_keys(sched_key **out, size_t *count, sched_key *keys,
		       size_t n)
{
	int rc = key_sort(keys, n);

	if (rc) {
		tsl_free(keys);
		return rc;
	}
	*out = keys;
	*count = n;
	return TSL_OK;
}

/* Placed entries of device d as keys (start, gid * nmicros + mid), sorted.
 * *out: new (tsl_free), *count its length. */
static int device_keys(sched_key **out, size_t *count,
		       const tessel_schedule *s, int d)
{
	size_t nb = s->dev_off[d + 1] - s->dev_off[d];
	size_t cap = nb * (size_t)s->nmicros;
	sched_key *keys = tsl_reallocarray(NULL, cap, sizeof *keys);
	if (!keys)
		return tsl_error_nomem();
	size_t n = 0;
	for (size_t i = s->dev_off[d]; i < s->dev_off[d + 1]; i++) {
		int gid = s->dev_list[i];
		for (int64_t m = 0; m < s->nmicros; m++) {
			const struct tessel_entry *e = tsl_entry_at(s, gid, m);
			if (e->start < 0)
				continue;
			keys[n].start = e->start;
			keys[n].tie = (int64_t)gid * s->nmicros + m;
			n++;
		}
	}
	return sorted_keys(out, count, keys, n);
}

/* All placed entries as keys ordered by (start, first device, gid, mid). */
static int all_keys(sched_key **out, size_t *count, const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	size_t cap = (size_t)g->nblocks * (size_t)s->nmicros;
	sched_key *keys = tsl_reallocarray(NULL, cap, sizeof *keys);
	if (!keys)
		return tsl_error_nomem();
	int64_t per_dev = (int64_t)g->nblocks * s->nmicros;
	size_t n = 0;
	for (size_t i = 0; i < cap; i++) {
		const struct tessel_entry *e = &s->entries[i];
		if (e->start < 0)
			continue;
		const tsl_block *b = &g->blocks[e->gid];
		int dev0 = b->ndevices > 0 ? b->devices[0] : 0;
		keys[n].start = e->start;
		keys[n].tie = dev0 * per_dev + (int64_t)e->gid * s->nmicros
			      + e->mid;
		n++;
	}
	return sorted_keys(out, count, keys, n);
}

/* ------------------------------------------------------------------------ */
/* Creation and release                                                       */
/* ------------------------------------------------------------------------ */

int tsl_schedule_alloc(tessel_schedule **out, const tessel_graph *g,
		       int64_t nmicros)
{
	return tsl_schedule_alloc_until(out, g, nmicros, NULL);
}

int tsl_schedule_alloc_until(tessel_schedule **out, const tessel_graph *g,
			     int64_t nmicros, const tsl_deadline *dl)
{
	TSL_CHECK_ARG(out, "schedule", "out");
	*out = NULL;
	TSL_CHECK_ARG(g, "schedule", "graph");
	if (nmicros < 1 || nmicros > TSL_MAX_MICROS)
		return tsl_error(TESSEL_ERANGE,
				 "schedule: nmicros %lld is out of range 1 .. %d",
				 (long long)nmicros, TSL_MAX_MICROS);
	if (g->nblocks < 0 || (int64_t)g->nblocks * nmicros > TSL_MAX_ENTRIES)
		return tsl_error(TESSEL_ERANGE,
				 "schedule: %d blocks x %lld micro-batches "
				 "exceeds %d entries",
				 g->nblocks, (long long)nmicros, TSL_MAX_ENTRIES);

	tessel_schedule *s = tsl_calloc(1, sizeof *s);
	if (!s)
		return tsl_error_nomem();
	int rc = tessel_graph_dup(&s->graph, g);
	if (rc) {
		tsl_free(s);
		return rc;
	}
	size_t n = (size_t)g->nblocks * (size_t)nmicros;
	s->entries = tsl_reallocarray(NULL, n, sizeof *s->entries);
	if (!s->entries) {
		tessel_schedule_free(s);
		return tsl_error_nomem();
	}
	rc = dev_index_build(s);
	if (rc) {
		tessel_schedule_free(s);
		return rc;
	}
	s->nmicros = nmicros;
	int64_t since = 0; /* entries since the clock was looked at */
	for (int64_t m = 0; m < nmicros; m++) {
		/* (the first touch of the entries: page faults, slow on a
		 * loaded machine) */
		since += g->nblocks;
		if (since >= 65536 && (since = 0, tsl_deadline_hard_passed(dl))) {
			tessel_schedule_free(s);
			return tsl_error(TESSEL_ETIMEOUT,
					 "time limit reached while allocating a schedule");
		}
		for (int b = 0; b < g->nblocks; b++) {
			struct tessel_entry *e = tsl_entry_at(s, b, m);
			e->sched = s;
			e->gid = b;
			e->phase = TESSEL_PHASE_REPETEND;
			e->mid = m;
			e->start = -1;
			e->choice = TESSEL_CHOICE_KEEP;
			e->span_add = 0;
			e->mem_add = 0;
		}
	}
	*out = s;
	return TSL_OK;
}

int tsl_schedule_copy(tessel_schedule **out, const tessel_schedule *s)
{
	return tsl_schedule_copy_onto(out, s, s->graph);
}

int tsl_schedule_copy_onto(tessel_schedule **out, const tessel_schedule *s,
			   const tessel_graph *g)
{
	tessel_schedule *c = NULL;
	if (g->nblocks != s->graph->nblocks || g->ndevices != s->graph->ndevices)
		return tsl_error(TESSEL_EINVAL,
				 "a schedule copied onto a graph of other blocks or devices");
	int rc = tsl_schedule_alloc(&c, g, s->nmicros);
	if (rc)
		return rc;
	size_t n = (size_t)s->graph->nblocks * (size_t)s->nmicros;
	for (size_t i = 0; i < n; i++) {
		c->entries[i].start = s->entries[i].start;
		c->entries[i].phase = s->entries[i].phase;
		c->entries[i].choice = s->entries[i].choice;
		c->entries[i].span_add = s->entries[i].span_add;
		c->entries[i].mem_add = s->entries[i].mem_add;
	}
	c->nchoices = s->nchoices;
	if (s->copies) {
		c->copies = tsl_reallocarray(NULL, n, 2 * sizeof *c->copies);
		if (!c->copies) {
			tessel_schedule_free(c);
			return tsl_error_nomem();
		}
		memcpy(c->copies, s->copies, n * 2 * sizeof *c->copies);
	}
	c->period = s->period;
	c->resource_bound = s->resource_bound;
	c->period_optimal = s->period_optimal;
	c->makespan_optimal = s->makespan_optimal;
	c->lower_bound = s->lower_bound;
	c->rep_begin = s->rep_begin;
	c->rep_end = s->rep_end;
	c->depth = s->depth;
	c->search_us = s->search_us;
	c->work = s->work;
	c->proof_work = s->proof_work;
	c->rep_k = s->rep_k;
	*out = c;
	return TSL_OK;
}

TESSEL_API int tessel_schedule_new(tessel_schedule **out,
				   const tessel_graph *graph, int64_t nmicros)
{
	TSL_CHECK_ARG(out, "tessel_schedule_new", "out");
	*out = NULL;
	TSL_CHECK_ARG(graph, "tessel_schedule_new", "graph");
	if (nmicros < 1 || nmicros > TSL_MAX_MICROS)
		return tsl_error(TESSEL_ERANGE,
				 "tessel_schedule_new: nmicros %lld is out of "
				 "range 1 .. %d", (long long)nmicros,
				 TSL_MAX_MICROS);
	int rc = tessel_graph_validate(graph);
	if (rc)
		return rc;
	return tsl_schedule_alloc(out, graph, nmicros);
}

TESSEL_API void tessel_schedule_free(tessel_schedule *schedule)
{
	if (!schedule)
		return;
	tessel_graph_free(schedule->graph);
	tsl_free(schedule->entries);
	tsl_free(schedule->dev_off);
	tsl_free(schedule->dev_list);
	tsl_free(schedule->copies);
	tsl_free(schedule);
}

/* Check gid and mid of a schedule; `fn` names the caller in messages. */
static int check_entry_args(const tessel_schedule *s, int gid, int64_t mid,
			   const char *fn)
{
	if (gid < 0 || gid >= s->graph->nblocks)
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s: gid %d is out of range 0 .. %d", fn, gid,
				 s->graph->nblocks - 1);
	if (mid < 0 || mid >= s->nmicros)
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s: micro-batch %lld is out of range 0 .. %lld",
				 fn, (long long)mid, (long long)(s->nmicros - 1));
	return TSL_OK;
}

TESSEL_API int tessel_schedule_set_step(tessel_schedule *schedule, int gid,
					int64_t mid, int64_t step)
{
	static const char fn[] = "tessel_schedule_set_step";
	TSL_CHECK_ARG(schedule, fn, "schedule");
	int rc = check_entry_args(schedule, gid, mid, fn);
	if (rc)
		return rc;
	if (step < 0 || step > TSL_MAX_STEP)
		return tsl_error(TESSEL_ERANGE,
				 "%s: step %lld of block '%s' micro-batch %lld "
				 "is out of range 0 .. %lld", fn, (long long)step,
				 schedule->graph->blocks[gid].name,
				 (long long)mid, (long long)TSL_MAX_STEP);
	tsl_entry_at(schedule, gid, mid)->start = step;
	return TSL_OK;
}

/* ------------------------------------------------------------------------ */
/* Figures                                                                    */
/* ------------------------------------------------------------------------ */

void tsl_schedule_to_origin(tessel_schedule *s)
{
	size_t n = (size_t)s->graph->nblocks * (size_t)s->nmicros;
	int64_t first = -1;
	for (size_t i = 0; i < n; i++)
		if (s->entries[i].start >= 0 &&
		    (first < 0 || s->entries[i].start < first))
			first = s->entries[i].start;
	if (first <= 0)
		return;
	for (size_t i = 0; i < n; i++) {
		if (s->entries[i].start >= 0)
			s->entries[i].start -= first;
		if (s->copies && s->entries[i].choice == TESSEL_CHOICE_OFFLOAD)
			for (int r = 0; r < 2; r++)
				if (s->copies[2 * i + r] >= first)
					s->copies[2 * i + r] -= first;
	}
	if (s->rep_end > 0) {
		s->rep_begin = s->rep_begin > first ? s->rep_begin - first : 0;
		s->rep_end = s->rep_end > first ? s->rep_end - first : 0;
	}
}

int64_t tsl_schedule_makespan(const tessel_schedule *s)
{
	int64_t end = 0;
	size_t n = (size_t)s->graph->nblocks * (size_t)s->nmicros;
	for (size_t i = 0; i < n; i++) {
		const struct tessel_entry *e = &s->entries[i];
		if (e->start < 0)
			continue;
		int64_t fin = e->start + tsl_entry_span(s, e);
		if (fin > end)
			end = fin;
	}
	int64_t copies = tsl_schedule_copies_end(s);
	return copies > end ? copies : end;
}

/* Peak of one device from its sorted keys: the running sum after all the
 * blocks starting at a step have applied their delta, at least 0. */
static int64_t keys_peak(const sched_key *keys, size_t n,
			 const tessel_schedule *s)
{
	int64_t sum = 0, peak = 0;
	for (size_t i = 0; i < n; i++) {
		int gid = (int)(keys[i].tie / s->nmicros);
		sum += tsl_entry_memory(s, tsl_entry_at(s, gid,
							 keys[i].tie % s->nmicros));
		if (i + 1 < n && keys[i + 1].start == keys[i].start)
			continue;
		if (sum > peak)
			peak = sum;
	}
	return peak;
}

/* An entry on device d is offloaded. */
static int device_offloads(const tessel_schedule *s, int d)
{
	for (size_t i = s->dev_off[d]; i < s->dev_off[d + 1]; i++)
		for (int64_t m = 0; m < s->nmicros; m++)
			if (tsl_entry_at(s, s->dev_list[i], m)->choice ==
			    TESSEL_CHOICE_OFFLOAD)
				return 1;
	return 0;
}

/* (with copies, by their events; without, by steps: the same peak for a
 * valid schedule, and one rule for a schedule with and without copies
 * made once, so that a schedule written and read back has its peaks) */
static int device_peak(int64_t *out, const tessel_schedule *s, int d)
{
	sched_key *keys = NULL;
	size_t n = 0;
	if (s->copies && device_offloads(s, d))
		return tsl_schedule_copy_peak(out, s, d);
	int rc = device_keys(&keys, &n, s, d);
	if (rc)
		return rc;
	*out = keys_peak(keys, n, s);
	tsl_free(keys);
	return TSL_OK;
}

int tsl_schedule_check_placed(const tessel_schedule *s, const char *fn)
{
	const tessel_graph *g = s->graph;
	size_t n = (size_t)g->nblocks * (size_t)s->nmicros;

	for (size_t i = 0; i < n; i++) {
		const struct tessel_entry *e = &s->entries[i];
		if (e->start >= 0)
			continue;
		return tsl_error(TESSEL_EINVAL,
				 "%s%sblock %d (\"%s\") of micro-batch %lld is not placed",
				 fn ? fn : "", fn ? ": " : "", e->gid,
				 g->blocks[e->gid].name, (long long)e->mid);
	}
	return TSL_OK;
}

int tsl_schedule_peaks(int64_t *peaks, const tessel_schedule *s)
{
	int rc = TSL_OK;
	for (int d = 0; d < s->graph->ndevices && !rc; d++)
		rc = device_peak(&peaks[d], s, d);
	return rc;
}

static int check_device(const tessel_schedule *s, int device, const char *fn)
{
	if (device < 0 || device >= s->graph->ndevices)
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s: device %d is out of range 0 .. %d", fn,
				 device, s->graph->ndevices - 1);
	return TSL_OK;
}

TESSEL_API int tessel_schedule_peak_memory(int64_t *out,
					   const tessel_schedule *schedule,
					   int device)
{
	static const char fn[] = "tessel_schedule_peak_memory";
	TSL_CHECK_ARG(out, fn, "out");
	TSL_CHECK_ARG(schedule, fn, "schedule");
	int rc = check_device(schedule, device, fn);
	if (rc)
		return rc;
	return device_peak(out, schedule, device);
}

static int figure_resource_bound(int64_t *out, const tessel_schedule *s)
{
	if (s->resource_bound) {
		*out = s->resource_bound;
		return TSL_OK;
	}
	return tessel_graph_get(out, s->graph, TESSEL_GRAPH_RESOURCE_BOUND);
}

static int figure_lower_bound(int64_t *out, const tessel_schedule *s)
{
	if (s->lower_bound) {
		*out = s->lower_bound;
		return TSL_OK;
	}
	return tessel_graph_lower_bound(out, s->graph, s->nmicros);
}

TESSEL_API int tessel_schedule_get(int64_t *out,
				   const tessel_schedule *schedule,
				   tessel_schedule_attr attr)
{
	static const char fn[] = "tessel_schedule_get";
	TSL_CHECK_ARG(out, fn, "out");
	TSL_CHECK_ARG(schedule, fn, "schedule");
	const tessel_schedule *s = schedule;
	int64_t v;
	switch (attr) {
	case TESSEL_SCHED_NDEVICES: v = s->graph->ndevices; break;
	case TESSEL_SCHED_NBLOCKS: v = s->graph->nblocks; break;
	case TESSEL_SCHED_NMICROS: v = s->nmicros; break;
	case TESSEL_SCHED_NENTRIES: v = s->graph->nblocks * s->nmicros; break;
	case TESSEL_SCHED_MAKESPAN: v = tsl_schedule_makespan(s); break;
	case TESSEL_SCHED_PERIOD: v = s->period; break;
	case TESSEL_SCHED_RESOURCE_BOUND: {
		int rc = figure_resource_bound(&v, s);
		if (rc)
			return rc;
		break;
	}
	case TESSEL_SCHED_PERIOD_OPTIMAL: v = s->period_optimal ? 1 : 0; break;
	case TESSEL_SCHED_MAKESPAN_OPTIMAL: v = s->makespan_optimal ? 1 : 0; break;
	case TESSEL_SCHED_LOWER_BOUND: {
		int rc = figure_lower_bound(&v, s);
		if (rc)
			return rc;
		break;
	}
	case TESSEL_SCHED_REPETEND_BEGIN: v = s->rep_begin; break;
	case TESSEL_SCHED_REPETEND_END: v = s->rep_end; break;
	case TESSEL_SCHED_DEPTH: v = s->depth; break;
	case TESSEL_SCHED_SEARCH_MICROSECONDS: v = s->search_us; break;
	case TESSEL_SCHED_WORK: v = s->work; break;
	case TESSEL_SCHED_PROOF_WORK: v = s->proof_work; break;
	case TESSEL_SCHED_REPETEND_MICRO_BATCHES: v = s->rep_k; break;
	default:
		return tsl_error(TESSEL_EINVAL, "%s: unknown attribute %d", fn,
				 (int)attr);
	}
	*out = v;
	return TSL_OK;
}

TESSEL_API int tessel_schedule_search_seconds(double *out,
					      const tessel_schedule *schedule)
{
	TSL_CHECK_ARG(out, "tessel_schedule_search_seconds", "out");
	if (!schedule)
		return tsl_error(TESSEL_EINVAL,
				 "tessel_schedule_search_seconds: schedule is "
				 "NULL");
	*out = (double)schedule->search_us / 1e6;
	return TSL_OK;
}

TESSEL_API int tessel_schedule_graph(const tessel_graph **out,
				     const tessel_schedule *schedule)
{
	TSL_CHECK_ARG(out, "tessel_schedule_graph", "out");
	*out = NULL;
	TSL_CHECK_ARG(schedule, "tessel_schedule_graph", "schedule");
	*out = schedule->graph;
	return TSL_OK;
}

/* ------------------------------------------------------------------------ */
/* Iterators                                                                  */
/* ------------------------------------------------------------------------ */

struct tessel_iter {
	const tessel_schedule *sched;
	sched_key *keys;   /* owned, sorted; tie % nmicros = mid, */
	size_t count;      /* (tie / nmicros) % nblocks = gid */
	size_t pos;
};

TESSEL_API int tessel_iter_new(tessel_iter **out,
			       const tessel_schedule *schedule, int device)
{
	static const char fn[] = "tessel_iter_new";
	TSL_CHECK_ARG(out, fn, "out");
	*out = NULL;
	TSL_CHECK_ARG(schedule, fn, "schedule");
	if (device != TESSEL_ALL_DEVICES) {
		int rc = check_device(schedule, device, fn);
		if (rc)
			return rc;
	}
	tessel_iter *it = tsl_calloc(1, sizeof *it);
	if (!it)
		return tsl_error_nomem();
	it->sched = schedule;
	int rc;
	if (device == TESSEL_ALL_DEVICES) {
		rc = all_keys(&it->keys, &it->count, schedule);
	} else {
		rc = device_keys(&it->keys, &it->count, schedule, device);
	}
	if (rc) {
		tsl_free(it);
		return rc;
	}
	*out = it;
	return TSL_OK;
}

TESSEL_API int tessel_iter_next(const tessel_entry **out, tessel_iter *iter)
{
	TSL_CHECK_ARG(out, "tessel_iter_next", "out");
	*out = NULL;
	TSL_CHECK_ARG(iter, "tessel_iter_next", "iter");
	if (iter->pos >= iter->count)
		return TESSEL_ITEROVER;
	const tessel_schedule *s = iter->sched;
	int64_t tie = iter->keys[iter->pos++].tie;
	int64_t mid = tie % s->nmicros;
	int gid = (int)((tie / s->nmicros) % s->graph->nblocks);
	*out = tsl_entry_at(s, gid, mid);
	return TSL_OK;
}

TESSEL_API void tessel_iter_free(tessel_iter *iter)
{
	if (!iter)
		return;
	tsl_free(iter->keys);
	tsl_free(iter);
}

TESSEL_API int tessel_schedule_foreach(const tessel_schedule *schedule,
				       int device, tessel_entry_cb cb,
				       void *payload)
{
	TSL_CHECK_ARG(schedule, "tessel_schedule_foreach", "schedule");
	TSL_CHECK_ARG(cb, "tessel_schedule_foreach", "cb");
	tessel_iter *it = NULL;
	int rc = tessel_iter_new(&it, schedule, device);
	if (rc)
		return rc;
	const tessel_entry *e;
	while (tessel_iter_next(&e, it) == TESSEL_OK) {
		rc = cb(e, payload);
		if (rc)
			break;
	}
	tessel_iter_free(it);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Entries                                                                    */
/* ------------------------------------------------------------------------ */

static const tsl_block *entry_block(const tessel_entry *e)
{
	return &e->sched->graph->blocks[e->gid];
}

TESSEL_API int tessel_entry_get(int64_t *out, const tessel_entry *entry,
				tessel_entry_attr attr)
{
	TSL_CHECK_ARG(out, "tessel_entry_get", "out");
	TSL_CHECK_ARG(entry, "tessel_entry_get", "entry");
	const tsl_block *b = entry_block(entry);
	int64_t v;
	switch (attr) {
	case TESSEL_ENTRY_GID: v = entry->gid; break;
	case TESSEL_ENTRY_MICRO_BATCH: v = entry->mid; break;
	case TESSEL_ENTRY_START: v = entry->start; break;
	case TESSEL_ENTRY_SPAN: v = tsl_entry_span(entry->sched, entry); break;
	case TESSEL_ENTRY_PHASE: v = entry->phase; break;
	case TESSEL_ENTRY_KIND: v = b->kind; break;
	case TESSEL_ENTRY_MEMORY: v = tsl_entry_memory(entry->sched, entry); break;
	case TESSEL_ENTRY_NDEVICES: v = b->ndevices; break;
	case TESSEL_ENTRY_CHOICE: v = entry->choice; break;
	case TESSEL_ENTRY_OFFLOAD_START:
	case TESSEL_ENTRY_RELOAD_START:
		v = tsl_entry_copy_start(entry->sched, entry,
					 attr == TESSEL_ENTRY_RELOAD_START);
		break;
	default:
		return tsl_error(TESSEL_EINVAL,
				 "tessel_entry_get: unknown attribute %d",
				 (int)attr);
	}
	*out = v;
	return TSL_OK;
}

TESSEL_API int tessel_entry_name(const char **out, const tessel_entry *entry)
{
	TSL_CHECK_ARG(out, "tessel_entry_name", "out");
	*out = NULL;
	TSL_CHECK_ARG(entry, "tessel_entry_name", "entry");
	*out = entry_block(entry)->name;
	return TSL_OK;
}

TESSEL_API int tessel_entry_device(int *out, const tessel_entry *entry,
				   size_t index)
{
	TSL_CHECK_ARG(out, "tessel_entry_device", "out");
	TSL_CHECK_ARG(entry, "tessel_entry_device", "entry");
	const tsl_block *b = entry_block(entry);
	if (index >= (size_t)b->ndevices)
		return tsl_error(TESSEL_ENOTFOUND,
				 "tessel_entry_device: index %zu is out of range "
				 "0 .. %d (block '%s')", index, b->ndevices - 1,
				 b->name);
	*out = b->devices[index];
	return TSL_OK;
}
