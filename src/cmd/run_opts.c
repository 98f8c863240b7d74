/*
 * Options of `yardstick run` and the plan they describe: every command
 * (split with shell quoting rules, or given as argv after "--") crossed
 * with every combination of --param values.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/run.h"
#include "measure/spawn.h"
#include "util/strutil.h"

const char run_help[] =
"usage: yardstick run [OPTIONS] 'CMD 1' ['CMD 2' ...]\n"
"       yardstick run [OPTIONS] -- PROGRAM [ARGS...]\n"
"\n"
"Benchmark whole commands: wall, user and system time, peak RSS, page\n"
"faults and context switches of each run (from wait4 of that very child),\n"
"and perf counters of the command and everything it starts.\n"
"\n"
"Commands are split into words with shell quoting rules and executed\n"
"directly (no shell) unless --shell is given.\n"
"\n"
"Runs\n"
"  -w, --warmup N          unmeasured runs of each command first (default 1)\n"
"  -r, --runs N            exactly N measured runs of each command\n"
"  -m, --min-runs N        adaptive: at least N runs (default 10)\n"
"  -M, --max-runs N        adaptive: at most N runs (default 1000)\n"
"      --min-time T        adaptive: measure each command for at least T\n"
"                          (default 3s; units s, ms, us, ns)\n"
"  -t, --timeout T         kill a run (all it started, setsid or not) after T\n"
"  -p, --prepare CMD       shell command before every run (timed apart)\n"
"  -c, --cleanup CMD       shell command after each command's runs\n"
"      --input FILE        the command's standard input (default /dev/null);\n"
"                          - or a pipe: read to its end once, at most 64 MiB\n"
"      --show-output       let the command's output through (default: discard)\n"
"  -i, --ignore-failure    keep going when a command exits non-zero\n"
"      --pin CPUS          run the command on these CPUs (\"0\", \"2,3\", \"0-3\")\n"
"      --order ORDER       interleaved (default: every round runs each command\n"
"                          once, in a fresh random order) or sequential\n"
"  -S, --shell             run each command through /bin/sh -c and subtract\n"
"                          the shell's own start-up time (from wall, user and\n"
"                          system time; perf counters include the shell) —\n"
"                          unless a run took less than the shell alone: that\n"
"                          metric then keeps the shell's time, with a warning\n"
"\n"
"Naming and scans\n"
"  -n, --name NAME         name the commands, in order (repeatable). Names\n"
"                          are made unique: equal names whose parameters\n"
"                          differ become \"NAME [n=10]\", then the second\n"
"                          and later of equal names get \" #2\", \" #3\"\n"
"  -P, --param NAME=VALUES scan a parameter: a list \"1,10,100\", a range\n"
"                          \"START:END[:STEP]\" or a geometric range\n"
"                          \"START:END:*FACTOR\"; {NAME} is replaced in\n"
"                          commands and names; several --param form the\n"
"                          cartesian product. A numeric scan gets a\n"
"                          complexity fit: O(1) ... O(n^3)\n"
"\n"
"Counters\n"
"  -e, --events LIST       perf events to count, comma-separated, by perf's\n"
"                          name (cycles, L1-dcache-load-misses, r01c2) or\n"
"                          libpfm4's (INST_RETIRED:ANY_P); default: task-clock,\n"
"                          page-faults, context-switches, cpu-migrations,\n"
"                          cycles, instructions, branches, branch-misses,\n"
"                          cache-references, cache-misses and flops\n"
"      --no-counters       do not use perf events at all\n"
"\n"
"Statistics\n"
"      --reference NAME    compare every command with this one (default: the\n"
"                          first)\n"
"      --compare-metric M  also compare metric M (repeatable; wall_time always)\n"
"      --resamples N       bootstrap resamples for the 95% CIs (default 1000,\n"
"                          at least 100)\n"
"      --seed N            seed of the bootstrap (default 1): same data, same CIs\n"
"\n"
"Output\n"
"      --json FILE         the result with every per-run value (- for stdout)\n"
"      --csv FILE          one row per run with every metric\n"
"      --markdown FILE     a summary table for a pull-request comment\n"
"      --bmf FILE          Bencher Metric Format, for Bencher dashboards\n"
"      --store PATH        save the result in this store (default\n"
"                          $YARDSTICK_STORE, else .yardstick/results.db at\n"
"                          the top of the git checkout, else here)\n"
"      --no-store          do not save the result\n"
"  -q, --quiet             no terminal table\n"
"      --details           a full table of every metric for every benchmark\n"
"                          (the default up to 4 benchmarks; beyond, one line\n"
"                          each)\n"
"\n"
"Percentiles are type 7 (linear interpolation between closest ranks, as\n"
"NumPy and R); stddev uses n-1; MAD is unscaled; confidence intervals are\n"
"95% percentile-bootstrap; outliers are values beyond Tukey's fences\n"
"(Q1 - 1.5 IQR, Q3 + 1.5 IQR); comparisons are ratios of medians with a\n"
"bootstrap CI and a two-sided Mann-Whitney U test (different when\n"
"p < 0.05 and the CI excludes 1).\n"
"\n"
"Exit status: 0 ok; 1 a command failed; 2 bad usage, a program that does\n"
"not exist, an output or a store that cannot be written (the other\n"
"outputs are still written); 3 perf events asked for with --events are\n"
"not permitted, or the store is locked, read-only or another user's;\n"
"130 interrupted (what was measured is still written and stored;\n"
"benchmarks that never ran are left out).\n";

enum {
	OPT_MIN_TIME = 256, OPT_INPUT, OPT_SHOW_OUTPUT, OPT_PIN, OPT_ORDER,
	OPT_REFERENCE, OPT_COMPARE_METRIC, OPT_NO_COUNTERS, OPT_JSON,
	OPT_CSV, OPT_MARKDOWN, OPT_SEED, OPT_RESAMPLES, OPT_DETAILS, OPT_BMF,
	OPT_STORE, OPT_NO_STORE,
};

static const struct option long_opts[] = {
	{ "warmup", required_argument, NULL, 'w' },
	{ "runs", required_argument, NULL, 'r' },
	{ "min-runs", required_argument, NULL, 'm' },
	{ "max-runs", required_argument, NULL, 'M' },
	{ "min-time", required_argument, NULL, OPT_MIN_TIME },
	{ "timeout", required_argument, NULL, 't' },
	{ "prepare", required_argument, NULL, 'p' },
	{ "cleanup", required_argument, NULL, 'c' },
	{ "input", required_argument, NULL, OPT_INPUT },
	{ "show-output", no_argument, NULL, OPT_SHOW_OUTPUT },
	{ "ignore-failure", no_argument, NULL, 'i' },
	{ "pin", required_argument, NULL, OPT_PIN },
	{ "order", required_argument, NULL, OPT_ORDER },
	{ "shell", no_argument, NULL, 'S' },
	{ "name", required_argument, NULL, 'n' },
	{ "param", required_argument, NULL, 'P' },
	{ "events", required_argument, NULL, 'e' },
	{ "no-counters", no_argument, NULL, OPT_NO_COUNTERS },
	{ "reference", required_argument, NULL, OPT_REFERENCE },
	{ "compare-metric", required_argument, NULL, OPT_COMPARE_METRIC },
	{ "resamples", required_argument, NULL, OPT_RESAMPLES },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "markdown", required_argument, NULL, OPT_MARKDOWN },
	{ "quiet", no_argument, NULL, 'q' },
	{ "details", no_argument, NULL, OPT_DETAILS },
	{ "bmf", required_argument, NULL, OPT_BMF },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "no-store", no_argument, NULL, OPT_NO_STORE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void push_str(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

static int opt_count(const char *name, const char *arg, long min, long *out,
		     struct error *e)
{
	long v;

	if (parse_long(arg, &v) || v < min)
		return error_set(e, "--%s: '%s' is not a whole number >= %ld",
				 name, arg, min);
	*out = v;
	return 0;
}

static int opt_time(const char *name, const char *arg, double *out,
		    struct error *e)
{
	if (parse_duration(arg, out))
		return error_set(e, "--%s: '%s' is not a duration (a number of "
				 "seconds, or with a unit s, ms, us, ns)",
				 name, arg);
	return 0;
}

static int parse_pin(const char *arg, cpu_set_t *set, struct error *e)
{
	const char *p = arg;

	CPU_ZERO(set);
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0 || a >= CPU_SETSIZE)
			goto bad;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= CPU_SETSIZE)
				goto bad;
			p = end;
		}
		for (long c = a; c <= b; c++)
			CPU_SET(c, set);
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (CPU_COUNT(set) == 0)
		goto bad;
	return 0;
bad:
	return error_set(e, "--pin: '%s' is not a CPU list such as 0,2-3", arg);
}

/* Format a scan value: integers without a decimal point. */
static char *fmt_num(double v)
{
	if (fabs(v) < 1e15 && v == floor(v))
		return xasprintf("%.0f", v);
	return xasprintf("%.10g", v);
}

