/*
 * `yardstick trace`: a timeline of a program. The sampler of `record`
 * (profile/sampler.h) runs it with context-switch records as well as CPU
 * samples, so that every thread's on-CPU slices and why it left the CPU
 * (preempted or blocked), its name, forks and exits come from the kernel;
 * a program linked with libyardstick adds its zones, marks, counters and
 * async spans through a shared buffer (util/zonebuf.h) set up before its
 * exec. All of it lands in one timeline (profile/trace.h), written as
 * Chrome's trace JSON or Perfetto's protobuf, and summarized as tables
 * and a result of kind "trace". The collection, the tables and the
 * result are the engine's (engine/trace_run.h); this file parses, calls,
 * writes and prints.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cmd/commands.h"
#include "cmd/cmdopts.h"
#include "engine/trace_run.h"
#include "util/options.h"
#include "util/outputs.h"
#include "util/strutil.h"
#include "util/zonebuf.h"

/* The options: the engine's plan, and the outputs of the command. */
struct trace_args {
	struct trace_plan plan;
	char **outs;
	size_t nouts;
	int format;		/* 0 by the file's name, 1 chrome, 2 perfetto */
	uint64_t max_size;
	const char *json;
	const char *store;
	bool no_store;
	long pid;		/* --pid; copied to plan.pid */
	bool no_children;	/* --no-children: plan.so.children off */
};

static const char *const trace_usage[] = {
	"[OPTIONS] -- PROGRAM [ARGS...]",
	"[OPTIONS] --pid PID [--duration T] [--no-children]",
	NULL,
};

static const char trace_description[] =
"Record a timeline of PROGRAM: when each of its threads ran on a CPU and\n"
"why it left it (preempted, or blocked: a sleep, a lock, I/O), CPU samples\n"
"with their stacks, thread and process names, and, when it uses\n"
"libyardstick's zones, its zones, marks, counters and async spans. Write\n"
"it for chrome://tracing and ui.perfetto.dev, and print the latency of\n"
"each zone (count, total, self time, p50/p95/p99/max, share of the wall\n"
"time), the slowest instances and each thread's on-CPU and waiting time.\n"
"A thread's \"blocked\" time runs from when it left the CPU, not runnable,\n"
"until its wake-up; its \"sch delay\" from the wake-up until it ran\n"
"again, waiting for a CPU (perf sched timehist's \"sch delay\"; a\n"
"preempted thread's wait, and a new thread's for its first CPU, are\n"
"\"preempted\"). The wake-ups come from the sched_wakeup tracepoint,\n"
"opened for the whole system: it needs tracefs mounted and\n"
"kernel.perf_event_paranoid 0 or less (or CAP_PERFMON, or root); without\n"
"it the delay is reported unknown (\"?\") and \"blocked\" includes it. The report goes to stderr, so that stdout stays the\n"
"program's own output (and a trace written with -o -). With --pid, the\n"
"same timeline of a process running already (an inference server, a\n"
"DataLoader's workers), which keeps running: its threads, and those of\n"
"the child processes it has, from the attach on.\n";

