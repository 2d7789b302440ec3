/* The built-in placements of tessel_preset (include/tessel.h; doc/guide.md,
 * "Presets and JSON"; each described by tessel_preset_info), built through
 * the public API. */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "graph.h"
#include "util.h"

typedef struct preset {
	const char *name;
	const char *description;
	int need_even;
	int (*build)(tessel_graph *g, int D, int infer);
} preset;

/* Builder state: adds blocks and chains them. */
typedef struct builder {
	tessel_graph *g;
	int infer;
	char prefix[8];
} builder;

/* Add a block on `ndev` devices; returns its gid or a negative error.
 * In inference, backward blocks are skipped (returns -100) and memory
 * deltas are 0. */
#define SKIPPED (-100)
static int add(builder *b, char kind, int index, const int *devs, int ndev,
	       int span, int memory)
{
	if (b->infer && kind != 'f')
		return SKIPPED;
	char name[64];
	snprintf(name, sizeof name, "%s%c%d", b->prefix, kind, index);
	int gid;
	int rc = tessel_graph_add_block(&gid, b->g, name,
					kind == 'f' ? TESSEL_KIND_FORWARD
						    : TESSEL_KIND_BACKWARD,
					span, b->infer ? 0 : memory);
	if (rc)
		return rc;
	rc = tessel_graph_place(b->g, gid, devs, (size_t)ndev);
	return rc ? rc : gid;
}

/* Chain `gid` after `prev` (either may be SKIPPED). Returns the new tail. */
static int chain(builder *b, int prev, int gid)
{
	if (gid < 0 && gid != SKIPPED)
		return gid;
	if (gid == SKIPPED)
		return prev;
	if (prev >= 0) {
		int rc = tessel_graph_add_dep(b->g, prev, gid);
		if (rc)
			return rc;
	}
	return gid;
}

static int all_devices(int *devs, int D)
{
	for (int d = 0; d < D; d++)
		devs[d] = d;
	return D;
}

#define TRY(x)                                                                \
	do {                                                                  \
		int try_rc_ = (x);                                            \
		if (try_rc_ < 0 && try_rc_ != SKIPPED)                        \
			return try_rc_;                                       \
	} while (0)

/* F on 0..D-1 then B on D-1..0, after `prev`; returns the chain's tail.
 * Blocks are numbered from *index on. With `reverse` the chain runs on
 * D-1..0 first. */
static int pipeline(builder *b, int prev, int D, int reverse, int *index)
{
	for (int i = 0; i < D; i++) {
		int d = reverse ? D - 1 - i : i;
		int gid = add(b, 'f', (*index)++, &d, 1, 1, 1);
		TRY(gid);
		if (gid >= 0)
			tessel_graph_set_stage(b->g, gid, i);
		TRY(prev = chain(b, prev, gid));
	}
	for (int i = D - 1; i >= 0; i--) {
		int d = reverse ? D - 1 - i : i;
		int gid = add(b, 'b', (*index)++, &d, 1, 3, -1);
		TRY(gid);
		if (gid >= 0)
			tessel_graph_set_stage(b->g, gid, i);
		TRY(prev = chain(b, prev, gid));
	}
	return prev;
}

static int build_vshape(tessel_graph *g, int D, int infer)
{
	builder b = {g, infer, ""};
	int index = 0;
	int rc = pipeline(&b, -1, D, 0, &index);
	return rc < 0 && rc != SKIPPED ? rc : TSL_OK;
}

static int build_xshape(tessel_graph *g, int D, int infer)
{
	builder b = {g, infer, "x"};
	int index = 0;
	int rc = pipeline(&b, -1, D, 0, &index);
	if (rc < 0 && rc != SKIPPED)
		return rc;
	snprintf(b.prefix, sizeof b.prefix, "y");
	index = 0;
	rc = pipeline(&b, -1, D, 1, &index);
	return rc < 0 && rc != SKIPPED ? rc : TSL_OK;
}

static int build_mshape(tessel_graph *g, int D, int infer)
{
	builder b = {g, infer, ""};
	int all[TESSEL_MAX_DEVICES];
	all_devices(all, D);
	int index = 0;
	int prev = add(&b, 'f', index++, all, D, 1, 0);
	TRY(prev);
	TRY(prev = pipeline(&b, prev, D, 0, &index));
	int gid = add(&b, 'b', index++, all, D, 1, 0);
	TRY(gid);
	TRY(chain(&b, prev, gid));
	return TSL_OK;
}

