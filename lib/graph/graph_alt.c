/* Stage: model. Declares, per block, the memory-time alternatives a search
 * may choose per micro-batch: recompute (the activation is dropped after
 * the forward and the backward runs the forward again first) and offload
 * (the activation goes to host memory over the device's copy channel and
 * comes back before the backward). Contract: a declaration names a
 * backward on the same devices, moves 1 .. the block's memory, and costs
 * extra steps (recompute, 0 .. TESSEL_MAX_SPAN) or a copy time (offload,
 * 1 .. TESSEL_MAX_SPAN); that the backward depends on the block is checked
 * with the graph's structure (tsl_graph_check_structure). */
#include "graph_alt.h"

#include <string.h>

#include "error.h"

static int alt_check(const tessel_graph *g, const char *fn, int gid,
		     int backward, int saves, int cost, int cost_min,
		     const char *cost_name)
{
	TSL_CHECK_ARG(g, fn, "graph");
	if (gid < 0 || gid >= g->nblocks)
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s: block id %d out of range (graph has %d blocks)",
				 fn, gid, g->nblocks);
	if (backward == -1)
		return TSL_OK;
	if (backward < 0 || backward >= g->nblocks)
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s: backward block id %d out of range (graph has %d blocks)",
				 fn, backward, g->nblocks);
	const tsl_block *f = &g->blocks[gid], *b = &g->blocks[backward];
	if (backward == gid)
		return tsl_error(TESSEL_EINVAL,
				 "%s: block \"%s\" cannot be its own backward",
				 fn, f->name);
	if (f->ndevices != b->ndevices ||
	    (f->ndevices &&
	     memcmp(f->devices, b->devices,
		    (size_t)f->ndevices * sizeof *f->devices)))
		return tsl_error(TESSEL_EINVAL,
				 "%s: block \"%s\" and its backward \"%s\" must occupy the same devices (place both first)",
				 fn, f->name, b->name);
	if (f->ndevices == 0)
		return tsl_error(TESSEL_EINVAL,
				 "%s: block \"%s\" is not placed yet", fn,
				 f->name);
	if (saves < 1 || saves > f->memory)
		return tsl_error(TESSEL_ERANGE,
				 "%s: block \"%s\": saves must be 1 .. its memory %d, got %d",
				 fn, f->name, f->memory, saves);
	if (cost < cost_min || cost > TESSEL_MAX_SPAN)
		return tsl_error(TESSEL_ERANGE,
				 "%s: block \"%s\": %s must be %d .. %d, got %d",
				 fn, f->name, cost_name, cost_min,
				 TESSEL_MAX_SPAN, cost);
	return TSL_OK;
}

TESSEL_API int tessel_graph_set_recompute(tessel_graph *g, int gid,
					  int backward, int saves, int extra)
{
	int rc = alt_check(g, "tessel_graph_set_recompute", gid, backward,
			   saves, extra, 0, "extra");
	if (rc)
		return rc;
	tsl_block *f = &g->blocks[gid];
	f->rc_backward = backward;
	f->rc_saves = backward < 0 ? 0 : saves;
	f->rc_extra = backward < 0 ? 0 : extra;
	return TSL_OK;
}

TESSEL_API int tessel_graph_set_offload(tessel_graph *g, int gid, int backward,
					int saves, int transfer)
{
	int rc = alt_check(g, "tessel_graph_set_offload", gid, backward, saves,
			   transfer, 1, "transfer");
	if (rc)
		return rc;
	tsl_block *f = &g->blocks[gid];
	f->of_backward = backward;
	f->of_saves = backward < 0 ? 0 : saves;
	f->of_transfer = backward < 0 ? 0 : transfer;
	return TSL_OK;
}

static int alt_get(int *out_backward, int *out_a, int *out_b,
		   const tessel_graph *g, int gid, int choice, const char *fn)
{
	if (out_backward)
		*out_backward = -1;
	if (out_a)
		*out_a = -1;
	if (out_b)
		*out_b = -1;
	TSL_CHECK_ARG(g, fn, "graph");
	if (gid < 0 || gid >= g->nblocks)
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s: block id %d out of range (graph has %d blocks)",
				 fn, gid, g->nblocks);
	const tsl_block *f = &g->blocks[gid];
	if (!tsl_block_allows(f, choice))
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s: block \"%s\" declares no %s alternative",
				 fn, f->name, tessel_choice_name(choice));
	if (out_backward)
		*out_backward = tsl_choice_backward(f, choice);
	if (out_a)
		*out_a = tsl_choice_saves(f, choice);
	if (out_b)
		*out_b = tsl_choice_time(f, choice);
	return TSL_OK;
}

