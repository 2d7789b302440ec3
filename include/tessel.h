/* libtessel: schedule search for neural networks split across many devices.
 *
 * SPDX-License-Identifier: MIT
 *
 * One public header. Every type is opaque; every function is a real exported
 * symbol (nothing here exists only as a macro or an inline function), so the
 * library can be reached from C, C++ and ctypes alike.
 *
 * Conventions
 * - Functions that can fail return an int: TESSEL_OK (0) or a negative
 *   tessel_error_code. The detail of the last failure on the calling thread is
 *   read with tessel_error_last(), which never returns NULL.
 * - Out-parameters come first. On failure an out-parameter is left untouched
 *   unless stated otherwise (pointer out-parameters are set to NULL).
 * - Every function that returns a pointer states who owns it:
 *   "new": the caller owns it and releases it with the named function;
 *   "borrowed": it belongs to the handle it came from and lives as long as it.
 * - Every _free function accepts NULL and then does nothing.
 * - Thread safety: handles are not locked. Distinct handles may be used from
 *   distinct threads at the same time; one handle from several threads needs
 *   the caller's locking, except that read-only use of a tessel_graph or
 *   tessel_schedule (functions taking a const pointer) is safe concurrently.
 *   Error details are kept per thread.
 * - No function aborts or exits on caller input; bad input returns an error.
 */
#ifndef TESSEL_H
#define TESSEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TESSEL_API
#elif defined(__GNUC__)
#define TESSEL_API __attribute__((visibility("default")))
#else
#define TESSEL_API
#endif

/* ------------------------------------------------------------------------ */
/* Version                                                                    */
/* ------------------------------------------------------------------------ */

/* Version of the header the caller compiled against. Compare with
 * tessel_version() at run time. */
#define TESSEL_VERSION_MAJOR 1
#define TESSEL_VERSION_MINOR 8
#define TESSEL_VERSION_PATCH 27
/* The same as one number (MAJOR * 10000 + MINOR * 100 + PATCH) and as text. */
#define TESSEL_VERSION_NUMBER                                                 \
	(TESSEL_VERSION_MAJOR * 10000 + TESSEL_VERSION_MINOR * 100 +          \
	 TESSEL_VERSION_PATCH)
#define TESSEL_VERSION_STRING "1.8.27"

/* Version of the loaded library as "MAJOR.MINOR.PATCH". Borrowed, static,
 * never NULL. */
TESSEL_API const char *tessel_version(void);

/* Version of the loaded library as MAJOR * 10000 + MINOR * 100 + PATCH. */
TESSEL_API int tessel_version_number(void);

/* ------------------------------------------------------------------------ */
/* Errors                                                                     */
/* ------------------------------------------------------------------------ */

/* Stable error codes: values never change between releases. */
typedef enum tessel_error_code {
	TESSEL_OK = 0,
	TESSEL_ERROR = -1,           /* unexpected internal failure */
	TESSEL_EINVAL = -2,          /* invalid argument or invalid placement */
	TESSEL_ENOMEM = -3,          /* allocation failed */
	TESSEL_ENOTFOUND = -4,       /* no such block, device, preset or field */
	TESSEL_EEXISTS = -5,         /* duplicate name or dependency */
	TESSEL_ECYCLE = -6,          /* the dependencies form a cycle */
	TESSEL_EPARSE = -7,          /* malformed JSON or wrong JSON layout */
	TESSEL_EINFEASIBLE = -8,     /* no schedule satisfies the memory limits */
	TESSEL_ETIMEOUT = -9,        /* time limit reached before any schedule */
	TESSEL_ECANCELLED = -10,     /* the search was cancelled */
	TESSEL_ESOLVER = -11,        /* the SMT solver failed */
	TESSEL_EIO = -12,            /* a file could not be read or written */
	TESSEL_EVIOLATION = -13,     /* a schedule breaks a rule (validator) */
	TESSEL_EUNSUPPORTED = -14,   /* valid request this version cannot do */
	TESSEL_ERANGE = -15,         /* a number is out of its allowed range */
	TESSEL_ITEROVER = -31        /* an iterator has no more items */
} tessel_error_code;

/* Message describing the most recent failure on the calling thread, naming
 * the block, field or device at fault. Borrowed (thread-local storage, valid
 * until the next libtessel call on this thread). Never NULL: "" when no
 * function has failed on this thread. */
TESSEL_API const char *tessel_error_last(void);

/* Code of the most recent failure on the calling thread (TESSEL_OK if none). */
TESSEL_API int tessel_error_last_code(void);

/* Forget the calling thread's last error. */
TESSEL_API void tessel_error_clear(void);

/* Short fixed description of an error code, e.g. "invalid argument".
 * Borrowed, static, never NULL. */
TESSEL_API const char *tessel_strerror(int code);

/* Release memory that a libtessel function returned as "new, release with
 * tessel_free" (JSON and text buffers). NULL is a no-op. */
TESSEL_API void tessel_free(void *ptr);

/* ------------------------------------------------------------------------ */
/* Graph: one micro-batch's blocks, their devices and dependencies            */
/* ------------------------------------------------------------------------ */

typedef struct tessel_graph tessel_graph;

typedef enum tessel_kind {
	TESSEL_KIND_FORWARD = 0,
	TESSEL_KIND_BACKWARD = 1,
	TESSEL_KIND_WEIGHT = 2       /* weight-gradient part of a split backward */
} tessel_kind;

/* Limits accepted by the graph API. */
#define TESSEL_MAX_DEVICES 4096
#define TESSEL_MAX_BLOCKS 1000000
#define TESSEL_MAX_SPAN 1000000
#define TESSEL_MAX_MEMORY 1000000000
#define TESSEL_MAX_LATENCY 1000000
/* Limits of a schedule: micro-batches (a search's N, a schedule's
 * nmicros), entries (blocks x micro-batches) and start steps. */
#define TESSEL_MAX_MICRO_BATCHES 1000000
#define TESSEL_MAX_ENTRIES 100000000
#define TESSEL_MAX_STEP 1000000000000000LL
/* Memory limit value meaning "no limit". */
#define TESSEL_UNLIMITED (-1)
/* Device argument meaning "every device". */
#define TESSEL_ALL_DEVICES (-1)

/* Create an empty graph for `ndevices` devices (1 .. TESSEL_MAX_DEVICES),
 * with no memory limits. *out: new, release with tessel_graph_free. */
TESSEL_API int tessel_graph_new(tessel_graph **out, int ndevices);

/* Release a graph. NULL is a no-op. */
TESSEL_API void tessel_graph_free(tessel_graph *graph);

/* Deep copy. *out: new, release with tessel_graph_free. */
TESSEL_API int tessel_graph_dup(tessel_graph **out, const tessel_graph *graph);

/* Add a block. `name` is copied; it must be non-empty and unique in the
 * graph (TESSEL_EEXISTS otherwise). span: 1 .. TESSEL_MAX_SPAN. memory:
 * the change of the device's memory when the block starts, applied to every
 * device the block occupies (|memory| <= TESSEL_MAX_MEMORY).
 * *out_gid (may be NULL) receives the block's id: blocks are numbered
 * 0, 1, 2, ... in the order they are added. */
TESSEL_API int tessel_graph_add_block(int *out_gid, tessel_graph *graph,
				      const char *name, tessel_kind kind,
				      int span, int memory);

/* Place block `gid` on the `count` distinct devices in `devices` (replacing
 * any earlier placement). A block on several devices occupies all of them
 * for its whole span. */
TESSEL_API int tessel_graph_place(tessel_graph *graph, int gid,
				  const int *devices, size_t count);

/* Declare that block `after` of a micro-batch starts only once block
 * `before` of the same micro-batch has finished. TESSEL_ENOTFOUND for an
 * unknown block id, TESSEL_ECYCLE when before == after or when the
 * dependency closes a cycle (`before` already waits for `after`; nothing
 * added), TESSEL_EEXISTS for a dependency already declared. The cycle
 * check walks back from `before` over at most 4096 blocks (constant time
 * when blocks are added in either dependency order); a cycle beyond that
 * walk is found by tessel_graph_validate (and everything that
 * validates). */
TESSEL_API int tessel_graph_add_dep(tessel_graph *graph, int before, int after);

/* Latency: the time a block's output takes to reach another device.
 * A dependency a -> c has a latency L (steps, 0 .. TESSEL_MAX_LATENCY): its
 * own, given with tessel_graph_add_dep_latency, or else the graph's
 * (tessel_graph_set_latency, default 0). It counts only when c occupies a
 * device that a does not; then c starts at least L steps after a finishes
 * (start(c) >= start(a) + span(a) + L). The transfer occupies no device.
 * Every part of the library honours it: the validator, the lower bound,
 * the search, the exports and the simulation. */

/* Like tessel_graph_add_dep, with the dependency's own latency
 * (0 .. TESSEL_MAX_LATENCY, else TESSEL_ERANGE). Since 1.1. */
TESSEL_API int tessel_graph_add_dep_latency(tessel_graph *graph, int before,
					    int after, int latency);

/* The latency of every dependency that has none of its own
 * (0 .. TESSEL_MAX_LATENCY, else TESSEL_ERANGE; default 0). Read it back
 * with tessel_graph_get(TESSEL_GRAPH_LATENCY). Since 1.1. */
TESSEL_API int tessel_graph_set_latency(tessel_graph *graph, int latency);

/* Latency of the index-th dependency of block `gid` (the order of
 * tessel_graph_block_dep): its own, or the graph's when it has none.
 * *out_own (may be NULL) is 1 when the dependency has its own latency.
 * The value is the one given, whether or not the devices make it count.
 * TESSEL_ENOTFOUND for an unknown block or index. Since 1.1. */