#define MAX_SCAN_VALUES 100000

static int parse_range(struct scan *s, const char *spec, struct error *e)
{
	char *copy = xstrdup(spec), *c1 = strchr(copy, ':'), *c2;
	double start, end, step = 1;
	bool geometric = false;
	size_t cap = 0;
	int ret = -1;

	*c1 = '\0';
	c2 = strchr(c1 + 1, ':');
	if (c2) {
		*c2 = '\0';
		if (c2[1] == '*') {
			geometric = true;
			c2++;
		}
	}
	if (parse_double(copy, &start) || parse_double(c1 + 1, &end) ||
	    (c2 && parse_double(c2 + 1, &step)))
		goto bad;
	if (geometric ? (step <= 1 || start <= 0) : step <= 0)
		goto bad;
	if (end < start)
		goto bad;
	/* Values from the index, not by accumulation, so that 0.1 steps do
	 * not drift; the tolerance lets END itself in despite rounding. */
	for (size_t i = 0;; i++) {
		double v = geometric ? start * pow(step, (double)i)
				     : start + step * (double)i;

		if (v > end + fabs(geometric ? end : step) * 1e-9)
			break;
		if (s->n >= MAX_SCAN_VALUES) {
			error_set(e, "--param %s: more than %d values", s->name,
				  MAX_SCAN_VALUES);
			goto out_free;
		}
		/* doubling: a value at a time would copy the list 100,000
		 * times */
		s->values = xgrow(s->values, &cap, s->n + 1, sizeof(char *));
		s->values[s->n++] = fmt_num(v);
	}
	s->numeric = true;
	ret = 0;
	goto out_free;
bad:
	error_set(e, "--param %s: '%s' is not START:END[:STEP] with START <= "
		  "END, STEP > 0 (or *FACTOR > 1 with START > 0)", s->name,
		  spec);
out_free:
	free(copy);
	return ret;
}

