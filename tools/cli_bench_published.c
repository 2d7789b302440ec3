/* tessel bench --suite published: the hand-designed pipeline schedules of
 * the literature (lib/explore/published.c), each on its own placement, spans,
 * micro-batches and memory limit (the published schedule's own peak),
 * against tessel_search on the same placement and limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "published.h"
#include "tessel.h"

typedef struct pcase {
	pub_family family;
	int chunks;          /* interleaved 1F1B, else 0 */
	int f, b, w;         /* spans; w 0 without a split */
	int devices;
	int64_t micros;      /* model micro-batches */
} pcase;

/* The suite: every family on 4 and 8 devices; the spans F-B-W of the
 * zero-bubble papers (1-1-1 and 2-2-1) for the split families, B = 2F for
 * the others. */
static const pcase suite[] = {
	{PUB_1F1B, 0, 1, 2, 0, 4, 16},
	{PUB_1F1B, 0, 1, 2, 0, 8, 16},
	{PUB_1F1B, 0, 1, 2, 0, 8, 32},
	{PUB_GPIPE, 0, 1, 2, 0, 4, 16},
	{PUB_GPIPE, 0, 1, 2, 0, 8, 32},
	{PUB_ZB_H1, 0, 1, 1, 1, 4, 16},
	{PUB_ZB_H1, 0, 2, 2, 1, 4, 16},
	{PUB_ZB_H1, 0, 1, 1, 1, 8, 32},
	{PUB_ZB_H1, 0, 2, 2, 1, 8, 32},
	{PUB_ZB_H2, 0, 1, 1, 1, 4, 16},
	{PUB_ZB_H2, 0, 2, 2, 1, 4, 16},
	{PUB_ZB_H2, 0, 1, 1, 1, 8, 32},
	{PUB_ZB_H2, 0, 2, 2, 1, 8, 32},
	{PUB_ZB_V, 0, 1, 1, 1, 4, 16},
	{PUB_ZB_V, 0, 2, 2, 1, 4, 16},
	{PUB_ZB_V, 0, 1, 1, 1, 8, 32},
	{PUB_ZB_V, 0, 2, 2, 1, 8, 32},
	{PUB_V_HALF, 0, 1, 1, 1, 4, 16},
	{PUB_V_HALF, 0, 1, 1, 1, 8, 32},
	{PUB_V_HALF, 0, 2, 2, 1, 8, 32},
	{PUB_V_MIN, 0, 1, 1, 1, 4, 16},
	{PUB_V_MIN, 0, 1, 1, 1, 8, 32},
	{PUB_V_MIN, 0, 2, 2, 1, 8, 32},
	{PUB_DUALPIPE, 0, 1, 1, 1, 4, 16},
	{PUB_DUALPIPE, 0, 2, 2, 1, 4, 16},
	{PUB_DUALPIPE, 0, 1, 1, 1, 8, 32},
	{PUB_DUALPIPE, 0, 2, 2, 1, 8, 32},
	{PUB_DUALPIPE_V, 0, 1, 1, 1, 4, 16},
	{PUB_DUALPIPE_V, 0, 2, 2, 1, 4, 16},
	{PUB_DUALPIPE_V, 0, 1, 1, 1, 8, 32},
	{PUB_DUALPIPE_V, 0, 2, 2, 1, 8, 32},
	{PUB_INTERLEAVED, 2, 1, 2, 0, 4, 16},
	{PUB_INTERLEAVED, 2, 1, 2, 0, 8, 16},
	{PUB_INTERLEAVED, 2, 1, 2, 0, 8, 32},
	{PUB_INTERLEAVED, 4, 1, 2, 0, 4, 16},
	{PUB_INTERLEAVED, 4, 1, 2, 0, 8, 16},
	{PUB_CHIMERA, 0, 1, 1, 0, 4, 16},
	{PUB_CHIMERA, 0, 1, 2, 0, 4, 16},
	{PUB_CHIMERA, 0, 1, 2, 0, 8, 16},
	{PUB_CHIMERA, 0, 1, 2, 0, 8, 32},
};

#define NSUITE (sizeof suite / sizeof suite[0])

/* The spans of case c after --span-scale and --kind-spans, or -1 when one
 * is out of range. */
