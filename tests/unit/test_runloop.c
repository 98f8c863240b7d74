/*
 * Unit tests of `run`'s loop (src/engine/run_loop.c) on a fake executor: the
 * runs are scripted samples, so that the order of the runs, how many are
 * warm-ups and how many are measured, where the adaptive rule stops, and
 * what a failure, a timeout, an interrupt or a refused exec on run k does
 * are checked to the value, and nothing is ever spawned (the programs do
 * not exist, and no child is left to reap).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "engine/run_internal.h"
#include "measure/counters_internal.h"
#include "util/strutil.h"

#define MAXJ 4

/* What call k of job j comes to, beyond a wall time and exit 0. */
enum event { EV_NONE, EV_EXIT, EV_SIGNAL, EV_TIMEOUT, EV_INTERRUPT,
	     EV_FLAG_ONLY, EV_EXEC_REFUSED };

struct fake {
	double wall[MAXJ];	/* wall time of every run of job j ... */
	double step;		/* ... plus step times its call number */
	int ev_job, ev_call;	/* the event's job ('p' for --prepare) and
				 * call number (from 0, warm-ups counted) */
	enum event ev;
	int ev_value;		/* exit code or signal */
	volatile sig_atomic_t *stop;	/* the runner's interrupt flag */
	int calls[MAXJ + 1];	/* per job; [MAXJ]: the shell snippets */
	char log[512];		/* a letter per call: A, B ... for the
				 * jobs, p and c for --prepare, --cleanup */
	size_t n;
	int batches, batched;	/* fake batches begun, and runs in them */
	/* the fake batch under way: what was asked, runs so far, their
	 * wall time, whether more come */
	struct spawner_batch b;
	size_t b_runs;
	double b_wall;
	bool b_on;
};

static int fake_measure(void *arg, const struct spawn_opts *o,
			struct run_sample *out, struct error *e)
{
	struct fake *f = arg;
	int j, k;
	char letter;

	memset(out, 0, sizeof(*out));
	if (!strcmp(o->path, "/bin/sh")) {
		letter = !strcmp(o->argv[2], "prep") ? 'p' : 'c';
		j = letter;
		k = f->calls[MAXJ]++;
	} else {
		/* "/nonexistent/ys-runloop/N" */
		j = o->path[strlen(o->path) - 1] - '0';
		assert_true(j >= 0 && j < MAXJ);
		letter = (char)('A' + j);
		k = f->calls[j]++;
		out->wall = f->wall[j] + f->step * k;
	}
	assert_true(f->n + 1 < sizeof(f->log));
	f->log[f->n++] = letter;
	if (j != f->ev_job || k != f->ev_call)
		return 0;
	switch (f->ev) {
	case EV_NONE:
		break;
	case EV_EXIT:
		out->status = f->ev_value << 8;
		break;
	case EV_SIGNAL:
		out->status = f->ev_value;
		break;
	case EV_TIMEOUT:
		out->timed_out = true;
		out->status = SIGKILL;
		break;
	case EV_INTERRUPT:
		/* Ctrl-C while it ran: the handler set the flag, the run
		 * was killed */
		*f->stop = 1;
		out->interrupted = true;
		out->status = SIGKILL;
		break;
	case EV_FLAG_ONLY:
		/* Ctrl-C just after it ended: the run is whole */
		*f->stop = 1;
		break;
	case EV_EXEC_REFUSED:
		out->spawn_failed = true;
		return error_set(e, "cannot execute '%s': Permission denied",
				 o->path);
	}
	return 0;
}

/*
 * The spawner's batch as spawner.h words it (spawner_main.c, run_batch):
 * the runs one after the other, each read as it ends, stopping after a
 * run that could not start or was interrupted, at Ctrl-C between two
 * runs, at a failure with stop_on_failure, or adaptive once min_count
 * runs took min_wall (a timed-out run counting its timeout at least).
 */
static int fake_batch_begin(void *arg, const struct spawn_opts *o,
			    const struct spawner_batch *b, struct error *e)
{
	struct fake *f = arg;

	(void)o;
	(void)e;
	f->batches++;
	f->b = *b;
	f->b_runs = 0;
	f->b_wall = 0;
	f->b_on = b->count > 0;
	return 0;
}

static int fake_batch_next(void *arg, const struct spawn_opts *o,
			   struct spawner_batch_run *run, struct error *e)
{
	struct fake *f = arg;
	struct run_sample *s = &run->sample;
	bool clean;

