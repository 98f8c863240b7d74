/*
 * One child process: the one API every launcher of yardstick uses (`run`'s
 * measured runs, in-process or through the spawner, `record`'s sampler,
 * `mem`'s heap collector), after git's run-command.h. A struct child says
 * what to start; child_start starts it, child_wait waits for it (killing
 * its tree at a timeout or an interrupt) and leaves the wait4 rusage and
 * times in it.
 *
 *     struct child c = { .path = path, .argv = argv, .own_group = true,
 *                        .io = { CHILD_IO_NULL, CHILD_IO_PIPE,
 *                                CHILD_IO_INHERIT } };
 *     if (child_start(&c, e) || child_wait(&c, e))
 *             return -1;
 *     ... c.status, c.ru, c.end_ns - c.start_ns, c.fd[1] (to read) ...
 *
 * Without hold, the child is made with posix_spawn (vfork-fast: this is
 * `run`'s hot loop); with hold it is forked and waits, not yet exec'd,
 * until child_release — so that perf events can be opened on its pid and
 * follow it from its exec on. Every child starts with no signal blocked
 * and the signals yardstick handles or ignores at their defaults. A held
 * child, and one with die_with_us, dies with yardstick (PR_SET_PDEATHSIG
 * SIGKILL): a yardstick killed by SIGKILL or the OOM killer leaves no
 * program of record, trace, mem, bench --processes or roofline --count
 * running; what that program started is killed by the keeper
 * (util/keeper.h), which those commands start (stop_install_kept).
 *
 * With child_subreaper, what a child leaves running when it is reaped
 * (background processes, daemons that left its group with setsid) is
 * ended then (child_sweep: a grace to end by itself, SIGTERM, SIGKILL),
 * and counted and named in the child (strays).
 *
 * The spawner (spawner.h) starts the commands of `run` from another
 * process; it shares the spawn attributes and the kill of the group with
 * this file through child_common.h.
 */
#ifndef YS_UTIL_CHILD_H
#define YS_UTIL_CHILD_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "util/error.h"

/* What descriptor 0, 1 or 2 of the child is. */
enum child_io {
	CHILD_IO_INHERIT = 0,	/* ours, as it is */
	CHILD_IO_NULL,		/* /dev/null */
	CHILD_IO_FD,		/* child.fd[i], a descriptor of ours */
	CHILD_IO_PIPE,		/* a new pipe; our end in child.fd[i] */
};

/* A descriptor of ours (from) given to the child as number to. */
struct child_fd_map {
	int from, to;
};

struct child {
	/* ---- what to start ---- */
	const char *path;		/* the program (spawn_resolve_program) */
	char *const *argv;
	/* "NAME=value" strings, NULL-terminated: our environment with these
	 * set (each replaces NAME); NULL: ours as it is */
	const char *const *env_add;
	enum child_io io[3];		/* stdin, stdout, stderr */
	/* CHILD_IO_FD: the descriptor to give. CHILD_IO_PIPE: set by
	 * child_start to our end (close-on-exec): the write end for stdin,
	 * the read end for stdout and stderr; the caller closes it. */
	int fd[3];
	/* more descriptors, given before stdio: a map from 0, 1 or 2 takes
	 * ours, not what io[] makes of it; a map to a number that a later
	 * map or a CHILD_IO_FD takes from is the caller's mistake */
	const struct child_fd_map *maps;
	size_t nmaps;
	const char *dir;	/* the directory it starts in; NULL: ours */
	bool hold;		/* created, exec'd only at child_release */
	/* killed when yardstick dies, even by SIGKILL (PR_SET_PDEATHSIG):
	 * made by fork, as with hold, and released at once; a held child
	 * always is */
	bool die_with_us;
	bool own_group;		/* its own process group (pgid = pid) */
	const cpu_set_t *pin;	/* the CPUs it starts on; NULL: ours */
	double timeout;		/* child_wait: seconds from the start; 0: none */
	/* child_wait: set (by a signal handler) to have the child killed */
	volatile sig_atomic_t *interrupt;

	/* ---- what came of it ---- */
	pid_t pid;		/* 0 until started; 0 again once reaped */
	int64_t start_ns;	/* monotonic: just before the spawn */
	int64_t end_ns;		/* just after the reap */
	int status;		/* raw wait status */
	struct rusage ru;	/* of this very child (wait4) */
	bool timed_out;		/* killed with its group at the timeout */
	bool interrupted;	/* stopped at *interrupt: SIGINT to its
				 * group (child_left.h), SIGKILL to it when
				 * it had not ended CHILD_STOP_GRACE_NS
				 * later */
	bool stop_killed;	/* interrupted, and killed at that grace's
				 * end */
	bool exec_failed;	/* the program could not be exec'd */
	/* with child_subreaper: the processes it left running when it was
	 * reaped (in the background, or in a session of their own), killed
	 * and reaped by child_sweep; the first of them by name, "sleep (pid
	 * 1234), ..." ("" when none) */
	size_t strays;
	char stray_names[192];
	/* the user + system time of every process child_sweep reaped (an
	 * orphan of the tree, ours as subreaper: multiprocessing's
	 * forkserver, a daemon), with the children each waited for: the
	 * tree's CPU time that ru, of the child and the children it waited
	 * for, leaves out */
	int64_t stray_cpu_ns;

	/* ---- private ---- */
	int go_fd, err_fd;	/* hold: the go pipe, the exec error pipe */
	pid_t reaped;		/* the pid reaped: waiting again is a no-op */
	int64_t stop_deadline_ns;	/* interrupted: SIGKILL from then */
	/* interrupted, in our group: whether the stop reached it is settled
	 * (stop_reached_group), and when to ask again while it is not */
	bool stop_settled;
	int64_t stop_recheck_ns;
};

