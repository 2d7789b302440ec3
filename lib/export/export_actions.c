/* Action streams: what each device does, in order, communication included.
 *
 * A device's stream is its compute entries in start order (ties by gid,
 * then micro-batch, as tessel_iter_new gives them), with receives before
 * and sends after each compute.
 *
 * Pairing rule (one transfer, one send, one receive): for each dependency
 * a -> c, each micro-batch m and each device e of c that a does not
 * occupy, there is exactly one transfer of a's output from src(a) = the
 * lowest-numbered device of a to e.
 *   - device e RECEIVEs it right before computing c (gid c, peer src(a),
 *     peer_gid a, step = c's start);
 *   - device src(a) SENDs it right after computing a (gid a, peer e,
 *     peer_gid c, step = a's start + a's span).
 * Both carry the dependency's latency (it counts for every transfer, as c
 * occupies e and a does not): the output arrives at the send's step plus
 * the latency, which a valid schedule keeps at or before the receive's.
 * If a occupies e there is nothing to transfer. A block on several devices
 * computes on each of them but sends only from its lowest device.
 *
 * The iterator builds its own arrays (nothing is cached in the schedule),
 * so a const schedule can be read from several threads at once. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "export_actions.h"
#include "graph.h"
#include "schedule.h"
#include "util.h"

struct tessel_action {
	int kind;       /* tessel_action_kind */
	int gid;
	int64_t mid;
	int peer;       /* -1 for compute */
	int peer_gid;   /* -1 for compute */
	int64_t step;
	int64_t latency; /* 0 for compute */
};

struct tessel_action_iter {
	struct tessel_action *acts; /* owned */
	size_t count;
	size_t cap;
	size_t pos;
};

/* ------------------------------------------------------------------------ */
/* Building a stream                                                          */
/* ------------------------------------------------------------------------ */

typedef struct act_key {
	int64_t start;
	int64_t tie; /* gid * nmicros + mid */
} act_key;

static int act_key_cmp(const void *pa, const void *pb)
{
	const act_key *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->tie != b->tie)
		return a->tie < b->tie ? -1 : 1;
	return 0;
}

static int iter_push(tessel_action_iter *it, int kind, int gid, int64_t mid,
		     int peer, int peer_gid, int64_t step, int64_t latency)
{
	if (it->count == it->cap) {
		size_t cap = it->cap ? 2 * it->cap : 64;
		struct tessel_action *a = tsl_reallocarray(it->acts, cap,
							   sizeof *a);
		if (!a)
			return tsl_error_nomem();
		it->acts = a;
		it->cap = cap;
	}
	struct tessel_action *a = &it->acts[it->count++];
	a->kind = kind;
	a->gid = gid;
	a->mid = mid;
	a->peer = peer;
	a->peer_gid = peer_gid;
	a->step = step;
	a->latency = latency;
	return TSL_OK;
}

/* Receives, compute and sends of block b, micro-batch m on device d. */
static int push_compute(tessel_action_iter *it, const tessel_schedule *s,
			const tsl_succ *x, int d, int b, int64_t m)
{
	const tessel_graph *g = s->graph;
	const tsl_block *blk = &g->blocks[b];
	int64_t start = tsl_entry_at(s, b, m)->start;
	int rc;
	for (int i = 0; i < blk->ndeps; i++) {
		int a = blk->deps[i];
		const tsl_block *pa = &g->blocks[a];
		if (pa->ndevices < 1 || tsl_block_on_device(pa, d))
			continue;
		rc = iter_push(it, TESSEL_ACTION_RECV, b, m, pa->devices[0], a,
			       start, tsl_dep_latency(g, blk, i));
		if (rc)
			return rc;
	}
	rc = iter_push(it, TESSEL_ACTION_COMPUTE, b, m, -1, -1, start, 0);
	if (rc)
		return rc;
	if (blk->devices[0] != d)
		return TSL_OK;
	int64_t finish = start + blk->span;
	for (int i = x->start[b]; i < x->start[b + 1]; i++) {
		int c = x->block[i];
		const tsl_block *pc = &g->blocks[c];
		int64_t lat = tsl_dep_latency(g, pc, x->dep[i]);
		for (int j = 0; j < pc->ndevices; j++) {
			int e = pc->devices[j];
			if (tsl_block_on_device(blk, e))
				continue;
			rc = iter_push(it, TESSEL_ACTION_SEND, b, m, e, c,
				       finish, lat);
			if (rc)
				return rc;
		}
	}
	return TSL_OK;
}

