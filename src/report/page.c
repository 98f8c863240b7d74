/*
 * The report page: the document around the views, its style and its
 * script, and the view of a result set (a summary table per benchmark,
 * then each metric's charts). See report.h for the escaping rules.
 */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/timeline.h"
#include "report/views.h"
#include "result/metrics.h"
#include "util/fileio.h"
#include "util/strutil.h"
#include "util/term.h"

/* Colours are variables so that the charts follow dark mode and print. */
static const char page_css[] =
":root{--bg:#fff;--fg:#1b1f24;--dim:#5c6670;--grid:#e3e6ea;--acc:#2563c9;"
"--dot:#2563c9;--out:#c62828;--band:rgba(37,99,201,.2);--faster:#1b7f3b;"
"--slower:#c62828;--same:#5c6670;--warn:#a05a00;color-scheme:light dark}\n"
"@media (prefers-color-scheme:dark){:root{--bg:#15181c;--fg:#e6e9ed;"
"--dim:#9aa4ae;--grid:#2b3138;--acc:#6ea2ff;--dot:#6ea2ff;--out:#ff6b6b;"
"--band:rgba(110,162,255,.2);--faster:#4cc777;--slower:#ff6b6b;"
"--same:#9aa4ae;--warn:#e0a040}}\n"
"body{background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,"
"sans-serif;margin:0 auto;max-width:1100px;padding:0 16px 40px}\n"
"h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid "
"var(--grid);padding-bottom:4px;margin-top:2em}h3{font-size:1.05em;"
"margin:1.4em 0 .4em;overflow-wrap:anywhere}\n"
"a{color:var(--acc)}a:focus,[tabindex]:focus{outline:2px solid var(--acc);"
"outline-offset:2px}\n"
".meta{color:var(--dim)}table{border-collapse:collapse;margin:.5em 0;"
"font-variant-numeric:tabular-nums}th,td{padding:3px 8px;text-align:right;white-space:nowrap;"
"border-bottom:1px solid var(--grid)}th:first-child,td:first-child"
"{text-align:left;white-space:nowrap;min-width:9em}\n"
/* a table wider than the column scrolls, and the script says so under
 * it (.scroll-cue); no word of a header or a name is broken */
"table{display:block;overflow-x:auto;max-width:100%}"
".scroll-cue{color:var(--dim);font-size:12px;margin:0 0 .5em}\n"
/* two charts a row where they fit, each as wide as its share */
".figs{display:flex;flex-wrap:wrap;gap:8px}figure{margin:4px 0}"
".figs>figure.chart{flex:1 1 440px;min-width:0}"
"figcaption{color:var(--dim);font-size:12px}\n"
"svg{max-width:100%;height:auto;font:11px system-ui,sans-serif}"
"svg text{fill:var(--fg)}.tick{fill:var(--dim)}\n"
".grid{stroke:var(--grid);fill:none}.axis{stroke:var(--dim);fill:none}"
".bar{fill:var(--band)}.dots{stroke:var(--dot);stroke-width:3;"
"stroke-linecap:round;fill:none;opacity:.55}.odots{stroke:var(--out);"
"stroke-width:4;stroke-linecap:round;fill:none}.dash{opacity:.8}.line{stroke:var(--dot);"
"fill:none;stroke-width:1.2}.line2{stroke:var(--warn);fill:none;"
"stroke-width:1.2}.med{stroke:var(--fg);stroke-dasharray:4 3}"
".band{fill:var(--band)}.fit{stroke:var(--warn);fill:none;stroke-width:1.5}"
".ref{stroke:var(--dim);stroke-dasharray:3 3}.noise{fill:var(--grid);"
"opacity:.6}.cpl{stroke:var(--out);stroke-dasharray:5 3}.cp text"
"{fill:var(--out)}\n"
".mbar{stroke:var(--fg);stroke-width:2.5}.verdict{font-size:1.15em;"
"font-weight:600;margin:.4em 0}\n"
".pt{fill:var(--dot)}.pt2{fill:var(--warn)}.wdot{fill:none;stroke:"
"var(--warn);stroke-width:1.5}.hpt{fill:var(--dot);"
"cursor:pointer}.hpt:hover,.hpt:focus{fill:var(--out)}\n"
".faster,.better{color:var(--faster);fill:var(--faster);stroke:"
"var(--faster)}.slower,.worse{color:var(--slower);fill:var(--slower);"
"stroke:var(--slower)}.unchanged,.inconclusive{color:var(--same);fill:"
"var(--same);stroke:var(--same)}\n"
".thr{stroke:var(--fg);stroke-width:2}.check.fails{color:var(--slower)}"
".warn{color:var(--warn)}output{display:block;min-height:1.4em;"
"margin:4px 0;font-variant-numeric:tabular-nums}\n"
"nav ul{columns:2;padding-left:1.2em}\n"
".roof{stroke:var(--acc);stroke-width:1.5;fill:none}.roof-low{stroke:"
"var(--acc);stroke-dasharray:4 3;fill:none}.roof-mem{stroke:var(--warn);"
"stroke-width:1.5;fill:none}.rlabel{font-size:10px}.rpt circle{fill:"
"var(--out)}.rpt:hover circle,.rpt:focus circle{stroke:var(--fg)}\n"
"section.bench{content-visibility:auto;contain-intrinsic-size:auto 900px}\n"
"@media print{body{max-width:none}nav{display:none}section,figure"
"{break-inside:avoid}a{color:inherit}section.bench{content-visibility:"
"visible}}\n";

