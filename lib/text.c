/* The text grid of a schedule and its key figures.
 *
 *   dev 0: f0 f1 | f2 b0-b0-b0 f3 ... | b3-b3-b3
 *
 * One row per device, one cell of width w per step (w: the longest label,
 * a kind letter and a micro-batch number, at least 2). A block of span k
 * fills k cells joined by '-'; idle steps read "--". A '|' stands at the
 * two edges of the repetend. Long schedules show only their first and last
 * steps, with "..." between. */
#include <stdio.h>

#include "error.h"
#include "graph.h"
#include "schedule.h"
#include "util.h"

#define TEXT_ELIDE_ABOVE 400 /* makespans above this are shortened */
#define TEXT_HEAD_STEPS 200
#define TEXT_TAIL_STEPS 100

typedef struct text_grid {
	const tessel_schedule *s;
	int64_t makespan;
	int64_t head_end;   /* steps [0, head_end) are shown ... */
	int64_t tail_begin; /* ... and steps [tail_begin, makespan) */
	size_t ncells;
	int width;          /* cell width */
	int devwidth;       /* digits of the largest device id */
	int64_t bar[2];     /* repetend edges (between step p - 1 and p) */
	int nbars;
	const struct tessel_entry **cells; /* owner of each shown cell */
} text_grid;

