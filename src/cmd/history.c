/*
 * `yardstick history`: the stored results over time, and with --detect the
 * points where one benchmark's performance changed.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "util/options.h"
#include "engine/refs.h"
#include "result/metrics.h"
#include "util/json_emit.h"
#include "stats/changepoint.h"
#include "store/store.h"
#include "util/outputs.h"
#include "util/strutil.h"
#include "util/suggest.h"
#include "util/term.h"

static const char *const history_usage[] = { "[OPTIONS] [BENCHMARK]", NULL };

static const char history_description[] =
"The stored result sets, newest first: id, time, commit, branch,\n"
"benchmark, and the median and p99 of a metric. A store of several kinds\n"
"of result gets a table per headline metric; benchmarks no table shows\n"
"are counted in a note. With --detect, the change\n"
"points of one benchmark's history: where its median moved, the commit\n"
"it appeared at, and the medians before and after.\n"
"The report goes to stdout; to stderr when an output is stdout (- as a\n"
"FILE), so that stdout holds that output alone.\n";

static const char history_epilog[] =
"Exit status: 0; 2 bad usage, no store, a corrupt store; 3 the store is\n"
"locked or unreadable, or belongs to another user, or SQLite or libpq\n"
"cannot be loaded or a PostgreSQL store's server reached.\n";

struct history_args {
	struct store_query q;
	const char *store, *json;
	bool detect, quiet;
	double alpha;
};

#define OPT_STRUCT struct history_args
static const struct opt_entry history_options[] = {
	{ OPT_STRING('m', "metric", q.metric), .metavar = "M",
	  .help = "the metric shown (default: each result's headline "
	  "metric, one table per metric: wall_time for run, time_per_op "
	  "for bench, latency for load and trace, peak_heap for mem, "
	  "flops_per_second or bytes_per_second for roofline)" },
	{ OPT_COUNT('n', "limit", q.limit, 1, LONG_MAX),
	  .help = "at most N rows" },
	{ OPT_STRING(0, "branch", q.branch), .metavar = "NAME",
	  .help = "only results from this branch" },
	{ OPT_STRING(0, "machine", q.machine), .metavar = "HOST",
	  .help = "only results measured on this host" },
	{ OPT_FLAG(0, "detect", detect), .help = "change points of BENCHMARK "
	  "(E-divisive means with a permutation test; about 5% of series "
	  "without any change get a false alarm at --alpha 0.05)" },
	{ OPT_ALPHA(alpha, 0, OPT_MIN_EXCL,
		    "significance of a change point") },
	{ OPT_STORE_READ(store) },
	{ OPT_OUTPUT(0, "json", json), .help = "{\"results\": [{\"id\", "
	  "\"created\", \"commit\", \"branch\", \"benchmarks\": [...]}]} (- "
	  "for stdout)" },
	{ OPT_QUIET(quiet, "no terminal report: no table, no change points "
		    "(--json is still written)") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void history_init(void *args)
{
	((struct history_args *)args)->alpha = 0.05;
}

const struct opt_cmd history_cmd = {
	.name = "history",
	.summary = "stored results over time, change points",
	.usage = history_usage,
	.description = history_description,
	.epilog = history_epilog,
	.mode = OPT_PERMUTE,
	.opts = history_options,
	.args_size = sizeof(struct history_args),
	.init = history_init,
};

static int parse(struct history_args *a, int argc, char **argv)
{
	struct opt_rest rest;
	int ret;

	if (!opt_parse_or_exit(&history_cmd, argc, argv, a, &rest, &ret))
		return ret ? ret : 1;
	if (rest.end - rest.first > 1) {
		fputs("yardstick history: at most one benchmark name\n",
		      stderr);
		return 2;
	}
	a->q.benchmark = rest.end > rest.first ? argv[rest.first] : NULL;
	if (a->detect && !a->q.benchmark) {
		fputs("yardstick history: --detect needs a BENCHMARK name\n",
		      stderr);
		return 2;
	}
	return 0;
}

static const char *orq(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static void print_rows(const struct store_entry *v, size_t n, FILE *fp)
{
	bool color = term_use_color(fp);

	fprintf(fp, "%s%6s  %-20s  %-8s  %-12s  %-30s %11s %11s%s\n",
		term_dim(color), "id", "time", "commit", "branch", "benchmark",
		"median", "p99", term_reset(color));
	for (size_t i = 0; i < n; i++) {
		char med[32], p99[32], commit[9];

		/* Everything but the id came from outside (the store, the
		 * result files, git): escaped for the terminal. */
		snprintf(commit, sizeof(commit), "%s", orq(v[i].commit, "-"));
		fprintf(fp, "%6lld  ", v[i].id);
		term_cell(fp, orq(v[i].created, "-"), 20);
		fputs("  ", fp);
		term_cell(fp, commit, 8);
		fprintf(fp, "%s ", v[i].dirty ? "*" : " ");
		term_cell(fp, orq(v[i].branch, "-"), 12);
		fputs("  ", fp);
		term_cell(fp, v[i].benchmark, 30);
		fputc(' ', fp);
		/* no run measured it (each timed out or failed): no value,
		 * never 0 */
		term_pad(fp, v[i].n ? fmt_value(v[i].summary.median, v[i].unit,
						med, sizeof(med)) : "-",
			 11, true);
		fputc(' ', fp);
		term_pad(fp, v[i].n ? fmt_value(v[i].summary.p99, v[i].unit,
						p99, sizeof(p99)) : "-",
			 11, true);
		fputc('\n', fp);
	}
}

