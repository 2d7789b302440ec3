/* Action streams: compute order, send/receive pairing, ordering around the
 * computes, the copies of offloaded activations and the recomputes, the
 * JSON export and bad arguments. Schedules come from presets
 * through the search, plus small hand-made ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helpers.h"
#include "tessel.h"

typedef struct act {
	int dev;
	size_t pos;  /* index in its device's stream */
	int64_t kind, gid, mid, peer, peer_gid, step, latency;
} act;

typedef struct stream_set {
	act *acts;
	size_t count;
} stream_set;

static int64_t action_attr(const tessel_action *a, tessel_action_attr attr)
{
	int64_t v = -7;
	TH_OK(tessel_action_get(&v, a, attr));
	return v;
}

static int on_device(const tessel_graph *g, int gid, int d)
{
	int64_t n = th_block(g, gid, TESSEL_BLOCK_NDEVICES);
	for (int64_t i = 0; i < n; i++) {
		int e = -1;
		TH_OK(tessel_graph_block_device(&e, g, gid, (size_t)i));
		if (e == d)
			return 1;
	}
	return 0;
}

static int low_device(const tessel_graph *g, int gid)
{
	int e = -1;
	TH_OK(tessel_graph_block_device(&e, g, gid, 0));
	return e;
}

/* An attribute of the entry (gid, mid), -1 when there is none. */
static int64_t entry_of(const tessel_schedule *s, int gid, int64_t mid,
			tessel_entry_attr attr)
{
	tessel_iter *it = NULL;
	TH_OK(tessel_iter_new(&it, s, TESSEL_ALL_DEVICES));
	const tessel_entry *e;
	int64_t v = -1;
	while (tessel_iter_next(&e, it) == TESSEL_OK) {
		int64_t g = -1, m = -1;
		TH_OK(tessel_entry_get(&g, e, TESSEL_ENTRY_GID));
		TH_OK(tessel_entry_get(&m, e, TESSEL_ENTRY_MICRO_BATCH));
		if (g == gid && m == mid)
			TH_OK(tessel_entry_get(&v, e, attr));
	}
	tessel_iter_free(it);
	return v;
}

static int64_t start_of(const tessel_schedule *s, int gid, int64_t mid)
{
	return entry_of(s, gid, mid, TESSEL_ENTRY_START);
}

static int is_copy(int64_t kind)
{
	return kind == TESSEL_ACTION_OFFLOAD || kind == TESSEL_ACTION_RELOAD;
}

static stream_set collect(const tessel_schedule *s, int ndevs)
{
	stream_set set = {NULL, 0};
	size_t cap = 0;
	for (int d = 0; d < ndevs; d++) {
		tessel_action_iter *it = NULL;
		TH_OK(tessel_action_iter_new(&it, s, d));
		const tessel_action *a;
		size_t pos = 0;
		int rc;
		while ((rc = tessel_action_iter_next(&a, it)) == TESSEL_OK) {
			if (set.count == cap) {
				cap = cap ? 2 * cap : 256;
				set.acts = realloc(set.acts, cap * sizeof *set.acts);
				assert_non_null(set.acts);
			}
			act *x = &set.acts[set.count++];
			x->dev = d;
			x->pos = pos++;
			x->kind = action_attr(a, TESSEL_ACTION_KIND);
			x->gid = action_attr(a, TESSEL_ACTION_GID);
			x->mid = action_attr(a, TESSEL_ACTION_MICRO_BATCH);
			x->peer = action_attr(a, TESSEL_ACTION_PEER);
			x->peer_gid = action_attr(a, TESSEL_ACTION_PEER_GID);
			x->step = action_attr(a, TESSEL_ACTION_STEP);
			x->latency = action_attr(a, TESSEL_ACTION_LATENCY);
		}
		assert_int_equal(rc, TESSEL_ITEROVER);
		/* stays over */
		assert_int_equal(tessel_action_iter_next(&a, it), TESSEL_ITEROVER);
		assert_null(a);
		tessel_action_iter_free(it);
	}
	return set;
}

/* Position of the compute of (gid, mid) on device d, or -1. */
static long compute_pos(const stream_set *set, int d, int64_t gid, int64_t mid)
{
	for (size_t i = 0; i < set->count; i++) {
		const act *x = &set->acts[i];
		if (x->dev == d && x->kind == TESSEL_ACTION_COMPUTE
		    && x->gid == gid && x->mid == mid)
			return (long)x->pos;
	}
	return -1;
}

