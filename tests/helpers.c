#include "helpers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

char *th_read_file(const char *path, size_t *length)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len - 1 == 0) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!buf)
		return NULL;
	buf[len] = '\0';
	if (length)
		*length = len;
	return buf;
}

const char *th_data_path(const char *name)
{
	static char path[4096];
	const char *dir = getenv("TESSEL_EXAMPLES");
	snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/data", name);
	return path;
}

void th_check_ok(int rc, const char *what, const char *file, int line)
{
	if (rc != TESSEL_OK) {
		print_error("%s:%d: %s returned %d (%s): %s\n", file, line, what, rc,
			    tessel_strerror(rc), tessel_error_last());
		fail();
	}
}

int64_t th_sched(const tessel_schedule *s, tessel_schedule_attr attr)
{
	int64_t v = -1;
	TH_OK(tessel_schedule_get(&v, s, attr));
	return v;
}

int th_under_checker(void)
{
	return getenv("TESSEL_UNDER_VALGRIND") != NULL ||
	       getenv("TESSEL_UNDER_CHECKER") != NULL;
}

void th_expect_error(int rc, int code, const char *fragment)
{
	if (rc != code || !strstr(tessel_error_last(), fragment))
		print_error("got %d \"%s\", wanted %d with \"%s\"\n", rc,
			    tessel_error_last(), code, fragment);
	assert_int_equal(rc, code);
	assert_non_null(strstr(tessel_error_last(), fragment));
}

int64_t th_entry(const tessel_entry *e, tessel_entry_attr attr)
{
	int64_t v = -7;
	TH_OK(tessel_entry_get(&v, e, attr));
	return v;
}
char *th_replace_first(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	if (!at) {
		print_error("\"%s\" not found in:\n%s\n", from, text);
		fail();
	}
	size_t head = (size_t)(at - text), nf = strlen(from), nt = strlen(to);
	char *out = malloc(strlen(text) - nf + nt + 1);
	assert_non_null(out);
	memcpy(out, text, head);
	memcpy(out + head, to, nt);
	strcpy(out + head + nt, at + nf);
	return out;
}


int64_t th_block(const tessel_graph *g, int gid, tessel_block_attr attr)
{
	int64_t v = -7;
	TH_OK(tessel_graph_block_get(&v, g, gid, attr));
	return v;
}

size_t th_count(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

int64_t th_work_limit(void)
{
	return th_under_checker() ? TH_CHECKER_WORK : TESSEL_WORK_AUTO;
}

tessel_options *th_options(int64_t nmicros)
{
	tessel_options *o = NULL;
	TH_OK(tessel_options_new(&o));
	TH_OK(tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, nmicros));
	TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, th_work_limit()));
	return o;
}

tessel_schedule *th_search(const tessel_graph *g, int64_t nmicros, int fast,
			   int64_t time_limit_ms, int threads)
{
	tessel_options *o = th_options(nmicros);
	tessel_schedule *s = NULL;
	TH_OK(tessel_options_set(o, TESSEL_OPT_FAST, fast));
	TH_OK(tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, time_limit_ms));
	TH_OK(tessel_options_set(o, TESSEL_OPT_THREADS, threads));
	TH_OK(tessel_search(&s, g, o));
	tessel_options_free(o);
	return s;
}

tessel_schedule *th_search_preset(const char *name, int ndevices,
				  int64_t memory, int64_t nmicros, int fast)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_preset(&g, name, ndevices, 0, memory));
	tessel_schedule *s = th_search(g, nmicros, fast, 0, 0);
	tessel_graph_free(g);
	return s;
}

tessel_graph *th_chain(int ndevices, int n, const char *const names[],
		       const int devices[], const tessel_kind kinds[],
		       const int spans[], const int memory[])
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, ndevices));
	for (int i = 0; i < n; i++) {
		int gid = -1;
		TH_OK(tessel_graph_add_block(&gid, g, names[i], kinds[i],
					     spans[i], memory[i]));
		assert_int_equal(gid, i);
		TH_OK(tessel_graph_place(g, gid, &devices[i], 1));
		if (i > 0)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	return g;
}

