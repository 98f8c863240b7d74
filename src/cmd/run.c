/*
 * `yardstick run`: benchmark whole commands.
 *
 * The loop (run_loop.c) keeps yardstick's own work per run at the floor:
 * the program is resolved once, file descriptors are opened once (here),
 * counters are read with one read() each before and after, and metrics
 * are appended to arrays created up front. Everything else (statistics,
 * output) happens after the last run.
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/run.h"
#include "config.h"
#include "util/child_common.h"
#include "measure/counters.h"
#include "measure/machine.h"
#include "measure/spawn.h"
#include "measure/spawner.h"
#include "result/analyze.h"
#include "store/store.h"
#include "util/stop.h"
#include "util/strutil.h"
#include "util/term.h"

/* The most of a pipe's --input kept for the runs: every run reads all of
 * it, so it is held, and an endless producer must not fill the memory. */
#define INPUT_MAX (64u << 20)

/* Copy fd (a pipe, a device) into the memfd rn->input_fd, up to
 * INPUT_MAX bytes. */
static int copy_input(struct runner *rn, int fd, const char *path)
{
	char buf[65536];
	size_t total = 0;
	ssize_t got;

	while ((got = read(fd, buf, sizeof(buf))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return error_errno(&rn->err, errno, "--input: cannot "
					   "read '%s'", path);
		total += (size_t)got;
		if (total > INPUT_MAX)
			return error_set(&rn->err, "--input: '%s' holds more "
				"than %u MiB, which every run would read again; "
				"give a regular file instead (or an end to the "
				"stream)", path, INPUT_MAX >> 20);
		if (child_write_full(rn->input_fd, buf, (size_t)got))
			return error_errno(&rn->err, errno, "--input: cannot "
					   "keep '%s' in memory", path);
	}
	return 0;
}

/*
 * The command's stdin: the --input file itself when it is a regular file
 * (rewound before every run), else — a pipe, "-" for our own stdin — its
 * content copied once into memory (at most INPUT_MAX bytes), so that
 * every run reads all of it.
 */
static int open_input(struct runner *rn, const char *path)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC)
				   : dup(STDIN_FILENO);
	struct stat st;
	int r;

	if (fd < 0 || fstat(fd, &st)) {
		r = error_errno(&rn->err, errno, "--input: cannot open '%s'",
				path);
		if (fd >= 0)
			close(fd);
		return r;
	}
	if (S_ISREG(st.st_mode)) {
		rn->input_fd = fd;
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return error_set(&rn->err, "--input: '%s' is a directory",
				 path);
	}
	rn->input_fd = memfd_create("yardstick-input", MFD_CLOEXEC);
	if (rn->input_fd < 0) {
		close(fd);
		return error_errno(&rn->err, errno, "memfd_create");
	}
	r = copy_input(rn, fd, path);
	close(fd);
	return r;
}

/*
 * Start the spawner the commands are started from (spawner.h), handing it
 * every descriptor they may get. Without it they start from yardstick,
 * and a peak RSS at or below yardstick's own cannot be measured: say so,
 * and go on.
 */
static void start_spawner(struct runner *rn)
{
	int fds[4] = { rn->sp.stdin_fd, rn->sp.stdout_fd, rn->sp.stderr_fd,
		       rn->null_fd };
	struct error e;
	size_t n = 0;
	char *path;

	for (size_t i = 0; i < 4; i++) {
		bool seen = fds[i] < 0;

		for (size_t k = 0; k < n && !seen; k++)
			seen = fds[k] == fds[i];
		if (!seen)
			fds[n++] = fds[i];
	}
	path = spawner_find(&e);
	if (path)
		rn->sp.via = spawner_start(path, fds, n, &e);
	free(path);
	if (!rn->sp.via)
		fprintf(stderr, "yardstick: warning: %s: commands start from "
			"yardstick itself, and a peak RSS below yardstick's "
			"own is not measured\n", e.msg);
}

