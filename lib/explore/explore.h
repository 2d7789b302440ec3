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
	atomic_int busy;         /* a call is using the exploration */
	/* while running */
	pthread_mutex_t lock;
	atomic_int stop;
	int next, finished;
};

#endif
