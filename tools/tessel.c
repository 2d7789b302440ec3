/* tessel: the command line of libtessel. Finds the command and runs it.
 *
 * SPDX-License-Identifier: MIT
 *
 *   tessel search [PLACEMENT.json] [options]
 *   tessel validate SCHEDULE.json [--placement PLACEMENT.json]
 *   tessel simulate SCHEDULE.json [options]
 *   tessel presets
 *   tessel bench [options]
 *   tessel compare PLACEMENT [options]
 *   tessel explore MODEL.json [options]
 *   tessel --help | --version
 */
#include "cli.h"

#include <tessel.h>

#include <malloc.h>
#include <stdio.h>
#include <string.h>

static const char usage_text[] =
	"Usage: tessel COMMAND [ARGS]\n"
	"\n"
	"Find, check and list schedules for neural networks split across devices.\n"
	"\n"
	"Commands:\n"
	"  search [PLACEMENT.json] [OPTIONS]  find a schedule for a placement\n"
	"                                     (default: preset mshape, 4 devices,\n"
	"                                     memory 6, 16 micro-batches)\n"
	"  validate SCHEDULE.json             check a schedule file (with\n"
	"                                     --placement FILE: one saved by\n"
	"                                     the Tessel reference)\n"
	"  simulate SCHEDULE.json [OPTIONS]   replay a schedule with real\n"
	"                                     durations, latency and jitter\n"
	"  presets                            list the built-in placements\n"
	"  bench [OPTIONS]                    run the benchmark suite\n"
	"  compare PLACEMENT [OPTIONS]        libtessel's schedule against GPipe,\n"
	"                                     1F1B and published baselines\n"
	"  explore MODEL.json [OPTIONS]       the fastest placement and schedule\n"
	"                                     of a model profile\n"
	"\n"
	"Options:\n"
	"  -h, --help     show this help and exit\n"
	"  -V, --version  show the version and exit\n"
	"\n"
	"Run 'tessel COMMAND --help' for the options of a command; --help and\n"
	"--version work after any command. '-' as a file is the standard input\n"
	"(or, for --output, the standard output).\n"
	"Exit status: 0 success, 1 no schedule within the limits or invalid\n"
	"schedule, 2 bad usage or bad input, 130 interrupted by SIGINT and 143\n"
	"by SIGTERM (a search still prints its best schedule so far).\n";

static const char presets_usage[] =
	"Usage: tessel presets\n"
	"\n"
	"List the built-in placements, one per line: name and description.\n"
	"Use one with 'tessel search --preset NAME'.\n";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "search", cli_search },
	{ "validate", cli_validate },
	{ "simulate", cli_simulate },
	{ "presets", cli_presets },
	{ "bench", cli_bench },
	{ "compare", cli_compare },
	{ "explore", cli_explore },
};

static int is_help(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

static int is_version(const char *arg)
{
	return strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0;
}

static int print_text(const char *text)
{
	fputs(text, stdout);
	return cli_flush_stdout() ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

static int print_version(void)
{
	return cli_print_version();
}

static int print_presets(void)
{
	size_t count = tessel_preset_count();

	for (size_t i = 0; i < count; i++) {
		const char *name = NULL;
		const char *description = NULL;
		int rc = tessel_preset_info(&name, &description, i);

		if (rc)
			return cli_lib_error(rc, "presets");
		printf("%-8s %s\n", name, description ? description : "");
	}
	return cli_flush_stdout() ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

int cli_presets(int argc, char **argv)
{
	if (argc == 2 && is_help(argv[1]))
		return print_text(presets_usage);
	if (argc == 2 && is_version(argv[1]))
		return print_version();
	if (argc > 1) {
		if (argv[1][0] == '-')
			cli_error("presets: unknown option %s", argv[1]);
		else
			cli_error("presets: unexpected argument '%s'", argv[1]);
		cli_error("try 'tessel presets --help'");
		return CLI_EXIT_USAGE;
	}
	return print_presets();
}

static const struct command *find_command(const char *name)
{
	size_t n = sizeof commands / sizeof commands[0];

	for (size_t i = 0; i < n; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int usage_error(void)
{
	cli_error("try 'tessel --help'");
	return CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	/* A search of 10^5 blocks x 16 micro-batches allocates and frees
	 * arrays of tens of megabytes many times; glibc maps each afresh
	 * (and the kernel zeroes its pages) unless they come from the heap
	 * and stay there: this process keeps them. */
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);

	if (argc < 2) {
		cli_error("no command given (search, validate, simulate, presets, "
			  "bench, compare or explore)");
		return usage_error();
	}
	if (is_help(argv[1]))
		return print_text(usage_text);
	if (is_version(argv[1]))
		return print_version();
	if (argv[1][0] == '-') {
		cli_error("unknown option %s", argv[1]);
		return usage_error();
	}
	cli_handle_signals();
	cmd = find_command(argv[1]);
	if (!cmd) {
		cli_error("unknown command '%s'", argv[1]);
		return usage_error();
	}
	return cmd->run(argc - 1, argv + 1);
}
