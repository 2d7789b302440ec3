/* Stage: export. The text grid of a schedule and its key figures.
 *
 *   dev 0:      f0 f1 | f2 b0-b0-b0 f3 ... | b3-b3-b3
 *   dev 0 copy: -- -- | o0-o0 -- r0-r0 ... | -- --
 *
 * One row per device, one cell of width w per `cell` steps (w: the longest
 * label, a kind letter and a micro-batch number, at least 2). The cell is
 * the greatest common divisor of every start, span, latency and repetend
 * edge (and copy start and length), so that every block still fills whole
 * cells; when that makes more
 * than TEXT_ELIDE_ABOVE cells, a coarser cell (at most the shortest span,
 * so that every block keeps a cell) shows in each cell the block running
 * at the cell's first step, and a line under the grid says so. A block of
 * k cells fills k cells joined by '-'; idle cells read "--". A '|' stands
 * at the two edges of the repetend. Grids still too long show only their
 * first and last cells, with "..." between.
 *
 * Memory-time alternatives: a block that recomputes a forward of its
 * micro-batch has a capital letter ("B3") and fills its real span, the
 * recompute included; when the schedule offloads activations, each
 * device's row is followed by its copy channel's ("dev 0 copy:"), where
 * "o3" is an offload and "r3" a reload of micro-batch 3, and lines under
 * the grid explain both.
 * Contract: every entry and every copy occupies the cells of its real
 * steps; a schedule without alternatives prints as it always did. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "export_actions.h"
#include "export_text.h"
#include "graph.h"
#include "schedule.h"
#include "schedule_alt.h"
#include "util.h"

#define TEXT_ELIDE_ABOVE 400 /* grids of more cells are shortened */
#define TEXT_HEAD_STEPS 200
#define TEXT_TAIL_STEPS 100

/* What a cell shows: an entry's block or one of its copies, or nothing. */
typedef struct text_cell {
	const struct tessel_entry *e; /* NULL: idle */
	int copy;                     /* 0: the block, 1: offload, 2: reload */
} text_cell;

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
	int labelwidth;     /* width of the rows' names */
	int copies;         /* the schedule has copies: a copy row each */
	int64_t bar[2];     /* repetend edges (between cell p - 1 and p) */
	int nbars;
	text_cell *cells;   /* owner of each shown cell */
	unsigned char *marks; /* entries that recompute (NULL: none) */
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

/* The gcd of c and the steps of entry e that the block's span does not
 * cover: its start, its real span, its copies' starts and length. */
static int64_t entry_gcd(const tessel_schedule *s,
			 const struct tessel_entry *e, int64_t c)
{
	if (e->start < 0)
		return c;
	c = tsl_gcd64(c, e->start);
	if (e->span_add)
		c = tsl_gcd64(c, tsl_entry_span(s, e));
	if (e->choice != TESSEL_CHOICE_OFFLOAD)
		return c;
	for (int r = 0; r < 2; r++) {
		int64_t t = tsl_entry_copy_start(s, e, r);
		if (t >= 0)
			c = tsl_gcd64(tsl_gcd64(c, t),
				      s->graph->blocks[e->gid].of_transfer);
	}
	return c;
}

/* The cell: the gcd of starts, spans, latencies, copies and repetend
 * edges, or a coarser one when that gives too many cells. */
