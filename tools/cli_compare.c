/* tessel compare: libtessel's schedule and the classic baselines on one
 * placement, simulated with the same durations.
 *
 * SPDX-License-Identifier: MIT
 *
 * Baselines, for the placement as it is (blocks on several devices
 * included) and its memory limits:
 *   - gpipe: every device runs its forwards first (lowest micro-batch
 *     first), backwards after them; memory is not bounded (GPipe keeps
 *     every micro-batch's activations), so its peak may pass the limit;
 *   - 1f1b: a backward (or weight) block first whenever one is ready, a
 *     forward only when it keeps every device within its memory limit: the
 *     number of micro-batches in flight is bounded by memory;
 * each executed greedily, as early as possible (an entry starts as soon as
 * its dependencies have arrived and all its devices are free). Where the
 * placement has the blocks, devices and dependencies of a published family of
 * lib/explore/published.c (GPipe, 1F1B, ZB-H1, interleaved 1F1B with 2 .. 4
 * chunks, Chimera), that family's published order is added as well, run on
 * the placement itself: its spans stage by stage and its latency. Every schedule, libtessel's
 * included, is then replayed by tessel_simulate with the same durations
 * and latency.
 */
#include "cli.h"
#include "published.h"

#include <tessel.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char compare_usage[] =
	"Usage: tessel compare PLACEMENT [OPTIONS]\n"
	"\n"
	"Compare libtessel's schedule of PLACEMENT (a preset name or a\n"
	"placement JSON file) with GPipe and 1F1B orders on the same placement\n"
	"and memory limits (and the published GPipe, 1F1B, ZB-H1 and\n"
	"interleaved orders where the placement is theirs), all simulated with\n"
	"the same durations: makespan, bubble %, peak memory per device and\n"
	"libtessel's speedup over each.\n"
	"\n"
	"Options:\n"
	"  -d, --devices D           devices of a preset (default 8)\n"
	"  -m, --memory M            memory limit of every device (preset\n"
	"                            default 3 per 2 devices, 12 on 8;\n"
	"                            overrides the file's limits)\n"
	"  -n, --micro-batches N     micro-batches, 1 .. 256 (default 16)\n"
	"  -t, --time-limit SECONDS  limit of libtessel's search and of each\n"
	"                            greedy baseline (default 60; 1f1b keeps\n"
	"                            the best cap on micro-batches in flight\n"
	"                            tried by then)\n"
	"      --fast                libtessel's heuristics only, no solver\n"
	"  -D, --durations FILE      durations per block (JSON object of block\n"
	"                            names to numbers, as for 'tessel simulate')\n"
	"  -l, --latency X           extra latency between devices (default 0)\n"
	"  -h, --help                show this help and exit\n"
	"  -V, --version             show the version and exit\n"
	"\n"
	"Exit status: 0 success, 1 libtessel found no schedule, 2 bad usage or\n"
	"bad input.\n";

enum { OPT_FAST = 256 };

/* The greedy baselines: at most this many micro-batches. */
#define COMPARE_MAX_MICROS 256

