/* tessel search: build or read a placement, find a schedule, print it. */
#include "cli.h"
#include "cli_sweep.h"

#include <tessel.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The built-in default: tessel search with no arguments. */
#define DEFAULT_PRESET "mshape"
#define DEFAULT_DEVICES 4
#define DEFAULT_MEMORY TESSEL_PRESET_MEMORY

static const char search_usage[] =
	"Usage: tessel search [PLACEMENT.json] [OPTIONS]\n"
	"\n"
	"Find a schedule of minimal period for a placement read from\n"
	"PLACEMENT.json (doc/formats.md) or built from a preset. With neither,\n"
	"search preset " DEFAULT_PRESET " on 4 devices, memory 6, 16 micro-batches,\n"
	"training.\n"
	"\n"
	"Placement:\n"
	"  -p, --preset NAME         built-in placement (see 'tessel presets')\n"
	"  -d, --devices D           devices of the preset (default 4)\n"
	"  -m, --memory M            memory limit of every device: an integer\n"
	"                            >= 0, 'unlimited', 'min': the smallest equal\n"
	"                            limit under which any schedule exists, or\n"
	"                            'auto': the smallest under which the period\n"
	"                            can reach the resource bound (preset default:\n"
	"                            3 per 2 devices, 6 on 4; overrides the limits\n"
	"                            of PLACEMENT.json)\n"
	"      --sweep LIMITS        search under each of these memory limits\n"
	"                            (comma-separated, as --memory takes them:\n"
	"                            integers or 'unlimited'; at most 1024):\n"
	"                            makespans that never grow with the limit;\n"
	"                            writes a table, or with --format json\n"
	"                            {\"sweep\": [{\"memory_limit\", \"schedule\"}]}\n"
	"      --infer               inference variant of the preset\n"
	"Search:\n"
	"  -n, --micro-batches N     micro-batches to schedule (default 16)\n"
	"  -w, --work-limit UNITS    work budget of the search, in work units\n"
	"                            (about a millisecond each; the same count on\n"
	"                            every machine, so the same schedule): 0 none,\n"
	"                            'auto' (the default): 3 per instance\n"
	"                            (blocks x micro-batches) up to 1500 on up to\n"
	"                            8 devices, 250 more a device above, at most\n"
	"                            5000; plus 4 per 1000 instances\n"
	"  -t, --time-limit SECONDS  wall-clock cap on top of the work budget\n"
	"                            (may be fractional; default 0: no limit);\n"
	"                            the best schedule so far is returned\n"
	"  -j, --threads N           threads for the final compaction and for the\n"
	"                            heuristic mode's search beside the others\n"
	"                            (default 0: all cores); the result does not\n"
	"                            depend on it\n"
	"      --fast                heuristics only, no solver\n"
	"      --repetend-micro-batches K\n"
	"                            largest number of micro-batches in one\n"
	"                            repetend (1 .. 16, default 8)\n"
	"      --recompute           declare a recompute on every forward block\n"
	"                            that has none (the whole activation, the\n"
	"                            forward's span again in its backward)\n"
	"      --offload STEPS       declare an offload on every forward block\n"
	"                            that has none (the whole activation, STEPS a\n"
	"                            copy on the device's copy channel)\n"
	"      --alternatives MODE   search (default): choose per micro-batch\n"
	"                            among the declared alternatives; off: keep\n"
	"                            every activation; always: take every\n"
	"                            declared alternative (a fixed rule)\n"
	"      --solver-memory MB    cap on the solver's memory per check (default\n"
	"                            0: none); reaching it ends the solver's part\n"
	"                            like the time limit\n"
	"Output:\n"
	"      --format FORMAT       text (default): a grid; json: schedule JSON;\n"
	"                            actions: per-device action streams (JSON);\n"
	"                            torch, torch-comms: PyTorch pipelining CSV\n"
	"                            (without, with send/receive actions);\n"
	"                            trace: Chrome trace events (Perfetto);\n"
	"                            svg: a picture\n"
	"      --step-us N           trace: microseconds per step (default: the\n"
	"                            placement's step in its unit of time when\n"
	"                            it has both, else 1000)\n"
	"  -o, --output FILE         write to FILE instead of the standard output\n"
	"                            ('-': the standard output)\n"
	"      --progress            report progress on stderr (the default when\n"
	"                            stderr is a terminal): elapsed time, the\n"
	"                            phase, the work spent of the budget, and the\n"
	"                            best schedule's period, makespan and gap to\n"
	"                            the lower bound; on a terminal one line kept\n"
	"                            up to date, otherwise a line per change and\n"
	"                            every 5 s a reminder (its work as of the\n"
	"                            last report)\n"
	"  -q, --quiet               no progress report\n"
	"  -h, --help                show this help and exit\n"
	"  -V, --version             show the version and exit\n"
	"\n"
	"PLACEMENT.json '-' is the standard input.\n"
	"SIGINT (Ctrl-C) or SIGTERM stops the search: the best schedule found so\n"
	"far is written as usual, a notice goes to stderr, and the exit status is\n"
	"130 (SIGINT) or 143 (SIGTERM). A second signal ends at once.\n"
	"\n"
	"Exit status: 0 schedule found, 1 no schedule within the limits or the\n"
	"time limit, 2 bad usage or bad input, 130 / 143 interrupted.\n";

