/* Internal: a search's options resolved and its default work budget
 * (search_opts.c). */
#ifndef TESSEL_SEARCH_OPTS_H
#define TESSEL_SEARCH_OPTS_H

#include "stage.h"
#include "tessel.h"

/* The options (NULL: the defaults) as a search reads them into *o, the
 * work budget TESSEL_WORK_AUTO left at its base until
 * tsl_search_auto_budget sizes it for a graph. */
void tsl_search_resolve(tsl_opts *o, const tessel_options *opts);

/* The default budget of a search of g, when the options asked for it
 * (TESSEL_WORK_AUTO): o->work_ticks and o->proof_ticks as g's instances
 * and devices size them (doc/guide.md, "Work budget"). */
void tsl_search_auto_budget(tsl_opts *o, const tessel_graph *g);

/* The options of a search of g resolved (the default budget as g sizes
 * it), as tsl_search_plain resolves them without a share. */
void tsl_search_opts(tsl_opts *o, const tessel_graph *g,
		     const tessel_options *options);

/* How many threads `jobs` independent jobs run on: the options' thread
 * count (0: one per online processor), at most `jobs`, at least 1. */
int tsl_search_threads(const tsl_opts *o, int jobs);

#endif