/* The memory waits: each names an offload of its device (a device with a
 * limit), at the offload's end, after it in the stream, at most once, and
 * stands before a compute that starts at or after that end, with only
 * other waits and receives between them. Returns the waits. */
static size_t check_waits(const tessel_schedule *s, const stream_set *set)
{
	const tessel_graph *g = NULL;
	TH_OK(tessel_schedule_graph(&g, s));
	size_t n = 0;
	for (size_t i = 0; i < set->count; i++) {
		const act *x = &set->acts[i];
		if (x->kind != TESSEL_ACTION_WAIT)
			continue;
		n++;
		int64_t limit = 0;
		TH_OK(tessel_graph_memory_limit(&limit, g, x->dev));
		assert_true(limit >= 0);
		assert_int_equal(entry_of(s, (int)x->gid, x->mid, TESSEL_ENTRY_CHOICE),
				 TESSEL_CHOICE_OFFLOAD);
		int transfer = 0;
		TH_OK(tessel_graph_block_offload(NULL, NULL, &transfer, g, (int)x->gid));
		int64_t off = entry_of(s, (int)x->gid, x->mid, TESSEL_ENTRY_OFFLOAD_START);
		assert_int_equal(x->step, off + transfer);
		int seen = 0;
		for (size_t j = 0; j < i; j++) {
			const act *y = &set->acts[j];
			if (y->dev != x->dev || y->gid != x->gid || y->mid != x->mid)
				continue;
			seen += y->kind == TESSEL_ACTION_OFFLOAD;
			assert_false(y->kind == TESSEL_ACTION_WAIT);
		}
		assert_int_equal(seen, 1);
		size_t j = i + 1;
		while (j < set->count && set->acts[j].dev == x->dev &&
		       (set->acts[j].kind == TESSEL_ACTION_WAIT ||
			set->acts[j].kind == TESSEL_ACTION_RECV))
			j++;
		assert_true(j < set->count && set->acts[j].dev == x->dev);
		const act *c = &set->acts[j];
		assert_int_equal(c->kind, TESSEL_ACTION_COMPUTE);
		assert_true(c->step >= x->step);
	}
	return n;
}

/* The copies: for each offloaded entry and device of its block, one
 * offload and one reload at the copies' start steps; computes and copies
 * in time order, an offload before a compute of its step, a reload after
 * it. Returns the copies. */
static size_t check_copies(const tessel_schedule *s, const stream_set *set)
{
	const tessel_graph *g = NULL;
	TH_OK(tessel_schedule_graph(&g, s));
	size_t ncopies = 0, want = 0;
	int64_t last = -1;
	int last_dev = -1;
	for (size_t i = 0; i < set->count; i++) {
		const act *x = &set->acts[i];
		if (x->dev != last_dev)
			last = -1;
		last_dev = x->dev;
		if (x->kind == TESSEL_ACTION_COMPUTE) {
			assert_true(x->step >= last);
			last = x->step;
		}
		if (!is_copy(x->kind))
			continue;
		ncopies++;
		if (x->kind == TESSEL_ACTION_RELOAD)
			assert_true(x->step >= last);
		else
			assert_true(x->step > last);
		last = x->step;
		assert_int_equal(x->peer, -1);
		assert_int_equal(x->peer_gid, -1);
		assert_int_equal(x->latency, 0);
		assert_true(on_device(g, (int)x->gid, x->dev));
		assert_int_equal(entry_of(s, (int)x->gid, x->mid, TESSEL_ENTRY_CHOICE),
				 TESSEL_CHOICE_OFFLOAD);
		assert_int_equal(x->step, entry_of(s, (int)x->gid, x->mid,
						   x->kind == TESSEL_ACTION_OFFLOAD
						   ? TESSEL_ENTRY_OFFLOAD_START
						   : TESSEL_ENTRY_RELOAD_START));
	}
	tessel_iter *it = NULL;
	const tessel_entry *e;
	TH_OK(tessel_iter_new(&it, s, TESSEL_ALL_DEVICES));
	while (tessel_iter_next(&e, it) == TESSEL_OK)
		if (th_entry(e, TESSEL_ENTRY_CHOICE) == TESSEL_CHOICE_OFFLOAD)
			want += 2 * (size_t)th_entry(e, TESSEL_ENTRY_NDEVICES);
	tessel_iter_free(it);
	assert_int_equal(ncopies, want);
	return ncopies;
}

