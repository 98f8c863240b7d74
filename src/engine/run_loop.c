/*
 * `yardstick run`'s loop: warm-ups, then the measured runs of every job —
 * interleaved (each round a new random order of the jobs not yet done) or
 * one job after the other — until each has --runs, or the adaptive rule
 * (job_done) says it has enough; --prepare before every run, --cleanup
 * after a job's last; a failing, timed-out or interrupted run stops it all
 * unless --ignore-failure.
 *
 * The loop starts runs only through rn->exec (run.h, struct run_executor):
 * run_spawn_executor in `run`, scripted fakes in tests/unit/test_runloop.c.
 * It keeps yardstick's own work per run at the floor: counters are read
 * with one read() each before and after, and metrics are appended to
 * arrays created with a job's first run.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/run_internal.h"
#include "measure/counters.h"
#include "measure/spawn.h"
#include "measure/spawner.h"
#include "result/metrics.h"
#include "util/strutil.h"
#include "util/term.h"

const struct run_metric_name run_rusage_metrics[M_RUSAGE_COUNT] = {
	{ METRIC_WALL_TIME, "s" }, { METRIC_USER_TIME, "s" }, { METRIC_SYSTEM_TIME, "s" },
	{ METRIC_PEAK_RSS, "bytes" }, { "minor_faults", "count" },
	{ "major_faults", "count" }, { "voluntary_switches", "count" },
	{ "involuntary_switches", "count" },
};

const struct run_metric_name run_work_metrics[WORK_COUNT] = {
	{ METRIC_WORK_FLOPS, "flop" }, { METRIC_WORK_BYTES, "bytes" },
};

/* Metric names of the default counter set, for when perf is refused. */
static const char *const default_counter_metrics[] = {
	METRIC_TASK_CLOCK, "cycles", "instructions", "branches", "branch_misses",
	"cache_references", "cache_misses", "flops", "ipc",
};



static int spawn_executor(void *arg, const struct spawn_opts *o,
			  struct run_sample *out, struct error *e)
{
	(void)arg;
	return spawn_measure(o, out, e);
}

static int spawn_batch_begin(void *arg, const struct spawn_opts *o,
			     const struct spawner_batch *b, struct error *e)
{
	(void)arg;
	return spawner_batch_begin(o->via, o, b, e);
}

static int spawn_batch_next(void *arg, const struct spawn_opts *o,
			    struct spawner_batch_run *run, struct error *e)
{
	(void)arg;
	return spawner_batch_next(o->via, o, run, e);
}

static int spawn_batch_stop(void *arg, const struct spawn_opts *o,
			    struct error *e)
{
	(void)arg;
	return spawner_batch_stop(o->via, o, e);
}

const struct run_executor run_spawn_executor = {
	spawn_executor, NULL, spawn_batch_begin, spawn_batch_next,
	spawn_batch_stop,
};

/* One run through the executor. */
static int execute(struct runner *rn, const struct spawn_opts *o,
		   struct run_sample *s)
{
	return rn->exec->measure(rn->exec->arg, o, s, &rn->err);
}

/* Whether Ctrl-C (SIGINT, SIGTERM, SIGHUP) asked to stop. */
static bool stopped(const struct runner *rn)
{
	return rn->sp.interrupt && *rn->sp.interrupt;
}

static struct metric **job_metrics(struct runner *rn, size_t ji);

/* Keep the stderr tail of the run that just failed (started at start,
 * 0: since the drainer's reset), for the message. */
static void keep_tail(struct runner *rn, double start)
{
	free(rn->fail_tail);
	rn->fail_tail = rn->drainer ? drainer_take(rn->drainer, start) : NULL;
}

