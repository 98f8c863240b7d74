/*
 * Options of `yardstick run` and their checks. The plan they describe,
 * every command (split with shell quoting rules, or given as argv after
 * "--") crossed with every combination of --param values, is made by
 * run's engine (engine/run_jobs.c) from run_plan_from_opts's plan.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/options.h"
#include "cmd/run.h"
#include "util/strutil.h"

static const char *const run_usage[] = {
	"[OPTIONS] 'CMD 1' ['CMD 2' ...]",
	"[OPTIONS] -- PROGRAM [ARGS...]",
	NULL,
};

static const char run_description[] =
"Benchmark whole commands: wall, user and system time, peak RSS, page\n"
"faults and context switches of each run (from wait4 of that very child),\n"
"and perf counters of the command and everything it starts.\n"
"\n"
"Commands are split into words with shell quoting rules and executed\n"
"directly (no shell) unless --shell is given.\n"
"The report goes to stdout; to stderr when an output is stdout (- as a\n"
"FILE), so that stdout holds that output alone.\n";

static const char run_epilog[] =
"Percentiles are type 7 (linear interpolation between closest ranks, as\n"
"NumPy and R); stddev uses n-1; MAD is unscaled; confidence intervals are\n"
"95% bootstrap (the mean's bootstrap-t, the median's percentile);\n"
"outliers are values beyond Tukey's fences\n"
"(Q1 - 1.5 IQR, Q3 + 1.5 IQR); comparisons are ratios of medians with a\n"
"bootstrap CI and a two-sided Mann-Whitney U test (different when\n"
"p < 0.05 and the CI excludes 1).\n"
"\n"
"Exit status: 0 ok; 1 a command failed; 2 bad usage, a program that does\n"
"not exist, an output or a store that cannot be written (the other\n"
"outputs are still written); 3 perf events asked for with --events are\n"
"not permitted (dram_bytes: counting system-wide is not), or the store\n"
"is locked, read-only or another user's, or SQLite or libpq cannot be\n"
"loaded or a PostgreSQL store's server reached;\n"
"130 interrupted by SIGINT, 143 by SIGTERM (the command and what it\n"
"started killed; what was measured is still written and stored, with\n"
"the setting partial, a CSV column partial, a Markdown first line;\n"
"benchmarks that never ran are left out; a second\n"
"signal exits at once, writing nothing more).\n"
"\n"
"A PostgreSQL store is checked before the first run (reached, its schema,\n"
"the right to write): one that would refuse the result stops the command\n"
"before anything runs. A result a store fails to keep anyway is written\n"
"to unsaved/ beside the store file (.yardstick/unsaved/ for a server),\n"
"and the message gives the `yardstick store copy FILE.json STORE` that\n"
"saves it later.\n";

static void push_str(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

static int parse_pin(void *args, const struct opt_entry *opt,
		     const char *arg, struct error *e)
{
	cpu_set_t *set = &((struct run_opts *)args)->pin;
	const char *p = arg;

	CPU_ZERO(set);
	while (*p) {
		const char *end;
		long a, b;

		if (parse_ulong_prefix(p, &end, &a) || a >= CPU_SETSIZE)
			goto bad;
		b = a;
		p = end;
		if (*p == '-') {
			if (parse_ulong_prefix(p + 1, &end, &b) || b < a ||
			    b >= CPU_SETSIZE)
				goto bad;
			p = end;
		}
		for (long c = a; c <= b; c++)
			CPU_SET(c, set);
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	if (CPU_COUNT(set) == 0)
		goto bad;
	return 0;
bad:
	return error_set(e, "'%s' is not a CPU list such as 0,2-3", arg);
}

static int parse_param(void *args, const struct opt_entry *opt,
		       const char *arg, struct error *e)
{
	struct run_opts *o = args;
	struct scan *s;

	o->scans = xrealloc(o->scans, (o->nscans + 1) * sizeof(*o->scans));
	s = &o->scans[o->nscans++];
	if (scan_parse(s, arg, e))
		return -1;
	for (size_t i = 0; i + 1 < o->nscans; i++)
		if (!strcmp(o->scans[i].name, s->name))
			return error_set(e, "'%s' given twice",
					 s->name);
	return 0;
}

static int parse_events(void *args, const struct opt_entry *opt,
			const char *arg, struct error *e)
{
	struct run_opts *o = args;
	const char *p = arg;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char *ev;

		if (len == 0)
			return error_set(e, "empty event name in '%s'",
					 arg);
		ev = xstrndup(p, len);
		push_str(&o->events, &o->nevents, ev);
		free(ev);
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* --work NAME=EXPR, NAME flops or bytes, each once; the expression is
 * parsed once the scans are known (check_work). */
