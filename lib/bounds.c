/* Bounds from the graph alone: resource bound, critical paths, LB(N). */
#include "bounds.h"

#include <string.h>

#include "error.h"
#include "util.h"

void tsl_bounds_release(tsl_bounds *b)
{
	tsl_free(b->topo);
	tsl_free(b->head);
	tsl_free(b->tail);
	tsl_free(b->load);
	tsl_free(b->dev_head);
	tsl_free(b->dev_tail);
	tsl_free(b->sync_head);
	tsl_free(b->sync_tail);
	tsl_free(b->sync_load);
	memset(b, 0, sizeof *b);
}

/* Paths that count only blocks not on every device. */
static int sync_bounds(tsl_bounds *b, const tessel_graph *g)
{
	int n = g->nblocks, nd = g->ndevices;
	int64_t *head = tsl_calloc((size_t)n, sizeof *head);
	int64_t *tail = tsl_calloc((size_t)n, sizeof *tail);
	if (!head || !tail) {
		tsl_free(head);
		tsl_free(tail);
		tsl_bounds_release(b);
		return tsl_error_nomem();
	}
#define SPAN2(v) (g->blocks[v].ndevices == nd ? 0 : g->blocks[v].span)
	for (int k = 0; k < n; k++) {
		int v = b->topo[k];
		for (int j = 0; j < g->blocks[v].ndeps; j++) {
			int p = g->blocks[v].deps[j];
			if (head[p] + SPAN2(p) > head[v])
				head[v] = head[p] + SPAN2(p);
		}
	}
	for (int k = n - 1; k >= 0; k--) {
		int v = b->topo[k];
		for (int j = 0; j < g->blocks[v].ndeps; j++) {
			int p = g->blocks[v].deps[j];
			if (tail[v] + SPAN2(v) > tail[p])
				tail[p] = tail[v] + SPAN2(v);
		}
	}
#undef SPAN2
	for (int d = 0; d < nd; d++) {
		b->sync_head[d] = -1;
		b->sync_tail[d] = -1;
	}
	for (int v = 0; v < n; v++) {
		const tsl_block *blk = &g->blocks[v];
		if (blk->ndevices == nd) {
			b->sync_span += blk->span;
			continue;
		}
		for (int k = 0; k < blk->ndevices; k++) {
			int d = blk->devices[k];
			b->sync_load[d] += blk->span;
			if (b->sync_head[d] < 0 || head[v] < b->sync_head[d])
				b->sync_head[d] = head[v];
			if (b->sync_tail[d] < 0 || tail[v] < b->sync_tail[d])
				b->sync_tail[d] = tail[v];
		}
	}
	tsl_free(head);
	tsl_free(tail);
	return TSL_OK;
}

int tsl_bounds_compute(tsl_bounds *b, const tessel_graph *g)
{
	int n = g->nblocks, nd = g->ndevices;
	memset(b, 0, sizeof *b);
	b->nblocks = n;
	b->ndevices = nd;
	b->topo = tsl_calloc((size_t)n, sizeof *b->topo);
	b->head = tsl_calloc((size_t)n, sizeof *b->head);
	b->tail = tsl_calloc((size_t)n, sizeof *b->tail);
	b->load = tsl_calloc((size_t)nd, sizeof *b->load);
	b->dev_head = tsl_calloc((size_t)nd, sizeof *b->dev_head);
	b->dev_tail = tsl_calloc((size_t)nd, sizeof *b->dev_tail);
	b->sync_head = tsl_calloc((size_t)nd, sizeof *b->sync_head);
	b->sync_tail = tsl_calloc((size_t)nd, sizeof *b->sync_tail);
	b->sync_load = tsl_calloc((size_t)nd, sizeof *b->sync_load);
	if (!b->topo || !b->head || !b->tail || !b->load || !b->dev_head ||
	    !b->dev_tail || !b->sync_head || !b->sync_tail || !b->sync_load) {
		tsl_bounds_release(b);
		return tsl_error_nomem();
	}
	int rc = tsl_graph_topo_order(b->topo, g);
	if (rc) {
		tsl_bounds_release(b);
		return rc;
	}
	/* head: longest path into each block (forward pass in topo order) */
	for (int k = 0; k < n; k++) {
		int v = b->topo[k];
		const tsl_block *blk = &g->blocks[v];
		int64_t h = 0;
		for (int j = 0; j < blk->ndeps; j++) {
			int p = blk->deps[j];
			int64_t e = b->head[p] + g->blocks[p].span;
			if (e > h)
				h = e;
		}
		b->head[v] = h;
	}
	/* tail: longest path after each block (backward pass) */
	for (int k = n - 1; k >= 0; k--) {
		int v = b->topo[k];
		const tsl_block *blk = &g->blocks[v];
		for (int j = 0; j < blk->ndeps; j++) {
			int p = blk->deps[j];
			int64_t t = b->tail[v] + blk->span;
			if (t > b->tail[p])
				b->tail[p] = t;
		}
	}
	for (int d = 0; d < nd; d++) {
		b->dev_head[d] = -1;
		b->dev_tail[d] = -1;
	}
	for (int v = 0; v < n; v++) {
		const tsl_block *blk = &g->blocks[v];
		int64_t cp = b->head[v] + blk->span + b->tail[v];
		if (cp > b->critical_path)
			b->critical_path = cp;
		b->total_span += blk->span;
		for (int k = 0; k < blk->ndevices; k++) {
			int d = blk->devices[k];
			b->load[d] += blk->span;
			if (b->dev_head[d] < 0 || b->head[v] < b->dev_head[d])
				b->dev_head[d] = b->head[v];
			if (b->dev_tail[d] < 0 || b->tail[v] < b->dev_tail[d])
				b->dev_tail[d] = b->tail[v];
		}
	}
	for (int d = 0; d < nd; d++)
		if (b->load[d] > b->resource_bound)
			b->resource_bound = b->load[d];
	return sync_bounds(b, g);
}

int64_t tsl_bounds_lower(const tsl_bounds *b, int64_t nmicros)
{
	int64_t lb = b->critical_path;
	for (int d = 0; d < b->ndevices; d++) {
		if (b->load[d] == 0)
			continue;
		int64_t v = b->dev_head[d] + nmicros * b->load[d] + b->dev_tail[d];
		if (v > lb)
			lb = v;
		if (b->sync_load[d] == 0)
			continue;
		v = nmicros * (b->sync_span + b->sync_load[d]) + b->sync_head[d] +
		    b->sync_tail[d];
		if (v > lb)
			lb = v;
	}
	return lb;
}
