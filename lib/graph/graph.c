/* The graph model: blocks, placements, dependencies, memory limits. */
#include "graph.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "graph_alt.h"
#include "util.h"

#define CHECK_GRAPH(g) TSL_CHECK_ARG(g, NULL, "graph")

static int check_gid(const tessel_graph *g, int gid)
{
	if (gid < 0 || gid >= g->nblocks)
		return tsl_error(TESSEL_ENOTFOUND,
				 "block id %d out of range (graph has %d blocks)",
				 gid, g->nblocks);
	return TSL_OK;
}

/* g not NULL and gid one of its blocks. */
static int check_graph_gid(const tessel_graph *g, int gid)
{
	CHECK_GRAPH(g);
	return check_gid(g, gid);
}

/* *b: block gid of g, when g is not NULL, gid one of its blocks and
 * index one of the block's dependencies. */
static int dep_at(const tsl_block **b, const tessel_graph *g, int gid,
		  size_t index)
{
	int rc = check_graph_gid(g, gid);

	if (rc)
		return rc;
	*b = &g->blocks[gid];
	if (index >= (size_t)(*b)->ndeps)
		return tsl_error(TESSEL_ENOTFOUND,
				 "block \"%s\" has %d dependencies, index %zu requested",
				 (*b)->name, (*b)->ndeps, index);
	return TSL_OK;
}

static uint64_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int hash_lookup(const tessel_graph *g, const char *name)
{
	if (!g->hashcap)
		return -1;
	size_t mask = g->hashcap - 1;
	for (size_t i = hash_name(name) & mask;; i = (i + 1) & mask) {
		int v = g->hash[i];
		if (v == 0)
			return -1;
		if (strcmp(g->blocks[v - 1].name, name) == 0)
			return v - 1;
	}
}

static void hash_insert_raw(int *table, size_t cap, const tessel_graph *g,
			    int gid)
{
	size_t mask = cap - 1;
	size_t i = hash_name(g->blocks[gid].name) & mask;
	while (table[i])
		i = (i + 1) & mask;
	table[i] = gid + 1;
}

/* Make room in the hash table for `more` more names. */
static int hash_grow_by(tessel_graph *g, size_t more)
{
	if (((size_t)g->nblocks + more) * 2 <= g->hashcap)
		return TSL_OK;
	size_t cap = g->hashcap ? g->hashcap * 2 : 64;
	while (cap < ((size_t)g->nblocks + more) * 2)
		cap *= 2;
	int *table = tsl_calloc(cap, sizeof *table);
	if (!table)
		return tsl_error_nomem();
	for (int i = 0; i < g->nblocks; i++)
		hash_insert_raw(table, cap, g, i);
	tsl_free(g->hash);
	g->hash = table;
	g->hashcap = cap;
	return TSL_OK;
}

TESSEL_API int tessel_graph_new(tessel_graph **out, int ndevices)
{
	TSL_CHECK_ARG(out, NULL, "out");
	*out = NULL;
	if (ndevices < 1 || ndevices > TESSEL_MAX_DEVICES)
		return tsl_error(TESSEL_ERANGE,
				 "devices must be 1 .. %d, got %d",
				 TESSEL_MAX_DEVICES, ndevices);
	tessel_graph *g = tsl_calloc(1, sizeof *g);
	if (!g)
		return tsl_error_nomem();
	g->ndevices = ndevices;
	g->memory_limit = tsl_calloc((size_t)ndevices, sizeof *g->memory_limit);
	if (!g->memory_limit) {
		tsl_free(g);
		return tsl_error_nomem();
	}
	for (int d = 0; d < ndevices; d++)
		g->memory_limit[d] = TESSEL_UNLIMITED;
	g->latency_time = -1;
	*out = g;
	return TSL_OK;
}

static void block_release(tsl_block *b)
{
	tsl_free(b->name);
	tsl_free(b->devices);
	tsl_free(b->deps);
	tsl_free(b->deplat);
	tsl_free(b->deptime);
}

TESSEL_API void tessel_graph_free(tessel_graph *g)
{
	if (!g)
		return;
	for (int i = 0; i < g->nblocks; i++)
		block_release(&g->blocks[i]);
	tsl_free(g->blocks);
	tsl_free(g->memory_limit);
	tsl_free(g->hash);
	tsl_free(g->unit);
	tsl_free(g->walk_mark);
	tsl_free(g->walk_stack);
	tsl_free(g);
}

/* A copy of n elements of `size` bytes (NULL for none). */
static int array_dup(void **dst, const void *src, int n, size_t size)
{
	*dst = NULL;
	if (n == 0)
		return TSL_OK;
	*dst = tsl_reallocarray(NULL, (size_t)n, size);
	if (!*dst)
		return tsl_error_nomem();
	memcpy(*dst, src, (size_t)n * size);
	return TSL_OK;
}

static int int_dup(int **dst, const int *src, int n)
{
	void *p;
	int rc = array_dup(&p, src, n, sizeof *src);

	*dst = p;
	return rc;
}

static int double_dup(double **dst, const double *src, int n)
{
	void *p;
	int rc = array_dup(&p, src, n, sizeof *src);

	*dst = p;
	return rc;
}

TESSEL_API int tessel_graph_dup(tessel_graph **out, const tessel_graph *src)
{
	TSL_CHECK_ARG(out, NULL, "out");
	*out = NULL;
	CHECK_GRAPH(src);
	tessel_graph *g;
	int rc = tessel_graph_new(&g, src->ndevices);
	if (rc)
		return rc;
	memcpy(g->memory_limit, src->memory_limit,
	       (size_t)src->ndevices * sizeof *g->memory_limit);
	g->latency = src->latency;
	g->latency_time = src->latency_time;
	g->step = src->step;
	if (src->unit) {
		g->unit = tsl_strdup(src->unit);
		if (!g->unit) {
			tessel_graph_free(g);
			return tsl_error_nomem();
		}
	}
	g->blocks = tsl_calloc((size_t)src->nblocks, sizeof *g->blocks);
	g->hash = tsl_calloc(src->hashcap, sizeof *g->hash);
	if (!g->blocks || !g->hash) {
		tessel_graph_free(g);
		return tsl_error_nomem();
	}
	g->cap = src->nblocks;
	g->hashcap = src->hashcap;
	if (src->hashcap)
		memcpy(g->hash, src->hash, src->hashcap * sizeof *g->hash);
	for (int i = 0; i < src->nblocks; i++) {
		const tsl_block *s = &src->blocks[i];
		tsl_block *d = &g->blocks[i];
		*d = *s;
		d->name = NULL;
		d->devices = NULL;
		d->deps = NULL;
		d->deplat = NULL;
		d->deptime = NULL;
		g->nblocks = i + 1;
		d->name = tsl_strdup(s->name);
		if (!d->name || int_dup(&d->devices, s->devices, s->ndevices) ||
		    int_dup(&d->deps, s->deps, s->ndeps) ||
		    int_dup(&d->deplat, s->deplat, s->ndeps) ||
		    double_dup(&d->deptime, s->deptime, s->ndeps)) {
			tessel_graph_free(g);
			return tsl_error_nomem();
		}
		d->depcap = s->ndeps;
	}
	*out = g;
	return TSL_OK;
}

