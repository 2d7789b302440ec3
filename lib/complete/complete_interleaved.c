/* A whole schedule of an interleaved pipeline in the order of interleaved
 * 1F1B (a candidate beside list scheduling, complete_list.c).
 *
 * Interleaved 1F1B (Narayanan et al., SC21, section 2.2; Megatron-LM's
 * forward_backward_pipelining_with_interleaving, PyTorch's
 * ScheduleInterleaved1F1B) gives device d of D the stages d, d + D, ...,
 * d + (v-1)D of a chain of S = vD stages. Its k-th forward runs chunk
 * (k mod vD) / D of micro-batch (k / vD) D + k mod D, its k-th backward
 * chunk v-1 - (k mod vD) / D of the same micro-batch (micro-batches past N
 * skipped); the device runs 2(D-1-d) + (v-1)D forwards first (all of them
 * when N = D), then a forward and a backward at a time, then the
 * backwards left. List scheduling does not find this order on uneven
 * spans: it starts whatever is ready, where the order keeps the groups of
 * D micro-batches in step. This file recognises such a pipeline on any
 * placement (each block's own span, memory delta and latencies) and runs
 * the order as early as it allows. */
#include "complete_interleaved.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "util.h"

typedef struct ilv {
	const tessel_graph *g;
	tessel_schedule *s;
	int S, D, v;
	int *f, *b, *w;     /* [stage]: gid (w: -1 without weight blocks) */
	int *dev;           /* [d]: the device of F(d), d < D */
	int64_t N;
	/* one run */
	int64_t **ord;      /* [d]: entries gid * N + m, in order */
	int64_t *len;       /* [d] */
	int64_t *pos;       /* [d] */
	int64_t *free_at;   /* [d] */
	int64_t *end;       /* [m * nblocks + gid]: -1 not placed */
	int *waiting;       /* [m * nblocks + gid]: the first device waiting
			     * for it to be placed (-1: none) */
	int *next_waiting;  /* [d]: the next device waiting for the same */
	int *queue;         /* [D]: devices to look at again */
} ilv;

/* The only block of `kind` among gids whose deps are exactly `deps`
 * (ndeps of them, any order) or `deps` plus `also` (-1: none); -1 when
 * none or several. */
static int one_after(const tessel_graph *g, int kind, const int *deps,
		     int ndeps, int also, const tsl_succ *x)
{
	int found = -1;
	int from = deps[0];
	for (int k = x->start[from]; k < x->start[from + 1]; k++) {
		int c = x->block[k];
		const tsl_block *B = &g->blocks[c];
		if (B->kind != kind)
			continue;
		int extra = 0, ok = 1;
		for (int j = 0; j < B->ndeps && ok; j++) {
			int p = B->deps[j], in = 0;
			for (int i = 0; i < ndeps; i++)
				in |= p == deps[i];
			if (!in && p == also)
				extra++;
			else if (!in)
				ok = 0;
		}
		if (!ok || B->ndeps != ndeps + extra)
			continue;
		if (found >= 0)
			return -1;
		found = c;
	}
	return found;
}

static int single_device(const tsl_block *B) { return B->ndevices == 1 ? B->devices[0] : -1; }

/* Fill v's chain from the graph; 1 when it is such a pipeline. */
static int recognise(ilv *v, const tsl_succ *x)
{
	const tessel_graph *g = v->g;
	int nf = 0, nb = 0, nw = 0, f0 = -1;
	for (int i = 0; i < g->nblocks; i++) {
		const tsl_block *B = &g->blocks[i];
		nf += B->kind == TESSEL_KIND_FORWARD;
		nb += B->kind == TESSEL_KIND_BACKWARD;
		nw += B->kind == TESSEL_KIND_WEIGHT;
		if (B->kind == TESSEL_KIND_FORWARD && B->ndeps == 0) {
			if (f0 >= 0)
				return 0;
			f0 = i;
		}
	}
	if (f0 < 0 || nf < 1 || nb != nf || (nw && nw != nf))
		return 0;
	v->S = nf;
	v->f[0] = f0;
	for (int s = 1; s < nf; s++)
		if ((v->f[s] = one_after(g, TESSEL_KIND_FORWARD, &v->f[s - 1], 1, -1, x)) < 0)
			return 0;
	for (int s = nf - 1; s >= 0; s--) {
		const int *prev = s == nf - 1 ? &v->f[nf - 1] : &v->b[s + 1];
		if ((v->b[s] = one_after(g, TESSEL_KIND_BACKWARD, prev, 1, v->f[s], x)) < 0)
			return 0;
		v->w[s] = -1;
		if (nw && (v->w[s] = one_after(g, TESSEL_KIND_WEIGHT, &v->b[s], 1, -1, x)) < 0)
			return 0;
	}
	/* devices: the first D stages on distinct devices, then repeated */
	int D = 0, round_ended = 0;
	for (int s = 0; s < nf; s++) {
		int d = single_device(&g->blocks[v->f[s]]);
		if (d < 0 || single_device(&g->blocks[v->b[s]]) != d ||
		    (v->w[s] >= 0 && single_device(&g->blocks[v->w[s]]) != d))
			return 0;
		int seen = 0;
		for (int i = 0; i < D; i++)
			seen |= v->dev[i] == d;
		if (seen)
			round_ended = 1;
		else if (round_ended)
			return 0; /* a new device after the first round */
		else
			v->dev[D++] = d;
	}
	if (D < 1 || nf % D)
		return 0;
	for (int s = 0; s < nf; s++)
		if (single_device(&g->blocks[v->f[s]]) != v->dev[s % D])
			return 0;
	v->D = D;
	v->v = nf / D;
	return 1;
}

