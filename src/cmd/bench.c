/*
 * `yardstick bench`: run a benchmark program built with libyardstick
 * (include/yardstick.h) in --processes processes (measure/benchproc.h),
 * each writing its result (kind "bench") through a pipe, merged into one
 * result whose values name their process; print the table, keep the
 * result in the store and compare it with a baseline: a stored result
 * (--baseline) or another build run in alternating processes beside it
 * (--baseline-program), and gate the comparison (--max-increase) through
 * the gate's own code. A process that fails, hangs or writes no usable
 * result stores nothing; an interrupt keeps the processes measured.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "engine/gate_config.h"
#include "util/options.h"
#include "engine/refs.h"
#include "engine/run_report.h"
#include "engine/bench_run.h"
#include "config.h"
#include "measure/benchproc.h"
#include "measure/machine.h"
#include "result/compare.h"
#include "result/metrics.h"
#include "result/gate.h"
#include "util/child.h"
#include "util/outputs.h"
#include "util/stop.h"
#include "util/strutil.h"
#include "util/term.h"

/* The processes of a program by default, and the epochs each measures
 * unless --epochs says: pyperf's 20 worker processes, each with a few
 * values. A process's epochs share its CPU, its cache layout and its
 * neighbours, and vary less among themselves than processes do: twenty
 * processes of 5 epochs tell more than one of 100 (docs/libyardstick.md). */
#define BENCH_PROCESSES 20

static const char *const bench_usage[] = {
	"[OPTIONS] -- PROGRAM [ARGS...]",
	"--baseline-program OLD [OPTIONS] -- PROGRAM [ARGS...]", NULL };

static const char bench_description[] =
"Run PROGRAM, a benchmark program built with libyardstick (yardstick.h,\n"
"-lyardstick), in --processes processes, one after the other, and merge\n"
"the results they measured into one: every value keeps the process that\n"
"measured it (JSON \"process\"), since a process shifts as a whole with\n"
"the CPU it lands on. Print them (per benchmark: time per operation with\n"
"its 95% CI and spread, throughput, allocations per operation; the\n"
"ratios of the variants of a group), keep them in the store (kind\n"
"\"bench\": `yardstick gate` and `history` then work on the benchmark\n"
"names as on `run` results) and, with --baseline, compare them with an\n"
"earlier result as `yardstick compare` does.\n"
"\n"
"With --baseline-program OLD, OLD (another build of the same benchmarks,\n"
"given the same ARGS) runs as many processes, alternating with PROGRAM's\n"
"as OLD PROGRAM PROGRAM OLD OLD PROGRAM ..., so that a drift of the\n"
"machine falls on both alike; both results are kept (OLD's first) and\n"
"compared, and --max-increase gates the comparison as `yardstick gate`\n"
"does (docs/ci-recipe.md: a pull request against its merge base on one\n"
"CI runner).\n"
"\n"
"Each process runs with " BENCHPROC_ENV "=/dev/fd/3 in its\n"
"environment and writes its result (JSON, yardstick/result/v1) to that\n"
"descriptor, a pipe that yardstick reads to its end; --filter,\n"
"--min-time and --epochs are passed on to it, after ARGS (--epochs "
"5\n"
"when not given and there is more than one process).\n"
"The report goes to stdout; to stderr when an output is stdout (- as a\n"
"FILE), so that stdout holds that output alone.\n";

