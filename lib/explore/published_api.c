/* The published pipeline schedules behind tessel.h (tessel_published_*):
 * a family's published order on its own placement, or replayed on a
 * placement of the same structure with that placement's own spans and
 * latencies (published.c builds the orders). */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "published.h"
#include "util.h"

/* The interleaved family's chunks tried on a placement. */
#define MAX_CHUNKS 8

static const char *const descriptions[PUB_NFAMILIES] = {
	"GPipe: every forward, then every backward (Huang et al., 2019)",
	"1F1B / PipeDream-flush: D-1-d forwards, then one forward and one backward at a time (Narayanan et al., 2019)",
	"ZB-H1: zero bubble with 1F1B's memory, backward split into input and weight gradient (Qi et al., 2024)",
	"ZB-H2: zero bubble with more micro-batches in flight, split backward (Qi et al., 2024)",
	"ZB-V: V-shape zero bubble, two chunks a device, split backward (Qi et al., 2024)",
	"V-Half: V-shape with half of 1F1B's activation memory, split backward (Qi et al., 2024)",
	"V-Min: V-shape with a third of 1F1B's activation memory, split backward (Qi et al., 2024)",
	"DualPipe: bidirectional, two chunks a device, split backward (DeepSeek-V3, 2024)",
	"DualPipeV: DualPipe cut in half, a V (DeepSeek, 2025)",
	"interleaved 1F1B: `chunks` stages a device (Narayanan et al., SC21)",
	"Chimera: two pipelines in opposite directions (Li and Hoefler, SC21)",
};

TESSEL_API size_t tessel_published_count(void)
{
	return PUB_NFAMILIES;
}

TESSEL_API int tessel_published_info(const char **out_name,
				     const char **out_description,
				     size_t index)
{
	if (out_name)
		*out_name = NULL;
	if (out_description)
		*out_description = NULL;
	if (index >= PUB_NFAMILIES)
		return tsl_error(TESSEL_ENOTFOUND,
				 "published family index %zu out of range (%d families)",
				 index, (int)PUB_NFAMILIES);
	if (out_name)
		*out_name = pub_family_name((pub_family)index);
	if (out_description)
		*out_description = descriptions[index];
	return TSL_OK;
}

static int find_family(pub_family *fam, const char *name, const char *fn)
{
	TSL_CHECK_ARG(name, fn, "family");
	if (pub_family_find(fam, name))
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s: unknown published family \"%.100s\" (tessel_published_info lists them)",
				 fn, name);
	return TSL_OK;
}

/* The order's schedule (checked); the reason as the error. */
static int order_schedule(tessel_schedule **out, const pub_order *o)
{
	char why[512] = "";
	int rc = pub_order_schedule(out, NULL, o, why, sizeof why);
	if (rc)
		return tsl_error(rc, "%s", why[0] ? why : tessel_strerror(rc));
	return TSL_OK;
}

TESSEL_API int tessel_published(tessel_schedule **out, const char *family,
				int devices, int64_t micro_batches,
				int forward, int backward, int weight,
				int chunks, int latency)
{
	TSL_CHECK_ARG(out, "tessel_published", "out");
	*out = NULL;
	pub_family fam;
	int rc = find_family(&fam, family, "tessel_published");
	if (rc)
		return rc;
	pub_params p = {devices, micro_batches, forward, backward, weight,
			chunks, latency, NULL, NULL};
	pub_order *o = NULL;
	char why[512] = "";
	rc = pub_order_build(&o, fam, &p, why, sizeof why);
	if (rc)
		return tsl_error(rc == TESSEL_ENOMEM ? rc : TESSEL_EINVAL, "%s",
				 why[0] ? why : tessel_strerror(rc));
	rc = order_schedule(out, o);
	pub_order_free(o);
	return rc;
}

/* Whether graphs a and b have the same blocks gid by gid (kind, memory,
 * devices, dependencies in any order); spans and latencies may differ. */
static int same_structure(const tessel_graph *a, const tessel_graph *b)
{
	if (a->nblocks != b->nblocks || a->ndevices != b->ndevices)
		return 0;
	for (int k = 0; k < a->nblocks; k++) {
		const tsl_block *x = &a->blocks[k], *y = &b->blocks[k];
		if (x->kind != y->kind || x->memory != y->memory ||
		    x->ndevices != y->ndevices || x->ndeps != y->ndeps)
			return 0;
		for (int i = 0; i < x->ndevices; i++)
			if (x->devices[i] != y->devices[i]) /* both sorted */
				return 0;
		for (int i = 0; i < x->ndeps; i++) {
			int in = 0;
			for (int j = 0; j < y->ndeps && !in; j++)
				in = x->deps[i] == y->deps[j];
			if (!in)
				return 0;
		}
	}
	return 1;
}

/* pub_params.wanted: a placement of placement's structure (arg). */
static int like_placement(const tessel_graph *built, const void *arg)
{
	return same_structure(built, arg);
}

/* The span of the first block of `kind` in g, 0 when none. */
static int first_span(const tessel_graph *g, int kind)
{
	for (int b = 0; b < g->nblocks; b++)
		if (g->blocks[b].kind == kind)
			return g->blocks[b].span;
	return 0;
}

TESSEL_API int tessel_published_on(tessel_schedule **out,
				   const tessel_graph *placement,
				   const char *family, int64_t micro_batches)
{
	TSL_CHECK_ARG(out, "tessel_published_on", "out");
	*out = NULL;
	TSL_CHECK_ARG(placement, "tessel_published_on", "placement");
	pub_family fam;
	int rc = find_family(&fam, family, "tessel_published_on");
	if (!rc)
		rc = tessel_graph_validate(placement);
	if (rc)
		return rc;
	pub_params p = {placement->ndevices,
			pub_family_pairs(fam) ? 2 * micro_batches : micro_batches,
			first_span(placement, TESSEL_KIND_FORWARD),
			first_span(placement, TESSEL_KIND_BACKWARD),
			first_span(placement, TESSEL_KIND_WEIGHT), 0, 0,
			like_placement, placement};
	if (p.w < 1 && !pub_family_splits(fam))
		p.w = 1;
	int last = fam == PUB_INTERLEAVED ? MAX_CHUNKS : 0;
	for (int c = fam == PUB_INTERLEAVED ? 2 : 0; c <= last; c++) {
		p.chunks = c;
		pub_order *o = NULL;
		char why[512] = "";
		if (pub_order_build(&o, fam, &p, why, sizeof why)) {
			if (tessel_error_last_code() == TESSEL_ENOMEM)
				return tsl_error_nomem();
			continue;
		}
		if (!same_structure(o->graph, placement)) {
			pub_order_free(o);
			continue;
		}
		/* the order on the placement itself: its spans, latencies and
		 * memory limits */
		tessel_graph *own = NULL;
		rc = tessel_graph_dup(&own, placement);
		if (!rc) {
			tessel_graph_free(o->graph);
			o->graph = own;
			rc = pub_order_replay(out, o, why, sizeof why);
			if (rc && rc != TESSEL_ENOMEM)
				rc = tsl_error(rc, "%s: %s", family,
					       why[0] ? why : tessel_error_last());
		}
		pub_order_free(o);
		return rc;
	}
	return tsl_error(TESSEL_EINVAL,
			 "tessel_published_on: the placement is not a %s placement (blocks, devices, memory deltas and dependencies of tessel_published's, spans aside)",
			 family);
}
