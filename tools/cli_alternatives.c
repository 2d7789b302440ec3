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

/* Whether `to` depends on `from` (a walk over the dependencies). */
static int depends(const tessel_graph *g, int to, int from, char *seen,
		   int *stack, int n)
{
	int top = 0, found = 0;
	memset(seen, 0, (size_t)n);
	stack[top++] = to;
	while (top > 0 && !found) {
		int v = stack[--top];
		int64_t nd = block_figure(g, v, TESSEL_BLOCK_NDEPS);
		for (size_t j = 0; j < (size_t)nd && !found; j++) {
			int p = -1;
			tessel_graph_block_dep(&p, g, v, j);
			found = p == from;
			if (p >= 0 && !seen[p]) {
				seen[p] = 1;
				stack[top++] = p;
			}
		}
	}
	return found;
}

/* The backward of forward f: -1 when there is none. */
static int backward_of(const tessel_graph *g, int f, int n, char *seen,
		       int *stack)
{
	int64_t stage = block_figure(g, f, TESSEL_BLOCK_STAGE);
	int last = -1;
	for (int b = 0; b < n; b++) {
		if (block_figure(g, b, TESSEL_BLOCK_KIND) != TESSEL_KIND_BACKWARD ||
		    !same_devices(g, f, b) || !depends(g, b, f, seen, stack, n))
			continue;
		if (stage >= 0 && block_figure(g, b, TESSEL_BLOCK_STAGE) == stage)
			return b;
		if (last < 0 || depends(g, b, last, seen, stack, n))
			last = b;
	}
	return last;
}

int cli_declare_alternatives(tessel_graph *g, int recompute,
			     int64_t offload_steps)
{
	int64_t n = 0;
	int rc = tessel_graph_get(&n, g, TESSEL_GRAPH_NBLOCKS);
	char *seen = calloc((size_t)n + 1, 1);
	int *stack = calloc((size_t)n + 1, sizeof *stack);
	if (!rc && (!seen || !stack))
		rc = TESSEL_ENOMEM;
	for (int f = 0; f < n && !rc; f++) {
		int64_t memory = block_figure(g, f, TESSEL_BLOCK_MEMORY);
		if (block_figure(g, f, TESSEL_BLOCK_KIND) != TESSEL_KIND_FORWARD ||
		    memory <= 0)
			continue;
		int b = backward_of(g, f, (int)n, seen, stack);
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
	free(seen);
	free(stack);
	return rc;
}
