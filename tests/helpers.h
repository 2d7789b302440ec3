/* Small helpers shared by the CMocka test programs. */
#ifndef TESSEL_TEST_HELPERS_H
#define TESSEL_TEST_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "tessel.h"

/* Read a whole file (NUL-terminated); NULL if it cannot be read. Free with free(). */
char *th_read_file(const char *path, size_t *length);

/* Path of a file in tests/data (static buffer, overwritten by the next call). */
const char *th_data_path(const char *name);

/* Fail the current test, printing tessel_error_last(), unless rc == TESSEL_OK. */
void th_check_ok(int rc, const char *what, const char *file, int line);
#define TH_OK(expr) th_check_ok((expr), #expr, __FILE__, __LINE__)

/* Read one schedule figure; fails the test on error. */
int64_t th_sched(const tessel_schedule *s, tessel_schedule_attr attr);

/* Expect return code `code` with `fragment` in tessel_error_last(); fails
 * the test otherwise, printing what came back. */
void th_expect_error(int rc, int code, const char *fragment);

/* Read one entry attribute; fails the test on error. */
int64_t th_entry(const tessel_entry *e, tessel_entry_attr attr);

/* Read one block attribute; fails the test on error. */
int64_t th_block(const tessel_graph *g, int gid, tessel_block_attr attr);

/* Occurrences of `needle` in `text` (overlapping ones counted). */
size_t th_count(const char *text, const char *needle);

/* A copy of `text` with the first `from` replaced by `to` (free() it);
 * fails the test when `from` does not occur. */
char *th_replace_first(const char *text, const char *from, const char *to);

/* Work budget of the tests' searches under a slow checker (valgrind,
 * ThreadSanitizer): every phase runs, each for less (TESSEL_OPT_WORK_LIMIT
 * units; the library's default otherwise). */
#define TH_CHECKER_WORK 150

/* New options (tessel_options_free) for `nmicros` micro-batches with the
 * work budget of th_work_limit(). */
tessel_options *th_options(int64_t nmicros);

/* TH_CHECKER_WORK under a slow checker, else TESSEL_WORK_AUTO. */
int64_t th_work_limit(void);

/* Search `g` for `nmicros` micro-batches: heuristic mode when `fast`,
 * time limit in ms (0: none), threads (0: all cores), the work budget of
 * th_work_limit(). Fails the test unless the search succeeds; the
 * schedule is new (tessel_schedule_free). */
tessel_schedule *th_search(const tessel_graph *g, int64_t nmicros, int fast,
			   int64_t time_limit_ms, int threads);

/* th_search on the training variant of a preset with every device's
 * memory limit set to `memory`. */
tessel_schedule *th_search_preset(const char *name, int ndevices,
				  int64_t memory, int64_t nmicros, int fast);

/* A chain of `n` blocks, block i on device devices[i] and after block i-1,
 * with the given names, kinds, spans and memory deltas, on `ndevices`
 * devices without memory limits. New (tessel_graph_free). */
tessel_graph *th_chain(int ndevices, int n, const char *const names[],
		       const int devices[], const tessel_kind kinds[],
		       const int spans[], const int memory[]);

/* Whether running under valgrind (TESSEL_UNDER_VALGRIND, set by the
 * valgrind setup) or another slow checker (TESSEL_UNDER_CHECKER, set by
 * scripts/check.sh for ThreadSanitizer): heavy loops shrink. */
int th_under_checker(void);

/* The schedule of recompute and offload of the export tests: f0 (device 0,
 * span 2, memory 4) -> f1 (device 1, span 2) -> b1 (device 1, span 4) ->
 * b0 (device 0, span 4), two micro-batches: f0 at 0 and 2, f1 at 2 and 4,
 * b1 at 6 and 12, b0 at 12 and 16. f1 declares a recompute into b1
 * (saves 3, extra 2), f0 an offload before b0 (saves 4, copies of 2
 * steps). With `recompute`, micro-batch 0 recomputes f1 (b1 runs 6 .. 11);
 * with `offload` both offload f0 (offloads at 2 and 4, reloads at 10 and
 * 14). A step of 0.5 ms when `timed`. Validated; new (free it). */
tessel_schedule *th_alt_schedule(int recompute, int offload, int timed);

/* Two micro-batches of f0 -> f1 -> b1 -> b0 on 2 devices, device 0
 * limited to one activation (4), f0 offloaded in both (2-4, 6-8; reloads
 * 8-10, 10-12): f0 mb1 starts at 4 when the first offload has ended, the
 * second reload at 10 with b0 mb0 (validated). */
tessel_schedule *th_wait_schedule(void);

#endif