TESSEL_API int tessel_graph_add_block(int *out_gid, tessel_graph *g,
				      const char *name, tessel_kind kind,
				      int span, int memory)
{
	CHECK_GRAPH(g);
	if (!name || !*name)
		return tsl_error(TESSEL_EINVAL, "block %d: name is empty",
				 g->nblocks);
	if (kind != TESSEL_KIND_FORWARD && kind != TESSEL_KIND_BACKWARD &&
	    kind != TESSEL_KIND_WEIGHT)
		return tsl_error(TESSEL_EINVAL, "block \"%s\": unknown kind %d",
				 name, (int)kind);
	if (span < 1 || span > TESSEL_MAX_SPAN)
		return tsl_error(TESSEL_ERANGE,
				 "block \"%s\": span must be 1 .. %d, got %d",
				 name, TESSEL_MAX_SPAN, span);
	if (memory < -TESSEL_MAX_MEMORY || memory > TESSEL_MAX_MEMORY)
		return tsl_error(TESSEL_ERANGE,
				 "block \"%s\": memory must be within +-%d, got %d",
				 name, TESSEL_MAX_MEMORY, memory);
	if (g->nblocks >= TESSEL_MAX_BLOCKS)
		return tsl_error(TESSEL_ERANGE,
				 "block \"%s\": graph already has the maximum of %d blocks",
				 name, TESSEL_MAX_BLOCKS);
	int other = hash_lookup(g, name);
	if (other >= 0)
		return tsl_error(TESSEL_EEXISTS,
				 "block %d: name \"%s\" is already used by block %d",
				 g->nblocks, name, other);
	if (g->nblocks == g->cap) {
		int cap = g->cap ? g->cap * 2 : 16;
		tsl_block *nb = tsl_reallocarray(g->blocks, (size_t)cap,
						 sizeof *nb);
		if (!nb)
			return tsl_error_nomem();
		g->blocks = nb;
		g->cap = cap;
	}
	if (hash_grow_by(g, 1))
		return TESSEL_ENOMEM;
	tsl_block *b = &g->blocks[g->nblocks];
	memset(b, 0, sizeof *b);
	b->name = tsl_strdup(name);
	if (!b->name)
		return tsl_error_nomem();
	b->kind = kind;
	b->span = span;
	b->memory = memory;
	b->stage = -1;
	b->rc_backward = -1;
	b->of_backward = -1;
	int gid = g->nblocks++;
	hash_insert_raw(g->hash, g->hashcap, g, gid);
	if (out_gid)
		*out_gid = gid;
	return TSL_OK;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

TESSEL_API int tessel_graph_place(tessel_graph *g, int gid, const int *devices,
				  size_t count)
{
	int rc = check_graph_gid(g, gid);
	if (rc)
		return rc;
	tsl_block *b = &g->blocks[gid];
	if (!devices || count == 0)
		return tsl_error(TESSEL_EINVAL,
				 "block \"%s\": device list is empty", b->name);
	if (count > (size_t)g->ndevices)
		return tsl_error(TESSEL_EINVAL,
				 "block \"%s\": %zu devices listed, graph has %d",
				 b->name, count, g->ndevices);
	int *d = tsl_reallocarray(NULL, count, sizeof *d);
	if (!d)
		return tsl_error_nomem();
	memcpy(d, devices, count * sizeof *d);
	qsort(d, count, sizeof *d, cmp_int);
	for (size_t i = 0; i < count; i++) {
		if (d[i] < 0 || d[i] >= g->ndevices) {
			int bad = d[i];
			tsl_free(d);
			return tsl_error(TESSEL_EINVAL,
					 "block \"%s\": unknown device %d (devices are 0 .. %d)",
					 b->name, bad, g->ndevices - 1);
		}
		if (i > 0 && d[i] == d[i - 1]) {
			int bad = d[i];
			tsl_free(d);
			return tsl_error(TESSEL_EINVAL,
					 "block \"%s\": device %d listed twice",
					 b->name, bad);
		}
	}
	tsl_free(b->devices);
	b->devices = d;
	b->ndevices = (int)count;
	return TSL_OK;
}

/* Blocks the cycle check of add_dep walks at most; beyond, a cycle is
 * found by tessel_graph_validate. */
#define TSL_CYCLE_WALK 4096

/* Whether `after` is among the blocks `before` waits for, directly or
 * not (so that before -> after would close a cycle): a walk back from
 * `before` over at most TSL_CYCLE_WALK blocks. 1: yes, 0: no or not
 * found within the walk, TESSEL_ENOMEM. */
static int closes_cycle(tessel_graph *g, int before, int after)
{
	/* nothing waits for `after`, or `before` waits for nothing: no cycle
	 * (the common cases: blocks added in either dependency order) */
	if (g->defer_cycles || g->blocks[after].nsucc == 0 ||
	    g->blocks[before].ndeps == 0)
		return 0;
	if (g->walk_cap < g->nblocks) {
		int cap = g->cap > g->nblocks ? g->cap : g->nblocks;
		unsigned *m = tsl_reallocarray(g->walk_mark, (size_t)cap, sizeof *m);
		if (!m)
			return tsl_error_nomem();
		g->walk_mark = m;
		int *st = tsl_reallocarray(g->walk_stack, (size_t)cap, sizeof *st);
		if (!st)
			return tsl_error_nomem();
		g->walk_stack = st;
		for (int i = g->walk_cap; i < cap; i++)
			m[i] = 0;
		g->walk_cap = cap;
	}
	if (++g->walk_stamp == 0) { /* wrapped: clear the marks */
		for (int i = 0; i < g->walk_cap; i++)
			g->walk_mark[i] = 0;
		g->walk_stamp = 1;
	}
	int top = 0, seen = 1;
	g->walk_stack[top++] = before;
	g->walk_mark[before] = g->walk_stamp;
	while (top > 0) {
		const tsl_block *v = &g->blocks[g->walk_stack[--top]];
		for (int j = 0; j < v->ndeps; j++) {
			int p = v->deps[j];
			if (p == after)
				return 1;
			if (g->walk_mark[p] == g->walk_stamp)
				continue;
			if (++seen > TSL_CYCLE_WALK)
				return 0; /* left to tessel_graph_validate */
			g->walk_mark[p] = g->walk_stamp;
			g->walk_stack[top++] = p;
		}
	}
	return 0;
}

static int append_dep(tessel_graph *g, tsl_block *b, int before, int lat,
		      double time);

/* Add the dependency before -> after with latency `lat` (-1: the
 * graph's), given as `time` in the placement's unit (-1: in steps). */
static int add_dep(tessel_graph *g, int before, int after, int lat,
		   double time)
{
	CHECK_GRAPH(g);
	int rc = check_gid(g, before);
	if (!rc)
		rc = check_gid(g, after);
	if (rc)
		return rc;
	tsl_block *b = &g->blocks[after];
	if (before == after)
		return tsl_error(TESSEL_ECYCLE, "block \"%s\" cannot depend on itself",
				 b->name);
	if (lat < -1 || lat > TESSEL_MAX_LATENCY)
		return tsl_error(TESSEL_ERANGE,
				 "dependency \"%s\" -> \"%s\": latency must be 0 .. %d, got %d",
				 g->blocks[before].name, b->name, TESSEL_MAX_LATENCY, lat);
	for (int i = 0; i < b->ndeps; i++)
		if (b->deps[i] == before)
			return tsl_error(TESSEL_EEXISTS,
					 "block \"%s\" already depends on \"%s\"",
					 b->name, g->blocks[before].name);
	rc = closes_cycle(g, before, after);
	if (rc < 0)
		return rc;
	if (rc)
		return tsl_error(TESSEL_ECYCLE,
				 "dependency \"%s\" -> \"%s\" closes a cycle: \"%s\" "
				 "already waits for \"%s\"",
				 g->blocks[before].name, b->name,
				 g->blocks[before].name, b->name);
	return append_dep(g, b, before, lat, time);
}

/* Append the dependency before -> b (checked: both exist, no duplicate,
 * no cycle). */
static int append_dep(tessel_graph *g, tsl_block *b, int before, int lat,
		      double time)
{
	if (b->ndeps == b->depcap) {
		int cap = b->depcap ? b->depcap * 2 : 4;
		int *nd = tsl_reallocarray(b->deps, (size_t)cap, sizeof *nd);
		if (!nd)
			return tsl_error_nomem();
		b->deps = nd;
		int *nl = tsl_reallocarray(b->deplat, (size_t)cap, sizeof *nl);
		if (!nl)
			return tsl_error_nomem(); /* deps grew, depcap did not */
		b->deplat = nl;
		double *nt = tsl_reallocarray(b->deptime, (size_t)cap,
					      sizeof *nt);
		if (!nt)
			return tsl_error_nomem(); /* the same */
		b->deptime = nt;
		b->depcap = cap;
	}
	b->deplat[b->ndeps] = lat;
	b->deptime[b->ndeps] = time;
	b->deps[b->ndeps++] = before;
	g->blocks[before].nsucc++;
	return TSL_OK;
}

int tsl_graph_add_dep_known(tessel_graph *g, int before, int after, int lat)
{
	CHECK_GRAPH(g);
	int rc = check_gid(g, before);
	if (!rc)
		rc = check_gid(g, after);
	if (!rc && (lat < -1 || lat > TESSEL_MAX_LATENCY))
		rc = tsl_error(TESSEL_ERANGE, "dependency latency must be 0 .. %d, got %d",
			       TESSEL_MAX_LATENCY, lat);
	if (rc)
		return rc;
	return append_dep(g, &g->blocks[after], before, lat, -1);
}

TESSEL_API int tessel_graph_add_dep(tessel_graph *g, int before, int after)
{
	return add_dep(g, before, after, -1, -1);
}

TESSEL_API int tessel_graph_add_dep_latency(tessel_graph *g, int before,
					    int after, int latency)
{
	if (latency < 0)
		return tsl_error(TESSEL_ERANGE,
				 "dependency latency must be 0 .. %d, got %d",
				 TESSEL_MAX_LATENCY, latency);
	return add_dep(g, before, after, latency, -1);
}

TESSEL_API int tessel_graph_set_latency(tessel_graph *g, int latency)
{
	CHECK_GRAPH(g);
	if (latency < 0 || latency > TESSEL_MAX_LATENCY)
		return tsl_error(TESSEL_ERANGE, "latency must be 0 .. %d, got %d",
				 TESSEL_MAX_LATENCY, latency);
	g->latency = latency;
	g->latency_time = -1;
	return TSL_OK;
}

TESSEL_API int tessel_graph_block_dep_latency(int64_t *out, int *out_own,
					      const tessel_graph *g, int gid,
					      size_t index)
{
	TSL_CHECK_ARG(out, NULL, "out");
	const tsl_block *b;
	int rc = dep_at(&b, g, gid, index);
	if (rc)
		return rc;
	int own = b->deplat[index];
	*out = own >= 0 ? own : g->latency;
	if (out_own)
		*out_own = own >= 0;
	return TSL_OK;
}

/* ------------------------------------------------------------------------ */
/* Time: the step, durations and latencies in the placement's unit           */
/* ------------------------------------------------------------------------ */

/* Longest unit name accepted, in bytes. */
#define MAX_UNIT 32
/* Tolerance of the rounding to whole steps (relative). */
#define STEP_EPS 1e-9

double tsl_steps_of(double value, double step)
{
	double x = value / step;
	double n = nearbyint(x);

	if (!(fabs(x - n) <= STEP_EPS * (n > 1 ? n : 1)))
		n = ceil(x);
	return n < 1 ? 1 : n;
}

double tsl_block_time(const tessel_graph *g, int b)
{
	const tsl_block *B = &g->blocks[b];

	if (B->duration > 0)
		return B->duration;
	return g->step > 0 ? B->span * g->step : B->span;
}

/* A latency of `steps` given as `time` (-1: in steps) in the unit. */
static double latency_in_unit(const tessel_graph *g, int steps, double time)
{
	if (time >= 0)
		return time;
	return g->step > 0 ? steps * g->step : steps;
}

double tsl_dep_latency_time(const tessel_graph *g, const tsl_block *B, int j)
{
	if (B->deplat[j] >= 0)
		return latency_in_unit(g, B->deplat[j], B->deptime[j]);
	return latency_in_unit(g, g->latency, g->latency_time);
}

/* Steps of a time latency (0 for 0), into *out; TESSEL_ERANGE (naming
 * `what`) for a latency that is not a finite number >= 0 or needs more
 * than TESSEL_MAX_LATENCY steps. */
static int latency_steps(int *out, double latency, double step,
			 const char *what)
{
	if (!isfinite(latency) || !(latency >= 0))
		return tsl_error(TESSEL_ERANGE,
				 "%s must be a finite number >= 0, got %g", what,
				 latency);
	double n = latency > 0 ? tsl_steps_of(latency, step) : 0;
	if (n > TESSEL_MAX_LATENCY)
		return tsl_error(TESSEL_ERANGE,
				 "%s %g is %.15g steps of %g, at most %d are allowed",
				 what, latency, n, step, TESSEL_MAX_LATENCY);
	*out = (int)n;
	return TSL_OK;
}

/* Span of a duration, into *out; TESSEL_ERANGE naming block b. */
static int duration_span(int *out, const tessel_graph *g, int b,
			 double duration, double step)
{
	const char *name = g->blocks[b].name;

	if (!isfinite(duration) || !(duration > 0))
		return tsl_error(TESSEL_ERANGE,
				 "block \"%s\": duration must be a finite number > 0, got %g",
				 name, duration);
	double n = tsl_steps_of(duration, step);
	if (n > TESSEL_MAX_SPAN)
		return tsl_error(TESSEL_ERANGE,
				 "block \"%s\": duration %g is %.15g steps of %g, at most %d are allowed",
				 name, duration, n, step, TESSEL_MAX_SPAN);
	*out = (int)n;
	return TSL_OK;
}

/* A step > 0 must be set before times can be given. */
static int need_step(const tessel_graph *g, const char *fn)
{
	if (g->step > 0)
		return TSL_OK;
	return tsl_error(TESSEL_EINVAL,
			 "%s: the graph has no step; set one with tessel_graph_set_step",
			 fn);
}

/* The spans and latencies that `step` gives to everything given as a time
 * (apply = 0: only check them). */
static int restep(tessel_graph *g, double step, int apply)
{
	char what[320];
	int n, rc;

	for (int b = 0; b < g->nblocks; b++) {
		tsl_block *B = &g->blocks[b];
		if (B->duration > 0) {
			rc = duration_span(&n, g, b, B->duration, step);
			if (rc)
				return rc;
			if (apply)
				B->span = n;
		}
		for (int j = 0; j < B->ndeps; j++) {
			if (B->deplat[j] < 0 || B->deptime[j] < 0)
				continue;
			snprintf(what, sizeof what,
				 "dependency \"%.100s\" -> \"%.100s\": latency",
				 g->blocks[B->deps[j]].name, B->name);
			rc = latency_steps(&n, B->deptime[j], step, what);
			if (rc)
				return rc;
			if (apply)
				B->deplat[j] = n;
		}
	}
	if (g->latency_time >= 0) {
		rc = latency_steps(&n, g->latency_time, step, "latency");
		if (rc)
			return rc;
		if (apply)
			g->latency = n;
	}
	return TSL_OK;
}

TESSEL_API int tessel_graph_set_step(tessel_graph *g, double step)
{
	CHECK_GRAPH(g);
	if (!isfinite(step) || !(step > 0))
		return tsl_error(TESSEL_ERANGE,
				 "step must be a finite number > 0, got %g", step);
	int rc = restep(g, step, 0);
	if (rc)
		return rc;
	restep(g, step, 1);
	g->step = step;
	return TSL_OK;
}

TESSEL_API int tessel_graph_step(double *out, const tessel_graph *g)
{
	TSL_CHECK_ARG(out, NULL, "out");
	CHECK_GRAPH(g);
	*out = g->step;
	return TSL_OK;
}

TESSEL_API int tessel_graph_set_unit(tessel_graph *g, const char *unit)
{
	CHECK_GRAPH(g);
	if (!unit || !*unit) {
		tsl_free(g->unit);
		g->unit = NULL;
		return TSL_OK;
	}
	size_t len = strlen(unit);
	if (len > MAX_UNIT)
		return tsl_error(TESSEL_EINVAL,
				 "unit must be at most %d bytes, got %zu",
				 MAX_UNIT, len);
	for (const unsigned char *p = (const unsigned char *)unit; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return tsl_error(TESSEL_EINVAL,
					 "unit must not contain control characters");
	if (!tsl_utf8_valid(unit))
		return tsl_error(TESSEL_EINVAL, "unit is not valid UTF-8");
	char *copy = tsl_strdup(unit);
	if (!copy)
		return tsl_error_nomem();
	tsl_free(g->unit);
	g->unit = copy;
	return TSL_OK;
}

TESSEL_API int tessel_graph_unit(const char **out, const tessel_graph *g)
{
	TSL_CHECK_ARG(out, NULL, "out");
	*out = NULL;
	CHECK_GRAPH(g);
	*out = g->unit;
	return TSL_OK;
}

TESSEL_API int tessel_graph_set_block_duration(tessel_graph *g, int gid,
					       double duration)
{
	int rc = check_graph_gid(g, gid);
	if (!rc)
		rc = need_step(g, "tessel_graph_set_block_duration");
	int span = 0;
	if (!rc)
		rc = duration_span(&span, g, gid, duration, g->step);
	if (rc)
		return rc;
	g->blocks[gid].span = span;
	g->blocks[gid].duration = duration;
	return TSL_OK;
}

TESSEL_API int tessel_graph_block_duration(double *out, int *out_given,
					   const tessel_graph *g, int gid)
{
	TSL_CHECK_ARG(out, NULL, "out");
	int rc = check_graph_gid(g, gid);
	if (rc)
		return rc;
	*out = tsl_block_time(g, gid);
	if (out_given)
		*out_given = g->blocks[gid].duration > 0;
	return TSL_OK;
}

TESSEL_API int tessel_graph_set_latency_time(tessel_graph *g, double latency)
{
	CHECK_GRAPH(g);
	int n = 0;
	int rc = need_step(g, "tessel_graph_set_latency_time");
	if (!rc)
		rc = latency_steps(&n, latency, g->step, "latency");
	if (rc)
		return rc;
	g->latency = n;
	g->latency_time = latency;
	return TSL_OK;
}

TESSEL_API int tessel_graph_latency_time(double *out, const tessel_graph *g)
{
	TSL_CHECK_ARG(out, NULL, "out");
	CHECK_GRAPH(g);
	*out = latency_in_unit(g, g->latency, g->latency_time);
	return TSL_OK;
}

TESSEL_API int tessel_graph_add_dep_latency_time(tessel_graph *g, int before,
						 int after, double latency)
{
	char what[320];
	int n = 0;

	CHECK_GRAPH(g);
	int rc = check_gid(g, before);
	if (!rc)
		rc = check_gid(g, after);
	if (!rc)
		rc = need_step(g, "tessel_graph_add_dep_latency_time");
	if (rc)
		return rc;
	snprintf(what, sizeof what,
		 "dependency \"%.100s\" -> \"%.100s\": latency",
		 g->blocks[before].name, g->blocks[after].name);
	rc = latency_steps(&n, latency, g->step, what);
	if (rc)
		return rc;
	return add_dep(g, before, after, n, latency);
}

TESSEL_API int tessel_graph_block_dep_latency_time(double *out, int *out_own,
						   const tessel_graph *g,
						   int gid, size_t index)
{
	TSL_CHECK_ARG(out, NULL, "out");
	const tsl_block *b;
	int rc = dep_at(&b, g, gid, index);
	if (rc)
		return rc;
	*out = tsl_dep_latency_time(g, b, (int)index);
	if (out_own)
		*out_own = b->deplat[index] >= 0;
	return TSL_OK;
}

/* Largest divisor of the smallest value tried: with it every value is at
 * least 100 steps, so rounding up adds less than 1 %. */
#define PICK_MAX_K 100
/* Largest rounding error allowed, relative. */
#define PICK_TOLERANCE 0.01

/* Whether `step` rounds every positive value up by at most 1 % and keeps
 * it within the span limit. */
static int step_fits(const double *v, size_t n, double step)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i] == 0)
			continue;
		double k = tsl_steps_of(v[i], step);
		if (k > TESSEL_MAX_SPAN ||
		    k * step - v[i] > PICK_TOLERANCE * v[i] * (1 + STEP_EPS))
			return 0;
	}
	return 1;
}

