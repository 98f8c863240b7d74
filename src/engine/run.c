/*
 * run's engine (run.h): setting up, the phases in order, and the end.
 *
 * The loop (run_loop.c) keeps yardstick's own work per run at the floor:
 * the program is resolved once, file descriptors are opened once (here),
 * counters are read with one read() each before and after, and metrics
 * are appended to arrays created up front. Everything else (statistics,
 * output) happens after the last run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "engine/run_internal.h"
#include "measure/perf_event.h"
#include "util/child_common.h"
#include "util/stop.h"
#include "util/strutil.h"

/* The most of a pipe's --input kept for the runs: every run reads all of
 * it, so it is held, and an endless producer must not fill the memory. */
#define INPUT_MAX (64u << 20)

static void run_warn(const struct runner *rn, const char *fmt, ...)
{
	struct error w;
	va_list ap;

	if (!rn->p->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(w.msg, sizeof(w.msg), fmt, ap);
	va_end(ap);
	rn->p->warn(rn->p->warn_arg, w.msg);
}

/* Put prefix before e's message, which is kept as it is (already
 * escaped: error_set would escape it twice). */
static void prefix_error(struct error *e, const char *prefix)
{
	size_t n = strlen(prefix), len = strnlen(e->msg, sizeof(e->msg) - 1);

	if (n + len >= sizeof(e->msg))
		len = sizeof(e->msg) - 1 - n;
	memmove(e->msg + n, e->msg, len);
	memcpy(e->msg, prefix, n);
	e->msg[n + len] = '\0';
}

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

static void spawner_missing(struct runner *rn, const struct error *e)
{
	run_warn(rn, "%s: commands start from yardstick itself, and a peak "
		 "RSS below yardstick's own is not measured", e->msg);
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
		rn->sp.via = spawner_launch(path, fds, n, &e);
	free(path);
	if (!rn->sp.via)
		spawner_missing(rn, &e);
}

/* The spawner's greeting, awaited after the work that needs it not. */
static void greet_spawner(struct runner *rn)
{
	struct error e;

	if (!rn->sp.via)
		return;
	rn->sp.via = spawner_greet(rn->sp.via, &e);
	if (!rn->sp.via)
		spawner_missing(rn, &e);
}

static int open_fds(struct runner *rn)
{
	const struct run_plan *p = rn->p;

	rn->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (rn->null_fd < 0)
		return error_errno(&rn->err, errno, "cannot open /dev/null");
	if (p->input && open_input(rn, p->input))
		return -1;
	/* (its read end made non-blocking by drainer_start) */
	if (!p->show_output && pipe2(rn->err_pipe, O_CLOEXEC))
		return error_errno(&rn->err, errno, "cannot make a pipe");
	rn->sp.stdin_fd = p->input ? rn->input_fd : rn->null_fd;
	rn->sp.stdout_fd = p->show_output ? STDOUT_FILENO : rn->null_fd;
	rn->sp.stderr_fd = p->show_output ? STDERR_FILENO : rn->err_pipe[1];
	rn->sp.timeout = p->timeout;
	rn->sp.pin = p->pin;
	rn->sp.interrupt = stop_flag();
	start_spawner(rn);
	return 0;
}

/* Once the spawner has greeted us (or is no more): the commands' stderr,
 * drained. */
static int start_drainer(struct runner *rn)
{
	greet_spawner(rn);
	if (rn->p->show_output)
		return 0;
	/* Through the spawner, the stderr pipe is drained while its replies
	 * are awaited; spawned from here, by a thread, as we wait4. */
	rn->drainer = drainer_start(rn->err_pipe[0], !rn->sp.via);
	if (!rn->drainer)
		return error_errno(&rn->err, errno, "cannot start draining "
				   "the commands' stderr");
	if (rn->sp.via)
		spawner_set_drain(rn->sp.via, rn->drainer);
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

/* Open the counters. Returns 0, -1 when perf events were refused without
 * --events (a warning: the rusage metrics still stand), or the exit code
 * to return with rn->err set. */
/* YARDSTICK_EMULATE_PMU=1: hardware events played by software ones. */
static bool emulated_pmu(void)
{
	const char *emu = getenv("YARDSTICK_EMULATE_PMU");

	return emu && !strcmp(emu, "1");
}

static int open_counters(struct runner *rn)
{
	const struct run_plan *p = rn->p;
	enum counters_result r;

	if (p->no_counters)
		return 0;
	rn->emulated = emulated_pmu();
	/* The commands are the spawner's children: count them there. */
	if (rn->sp.via)
		r = spawner_open_counters(rn->sp.via,
			(const char *const *)p->events, p->nevents,
			rn->emulated, &rn->ctr, &rn->err);
	else
		r = (rn->emulated ? counters_open_emulated : counters_open)(
			&rn->ctr, (const char *const *)p->events, p->nevents,
			&rn->err);
	if (r == 0) {
		rn->cvals = xcalloc(counters_metric_count(rn->ctr) + 1,
				    sizeof(*rn->cvals));
		return 0;
	}
	if (r == COUNTERS_DENIED && !p->events) {
		/* every counter is named unsupported, with the reason */
		run_warn(rn, "%s", rn->err.msg);
		rn->ctr = NULL;
		return -1;
	}
	if (p->events)
		prefix_error(&rn->err, "--events: ");
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
		rn->nwork += rn->p->work[w] != NULL;
	rn->nmetrics = M_RUSAGE_COUNT + nc + rn->ipc + rn->nwork;
	rn->mux = xcalloc(rn->njobs * nc + 1, sizeof(size_t));
	rn->metrics = xcalloc(rn->njobs, sizeof(*rn->metrics));
	for (size_t i = 0; i < rn->njobs; i++) {
		struct job *j = &rn->jobs[i];
		struct benchmark *b;

		b = result_add_benchmark(rn->res, j->name, j->argv);
		for (size_t k = 0; k < rn->p->nscans; k++)
			benchmark_add_param(b, rn->p->scans[k].name,
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
		if (rn->p->work[w] && !strcmp(run_work_metrics[w].name, name))
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
	const struct run_plan *p = rn->p;

	if (!p->reference)
		return 0;
	for (size_t i = 0; i < rn->njobs; i++)
		if (!strcmp(rn->jobs[i].name, p->reference))
			return (long)rn->jobs[i].template;
	for (size_t t = 0; t < p->nnames; t++)
		if (!strcmp(p->names[t], p->reference))
			return (long)t;
	for (size_t t = 0; t < p->ncommands; t++)
		if (!strcmp(p->commands[t], p->reference))
			return (long)t;
	error_set(&rn->err, "--reference: no benchmark named '%s'",
		  p->reference);
	return -1;
}

static int check_compare_metrics(struct runner *rn)
{
	for (size_t m = 0; m < rn->p->ncompare_metrics; m++) {
		const char *name = rn->p->compare_metrics[m];

		if (known_metric(rn, name))
			continue;
		if (unsupported_metric(rn, name))
			return error_set(&rn->err, "--compare-metric: '%s' is "
					 "not supported on this machine", name);
		return error_set(&rn->err, "--compare-metric: unknown metric "
				 "'%s'", name);
	}
	return 0;
}

void run_plan_init(struct run_plan *p)
{
	*p = (struct run_plan){
		.warmup = 1, .min_runs = 10, .max_runs = 1000, .min_time = 3,
		.seed = 1, .resamples = 1000,
	};
}

void run_engine_init(struct runner *rn, const struct run_plan *p,
		     struct result *res)
{
	*rn = (struct runner){ .p = p, .res = res, .null_fd = -1,
			       .exec = &run_spawn_executor,
			       .git = { .fd = -1 }, .input_fd = -1,
			       .err_pipe = { -1, -1 } };
}

int run_engine_prepare(struct runner *rn)
{
	struct result *res = rn->res;
	int r;

	if (run_jobs_make(rn->p, &rn->jobs, &rn->njobs, &rn->err))
		return 2;
	rn->planned = rn->njobs;
	if (open_fds(rn))
		return 2;
	/* while the spawner starts: what needs it not */
	if (!rn->p->no_counters)	/* till we exit: perf_event.h */
		(void)perf_event_hold_hooks(!rn->p->events && !emulated_pmu());
	res->created = utc_timestamp();
	res->tool_version = xstrdup(YS_VERSION);
	machine_detect(&res->machine);
	if (start_drainer(rn))
		return 2;
	r = open_counters(rn);
	if (r > 0)
		return r;
	setup_benchmarks(rn, r < 0);
	if (run_work_eval(rn) || check_compare_metrics(rn))
		return 2;
	rn->ref = find_reference(rn);
	if (rn->ref < 0)
		return 2;
	rng_seed(&rn->rng, rn->p->seed);
	progress_init(&rn->progress);
	if (!rn->p->progress)
		rn->progress.enabled = false;
	/* git status costs milliseconds: only for what records it, and
	 * asked now, to answer while the commands run (machine.h). */
	git_detect_start(&res->git, &rn->git, rn->p->record_git);
	return 0;
}

int run_engine_measure(struct runner *rn)
{
	if (rn->p->shell && run_calibrate_shell(rn)) {
		prefix_error(&rn->err, "cannot time the shell: ");
		return stop_signal() ? stop_exit_code() : 1;
	}
	run_measure_all(rn);
	/* what a spawn costs before its exec, while the spawner is there:
	 * only when the follow check below would otherwise drop counters */
	if (!rn->failed && run_perf_follow_suspect(rn))
		run_calibrate_exec(rn);
	/* it exits while we work out and write the result */
	spawner_let_go(rn->sp.via);
	if (rn->failed)
		run_drop_unrun(rn);
	run_perf_follow_check(rn);
	if (rn->p->shell)
		run_shell_correct(rn);
	run_rss_warnings(rn);
	run_stray_warnings(rn);
	return 0;
}

void run_engine_free(struct runner *rn)
{
	git_detect_finish(&rn->git);	/* reaped on every way out */
	if (rn->ctr)
		counters_close(rn->ctr);
	spawner_stop(rn->sp.via);
	free(rn->cvals);
	free(rn->mux);
	free(rn->fail_tail);
	for (size_t i = 0; rn->metrics && i < rn->planned; i++)
		free(rn->metrics[i]);
	for (size_t i = 0; rn->jobs && i < rn->planned; i++)
		free(rn->jobs[i].perf_blind);
	free(rn->metrics);
	close_fds(rn);
	/* drop_unrun may have lowered njobs: all that were made */
	run_jobs_free(rn->jobs, rn->planned ? rn->planned : rn->njobs);
}