static int parse_work(void *args, const struct opt_entry *opt,
		      const char *arg, struct error *e)
{
	struct run_opts *o = args;
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : 0;
	int w;

	if (!eq)
		return error_set(e, "'%s' is not NAME=EXPR (flops=EXPR or "
				 "bytes=EXPR)", arg);
	w = run_work_kind(arg, len);
	if (w < 0)
		return error_set(e, "'%.*s' is not a kind of work: flops or "
				 "bytes", (int)len, arg);
	if (o->work_arg[w])
		return error_set(e, "%s given twice", run_work_name((size_t)w));
	o->work_arg[w] = arg;
	return 0;
}

static const struct opt_enum run_orders[] = {
	{ "interleaved", ORDER_INTERLEAVED },
	{ "sequential", ORDER_SEQUENTIAL },
	{ NULL, 0 },
};

#define OPT_STRUCT struct run_opts
static const struct opt_entry run_options[] = {
	OPT_GROUP("Runs"),
	{ OPT_COUNT('w', "warmup", warmup, 0, LONG_MAX),
	  OPT_SETS(warmup_given),
	  .help = "unmeasured runs of each command first (default 1; 0 "
	  "with --runs 1: a single measured run is a quick look, cold "
	  "caches included; their wall times kept apart: the result's "
	  "warmup_wall_time)" },
	{ OPT_COUNT('r', "runs", runs, 1, LONG_MAX),
	  .help = "exactly N measured runs of each command" },
	{ OPT_COUNT('m', "min-runs", min_runs, 1, LONG_MAX),
	  OPT_SETS(min_runs_given),
	  .help = "adaptive: at least N runs" },
	{ OPT_COUNT('M', "max-runs", max_runs, 1, LONG_MAX),
	  .help = "adaptive: at most N runs" },
	{ OPT_DURATION(0, "min-time", min_time),
	  .help = "adaptive: measure each command for at least T; units s, "
		  "ms, us, ns" },
	{ OPT_DURATION('t', "timeout", timeout), .flags = OPT_MIN_EXCL,
	  .help = "kill a run (all it started, setsid or not) after T" },
	{ OPT_STRING('p', "prepare", prepare), .metavar = "CMD",
	  .help = "shell command before every run (timed apart)" },
	{ OPT_STRING('c', "cleanup", cleanup), .metavar = "CMD",
	  .help = "shell command after each command's runs" },
	{ OPT_PATH(0, "input", input), .help = "the command's standard input "
	  "(default /dev/null); - or a pipe: read to its end once, at most "
	  "64 MiB" },
	{ OPT_FLAG(0, "show-output", show_output),
	  .help = "let the command's output through (default: discard)" },
	{ OPT_FLAG('i', "ignore-failure", ignore_failure),
	  .help = "keep going when a command exits non-zero" },
	{ OPT_CALLBACK(0, "pin", parse_pin), OPT_SETS(have_pin),
	  .metavar = "CPUS", .help = "run the command on these CPUs (\"0\", "
	  "\"2,3\", \"0-3\")" },
	{ OPT_ENUM(0, "order", order, run_orders),
	  .help = "interleaved: every round runs each command once, in a "
	  "fresh random order; sequential: each command's runs in turn" },
	{ OPT_FLAG('S', "shell", shell), .help = "run each command through "
	  "/bin/sh -c and subtract the shell's own start-up time (from wall, "
	  "user and system time; perf counters include the shell) — unless "
	  "a run took less than the shell alone: that metric then keeps the "
	  "shell's time, with a warning" },
	OPT_GROUP("Naming and scans"),
	{ OPT_LIST('n', "name", names, nnames), .flags = OPT_NONEMPTY,
	  .metavar = "NAME", .help = "name the commands, in order "
	  "(repeatable). Names are made unique: equal names whose parameters "
	  "differ become \"NAME [n=10]\", then the second and later of equal "
	  "names get \" #2\", \" #3\"" },
	{ OPT_CALLBACK('P', "param", parse_param), .metavar = "NAME=VALUES",
	  .help = "scan a parameter: a list \"1,10,100\", a range "
	  "\"START:END[:STEP]\" or a geometric range \"START:END:*FACTOR\"; "
	  "{NAME} is replaced in commands and names; several --param form "
	  "the cartesian product. A numeric scan gets a complexity fit: O(1) "
	  "... O(n^3)" },
	{ OPT_CALLBACK(0, "work", parse_work), .metavar = "NAME=EXPR",
	  .help = "the work of one run, NAME flops or bytes (repeatable): "
	  "EXPR over the scans' {NAME} — numbers (1.5, 1e9), + - * / ^, "
	  "( ), log2 log sqrt min max; ^ is right-associative and above a "
	  "unary minus (-2^2 = -4). Kept as metric work_flops (flop) or "
	  "work_bytes (bytes), a value per run: the report shows the "
	  "attained GFLOP/s and FLOP/byte" },
	OPT_GROUP("Counters"),
	{ OPT_CALLBACK('e', "events", parse_events), .metavar = "LIST",
	  .help = "perf events to count, comma-separated, by perf's name "
	  "(cycles, L1-dcache-load-misses, r01c2) or libpfm4's "
	  "(INST_RETIRED:ANY_P); default: cycles, instructions, branches, "
	  "branch-misses, cache-references, cache-misses, flops, and "
	  "task-clock where one of those opens (on a machine without "
	  "hardware counters the default opens no perf event: the first "
	  "costs 5-20 ms of the kernel's, and user_time + system_time count "
	  "the same CPU time); page-faults, context-switches, cpu-migrations "
	  "only when named (wait4 counts the first two for every run, and "
	  "each costs every run). dram_bytes, only when named: bytes read and written by the "
	  "memory controllers (uncore events) during each run — of the "
	  "whole system, every process's traffic, not the command's alone; "
	  "it needs kernel.perf_event_paranoid 0 or CAP_PERFMON" },
	{ OPT_FLAG(0, "no-counters", no_counters),
	  .help = "do not use perf events at all" },
	OPT_GROUP("Statistics"),
	{ OPT_STRING(0, "reference", reference), .metavar = "NAME",
	  .help = "compare every command with this one (default: the "
	  "first)" },
	{ OPT_LIST(0, "compare-metric", compare_metrics, ncompare_metrics),
	  .metavar = "M", .help = "also compare metric M (repeatable; "
	  "wall_time always)" },
	{ OPT_RESAMPLES(resamples,
			"bootstrap resamples for the 95% CIs") },
	{ OPT_SEED(seed, "seed of the bootstrap: same data, same CIs") },
	OPT_GROUP("Output"),
	OPT_RESULT_OUTPUTS(json, csv, markdown, bmf, "run"),
	{ OPT_STORE_SAVE(store) },
	{ OPT_NO_STORE(no_store) },
	{ OPT_QUIET(quiet, "no terminal table, nor the warning about its p95/p99") },
	{ OPT_FLAG(0, "details", details), .help = "a full table of every "
	  "metric for every benchmark (the default up to 4 benchmarks; "
	  "beyond, one line each)" },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void run_init(void *args)
{
	struct run_opts *o = args;
	struct run_plan d;

	run_plan_init(&d);	/* the engine's defaults, written once */
	o->warmup = d.warmup;
	o->min_runs = d.min_runs;
	o->max_runs = d.max_runs;
	o->min_time = d.min_time;
	o->seed = d.seed;
	o->resamples = d.resamples;
}

const struct opt_cmd run_cmd = {
	.name = "run",
	.summary = "benchmark commands: time, memory, counters, statistics, "
		   "comparisons",
	.usage = run_usage,
	.description = run_description,
	.epilog = run_epilog,
	.mode = OPT_PROGRAM,
	.opts = run_options,
	.args_size = sizeof(struct run_opts),
	.init = run_init,
};

/* The first {NAME} of s (NAME a C identifier) that names no --param:
 * its length, with *at its start; 0 when there is none. */
static size_t unknown_placeholder(const struct run_opts *o, const char *s,
				  const char **at)
{
	for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{')) {
		size_t len = 0;
		bool known = false;

		if (!isalpha((unsigned char)p[1]) && p[1] != '_')
			continue;
		while (isalnum((unsigned char)p[1 + len]) || p[1 + len] == '_')
			len++;
		if (p[1 + len] != '}')
			continue;
		for (size_t i = 0; i < o->nscans && !known; i++)
			known = strlen(o->scans[i].name) == len &&
				!strncmp(o->scans[i].name, p + 1, len);
		if (!known) {
			*at = p;
			return len + 2;
		}
	}
	return 0;
}

/* With --param, every {NAME} in a command, its words or a --name must
 * be a parameter: a misspelt one would run the same command for every
 * value, silently. */
static int check_placeholders(const struct run_opts *o, struct error *e)
{
	char *const *lists[] = { o->commands, o->argv, o->names };
	size_t counts[] = { o->ncommands, (size_t)-1, o->nnames };
	const char *what[] = { "command", "word", "--name" };

	if (!o->nscans)
		return 0;
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; lists[l] && i < counts[l] && lists[l][i];
		     i++) {
			const char *at;
			size_t len = unknown_placeholder(o, lists[l][i], &at);
			char *names;

			if (!len)
				continue;
			names = run_param_names(o->scans, o->nscans);
			error_set(e, "%s %zu: '%.*s' is not a --param (the "
				  "parameters are %s)", what[l], i + 1,
				  (int)len, at, names);
			free(names);
			return -1;
		}
	return 0;
}

