/*
 * The tail of the commands' stderr, drained while they run (drainer.h):
 * by a thread of its own, or pumped by the spawner's client while it
 * awaits replies.
 */
#include "measure/drainer.h"

#include "util/strutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The last bytes a command wrote to a stream, for error messages. */
struct tail {
	char buf[4096];
	size_t len;		/* bytes in buf, the most recent last */
	size_t total;		/* bytes written in all */
};

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
