/*
 * Spawn one command, wait for it and measure it: wall time on the
 * monotonic clock from just before posix_spawn to just after wait4, and the
 * rusage of that very child from wait4 (not RUSAGE_CHILDREN, which only
 * ever rises).
 *
 * The child runs in its own process group, so that a timeout can kill
 * everything it started and so that Ctrl-C reaches yardstick alone, which
 * then has the group killed. Through the spawner, processes that left the
 * group (setsid) are killed too, after every run: it is their subreaper.
 *
 * Peak RSS has a floor: until it execs, a posix_spawn'ed child runs in the
 * memory of the process that spawned it, and the kernel counts that
 * memory's peak into the child's ru_maxrss. A value at or below the
 * spawning process's own peak is therefore not the command's and is
 * reported as NAN. Spawned from yardstick that floor is yardstick's size;
 * spawned through the spawner (spawner.h, spawn_opts.via) it is the
 * spawner's, below that of any dynamically linked program.
 */
#ifndef YS_MEASURE_SPAWN_H
#define YS_MEASURE_SPAWN_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "util/error.h"

struct spawner;

/* The last bytes a command wrote to a stream, for error messages. */
struct tail {
	char buf[4096];
	size_t len;		/* bytes in buf, the most recent last */
	size_t total;		/* bytes written in all */
};

void tail_reset(struct tail *t);
void tail_append(struct tail *t, const char *data, size_t n);

/*
 * A thread that keeps the tail of a pipe the commands write their stderr
 * to, so that the measuring thread can wait with a plain wait4: no poll
 * loop (and no context switches) per run, and memory stays bounded
 * whatever a command writes.
 */
struct drainer;

/* Start draining read_fd (made non-blocking here). NULL on failure. */
struct drainer *drainer_start(int read_fd);
/* Forget what was kept: before a run. */
void drainer_reset(struct drainer *d);
/* After a command was reaped: take in what the pipe still holds and
 * return a malloc'd copy of the tail (NULL when empty). */
char *drainer_take(struct drainer *d);
/* Stop the thread and free d. */
void drainer_stop(struct drainer *d);

struct spawn_opts {
	const char *path;	/* the program, as spawn_resolve_program found it */
	char *const *argv;
	int stdin_fd;		/* -1: /dev/null */
	int stdout_fd;		/* -1: /dev/null */
	int stderr_fd;		/* -1: /dev/null */
	/* With tail set: tail_fd is the non-blocking read end of the pipe
	 * whose write end is stderr_fd; its last bytes are kept in *tail
	 * while the child runs (memory stays bounded, whatever it writes). */
	int tail_fd;
	struct tail *tail;
	double timeout;		/* seconds; 0: none */
	const cpu_set_t *pin;	/* NULL: inherit affinity */
	/* set by a signal handler to ask for the child to be killed */
	volatile sig_atomic_t *interrupt;
	/* NULL: posix_spawn from this process; else through this spawner,
	 * to which stdin_fd, stdout_fd and stderr_fd were handed */
	struct spawner *via;
};

struct run_sample {
	double wall, user, sys;		/* seconds */
	double peak_rss;		/* bytes; NAN: not above rss_floor */
	double rss_floor;		/* bytes: the spawner's own peak */
	double minor_faults, major_faults;
	double voluntary_switches, involuntary_switches;
	int status;			/* raw wait status */
	/* processes the command left running, killed after it (through
	 * the spawner only: spawner_main.c, leftovers; 0 otherwise) */
	long strays;
	bool timed_out;
	bool interrupted;
	bool spawn_failed;		/* exec itself failed */
};

/*
 * Run opts->argv to completion (or until the timeout or an interrupt, when
 * its process group is killed) and fill *out. Returns 0 when the command
 * ran (whatever its exit status), -1 when it could not be started
 * (out->spawn_failed; message names the program) or watched.
 */
int spawn_measure(const struct spawn_opts *opts, struct run_sample *out,
		  struct error *e);

/*
 * The rss_floor (bytes) of the latest run spawned as o says: the
 * spawner's, or our own peak RSS now.
 */
double spawn_rss_floor(const struct spawn_opts *o);

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