enum output_format {
	FORMAT_TEXT,
	FORMAT_JSON,
	FORMAT_ACTIONS,
	FORMAT_TORCH,
	FORMAT_TORCH_COMMS,
	FORMAT_TRACE,
	FORMAT_SVG
};

static const struct {
	const char *name;
	enum output_format format;
} format_names[] = {
	{ "text", FORMAT_TEXT },
	{ "json", FORMAT_JSON },
	{ "actions", FORMAT_ACTIONS },
	{ "torch", FORMAT_TORCH },
	{ "torch-comms", FORMAT_TORCH_COMMS },
	{ "trace", FORMAT_TRACE },
	{ "svg", FORMAT_SVG },
};

/* Microseconds per step of --format trace by default: the placement's
 * step in its unit, or 1 ms (tessel_schedule_to_trace_json with 0). */
#define DEFAULT_STEP_US 0.0

/* Long options without a short form. */
enum { OPT_INFER = 256, OPT_FAST, OPT_FORMAT, OPT_STEP_US, OPT_SOLVER_MEMORY,
       OPT_GROUP, OPT_PROGRESS, OPT_RECOMPUTE, OPT_OFFLOAD, OPT_ALTERNATIVES,
       OPT_SWEEP };

static const struct option search_options[] = {
	{ "preset", required_argument, NULL, 'p' },
	{ "devices", required_argument, NULL, 'd' },
	{ "memory", required_argument, NULL, 'm' },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "infer", no_argument, NULL, OPT_INFER },
	{ "micro-batches", required_argument, NULL, 'n' },
	{ "time-limit", required_argument, NULL, 't' },
	{ "work-limit", required_argument, NULL, 'w' },
	{ "threads", required_argument, NULL, 'j' },
	{ "fast", no_argument, NULL, OPT_FAST },
	{ "solver-memory", required_argument, NULL, OPT_SOLVER_MEMORY },
	{ "recompute", no_argument, NULL, OPT_RECOMPUTE },
	{ "offload", required_argument, NULL, OPT_OFFLOAD },
	{ "alternatives", required_argument, NULL, OPT_ALTERNATIVES },
	{ "repetend-micro-batches", required_argument, NULL, OPT_GROUP },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "step-us", required_argument, NULL, OPT_STEP_US },
	{ "output", required_argument, NULL, 'o' },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

struct search_args {
	const char *file;            /* NULL: use a preset */
	const char *preset;          /* NULL: not given */
	int64_t devices;             /* 0: not given */
	int64_t memory;
	int memory_given;
	int memory_auto;             /* --memory auto */
	int memory_min;              /* --memory min */
	int infer;
	enum output_format format;
	double step_us;              /* --format trace */
	int step_us_given;
	const char *output;          /* NULL: stdout */
	int progress;                /* -1 when stderr is a terminal, 0 no, 1 yes */
	int recompute;               /* --recompute */
	int64_t offload;             /* --offload STEPS (0: not given) */
	int64_t *sweep;              /* --sweep: the limits (NULL: none) */
	size_t nsweep;
	tessel_options *options;
};

/* Set a search option from the command line; -1 with the reason printed. */
static int set_option(struct search_args *a, tessel_option key,
		      const char *option, int64_t value)
{
	int rc = tessel_options_set(a->options, key, value);

	if (rc) {
		cli_error("%s: %s", option, tessel_error_last());
		return -1;
	}
	return 0;
}

/* An integer option checked against the library's own bounds. */
static int int_option(struct search_args *a, tessel_option key,
		      const char *option, const char *arg)
{
	int64_t min = INT64_MIN, max = INT64_MAX, v;

	tessel_options_bounds(&min, &max, key);
	if (cli_parse_int(&v, option, arg, min, max))
		return -1;
	return set_option(a, key, option, v);
}

static int time_limit_option(struct search_args *a, const char *arg)
{
	int64_t max_ms = INT64_MAX, ms;

	if (cli_parse_seconds(&ms, "--time-limit", arg))
		return -1;
	tessel_options_bounds(NULL, &max_ms, TESSEL_OPT_TIME_LIMIT_MS);
	if (ms > max_ms) {
		cli_error("--time-limit: %s is out of range [0, %lld] seconds",
			  arg, (long long)(max_ms / 1000));
		return -1;
	}
	return set_option(a, TESSEL_OPT_TIME_LIMIT_MS, "--time-limit", ms);
}

static int memory_option(struct search_args *a, const char *arg)
{
	a->memory_given = 1;
	a->memory_auto = 0;
	a->memory_min = 0;
	if (strcmp(arg, "unlimited") == 0) {
		a->memory = TESSEL_UNLIMITED;
		return 0;
	}
	if (strcmp(arg, "auto") == 0) {
		/* found on the placement without limits (auto_memory) */
		a->memory_auto = 1;
		a->memory = TESSEL_UNLIMITED;
		return 0;
	}
	if (strcmp(arg, "min") == 0) {
		/* found on the placement without limits (min_memory) */
		a->memory_min = 1;
		a->memory = TESSEL_UNLIMITED;
		return 0;
	}
	return cli_parse_int(&a->memory, "--memory", arg, 0, (int64_t)1 << 50);
}

