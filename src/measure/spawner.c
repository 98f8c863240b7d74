/*
 * yardstick's side of the spawner (spawner.h): start it, hand it the
 * stdio descriptors once (and the counter groups, once opened), then per
 * command one request and its replies (spawner_proto.h): one run, or a
 * batch run by the spawner alone, its replies read here several to a
 * read() into a buffer. Nothing else happens per request: no allocation
 * once the request buffer is large enough, one sendmsg (the requests go
 * over a socket, so that MSG_NOSIGNAL, not two changes of the signal mask
 * around each write, keeps a gone spawner's SIGPIPE from us), and per run
 * nothing but the parsing of its reply. The spawner itself is
 * started with child.c's API; nothing here calls spawn.c (which calls
 * spawner_measure).
 */
#include "measure/spawner.h"

#include "config.h"
#include "util/child.h"
#include "util/child_common.h"
#include "measure/drainer.h"
#include "measure/spawner_proto.h"
#include "util/fileio.h"
#include "util/strutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SLOTS 16
/* A program that does not greet in this time is not a spawner. */
#define HELLO_TIMEOUT_MS 10000

struct spawner {
	pid_t pid;
	int req_fd, rep_fd;
	int slot_fd[MAX_SLOTS];		/* our descriptor of each slot */
	size_t nslots;
	int32_t seq;
	int64_t hwm_kib;		/* the latest floor it reported */
	char *buf;			/* the request's strings */
	size_t cap;
	bool broken;			/* out of step with us: kill it */
	bool greeted;			/* its hello read (spawner_greet) */
	char *path;
	struct drainer *drain;		/* pumped while replies are awaited */
	bool counters;			/* it holds our counter groups */
	/* the batch under way (spawner_batch_begin): replies to come, the
	 * interrupt passed on, counters read */
	bool batch_on, batch_passed, batch_counters;
	/* replies read, from in[in_at] to in[in_len] */
	size_t in_at, in_len;
	char in[16 * 1024];
	uint64_t reading[SPAWNER_MAX_WORDS];
};

char *spawner_find(struct error *e)
{
	return find_helper(SPAWNER_NAME, "YARDSTICK_SPAWNER", X_OK, e);
}

bool spawner_present(void)
{
	struct error e;
	char *path = spawner_find(&e);

	free(path);
	return path != NULL;
}

/* Whether fd is readable (or at its end) within ms milliseconds. */
static bool ready(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	while ((r = poll(&p, 1, ms)) < 0 && errno == EINTR)
		;
	return r > 0;
}

static void close_pipes(int *a, int *b)
{
	for (int i = 0; i < 2; i++) {
		if (a[i] >= 0)
			close(a[i]);
		if (b[i] >= 0)
			close(b[i]);
	}
}

/*
 * Start the spawner with req_r at base, rep_w at base + 1 and fds[i] at
 * base + 2 + i, base above every descriptor involved so that no dup2
 * overwrites one still to be copied; its own stdio is /dev/null, and it
 * has its own process group: Ctrl-C on the terminal is ours to pass on
 * (spawner_measure), not the spawner's to die of.
 */
static int spawn_it(const char *path, int req_r, int rep_w, const int *fds,
		    size_t n, pid_t *pid, struct error *e)
{
	struct child_fd_map maps[MAX_SLOTS + 2];
	char a_base[24], a_n[24], a_ppid[24];
	char *argv[] = { (char *)path, a_base, a_n, a_ppid, NULL };
	struct child c = { .path = path, .argv = argv, .maps = maps,
			   .nmaps = n + 2, .own_group = true,
			   .io = { CHILD_IO_NULL, CHILD_IO_NULL,
				   CHILD_IO_NULL } };
	int base = req_r > rep_w ? req_r : rep_w;

	for (size_t i = 0; i < n; i++)
		if (fds[i] > base)
			base = fds[i];
	base = base < 2 ? 3 : base + 1;
	snprintf(a_base, sizeof(a_base), "%d", base);
	snprintf(a_n, sizeof(a_n), "%zu", n);
	snprintf(a_ppid, sizeof(a_ppid), "%ld", (long)getpid());
	maps[0] = (struct child_fd_map){ req_r, base };
	maps[1] = (struct child_fd_map){ rep_w, base + 1 };
	for (size_t i = 0; i < n; i++)
		maps[2 + i] = (struct child_fd_map){ fds[i], base + 2 + (int)i };
	if (child_start(&c, e))
		return -1;
	*pid = c.pid;
	return 0;
}

