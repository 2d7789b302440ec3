/* Stage: export. Action streams: what each device does, in order,
 * communication and the copies of offloaded activations included.
 *
 * A device's stream is its compute entries in start order (ties by gid,
 * then micro-batch, as tessel_iter_new gives them), with receives before
 * and sends after each compute, and the copies of its copy channel merged
 * in by their start step: an OFFLOAD (gid: the offloaded block, step: the
 * copy's start) comes before the compute group that starts at the same
 * step or later, after every group that starts earlier; a RELOAD after the
 * compute group that starts at its step or earlier, before every later
 * one (the validator counts a block's memory at a step before a reload's
 * of that step, so a runtime that posts the copy after that compute
 * starts keeps within the count). On a
 * device with a memory limit, a WAIT for an offload (gid, mid: the
 * offloaded instance; step: the offload's end) comes before the first
 * compute group, in stream order, that starts at or after the offload's
 * end and takes memory at its start (its block's memory delta, choices
 * applied, above 0): a runtime that posts copies beside the compute then
 * starts that compute only once the memory it counts on is free, as the
 * validator's count has it (the replay of tessel_simulate follows the
 * same rule).
 *
 * Pairing rule (one transfer, one send, one receive): for each dependency
 * a -> c, each micro-batch m and each device e of c that a does not
 * occupy, there is exactly one transfer of a's output from src(a) = the
 * lowest-numbered device of a to e.
 *   - device e RECEIVEs it right before computing c (gid c, peer src(a),
 *     peer_gid a, step = c's start);
 *   - device src(a) SENDs it right after computing a (gid a, peer e,
 *     peer_gid c, step = a's start + a's span, the span of that entry:
 *     a backward that recomputes runs longer).
 * Both carry the dependency's latency (it counts for every transfer, as c
 * occupies e and a does not): the output arrives at the send's step plus
 * the latency, which a valid schedule keeps at or before the receive's.
 * If a occupies e there is nothing to transfer. A block on several devices
 * computes on each of them but sends only from its lowest device.
 *
 * Contract: each placed entry is one compute on each of its devices, each
 * offloaded instance one offload and one reload on each of its devices;
 * the iterator builds its own arrays (nothing is cached in the schedule),
 * so a const schedule can be read from several threads at once. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "export_actions.h"
#include "graph.h"
#include "schedule.h"
#include "schedule_alt.h"
#include "util.h"

struct tessel_action {
	int kind;       /* tessel_action_kind */
	int gid;
	int64_t mid;
	int peer;       /* -1 for compute and copies */
	int peer_gid;   /* -1 for compute and copies */
	int64_t step;
	int64_t latency; /* 0 for compute and copies */
	int recompute;  /* compute: 1 when it recomputes a forward */
};

struct tessel_action_iter {
	struct tessel_action *acts; /* owned */
	size_t count;
	size_t cap;
	size_t pos;
};

/* ------------------------------------------------------------------------ */
/* Copies and recomputes, shared with the other exports                       */
/* ------------------------------------------------------------------------ */

static int copy_cmp(const void *pa, const void *pb)
{
	const tsl_copy *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->reload != b->reload)
		return a->reload < b->reload ? -1 : 1;
	if (a->gid != b->gid)
		return a->gid < b->gid ? -1 : 1;
	return (a->mid > b->mid) - (a->mid < b->mid);
}

/* The copies of device d into out (NULL: count only); returns how many. */
static size_t list_copies(tsl_copy *out, const tessel_schedule *s, int d)
{
	size_t n = 0;
	for (size_t i = s->dev_off[d]; i < s->dev_off[d + 1]; i++) {
		int b = s->dev_list[i];
		const tsl_block *blk = &s->graph->blocks[b];
		for (int64_t m = 0; m < s->nmicros; m++) {
			const struct tessel_entry *e = tsl_entry_at(s, b, m);
			if (e->choice != TESSEL_CHOICE_OFFLOAD)
				continue;
			for (int r = 0; r < 2; r++) {
				int64_t t = tsl_entry_copy_start(s, e, r);
				if (t < 0)
					continue;
				if (out)
					out[n] = (tsl_copy){t, t + blk->of_transfer,
							    b, m, r};
				n++;
			}
		}
	}
	return n;
}