static const struct option compare_options[] = {
	{ "devices", required_argument, NULL, 'd' },
	{ "memory", required_argument, NULL, 'm' },
	{ "micro-batches", required_argument, NULL, 'n' },
	{ "time-limit", required_argument, NULL, 't' },
	{ "fast", no_argument, NULL, OPT_FAST },
	{ "durations", required_argument, NULL, 'D' },
	{ "latency", required_argument, NULL, 'l' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

struct compare_args {
	const char *placement;
	int64_t devices, memory, micros, time_ms;
	int memory_given, fast;
	const char *durations;
	double latency;
};

/* A schedule row of the table. */
struct row {
	char name[48];
	tessel_schedule *s; /* NULL: the row says why in `why` */
	char why[200];
	double makespan, bubble;
};

/* ------------------------------------------------------------------------ */
/* The placement, flattened                                                   */
/* ------------------------------------------------------------------------ */

struct flat {
	int nb, D;
	int64_t N;
	int *kind, *ndev, **dev, *ndeps, **deps;
	int64_t *span, *mem, **lat, *limit;
};

static void flat_free(struct flat *f)
{
	for (int b = 0; b < f->nb; b++) {
		if (f->dev)
			free(f->dev[b]);
		if (f->deps)
			free(f->deps[b]);
		if (f->lat)
			free(f->lat[b]);
	}
	free(f->kind);
	free(f->ndev);
	free(f->dev);
	free(f->ndeps);
	free(f->deps);
	free(f->span);
	free(f->mem);
	free(f->lat);
	free(f->limit);
}

static int block_on(const struct flat *f, int b, int d)
{
	for (int i = 0; i < f->ndev[b]; i++)
		if (f->dev[b][i] == d)
			return 1;
	return 0;
}

static int flat_build(struct flat *f, const tessel_graph *g, int64_t N)
{
	int64_t v = 0;
	int rc = tessel_graph_get(&v, g, TESSEL_GRAPH_NBLOCKS);
	memset(f, 0, sizeof *f);
	if (rc)
		return rc;
	f->nb = (int)v;
	rc = tessel_graph_get(&v, g, TESSEL_GRAPH_NDEVICES);
	if (rc)
		return rc;
	f->D = (int)v;
	f->N = N;
	size_t n = (size_t)f->nb;
	f->kind = calloc(n, sizeof *f->kind);
	f->ndev = calloc(n, sizeof *f->ndev);
	f->dev = calloc(n, sizeof *f->dev);
	f->ndeps = calloc(n, sizeof *f->ndeps);
	f->deps = calloc(n, sizeof *f->deps);
	f->span = calloc(n, sizeof *f->span);
	f->mem = calloc(n, sizeof *f->mem);
	f->lat = calloc(n, sizeof *f->lat);
	f->limit = calloc((size_t)f->D, sizeof *f->limit);
	if (!f->kind || !f->ndev || !f->dev || !f->ndeps || !f->deps ||
	    !f->span || !f->mem || !f->lat || !f->limit)
		return TESSEL_ENOMEM;
	for (int d = 0; d < f->D && !rc; d++)
		rc = tessel_graph_memory_limit(&f->limit[d], g, d);
	for (int b = 0; b < f->nb && !rc; b++) {
		rc = tessel_graph_block_get(&v, g, b, TESSEL_BLOCK_KIND);
		f->kind[b] = (int)v;
		if (!rc)
			rc = tessel_graph_block_get(&f->span[b], g, b,
						    TESSEL_BLOCK_SPAN);
		if (!rc)
			rc = tessel_graph_block_get(&f->mem[b], g, b,
						    TESSEL_BLOCK_MEMORY);
		if (!rc)
			rc = tessel_graph_block_get(&v, g, b,
						    TESSEL_BLOCK_NDEVICES);
		f->ndev[b] = (int)v;
		if (!rc)
			rc = tessel_graph_block_get(&v, g, b, TESSEL_BLOCK_NDEPS);
		f->ndeps[b] = (int)v;
		if (rc)
			break;
		f->dev[b] = calloc((size_t)f->ndev[b] + 1, sizeof **f->dev);
		f->deps[b] = calloc((size_t)f->ndeps[b] + 1, sizeof **f->deps);
		f->lat[b] = calloc((size_t)f->ndeps[b] + 1, sizeof **f->lat);
		if (!f->dev[b] || !f->deps[b] || !f->lat[b])
			return TESSEL_ENOMEM;
		for (int i = 0; i < f->ndev[b] && !rc; i++)
			rc = tessel_graph_block_device(&f->dev[b][i], g, b,
						       (size_t)i);
		for (int i = 0; i < f->ndeps[b] && !rc; i++) {
			rc = tessel_graph_block_dep(&f->deps[b][i], g, b,
						    (size_t)i);
			if (!rc)
				rc = tessel_graph_block_dep_latency(
					&f->lat[b][i], NULL, g, b, (size_t)i);
		}
	}
	if (rc)
		return rc;
	/* the latency counts where the consumer occupies a device the
	 * producer does not */
	for (int b = 0; b < f->nb; b++)
		for (int i = 0; i < f->ndeps[b]; i++) {
			int a = f->deps[b][i], counts = 0;
			for (int k = 0; k < f->ndev[b]; k++)
				if (!block_on(f, a, f->dev[b][k]))
					counts = 1;
			if (!counts)
				f->lat[b][i] = 0;
		}
	return TESSEL_OK;
}

/* ------------------------------------------------------------------------ */
/* Greedy baselines                                                           */
/* ------------------------------------------------------------------------ */

enum policy { POLICY_GPIPE, POLICY_1F1B };

/* A binary min-heap of (time, entry). */
struct eheap {
	int64_t *t;
	size_t *e;
	size_t n;
};

static void eheap_push(struct eheap *h, int64_t t, size_t e)
{
	size_t i = h->n++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (h->t[p] <= t)
			break;
		h->t[i] = h->t[p];
		h->e[i] = h->e[p];
		i = p;
	}
	h->t[i] = t;
	h->e[i] = e;
}

static size_t eheap_pop(struct eheap *h)
{
	size_t top = h->e[0];
	int64_t t = h->t[--h->n];
	size_t e = h->e[h->n], i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->t[c + 1] < h->t[c])
			c++;
		if (h->t[c] >= t)
			break;
		h->t[i] = h->t[c];
		h->e[i] = h->e[c];
		i = c;
	}
	if (h->n) {
		h->t[i] = t;
		h->e[i] = e;
	}
	return top;
}

