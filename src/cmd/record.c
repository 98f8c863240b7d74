/*
 * `yardstick record`: a sampling CPU profiler. The sampler delivers raw
 * samples while the program runs; their user stacks (frame pointers, or
 * unwound from a stack copy with --call-graph dwarf) are interned as raw
 * address chains per process, and symbolized — each distinct address once —
 * when the process execs or the run ends, into the shared profile model
 * that every exporter reads. The collection is the engine's
 * (engine/record_run.h); this file parses, calls, reports and writes.
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cmd/commands.h"
#include "cmd/cmdopts.h"
#include "engine/record_run.h"
#include "profile/advice.h"
#include "util/options.h"
#include "profile/output.h"
#include "profile/profile.h"
#include "profile/pystacks.h"
#include "util/stop.h"
#include "util/strutil.h"
#include "util/term.h"

static const char *const record_usage[] = {
	"[OPTIONS] -- PROGRAM [ARGS...]",
	"[OPTIONS] --pid PID [--duration T]",
	"--diff BASE.folded NEW.folded -o DIFF.svg",
	NULL,
};

static const char record_description[] =
"Sample where PROGRAM spends its CPU time, in every thread and child\n"
"process it starts, and show the functions that cost the most; write\n"
"flame graphs and profiles for other viewers.\n";

static const char record_epilog[] =
"The program's standard input, output and error are its own (with -o -\n"
"its output goes to stderr, so that stdout holds the profile alone); the\n"
"report goes to stderr. Resolved symbols are kept per binary in\n"
"$XDG_CACHE_HOME/yardstick (~/.cache/yardstick), so that a later run\n"
"need not read the same debug information again. Functions are named\n"
"from the symbol table (.symtab, else a stripped library's exports in\n"
".dynsym), a separate debug file found by build-id under /usr/lib/debug\n"
"(Debian's -dbgsym packages; $YARDSTICK_DEBUG_DIR instead when set) and\n"
"DWARF; PLT stubs as SYM@plt; code no symbol covers by its module and\n"
"the start of its function in the unwind table (libx.so.5+0x1a2b0); and\n"
"only code nothing names as [unknown in MODULE], for which no Amdahl\n"
"bound is given (it may be many functions). A CPython program\n"
"(3.11, 3.12, 3.13) shows its own functions, files and lines in place of\n"
"the interpreter's evaluation frames, native frames kept above and below\n"
"(it is then unwound with dwarf unless -g says otherwise); other versions\n"
"are named and keep the interpreter's frames. When a fifth or more of\n"
"the samples are in a library Debian ships as an unoptimised reference\n"
"build (the reference BLAS, libblas3; LAPACK, liblapack3), the report\n"
"ends with advice: the package that replaces it. Exit\n"
"status: 0 when the program exited with 0; 1 when it failed or crashed\n"
"(the profile up to then is still reported and written), or ran too\n"
"briefly for a single sample (nothing is written); 2 bad usage, a\n"
"program that does not exist, an unreadable --diff input; 3 perf events\n"
"are not permitted or not supported (the message says which sysctl or\n"
"capability would allow them), or cannot follow the program: it is\n"
"set-user-ID, set-group-ID, has file capabilities or cannot be read (or\n"
"runs such a program: no sample came although it used CPU time); 130\n"
"stopped by Ctrl-C (SIGINT), 143 by SIGTERM: the program and everything\n"
"it started are killed, the profile up to then is written, marked partial\n"
"(the flame graph's subtitle, first; the speedscope name; a pprof\n"
"comment; folded stacks have no place for it); a\n"
"second signal exits at once, writing nothing more. Processes the\n"
"program leaves running when it exits are killed, with a warning that\n"
"names them. With --pid, sampling ends at --duration, Ctrl-C, SIGTERM or\n"
"the process's exit, each writing the profile and exiting 0 (1 when no\n"
"sample came); the process is never signalled and keeps running; exit\n"
"2 when there is no such process, 3 when it may not be sampled (another\n"
"user's: perf events need the right to ptrace it). Its child processes\n"
"(workers of gunicorn, a multiprocessing.Pool, a DataLoader) are\n"
"sampled with it unless --no-children; one of another user's is skipped\n"
"with a warning.\n";

/* The options: the engine's plan, and the outputs of the command. */
struct record_args {
	struct record_plan plan;
	bool quiet;
	long top;
	struct profile_outputs out;
	const char *title;
	bool diff;
	const char *diff_base, *diff_new;
	long pid;		/* --pid; copied to plan.pid */
	bool no_children;	/* --no-children: plan.so.children off */
};

