/* Unit tests of src/measure/spawn and src/measure/spawner: what one run
 * measures, spawned from here and through the spawner, against fixture
 * programs whose behaviour is known (ysfix; rssfix and tinyfix for the
 * peak RSS). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure/counters.h"
#include "measure/spawn.h"
#include "measure/spawner.h"
#include "util/strutil.h"
#include "proc_alive.h"

#define YSFIX FIXTURES_DIR "/ysfix"
#define RSSFIX FIXTURES_DIR "/rssfix"
#define TINYFIX FIXTURES_DIR "/tinyfix"
/* meson builds it in the source tree's layout */
#define SPAWNER FIXTURES_DIR "/../../yardstick-spawner"
#define MiB 1048576.0
/*
 * Timing bounds: a lower bound only where the clocks guarantee it (the
 * command slept or spun at least that long between the measurement's
 * start and end); an upper bound only to catch a wrong unit, far above
 * anything a loaded machine could take.
 */
#define SANE_WALL 60.0

/* Tests named _both run once spawned from here, once through this. */
static struct spawner *spawner;

static int run_via(struct spawner *via, struct run_sample *s, double timeout,
		   char **argv)
{
	struct spawn_opts o = { .path = argv[0], .argv = argv, .stdin_fd = -1,
				.stdout_fd = -1, .stderr_fd = -1,
				.timeout = timeout, .via = via };
	struct error e;

	return spawn_measure(&o, s, &e);
}

static int run(struct run_sample *s, double timeout, char **argv)
{
	return run_via(NULL, s, timeout, argv);
}

/* Our own VmHWM in bytes. */
static double own_hwm(void)
{
	char line[256];
	double kib = 0;
	FILE *fp = fopen("/proc/self/status", "r");

	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmHWM: %lf", &kib) == 1)
			break;
	fclose(fp);
	return kib * 1024;
}

/* The spawner a test named _both is to use: NULL, or this one's. */
#define VIA(state) (*(state) ? *(struct spawner **)*(state) : NULL)

static void test_sleep_wall_time_both(void **state)
{
	char *argv[] = { YSFIX, "sleep", "50", NULL };
	struct run_sample s;

	assert_int_equal(run_via(VIA(state), &s, 0, argv), 0);
	assert_int_equal(spawn_exit_code(s.status), 0);
	/* Sleeping costs wall time, not CPU time. */
	assert_true(s.wall >= 0.050);
	assert_true(s.wall < SANE_WALL);
	/* CPU time, not wall: a busy machine does not add to it */
	assert_true(s.user + s.sys < 0.040);
}

static void test_spin_user_time_both(void **state)
{
	char *argv[] = { YSFIX, "spin", "150", NULL };
	struct run_sample s;

	assert_int_equal(run_via(VIA(state), &s, 0, argv), 0);
	assert_true(s.user + s.sys >= 0.140);
	assert_true(s.wall >= s.user * 0.9);
}

/*
 * Peak RSS is that of this very child: a small command measured after a big
 * one must not inherit the big one's peak (getrusage(RUSAGE_CHILDREN) would
 * report 64 MiB for both). Spawned from here, the small one is below our
 * own peak, which the kernel counts in: not measured.
 */
static void test_peak_rss_per_child(void **state)
{
	char *big[] = { YSFIX, "touch", "64", NULL };
	char *small[] = { YSFIX, "exit", "0", NULL };
	struct run_sample s;

	assert_int_equal(run(&s, 0, big), 0);
	assert_true(s.peak_rss >= 64.0 * MiB);
	assert_true(s.peak_rss < 80.0 * MiB);
	assert_true(s.minor_faults >= 64 * 256);
	assert_int_equal(run(&s, 0, small), 0);
	assert_true(isnan(s.peak_rss));
	assert_true(s.rss_floor >= own_hwm() * 0.9);
	assert_true(s.minor_faults < 64 * 256 / 2);
}

/*
 * Through the spawner a command's peak RSS is its own, not ours nor the
 * spawner's: rssfix touching 2 MiB peaks at 2 MiB plus its static
 * start-up; a dynamically linked command that does nothing (as `true`) at
 * about 1 MiB, below our own peak; tinyfix (about 10 KiB) is below the
 * spawner's and is not measured.
 */