/*
 * Start c. Returns 0, or -1 with a message: "cannot pin to the given
 * CPUs", "cannot set up the spawn of 'ARGV0'", or (c->exec_failed, the
 * child reaped) spawn_exec_error's message naming the program. With hold,
 * an exec failure shows only at child_release.
 */
int child_start(struct child *c, struct error *e);

/*
 * Let a held child exec. Returns 0 once it has exec'd, -1 when the exec
 * failed (c->exec_failed, the child reaped, message as child_start's).
 */
int child_release(struct child *c, struct error *e);

/*
 * Wait for c to end and reap it: c->status, c->ru, c->end_ns. At the
 * timeout, or when *c->interrupt is set (a signal that interrupts the
 * wait: no SA_RESTART), its process group is killed (c->timed_out,
 * c->interrupted) and it is reaped all the same. Returns 0 once reaped,
 * -1 when it cannot be watched or waited for (the child then killed and
 * reaped).
 */
int child_wait(struct child *c, struct error *e);

/*
 * Reap c if it has ended, without waiting. Returns 1 when reaped (as
 * child_wait fills c), 0 while it runs, -1 with a message.
 */
int child_try_wait(struct child *c, struct error *e);

/*
 * Read fd, our end of a pipe that c writes, to its end while c runs: at
 * most max bytes into *data (malloc'd, NUL-terminated, *len bytes; NULL
 * and 0 when nothing came). c's timeout and interrupt are watched as
 * child_wait watches them: at either, or at more than max bytes
 * (*overflow), c's tree is killed and c reaped (c->timed_out,
 * c->interrupted). Once c has ended (reaped here, as child_wait would),
 * what is left in the pipe is read and no more, even when a process c
 * started still holds the pipe open. Call child_wait after it (a no-op
 * once reaped). Returns 0, or -1 with a message when the pipe cannot be
 * read (c then killed and reaped).
 */
int child_read_pipe(struct child *c, int fd, size_t max, char **data,
		    size_t *len, bool *overflow, struct error *e);

/* Kill c (with its group if it has its own) and reap it; nothing if it
 * was not started or has been reaped. Closes a held child's pipes. */
void child_kill(struct child *c);

/* Stop c's tree as a terminal's Ctrl-C would, without waiting: the
 * first call passes SIGINT to its group (child_left.h: a child in our
 * group got the terminal's own, unless the stop was sent to the keeper
 * or to yardstick alone: then c and what is below it in our group get
 * SIGINT, once that is known, and the grace starts then) and sets
 * c->interrupted; a call CHILD_STOP_GRACE_NS later or more kills c
 * (c->stop_killed). The caller calls it again while it waits (by
 * c->stop_recheck_ns at the latest, when set), and reaps c as it would
 * have; what c left then gets child_sweep's grace. */
void child_interrupt(struct child *c);

/* A child started here (c->pid) that the caller reaped itself (waitpid):
 * forget it, so that a sweep does not keep its pid from a stray. */
void child_forget(pid_t pid);

/*
 * Make this process the reaper of whatever its children leave behind
 * (PR_SET_CHILD_SUBREAPER): a background process of a program, or one
 * that left its group with setsid, becomes our child when its parent
 * dies. From then on every reap of a child (child_wait, child_try_wait,
 * child_kill) ends with child_sweep. Returns 0, or -1 with a message.
 */
int child_subreaper(struct error *e);

/*
 * End and reap every child process of ours that was not started by
 * child_start (after child_subreaper: what the programs left), until none
 * is left: they get 200 ms to end by themselves (multiprocessing's
 * resource tracker unlinks the program's shared memory then), then
 * SIGTERM and 2 s, then SIGKILL (at once after a timeout or an interrupt:
 * child_wait, child_kill); those that ended by themselves are reaped, not
 * counted.
 * Their names go to names ("sleep (pid 1234), ...", size bytes, NULL:
 * not wanted). Returns how many were signalled; 0 without
 * child_subreaper.
 */
size_t child_sweep(char *names, size_t size);

/*
 * From a signal handler, to exit at once: SIGKILL every child started
 * here (with its group if it has its own) and every other child of ours.
 * Reaps nothing. Async-signal-safe.
 */
void child_kill_all_now(void);

/*
 * child_kill_all_now, then reap until no child is left, killing at once
 * what each one reaped leaves to us (a subreaper's: its whole tree,
 * setsid or not). For a process about to exit (util/keeper.h); blocks
 * until the tree is gone. Async-signal-safe.
 */
void child_kill_tree_now(void);

/* Exit code, or 128 + signal number, of a raw wait status. */
int spawn_exit_code(int status);

/*
 * Resolve argv0 like execvp would, once, so that the measured loop does not
 * search PATH on every run. Returns 0 and a malloc'd path in *resolved if
 * it names an executable file, -1 with a message naming it otherwise.
 */
int spawn_resolve_program(const char *argv0, char **resolved,
			  struct error *e);

/*
 * Whether the exec of path (a program, or a script: its #! interpreters
 * are followed) would change this process's credentials or make it
 * undumpable — set-user-ID or set-group-ID to someone else, file
 * capabilities we do not hold, a program we may execute but not read.
 * The kernel then stops, at that exec, every perf event that follows the
 * process (inherited counters, sampling): they count nothing of it.
 * Returns 1 with the reason in e ("'/usr/bin/passwd' is set-user-ID
 * (owner uid 0)"), 0 when the exec crosses no such boundary (or path
 * cannot be examined: the spawn will say why).
 */
int spawn_exec_privileged(const char *path, struct error *e);

/* The message for an exec of path that failed with errnum (a missing #!
 * interpreter, a file that is not a program, ...). Returns -1. */
int spawn_exec_error(const char *path, int errnum, struct error *e);

#endif