/* Per device, the compute order is the schedule's iterator order. */
static void check_compute_order(const tessel_schedule *s,
				const stream_set *set, int D)
{
	for (int d = 0; d < D; d++) {
		tessel_iter *it = NULL;
		TH_OK(tessel_iter_new(&it, s, d));
		size_t i = 0;
		const tessel_entry *e;
		while (tessel_iter_next(&e, it) == TESSEL_OK) {
			while (i < set->count && (set->acts[i].dev != d
			       || set->acts[i].kind != TESSEL_ACTION_COMPUTE))
				i++;
			assert_true(i < set->count);
			int64_t gid = -1, mid = -1;
			TH_OK(tessel_entry_get(&gid, e, TESSEL_ENTRY_GID));
			TH_OK(tessel_entry_get(&mid, e, TESSEL_ENTRY_MICRO_BATCH));
			assert_int_equal(set->acts[i].gid, gid);
			assert_int_equal(set->acts[i].mid, mid);
			i++;
		}
		tessel_iter_free(it);
		for (; i < set->count; i++)
			assert_false(set->acts[i].dev == d
				     && set->acts[i].kind == TESSEL_ACTION_COMPUTE);
	}
}

/* Transfers of one micro-batch the pairing rule asks for: one per
 * dependency a -> c and device of c that a does not occupy. */
static size_t rule_transfers(const tessel_graph *g, int B, int D)
{
	size_t want = 0;
	for (int c = 0; c < B; c++) {
		int64_t nd = th_block(g, c, TESSEL_BLOCK_NDEPS);
		for (int64_t i = 0; i < nd; i++) {
			int a = -1;
			TH_OK(tessel_graph_block_dep(&a, g, c, (size_t)i));
			for (int e = 0; e < D; e++)
				if (on_device(g, c, e) && !on_device(g, a, e))
					want++;
		}
	}
	return want;
}

/* The JSON of schedule s (D devices, N micro-batches): its header, and
 * counts[] computes, sends, receives, copies and waits. */
static void check_json(const tessel_schedule *s, int D, int64_t N,
		       const size_t counts[5])
{
	size_t ncomputes = counts[0], nsends = counts[1], nrecvs = counts[2],
	       ncopies = counts[3], nwaits = counts[4];
	char *json = NULL;
	TH_OK(tessel_schedule_to_actions_json(&json, s));
	assert_non_null(strstr(json, "\"format\": \"tessel-actions\""));
	assert_non_null(strstr(json, "\"version\": 1"));
	char buf[64];
	snprintf(buf, sizeof buf, "\"ndevs\": %d", D);
	assert_non_null(strstr(json, buf));
	snprintf(buf, sizeof buf, "\"nmicros\": %lld", (long long)N);
	assert_non_null(strstr(json, buf));
	assert_int_equal(th_count(json, "\"op\": \"compute\""), ncomputes);
	assert_int_equal(th_count(json, "\"op\": \"send\""), nsends);
	assert_int_equal(th_count(json, "\"op\": \"recv\""), nrecvs);
	assert_int_equal(th_count(json, "\"op\": \"offload\"")
			 + th_count(json, "\"op\": \"reload\""), ncopies);
	assert_int_equal(th_count(json, "\"op\": \"wait\""), nwaits);
	assert_int_equal(th_count(json, "\"device\": "), (size_t)D);
	/* brackets balance (no string in these graphs holds one) */
	long depth = 0;
	for (const char *p = json; *p; p++) {
		if (*p == '{' || *p == '[')
			depth++;
		if (*p == '}' || *p == ']')
			depth--;
		assert_true(depth >= 0);
	}
	assert_int_equal(depth, 0);
	tessel_free(json);
}