static int format_option(struct search_args *a, const char *arg)
{
	size_t n = sizeof format_names / sizeof format_names[0];

	for (size_t i = 0; i < n; i++)
		if (strcmp(arg, format_names[i].name) == 0) {
			a->format = format_names[i].format;
			return 0;
		}
	cli_error("--format: '%s' is not text, json, actions, torch, "
		  "torch-comms, trace or svg", arg);
	return -1;
}

/* A finite number > 0 of microseconds per step. */
static int step_us_option(struct search_args *a, const char *arg)
{
	double v = 0;
	if (cli_parse_real(&v, "--step-us", arg, -INFINITY, INFINITY, 0))
		return -1;
	if (!(v > 0)) {
		cli_error("--step-us: %s is out of range (a number > 0)", arg);
		return -1;
	}
	a->step_us = v;
	a->step_us_given = 1;
	return 0;
}

/* --alternatives search|off|always. */
static int alternatives_option(struct search_args *a, const char *arg)
{
	static const char *const names[] = {"off", "search", "always"};
	for (int i = 0; i < 3; i++)
		if (strcmp(arg, names[i]) == 0)
			return set_option(a, TESSEL_OPT_ALTERNATIVES,
					  "--alternatives", i);
	cli_error("--alternatives: '%s' is not search, off or always", arg);
	return -1;
}

/* Apply one option; 0, or -1 with the reason printed. */
static int apply_option(struct search_args *a, int c, const char *arg)
{
	switch (c) {
	case 'p':
		a->preset = arg;
		return 0;
	case 'd':
		return cli_parse_int(&a->devices, "--devices", arg, 2,
				     TESSEL_MAX_DEVICES);
	case 'm':
		return memory_option(a, arg);
	case OPT_SWEEP:
		return cli_sweep_parse(&a->sweep, &a->nsweep, arg);
	case OPT_INFER:
		a->infer = 1;
		return 0;
	case 'n':
		return int_option(a, TESSEL_OPT_MICRO_BATCHES,
				  "--micro-batches", arg);
	case 't':
		return time_limit_option(a, arg);
	case 'w':
		if (strcmp(arg, "auto") == 0)
			return set_option(a, TESSEL_OPT_WORK_LIMIT, "--work-limit",
					  TESSEL_WORK_AUTO);
		/* 0 .. the library's largest, or "auto" (not its value, -1) */
		{
			int64_t max = INT64_MAX, v;
			tessel_options_bounds(NULL, &max, TESSEL_OPT_WORK_LIMIT);
			if (cli_parse_int(&v, "--work-limit", arg, 0, max))
				return -1;
			return set_option(a, TESSEL_OPT_WORK_LIMIT, "--work-limit", v);
		}
	case 'j':
		return int_option(a, TESSEL_OPT_THREADS, "--threads", arg);
	case OPT_FAST:
		return set_option(a, TESSEL_OPT_FAST, "--fast", 1);
	case OPT_SOLVER_MEMORY:
		return int_option(a, TESSEL_OPT_SOLVER_MEMORY_MB, "--solver-memory",
				  arg);
	case OPT_GROUP:
		return int_option(a, TESSEL_OPT_REPETEND_MICRO_BATCHES,
				  "--repetend-micro-batches", arg);
	case OPT_RECOMPUTE:
		a->recompute = 1;
		return 0;
	case OPT_OFFLOAD:
		return cli_parse_int(&a->offload, "--offload", arg, 1,
				     TESSEL_MAX_SPAN);
	case OPT_ALTERNATIVES:
		return alternatives_option(a, arg);
	case OPT_FORMAT:
		return format_option(a, arg);
	case OPT_STEP_US:
		return step_us_option(a, arg);
	case OPT_PROGRESS:
		a->progress = 1;
		return 0;
	case 'q':
		a->progress = 0;
		return 0;
	case 'o':
		if (!arg[0]) {
			cli_error("--output: empty file name");
			return -1;
		}
		a->output = arg;
		return 0;
	default:
		return -1;
	}
}

/* Options that only make sense together or apart; -1 with the reason. */
static int check_combination(const struct search_args *a)
{
	if (a->step_us_given && a->format != FORMAT_TRACE) {
		cli_error("search: --step-us applies to --format trace only");
		return -1;
	}
	if (a->sweep && a->memory_given) {
		cli_error("search: --sweep gives the limits: not with --memory");
		return -1;
	}
	if (a->sweep && a->format != FORMAT_TEXT && a->format != FORMAT_JSON) {
		cli_error("search: --sweep writes a table (text) or json only");
		return -1;
	}
	if (!a->file)
		return 0;
	if (a->preset)
		cli_error("search: give a placement file or --preset, not both");
	else if (a->devices)
		cli_error("search: --devices applies to presets only (%s gives "
			  "its devices)", a->file);
	else if (a->infer)
		cli_error("search: --infer applies to presets only");
	else
		return 0;
	return -1;
}

static int usage_error(void)
{
	cli_error("try 'tessel search --help'");
	return CLI_EXIT_USAGE;
}

/* Parse the command line into *a. Returns -1 to go on, else an exit
 * status. */
static int apply_search_option(void *a, int c, const char *arg)
{
	return apply_option(a, c, arg);
}

