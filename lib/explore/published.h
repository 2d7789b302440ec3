/* Published pipeline schedules, rebuilt from their papers and reference
 * code: for each family, its placement and the order in which every device
 * runs its (block, micro-batch) pairs.
 *
 * SPDX-License-Identifier: MIT
 *
 * Built only on the public API (tessel.h), so that the command line
 * (tessel bench --suite published) and the tests share it.
 *
 * Conventions (doc/guide.md, "The published suite"):
 * - A placement is a chain of stages, each on one device: the forward
 *   blocks f<s> in stage order, then the backward blocks b<s> in reverse
 *   order; with a split backward, the weight-gradient block w<s> of a stage
 *   after b<s>. Every block carries its stage number.
 * - Memory deltas, per block (one chunk's activations are the unit):
 *   forward +1; backward -1 without a split; with a split, backward 0 and
 *   weight -1.
 * - Bidirectional families (DualPipe, Chimera) hold two chains, one per
 *   direction (the second's blocks are named rf<s>, rb<s>, rw<s> and have
 *   stage numbers D + s); one micro-batch of the placement is a pair, one
 *   model micro-batch in each direction, so N model micro-batches are N / 2
 *   micro-batches of the placement.
 * - The published schedule is the published order executed as early as
 *   possible: each entry starts when its device has finished the entry
 *   before it and its dependencies in the same micro-batch have finished
 *   (plus their latency when the devices differ).
 */
#ifndef TESSEL_PUBLISHED_H
#define TESSEL_PUBLISHED_H

#include <stddef.h>
#include <stdint.h>

#include "tessel.h"

typedef enum pub_family {
	PUB_GPIPE = 0,       /* GPipe: all forwards, then all backwards */
	PUB_1F1B,            /* 1F1B, PipeDream-flush */
	PUB_ZB_H1,           /* zero bubble, 1F1B's memory (split backward) */
	PUB_ZB_H2,           /* zero bubble, more micro-batches in flight */
	PUB_ZB_V,            /* V-shape zero bubble, two chunks per device */
	PUB_V_HALF,          /* V-shape, half of 1F1B's activation memory */
	PUB_V_MIN,           /* V-shape, a third of 1F1B's activation memory */
	PUB_DUALPIPE,        /* DualPipe: bidirectional, split backward */
	PUB_DUALPIPE_V,      /* DualPipeV: DualPipe cut in half, a V */
	PUB_INTERLEAVED,     /* interleaved 1F1B, `chunks` chunks per device */
	PUB_CHIMERA,         /* Chimera: two pipelines in opposite directions */
	PUB_NFAMILIES
} pub_family;

typedef struct pub_params {
	int devices;        /* D */
	int64_t micros;     /* N: micro-batches of the model */
	int f, b, w;        /* spans of a forward, backward and weight block;
			     * w is ignored by the families without a split */
	int chunks;         /* interleaved 1F1B: chunks per device (>= 2) */
	int latency;        /* latency of every dependency, in steps */
	/* NULL, or asked once the placement is built, before the order is
	 * (which can cost far more: the V greedy orders grow with D^2 N):
	 * 0 ends the build with TESSEL_EINVAL, the order not made (a caller
	 * that wants the order only for a placement like its own) */
	int (*wanted)(const tessel_graph *placement, const void *arg);
	const void *wanted_arg;
} pub_params;

/* One entry of a device's order: block `gid` of micro-batch `micro` (of
 * the placement). */
typedef struct pub_step {
	int gid;
	int64_t micro;
} pub_step;

/* A family's placement and its published per-device order. */
typedef struct pub_order {
	tessel_graph *graph;   /* the placement, without memory limits */
	int64_t nmicros;       /* micro-batches of the placement */
	int ndevices;
	size_t *len;           /* len[d]: entries of device d */
	pub_step **steps;      /* steps[d][0 .. len[d]-1]: device d's order */
	size_t *cap;           /* (capacity of each steps[d]) */
} pub_order;

/* Short name of a family ("1f1b", "zb-h1", "v-half", "dualpipe-v", ...):
 * static, NULL for an unknown family. */
const char *pub_family_name(pub_family family);

/* The family called `name`; -1 when there is none. */
int pub_family_find(pub_family *out, const char *name);

/* 1 when the family splits the backward into backward and weight blocks. */
int pub_family_splits(pub_family family);

/* 1 when a micro-batch of the family's placement is a pair of model
 * micro-batches (one in each direction). */
int pub_family_pairs(pub_family family);

/* Build the placement and the published order of `family` for `params`.
 * Returns TESSEL_OK, TESSEL_EINVAL when the family does not accept those
 * parameters (the reason in `why`, e.g. DualPipe needs an even D and N a
 * multiple of 2 with N >= 2D), or another error code of the graph API.
 * *out: new, release with pub_order_free. */
int pub_order_build(pub_order **out, pub_family family,
		    const pub_params *params, char *why, size_t whylen);

/* Release an order. NULL is a no-op. */
void pub_order_free(pub_order *order);

/* An empty order of `ndevices` devices and `nmicros` micro-batches with a
 * new empty graph of that many devices, for a generator of its own (the
 * peer's orders, tools/zb_peer.c). *out: new, release with pub_order_free. */
int pub_order_new(pub_order **out, int ndevices, int64_t nmicros);

/* Append block `gid` of micro-batch `micro` to device d's order. */
int pub_order_push(pub_order *order, int d, int gid, int64_t micro);

/* Execute the order as early as possible on its own graph, memory limits
 * included, and check it as pub_order_schedule does: TESSEL_EINVAL (the
 * reason in `why`) for an order that cannot run, the validator's error
 * when the result breaks a rule (e.g. a memory limit). *out: new, release
 * with tessel_schedule_free. */
int pub_order_replay(tessel_schedule **out, const pub_order *order, char *why,
		     size_t whylen);

/* Execute the order as early as possible and check it: every (block,
 * micro-batch) once, each on its block's device, and no device waiting
 * for an entry that comes after it (else TESSEL_EINVAL naming the entry:
 * the generator is wrong). The schedule is built on a copy of the graph
 * whose memory limit, the same on every device, is the highest peak the
 * schedule reaches on a device (*out_limit, may be NULL), and it must pass
 * tessel_schedule_validate (else its error). *out: new, release with
 * tessel_schedule_free; its graph (tessel_schedule_graph) carries the
 * limit. */
int pub_order_schedule(tessel_schedule **out, int64_t *out_limit,
		       const pub_order *order, char *why, size_t whylen);

#endif /* TESSEL_PUBLISHED_H */