/* Every property of the streams of schedule s. */
static void check_streams(const tessel_schedule *s)
{
	const tessel_graph *g = NULL;
	TH_OK(tessel_schedule_graph(&g, s));
	int D = (int)th_sched(s, TESSEL_SCHED_NDEVICES);
	int B = (int)th_sched(s, TESSEL_SCHED_NBLOCKS);
	int64_t N = th_sched(s, TESSEL_SCHED_NMICROS);
	stream_set set = collect(s, D);

	/* each (block, micro-batch) computed once on each of its devices */
	size_t ncomputes = 0;
	int *cnt = calloc((size_t)D * B * N, sizeof *cnt);
	assert_non_null(cnt);
	for (size_t i = 0; i < set.count; i++) {
		const act *x = &set.acts[i];
		if (x->kind != TESSEL_ACTION_COMPUTE)
			continue;
		ncomputes++;
		assert_int_equal(x->peer, -1);
		assert_int_equal(x->peer_gid, -1);
		assert_int_equal(x->latency, 0);
		assert_int_equal(x->step, start_of(s, (int)x->gid, x->mid));
		cnt[((size_t)x->dev * B + x->gid) * N + x->mid]++;
	}
	for (int d = 0; d < D; d++)
		for (int b = 0; b < B; b++)
			for (int64_t m = 0; m < N; m++)
				assert_int_equal(cnt[((size_t)d * B + b) * N + m],
						 on_device(g, b, d));
	free(cnt);

	check_compute_order(s, &set, D);

	size_t ncopies = check_copies(s, &set);
	size_t nwaits = check_waits(s, &set);

	/* pairing: each send has exactly one receive and the other way round;
	 * sends after their producer's compute, receives before the
	 * consumer's compute */
	size_t nsends = 0, nrecvs = 0;
	for (size_t i = 0; i < set.count; i++) {
		const act *x = &set.acts[i];
		if (x->kind == TESSEL_ACTION_COMPUTE || is_copy(x->kind) ||
		    x->kind == TESSEL_ACTION_WAIT)
			continue;
		assert_true(x->kind == TESSEL_ACTION_SEND
			    || x->kind == TESSEL_ACTION_RECV);
		assert_true(x->peer >= 0 && x->peer < D && x->peer != x->dev);
		int send = x->kind == TESSEL_ACTION_SEND;
		int64_t prod = send ? x->gid : x->peer_gid;
		int64_t cons = send ? x->peer_gid : x->gid;
		/* the rule: from the producer's lowest device to a consumer
		 * device the producer does not occupy */
		int src = send ? x->dev : (int)x->peer;
		int dst = send ? (int)x->peer : x->dev;
		assert_int_equal(src, low_device(g, (int)prod));
		assert_false(on_device(g, (int)prod, dst));
		assert_true(on_device(g, (int)cons, dst));
		int matches = 0;
		for (size_t j = 0; j < set.count; j++) {
			const act *y = &set.acts[j];
			if (y->kind != (send ? TESSEL_ACTION_RECV
					     : TESSEL_ACTION_SEND))
				continue;
			if (y->dev == x->peer && y->peer == x->dev
			    && y->mid == x->mid && y->gid == x->peer_gid
			    && y->peer_gid == x->gid) {
				matches++;
				const act *sn = send ? x : y, *rc = send ? y : x;
				/* sent at the finish, arrives latency later */
				assert_int_equal(sn->latency, rc->latency);
				assert_true(sn->latency >= 0);
				assert_true(sn->step + sn->latency <= rc->step);
			}
		}
		assert_int_equal(matches, 1);
		long cp = compute_pos(&set, x->dev, x->gid, x->mid);
		assert_true(cp >= 0);
		if (send) {
			nsends++;
			assert_true((long)x->pos > cp);
			/* the entry's span: a recompute makes it longer */
			assert_int_equal(x->step, start_of(s, (int)x->gid, x->mid)
					 + entry_of(s, (int)x->gid, x->mid,
						    TESSEL_ENTRY_SPAN));
		} else {
			nrecvs++;
			assert_true((long)x->pos < cp);
			assert_int_equal(x->step, start_of(s, (int)x->gid, x->mid));
		}
	}
	assert_int_equal(nsends, nrecvs);
	/* and as many transfers as the rule asks for */
	assert_int_equal(nsends, rule_transfers(g, B, D) * (size_t)N);

	size_t counts[5] = {ncomputes, nsends, nrecvs, ncopies, nwaits};
	check_json(s, D, N, counts);
	free(set.acts);
}

/* ------------------------------------------------------------------------ */

static void test_presets(void **state)
{
	(void)state;
	const char *names[] = {"vshape", "mshape", "kshape"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		tessel_schedule *s = th_search_preset(names[i], 4, 10, 8, 0);
		check_streams(s);
		tessel_schedule_free(s);
	}
}

/* A hand-made graph: "a" on dev 0 -> "m" on devs 1 and 2 -> "z" on dev 0
 * and also "a" -> "z"; names that need escaping in JSON. */