/* Run a shell snippet (prepare, cleanup) outside the measurement. */
static int run_shell(struct runner *rn, const char *what, const char *cmd)
{
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };
	struct spawn_opts sp = rn->sp;
	struct run_sample s;

	sp.path = "/bin/sh";
	sp.argv = argv;
	sp.pin = NULL;
	sp.stdin_fd = rn->null_fd;
	if (rn->ctr)
		counters_dirty(rn->ctr);
	if (rn->drainer)
		drainer_reset(rn->drainer);
	if (execute(rn, &sp, &s))
		return -1;
	if (s.interrupted)
		return -1;
	if (s.timed_out || spawn_exit_code(s.status) != 0)
		keep_tail(rn, 0);
	if (s.timed_out)
		return error_set(&rn->err, "%s command '%s' timed out", what,
				 cmd);
	if (spawn_exit_code(s.status) != 0)
		return error_set(&rn->err, "%s command '%s' failed with exit "
				 "code %d", what, cmd,
				 spawn_exit_code(s.status));
	return 0;
}

static void record(struct runner *rn, size_t ji, const struct run_sample *s)
{
	struct metric **m = job_metrics(rn, ji);
	double v[M_RUSAGE_COUNT] = {
		s->wall, s->user, s->sys, s->peak_rss, s->minor_faults,
		s->major_faults, s->voluntary_switches,
		s->involuntary_switches,
	};

	/* under --shell, raw: run_shell_correct decides at the end */
	for (size_t i = 0; i < M_RUSAGE_COUNT; i++)
		metric_push(m[i], v[i]);
	for (size_t w = 0; w < rn->nwork; w++)
		metric_push(m[rn->nmetrics - rn->nwork + w],
			    rn->jobs[ji].work[w]);
	/* none, or perf_blind (m[M_RUSAGE_COUNT] is no sign: with every
	 * event unsupported the row ends before it) */
	if (!rn->ctr || rn->jobs[ji].perf_blind)
		return;
	for (size_t k = 0; k < counters_metric_count(rn->ctr); k++) {
		const struct counter_value *c = &rn->cvals[k];

		metric_push(m[M_RUSAGE_COUNT + k], c->counted ? c->value : NAN);
		if (c->multiplexed)
			rn->mux[ji * counters_metric_count(rn->ctr) + k]++;
	}
	if (rn->ipc) {
		const struct counter_value *cy = &rn->cvals[rn->cycles_idx];
		const struct counter_value *in = &rn->cvals[rn->instr_idx];
		bool ok = cy->counted && in->counted && cy->value > 0;

		metric_push(m[rn->nmetrics - rn->nwork - 1],
			    ok ? in->value / cy->value : NAN);
	}
}

/* A run that measured nothing (timed out) keeps its place in every
 * metric, so that value i of each metric and exit code i are run i. */
static void record_nothing(struct runner *rn, size_t ji)
{
	struct metric **m = job_metrics(rn, ji);

	for (size_t i = 0; i < rn->nmetrics; i++)
		if (m[i])
			metric_push(m[i], NAN);
}

static void describe_failure(struct runner *rn, struct job *j, int status)
{
	const char *abbrev = WIFSIGNALED(status)
		? sigabbrev_np(WTERMSIG(status)) : NULL;

	if (WIFSIGNALED(status) && abbrev)
		error_set(&rn->err, "'%s' was killed by SIG%s", j->name, abbrev);
	else if (WIFSIGNALED(status))
		error_set(&rn->err, "'%s' was killed by signal %d", j->name,
			  WTERMSIG(status));
	else
		error_set(&rn->err, "'%s' failed with exit code %d", j->name,
			  spawn_exit_code(status));
}

static double job_expected(const struct runner *rn, const struct job *j);
static bool job_done(const struct runner *rn, const struct job *j);
static void show_progress(struct runner *rn, const char *label);

/* What stops the runs: an interrupt (130) or a failure of job j (1). */
static int run_fail(struct runner *rn, struct job *j)
{
	if (stopped(rn)) {
		rn->failed = 130;
		error_set(&rn->err, "interrupted: what was measured so far is "
			  "kept");
		return -1;
	}
	rn->failed = 1;
	j->failed = true;
	return -1;
}