/*
 * The one script: a click (or Enter/Space on the focused point) on a
 * history point shows its result in the chart's <output>. It reads only
 * data-* attributes and writes textContent: no outside string is ever
 * in the script nor parsed as HTML.
 */
static const char page_js[] =
"(function(){\n"
"function show(p){var o=document.getElementById(p.getAttribute("
"'data-out'));if(!o)return;var d=p.dataset;o.textContent='result '+d.id+"
"' \\u00b7 commit '+(d.commit||'-')+' \\u00b7 branch '+(d.branch||'-')+"
"' \\u00b7 '+(d.created||'-')+' \\u00b7 median '+d.label;}\n"
"document.querySelectorAll('.hpt').forEach(function(p){\n"
"p.addEventListener('click',function(){show(p);});\n"
"p.addEventListener('keydown',function(e){if(e.key==='Enter'||"
"e.key===' '){e.preventDefault();show(p);}});});\n"
"function cue(){document.querySelectorAll('table').forEach(function(t){\n"
"var c=t.nextElementSibling,has=c&&c.classList.contains('scroll-cue'),"
"o=t.scrollWidth>t.clientWidth+1;\n"
"if(o&&!has){c=document.createElement('p');c.className='scroll-cue';"
"c.textContent='\\u2192 the table scrolls sideways: more columns';"
"t.after(c);}else if(!o&&has)c.remove();});}\n"
"cue();addEventListener('resize',cue);\n"
"})();\n";

void html_num_attr(FILE *fp, const char *name, double v)
{
	char buf[32];

	fprintf(fp, " %s=\"", name);
	if (isfinite(v)) {
		/* the shortest text that reads back as v */
		fmt_roundtrip(v, buf, sizeof(buf));
		fputs(buf, fp);
	}
	fputc('"', fp);
}

void html_value(FILE *fp, double v, const char *unit)
{
	char buf[48];

	if (!isfinite(v)) {
		fputs("–", fp);
		return;
	}
	fputs_xml(fmt_value(v, unit, buf, sizeof(buf)), fp);
}

static void cell(FILE *fp, const char *cls, double v, const char *unit)
{
	fprintf(fp, "<td class=\"%s\"", cls);
	html_num_attr(fp, "data-v", v);
	fputc('>', fp);
	html_value(fp, v, unit);
	fputs("</td>", fp);
}

static void ci_cell(FILE *fp, const char *cls, const double ci[2],
		    const char *unit)
{
	fprintf(fp, "<td class=\"%s\"", cls);
	html_num_attr(fp, "data-lo", ci[0]);
	html_num_attr(fp, "data-hi", ci[1]);
	fputs(">[", fp);
	html_value(fp, ci[0], unit);
	fputs(", ", fp);
	html_value(fp, ci[1], unit);
	fputs("]</td>", fp);
}

/* A metric of one value (mem's peak, a load's error count): the value,
 * in the median's column, and nothing else (a CI of [x, x], a stddev of
 * 0 and a p99 would say nothing). */
static void single_row(FILE *fp, const struct metric *m)
{
	static const char *const rest[] = { "median-ci", "mean", "mean-ci",
		"stddev", "min", "p95", "p99", "max", "outliers" };

	cell(fp, "median", m->summary.median, m->unit);
	for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
		fprintf(fp, "<td class=\"%s\"></td>", rest[i]);
	fputs("</tr>\n", fp);
}

