/*
 * The result model: building it, freeing it, summarizing it, and the one
 * sentence every output uses to state a comparison.
 *
 * Every string is copied in and owned by the result; arrays grow with
 * xgrow, so pointers into them (a benchmark, a metric) are invalidated by
 * the next append to the same array. result_free leaves the result zeroed,
 * so freeing twice is harmless.
 */
#include "result/metrics.h"
#include "result/result.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"
#include "util/suggest.h"

static const char *const cmp_verdict_names[] = {
	[CMP_UNCHANGED] = "unchanged", [CMP_FASTER] = "faster",
	[CMP_SLOWER] = "slower", [CMP_BETTER] = "better",
	[CMP_WORSE] = "worse", [CMP_INCONCLUSIVE] = "inconclusive",
};

const char *cmp_verdict_name(enum cmp_verdict v)
{
	return cmp_verdict_names[v];
}

/* each writer's entry is beside its code (result.h) */
const struct result_writer *const result_writers[RESULT_FMT_COUNT] = {
	[RESULT_FMT_JSON] = &result_writer_json,
	[RESULT_FMT_CSV] = &result_writer_csv,
	[RESULT_FMT_MARKDOWN] = &result_writer_markdown,
	[RESULT_FMT_BMF] = &result_writer_bmf,
};

int cmp_verdict_parse(const char *s, enum cmp_verdict *v)
{
	for (size_t i = 0; i < sizeof(cmp_verdict_names) /
			       sizeof(*cmp_verdict_names); i++)
		if (!strcmp(s, cmp_verdict_names[i])) {
			*v = i;
			return 0;
		}
	return -1;
}

