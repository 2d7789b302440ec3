/* Placement and schedule JSON: parsing, writing, round trips, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "helpers.h"
#include "tessel.h"

static const char *const data_files[] = {
	"vshape-4dev.json", "mshape-4dev.json", "kshape-4dev.json",
};
/* Their "memory_limit" (the same for every device). */
static const int64_t data_limits[] = { 4, 6, 4 };
#define NDATA (sizeof data_files / sizeof data_files[0])

static void expect_error(int rc, int code, const char *fragment,
			 const char *what)
{
	if (rc != code || !strstr(tessel_error_last(), fragment))
		print_error("%s: got %d (%s) \"%s\", wanted %d with \"%s\"\n",
			    what, rc, tessel_strerror(rc), tessel_error_last(),
			    code, fragment);
	assert_int_equal(rc, code);
	assert_int_equal(tessel_error_last_code(), code);
	assert_non_null(strstr(tessel_error_last(), fragment));
}

/* The two graphs have the same devices, limits, blocks, deps and stages. */
static void assert_same_graph(const tessel_graph *a, const tessel_graph *b)
{
	int64_t na, nb, la, lb;
	TH_OK(tessel_graph_get(&na, a, TESSEL_GRAPH_NDEVICES));
	TH_OK(tessel_graph_get(&nb, b, TESSEL_GRAPH_NDEVICES));
	assert_int_equal(na, nb);
	for (int d = 0; d < (int)na; d++) {
		TH_OK(tessel_graph_memory_limit(&la, a, d));
		TH_OK(tessel_graph_memory_limit(&lb, b, d));
		assert_int_equal(la, lb);
	}
	TH_OK(tessel_graph_get(&na, a, TESSEL_GRAPH_NBLOCKS));
	TH_OK(tessel_graph_get(&nb, b, TESSEL_GRAPH_NBLOCKS));
	assert_int_equal(na, nb);
	for (int gid = 0; gid < (int)na; gid++) {
		const char *sa, *sb;
		TH_OK(tessel_graph_block_name(&sa, a, gid));
		TH_OK(tessel_graph_block_name(&sb, b, gid));
		assert_string_equal(sa, sb);
		for (int at = TESSEL_BLOCK_KIND; at <= TESSEL_BLOCK_STAGE; at++)
			assert_int_equal(th_block(a, gid, at),
					 th_block(b, gid, at));
		int64_t nd = th_block(a, gid, TESSEL_BLOCK_NDEVICES);
		for (size_t i = 0; i < (size_t)nd; i++) {
			int x, y;
			TH_OK(tessel_graph_block_device(&x, a, gid, i));
			TH_OK(tessel_graph_block_device(&y, b, gid, i));
			assert_int_equal(x, y);
		}
		int64_t ndeps = th_block(a, gid, TESSEL_BLOCK_NDEPS);
		for (size_t i = 0; i < (size_t)ndeps; i++) {
			int x, y, ox, oy;
			int64_t lx, ly;
			double tx, ty;
			TH_OK(tessel_graph_block_dep(&x, a, gid, i));
			TH_OK(tessel_graph_block_dep(&y, b, gid, i));
			assert_int_equal(x, y);
			TH_OK(tessel_graph_block_dep_latency(&lx, &ox, a, gid, i));
			TH_OK(tessel_graph_block_dep_latency(&ly, &oy, b, gid, i));
			assert_int_equal(lx, ly);
			assert_int_equal(ox, oy);
			TH_OK(tessel_graph_block_dep_latency_time(&tx, NULL, a, gid, i));
			TH_OK(tessel_graph_block_dep_latency_time(&ty, NULL, b, gid, i));
			assert_true(tx == ty);
		}
		double da, db;
		int ga, gb;
		TH_OK(tessel_graph_block_duration(&da, &ga, a, gid));
		TH_OK(tessel_graph_block_duration(&db, &gb, b, gid));
		assert_true(da == db);
		assert_int_equal(ga, gb);
	}
	TH_OK(tessel_graph_get(&la, a, TESSEL_GRAPH_LATENCY));
	TH_OK(tessel_graph_get(&lb, b, TESSEL_GRAPH_LATENCY));
	assert_int_equal(la, lb);
	double sa, sb;
	TH_OK(tessel_graph_step(&sa, a));
	TH_OK(tessel_graph_step(&sb, b));
	assert_true(sa == sb);
	TH_OK(tessel_graph_latency_time(&sa, a));
	TH_OK(tessel_graph_latency_time(&sb, b));
	assert_true(sa == sb);
	const char *ua, *ub;
	TH_OK(tessel_graph_unit(&ua, a));
	TH_OK(tessel_graph_unit(&ub, b));
	assert_true((ua == NULL) == (ub == NULL));
	if (ua)
		assert_string_equal(ua, ub);
}

static tessel_graph *parse(const char *text)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_from_json(&g, text, strlen(text)));
	assert_non_null(g);
	return g;
}

/* ------------------------------------------------------------------------ */
/* Placements                                                                 */
/* ------------------------------------------------------------------------ */

static void test_data_files(void **state)
{
	(void)state;
	for (size_t i = 0; i < NDATA; i++) {
		tessel_graph *g = NULL, *h = NULL;
		size_t len;
		int64_t v;
		TH_OK(tessel_graph_from_file(&g, th_data_path(data_files[i])));
		char *text = th_read_file(th_data_path(data_files[i]), &len);
		assert_non_null(text);
		TH_OK(tessel_graph_from_json(&h, text, len));
		assert_same_graph(g, h);
		TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_NDEVICES));
		assert_int_equal(v, 4);
		TH_OK(tessel_graph_memory_limit(&v, g, 3));
		assert_int_equal(v, data_limits[i]);
		TH_OK(tessel_graph_validate(g));
		free(text);
		tessel_graph_free(g);
		tessel_graph_free(h);
	}
}

/* Placements are read in parts (the blocks one at a time, never the
 * whole tree): the same graph as the whole read, which a key with an
 * escape ("devic\u0065s") sends the reader back to. Data files, the
 * latency example and every preset as JSON, with and without spaces. */
static void same_both_ways(const char *text)
{
	const char *key = "\"devices\"";
	const char *at = strstr(text, key);
	assert_non_null(at);
	size_t len = strlen(text), pre = (size_t)(at - text);
	char *whole = malloc(len + 16);
	assert_non_null(whole);
	memcpy(whole, text, pre);
	strcpy(whole + pre, "\"devic\\u0065s\"");
	strcat(whole, at + strlen(key));
	tessel_graph *a = NULL, *b = NULL;
	TH_OK(tessel_graph_from_json(&a, text, len));
	TH_OK(tessel_graph_from_json(&b, whole, strlen(whole)));
	char *ja = NULL, *jb = NULL;
	TH_OK(tessel_graph_to_json(&ja, a));
	TH_OK(tessel_graph_to_json(&jb, b));
	assert_string_equal(ja, jb);
	tessel_free(ja);
	tessel_free(jb);
	tessel_graph_free(a);
	tessel_graph_free(b);
	free(whole);
}

static void test_parts_same_as_whole(void **state)
{
	(void)state;
	static const char *const files[] = {
		"vshape-4dev.json", "mshape-4dev.json", "kshape-4dev.json",
		"latency-1f1b.json",
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		size_t len;
		char *text = th_read_file(th_data_path(files[i]), &len);
		assert_non_null(text);
		same_both_ways(text);
		free(text);
	}
	static const char *const presets[] = {"vshape", "mshape", "kshape",
					      "nnshape", "xshape"};
	for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
		tessel_graph *g = NULL;
		char *text = NULL;
		TH_OK(tessel_preset(&g, presets[i], 8, 0, 6));
		TH_OK(tessel_graph_to_json(&text, g));
		same_both_ways(text);
		/* the same text on one line */
		size_t k = 0;
		for (size_t j = 0; text[j]; j++)
			if (text[j] != '\n')
				text[k++] = text[j];
		text[k] = '\0';
		same_both_ways(text);
		tessel_free(text);
		tessel_graph_free(g);
	}
	/* schedules: their entries in parts, the same schedule */
	tessel_schedule *s = th_search_preset("vshape", 4, TESSEL_UNLIMITED, 8, 1);
	char *text = NULL;
	TH_OK(tessel_schedule_to_json(&text, s));
	const char *at = strstr(text, "\"nmicros\"");
	assert_non_null(at);
	char *whole = malloc(strlen(text) + 16);
	assert_non_null(whole);
	memcpy(whole, text, (size_t)(at - text));
	strcpy(whole + (at - text), "\"nmicro\\u0073\"");
	strcat(whole, at + strlen("\"nmicros\""));
	tessel_schedule *p1 = NULL, *p2 = NULL;
	TH_OK(tessel_schedule_from_json(&p1, text, strlen(text)));
	TH_OK(tessel_schedule_from_json(&p2, whole, strlen(whole)));
	char *j1 = NULL, *j2 = NULL;
	TH_OK(tessel_schedule_to_json(&j1, p1));
	TH_OK(tessel_schedule_to_json(&j2, p2));
	assert_string_equal(j1, j2);
	assert_string_equal(j1, text);
	tessel_free(j1);
	tessel_free(j2);
	tessel_free(text);
	free(whole);
	tessel_schedule_free(p1);
	tessel_schedule_free(p2);
	tessel_schedule_free(s);
	/* blocks before "devices", a member after them, a forward "after" */
	same_both_ways("{\"blocks\": [{\"name\": \"b\", \"kind\": \"forward\", "
		       "\"span\": 2, \"memory\": 1, \"devices\": [1], \"after\": [\"a\"]},"
		       " {\"name\": \"a\", \"kind\": \"forward\", \"span\": 1, "
		       "\"memory\": 1, \"devices\": [0]}], \"devices\": 2, "
		       "\"memory_limit\": [4, 5]}");
}

static void test_vshape_content(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	int gid, x;
	int64_t v;
	TH_OK(tessel_graph_from_file(&g, th_data_path("vshape-4dev.json")));
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_NBLOCKS));
	assert_int_equal(v, 8);
	TH_OK(tessel_graph_find(&gid, g, "b4"));
	assert_int_equal(gid, 4);
	assert_int_equal(th_block(g, gid, TESSEL_BLOCK_KIND), TESSEL_KIND_BACKWARD);
	assert_int_equal(th_block(g, gid, TESSEL_BLOCK_SPAN), 3);
	assert_int_equal(th_block(g, gid, TESSEL_BLOCK_MEMORY), -1);
	assert_int_equal(th_block(g, gid, TESSEL_BLOCK_STAGE), -1);
	TH_OK(tessel_graph_block_device(&x, g, gid, 0));
	assert_int_equal(x, 3);
	TH_OK(tessel_graph_block_dep(&x, g, gid, 0));
	assert_int_equal(x, 3);
	tessel_graph_free(g);

	TH_OK(tessel_graph_from_file(&g, th_data_path("kshape-4dev.json")));
	TH_OK(tessel_graph_find(&gid, g, "mf"));
	assert_int_equal(th_block(g, gid, TESSEL_BLOCK_NDEVICES), 4);
	assert_int_equal(th_block(g, gid, TESSEL_BLOCK_NDEPS), 2);
	tessel_graph_free(g);
}

/* from_json -> to_json -> from_json keeps everything; to_json is stable. */
static void round_trip(const tessel_graph *g)
{
	char *a = NULL, *b = NULL;
	tessel_graph *h = NULL;
	TH_OK(tessel_graph_to_json(&a, g));
	TH_OK(tessel_graph_from_json(&h, a, strlen(a)));
	assert_same_graph(g, h);
	TH_OK(tessel_graph_to_json(&b, h));
	assert_string_equal(a, b);
	tessel_free(a);
	tessel_free(b);
	tessel_graph_free(h);
}

