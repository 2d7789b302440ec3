/* Stage: the retiming of a schedule in its own order (tsl_retime_in_order),
 * used by the search over alternatives (alternatives.c: each variant of
 * the relaxation). Contract: every entry of s has a start; the items (the entries,
 * and an offload's two copies) are taken in the order their memory moves
 * (the start of an entry; the end of an offload's copy; the start of its
 * reload), ties by kind then entry index, and each is placed as early as
 * its dependencies (finish plus latency), the end of the reloads a
 * backward waits for, its devices' (or copy channels') last item and the
 * last memory move of its devices allow.
 * Every constraint is then on an item placed already, and the memory of
 * every device moves in the same order as before: a schedule whose order
 * is valid stays so (its copies' bounds aside: the caller validates). One
 * sort of the items and one pass: O(n log n), n the instances. */
#include "complete_retime.h"

#include <stdint.h>
#include <stdlib.h>

#include "error.h"
#include "sort.h"
#include "util.h"

/* An item of the retiming: an entry (kind 1) or one of its copies (kind
 * 0: the offload, whose memory moves when it ends; kind 2: the reload),
 * keyed by the step its memory moves at. */
typedef struct rt_item {
	int64_t event;
	int kind;
	size_t at;       /* entry index */
} rt_item;

/* The items of s in the order their memory moves (as the validator
 * counts them). */
static int items_of(rt_item **out, size_t *count, const tessel_schedule *s)
{
	size_t n = (size_t)s->graph->nblocks * (size_t)s->nmicros, k = 0;
	rt_item *it = tsl_reallocarray(NULL, 3 * n + 1, sizeof *it);
	tsl_sort_rec *r = tsl_reallocarray(NULL, 3 * n + 1, sizeof *r);
	int rc = it && r ? TSL_OK : tsl_error_nomem();
	/* by event, then kind, then entry index (tie: kind x n + index);
	 * made in the order of their ties (the offloads, the entries, the
	 * reloads), so that the sort needs no pass on them */
	for (size_t i = 0; !rc && i < n; i++) {
		const struct tessel_entry *e = &s->entries[i];
		if (e->choice == TESSEL_CHOICE_OFFLOAD)
			r[k++] = (tsl_sort_rec){tsl_sort_key(s->copies[2 * i] +
					     s->graph->blocks[e->gid].of_transfer), i, 0};
	}
	for (size_t i = 0; !rc && i < n; i++)
		r[k++] = (tsl_sort_rec){tsl_sort_key(s->entries[i].start), n + i, 1};
	for (size_t i = 0; !rc && i < n; i++)
		if (s->entries[i].choice == TESSEL_CHOICE_OFFLOAD)
			r[k++] = (tsl_sort_rec){tsl_sort_key(s->copies[2 * i + 1]),
						2 * n + i, 2};
	if (!rc)
		rc = tsl_sort_recs(r, k);
	for (size_t j = 0; !rc && j < k; j++) {
		size_t i = r[j].tie - (size_t)r[j].at * n;
		it[j] = (rt_item){tsl_sort_value(r[j].key), (int)r[j].at, i};
	}
	tsl_free(r);
	if (rc) {
		tsl_free(it);
		return rc;
	}
	*out = it;
	*count = k;
	return TSL_OK;
}

/* The blocks whose offload's reload a block's start waits for: those
 * of block b are from[at[b] .. at[b + 1]) (CSR over the blocks; both
 * NULL when no block declares an offload). */
typedef struct rt_reloads {
	int *at, *from;
} rt_reloads;

static int reloads_of(rt_reloads *r, const tessel_graph *g)
{
	int n = g->nblocks, count = 0;
	r->at = NULL;
	r->from = NULL;
	for (int b = 0; b < n; b++)
		count += g->blocks[b].of_backward >= 0;
	if (!count)
		return TSL_OK;
	r->at = tsl_calloc((size_t)n + 2, sizeof *r->at);
	r->from = tsl_calloc((size_t)count + 1, sizeof *r->from);
	if (!r->at || !r->from) {
		tsl_free(r->at);
		tsl_free(r->from);
		r->at = r->from = NULL;
		return tsl_error_nomem();
	}
	for (int b = 0; b < n; b++)
		if (g->blocks[b].of_backward >= 0)
			r->at[g->blocks[b].of_backward + 2]++;
	for (int b = 0; b < n; b++)
		r->at[b + 2] += r->at[b + 1];
	for (int b = 0; b < n; b++)
		if (g->blocks[b].of_backward >= 0)
			r->from[r->at[g->blocks[b].of_backward + 1]++] = b;
	return TSL_OK;
}