static const struct opt_enum record_call_graphs[] = {
	{ "fp", false }, { "dwarf", true }, { NULL, 0 },
};

#define OPT_STRUCT struct record_args
static const struct opt_entry record_options[] = {
	{ OPT_COUNT('F', "freq", plan.so.freq, 1, 100000), .metavar = "HZ",
	  .help = "samples per second" },
	{ OPT_STRING('e', "event", plan.so.event), .metavar = "NAME",
	  .help = "the sampling event (default cpu-clock; cycles where the "
	  "machine has hardware counters)" },
	{ OPT_ENUM('g', "call-graph", plan.so.dwarf, record_call_graphs),
	  OPT_SETS(plan.call_graph_given),
	  .help = "fp (frame pointers; the default) or "
	  "dwarf (copy the user stack and unwind it with the binaries' CFI: "
	  "whole stacks without frame pointers; the default for a command "
	  "that runs CPython, which has none, through wrappers such as "
	  "env, sh -c, scripts and venv links)" },
	{ OPT_ATTACH_PID(pid, "profile") },
	{ OPT_ATTACH_DURATION(plan.duration, "sample") },
	{ OPT_ATTACH_NO_CHILDREN(no_children) },
	{ OPT_PYTHON(plan.python) },
	{ OPT_FLAG(0, "idle", plan.so.offcpu),
	  .help = "the time threads spend off the CPU too (sleeping, in "
	  "I/O, waiting for a lock or the GIL): each stack where a thread "
	  "left its CPU (blocked, not preempted), weighed by the time until "
	  "it ran again, under a root frame [idle] ([idle: GIL] for a "
	  "CPython thread waiting for the GIL)" },
	{ OPT_COUNT(0, "stack-size", plan.so.stack_size, 64,
		    SAMPLER_MAX_STACK),
	  OPT_SETS(plan.stack_size_given),
	  .step = 8,
	  .help = "bytes of stack copied per sample with dwarf (the most, "
	  "65528, for a command that runs CPython: its C stack under a C++ "
	  "library such as PyTorch runs deeper than 16384 bytes, and a "
	  "sample whose copy stops short of the interpreter keeps its "
	  "Python frames, the C frames between them lost)" },
	{ OPT_FLAG(0, "lines", out.lines),
	  .help = "file:line of every frame, the line executing (the "
	  "terminal report then has a row per line; a Python frame is "
	  "named qualname (file.py:LINE) in place of its def line)" },
	{ OPT_COUNT('n', "top", top, 1, LONG_MAX),
	  .help = "functions in the terminal report" },
	{ OPT_LIST('o', "output", out.paths, out.n), .metavar = "FILE",
	  .flags = OPT_FILES, .help = "write the profile (repeatable); the "
	  "format comes from the name: .folded (Brendan Gregg's folded "
	  "stacks), .svg (interactive flame graph), .speedscope.json, .pb.gz "
	  "(pprof)" },
	{ OPT_PROFILE_FORMAT(out.format) },
	{ OPT_STRING(0, "title", title), .metavar = "TEXT",
	  .help = "the flame graph's title" },
	{ OPT_FLAG(0, "diff", diff), .help = "a differential flame graph of "
	  "two .folded profiles, BASE and NEW, the operands: red grew, blue "
	  "shrank" },
	{ OPT_QUIET(quiet, "no terminal report") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void record_init(void *args)
{
	struct record_args *a = args;

	a->top = 20;
	a->plan.python = true;
	a->plan.so.freq = SAMPLER_DEFAULT_FREQ;
	a->plan.so.stack_size = SAMPLER_DEFAULT_STACK;
}

const struct opt_cmd record_cmd = {
	.name = "record",
	.summary = "sampling CPU profiler: top functions, flame graphs, pprof",
	.usage = record_usage,
	.description = record_description,
	.epilog = record_epilog,
	.mode = OPT_PROGRAM,
	.opts = record_options,
	.args_size = sizeof(struct record_args),
	.init = record_init,
};

static int parse(struct record_args *a, int argc, char **argv)
{
	struct opt_rest rest;
	int ret;

	if (!opt_parse_or_exit(&record_cmd, argc, argv, a, &rest, &ret))
		return ret ? ret : 1;
	if (a->diff) {
		if (rest.dashdash - rest.first != 2 || a->out.n != 1) {
			fputs("yardstick record: --diff takes BASE.folded "
			      "NEW.folded and one -o FILE\n", stderr);
			return 2;
		}
		/* a flame graph is all it draws: a name or --format asking
		 * for another format would get an SVG under that name */
		if (profile_fmt_of(a->out.paths[0], a->out.format) !=
		    PROFILE_FMT_NONE &&
		    profile_fmt_of(a->out.paths[0], a->out.format) !=
		    PROFILE_FMT_SVG) {
			fprintf(stderr, "yardstick record: --diff draws an "
				"SVG flame graph, not the format -o '%s' asks "
				"for (by its name or --format): name it "
				".svg\n", a->out.paths[0]);
			return 2;
		}
		a->diff_base = argv[rest.first];
		a->diff_new = argv[rest.first + 1];
		return 0;
	}
	ret = attach_args("record", &(struct attach_opts){
			.pid = a->pid, .duration = a->plan.duration,
			.no_children = a->no_children, .what = "recorded" },
			  argc, rest.first, rest.end, rest.dashdash);
	if (ret)
		return ret;
	if (a->pid) {
		a->plan.pid = (uint32_t)a->pid;
		a->plan.so.children = !a->no_children;
		for (size_t i = 0; i < a->out.n; i++)
			if (profile_fmt_of(a->out.paths[i], a->out.format) ==
			    PROFILE_FMT_NONE) {
				fprintf(stderr, "yardstick record: -o '%s': "
					"say the format with its name "
					"(.folded, .svg, .speedscope.json, "
					".pb.gz) or --format\n",
					a->out.paths[i]);
				return 2;
			}
		return 0;
	}
	return program_and_outputs("record", argc, argv, rest.first,
				   rest.dashdash, &a->out, &a->plan.argv);
}

/* How the program ended, or that a signal stopped it, and what it left
 * running (progargs.c's print_program_status, print_program_end). */
static void print_end(const struct sampler_stats *st)
{
	if (st->interrupted || st->strays || stop_signal())
		print_program_end("yardstick record", "profile", st->status,
				  st->strays, st->stray_names);
	else
		print_program_status("yardstick record", "profile",
				     st->status);
}

/* The denominator of a row's shares: a Python function's are of the
 * samples with Python frames (py, when some CPython samples kept their
 * native frames), every other's of all. */
static int64_t row_total(const struct profile_top *row, int64_t total,
			 int64_t py)
{
	return py && row->module && !strcmp(row->module, PYSTACKS_MODULE)
		? py : total;
}

/* A row's name: its function, and with --lines the line executing, as
 * every output names a frame (pystacks_label). malloc'd. */
static char *row_label(const struct profile_top *row, bool lines)
{
	return pystacks_label(&(struct frame){ .function = (char *)row->function,
					       .module = (char *)row->module,
					       .file = (char *)row->file,
					       .line = row->line },
			      lines);
}

static void print_report(const struct record_args *a,
			 const struct profile *p, const char *name,
			 const struct sampler_stats *st,
			 const struct pystacks_stats *pst, FILE *fp)
{
	bool color = term_use_color(fp);
	int64_t total = profile_total(p, 0), py = 0;
	struct profile_top *top = NULL;
	size_t ntop = 0;

	if (pst && pst->samples > pst->merged)
		py = profile_total_in(p, 0, PYSTACKS_MODULE);
	if (a->plan.pid)
		print_attached(fp, a->plan.pid, name, st);

	fprintf(fp, "%s%" PRId64 " samples%s in %.3f s, %.3f s of CPU (%.0f Hz "
		"effective), %" PRIu64 " lost, %.1f%% of frames unknown\n",
		term_bold(color), total, term_reset(color),
		st->duration_ns / 1e9, st->cpu_ns / 1e9, p->rate_hz, st->lost,
		p->total_frames ? 100.0 * p->unknown_frames / p->total_frames
				: 0.0);
	if (st->ring_why[0])
		fprintf(fp, "the perf ring buffers: %s%s\n", st->ring_why,
			st->lost ? "; samples were lost: raise ulimit -l" : "");
	if (total == 0 ||
	    (a->out.lines ? profile_top_lines(p, 0, &top, &ntop)
			  : profile_top(p, 0, &top, &ntop)))
		return;
	fprintf(fp, "%s%7s %7s %9s  %-40s %s%s\n", term_dim(color), "self",
		"total", "samples", "function", "module", term_reset(color));
	/* Symbol and module names come from the profiled program:
	 * escaped for the terminal. */
	for (size_t i = 0; i < ntop && i < (size_t)a->top; i++) {
		int64_t den = row_total(&top[i], total, py);
		char *label = row_label(&top[i], a->out.lines);

		fprintf(fp, "%6.2f%% %6.2f%% %9" PRId64 "  ",
			100.0 * top[i].self / den,
			100.0 * top[i].total / den, top[i].self);
		term_pad(fp, label, 40, false);
		free(label);
		fputc(' ', fp);
		term_puts(fp, top[i].module ? top[i].module : "");
		fputc('\n', fp);
	}
	if (py)
		fprintf(fp, "the [python] rows' shares are of the %" PRId64
			" samples with Python frames, not of all %" PRId64
			" (CPython samples that kept their native frames: "
			"python: below)\n", py, total);
	/* the first three in the table that are not in every sample (main
	 * and a leaf that all time goes through bound nothing) */
	for (size_t i = 0, said = 0; i < ntop && said < 3; i++) {
		double share = (double)top[i].total /
			       row_total(&top[i], total, py);
		char *label;

		if (share >= 1 || share <= 0 ||
		    !profile_names_function(top[i].function))
			continue;
		label = row_label(&top[i], a->out.lines);
		said++;
		fputs("if ", fp);
		term_puts(fp, label);
		free(label);
		fprintf(fp, " cost nothing, the program would be at most "
			"%.2f× faster\n", 1 / (1 - share));
	}
	free(top);
}

static int write_outputs(struct record_args *a, const struct profile *p,
			 struct output_set *outs)
{
	/* the marker of a partial profile before the command, which may be
	 * long */
	char *sub = xasprintf("%s%s%s%s — %" PRId64 " samples at %.0f Hz",
			      p->partial ? "partial: stopped by " : "",
			      p->partial ? p->partial : "",
			      p->partial ? " — " : "",
			      p->command ? p->command : "",
			      profile_total(p, 0), p->rate_hz);
	int ret;

	a->out.flame.title = a->title ? a->title : "yardstick record";
	a->out.flame.subtitle = sub;
	a->out.flame.unit = "samples";
	a->out.type = 0;
	a->out.prof = p;
	ret = write_output_set(outs, "yardstick record");
	a->out.flame.subtitle = NULL;
	free(sub);
	return ret;
}

/*
 * Not one sample: nothing to report or write. Returns 3 when the program
 * used CPU time for ten sampling periods or more, which cannot go without
 * a sample (perf events stopped following it: it exec'd a program that
 * changes credentials), else 1 (it ran too briefly for the rate).
 */
static int no_samples(const struct record_args *a,
		      const struct sampler_stats *st)
{
	double period = 1e9 / a->plan.so.freq;

	if (st->cpu_ns >= 10 * period) {
		fprintf(stderr, "yardstick record: no samples, although the "
			"program used %.3g ms of CPU time: perf events stopped "
			"following it — it runs a program that changes "
			"credentials (set-user-ID, set-group-ID, file "
			"capabilities) or cannot be read; no profile written\n",
			st->cpu_ns / 1e6);
		return 3;
	}
	fprintf(stderr, "yardstick record: no samples: the program used %.3g "
		"ms of CPU time, a few sampling periods at %d Hz at most "
		"(raise --freq, or give it more work); no profile written\n",
		st->cpu_ns / 1e6, a->plan.so.freq);
	return 1;
}

/* The engine's advice: a known slow library the profile sits in. */
static void print_advice(const struct record_run *run, FILE *fp)
{
	for (size_t i = 0; i < run->nadvice; i++) {
		char *text = advice_text(&run->advice[i]);

		fputs("advice: ", fp);
		term_puts(fp, text);
		fputc('\n', fp);
		free(text);
	}
}

/* What the run collected: printed, written; the exit code. */
static int finish(struct record_args *a, struct record_run *run,
		  struct output_set *outs)
{
	const struct profile *p = &run->prof;

	ignore_sigpipe();
	if (a->plan.pid) {
		print_attach_skipped("yardstick record", "sampled", &run->st);
		if (profile_total(p, 0) == 0) {
			fprintf(stderr, "yardstick record: no samples: process "
				"%u", a->plan.pid);
			if (run->st.children)
				fprintf(stderr, " and its %zu child process%s",
					run->st.children,
					plural_es(run->st.children));
			fprintf(stderr, " used %.3g ms of CPU time in the %.3f "
				"s sampled", run->st.cpu_ns / 1e6,
				run->st.duration_ns / 1e9);
			/* a thread's events count its own CPU time from its
			 * start: threads that each run less than a period
			 * (a thread per request) give none */
			if (run->st.cpu_ns >= 10 * 1e9 / a->plan.so.freq)
				fprintf(stderr, ", in threads that each ran less "
					"than a sampling period (%.3g ms at %d "
					"Hz): raise --freq", 1e3 / a->plan.so.freq,
					a->plan.so.freq);
			else
				fprintf(stderr, " (%s idle)",
					run->st.children ? "they were"
							 : "it was");
			fputs("; no profile written\n", stderr);
			return 1;
		}
	} else {
		print_end(&run->st);
		if (profile_total(p, 0) == 0)
			return program_exit_code(no_samples(a, &run->st),
						 run->st.status);
	}
	/* stdout is the program's: the report goes to stderr. */
	if (!a->quiet) {
		struct pystacks_stats pst;

		if (run->py)
			pystacks_stats(run->py, &pst);
		print_report(a, p, run->name, &run->st, run->py ? &pst : NULL,
			     stderr);
		print_advice(run, stderr);
	}
	if (run->py)
		pystacks_fput_report(run->py, a->quiet, stderr);
	if (a->plan.so.offcpu && !a->quiet)
		fprintf(stderr, "idle: %" PRIu64 " samples' worth off the CPU "
			"(%.3f s), %" PRIu64 " of them waiting for the GIL; %"
			PRIu64 " on it\n", run->idle_samples,
			(double)(run->idle_samples * run->interval) / 1e9,
			run->gil_samples, run->oncpu);
	/* an attached recording ends by a stop as by its duration: 0 */
	if (a->plan.pid)
		return write_outputs(a, &run->prof, outs);
	return program_exit_code(write_outputs(a, &run->prof, outs),
				 run->st.status);
}

static int record(struct record_args *a, struct output_set *outs)
{
	struct record_run run = { 0 };
	struct error e;
	int ret;

	/* An output that cannot be written is found before the run; with
	 * one on stdout, the program's stdout goes to stderr. */
	profile_outputs_to_set(&a->out, outs);
	ret = check_output_set(outs, "yardstick record");
	if (ret)
		return ret;
	a->plan.so.stdout_to_stderr = outputs_stdout(outs);
	ret = a->plan.pid ? attach_stop_start("yardstick record")
			  : program_stop_start("yardstick record");
	if (ret)
		return ret;
	a->plan.lines = a->out.lines;
	ret = record_prepare(&a->plan, &e);
	if (!ret)
		ret = record_collect(&run, &a->plan, &e);
	if (ret) {
		fprintf(stderr, "yardstick record: %s\n", e.msg);
		goto out_free;
	}
	ret = finish(a, &run, outs);
out_free:
	record_run_free(&run);
	return ret;
}

/* What --diff writes: the two profiles as one flame graph. */
struct diff_graph {
	struct profile base, cand;
	struct flame_opts fo;
};

static int write_diff(const char *path, void *graph, struct error *e)
{
	struct diff_graph *d = graph;

	return profile_write_diff_flamegraph(&d->base, &d->cand, &d->fo, path,
					     e);
}

static int diff(const struct record_args *a, struct output_set *outs)
{
	struct diff_graph d = { .fo = { .title = a->title ? a->title
					: "yardstick record --diff",
					.unit = "samples" } };
	struct error e;
	char sub[512];
	int ret;

	outputs_add(outs, "-o", a->out.paths[0], "svg", write_diff, &d);
	ret = check_output_set(outs, "yardstick record");
	if (ret)
		return ret;
	if (profile_read_folded(&d.base, a->diff_base, &e)) {
		fprintf(stderr, "yardstick record: %s\n", e.msg);
		return 2;
	}
	if (profile_read_folded(&d.cand, a->diff_new, &e)) {
		fprintf(stderr, "yardstick record: %s\n", e.msg);
		profile_free(&d.base);
		return 2;
	}
	snprintf(sub, sizeof(sub), "%s → %s",
		 a->diff_base, a->diff_new);
	d.fo.subtitle = sub;
	ret = write_output_set(outs, "yardstick record");
	profile_free(&d.base);
	profile_free(&d.cand);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a = { 0 };
	struct output_set outs;
	int ret;

	outputs_init(&outs);
	ret = parse(&a, argc, argv);
	if (ret == 0)
		ret = a.diff_base ? diff(&a, &outs) : record(&a, &outs);
	else if (ret == 1)
		ret = 0;
	outputs_free(&outs);
	profile_outputs_free(&a.out);
	return ret;
}
