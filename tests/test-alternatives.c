/* Memory-time alternatives: declaring recompute and offload, choices per
 * (block, micro-batch) in a schedule, the validator's rules for them, the
 * placement and schedule JSON, and the search that chooses them under
 * memory limits below what every schedule keeping its activations needs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helpers.h"
#include "tessel.h"

/* A pipeline on `ndev` devices: forwards f0 .. f{n-1} (span 2, memory 4,
 * f_s on device s after f_{s-1}), backwards b{n-1} .. b0 (span 4, memory
 * -4, b_s on device s after f_s and b_{s+1}); with `rc`, every forward may
 * recompute (saves 3, extra 2), with `of`, offload (saves 4, transfer 2).
 * Forward of device s: gid s; its backward: gid 2n-1-s. */
static tessel_graph *pipeline(int ndev, int64_t limit, int rc, int of)
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, ndev));
	for (int i = 0; i < 2 * ndev; i++) {
		char name[16];
		int gid = -1, fwd = i < ndev, dev = fwd ? i : 2 * ndev - 1 - i;
		snprintf(name, sizeof name, "%c%d", fwd ? 'f' : 'b', dev);
		TH_OK(tessel_graph_add_block(&gid, g, name,
					     fwd ? TESSEL_KIND_FORWARD
						 : TESSEL_KIND_BACKWARD,
					     fwd ? 2 : 4, fwd ? 4 : -4));
		TH_OK(tessel_graph_place(g, gid, &dev, 1));
		if (i > 0)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	for (int s = 0; s < ndev; s++) {
		if (rc)
			TH_OK(tessel_graph_set_recompute(g, s, 2 * ndev - 1 - s, 3, 2));
		if (of)
			TH_OK(tessel_graph_set_offload(g, s, 2 * ndev - 1 - s, 4, 2));
		if (limit >= 0)
			TH_OK(tessel_graph_set_memory_limit(g, s, limit));
	}
	return g;
}

static void test_declare(void **state)
{
	(void)state;
	tessel_graph *g = pipeline(2, -1, 0, 0);
	int back = 0, saves = 0, cost = 0;
	th_expect_error(tessel_graph_block_recompute(&back, &saves, &cost, g, 0),
			TESSEL_ENOTFOUND, "declares no recompute");
	assert_int_equal(back, -1);
	TH_OK(tessel_graph_set_recompute(g, 0, 3, 3, 2));
	TH_OK(tessel_graph_block_recompute(&back, &saves, &cost, g, 0));
	assert_int_equal(back, 3);
	assert_int_equal(saves, 3);
	assert_int_equal(cost, 2);
	TH_OK(tessel_graph_set_offload(g, 0, 3, 4, 5));
	TH_OK(tessel_graph_block_offload(&back, NULL, &cost, g, 0));
	assert_int_equal(cost, 5);
	/* errors: the block itself, other devices, ranges, unknown ids */
	th_expect_error(tessel_graph_set_recompute(g, 0, 0, 1, 1),
			TESSEL_EINVAL, "its own backward");
	th_expect_error(tessel_graph_set_recompute(g, 0, 2, 1, 1),
			TESSEL_EINVAL, "same devices");
	th_expect_error(tessel_graph_set_recompute(g, 0, 3, 5, 1),
			TESSEL_ERANGE, "saves must be 1 .. its memory 4");
	th_expect_error(tessel_graph_set_recompute(g, 0, 3, 0, 1),
			TESSEL_ERANGE, "saves");
	th_expect_error(tessel_graph_set_recompute(g, 0, 3, 1, -1),
			TESSEL_ERANGE, "extra");
	th_expect_error(tessel_graph_set_offload(g, 0, 3, 1, 0),
			TESSEL_ERANGE, "transfer");
	th_expect_error(tessel_graph_set_offload(g, 9, 3, 1, 1),
			TESSEL_ENOTFOUND, "out of range");
	th_expect_error(tessel_graph_set_offload(g, 0, 9, 1, 1),
			TESSEL_ENOTFOUND, "out of range");
	th_expect_error(tessel_graph_set_offload(NULL, 0, 3, 1, 1),
			TESSEL_EINVAL, "NULL");
	/* a backward that does not depend on the block: caught by validate */
	tessel_graph *h = NULL;
	int a = -1, b = -1, dev = 0;
	TH_OK(tessel_graph_new(&h, 1));
	TH_OK(tessel_graph_add_block(&a, h, "x", TESSEL_KIND_FORWARD, 1, 2));
	TH_OK(tessel_graph_add_block(&b, h, "y", TESSEL_KIND_BACKWARD, 1, -2));
	TH_OK(tessel_graph_place(h, a, &dev, 1));
	TH_OK(tessel_graph_place(h, b, &dev, 1));
	TH_OK(tessel_graph_set_recompute(h, a, b, 1, 1));
	th_expect_error(tessel_graph_validate(h), TESSEL_EINVAL,
			"does not depend on it");
	TH_OK(tessel_graph_add_dep(h, a, b));
	TH_OK(tessel_graph_validate(h));
	/* removal */
	TH_OK(tessel_graph_set_recompute(h, a, -1, 0, 0));
	th_expect_error(tessel_graph_block_recompute(NULL, NULL, NULL, h, a),
			TESSEL_ENOTFOUND, "declares no");
	assert_string_equal(tessel_choice_name(TESSEL_CHOICE_OFFLOAD), "offload");
	assert_string_equal(tessel_choice_name((tessel_choice)7), "?");
	tessel_graph_free(h);
	tessel_graph_free(g);
}

/* One device, f0 (0..2) then b0; micro-batch 1 after it. */
static tessel_schedule *one_device(tessel_graph **gp, int64_t limit)
{
	*gp = pipeline(1, limit, 1, 1);
	tessel_schedule *s = NULL;
	TH_OK(tessel_schedule_new(&s, *gp, 2));
	return s;
}