/* The order in which ready entries are tried: the policy's kinds first,
 * then the earliest micro-batch, then the lowest block id. */
static int cand_before(const struct flat *f, enum policy pol, size_t a, size_t b)
{
	int ba = (int)(a / (size_t)f->N), bb = (int)(b / (size_t)f->N);
	int ka = pol == POLICY_GPIPE ? f->kind[ba] != TESSEL_KIND_FORWARD
				     : f->kind[ba] == TESSEL_KIND_FORWARD;
	int kb = pol == POLICY_GPIPE ? f->kind[bb] != TESSEL_KIND_FORWARD
				     : f->kind[bb] == TESSEL_KIND_FORWARD;
	if (ka != kb)
		return ka < kb;
	size_t ma = a % (size_t)f->N, mb = b % (size_t)f->N;
	if (ma != mb)
		return ma < mb;
	return ba < bb;
}

/* Start steps of every entry (starts[b * N + m]) under the policy, or -1
 * with `why` when the greedy order gets stuck (memory). Event by event:
 * at each step where an entry becomes ready (its dependencies finished,
 * their latencies passed) or a device frees, the micro-batches finished by
 * then leave, and the ready entries, in the policy's order, start where
 * their devices are free and the memory and the cap on micro-batches in
 * flight let them. The ready entries are kept in that order (an insertion
 * each), the others wait in a heap of their ready steps: O(E (R + log E))
 * for E entries and at most R ready at once, where a rescan of every entry
 * at every step took O(E^2). */
