/*
 * `yardstick bench`: run a benchmark program built with libyardstick
 * (include/yardstick.h), read its result (kind "bench") through a pipe,
 * print the table, keep the result in the store and compare it with a
 * baseline. The program measures itself; yardstick only starts it (the
 * child layer: its own process group, the timeout, Ctrl-C), reads what it
 * writes to the descriptor named by YARDSTICK_BENCH_JSON (to its end, at
 * most --max-result bytes), checks it with the result reader and reports
 * it. A program that fails, hangs or writes no usable result stores
 * nothing.
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
#include "cmd/options.h"
#include "cmd/refs.h"
#include "cmd/run.h"
#include "config.h"
#include "measure/machine.h"
#include "result/compare.h"
#include "util/child.h"
#include "util/outputs.h"
#include "util/stop.h"
#include "util/strutil.h"
#include "util/term.h"

/* The descriptor the program writes its result to, and how it learns it. */
#define BENCH_FD 3
#define BENCH_ENV "YARDSTICK_BENCH_JSON"

static const char *const bench_usage[] = { "[OPTIONS] -- PROGRAM [ARGS...]",
					    NULL };

static const char bench_description[] =
"Run PROGRAM, a benchmark program built with libyardstick (yardstick.h,\n"
"-lyardstick), read the results it measured in its own process, print\n"
"them (per benchmark: time per operation with its 95% CI and spread,\n"
"throughput, allocations per operation; the ratios of the variants of a\n"
"group), keep them in the store (kind \"bench\": `yardstick gate` and\n"
"`history` then work on the benchmark names as on `run` results) and, with\n"
"--baseline, compare them with an earlier result as `yardstick compare`\n"
"does.\n"
"\n"
"PROGRAM runs with " BENCH_ENV "=/dev/fd/3 in its environment\n"
"and writes the result (JSON, yardstick/result/v1) to that descriptor, a\n"
"pipe that yardstick reads to its end; --filter, --min-time and --epochs\n"
"are passed on to it, after ARGS.\n";

static const char bench_epilog[] =
"PROGRAM's standard input is /dev/null, its standard output is discarded\n"
"(--show-output lets it through), its standard error is yardstick's. It\n"
"runs in its own process group: at the --timeout or Ctrl-C the group is\n"
"killed, and the processes it started that left the group with it.\n"
"Processes it leaves running when it exits are killed, with a warning\n"
"that names them.\n"
"\n"
"Exit status: 0 ok (whatever the comparison with the baseline says; see\n"
"'yardstick gate' to fail a build); 1 PROGRAM exited with a non-zero\n"
"status, was killed by a signal or timed out (nothing is stored) — but\n"
"its exit status 2 (bad usage, such as a --filter that matches no\n"
"benchmark) or 3 (the environment refused) is passed on; 2 bad\n"
"usage, a program that does not exist, a result that is missing,\n"
"malformed, not of kind \"bench\", without any benchmark or larger than\n"
"--max-result (nothing is stored), a baseline that cannot be read, an\n"
"output that cannot be written; 3 the store is locked, read-only or\n"
"another user's, or SQLite or libpq cannot be loaded or a\n"
"PostgreSQL store's server reached; 130 interrupted by SIGINT, 143 by\n"
"SIGTERM (PROGRAM and what it started killed, nothing stored; a second\n"
"signal exits at once).\n";

struct bench_args {
	const char *filter;
	double min_time, timeout;
	long epochs;
	bool min_time_given, epochs_given;
	uint64_t max_result;
	bool show_output;
	const char *baseline;
	const char *json, *csv, *markdown, *bmf, *store;
	bool no_store, quiet;
	char **argv;		/* PROGRAM [ARGS...], argv's */
};