struct spawner *spawner_launch(const char *path, const int *fds, size_t n,
			       struct error *e)
{
	int req[2] = { -1, -1 }, rep[2] = { -1, -1 };
	struct spawner *s;
	pid_t pid;
	int r;

	if (n > MAX_SLOTS) {
		error_set(e, "too many descriptors for the spawner");
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (fds[i] < 0) {
			error_set(e, "no descriptor %d to hand the spawner",
				  fds[i]);
			return NULL;
		}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, req) ||
	    pipe2(rep, O_CLOEXEC)) {
		error_errno(e, errno, "cannot make the spawner's pipes");
		close_pipes(req, rep);
		return NULL;
	}
	r = spawn_it(path, req[0], rep[1], fds, n, &pid, e);
	close(req[0]);
	close(rep[1]);
	req[0] = rep[1] = -1;
	if (r) {
		close_pipes(req, rep);
		return NULL;
	}
	s = xmalloc(sizeof(*s));	/* in[] needs no clearing */
	memset(s, 0, offsetof(struct spawner, in));
	s->pid = pid;
	s->req_fd = req[1];
	s->rep_fd = rep[0];
	s->path = xstrdup(path);
	if (n)
		memcpy(s->slot_fd, fds, n * sizeof(int));
	s->nslots = n;
	return s;
}

struct spawner *spawner_greet(struct spawner *s, struct error *e)
{
	struct spawner_hello hello;

	if (!s || s->greeted)
		return s;
	if (!ready(s->rep_fd, HELLO_TIMEOUT_MS) ||
	    child_read_full(s->rep_fd, &hello, sizeof(hello)) != 1 ||
	    hello.magic != SPAWNER_MAGIC ||
	    hello.version != SPAWNER_VERSION) {
		error_set(e, "'%s' is not a working spawner of this yardstick",
			  s->path);
		s->broken = true;
		spawner_stop(s);
		return NULL;
	}
	s->greeted = true;
	s->hwm_kib = hello.hwm_kib;
	return s;
}

struct spawner *spawner_start(const char *path, const int *fds, size_t n,
			      struct error *e)
{
	return spawner_greet(spawner_launch(path, fds, n, e), e);
}

void spawner_let_go(struct spawner *s)
{
	if (!s || s->req_fd < 0)
		return;
	/* It exits when it reads the end of its requests; one out of step
	 * with us may be waiting for a command that we no longer wait for. */
	if (s->broken)
		kill(s->pid, SIGKILL);
	close(s->req_fd);
	s->req_fd = -1;
}

void spawner_stop(struct spawner *s)
{
	int st;

	if (!s)
		return;
	spawner_let_go(s);
	close(s->rep_fd);
	while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR)
		;
	child_forget(s->pid);
	free(s->path);
	free(s->buf);
	free(s);
}

pid_t spawner_pid(const struct spawner *s)
{
	return s->pid;
}

double spawner_rss_floor(const struct spawner *s)
{
	return s->hwm_kib > 0 ? (double)s->hwm_kib * 1024 : 0;
}

/* ---- counters on the spawner ---- */

static int write_request(struct spawner *s, struct iovec *iov, size_t total,
			 const int *fds, size_t nfds, struct error *e);
static int read_reply(struct spawner *s, const struct spawn_opts *o,
		      struct spawner_reply *rp, struct error *e);

/* Hand the spawner the leaders of the counter groups (SCM_RIGHTS), to read
 * after each run of a batch; a set it refuses (too large) stays ours. */
static int hand_counters(struct spawner *s, const int *fds,
			 const uint32_t *words, size_t n, struct error *e)
{
	struct spawner_request rq;
	struct spawner_reply rp;
	struct iovec iov[2];

	memset(&rq, 0, sizeof(rq));
	rq.flags = SPAWNER_COUNTERS;
	rq.seq = ++s->seq;
	rq.len = (uint32_t)(n * sizeof(*words));
	iov[0] = (struct iovec){ &rq, sizeof(rq) };
	iov[1] = (struct iovec){ (void *)words, rq.len };
	if (write_request(s, iov, sizeof(rq) + rq.len, fds, n, e) ||
	    read_reply(s, NULL, &rp, e))
		return -1;
	s->counters = rp.err == 0;
	return 0;
}

