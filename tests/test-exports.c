/* Exports: the PyTorch pipelining CSV, the Chrome trace JSON and the SVG
 * picture, read back and checked against the schedule; the text grid and
 * every export of a schedule that recomputes and offloads activations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "helpers.h"
#include "tessel.h"

#define D 4
#define NM 8

static int have_program(const char *name)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
	return system(cmd) == 0;
}

/* Write text to a new temporary file ending in `suffix`; returns its path
 * (static buffer). */
static const char *write_temp(const char *text, const char *suffix)
{
	static char path[128];
	snprintf(path, sizeof path, "/tmp/tessel-exports-XXXXXX%s", suffix);
	int fd = mkstemps(path, (int)strlen(suffix));
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* ------------------------------------------------------------------------ */
/* PyTorch CSV                                                                */
/* ------------------------------------------------------------------------ */

typedef struct action {
	int stage;
	char type[16]; /* F B I W SEND_F RECV_F SEND_B RECV_B REDUCE_GRAD
			* UNSHARD RESHARD */
	long long mb;
} action;

typedef struct csv {
	int nranks;
	action *acts[64];
	size_t nacts[64];
} csv;

static action parse_action(const char *tok)
{
	action a;
	int used = 0;
	memset(&a, 0, sizeof a);
	if (sscanf(tok, "%d%15[A-Z_]%n", &a.stage, a.type, &used) == 2
	    && tok[used] == '\0' && (strcmp(a.type, "REDUCE_GRAD") == 0 ||
				     strcmp(a.type, "UNSHARD") == 0 ||
				     strcmp(a.type, "RESHARD") == 0)) {
		a.mb = -1; /* these have no micro-batch */
		return a;
	}
	if (sscanf(tok, "%d%15[A-Z_]%lld%n", &a.stage, a.type, &a.mb, &used) != 3
	    || tok[used] != '\0')
		fail_msg("bad action \"%s\"", tok);
	return a;
}

/* Split the CSV into rows and actions. */
static void parse_csv(csv *c, const char *text)
{
	memset(c, 0, sizeof *c);
	char *copy = strdup(text);
	assert_non_null(copy);
	char *save_line = NULL;
	for (char *line = strtok_r(copy, "\n", &save_line); line;
	     line = strtok_r(NULL, "\n", &save_line)) {
		assert_true(c->nranks < 64);
		int r = c->nranks++;
		size_t cap = strlen(line) / 2 + 1;
		c->acts[r] = calloc(cap, sizeof(action));
		assert_non_null(c->acts[r]);
		char *save = NULL;
		for (char *tok = strtok_r(line, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			assert_true(c->nacts[r] < cap);
			c->acts[r][c->nacts[r]++] = parse_action(tok);
		}
	}
	free(copy);
}

static void csv_free(csv *c)
{
	for (int r = 0; r < c->nranks; r++)
		free(c->acts[r]);
}

static int is_compute(const action *a)
{
	return strlen(a->type) == 1;
}

/* The rank's compute actions equal the schedule's order of device r. */
static void check_rank_order(const csv *c, const tessel_schedule *s, int r)
{
	const tessel_graph *g = NULL;
	TH_OK(tessel_schedule_graph(&g, s));
	tessel_iter *it = NULL;
	TH_OK(tessel_iter_new(&it, s, r));
	const tessel_entry *e;
	size_t i = 0;
	while (tessel_iter_next(&e, it) == TESSEL_OK) {
		while (i < c->nacts[r] && !is_compute(&c->acts[r][i]))
			i++;
		assert_true(i < c->nacts[r]);
		const action *a = &c->acts[r][i++];
		int64_t stage, kind = th_entry(e, TESSEL_ENTRY_KIND);
		TH_OK(tessel_graph_block_get(&stage, g,
					     (int)th_entry(e, TESSEL_ENTRY_GID),
					     TESSEL_BLOCK_STAGE));
		assert_int_equal(a->stage, stage);
		assert_int_equal(a->mb, th_entry(e, TESSEL_ENTRY_MICRO_BATCH));
		assert_string_equal(a->type,
				    kind == TESSEL_KIND_FORWARD ? "F" : "B");
	}
	while (i < c->nacts[r] && !is_compute(&c->acts[r][i]))
		i++;
	assert_int_equal(i, c->nacts[r]);
	tessel_iter_free(it);
}

/* PyTorch's rules on the compute actions: every (stage, mb) F and B once,
 * each stage on one rank, F before B on that rank. */
static void check_torch_rules(const csv *c, int nstages, int nmicros)
{
	int rank_of[64];
	int seen_f[64][64], seen_b[64][64];
	assert_true(nstages <= 64 && nmicros <= 64);
	memset(seen_f, 0, sizeof seen_f);
	memset(seen_b, 0, sizeof seen_b);
	for (int st = 0; st < nstages; st++)
		rank_of[st] = -1;
	for (int r = 0; r < c->nranks; r++) {
		for (size_t i = 0; i < c->nacts[r]; i++) {
			const action *a = &c->acts[r][i];
			if (!is_compute(a))
				continue;
			assert_in_range(a->stage, 0, nstages - 1);
			assert_in_range(a->mb, 0, nmicros - 1);
			if (rank_of[a->stage] < 0)
				rank_of[a->stage] = r;
			assert_int_equal(rank_of[a->stage], r);
			if (strcmp(a->type, "F") == 0) {
				seen_f[a->stage][a->mb]++;
			} else {
				assert_string_equal(a->type, "B");
				/* its forward came earlier on this rank */
				assert_int_equal(seen_f[a->stage][a->mb], 1);
				seen_b[a->stage][a->mb]++;
			}
		}
	}
	for (int st = 0; st < nstages; st++) {
		for (int m = 0; m < nmicros; m++) {
			assert_int_equal(seen_f[st][m], 1);
			assert_int_equal(seen_b[st][m], 1);
		}
	}
}

static void test_torch_csv(void **state)
{
	(void)state;
	tessel_schedule *s = th_search_preset("vshape", D, TESSEL_UNLIMITED, NM, 0);
	char *text = NULL;
	TH_OK(tessel_schedule_to_torch_csv(&text, s, 0));
	assert_non_null(text);
	assert_int_equal(text[strlen(text) - 1], '\n');
	csv c;
	parse_csv(&c, text);
	assert_int_equal(c.nranks, D);
	size_t total = 0;
	for (int r = 0; r < D; r++) {
		check_rank_order(&c, s, r);
		total += c.nacts[r];
	}
	assert_int_equal(total, 2 * D * NM);
	check_torch_rules(&c, D, NM);
	/* vshape: stage d on device d */
	for (int r = 0; r < D; r++)
		for (size_t i = 0; i < c.nacts[r]; i++)
			assert_int_equal(c.acts[r][i].stage, r);
	csv_free(&c);
	tessel_free(text);
	tessel_schedule_free(s);
}

/* Index of the matching action (stage, type, mb) on rank r, or -1. */
static long find_action(const csv *c, int r, int stage, const char *type,
			long long mb)
{
	for (size_t i = 0; i < c->nacts[r]; i++) {
		const action *a = &c->acts[r][i];
		if (a->stage == stage && a->mb == mb
		    && strcmp(a->type, type) == 0)
			return (long)i;
	}
	return -1;
}

static void test_torch_csv_comms(void **state)
{
	(void)state;
	tessel_schedule *s = th_search_preset("vshape", D, TESSEL_UNLIMITED, NM, 0);
	char *plain = NULL, *text = NULL;
	TH_OK(tessel_schedule_to_torch_csv(&plain, s, 0));
	TH_OK(tessel_schedule_to_torch_csv(&text, s, 1));
	csv c, p;
	parse_csv(&c, text);
	parse_csv(&p, plain);
	assert_int_equal(c.nranks, D);
	size_t sends[2] = {0, 0}, recvs[2] = {0, 0}, reduces = 0, shards = 0;
	int early = 0; /* a receive posted before another action */
	for (int r = 0; r < D; r++) {
		/* the compute actions are those of the plain CSV */
		size_t j = 0;
		for (size_t i = 0; i < c.nacts[r]; i++) {
			const action *a = &c.acts[r][i];
			if (is_compute(a)) {
				assert_true(j < p.nacts[r]);
				assert_memory_equal(a, &p.acts[r][j], sizeof *a);
				j++;
				continue;
			}
			if (strcmp(a->type, "REDUCE_GRAD") == 0) {
				/* once, after the stage's last backward: just
				 * before the rank's RESHARD, its last action
				 * (vshape: one stage) */
				assert_int_equal(a->stage, r);
				assert_int_equal(i, c.nacts[r] - 2);
				reduces++;
				continue;
			}
			if (strcmp(a->type, "UNSHARD") == 0 ||
			    strcmp(a->type, "RESHARD") == 0) {
				/* the rank's first and last action */
				assert_int_equal(a->stage, r);
				assert_int_equal(i, a->type[0] == 'U' ? 0 : c.nacts[r] - 1);
				shards++;
				continue;
			}
			int fwd = a->type[5] == 'F';
			int send = strncmp(a->type, "SEND_", 5) == 0;
			assert_true(send || strncmp(a->type, "RECV_", 5) == 0);
			if (!send && !early
			    && !is_compute(&c.acts[r][i + 1]))
				early = 1;
			/* the peer stage: forward data to stage + 1, gradients
			 * to stage - 1 (vshape: stage k on rank k) */
			int peer = send ? (fwd ? a->stage + 1 : a->stage - 1)
					: (fwd ? a->stage - 1 : a->stage + 1);
			assert_in_range(peer, 0, D - 1);
			assert_int_not_equal(peer, r);
			char want[8];
			snprintf(want, sizeof want, "%s_%c", send ? "RECV" : "SEND",
				 a->type[5]);
			assert_true(find_action(&c, peer, peer, want, a->mb) >= 0);
			/* a receive stands before its compute, a send after */
			long compute = find_action(&c, r, a->stage, fwd ? "F" : "B",
						   a->mb);
			assert_true(compute >= 0);
			if (send) {
				assert_true(compute < (long)i);
				sends[!fwd]++;
			} else {
				assert_true(compute > (long)i);
				recvs[!fwd]++;
			}
		}
		assert_int_equal(j, p.nacts[r]);
	}
	for (int k = 0; k < 2; k++) {
		assert_int_equal(sends[k], (D - 1) * NM);
		assert_int_equal(recvs[k], (D - 1) * NM);
	}
	assert_int_equal(reduces, D);
	assert_int_equal(shards, 2 * D);
	assert_true(early);
	check_torch_rules(&c, D, NM);
	csv_free(&c);
	csv_free(&p);
	tessel_free(text);
	tessel_free(plain);
	tessel_schedule_free(s);
}

/* A 2-device graph: a (dev 0) -> b (dev 1) -> c (dev 1) -> d (dev 0);
 * stages as given (-2: leave unset). */
static tessel_schedule *small_schedule(const int stages[4], const int dev[4],
				       const tessel_kind kinds[4])
{
	tessel_graph *g = NULL;
	const char *names[] = {"a", "b", "c", "d"};
	TH_OK(tessel_graph_new(&g, 2));
	for (int i = 0; i < 4; i++) {
		int gid;
		TH_OK(tessel_graph_add_block(&gid, g, names[i], kinds[i], 1, 0));
		TH_OK(tessel_graph_place(g, gid, &dev[i], 1));
		if (stages[i] != -2)
			TH_OK(tessel_graph_set_stage(g, gid, stages[i]));
		if (i > 0)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 2));
	tessel_graph_free(g);
	for (int i = 0; i < 4; i++)
		for (int m = 0; m < 2; m++)
			TH_OK(tessel_schedule_set_step(s, i, m, 4 * m + i));
	return s;
}

static const tessel_graph *graph_of(const tessel_schedule *s)
{
	const tessel_graph *g = NULL;
	TH_OK(tessel_schedule_graph(&g, s));
	return g;
}

static const tessel_kind fbbf[4] = {TESSEL_KIND_FORWARD, TESSEL_KIND_FORWARD,
				    TESSEL_KIND_BACKWARD, TESSEL_KIND_BACKWARD};
static const int dev0110[4] = {0, 1, 1, 0};

static void test_torch_csv_small(void **state)
{
	(void)state;
	const int stages[4] = {0, 1, 1, 0};
	tessel_schedule *s = small_schedule(stages, dev0110, fbbf);
	char *text = NULL;
	TH_OK(tessel_schedule_to_torch_csv(&text, s, 0));
	assert_string_equal(text, "0F0,0B0,0F1,0B1\n1F0,1B0,1F1,1B1\n");
	tessel_free(text);
	TH_OK(tessel_schedule_to_torch_csv(&text, s, 1));
	assert_string_equal(text,
			    "0UNSHARD,0F0,0SEND_F0,0RECV_B0,0B0,0F1,0SEND_F1,0RECV_B1,0B1,"
			    "0REDUCE_GRAD,0RESHARD\n"
			    "1UNSHARD,1RECV_F0,1F0,1B0,1SEND_B0,1RECV_F1,1F1,1B1,1SEND_B1,"
			    "1REDUCE_GRAD,1RESHARD\n");
	tessel_free(text);
	/* the same without stage numbers: derived from the forward chain */
	const int none[4] = {-2, -2, -2, -2};
	tessel_schedule *u = small_schedule(none, dev0110, fbbf);
	TH_OK(tessel_schedule_to_torch_csv(&text, u, 0));
	assert_string_equal(text, "0F0,0B0,0F1,0B1\n1F0,1B0,1F1,1B1\n");
	TH_OK(tessel_graph_check_torch(graph_of(u), 1));
	tessel_schedule_free(u);
	tessel_free(text);
	tessel_schedule_free(s);

	/* split backward: I and W */
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 1));
	int dev = 0;
	const tessel_kind kinds[3] = {TESSEL_KIND_FORWARD, TESSEL_KIND_BACKWARD,
				      TESSEL_KIND_WEIGHT};
	const char *names[] = {"f", "i", "w"};
	for (int i = 0; i < 3; i++) {
		TH_OK(tessel_graph_add_block(NULL, g, names[i], kinds[i], 1, 0));
		TH_OK(tessel_graph_place(g, i, &dev, 1));
		TH_OK(tessel_graph_set_stage(g, i, 0));
		if (i)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	TH_OK(tessel_schedule_new(&s, g, 1));
	tessel_graph_free(g);
	for (int i = 0; i < 3; i++)
		TH_OK(tessel_schedule_set_step(s, i, 0, i));
	TH_OK(tessel_schedule_to_torch_csv(&text, s, 1));
	assert_string_equal(text, "0UNSHARD,0F0,0I0,0W0,0REDUCE_GRAD,0RESHARD\n");
	tessel_free(text);
	TH_OK(tessel_schedule_to_torch_csv(&text, s, 0));
	assert_string_equal(text, "0F0,0I0,0W0\n");
	tessel_free(text);
	tessel_schedule_free(s);
}