static int parse_args(struct search_args *a, int argc, char **argv)
{
	int status = cli_parse_options(argc, argv, ":p:d:m:n:t:w:j:o:qhV",
				       search_options, search_usage,
				       apply_search_option, a);
	if (status >= 0)
		return status;
	if (argc - optind > 1) {
		cli_error("search: too many arguments ('%s')", argv[optind + 1]);
		return usage_error();
	}
	if (optind < argc)
		a->file = argv[optind];
	if (check_combination(a))
		return usage_error();
	return -1;
}

/* Give every device the --memory limit and check the graph again. */
static int override_memory(tessel_graph *g, const struct search_args *a,
			   const char *what)
{
	int rc;

	rc = cli_declare_alternatives(g, a->recompute, a->offload);
	if (rc)
		return cli_lib_error(rc, a->recompute ? "--recompute" : "--offload");
	if (!a->memory_given)
		return 0;
	rc = tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, a->memory);
	if (rc)
		return cli_lib_error(rc, "--memory");
	rc = tessel_graph_validate(g);
	if (rc)
		return cli_lib_error(rc, what);
	return 0;
}

static int load_file(tessel_graph **out, const struct search_args *a)
{
	int status = cli_load_graph(out, a->file);

	/* (the file is checked as it is, its limits too, before they are
	 * replaced) */
	if (status && (a->memory_given || a->sweep) &&
	    tessel_error_last_code() == TESSEL_EINFEASIBLE)
		cli_error("the file's own memory limits are checked before %s replaces "
			  "them: give it limits that one micro-batch fits (or -1, "
			  "unlimited)", a->sweep ? "--sweep" : "--memory");
	if (status)
		return status;
	return override_memory(*out, a, cli_is_stdin(a->file) ? "standard input"
							      : a->file);
}

static int build_preset(tessel_graph **out, const struct search_args *a)
{
	const char *name = a->preset ? a->preset : DEFAULT_PRESET;
	int devices = a->devices ? (int)a->devices : DEFAULT_DEVICES;
	int64_t memory = a->memory_given ? a->memory : DEFAULT_MEMORY;
	char what[128];
	int rc;

	snprintf(what, sizeof what, "preset %s on %d devices", name, devices);
	/* with alternatives to declare, the limit comes after them: it may
	 * be below what the placement needs without them */
	int declare = a->recompute || a->offload > 0;
	rc = tessel_preset(out, name, devices, a->infer,
			   declare && memory != TESSEL_PRESET_MEMORY
				   ? TESSEL_UNLIMITED : memory);
	if (rc == TESSEL_ENOTFOUND) {
		cli_lib_error(rc, what);
		cli_error("run 'tessel presets' for the list");
		return CLI_EXIT_USAGE;
	}
	if (rc)
		return cli_lib_error(rc, what);
	if (declare) {
		rc = cli_declare_alternatives(*out, a->recompute, a->offload);
		if (!rc && memory != TESSEL_PRESET_MEMORY)
			rc = tessel_graph_set_memory_limit(*out,
							   TESSEL_ALL_DEVICES,
							   memory);
		if (rc)
			return cli_lib_error(rc, what);
	}
	rc = tessel_graph_validate(*out);
	if (rc)
		return cli_lib_error(rc, what);
	return 0;
}

/* Milliseconds since the command began (cli_search). */
static struct timespec command_start;

static int64_t command_ms(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(now.tv_sec - command_start.tv_sec) * 1000 +
	       (now.tv_nsec - command_start.tv_nsec) / 1000000;
}

/* What is left of --time-limit (ms): -1 without one, else at least 0. */
static int64_t time_left_ms(const struct search_args *a)
{
	int64_t limit = 0;
	if (tessel_options_get(&limit, a->options, TESSEL_OPT_TIME_LIMIT_MS) || !limit)
		return -1;
	int64_t left = limit - command_ms();
	return left > 0 ? left : 0;
}

/* The smallest equal memory limit under which a repetend at the resource
 * bound exists (tessel_min_memory with its default work budget, or
 * work_limit units; within time_ms of time, -1: no time limit), which may
 * be 0 (blocks that take no memory), or -1 when none was found; *proven
 * when one unit less is impossible. */
static int64_t smallest_memory(const tessel_graph *g, int *proven,
			       int64_t work_limit, int64_t time_ms)
{
	tessel_options *o = NULL;
	int64_t limit = -1;
	*proven = 0;
	if (!time_ms || tessel_options_new(&o))
		return -1;
	if (work_limit)
		tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, work_limit);
	if (time_ms > 0)
		tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, time_ms);
	if (tessel_min_memory(&limit, proven, g, 0, o))
		limit = -1;
	tessel_options_free(o);
	return limit;
}

/* Whether the search may choose alternatives: g declares one and the
 * options do not turn them off. */
static int uses_alternatives(const tessel_graph *g,
			     const struct search_args *a)
{
	int64_t n = 0, mode = 1;
	tessel_graph_get(&n, g, TESSEL_GRAPH_NBLOCKS);
	tessel_options_get(&mode, a->options, TESSEL_OPT_ALTERNATIVES);
	for (int b = 0; b < n && mode != 0; b++)
		if (tessel_graph_block_recompute(NULL, NULL, NULL, g, b) == TESSEL_OK ||
		    tessel_graph_block_offload(NULL, NULL, NULL, g, b) == TESSEL_OK)
			return 1;
	tessel_error_clear();
	return 0;
}