static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int greedy(int64_t *starts, const struct flat *f, enum policy pol,
		  int64_t max_inflight, int64_t end_ms, int64_t *out_makespan,
		  char *why, size_t wl)
{
	size_t N = (size_t)f->N, total = (size_t)f->nb * N, placed = 0;
	int64_t inflight = 0, makespan = 0, t = 0;
	int rc = 0;
	char *left = calloc(N, 1); /* 0 not started, 1 in flight, 2 done */
	int64_t *finish = malloc(total * sizeof *finish);
	int64_t *ready_at = calloc(total, sizeof *ready_at);
	int *unmet = malloc(total * sizeof *unmet);
	int64_t *free_at = calloc((size_t)f->D, sizeof *free_at);
	int64_t *mem = calloc((size_t)f->D, sizeof *mem);
	size_t *placed_of = calloc(N, sizeof *placed_of);
	int64_t *done_at = calloc(N, sizeof *done_at);
	size_t *ready = malloc((total + 1) * sizeof *ready);
	int *cstart = calloc((size_t)f->nb + 1, sizeof *cstart);
	int *cblock = NULL, *cdep = NULL;
	struct eheap wait = {malloc((total + 1) * sizeof(int64_t)),
			     malloc((total + 1) * sizeof(size_t)), 0};
	struct eheap gone = {malloc((N + 1) * sizeof(int64_t)),
			     malloc((N + 1) * sizeof(size_t)), 0};
	/* the steps where a device frees (every finish) */
	struct eheap frees = {malloc((total + 1) * sizeof(int64_t)),
			      malloc((total + 1) * sizeof(size_t)), 0};
	size_t events = 0;
	size_t nready = 0, ndeps = 0;
	for (int b = 0; b < f->nb; b++)
		ndeps += (size_t)f->ndeps[b];
	cblock = malloc((ndeps + 1) * sizeof *cblock);
	cdep = malloc((ndeps + 1) * sizeof *cdep);
	if (!left || !finish || !ready_at || !unmet || !free_at || !mem ||
	    !placed_of || !done_at || !ready || !cstart || !cblock || !cdep ||
	    !wait.t || !wait.e || !gone.t || !gone.e || !frees.t || !frees.e) {
		snprintf(why, wl, "out of memory");
		rc = -1;
		goto out;
	}
	/* the consumers of each block, and which of their dependencies */
	for (int b = 0; b < f->nb; b++)
		for (int i = 0; i < f->ndeps[b]; i++)
			cstart[f->deps[b][i] + 1]++;
	for (int b = 0; b < f->nb; b++)
		cstart[b + 1] += cstart[b];
	{
		int *fill = calloc((size_t)f->nb + 1, sizeof *fill);
		if (!fill) {
			snprintf(why, wl, "out of memory");
			rc = -1;
			goto out;
		}
		for (int b = 0; b < f->nb; b++)
			for (int i = 0; i < f->ndeps[b]; i++) {
				int p = f->deps[b][i];
				cblock[cstart[p] + fill[p]] = b;
				cdep[cstart[p] + fill[p]++] = i;
			}
		free(fill);
	}
	for (size_t e = 0; e < total; e++) {
		finish[e] = starts[e] = -1;
		unmet[e] = f->ndeps[e / N];
		if (!unmet[e])
			eheap_push(&wait, 0, e);
	}
	while (placed < total) {
		if (end_ms && (++events & 1023) == 0 && now_ms() > end_ms) {
			snprintf(why, wl, "time limit reached at step %lld "
				 "(--time-limit)", (long long)t);
			rc = -1;
			break;
		}
		while (frees.n && frees.t[0] <= t)
			eheap_pop(&frees);
		/* the entries ready by t join the ordered list */
		while (wait.n && wait.t[0] <= t) {
			size_t e = eheap_pop(&wait), at = nready;
			while (at > 0 && cand_before(f, pol, e, ready[at - 1])) {
				ready[at] = ready[at - 1];
				at--;
			}
			ready[at] = e;
			nready++;
		}
		/* micro-batches whose every entry has finished by t leave */
		while (gone.n && gone.t[0] <= t) {
			size_t m = eheap_pop(&gone);
			if (left[m] == 1) {
				left[m] = 2;
				inflight--;
			}
		}
		size_t kept = 0;
		for (size_t k = 0; k < nready; k++) {
			size_t e = ready[k], m = e % N;
			int b = (int)(e / N), ok = 1;
			for (int i = 0; i < f->ndev[b] && ok; i++) {
				int d = f->dev[b][i];
				if (free_at[d] > t)
					ok = 0;
				else if (pol == POLICY_1F1B && f->limit[d] >= 0 &&
					 f->mem[b] > 0 &&
					 mem[d] + f->mem[b] > f->limit[d])
					ok = 0;
			}
			/* a micro-batch not started yet waits while
			 * max_inflight are in flight */
			if (ok && left[m] == 0 && inflight >= max_inflight)
				ok = 0;
			if (!ok) {
				ready[kept++] = e;
				continue;
			}
			if (left[m] == 0) {
				left[m] = 1;
				inflight++;
			}
			starts[e] = t;
			finish[e] = t + f->span[b];
			for (int i = 0; i < f->ndev[b]; i++) {
				free_at[f->dev[b][i]] = t + f->span[b];
				mem[f->dev[b][i]] += f->mem[b];
			}
			placed++;
			eheap_push(&frees, finish[e], e);
			if (finish[e] > makespan)
				makespan = finish[e];
			if (finish[e] > done_at[m])
				done_at[m] = finish[e];
			if (++placed_of[m] == (size_t)f->nb)
				eheap_push(&gone, done_at[m], m);
			for (int k2 = cstart[b]; k2 < cstart[b + 1]; k2++) {
				int c = cblock[k2];
				size_t ce = (size_t)c * N + m;
				int64_t at = finish[e] + f->lat[c][cdep[k2]];
				if (at > ready_at[ce])
					ready_at[ce] = at;
				if (--unmet[ce] == 0)
					eheap_push(&wait, ready_at[ce], ce);
			}
		}
		nready = kept;
		int64_t next = wait.n ? wait.t[0] : -1;
		if (frees.n && (next < 0 || frees.t[0] < next))
			next = frees.t[0];
		if (placed < total && next < 0) {
			snprintf(why, wl, "stuck at step %lld: every ready "
				 "forward would pass a memory limit",
				 (long long)t);
			rc = -1;
			break;
		}
		if (next > t)
			t = next;
	}
	*out_makespan = makespan;
out:
	free(left);
	free(finish);
	free(ready_at);
	free(unmet);
	free(free_at);
	free(mem);
	free(placed_of);
	free(done_at);
	free(ready);
	free(cstart);
	free(cblock);
	free(cdep);
	free(wait.t);
	free(wait.e);
	free(gone.t);
	free(gone.e);
	free(frees.t);
	free(frees.e);
	return rc;
}

/* A schedule of `g` (copied, memory unlimited when `unlimited`) with the
 * given starts. */