static void test_validate_recompute(void **state)
{
	(void)state;
	tessel_graph *g;
	tessel_schedule *s = one_device(&g, 5);
	/* f0 f1 b0 b1: both activations live at once (8 > 5) */
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 0, 1, 2));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 4));
	TH_OK(tessel_schedule_set_step(s, 1, 1, 8));
	th_expect_error(tessel_schedule_validate(s), TESSEL_EVIOLATION,
			"memory over the limit on device 0: 8");
	/* micro-batch 1 recomputes: 4 + 1 kept; its backward runs 6 steps */
	TH_OK(tessel_schedule_set_choice(s, 0, 1, TESSEL_CHOICE_RECOMPUTE, 0, 0));
	TH_OK(tessel_schedule_validate(s));
	int64_t peak = 0;
	TH_OK(tessel_schedule_peak_memory(&peak, s, 0));
	assert_int_equal(peak, 5);
	assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 14);
	/* the longer backward: a block right after its old end overlaps */
	tessel_schedule *t = NULL;
	TH_OK(tessel_schedule_new(&t, g, 2));
	TH_OK(tessel_schedule_set_step(t, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(t, 1, 0, 2));
	TH_OK(tessel_schedule_set_step(t, 0, 1, 6));
	TH_OK(tessel_schedule_set_step(t, 1, 1, 8));
	TH_OK(tessel_schedule_validate(t));
	TH_OK(tessel_schedule_set_choice(t, 0, 0, TESSEL_CHOICE_RECOMPUTE, 0, 0));
	th_expect_error(tessel_schedule_validate(t), TESSEL_EVIOLATION,
			"runs two blocks at once");
	TH_OK(tessel_schedule_set_choice(t, 0, 0, TESSEL_CHOICE_KEEP, 0, 0));
	TH_OK(tessel_schedule_validate(t));
	/* errors of set_choice */
	th_expect_error(tessel_schedule_set_choice(t, 1, 0, TESSEL_CHOICE_RECOMPUTE, 0, 0),
			TESSEL_EINVAL, "declares no recompute");
	th_expect_error(tessel_schedule_set_choice(t, 0, 0, (tessel_choice)5, 0, 0),
			TESSEL_EINVAL, "unknown choice");
	th_expect_error(tessel_schedule_set_choice(t, 0, 2, TESSEL_CHOICE_KEEP, 0, 0),
			TESSEL_ENOTFOUND, "micro-batch");
	th_expect_error(tessel_schedule_set_choice(t, 0, 0, TESSEL_CHOICE_OFFLOAD, -1, 3),
			TESSEL_ERANGE, "out of range");
	tessel_schedule_free(t);
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

static void test_validate_offload(void **state)
{
	(void)state;
	tessel_graph *g;
	tessel_schedule *s = one_device(&g, 4);
	/* f0 0..2, offload 2..4, f1 4..6, b1 6..10, reload 8..10, b0 10..14:
	 * at most one activation on the device */
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 0, 1, 4));
	TH_OK(tessel_schedule_set_step(s, 1, 1, 6));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 10));
	TH_OK(tessel_schedule_set_choice(s, 0, 0, TESSEL_CHOICE_OFFLOAD, 2, 8));
	TH_OK(tessel_schedule_validate(s));
	const tessel_entry *e = NULL;
	tessel_iter *it = NULL;
	TH_OK(tessel_iter_new(&it, s, 0));
	TH_OK(tessel_iter_next(&e, it));
	assert_int_equal(th_entry(e, TESSEL_ENTRY_CHOICE), TESSEL_CHOICE_OFFLOAD);
	assert_int_equal(th_entry(e, TESSEL_ENTRY_OFFLOAD_START), 2);
	assert_int_equal(th_entry(e, TESSEL_ENTRY_RELOAD_START), 8);
	TH_OK(tessel_iter_next(&e, it));
	assert_int_equal(th_entry(e, TESSEL_ENTRY_OFFLOAD_START), -1);
	tessel_iter_free(it);
	/* the offload ends at 4 as f1 starts: freed first */
	int64_t peak = 0;
	TH_OK(tessel_schedule_peak_memory(&peak, s, 0));
	assert_int_equal(peak, 4);
	/* broken copies */
	TH_OK(tessel_schedule_set_choice(s, 0, 0, TESSEL_CHOICE_OFFLOAD, 1, 8));
	th_expect_error(tessel_schedule_validate(s), TESSEL_EVIOLATION,
			"offload starts before the block finishes");
	TH_OK(tessel_schedule_set_choice(s, 0, 0, TESSEL_CHOICE_OFFLOAD, 2, 3));
	th_expect_error(tessel_schedule_validate(s), TESSEL_EVIOLATION,
			"reload starts before the offload ends");
	TH_OK(tessel_schedule_set_choice(s, 0, 0, TESSEL_CHOICE_OFFLOAD, 2, 9));
	th_expect_error(tessel_schedule_validate(s), TESSEL_EVIOLATION,
			"reload ends after its backward starts");
	TH_OK(tessel_schedule_set_choice(s, 0, 0, TESSEL_CHOICE_OFFLOAD, 3, 8));
	th_expect_error(tessel_schedule_validate(s), TESSEL_EVIOLATION,
			"memory over the limit on device 0: 8");
	TH_OK(tessel_schedule_set_choice(s, 0, 0, TESSEL_CHOICE_OFFLOAD, 2, 8));
	TH_OK(tessel_schedule_validate(s));
	/* the JSON keeps the choices and copies */
	char *text = NULL;
	TH_OK(tessel_schedule_to_json(&text, s));
	assert_non_null(strstr(text, "\"choice\": \"offload\", \"offload\": 2, \"reload\": 8"));
	tessel_schedule *r = NULL;
	TH_OK(tessel_schedule_from_json(&r, text, strlen(text)));
	TH_OK(tessel_schedule_validate(r));
	char *again = NULL;
	TH_OK(tessel_schedule_to_json(&again, r));
	assert_string_equal(text, again);
	/* an undeclared choice in the JSON */
	char *bad = th_replace_first(text, "\"choice\": \"offload\", \"offload\": 2, \"reload\": 8",
				     "\"choice\": \"sideways\"");
	tessel_schedule *none = NULL;
	th_expect_error(tessel_schedule_from_json(&none, bad, strlen(bad)),
			TESSEL_EPARSE, "\"choice\" must be");
	free(bad);
	tessel_free(again);
	tessel_free(text);
	tessel_schedule_free(r);
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