static tessel_schedule *hand_schedule(int place_all)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 3));
	const char *names[] = {"a\"q", "m\\b", "z\x01"};
	int ids[3];
	for (int i = 0; i < 3; i++)
		TH_OK(tessel_graph_add_block(&ids[i], g, names[i],
					     TESSEL_KIND_FORWARD, 1 + i, 0));
	const int d0 = 0, d12[] = {1, 2};
	TH_OK(tessel_graph_place(g, 0, &d0, 1));
	TH_OK(tessel_graph_place(g, 1, d12, 2));
	TH_OK(tessel_graph_place(g, 2, &d0, 1));
	TH_OK(tessel_graph_add_dep(g, 0, 1));
	TH_OK(tessel_graph_add_dep(g, 1, 2));
	TH_OK(tessel_graph_add_dep(g, 0, 2));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 2));
	tessel_graph_free(g);
	/* a: span 1, m: span 2, z: span 3; micro-batches one after another */
	for (int m = 0; m < 2; m++) {
		TH_OK(tessel_schedule_set_step(s, 0, m, 6 * m));
		TH_OK(tessel_schedule_set_step(s, 1, m, 6 * m + 1));
		if (place_all || m == 0)
			TH_OK(tessel_schedule_set_step(s, 2, m, 6 * m + 3));
	}
	return s;
}

static void test_hand_made(void **state)
{
	(void)state;
	tessel_schedule *s = hand_schedule(1);
	check_streams(s);

	/* device 0, micro-batch 0: compute a, send a->m to 1 and 2, send
	 * a->z? no (z is on 0), recv m->z from 1 (lowest device of m), compute z */
	static const int64_t want[][6] = {
		/* kind, gid, mid, peer, peer_gid, step */
		{TESSEL_ACTION_COMPUTE, 0, 0, -1, -1, 0},
		{TESSEL_ACTION_SEND, 0, 0, 1, 1, 1},
		{TESSEL_ACTION_SEND, 0, 0, 2, 1, 1},
		{TESSEL_ACTION_RECV, 2, 0, 1, 1, 3},
		{TESSEL_ACTION_COMPUTE, 2, 0, -1, -1, 3},
	};
	tessel_action_iter *it = NULL;
	TH_OK(tessel_action_iter_new(&it, s, 0));
	const tessel_action *a;
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		TH_OK(tessel_action_iter_next(&a, it));
		for (int k = 0; k < 6; k++)
			assert_int_equal(action_attr(a, (tessel_action_attr)k),
					 want[i][k]);
	}
	tessel_action_iter_free(it);

	/* device 2: receive a from 0, compute m, no send (m's lowest device
	 * is 1) */
	TH_OK(tessel_action_iter_new(&it, s, 2));
	TH_OK(tessel_action_iter_next(&a, it));
	assert_int_equal(action_attr(a, TESSEL_ACTION_KIND), TESSEL_ACTION_RECV);
	assert_int_equal(action_attr(a, TESSEL_ACTION_PEER), 0);
	TH_OK(tessel_action_iter_next(&a, it));
	assert_int_equal(action_attr(a, TESSEL_ACTION_KIND),
			 TESSEL_ACTION_COMPUTE);
	TH_OK(tessel_action_iter_next(&a, it));
	assert_int_equal(action_attr(a, TESSEL_ACTION_KIND), TESSEL_ACTION_RECV);
	assert_int_equal(action_attr(a, TESSEL_ACTION_MICRO_BATCH), 1);
	tessel_action_iter_free(it);

	/* escaped names */
	char *json = NULL;
	TH_OK(tessel_schedule_to_actions_json(&json, s));
	assert_non_null(strstr(json, "\"block\": \"a\\\"q\""));
	assert_non_null(strstr(json, "\"peer_block\": \"m\\\\b\""));
	assert_non_null(strstr(json, "\"block\": \"z\\u0001\""));
	assert_null(strchr(json, '\x01'));
	tessel_free(json);
	tessel_schedule_free(s);
}

/* Sends and receives carry their dependency's latency: the output sent at
 * a's finish arrives latency steps later, no later than the receive. */