TESSEL_API int tessel_pick_step(double *out, const double *values,
				size_t count)
{
	TSL_CHECK_ARG(out, "tessel_pick_step", "out");
	if (!values && count)
		return tsl_error(TESSEL_EINVAL,
				 "tessel_pick_step: values is NULL");
	double lo = 0, hi = 0;
	for (size_t i = 0; i < count; i++) {
		double v = values[i];
		if (!isfinite(v) || !(v >= 0))
			return tsl_error(TESSEL_ERANGE,
					 "tessel_pick_step: value %zu must be a finite number >= 0, got %g",
					 i, v);
		if (v > 0 && (lo == 0 || v < lo))
			lo = v;
		if (v > hi)
			hi = v;
	}
	if (lo == 0)
		return tsl_error(TESSEL_EINVAL,
				 "tessel_pick_step: no value > 0 to pick a step for");
	for (int k = 1; k <= PICK_MAX_K; k++) {
		double step = lo / k;
		if (step > 0 && step_fits(values, count, step)) {
			*out = step;
			return TSL_OK;
		}
	}
	return tsl_error(TESSEL_ERANGE,
			 "tessel_pick_step: the values range from %g to %g; no step rounds them within 1 %% and keeps them within %d steps",
			 lo, hi, TESSEL_MAX_SPAN);
}

