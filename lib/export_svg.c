/* The schedule as an SVG picture.
 *
 *   period 6 (resource bound 6, optimal); makespan 40 (lower bound 38, ...)
 *   [] forward [] backward [] weight [] repetend
 *   device 0 |[0][1]   [0  ][2]...
 *   device 1 |   [0][0  ][1]...
 *            0        10        20 ...
 *
 * One row per device, one rectangle per entry and device it occupies (x the
 * start step, width the span, coloured by kind, darker stroke), labelled
 * with the micro-batch when wide enough, with the block name and steps as a
 * tooltip; the repetend is a light grey band behind the blocks. A
 * dependency with a latency (where it counts) is a thin arrow from the
 * producer's finish on its first device to the arrival, latency steps
 * later, on the first consumer device it travels to. The step width
 * shrinks with the makespan (24 px down to 1 px) so that long schedules
 * stay a few thousand pixels wide, but stays at 8 px, room for a label,
 * while the grid is no wider than 8000 px (1000 steps).
 *
 * Labels: the micro-batch in the largest type up to 11 px that fits the
 * block, across it, or turned a quarter (reading upwards) when that gives
 * larger type, down to 5 px; none below. Beyond SVG_TOOLTIPS blocks the
 * picture is drawn compact: one path per device and kind, labels in
 * groups of one size, no tooltip per block; 64 devices x 128 micro-batches
 * stay under 1 MB. */
#include <stdio.h>

#include "error.h"
#include "export_svg.h"
#include "export_text.h"
#include "graph.h"
#include "schedule.h"
#include "util.h"

#define SVG_MAX_LABELS 200 /* step labels on the axis at most */
#define SVG_WIDE 2400.0    /* target width of the grid, in px */
#define SVG_MAX_CELL 24.0
#define SVG_MIN_CELL 1.0
#define SVG_ROW 20.0       /* row height */
#define SVG_BLOCK 16.0     /* rectangle height */
#define SVG_LEFT 72.0      /* room for the device names */
#define SVG_RIGHT 16.0
#define SVG_TOP 76.0       /* title lines and legend above the rows */
#define SVG_BOTTOM 30.0    /* step axis below */
#define SVG_MIN_WIDTH 640.0
#define SVG_LABEL_CELL 8.0 /* px per step that leaves room for a label ... */
#define SVG_LABEL_GRID 8000.0 /* ... while the grid stays this wide */
#define SVG_TOOLTIPS 2500  /* blocks drawn with a tooltip each, at most */
#define SVG_FONT 11.0      /* the type of the labels, at most */
#define SVG_MIN_FONT 5.0   /* and at least */
#define SVG_DIGIT_W 0.6    /* width of a digit, in font sizes */
#define SVG_DIGIT_H 0.75   /* height of a digit, in font sizes */
#define SVG_NSIZES 13      /* label sizes 5, 5.5, ..., 11 px */

typedef struct svg_style {
	const char *fill;
	const char *stroke;
	const char *label;
} svg_style;

static const svg_style styles[] = {
	[TESSEL_KIND_FORWARD] = {"#8fb8de", "#2f5f8a", "forward"},
	[TESSEL_KIND_BACKWARD] = {"#f4a582", "#a2401a", "backward"},
	[TESSEL_KIND_WEIGHT] = {"#a6d96a", "#4d7a1c", "weight"},
};
static const svg_style other_style = {"#cccccc", "#666666", "other"};
#define REPETEND_FILL "#e3e3e3"
#define TRANSFER_STROKE "#333333"

typedef struct svg_layout {
	const tessel_schedule *s;
	int64_t makespan;
	double cell;     /* px per step */
	double width, height;
	double stroke;   /* stroke width of the blocks */
	int transfers;   /* some dependency has a latency that counts */
	int compact;     /* too many blocks for a tooltip each */
	int64_t nblocks; /* rectangles drawn: entries x their devices */
} svg_layout;

static const svg_style *style_of(int kind)
{
	if (kind >= 0 && kind < (int)(sizeof styles / sizeof styles[0]))
		return &styles[kind];
	return &other_style;
}

/* s as XML character data or attribute text: markup characters as
 * entities, characters XML forbids (control characters, bad UTF-8) as '?'. */
