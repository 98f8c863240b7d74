/* The roofline chart, on its own and in the report: see roofline_view.h. */
#include "report/roofline_view.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart.h"
#include "report/views.h"
#include "util/fileio.h"
#include "util/strutil.h"
#include "util/term.h"

#define ROOF_H 360			/* the chart's height, pixels */
#define PLOT_B (ROOF_H - CHART_B)	/* the x axis, pixels */
#define LABEL_MAX 28			/* code points of a point's label */

/* The standalone file's colours (the page's are variables of its CSS). */
static const char roof_svg_css[] =
"svg{font:11px system-ui,sans-serif}text{fill:#1b1f24}.tick{fill:#5c6670}"
".grid{stroke:#e3e6ea;fill:none}.axis{stroke:#5c6670;fill:none}"
".roof{stroke:#2563c9;stroke-width:1.5;fill:none}.roof-low{stroke:#2563c9;"
"stroke-width:1;stroke-dasharray:4 3;fill:none}.roof-mem{stroke:#a05a00;"
"stroke-width:1.5;fill:none}.rlabel{font-size:10px}.rpt circle{fill:"
"#c62828}.rpt:hover circle{stroke:#1b1f24}\n";

/* The range of the axes: every ridge point with room either side, the
 * lowest compute ceiling, every point. */
static void roof_axes(struct chart *c, const struct roof_chart *rc)
{
	const struct roof_model *m = rc->model;
	double peak = roof_peak(m), bwmax = 0, bwmin = INFINITY;
	double xlo, xhi, ylo, yhi = peak;

	for (int l = 0; l < ROOF_NLEVELS; l++) {
		if (!m->mem[l])
			continue;
		bwmax = fmax(bwmax, m->mem[l]->value);
		bwmin = fmin(bwmin, m->mem[l]->value);
	}
	xlo = peak / bwmax / 8;
	xhi = peak / bwmin * 8;
	ylo = fmin(bwmin * xlo, m->compute[m->ncompute - 1]->value / 4);
	for (size_t i = 0; i < rc->n; i++) {
		xlo = fmin(xlo, rc->pts[i].ai);
		xhi = fmax(xhi, rc->pts[i].ai);
		ylo = fmin(ylo, rc->pts[i].flops);
		yhi = fmax(yhi, rc->pts[i].flops);
	}
	c->xunit = c->yunit = "count";
	c->h = ROOF_H;
	axis_init(&c->x, xlo, xhi, true, CHART_L, CHART_W - CHART_R);
	axis_init(&c->y, ylo, yhi, true, PLOT_B, CHART_T);
}

static void move_to(FILE *fp, char cmd, double x, double y)
{
	fputc(cmd, fp);
	svg_num(fp, x);
	fputc(' ', fp);
	svg_num(fp, y);
}

/* A ceiling's label "A B RATE" (escaped), and the end of its element. */
static void label_end(FILE *fp, const char *a, const char *b,
		      const char *rate)
{
	fputs_xml(a, fp);
	fputc(' ', fp);
	fputs_xml(b, fp);
	fputc(' ', fp);
	fputs_xml(rate, fp);
	fputs("</text>\n", fp);
}

/* A memory level's diagonal, from the left edge (or the bottom) up to
 * its ridge point, its name and bandwidth along it. */
static void roof_diagonal(struct chart *c, const struct roof_ceiling *mc,
			  double peak)
{
	FILE *fp = c->fp;
	double bw = mc->value, x0 = c->x.lo, x1 = fmin(peak / bw, c->x.hi);
	double px0, py0, px1, py1, xm, angle;
	char text[64];

	if (bw * x0 < c->y.lo)
		x0 = c->y.lo / bw;
	if (x0 >= x1)
		return;
	px0 = axis_map(&c->x, x0);
	py0 = axis_map(&c->y, bw * x0);
	px1 = axis_map(&c->x, x1);
	py1 = axis_map(&c->y, bw * x1);
	fputs("<path class=\"roof-mem\" data-level=\"", fp);
	fputs_xml(mc->level, fp);
	fputs("\" d=\"", fp);
	move_to(fp, 'M', px0, py0);
	move_to(fp, 'L', px1, py1);
	fputs("\"/>\n", fp);
	xm = sqrt(x0 * x1);
	angle = atan2(py1 - py0, px1 - px0) * 180 / M_PI;
	roof_rate_text(bw, "B/s", text, sizeof(text));
	fputs("<text class=\"rlabel\" text-anchor=\"middle\" transform=\""
	      "translate(", fp);
	svg_num(fp, axis_map(&c->x, xm));
	fputc(' ', fp);
	svg_num(fp, axis_map(&c->y, bw * xm));
	fputs(") rotate(", fp);
	svg_num(fp, angle);
	fputs(")\" y=\"-4\">", fp);
	label_end(fp, mc->level, mc->pattern, text);
}

/* A compute ceiling's horizontal, from where the fastest level's line
 * meets it to the right edge, labelled at the right. */
static void roof_horizontal(struct chart *c, const struct roof_ceiling *cc,
			    double bwmax, bool top)
{
	FILE *fp = c->fp;
	double x0 = fmax(c->x.lo, cc->value / bwmax);
	double py = axis_map(&c->y, cc->value);
	char text[64];

	fprintf(fp, "<path class=\"%s\" data-isa=\"", top ? "roof" :
		"roof-low");
	fputs_xml(cc->isa, fp);
	fputs("\" d=\"", fp);
	move_to(fp, 'M', axis_map(&c->x, x0), py);
	fputs("H", fp);
	svg_num(fp, axis_map(&c->x, c->x.hi));
	fputs("\"/>\n<text class=\"rlabel\" text-anchor=\"end\" x=\"", fp);
	svg_num(fp, CHART_W - CHART_R - 2);
	fputs("\" y=\"", fp);
	svg_num(fp, py - 3);
	fputs("\">", fp);
	roof_rate_text(cc->value, "FLOP/s", text, sizeof(text));
	label_end(fp, cc->precision, cc->isa, text);
}