/* Outside text as a JSON string, bytes that are not UTF-8 as U+FFFD
 * (json_string would refuse it and the key would go missing). */
static json_t *jstr(const char *s)
{
	return s ? json_text(s) : json_null();
}

/* A row of the view with its metric, for the JSON. */
struct row_ref {
	const struct store_entry *en;
	const char *metric;
	size_t order;		/* in the view: ties keep it */
};

static int newest_first(const void *x, const void *y)
{
	const struct row_ref *a = x, *b = y;

	if (a->en->id != b->en->id)
		return a->en->id < b->en->id ? 1 : -1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static json_t *result_json(const struct store_entry *en)
{
	json_t *cur = json_object();

	json_object_set_new(cur, "id", json_integer(en->id));
	json_object_set_new(cur, "kind", jstr(en->kind));
	json_object_set_new(cur, "created", jstr(en->created));
	json_object_set_new(cur, "commit", jstr(en->commit));
	json_object_set_new(cur, "branch", jstr(en->branch));
	json_object_set_new(cur, "dirty", json_boolean(en->dirty));
	json_object_set_new(cur, "machine", jstr(en->machine));
	json_object_set_new(cur, "benchmarks", json_array());
	return cur;
}

/* The rows of every section, grouped by result id, newest first; the
 * kinds left out as "notes". */
static json_t *history_json(const struct store_history_view *h)
{
	json_t *root = json_object(), *results = json_array(), *cur = NULL;
	json_t *notes = json_array();
	struct row_ref *r;
	size_t n = 0, k = 0;
	long long cur_id = -1;

	for (size_t s = 0; s < h->nsec; s++)
		n += h->sec[s].n;
	r = xcalloc(n + 1, sizeof(*r));
	for (size_t s = 0; s < h->nsec; s++)
		for (size_t i = 0; i < h->sec[s].n; i++, k++)
			r[k] = (struct row_ref){ &h->sec[s].v[i],
						 h->sec[s].metric, k };
	qsort(r, n, sizeof(*r), newest_first);
	for (size_t i = 0; i < n; i++) {
		const struct store_entry *en = r[i].en;
		json_t *b = json_object();

		if (en->id != cur_id) {
			cur = result_json(en);
			json_array_append_new(results, cur);
			cur_id = en->id;
		}
		json_object_set_new(b, "name", jstr(en->benchmark));
		json_object_set_new(b, "metric", jstr(r[i].metric));
		json_object_set_new(b, "unit", jstr(en->unit));
		json_object_set_new(b, "n", json_integer((json_int_t)en->n));
		json_object_set_new(b, "median", en->n ? json_number(
			en->summary.median) : json_null());
		json_object_set_new(b, "p99", en->n ? json_number(
			en->summary.p99) : json_null());
		json_object_set_new(b, "mean", en->n ? json_number(
			en->summary.mean) : json_null());
		json_array_append_new(json_object_get(cur, "benchmarks"), b);
	}
	free(r);
	for (size_t i = 0; i < h->nunshown; i++)
		if (h->unshown[i].n)
			json_array_append_new(notes, json_pack("{s:o,s:I}",
				"kind", jstr(h->unshown[i].kind),
				"benchmarks_not_shown",
				(json_int_t)h->unshown[i].n));
	json_object_set_new(root, "results", results);
	json_object_set_new(root, "not_shown", notes);
	return root;
}

static void print_change_points(const struct store_entry *v, size_t n,
				const struct change_point *cp, size_t ncp,
				const char *unit, FILE *fp)
{
	char a[32], b[32];

	char commit[13];

	fprintf(fp, "%zu change point%s in %zu result%s of '", ncp,
		plural_s(ncp), n, plural_s(n));
	term_puts(fp, n ? v[0].benchmark : "");
	fputs("':\n", fp);
	for (size_t i = 0; i < ncp; i++) {
		const struct store_entry *at = &v[cp[i].index];

		snprintf(commit, sizeof(commit), "%s", orq(at->commit, "-"));
		fprintf(fp, "  at result %lld (", at->id);
		term_puts(fp, orq(at->created, "?"));
		fputs(", commit ", fp);
		term_puts(fp, commit);
		fprintf(fp, "%s): median ", at->dirty ? "*" : "");
		term_puts(fp, fmt_value(cp[i].before, unit, a, sizeof(a)));
		fputs(" → ", fp);
		term_puts(fp, fmt_value(cp[i].after, unit, b, sizeof(b)));
		fprintf(fp, " (%+.1f%%), p = %.3f\n",
			cp[i].before ? 100 * (cp[i].after / cp[i].before - 1)
				     : 0, cp[i].p_value);
	}
}

static void reverse(struct store_entry *v, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		struct store_entry t = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
}

static int detect(const struct history_args *a, const struct store_entry *v,
		  size_t n, const char *unit, FILE *fp)
{
	double *x = xcalloc(n + 1, sizeof(double));
	size_t *at = xcalloc(n + 1, sizeof(size_t)), m = 0;
	struct cp_opts o = { .alpha = a->alpha, .permutations = 199,
			     .min_size = 3 };
	struct change_point *cp = NULL;
	size_t ncp = 0;
	struct rng rng;

	/* the results that measured it: one whose runs all timed out or
	 * failed has no median (not 0, which would be a change) */
	for (size_t i = 0; i < n; i++)
		if (v[i].n) {
			x[m] = v[i].summary.median;
			at[m++] = i;
		}
	rng_seed(&rng, 1);
	cp_detect(x, m, &o, &rng, &cp, &ncp);
	for (size_t i = 0; i < ncp; i++)
		cp[i].index = at[cp[i].index];
	print_change_points(v, n, cp, ncp, unit, fp);
	free(cp);
	free(at);
	free(x);
	return 0;
}

/* Whether some stored result has metric, whatever benchmark, branch or
 * machine: an empty history of a metric the vocabulary does not know may
 * be the filters' (`history --branch x -m items`), not a typo. */
static bool stored_metric(struct store *s, const char *metric)
{
	const char *const metrics[] = { metric, NULL };
	struct store_query q = { .metric = metric, .limit = 1 };
	struct store_history_view v = { 0 };
	struct error e;
	bool has = !store_history_view(s, &q, metrics, &v, &e) && v.nsec;

	store_history_view_free(&v);
	return has;
}

/* -m M that no stored result has and the vocabulary does not know: a
 * typo (`-m wall_tme`) that would show an empty history. */
static void unknown_metric(const char *metric)
{
	size_t n;
	const struct metric_info *t = metrics_table(&n);
	const char **names = xcalloc(n + 1, sizeof(*names));
	const char *near;

	for (size_t i = 0; i < n; i++)
		names[i] = t[i].name;
	near = suggest_closest(metric, names, n);
	fputs("yardstick history: -m '", stderr);
	term_puts(stderr, metric);
	fputs("': no stored result has that metric", stderr);
	if (near)
		fprintf(stderr, "; did you mean '%s'?\n", near);
	else
		fputs(" (yardstick history, without -m, shows each result's "
		      "headline metric)\n", stderr);
	free(names);
}

/* --detect of a benchmark no stored result has (with the metric shown):
 * say so, with the name of the store's it most likely meant. */
static void no_such_benchmark(struct store *s, const struct history_args *a,
			      const char *const *metrics)
{
	struct store_query q = a->q;
	struct store_history_view all = { 0 };
	const char **names = NULL, *near = NULL;
	size_t n = 0;
	struct error e;

	q.benchmark = NULL;
	q.limit = 0;
	if (!store_history_view(s, &q, metrics, &all, &e)) {
		for (size_t i = 0; i < all.nsec; i++) {
			names = xrealloc(names, (n + all.sec[i].n + 1) *
					 sizeof(*names));
			for (size_t k = 0; k < all.sec[i].n; k++)
				names[n++] = all.sec[i].v[k].benchmark;
		}
		near = n ? suggest_closest(a->q.benchmark, names, n) : NULL;
	}
	fputs("yardstick history: --detect: no stored result has a "
	      "benchmark '", stderr);
	term_puts(stderr, a->q.benchmark);
	fputc('\'', stderr);
	if (a->q.metric) {
		fputs(" with metric ", stderr);
		term_puts(stderr, a->q.metric);
	}
	if (near) {
		fputs("; did you mean '", stderr);
		term_puts(stderr, near);
		fputs("'?\n", stderr);
	} else {
		fputs(" ('yardstick history' lists them)\n", stderr);
	}
	free(names);
	store_history_view_free(&all);
}

/* What --json writes: the view. */
static int write_json(const char *path, void *view, struct error *e)
{
	return json_write_file(history_json(view), path, e);
}

/* The kinds of result in a section: "run", "load, trace". */
static void kinds_of(const struct store_history_section *sec, char *buf,
		     size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sec->n && len + 1 < n; i++) {
		const char *k = sec->v[i].kind;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(sec->v[j].kind, k);
		if (!seen)
			len += (size_t)snprintf(buf + len, n - len, "%s%s",
						len ? ", " : "", k);
	}
}

