/* The tessel command line: errors, number parsing and output files. */
#include "cli.h"

#include <tessel.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <getopt.h>

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("tessel: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_exit_status(int code)
{
	switch (code) {
	case TESSEL_OK:
		return CLI_EXIT_OK;
	case TESSEL_EINVAL:
	case TESSEL_ENOTFOUND:
	case TESSEL_EEXISTS:
	case TESSEL_ECYCLE:
	case TESSEL_EPARSE:
	case TESSEL_EIO:
	case TESSEL_ERANGE:
		return CLI_EXIT_USAGE;
	default:
		/* EINFEASIBLE, EVIOLATION, ETIMEOUT, EUNSUPPORTED, and
		 * failures that are nobody's input: no result. */
		return CLI_EXIT_FAIL;
	}
}

/* Does `detail` already start with "<what>:"? (File errors from the
 * library name the file themselves.) */
static int names_itself(const char *detail, const char *what)
{
	size_t n = strlen(what);

	return strncmp(detail, what, n) == 0 && detail[n] == ':';
}

int cli_lib_error(int code, const char *what)
{
	const char *detail = tessel_error_last();

	if (!detail[0])
		detail = tessel_strerror(code);
	if (names_itself(detail, what))
		cli_error("%s", detail);
	else
		cli_error("%s: %s", what, detail);
	return cli_exit_status(code);
}

/* "--name=value" -> "--name" into buf. */
static const char *option_name(char *buf, size_t size, const char *arg)
{
	size_t n = strcspn(arg, "=");

	if (n >= size)
		n = size - 1;
	memcpy(buf, arg, n);
	buf[n] = '\0';
	return buf;
}

int cli_getopt_error(int c, char **argv)
{
	const char *arg = argv[optind - 1];
	int is_long = arg[0] == '-' && arg[1] == '-';
	char name[64];

	if (is_long)
		option_name(name, sizeof name, arg);
	else
		snprintf(name, sizeof name, "-%c", optopt);
	if (c == ':')
		cli_error("%s: option %s needs an argument", argv[0], name);
	else if (is_long && optopt && strchr(arg, '='))
		cli_error("%s: option %s takes no argument", argv[0], name);
	else
		cli_error("%s: unknown option %s", argv[0], name);
	cli_error("try 'tessel %s --help'", argv[0]);
	return CLI_EXIT_USAGE;
}

int cli_parse_options(int argc, char **argv, const char *shortopts,
		      const struct option *longopts, const char *usage,
		      cli_apply_fn apply, void *args)
{
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == '?' || c == ':')
			return cli_getopt_error(c, argv);
		if (c == 'V')
			return cli_print_version();
		if (c == 'h') {
			fputs(usage, stdout);
			return cli_flush_stdout() ? CLI_EXIT_USAGE : CLI_EXIT_OK;
		}
		if (apply(args, c, optarg))
			return CLI_EXIT_USAGE;
	}
	return -1;
}

