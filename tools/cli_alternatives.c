/* tessel search --recompute / --offload: declare a memory-time alternative
 * on every forward block of a placement that has none.
 *
 * SPDX-License-Identifier: MIT
 *
 * Built only on the public API. A forward block (positive memory) is paired
 * with its backward: the backward block of the same stage on the same
 * devices that depends on it, or without stages the last such backward
 * (the one that releases the activation in a pipeline's V). The recompute
 * drops the whole activation (saves = its memory) and runs the forward
 * again (extra = its span); the offload moves the whole activation, each
 * copy taking the given steps.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tessel.h"

static int64_t block_figure(const tessel_graph *g, int gid, tessel_block_attr a)
{
	int64_t v = 0;
	tessel_graph_block_get(&v, g, gid, a);
	return v;
}

/* Whether blocks a and b occupy the same devices. */
static int same_devices(const tessel_graph *g, int a, int b)
{
	int64_t n = block_figure(g, a, TESSEL_BLOCK_NDEVICES);
	if (n != block_figure(g, b, TESSEL_BLOCK_NDEVICES))
		return 0;
	for (size_t i = 0; i < (size_t)n; i++) {
		int da = -1, db = -1;
		tessel_graph_block_device(&da, g, a, i);
		tessel_graph_block_device(&db, g, b, i);
		if (da != db)
			return 0;
	}
	return 1;
}

/* The walks over the dependencies: marks stamped per walk (no clearing
 * between walks) and each block's level (1 + the largest of its
 * dependencies'), by which a walk back from `to` leaves out every block
 * that cannot have `from` among its dependencies. */
struct walk {
	int n;
	int *mark, stamp;
	int *stack;
	int *level;
	int *start, *succ; /* successors, compressed rows */
	int *desc, dstamp; /* the descendants of one block (descend) */
};

static int walk_init(struct walk *w, const tessel_graph *g, int n)
{
	memset(w, 0, sizeof *w);
	w->n = n;
	w->mark = calloc((size_t)n + 1, sizeof *w->mark);
	w->stack = calloc((size_t)n + 1, sizeof *w->stack);
	w->level = calloc((size_t)n + 1, sizeof *w->level);
	w->desc = calloc((size_t)n + 1, sizeof *w->desc);
	int *left = calloc((size_t)n + 1, sizeof *left);  /* deps not levelled */
	int *start = calloc((size_t)n + 2, sizeof *start); /* successors, rows */
	int *succ = NULL;
	int rc = w->mark && w->stack && w->level && w->desc && left && start
		 ? 0 : TESSEL_ENOMEM;
	size_t edges = 0;
	for (int v = 0; v < n && !rc; v++) {
		int64_t nd = block_figure(g, v, TESSEL_BLOCK_NDEPS);
		left[v] = (int)nd;
		for (int64_t j = 0; j < nd; j++) {
			int p = -1;
			tessel_graph_block_dep(&p, g, v, (size_t)j);
			if (p >= 0 && p < n)
				start[p + 1]++;
			edges++;
		}
	}
	if (!rc) {
		for (int v = 0; v < n; v++)
			start[v + 1] += start[v];
		succ = calloc(edges + 1, sizeof *succ);
		if (!succ)
			rc = TESSEL_ENOMEM;
	}
	if (!rc) {
		int *fill = w->mark; /* (zero until the walks) */
		for (int v = 0; v < n; v++) {
			int64_t nd = block_figure(g, v, TESSEL_BLOCK_NDEPS);
			for (int64_t j = 0; j < nd; j++) {
				int p = -1;
				tessel_graph_block_dep(&p, g, v, (size_t)j);
				if (p >= 0 && p < n)
					succ[start[p] + fill[p]++] = v;
			}
		}
		memset(fill, 0, ((size_t)n + 1) * sizeof *fill);
		/* Kahn's order (the graph is acyclic: it was validated) */
		int top = 0;
		for (int v = 0; v < n; v++)
			if (left[v] == 0)
				w->stack[top++] = v;
		while (top > 0) {
			int v = w->stack[--top];
			for (int k = start[v]; k < start[v + 1]; k++) {
				int c = succ[k];
				if (w->level[v] + 1 > w->level[c])
					w->level[c] = w->level[v] + 1;
				if (--left[c] == 0)
					w->stack[top++] = c;
			}
		}
	}
	free(left);
	w->start = start;
	w->succ = succ;
	return rc;
}

