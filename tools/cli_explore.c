/* tessel explore: from a model profile to its fastest placement and
 * schedule (tessel_explore_*; doc/guide.md, "Exploring placements").
 *
 * SPDX-License-Identifier: MIT
 *
 * Reads the model, builds a candidate placement per family, searches them
 * (progress on stderr, a line per candidate), prints the ranking as a table
 * or JSON, and writes the best schedule (-o) and placement (-p). SIGINT or
 * SIGTERM stops the exploration with the candidates done so far; a second
 * one ends the process at once.
 */
#include "cli.h"

#include <tessel.h>

#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char explore_usage[] =
	"Usage: tessel explore MODEL.json [OPTIONS]\n"
	"\n"
	"Build a candidate placement of the model (a model profile, see\n"
	"doc/formats.md) for every placement family that fits its devices and\n"
	"memory, partition its layers into stages, search each candidate and\n"
	"rank them by time per training step (inference: latency), against the\n"
	"GPipe and 1F1B orders on their own best partitions.\n"
	"\n"
	"Options:\n"
	"      --fast                heuristics only, no solver\n"
	"  -w, --work-limit UNITS    work budget of the whole exploration,\n"
	"                            shared by the candidates (default: each\n"
	"                            candidate its own default budget)\n"
	"  -t, --time-limit SECONDS  wall-clock cap of the whole exploration\n"
	"  -j, --threads N           candidates searched at a time, 0 .. 256\n"
	"                            (default and 0: all cores)\n"
	"  -k, --top K               show the K best candidates in the table\n"
	"                            (default: all; the JSON lists all)\n"
	"  -f, --format FORMAT       text (default) or json\n"
	"  -o, --output FILE         write the best candidate's schedule JSON\n"
	"                            (which holds its placement)\n"
	"  -p, --placement FILE      write the best candidate's placement JSON\n"
	"  -s, --schedules           with --format json, every schedule too\n"
	"  -q, --quiet               no progress lines on stderr\n"
	"  -h, --help                show this help and exit\n"
	"  -V, --version             show the version and exit\n"
	"\n"
	"SIGINT (Ctrl-C) or SIGTERM stops the exploration with the candidates\n"
	"done so far, written as usual; a second signal ends at once.\n"
	"\n"
	"Exit status: 0 success, 1 no candidate has a schedule, 2 bad usage or\n"
	"bad input, 130 / 143 interrupted.\n";

enum { OPT_FAST = 256 };

static const struct option explore_options[] = {
	{ "fast", no_argument, NULL, OPT_FAST },
	{ "work-limit", required_argument, NULL, 'w' },
	{ "time-limit", required_argument, NULL, 't' },
	{ "threads", required_argument, NULL, 'j' },
	{ "top", required_argument, NULL, 'k' },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "placement", required_argument, NULL, 'p' },
	{ "schedules", no_argument, NULL, 's' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

struct explore_args {
	int fast, json, schedules, quiet;
	int64_t work, time_ms, threads, top;
	int work_given;
	const char *output, *placement;
};

static int apply(void *p, int c, const char *arg)
{
	struct explore_args *a = p;
	switch (c) {
	case OPT_FAST: a->fast = 1; return 0;
	case 'w':
		/* "auto": the default budget, as for tessel search */
		a->work_given = strcmp(arg, "auto") != 0;
		return a->work_given ? cli_parse_int(&a->work, "--work-limit", arg, 0,
						     1000000000000LL)
				     : 0;
	case 't': return cli_parse_seconds(&a->time_ms, "--time-limit", arg);
	case 'j': return cli_parse_int(&a->threads, "--threads", arg, 0, 256);
	case 'k': return cli_parse_int(&a->top, "--top", arg, 1, 1000);
	case 'f':
		if (strcmp(arg, "text") == 0 || strcmp(arg, "json") == 0) {
			a->json = strcmp(arg, "json") == 0;
			return 0;
		}
		cli_error("--format: '%s' is not text or json", arg);
		return -1;
	case 'o': a->output = arg; return 0;
	case 'p': a->placement = arg; return 0;
	case 's': a->schedules = 1; return 0;
	case 'q': a->quiet = 1; return 0;
	}
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Progress and signals                                                       */
/* ------------------------------------------------------------------------ */

struct watch {
	tessel_options *options;
	pthread_mutex_t lock;
	sigset_t set;
	pthread_t thread;
	int done, signo, running, quiet;
	struct timespec start;
	const char *unit;
};

static double elapsed(const struct watch *w)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - w->start.tv_sec) +
	       (double)(now.tv_nsec - w->start.tv_nsec) / 1e9;
}