TESSEL_API int tessel_graph_block_recompute(int *out_backward, int *out_saves,
					    int *out_extra,
					    const tessel_graph *g, int gid)
{
	return alt_get(out_backward, out_saves, out_extra, g, gid,
		       TESSEL_CHOICE_RECOMPUTE, "tessel_graph_block_recompute");
}

TESSEL_API int tessel_graph_block_offload(int *out_backward, int *out_saves,
					  int *out_transfer,
					  const tessel_graph *g, int gid)
{
	return alt_get(out_backward, out_saves, out_transfer, g, gid,
		       TESSEL_CHOICE_OFFLOAD, "tessel_graph_block_offload");
}

TESSEL_API const char *tessel_choice_name(tessel_choice choice)
{
	switch (choice) {
	case TESSEL_CHOICE_KEEP: return "keep";
	case TESSEL_CHOICE_RECOMPUTE: return "recompute";
	case TESSEL_CHOICE_OFFLOAD: return "offload";
	}
	return "?";
}

int tsl_graph_alternatives(const tessel_graph *g)
{
	int n = 0;
	for (int i = 0; i < g->nblocks; i++)
		n += g->blocks[i].rc_backward >= 0 ||
		     g->blocks[i].of_backward >= 0;
	return n;
}

int tsl_block_allows(const tsl_block *f, int choice)
{
	switch (choice) {
	case TESSEL_CHOICE_KEEP: return 1;
	case TESSEL_CHOICE_RECOMPUTE: return f->rc_backward >= 0;
	case TESSEL_CHOICE_OFFLOAD: return f->of_backward >= 0;
	}
	return 0;
}

int tsl_choice_backward(const tsl_block *f, int choice)
{
	if (choice == TESSEL_CHOICE_RECOMPUTE)
		return f->rc_backward;
	if (choice == TESSEL_CHOICE_OFFLOAD)
		return f->of_backward;
	return -1;
}

int tsl_choice_saves(const tsl_block *f, int choice)
{
	if (choice == TESSEL_CHOICE_RECOMPUTE)
		return f->rc_backward >= 0 ? f->rc_saves : 0;
	if (choice == TESSEL_CHOICE_OFFLOAD)
		return f->of_backward >= 0 ? f->of_saves : 0;
	return 0;
}

int tsl_choice_time(const tsl_block *f, int choice)
{
	if (choice == TESSEL_CHOICE_RECOMPUTE)
		return f->rc_backward >= 0 ? f->rc_extra : 0;
	if (choice == TESSEL_CHOICE_OFFLOAD)
		return f->of_backward >= 0 ? f->of_transfer : 0;
	return 0;
}

void tsl_graph_cheapest_start(int64_t *start, const int64_t *mem,
			      const tessel_graph *g)
{
	for (int v = 0; v < g->nblocks; v++) {
		const tsl_block *f = &g->blocks[v];
		int rs = tsl_choice_saves(f, TESSEL_CHOICE_RECOMPUTE);
		int os = tsl_choice_saves(f, TESSEL_CHOICE_OFFLOAD);
		/* an offload frees its memory once its copy ends, after the
		 * block: at the block's start the least is what recompute
		 * (or keeping) leaves */
		start[v] = mem[v] + (os > rs ? os - rs : 0);
	}
}

void tsl_graph_cheapest_memory(int64_t *mem, const tessel_graph *g)
{
	for (int v = 0; v < g->nblocks; v++)
		mem[v] = g->blocks[v].memory;
	for (int v = 0; v < g->nblocks; v++) {
		const tsl_block *f = &g->blocks[v];
		int rs = tsl_choice_saves(f, TESSEL_CHOICE_RECOMPUTE);
		int os = tsl_choice_saves(f, TESSEL_CHOICE_OFFLOAD);
		if (rs == 0 && os == 0)
			continue;
		int c = rs >= os ? TESSEL_CHOICE_RECOMPUTE : TESSEL_CHOICE_OFFLOAD;
		int saves = rs >= os ? rs : os;
		mem[v] -= saves;
		mem[tsl_choice_backward(f, c)] += saves;
	}
}