TESSEL_API int tessel_graph_set_stage(tessel_graph *g, int gid, int stage)
{
	int rc = check_graph_gid(g, gid);
	if (rc)
		return rc;
	if (stage < -1 || stage > TESSEL_MAX_BLOCKS)
		return tsl_error(TESSEL_ERANGE,
				 "block \"%s\": stage must be -1 .. %d, got %d",
				 g->blocks[gid].name, TESSEL_MAX_BLOCKS, stage);
	g->blocks[gid].stage = stage;
	return TSL_OK;
}

TESSEL_API int tessel_graph_set_memory_limit(tessel_graph *g, int device,
					     int64_t limit)
{
	CHECK_GRAPH(g);
	if (device != TESSEL_ALL_DEVICES && (device < 0 || device >= g->ndevices))
		return tsl_error(TESSEL_ENOTFOUND,
				 "memory limit: unknown device %d (devices are 0 .. %d)",
				 device, g->ndevices - 1);
	if ((limit < TESSEL_UNLIMITED || limit > (int64_t)1 << 50) &&
	    device == TESSEL_ALL_DEVICES)
		return tsl_error(TESSEL_ERANGE,
				 "memory limit of every device must be -1 (unlimited) .. 2^50, got %lld",
				 (long long)limit);
	if (limit < TESSEL_UNLIMITED || limit > (int64_t)1 << 50)
		return tsl_error(TESSEL_ERANGE,
				 "memory limit of device %d must be -1 (unlimited) .. 2^50, got %lld",
				 device, (long long)limit);
	if (device == TESSEL_ALL_DEVICES) {
		for (int d = 0; d < g->ndevices; d++)
			g->memory_limit[d] = limit;
	} else {
		g->memory_limit[device] = limit;
	}
	return TSL_OK;
}