static int check_opts(struct run_opts *o, struct error *e)
{
	if (!o->argv && o->ncommands == 0)
		return error_set(e, "no command to benchmark (see 'yardstick "
				 "run --help')");
	/* a single measured run is a quick look, as hyperfine's default */
	if (o->runs == 1 && !o->warmup_given)
		o->warmup = 0;
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
	if (check_placeholders(o, e))
		return -1;
	for (size_t w = 0; w < WORK_COUNT; w++)
		if (o->work_arg[w] &&
		    run_work_parse(w, strchr(o->work_arg[w], '=') + 1,
				   o->scans, o->nscans, &o->work[w], e))
			return -1;
	return 0;
}

int run_parse(struct run_opts *o, int argc, char **argv, struct error *e)
{
	struct opt_rest rest;
	int r;

	r = opt_parse(&run_cmd, argc, argv, o, &rest, e);
	if (r)
		return r;
	for (int i = rest.first; i < rest.end; i++)
		push_str(&o->commands, &o->ncommands, argv[i]);
	if (rest.dashdash < argc) {
		if (o->ncommands)
			return error_set(e, "give commands either as strings or "
					 "after '--', not both");
		if (rest.dashdash + 1 >= argc)
			return error_set(e, "no program after '--'");
		o->argv = argv_dup(argv + rest.dashdash + 1);
	}
	return check_opts(o, e);
}

void run_opts_free(struct run_opts *o)
{
	argv_free(o->commands);
	argv_free(o->argv);
	free(o->names);		/* the names are argv's */
	free(o->compare_metrics);
	argv_free(o->events);
	for (size_t i = 0; i < o->nscans; i++)
		scan_free(&o->scans[i]);
	free(o->scans);
	for (size_t w = 0; w < WORK_COUNT; w++)
		expr_free(o->work[w]);
}
