/* tessel bench: run a fixed suite of searches and print one row per case. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "tessel.h"

static const char bench_usage[] =
	"Usage: tessel bench [--suite reference|full|published|zb] [--fast]\n"
	"                    [--work-limit UNITS] [--time-limit SECONDS]\n"
	"                    [--threads N]\n"
	"\n"
	"Run a fixed suite of schedule searches and print one row per case:\n"
	"placement, devices, memory limit, micro-batches N, period, resource\n"
	"bound, whether the period is proven optimal, makespan, lower bound\n"
	"LB(N), efficiency LB/makespan, the highest peak memory against the\n"
	"limit, and the seconds the whole search took.\n"
	"\n"
	"Suites:\n"
	"  reference  the published Tessel cases on 4 devices (vshape memory 4,\n"
	"             xshape 4, mshape 6, nnshape 6, kshape and vshape inference\n"
	"             with memory 4) for N = 16 and 128 (default)\n"
	"  full       every preset on 4, 8, 16, 32 and 64 devices, N = 16 and\n"
	"             128; training with a tight memory limit (the smallest that\n"
	"             admits the resource-bound period, found first with\n"
	"             tessel_min_memory) and a generous one (twice that), and\n"
	"             inference\n"
	"  published  the hand-designed schedules of the literature (GPipe,\n"
	"             1F1B, ZB-H1, ZB-H2, ZB-V, V-Half, V-Min, DualPipe,\n"
	"             DualPipeV, interleaved 1F1B, Chimera) on 4 and 8 devices,\n"
	"             each on its own placement, spans and N, under its own\n"
	"             peak memory: per case the published makespan, libtessel's\n"
	"             makespan, LB(N), the gap (libtessel - published, \"worse\"\n"
	"             when positive) and the seconds of the search\n"
	"  zb         the Zero Bubble authors' automatic scheduler (the peer)\n"
	"             on its grid of realistic inputs (ZB-H and V, 4 to 32\n"
	"             devices, 2p to 8p micro-batches, published GPT profiles,\n"
	"             communication 0.6 and 3 ms, memory 1x to 2x the 1F1B\n"
	"             budget): per case the peer's order replayed under\n"
	"             libtessel's model, libtessel's makespan, LB(N), the ratio,\n"
	"             the seconds and the work of the search\n"
	"\n"
	"Options:\n"
	"  --fast                 heuristic search only, no solver\n"
	"  -w, --work-limit UNITS work budget of each search (default: the\n"
	"                         library's: 3 per instance up to 5000, plus 4 per 1000)\n"
	"  -t, --time-limit SECS  time limit of each search (default: none)\n"
	"  -j, --threads N        threads of each search (0 = all cores)\n"
	"  --max-devices D        full and published suites: only cases with at\n"
	"                         most D devices\n"
	"  --preset NAME          full suite: only this preset\n"
	"  --match TEXT           zb suite: only the cases whose name contains\n"
	"                         TEXT (e.g. h_p8_, _mem1x_, _c30_)\n"
	"  --data FILE            zb suite: the peer's orders (default: the\n"
	"                         source tree's tests/data/zb-peer.txt, else\n"
	"                         the installed share/tessel/zb-peer.txt)\n"
	"  --family NAME          published suite: only this family (gpipe,\n"
	"                         1f1b, zb-h1, zb-h2, zb-v, v-half, v-min,\n"
	"                         dualpipe, dualpipe-v, interleaved, chimera)\n"
	"  --write DIR            published and zb suites: write each case's\n"
	"                         placement, the published (the peer's) schedule\n"
	"                         and libtessel's as JSON into DIR (created if\n"
	"                         missing)\n"
	"  --tight-cache FILE     full suite: read tight limits from FILE (lines\n"
	"                         \"PRESET D LIMIT\") and append those computed\n"
	"  --span-scale K         multiply every span by K (the memory limits\n"
	"                         stay): the figures should scale by K\n"
	"  --kind-spans F,B,W     multiply the span of every forward, backward\n"
	"                         and weight block by F, B and W (uneven spans\n"
	"                         as profiled, e.g. 137,281,96)\n"
	"  --latency L            latency of every dependency, in steps (after\n"
	"                         the scaling)\n"
	"  -h, --help             show this help and exit\n"
	"  -V, --version          show the version and exit\n";

typedef struct bench_case {
	const char *preset;
	int devices;
	int infer;
	int64_t memory;
	int64_t nmicros;
	const char *label; /* suffix of the name, e.g. "-tight" */
} bench_case;

