/* Internal layout of a schedule and of its entries. */
#ifndef TESSEL_SCHEDULE_H
#define TESSEL_SCHEDULE_H

#include <stdint.h>

#include "budget.h"
#include "graph.h"
#include "util.h"

struct tessel_entry {
	const struct tessel_schedule *sched;
	int gid;
	int phase;      /* tessel_phase */
	int64_t mid;
	int64_t start;  /* -1: not placed */
};

struct tessel_schedule {
	tessel_graph *graph;     /* owned copy */
	int64_t nmicros;
	struct tessel_entry *entries; /* index mid * nblocks + gid */
	int64_t period;          /* 0: unknown */
	int64_t resource_bound;
	int period_optimal;
	int makespan_optimal;
	int64_t lower_bound;
	int64_t rep_begin, rep_end;
	int64_t depth;
	int64_t search_us;
	int64_t work;            /* work units the search spent */
	int64_t proof_work;      /* of them, on the period proof beside the budget */
	int64_t rep_k;           /* micro-batches per repetition (0, 1: one) */
	/* Blocks of each device, built with the schedule (the graph is an
	 * immutable copy): gids of device d are dev_list[dev_off[d] ..
	 * dev_off[d + 1]). Per-device queries cost that device's entries. */
	size_t *dev_off;
	int *dev_list;
};

/* Allocate an empty schedule (all entries unplaced) for a copy of g. */
int tsl_schedule_alloc(tessel_schedule **out, const tessel_graph *g,
		       int64_t nmicros);
/* The same, giving up with TESSEL_ETIMEOUT (nothing allocated) once the
 * hard end of dl passed (NULL: never). */
int tsl_schedule_alloc_until(tessel_schedule **out, const tessel_graph *g,
			     int64_t nmicros, const tsl_deadline *dl);

/* A new copy of s: its graph, entries and figures. */
int tsl_schedule_copy(tessel_schedule **out, const tessel_schedule *s);

static inline struct tessel_entry *tsl_entry_at(const tessel_schedule *s,
						int gid, int64_t mid)
{
	return &s->entries[mid * s->graph->nblocks + gid];
}

/* TESSEL_EINVAL "FN: block G ("NAME") of micro-batch M is not placed"
 * (without "FN: " when fn is NULL) for the first unplaced entry, in entry
 * order; TESSEL_OK when every entry is placed. The check of every reader
 * that needs a complete schedule (JSON, simulation, exports). */
int tsl_schedule_check_placed(const tessel_schedule *s, const char *fn);

/* Makespan: max start + span over placed entries (0 if none). */
int64_t tsl_schedule_makespan(const tessel_schedule *s);

/* Peak memory of every device (ndevices values) from the placed entries. */
int tsl_schedule_peaks(int64_t *peaks, const tessel_schedule *s);

#endif
