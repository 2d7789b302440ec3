/* The published GPipe and 1F1B orders on a pipeline placement of the
 * exploration, executed as early as possible: the baselines each
 * candidate's speedup is measured against (GPipe: Huang et al., NeurIPS
 * 2019; 1F1B: Narayanan et al., SOSP 2019 / PipeDream-flush). */
#include "explore_baseline.h"

#include <stdio.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "util.h"

typedef struct order {
	const tessel_graph *g;
	int64_t N;
	int D;
	int *f, *b;          /* [stage]: gids, b -1 in inference */
	int64_t **ent;       /* [d]: gid * N + m, in order */
	int64_t *len, *pos, *free_at;
	int64_t *end;        /* [gid * N + m]: -1 not placed */
	const tsl_baseline_stop *stop; /* may be NULL */
} order;

/* Whether the caller asks the baseline to stop (asked every 2^16
 * entries). */
static int stop_asked(const order *o)
{
	return o->stop && o->stop->fn && o->stop->fn(o->stop->arg);
}

static void push(order *o, int d, int gid, int64_t m)
{
	o->ent[d][o->len[d]++] = (int64_t)gid * o->N + m;
}

static void build_order(order *o, int d, int gpipe)
{
	int64_t N = o->N;
	if (gpipe || o->b[d] < 0) {
		for (int64_t m = 0; m < N; m++)
			push(o, d, o->f[d], m);
		for (int64_t m = 0; m < N && o->b[d] >= 0; m++)
			push(o, d, o->b[d], m);
		return;
	}
	int64_t w = o->D - 1 - d < N ? o->D - 1 - d : N;
	for (int64_t m = 0; m < w; m++)
		push(o, d, o->f[d], m);
	for (int64_t i = 0; i < N - w; i++) {
		push(o, d, o->f[d], w + i);
		push(o, d, o->b[d], i);
	}
	for (int64_t m = N - w; m < N; m++)
		push(o, d, o->b[d], m);
}

/* Place entries as early as possible until none can move; 1 when every
 * entry is placed, 0 when the order waits for itself, -1 when the caller
 * asked to stop. */
static int run(order *o)
{
	const tessel_graph *g = o->g;
	int moved = 1;
	int64_t placed = 0;
	while (moved) {
		moved = 0;
		for (int d = 0; d < o->D; d++)
			while (o->pos[d] < o->len[d]) {
				int64_t e = o->ent[d][o->pos[d]];
				int gid = (int)(e / o->N);
				int64_t m = e % o->N;
				const tsl_block *B = &g->blocks[gid];
				int64_t at = o->free_at[d];
				int ready = 1;
				for (int j = 0; j < B->ndeps && ready; j++) {
					int64_t x = o->end[(int64_t)B->deps[j] * o->N + m];
					if (x < 0)
						ready = 0;
					else if (x + tsl_dep_latency(g, B, j) > at)
						at = x + tsl_dep_latency(g, B, j);
				}
				if (!ready)
					break;
				o->end[e] = at + B->span;
				o->free_at[d] = at + B->span;
				o->pos[d]++;
				moved = 1;
				if ((++placed & 0xffff) == 0 && stop_asked(o))
					return -1;
			}
	}
	for (int d = 0; d < o->D; d++)
		if (o->pos[d] < o->len[d])
			return 0;
	return 1;
}

static int find_stage_blocks(order *o, char *why, size_t whylen)
{
	for (int s = 0; s < o->D; s++) {
		char name[32];
		snprintf(name, sizeof name, "f%d", s);
		if (tessel_graph_find(&o->f[s], o->g, name)) {
			tessel_error_clear();
			snprintf(why, whylen, "not a pipeline of one stage per device");
			return TSL_OK;
		}
		snprintf(name, sizeof name, "b%d", s);
		if (tessel_graph_find(&o->b[s], o->g, name)) {
			tessel_error_clear();
			o->b[s] = -1;
		}
	}
	return TSL_OK;
}