static const bench_case reference_suite[] = {
	{"vshape", 4, 0, 4, 16, NULL},  {"xshape", 4, 0, 4, 16, NULL},
	{"mshape", 4, 0, 6, 16, NULL},  {"nnshape", 4, 0, 6, 16, NULL},
	{"kshape", 4, 1, 4, 16, NULL},  {"vshape", 4, 1, 4, 16, NULL},
	{"vshape", 4, 0, 4, 128, NULL}, {"xshape", 4, 0, 4, 128, NULL},
	{"mshape", 4, 0, 6, 128, NULL}, {"nnshape", 4, 0, 6, 128, NULL},
	{"kshape", 4, 1, 4, 128, NULL}, {"vshape", 4, 1, 4, 128, NULL},
};

typedef struct bench_opts {
	int fast;
	int64_t time_limit_ms;
	int64_t threads;
	int64_t max_devices;
	const char *preset;
	const char *tight_file; /* cache of tight limits, or NULL */
	int64_t span_scale;     /* 1: the presets' spans */
	int64_t kind_factor[3]; /* per kind; 0: not given */
	int64_t latency;
	int64_t work_limit;
	int work_limit_given;   /* 0: the library's default */
} bench_opts;

/* *out: a copy of g (public API only) with every span multiplied by the
 * scale and its kind's factor, and the latency set. */
/* Why the case under way failed, when not the library's last error. */
static char case_why[192];

static int transformed_copy(tessel_graph **out, const tessel_graph *g,
			    const bench_opts *bo)
{
	int64_t nd = 0, nb = 0;
	tessel_graph *t = NULL;
	int rc = tessel_graph_get(&nd, g, TESSEL_GRAPH_NDEVICES);
	if (!rc)
		rc = tessel_graph_get(&nb, g, TESSEL_GRAPH_NBLOCKS);
	if (!rc)
		rc = tessel_graph_new(&t, (int)nd);
	for (int b = 0; b < nb && !rc; b++) {
		const char *name = NULL;
		int64_t kind = 0, span = 0, mem = 0, ndev = 0, stage = -1;
		int devs[TESSEL_MAX_DEVICES];
		rc = tessel_graph_block_name(&name, g, b);
		if (!rc)
			rc = tessel_graph_block_get(&kind, g, b, TESSEL_BLOCK_KIND);
		if (!rc)
			rc = tessel_graph_block_get(&span, g, b, TESSEL_BLOCK_SPAN);
		if (!rc)
			rc = tessel_graph_block_get(&mem, g, b, TESSEL_BLOCK_MEMORY);
		if (!rc)
			rc = tessel_graph_block_get(&ndev, g, b, TESSEL_BLOCK_NDEVICES);
		if (!rc)
			rc = tessel_graph_block_get(&stage, g, b, TESSEL_BLOCK_STAGE);
		for (int64_t k = 0; k < ndev && !rc; k++)
			rc = tessel_graph_block_device(&devs[k], g, b, (size_t)k);
		int64_t f = kind >= 0 && kind < 3 && bo->kind_factor[kind]
				    ? bo->kind_factor[kind] : 1;
		span *= bo->span_scale * f;
		if (!rc && span > TESSEL_MAX_SPAN) {
			snprintf(case_why, sizeof case_why,
				 "block \"%s\": a span of %lld steps is above the limit %d",
				 name, (long long)span, TESSEL_MAX_SPAN);
			rc = TESSEL_ERANGE;
		}
		if (!rc)
			rc = tessel_graph_add_block(NULL, t, name, (tessel_kind)kind,
						    (int)span, (int)mem);
		if (!rc)
			rc = tessel_graph_place(t, b, devs, (size_t)ndev);
		if (!rc && stage >= 0)
			rc = tessel_graph_set_stage(t, b, (int)stage);
	}
	for (int b = 0; b < nb && !rc; b++) {
		int64_t ndeps = 0;
		rc = tessel_graph_block_get(&ndeps, g, b, TESSEL_BLOCK_NDEPS);
		for (int64_t k = 0; k < ndeps && !rc; k++) {
			int dep = 0;
			rc = tessel_graph_block_dep(&dep, g, b, (size_t)k);
			if (!rc)
				rc = tessel_graph_add_dep(t, dep, b);
		}
	}
	for (int d = 0; d < nd && !rc; d++) {
		int64_t lim = 0;
		rc = tessel_graph_memory_limit(&lim, g, d);
		if (!rc)
			rc = tessel_graph_set_memory_limit(t, d, lim);
	}
	if (!rc)
		rc = tessel_graph_set_latency(t, (int)bo->latency);
	if (rc) {
		tessel_graph_free(t);
		return rc;
	}
	*out = t;
	return TESSEL_OK;
}