static void test_spawner_peak_rss(void **state)
{
	char *two[] = { RSSFIX, "2", NULL };
	char *big[] = { YSFIX, "touch", "64", NULL };
	char *small[] = { YSFIX, "exit", "0", NULL };
	char *tiny[] = { TINYFIX, NULL };
	struct run_sample s;

	assert_int_equal(run_via(spawner, &s, 0, two), 0);
	assert_int_equal(spawn_exit_code(s.status), 0);
	assert_true(s.peak_rss >= 2 * MiB);
	assert_true(s.peak_rss < 3.5 * MiB);
	assert_true(s.rss_floor > 0 && s.rss_floor < 1 * MiB);
	assert_int_equal(run_via(spawner, &s, 0, big), 0);
	assert_true(s.peak_rss >= 64 * MiB && s.peak_rss < 80 * MiB);
	assert_int_equal(run_via(spawner, &s, 0, small), 0);
	assert_false(isnan(s.peak_rss));
	assert_true(s.peak_rss > 0.25 * MiB);
	assert_true(s.peak_rss < 3 * MiB);
	/* spawned from here it would have been ours, whatever we weigh */
	assert_true(s.peak_rss < own_hwm());
	assert_int_equal(run_via(spawner, &s, 0, tiny), 0);
	if (spawn_exit_code(s.status) == 77)
		skip();		/* no tinyfix for this architecture */
	assert_int_equal(spawn_exit_code(s.status), 0);
	assert_true(isnan(s.peak_rss));
	assert_true(s.rss_floor > 0 && s.rss_floor < 1 * MiB);
	assert_true(spawn_rss_floor(&(struct spawn_opts){ .via = spawner }) ==
		    s.rss_floor);
}

static void test_exit_codes_both(void **state)
{
	char *fail[] = { YSFIX, "exit", "3", NULL };
	char *segv[] = { YSFIX, "signal", "11", NULL };
	char *text[] = { "/etc/passwd", NULL };
	struct spawn_opts o = { .path = text[0], .argv = text, .stdin_fd = -1,
				.stdout_fd = -1, .stderr_fd = -1,
				.via = VIA(state) };
	struct run_sample s;
	struct error e;

	assert_int_equal(run_via(VIA(state), &s, 0, fail), 0);
	assert_int_equal(spawn_exit_code(s.status), 3);
	assert_int_equal(run_via(VIA(state), &s, 0, segv), 0);
	assert_int_equal(spawn_exit_code(s.status), 128 + 11);
	/* exec refused: said so, and the next run is fine */
	assert_int_equal(spawn_measure(&o, &s, &e), -1);
	assert_true(s.spawn_failed);
	assert_non_null(strstr(e.msg, "'/etc/passwd'"));
	assert_int_equal(run_via(VIA(state), &s, 0, fail), 0);
	assert_int_equal(spawn_exit_code(s.status), 3);
}

static void test_timeout_kills_group_both(void **state)
{
	char pidfile[] = "/tmp/ys-hang-XXXXXX";
	int fd = mkstemp(pidfile);
	char *argv[] = { YSFIX, "hang", pidfile, NULL };
	struct run_sample s;
	int child = 0;
	FILE *fp;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(run_via(VIA(state), &s, 0.3, argv), 0);
	assert_true(s.timed_out);
	/* the deadline counts from the start of the measurement */
	assert_true(s.wall >= 0.3 && s.wall < SANE_WALL);
	fp = fopen(pidfile, "r");
	assert_non_null(fp);
	assert_int_equal(fscanf(fp, "%d", &child), 1);
	fclose(fp);
	unlink(pidfile);
	/* The grandchild was in the group: it is gone too (SIGKILL'ed; it
	 * may take a moment to die on a busy machine). */
	for (int i = 0; i < 6000 && process_alive(child); i++)
		usleep(10000);
	assert_false(process_alive(child));
}

static void test_interrupt_both(void **state)
{
	char *argv[] = { YSFIX, "sleep", "10000", NULL };
	volatile sig_atomic_t flag = 1;
	struct spawn_opts o = { .path = argv[0], .argv = argv, .stdin_fd = -1,
				.stdout_fd = -1, .stderr_fd = -1,
				.timeout = 30, .interrupt = &flag,
				.via = VIA(state) };
	struct run_sample s;
	struct error e;

	assert_int_equal(spawn_measure(&o, &s, &e), 0);
	assert_true(s.interrupted);
	assert_true(s.wall < SANE_WALL);
}

static volatile sig_atomic_t alarmed;

static void on_alarm(int sig)
{
	alarmed = 1;
}

