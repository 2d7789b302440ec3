/* The placement of a partitioned plan of the exploration: blocks, their
 * devices, times, memory and dependencies, through the public graph API
 * (explore_placement.h). */
#include "explore_placement.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "util.h"

/* The blur allowed on a count k of units: relative to k, at most a
 * thousandth of a unit (a count near 10^9 units is not rounded by a whole
 * one). */
static double count_slack(double k)
{
	double slack = TSL_PLACEMENT_MEMORY_TOLERANCE * fabs(k);
	return slack < 1e-3 ? slack : 1e-3;
}

/* Whether `value` is a whole multiple of `quantum`, within the slack. */
static int whole_multiple(double value, double quantum)
{
	double k = value / quantum;
	return fabs(k - nearbyint(k)) <= count_slack(k);
}

/* Whether the memory per device and every layer's parameters and (in
 * training) activation are whole multiples of `quantum`. */
static int model_in_quantum(const tessel_model *m, double quantum)
{
	if (!whole_multiple(m->memory, quantum))
		return 0;
	for (int i = 0; i < m->nlayers; i++) {
		const tsl_layer *l = &m->layers[i];
		if (!whole_multiple(l->parameters, quantum) ||
		    (!m->infer && !whole_multiple(l->activation, quantum)))
			return 0;
	}
	return 1;
}

/* The least common multiple of the device counts of p's stages, 0 when it
 * exceeds TESSEL_MAX_MEMORY. */
static int64_t stage_devices_lcm(const tsl_plan *p)
{
	int64_t l = 1;
	for (int s = 0; s < p->nstages && l; s++) {
		int64_t n = p->stages[s].ndev;
		l = l / tsl_gcd64(l, n) * n;
		if (l > TESSEL_MAX_MEMORY)
			l = 0;
	}
	return l;
}

double tsl_plan_memory_unit(const tsl_plan *p, const tessel_model *m)
{
	double fallback = m->memory / TESSEL_MAX_MEMORY;
	int64_t l = stage_devices_lcm(p);
	if (!l)
		return fallback;
	/* from the largest quantum not above the memory down: the first that
	 * fits every figure is the largest, and each smaller one only makes
	 * the counts larger */
	for (int e = (int)floor(log10(m->memory)) + 1;
	     e >= TSL_PLACEMENT_MIN_QUANTUM_EXP; e--) {
		double q = e >= 0 ? pow(10, e) : 1 / pow(10, -e);
		if (!model_in_quantum(m, q))
			continue;
		double unit = q / (double)l;
		return m->memory / unit <=
		       TESSEL_MAX_MEMORY * (1 + TSL_PLACEMENT_MEMORY_TOLERANCE)
		       ? unit : fallback;
	}
	return fallback;
}

double tsl_memory_units_up(double value, double unit)
{
	double k = value / unit;
	return ceil(k - count_slack(k));
}

double tsl_memory_units_down(double value, double unit)
{
	double k = value / unit;
	return floor(k + count_slack(k));
}

/* Gids of a stage's blocks (-1: none). */
typedef struct stage_blocks {
	int f, b, w;
} stage_blocks;

/* The stage of every layer, for one replica (-1: none). */
static void layer_stages(int *of, const tsl_plan *p, int replica, int L)
{
	for (int i = 0; i < L; i++)
		of[i] = -1;
	for (int s = 0; s < p->nstages; s++)
		if (p->stages[s].replica == replica)
			for (int i = p->stages[s].lo; i < p->stages[s].hi; i++)
				of[i] = s;
}

static double pass_time(const tessel_model *m, const tsl_plan_stage *st,
			tsl_pass pass)
{
	double sum = 0;
	for (int i = st->lo; i < st->hi; i++)
		sum += tsl_model_layer_time(m, i, st->ndev, pass);
	return sum;
}

