/* The checks shared by the libFuzzer targets (fuzz/fuzz_*.c) and the
 * plain regression driver (tests/test-fuzz-inputs.c). Public API only.
 *
 * Each check returns 0 when the input behaved (including "rejected with an
 * error code"), or 1 after printing what went wrong: a real finding. The
 * fuzz targets turn 1 into __builtin_trap(); the driver into a test failure.
 */
#ifndef TESSEL_FUZZ_CHECKS_H
#define TESSEL_FUZZ_CHECKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tessel.h"

/* Each includer uses only some of the checks. */
#define FUZZ_MAYBE_UNUSED __attribute__((unused))

FUZZ_MAYBE_UNUSED static int fuzz_fail(const char *check, const char *what, int rc)
{
	fprintf(stderr, "fuzz check %s: %s (rc %d %s: %s)\n", check, what, rc,
		tessel_strerror(rc), tessel_error_last());
	return 1;
}

/* Placement JSON: parse; on success serialise, parse the text again and
 * serialise again: both texts must be identical. */
FUZZ_MAYBE_UNUSED static int fuzz_check_placement(const uint8_t *data, size_t size)
{
	tessel_graph *g = NULL, *g2 = NULL;
	char *j1 = NULL, *j2 = NULL;
	int bad = 0, rc;

	if (tessel_graph_from_json(&g, (const char *)data, size) != TESSEL_OK)
		return 0;
	if ((rc = tessel_graph_to_json(&j1, g)) != TESSEL_OK)
		bad = fuzz_fail("placement", "to_json of a parsed graph failed", rc);
	else if ((rc = tessel_graph_from_json(&g2, j1, strlen(j1))) != TESSEL_OK)
		bad = fuzz_fail("placement", "own to_json output does not parse", rc);
	else if ((rc = tessel_graph_to_json(&j2, g2)) != TESSEL_OK)
		bad = fuzz_fail("placement", "to_json of the reparsed graph failed", rc);
	else if (strcmp(j1, j2) != 0)
		bad = fuzz_fail("placement", "JSON differs after a round trip", 0);
	tessel_free(j1);
	tessel_free(j2);
	tessel_graph_free(g);
	tessel_graph_free(g2);
	return bad;
}

/* Schedule JSON: parse; on success validate (any verdict), serialise,
 * parse again, serialise again: both texts must be byte-identical. */
FUZZ_MAYBE_UNUSED static int fuzz_check_schedule(const uint8_t *data, size_t size)
{
	tessel_schedule *s = NULL, *s2 = NULL;
	char *j1 = NULL, *j2 = NULL;
	int bad = 0, rc;

	if (tessel_schedule_from_json(&s, (const char *)data, size) != TESSEL_OK)
		return 0;
	(void)tessel_schedule_validate(s);
	if ((rc = tessel_schedule_to_json(&j1, s)) != TESSEL_OK)
		bad = fuzz_fail("schedule", "to_json of a parsed schedule failed", rc);
	else if ((rc = tessel_schedule_from_json(&s2, j1, strlen(j1))) != TESSEL_OK)
		bad = fuzz_fail("schedule", "own to_json output does not parse", rc);
	else if ((rc = tessel_schedule_to_json(&j2, s2)) != TESSEL_OK)
		bad = fuzz_fail("schedule", "to_json of the reparsed schedule failed", rc);
	else if (strcmp(j1, j2) != 0)
		bad = fuzz_fail("schedule", "JSON differs after a round trip", 0);
	tessel_free(j1);
	tessel_free(j2);
	tessel_schedule_free(s);
	tessel_schedule_free(s2);
	return bad;
}

/* Graph API program. Byte 0: devices (1..6). Then opcodes, each followed
 * by its operand bytes (missing bytes read as 0):
 *   0 add_block  kind span memory   name "b<n>", or a repeat of an earlier
 *                                   name when the kind byte's high bit is set
 *   1 place      gid count dev...   (ids may be out of range on purpose)
 *   2 add_dep    before after
 *   3 set_memory_limit device limit (device 0 = all; limit 255 = unlimited)
 *   4 set_stage  gid stage
 *   5 validate
 *   6 lower_bound nmicros
 *   7 graph_get / block_get / dup
 *   8 set_recompute gid backward saves extra   (backward 0 = removal)
 *   9 set_offload   gid backward saves transfer
 * At the end, a graph that validates with <= 12 blocks and <= 4 devices is
 * searched (TESSEL_OPT_FAST, 1..4 micro-batches from the last byte); a
 * schedule the search returns must pass tessel_schedule_validate. */