static int open_fds(struct runner *rn)
{
	struct run_opts *o = rn->o;

	rn->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (rn->null_fd < 0)
		return error_errno(&rn->err, errno, "cannot open /dev/null");
	if (o->input && open_input(rn, o->input))
		return -1;
	if (!o->show_output) {
		if (pipe2(rn->err_pipe, O_CLOEXEC) ||
		    fcntl(rn->err_pipe[0], F_SETFL, O_NONBLOCK))
			return error_errno(&rn->err, errno, "cannot make a "
					   "pipe");
		rn->drainer = drainer_start(rn->err_pipe[0]);
		if (!rn->drainer)
			return error_errno(&rn->err, errno, "cannot start the "
					   "stderr thread");
	}
	rn->sp.stdin_fd = o->input ? rn->input_fd : rn->null_fd;
	rn->sp.stdout_fd = o->show_output ? STDOUT_FILENO : rn->null_fd;
	rn->sp.stderr_fd = o->show_output ? STDERR_FILENO : rn->err_pipe[1];
	rn->sp.timeout = o->timeout;
	rn->sp.pin = o->have_pin ? &o->pin : NULL;
	rn->sp.interrupt = stop_flag();
	start_spawner(rn);
	return 0;
}

static void close_fds(struct runner *rn)
{
	if (rn->null_fd >= 0)
		close(rn->null_fd);
	if (rn->input_fd >= 0)
		close(rn->input_fd);
	drainer_stop(rn->drainer);
	rn->drainer = NULL;
	for (int i = 0; i < 2; i++)
		if (rn->err_pipe[i] >= 0)
			close(rn->err_pipe[i]);
}

/* Open the counters. Returns 0, or the exit code to return. */
static int open_counters(struct runner *rn)
{
	struct run_opts *o = rn->o;
	enum counters_result r;

	const char *emu = getenv("YARDSTICK_EMULATE_PMU");

	if (o->no_counters)
		return 0;
	rn->emulated = emu && !strcmp(emu, "1");
	/* The commands are the spawner's children: count them there. */
	if (rn->sp.via)
		r = spawner_open_counters(rn->sp.via,
			(const char *const *)o->events, o->nevents,
			rn->emulated, &rn->ctr, &rn->err);
	else
		r = (rn->emulated ? counters_open_emulated : counters_open)(
			&rn->ctr, (const char *const *)o->events, o->nevents,
			&rn->err);
	if (r == 0) {
		rn->cvals = xcalloc(counters_metric_count(rn->ctr) + 1,
				    sizeof(*rn->cvals));
		return 0;
	}
	if (r == COUNTERS_DENIED && !o->events) {
		/* Not permitted: the rusage metrics still stand; every
		 * counter is named unsupported, with the reason. */
		fprintf(stderr, "yardstick: warning: %s\n", rn->err.msg);
		rn->ctr = NULL;
		return -1;
	}
	fprintf(stderr, "yardstick run: %s%s\n", o->events ? "--events: " : "",
		rn->err.msg);
	return r == COUNTERS_DENIED ? 3 : 2;
}

static void setup_benchmarks(struct runner *rn, bool perf_refused)
{
	size_t nc = rn->ctr ? counters_metric_count(rn->ctr) : 0;

	rn->perf_refused = perf_refused;
	rn->cycles_idx = rn->instr_idx = -1;
	for (size_t k = 0; k < nc; k++) {
		if (!strcmp(counters_metric_name(rn->ctr, k), "cycles"))
			rn->cycles_idx = (long)k;
		if (!strcmp(counters_metric_name(rn->ctr, k), "instructions"))
			rn->instr_idx = (long)k;
	}
	rn->ipc = rn->cycles_idx >= 0 && rn->instr_idx >= 0;
	for (size_t w = 0; w < WORK_COUNT; w++)
		rn->nwork += rn->o->work[w] != NULL;
	rn->nmetrics = M_RUSAGE_COUNT + nc + rn->ipc + rn->nwork;
	rn->mux = xcalloc(rn->njobs * nc + 1, sizeof(size_t));
	rn->metrics = xcalloc(rn->njobs, sizeof(*rn->metrics));
	for (size_t i = 0; i < rn->njobs; i++) {
		struct job *j = &rn->jobs[i];
		struct benchmark *b;

		b = result_add_benchmark(rn->res, j->name, j->argv);
		for (size_t k = 0; k < rn->o->nscans; k++)
			benchmark_add_param(b, rn->o->scans[k].name,
					    j->param_values[k]);
	}
	/* Names made unique before anything shows or stores them: -n a
	 * -n a, one command given twice, a scan whose name does not vary
	 * (result_unique_names says how). */
	result_unique_names(rn->res);
	/* Pointers only now: adding benchmarks may have moved them. */
	for (size_t i = 0; i < rn->njobs; i++) {
		free(rn->jobs[i].name);
		rn->jobs[i].name = xstrdup(rn->res->benchmarks[i].name);
		rn->jobs[i].bench = &rn->res->benchmarks[i];
	}
}

