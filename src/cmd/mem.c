/*
 * `yardstick mem`: a heap profiler. The program runs with the heap agent
 * preloaded (src/heap/agent.c); its records are replayed into totals, the
 * peak, leaks, temporaries and allocation sites (src/heap/analyze.c),
 * symbolized into the profile model every exporter reads, and reported.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/mem.h"
#include "cmd/cmdopts.h"
#include "util/options.h"
#include "heap/timeline.h"
#include "util/outputs.h"
#include "util/stop.h"
#include "util/strutil.h"

static const char *const mem_usage[] = { "[OPTIONS] -- PROGRAM [ARGS...]",
					  NULL };

static const char mem_description[] =
"Trace every heap allocation PROGRAM makes (malloc, calloc, realloc,\n"
"reallocarray, free, posix_memalign, aligned_alloc, memalign, valloc,\n"
"pvalloc; C++ new and delete reach these) and report the peak heap and\n"
"when it happened, leaks, temporary allocations, allocation sizes, the\n"
"RSS, and the call stacks that cost the most.\n";

static const char mem_epilog[] =
"Definitions: sizes are the bytes asked for; the peak is the largest sum\n"
"of live blocks at any moment; leaked is what is still allocated at exit\n"
"(as heaptrack counts them). A temporary allocation is yardstick's own:\n"
"a block freed by the thread that allocated it before that thread\n"
"allocated or freed anything else (realloc is a free and an allocation).\n"
"heaptrack's differs: it counts a free as temporary when the event just\n"
"before it, in any thread, allocated a block of the same size from the\n"
"same stack, whichever block is freed; it counts more (a, b allocated\n"
"alike, then a freed: heaptrack 1, yardstick 0).\n"
"\n"
"If the program writes to the agent's descriptors (the highest two below\n"
"the descriptor limit), what it wrote is skipped; if it closes or replaces\n"
"its socket, the agent connects to yardstick again (up to 64 times).\n"
"Records that could still not be sent make the trace incomplete: a loud\n"
"warning, \"trace\": \"incomplete\" in the result's settings, the peak\n"
"and leaks listed as unsupported, the counts (exact) kept. The exit\n"
"status still is the program's.\n"
"\n"
"Python: in a CPython program (3.11, 3.12, 3.13: the static interpreter\n"
"or libpython, found by its _PyRuntime symbol) every allocation's stack\n"
"has the interpreter's _PyEval_EvalFrameDefault frames replaced by the\n"
"Python functions they ran, with file and line (the agent walks the\n"
"allocating thread's own Python frames), the native frames above and\n"
"below kept; --python off keeps the raw interpreter frames. The agent\n"
"sets PYTHONMALLOC=malloc in a CPython program, so that each object is\n"
"an allocation of its own, not a slice of pymalloc's arenas (which would\n"
"be attributed to the line that made the arena); a PYTHONMALLOC the\n"
"user set is kept, with a warning. Other CPython versions are named and\n"
"attributed to native frames only. What the program's Python code kept\n"
"is listed too: the blocks live when the interpreter began to finalize\n"
"(Py_FinalizeEx, after the main module, its non-daemon threads and the\n"
"atexit handlers; it then frees the modules' globals, so that they are\n"
"never leaked), by site; none when the program left by os._exit.\n"
"\n"
"Processes: the whole tree is traced. Children the program forks (and\n"
"their execs), processes it starts that keep LD_PRELOAD (posix_spawn,\n"
"subprocess, multiprocessing's fork and spawn) are each a process of\n"
"the report: pid, parent, allocations, bytes, its own peak and leaks,\n"
"command. The figures above them and the sites are the tree's: the peak\n"
"is the largest sum of all the processes' live blocks at one moment. A\n"
"forked child starts with no blocks of its own (its frees of its copies\n"
"of its parent's are ignored; the parent's stay live); the blocks a\n"
"process still holds when it ends (its _exit, exit or a kill; yardstick\n"
"sees the last two within the RSS interval) are its leaks and leave the\n"
"tree's heap. An exec drops the image's blocks (not leaks).\n"
"Launchers are not counted: the program is the last image of the process\n"
"yardstick started (what its execs ended in) and every process that\n"
"image started; the images before it of another executable (a pyenv\n"
"shim, a wrapper script that execs the program, env, nice) and every\n"
"process they started are\n"
"named in one line, \"not counted: N launcher processes ...\", and left\n"
"out of the totals, the peak, the timeline, the sites and the processes\n"
"(--all-processes counts them; with --sample, a killed launcher's\n"
"allocations stay in the exact counts, and the line says so). So\n"
"sh -c 'a | b' counts a and b, sh -c 'a; exec b' b\n"
"alone. Processes\n"
"still running when the program exits are traced up to then; a tree of\n"
"more than 4095 program images is summed in one row for the rest.\n"
"A program that crashes is reported up to the crash. Its\n"
"standard input, output and error are its own, except that with an\n"
"output on stdout (--json -, -o -, --timeline -) the program's standard\n"
"output goes to stderr, so that stdout holds that output alone; the\n"
"report goes to stderr.\n"
"\n"
"Environment: YARDSTICK_HEAP_AGENT, the agent's path (default: beside\n"
"yardstick, or in its install's libdir/yardstick); YARDSTICK_MEM_TIMING=1,\n"
"where yardstick's own time went (the run, the replay, symbolizing), the\n"
"most bytes of records it held at once and its stacks' bytes;\n"
"YARDSTICK_MEM_REPLAY=after,\n"
"the records replayed after the program ended rather than while it ran\n"
"(the same figures, but for the timeline's interval edges; more memory);\n"
"XDG_CACHE_HOME, where resolved symbols are kept per binary\n"
"($XDG_CACHE_HOME/yardstick, default ~/.cache/yardstick);\n"
"YARDSTICK_HEAP_RING=N, the chunk buffers per thread the agent hands over\n"
"in shared memory (1 to 16, default 16; 1: every chunk through the socket;\n"
"below 16 the agent uses the socket at once when they are all full);\n"
"YARDSTICK_HEAP_UNWIND=full, every libunwind walk a full one (slower; the\n"
"reference the default walk is tested against: the same stacks).\n"
"\n"
"Exit status: 0 the program exited with 0; 1 it failed or crashed (the\n"
"report is still written); 2 bad usage, a program that cannot be found,\n"
"is statically linked or set-user-ID (a preloaded agent cannot work\n"
"there), or an output that cannot be written; 3 the store is locked,\n"
"read-only or another user's, or libdw (elfutils), SQLite or libpq\n"
"cannot be loaded or a PostgreSQL store's server reached; 130 stopped by\n"
"Ctrl-C (SIGINT), 143 by SIGTERM: the program gets 2 s to end by itself\n"
"(it got the terminal's SIGINT), then it is killed, and what it started\n"
"gets 200 ms, SIGTERM and 2 s more (multiprocessing's resource tracker\n"
"unlinks the shared memory it forgot); the report up to then is written, marked partial (the\n"
"result's setting partial, the flame graph's subtitle, the speedscope\n"
"name, a pprof comment, the --timeline title; what it held then counts\n"
"as leaked); a second\n"
"signal exits at once, writing nothing more. Processes the program leaves\n"
"running when it exits are killed, with a warning that names them.\n";

/* --cost: what each shows, by the index of its name in mem_costs */
static const struct {
	enum heap_type type;
	const char *unit;
} costs[] = {
	{ HEAP_T_PEAK_SPACE, "bytes" },
	{ HEAP_T_ALLOC_SPACE, "bytes" },
	{ HEAP_T_ALLOC_OBJECTS, "allocations" },
	{ HEAP_T_TEMPORARY, "allocations" },
	{ HEAP_T_INUSE_SPACE, "bytes" },
	{ HEAP_T_PYEND_SPACE, "bytes" },
};

