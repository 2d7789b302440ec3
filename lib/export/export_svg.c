/* Stage: export. The schedule as an SVG picture.
 *
 *   period 6 (resource bound 6, optimal); makespan 40 (lower bound 38, ...)
 *   4 devices, 16 micro-batches, 8 blocks per micro-batch; one step 0.5 ms
 *   [] forward [] backward [] weight [] repetend [0|1|2|3] micro-batch mod 4
 *   numbers: micro-batch, where they fit; a tooltip on every block ...
 *   device 0 |[0][1]   [0  ][2]...
 *   device 1 |   [0][0  ][1]...
 *            0        5        10 ...
 *            time in ms
 *
 * One row per device (20 px), one rectangle per entry and device it
 * occupies (x the start, width the entry's real span, at least 1 px;
 * coloured by kind, a darker stroke), shaded by micro-batch: four
 * lightnesses of the kind's
 * colour in turn, so that neighbouring micro-batches differ. Each block
 * has a tooltip (name, micro-batch, first and last step and, when the
 * placement has a step and a unit, its start and end in that unit); the
 * repetend is a light grey band behind the blocks. A dependency with a
 * latency (where it counts) is a thin arrow from the producer's finish on
 * its first device to the arrival, latency steps later, on the first
 * consumer device it travels to.
 *
 * Memory-time alternatives: a block that recomputes a forward of its
 * micro-batch has a dashed outline and says so in its tooltip; when the
 * schedule offloads activations, each row has a thin lane under its
 * blocks (7 px more) for its device's copy channel, an offload a light
 * and a reload a dark purple bar, each with its tooltip. A second row of
 * keys in the legend explains them.
 *
 * Width: at most 24 px per step, and never wider than SVG_MAX_WIDTH
 * (1600 px) in all, so that the picture drawn 1600 px wide is never
 * scaled down; long schedules get less than a pixel per step. At least
 * 640 px, more (up to 1600) when the title lines need it. The axis is in
 * the placement's unit when it has a step and a unit, else in steps,
 * ticks 1, 2 or 5 times a power of ten apart.
 *
 * Labels: the micro-batch in the largest type up to 11 px that fits the
 * block, across it, or turned a quarter (reading upwards) when across
 * would be under 8 px and turned is larger; none under 8 px (the tooltip
 * has it). Beyond
 * SVG_TOOLTIPS rectangles (200,000) the picture is drawn compact: one path
 * per device, kind and shade, labels in groups of one size, no tooltip per
 * block, and the legend says so (copies: a path per device and kind of
 * copy); 64 devices x 128 micro-batches (16,384 rectangles) keep their
 * tooltips in about 2.1 MB.
 * Contract: every entry and every copy is drawn at its real steps on each
 * device it concerns; a schedule without alternatives is drawn as it
 * always was. */
#include <math.h>
#include <stdio.h>

#include "error.h"
#include "export_actions.h"
#include "export_svg.h"
#include "export_text.h"
#include "graph.h"
#include "schedule.h"
#include "schedule_alt.h"
#include "util.h"

#define SVG_MAX_LABELS 200 /* labels on the axis at most */
#define SVG_MAX_WIDTH 1600.0 /* the whole picture, in px, at most */
#define SVG_MAX_CELL 24.0  /* px per step at most */
#define SVG_MIN_BLOCK 1.0  /* a rectangle is drawn at least this wide */
#define SVG_ROW 20.0       /* row height */
#define SVG_BLOCK 16.0     /* rectangle height */
#define SVG_LEFT 72.0      /* room for the device names */
#define SVG_RIGHT 16.0
#define SVG_TOP 88.0       /* title lines and legend above the rows */
#define SVG_BOTTOM 46.0    /* axis and its caption below */
#define SVG_MIN_WIDTH 640.0
#define SVG_TITLE_CHAR 8.0 /* px per character of the title (13 px bold) */
#define SVG_TEXT_CHAR 6.6  /* and of 11 px text */
#define SVG_TICK_GAP 50.0  /* px between axis labels at least */
#define SVG_TOOLTIPS 200000 /* rectangles drawn with a tooltip each, at most */
#define SVG_FONT 11.0      /* the type of the labels, at most */
#define SVG_MIN_FONT 8.0   /* and at least */
#define SVG_DIGIT_W 0.6    /* width of a digit, in font sizes */
#define SVG_DIGIT_H 0.75   /* height of a digit, in font sizes */
#define SVG_NSIZES 7       /* label sizes 8, 8.5, ..., 11 px */
#define SVG_SHADES 4       /* lightnesses, micro-batch mod SVG_SHADES */
#define SVG_KINDS 4        /* forward, backward, weight, other */
#define SVG_LANE 7.0       /* the copy lane under a row's blocks */
#define SVG_COPY 5.0       /* a copy bar's height */
#define SVG_KEYS 18.0      /* the second row of keys (alternatives) */

