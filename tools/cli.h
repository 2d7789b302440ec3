/* The tessel command line: what its parts share.
 *
 * SPDX-License-Identifier: MIT
 *
 * Built only on the public API (tessel.h), never on lib/ internals.
 */
#ifndef TESSEL_CLI_H
#define TESSEL_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "tessel.h"

/* Exit statuses (see tools/tessel.1). */
enum cli_exit {
	CLI_EXIT_OK = 0,     /* success */
	CLI_EXIT_FAIL = 1,   /* no schedule within the limits, invalid schedule */
	CLI_EXIT_USAGE = 2   /* bad usage or bad input */
};

/* Print "tessel: <message>\n" on stderr. */
void cli_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Report a failed library call: "tessel: <what>: <detail>" where the detail
 * is tessel_error_last() (or tessel_strerror(code) when that is empty).
 * Returns the exit status for `code` (cli_exit_status). */
int cli_lib_error(int code, const char *what);

/* Exit status for a libtessel error code. */
int cli_exit_status(int code);

/* Report an option that getopt_long refused (unknown or missing argument)
 * and return CLI_EXIT_USAGE. `c` is what getopt_long returned. */
int cli_getopt_error(int c, char **argv);

/* What a command does with one of its options: `c` as getopt_long gave
 * it, `arg` its argument (NULL without one). 0 to go on; anything else
 * stops the parse with CLI_EXIT_USAGE (the reason printed). */
typedef int (*cli_apply_fn)(void *args, int c, const char *arg);

struct option; /* <getopt.h> */

/* The option loop every command shares: getopt_long over argv with
 * `shortopts` (starting with ':') and `longopts`; -h/--help prints `usage`
 * (exit 0), -V/--version the version; an unknown option or a missing
 * argument is reported (cli_getopt_error); every other option goes to
 * `apply` with `args`. Returns -1 to go on, the operands then at
 * argv[optind ..], else the exit status. */
int cli_parse_options(int argc, char **argv, const char *shortopts,
		      const struct option *longopts, const char *usage,
		      cli_apply_fn apply, void *args);

/* Strict integer parsing: the whole of `arg` must be a decimal integer in
 * [min, max]. On failure print "tessel: <option>: ..." and return -1. */
int cli_parse_int(int64_t *out, const char *option, const char *arg,
		  int64_t min, int64_t max);

/* Strict parsing of a non-negative number of seconds (may be fractional,
 * "0.5") into milliseconds, rounded up so that a positive value never
 * becomes 0. On failure print the reason and return -1. */
int cli_parse_seconds(int64_t *out_ms, const char *option, const char *arg);
/* A finite decimal number (not hexadecimal, not inf or nan) in [min, max],
 * or [min, max) with max_open: 0 and *out, or -1 with the reason printed
 * (naming `option`). */
int cli_parse_real(double *out, const char *option, const char *arg,
		   double min, double max, int max_open);

/* Write `text` (followed by a newline if it lacks one) to stdout when `path`
 * is NULL, else to `path` through `path`.tmp and a rename, so that a failure
 * leaves no partial file. On failure print the reason and return -1. */
int cli_write_output(const char *path, const char *text);

/* 1 when the output paths `a` and `b` name the same file (or both the
 * standard output, "-"), else 0: the same text, the same existing file,
 * or the same name in the same folder. */
int cli_same_output(const char *a, const char *b);

/* 0 when the folder `path` would be written in exists (and is a folder),
 * else -1 with the reason printed: checked before a long computation
 * whose result goes there. */
int cli_check_folder(const char *path);

/* Export schedule s in `format` (a tessel_format; step_us as
 * tessel_schedule_write takes it) to `path` the same way, streamed: the
 * text is never held whole. Returns 0, or an exit status with the reason
 * printed (a failed write: CLI_EXIT_USAGE, no partial file left). */
struct tessel_schedule;
int cli_write_export(const char *path, const struct tessel_schedule *s,
		     int format, double step_us);

/* Read the whole file at `path` ("-": the standard input) into *out
 * (NUL-terminated, release with free) and its size into *length. On failure
 * (also a NUL byte in it: no text holds one, and /dev/zero ends there)
 * print "tessel: <path>: <reason>" and return the exit status:
 * CLI_EXIT_FAIL when memory ran out (nobody's input), else
 * CLI_EXIT_USAGE. 0 on success. */