static const char bench_epilog[] =
"PROGRAM's standard input is /dev/null, its standard output is discarded\n"
"(--show-output lets it through), its standard error is yardstick's with\n"
"one process; with more, a process's standard error is shown only when\n"
"it fails (its warnings are in its result). Each process runs in its own\n"
"process group: at the --timeout (per process) or Ctrl-C the group is\n"
"killed.\n"
"\n"
"Exit status: 0 ok (whatever the comparison with the baseline says,\n"
"unless --max-increase is given; see 'yardstick gate'); 1 a process\n"
"exited with a non-zero status, was killed by a signal or timed out\n"
"(nothing is stored) — but its exit status 2 (bad usage, such as a\n"
"--filter that matches no benchmark) or 3 (the environment refused) is\n"
"passed on — or a --max-increase check failed; 2 bad usage, a program\n"
"that does not exist, a result that is missing, malformed, not of kind\n"
"\"bench\", without any benchmark or larger than --max-result (nothing\n"
"is stored), a baseline that cannot be read, an output that cannot be\n"
"written; 3 the store is locked, read-only or another user's, or SQLite\n"
"or libpq cannot be loaded or a PostgreSQL store's server reached; 130\n"
"interrupted by SIGINT, 143 by SIGTERM (the running process and what it\n"
"started killed, those that left its group too; the processes measured\n"
"before are reported, written and stored, with a warning, marked\n"
"partial: the setting partial, a CSV column partial, a Markdown first\n"
"line; none\n"
"measured: nothing stored; a second signal exits at once).\n";

/* The options: the engine's plan, and the comparison and outputs of the
 * command. */
struct bench_args {
	struct bench_plan plan;
	const char *baseline, *baseline_json;
	struct gate_config gate;
	const char *json, *csv, *markdown, *bmf, *store;
	bool no_store, quiet;
};

/* --max-increase: a threshold of the gate. */
static int opt_threshold(void *args, const struct opt_entry *o,
			 const char *arg, struct error *e)
{
	struct bench_args *a = args;

	return gate_config_add(&a->gate, arg, (enum gate_kind)o->data, NULL,
			       e);
}