static int on_candidate(const char *family, double time, int64_t work,
			const char *reason, size_t done, size_t total,
			void *payload)
{
	struct watch *w = payload;
	pthread_mutex_lock(&w->lock);
	if (!w->quiet) {
		fprintf(stderr, "tessel: explore: %.1f s, %zu of %zu: %s: ",
			elapsed(w), done, total, family);
		if (time >= 0)
			fprintf(stderr, "%.4g %s, work %lld\n", time, w->unit,
				(long long)work);
		else
			fprintf(stderr, "%s\n", reason);
		fflush(stderr);
	}
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static void *watcher(void *arg)
{
	struct watch *w = arg;
	const struct timespec tick = { 0, 50 * 1000 * 1000 };
	for (;;) {
		int signo = sigtimedwait(&w->set, NULL, &tick);
		pthread_mutex_lock(&w->lock);
		int done = w->done, first = signo > 0 && !w->signo;
		if (first)
			w->signo = signo;
		pthread_mutex_unlock(&w->lock);
		if (signo > 0 && !first) {
			cli_drop_output();
			static const char msg[] = "tessel: explore: interrupted again, stopping at once\n";
			if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0)
				_exit(128 + signo);
			_exit(128 + signo);
		}
		if (first) {
			pthread_mutex_lock(&w->lock);
			fprintf(stderr, "tessel: explore: %s: stopping with the candidates done so far (again to stop at once)\n",
				signo == SIGINT ? "SIGINT" : "SIGTERM");
			pthread_mutex_unlock(&w->lock);
			tessel_options_cancel(w->options);
		} else if (done) {
			return NULL;
		}
	}
}

static void watch_start(struct watch *w, tessel_options *o, int quiet,
			const char *unit)
{
	memset(w, 0, sizeof *w);
	w->options = o;
	w->quiet = quiet;
	w->unit = unit;
	clock_gettime(CLOCK_MONOTONIC, &w->start);
	pthread_mutex_init(&w->lock, NULL);
	sigemptyset(&w->set);
	sigaddset(&w->set, SIGINT);
	sigaddset(&w->set, SIGTERM);
	if (pthread_sigmask(SIG_BLOCK, &w->set, NULL) == 0 &&
	    pthread_create(&w->thread, NULL, watcher, w) == 0)
		w->running = 1;
}

static void watch_stop(struct watch *w)
{
	if (w->running) {
		pthread_mutex_lock(&w->lock);
		w->done = 1;
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
	}
	pthread_mutex_destroy(&w->lock);
}

/* ------------------------------------------------------------------------ */
/* Output                                                                     */
/* ------------------------------------------------------------------------ */