	if (!f->b_on)
		return 0;
	run->ret = fake_measure(arg, o, s, e);
	run->reading = NULL;
	run->n = 0;
	clean = !run->ret && !s->timed_out && WIFEXITED(s->status) &&
		WEXITSTATUS(s->status) == 0;
	f->batched++;
	f->b_runs++;
	f->b_wall += s->timed_out && s->wall < o->timeout ? o->timeout
							   : s->wall;
	if (run->ret || s->interrupted || *o->interrupt ||
	    (f->b.stop_on_failure && !clean) || f->b_runs >= f->b.count ||
	    (f->b.min_wall > 0 && f->b_runs >= f->b.min_count &&
	     f->b_wall >= f->b.min_wall))
		f->b_on = false;
	return 1;
}

static int fake_batch_stop(void *arg, const struct spawn_opts *o,
			   struct error *e)
{
	struct fake *f = arg;

	(void)o;
	(void)e;
	f->b_on = false;
	return 0;
}

/* Whether the tests' runs go through the fake batch where `run` batches:
 * every test runs both ways, to the same values. */
static bool batching;

static int batching_on(void **state)
{
	batching = true;
	return 0;
}

static int batching_off(void **state)
{
	batching = false;
	return 0;
}

struct world {
	struct run_plan p;
	struct result res;
	struct job jobs[MAXJ];
	char *argv[MAXJ][2];
	char path[MAXJ][64];
	char name[MAXJ][2];
	struct runner rn;
	struct fake fake;
	struct run_executor ex;
	volatile sig_atomic_t stop;
};

/* njobs jobs named A, B ...; options as `run`'s defaults would leave
 * them, with warm-ups and runs to be set by the test. */
static struct world *world_new(size_t njobs, enum run_order order)
{
	struct world *w = xcalloc(1, sizeof(*w));

	w->p.order = order;
	w->p.min_runs = 10;
	w->p.max_runs = 1000;
	w->p.min_time = 3;
	result_init(&w->res, "run");
	for (size_t i = 0; i < njobs; i++) {
		snprintf(w->path[i], sizeof(w->path[i]),
			 "/nonexistent/ys-runloop/%zu", i);
		w->name[i][0] = (char)('A' + i);
		w->argv[i][0] = w->path[i];
		w->jobs[i].name = w->name[i];
		w->jobs[i].argv = w->argv[i];
		w->jobs[i].path = w->path[i];
		result_add_benchmark(&w->res, w->name[i], w->argv[i]);
	}
	for (size_t i = 0; i < njobs; i++)
		w->jobs[i].bench = &w->res.benchmarks[i];
	w->fake.ev_job = -1;
	w->fake.stop = &w->stop;
	w->ex = (struct run_executor){ .measure = fake_measure,
				       .arg = &w->fake };
	if (batching) {
		w->ex.batch_begin = fake_batch_begin;
		w->ex.batch_next = fake_batch_next;
		w->ex.batch_stop = fake_batch_stop;
	}
	/* never used but as the sign of a spawner to batch through */
	if (batching)
		w->rn.sp.via = (struct spawner *)(void *)&w->fake;
	w->rn.p = &w->p;
	w->rn.exec = &w->ex;
	w->rn.jobs = w->jobs;
	w->rn.njobs = njobs;
	w->rn.res = &w->res;
	w->rn.nmetrics = M_RUSAGE_COUNT;
	w->rn.metrics = xcalloc(njobs, sizeof(*w->rn.metrics));
	w->rn.null_fd = w->rn.input_fd = -1;
	w->rn.sp.interrupt = &w->stop;
	rng_seed(&w->rn.rng, 1);
	return w;
}

/* Call `call` (from 0) of job `job` comes to ev. */
static void on_call(struct world *w, int job, int call, enum event ev,
		    int value)
{
	w->fake.ev_job = job;
	w->fake.ev_call = call;
	w->fake.ev = ev;
	w->fake.ev_value = value;
}

/* Run the loop; nothing may have been spawned. Returns its result. */
static int run_loop(struct world *w)
{
	int r = run_measure_all(&w->rn);

	/* no child of ours exists, let alone one left to reap */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	return r;
}

static void world_free(struct world *w)
{
	for (size_t i = 0; i < w->rn.njobs; i++)
		free(w->rn.metrics[i]);
	free(w->rn.metrics);
	free(w->rn.fail_tail);
	result_free(&w->res);
	free(w);
}