/* What the interrupting thread of test_interrupt_midway_both knows. */
struct midway {
	const char *pidfile;	/* written by the command once it runs */
	pthread_t main;
	volatile int done;	/* spawn_measure returned */
	double seen, fired;	/* when the pidfile was seen, the flag set */
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Wait until the command runs (its pidfile has its child's pid), then
 * 0.2 s more, then interrupt as run's SIGINT handler does: set the flag
 * and signal the measuring thread. The signal is repeated until the
 * measurement returns, so that one landing just before the wait (which
 * cannot tell) is not the test's undoing.
 */
static void *interrupter(void *arg)
{
	struct midway *m = arg;

	for (int i = 0; i < 60000; i++) {
		FILE *fp = fopen(m->pidfile, "r");
		int pid = 0;

		if (fp) {
			int got = fscanf(fp, "%d", &pid);

			fclose(fp);
			if (got == 1 && pid > 0)
				break;
		}
		usleep(1000);
	}
	m->seen = mono_now();
	usleep(200000);
	m->fired = mono_now();
	while (!m->done) {
		alarmed = 1;
		pthread_kill(m->main, SIGALRM);
		usleep(50000);
	}
	return NULL;
}

/*
 * Ctrl-C in the middle of a run without a timeout: the signal interrupts
 * the wait, and the command is killed (by the spawner, which we ask). The
 * interrupt comes 0.2 s after the command was seen running, so the run's
 * wall time, which started before the command did, is at least 0.2 s
 * whatever the machine's load.
 */
/*
 * go(arg), a run of `ysfix hang m->pidfile`, with the interrupter on it
 * (SIGALRM handled as `run` handles SIGINT: no SA_RESTART); the pidfile
 * is removed after. Returns go's value.
 */
static int with_interrupter(struct midway *m, int (*go)(void *), void *arg)
{
	struct sigaction sa, old;
	pthread_t th;
	int r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	alarmed = 0;
	assert_int_equal(pthread_create(&th, NULL, interrupter, m), 0);
	r = go(arg);
	m->done = 1;
	pthread_join(th, NULL);
	sigaction(SIGALRM, &old, NULL);
	unlink(m->pidfile);
	return r;
}

/* What with_interrupter runs: one run of o. */
struct one_run {
	struct spawn_opts *o;
	struct run_sample *s;
};

static int go_one(void *arg)
{
	struct one_run *r = arg;
	struct error e;

	return spawn_measure(r->o, r->s, &e);
}

static void test_interrupt_midway_both(void **state)
{
	char pidfile[] = "/tmp/ys-midway-XXXXXX";
	int fd = mkstemp(pidfile);
	char *argv[] = { YSFIX, "hang", pidfile, NULL };
	struct spawn_opts o = { .path = argv[0], .argv = argv, .stdin_fd = -1,
				.stdout_fd = -1, .stderr_fd = -1,
				.interrupt = &alarmed, .via = VIA(state) };
	struct midway m = { .pidfile = pidfile, .main = pthread_self() };
	struct run_sample s;
	struct one_run run = { &o, &s };
	struct error e;
	char *one[] = { YSFIX, "sleep", "1", NULL };

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(with_interrupter(&m, go_one, &run), 0);
	assert_true(s.interrupted);
	assert_true(m.fired - m.seen >= 0.2);
	assert_true(s.wall >= 0.2 && s.wall < SANE_WALL);
	assert_false(s.timed_out);
	/* the next run is not taken for interrupted */
	alarmed = 0;
	o.argv = one;
	assert_int_equal(spawn_measure(&o, &s, &e), 0);
	assert_false(s.interrupted);
	assert_int_equal(spawn_exit_code(s.status), 0);
}

/*
 * A command that leaves a daemon behind — a grandchild that called
 * setsid() and so left the process group a timeout kills — has it killed
 * through the spawner, its subreaper: once it exits, once it times out.
 */
static void test_spawner_kills_leftovers(void **state)
{
	char pidfile[] = "/tmp/ys-daemon-XXXXXX";
	int fd = mkstemp(pidfile);
	char *exits[] = { YSFIX, "daemon", pidfile, NULL };
	char *hangs[] = { YSFIX, "daemon", pidfile, "hang", NULL };
	char *clean[] = { YSFIX, "exit", "0", NULL };
	struct run_sample s;

	assert_true(fd >= 0);
	close(fd);
	for (int k = 0; k < 2; k++) {
		FILE *fp;
		int pid = 0;

		assert_int_equal(run_via(spawner, &s, k ? 0.3 : 0,
					 k ? hangs : exits), 0);
		assert_int_equal(s.timed_out, k == 1);
		assert_int_equal(s.strays, 1);
		fp = fopen(pidfile, "r");
		assert_non_null(fp);
		assert_int_equal(fscanf(fp, "%d", &pid), 1);
		fclose(fp);
		/* reaped before the reply: gone now, not in a while */
		assert_false(process_alive(pid));
	}
	unlink(pidfile);
	assert_int_equal(run_via(spawner, &s, 0, clean), 0);
	assert_int_equal(s.strays, 0);
}

static void test_stdin_and_stderr_both(void **state)
{
	char *cat[] = { YSFIX, "cat", NULL };
	char *msg[] = { YSFIX, "exit", "1", "boom on stderr", NULL };
	char path[] = "/tmp/ys-in-XXXXXX", buf[64] = { 0 };
	int in = mkstemp(path), err = fileno(tmpfile());
	int fds[] = { in, err };
	struct spawn_opts o = { .path = cat[0], .argv = cat, .stdin_fd = in,
				.stdout_fd = -1, .stderr_fd = err };
	struct run_sample s;
	struct error e;

	if (*state) {
		o.via = spawner_start(SPAWNER, fds, 2, &e);
		assert_non_null(o.via);
	}
	assert_int_equal(write(in, "data", 4), 4);
	lseek(in, 0, SEEK_SET);
	assert_int_equal(spawn_measure(&o, &s, &e), 0);
	assert_int_equal(spawn_exit_code(s.status), 0);
	/* With /dev/null as stdin, cat reads nothing and exits 1. */
	o.stdin_fd = -1;
	assert_int_equal(spawn_measure(&o, &s, &e), 0);
	assert_int_equal(spawn_exit_code(s.status), 1);
	o.path = msg[0];
	o.argv = msg;
	assert_int_equal(spawn_measure(&o, &s, &e), 0);
	assert_true(pread(err, buf, sizeof(buf) - 1, 0) > 0);
	assert_string_equal(buf, "boom on stderr\n");
	if (o.via) {
		/* a descriptor it was not handed */
		o.stdout_fd = STDOUT_FILENO;
		assert_int_equal(spawn_measure(&o, &s, &e), -1);
		assert_non_null(strstr(e.msg, "not handed"));
		spawner_stop(o.via);
	}
	close(in);
	unlink(path);
}

static void test_resolve_program(void **state)
{
	struct error e;
	char *path = NULL;

	assert_int_equal(spawn_resolve_program("sh", &path, &e), 0);
	assert_non_null(strstr(path, "/sh"));
	assert_int_equal(access(path, X_OK), 0);
	free(path);
	assert_int_equal(spawn_resolve_program("no-such-program-xyz", &path,
					       &e), -1);
	assert_non_null(strstr(e.msg, "'no-such-program-xyz'"));
	assert_int_equal(spawn_resolve_program("/nonexistent/prog", &path,
					       &e), -1);
	assert_non_null(strstr(e.msg, "does not exist"));
	assert_int_equal(spawn_resolve_program("/etc/passwd", &path, &e), -1);
	assert_non_null(strstr(e.msg, "not an executable"));
	assert_int_equal(spawn_resolve_program("/tmp", &path, &e), -1);
	assert_int_equal(spawn_resolve_program("", &path, &e), -1);
}

/* spawn_exec_privileged on path, in a child with no_new_privs set. */
static int privileged_nnp(const char *path)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct error e;

		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		_exit(spawn_exec_privileged(path, &e));
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WEXITSTATUS(st);
}

/*
 * Which execs the kernel stops perf events at (fs/exec.c: the new
 * effective ids differ from the real ones, ...). As root, a program
 * set-user-ID or set-group-ID to another user is one; set-group-ID
 * without group execute permission (mandatory locking) is not, nor is
 * anything under no_new_privs; a script counts by its interpreter.
 */
static void test_exec_privileged(void **state)
{
	char dir[] = "/tmp/ys-priv-XXXXXX";
	/* body holds "cp YSFIX prog" whatever the length of the build's
	 * path (a longer one than 128 bytes was cut short) */
	char prog[64], script[64], body[sizeof("cp  ") + sizeof(YSFIX) + 64];
	struct error e;
	FILE *fp;

	if (geteuid() != 0)
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(script, sizeof(script), "%s/script", dir);
	snprintf(body, sizeof(body), "cp %s %s", YSFIX, prog);
	assert_int_equal(system(body), 0);
	assert_int_equal(spawn_exec_privileged(prog, &e), 0);
	assert_int_equal(chown(prog, 65534, (gid_t)-1), 0);
	assert_int_equal(chmod(prog, 04755), 0);
	assert_int_equal(spawn_exec_privileged(prog, &e), 1);
	assert_non_null(strstr(e.msg, "set-user-ID (owner uid 65534)"));
	assert_non_null(strstr(e.msg, prog));
	assert_int_equal(privileged_nnp(prog), 0);
	/* the script's interpreter is what counts */
	fp = fopen(script, "w");
	assert_non_null(fp);
	fprintf(fp, "#!  %s  spin 1\n", prog);
	fclose(fp);
	assert_int_equal(chmod(script, 0755), 0);
	assert_int_equal(spawn_exec_privileged(script, &e), 1);
	assert_non_null(strstr(e.msg, "#! interpreter of"));
	assert_int_equal(chown(prog, 0, 65534), 0);
	assert_int_equal(chmod(prog, 02755), 0);
	assert_int_equal(spawn_exec_privileged(prog, &e), 1);
	assert_non_null(strstr(e.msg, "set-group-ID (group gid 65534)"));
	assert_int_equal(chmod(prog, 02745), 0);
	assert_int_equal(spawn_exec_privileged(prog, &e), 0);
	assert_int_equal(chmod(prog, 04755), 0);	/* owned by us: no change */
	assert_int_equal(spawn_exec_privileged(prog, &e), 0);
	assert_int_equal(spawn_exec_privileged(script, &e), 0);
	snprintf(body, sizeof(body), "rm -rf %s", dir);
	assert_int_equal(system(body), 0);
}

/* Through the spawner, --pin applies to the command, not to us. */
static void test_spawner_pin(void **state)
{
	char *argv[] = { YSFIX, "affinity", NULL };
	FILE *out = tmpfile();
	int fd = fileno(out);
	struct spawn_opts o = { .path = argv[0], .argv = argv, .stdin_fd = -1,
				.stdout_fd = fd, .stderr_fd = -1 };
	cpu_set_t pin;
	struct run_sample s;
	struct error e;
	char buf[64] = { 0 };

	o.via = spawner_start(SPAWNER, &fd, 1, &e);
	assert_non_null(o.via);
	CPU_ZERO(&pin);
	CPU_SET(0, &pin);
	o.pin = &pin;
	assert_int_equal(spawn_measure(&o, &s, &e), 0);
	assert_int_equal(spawn_exit_code(s.status), 0);
	assert_true(pread(fd, buf, sizeof(buf) - 1, 0) > 0);
	assert_string_equal(buf, "0\n");
	spawner_stop(o.via);
	fclose(out);
}

/*
 * Counters opened on the spawner count its commands — page faults of 8
 * MiB touched — and not the spawner: a command that does nothing shows
 * few.
 */
static void test_spawner_counters(void **state)
{
	const char *events[] = { "page-faults", "task-clock" };
	char *touch[] = { YSFIX, "touch", "8", NULL };
	char *idle[] = { TINYFIX, NULL };
	struct counter_value v[2];
	struct counters *c;
	struct run_sample s;
	struct error e;
	int r = spawner_open_counters(spawner, events, 2, false, &c, &e);

	if (r == -3)
		skip();		/* perf events not permitted here */
	assert_int_equal(r, 0);
	assert_int_equal(counters_metric_count(c), 2);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(counters_begin(c, &e), 0);
		assert_int_equal(run_via(spawner, &s, 0, touch), 0);
		assert_int_equal(counters_end(c, v, &e), 0);
		assert_true(v[0].counted && v[0].value >= 2048);
		assert_true(v[0].value < 2048 + 1000);
		assert_true(v[1].counted && v[1].value > 0);
		assert_int_equal(counters_begin(c, &e), 0);
		assert_int_equal(run_via(spawner, &s, 0, idle), 0);
		assert_int_equal(counters_end(c, v, &e), 0);
		assert_true(v[0].counted && v[0].value < 10);
	}
	counters_close(c);
}

