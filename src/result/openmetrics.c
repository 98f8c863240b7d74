/*
 * The Prometheus text formats (openmetrics.h). Families and series are
 * arrays in the order they were added, each found through a hash index
 * (a family by its name, a series by its rendered label set): a result
 * of thousands of benchmarks or metrics is one series each per family,
 * and searching them linearly made export quadratic (8000 benchmarks:
 * 36 s).
 */
#include "result/openmetrics.h"
#include "util/hashmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct om_series {
	char *labels;		/* rendered: a="x",b="y" (no braces) */
	char **names, **values;	/* each label, for matching */
	size_t nlabels;
	double value;
};

struct om_family {
	char *name, *unit, *help;
	enum om_type type;
	struct om_series *series;
	size_t nseries, cap;
	struct hashidx ix;	/* series by hash_str(labels): index + 1 */
};

struct om_doc {
	struct om_family *fams;
	size_t nfams, cap;
	struct hashidx ix;	/* families by hash_str(name): index + 1 */
	char **collisions;	/* om_collision's messages */
	size_t ncollisions, capc;
};

struct om_doc *om_new(void)
{
	return xcalloc(1, sizeof(struct om_doc));
}

void om_free(struct om_doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nfams; i++) {
		struct om_family *f = &d->fams[i];

		for (size_t j = 0; j < f->nseries; j++) {
			struct om_series *s = &f->series[j];

			for (size_t k = 0; k < s->nlabels; k++) {
				free(s->names[k]);
				free(s->values[k]);
			}
			free(s->names);
			free(s->values);
			free(s->labels);
		}
		free(f->series);
		hashidx_free(&f->ix);
		free(f->name);
		free(f->unit);
		free(f->help);
	}
	free(d->fams);
	hashidx_free(&d->ix);
	for (size_t i = 0; i < d->ncollisions; i++)
		free(d->collisions[i]);
	free(d->collisions);
	free(d);
}

size_t om_ncollisions(const struct om_doc *d)
{
	return d->ncollisions;
}

const char *om_collision(const struct om_doc *d, size_t i)
{
	return i < d->ncollisions ? d->collisions[i] : NULL;
}

/* Record that what help describes and what f was made for sanitize alike
 * (once per pair). */
static void add_collision(struct om_doc *d, const struct om_family *f,
			  const char *help)
{
	char *msg = xasprintf("two names sanitize to the family '%s' (\"%s\" "
			      "and \"%s\"): the series of the second were "
			      "left out", f->name, f->help, help);

	for (size_t i = 0; i < d->ncollisions; i++)
		if (!strcmp(d->collisions[i], msg)) {
			free(msg);
			return;
		}
	d->collisions = xgrow(d->collisions, &d->capc, d->ncollisions + 1,
			      sizeof(*d->collisions));
	d->collisions[d->ncollisions++] = msg;
}

/* name sanitized into out: a metric name (colons allowed) or a label
 * name. */
static void om_sanitize(const char *name, bool metric, struct strbuf *out)
{
	const unsigned char *p = (const unsigned char *)name;

	if (!*p || (*p >= '0' && *p <= '9'))
		strbuf_putc(out, '_');
	for (; *p; p++) {
		unsigned char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' ||
			  (metric && c == ':');

		strbuf_putc(out, ok ? (char)c : '_');
	}
}

static char *sanitized(const char *name, bool metric)
{
	struct strbuf b = { 0 };

	om_sanitize(name, metric, &b);
	return b.s;
}

/* A label value or help text escaped: \ and newline always, " in label
 * values (and OpenMetrics's help). */
static void put_escaped(struct strbuf *b, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			strbuf_puts(b, "\\\\");
		else if (*s == '\n')
			strbuf_puts(b, "\\n");
		else if (*s == '"' && quote)
			strbuf_puts(b, "\\\"");
		else
			strbuf_putc(b, *s);
	}
}