TESSEL_API int tessel_graph_block_dep_latency(int64_t *out, int *out_own,
					      const tessel_graph *graph,
					      int gid, size_t index);

/* Time: profiled durations instead of spans.
 * A graph may have a step: the length of one step in some unit of time
 * (say milliseconds; tessel_graph_set_unit names it). With a step, a block
 * may be given a duration in that unit instead of a span, and latencies
 * may be given in that unit too; the graph keeps the values as given and
 * rounds them up to whole steps (value / step rounded up, to the nearest
 * whole step when within a relative 1e-9 of it, so that 2.8 / 0.1 gives
 * 28; at least 1 step for a value > 0). The search, bounds and validator
 * see only the steps. Changing the step rounds every value given as a time
 * again. Spans and latencies given in steps stay as they are. */

/* Set the length of one step (finite, > 0, else TESSEL_ERANGE), and round
 * every duration and latency given as a time again; TESSEL_ERANGE, naming
 * the block or dependency, when one would need more than TESSEL_MAX_SPAN
 * (durations) or TESSEL_MAX_LATENCY (latencies) steps: the graph is then
 * unchanged. Since 1.1. */
TESSEL_API int tessel_graph_set_step(tessel_graph *graph, double step);

/* The length of one step, 0 when the graph has none (the default). Since
 * 1.1. */
TESSEL_API int tessel_graph_step(double *out, const tessel_graph *graph);

/* Name the unit of the step, the durations and the time latencies, for
 * the outputs ("ms", "us", "s", "ns", ... or any other name): copied, at
 * most 32 bytes of UTF-8 without control characters (else TESSEL_EINVAL).
 * NULL or "" removes it. The text, the SVG and the command line's
 * simulate print it; the trace converts "s", "ms", "us" (or U+00B5 MICRO
 * SIGN then "s") and "ns" to real time. Since 1.1. */
TESSEL_API int tessel_graph_set_unit(tessel_graph *graph, const char *unit);

/* The unit's name: *out borrowed from the graph, NULL when it has none.
 * Since 1.1. */
TESSEL_API int tessel_graph_unit(const char **out, const tessel_graph *graph);

/* Give block `gid` a duration (finite, > 0) in the step's unit; its span
 * becomes the duration rounded up to whole steps. TESSEL_EINVAL when the
 * graph has no step, TESSEL_ERANGE for a duration out of range or longer
 * than TESSEL_MAX_SPAN steps, TESSEL_ENOTFOUND for an unknown block. Since
 * 1.1. */
TESSEL_API int tessel_graph_set_block_duration(tessel_graph *graph, int gid,
					       double duration);

/* Duration of block `gid` in the step's unit: the duration given, else its
 * span times the step, else (no step) its span. *out_given (may be NULL)
 * is 1 when a duration was given. Since 1.1. */
TESSEL_API int tessel_graph_block_duration(double *out, int *out_given,
					   const tessel_graph *graph, int gid);

/* Like tessel_graph_set_latency, with the latency in the step's unit
 * (finite, >= 0), rounded up to whole steps (at most TESSEL_MAX_LATENCY).
 * TESSEL_EINVAL when the graph has no step, TESSEL_ERANGE out of range.
 * Since 1.1. */
TESSEL_API int tessel_graph_set_latency_time(tessel_graph *graph,
					     double latency);

/* The latency of dependencies without their own, in the step's unit: as
 * given, or its steps times the step (steps without a step). Since 1.1. */
TESSEL_API int tessel_graph_latency_time(double *out,
					 const tessel_graph *graph);

/* Like tessel_graph_add_dep_latency, with the dependency's own latency in
 * the step's unit (finite, >= 0), rounded up to whole steps (at most
 * TESSEL_MAX_LATENCY). TESSEL_EINVAL when the graph has no step,
 * TESSEL_ERANGE out of range, and the errors of tessel_graph_add_dep.
 * Since 1.1. */
TESSEL_API int tessel_graph_add_dep_latency_time(tessel_graph *graph,
						 int before, int after,
						 double latency);

/* Like tessel_graph_block_dep_latency, in the step's unit: the latency as
 * given, or its steps times the step (steps without a step). Since 1.1. */
TESSEL_API int tessel_graph_block_dep_latency_time(double *out, int *out_own,
						   const tessel_graph *graph,
						   int gid, size_t index);

/* A step for profiled values (durations and latencies in one unit, each
 * finite and >= 0; zeros are ignored): the largest step s / k, s the
 * smallest value > 0 and k = 1, 2, ..., 100, that rounds no value up by
 * more than 1 % and keeps every value within TESSEL_MAX_SPAN steps
 * (k = 100 always rounds within 1 %). The placement reader uses it when a
 * placement gives durations but no step. TESSEL_ERANGE for a bad value or
 * when no such step exists, TESSEL_EINVAL when no value is > 0. Since
 * 1.1. */
TESSEL_API int tessel_pick_step(double *out, const double *values,
				size_t count);

/* Set the stage number of a block (used by exports that group blocks into
 * pipeline stages). -1 (the default) means "no stage". */
TESSEL_API int tessel_graph_set_stage(tessel_graph *graph, int gid, int stage);

/* Memory limit of `device`, or of every device with TESSEL_ALL_DEVICES.
 * 0 <= limit <= 2^50 (else TESSEL_ERANGE), or TESSEL_UNLIMITED;
 * TESSEL_ENOTFOUND for an unknown device. */
TESSEL_API int tessel_graph_set_memory_limit(tessel_graph *graph, int device,
					     int64_t limit);

/* Check the whole graph: at least one block, every block placed, no
 * dependency cycle, and every memory limit at least what one micro-batch
 * needs on that device. Returns TESSEL_OK, TESSEL_EINVAL, TESSEL_ECYCLE or
 * TESSEL_EINFEASIBLE (memory), with a message naming the block or device. */
TESSEL_API int tessel_graph_validate(const tessel_graph *graph);

/* Id of the block called `name`; TESSEL_ENOTFOUND if there is none. */
TESSEL_API int tessel_graph_find(int *out_gid, const tessel_graph *graph,
				 const char *name);

typedef enum tessel_graph_attr {
	TESSEL_GRAPH_NDEVICES = 0,
	TESSEL_GRAPH_NBLOCKS = 1,
	TESSEL_GRAPH_RESOURCE_BOUND = 2,   /* max over devices of summed spans */
	TESSEL_GRAPH_CRITICAL_PATH = 3,    /* longest dependency chain, in steps,
					    * latencies included */
	TESSEL_GRAPH_LATENCY = 4           /* latency of dependencies without
					    * their own (since 1.1) */
} tessel_graph_attr;

/* Read a figure of the graph. The bound figures (resource bound, critical
 * path) need a graph that passes tessel_graph_validate and return its
 * error otherwise. */
TESSEL_API int tessel_graph_get(int64_t *out, const tessel_graph *graph,
				tessel_graph_attr attr);

typedef enum tessel_block_attr {
	TESSEL_BLOCK_KIND = 0,
	TESSEL_BLOCK_SPAN = 1,
	TESSEL_BLOCK_MEMORY = 2,
	TESSEL_BLOCK_NDEVICES = 3,   /* number of devices it occupies */
	TESSEL_BLOCK_NDEPS = 4,      /* number of blocks it waits for */
	TESSEL_BLOCK_STAGE = 5       /* -1 when not set */
} tessel_block_attr;

/* Read a figure of block `gid`. */
TESSEL_API int tessel_graph_block_get(int64_t *out, const tessel_graph *graph,
				      int gid, tessel_block_attr attr);

/* Name of block `gid`: *out borrowed from the graph. */
TESSEL_API int tessel_graph_block_name(const char **out,
				       const tessel_graph *graph, int gid);

/* The index-th device of block `gid` (0 <= index < NDEVICES). */
TESSEL_API int tessel_graph_block_device(int *out, const tessel_graph *graph,
					 int gid, size_t index);

/* The index-th block that block `gid` waits for (0 <= index < NDEPS). */
TESSEL_API int tessel_graph_block_dep(int *out, const tessel_graph *graph,
				      int gid, size_t index);

/* Memory limit of one device (TESSEL_UNLIMITED when none). */
TESSEL_API int tessel_graph_memory_limit(int64_t *out,
					 const tessel_graph *graph, int device);

/* LB(N): a lower bound on the makespan of any schedule of `nmicros`
 * micro-batches within the graph's memory limits: the largest of the
 * critical path, max over devices of head + N * load + tail, the same
 * for the subsets of a device's blocks whose heads and tails are at least
 * those of two of its blocks (devices of at most 64 blocks), for blocks
 * that occupy every device (their time cannot overlap other work), max
 * over devices of N * (their spans + the device's other load) + the
 * device's head and tail counted without them, and, for devices with a
 * memory limit, the idle time the limit forces before the first block
 * that frees memory and after the last one that takes memory, and (since
 * 1.8.5) the time that the micro-batches the limit lets hold memory at
 * once need to go from a block that takes memory to the one that frees it
 * (the round trip through the other devices). See doc/guide.md. 1 <= nmicros <= 10^6 (else TESSEL_ERANGE). The graph must
 * pass the structural checks of tessel_graph_validate (at least one block,
 * every block placed, no cycle; their error otherwise); limits below what
 * one micro-batch needs are not checked here (no schedule exists then). */
TESSEL_API int tessel_graph_lower_bound(int64_t *out, const tessel_graph *graph,
					int64_t nmicros);

/* ------------------------------------------------------------------------ */
/* Presets                                                                    */
/* ------------------------------------------------------------------------ */

/* `memory_limit` of tessel_preset: the preset's default, 3 per 2 devices
 * rounded up (6 on 4 devices, 96 on 64): enough for every preset's period
 * to reach its resource bound. Since 1.4. */