typedef struct svg_style {
	const char *fill;                /* the legend's */
	const char *stroke;
	const char *label;
	const char *shade[SVG_SHADES];   /* fill of micro-batch m, m mod 4:
					  * lightness -12, +4, -4, +12 % */
} svg_style;

static const svg_style styles[SVG_KINDS] = {
	[TESSEL_KIND_FORWARD] = {"#8fb8de", "#2f5f8a", "forward",
				 {"#609ad0", "#9fc2e3", "#7faed9", "#bed6ec"}},
	[TESSEL_KIND_BACKWARD] = {"#f4a582", "#a2401a", "backward",
				  {"#ef7d4a", "#f6b395", "#f2986f", "#f9ceba"}},
	[TESSEL_KIND_WEIGHT] = {"#a6d96a", "#4d7a1c", "weight",
				{"#89cd39", "#b0dd7a", "#9cd55a", "#c3e59b"}},
	[3] = {"#cccccc", "#666666", "other",
	       {"#adadad", "#d6d6d6", "#c2c2c2", "#ebebeb"}},
};
#define REPETEND_FILL "#e3e3e3"
#define TRANSFER_STROKE "#333333"
#define NOTE_FILL "#555555"
#define OFFLOAD_FILL "#9e9ac8"
#define RELOAD_FILL "#6a51a3"
#define COPY_STROKE "#3f007d"
#define RECOMPUTE_DASH "3 2"

typedef struct svg_layout {
	const tessel_schedule *s;
	int64_t makespan;
	double cell;     /* px per step */
	double width, height;
	double stroke;   /* stroke width of the blocks */
	int timed;       /* the placement has a step and a unit */
	int transfers;   /* some dependency has a latency that counts */
	int compact;     /* too many rectangles for a tooltip each */
	int64_t nblocks; /* rectangles drawn: entries x their devices, and
			  * the copies */
	int copies;      /* the schedule has copies: a copy lane per row */
	unsigned char *marks; /* entries that recompute (NULL: none) */
	double row;      /* row pitch: SVG_ROW, plus SVG_LANE with copies */
	double top;      /* the first row's top: SVG_TOP, plus SVG_KEYS with
			  * alternatives */
} svg_layout;

static int kind_of(int kind)
{
	return kind >= 0 && kind < SVG_KINDS - 1 ? kind : SVG_KINDS - 1;
}

static const char *fill_of(int kind, int64_t mid)
{
	return styles[kind_of(kind)].shade[mid % SVG_SHADES];
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
		/* XML's characters leave out U+FFFE and U+FFFF */
		if (n == 0 || (n == 3 && p[0] == 0xef && p[1] == 0xbf &&
			       (p[2] == 0xbe || p[2] == 0xbf))) {
			tsl_buf_puts(b, "?");
			p++;
			continue;
		}
		tsl_buf_append(b, (const char *)p, (size_t)n);
		p += n;
	}
}