#define OPT_STRUCT struct bench_args
static const struct opt_entry bench_options[] = {
	OPT_GROUP("The benchmark program"),
	{ OPT_COUNT(0, "processes", plan.processes, 1, 10000), .defval = "20",
	  .help = "run PROGRAM in N processes, one after the other, and "
	  "merge their results (1: one process, as PROGRAM alone runs)" },
	{ OPT_COUNT(0, "max-processes", plan.max_processes, 1, 10000),
	  .defval = "100", .help = "with --baseline-program and "
	  "--max-increase: when the first --processes of each program are "
	  "too noisy for the checks (below 90% power against a change "
	  "twice the threshold), measure more of each, alternating, up to "
	  "N (the --processes N, when larger; N = --processes: never more)" },
	{ OPT_STRING(0, "filter", plan.filter), .metavar = "REGEX",
	  .flags = OPT_NONEMPTY, .help = "only the benchmarks whose name "
	  "matches REGEX (passed on as --filter)" },
	{ OPT_DURATION(0, "min-time", plan.min_time), .flags = OPT_MIN_EXCL,
	  OPT_SETS(plan.min_time_given), .help = "the least time each "
	  "benchmark is measured for in each process (passed on as "
	  "--min-time, in seconds); units s, ms, us, ns" },
	{ OPT_COUNT(0, "epochs", plan.epochs, 1, 100000),
	  OPT_SETS(plan.epochs_given),
	  .help = "measured epochs of each benchmark in each process "
	  "(passed on as --epochs; default: PROGRAM's own with one process, "
	  "5 with more)" },
	{ OPT_DURATION('t', "timeout", plan.timeout), .flags = OPT_MIN_EXCL,
	  .help = "kill a process of PROGRAM (and all it started) after T" },
	{ OPT_SIZE(0, "max-result", plan.max_result), .defval = "64MiB",
	  .help = "refuse a result "
	  "larger than BYTES (the program is killed when it writes more)" },
	{ OPT_FLAG(0, "show-output", plan.show_output),
	  .help = "let PROGRAM's standard output through (default: discard)" },
	OPT_GROUP("Comparison"),
	{ OPT_STRING('b', "baseline", baseline), .metavar = "REF",
	  .help = "compare time_per_op, allocs_per_op and alloc_bytes_per_op "
	  "with this result set, as 'yardstick compare -m M REF NEW' would: a "
	  "JSON file (yardstick, hyperfine, Google Benchmark), latest, a "
	  "result id, @COMMIT or branch:NAME (read before PROGRAM runs)" },
	{ OPT_PATH(0, "baseline-program", plan.baseline_program),
	  .metavar = "OLD", .help = "the baseline is OLD, another build of "
	  "PROGRAM, measured now in as many processes alternating with "
	  "PROGRAM's (OLD PROGRAM PROGRAM OLD ...), given the same ARGS; "
	  "both results stored, OLD's first" },
	{ OPT_OUTPUT(0, "baseline-json", baseline_json), .help = "write "
	  "OLD's result (--baseline-program) as JSON to FILE (- for stdout)" },
	{ OPT_CALLBACK(0, "max-increase", opt_threshold),
	  .data = GATE_INCREASE, .metavar = "SPEC",
	  .help = "METRIC[.STAT]=VALUE: gate the comparison as 'yardstick "
	  "gate --max-increase' does (time_per_op=5%): exit 1 when the "
	  "statistic grew significantly by more. Repeatable" },
	OPT_GROUP("Output"),
	OPT_RESULT_OUTPUTS(json, csv, markdown, bmf, "epoch"),
	{ OPT_STORE_SAVE(store) },
	{ OPT_NO_STORE(no_store) },
	{ OPT_QUIET(quiet, "no terminal table, nor the warning about its p95/p99") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void bench_init(void *args)
{
	struct bench_args *a = args;

	a->plan.max_result = (uint64_t)64 << 20;
	a->plan.processes = BENCH_PROCESSES;
	a->plan.max_processes = BENCH_MAX_PROCESSES;
	gate_config_init(&a->gate);
}

const struct opt_cmd bench_cmd = {
	.name = "bench",
	.summary = "run a libyardstick benchmark program in processes, store "
		   "and compare its results",
	.usage = bench_usage,
	.description = bench_description,
	.epilog = bench_epilog,
	.mode = OPT_PROGRAM,
	.opts = bench_options,
	.args_size = sizeof(struct bench_args),
	.init = bench_init,
};

/* The signal policy of every command that runs a program (util/stop.h):
 * Ctrl-C, SIGTERM and SIGHUP stop the wait, and what the program leaves
 * running is killed (child_sweep). */
static void handlers_install(void)
{
	struct error e;

	if (stop_install_kept(&e))
		fprintf(stderr, "yardstick bench: warning: %s\n", e.msg);
}

/* How c ended, when not with exit status 0: the message and exit code. */
static int program_status(const struct child *c, const char *prog)
{
	char *safe = term_safe(prog);
	int ret = 1;

	if (c->interrupted) {
		fprintf(stderr, "yardstick bench: interrupted: '%s' and what "
			"it started were killed; nothing is stored\n", safe);
		ret = stop_exit_code();
	} else if (c->timed_out) {
		fprintf(stderr, "yardstick bench: '%s' did not finish within "
			"the timeout of %g s and was killed; nothing is stored\n",
			safe, c->timeout);
	} else if (WIFSIGNALED(c->status)) {
		fprintf(stderr, "yardstick bench: '%s' was killed by signal %d "
			"(%s); nothing is stored\n", safe, WTERMSIG(c->status),
			strsignal(WTERMSIG(c->status)));
	} else if (WIFEXITED(c->status) && WEXITSTATUS(c->status) != 0) {
		fprintf(stderr, "yardstick bench: '%s' exited with %d; nothing "
			"is stored\n", safe, WEXITSTATUS(c->status));
		/* ys_main's 2 (bad usage) and 3 (the environment refused)
		 * mean what ours do */
		if (WEXITSTATUS(c->status) == 2 || WEXITSTATUS(c->status) == 3)
			ret = WEXITSTATUS(c->status);
	} else {
		ret = 0;
	}
	free(safe);
	return ret;
}

/* Whether the program's own ARGS send its result elsewhere (--json). */
static bool json_option(char *const *argv)
{
	for (size_t i = 1; argv[i]; i++)
		if (!strcmp(argv[i], "--json") ||
		    !strncmp(argv[i], "--json=", 7))
			return true;
	return false;
}

/* Why the processes stopped (not an interrupt), printed: the exit code. */
static int print_failure(const struct bench_args *a,
			 const struct benchproc_run *run, const char *path,
			 const struct error *e)
{
	char *safe = term_safe(path);
	int ret = 2;

	if (run->err_text)	/* the failing process's own words */
		fwrite(run->err_text, 1, run->err_len, stderr);
	if (run->nrun > 1)
		fprintf(stderr, "yardstick bench: process %zu (of '%s'):\n",
			run->nrun, safe);
	switch (run->fail) {
	case BENCHPROC_START:
		fprintf(stderr, "yardstick bench: %s\n", e->msg);
		break;
	case BENCHPROC_PIPE:
		fprintf(stderr, "yardstick bench: %s\n", e->msg);
		ret = 1;
		break;
	case BENCHPROC_ENDED:
		ret = program_status(&run->child, path);
		break;
	case BENCHPROC_OVERFLOW:
		fprintf(stderr, "yardstick bench: '%s' wrote more than %llu "
			"bytes of results and was killed (--max-result); "
			"nothing is stored\n", safe,
			(unsigned long long)a->plan.max_result);
		break;
	case BENCHPROC_NO_RESULT:
		fprintf(stderr, "yardstick bench: '%s' exited without writing "
			"a result to $" BENCHPROC_ENV " (%s); nothing is "
			"stored\n", safe, json_option(a->plan.argv) ?
			"ARGS give it "
			"--json: its result went there" : "is it a benchmark "
			"program built with libyardstick?");
		break;
	case BENCHPROC_BAD_RESULT:
	case BENCHPROC_MERGE:
		/* the message quotes what the program wrote: escaped */
		fputs("yardstick bench: ", stderr);
		term_puts(stderr, e->msg);
		fputs("; nothing is stored\n", stderr);
		break;
	case BENCHPROC_KIND:
		fprintf(stderr, "yardstick bench: '%s' wrote a result of kind "
			"'", safe);
		term_puts(stderr, run->kind);
		fputs("', not a benchmark result (kind 'bench'); nothing is "
		      "stored\n", stderr);
		break;
	case BENCHPROC_EMPTY:
		fprintf(stderr, "yardstick bench: '%s' ran no benchmark (does "
			"--filter match any? see PROGRAM --list); nothing is "
			"stored\n", safe);
		break;
	case BENCHPROC_OK:
	case BENCHPROC_INTERRUPTED:
		break;
	}
	free(safe);
	return ret;
}

/* ---- the terminal table ---------------------------------------------- */

/* The median of metric name of b, NULL when not measured. */
static const struct summary *median_of(const struct benchmark *b,
				       const char *name)
{
	const struct metric *m = benchmark_find_metric(b, name);

	return m && m->summary.n ? &m->summary : NULL;
}

/* The benchmark's rate of work (the vocabulary's rate family), scaled as
 * every table scales a rate: "21.19 GiB/s", "2.044 G flop/s". */
static void throughput_cell(const struct benchmark *b, FILE *fp)
{
	const struct metric *m = metrics_rate_of(b);
	char buf[48];

	term_pad(fp, m ? fmt_value(m->summary.median, m->unit, buf,
				   sizeof(buf)) : "-", 16, true);
}

static void allocs_cell(const struct benchmark *b, FILE *fp)
{
	const struct summary *n = median_of(b, METRIC_ALLOCS_PER_OP);
	const struct summary *sz = median_of(b, METRIC_ALLOC_BYTES_PER_OP);
	char a[32], c[32], buf[80];

	if (!n) {
		term_pad(fp, "-", 20, true);
		return;
	}
	fmt_value(n->median, "count", a, sizeof(a));
	if (sz && sz->median > 0)
		snprintf(buf, sizeof(buf), "%s (%s)", a,
			 fmt_value(sz->median, "bytes", c, sizeof(c)));
	else
		snprintf(buf, sizeof(buf), "%s", a);
	term_pad(fp, buf, 20, true);
}

static size_t table_width(char **names, size_t n)
{
	size_t w = 9;

	for (size_t i = 0; i < n; i++) {
		char *safe = term_safe(names[i]);
		size_t len = term_width(safe);

		free(safe);
		if (len > w)
			w = len;
	}
	return w > 48 ? 48 : w;
}

static void print_row(const struct benchmark *b, const char *name, size_t w,
		      bool color, FILE *fp)
{
	const struct metric *t = benchmark_find_metric(b, METRIC_TIME_PER_OP);
	const struct summary *s = t && t->summary.n ? &t->summary : NULL;
	char med[32], lo[32], hi[32], ci[80], err[32];

	term_cell(fp, name, w);
	if (!s) {
		fputs("  no measured time per operation\n", fp);
		return;
	}
	fprintf(fp, " %6zu ", s->n);
	fputs(term_bold(color), fp);
	term_pad(fp, fmt_value(s->median, "s", med, sizeof(med)), 11, true);
	fputs(term_reset(color), fp);
	if (s->median > 0)
		snprintf(err, sizeof(err), "%.1f%%", 100 * s->mad / s->median);
	else
		snprintf(err, sizeof(err), "-");
	fputc(' ', fp);
	term_pad(fp, err, 6, true);
	snprintf(ci, sizeof(ci), "[%s, %s]",
		 fmt_value(s->median_ci[0], "s", lo, sizeof(lo)),
		 fmt_value(s->median_ci[1], "s", hi, sizeof(hi)));
	term_pad(fp, ci, 24, true);
	throughput_cell(b, fp);
	allocs_cell(b, fp);
	fputc('\n', fp);
}

/* The unsupported metrics of every benchmark, each named once. */
static void print_unsupported(const struct result *r, FILE *fp)
{
	bool any = false;

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];

		for (size_t k = 0; k < b->nunsupported; k++) {
			bool seen = false;

			for (size_t j = 0; j < i && !seen; j++)
				for (size_t l = 0;
				     l < r->benchmarks[j].nunsupported; l++)
					seen |= !strcmp(b->unsupported[k],
						r->benchmarks[j].unsupported[l]);
			if (seen)
				continue;
			fputs(any ? ", " : "  not supported on this machine: ",
			      fp);
			term_puts(fp, b->unsupported[k]);
			any = true;
		}
	}
	if (any)
		fputs("\n\n", fp);
}