int tsl_block_on_device(const tsl_block *b, int d)
{
	for (int i = 0; i < b->ndevices; i++)
		if (b->devices[i] == d)
			return 1;
	return 0;
}

int64_t tsl_ready_time(const tessel_graph *g, int b, const int64_t *T,
		       const char *placed)
{
	const tsl_block *B = &g->blocks[b];
	int64_t e = 0;

	for (int j = 0; j < B->ndeps; j++) {
		int a = B->deps[j];
		if ((!placed || placed[a]) && T[a] + tsl_dep_gap(g, B, j) > e)
			e = T[a] + tsl_dep_gap(g, B, j);
	}
	return e;
}

/* Whether every device of b is one of a's (both lists sorted). */
static int devices_within(const tsl_block *b, const tsl_block *a)
{
	if (b->ndevices > a->ndevices)
		return 0;
	int i = 0;
	for (int j = 0; j < b->ndevices; j++) {
		while (i < a->ndevices && a->devices[i] < b->devices[j])
			i++;
		if (i == a->ndevices || a->devices[i] != b->devices[j])
			return 0;
	}
	return 1;
}

int tsl_dep_latency(const tessel_graph *g, const tsl_block *B, int j)
{
	int lat = B->deplat[j] >= 0 ? B->deplat[j] : g->latency;
	if (lat == 0 || devices_within(B, &g->blocks[B->deps[j]]))
		return 0;
	return lat;
}

int tsl_blocks_share_device(const tsl_block *a, const tsl_block *b)
{
	int i = 0, j = 0; /* device lists are sorted */

	while (i < a->ndevices && j < b->ndevices) {
		if (a->devices[i] == b->devices[j])
			return 1;
		if (a->devices[i] < b->devices[j])
			i++;
		else
			j++;
	}
	return 0;
}

void tsl_succ_release(tsl_succ *x)
{
	tsl_free(x->start);
	tsl_free(x->block);
	tsl_free(x->dep);
	tsl_free(x->lat);
	memset(x, 0, sizeof *x);
}

int tsl_succ_build(tsl_succ *x, const tessel_graph *g)
{
	int n = g->nblocks, total = 0;

	memset(x, 0, sizeof *x);
	for (int i = 0; i < n; i++)
		total += g->blocks[i].ndeps;
	x->start = tsl_calloc((size_t)n + 1, sizeof *x->start);
	x->block = tsl_calloc((size_t)total + 1, sizeof *x->block);
	x->dep = tsl_calloc((size_t)total + 1, sizeof *x->dep);
	x->lat = tsl_calloc((size_t)total + 1, sizeof *x->lat);
	int *fill = tsl_calloc((size_t)n + 1, sizeof *fill);
	if (!x->start || !x->block || !x->dep || !x->lat || !fill) {
		tsl_free(fill);
		tsl_succ_release(x);
		return tsl_error_nomem();
	}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < g->blocks[i].ndeps; k++)
			x->start[g->blocks[i].deps[k] + 1]++;
	for (int i = 0; i < n; i++)
		x->start[i + 1] += x->start[i];
	/* consumers in ascending gid: each row comes out in gid order */
	for (int i = 0; i < n; i++)
		for (int k = 0; k < g->blocks[i].ndeps; k++) {
			int p = g->blocks[i].deps[k];
			int at = x->start[p] + fill[p]++;
			x->block[at] = i;
			x->dep[at] = k;
			x->lat[at] = tsl_dep_latency(g, &g->blocks[i], k);
		}
	tsl_free(fill);
	return TSL_OK;
}

/* A visit of a block costs about a tenth of the time of its
 * dependencies' walk (measured on 1,500 blocks of 375 dependencies each:
 * 14 to 21 ms a work unit unweighted, against about 0.4). */
#define TSL_VISIT_DEPS 10

int tsl_graph_visit_weight(const tessel_graph *g)
{
	int64_t n = g->nblocks, deps = 0;
	for (int b = 0; b < g->nblocks; b++)
		deps += g->blocks[b].ndeps;
	if (n == 0 || deps <= n * TSL_PLAIN_DEPS)
		return 16;
	int64_t w = 16 * (TSL_VISIT_DEPS * n + deps) /
		    ((TSL_VISIT_DEPS + TSL_PLAIN_DEPS) * n);
	return w < 16 ? 16 : w > INT32_MAX ? INT32_MAX : (int)w;
}

/* Kahn's algorithm; on a cycle, names a block that is on it. */
int tsl_graph_reserve(tessel_graph *g, int nblocks)
{
	if (nblocks <= g->cap || nblocks > TESSEL_MAX_BLOCKS)
		return TSL_OK;
	tsl_block *nb = tsl_reallocarray(g->blocks, (size_t)nblocks, sizeof *nb);
	if (!nb)
		return tsl_error_nomem();
	g->blocks = nb;
	g->cap = nblocks;
	return hash_grow_by(g, (size_t)(nblocks - g->nblocks)) ? TESSEL_ENOMEM
							       : TSL_OK;
}

int tsl_graph_topo_order(int *order, const tessel_graph *g)
{
	int n = g->nblocks;
	tsl_succ x;
	int *indeg = tsl_calloc((size_t)n, sizeof *indeg);
	int *fill = tsl_calloc((size_t)n, sizeof *fill);
	int rc = indeg && fill ? tsl_succ_build(&x, g) : tsl_error_nomem();
	if (rc) {
		tsl_free(indeg);
		tsl_free(fill);
		return rc;
	}
	for (int i = 0; i < n; i++)
		indeg[i] = g->blocks[i].ndeps;
	int head = 0, tail = 0;
	for (int i = 0; i < n; i++)
		if (indeg[i] == 0)
			order[tail++] = i;
	while (head < tail) {
		int v = order[head++];
		for (int k = x.start[v]; k < x.start[v + 1]; k++)
			if (--indeg[x.block[k]] == 0)
				order[tail++] = x.block[k];
	}
	if (tail < n) {
		/* Walk back along unresolved dependencies until a block repeats:
		 * that block lies on a cycle. */
		int v = -1;
		for (int i = 0; i < n; i++)
			if (indeg[i] > 0) {
				v = i;
				break;
			}
		for (int i = 0; i < n; i++) /* reuse fill as visited marks */
			fill[i] = 0;
		while (!fill[v]) {
			fill[v] = 1;
			const tsl_block *b = &g->blocks[v];
			for (int k = 0; k < b->ndeps; k++)
				if (indeg[b->deps[k]] > 0) {
					v = b->deps[k];
					break;
				}
		}
		rc = tsl_error(TESSEL_ECYCLE,
			       "dependency cycle through block \"%s\" (block %d)",
			       g->blocks[v].name, v);
	}
	tsl_free(indeg);
	tsl_succ_release(&x);
	tsl_free(fill);
	return rc;
}

/* One declared alternative of block f still fits the graph: its backward
 * on f's devices, depending on f (`reaches`, found by reach_backwards),
 * and saves within f's memory. */
