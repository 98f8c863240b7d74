/*
 * `yardstick gate`: fail a CI job when a metric regressed beyond a
 * threshold with statistical confidence. Thresholds come from the command
 * line and from the [gate] sections of yardstick.ini.
 */
#include <ini.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/options.h"
#include "cmd/refs.h"
#include "result/gate.h"
#include "stats/shift.h"
#include "util/outputs.h"
#include "util/strutil.h"

static const char *const gate_usage[] = { "--baseline REF [OPTIONS] [NEW]",
					   NULL };

static const char gate_description[] =
"Check the candidate result set NEW (default: latest in the store)\n"
"against the baseline REF and fail when a threshold is broken.\n";

static const char gate_epilog[] =
"A --max-increase is broken when the change is significantly beyond it:\n"
"a one-sided test rejects \"the change is within the threshold\" at\n"
"alpha; p is that test's. Up to 2,000 runs on both sides together (and\n"
"for tail quantiles of small samples, min and max), the test is a\n"
"permutation test of the statistic (of quantiles, their Harrell-Davis\n"
"estimate): the candidate is moved back by the threshold (minus 15ms, or\n"
"divided by 1.10 for 10%), the two samples pooled, and p is the share of\n"
"relabellings whose statistic differs at least as much (all of them up\n"
"to 7 runs a side, else up to 6/alpha random ones); with no change it\n"
"raises a false alarm at most alpha of the time at any number of runs,\n"
"however heavy the tails. It uses every run: with 10 runs a side, each\n"
"candidate run 15 ms above each baseline run fails wall_time.p99=15ms.\n"
"Beyond 2,000 runs, a normal test with standard errors of quantiles from\n"
"their distribution-free intervals and of means from the variance. The\n"
"change's 95% interval is the test's (the thresholds the permutation\n"
"test does not reject, or +-1.96 standard errors), and a change beyond\n"
"the threshold that is not significant passes with a note of about how\n"
"many runs would tell. A --max-decrease likewise for a fall. With fewer\n"
"runs than any test could decide on (under 5 a side at alpha 0.01) a\n"
"check is inconclusive, and the report says how many runs would do; with\n"
"one value each (a deterministic measure) the change itself decides. A\n"
"--limit is broken when the candidate's statistic is above it.\n"
"Benchmarks are matched by name and parameters; a result that holds one\n"
"twice is refused.\n"
"\n"
"yardstick.ini:\n"
"  [gate]\n"
"  alpha = 0.01\n"
"  inconclusive = fail          ; or pass\n"
"  missing = fail               ; or pass\n"
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
"user's, or SQLite cannot be loaded.\n";

struct gate_args {
	const char *baseline, *candidate, *config, *store;
	const char *markdown, *junit, *bmf;
	struct gate_threshold *t;
	size_t nt;
	double alpha;
	bool alpha_given, quiet;
	int inconclusive_pass, missing_pass;	/* -1: not given */
	char err[1200];		/* from the ini handler */
};

static int add_threshold(struct gate_args *a, const char *spec,
			 enum gate_kind kind, const char *pattern,
			 struct error *e)
{
	a->t = xrealloc(a->t, (a->nt + 1) * sizeof(*a->t));
	if (gate_parse(spec, kind, pattern, &a->t[a->nt], e))
		return -1;
	a->nt++;
	return 0;
}

static int add(struct gate_args *a, const char *spec, enum gate_kind kind,
	       const char *pattern, const char *where)
{
	struct error e;

	if (add_threshold(a, spec, kind, pattern, &e)) {
		snprintf(a->err, sizeof(a->err), "%s: %s", where, e.msg);
		return -1;
	}
	return 0;
}

/* --max-increase, --max-decrease, --limit: .data is the kind. */
static int opt_threshold(void *args, const struct opt_entry *o,
			 const char *arg, struct error *e)
{
	return add_threshold(args, arg, (enum gate_kind)o->data, NULL, e);
}

static const struct opt_enum gate_pass_fail[] = {
	{ "fail", 0 }, { "pass", 1 }, { NULL, 0 },
};

