/*
 * ys_main: the command line of a benchmark program. A small parser of its
 * own (the project's options layer is in `cmd`, above this library).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lib_internal.h"
#include "util/fileio.h"
#include "util/strutil.h"
#include "util/term.h"

static const char usage[] =
"usage: %s [OPTIONS]\n"
"\n"
"Run the micro-benchmarks of this program (libyardstick): each in epochs\n"
"whose iterations are tuned to the clock's resolution, the median time\n"
"per iteration with its MAD (err%%) and a 95%% bootstrap interval.\n"
"\n"
"  --filter REGEX      only the benchmarks whose name matches (POSIX\n"
"                      extended; parameters are part of the name:\n"
"                      'sort \\[n=1000\\]')\n"
"  --list              print the benchmarks' names and exit\n"
"  --epochs N          measured epochs per benchmark (default 11)\n"
"  --min-time T        at least T seconds measured per benchmark (\"0.5\",\n"
"                      \"200ms\"); default: epochs of 1000 x the clock's\n"
"                      resolution, at least 20 us\n"
"  --json FILE         the result (yardstick result v1, kind \"bench\"),\n"
"                      for yardstick compare, gate, history; \"-\" is\n"
"                      stdout (the table then goes to stderr). The\n"
"                      environment variable YARDSTICK_BENCH_JSON=FILE\n"
"                      does the same\n"
"  --gbench-json FILE  the result in Google Benchmark's JSON format\n"
"                      (compare.py, github-action-benchmark)\n"
"  --clock CLOCK       monotonic (default: CLOCK_MONOTONIC, the vDSO) or\n"
"                      tsc (rdtscp; only where the TSC is invariant)\n"
"  --no-counters       no perf counters (task-clock, cycles ...)\n"
"  --no-alloc-count    do not count allocations in the timed regions\n"
"                      (allocs_per_op ...: unsupported); they are\n"
"                      counted only in a program linked with\n"
"                      -lyardstick_alloc\n"
"  --seed N            of the iteration jitter and the bootstrap\n"
"                      (default 1)\n"
"  -h, --help          this help\n"
"\n"
"Exit status: 0 ok; 1 a benchmark failed; 2 bad usage or an output that\n"
"cannot be written; 3 the environment refused (--clock tsc without an\n"
"invariant TSC).\n";

static const char *prog(char **argv)
{
	const char *p = argv[0] ? strrchr(argv[0], '/') : NULL;

	return p ? p + 1 : argv[0] ? argv[0] : "bench";
}

static int bad(char **argv, const char *fmt, const char *opt,
	       const char *arg)
{
	fprintf(stderr, "%s: ", prog(argv));
	fprintf(stderr, fmt, opt, arg);
	fputc('\n', stderr);
	return 2;
}

/* "0.5", "0.5s", "200ms", "50us", "1000ns" */
static int parse_time(const char *s, double *out)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = { { "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 },
		      { "s", 1 } };
	size_t len = strlen(s);

	for (size_t i = 0; i < 4; i++) {
		size_t sl = strlen(units[i].suffix);

		if (len > sl && !strcmp(s + len - sl, units[i].suffix)) {
			char *num = xstrndup(s, len - sl);
			int rc = parse_double(num, out);

			free(num);
			*out *= units[i].scale;
			return rc;
		}
	}
	return parse_double(s, out);
}