static void test_latency(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	const int d0 = 0, d1 = 1, both[2] = {0, 1};
	TH_OK(tessel_graph_new(&g, 2));
	TH_OK(tessel_graph_add_block(NULL, g, "a", TESSEL_KIND_FORWARD, 2, 0));
	TH_OK(tessel_graph_place(g, 0, &d0, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "b", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 1, &d1, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "c", TESSEL_KIND_BACKWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 2, both, 2));
	TH_OK(tessel_graph_add_block(NULL, g, "e", TESSEL_KIND_BACKWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 3, &d1, 1));
	TH_OK(tessel_graph_add_dep_latency(g, 0, 1, 3)); /* a -> b: own 3 */
	TH_OK(tessel_graph_add_dep(g, 1, 2));            /* b -> c: graph's 2 */
	TH_OK(tessel_graph_add_dep(g, 2, 3));            /* c -> e: no transfer */
	TH_OK(tessel_graph_set_latency(g, 2));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 1));
	tessel_graph_free(g);
	/* a 0..2, b at 5 (2 + 3), c at 8 (6 + 2), e at 9 */
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 5));
	TH_OK(tessel_schedule_set_step(s, 2, 0, 8));
	TH_OK(tessel_schedule_set_step(s, 3, 0, 9));
	TH_OK(tessel_schedule_validate(s));
	check_streams(s);

	/* device 0: a, send a -> b (latency 3), recv b -> c (latency 2), c */
	static const int64_t want0[][7] = {
		/* kind, gid, mid, peer, peer_gid, step, latency */
		{TESSEL_ACTION_COMPUTE, 0, 0, -1, -1, 0, 0},
		{TESSEL_ACTION_SEND, 0, 0, 1, 1, 2, 3},
		{TESSEL_ACTION_RECV, 2, 0, 1, 1, 8, 2},
		{TESSEL_ACTION_COMPUTE, 2, 0, -1, -1, 8, 0},
	};
	/* device 1: recv a -> b, b, c (no receive: b is on 1), e */
	static const int64_t want1[][7] = {
		{TESSEL_ACTION_RECV, 1, 0, 0, 0, 5, 3},
		{TESSEL_ACTION_COMPUTE, 1, 0, -1, -1, 5, 0},
		{TESSEL_ACTION_SEND, 1, 0, 0, 2, 6, 2},
		{TESSEL_ACTION_COMPUTE, 2, 0, -1, -1, 8, 0},
		{TESSEL_ACTION_COMPUTE, 3, 0, -1, -1, 9, 0},
	};
	const int64_t (*want[2])[7] = {want0, want1};
	const size_t nwant[2] = {4, 5};
	for (int d = 0; d < 2; d++) {
		tessel_action_iter *it = NULL;
		const tessel_action *a;
		TH_OK(tessel_action_iter_new(&it, s, d));
		for (size_t i = 0; i < nwant[d]; i++) {
			TH_OK(tessel_action_iter_next(&a, it));
			for (int k = 0; k < 7; k++)
				assert_int_equal(action_attr(a, (tessel_action_attr)k),
						 want[d][i][k]);
		}
		assert_int_equal(tessel_action_iter_next(&a, it), TESSEL_ITEROVER);
		tessel_action_iter_free(it);
	}

	char *json = NULL;
	TH_OK(tessel_schedule_to_actions_json(&json, s));
	assert_non_null(strstr(json,
		"{\"op\": \"send\", \"block\": \"a\", \"gid\": 0, \"mid\": 0, \"step\": 2, "
		"\"peer\": 1, \"peer_block\": \"b\", \"peer_gid\": 1, \"latency\": 3}"));
	assert_non_null(strstr(json,
		"{\"op\": \"recv\", \"block\": \"c\", \"gid\": 2, \"mid\": 0, \"step\": 8, "
		"\"peer\": 1, \"peer_block\": \"b\", \"peer_gid\": 1, \"latency\": 2}"));
	assert_int_equal(th_count(json, "\"latency\""), 4);
	tessel_free(json);
	tessel_schedule_free(s);
}

/* Recompute and offload: f0 (device 0) -> f1 (device 1) -> b1 (device 1)
 * -> b0 (device 0), two micro-batches; micro-batch 0 recomputes f1 in b1
 * (6 steps instead of 4), both offload f0 (offloads at 2 and 4, reloads at
 * 10 and 14). The copies stand in device 0's stream in time order, the
 * send of the longer b1 at its real finish. */
