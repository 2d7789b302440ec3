/* tessel search --recompute / --offload: declare a memory-time alternative
 * on every forward block of a placement that has none.
 *
 * SPDX-License-Identifier: MIT
 *
 * Built only on the public API. A forward block (positive memory) is paired
 * with its backward: among the backward blocks on the same devices that
 * depend on it, directly or not, the first (by id) of its stage, or
 * without one the deepest (the largest level, 1 + the largest of its
 * dependencies', then the largest id: the one that releases the
 * activation in a pipeline's V). The recompute drops the whole activation
 * (saves = its memory) and runs the forward again (extra = its span); the
 * offload moves the whole activation, each copy taking the given steps.
 *
 * Which blocks depend on which forward is found 64 forwards at a time: a
 * pass in topological order carries each block's set of those forwards
 * (a 64-bit word) to its successors, and the backwards then take the
 * forwards of their key (devices, and devices and stage) still unpaired.
 * Time O(F / 64 (n + e)) for F forwards, n blocks and e dependencies.
 */
#include <stdint.h>
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

/* The graph as arrays: successors in compressed rows, a topological
 * order, levels, and each block's keys (ids of its device list, and of
 * its device list and stage). */
struct pairing {
	int n;
	int *start, *succ;  /* successors, compressed rows */
	int *order;         /* topological order */
	int *pos;           /* position of each block in it */
	int *level;
	int *key_dev, *key_stage; /* -1: none (no stage) */
	int64_t *kind, *stage;
	uint64_t *mask;     /* per block: the forwards of the sweep it depends on */
	uint64_t *kdev, *kstage; /* per key: the sweep's unpaired forwards */
	int nkeys;
};

static uint64_t devices_hash(const tessel_graph *g, int b, int64_t stage)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(stage + 2);
	int64_t nd = block_figure(g, b, TESSEL_BLOCK_NDEVICES);
	for (size_t i = 0; i < (size_t)nd; i++) {
		int d = -1;
		tessel_graph_block_device(&d, g, b, i);
		h = (h ^ (uint64_t)(d + 1)) * 1099511628211ull;
	}
	return h;
}

/* Key ids: equal device lists (and stages, with_stage) share one; an
 * open-addressing table of representatives. */
static int make_keys(struct pairing *p, const tessel_graph *g, int *keys,
		     int with_stage)
{
	size_t cap = 16;
	while (cap < 2 * (size_t)p->n + 2)
		cap *= 2;
	int *rep = malloc(cap * sizeof *rep), *id = malloc(cap * sizeof *id);
	if (!rep || !id) {
		free(rep);
		free(id);
		return TESSEL_ENOMEM;
	}
	for (size_t i = 0; i < cap; i++)
		rep[i] = -1;
	for (int b = 0; b < p->n; b++) {
		int64_t st = with_stage ? p->stage[b] : -1;
		if (with_stage && st < 0) {
			keys[b] = -1;
			continue;
		}
		size_t at = (size_t)(devices_hash(g, b, st) & (cap - 1));
		for (;; at = (at + 1) & (cap - 1)) {
			if (rep[at] < 0) {
				rep[at] = b;
				id[at] = p->nkeys++;
				keys[b] = id[at];
				break;
			}
			int r = rep[at];
			if ((!with_stage || p->stage[r] == st) && same_devices(g, r, b)) {
				keys[b] = id[at];
				break;
			}
		}
	}
	free(rep);
	free(id);
	return 0;
}

static void pairing_release(struct pairing *p)
{
	free(p->start);
	free(p->succ);
	free(p->order);
	free(p->pos);
	free(p->level);
	free(p->key_dev);
	free(p->key_stage);
	free(p->kind);
	free(p->stage);
	free(p->mask);
	free(p->kdev);
	free(p->kstage);
}

