/*
 * ys_main: the command line of a benchmark program, on the project's
 * options layer (util/options.h) like yardstick's own commands: one
 * table gives the parsing, its messages and the --help text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lib_internal.h"
#include "util/fileio.h"
#include "util/options.h"
#include "util/strutil.h"
#include "util/term.h"

static const struct opt_enum clocks[] = {
	{ "monotonic", 0 }, { "tsc", 1 }, { NULL, 0 },
};

#define OPT_STRUCT struct lib_opts
static const struct opt_entry lib_opt_table[] = {
	{ OPT_STRING(0, "filter", filter), .metavar = "REGEX",
	  .help = "only the benchmarks whose name matches (POSIX extended; "
	  "parameters are part of the name: 'sort \\[n=1000\\]')" },
	{ OPT_FLAG(0, "list", list),
	  .help = "print the benchmarks' names and exit" },
	{ OPT_COUNT(0, "epochs", epochs, 1, 100000),
	  .help = "measured epochs per benchmark" },
	/* OPT_DURATION up to a day */
	{ .type = OPT_T_DURATION, OPT_NAMES(0, "min-time"),
	  OPT_TYPED(min_time, double), .min = 0, .max = 86400,
	  .defval = "epochs of 1000 x the clock's resolution, at least 20 us",
	  .help = "at least T seconds measured per benchmark (0.5, 200ms)" },
	{ OPT_OUTPUT(0, "json", json), .flags = OPT_NONEMPTY,
	  .help = "the result (yardstick result v1, kind \"bench\"), for "
	  "yardstick compare, gate, history; - is stdout (the table then "
	  "goes to stderr). The environment variable "
	  "YARDSTICK_BENCH_JSON=FILE does the same" },
	{ OPT_OUTPUT(0, "gbench-json", gbench_json), .flags = OPT_NONEMPTY,
	  .help = "the result in Google Benchmark's JSON format (compare.py, "
	  "github-action-benchmark)" },
	{ OPT_ENUM(0, "clock", tsc, clocks), .metavar = "CLOCK",
	  .help = "monotonic (CLOCK_MONOTONIC, the vDSO) or tsc (rdtscp; only "
	  "where the TSC is invariant)" },
	{ OPT_FLAG(0, "no-counters", no_counters),
	  .help = "no perf counters (task-clock, cycles ...)" },
	{ OPT_FLAG(0, "no-alloc-count", no_alloc_count),
	  .help = "do not count allocations in the timed regions "
	  "(allocs_per_op ...: unsupported); they are counted only in a "
	  "program linked with -lyardstick_alloc" },
	{ OPT_SEED(seed, "of the iteration jitter and the bootstrap") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};
#undef OPT_STRUCT

static void lib_opts_init(void *args)
{
	struct lib_opts *o = args;

	o->epochs = 11;
	o->seed = 1;
}

static const char *const lib_usage[] = { "[OPTIONS]", NULL };

static const struct opt_cmd lib_cmd = {
	.name = "bench",
	.summary = "run the micro-benchmarks of this program",
	.usage = lib_usage,
	.description =
	"Run the micro-benchmarks of this program (libyardstick): each in\n"
	"epochs whose iterations are tuned to the clock's resolution, the\n"
	"median time per iteration with its MAD (err%) and a 95% bootstrap\n"
	"interval.\n",
	.epilog =
	"Exit status: 0 ok; 1 a benchmark failed; 2 bad usage or an output\n"
	"that cannot be written; 3 the environment refused (--clock tsc\n"
	"without an invariant TSC).\n",
	.mode = OPT_PERMUTE,
	.opts = lib_opt_table,
	.args_size = sizeof(struct lib_opts),
	.init = lib_opts_init,
};

static const char *prog(char **argv)
{
	const char *p = argv[0] ? strrchr(argv[0], '/') : NULL;

	return p ? p + 1 : argv[0] ? argv[0] : "bench";
}

/* The options into o: -1 to go on, else the exit code (0 after --help).
 * A copy of argv is parsed (the layer moves operands after the options),
 * so that the result's command is the one given. */
static int parse_args(int argc, char **argv, struct lib_opts *o)
{
	struct opt_cmd c = lib_cmd;
	struct opt_rest rest;
	char **copy = xmalloc(((size_t)argc + 1) * sizeof(*copy));
	int code;

	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	copy[argc] = NULL;
	c.program = prog(argv);
	if (!opt_parse_or_exit(&c, argc, copy, o, &rest, &code)) {
		free(copy);
		return code;
	}
	if (rest.first < rest.end) {
		fprintf(stderr, "%s: '%s': not an option (see --help)\n",
			c.program, copy[rest.first]);
		free(copy);
		return 2;
	}
	free(copy);
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
	rc = parse_args(argc, argv, &o);
	if (rc >= 0)
		return rc;
	o.argv = argv;
	o.argc = argc;
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