/* Two offloads: copies one at a time on the channel. */
static void test_validate_channel(void **state)
{
	(void)state;
	tessel_graph *g;
	tessel_schedule *s = one_device(&g, 8);
	/* f0 0..2, f1 2..4, b1 8..12, b0 12..16; copies 2..4, 4..6, 6..8,
	 * 10..12 */
	TH_OK(tessel_schedule_set_step(s, 0, 0, 0));
	TH_OK(tessel_schedule_set_step(s, 0, 1, 2));
	TH_OK(tessel_schedule_set_step(s, 1, 1, 8));
	TH_OK(tessel_schedule_set_step(s, 1, 0, 12));
	TH_OK(tessel_schedule_set_choice(s, 0, 0, TESSEL_CHOICE_OFFLOAD, 2, 10));
	TH_OK(tessel_schedule_set_choice(s, 0, 1, TESSEL_CHOICE_OFFLOAD, 4, 6));
	TH_OK(tessel_schedule_validate(s));
	assert_int_equal(th_sched(s, TESSEL_SCHED_MAKESPAN), 16);
	TH_OK(tessel_schedule_set_choice(s, 0, 0, TESSEL_CHOICE_OFFLOAD, 2, 7));
	th_expect_error(tessel_schedule_validate(s), TESSEL_EVIOLATION,
			"overlaps another copy on the device's copy channel");
	tessel_schedule_free(s);
	tessel_graph_free(g);
}

static void test_placement_json(void **state)
{
	(void)state;
	tessel_graph *g = pipeline(2, 6, 1, 1), *h = NULL;
	char *text = NULL, *again = NULL;
	TH_OK(tessel_graph_to_json(&text, g));
	assert_non_null(strstr(text, "\"recompute\""));
	assert_non_null(strstr(text, "\"transfer\": 2"));
	TH_OK(tessel_graph_from_json(&h, text, strlen(text)));
	TH_OK(tessel_graph_to_json(&again, h));
	assert_string_equal(text, again);
	int back = 0, saves = 0, extra = 0;
	TH_OK(tessel_graph_block_recompute(&back, &saves, &extra, h, 1));
	assert_int_equal(back, 2);
	assert_int_equal(saves, 3);
	assert_int_equal(extra, 2);
	tessel_graph_free(h);
	char *bad = th_replace_first(text, "\"backward\": \"b1\"",
				     "\"backward\": \"nowhere\"");
	th_expect_error(tessel_graph_from_json(&h, bad, strlen(bad)),
			TESSEL_ENOTFOUND, "unknown block \"nowhere\"");
	free(bad);
	bad = th_replace_first(text, "\"saves\": 3", "\"saves\": 9");
	th_expect_error(tessel_graph_from_json(&h, bad, strlen(bad)),
			TESSEL_ERANGE, "saves");
	free(bad);
	tessel_free(again);
	tessel_free(text);
	tessel_graph_free(g);
}

static int64_t count_choice(const tessel_schedule *s, int choice)
{
	tessel_iter *it = NULL;
	const tessel_entry *e = NULL;
	int64_t n = 0;
	TH_OK(tessel_iter_new(&it, s, TESSEL_ALL_DEVICES));
	while (tessel_iter_next(&e, it) == TESSEL_OK)
		n += th_entry(e, TESSEL_ENTRY_CHOICE) == choice;
	tessel_iter_free(it);
	return n;
}

/* The steady state's figures of a schedule of pipeline(ndev, ...) are
 * its own: the repetend within the schedule, the resource bound the
 * placement's (forward 2 and backward 4 a device, every activation
 * kept), the period per micro-batch never below it, and "optimal" only
 * where the period meets it or, the alternatives off (alternatives 0),
 * the search proved it. */
static void check_figures(const tessel_schedule *s, int64_t alternatives)
{
	int64_t k = th_sched(s, TESSEL_SCHED_REPETEND_MICRO_BATCHES);
	int64_t P = th_sched(s, TESSEL_SCHED_PERIOD);
	int64_t rb = th_sched(s, TESSEL_SCHED_RESOURCE_BOUND);
	assert_int_equal(rb, 6);
	assert_true(th_sched(s, TESSEL_SCHED_REPETEND_BEGIN) <=
		    th_sched(s, TESSEL_SCHED_REPETEND_END));
	assert_true(th_sched(s, TESSEL_SCHED_REPETEND_END) <=
		    th_sched(s, TESSEL_SCHED_MAKESPAN));
	assert_true(P >= k * rb);
	if (th_sched(s, TESSEL_SCHED_PERIOD_OPTIMAL) && alternatives != 0)
		assert_int_equal(P, k * rb);
}

static tessel_schedule *search(const tessel_graph *g, int64_t alternatives)
{
	tessel_options *o = th_options(16);
	TH_OK(tessel_options_set(o, TESSEL_OPT_FAST, 1));
	TH_OK(tessel_options_set(o, TESSEL_OPT_ALTERNATIVES, alternatives));
	tessel_schedule *s = NULL;
	TH_OK(tessel_search(&s, g, o));
	tessel_options_free(o);
	TH_OK(tessel_schedule_validate(s));
	check_figures(s, alternatives);
	return s;
}

/* Under memory for one activation a device, keeping every activation
 * runs one micro-batch at a time (period 12 a micro-batch on 2 devices,
 * proven minimal for such schedules), while offloads overlap them: the
 * period the search returns is not called optimal unless it meets the
 * resource bound, whichever plan won. */
