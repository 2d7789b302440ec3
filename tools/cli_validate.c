/* tessel validate: check a schedule file against the rules. */
#include "cli.h"

#include <tessel.h>

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static const char validate_usage[] =
	"Usage: tessel validate SCHEDULE.json [--placement PLACEMENT.json]\n"
	"\n"
	"Check a schedule file (as written by 'tessel search --format json'):\n"
	"every block of every micro-batch placed exactly once, no device doing\n"
	"two blocks at once, dependencies respected, memory within the limits.\n"
	"\n"
	"Options:\n"
	"  -P, --placement FILE  read SCHEDULE.json as a schedule saved by the\n"
	"                        Tessel reference implementation, made for the\n"
	"                        placement in FILE\n"
	"  -h, --help            show this help and exit\n"
	"  -V, --version         show the version and exit\n"
	"\n"
	"'-' as SCHEDULE.json or FILE is the standard input.\n"
	"\n"
	"Exit status: 0 valid, 1 the schedule breaks a rule (the first violation\n"
	"is printed on stderr), 2 bad usage or unreadable or malformed file.\n";

static const struct option validate_options[] = {
	{ "placement", required_argument, NULL, 'P' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Parse the command line into *path and *placement. Returns -1 to go on,
 * else an exit status. */
static int apply_validate_option(void *placement, int c, const char *arg)
{
	if (c != 'P')
		return -1;
	if (!arg[0]) {
		cli_error("--placement: empty file name");
		return -1;
	}
	*(const char **)placement = arg;
	return 0;
}

static int parse_args(const char **path, const char **placement, int argc,
		      char **argv)
{
	int status = cli_parse_options(argc, argv, ":hVP:", validate_options,
				       validate_usage, apply_validate_option,
				       (void *)placement);
	if (status >= 0)
		return status;
	if (argc - optind != 1) {
		cli_error(argc == optind ? "validate: no schedule file given"
					 : "validate: too many arguments");
		cli_error("try 'tessel validate --help'");
		return CLI_EXIT_USAGE;
	}
	*path = argv[optind];
	if (cli_is_stdin(*path) && cli_is_stdin(*placement)) {
		cli_error("validate: the schedule and the placement cannot both "
			  "be the standard input");
		return CLI_EXIT_USAGE;
	}
	return -1;
}

static int64_t figure(const tessel_schedule *s, tessel_schedule_attr attr)
{
	int64_t v = 0;

	if (tessel_schedule_get(&v, s, attr))
		return 0;
	return v;
}

/* LB(N) from the schedule's own graph, 0 if it cannot be had. */
static int64_t lower_bound(const tessel_schedule *s, int64_t nmicros)
{
	const tessel_graph *g = NULL;
	int64_t lb = 0;

	if (tessel_schedule_graph(&g, s) ||
	    tessel_graph_lower_bound(&lb, g, nmicros))
		return 0;
	return lb;
}

/* "activations: R recomputed, O offloaded" when some entry does not keep
 * its activation. */
static void print_choices(const tessel_schedule *s)
{
	tessel_iter *it = NULL;
	const tessel_entry *e = NULL;
	int64_t count[3] = {0, 0, 0}, c = 0;
	if (tessel_iter_new(&it, s, TESSEL_ALL_DEVICES))
		return;
	while (tessel_iter_next(&e, it) == TESSEL_OK)
		if (tessel_entry_get(&c, e, TESSEL_ENTRY_CHOICE) == TESSEL_OK &&
		    c >= 0 && c < 3)
			count[c]++;
	tessel_iter_free(it);
	if (count[TESSEL_CHOICE_RECOMPUTE] || count[TESSEL_CHOICE_OFFLOAD])
		printf("activations: %" PRId64 " recomputed, %" PRId64
		       " offloaded\n", count[TESSEL_CHOICE_RECOMPUTE],
		       count[TESSEL_CHOICE_OFFLOAD]);
}

static void print_summary(const tessel_schedule *s)
{
	int64_t nmicros = figure(s, TESSEL_SCHED_NMICROS);
	int64_t makespan = figure(s, TESSEL_SCHED_MAKESPAN);
	int64_t period = figure(s, TESSEL_SCHED_PERIOD);
	int64_t lb = lower_bound(s, nmicros);

	printf("valid: %" PRId64 " micro-batches, makespan %" PRId64, nmicros,
	       makespan);
	if (lb > 0 && makespan > 0)
		printf(", lower bound %" PRId64 " (efficiency %.3f)", lb,
		       (double)lb / (double)makespan);
	int64_t k = figure(s, TESSEL_SCHED_REPETEND_MICRO_BATCHES);
	if (period > 0 && k > 1)
		printf(", period %" PRId64 " for %" PRId64 " micro-batches (%.2f each)",
		       period, k, (double)period / (double)k);
	else if (period > 0)
		printf(", period %" PRId64, period);
	printf(", %" PRId64 " devices, %" PRId64 " blocks per micro-batch\n",
	       figure(s, TESSEL_SCHED_NDEVICES), figure(s, TESSEL_SCHED_NBLOCKS));
	print_choices(s);
}

/* A schedule of the reference implementation for the placement in
 * `placement`. */
static int load_reference(tessel_schedule **out, const char *path,
			  const char *placement)
{
	tessel_graph *g = NULL;
	char *text = NULL;
	size_t length = 0;
	int rc;
	int status = cli_load_graph(&g, placement);

	if (status)
		return status;
	if ((status = cli_read_file(&text, &length, path))) {
		tessel_graph_free(g);
		return status;
	}
	rc = tessel_schedule_from_reference_json(out, g, text, length);
	free(text);
	tessel_graph_free(g);
	if (rc)
		return cli_lib_error(rc, path);
	return 0;
}

static int validate_file(const char *path, const char *placement)
{
	tessel_schedule *s = NULL;
	int rc;

	if (placement) {
		int status = load_reference(&s, path, placement);
		if (status)
			return status;
	} else {
		int status = cli_load_schedule(&s, path);
		if (status)
			return status;
	}
	rc = tessel_schedule_validate(s);
	if (rc == TESSEL_EVIOLATION) {
		cli_error("%s: invalid schedule: %s", path, tessel_error_last());
	} else if (rc) {
		cli_lib_error(rc, path);
	} else {
		print_summary(s);
	}
	tessel_schedule_free(s);
	if (rc)
		return cli_exit_status(rc);
	return cli_flush_stdout() ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

int cli_validate(int argc, char **argv)
{
	const char *path = NULL, *placement = NULL;
	int status = parse_args(&path, &placement, argc, argv);

	if (status >= 0)
		return status;
	return validate_file(path, placement);
}
