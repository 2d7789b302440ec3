/* Stage: model. The memory-time choices of a schedule: what each instance
 * of a block with declared alternatives does with its activation (keep,
 * recompute, offload), the effect of a recompute on its backward's entry
 * (span and memory), the offloads' copies on the devices' copy channels and
 * the memory events they make. Contract: after tsl_schedule_choose the
 * entries' span_add and mem_add are exactly the sums their choices imply,
 * whatever order choices were made in. */
#include "schedule_alt.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "graph_alt.h"
#include "sort.h"
#include "util.h"

/* Undo (sign -1) or apply (sign 1) the effect of entry e's recompute. */
static void recompute_effect(tessel_schedule *s, struct tessel_entry *e,
			     int sign)
{
	const tsl_block *f = &s->graph->blocks[e->gid];
	struct tessel_entry *b = tsl_entry_at(s, f->rc_backward, e->mid);
	e->mem_add -= sign * f->rc_saves;
	b->mem_add += sign * f->rc_saves;
	b->span_add += sign * f->rc_extra;
}

int tsl_schedule_choose(tessel_schedule *s, int gid, int64_t mid, int choice,
			int64_t offload_start, int64_t reload_start)
{
	size_t n = (size_t)s->graph->nblocks * (size_t)s->nmicros;
	size_t at = (size_t)mid * (size_t)s->graph->nblocks + (size_t)gid;
	if (choice == TESSEL_CHOICE_OFFLOAD && !s->copies) {
		s->copies = tsl_reallocarray(NULL, n, 2 * sizeof *s->copies);
		if (!s->copies)
			return tsl_error_nomem();
		for (size_t i = 0; i < 2 * n; i++)
			s->copies[i] = -1;
	}
	struct tessel_entry *e = &s->entries[at];
	if (e->choice == TESSEL_CHOICE_RECOMPUTE)
		recompute_effect(s, e, -1);
	if (e->choice != TESSEL_CHOICE_KEEP)
		s->nchoices--;
	if (s->copies) {
		s->copies[2 * at] = -1;
		s->copies[2 * at + 1] = -1;
	}
	e->choice = (signed char)choice;
	if (choice == TESSEL_CHOICE_RECOMPUTE)
		recompute_effect(s, e, 1);
	if (choice == TESSEL_CHOICE_OFFLOAD) {
		s->copies[2 * at] = offload_start;
		s->copies[2 * at + 1] = reload_start;
	}
	if (choice != TESSEL_CHOICE_KEEP)
		s->nchoices++;
	return TSL_OK;
}

int64_t tsl_entry_copy_start(const tessel_schedule *s,
			     const struct tessel_entry *e, int reload)
{
	if (!s->copies || e->choice != TESSEL_CHOICE_OFFLOAD)
		return -1;
	size_t at = (size_t)e->mid * (size_t)s->graph->nblocks + (size_t)e->gid;
	return s->copies[2 * at + (reload ? 1 : 0)];
}

int64_t tsl_schedule_copies_end(const tessel_schedule *s)
{
	if (!s->copies)
		return 0;
	int64_t end = 0;
	size_t n = (size_t)s->graph->nblocks * (size_t)s->nmicros;
	for (size_t i = 0; i < n; i++) {
		const struct tessel_entry *e = &s->entries[i];
		if (e->choice != TESSEL_CHOICE_OFFLOAD)
			continue;
		int64_t t = s->graph->blocks[e->gid].of_transfer;
		for (int k = 0; k < 2; k++)
			if (s->copies[2 * i + k] >= 0 &&
			    s->copies[2 * i + k] + t > end)
				end = s->copies[2 * i + k] + t;
	}
	return end;
}

int tsl_alt_event_cmp(const void *pa, const void *pb)
{
	const tsl_alt_event *a = pa, *b = pb;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return (a->tie > b->tie) - (a->tie < b->tie);
}

