/*
 * One measured run of a command: what to run (spawn_opts) and what it
 * came to (run_sample). The types alone, shared by spawn.c (which runs it
 * here or hands it to the spawner), spawner.c (which sends it to the
 * spawner) and `run`'s loop (engine/run_loop.c, through its executor).
 */
#ifndef YS_MEASURE_RUN_SAMPLE_H
#define YS_MEASURE_RUN_SAMPLE_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>

struct spawner;

struct spawn_opts {
	const char *path;	/* the program, as spawn_resolve_program found it */
	char *const *argv;
	int stdin_fd;		/* -1: /dev/null */
	int stdout_fd;		/* -1: /dev/null */
	int stderr_fd;		/* -1: /dev/null */
	double timeout;		/* seconds; 0: none */
	const cpu_set_t *pin;	/* NULL: inherit affinity */
	/* set by a signal handler to ask for the child to be killed */
	volatile sig_atomic_t *interrupt;
	/* NULL: posix_spawn from this process; else through this spawner,
	 * to which stdin_fd, stdout_fd and stderr_fd were handed */
	struct spawner *via;
};

struct run_sample {
	double start;			/* CLOCK_MONOTONIC seconds at the
					 * spawn; 0: not known */
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

#endif