static void summary_row(FILE *fp, const struct metric *m)
{
	const struct summary *s = &m->summary;
	bool ok = metric_has_summary(m);
	double nan = NAN, none[2] = { NAN, NAN };

	fputs("<tr data-metric=\"", fp);
	fputs_xml(m->name, fp);
	fputs("\"><td>", fp);
	fputs_xml(m->name, fp);
	fprintf(fp, "</td><td class=\"n\">%zu</td>", ok ? s->n : 0);
	if (ok && s->n == 1) {
		single_row(fp, m);
		return;
	}
	cell(fp, "median", ok ? s->median : nan, m->unit);
	ci_cell(fp, "median-ci", ok ? s->median_ci : none, m->unit);
	cell(fp, "mean", ok ? s->mean : nan, m->unit);
	ci_cell(fp, "mean-ci", ok ? s->mean_ci : none, m->unit);
	cell(fp, "stddev", ok ? s->stddev : nan, m->unit);
	cell(fp, "min", ok ? s->min : nan, m->unit);
	cell(fp, "p95", ok ? s->p95 : nan, m->unit);
	cell(fp, "p99", ok ? s->p99 : nan, m->unit);
	cell(fp, "max", ok ? s->max : nan, m->unit);
	fprintf(fp, "<td class=\"outliers\">%zu</td></tr>\n",
		ok ? s->outliers_low + s->outliers_high : 0);
}

void html_list(FILE *fp, const char *cls, const char *what,
	       char *const *v, size_t n)
{
	if (!n)
		return;
	fprintf(fp, "<p class=\"%s\">%s: ", cls, what);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs("; ", fp);
		fputs_xml(v[i], fp);
	}
	fputs("</p>\n", fp);
}

static void bench_header(FILE *fp, const struct benchmark *b, size_t set,
			 size_t i)
{
	char *name = benchmark_display_name(b);

	fprintf(fp, "<section class=\"bench\" id=\"s%zu-b%zu\" "
		"data-name=\"", set, i);
	fputs_xml(b->name, fp);
	fputs("\"><h3>", fp);
	fputs_xml(name, fp);
	fputs("</h3>\n", fp);
	free(name);
	if (b->argc) {
		fputs("<p class=\"meta\">command: <code>", fp);
		for (size_t k = 0; k < b->argc; k++) {
			if (k)
				fputc(' ', fp);
			fputs_xml(b->command[k], fp);
		}
		fputs("</code></p>\n", fp);
	}
	html_list(fp, "warn", "warnings", b->warnings, b->nwarnings);
	html_list(fp, "warn", "not measured", b->unsupported,
		  b->nunsupported);
}

/*
 * The views of one kind of result, drawn per benchmark before its
 * metrics' charts. The hook for the kinds still to come: the zones of a
 * `trace` go here once those results are produced. (The roofline is
 * one chart of every set's benchmarks with work declared, drawn once:
 * report_input's roofline.)
 */
static const struct {
	const char *kind;
	void (*view)(FILE *fp, const struct benchmark *b);
} kind_views[] = {
	{ "load", plot_spectrum },
	{ "mem", plot_heap_timeline },
};

/* Whether m is drawn: see report_input's charts. */
static bool charted(const char *const *charts, const struct result *r,
		    const struct benchmark *b, const struct metric *m)
{
	if (charts) {
		for (; *charts; charts++)
			if (!strcmp(*charts, "all") || !strcmp(*charts, m->name))
				return true;
		return false;
	}
	/* the vocabulary's headline of b and its rates (a load's
	 * throughput and error rate, a bench's flop/s), else the first */
	(void)r;
	if (metrics_lookup(m->name, m->unit)->dim == DIM_RATE)
		return true;
	if (metrics_headline_of(b))
		return m == metrics_headline_of(b);
	return m == &b->metrics[0];
}

/* Every metric of b a row: its statistics. */
static void summary_table(FILE *fp, const struct benchmark *b)
{
	fputs("<table class=\"summary\"><thead><tr><th>metric</th><th>n</th>"
	      "<th>median</th><th>95% CI</th><th>mean</th><th>95% CI</th>"
	      "<th>stddev</th><th>min</th><th>p95</th><th>p99</th>"
	      "<th>max</th><th>outliers</th></tr></thead><tbody>\n", fp);
	for (size_t k = 0; k < b->nmetrics; k++)
		summary_row(fp, &b->metrics[k]);
	fputs("</tbody></table>\n", fp);
}