static const char trace_epilog[] =
"Open a .json trace in chrome://tracing (Load) or ui.perfetto.dev (Open\n"
"trace file), a .perfetto-trace in ui.perfetto.dev. Times in the trace\n"
"are CLOCK_MONOTONIC (perf's use_clockid, and libyardstick's clock):\n"
"microseconds in the JSON, nanoseconds in Perfetto's file. An on-CPU\n"
"slice that began after a wake-up carries its scheduling delay: the\n"
"JSON's \"b\" event the arg sched_delay_us, Perfetto's slice the debug\n"
"annotation sched_delay_ns (absent: preempted before, or not measured).\n"
"YARDSTICK_TRACEFS=DIR reads the tracepoints' formats under DIR. Nothing is\n"
"dropped silently: the report says how many records perf lost, how many\n"
"events went past --max-events and how many zone events libyardstick's\n"
"buffers could not hold. Ctrl-C (SIGINT) or SIGTERM to yardstick kills\n"
"the program and everything it started; what was collected is still\n"
"reported and written, marked partial (the JSON trace's otherData\n"
"\"partial\": true and a global marker event; the Perfetto trace's\n"
"instant \"partial: stopped by SIGINT\" on a track \"yardstick\", with the\n"
"debug annotation yardstick.partial; the report's first line; the\n"
"setting partial of the result); a second one\n"
"exits at once, writing nothing more. Processes the program leaves\n"
"running when it exits are killed, with a warning that names them.\n"
"Exit status: 0 when the program exited\n"
"with 0; 1 when it failed or was killed (the trace is still written); 2\n"
"bad usage, a program that does not exist, an output that cannot be\n"
"written; 3 perf events are not permitted or not supported here; 130\n"
"stopped by SIGINT, 143 by SIGTERM. A\n"
"CPython program's samples (3.11, 3.12, 3.13) carry its own functions,\n"
"files and lines in place of the interpreter's evaluation frames\n"
"(--python off: the raw frames). With --pid, tracing ends at --duration,\n"
"Ctrl-C, SIGTERM or the process's exit, each writing the trace and\n"
"exiting 0; the process is never signalled. Its threads start in the\n"
"trace at the attach, named as they were then, and one asleep then is\n"
"blocked until it runs; the threads and processes they start later,\n"
"their names and ends are followed. Its zones begun since the attach are\n"
"read from the zone buffer it holds when 'yardstick trace -- PROGRAM'\n"
"started it (libyardstick maps a buffer only when one is handed to the\n"
"program as it starts: a process started otherwise has none, and the\n"
"report says so). Exit 2 when there is no such process, it exits as\n"
"yardstick attaches, or a program is given too; 3 when it may not be\n"
"traced (another user's: perf events need the right to ptrace it). A\n"
"child process of another user's is skipped with a warning.\n";

static const struct opt_enum trace_formats[] = {
	{ "auto", 0 }, { "chrome", 1 }, { "perfetto", 2 }, { NULL, 0 },
};