/* The values of metric m of job j. */
static const struct metric *metric(struct world *w, size_t j, int m)
{
	assert_non_null(w->rn.metrics[j]);
	return w->rn.metrics[j][m];
}

static void assert_exits(const struct benchmark *b, const int *codes,
			 size_t n)
{
	assert_int_equal(b->nexit, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(b->exit_codes[i], codes[i]);
}

/* --warmup 2 --runs 3, one command after the other: the warm-ups come
 * first, round by round, and are not recorded. */
static void test_sequential_fixed_runs(void **state)
{
	struct world *w = world_new(2, ORDER_SEQUENTIAL);
	const struct metric *wall;
	static const int ok3[] = { 0, 0, 0 };

	(void)state;
	w->p.warmup = 2;
	w->p.runs = 3;
	w->fake.wall[0] = 1;
	w->fake.wall[1] = 2;
	w->fake.step = 0.25;
	assert_int_equal(run_loop(w), 0);
	assert_string_equal(w->fake.log, "ABABAAABBB");
	assert_int_equal(w->rn.failed, 0);
	assert_int_equal(w->rn.total_runs, 6);
	for (size_t j = 0; j < 2; j++) {
		assert_int_equal(w->jobs[j].runs, 3);
		assert_exits(w->jobs[j].bench, ok3, 3);
		wall = metric(w, j, M_WALL);
		assert_int_equal(wall->n, 3);
		/* calls 2, 3 and 4 of each: the two warm-ups are not in */
		for (size_t k = 0; k < 3; k++)
			assert_true(wall->values[k] ==
				    w->fake.wall[j] + 0.25 * (k + 2));
		assert_true(w->jobs[j].measured == 3 * w->fake.wall[j] +
			    0.25 * (2 + 3 + 4));
	}
	world_free(w);
}

/* Whether log[0..n) holds each of the letters of set exactly once. */
static bool permutation(const char *log, size_t n, const char *set)
{
	if (strlen(set) != n)
		return false;
	for (const char *c = set; *c; c++)
		if (!memchr(log, *c, n))
			return false;
	return true;
}

/*
 * Interleaved, --warmup 1 --runs 4, three commands: every round (the
 * warm-up's and the four measured) runs each command once, in an order
 * shuffled anew; the same seed gives the same order.
 */
static void test_interleaved_rounds(void **state)
{
	char first[512] = "";
	bool varied = false;

	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct world *w = world_new(3, ORDER_INTERLEAVED);
		char rounds[5][4];

		w->p.warmup = 1;
		w->p.runs = 4;
		w->fake.wall[0] = w->fake.wall[1] = w->fake.wall[2] = 0.01;
		rng_seed(&w->rn.rng, seed);
		assert_int_equal(run_loop(w), 0);
		assert_int_equal(w->fake.n, 15);
		for (size_t r = 0; r < 5; r++) {
			assert_true(permutation(w->fake.log + 3 * r, 3,
						"ABC"));
			memcpy(rounds[r], w->fake.log + 3 * r, 3);
			rounds[r][3] = '\0';
			varied |= strcmp(rounds[r], rounds[0]) != 0;
		}
		for (size_t j = 0; j < 3; j++) {
			assert_int_equal(w->jobs[j].runs, 4);
			assert_int_equal(metric(w, j, M_WALL)->n, 4);
		}
		if (seed == 1)
			snprintf(first, sizeof(first), "%s", w->fake.log);
		world_free(w);
	}
	assert_true(varied);
	/* the order is the seed's */
	{
		struct world *w = world_new(3, ORDER_INTERLEAVED);

		w->p.warmup = 1;
		w->p.runs = 4;
		rng_seed(&w->rn.rng, 1);
		assert_int_equal(run_loop(w), 0);
		assert_string_equal(w->fake.log, first);
		world_free(w);
	}
}

/*
 * The adaptive rule: --min-runs 3 --max-runs 10 --min-time 1. A job stops
 * once it has 3 runs and 1 s measured, or 10 runs. A takes 0.25 s a run:
 * 4 runs make exactly 1 s (the bound counts). B, 0.5 s: 2 runs make 1 s,
 * but at least 3. C, 0.0625 s: 16 would make 1 s, 10 is the most.
 */