/* Before a run of job ji (or a batch of them): 0 to go on, -1 to stop. */
static int run_start(struct runner *rn, size_t ji, bool measured)
{
	struct job *j = &rn->jobs[ji];

	if (stopped(rn))	/* a signal between two runs */
		return run_fail(rn, j);
	if (rn->p->prepare && run_shell(rn, "prepare", rn->p->prepare))
		return run_fail(rn, j);
	if (rn->input_fd >= 0)
		lseek(rn->input_fd, 0, SEEK_SET);
	rn->sp.path = j->path;
	rn->sp.argv = j->argv;
	if (rn->ctr && measured && counters_begin(rn->ctr, &rn->err))
		return run_fail(rn, j);
	if (rn->drainer)
		drainer_reset(rn->drainer);
	return 0;
}

/*
 * After a run of job ji: ret is what executing it returned, s what it
 * came to, reading the counters after its reap as the spawner read them
 * (n words), or NULL to read them here. Returns 0 to go on, -1 to stop
 * (failure, interrupt, or a spawn error; rn->failed says which).
 */
static int run_end(struct runner *rn, size_t ji, bool measured, int ret,
		   const struct run_sample *s, const uint64_t *reading,
		   size_t n)
{
	struct job *j = &rn->jobs[ji];
	int code;

	if (ret) {
		if (s->spawn_failed && !stopped(rn)) {
			rn->failed = 2;	/* exec refused: bad input */
			return -1;
		}
		return run_fail(rn, j);
	}
	if (rn->ctr) {
		if (!measured)
			counters_dirty(rn->ctr);
		else if (reading ? counters_end_with(rn->ctr, reading, n,
						     rn->cvals, &rn->err)
				 : counters_end(rn->ctr, rn->cvals, &rn->err))
			return run_fail(rn, j);
	}
	if (s->strays > 0) {
		j->strays += (size_t)s->strays;
		j->stray_runs++;
	}
	if (s->interrupted)
		return run_fail(rn, j);
	code = s->timed_out ? 128 + SIGKILL : spawn_exit_code(s->status);
	if (measured) {
		double before = job_expected(rn, j);

		benchmark_push_exit(j->bench, code);
		j->runs++;
		rn->total_runs++;
		if (s->timed_out) {
			j->bench->timeouts++;
			j->measured += rn->p->timeout;
			record_nothing(rn, ji);
		} else {
			j->measured += s->wall;
			record(rn, ji, s);
		}
		rn->expected += job_expected(rn, j) - before;
	} else {
		/* kept apart: a cold start shows, the statistics are not
		 * touched */
		series_push(&j->bench->warmup_wall_time,
			    s->timed_out ? NAN : s->wall);
	}
	if (code != 0 && !rn->p->ignore_failure) {
		keep_tail(rn, s->start);
		rn->hint_ignore = true;
	}
	if (s->timed_out && !rn->p->ignore_failure) {
		error_set(&rn->err, "'%s' timed out after %gs and was killed "
			  "with its process group", j->name, rn->p->timeout);
		return run_fail(rn, j);
	}
	if (code != 0 && !s->timed_out && !rn->p->ignore_failure) {
		describe_failure(rn, j, s->status);
		return run_fail(rn, j);
	}
	return 0;
}

/*
 * One run of job ji, measured or not. Returns 0 to go on, -1 to stop
 * (failure, interrupt, or a spawn error; rn->failed says which).
 */
static int run_once(struct runner *rn, size_t ji, bool measured)
{
	struct run_sample s;
	int ret;

	if (run_start(rn, ji, measured))
		return -1;
	ret = execute(rn, &rn->sp, &s);
	return run_end(rn, ji, measured, ret, &s, NULL, 0);
}

/* The runs of the batch under way of job ji, each as it comes, until
 * the batch ends (0) or run_end says stop (-1: the rest of the batch is
 * stopped). Returns as run_once; -2 when the spawner is gone. */
