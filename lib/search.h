/* Internal: the pieces of a search (repetend, completion) and their data. */
#ifndef TESSEL_SEARCH_H
#define TESSEL_SEARCH_H

#include <stdint.h>

#include "bounds.h"
#include "graph.h"
#include "schedule.h"
#include "util.h"

/* Resolved search options. */
typedef struct tsl_opts {
	int64_t nmicros;
	int64_t time_limit_ms; /* 0 = none */
	int threads;
	int fast;
	int64_t max_period;    /* 0 = automatic */
	int64_t seed;
	int minimize_depth;
	int64_t solver_memory_mb;
	int max_group;         /* largest k of a repetend of k micro-batches */
	unsigned rlimit_cap;   /* > 0: every solver check gets at most this
				* much of Z3's resource count (the searches
				* of repetends of several micro-batches) */
	const tessel_options *src; /* for cancellation and progress; may be NULL */
} tsl_opts;

/* A repetend as a modulo schedule of k micro-batches (k = 1 unless said):
 * micro-batch m = i k + j of block b starts at T[j * nblocks + b] + i *
 * period, for j = 0 .. k-1. k = 1: micro-batch m at T[b] + m * period. */
typedef struct tsl_repetend {
	int64_t period;
	int64_t *T;       /* k * nblocks entries, min T == 0 */
	int64_t depth;    /* max T + span */
	int optimal;      /* period proven minimal (for these k) */
	int k;            /* micro-batches per repetition; 0 means 1 */
} tsl_repetend;

void tsl_repetend_release(tsl_repetend *r);

/* k of a repetend (at least 1). */
static inline int tsl_repetend_k(const tsl_repetend *r)
{
	return r->k > 1 ? r->k : 1;
}

/* The periodic start of micro-batch m of block b (of n blocks). */
static inline int64_t tsl_periodic_start(const tsl_repetend *r, int n, int b,
					 int64_t m)
{
	int k = tsl_repetend_k(r);
	return r->T[(size_t)(m % k) * (size_t)n + (size_t)b] + (m / k) * r->period;
}


/* Receives each candidate repetend a search finds; returns TESSEL_OK to go
 * on or an error code to stop the search with it. */
typedef int (*tsl_candidate_fn)(const tsl_repetend *rep, void *payload);

/* Z3 search for the minimal period, then shallow repetends at that period:
 * every improving solution and a few alternatives of the smallest depth
 * found are passed to `cb`. TESSEL_EINFEASIBLE when no period up to the cap
 * admits a repetend within the memory limits. `rep` is work space with
 * rep->T allocated for every block. `hint` (may be NULL) is a repetend
 * already known (from the heuristic): periods above it are not tried and at
 * its period only its depth is lowered. `guide` (may be NULL) is a
 * repetend that ignores memory: at its period the solver first tries the
 * device orders it has. */
int tsl_repetend_z3(tsl_repetend *rep, const tessel_graph *g,
		    const tsl_bounds *bnd, const tsl_opts *opts,
		    const tsl_deadline *deadline, const tsl_repetend *hint,
		    const tsl_repetend *guide, tsl_candidate_fn cb,
		    void *payload);

/* For small problems (a few micro-batches): schedule all N micro-batches
 * directly with the solver, below the makespan of the schedule s; on
 * success s's starts are replaced (phases kept). Does nothing for larger
 * problems or when s already reaches the lower bound. *proven: 1 when
 * s's makespan is then known to be minimal. */
int tsl_direct_z3(tessel_schedule *s, const tsl_bounds *bnd,
		  const tsl_opts *opts, const tsl_deadline *deadline,
		  int *proven);

/* The repetend range of s from its entries' phases (complete.c). */
void tsl_repetend_range(tessel_schedule *s);

/* Smallest memory limit, the same on every device (the graph's limits are
 * ignored), under which a repetend of period P exists; *proven is 1 when
 * the limit below it was shown impossible. `known` > 0 is a limit already
 * known to admit one (from the heuristic): the solver starts below it and
 * returns it when it finds nothing smaller. */
