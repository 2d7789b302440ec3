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
	signed char phase;  /* tessel_phase */
	signed char choice; /* tessel_choice of this instance's activation */
	int64_t mid;
	int64_t start;  /* -1: not placed */
	int span_add;   /* steps added to the block's span by the recomputes
			 * of this micro-batch's forwards (schedule_alt.c) */
	int mem_add;    /* added to the block's memory delta at its start: a
			 * recomputing forward -saves, its backward +saves */
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
	/* Copy steps of offloaded instances (schedule_alt.c): NULL until the
	 * first offload; else 2 per entry (offload start, reload start), -1
	 * when not offloaded. */
	int64_t *copies;
	int64_t nchoices; /* entries whose choice is not keep */
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

/* The same on a copy of g instead of s's graph: g is s's graph but for
 * its memory limits (the caller's promise; only the counts of blocks and
 * devices are checked: TESSEL_EINVAL). The copy is not validated. */
int tsl_schedule_copy_onto(tessel_schedule **out, const tessel_schedule *s,
			   const tessel_graph *g);

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

/* Steps entry e runs: its block's span plus the recomputes it does. */
static inline int64_t tsl_entry_span(const tessel_schedule *s,
				     const struct tessel_entry *e)
{
	return (int64_t)s->graph->blocks[e->gid].span + e->span_add;
}

/* Memory delta at the start of entry e, its choices applied. */
static inline int64_t tsl_entry_memory(const tessel_schedule *s,
				       const struct tessel_entry *e)
{
	return (int64_t)s->graph->blocks[e->gid].memory + e->mem_add;
}

/* Makespan: max start + span over placed entries and the end of every
 * copy (0 if none). */
int64_t tsl_schedule_makespan(const tessel_schedule *s);

/* Move every placed entry and copy (and the repetend's range) earlier
 * by the first start, so that the schedule starts at step 0, as the
 * format and the validator want: the same schedule otherwise (a solver's
 * model may begin later when its search stopped before a bound). */
void tsl_schedule_to_origin(tessel_schedule *s);

/* Peak memory of every device (ndevices values) from the placed entries. */
int tsl_schedule_peaks(int64_t *peaks, const tessel_schedule *s);

#endif