static int known_metric(const struct runner *rn, const char *name)
{
	for (size_t k = 0; k < M_RUSAGE_COUNT; k++)
		if (!strcmp(run_rusage_metrics[k].name, name))
			return 1;
	for (size_t w = 0; w < WORK_COUNT; w++)
		if (rn->o->work[w] && !strcmp(run_work_metrics[w].name, name))
			return 1;
	for (size_t k = 0; rn->ctr && k < counters_metric_count(rn->ctr); k++)
		if (!strcmp(counters_metric_name(rn->ctr, k), name))
			return 1;
	return rn->ipc && !strcmp(name, "ipc");
}

static int unsupported_metric(const struct runner *rn, const char *name)
{
	for (size_t k = 0; rn->ctr &&
	     k < counters_unsupported_count(rn->ctr); k++)
		if (!strcmp(counters_unsupported_name(rn->ctr, k), name))
			return 1;
	return !rn->ipc && !strcmp(name, "ipc");
}

/* The template index the reference names, or -1 (message set). */
static long find_reference(struct runner *rn)
{
	const struct run_opts *o = rn->o;

	if (!o->reference)
		return 0;
	for (size_t i = 0; i < rn->njobs; i++)
		if (!strcmp(rn->jobs[i].name, o->reference))
			return (long)rn->jobs[i].template;
	for (size_t t = 0; t < o->nnames; t++)
		if (!strcmp(o->names[t], o->reference))
			return (long)t;
	for (size_t t = 0; t < o->ncommands; t++)
		if (!strcmp(o->commands[t], o->reference))
			return (long)t;
	error_set(&rn->err, "--reference: no benchmark named '%s'",
		  o->reference);
	return -1;
}

/* The signal policy of every command that runs a program (util/stop.h):
 * Ctrl-C, SIGTERM and SIGHUP stop the runs (no SA_RESTART: wait4
 * returns); what a command leaves running is killed by the spawner, or,
 * without one, by child_sweep. */
static void install_handlers(void)
{
	struct error e;

	if (stop_install(&e))
		fprintf(stderr, "yardstick: warning: %s\n", e.msg);
}

static int check_compare_metrics(const struct runner *rn)
{
	for (size_t m = 0; m < rn->o->ncompare_metrics; m++) {
		const char *name = rn->o->compare_metrics[m];

		if (known_metric(rn, name))
			continue;
		if (unsupported_metric(rn, name))
			fprintf(stderr, "yardstick: --compare-metric: '%s' is not "
				"supported on this machine\n", name);
		else
			fprintf(stderr, "yardstick: --compare-metric: unknown "
				"metric '%s'\n", name);
		return -1;
	}
	return 0;
}