static const char mixed_placement[] =
	"{\"devices\": 3, \"memory_limit\": [5, -1, 7], \"comment\": \"ignored\",\n"
	" \"blocks\": [\n"
	"  {\"name\": \"s\", \"kind\": \"forward\", \"span\": 1, \"memory\": 0,"
	"   \"devices\": [2, 0, 1], \"after\": [\"w1\", \"b0\"], \"stage\": 3},\n"
	"  {\"name\": \"f0\", \"kind\": \"forward\", \"span\": 2, \"memory\": 3,"
	"   \"devices\": [0], \"stage\": 0, \"extra\": [1, {\"x\": null}]},\n"
	"  {\"name\": \"f1\", \"kind\": \"forward\", \"span\": 1, \"memory\": 2,"
	"   \"devices\": [1], \"after\": [\"f0\"], \"stage\": 1},\n"
	"  {\"name\": \"b1\", \"kind\": \"backward\", \"span\": 2, \"memory\": -1,"
	"   \"devices\": [1], \"after\": [\"f1\"]},\n"
	"  {\"name\": \"w1\", \"kind\": \"weight\", \"span\": 1, \"memory\": -1,"
	"   \"devices\": [1, 2], \"after\": [\"b1\"]},\n"
	"  {\"name\": \"b0\", \"kind\": \"backward\", \"span\": 3, \"memory\": -3,"
	"   \"devices\": [0], \"after\": [\"b1\"]}\n"
	" ]}\n";

static void test_placement_round_trip(void **state)
{
	(void)state;
	for (size_t i = 0; i < NDATA; i++) {
		tessel_graph *g = NULL;
		TH_OK(tessel_graph_from_file(&g, th_data_path(data_files[i])));
		round_trip(g);
		tessel_graph_free(g);
	}
	tessel_graph *g = parse(mixed_placement);
	int64_t v;
	int x;
	TH_OK(tessel_graph_memory_limit(&v, g, 1));
	assert_int_equal(v, TESSEL_UNLIMITED);
	TH_OK(tessel_graph_memory_limit(&v, g, 2));
	assert_int_equal(v, 7);
	assert_int_equal(th_block(g, 0, TESSEL_BLOCK_STAGE), 3);
	assert_int_equal(th_block(g, 3, TESSEL_BLOCK_STAGE), -1);
	assert_int_equal(th_block(g, 4, TESSEL_BLOCK_KIND), TESSEL_KIND_WEIGHT);
	TH_OK(tessel_graph_block_dep(&x, g, 0, 1));
	assert_int_equal(x, 5);
	round_trip(g);

	char *text = NULL;
	TH_OK(tessel_graph_to_json(&text, g));
	assert_non_null(strstr(text, "\"memory_limit\": [5, -1, 7],\n"));
	assert_non_null(strstr(text,
		"\n    {\"name\": \"s\", \"kind\": \"forward\", \"span\": 1, "
		"\"memory\": 0, \"devices\": [0, 1, 2], \"after\": [\"w1\", \"b0\"], "
		"\"stage\": 3},\n"));
	assert_non_null(strstr(text,
		"\n    {\"name\": \"b1\", \"kind\": \"backward\", \"span\": 2, "
		"\"memory\": -1, \"devices\": [1], \"after\": [\"f1\"]},\n"));
	assert_null(strstr(text, "comment"));
	tessel_free(text);

	/* Equal limits: one integer; no limits: no key. */
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, 9));
	TH_OK(tessel_graph_to_json(&text, g));
	assert_non_null(strstr(text, "{\n  \"devices\": 3,\n  \"memory_limit\": 9,\n"
				     "  \"blocks\": [\n    {"));
	assert_int_equal(text[strlen(text) - 1], '\n');
	tessel_free(text);
	round_trip(g);
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, TESSEL_UNLIMITED));
	TH_OK(tessel_graph_to_json(&text, g));
	assert_null(strstr(text, "memory_limit"));
	tessel_free(text);
	round_trip(g);
	tessel_graph_free(g);
}

/* Latencies in steps: the graph's and a dependency's own, both forms of
 * "after", written back as they were read. */
static const char latency_placement[] =
	"{\"devices\": 2, \"latency\": 2, \"blocks\": [\n"
	"  {\"name\": \"a\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]},\n"
	"  {\"name\": \"b\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [1],"
	"   \"after\": [{\"block\": \"a\", \"latency\": 5}]},\n"
	"  {\"name\": \"c\", \"kind\": \"backward\", \"span\": 2, \"memory\": -1, \"devices\": [0],"
	"   \"after\": [\"b\", {\"latency\": 0, \"block\": \"a\"}]}\n"
	" ]}\n";

static void test_placement_latency(void **state)
{
	(void)state;
	tessel_graph *g = parse(latency_placement);
	int64_t v;
	int own = -1;
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_LATENCY));
	assert_int_equal(v, 2);
	TH_OK(tessel_graph_block_dep_latency(&v, &own, g, 1, 0));
	assert_int_equal(v, 5);
	assert_int_equal(own, 1);
	TH_OK(tessel_graph_block_dep_latency(&v, &own, g, 2, 0));
	assert_int_equal(v, 2);
	assert_int_equal(own, 0);
	TH_OK(tessel_graph_block_dep_latency(&v, &own, g, 2, 1));
	assert_int_equal(v, 0);
	assert_int_equal(own, 1);
	double step = -1;
	TH_OK(tessel_graph_step(&step, g));
	assert_true(step == 0);
	round_trip(g);

	char *text = NULL;
	TH_OK(tessel_graph_to_json(&text, g));
	assert_non_null(strstr(text, "{\n  \"devices\": 2,\n  \"latency\": 2,\n  \"blocks\": ["));
	assert_non_null(strstr(text, "\"after\": [{\"block\": \"a\", \"latency\": 5}]}"));
	assert_non_null(strstr(text, "\"after\": [\"b\", {\"block\": \"a\", \"latency\": 0}]}"));
	assert_null(strstr(text, "step"));
	tessel_free(text);

	/* latency 0 is not written */
	TH_OK(tessel_graph_set_latency(g, 0));
	TH_OK(tessel_graph_to_json(&text, g));
	assert_int_equal(th_count(text, "\"latency\""), 2);
	assert_null(strstr(text, "  \"latency\": "));
	tessel_free(text);
	round_trip(g);
	tessel_graph_free(g);
}

/* Durations in ms with a picked step: every span is its duration rounded
 * up, within 1 %; latencies in ms too. */
static const char profiled_placement[] =
	"{\"devices\": 2, \"unit\": \"ms\", \"latency\": 0.2, \"blocks\": [\n"
	"  {\"name\": \"f0\", \"kind\": \"forward\", \"duration\": 1.37, \"memory\": 1, \"devices\": [0]},\n"
	"  {\"name\": \"f1\", \"kind\": \"forward\", \"duration\": 1.41, \"memory\": 1, \"devices\": [1],"
	"   \"after\": [{\"block\": \"f0\", \"latency\": 0.33}]},\n"
	"  {\"name\": \"b1\", \"kind\": \"backward\", \"duration\": 2.81, \"memory\": -1, \"devices\": [1],"
	"   \"after\": [\"f1\"]},\n"
	"  {\"name\": \"w1\", \"kind\": \"weight\", \"span\": 3, \"memory\": 0, \"devices\": [1],"
	"   \"after\": [\"b1\"]},\n"
	"  {\"name\": \"b0\", \"kind\": \"backward\", \"duration\": 2, \"memory\": -1, \"devices\": [0],"
	"   \"after\": [\"b1\"]}\n"
	" ]}\n";

static void check_rounding(const tessel_graph *g, int gid, double duration,
			   double step)
{
	int64_t span = th_block(g, gid, TESSEL_BLOCK_SPAN);
	double d = 0;
	int given = 0;
	TH_OK(tessel_graph_block_duration(&d, &given, g, gid));
	assert_true(d == duration);
	assert_int_equal(given, 1);
	/* rounded up (no more than float noise below), at most 1 % over */
	assert_true((double)span * step >= duration * (1 - 1e-9));
	assert_true((double)(span - 1) * step < duration);
	assert_true((double)span * step <= duration * 1.01 * (1 + 1e-12));
}

static void test_placement_durations(void **state)
{
	(void)state;
	tessel_graph *g = parse(profiled_placement);
	double step = 0, d;
	TH_OK(tessel_graph_step(&step, g));
	/* the largest 0.2 / k within 1 % for 1.37, 1.41, 2.81, 2, 0.2, 0.33 */
	assert_true(step > 0);
	const double values[] = {1.37, 1.41, 2.81, 2, 0.2, 0.33};
	double want = 0;
	TH_OK(tessel_pick_step(&want, values, 6));
	assert_true(step == want);
	int k = (int)(0.2 / step + 0.5);
	assert_true(fabs(0.2 / k - step) < 1e-15);
	check_rounding(g, 0, 1.37, step);
	check_rounding(g, 1, 1.41, step);
	check_rounding(g, 2, 2.81, step);
	check_rounding(g, 4, 2, step);
	/* w1 gave a span: it stays, in steps */
	assert_int_equal(th_block(g, 3, TESSEL_BLOCK_SPAN), 3);
	TH_OK(tessel_graph_block_duration(&d, NULL, g, 3));
	assert_true(fabs(d - 3 * step) < 1e-12);
	/* latencies in ms, rounded up to steps */
	int64_t v;
	TH_OK(tessel_graph_latency_time(&d, g));
	assert_true(d == 0.2);
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_LATENCY));
	assert_int_equal(v, k);
	TH_OK(tessel_graph_block_dep_latency_time(&d, NULL, g, 1, 0));
	assert_true(d == 0.33);
	TH_OK(tessel_graph_block_dep_latency(&v, NULL, g, 1, 0));
	assert_true((double)v * step >= 0.33 * (1 - 1e-9));
	assert_true((double)(v - 1) * step < 0.33);
	const char *unit = NULL;
	TH_OK(tessel_graph_unit(&unit, g));
	assert_string_equal(unit, "ms");
	round_trip(g);

	/* written with the step picked, durations and latencies as given */
	char *text = NULL;
	TH_OK(tessel_graph_to_json(&text, g));
	assert_non_null(strstr(text, "\n  \"step\": "));
	assert_non_null(strstr(text, "\n  \"unit\": \"ms\",\n  \"latency\": 0.2,\n"));
	assert_non_null(strstr(text, "{\"name\": \"f0\", \"kind\": \"forward\", \"duration\": 1.37, \"memory\": 1,"));
	assert_non_null(strstr(text, "\"duration\": 2.0, "));
	assert_non_null(strstr(text, "{\"name\": \"w1\", \"kind\": \"weight\", \"span\": 3, "));
	assert_non_null(strstr(text, "\"after\": [{\"block\": \"f0\", \"latency\": 0.33}]"));
	tessel_free(text);
	tessel_graph_free(g);

	/* an explicit step: 2.8 / 0.1 = 27.999... is 28 steps, 1.1 is 11,
	 * 0.25 rounds up to 3; no 1 % rule */
	g = parse("{\"devices\": 2, \"step\": 0.1, \"latency\": 0.25, \"blocks\": ["
		  "{\"name\": \"a\", \"kind\": \"forward\", \"duration\": 2.8, \"memory\": 0, \"devices\": [0]},"
		  "{\"name\": \"b\", \"kind\": \"forward\", \"duration\": 1.1, \"memory\": 0, \"devices\": [1], \"after\": [\"a\"]},"
		  "{\"name\": \"c\", \"kind\": \"forward\", \"duration\": 0.01, \"memory\": 0, \"devices\": [1], \"after\": [\"b\"]}]}");
	TH_OK(tessel_graph_step(&step, g));
	assert_true(step == 0.1);
	assert_int_equal(th_block(g, 0, TESSEL_BLOCK_SPAN), 28);
	assert_int_equal(th_block(g, 1, TESSEL_BLOCK_SPAN), 11);
	assert_int_equal(th_block(g, 2, TESSEL_BLOCK_SPAN), 1);
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_LATENCY));
	assert_int_equal(v, 3);
	round_trip(g);
	tessel_graph_free(g);

	/* a step without durations: spans in steps, latencies in the unit */
	g = parse("{\"devices\": 2, \"step\": 2, \"blocks\": ["
		  "{\"name\": \"a\", \"kind\": \"forward\", \"span\": 2, \"memory\": 0, \"devices\": [0]},"
		  "{\"name\": \"b\", \"kind\": \"forward\", \"span\": 1, \"memory\": 0, \"devices\": [1],"
		  " \"after\": [{\"block\": \"a\", \"latency\": 3}]}]}");
	TH_OK(tessel_graph_block_dep_latency(&v, NULL, g, 1, 0));
	assert_int_equal(v, 2);
	assert_int_equal(th_block(g, 0, TESSEL_BLOCK_SPAN), 2);
	TH_OK(tessel_graph_to_json(&text, g));
	assert_non_null(strstr(text, "\n  \"step\": 2.0,\n"));
	assert_non_null(strstr(text, "\"after\": [{\"block\": \"a\", \"latency\": 3.0}]"));
	tessel_free(text);
	round_trip(g);
	tessel_graph_free(g);

	/* built through the API: a latency in steps is written in the unit */
	TH_OK(tessel_graph_new(&g, 2));
	const int d0 = 0, d1 = 1;
	TH_OK(tessel_graph_add_block(NULL, g, "a", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 0, &d0, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "b", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 1, &d1, 1));
	TH_OK(tessel_graph_add_dep_latency(g, 0, 1, 3));
	TH_OK(tessel_graph_set_latency(g, 1));
	TH_OK(tessel_graph_set_step(g, 0.1));
	TH_OK(tessel_graph_set_block_duration(g, 0, 0.123456789012345678));
	TH_OK(tessel_graph_to_json(&text, g));
	assert_non_null(strstr(text, "\"latency\": 0.1,\n"));
	assert_non_null(strstr(text, "\"latency\": 0.30000000000000004}"));
	/* 17 digits where 15 would not read back the same */
	assert_non_null(strstr(text, "\"duration\": 0.12345678901234568,"));
	tessel_free(text);
	round_trip(g);
	tessel_graph_free(g);
}