static int build_nnshape(tessel_graph *g, int D, int infer)
{
	builder b = {g, infer, ""};
	int all[TESSEL_MAX_DEVICES];
	all_devices(all, D);
	int index = 0, prev = -1, gid;
	for (int d = 0; d < D; d++) {
		if (d == 0 || d == D / 2) {
			TRY(gid = add(&b, 'f', index++, all, D, 1, 0));
			TRY(prev = chain(&b, prev, gid));
		}
		TRY(gid = add(&b, 'f', index++, &d, 1, 1, 1));
		TRY(prev = chain(&b, prev, gid));
	}
	for (int pos = 0; pos < D; pos++) {
		int d = D - 1 - pos;
		if (pos == D / 2) {
			TRY(gid = add(&b, 'b', index++, all, D, 1, 0));
			TRY(prev = chain(&b, prev, gid));
		}
		TRY(gid = add(&b, 'b', index++, &d, 1, 3, -1));
		TRY(prev = chain(&b, prev, gid));
	}
	TRY(gid = add(&b, 'b', index++, all, D, 1, 0));
	TRY(chain(&b, prev, gid));
	return TSL_OK;
}

static int build_kshape(tessel_graph *g, int D, int infer)
{
	builder b = {g, infer, ""};
	int all[TESSEL_MAX_DEVICES];
	all_devices(all, D);
	int h = D / 2, gid;
	int tail[2] = {-1, -1};
	for (int br = 0; br < 2; br++) {
		snprintf(b.prefix, sizeof b.prefix, "%c", br ? 'y' : 'x');
		for (int i = 0; i < h; i++) {
			int d = br * h + i;
			TRY(gid = add(&b, 'f', i, &d, 1, 1, 1));
			TRY(tail[br] = chain(&b, tail[br], gid));
		}
	}
	snprintf(b.prefix, sizeof b.prefix, "m");
	int mf, mb;
	TRY(mf = add(&b, 'f', 0, all, D, 1, 1));
	TRY(chain(&b, tail[0], mf));
	TRY(chain(&b, tail[1], mf));
	TRY(mb = add(&b, 'b', 0, all, D, 1, -1));
	TRY(chain(&b, mf, mb));
	for (int br = 0; br < 2; br++) {
		snprintf(b.prefix, sizeof b.prefix, "%c", br ? 'y' : 'x');
		int prev = mb;
		for (int i = 0; i < h; i++) {
			int d = br * h + (h - 1 - i);
			TRY(gid = add(&b, 'b', i, &d, 1, 3, -1));
			TRY(prev = chain(&b, prev, gid));
		}
	}
	return TSL_OK;
}

static const preset presets[] = {
	{"vshape", "plain pipeline (1F1B-like): F on 0..D-1, then B on D-1..0",
	 0, build_vshape},
	{"xshape", "two crossing pipelines (Chimera-like), independent chains",
	 0, build_xshape},
	{"mshape", "pipeline between a tensor-parallel first and last block",
	 0, build_mshape},
	{"nnshape", "pipeline with tensor-parallel blocks at its start and middle",
	 0, build_nnshape},
	{"kshape", "two branches merging in a tensor-parallel block (D even)",
	 1, build_kshape},
};

#define NPRESETS (sizeof presets / sizeof presets[0])

TESSEL_API size_t tessel_preset_count(void)
{
	return NPRESETS;
}

TESSEL_API int tessel_preset_info(const char **out_name,
				  const char **out_description, size_t index)
{
	if (out_name)
		*out_name = NULL;
	if (out_description)
		*out_description = NULL;
	if (index >= NPRESETS)
		return tsl_error(TESSEL_ENOTFOUND,
				 "preset index %zu out of range (%zu presets)",
				 index, (size_t)NPRESETS);
	if (out_name)
		*out_name = presets[index].name;
	if (out_description)
		*out_description = presets[index].description;
	return TSL_OK;
}

TESSEL_API int tessel_preset(tessel_graph **out, const char *name, int D,
			     int infer, int64_t memory_limit)
{
	TSL_CHECK_ARG(out, NULL, "out");
	*out = NULL;
	TSL_CHECK_ARG(name, NULL, "preset name");
	const preset *p = NULL;
	for (size_t i = 0; i < NPRESETS; i++)
		if (strcmp(presets[i].name, name) == 0)
			p = &presets[i];
	if (!p)
		return tsl_error(TESSEL_ENOTFOUND,
				 "unknown preset \"%s\" (presets: vshape, xshape, mshape, nnshape, kshape)",
				 name);
	if (D < 2 || D > TESSEL_MAX_DEVICES)
		return tsl_error(TESSEL_ERANGE,
				 "preset %s: devices must be 2 .. %d, got %d",
				 name, TESSEL_MAX_DEVICES, D);
	if (p->need_even && D % 2)
		return tsl_error(TESSEL_EINVAL,
				 "preset %s needs an even number of devices, got %d",
				 name, D);
	if (infer != 0 && infer != 1)
		return tsl_error(TESSEL_EINVAL, "infer must be 0 or 1, got %d",
				 infer);
	tessel_graph *g;
	int rc = tessel_graph_new(&g, D);
	if (!rc)
		rc = p->build(g, D, infer);
	if (memory_limit == TESSEL_PRESET_MEMORY)
		memory_limit = ((int64_t)D * 3 + 1) / 2;
	if (!rc)
		rc = tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES,
						   memory_limit);
	if (!rc)
		rc = tessel_graph_validate(g);
	if (rc) {
		tessel_graph_free(g);
		return rc;
	}
	*out = g;
	return TSL_OK;
}