/* The earliest start of entry e: its dependencies, its devices, the end
 * of the reloads it waits for (placed already: a reload's memory moves at
 * its start, before the backward's) and the last memory event of its
 * devices. */
static int64_t entry_earliest(const tessel_schedule *s,
			      const struct tessel_entry *e, const int64_t *busy,
			      const int64_t *last, const rt_reloads *rl)
{
	const tessel_graph *g = s->graph;
	const tsl_block *b = &g->blocks[e->gid];
	int64_t t = 0;
	for (int j = 0; rl->at && s->copies && j < rl->at[e->gid + 1] - rl->at[e->gid]; j++) {
		int f = rl->from[rl->at[e->gid] + j];
		const struct tessel_entry *x = tsl_entry_at(s, f, e->mid);
		if (x->choice != TESSEL_CHOICE_OFFLOAD)
			continue;
		size_t at = (size_t)e->mid * (size_t)g->nblocks + (size_t)f;
		int64_t r = s->copies[2 * at + 1];
		if (r >= 0 && r + g->blocks[f].of_transfer > t)
			t = r + g->blocks[f].of_transfer;
	}
	for (int j = 0; j < b->ndeps; j++) {
		const struct tessel_entry *p = tsl_entry_at(s, b->deps[j], e->mid);
		int64_t r = p->start + tsl_entry_span(s, p) + tsl_dep_latency(g, b, j);
		t = r > t ? r : t;
	}
	for (int k = 0; k < b->ndevices; k++) {
		int d = b->devices[k];
		t = busy[d] > t ? busy[d] : t;
		t = last[d] > t ? last[d] : t;
	}
	return t;
}

/* Every block and copy as early as its dependencies, its device's (or
 * channel's) order and the order of the memory moves of its devices
 * allow, taken in that order (each constraint is then on an item placed
 * already): the memory moves in the same order on every device, so a
 * valid schedule stays valid but for its copies' bounds, which the
 * validator checks again. */
int tsl_retime_in_order(tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	size_t count = 0, nd = (size_t)g->ndevices;
	rt_item *it = NULL;
	int64_t *busy = tsl_calloc(3 * nd + 1, sizeof *busy);
	rt_reloads rl = {NULL, NULL};
	int rc = busy ? reloads_of(&rl, g) : tsl_error_nomem();
	if (!rc)
		rc = items_of(&it, &count, s);
	int64_t *chan = busy + nd, *last = busy + 2 * nd;
	for (size_t i = 0; !rc && i < count; i++) {
		struct tessel_entry *e = &s->entries[it[i].at];
		const tsl_block *b = &g->blocks[e->gid];
		int64_t t, tr = b->of_transfer, ev;
		if (it[i].kind == 1) {
			t = entry_earliest(s, e, busy, last, &rl);
			e->start = ev = t;
		} else {
			int64_t *c = &s->copies[2 * it[i].at + it[i].kind / 2];
			t = it[i].kind == 0 ? e->start + tsl_entry_span(s, e)
					    : s->copies[2 * it[i].at] + tr;
			for (int k = 0; k < b->ndevices; k++) {
				int d = b->devices[k];
				int64_t need = last[d] - (it[i].kind == 0 ? tr : 0);
				t = chan[d] > t ? chan[d] : t;
				t = need > t ? need : t;
			}
			*c = t;
			ev = it[i].kind == 0 ? t + tr : t;
		}
		for (int k = 0; k < b->ndevices; k++) {
			int d = b->devices[k];
			if (it[i].kind == 1)
				busy[d] = t + tsl_entry_span(s, e);
			else
				chan[d] = t + tr;
			last[d] = ev;
		}
	}
	tsl_free(busy);
	tsl_free(it);
	tsl_free(rl.at);
	tsl_free(rl.from);
	return rc;
}
