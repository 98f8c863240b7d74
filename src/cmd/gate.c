/*
 * `yardstick gate`: fail a CI job when a metric regressed beyond a
 * threshold with statistical confidence. Thresholds come from the command
 * line and from the [gate] sections of yardstick.ini.
 */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "engine/gate_config.h"
#include "util/options.h"
#include "engine/refs.h"
#include "result/gate.h"
#include "stats/shift.h"
#include "util/outputs.h"
#include "util/strutil.h"

static const char *const gate_usage[] = { "--baseline REF [OPTIONS] [NEW]",
					   NULL };

static const char gate_description[] =
"Check the candidate result set NEW (default: latest in the store)\n"
"against the baseline REF and fail when a threshold is broken.\n"
"The report goes to stdout; to stderr when an output is stdout (- as a\n"
"FILE), so that stdout holds that output alone.\n";

static const char gate_epilog[] =
"A --max-increase is broken when the change is significantly beyond it:\n"
"a one-sided test rejects \"the change is within the threshold\" at\n"
"alpha. Every check, as compare and report, is judged by one function\n"
"(docs/statistics.md): quantiles are Harrell-Davis estimates, printed as\n"
"tested; the test is a studentized permutation test (the candidate moved\n"
"back by the threshold, the samples pooled, p the share of relabellings\n"
"at least as extreme; exact when nothing changed, at any size), or for\n"
"large untied samples a normal test; the 95% interval is the test's and\n"
"holds the estimate. All checks of one invocation are one family: with\n"
"--correction holm (default) a check fails when its Holm-adjusted p is\n"
"below alpha, so a gate raises a false alarm at most alpha of the time\n"
"when nothing changed; the report shows p and the adjusted p. A change\n"
"beyond the threshold that is not significant passes with a note of\n"
"about how many runs would tell. A --max-decrease likewise for a fall.\n"
"A check is inconclusive when no test could decide (fewer than 5 runs a\n"
"side at alpha 0.01; no check of the gate able to get below alpha over\n"
"the number of checks, as Holm's correction asks of the first; one run a\n"
"side of a noisy metric; one process on a side when the values name\n"
"their processes), and says how many runs would do; a deterministic\n"
"measure no test can decide is judged on its values. Intervals of tail\n"
"quantiles of few runs (p95 under 20, p99 under 100 a side) and of the\n"
"normal test are marked approximate. A --limit is broken when the candidate's statistic is above it.\n"
"Benchmarks are matched by name and parameters; a result that holds one\n"
"twice is refused.\n"
"\n"
"yardstick.ini:\n"
"  [gate]\n"
"  alpha = 0.01\n"
"  inconclusive = fail          ; or pass\n"
"  missing = fail               ; or pass\n"
"  correction = holm            ; or none\n"
"  max-increase = wall_time.p99=15ms\n"
"  max-increase = peak_rss=10%\n"
"  limit = wall_time.p99=200ms\n"
"  [gate \"sort*\"]              ; only benchmarks matching the pattern\n"
"  max-increase = wall_time=5%\n"
"\n"
"Exit status: 0 every check passed; 1 a regression, or a check that is\n"
"inconclusive or cannot be made (unless allowed); 2 bad usage or input\n"
"(a result that cannot be read or found, or holds a benchmark twice, a\n"
"malformed threshold); 3 the store is locked, unreadable or another\n"
"user's, or SQLite or libpq cannot be loaded or a\n"
"PostgreSQL store's server reached.\n";

struct gate_args {
	const char *baseline, *candidate, *store;
	const char *markdown, *junit, *bmf, *json;
	struct gate_config cfg;
	bool quiet;
};

/* --max-increase, --max-decrease, --limit: .data is the kind. */
static int opt_threshold(void *args, const struct opt_entry *o,
			 const char *arg, struct error *e)
{
	struct gate_args *a = args;

	return gate_config_add(&a->cfg, arg, (enum gate_kind)o->data, NULL,
			       e);
}