static void test_proof_with_alternatives(void **state)
{
	(void)state;
	tessel_graph *g = pipeline(2, 4, 0, 1);
	tessel_options *o = th_options(4);
	tessel_schedule *s = NULL;
	TH_OK(tessel_search(&s, g, o));
	TH_OK(tessel_schedule_validate(s));
	check_figures(s, 1);
	tessel_schedule_free(s);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* Below the memory 1F1B needs (16 on device 0 for 4 devices), the
 * recompute alternative gives a shorter schedule than waiting; with
 * plenty of memory nothing is recomputed. */
static void test_search_recompute(void **state)
{
	(void)state;
	tessel_graph *g = pipeline(4, 6, 1, 0);
	tessel_schedule *with = search(g, 1), *without = search(g, 0);
	int64_t a = th_sched(with, TESSEL_SCHED_MAKESPAN);
	int64_t b = th_sched(without, TESSEL_SCHED_MAKESPAN);
	assert_true(a < b);
	assert_true(count_choice(with, TESSEL_CHOICE_RECOMPUTE) > 0);
	/* and not every instance: the warm-up keeps what fits */
	assert_true(count_choice(with, TESSEL_CHOICE_KEEP) > 64);
	assert_int_equal(count_choice(without, TESSEL_CHOICE_RECOMPUTE), 0);
	assert_true(th_sched(with, TESSEL_SCHED_LOWER_BOUND) <= a);
	tessel_schedule_free(with);
	tessel_schedule_free(without);
	tessel_graph_free(g);
	g = pipeline(4, -1, 1, 1);
	with = search(g, 1);
	assert_int_equal(count_choice(with, TESSEL_CHOICE_KEEP), 128);
	assert_int_equal(th_sched(with, TESSEL_SCHED_MAKESPAN),
			 th_sched(with, TESSEL_SCHED_LOWER_BOUND));
	tessel_schedule_free(with);
	tessel_graph_free(g);
}

/* Recomputing in every other micro-batch: on 4 devices at memory 12, a
 * recompute on a device in every micro-batch makes its load 8 steps a
 * micro-batch (forward 2, backward 4, extra 2), while keeping every
 * activation needs more memory than 12 for the period 6; a plan of two
 * micro-batches, recomputing in one of them, reaches 7 per micro-batch
 * (a period of 14 for 2), and a shorter schedule. */
static void test_search_recompute_pairs(void **state)
{
	(void)state;
	tessel_graph *g = pipeline(4, 12, 1, 0);
	tessel_schedule *with = search(g, 1), *without = search(g, 0);
	int64_t k = th_sched(with, TESSEL_SCHED_REPETEND_MICRO_BATCHES);
	int64_t P = th_sched(with, TESSEL_SCHED_PERIOD);
	if (th_work_limit() == TESSEL_WORK_AUTO) {
		assert_true(k >= 2);
		assert_true(P < 8 * k);
		assert_true(th_sched(with, TESSEL_SCHED_MAKESPAN) <
			    th_sched(without, TESSEL_SCHED_MAKESPAN));
	}
	/* some instances recompute, not all */
	assert_true(count_choice(with, TESSEL_CHOICE_RECOMPUTE) > 0);
	assert_true(count_choice(with, TESSEL_CHOICE_KEEP) > 0);
	tessel_schedule_free(with);
	tessel_schedule_free(without);
	tessel_graph_free(g);
}

/* With both declared, some recomputes become offloads (the copy channel
 * is idle), and the result is no longer than with recompute alone. */
static void test_search_offload(void **state)
{
	(void)state;
	tessel_graph *g = pipeline(4, 8, 1, 1), *r = pipeline(4, 8, 1, 0);
	tessel_schedule *both = search(g, 1), *rc = search(r, 1);
	/* (every relief taken: the figures are the schedule's too) */
	tessel_schedule_free(search(g, 2));
	assert_true(count_choice(both, TESSEL_CHOICE_OFFLOAD) > 0);
	assert_true(th_sched(both, TESSEL_SCHED_MAKESPAN) <=
		    th_sched(rc, TESSEL_SCHED_MAKESPAN));
	tessel_schedule_free(both);
	tessel_schedule_free(rc);
	tessel_graph_free(g);
	tessel_graph_free(r);
}

/* A placement that declares only offloads: its plans put the copies on
 * the devices' copy channels, and under memory 8 (1F1B needs 16) the
 * schedule is shorter than keeping everything, with offloads chosen. */
static void test_search_offload_only(void **state)
{
	(void)state;
	tessel_graph *g = pipeline(4, 8, 0, 1);
	/* the default budget (heuristic mode and the small budget of a slow
	 * checker plan no offload here: only validity is checked then) */
	tessel_options *o = th_options(16);
	tessel_schedule *with = NULL, *without = NULL;
	TH_OK(tessel_search(&with, g, o));
	TH_OK(tessel_schedule_validate(with));
	check_figures(with, 1);
	TH_OK(tessel_options_set(o, TESSEL_OPT_ALTERNATIVES, 0));
	TH_OK(tessel_search(&without, g, o));
	check_figures(without, 0);
	assert_int_equal(count_choice(with, TESSEL_CHOICE_RECOMPUTE), 0);
	if (th_work_limit() == TESSEL_WORK_AUTO) {
		/* 114 (the bound of the placement without limits) against 198 */
		assert_true(count_choice(with, TESSEL_CHOICE_OFFLOAD) > 0);
		assert_true(th_sched(with, TESSEL_SCHED_MAKESPAN) <
			    th_sched(without, TESSEL_SCHED_MAKESPAN));
	}
	tessel_options_free(o);
	tessel_schedule_free(with);
	tessel_schedule_free(without);
	tessel_graph_free(g);
}

/* A limit below one micro-batch's need without the alternatives passes
 * validation with them, and only a search with them finds a schedule. */
static void test_limit_below_need(void **state)
{
	(void)state;
	tessel_graph *g = pipeline(2, 3, 1, 0);
	TH_OK(tessel_graph_validate(g));
	tessel_schedule *s = search(g, 1);
	assert_int_equal(count_choice(s, TESSEL_CHOICE_KEEP), 32);
	tessel_schedule_free(s);
	tessel_options *o = th_options(16);
	TH_OK(tessel_options_set(o, TESSEL_OPT_ALTERNATIVES, 0));
	th_expect_error(tessel_search(&s, g, o), TESSEL_EINFEASIBLE, "");
	tessel_options_free(o);
	/* a period cap below the resource bound, and no memory limit: the
	 * reason says the cap, in every mode */
	TH_OK(tessel_graph_set_memory_limit(g, TESSEL_ALL_DEVICES, TESSEL_UNLIMITED));
	for (int mode = 0; mode <= 2; mode++) {
		o = th_options(4);
		TH_OK(tessel_options_set(o, TESSEL_OPT_ALTERNATIVES, mode));
		TH_OK(tessel_options_set(o, TESSEL_OPT_MAX_PERIOD, 1));
		th_expect_error(tessel_search(&s, g, o), TESSEL_EINFEASIBLE,
				"below the resource bound");
		tessel_options_free(o);
	}
	tessel_graph_free(g);
}

/* A placement whose every-alternative plan has offloads whose reloads
 * must wait for memory: one micro-batch at a time, a reload (which takes
 * its memory back) taken as soon as its offload ended broke the limits,
 * and no schedule was found; the mirrored orders of complete_serial.c
 * take it just before its backward. */
static const char reload_late_json[] =
	"{\"devices\":4,\"memory_limit\":4,\"latency\":2,\"blocks\":[{\"name\":\"f0\""
	",\"kind\":\"forward\",\"span\":1,\"memory\":2,\"devices\":[0],\"recompute\":"
	"{\"backward\":\"b0\",\"saves\":2,\"extra\":1},\"offload\":{\"backward\":\"b0\""
	",\"saves\":1,\"transfer\":1}},{\"name\":\"f1\",\"kind\":\"forward\",\"span\":2"
	",\"memory\":3,\"devices\":[1],\"after\":[{\"block\":\"f0\",\"latency\":1}],\""
	"offload\":{\"backward\":\"b1\",\"saves\":2,\"transfer\":2}},{\"name\":\"f2\","
	"\"kind\":\"forward\",\"span\":1,\"memory\":3,\"devices\":[2],\"after\":[{\"bl"
	"ock\":\"f1\",\"latency\":2}]},{\"name\":\"f3\",\"kind\":\"forward\",\"span\":2,"
	"\"memory\":1,\"devices\":[3],\"after\":[{\"block\":\"f2\",\"latency\":2}],\"o"
	"ffload\":{\"backward\":\"b3\",\"saves\":1,\"transfer\":3}},{\"name\":\"f4\",\""
	"kind\":\"forward\",\"span\":2,\"memory\":3,\"devices\":[0],\"after\":[\"f3\"]"
	",\"recompute\":{\"backward\":\"b4\",\"saves\":3,\"extra\":1}},{\"name\":\"f5\""
	",\"kind\":\"forward\",\"span\":1,\"memory\":2,\"devices\":[1],\"after\":[{\"b"
	"lock\":\"f4\",\"latency\":2}],\"offload\":{\"backward\":\"b5\",\"saves\":1,\"t"
	"ransfer\":2}},{\"name\":\"f6\",\"kind\":\"forward\",\"span\":2,\"memory\":1,\""
	"devices\":[2],\"after\":[\"f5\"],\"offload\":{\"backward\":\"b6\",\"saves\":1"
	",\"transfer\":3}},{\"name\":\"f7\",\"kind\":\"forward\",\"span\":2,\"memory\":"
	"3,\"devices\":[3],\"after\":[{\"block\":\"f6\",\"latency\":1}]},{\"name\":\"b"
	"7\",\"kind\":\"backward\",\"span\":2,\"memory\":-3,\"devices\":[3],\"after\":"
	"[\"f7\"]},{\"name\":\"b6\",\"kind\":\"backward\",\"span\":3,\"memory\":-1,\"dev"
	"ices\":[2],\"after\":[\"b7\"]},{\"name\":\"b5\",\"kind\":\"backward\",\"span\":"
	"3,\"memory\":-2,\"devices\":[1],\"after\":[\"b6\",\"f5\"]},{\"name\":\"b4\",\"k"
	"ind\":\"backward\",\"span\":2,\"memory\":-3,\"devices\":[0],\"after\":[\"b5\""
	"]},{\"name\":\"b3\",\"kind\":\"backward\",\"span\":2,\"memory\":-1,\"devices\""
	":[3],\"after\":[\"b4\",\"f3\"]},{\"name\":\"b2\",\"kind\":\"backward\",\"span\":"
	"3,\"memory\":-3,\"devices\":[2],\"after\":[\"b3\"]},{\"name\":\"b1\",\"kind\":"
	"\"backward\",\"span\":2,\"memory\":-3,\"devices\":[1],\"after\":[\"b2\"]},{\""
	"name\":\"b0\",\"kind\":\"backward\",\"span\":2,\"memory\":-2,\"devices\":[0],"
	"\"after\":[\"b1\",\"f0\"]}]}";

static void test_reload_late(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_from_json(&g, reload_late_json, sizeof reload_late_json - 1));
	for (int64_t work = 0; work <= 300; work += 300) {
		tessel_options *o = th_options(7);
		TH_OK(tessel_options_set(o, TESSEL_OPT_ALTERNATIVES, 2));
		TH_OK(tessel_options_set(o, TESSEL_OPT_THREADS, 1));
		TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, work));
		tessel_schedule *s = NULL;
		TH_OK(tessel_search(&s, g, o));
		TH_OK(tessel_schedule_validate(s));
		tessel_schedule_free(s);
		tessel_options_free(o);
	}
	tessel_graph_free(g);
}