static int batch_read(struct runner *rn, size_t ji)
{
	const struct run_executor *x = rn->exec;
	struct spawner_batch_run run;
	int r;

	while ((r = x->batch_next(x->arg, &rn->sp, &run, &rn->err)) == 1) {
		if (run_end(rn, ji, true, run.ret, &run.sample, run.reading,
			    run.n)) {
			struct error ignored;

			/* rn->err says why the loop stops, not the drain */
			x->batch_stop(x->arg, &rn->sp, &ignored);
			return -1;
		}
		show_progress(rn, rn->jobs[ji].name);
	}
	return r < 0 ? -2 : 0;
}

/*
 * Whether the measured runs of a job may go in batches (spawner.h): run
 * by the spawner from start to end, with nothing of ours between two
 * runs — no --prepare, no --input to rewind — and the counters read by
 * the spawner.
 */
static bool can_batch(const struct runner *rn)
{
	return rn->exec->batch_begin && rn->sp.via && !rn->p->prepare &&
	       rn->input_fd < 0 &&
	       (!rn->ctr || !counters_metric_count(rn->ctr) ||
		spawner_reads_counters(rn->sp.via));
}

/*
 * The measured runs of job ji that job_done will certainly want, in one
 * batch: the rest of --runs; adaptive, up to --max-runs, the spawner
 * stopping where job_done would (spawner_batch). Returns as run_once.
 */
static int run_batch(struct runner *rn, size_t ji)
{
	const struct run_plan *p = rn->p;
	struct job *j = &rn->jobs[ji];
	struct spawner_batch b = {
		.stop_on_failure = !p->ignore_failure,
		/* with none (every event unsupported) counters_end reads
		 * nothing */
		.read_counters = rn->ctr && counters_metric_count(rn->ctr),
	};
	int r;
	size_t want_min = (size_t)p->min_runs > j->runs
			  ? (size_t)p->min_runs - j->runs : 0;

	if (p->runs) {
		b.count = (size_t)p->runs - j->runs;
	} else if (j->measured >= p->min_time) {
		b.count = want_min;		/* > 0: not done */
	} else {
		b.count = (size_t)p->max_runs - j->runs;
		b.min_count = want_min;
		/* the spawner's sum of whole ns must not pass ours: a
		 * margin of 1 us and a ns a run */
		b.min_wall = p->min_time - j->measured - 1e-6 -
			     (double)b.count * 1e-9;
		if (b.min_wall <= 0)
			b.count = 1;
	}
	if (run_start(rn, ji, true))
		return -1;
	if (rn->exec->batch_begin(rn->exec->arg, &rn->sp, &b, &rn->err))
		return run_fail(rn, j);
	r = batch_read(rn, ji);
	return r == -2 ? run_fail(rn, j) : r;
}

/* The measured runs of job ji until job_done: in batches when it may. */
static int run_job(struct runner *rn, size_t ji)
{
	while (!job_done(rn, &rn->jobs[ji])) {
		show_progress(rn, rn->jobs[ji].name);
		if (can_batch(rn) ? run_batch(rn, ji) : run_once(rn, ji, true))
			return -1;
	}
	return 0;
}

static bool job_done(const struct runner *rn, const struct job *j)
{
	const struct run_plan *p = rn->p;

	if (p->runs)
		return j->runs >= (size_t)p->runs;
	if (j->runs >= (size_t)p->max_runs)
		return true;
	return j->runs >= (size_t)p->min_runs && j->measured >= p->min_time;
}

/* Expected runs of a job, for the progress bar. */
static double job_expected(const struct runner *rn, const struct job *j)
{
	const struct run_plan *p = rn->p;
	double per, n;

	if (p->runs)
		return (double)p->runs;
	if (j->runs == 0)
		return (double)p->min_runs;
	per = j->measured / j->runs;
	n = per > 0 ? p->min_time / per : p->max_runs;
	if (n < p->min_runs)
		n = p->min_runs;
	if (n > p->max_runs)
		n = p->max_runs;
	return n;
}