int tsl_device_copies(tsl_copy **out, size_t *n, const tessel_schedule *s,
		      int d)
{
	*out = NULL;
	*n = 0;
	if (!s->copies)
		return TSL_OK;
	size_t k = list_copies(NULL, s, d);
	if (k == 0)
		return TSL_OK;
	tsl_copy *c = tsl_reallocarray(NULL, k, sizeof *c);
	if (!c)
		return tsl_error_nomem();
	list_copies(c, s, d);
	qsort(c, k, sizeof *c, copy_cmp);
	*out = c;
	*n = k;
	return TSL_OK;
}

/* Mark the backward of entry i of s when it recomputes into it. */
static int mark_entry(unsigned char **mk, const tessel_schedule *s, size_t i)
{
	const tessel_graph *g = s->graph;
	const struct tessel_entry *e = &s->entries[i];
	size_t n = (size_t)g->nblocks * (size_t)s->nmicros;
	if (e->choice != TESSEL_CHOICE_RECOMPUTE)
		return TSL_OK;
	if (!*mk && !(*mk = tsl_calloc(n, 1)))
		return tsl_error_nomem();
	(*mk)[(size_t)e->mid * (size_t)g->nblocks +
	      (size_t)g->blocks[e->gid].rc_backward] = 1;
	return TSL_OK;
}

int tsl_recompute_marks(unsigned char **out, const tessel_schedule *s, int d)
{
	const tessel_graph *g = s->graph;
	unsigned char *mk = NULL;
	int rc = TSL_OK;
	*out = NULL;
	if (s->nchoices == 0)
		return TSL_OK;
	if (d < 0) {
		size_t n = (size_t)g->nblocks * (size_t)s->nmicros;
		for (size_t i = 0; i < n && !rc; i++)
			rc = mark_entry(&mk, s, i);
	} else {
		/* a backward is on its forward's devices: device d's
		 * forwards mark all of device d's entries */
		for (size_t k = s->dev_off[d]; k < s->dev_off[d + 1] && !rc; k++)
			for (int64_t m = 0; m < s->nmicros && !rc; m++)
				rc = mark_entry(&mk, s,
						(size_t)m * (size_t)g->nblocks +
						(size_t)s->dev_list[k]);
	}
	if (rc) {
		tsl_free(mk);
		return rc;
	}
	*out = mk;
	return TSL_OK;
}

/* ------------------------------------------------------------------------ */
/* Building a stream                                                          */
/* ------------------------------------------------------------------------ */

typedef struct act_key {
	int64_t start;
	int copy;    /* 0: an offload (before a compute of the same step), 1:
		      * a compute and its transfers, 2: a reload (after the
		      * compute of its step) */
	int64_t tie; /* copy: its index in the device's copies; compute:
		      * gid * nmicros + mid */
} act_key;

static int act_key_cmp(const void *pa, const void *pb)
{
	const act_key *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->copy != b->copy)
		return a->copy < b->copy ? -1 : 1;
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
	a->recompute = 0;
	return TSL_OK;
}

/* Receives, compute and sends of block b, micro-batch m on device d;
 * `recompute`: the compute recomputes a forward. */