static void print_table(const tessel_explore *ex, const tessel_model *m,
			const char *unit, const char *munit, size_t top)
{
	size_t n = 0;
	int64_t D = 0, N = 0, infer = 0;
	tessel_explore_count(&n, ex);
	tessel_model_get(&D, m, TESSEL_MODEL_DEVICES);
	tessel_model_get(&N, m, TESSEL_MODEL_MICRO_BATCHES);
	tessel_model_get(&infer, m, TESSEL_MODEL_INFERENCE);
	printf("%lld devices, %lld micro-batches, %s; time per %s in %s, memory in %s\n\n",
	       (long long)D, (long long)N, infer ? "inference" : "training",
	       infer ? "batch (latency)" : "training step", unit, munit);
	printf("%4s  %-15s %6s %12s %10s %8s %8s  %s\n", "rank", "family",
	       "stages", "time", "peak mem", "vs 1f1b", "vs gpipe", "note");
	for (size_t k = 0; k < n && k < top; k++) {
		const char *family = NULL, *why = NULL;
		double time = -1, peak = -1, s1 = 0, sg = 0, stages = 0, base = 0;
		tessel_explore_family(&family, ex, k);
		tessel_explore_reason(&why, ex, k);
		tessel_explore_get(&time, ex, k, TESSEL_EXPLORE_TIME);
		tessel_explore_get(&peak, ex, k, TESSEL_EXPLORE_PEAK_MEMORY);
		tessel_explore_get(&s1, ex, k, TESSEL_EXPLORE_SPEEDUP_1F1B);
		tessel_explore_get(&sg, ex, k, TESSEL_EXPLORE_SPEEDUP_GPIPE);
		tessel_explore_get(&stages, ex, k, TESSEL_EXPLORE_STAGES);
		tessel_explore_get(&base, ex, k, TESSEL_EXPLORE_BASELINE);
		if (time < 0) {
			printf("%4s  %-15s %6s %12s %10s %8s %8s  %s\n", "-", family,
			       stages > 0 ? "" : "-", "-", "-", "-", "-", why);
			continue;
		}
		char a[16] = "-", b[16] = "-";
		if (s1 > 0)
			snprintf(a, sizeof a, "%.3fx", s1);
		if (sg > 0)
			snprintf(b, sizeof b, "%.3fx", sg);
		printf("%4zu  %-15s %6.0f %12.6g %10.4g %8s %8s  %s\n", k + 1,
		       family, stages, time, peak, a, b,
		       base ? "published order" : "searched");
	}
}

/* The best candidate's schedule (-o) and placement (-p). */
static int write_best(const tessel_explore *ex, const struct explore_args *a)
{
	const tessel_schedule *s = NULL;
	if (!a->output && !a->placement)
		return 0;
	if (tessel_explore_schedule(&s, ex, 0))
		return cli_lib_error(tessel_error_last_code(), "best candidate");
	char *text = NULL;
	int rc = 0;
	if (a->output) {
		int lrc = tessel_schedule_to_json(&text, s);
		if (lrc)
			return cli_lib_error(lrc, "schedule");
		rc = cli_write_output(a->output, text) ? CLI_EXIT_USAGE : 0;
		tessel_free(text);
	}
	if (!rc && a->placement) {
		const tessel_graph *g = NULL;
		tessel_schedule_graph(&g, s);
		int lrc = tessel_graph_to_json(&text, g);
		if (lrc)
			return cli_lib_error(lrc, "placement");
		rc = cli_write_output(a->placement, text) ? CLI_EXIT_USAGE : 0;
		tessel_free(text);
	}
	return rc;
}

static int set_options(tessel_options *o, const struct explore_args *a)
{
	int rc = tessel_options_set(o, TESSEL_OPT_FAST, a->fast);
	if (!rc && a->work_given)
		rc = tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, a->work);
	if (!rc && a->time_ms)
		rc = tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, a->time_ms);
	if (!rc && a->threads)
		rc = tessel_options_set(o, TESSEL_OPT_THREADS, a->threads);
	return rc;
}