static int transforms(const bench_opts *bo)
{
	return bo->span_scale != 1 || bo->kind_factor[0] || bo->kind_factor[1] ||
	       bo->kind_factor[2] || bo->latency;
}

static int64_t fig(const tessel_schedule *s, tessel_schedule_attr a)
{
	int64_t v = 0;
	tessel_schedule_get(&v, s, a);
	return v;
}

static void print_header(void)
{
	printf("%-14s %3s %6s %4s %6s %5s %6s %8s %8s %5s %9s %8s\n", "placement",
	       "D", "memory", "N", "period", "bound", "proven", "makespan", "LB",
	       "eff", "peak/lim", "seconds");
}

/* When the memory terms raised LB(N) (doc/guide.md), a comment line with
 * the bound and efficiency without them. */
static void print_memory_free_bound(const tessel_graph *g, int64_t nmicros,
				    int64_t lb, int64_t makespan)
{
	tessel_graph *free_g = NULL;
	int64_t lb_free = 0;
	if (tessel_graph_dup(&free_g, g) == TESSEL_OK &&
	    tessel_graph_set_memory_limit(free_g, TESSEL_ALL_DEVICES,
					  TESSEL_UNLIMITED) == TESSEL_OK &&
	    tessel_graph_lower_bound(&lb_free, free_g, nmicros) == TESSEL_OK &&
	    lb_free < lb && makespan > 0)
		printf("#   LB without the memory terms: %lld (eff %.2f); the "
		       "memory limit forces %lld more steps\n",
		       (long long)lb_free, (double)lb_free / (double)makespan,
		       (long long)(lb - lb_free));
	tessel_graph_free(free_g);
}

/* Run one case; prints its row. Returns 0, or 1 if it failed. */
static int run_case(const bench_case *c, const bench_opts *bo)
{
	tessel_graph *g = NULL;
	tessel_options *o = NULL;
	tessel_schedule *s = NULL;
	char name[32];
	snprintf(name, sizeof name, "%s%s", c->preset,
		 c->infer ? "-inf" : c->label ? c->label : "");
	case_why[0] = '\0';
	int rc = tessel_preset(&g, c->preset, c->devices, c->infer, c->memory);
	if (!rc && transforms(bo)) {
		tessel_graph *t = NULL;
		rc = transformed_copy(&t, g, bo);
		tessel_graph_free(g);
		g = t;
	}
	if (!rc)
		rc = tessel_options_new(&o);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, c->nmicros);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_FAST, bo->fast);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, bo->time_limit_ms);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_THREADS, bo->threads);
	if (!rc && bo->work_limit_given)
		rc = tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, bo->work_limit);
	if (!rc)
		rc = tessel_search(&s, g, o);
	if (!rc)
		rc = tessel_schedule_validate(s);
	if (rc) {
		printf("%-14s %3d %6lld %4lld  failed: %s\n", name, c->devices,
		       (long long)c->memory, (long long)c->nmicros,
		       case_why[0] ? case_why : tessel_error_last());
	} else {
		int64_t peak = 0;
		for (int d = 0; d < c->devices; d++) {
			int64_t p = 0;
			tessel_schedule_peak_memory(&p, s, d);
			if (p > peak)
				peak = p;
		}
		double secs = 0;
		tessel_schedule_search_seconds(&secs, s);
		int64_t makespan = fig(s, TESSEL_SCHED_MAKESPAN);
		int64_t lb = fig(s, TESSEL_SCHED_LOWER_BOUND);
		char peakbuf[32];
		snprintf(peakbuf, sizeof peakbuf, "%lld/%lld", (long long)peak,
			 (long long)c->memory);
		printf("%-14s %3d %6lld %4lld %6lld %5lld %6s %8lld %8lld %5.2f %9s %8.3f\n",
		       name, c->devices, (long long)c->memory,
		       (long long)c->nmicros, (long long)fig(s, TESSEL_SCHED_PERIOD),
		       (long long)fig(s, TESSEL_SCHED_RESOURCE_BOUND),
		       fig(s, TESSEL_SCHED_PERIOD_OPTIMAL) ? "yes" : "no",
		       (long long)makespan, (long long)lb,
		       makespan ? (double)lb / (double)makespan : 0.0, peakbuf, secs);
		print_memory_free_bound(g, c->nmicros, lb, makespan);
	}
	fflush(stdout);
	tessel_schedule_free(s);
	tessel_options_free(o);
	tessel_graph_free(g);
	return rc ? 1 : 0;
}