/* The table: one section per metric, each headed by its metric when
 * there are several; then a note per kind of result left out. */
static void print_view(const struct store_history_view *h,
		       const char *const *metrics, FILE *fp)
{
	for (size_t s = 0; s < h->nsec; s++) {
		char kinds[128];

		if (h->nsec > 1) {
			kinds_of(&h->sec[s], kinds, sizeof(kinds));
			fprintf(fp, "%s", s ? "\n" : "");
			term_puts(fp, h->sec[s].metric);
			fputs(" (", fp);
			term_puts(fp, kinds);
			fputs(" results):\n", fp);
		}
		print_rows(h->sec[s].v, h->sec[s].n, fp);
	}
	if (!h->nsec)
		fputs("no stored results match\n", fp);
	for (size_t i = 0; i < h->nunshown; i++) {
		if (!h->unshown[i].n)
			continue;
		fprintf(fp, "note: %zu benchmark%s of ", h->unshown[i].n,
			plural_s(h->unshown[i].n));
		term_puts(fp, h->unshown[i].kind);
		fputs(" results not shown: no metric ", fp);
		for (size_t m = 0; metrics[m]; m++)
			fprintf(fp, "%s%s", m ? (metrics[m + 1] ? ", " :
						  " or ") : "", metrics[m]);
		fputs(" (choose one with -m)\n", fp);
	}
}

