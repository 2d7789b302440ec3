/* The Zero Bubble authors' automatic pipeline scheduler (the peer), as
 * data: its per-device orders on a grid of realistic inputs
 * (tests/data/zb-peer.txt, whose header says how they were made), read,
 * turned into libtessel placements and replayed as early as possible
 * under libtessel's timing model, for tessel bench --suite zb and the
 * tests.
 *
 * SPDX-License-Identifier: MIT
 *
 * Built only on the public API (tessel.h) and lib/explore/published.h (the
 * order replay).
 *
 * A case's placement: per stage s (device stages[s]) the blocks f<s>,
 * b<s> and w<s> with the case's spans and memory deltas; f<s> after
 * f<s-1>, b<last> after f<last>, b<s> after b<s+1>, w<s> after b<s>; the
 * communication time as the latency of every dependency (it counts only
 * between devices, as the peer charges it); every device's limit the
 * peer's.
 */
#ifndef TESSEL_ZB_PEER_H
#define TESSEL_ZB_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "published.h"
#include "tessel.h"

/* One op of a device's order: kind 0 F, 1 B, 2 W of micro-batch mb of the
 * device's first stage (second 0) or second stage (second 1, V form). */
typedef struct zb_op {
	unsigned char kind, second;
	int mb;
} zb_op;

typedef struct zb_case {
	char name[64];
	char form;               /* 'h' one stage per device, 'v' two */
	int devices;
	int64_t micros;
	int uneven;
	int nstages;
	int *stage_device;       /* [nstages] */
	int *f, *b, *w;          /* [nstages] spans */
	int comm;
	int mem_f, mem_b, mem_w; /* memory deltas */
	int64_t limit;           /* every device's memory limit */
	int64_t peer_makespan;   /* the peer's own figure */
	double peer_seconds;
	size_t *len;             /* [devices] */
	zb_op **ops;             /* [devices][len[d]] */
} zb_case;

typedef struct zb_data {
	zb_case *cases;
	size_t ncases;
} zb_data;

/* Read the data file at `path`. TESSEL_OK, or an error code with the
 * reason (file, line) in `why`. *out: new, release with zb_data_free. */
int zb_data_read(zb_data **out, const char *path, char *why, size_t whylen);

void zb_data_free(zb_data *data);

/* The placement of a case (see above) and the peer's order on it.
 * *out: new, release with pub_order_free. */
int zb_case_order(pub_order **out, const zb_case *c, char *why, size_t whylen);

#endif /* TESSEL_ZB_PEER_H */
