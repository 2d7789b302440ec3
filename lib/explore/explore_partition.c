/* The partition of a model's layers into a plan's stages: dynamic
 * programming over the layers (not only equal splits), minimising the
 * longest stage under each stage's share of the device memory.
 *
 * For a bound T on a stage's time, reach[s][j] says whether layers
 * lo .. j-1 can make the group's first s stages, each within T and its
 * memory; stage s may take layers i .. j-1 for i from the smallest that
 * keeps it within both (which never decreases as j grows: two pointers)
 * to j-1, so each row costs O(layers) with prefix counts of the row
 * before. T is bisected between 0 and the group's total time (the
 * smallest feasible bound to 1e-9 of the total), then the cut is read
 * back from the rows of that bound. The memory's smallest i for each
 * stage and j does not depend on T: it is found once (memory_starts).
 * Time O(50 stages layers), the memory counted once. */
#include "explore_partition.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "explore_placement.h"
#include "util.h"

#define BISECTIONS 50

double tsl_stage_memory(const tessel_model *m, const tsl_plan_stage *st)
{
	double p = 0, a = 0;
	for (int i = st->lo; i < st->hi; i++) {
		p += m->layers[i].parameters;
		a += m->layers[i].activation;
	}
	if (m->infer)
		a = 0;
	return (p + (double)st->keep * a) / st->ndev;
}

/* Whether a stage of parameters `par` and activation `act` (sums over its
 * layers) keeping `keep` micro-batches on `ndev` devices fits `cap`,
 * counted as the placement counts it (explore_placement.c): the
 * activation and the parameters rounded up to whole units of the plan's
 * memory unit, the cap rounded down. */
static int fits(const tsl_plan_stage *st, double par, double act, double unit)
{
	double room = tsl_memory_units_down(st->cap, unit) -
		      tsl_memory_units_up(par / st->ndev, unit);
	double need = (double)st->keep * tsl_memory_units_up(act / st->ndev, unit);
	return need <= room;
}

/* Time of the stage's layers lo .. hi-1 on t devices. */
static double stage_time(const tessel_model *m, int lo, int hi, int t)
{
	double sum = 0;
	for (int i = lo; i < hi; i++) {
		sum += tsl_model_layer_time(m, i, t, TSL_PASS_FORWARD);
		if (!m->infer)
			sum += tsl_model_layer_time(m, i, t, TSL_PASS_BACKWARD) +
			       tsl_model_layer_time(m, i, t, TSL_PASS_WEIGHT);
	}
	return sum;
}

/* Prefix sums of a group: time (on the group's t devices), parameters,
 * activations. */
typedef struct prefix {
	double *time, *par, *act;
	int lo;
	/* [s * (len + 1) + j]: the smallest i whose layers i .. j-1 fit
	 * stage s's memory (j when none): the memory does not depend on the
	 * bound T, so it is found once, not at every bisection */
	int *mem_lo;
} prefix;

static double range(const double *v, int lo, int i, int j)
{
	return v[j - lo] - v[i - lo];
}

/* One bound: the rows of reach (n + 1 rows of len + 1), 1 when the whole
 * group fits. */
static int feasible(unsigned char *reach, int *count, const tsl_plan *p,
		    const tsl_plan_group *g, const prefix *x, const tessel_model *m,
		    double T)
{
	(void)p; /* (the memory is x->mem_lo's) */
	(void)m;
	int n = g->last - g->first + 1, len = g->hi - g->lo;
	memset(reach, 0, (size_t)(n + 1) * (size_t)(len + 1));
	reach[0] = 1;
	for (int s = 1; s <= n; s++) {
		const unsigned char *prev = reach + (size_t)(s - 1) * (size_t)(len + 1);
		unsigned char *row = reach + (size_t)s * (size_t)(len + 1);
		count[0] = 0;
		for (int j = 0; j <= len; j++)
			count[j + 1] = count[j] + prev[j];
		const int *mem_lo = x->mem_lo + (size_t)s * (size_t)(len + 1);
		int i = 0;
		for (int j = s; j <= len; j++) {
			/* smallest i whose layers i .. j-1 fit T and the memory:
			 * both hold from their own smallest i on (times and
			 * memory are >= 0) */
			while (i < j && range(x->time, 0, i, j) > T)
				i++;
			int lo = i > mem_lo[j] ? i : mem_lo[j];
			int from = lo > s - 1 ? lo : s - 1;
			if (from < j && count[j] - count[from] > 0)
				row[j] = 1;
		}
	}
	return reach[(size_t)n * (size_t)(len + 1) + (size_t)len];
}