static int parse_param(struct run_opts *o, const char *arg, struct error *e)
{
	const char *eq = strchr(arg, '=');
	struct scan *s;
	const char *v;

	if (!eq || eq == arg || !eq[1])
		return error_set(e, "--param: '%s' is not NAME=VALUES", arg);
	o->scans = xrealloc(o->scans, (o->nscans + 1) * sizeof(*o->scans));
	s = &o->scans[o->nscans++];
	memset(s, 0, sizeof(*s));
	s->name = xstrndup(arg, eq - arg);
	for (size_t i = 0; i + 1 < o->nscans; i++)
		if (!strcmp(o->scans[i].name, s->name))
			return error_set(e, "--param: '%s' given twice",
					 s->name);
	v = eq + 1;
	if (strchr(v, ':') && !strchr(v, ','))
		return parse_range(s, v, e);
	s->numeric = true;
	for (const char *p = v;; ) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		double d;

		if (len == 0)
			return error_set(e, "--param %s: empty value in '%s'",
					 s->name, v);
		s->values = xrealloc(s->values, (s->n + 1) * sizeof(char *));
		s->values[s->n] = xstrndup(p, len);
		if (parse_double(s->values[s->n], &d))
			s->numeric = false;
		s->n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

static int parse_events(struct run_opts *o, const char *arg,
			struct error *e)
{
	const char *p = arg;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char *ev;

		if (len == 0)
			return error_set(e, "--events: empty event name in '%s'",
					 arg);
		ev = xstrndup(p, len);
		push_str(&o->events, &o->nevents, ev);
		free(ev);
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int handle_opt(struct run_opts *o, int c, const char *arg,
		      struct error *e)
{
	long v = 0;

	switch (c) {
	case 'w': return opt_count("warmup", arg, 0, &o->warmup, e);
	case 'r': return opt_count("runs", arg, 1, &o->runs, e);
	case 'm':
		o->min_runs_given = true;
		return opt_count("min-runs", arg, 1, &o->min_runs, e);
	case 'M': return opt_count("max-runs", arg, 1, &o->max_runs, e);
	case OPT_MIN_TIME: return opt_time("min-time", arg, &o->min_time, e);
	case 't':
		if (opt_time("timeout", arg, &o->timeout, e))
			return -1;
		if (o->timeout <= 0)
			return error_set(e, "--timeout: must be above 0");
		return 0;
	case 'p': free(o->prepare); o->prepare = xstrdup(arg); return 0;
	case 'c': free(o->cleanup); o->cleanup = xstrdup(arg); return 0;
	case OPT_INPUT: free(o->input); o->input = xstrdup(arg); return 0;
	case OPT_SHOW_OUTPUT: o->show_output = true; return 0;
	case 'i': o->ignore_failure = true; return 0;
	case OPT_PIN: o->have_pin = true; return parse_pin(arg, &o->pin, e);
	case OPT_ORDER:
		if (!strcmp(arg, "interleaved"))
			o->order = ORDER_INTERLEAVED;
		else if (!strcmp(arg, "sequential"))
			o->order = ORDER_SEQUENTIAL;
		else
			return error_set(e, "--order: '%s' is not interleaved "
					 "or sequential", arg);
		return 0;
	case 'S': o->shell = true; return 0;
	case 'n':
		if (!*arg)
			return error_set(e, "--name: empty name");
		push_str(&o->names, &o->nnames, arg);
		return 0;
	case 'P': return parse_param(o, arg, e);
	case 'e': return parse_events(o, arg, e);
	case OPT_NO_COUNTERS: o->no_counters = true; return 0;
	case OPT_REFERENCE:
		free(o->reference);
		o->reference = xstrdup(arg);
		return 0;
	case OPT_COMPARE_METRIC:
		push_str(&o->compare_metrics, &o->ncompare_metrics, arg);
		return 0;
	case OPT_RESAMPLES:
		/* a result with more could not be read back (json_read.c) */
		if (opt_count("resamples", arg, 100, &o->resamples, e))
			return -1;
		if (o->resamples > RESULT_READ_MAX_RESAMPLES)
			return error_set(e, "--resamples: '%s' is more than "
					 "%d", arg, RESULT_READ_MAX_RESAMPLES);
		return 0;
	case OPT_SEED:
		if (opt_count("seed", arg, 0, &v, e))
			return -1;
		o->seed = (unsigned long long)v;
		return 0;
	case OPT_JSON: free(o->json); o->json = xstrdup(arg); return 0;
	case OPT_CSV: free(o->csv); o->csv = xstrdup(arg); return 0;
	case OPT_MARKDOWN:
		free(o->markdown);
		o->markdown = xstrdup(arg);
		return 0;
	case 'q': o->quiet = true; return 0;
	case OPT_DETAILS: o->details = true; return 0;
	case OPT_BMF: free(o->bmf); o->bmf = xstrdup(arg); return 0;
	case OPT_STORE: free(o->store); o->store = xstrdup(arg); return 0;
	case OPT_NO_STORE: o->no_store = true; return 0;
	}
	return error_set(e, "unknown option");
}

static int check_opts(struct run_opts *o, struct error *e)
{
	if (!o->argv && o->ncommands == 0)
		return error_set(e, "no command to benchmark (see 'yardstick "
				 "run --help')");
	if (!o->runs && o->max_runs < o->min_runs) {
		if (o->min_runs_given)
			return error_set(e, "--max-runs (%ld) is below "
					 "--min-runs (%ld)", o->max_runs,
					 o->min_runs);
		o->min_runs = o->max_runs;	/* below the default minimum */
	}
	if (o->have_pin) {
		cpu_set_t avail, both;

		if (sched_getaffinity(0, sizeof(avail), &avail) == 0) {
			CPU_AND(&both, &avail, &o->pin);
			if (!CPU_EQUAL(&both, &o->pin))
				return error_set(e, "--pin: some of these CPUs "
						 "are not available here (this "
						 "process may use %d CPUs)",
						 CPU_COUNT(&avail));
		}
	}
	if (o->nnames > (o->argv ? 1 : o->ncommands))
		return error_set(e, "--name: %zu names for %zu commands",
				 o->nnames, o->argv ? (size_t)1 : o->ncommands);
	if (o->events && o->no_counters)
		return error_set(e, "--events and --no-counters exclude each "
				 "other");
	for (size_t i = 0; i < o->ncommands; i++)
		if (!o->commands[i][strspn(o->commands[i], " \t\n")])
			return error_set(e, "command %zu is empty", i + 1);
	return 0;
}

int run_parse(struct run_opts *o, int argc, char **argv, struct error *e)
{
	int dashdash = argc, c;

	memset(o, 0, sizeof(*o));
	o->warmup = 1;
	o->runs = 0;
	o->min_runs = 10;
	o->max_runs = 1000;
	o->min_time = 3;
	o->seed = 1;
	o->resamples = 1000;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(dashdash, argv,
				":w:r:m:M:t:p:c:iSn:P:e:qh", long_opts,
				NULL)) != -1) {
		if (c == 'h') {
			fputs(run_help, stdout);
			return 1;
		}
		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];

			if (c == ':')
				return error_set(e, "option '%s' needs a value",
						 bad);
			return error_set(e, "unknown option '%s'", bad);
		}
		if (handle_opt(o, c, optarg, e))
			return -1;
	}
	for (int i = optind; i < dashdash; i++)
		push_str(&o->commands, &o->ncommands, argv[i]);
	if (dashdash < argc) {
		if (o->ncommands)
			return error_set(e, "give commands either as strings or "
					 "after '--', not both");
		if (dashdash + 1 >= argc)
			return error_set(e, "no program after '--'");
		o->argv = argv_dup(argv + dashdash + 1);
	}
	return check_opts(o, e);
}