/* The tight limit of a training preset: the smallest memory limit that
 * admits the resource-bound period. 0 if it could not be found. */
/* Time for finding one tight limit without --time-limit (with it, the
 * searches' limit). */
#define TIGHT_TIME_LIMIT_MS 60000

/* A number of digits only (no sign, no blank) within 1 .. max: it, else 0. */
static long long cache_number(const char *w, long long max)
{
	size_t n = strlen(w);
	if (n == 0 || n > 18 || strspn(w, "0123456789") != n)
		return 0;
	long long v = strtoll(w, NULL, 10);
	return v >= 1 && v <= max ? v : 0;
}

/* The cache file at `path`: *usable 1 when it can be read and appended to
 * (a regular file of at most 16 MiB: a larger one is not one this program
 * wrote), *ends_line 1 when it is empty or ends with a newline. The tight
 * limit it records for (preset, devices), lines "PRESET D LIMIT" (the
 * last such line wins), or 0. Comments (#) and blank lines are skipped; a
 * malformed line (fields that are not a name, 1 .. TESSEL_MAX_DEVICES
 * devices and a limit 1 .. 2^49 in digits, whose double, the "-gen"
 * case's, a limit cannot be) is skipped with a warning. */
static int64_t cached_tight(const char *path, const char *preset, int devices,
			    int *usable, int *ends_line)
{
	/* (read once per preset and device count: its warnings given once) */
	static int warned;
	FILE *f = path ? fopen(path, "r") : NULL;
	struct stat st;
	*usable = 0;
	*ends_line = 1;
	if (!f)
		return 0;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) ||
	    st.st_size > ((off_t)16 << 20)) {
		if (!warned++)
			cli_error("warning: bench: --tight-cache %s: not a regular file of "
				  "at most 16 MiB: not read, not written", path);
		fclose(f);
		return 0;
	}
	*usable = 1;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;
	int64_t found = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		lineno++;
		*ends_line = line[n - 1] == '\n';
		if (memchr(line, '\0', (size_t)n)) {
			if (!warned)
				cli_error("warning: bench: --tight-cache %s: line %ld holds a NUL "
					  "byte: not a cache this program wrote; not read, not written",
					  path, lineno);
			*usable = 0;
			found = 0;
			break;
		}
		char *w[4] = {NULL, NULL, NULL, NULL}, *save = NULL;
		int nw = 0;
		for (char *t = strtok_r(line, " \t\r\n", &save); t && nw < 4;
		     t = strtok_r(NULL, " \t\r\n", &save))
			w[nw++] = t;
		if (nw == 0 || w[0][0] == '#')
			continue;
		long long d = nw == 3 ? cache_number(w[1], TESSEL_MAX_DEVICES) : 0;
		long long v = nw == 3 ? cache_number(w[2], (long long)1 << 49) : 0;
		if (!d || !v) {
			if (!warned)
				cli_error("warning: bench: --tight-cache %s: line %ld is not "
					  "\"PRESET DEVICES LIMIT\" (positive integers): skipped",
					  path, lineno);
			continue;
		}
		if (strcmp(w[0], preset) == 0 && d == devices)
			found = v;
	}
	if (ferror(f)) {
		if (!warned)
			cli_error("warning: bench: --tight-cache %s: %s: not written", path,
				  strerror(errno));
		*usable = 0;
	}
	warned = 1;
	free(line);
	fclose(f);
	return found;
}