/* Add one block of stage s; its gid in *gid. */
static int add_block(int *gid, tessel_graph *g, const tsl_plan *p, int s,
		     char kind, double duration, int64_t memory)
{
	const tsl_plan_stage *st = &p->stages[s];
	char name[48];
	int stage = st->replica ? s - p->nstages / 2 : s;
	snprintf(name, sizeof name, "%s%c%d", st->replica ? "r" : "", kind,
		 stage);
	tessel_kind k = kind == 'f' ? TESSEL_KIND_FORWARD
			: kind == 'b' ? TESSEL_KIND_BACKWARD : TESSEL_KIND_WEIGHT;
	int rc = tessel_graph_add_block(gid, g, name, k, 1, (int)memory);
	int devs[TESSEL_MAX_DEVICES];
	for (int d = 0; d < st->ndev; d++)
		devs[d] = st->dev + d;
	if (!rc)
		rc = tessel_graph_place(g, *gid, devs, (size_t)st->ndev);
	if (!rc)
		rc = tessel_graph_set_stage(g, *gid,
					    st->replica ? p->nstages / 2 + stage : stage);
	if (!rc && duration > 0)
		rc = tessel_graph_set_block_duration(g, *gid, duration);
	return rc;
}

/* A dependency, once. */
static int depend(tessel_graph *g, int before, int after)
{
	int rc = tessel_graph_add_dep(g, before, after);
	if (rc == TESSEL_EEXISTS) {
		tessel_error_clear();
		return TSL_OK;
	}
	return rc;
}

/* The stages' dependencies from their layers' inputs. */
static int stage_deps(tessel_graph *g, const tsl_plan *p, const tessel_model *m,
		      const stage_blocks *sb, const int *of0, const int *of1)
{
	int rc = TSL_OK;
	for (int s = 0; s < p->nstages && !rc; s++) {
		const tsl_plan_stage *st = &p->stages[s];
		const int *of = st->replica ? of1 : of0;
		for (int i = st->lo; i < st->hi && !rc; i++)
			for (int k = 0; k < m->layers[i].nafter && !rc; k++) {
				int u = of[m->layers[i].after[k]];
				if (u < 0 || u == s)
					continue;
				rc = depend(g, sb[u].f, sb[s].f);
				if (!rc && sb[s].b >= 0)
					rc = depend(g, sb[s].b, sb[u].b);
			}
		if (!rc && sb[s].b >= 0)
			rc = depend(g, sb[s].f, sb[s].b);
		if (!rc && sb[s].w >= 0)
			rc = depend(g, sb[s].b, sb[s].w);
	}
	return rc;
}

/* The times of each stage's blocks (forward, backward, weight as the
 * blocks take them), 3 a stage; 0 for a block without time of its own (in
 * training every stage has a backward and, split, a weight block: an
 * embedding needs no input gradient), which takes one step. */
static void block_times(double *t, const tsl_plan *p, const tessel_model *m)
{
	for (int s = 0; s < p->nstages; s++) {
		const tsl_plan_stage *st = &p->stages[s];
		double fw = pass_time(m, st, TSL_PASS_FORWARD);
		double bw = pass_time(m, st, TSL_PASS_BACKWARD);
		double ww = pass_time(m, st, TSL_PASS_WEIGHT);
		t[3 * s] = fw;
		t[3 * s + 1] = m->infer ? 0 : p->split ? bw : bw + ww;
		t[3 * s + 2] = m->infer || !p->split ? 0 : ww;
	}
}