void run_opts_free(struct run_opts *o)
{
	argv_free(o->commands);
	argv_free(o->argv);
	argv_free(o->names);
	argv_free(o->compare_metrics);
	argv_free(o->events);
	for (size_t i = 0; i < o->nscans; i++) {
		free(o->scans[i].name);
		for (size_t j = 0; j < o->scans[i].n; j++)
			free(o->scans[i].values[j]);
		free(o->scans[i].values);
	}
	free(o->scans);
	free(o->prepare);
	free(o->cleanup);
	free(o->input);
	free(o->reference);
	free(o->json);
	free(o->csv);
	free(o->markdown);
	free(o->bmf);
	free(o->store);
}

/* Replace every {NAME} of the scans by the job's values. */
static char *substitute(const struct run_opts *o, const char *s,
			char **values)
{
	char *cur = xstrdup(s);

	for (size_t i = 0; i < o->nscans; i++) {
		char *key = xasprintf("{%s}", o->scans[i].name);
		char *next = str_replace(cur, key, values[i]);

		free(key);
		free(cur);
		cur = next;
	}
	return cur;
}

static int make_job(const struct run_opts *o, struct job *j, size_t t,
		    struct error *e)
{
	if (o->argv) {
		j->argv = xcalloc(1, sizeof(char *));
		for (size_t k = 0; o->argv[k]; k++) {
			j->argv = xrealloc(j->argv, (k + 2) * sizeof(char *));
			j->argv[k] = substitute(o, o->argv[k], j->param_values);
			j->argv[k + 1] = NULL;
		}
		if (o->shell) {
			/* The words, quoted back into one command line. */
			char *line = argv_join(j->argv);
			char *sh[] = { "/bin/sh", "-c", line, NULL };

			argv_free(j->argv);
			j->argv = argv_dup(sh);
			free(line);
		}
	} else {
		char *cmd = substitute(o, o->commands[t], j->param_values);
		int r;

		if (o->shell) {
			char *sh[] = { "/bin/sh", "-c", cmd, NULL };

			j->argv = argv_dup(sh);
			r = 0;
		} else {
			r = split_words(cmd, &j->argv, NULL, e);
			if (r == 0 && !j->argv[0])
				r = error_set(e, "command %zu is empty", t + 1);
		}
		free(cmd);
		if (r)
			return -1;
	}
	if (t < o->nnames) {
		j->name = substitute(o, o->names[t], j->param_values);
	} else if (o->argv) {
		j->name = o->shell ? xstrdup(j->argv[2]) : argv_join(j->argv);
	} else {
		j->name = substitute(o, o->commands[t], j->param_values);
	}
	return spawn_resolve_program(j->argv[0], &j->path, e);
}