static void time_cell(const struct summary *s, double v, int width,
		      FILE *fp)
{
	char buf[32];

	term_pad(fp, s ? fmt_value(v, "s", buf, sizeof(buf)) : "-",
		 (size_t)width, true);
}

/*
 * The calls timed one by one (call_time: after each epoch, a quarter of
 * its iterations, 4 to 64 calls) and the first call of each process
 * (first_call_time, one value a process: its median), as the Python
 * package's own report prints them: the per-call p99 is what a gate on
 * call_time.p99 judges, and the first call is kept out of it.
 */
static void print_calls(const struct result *r, char **names, size_t w,
			bool color, FILE *fp)
{
	bool any = false;

	for (size_t i = 0; i < r->nbenchmarks; i++)
		any |= median_of(&r->benchmarks[i], METRIC_CALL_TIME) != NULL;
	if (!any)
		return;
	if (w < 22)
		w = 22;
	fprintf(fp, "%s", term_dim(color));
	term_pad(fp, "calls timed one by one", w, false);
	fprintf(fp, " %11s %10s %10s %10s %6s%s\n", "first call", "p50",
		"p95", "p99", "calls", term_reset(color));
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];
		const struct summary *c = median_of(b, METRIC_CALL_TIME);
		const struct summary *f = median_of(b, METRIC_FIRST_CALL_TIME);

		if (!c)
			continue;
		term_cell(fp, names[i], w);
		fputc(' ', fp);
		time_cell(f, f ? f->median : 0, 11, fp);
		fputc(' ', fp);
		time_cell(c, c->median, 10, fp);
		fputc(' ', fp);
		time_cell(c, c->p95, 10, fp);
		fputc(' ', fp);
		time_cell(c, c->p99, 10, fp);
		fprintf(fp, " %6zu\n", c->n);
	}
	fputc('\n', fp);
}