#define FUZZ_GRAPH_MAX_OPS 64

struct fuzz_reader {
	const uint8_t *p;
	size_t n, i;
};

FUZZ_MAYBE_UNUSED static unsigned fuzz_byte(struct fuzz_reader *r)
{
	return r->i < r->n ? r->p[r->i++] : 0;
}

FUZZ_MAYBE_UNUSED static int fuzz_check_graph(const uint8_t *data, size_t size)
{
	struct fuzz_reader r = {data, size, 0};
	tessel_graph *g = NULL;
	int bad = 0, rc, nblocks = 0;

	if (size == 0)
		return 0;
	int ndev = 1 + (int)(fuzz_byte(&r) % 6);
	if ((rc = tessel_graph_new(&g, ndev)) != TESSEL_OK)
		return fuzz_fail("graph", "tessel_graph_new failed", rc);

	for (int op = 0; op < FUZZ_GRAPH_MAX_OPS && r.i < r.n; op++) {
		unsigned code = fuzz_byte(&r) % 10;
		int64_t v;
		switch (code) {
		case 0: {
			unsigned k = fuzz_byte(&r);
			int span = 1 + (int)(fuzz_byte(&r) % 4);
			int mem = (int)(signed char)fuzz_byte(&r) / 32;
			char name[32];
			int gid = -1;
			if ((k & 0x80) && nblocks > 0)
				snprintf(name, sizeof name, "b%d", (int)(k % (unsigned)nblocks));
			else
				snprintf(name, sizeof name, "b%d", nblocks);
			rc = tessel_graph_add_block(&gid, g, name, (tessel_kind)(k % 3), span,
						    mem);
			if (rc == TESSEL_OK) {
				if (gid != nblocks)
					bad |= fuzz_fail("graph", "unexpected block id", rc);
				nblocks++;
			}
			break;
		}
		case 1: {
			int gid = (int)(fuzz_byte(&r) % (unsigned)(nblocks + 1));
			size_t count = 1 + fuzz_byte(&r) % 3;
			int devs[3];
			for (size_t i = 0; i < count; i++)
				devs[i] = (int)(fuzz_byte(&r) % (unsigned)(ndev + 1));
			(void)tessel_graph_place(g, gid, devs, count);
			break;
		}
		case 2: {
			int before = (int)(fuzz_byte(&r) % (unsigned)(nblocks + 1));
			int after = (int)(fuzz_byte(&r) % (unsigned)(nblocks + 1));
			(void)tessel_graph_add_dep(g, before, after);
			break;
		}
		case 3: {
			int dev = (int)(fuzz_byte(&r) % (unsigned)(ndev + 2)) - 1;
			unsigned l = fuzz_byte(&r);
			int64_t limit = l == 255 ? TESSEL_UNLIMITED : (int64_t)(l % 16);
			(void)tessel_graph_set_memory_limit(g, dev, limit);
			break;
		}
		case 4: {
			int gid = (int)(fuzz_byte(&r) % (unsigned)(nblocks + 1));
			int stage = (int)(fuzz_byte(&r) % 8) - 1;
			(void)tessel_graph_set_stage(g, gid, stage);
			break;
		}
		case 5:
			(void)tessel_graph_validate(g);
			break;
		case 6:
			(void)tessel_graph_lower_bound(&v, g, 1 + (int64_t)(fuzz_byte(&r) % 16));
			break;
		case 7: {
			tessel_graph *d = NULL;
			(void)tessel_graph_get(&v, g, (tessel_graph_attr)(fuzz_byte(&r) % 4));
			int gid = (int)(fuzz_byte(&r) % (unsigned)(nblocks + 1));
			(void)tessel_graph_block_get(&v, g, gid,
						     (tessel_block_attr)(fuzz_byte(&r) % 6));
			if (tessel_graph_dup(&d, g) == TESSEL_OK)
				tessel_graph_free(d);
			break;
		}
		case 8:
		case 9: {
			/* a recompute (8) or an offload (9), or its removal */
			int gid = (int)(fuzz_byte(&r) % (unsigned)(nblocks + 1));
			int back = (int)(fuzz_byte(&r) % (unsigned)(nblocks + 2)) - 1;
			int saves = (int)(fuzz_byte(&r) % 4);
			int cost = (int)(fuzz_byte(&r) % 4);
			if (code == 8)
				(void)tessel_graph_set_recompute(g, gid, back, saves, cost);
			else
				(void)tessel_graph_set_offload(g, gid, back, saves, cost);
			break;
		}
		}
	}

	if (nblocks <= 12 && ndev <= 4 && tessel_graph_validate(g) == TESSEL_OK) {
		tessel_options *o = NULL;
		tessel_schedule *s = NULL;
		int64_t lb = 0;
		int64_t n = 1 + (int64_t)(size > 1 ? data[size - 1] % 4 : 0);
		if ((rc = tessel_options_new(&o)) != TESSEL_OK)
			bad |= fuzz_fail("graph", "tessel_options_new failed", rc);
		else {
			(void)tessel_options_set(o, TESSEL_OPT_FAST, 1);
			(void)tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, n);
			(void)tessel_options_set(o, TESSEL_OPT_THREADS, 1);
			rc = tessel_search(&s, g, o);
			if (rc == TESSEL_OK) {
				int64_t ms = 0;
				if ((rc = tessel_schedule_validate(s)) != TESSEL_OK)
					bad |= fuzz_fail("graph", "searched schedule does not validate", rc);
				else if (tessel_graph_lower_bound(&lb, g, n) == TESSEL_OK &&
					 tessel_schedule_get(&ms, s, TESSEL_SCHED_MAKESPAN) == TESSEL_OK &&
					 ms < lb)
					bad |= fuzz_fail("graph", "makespan below the lower bound", 0);
			}
			tessel_schedule_free(s);
			tessel_options_free(o);
		}
	}
	tessel_graph_free(g);
	return bad;
}