#define TESSEL_PRESET_MEMORY (-2)

/* Build a built-in placement: "vshape", "xshape", "mshape", "nnshape" or
 * "kshape", for `ndevices` devices (>= 2; even for kshape),
 * training (infer = 0) or inference (infer = 1), with every device's memory
 * limit set to `memory_limit` (or TESSEL_UNLIMITED, or TESSEL_PRESET_MEMORY:
 * the preset's default for that many devices).
 * TESSEL_ENOTFOUND for an unknown name, TESSEL_ERANGE for ndevices outside
 * 2 .. TESSEL_MAX_DEVICES, TESSEL_EINVAL for an odd count with kshape or
 * infer not 0 or 1, TESSEL_EINFEASIBLE when the limit is below what one
 * micro-batch needs. *out: new, release with tessel_graph_free. */
TESSEL_API int tessel_preset(tessel_graph **out, const char *name,
			     int ndevices, int infer, int64_t memory_limit);

/* Number of presets. */
TESSEL_API size_t tessel_preset_count(void);

/* Name and one-line description of preset `index` (0 .. count-1).
 * Both borrowed, static. Either out-parameter may be NULL. */
TESSEL_API int tessel_preset_info(const char **out_name,
				  const char **out_description, size_t index);

/* ------------------------------------------------------------------------ */
/* Placement JSON (see doc/formats.md)                                        */
/* ------------------------------------------------------------------------ */

/* Parse a placement. `text` need not be NUL-terminated; `length` bytes are
 * read. Errors name the field or block and, for syntax errors, the line and
 * column. *out: new, release with tessel_graph_free. The graph is
 * validated (tessel_graph_validate) before it is returned. Since 1.1 a
 * placement may give latencies ("latency", {"block": NAME, "latency": L}
 * in "after"), durations instead of spans, a "step" (else picked with
 * tessel_pick_step when durations are given) and a "unit"; latencies are
 * in the unit when it gives a step or durations, else in steps
 * (doc/formats.md). */
TESSEL_API int tessel_graph_from_json(tessel_graph **out, const char *text,
				      size_t length);

/* Same, reading the file at `path`. */
TESSEL_API int tessel_graph_from_file(tessel_graph **out, const char *path);

/* Serialise a graph as placement JSON, latencies, durations, step and
 * unit included, so that reading it back gives the same graph (for a graph
 * that passes tessel_graph_validate: tessel_graph_from_json validates what
 * it reads, so the text of one that does not, an empty graph or a limit
 * below what a micro-batch needs, is refused with the same reason). *out:
 * new NUL-terminated text, release with tessel_free. */
TESSEL_API int tessel_graph_to_json(char **out, const tessel_graph *graph);

/* ------------------------------------------------------------------------ */
/* Search options                                                             */
/* ------------------------------------------------------------------------ */

typedef struct tessel_options tessel_options;

/* Enum-keyed options: new keys may be added, values never change meaning. */
typedef enum tessel_option {
	TESSEL_OPT_MICRO_BATCHES = 0,   /* N, 1 .. 1000000; default 16 */
	TESSEL_OPT_TIME_LIMIT_MS = 1,   /* 0 = none (default); 1 .. 86400000 */
	TESSEL_OPT_THREADS = 2,         /* 0 = all cores (default); 1 .. 256 */
	TESSEL_OPT_FAST = 3,            /* 1: heuristics only, no solver; default 0 */
	TESSEL_OPT_MAX_PERIOD = 4,      /* 0 = automatic (default); else cap on P */
	TESSEL_OPT_SEED = 5,            /* solver random seed, default 0 */
	TESSEL_OPT_MINIMIZE_DEPTH = 6,  /* 1 (default): shallowest repetend */
	TESSEL_OPT_SOLVER_MEMORY_MB = 7,/* 0 = no cap (default); solver memory cap */
	TESSEL_OPT_REPETEND_MICRO_BATCHES = 8, /* largest k of a repetend of k
					       * micro-batches, 1 .. 16; default 8
					       * (since 1.1) */
	TESSEL_OPT_WORK_LIMIT = 9,      /* work budget in work units, 0 = none,
					 * TESSEL_WORK_AUTO (the default): it
					 * grows with the graph (below);
					 * -1 .. 10^12 (since 1.2) */
	TESSEL_OPT_ALTERNATIVES = 10    /* 1 (default): the search chooses, per
					 * micro-batch, among the recompute and
					 * offload alternatives the placement
					 * declares; 0: every activation is
					 * kept; 2: every declared alternative
					 * is always taken (recompute where
					 * declared, else offload: the fixed
					 * rule, a baseline) (since 1.6) */
} tessel_option;

/* The work budget (TESSEL_OPT_WORK_LIMIT) bounds the effort of a search
 * deterministically: every phase counts what it does (the solver in Z3's
 * resource units, the heuristics, the completion and the local search in
 * their own counted steps) and stops at its share of the budget, so the
 * same graph and options give the same schedule on any machine, under any
 * load and with any number of threads. One work unit is about a
 * millisecond of one core of a current x86 machine (500 of Z3's resource
 * units since 1.7.5, 1,000 before; or about 16,000 instances visited by a
 * compaction). The work a
 * search spent is TESSEL_SCHED_WORK.
 *
 * Work that every result needs is never cut short by the budget: the first
 * repetend of the heuristic, its plain completion and the validator's
 * check. TESSEL_OPT_TIME_LIMIT_MS is a wall-clock cap on top of the
 * budget: when it ends a phase before its share of the budget is spent,
 * the result depends on the machine's speed.
 *
 * The default budget grows with the instances to schedule (blocks times
 * micro-batches), as the work of completing and improving them does: 3
 * units per instance up to a base, plus 4 per 1,000 instances; the base
 * is 1,500 units on up to 8 devices, 250 more a device above that, 5,000
 * from 22 devices (8 blocks x 16 micro-batches: 384 units; 48 blocks on 8
 * devices x 32: 1,504; 48 on 16 devices x 32: 3,504; 16 x 128 on 32
 * devices: 5,008; 10^5 x 16 on 16 devices: 9,900); in heuristic mode (TESSEL_OPT_FAST) 0.6 per
 * instance up to 1,000, plus 1 per 1,000. The budget counts from the
 * first schedule of the search (list scheduling, in time about linear in
 * the instances), which is always made. The default budget does not
 * bound the proof that a period is minimal: the solver's checks below a
 * known period then have a work bound of their own, for the model's size
 * (guide: "Work budget"), charged to TESSEL_SCHED_WORK; a budget set
 * explicitly bounds everything, the proof included. Nor does it bound the
 * heuristic mode's search, which the default search runs as a candidate
 * with its own default budget (charged to TESSEL_SCHED_WORK; since 1.5),
 * so that it is never longer than TESSEL_OPT_FAST's. tessel_min_memory's
 * default is 5,000 units. */
#define TESSEL_WORK_AUTO (-1)

/* TESSEL_OPT_SOLVER_MEMORY_MB caps the memory of each Z3 check in
 * megabytes (1 .. 2^30). A check that reaches the cap ends like one that
 * reaches the time limit: the search returns the best schedule found so far
 * (the heuristics' at least) with its proof flags, or TESSEL_ETIMEOUT when
 * it has none; tessel_min_memory returns the best limit known, unproven. */

/* Create options holding the defaults. *out: new, release with
 * tessel_options_free. */
TESSEL_API int tessel_options_new(tessel_options **out);

/* Release options. NULL is a no-op. */
TESSEL_API void tessel_options_free(tessel_options *options);

/* Set an option. TESSEL_ERANGE (with the allowed range in the message) if
 * the value is outside the bounds of tessel_options_bounds; the option keeps
 * its previous value then. */
TESSEL_API int tessel_options_set(tessel_options *options, tessel_option key,
				  int64_t value);

/* Read an option. */
TESSEL_API int tessel_options_get(int64_t *out, const tessel_options *options,
				  tessel_option key);

/* Allowed range of an option (either out-parameter may be NULL). */
TESSEL_API int tessel_options_bounds(int64_t *out_min, int64_t *out_max,
				     tessel_option key);

/* Progress callback: called from the searching thread each time the search
 * finds a schedule better than all before, with that schedule's period,
 * its makespan for the requested number of micro-batches (before the final
 * compaction, which can only shorten it), the lower bound LB(N) and whether
 * the period is proven optimal. Return 0 to go on; anything else stops the
 * search, which then returns the best schedule found so far. */
typedef int (*tessel_progress_cb)(int64_t period, int64_t makespan,
				  int64_t lower_bound, int period_proven,
				  void *payload);

/* Set (or with cb = NULL remove) the progress callback of searches using
 * these options. `payload` is passed through untouched (borrowed). */
TESSEL_API int tessel_options_set_progress(tessel_options *options,
					   tessel_progress_cb cb,
					   void *payload);

/* A progress event (since 1.2): what a search is doing and its best
 * schedule so far. Borrowed: valid only during the callback it is given
 * to. */
typedef struct tessel_progress tessel_progress;

typedef enum tessel_progress_attr {
	TESSEL_PROGRESS_IMPROVED = 0,  /* 1: a better schedule was found; 0:
					* a phase begins */
	TESSEL_PROGRESS_PERIOD = 1,    /* the best schedule's period P_k
					* (0: none yet) */
	TESSEL_PROGRESS_REPETEND_MICRO_BATCHES = 2, /* its k (P_k / k steps
					* per micro-batch) */
	TESSEL_PROGRESS_MAKESPAN = 3,  /* its makespan (0: none yet) */
	TESSEL_PROGRESS_LOWER_BOUND = 4, /* LB(N): the gap is MAKESPAN - it */
	TESSEL_PROGRESS_PERIOD_PROVEN = 5, /* 1 when its period is proven */
	TESSEL_PROGRESS_WORK = 6,      /* work units spent so far */
	TESSEL_PROGRESS_WORK_LIMIT = 7,/* the work budget (0: none) */
	TESSEL_PROGRESS_MICROSECONDS = 8 /* wall-clock time since the
					* search began */
} tessel_progress_attr;