/* One line per benchmark: time per operation (median of the epochs, its
 * MAD in % of it (err%), the bootstrap CI of the median), throughput and
 * allocations per operation (and their bytes); then the calls timed one
 * by one, the group ratios and the complexity fits. */
static void bench_report(const struct result *r, FILE *fp)
{
	bool color = term_use_color(fp);
	char **names = xcalloc(r->nbenchmarks + 1, sizeof(char *));
	size_t w;

	for (size_t i = 0; i < r->nbenchmarks; i++)
		names[i] = benchmark_display_name(&r->benchmarks[i]);
	w = table_width(names, r->nbenchmarks);
	fprintf(fp, "%s", term_dim(color));
	term_pad(fp, "benchmark", w, false);
	fprintf(fp, " %6s ", "epochs");
	term_pad(fp, "time/op", 11, true);
	fputc(' ', fp);
	term_pad(fp, "err%", 6, true);
	term_pad(fp, "median 95% CI", 24, true);
	term_pad(fp, "throughput", 16, true);
	term_pad(fp, "allocs/op (bytes)", 20, true);
	fprintf(fp, "%s\n", term_reset(color));
	for (size_t i = 0; i < r->nbenchmarks; i++)
		print_row(&r->benchmarks[i], names[i], w, color, fp);
	fputc('\n', fp);
	print_calls(r, names, w, color, fp);
	print_unsupported(r, fp);
	run_report_comparisons(r, fp);
	run_report_fits(r, fp);
	argv_free(names);
}