/* x->mem_lo for every stage of the group (two pointers a stage: the
 * memory of layers i .. j-1 grows with j and shrinks with i). */
static void memory_starts(prefix *x, const tsl_plan *p, const tsl_plan_group *g,
			  const tessel_model *m)
{
	double unit = p->memory_unit;
	int n = g->last - g->first + 1, len = g->hi - g->lo;
	for (int s = 1; s <= n; s++) {
		const tsl_plan_stage *st = &p->stages[g->first + s - 1];
		int *row = x->mem_lo + (size_t)s * (size_t)(len + 1);
		int i = 0;
		for (int j = 0; j <= len; j++) {
			while (i < j && !fits(st, range(x->par, 0, i, j),
					      m->infer ? 0 : range(x->act, 0, i, j),
					      unit))
				i++;
			row[j] = i;
		}
	}
}

/* Read the cut back from the rows of a feasible bound. */
static void cut(tsl_plan *p, const tsl_plan_group *g, const unsigned char *reach,
		const prefix *x, const tessel_model *m, double T)
{
	double unit = p->memory_unit;
	int n = g->last - g->first + 1, len = g->hi - g->lo;
	int j = len;
	for (int s = n; s >= 1; s--) {
		tsl_plan_stage *st = &p->stages[g->first + s - 1];
		const unsigned char *prev = reach + (size_t)(s - 1) * (size_t)(len + 1);
		int i = j - 1;
		/* the largest start whose stage fits and whose rest is
		 * reachable: the latest stages take as little as T allows
		 * beyond what balance needs */
		int pick = -1;
		for (; i >= s - 1; i--) {
			double par = range(x->par, 0, i, j);
			double act = m->infer ? 0 : range(x->act, 0, i, j);
			if (range(x->time, 0, i, j) > T ||
			    !fits(st, par, act, unit))
				break;
			if (prev[i])
				pick = i;
		}
		st->lo = g->lo + pick;
		st->hi = g->lo + j;
		j = pick;
	}
}

/* The memory cap of every partitioned stage: what the fixed stages on its
 * devices leave, over its share. */
static void set_caps(tsl_plan *p, const tessel_model *m)
{
	for (int s = 0; s < p->nstages; s++) {
		tsl_plan_stage *st = &p->stages[s];
		if (st->fixed)
			continue;
		double left = m->memory;
		for (int f = 0; f < p->nstages; f++) {
			const tsl_plan_stage *x = &p->stages[f];
			if (x->fixed && x->dev <= st->dev &&
			    st->dev < x->dev + x->ndev)
				left -= tsl_stage_memory(m, x);
		}
		st->cap = left / st->share;
	}
}