static int64_t tight_memory(const char *preset, int devices,
			    const bench_opts *bo)
{
	int usable = 0, ends_line = 1;
	int64_t cached = cached_tight(bo->tight_file, preset, devices, &usable,
				      &ends_line);
	if (cached) {
		printf("# %s on %d devices: tight memory limit %lld (from %s)\n",
		       preset, devices, (long long)cached, bo->tight_file);
		return cached;
	}
	tessel_graph *g = NULL;
	tessel_options *o = NULL;
	int64_t mem = 0;
	int proven = 0;
	int rc = tessel_preset(&g, preset, devices, 0, TESSEL_UNLIMITED);
	if (!rc)
		rc = tessel_options_new(&o);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS,
					bo->time_limit_ms ? bo->time_limit_ms
							  : TIGHT_TIME_LIMIT_MS);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_THREADS, bo->threads);
	if (!rc)
		rc = tessel_min_memory(&mem, &proven, g, 0, o);
	if (rc) {
		printf("# %s on %d devices: no tight memory limit: %s\n", preset,
		       devices, tessel_error_last());
		mem = 0;
	} else {
		printf("# %s on %d devices: tight memory limit %lld (%s)\n", preset,
		       devices, (long long)mem,
		       proven ? "proven minimal" : "smallest found within the budget");
	}
	tessel_options_free(o);
	tessel_graph_free(g);
	/* appended on a line of its own; a cache that could not be read is
	 * left as it is */
	if (mem && bo->tight_file && (usable || access(bo->tight_file, F_OK))) {
		FILE *f = fopen(bo->tight_file, "a");
		int bad = !f;
		if (f) {
			bad |= fprintf(f, "%s%s %d %lld\n", ends_line ? "" : "\n", preset,
				       devices, (long long)mem) < 0;
			bad |= fclose(f) != 0;
		}
		if (bad)
			cli_error("warning: bench: --tight-cache %s: %s: the limit of %s "
				  "on %d devices not recorded", bo->tight_file,
				  strerror(errno), preset, devices);
	}
	return mem;
}

static int run_full(const bench_opts *bo, size_t *ncases)
{
	static const char *presets[] = {"vshape", "xshape", "mshape", "nnshape",
					"kshape"};
	static const int devices[] = {4, 8, 16, 32, 64};
	static const int64_t micros[] = {16, 128};
	int failed = 0;
	*ncases = 0;
	for (size_t d = 0; d < sizeof devices / sizeof devices[0]; d++) {
		if (bo->max_devices && devices[d] > bo->max_devices)
			continue;
		for (size_t p = 0; p < sizeof presets / sizeof presets[0]; p++) {
			if (bo->preset && strcmp(bo->preset, presets[p]) != 0)
				continue;
			int64_t tight = tight_memory(presets[p], devices[d], bo);
			for (size_t n = 0; n < 2; n++) {
				bench_case c[3] = {
					{presets[p], devices[d], 0, tight, micros[n], "-tight"},
					{presets[p], devices[d], 0, 2 * tight, micros[n], "-gen"},
					{presets[p], devices[d], 1, 0, micros[n], NULL},
				};
				for (int k = tight ? 0 : 2; k < 3; k++) {
					failed += run_case(&c[k], bo);
					(*ncases)++;
				}
			}
		}
	}
	return failed;
}

/* The options of tessel bench, as parsed. */
struct bench_args {
	bench_opts bo;
	const char *suite, *family, *write_dir, *match, *data;
	int data_given, time_limit_given;
};

