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
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* The last bytes a command wrote to a stream, for error messages. */
struct tail {
	char buf[4096];
	size_t len;		/* bytes in buf, the most recent last */
	size_t total;		/* bytes written in all */
};

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

static void tail_reset(struct tail *t)
{
	t->len = 0;
	t->total = 0;
}

static void tail_append(struct tail *t, const char *data, size_t n)
{
	t->total += n;
	if (n >= sizeof(t->buf)) {
		memcpy(t->buf, data + n - sizeof(t->buf), sizeof(t->buf));
		t->len = sizeof(t->buf);
		return;
	}
	if (t->len + n > sizeof(t->buf)) {
		size_t drop = t->len + n - sizeof(t->buf);

		memmove(t->buf, t->buf + drop, t->len - drop);
		t->len -= drop;
	}
	memcpy(t->buf + t->len, data, n);
	t->len += n;
}

/* When the drainer read what: the tail's total before the read at t
 * (CLOCK_MONOTONIC seconds); the last DRAIN_MARKS reads. */
#define DRAIN_MARKS 32

struct drainer {
	pthread_t th;
	pthread_mutex_t mu;
	int fd;
	bool threaded;		/* a thread of its own; else pumped */
	bool eof;
	int stop[2];
	struct tail tail;
	struct { double t; size_t total; } marks[DRAIN_MARKS];
	size_t nmarks;		/* reads since the reset (marks: a ring) */
};

/* Read what the pipe holds now; with d->mu held. Returns 1 at EOF, or
 * when the pipe cannot be read (polling it again would spin). */
static int drain_locked(struct drainer *d)
{
	char buf[4096];
	ssize_t got;

	while ((got = read(d->fd, buf, sizeof(buf))) > 0) {
		struct timespec ts;
		size_t m = d->nmarks++ % DRAIN_MARKS;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		d->marks[m].t = ts.tv_sec + ts.tv_nsec * 1e-9;
		d->marks[m].total = d->tail.total;
		tail_append(&d->tail, buf, (size_t)got);
	}
	return got == 0 || (errno != EAGAIN && errno != EINTR);
}

static void *drainer_main(void *arg)
{
	struct drainer *d = arg;
	sigset_t all;

	/* Signals are for the measuring thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		struct pollfd p[2] = { { .fd = d->fd, .events = POLLIN },
				       { .fd = d->stop[0], .events = POLLIN } };
		int eof;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		pthread_mutex_lock(&d->mu);
		eof = drain_locked(d);
		pthread_mutex_unlock(&d->mu);
		if (eof)
			break;
	}
	return NULL;
}

struct drainer *drainer_start(int read_fd, bool threaded)
{
	struct drainer *d = xcalloc(1, sizeof(*d));

	d->fd = read_fd;
	d->threaded = threaded;
	d->stop[0] = d->stop[1] = -1;
	if (fcntl(read_fd, F_SETFL, O_NONBLOCK) ||
	    (threaded && pipe2(d->stop, O_CLOEXEC))) {
		free(d);
		return NULL;
	}
	pthread_mutex_init(&d->mu, NULL);
	if (threaded && pthread_create(&d->th, NULL, drainer_main, d)) {
		close(d->stop[0]);
		close(d->stop[1]);
		pthread_mutex_destroy(&d->mu);
		free(d);
		return NULL;
	}
	return d;
}

int drainer_fd(const struct drainer *d)
{
	return d->threaded || d->eof ? -1 : d->fd;
}

void drainer_pump(struct drainer *d)
{
	pthread_mutex_lock(&d->mu);
	if (drain_locked(d))
		d->eof = true;
	pthread_mutex_unlock(&d->mu);
}

void drainer_reset(struct drainer *d)
{
	pthread_mutex_lock(&d->mu);
	/* What the last command left in the pipe is not the next one's. */
	drain_locked(d);
	tail_reset(&d->tail);
	d->nmarks = 0;
	pthread_mutex_unlock(&d->mu);
}

/* How many of the tail's last bytes were read at or after start: all of
 * them unless a read before start is still among the marks. */
static size_t read_since(const struct drainer *d, double start)
{
	size_t n = d->nmarks < DRAIN_MARKS ? d->nmarks : DRAIN_MARKS;
	size_t keep = d->tail.len;

	for (size_t k = 0; k < n; k++) {
		size_t m = (d->nmarks - 1 - k) % DRAIN_MARKS;

		if (d->marks[m].t < start) {
			/* the reads after it began at mark m + 1 */
			size_t after = k ? d->marks[(m + 1) % DRAIN_MARKS].total
					 : d->tail.total;
			size_t since = d->tail.total - after;

			return since < keep ? since : keep;
		}
	}
	return keep;
}

char *drainer_take(struct drainer *d, double start)
{
	char *s = NULL;
	size_t keep;

	pthread_mutex_lock(&d->mu);
	drain_locked(d);
	keep = start > 0 ? read_since(d, start) : d->tail.len;
	if (keep)
		s = xstrndup(d->tail.buf + d->tail.len - keep, keep);
	pthread_mutex_unlock(&d->mu);
	return s;
}

void drainer_stop(struct drainer *d)
{
	if (!d)
		return;
	if (d->threaded) {
		if (write(d->stop[1], "x", 1) == 1)
			pthread_join(d->th, NULL);
		close(d->stop[0]);
		close(d->stop[1]);
	}
	pthread_mutex_destroy(&d->mu);
	free(d);
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