static int case_params(pub_params *p, const pcase *c,
		       const cli_published_opts *po)
{
	int64_t f = c->f, b = c->b, w = c->w;
	f *= po->span_scale * (po->kind_factor[0] ? po->kind_factor[0] : 1);
	b *= po->span_scale * (po->kind_factor[1] ? po->kind_factor[1] : 1);
	w *= po->span_scale * (po->kind_factor[2] ? po->kind_factor[2] : 1);
	memset(p, 0, sizeof *p);
	p->devices = c->devices;
	p->micros = c->micros;
	p->chunks = c->chunks;
	p->latency = (int)po->latency;
	if (f > TESSEL_MAX_SPAN || b > TESSEL_MAX_SPAN || w > TESSEL_MAX_SPAN)
		return -1;
	p->f = (int)f;
	p->b = (int)b;
	p->w = (int)w;
	return 0;
}

/* "zb-h1 2-2-1", "interleaved-4 1-2", "1f1b 1-2". */
static void case_name(char *buf, size_t size, const pcase *c,
		      const pub_params *p)
{
	char fam[32];
	if (c->chunks)
		snprintf(fam, sizeof fam, "%s-%d", pub_family_name(c->family),
			 c->chunks);
	else
		snprintf(fam, sizeof fam, "%s", pub_family_name(c->family));
	if (pub_family_splits(c->family))
		snprintf(buf, size, "%s %d-%d-%d", fam, p->f, p->b, p->w);
	else
		snprintf(buf, size, "%s %d-%d", fam, p->f, p->b);
}

/* File name stem of a case: the name with '-' for blanks, then -dD-nN. */
static void case_stem(char *buf, size_t size, const char *name,
		      const pcase *c)
{
	snprintf(buf, size, "%s-d%d-n%lld", name, c->devices,
		 (long long)c->micros);
	for (char *q = buf; *q; q++)
		if (*q == ' ')
			*q = '-';
}

static int64_t sfig(const tessel_schedule *s, tessel_schedule_attr a)
{
	int64_t v = 0;
	tessel_schedule_get(&v, s, a);
	return v;
}

typedef struct tally {
	int shorter, equal, longer;
	char worse[1024];    /* names of the cases where libtessel is longer */
} tally;

static void print_header(void)
{
	printf("%-20s %3s %4s %6s %9s %8s %8s %5s %8s\n", "case", "D", "N",
	       "memory", "published", "tessel", "LB", "gap", "seconds");
}