void result_init(struct result *r, const char *kind)
{
	memset(r, 0, sizeof(*r));
	r->kind = xstrdup(kind ? kind : "run");
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void benchmark_release(struct benchmark *b)
{
	free(b->name);
	argv_free(b->command);
	for (size_t i = 0; i < b->nparams; i++) {
		free(b->params[i].name);
		free(b->params[i].value);
	}
	free(b->params);
	free(b->exit_codes);
	for (size_t i = 0; i < b->nmetrics; i++) {
		free(b->metrics[i].name);
		free(b->metrics[i].unit);
		free(b->metrics[i].values);
		free(b->metrics[i].process);
		for (size_t k = 0; k < b->metrics[i].nextra; k++)
			free(b->metrics[i].extra[k].key);
		free(b->metrics[i].extra);
	}
	free(b->metrics);
	strv_free(b->unsupported, b->nunsupported);
	strv_free(b->warnings, b->nwarnings);
	free(b->warmup_wall_time.v);
	free(b->timeline.t.v);
	free(b->timeline.heap.v);
	free(b->timeline.rss.v);
	for (size_t i = 0; i < b->nhists; i++) {
		free(b->hists[i].metric);
		hdr_free(b->hists[i].h);
	}
	free(b->hists);
	free(b->load.ok.v);
	free(b->load.errors.v);
	for (size_t i = 0; i < b->load.ncounts; i++)
		free(b->load.counts[i].key);
	free(b->load.counts);
}

static void comparison_release(struct comparison *c)
{
	free(c->baseline);
	free(c->candidate);
	free(c->metric);
}

void result_free(struct result *r)
{
	free(r->kind);
	free(r->created);
	free(r->tool_version);
	free(r->machine.hostname);
	free(r->machine.os);
	free(r->machine.cpu);
	free(r->machine.governor);
	free(r->git.commit);
	free(r->git.branch);
	for (size_t i = 0; i < r->nsettings; i++) {
		free(r->settings[i].key);
		free(r->settings[i].str);
	}
	free(r->settings);
	for (size_t i = 0; i < r->nbenchmarks; i++)
		benchmark_release(&r->benchmarks[i]);
	free(r->benchmarks);
	for (size_t i = 0; i < r->ncomparisons; i++)
		comparison_release(&r->comparisons[i]);
	free(r->comparisons);
	for (size_t i = 0; i < r->nfits; i++) {
		free(r->fits[i].name);
		free(r->fits[i].parameter);
		free(r->fits[i].metric);
	}
	free(r->fits);
	memset(r, 0, sizeof(*r));
}

/* The setting named key, appended (zeroed but for the key) if absent. */
static struct setting *setting_slot(struct result *r, const char *key)
{
	struct setting *s;

	for (size_t i = 0; i < r->nsettings; i++)
		if (!strcmp(r->settings[i].key, key))
			return &r->settings[i];
	/* Settings are few: grow one at a time, no capacity to track. */
	r->settings = xrealloc(r->settings,
			       (r->nsettings + 1) * sizeof(*r->settings));
	s = &r->settings[r->nsettings++];
	memset(s, 0, sizeof(*s));
	s->key = xstrdup(key);
	return s;
}

void result_set_num(struct result *r, const char *key, double num)
{
	struct setting *s = setting_slot(r, key);

	free(s->str);
	s->str = NULL;
	s->num = num;
}

void result_set_str(struct result *r, const char *key, const char *str)
{
	struct setting *s = setting_slot(r, key);

	free(s->str);
	s->str = xstrdup(str);
	s->num = 0;
}

const char *result_partial(const struct result *r)
{
	for (size_t i = 0; i < r->nsettings; i++)
		if (!strcmp(r->settings[i].key, "partial"))
			return r->settings[i].str;
	return NULL;
}

struct benchmark *result_add_benchmark(struct result *r, const char *name,
				       char *const *argv)
{
	struct benchmark *b;
	char *const none[] = { NULL };

	r->benchmarks = xgrow(r->benchmarks, &r->capbenchmarks,
			      r->nbenchmarks + 1, sizeof(*r->benchmarks));
	b = &r->benchmarks[r->nbenchmarks++];
	memset(b, 0, sizeof(*b));
	b->name = xstrdup(name);
	b->command = argv_dup(argv ? argv : none);
	while (b->command[b->argc])
		b->argc++;
	return b;
}

struct benchmark *result_find_benchmark(const struct result *r,
					const char *name)
{
	for (size_t i = 0; i < r->nbenchmarks; i++)
		if (!strcmp(r->benchmarks[i].name, name))
			return &r->benchmarks[i];
	return NULL;
}

/* "name [k=v, ...]" with every parameter, malloc'd. */
static char *name_with_params(const struct benchmark *b)
{
	char *s = xasprintf("%s [", b->name);

	for (size_t i = 0; i < b->nparams; i++) {
		char *next = xasprintf("%s%s%s=%s", s, i ? ", " : "",
				       b->params[i].name, b->params[i].value);

		free(s);
		s = next;
	}
	{
		char *next = xasprintf("%s]", s);

		free(s);
		s = next;
	}
	return s;
}

static bool same_params(const struct benchmark *a, const struct benchmark *b)
{
	if (a->nparams != b->nparams)
		return false;
	for (size_t i = 0; i < a->nparams; i++)
		if (strcmp(a->params[i].name, b->params[i].name) ||
		    strcmp(a->params[i].value, b->params[i].value))
			return false;
	return true;
}

struct name_ix {
	const char *name;
	size_t i;
};

/* By name, then by position: the first of equal names comes first. */
static int cmp_name_ix(const void *pa, const void *pb)
{
	const struct name_ix *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int cmp_name_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct name_ix *)elem)->name);
}

/* r's benchmark names sorted (into v, of r->nbenchmarks entries). */
static void sort_names(const struct result *r, struct name_ix *v)
{
	for (size_t i = 0; i < r->nbenchmarks; i++)
		v[i] = (struct name_ix){ r->benchmarks[i].name, i };
	qsort(v, r->nbenchmarks, sizeof(*v), cmp_name_ix);
}

static void rename_benchmark(struct benchmark *b, char *name)
{
	free(b->name);
	b->name = name;
}

/* Give benchmark i the name names[i] where one is set (the name is
 * taken over); frees names. Returns how many were renamed. */
static size_t rename_all(struct result *r, char **names)
{
	size_t renamed = 0;

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		if (names[i]) {
			rename_benchmark(&r->benchmarks[i], names[i]);
			renamed++;
		}
	}
	free(names);
	return renamed;
}