/* ---- the command ----------------------------------------------------- */

/* What a comparison compares: the time and the allocations of an
 * operation (`yardstick compare` compares every metric). */
static const char *const compared[] = {
	METRIC_TIME_PER_OP, METRIC_ALLOCS_PER_OP, METRIC_ALLOC_BYTES_PER_OP, NULL,
};

/* The baseline: its name in messages, its result. */
struct bench_base {
	const char *name;	/* --baseline's REF or OLD's path */
	const char *what;	/* "the baseline", "the baseline program" */
	struct result *res;
};

/* The baseline against the new result, as `compare` prints it. */
static int compare_baseline(const struct bench_args *a,
			    const struct bench_base *base,
			    const struct result *res, FILE *fp)
{
	struct compare_opts o;
	struct compare_report rep;
	char *label = xasprintf("%s '%s'", base->what, base->name);
	struct error e;
	int ret = 0;

	compare_opts_init(&o);
	o.metrics = compared;
	o.base_label = label;
	o.cand_label = "the new result";
	if (compare_results(base->res, res, &o, &rep, &e)) {
		fprintf(stderr, "yardstick bench: %s\n", e.msg);
		ret = 2;
	} else {
		if (!a->quiet) {
			fprintf(fp, "Against %s '", base->what);
			term_puts(fp, base->name);
			fputs("'\n", fp);
			compare_print(&rep, fp);
		}
		compare_report_free(&rep);
	}
	free(label);
	return ret;
}

/* --max-increase on the baseline and the new result, as `gate` judges
 * and prints it: 0, 1 when a check fails, 2 on an error. */