/* Read a figure of a progress event. TESSEL_EINVAL for an unknown attr. */
TESSEL_API int tessel_progress_get(int64_t *out, const tessel_progress *p,
				   tessel_progress_attr attr);

/* The phase the search is in: "list" (the first schedule, by list
 * scheduling), "heuristic" (repetends without the solver), "solver" (the
 * period proof, depths and alternatives), "groups" (repetends of several
 * micro-batches), "compaction" (the best candidates completed and
 * improved), "windows" (the ends re-solved exactly), "restarts" (the
 * completion restarted from the schedule's own micro-batches), "direct"
 * (few micro-batches scheduled all at once), "unlimited" (the placement
 * searched without its memory limits), "fast" (under the default budget,
 * the heuristic mode's search as a candidate: since 1.5), "extend"
 * (since 1.8.24: a search of many micro-batches ran on fewer, whose
 * steady state is repeated next, or since 1.8.25 with declared
 * alternatives its schedule laid end to end as tiles; its events carry
 * the makespan that period gives all of them, and LB(N)), "done". *out:
 * static, borrowed.
 * New phases may be added. */
TESSEL_API int tessel_progress_phase(const char **out, const tessel_progress *p);

/* Event callback: called from the searching thread at the start of each
 * phase and for each better schedule. Return 0 to go on; anything else
 * stops the search, which then returns the best schedule found so far. */
typedef int (*tessel_progress_fn)(const tessel_progress *p, void *payload);

/* Set (or with fn = NULL remove) the event callback (since 1.2); it and
 * the callback of tessel_options_set_progress may both be set. `payload`
 * is passed through untouched (borrowed). */
TESSEL_API int tessel_options_set_progress_fn(tessel_options *options,
					      tessel_progress_fn fn,
					      void *payload);

/* Ask every search running with these options to stop as soon as it can.
 * Safe to call from any thread while searches run (the one function on an
 * options object that is). A stopped search returns the best schedule
 * found so far, or TESSEL_ECANCELLED if it had none. The request stays in
 * force, also for searches started later, until tessel_options_clear_cancel. */
TESSEL_API int tessel_options_cancel(tessel_options *options);

/* Withdraw a cancel request, so that the options can be used again. Not to
 * be called while a search uses these options. */
TESSEL_API int tessel_options_clear_cancel(tessel_options *options);

/* ------------------------------------------------------------------------ */
/* Schedules                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct tessel_schedule tessel_schedule;

/* Find a schedule: the repetend of minimal period P for the graph's
 * placement and memory limits (proven optimal when possible), completed with
 * warm-up and cool-down for the requested number of micro-batches and
 * checked by the validator before it is returned. `options` may be NULL
 * (defaults). When blocks declare recompute or offload alternatives
 * (since 1.6), each (block, micro-batch) of the schedule gets its choice
 * (TESSEL_OPT_ALTERNATIVES; doc/guide.md, "Memory-time alternatives").
 * Errors: TESSEL_EINVAL / TESSEL_ECYCLE for a bad graph,
 * TESSEL_EINFEASIBLE when no schedule satisfies the memory limits (a
 * limit below what one micro-batch needs, or below what the micro-batches
 * leave behind: a device whose blocks' memory changes add up to c > 0
 * ends N micro-batches holding N * c) or the search found none within
 * them (the message says which),
 * TESSEL_ETIMEOUT when the time limit passed before any schedule was found,
 * TESSEL_ESOLVER for solver failures, TESSEL_ERANGE when the blocks times
 * the micro-batches exceed TESSEL_MAX_ENTRIES, and (since 1.8.4) when
 * their device entries do (a block on k devices counts k times: the
 * searches keep an entry of each, and a hostile placement of blocks on
 * every one of 4,096 devices held memory by the terabyte).
 * *out: new, release with tessel_schedule_free. */
TESSEL_API int tessel_search(tessel_schedule **out, const tessel_graph *graph,
			     const tessel_options *options);

/* A trade-off of memory against time: the search under each of `nlimits`
 * memory limits (1 .. 1024, else TESSEL_ERANGE), every device's limit
 * set to limits[i] (0 .. 2^50 or TESSEL_UNLIMITED, else TESSEL_ERANGE; the
 * graph's own limits are ignored), whose makespans never grow with the
 * limit: makespan(out[i]) <= makespan(out[j]) whenever limits[i] is looser
 * than limits[j] (TESSEL_UNLIMITED the loosest), and out[i] is not NULL
 * when out[j] is not. The limits are searched from the tightest up, each
 * by tessel_search with `options` (the work budget is each search's; the
 * time limit caps the whole sweep, each search getting an equal share of
 * the time left, at least a millisecond: a limit left with less is not
 * searched, TESSEL_ETIMEOUT; equal limits are searched once); a schedule
 * found under a tighter limit, valid under every looser one, replaces a
 * looser limit's result when it is shorter, and one found under a looser
 * limit replaces a tighter limit's when it fits that limit and is
 * shorter. A
 * single tessel_search per limit gives no such guarantee once its budget
 * cuts the search short (doc/guide.md, "Memory sweeps").
 * out: the caller's array of nlimits; out[i] gets the schedule under
 * limits[i] (new, release each with tessel_schedule_free; validated under
 * its limit; its graph, tessel_schedule_graph, is `graph` with that limit
 * on every device; the lower bound and optimality flags are that limit's,
 * the work and search seconds those of the search that found it), or NULL
 * when no schedule was found under that limit. Every out[i] is set to
 * NULL first (when nlimits is in range). A cancel, or a progress
 * callback of the options asking to stop, ends the whole sweep: the search under way keeps its best schedule so
 * far, the searches of the looser limits are not started (no callback is
 * called again) and they keep what the tighter limits found.
 * Returns TESSEL_OK when some out[i] is a schedule; when none is, the last
 * search's error (TESSEL_EINFEASIBLE, TESSEL_ETIMEOUT or
 * TESSEL_ECANCELLED); the errors of tessel_search for a bad graph; any
 * other error (TESSEL_ENOMEM, TESSEL_ESOLVER) ends the sweep with every
 * out[i] NULL. Since 1.7. */
TESSEL_API int tessel_search_sweep(tessel_schedule **out,
				   const tessel_graph *graph,
				   const int64_t *limits, size_t nlimits,
				   const tessel_options *options);

/* The smallest memory limit, the same on every device, under which a
 * repetend of period `period` (0: the resource bound) exists; a period
 * above the graph's spans and latencies summed (one micro-batch run a
 * block at a time) has that sum's answer, the same (since 1.8.4, where a
 * period near 2^63 overflowed); the graph's own limits are ignored, and so are its declared recompute and offload
 * alternatives (every activation kept: with them, tessel_search may do
 * with less). Uses the solver within the options' time limit
 * and work budget (a solver model that would take more than half the work
 * or time left to build is not built, as in tessel_search: then *out is
 * the limit the memory-aware probes found, unproven, since 1.7.6).
 * *out_proven (may be NULL) is 1 when one unit less was shown impossible,
 * 0 when the time limit ended the search first (then *out is the smallest
 * limit found). TESSEL_EINFEASIBLE when no repetend of that period exists
 * at all (also when a device's blocks' memory changes add up to more than
 * 0: each repetition would hold more, since 1.7.9), TESSEL_ETIMEOUT when
 * none was found in time. The warm-up and
 * cool-down of a complete schedule usually need no more than the steady
 * state; tessel_search checks every step. */
TESSEL_API int tessel_min_memory(int64_t *out, int *out_proven,
				 const tessel_graph *graph, int64_t period,
				 const tessel_options *options);

/* The smallest memory limit, the same on every device, under which
 * tessel_search finds a schedule of `nmicros` micro-batches at all (the
 * graph's own limits are ignored; every activation kept: a graph that
 * declares recompute or offload alternatives may do with less): the memory of running one micro-batch
 * at a time, in the order of its blocks that needs least (of the orders
 * tried: topological, depth-first, smallest delta first; every block that
 * frees memory as early as it can; and since 1.8.11 the same three walked
 * from the last blocks back, where every block that takes memory comes as
 * late as it can). No solver, no time limit: O(blocks
 * log blocks + devices), and for *out_proven the ancestor sets of graphs
 * of at most 4096 blocks, or past that (since 1.8.11) each device's
 * blocks' ancestors among that device's blocks, while the blocks times
 * the 64-bit words of a device's set, summed over the devices, are at
 * most 2^24; either when at most 2^28 pairs, over the devices, of a block
 * there that takes memory and any block there (since 1.8.10). Beyond
 * those, each block alone. *out_proven (may be NULL) is 1 when no schedule
 * can do with less (the limit meets the lower bound tessel_graph_validate
 * checks: what one micro-batch needs when a block starts, or what
 * nmicros micro-batches leave behind), else 0. Compare tessel_min_memory:
 * the smallest limit under which the period reaches a given value.
 * 1 <= nmicros <= 10^6 (else TESSEL_ERANGE); TESSEL_ECYCLE, TESSEL_EINVAL
 * for a bad graph. Since 1.4. */
TESSEL_API int tessel_graph_min_memory(int64_t *out, int *out_proven,
				       const tessel_graph *graph,
				       int64_t nmicros);