static const struct opt_enum mem_unwinds[] = {
	{ "dwarf", HEAP_UNWIND_DWARF }, { "fp", HEAP_UNWIND_FP }, { NULL, 0 },
};

/* The names of costs[], their index the value. */
static const struct opt_enum mem_costs[] = {
	{ "peak", 0 }, { "allocated", 1 }, { "allocations", 2 },
	{ "temporary", 3 }, { "leaked", 4 }, { "python-end", 5 },
	{ NULL, 0 },
};

#define OPT_STRUCT struct mem_args
static const struct opt_entry mem_options[] = {
	{ OPT_SIZE(0, "sample", plan.ho.sample_bytes), .help = "trace on average "
	  "one allocation per BYTES allocated (e.g. 512k): low overhead; "
	  "counts of allocations, bytes, frees, temporaries and sizes stay "
	  "exact (a killed program loses each thread's since its last "
	  "sample), the peak, leaks and sites become estimates" },
	{ OPT_COUNT(0, "sample-rate", plan.ho.sample_rate, 0, 1000000000),
	  OPT_SETS(sample_rate_given), .help = "with --sample: a thread "
	  "samples at most N times a second (default 10000); one "
	  "allocating faster has its interval doubled "
	  "until it does, each sample weighed by the interval it was drawn "
	  "at, so estimates stay unbiased (0: no limit)" },
	{ OPT_ENUM(0, "unwind", plan.ho.unwind, mem_unwinds),
	  .help = "dwarf (libunwind, any binary) or fp "
	  "(frame pointers: faster, needs binaries built with "
	  "-fno-omit-frame-pointer)" },
	{ OPT_PYTHON(plan.python) },
	{ OPT_FLAG(0, "all-processes", plan.all_processes),
	  .help = "count the launchers too: the images the program's "
	  "process exec'd away from (a pyenv shim, a wrapper script, env, "
	  "nice) and the processes they started" },
	{ OPT_COUNT(0, "depth", plan.ho.max_depth, 1, HEAP_MAX_DEPTH),
	  .help = "frames kept per stack" },
	{ OPT_COUNT('n', "top", plan.top, 1, LONG_MAX),
	  .help = "sites in each list of the report" },
	{ OPT_LIST('o', "output", out.paths, out.n), .metavar = "FILE",
	  .flags = OPT_FILES, .help = "write the profile (repeatable): "
	  ".folded, .svg (flame graph), .speedscope.json, .pb.gz (pprof, "
	  "with alloc_objects, alloc_space, inuse_objects, inuse_space, "
	  "temporary_objects, peak_space; python_end_space for a CPython "
	  "program)" },
	{ OPT_PROFILE_FORMAT(out.format) },
	{ OPT_ENUM(0, "cost", cost, mem_costs),
	  .help = "what folded and SVG outputs show: peak "
	  "(bytes live at the peak), allocated (bytes), allocations, "
	  "temporary, leaked (bytes), python-end (bytes live when a CPython "
	  "program's Python code ended; leaked when it never did)" },
	{ OPT_FLAG(0, "lines", out.lines),
	  .help = "file:line of every frame" },
	{ OPT_STRING(0, "title", title), .metavar = "TEXT",
	  .help = "the flame graph's title" },
	{ OPT_OUTPUT(0, "timeline", timeline),
	  .help = "an SVG of the heap and the RSS over time" },
	{ OPT_OUTPUT(0, "json", json), .help = "the result (kind \"mem\": "
	  "peak_heap, leaked_bytes, allocations, temporary_allocations, "
	  "peak_rss, python_end_bytes for a CPython program, and the "
	  "timeline's 1000 intervals, which 'yardstick "
	  "report' draws), for compare and gate; - is stdout" },
	{ OPT_STRING(0, "name", plan.name), .metavar = "NAME",
	  .help = "the benchmark's name in the result (default: the command "
	  "line)" },
	{ OPT_STORE_SAVE(store) },
	{ OPT_NO_STORE(no_store) },
	{ OPT_QUIET(quiet, "no report") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void mem_init(void *args)
{
	struct mem_args *a = args;

	a->plan.top = 5;
	a->plan.ho.unwind = HEAP_UNWIND_DWARF;
	a->plan.ho.max_depth = HEAP_MAX_DEPTH;
	a->plan.ho.sample_rate = HEAP_SAMPLE_RATE;
	a->plan.python = true;
	/* the replay beside the program unless YARDSTICK_MEM_REPLAY=after
	 * (the replay after its end, as before issue 30) */
	a->plan.ho.replay_live = !getenv("YARDSTICK_MEM_REPLAY") ||
				 strcmp(getenv("YARDSTICK_MEM_REPLAY"),
					"after") != 0;
}

const struct opt_cmd mem_cmd = {
	.name = "mem",
	.summary = "heap profiler: peak heap, leaks, temporary allocations, "
		   "allocation sites",
	.usage = mem_usage,
	.description = mem_description,
	.epilog = mem_epilog,
	.mode = OPT_PROGRAM,
	.opts = mem_options,
	.args_size = sizeof(struct mem_args),
	.init = mem_init,
};

static int parse(struct mem_args *a, int argc, char **argv)
{
	struct opt_rest rest;
	int ret;

	if (!opt_parse_or_exit(&mem_cmd, argc, argv, a, &rest, &ret))
		return ret ? ret : 1;
	if (a->sample_rate_given && !a->plan.ho.sample_bytes) {
		fputs("yardstick mem: --sample-rate needs --sample BYTES\n",
		      stderr);
		return 2;
	}
	return program_and_outputs("mem", argc, argv, rest.first,
				   rest.dashdash, &a->out, &a->plan.argv);
}

static int write_timeline(const char *path, void *run, struct error *e)
{
	struct mem_run *m = run;
	/* its title: the command, after the marker of a partial run */
	char *title = xasprintf("%s%s%s%s", stop_signal()
				? "partial: stopped by " : "",
				stop_signal_name(), stop_signal() ? " — " : "",
				m->prof.command ? m->prof.command : "heap");
	int ret = heap_write_timeline(&m->rep, title, path, e);

	free(title);
	return ret;
}

/* The outputs asked for, checked before the program runs; with one on
 * stdout, the program's stdout goes to stderr, so that stdout holds the
 * output alone (a JSON document stays one). */
static int check_outputs(struct mem_args *a, struct mem_run *m,
			 struct output_set *outs)
{
	profile_outputs_to_set(&a->out, outs);
	outputs_add(outs, "--timeline", a->timeline, "svg", write_timeline,
		    m);
	outputs_add(outs, "--json", a->json, "json", mem_write_result, m);
	if (check_output_set(outs, "yardstick mem"))
		return 2;
	if (!a->no_store) {
		int ret = save_check(a->store);

		if (ret)
			return ret;
	}
	a->plan.ho.stdout_to_stderr = outputs_stdout(outs);
	return 0;
}

/* The titles of the -o files, then every output. */
static int write_outputs(struct mem_args *a, struct mem_run *m,
			 struct output_set *outs)
{
	char *sub;
	int ret, cost = a->cost;

	if (costs[cost].type == HEAP_T_PYEND_SPACE &&
	    m->prof.ntypes <= HEAP_T_PYEND_SPACE) {
		/* no such moment: the profile has no python_end_space */
		if (a->out.n)
			fprintf(stderr, "yardstick mem: --cost python-end: "
				"the program's Python code never ended (not "
				"CPython, or it left by os._exit): the "
				"outputs show leaked\n");
		cost = 4;
	}
	/* the marker of a partial profile before the command, which may be
	 * long */
	sub = xasprintf("%s%s%s%s — %s", stop_signal()
			? "partial: stopped by " : "",
			stop_signal_name(), stop_signal() ? " — " : "",
			m->prof.command, mem_costs[cost].name);
	if (stop_signal())
		m->prof.partial = stop_signal_name();
	a->out.flame.title = a->title ? a->title : "yardstick mem";
	a->out.flame.subtitle = sub;
	a->out.flame.unit = costs[cost].unit;
	a->out.type = costs[cost].type;
	a->out.prof = &m->prof;
	ret = write_output_set(outs, "yardstick mem");
	a->out.flame.subtitle = NULL;
	free(sub);
	return ret;
}

/* Where the time and yardstick's memory went, for bench/mem_overhead.sh's
 * and mem_heldout.sh's readers. */
static void print_timing(const struct mem_run *m)
{
	if (getenv("YARDSTICK_MEM_TIMING"))
		fprintf(stderr, "yardstick mem: run %.3f s, replay %.3f s "
			"(%s), symbolize %.3f s (%.3f s of CPU); %llu bytes of records, %llu "
			"events, at most %.1f MiB of records held, %llu stacks "
			"in %.1f MiB: %.1f MiB in all\n",
			m->trace.duration, m->replay_s,
			m->trace.live ? "the rest of it after the end"
				      : "after the end",
			m->symbolize_s, m->symbolize_cpu_s,
			(unsigned long long)m->trace.bytes_received,
			(unsigned long long)m->rep.events,
			(double)m->rep.held_bytes / (1 << 20),
			(unsigned long long)m->rep.nstacks,
			(double)m->rep.stack_bytes / (1 << 20),
			(double)(m->rep.held_bytes + m->rep.stack_bytes) /
				(1 << 20));
}

/* Print, write, store; the exit code. */
static int finish(struct mem_args *a, struct mem_run *m,
		  struct output_set *outs)
{
	int ret;

	ignore_sigpipe();
	print_timing(m);
	mem_print_status(m);
	if (!a->quiet)
		mem_report(m, stderr);
	git_detect_finish(&m->git_probe);
	if (git_detect_warning(&m->git_probe))
		fprintf(stderr, "yardstick mem: warning: %s\n",
			git_detect_warning(&m->git_probe));
	ret = write_outputs(a, m, outs);
	if (!ret && !a->no_store && m->trace.agent_started)
		ret = mem_save(a, m);
	return program_exit_code(ret, m->trace.status);
}

static int mem(struct mem_args *a)
{
	struct mem_run m;
	struct output_set outs;
	struct error e;
	char *path = NULL;
	int ret;

	memset(&m, 0, sizeof(m));
	m.p = &a->plan;
	a->plan.sites = !a->quiet || a->out.n;
	a->plan.lines = a->out.lines;
	outputs_init(&outs);
	ret = check_outputs(a, &m, &outs);
	if (!ret && (ret = mem_prepare(&a->plan, &path, &e)))
		fprintf(stderr, "yardstick mem: %s\n", e.msg);
	if (ret)
		goto out;
	if (a->plan.as_limit)
		fprintf(stderr, "yardstick mem: warning: an address-space "
			"limit (ulimit -v) of %zu MiB is set: the agent's "
			"buffers take %zu MiB of it in yardstick and again in "
			"the program; if either runs out of memory, raise or "
			"lift it\n", a->plan.as_limit >> 20,
			heap_segment_bytes() >> 20);
	ret = program_stop_start("yardstick mem");
	if (ret)
		goto out;
	git_detect_start(&m.git, &m.git_probe, a->json || !a->no_store);
	if (mem_collect(&m, &a->plan, path, &e)) {
		fprintf(stderr, "yardstick mem: %s\n", e.msg);
		git_detect_finish(&m.git_probe);
		ret = 2;
	} else {
		ret = finish(a, &m, &outs);
	}
	profile_free(&m.prof);
	heap_report_free(&m.rep);
	heap_trace_free(&m.trace);
	if (m.have_res)
		result_free(&m.res);
	free(m.git.commit);
	free(m.git.branch);
out:
	outputs_free(&outs);
	free(path);
	free((char *)a->plan.ho.agent);
	return ret;
}

int cmd_mem(int argc, char **argv)
{
	struct mem_args a = { 0 };
	int ret;

	ret = parse(&a, argc, argv);
	if (ret == 0)
		ret = mem(&a);
	else if (ret == 1)
		ret = 0;
	profile_outputs_free(&a.out);
	return ret;
}