/* Whether every metric of b has one value at most (a mem result). */
static bool all_single(const struct benchmark *b)
{
	for (size_t k = 0; k < b->nmetrics; k++)
		if (metric_has_summary(&b->metrics[k]) &&
		    b->metrics[k].summary.n > 1)
			return false;
	return b->nmetrics > 0;
}

/* The benchmark's metrics of one value each: a metric and its value a
 * row, nothing else; then its kind's views (mem's timeline). */
static void single_table(FILE *fp, const struct benchmark *b)
{
	fputs("<table class=\"summary single\"><thead><tr><th>metric</th>"
	      "<th>value</th></tr></thead><tbody>\n", fp);
	for (size_t k = 0; k < b->nmetrics; k++) {
		const struct metric *m = &b->metrics[k];

		fputs("<tr data-metric=\"", fp);
		fputs_xml(m->name, fp);
		fputs("\"><td>", fp);
		fputs_xml(m->name, fp);
		fputs("</td>", fp);
		cell(fp, "median", metric_has_summary(m) ? m->summary.median :
		     NAN, m->unit);
		fputs("</tr>\n", fp);
	}
	fputs("</tbody></table>\n", fp);
}

/* Fewer values than this get no distribution chart. */
#define DIST_MIN_VALUES 10

/* A metric that is 0 in every run or second (a load without errors):
 * said in words, "no errors", instead of an empty axis. Returns whether
 * it was. */
static bool zero_throughout(FILE *fp, const struct metric *m)
{
	const struct metric_info *mi = metrics_lookup(m->name, m->unit);

	if (m->summary.min != 0 || m->summary.max != 0)
		return false;
	fputs("<p class=\"meta zero\" data-metric=\"", fp);
	fputs_xml(m->name, fp);
	fputs("\">", fp);
	if (!strcmp(m->name, METRIC_ERROR_RATE))
		fputs("no errors", fp);
	else {
		fputs_xml(mi->label ? mi->label : m->name, fp);
		fputs(": 0 throughout", fp);
	}
	fputs("</p>\n", fp);
	return true;
}

static void bench_view(FILE *fp, const struct result *r,
		       const struct benchmark *b, size_t set, size_t i,
		       const char *const *charts)
{
	bench_header(fp, b, set, i);
	if (all_single(b))
		single_table(fp, b);
	else
		summary_table(fp, b);
	fputs("<div class=\"figs\">\n", fp);
	for (size_t k = 0; k < sizeof(kind_views) / sizeof(kind_views[0]);
	     k++)
		if (r->kind && !strcmp(r->kind, kind_views[k].kind))
			kind_views[k].view(fp, b);
	for (size_t k = 0; k < b->nmetrics; k++) {
		const struct metric *m = &b->metrics[k];

		/* one value (mem, a load's error count) is in the table */
		if (!metric_has_summary(m) || m->summary.n < 2 ||
		    !charted(charts, r, b, m))
			continue;
		if (zero_throughout(fp, m))
			continue;
		/* a handful of values: their sequence shows each one, a
		 * distribution of them adds nothing */
		if (m->summary.n >= DIST_MIN_VALUES)
			plot_distribution(fp, m,
					  !strcmp(m->name, METRIC_WALL_TIME) ?
					  &b->warmup_wall_time : NULL);
		plot_sequence(fp, m);
	}
	fputs("</div></section>\n", fp);
}

static void result_meta(FILE *fp, const struct result *r)
{
	fputs("<p class=\"meta\">", fp);
	fputs_xml(r->kind ? r->kind : "imported", fp);
	fputs(" result", fp);
	if (r->created) {
		fputs(", made ", fp);
		fputs_xml(r->created, fp);
	}
	if (r->git.commit) {
		fputs(", commit <code>", fp);
		fputs_xml(r->git.commit, fp);
		fputs("</code>", fp);
		if (r->git.branch) {
			fputs(" on ", fp);
			fputs_xml(r->git.branch, fp);
		}
		if (r->git.dirty)
			fputs(" (dirty)", fp);
	}
	if (r->machine.hostname) {
		fputs(", on ", fp);
		fputs_xml(r->machine.hostname, fp);
	}
	if (r->machine.cpu) {
		fputs(" (", fp);
		fputs_xml(r->machine.cpu, fp);
		fputs(")", fp);
	}
	fputs("</p>\n", fp);
}

