/*
 * The cost of one zone (begin + end) on the same loop: libyardstick's
 * YS_ZONE, untraced and traced, and two LTTng-UST tracepoints (begin,
 * end), for bench/zones_vs_lttng.sh.
 *
 *   zones_cost MODE N       MODE: ys (YS_ZONE), lttng (the tracepoints)
 *   zones_cost --traced N   run `zones_cost ys N` under a zone buffer of
 *                           its own (as `yardstick trace` would), check
 *                           that it recorded N zones and lost none
 *
 * Prints "MODE ns_per_zone": the best of 7 timings of the N-iteration
 * loop, less the best of 7 of the same loop without the zone (the loop's
 * own cost), over N. Each iteration ends with a compiler barrier, so the
 * global flag an untraced zone tests is loaded again every time (not
 * hoisted out of the loop), as in code that calls functions between its
 * zones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <yardstick.h>

#ifdef HAVE_LTTNG
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "zones_tp.h"
#endif

#include "util/zonebuf.h"

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

__attribute__((noinline)) static double loop_empty(long n)
{
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		YS_KEEP(i);
		ys_clobber();
	}
	return now_ns() - t0;
}

__attribute__((noinline)) static double loop_ys(long n)
{
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		YS_ZONE("work");
		YS_KEEP(i);
		ys_clobber();
	}
	return now_ns() - t0;
}

#ifdef HAVE_LTTNG
__attribute__((noinline)) static double loop_lttng(long n)
{
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		tracepoint(ysbench, zone_begin, 1);
		YS_KEEP(i);
		ys_clobber();
		tracepoint(ysbench, zone_end, 1);
	}
	return now_ns() - t0;
}
#endif

static double best(double (*f)(long), long n)
{
	double b = 1e300;

	for (int r = 0; r < 7; r++) {
		double t = f(n);

		if (t < b)
			b = t;
	}
	return b;
}

/* Run ourselves as "ys N" with a zone buffer; check what it recorded. */
static int traced(char *self, long n)
{
	struct zb_map m;
	struct zb_snapshot s;
	struct error e;
	char env[64], arg[32];
	pid_t pid;
	int st;

	/* the zones of 8 loops (the warm-up and 7 timed) */
	if (zb_create(&m, 4, (uint32_t)(32 * 8 * n + 4096), 16, true, &e)) {
		fprintf(stderr, "zones_cost: %s\n", e.msg);
		return 3;
	}
	zb_env(&m, env, sizeof env);
	snprintf(arg, sizeof arg, "%ld", n);
	pid = fork();
	if (pid == 0) {
		putenv(env);
		execl(self, self, "ys", arg, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	zb_read(&m, &s, &e);
	if (s.nzones != (size_t)(8 * n) || s.lost) {
		fprintf(stderr, "zones_cost: recorded %zu zones, lost %llu, "
			"expected %ld\n", s.nzones,
			(unsigned long long)s.lost, 8 * n);
		return 1;
	}
	zb_snapshot_free(&s);
	zb_close(&m);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
	double (*f)(long) = NULL;
	double base;

	if (n <= 0) {
		fprintf(stderr, "usage: zones_cost ys|lttng|--traced N\n");
		return 2;
	}
	if (!strcmp(argv[1], "--traced"))
		return traced(argv[0], n);
	if (!strcmp(argv[1], "ys"))
		f = loop_ys;
#ifdef HAVE_LTTNG
	if (!strcmp(argv[1], "lttng"))
		f = loop_lttng;
#endif
	if (!f) {
		fprintf(stderr, "zones_cost: unknown mode '%s'\n", argv[1]);
		return 2;
	}
	f(n);	/* warm-up: a traced run claims its slot and names here */
	base = best(loop_empty, n);
	printf("%s%s %.2f\n", argv[1],
	       !strcmp(argv[1], "ys") && ys_tracing() ? "-traced" : "",
	       (best(f, n) - base) / n);
	return 0;
}