#define OPT_STRUCT struct gate_args
static const struct opt_entry gate_options[] = {
	{ OPT_STRING('b', "baseline", baseline), .metavar = "REF",
	  .help = "the baseline: a JSON file (yardstick, hyperfine, Google "
	  "Benchmark), latest, a result id, @COMMIT or branch:NAME" },
	{ OPT_CALLBACK(0, "max-increase", opt_threshold),
	  .data = GATE_INCREASE, .metavar = "SPEC",
	  .help = "METRIC[.STAT]=VALUE: the statistic (mean, median "
	  "(default), p90, p95, p99, min, max) may not grow by more than "
	  "VALUE: 15ms, 10%, 64KiB, 1000 (units s ms us ns, B KiB MiB GiB, "
	  "%, none for counts). Repeatable" },
	{ OPT_CALLBACK(0, "max-decrease", opt_threshold),
	  .data = GATE_DECREASE, .metavar = "SPEC",
	  .help = "METRIC[.STAT]=VALUE: the statistic may not fall by more "
	  "than VALUE (for metrics where more is better: throughput=5%). "
	  "Repeatable" },
	{ OPT_CALLBACK(0, "limit", opt_threshold), .data = GATE_LIMIT,
	  .metavar = "SPEC", .help = "METRIC[.STAT]=VALUE: an absolute "
	  "ceiling of the candidate's statistic. Repeatable" },
	{ OPT_PATH(0, "config", config), .help = "thresholds from the [gate] "
	  "sections of FILE (default: yardstick.ini, if present)" },
	{ OPT_ALPHA(alpha, SHIFT_ALPHA_MIN, 0, "significance level"),
	  OPT_SETS(alpha_given) },
	{ OPT_ENUM(0, "inconclusive", inconclusive_pass, gate_pass_fail),
	  .defval = "fail", .help = "a check too few runs could decide "
	  "fails the gate or passes" },
	{ OPT_ENUM(0, "missing", missing_pass, gate_pass_fail),
	  .defval = "fail", .help = "a check that cannot be made (a "
	  "benchmark or metric on one side only, no measured value: every "
	  "run timed out) fails the gate or passes" },
	{ OPT_STORE_READ(store) },
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
	struct gate_args *a = args;

	a->alpha = 0.01;
	a->inconclusive_pass = a->missing_pass = -1;
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

/* [gate] or [gate "PATTERN"]; NULL when the section is not a gate one. */
static bool gate_section(const char *section, char *pattern, size_t n)
{
	size_t len;

	pattern[0] = '\0';
	if (!strcmp(section, "gate"))
		return true;
	if (strncmp(section, "gate \"", 6))
		return false;
	len = strlen(section + 6);
	/* [gate ""] is an empty pattern: on_ini_line reports it */
	if (len < 1 || section[6 + len - 1] != '"' || len - 1 >= n)
		return false;
	memcpy(pattern, section + 6, len - 1);
	pattern[len - 1] = '\0';
	return true;
}

static int on_ini_line(void *user, const char *section, const char *name,
		       const char *value)
{
	struct gate_args *a = user;
	char pattern[256], where[300];

	if (!gate_section(section, pattern, sizeof(pattern)))
		return 1;
	snprintf(where, sizeof(where), "'%s' [%s] %s", a->config, section,
		 name);
	if (!*pattern && strcmp(section, "gate")) {
		snprintf(a->err, sizeof(a->err), "'%s' [%s]: an empty pattern "
			 "(write [gate] for every benchmark)", a->config,
			 section);
		return 0;
	}
	if ((!strcmp(name, "alpha") || !strcmp(name, "inconclusive") ||
	     !strcmp(name, "missing")) && *pattern) {
		snprintf(a->err, sizeof(a->err), "%s: %s belongs in [gate], "
			 "for every check", where, name);
		return 0;
	}
	if (!strcmp(name, "alpha") || !strcmp(name, "inconclusive") ||
	    !strcmp(name, "missing")) {
		/* checked as the option of that name is, into a copy: the
		 * command line wins */
		struct gate_args ini = *a;
		struct error e;

		if (opt_set(opt_find(&gate_cmd, name), value, &ini, &e)) {
			snprintf(a->err, sizeof(a->err), "%s: %.880s", where,
				 e.msg);
			return 0;
		}
		if (!a->alpha_given)
			a->alpha = ini.alpha;
		if (a->inconclusive_pass < 0)
			a->inconclusive_pass = ini.inconclusive_pass;
		if (a->missing_pass < 0)
			a->missing_pass = ini.missing_pass;
		return 1;
	}
	if (!strcmp(name, "max-increase"))
		return !add(a, value, GATE_INCREASE, *pattern ? pattern : NULL,
			    where);
	if (!strcmp(name, "max-decrease"))
		return !add(a, value, GATE_DECREASE, *pattern ? pattern : NULL,
			    where);
	if (!strcmp(name, "limit"))
		return !add(a, value, GATE_LIMIT, *pattern ? pattern : NULL,
			    where);
	snprintf(a->err, sizeof(a->err), "%s: unknown key (max-increase, "
		 "max-decrease, limit, alpha, inconclusive, missing)", where);
	return 0;
}

static int read_config(struct gate_args *a)
{
	int r;

	if (!a->config) {
		if (access("yardstick.ini", F_OK))
			return 0;
		a->config = "yardstick.ini";
	}
	r = ini_parse(a->config, on_ini_line, a);
	if (r < 0) {
		fprintf(stderr, "yardstick gate: cannot read '%s'\n",
			a->config);
		return 2;
	}
	if (r > 0) {
		fprintf(stderr, "yardstick gate: %s\n", a->err[0] ? a->err :
			"syntax error");
		if (!a->err[0])
			fprintf(stderr, "yardstick gate: '%s' line %d\n",
				a->config, r);
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

	for (size_t i = 0; i < a->nt; i++)
		increase |= a->t[i].kind != GATE_LIMIT;
	if (!a->nt) {
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
	return base->ret ? base->ret : cand->ret;
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
	o.alpha = a->alpha;
	o.inconclusive_pass = a->inconclusive_pass > 0;
	o.missing_pass = a->missing_pass > 0;
	o.base_label = base_label = xasprintf("the baseline '%s'",
					      a->baseline ? a->baseline : "");
	o.cand_label = cand_label = xasprintf("the candidate '%s'",
					      a->candidate);
	ret = gate_evaluate(a->baseline ? &base.r : NULL, &cand.r, a->t, a->nt,
			    &o, &rep, &e);
	free(base_label);
	free(cand_label);
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
	for (size_t i = 0; i < a.nt; i++)
		gate_threshold_free(&a.t[i]);
	free(a.t);
	return ret;
}