#define OPT_STRUCT struct gate_args
static const struct opt_entry gate_options[] = {
	{ OPT_STRING('b', "baseline", baseline), .metavar = "REF",
	  .help = "the baseline: a JSON file (yardstick, hyperfine, Google "
	  "Benchmark), latest, a result id, @COMMIT or branch:NAME" },
	{ OPT_CALLBACK(0, "max-increase", opt_threshold),
	  .data = GATE_INCREASE, .metavar = "SPEC",
	  .help = "METRIC[.STAT]=VALUE: the statistic (mean, median "
	  "(default), p90, p95, p99, min, max) may not grow by more than "
	  "VALUE: 15ms, 10%, 64KiB, 2k/s, 1000. VALUE carries a unit of "
	  "the metric's kind: a time s ms us ns, a size B KiB MiB GiB kB MB "
	  "GB, a rate /s k/s M/s G/s or B/s KiB/s MiB/s MB/s; % for any; a "
	  "bare number only for counts and ratios (and 0). Repeatable" },
	{ OPT_CALLBACK(0, "max-decrease", opt_threshold),
	  .data = GATE_DECREASE, .metavar = "SPEC",
	  .help = "METRIC[.STAT]=VALUE: the statistic may not fall by more "
	  "than VALUE (for metrics where more is better: throughput=5%). "
	  "Repeatable" },
	{ OPT_CALLBACK(0, "limit", opt_threshold), .data = GATE_LIMIT,
	  .metavar = "SPEC", .help = "METRIC[.STAT]=VALUE: an absolute "
	  "ceiling of the candidate's statistic. Repeatable" },
	{ GATE_CONFIG_OPT(cfg.) },
	GATE_SETTING_OPTS(cfg.),
	{ OPT_STORE_READ(store) },
	{ OPT_OUTPUT(0, "json", json), .help = "the checks and the "
	  "summary as JSON, for scripts (- for stdout)" },
	{ OPT_OUTPUT(0, "markdown", markdown), .help = "the report for a "
	  "pull-request comment or $GITHUB_STEP_SUMMARY (- for stdout)" },
	{ OPT_OUTPUT(0, "junit", junit),
	  .help = "JUnit XML, one test case per check" },
	{ OPT_OUTPUT(0, "bmf", bmf),
	  .help = "the candidate in Bencher Metric Format" },
	{ OPT_QUIET(quiet, "no terminal report") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void gate_init(void *args)
{
	gate_config_init(&((struct gate_args *)args)->cfg);
}

const struct opt_cmd gate_cmd = {
	.name = "gate",
	.summary = "fail CI when a metric regressed beyond a threshold, "
		   "significantly",
	.usage = gate_usage,
	.description = gate_description,
	.epilog = gate_epilog,
	.mode = OPT_PERMUTE,
	.opts = gate_options,
	.args_size = sizeof(struct gate_args),
	.init = gate_init,
};

static int read_config(struct gate_args *a)
{
	struct error e;

	if (gate_config_read(&a->cfg, &e)) {
		fprintf(stderr, "yardstick gate: %s\n", e.msg);
		return 2;
	}
	return 0;
}

static int parse(struct gate_args *a, int argc, char **argv)
{
	struct opt_rest rest;
	int ret;

	if (!opt_parse_or_exit(&gate_cmd, argc, argv, a, &rest, &ret))
		return ret ? ret : 1;
	if (rest.end - rest.first > 1) {
		fputs("yardstick gate: at most one candidate result set\n",
		      stderr);
		return 2;
	}
	a->candidate = rest.end > rest.first ? argv[rest.first] : "latest";
	return 0;
}

static int check_args(struct gate_args *a)
{
	bool increase = false;

	for (size_t i = 0; i < a->cfg.nt; i++)
		increase |= a->cfg.t[i].kind != GATE_LIMIT;
	if (!a->cfg.nt) {
		fputs("yardstick gate: no threshold: give --max-increase, "
		      "--max-decrease or --limit, or a [gate] section in "
		      "yardstick.ini\n",
		      stderr);
		return 2;
	}
	if (increase && !a->baseline) {
		fputs("yardstick gate: --max-increase needs --baseline REF\n",
		      stderr);
		return 2;
	}
	return 0;
}

static int write_bmf(const char *path, void *cand, struct error *e)
{
	/* BMF carries medians and their CIs: summarize now. */
	result_summarize(cand, 1, 1000);
	return result_write_bmf(cand, path, e);
}

static int write_markdown(const char *path, void *rep, struct error *e)
{
	return gate_write_markdown(rep, path, e);
}

static int write_json(const char *path, void *rep, struct error *e)
{
	return gate_write_json(rep, path, e);
}

static int write_junit(const char *path, void *rep, struct error *e)
{
	return gate_write_junit(rep, path, e);
}

struct loader {
	const char *ref, *store;
	struct result r;
	struct error e;
	int ret;
};

static void *load_thread(void *arg)
{
	struct loader *l = arg;

	l->ret = ref_load_values(l->ref, l->store, &l->r, &l->e);
	return NULL;
}

/*
 * Load the baseline (if any) and the candidate, the baseline in a second
 * thread: parsing two files of 100,000 runs is most of what a gate costs,
 * and the two are independent.
 */
static int load_both(struct gate_args *a, struct loader *base,
		     struct loader *cand)
{
	pthread_t th;
	bool threaded = false;

	base->ref = a->baseline;
	cand->ref = a->candidate;
	base->store = cand->store = a->store;
	json_object_seed(0);	/* before any thread makes an object */
	if (a->baseline)
		threaded = pthread_create(&th, NULL, load_thread, base) == 0;
	if (a->baseline && !threaded)
		load_thread(base);
	load_thread(cand);
	if (threaded)
		pthread_join(th, NULL);
	if (base->ret == 0 && cand->ret == 0)
		return 0;
	if (base->ret)
		fprintf(stderr, "yardstick gate: baseline: %s\n", base->e.msg);
	if (cand->ret)
		fprintf(stderr, "yardstick gate: candidate: %s\n", cand->e.msg);
	return base->ret ? error_exit_code(&base->e)
			 : error_exit_code(&cand->e);
}

static int run_gate(struct gate_args *a)
{
	struct loader base = { 0 }, cand = { 0 };
	struct gate_report rep;
	struct gate_opts o;
	struct output_set outs;
	char *base_label, *cand_label;
	struct error e;
	int ret;

	outputs_init(&outs);
	outputs_add(&outs, "--json", a->json, "json", write_json, &rep);
	outputs_add(&outs, "--markdown", a->markdown, "markdown",
		    write_markdown, &rep);
	outputs_add(&outs, "--junit", a->junit, "junit", write_junit, &rep);
	outputs_add(&outs, "--bmf", a->bmf, "bmf", write_bmf, &cand.r);
	ret = check_output_set(&outs, "yardstick gate");
	if (ret) {
		outputs_free(&outs);
		return ret;
	}
	ret = load_both(a, &base, &cand);
	if (ret)
		goto out_free;
	gate_opts_init(&o);
	o.alpha = a->cfg.alpha;
	o.inconclusive_pass = a->cfg.inconclusive_pass > 0;
	o.missing_pass = a->cfg.missing_pass > 0;
	if (a->cfg.correction >= 0)
		o.correction = (enum judge_correction)a->cfg.correction;
	o.base_label = base_label = xasprintf("the baseline '%s'",
					      a->baseline ? a->baseline : "");
	o.cand_label = cand_label = xasprintf("the candidate '%s'",
					      a->candidate);
	ret = gate_evaluate(a->baseline ? &base.r : NULL, &cand.r, a->cfg.t, a->cfg.nt,
			    &o, &rep, &e);
	free(base_label);
	free(cand_label);
	/* A pattern may match none of this candidate's benchmarks (one
	 * yardstick.ini for several suites), but a gate whose patterns all
	 * match none checked nothing: that is no pass. */
	if (!ret && !rep.n)
		ret = error_set(&e, "no check was made: no benchmark of the "
				"candidate matches the pattern of any "
				"threshold ('%s' for '%s')", a->cfg.t[0].text,
				a->cfg.t[0].pattern ? a->cfg.t[0].pattern
				: "*");
	if (ret) {
		fprintf(stderr, "yardstick gate: %s\n", e.msg);
		ret = 2;
	} else {
		if (!a->quiet)
			gate_print(&rep, outputs_report_fp(&outs));
		ret = write_output_set(&outs, "yardstick gate");
		if (!ret && rep.failed)
			ret = 1;
	}
	gate_report_free(&rep);
out_free:
	/* a failed load leaves an empty result: freeing it is harmless */
	result_free(&base.r);
	result_free(&cand.r);
	outputs_free(&outs);
	return ret;
}

int cmd_gate(int argc, char **argv)
{
	struct gate_args a = { 0 };
	int ret;

	ret = parse(&a, argc, argv);
	if (ret == 1) {		/* --help */
		ret = 0;
		goto out_free;
	}
	if (!ret)
		ret = read_config(&a);
	if (!ret)
		ret = check_args(&a);
	if (!ret)
		ret = run_gate(&a);
out_free:
	gate_config_free(&a.cfg);
	return ret;
}