/* Copies drawn: two per offloaded instance and device of its block. */
static int64_t count_copies(const tessel_schedule *s)
{
	size_t n = (size_t)s->graph->nblocks * (size_t)s->nmicros;
	int64_t k = 0;
	for (size_t i = 0; i < n && s->copies; i++)
		if (s->entries[i].choice == TESSEL_CHOICE_OFFLOAD)
			k += 2 * s->graph->blocks[s->entries[i].gid].ndevices;
	return k;
}

static int layout_init(svg_layout *l, const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	double plot = SVG_MAX_WIDTH - SVG_LEFT - SVG_RIGHT;
	l->s = s;
	l->makespan = tsl_schedule_makespan(s);
	l->copies = tsl_schedule_copies_end(s) > 0;
	l->marks = NULL;
	int rc = tsl_recompute_marks(&l->marks, s, -1);
	if (rc)
		return rc;
	l->row = SVG_ROW + (l->copies ? SVG_LANE : 0);
	l->top = SVG_TOP + (l->copies || l->marks ? SVG_KEYS : 0);
	l->cell = SVG_MAX_CELL;
	if (l->makespan > 0 && plot / (double)l->makespan < SVG_MAX_CELL)
		l->cell = plot / (double)l->makespan;
	l->width = SVG_LEFT + (double)l->makespan * l->cell + SVG_RIGHT;
	if (l->width > SVG_MAX_WIDTH)
		l->width = SVG_MAX_WIDTH; /* rounding */
	if (l->width < SVG_MIN_WIDTH)
		l->width = SVG_MIN_WIDTH;
	l->height = l->top + l->row * g->ndevices + SVG_BOTTOM;
	l->stroke = l->cell < 4.0 ? 0.25 : 1.0;
	/* the unit on the axis when its ticks can be computed: finite
	 * times, ticks no closer than 1e-300 units */
	l->timed = g->step > 0 && g->unit &&
		   isfinite((double)l->makespan * g->step) &&
		   g->step * SVG_TICK_GAP / SVG_MAX_CELL >= 1e-300;
	l->transfers = 0;
	l->nblocks = count_copies(s);
	for (int b = 0; b < g->nblocks; b++)
		l->nblocks += (int64_t)g->blocks[b].ndevices * s->nmicros;
	l->compact = l->nblocks > SVG_TOOLTIPS;
	for (int b = 0; b < g->nblocks && !l->transfers; b++)
		for (int j = 0; j < g->blocks[b].ndeps; j++)
			if (tsl_dep_latency(g, &g->blocks[b], j) > 0)
				l->transfers = 1;
	return TSL_OK;
}

/* Whether entry e recomputes a forward of its micro-batch. */
static int recomputes(const svg_layout *l, const struct tessel_entry *e)
{
	return l->marks && l->marks[(size_t)e->mid * (size_t)l->s->graph->nblocks
				    + (size_t)e->gid];
}

static double x_of(const svg_layout *l, int64_t step)
{
	return SVG_LEFT + (double)step * l->cell;
}

/* Width of a block of `span` steps: at least SVG_MIN_BLOCK px. */
static double w_of(const svg_layout *l, int64_t span)
{
	double w = (double)span * l->cell;
	return w < SVG_MIN_BLOCK ? SVG_MIN_BLOCK : w;
}

/* The line under the title: devices, micro-batches, blocks, the step and
 * the latency (markup escaped). */
static void put_subtitle(tsl_buf *b, const tessel_schedule *s)
{
	const tessel_graph *g = s->graph;
	tsl_buf_printf(b, "%d devices, %lld micro-batches, %d blocks per "
			  "micro-batch",
		       g->ndevices, (long long)s->nmicros, g->nblocks);
	if (g->step > 0) {
		tsl_buf_printf(b, "; one step %.15g", g->step);
		if (g->unit) {
			tsl_buf_puts(b, " ");
			put_xml_text(b, g->unit);
		}
	}
	if (g->latency > 0)
		tsl_buf_printf(b, "; latency %d step%s between devices",
			       g->latency, g->latency == 1 ? "" : "s");
}

