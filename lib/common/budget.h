/* Internal: the limits of a search: its work budget (counted work, the
 * same on every machine and under any load), the time limit (a wall-clock
 * cap on top of it) and cancellation. Every phase of a search looks at
 * them through tsl_deadline_left_ms before each step and charges what it
 * did with tsl_charge.
 *
 * Work is counted in ticks. A unit of Z3's deterministic resource count
 * ("rlimit count") is TSL_TICKS_PER_RLIMIT ticks; the other phases charge
 * their own counted steps at the rates below, measured so that a tick
 * takes about the same time in each. A work unit, as the API and the
 * schedule report it (TESSEL_OPT_WORK_LIMIT, TESSEL_SCHED_WORK), is
 * TSL_TICKS_PER_UNIT ticks: about a millisecond of one core. */
#ifndef TESSEL_BUDGET_H
#define TESSEL_BUDGET_H

#include <stdatomic.h>
#include <stdint.h>

#define TSL_TICKS_PER_UNIT ((int64_t)1000)

/* Ticks charged per unit of Z3's resource count. Measured over the 155
 * searches of `tessel bench --suite zb` (1.7.4, where it was 1): Z3 spent
 * 1.2 us a resource unit (0.5 to 2.6 by model; 1.6 to 1.9 on the
 * 32-device ZB-H placements, whose solver phase took 2.5 of their 4.5 s),
 * the other phases 0.46 us a tick. */
#define TSL_TICKS_PER_RLIMIT ((int64_t)2)

/* A resource unit takes longer on a larger model. Measured alone, per
 * unit, by the model's terms (tsl_z3.terms): V pipelines under the memory
 * of one micro-batch a stage, 0.6 us on 16 devices (1,219 terms), 1.0 us
 * on 32 (2,435), 2.9 us on 64 (4,867) and 30 us on 128 (9,731); the
 * xshape preset on 64 devices 4.5 us (3,075); the models of `tessel bench
 * --suite zb`, at most 2,692 terms, 0.2 to 0.7 us. Above TSL_RLIMIT_TERMS
 * terms a unit is charged (terms / TSL_RLIMIT_TERMS)^3 times
 * TSL_TICKS_PER_RLIMIT ticks (28 times at 9,731), so that the work bounds
 * of the solver hold its time on large models too. */
#define TSL_RLIMIT_TERMS ((int64_t)3200)

static inline int64_t tsl_ticks_per_rlimit(int64_t terms)
{
	if (terms <= TSL_RLIMIT_TERMS)
		return TSL_TICKS_PER_RLIMIT;
	int64_t t = terms < 1000000 ? terms : 1000000; /* (no overflow) */
	int64_t f = t * t / TSL_RLIMIT_TERMS * t / TSL_RLIMIT_TERMS / TSL_RLIMIT_TERMS;
	return TSL_TICKS_PER_RLIMIT * (f > 1 ? f : 1);
}

/* What a counted step of each phase is charged, in ticks (per so many
 * steps where one is cheaper than a tick). */
/* an instance visited by a compaction's ASAP pass or its local search */
#define TSL_VISITS_PER_TICK 100
/* an entry checked by the validator */
#define TSL_ENTRIES_PER_TICK 32
/* an instance put in order by a pass of the completion that no other
 * count covers (complete.c: a sort by start, the perturbed or a group's
 * keys given and sorted). A round of the perturbed walk whose order breaks
 * a memory limit early is these passes alone: uncharged, 1,241 such rounds
 * over 2,688 instances took 70 ms for 24 units, 2.9 ms a unit */
#define TSL_ORDER_ENTRIES_PER_TICK 64
/* a step of serial schedule generation (an instance placed on one of its
 * devices, or a free window looked at; on passes over more than 65,536
 * instances a step costs more, complete_sgs.c) */
#define TSL_SGS_STEPS_PER_TICK 12
/* a block placed on the circles of a period by list scheduling */
#define TSL_PLACEMENTS_PER_TICK 8
/* an arc of a device's circle walked by a query (circle.c): a placement
 * on a crowded circle walks many, and a block on many devices looks at
 * each one's circle (TSL_ARC_LOOK_STEPS each) */
#define TSL_ARC_STEPS_PER_TICK 128
/* a visit of iterative modulo scheduling */
#define TSL_IMS_VISITS_PER_TICK 4
/* a heap operation of list scheduling (complete_list.c) */
#define TSL_LIST_STEPS_PER_TICK 8
/* a unit of the memory-aware search (repetend_dfs.c): its circle queries
 * cost more than the units they are counted as (measured on placements of
 * 2 to 8 devices under tight memory: 0.6 to 1.5 ms a work unit at 256,
 * where a unit of the other phases takes about 0.5 ms) */