/* Device d's order with `drop` fewer warm-up forwards than the rule. */
static void build_order(ilv *v, int d, int64_t drop)
{
	int64_t vD = (int64_t)v->v * v->D, N = v->N;
	int64_t total = N * v->v;
	/* the forward and backward sequences, micro-batches past N skipped */
	int64_t n = 0;
	int64_t warm = N == v->D ? total
				 : 2 * (int64_t)(v->D - 1 - d) + (int64_t)(v->v - 1) * v->D;
	warm -= drop;
	if (warm < 1)
		warm = 1;
	if (warm > total)
		warm = total;
	int64_t kf = 0, kb = 0, nfw = 0, nbw = 0;
	int64_t *o = v->ord[d];
#define NEXT(k, chunk, m)                                                     \
	do {                                                                  \
		for (;;) {                                                    \
			chunk = (int)(((k) % vD) / v->D);                     \
			m = ((k) / vD) * v->D + (k) % v->D;                   \
			(k)++;                                                \
			if (m < N)                                            \
				break;                                        \
		}                                                             \
	} while (0)
	int c = 0;
	int64_t m = 0;
	for (; nfw < warm; nfw++) {
		NEXT(kf, c, m);
		o[n++] = (int64_t)v->f[c * v->D + d] * N + m;
	}
	while (nbw < total) {
		if (nfw < total) {
			NEXT(kf, c, m);
			o[n++] = (int64_t)v->f[c * v->D + d] * N + m;
			nfw++;
		}
		NEXT(kb, c, m);
		int st = (v->v - 1 - c) * v->D + d;
		o[n++] = (int64_t)v->b[st] * N + m;
		if (v->w[st] >= 0)
			o[n++] = (int64_t)v->w[st] * N + m;
		nbw++;
	}
#undef NEXT
	v->len[d] = n;
}

/* Run the orders as early as they allow: 1 when every instance was
 * placed (0: they wait for each other). A device goes on until its next
 * instance waits for one not placed, and is looked at again when that is
 * placed (the times do not depend on the order devices are looked at in;
 * sweeping every device until none moves took a sweep per device a
 * backward pass crosses). */
static int run(ilv *v, const tsl_deadline *dl)
{
	const tessel_graph *g = v->g;
	int64_t nb = g->nblocks, N = v->N, placed = 0, want = 0;
	for (int64_t i = 0; i < nb * N; i++) {
		v->end[i] = -1;
		v->waiting[i] = -1;
	}
	int nq = 0;
	for (int d = 0; d < v->D; d++) {
		v->pos[d] = 0;
		v->free_at[d] = 0;
		want += v->len[d];
		v->queue[nq++] = v->D - 1 - d; /* (popped from the end: 0 first) */
	}
	while (nq > 0) {
		int d = v->queue[--nq];
		while (v->pos[d] < v->len[d]) {
			int64_t e = v->ord[d][v->pos[d]];
			int gid = (int)(e / N);
			int64_t m = e % N;
			const tsl_block *B = &g->blocks[gid];
			int64_t t = v->free_at[d];
			int64_t missing = -1;
			for (int j = 0; j < B->ndeps && missing < 0; j++) {
				int64_t pe = v->end[m * nb + B->deps[j]];
				if (pe < 0)
					missing = m * nb + B->deps[j];
				else if (pe - g->blocks[B->deps[j]].span +
						 tsl_dep_gap(g, B, j) > t)
					t = pe - g->blocks[B->deps[j]].span +
					    tsl_dep_gap(g, B, j);
			}
			if (missing >= 0) {
				v->next_waiting[d] = v->waiting[missing];
				v->waiting[missing] = d;
				break;
			}
			tsl_entry_at(v->s, gid, m)->start = t;
			v->end[m * nb + gid] = t + B->span;
			v->free_at[d] = t + B->span;
			v->pos[d]++;
			for (int w = v->waiting[m * nb + gid]; w >= 0; w = v->next_waiting[w])
				v->queue[nq++] = w;
			v->waiting[m * nb + gid] = -1;
			if (++placed % 4096 == 0) {
				tsl_charge(dl, 4096 / TSL_VISITS_PER_TICK);
				if (tsl_deadline_hard_passed(dl))
					return -1;
			}
		}
	}
	return placed == want;
}

