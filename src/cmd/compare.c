/* `yardstick compare BASE NEW`: two result sets, metric by metric. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "util/options.h"
#include "engine/refs.h"
#include "result/compare.h"
#include "result/metrics.h"
#include "stats/shift.h"
#include "util/outputs.h"
#include "util/strutil.h"

static const char *const compare_usage[] = { "[OPTIONS] BASE NEW", NULL };

static const char compare_description[] =
"Compare two result sets metric by metric: for each benchmark both have\n"
"(matched by name and parameters), the median, p90, p95 and p99 of each\n"
"metric on both sides (Harrell-Davis estimates), the change in % with its\n"
"95% interval, p and a verdict, each judged as 'yardstick gate' judges a\n"
"threshold of the noise level either way: slower when a gate of\n"
"--max-increase M.STAT=NOISE% would fail (a one-sided studentized\n"
"permutation test, or a normal one for large untied samples), faster for\n"
"--max-decrease. The comparison is one family: with --correction holm\n"
"(the default) the words slower and faster follow Holm's adjusted p over\n"
"all its tests, so that identical programs are called changed anywhere at\n"
"most alpha of the time; the footer says how many comparisons and tests\n"
"were made. Inconclusive when too few runs could show any change (fewer\n"
"than 5 a side at alpha 0.01; one run a side of a noisy metric). A '~'\n"
"marks an approximate interval (tail quantiles of few runs, large-sample\n"
"approximations). docs/statistics.md has the details. A result that\n"
"holds one benchmark twice (same name and parameters) is refused (exit\n"
"2); benchmarks on one side only are listed as such.\n"
"\n"
"BASE and NEW are result sets: a JSON file (yardstick's, hyperfine's\n"
"--export-json, Google Benchmark's --benchmark_out), or a reference into\n"
"the store: latest, a result id, @COMMIT, branch:NAME.\n"
"The report goes to stdout; to stderr when an output is stdout (- as a\n"
"FILE), so that stdout holds that output alone.\n";

static const char compare_epilog[] =
"Exit status: 0 compared (whatever the verdicts; see 'yardstick gate' to\n"
"fail a build); 2 bad usage, a result that cannot be read or found or\n"
"that holds a benchmark twice; 3 the store is locked, unreadable or\n"
"another user's, or SQLite or libpq cannot be loaded or a\n"
"PostgreSQL store's server reached.\n";

struct compare_args {
	struct compare_opts o;
	char **metrics;
	size_t nmetrics;
	const char *store, *json, *markdown;
	bool quiet;
};

static const struct opt_enum compare_corrections[] = {
	{ "holm", JUDGE_HOLM }, { "none", JUDGE_NO_CORRECTION }, { NULL, 0 },
};

#define OPT_STRUCT struct compare_args
static const struct opt_entry compare_options[] = {
	{ OPT_LIST('m', "metric", metrics, nmetrics), .metavar = "M",
	  .help = "compare only metric M (repeatable; default all)" },
	/* below the permutation test's reach: see shift.h */
	{ OPT_ALPHA(o.alpha, SHIFT_ALPHA_MIN, 0,
		    "significance level") },
	{ OPT_PERCENT(0, "noise", o.noise, 0, INFINITY),
	  .help = "noise threshold in percent" },
	{ OPT_ENUM(0, "correction", o.correction, compare_corrections),
	  .defval = "holm", .help = "holm: the verdicts of all the "
	  "comparisons together are wrong at most alpha of the time; none: "
	  "each on its own" },
	{ OPT_RESAMPLES(o.resamples, "unused; kept for old scripts") },
	{ OPT_SEED(o.seed, "unused; kept for old scripts") },
	{ OPT_STORE_READ(store) },
	{ OPT_OUTPUT(0, "json", json),
	  .help = "the comparison as JSON (- for stdout)" },
	{ OPT_OUTPUT(0, "markdown", markdown),
	  .help = "a table for a pull-request comment (- for stdout)" },
	{ OPT_QUIET(quiet, "no terminal report") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void compare_init(void *args)
{
	compare_opts_init(&((struct compare_args *)args)->o);
}

const struct opt_cmd compare_cmd = {
	.name = "compare",
	.summary = "compare two result sets metric by metric",
	.usage = compare_usage,
	.description = compare_description,
	.epilog = compare_epilog,
	.mode = OPT_PERMUTE,
	.opts = compare_options,
	.args_size = sizeof(struct compare_args),
	.init = compare_init,
};

static int parse(struct compare_args *a, int argc, char **argv,
		 struct opt_rest *rest)
{
	int ret;

	if (!opt_parse_or_exit(&compare_cmd, argc, argv, a, rest, &ret))
		return ret ? ret : 1;
	if (rest->end - rest->first != 2) {
		fputs("yardstick compare: give two result sets, BASE and NEW "
		      "(see 'yardstick compare --help')\n", stderr);
		return 2;
	}
	a->o.metrics = (const char *const *)a->metrics;
	return 0;
}

static int load(const char *ref, const char *store, struct result *r)
{
	struct error e;
	if (!ref_load(ref, store, r, &e))
		return 0;
	fprintf(stderr, "yardstick compare: %s\n", e.msg);
	return error_exit_code(&e);
}

/* Each --metric is a metric of some benchmark of base or cand, or one
 * the vocabulary knows (bench's alloc_bytes_per_op, which a program
 * without allocation counting has not): a typo (`-m wall_tme`) would
 * compare nothing and pass. Returns 0, or prints what it meant and
 * returns 2. */
static int check_metrics(const char *const *metrics, const struct result *base,
			 const struct result *cand)
{
	for (size_t i = 0; metrics && metrics[i]; i++) {
		const char *m = metrics[i], *near;

		if (result_has_metric(base, m) || result_has_metric(cand, m) ||
		    metrics_known(m))
			continue;
		near = result_metric_near(cand, m);
		if (!near)
			near = result_metric_near(base, m);
		fprintf(stderr, "yardstick compare: --metric '%s': no benchmark "
			"of either result has it", m);
		if (near)
			fprintf(stderr, "; did you mean '%s'?", near);
		fputc('\n', stderr);
		return 2;
	}
	return 0;
}

static int write_json(const char *path, void *rep, struct error *e)
{
	return compare_write_json(rep, path, e);
}

static int write_markdown(const char *path, void *rep, struct error *e)
{
	return compare_write_markdown(rep, path, e);
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = { 0 };
	struct result base, cand;
	struct compare_report rep;
	struct opt_rest rest;
	struct output_set outs;
	char *base_label = NULL, *cand_label = NULL;
	struct error e;
	int ret;

	outputs_init(&outs);
	ret = parse(&a, argc, argv, &rest);
	if (ret) {
		free(a.metrics);
		return ret == 1 ? 0 : ret;
	}
	outputs_add(&outs, "--json", a.json, "json", write_json, &rep);
	outputs_add(&outs, "--markdown", a.markdown, "markdown",
		    write_markdown, &rep);
	ret = check_output_set(&outs, "yardstick compare");
	if (ret)
		goto out_free;
	ret = load(argv[rest.first], a.store, &base);
	if (ret)
		goto out_free;
	ret = load(argv[rest.first + 1], a.store, &cand);
	if (ret) {
		result_free(&base);
		goto out_free;
	}
	ret = check_metrics(a.o.metrics, &base, &cand);
	if (ret)
		goto out_results;
	base_label = xasprintf("the baseline '%s'", argv[rest.first]);
	cand_label = xasprintf("the candidate '%s'", argv[rest.first + 1]);
	a.o.base_label = base_label;
	a.o.cand_label = cand_label;
	if (compare_results(&base, &cand, &a.o, &rep, &e)) {
		fprintf(stderr, "yardstick compare: %s\n", e.msg);
		ret = 2;
		goto out_results;
	}
	if (!a.quiet)
		compare_print(&rep, outputs_report_fp(&outs));
	ret = write_output_set(&outs, "yardstick compare");
	compare_report_free(&rep);
out_results:
	result_free(&base);
	result_free(&cand);
out_free:
	free(base_label);
	free(cand_label);
	free(a.metrics);
	outputs_free(&outs);
	return ret;
}
