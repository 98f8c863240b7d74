/*
 * One signal policy for every command that runs a program (run, bench,
 * record, trace, mem, roofline --count): SIGINT, SIGTERM and SIGHUP ask
 * to stop. The command then stops the program and everything it started
 * (child.h: SIGINT to its group and a grace, then SIGKILL; through
 * child_subreaper whatever left it, after a grace of its own),
 * writes what was collected, marked partial, and exits 128 + the signal
 * (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP). A second signal
 * while it finishes exits at once: every child killed, the temporary
 * files of the outputs being written removed, nothing more written;
 * one within 50 ms of the first is the same stop delivered twice (to
 * the process and to its group, as timeout(1) and CI runners do) and
 * changes nothing.
 *
 *     if (stop_install(&e)) ...
 *     struct child c = { ..., .interrupt = stop_flag() };
 *     ...
 *     if (stop_signal())
 *             return stop_exit_code();
 */
#ifndef YS_UTIL_STOP_H
#define YS_UTIL_STOP_H

#include <signal.h>

#include "util/error.h"

/*
 * Catch SIGINT, SIGTERM and SIGHUP (without SA_RESTART, so that a wait or
 * a poll returns at once) and make this process the reaper of what its
 * programs leave behind (child_subreaper). Returns 0, or -1 with a
 * message when the reaper cannot be had (the handlers are installed).
 */
int stop_install(struct error *e);

/*
 * For every command before it parses anything (main.c): until the
 * command installs the policy above (the commands that run a program
 * do), SIGINT, SIGTERM and SIGHUP keep their default action, ending the
 * process by the signal, but first remove the temporary files of the
 * outputs being written, so that a report or a comparison stopped while
 * it writes leaves no half-written FILE.tmp.NNNNNN beside its output. A
 * signal the caller ignored (nohup, a background job of sh) stays
 * ignored.
 */
void stop_install_default(void);

/*
 * stop_install, with the keeper started first (util/keeper.h): nothing
 * the programs start outlives a yardstick killed with SIGKILL. For every
 * command that runs a program but `run` (whose spawner does it). Call it
 * before any thread starts. Returns 0, or -1 with a message when the
 * keeper or the reaper cannot be had (the handlers are installed).
 */
int stop_install_kept(struct error *e);

/* The signals that stop (SIGINT, SIGTERM, SIGHUP) and the keeper's relay
 * of them (util/keeper.h), into set: what a thread of ours that does not
 * wait for the program blocks, so that they interrupt the one that
 * does. */
void stop_signal_set(sigset_t *set);

/* Set (to the signal's number) when a stop was asked: child.interrupt
 * and the loops watch it. */
volatile sig_atomic_t *stop_flag(void);

/*
 * Whether the stop reached the programs in yardstick's own process group
 * as well: 1 when it did or may have (a terminal's Ctrl-C, which the
 * kernel sends to the whole foreground group; a signal to the group,
 * which reached both the keeper, who relays it, and yardstick; no keeper
 * to tell), 0 when it was sent to one process alone (the keeper: `kill
 * PID` of the pid the shell knows, `docker stop` of a container whose
 * first process it is; or yardstick's own pid), -1 while that is not
 * known yet: its other copy may still come (a loaded machine runs the
 * keeper late), ask again in *recheck_ns. A program in the group that
 * did not get it is passed SIGINT (child_interrupt).
 */
int stop_reached_group(long long *recheck_ns);

/* The signal that asked to stop, 0 while none did. */
int stop_signal(void);

/* Its name ("SIGINT"), "" while none did. */
const char *stop_signal_name(void);

/* 128 + stop_signal(): the exit code of a stopped command; 0 while no
 * stop was asked. */
int stop_exit_code(void);


#endif