int tsl_min_memory_z3(int64_t *out, int *proven, const tessel_graph *g,
		      const tsl_bounds *bnd, int64_t P, const tsl_opts *opts,
		      const tsl_deadline *deadline, int64_t known);

/* Steady-state peak memory of device d for starts T at period P (the
 * formula of repetend_z3.c; T >= 0) into *out. TESSEL_ENOMEM. */
int tsl_repetend_peak(int64_t *out, const tessel_graph *g,
		      const tsl_bounds *bnd, const int64_t *T, int64_t P, int d);

/* Heuristic repetend (modulo list scheduling), no solver. Respects devices
 * and dependencies; memory only if it can. TESSEL_EINFEASIBLE if it found
 * none within the memory limits, TESSEL_ETIMEOUT / TESSEL_ECANCELLED when
 * the deadline `dl` (may be NULL) passed or `src` (may be NULL) was
 * cancelled before it found one (with one found, it returns it). It looks
 * for better repetends until dl's end, for a first one until its hard end
 * when it has one. `dfs_budget`: work bound of the memory-aware search
 * (0: its default, TSL_DFS_BUDGET). `relaxed`
 * (may be NULL; T allocated) gets the first repetend found that ignores
 * memory (period 0 if none), a guide for the solver. */
int tsl_repetend_heuristic(tsl_repetend *rep, tsl_repetend *relaxed,
			   const tessel_graph *g, const tsl_bounds *bnd,
			   const tsl_deadline *dl, const tessel_options *src,
			   int64_t dfs_budget);

/* The blocks by earliest start (head), topological among equals (head
 * grows along every dependency): order has nblocks entries. */
int tsl_order_by_head(int *order, const tessel_graph *g, const tsl_bounds *bnd);

/* Memory-aware modulo scheduling at period P by a bounded depth-first
 * search over the blocks in `order` (topological; NULL: by earliest
 * start), see repetend_dfs.c.
 * *found 1 with the shallowest repetend found in rep (rep->T allocated),
 * 0 when none was found within `budget` work units or before the deadline
 * `dl` (may be NULL) or a cancel of `src` (may be NULL). */
int tsl_repetend_dfs(tsl_repetend *rep, const tessel_graph *g,
		     const tsl_bounds *bnd, const int *order, int64_t P,
		     int64_t budget, const tsl_deadline *dl,
		     const tessel_options *src, int *found);

/* repetend_group.c: the graph of k independent copies of g (copy j of
 * block b is block j n + b; names "NAME#j"), same devices, dependencies,
 * latencies and memory limits. *out: new (tessel_graph_free). */
int tsl_graph_copies(tessel_graph **out, const tessel_graph *g, int k);

/* The k-repetend of k copies of the one-micro-batch repetend `one` (of n
 * blocks), one period apart: period k P, the same periodic schedule.
 * out->T is (re)allocated. */
int tsl_repetend_replicate(tsl_repetend *out, const tsl_repetend *one, int n,
			   int k);

/* Build the N-micro-batch schedule from a repetend: periodic unrolling,
 * phase labels, then compaction (ASAP in periodic order, then a local
 * search bounded by `effort` instance visits, 0 skips it, and stopped at
 * the deadline `dl`, which may be NULL). */
int tsl_complete(tessel_schedule *s, const tsl_repetend *rep,
		 const tsl_bounds *bnd, int64_t effort, const tsl_deadline *dl);

/* The restarts of tsl_complete from the groups of micro-batches of the
 * finished schedule s (its period and repetend micro-batches): its starts
 * are replaced when they find a shorter schedule (phases, period and
 * depth kept), within `effort` instance visits and the deadline. */
int tsl_complete_regroup(tessel_schedule *s, const tsl_bounds *bnd,
			 int64_t effort, const tsl_deadline *dl);

#endif