int tsl_schedule_copy_peak(int64_t *out, const tessel_schedule *s, int d)
{
	const tessel_graph *g = s->graph;
	size_t nb = s->dev_off[d + 1] - s->dev_off[d];
	size_t cap = nb * (size_t)s->nmicros * 3 + 1, n = 0;
	tsl_alt_event *ev = tsl_reallocarray(NULL, cap, sizeof *ev);
	if (!ev)
		return tsl_error_nomem();
	for (size_t i = s->dev_off[d]; i < s->dev_off[d + 1]; i++) {
		int b = s->dev_list[i];
		const tsl_block *blk = &g->blocks[b];
		for (int64_t m = 0; m < s->nmicros; m++) {
			const struct tessel_entry *e = tsl_entry_at(s, b, m);
			int64_t tie = m * g->nblocks + b;
			if (e->start < 0)
				continue;
			ev[n++] = (tsl_alt_event){e->start, 1, tie,
					      tsl_entry_memory(s, e)};
			if (e->choice != TESSEL_CHOICE_OFFLOAD)
				continue;
			int64_t off = tsl_entry_copy_start(s, e, 0);
			int64_t rel = tsl_entry_copy_start(s, e, 1);
			if (off >= 0)
				ev[n++] = (tsl_alt_event){off + blk->of_transfer, 0,
						      tie, -blk->of_saves};
			if (rel >= 0)
				ev[n++] = (tsl_alt_event){rel, 2, tie,
						      blk->of_saves};
		}
	}
	/* (step, order, tie) as tsl_alt_event_cmp has it: order before the
	 * tie, an entry index below nblocks x nmicros */
	uint64_t span = (uint64_t)g->nblocks * (uint64_t)s->nmicros;
	tsl_sort_rec *r = tsl_reallocarray(NULL, n + 1, sizeof *r);
	int rc = r ? TSL_OK : tsl_error_nomem();
	for (size_t i = 0; !rc && i < n; i++)
		r[i] = (tsl_sort_rec){tsl_sort_key(ev[i].step),
				      (uint64_t)ev[i].order * span +
					      (uint64_t)ev[i].tie, i};
	if (!rc)
		rc = tsl_sort_recs(r, n);
	int64_t sum = 0, peak = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		sum += ev[r[i].at].delta;
		if (sum > peak)
			peak = sum;
	}
	tsl_free(r);
	tsl_free(ev);
	if (rc)
		return rc;
	*out = peak;
	return TSL_OK;
}

TESSEL_API int tessel_schedule_set_choice(tessel_schedule *s, int gid,
					  int64_t mid, tessel_choice choice,
					  int64_t offload_step,
					  int64_t reload_step)
{
	static const char fn[] = "tessel_schedule_set_choice";
	TSL_CHECK_ARG(s, fn, "schedule");
	if (gid < 0 || gid >= s->graph->nblocks)
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s: gid %d is out of range 0 .. %d", fn, gid,
				 s->graph->nblocks - 1);
	if (mid < 0 || mid >= s->nmicros)
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s: micro-batch %lld is out of range 0 .. %lld",
				 fn, (long long)mid, (long long)(s->nmicros - 1));
	const tsl_block *f = &s->graph->blocks[gid];
	if (choice != TESSEL_CHOICE_KEEP && choice != TESSEL_CHOICE_RECOMPUTE &&
	    choice != TESSEL_CHOICE_OFFLOAD)
		return tsl_error(TESSEL_EINVAL, "%s: unknown choice %d", fn,
				 (int)choice);
	if (!tsl_block_allows(f, choice))
		return tsl_error(TESSEL_EINVAL,
				 "%s: block \"%s\" declares no %s alternative",
				 fn, f->name, tessel_choice_name(choice));
	if (choice == TESSEL_CHOICE_OFFLOAD &&
	    (offload_step < 0 || offload_step > (int64_t)TESSEL_MAX_STEP ||
	     reload_step < 0 || reload_step > (int64_t)TESSEL_MAX_STEP))
		return tsl_error(TESSEL_ERANGE,
				 "%s: copy steps %lld, %lld of block \"%s\" are out of range 0 .. %lld",
				 fn, (long long)offload_step,
				 (long long)reload_step, f->name,
				 (long long)(int64_t)TESSEL_MAX_STEP);
	return tsl_schedule_choose(s, gid, mid, choice, offload_step,
				   reload_step);
}