/* An empty schedule of `nmicros` micro-batches for `graph` (copied), every
 * (block, micro-batch) unplaced; fill it with tessel_schedule_set_step and
 * check it with tessel_schedule_validate. The graph must pass
 * tessel_graph_validate (its error otherwise); 1 <= nmicros <= 10^6 and
 * blocks x nmicros within the library's entry limit (else TESSEL_ERANGE). *out: new, release with tessel_schedule_free. */
TESSEL_API int tessel_schedule_new(tessel_schedule **out,
				   const tessel_graph *graph, int64_t nmicros);

/* Set the start step (0 .. 10^15, else TESSEL_ERANGE) of block `gid`,
 * micro-batch `mid` (TESSEL_ENOTFOUND when either is out of range). */
TESSEL_API int tessel_schedule_set_step(tessel_schedule *schedule, int gid,
					int64_t mid, int64_t step);

/* Release a schedule. NULL is a no-op. */
TESSEL_API void tessel_schedule_free(tessel_schedule *schedule);

/* Check a schedule against its graph: every (block, micro-batch) placed
 * exactly once, the first starting at step 0 (since 1.8.7: the schedule
 * format's rule), devices never doing two blocks at once, dependencies
 * respected within each micro-batch, and memory within the limits at every
 * step. Returns TESSEL_OK, or TESSEL_EVIOLATION with the first violation
 * described in tessel_error_last(); TESSEL_EINVAL for NULL and
 * TESSEL_ENOMEM when the check itself runs out of memory. */
TESSEL_API int tessel_schedule_validate(const tessel_schedule *schedule);

typedef enum tessel_schedule_attr {
	TESSEL_SCHED_NDEVICES = 0,
	TESSEL_SCHED_NBLOCKS = 1,        /* blocks per micro-batch */
	TESSEL_SCHED_NMICROS = 2,        /* micro-batches */
	TESSEL_SCHED_NENTRIES = 3,       /* NBLOCKS * NMICROS */
	TESSEL_SCHED_MAKESPAN = 4,       /* last finish step */
	TESSEL_SCHED_PERIOD = 5,         /* steps of one repetition of the
					  * steady state: P_k for a repetend
					  * of k micro-batches (k =
					  * TESSEL_SCHED_REPETEND_MICRO_BATCHES,
					  * P_k / k steps per micro-batch) */
	TESSEL_SCHED_RESOURCE_BOUND = 6,
	TESSEL_SCHED_PERIOD_OPTIMAL = 7, /* 1 when the period is proven optimal
					  * (for its k: no repetend of k
					  * micro-batches repeats sooner) */
	TESSEL_SCHED_LOWER_BOUND = 8,    /* LB(N) */
	TESSEL_SCHED_REPETEND_BEGIN = 9, /* first step of the steady state */
	TESSEL_SCHED_REPETEND_END = 10,  /* step after the steady state */
	TESSEL_SCHED_DEPTH = 11,         /* length of one micro-batch in the repetend */
	TESSEL_SCHED_SEARCH_MICROSECONDS = 12,
	TESSEL_SCHED_MAKESPAN_OPTIMAL = 13, /* 1 when no schedule of these
					    * micro-batches is shorter (it
					    * meets the lower bound, or the
					    * solver showed one step less
					    * impossible) */
	TESSEL_SCHED_REPETEND_MICRO_BATCHES = 14, /* k: micro-batches the
					    * repetend holds (1 for most; 0
					    * for a schedule built with
					    * tessel_schedule_new); since 1.1 */
	TESSEL_SCHED_WORK = 15,          /* work units the search spent (see
					  * TESSEL_OPT_WORK_LIMIT; 0 for a
					  * schedule built with
					  * tessel_schedule_new); since 1.2 */
	TESSEL_SCHED_PROOF_WORK = 16     /* of TESSEL_SCHED_WORK, the units
					  * spent proving the period minimal
					  * beside the default budget (0 when
					  * no proof ran outside it); since
					  * 1.4 */
} tessel_schedule_attr;

/* Read a figure of a schedule. Figures a schedule does not know (the period
 * of a schedule built with tessel_schedule_new) read as 0. */
TESSEL_API int tessel_schedule_get(int64_t *out,
				   const tessel_schedule *schedule,
				   tessel_schedule_attr attr);

/* Wall-clock seconds the search took. */
TESSEL_API int tessel_schedule_search_seconds(double *out,
					      const tessel_schedule *schedule);

/* Peak memory reached on `device` over the whole schedule. */
TESSEL_API int tessel_schedule_peak_memory(int64_t *out,
					   const tessel_schedule *schedule,
					   int device);

/* The graph the schedule was made for: *out borrowed from the schedule. */
TESSEL_API int tessel_schedule_graph(const tessel_graph **out,
				     const tessel_schedule *schedule);

/* Render the schedule as a text grid: one row per device, one cell per
 * step ("f3" forward of micro-batch 3, "b1-b1-b1" a backward of span 3,
 * "--" idle), "|" around the repetend, then the key figures.
 * *out: new NUL-terminated text, release with tessel_free. */
TESSEL_API int tessel_schedule_to_text(char **out,
				       const tessel_schedule *schedule);

/* Serialise as schedule JSON (doc/formats.md). *out: new NUL-terminated
 * text, release with tessel_free. */
TESSEL_API int tessel_schedule_to_json(char **out,
				       const tessel_schedule *schedule);

/* Parse schedule JSON (with its embedded placement). The result is not
 * validated; call tessel_schedule_validate. *out: new, release with
 * tessel_schedule_free. */
TESSEL_API int tessel_schedule_from_json(tessel_schedule **out,
					 const char *text, size_t length);

/* Same, reading the file at `path`. */
TESSEL_API int tessel_schedule_from_file(tessel_schedule **out,
					 const char *path);

/* ------------------------------------------------------------------------ */
/* Reading a schedule: entries and iterators                                  */
/* ------------------------------------------------------------------------ */

/* One (block, micro-batch) of a schedule. Always borrowed from its
 * schedule. */
typedef struct tessel_entry tessel_entry;

typedef enum tessel_phase {
	TESSEL_PHASE_WARMUP = 0,
	TESSEL_PHASE_REPETEND = 1,
	TESSEL_PHASE_COOLDOWN = 2
} tessel_phase;

typedef enum tessel_entry_attr {
	TESSEL_ENTRY_GID = 0,
	TESSEL_ENTRY_MICRO_BATCH = 1,
	TESSEL_ENTRY_START = 2,
	TESSEL_ENTRY_SPAN = 3,        /* steps the entry runs: its block's span,
				       * plus the extra steps of the recomputes
				       * of its micro-batch it runs (since 1.6) */
	TESSEL_ENTRY_PHASE = 4,       /* a tessel_phase */
	TESSEL_ENTRY_KIND = 5,        /* a tessel_kind */
	TESSEL_ENTRY_MEMORY = 6,      /* memory change when the entry starts:
				       * its block's, less what a recompute
				       * drops, plus what the recomputes it runs
				       * take back (an offload's changes come
				       * with its copies); since 1.6 */
	TESSEL_ENTRY_NDEVICES = 7,
	TESSEL_ENTRY_CHOICE = 8,          /* a tessel_choice (since 1.6) */
	TESSEL_ENTRY_OFFLOAD_START = 9,   /* start step of the offload on the
					   * device's copy channel; -1 unless
					   * the choice is TESSEL_CHOICE_OFFLOAD
					   * (since 1.6) */
	TESSEL_ENTRY_RELOAD_START = 10    /* start step of the reload; -1
					   * unless offloaded (since 1.6) */
} tessel_entry_attr;

typedef struct tessel_iter tessel_iter;

/* Iterate over a schedule's entries: those on `device` in time order, or
 * with TESSEL_ALL_DEVICES every entry once, by start step (ties by device
 * then block id). The schedule must outlive the iterator and not be changed
 * meanwhile. *out: new, release with tessel_iter_free. */
TESSEL_API int tessel_iter_new(tessel_iter **out,
			       const tessel_schedule *schedule, int device);

/* Next entry: *out borrowed from the schedule. Returns TESSEL_ITEROVER (and
 * sets *out to NULL) after the last one. */
TESSEL_API int tessel_iter_next(const tessel_entry **out, tessel_iter *iter);

/* Release an iterator. NULL is a no-op. */
TESSEL_API void tessel_iter_free(tessel_iter *iter);

/* Callback for tessel_schedule_foreach: return 0 to go on, anything else
 * to stop (tessel_schedule_foreach then returns that value unchanged). To
 * tell a stop from the library's own errors, return a positive value: the
 * library's error codes are all negative. */
typedef int (*tessel_entry_cb)(const tessel_entry *entry, void *payload);

/* Call `cb` for each entry in the order tessel_iter_new gives. */
TESSEL_API int tessel_schedule_foreach(const tessel_schedule *schedule,
				       int device, tessel_entry_cb cb,
				       void *payload);

/* Read a figure of an entry. */
TESSEL_API int tessel_entry_get(int64_t *out, const tessel_entry *entry,
				tessel_entry_attr attr);

/* Block name of an entry: *out borrowed from the schedule. */
TESSEL_API int tessel_entry_name(const char **out, const tessel_entry *entry);

/* The index-th device of the entry's block. */
TESSEL_API int tessel_entry_device(int *out, const tessel_entry *entry,
				   size_t index);

/* ------------------------------------------------------------------------ */
/* Action streams: what each device does, communication included             */
/* ------------------------------------------------------------------------ */

/* One action of a device's stream. Always borrowed from its iterator and
 * valid until the iterator's next call to tessel_action_iter_next or its
 * release. */
typedef struct tessel_action tessel_action;