int cli_parse_int(int64_t *out, const char *option, const char *arg,
		  int64_t min, int64_t max)
{
	char *end = NULL;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (end == arg || *end != '\0' || isspace((unsigned char)arg[0])) {
		cli_error("%s: '%s' is not an integer", option, arg);
		return -1;
	}
	if (errno == ERANGE || v < min || v > max) {
		cli_error("%s: %s is out of range [%lld, %lld]", option, arg,
			  (long long)min, (long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_parse_real(double *out, const char *option, const char *arg,
		   double min, double max, int max_open)
{
	char *end = NULL;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	/* decimal only: strtod also reads hexadecimal ("0x1p3") */
	if (end == arg || *end || isspace((unsigned char)arg[0]) ||
	    strpbrk(arg, "xX") || isnan(v)) {
		cli_error("%s: '%s' is not a number", option, arg);
		return -1;
	}
	/* (an infinity, or a number beyond the largest double) */
	if (!isfinite(v)) {
		cli_error("%s: %s is too large for a double", option, arg);
		return -1;
	}
	/* (a number so small that a double holds 0 is not 0: refused; a
	 * subnormal one is taken as a double holds it) */
	if (errno == ERANGE && v == 0.0) {
		cli_error("%s: %s is too small for a double (it would be taken as 0)",
			  option, arg);
		return -1;
	}
	if (v < min || v > max || (max_open && v >= max)) {
		if (isinf(max))
			cli_error("%s: %s is out of range (a number >= %g)", option,
				  arg, min);
		else
			cli_error("%s: %s is out of range [%g, %g%c", option, arg,
				  min, max, max_open ? ')' : ']');
		return -1;
	}
	*out = v;
	return 0;
}

int cli_parse_seconds(int64_t *out_ms, const char *option, const char *arg)
{
	/* the library's largest time limit */
	int64_t max_ms = 86400000;
	(void)tessel_options_bounds(NULL, &max_ms, TESSEL_OPT_TIME_LIMIT_MS);
	const double max_seconds = (double)max_ms / 1000.0;
	char *end = NULL;
	double s;

	errno = 0;
	s = strtod(arg, &end);
	/* decimal only: strtod also reads hexadecimal ("0x1") */
	if (end == arg || *end != '\0' || isspace((unsigned char)arg[0]) ||
	    !isfinite(s) || strpbrk(arg, "xX")) {
		cli_error("%s: '%s' is not a number of seconds", option, arg);
		return -1;
	}
	/* (one so small that a double holds 0 would mean no limit) */
	if (errno == ERANGE && s == 0.0) {
		cli_error("%s: %s is too small for a double (it would be taken as 0, no limit)",
			  option, arg);
		return -1;
	}
	if (s < 0.0 || s > max_seconds) {
		cli_error("%s: %s is out of range [0, %g] seconds", option, arg,
			  max_seconds);
		return -1;
	}
	*out_ms = (int64_t)ceil(s * 1000.0);
	return 0;
}

int cli_flush_stdout(void)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		cli_error("cannot write the standard output: %s",
			  strerror(errno));
		return -1;
	}
	return 0;
}

/* The temporary output file being written, for the signal handler. */
static char *volatile writing_tmp;

void cli_drop_output(void)
{
	char *tmp = writing_tmp;
	if (tmp)
		unlink(tmp);
}

static void on_signal(int signo)
{
	static const char intr[] = "tessel: SIGINT: stopped before the end\n";
	static const char term[] = "tessel: SIGTERM: stopped before the end\n";
	char *tmp = writing_tmp;
	ssize_t ignored;
	if (tmp)
		unlink(tmp);
	if (signo == SIGINT)
		ignored = write(STDERR_FILENO, intr, sizeof intr - 1);
	else
		ignored = write(STDERR_FILENO, term, sizeof term - 1);
	(void)ignored;
	_exit(128 + signo);
}

void cli_handle_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* The pattern of a temporary file beside `path` for mkstemp (PATH.XXXXXX,
 * new). */
static char *temporary_name(const char *path)
{
	static const char suffix[] = ".XXXXXX";
	size_t n = strlen(path);
	char *tmp = malloc(n + sizeof suffix);

	if (tmp) {
		memcpy(tmp, path, n);
		memcpy(tmp + n, suffix, sizeof suffix);
	}
	return tmp;
}

/* A new temporary file for `tmp` (a mkstemp pattern, filled in): made
 * by mkstemp, so never an existing file or a symbolic link somebody left
 * there, with the mode `mode`; NULL with errno set. */
static FILE *temporary_open(char *tmp, mode_t mode)
{
	int fd = mkstemp(tmp);
	if (fd < 0)
		return NULL;
	FILE *f = NULL;
	if (fchmod(fd, mode) == 0)
		f = fdopen(fd, "w");
	if (!f) {
		int err = errno;
		close(fd);
		unlink(tmp);
		errno = err;
	}
	return f;
}

/* An output being written: the standard output, a device or pipe as it
 * is, or a regular file through a new PATH.XXXXXX (mkstemp) and a
 * rename. */
typedef struct cli_out {
	const char *path; /* NULL: the standard output */
	FILE *f;
	char *tmp;        /* the temporary file, NULL when written as it is */
	char *target;     /* what it is renamed onto: path, or the file a
			   * symbolic link at path names */
	int err;          /* errno of the first failed write, 0 none */
	char last;        /* the last byte written, 0 none */
} cli_out;

static void out_message(const cli_out *o, int err)
{
	if (o->path)
		cli_error("cannot write %s: %s", o->path, strerror(err));
	else
		cli_error("cannot write the standard output: %s", strerror(err));
}

/* 0, or -1 with the reason printed. */
static int out_open(cli_out *o, const char *path)
{
	memset(o, 0, sizeof *o);
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	o->path = path;
	/* a device or a pipe (/dev/null, /dev/stdout, a FIFO) is written as
	 * it is: a rename would replace it with a regular file; so is a
	 * symbolic link to nothing yet (the file it names is made); a link to
	 * a file has that file replaced, the link kept; an existing file
	 * keeps its permissions */
	struct stat st, lst;
	int exists = stat(path, &st) == 0;
	int link = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
	if ((!exists && !link) || (exists && S_ISREG(st.st_mode))) {
		/* a file the user may not write is not replaced through its
		 * folder (a rename needs only the folder's permission): the
		 * shell's "Permission denied" */
		if (exists && access(path, W_OK) != 0) {
			cli_error("%s: %s", path, strerror(errno));
			return -1;
		}
		o->target = link ? realpath(path, NULL) : strdup(path);
		o->tmp = o->target ? temporary_name(o->target) : NULL;
		if (!o->tmp) {
			free(o->target);
			o->target = NULL;
			cli_error("%s: %s", path, strerror(errno ? errno : ENOMEM));
			return -1;
		}
	}
	if (o->tmp) {
		/* an existing file's permissions, else a new file's (0666 less
		 * the umask, as fopen would give it) */
		mode_t mask = umask(0);
		umask(mask);
		/* SIGINT and SIGTERM held while the file is made and named for
		 * their handler (it removes the file once named), so that a
		 * signal leaves no temporary file behind */
		sigset_t hold, before;
		sigemptyset(&hold);
		sigaddset(&hold, SIGINT);
		sigaddset(&hold, SIGTERM);
		sigprocmask(SIG_BLOCK, &hold, &before);
		o->f = temporary_open(o->tmp, exists ? st.st_mode & 07777 : 0666 & ~mask);
		if (o->f)
			writing_tmp = o->tmp;
		/* an existing file keeps its owner where the user may give it
		 * (root): otherwise the file becomes the user's, as a copy */
		if (o->f && exists && (st.st_uid != geteuid() || st.st_gid != getegid()) &&
		    fchown(fileno(o->f), st.st_uid, st.st_gid) != 0)
			errno = 0;
		sigprocmask(SIG_SETMASK, &before, NULL);
	} else {
		o->f = fopen(path, "w");
	}
	if (!o->f) {
		int err = errno;
		if (o->tmp) {
			writing_tmp = NULL;
			free(o->tmp);
			o->tmp = NULL;
			free(o->target);
			o->target = NULL;
		}
		out_message(o, err);
		return -1;
	}
	return 0;
}

/* The writer of tessel_schedule_write: 0, or -1 with the errno kept. */
static int out_put(void *payload, const char *data, size_t n)
{
	cli_out *o = payload;
	if (o->err)
		return -1;
	if (n && fwrite(data, 1, n, o->f) != n) {
		o->err = errno ? errno : EIO;
		return -1;
	}
	if (n)
		o->last = data[n - 1];
	return 0;
}

/* Finish the output: with ok, a final newline when the text lacks one,
 * then flushed, synced and renamed into place; without, the temporary
 * file removed. 0, or -1 with the reason printed (a write failure) or
 * nothing printed (!ok: the caller says why). The stream is closed
 * once, whatever happens. */
static int out_close(cli_out *o, int ok)
{
	int err = o->err;
	if (ok && !err && o->last != '\n' && fputc('\n', o->f) == EOF)
		err = errno;
	if (ok && !err && fflush(o->f) == EOF)
		err = errno;
	if (ok && !err && o->tmp && fsync(fileno(o->f)))
		err = errno;
	if (o->f != stdout) {
		if (fclose(o->f) == EOF && ok && !err)
			err = errno;
	} else if (ok && !err && ferror(stdout)) {
		err = EIO;
	}
	o->f = NULL;
	if (ok && !err && o->tmp && rename(o->tmp, o->target))
		err = errno;
	if (o->tmp) {
		if (!ok || err)
			unlink(o->tmp);
		writing_tmp = NULL;
		free(o->tmp);
		o->tmp = NULL;
		free(o->target);
		o->target = NULL;
	}
	if (ok && err) {
		out_message(o, err);
		return -1;
	}
	return ok && !err ? 0 : -1;
}

int cli_write_output(const char *path, const char *text)
{
	cli_out o;
	if (out_open(&o, path))
		return -1;
	out_put(&o, text, strlen(text));
	return out_close(&o, 1);
}

/* The folder part of `path` resolved (realpath) followed by its last
 * name, or NULL. */
static char *resolved_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path))
			  : strdup(".");
	char *real = dir ? realpath(dir, NULL) : NULL;
	char *out = real ? malloc(strlen(real) + strlen(base) + 2) : NULL;
	if (out)
		sprintf(out, "%s/%s", real, base);
	free(dir);
	free(real);
	return out;
}