/* Step 1: in each group of equal names whose parameters differ, every
 * benchmark with parameters is renamed "name [k=v, ...]". */
static size_t tell_apart_by_params(struct result *r, struct name_ix *v)
{
	size_t n = r->nbenchmarks;
	char **names = xcalloc(n, sizeof(*names));

	sort_names(r, v);
	for (size_t s = 0, e; s < n; s = e) {
		const struct benchmark *first = &r->benchmarks[v[s].i];
		bool differ = false;

		for (e = s + 1; e < n && !strcmp(v[e].name, v[s].name); e++)
			if (!same_params(first, &r->benchmarks[v[e].i]))
				differ = true;
		for (size_t k = s; differ && k < e; k++)
			if (r->benchmarks[v[k].i].nparams)
				names[v[k].i] = name_with_params(
					&r->benchmarks[v[k].i]);
	}
	/* Renamed after the walk: v points into the old names. */
	return rename_all(r, names);
}

/*
 * Step 2: a benchmark shown as "name [k=v]" (benchmark_display_name: its
 * name lacks a parameter's value) whose shown name another benchmark
 * shows too under another name ("a" with k=1 beside one named "a [k=1]")
 * is renamed to it, so that step 3 numbers the equal names.
 */
static size_t tell_apart_shown(struct result *r, struct name_ix *v)
{
	size_t n = r->nbenchmarks;
	char **shown = xcalloc(n, sizeof(*shown));
	char **names = xcalloc(n, sizeof(*names));

	for (size_t i = 0; i < n; i++) {
		shown[i] = benchmark_display_name(&r->benchmarks[i]);
		v[i] = (struct name_ix){ shown[i], i };
	}
	qsort(v, n, sizeof(*v), cmp_name_ix);
	for (size_t s = 0, e; s < n; s = e) {
		bool names_differ = false;

		for (e = s + 1; e < n && !strcmp(v[e].name, v[s].name); e++)
			names_differ |= strcmp(r->benchmarks[v[e].i].name,
					       r->benchmarks[v[s].i].name) != 0;
		/* equal names alone are step 3's */
		for (size_t k = s; names_differ && k < e; k++)
			if (strcmp(shown[v[k].i], r->benchmarks[v[k].i].name))
				names[v[k].i] = xstrdup(shown[v[k].i]);
	}
	for (size_t i = 0; i < n; i++)
		free(shown[i]);
	free(shown);
	return rename_all(r, names);
}

/*
 * Step 3: the second and later of equal names get " #2", " #3", ...: the
 * first number whose name no benchmark had. A new name "BASE #K" cannot
 * equal one made from another base (BASE is what precedes its last " #"),
 * so checking against the names before the step is enough.
 */
static size_t number_the_rest(struct result *r, struct name_ix *v)
{
	size_t n = r->nbenchmarks;
	char **names = xcalloc(n, sizeof(*names));

	sort_names(r, v);
	for (size_t s = 0, e; s < n; s = e) {
		size_t k = 2;

		for (e = s + 1; e < n && !strcmp(v[e].name, v[s].name); e++) {
			char *name;

			for (;; k++) {
				name = xasprintf("%s #%zu", v[s].name, k);
				if (!bsearch(name, v, n, sizeof(*v),
					     cmp_name_key))
					break;
				free(name);
			}
			k++;
			names[v[e].i] = name;
		}
	}
	return rename_all(r, names);
}

size_t result_unique_names(struct result *r)
{
	struct name_ix *v;
	size_t renamed;

	if (r->nbenchmarks < 2)
		return 0;
	v = xcalloc(r->nbenchmarks, sizeof(*v));
	renamed = tell_apart_by_params(r, v);
	/* A number can make a shown name equal another's ("a" with k=1
	 * numbered "a #2" shows as "a #2 [k=1]"): again until none does.
	 * Ends: step 2 renames a benchmark at most once (its name then holds
	 * its values: it shows as itself), and step 3 leaves names unique. */
	for (size_t more = 1; more;) {
		more = tell_apart_shown(r, v);
		more += number_the_rest(r, v);
		renamed += more;
	}
	free(v);
	return renamed;
}

