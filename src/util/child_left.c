/*
 * The processes a child leaves behind (child.h): the table of the
 * children started and not reaped, which the sweep must not touch, and
 * the sweep that ends the others, with a grace or at once; and
 * child_kill_all_now, for a signal handler.
 */
#include "util/child.h"
#include "util/child_common.h"
#include "util/child_left.h"
#include "util/monoclock.h"
#include "util/strutil.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the processes a child leaves behind ---- */

/*
 * Every child started here and not reaped yet, by pid (0: a free slot),
 * and whether it leads its own group: what child_sweep must not touch,
 * and what child_kill_all_now kills from a signal handler (hence
 * sig_atomic_t; children are started and reaped on the main thread
 * only). When more than LIVE_MAX live at once, live_full turns the sweep
 * off rather than take one of ours for a stray.
 */
#define LIVE_MAX 256
static volatile sig_atomic_t live[LIVE_MAX];
static volatile sig_atomic_t live_group[LIVE_MAX];
static volatile sig_atomic_t live_full;
static bool subreaper;

void live_add(pid_t pid, bool group)
{
	for (size_t i = 0; i < LIVE_MAX; i++)
		if (live[i] == 0) {
			live_group[i] = group;
			live[i] = pid;
			return;
		}
	live_full = 1;
}

void live_remove(pid_t pid)
{
	for (size_t i = 0; i < LIVE_MAX; i++)
		if (live[i] == pid)
			live[i] = 0;
}

static bool live_has(pid_t pid)
{
	for (size_t i = 0; i < LIVE_MAX; i++)
		if (live[i] == pid)
			return true;
	return false;
}

void child_forget(pid_t pid)
{
	live_remove(pid);
}

int child_subreaper(struct error *e)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		return error_errno(e, errno, "cannot adopt the processes a "
				   "program leaves behind "
				   "(PR_SET_CHILD_SUBREAPER)");
	subreaper = true;
	return 0;
}

/*
 * The time a program's leftovers get to end by themselves once it has
 * ended. Some are made to: multiprocessing's resource tracker (spawn and
 * forkserver) waits for its pipe's end of file, which the program's exit
 * gives it, then unlinks the shared memory and semaphores the program
 * left; killed at once, it leaves them in /dev/shm for good. So: first
 * SWEEP_QUIET_NS with no signal (what ends then is no stray), then
 * SIGTERM to each and SWEEP_TERM_NS to end (a daemon's own clean-up; the
 * tracker ignores SIGTERM and ends when done), then SIGKILL. A stray
 * that dies at its SIGTERM (`sleep &`) costs the quiet time alone. The
 * leftovers of a stopped run get it too (child_left.h, child_pass_stop),
 * whether the program ended by itself or had to be killed; a timed-out
 * run's get no grace: SIGKILL at once.
 */
#define SWEEP_QUIET_NS (200 * 1000000LL)
#define SWEEP_TERM_NS (2000 * 1000000LL)
#define SWEEP_NAP_NS (2 * 1000000LL)
#define SWEEP_MAX 256

/* A sweep's state: the strays signalled (counted and named once each). */
struct sweep {
	pid_t told[SWEEP_MAX];
	size_t ntold;
	int sig;		/* this round's: 0 (only look), SIGTERM,
				 * SIGKILL */
	size_t alive;		/* strays seen alive in this round */
	size_t total;		/* signalled in all */
	char *names;		/* "sleep (pid 12), ..." */
	size_t size, len;
	int64_t cpu_ns;		/* user + system time of the strays
				 * reaped, and of their children they
				 * waited for */
};

/* Append "COMM (pid PID)" to s->names while it fits, then "...". stat
 * is /proc/PID/stat's text: "PID (COMM) S ...". */
static void sweep_name(struct sweep *s, pid_t pid, const char *stat)
{
	const char *open = strchr(stat, '('), *close = strrchr(stat, ')');
	int clen = open && close && close > open ? (int)(close - open - 1) : 0;
	char one[64];
	int n;

	if (!s->names || s->size == 0)
		return;
	n = snprintf(one, sizeof(one), "%s%.*s (pid %ld)", s->len ? ", " : "",
		     clen, clen ? open + 1 : "", (long)pid);
	if (n < 0 || (size_t)n >= sizeof(one))
		return;
	if (s->len + (size_t)n + 5 < s->size) {
		memcpy(s->names + s->len, one, (size_t)n + 1);
		s->len += (size_t)n;
	} else if (s->len + 5 < s->size && !strstr(s->names, "...")) {
		memcpy(s->names + s->len, ", ...", 6);
		s->len += 5;
	}
}

static bool sweep_told(const struct sweep *s, pid_t pid)
{
	for (size_t i = 0; i < s->ntold; i++)
		if (s->told[i] == pid)
			return true;
	return false;
}

/* child_each_child's visit: a child we did not start is a stray; one
 * that has exited already is reaped and not counted. A stray alive is
 * sent the round's signal (SIGTERM once), counted and named at its
 * first. */
