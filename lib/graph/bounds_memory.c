/* The memory terms of LB(N): idle time that a device's memory limit forces
 * at the start (warm-up) and at the end (cool-down) of every schedule.
 *
 * Memory on device d starts at 0 and changes by a block's delta when the
 * block starts; it never exceeds the limit M(d).
 *
 * Warm-up: no block that frees memory (delta < 0) starts before warm_at(d),
 * the smallest head among them. Every entry that starts earlier has
 * delta >= 0, and their deltas add up to at most M(d). So the busy time of d
 * before warm_at(d) is at most the best fractional knapsack of N copies of
 * each such block (value: its span, cut at warm_at(d) - head; weight: its
 * delta; capacity M(d)), and at most warm_at(d) - head(d). The rest of d's
 * N * load(d) steps come after warm_at(d) and end tail(d) steps before the
 * end: T >= warm_at(d) + N * load(d) - busy + tail(d).
 *
 * Cool-down, the same backwards: no block that takes memory (delta > 0)
 * starts later than T - cool_at(d), cool_at(d) the smallest span + tail
 * among them. The entries that start later free memory or leave it alone,
 * and the memory they free is at most M(d) minus the memory at the end,
 * N * (the deltas of one micro-batch on d). Their busy time, plus the steps
 * after T - cool_at(d) of the one block that may be running at that time
 * (any block v, at most min(span(v), cool_at(d) - tail(v)) steps), is at
 * most cool_at(d) - tail(d); the rest comes after head(d):
 * T >= head(d) + cool_at(d) + N * load(d) - busy.
 *
 * Both use only that every entry of a block v starts at head(v) or later
 * and finishes at T - tail(v) or earlier. head and tail count the
 * latencies of the dependencies on their paths (bounds.c), and a schedule
 * that honours the latencies meets both, so the terms hold with them. */
#include <stdint.h>
#include <stdlib.h>

#include "bounds_memory.h"
#include "error.h"
#include "util.h"

static int item_cmp(const void *pa, const void *pb)
{
	const tsl_mem_item *a = pa, *b = pb;
	/* higher value per unit of memory first; both products < 2^62 */
	int64_t l = a->value * b->weight, r = b->value * a->weight;
	if (l != r)
		return l > r ? -1 : 1;
	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	return 0;
}

/* One phase's items: blocks on d with a delta of the given sign (zero
 * deltas: their values summed into free_value[d] instead). */
static int build_phase(tsl_mem_phase *ph, const tsl_bounds *b,
		       const tessel_graph *g, int warm)
{
	int nd = g->ndevices;
	size_t total = (size_t)b->dev_start[nd];
	ph->start = tsl_calloc((size_t)nd + 1, sizeof *ph->start);
	ph->items = tsl_calloc(total ? total : 1, sizeof *ph->items);
	ph->free_value = tsl_calloc((size_t)nd, sizeof *ph->free_value);
	ph->at = tsl_calloc((size_t)nd, sizeof *ph->at);
	ph->over = tsl_calloc((size_t)nd, sizeof *ph->over);
	if (!ph->start || !ph->items || !ph->free_value || !ph->at || !ph->over)
		return tsl_error_nomem();
	int n = 0;
	for (int d = 0; d < nd; d++) {
		int lo = b->dev_start[d], hi = b->dev_start[d + 1];
		int64_t at = -1;
		for (int k = lo; k < hi; k++) {
			int v = b->dev_block[k];
			int m = g->blocks[v].memory;
			int64_t t = warm ? b->head[v] : b->span[v] + b->tail[v];
			if ((warm ? m < 0 : m > 0) && (at < 0 || t < at))
				at = t;
		}
		ph->at[d] = at;
		ph->start[d] = n;
		ph->over[d] = 0;
		for (int k = lo; at >= 0 && k < hi; k++) {
			int v = b->dev_block[k];
			int m = g->blocks[v].memory;
			if (!warm) { /* any block may run across T - cool_at */
				int64_t r = at - b->tail[v];
				r = b->span[v] < r ? b->span[v] : r;
				if (r > ph->over[d])
					ph->over[d] = r;
			}
			if (warm ? m < 0 : m > 0)
				continue;
			/* time of the block inside the phase's window */
			int64_t room = warm ? at - b->head[v] : at - b->tail[v];
			int64_t value = b->span[v] < room ? b->span[v] : room;
			if (value <= 0)
				continue;
			if (m == 0) {
				ph->free_value[d] += value;
				continue;
			}
			ph->items[n].value = value;
			ph->items[n].weight = m < 0 ? -(int64_t)m : m;
			n++;
		}
		qsort(ph->items + ph->start[d], (size_t)(n - ph->start[d]),
		      sizeof *ph->items, item_cmp);
	}
	ph->start[nd] = n;
	return TSL_OK;
}