/* A placement accepted when read (its bound lets b2 free memory before
 * b1 takes it) under which no order fits, every alternative taken, searched
 * without a time limit: no schedule is TESSEL_EINFEASIBLE with its
 * reason, never TESSEL_ETIMEOUT (there is no time limit to lengthen). */
static const char no_schedule_json[] =
	"{\"devices\":1,\"memory_limit\":1,\"blocks\":["
	"{\"name\":\"a1\",\"kind\":\"forward\",\"span\":1,\"memory\":2,\"devices\":[0],"
	"\"recompute\":{\"backward\":\"a2\",\"saves\":1,\"extra\":1}},"
	"{\"name\":\"a2\",\"kind\":\"backward\",\"span\":1,\"memory\":-2,\"devices\":[0],"
	"\"after\":[\"a1\"]},"
	"{\"name\":\"b1\",\"kind\":\"forward\",\"span\":1,\"memory\":2,\"devices\":[0]},"
	"{\"name\":\"b2\",\"kind\":\"backward\",\"span\":1,\"memory\":-2,\"devices\":[0],"
	"\"after\":[\"b1\"]}]}";

static void test_no_repetend_without_time_limit(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_from_json(&g, no_schedule_json, sizeof no_schedule_json - 1));
	for (int64_t work = 0; work <= 300; work += 300) {
		tessel_options *o = th_options(7);
		TH_OK(tessel_options_set(o, TESSEL_OPT_ALTERNATIVES, 2));
		TH_OK(tessel_options_set(o, TESSEL_OPT_THREADS, 1));
		TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, work));
		tessel_schedule *s = NULL;
		th_expect_error(tessel_search(&s, g, o), TESSEL_EINFEASIBLE,
				"every declared alternative taken");
		assert_null(s);
		tessel_options_free(o);
	}
	tessel_graph_free(g);
}