/* rn->expected is kept as the sum of job_expected over the jobs (a
 * sum per run would cost O(jobs) a run: minutes for a large scan). */
static void show_progress(struct runner *rn, const char *label)
{
	if (!rn->progress.enabled || rn->expected <= 0)
		return;
	progress_update(&rn->progress, rn->total_runs / rn->expected, label);
}

static void shuffle(struct runner *rn, size_t *order, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t k = (size_t)rng_below(&rn->rng, i), t = order[i - 1];

		order[i - 1] = order[k];
		order[k] = t;
	}
}

static int run_cleanup(struct runner *rn)
{
	if (!rn->p->cleanup)
		return 0;
	if (run_shell(rn, "cleanup", rn->p->cleanup)) {
		rn->failed = stopped(rn) ? 130 : 1;
		return -1;
	}
	return 0;
}

int run_measure_all(struct runner *rn)
{
	size_t *order = xcalloc(rn->njobs, sizeof(size_t));
	bool interleaved = rn->p->order == ORDER_INTERLEAVED;
	int ret = -1;

	rn->expected = 0;
	for (size_t i = 0; i < rn->njobs; i++) {
		order[i] = i;
		rn->expected += job_expected(rn, &rn->jobs[i]);
	}
	for (long w = 0; w < rn->p->warmup; w++) {
		if (interleaved)
			shuffle(rn, order, rn->njobs);
		for (size_t i = 0; i < rn->njobs; i++) {
			show_progress(rn, "warming up");
			if (run_once(rn, order[i], false))
				goto out_free;
		}
	}
	if (interleaved && rn->njobs > 1) {
		bool more = true;

		while (more) {
			more = false;
			shuffle(rn, order, rn->njobs);
			for (size_t i = 0; i < rn->njobs; i++) {
				struct job *j = &rn->jobs[order[i]];

				if (job_done(rn, j))
					continue;
				more = true;
				show_progress(rn, j->name);
				if (run_once(rn, order[i], true))
					goto out_free;
				/* Its last run: clean up after it now. */
				if (job_done(rn, j) && run_cleanup(rn))
					goto out_free;
			}
		}
	} else {
		/* (one job interleaved: the same) */
		for (size_t i = 0; i < rn->njobs; i++) {
			if (run_job(rn, i) || run_cleanup(rn))
				goto out_free;
		}
	}
	ret = 0;
out_free:
	free(order);
	progress_clear(&rn->progress);
	return ret;
}

/* Median of `sh -c ''`, to subtract from every run under --shell. */
int run_calibrate_shell(struct runner *rn)
{
	enum { N = 30 };
	char *argv[] = { "/bin/sh", "-c", "", NULL };
	double v[3][N];
	struct spawn_opts sp = rn->sp;
	struct run_sample s;

	sp.path = "/bin/sh";
	sp.argv = argv;
	if (rn->ctr)
		counters_dirty(rn->ctr);
	for (int i = 0; i < N; i++) {
		if (execute(rn, &sp, &s) || s.interrupted)
			return -1;
		v[0][i] = s.wall;
		v[1][i] = s.user;
		v[2][i] = s.sys;
	}
	for (int k = 0; k < 3; k++) {
		struct summary sum;

		stats_summarize(v[k], N, NULL, 0, &sum);
		rn->shell_cost[k] = sum.median;
	}
	return 0;
}

/*
 * The CPU time a spawn costs before its exec, which the task clock does
 * not count: the most, over runs of `true`, of its CPU time less its task
 * clock (an upper bound: a blind command must lose more), into
 * rn->exec_cost (0 when there is no /bin/true or no task
 * clock). A few tenths of a millisecond, but several milliseconds under a
 * tracer. Returns 0, -1 when stopped.
 */
