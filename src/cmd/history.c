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
#include "cmd/options.h"
#include "cmd/refs.h"
#include "util/json_emit.h"
#include "stats/changepoint.h"
#include "store/store.h"
#include "util/outputs.h"
#include "util/strutil.h"
#include "util/term.h"

static const char *const history_usage[] = { "[OPTIONS] [BENCHMARK]", NULL };

static const char history_description[] =
"The stored result sets, newest first: id, time, commit, branch,\n"
"benchmark, and the median and p99 of a metric. With --detect, the change\n"
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
	bool detect;
	double alpha;
};

#define OPT_STRUCT struct history_args
static const struct opt_entry history_options[] = {
	{ OPT_STRING('m', "metric", q.metric), .metavar = "M",
	  .help = "the metric shown (default wall_time; peak_heap, latency "
	  "or time_per_op when the store holds only mem, load or bench "
	  "results)" },
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

static void print_rows(const struct store_entry *v, size_t n,
		       const char *unit, FILE *fp)
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
		term_pad(fp, fmt_value(v[i].summary.median, unit, med,
				       sizeof(med)), 11, true);
		fputc(' ', fp);
		term_pad(fp, fmt_value(v[i].summary.p99, unit, p99,
				       sizeof(p99)), 11, true);
		fputc('\n', fp);
	}
	if (!n)
		fputs("no stored results match\n", fp);
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Outside text as a JSON string, bytes that are not UTF-8 as U+FFFD
 * (json_string would refuse it and the key would go missing). */
static json_t *jstr(const char *s)
{
	return s ? json_text(s) : json_null();
}

/* Entries grouped by result id, in the order they come. */
static json_t *history_json(const struct store_entry *v, size_t n,
			    const char *metric)
{
	json_t *root = json_object(), *results = json_array(), *cur = NULL;
	long long cur_id = -1;

	for (size_t i = 0; i < n; i++) {
		json_t *b;

		if (v[i].id != cur_id) {
			cur = json_object();
			json_object_set_new(cur, "id", json_integer(v[i].id));
			json_object_set_new(cur, "created", jstr(v[i].created));
			json_object_set_new(cur, "commit", jstr(v[i].commit));
			json_object_set_new(cur, "branch", jstr(v[i].branch));
			json_object_set_new(cur, "dirty",
					    json_boolean(v[i].dirty));
			json_object_set_new(cur, "machine",
					    jstr(v[i].machine));
			json_object_set_new(cur, "benchmarks", json_array());
			json_array_append_new(results, cur);
			cur_id = v[i].id;
		}
		b = json_object();
		json_object_set_new(b, "name", jstr(v[i].benchmark));
		json_object_set_new(b, "metric", jstr(metric));
		json_object_set_new(b, "n", json_integer((json_int_t)v[i].n));
		json_object_set_new(b, "median", jnum(v[i].summary.median));
		json_object_set_new(b, "p99", jnum(v[i].summary.p99));
		json_object_set_new(b, "mean", jnum(v[i].summary.mean));
		json_array_append_new(json_object_get(cur, "benchmarks"), b);
	}
	json_object_set_new(root, "results", results);
	return root;
}

static void print_change_points(const struct store_entry *v, size_t n,
				const struct change_point *cp, size_t ncp,
				const char *unit, FILE *fp)
{
	char a[32], b[32];

	char commit[13];

	fprintf(fp, "%zu change point%s in %zu results of '", ncp,
		ncp == 1 ? "" : "s", n);
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
	struct cp_opts o = { .alpha = a->alpha, .permutations = 199,
			     .min_size = 3 };
	struct change_point *cp = NULL;
	size_t ncp = 0;
	struct rng rng;

	for (size_t i = 0; i < n; i++)
		x[i] = v[i].summary.median;
	rng_seed(&rng, 1);
	cp_detect(x, n, &o, &rng, &cp, &ncp);
	print_change_points(v, n, cp, ncp, unit, fp);
	free(cp);
	free(x);
	return 0;
}

static const char *unit_guess(const char *metric)
{
	if (!strcmp(metric, "peak_rss") || !strcmp(metric, "peak_heap") ||
	    !strcmp(metric, "leaked_bytes"))
		return "bytes";
	if (strstr(metric, "time") || !strcmp(metric, "task_clock") ||
	    !strcmp(metric, "latency"))
		return "s";
	return "count";
}

/* What --json writes: the rows of one metric. */
struct history_rows {
	struct store_entry *v;
	size_t n;
	const char *metric;
};

static int write_json(const char *path, void *rows, struct error *e)
{
	const struct history_rows *h = rows;

	return json_write_file(history_json(h->v, h->n, h->metric), path, e);
}

int cmd_history(int argc, char **argv)
{
	struct history_args a = { 0 };
	struct store_entry *v = NULL;
	struct history_rows rows = { 0 };
	struct output_set outs;
	struct store *s;
	struct error e;
	size_t n = 0;
	char *path;
	int ret;

	static const char *const headline[] = { "wall_time", "peak_heap",
						"latency", "time_per_op" };
	bool chosen;

	ret = parse(&a, argc, argv);
	if (ret)
		return ret == 1 ? 0 : ret;
	outputs_init(&outs);
	outputs_add(&outs, "--json", a.json, "json", write_json, &rows);
	ret = check_output_set(&outs, "yardstick history");
	if (ret)
		goto out;
	chosen = a.q.metric != NULL;
	/* --limit keeps the newest results, for --detect too: they are
	 * put in time order after the query. */
	a.q.oldest_first = false;
	ret = ref_open_store(&s, a.store, STORE_READ, &path, &e);
	free(path);
	if (ret) {
		fprintf(stderr, "yardstick history: %s\n", e.msg);
		ret = ref_store_exit(ret);
		goto out;
	}
	/* no -m: the headline metric of run, then of mem, of load, of
	 * bench results, whichever the store holds */
	for (size_t i = 0; i < sizeof(headline) / sizeof(*headline); i++) {
		if (!chosen)
			a.q.metric = headline[i];
		ret = store_history(s, &a.q, &v, &n, &e);
		if (ret || n || chosen)
			break;
	}
	store_close(s);
	if (ret) {
		fprintf(stderr, "yardstick history: %s\n", e.msg);
		ret = ref_store_exit(ret);
		goto out;
	}
	if (a.detect) {
		reverse(v, n);
		ret = detect(&a, v, n, unit_guess(a.q.metric),
			     outputs_report_fp(&outs));
	} else {
		print_rows(v, n, unit_guess(a.q.metric),
			   outputs_report_fp(&outs));
	}
	rows = (struct history_rows){ v, n, a.q.metric };
	if (!ret)
		ret = write_output_set(&outs, "yardstick history");
	store_entries_free(v, n);
out:
	outputs_free(&outs);
	return ret;
}
