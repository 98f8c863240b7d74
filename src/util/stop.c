/*
 * The stop signals (stop.h). The handler sets stop_requested to the
 * signal's number the first time; a second one (of any of the three)
 * kills every child, removes the temporary files of the outputs open now
 * and exits with 128 + its number, all async-signal-safe: a user who
 * presses Ctrl-C twice wants out, and nothing is left behind but the
 * outputs written completely before. A second signal within
 * STOP_SAME_NS of the first is the same stop delivered twice, not a
 * second press: timeout(1) and CI runners signal the process and then
 * its group, and the terminal signals the whole foreground group.
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
 * which the stop signals do not interrupt: its mask holds them) */
static volatile long long stop_first_ns;

#define STOP_SAME_NS 50000000LL	/* 50 ms */

static long long now_ns(void)
{
	struct timespec ts;

	/* async-signal-safe (POSIX.1-2008) */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_stop(int sig)
{
	long long t = now_ns();

	if (stop_requested && t - stop_first_ns < STOP_SAME_NS)
		return;
	if (stop_requested) {
		child_kill_all_now();
		atomic_unlink_temps();
		_exit(128 + sig);
	}
	stop_first_ns = t;
	stop_requested = sig;
}

int stop_install(struct error *e)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;	/* no SA_RESTART: waits return */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(*stop_signals);
	     i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(*stop_signals);
	     i++)
		sigaction(stop_signals[i], &sa, NULL);
	return child_subreaper(e);
}

int stop_install_kept(struct error *e)
{
	struct error ke;
	int k = keeper_start(&ke);

	if (stop_install(e))
		return -1;
	if (k)
		*e = ke;
	return k;
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