static void put_xml_text(tsl_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		switch (*p) {
		case '&': tsl_buf_puts(b, "&amp;"); p++; continue;
		case '<': tsl_buf_puts(b, "&lt;"); p++; continue;
		case '>': tsl_buf_puts(b, "&gt;"); p++; continue;
		case '"': tsl_buf_puts(b, "&quot;"); p++; continue;
		case '\'': tsl_buf_puts(b, "&apos;"); p++; continue;
		default: break;
		}
		if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') {
			tsl_buf_puts(b, "?");
			p++;
			continue;
		}
		int n = tsl_utf8_len(p);
		if (n == 0) {
			tsl_buf_puts(b, "?");
			p++;
			continue;
		}
		tsl_buf_append(b, (const char *)p, (size_t)n);
		p += n;
	}
}

static void layout_init(svg_layout *l, const tessel_schedule *s)
{
	l->s = s;
	l->makespan = tsl_schedule_makespan(s);
	l->cell = SVG_MAX_CELL;
	if (l->makespan > 0) {
		l->cell = SVG_WIDE / (double)l->makespan;
		if (l->cell > SVG_MAX_CELL)
			l->cell = SVG_MAX_CELL;
		if (l->cell < SVG_MIN_CELL)
			l->cell = SVG_MIN_CELL;
		if (l->cell < SVG_LABEL_CELL &&
		    (double)l->makespan * SVG_LABEL_CELL <= SVG_LABEL_GRID)
			l->cell = SVG_LABEL_CELL;
	}
	l->width = SVG_LEFT + (double)l->makespan * l->cell + SVG_RIGHT;
	if (l->width < SVG_MIN_WIDTH)
		l->width = SVG_MIN_WIDTH;
	l->height = SVG_TOP + SVG_ROW * s->graph->ndevices + SVG_BOTTOM;
	l->stroke = l->cell < 4.0 ? 0.25 : 1.0;
	l->transfers = 0;
	const tessel_graph *g = s->graph;
	l->nblocks = 0;
	for (int b = 0; b < g->nblocks; b++)
		l->nblocks += (int64_t)g->blocks[b].ndevices * s->nmicros;
	l->compact = l->nblocks > SVG_TOOLTIPS;
	for (int b = 0; b < g->nblocks && !l->transfers; b++)
		for (int j = 0; j < g->blocks[b].ndeps; j++)
			if (tsl_dep_latency(g, &g->blocks[b], j) > 0)
				l->transfers = 1;
}

static double x_of(const svg_layout *l, int64_t step)
{
	return SVG_LEFT + (double)step * l->cell;
}


static int put_header(tsl_buf *b, const svg_layout *l)
{
	const tessel_schedule *s = l->s;
	tsl_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
			  "width=\"%.0f\" height=\"%.0f\" "
			  "viewBox=\"0 0 %.0f %.0f\" "
			  "font-family=\"sans-serif\" font-size=\"11\">\n",
		       l->width, l->height, l->width, l->height);
	/* the figures (ASCII, nothing to escape), as the document title and
	 * as the first line */
	tsl_buf fig;
	tsl_buf_init(&fig);
	int rc = tsl_put_key_figures(&fig, s, "; ");
	if (rc) {
		tsl_buf_release(&fig);
		return rc;
	}
	char *figures = tsl_buf_take(&fig);
	if (!figures)
		return tsl_error_nomem();
	tsl_buf_puts(b, "<title>");
	put_xml_text(b, figures);
	tsl_buf_puts(b, "</title>\n");
	tsl_buf_printf(b, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
			  "fill=\"#ffffff\"/>\n", l->width, l->height);
	tsl_buf_puts(b, "<text x=\"8\" y=\"18\" font-size=\"13\" "
			"font-weight=\"bold\">");
	put_xml_text(b, figures);
	tsl_buf_puts(b, "</text>\n");
	tsl_free(figures);
	const tessel_graph *g = s->graph;
	tsl_buf_printf(b, "<text x=\"8\" y=\"36\">%d devices, %lld micro-batches, "
			  "%d blocks per micro-batch",
		       g->ndevices, (long long)s->nmicros, g->nblocks);
	if (g->step > 0) {
		tsl_buf_printf(b, "; one step %.6g", g->step);
		if (g->unit) {
			tsl_buf_puts(b, " ");
			put_xml_text(b, g->unit);
		}
	}
	if (g->latency > 0)
		tsl_buf_printf(b, "; latency %d step%s between devices",
			       g->latency, g->latency == 1 ? "" : "s");
	tsl_buf_puts(b, "</text>\n");
	return b->failed ? tsl_error_nomem() : TSL_OK;
}