static void choose_cell(text_grid *gr, int64_t makespan)
{
	const tessel_schedule *s = gr->s;
	const tessel_graph *g = s->graph;
	size_t n = (size_t)g->nblocks * (size_t)s->nmicros;
	int64_t c = 0, shortest = 0;

	for (size_t i = 0; i < n && c != 1; i++)
		c = entry_gcd(s, &s->entries[i], c);
	for (int b = 0; b < g->nblocks; b++) {
		const tsl_block *B = &g->blocks[b];
		c = tsl_gcd64(c, B->span);
		if (shortest == 0 || B->span < shortest)
			shortest = B->span;
		if (gr->copies && B->of_backward >= 0 && B->of_transfer < shortest)
			shortest = B->of_transfer;
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
	gr->copies = tsl_schedule_copies_end(s) > 0;
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
	/* "dev D:", or with copy rows as wide as "dev D copy:" */
	gr->labelwidth = 4 + gr->devwidth + (gr->copies ? 6 : 1);
	gr->nbars = 0;
	if (s->rep_end > s->rep_begin && s->rep_begin >= 0) {
		gr->bar[gr->nbars++] = col_at(gr, s->rep_begin);
		gr->bar[gr->nbars++] = col_at(gr, s->rep_end);
	}
	gr->cells = tsl_calloc(gr->ncells ? gr->ncells : 1, sizeof *gr->cells);
	if (!gr->cells)
		return tsl_error_nomem();
	return tsl_recompute_marks(&gr->marks, s, -1);
}

/* Give the shown cells of steps [from, to) that no earlier owner took
 * (those before *filled) to `owner`. */
static void fill_span(text_grid *gr, int64_t from, int64_t to,
		      text_cell owner, int64_t *filled)
{
	int64_t last = col_at(gr, to);
	int64_t t = col_at(gr, from);
	if (t < *filled)
		t = *filled;
	for (; t < last; t++) {
		if (t >= gr->head_end && t < gr->tail_begin) {
			t = gr->tail_begin - 1;
			continue;
		}
		gr->cells[cell_of(gr, t)] = owner;
	}
	if (last > *filled)
		*filled = last;
}

static void clear_cells(text_grid *gr)
{
	for (size_t c = 0; c < gr->ncells; c++)
		gr->cells[c] = (text_cell){NULL, 0};
}

/* Give each shown cell of device d to the first entry (in start order)
 * running at the cell's first step. Every shown cell is visited once. */
static int grid_fill(text_grid *gr, int d)
{
	clear_cells(gr);
	tessel_iter *it = NULL;
	int rc = tessel_iter_new(&it, gr->s, d);
	if (rc)
		return rc;
	const tessel_entry *e;
	int64_t filled = 0;
	while (tessel_iter_next(&e, it) == TESSEL_OK)
		fill_span(gr, e->start, e->start + tsl_entry_span(gr->s, e),
			  (text_cell){e, 0}, &filled);
	tessel_iter_free(it);
	return TSL_OK;
}

/* The same for the copies of device d's copy channel. */
static int copy_fill(text_grid *gr, int d)
{
	clear_cells(gr);
	tsl_copy *cp = NULL;
	size_t n = 0;
	int rc = tsl_device_copies(&cp, &n, gr->s, d);
	if (rc)
		return rc;
	int64_t filled = 0;
	for (size_t i = 0; i < n; i++)
		fill_span(gr, cp[i].start, cp[i].end,
			  (text_cell){tsl_entry_at(gr->s, cp[i].gid, cp[i].mid),
				      1 + cp[i].reload}, &filled);
	tsl_free(cp);
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

static int same_owner(const text_cell *a, const text_cell *b)
{
	return a->e && a->e == b->e && a->copy == b->copy;
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
	if (same_owner(&gr->cells[c], &gr->cells[c - 1]))
		tsl_buf_puts(b, bar ? "-|-" : "-");
	else
		tsl_buf_puts(b, bar ? " | " : " ");
}

/* The letter of a cell's owner: the kind's (capital when the entry
 * recomputes a forward), 'o' for an offload, 'r' for a reload. */
static char owner_letter(const text_grid *gr, const text_cell *o)
{
	const tessel_schedule *s = gr->s;
	if (o->copy)
		return o->copy == 1 ? 'o' : 'r';
	char k = kind_letter(s->graph->blocks[o->e->gid].kind);
	size_t at = (size_t)o->e->mid * (size_t)s->graph->nblocks +
		    (size_t)o->e->gid;
	if (gr->marks && gr->marks[at] && k >= 'a' && k <= 'z')
		k = (char)(k - 'a' + 'A');
	return k;
}

static void put_cell(tsl_buf *b, const text_grid *gr, size_t c)
{
	char label[32];
	const text_cell *o = &gr->cells[c];
	int len;
	char pad = ' ';
	if (!o->e) {
		len = snprintf(label, sizeof label, "--");
	} else {
		len = snprintf(label, sizeof label, "%c%lld",
			       owner_letter(gr, o), (long long)o->e->mid);
		if (c + 1 < gr->ncells && same_owner(&gr->cells[c + 1], o)
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

/* Row `d` of the devices (copy: of their copy channels), its cells
 * filled. */
static void put_cells(tsl_buf *b, const text_grid *gr, int d, int copy)
{
	size_t row = b->len;
	if (copy)
		tsl_buf_printf(b, "dev %*d copy:", gr->devwidth, d);
	else
		tsl_buf_printf(b, "dev %*d:", gr->devwidth, d);
	for (size_t i = b->failed ? 0 : b->len - row;
	     i < (size_t)gr->labelwidth && !b->failed; i++)
		tsl_buf_puts(b, " ");
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
}

static int put_row(tsl_buf *b, text_grid *gr, int d)
{
	int rc = grid_fill(gr, d);
	if (rc)
		return rc;
	put_cells(b, gr, d, 0);
	if (!gr->copies)
		return TSL_OK;
	rc = copy_fill(gr, d);
	if (!rc)
		put_cells(b, gr, d, 1);
	return rc;
}

/* The lines under the grid: its cell, and what the letters of the
 * alternatives mean. */
static void put_grid_notes(tsl_buf *b, const text_grid *gr)
{
	if (gr->coarse)
		tsl_buf_printf(b, "one cell = %lld steps (coarse: a cell shows the "
			       "block running at its first step)\n",
			       (long long)gr->cell);
	else if (gr->cell > 1)
		tsl_buf_printf(b, "one cell = %lld steps\n", (long long)gr->cell);
	if (gr->marks)
		tsl_buf_puts(b, "capital letter (B3): the block recomputes a forward "
				"of its micro-batch, its cells include the recompute\n");
	if (gr->copies)
		tsl_buf_puts(b, "copy rows: o3 offloads and r3 reloads an activation "
				"of micro-batch 3 on the device's copy channel\n");
}

static int put_grid(tsl_buf *b, const tessel_schedule *s)
{
	text_grid gr;
	memset(&gr, 0, sizeof gr);
	int rc = grid_init(&gr, s);
	for (int d = 0; d < s->graph->ndevices && !rc && !b->failed; d++) {
		rc = put_row(b, &gr, d);
		tsl_buf_flush_point(b);
	}
	if (!rc)
		put_grid_notes(b, &gr);
	tsl_free(gr.cells);
	tsl_free(gr.marks);
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
	/* (a step so large that the time is beyond a double: not "inf") */
	if (!isfinite(t))
		tsl_buf_printf(b, "%smore than %.6g", pre, DBL_MAX);
	else
		tsl_buf_printf(b, "%s%.15g", pre, t);
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

/* How many activations the schedule recomputes and offloads, when any. */
static void put_choices(tsl_buf *b, const tessel_schedule *s)
{
	size_t n = (size_t)s->graph->nblocks * (size_t)s->nmicros;
	long long rc = 0, of = 0;
	for (size_t i = 0; i < n && s->nchoices > 0; i++) {
		rc += s->entries[i].choice == TESSEL_CHOICE_RECOMPUTE;
		of += s->entries[i].choice == TESSEL_CHOICE_OFFLOAD;
	}
	if (rc + of > 0)
		tsl_buf_printf(b, "activations: %lld recomputed, %lld offloaded\n",
			       rc, of);
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
	put_choices(b, s);
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