/* --memory auto: that limit on every device, found within half of
 * --time-limit; the search then gets what is left of it. */
static int auto_memory(tessel_graph *g, const struct search_args *a)
{
	int proven = 0;
	int64_t left = time_left_ms(a);
	tessel_error_clear();
	int64_t limit = smallest_memory(g, &proven, 0, left > 1 ? left / 2 : left);
	if (limit < 0) {
		const char *why = tessel_error_last();
		cli_error("--memory auto: no memory limit found under which the "
			  "period reaches the resource bound: %s",
			  left == 0 ? "the time limit passed before the limit was searched"
			  : why && *why ? why : "none was found");
		return CLI_EXIT_FAIL;
	}
	int rc = tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, limit);
	if (rc)
		return cli_lib_error(rc, "--memory auto");
	left = time_left_ms(a);
	if (left == 0) {
		cli_error("search: the time limit passed while --memory auto searched the limit");
		return CLI_EXIT_FAIL;
	}
	if (left > 0 && tessel_options_set(a->options, TESSEL_OPT_TIME_LIMIT_MS, left))
		return cli_lib_error(tessel_error_last_code(), "--time-limit");
	fprintf(stderr, "tessel: search: --memory auto: %lld on every device (%s%s)\n",
		(long long)limit, proven ? "proven the smallest" : "the smallest found",
		uses_alternatives(g, a) ? " with every activation kept; the declared "
					  "alternatives may need less" : "");
	return 0;
}

/* --memory min: the smallest equal limit under which a schedule of the
 * micro-batches asked for exists (tessel_graph_min_memory). */
static int min_memory(tessel_graph *g, const struct search_args *a)
{
	int64_t nmicros = 16, limit = 0;
	int proven = 0;
	int rc = tessel_options_get(&nmicros, a->options, TESSEL_OPT_MICRO_BATCHES);
	if (!rc)
		rc = tessel_graph_min_memory(&limit, &proven, g, nmicros);
	if (!rc)
		rc = tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, limit);
	if (rc)
		return cli_lib_error(rc, "--memory min");
	fprintf(stderr, "tessel: search: --memory min: %lld on every device (%s%s)\n",
		(long long)limit,
		proven ? "proven the smallest" : "one micro-batch at a time needs it",
		uses_alternatives(g, a) ? " with every activation kept; the declared "
					  "alternatives may need less" : "");
	return 0;
}

/* The placement to schedule; 0, or an exit status with the reason
 * printed. */
static int load_graph(tessel_graph **out, const struct search_args *a)
{
	int status = a->file ? load_file(out, a) : build_preset(out, a);
	if (!status && a->memory_auto)
		status = auto_memory(*out, a);
	if (!status && a->memory_min)
		status = min_memory(*out, a);
	return status;
}

/* The text output's note when the period is above the resource bound
 * under memory limits: the smallest equal limit that reaches the bound (a
 * short search of its own), if one is found, and whether the limits hold
 * the period above it (some device's limit below that one) or admit the
 * bound's period (every device's at least that one: the longer period was
 * chosen for the shorter makespan over the micro-batches searched). */
static void memory_note(FILE *to, const tessel_schedule *s,
			const struct search_args *a, int interrupted)
{
	const tessel_graph *g = NULL;
	int64_t period = 0, k = 1, bound = 0, nd = 0, limited = 0, least = -1;
	int64_t nmicros = 0;
	if (tessel_schedule_graph(&g, s) ||
	    tessel_schedule_get(&period, s, TESSEL_SCHED_PERIOD) ||
	    tessel_schedule_get(&k, s, TESSEL_SCHED_REPETEND_MICRO_BATCHES) ||
	    tessel_schedule_get(&bound, s, TESSEL_SCHED_RESOURCE_BOUND) ||
	    tessel_schedule_get(&nmicros, s, TESSEL_SCHED_NMICROS) ||
	    tessel_graph_get(&nd, g, TESSEL_GRAPH_NDEVICES))
		return;
	for (int d = 0; d < nd; d++) {
		int64_t m = 0;
		if (!tessel_graph_memory_limit(&m, g, d) && m >= 0) {
			limited = 1;
			if (least < 0 || m < least)
				least = m;
		}
	}
	if (!limited || k < 1 || period <= bound * k)
		return;
	/* (a short search of its own, not after an interruption and within
	 * what is left of the time limit) */
	int proven = 0;
	int64_t limit = interrupted ? -1 : smallest_memory(g, &proven, 300, time_left_ms(a));
	if (limit >= 0 && limit <= least)
		fprintf(to, "memory: the limits admit the resource bound's period %lld "
		       "(from %lld on every device); this schedule's longer period "
		       "gives the shorter makespan over its %lld micro-batches\n",
		       (long long)bound, (long long)limit,
		       (long long)nmicros);
	else if (limit >= 0)
		fprintf(to, "memory: the limits hold the period above the resource bound "
		       "%lld; %lld on every device reaches it%s (--memory %lld, or "
		       "--memory auto)\n", (long long)bound, (long long)limit,
		       uses_alternatives(g, a) ? " with every activation kept" : "",
		       (long long)limit);
	else
		fprintf(to, "memory: the period is above the resource bound %lld "
			"(--memory auto searches the smallest limit that reaches "
			"it)\n", (long long)bound);
}