/* The whole search on a small placement read from the bytes:
 *   byte 0: devices (1..8); byte 1: blocks (1..8); byte 2: graph latency
 *   (0..63 steps, 0 for half the inputs); byte 3: micro-batches (1..8);
 *   byte 4: options: bit 0 heuristic mode, bits 1-2 the largest k of a
 *   repetend (1..4), bit 3 inference (forward blocks only), bits 4-7 the
 *   work budget (1..16 units x 8); byte 5: memory limit (bit 7 clear:
 *   unlimited; else 0..15 on every device, then per device for bit 6);
 *   then per block: kind, span (1..16), memory (-3..3), devices (1..4 of
 *   them, from a start and a stride), and its dependencies: each block
 *   may wait for any block earlier in a random topological order that is
 *   not the listed order (so a block often waits for one listed after
 *   it), with an own latency for some.
 * The search runs with that work budget and one thread; it must return a
 * schedule that passes tessel_schedule_validate, whose makespan is at
 * least LB(N), and whose JSON round trip gives the same text, or one of
 * the documented errors (EINFEASIBLE, ETIMEOUT, EINVAL, ERANGE,
 * EUNSUPPORTED): never TESSEL_ERROR, ESOLVER or EVIOLATION. */
/* Searches of fuzz_check_search that returned a schedule, and that ran
 * (the rest: refused placements): for a driver's report. */
FUZZ_MAYBE_UNUSED static long fuzz_search_found, fuzz_search_ran;