static int kind_spans_option(bench_opts *bo, const char *arg)
{
	int64_t f[3];
	const char *p = arg;
	int ok = 1;
	/* three runs of digits (no sign, no blank) separated by commas */
	for (int k = 0; k < 3 && ok; k++) {
		size_t n = strspn(p, "0123456789");
		char digits[24];
		ok = n > 0 && n < sizeof digits && p[n] == (k < 2 ? ',' : '\0');
		if (ok) {
			memcpy(digits, p, n);
			digits[n] = '\0';
			errno = 0;
			long long v = strtoll(digits, NULL, 10);
			ok = errno == 0 && v >= 1 && v <= TESSEL_MAX_SPAN;
			f[k] = v;
			p += n + 1;
		}
	}
	if (!ok) {
		cli_error("--kind-spans: expected three integers 1 .. %d "
			  "separated by commas, got '%s'", TESSEL_MAX_SPAN, arg);
		return -1;
	}
	for (int k = 0; k < 3; k++)
		bo->kind_factor[k] = f[k];
	return 0;
}

static int apply_bench_option(void *args, int c, const char *arg)
{
	struct bench_args *a = args;
	bench_opts *bo = &a->bo;
	switch (c) {
	case 's': a->suite = arg; return 0;
	case 'f': bo->fast = 1; return 0;
	case 't':
		a->time_limit_given = 1;
		return cli_parse_seconds(&bo->time_limit_ms, "--time-limit", arg);
	case 'j': return cli_parse_int(&bo->threads, "--threads", arg, 0, 256);
	case 'D':
		return cli_parse_int(&bo->max_devices, "--max-devices", arg, 1,
				     TESSEL_MAX_DEVICES);
	case 'p': bo->preset = arg; return 0;
	case 'c': {
		/* a file of lines, or one to be made: not a device, a FIFO or
		 * a folder (/dev/zero would be read for ever) */
		struct stat st;
		if (!*arg || (stat(arg, &st) == 0 && !S_ISREG(st.st_mode))) {
			cli_error("bench: --tight-cache: %s%s", *arg ? arg : "",
				  *arg ? " is not a regular file" : "empty file name");
			return CLI_EXIT_USAGE;
		}
		bo->tight_file = arg;
		return 0;
	}
	case 'k':
		return cli_parse_int(&bo->span_scale, "--span-scale", arg, 1,
				     TESSEL_MAX_SPAN);
	case 'K': return kind_spans_option(bo, arg);
	case 'L':
		return cli_parse_int(&bo->latency, "--latency", arg, 0,
				     TESSEL_MAX_LATENCY);
	case 'F': a->family = arg; return 0;
	case 'W': a->write_dir = arg; return 0;
	case 'w':
		/* "auto": the library's default budget, as for tessel search */
		bo->work_limit_given = strcmp(arg, "auto") != 0;
		return bo->work_limit_given
			       ? cli_parse_int(&bo->work_limit, "--work-limit", arg, 0,
					       1000000000000LL)
			       : 0;
	case 'M': a->match = arg; return 0;
	case 'd': a->data = arg; a->data_given = 1; return 0;
	default: return -1;
	}
}