/* Render the schedule and write it where asked, streamed; 0 or an exit
 * status. */
static int emit(const tessel_schedule *s, const struct search_args *a,
		int interrupted)
{
	tessel_format format = TESSEL_FORMAT_TEXT;
	double step_us = 0;

	switch (a->format) {
	case FORMAT_JSON:
		format = TESSEL_FORMAT_JSON;
		break;
	case FORMAT_ACTIONS:
		format = TESSEL_FORMAT_ACTIONS;
		break;
	case FORMAT_TORCH:
		format = TESSEL_FORMAT_TORCH;
		break;
	case FORMAT_TORCH_COMMS:
		format = TESSEL_FORMAT_TORCH_COMMS;
		break;
	case FORMAT_TRACE:
		format = TESSEL_FORMAT_TRACE;
		step_us = a->step_us;
		break;
	case FORMAT_SVG:
		format = TESSEL_FORMAT_SVG;
		break;
	default:
		break;
	}
	int rc = cli_write_export(a->output, s, format, step_us);
	if (rc)
		return rc;
	/* the note follows the text on the standard output, or goes to the
	 * standard error when the text went to a file */
	if (a->format == FORMAT_TEXT) {
		int to_stdout = !a->output || cli_is_stdin(a->output);
		if (to_stdout || a->progress != 0)
			memory_note(to_stdout ? stdout : stderr, s, a, interrupted);
	}
	if (!a->output && cli_flush_stdout())
		return CLI_EXIT_USAGE;
	return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Interruption and progress                                                  */
/* ------------------------------------------------------------------------ */

/* While the search runs, SIGINT and SIGTERM are blocked in every thread
 * (the library's and the solver's threads inherit the mask; the solver's
 * own SIGINT handler, installed around each check, is then never called)
 * and a watcher thread takes them with sigtimedwait: the first asks the
 * search to stop (tessel_options_cancel, which is not for signal
 * handlers, runs in an ordinary thread here), the second ends the process
 * at once. The watcher also prints the periodic progress reminder. */

#define REMINDER_SECONDS 5.0

struct watch {
	tessel_options *options;
	pthread_mutex_t lock;        /* the figures and stderr */
	int progress;                /* print progress */
	struct timespec start;
	double last_line;            /* elapsed seconds at the last line */
	double reported;             /* elapsed seconds at the last report */
	int have;                    /* a schedule was reported */
	int64_t period, k, makespan, lower_bound, work, work_limit;
	int proven;
	const char *phase;           /* static, from the library */
	int tty;                     /* stderr is a terminal: one line, redrawn */
	int line_open;               /* the redrawn line is on the screen */
	int signo;                   /* the signal that stopped the search */
	int ended;                   /* the search ended: a signal is ignored */
	int done;                    /* the watcher is to end */
	sigset_t set;
	pthread_t thread;
	int running;
};

static double elapsed(const struct watch *w)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - w->start.tv_sec) +
	       (double)(now.tv_nsec - w->start.tv_nsec) / 1e9;
}

/* Caller holds w->lock. */
static void print_best(const struct watch *w)
{
	if (!w->have) {
		fputs("no schedule yet", stderr);
		return;
	}
	if (w->k > 1)
		fprintf(stderr, "period %lld for %lld micro-batches (%.2f each)%s",
			(long long)w->period, (long long)w->k,
			(double)w->period / (double)w->k, w->proven ? ", proven" : "");
	else
		fprintf(stderr, "period %lld%s", (long long)w->period,
			w->proven ? ", proven" : "");
	fprintf(stderr, ", makespan %lld (LB %lld, gap %.1f%%)",
		(long long)w->makespan, (long long)w->lower_bound,
		w->lower_bound ? 100.0 * (double)(w->makespan - w->lower_bound) /
					 (double)w->lower_bound
			       : 0.0);
}

/* One progress line (caller holds w->lock): the time, the phase, the work
 * spent of the budget, the best schedule. On a terminal the line is
 * redrawn in place; otherwise a line per change. A reminder (reminder:
 * no report since the last line) says when the figures were reported:
 * the work is counted at the library's reports, not in between. */
static void print_line(struct watch *w, int reminder)
{
	w->last_line = elapsed(w);
	if (w->tty)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "tessel: search: %.1f s, %s", w->last_line,
		w->phase ? w->phase : "starting");
	if (w->work_limit)
		fprintf(stderr, ", work %lld of %lld", (long long)w->work,
			(long long)w->work_limit);
	else
		fprintf(stderr, ", work %lld", (long long)w->work);
	if (reminder && w->reported > 0)
		fprintf(stderr, " as of %.1f s", w->reported);
	fputs(": ", stderr);
	print_best(w);
	if (w->tty) {
		w->line_open = 1;
	} else {
		fputc('\n', stderr);
	}
	fflush(stderr);
}

/* End the redrawn line before anything else goes to stderr (caller holds
 * w->lock). */
static void close_line(struct watch *w)
{
	if (w->line_open) {
		fputc('\n', stderr);
		w->line_open = 0;
	}
}