static void put_legend(tsl_buf *b, const svg_layout *l)
{
	double x = 8, y = 46;
	tsl_buf_puts(b, "<g class=\"legend\">\n");
	for (size_t k = 0; k < sizeof styles / sizeof styles[0]; k++) {
		tsl_buf_printf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" "
				  "height=\"12\" fill=\"%s\" stroke=\"%s\"/>"
				  "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
			       x, y, styles[k].fill, styles[k].stroke, x + 16,
			       y + 10, styles[k].label);
		x += 90;
	}
	tsl_buf_printf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" "
			  "height=\"12\" fill=\"%s\" stroke=\"#999999\"/>"
			  "<text x=\"%.0f\" y=\"%.0f\">repetend</text>\n",
		       x, y, REPETEND_FILL, x + 16, y + 10);
	if (l->transfers) {
		x += 90;
		tsl_buf_printf(b, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" "
				  "y2=\"%.0f\" stroke=\"%s\" stroke-width=\"1\" "
				  "marker-end=\"url(#arrow)\"/>"
				  "<text x=\"%.0f\" y=\"%.0f\">transfer</text>\n",
			       x, y + 6, x + 12, y + 6, TRANSFER_STROKE, x + 16,
			       y + 10);
	}
	x += 90;
	tsl_buf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#555555\">"
			  "numbers: micro-batch, where they fit", x, y + 10);
	if (l->compact)
		tsl_buf_printf(b, "; %lld blocks, no tooltips (the text or "
				  "JSON output has every one)",
			       (long long)l->nblocks);
	tsl_buf_puts(b, "</text>\n</g>\n");
}

/* The arrow head of the transfers. */
static void put_defs(tsl_buf *b, const svg_layout *l)
{
	if (!l->transfers)
		return;
	tsl_buf_printf(b, "<defs><marker id=\"arrow\" viewBox=\"0 0 6 6\" "
			  "refX=\"6\" refY=\"3\" markerWidth=\"5\" "
			  "markerHeight=\"5\" orient=\"auto\">"
			  "<path d=\"M0,0 L6,3 L0,6 z\" fill=\"%s\"/>"
			  "</marker></defs>\n", TRANSFER_STROKE);
}

/* Whether device d is one of block b's. */
static int on_device(const tsl_block *b, int d)
{
	for (int i = 0; i < b->ndevices; i++)
		if (b->devices[i] == d)
			return 1;
	return 0;
}

/* One arrow per dependency and micro-batch whose latency counts: from the
 * producer's finish on its first device to the arrival on the first
 * device of the consumer that the producer does not occupy. */