static void test_torch_csv_errors(void **state)
{
	(void)state;
	char *text = (char *)"untouched";
	tessel_schedule *s = NULL;

	/* mshape: its first block occupies every device */
	tessel_graph *g = NULL;
	const char *name = NULL;
	TH_OK(tessel_preset(&g, "mshape", D, 0, TESSEL_UNLIMITED));
	TH_OK(tessel_graph_block_name(&name, g, 0));
	char quoted[64];
	snprintf(quoted, sizeof quoted, "\"%s\"", name);
	TH_OK(tessel_schedule_new(&s, g, 2));
	tessel_graph_free(g);
	th_expect_error(tessel_schedule_to_torch_csv(&text, s, 0),
		     TESSEL_EUNSUPPORTED, quoted);
	assert_null(text);
	tessel_schedule_free(s);

	/* a block without a stage */
	const int nostage[4] = {0, 1, -2, 0};
	s = small_schedule(nostage, dev0110, fbbf);
	th_expect_error(tessel_schedule_to_torch_csv(&text, s, 0),
		     TESSEL_EUNSUPPORTED, "\"c\"");
	tessel_schedule_free(s);

	/* a stage on two devices */
	const int split[4] = {0, 0, 1, 0};
	s = small_schedule(split, dev0110, fbbf);
	th_expect_error(tessel_schedule_to_torch_csv(&text, s, 0),
		     TESSEL_EUNSUPPORTED, "stage 0");
	tessel_schedule_free(s);

	/* comms PyTorch cannot say: forward a (device 0) -> backward c
	 * (device 1) */
	TH_OK(tessel_graph_new(&g, 2));
	const char *nm[] = {"a", "b", "c", "d"};
	const int dv[] = {0, 1, 1, 0}, sg[] = {0, 1, 1, 0};
	for (int i = 0; i < 4; i++) {
		TH_OK(tessel_graph_add_block(NULL, g, nm[i], fbbf[i], 1, 0));
		TH_OK(tessel_graph_place(g, i, &dv[i], 1));
		TH_OK(tessel_graph_set_stage(g, i, sg[i]));
		if (i)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	TH_OK(tessel_graph_add_dep(g, 0, 2));
	TH_OK(tessel_graph_check_torch(g, 0));
	th_expect_error(tessel_graph_check_torch(g, 1), TESSEL_EUNSUPPORTED,
			"\"c\"");
	TH_OK(tessel_schedule_new(&s, g, 1));
	tessel_graph_free(g);
	for (int i = 0; i < 4; i++)
		TH_OK(tessel_schedule_set_step(s, i, 0, i));
	TH_OK(tessel_schedule_to_torch_csv(&text, s, 0));
	tessel_free(text);
	th_expect_error(tessel_schedule_to_torch_csv(&text, s, 1),
		     TESSEL_EUNSUPPORTED, "\"c\"");
	assert_null(text);
	tessel_schedule_free(s);

	/* stage numbers against the dependencies: forward a (stage 1) runs
	 * before forward b (stage 0), where PyTorch runs stage 0's first and
	 * would wait for it: refused in both formats */
	const int reversed[4] = {1, 0, 0, 1};
	s = small_schedule(reversed, dev0110, fbbf);
	th_expect_error(tessel_schedule_to_torch_csv(&text, s, 0),
			TESSEL_EUNSUPPORTED, "go against the dependencies");
	assert_null(text);
	th_expect_error(tessel_graph_check_torch(graph_of(s), 0),
			TESSEL_EUNSUPPORTED, "block \"a\" (forward, stage 1)");
	th_expect_error(tessel_graph_check_torch(graph_of(s), 1),
			TESSEL_EUNSUPPORTED, "go against the dependencies");
	tessel_schedule_free(s);

	/* two stages numbered alike: two backwards in stage 1 */
	const int twice[4] = {0, 1, 1, 1};
	s = small_schedule(twice, dev0110, fbbf);
	th_expect_error(tessel_schedule_to_torch_csv(&text, s, 0),
		     TESSEL_EUNSUPPORTED, "more than one backward");
	tessel_schedule_free(s);

	/* presets PyTorch cannot run: two pipelines, inference, and what the
	 * check refuses the export refuses alike */
	TH_OK(tessel_preset(&g, "xshape", D, 0, TESSEL_UNLIMITED));
	th_expect_error(tessel_graph_check_torch(g, 0), TESSEL_EUNSUPPORTED,
			"each start a pipeline");
	tessel_graph_free(g);
	TH_OK(tessel_preset(&g, "vshape", D, 1, TESSEL_UNLIMITED));
	th_expect_error(tessel_graph_check_torch(g, 1), TESSEL_EUNSUPPORTED,
			"stage 0 has no backward block");
	tessel_graph_free(g);
	TH_OK(tessel_preset(&g, "nnshape", D, 0, TESSEL_UNLIMITED));
	th_expect_error(tessel_graph_check_torch(g, 0), TESSEL_EUNSUPPORTED,
			"devices");
	tessel_graph_free(g);
	TH_OK(tessel_preset(&g, "vshape", D, 0, TESSEL_UNLIMITED));
	TH_OK(tessel_graph_check_torch(g, 0));
	TH_OK(tessel_graph_check_torch(g, 1));
	th_expect_error(tessel_graph_check_torch(g, 2), TESSEL_EINVAL,
			"with_comms");
	tessel_graph_free(g);
	th_expect_error(tessel_graph_check_torch(NULL, 0), TESSEL_EINVAL,
			"graph is NULL");
	/* a graph that is not valid: the validator's error, code and
	 * message, not what the CSV would make of it ("no forward block") */
	for (int unplaced = 0; unplaced <= 1; unplaced++) {
		TH_OK(tessel_graph_new(&g, 2));
		if (unplaced)
			TH_OK(tessel_graph_add_block(NULL, g, "f", TESSEL_KIND_FORWARD,
						     1, 0));
		for (int comms = 0; comms <= 1; comms++) {
			int code = tessel_graph_validate(g);
			char expected[256];
			snprintf(expected, sizeof expected, "%s", tessel_error_last());
			assert_int_equal(code, TESSEL_EINVAL);
			th_expect_error(tessel_graph_check_torch(g, comms), code,
					unplaced ? "not placed on any device"
						 : "no blocks");
			assert_string_equal(tessel_error_last(), expected);
		}
		tessel_graph_free(g);
	}
	/* tight memory limits change nothing the CSV can express */
	TH_OK(tessel_preset(&g, "vshape", D, 0, TESSEL_UNLIMITED));
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, 0));
	assert_int_equal(tessel_graph_validate(g), TESSEL_EINFEASIBLE);
	TH_OK(tessel_graph_check_torch(g, 1));
	tessel_graph_free(g);

	/* unplaced entries, bad arguments */
	TH_OK(tessel_preset(&g, "vshape", 2, 0, TESSEL_UNLIMITED));
	TH_OK(tessel_schedule_new(&s, g, 2));
	tessel_graph_free(g);
	th_expect_error(tessel_schedule_to_torch_csv(&text, s, 0), TESSEL_EINVAL,
		     "not placed");
	th_expect_error(tessel_schedule_to_torch_csv(&text, s, 2), TESSEL_EINVAL,
		     "with_comms");
	th_expect_error(tessel_schedule_to_torch_csv(NULL, s, 0), TESSEL_EINVAL,
		     "out");
	th_expect_error(tessel_schedule_to_torch_csv(&text, NULL, 0),
		     TESSEL_EINVAL, "schedule");
	tessel_schedule_free(s);
}