/* Whether device d's running memory sum, in its order, keeps its limit. */
static int keeps_limit(const ilv *v, int d)
{
	const tessel_graph *g = v->g;
	int64_t limit = g->memory_limit[v->dev[d]], sum = 0;
	if (limit == TESSEL_UNLIMITED)
		return 1;
	for (int64_t i = 0; i < v->len[d]; i++) {
		sum += g->blocks[v->ord[d][i] / v->N].memory;
		if (sum > limit)
			return 0;
	}
	return 1;
}

/* The fewest warm-up forwards dropped (at most `most`) with which every
 * device's order keeps its limit, the orders built; -1 when none does,
 * -2 past the time limit. The device that broke a limit last is looked at
 * first: a drop that still breaks it costs one device's order, not every
 * device's (on 2,048 devices at memory 2, some 4,000 drops). */
static int64_t fewest_drop(ilv *v, int64_t most, const tsl_deadline *dl)
{
	int broke = 0;
	for (int64_t drop = 0; drop <= most; drop++) {
		if ((drop & 255) == 255 && tsl_deadline_hard_passed(dl))
			return -2;
		build_order(v, broke, drop);
		if (!keeps_limit(v, broke))
			continue;
		int all = 1;
		for (int d = 0; d < v->D && all; d++) {
			if (d == broke)
				continue;
			build_order(v, d, drop);
			if (!keeps_limit(v, d)) {
				broke = d;
				all = 0;
			}
		}
		if (all)
			return drop;
	}
	return -1;
}

static void ilv_release(ilv *v)
{
	if (v->ord)
		for (int d = 0; d < v->D; d++)
			tsl_free(v->ord[d]);
	tsl_free(v->ord);
	tsl_free(v->f);
	tsl_free(v->b);
	tsl_free(v->w);
	tsl_free(v->dev);
	tsl_free(v->len);
	tsl_free(v->pos);
	tsl_free(v->free_at);
	tsl_free(v->end);
	tsl_free(v->waiting);
	tsl_free(v->next_waiting);
	tsl_free(v->queue);
}

int tsl_interleaved_schedule(tessel_schedule *s, int *found, const tsl_deadline *dl)
{
	const tessel_graph *g = s->graph;
	int n = g->nblocks;
	ilv v = {.g = g, .s = s, .N = s->nmicros};
	tsl_succ x = {0};
	*found = 0;
	v.f = tsl_calloc((size_t)n + 1, sizeof *v.f);
	v.b = tsl_calloc((size_t)n + 1, sizeof *v.b);
	v.w = tsl_calloc((size_t)n + 1, sizeof *v.w);
	v.dev = tsl_calloc((size_t)n + 1, sizeof *v.dev);
	int rc = v.f && v.b && v.w && v.dev ? tsl_succ_build(&x, g) : tsl_error_nomem();
	int ok = !rc && recognise(&v, &x);
	if (!rc)
		tsl_succ_release(&x);
	if (ok) {
		v.ord = tsl_calloc((size_t)v.D, sizeof *v.ord);
		v.len = tsl_calloc((size_t)v.D, sizeof *v.len);
		v.pos = tsl_calloc((size_t)v.D, sizeof *v.pos);
		v.free_at = tsl_calloc((size_t)v.D, sizeof *v.free_at);
		v.end = tsl_reallocarray(NULL, (size_t)n * (size_t)v.N, sizeof *v.end);
		v.waiting = tsl_reallocarray(NULL, (size_t)n * (size_t)v.N, sizeof *v.waiting);
		v.next_waiting = tsl_calloc((size_t)v.D, sizeof *v.next_waiting);
		v.queue = tsl_calloc((size_t)v.D, sizeof *v.queue);
		if (!v.ord || !v.len || !v.pos || !v.free_at || !v.end ||
		    !v.waiting || !v.next_waiting || !v.queue)
			rc = tsl_error_nomem();
		/* a device runs its stages' blocks of every micro-batch */
		int64_t per = (int64_t)v.v * (v.w[0] >= 0 ? 3 : 2) * v.N;
		for (int d = 0; d < v.D && !rc; d++)
			if (!(v.ord[d] = tsl_calloc((size_t)per + 1, sizeof **v.ord)))
				rc = tsl_error_nomem();
	}
	/* the rule's warm-ups, then shorter ones while memory breaks (a
	 * deadlock is not mended by fewer forwards: one run) */
	int64_t most_warm = 2 * (int64_t)(v.D - 1) + (int64_t)(v.v - 1) * v.D;
	int64_t drop = ok && !rc ? fewest_drop(&v, most_warm, dl) : -1;
	if (drop == -2)
		rc = TESSEL_ETIMEOUT;
	if (drop >= 0) {
		int r = run(&v, dl);
		if (r < 0)
			rc = TESSEL_ETIMEOUT;
		else if (r == 1)
			*found = 1;
	}
	ilv_release(&v);
	return rc;
}