static void test_adaptive_stop(void **state)
{
	static const size_t want[3] = { 4, 3, 10 };

	(void)state;
	for (int order = 0; order < 2; order++) {
		struct world *w = world_new(3, order ? ORDER_SEQUENTIAL
						     : ORDER_INTERLEAVED);
		size_t last_a = 0, last_b = 0;

		w->p.min_runs = 3;
		w->p.max_runs = 10;
		w->p.min_time = 1;
		w->fake.wall[0] = 0.25;
		w->fake.wall[1] = 0.5;
		w->fake.wall[2] = 0.0625;
		assert_int_equal(run_loop(w), 0);
		assert_int_equal(w->fake.n, 17);
		for (size_t j = 0; j < 3; j++) {
			assert_int_equal(w->jobs[j].runs, want[j]);
			assert_int_equal(w->fake.calls[j], want[j]);
			assert_int_equal(metric(w, j, M_WALL)->n, want[j]);
		}
		assert_true(w->jobs[0].measured == 1.0);
		assert_true(w->jobs[1].measured == 1.5);
		assert_true(w->jobs[2].measured == 0.625);
		if (order) {
			assert_string_equal(w->fake.log,
					    "AAAABBBCCCCCCCCCC");
		} else {
			/* rounds 1-3 run all three, round 4 A and C, the
			 * last six only C */
			for (size_t r = 0; r < 3; r++)
				assert_true(permutation(w->fake.log + 3 * r,
							3, "ABC"));
			assert_true(permutation(w->fake.log + 9, 2, "AC"));
			assert_string_equal(w->fake.log + 11, "CCCCCC");
			for (size_t i = 0; i < w->fake.n; i++) {
				if (w->fake.log[i] == 'A')
					last_a = i;
				if (w->fake.log[i] == 'B')
					last_b = i;
			}
			assert_true(last_a < 11 && last_b < 9);
		}
		world_free(w);
	}
}

/* B fails on its third run: the loop stops there, the failing run is
 * recorded, the message names it; with --ignore-failure it goes on. */
static void test_failure_on_run_k(void **state)
{
	static const int five[] = { 0, 0, 0, 0, 0 };

	(void)state;
	for (int ignore = 0; ignore < 2; ignore++) {
		struct world *w = world_new(2, ORDER_SEQUENTIAL);

		w->p.runs = 5;
		w->p.ignore_failure = ignore;
		w->fake.wall[0] = w->fake.wall[1] = 0.125;
		on_call(w, 1, 2, EV_EXIT, 3);
		assert_int_equal(run_loop(w), ignore ? 0 : -1);
		assert_exits(w->jobs[0].bench, five, 5);
		if (!ignore) {
			assert_string_equal(w->fake.log, "AAAAABBB");
			assert_int_equal(w->rn.failed, 1);
			assert_true(w->jobs[1].failed);
			assert_false(w->jobs[0].failed);
			assert_true(w->rn.hint_ignore);
			assert_exits(w->jobs[1].bench, (int[]){ 0, 0, 3 }, 3);
			assert_string_equal(w->rn.err.msg,
					    "'B' failed with exit code 3");
			assert_int_equal(metric(w, 1, M_WALL)->n, 3);
		} else {
			assert_string_equal(w->fake.log, "AAAAABBBBB");
			assert_int_equal(w->rn.failed, 0);
			assert_false(w->rn.hint_ignore);
			assert_exits(w->jobs[1].bench,
				     (int[]){ 0, 0, 3, 0, 0 }, 5);
			assert_int_equal(metric(w, 1, M_WALL)->n, 5);
		}
		world_free(w);
	}
}

/* Killed by a signal on run 2: the message names the signal. A failure in
 * a warm-up stops the loop with nothing recorded. */
static void test_signal_and_warmup_failure(void **state)
{
	struct world *w = world_new(1, ORDER_SEQUENTIAL);

	(void)state;
	w->p.runs = 4;
	on_call(w, 0, 1, EV_SIGNAL, SIGSEGV);
	assert_int_equal(run_loop(w), -1);
	assert_string_equal(w->fake.log, "AA");
	assert_string_equal(w->rn.err.msg, "'A' was killed by SIGSEGV");
	assert_exits(w->jobs[0].bench, (int[]){ 0, 128 + SIGSEGV }, 2);
	world_free(w);

	w = world_new(2, ORDER_SEQUENTIAL);
	w->p.warmup = 2;
	w->p.runs = 4;
	on_call(w, 1, 0, EV_EXIT, 1);
	assert_int_equal(run_loop(w), -1);
	assert_string_equal(w->fake.log, "AB");
	assert_int_equal(w->rn.failed, 1);
	assert_int_equal(w->rn.total_runs, 0);
	assert_int_equal(w->jobs[0].bench->nexit, 0);
	assert_int_equal(w->jobs[1].bench->nexit, 0);
	assert_null(w->rn.metrics[0]);
	world_free(w);
}