#define OPT_STRUCT struct bench_args
static const struct opt_entry bench_options[] = {
	OPT_GROUP("The benchmark program"),
	{ OPT_STRING(0, "filter", filter), .metavar = "REGEX",
	  .flags = OPT_NONEMPTY, .help = "only the benchmarks whose name "
	  "matches REGEX (passed on as --filter)" },
	{ OPT_DURATION(0, "min-time", min_time), .flags = OPT_MIN_EXCL,
	  OPT_SETS(min_time_given), .help = "the least time each benchmark "
	  "is measured for (passed on as --min-time, in seconds); units s, "
	  "ms, us, ns" },
	{ OPT_COUNT(0, "epochs", epochs, 1, 100000), OPT_SETS(epochs_given),
	  .help = "measured epochs of each benchmark (passed on as --epochs)" },
	{ OPT_DURATION('t', "timeout", timeout), .flags = OPT_MIN_EXCL,
	  .help = "kill PROGRAM (and all it started) after T" },
	{ OPT_SIZE(0, "max-result", max_result), .defval = "64MiB", .help = "refuse a result "
	  "larger than BYTES (the program is killed when it writes more)" },
	{ OPT_FLAG(0, "show-output", show_output),
	  .help = "let PROGRAM's standard output through (default: discard)" },
	OPT_GROUP("Comparison"),
	{ OPT_STRING('b', "baseline", baseline), .metavar = "REF",
	  .help = "compare time_per_op, allocs_per_op and alloc_bytes_per_op "
	  "with this result set, as 'yardstick compare -m M REF NEW' would: a "
	  "JSON file (yardstick, hyperfine, Google Benchmark), latest, a "
	  "result id, @COMMIT or branch:NAME (read before PROGRAM runs)" },
	OPT_GROUP("Output"),
	OPT_RESULT_OUTPUTS(json, csv, markdown, bmf, "epoch"),
	{ OPT_STORE_SAVE(store) },
	{ OPT_NO_STORE(no_store) },
	{ OPT_QUIET(quiet, "no terminal table") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void bench_init(void *args)
{
	((struct bench_args *)args)->max_result = (uint64_t)64 << 20;
}

const struct opt_cmd bench_cmd = {
	.name = "bench",
	.summary = "run a libyardstick benchmark program, store and compare "
		   "its results",
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

	if (stop_install(&e))
		fprintf(stderr, "yardstick bench: warning: %s\n", e.msg);
}

/* PROGRAM [ARGS...] and the options passed on. malloc'd vector of
 * strings, argv_free'd. */
static char **program_argv(const struct bench_args *a)
{
	size_t n = 0;
	char **v;

	while (a->argv[n])
		n++;
	v = xcalloc(n + 7, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		v[i] = xstrdup(a->argv[i]);
	if (a->filter) {
		v[n++] = xstrdup("--filter");
		v[n++] = xstrdup(a->filter);
	}
	if (a->min_time_given) {
		v[n++] = xstrdup("--min-time");
		v[n++] = xasprintf("%.9g", a->min_time);
	}
	if (a->epochs_given) {
		v[n++] = xstrdup("--epochs");
		v[n++] = xasprintf("%ld", a->epochs);
	}
	return v;
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

/*
 * Run the program with the result pipe as BENCH_FD and read the pipe into
 * *data (*len bytes). Returns 0 when it exited with 0 and wrote at most
 * --max-result bytes, else the exit code with the message printed.
 */
static int run_program(const struct bench_args *a, const char *path,
		       char **data, size_t *len)
{
	static const char *const env[] = {
		BENCH_ENV "=/dev/fd/3", NULL,
	};
	char **argv = program_argv(a);
	struct child_fd_map map = { .to = BENCH_FD };
	struct child c = {
		.path = path, .argv = argv, .env_add = env,
		.io = { CHILD_IO_NULL, a->show_output ? CHILD_IO_INHERIT
						      : CHILD_IO_NULL,
			CHILD_IO_INHERIT },
		.maps = &map, .nmaps = 1, .own_group = true,
		.timeout = a->timeout, .interrupt = stop_flag(),
	};
	bool overflow = false;
	struct error e;
	int pfd[2], ret;

	*data = NULL;
	*len = 0;
	if (pipe2(pfd, O_CLOEXEC)) {
		fprintf(stderr, "yardstick bench: cannot create a pipe: %s\n",
			strerror(errno));
		argv_free(argv);
		return 2;
	}
	map.from = pfd[1];
	handlers_install();
	ret = child_start(&c, &e);
	close(pfd[1]);
	if (ret == 0 &&
	    (child_read_pipe(&c, pfd[0], a->max_result, data, len, &overflow,
			     &e) || child_wait(&c, &e)))
		ret = 1;
	else if (ret)
		ret = 2;	/* not started: exec_failed names the program */
	close(pfd[0]);
	if (c.strays && !c.interrupted)
		fprintf(stderr, "yardstick bench: warning: the program left "
			"%zu process%s running when it ended: %s; they were "
			"killed\n", c.strays, c.strays == 1 ? "" : "es",
			c.stray_names);
	if (ret) {
		fprintf(stderr, "yardstick bench: %s\n", e.msg);
	} else if (overflow) {
		char *safe = term_safe(path);

		fprintf(stderr, "yardstick bench: '%s' wrote more than %llu "
			"bytes of results and was killed (--max-result); "
			"nothing is stored\n", safe,
			(unsigned long long)a->max_result);
		free(safe);
		ret = c.interrupted ? stop_exit_code() : 2;
	} else {
		ret = program_status(&c, path);
	}
	argv_free(argv);
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

/* The result the program wrote, read and checked into *res (json_in_args:
 * the program was given --json, for the message). Returns 0 or 2 with the
 * message printed. */
static int read_result(const char *prog, bool json_in_args,
		       const char *data, size_t len, struct result *res)
{
	char *safe = term_safe(prog);
	char *name = xasprintf("the result of '%s'", safe);
	struct error e;
	int ret = 2;

	if (len == 0) {
		result_init(res, NULL);
		fprintf(stderr, "yardstick bench: '%s' exited without writing "
			"a result to $" BENCH_ENV " (%s); nothing is stored\n",
			safe, json_in_args ? "ARGS give it --json: its result "
			"went there" : "is it a benchmark program built with "
			"libyardstick?");
	} else if (result_read_json_mem(res, name, data, len, &e)) {
		/* the message quotes what the program wrote: escaped */
		result_init(res, NULL);
		fputs("yardstick bench: ", stderr);
		term_puts(stderr, e.msg);
		fputs("; nothing is stored\n", stderr);
	} else if (!res->kind || strcmp(res->kind, "bench")) {
		fprintf(stderr, "yardstick bench: '%s' wrote a result of kind "
			"'", safe);
		term_puts(stderr, res->kind ? res->kind : "none");
		fputs("', not a benchmark result (kind 'bench'); nothing is "
		      "stored\n", stderr);
	} else if (res->nbenchmarks == 0) {
		fprintf(stderr, "yardstick bench: '%s' ran no benchmark (does "
			"--filter match any? see PROGRAM --list); nothing is "
			"stored\n", safe);
	} else {
		ret = 0;
	}
	free(name);
	free(safe);
	return ret;
}

/* Where and when: this machine and checkout (the program cannot know its
 * git state), the program's time and version when it gave them. */
static void stamp(struct result *res, struct git_info *git)
{
	struct machine *m = &res->machine;

	free(m->hostname);
	free(m->os);
	free(m->cpu);
	free(m->governor);
	memset(m, 0, sizeof(*m));
	machine_detect(m);
	free(res->git.commit);
	free(res->git.branch);
	res->git = *git;
	memset(git, 0, sizeof(*git));
	if (!res->created)
		res->created = utc_timestamp();
	if (!res->tool_version)
		res->tool_version = xstrdup(YS_VERSION);
	result_unique_names(res);
}

/* ---- the terminal table ---------------------------------------------- */

/* A rate: "2.43 GiB/s" (unit "bytes"), "1.20 M/s" (""), "3.1 GFLOP/s"
 * ("FLOP"), as the library's own table writes them. */
static char *fmt_rate(double v, const char *unit, char *buf, size_t n)
{
	char num[32];
	bool bytes = !strcmp(unit, "bytes");

	fmt_value(v, bytes ? "bytes" : "count", num, sizeof(num));
	snprintf(buf, n, "%s%s%s/s", num, strchr(num, ' ') ? "" : " ",
		 bytes ? "" : unit);
	return buf;
}

/* The median of metric name of b, NULL when not measured. */
static const struct summary *median_of(const struct benchmark *b,
				       const char *name)
{
	const struct metric *m = benchmark_find_metric(b, name);

	return m && m->summary.n ? &m->summary : NULL;
}

static void throughput_cell(const struct benchmark *b, FILE *fp)
{
	static const struct { const char *metric, *unit; } rates[] = {
		{ "bytes_per_second", "bytes" }, { "items_per_second", "" },
		{ "flops_per_second", "FLOP" },
	};
	char buf[48];

	for (size_t i = 0; i < sizeof(rates) / sizeof(*rates); i++) {
		const struct summary *s = median_of(b, rates[i].metric);

		if (s) {
			term_pad(fp, fmt_rate(s->median, rates[i].unit, buf,
					      sizeof(buf)), 13, true);
			return;
		}
	}
	term_pad(fp, "-", 13, true);
}

static void allocs_cell(const struct benchmark *b, FILE *fp)
{
	const struct summary *n = median_of(b, "allocs_per_op");
	const struct summary *sz = median_of(b, "alloc_bytes_per_op");
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
	const struct metric *t = benchmark_find_metric(b, "time_per_op");
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

/* One line per benchmark: time per operation (median of the epochs, its
 * MAD in % of it (err%), the bootstrap CI of the median), throughput and
 * allocations per operation (and their bytes); then the group ratios and
 * the complexity fits. */
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
	term_pad(fp, "throughput", 13, true);
	term_pad(fp, "allocs/op (bytes)", 20, true);
	fprintf(fp, "%s\n", term_reset(color));
	for (size_t i = 0; i < r->nbenchmarks; i++)
		print_row(&r->benchmarks[i], names[i], w, color, fp);
	fputc('\n', fp);
	print_unsupported(r, fp);
	run_report_comparisons(r, fp);
	run_report_fits(r, fp);
	argv_free(names);
}

/* ---- the command ----------------------------------------------------- */

/* What --baseline compares: the time and the allocations of an operation
 * (`yardstick compare` compares every metric). */
static const char *const compared[] = {
	"time_per_op", "allocs_per_op", "alloc_bytes_per_op", NULL,
};

/* --baseline against the new result, as `compare` prints it. */
static int compare_baseline(const struct bench_args *a,
			    const struct result *base,
			    const struct result *res, FILE *fp)
{
	struct compare_opts o;
	struct compare_report rep;
	char *label = xasprintf("the baseline '%s'", a->baseline);
	struct error e;
	int ret = 0;

	compare_opts_init(&o);
	o.metrics = compared;
	o.base_label = label;
	o.cand_label = "the new result";
	if (compare_results(base, res, &o, &rep, &e)) {
		fprintf(stderr, "yardstick bench: %s\n", e.msg);
		ret = 2;
	} else {
		if (!a->quiet) {
			fputs("Against the baseline '", fp);
			term_puts(fp, a->baseline);
			fputs("'\n", fp);
			compare_print(&rep, fp);
		}
		compare_report_free(&rep);
	}
	free(label);
	return ret;
}

/* Report, write and store res: the exit code. */
static int finish(const struct bench_args *a, struct result *res,
		  const struct result *base, struct output_set *outs)
{
	FILE *fp = outputs_report_fp(outs);
	int ret = 0;

	if (!a->quiet)
		bench_report(res, fp);
	run_report_warnings(res, stderr);
	if (base)
		ret = compare_baseline(a, base, res, fp);
	fflush(fp);
	if (write_output_set(outs, "yardstick bench"))
		return 2;
	if (!ret && !a->no_store)
		ret = save_result(res, a->store, a->quiet);
	return ret;
}

static int bench(struct bench_args *a)
{
	struct result res, base;
	struct output_set outs;
	struct git_info git = { 0 };
	struct git_probe probe;
	bool have_base = false, have_res = false;
	char *path = NULL, *data = NULL;
	struct error e;
	size_t len;
	int ret;

	outputs_init(&outs);
	add_result_outputs(&outs, a->json, a->csv, a->markdown, a->bmf, &res);
	if (a->show_output)
		outputs_claim_stdout(&outs, "--show-output");
	ret = check_output_set(&outs, "yardstick bench");
	if (ret)
		goto out;
	if (spawn_resolve_program(a->argv[0], &path, &e)) {
		fprintf(stderr, "yardstick bench: %s\n", e.msg);
		ret = 2;
		goto out;
	}
	if (a->baseline) {
		ret = ref_load(a->baseline, a->store, &base, &e);
		if (ret) {
			fprintf(stderr, "yardstick bench: --baseline: %s\n",
				e.msg);
			goto out;
		}
		have_base = true;
	}
	git_detect_start(&git, &probe);
	ret = run_program(a, path, &data, &len);
	if (!ret) {
		ret = read_result(path, json_option(a->argv), data, len,
				  &res);
		have_res = true;
	}
	git_detect_finish(&probe);
	if (!ret) {
		if (git_detect_warning(&probe))
			fprintf(stderr, "yardstick: warning: %s\n",
				git_detect_warning(&probe));
		stamp(&res, &git);
		ret = finish(a, &res, have_base ? &base : NULL, &outs);
	}
	free(git.commit);
	free(git.branch);
out:
	if (have_res)
		result_free(&res);
	if (have_base)
		result_free(&base);
	free(data);
	free(path);
	outputs_free(&outs);
	return ret;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_args a;
	struct opt_rest rest;
	int ret;

	if (!opt_parse_or_exit(&bench_cmd, argc, argv, &a, &rest, &ret))
		return ret;
	ret = program_and_outputs("bench", argc, argv, rest.first,
				  rest.dashdash, NULL, &a.argv);
	if (ret)
		return ret;
	return bench(&a);
}