static int check_alternative(const tessel_graph *g, int f, int back,
			     int saves, const char *what, int reaches)
{
	const tsl_block *a = &g->blocks[f], *b = &g->blocks[back];
	if (a->ndevices != b->ndevices ||
	    memcmp(a->devices, b->devices, (size_t)a->ndevices * sizeof *a->devices))
		return tsl_error(TESSEL_EINVAL,
				 "block \"%s\": its %s backward \"%s\" is not on the same devices",
				 a->name, what, b->name);
	if (saves > a->memory)
		return tsl_error(TESSEL_EINVAL,
				 "block \"%s\": its %s saves %d, more than its memory %d",
				 a->name, what, saves, a->memory);
	if (!reaches)
		return tsl_error(TESSEL_EINVAL,
				 "block \"%s\": its %s backward \"%s\" does not depend on it",
				 a->name, what, b->name);
	return TSL_OK;
}

/* Whether each declaring block's recompute and offload backwards depend on
 * it, directly or not: reach[2 i] and reach[2 i + 1] for block i. The
 * declaring blocks 64 at a time (in topological order): one pass over the
 * graph from the first of them carries each block's set of those it
 * depends on (a 64-bit word) to its consumers. Time O(F / 64 (n + e)) for
 * F declaring blocks, where a walk per declaration took O(F (n + e)). */
static int reach_backwards(char *reach, const tessel_graph *g, const int *order)
{
	int n = g->nblocks;
	tsl_succ x;
	int *pos = tsl_calloc((size_t)n, sizeof *pos);
	int *decl = tsl_calloc((size_t)n, sizeof *decl);
	uint64_t *mask = tsl_calloc((size_t)n, sizeof *mask);
	int rc = pos && decl && mask ? tsl_succ_build(&x, g) : tsl_error_nomem();
	if (rc) {
		tsl_free(pos);
		tsl_free(decl);
		tsl_free(mask);
		return rc;
	}
	int nd = 0;
	for (int i = 0; i < n; i++) {
		pos[order[i]] = i;
		const tsl_block *b = &g->blocks[order[i]];
		if (b->rc_backward >= 0 || b->of_backward >= 0)
			decl[nd++] = order[i];
	}
	for (int c0 = 0; c0 < nd; c0 += 64) {
		int cn = nd - c0 < 64 ? nd - c0 : 64;
		int from = pos[decl[c0]];
		memset(mask, 0, (size_t)n * sizeof *mask);
		for (int k = 0; k < cn; k++)
			mask[decl[c0 + k]] |= (uint64_t)1 << k;
		for (int i = from; i < n; i++) {
			int v = order[i];
			if (mask[v])
				for (int k = x.start[v]; k < x.start[v + 1]; k++)
					mask[x.block[k]] |= mask[v];
		}
		for (int k = 0; k < cn; k++) {
			int f = decl[c0 + k];
			const tsl_block *b = &g->blocks[f];
			uint64_t bit = (uint64_t)1 << k;
			/* (a block is in its own set: it does not depend on
			 * itself) */
			reach[2 * (size_t)f] = b->rc_backward >= 0 && b->rc_backward != f &&
					       (mask[b->rc_backward] & bit);
			reach[2 * (size_t)f + 1] = b->of_backward >= 0 && b->of_backward != f &&
						   (mask[b->of_backward] & bit);
		}
	}
	tsl_succ_release(&x);
	tsl_free(pos);
	tsl_free(decl);
	tsl_free(mask);
	return TSL_OK;
}

/* The recomputes of one micro-batch into a backward keep its span within
 * TESSEL_MAX_SPAN and the memory they bring back within
 * TESSEL_MAX_MEMORY. */
static int check_alternative_sums(const tessel_graph *g)
{
	int64_t *sum = tsl_calloc(2 * (size_t)g->nblocks, sizeof *sum);
	if (!sum)
		return tsl_error_nomem();
	int rc = TSL_OK;
	for (int i = 0; i < g->nblocks && !rc; i++) {
		const tsl_block *a = &g->blocks[i];
		if (a->rc_backward < 0)
			continue;
		int b = a->rc_backward;
		sum[2 * b] += a->rc_extra;
		sum[2 * b + 1] += a->rc_saves;
		/* (its memory change with what it brings back is a block's
		 * memory change too: within +-TESSEL_MAX_MEMORY) */
		if (sum[2 * b] + g->blocks[b].span > TESSEL_MAX_SPAN ||
		    sum[2 * b + 1] > TESSEL_MAX_MEMORY ||
		    sum[2 * b + 1] + g->blocks[b].memory > TESSEL_MAX_MEMORY)
			rc = tsl_error(TESSEL_ERANGE,
				       "block \"%s\": the recomputes it runs make it longer than %d steps, or its memory change (%lld) with what they bring back (%lld) above %d",
				       g->blocks[b].name, TESSEL_MAX_SPAN,
				       (long long)g->blocks[b].memory,
				       (long long)sum[2 * b + 1], TESSEL_MAX_MEMORY);
	}
	tsl_free(sum);
	return rc;
}

/* Every recompute and offload declaration still fits the graph (order:
 * a topological order of its blocks; the first misfit by block id is the
 * one reported). */
static int check_alternatives(const tessel_graph *g, const int *order)
{
	int any = 0;
	for (int i = 0; i < g->nblocks && !any; i++)
		any = g->blocks[i].rc_backward >= 0 || g->blocks[i].of_backward >= 0;
	if (!any)
		return TSL_OK;
	char *reach = tsl_calloc(2 * (size_t)g->nblocks, 1);
	int rc = reach ? reach_backwards(reach, g, order) : tsl_error_nomem();
	for (int i = 0; i < g->nblocks && !rc; i++) {
		const tsl_block *a = &g->blocks[i];
		if (a->rc_backward >= 0)
			rc = check_alternative(g, i, a->rc_backward, a->rc_saves,
					       "recompute", reach[2 * (size_t)i]);
		if (!rc && a->of_backward >= 0)
			rc = check_alternative(g, i, a->of_backward, a->of_saves,
					       "offload", reach[2 * (size_t)i + 1]);
	}
	tsl_free(reach);
	return rc ? rc : check_alternative_sums(g);
}

int tsl_graph_check_structure(const tessel_graph *g)
{
	CHECK_GRAPH(g);
	if (g->nblocks == 0)
		return tsl_error(TESSEL_EINVAL, "the graph has no blocks");
	for (int i = 0; i < g->nblocks; i++)
		if (g->blocks[i].ndevices == 0)
			return tsl_error(TESSEL_EINVAL,
					 "block \"%s\" (block %d) is not placed on any device",
					 g->blocks[i].name, i);
	int *order = tsl_calloc((size_t)g->nblocks, sizeof *order);
	if (!order)
		return tsl_error_nomem();
	int rc = tsl_graph_topo_order(order, g);
	if (!rc)
		rc = check_alternatives(g, order);
	tsl_free(order);
	return rc;
}

/* The most block pairs on a device tsl_graph_memory_need looks at (a
 * block of positive delta against every block of its device): above it,
 * the bound of each block alone (4,000 blocks, each on a quarter of 2,048
 * devices, made 10^9 such pairs). */
#define TSL_MEMORY_NEED_PAIRS ((int64_t)1 << 28)

/* The exact bound device by device, for graphs too large for the
 * ancestor sets of every block (more than TSL_MEMORY_NEED_ALL blocks):
 * for each device, every block's ancestors among that device's blocks
 * (a set of as many bits as it has blocks), in topological order. Taken
 * when all the devices' sets are at most TSL_MEMORY_NEED_WORDS words
 * (they are made one device at a time, in one buffer): on kshape of 4096
 * devices (8,194 blocks, 2^25 words) it took about 0.5 s, so above 2^24
 * the bound of each block alone is used. A 6,000-block pipeline on 512
 * devices whose device 0 needs 4 at its limit 2 was refused only after
 * its search; now when it is read (0.06 s). */