static int make_schedule(tessel_schedule **out, const tessel_graph *g,
			 const struct flat *f, const int64_t *starts,
			 int unlimited)
{
	tessel_graph *copy = NULL;
	tessel_schedule *s = NULL;
	int rc = tessel_graph_dup(&copy, g);
	if (!rc && unlimited)
		rc = tessel_graph_set_memory_limit(copy, TESSEL_ALL_DEVICES,
						   TESSEL_UNLIMITED);
	if (!rc)
		rc = tessel_schedule_new(&s, copy, f->N);
	for (int b = 0; b < f->nb && !rc; b++)
		for (int64_t m = 0; m < f->N && !rc; m++)
			rc = tessel_schedule_set_step(s, b, m,
						      starts[(size_t)b * (size_t)f->N + (size_t)m]);
	if (!rc)
		rc = tessel_schedule_validate(s);
	tessel_graph_free(copy);
	if (rc) {
		tessel_schedule_free(s);
		return rc;
	}
	*out = s;
	return TESSEL_OK;
}

static void greedy_row(struct row *r, const tessel_graph *g,
		       const struct flat *f, enum policy pol, int64_t time_ms)
{
	/* (each baseline within the time limit: the caps K tried when it
	 * passes stop, the shortest so far kept) */
	int64_t end_ms = time_ms > 0 ? now_ms() + time_ms : 0;
	int64_t *starts = malloc((size_t)f->nb * (size_t)f->N * sizeof *starts);
	snprintf(r->name, sizeof r->name, "%s (greedy)",
		 pol == POLICY_GPIPE ? "gpipe" : "1f1b");
	if (!starts) {
		snprintf(r->why, sizeof r->why, "out of memory");
		return;
	}
	/* GPipe: nothing bounds the micro-batches in flight. 1F1B: memory
	 * does, and so does a cap K on the micro-batches in flight, the
	 * shortest order over K = 1 .. min(N, 2D) kept (a memory-bounded greedy order
	 * can otherwise fill every device and get stuck) */
	int64_t best = -1, bestk = 0, span = 0;
	int64_t kmin = pol == POLICY_GPIPE ? f->N : 1;
	int64_t kmax = pol == POLICY_GPIPE ? f->N
		: (f->N < 2 * (int64_t)f->D ? f->N : 2 * (int64_t)f->D);
	for (int64_t k = kmin; k <= kmax; k++) {
		if (k > kmin && end_ms && now_ms() > end_ms)
			break;
		if (greedy(starts, f, pol, k, end_ms, &span, r->why, sizeof r->why))
			continue;
		if (best < 0 || span < best) {
			best = span;
			bestk = k;
		}
	}
	if (best >= 0 && greedy(starts, f, pol, bestk, 0, &span, r->why,
				sizeof r->why) == 0) {
		r->why[0] = '\0';
		if (pol == POLICY_1F1B)
			snprintf(r->name, sizeof r->name, "1f1b (greedy, %lld)",
				 (long long)bestk);
		int rc = make_schedule(&r->s, g, f, starts, pol == POLICY_GPIPE);
		if (rc)
			snprintf(r->why, sizeof r->why, "invalid: %s",
				 tessel_error_last());
	}
	free(starts);
}

/* ------------------------------------------------------------------------ */
/* Published orders                                                           */
/* ------------------------------------------------------------------------ */

static int int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* 1 when graphs a and b have the same blocks (kind, memory, devices,
 * dependencies, gid by gid); spans and latencies may differ: a family's
 * order is replayed with the placement's own. */
static int same_structure(const struct flat *a, const struct flat *b)
{
	if (a->nb != b->nb || a->D != b->D)
		return 0;
	for (int k = 0; k < a->nb; k++) {
		if (a->kind[k] != b->kind[k] ||
		    a->mem[k] != b->mem[k] || a->ndev[k] != b->ndev[k] ||
		    a->ndeps[k] != b->ndeps[k])
			return 0;
		qsort(a->dev[k], (size_t)a->ndev[k], sizeof(int), int_cmp);
		qsort(b->dev[k], (size_t)b->ndev[k], sizeof(int), int_cmp);
		qsort(a->deps[k], (size_t)a->ndeps[k], sizeof(int), int_cmp);
		qsort(b->deps[k], (size_t)b->ndeps[k], sizeof(int), int_cmp);
		if (memcmp(a->dev[k], b->dev[k], (size_t)a->ndev[k] * sizeof(int)) ||
		    memcmp(a->deps[k], b->deps[k],
			   (size_t)a->ndeps[k] * sizeof(int)))
			return 0;
	}
	return 1;
}

