/* The text grid of a schedule and its key figures.
 *
 *   dev 0: f0 f1 | f2 b0-b0-b0 f3 ... | b3-b3-b3
 *
 * One row per device, one cell of width w per `cell` steps (w: the longest
 * label, a kind letter and a micro-batch number, at least 2). The cell is
 * the greatest common divisor of every start, span, latency and repetend
 * edge, so that every block still fills whole cells; when that makes more
 * than TEXT_ELIDE_ABOVE cells, a coarser cell (at most the shortest span,
 * so that every block keeps a cell) shows in each cell the block running
 * at the cell's first step, and a line under the grid says so. A block of
 * k cells fills k cells joined by '-'; idle cells read "--". A '|' stands
 * at the two edges of the repetend. Grids still too long show only their
 * first and last cells, with "..." between. */
#include <stdio.h>

#include "error.h"
#include "export_text.h"
#include "graph.h"
#include "schedule.h"
#include "util.h"

#define TEXT_ELIDE_ABOVE 400 /* grids of more cells are shortened */
#define TEXT_HEAD_STEPS 200
#define TEXT_TAIL_STEPS 100

typedef struct text_grid {
	const tessel_schedule *s;
	int64_t cell;       /* steps per cell */
	int coarse;         /* cells do not divide every block */
	int64_t ncols;      /* cells of the whole schedule */
	int64_t head_end;   /* cells [0, head_end) are shown ... */
	int64_t tail_begin; /* ... and cells [tail_begin, ncols) */
	size_t ncells;
	int width;          /* cell width */
	int devwidth;       /* digits of the largest device id */
	int64_t bar[2];     /* repetend edges (between cell p - 1 and p) */
	int nbars;
	const struct tessel_entry **cells; /* owner of each shown cell */
} text_grid;

static size_t cell_of(const text_grid *gr, int64_t t)
{
	if (t < gr->head_end)
		return (size_t)t;
	return (size_t)(gr->head_end + (t - gr->tail_begin));
}

static int64_t col_of(const text_grid *gr, size_t c)
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

/* First cell whose first step is at or after step t. */
static int64_t col_at(const text_grid *gr, int64_t t)
{
	return (t + gr->cell - 1) / gr->cell;
}

/* The cell: the gcd of starts, spans, latencies and repetend edges, or a
 * coarser one when that gives too many cells. */
static void choose_cell(text_grid *gr, int64_t makespan)
{
	const tessel_schedule *s = gr->s;
	const tessel_graph *g = s->graph;
	size_t n = (size_t)g->nblocks * (size_t)s->nmicros;
	int64_t c = 0, shortest = 0;

	for (size_t i = 0; i < n && c != 1; i++)
		if (s->entries[i].start >= 0)
			c = tsl_gcd64(c, s->entries[i].start);
	for (int b = 0; b < g->nblocks; b++) {
		const tsl_block *B = &g->blocks[b];
		c = tsl_gcd64(c, B->span);
		if (shortest == 0 || B->span < shortest)
			shortest = B->span;
		for (int j = 0; j < B->ndeps; j++)
			c = tsl_gcd64(c, tsl_dep_latency(g, B, j));
	}
	if (s->rep_end > s->rep_begin && s->rep_begin >= 0)
		c = tsl_gcd64(tsl_gcd64(c, s->rep_begin), s->rep_end);
	if (c < 1)
		c = 1;
	gr->cell = c;
	gr->coarse = 0;
	if (makespan / c <= TEXT_ELIDE_ABOVE)
		return;
	/* just enough for the cap, in multiples of c, but no longer than
	 * the shortest span */
	int64_t want = (makespan + TEXT_ELIDE_ABOVE - 1) / TEXT_ELIDE_ABOVE;
	want = (want + c - 1) / c * c;
	int64_t most = shortest / c * c;
	if (want > most)
		want = most;
	if (want > c) {
		gr->cell = want;
		gr->coarse = 1;
	}
}

static int grid_init(text_grid *gr, const tessel_schedule *s)
{
	int64_t makespan = tsl_schedule_makespan(s);

	gr->s = s;
	choose_cell(gr, makespan);
	gr->ncols = col_at(gr, makespan);
	gr->head_end = gr->ncols;
	gr->tail_begin = gr->ncols;
	if (gr->ncols > TEXT_ELIDE_ABOVE) {
		gr->head_end = TEXT_HEAD_STEPS;
		gr->tail_begin = gr->ncols - TEXT_TAIL_STEPS;
	}
	gr->ncells = (size_t)(gr->head_end + (gr->ncols - gr->tail_begin));
	gr->width = 1 + tsl_digits(s->nmicros > 0 ? s->nmicros - 1 : 0);
	if (gr->width < 2)
		gr->width = 2;
	gr->devwidth = tsl_digits(s->graph->ndevices - 1);
	gr->nbars = 0;
	if (s->rep_end > s->rep_begin && s->rep_begin >= 0) {
		gr->bar[gr->nbars++] = col_at(gr, s->rep_begin);
		gr->bar[gr->nbars++] = col_at(gr, s->rep_end);
	}
	gr->cells = tsl_calloc(gr->ncells ? gr->ncells : 1, sizeof *gr->cells);
	if (!gr->cells)
		return tsl_error_nomem();
	return TSL_OK;
}