/* Stops at the first better schedule; counts the calls after that. */
static int stop_at_first(const tessel_progress *p, void *payload)
{
	int *calls = payload;
	int64_t improved = 0;
	TH_OK(tessel_progress_get(&improved, p, TESSEL_PROGRESS_IMPROVED));
	if (calls[0])
		calls[1]++;
	calls[0] |= improved == 1;
	return calls[0];
}

/* Anytime: a progress callback that stops the search at its first
 * schedule gets it back, validated, and no call after it said stop; a
 * cancel before the search starts gives TESSEL_ECANCELLED. */
static void test_anytime(void **state)
{
	(void)state;
	tessel_graph *g = pipeline(4, 4, 1, 1);
	tessel_options *o = th_options(16);
	int calls[2] = {0, 0};
	TH_OK(tessel_options_set_progress_fn(o, stop_at_first, calls));
	tessel_schedule *s = NULL;
	TH_OK(tessel_search(&s, g, o));
	TH_OK(tessel_schedule_validate(s));
	assert_int_equal(calls[0], 1);
	assert_int_equal(calls[1], 0);
	tessel_schedule_free(s);
	TH_OK(tessel_options_set_progress_fn(o, NULL, NULL));
	/* cancelled before it starts: no schedule, as the plain search */
	TH_OK(tessel_options_cancel(o));
	th_expect_error(tessel_search(&s, g, o), TESSEL_ECANCELLED,
			"cancelled before it found a schedule");
	assert_null(s);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* Counts the reports of phase "heuristic" before the first with a
 * schedule, and stops the search at that one. */
static int stop_at_first_schedule(const tessel_progress *p, void *payload)
{
	int *seen = payload; /* [0]: a schedule seen, [1]: heuristic reports
			      * before it, [2]: calls after it */
	int64_t makespan = 0;
	const char *phase = NULL;
	TH_OK(tessel_progress_get(&makespan, p, TESSEL_PROGRESS_MAKESPAN));
	TH_OK(tessel_progress_phase(&phase, p));
	if (seen[0])
		seen[2]++; /* (a call after the stop) */
	else if (makespan > 0)
		seen[0] = 1;
	else if (phase && strcmp(phase, "heuristic") == 0)
		seen[1]++;
	return seen[0];
}

/* Anytime with alternatives: a placement whose every-activation-kept
 * plan has no first schedule (list scheduling and one micro-batch at a
 * time break device limits; only a repetend could fit) gets a first
 * schedule from a plan that relieves memory before that plan's search for
 * a repetend begins, and a stop there returns it, validated, with no
 * call after the stop. */
static void test_first_from_another_plan(void **state)
{
	(void)state;
	size_t len = 0;
	char *text = th_read_file(th_data_path("alt-no-first.json"), &len);
	assert_non_null(text);
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_from_json(&g, text, len));
	free(text);
	tessel_options *o = th_options(4);
	TH_OK(tessel_options_set(o, TESSEL_OPT_THREADS, 1));
	/* the plan that keeps every activation alone: no first schedule,
	 * its heuristic reports before any schedule */
	int seen[3] = {0, 0, 0};
	TH_OK(tessel_options_set(o, TESSEL_OPT_ALTERNATIVES, 0));
	TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, 50));
	TH_OK(tessel_options_set_progress_fn(o, stop_at_first_schedule, seen));
	tessel_schedule *s = NULL;
	int rc = tessel_search(&s, g, o);
	assert_true(rc == TESSEL_OK || rc == TESSEL_EINFEASIBLE);
	tessel_schedule_free(s);
	s = NULL;
	assert_true(seen[1] > 0);
	/* the search over the alternatives: a schedule first */
	seen[0] = seen[1] = seen[2] = 0;
	TH_OK(tessel_options_set(o, TESSEL_OPT_ALTERNATIVES, 1));
	TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, TESSEL_WORK_AUTO));
	TH_OK(tessel_search(&s, g, o));
	TH_OK(tessel_schedule_validate(s));
	assert_int_equal(seen[0], 1);
	assert_int_equal(seen[1], 0);
	assert_int_equal(seen[2], 0);
	tessel_schedule_free(s);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* The schedule of g under the default budget (no time limit) on
 * `threads` threads: with two, each plan's search in heuristic mode runs
 * beside its search and the finalists are completed two at a time. New. */
static tessel_schedule *search_threads(const tessel_graph *g, int64_t nmicros,
				       int64_t threads)
{
	tessel_options *o = th_options(nmicros);
	TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, TESSEL_WORK_AUTO));
	TH_OK(tessel_options_set(o, TESSEL_OPT_THREADS, threads));
	tessel_schedule *s = NULL;
	TH_OK(tessel_search(&s, g, o));
	TH_OK(tessel_schedule_validate(s));
	tessel_options_free(o);
	return s;
}