/* The span of the first block of `kind`, 0 when none. */
static int first_span(const struct flat *f, int kind)
{
	for (int b = 0; b < f->nb; b++)
		if (f->kind[b] == kind)
			return (int)f->span[b];
	return 0;
}

/* Add a row for each published family whose placement is this one. */
static size_t published_rows(struct row *rows, size_t max,
			     const struct flat *f, const tessel_graph *g)
{
	static const struct { pub_family fam; int chunks; } fams[] = {
		{PUB_GPIPE, 0}, {PUB_1F1B, 0}, {PUB_ZB_H1, 0},
		{PUB_INTERLEAVED, 2}, {PUB_INTERLEAVED, 3},
		{PUB_INTERLEAVED, 4}, {PUB_CHIMERA, 0},
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof fams / sizeof fams[0] && n < max; i++) {
		pub_params p = {
			.devices = f->D,
			/* a pair family's micro-batch is two model ones */
			.micros = pub_family_pairs(fams[i].fam) ? 2 * f->N : f->N,
			.f = first_span(f, TESSEL_KIND_FORWARD),
			.b = first_span(f, TESSEL_KIND_BACKWARD),
			.w = first_span(f, TESSEL_KIND_WEIGHT),
			.chunks = fams[i].chunks, .latency = 0,
		};
		if (p.f < 1 || p.b < 1 ||
		    (pub_family_splits(fams[i].fam) && p.w < 1))
			continue;
		pub_order *o = NULL;
		char why[200];
		if (pub_order_build(&o, fams[i].fam, &p, why, sizeof why))
			continue;
		struct flat pf;
		int match = flat_build(&pf, o->graph, f->N) == TESSEL_OK &&
			    same_structure(&pf, f);
		flat_free(&pf);
		/* the order on the placement itself: its spans, stage by
		 * stage, and its latencies (without its memory limits: the
		 * published schedule is shown under its own peak) */
		tessel_graph *own = NULL;
		if (match && tessel_graph_dup(&own, g) == TESSEL_OK &&
		    tessel_graph_set_memory_limit(own, TESSEL_ALL_DEVICES,
						  TESSEL_UNLIMITED) == TESSEL_OK) {
			tessel_graph_free(o->graph);
			o->graph = own;
			own = NULL;
		} else {
			match = 0;
		}
		tessel_graph_free(own);
		if (match) {
			struct row *r = &rows[n++];
			memset(r, 0, sizeof *r);
			if (fams[i].chunks)
				snprintf(r->name, sizeof r->name,
					 "%s-%d (published)",
					 pub_family_name(fams[i].fam),
					 fams[i].chunks);
			else
				snprintf(r->name, sizeof r->name,
					 "%s (published)",
					 pub_family_name(fams[i].fam));
			if (pub_order_schedule(&r->s, NULL, o, r->why,
					       sizeof r->why))
				r->s = NULL;
		}
		pub_order_free(o);
	}
	return n;
}

/* ------------------------------------------------------------------------ */
/* The command                                                                */
/* ------------------------------------------------------------------------ */

static int apply_compare_option(void *args, int c, const char *arg)
{
	struct compare_args *a = args;
	switch (c) {
	case 'd':
		return cli_parse_int(&a->devices, "--devices", arg, 1, 4096);
	case 'm':
		a->memory_given = 1;
		if (strcmp(arg, "unlimited") == 0) {
			a->memory = TESSEL_UNLIMITED;
			return 0;
		}
		return cli_parse_int(&a->memory, "--memory", arg, 0, (int64_t)1 << 50);
	case 'n':
		return cli_parse_int(&a->micros, "--micro-batches", arg, 1,
				     COMPARE_MAX_MICROS);
	case 't':
		return cli_parse_seconds(&a->time_ms, "--time-limit", arg);
	case OPT_FAST:
		a->fast = 1;
		return 0;
	case 'D':
		a->durations = arg;
		return 0;
	case 'l':
		return cli_parse_real(&a->latency, "--latency", arg, 0, 1e12, 0);
	default:
		return -1;
	}
}

static int parse_args(struct compare_args *a, int argc, char **argv)
{
	int status = cli_parse_options(argc, argv, ":hVd:m:n:t:D:l:",
				       compare_options, compare_usage,
				       apply_compare_option, a);
	if (status >= 0)
		return status;
	if (optind >= argc) {
		cli_error("compare: no placement given (a preset name or a "
			  "placement JSON file)");
		cli_error("try 'tessel compare --help'");
		return CLI_EXIT_USAGE;
	}
	if (optind + 1 < argc) {
		cli_error("compare: unexpected argument '%s'", argv[optind + 1]);
		cli_error("try 'tessel compare --help'");
		return CLI_EXIT_USAGE;
	}
	a->placement = argv[optind];
	return -1;
}

