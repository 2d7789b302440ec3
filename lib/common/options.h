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
	/* a derived copy's (tsl_options_derive) source: its cancellation is
	 * the source's; NULL for the caller's own */
	const struct tessel_options *source;
	/* > 0: the default budget (TESSEL_WORK_AUTO) of a search under these
	 * options is at most this many units, as if a share of a larger one
	 * (search_extend.c: the whole search beside the tiles); kept by
	 * tsl_options_derive, never set by the caller */
	int64_t work_cap;
};

void tsl_options_defaults(tessel_options *o);

/* A private copy of o (NULL: the defaults) for searches inside one call:
 * its values and progress callbacks, and the cancellation of o (a cancel
 * of o reaches the searches using the copy: tsl_options_cancelled, the
 * stop flag and the solvers watched are o's). *out: new, release with
 * tessel_options_free before o goes away. TESSEL_ENOMEM or TESSEL_ERROR
 * (no mutex). */
int tsl_options_derive(tessel_options **out, const tessel_options *o);

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