/* The same schedule, entry by entry, and the same work on one thread as
 * on two over the plans of the alternatives: what runs beside depends on
 * nothing the rest does; also where the all-keep plan has no first
 * schedule of its own (alt-no-first.json, another plan's stands in). */
static void test_threads_same_schedule(void **state)
{
	(void)state;
	size_t len = 0;
	char *text = th_read_file(th_data_path("alt-no-first.json"), &len);
	assert_non_null(text);
	tessel_graph *graphs[3] = {pipeline(3, 12, 1, 1), pipeline(4, 16, 1, 0), NULL};
	TH_OK(tessel_graph_from_json(&graphs[2], text, len));
	free(text);
	const int64_t nmicros[3] = {6, 8, 4};
	for (int k = 0; k < 3; k++) {
		tessel_schedule *one = search_threads(graphs[k], nmicros[k], 1);
		tessel_schedule *two = search_threads(graphs[k], nmicros[k], 2);
		assert_int_equal(th_sched(one, TESSEL_SCHED_MAKESPAN),
				 th_sched(two, TESSEL_SCHED_MAKESPAN));
		assert_int_equal(th_sched(one, TESSEL_SCHED_WORK),
				 th_sched(two, TESSEL_SCHED_WORK));
		tessel_iter *a = NULL, *b = NULL;
		const tessel_entry *ea = NULL, *eb = NULL;
		TH_OK(tessel_iter_new(&a, one, TESSEL_ALL_DEVICES));
		TH_OK(tessel_iter_new(&b, two, TESSEL_ALL_DEVICES));
		int n = 0;
		for (;;) {
			int ra = tessel_iter_next(&ea, a), rb = tessel_iter_next(&eb, b);
			assert_int_equal(ra, rb);
			if (ra != TESSEL_OK)
				break;
			const tessel_entry_attr attrs[] = {
				TESSEL_ENTRY_START, TESSEL_ENTRY_CHOICE,
				TESSEL_ENTRY_OFFLOAD_START, TESSEL_ENTRY_RELOAD_START};
			for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
				assert_int_equal(th_entry(ea, attrs[i]), th_entry(eb, attrs[i]));
			n++;
		}
		assert_true(n > 0);
		tessel_iter_free(a);
		tessel_iter_free(b);
		tessel_schedule_free(one);
		tessel_schedule_free(two);
		tessel_graph_free(graphs[k]);
	}
}

/* A progress callback that sets the options' micro-batches (to 1) while
 * the search runs: each plan of the alternatives is searched for the
 * micro-batches asked for when the search began, so the schedule has
 * them (it was of whichever count the last plan read). */
static int change_micro_batches(const tessel_progress *p, void *payload)
{
	(void)p;
	TH_OK(tessel_options_set(payload, TESSEL_OPT_MICRO_BATCHES, 1));
	return 0;
}

static void test_options_changed_by_callback(void **state)
{
	(void)state;
	tessel_graph *g = pipeline(3, 12, 1, 1);
	tessel_options *o = th_options(8);
	TH_OK(tessel_options_set(o, TESSEL_OPT_FAST, 1));
	TH_OK(tessel_options_set_progress_fn(o, change_micro_batches, o));
	for (int64_t mode = 0; mode <= 2; mode++) {
		TH_OK(tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, 8));
		TH_OK(tessel_options_set(o, TESSEL_OPT_ALTERNATIVES, mode));
		tessel_schedule *s = NULL;
		TH_OK(tessel_search(&s, g, o));
		TH_OK(tessel_schedule_validate(s));
		assert_int_equal(th_sched(s, TESSEL_SCHED_NMICROS), 8);
		int64_t lb = 0;
		TH_OK(tessel_graph_lower_bound(&lb, g, 8));
		assert_true(th_sched(s, TESSEL_SCHED_MAKESPAN) >= lb);
		tessel_schedule_free(s);
	}
	tessel_options_free(o);
	tessel_graph_free(g);
}


/* A backward's memory change with the saves its recomputes bring back is
 * a block's memory change too: beyond 10^9 the placement is refused, not
 * a search's plan graph (which would fail mid-search). */
static void test_backward_memory_with_saves(void **state)
{
	(void)state;
	tessel_graph *g = NULL;
	int dev = 0, f = -1, b = -1;
	TH_OK(tessel_graph_new(&g, 1));
	TH_OK(tessel_graph_add_block(&f, g, "f", TESSEL_KIND_FORWARD, 1, 500000000));
	TH_OK(tessel_graph_add_block(&b, g, "b", TESSEL_KIND_BACKWARD, 1, 600000000));
	TH_OK(tessel_graph_place(g, f, &dev, 1));
	TH_OK(tessel_graph_place(g, b, &dev, 1));
	TH_OK(tessel_graph_add_dep(g, f, b));
	TH_OK(tessel_graph_set_recompute(g, f, b, 400000000, 1));
	TH_OK(tessel_graph_validate(g));
	TH_OK(tessel_graph_set_recompute(g, f, b, 400000001, 1));
	th_expect_error(tessel_graph_validate(g), TESSEL_ERANGE,
			"with what they bring back");
	tessel_graph_free(g);
}

/* A two-device pipeline whose blocks have the given names, every forward
 * declaring an offload into its backward, memory 4 a device. */
static tessel_graph *named_pipeline(const char *const names[4])
{
	tessel_graph *g = NULL;
	TH_OK(tessel_graph_new(&g, 2));
	const int dev[4] = {0, 1, 1, 0};
	for (int i = 0; i < 4; i++) {
		TH_OK(tessel_graph_add_block(NULL, g, names[i],
					     i < 2 ? TESSEL_KIND_FORWARD : TESSEL_KIND_BACKWARD,
					     i < 2 ? 2 : 4, i < 2 ? 4 : -4));
		TH_OK(tessel_graph_place(g, i, &dev[i], 1));
		if (i)
			TH_OK(tessel_graph_add_dep(g, i - 1, i));
	}
	TH_OK(tessel_graph_set_offload(g, 0, 3, 4, 2));
	TH_OK(tessel_graph_set_offload(g, 1, 2, 4, 2));
	for (int d = 0; d < 2; d++)
		TH_OK(tessel_graph_set_memory_limit(g, d, 4));
	return g;
}