/* ------------------------------------------------------------------------ */
/* Chrome trace                                                               */
/* ------------------------------------------------------------------------ */

static void check_json_file(const char *text)
{
	if (!have_program("python3"))
		return;
	const char *path = write_temp(text, ".json");
	char cmd[512];
	snprintf(cmd, sizeof cmd,
		 "python3 -c \"import json,sys; json.load(open(sys.argv[1]))\" %s",
		 path);
	int rc = system(cmd);
	unlink(path);
	assert_int_equal(rc, 0);
}

static void test_trace_json(void **state)
{
	(void)state;
	tessel_schedule *s = th_search_preset("vshape", D, TESSEL_UNLIMITED, NM, 0);
	char *text = NULL;
	TH_OK(tessel_schedule_to_trace_json(&text, s, 1000.0));
	assert_non_null(strstr(text, "\"traceEvents\""));
	assert_non_null(strstr(text, "\"displayTimeUnit\": \"ms\""));
	size_t want = 0;
	tessel_iter *it = NULL;
	const tessel_entry *e;
	TH_OK(tessel_iter_new(&it, s, TESSEL_ALL_DEVICES));
	while (tessel_iter_next(&e, it) == TESSEL_OK) {
		want += (size_t)th_entry(e, TESSEL_ENTRY_NDEVICES);
		/* each (block, micro-batch) is one event, at its start */
		const char *name;
		char event[128];
		TH_OK(tessel_entry_name(&name, e));
		snprintf(event, sizeof event,
			 "{\"name\": \"%s mb%lld\", \"cat\": \"%s\", \"ph\": \"X\", \"ts\": %lld,",
			 name, (long long)th_entry(e, TESSEL_ENTRY_MICRO_BATCH),
			 th_entry(e, TESSEL_ENTRY_KIND) == TESSEL_KIND_FORWARD ? "forward"
										: "backward",
			 (long long)(th_entry(e, TESSEL_ENTRY_START) * 1000));
		assert_int_equal(th_count(text, event), 1);
	}
	tessel_iter_free(it);
	assert_int_equal(th_count(text, "\"ph\": \"X\""), want);
	/* the process and one track per device */
	assert_int_equal(th_count(text, "\"ph\": \"M\""), D + 1);
	assert_non_null(strstr(text, "{\"name\": \"process_name\", \"ph\": \"M\""));
	/* no latency: no flows */
	assert_null(strstr(text, "\"ph\": \"s\""));
	assert_non_null(strstr(text, "\"args\": {\"name\": \"device 3\"}"));
	check_json_file(text);
	tessel_free(text);
	tessel_schedule_free(s);
}

/* Known entries of a hand-made schedule, a block on two devices and a name
 * needing escapes. */
static void test_trace_known(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 2));
	const int both[2] = {0, 1}, one = 1, zero = 0;
	TH_OK(tessel_graph_add_block(NULL, g, "a\"q\\", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 0, &zero, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "both", TESSEL_KIND_BACKWARD, 2, 0));
	TH_OK(tessel_graph_place(g, 1, both, 2));
	TH_OK(tessel_graph_add_block(NULL, g, "w", TESSEL_KIND_WEIGHT, 1, 0));
	TH_OK(tessel_graph_place(g, 2, &one, 1));
	TH_OK(tessel_graph_add_dep(g, 0, 1));
	TH_OK(tessel_graph_add_dep(g, 1, 2));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 3));
	tessel_graph_free(g);
	for (int m = 0; m < 3; m++) {
		TH_OK(tessel_schedule_set_step(s, 0, m, 4 * m));
		TH_OK(tessel_schedule_set_step(s, 1, m, 4 * m + 1));
		TH_OK(tessel_schedule_set_step(s, 2, m, 4 * m + 3));
	}
	char *text = NULL;
	TH_OK(tessel_schedule_to_trace_json(&text, s, 2.5));
	assert_int_equal(th_count(text, "\"ph\": \"X\""), 3 * (1 + 2 + 1));
	assert_non_null(strstr(text,
		"{\"name\": \"a\\\"q\\\\ mb1\", \"cat\": \"forward\", "
		"\"ph\": \"X\", \"ts\": 10, \"dur\": 2.5, \"pid\": 0, "
		"\"tid\": 0, \"args\": {\"gid\": 0, \"mid\": 1, "));
	assert_non_null(strstr(text,
		"{\"name\": \"both mb2\", \"cat\": \"backward\", "
		"\"ph\": \"X\", \"ts\": 22.5, \"dur\": 5, \"pid\": 0, "
		"\"tid\": 1, "));
	check_json_file(text);
	tessel_free(text);

	/* the SVG escapes the name too */
	TH_OK(tessel_schedule_to_svg(&text, s));
	assert_non_null(strstr(text, "a&quot;q\\ mb0"));
	tessel_free(text);

	/* 0: from the placement, which has no step: 1 ms per step */
	TH_OK(tessel_schedule_to_trace_json(&text, s, 0.0));
	assert_non_null(strstr(text, "mb1\", \"cat\": \"forward\", \"ph\": \"X\", \"ts\": 4000, \"dur\": 1000, "));
	tessel_free(text);
	text = (char *)"untouched";
	th_expect_error(tessel_schedule_to_trace_json(&text, s, -1.0),
		     TESSEL_EINVAL, "step_us");
	assert_null(text);
	th_expect_error(tessel_schedule_to_trace_json(&text, s, NAN),
		     TESSEL_EINVAL, "step_us");
	th_expect_error(tessel_schedule_to_trace_json(&text, s, INFINITY),
		     TESSEL_ERANGE, "step_us");
	th_expect_error(tessel_schedule_to_trace_json(&text, s, 1e308),
		     TESSEL_ERANGE, "step_us");
	th_expect_error(tessel_schedule_to_trace_json(NULL, s, 1.0),
		     TESSEL_EINVAL, "out");
	th_expect_error(tessel_schedule_to_trace_json(&text, NULL, 1.0),
		     TESSEL_EINVAL, "schedule");
	tessel_schedule_free(s);
}