int cli_check_folder(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return 0;
	char *dir = strndup(path, (size_t)(slash - path) + (slash == path));
	struct stat st;
	int rc = 0;
	if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		cli_error("%s: %s", path, !dir ? strerror(ENOMEM)
			  : stat(dir, &st) != 0 ? strerror(errno)
						  : strerror(ENOTDIR));
		rc = -1;
	}
	free(dir);
	return rc;
}

int cli_same_output(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return 1;
	if (cli_is_stdin(a) || cli_is_stdin(b))
		return 0;
	struct stat sa, sb;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	char *ra = resolved_name(a), *rb = resolved_name(b);
	int same = ra && rb && strcmp(ra, rb) == 0;
	free(ra);
	free(rb);
	return same;
}

int cli_write_export(const char *path, const struct tessel_schedule *s,
		     int format, double step_us)
{
	cli_out o;
	if (out_open(&o, path))
		return CLI_EXIT_USAGE;
	int rc = tessel_schedule_write(s, (tessel_format)format, step_us,
				       out_put, &o);
	if (rc == TESSEL_OK)
		return out_close(&o, 1) ? CLI_EXIT_USAGE : 0;
	int err = o.err;
	out_close(&o, 0);
	if (rc == TESSEL_EIO && err) {
		out_message(&o, err);
		return CLI_EXIT_USAGE;
	}
	return cli_lib_error(rc, "output");
}