static int pairing_init(struct pairing *p, const tessel_graph *g, int n)
{
	memset(p, 0, sizeof *p);
	p->n = n;
	size_t m = (size_t)n + 1;
	p->start = calloc(m + 1, sizeof *p->start);
	p->order = calloc(m, sizeof *p->order);
	p->pos = calloc(m, sizeof *p->pos);
	p->level = calloc(m, sizeof *p->level);
	p->key_dev = calloc(m, sizeof *p->key_dev);
	p->key_stage = calloc(m, sizeof *p->key_stage);
	p->kind = calloc(m, sizeof *p->kind);
	p->stage = calloc(m, sizeof *p->stage);
	p->mask = calloc(m, sizeof *p->mask);
	int *left = calloc(m, sizeof *left);
	if (!p->start || !p->order || !p->pos || !p->level || !p->key_dev ||
	    !p->key_stage || !p->kind || !p->stage || !p->mask || !left) {
		free(left);
		return TESSEL_ENOMEM;
	}
	size_t edges = 0;
	for (int v = 0; v < n; v++) {
		p->kind[v] = block_figure(g, v, TESSEL_BLOCK_KIND);
		p->stage[v] = block_figure(g, v, TESSEL_BLOCK_STAGE);
		int64_t nd = block_figure(g, v, TESSEL_BLOCK_NDEPS);
		left[v] = (int)nd;
		for (int64_t j = 0; j < nd; j++) {
			int d = -1;
			tessel_graph_block_dep(&d, g, v, (size_t)j);
			if (d >= 0 && d < n)
				p->start[d + 1]++;
			edges++;
		}
	}
	for (int v = 0; v < n; v++)
		p->start[v + 1] += p->start[v];
	p->succ = calloc(edges + 1, sizeof *p->succ);
	int *fill = calloc(m, sizeof *fill);
	int rc = p->succ && fill ? 0 : TESSEL_ENOMEM;
	for (int v = 0; v < n && !rc; v++) {
		int64_t nd = block_figure(g, v, TESSEL_BLOCK_NDEPS);
		for (int64_t j = 0; j < nd; j++) {
			int d = -1;
			tessel_graph_block_dep(&d, g, v, (size_t)j);
			if (d >= 0 && d < n)
				p->succ[p->start[d] + fill[d]++] = v;
		}
	}
	free(fill);
	/* Kahn's order (the graph is acyclic: it was validated) */
	int head = 0, tail = 0;
	for (int v = 0; v < n && !rc; v++)
		if (left[v] == 0)
			p->order[tail++] = v;
	while (!rc && head < tail) {
		int v = p->order[head++];
		for (int k = p->start[v]; k < p->start[v + 1]; k++) {
			int c = p->succ[k];
			if (p->level[v] + 1 > p->level[c])
				p->level[c] = p->level[v] + 1;
			if (--left[c] == 0)
				p->order[tail++] = c;
		}
	}
	free(left);
	for (int i = 0; i < tail; i++)
		p->pos[p->order[i]] = i;
	if (!rc)
		rc = make_keys(p, g, p->key_dev, 0);
	if (!rc)
		rc = make_keys(p, g, p->key_stage, 1);
	if (!rc) {
		p->kdev = calloc((size_t)p->nkeys + 1, sizeof *p->kdev);
		p->kstage = calloc((size_t)p->nkeys + 1, sizeof *p->kstage);
		if (!p->kdev || !p->kstage)
			rc = TESSEL_ENOMEM;
	}
	return rc;
}

/* Pair the forwards fw[0 .. nf) (in topological order) with their
 * backwards into back[] (-1: none), 64 at a time. `bstage`: the backward
 * blocks in id order; `bdeep`: the same, deepest first. */
static void pair_forwards(struct pairing *p, const int *fw, int nf,
			  const int *bstage, const int *bdeep, int nb, int *back)
{
	for (int c0 = 0; c0 < nf; c0 += 64) {
		int cn = nf - c0 < 64 ? nf - c0 : 64;
		int from = p->pos[fw[c0]];
		memset(p->mask, 0, ((size_t)p->n + 1) * sizeof *p->mask);
		uint64_t open = 0;
		for (int k = 0; k < cn; k++) {
			int f = fw[c0 + k];
			uint64_t bit = (uint64_t)1 << k;
			back[c0 + k] = -1;
			p->mask[f] |= bit;
			open |= bit;
			p->kdev[p->key_dev[f]] = 0;
			if (p->key_stage[f] >= 0)
				p->kstage[p->key_stage[f]] = 0;
		}
		for (int k = 0; k < cn; k++) {
			int f = fw[c0 + k];
			uint64_t bit = (uint64_t)1 << k;
			p->kdev[p->key_dev[f]] |= bit;
			if (p->key_stage[f] >= 0)
				p->kstage[p->key_stage[f]] |= bit;
		}
		/* what depends on which of them, in topological order */
		for (int i = from; i < p->n; i++) {
			int v = p->order[i];
			uint64_t mv = p->mask[v];
			if (!mv)
				continue;
			for (int k = p->start[v]; k < p->start[v + 1]; k++)
				p->mask[p->succ[k]] |= mv;
		}
		/* a block depends on itself in the mask: a forward is never
		 * its own backward (kinds differ) */
		for (int j = 0; j < nb && open; j++) {
			int b = bstage[j];
			if (p->key_stage[b] < 0)
				continue;
			uint64_t m = p->mask[b] & open & p->kstage[p->key_stage[b]];
			/* (a key of the sweep's forwards, or a stale one: the
			 * device key must match too) */
			m &= p->kdev[p->key_dev[b]];
			while (m) {
				int k = __builtin_ctzll(m);
				m &= m - 1;
				if (p->key_stage[fw[c0 + k]] == p->key_stage[b]) {
					back[c0 + k] = b;
					open &= ~((uint64_t)1 << k);
				}
			}
		}
		for (int j = 0; j < nb && open; j++) {
			int b = bdeep[j];
			uint64_t m = p->mask[b] & open & p->kdev[p->key_dev[b]];
			while (m) {
				int k = __builtin_ctzll(m);
				m &= m - 1;
				if (p->key_dev[fw[c0 + k]] == p->key_dev[b]) {
					back[c0 + k] = b;
					open &= ~((uint64_t)1 << k);
				}
			}
		}
	}
}