const char *benchmark_param(const struct benchmark *b, const char *name)
{
	for (size_t i = 0; i < b->nparams; i++)
		if (!strcmp(b->params[i].name, name))
			return b->params[i].value;
	return NULL;
}

void benchmark_add_param(struct benchmark *b, const char *name,
			 const char *value)
{
	struct param *p;

	for (size_t i = 0; i < b->nparams; i++) {
		if (!strcmp(b->params[i].name, name)) {
			free(b->params[i].value);
			b->params[i].value = xstrdup(value);
			return;
		}
	}
	b->params = xrealloc(b->params, (b->nparams + 1) * sizeof(*b->params));
	p = &b->params[b->nparams++];
	p->name = xstrdup(name);
	p->value = xstrdup(value);
}

char *benchmark_display_name(const struct benchmark *b)
{
	for (size_t i = 0; i < b->nparams; i++)
		if (!strstr(b->name, b->params[i].value))
			return name_with_params(b);
	return xstrdup(b->name);
}

struct metric *benchmark_find_metric(const struct benchmark *b,
				     const char *name)
{
	for (size_t i = 0; i < b->nmetrics; i++)
		if (!strcmp(b->metrics[i].name, name))
			return &b->metrics[i];
	return NULL;
}

static bool in_names(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

bool result_has_metric(const struct result *r, const char *name)
{
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];

		if (benchmark_find_metric(b, name) ||
		    in_names(b->unsupported, b->nunsupported, name))
			return true;
	}
	return false;
}

const char *result_metric_near(const struct result *r, const char *name)
{
	const char **names = NULL;
	const char *near;
	size_t n = 0;

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];

		names = xrealloc(names, (n + b->nmetrics + b->nunsupported)
				 * sizeof(*names));
		for (size_t k = 0; k < b->nmetrics; k++)
			names[n++] = b->metrics[k].name;
		for (size_t k = 0; k < b->nunsupported; k++)
			names[n++] = b->unsupported[k];
	}
	near = n ? suggest_closest(name, names, n) : NULL;
	free(names);
	return near;
}

struct metric *benchmark_metric(struct benchmark *b, const char *name,
				const char *unit)
{
	struct metric *m = benchmark_find_metric(b, name);

	if (m)
		return m;
	b->metrics = xgrow(b->metrics, &b->capmetrics, b->nmetrics + 1,
			   sizeof(*b->metrics));
	m = &b->metrics[b->nmetrics++];
	memset(m, 0, sizeof(*m));
	m->name = xstrdup(name);
	m->unit = xstrdup(unit ? unit : "");
	return m;
}

/* Room for one more value, in values and (when m has it) process alike:
 * the two arrays share cap. */
static void metric_grow(struct metric *m)
{
	size_t cap = m->cap;

	m->values = xgrow(m->values, &m->cap, m->n + 1, sizeof(*m->values));
	if (m->process && m->cap != cap)
		m->process = xrealloc(m->process, m->cap * sizeof(*m->process));
}

void metric_push(struct metric *m, double v)
{
	metric_grow(m);
	if (m->process)
		m->process[m->n] = 0;
	m->values[m->n++] = v;
}

void metric_push_process(struct metric *m, double v, unsigned process)
{
	metric_grow(m);
	if (!m->process)
		m->process = xcalloc(m->cap, sizeof(*m->process));
	m->process[m->n] = process;
	m->values[m->n++] = v;
}

size_t metric_processes(const struct metric *m)
{
	size_t k = 0;

	if (!m->process)
		return m->n ? 1 : 0;
	for (size_t i = 0; i < m->n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = m->process[j] == m->process[i];
		k += !seen;
	}
	return k;
}

void series_push(struct series *s, double v)
{
	s->v = xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = v;
}

void benchmark_push_exit(struct benchmark *b, int code)
{
	b->exit_codes = xgrow(b->exit_codes, &b->capexit, b->nexit + 1,
			      sizeof(*b->exit_codes));
	b->exit_codes[b->nexit++] = code;
}