#define TSL_MEMORY_NEED_ALL 4096
#define TSL_MEMORY_NEED_WORDS ((int64_t)1 << 24)

static int need_by_device(int64_t *need, int *at, const tessel_graph *g,
			  const int *order, const int64_t *mem,
			  const int64_t *start, const int *on, const int *on_start)
{
	int n = g->nblocks, nd = g->ndevices;
	size_t most = 1;
	for (int d = 0; d < nd; d++) {
		size_t w = ((size_t)(on_start[d + 1] - on_start[d]) + 63) / 64;
		most = w > most ? w : most;
	}
	int *col = tsl_reallocarray(NULL, (size_t)n + 1, sizeof *col);
	uint64_t *anc = tsl_reallocarray(NULL, (size_t)n * most + 1, sizeof *anc);
	if (!col || !anc) {
		tsl_free(col);
		tsl_free(anc);
		return tsl_error_nomem();
	}
	for (int v = 0; v < n; v++)
		col[v] = -1;
	for (int d = 0; d < nd; d++) {
		int first = on_start[d], k = on_start[d + 1] - first, any = 0;
		for (int i = 0; i < k; i++)
			any |= start[on[first + i]] > 0;
		if (!any)
			continue;
		size_t words = ((size_t)k + 63) / 64;
		for (int i = 0; i < k; i++)
			col[on[first + i]] = i;
		for (int j = 0; j < n; j++) {
			int v = order[j];
			uint64_t *row = anc + (size_t)v * words;
			memset(row, 0, words * sizeof *row);
			const tsl_block *b = &g->blocks[v];
			for (int q = 0; q < b->ndeps; q++) {
				int p = b->deps[q];
				const uint64_t *prow = anc + (size_t)p * words;
				for (size_t w = 0; w < words; w++)
					row[w] |= prow[w];
				if (col[p] >= 0)
					row[col[p] / 64] |= (uint64_t)1 << (col[p] % 64);
			}
		}
		/* as the bound of every block: v by id (on[] is by id), the
		 * first of the largest kept */
		for (int i = 0; i < k; i++) {
			int v = on[first + i];
			if (start[v] <= 0)
				continue;
			int64_t v_need = start[v];
			const uint64_t *row = anc + (size_t)v * words;
			for (int x = 0; x < k; x++) {
				int u = on[first + x];
				if (u == v)
					continue;
				int is_anc = (row[x / 64] >> (x % 64)) & 1;
				const uint64_t *urow = anc + (size_t)u * words;
				int is_desc = (urow[i / 64] >> (i % 64)) & 1;
				if (is_anc)
					v_need += mem[u];
				else if (!is_desc && mem[u] < 0)
					v_need += mem[u];
			}
			if (v_need > need[d]) {
				need[d] = v_need;
				at[d] = v;
			}
		}
		for (int i = 0; i < k; i++)
			col[on[first + i]] = -1;
	}
	tsl_free(col);
	tsl_free(anc);
	return TSL_OK;
}

/* Lower bound on the memory one micro-batch needs on each device: right
 * after a block b with a positive delta starts, every block on the same
 * device that b (transitively) depends on has started, and at best every
 * unrelated block with a negative delta has too. For graphs too large for
 * the ancestor sets of every block and of each device's blocks
 * (need_by_device), or with too many such pairs of blocks on a device
 * (TSL_MEMORY_NEED_PAIRS), the bound uses b alone. need[d] is the largest
 * over the blocks of d (0 without one), at[d] that block (-1: none). */
int tsl_graph_memory_need(int64_t *need, int *at, const tessel_graph *g)
{
	int n = g->nblocks, nd = g->ndevices;
	/* the ancestor sets of every block (exact), of every block among
	 * each device's blocks (by_device: as exact), or neither (the bound
	 * of each block alone) */
	int exact = 1, by_device = n > TSL_MEMORY_NEED_ALL;
	size_t words = ((size_t)n + 63) / 64;
	uint64_t *anc = NULL;
	int *on = NULL, *on_start = NULL; /* per device: its blocks, by id */
	int64_t *mem = NULL;
	int *order = tsl_calloc((size_t)n + 1, sizeof *order);
	if (!order)
		return tsl_error_nomem();
	int rc = tsl_graph_topo_order(order, g);
	if (rc)
		goto out;
	/* each block's memory once it ran (mem) and at its start (start):
	 * they differ for an offload, which frees after the block */
	mem = tsl_calloc(2 * (size_t)n + 1, sizeof *mem);
	if (!mem) {
		rc = tsl_error_nomem();
		goto out;
	}
	int64_t *start = mem + n;
	tsl_graph_cheapest_memory(mem, g);
	tsl_graph_cheapest_start(start, mem, g);
	if (exact) {
		/* the pairs looked at: blocks on d times those of positive
		 * start on d, over the devices */
		int64_t *cnt = tsl_calloc(2 * (size_t)nd + 1, sizeof *cnt);
		if (!cnt) {
			rc = tsl_error_nomem();
			goto out;
		}
		for (int v = 0; v < n; v++)
			for (int k = 0; k < g->blocks[v].ndevices; k++) {
				cnt[2 * g->blocks[v].devices[k]]++;
				cnt[2 * g->blocks[v].devices[k] + 1] += start[v] > 0;
			}
		int64_t pairs = 0, sets = 0; /* sets: words, by device */
		for (int d = 0; d < nd && exact; d++) {
			pairs += cnt[2 * d] * cnt[2 * d + 1];
			sets += cnt[2 * d + 1] ? (int64_t)n * ((cnt[2 * d] + 63) / 64) : 0;
			exact = pairs <= TSL_MEMORY_NEED_PAIRS &&
				(!by_device || sets <= TSL_MEMORY_NEED_WORDS);
		}
		if (exact) {
			on_start = tsl_calloc((size_t)nd + 1, sizeof *on_start);
			size_t total = 0;
			for (int d = 0; d < nd; d++)
				total += (size_t)cnt[2 * d];
			on = tsl_calloc(total + 1, sizeof *on);
			anc = by_device ? NULL : tsl_calloc((size_t)n * words + 1, sizeof *anc);
			if (!on_start || !on || (!anc && !by_device)) {
				tsl_free(cnt);
				rc = tsl_error_nomem();
				goto out;
			}
			for (int d = 0; d < nd; d++)
				on_start[d + 1] = on_start[d] + (int)cnt[2 * d];
			for (int d = 0; d < nd; d++)
				cnt[2 * d] = on_start[d];
			for (int v = 0; v < n; v++)
				for (int k = 0; k < g->blocks[v].ndevices; k++)
					on[cnt[2 * g->blocks[v].devices[k]]++] = v;
		}
		tsl_free(cnt);
	}
	if (exact && !by_device) {
		for (int k = 0; k < n; k++) {
			int v = order[k];
			uint64_t *row = anc + (size_t)v * words;
			const tsl_block *b = &g->blocks[v];
			for (int j = 0; j < b->ndeps; j++) {
				int p = b->deps[j];
				const uint64_t *prow = anc + (size_t)p * words;
				for (size_t w = 0; w < words; w++)
					row[w] |= prow[w];
				row[p / 64] |= (uint64_t)1 << (p % 64);
			}
		}
	}
	for (int d = 0; d < nd; d++) {
		need[d] = 0;
		at[d] = -1;
	}
	if (exact && by_device) {
		rc = need_by_device(need, at, g, order, mem, start, on, on_start);
		goto out;
	}
	for (int v = 0; v < n; v++) {
		const tsl_block *b = &g->blocks[v];
		if (start[v] <= 0)
			continue;
		for (int k = 0; k < b->ndevices; k++) {
			int d = b->devices[k];
			int64_t v_need = start[v];
			if (exact) {
				const uint64_t *row = anc + (size_t)v * words;
				for (int x = on_start[d]; x < on_start[d + 1]; x++) {
					int u = on[x];
					if (u == v)
						continue;
					int is_anc = (row[u / 64] >> (u % 64)) & 1;
					const uint64_t *urow = anc + (size_t)u * words;
					int is_desc = (urow[v / 64] >> (v % 64)) & 1;
					if (is_anc)
						v_need += mem[u];
					else if (!is_desc && mem[u] < 0)
						v_need += mem[u];
				}
			}
			if (v_need > need[d]) {
				need[d] = v_need;
				at[d] = v;
			}
		}
	}
out:
	tsl_free(mem);
	tsl_free(anc);
	tsl_free(on);
	tsl_free(on_start);
	tsl_free(order);
	return rc;
}

