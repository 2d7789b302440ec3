/* tessel simulate: replay a schedule with real durations. */
#include "cli.h"

#include <tessel.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char simulate_usage[] =
	"Usage: tessel simulate SCHEDULE.json [OPTIONS]\n"
	"\n"
	"Replay a schedule file (as written by 'tessel search --format json')\n"
	"with real durations: each device runs its blocks in the schedule's\n"
	"order, each as soon as its dependencies have arrived (after the\n"
	"placement's latencies). Print the makespan, then per device the busy\n"
	"time, the idle time and the peak memory. Times are in the placement's\n"
	"unit when it has a step (its durations, else spans times the step),\n"
	"else in steps.\n"
	"\n"
	"Options:\n"
	"  -D, --durations FILE  durations per block: a JSON object mapping\n"
	"                        block names to numbers > 0 (blocks not named\n"
	"                        keep the placement's; default: all of them)\n"
	"  -l, --latency X       time added to every dependency between blocks\n"
	"                        that share no device, on top of the\n"
	"                        placement's latencies (>= 0, default 0)\n"
	"  -J, --jitter X        multiply each duration by a factor drawn\n"
	"                        uniformly from [1-X, 1+X] (0 <= X < 1,\n"
	"                        default 0)\n"
	"  -s, --seed N          seed of the jitter (default 0)\n"
	"  -h, --help            show this help and exit\n"
	"  -V, --version         show the version and exit\n"
	"\n"
	"'-' as SCHEDULE.json or FILE is the standard input.\n"
	"\n"
	"Exit status: 0 success, 1 the schedule cannot be replayed, 2 bad usage\n"
	"or unreadable or malformed file.\n";

static const struct option simulate_options[] = {
	{ "durations", required_argument, NULL, 'D' },
	{ "latency", required_argument, NULL, 'l' },
	{ "jitter", required_argument, NULL, 'J' },
	{ "seed", required_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

struct simulate_args {
	const char *path;
	const char *durations;   /* NULL: the spans */
	double latency;
	double jitter;
	int64_t seed;
};

/* A finite decimal number in [min, max) (max_open) or [min, max]; -1 with
 * the reason printed. */
static int parse_number(double *out, const char *option, const char *arg,
			double min, double max, int max_open)
{
	return cli_parse_real(out, option, arg, min, max, max_open);
}

static int apply_option(struct simulate_args *a, int c, const char *arg)
{
	switch (c) {
	case 'D':
		if (!arg[0]) {
			cli_error("--durations: empty file name");
			return -1;
		}
		a->durations = arg;
		return 0;
	case 'l':
		return parse_number(&a->latency, "--latency", arg, 0, HUGE_VAL,
				    0);
	case 'J':
		return parse_number(&a->jitter, "--jitter", arg, 0, 1, 1);
	case 's':
		return cli_parse_int(&a->seed, "--seed", arg, 0, INT64_MAX);
	default:
		return -1;
	}
}

static int usage_error(void)
{
	cli_error("try 'tessel simulate --help'");
	return CLI_EXIT_USAGE;
}

/* Parse the command line into *a. Returns -1 to go on, else an exit
 * status. */
static int apply_simulate_option(void *a, int c, const char *arg)
{
	return apply_option(a, c, arg);
}

static int parse_args(struct simulate_args *a, int argc, char **argv)
{
	int status = cli_parse_options(argc, argv, ":D:l:J:s:hV",
				       simulate_options, simulate_usage,
				       apply_simulate_option, a);
	if (status >= 0)
		return status;
	if (argc - optind != 1) {
		cli_error(argc == optind ? "simulate: no schedule file given"
					 : "simulate: too many arguments");
		return usage_error();
	}
	a->path = argv[optind];
	if (a->durations && cli_is_stdin(a->path) && cli_is_stdin(a->durations)) {
		cli_error("simulate: the schedule and --durations cannot both be "
			  "the standard input");
		return usage_error();
	}
	return -1;
}

/* The durations of the --durations file, or NULL (spans); 0 or an exit
 * status. */
static int load_durations(double **out, size_t *count,
			  const tessel_schedule *s, const char *path)
{
	const tessel_graph *g = NULL;
	int64_t nblocks = 0;
	char *text = NULL;
	size_t length = 0;
	int rc;

	*out = NULL;
	*count = 0;
	if (!path)
		return 0;
	rc = tessel_schedule_graph(&g, s);
	if (!rc)
		rc = tessel_graph_get(&nblocks, g, TESSEL_GRAPH_NBLOCKS);
	if (rc)
		return cli_lib_error(rc, "simulate");
	if ((rc = cli_read_file(&text, &length, path)))
		return rc;
	rc = tessel_durations_from_json(out, g, text, length);
	free(text);
	if (rc)
		return cli_lib_error(rc, path);
	*count = (size_t)nblocks;
	return 0;
}

static double sim_figure(const tessel_simulation *sim, tessel_sim_attr attr,
			 int device)
{
	double v = 0;

	if (tessel_simulation_get(&v, sim, attr, device))
		return 0;
	return v;
}

/* The times, followed by the placement's unit when it names one. */
static void print_result(const tessel_simulation *sim, int64_t ndevices,
			 const char *unit)
{
	const char *sp = unit ? " " : "";

	if (!unit)
		unit = "";
	printf("makespan %.15g%s%s\n", sim_figure(sim, TESSEL_SIM_MAKESPAN, 0),
	       sp, unit);
	for (int d = 0; d < ndevices; d++)
		printf("device %d: busy %.15g%s%s, idle %.15g%s%s, peak memory %.15g\n",
		       d, sim_figure(sim, TESSEL_SIM_BUSY, d), sp, unit,
		       sim_figure(sim, TESSEL_SIM_IDLE, d), sp, unit,
		       sim_figure(sim, TESSEL_SIM_PEAK_MEMORY, d));
}

/* The unit of the schedule's placement (NULL: none). */
static const char *schedule_unit(const tessel_schedule *s)
{
	const tessel_graph *g = NULL;
	const char *unit = NULL;

	if (tessel_schedule_graph(&g, s) || tessel_graph_unit(&unit, g))
		return NULL;
	return unit;
}

static int run_simulation(const struct simulate_args *a)
{
	tessel_schedule *s = NULL;
	tessel_simulation *sim = NULL;
	double *durations = NULL;
	size_t count = 0;
	int64_t ndevices = 0;
	int status;
	int rc;

	status = cli_load_schedule(&s, a->path);
	if (status)
		return status;
	status = load_durations(&durations, &count, s, a->durations);
	if (!status) {
		rc = tessel_simulate(&sim, s, durations, count, a->latency,
				     a->jitter, (uint64_t)a->seed);
		if (!rc)
			rc = tessel_schedule_get(&ndevices, s,
						 TESSEL_SCHED_NDEVICES);
		if (rc) {
			status = cli_lib_error(rc, a->path);
		} else {
			print_result(sim, ndevices, schedule_unit(s));
			status = cli_flush_stdout() ? CLI_EXIT_USAGE
						    : CLI_EXIT_OK;
		}
	}
	tessel_simulation_free(sim);
	tessel_free(durations);
	tessel_schedule_free(s);
	return status;
}

int cli_simulate(int argc, char **argv)
{
	struct simulate_args a = { 0 };
	int status = parse_args(&a, argc, argv);

	if (status >= 0)
		return status;
	return run_simulation(&a);
}