/* The shortest text of v that strtod reads back as v. */
static void put_value(struct strbuf *b, double v)
{
	char buf[40];

	if (isnan(v)) {
		strbuf_puts(b, "NaN");
		return;
	}
	if (isinf(v)) {
		strbuf_puts(b, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	fmt_roundtrip(v, buf, sizeof(buf));
	strbuf_puts(b, buf);
}

static struct om_family *family(struct om_doc *d, const char *name,
				enum om_type type, const char *unit,
				const char *help)
{
	uint64_t h = hash_str(name), v;
	struct om_family *f;
	size_t pos;

	for (v = hashidx_first(&d->ix, h, &pos); v;
	     v = hashidx_next(&d->ix, h, &pos))
		if (!strcmp(d->fams[v - 1].name, name))
			return &d->fams[v - 1];
	d->fams = xgrow(d->fams, &d->cap, d->nfams + 1, sizeof(*d->fams));
	f = &d->fams[d->nfams++];
	hashidx_add(&d->ix, h, d->nfams);
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->unit = unit ? xstrdup(unit) : NULL;
	f->help = xstrdup(help);
	f->type = type;
	return f;
}

int om_add(struct om_doc *d, const char *name, enum om_type type,
	   const char *unit, const char *help, const struct om_label *labels,
	   size_t nlabels, double value)
{
	char *fname = sanitized(name, true);
	struct om_family *f = family(d, fname, type, unit, help);
	struct strbuf b = { 0 };
	struct om_series *s;
	uint64_t h, v;
	size_t pos;

	free(fname);
	strbuf_puts(&b, "");
	for (size_t i = 0; i < nlabels; i++) {
		if (i)
			strbuf_putc(&b, ',');
		om_sanitize(labels[i].name, false, &b);
		strbuf_puts(&b, "=\"");
		put_escaped(&b, labels[i].value, true);
		strbuf_putc(&b, '"');
	}
	h = hash_str(b.s);
	for (v = hashidx_first(&f->ix, h, &pos); v;
	     v = hashidx_next(&f->ix, h, &pos)) {
		if (!strcmp(f->series[v - 1].labels, b.s)) {
			free(b.s);
			if (strcmp(f->help, help)) {
				/* another name, sanitized alike: not a
				 * repeat of an earlier result's series */
				add_collision(d, f, help);
				return 0;
			}
			return 1;
		}
	}
	f->series = xgrow(f->series, &f->cap, f->nseries + 1,
			  sizeof(*f->series));
	s = &f->series[f->nseries++];
	hashidx_add(&f->ix, h, f->nseries);
	s->labels = b.s;
	s->nlabels = nlabels;
	s->names = xcalloc(nlabels ? nlabels : 1, sizeof(char *));
	s->values = xcalloc(nlabels ? nlabels : 1, sizeof(char *));
	for (size_t i = 0; i < nlabels; i++) {
		s->names[i] = sanitized(labels[i].name, false);
		s->values[i] = xstrdup(labels[i].value);
	}
	s->value = value;
	return 0;
}

static bool matches(const struct om_series *s, const struct om_label *match,
		    size_t nmatch)
{
	for (size_t m = 0; m < nmatch; m++) {
		bool found = false;

		for (size_t i = 0; i < s->nlabels && !found; i++)
			found = !strcmp(s->names[i], match[m].name) &&
				!strcmp(s->values[i], match[m].value);
		if (!found)
			return false;
	}
	return true;
}

static void write_family(const struct om_family *f, enum om_format fmt,
			 const struct om_label *match, size_t nmatch,
			 struct strbuf *out)
{
	bool any = false;

	for (size_t i = 0; i < f->nseries && !any; i++)
		any = matches(&f->series[i], match, nmatch);
	if (!any)
		return;
	strbuf_puts(out, "# HELP ");
	strbuf_puts(out, f->name);
	strbuf_putc(out, ' ');
	put_escaped(out, f->help, fmt == OM_OPENMETRICS);
	strbuf_puts(out, "\n# TYPE ");
	strbuf_puts(out, f->name);
	strbuf_puts(out, f->type == OM_COUNTER ? " counter\n" : " gauge\n");
	if (fmt == OM_OPENMETRICS && f->unit) {
		strbuf_puts(out, "# UNIT ");
		strbuf_puts(out, f->name);
		strbuf_putc(out, ' ');
		strbuf_puts(out, f->unit);
		strbuf_putc(out, '\n');
	}
	for (size_t i = 0; i < f->nseries; i++) {
		const struct om_series *s = &f->series[i];

		if (!matches(s, match, nmatch))
			continue;
		strbuf_puts(out, f->name);
		if (f->type == OM_COUNTER)
			strbuf_puts(out, "_total");
		if (s->nlabels) {
			strbuf_putc(out, '{');
			strbuf_puts(out, s->labels);
			strbuf_putc(out, '}');
		}
		strbuf_putc(out, ' ');
		put_value(out, s->value);
		strbuf_putc(out, '\n');
	}
}

void om_write(const struct om_doc *d, enum om_format f,
	      const struct om_label *match, size_t nmatch, struct strbuf *out)
{
	strbuf_puts(out, "");
	for (size_t i = 0; i < d->nfams; i++)
		write_family(&d->fams[i], f, match, nmatch, out);
	if (f == OM_OPENMETRICS)
		strbuf_puts(out, "# EOF\n");
}

/* ---- results ---- */

/* The unit's part of a family name ("s" -> "seconds", "requests/s" ->
 * "requests_per_second"), or NULL for counts and no unit. */
static char *unit_suffix(const char *unit)
{
	struct strbuf b = { 0 };
	const char *p = unit;

	if (!unit || !*unit || !strcmp(unit, "count"))
		return NULL;
	while (*p) {
		size_t n = strcspn(p, "/");
		char *part = xstrndup(p, n);

		if (b.len)
			strbuf_puts(&b, "_per_");
		if (!strcmp(part, "s"))
			strbuf_puts(&b, b.len ? "second" : "seconds");
		else
			om_sanitize(part, false, &b);
		free(part);
		p += n;
		if (*p == '/')
			p++;
	}
	return b.s;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static bool label_taken(char **owned, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(owned[j], owned[i]))
			return true;
	return false;
}

/* The labels every series of benchmark b of r has, statistic left
 * empty (at [1]); names of param_ labels are kept in *owned. */
static size_t bench_labels(const struct result *r, const struct benchmark *b,
			   struct om_label *l, char **owned)
{
	size_t n = 0;

	l[n++] = (struct om_label){ "benchmark", b->name };
	l[n++] = (struct om_label){ "statistic", "" };
	for (size_t i = 0; i < b->nparams; i++) {
		struct strbuf nb = { 0 };

		strbuf_puts(&nb, "param_");
		om_sanitize(b->params[i].name, false, &nb);
		/* Two names sanitized alike ("a-b", "a.b"): the later gets
		 * _2, _3 ... appended, so that no label is repeated. */
		owned[i] = nb.s;
		for (size_t k = 2; label_taken(owned, i); k++) {
			owned[i] = xasprintf("%s_%zu", nb.s, k);
			if (!label_taken(owned, i))
				break;
			free(owned[i]);
			owned[i] = nb.s;
		}
		if (owned[i] != nb.s)
			free(nb.s);
		l[n++] = (struct om_label){ owned[i], b->params[i].value };
	}
	if (r->kind)
		l[n++] = (struct om_label){ "kind", r->kind };
	l[n++] = (struct om_label){ "machine", r->machine.hostname ?
				    r->machine.hostname : "" };
	if (r->git.commit)
		l[n++] = (struct om_label){ "commit", r->git.commit };
	if (r->git.branch)
		l[n++] = (struct om_label){ "branch", r->git.branch };
	return n;
}

static size_t add_stat(struct om_doc *d, const char *fam, const char *unit,
		       const char *help, struct om_label *l, size_t nl,
		       const char *stat, double v)
{
	if (isnan(v))
		return 0;
	l[1].value = stat;
	return (size_t)om_add(d, fam, OM_GAUGE, unit, help, l, nl, v);
}

static size_t add_metric(struct om_doc *d, const struct metric *m,
			 struct om_label *l, size_t nl)
{
	const struct summary *s = &m->summary;
	char *unit = unit_suffix(m->unit), *fam, *help;
	struct strbuf nb = { 0 };
	size_t dup = 0;
	const struct { const char *name; double v; } stats[] = {
		{ "mean", s->mean },
		{ "stddev", s->stddev }, { "min", s->min }, { "max", s->max },
		{ "median", s->median }, { "mad", s->mad }, { "p25", s->p25 },
		{ "p75", s->p75 }, { "p90", s->p90 }, { "p95", s->p95 },
		{ "p99", s->p99 },
	};

	strbuf_puts(&nb, "yardstick_");
	om_sanitize(m->name, false, &nb);
	if (unit && !ends_with(nb.s, unit)) {
		strbuf_putc(&nb, '_');
		strbuf_puts(&nb, unit);
	}
	fam = nb.s;
	help = xasprintf("yardstick metric %s (%s): a statistic of its "
			 "values", m->name, m->unit ? m->unit : "");
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++)
		dup += add_stat(d, fam, unit, help, l, nl, stats[i].name,
				stats[i].v);
	for (size_t i = 0; i < m->nextra; i++)
		dup += add_stat(d, fam, unit, help, l, nl, m->extra[i].key,
				m->extra[i].value);
	free(help);
	free(fam);
	free(unit);
	/* how many values the statistics are of: a count, not in the unit */
	l[1] = (struct om_label){ "metric", m->name };
	dup += (size_t)om_add(d, "yardstick_metric_values", OM_GAUGE, NULL,
			      "values of the metric the statistics are of "
			      "(runs, or sampled requests)", l, nl,
			      (double)s->n);
	l[1] = (struct om_label){ "statistic", "" };
	return dup;
}

size_t om_add_result(struct om_doc *d, const struct result *r)
{
	size_t dup = 0;

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];
		struct om_label *l = xcalloc(b->nparams + 8, sizeof(*l));
		char **owned = xcalloc(b->nparams + 1, sizeof(char *));
		size_t nl = bench_labels(r, b, l, owned);

		for (size_t k = 0; k < b->nmetrics; k++)
			if (metric_has_summary(&b->metrics[k]))
				dup += add_metric(d, &b->metrics[k], l, nl);
		for (size_t k = 0; k < b->nparams; k++)
			free(owned[k]);
		free(owned);
		free(l);
	}
	return dup;
}