static int sweep_one(pid_t pid, void *arg)
{
	struct sweep *s = arg;
	char path[64], stat[512];
	const char *state;
	bool told;
	int st, sig;

	if (live_has(pid))
		return 1;
	child_proc_path(path, "/proc/", pid, "/stat", 0, NULL);
	if (child_read_small(path, stat, sizeof(stat)) < 0)
		return 1;
	state = strrchr(stat, ')');
	if (state && state[1] == ' ' && state[2] == 'Z') {
		struct rusage ru;

		if (wait4(pid, &st, WNOHANG, &ru) == pid)
			s->cpu_ns += (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
					     1000000000LL +
				     (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) *
					     1000LL;
		return 1;
	}
	s->alive++;
	told = sweep_told(s, pid);
	if (!s->sig || (s->sig == SIGTERM && told))
		return 0;
	/* past SWEEP_MAX strays, one is not told apart: SIGKILL now */
	sig = !told && s->ntold == SWEEP_MAX ? SIGKILL : s->sig;
	if (kill(pid, sig))
		return 1;
	if (!told) {
		if (s->ntold < SWEEP_MAX)
			s->told[s->ntold++] = pid;
		s->total++;
		sweep_name(s, pid, stat);
	}
	return 0;
}

static void sweep_nap(void)
{
	struct timespec d = { 0, SWEEP_NAP_NS };

	nanosleep(&d, NULL);
}

/* child_sweep, with grace (SWEEP_QUIET_NS, then SIGTERM and
 * SWEEP_TERM_NS) or without (SIGKILL at once; from the moment *interrupt
 * is set too). Round after round until
 * no stray is left: the children of one that ended are ours once it is
 * gone. */
size_t child_sweep_with(char *names, size_t size, bool grace,
			volatile sig_atomic_t *interrupt, int64_t *cpu_ns)
{
	struct sweep s = { .names = names, .size = size };
	int64_t start = monoclock_ns();

	if (names && size)
		names[0] = '\0';
	if (!subreaper || live_full)
		return 0;
	for (;;) {
		int64_t t = monoclock_ns() - start;

		if (interrupt && *interrupt)
			grace = false;
		s.alive = 0;
		s.sig = !grace || t >= SWEEP_QUIET_NS + SWEEP_TERM_NS ?
			SIGKILL : t >= SWEEP_QUIET_NS ? SIGTERM : 0;
		child_each_child(sweep_one, &s);
		if (!s.alive) {
			if (cpu_ns)
				*cpu_ns += s.cpu_ns;
			return s.total;
		}
		sweep_nap();
	}
}

void child_pass_stop(pid_t pid, bool own_group)
{
	if (pid > 0 && own_group)
		kill(-pid, SIGINT);
}

/* The processes child_pass_stop_below signals: found first, signalled
 * after, so that none of them moves (to us, its parent gone) while the
 * tree is walked. */
#define PASS_MAX 256
#define PASS_DEPTH 16
struct pass {
	pid_t group;
	int depth;
	size_t n;
	pid_t pids[PASS_MAX];
};

static int pass_find(pid_t pid, void *arg)
{
	struct pass *p = arg;

	if (getpgid(pid) != p->group || p->n == PASS_MAX)
		return 1;
	p->pids[p->n++] = pid;
	if (p->depth < PASS_DEPTH) {
		p->depth++;
		child_each_child_of(pid, pass_find, p);
		p->depth--;
	}
	return 0;
}

void child_pass_stop_below(pid_t pid)
{
	struct pass p = { .group = getpgrp() };

	if (pid <= 0)
		return;
	pass_find(pid, &p);
	for (size_t i = 0; i < p.n; i++)
		kill(p.pids[i], SIGINT);
}

size_t child_sweep(char *names, size_t size)
{
	return child_sweep_with(names, size, true, NULL, NULL);
}

/* Kill and reap a child: its own children are ours then (subreaper). */
static int kill_any(pid_t pid, void *arg)
{
	(void)arg;
	return kill(pid, SIGKILL);
}

static int kill_reap(pid_t pid, void *arg)
{
	int st;

	(void)arg;
	if (kill(pid, SIGKILL))
		return 1;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return 0;
}

void child_kill_all_now(void)
{
	for (size_t i = 0; i < LIVE_MAX; i++) {
		pid_t pid = live[i];

		if (pid > 0 && live_group[i])
			kill(-pid, SIGKILL);
		if (pid > 0)
			kill(pid, SIGKILL);
	}
	/* round after round: the children of each one killed come to us
	 * (a stopped program in its grace, under a spawner killed above;
	 * its resource tracker), until none is left */
	for (int round = 0; round < 64; round++)
		if (child_each_child(kill_reap, NULL) == 0)
			break;
}

void child_kill_tree_now(void)
{
	int st;

	child_kill_all_now();
	for (;;) {
		pid_t r = waitpid(-1, &st, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return;		/* ECHILD: none left */
		/* its children are ours now (a subreaper's): kill them */
		child_each_child(kill_any, NULL);
	}
}