/* ------------------------------------------------------------------------ */
/* SVG                                                                        */
/* ------------------------------------------------------------------------ */

/* Well-formed XML (python3's minidom), and rendered by rsvg-convert when
 * it is there and `render`. */
static void check_svg_file_render(const char *text, int render)
{
	int python = have_program("python3");
	int rsvg = render && have_program("rsvg-convert");
	if (!python && !rsvg)
		return;
	char path[128];
	snprintf(path, sizeof path, "%s", write_temp(text, ".svg"));
	char cmd[512];
	int rc = 0;
	if (python) {
		snprintf(cmd, sizeof cmd,
			 "python3 -c \"import xml.dom.minidom,sys; "
			 "xml.dom.minidom.parse(sys.argv[1])\" %s", path);
		rc = system(cmd);
	}
	if (rc == 0 && rsvg) {
		snprintf(cmd, sizeof cmd, "rsvg-convert -o %.*s.png %s",
			 (int)(strlen(path) - 4), path, path);
		rc = system(cmd);
		snprintf(cmd, sizeof cmd, "%.*s.png", (int)(strlen(path) - 4),
			 path);
		unlink(cmd);
	}
	unlink(path);
	assert_int_equal(rc, 0);
}

static void check_svg_file(const char *text)
{
	check_svg_file_render(text, 1);
}

static void test_svg(void **state)
{
	(void)state;
	tessel_schedule *s = th_search_preset("vshape", D, TESSEL_UNLIMITED, NM, 0);
	char *text = NULL;
	TH_OK(tessel_schedule_to_svg(&text, s));
	size_t len = strlen(text);
	assert_memory_equal(text, "<svg", 4);
	while (len > 0 && text[len - 1] == '\n')
		len--;
	assert_true(len >= 6);
	assert_memory_equal(text + len - 6, "</svg>", 6);
	assert_true(th_count(text, "<rect") >=
		    (size_t)th_sched(s, TESSEL_SCHED_NENTRIES));
	/* the key figures and the legend */
	char period[64];
	snprintf(period, sizeof period, "period %lld",
		 (long long)th_sched(s, TESSEL_SCHED_PERIOD));
	assert_non_null(strstr(text, period));
	assert_non_null(strstr(text, "makespan"));
	assert_non_null(strstr(text, "lower bound"));
	assert_non_null(strstr(text, "efficiency"));
	assert_non_null(strstr(text, ">repetend</text>"));
	assert_non_null(strstr(text, ">weight</text>"));
	check_svg_file(text);
	tessel_free(text);
	th_expect_error(tessel_schedule_to_svg(NULL, s), TESSEL_EINVAL, "out");
	text = (char *)"untouched";
	th_expect_error(tessel_schedule_to_svg(&text, NULL), TESSEL_EINVAL,
		     "schedule");
	assert_null(text);
	tessel_schedule_free(s);
}

/* Names with markup characters and bytes XML forbids stay well-formed;
 * a long schedule keeps a bounded cell width and hides its labels. */
/* a (device 0, span 2) -> b (device 1, span 1) with a latency of 3 steps,
 * two micro-batches: a at 0 and 5, b at 5 and 10. */
static tessel_schedule *latency_schedule(double step, const char *unit)
{
	tessel_graph *g = NULL;
	const int d0 = 0, d1 = 1;
	TH_OK(tessel_graph_new(&g, 2));
	TH_OK(tessel_graph_add_block(NULL, g, "a", TESSEL_KIND_FORWARD, 2, 0));
	TH_OK(tessel_graph_place(g, 0, &d0, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "b", TESSEL_KIND_BACKWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 1, &d1, 1));
	TH_OK(tessel_graph_add_dep_latency(g, 0, 1, 3));
	if (step > 0)
		TH_OK(tessel_graph_set_step(g, step));
	TH_OK(tessel_graph_set_unit(g, unit));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 2));
	tessel_graph_free(g);
	for (int m = 0; m < 2; m++) {
		TH_OK(tessel_schedule_set_step(s, 0, m, 5 * m));
		TH_OK(tessel_schedule_set_step(s, 1, m, 5 * m + 5));
	}
	TH_OK(tessel_schedule_validate(s));
	return s;
}

/* Transfers as flows; real time from the placement's step and unit. */
static void test_trace_latency(void **state)
{
	(void)state;
	tessel_schedule *s = latency_schedule(0.5, "ms");
	char *text = NULL;
	TH_OK(tessel_schedule_to_trace_json(&text, s, 0));
	/* 0.5 ms = 500 us per step */
	assert_non_null(strstr(text,
		"{\"name\": \"a mb1\", \"cat\": \"forward\", \"ph\": \"X\", "
		"\"ts\": 2500, \"dur\": 1000, \"pid\": 0, \"tid\": 0, "));
	assert_int_equal(th_count(text, "\"ph\": \"s\""), 2);
	assert_int_equal(th_count(text, "\"ph\": \"f\""), 2);
	assert_non_null(strstr(text,
		"{\"name\": \"a -> b\", \"cat\": \"transfer\", \"ph\": \"s\", "
		"\"id\": 1, \"ts\": 0, \"pid\": 0, \"tid\": 0, \"args\": "
		"{\"mid\": 0, \"latency_steps\": 3, \"sent\": 1000, \"arrives\": 2500}}"));
	assert_non_null(strstr(text,
		"{\"name\": \"a -> b\", \"cat\": \"transfer\", \"ph\": \"f\", "
		"\"bp\": \"e\", \"id\": 2, \"ts\": 5000, \"pid\": 0, \"tid\": 1}"));
	check_json_file(text);
	tessel_free(text);
	/* an explicit step_us wins */
	TH_OK(tessel_schedule_to_trace_json(&text, s, 2));
	assert_non_null(strstr(text, "\"ts\": 10, \"dur\": 4, "));
	tessel_free(text);
	tessel_schedule_free(s);

	static const struct {
		const char *unit;
		const char *event; /* a of micro-batch 1 */
	} units[] = {
		{ "s", "\"ts\": 2500000, \"dur\": 1000000, " },
		{ "us", "\"ts\": 2.5, \"dur\": 1, " },
		{ "\xc2\xb5s", "\"ts\": 2.5, \"dur\": 1, " },
		{ "ns", "\"ts\": 0.0025, \"dur\": 0.001, " },
		{ "cycles", "\"ts\": 5000, \"dur\": 2000, " }, /* 1 ms a step */
		{ NULL, "\"ts\": 5000, \"dur\": 2000, " },
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		s = latency_schedule(0.5, units[i].unit);
		TH_OK(tessel_schedule_to_trace_json(&text, s, 0));
		if (!strstr(text, units[i].event))
			print_error("unit %s: no %s in\n%s\n", units[i].unit,
				    units[i].event, text);
		assert_non_null(strstr(text, units[i].event));
		tessel_free(text);
		tessel_schedule_free(s);
	}
	/* without a step: 1 ms a step */
	s = latency_schedule(0, "ms");
	TH_OK(tessel_schedule_to_trace_json(&text, s, 0));
	assert_non_null(strstr(text, "\"ts\": 5000, \"dur\": 2000, "));
	tessel_free(text);
	tessel_schedule_free(s);
}

/* Transfers as arrows in the SVG, the step and its unit in the header. */
static void test_svg_latency(void **state)
{
	(void)state;
	tessel_schedule *s = latency_schedule(0.5, "m<s");
	char *text = NULL;
	TH_OK(tessel_schedule_to_svg(&text, s));
	assert_non_null(strstr(text, "<marker id=\"arrow\""));
	assert_non_null(strstr(text, "<g class=\"transfers\""));
	assert_int_equal(th_count(text, "marker-end=\"url(#arrow)\""), 2 + 1);
	assert_non_null(strstr(text, ">transfer</text>"));
	assert_non_null(strstr(text, "<title>a -&gt; b mb1: latency 3 steps, steps 7 to 10</title>"));
	assert_non_null(strstr(text, "; one step 0.5 m&lt;s"));
	assert_non_null(strstr(text, "makespan 11 = 5.5 m&lt;s ("));
	/* the tooltips and the axis in the unit: 2 m<s apart (48 px) */
	assert_non_null(strstr(text, "<title>a mb1: steps 5 to 6, 2.5 to 3.5 m&lt;s</title>"));
	assert_non_null(strstr(text, ">time in m&lt;s</text>"));
	const char *axis = strstr(text, "<g class=\"axis\"");
	assert_non_null(axis);
	assert_non_null(strstr(axis, ">2</text>"));
	assert_non_null(strstr(axis, ">4</text>"));
	assert_null(strstr(axis, ">1</text>"));
	assert_null(strstr(text, "m<s"));
	check_svg_file(text);
	tessel_free(text);
	tessel_schedule_free(s);

	/* no latency: no arrows */
	s = th_search_preset("vshape", D, TESSEL_UNLIMITED, NM, 1);
	TH_OK(tessel_schedule_to_svg(&text, s));
	assert_null(strstr(text, "transfer"));
	assert_null(strstr(text, "marker"));
	tessel_free(text);
	tessel_schedule_free(s);
}