/* What a batch handed to its each(): the runs, and what stops it. */
struct got {
	struct run_sample s[64];
	double wall_sum;
	int n, failed;
	int stop_at;		/* each() refuses run stop_at (1-based) */
	struct counters *c;	/* counters_end_with each reading */
	struct counter_value v[64][2];
};

static int got_each(void *arg, int ret, const struct run_sample *s,
		    const uint64_t *reading, size_t n, struct error *e)
{
	struct got *g = arg;

	if (ret) {
		g->failed++;
		return -1;
	}
	assert_true(g->n < 64);
	g->s[g->n] = *s;
	g->wall_sum += s->wall;
	if (g->c) {
		assert_non_null(reading);
		assert_int_equal(counters_end_with(g->c, reading, n,
						   g->v[g->n], e), 0);
	}
	g->n++;
	return g->n == g->stop_at ? -1 : 0;
}

/* Batch b of o pulled run by run (spawner_batch_next), each handed to
 * got_each until it refuses one: the batch is then stopped. 0, or -1 when
 * got_each stopped it or the spawner is gone. */
static int pull(const struct spawn_opts *o, const struct spawner_batch *b,
		struct got *g, struct error *e)
{
	struct spawner_batch_run run;
	int r;

	if (spawner_batch_begin(o->via, o, b, e))
		return -1;
	while ((r = spawner_batch_next(o->via, o, &run, e)) == 1)
		if (got_each(g, run.ret, &run.sample, run.reading, run.n, e)) {
			spawner_batch_stop(o->via, o, e);
			return -1;
		}
	return r;
}