/*
 * A times out on its second run (--timeout 0.5): it keeps its place in
 * every metric (NaN), counts as exit 137 and as 0.5 s measured; the loop
 * stops, or with --ignore-failure goes on to B.
 */
static void test_timeout_on_run_k(void **state)
{
	(void)state;
	for (int ignore = 0; ignore < 2; ignore++) {
		struct world *w = world_new(2, ORDER_SEQUENTIAL);
		const struct metric *wall, *rss;

		w->p.runs = 4;
		w->p.timeout = 0.5;
		w->p.ignore_failure = ignore;
		w->fake.wall[0] = 0.25;
		on_call(w, 0, 1, EV_TIMEOUT, 0);
		assert_int_equal(run_loop(w), ignore ? 0 : -1);
		assert_int_equal(w->jobs[0].bench->timeouts, 1);
		wall = metric(w, 0, M_WALL);
		rss = metric(w, 0, M_RSS);
		assert_true(wall->values[0] == 0.25);
		assert_true(isnan(wall->values[1]) && isnan(rss->values[1]));
		if (!ignore) {
			assert_string_equal(w->fake.log, "AA");
			assert_int_equal(w->rn.failed, 1);
			assert_string_equal(w->rn.err.msg, "'A' timed out "
				"after 0.5s and was killed with its process "
				"group");
			assert_exits(w->jobs[0].bench,
				     (int[]){ 0, 128 + SIGKILL }, 2);
			assert_true(w->jobs[0].measured == 0.75);
			assert_null(w->rn.metrics[1]);
		} else {
			assert_string_equal(w->fake.log, "AAAABBBB");
			assert_int_equal(w->rn.failed, 0);
			assert_exits(w->jobs[0].bench,
				     (int[]){ 0, 128 + SIGKILL, 0, 0 }, 4);
			assert_int_equal(wall->n, 4);
			assert_true(w->jobs[0].measured == 0.25 * 3 + 0.5);
		}
		world_free(w);
	}
}

/*
 * Ctrl-C during the 4th run (interleaved, --runs 5): no run after it, the
 * interrupted run is not recorded, exit 130. Ctrl-C just after a run
 * ended: that run counts, the next does not start.
 */
static void test_interrupt(void **state)
{
	(void)state;
	for (int whole = 0; whole < 2; whole++) {
		struct world *w;
		size_t recorded;
		int j;

		/* which job runs 4th under seed 1 (its second run): that
		 * run is where Ctrl-C comes */
		w = world_new(2, ORDER_INTERLEAVED);
		w->p.runs = 5;
		assert_int_equal(run_loop(w), 0);
		j = w->fake.log[3] - 'A';
		world_free(w);

		w = world_new(2, ORDER_INTERLEAVED);
		w->p.runs = 5;
		on_call(w, j, 1, whole ? EV_FLAG_ONLY : EV_INTERRUPT, 0);
		assert_int_equal(run_loop(w), -1);
		assert_int_equal(w->fake.n, 4);
		assert_int_equal(w->rn.failed, 130);
		assert_string_equal(w->rn.err.msg, "interrupted: what was "
				    "measured so far is kept");
		recorded = w->jobs[0].bench->nexit + w->jobs[1].bench->nexit;
		assert_int_equal(recorded, whole ? 4 : 3);
		assert_int_equal(w->rn.total_runs, whole ? 4 : 3);
		assert_false(w->jobs[0].failed || w->jobs[1].failed);
		world_free(w);
	}
}

/* An exec the system refuses on the first run: exit 2, nothing more. */
static void test_exec_refused(void **state)
{
	struct world *w = world_new(2, ORDER_INTERLEAVED);

	(void)state;
	w->p.runs = 3;
	w->p.warmup = 1;
	on_call(w, 1, 0, EV_EXEC_REFUSED, 0);
	assert_int_equal(run_loop(w), -1);
	assert_int_equal(w->rn.failed, 2);
	assert_int_equal(w->fake.log[w->fake.n - 1], 'B');
	assert_true(w->fake.n <= 2);
	assert_string_equal(w->rn.err.msg, "cannot execute "
			    "'/nonexistent/ys-runloop/1': Permission denied");
	world_free(w);
}

