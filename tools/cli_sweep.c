/* tessel search --sweep: the search under a list of memory limits
 * (tessel_search_sweep), the limits' parsing and the table or JSON of the
 * results.
 *
 * SPDX-License-Identifier: MIT
 *
 * Built only on the public API (tessel.h), never on lib/ internals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_sweep.h"

/* At most so many limits (tessel_search_sweep's bound). */
#define SWEEP_MAX 1024

int cli_sweep_parse(int64_t **out, size_t *count, const char *arg)
{
	size_t n = 1;
	for (const char *c = arg; *c; c++)
		n += *c == ',';
	if (n > SWEEP_MAX) {
		cli_error("--sweep: %zu limits (at most %d)", n, SWEEP_MAX);
		return -1;
	}
	int64_t *v = calloc(n, sizeof *v);
	char *copy = strdup(arg);
	if (!v || !copy) {
		free(v);
		free(copy);
		cli_error("--sweep: out of memory");
		return -1;
	}
	size_t i = 0;
	char *item = copy;
	for (;;) {
		char *comma = strchr(item, ',');
		if (comma)
			*comma = '\0';
		if (strcmp(item, "unlimited") == 0) {
			v[i] = TESSEL_UNLIMITED;
		} else if (cli_parse_int(&v[i], "--sweep", item, 0, (int64_t)1 << 50)) {
			free(v);
			free(copy);
			return -1;
		}
		i++;
		if (!comma)
			break;
		item = comma + 1;
	}
	free(copy);
	free(*out);
	*out = v;
	*count = n;
	return 0;
}

/* A growing text buffer; -1 when out of memory (then text is freed). */
struct buf {
	char *text;
	size_t len, cap;
};

static int put(struct buf *b, const char *s)
{
	size_t n = strlen(s);
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (b->len + n + 1 > cap)
			cap *= 2;
		char *t = realloc(b->text, cap);
		if (!t) {
			free(b->text);
			b->text = NULL;
			return -1;
		}
		b->text = t;
		b->cap = cap;
	}
	memcpy(b->text + b->len, s, n + 1);
	b->len += n;
	return 0;
}

static void limit_text(char *out, size_t room, int64_t limit)
{
	if (limit == TESSEL_UNLIMITED)
		snprintf(out, room, "unlimited");
	else
		snprintf(out, room, "%lld", (long long)limit);
}

/* The highest peak over the devices of s. */
static int64_t highest_peak(const tessel_schedule *s)
{
	const tessel_graph *g = NULL;
	int64_t nd = 0, top = 0;
	if (tessel_schedule_graph(&g, s) || tessel_graph_get(&nd, g, TESSEL_GRAPH_NDEVICES))
		return -1;
	for (int d = 0; d < (int)nd; d++) {
		int64_t p = 0;
		if (tessel_schedule_peak_memory(&p, s, d))
			return -1;
		top = p > top ? p : top;
	}
	return top;
}

static int table(struct buf *b, tessel_schedule *const *s, const int64_t *limits,
		 size_t n)
{
	char line[256], lim[32], per[48];
	int rc = put(b, "memory limit      makespan  lower bound  highest peak     period"
			"      work  seconds\n");
	for (size_t i = 0; i < n && !rc; i++) {
		limit_text(lim, sizeof lim, limits[i]);
		if (!s[i]) {
			snprintf(line, sizeof line, "%-16s  no schedule\n", lim);
		} else {
			int64_t ms = 0, lb = 0, period = 0, k = 1, work = 0;
			double sec = 0;
			tessel_schedule_get(&ms, s[i], TESSEL_SCHED_MAKESPAN);
			tessel_schedule_get(&lb, s[i], TESSEL_SCHED_LOWER_BOUND);
			tessel_schedule_get(&period, s[i], TESSEL_SCHED_PERIOD);
			tessel_schedule_get(&k, s[i], TESSEL_SCHED_REPETEND_MICRO_BATCHES);
			/* a repetend of k micro-batches: P/k */
			if (k > 1)
				snprintf(per, sizeof per, "%lld/%lld", (long long)period,
					 (long long)k);
			else
				snprintf(per, sizeof per, "%lld", (long long)period);
			tessel_schedule_get(&work, s[i], TESSEL_SCHED_WORK);
			tessel_schedule_search_seconds(&sec, s[i]);
			snprintf(line, sizeof line,
				 "%-16s  %8lld  %11lld  %12lld  %9s  %8lld  %7.2f\n", lim,
				 (long long)ms, (long long)lb, (long long)highest_peak(s[i]),
				 per, (long long)work, sec);
		}
		rc = put(b, line);
	}
	return rc;
}

static int json(struct buf *b, tessel_schedule *const *s, const int64_t *limits,
		size_t n, int *lib_rc)
{
	char lim[64];
	int rc = put(b, "{\"sweep\": [");
	for (size_t i = 0; i < n && !rc; i++) {
		if (limits[i] == TESSEL_UNLIMITED)
			snprintf(lim, sizeof lim, "%s\n {\"memory_limit\": null, \"schedule\": ",
				 i ? "," : "");
		else
			snprintf(lim, sizeof lim, "%s\n {\"memory_limit\": %lld, \"schedule\": ",
				 i ? "," : "", (long long)limits[i]);
		rc = put(b, lim);
		if (!rc && !s[i]) {
			rc = put(b, "null");
		} else if (!rc) {
			char *text = NULL;
			*lib_rc = tessel_schedule_to_json(&text, s[i]);
			if (*lib_rc)
				return -1;
			rc = put(b, text);
			tessel_free(text);
		}
		if (!rc)
			rc = put(b, "}");
	}
	if (!rc)
		rc = put(b, "\n]}\n");
	return rc;
}

int cli_sweep_emit(tessel_schedule *const *s, const int64_t *limits, size_t n,
		   int as_json, const char *output)
{
	struct buf b = {0};
	int lib_rc = 0;
	int rc = as_json ? json(&b, s, limits, n, &lib_rc) : table(&b, s, limits, n);
	if (rc) {
		free(b.text);
		if (lib_rc)
			return cli_lib_error(lib_rc, "search --sweep");
		cli_error("search --sweep: out of memory");
		return CLI_EXIT_FAIL;
	}
	rc = cli_write_output(output, b.text);
	free(b.text);
	return rc ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}