static void walk_release(struct walk *w)
{
	free(w->start);
	free(w->succ);
	free(w->desc);
	free(w->mark);
	free(w->stack);
	free(w->level);
}

/* Whether `to` depends on `from` (a walk back over the dependencies). */
static int depends(const tessel_graph *g, struct walk *w, int to, int from)
{
	if (w->level[to] <= w->level[from])
		return 0;
	int top = 0, found = 0;
	if (++w->stamp == 0) { /* (wrapped: clear once) */
		memset(w->mark, 0, ((size_t)w->n + 1) * sizeof *w->mark);
		w->stamp = 1;
	}
	w->stack[top++] = to;
	while (top > 0 && !found) {
		int v = w->stack[--top];
		int64_t nd = block_figure(g, v, TESSEL_BLOCK_NDEPS);
		for (size_t j = 0; j < (size_t)nd && !found; j++) {
			int p = -1;
			tessel_graph_block_dep(&p, g, v, j);
			found = p == from;
			/* a block at or below from's level has not it among
			 * its dependencies */
			if (p >= 0 && w->mark[p] != w->stamp &&
			    w->level[p] > w->level[from]) {
				w->mark[p] = w->stamp;
				w->stack[top++] = p;
			}
		}
	}
	return found;
}

/* Mark the blocks that depend on f (a walk forward over the successors):
 * w->desc[b] == w->dstamp after. */
static void descend(struct walk *w, int f)
{
	if (++w->dstamp == 0) {
		memset(w->desc, 0, ((size_t)w->n + 1) * sizeof *w->desc);
		w->dstamp = 1;
	}
	int top = 0;
	w->stack[top++] = f;
	while (top > 0) {
		int v = w->stack[--top];
		for (int k = w->start[v]; k < w->start[v + 1]; k++) {
			int c = w->succ[k];
			if (w->desc[c] != w->dstamp) {
				w->desc[c] = w->dstamp;
				w->stack[top++] = c;
			}
		}
	}
}

/* The backward of forward f: -1 when there is none. */
static int backward_of(const tessel_graph *g, int f, int n, struct walk *w)
{
	int64_t stage = block_figure(g, f, TESSEL_BLOCK_STAGE);
	int last = -1;
	descend(w, f);
	for (int b = 0; b < n; b++) {
		if (w->desc[b] != w->dstamp ||
		    block_figure(g, b, TESSEL_BLOCK_KIND) != TESSEL_KIND_BACKWARD ||
		    !same_devices(g, f, b))
			continue;
		if (stage >= 0 && block_figure(g, b, TESSEL_BLOCK_STAGE) == stage)
			return b;
		if (last < 0 || depends(g, w, b, last))
			last = b;
	}
	return last;
}

int cli_declare_alternatives(tessel_graph *g, int recompute,
			     int64_t offload_steps)
{
	int64_t n = 0;
	if (!recompute && offload_steps <= 0)
		return 0; /* nothing to declare (the pairing walks the graph) */
	int rc = tessel_graph_get(&n, g, TESSEL_GRAPH_NBLOCKS);
	struct walk w;
	if (!rc)
		rc = walk_init(&w, g, (int)n);
	else
		memset(&w, 0, sizeof w);
	for (int f = 0; f < n && !rc; f++) {
		int64_t memory = block_figure(g, f, TESSEL_BLOCK_MEMORY);
		if (block_figure(g, f, TESSEL_BLOCK_KIND) != TESSEL_KIND_FORWARD ||
		    memory <= 0)
			continue;
		int b = backward_of(g, f, (int)n, &w);
		if (b < 0)
			continue;
		if (recompute &&
		    tessel_graph_block_recompute(NULL, NULL, NULL, g, f) == TESSEL_ENOTFOUND)
			rc = tessel_graph_set_recompute(g, f, b, (int)memory,
				(int)block_figure(g, f, TESSEL_BLOCK_SPAN));
		if (!rc && offload_steps > 0 &&
		    tessel_graph_block_offload(NULL, NULL, NULL, g, f) == TESSEL_ENOTFOUND)
			rc = tessel_graph_set_offload(g, f, b, (int)memory,
						      (int)offload_steps);
	}
	tessel_error_clear();
	walk_release(&w);
	return rc;
}