/* The picture widened, up to SVG_MAX_WIDTH, for its title (`title` bytes,
 * 13 px bold) and subtitle (`sub`, 11 px) to fit. */
static void fit_titles(svg_layout *l, size_t title, size_t sub)
{
	double need = 16 + SVG_TITLE_CHAR * (double)title;
	if (need < 16 + SVG_TEXT_CHAR * (double)sub)
		need = 16 + SVG_TEXT_CHAR * (double)sub;
	if (need > SVG_MAX_WIDTH)
		need = SVG_MAX_WIDTH;
	if (l->width < need)
		l->width = ceil(need);
}

/* The opening tag (the width fitted to the titles), the document title,
 * the background and the two title lines. */
static int put_header(tsl_buf *b, svg_layout *l)
{
	tsl_buf fig, sub; /* NUL-terminated once written to */
	tsl_buf_init(&fig);
	tsl_buf_init(&sub);
	int rc = tsl_put_key_figures(&fig, l->s, "; ");
	put_subtitle(&sub, l->s);
	if (!rc && (fig.failed || sub.failed || !fig.data || !sub.data))
		rc = tsl_error_nomem();
	if (rc) {
		tsl_buf_release(&fig);
		tsl_buf_release(&sub);
		return rc;
	}
	fit_titles(l, fig.len, sub.len);
	tsl_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
			  "width=\"%.0f\" height=\"%.0f\" "
			  "viewBox=\"0 0 %.0f %.0f\" "
			  "font-family=\"sans-serif\" font-size=\"11\">\n",
		       l->width, l->height, l->width, l->height);
	/* the figures (escaped: they name the unit), as the document title
	 * and as the first line */
	tsl_buf_puts(b, "<title>");
	put_xml_text(b, fig.data);
	tsl_buf_puts(b, "</title>\n");
	tsl_buf_printf(b, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
			  "fill=\"#ffffff\"/>\n", l->width, l->height);
	tsl_buf_puts(b, "<text x=\"8\" y=\"18\" font-size=\"13\" "
			"font-weight=\"bold\">");
	put_xml_text(b, fig.data);
	tsl_buf_puts(b, "</text>\n<text x=\"8\" y=\"36\">");
	tsl_buf_puts(b, sub.data);
	tsl_buf_puts(b, "</text>\n");
	tsl_buf_release(&fig);
	tsl_buf_release(&sub);
	return b->failed ? tsl_error_nomem() : TSL_OK;
}

/* A legend entry at x: a 12 px square and its text; returns the next x. */
static double put_key(tsl_buf *b, double x, double y, const char *fill,
		      const char *stroke, const char *text)
{
	tsl_buf_printf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" "
			  "height=\"12\" fill=\"%s\" stroke=\"%s\"/>"
			  "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
		       x, y, fill, stroke, x + 16, y + 10, text);
	return x + 90;
}

/* The shades: micro-batch 0 .. 3 of a forward block, numbered. */
static void put_shades(tsl_buf *b, double x, double y)
{
	const svg_style *st = &styles[TESSEL_KIND_FORWARD];
	tsl_buf_puts(b, "<g class=\"shades\">");
	for (int k = 0; k < SVG_SHADES; k++)
		tsl_buf_printf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" "
				  "height=\"12\" fill=\"%s\" stroke=\"%s\"/>"
				  "<text x=\"%.0f\" y=\"%.0f\" font-size=\"9\" "
				  "text-anchor=\"middle\">%d</text>",
			       x + 14 * k, y, st->shade[k], st->stroke,
			       x + 14 * k + 7, y + 9.5, k);
	tsl_buf_printf(b, "<text x=\"%.0f\" y=\"%.0f\">micro-batch mod %d"
			  "</text></g>\n", x + 14 * SVG_SHADES + 4, y + 10,
		       SVG_SHADES);
}

/* The keys of the alternatives, a row of their own at y: the copies'
 * bars and the outline of a block that recomputes. */
