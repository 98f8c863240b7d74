/*
 * What the kernel itself charges for counting a child the way `run` does:
 * a posix_spawn + wait4 loop of PROGRAM with no perf event, then with one
 * inherited enable_on_exec software event, then with the software events
 * yardstick opens by default (task-clock alone) plus its non-inherited
 * guard (a disabled dummy event), then (MODE 3) with the set it opened
 * before issue 12 (also page-faults, context-switches, cpu-migrations). Prints microseconds per
 * run for each, wall time and CPU time (ours and the children's); run it
 * pinned and several times, as bench/spawn_overhead.sh does.
 *   perf_inherit_cost MODE RUNS PROGRAM     (MODE 0, 1, 2 or 3)
 */
#include <linux/perf_event.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int open_event(unsigned long long config, int group, int inherit)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.disabled = group < 0;
	a.inherit = inherit;
	a.enable_on_exec = inherit && group < 0;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_GROUP;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* CPU seconds of ours and of our reaped children. */
static double cpu(void)
{
	struct rusage a, b;

	getrusage(RUSAGE_SELF, &a);
	getrusage(RUSAGE_CHILDREN, &b);
	return a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec +
	       b.ru_stime.tv_sec + (a.ru_utime.tv_usec + a.ru_stime.tv_usec +
				    b.ru_utime.tv_usec + b.ru_stime.tv_usec) *
	       1e-6;
}

int main(int argc, char **argv)
{
	int mode = argc > 3 ? atoi(argv[1]) : -1;
	long runs = argc > 3 ? atol(argv[2]) : 0;
	double t0, c0;

	if (mode < 0 || mode > 3 || runs <= 0) {
		fputs("usage: perf_inherit_cost 0|1|2|3 RUNS PROGRAM\n", stderr);
		return 2;
	}
	if (mode >= 1) {
		int g = open_event(PERF_COUNT_SW_TASK_CLOCK, -1, 1);

		if (g < 0) {
			perror("perf_event_open");
			return 3;
		}
		if (mode == 3) {
			open_event(PERF_COUNT_SW_PAGE_FAULTS, g, 1);
			open_event(PERF_COUNT_SW_CONTEXT_SWITCHES, g, 1);
			open_event(PERF_COUNT_SW_CPU_MIGRATIONS, g, 1);
		}
		if (mode >= 2)
			open_event(PERF_COUNT_SW_DUMMY, -1, 0);
	}
	t0 = now();
	c0 = cpu();
	for (long i = 0; i < runs; i++) {
		int status;
		pid_t pid;

		if (posix_spawn(&pid, argv[3], NULL, NULL, argv + 3, environ) ||
		    waitpid(pid, &status, 0) != pid)
			return 1;
	}
	printf("%d %.1f %.1f\n", mode, (now() - t0) / runs * 1e6,
	       (cpu() - c0) / runs * 1e6);
	return 0;
}