/*
 * --prepare before every run (warm-ups too), --cleanup after each
 * command's last run: sequential, and interleaved, where a command's
 * cleanup comes right after its last run. A failing --prepare stops it.
 */
static void test_prepare_cleanup(void **state)
{
	struct world *w = world_new(2, ORDER_SEQUENTIAL);
	char round2[] = "p?cp?c";

	(void)state;
	w->p.warmup = 1;
	w->p.runs = 2;
	w->p.prepare = "prep";
	w->p.cleanup = "clean";
	assert_int_equal(run_loop(w), 0);
	assert_string_equal(w->fake.log, "pApBpApAcpBpBc");
	world_free(w);

	w = world_new(2, ORDER_INTERLEAVED);
	w->p.runs = 2;
	w->p.prepare = "prep";
	w->p.cleanup = "clean";
	assert_int_equal(run_loop(w), 0);
	/* round 1: pX pY; round 2: pX c pY c (the order may differ) */
	assert_int_equal(w->fake.n, 10);
	assert_true(w->fake.log[0] == 'p' && w->fake.log[2] == 'p');
	round2[1] = w->fake.log[5];
	round2[4] = w->fake.log[8];
	assert_true(round2[1] != round2[4] && strchr("AB", round2[1]) &&
		    strchr("AB", round2[4]));
	assert_string_equal(w->fake.log + 4, round2);
	world_free(w);

	w = world_new(1, ORDER_SEQUENTIAL);
	w->p.runs = 3;
	w->p.prepare = "prep";
	on_call(w, 'p', 1, EV_EXIT, 4);
	assert_int_equal(run_loop(w), -1);
	assert_string_equal(w->fake.log, "pAp");
	assert_int_equal(w->rn.failed, 1);
	assert_string_equal(w->rn.err.msg, "prepare command 'prep' failed "
			    "with exit code 4");
	assert_int_equal(w->jobs[0].runs, 1);
	world_free(w);
}

/*
 * Where `run` batches: the measured runs of one job at a time (sequential,
 * or a single job interleaved), in one batch when nothing of ours comes
 * between two runs; never with --prepare, nor with several jobs
 * interleaved; adaptive, one batch that stops where job_done does.
 */
static void test_batches(void **state)
{
	struct world *w;

	(void)state;
	static const struct {
		size_t njobs;
		enum run_order order;
		long runs;
		const char *prepare;
		const char *log;	/* the calls, in order */
		int batches, batched;
	} cases[] = {
		{ 2, ORDER_SEQUENTIAL, 5, NULL, "ABAAAAABBBBB", 2, 10 },
		{ 1, ORDER_INTERLEAVED, 7, NULL, "AAAAAAAA", 1, 7 },
		{ 2, ORDER_INTERLEAVED, 3, NULL, NULL, 0, 0 },
		{ 1, ORDER_SEQUENTIAL, 3, "prep", "pApApA", 0, 0 },
	};

	batching = true;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		w = world_new(cases[i].njobs, cases[i].order);
		w->p.runs = cases[i].runs;
		w->p.warmup = cases[i].prepare ? 0 : 1;
		w->p.prepare = cases[i].prepare;
		assert_int_equal(run_loop(w), 0);
		if (cases[i].log)
			assert_string_equal(w->fake.log, cases[i].log);
		assert_int_equal(w->fake.batches, cases[i].batches);
		assert_int_equal(w->fake.batched, cases[i].batched);
		for (size_t j = 0; j < cases[i].njobs; j++)
			assert_int_equal(metric(w, j, M_WALL)->n,
					 (size_t)cases[i].runs);
		world_free(w);
	}

	/* adaptive: at least 3, then until 1 s: 4 runs of 0.25 s, in one */
	w = world_new(1, ORDER_SEQUENTIAL);
	w->p.min_runs = 3;
	w->p.max_runs = 10;
	w->p.min_time = 1;
	w->fake.wall[0] = 0.25;
	assert_int_equal(run_loop(w), 0);
	assert_int_equal(w->fake.batches, 1);
	assert_int_equal(w->jobs[0].runs, 4);
	world_free(w);
	batching = false;
}