int run_plan(const struct run_opts *o, struct job **jobsp, size_t *njobsp,
	     struct error *e)
{
	size_t ntemplates = o->argv ? 1 : o->ncommands, ncombos = 1;
	struct job *jobs;
	size_t njobs;

	for (size_t i = 0; i < o->nscans; i++) {
		if (ncombos > SIZE_MAX / o->scans[i].n / 2 / ntemplates)
			return error_set(e, "--param: too many combinations");
		ncombos *= o->scans[i].n;
	}
	njobs = ntemplates * ncombos;
	if (njobs > 100000)
		return error_set(e, "--param: %zu benchmarks are too many",
				 njobs);
	jobs = xcalloc(njobs, sizeof(*jobs));
	*jobsp = jobs;
	*njobsp = 0;
	/* Order: for each parameter combination, each command — so that a
	 * scan of two commands compares them value by value. */
	for (size_t c = 0; c < ncombos; c++) {
		for (size_t t = 0; t < ntemplates; t++) {
			struct job *j = &jobs[(*njobsp)++];
			size_t rest = c;

			j->template = t;
			j->combo = c;
			j->param_values = xcalloc(o->nscans + 1, sizeof(char *));
			for (size_t i = o->nscans; i-- > 0; ) {
				const struct scan *s = &o->scans[i];

				j->param_values[i] = xstrdup(s->values[rest % s->n]);
				rest /= s->n;
			}
			if (make_job(o, j, t, e))
				return -1;
		}
	}
	return 0;
}

void run_jobs_free(struct job *jobs, size_t njobs)
{
	if (!jobs)
		return;
	for (size_t i = 0; i < njobs; i++) {
		free(jobs[i].name);
		argv_free(jobs[i].argv);
		argv_free(jobs[i].param_values);
		free(jobs[i].path);
	}
	free(jobs);
}