/* Every device's limit at least what one micro-batch needs there. */
static int check_memory(const tessel_graph *g)
{
	int limited = 0;
	for (int d = 0; d < g->ndevices; d++)
		limited |= g->memory_limit[d] != TESSEL_UNLIMITED;
	if (!limited)
		return TSL_OK;
	int64_t *need = tsl_calloc((size_t)g->ndevices, sizeof *need);
	int *at = tsl_calloc((size_t)g->ndevices, sizeof *at);
	int rc = need && at ? tsl_graph_memory_need(need, at, g) : tsl_error_nomem();
	for (int d = 0; d < g->ndevices && !rc; d++) {
		int64_t limit = g->memory_limit[d];
		if (limit != TESSEL_UNLIMITED && need[d] > limit)
			rc = tsl_error(TESSEL_EINFEASIBLE,
				       "device %d: memory limit %lld is below the %lld that one micro-batch needs when block \"%s\" starts",
				       d, (long long)limit, (long long)need[d],
				       g->blocks[at[d]].name);
	}
	tsl_free(need);
	tsl_free(at);
	return rc;
}

int tsl_graph_check_leftover(const tessel_graph *g, int64_t nmicros)
{
	if (nmicros < 1)
		return TSL_OK;
	/* each device's net change, from the blocks' device lists (one pass
	 * over the blocks, not one per device); at most 10^6 blocks of
	 * |memory| <= 10^9: no overflow */
	int64_t *net = tsl_calloc((size_t)g->ndevices + 1, sizeof *net);
	if (!net)
		return tsl_error_nomem();
	for (int v = 0; v < g->nblocks; v++)
		for (int k = 0; k < g->blocks[v].ndevices; k++)
			net[g->blocks[v].devices[k]] += g->blocks[v].memory;
	int rc = TSL_OK;
	for (int d = 0; d < g->ndevices && !rc; d++) {
		int64_t limit = g->memory_limit[d];
		if (limit == TESSEL_UNLIMITED)
			continue;
		if (net[d] > 0 && net[d] > limit / nmicros)
			rc = tsl_error(TESSEL_EINFEASIBLE,
				       "device %d: each micro-batch leaves %lld of memory "
				       "behind (its blocks' memory changes add up to it), "
				       "so %lld micro-batches end holding %lld, above the "
				       "memory limit %lld",
				       d, (long long)net[d], (long long)nmicros,
				       net[d] > INT64_MAX / nmicros ? (long long)INT64_MAX
								    : (long long)(net[d] * nmicros),
				       (long long)limit);
	}
	tsl_free(net);
	return rc;
}

TESSEL_API int tessel_graph_validate(const tessel_graph *g)
{
	int rc = tsl_graph_check_structure(g);
	if (rc)
		return rc;
	return check_memory(g);
}

TESSEL_API int tessel_graph_find(int *out_gid, const tessel_graph *g,
				 const char *name)
{
	TSL_CHECK_ARG(out_gid, NULL, "out");
	CHECK_GRAPH(g);
	TSL_CHECK_ARG(name, NULL, "name");
	int gid = hash_lookup(g, name);
	if (gid < 0)
		return tsl_error(TESSEL_ENOTFOUND, "no block named \"%s\"", name);
	*out_gid = gid;
	return TSL_OK;
}

TESSEL_API int tessel_graph_block_get(int64_t *out, const tessel_graph *g,
				      int gid, tessel_block_attr attr)
{
	TSL_CHECK_ARG(out, NULL, "out");
	int rc = check_graph_gid(g, gid);
	if (rc)
		return rc;
	const tsl_block *b = &g->blocks[gid];
	switch (attr) {
	case TESSEL_BLOCK_KIND: *out = b->kind; return TSL_OK;
	case TESSEL_BLOCK_SPAN: *out = b->span; return TSL_OK;
	case TESSEL_BLOCK_MEMORY: *out = b->memory; return TSL_OK;
	case TESSEL_BLOCK_NDEVICES: *out = b->ndevices; return TSL_OK;
	case TESSEL_BLOCK_NDEPS: *out = b->ndeps; return TSL_OK;
	case TESSEL_BLOCK_STAGE: *out = b->stage; return TSL_OK;
	}
	return tsl_error(TESSEL_EINVAL, "unknown block attribute %d", (int)attr);
}

TESSEL_API int tessel_graph_block_name(const char **out, const tessel_graph *g,
				       int gid)
{
	TSL_CHECK_ARG(out, NULL, "out");
	*out = NULL;
	int rc = check_graph_gid(g, gid);
	if (rc)
		return rc;
	*out = g->blocks[gid].name;
	return TSL_OK;
}

TESSEL_API int tessel_graph_block_device(int *out, const tessel_graph *g,
					 int gid, size_t index)
{
	TSL_CHECK_ARG(out, NULL, "out");
	int rc = check_graph_gid(g, gid);
	if (rc)
		return rc;
	const tsl_block *b = &g->blocks[gid];
	if (index >= (size_t)b->ndevices)
		return tsl_error(TESSEL_ENOTFOUND,
				 "block \"%s\" has %d devices, index %zu requested",
				 b->name, b->ndevices, index);
	*out = b->devices[index];
	return TSL_OK;
}

TESSEL_API int tessel_graph_block_dep(int *out, const tessel_graph *g, int gid,
				      size_t index)
{
	TSL_CHECK_ARG(out, NULL, "out");
	const tsl_block *b;
	int rc = dep_at(&b, g, gid, index);
	if (rc)
		return rc;
	*out = b->deps[index];
	return TSL_OK;
}

TESSEL_API int tessel_graph_memory_limit(int64_t *out, const tessel_graph *g,
					 int device)
{
	TSL_CHECK_ARG(out, NULL, "out");
	CHECK_GRAPH(g);
	if (device < 0 || device >= g->ndevices)
		return tsl_error(TESSEL_ENOTFOUND,
				 "unknown device %d (devices are 0 .. %d)", device,
				 g->ndevices - 1);
	*out = g->memory_limit[device];
	return TSL_OK;
}

const char *tsl_kind_name(int kind)
{
	switch (kind) {
	case TESSEL_KIND_FORWARD: return "forward";
	case TESSEL_KIND_BACKWARD: return "backward";
	case TESSEL_KIND_WEIGHT: return "weight";
	default: return "?";
	}
}

int tsl_json_check_names(const tessel_graph *g, const char *fn)
{
	for (int i = 0; i < g->nblocks; i++)
		if (!tsl_utf8_valid(g->blocks[i].name))
			return tsl_error(TESSEL_EINVAL,
					 "%s: block %d: the name is not valid UTF-8",
					 fn, i);
	return TSL_OK;
}
