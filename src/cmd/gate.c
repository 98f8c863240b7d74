/*
 * `yardstick gate`: fail a CI job when a metric regressed beyond a
 * threshold with statistical confidence. Thresholds come from the command
 * line and from the [gate] sections of yardstick.ini.
 */
#include <getopt.h>
#include <ini.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/refs.h"
#include "result/gate.h"
#include "stats/shift.h"
#include "util/outputs.h"
#include "util/strutil.h"

const char gate_help[] =
"usage: yardstick gate --baseline REF [OPTIONS] [NEW]\n"
"\n"
"Check the candidate result set NEW (default: latest in the store)\n"
"against the baseline REF and fail when a threshold is broken.\n"
"\n"
"  -b, --baseline REF         the baseline: a JSON file (yardstick,\n"
"                             hyperfine, Google Benchmark), latest, a\n"
"                             result id, @COMMIT or branch:NAME\n"
"      --max-increase SPEC    METRIC[.STAT]=VALUE: the statistic (mean,\n"
"                             median (default), p90, p95, p99, min, max)\n"
"                             may not grow by more than VALUE: 15ms, 10%,\n"
"                             64KiB, 1000 (units s ms us ns, B KiB MiB GiB,\n"
"                             %, none for counts). Repeatable\n"
"      --max-decrease SPEC    METRIC[.STAT]=VALUE: the statistic may not\n"
"                             fall by more than VALUE (for metrics where\n"
"                             more is better: throughput=5%). Repeatable\n"
"      --limit SPEC           METRIC[.STAT]=VALUE: an absolute ceiling\n"
"                             of the candidate's statistic. Repeatable\n"
"      --config FILE          thresholds from the [gate] sections of FILE\n"
"                             (default: yardstick.ini, if present)\n"
"      --alpha A              significance level, from 1e-5 (default 0.01)\n"
"      --inconclusive fail|pass  a check too few runs could decide fails\n"
"                             the gate (default) or passes\n"
"      --missing fail|pass    a check that cannot be made (a benchmark or\n"
"                             metric on one side only, no measured value:\n"
"                             every run timed out) fails the gate\n"
"                             (default) or passes\n"
"      --store PATH           the store (default $YARDSTICK_STORE, else\n"
"                             .yardstick/results.db at the git top level)\n"
"      --markdown FILE        the report for a pull-request comment or\n"
"                             $GITHUB_STEP_SUMMARY (- for stdout)\n"
"      --junit FILE           JUnit XML, one test case per check\n"
"      --bmf FILE             the candidate in Bencher Metric Format\n"
"  -q, --quiet                no terminal report\n"
"\n"
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
"user's.\n";

enum { OPT_MAX_INCREASE = 256, OPT_MAX_DECREASE, OPT_LIMIT, OPT_CONFIG, OPT_ALPHA,
       OPT_STORE, OPT_MARKDOWN, OPT_JUNIT, OPT_BMF, OPT_INCONCLUSIVE,
       OPT_MISSING };

static const struct option long_opts[] = {
	{ "baseline", required_argument, NULL, 'b' },
	{ "max-increase", required_argument, NULL, OPT_MAX_INCREASE },
	{ "max-decrease", required_argument, NULL, OPT_MAX_DECREASE },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "markdown", required_argument, NULL, OPT_MARKDOWN },
	{ "junit", required_argument, NULL, OPT_JUNIT },
	{ "bmf", required_argument, NULL, OPT_BMF },
	{ "inconclusive", required_argument, NULL, OPT_INCONCLUSIVE },
	{ "missing", required_argument, NULL, OPT_MISSING },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

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

static int add(struct gate_args *a, const char *spec, enum gate_kind kind,
	       const char *pattern, const char *where)
{
	struct error e;

	a->t = xrealloc(a->t, (a->nt + 1) * sizeof(*a->t));
	if (gate_parse(spec, kind, pattern, &a->t[a->nt], &e)) {
		snprintf(a->err, sizeof(a->err), "%s: %s", where, e.msg);
		return -1;
	}
	a->nt++;
	return 0;
}

/* "pass" 1, "fail" 0, anything else -1. */
static int pass_or_fail(const char *v)
{
	return !strcmp(v, "pass") ? 1 : !strcmp(v, "fail") ? 0 : -1;
}

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
	double d;

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
	if (!strcmp(name, "inconclusive") || !strcmp(name, "missing")) {
		int v = pass_or_fail(value);
		int *dst = !strcmp(name, "missing") ? &a->missing_pass
						    : &a->inconclusive_pass;

		if (v < 0) {
			snprintf(a->err, sizeof(a->err), "%s: '%s' is not "
				 "pass or fail", where, value);
			return 0;
		}
		if (*dst < 0)	/* the command line wins */
			*dst = v;
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
	if (!strcmp(name, "alpha") && !*pattern) {
		if (parse_double(value, &d) || d < SHIFT_ALPHA_MIN || d >= 1) {
			snprintf(a->err, sizeof(a->err), "%s: '%s' is not a "
				 "level from %g to 1", where, value,
				 SHIFT_ALPHA_MIN);
			return 0;
		}
		if (!a->alpha_given)
			a->alpha = d;
		return 1;
	}
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
	double d;
	int c, v;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":b:qh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'b': a->baseline = optarg; break;
		case OPT_MAX_INCREASE:
		case OPT_MAX_DECREASE:
		case OPT_LIMIT:
			if (add(a, optarg, c == OPT_LIMIT ? GATE_LIMIT
				: c == OPT_MAX_DECREASE ? GATE_DECREASE
				: GATE_INCREASE, NULL, c == OPT_LIMIT
				? "--limit" : c == OPT_MAX_DECREASE
				? "--max-decrease" : "--max-increase")) {
				fprintf(stderr, "yardstick gate: %s\n", a->err);
				return 2;
			}
			break;
		case OPT_CONFIG: a->config = optarg; break;
		case OPT_ALPHA:
			if (parse_double(optarg, &d) || d < SHIFT_ALPHA_MIN ||
			    d >= 1) {
				fprintf(stderr, "yardstick gate: --alpha: '%s' "
					"is not a level from %g to 1\n",
					optarg, SHIFT_ALPHA_MIN);
				return 2;
			}
			a->alpha = d;
			a->alpha_given = true;
			break;
		case OPT_INCONCLUSIVE:
		case OPT_MISSING:
			v = pass_or_fail(optarg);
			if (v < 0) {
				fprintf(stderr, "yardstick gate: %s: '%s' is "
					"not pass or fail\n", c == OPT_MISSING
					? "--missing" : "--inconclusive",
					optarg);
				return 2;
			}
			*(c == OPT_MISSING ? &a->missing_pass
			  : &a->inconclusive_pass) = v;
			break;
		case OPT_STORE: a->store = optarg; break;
		case OPT_MARKDOWN: a->markdown = optarg; break;
		case OPT_JUNIT: a->junit = optarg; break;
		case OPT_BMF: a->bmf = optarg; break;
		case 'q': a->quiet = true; break;
		case 'h': fputs(gate_help, stdout); return 1;
		case ':':
			fprintf(stderr, "yardstick gate: option '%s' needs a "
				"value\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "yardstick gate: unknown option '%s'\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (argc - optind > 1) {
		fputs("yardstick gate: at most one candidate result set\n",
		      stderr);
		return 2;
	}
	a->candidate = argc > optind ? argv[optind] : "latest";
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
	struct gate_args a = { .alpha = 0.01, .inconclusive_pass = -1,
				.missing_pass = -1 };
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