int cli_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"suite", required_argument, NULL, 's'},
		{"fast", no_argument, NULL, 'f'},
		{"time-limit", required_argument, NULL, 't'},
		{"threads", required_argument, NULL, 'j'},
		{"max-devices", required_argument, NULL, 'D'},
		{"preset", required_argument, NULL, 'p'},
		{"tight-cache", required_argument, NULL, 'c'},
		{"span-scale", required_argument, NULL, 'k'},
		{"kind-spans", required_argument, NULL, 'K'},
		{"latency", required_argument, NULL, 'L'},
		{"family", required_argument, NULL, 'F'},
		{"write", required_argument, NULL, 'W'},
		{"work-limit", required_argument, NULL, 'w'},
		{"match", required_argument, NULL, 'M'},
		{"data", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct bench_args a = {
		.bo = {0, 0, 0, 0, NULL, NULL, 1, {0, 0, 0}, 0, 0, 0},
		.suite = "reference",
#ifdef TESSEL_ZB_DATA
		.data = TESSEL_ZB_DATA,
#endif
	};
	int status = cli_parse_options(argc, argv, ":s:ft:w:j:D:p:c:k:K:L:F:W:M:d:hV",
				       longopts, bench_usage, apply_bench_option, &a);
	if (status >= 0)
		return status;
	bench_opts bo = a.bo;
	const char *suite = a.suite, *family = a.family, *write_dir = a.write_dir;
	const char *match = a.match, *data = a.data;
	int data_given = a.data_given, time_limit_given = a.time_limit_given;
#ifdef TESSEL_ZB_DATA_INSTALLED
	/* the source tree's copy gone (an installed program): the installed */
	if (!data_given && data && access(data, F_OK) != 0)
		data = TESSEL_ZB_DATA_INSTALLED;
#endif
	if (optind < argc) {
		cli_error("bench: unexpected argument '%s'", argv[optind]);
		return CLI_EXIT_USAGE;
	}
	size_t ncases;
	int failed = 0;
	int published = strcmp(suite, "published") == 0;
	int zb = strcmp(suite, "zb") == 0;
	if (!published && family) {
		cli_error("bench: --family applies to the published suite only");
		return CLI_EXIT_USAGE;
	}
	if (!published && !zb && write_dir) {
		cli_error("bench: --write applies to the published and zb suites only");
		return CLI_EXIT_USAGE;
	}
	if (!zb && (match || data_given)) {
		cli_error("bench: --%s applies to the zb suite only",
			  match ? "match" : "data");
		return CLI_EXIT_USAGE;
	}
	if (zb && (bo.preset || bo.tight_file || bo.span_scale != 1 ||
		   bo.kind_factor[0] || bo.latency)) {
		cli_error("bench: the zb suite has its own placements, spans and "
			  "latencies (use --match and --max-devices)");
		return CLI_EXIT_USAGE;
	}
	if (published && (bo.preset || bo.tight_file)) {
		cli_error("bench: --%s does not apply to the published suite%s",
			  bo.preset ? "preset" : "tight-cache",
			  bo.preset ? " (use --family)" : "");
		return CLI_EXIT_USAGE;
	}
	int reference = strcmp(suite, "reference") == 0;
	if (reference && (bo.preset || bo.tight_file || bo.max_devices)) {
		cli_error("bench: --%s does not apply to the reference suite (its "
			  "cases are fixed: 4 devices)",
			  bo.preset ? "preset" : bo.tight_file ? "tight-cache" : "max-devices");
		return CLI_EXIT_USAGE;
	}
	if (bo.preset) {
		int known = 0;
		for (size_t i = 0; i < tessel_preset_count() && !known; i++) {
			const char *name = NULL;
			known = !tessel_preset_info(&name, NULL, i) && strcmp(name, bo.preset) == 0;
		}
		if (!known) {
			cli_error("bench: --preset: no preset named '%s' (run 'tessel presets' "
				  "for the list)", bo.preset);
			return CLI_EXIT_USAGE;
		}
	}
	if (zb) {
		if (!data) {
			cli_error("bench: --suite zb needs --data FILE (the peer's "
				  "orders, tests/data/zb-peer.txt)");
			return CLI_EXIT_USAGE;
		}
		cli_zb_opts zo = {
			bo.fast, bo.time_limit_ms, bo.threads, bo.work_limit,
			bo.work_limit_given, bo.max_devices, match, data,
			write_dir,
		};
		int rc = cli_bench_zb(&zo, &ncases, &failed);
		if (rc)
			return rc;
	} else if (published) {
		cli_published_opts po = {
			bo.fast, bo.time_limit_ms, time_limit_given, bo.threads,
			bo.max_devices, family, write_dir, bo.span_scale,
			{bo.kind_factor[0], bo.kind_factor[1], bo.kind_factor[2]},
			bo.latency, bo.work_limit, bo.work_limit_given,
		};
		int rc = cli_bench_published(&po, &ncases, &failed);
		if (rc)
			return rc;
	} else if (strcmp(suite, "reference") == 0) {
		ncases = sizeof reference_suite / sizeof reference_suite[0];
		print_header();
		for (size_t i = 0; i < ncases; i++)
			failed += run_case(&reference_suite[i], &bo);
	} else if (strcmp(suite, "full") == 0) {
		print_header();
		failed = run_full(&bo, &ncases);
	} else {
		cli_error("bench: unknown suite '%s' (suites: reference, full, "
			  "published, zb)", suite);
		return CLI_EXIT_USAGE;
	}
	printf("%zu cases, %d failed\n", ncases, failed);
	if (cli_flush_stdout())
		return CLI_EXIT_USAGE;
	return failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