static int batch(struct spawner *via, struct spawner_batch *b, struct got *g,
		 char **argv)
{
	struct spawn_opts o = { .path = argv[0], .argv = argv, .stdin_fd = -1,
				.stdout_fd = -1, .stderr_fd = -1, .via = via };
	struct error e;

	return pull(&o, b, g, &e);
}

/*
 * A batch runs the runs asked for from one request, each with its own
 * values — the counters too, read by the spawner after each reap — and
 * stops where it is told to: at a failure (stop_on_failure), at each()'s
 * refusal, once enough wall time was measured; the spawner stays in step
 * for the next request.
 */
static void test_spawner_batch(void **state)
{
	const char *events[] = { "page-faults", "task-clock" };
	char *touch[] = { YSFIX, "touch", "8", NULL };
	char *idle[] = { TINYFIX, NULL };
	char *fail[] = { YSFIX, "exit", "3", NULL };
	char *nap[] = { YSFIX, "sleep", "20", NULL };
	struct spawner_batch b;
	struct spawner *via;
	struct got *g = calloc(1, sizeof(*g));
	struct run_sample s;
	struct error e;
	int r;

	(void)state;
	via = spawner_start(SPAWNER, NULL, 0, &e);
	assert_non_null(via);
	r = spawner_open_counters(via, events, 2, false, &g->c, &e);
	if (r == -3) {
		spawner_stop(via);
		free(g);
		skip();		/* perf events not permitted here */
	}
	assert_int_equal(r, 0);
	assert_true(spawner_reads_counters(via));
	/* counted runs, two commands in turn: each run's own values */
	for (int k = 0; k < 2; k++) {
		g->n = 0;
		assert_int_equal(counters_begin(g->c, &e), 0);
		b = (struct spawner_batch){ .count = 5, .read_counters = true,
					    .stop_on_failure = true };
		assert_int_equal(batch(via, &b, g, k ? idle : touch), 0);
		assert_int_equal(g->n, 5);
		for (int i = 0; i < 5; i++) {
			assert_int_equal(spawn_exit_code(g->s[i].status), 0);
			assert_true(g->s[i].wall > 0 &&
				    g->s[i].wall < SANE_WALL);
			assert_true(g->s[i].start > 0);
			assert_true(g->v[i][0].counted &&
				    g->v[i][1].counted);
			if (k == 0)
				assert_true(g->v[i][0].value >= 2048 &&
					    g->v[i][0].value < 2048 + 1000);
			else
				assert_true(g->v[i][0].value < 10);
		}
	}
	counters_close(g->c);
	g->c = NULL;
	/* a failure ends it, or not */
	g->n = 0;
	b = (struct spawner_batch){ .count = 5, .stop_on_failure = true };
	assert_int_equal(batch(via, &b, g, fail), 0);
	assert_int_equal(g->n, 1);
	assert_int_equal(spawn_exit_code(g->s[0].status), 3);
	g->n = 0;
	b = (struct spawner_batch){ .count = 5 };
	assert_int_equal(batch(via, &b, g, fail), 0);
	assert_int_equal(g->n, 5);
	/* each() says stop: no run after the one under way */
	g->n = 0;
	g->stop_at = 2;
	b = (struct spawner_batch){ .count = 40 };
	assert_int_equal(batch(via, &b, g, nap), -1);
	assert_int_equal(g->n, 2);
	g->stop_at = 0;
	/* adaptive: at least 3 runs, then until 0.05 s: never one more */
	g->n = 0;
	g->wall_sum = 0;
	b = (struct spawner_batch){ .count = 60, .min_count = 3,
				    .min_wall = 0.05 };
	assert_int_equal(batch(via, &b, g, nap), 0);
	assert_true(g->n >= 3 && g->n < 60);
	assert_true(g->wall_sum >= 0.05 - 1e-6);
	assert_true(g->n == 3 || g->wall_sum - g->s[g->n - 1].wall < 0.05);
	/* in step: a single run after it all */
	assert_int_equal(run_via(via, &s, 0, fail), 0);
	assert_int_equal(spawn_exit_code(s.status), 3);
	spawner_stop(via);
	free(g);
}