static int on_progress(const tessel_progress *p, void *payload)
{
	struct watch *w = payload;
	int64_t improved = 0;

	pthread_mutex_lock(&w->lock);
	tessel_progress_get(&improved, p, TESSEL_PROGRESS_IMPROVED);
	tessel_progress_phase(&w->phase, p);
	tessel_progress_get(&w->work, p, TESSEL_PROGRESS_WORK);
	tessel_progress_get(&w->work_limit, p, TESSEL_PROGRESS_WORK_LIMIT);
	tessel_progress_get(&w->lower_bound, p, TESSEL_PROGRESS_LOWER_BOUND);
	if (improved) {
		w->have = 1;
		tessel_progress_get(&w->period, p, TESSEL_PROGRESS_PERIOD);
		tessel_progress_get(&w->k, p, TESSEL_PROGRESS_REPETEND_MICRO_BATCHES);
		tessel_progress_get(&w->makespan, p, TESSEL_PROGRESS_MAKESPAN);
		int64_t proven = 0;
		tessel_progress_get(&proven, p, TESSEL_PROGRESS_PERIOD_PROVEN);
		w->proven = proven != 0;
	}
	w->reported = elapsed(w);
	if (w->progress && !w->signo)
		print_line(w, 0);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static void write_all(int fd, const char *text)
{
	size_t n = strlen(text);

	while (n > 0) {
		ssize_t k = write(fd, text, n);
		if (k <= 0)
			return;
		text += k;
		n -= (size_t)k;
	}
}

static void on_signal(struct watch *w, int signo)
{
	int first;

	pthread_mutex_lock(&w->lock);
	if (w->ended) {
		/* the result is being written: written whole */
		pthread_mutex_unlock(&w->lock);
		return;
	}
	first = !w->signo;
	if (first)
		w->signo = signo;
	pthread_mutex_unlock(&w->lock);
	if (!first) {
		cli_drop_output();
		write_all(STDERR_FILENO, "tessel: search: interrupted again, "
					 "stopping at once\n");
		_exit(128 + signo);
	}
	pthread_mutex_lock(&w->lock);
	close_line(w);
	fprintf(stderr, "tessel: search: %s after %.1f s: stopping with the "
		"best schedule so far (again to stop at once)\n",
		signo == SIGINT ? "SIGINT" : "SIGTERM", elapsed(w));
	fflush(stderr);
	pthread_mutex_unlock(&w->lock);
	tessel_options_cancel(w->options);
}

static void reminder(struct watch *w)
{
	pthread_mutex_lock(&w->lock);
	/* on a terminal the line's clock goes on every second; elsewhere a
	 * reminder every REMINDER_SECONDS */
	if (w->progress && !w->signo &&
	    elapsed(w) - w->last_line >= (w->tty ? 1.0 : REMINDER_SECONDS))
		print_line(w, 1);
	pthread_mutex_unlock(&w->lock);
}

/* Waits in short ticks so that it ends soon after watch_stop asks
 * (pthread_cancel is not used: sanitizers handle it badly). */
static void *watcher(void *arg)
{
	struct watch *w = arg;
	const struct timespec tick = { 0, 50 * 1000 * 1000 };

	for (;;) {
		int signo = sigtimedwait(&w->set, NULL, &tick);
		int done;

		pthread_mutex_lock(&w->lock);
		done = w->done;
		pthread_mutex_unlock(&w->lock);
		if (signo > 0)
			on_signal(w, signo);
		else if (done)
			return NULL;
		else
			reminder(w);
	}
}

static void watch_join(struct watch *w)
{
	pthread_mutex_lock(&w->lock);
	w->done = 1;
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	w->running = 0;
}

/* Block the signals and start the watcher; 0 or -1 (then the search runs
 * without it, as the signals' defaults would have it). */
static int watch_start(struct watch *w, tessel_options *options, int progress)
{
	memset(w, 0, sizeof *w);
	w->options = options;
	w->progress = progress;
	w->tty = progress && isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &w->start);
	if (pthread_mutex_init(&w->lock, NULL))
		return -1;
	sigemptyset(&w->set);
	sigaddset(&w->set, SIGINT);
	sigaddset(&w->set, SIGTERM);
	if (pthread_sigmask(SIG_BLOCK, &w->set, NULL))
		goto fail_mutex;
	if (pthread_create(&w->thread, NULL, watcher, w))
		goto fail_mask;
	w->running = 1;
	if (tessel_options_set_progress_fn(options, on_progress, w) == TESSEL_OK)
		return 0;
	watch_join(w);
fail_mask:
	pthread_sigmask(SIG_UNBLOCK, &w->set, NULL);
fail_mutex:
	pthread_mutex_destroy(&w->lock);
	return -1;
}

/* Stop the watcher; the signals stay blocked (a late one is ignored). */
static void watch_stop(struct watch *w)
{
	if (!w->running)
		return;
	tessel_options_set_progress_fn(w->options, NULL, NULL);
	watch_join(w);
	close_line(w);
	pthread_mutex_destroy(&w->lock);
}

/* The figures of the schedule written, after a stop. */
static void notice_interrupted(const struct watch *w, const tessel_schedule *s)
{
	int64_t period = 0, makespan = 0, lb = 0;

	tessel_schedule_get(&period, s, TESSEL_SCHED_PERIOD);
	tessel_schedule_get(&makespan, s, TESSEL_SCHED_MAKESPAN);
	tessel_schedule_get(&lb, s, TESSEL_SCHED_LOWER_BOUND);
	cli_error("search: interrupted after %.1f s: the schedule written is "
		  "the best found so far, not a finished search (period %lld, "
		  "makespan %lld, LB %lld)", elapsed(w), (long long)period,
		  (long long)makespan, (long long)lb);
}