#define TSL_DFS_UNITS_PER_TICK 100
/* an edge scan of the period tightening (repetend_tighten.c) */
#define TSL_SCANS_PER_TICK 64
/* Terms (constraints) of a Z3 model are taken in by Z3 at the next push
 * or check, outside its resource count, in time that grows faster than
 * their number (measured: 1,900 terms 38 ms, 21,000 terms 0.9 s, 83,000
 * terms 18 s); tsl_terms_ticks charges n terms taken in at once. */
#define TSL_TERM_TICKS 20
#define TSL_TERMS_PER_EXTRA_TICK 400

static inline int64_t tsl_terms_ticks(int64_t n)
{
	return n * (TSL_TERM_TICKS + n / TSL_TERMS_PER_EXTRA_TICK);
}

/* Ticks of work spent by a search (or by one finalist's compaction on a
 * thread of its own: the meters are summed in a fixed order after). */
typedef struct tsl_meter {
	int64_t used;   /* all the work spent */
	int64_t exempt; /* of it, the work outside the budget (a proof) */
} tsl_meter;

/* The limits a phase runs under. */
typedef struct tsl_deadline {
	int64_t start_us;
	int64_t end_us;  /* 0: none; optional work stops here */
	int64_t hard_us; /* 0: none; the time limit itself: work that must
			  * be done (the plain completion, the final check)
			  * gives up here with TESSEL_ETIMEOUT */
	const atomic_int *stop; /* NULL: none; once set (the search was
				 * cancelled), optional work stops as at end_us */
	tsl_meter *meter;       /* NULL: work is not counted */
	int64_t work_end;       /* 0: none; optional work stops once the
				 * work counted against the budget
				 * (meter->used - meter->exempt) reaches it */
	int exempt;             /* work charged through this deadline is
				 * outside the budget: spent, not counted */
	int visit_weight;       /* what tsl_charge charges a tick, in
				 * sixteenths (0: one tick): a graph's
				 * dependencies make every visit of a block
				 * cost more (tsl_graph_visit_weight) */
	int64_t must_end;       /* 0: none; work that must be done (a first
				 * schedule's list scheduling) also gives up
				 * once the work counted reaches it, and all
				 * of it at a stop (tsl_deadline_hard_passed):
				 * a search that is itself a candidate only
				 * (tsl_deadline_must_stop; INT64_MAX: at a
				 * stop alone) */
} tsl_deadline;

/* Milliseconds left before the deadline: INT64_MAX without one (or when d
 * is NULL), 0 if it is past, once d->stop is set or once the work up to
 * d->work_end is spent. */
int64_t tsl_deadline_left_ms(const tsl_deadline *d);

/* Milliseconds left before d's end (end_us) whatever the work spent:
 * INT64_MAX without one, 0 once d->stop is set. */
int64_t tsl_deadline_time_left_ms(const tsl_deadline *d);

/* Whether d's time (end_us) has passed or a cancel came, whatever the
 * work spent: what ends work that must be done when d has no hard end. */
int tsl_deadline_time_passed(const tsl_deadline *d);

/* Whether the hard end of d (if any) has passed, or, in a search that is
 * a candidate only (d->must_end set), a stop came; d may be NULL. */
int tsl_deadline_hard_passed(const tsl_deadline *d);
/* Whether work that must be done gives up: the hard end passed, a
 * cancel came (d->stop), or the work counted reached d->must_end; d may
 * be NULL. */
int tsl_deadline_must_stop(const tsl_deadline *d);

/* Charge `ticks` of work to d's meter (none: nothing happens), weighted
 * by d->visit_weight: the counted steps of every phase but the solver. */
void tsl_charge(const tsl_deadline *d, int64_t ticks);

/* Charge `ticks` as they are: the solver's resource count (which already
 * grows with the constraints) and work already weighted on a meter of its
 * own. */
void tsl_charge_ticks(const tsl_deadline *d, int64_t ticks);

/* Ticks left before d->work_end (0 when spent), INT64_MAX without a work
 * bound. */
int64_t tsl_work_left(const tsl_deadline *d);

/* Ticks spent so far on d's meter (0 without one): all of them. */
int64_t tsl_work_used(const tsl_deadline *d);

/* Ticks counted against the budget so far: spent, less the exempt. */
int64_t tsl_work_counted(const tsl_deadline *d);

/* A bound for a phase that may use `ticks` more from now (0: the phase is
 * not bounded beyond d): the earlier of that and d's own bound. */
int64_t tsl_work_end_after(const tsl_deadline *d, int64_t ticks);

#endif