static void put_transfers(tsl_buf *b, const svg_layout *l)
{
	const tessel_schedule *s = l->s;
	const tessel_graph *g = s->graph;

	if (!l->transfers)
		return;
	tsl_buf_printf(b, "<g class=\"transfers\" stroke=\"%s\" "
			  "stroke-width=\"0.75\" fill=\"none\">\n",
		       TRANSFER_STROKE);
	for (int64_t m = 0; m < s->nmicros && !b->failed; m++) {
		for (int c = 0; c < g->nblocks; c++) {
			const tsl_block *C = &g->blocks[c];
			const struct tessel_entry *ce = tsl_entry_at(s, c, m);
			for (int j = 0; j < C->ndeps; j++) {
				int lat = tsl_dep_latency(g, C, j);
				const tsl_block *A = &g->blocks[C->deps[j]];
				const struct tessel_entry *ae =
					tsl_entry_at(s, C->deps[j], m);
				if (lat <= 0 || ae->start < 0 || ce->start < 0)
					continue;
				int to = C->devices[0];
				for (int k = 0; k < C->ndevices; k++)
					if (!on_device(A, C->devices[k])) {
						to = C->devices[k];
						break;
					}
				int64_t fin = ae->start + A->span;
				double y1 = SVG_TOP + SVG_ROW * A->devices[0]
					    + SVG_ROW / 2;
				double y2 = SVG_TOP + SVG_ROW * to + SVG_ROW / 2;
				tsl_buf_printf(b, "<line x1=\"%.2f\" y1=\"%.1f\" "
						  "x2=\"%.2f\" y2=\"%.1f\" "
						  "marker-end=\"url(#arrow)\"><title>",
					       x_of(l, fin), y1, x_of(l, fin + lat),
					       y2);
				put_xml_text(b, A->name);
				tsl_buf_puts(b, " -&gt; ");
				put_xml_text(b, C->name);
				tsl_buf_printf(b, " mb%lld: latency %d step%s, "
						  "steps %lld to %lld</title></line>\n",
					       (long long)m, lat, lat == 1 ? "" : "s",
					       (long long)fin,
					       (long long)(fin + lat));
			}
		}
	}
	tsl_buf_puts(b, "</g>\n");
}

static void put_repetend(tsl_buf *b, const svg_layout *l)
{
	const tessel_schedule *s = l->s;
	if (!(s->rep_end > s->rep_begin && s->rep_begin >= 0))
		return;
	double top = SVG_TOP - 4;
	double h = SVG_ROW * s->graph->ndevices + 8;
	tsl_buf_printf(b, "<rect class=\"repetend\" x=\"%.2f\" y=\"%.0f\" "
			  "width=\"%.2f\" height=\"%.0f\" fill=\"%s\">"
			  "<title>repetend: steps %lld to %lld</title></rect>\n",
		       x_of(l, s->rep_begin), top,
		       (double)(s->rep_end - s->rep_begin) * l->cell, h,
		       REPETEND_FILL, (long long)s->rep_begin,
		       (long long)s->rep_end - 1);
}

/* Step numbers under the rows, at least 50 px apart. */
static void put_axis(tsl_buf *b, const svg_layout *l)
{
	/* labels 1, 2 or 5 times a power of ten apart, at least 50 pixels
	 * and at most SVG_MAX_LABELS in all (however long the schedule) */
	static const int64_t mult[] = {1, 2, 5};
	int64_t every = 1;
	for (int64_t scale = 1; every * l->cell < 50.0 ||
				l->makespan / every > SVG_MAX_LABELS; scale *= 10) {
		for (int i = 0; i < 3; i++) {
			every = mult[i] * scale;
			if (every * l->cell >= 50.0 &&
			    l->makespan / every <= SVG_MAX_LABELS)
				break;
		}
	}
	double y = SVG_TOP + SVG_ROW * l->s->graph->ndevices + 16;
	tsl_buf_puts(b, "<g class=\"axis\" fill=\"#555555\" "
			"text-anchor=\"middle\">\n");
	for (int64_t t = 0; t <= l->makespan; t += every)
		tsl_buf_printf(b, "<text x=\"%.2f\" y=\"%.0f\">%lld</text>\n",
			       x_of(l, t), y, (long long)t);
	tsl_buf_puts(b, "</g>\n");
}

/* v with one decimal at most ("8", "12.5"). */
static void put_num(tsl_buf *b, double v)
{
	char tmp[48];
	int n = snprintf(tmp, sizeof tmp, "%.1f", v);
	if (n >= 2 && n < (int)sizeof tmp && tmp[n - 2] == '.' && tmp[n - 1] == '0')
		tmp[n - 2] = '\0';
	tsl_buf_puts(b, tmp);
}

/* Font size of the label of a block `w` px wide with `ndigits` digits,
 * in half pixels from SVG_MIN_FONT (the bucket, 0 .. SVG_NSIZES-1), or
 * -1 when none fits; *turned: 1 when it reads upwards. */