static const struct pairing *deep_sort;
static int deeper_first(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int lx = deep_sort->level[x], ly = deep_sort->level[y];
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x > y ? -1 : x < y;
}

static int by_position(const void *a, const void *b)
{
	int x = deep_sort->pos[*(const int *)a], y = deep_sort->pos[*(const int *)b];
	return (x > y) - (x < y);
}

int cli_declare_alternatives(tessel_graph *g, int recompute,
			     int64_t offload_steps)
{
	int64_t n = 0;
	if (!recompute && offload_steps <= 0)
		return 0; /* nothing to declare (the pairing walks the graph) */
	int rc = tessel_graph_get(&n, g, TESSEL_GRAPH_NBLOCKS);
	struct pairing p;
	if (!rc)
		rc = pairing_init(&p, g, (int)n);
	else
		memset(&p, 0, sizeof p);
	int *fw = NULL, *back = NULL, *bstage = NULL, *bdeep = NULL;
	int nf = 0, nb = 0;
	if (!rc) {
		fw = malloc(((size_t)n + 1) * sizeof *fw);
		back = malloc(((size_t)n + 1) * sizeof *back);
		bstage = malloc(((size_t)n + 1) * sizeof *bstage);
		bdeep = malloc(((size_t)n + 1) * sizeof *bdeep);
		if (!fw || !back || !bstage || !bdeep)
			rc = TESSEL_ENOMEM;
	}
	for (int b = 0; b < n && !rc; b++) {
		if (p.kind[b] == TESSEL_KIND_BACKWARD) {
			bstage[nb] = b;
			bdeep[nb++] = b;
			continue;
		}
		if (p.kind[b] != TESSEL_KIND_FORWARD ||
		    block_figure(g, b, TESSEL_BLOCK_MEMORY) <= 0)
			continue;
		int wants = (recompute && tessel_graph_block_recompute(NULL, NULL, NULL, g, b) ==
						  TESSEL_ENOTFOUND) ||
			    (offload_steps > 0 && tessel_graph_block_offload(NULL, NULL, NULL, g, b) ==
							  TESSEL_ENOTFOUND);
		if (wants)
			fw[nf++] = b;
	}
	if (!rc && nf > 0) {
		deep_sort = &p;
		qsort(bdeep, (size_t)nb, sizeof *bdeep, deeper_first);
		qsort(fw, (size_t)nf, sizeof *fw, by_position);
		pair_forwards(&p, fw, nf, bstage, bdeep, nb, back);
		deep_sort = NULL;
	}
	/* declared in id order */
	int *pair = NULL;
	if (!rc) {
		pair = malloc(((size_t)n + 1) * sizeof *pair);
		if (!pair)
			rc = TESSEL_ENOMEM;
	}
	for (int f = 0; f < n && !rc; f++)
		pair[f] = -1;
	for (int i = 0; i < nf && !rc; i++)
		pair[fw[i]] = back[i];
	for (int f = 0; f < n && !rc; f++) {
		int b = pair[f];
		if (b < 0)
			continue;
		int64_t memory = block_figure(g, f, TESSEL_BLOCK_MEMORY);
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
	free(pair);
	free(fw);
	free(back);
	free(bstage);
	free(bdeep);
	pairing_release(&p);
	return rc;
}