/* What with_interrupter runs: a batch of o. */
struct batch_run {
	struct spawn_opts *o;
	struct spawner_batch b;
	struct got *g;
};

static int go_batch(void *arg)
{
	struct batch_run *r = arg;
	struct error e;

	return pull(r->o, &r->b, r->g, &e);
}

/* Ctrl-C in the middle of a batch: the run under way is killed and is
 * the batch's last. */
static void test_spawner_batch_interrupt(void **state)
{
	char pidfile[] = "/tmp/ys-midway-XXXXXX";
	int fd = mkstemp(pidfile);
	char *argv[] = { YSFIX, "hang", pidfile, NULL };
	struct spawn_opts o = { .path = argv[0], .argv = argv, .stdin_fd = -1,
				.stdout_fd = -1, .stderr_fd = -1,
				.interrupt = &alarmed, .via = spawner };
	struct midway m = { .pidfile = pidfile, .main = pthread_self() };
	struct got *g = calloc(1, sizeof(*g));
	struct batch_run run = { &o, { .count = 10 }, g };

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(with_interrupter(&m, go_batch, &run), 0);
	assert_int_equal(g->n, 1);
	assert_true(g->s[0].interrupted);
	assert_true(g->s[0].wall >= 0.2 && g->s[0].wall < SANE_WALL);
	alarmed = 0;
	free(g);
}