static int label_size(double w, int ndigits, int *turned)
{
	double across = (w - 2) / (SVG_DIGIT_W * ndigits);
	double along = (SVG_BLOCK - 2) / (SVG_DIGIT_W * ndigits);
	double thick = (w - 1) / SVG_DIGIT_H;
	double up = along < thick ? along : thick;
	double f;

	if (across > SVG_FONT)
		across = SVG_FONT;
	if (up > SVG_FONT)
		up = SVG_FONT;
	*turned = 0;
	f = across;
	if (across < 8.0 && up > across) {
		*turned = 1;
		f = up;
	}
	if (f < SVG_MIN_FONT)
		return -1;
	int k = (int)((f - SVG_MIN_FONT) * 2);
	return k >= SVG_NSIZES ? SVG_NSIZES - 1 : k;
}

static double size_of(int k)
{
	return SVG_MIN_FONT + 0.5 * k;
}

static void put_block(tsl_buf *b, const svg_layout *l,
		      const struct tessel_entry *e, double y)
{
	const tsl_block *blk = &l->s->graph->blocks[e->gid];
	const svg_style *st = style_of(blk->kind);
	double x = x_of(l, e->start);
	double w = (double)blk->span * l->cell;
	tsl_buf_printf(b, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" "
			  "height=\"%.0f\" fill=\"%s\" stroke=\"%s\" "
			  "stroke-width=\"%.2f\"><title>",
		       x, y, w, SVG_BLOCK, st->fill, st->stroke, l->stroke);
	put_xml_text(b, blk->name);
	tsl_buf_printf(b, " mb%lld: steps %lld to %lld</title></rect>\n",
		       (long long)e->mid, (long long)e->start,
		       (long long)(e->start + blk->span - 1));
	int turned;
	int k = label_size(w, tsl_digits(e->mid), &turned);
	if (k < 0)
		return;
	double f = size_of(k);
	double cx = x + w / 2, cy = y + SVG_BLOCK / 2;
	if (!turned)
		tsl_buf_printf(b, "<text x=\"%.2f\" y=\"%.1f\" font-size=\"%.1f\" "
				  "text-anchor=\"middle\">%lld</text>\n",
			       cx, cy + 0.36 * f, f, (long long)e->mid);
	else
		tsl_buf_printf(b, "<text transform=\"rotate(-90)\" x=\"%.1f\" "
				  "y=\"%.2f\" font-size=\"%.1f\" "
				  "text-anchor=\"middle\">%lld</text>\n",
			       -cy, cx + 0.36 * f, f, (long long)(e->mid));
}

/* The compact row: a path per kind, labels grouped by size and turn. */
typedef struct svg_row {
	tsl_buf path[4];                /* forward, backward, weight, other */
	tsl_buf label[2][SVG_NSIZES];   /* [turned][size] */
} svg_row;

static void row_init(svg_row *r)
{
	for (int i = 0; i < 4; i++)
		tsl_buf_init(&r->path[i]);
	for (int t = 0; t < 2; t++)
		for (int k = 0; k < SVG_NSIZES; k++)
			tsl_buf_init(&r->label[t][k]);
}

static int row_failed(const svg_row *r)
{
	for (int i = 0; i < 4; i++)
		if (r->path[i].failed)
			return 1;
	for (int t = 0; t < 2; t++)
		for (int k = 0; k < SVG_NSIZES; k++)
			if (r->label[t][k].failed)
				return 1;
	return 0;
}

static void row_release(svg_row *r)
{
	for (int i = 0; i < 4; i++)
		tsl_buf_release(&r->path[i]);
	for (int t = 0; t < 2; t++)
		for (int k = 0; k < SVG_NSIZES; k++)
			tsl_buf_release(&r->label[t][k]);
}

static void row_add(svg_row *r, const svg_layout *l,
		    const struct tessel_entry *e, double y)
{
	const tsl_block *blk = &l->s->graph->blocks[e->gid];
	int kind = blk->kind >= 0 && blk->kind < 3 ? blk->kind : 3;
	double x = x_of(l, e->start);
	double w = (double)blk->span * l->cell;
	tsl_buf *p = &r->path[kind];
	tsl_buf_puts(p, "M");
	put_num(p, x);
	tsl_buf_printf(p, " %.0fh", y);
	put_num(p, w);
	tsl_buf_printf(p, "v%.0fh", SVG_BLOCK);
	put_num(p, -w);
	tsl_buf_puts(p, "z");
	int turned;
	int k = label_size(w, tsl_digits(e->mid), &turned);
	if (k < 0)
		return;
	/* horizontal: x in a group moved to the baseline; turned: y (the
	 * distance to the right) in a group turned and moved */
	tsl_buf *t = &r->label[turned][k];
	tsl_buf_puts(t, turned ? "<text y=\"" : "<text x=\"");
	put_num(t, turned ? x + w / 2 + 0.36 * size_of(k) : x + w / 2);
	tsl_buf_printf(t, "\">%lld</text>", (long long)e->mid);
}