/* The time axis in the placement's unit: ticks 1, 2 or 5 times a power of
 * ten apart (0.2 ms for 300 steps of 0.02 ms); in steps without a unit. */
static void test_svg_time_axis(void **state)
{
	(void)state;
	static const char *const units[] = {"ms", NULL};
	for (int u = 0; u < 2; u++) {
		tessel_graph *g = NULL;
		int dev = 0;
		TH_OK(tessel_graph_new(&g, 1));
		TH_OK(tessel_graph_add_block(NULL, g, "f", TESSEL_KIND_FORWARD, 1, 0));
		TH_OK(tessel_graph_place(g, 0, &dev, 1));
		TH_OK(tessel_graph_set_step(g, 0.02));
		TH_OK(tessel_graph_set_unit(g, units[u]));
		tessel_schedule *s = NULL;
		TH_OK(tessel_schedule_new(&s, g, 300));
		tessel_graph_free(g);
		for (int m = 0; m < 300; m++)
			TH_OK(tessel_schedule_set_step(s, 0, m, m));
		char *text = NULL;
		TH_OK(tessel_schedule_to_svg(&text, s));
		const char *axis = strstr(text, "<g class=\"axis\"");
		assert_non_null(axis);
		if (units[u]) {
			assert_non_null(strstr(text, "<title>f mb150: steps 150 to "
						     "150, 3 to 3.02 ms</title>"));
			assert_non_null(strstr(axis, ">time in ms</text>"));
			assert_non_null(strstr(axis, ">0</text>"));
			assert_non_null(strstr(axis, ">0.2</text>"));
			assert_non_null(strstr(axis, ">6.0</text>"));
			assert_int_equal(th_count(axis, "<text"), 31 + 1);
		} else {
			assert_non_null(strstr(text, "<title>f mb150: steps 150 to "
						     "150</title>"));
			assert_non_null(strstr(axis, ">steps</text>"));
			assert_non_null(strstr(axis, ">10</text>"));
			assert_non_null(strstr(axis, ">300</text>"));
			assert_int_equal(th_count(axis, "<text"), 31 + 1);
		}
		check_svg_file(text);
		tessel_free(text);
		tessel_schedule_free(s);
	}
}

/* one block on one device, n micro-batches one after the other */
static tessel_schedule *one_row(const char *name, int64_t n)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 1));
	int dev = 0;
	TH_OK(tessel_graph_add_block(NULL, g, name, TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 0, &dev, 1));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, n));
	tessel_graph_free(g);
	for (int64_t m = 0; m < n; m++)
		TH_OK(tessel_schedule_set_step(s, 0, m, m));
	return s;
}

static void test_svg_escapes_and_size(void **state)
{
	(void)state;
	/* the names in the tooltips */
	tessel_schedule *s = one_row("<&>\"'\x01\xff", 100);
	char *text = NULL;
	TH_OK(tessel_schedule_to_svg(&text, s));
	assert_non_null(strstr(text, "&lt;&amp;&gt;&quot;&apos;??"));
	check_svg_file(text);
	tessel_free(text);
	tessel_schedule_free(s);

	int64_t n = 3000;
	s = one_row("<&>\"'\x01\xff", n);
	TH_OK(tessel_schedule_to_svg(&text, s));
	/* half a pixel per step: 1600 px in all, no label fits, and every
	 * block keeps its tooltip */
	assert_non_null(strstr(text, "width=\"1600\""));
	assert_null(strstr(text, ">2999</text>"));
	assert_int_equal(th_count(text, "<title>&lt;&amp;&gt;&quot;&apos;?? mb"),
			 (size_t)n);
	assert_non_null(strstr(text, "<title>&lt;&amp;&gt;&quot;&apos;?? mb2999: "
				     "steps 2999 to 2999</title>"));
	assert_null(strstr(text, "no tooltip"));
	check_svg_file(text);
	tessel_free(text);
	tessel_schedule_free(s);
}

/* The number after `attr="` in the text at p (the first such attribute
 * from p on); -1 when there is none. */
static double svg_attr(const char *p, const char *attr)
{
	char key[64];
	snprintf(key, sizeof key, " %s=\"", attr);
	const char *a = strstr(p, key);
	return a ? strtod(a + strlen(key), NULL) : -1;
}

/* The smallest font-size of the picture. */
static double svg_min_font(const char *text)
{
	double least = 1e9;
	for (const char *p = strstr(text, "font-size=\""); p;
	     p = strstr(p + 1, "font-size=\"")) {
		double f = strtod(p + strlen("font-size=\""), NULL);
		if (f < least)
			least = f;
	}
	return least;
}

/* Each device's group: as many tooltips as rectangles, each rectangle
 * `height` px high; returns the rectangles. */
static size_t svg_block_tooltips(const char *text, double height)
{
	size_t rects = 0;
	for (const char *g = strstr(text, "<g class=\"device\""); g;
	     g = strstr(g + 1, "<g class=\"device\"")) {
		const char *end = strstr(g, "</g>");
		assert_non_null(end);
		for (const char *r = strstr(g, "<rect "); r && r < end;
		     r = strstr(r + 1, "<rect ")) {
			const char *close = strstr(r, "</rect>");
			const char *next = strstr(r + 1, "<rect ");
			assert_non_null(close);
			assert_true(close < end && (!next || close < next));
			assert_true(strstr(r, "><title>") < close);
			assert_true(svg_attr(r, "height") == height);
			rects++;
		}
	}
	return rects;
}

/* Width and height of a PNG file from its IHDR chunk. */
static void png_size(const char *path, unsigned *w, unsigned *h)
{
	unsigned char head[24];
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
	fclose(f);
	assert_memory_equal(head, "\x89PNG\r\n\x1a\n", 8);
	assert_memory_equal(head + 12, "IHDR", 4);
	*w = (unsigned)head[16] << 24 | (unsigned)head[17] << 16 |
	     (unsigned)head[18] << 8 | head[19];
	*h = (unsigned)head[20] << 24 | (unsigned)head[21] << 16 |
	     (unsigned)head[22] << 8 | head[23];
}

/* The fill of the rectangle whose tooltip starts with `title`. */
static void fill_of(const char *text, const char *title, char fill[8])
{
	const char *t = strstr(text, title);
	assert_non_null(t);
	const char *r = t;
	while (r > text && strncmp(r, "<rect ", 6) != 0)
		r--;
	const char *f = strstr(r, " fill=\"#");
	assert_true(f && f < t);
	memcpy(fill, f + 7, 7);
	fill[7] = '\0';
}

/* Labels only where they fit in 8 px type or larger, across or turned:
 * 150 steps of one block, 10 px each, labels up to 99 (two digits turned),
 * none from 100 on; a tooltip on every block. */
static void test_svg_at_scale(void **state)
{
	(void)state;
	char *text = NULL;
	tessel_schedule *s = one_row("f", 150);
	TH_OK(tessel_schedule_to_svg(&text, s));
	assert_true(svg_attr(text, "width") == 1600);
	char *axis = strstr(text, "<g class=\"axis\"");
	assert_non_null(axis);
	*axis = '\0'; /* the labels of the blocks only */
	for (int m = 0; m < 150; m++) {
		char label[32];
		snprintf(label, sizeof label, ">%d</text>", m);
		if (m < 100)
			assert_non_null(strstr(text, label));
		else
			assert_null(strstr(text, label));
	}
	*axis = '<';
	assert_non_null(strstr(text, "transform=\"rotate(-90)\""));
	assert_true(svg_min_font(text) >= 8);
	assert_int_equal(svg_block_tooltips(text, 16), 150);
	check_svg_file(text);
	tessel_free(text);
	tessel_schedule_free(s);

	/* short: 24 px per step as before, every label across in 11 px */
	s = one_row("f", 60);
	TH_OK(tessel_schedule_to_svg(&text, s));
	assert_true(svg_attr(text, "width") == 72 + 60 * 24 + 16);
	assert_int_equal(th_count(text, "font-size=\"11.0\" text-anchor"), 60);
	assert_null(strstr(text, "rotate(-90)"));
	tessel_free(text);
	tessel_schedule_free(s);
}

/* vshape, 64 devices x 128 micro-batches: no wider than 1600 px, so drawn
 * 1600 px wide nothing shrinks; no type under 8 px, rows 20 px, a tooltip
 * on each of the 16,384 blocks, neighbouring micro-batches in different
 * shades; under 5 MB; rendered to a PNG 1600 px wide. */