tessel_schedule *th_alt_schedule(int recompute, int offload, int timed)
{
	tessel_graph *g = NULL;
	static const char *const names[4] = {"f0", "f1", "b1", "b0"};
	static const int dev[4] = {0, 1, 1, 0}, span[4] = {2, 2, 4, 4},
			 mem[4] = {4, 4, -4, -4};
	static const int64_t at[2][4] = {{0, 2, 6, 12}, {2, 4, 12, 16}};
	TH_OK(tessel_graph_new(&g, 2));
	for (int i = 0; i < 4; i++) {
		TH_OK(tessel_graph_add_block(NULL, g, names[i],
					     i < 2 ? TESSEL_KIND_FORWARD
						   : TESSEL_KIND_BACKWARD,
					     span[i], mem[i]));
		TH_OK(tessel_graph_place(g, i, &dev[i], 1));
		if (i > 0)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	TH_OK(tessel_graph_set_offload(g, 0, 3, 4, 2));
	TH_OK(tessel_graph_set_recompute(g, 1, 2, 3, 2));
	if (timed) {
		TH_OK(tessel_graph_set_step(g, 0.5));
		TH_OK(tessel_graph_set_unit(g, "ms"));
	}
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 2));
	tessel_graph_free(g);
	for (int m = 0; m < 2; m++)
		for (int b = 0; b < 4; b++)
			TH_OK(tessel_schedule_set_step(s, b, m, at[m][b]));
	for (int m = 0; m < 2 && offload; m++)
		TH_OK(tessel_schedule_set_choice(s, 0, m, TESSEL_CHOICE_OFFLOAD,
						 2 + 2 * m, 10 + 4 * m));
	if (recompute)
		TH_OK(tessel_schedule_set_choice(s, 1, 0, TESSEL_CHOICE_RECOMPUTE,
						 0, 0));
	TH_OK(tessel_schedule_validate(s));
	return s;
}

/* A device whose limit holds one activation (4) and offloads both: f0
 * (device 0, 2 steps, +4) of micro-batch 1 starts at 4, when the offload
 * of micro-batch 0 (2-4) has freed its memory, and the reload of
 * micro-batch 1 at 10, when b0 of micro-batch 0 starts and frees its own.
 * (Device 1 has no limit.) */
tessel_schedule *th_wait_schedule(void)
{
	tessel_graph *g = NULL;
	static const char *const names[4] = {"f0", "f1", "b1", "b0"};
	static const int dev[4] = {0, 1, 1, 0}, span[4] = {2, 2, 4, 4},
			 mem[4] = {4, 4, -4, -4};
	static const int64_t at[2][4] = {{0, 2, 4, 10}, {4, 8, 10, 14}};
	TH_OK(tessel_graph_new(&g, 2));
	for (int i = 0; i < 4; i++) {
		TH_OK(tessel_graph_add_block(NULL, g, names[i],
					     i < 2 ? TESSEL_KIND_FORWARD
						   : TESSEL_KIND_BACKWARD,
					     span[i], mem[i]));
		TH_OK(tessel_graph_place(g, i, &dev[i], 1));
		if (i > 0)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	TH_OK(tessel_graph_set_offload(g, 0, 3, 4, 2));
	TH_OK(tessel_graph_set_memory_limit(g, 0, 4));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 2));
	tessel_graph_free(g);
	for (int m = 0; m < 2; m++)
		for (int b = 0; b < 4; b++)
			TH_OK(tessel_schedule_set_step(s, b, m, at[m][b]));
	TH_OK(tessel_schedule_set_choice(s, 0, 0, TESSEL_CHOICE_OFFLOAD, 2, 8));
	TH_OK(tessel_schedule_set_choice(s, 0, 1, TESSEL_CHOICE_OFFLOAD, 6, 10));
	TH_OK(tessel_schedule_validate(s));
	return s;
}