typedef enum tessel_action_kind {
	TESSEL_ACTION_COMPUTE = 0, /* run a block of a micro-batch */
	TESSEL_ACTION_SEND = 1,    /* send a block's output to a peer device */
	TESSEL_ACTION_RECV = 2,    /* receive a dependency's output */
	TESSEL_ACTION_OFFLOAD = 3, /* copy a block's activation to host memory
				    * on the device's copy channel (since 1.6) */
	TESSEL_ACTION_RELOAD = 4,  /* copy it back before its backward (since
				    * 1.6) */
	TESSEL_ACTION_WAIT = 5     /* before the next compute, wait until the
				    * offload of this block and micro-batch
				    * on this device has ended: the compute
				    * takes the memory the offload frees
				    * (step: the offload's end; since 1.8) */
} tessel_action_kind;

typedef enum tessel_action_attr {
	TESSEL_ACTION_KIND = 0,        /* a tessel_action_kind */
	TESSEL_ACTION_GID = 1,         /* compute: the block; send: the producer
					* block; receive: the consumer block */
	TESSEL_ACTION_MICRO_BATCH = 2,
	TESSEL_ACTION_PEER = 3,        /* send/receive: the other device; -1
					* for compute */
	TESSEL_ACTION_PEER_GID = 4,    /* send: the consumer block; receive:
					* the producer block; -1 for compute */
	TESSEL_ACTION_STEP = 5,        /* compute: start step; send: the
					* producer's finish step (when the
					* output leaves); receive: the
					* consumer's start step (when the
					* output is needed) */
	TESSEL_ACTION_LATENCY = 6      /* send/receive: the dependency's
					* latency in steps; the output arrives
					* at the send's step + latency, no
					* later than the receive's step in a
					* valid schedule. 0 for compute.
					* Since 1.1. */
} tessel_action_attr;

typedef struct tessel_action_iter tessel_action_iter;

/* Iterate over the action stream of `device`: its compute actions in time
 * order, each preceded by a receive for every dependency whose block does
 * not occupy `device` and followed by the sends its output needs. The
 * transfer for a dependency a -> c goes from the lowest device of a to each
 * device of c that a does not occupy: that device receives it just before
 * c, the lowest device of a sends it just after a. With offloads, the
 * copies of the device's copy channel stand in time order (an offload
 * before the compute of its step, a reload after it), and on a device
 * with a memory limit a TESSEL_ACTION_WAIT before a compute names an
 * offload that must end before it starts (doc/formats.md, "Action
 * streams"). A runtime can execute the stream top to bottom, posting
 * copies beside the compute. The schedule must outlive the iterator.
 * `device` is one device (not TESSEL_ALL_DEVICES: TESSEL_ENOTFOUND);
 * TESSEL_EINVAL when an entry of the schedule is unplaced.
 * *out: new, release with tessel_action_iter_free. */
TESSEL_API int tessel_action_iter_new(tessel_action_iter **out,
				      const tessel_schedule *schedule,
				      int device);

/* Next action (*out borrowed from the iterator); TESSEL_ITEROVER after the
 * last. */
TESSEL_API int tessel_action_iter_next(const tessel_action **out,
				       tessel_action_iter *iter);

/* Release an action iterator. NULL is a no-op. */
TESSEL_API void tessel_action_iter_free(tessel_action_iter *iter);

/* Read a figure of an action. */
TESSEL_API int tessel_action_get(int64_t *out, const tessel_action *action,
				 tessel_action_attr attr);

/* Every device's action stream as JSON (doc/formats.md): sends and
 * receives carry their "latency" in steps (since 1.1). *out: new
 * NUL-terminated text, release with tessel_free. */
TESSEL_API int tessel_schedule_to_actions_json(char **out,
					       const tessel_schedule *schedule);

/* ------------------------------------------------------------------------ */
/* Exports                                                                    */
/* ------------------------------------------------------------------------ */

/* The schedule as the CSV that torch.distributed.pipelining reads
 * (_PipelineScheduleRuntime._load_csv): one row per rank (device), actions
 * in execution order, each "{stage}{F|B|I|W}{micro-batch}"; with
 * `with_comms` = 1 also SEND_F / RECV_F / SEND_B / RECV_B actions, each
 * receive posted when its producer finishes, and {stage}REDUCE_GRAD after
 * each stage's last backward (since 1.1). Stages come from the blocks'
 * stage numbers, or when no block has one from the forward chain (since
 * 1.1; doc/formats.md). TESSEL_EUNSUPPORTED, naming the block or stage,
 * where PyTorch's model does not fit (a block on several devices, two
 * pipelines, a stage on two devices or without a backward, blocks with and
 * without a stage, stage numbers against the dependencies (since
 * 1.8.7: PyTorch runs a micro-batch's forwards in stage order and its
 * backwards in reverse, and would wait forever), and with `with_comms`
 * a dependency across devices other than a forward to the next stage or
 * a backward to the previous one).
 * *out: new NUL-terminated text, release with tessel_free. */
TESSEL_API int tessel_schedule_to_torch_csv(char **out,
					    const tessel_schedule *schedule,
					    int with_comms);

/* Whether tessel_schedule_to_torch_csv can export schedules of `graph`
 * (since 1.1): TESSEL_OK, or the TESSEL_EUNSUPPORTED it would give, with
 * the same message (a block on several devices, two pipelines, a stage on
 * two devices or without a backward, ...), so that a caller can refuse
 * before searching. `with_comms` as there. A graph that is not valid
 * (no blocks, a block on no device, a dependency cycle, an alternative
 * that breaks the rules) gets the error tessel_graph_validate gives for
 * it, same code and message, first; its memory limits are not checked
 * (they do not change what the CSV can express). */
TESSEL_API int tessel_graph_check_torch(const tessel_graph *graph,
					int with_comms);

/* The schedule in the Chrome trace event format (Perfetto reads it):
 * complete "X" events, one named track per device in one named process,
 * `step_us` microseconds per step (> 0), and for each dependency whose
 * latency counts a flow ("s" in the producer, "f" at the consumer's start,
 * the latency and the arrival in its arguments; since 1.1). step_us = 0
 * (since 1.1): real time from the placement, its step times its unit when
 * it has a step and its unit is "s", "ms", "us" (or U+00B5 MICRO SIGN
 * then "s") or "ns", else 1000 microseconds per step. TESSEL_EINVAL for
 * a negative or NaN step_us, TESSEL_ERANGE when the times overflow.
 * *out: new NUL-terminated text, release with tessel_free. */
TESSEL_API int tessel_schedule_to_trace_json(char **out,
					     const tessel_schedule *schedule,
					     double step_us);

/* The schedule as an SVG picture: one row per device (20 px), blocks as
 * rectangles coloured by kind and shaded by micro-batch (four lightnesses
 * in turn, micro-batch mod 4), the repetend as a grey band, a legend, the
 * key figures in the title and a time axis in the placement's unit when it
 * has a step and a unit (else in steps), ticks 1, 2 or 5 times a power of
 * ten apart. At most 24 px per step and never wider than 1600 px, so drawn
 * 1600 px wide nothing is scaled down. A block is labelled with its
 * micro-batch only where that fits in type of 8 px or more; every block
 * has a tooltip (name, micro-batch, steps and, with a unit, times) up to
 * 200,000 rectangles, beyond which the picture is drawn without them and
 * says so. *out: new NUL-terminated text, release with tessel_free. */
TESSEL_API int tessel_schedule_to_svg(char **out,
				      const tessel_schedule *schedule);

/* Streamed exports (since 1.3): the same texts as the tessel_schedule_to_*
 * functions, handed to a writer in pieces as they are made, so that a
 * large schedule is never held whole in memory. */

/* A writer: called with consecutive pieces of the text (length > 0, not
 * NUL-terminated, valid only during the call); return 0 to go on, anything
 * else to stop the export, which then returns TESSEL_EIO. */
typedef int (*tessel_write_fn)(void *payload, const char *data,
			       size_t length);

typedef enum tessel_format {
	TESSEL_FORMAT_TEXT = 0,        /* tessel_schedule_to_text */
	TESSEL_FORMAT_JSON = 1,        /* tessel_schedule_to_json */
	TESSEL_FORMAT_ACTIONS = 2,     /* tessel_schedule_to_actions_json */
	TESSEL_FORMAT_TORCH = 3,       /* tessel_schedule_to_torch_csv, 0 */
	TESSEL_FORMAT_TORCH_COMMS = 4, /* tessel_schedule_to_torch_csv, 1 */
	TESSEL_FORMAT_TRACE = 5,       /* tessel_schedule_to_trace_json */
	TESSEL_FORMAT_SVG = 6          /* tessel_schedule_to_svg */
} tessel_format;

/* Export `schedule` in `format` through `write` (called with `payload`).
 * step_us: for TESSEL_FORMAT_TRACE as tessel_schedule_to_trace_json takes
 * it; 0 for the other formats. The checks of the matching
 * tessel_schedule_to_* function come first: their errors are returned
 * before anything is written. TESSEL_EINVAL for an unknown format, a NULL
 * schedule or writer, or a nonzero step_us outside TESSEL_FORMAT_TRACE;
 * TESSEL_EIO when `write` stopped the export (some pieces may have been
 * written: the caller discards them); TESSEL_ENOMEM. Since 1.3. */
TESSEL_API int tessel_schedule_write(const tessel_schedule *schedule,
				     tessel_format format, double step_us,
				     tessel_write_fn write, void *payload);

/* ------------------------------------------------------------------------ */
/* Simulation with real durations                                             */
/* ------------------------------------------------------------------------ */

typedef struct tessel_simulation tessel_simulation;

typedef enum tessel_sim_attr {
	TESSEL_SIM_MAKESPAN = 0,   /* device ignored */
	TESSEL_SIM_BUSY = 1,       /* time the device computes */
	TESSEL_SIM_IDLE = 2,       /* makespan minus busy */
	TESSEL_SIM_PEAK_MEMORY = 3 /* peak memory of the device */
} tessel_sim_attr;