/*
 * --work flops and bytes: each run of a job records the job's values as
 * the last two metrics, named and united as run_work_metrics says; a
 * timed-out run records nothing there either (--ignore-failure).
 */
static void test_work_metrics(void **state)
{
	struct world *w = world_new(2, ORDER_INTERLEAVED);
	struct expr *x;
	struct error e;
	const struct benchmark *b;
	const struct metric *f, *by;

	(void)state;
	assert_int_equal(expr_parse("1", &x, &e), 0);
	w->p.work[WORK_FLOPS] = w->p.work[WORK_BYTES] = x;
	w->p.runs = 3;
	w->p.timeout = 0.5;
	w->p.ignore_failure = true;
	w->rn.nwork = 2;
	w->rn.nmetrics = M_RUSAGE_COUNT + 2;
	w->jobs[0].work[0] = 2e6;
	w->jobs[0].work[1] = 240000;
	w->jobs[1].work[0] = 1.6e7;
	w->jobs[1].work[1] = 960000;
	w->fake.wall[0] = w->fake.wall[1] = 0.25;
	on_call(w, 1, 1, EV_TIMEOUT, 0);
	assert_int_equal(run_loop(w), 0);
	for (size_t j = 0; j < 2; j++) {
		b = w->jobs[j].bench;
		assert_int_equal(b->nmetrics, M_RUSAGE_COUNT + 2);
		f = metric(w, j, M_RUSAGE_COUNT);
		by = metric(w, j, M_RUSAGE_COUNT + 1);
		assert_ptr_equal(f, benchmark_find_metric(b, "work_flops"));
		assert_ptr_equal(by, benchmark_find_metric(b, "work_bytes"));
		assert_string_equal(f->unit, "flop");
		assert_string_equal(by->unit, "bytes");
		assert_int_equal(f->n, 3);
		assert_int_equal(by->n, 3);
		for (size_t k = 0; k < 3; k++) {
			if (j == 1 && k == 1) {
				assert_true(isnan(f->values[k]));
				assert_true(isnan(by->values[k]));
				continue;
			}
			assert_true(f->values[k] == w->jobs[j].work[0]);
			assert_true(by->values[k] == w->jobs[j].work[1]);
		}
	}
	expr_free(x);
	world_free(w);
}

/*
 * Counters asked for and every one unsupported (-e dram_bytes in a VM):
 * the counter set holds no metric and a job's row of metrics ends with
 * the rusage ones — a run must not read past it (ASan saw it read
 * m[M_RUSAGE_COUNT]).
 */
static void test_every_counter_unsupported(void **state)
{
	static const char *const events[] = { "dram_bytes" };
	const struct counters_sys sys = { .sysfs = "/nonexistent" };
	struct world *w = world_new(1, ORDER_SEQUENTIAL);
	struct error e;

	(void)state;
	assert_int_equal(counters_open_sys(&w->rn.ctr, events, 1, &sys, &e),
			 COUNTERS_OK);
	assert_int_equal(counters_metric_count(w->rn.ctr), 0);
	w->rn.cvals = xcalloc(1, sizeof(*w->rn.cvals));
	w->p.runs = 2;
	w->fake.wall[0] = 0.25;
	assert_int_equal(run_loop(w), 0);
	assert_int_equal(metric(w, 0, M_WALL)->n, 2);
	assert_int_equal(w->jobs[0].bench->nmetrics, M_RUSAGE_COUNT);
	assert_string_equal(w->jobs[0].bench->unsupported[0], "dram_bytes");
	counters_close(w->rn.ctr);
	free(w->rn.cvals);
	world_free(w);
}

int main(void)
{
#define BOTH(f) cmocka_unit_test_setup(f, batching_off), \
		cmocka_unit_test_setup(f, batching_on)
	const struct CMUnitTest tests[] = {
		BOTH(test_sequential_fixed_runs),
		BOTH(test_interleaved_rounds),
		BOTH(test_adaptive_stop),
		BOTH(test_failure_on_run_k),
		BOTH(test_signal_and_warmup_failure),
		BOTH(test_timeout_on_run_k),
		BOTH(test_interrupt),
		BOTH(test_exec_refused),
		BOTH(test_prepare_cleanup),
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_work_metrics),
		cmocka_unit_test(test_every_counter_unsupported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