static void test_spawner_find(void **state)
{
	struct error e;
	char *p;

	setenv("YARDSTICK_SPAWNER", SPAWNER, 1);
	p = spawner_find(&e);
	assert_non_null(p);
	assert_string_equal(p, SPAWNER);
	free(p);
	setenv("YARDSTICK_SPAWNER", "/nonexistent/spawner", 1);
	assert_null(spawner_find(&e));
	assert_non_null(strstr(e.msg, "'/nonexistent/spawner'"));
	assert_null(spawner_start("/nonexistent/spawner", NULL, 0, &e));
	assert_non_null(strstr(e.msg, "'/nonexistent/spawner'"));
	/* not a spawner at all */
	assert_null(spawner_start(YSFIX, NULL, 0, &e));
	unsetenv("YARDSTICK_SPAWNER");
}

/* A spawner that died is an error of the run, not the death of ours
 * (by SIGPIPE, writing to it). */
static void test_spawner_gone(void **state)
{
	char *argv[] = { YSFIX, "exit", "0", NULL };
	struct spawn_opts o = { .path = argv[0], .argv = argv, .stdin_fd = -1,
				.stdout_fd = -1, .stderr_fd = -1 };
	struct run_sample s;
	struct error e;

	o.via = spawner_start(SPAWNER, NULL, 0, &e);
	assert_non_null(o.via);
	assert_int_equal(spawn_measure(&o, &s, &e), 0);
	kill(spawner_pid(o.via), SIGKILL);
	usleep(50000);
	assert_int_equal(spawn_measure(&o, &s, &e), -1);
	assert_non_null(strstr(e.msg, "spawner"));
	assert_int_equal(spawn_measure(&o, &s, &e), -1);
	spawner_stop(o.via);
}

/*
 * The two halves of spawner_start: a launched spawner measures nothing
 * before its greeting; greeted, it measures; let go, it exits by itself
 * (spawner_stop only reaps it) while its peak RSS floor stays known. A
 * program that is not a spawner fails the greeting, not the launch.
 */
static void test_spawner_launch_greet_let_go(void **state)
{
	char *argv[] = { YSFIX, "exit", "3", NULL };
	struct spawn_opts o = { .path = argv[0], .argv = argv, .stdin_fd = -1,
				.stdout_fd = -1, .stderr_fd = -1 };
	struct spawner *s;
	struct run_sample r;
	struct error e;
	siginfo_t si;
	int i;

	(void)state;
	s = spawner_launch(SPAWNER, NULL, 0, &e);
	assert_non_null(s);
	s = spawner_greet(s, &e);
	assert_non_null(s);
	assert_ptr_equal(spawner_greet(s, &e), s);	/* once is enough */
	assert_true(spawner_rss_floor(s) > 0);
	o.via = s;
	assert_int_equal(spawn_measure(&o, &r, &e), 0);
	assert_true(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3);
	spawner_let_go(s);
	spawner_let_go(s);	/* twice is harmless */
	for (i = 0; i < 1000; i++) {
		memset(&si, 0, sizeof(si));
		assert_int_equal(waitid(P_PID, (id_t)spawner_pid(s), &si,
					WEXITED | WNOWAIT | WNOHANG), 0);
		if (si.si_pid)
			break;
		usleep(10000);
	}
	assert_int_equal(si.si_pid, spawner_pid(s));
	assert_int_equal(si.si_code, CLD_EXITED);
	assert_true(spawner_rss_floor(s) > 0);
	spawner_stop(s);

	s = spawner_launch(YSFIX, NULL, 0, &e);
	assert_non_null(s);
	assert_null(spawner_greet(s, &e));
	assert_non_null(strstr(e.msg, "is not a working spawner"));
	assert_null(spawner_greet(NULL, &e));
	spawner_let_go(NULL);
}