static int push_compute(tessel_action_iter *it, const tessel_schedule *s,
			const tsl_succ *x, int d, int b, int64_t m,
			int recompute)
{
	const tessel_graph *g = s->graph;
	const tsl_block *blk = &g->blocks[b];
	const struct tessel_entry *ent = tsl_entry_at(s, b, m);
	int64_t start = ent->start;
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
	it->acts[it->count - 1].recompute = recompute;
	if (blk->devices[0] != d)
		return TSL_OK;
	int64_t finish = start + tsl_entry_span(s, ent);
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

/* The keys of device d's computes and of its copies (nc of them), not
 * yet sorted; *out new. */
static int stream_keys(act_key **out, size_t *n, const tessel_schedule *s,
		       int d, size_t nc)
{
	size_t nk = nc;
	for (size_t i = s->dev_off[d]; i < s->dev_off[d + 1]; i++)
		nk += (size_t)s->nmicros;
	act_key *keys = tsl_reallocarray(NULL, nk ? nk : 1, sizeof *keys);
	if (!keys)
		return tsl_error_nomem();
	size_t k = 0;
	for (size_t i = s->dev_off[d]; i < s->dev_off[d + 1]; i++) {
		int b = s->dev_list[i];
		for (int64_t m = 0; m < s->nmicros; m++)
			keys[k++] = (act_key){tsl_entry_at(s, b, m)->start, 1,
					      (int64_t)b * s->nmicros + m};
	}
	*out = keys;
	*n = k;
	return TSL_OK;
}

static int build_stream(tessel_action_iter *it, const tessel_schedule *s,
			int d)
{
	tsl_copy *cp = NULL;
	unsigned char *marks = NULL;
	act_key *keys = NULL;
	size_t nc = 0, n = 0;
	int rc = tsl_device_copies(&cp, &nc, s, d);
	if (!rc)
		rc = tsl_recompute_marks(&marks, s, d);
	if (!rc)
		rc = stream_keys(&keys, &n, s, d, nc);
	for (size_t i = 0; i < nc && !rc; i++)
		keys[n++] = (act_key){cp[i].start, cp[i].reload ? 2 : 0, (int64_t)i};
	tsl_succ x = {0};
	if (!rc) {
		qsort(keys, n, sizeof *keys, act_key_cmp);
		rc = tsl_succ_build(&x, s->graph);
	}
	/* the copies by end (a channel's copies end in start order): the
	 * next one a compute may have to wait for */
	size_t w = 0;
	int limited = s->graph->memory_limit[d] != TESSEL_UNLIMITED;
	for (size_t i = 0; i < n && !rc; i++) {
		if (keys[i].copy != 1) {
			const tsl_copy *c = &cp[keys[i].tie];
			rc = iter_push(it, c->reload ? TESSEL_ACTION_RELOAD
						     : TESSEL_ACTION_OFFLOAD,
				       c->gid, c->mid, -1, -1, c->start, 0);
			continue;
		}
		int b = (int)(keys[i].tie / s->nmicros);
		int64_t m = keys[i].tie % s->nmicros;
		const struct tessel_entry *e = tsl_entry_at(s, b, m);
		for (; limited && tsl_entry_memory(s, e) > 0 && w < nc &&
		       cp[w].end <= e->start && !rc; w++)
			if (!cp[w].reload)
				rc = iter_push(it, TESSEL_ACTION_WAIT, cp[w].gid,
					       cp[w].mid, -1, -1, cp[w].end, 0);
		size_t at = (size_t)m * (size_t)s->graph->nblocks + (size_t)b;
		if (!rc)
			rc = push_compute(it, s, &x, d, b, m, marks && marks[at]);
	}
	tsl_succ_release(&x);
	tsl_free(keys);
	tsl_free(marks);
	tsl_free(cp);
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
	case TESSEL_ACTION_OFFLOAD: return "offload";
	case TESSEL_ACTION_RELOAD: return "reload";
	case TESSEL_ACTION_WAIT: return "wait";
	default: return "compute";
	}
}

/* What an action adds to its block, micro-batch and step: the peer of a
 * transfer, the recompute of a compute, the figures of a copy. */
static void put_action_rest(tsl_buf *b, const tessel_schedule *s,
			    const struct tessel_action *a)
{
	const tessel_graph *g = s->graph;
	const tsl_block *blk = &g->blocks[a->gid];
	switch (a->kind) {
	case TESSEL_ACTION_COMPUTE:
		if (a->recompute)
			tsl_buf_printf(b, ", \"recompute\": true, \"extra\": %lld",
				       (long long)tsl_entry_at(s, a->gid, a->mid)->span_add);
		break;
	case TESSEL_ACTION_OFFLOAD:
	case TESSEL_ACTION_RELOAD:
		tsl_buf_printf(b, ", \"transfer\": %d, \"saves\": %d, "
				  "\"backward\": ", blk->of_transfer,
			       blk->of_saves);
		tsl_buf_json_string(b, g->blocks[blk->of_backward].name);
		tsl_buf_printf(b, ", \"backward_gid\": %d", blk->of_backward);
		break;
	case TESSEL_ACTION_WAIT:
		break;
	default:
		tsl_buf_printf(b, ", \"peer\": %d, \"peer_block\": ", a->peer);
		tsl_buf_json_string(b, g->blocks[a->peer_gid].name);
		tsl_buf_printf(b, ", \"peer_gid\": %d, \"latency\": %lld",
			       a->peer_gid, (long long)a->latency);
		break;
	}
}

static void put_action(tsl_buf *b, const tessel_schedule *s,
		       const struct tessel_action *a)
{
	tsl_buf_printf(b, "{\"op\": \"%s\", \"block\": ", kind_op(a->kind));
	tsl_buf_json_string(b, s->graph->blocks[a->gid].name);
	tsl_buf_printf(b, ", \"gid\": %d, \"mid\": %lld, \"step\": %lld",
		       a->gid, (long long)a->mid, (long long)a->step);
	put_action_rest(b, s, a);
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
			put_action(b, schedule, &it->acts[i]);
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