static void strv_push(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = s;
}

void benchmark_add_unsupported(struct benchmark *b, const char *name)
{
	for (size_t i = 0; i < b->nunsupported; i++)
		if (!strcmp(b->unsupported[i], name))
			return;
	strv_push(&b->unsupported, &b->nunsupported, xstrdup(name));
}

void benchmark_add_warning(struct benchmark *b, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	strv_push(&b->warnings, &b->nwarnings, s);
}

void result_add_comparison(struct result *r, const struct comparison *c)
{
	struct comparison *d;

	r->comparisons = xrealloc(r->comparisons, (r->ncomparisons + 1) *
				  sizeof(*r->comparisons));
	d = &r->comparisons[r->ncomparisons++];
	*d = *c;
	d->baseline = xstrdup(c->baseline);
	d->candidate = xstrdup(c->candidate);
	d->metric = xstrdup(c->metric);
}

void result_add_fit(struct result *r, const struct complexity_fit *f)
{
	struct complexity_fit *d;

	r->fits = xrealloc(r->fits, (r->nfits + 1) * sizeof(*r->fits));
	d = &r->fits[r->nfits++];
	*d = *f;
	d->name = xstrdup(f->name);
	d->parameter = xstrdup(f->parameter);
	d->metric = xstrdup(f->metric);
}

double *metric_measured(const struct metric *m, size_t *n)
{
	double *v = xcalloc(m->n + 1, sizeof(double));

	*n = 0;
	for (size_t i = 0; i < m->n; i++)
		if (isfinite(m->values[i]))
			v[(*n)++] = m->values[i];
	return v;
}

void metric_set_extra(struct metric *m, const char *key, double v)
{
	for (size_t i = 0; i < m->nextra; i++) {
		if (!strcmp(m->extra[i].key, key)) {
			m->extra[i].value = v;
			return;
		}
	}
	m->extra = xrealloc(m->extra, (m->nextra + 1) * sizeof(*m->extra));
	m->extra[m->nextra].key = xstrdup(key);
	m->extra[m->nextra++].value = v;
}

bool metric_has_summary(const struct metric *m)
{
	return m && m->n > 0 && m->summarized == m->n && m->summary.n > 0;
}

static bool listed(const char *const *names, const char *name)
{
	if (!names)
		return true;
	for (; *names; names++)
		if (!strcmp(*names, name))
			return true;
	return false;
}

static void metric_summarize_hdr(struct metric *m, const struct hdr *h);

/* The result's own setting bootstrap_max_draws (stats_max_draws): a
 * reader summarizes the values again as the writer did. */
static size_t max_draws(const struct result *r)
{
	for (size_t i = 0; i < r->nsettings; i++) {
		const struct setting *s = &r->settings[i];

		if (!s->str && !strcmp(s->key, "bootstrap_max_draws"))
			return stats_max_draws(s->num);
	}
	return STATS_BOOTSTRAP_BUDGET;
}

void result_summarize_ci(struct result *r, unsigned long long seed,
			 size_t resamples, const char *const *ci_metrics)
{
	struct rng rng;
	size_t budget = max_draws(r);

	/* One generator for the whole result, consumed in a fixed order, so
	 * the same seed always gives the same intervals. */
	rng_seed(&rng, seed);
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		struct benchmark *b = &r->benchmarks[i];

		for (size_t j = 0; j < b->nmetrics; j++) {
			struct metric *m = &b->metrics[j];
			bool ci = listed(ci_metrics, m->name);
			size_t n;
			double *v = metric_measured(m, &n);

			stats_summarize_budget(v, n, &rng, ci ? resamples : 0,
					       budget, &m->summary);
			free(v);
			if (!ci)
				m->summary.mean_ci[0] = m->summary.mean_ci[1] =
				m->summary.median_ci[0] =
				m->summary.median_ci[1] = NAN;
			m->summarized = m->n;
		}
		/* every request's histogram over the sample's statistics */
		for (size_t j = 0; j < b->nhists; j++) {
			struct metric *m = benchmark_find_metric(
				b, b->hists[j].metric);

			if (m)
				metric_summarize_hdr(m, b->hists[j].h);
		}
	}
}