int run_calibrate_exec(struct runner *rn)
{
	enum { N = 5 };
	char *argv[] = { "true", NULL };
	double v[N];
	size_t n = 0, nc = rn->ctr ? counters_metric_count(rn->ctr) : 0;
	struct spawn_opts sp = rn->sp;
	struct run_sample s;
	long tc = -1;

	rn->exec_cost = 0;
	for (size_t k = 0; k < nc; k++)
		if (!strcmp(counters_metric_name(rn->ctr, k), METRIC_TASK_CLOCK))
			tc = (long)k;
	if (tc < 0 || access("/bin/true", X_OK))
		return 0;
	sp.path = "/bin/true";
	sp.argv = argv;
	sp.stdin_fd = rn->null_fd;
	for (int i = 0; i < N; i++) {
		if (counters_begin(rn->ctr, &rn->err))
			return 0;
		if (execute(rn, &sp, &s) || s.interrupted) {
			counters_dirty(rn->ctr);
			return -1;
		}
		if (counters_end(rn->ctr, rn->cvals, &rn->err))
			return 0;
		if (rn->cvals[tc].counted)
			v[n++] = s.user + s.sys - rn->cvals[tc].value;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i] > rn->exec_cost)
			rn->exec_cost = v[i];
	return 0;
}

/*
 * The metrics of job ji, created with its first measured run: a scan of
 * 100,000 values holds, for the values not run yet, only their names —
 * and an interrupted one drops them (run_drop_unrun). Whether perf counters
 * can follow the command is looked at here too, once per job.
 */
static struct metric **job_metrics(struct runner *rn, size_t ji)
{
	size_t nc = rn->ctr ? counters_metric_count(rn->ctr) : 0;
	struct job *j = &rn->jobs[ji];
	struct benchmark *b = j->bench;
	struct error why;

	if (rn->metrics[ji])
		return rn->metrics[ji];
	if (nc && spawn_exec_privileged(j->path, &why) == 1)
		j->perf_blind = xstrdup(why.msg);
	for (size_t k = 0; k < M_RUSAGE_COUNT; k++)
		benchmark_metric(b, run_rusage_metrics[k].name,
				 run_rusage_metrics[k].unit);
	for (size_t k = 0; k < nc && !j->perf_blind; k++)
		benchmark_metric(b, counters_metric_name(rn->ctr, k),
				 counters_metric_unit(rn->ctr, k));
	if (rn->ipc && !j->perf_blind)
		benchmark_metric(b, "ipc", "ratio");
	for (size_t w = 0; w < WORK_COUNT; w++)
		if (rn->p->work[w])
			benchmark_metric(b, run_work_metrics[w].name,
					 run_work_metrics[w].unit);
	if (j->perf_blind)
		run_mark_perf_blind(rn, b, j->perf_blind);
	if (rn->emulated)
		benchmark_add_warning(b, "hardware counters are emulated "
			"by software events (YARDSTICK_EMULATE_PMU=1): "
			"cycles, instructions and flops are not real");
	for (size_t k = 0; rn->ctr &&
	     k < counters_unsupported_count(rn->ctr); k++)
		benchmark_add_unsupported(b,
			counters_unsupported_name(rn->ctr, k));
	if (!rn->ipc && rn->ctr && !rn->p->events)
		benchmark_add_unsupported(b, "ipc");
	for (size_t k = 0; rn->perf_refused &&
	     k < sizeof(default_counter_metrics) / sizeof(char *); k++)
		benchmark_add_unsupported(b, default_counter_metrics[k]);
	/* Pointers only now: adding metrics may have moved them. */
	rn->metrics[ji] = xcalloc(rn->nmetrics, sizeof(struct metric *));
	for (size_t k = 0; k + rn->nwork < b->nmetrics; k++)
		rn->metrics[ji][k] = &b->metrics[k];
	/* the --work metrics last, after the counters a perf-blind
	 * benchmark does not have */
	for (size_t w = 0; w < rn->nwork; w++)
		rn->metrics[ji][rn->nmetrics - rn->nwork + w] =
			&b->metrics[b->nmetrics - rn->nwork + w];
	return rn->metrics[ji];
}