/* s cut to LABEL_MAX code points (an ellipsis after), escaped. A byte
 * that is not UTF-8 counts as one (fputs_xml writes '?' for it). */
static void label_xml(FILE *fp, const char *s)
{
	size_t i = 0, k = 0;
	uint32_t cp;

	while (s[i] && k < LABEL_MAX) {
		size_t len = utf8_decode(s + i, &cp);

		i += len ? len : 1;
		k++;
	}
	if (!s[i]) {
		fputs_xml(s, fp);
		return;
	}
	char *cut = xcalloc(i + 1, 1);

	memcpy(cut, s, i);
	fputs_xml(cut, fp);
	fputs("…", fp);
	free(cut);
}

static void roof_point(struct chart *c, const struct roof_chart_point *p)
{
	FILE *fp = c->fp;
	double px = axis_map(&c->x, p->ai), py = axis_map(&c->y, p->flops);
	bool left = px > CHART_W - 170;
	char rate[64], ai[48];

	roof_rate_text(p->flops, "FLOP/s", rate, sizeof(rate));
	snprintf(ai, sizeof(ai), "%.3g FLOP/B", p->ai);
	fputs("<g class=\"rpt\" tabindex=\"0\" data-name=\"", fp);
	fputs_xml(p->name, fp);
	fputc('"', fp);
	html_num_attr(fp, "data-flops", p->flops);
	html_num_attr(fp, "data-ai", p->ai);
	fputs("><title>", fp);
	fputs_xml(p->name, fp);
	fputs("&#10;", fp);
	fputs_xml(rate, fp);
	fputs(" at ", fp);
	fputs_xml(ai, fp);
	if (p->verdict) {
		fputs("&#10;", fp);
		fputs_xml(p->verdict, fp);
	}
	if (p->from) {
		fputs("&#10;", fp);
		fputs_xml(p->from, fp);
	}
	fputs("</title>", fp);
	fputs("<circle cx=\"", fp);
	svg_num(fp, px);
	fputs("\" cy=\"", fp);
	svg_num(fp, py);
	fputs("\" r=\"4\"/><text class=\"rlabel\" x=\"", fp);
	svg_num(fp, left ? px - 6 : px + 6);
	fputs("\" y=\"", fp);
	svg_num(fp, py + 4);
	fprintf(fp, "\" text-anchor=\"%s\">", left ? "end" : "start");
	label_xml(fp, p->name);
	fputs("</text></g>\n", fp);
}

/* Everything inside the svg element, once the frame is open. */
static void roof_body(struct chart *c, const struct roof_chart *rc)
{
	const struct roof_model *m = rc->model;
	double peak = roof_peak(m), bwmax = 0;

	chart_axes(c, true, "arithmetic intensity (FLOP/B)", "performance (FLOP/s)");
	for (int l = 0; l < ROOF_NLEVELS; l++)
		if (m->mem[l]) {
			bwmax = fmax(bwmax, m->mem[l]->value);
			roof_diagonal(c, m->mem[l], peak);
		}
	for (size_t k = 0; k < m->ncompute; k++)
		roof_horizontal(c, m->compute[k], bwmax, k == 0);
	for (size_t i = 0; i < rc->n; i++)
		roof_point(c, &rc->pts[i]);
}

static char *chart_title(const struct roof_chart *rc)
{
	return xasprintf("roofline: ceilings of %s", rc->ceilings_label);
}

void view_roofline(FILE *fp, const struct roof_chart *rc)
{
	struct chart c = { 0 };
	char *title = chart_title(rc);

	fputs("<section class=\"roofline\" id=\"roofline\"><h2>roofline</h2>"
	      "\n", fp);
	roof_axes(&c, rc);
	chart_open(&c, fp, "roofline", title);
	roof_body(&c, rc);
	chart_close(&c, "attained FLOP/s against arithmetic intensity, log "
		    "axes; the lines are this machine's ceilings (dashed: "
		    "the lower instruction sets); hover a point for its "
		    "numbers");
	fputs("</section>\n", fp);
	free(title);
}

int roof_chart_write_svg(const struct roof_chart *rc, const char *path,
			 struct error *e)
{
	struct atomic_file af;
	struct chart c = { 0 };
	char *title = chart_title(rc);

	if (atomic_open(&af, path, e)) {
		free(title);
		return -1;
	}
	c.fp = af.fp;
	roof_axes(&c, rc);
	fprintf(c.fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "
		"xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
		"width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
		CHART_W, ROOF_H, CHART_W, ROOF_H);
	fputs_xml(title, c.fp);
	fputs("\"><title>", c.fp);
	fputs_xml(title, c.fp);
	fprintf(c.fp, "</title><style>%s</style>\n<rect width=\"%d\" height="
		"\"%d\" fill=\"#fff\"/>\n", roof_svg_css, CHART_W, ROOF_H);
	roof_body(&c, rc);
	fputs("</svg>\n", c.fp);
	free(title);
	if (ferror(c.fp))
		return atomic_fail(&af, e);
	return atomic_commit(&af, e);
}