static int load(tessel_graph **g, const struct compare_args *a)
{
	struct stat st;
	int rc;
	if (cli_is_stdin(a->placement) || stat(a->placement, &st) == 0) {
		rc = cli_load_graph(g, a->placement);
		if (rc)
			return rc;
		if (a->memory_given) {
			rc = tessel_graph_set_memory_limit(*g, TESSEL_ALL_DEVICES,
							   a->memory);
			if (!rc)
				rc = tessel_graph_validate(*g);
			if (rc)
				return cli_lib_error(rc, "--memory");
		}
		return 0;
	}
	rc = tessel_preset(g, a->placement, (int)a->devices, 0,
			   a->memory_given ? a->memory : TESSEL_PRESET_MEMORY);
	if (!rc)
		rc = tessel_graph_validate(*g);
	if (rc == TESSEL_ENOTFOUND) {
		cli_lib_error(rc, a->placement);
		cli_error("'%s' is neither a file nor a preset ('tessel "
			  "presets' lists them)", a->placement);
		return CLI_EXIT_USAGE;
	}
	return rc ? cli_lib_error(rc, a->placement) : 0;
}

/* 1 when the schedule's peak stays within the placement's limits. */
static int within_limits(const tessel_schedule *s, const struct flat *f)
{
	for (int d = 0; d < f->D; d++) {
		int64_t peak = 0;
		tessel_schedule_peak_memory(&peak, s, d);
		if (f->limit[d] >= 0 && peak > f->limit[d])
			return 0;
	}
	return 1;
}

/* The row's schedule simulated under the durations: its makespan and
 * bubble; on failure (the error code) the row loses its schedule and
 * says why. */
static int simulate_row(struct row *r, const double *dur, size_t count,
			double latency, int D)
{
	tessel_simulation *sim = NULL;
	if (!r->s)
		return TESSEL_OK;
	int rc = tessel_simulate(&sim, r->s, dur, count, latency, 0, 0);
	if (rc) {
		snprintf(r->why, sizeof r->why, "simulation: %s",
			 tessel_error_last());
		tessel_schedule_free(r->s);
		r->s = NULL;
		return rc;
	}
	double idle = 0, v = 0;
	tessel_simulation_get(&r->makespan, sim, TESSEL_SIM_MAKESPAN, 0);
	for (int d = 0; d < D; d++) {
		tessel_simulation_get(&v, sim, TESSEL_SIM_IDLE, d);
		idle += v;
	}
	r->bubble = r->makespan > 0 ? 100.0 * idle / (D * r->makespan) : 0;
	tessel_simulation_free(sim);
	return TESSEL_OK;
}