bool spawner_reads_counters(const struct spawner *s)
{
	return s->counters;
}

enum counters_result spawner_open_counters(struct spawner *s,
					   const char *const *events,
					   size_t n, bool emulated,
					   struct counters **out,
					   struct error *e)
{
	int fds[SPAWNER_MAX_GROUPS];
	uint32_t words[SPAWNER_MAX_GROUPS];
	enum counters_result r;
	size_t ng;

	/* counters.c's design notes hold with the spawner in our place: its
	 * own copies stay off (it never execs again), its children's are
	 * switched on at their exec */
	r = counters_open_on(out, events, n, s->pid, emulated, e);
	if (r != COUNTERS_OK)
		return r;
	/* a set too large for it is read here, a run per request */
	ng = counters_groups(*out, fds, words, SPAWNER_MAX_GROUPS);
	if (ng && hand_counters(s, fds, words, ng, e)) {
		counters_close(*out);
		*out = NULL;
		return COUNTERS_FAILED;
	}
	return COUNTERS_OK;
}

/* ---- one run ---- */

/* The slot of our descriptor fd (-1: /dev/null), or -2 if not handed. */
static int slot_of(const struct spawner *s, int fd)
{
	if (fd < 0)
		return -1;
	for (size_t i = 0; i < s->nslots; i++)
		if (s->slot_fd[i] == fd)
			return (int)i;
	return -2;
}

/* Lay out path and argv in s->buf; returns the length, 0 if too long. */
static size_t pack_strings(struct spawner *s, const struct spawn_opts *o,
			   uint32_t *argc)
{
	size_t len = strlen(o->path) + 1, k;

	*argc = 0;
	for (char *const *a = o->argv; *a; a++, (*argc)++)
		len += strlen(*a) + 1;
	if (len > SPAWNER_MAX_STRINGS || *argc == 0)
		return 0;
	if (len > s->cap) {
		s->buf = xrealloc(s->buf, len);
		s->cap = len;
	}
	k = strlen(o->path) + 1;
	memcpy(s->buf, o->path, k);
	for (char *const *a = o->argv; *a; a++) {
		size_t l = strlen(*a) + 1;

		memcpy(s->buf + k, *a, l);
		k += l;
	}
	return len;
}

/*
 * writev all of iov[0..1]. A spawner that died must not kill us with
 * SIGPIPE (`run` does not ignore it, and would lose what it measured): it
 * is blocked meanwhile, and taken back if it came.
 */
static int write_request(struct spawner *s, struct iovec *iov, size_t total,
			 const int *fds, size_t nfds, struct error *e)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(SPAWNER_MAX_GROUPS * sizeof(int))];
	} cm;
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	size_t done = 0;
	int err = 0;

	if (nfds) {	/* with the first byte: the spawner's first recvmsg */
		memset(&cm, 0, sizeof(cm));
		msg.msg_control = cm.b;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm.h.cmsg_level = SOL_SOCKET;
		cm.h.cmsg_type = SCM_RIGHTS;
		cm.h.cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(&cm.h), fds, nfds * sizeof(int));
	}
	while (done < total) {
		/* MSG_NOSIGNAL: a gone spawner is EPIPE, not our death */
		ssize_t w = sendmsg(s->req_fd, &msg, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? errno : EIO;
			break;
		}
		msg.msg_control = NULL;
		msg.msg_controllen = 0;
		done += (size_t)w;
		/* a short write: step the vectors past what went */
		for (int i = 0; i < 2; i++) {
			size_t step = (size_t)w < iov[i].iov_len
				      ? (size_t)w : iov[i].iov_len;

			iov[i].iov_base = (char *)iov[i].iov_base + step;
			iov[i].iov_len -= step;
			w -= (ssize_t)step;
		}
	}
	if (!err)
		return 0;
	s->broken = true;
	return error_errno(e, err, "the spawner (pid %ld) is gone",
			   (long)s->pid);
}