static void put_alternative_keys(tsl_buf *b, const svg_layout *l, double y)
{
	double x = 8;
	if (l->copies) {
		x = put_key(b, x, y, OFFLOAD_FILL, COPY_STROKE, "offload");
		x = put_key(b, x, y, RELOAD_FILL, COPY_STROKE, "reload");
	}
	if (l->marks)
		tsl_buf_printf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" "
				  "height=\"12\" fill=\"%s\" stroke=\"%s\" "
				  "stroke-dasharray=\"%s\"/><text x=\"%.0f\" "
				  "y=\"%.0f\">recomputes its forward (dashed)</text>\n",
			       x, y, styles[TESSEL_KIND_BACKWARD].fill,
			       styles[TESSEL_KIND_BACKWARD].stroke,
			       RECOMPUTE_DASH, x + 16, y + 10);
	if (l->copies)
		tsl_buf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" fill=\"%s\">"
				  "copies: the lane under each device</text>\n",
			       l->marks ? x + 230 : x, y + 10, NOTE_FILL);
}

static void put_legend(tsl_buf *b, const svg_layout *l)
{
	const tessel_schedule *s = l->s;
	double x = 8, y = 46;
	tsl_buf_puts(b, "<g class=\"legend\">\n");
	for (int k = 0; k < SVG_KINDS - 1; k++)
		x = put_key(b, x, y, styles[k].fill, styles[k].stroke,
			    styles[k].label);
	if (s->rep_end > s->rep_begin && s->rep_begin >= 0)
		x = put_key(b, x, y, REPETEND_FILL, "#999999", "repetend");
	if (l->transfers) {
		tsl_buf_printf(b, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" "
				  "y2=\"%.0f\" stroke=\"%s\" stroke-width=\"1\" "
				  "marker-end=\"url(#arrow)\"/>"
				  "<text x=\"%.0f\" y=\"%.0f\">transfer</text>\n",
			       x, y + 6, x + 12, y + 6, TRANSFER_STROKE, x + 16,
			       y + 10);
		x += 90;
	}
	put_shades(b, x, y);
	put_alternative_keys(b, l, y + SVG_KEYS);
	tsl_buf_printf(b, "<text x=\"8\" y=\"%.0f\" fill=\"%s\">numbers: "
			  "micro-batch, where they fit; ", l->top - 14, NOTE_FILL);
	if (!l->compact) {
		tsl_buf_printf(b, "a tooltip on every block (name, micro-batch, "
				  "steps%s", l->timed ? ", time in " : "");
		if (l->timed)
			put_xml_text(b, s->graph->unit);
		tsl_buf_puts(b, ")");
	} else {
		tsl_buf_printf(b, "%lld blocks, more than %d: no tooltip per "
				  "block (the text or JSON output has every one)",
			       (long long)l->nblocks, SVG_TOOLTIPS);
	}
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
				int64_t fin = ae->start + tsl_entry_span(s, ae);
				double y1 = l->top + l->row * A->devices[0]
					    + SVG_ROW / 2;
				double y2 = l->top + l->row * to + SVG_ROW / 2;
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

/* ", 0.2 to 0.26 ms": steps [from, to) in the placement's unit, when the
 * picture is timed. */
static void put_times(tsl_buf *b, const svg_layout *l, int64_t from,
		      int64_t to)
{
	const tessel_graph *g = l->s->graph;
	if (!l->timed)
		return;
	tsl_buf_printf(b, ", %.15g to %.15g ", (double)from * g->step,
		       (double)to * g->step);
	put_xml_text(b, g->unit);
}

static void put_repetend(tsl_buf *b, const svg_layout *l)
{
	const tessel_schedule *s = l->s;
	if (!(s->rep_end > s->rep_begin && s->rep_begin >= 0))
		return;
	/* the band within the schedule (a file read back may give a
	 * repetend beyond its entries: the title says it as given) */
	int64_t end = tsl_schedule_makespan(s);
	int64_t from = s->rep_begin < end ? s->rep_begin : end;
	int64_t to = s->rep_end < end ? s->rep_end : end;
	double top = l->top - 4;
	double h = l->row * s->graph->ndevices + 8;
	tsl_buf_printf(b, "<rect class=\"repetend\" x=\"%.2f\" y=\"%.0f\" "
			  "width=\"%.2f\" height=\"%.0f\" fill=\"%s\">"
			  "<title>repetend: steps %lld to %lld",
		       x_of(l, from), top,
		       w_of(l, to - from), h,
		       REPETEND_FILL, (long long)s->rep_begin,
		       (long long)s->rep_end - 1);
	put_times(b, l, s->rep_begin, s->rep_end);
	tsl_buf_puts(b, "</title></rect>\n");
}

/* An axis value v with `decimals` decimals; in exponent form when that
 * would be long. */
static void put_tick_value(tsl_buf *b, double v, int decimals)
{
	if (v == 0)
		tsl_buf_puts(b, "0");
	else if (decimals <= 9 && fabs(v) < 1e15)
		tsl_buf_printf(b, "%.*f", decimals, v);
	else
		tsl_buf_printf(b, "%.6g", v);
}

/* Distance of the axis labels in units (`per` units a step): 1, 2 or 5
 * times a power of ten, at least SVG_TICK_GAP px and at most
 * SVG_MAX_LABELS in all (however long the schedule); *decimals: the
 * decimals a label needs. */
static double tick_every(const svg_layout *l, double per, int *decimals)
{
	double total = (double)l->makespan * per;
	double need = SVG_TICK_GAP * per / l->cell;
	if (total / SVG_MAX_LABELS > need)
		need = total / SVG_MAX_LABELS;
	if (!l->timed && need < 1)
		need = 1; /* steps are whole */
	if (!(need >= 1e-300))
		need = 1e-300; /* a step of a few denormals */
	if (!(need <= 1e300))
		need = 1e300;
	int k = (int)floor(log10(need));
	double p = pow(10, k);
	double every = 10 * p;
	static const double mult[] = {1, 2, 5};
	for (int i = 0; i < 3; i++)
		if (mult[i] * p >= need * (1 - 1e-9)) {
			every = mult[i] * p;
			break;
		}
	if (every == 10 * p)
		k++;
	*decimals = k < 0 ? -k : 0;
	return every;
}

/* The axis under the rows: in the placement's unit when it has a step and
 * a unit, else in steps, and its caption. */
static void put_axis(tsl_buf *b, const svg_layout *l)
{
	const tessel_graph *g = l->s->graph;
	double per = l->timed ? g->step : 1.0; /* units per step */
	int decimals;
	double every = tick_every(l, per, &decimals);
	double total = (double)l->makespan * per;
	int64_t n = (int64_t)floor(total / every + 1e-9) + 1;
	double y = l->top + l->row * g->ndevices + 16;
	tsl_buf_printf(b, "<g class=\"axis\" fill=\"%s\" "
			  "text-anchor=\"middle\">\n", NOTE_FILL);
	for (int64_t i = 0; i < n && i <= SVG_MAX_LABELS; i++) {
		double v = (double)i * every;
		tsl_buf_printf(b, "<text x=\"%.2f\" y=\"%.0f\">",
			       SVG_LEFT + v / per * l->cell, y);
		put_tick_value(b, v, decimals);
		tsl_buf_puts(b, "</text>\n");
	}
	tsl_buf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"start\">",
		       SVG_LEFT, y + 18);
	if (l->timed) {
		tsl_buf_puts(b, "time in ");
		put_xml_text(b, g->unit);
	} else {
		tsl_buf_puts(b, "steps");
	}
	tsl_buf_puts(b, "</text>\n</g>\n");
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
	if (across < SVG_MIN_FONT && up > across) {
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
	int64_t span = tsl_entry_span(l->s, e);
	int marked = recomputes(l, e);
	double x = x_of(l, e->start);
	double w = (double)span * l->cell;
	tsl_buf_puts(b, "<rect x=\"");
	put_num(b, x);
	tsl_buf_printf(b, "\" y=\"%.0f\" width=\"", y);
	put_num(b, w_of(l, span));
	tsl_buf_printf(b, "\" height=\"%.0f\" fill=\"%s\" "
			  "stroke=\"%s\"%s%s%s><title>", SVG_BLOCK,
		       fill_of(blk->kind, e->mid),
		       styles[kind_of(blk->kind)].stroke,
		       marked ? " stroke-dasharray=\"" : "",
		       marked ? RECOMPUTE_DASH : "", marked ? "\"" : "");
	put_xml_text(b, blk->name);
	tsl_buf_printf(b, " mb%lld: steps %lld to %lld", (long long)e->mid,
		       (long long)e->start, (long long)(e->start + span - 1));
	put_times(b, l, e->start, e->start + span);
	if (marked)
		tsl_buf_printf(b, "; recomputes its forward, %d step%s longer",
			       e->span_add, e->span_add == 1 ? "" : "s");
	tsl_buf_puts(b, "</title></rect>\n");
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

/* The compact row: a path per kind and shade, labels grouped by size and
 * turn. */
#define SVG_PATHS (SVG_KINDS * SVG_SHADES)
typedef struct svg_row {
	tsl_buf path[SVG_PATHS];        /* [kind * SVG_SHADES + shade] */
	tsl_buf label[2][SVG_NSIZES];   /* [turned][size] */
	tsl_buf marked;                 /* outlines of the recomputes */
} svg_row;

static void row_init(svg_row *r)
{
	tsl_buf_init(&r->marked);
	for (int i = 0; i < SVG_PATHS; i++)
		tsl_buf_init(&r->path[i]);
	for (int t = 0; t < 2; t++)
		for (int k = 0; k < SVG_NSIZES; k++)
			tsl_buf_init(&r->label[t][k]);
}

static int row_failed(const svg_row *r)
{
	if (r->marked.failed)
		return 1;
	for (int i = 0; i < SVG_PATHS; i++)
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
	tsl_buf_release(&r->marked);
	for (int i = 0; i < SVG_PATHS; i++)
		tsl_buf_release(&r->path[i]);
	for (int t = 0; t < 2; t++)
		for (int k = 0; k < SVG_NSIZES; k++)
			tsl_buf_release(&r->label[t][k]);
}

/* A closed box of a path: x, y, width w, height h. */
static void put_box(tsl_buf *p, double x, double y, double w, double h)
{
	tsl_buf_puts(p, "M");
	put_num(p, x);
	tsl_buf_printf(p, " %.0fh", y);
	put_num(p, w);
	tsl_buf_puts(p, "v");
	put_num(p, h);
	tsl_buf_puts(p, "h");
	put_num(p, -w);
	tsl_buf_puts(p, "z");
}

static void row_add(svg_row *r, const svg_layout *l,
		    const struct tessel_entry *e, double y)
{
	const tsl_block *blk = &l->s->graph->blocks[e->gid];
	int64_t span = tsl_entry_span(l->s, e);
	double x = x_of(l, e->start);
	double w = (double)span * l->cell;
	double wd = w_of(l, span);
	tsl_buf *p = &r->path[kind_of(blk->kind) * SVG_SHADES +
			      (int)(e->mid % SVG_SHADES)];
	put_box(p, x, y, wd, SVG_BLOCK);
	if (recomputes(l, e))
		put_box(&r->marked, x, y, wd, SVG_BLOCK);
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
	for (int i = 0; i < SVG_PATHS; i++) {
		if (!r->path[i].len)
			continue;
		const svg_style *st = &styles[i / SVG_SHADES];
		tsl_buf_printf(b, "<path fill=\"%s\" stroke=\"%s\" d=\"",
			       st->shade[i % SVG_SHADES], st->stroke);
		tsl_buf_append(b, r->path[i].data, r->path[i].len);
		tsl_buf_puts(b, "\"/>\n");
	}
	if (r->marked.len) {
		tsl_buf_printf(b, "<path fill=\"none\" stroke=\"%s\" "
				  "stroke-dasharray=\"%s\" d=\"",
			       styles[TESSEL_KIND_BACKWARD].stroke, RECOMPUTE_DASH);
		tsl_buf_append(b, r->marked.data, r->marked.len);
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

/* A copy's bar in the lane at y, with its tooltip. */
static void put_copy_bar(tsl_buf *b, const svg_layout *l, const tsl_copy *c,
			 double y)
{
	const char *what = c->reload ? "reload" : "offload";
	tsl_buf_puts(b, "<rect x=\"");
	put_num(b, x_of(l, c->start));
	tsl_buf_printf(b, "\" y=\"%.0f\" width=\"", y);
	put_num(b, w_of(l, c->end - c->start));
	tsl_buf_printf(b, "\" height=\"%.0f\" fill=\"%s\" stroke=\"%s\">"
			  "<title>%s ", SVG_COPY,
		       c->reload ? RELOAD_FILL : OFFLOAD_FILL, COPY_STROKE, what);
	put_xml_text(b, l->s->graph->blocks[c->gid].name);
	tsl_buf_printf(b, " mb%lld: steps %lld to %lld", (long long)c->mid,
		       (long long)c->start, (long long)(c->end - 1));
	put_times(b, l, c->start, c->end);
	tsl_buf_puts(b, "</title></rect>\n");
}

/* Device d's copy channel: a bar per copy in the lane under its row (in
 * a compact picture a path per kind of copy). */
static int put_copies(tsl_buf *b, const svg_layout *l, int d)
{
	double y = l->top + l->row * d + SVG_ROW - 1;
	tsl_copy *cp = NULL;
	size_t n = 0;
	int rc = tsl_device_copies(&cp, &n, l->s, d);
	if (rc)
		return rc;
	tsl_buf_printf(b, "<text x=\"8\" y=\"%.0f\" font-size=\"8\" "
			  "fill=\"%s\">copy</text>\n<g class=\"copies\" "
			  "id=\"copies%d\" stroke-width=\"%.2f\">\n",
		       y + SVG_COPY + 1, NOTE_FILL, d, l->stroke);
	for (size_t i = 0; i < n && !l->compact; i++)
		put_copy_bar(b, l, &cp[i], y);
	for (int r = 0; r < 2 && l->compact && n > 0; r++) {
		tsl_buf_printf(b, "<path fill=\"%s\" stroke=\"%s\" d=\"",
			       r ? RELOAD_FILL : OFFLOAD_FILL, COPY_STROKE);
		for (size_t i = 0; i < n; i++)
			if (cp[i].reload == r)
				put_box(b, x_of(l, cp[i].start), y,
					w_of(l, cp[i].end - cp[i].start),
					SVG_COPY);
		tsl_buf_puts(b, "\"/>\n");
	}
	tsl_buf_puts(b, "</g>\n");
	tsl_free(cp);
	return TSL_OK;
}

static int put_row(tsl_buf *b, const svg_layout *l, int d)
{
	double y = l->top + l->row * d;
	double top = y + (SVG_ROW - SVG_BLOCK) / 2;
	tsl_buf_printf(b, "<text x=\"8\" y=\"%.0f\">device %d</text>\n",
		       y + 13, d);
	tessel_iter *it = NULL;
	int rc = tessel_iter_new(&it, l->s, d);
	if (rc)
		return rc;
	const tessel_entry *e;
	tsl_buf_printf(b, "<g class=\"device\" id=\"device%d\" "
			  "stroke-width=\"%.2f\">\n", d, l->stroke);
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
	if (!rc && l->copies)
		rc = put_copies(b, l, d);
	return rc;
}

int tsl_write_svg(tsl_buf *b, const tessel_schedule *schedule,
		  const char *fn)
{
	TSL_CHECK_ARG(schedule, fn, "schedule");
	svg_layout l;
	int rc = layout_init(&l, schedule);
	if (!rc)
		rc = put_header(b, &l);
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
	tsl_free(l.marks);
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