static void test_alternatives(void **state)
{
	(void)state;
	tessel_schedule *s = th_alt_schedule(1, 1, 0);
	check_streams(s);

	enum { C = TESSEL_ACTION_COMPUTE, S = TESSEL_ACTION_SEND,
	       R = TESSEL_ACTION_RECV, O = TESSEL_ACTION_OFFLOAD,
	       L = TESSEL_ACTION_RELOAD };
	static const int64_t want0[][7] = {
		/* kind, gid, mid, peer, peer_gid, step, latency */
		{C, 0, 0, -1, -1, 0, 0},
		{S, 0, 0, 1, 1, 2, 0},
		{O, 0, 0, -1, -1, 2, 0},  /* before the compute of its step */
		{C, 0, 1, -1, -1, 2, 0},
		{S, 0, 1, 1, 1, 4, 0},
		{O, 0, 1, -1, -1, 4, 0},
		{L, 0, 0, -1, -1, 10, 0},
		{R, 3, 0, 1, 2, 12, 0},
		{C, 3, 0, -1, -1, 12, 0},
		{L, 0, 1, -1, -1, 14, 0},
		{R, 3, 1, 1, 2, 16, 0},
		{C, 3, 1, -1, -1, 16, 0},
	};
	static const int64_t want1[][7] = {
		{R, 1, 0, 0, 0, 2, 0},
		{C, 1, 0, -1, -1, 2, 0},
		{R, 1, 1, 0, 0, 4, 0},
		{C, 1, 1, -1, -1, 4, 0},
		{C, 2, 0, -1, -1, 6, 0},
		{S, 2, 0, 0, 3, 12, 0},   /* b1 mb0 runs 6 steps */
		{C, 2, 1, -1, -1, 12, 0},
		{S, 2, 1, 0, 3, 16, 0},
	};
	const int64_t (*want[2])[7] = {want0, want1};
	const size_t nwant[2] = {12, 8};
	for (int d = 0; d < 2; d++) {
		tessel_action_iter *it = NULL;
		const tessel_action *a;
		TH_OK(tessel_action_iter_new(&it, s, d));
		for (size_t i = 0; i < nwant[d]; i++) {
			TH_OK(tessel_action_iter_next(&a, it));
			for (int k = 0; k < 7; k++)
				assert_int_equal(action_attr(a, (tessel_action_attr)k),
						 want[d][i][k]);
		}
		assert_int_equal(tessel_action_iter_next(&a, it), TESSEL_ITEROVER);
		tessel_action_iter_free(it);
	}

	char *json = NULL;
	TH_OK(tessel_schedule_to_actions_json(&json, s));
	assert_non_null(strstr(json,
		"{\"op\": \"offload\", \"block\": \"f0\", \"gid\": 0, \"mid\": 0, "
		"\"step\": 2, \"transfer\": 2, \"saves\": 4, \"backward\": \"b0\", "
		"\"backward_gid\": 3}"));
	assert_non_null(strstr(json,
		"{\"op\": \"reload\", \"block\": \"f0\", \"gid\": 0, \"mid\": 1, "
		"\"step\": 14, \"transfer\": 2, "));
	assert_non_null(strstr(json,
		"{\"op\": \"compute\", \"block\": \"b1\", \"gid\": 2, \"mid\": 0, "
		"\"step\": 6, \"recompute\": true, \"extra\": 2}"));
	assert_non_null(strstr(json,
		"{\"op\": \"compute\", \"block\": \"b1\", \"gid\": 2, \"mid\": 1, "
		"\"step\": 12}"));
	assert_int_equal(th_count(json, "\"recompute\""), 1);
	assert_int_equal(th_count(json, "\"op\": \"offload\""), 2);
	assert_int_equal(th_count(json, "\"op\": \"reload\""), 2);
	tessel_free(json);
	tessel_schedule_free(s);
}