/* doc/examples/gpt8-profiled.json: 8 stages of F, B and W blocks with
 * durations in ms and a transfer time of 0.2 ms; no step, so one is
 * picked: 0.2 / 10 = 0.02 ms (0.2 / 9 would round 0.96 up by 1.9 %). */
static void test_profiled_example(void **state)
{
	(void)state;
	char path[4096];
	const char *dir = getenv("TESSEL_DOC_EXAMPLES");
	snprintf(path, sizeof path, "%s/gpt8-profiled.json",
		 dir ? dir : "doc/examples");
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_from_file(&g, path));
	int64_t v;
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_NDEVICES));
	assert_int_equal(v, 8);
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_NBLOCKS));
	assert_int_equal(v, 24);
	double step = 0;
	TH_OK(tessel_graph_step(&step, g));
	assert_true(fabs(step - 0.02) < 1e-15);
	const char *unit = NULL;
	TH_OK(tessel_graph_unit(&unit, g));
	assert_string_equal(unit, "ms");
	/* 0.2 ms between stages: 10 steps */
	TH_OK(tessel_graph_get(&v, g, TESSEL_GRAPH_LATENCY));
	assert_int_equal(v, 10);
	static const struct {
		const char *name;
		int kind;
		double duration;
		int span;
		int memory;
	} want[] = {
		{ "f0", TESSEL_KIND_FORWARD, 1.58, 79, 1 },
		{ "f3", TESSEL_KIND_FORWARD, 1.37, 69, 1 },   /* 68.5 up */
		{ "f7", TESSEL_KIND_FORWARD, 1.84, 92, 1 },
		{ "b7", TESSEL_KIND_BACKWARD, 3.35, 168, 0 }, /* 167.5 up */
		{ "b4", TESSEL_KIND_BACKWARD, 2.81, 141, 0 }, /* 140.5 up */
		{ "b0", TESSEL_KIND_BACKWARD, 3.02, 151, 0 },
		{ "w0", TESSEL_KIND_WEIGHT, 1.10, 55, -1 },
		{ "w5", TESSEL_KIND_WEIGHT, 0.96, 48, -1 },
		{ "w7", TESSEL_KIND_WEIGHT, 1.21, 61, -1 },   /* 60.5 up */
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		int gid = -1, given = 0;
		double d = 0;
		TH_OK(tessel_graph_find(&gid, g, want[i].name));
		TH_OK(tessel_graph_block_duration(&d, &given, g, gid));
		assert_true(d == want[i].duration);
		assert_int_equal(given, 1);
		assert_int_equal(th_block(g, gid, TESSEL_BLOCK_SPAN), want[i].span);
		assert_int_equal(th_block(g, gid, TESSEL_BLOCK_KIND), want[i].kind);
		assert_int_equal(th_block(g, gid, TESSEL_BLOCK_MEMORY), want[i].memory);
	}
	/* every span within 1 % of its duration, and every stage on its own
	 * device with its F, B and W; memory freed by each micro-batch */
	int64_t sum[8] = { 0 };
	for (int gid = 0; gid < 24; gid++) {
		double d = 0;
		int dev = -1;
		TH_OK(tessel_graph_block_duration(&d, NULL, g, gid));
		int64_t span = th_block(g, gid, TESSEL_BLOCK_SPAN);
		assert_true(span * step >= d * (1 - 1e-9));
		assert_true(span * step <= d * 1.01);
		TH_OK(tessel_graph_block_device(&dev, g, gid, 0));
		assert_int_equal(th_block(g, gid, TESSEL_BLOCK_STAGE), dev);
		sum[dev] += th_block(g, gid, TESSEL_BLOCK_MEMORY);
	}
	for (int d = 0; d < 8; d++) {
		assert_int_equal(sum[d], 0);
		TH_OK(tessel_graph_memory_limit(&v, g, d));
		assert_int_equal(v, 8);
	}
	round_trip(g);
	tessel_graph_free(g);
}

static void test_placement_presets(void **state)
{
	(void)state;
	const char *names[] = { "vshape", "xshape", "mshape", "nnshape", "kshape" };
	size_t done = 0;
	for (size_t i = 0; i < 5; i++) {
		tessel_graph *g = NULL;
		/* every preset builds: a missing one is a failure, not a skip */
		TH_OK(tessel_preset(&g, names[i], 4, 0, 12));
		assert_non_null(g);
		round_trip(g);
		tessel_graph_free(g);
		done++;
	}
	assert_int_equal(done, 5);
}

static void test_text_length_and_nul(void **state)
{
	(void)state;
	/* Only `length` bytes are read: the garbage after them is ignored. */
	const char text[] = "{\"devices\": 1, \"blocks\": [{\"name\": \"a\", "
			    "\"kind\": \"forward\", \"span\": 1, \"memory\": 0, "
			    "\"devices\": [0]}]}GARBAGE";
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_from_json(&g, text, strlen(text) - 7));
	tessel_graph_free(g);
	g = (tessel_graph *)1;
	expect_error(tessel_graph_from_json(&g, text, strlen(text)),
		     TESSEL_EPARSE, "line 1, column", "garbage");
	assert_null(g);
	/* A NUL byte inside the text is a syntax error, not the end. */
	const char nul[] = "{\"devices\": 1,\0 \"blocks\": []}";
	expect_error(tessel_graph_from_json(&g, nul, sizeof nul - 1),
		     TESSEL_EPARSE, "NUL byte at offset 14", "NUL");
	expect_error(tessel_graph_from_json(&g, NULL, 3), TESSEL_EINVAL, "NULL",
		     "NULL text");
	expect_error(tessel_graph_from_json(NULL, "{}", 2), TESSEL_EINVAL, "NULL",
		     "NULL out");
	g = (tessel_graph *)1;
	expect_error(tessel_graph_from_file(&g, "/nonexistent/dir/p.json"),
		     TESSEL_EIO, "/nonexistent/dir/p.json", "missing file");
	assert_null(g);
	char *out = (char *)1;
	expect_error(tessel_graph_to_json(&out, NULL), TESSEL_EINVAL, "NULL",
		     "NULL graph");
	assert_null(out);
}