static void test_svg_legible_at_scale(void **state)
{
	(void)state;
	char *text = NULL;
	tessel_schedule *s = th_search_preset("vshape", 64, 64, 128, 1);
	TH_OK(tessel_schedule_to_svg(&text, s));
	size_t len = strlen(text);
	double width = svg_attr(text, "width");
	double height = svg_attr(text, "height");
	print_message("vshape 64 x 128: %zu bytes of SVG, %.0f x %.0f px\n",
		      len, width, height);
	assert_true(len < 5000000);
	assert_true(width > 0 && width <= 1600);
	assert_true(svg_min_font(text) >= 8);
	const char *d0 = strstr(text, ">device 0</text>");
	const char *d1 = strstr(text, ">device 1</text>");
	assert_true(d0 && d1);
	while (strncmp(d0, "<text", 5) != 0)
		d0--;
	while (strncmp(d1, "<text", 5) != 0)
		d1--;
	assert_true(svg_attr(d1, "y") - svg_attr(d0, "y") >= 12);
	size_t rects = svg_block_tooltips(text, 16);
	assert_int_equal(rects, (size_t)th_sched(s, TESSEL_SCHED_NENTRIES));
	assert_int_equal(rects, 16384);
	assert_int_equal(th_count(text, "</title></rect>"), rects + 1);
	char f0[8], f1[8], f4[8];
	fill_of(text, "<title>f0 mb0:", f0);
	fill_of(text, "<title>f0 mb1:", f1);
	fill_of(text, "<title>f0 mb4:", f4);
	assert_string_not_equal(f0, f1);
	assert_string_equal(f0, f4);
	assert_non_null(strstr(text, "micro-batch mod 4</text>"));
	assert_non_null(strstr(text, ">steps</text>"));
	if (have_program("rsvg-convert") && !th_under_checker()) {
		char svg[128], png[160], cmd[512];
		snprintf(svg, sizeof svg, "%s", write_temp(text, ".svg"));
		snprintf(png, sizeof png, "%.*s.png", (int)(strlen(svg) - 4), svg);
		snprintf(cmd, sizeof cmd, "rsvg-convert -w 1600 -o %s %s", png,
			 svg);
		assert_int_equal(system(cmd), 0);
		unsigned w, h;
		png_size(png, &w, &h);
		assert_int_equal(w, 1600);
		assert_true(fabs(h - 1600 * height / width) <= 1);
		unlink(png);
		unlink(svg);
	}
	if (!th_under_checker())
		check_svg_file(text);
	tessel_free(text);
	tessel_schedule_free(s);
}

/* Beyond 200,000 rectangles: drawn compact (a path per kind and shade),
 * no tooltip per block, and the legend says so. */
static void test_svg_compact(void **state)
{
	(void)state;
	enum { DEVS = 8, N = 25001 };
	tessel_graph *g = NULL;
	int devs[DEVS];
	for (int d = 0; d < DEVS; d++)
		devs[d] = d;
	TH_OK(tessel_graph_new(&g, DEVS));
	TH_OK(tessel_graph_add_block(NULL, g, "all", TESSEL_KIND_BACKWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 0, devs, DEVS));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, N));
	tessel_graph_free(g);
	for (int m = 0; m < N; m++)
		TH_OK(tessel_schedule_set_step(s, 0, m, m));
	char *text = NULL;
	TH_OK(tessel_schedule_to_svg(&text, s));
	assert_true(svg_attr(text, "width") == 1600);
	assert_non_null(strstr(text, "200008 blocks, more than 200000: no "
				     "tooltip per block"));
	assert_null(strstr(text, "<title>all mb"));
	/* a path per device and shade */
	assert_int_equal(th_count(text, "<path fill="), DEVS * 4);
	assert_true(svg_min_font(text) >= 8);
	if (!th_under_checker())
		check_svg_file(text);
	tessel_free(text);
	tessel_schedule_free(s);
}

/* 1 and 4096 devices, a block on every device: a rectangle and a tooltip
 * per device it occupies. */
static void test_svg_devices(void **state)
{
	(void)state;
	static int devs[4096];
	for (int d = 0; d < 4096; d++)
		devs[d] = d;
	for (int nd = 1; nd <= 4096; nd *= 4096) {
		tessel_graph *g = NULL;
		TH_OK(tessel_graph_new(&g, nd));
		TH_OK(tessel_graph_add_block(NULL, g, "every", TESSEL_KIND_WEIGHT, 2, 0));
		TH_OK(tessel_graph_place(g, 0, devs, (size_t)nd));
		TH_OK(tessel_graph_add_block(NULL, g, "last", TESSEL_KIND_FORWARD, 1, 0));
		TH_OK(tessel_graph_place(g, 1, &devs[nd - 1], 1));
		tessel_schedule *s = NULL;
		TH_OK(tessel_schedule_new(&s, g, 3));
		tessel_graph_free(g);
		for (int m = 0; m < 3; m++) {
			TH_OK(tessel_schedule_set_step(s, 0, m, 3 * m));
			TH_OK(tessel_schedule_set_step(s, 1, m, 3 * m + 2));
		}
		char *text = NULL;
		TH_OK(tessel_schedule_to_svg(&text, s));
		assert_int_equal(svg_block_tooltips(text, 16), 3 * (nd + 1));
		assert_int_equal(th_count(text, "<title>every mb2: steps 6 to 7</title>"),
				 nd);
		assert_true(svg_attr(text, "height") == 88 + 20 * nd + 46);
		assert_true(svg_min_font(text) >= 8);
		/* 82,000 px high: beyond what rsvg-convert draws */
		check_svg_file_render(text, nd == 1);
		tessel_free(text);
		tessel_schedule_free(s);
	}
}

/* A schedule 10^15 steps long still gives a picture at once: the axis
 * labels are capped (one per 50 steps would never end). */
static void test_svg_huge_makespan(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	int dev = 0;
	TH_OK(tessel_graph_new(&g, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "f", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 0, &dev, 1));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 2));
	tessel_graph_free(g);
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 0, 1, (int64_t)1000000000000000));
	char *text = NULL;
	TH_OK(tessel_schedule_to_svg(&text, s));
	const char *axis = strstr(text, "<g class=\"axis\"");
	assert_non_null(axis);
	size_t labels = th_count(axis, "<text");
	assert_true(labels >= 2 && labels <= 201);
	tessel_free(text);
	tessel_schedule_free(s);
}

/* JSON text must be UTF-8: every JSON writer refuses a block name that is
 * not, naming the block (the placement and schedule writers too). */
static void test_json_writers_refuse_bad_utf8(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	int dev = 0;
	TH_OK(tessel_graph_new(&g, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "ok", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_add_block(NULL, g, "bad\xff", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_place(g, 0, &dev, 1));
	TH_OK(tessel_graph_place(g, 1, &dev, 1));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 1));
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 1));
	char *text = (char *)1;
	th_expect_error(tessel_schedule_to_actions_json(&text, s), TESSEL_EINVAL,
			"block 1: the name is not valid UTF-8");
	assert_null(text);
	text = (char *)1;
	th_expect_error(tessel_schedule_to_trace_json(&text, s, 1000.0),
			TESSEL_EINVAL, "block 1: the name is not valid UTF-8");
	assert_null(text);
	th_expect_error(tessel_graph_to_json(&text, g), TESSEL_EINVAL,
			"block 1: the name is not valid UTF-8");
	th_expect_error(tessel_schedule_to_json(&text, s), TESSEL_EINVAL,
			"not valid UTF-8");
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

/* tessel_graph_check_torch refuses before a search what the CSV export
 * would refuse after it, with the same kind of error. */
static void test_check_torch(void **state)
{
	(void)state;
	tessel_graph *v = NULL, *x = NULL, *m = NULL;
	TH_OK(tessel_preset(&v, "vshape", 4, 0, 4));
	TH_OK(tessel_preset(&x, "xshape", 4, 0, 4));
	TH_OK(tessel_preset(&m, "mshape", 4, 0, 6));
	TH_OK(tessel_graph_check_torch(v, 0));
	TH_OK(tessel_graph_check_torch(v, 1));
	th_expect_error(tessel_graph_check_torch(x, 1), TESSEL_EUNSUPPORTED, "pipeline");
	th_expect_error(tessel_graph_check_torch(m, 0), TESSEL_EUNSUPPORTED, "devices");
	th_expect_error(tessel_graph_check_torch(NULL, 0), TESSEL_EINVAL, "NULL");
	/* the export itself agrees */
	tessel_schedule *s = th_search(m, 4, 1, 0, 1);
	char *text = NULL;
	th_expect_error(tessel_schedule_to_torch_csv(&text, s, 0), TESSEL_EUNSUPPORTED,
			"devices");
	assert_null(text);
	tessel_schedule_free(s);
	tessel_graph_free(v);
	tessel_graph_free(x);
	tessel_graph_free(m);
}

/* The streamed exports (tessel_schedule_write) give the texts of the
 * tessel_schedule_to_* functions byte for byte, in pieces; a writer that
 * refuses ends the export with TESSEL_EIO; bad arguments are refused
 * before anything is written. */
typedef struct sink {
	char *data;
	size_t len, cap;
	size_t pieces, largest;
	size_t refuse_after; /* refuse the piece after so many, 0 never */
} sink;