/* Descending order of doubles, for qsort. */
static int descending(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

/* The step for the largest of the n values t: tessel_pick_step over them,
 * leaving out the fewest of the smallest (all of one value at a time) it
 * takes to find one. Values within 10^4 of the largest always have a
 * step, so each left out is below 10^-4 of the largest; the step is then
 * at most 10^-5 of the largest (TSL_NEGLIGIBLE_STEPS), so that a value
 * left out, rounded up to whole steps, stays as negligible. *least: the
 * smallest value kept. */
#define TSL_NEGLIGIBLE_STEPS 100000.0
static int step_of_largest(double *step, double *least, const double *t,
			   size_t n)
{
	double *v = tsl_malloc(n * sizeof *v);
	if (!v)
		return tsl_error_nomem();
	memcpy(v, t, n * sizeof *v);
	qsort(v, n, sizeof *v, descending);
	size_t k = n;
	while (k > 1 && v[k - 1] == 0)
		k--;
	int rc = TESSEL_ERANGE;
	while (rc == TESSEL_ERANGE && k > 1) {
		double smallest = v[k - 1];
		while (k > 1 && v[k - 1] == smallest)
			k--;
		rc = tessel_pick_step(step, v, k);
		if (rc == TESSEL_ERANGE)
			tessel_error_clear();
	}
	*least = v[k - 1];
	/* the step made finer by a whole factor until the largest value
	 * takes TSL_NEGLIGIBLE_STEPS of them: the values kept round no worse,
	 * and one left out, rounded up to whole steps, takes at most a step,
	 * 1 / that of the largest, more than it is (a step as long as the largest would count a block of
	 * 1 ms beside a transfer of 10^9 ms as 10^9 ms) */
	if (!rc && *step > 0 && v[0] / *step < TSL_NEGLIGIBLE_STEPS) {
		double q = ceil(TSL_NEGLIGIBLE_STEPS * *step / v[0]);
		if (q > 1)
			*step /= q;
	}
	tsl_free(v);
	return rc;
}

/* The step of the placement: tessel_pick_step over its times (the
 * transfer last in t). When they range wider than a step resolves within
 * 1 %, the step is picked for the largest of them (step_of_largest) and
 * the smaller ones are negligible: they round on their own. *least: the
 * smallest value the step was picked for, 0 when for all. */
static int pick_step(tessel_graph *g, double *least, const double *t,
		     size_t n)
{
	double step = 0;
	*least = 0;
	int rc = tessel_pick_step(&step, t, n);
	if (rc == TESSEL_ERANGE) {
		tessel_error_clear();
		rc = step_of_largest(&step, least, t, n);
	}
	if (!rc)
		rc = tessel_graph_set_step(g, step);
	return rc;
}

/* The latency of the transfer: as given, or when it is negligible (below
 * the smallest value the step was picked for, `least`) rounded to the
 * nearest whole step, none below half a step. */
static int set_latency(tessel_graph *g, const tessel_model *m, double least)
{
	double latency = m->transfer;
	if (latency > 0 && latency < least)
		latency = nearbyint(latency / g->step) * g->step;
	return tessel_graph_set_latency_time(g, latency);
}

/* Memory limits: each device's memory less its stages' parameters, in
 * units; `why` when the parameters do not fit. */
static int limits(tessel_graph *g, double *params, const tsl_plan *p,
		  const tessel_model *m, double unit, char *why, size_t whylen)
{
	for (int d = 0; d < m->devices; d++) {
		double par = 0;
		for (int s = 0; s < p->nstages; s++) {
			const tsl_plan_stage *st = &p->stages[s];
			if (st->dev <= d && d < st->dev + st->ndev)
				for (int i = st->lo; i < st->hi; i++)
					par += m->layers[i].parameters / st->ndev;
		}
		if (params)
			params[d] = par;
		/* each in whole units before the difference (0.3 - (0.1 + 0.2)
		 * is below 0 in doubles) */
		double left = tsl_memory_units_down(m->memory, unit) -
			      tsl_memory_units_up(par, unit);
		if (left < 0) {
			snprintf(why, whylen,
				 "the parameters of device %d (%.4g %s) exceed its memory (%.4g)",
				 d, par, m->memory_unit, m->memory);
			return TSL_OK;
		}
		if (left > TESSEL_MAX_MEMORY)
			left = TESSEL_MAX_MEMORY;
		int rc = tessel_graph_set_memory_limit(g, d, (int64_t)left);
		if (rc)
			return rc;
	}
	return TSL_OK;
}

static int build(tessel_graph *g, double *params, const tsl_plan *p,
		 const tessel_model *m, stage_blocks *sb, int *of0, int *of1,
		 double *t, char *why, size_t whylen)
{
	double unit = p->memory_unit, least = 0;
	block_times(t, p, m);
	t[3 * p->nstages] = m->transfer;
	for (int i = 0; i < 3 * p->nstages; i++)
		if (!isfinite(t[i])) { /* a tiny tensor-parallel efficiency */
			snprintf(why, whylen,
				 "stage %d's %s time is out of range (%.4g %s; on %d devices "
				 "a layer's time is divided by %d x its tensor-parallel efficiency)",
				 i / 3, i % 3 == 0 ? "forward" : i % 3 == 1 ? "backward" : "weight",
				 t[i], m->unit ? m->unit : "", p->stages[i / 3].ndev,
				 p->stages[i / 3].ndev);
			return TSL_OK;
		}
	int rc = tessel_graph_set_unit(g, m->unit);
	if (!rc)
		rc = pick_step(g, &least, t, 3 * (size_t)p->nstages + 1);
	for (int s = 0; s < p->nstages && !rc; s++) {
		const tsl_plan_stage *st = &p->stages[s];
		double act = 0;
		for (int i = st->lo; i < st->hi; i++)
			act += m->layers[i].activation / st->ndev;
		double q = m->infer ? 0 : tsl_memory_units_up(act, unit);
		if (q > TESSEL_MAX_MEMORY) { /* then act exceeds the memory */
			snprintf(why, whylen,
				 "stage %d keeps more activation per micro-batch (%.4g %s) than a device's memory (%.4g)",
				 s, act, m->memory_unit, m->memory);
			return TSL_OK;
		}
		sb[s].b = sb[s].w = -1;
		double one = g->step; /* a block without time: one step */
		rc = add_block(&sb[s].f, g, p, s, 'f', t[3 * s], (int64_t)q);
		if (!rc && !m->infer)
			rc = add_block(&sb[s].b, g, p, s, 'b',
				       t[3 * s + 1] > 0 ? t[3 * s + 1] : one,
				       p->split ? 0 : -(int64_t)q);
		if (!rc && !m->infer && p->split)
			rc = add_block(&sb[s].w, g, p, s, 'w',
				       t[3 * s + 2] > 0 ? t[3 * s + 2] : one,
				       -(int64_t)q);
	}
	layer_stages(of0, p, 0, m->nlayers);
	layer_stages(of1, p, 1, m->nlayers);
	if (!rc)
		rc = stage_deps(g, p, m, sb, of0, of1);
	if (!rc)
		rc = set_latency(g, m, least);
	if (!rc)
		rc = limits(g, params, p, m, unit, why, whylen);
	return rc;
}

int tsl_plan_graph(tessel_graph **out, double *params, const tsl_plan *p,
		   const tessel_model *m, char *why, size_t whylen)
{
	*out = NULL;
	why[0] = '\0';
	tessel_graph *g = NULL;
	stage_blocks *sb = tsl_calloc((size_t)p->nstages + 1, sizeof *sb);
	int *of0 = tsl_malloc(((size_t)m->nlayers + 1) * sizeof *of0);
	int *of1 = tsl_malloc(((size_t)m->nlayers + 1) * sizeof *of1);
	double *t = tsl_malloc((3 * (size_t)p->nstages + 1) * sizeof *t);
	int rc = sb && of0 && of1 && t ? tessel_graph_new(&g, m->devices)
				       : tsl_error_nomem();
	if (!rc)
		rc = build(g, params, p, m, sb, of0, of1, t, why, whylen);
	if (rc == TESSEL_ERANGE) { /* times the steps cannot hold */
		snprintf(why, whylen, "%s", tessel_error_last()[0]
			 ? tessel_error_last()
			 : "its times do not fit in whole steps of one length");
		tessel_error_clear();
		rc = TSL_OK;
	}
	if (!rc && !why[0]) {
		rc = tessel_graph_validate(g);
		if (rc == TESSEL_EINFEASIBLE) {
			/* the placement's memory figures are in units of the
			 * model's: said, so the numbers read as the model's */
			snprintf(why, whylen, "%s (memory in units of %.6g %s)",
				 tessel_error_last(), p->memory_unit,
				 m->memory_unit ? m->memory_unit : "");
			tessel_error_clear();
			rc = TSL_OK;
		} else if (rc == TESSEL_EINVAL) {
			snprintf(why, whylen, "%s", tessel_error_last());
			tessel_error_clear();
			rc = TSL_OK;
		}
	}
	if (!rc && why[0] == '\0')
		*out = g;
	else
		tessel_graph_free(g);
	tsl_free(sb);
	tsl_free(of0);
	tsl_free(of1);
	tsl_free(t);
	return rc;
}