FUZZ_MAYBE_UNUSED static int fuzz_check_search(const uint8_t *data, size_t size)
{
	struct fuzz_reader r = {data, size, 0};
	tessel_graph *g = NULL;
	tessel_options *o = NULL;
	tessel_schedule *s = NULL;
	int bad = 0, rc;

	if (size < 6)
		return 0;
	int ndev = 1 + (int)(fuzz_byte(&r) % 8);
	int nb = 1 + (int)(fuzz_byte(&r) % 8);
	unsigned lat = fuzz_byte(&r);
	int64_t n = 1 + (int64_t)(fuzz_byte(&r) % 8);
	unsigned opt = fuzz_byte(&r);
	unsigned mem = fuzz_byte(&r);
	int infer = (opt >> 3) & 1;
	if ((rc = tessel_graph_new(&g, ndev)) != TESSEL_OK)
		return fuzz_fail("search", "tessel_graph_new failed", rc);
	if (lat & 1)
		(void)tessel_graph_set_latency(g, (int)((lat >> 1) % 64));
	/* a topological order: topo[i] is the listed block at rank i */
	int topo[8], rank[8];
	for (int i = 0; i < nb; i++)
		topo[i] = i;
	for (int i = nb - 1; i > 0; i--) {
		int j = (int)(fuzz_byte(&r) % (unsigned)(i + 1));
		int t = topo[i];
		topo[i] = topo[j];
		topo[j] = t;
	}
	for (int i = 0; i < nb; i++)
		rank[topo[i]] = i;
	for (int b = 0; b < nb && !bad; b++) {
		unsigned kind = infer ? 0 : fuzz_byte(&r) % 3;
		int span = 1 + (int)(fuzz_byte(&r) % 16);
		int memory = infer ? 0 : (int)(fuzz_byte(&r) % 7) - 3;
		unsigned dv = fuzz_byte(&r);
		int count = 1 + (int)(dv % 4), first = (int)((dv >> 2) % (unsigned)ndev);
		int stride = 1 + (int)((dv >> 5) % 3), devs[4], nd = 0;
		for (int i = 0; i < count && i < ndev; i++) {
			int d = (first + i * stride) % ndev, dup = 0;
			for (int j = 0; j < nd; j++)
				dup |= devs[j] == d;
			if (!dup)
				devs[nd++] = d;
		}
		char name[16];
		snprintf(name, sizeof name, "b%d", b);
		int gid = -1;
		if ((rc = tessel_graph_add_block(&gid, g, name, (tessel_kind)kind, span,
						 memory)) != TESSEL_OK ||
		    (rc = tessel_graph_place(g, gid, devs, (size_t)nd)) != TESSEL_OK)
			bad |= fuzz_fail("search", "a valid block was refused", rc);
	}
	for (int b = 0; b < nb && !bad; b++) {
		unsigned mask = fuzz_byte(&r), own = fuzz_byte(&r);
		for (int a = 0; a < nb; a++) {
			if (rank[a] >= rank[b] || !((mask >> (a % 8)) & 1))
				continue;
			if ((own & 3) == 3)
				rc = tessel_graph_add_dep_latency(g, a, b, (int)((own >> 2) % 40));
			else
				rc = tessel_graph_add_dep(g, a, b);
			if (rc != TESSEL_OK && rc != TESSEL_EEXISTS)
				bad |= fuzz_fail("search", "an acyclic dependency was refused", rc);
		}
	}
	if (mem & 0x80) {
		if (mem & 0x40)
			for (int d = 0; d < ndev; d++)
				(void)tessel_graph_set_memory_limit(g, d,
								    (int64_t)(fuzz_byte(&r) % 16));
		else
			(void)tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES,
							    (int64_t)(mem % 16));
	}
	if (!bad && tessel_graph_validate(g) == TESSEL_OK) {
		if ((rc = tessel_options_new(&o)) != TESSEL_OK)
			bad |= fuzz_fail("search", "tessel_options_new failed", rc);
	}
	if (o) {
		(void)tessel_options_set(o, TESSEL_OPT_FAST, opt & 1);
		(void)tessel_options_set(o, TESSEL_OPT_REPETEND_MICRO_BATCHES,
					 1 + (int64_t)((opt >> 1) % 4));
		(void)tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, n);
		(void)tessel_options_set(o, TESSEL_OPT_THREADS, 1);
		(void)tessel_options_set(o, TESSEL_OPT_WORK_LIMIT,
					 8 * (1 + (int64_t)(opt >> 4)));
		rc = tessel_search(&s, g, o);
		fuzz_search_ran++;
		if (rc == TESSEL_OK) {
			int64_t ms = 0, lb = 0;
			fuzz_search_found++;
			char *j1 = NULL, *j2 = NULL;
			tessel_schedule *s2 = NULL;
			if ((rc = tessel_schedule_validate(s)) != TESSEL_OK)
				bad |= fuzz_fail("search", "the schedule found does not validate", rc);
			else if (tessel_graph_lower_bound(&lb, g, n) == TESSEL_OK &&
				 tessel_schedule_get(&ms, s, TESSEL_SCHED_MAKESPAN) == TESSEL_OK &&
				 ms < lb)
				bad |= fuzz_fail("search", "makespan below the lower bound", 0);
			else if ((rc = tessel_schedule_to_json(&j1, s)) != TESSEL_OK ||
				 (rc = tessel_schedule_from_json(&s2, j1, strlen(j1))) != TESSEL_OK ||
				 (rc = tessel_schedule_to_json(&j2, s2)) != TESSEL_OK)
				bad |= fuzz_fail("search", "the schedule's JSON does not round-trip", rc);
			else if (strcmp(j1, j2) != 0)
				bad |= fuzz_fail("search", "the schedule's JSON differs after a round trip", 0);
			tessel_free(j1);
			tessel_free(j2);
			tessel_schedule_free(s2);
		} else if (rc == TESSEL_ERROR || rc == TESSEL_ESOLVER ||
			   rc == TESSEL_EVIOLATION || rc == TESSEL_ECANCELLED ||
			   rc == TESSEL_ENOTFOUND || rc == TESSEL_ECYCLE) {
			bad |= fuzz_fail("search", "the search failed", rc);
		}
	}
	/* the smallest memory for any schedule: the search under it (as
	 * the only limit) finds one, within it */
	int64_t least = -1;
	if (o && !bad && tessel_graph_min_memory(&least, NULL, g, n) == TESSEL_OK) {
		tessel_schedule *t = NULL;
		(void)tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, least);
		if ((rc = tessel_search(&t, g, o)) != TESSEL_OK)
			bad |= fuzz_fail("search", "no schedule under tessel_graph_min_memory", rc);
		for (int d = 0; d < ndev && t && !bad; d++) {
			int64_t peak = 0;
			if (tessel_schedule_peak_memory(&peak, t, d) != TESSEL_OK || peak > least)
				bad |= fuzz_fail("search", "a peak above tessel_graph_min_memory", 0);
		}
		tessel_schedule_free(t);
	}
	/* the memory sweep from that limit up: a schedule under every
	 * limit, within it, makespans that never grow with the limit */
	if (o && !bad && least >= 0) {
		const int64_t limits[3] = {TESSEL_UNLIMITED, least + 1 + (int64_t)(mem % 4),
					   least};
		tessel_schedule *sw[3] = {NULL, NULL, NULL};
		/* (the smallest budget: three searches more per input) */
		(void)tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, 8);
		if ((rc = tessel_search_sweep(sw, g, limits, 3, o)) != TESSEL_OK)
			bad |= fuzz_fail("search", "the sweep found nothing above tessel_graph_min_memory", rc);
		int64_t prev = -1;
		for (int i = 0; i < 3 && !bad; i++) {
			int64_t ms = 0;
			if (!sw[i] || (rc = tessel_schedule_validate(sw[i])) != TESSEL_OK) {
				bad |= fuzz_fail("search", "a sweep's limit without a valid schedule", rc);
				break;
			}
			for (int d = 0; d < ndev && limits[i] != TESSEL_UNLIMITED && !bad; d++) {
				int64_t peak = 0;
				if (tessel_schedule_peak_memory(&peak, sw[i], d) != TESSEL_OK ||
				    peak > limits[i])
					bad |= fuzz_fail("search", "a sweep's peak above its limit", 0);
			}
			(void)tessel_schedule_get(&ms, sw[i], TESSEL_SCHED_MAKESPAN);
			if (prev >= 0 && ms < prev) /* (loosest first) */
				bad |= fuzz_fail("search", "a sweep's looser limit has the longer schedule", 0);
			prev = ms;
		}
		for (int i = 0; i < 3; i++)
			tessel_schedule_free(sw[i]);
	}
	tessel_schedule_free(s);
	tessel_options_free(o);
	tessel_graph_free(g);
	return bad;
}

#endif