/* Replay the schedule's per-device order with real durations: durations[g]
 * is block g's duration (count = number of blocks; NULL: the placement's
 * own, see below), each multiplied by a factor drawn uniformly from
 * [1 - jitter, 1 + jitter] (0 <= jitter < 1) with the given seed. Each
 * device runs its blocks in the schedule's order, each as soon as its
 * dependencies have arrived: a dependency arrives when its producer
 * finishes, plus its latency from the placement where it counts (the
 * consumer occupies a device the producer does not), plus `latency` when
 * producer and consumer share no device.
 * Units: with a step (tessel_graph_set_step) every time is in the
 * placement's unit (tessel_graph_unit): NULL durations mean each block's
 * duration, or its span times the step when it has none; latencies are
 * those given in the unit, or their steps times the step. Without a step
 * times are in steps: NULL durations mean the spans. `durations`,
 * `latency` and the figures of the result are in that same unit.
 * TESSEL_EINVAL for an unplaced entry or count != number of blocks,
 * TESSEL_ERANGE for a duration, latency or jitter out of range, or times
 * that overflow a double as the replay adds them up (since 1.7.1),
 * TESSEL_EVIOLATION when the device orders contradict the dependencies
 * (the replay cannot go on). *out: new, release with tessel_simulation_free. */
TESSEL_API int tessel_simulate(tessel_simulation **out,
			       const tessel_schedule *schedule,
			       const double *durations, size_t count,
			       double latency, double jitter, uint64_t seed);

/* Release a simulation. NULL is a no-op. */
TESSEL_API void tessel_simulation_free(tessel_simulation *sim);

/* Read a figure of a simulation (`device` is ignored for the makespan). */
TESSEL_API int tessel_simulation_get(double *out,
				     const tessel_simulation *sim,
				     tessel_sim_attr attr, int device);

/* Durations per block from JSON: an object mapping block names to numbers
 * (> 0); blocks not named keep their duration in the placement's unit
 * (tessel_graph_block_duration: the duration given, else the span times
 * the step, else the span). TESSEL_EPARSE for malformed
 * JSON, TESSEL_ENOTFOUND for a name that is no block, TESSEL_ERANGE for a
 * duration that is not a finite number > 0. *out: new array of one double
 * per block, release with tessel_free. */
TESSEL_API int tessel_durations_from_json(double **out,
					  const tessel_graph *graph,
					  const char *text, size_t length);

/* ------------------------------------------------------------------------ */
/* Schedules saved by the public Tessel reference implementation              */
/* ------------------------------------------------------------------------ */

/* Read a schedule saved by the reference implementation ("ndevs",
 * "repetend", blocks with "mid", "span", "memory", "btype", "gid", "step",
 * "device"; gid = index of the block in `placement`) for the placement it
 * was made for. Fields are checked against the placement; the timing is
 * not (call tessel_schedule_validate). *out: new, release with
 * tessel_schedule_free. */
TESSEL_API int tessel_schedule_from_reference_json(tessel_schedule **out,
						   const tessel_graph *placement,
						   const char *text,
						   size_t length);

/* ------------------------------------------------------------------------ */
/* Model profiles and the exploration of placements (since 1.5)              */
/* ------------------------------------------------------------------------ */

/* A model as measured: its layers with their forward, backward and
 * weight-gradient times, the activation each keeps per micro-batch and
 * the parameter memory it holds, and the devices, memory, transfer time
 * and micro-batches to place it on (doc/formats.md, "Model profile"). */
typedef struct tessel_model tessel_model;

/* Read a model profile from `length` bytes of JSON. Errors name the field
 * or layer (TESSEL_EPARSE, TESSEL_ERANGE). *out: new, release with
 * tessel_model_free. Since 1.5. */
TESSEL_API int tessel_model_from_json(tessel_model **out, const char *text,
				      size_t length);

/* Read a model profile from a file (TESSEL_EIO when it cannot be read;
 * messages start with the path). *out: new, release with
 * tessel_model_free. Since 1.5. */
TESSEL_API int tessel_model_from_file(tessel_model **out, const char *path);

/* Release a model. NULL is a no-op. Since 1.5. */
TESSEL_API void tessel_model_free(tessel_model *model);

typedef enum tessel_model_attr {
	TESSEL_MODEL_DEVICES = 0,
	TESSEL_MODEL_LAYERS = 1,
	TESSEL_MODEL_MICRO_BATCHES = 2,
	TESSEL_MODEL_INFERENCE = 3    /* 1: "mode": "inference" */
} tessel_model_attr;

/* Read a figure of a model. Since 1.5. */
TESSEL_API int tessel_model_get(int64_t *out, const tessel_model *model,
				tessel_model_attr attr);

/* The model's unit of time and of memory ("GB" when it gives none), each
 * borrowed from the model (either out-parameter may be NULL). Since 1.5. */
TESSEL_API int tessel_model_units(const char **out_unit,
				  const char **out_memory_unit,
				  const tessel_model *model);

/* An exploration: for one model, a candidate placement per placement
 * family (pipeline, zero-bubble, interleaved-2 and -4, v-shape, chimera,
 * m-shape, nn-shape, k-shape, tp2, tp4, tp8 (since 1.7.7); doc/guide.md,
 * "Exploring placements"), its
 * layers partitioned into stages by dynamic programming to balance the
 * stages' time under each device's memory, plus the published GPipe and
 * 1F1B orders on their own best partitions as baselines ("gpipe",
 * "1f1b"; in inference one, "pipeline-order"). tessel_explore_run
 * searches every candidate and ranks them by time per training step
 * (inference: the latency of the micro-batches). */
typedef struct tessel_explore tessel_explore;

/* Called by tessel_explore_run each time a candidate is done, from the
 * thread that ran it, one call at a time: its family, its time (-1 when
 * it has no schedule), the work its search spent, `reason` ("" or why it
 * has no schedule), and how many of `total` are done. Return nonzero to
 * stop the exploration (the candidates done so far are kept). Once the
 * exploration stops (this return, tessel_options_cancel on its options,
 * from the callback too, or tessel_explore_free) no call of the callback
 * begins (since 1.8.8); a call another thread began before may still be
 * under way. */
typedef int (*tessel_explore_fn)(const char *family, double time,
				 int64_t work, const char *reason, size_t done,
				 size_t total, void *payload);

/* The candidates of `model`: families, partitions and placements (no
 * search yet; the model is not needed afterwards). A family the model
 * cannot use (too few layers, no tensor-parallel cost, the memory) is a
 * candidate without a placement, with its reason. *out: new, release
 * with tessel_explore_free. Since 1.5. */
TESSEL_API int tessel_explore_new(tessel_explore **out,
				  const tessel_model *model);

/* Release an exploration. NULL is a no-op. Since 1.5.
 * While a call uses the exploration (tessel_explore_run, from its
 * progress callback or from another thread; tessel_explore_to_json from
 * another thread) the free is deferred: it returns at once, a run stops
 * as a cancel stops it (the searches under way cancelled, no candidate
 * started, the progress callback not called again), and the call frees
 * the exploration as it returns (tessel_explore_run then returns
 * TESSEL_ECANCELLED, "freed"; tessel_explore_to_json's text is complete).
 * Either way the handle is gone once the free is asked: neither the
 * caller of the free nor that of the call under way may use it again,
 * and a second free while the call runs changes nothing. */
TESSEL_API void tessel_explore_free(tessel_explore *explore);

/* Set (fn NULL: clear) the progress callback of tessel_explore_run.
 * Since 1.5. */
TESSEL_API int tessel_explore_set_progress(tessel_explore *explore,
					   tessel_explore_fn fn,
					   void *payload);

/* Search every candidate that has a placement (the baselines: their order
 * as early as possible), up to TESSEL_OPT_THREADS at a time, each with
 * the options given (NULL: defaults) except: its own micro-batches (the
 * model's; half as many pairs for chimera), one thread, a share of the
 * work budget (TESSEL_WORK_AUTO: each its own default budget; a budget
 * set: that budget over the candidates searched), what is left of the
 * time limit, which caps the whole exploration, and no progress callback
 * of the options' (tessel_explore_set_progress reports each candidate). Then rank: candidates
 * with a schedule by time (ties in the order of the families), the others
 * after them. Results are deterministic under a work budget.
 * tessel_options_cancel on the options (or the progress callback) stops
 * it: candidates done are kept. Returns TESSEL_OK when a candidate has a
 * schedule, else TESSEL_ECANCELLED, TESSEL_ETIMEOUT, or TESSEL_EINFEASIBLE
 * (no family fits). Runs again from scratch when called again.
 * TESSEL_EINVAL while another call uses the exploration. A
 * tessel_explore_free during the run (from the callback or another
 * thread) stops it and frees the exploration as the run returns:
 * TESSEL_ECANCELLED, whatever was found, and the handle is gone. Since
 * 1.5. */
TESSEL_API int tessel_explore_run(tessel_explore *explore,
				  const tessel_options *options);

/* Number of candidates. Index 0 .. count-1 below: the rank after
 * tessel_explore_run (0 the fastest), the order of the families before.
 * Since 1.5. */
TESSEL_API int tessel_explore_count(size_t *out,
				    const tessel_explore *explore);

/* Family name of candidate `index` ("pipeline", "interleaved-2", "1f1b",
 * ...): borrowed from the exploration. Since 1.5. */
TESSEL_API int tessel_explore_family(const char **out,
				     const tessel_explore *explore,
				     size_t index);

/* Why candidate `index` has no placement or no schedule ("" when it has
 * one): borrowed from the exploration. Since 1.5. */