static int build_stream(tessel_action_iter *it, const tessel_schedule *s,
			int d)
{
	const tessel_graph *g = s->graph;
	size_t n = 0;
	for (int b = 0; b < g->nblocks; b++)
		if (tsl_block_on_device(&g->blocks[b], d))
			n += (size_t)s->nmicros;
	act_key *keys = tsl_reallocarray(NULL, n ? n : 1, sizeof *keys);
	if (!keys)
		return tsl_error_nomem();
	size_t k = 0;
	for (int b = 0; b < g->nblocks; b++) {
		if (!tsl_block_on_device(&g->blocks[b], d))
			continue;
		for (int64_t m = 0; m < s->nmicros; m++) {
			keys[k].start = tsl_entry_at(s, b, m)->start;
			keys[k].tie = (int64_t)b * s->nmicros + m;
			k++;
		}
	}
	qsort(keys, n, sizeof *keys, act_key_cmp);
	tsl_succ x;
	int rc = tsl_succ_build(&x, g);
	for (size_t i = 0; i < n && !rc; i++) {
		int b = (int)(keys[i].tie / s->nmicros);
		int64_t m = keys[i].tie % s->nmicros;
		rc = push_compute(it, s, &x, d, b, m);
	}
	tsl_succ_release(&x);
	tsl_free(keys);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Iterator                                                                   */
/* ------------------------------------------------------------------------ */

static int action_iter_make(tessel_action_iter **out, const tessel_schedule *s,
			    int device, const char *fn)
{
	if (device < 0 || device >= s->graph->ndevices)
		return tsl_error(TESSEL_ENOTFOUND,
				 "%s: device %d is out of range 0 .. %d", fn,
				 device, s->graph->ndevices - 1);
	int rc = tsl_schedule_check_placed(s, fn);
	if (rc)
		return rc;
	tessel_action_iter *it = tsl_calloc(1, sizeof *it);
	if (!it)
		return tsl_error_nomem();
	rc = build_stream(it, s, device);
	if (rc) {
		tessel_action_iter_free(it);
		return rc;
	}
	*out = it;
	return TSL_OK;
}

TESSEL_API int tessel_action_iter_new(tessel_action_iter **out,
				      const tessel_schedule *schedule,
				      int device)
{
	static const char fn[] = "tessel_action_iter_new";
	TSL_CHECK_ARG(out, fn, "out");
	*out = NULL;
	TSL_CHECK_ARG(schedule, fn, "schedule");
	return action_iter_make(out, schedule, device, fn);
}

TESSEL_API int tessel_action_iter_next(const tessel_action **out,
				       tessel_action_iter *iter)
{
	TSL_CHECK_ARG(out, "tessel_action_iter_next", "out");
	*out = NULL;
	TSL_CHECK_ARG(iter, "tessel_action_iter_next", "iter");
	if (iter->pos >= iter->count)
		return TESSEL_ITEROVER;
	*out = &iter->acts[iter->pos++];
	return TSL_OK;
}

TESSEL_API void tessel_action_iter_free(tessel_action_iter *iter)
{
	if (!iter)
		return;
	tsl_free(iter->acts);
	tsl_free(iter);
}

TESSEL_API int tessel_action_get(int64_t *out, const tessel_action *action,
				 tessel_action_attr attr)
{
	TSL_CHECK_ARG(out, "tessel_action_get", "out");
	TSL_CHECK_ARG(action, "tessel_action_get", "action");
	int64_t v;
	switch (attr) {
	case TESSEL_ACTION_KIND: v = action->kind; break;
	case TESSEL_ACTION_GID: v = action->gid; break;
	case TESSEL_ACTION_MICRO_BATCH: v = action->mid; break;
	case TESSEL_ACTION_PEER: v = action->peer; break;
	case TESSEL_ACTION_PEER_GID: v = action->peer_gid; break;
	case TESSEL_ACTION_STEP: v = action->step; break;
	case TESSEL_ACTION_LATENCY: v = action->latency; break;
	default:
		return tsl_error(TESSEL_EINVAL,
				 "tessel_action_get: unknown attribute %d",
				 (int)attr);
	}
	*out = v;
	return TSL_OK;
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                       */
/* ------------------------------------------------------------------------ */

static const char *kind_op(int kind)
{
	switch (kind) {
	case TESSEL_ACTION_SEND: return "send";
	case TESSEL_ACTION_RECV: return "recv";
	default: return "compute";
	}
}

static void put_action(tsl_buf *b, const tessel_graph *g,
		       const struct tessel_action *a)
{
	tsl_buf_printf(b, "{\"op\": \"%s\", \"block\": ", kind_op(a->kind));
	tsl_buf_json_string(b, g->blocks[a->gid].name);
	tsl_buf_printf(b, ", \"gid\": %d, \"mid\": %lld, \"step\": %lld",
		       a->gid, (long long)a->mid, (long long)a->step);
	if (a->kind != TESSEL_ACTION_COMPUTE) {
		tsl_buf_printf(b, ", \"peer\": %d, \"peer_block\": ", a->peer);
		tsl_buf_json_string(b, g->blocks[a->peer_gid].name);
		tsl_buf_printf(b, ", \"peer_gid\": %d, \"latency\": %lld",
			       a->peer_gid, (long long)a->latency);
	}
	tsl_buf_puts(b, "}");
}

int tsl_write_actions_json(tsl_buf *b, const tessel_schedule *schedule,
			   const char *fn)
{
	TSL_CHECK_ARG(schedule, fn, "schedule");
	const tessel_graph *g = schedule->graph;
	int rc = tsl_schedule_check_placed(schedule, fn);
	if (!rc)
		rc = tsl_json_check_names(schedule->graph, fn);
	if (rc)
		return rc;
	tsl_buf_printf(b, "{\n  \"format\": \"tessel-actions\",\n"
		       "  \"version\": 1,\n  \"ndevs\": %d,\n"
		       "  \"nmicros\": %lld,\n  \"devices\": [",
		       g->ndevices, (long long)schedule->nmicros);
	for (int d = 0; d < g->ndevices && !b->failed; d++) {
		tessel_action_iter *it = NULL;
		rc = action_iter_make(&it, schedule, d, fn);
		if (rc)
			return rc;
		tsl_buf_printf(b, "%s\n    {\"device\": %d, \"actions\": [",
			       d ? "," : "", d);
		for (size_t i = 0; i < it->count && !b->failed; i++) {
			tsl_buf_puts(b, i ? ",\n      " : "\n      ");
			put_action(b, g, &it->acts[i]);
			tsl_buf_flush_point(b);
		}
		tsl_buf_puts(b, it->count ? "\n    ]}" : "]}");
		tessel_action_iter_free(it);
	}
	tsl_buf_puts(b, g->ndevices ? "\n  ]\n}\n" : "]\n}\n");
	return TSL_OK;
}

TESSEL_API int tessel_schedule_to_actions_json(char **out,
					       const tessel_schedule *schedule)
{
	static const char fn[] = "tessel_schedule_to_actions_json";
	TSL_CHECK_ARG(out, fn, "out");
	*out = NULL;
	tsl_buf b;
	tsl_buf_init(&b);
	int rc = tsl_write_actions_json(&b, schedule, fn);
	return tsl_buf_finish(out, &b, rc);
}