int cli_compare(int argc, char **argv)
{
	struct compare_args a = { .devices = 8, .micros = 16,
				  .time_ms = 60000 };
	int status = parse_args(&a, argc, argv);
	if (status >= 0)
		return status;
	tessel_graph *g = NULL;
	tessel_options *opt = NULL;
	struct row rows[12];
	size_t nrows = 0;
	double *dur = NULL;
	size_t count = 0;
	struct flat f;
	memset(&f, 0, sizeof f);
	memset(rows, 0, sizeof rows);
	status = load(&g, &a);
	if (status)
		goto out;
	int rc = flat_build(&f, g, a.micros);
	if (rc) {
		status = cli_lib_error(rc, "compare");
		goto out;
	}
	if (a.durations) {
		char *text = NULL;
		size_t len = 0;
		if ((status = cli_read_file(&text, &len, a.durations)))
			goto out;
		rc = tessel_durations_from_json(&dur, g, text, len);
		free(text);
		if (rc) {
			status = cli_lib_error(rc, a.durations);
			goto out;
		}
		count = (size_t)f.nb;
	}
	rc = tessel_options_new(&opt);
	if (!rc)
		rc = tessel_options_set(opt, TESSEL_OPT_MICRO_BATCHES, a.micros);
	if (!rc)
		rc = tessel_options_set(opt, TESSEL_OPT_TIME_LIMIT_MS, a.time_ms);
	if (!rc && a.fast)
		rc = tessel_options_set(opt, TESSEL_OPT_FAST, 1);
	if (rc) {
		status = cli_lib_error(rc, "compare");
		goto out;
	}
	struct row *t = &rows[nrows++];
	snprintf(t->name, sizeof t->name, "tessel");
	rc = tessel_search(&t->s, g, opt);
	if (rc) {
		status = cli_lib_error(rc, "compare: search");
		goto out;
	}
	greedy_row(&rows[nrows++], g, &f, POLICY_GPIPE, a.time_ms);
	greedy_row(&rows[nrows++], g, &f, POLICY_1F1B, a.time_ms);
	size_t npub = published_rows(&rows[nrows], 12 - nrows, &f, g);
	nrows += npub;
	/* libtessel's schedule, the reference of every speedup: when the
	 * durations (or the latency) make it impossible to simulate, so are
	 * the others' (the times overflow): bad input, nothing printed */
	rc = simulate_row(&rows[0], dur, count, a.latency, f.D);
	if (rc) {
		cli_error("compare: %s: %s", a.durations ? a.durations : "the placement's durations",
			  rows[0].why);
		status = cli_exit_status(rc) == CLI_EXIT_OK ? CLI_EXIT_FAIL : cli_exit_status(rc);
		goto out;
	}
	size_t simulated = 0, baselines = 0;
	for (size_t i = 1; i < nrows; i++) {
		baselines += rows[i].s != NULL;
		simulated += rows[i].s && !simulate_row(&rows[i], dur, count, a.latency, f.D);
	}

	printf("# %s: %d devices, %lld micro-batches, memory limit",
	       a.placement, f.D, (long long)a.micros);
	int same = 1;
	for (int d = 1; d < f.D; d++)
		same &= f.limit[d] == f.limit[0];
	for (int d = 0; d < (same ? 1 : f.D); d++) {
		if (f.limit[d] < 0)
			printf(" unlimited");
		else
			printf(" %lld", (long long)f.limit[d]);
	}
	printf("%s; durations %s; extra latency %.15g\n", same ? " per device" : "",
	       a.durations ? a.durations : "the placement's", a.latency);
	printf("%-24s %10s %9s %8s  %s\n", "schedule", "makespan", "bubble %",
	       "speedup", "peak memory per device");
	double best = -1, best_in = -1;
	for (size_t i = 1; i < nrows; i++) {
		if (!rows[i].s)
			continue;
		if (best < 0 || rows[i].makespan < best)
			best = rows[i].makespan;
		if (within_limits(rows[i].s, &f) &&
		    (best_in < 0 || rows[i].makespan < best_in))
			best_in = rows[i].makespan;
	}
	for (size_t i = 0; i < nrows; i++) {
		struct row *r = &rows[i];
		if (!r->s) {
			printf("%-24s %10s %9s %8s  (%s)\n", r->name, "-", "-",
			       "-", r->why);
			continue;
		}
		char speed[16];
		if (i == 0)
			snprintf(speed, sizeof speed, "1.00x");
		else
			snprintf(speed, sizeof speed, "%.2fx",
				 r->makespan / rows[0].makespan);
		printf("%-24s %10.15g %9.1f %8s  ", r->name, r->makespan,
		       r->bubble, speed);
		int over = 0;
		for (int d = 0; d < f.D; d++) {
			int64_t peak = 0;
			tessel_schedule_peak_memory(&peak, r->s, d);
			printf("%s%lld", d ? " " : "", (long long)peak);
			if (f.limit[d] >= 0 && peak > f.limit[d])
				over = 1;
		}
		printf("%s\n", over ? "  (over the limit)" : "");
	}
	if (npub == 0)
		printf("# no published family (GPipe, 1F1B, ZB-H1, interleaved "
		       "1F1B, Chimera) has this placement's blocks, devices and "
		       "dependencies: gpipe and 1f1b above are greedy orders on it\n");
	if (best_in > 0)
		printf("# libtessel's speedup over the best baseline within the "
		       "memory limits: %.2fx\n", best_in / rows[0].makespan);
	else if (baselines > 0 && simulated == 0)
		printf("# no baseline could be simulated\n");
	else
		printf("# no baseline within the memory limits\n");
	if (best > 0)
		printf("# over the best baseline, memory aside: %.2fx\n",
		       best / rows[0].makespan);
	status = cli_flush_stdout() ? CLI_EXIT_USAGE : CLI_EXIT_OK;
out:
	for (size_t i = 0; i < nrows; i++)
		tessel_schedule_free(rows[i].s);
	flat_free(&f);
	tessel_free(dur);
	tessel_options_free(opt);
	tessel_graph_free(g);
	return status;
}
