/*
 * Measuring one run of a command (spawn.h), and keeping the tail of what
 * the commands write to stderr. This is the hot loop of `run`: the run
 * costs what child.c's posix_spawn + wait4 cost, plus only what an option
 * asks for. `run` goes through the spawner (spawner.c), which does the
 * same from another process; spawning from here costs one read of
 * /proc/self/status more, for the peak RSS floor. spawner.c does not call
 * back into this file: both use child.c.
 */
#include "measure/spawn.h"

#include "measure/spawner.h"
#include "util/strutil.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double tv_sec(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

/* Our own VmHWM in bytes, from /proc/self/status; 0 if unreadable. */
static double own_peak_rss(void)
{
	char buf[4096], *p;
	ssize_t n = -1;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nVmHWM:");
	return p ? strtod(p + 7, NULL) * 1024 : 0;
}

double spawn_rss_floor(const struct spawn_opts *o)
{
	return o->via ? spawner_rss_floor(o->via) : own_peak_rss();
}

static void sample_from(struct run_sample *out, const struct child *c)
{
	const struct rusage *ru = &c->ru;

	/* Integer nanoseconds: the difference of two large doubles would
	 * carry rounding noise into the last digits. */
	out->wall = (double)(c->end_ns - c->start_ns) / 1e9;
	out->user = tv_sec(ru->ru_utime);
	out->sys = tv_sec(ru->ru_stime);
	/* Read after the reap, the peak is at least what it was at the
	 * child's exec: a value at or below it may be ours. */
	out->rss_floor = own_peak_rss();
	out->peak_rss = (double)ru->ru_maxrss * 1024;
	if (out->peak_rss <= out->rss_floor)
		out->peak_rss = NAN;
	out->minor_faults = (double)ru->ru_minflt;
	out->major_faults = (double)ru->ru_majflt;
	out->voluntary_switches = (double)ru->ru_nvcsw;
	out->involuntary_switches = (double)ru->ru_nivcsw;
	out->status = c->status;
	out->timed_out = c->timed_out;
	out->interrupted = c->interrupted;
	out->strays = (long)c->strays;
}

int spawn_measure(const struct spawn_opts *o, struct run_sample *out,
		  struct error *e)
{
	struct child c = {
		.path = o->path, .argv = o->argv, .own_group = true,
		/* without the spawner, nothing kills it when yardstick is
		 * killed: PR_SET_PDEATHSIG does (a fork, not posix_spawn:
		 * this is not the spawner's fast path) */
		.die_with_us = true,
		.pin = o->pin, .timeout = o->timeout,
		.interrupt = o->interrupt,
		.io = { o->stdin_fd < 0 ? CHILD_IO_NULL : CHILD_IO_FD,
			o->stdout_fd < 0 ? CHILD_IO_NULL : CHILD_IO_FD,
			o->stderr_fd < 0 ? CHILD_IO_NULL : CHILD_IO_FD },
		.fd = { o->stdin_fd, o->stdout_fd, o->stderr_fd },
	};

	if (o->via)
		return spawner_measure(o->via, o, out, e);
	memset(out, 0, sizeof(*out));
	if (child_start(&c, e)) {
		out->spawn_failed = c.exec_failed;
		return -1;
	}
	if (child_wait(&c, e))
		return -1;
	sample_from(out, &c);
	return 0;
}
