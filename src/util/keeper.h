/*
 * The keeper: a small process of ours that outlives a yardstick killed
 * with SIGKILL (by the OOM killer, by a CI timeout, by kill -9) just long
 * enough to kill everything the programs yardstick ran had started —
 * pipelines, workers, processes that called setsid or double-forked into
 * the background — which PR_SET_PDEATHSIG alone cannot reach (it is not
 * inherited by a fork).
 *
 * keeper_start forks. The process that called it (its pid, the one the
 * shell or CI knows) becomes the keeper: a child subreaper that does
 * nothing but wait. The child goes on as yardstick. So the keeper is an
 * ancestor of every process yardstick starts, and whatever is orphaned
 * when yardstick dies is reparented to it, setsid or not:
 *
 *   - yardstick ends (any way, SIGKILL included): the keeper kills and
 *     reaps every process left below it, round after round until none is
 *     left, and exits as yardstick did (the same code, or the same
 *     signal);
 *   - the keeper is killed (kill -9 of the pid the caller knows):
 *     yardstick gets KEEPER_SIGNAL (PR_SET_PDEATHSIG) while it is still
 *     alive and the subreaper of its programs' trees, kills and reaps all
 *     of them the same way, and exits 137;
 *   - SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to the keeper by kill(2)
 *     go on to yardstick, so the stop policy (util/stop.h) is unchanged;
 *     a terminal's signals reach both (one process group) and only
 *     yardstick acts on them.
 *
 * What escapes: a process that changed its credentials so that we may not
 * signal it (a set-user-ID program, when yardstick is not root), and
 * everything when the keeper and yardstick die at the same instant (a
 * SIGKILL sent to their whole process group at once: then only the
 * programs, which die with yardstick, go).
 *
 * `run` does not start a keeper: its commands run below the spawner,
 * already a subreaper that sweeps them when yardstick dies
 * (measure/spawner_main.c), and its critical path gets no process more.
 */
#ifndef YS_UTIL_KEEPER_H
#define YS_UTIL_KEEPER_H

#include "util/error.h"

/*
 * Fork the keeper; returns 0 in the child, which goes on as yardstick
 * (the keeper itself never returns). -1 with a message when it cannot be
 * started: other threads run already (a fork would lose them in the
 * child), or the fork fails; the caller goes on without it. Call it
 * before child_subreaper (a fork clears the subreaper bit: stop_install
 * sets it after). Once per process; a second call returns 0 at once.
 */
int keeper_start(struct error *e);

/* How the keeper passes a signal on (sigqueue): as KEEPER_RELAY_SIG, a
 * real-time signal, its value KEEPER_RELAY + the signal's number. Being
 * another signal, the relay cannot merge with the same stop sent to
 * yardstick's group as well while both are pending (two of one standard
 * signal would), and stop.c counts the two as one stop. */
#define KEEPER_RELAY 0x6b656500
#define KEEPER_RELAY_SIG (SIGRTMIN + 4)

/* The signal yardstick gets when its keeper dies. */
#define KEEPER_SIGNAL SIGPWR

#endif