int cli_is_stdin(const char *path)
{
	return path && strcmp(path, "-") == 0;
}

int cli_read_file(char **out, size_t *length, const char *path)
{
	int from_stdin = cli_is_stdin(path);
	const char *name = from_stdin ? "standard input" : path;
	FILE *f = from_stdin ? stdin : fopen(path, "rb");
	size_t cap = 4096, len = 0, n;
	char *buf;

	*out = NULL;
	if (!f) {
		cli_error("%s: %s", path, strerror(errno));
		return CLI_EXIT_USAGE;
	}
	buf = malloc(cap);
	errno = 0;
	/* text holds no NUL byte: reading stops at the first, so that
	 * /dev/zero or an endless binary stream is not read until memory
	 * runs out */
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		const char *nul = memchr(buf + len, '\0', n);
		if (nul) {
			cli_error("%s: NUL byte at offset %zu: not a text file", name,
				  (size_t)(nul - buf));
			free(buf);
			if (!from_stdin)
				fclose(f);
			return CLI_EXIT_USAGE;
		}
		len += n;
		if (cap - len - 1 == 0) {
			char *bigger = cap > SIZE_MAX / 2 ? NULL
							  : realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	if (!buf || ferror(f)) {
		int status = !buf ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
		cli_error("%s: %s", name, !buf ? "out of memory"
					 : errno ? strerror(errno) : "read error");
		free(buf);
		if (!from_stdin)
			fclose(f);
		return status;
	}
	if (!from_stdin)
		fclose(f);
	buf[len] = '\0';
	*out = buf;
	*length = len;
	return 0;
}

int cli_load_graph(tessel_graph **out, const char *path)
{
	char *text = NULL;
	size_t length = 0;
	int rc;

	*out = NULL;
	if (!cli_is_stdin(path)) {
		rc = tessel_graph_from_file(out, path);
		return rc ? cli_lib_error(rc, path) : 0;
	}
	if ((rc = cli_read_file(&text, &length, path)))
		return rc;
	rc = tessel_graph_from_json(out, text, length);
	free(text);
	return rc ? cli_lib_error(rc, "standard input") : 0;
}

int cli_load_schedule(tessel_schedule **out, const char *path)
{
	char *text = NULL;
	size_t length = 0;
	int rc;

	*out = NULL;
	if (!cli_is_stdin(path)) {
		rc = tessel_schedule_from_file(out, path);
		return rc ? cli_lib_error(rc, path) : 0;
	}
	if ((rc = cli_read_file(&text, &length, path)))
		return rc;
	rc = tessel_schedule_from_json(out, text, length);
	free(text);
	return rc ? cli_lib_error(rc, "standard input") : 0;
}

int cli_print_version(void)
{
	printf("tessel %s\n", tessel_version());
	return cli_flush_stdout() ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

int cli_make_dir(const char *dir)
{
	struct stat st;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		cli_error("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		cli_error("%s is not a directory", dir);
		return -1;
	}
	return 0;
}

int cli_write_case_json(const char *dir, const char *stem, const char *suffix,
			const char *text)
{
	/* a file in dir: a stem that would name a path is refused */
	if (!stem[0] || stem[0] == '.' || strchr(stem, '/')) {
		cli_error("%s: '%s' is no name for a file in that folder", dir, stem);
		return -1;
	}
	size_t n = strlen(dir) + strlen(stem) + strlen(suffix) + 8;
	char *path = malloc(n);
	if (!path) {
		cli_error("out of memory");
		return -1;
	}
	snprintf(path, n, "%s/%s.%s.json", dir, stem, suffix);
	int rc = cli_write_output(path, text);
	free(path);
	return rc;
}