static int gate_baseline(const struct bench_args *a,
			 const struct bench_base *base,
			 const struct result *res, FILE *fp)
{
	struct gate_report rep;
	struct gate_opts o;
	struct error e;
	int ret;

	gate_opts_init(&o);
	o.alpha = a->gate.alpha;
	o.base_label = xasprintf("%s '%s'", base->what, base->name);
	o.cand_label = "the new result";
	ret = gate_evaluate(base->res, res, a->gate.t, a->gate.nt, &o, &rep,
			    &e);
	free((char *)o.base_label);
	if (ret) {
		fprintf(stderr, "yardstick bench: %s\n", e.msg);
		return 2;
	}
	gate_print(&rep, fp);
	ret = rep.failed ? 1 : 0;
	gate_report_free(&rep);
	return ret;
}

/* Report, write and store res (and OLD's result, --baseline-program):
 * the exit code. */
static int finish(const struct bench_args *a, struct result *res,
		  const struct bench_base *base, struct output_set *outs)
{
	FILE *fp = outputs_report_fp(outs);
	int ret = 0, verdict = 0;

	if (!a->quiet)
		bench_report(res, fp);
	run_report_warnings(res, !a->quiet, stderr);
	if (base->res)
		ret = compare_baseline(a, base, res, fp);
	if (!ret && base->res && a->gate.nt)
		verdict = gate_baseline(a, base, res, fp);
	fflush(fp);
	if (verdict == 2)
		return 2;
	if (write_output_set(outs, "yardstick bench"))
		return 2;
	if (!ret && !a->no_store && a->plan.baseline_program)
		ret = save_result(base->res, a->store, a->quiet);
	if (!ret && !a->no_store)
		ret = save_result(res, a->store, a->quiet);
	return ret ? ret : verdict;
}

/* Run the processes into *run: 0 when all ran, 130 when interrupted with
 * both programs' results still to report, else the exit code (the
 * failure printed, nothing to report). */
/* What the engine says while it measures (bench_plan.say). */
static void say(const char *msg)
{
	fprintf(stderr, "yardstick bench: %s\n", msg);
}

static int run_processes(const struct bench_args *a, char *const paths[2],
			 struct benchproc_run *run)
{
	struct error e;
	bool two = paths[BENCHPROC_BASE] != NULL;
	size_t total = (size_t)a->plan.processes * (two ? 2 : 1);
	int ret;

	handlers_install();
	ret = bench_run(&a->plan, paths, run, &e);
	if (run->nrun > total)	/* more, as the checks asked */
		total = run->nrun;
	if (run->strays && !stop_signal())
		fprintf(stderr, "yardstick bench: warning: the program left %zu "
			"process%s running when it ended (in the background, "
			"or in a session of its own): %s; they were ended\n",
			run->strays, plural_es(run->strays),
			run->stray_names);
	if (!ret)
		return 0;
	if (run->fail == BENCHPROC_INTERRUPTED ||
	    (run->fail == BENCHPROC_ENDED && run->child.interrupted)) {
		char *safe = term_safe(paths[run->which]);
		bool keep = run->done[0] && (!two || run->done[1]);

		fprintf(stderr, "yardstick bench: interrupted: '%s' and what "
			"it started were killed; %s\n", safe, keep ?
			"the processes measured before are kept" :
			"nothing is stored");
		if (keep)
			fprintf(stderr, "yardstick bench: warning: interrupted: "
				"%zu of %zu processes measured\n",
				(size_t)run->done[0] + run->done[1], total);
		free(safe);
		return keep ? stop_exit_code() : -stop_exit_code();
	}
	ret = print_failure(a, run, paths[run->which], &e);
	return ret ? -ret : -1;
}

/* The options that go together, checked before anything runs. */
static int check_args(const struct bench_args *a)
{
	if (a->baseline && a->plan.baseline_program) {
		fputs("yardstick bench: --baseline and --baseline-program "
		      "exclude each other\n", stderr);
		return 2;
	}
	if (a->gate.nt && !a->baseline && !a->plan.baseline_program) {
		fputs("yardstick bench: --max-increase needs --baseline REF or "
		      "--baseline-program OLD\n", stderr);
		return 2;
	}
	if (a->baseline_json && !a->plan.baseline_program) {
		fputs("yardstick bench: --baseline-json needs "
		      "--baseline-program OLD\n", stderr);
		return 2;
	}
	return 0;
}