TESSEL_API int tessel_explore_reason(const char **out,
				     const tessel_explore *explore,
				     size_t index);

typedef enum tessel_explore_attr {
	TESSEL_EXPLORE_TIME = 0,          /* time per step (inference: latency)
					   * in the model's unit; -1: none */
	TESSEL_EXPLORE_PEAK_MEMORY = 1,   /* highest memory of a device:
					   * parameters and activations at the
					   * schedule's peak; -1: none */
	TESSEL_EXPLORE_SPEEDUP_1F1B = 2,  /* the 1f1b baseline's time over
					   * this one (inference: the
					   * pipeline order's); 0: unknown */
	TESSEL_EXPLORE_SPEEDUP_GPIPE = 3, /* the gpipe baseline's time over
					   * this one; 0: unknown */
	TESSEL_EXPLORE_STAGES = 4,        /* stages of the placement (0: none) */
	TESSEL_EXPLORE_CHUNKS = 5,        /* pipelined stages per device */
	TESSEL_EXPLORE_TENSOR_PARALLEL = 6, /* devices of its widest stage */
	TESSEL_EXPLORE_REPLICAS = 7,      /* 2: two pipelines (chimera) */
	TESSEL_EXPLORE_MICRO_BATCHES = 8, /* of the placement (pairs for
					   * chimera) */
	TESSEL_EXPLORE_BASELINE = 9,      /* 1: a published order, not a
					   * search */
	TESSEL_EXPLORE_WORK = 10,         /* work units its search spent */
	TESSEL_EXPLORE_SECONDS = 11       /* wall-clock seconds it took */
} tessel_explore_attr;

/* Read a figure of candidate `index`. Since 1.5. */
TESSEL_API int tessel_explore_get(double *out, const tessel_explore *explore,
				  size_t index, tessel_explore_attr attr);

/* Memory of `device` at the peak of candidate `index`'s schedule,
 * parameters included, in the model's memory unit (-1: no schedule).
 * Since 1.5. */
TESSEL_API int tessel_explore_device_memory(double *out,
					    const tessel_explore *explore,
					    size_t index, int device);

/* The placement of candidate `index`: borrowed from the exploration, NULL
 * (TESSEL_ENOTFOUND, the reason in the message) when it has none. Its
 * block names are f<s>, b<s>, w<s> (rf<s>, ... for chimera's second
 * pipeline) with their stage numbers. Since 1.5. */
TESSEL_API int tessel_explore_graph(const tessel_graph **out,
				    const tessel_explore *explore,
				    size_t index);

/* The schedule of candidate `index`: borrowed from the exploration, NULL
 * (TESSEL_ENOTFOUND) when it has none. Since 1.5. */
TESSEL_API int tessel_explore_schedule(const tessel_schedule **out,
				       const tessel_explore *explore,
				       size_t index);

/* The exploration as JSON (doc/formats.md, "Exploration"): the model's
 * figures and every candidate in rank order with its stages (their
 * layers and devices), figures and placement; with `with_schedules`, each
 * candidate's schedule too. *out: new,
 * release with tessel_free. Since 1.5. */
TESSEL_API int tessel_explore_to_json(char **out,
				      const tessel_explore *explore,
				      int with_schedules);

/* ------------------------------------------------------------------------ */
/* Published schedules (since 1.5)                                           */
/* ------------------------------------------------------------------------ */

/* The published pipeline schedules, rebuilt from their papers and
 * reference code: "gpipe", "1f1b", "zb-h1", "zb-h2", "zb-v", "v-half",
 * "v-min", "dualpipe", "dualpipe-v", "interleaved", "chimera"
 * (doc/guide.md, "The published suite": the placements' conventions). A
 * published schedule is the family's per-device order executed as early
 * as possible. */

/* Number of published families. Since 1.5. */
TESSEL_API size_t tessel_published_count(void);

/* Name and one-line description of family `index` (static strings;
 * either out-parameter may be NULL). TESSEL_ENOTFOUND past the last.
 * Since 1.5. */
TESSEL_API int tessel_published_info(const char **out_name,
				     const char **out_description,
				     size_t index);

/* The published schedule of `family` on its own placement: D = `devices`
 * (2 .. 1024) stages of spans `forward`, `backward` and `weight` (the
 * families that split the backward; ignored by the others), `chunks`
 * stages a device for "interleaved" (>= 2; ignored by the others),
 * `latency` steps on every dependency between devices, for
 * `micro_batches` model micro-batches (1 .. 100000; the bidirectional
 * families pair them, so their schedule holds half as many). The
 * schedule's graph (tessel_schedule_graph) is the placement, its memory
 * limit on every device the schedule's highest peak, so that
 * tessel_search on it compares a search with the family under the same
 * memory. TESSEL_ENOTFOUND for an unknown family, TESSEL_EINVAL (the
 * reason in the message) for parameters the family does not take (e.g.
 * DualPipe needs an even D and N >= 2D). *out: new, release with
 * tessel_schedule_free. Since 1.5. */
TESSEL_API int tessel_published(tessel_schedule **out, const char *family,
				int devices, int64_t micro_batches,
				int forward, int backward, int weight,
				int chunks, int latency);

/* The published order of `family` replayed on `placement`, which must have
 * the blocks, devices, memory deltas and dependencies of that family's
 * placement (tessel_published's, gid by gid; "interleaved": 2 .. 8
 * chunks, found from the placement) but may have spans, latencies and
 * memory limits of its own (profiled stages, a slow link), for
 * `micro_batches` micro-batches of the placement. The result is checked
 * (tessel_schedule_validate): an order that breaks the placement's memory
 * limits gives TESSEL_EVIOLATION with the first violation. TESSEL_EINVAL
 * when the placement is not the family's. *out: new, release with
 * tessel_schedule_free. Since 1.5. */
TESSEL_API int tessel_published_on(tessel_schedule **out,
				   const tessel_graph *placement,
				   const char *family, int64_t micro_batches);

/* ------------------------------------------------------------------------ */
/* Memory-time alternatives: recomputation and offload (since 1.6)           */
/* ------------------------------------------------------------------------ */

/* What a schedule does with the activation of one instance (block,
 * micro-batch) of a block that declares alternatives. */
typedef enum tessel_choice {
	TESSEL_CHOICE_KEEP = 0,      /* kept in device memory until the backward */
	TESSEL_CHOICE_RECOMPUTE = 1, /* dropped after the forward: the block's
				      * memory delta is `saves` smaller, the
				      * backward runs `extra` steps longer and
				      * takes `saves` back when it starts */
	TESSEL_CHOICE_OFFLOAD = 2    /* copied to host memory after the forward
				      * and back before the backward over the
				      * device's copy channel: `saves` is freed
				      * when the offload ends and taken again
				      * when the reload starts */
} tessel_choice;

/* Declare that block `gid` may drop `saves` (1 .. its memory) of its
 * activation and have it recomputed: the backward block `backward` (on the
 * same devices, depending on `gid` through the graph) then runs `extra`
 * steps longer (0 .. TESSEL_MAX_SPAN). A search chooses per micro-batch
 * whether to use it (TESSEL_OPT_ALTERNATIVES). backward = -1 removes the
 * declaration. TESSEL_ENOTFOUND for an unknown block, TESSEL_ERANGE for a
 * figure out of range, TESSEL_EINVAL when the backward is the block itself
 * or on other devices. Whether the backward depends on the block is
 * checked by tessel_graph_validate. Since 1.6. */
TESSEL_API int tessel_graph_set_recompute(tessel_graph *graph, int gid,
					  int backward, int saves, int extra);

/* Declare that block `gid` may offload `saves` (1 .. its memory) of its
 * activation to host memory after it finishes and have it reloaded before
 * `backward` starts; each copy takes `transfer` steps (1 ..
 * TESSEL_MAX_SPAN) on the copy channel of each of the block's devices (one
 * copy at a time per device, beside the compute). backward = -1 removes
 * the declaration. Errors as tessel_graph_set_recompute. Since 1.6. */
TESSEL_API int tessel_graph_set_offload(tessel_graph *graph, int gid,
					int backward, int saves, int transfer);

/* The recompute alternative of block `gid`: its backward, saves and extra
 * steps (any out-parameter may be NULL). TESSEL_ENOTFOUND when the block
 * declares none (out-parameters then -1). Since 1.6. */
TESSEL_API int tessel_graph_block_recompute(int *out_backward, int *out_saves,
					    int *out_extra,
					    const tessel_graph *graph, int gid);

/* The offload alternative of block `gid`: its backward, saves and transfer
 * steps, as tessel_graph_block_recompute. Since 1.6. */
TESSEL_API int tessel_graph_block_offload(int *out_backward, int *out_saves,
					  int *out_transfer,
					  const tessel_graph *graph, int gid);

/* Choose what micro-batch `mid` of block `gid` does with its activation:
 * TESSEL_CHOICE_KEEP (offload_step and reload_step ignored), _RECOMPUTE
 * (the block must declare it) or _OFFLOAD (the block must declare it;
 * offload_step and reload_step are the copies' start steps, 0 .. 10^15).
 * A new schedule keeps every activation. TESSEL_ENOTFOUND for an unknown
 * entry, TESSEL_EINVAL for an undeclared or unknown choice,
 * TESSEL_ERANGE for a step out of range. tessel_schedule_validate checks
 * the copies' times. Since 1.6. */
TESSEL_API int tessel_schedule_set_choice(tessel_schedule *schedule, int gid,
					  int64_t mid, tessel_choice choice,
					  int64_t offload_step,
					  int64_t reload_step);

/* "keep", "recompute" or "offload" (static string; "?" for another
 * value), as the schedule JSON spells a choice. Since 1.6. */
TESSEL_API const char *tessel_choice_name(tessel_choice choice);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_H */
