/*
 * `yardstick import`: torch.profiler's Chrome trace as a result of kind
 * "trace", one benchmark per operator, stored like trace's; the reading,
 * the operator table and the result are the engine's
 * (engine/trace_import.h); this file parses, calls, writes and prints.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "engine/trace_import.h"
#include "util/options.h"
#include "util/outputs.h"

struct import_args {
	struct trace_import_plan plan;
	const char *json;
	const char *store;
	bool no_store;
	bool quiet;
};

static const char *const import_usage[] = {
	"[OPTIONS] TRACE.json",
	NULL,
};

static const char import_description[] =
"Import torch.profiler's Chrome trace (prof.export_chrome_trace(path):\n"
"the array of torch 1.13's profiler, or Kineto's object with\n"
"\"traceEvents\") as a result of kind \"trace\": one benchmark per\n"
"operator (aten::conv2d, ...), its latency and its self time per call.\n"
"Print the operator table, as key_averages().table() does: by self time\n"
"(the operator's time less that of the operators it called on its\n"
"thread), with its share of all self time, total time, average, count,\n"
"p50 and p99. The result is stored like trace's, so that `yardstick\n"
"gate` and `compare` judge an operator's latency or self time. Only\n"
"complete events (\"ph\": \"X\") of an operator's category (none, cpu_op,\n"
"Operator) are kept; the others are counted and ignored. The file is\n"
"read in chunks: memory holds the events kept (--max-events), not the\n"
"file. The table goes to stdout; to stderr when the result goes to\n"
"stdout (--json -).\n";

static const char import_epilog[] =
"Errors name the file, the event's index and byte offset: malformed\n"
"JSON, an event without a name, ts or dur, a time below 0 or past\n"
"9e15 µs, an event of more than 1 MiB, an event that starts inside\n"
"another of its thread and ends more than 1 µs after it (children\n"
"ending up to 1 µs late, the format's rounding, are clipped to their\n"
"parent and counted). Exit status: 0 ok; 2 bad usage or a trace that\n"
"cannot be read (nothing is stored then); 3 a store that cannot take\n"
"the result.\n";

#define OPT_STRUCT struct import_args
static const struct opt_entry import_options[] = {
	{ OPT_COUNT('n', "top", plan.top, 1, LONG_MAX),
	  .help = "operators in the table" },
	{ OPT_COUNT(0, "max-events", plan.max_events, 1, 1L << 32),
	  .help = "operator events kept in memory; those past it are "
	  "counted as dropped and left out" },
	{ OPT_STRING(0, "name", plan.name), .metavar = "NAME",
	  .help = "prefix of the benchmarks' names (default: none)" },
	{ OPT_OUTPUT(0, "json", json), .help = "the result (kind \"trace\": "
	  "one benchmark per operator; - for stdout)" },
	{ OPT_STORE_SAVE(store) },
	{ OPT_NO_STORE(no_store) },
	{ OPT_QUIET(quiet, "no operator table") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void import_init_args(void *args)
{
	struct import_args *a = args;

	a->plan.top = 20;
	a->plan.max_events = 4000000;
}

const struct opt_cmd import_cmd = {
	.name = "import",
	.summary = "torch.profiler's Chrome trace as a result: operator "
		   "latencies, self times, their table",
	.usage = import_usage,
	.description = import_description,
	.epilog = import_epilog,
	.mode = OPT_PERMUTE,
	.opts = import_options,
	.args_size = sizeof(struct import_args),
	.init = import_init_args,
};

static int import_main(struct import_args *a)
{
	struct trace_import im;
	struct output_set outs;
	struct error e;
	int ret;

	outputs_init(&outs);
	outputs_add(&outs, "--json", a->json, "json",
		    trace_import_write_result, &im);
	ret = check_output_set(&outs, "yardstick import");
	if (!ret && !a->no_store)
		ret = save_check(a->store);
	if (ret) {
		outputs_free(&outs);
		return ret;
	}
	ret = trace_import_read(&im, &a->plan, &e);
	if (ret) {
		fprintf(stderr, "yardstick import: %s\n", e.msg);
		ret = error_exit_code(&e);
	}
	else if (!a->quiet) {
		trace_import_report(&im, outputs_stdout(&outs) ? stderr
							      : stdout);
		fflush(stdout);	/* the table before the store's message */
	}
	if (!ret)
		ret = write_output_set(&outs, "yardstick import");
	if (!ret && !a->no_store) {
		trace_import_build_result(&im);
		ret = save_result(&im.res, a->store, a->quiet);
	}
	trace_import_free(&im);
	outputs_free(&outs);
	return ret;
}

int cmd_import(int argc, char **argv)
{
	struct import_args a = { 0 };
	struct opt_rest rest;
	int ret;

	if (!opt_parse_or_exit(&import_cmd, argc, argv, &a, &rest, &ret))
		return ret;
	if (rest.end - rest.first != 1) {
		fprintf(stderr, "yardstick import: %s (see 'yardstick import "
			"--help')\n", rest.end == rest.first
			? "no trace given" : "one trace at a time");
		return 2;
	}
	a.plan.path = argv[rest.first];
	return import_main(&a);
}