static int send_request(struct spawner *s, const struct spawn_opts *o,
			const struct spawner_batch *b, struct error *e)
{
	struct spawner_request rq;
	struct iovec iov[2];
	size_t len;
	int fds[3] = { o->stdin_fd, o->stdout_fd, o->stderr_fd };

	memset(&rq, 0, sizeof(rq));
	for (int i = 0; i < 3; i++) {
		rq.fd[i] = slot_of(s, fds[i]);
		if (rq.fd[i] == -2)
			return error_set(e, "descriptor %d was not handed to "
					 "the spawner", fds[i]);
	}
	len = pack_strings(s, o, &rq.argc);
	if (!len)
		return error_set(e, "command '%s' is too long", o->argv[0]);
	rq.len = (uint32_t)len;
	rq.seq = ++s->seq;
	if (o->timeout > 0)
		rq.timeout_ns = (int64_t)(o->timeout * 1e9);
	if (o->pin) {
		rq.flags |= SPAWNER_PIN;
		rq.pin = *o->pin;
	}
	rq.count = 1;
	if (b) {
		rq.count = b->count > UINT32_MAX ? UINT32_MAX
						 : (uint32_t)b->count;
		rq.min_count = b->min_count > UINT32_MAX
			       ? UINT32_MAX : (uint32_t)b->min_count;
		/* never past where the caller would stop: a ns short */
		if (b->min_wall > 0)
			rq.min_wall_ns = (int64_t)(b->min_wall * 1e9) - 1;
		if (b->min_wall > 0 && rq.min_wall_ns < 1)
			rq.min_wall_ns = 1;
		if (b->stop_on_failure)
			rq.flags |= SPAWNER_STOP_ON_FAILURE;
		if (b->read_counters)
			rq.flags |= SPAWNER_READ_COUNTERS;
	}
	iov[0] = (struct iovec){ &rq, sizeof(rq) };
	iov[1] = (struct iovec){ s->buf, len };
	return write_request(s, iov, sizeof(rq) + len, NULL, 0, e);
}

void spawner_set_drain(struct spawner *s, struct drainer *d)
{
	s->drain = d;
}

/* Wait until a reply can be read, pumping the drainer meanwhile; false
 * when the wait ended otherwise (an interrupt, the stderr read), for the
 * caller to look again. */
static bool reply_ready(struct spawner *s)
{
	struct pollfd p[2] = { { .fd = s->rep_fd, .events = POLLIN },
			       { .fd = drainer_fd(s->drain), .events = POLLIN } };

	if (poll(p, 2, -1) < 0)
		return errno != EINTR;
	if (p[1].revents)
		drainer_pump(s->drain);
	return p[0].revents != 0;
}

/*
 * n bytes of the replies into p, reading more when in[] runs out; an
 * interrupt (o->interrupt) is passed on to the spawner once per request.
 */