static int sink_put(void *payload, const char *data, size_t n)
{
	sink *k = payload;
	assert_true(n > 0);
	if (k->refuse_after && k->pieces >= k->refuse_after)
		return 7;
	if (k->len + n + 1 > k->cap) {
		k->cap = 2 * (k->len + n + 1);
		k->data = realloc(k->data, k->cap);
		assert_non_null(k->data);
	}
	memcpy(k->data + k->len, data, n);
	k->len += n;
	k->data[k->len] = '\0';
	k->pieces++;
	if (n > k->largest)
		k->largest = n;
	return 0;
}

static void test_streamed_write(void **state)
{
	(void)state;
	/* vshape 16 x 128: several hundred kB in most formats */
	tessel_schedule *s = th_search_preset("vshape", 16, TESSEL_UNLIMITED, 128, 1);
	for (int f = TESSEL_FORMAT_TEXT; f <= TESSEL_FORMAT_SVG; f++) {
		char *want = NULL;
		switch (f) {
		case TESSEL_FORMAT_TEXT: TH_OK(tessel_schedule_to_text(&want, s)); break;
		case TESSEL_FORMAT_JSON: TH_OK(tessel_schedule_to_json(&want, s)); break;
		case TESSEL_FORMAT_ACTIONS: TH_OK(tessel_schedule_to_actions_json(&want, s)); break;
		case TESSEL_FORMAT_TORCH: TH_OK(tessel_schedule_to_torch_csv(&want, s, 0)); break;
		case TESSEL_FORMAT_TORCH_COMMS: TH_OK(tessel_schedule_to_torch_csv(&want, s, 1)); break;
		case TESSEL_FORMAT_TRACE: TH_OK(tessel_schedule_to_trace_json(&want, s, 0)); break;
		default: TH_OK(tessel_schedule_to_svg(&want, s)); break;
		}
		sink k = {0};
		TH_OK(tessel_schedule_write(s, (tessel_format)f, 0, sink_put, &k));
		assert_int_equal(k.len, strlen(want));
		assert_memory_equal(k.data, want, k.len);
		/* pieces, not the whole text, for anything above 2 pieces */
		if (k.len > 4 * 65536) {
			assert_true(k.pieces > 2);
			assert_true(k.largest < k.len / 2);
		}
		print_message("format %d: %zu bytes in %zu pieces, largest %zu\n",
			      f, k.len, k.pieces, k.largest);
		/* a writer that stops after its first piece */
		if (k.pieces > 1) {
			sink r = {.refuse_after = 1};
			assert_int_equal(tessel_schedule_write(s, (tessel_format)f, 0,
							       sink_put, &r),
					 TESSEL_EIO);
			assert_int_equal(r.pieces, 1);
			free(r.data);
		}
		free(k.data);
		tessel_free(want);
	}
	/* the trace's step_us goes through; other formats refuse one */
	char *want = NULL;
	TH_OK(tessel_schedule_to_trace_json(&want, s, 2.5));
	sink k = {0};
	TH_OK(tessel_schedule_write(s, TESSEL_FORMAT_TRACE, 2.5, sink_put, &k));
	assert_string_equal(k.data, want);
	free(k.data);
	tessel_free(want);
	sink none = {0};
	assert_int_equal(tessel_schedule_write(s, TESSEL_FORMAT_JSON, 2.5, sink_put, &none),
			 TESSEL_EINVAL);
	assert_int_equal(tessel_schedule_write(s, TESSEL_FORMAT_TRACE, -1, sink_put, &none),
			 TESSEL_EINVAL);
	assert_int_equal(tessel_schedule_write(s, (tessel_format)7, 0, sink_put, &none),
			 TESSEL_EINVAL);
	assert_int_equal(tessel_schedule_write(s, (tessel_format)-1, 0, sink_put, &none),
			 TESSEL_EINVAL);
	assert_int_equal(tessel_schedule_write(s, TESSEL_FORMAT_TEXT, 0, NULL, &none),
			 TESSEL_EINVAL);
	assert_int_equal(tessel_schedule_write(NULL, TESSEL_FORMAT_TEXT, 0, sink_put, &none),
			 TESSEL_EINVAL);
	assert_int_equal(none.pieces, 0);
	tessel_schedule_free(s);
}

/* ------------------------------------------------------------------------ */
/* Memory-time alternatives                                                   */
/* ------------------------------------------------------------------------ */

/* Whether `line` is a whole line of text. */
static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = strstr(text, line); p; p = strstr(p + 1, line))
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return 1;
	return 0;
}

/* The text grid: the recomputing backward in capitals over its real span,
 * a copy row per device, the notes and the counts. */
static void test_alternatives_text(void **state)
{
	(void)state;
	tessel_schedule *s = th_alt_schedule(1, 1, 1);
	char *text = NULL;
	TH_OK(tessel_schedule_to_text(&text, s));
	assert_true(has_line(text, "dev 0:      f0 f1 -- -- -- -- b0-b0 b1-b1"));
	assert_true(has_line(text, "dev 0 copy: -- o0 o1 -- -- r0 -- r1 -- --"));
	assert_true(has_line(text, "dev 1:      -- f0 f1 B0-B0-B0 b1-b1 -- --"));
	assert_true(has_line(text, "dev 1 copy: -- -- -- -- -- -- -- -- -- --"));
	assert_true(has_line(text, "one cell = 2 steps"));
	assert_non_null(strstr(text, "capital letter (B3): the block recomputes"));
	assert_non_null(strstr(text, "copy rows: o3 offloads and r3 reloads"));
	assert_true(has_line(text, "activations: 1 recomputed, 2 offloaded"));
	assert_non_null(strstr(text, "makespan 20 = 10 ms"));
	tessel_free(text);
	tessel_schedule_free(s);

	/* recompute alone: no copy rows; the longer span still shows */
	s = th_alt_schedule(1, 0, 0);
	TH_OK(tessel_schedule_to_text(&text, s));
	assert_true(has_line(text, "dev 1: -- f0 f1 B0-B0-B0 b1-b1 -- --"));
	assert_null(strstr(text, "copy"));
	assert_true(has_line(text, "activations: 1 recomputed, 0 offloaded"));
	tessel_free(text);
	tessel_schedule_free(s);

	/* every activation kept: the grid as before */
	s = th_alt_schedule(0, 0, 0);
	TH_OK(tessel_schedule_to_text(&text, s));
	assert_true(has_line(text, "dev 1: -- f0 f1 b0-b0 -- b1-b1 -- --"));
	assert_null(strstr(text, "activations"));
	assert_null(strstr(text, "capital"));
	tessel_free(text);
	tessel_schedule_free(s);
}

/* The trace: the recomputing backward named so and as long as it runs,
 * the copies on a track per device's copy channel. */
static void test_alternatives_trace(void **state)
{
	(void)state;
	tessel_schedule *s = th_alt_schedule(1, 1, 0);
	char *text = NULL;
	TH_OK(tessel_schedule_to_trace_json(&text, s, 1.0));
	assert_non_null(strstr(text,
		"{\"name\": \"b1 mb0 (recompute)\", \"cat\": \"backward\", "
		"\"ph\": \"X\", \"ts\": 6, \"dur\": 6, \"pid\": 0, \"tid\": 1, "
		"\"args\": {\"gid\": 2, \"mid\": 0, \"phase\": "));
	assert_non_null(strstr(text, "\"recompute\": true, \"extra_steps\": 2}"));
	assert_int_equal(th_count(text, "(recompute)"), 1);
	assert_non_null(strstr(text,
		"{\"name\": \"b1 mb1\", \"cat\": \"backward\", \"ph\": \"X\", "
		"\"ts\": 12, \"dur\": 4, "));
	/* copies: tid 2 is device 0's copy channel */
	assert_non_null(strstr(text, "\"tid\": 2, \"args\": {\"name\": \"device 0 copy\"}"));
	assert_non_null(strstr(text, "\"tid\": 3, \"args\": {\"name\": \"device 1 copy\"}"));
	assert_non_null(strstr(text,
		"{\"name\": \"offload f0 mb0\", \"cat\": \"offload\", \"ph\": \"X\", "
		"\"ts\": 2, \"dur\": 2, \"pid\": 0, \"tid\": 2, "
		"\"args\": {\"gid\": 0, \"mid\": 0, \"saves\": 4, \"backward\": \"b0\"}}"));
	assert_non_null(strstr(text,
		"{\"name\": \"reload f0 mb1\", \"cat\": \"reload\", \"ph\": \"X\", "
		"\"ts\": 14, \"dur\": 2, \"pid\": 0, \"tid\": 2, "));
	assert_int_equal(th_count(text, "\"cat\": \"offload\""), 2);
	assert_int_equal(th_count(text, "\"cat\": \"reload\""), 2);
	/* 8 entries and 4 copies */
	assert_int_equal(th_count(text, "\"ph\": \"X\""), 12);
	check_json_file(text);
	tessel_free(text);
	tessel_schedule_free(s);
}

/* The SVG: the recomputing backward as wide as it runs, outlined dashed,
 * the copies as bars in a lane under each device, their keys. */