/* Block names are the placement's to give: names like those the search
 * gives its copy blocks change nothing. */
static void test_offload_with_any_names(void **state)
{
	(void)state;
	const char *plain[4] = {"f0", "f1", "b1", "b0"};
	const char *taken[4] = {"#offload:0", "#offloaded:0", "#reloading:1", "#reload:1"};
	int64_t makespan[2] = {0, 0};
	for (int k = 0; k < 2; k++) {
		tessel_graph *g = named_pipeline(k ? taken : plain);
		tessel_options *o = th_options(8);
		TH_OK(tessel_options_set(o, TESSEL_OPT_FAST, 1));
		TH_OK(tessel_options_set(o, TESSEL_OPT_ALTERNATIVES, 2));
		tessel_schedule *s = NULL;
		TH_OK(tessel_search(&s, g, o));
		TH_OK(tessel_schedule_validate(s));
		assert_true(count_choice(s, TESSEL_CHOICE_OFFLOAD) > 0);
		makespan[k] = th_sched(s, TESSEL_SCHED_MAKESPAN);
		tessel_schedule_free(s);
		tessel_options_free(o);
		tessel_graph_free(g);
	}
	assert_int_equal(makespan[0], makespan[1]);
}

/* An offload frees its memory after its block, once the copy ends: the
 * placement check counts the block's own memory in full at its start, so
 * a limit no schedule can meet is refused there (1.8.7 accepted it, and
 * the search found nothing); recompute saves at the start and is
 * accepted. */
static void test_offload_counts_at_start(void **state)
{
	(void)state;
#define START_FMT \
		"{\"devices\": 1, \"memory_limit\": 1, \"blocks\": [" \
		"{\"name\": \"f\", \"kind\": \"forward\", \"span\": 1, " \
		"\"memory\": 5, \"devices\": [0], \"%s\": {\"backward\": \"b\", " \
		"\"saves\": 5, \"%s\": 1}}," \
		"{\"name\": \"b\", \"kind\": \"backward\", \"span\": 1, " \
		"\"memory\": -5, \"devices\": [0], \"after\": [\"f\"]}]}"
	char text[1024];
	tessel_graph *g = NULL;
	snprintf(text, sizeof text, START_FMT, "offload", "transfer");
	int rc = tessel_graph_from_json(&g, text, strlen(text));
	assert_int_not_equal(rc, TESSEL_OK);
	assert_non_null(strstr(tessel_error_last(), "when block \"f\" starts"));
	assert_null(g);
	snprintf(text, sizeof text, START_FMT, "recompute", "extra");
	TH_OK(tessel_graph_from_json(&g, text, strlen(text)));
	tessel_options *o = th_options(2);
	tessel_schedule *s = NULL;
	TH_OK(tessel_search(&s, g, o));
	TH_OK(tessel_schedule_validate(s));
	tessel_schedule_free(s);
	tessel_options_free(o);
	tessel_graph_free(g);
}

/* A work budget set explicitly bounds the plans begun: no plan starts
 * once the work spent reaches it, and each gets at most what is left
 * (its own first schedule, and its solver checks once begun, are what it
 * may go beyond; 1.8.6 spent 154 units of a budget of 2 here). */
static void test_work_budget_bounds_plans(void **state)
{
	(void)state;
	tessel_graph *g = pipeline(4, 8, 1, 1);
	/* what one plan's search costs at least: the plain search's first
	 * schedule and the least of its phases (a budget of 1) */
	tessel_options *o1 = th_options(16);
	TH_OK(tessel_options_set(o1, TESSEL_OPT_WORK_LIMIT, 1));
	TH_OK(tessel_options_set(o1, TESSEL_OPT_ALTERNATIVES, 0));
	tessel_schedule *one = NULL;
	TH_OK(tessel_search(&one, g, o1));
	int64_t least = th_sched(one, TESSEL_SCHED_WORK);
	tessel_schedule_free(one);
	tessel_options_free(o1);
	/* (small budgets: a plan's solver checks, once begun, may pass
	 * what is left, so larger ones are bounded less tightly) */
	for (int64_t budget = 2; budget <= 8; budget *= 4) {
		tessel_options *o = th_options(16);
		TH_OK(tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, budget));
		tessel_schedule *s = NULL;
		TH_OK(tessel_search(&s, g, o));
		TH_OK(tessel_schedule_validate(s));
		int64_t work = th_sched(s, TESSEL_SCHED_WORK);
		print_message("budget %lld: work %lld (one plan at least %lld)\n",
			      (long long)budget, (long long)work, (long long)least);
		assert_true(work <= budget + 2 * least);
		tessel_schedule_free(s);
		tessel_options_free(o);
	}
	tessel_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backward_memory_with_saves),
		cmocka_unit_test(test_offload_with_any_names),
		cmocka_unit_test(test_work_budget_bounds_plans),
		cmocka_unit_test(test_declare),
		cmocka_unit_test(test_validate_recompute),
		cmocka_unit_test(test_validate_offload),
		cmocka_unit_test(test_validate_channel),
		cmocka_unit_test(test_placement_json),
		cmocka_unit_test(test_search_recompute),
		cmocka_unit_test(test_search_recompute_pairs),
		cmocka_unit_test(test_search_offload),
		cmocka_unit_test(test_proof_with_alternatives),
		cmocka_unit_test(test_search_offload_only),
		cmocka_unit_test(test_limit_below_need),
		cmocka_unit_test(test_reload_late),
		cmocka_unit_test(test_no_repetend_without_time_limit),
		cmocka_unit_test(test_anytime),
		cmocka_unit_test(test_first_from_another_plan),
		cmocka_unit_test(test_offload_counts_at_start),
		cmocka_unit_test(test_options_changed_by_callback),
		cmocka_unit_test(test_threads_same_schedule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