/* Give each shown cell of device d to the first entry (in start order)
 * running at the cell's first step. Every shown cell is visited once. */
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
		int64_t last = col_at(gr, e->start
				      + e->sched->graph->blocks[e->gid].span);
		int64_t t = col_at(gr, e->start);
		if (t < filled)
			t = filled;
		for (; t < last; t++) {
			if (t >= gr->head_end && t < gr->tail_begin) {
				t = gr->tail_begin - 1;
				continue;
			}
			gr->cells[cell_of(gr, t)] = e;
		}
		if (last > filled)
			filled = last;
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
	int bar = has_bar(gr, col_of(gr, c));
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
		if (has_bar(gr, gr->ncols))
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
	for (int d = 0; d < s->graph->ndevices && !rc && !b->failed; d++) {
		rc = put_row(b, &gr, d);
		tsl_buf_flush_point(b);
	}
	if (!rc && gr.coarse)
		tsl_buf_printf(b, "one cell = %lld steps (coarse: a cell shows the "
			       "block running at its first step)\n",
			       (long long)gr.cell);
	else if (!rc && gr.cell > 1)
		tsl_buf_printf(b, "one cell = %lld steps\n", (long long)gr.cell);
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

/* `pre`, then a time of the placement's unit ("0.02 ms", or "0.02" when
 * it names none). */
static void put_time(tsl_buf *b, const tessel_graph *g, double t,
		     const char *pre)
{
	tsl_buf_printf(b, "%s%.6g", pre, t);
	if (g->unit)
		tsl_buf_printf(b, " %s", g->unit);
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
	if (s->period > 0 && s->rep_k > 1)
		tsl_buf_printf(b, "period %lld for %lld micro-batches (%.2f per "
			       "micro-batch; resource bound %lld, %s)%s",
			       (long long)s->period, (long long)s->rep_k,
			       (double)s->period / (double)s->rep_k, (long long)rb,
			       opt, sep);
	else if (s->period > 0)
		tsl_buf_printf(b, "period %lld (resource bound %lld, %s)%s",
			       (long long)s->period, (long long)rb, opt, sep);
	else
		tsl_buf_printf(b, "period unknown (resource bound %lld, %s)%s",
			       (long long)rb, opt, sep);
	int64_t m = tsl_schedule_makespan(s);
	double eff = m > 0 ? (double)lb / (double)m : 0.0;
	tsl_buf_printf(b, "makespan %lld", (long long)m);
	if (s->graph->step > 0)
		put_time(b, s->graph, (double)m * s->graph->step, " = ");
	tsl_buf_printf(b, " (lower bound %lld, efficiency %.2f%s)",
		       (long long)lb, eff,
		       s->makespan_optimal ? ", optimal" : "");
	return TSL_OK;
}

/* "step 0.02 ms" when the placement has a step. */
static void put_step(tsl_buf *b, const tessel_graph *g)
{
	if (g->step <= 0)
		return;
	tsl_buf_puts(b, "step");
	put_time(b, g, g->step, " ");
	tsl_buf_puts(b, " (durations rounded up to whole steps)\n");
}

/* The latencies when any is non-zero: the graph's, and how many
 * dependencies have their own (with their range in steps). */
static void put_latency(tsl_buf *b, const tessel_graph *g)
{
	int64_t own = 0, lo = 0, hi = 0;

	for (int i = 0; i < g->nblocks; i++) {
		const tsl_block *B = &g->blocks[i];
		for (int j = 0; j < B->ndeps; j++) {
			if (B->deplat[j] < 0)
				continue;
			if (own == 0 || B->deplat[j] < lo)
				lo = B->deplat[j];
			if (own == 0 || B->deplat[j] > hi)
				hi = B->deplat[j];
			own++;
		}
	}
	if (g->latency == 0 && hi == 0)
		return;
	if (g->latency > 0) {
		tsl_buf_printf(b, "latency %d step%s", g->latency,
			       g->latency == 1 ? "" : "s");
		if (g->step > 0) {
			put_time(b, g, g->latency_time >= 0 ? g->latency_time
					: g->latency * g->step, " (");
			tsl_buf_puts(b, ")");
		}
		tsl_buf_puts(b, " between devices");
		if (own)
			tsl_buf_puts(b, "; ");
	} else {
		tsl_buf_puts(b, "latency: ");
	}
	if (own == 1)
		tsl_buf_printf(b, "1 dependency with its own (%lld steps)",
			       (long long)lo);
	else if (own > 1)
		tsl_buf_printf(b, "%lld dependencies with their own (%lld .. %lld steps)",
			       (long long)own, (long long)lo, (long long)hi);
	tsl_buf_puts(b, "\n");
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
	put_step(b, s->graph);
	put_latency(b, s->graph);
	if (s->work > 0 && s->proof_work > 0)
		tsl_buf_printf(b, "search time %.3f s, work %lld units (%lld of them "
			       "on the period proof)\n", (double)s->search_us / 1e6,
			       (long long)s->work, (long long)s->proof_work);
	else if (s->work > 0)
		tsl_buf_printf(b, "search time %.3f s, work %lld units\n",
			       (double)s->search_us / 1e6, (long long)s->work);
	else
		tsl_buf_printf(b, "search time %.3f s\n", (double)s->search_us / 1e6);
	return TSL_OK;
}

int tsl_write_text(tsl_buf *b, const tessel_schedule *schedule,
		   const char *fn)
{
	TSL_CHECK_ARG(schedule, fn, "schedule");
	int rc = put_grid(b, schedule);
	if (!rc)
		rc = put_figures(b, schedule);
	return rc;
}

TESSEL_API int tessel_schedule_to_text(char **out,
				       const tessel_schedule *schedule)
{
	TSL_CHECK_ARG(out, "tessel_schedule_to_text", "out");
	*out = NULL;
	tsl_buf b;
	tsl_buf_init(&b);
	int rc = tsl_write_text(&b, schedule, "tessel_schedule_to_text");
	return tsl_buf_finish(out, &b, rc);
}