/* Per benchmark: the summary table and each metric's charts. */
static void view_result(FILE *fp, const struct report_set *set, size_t idx,
		 const char *const *charts)
{
	const struct result *r = set->r;

	fprintf(fp, "<section class=\"result\" id=\"s%zu\"><h2>", idx);
	fputs_xml(set->label, fp);
	fputs("</h2>\n", fp);
	result_meta(fp, r);
	view_shared(fp, r);
	for (size_t f = 0; f < r->nfits; f++)
		plot_scan(fp, r, &r->fits[f]);
	if (!r->nfits)
		plot_scans_unfitted(fp, r);
	if (r->kind && !strcmp(r->kind, "load"))
		view_capacity(fp, r);
	for (size_t i = 0; i < r->nbenchmarks; i++)
		bench_view(fp, r, &r->benchmarks[i], idx, i, charts);
	if (!r->nbenchmarks)
		fputs("<p>no benchmarks</p>\n", fp);
	fputs("</section>\n", fp);
}

/* Whether any result set shown is of kind. */
static bool any_kind(const struct report_input *in, const char *kind)
{
	for (size_t s = 0; s < in->nsets; s++)
		if (in->sets[s].r->kind && !strcmp(in->sets[s].r->kind, kind))
			return true;
	return false;
}

static void nav(FILE *fp, const struct report_input *in)
{
	fputs("<nav aria-label=\"contents\"><ul>\n", fp);
	if (in->history)
		fputs("<li><a href=\"#history\">history</a></li>\n", fp);
	if (in->profile)
		fputs("<li><a href=\"#profile\">profile</a></li>\n", fp);
	if (in->trace)
		fputs("<li><a href=\"#trace\">timeline</a></li>\n", fp);
	if (in->roofline)
		fputs("<li><a href=\"#roofline\">roofline</a></li>\n", fp);
	for (size_t s = 0; s < in->nsets; s++) {
		const struct result *r = in->sets[s].r;

		if (in->cmp)
			fprintf(fp, "<li><a href=\"#c%zu\">comparison</a>"
				"</li>\n", s);
		fprintf(fp, "<li><a href=\"#s%zu\">", s);
		fputs_xml(in->sets[s].label, fp);
		fputs("</a><ul>\n", fp);
		for (size_t i = 0; i < r->nbenchmarks && i < 200; i++) {
			fprintf(fp, "<li><a href=\"#s%zu-b%zu\">", s, i);
			fputs_xml(r->benchmarks[i].name, fp);
			fputs("</a></li>\n", fp);
		}
		fputs("</ul></li>\n", fp);
	}
	fputs("</ul></nav>\n", fp);
}

static void page(FILE *fp, const struct report_input *in)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8"
	      "\">\n<meta http-equiv=\"Content-Security-Policy\" content=\""
	      "default-src 'none'; style-src 'unsafe-inline'; script-src "
	      "'unsafe-inline'\">\n<meta name=\"viewport\" content=\""
	      "width=device-width, initial-scale=1\">\n<title>yardstick "
	      "report</title>\n<style>\n", fp);
	fputs(page_css, fp);
	fputs("</style></head>\n<body>\n<h1>yardstick report</h1>\n", fp);
	nav(fp, in);
	if (in->history)
		view_history(fp, in->history);
	if (in->profile)
		view_profile(fp, in->profile, in->profile_label,
			     any_kind(in, "mem"));
	if (in->trace)
		view_timeline(fp, in->trace, in->trace_lost, in->trace_label);
	if (in->roofline)
		view_roofline(fp, in->roofline);
	for (size_t s = 0; s < in->nsets; s++) {
		if (in->cmp)
			view_compare(fp, &in->cmp[s],
				     in->gate ? &in->gate[s] : NULL,
				     in->sets[s].label, in->baseline_label, s,
				     in->charts);
		view_result(fp, &in->sets[s], s, in->charts);
	}
	fputs("<script>\n", fp);
	fputs(page_js, fp);
	fputs("</script>\n</body></html>\n", fp);
}

int report_write_html(const struct report_input *in, const char *path,
		      struct error *e)
{
	struct atomic_file af;

	if (atomic_open(&af, path, e))
		return -1;
	page(af.fp, in);
	if (ferror(af.fp))
		return atomic_fail(&af, e);
	return atomic_commit(&af, e);
}