static void progress_done(const struct watch *w, const tessel_schedule *s)
{
	int64_t period = 0, makespan = 0, lb = 0;

	tessel_schedule_get(&period, s, TESSEL_SCHED_PERIOD);
	tessel_schedule_get(&makespan, s, TESSEL_SCHED_MAKESPAN);
	tessel_schedule_get(&lb, s, TESSEL_SCHED_LOWER_BOUND);
	int64_t work = 0, k = 1;
	tessel_schedule_get(&work, s, TESSEL_SCHED_WORK);
	tessel_schedule_get(&k, s, TESSEL_SCHED_REPETEND_MICRO_BATCHES);
	char per[96] = "";
	if (k > 1)
		snprintf(per, sizeof per, " for %lld micro-batches (%.2f each)",
			 (long long)k, (double)period / (double)k);
	fprintf(stderr, "tessel: search: done in %.1f s, work %lld: period %lld%s, "
		"makespan %lld, LB %lld\n", elapsed(w), (long long)work,
		(long long)period, per, (long long)makespan, (long long)lb);
}

/* --sweep: tessel_search_sweep on g (taken) under the limits, the table or
 * JSON written; the watcher w (when watching) stopped. */
static int run_sweep(tessel_graph *g, const struct search_args *a,
		     struct watch *w, int watching)
{
	tessel_schedule **s = calloc(a->nsweep, sizeof *s);
	int signo = 0, status;
	int rc = s ? tessel_search_sweep(s, g, a->sweep, a->nsweep, a->options)
		   : TESSEL_ENOMEM;
	if (watching) {
		pthread_mutex_lock(&w->lock);
		signo = w->signo;
		w->ended = 1;
		w->progress = 0;
		close_line(w);
		pthread_mutex_unlock(&w->lock);
		/* from here on a signal is ignored: the result is written whole */
		watch_stop(w);
	}
	if (rc) {
		status = cli_lib_error(rc, "search --sweep");
	} else {
		status = cli_sweep_emit(s, a->sweep, a->nsweep, a->format == FORMAT_JSON,
					a->output);
	}
	if (signo && status != CLI_EXIT_USAGE) {
		if (!rc)
			cli_error("search --sweep: interrupted: the limits not yet searched keep what the tighter ones found");
		status = 128 + signo;
	}
	for (size_t i = 0; s && i < a->nsweep; i++)
		tessel_schedule_free(s[i]);
	free(s);
	tessel_graph_free(g);
	return status;
}

static int run_search(const struct search_args *a)
{
	tessel_graph *g = NULL;
	tessel_schedule *s = NULL;
	struct watch w;
	int status = load_graph(&g, a);
	int progress = a->progress < 0 ? isatty(STDERR_FILENO) : a->progress;
	int watching, signo;
	int rc;

	if (status) {
		tessel_graph_free(g);
		return status;
	}
	/* a placement the torch CSV cannot express is refused before the
	 * search, not after it */
	if (a->format == FORMAT_TORCH || a->format == FORMAT_TORCH_COMMS) {
		rc = tessel_graph_check_torch(g, a->format == FORMAT_TORCH_COMMS);
		if (rc) {
			tessel_graph_free(g);
			return cli_lib_error(rc, "search");
		}
		if (uses_alternatives(g, a)) {
			tessel_graph_free(g);
			cli_error("search: the torch CSV has no action for recomputation or offload, which the placement declares: add --alternatives off");
			return CLI_EXIT_USAGE;
		}
	}
	watching = watch_start(&w, a->options, progress) == 0;
	if (a->sweep)
		return run_sweep(g, a, &w, watching);
	rc = tessel_search(&s, g, a->options);
	if (watching) {
		pthread_mutex_lock(&w.lock);
		signo = w.signo;
		w.ended = 1;
		w.progress = 0; /* the watcher's reminders end here */
		close_line(&w);
		pthread_mutex_unlock(&w.lock);
		/* from here on a signal is ignored (it stays blocked): the
		 * result is written whole, with the status it has now */
		watch_stop(&w);
	} else {
		signo = 0;
	}
	if (rc) {
		status = cli_lib_error(rc, "search");
	} else {
		if (signo)
			notice_interrupted(&w, s);
		else if (watching && progress)
			progress_done(&w, s);
		status = emit(s, a, signo != 0);
	}
	if (signo && status != CLI_EXIT_USAGE)
		status = 128 + signo;
	tessel_schedule_free(s);
	tessel_graph_free(g);
	return status;
}

int cli_search(int argc, char **argv)
{
	struct search_args a = { .format = FORMAT_TEXT,
				 .step_us = DEFAULT_STEP_US,
				 .progress = -1 };
	int status;
	int rc = tessel_options_new(&a.options);

	clock_gettime(CLOCK_MONOTONIC, &command_start);
	if (rc)
		return cli_lib_error(rc, "search");
	status = parse_args(&a, argc, argv);
	if (status < 0)
		status = run_search(&a);
	free(a.sweep);
	tessel_options_free(a.options);
	return status;
}
