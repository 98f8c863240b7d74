/*
 * The keeper (keeper.h): the process that outlives a killed yardstick and
 * kills what its programs left. The one thing to know before changing
 * it: the keeper is a fork of a process that may hold locks (stdio,
 * malloc), so after the fork it makes system calls only, and it never
 * returns to the caller's code — it ends with _exit or a signal.
 */
#include "util/keeper.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/child.h"
#include "util/child_common.h"
#include "util/fileio.h"

/* The signals the keeper waits for: those it passes on, and its child's
 * end. */
static const int keeper_waits[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				    SIGCHLD };

static void keeper_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(keeper_waits) / sizeof(*keeper_waits);
	     i++)
		sigaddset(set, keeper_waits[i]);
}

/* How many threads this process has (/proc/self/status); -1 unknown. */
static long keeper_threads(void)
{
	char buf[4096];
	const char *p;

	if (child_read_small("/proc/self/status", buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "\nThreads:");
	return p ? strtol(p + 9, NULL, 10) : -1;
}

/* Exit as the worker did: its code, or its signal (without a core of
 * our own). */
__attribute__((noreturn)) static void keeper_exit_as(int status)
{
	struct rlimit none = { 0, 0 };
	sigset_t set;
	int sig;

	if (!WIFSIGNALED(status))
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	sig = WTERMSIG(status);
	setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);
}

/* Reap what has ended; 1 (and its status) once the worker has. */
static int keeper_reap(pid_t worker, int *status)
{
	pid_t r;
	int st, done = 0;

	while ((r = waitpid(-1, &st, WNOHANG)) > 0 ||
	       (r < 0 && errno == EINTR))
		if (r == worker) {
			*status = st;
			done = 1;
		}
	return done;
}

/* The keeper's life: pass the stop signals sent to it on, wait for the
 * worker, kill what is left below us, exit as the worker did. */
__attribute__((noreturn)) static void keeper_run(pid_t worker)
{
	sigset_t set;
	siginfo_t si;
	int status = 0;

	/* none of yardstick's files stays open here (a pipe's reader
	 * waits for its end of file from yardstick and its programs) */
	close_range(3, ~0U, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	keeper_set(&set);
	for (;;) {
		int sig = sigwaitinfo(&set, &si);

		if (sig == SIGCHLD && keeper_reap(worker, &status))
			break;
		/* a terminal's signal reached the worker too (one group);
		 * a relay is marked, for the worker to tell it from the
		 * same signal sent to its group as well (stop.c) */
		if (sig > 0 && sig != SIGCHLD && si.si_code != SI_KERNEL)
			sigqueue(worker, KEEPER_RELAY_SIG, (union sigval){
				.sival_int = KEEPER_RELAY + sig });
	}
	child_kill_tree_now();
	keeper_exit_as(status);
}

/* The keeper is gone: what yardstick started goes with it (keeper.h). */
static void on_keeper_gone(int sig)
{
	(void)sig;
	child_kill_tree_now();
	atomic_unlink_temps();
	_exit(128 + SIGKILL);
}

/* In the worker: die with the keeper's death signal handled. */
static int keeper_watch(pid_t keeper, const sigset_t *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_keeper_gone;
	sigfillset(&sa.sa_mask);
	sigaction(KEEPER_SIGNAL, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, KEEPER_SIGNAL);
	sigprocmask(SIG_SETMASK, old, NULL);
	if (getppid() != keeper)
		on_keeper_gone(KEEPER_SIGNAL);
	return 0;
}

int keeper_start(struct error *e)
{
	static int started;
	sigset_t set, old;
	long threads = keeper_threads();
	pid_t keeper = getpid(), pid;

	if (started)
		return 0;
	if (threads != 1)
		return error_set(e, "cannot start the keeper of what the "
				 "programs leave: %ld threads run already",
				 threads);
	/* blocked from before the fork: none sent to the keeper is lost */
	keeper_set(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid = fork();
	if (pid < 0) {
		int errnum = errno;

		sigprocmask(SIG_SETMASK, &old, NULL);
		return error_errno(e, errnum, "cannot start the keeper of "
				   "what the programs leave (fork)");
	}
	if (pid > 0)
		keeper_run(pid);
	started = 1;
	return keeper_watch(keeper, &old);
}