static int explore_model(const tessel_model *m, const struct explore_args *a,
			 const char *unit, const char *munit)
{
	tessel_explore *ex = NULL;
	tessel_options *o = NULL;
	int rc = tessel_explore_new(&ex, m);
	if (rc)
		return cli_lib_error(rc, "explore");
	rc = tessel_options_new(&o);
	if (!rc)
		rc = set_options(o, a);
	if (rc) {
		tessel_explore_free(ex);
		tessel_options_free(o);
		return cli_lib_error(rc, "options");
	}
	struct watch w;
	watch_start(&w, o, a->quiet, unit);
	tessel_explore_set_progress(ex, on_candidate, &w);
	rc = tessel_explore_run(ex, o);
	watch_stop(&w);
	int status = 0;
	if (rc && rc != TESSEL_EINFEASIBLE && rc != TESSEL_ETIMEOUT &&
	    rc != TESSEL_ECANCELLED) {
		status = cli_lib_error(rc, "explore");
	} else {
		if (rc)
			cli_lib_error(rc, "explore");
		char *json = NULL;
		if (a->json) {
			int jrc = tessel_explore_to_json(&json, ex, a->schedules);
			if (jrc)
				status = cli_lib_error(jrc, "explore");
			else
				fputs(json, stdout);
			tessel_free(json);
		} else {
			print_table(ex, m, unit, munit,
				    a->top ? (size_t)a->top : (size_t)-1);
		}
		/* the standard output first: when it cannot be written, no
		 * file is */
		if (cli_flush_stdout() && !status)
			status = CLI_EXIT_USAGE;
		if (!status && !rc)
			status = write_best(ex, a);
		if (!status && rc)
			status = CLI_EXIT_FAIL;
	}
	/* interrupted: 130 (SIGINT) or 143 (SIGTERM), as tessel search, once
	 * what was done is written (a failed write says so: 2) */
	if (w.signo && status != CLI_EXIT_USAGE)
		status = 128 + w.signo;
	tessel_explore_free(ex);
	tessel_options_free(o);
	return status;
}

int cli_explore(int argc, char **argv)
{
	struct explore_args a = {0};
	int rc = cli_parse_options(argc, argv, ":w:t:j:k:f:o:p:sqhV",
				   explore_options, explore_usage, apply, &a);
	if (rc >= 0)
		return rc;
	if (optind + 1 != argc) {
		cli_error(optind >= argc ? "explore: missing MODEL.json (see 'tessel explore --help')"
					 : "explore: one MODEL.json only (see 'tessel explore --help')");
		return CLI_EXIT_USAGE;
	}
	if (a.output && a.placement && cli_same_output(a.output, a.placement)) {
		cli_error("explore: --output and --placement name the same file, %s: give each its own",
			  a.placement);
		return CLI_EXIT_USAGE;
	}
	if (a.schedules && !a.json) {
		cli_error("explore: --schedules is for --format json (the table has no schedules)");
		return CLI_EXIT_USAGE;
	}
	/* checked before the exploration, not after it: a file name, not the
	 * standard output (it holds the table), in a folder that exists */
	const char *outs[2] = {a.output, a.placement};
	const char *names[2] = {"--output", "--placement"};
	for (int k = 0; k < 2; k++) {
		if (!outs[k])
			continue;
		if (!*outs[k] || cli_is_stdin(outs[k])) {
			cli_error("explore: %s: %s", names[k],
				  *outs[k] ? "the standard output holds the table: give a file"
					   : "empty file name");
			return CLI_EXIT_USAGE;
		}
		struct stat st;
		if (stat(outs[k], &st) == 0 && S_ISDIR(st.st_mode)) {
			cli_error("%s: %s", outs[k], strerror(EISDIR));
			return CLI_EXIT_USAGE;
		}
		if (cli_check_folder(outs[k]))
			return CLI_EXIT_USAGE;
	}
	char *text = NULL;
	size_t length = 0;
	int rstatus = cli_read_file(&text, &length, argv[optind]);
	if (rstatus)
		return rstatus;
	tessel_model *m = NULL;
	int lrc = tessel_model_from_json(&m, text, length);
	if (lrc) {
		free(text);
		return cli_lib_error(lrc, argv[optind]);
	}
	const char *unit = NULL, *munit = NULL;
	tessel_model_units(&unit, &munit, m);
	free(text);
	rc = explore_model(m, &a, unit, munit);
	tessel_model_free(m);
	return rc;
}