static void row_put(tsl_buf *b, svg_row *r, double y)
{
	for (int i = 0; i < 4; i++) {
		if (!r->path[i].len)
			continue;
		const svg_style *st = i < 3 ? &styles[i] : &other_style;
		tsl_buf_printf(b, "<path fill=\"%s\" stroke=\"%s\" "
				  "stroke-width=\"0.25\" d=\"", st->fill, st->stroke);
		tsl_buf_append(b, r->path[i].data, r->path[i].len);
		tsl_buf_puts(b, "\"/>\n");
	}
	double cy = y + SVG_BLOCK / 2;
	for (int t = 0; t < 2; t++)
		for (int k = 0; k < SVG_NSIZES; k++) {
			tsl_buf *lb = &r->label[t][k];
			if (!lb->len)
				continue;
			double f = size_of(k);
			if (t)
				tsl_buf_printf(b, "<g transform=\"rotate(-90) "
						  "translate(%.1f 0)\"", -cy);
			else
				tsl_buf_printf(b, "<g transform=\"translate(0 %.1f)\"",
					       cy + 0.36 * f);
			tsl_buf_printf(b, " font-size=\"%.1f\" "
					  "text-anchor=\"middle\">", f);
			tsl_buf_append(b, lb->data, lb->len);
			tsl_buf_puts(b, "</g>\n");
		}
}

static int put_row(tsl_buf *b, const svg_layout *l, int d)
{
	double y = SVG_TOP + SVG_ROW * d;
	double top = y + (SVG_ROW - SVG_BLOCK) / 2;
	tsl_buf_printf(b, "<text x=\"8\" y=\"%.0f\">device %d</text>\n",
		       y + 13, d);
	tessel_iter *it = NULL;
	int rc = tessel_iter_new(&it, l->s, d);
	if (rc)
		return rc;
	const tessel_entry *e;
	tsl_buf_printf(b, "<g class=\"device\" id=\"device%d\">\n", d);
	if (!l->compact) {
		while (tessel_iter_next(&e, it) == TESSEL_OK)
			put_block(b, l, e, top);
	} else {
		svg_row r;
		row_init(&r);
		while (tessel_iter_next(&e, it) == TESSEL_OK)
			row_add(&r, l, e, top);
		if (row_failed(&r))
			rc = tsl_error_nomem();
		else
			row_put(b, &r, top);
		row_release(&r);
	}
	tsl_buf_puts(b, "</g>\n");
	tessel_iter_free(it);
	return rc;
}

int tsl_write_svg(tsl_buf *b, const tessel_schedule *schedule,
		  const char *fn)
{
	TSL_CHECK_ARG(schedule, fn, "schedule");
	svg_layout l;
	layout_init(&l, schedule);
	int rc = put_header(b, &l);
	if (!rc) {
		put_defs(b, &l);
		put_legend(b, &l);
		put_repetend(b, &l);
	}
	for (int d = 0; d < schedule->graph->ndevices && !rc && !b->failed; d++) {
		rc = put_row(b, &l, d);
		tsl_buf_flush_point(b);
	}
	if (!rc) {
		put_transfers(b, &l);
		put_axis(b, &l);
		tsl_buf_puts(b, "</svg>\n");
	}
	return rc;
}

TESSEL_API int tessel_schedule_to_svg(char **out,
				      const tessel_schedule *schedule)
{
	static const char fn[] = "tessel_schedule_to_svg";
	TSL_CHECK_ARG(out, fn, "out");
	*out = NULL;
	tsl_buf b;
	tsl_buf_init(&b);
	int rc = tsl_write_svg(&b, schedule, fn);
	return tsl_buf_finish(out, &b, rc);
}