static int parse_args(int argc, char **argv, struct lib_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '='), *val = NULL;
		char *name;
		int ret = 0;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf(usage, prog(argv));
			return 0;
		}
		if (strncmp(a, "--", 2) || !a[2])
			return bad(argv, "'%s': not an option (see --help)%s",
				   a, "");
		name = eq ? xstrndup(a, eq - a) : xstrdup(a);
		if (!strcmp(name, "--list") || !strcmp(name, "--no-counters") ||
		    !strcmp(name, "--no-alloc-count")) {
			if (eq)
				ret = bad(argv, "%s takes no value%s", name,
					  "");
			else if (!strcmp(name, "--list"))
				o->list = true;
			else if (!strcmp(name, "--no-counters"))
				o->no_counters = true;
			else
				o->no_alloc_count = true;
			free(name);
			if (ret)
				return ret;
			continue;
		}
		if (strcmp(name, "--filter") && strcmp(name, "--epochs") &&
		    strcmp(name, "--min-time") && strcmp(name, "--json") &&
		    strcmp(name, "--gbench-json") && strcmp(name, "--clock") &&
		    strcmp(name, "--seed")) {
			ret = bad(argv, "unknown option '%s' (see --help)%s",
				  name, "");
			free(name);
			return ret;
		}
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		if (!val) {
			ret = bad(argv, "%s needs a value%s", name, "");
		} else if (!strcmp(name, "--filter")) {
			o->filter = val;
		} else if (!strcmp(name, "--epochs")) {
			long n;

			if (parse_long(val, &n) || n < 1 || n > 100000)
				ret = bad(argv, "--epochs: '%s' is not a "
					  "number of epochs (1 to 100000)%s",
					  val, "");
			else
				o->epochs = (int)n;
		} else if (!strcmp(name, "--min-time")) {
			if (parse_time(val, &o->min_time) ||
			    !(o->min_time >= 0) || o->min_time > 86400)
				ret = bad(argv, "--min-time: '%s' is not a "
					  "time such as 0.5 or 200ms%s", val,
					  "");
		} else if (!strcmp(name, "--json") ||
			   !strcmp(name, "--gbench-json")) {
			if (!*val)
				ret = bad(argv, "%s: an empty file name%s",
					  name, "");
			else if (!strcmp(name, "--json"))
				o->json = val;
			else
				o->gbench_json = val;
		} else if (!strcmp(name, "--clock")) {
			if (!strcmp(val, "tsc"))
				o->tsc = true;
			else if (!strcmp(val, "monotonic"))
				o->tsc = false;
			else
				ret = bad(argv, "--clock: '%s' is not "
					  "monotonic or tsc%s", val, "");
		} else {
			long n;

			if (parse_long(val, &n) || n < 0)
				ret = bad(argv, "--seed: '%s' is not a "
					  "non-negative integer%s", val, "");
			else
				o->seed = (unsigned long long)n;
		}
		free(name);
		if (ret)
			return ret;
	}
	return -1;
}

static bool any_failed(const struct lib_run *rn)
{
	for (size_t i = 0; i < rn->ninsts; i++)
		if (rn->insts[i].failed)
			return true;
	return false;
}

int ys_main(int argc, char **argv)
{
	static char *no_argv[] = { (char *)"bench", NULL };
	struct lib_opts o = { 0 };
	struct lib_run rn = { 0 };
	struct result r;
	struct error e;
	const char *env = getenv("YARDSTICK_BENCH_JSON");
	int rc;
	FILE *table;

	if (argc < 1 || !argv || !argv[0]) {
		argc = 1;
		argv = no_argv;
	}
	o.epochs = 11;
	o.seed = 1;
	o.argv = argv;
	o.argc = argc;
	rc = parse_args(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (!o.json && env && *env)
		o.json = env;
	if (o.json && o.gbench_json && !strcmp(o.json, o.gbench_json)) {
		fprintf(stderr, "%s: --json and --gbench-json both name '%s'\n",
			prog(argv), o.json);
		return 2;
	}
	if (lib_registry_parse(&e)) {
		fprintf(stderr, "%s: %s\n", prog(argv), e.msg);
		return 2;
	}
	rn.o = &o;
	if (lib_plan(&rn, &e)) {
		fprintf(stderr, "%s: %s\n", prog(argv), e.msg);
		lib_run_free(&rn);
		return 2;
	}
	if (o.list) {
		for (size_t i = 0; i < rn.ninsts; i++) {
			term_puts(stdout, rn.insts[i].label);
			putchar('\n');
		}
		lib_run_free(&rn);
		return 0;
	}
	if (!rn.ninsts) {
		if (o.filter)
			fprintf(stderr, "%s: no benchmark matches --filter "
				"'%s' (--list lists them)\n", prog(argv),
				o.filter);
		else
			fprintf(stderr, "%s: no benchmark registered "
				"(YS_BENCHMARK)\n", prog(argv));
		lib_run_free(&rn);
		return 2;
	}
	if ((o.json && atomic_check(o.json, &e)) ||
	    (o.gbench_json && atomic_check(o.gbench_json, &e))) {
		fprintf(stderr, "%s: %s\n", prog(argv), e.msg);
		lib_run_free(&rn);
		return 2;
	}
	if (lib_clock_setup(o.tsc, &e)) {
		fprintf(stderr, "%s: %s\n", prog(argv), e.msg);
		lib_run_free(&rn);
		return 3;
	}
	lib_measure(&rn);
	lib_result(&rn, &r);
	table = o.json && !strcmp(o.json, "-") ? stderr : stdout;
	lib_print_table(&rn, &r, table);
	rc = any_failed(&rn) ? 1 : 0;
	if (o.json && result_write_json(&r, o.json, &e)) {
		fprintf(stderr, "%s: %s\n", prog(argv), e.msg);
		rc = 2;
	}
	if (o.gbench_json && lib_write_gbench(&rn, &r, o.gbench_json, &e)) {
		fprintf(stderr, "%s: %s\n", prog(argv), e.msg);
		rc = 2;
	}
	result_free(&r);
	lib_run_free(&rn);
	return rc;
}
