/*
 * The manual pages (roff) and the options section of docs/cmd/NAME.md
 * (Markdown), generated from a command's option table, so that `--help`,
 * `man yardstick-NAME`, the docs and the completions cannot drift apart:
 * every option's words come from opt_describe, as the help's do.
 *
 * The description and epilog are the help's own paragraphs: a blank line
 * starts a paragraph, and a paragraph whose lines are indented is shown
 * as it is (an example, a table).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/options.h"
#include "util/strutil.h"

/* Text for roff: a backslash is \e, a dash \-, and a line that would
 * start with a control character (. or ') is guarded by \&. */
static void roff_text(const char *s, size_t len, FILE *fp)
{
	if (len && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", fp);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\')
			fputs("\\e", fp);
		else if (s[i] == '-')
			fputs("\\-", fp);
		else
			fputc(s[i], fp);
	}
}

static bool indented(const char *line)
{
	return line[0] == ' ' || line[0] == '\t';
}

/* The paragraphs of a help text in roff: .PP before each, .nf/.fi around
 * one whose first line is indented. */
static void roff_paragraphs(const char *text, FILE *fp)
{
	const char *p = text;
	bool start = true, verbatim = false;

	while (*p) {
		size_t len = strcspn(p, "\n");

		if (len == 0) {
			if (verbatim)
				fputs(".fi\n", fp);
			verbatim = false;
			start = true;
		} else {
			if (start) {
				fputs(".PP\n", fp);
				verbatim = indented(p);
				if (verbatim)
					fputs(".nf\n", fp);
				start = false;
			}
			roff_text(p, len, fp);
			fputc('\n', fp);
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	if (verbatim)
		fputs(".fi\n", fp);
}

static void upper(const char *s, FILE *fp)
{
	for (; *s; s++)
		fputc(*s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s, fp);
}

void opt_man(const struct opt_cmd *c, const char *version, FILE *fp)
{
	char *d = opt_defaults(c);

	fputs(".TH YARDSTICK\\-", fp);
	upper(c->name, fp);
	fprintf(fp, " 1 \"\" \"yardstick %s\" \"yardstick manual\"\n", version);
	fprintf(fp, ".SH NAME\nyardstick\\-%s \\- ", c->name);
	roff_text(c->summary, strlen(c->summary), fp);
	fputs("\n.SH SYNOPSIS\n.nf\n", fp);
	for (size_t i = 0; c->usage[i]; i++) {
		fprintf(fp, "\\fByardstick %s\\fR ", c->name);
		roff_text(c->usage[i], strlen(c->usage[i]), fp);
		fputc('\n', fp);
	}
	fputs(".fi\n", fp);
	if (c->description) {
		fputs(".SH DESCRIPTION\n", fp);
		roff_paragraphs(c->description, fp);
	}
	fputs(".SH OPTIONS\n", fp);
	for (const struct opt_entry *o = c->opts; o->type; o++) {
		char *synopsis, *text;

		if (o->type == OPT_T_GROUP) {
			fputs(".SS ", fp);
			roff_text(o->help, strlen(o->help), fp);
			fputc('\n', fp);
			continue;
		}
		opt_describe(o, d, &synopsis, &text);
		fputs(".TP\n.B ", fp);
		roff_text(synopsis, strlen(synopsis), fp);
		fputc('\n', fp);
		roff_text(text, strlen(text), fp);
		fputc('\n', fp);
		free(synopsis);
		free(text);
	}
	if (c->epilog) {
		fputs(".SH NOTES\n", fp);
		roff_paragraphs(c->epilog, fp);
	}
	fputs(".SH SEE ALSO\n.BR yardstick (1)\n", fp);
	free(d);
}

/* Text in a Markdown table cell: | and the characters that would start
 * markup (\ ` * _ < [) escaped. */
static void md_cell(const char *s, FILE *fp)
{
	for (; *s; s++) {
		if (strchr("|\\`*_<[", *s))
			fputc('\\', fp);
		fputc(*s == '\n' ? ' ' : *s, fp);
	}
}

void opt_markdown(const struct opt_cmd *c, FILE *fp)
{
	char *d = opt_defaults(c);
	bool table = false;

	fprintf(fp, "<!-- generated from the option table by `yardstick doc "
		"markdown %s`: `make docs` rewrites it, and the test "
		"cli_manual fails when it differs -->\n## Options\n", c->name);
	for (const struct opt_entry *o = c->opts; o->type; o++) {
		char *synopsis, *text;

		if (o->type == OPT_T_GROUP) {
			fputs("\n### ", fp);
			md_cell(o->help, fp);
			fputc('\n', fp);
			table = false;
			continue;
		}
		if (!table) {
			fputs("\n| option | what it does |\n|---|---|\n", fp);
			table = true;
		}
		opt_describe(o, d, &synopsis, &text);
		fputs("| `", fp);
		/* a | inside a code span of a table cell is written \| */
		for (const char *s = synopsis; *s; s++) {
			if (*s == '|')
				fputc('\\', fp);
			fputc(*s, fp);
		}
		fputs("` | ", fp);
		md_cell(text, fp);
		fputs(" |\n", fp);
		free(synopsis);
		free(text);
	}
	fputs("<!-- end of the generated options -->\n", fp);
	free(d);
}

/* The name of a numeric type, or NULL for any other. */
static const char *number_type(enum opt_type t)
{
	switch (t) {
	case OPT_T_COUNT: return "count";
	case OPT_T_NUMBER: return "number";
	case OPT_T_DURATION: return "duration";
	case OPT_T_SIZE: return "size";
	case OPT_T_PERCENT: return "percent";
	default: return NULL;
	}
}

void opt_numbers(const struct opt_cmd *c, FILE *fp)
{
	for (const struct opt_entry *o = c->opts; o->type; o++) {
		const char *t = number_type(o->type);

		if (!t)
			continue;
		if (o->long_name)
			fprintf(fp, "%s --%s %s", c->name, o->long_name, t);
		else
			fprintf(fp, "%s -%c %s", c->name, o->short_name, t);
		if (o->type == OPT_T_COUNT)
			fprintf(fp, " %ld %ld %ld\n", o->lmin, o->lmax,
				o->step > 1 ? o->step : 1);
		else
			fprintf(fp, " %.17g %.17g %d\n", o->min, o->max,
				o->flags & (OPT_MIN_EXCL | OPT_MAX_EXCL));
	}
}

