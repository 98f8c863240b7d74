/*
 * The profile view: a profile (`record -o FILE.folded`, `mem`'s folded
 * allocation sites) as the interactive flame graph of profile/flamegraph.c
 * inline in the page, and its top table with the Amdahl bound of each
 * function: how much faster the program could be if the function (and
 * what it calls) took nothing. mem's sites (bytes) get each function's
 * share of the bytes instead: an Amdahl bound is about time.
 */
#include <math.h>
#include <stdlib.h>

#include "report/views.h"
#include "util/strutil.h"

#define TOP_ROWS 25

/* Amdahl's law: removing a share p of the work speeds the rest up by at
 * most 1 / (1 - p). */
/* p < 0: no bound (a bucket of unnamed code), shown as "–" */
static void amdahl_cell(FILE *fp, double p)
{
	fputs("<td class=\"amdahl\"", fp);
	html_num_attr(fp, "data-v", p < 0 ? 1 : p < 1 ? 1 / (1 - p)
					: INFINITY);
	if (p >= 0 && p < 0.999)
		fprintf(fp, ">%.3f×</td>", 1 / (1 - p));
	else
		fputs(">–</td>", fp);
}

/* A top table row's opening: the function and its module. */
static void name_cells(FILE *fp, const struct profile_top *t)
{
	fputs("<tr><td>", fp);
	fputs_xml(t->function, fp);
	fputs("</td><td>", fp);
	fputs_xml(t->module ? t->module : "", fp);
}

/* The top table of a profile of bytes (mem's sites): each function's
 * share of the bytes, itself and with what it calls. */
static void top_table_bytes(FILE *fp, const struct profile_top *top,
			    size_t n, double all)
{
	if (n && all > 0 && profile_names_function(top[0].function)) {
		fputs("<p class=\"top-line\">the function with the most bytes "
		      "itself, <code>", fp);
		fputs_xml(top[0].function, fp);
		fprintf(fp, "</code>, has %.1f%% of them</p>\n",
			100 * top[0].self / all);
	}
	fputs("<table class=\"top\"><thead><tr><th>function</th>"
	      "<th>module</th><th>bytes itself</th><th>with its callees</th>"
	      "</tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < n && i < TOP_ROWS && all > 0; i++) {
		name_cells(fp, &top[i]);
		fputs("</td><td class=\"self\">", fp);
		html_value(fp, (double)top[i].self, "bytes");
		fprintf(fp, " (%.2f%%)</td><td class=\"total\">",
			100 * top[i].self / all);
		html_value(fp, (double)top[i].total, "bytes");
		fprintf(fp, " (%.2f%%)</td></tr>\n", 100 * top[i].total / all);
	}
	fputs("</tbody></table>\n", fp);
}

static void top_table(FILE *fp, const struct profile *p, bool bytes)
{
	struct profile_top *top;
	size_t n;
	double all = (double)profile_total(p, 0);

	profile_top(p, 0, &top, &n);
	if (bytes) {
		top_table_bytes(fp, top, n, all);
		free(top);
		return;
	}
	/* no bound for a bucket of unnamed code: it may be many functions */
	if (n && all > 0 && profile_names_function(top[0].function)) {
		fputs("<p class=\"amdahl-line\">the function with the most "
		      "self ", fp);
		fputs_xml(p->types[0].name, fp);
		fputs(", <code>", fp);
		fputs_xml(top[0].function, fp);
		fprintf(fp, "</code>, has %.1f%% of them: were it free, the "
			"program would be at most %.3f× faster (Amdahl's "
			"law)</p>\n", 100 * top[0].self / all,
			top[0].self < all ? all / (all - top[0].self) : 0.0);
	}
	fputs("<table class=\"top\"><thead><tr><th>function</th>"
	      "<th>module</th><th>self</th><th>total</th><th>at most, if "
	      "free</th></tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < n && i < TOP_ROWS && all > 0; i++) {
		name_cells(fp, &top[i]);
		fprintf(fp, "</td><td class=\"self\">%.2f%%</td>"
			"<td class=\"total\">%.2f%%</td>",
			100 * top[i].self / all, 100 * top[i].total / all);
		amdahl_cell(fp, profile_names_function(top[i].function)
				? top[i].total / all : -1);
		fputs("</tr>\n", fp);
	}
	fputs("</tbody></table>\n", fp);
	free(top);
}

void view_profile(FILE *fp, const struct profile *p, const char *label,
		  bool bytes)
{
	struct flame_opts o = { .title = label, .width = 1060 };
	struct error e;

	fputs("<section class=\"profile\" id=\"profile\"><h2>profile: ", fp);
	fputs_xml(label, fp);
	fputs("</h2>\n", fp);
	if (!p->ntypes) {
		fputs("<p>an empty profile</p></section>\n", fp);
		return;
	}
	o.unit = bytes ? "bytes" : p->types[0].name;
	fputs("<figure class=\"flame\">", fp);
	if (profile_fput_flamegraph(p, 0, &o, fp, &e)) {
		fputs("<p>", fp);
		fputs_xml(e.msg, fp);
		fputs("</p>", fp);
	}
	fputs("<figcaption>click a frame to zoom, Search to highlight "
	      "</figcaption></figure>\n", fp);
	top_table(fp, p, bytes);
	fputs("</section>\n", fp);
}