#define OPT_STRUCT struct trace_args
static const struct opt_entry trace_options[] = {
	{ OPT_LIST('o', "output", outs, nouts), .metavar = "FILE",
	  .flags = OPT_FILES, .help = "write the trace (repeatable); the "
	  "format comes from the name: .json (Chrome's trace event format), "
	  ".perfetto-trace or .pftrace (Perfetto's protobuf)" },
	{ OPT_ENUM(0, "format", format, trace_formats),
	  .help = "the format of every -o file, whatever its name" },
	{ OPT_COUNT('F', "freq", plan.so.freq, 1, 100000), .metavar = "HZ",
	  .help = "CPU samples per second" },
	{ OPT_FLAG(0, "page-faults", plan.so.page_faults),
	  .help = "every page fault of the program too: an instant with its "
	  "address, counted per thread (not with --pid)" },
	{ OPT_ATTACH_PID(pid, "trace") },
	{ OPT_ATTACH_DURATION(plan.duration, "trace") },
	{ OPT_ATTACH_NO_CHILDREN(no_children) },
	{ OPT_PYTHON(plan.python) },
	{ OPT_COUNT('n', "top", plan.top, 1, LONG_MAX),
	  .help = "slowest zone instances in the report" },
	{ OPT_COUNT(0, "max-events", plan.max_events, 1, 1L << 32),
	  .help = "events kept in memory (CPU samples waiting for their "
	  "symbols among them); those past it are counted as dropped" },
	{ OPT_SIZE(0, "max-size", max_size),
	  .help = "largest trace file: the trace stops there, with a message" },
	{ OPT_COUNT(0, "zone-threads", plan.zone_threads, 1, 65536),
	  .help = "threads of the program that can record zones" },
	{ OPT_SIZE(0, "zone-buffer", plan.zone_bytes),
	  .help = "zone buffer per thread (at most 1 GiB); events past it are "
	  "counted as lost" },
	{ OPT_OUTPUT(0, "json", json), .help = "the result (kind \"trace\": "
	  "one benchmark per zone name, its latency per instance; - for "
	  "stdout)" },
	{ OPT_STRING(0, "name", plan.name), .metavar = "NAME",
	  .help = "prefix of the benchmarks' names (default: none)" },
	{ OPT_STORE_SAVE(store) },
	{ OPT_NO_STORE(no_store) },
	{ OPT_QUIET(plan.quiet, "no report") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void trace_init_args(void *args)
{
	struct trace_args *a = args;

	a->plan.top = 10;
	a->plan.python = true;
	a->plan.so.freq = SAMPLER_DEFAULT_FREQ;
	a->plan.max_events = 4000000;
	a->max_size = 1ull << 30;
	a->plan.zone_threads = ZB_DEFAULT_THREADS;
	a->plan.zone_bytes = ZB_DEFAULT_THREAD_BYTES;
}

const struct opt_cmd trace_cmd = {
	.name = "trace",
	.summary = "timeline of a program: zones, threads on and off CPU, "
		   "samples; Chrome/Perfetto traces, zone latencies",
	.usage = trace_usage,
	.description = trace_description,
	.epilog = trace_epilog,
	.mode = OPT_PROGRAM,
	.opts = trace_options,
	.args_size = sizeof(struct trace_args),
	.init = trace_init_args,
};

/* ---- the outputs ---- */

struct trace_output {
	struct trace_run *run;
	const struct trace_args *a;
	const char *path;
	int format;		/* 1 chrome, 2 perfetto */
	struct trace_write_stats st;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int format_of(const struct trace_args *a, const char *path)
{
	if (a->format)
		return a->format;
	if (ends_with(path, ".json"))
		return 1;
	if (ends_with(path, ".perfetto-trace") || ends_with(path, ".pftrace"))
		return 2;
	return 0;
}

static int write_trace(const char *path, void *ctx, struct error *e)
{
	struct trace_output *o = ctx;
	const struct trace_args *a = o->a;
	struct trace_write_opts wo = { .max_bytes = a->max_size,
				       .process_name = a->plan.pid
				       ? o->run->name : a->plan.argv[0] };
	int ret;

	ret = o->format == 1
	      ? trace_write_chrome(&o->run->tr, &wo, path, &o->st, e)
	      : trace_write_perfetto(&o->run->tr, &wo, path, &o->st, e);
	if (ret == 0 && o->st.truncated)
		fprintf(stderr, "yardstick trace: -o '%s': stopped at "
			"--max-size %" PRIu64 " bytes: %" PRIu64 " of %zu "
			"events written, %" PRIu64 " left out (raise "
			"--max-size)\n", path, a->max_size, o->st.events,
			o->run->tr.n, o->st.truncated);
	return ret;
}

/* Keep the result in the store; returns the exit code (0 when kept). */
static int trace_save(struct trace_run *r, const struct trace_args *a)
{
	trace_build_result(r);
	return save_result(&r->res, a->store, a->plan.quiet);
}

static int trace_main(struct trace_args *a)
{
	struct trace_run r;
	struct output_set outs;
	struct trace_output *to;
	struct git_probe gp;
	struct error e;
	int ret;

	memset(&r, 0, sizeof(r));
	r.p = &a->plan;
	trace_init(&r.tr, (size_t)a->plan.max_events);
	outputs_init(&outs);
	to = xcalloc(a->nouts + 1, sizeof(*to));
	for (size_t i = 0; i < a->nouts; i++) {
		to[i] = (struct trace_output){ .run = &r, .a = a,
					       .path = a->outs[i],
					       .format = format_of(a,
							a->outs[i]) };
		outputs_add(&outs, "-o", a->outs[i], to[i].format == 1
			    ? "json" : "perfetto", write_trace, &to[i]);
	}
	outputs_add(&outs, "--json", a->json, "json", trace_write_result,
		    &r);
	ret = check_output_set(&outs, "yardstick trace");
	if (!ret && !a->no_store)
		ret = save_check(a->store);
	if (ret)
		goto out;
	a->plan.so.stdout_to_stderr = outputs_stdout(&outs);
	ret = a->plan.pid ? attach_stop_start("yardstick trace")
			  : program_stop_start("yardstick trace");
	if (ret)
		goto out;
	git_detect_start(&r.git, &gp, a->json || !a->no_store);
	/* its Python summary is printed inside trace_collect, after the
	 * program ended (the program gets SIGPIPE at its default) */
	ignore_sigpipe();
	ret = trace_collect(&r, &a->plan, &e);
	git_detect_finish(&gp);
	if (ret) {
		fprintf(stderr, "yardstick trace: %s\n", e.msg);
		free(r.git.commit);
		free(r.git.branch);
		goto out;
	}
	if (a->plan.pid) {
		print_attach_skipped("yardstick trace", "traced", &r.st);
		if (!a->plan.quiet)
			print_attached(stderr, a->plan.pid, r.name, &r.st);
	} else {
		print_program_end("yardstick trace", "trace", r.st.status,
				  r.st.strays, r.st.stray_names);
	}
	if (!a->plan.quiet)
		trace_report(&r, stderr);
	ret = write_output_set(&outs, "yardstick trace");
	if (!ret && !a->no_store)
		ret = trace_save(&r, a);
	/* an attached trace ends by a stop as by its duration: 0 */
	if (!a->plan.pid)
		ret = program_exit_code(ret, r.st.status);
	if (r.have_res)
		result_free(&r.res);
	free(r.git.commit);
	free(r.git.branch);
out:
	outputs_free(&outs);
	free(to);
	free(r.name);
	trace_free(&r.tr);
	return ret;
}

int cmd_trace(int argc, char **argv)
{
	struct trace_args a = { 0 };
	struct opt_rest rest;
	int ret;

	if (!opt_parse_or_exit(&trace_cmd, argc, argv, &a, &rest, &ret))
		goto out;
	ret = attach_args("trace", &(struct attach_opts){
			.pid = a.pid, .duration = a.plan.duration,
			.no_children = a.no_children, .what = "traced" },
			  argc, rest.first, rest.end, rest.dashdash);
	if (ret == 0 && a.pid && a.plan.so.page_faults) {
		fputs("yardstick trace: --page-faults is for a program: the "
		      "page faults of a running process are not traced\n",
		      stderr);
		ret = 2;
	}
	if (ret == 0 && a.pid) {
		a.plan.pid = (uint32_t)a.pid;
		a.plan.so.children = !a.no_children;
	} else if (ret == 0) {
		ret = program_and_outputs("trace", argc, argv, rest.first,
					  rest.dashdash, NULL, &a.plan.argv);
	}
	for (size_t i = 0; ret == 0 && i < a.nouts; i++)
		if (!format_of(&a, a.outs[i])) {
			fprintf(stderr, "yardstick trace: -o '%s': say the "
				"format with its name (.json, "
				".perfetto-trace, .pftrace) or --format\n",
				a.outs[i]);
			ret = 2;
		}
	if (ret == 0 && (a.plan.zone_bytes > ZB_MAX_THREAD_BYTES ||
			 a.plan.zone_bytes * (uint64_t)a.plan.zone_threads >
			 ((uint64_t)1 << 40))) {
		fprintf(stderr, "yardstick trace: --zone-buffer: %" PRIu64
			" bytes a thread for %ld threads: at most 1 GiB a "
			"thread and 1 TiB in all\n", a.plan.zone_bytes,
			a.plan.zone_threads);
		ret = 2;
	}
	if (ret == 0)
		ret = trace_main(&a);
out:
	free(a.outs);
	return ret;
}
