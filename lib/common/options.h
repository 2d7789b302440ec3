/* Internal layout of the options object. */
#ifndef TESSEL_OPTIONS_H
#define TESSEL_OPTIONS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "tessel.h"

#define TSL_NOPTIONS 11

/* A running search's solver, to interrupt on cancel. */
typedef struct tsl_interrupt {
	void (*fn)(void *ctx);
	void *ctx;
	struct tsl_interrupt *next;
} tsl_interrupt;

struct tessel_options {
	int64_t value[TSL_NOPTIONS];
	tessel_progress_cb progress;
	void *progress_payload;
	tessel_progress_fn progress_fn;
	void *progress_fn_payload;
	/* cancellation: the flag is read without the lock, the list of
	 * running solvers is kept under it */
	atomic_int cancelled;
	pthread_mutex_t lock;
	tsl_interrupt *running;
};

void tsl_options_defaults(tessel_options *o);

/* Whether a cancel was requested (o may be NULL). */
int tsl_options_cancelled(const tessel_options *o);
/* The flag tessel_options_cancel sets, for a deadline's stop (NULL when o
 * is NULL). */
const atomic_int *tsl_options_stop_flag(const tessel_options *o);

/* Register / unregister a running solver of a search using `o` (which may
 * be NULL: then nothing happens). A cancel request calls it->fn(it->ctx)
 * under the lock; unregister before the solver goes away. */
void tsl_options_watch(const tessel_options *o, tsl_interrupt *it);
void tsl_options_unwatch(const tessel_options *o, tsl_interrupt *it);

#endif