static int partition_group(tsl_plan *p, const tsl_plan_group *g,
			   const tessel_model *m)
{
	int n = g->last - g->first + 1, len = g->hi - g->lo;
	if (len < n) {
		snprintf(p->why, sizeof p->why,
			 "%d layers for %d stages", len, n);
		return TSL_OK;
	}
	if ((int64_t)(n + 1) * (len + 1) > TSL_PARTITION_MAX_CELLS) {
		snprintf(p->why, sizeof p->why,
			 "%d stages x %d layers is more than the partition takes on (%d)",
			 n, len, TSL_PARTITION_MAX_CELLS);
		return TSL_OK;
	}
	int t = p->stages[g->first].ndev;
	prefix x = {tsl_calloc((size_t)len + 1, sizeof(double)),
		    tsl_calloc((size_t)len + 1, sizeof(double)),
		    tsl_calloc((size_t)len + 1, sizeof(double)), g->lo,
		    tsl_malloc((size_t)(n + 1) * (size_t)(len + 1) * sizeof(int))};
	unsigned char *reach = tsl_malloc((size_t)(n + 1) * (size_t)(len + 1));
	int *count = tsl_malloc(((size_t)len + 2) * sizeof *count);
	int rc = x.time && x.par && x.act && x.mem_lo && reach && count
			 ? TSL_OK : tsl_error_nomem();
	for (int k = 0; k < len && !rc; k++) {
		int i = g->lo + k;
		x.time[k + 1] = x.time[k] + stage_time(m, i, i + 1, t);
		x.par[k + 1] = x.par[k] + m->layers[i].parameters;
		x.act[k + 1] = x.act[k] + m->layers[i].activation;
	}
	if (!rc)
		memory_starts(&x, p, g, m);
	if (!rc) {
		double hi = x.time[len] * (1 + 1e-12) + 1e-300, lo = 0;
		if (!feasible(reach, count, p, g, &x, m, hi)) {
			snprintf(p->why, sizeof p->why,
				 "no cut of its %d layers into %d stage%s fits the memory",
				 len, n, n == 1 ? "" : "s");
		} else {
			for (int it = 0; it < BISECTIONS && hi - lo > 1e-9 * hi; it++) {
				double mid = (lo + hi) / 2;
				if (feasible(reach, count, p, g, &x, m, mid))
					hi = mid;
				else
					lo = mid;
			}
			feasible(reach, count, p, g, &x, m, hi);
			cut(p, g, reach, &x, m, hi);
		}
	}
	tsl_free(x.time);
	tsl_free(x.par);
	tsl_free(x.act);
	tsl_free(x.mem_lo);
	tsl_free(reach);
	tsl_free(count);
	return rc;
}

/* Halve every partitioned stage's `keep` (at least 1); 0 when all were 1
 * already. */
static int halve_keeps(tsl_plan *p)
{
	int changed = 0;
	for (int s = 0; s < p->nstages; s++) {
		tsl_plan_stage *st = &p->stages[s];
		if (!st->fixed && st->keep > 1) {
			st->keep = (st->keep + 1) / 2;
			changed = 1;
		}
	}
	return changed;
}

/* Halve the fixed stages' `keep` (at least 1), the room left to the
 * partitioned stages recounted; 0 when all were 1 already. */
static int halve_fixed_keeps(tsl_plan *p, const tessel_model *m)
{
	int changed = 0;
	for (int s = 0; s < p->nstages; s++) {
		tsl_plan_stage *st = &p->stages[s];
		if (st->fixed && st->keep > 1) {
			st->keep = (st->keep + 1) / 2;
			changed = 1;
		}
	}
	if (changed)
		set_caps(p, m);
	return changed;
}

/* Let every partitioned stage of a shared device use the whole memory
 * the fixed stages leave; 0 when none was shared. */
static int whole_devices(tsl_plan *p, const tessel_model *m)
{
	int changed = 0;
	for (int s = 0; s < p->nstages; s++)
		if (!p->stages[s].fixed && p->stages[s].share > 1) {
			p->stages[s].share = 1;
			changed = 1;
		}
	if (changed)
		set_caps(p, m);
	return changed;
}

int tsl_partition(tsl_plan *p, const tessel_model *m)
{
	if (p->why[0] || !p->nstages)
		return TSL_OK;
	set_caps(p, m);
	int rc = TSL_OK;
	for (;;) {
		for (int k = 0; k < p->ngroups && !rc && !p->why[0]; k++)
			rc = partition_group(p, &p->groups[k], m);
		/* a searched family may keep fewer micro-batches than its
		 * published order would: the search finds what fits */
		if (rc || !p->why[0] || p->mode != TSL_PLAN_SEARCH ||
		    !strstr(p->why, "fits the memory"))
			break;
		/* keeping one micro-batch each and still too big: a device's
		 * stages share its memory as they need, not equally (the
		 * placement's limits then say whether the cut fits); then the
		 * fixed stages (an m-shape's tensor-parallel ends) keep fewer
		 * too */
		if (!halve_keeps(p) && !whole_devices(p, m) && !halve_fixed_keeps(p, m))
			break;
		p->why[0] = '\0';
	}
	for (int s = 0; s < p->nstages && !rc && !p->why[0]; s++) {
		tsl_plan_stage *st = &p->stages[s];
		if (st->mirror >= 0) {
			st->lo = p->stages[st->mirror].lo;
			st->hi = p->stages[st->mirror].hi;
		}
	}
	return rc;
}