/* Run one case; prints its row. Returns 0, or 1 if it failed. */
static int run_case(const pcase *c, const cli_published_opts *po, tally *t)
{
	pub_params p;
	pub_order *order = NULL;
	tessel_schedule *pub = NULL, *s = NULL;
	tessel_options *o = NULL;
	const tessel_graph *g = NULL;
	char name[48], why[512];
	int64_t limit = 0, lb = 0;
	int rc;

	if (case_params(&p, c, po)) {
		snprintf(name, sizeof name, "%s", pub_family_name(c->family));
		printf("%-20s %3d %4lld  failed: a span is above the limit %d\n",
		       name, c->devices, (long long)c->micros, TESSEL_MAX_SPAN);
		fflush(stdout);
		return 1;
	}
	case_name(name, sizeof name, c, &p);
	rc = pub_order_build(&order, c->family, &p, why, sizeof why);
	if (!rc)
		rc = pub_order_schedule(&pub, &limit, order, why, sizeof why);
	if (rc) {
		printf("%-20s %3d %4lld  failed: published schedule: %s\n", name,
		       c->devices, (long long)c->micros, why);
		fflush(stdout);
		pub_order_free(order);
		return 1;
	}
	tessel_schedule_graph(&g, pub);
	tessel_graph_lower_bound(&lb, g, order->nmicros);
	rc = tessel_options_new(&o);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_MICRO_BATCHES, order->nmicros);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_FAST, po->fast);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_TIME_LIMIT_MS,
					po->time_limit_ms);
	if (!rc)
		rc = tessel_options_set(o, TESSEL_OPT_THREADS, po->threads);
	if (!rc && po->work_limit_given)
		rc = tessel_options_set(o, TESSEL_OPT_WORK_LIMIT, po->work_limit);
	if (!rc)
		rc = tessel_search(&s, g, o);
	if (!rc)
		rc = tessel_schedule_validate(s);
	int64_t published = sfig(pub, TESSEL_SCHED_MAKESPAN);
	if (rc) {
		printf("%-20s %3d %4lld %6lld %9lld  failed: %s\n", name,
		       c->devices, (long long)c->micros, (long long)limit,
		       (long long)published, tessel_error_last());
	} else {
		double secs = 0;
		int64_t makespan = sfig(s, TESSEL_SCHED_MAKESPAN);
		int64_t gap = makespan - published;
		tessel_schedule_search_seconds(&secs, s);
		printf("%-20s %3d %4lld %6lld %9lld %8lld %8lld %+5lld %8.3f%s\n",
		       name, c->devices, (long long)c->micros, (long long)limit,
		       (long long)published, (long long)makespan, (long long)lb,
		       (long long)gap, secs, gap > 0 ? "  worse" : "");
		if (gap < 0)
			t->shorter++;
		else if (gap == 0)
			t->equal++;
		else {
			size_t used = strlen(t->worse);
			t->longer++;
			snprintf(t->worse + used, sizeof t->worse - used, "%s%s (%d, %lld)",
				 used ? ", " : "", name, c->devices,
				 (long long)c->micros);
		}
	}
	fflush(stdout);
	if (po->write_dir) {
		char stem[96], *text = NULL;
		int wrc = 0;
		case_stem(stem, sizeof stem, name, c);
		if (tessel_graph_to_json(&text, g) == TESSEL_OK)
			wrc |= cli_write_case_json(po->write_dir, stem, "placement", text);
		else
			wrc = -1;
		tessel_free(text);
		text = NULL;
		if (tessel_schedule_to_json(&text, pub) == TESSEL_OK)
			wrc |= cli_write_case_json(po->write_dir, stem, "published", text);
		else
			wrc = -1;
		tessel_free(text);
		text = NULL;
		if (!rc) {
			if (tessel_schedule_to_json(&text, s) == TESSEL_OK)
				wrc |= cli_write_case_json(po->write_dir, stem, "tessel", text);
			else
				wrc = -1;
			tessel_free(text);
		}
		if (wrc) {
			cli_error("bench: %s: the files of this case could not "
				  "all be written", name);
			rc = rc ? rc : TESSEL_EIO;
		}
	}
	tessel_schedule_free(s);
	tessel_schedule_free(pub);
	tessel_options_free(o);
	pub_order_free(order);
	return rc ? 1 : 0;
}

int cli_bench_published(const cli_published_opts *po, size_t *ncases,
			int *failed)
{
	cli_published_opts opts = *po;
	tally t;
	int pairs = 0;

	memset(&t, 0, sizeof t);
	*ncases = 0;
	*failed = 0;
	if (opts.family) {
		pub_family f;
		if (pub_family_find(&f, opts.family)) {
			cli_error("bench: unknown family '%s' (families: gpipe, "
				  "1f1b, zb-h1, zb-h2, zb-v, v-half, v-min, "
				  "dualpipe, dualpipe-v, interleaved, chimera)",
				  opts.family);
			return CLI_EXIT_USAGE;
		}
	}
	if (opts.write_dir && cli_make_dir(opts.write_dir))
		return CLI_EXIT_USAGE;

	for (size_t i = 0; i < NSUITE; i++)
		if ((!opts.max_devices || suite[i].devices <= opts.max_devices) &&
		    (!opts.family ||
		     strcmp(opts.family, pub_family_name(suite[i].family)) == 0) &&
		    pub_family_pairs(suite[i].family))
			pairs = 1;
	print_header();
	if (pairs)
		printf("# dualpipe, chimera: a micro-batch of the placement is a "
		       "pair, one in each direction; N counts both, the search "
		       "runs N/2 pairs\n");
	for (size_t i = 0; i < NSUITE; i++) {
		const pcase *c = &suite[i];
		if (opts.max_devices && c->devices > opts.max_devices)
			continue;
		if (opts.family &&
		    strcmp(opts.family, pub_family_name(c->family)) != 0)
			continue;
		*failed += run_case(c, &opts, &t);
		(*ncases)++;
	}
	printf("# libtessel against the published schedules: %d shorter, %d "
	       "equal, %d longer%s%s\n", t.shorter, t.equal, t.longer,
	       t.longer ? ": " : "", t.worse);
	return CLI_EXIT_OK;
}
