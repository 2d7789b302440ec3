/* Internal layout of an exploration (tessel_explore_*): its candidates,
 * their placements and, after tessel_explore_run, their schedules and
 * figures. Built and run by explore.c, written by explore_json.c. */
#ifndef TESSEL_EXPLORE_H
#define TESSEL_EXPLORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "explore_plan.h"

typedef struct tsl_candidate {
	tsl_plan plan;
	tessel_graph *graph;     /* NULL when the family cannot be used */
	tessel_schedule *sched;  /* NULL until run, or when none was found */
	double *params;          /* [device]: parameters held, model unit */
	double time;             /* -1: none */
	double peak;             /* -1: none */
	double *device_peak;     /* [device], with the parameters */
	double speedup_1f1b, speedup_gpipe; /* 0: unknown */
	double seconds;
	int64_t work;
	int done;
	char why[TSL_PLAN_WHY_LEN];
	tessel_options *opts;    /* while its search runs (under lock) */
} tsl_candidate;

struct tessel_explore {
	char *name, *unit, *memory_unit;
	char **layer;            /* the model's layer names */
	int nlayers;
	int devices, infer;
	int64_t micros;
	double memory;
	tsl_candidate *c;
	int n;
	int *rank;               /* [k]: the candidate in place k */
	int ran;
	tessel_explore_fn fn;
	void *payload;
	/* TSL_EXPLORE_BUSY: a call is using the exploration;
	 * TSL_EXPLORE_FREE: tessel_explore_free was asked meanwhile, the
	 * call frees it as it ends (tsl_explore_release); above them, in
	 * units of TSL_EXPLORE_READER, the getters reading it */
	atomic_int busy;
	/* while running: the run's state (lock), one progress call at a
	 * time (report_lock, never held with lock while the callback runs) */
	pthread_mutex_t lock, report_lock;
	atomic_int stop;
	int next, finished;
};

#define TSL_EXPLORE_BUSY 1
#define TSL_EXPLORE_FREE 2
#define TSL_EXPLORE_READER 4

/* A call begins to use ex: TSL_OK, or TESSEL_EINVAL (its message naming
 * `fn`) while another call uses it. */
int tsl_explore_acquire(tessel_explore *ex, const char *fn);

/* A getter (tessel_explore_to_json too) begins to read ex: TSL_OK, or
 * TESSEL_EINVAL (naming `fn`) while a call uses it; several read at once,
 * and a call acquiring ex waits for them to end. */
int tsl_explore_read_begin(const tessel_explore *ex, const char *fn);

/* The read ends: the last reader frees ex when a free was asked meanwhile
 * (and no call holds it). */
void tsl_explore_read_end(const tessel_explore *ex);

/* The call that acquired ex ends: 1 when a tessel_explore_free was asked
 * meanwhile and ex is now freed (not to be touched again), else 0. */
int tsl_explore_release(tessel_explore *ex);

#endif