static int to_schedule(tessel_schedule **out, const order *o, char *why,
		       size_t whylen)
{
	tessel_schedule *s = NULL;
	int rc = tessel_schedule_new(&s, o->g, o->N);
	int64_t count = (int64_t)o->g->nblocks * o->N;
	for (int64_t e = 0; e < count && !rc; e++)
		rc = tessel_schedule_set_step(s, (int)(e / o->N), e % o->N,
					      o->end[e] - o->g->blocks[e / o->N].span);
	if (!rc) {
		rc = tessel_schedule_validate(s);
		if (rc == TESSEL_EVIOLATION) {
			snprintf(why, whylen, "%s", tessel_error_last());
			tessel_error_clear();
			rc = TSL_OK;
			tessel_schedule_free(s);
			s = NULL;
		}
	}
	if (rc) {
		tessel_schedule_free(s);
		return rc;
	}
	*out = s;
	return TSL_OK;
}

int tsl_baseline_schedule(tessel_schedule **out, const tessel_graph *g,
			  const tsl_plan *p, int64_t nmicros,
			  const tsl_baseline_stop *stop, char *why,
			  size_t whylen)
{
	*out = NULL;
	why[0] = '\0';
	int D = g->ndevices;
	int64_t count = (int64_t)g->nblocks * nmicros;
	/* a schedule the library cannot hold: said before any work */
	if (count > TESSEL_MAX_ENTRIES) {
		snprintf(why, whylen,
			 "%d blocks x %lld micro-batches exceeds the %lld entries "
			 "a schedule holds", g->nblocks, (long long)nmicros,
			 (long long)TESSEL_MAX_ENTRIES);
		return TSL_OK;
	}
	order o = {g, nmicros, D, tsl_calloc((size_t)D, sizeof(int)),
		   tsl_calloc((size_t)D, sizeof(int)),
		   tsl_calloc((size_t)D, sizeof(int64_t *)),
		   tsl_calloc((size_t)D, sizeof(int64_t)),
		   tsl_calloc((size_t)D, sizeof(int64_t)),
		   tsl_calloc((size_t)D, sizeof(int64_t)),
		   tsl_malloc((size_t)count * sizeof(int64_t)), stop};
	int rc = o.f && o.b && o.ent && o.len && o.pos && o.free_at && o.end
			 ? TSL_OK : tsl_error_nomem();
	if (!rc)
		rc = find_stage_blocks(&o, why, whylen);
	for (int d = 0; d < D && !rc && !why[0]; d++) {
		/* (the orders of many devices and micro-batches take a
		 * while to build: a stop asked is heard between devices) */
		if (stop_asked(&o)) {
			rc = tsl_error(TESSEL_ECANCELLED, "the baseline was stopped");
			break;
		}
		o.ent[d] = tsl_malloc(2 * (size_t)nmicros * sizeof(int64_t));
		if (!o.ent[d])
			rc = tsl_error_nomem();
		else
			build_order(&o, d, p->mode == TSL_PLAN_GPIPE);
	}
	if (!rc && !why[0] && stop_asked(&o))
		rc = tsl_error(TESSEL_ECANCELLED, "the baseline was stopped");
	if (!rc && !why[0]) {
		for (int64_t e = 0; e < count; e++)
			o.end[e] = -1;
		int ran = run(&o);
		if (ran < 0)
			rc = tsl_error(TESSEL_ECANCELLED, "the baseline was stopped");
		else if (!ran)
			snprintf(why, whylen, "the order waits for itself");
		else
			rc = to_schedule(out, &o, why, whylen);
	}
	for (int d = 0; o.ent && d < D; d++)
		tsl_free(o.ent[d]);
	tsl_free(o.f);
	tsl_free(o.b);
	tsl_free(o.ent);
	tsl_free(o.len);
	tsl_free(o.pos);
	tsl_free(o.free_at);
	tsl_free(o.end);
	return rc;
}
