/* tessel bench --suite zb: the Zero Bubble authors' automatic scheduler
 * (the peer) against libtessel on the peer's grid of realistic inputs
 * (tools/zb_peer.h, tests/data/zb-peer.txt): per case the peer's order
 * replayed as early as possible under libtessel's timing model, and
 * tessel_search on the same placement and memory limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "zb_peer.h"
#include "tessel.h"

typedef struct zb_tally {
	int shorter, equal, longer;
	double worst;          /* largest ratio tessel / peer */
	char worst_case[64];
	double seconds_max;    /* the slowest search */
	char slowest[64];
} zb_tally;

static int64_t sfig(const tessel_schedule *s, tessel_schedule_attr a)
{
	int64_t v = 0;
	tessel_schedule_get(&v, s, a);
	return v;
}

static void print_header(void)
{
	printf("%-26s %3s %4s %8s %8s %8s %7s %8s %7s\n", "case", "D", "N",
	       "peer", "tessel", "LB", "ratio", "seconds", "work");
}

/* The search options of the suite. */
static int suite_options(tessel_options **out, const cli_zb_opts *zo,
			 int64_t nmicros)
{
	tessel_options *o = NULL;
	int rc = tessel_options_new(&o);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, nmicros);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_FAST, zo->fast);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS, zo->time_limit_ms);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_THREADS, zo->threads);
	if (!rc && zo->work_limit_given)
		rc = tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, zo->work_limit);
	if (rc) {
		tessel_options_free(o);
		return rc;
	}
	*out = o;
	return TESSEL_OK;
}

/* One case: its row. 0, or 1 when it failed. */
static int run_case(const zb_case *c, const cli_zb_opts *zo, zb_tally *t)
{
	pub_order *order = NULL;
	tessel_schedule *peer = NULL, *s = NULL;
	tessel_options *o = NULL;
	char why[512];
	int64_t lb = 0;
	int rc = zb_case_order(&order, c, why, sizeof why);
	if (!rc)
		rc = pub_order_replay(&peer, order, why, sizeof why);
	if (rc) {
		printf("%-26s %3d %4lld  failed: the peer's order: %s\n", c->name,
		       c->devices, (long long)c->micros, why);
		fflush(stdout);
		pub_order_free(order);
		return 1;
	}
	int64_t replayed = sfig(peer, TESSEL_SCHED_MAKESPAN);
	tessel_graph_lower_bound(&lb, order->graph, c->micros);
	rc = suite_options(&o, zo, c->micros);
	if (!rc)
		rc = tessel_search(&s, order->graph, o);
	if (!rc)
		rc = tessel_schedule_validate(s);
	if (rc) {
		printf("%-26s %3d %4lld %8lld  failed: %s\n", c->name, c->devices,
		       (long long)c->micros, (long long)replayed, tessel_error_last());
	} else {
		double secs = 0;
		int64_t makespan = sfig(s, TESSEL_SCHED_MAKESPAN);
		double ratio = (double)makespan / (double)replayed;
		tessel_schedule_search_seconds(&secs, s);
		printf("%-26s %3d %4lld %8lld %8lld %8lld %7.4f %8.3f %7lld%s%s\n",
		       c->name, c->devices, (long long)c->micros,
		       (long long)replayed, (long long)makespan, (long long)lb,
		       ratio, secs, (long long)sfig(s, TESSEL_SCHED_WORK),
		       makespan > replayed ? "  worse" : "",
		       replayed != c->peer_makespan ? "  (peer's own figure differs)" : "");
		if (makespan < replayed)
			t->shorter++;
		else if (makespan == replayed)
			t->equal++;
		else
			t->longer++;
		if (ratio > t->worst) {
			t->worst = ratio;
			snprintf(t->worst_case, sizeof t->worst_case, "%s", c->name);
		}
		if (secs > t->seconds_max) {
			t->seconds_max = secs;
			snprintf(t->slowest, sizeof t->slowest, "%s", c->name);
		}
	}
	fflush(stdout);
	if (zo->write_dir) {
		/* the placement, the peer's schedule and libtessel's */
		const void *what[3] = {order->graph, peer, rc ? NULL : s};
		static const char *const suffix[3] = {"placement", "peer", "tessel"};
		for (int k = 0; k < 3; k++) {
			char *text = NULL;
			if (!what[k])
				continue;
			int jrc = k == 0 ? tessel_graph_to_json(&text, what[k])
					 : tessel_schedule_to_json(&text, what[k]);
			if (jrc || cli_write_case_json(zo->write_dir, c->name,
						       suffix[k], text)) {
				cli_error("bench: %s: the files of this case could "
					  "not all be written", c->name);
				rc = rc ? rc : TESSEL_EIO;
			}
			tessel_free(text);
		}
	}
	tessel_schedule_free(s);
	tessel_schedule_free(peer);
	tessel_options_free(o);
	pub_order_free(order);
	return rc ? 1 : 0;
}

int cli_bench_zb(const cli_zb_opts *zo, size_t *ncases, int *failed)
{
	zb_data *data = NULL;
	char why[512];
	zb_tally t;
	memset(&t, 0, sizeof t);
	*ncases = 0;
	*failed = 0;
	int rc = zb_data_read(&data, zo->data, why, sizeof why);
	if (rc) {
		cli_error("bench: %s", why);
		return CLI_EXIT_USAGE;
	}
	if (zo->write_dir && cli_make_dir(zo->write_dir)) {
		zb_data_free(data);
		return CLI_EXIT_USAGE;
	}
	print_header();
	printf("# peer: the peer's order replayed as early as possible under "
	       "libtessel's model; ratio: tessel / peer\n");
	for (size_t i = 0; i < data->ncases; i++) {
		const zb_case *c = &data->cases[i];
		if (zo->max_devices && c->devices > zo->max_devices)
			continue;
		if (zo->match && !strstr(c->name, zo->match))
			continue;
		*failed += run_case(c, zo, &t);
		(*ncases)++;
	}
	printf("# libtessel against the peer: %d shorter, %d equal, %d longer; "
	       "largest ratio %.4f (%s); slowest search %.3f s (%s)\n",
	       t.shorter, t.equal, t.longer, t.worst, t.worst_case, t.seconds_max,
	       t.slowest);
	zb_data_free(data);
	return CLI_EXIT_OK;
}