#if defined(__x86_64__)
#define TEST_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TEST_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef TEST_ARCH
struct round_trip {
	struct spawn_opts *o;
	const struct sock_fprog *prog;
};

/* The child of test_spawner_round_trip_only: a first run, the filter,
 * 20 runs and a batch of 20; 0 when all went well (the spawner dies with
 * it). */
static int round_trip_child(void *arg)
{
	struct round_trip *rt = arg;
	struct spawn_opts *o = rt->o;
	struct run_sample smp;
	struct error e;
	int bad = 0;
	struct got *g = calloc(1, sizeof(*g));
	struct spawner_batch b = { .count = 20 };

	o->via = spawner_start(SPAWNER, NULL, 0, &e);
	if (!o->via || spawn_measure(o, &smp, &e))
		return 2;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, rt->prog))
		return 3;
	for (int i = 0; i < 20; i++)
		if (spawn_measure(o, &smp, &e) ||
		    spawn_exit_code(smp.status) != 0)
			bad = 1;
	/* a batch of 20: one request, replies read several at once */
	if (!g || pull(o, &b, g, &e) || g->n != 20)
		bad = 1;
	return bad ? 4 : 0;
}
#endif

/*
 * A run through the spawner costs our process one request written and
 * one reply read (a batch: one request, its replies read), and no other
 * system call (no signal-mask changes around
 * the write, no allocation): after a first run, a seccomp filter lets
 * through only sendmsg and read (and the exit), killing the child at any
 * other call; 20 runs must still succeed.
 */
static void test_spawner_round_trip_only(void **state)
{
#ifdef TEST_ARCH
	char *argv[] = { YSFIX, "exit", "0", NULL };
	struct spawn_opts o = { .path = argv[0], .argv = argv, .stdin_fd = -1,
				.stdout_fd = -1, .stderr_fd = -1 };
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TEST_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sendmsg, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_read, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]),
				   .filter = f };
	struct round_trip rt = { &o, &prog };
	int status = forked(round_trip_child, &rt);

	(void)state;
	assert_true(status != -1);
	if (WIFSIGNALED(status))
		fail_msg("a run made another system call: killed by signal %d",
			 WTERMSIG(status));
	assert_int_equal(WEXITSTATUS(status), 0);
#else
	(void)state;
	skip();
#endif
}

static int start_spawner(void **state)
{
	struct error e;

	spawner = spawner_start(SPAWNER, NULL, 0, &e);
	if (!spawner)
		fprintf(stderr, "%s\n", e.msg);
	return spawner ? 0 : -1;
}

static int stop_spawner(void **state)
{
	spawner_stop(spawner);
	return 0;
}

#define BOTH(f) cmocka_unit_test_prestate(f, NULL), \
		cmocka_unit_test_prestate(f, &spawner)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_sleep_wall_time_both),
		BOTH(test_spin_user_time_both),
		cmocka_unit_test(test_peak_rss_per_child),
		cmocka_unit_test(test_spawner_peak_rss),
		BOTH(test_exit_codes_both),
		BOTH(test_timeout_kills_group_both),
		BOTH(test_interrupt_both),
		BOTH(test_interrupt_midway_both),
		BOTH(test_stdin_and_stderr_both),
		cmocka_unit_test(test_spawner_kills_leftovers),
		cmocka_unit_test(test_spawner_pin),
		cmocka_unit_test(test_spawner_counters),
		cmocka_unit_test(test_spawner_batch),
		cmocka_unit_test(test_spawner_batch_interrupt),
		cmocka_unit_test(test_spawner_find),
		cmocka_unit_test(test_spawner_gone),
		cmocka_unit_test(test_spawner_launch_greet_let_go),
		cmocka_unit_test(test_spawner_round_trip_only),
		cmocka_unit_test(test_resolve_program),
		cmocka_unit_test(test_exec_privileged),
	};

	return cmocka_run_group_tests(tests, start_spawner, stop_spawner);
}