static void test_to_json_bad_utf8(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	int gid, dev = 0;
	char *out = NULL;
	TH_OK(tessel_graph_new(&g, 1));
	TH_OK(tessel_graph_add_block(&gid, g, "ok", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_add_block(&gid, g, "bad\xff", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 0, &dev, 1));
	TH_OK(tessel_graph_place(g, 1, &dev, 1));
	expect_error(tessel_graph_to_json(&out, g), TESSEL_EINVAL, "block 1",
		     "bad UTF-8");
	assert_null(out);
	tessel_graph_free(g);
}

/* One block "a" on device 0, with `extra` appended inside the block. */
#define ONE(extra)                                                            \
	"{\"devices\": 2, \"blocks\": [{\"name\": \"a\", \"kind\": \"forward\", " \
	"\"span\": 1, \"memory\": 1, \"devices\": [0]" extra "}]}"
/* Blocks "a" then "b" (after "a"), `b` the body of block b. */
#define TWO(b)                                                                \
	"{\"devices\": 2, \"blocks\": [{\"name\": \"a\", \"kind\": \"forward\", " \
	"\"span\": 1, \"memory\": 1, \"devices\": [0]}, {" b "}]}"
#define BODY_B "\"name\": \"b\", \"kind\": \"backward\", \"span\": 2, "

struct bad_case {
	const char *text;
	int code;
	const char *fragment;
};

static const struct bad_case bad_placements[] = {
	/* syntax */
	{ "{\n  \"devices\": 2,\n  \"blocks\": [\n    {\"name\": \"a\" \"kind\"}\n  ]\n}",
	  TESSEL_EPARSE, "line 4, column " },
	{ "", TESSEL_EPARSE, "empty" },
	{ "{\"devices\": 2, \"devices\": 3, \"blocks\": []}", TESSEL_EPARSE,
	  "duplicate" },
	{ "{\"devices\": 2, \"blocks\": [}", TESSEL_EPARSE, "line 1, column " },
	{ "{\"devices\": 99999999999999999999, \"blocks\": []}", TESSEL_EPARSE,
	  "too big" },
	/* root */
	{ "[1, 2]", TESSEL_EPARSE, "must be a JSON object, not an array" },
	{ "42", TESSEL_EPARSE, "must be a JSON object, not an integer" },
	/* devices */
	{ "{\"blocks\": []}", TESSEL_EPARSE, "\"devices\" is missing" },
	{ "{\"devices\": \"2\", \"blocks\": []}", TESSEL_EPARSE,
	  "\"devices\" must be an integer, not a string" },
	{ "{\"devices\": 2.0, \"blocks\": []}", TESSEL_EPARSE,
	  "\"devices\" must be an integer, not a real number" },
	{ "{\"devices\": 0, \"blocks\": []}", TESSEL_ERANGE,
	  "\"devices\" must be an integer in 1 .. 4096, got 0" },
	{ "{\"devices\": 9223372036854775807, \"blocks\": []}", TESSEL_ERANGE,
	  "got 9223372036854775807" },
	/* blocks */
	{ "{\"devices\": 2}", TESSEL_EPARSE, "\"blocks\" is missing" },
	{ "{\"devices\": 2, \"blocks\": {}}", TESSEL_EPARSE,
	  "\"blocks\" must be an array, not an object" },
	{ "{\"devices\": 2, \"blocks\": []}", TESSEL_EINVAL,
	  "\"blocks\" must not be empty" },
	{ "{\"devices\": 2, \"blocks\": [3]}", TESSEL_EPARSE,
	  "block 0: must be an object, not an integer" },
	/* name */
	{ TWO("\"kind\": \"forward\""), TESSEL_EPARSE,
	  "block 1: \"name\" is missing" },
	{ TWO("\"name\": 7"), TESSEL_EPARSE,
	  "block 1: \"name\" must be a string, not an integer" },
	{ TWO("\"name\": \"\""), TESSEL_EINVAL,
	  "block 1: \"name\" must not be empty" },
	{ TWO("\"name\": \"a\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [1]"),
	  TESSEL_EEXISTS, "block 1 (\"a\"): \"name\" is already used by block 0" },
	/* kind */
	{ TWO("\"name\": \"b\", \"kind\": \"sideways\""), TESSEL_EPARSE,
	  "block 1 (\"b\"): \"kind\" must be \"forward\", \"backward\" or \"weight\", not \"sideways\"" },
	{ TWO("\"name\": \"b\", \"kind\": null"), TESSEL_EPARSE,
	  "block 1 (\"b\"): \"kind\" must be a string, not null" },
	{ TWO("\"name\": \"b\""), TESSEL_EPARSE,
	  "block 1 (\"b\"): \"kind\" is missing" },
	/* span */
	{ TWO("\"name\": \"b\", \"kind\": \"forward\", \"span\": 0"), TESSEL_ERANGE,
	  "block 1 (\"b\"): \"span\" must be an integer in 1 .. 1000000, got 0" },
	{ TWO("\"name\": \"b\", \"kind\": \"forward\", \"span\": 1.5"), TESSEL_EPARSE,
	  "block 1 (\"b\"): \"span\" must be an integer, not a real number" },
	{ TWO("\"name\": \"b\", \"kind\": \"forward\", \"span\": true"), TESSEL_EPARSE,
	  "block 1 (\"b\"): \"span\" must be an integer, not true" },
	{ TWO("\"name\": \"b\", \"kind\": \"forward\", \"span\": 4294967297"),
	  TESSEL_ERANGE, "block 1 (\"b\"): \"span\" must be an integer in 1 .. 1000000" },
	{ TWO("\"name\": \"b\", \"kind\": \"forward\""), TESSEL_EPARSE,
	  "block 1 (\"b\"): \"span\" is missing" },
	/* memory */
	{ TWO(BODY_B "\"memory\": \"1\""), TESSEL_EPARSE,
	  "block 1 (\"b\"): \"memory\" must be an integer, not a string" },
	{ TWO(BODY_B "\"memory\": -2000000000"), TESSEL_ERANGE,
	  "block 1 (\"b\"): \"memory\" must be an integer in -1000000000 .. 1000000000" },
	{ TWO(BODY_B "\"devices\": [1]"), TESSEL_EPARSE,
	  "block 1 (\"b\"): \"memory\" is missing" },
	/* devices of a block */
	{ TWO(BODY_B "\"memory\": -1"), TESSEL_EPARSE,
	  "block 1 (\"b\"): \"devices\" is missing" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": 1"), TESSEL_EPARSE,
	  "block 1 (\"b\"): \"devices\" must be an array, not an integer" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": []"), TESSEL_EINVAL,
	  "block 1 (\"b\"): \"devices\" must not be empty" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [2]"), TESSEL_EINVAL,
	  "block 1 (\"b\"): \"devices\"[0]: unknown device 2 (devices are 0 .. 1)" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [0, -1]"), TESSEL_EINVAL,
	  "block 1 (\"b\"): \"devices\"[1]: unknown device -1" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1, 0, 1]"), TESSEL_EINVAL,
	  "block 1 (\"b\"): \"devices\" lists device 1 twice" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [\"0\"]"), TESSEL_EPARSE,
	  "block 1 (\"b\"): \"devices\"[0] must be an integer, not a string" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [99999999999]"), TESSEL_EINVAL,
	  "unknown device 99999999999" },
	/* after */
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": \"a\""),
	  TESSEL_EPARSE, "block 1 (\"b\"): \"after\" must be an array, not a string" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [0]"),
	  TESSEL_EPARSE, "block 1 (\"b\"): \"after\"[0] must be a block name (a string), not an integer" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [\"a\", \"zz\"]"),
	  TESSEL_ENOTFOUND, "block 1 (\"b\"): \"after\"[1]: unknown block \"zz\"" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [\"a\", \"a\"]"),
	  TESSEL_EEXISTS, "block 1 (\"b\"): \"after\": " },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [\"b\"]"),
	  TESSEL_ECYCLE, "block 1 (\"b\"): \"after\": " },
	{ "{\"devices\": 1, \"blocks\": ["
	  "{\"name\": \"a\", \"kind\": \"forward\", \"span\": 1, \"memory\": 0, \"devices\": [0], \"after\": [\"c\"]},"
	  "{\"name\": \"b\", \"kind\": \"forward\", \"span\": 1, \"memory\": 0, \"devices\": [0], \"after\": [\"a\"]},"
	  "{\"name\": \"c\", \"kind\": \"forward\", \"span\": 1, \"memory\": 0, \"devices\": [0], \"after\": [\"b\"]}]}",
	  TESSEL_ECYCLE, "cycle" },
	/* latency: steps, as neither a step nor a duration is given */
	{ "{\"devices\": 2, \"latency\": \"2\", \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_EPARSE, "\"latency\" must be an integer, not a string" },
	{ "{\"devices\": 2, \"latency\": -1, \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_ERANGE, "\"latency\" must be an integer in 0 .. 1000000, got -1" },
	{ "{\"devices\": 2, \"latency\": 1000001, \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_ERANGE, "\"latency\" must be an integer in 0 .. 1000000, got 1000001" },
	{ "{\"devices\": 2, \"latency\": 0.5, \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_EPARSE, "\"latency\" must be an integer number of steps, not a real number" },
	/* "after" objects */
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [{\"block\": \"a\", \"latency\": 1, \"lat\": 2}]"),
	  TESSEL_EPARSE, "block 1 (\"b\"): \"after\"[0]: unknown key \"lat\"" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [{\"latency\": 1}]"),
	  TESSEL_EPARSE, "block 1 (\"b\"): \"after\"[0]: \"block\" is missing" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [{\"block\": 0, \"latency\": 1}]"),
	  TESSEL_EPARSE, "block 1 (\"b\"): \"after\"[0]: \"block\" must be a string, not an integer" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [{\"block\": \"a\"}]"),
	  TESSEL_EPARSE, "block 1 (\"b\"): \"after\"[0]: \"latency\" is missing" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [{\"block\": \"a\", \"latency\": -2}]"),
	  TESSEL_ERANGE, "block 1 (\"b\"): \"after\"[0]: \"latency\" must be an integer in 0 .. 1000000, got -2" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [{\"block\": \"a\", \"latency\": 2000000}]"),
	  TESSEL_ERANGE, "block 1 (\"b\"): \"after\"[0]: \"latency\" must be an integer in 0 .. 1000000" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [{\"block\": \"a\", \"latency\": \"1\"}]"),
	  TESSEL_EPARSE, "block 1 (\"b\"): \"after\"[0]: \"latency\" must be an integer, not a string" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [{\"block\": \"zz\", \"latency\": 1}]"),
	  TESSEL_ENOTFOUND, "block 1 (\"b\"): \"after\"[0]: unknown block \"zz\"" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [[\"a\"]]"),
	  TESSEL_EPARSE, "block 1 (\"b\"): \"after\"[0] must be a block name (a string), not an array" },
	{ TWO(BODY_B "\"memory\": -1, \"devices\": [1], \"after\": [\"a\", {\"block\": \"a\", \"latency\": 1}]"),
	  TESSEL_EEXISTS, "block 1 (\"b\"): \"after\": " },
	/* durations, step and unit */
	{ TWO("\"name\": \"b\", \"kind\": \"forward\", \"span\": 2, \"duration\": 1.5, \"memory\": 0, \"devices\": [1]"),
	  TESSEL_EPARSE, "block 1 (\"b\"): give \"span\" (in steps) or \"duration\" (in the unit), not both" },
	{ TWO("\"name\": \"b\", \"kind\": \"forward\", \"duration\": 0, \"memory\": 0, \"devices\": [1]"),
	  TESSEL_ERANGE, "block 1 (\"b\"): \"duration\" must be a number > 0, got 0" },
	{ TWO("\"name\": \"b\", \"kind\": \"forward\", \"duration\": -1.5, \"memory\": 0, \"devices\": [1]"),
	  TESSEL_ERANGE, "block 1 (\"b\"): \"duration\" must be a number > 0, got -1.5" },
	{ TWO("\"name\": \"b\", \"kind\": \"forward\", \"duration\": \"1 ms\", \"memory\": 0, \"devices\": [1]"),
	  TESSEL_EPARSE, "block 1 (\"b\"): \"duration\" must be a number, not a string" },
	{ TWO("\"name\": \"b\", \"kind\": \"forward\", \"memory\": 0, \"devices\": [1]"),
	  TESSEL_EPARSE, "block 1 (\"b\"): \"span\" is missing (give \"span\" in steps or \"duration\")" },
	{ "{\"devices\": 2, \"step\": 0, \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_ERANGE, "\"step\" must be a number > 0, got 0" },
	{ "{\"devices\": 2, \"step\": \"1ms\", \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_EPARSE, "\"step\" must be a number, not a string" },
	{ "{\"devices\": 2, \"unit\": 3, \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_EPARSE, "\"unit\" must be a string, not an integer" },
	{ "{\"devices\": 2, \"unit\": \"m\\ns\", \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_EINVAL, "\"unit\": unit must not contain control characters" },
	{ "{\"devices\": 2, \"step\": 0.001, \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"duration\": 5000, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_ERANGE, "block 0 (\"a\"): \"duration\": " },
	{ "{\"devices\": 2, \"step\": 0.1, \"latency\": -0.2, \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_ERANGE, "\"latency\" must be a number >= 0, got -0.2" },
	{ "{\"devices\": 2, \"step\": 0.1, \"latency\": 1e6, \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_ERANGE, "\"latency\": latency 1e+06 is 10000000 steps" },
	{ "{\"devices\": 2, \"step\": 0.1, \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}, "
	  "{\"name\": \"b\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, "
	  "\"devices\": [1], \"after\": [{\"block\": \"a\", \"latency\": true}]}]}",
	  TESSEL_EPARSE, "block 1 (\"b\"): \"after\"[0]: \"latency\" must be a number, not true" },
	{ "{\"devices\": 2, \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"duration\": 0.001, \"memory\": 1, \"devices\": [0]}, "
	  "{\"name\": \"b\", \"kind\": \"forward\", \"duration\": 50000, \"memory\": 1, "
	  "\"devices\": [1], \"after\": [\"a\"]}]}",
	  TESSEL_ERANGE, "no \"step\" given and none picked: " },
	/* stage */
	{ ONE(", \"stage\": -3"), TESSEL_ERANGE,
	  "block 0 (\"a\"): \"stage\" must be an integer in 0 .. 1000000, got -3" },
	{ ONE(", \"stage\": \"x\""), TESSEL_EPARSE,
	  "block 0 (\"a\"): \"stage\" must be an integer, not a string" },
	/* memory_limit */
	{ "{\"devices\": 2, \"memory_limit\": [4], \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_EPARSE, "\"memory_limit\" has 1 entries, expected one per device (2)" },
	{ "{\"devices\": 2, \"memory_limit\": -5, \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_ERANGE, "\"memory_limit\" must be an integer in -1 .. " },
	{ "{\"devices\": 2, \"memory_limit\": [4, -2], \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_ERANGE, "\"memory_limit\"[1] must be an integer in -1 .. " },
	{ "{\"devices\": 2, \"memory_limit\": [4, null], \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_EPARSE, "\"memory_limit\"[1] must be an integer, not null" },
	{ "{\"devices\": 2, \"memory_limit\": \"lots\", \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_EPARSE, "\"memory_limit\" must be an integer or an array of integers, not a string" },
	{ "{\"devices\": 2, \"memory_limit\": 1000000000000000000, \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_ERANGE, "\"memory_limit\" must be an integer in -1 .. " },
	{ "{\"devices\": 2, \"memory_limit\": [0, 5], \"blocks\": [{\"name\": \"a\", "
	  "\"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]}]}",
	  TESSEL_EINFEASIBLE, "device 0" },
};

static void test_bad_placements(void **state)
{
	(void)state;
	size_t n = sizeof bad_placements / sizeof bad_placements[0];
	assert_true(n >= 20);
	for (size_t i = 0; i < n; i++) {
		const struct bad_case *c = &bad_placements[i];
		char what[64];
		tessel_graph *g = (tessel_graph *)1;
		snprintf(what, sizeof what, "bad placement %zu", i);
		tessel_error_clear();
		int rc = tessel_graph_from_json(&g, c->text, strlen(c->text));
		expect_error(rc, c->code, c->fragment, what);
		assert_null(g);
	}
}

static void test_bad_file_message(void **state)
{
	(void)state;
	char path[] = "/tmp/tessel-json-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char text[] = "{\n  \"devices\": 2,\n  \"blocks\": [,]\n}\n";
	assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	tessel_graph *g = NULL;
	expect_error(tessel_graph_from_file(&g, path), TESSEL_EPARSE, path,
		     "file syntax");
	assert_non_null(strstr(tessel_error_last(), ": line 3, column "));
	assert_null(g);
	unlink(path);
}

/* ------------------------------------------------------------------------ */
/* Schedules                                                                  */
/* ------------------------------------------------------------------------ */

/* Two devices; a weight block and a block on both devices; run one
 * micro-batch after the other (7 steps each). */
static const char pipe_placement[] =
	"{\"devices\": 2, \"memory_limit\": [3, -1], \"blocks\": [\n"
	" {\"name\": \"f0\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [0]},\n"
	" {\"name\": \"f1\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [1], \"after\": [\"f0\"]},\n"
	" {\"name\": \"b1\", \"kind\": \"backward\", \"span\": 2, \"memory\": -1, \"devices\": [1], \"after\": [\"f1\"]},\n"
	" {\"name\": \"w1\", \"kind\": \"weight\", \"span\": 1, \"memory\": 0, \"devices\": [1], \"after\": [\"b1\"]},\n"
	" {\"name\": \"b0\", \"kind\": \"backward\", \"span\": 2, \"memory\": -1, \"devices\": [0], \"after\": [\"b1\"]},\n"
	" {\"name\": \"s\", \"kind\": \"forward\", \"span\": 1, \"memory\": 0, \"devices\": [1, 0], \"after\": [\"w1\", \"b0\"], \"stage\": 2}\n"
	"]}";

#define PIPE_MICROS 3

static tessel_schedule *pipe_schedule(void)
{
	static const int64_t offset[] = { 0, 1, 2, 4, 4, 6 };
	tessel_graph *g = parse(pipe_placement);
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, PIPE_MICROS));
	tessel_graph_free(g);
	for (int64_t m = 0; m < PIPE_MICROS; m++)
		for (int gid = 0; gid < 6; gid++)
			TH_OK(tessel_schedule_set_step(s, gid, m, 7 * m + offset[gid]));
	TH_OK(tessel_schedule_validate(s));
	return s;
}

/* noinline: keeps GCC's -Wdangling-pointer from confusing the result with
 * the address of the local it was written through. */
static __attribute__((noinline)) char *sched_json(const tessel_schedule *s)
{
	char *text = NULL;
	TH_OK(tessel_schedule_to_json(&text, s));
	assert_non_null(text);
	return text;
}

static tessel_schedule *sched_parse(const char *text)
{
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_from_json(&s, text, strlen(text)));
	assert_non_null(s);
	return s;
}

struct entry_list {
	int64_t v[4096][5];
	size_t n;
};

static int collect(const tessel_entry *e, void *payload)
{
	struct entry_list *l = payload;
	if (l->n >= 4096)
		return 1;
	TH_OK(tessel_entry_get(&l->v[l->n][0], e, TESSEL_ENTRY_GID));
	TH_OK(tessel_entry_get(&l->v[l->n][1], e, TESSEL_ENTRY_MICRO_BATCH));
	TH_OK(tessel_entry_get(&l->v[l->n][2], e, TESSEL_ENTRY_START));
	TH_OK(tessel_entry_get(&l->v[l->n][3], e, TESSEL_ENTRY_PHASE));
	TH_OK(tessel_entry_get(&l->v[l->n][4], e, TESSEL_ENTRY_SPAN));
	l->n++;
	return 0;
}

/* Same graph, figures, search time and entries. */
static void assert_same_schedule(const tessel_schedule *a,
				 const tessel_schedule *b)
{
	const tessel_graph *ga, *gb;
	TH_OK(tessel_schedule_graph(&ga, a));
	TH_OK(tessel_schedule_graph(&gb, b));
	assert_same_graph(ga, gb);
	for (int at = TESSEL_SCHED_NDEVICES; at < TESSEL_SCHED_SEARCH_MICROSECONDS; at++)
		assert_int_equal(th_sched(a, at), th_sched(b, at));
	int64_t ua = th_sched(a, TESSEL_SCHED_SEARCH_MICROSECONDS);
	int64_t ub = th_sched(b, TESSEL_SCHED_SEARCH_MICROSECONDS);
	assert_true(ua - ub <= 1 && ub - ua <= 1);
	double sa, sb;
	TH_OK(tessel_schedule_search_seconds(&sa, a));
	TH_OK(tessel_schedule_search_seconds(&sb, b));
	assert_true(sa - sb < 1e-6 && sb - sa < 1e-6);
	for (int d = 0; d < (int)th_sched(a, TESSEL_SCHED_NDEVICES); d++) {
		int64_t pa, pb;
		TH_OK(tessel_schedule_peak_memory(&pa, a, d));
		TH_OK(tessel_schedule_peak_memory(&pb, b, d));
		assert_int_equal(pa, pb);
	}
	struct entry_list *la = calloc(1, sizeof *la), *lb = calloc(1, sizeof *lb);
	assert_non_null(la);
	assert_non_null(lb);
	TH_OK(tessel_schedule_foreach(a, TESSEL_ALL_DEVICES, collect, la));
	TH_OK(tessel_schedule_foreach(b, TESSEL_ALL_DEVICES, collect, lb));
	assert_int_equal(la->n, lb->n);
	assert_memory_equal(la->v, lb->v, la->n * sizeof la->v[0]);
	free(la);
	free(lb);
}

/* to_json(from_json(to_json(s))) == to_json(s), byte for byte. */
static void sched_round_trip(const tessel_schedule *s)
{
	char *a = sched_json(s);
	tessel_schedule *t = sched_parse(a);
	char *b = sched_json(t);
	assert_string_equal(a, b);
	assert_same_schedule(s, t);
	tessel_free(a);
	tessel_free(b);
	tessel_schedule_free(t);
}

static void test_schedule_layout(void **state)
{
	(void)state;
	tessel_schedule *s = pipe_schedule();
	char *text = sched_json(s);
	static const char *const expect[] = {
		"{\n  \"format\": \"tessel-schedule\",\n  \"version\": 1,\n"
		"  \"ndevs\": 2,\n  \"nmicros\": 3,\n  \"nsteps\": 21,\n",
		"\n  \"repetend\": [0, 0],\n  \"depth\": 0,\n"
		"  \"memory_limit\": [3, -1],\n  \"peak_memory\": [1, 1],\n",
		"\n  \"period_optimal\": false,\n",
		"\n  \"placement\": {\n    \"devices\": 2,\n"
		"    \"memory_limit\": [3, -1],\n    \"blocks\": [\n      {\"name\": \"f0\", ",
		"\"after\": [\"w1\", \"b0\"], \"stage\": 2}\n    ]\n  },\n  \"blocks\": [\n",
		"\n    {\"gid\": 0, \"name\": \"f0\", \"mid\": 0, \"step\": 0, \"span\": 1, "
		"\"memory\": 1, \"btype\": \"forward\", \"device\": [0], "
		"\"phase\": \"repetend\"},\n",
		"{\"gid\": 3, \"name\": \"w1\", \"mid\": 1, \"step\": 11, \"span\": 1, "
		"\"memory\": 0, \"btype\": \"backward\", \"kind\": \"weight\", "
		"\"device\": [1], \"phase\": \"repetend\"},\n"
		"    {\"gid\": 4, \"name\": \"b0\", \"mid\": 1, \"step\": 11, ",
		"\"device\": [0, 1], \"phase\": \"repetend\"}\n  ]\n}\n",
	};
	for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
		if (!strstr(text, expect[i]))
			print_error("missing:\n%s\nin:\n%s\n", expect[i], text);
		assert_non_null(strstr(text, expect[i]));
	}
	/* Starts never decrease along "blocks". */
	int64_t last = -1;
	size_t at = 0;
	while (strstr(text + at, "\"step\": ")) {
		at = (size_t)(strstr(text + at, "\"step\": ") - text) + 8;
		int64_t step = strtoll(text + at, NULL, 10);
		assert_true(step >= last);
		last = step;
	}
	tessel_free(text);
	tessel_schedule_free(s);
}

static void test_schedule_round_trip(void **state)
{
	(void)state;
	tessel_schedule *s = pipe_schedule();
	sched_round_trip(s);

	/* Read back from a file too. */
	char path[] = "/tmp/tessel-sched-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	char *a = sched_json(s);
	assert_int_equal(write(fd, a, strlen(a)), (ssize_t)strlen(a));
	close(fd);
	tessel_schedule *t = NULL;
	TH_OK(tessel_schedule_from_file(&t, path));
	TH_OK(tessel_schedule_validate(t));
	assert_same_schedule(s, t);
	tessel_schedule_free(t);
	unlink(path);
	t = (tessel_schedule *)1;
	expect_error(tessel_schedule_from_file(&t, path), TESSEL_EIO, path,
		     "missing schedule file");
	assert_null(t);
	tessel_free(a);
	tessel_schedule_free(s);
}

/* Figures the writer takes from the schedule survive a round trip. */
static void test_schedule_figures(void **state)
{
	(void)state;
	tessel_schedule *s = pipe_schedule();
	char *a = sched_json(s);
	static const char *const edits[][2] = {
		{ "\"period\": 0", "\"period\": 7" },
		{ "\"resource_bound\": 0", "\"resource_bound\": 5" },
		{ "\"period_optimal\": false", "\"period_optimal\": true" },
		{ "\"lower_bound\": 0", "\"lower_bound\": 19" },
		{ "\"repetend\": [0, 0]", "\"repetend\": [7, 14]" },
		{ "\"depth\": 0", "\"depth\": 7" },
		{ "\"search_seconds\": 0.0", "\"search_seconds\": 0.012345" },
		{ "\"mid\": 0, \"step\": 0, \"span\": 1, \"memory\": 1, \"btype\": \"forward\", \"device\": [0], \"phase\": \"repetend\"",
		  "\"mid\": 0, \"step\": 0, \"span\": 1, \"memory\": 1, \"btype\": \"forward\", \"device\": [0], \"phase\": \"warmup\"" },
		{ "\"step\": 20, \"span\": 1, \"memory\": 0, \"btype\": \"forward\", \"device\": [0, 1], \"phase\": \"repetend\"",
		  "\"step\": 20, \"span\": 1, \"memory\": 0, \"btype\": \"forward\", \"device\": [1, 0], \"phase\": \"cooldown\"" },
	};
	for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
		char *b = th_replace_first(a, edits[i][0], edits[i][1]);
		tessel_free(a);
		a = b;
	}
	tessel_schedule *t = sched_parse(a);
	assert_int_equal(th_sched(t, TESSEL_SCHED_PERIOD), 7);
	assert_int_equal(th_sched(t, TESSEL_SCHED_RESOURCE_BOUND), 5);
	assert_int_equal(th_sched(t, TESSEL_SCHED_PERIOD_OPTIMAL), 1);
	assert_int_equal(th_sched(t, TESSEL_SCHED_LOWER_BOUND), 19);
	assert_int_equal(th_sched(t, TESSEL_SCHED_REPETEND_BEGIN), 7);
	assert_int_equal(th_sched(t, TESSEL_SCHED_REPETEND_END), 14);
	assert_int_equal(th_sched(t, TESSEL_SCHED_DEPTH), 7);
	assert_int_equal(th_sched(t, TESSEL_SCHED_SEARCH_MICROSECONDS), 12345);
	assert_int_equal(th_sched(t, TESSEL_SCHED_MAKESPAN), 21);
	double sec;
	TH_OK(tessel_schedule_search_seconds(&sec, t));
	assert_true(sec > 0.012345 - 1e-9 && sec < 0.012345 + 1e-9);
	struct entry_list *l = calloc(1, sizeof *l);
	assert_non_null(l);
	TH_OK(tessel_schedule_foreach(t, TESSEL_ALL_DEVICES, collect, l));
	assert_int_equal(l->n, 18);
	assert_int_equal(l->v[0][3], TESSEL_PHASE_WARMUP);
	assert_int_equal(l->v[1][3], TESSEL_PHASE_REPETEND);
	assert_int_equal(l->v[17][3], TESSEL_PHASE_COOLDOWN);
	free(l);
	sched_round_trip(t);
	char *b = sched_json(t);
	assert_non_null(strstr(b, "\"search_seconds\": 0.012345,\n"));
	assert_non_null(strstr(b, "\"repetend\": [7, 14],\n  \"depth\": 7,\n"));
	tessel_free(b);
	tessel_schedule_free(t);
	tessel_free(a);
	tessel_schedule_free(s);
}

/* A schedule of a placement with durations, a step, a unit and latencies
 * keeps them all; the step and the unit stand at the top level too. */
static void test_schedule_timed(void **state)
{
	(void)state;
	tessel_graph *g = parse(
		"{\"devices\": 2, \"step\": 0.1, \"unit\": \"ms\", \"latency\": 0.15, \"blocks\": [\n"
		" {\"name\": \"f0\", \"kind\": \"forward\", \"duration\": 0.29, \"memory\": 1, \"devices\": [0]},\n"
		" {\"name\": \"f1\", \"kind\": \"forward\", \"duration\": 0.3, \"memory\": 1, \"devices\": [1],"
		"  \"after\": [{\"block\": \"f0\", \"latency\": 0.42}]},\n"
		" {\"name\": \"b1\", \"kind\": \"backward\", \"span\": 2, \"memory\": -1, \"devices\": [1], \"after\": [\"f1\"]},\n"
		" {\"name\": \"b0\", \"kind\": \"backward\", \"duration\": 0.5, \"memory\": -1, \"devices\": [0], \"after\": [\"b1\"]}\n"
		"]}");
	/* spans 3, 3, 2, 5; latencies 5 (f0 -> f1) and 2 (b1 -> b0) */
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 2));
	tessel_graph_free(g);
	static const int64_t start[] = { 0, 8, 11, 15 };
	for (int m = 0; m < 2; m++)
		for (int gid = 0; gid < 4; gid++)
			TH_OK(tessel_schedule_set_step(s, gid, m, 20 * m + start[gid]));
	TH_OK(tessel_schedule_validate(s));
	sched_round_trip(s);
	char *a = sched_json(s);
	assert_non_null(strstr(a, "  \"depth\": 0,\n  \"step\": 0.1,\n  \"unit\": \"ms\",\n"));
	assert_non_null(strstr(a, "\n  \"placement\": {\n    \"devices\": 2,\n"
				  "    \"step\": 0.1,\n    \"unit\": \"ms\",\n    \"latency\": 0.15,\n"));
	assert_non_null(strstr(a, "\"duration\": 0.29, "));
	assert_non_null(strstr(a, "\"after\": [{\"block\": \"f0\", \"latency\": 0.42}]"));
	assert_non_null(strstr(a, "{\"gid\": 0, \"name\": \"f0\", \"mid\": 0, \"step\": 0, \"span\": 3, "));
	tessel_schedule *t = sched_parse(a);
	const tessel_graph *tg = NULL;
	TH_OK(tessel_schedule_graph(&tg, t));
	double d;
	TH_OK(tessel_graph_step(&d, tg));
	assert_true(d == 0.1);
	int64_t v;
	TH_OK(tessel_graph_block_dep_latency(&v, NULL, tg, 1, 0));
	assert_int_equal(v, 5);
	TH_OK(tessel_graph_get(&v, tg, TESSEL_GRAPH_LATENCY));
	assert_int_equal(v, 2);
	TH_OK(tessel_schedule_validate(t));
	tessel_schedule_free(t);

	/* without the top-level copies (older files): the same schedule */
	char *b = th_replace_first(a, "  \"step\": 0.1,\n  \"unit\": \"ms\",\n", "");
	t = sched_parse(b);
	assert_same_schedule(s, t);
	tessel_schedule_free(t);
	free(b);
	/* copies that disagree with the placement */
	b = th_replace_first(a, "  \"step\": 0.1,\n", "  \"step\": 0.2,\n");
	expect_error(tessel_schedule_from_json(&t, b, strlen(b)), TESSEL_EPARSE,
		     "\"step\" is 0.2 but the placement's is 0.1",
		     "step mismatch");
	free(b);
	b = th_replace_first(a, "  \"step\": 0.1,\n", "  \"step\": \"0.1\",\n");
	expect_error(tessel_schedule_from_json(&t, b, strlen(b)), TESSEL_EPARSE,
		     "\"step\" must be a number, not a string", "step type");
	free(b);
	b = th_replace_first(a, "  \"unit\": \"ms\",\n", "  \"unit\": \"s\",\n");
	expect_error(tessel_schedule_from_json(&t, b, strlen(b)), TESSEL_EPARSE,
		     "\"unit\" is \"s\" but the placement's is \"ms\"", "unit mismatch");
	free(b);
	/* a later f1 breaks the latency of 0.42 ms (5 steps) */
	b = th_replace_first(a, "\"mid\": 1, \"step\": 28,", "\"mid\": 1, \"step\": 24,");
	t = sched_parse(b);
	expect_error(tessel_schedule_validate(t), TESSEL_EVIOLATION,
		     "latency of 5 steps", "latency broken");
	tessel_schedule_free(t);
	free(b);
	tessel_free(a);
	tessel_schedule_free(s);

	/* a placement without a step: no top-level "step" */
	s = pipe_schedule();
	a = sched_json(s);
	assert_null(strstr(a, "  \"step\""));
	assert_null(strstr(a, "\"unit\""));
	b = th_replace_first(a, "  \"depth\": 0,\n", "  \"depth\": 0,\n  \"step\": 1,\n");
	expect_error(tessel_schedule_from_json(&t, b, strlen(b)), TESSEL_EPARSE,
		     "the placement has no step", "step without a step");
	free(b);
	tessel_free(a);
	tessel_schedule_free(s);
}

static void test_schedule_unplaced(void **state)
{
	(void)state;
	tessel_graph *g = parse(pipe_placement);
	tessel_schedule *s = NULL;
	char *out = (char *)1;
	TH_OK(tessel_schedule_new(&s, g, 2));
	expect_error(tessel_schedule_to_json(&out, s), TESSEL_EINVAL,
		     "not placed", "unplaced");
	assert_null(out);
	expect_error(tessel_schedule_to_json(&out, NULL), TESSEL_EINVAL, "NULL",
		     "NULL schedule");
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

/* One edit of the pipeline schedule's JSON and the error it must give. */
struct bad_edit {
	const char *from, *to;
	int code;
	const char *fragment;
};

#define LAST_ENTRY                                                            \
	"{\"gid\": 5, \"name\": \"s\", \"mid\": 2, \"step\": 20, \"span\": 1, " \
	"\"memory\": 0, \"btype\": \"forward\", \"device\": [0, 1], "         \
	"\"phase\": \"repetend\"}"
#define FIRST_ENTRY                                                           \
	"{\"gid\": 0, \"name\": \"f0\", \"mid\": 0, \"step\": 0, \"span\": 1, " \
	"\"memory\": 1, \"btype\": \"forward\", \"device\": [0], "            \
	"\"phase\": \"repetend\"}"

static const struct bad_edit bad_schedules[] = {
	/* entries */
	{ ",\n    " LAST_ENTRY, "", TESSEL_EPARSE,
	  "\"blocks\" has no entry for block 5 (\"s\") of micro-batch 2" },
	{ "\"name\": \"s\", \"mid\": 2", "\"name\": \"s\", \"mid\": 1",
	  TESSEL_EPARSE, "\"blocks\"[17]: block 5 (\"s\") of micro-batch 1 appears twice" },
	{ "{\"gid\": 5, \"name\": \"s\", \"mid\": 2", "{\"gid\": 6, \"name\": \"s\", \"mid\": 2",
	  TESSEL_ERANGE, "\"blocks\"[17]: \"gid\" must be an integer in 0 .. 5, got 6" },
	{ "{\"gid\": 5, \"name\": \"s\", \"mid\": 2", "{\"gid\": -1, \"name\": \"s\", \"mid\": 2",
	  TESSEL_ERANGE, "\"blocks\"[17]: \"gid\"" },
	{ "{\"gid\": 5, \"name\": \"s\", \"mid\": 2", "{\"gid\": \"5\", \"name\": \"s\", \"mid\": 2",
	  TESSEL_EPARSE, "\"blocks\"[17]: \"gid\" must be an integer, not a string" },
	{ "\"name\": \"s\", \"mid\": 2", "\"name\": \"s\", \"mid\": 3",
	  TESSEL_ERANGE, "\"blocks\"[17]: \"mid\" must be an integer in 0 .. 2, got 3" },
	{ "\"name\": \"s\", \"mid\": 2", "\"name\": \"s\"",
	  TESSEL_EPARSE, "\"blocks\"[17]: \"mid\" is missing" },
	{ "\"mid\": 0, \"step\": 0,", "\"mid\": 0, \"step\": -1,",
	  TESSEL_ERANGE, "\"blocks\"[0]: \"step\" must be an integer in 0 .. " },
	{ "\"mid\": 0, \"step\": 0,", "\"mid\": 0, \"step\": 0.5,",
	  TESSEL_EPARSE, "\"blocks\"[0]: \"step\" must be an integer, not a real number" },
	{ FIRST_ENTRY, "{\"gid\": 0, \"name\": \"f0\", \"mid\": 0, \"step\": 0, \"span\": 2, "
	  "\"memory\": 1, \"btype\": \"forward\", \"device\": [0], \"phase\": \"repetend\"}",
	  TESSEL_EPARSE, "\"blocks\"[0]: \"span\" is 2 but block 0 (\"f0\") has span 1" },
	{ FIRST_ENTRY, "{\"gid\": 0, \"name\": \"f0\", \"mid\": 0, \"step\": 0, \"span\": 1, "
	  "\"memory\": 4, \"btype\": \"forward\", \"device\": [0], \"phase\": \"repetend\"}",
	  TESSEL_EPARSE, "\"blocks\"[0]: \"memory\" is 4 but block 0 (\"f0\") has memory 1" },
	{ "\"gid\": 0, \"name\": \"f0\", \"mid\": 0", "\"gid\": 0, \"name\": \"f1\", \"mid\": 0",
	  TESSEL_EPARSE, "\"blocks\"[0]: \"name\" is \"f1\" but block 0 is \"f0\"" },
	{ FIRST_ENTRY, "{\"gid\": 0, \"name\": \"f0\", \"mid\": 0, \"step\": 0, \"span\": 1, "
	  "\"memory\": 1, \"btype\": \"forward\", \"device\": [1], \"phase\": \"repetend\"}",
	  TESSEL_EPARSE, "\"blocks\"[0]: \"device\" does not match the devices of block 0 (\"f0\")" },
	{ FIRST_ENTRY, "{\"gid\": 0, \"name\": \"f0\", \"mid\": 0, \"step\": 0, \"span\": 1, "
	  "\"memory\": 1, \"btype\": \"forward\", \"device\": [0, 1], \"phase\": \"repetend\"}",
	  TESSEL_EPARSE, "\"blocks\"[0]: \"device\" lists 2 devices but block 0 (\"f0\") has 1" },
	{ FIRST_ENTRY, "{\"gid\": 0, \"name\": \"f0\", \"mid\": 0, \"step\": 0, \"span\": 1, "
	  "\"memory\": 1, \"btype\": \"backward\", \"device\": [0], \"phase\": \"repetend\"}",
	  TESSEL_EPARSE, "\"blocks\"[0]: \"btype\" is \"backward\" but block 0 (\"f0\") needs \"forward\"" },
	{ "\"btype\": \"backward\", \"kind\": \"weight\"", "\"btype\": \"backward\", \"kind\": \"forward\"",
	  TESSEL_EPARSE, "\"kind\" is \"forward\" but block 3 (\"w1\") is \"weight\"" },
	{ FIRST_ENTRY, "{\"gid\": 0, \"name\": \"f0\", \"mid\": 0, \"step\": 0, \"span\": 1, "
	  "\"memory\": 1, \"btype\": \"forward\", \"device\": [0], \"phase\": \"steady\"}",
	  TESSEL_EPARSE, "\"blocks\"[0]: \"phase\" must be \"warmup\", \"repetend\" or \"cooldown\", not \"steady\"" },
	{ FIRST_ENTRY, "[]", TESSEL_EPARSE, "\"blocks\"[0]: must be an object, not an array" },
	/* top level */
	{ "\"format\": \"tessel-schedule\"", "\"format\": \"other\"", TESSEL_EPARSE,
	  "\"format\" must be \"tessel-schedule\", not \"other\"" },
	{ "\"format\": \"tessel-schedule\",", "", TESSEL_EPARSE, "\"format\" is missing" },
	{ "\"version\": 1", "\"version\": 2", TESSEL_EUNSUPPORTED, "\"version\" 2" },
	{ "\"ndevs\": 2", "\"ndevs\": 3", TESSEL_EPARSE,
	  "\"ndevs\" is 3 but the placement has 2 devices" },
	{ "\"nmicros\": 3", "\"nmicros\": 2000000", TESSEL_ERANGE, "\"nmicros\"" },
	{ "\"nmicros\": 3", "\"nmicros\": 0", TESSEL_ERANGE, "\"nmicros\"" },
	{ "\"period\": 0", "\"period\": -7", TESSEL_ERANGE, "\"period\" must be a number >= 0" },
	{ "\"period_optimal\": false", "\"period_optimal\": 1", TESSEL_EPARSE,
	  "\"period_optimal\" must be true or false, not an integer" },
	{ "\"repetend\": [0, 0]", "\"repetend\": [5, 2]", TESSEL_ERANGE, "\"repetend\"[1]" },
	{ "\"repetend\": [0, 0]", "\"repetend\": [5]", TESSEL_EPARSE, "\"repetend\" must be [begin, end]" },
	{ "\"search_seconds\": 0.0", "\"search_seconds\": -1.5", TESSEL_ERANGE, "\"search_seconds\"" },
	{ "\"search_seconds\": 0.0", "\"search_seconds\": \"fast\"", TESSEL_EPARSE,
	  "\"search_seconds\" must be a number, not a string" },
	{ "\"memory_limit\": [3, -1],\n  \"peak", "\"memory_limit\": [4, -1],\n  \"peak",
	  TESSEL_EPARSE, "\"memory_limit\"[0] is 4 but the placement says 3" },
	{ "\"peak_memory\": [1, 1]", "\"peak_memory\": [1]", TESSEL_EPARSE,
	  "\"peak_memory\" has 1 entries" },
	{ "\"placement\": {", "\"placement\": 5, \"x\": {", TESSEL_EPARSE,
	  "\"placement\" must be an object, not an integer" },
	{ "\"devices\": 2", "\"devices\": 0", TESSEL_ERANGE,
	  "\"placement\": \"devices\" must be an integer in 1 .. 4096" },
	{ "\"name\": \"f1\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [1], \"after\": [\"f0\"]",
	  "\"name\": \"f1\", \"kind\": \"forward\", \"span\": 1, \"memory\": 1, \"devices\": [1], \"after\": [\"b0\"]",
	  TESSEL_ECYCLE, "\"placement\": " },
	{ "\"blocks\": [\n    {\"gid\"", "\"blocks\": {}, \"x\": [\n    {\"gid\"", TESSEL_EPARSE,
	  "\"blocks\" must be an array, not an object" },
	{ "\"nsteps\": 21,", "\"nsteps\": 21", TESSEL_EPARSE, "line 7, column " },
};

static void test_bad_schedules(void **state)
{
	(void)state;
	tessel_schedule *s = pipe_schedule();
	char *good = sched_json(s);
	for (size_t i = 0; i < sizeof bad_schedules / sizeof bad_schedules[0]; i++) {
		const struct bad_edit *c = &bad_schedules[i];
		char what[64];
		char *text = th_replace_first(good, c->from, c->to);
		tessel_schedule *t = (tessel_schedule *)1;
		snprintf(what, sizeof what, "bad schedule %zu", i);
		expect_error(tessel_schedule_from_json(&t, text, strlen(text)),
			     c->code, c->fragment, what);
		assert_null(t);
		free(text);
	}
	tessel_schedule *t = (tessel_schedule *)1;
	expect_error(tessel_schedule_from_json(&t, "[]", 2), TESSEL_EPARSE,
		     "must be a JSON object", "array root");
	assert_null(t);
	expect_error(tessel_schedule_from_json(&t, "", 0), TESSEL_EPARSE,
		     "empty", "empty schedule");
	expect_error(tessel_schedule_from_json(&t, "{}", 2), TESSEL_EPARSE,
		     "\"placement\" is missing", "empty object");
	tessel_free(good);
	tessel_schedule_free(s);
}

/* nmicros x blocks beyond 100 million entries is refused before any
 * allocation. */
static void test_schedule_too_many_entries(void **state)
{
	(void)state;
	size_t cap = 64 * 1024, len = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len,
		"{\"format\": \"tessel-schedule\", \"version\": 1, \"ndevs\": 1, "
		"\"nmicros\": 1000000, \"blocks\": [], "
		"\"placement\": {\"devices\": 1, \"blocks\": [");
	for (int i = 0; i < 101; i++)
		len += (size_t)snprintf(text + len, cap - len,
			"%s{\"name\": \"b%d\", \"kind\": \"forward\", \"span\": 1, "
			"\"memory\": 0, \"devices\": [0]}", i ? ", " : "", i);
	len += (size_t)snprintf(text + len, cap - len, "]}}");
	assert_true(len < cap);
	tessel_schedule *t = (tessel_schedule *)1;
	expect_error(tessel_schedule_from_json(&t, text, len), TESSEL_ERANGE,
		     "\"nmicros\" (1000000) times 101 blocks is more than 100000000 entries",
		     "too many entries");
	assert_null(t);
	/* within the limit, but far more than the text lists: refused
	 * before the schedule of 10^8 entries is made */
	len = 0;
	len += (size_t)snprintf(text + len, cap - len,
		"{\"format\": \"tessel-schedule\", \"version\": 1, \"ndevs\": 1, "
		"\"nmicros\": 1000000, \"blocks\": [{\"gid\": 0, \"mid\": 0, \"step\": 0}], "
		"\"placement\": {\"devices\": 1, \"blocks\": [");
	for (int i = 0; i < 100; i++)
		len += (size_t)snprintf(text + len, cap - len,
			"%s{\"name\": \"b%d\", \"kind\": \"forward\", \"span\": 1, "
			"\"memory\": 0, \"devices\": [0]}", i ? ", " : "", i);
	len += (size_t)snprintf(text + len, cap - len, "]}}");
	assert_true(len < cap);
	expect_error(tessel_schedule_from_json(&t, text, len), TESSEL_EPARSE,
		     "\"blocks\" has 1 entries, but 1000000 micro-batches of 100 blocks need 100000000",
		     "far fewer entries than nmicros says");
	assert_null(t);
	free(text);
	/* a file that is no text (/dev/zero) is read up to its first NUL,
	 * not until memory runs out */
	expect_error(tessel_schedule_from_file(&t, "/dev/zero"), TESSEL_EPARSE,
		     "/dev/zero: NUL byte at offset 0", "/dev/zero");
	assert_null(t);
}

/* A schedule found by the search (heuristic mode under valgrind). */
/* A placement with more blocks than a graph may hold is refused by a scan
 * of the text, before the parse builds anything; strings with commas,
 * brackets and escaped quotes do not confuse the count. */
static void test_placement_too_many_blocks(void **state)
{
	(void)state;
	const char head[] = "{\"devices\": 1, \"note\": \"[,,\\\"]\", \"blocks\": [";
	size_t n = (size_t)TESSEL_MAX_BLOCKS + 1, each = 3; /* "{}," */
	size_t len = sizeof head - 1 + n * each + 2;
	char *text = malloc(len + 1);
	assert_non_null(text);
	memcpy(text, head, sizeof head - 1);
	char *p = text + sizeof head - 1;
	for (size_t i = 0; i < n; i++, p += each)
		memcpy(p, "{},", each);
	memcpy(p - 1, "]}", 2);
	*(p + 1) = '\0';
	tessel_graph *g = NULL;
	th_expect_error(tessel_graph_from_json(&g, text, strlen(text)), TESSEL_ERANGE,
			"found before parsing");
	assert_null(g);
	/* exactly the most: not refused by the scan (the blocks are then
	 * read, and these empty ones refused for their missing name); a
	 * parse of a million objects, not for a slow checker */
	if (th_under_checker()) {
		free(text);
		return;
	}
	memcpy(text + sizeof head - 1 + (n - 1) * each - 1, "]}", 3);
	int rc = tessel_graph_from_json(&g, text, strlen(text));
	assert_int_not_equal(rc, TESSEL_OK);
	assert_null(strstr(tessel_error_last(), "found before parsing"));
	free(text);
}

static void test_searched_round_trip(void **state)
{
	(void)state;
	tessel_schedule *s = th_search_preset("vshape", 4, 4, 8,
					      th_under_checker());
	sched_round_trip(s);
	char *a = sched_json(s);
	tessel_schedule *t = sched_parse(a);
	TH_OK(tessel_schedule_validate(t));
	tessel_free(a);
	tessel_schedule_free(t);
	tessel_schedule_free(s);
}


static int64_t sched_figure(const tessel_schedule *s, tessel_schedule_attr p)
{
	int64_t v = -1;
	TH_OK(tessel_schedule_get(&v, s, p));
	return v;
}

/* "period" is steps per micro-batch (the format's rule): for a repetend
 * of k micro-batches P_k / k, with P_k in "repetend_period"; files that
 * give P_k in "period" (1.8.6 and before: k > 1 without
 * "repetend_period") read the same. */
/* The figures a schedule file gives that its entries decide are checked
 * against them when read (1.8.7 printed "valid" with a period of 1 on a
 * placement whose devices are busy 4 steps a micro-batch, and with an
 * "nsteps" of 5 for a makespan of 48). */
static void test_figures_checked(void **state)
{
	(void)state;
	tessel_schedule *s = th_search_preset("vshape", 4, 4, 8,
					      th_under_checker());
	int64_t makespan = sched_figure(s, TESSEL_SCHED_MAKESPAN);
	int64_t peak0 = 0;
	TH_OK(tessel_schedule_peak_memory(&peak0, s, 0));
	char *full = sched_json(s);
	tessel_schedule_free(s);
	/* (without the figure per micro-batch, which the period must match) */
	char *written = th_replace_first(full, "  \"period_per_micro_batch\": 4.0,\n", "");
	tessel_free(full);
	struct {
		const char *from, *to, *says;
	} bad[3];
	char f0[64], t0[64], f2[64], t2[64];
	snprintf(f0, sizeof f0, "\"nsteps\": %lld,", (long long)makespan);
	snprintf(t0, sizeof t0, "\"nsteps\": %lld,", (long long)makespan - 1);
	snprintf(f2, sizeof f2, "\"peak_memory\": [%lld,", (long long)peak0);
	snprintf(t2, sizeof t2, "\"peak_memory\": [%lld,", (long long)peak0 + 1);
	bad[0].from = f0, bad[0].to = t0, bad[0].says = "the makespan";
	bad[1].from = "\"period\": 4,", bad[1].to = "\"period\": 1,",
	bad[1].says = "no repetend has it";
	bad[2].from = f2, bad[2].to = t2, bad[2].says = "the entries reach";
	for (int i = 0; i < 3; i++) {
		assert_non_null(strstr(written, bad[i].from));
		char *t = th_replace_first(written, bad[i].from, bad[i].to);
		tessel_schedule *r = NULL;
		th_expect_error(tessel_schedule_from_json(&r, t, strlen(t)),
				TESSEL_EPARSE, bad[i].says);
		assert_null(r);
		free(t);
	}
	tessel_schedule *r = sched_parse(written);
	tessel_schedule_free(r);
	free(written);
}

static void test_period_per_micro_batch(void **state)
{
	(void)state;
	tessel_schedule *s = th_search_preset("vshape", 4, 4, 8,
					      th_under_checker());
	char *written = sched_json(s);
	tessel_schedule_free(s);
	/* (without the figure per micro-batch the k = 1 file gives) */
	char *a = th_replace_first(written, "  \"period_per_micro_batch\": 4.0,\n", "");
	tessel_free(written);
	const char *ok[] = {
		/* written by this version: P_k 9, k 2 */
		"\"period\": 4.5,\n  \"repetend_micro_batches\": 2,\n"
		"  \"repetend_period\": 9,",
		/* 1.8.6: P_k in "period" */
		"\"period\": 9,\n  \"repetend_micro_batches\": 2,\n"
		"  \"period_per_micro_batch\": 4.5,",
		/* 1.1 to 1.3: P_k in "period", nothing else */
		"\"period\": 9,\n  \"repetend_micro_batches\": 2,",
	};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		char *t = th_replace_first(a, "\"period\": 4,", ok[i]);
		tessel_schedule *r = sched_parse(t);
		assert_int_equal(sched_figure(r, TESSEL_SCHED_PERIOD), 9);
		assert_int_equal(sched_figure(r, TESSEL_SCHED_REPETEND_MICRO_BATCHES), 2);
		char *w = sched_json(r);
		assert_non_null(strstr(w, "\"period\": 4.5,"));
		assert_non_null(strstr(w, "\"repetend_micro_batches\": 2,"));
		assert_non_null(strstr(w, "\"repetend_period\": 9,"));
		assert_non_null(strstr(w, "\"period_per_micro_batch\": 4.5"));
		/* and what it wrote reads back to the same bytes */
		tessel_schedule *r2 = sched_parse(w);
		char *w2 = sched_json(r2);
		assert_string_equal(w, w2);
		tessel_free(w);
		tessel_free(w2);
		tessel_schedule_free(r);
		tessel_schedule_free(r2);
		free(t);
	}
	/* k dividing P_k: an integer per micro-batch */
	char *t = th_replace_first(a, "\"period\": 4,",
			   "\"period\": 4,\n  \"repetend_micro_batches\": 3,\n"
			   "  \"repetend_period\": 12,");
	tessel_schedule *r = sched_parse(t);
	assert_int_equal(sched_figure(r, TESSEL_SCHED_PERIOD), 12);
	char *w = sched_json(r);
	assert_non_null(strstr(w, "\"period\": 4,"));
	assert_non_null(strstr(w, "\"repetend_period\": 12,"));
	tessel_free(w);
	tessel_schedule_free(r);
	free(t);
	const char *bad[] = {
		"\"period\": 4.5,\n  \"repetend_micro_batches\": 2,",
		"\"repetend_period\": 9,",
		"\"period\": 4.5,",
		"\"period\": 4.5,\n  \"repetend_micro_batches\": 2,\n"
		"  \"repetend_period\": 10,",
		"\"period\": 9,\n  \"repetend_micro_batches\": 2,\n"
		"  \"period_per_micro_batch\": 4.4,",
		"\"period\": \"9\",",
		"\"period\": -1,",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		t = th_replace_first(a, "\"period\": 4,", bad[i]);
		tessel_schedule *x = NULL;
		int rc = tessel_schedule_from_json(&x, t, strlen(t));
		assert_true(rc < 0);
		assert_null(x);
		free(t);
	}
	free(a);
}

/* "makespan_optimal" is read without "period_optimal" too */
static void test_optimal_flags_alone(void **state)
{
	(void)state;
	tessel_schedule *s = th_search_preset("vshape", 4, 4, 8,
					      th_under_checker());
	char *a = sched_json(s);
	tessel_schedule_free(s);
	char *t = th_replace_first(a, "  \"period_optimal\": true,\n", "");
	tessel_schedule *r = sched_parse(t);
	assert_int_equal(sched_figure(r, TESSEL_SCHED_MAKESPAN_OPTIMAL), 1);
	assert_int_equal(sched_figure(r, TESSEL_SCHED_PERIOD_OPTIMAL), 0);
	tessel_schedule_free(r);
	char *u = th_replace_first(t, "\"makespan_optimal\": true", "\"makespan_optimal\": \"yes\"");
	th_expect_error(tessel_schedule_from_json(&r, u, strlen(u)),
			TESSEL_EPARSE, "makespan_optimal");
	free(u);
	free(t);
	tessel_free(a);
}

/* A raw control character is not JSON, in a key the quick scan of the
 * top level meets as much as anywhere */
static void test_raw_control_in_key(void **state)
{
	(void)state;
	tessel_schedule *s = th_search_preset("vshape", 4, 4, 8,
					      th_under_checker());
	char *a = sched_json(s);
	tessel_schedule_free(s);
	char *t = th_replace_first(a, "{\n", "{\n  \"x\001\": 1,\n");
	tessel_schedule *r = NULL;
	th_expect_error(tessel_schedule_from_json(&r, t, strlen(t)),
			TESSEL_EPARSE, "control character");
	assert_null(r);
	free(t);
	tessel_free(a);
	const char *pl = "{\"devices\": 1, \"x\t\": 0, \"blocks\": [{\"name\": \"f\", "
			 "\"kind\": \"forward\", \"span\": 1, \"memory\": 0, "
			 "\"devices\": [0]}]}";
	tessel_graph *g = NULL;
	th_expect_error(tessel_graph_from_json(&g, pl, strlen(pl)),
			TESSEL_EPARSE, "control character");
	assert_null(g);
}

/* An integer a double cannot hold is refused where a number is read as
 * one, not rounded */
static void test_inexact_integer_refused(void **state)
{
	(void)state;
#define INEXACT_FMT "{\"devices\": 1, \"step\": %s, \"blocks\": [{\"name\": \"f\", " \
	"\"kind\": \"forward\", \"duration\": %s, \"memory\": 0, \"devices\": [0]}]}"
	char text[512];
	tessel_graph *g = NULL;
	snprintf(text, sizeof text, INEXACT_FMT, "1", "9007199254740993");
	th_expect_error(tessel_graph_from_json(&g, text, strlen(text)),
			TESSEL_ERANGE, "9007199254740993");
	snprintf(text, sizeof text, INEXACT_FMT, "9007199254740993", "1");
	th_expect_error(tessel_graph_from_json(&g, text, strlen(text)),
			TESSEL_ERANGE, "9007199254740993");
	assert_null(g);
	/* 2^53 itself, and reals, are fine */
	snprintf(text, sizeof text, INEXACT_FMT, "9007199254740992", "9007199254740992");
	TH_OK(tessel_graph_from_json(&g, text, strlen(text)));
	tessel_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_files),
		cmocka_unit_test(test_parts_same_as_whole),
		cmocka_unit_test(test_vshape_content),
		cmocka_unit_test(test_placement_round_trip),
		cmocka_unit_test(test_placement_latency),
		cmocka_unit_test(test_placement_durations),
		cmocka_unit_test(test_profiled_example),
		cmocka_unit_test(test_placement_presets),
		cmocka_unit_test(test_text_length_and_nul),
		cmocka_unit_test(test_to_json_bad_utf8),
		cmocka_unit_test(test_bad_placements),
		cmocka_unit_test(test_bad_file_message),
		cmocka_unit_test(test_schedule_layout),
		cmocka_unit_test(test_schedule_round_trip),
		cmocka_unit_test(test_schedule_figures),
		cmocka_unit_test(test_schedule_timed),
		cmocka_unit_test(test_schedule_unplaced),
		cmocka_unit_test(test_bad_schedules),
		cmocka_unit_test(test_schedule_too_many_entries),
		cmocka_unit_test(test_searched_round_trip),
		cmocka_unit_test(test_period_per_micro_batch),
		cmocka_unit_test(test_figures_checked),
		cmocka_unit_test(test_optimal_flags_alone),
		cmocka_unit_test(test_raw_control_in_key),
		cmocka_unit_test(test_inexact_integer_refused),
		cmocka_unit_test(test_placement_too_many_blocks),
	};
	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