void tsl_mem_phase_release(tsl_mem_phase *ph)
{
	tsl_free(ph->start);
	tsl_free(ph->items);
	tsl_free(ph->free_value);
	tsl_free(ph->at);
	tsl_free(ph->over);
}

int tsl_bounds_memory(tsl_bounds *b, const tessel_graph *g)
{
	int nd = g->ndevices;
	b->limit = tsl_calloc((size_t)nd, sizeof *b->limit);
	b->dev_mem = tsl_calloc((size_t)nd, sizeof *b->dev_mem);
	if (!b->limit || !b->dev_mem)
		return tsl_error_nomem();
	for (int d = 0; d < nd; d++) {
		b->limit[d] = g->memory_limit[d];
		for (int k = b->dev_start[d]; k < b->dev_start[d + 1]; k++)
			b->dev_mem[d] += g->blocks[b->dev_block[k]].memory;
	}
	int rc = build_phase(&b->warm, b, g, 1);
	return rc ? rc : build_phase(&b->cool, b, g, 0);
}

/* Most busy time of N copies of d's items with deltas adding up to at most
 * cap (fractional, so an upper bound on any real choice). */
static int64_t most_busy(const tsl_mem_phase *ph, int d, int64_t cap,
			 int64_t nmicros)
{
	int64_t busy = nmicros * ph->free_value[d];
	for (int i = ph->start[d]; i < ph->start[d + 1] && cap > 0; i++) {
		const tsl_mem_item *it = &ph->items[i];
		int64_t copies = cap / it->weight;
		if (copies >= nmicros) {
			busy += nmicros * it->value;
			cap -= nmicros * it->weight;
			continue;
		}
		busy += copies * it->value;
		cap -= copies * it->weight;
		/* cap < weight <= 10^9 and value <= 10^9: no overflow */
		busy += it->value * cap / it->weight;
		break;
	}
	return busy;
}

int64_t tsl_bounds_memory_lower(const tsl_bounds *b, int d, int64_t nmicros)
{
	int64_t best = 0, limit = b->limit[d], work = nmicros * b->load[d];
	if (limit == TESSEL_UNLIMITED || work == 0)
		return 0;
	int64_t at = b->warm.at[d];
	if (at >= 0) {
		int64_t busy = most_busy(&b->warm, d, limit, nmicros);
		if (busy > at - b->dev_head[d])
			busy = at - b->dev_head[d];
		if (busy < work && at + work - busy + b->dev_tail[d] > best)
			best = at + work - busy + b->dev_tail[d];
	}
	at = b->cool.at[d];
	if (at >= 0) {
		/* cap = limit - N * dev_mem, at least 0; INT64_MAX (no cap at
		 * all, never less than the real one) where it would overflow */
		int64_t m = b->dev_mem[d], cap;
		if (m > 0)
			cap = m > limit / nmicros ? 0 : limit - nmicros * m;
		else
			cap = -m > (INT64_MAX - limit) / nmicros ? INT64_MAX
								  : limit - nmicros * m;
		int64_t busy = most_busy(&b->cool, d, cap, nmicros) +
			       b->cool.over[d];
		if (busy > at - b->dev_tail[d])
			busy = at - b->dev_tail[d];
		if (busy < work && b->dev_head[d] + at + work - busy > best)
			best = b->dev_head[d] + at + work - busy;
	}
	return best;
}