static int prepare_runner(struct runner *rn, long *ref)
{
	bool refused = false;
	int r;

	if (open_fds(rn)) {
		fprintf(stderr, "yardstick: %s\n", rn->err.msg);
		return 2;
	}
	r = open_counters(rn);
	if (r > 0)
		return r;
	refused = r < 0;
	setup_benchmarks(rn, refused);
	if (run_work_eval(rn)) {
		fprintf(stderr, "yardstick run: %s\n", rn->err.msg);
		return 2;
	}
	if (check_compare_metrics(rn))
		return 2;
	*ref = find_reference(rn);
	if (*ref < 0) {
		fprintf(stderr, "yardstick: %s\n", rn->err.msg);
		return 2;
	}
	rng_seed(&rn->rng, rn->o->seed);
	progress_init(&rn->progress);
	if (rn->o->quiet)
		rn->progress.enabled = false;
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	struct error e;
	int r;

	r = run_parse(&o, argc, argv, &e);
	if (r) {
		if (r < 0)
			fprintf(stderr, "yardstick run: %s\n", e.msg);
		run_opts_free(&o);
		return r < 0 ? 2 : 0;
	}
	r = run_execute(&o, NULL);
	run_opts_free(&o);
	return r;
}

int run_execute(struct run_opts *o, const struct run_hooks *h)
{
	struct result res;
	struct runner rn = { .o = o, .res = &res, .null_fd = -1,
			     .exec = &run_spawn_executor,
			     .git = { .fd = -1 },
			     .input_fd = -1, .err_pipe = { -1, -1 } };
	long ref = 0;
	size_t planned = 0;
	int r, ret;

	result_init(&res, "run");
	/* the outputs, checked before anything runs */
	run_add_outputs(&rn);
	ret = check_output_set(&rn.outs, "yardstick run");
	if (!ret && !o->no_store)
		ret = save_check(o->store);
	if (ret)
		goto out_free;
	if (run_plan(o, &rn.jobs, &rn.njobs, &rn.err)) {
		fprintf(stderr, "yardstick run: %s\n", rn.err.msg);
		ret = 2;
		goto out_free;
	}
	planned = rn.njobs;
	ret = prepare_runner(&rn, &ref);
	if (ret)
		goto out_free;
	res.created = utc_timestamp();
	res.tool_version = xstrdup(YS_VERSION);
	machine_detect(&res.machine);
	/* git status costs milliseconds: only for what records it, and
	 * asked now, to answer while the command runs (machine.h). */
	if (o->json || o->csv || o->markdown || o->bmf || !o->no_store)
		git_detect_start(&res.git, &rn.git);
	install_handlers();
	if (o->shell && run_calibrate_shell(&rn)) {
		fprintf(stderr, "yardstick: cannot time the shell: %s\n",
			rn.err.msg);
		ret = stop_signal() ? stop_exit_code() : 1;
		goto out_free;
	}
	run_measure_all(&rn);
	if (rn.failed)
		run_drop_unrun(&rn);
	run_perf_follow_check(&rn);
	if (o->shell)
		run_shell_correct(&rn);
	run_rss_warnings(&rn);
	run_stray_warnings(&rn);
	if (rn.failed)
		run_report_failure(&rn);
	if (h && h->measured && rn.total_runs > 0)
		h->measured(&res, h->arg);
	ret = run_finish(&rn, ref);
	r = run_save(&rn);
	/* rn.failed 130: stopped by a signal, whichever */
	if (rn.failed)
		ret = rn.failed == 130 && stop_signal() ? stop_exit_code()
							: rn.failed;
	else if (!ret)
		ret = r;
	if (h && h->done && !ret)
		ret = h->done(&res, h->arg);

out_free:
	git_detect_finish(&rn.git);	/* reaped on every way out */
	if (rn.ctr)
		counters_close(rn.ctr);
	spawner_stop(rn.sp.via);
	free(rn.cvals);
	free(rn.mux);
	free(rn.fail_tail);
	for (size_t i = 0; rn.metrics && i < planned; i++)
		free(rn.metrics[i]);
	for (size_t i = 0; rn.jobs && i < planned; i++)
		free(rn.jobs[i].perf_blind);
	free(rn.metrics);
	close_fds(&rn);
	/* drop_unrun may have lowered njobs: all that were planned */
	run_jobs_free(rn.jobs, planned ? planned : rn.njobs);
	result_free(&res);
	outputs_free(&rn.outs);
	return ret;
}