static int read_in(struct spawner *s, const struct spawn_opts *o,
		   void *p, size_t n, bool *passed)
{
	while (s->in_len - s->in_at < n) {
		ssize_t r;

		if (s->in_at) {
			memmove(s->in, s->in + s->in_at, s->in_len - s->in_at);
			s->in_len -= s->in_at;
			s->in_at = 0;
		}
		if (o && !*passed && o->interrupt && *o->interrupt) {
			union sigval v = { .sival_int = s->seq };

			sigqueue(s->pid, SIGUSR1, v);
			*passed = true;
		}
		if (s->drain && drainer_fd(s->drain) >= 0 && !reply_ready(s))
			continue;
		r = read(s->rep_fd, s->in + s->in_len, sizeof(s->in) - s->in_len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		s->in_len += (size_t)r;
	}
	memcpy(p, s->in + s->in_at, n);
	s->in_at += n;
	return 0;
}

/*
 * The next reply to request s->seq, its counter reading into s->reading.
 */
static int read_reply_passed(struct spawner *s, const struct spawn_opts *o,
			     struct spawner_reply *rp, bool *passed,
			     struct error *e)
{
	if (!read_in(s, o, rp, sizeof(*rp), passed) && rp->seq == s->seq &&
	    rp->nwords <= SPAWNER_MAX_WORDS &&
	    !read_in(s, o, s->reading, rp->nwords * sizeof(uint64_t), passed))
		return 0;
	s->broken = true;
	return error_set(e, "the spawner stopped answering (pid %ld)",
			 (long)s->pid);
}

static int read_reply(struct spawner *s, const struct spawn_opts *o,
		      struct spawner_reply *rp, struct error *e)
{
	bool passed = false;

	return read_reply_passed(s, o, rp, &passed, e);
}

/* A run's reply into *out; 0, or -1 for a run that did not happen. */
static int take_reply(struct spawner *s, const struct spawn_opts *o,
		      const struct spawner_reply *rp, struct run_sample *out,
		      struct error *e)
{
	double rss;

	memset(out, 0, sizeof(*out));
	if (rp->err && (rp->flags & SPAWNER_PIN_FAILED))
		return error_errno(e, rp->err, "cannot pin to the given CPUs");
	if (rp->err && (rp->flags & SPAWNER_SETUP_FAILED))
		return error_errno(e, rp->err, "cannot set up the spawn of "
				   "'%s'", o->argv[0]);
	if (rp->err) {
		out->spawn_failed = true;
		return spawn_exec_error(o->path, rp->err, e);
	}
	s->hwm_kib = rp->hwm_kib;
	out->start = (double)rp->start_ns / 1e9;
	out->wall = (double)rp->wall_ns / 1e9;
	out->user = (double)rp->utime_us / 1e6;
	out->sys = (double)rp->stime_us / 1e6;
	out->rss_floor = spawner_rss_floor(s);
	rss = (double)rp->maxrss_kib * 1024;
	out->peak_rss = rss > out->rss_floor ? rss : NAN;
	out->minor_faults = (double)rp->minflt;
	out->major_faults = (double)rp->majflt;
	out->voluntary_switches = (double)rp->nvcsw;
	out->involuntary_switches = (double)rp->nivcsw;
	out->status = rp->status;
	out->strays = (long)rp->strays;
	out->timed_out = rp->flags & SPAWNER_TIMED_OUT;
	out->interrupted = rp->flags & SPAWNER_INTERRUPTED;
	return 0;
}

int spawner_measure(struct spawner *s, const struct spawn_opts *o,
		    struct run_sample *out, struct error *e)
{
	struct spawner_reply rp;

	memset(out, 0, sizeof(*out));
	if (s->broken)
		return error_set(e, "the spawner stopped answering");
	if (send_request(s, o, NULL, e) || read_reply(s, o, &rp, e))
		return -1;
	return take_reply(s, o, &rp, out, e);
}

int spawner_batch_begin(struct spawner *s, const struct spawn_opts *o,
			const struct spawner_batch *b, struct error *e)
{
	if (s->broken)
		return error_set(e, "the spawner stopped answering");
	if (b->read_counters && !s->counters)
		return error_set(e, "the spawner does not hold the counters");
	if (send_request(s, o, b, e))
		return -1;
	s->batch_on = true;
	s->batch_passed = false;
	s->batch_counters = b->read_counters;
	return 0;
}

int spawner_batch_next(struct spawner *s, const struct spawn_opts *o,
		       struct spawner_batch_run *run, struct error *e)
{
	struct spawner_reply rp;

	if (!s->batch_on)
		return 0;
	if (read_reply_passed(s, o, &rp, &s->batch_passed, e)) {
		s->batch_on = false;
		return -1;
	}
	s->batch_on = !(rp.flags & SPAWNER_LAST);
	run->ret = take_reply(s, o, &rp, &run->sample, e);
	if (!run->ret && s->batch_counters && rp.ctr_err)
		run->ret = error_errno(e, rp.ctr_err, "cannot read the perf "
				       "counters");
	run->reading = run->ret ? NULL : s->reading;
	run->n = rp.nwords;
	return 1;
}

int spawner_batch_stop(struct spawner *s, const struct spawn_opts *o,
		       struct error *e)
{
	struct spawner_reply rp;

	if (!s->batch_on)
		return 0;
	/* it runs no more than the one under way */
	if (!s->batch_passed) {
		union sigval v = { .sival_int = s->seq };

		sigqueue(s->pid, SIGUSR1, v);
		s->batch_passed = true;
	}
	while (s->batch_on) {
		if (read_reply_passed(s, o, &rp, &s->batch_passed, e)) {
			s->batch_on = false;
			return -1;
		}
		s->batch_on = !(rp.flags & SPAWNER_LAST);
	}
	return 0;
}
