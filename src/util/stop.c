/*
 * The stop signals (stop.h). The handler sets stop_requested to the
 * signal's number the first time; a second one (of any of the three)
 * kills every child, removes the temporary files of the outputs open now
 * and exits with 128 + its number, all async-signal-safe: a user who
 * presses Ctrl-C twice wants out, and nothing is left behind but the
 * outputs written completely before. A second signal within
 * STOP_SAME_NS of the first is the same stop delivered twice, not a
 * second press: timeout(1) and CI runners signal the process and then
 * its group, and the terminal signals the whole foreground group. Under a
 * keeper (keeper.h), a signal sent to the keeper's group reaches
 * yardstick twice: itself, and relayed by the keeper, which a busy
 * machine may run long after (a CI-like run saw more than 50 ms: taken
 * for a second press, the program's leftovers were killed without their
 * grace). The relay is a signal of its own (KEEPER_RELAY_SIG, the
 * stop's number its value), which cannot merge with the stop sent to
 * yardstick directly while both are pending, as two of one standard
 * signal would: one relayed and one not, within STOP_PAIR_NS of each
 * other, are one stop; a second copy of either kind within STOP_SAME_NS
 * of that kind's first is the same stop delivered twice.
 */
#include "util/stop.h"

#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/child.h"
#include "util/fileio.h"
#include "util/keeper.h"

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static volatile sig_atomic_t stop_requested;
/* the first signal's CLOCK_MONOTONIC time (written in the handler only,
 * which the stop signals do not interrupt: its mask holds them), whether
 * it was the keeper's relay, and whether its other copy came */
static volatile long long stop_first_ns;
/* by kind, [0] sent to yardstick, [1] relayed by the keeper: whether a
 * copy of the first stop came that way, and the first such copy's time */
static volatile sig_atomic_t stop_seen[2];
static volatile long long stop_seen_ns[2];
static volatile sig_atomic_t stop_first_tty;
/* the keeper was started (stop_install_kept): a stop sent to the group
 * reaches yardstick twice, one sent to the keeper alone once, relayed */
static int stop_kept;

#define STOP_SAME_NS 50000000LL	/* 50 ms */
#define STOP_PAIR_NS 3000000000LL	/* 3 s */
/* how long a stop not from a terminal waits for its other copy before it
 * is taken as sent to one process alone (stop_reached_group) */
#define STOP_ALONE_NS 1000000000LL	/* 1 s */

static long long now_ns(void)
{
	struct timespec ts;

	/* async-signal-safe (POSIX.1-2008) */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_stop(int sig, siginfo_t *si, void *uc)
{
	long long t = now_ns();
	int relay = sig == KEEPER_RELAY_SIG;

	(void)uc;
	if (relay) {
		/* the keeper's (its value: the signal it was sent) */
		int v = si ? si->si_value.sival_int - KEEPER_RELAY : 0;

		if (!si || si->si_code != SI_QUEUE || v <= 0 || v > 64)
			return;
		if (v != SIGINT && v != SIGTERM && v != SIGHUP) {
			kill(getpid(), v);	/* SIGQUIT: its own action */
			return;
		}
		sig = v;
	}
	if (stop_requested) {
		if (!stop_seen[relay] && t - stop_first_ns < STOP_PAIR_NS) {
			stop_seen[relay] = 1;	/* the same stop, the other way */
			stop_seen_ns[relay] = t;
			return;
		}
		if (stop_seen[relay] && t - stop_seen_ns[relay] < STOP_SAME_NS)
			return;		/* delivered twice */
		child_kill_all_now();
		atomic_unlink_temps();
		_exit(128 + sig);
	}
	stop_first_ns = t;
	stop_seen[relay] = 1;
	stop_seen_ns[relay] = t;
	stop_first_tty = si && si->si_code == SI_KERNEL;
	stop_requested = sig;
}

void stop_signal_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(*stop_signals);
	     i++)
		sigaddset(set, stop_signals[i]);
	sigaddset(set, KEEPER_RELAY_SIG);
}

/* The stop signals and the keeper's relay, blocked while one is handled. */
static void stop_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_stop;	/* no SA_RESTART: waits return */
	sa.sa_flags = SA_SIGINFO;
	stop_signal_set(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(*stop_signals);
	     i++)
		sigaction(stop_signals[i], &sa, NULL);
	sigaction(KEEPER_RELAY_SIG, &sa, NULL);
}

/* the process that installed stop_install_default's handler: a child
 * forked before its exec has the handler too, and must not remove the
 * outputs of its parent */
static pid_t stop_default_pid;

static void on_stop_default(int sig)
{
	if (getpid() == stop_default_pid)
		atomic_unlink_temps();
	signal(sig, SIG_DFL);
	raise(sig);	/* blocked while handled: delivered on return */
}

void stop_install_default(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_default;
	stop_signal_set(&sa.sa_mask);
	stop_default_pid = getpid();
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(*stop_signals);
	     i++)
		if (!sigaction(stop_signals[i], NULL, &old) &&
		    old.sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
}

int stop_install(struct error *e)
{
	stop_handlers();
	return child_subreaper(e);
}

int stop_install_kept(struct error *e)
{
	struct error ke;
	int k;

	/* first: a relay that came before them would end yardstick */
	stop_handlers();
	k = keeper_start(&ke);
	if (stop_install(e))
		return -1;
	if (k)
		*e = ke;
	else
		stop_kept = 1;
	return k;
}

int stop_reached_group(long long *recheck_ns)
{
	long long left;

	*recheck_ns = 0;
	if (!stop_requested || stop_first_tty ||
	    (stop_seen[0] && stop_seen[1]) || !stop_kept)
		return 1;
	left = stop_first_ns + STOP_ALONE_NS - now_ns();
	if (left > 0) {
		*recheck_ns = left;
		return -1;
	}
	return 0;
}

volatile sig_atomic_t *stop_flag(void)
{
	return &stop_requested;
}

int stop_signal(void)
{
	return stop_requested;
}

const char *stop_signal_name(void)
{
	switch (stop_requested) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	default:
		return "";
	}
}

int stop_exit_code(void)
{
	return stop_requested ? 128 + stop_requested : 0;
}