/* Resolve PROGRAM and OLD into paths[0] and paths[1]. */
static int resolve(const struct bench_args *a, char *paths[2])
{
	struct error e;

	if (spawn_resolve_program(a->plan.argv[0], &paths[0], &e) ||
	    (a->plan.baseline_program &&
	     spawn_resolve_program(a->plan.baseline_program, &paths[1], &e))) {
		fprintf(stderr, "yardstick bench: %s\n", e.msg);
		return 2;
	}
	return 0;
}

static int bench(struct bench_args *a)
{
	struct result base;
	struct bench_base bb = { 0 };
	struct benchproc_run run;
	struct output_set outs;
	struct git_info git = { 0 };
	struct git_probe probe;
	bool have_base = false, have_run = false;
	char *paths[2] = { NULL, NULL };
	struct error e;
	int ret;

	outputs_init(&outs);
	add_result_outputs(&outs, a->json, a->csv, a->markdown, a->bmf,
			   &run.res[BENCHPROC_CAND]);
	outputs_add(&outs, "--baseline-json", a->baseline_json, "json",
		    output_result_json, &run.res[BENCHPROC_BASE]);
	if (a->plan.show_output)
		outputs_claim_stdout(&outs, "--show-output");
	a->plan.gate = &a->gate;
	a->plan.say = a->quiet ? NULL : say;
	ret = check_args(a);
	if (!ret)
		ret = check_output_set(&outs, "yardstick bench");
	if (!ret)
		ret = resolve(a, paths);
	if (!ret && !a->no_store)
		ret = save_check(a->store);
	if (ret)
		goto out;
	if (a->baseline) {
		ret = ref_load(a->baseline, a->store, &base, &e);
		if (ret) {
			fprintf(stderr, "yardstick bench: --baseline: %s\n",
				e.msg);
			ret = error_exit_code(&e);
			goto out;
		}
		have_base = true;
		bb = (struct bench_base){ a->baseline, "the baseline", &base };
	}
	git_detect_start(&git, &probe, a->json || a->csv || a->markdown ||
			 a->bmf || !a->no_store);
	ignore_sigpipe();
	ret = run_processes(a, paths, &run);
	have_run = true;
	git_detect_finish(&probe);
	if (ret >= 0) {
		int done = ret;

		if (git_detect_warning(&probe))
			fprintf(stderr, "yardstick bench: warning: %s\n",
				git_detect_warning(&probe));
		bench_stamp(&run.res[BENCHPROC_CAND], &git);
		/* an interrupt keeps the processes measured: marked partial */
		result_mark_partial(&run.res[BENCHPROC_CAND]);
		if (a->plan.baseline_program) {
			bench_stamp(&run.res[BENCHPROC_BASE], NULL);
			result_mark_partial(&run.res[BENCHPROC_BASE]);
			bb = (struct bench_base){ a->plan.baseline_program,
				"the baseline program",
				&run.res[BENCHPROC_BASE] };
		}
		ret = finish(a, &run.res[BENCHPROC_CAND], &bb, &outs);
		if (done)
			ret = done;
	} else {
		ret = -ret;
	}
	free(git.commit);
	free(git.branch);
out:
	if (have_run)
		benchproc_free(&run);
	if (have_base)
		result_free(&base);
	free(paths[0]);
	free(paths[1]);
	outputs_free(&outs);
	return ret;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_args a;
	struct opt_rest rest;
	int ret;

	if (!opt_parse_or_exit(&bench_cmd, argc, argv, &a, &rest, &ret))
		goto out;
	ret = program_and_outputs("bench", argc, argv, rest.first,
				  rest.dashdash, NULL, &a.plan.argv);
	if (!ret)
		ret = bench(&a);
out:
	gate_config_free(&a.gate);
	return ret;
}