static int digits(int64_t v)
{
	int n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static size_t cell_of(const text_grid *gr, int64_t t)
{
	if (t < gr->head_end)
		return (size_t)t;
	return (size_t)(gr->head_end + (t - gr->tail_begin));
}

static int64_t step_of(const text_grid *gr, size_t c)
{
	if ((int64_t)c < gr->head_end)
		return (int64_t)c;
	return gr->tail_begin + ((int64_t)c - gr->head_end);
}

static int has_bar(const text_grid *gr, int64_t p)
{
	for (int i = 0; i < gr->nbars; i++)
		if (gr->bar[i] == p)
			return 1;
	return 0;
}

static int grid_init(text_grid *gr, const tessel_schedule *s)
{
	gr->s = s;
	gr->makespan = tsl_schedule_makespan(s);
	gr->head_end = gr->makespan;
	gr->tail_begin = gr->makespan;
	if (gr->makespan > TEXT_ELIDE_ABOVE) {
		gr->head_end = TEXT_HEAD_STEPS;
		gr->tail_begin = gr->makespan - TEXT_TAIL_STEPS;
	}
	gr->ncells = (size_t)(gr->head_end
			      + (gr->makespan - gr->tail_begin));
	gr->width = 1 + digits(s->nmicros > 0 ? s->nmicros - 1 : 0);
	if (gr->width < 2)
		gr->width = 2;
	gr->devwidth = digits(s->graph->ndevices - 1);
	gr->nbars = 0;
	if (s->rep_end > s->rep_begin && s->rep_begin >= 0) {
		gr->bar[gr->nbars++] = s->rep_begin;
		gr->bar[gr->nbars++] = s->rep_end;
	}
	gr->cells = tsl_calloc(gr->ncells, sizeof *gr->cells);
	if (!gr->cells)
		return tsl_error_nomem();
	return TSL_OK;
}

/* Give each shown cell of device d to the first entry (in start order)
 * covering it. Every shown cell is visited once. */
static int grid_fill(text_grid *gr, int d)
{
	for (size_t c = 0; c < gr->ncells; c++)
		gr->cells[c] = NULL;
	tessel_iter *it = NULL;
	int rc = tessel_iter_new(&it, gr->s, d);
	if (rc)
		return rc;
	const tessel_entry *e;
	int64_t filled = 0;
	while (tessel_iter_next(&e, it) == TESSEL_OK) {
		int64_t end = e->start + e->sched->graph->blocks[e->gid].span;
		int64_t t = e->start > filled ? e->start : filled;
		for (; t < end; t++) {
			if (t >= gr->head_end && t < gr->tail_begin) {
				t = gr->tail_begin - 1;
				continue;
			}
			gr->cells[cell_of(gr, t)] = e;
		}
		if (end > filled)
			filled = end;
	}
	tessel_iter_free(it);
	return TSL_OK;
}

static char kind_letter(int kind)
{
	switch (kind) {
	case TESSEL_KIND_FORWARD: return 'f';
	case TESSEL_KIND_BACKWARD: return 'b';
	case TESSEL_KIND_WEIGHT: return 'w';
	default: return '?';
	}
}

static int is_gap(const text_grid *gr, size_t c)
{
	return (int64_t)c == gr->head_end && gr->tail_begin > gr->head_end;
}

/* What stands between cell c - 1 and cell c (c >= 1). */
static void put_separator(tsl_buf *b, const text_grid *gr, size_t c)
{
	if (is_gap(gr, c)) {
		tsl_buf_puts(b, has_bar(gr, gr->head_end) ? " | ..." : " ...");
		tsl_buf_puts(b, has_bar(gr, gr->tail_begin) ? " | " : " ");
		return;
	}
	int bar = has_bar(gr, step_of(gr, c));
	int same = gr->cells[c] && gr->cells[c] == gr->cells[c - 1];
	if (same)
		tsl_buf_puts(b, bar ? "-|-" : "-");
	else
		tsl_buf_puts(b, bar ? " | " : " ");
}

static void put_cell(tsl_buf *b, const text_grid *gr, size_t c)
{
	char label[32];
	const struct tessel_entry *e = gr->cells[c];
	int len;
	char pad = ' ';
	if (!e) {
		len = snprintf(label, sizeof label, "--");
	} else {
		int kind = e->sched->graph->blocks[e->gid].kind;
		len = snprintf(label, sizeof label, "%c%lld", kind_letter(kind),
			       (long long)e->mid);
		if (c + 1 < gr->ncells && gr->cells[c + 1] == e
		    && !is_gap(gr, c + 1))
			pad = '-';
	}
	tsl_buf_puts(b, label);
	for (int i = len; i < gr->width; i++)
		tsl_buf_append(b, &pad, 1);
}

static void trim_spaces(tsl_buf *b, size_t from)
{
	if (b->failed)
		return;
	while (b->len > from && b->data[b->len - 1] == ' ')
		b->len--;
	if (b->data)
		b->data[b->len] = '\0';
}

static int put_row(tsl_buf *b, text_grid *gr, int d)
{
	int rc = grid_fill(gr, d);
	if (rc)
		return rc;
	size_t row = b->len;
	tsl_buf_printf(b, "dev %*d:", gr->devwidth, d);
	if (gr->ncells > 0) {
		tsl_buf_puts(b, has_bar(gr, 0) ? " | " : " ");
		for (size_t c = 0; c < gr->ncells; c++) {
			if (c > 0)
				put_separator(b, gr, c);
			put_cell(b, gr, c);
		}
		if (has_bar(gr, gr->makespan))
			tsl_buf_puts(b, " |");
	}
	trim_spaces(b, row);
	tsl_buf_puts(b, "\n");
	return TSL_OK;
}

static int put_grid(tsl_buf *b, const tessel_schedule *s)
{
	text_grid gr;
	int rc = grid_init(&gr, s);
	for (int d = 0; d < s->graph->ndevices && !rc; d++)
		rc = put_row(b, &gr, d);
	tsl_free(gr.cells);
	return rc;
}

static int put_peaks(tsl_buf *b, const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	int64_t *peaks = tsl_calloc((size_t)g->ndevices, sizeof *peaks);
	if (!peaks)
		return tsl_error_nomem();
	int rc = tsl_schedule_peaks(peaks, s);
	if (rc) {
		tsl_free(peaks);
		return rc;
	}
	tsl_buf_puts(b, "peak memory:");
	for (int d = 0; d < g->ndevices; d++) {
		tsl_buf_printf(b, "%s d%d %lld/", d ? "," : "", d,
			       (long long)peaks[d]);
		if (g->memory_limit[d] == TESSEL_UNLIMITED)
			tsl_buf_puts(b, "inf");
		else
			tsl_buf_printf(b, "%lld", (long long)g->memory_limit[d]);
	}
	tsl_buf_puts(b, "\n");
	tsl_free(peaks);
	return TSL_OK;
}

int tsl_put_key_figures(tsl_buf *b, const tessel_schedule *s, const char *sep)
{
	int64_t rb, lb;
	int rc = tessel_schedule_get(&rb, s, TESSEL_SCHED_RESOURCE_BOUND);
	if (!rc)
		rc = tessel_schedule_get(&lb, s, TESSEL_SCHED_LOWER_BOUND);
	if (rc)
		return rc;
	const char *opt = s->period_optimal ? "optimal" : "not proven optimal";
	if (s->period > 0)
		tsl_buf_printf(b, "period %lld (resource bound %lld, %s)%s",
			       (long long)s->period, (long long)rb, opt, sep);
	else
		tsl_buf_printf(b, "period unknown (resource bound %lld, %s)%s",
			       (long long)rb, opt, sep);
	int64_t m = tsl_schedule_makespan(s);
	double eff = m > 0 ? (double)lb / (double)m : 0.0;
	tsl_buf_printf(b, "makespan %lld (lower bound %lld, efficiency %.2f%s)",
		       (long long)m, (long long)lb, eff,
		       s->makespan_optimal ? ", optimal" : "");
	return TSL_OK;
}

static int put_figures(tsl_buf *b, const tessel_schedule *s)
{
	int rc = tsl_put_key_figures(b, s, "\n");
	if (rc)
		return rc;
	tsl_buf_puts(b, "\n");
	rc = put_peaks(b, s);
	if (rc)
		return rc;
	tsl_buf_printf(b, "search time %.3f s\n", (double)s->search_us / 1e6);
	return TSL_OK;
}

TESSEL_API int tessel_schedule_to_text(char **out,
				       const tessel_schedule *schedule)
{
	if (!out)
		return tsl_error(TESSEL_EINVAL,
				 "tessel_schedule_to_text: out is NULL");
	*out = NULL;
	if (!schedule)
		return tsl_error(TESSEL_EINVAL,
				 "tessel_schedule_to_text: schedule is NULL");
	tsl_buf b;
	tsl_buf_init(&b);
	int rc = put_grid(&b, schedule);
	if (!rc)
		rc = put_figures(&b, schedule);
	return tsl_buf_finish(out, &b, rc);
}