void result_summarize(struct result *r, unsigned long long seed,
		      size_t resamples)
{
	result_summarize_ci(r, seed, resamples, NULL);
}

void benchmark_set_histogram(struct benchmark *b, const char *metric,
			     const struct hdr *h)
{
	int64_t lo, hi;
	int sig;
	struct hdr *copy;
	size_t i;

	hdr_params(h, &lo, &hi, &sig);
	copy = hdr_new(lo, hi, sig);
	hdr_merge(copy, h);
	for (i = 0; i < b->nhists; i++)
		if (!strcmp(b->hists[i].metric, metric))
			break;
	if (i == b->nhists) {
		b->hists = xrealloc(b->hists, (b->nhists + 1) *
				    sizeof(*b->hists));
		b->hists[b->nhists++].metric = xstrdup(metric);
	} else {
		hdr_free(b->hists[i].h);
	}
	b->hists[i].h = copy;
}

const struct hdr *benchmark_histogram(const struct benchmark *b,
				      const char *metric)
{
	for (size_t i = 0; i < b->nhists; i++)
		if (!strcmp(b->hists[i].metric, metric))
			return b->hists[i].h;
	return NULL;
}

void load_detail_set_count(struct load_detail *d, const char *key, double v)
{
	for (size_t i = 0; i < d->ncounts; i++) {
		if (!strcmp(d->counts[i].key, key)) {
			d->counts[i].value = v;
			return;
		}
	}
	d->counts = xrealloc(d->counts, (d->ncounts + 1) * sizeof(*d->counts));
	d->counts[d->ncounts].key = xstrdup(key);
	d->counts[d->ncounts++].value = v;
}

double load_detail_count(const struct load_detail *d, const char *key)
{
	for (size_t i = 0; i < d->ncounts; i++)
		if (!strcmp(d->counts[i].key, key))
			return d->counts[i].value;
	return NAN;
}

static double ns_to_s(int64_t ns)
{
	return (double)ns / 1e9;
}

/*
 * m's summary from h (ns; every request) over the one of its values
 * (which it needs: nothing is done without one): mean, stddev, min, max,
 * median, p25 ... p99 in seconds, and the extra keys count, p99_9,
 * p99_99. result_summarize does this for every metric with a histogram.
 */
static void metric_summarize_hdr(struct metric *m, const struct hdr *h)
{
	struct summary *s = &m->summary;

	metric_set_extra(m, "count", (double)hdr_count(h));
	if (!metric_has_summary(m) || hdr_count(h) == 0)
		return;
	s->mean = hdr_mean(h) / 1e9;
	s->stddev = hdr_stddev(h) / 1e9;
	s->min = ns_to_s(hdr_min(h));
	s->max = ns_to_s(hdr_max(h));
	s->median = ns_to_s(hdr_percentile(h, 50));
	s->p25 = ns_to_s(hdr_percentile(h, 25));
	s->p75 = ns_to_s(hdr_percentile(h, 75));
	s->p90 = ns_to_s(hdr_percentile(h, 90));
	s->p95 = ns_to_s(hdr_percentile(h, 95));
	s->p99 = ns_to_s(hdr_percentile(h, 99));
	metric_set_extra(m, "p99_9", ns_to_s(hdr_percentile(h, 99.9)));
	metric_set_extra(m, "p99_99", ns_to_s(hdr_percentile(h, 99.99)));
}

/* ", p < 0.001" or ", p = 0.012"; nothing when p is unknown. */
static void fmt_p(double p, char *buf, size_t n)
{
	if (!isfinite(p))
		buf[0] = '\0';
	else if (p < 0.001)
		snprintf(buf, n, ", p < 0.001");
	else
		snprintf(buf, n, ", p = %.3f", p);
}

/* fmt_p of p, and of p_adj after it where the family's correction
 * changed it: ", p = 0.004 (Holm: 0.020)". */