static void test_alternatives_svg(void **state)
{
	(void)state;
	tessel_schedule *s = th_alt_schedule(1, 1, 0);
	char *text = NULL;
	TH_OK(tessel_schedule_to_svg(&text, s));
	/* 24 px per step: b1 mb0 is 6 steps, b1 mb1 4 */
	const char *b = strstr(text, "<title>b1 mb0: steps 6 to 11; recomputes "
				     "its forward, 2 steps longer</title>");
	assert_non_null(b);
	while (b > text && strncmp(b, "<rect ", 6) != 0)
		b--;
	assert_true(svg_attr(b, "width") == 6 * 24);
	assert_non_null(strstr(b, "stroke-dasharray=\"3 2\""));
	b = strstr(text, "<title>b1 mb1: steps 12 to 15</title>");
	assert_non_null(b);
	while (b > text && strncmp(b, "<rect ", 6) != 0)
		b--;
	assert_true(svg_attr(b, "width") == 4 * 24);
	assert_int_equal(th_count(text, "stroke-dasharray"), 2); /* + key */
	/* copies: a group per device, a bar per copy */
	assert_int_equal(th_count(text, "<g class=\"copies\""), 2);
	assert_non_null(strstr(text, "<title>offload f0 mb0: steps 2 to 3</title>"));
	assert_non_null(strstr(text, "<title>offload f0 mb1: steps 4 to 5</title>"));
	assert_non_null(strstr(text, "<title>reload f0 mb0: steps 10 to 11</title>"));
	const char *r = strstr(text, "<title>reload f0 mb1: steps 14 to 15</title>");
	assert_non_null(r);
	while (r > text && strncmp(r, "<rect ", 6) != 0)
		r--;
	assert_true(svg_attr(r, "x") == 72 + 14 * 24);
	assert_true(svg_attr(r, "width") == 2 * 24);
	assert_true(svg_attr(r, "height") == 5);
	assert_non_null(strstr(text, ">offload</text>"));
	assert_non_null(strstr(text, ">reload</text>"));
	assert_non_null(strstr(text, ">recomputes its forward (dashed)</text>"));
	/* the device groups keep a tooltip per block */
	assert_int_equal(svg_block_tooltips(text, 16), 8);
	check_svg_file(text);
	tessel_free(text);
	tessel_schedule_free(s);
}

/* The torch CSV has no action for a recompute or an offload: refused, not
 * dropped; every activation kept, the schedule exports. */
static void test_alternatives_torch(void **state)
{
	(void)state;
	char *text = (char *)"untouched";
	tessel_schedule *s = th_alt_schedule(1, 1, 0);
	for (int comms = 0; comms < 2; comms++) {
		th_expect_error(tessel_schedule_to_torch_csv(&text, s, comms),
				TESSEL_EINVAL,
				"block \"f0\" of micro-batch 0 offloads its "
				"activation (choice \"offload\")");
		assert_null(text);
	}
	assert_non_null(strstr(tessel_error_last(), "no action for recomputation "
				"or offload"));
	sink none = {0};
	th_expect_error(tessel_schedule_write(s, TESSEL_FORMAT_TORCH, 0, sink_put,
					      &none), TESSEL_EINVAL, "offloads");
	assert_int_equal(none.pieces, 0);
	tessel_schedule_free(s);
	/* a graph that declares alternatives passes the graph's check */
	s = th_alt_schedule(1, 0, 0);
	const tessel_graph *g = graph_of(s);
	TH_OK(tessel_graph_check_torch(g, 1));
	th_expect_error(tessel_schedule_to_torch_csv(&text, s, 1), TESSEL_EINVAL,
			"block \"f1\" of micro-batch 0 recomputes its activation");
	/* keep it after all: exported */
	TH_OK(tessel_schedule_set_choice(s, 1, 0, TESSEL_CHOICE_KEEP, 0, 0));
	TH_OK(tessel_schedule_to_torch_csv(&text, s, 0));
	assert_string_equal(text, "0F0,0F1,0B0,0B1\n1F0,1F1,1B0,1B1\n");
	tessel_free(text);
	tessel_schedule_free(s);
}

/* The streamed exports of a schedule with alternatives are the same
 * texts. */
static void test_alternatives_streamed(void **state)
{
	(void)state;
	tessel_schedule *s = th_alt_schedule(1, 1, 1);
	static const tessel_format formats[] = {
		TESSEL_FORMAT_TEXT, TESSEL_FORMAT_ACTIONS, TESSEL_FORMAT_TRACE,
		TESSEL_FORMAT_SVG};
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
		char *want = NULL;
		switch (formats[i]) {
		case TESSEL_FORMAT_TEXT: TH_OK(tessel_schedule_to_text(&want, s)); break;
		case TESSEL_FORMAT_ACTIONS: TH_OK(tessel_schedule_to_actions_json(&want, s)); break;
		case TESSEL_FORMAT_TRACE: TH_OK(tessel_schedule_to_trace_json(&want, s, 0)); break;
		default: TH_OK(tessel_schedule_to_svg(&want, s)); break;
		}
		sink k = {0};
		TH_OK(tessel_schedule_write(s, formats[i], 0, sink_put, &k));
		assert_string_equal(k.data, want);
		free(k.data);
		tessel_free(want);
	}
	tessel_schedule_free(s);
}


/* U+FFFE and U+FFFF are valid UTF-8 (and JSON): every JSON export takes
 * a name with them; the SVG, XML, shows '?' for them */
static void test_noncharacter_names(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 1));
	TH_OK(tessel_graph_add_block(NULL, g, "f\xef\xbf\xbe", TESSEL_KIND_FORWARD, 1, 0));
	TH_OK(tessel_graph_add_block(NULL, g, "b\xef\xbf\xbf", TESSEL_KIND_BACKWARD, 1, 0));
	int dev = 0;
	TH_OK(tessel_graph_place(g, 0, &dev, 1));
	TH_OK(tessel_graph_place(g, 1, &dev, 1));
	TH_OK(tessel_graph_add_dep(g, 0, 1));
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, g, 1));
	tessel_graph_free(g);
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 1));
	char *text = NULL;
	TH_OK(tessel_schedule_to_trace_json(&text, s, 1.0));
	assert_non_null(strstr(text, "f\xef\xbf\xbe"));
	tessel_free(text);
	TH_OK(tessel_schedule_to_actions_json(&text, s));
	tessel_free(text);
	TH_OK(tessel_schedule_to_json(&text, s));
	assert_non_null(strstr(text, "b\xef\xbf\xbf"));
	tessel_free(text);
	TH_OK(tessel_schedule_to_svg(&text, s));
	assert_null(strstr(text, "\xef\xbf\xbe"));
	assert_null(strstr(text, "\xef\xbf\xbf"));
	assert_non_null(strstr(text, "f?"));
	tessel_free(text);
	tessel_schedule_free(s);
}


/* A repetend beyond the schedule's entries is refused when read (it was
 * drawn as a band of 10^16 px, then clamped, 1.8.7); the band of a
 * schedule read back lies within it */
static void test_svg_repetend_within(void **state)
{
	(void)state;
	tessel_schedule *s = th_search_preset("vshape", 4, 4, 8, th_under_checker());
	char *text = NULL;
	TH_OK(tessel_schedule_to_json(&text, s));
	tessel_schedule_free(s);
	const char *at = strstr(text, "\"repetend\": [");
	assert_non_null(at);
	const char *end = strchr(at, ']');
	assert_non_null(end);
	char from[64];
	snprintf(from, sizeof from, "%.*s", (int)(end - at + 1), at);
	char *edited = th_replace_first(text, from, "\"repetend\": [10, 1000000000000000]");
	tessel_schedule *r = NULL;
	/* a repetend beyond the entries is refused when read (since 1.8.8) */
	th_expect_error(tessel_schedule_from_json(&r, edited, strlen(edited)),
			TESSEL_EPARSE, "ends after the makespan");
	free(edited);
	TH_OK(tessel_schedule_from_json(&r, text, strlen(text)));
	tessel_free(text);
	TH_OK(tessel_schedule_to_svg(&text, r));
	const char *band = strstr(text, "class=\"repetend\"");
	assert_non_null(band);
	const char *w = strstr(band, "width=\"");
	assert_non_null(w);
	double width = atof(w + 7);
	assert_true(width > 0 && width < 100000);
	tessel_free(text);
	tessel_schedule_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_torch_csv),
		cmocka_unit_test(test_svg_huge_makespan),
		cmocka_unit_test(test_json_writers_refuse_bad_utf8),
		cmocka_unit_test(test_torch_csv_comms),
		cmocka_unit_test(test_torch_csv_small),
		cmocka_unit_test(test_torch_csv_errors),
		cmocka_unit_test(test_noncharacter_names),
		cmocka_unit_test(test_svg_repetend_within),
		cmocka_unit_test(test_trace_json),
		cmocka_unit_test(test_trace_known),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_svg_escapes_and_size),
		cmocka_unit_test(test_svg_at_scale),
		cmocka_unit_test(test_svg_legible_at_scale),
		cmocka_unit_test(test_svg_compact),
		cmocka_unit_test(test_svg_devices),
		cmocka_unit_test(test_svg_time_axis),
		cmocka_unit_test(test_trace_latency),
		cmocka_unit_test(test_svg_latency),
		cmocka_unit_test(test_check_torch),
		cmocka_unit_test(test_streamed_write),
		cmocka_unit_test(test_alternatives_text),
		cmocka_unit_test(test_alternatives_trace),
		cmocka_unit_test(test_alternatives_svg),
		cmocka_unit_test(test_alternatives_torch),
		cmocka_unit_test(test_alternatives_streamed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