static void test_bad_args(void **state)
{
	(void)state;
	tessel_schedule *s = hand_schedule(1);
	tessel_action_iter *it = (tessel_action_iter *)&it;
	th_expect_error(tessel_action_iter_new(NULL, s, 0), TESSEL_EINVAL,
		     "out is NULL");
	th_expect_error(tessel_action_iter_new(&it, NULL, 0), TESSEL_EINVAL,
		     "schedule is NULL");
	assert_null(it);
	th_expect_error(tessel_action_iter_new(&it, s, 3), TESSEL_ENOTFOUND,
		     "device 3");
	th_expect_error(tessel_action_iter_new(&it, s, -1), TESSEL_ENOTFOUND,
		     "device -1");
	assert_null(it);

	const tessel_action *a = NULL;
	th_expect_error(tessel_action_iter_next(&a, NULL), TESSEL_EINVAL,
		     "iter is NULL");
	TH_OK(tessel_action_iter_new(&it, s, 0));
	th_expect_error(tessel_action_iter_next(NULL, it), TESSEL_EINVAL,
		     "out is NULL");
	TH_OK(tessel_action_iter_next(&a, it));
	int64_t v = 0;
	th_expect_error(tessel_action_get(NULL, a, TESSEL_ACTION_KIND),
		     TESSEL_EINVAL, "out is NULL");
	th_expect_error(tessel_action_get(&v, NULL, TESSEL_ACTION_KIND),
		     TESSEL_EINVAL, "action is NULL");
	th_expect_error(tessel_action_get(&v, a, (tessel_action_attr)99),
		     TESSEL_EINVAL, "unknown attribute 99");
	tessel_action_iter_free(it);
	tessel_action_iter_free(NULL);

	char *json = (char *)&json;
	th_expect_error(tessel_schedule_to_actions_json(NULL, s), TESSEL_EINVAL,
		     "out is NULL");
	th_expect_error(tessel_schedule_to_actions_json(&json, NULL),
		     TESSEL_EINVAL, "schedule is NULL");
	assert_null(json);
	tessel_schedule_free(s);

	/* an unplaced entry */
	s = hand_schedule(0);
	it = (tessel_action_iter *)&it;
	th_expect_error(tessel_action_iter_new(&it, s, 1), TESSEL_EINVAL,
		     "not placed");
	assert_null(it);
	json = (char *)&json;
	th_expect_error(tessel_schedule_to_actions_json(&json, s), TESSEL_EINVAL,
		     "not placed");
	assert_null(json);
	tessel_schedule_free(s);
}

/* Memory waits: on device 0 (limit 4) f0 mb1 needs the memory the
 * offload of mb0 frees at 4, so a WAIT for that offload stands before it;
 * the reload of mb1 at 10 comes after b0 mb0, which starts at 10 and frees
 * what it takes. Device 1 (no limit) has no WAIT. */
static void test_memory_waits(void **state)
{
	(void)state;
	tessel_schedule *s = th_wait_schedule();
	check_streams(s);
	enum { C = TESSEL_ACTION_COMPUTE, S = TESSEL_ACTION_SEND,
	       R = TESSEL_ACTION_RECV, O = TESSEL_ACTION_OFFLOAD,
	       L = TESSEL_ACTION_RELOAD, W = TESSEL_ACTION_WAIT };
	static const int64_t want0[][7] = {
		/* kind, gid, mid, peer, peer_gid, step, latency */
		{C, 0, 0, -1, -1, 0, 0},
		{S, 0, 0, 1, 1, 2, 0},
		{O, 0, 0, -1, -1, 2, 0},
		{W, 0, 0, -1, -1, 4, 0},  /* the offload's end */
		{C, 0, 1, -1, -1, 4, 0},
		{S, 0, 1, 1, 1, 6, 0},
		{O, 0, 1, -1, -1, 6, 0},
		{L, 0, 0, -1, -1, 8, 0},
		{R, 3, 0, 1, 2, 10, 0},
		{C, 3, 0, -1, -1, 10, 0},
		{L, 0, 1, -1, -1, 10, 0}, /* after the compute of its step */
		{R, 3, 1, 1, 2, 14, 0},
		{C, 3, 1, -1, -1, 14, 0},
	};
	tessel_action_iter *it = NULL;
	const tessel_action *a;
	TH_OK(tessel_action_iter_new(&it, s, 0));
	for (size_t i = 0; i < sizeof want0 / sizeof want0[0]; i++) {
		TH_OK(tessel_action_iter_next(&a, it));
		for (int k = 0; k < 7; k++)
			assert_int_equal(action_attr(a, (tessel_action_attr)k),
					 want0[i][k]);
	}
	assert_int_equal(tessel_action_iter_next(&a, it), TESSEL_ITEROVER);
	tessel_action_iter_free(it);
	TH_OK(tessel_action_iter_new(&it, s, 1));
	while (tessel_action_iter_next(&a, it) == TESSEL_OK)
		assert_int_not_equal(action_attr(a, TESSEL_ACTION_KIND), W);
	tessel_action_iter_free(it);
	char *json = NULL;
	TH_OK(tessel_schedule_to_actions_json(&json, s));
	assert_non_null(strstr(json,
		"{\"op\": \"wait\", \"block\": \"f0\", \"gid\": 0, \"mid\": 0, "
		"\"step\": 4}"));
	tessel_free(json);
	tessel_schedule_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_made),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_alternatives),
		cmocka_unit_test(test_memory_waits),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_presets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