static void fmt_ps(double p, double p_adj, char *buf, size_t n)
{
	char adj[32];

	fmt_p(p, buf, n);
	/* (an adjusted p is never below its p: one that is, is none) */
	if (!isfinite(p) || !(p_adj > p) || (p < 0.001 && p_adj < 0.001))
		return;
	fmt_p(p_adj, adj, sizeof(adj));
	/* adj is ", p = X" or ", p < X": keep "X" or "< X" */
	snprintf(buf + strlen(buf), n - strlen(buf), " (Holm: %s%s)",
		 adj[4] == '<' ? "< " : "", adj + 6);
}

/* "1.52× [1.49, 1.55]" (x and its CI [lo, hi]), or less when unknown. */
static void fmt_factor(double x, double lo, double hi, char *factor,
		       size_t nf, char *ci, size_t nc)
{
	factor[0] = ci[0] = '\0';
	if (!isfinite(x) || x <= 0)
		return;
	snprintf(factor, nf, "%.2f× ", x);
	if (isfinite(lo) && isfinite(hi))
		snprintf(ci, nc, " [%.2f, %.2f]", lo, hi);
}

char *comparison_sentence(const struct comparison *c)
{
	bool wall = !strcmp(c->metric, METRIC_WALL_TIME) ||
		    !strcmp(c->metric, METRIC_TIME_PER_OP);
	bool faster = c->verdict == CMP_FASTER;
	double x = c->ratio, lo = c->ratio_ci[0], hi = c->ratio_ci[1];
	char p[96], factor[48], ci[64];

	fmt_ps(c->p_value, c->p_adjusted, p, sizeof(p));
	if (!faster && c->verdict != CMP_SLOWER) {
		fmt_factor(x, lo, hi, factor, sizeof(factor), ci, sizeof(ci));
		/* "2.00× " before a word; before the interval, "2.00×" */
		if (factor[0] && factor[strlen(factor) - 1] == ' ')
			factor[strlen(factor) - 1] = '\0';
		if (c->verdict != CMP_UNCHANGED)
			return xasprintf("'%s' against '%s'%s%s: %s, %s%s%s",
					 c->candidate, c->baseline,
					 wall ? "" : " in ", wall ? "" : c->metric,
					 cmp_verdict_name(c->verdict), factor,
					 ci, p);
		return xasprintf("no significant difference between '%s' and "
				 "'%s'%s%s%s", c->baseline, c->candidate,
				 wall ? "" : " in ", wall ? "" : c->metric, p);
	}
	if (faster) {
		/* The candidate is smaller: state it as a factor above one,
		 * its interval inverted and thus reordered. */
		x = 1 / c->ratio;
		lo = 1 / c->ratio_ci[1];
		hi = 1 / c->ratio_ci[0];
	}
	fmt_factor(x, lo, hi, factor, sizeof(factor), ci, sizeof(ci));
	if (wall)
		return xasprintf("'%s' is %s%s than '%s'%s%s", c->candidate,
				 factor, faster ? "faster" : "slower",
				 c->baseline, ci, p);
	return xasprintf("'%s' has %s%s %s than '%s'%s%s", c->candidate,
			 factor, faster ? "lower" : "higher", c->metric,
			 c->baseline, ci, p);
}

int benchmark_remove_metric(struct benchmark *b, const char *name)
{
	struct metric *m = benchmark_find_metric(b, name);
	size_t i;

	if (!m)
		return -1;
	i = (size_t)(m - b->metrics);
	free(m->name);
	free(m->unit);
	free(m->values);
	free(m->process);
	for (size_t k = 0; k < m->nextra; k++)
		free(m->extra[k].key);
	free(m->extra);
	memmove(m, m + 1, (b->nmetrics - i - 1) * sizeof(*m));
	b->nmetrics--;
	return 0;
}

size_t result_keep_benchmarks(struct result *r, const bool *keep)
{
	size_t k = 0;

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		if (!keep[i]) {
			benchmark_release(&r->benchmarks[i]);
			continue;
		}
		if (k != i)
			r->benchmarks[k] = r->benchmarks[i];
		k++;
	}
	r->nbenchmarks = k;
	return k;
}