int cmd_history(int argc, char **argv)
{
	struct history_args a = { 0 };
	struct store_history_view view = { 0 };
	struct output_set outs;
	const char *chosen[2] = { NULL, NULL };
	const char *const *metrics;
	struct store *s;
	struct error e;
	char *path;
	int ret;

	ret = parse(&a, argc, argv);
	if (ret)
		return ret == 1 ? 0 : ret;
	outputs_init(&outs);
	outputs_add(&outs, "--json", a.json, "json", write_json, &view);
	ret = check_output_set(&outs, "yardstick history");
	if (ret)
		goto out;
	/* no -m: each result under its kind's headline metric */
	chosen[0] = a.q.metric;
	metrics = a.q.metric ? chosen : metrics_headlines();
	/* --limit keeps the newest results, for --detect too: they are
	 * put in time order after the query. */
	a.q.oldest_first = false;
	ret = ref_open_store(&s, a.store, STORE_READ, &path, &e);
	free(path);
	if (ret) {
		fprintf(stderr, "yardstick history: %s\n", e.msg);
		ret = error_exit_code(&e);
		goto out;
	}
	ret = store_history_view(s, &a.q, metrics, &view, &e);
	if (!ret && !view.nsec && a.q.metric && !metrics_known(a.q.metric) &&
	    !stored_metric(s, a.q.metric)) {
		unknown_metric(a.q.metric);
		store_close(s);
		ret = 2;
		goto out_view;
	}
	if (!ret && a.detect && !view.nsec) {
		no_such_benchmark(s, &a, metrics);
		store_close(s);
		ret = 2;
		goto out_view;
	}
	store_close(s);
	if (ret) {
		fprintf(stderr, "yardstick history: %s\n", e.msg);
		ret = error_exit_code(&e);
		goto out;
	}
	if (a.quiet) {
		/* nothing to show: no change points to look for either */
	} else if (a.detect) {
		struct store_history_section none = { 0 };
		struct store_history_section *sec =
			view.nsec ? &view.sec[0] : &none;

		reverse(sec->v, sec->n);
		ret = detect(&a, sec->v, sec->n, sec->n ? sec->v[0].unit :
			     "count", outputs_report_fp(&outs));
		reverse(sec->v, sec->n);
	} else {
		print_view(&view, metrics, outputs_report_fp(&outs));
	}
	if (!ret)
		ret = write_output_set(&outs, "yardstick history");
out_view:
	store_history_view_free(&view);
out:
	outputs_free(&outs);
	return ret;
}