int cli_read_file(char **out, size_t *length, const char *path);

/* Create directory `dir` unless it exists; 0, or -1 with the reason
 * printed when it cannot be made or is not a directory. */
int cli_make_dir(const char *dir);

/* Write `text` to DIR/STEM.SUFFIX.json (cli_write_output); 0 or -1 (the
 * reason printed). */
int cli_write_case_json(const char *dir, const char *stem, const char *suffix,
			const char *text);

/* Whether `path` is "-", the standard input (or output). */
int cli_is_stdin(const char *path);

/* A placement or a schedule read from the file at `path`, or from the
 * standard input when `path` is "-". Returns 0, or an exit status with the
 * reason printed (*out NULL). */
struct tessel_graph;
struct tessel_schedule;
int cli_load_graph(struct tessel_graph **out, const char *path);
int cli_load_schedule(struct tessel_schedule **out, const char *path);

/* Print "tessel VERSION" (--version of any command); an exit status. */
int cli_print_version(void);

/* SIGINT and SIGTERM outside a search (reading and parsing the input,
 * writing the output): a message, the temporary output file removed, exit
 * 130 or 143 at once. A search blocks them and stops with its best
 * schedule instead (cli_search.c). */
void cli_handle_signals(void);
/* Remove the temporary file of the output being written, if any (a stop
 * at once leaves no partial file); async-signal-safe. */
void cli_drop_output(void);

/* Flush stdout; print the reason and return -1 if it failed. */
int cli_flush_stdout(void);

/* The commands: argv[0] is the command's name. Each returns an exit
 * status. */
int cli_search(int argc, char **argv);
int cli_validate(int argc, char **argv);
int cli_presets(int argc, char **argv);
int cli_bench(int argc, char **argv);

/* Declare on every forward block of g that has none a recompute (when
 * `recompute`) and an offload of `offload_steps` steps a copy (when > 0),
 * paired with its backward (cli_alternatives.c). A libtessel error code. */
int cli_declare_alternatives(tessel_graph *g, int recompute,
			     int64_t offload_steps);
int cli_simulate(int argc, char **argv);
int cli_compare(int argc, char **argv);
int cli_explore(int argc, char **argv);

/* Options of tessel bench --suite published (cli_bench_published.c). */
typedef struct cli_published_opts {
	int fast;
	int64_t time_limit_ms;  /* 0: none */
	int time_limit_given;
	int64_t threads;
	int64_t max_devices;    /* 0: every case */
	const char *family;     /* NULL: every family */
	const char *write_dir;  /* NULL: write no files */
	int64_t span_scale;     /* 1: the suite's spans */
	int64_t kind_factor[3]; /* per kind; 0: not given */
	int64_t latency;
	int64_t work_limit;
	int work_limit_given;   /* 0: the library's default */
} cli_published_opts;

/* Run the published suite: prints the header, one row per case and a
 * comment line comparing libtessel with the published schedules. The
 * cases run and failed go to *ncases and *failed; returns CLI_EXIT_OK, or
 * CLI_EXIT_USAGE (reason printed) for a bad option. */
int cli_bench_published(const cli_published_opts *opts, size_t *ncases,
			int *failed);

/* Options of tessel bench --suite zb (cli_bench_zb.c). */
typedef struct cli_zb_opts {
	int fast;
	int64_t time_limit_ms;  /* 0: none */
	int64_t threads;
	int64_t work_limit;
	int work_limit_given;   /* 0: the library's default */
	int64_t max_devices;    /* 0: every case */
	const char *match;      /* NULL: every case, else those whose name
				 * contains it */
	const char *data;       /* the peer's orders (tests/data/zb-peer.txt) */
	const char *write_dir;  /* NULL: write no files */
} cli_zb_opts;

/* Run the zb suite: the header, one row per case and a comment line
 * comparing libtessel with the peer. The cases run and failed go to
 * *ncases and *failed; returns CLI_EXIT_OK, or CLI_EXIT_USAGE (reason
 * printed) when the data cannot be read. */
int cli_bench_zb(const cli_zb_opts *opts, size_t *ncases, int *failed);

#endif /* TESSEL_CLI_H */
