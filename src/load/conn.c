/*
 * One client connection of `load`: connect (and TLS handshake), send the
 * request, read and parse the response, record it, and go again — or
 * fail, count the failure by kind, and reconnect. The hot path (a
 * response arrives, the next request leaves) is one recv(), one parse,
 * a clock read, one or two histogram records and one send().
 */
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "load/load_internal.h"
#include "util/strutil.h"

#define READ_BUF 8192
#define BACKOFF_MIN 1000000		/* 1 ms */
#define BACKOFF_MAX 256000000		/* 256 ms */

/* Results of io_read / io_write besides a byte count. */
#define IO_AGAIN (-2)
#define IO_FAIL (-1)

/* Reads of a connection at a time (do_read). */
#define READS_PER_EVENT 16

void conn_init(struct worker *w, struct conn *c, uint64_t g)
{
	memset(c, 0, sizeof(*c));
	c->w = w;
	c->fd = -1;
	c->g = g;
	c->backoff = BACKOFF_MIN;
	c->cap = READ_BUF;
	c->buf = xmalloc(c->cap);
	if (w->open)
		c->next_due = conn_due(w->sh, g, 0);
}

/* A request the run ended with (struct worker): its wait, and no
 * uncorrected latency (-1: that is of responses only). */
static void held(struct worker *w, int64_t wait)
{
	hdr_record(w->held, wait);
	sample_add(&w->held_sample, wait, -1);
}

void conn_unanswered(struct worker *w, struct conn *c, int64_t stopped)
{
	uint64_t budget = w->budget, slot = c->slot;
	int64_t due = c->next_due;

	if (c->measured && c->due < stopped && (c->state == CS_WRITING ||
			    c->state == CS_READING || c->resend))
		held(w, stopped - c->due);
	/* the open model's backlog: due, never taken (busy, or down) */
	for (; w->open && budget && due < stopped;
	     due = conn_due(w->sh, c->g, ++slot)) {
		if (due < w->sh->measure)
			continue;
		held(w, stopped - due);
		budget--;
	}
}

int64_t conn_due(const struct shared *sh, uint64_t g, uint64_t slot)
{
	const struct load_config *c = sh->c;
	/* the m-th request of this process's schedule ... */
	uint64_t j = g + slot * c->connections;

	/* ... is request k of the whole test's, with the whole test's due
	 * time (load.h): the same arithmetic as one process would do */
	if (c->segments > 1)
		j = c->segment + j * c->segments;
	return sh->start + (int64_t)((double)j * sh->ns_per_req);
}

static void conn_close(struct conn *c)
{
	struct tls_session *s = c->tls && !c->no_resume ?
				tls_conn_session(c->tls) : NULL;

	/* The last session that may be resumed is kept for the next one;
	 * unless a handshake offering one fails (a server may refuse it
	 * badly): full handshakes from then on. */
	if (c->state == CS_HANDSHAKE && c->session) {
		tls_session_free(c->session);
		c->session = NULL;
		c->no_resume = true;
	} else if (s) {
		tls_session_free(c->session);
		c->session = s;
		s = NULL;
	}
	tls_session_free(s);
	tls_conn_free(c->tls);
	c->tls = NULL;
	if (c->fd >= 0)
		close(c->fd);	/* also leaves the epoll set */
	c->fd = -1;
	c->state = CS_DOWN;
	c->want_out = false;
	c->deadline = 0;
	c->used = 0;
}

void conn_release(struct worker *w, struct conn *c)
{
	(void)w;
	conn_close(c);
	tls_session_free(c->session);
	c->session = NULL;
	free(c->buf);
	c->buf = NULL;
}

/* The first error of each kind is kept, in words. */
static void reason(struct worker *w, enum load_err k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void reason(struct worker *w, enum load_err k, const char *fmt, ...)
{
	char *r = w->st.reason[k];
	va_list ap;

	if (r[0])
		return;
	va_start(ap, fmt);
	vsnprintf(r, sizeof(w->st.reason[k]), fmt, ap);
	va_end(ap);
	/* "Connection refused" as a message goes lowercase; "TLS" stays. */
	if (!isupper((unsigned char)r[1]))
		r[0] = (char)tolower((unsigned char)r[0]);
}

static const char *errno_text(int errnum)
{
	const char *s = errnum ? strerrordesc_np(errnum) : NULL;

	return s ? s : "connection closed";
}

static void set_out(struct worker *w, struct conn *c, bool out)
{
	struct epoll_event ev = { .events = EPOLLIN | (out ? EPOLLOUT : 0),
				  .data.ptr = c };

	if (c->want_out == out)
		return;
	c->want_out = out;
	epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/*
 * Take the next request for c if one may go now (load_internal.h, note
 * 2): in the closed model always, in the open one when due; never beyond
 * the budget of measured requests, nor before the run starts.
 */
static bool take(struct worker *w, struct conn *c, int64_t now)
{
	const struct load_config *cfg = w->sh->c;
	int64_t due = w->open ? c->next_due : now;
	bool measured = due >= w->sh->measure;
	size_t i = 0;

	if (!w->running || due > now || (measured && !w->budget))
		return false;
	if (measured)
		w->budget--;
	if (w->open)
		c->next_due = conn_due(w->sh, c->g, ++c->slot);
	if (cfg->nreqs > 1) {
		uint64_t k = __atomic_fetch_add(&w->sh->next_req, 1,
						__ATOMIC_RELAXED);

		/* a segment's k-th is the whole test's segment + k N-th */
		if (cfg->segments > 1)
			k = cfg->segment + k * cfg->segments;
		i = k % cfg->nreqs;
	}
	c->req = &cfg->reqs[i];
	c->due = due;
	c->measured = measured;
	w->inflight++;
	return true;
}

/* A request ended at now: ok (a 2xx/3xx response) or failed. */
static void per_second(struct worker *w, int64_t now, bool ok)
{
	size_t i = (size_t)((now - w->sh->measure) / 1000000000);

	if (now < w->sh->measure)
		i = 0;
	if (i >= w->cap_seconds) {
		size_t old = w->cap_seconds, cap = old;

		w->st.per_second = xgrow(w->st.per_second, &cap, i + 1,
					 sizeof(uint64_t));
		w->st.errors_per_second = xgrow(w->st.errors_per_second,
						&w->cap_seconds, i + 1,
						sizeof(uint64_t));
		memset(w->st.per_second + old, 0,
		       (w->cap_seconds - old) * sizeof(uint64_t));
		memset(w->st.errors_per_second + old, 0,
		       (w->cap_seconds - old) * sizeof(uint64_t));
	}
	if (i >= w->st.nseconds)
		w->st.nseconds = i + 1;
	if (ok)
		w->st.per_second[i]++;
	else
		w->st.errors_per_second[i]++;
}

static void end_error(struct worker *w, struct conn *c, enum load_err k,
		      int64_t now)
{
	w->inflight--;
	if (!c->measured)
		return;
	hdr_record(w->st.unanswered,
		   (now < w->sh->end ? now : w->sh->end) - c->due);
	/* relaxed stores: load_snapshot reads them meanwhile */
	__atomic_store_n(&w->st.requests, w->st.requests + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&w->st.errors[k], w->st.errors[k] + 1,
			 __ATOMIC_RELAXED);
	per_second(w, now, false);
	__atomic_store_n(&w->done, w->done + 1, __ATOMIC_RELAXED);
}


/* The response to c's request is complete at now. */
static void record(struct worker *w, struct conn *c, int64_t now)
{
	struct load_stats *st = &w->st;
	int s = c->resp.status;
	int64_t lat = now - c->due, unc = now - c->sent;

	w->inflight--;
	if (c->measured && now > w->sh->end)
		hdr_record(st->unanswered, w->sh->end - c->due);
	if (!c->measured || now > w->sh->end)
		return;
	/* relaxed stores of what load_snapshot reads meanwhile */
	__atomic_store_n(&st->requests, st->requests + 1, __ATOMIC_RELAXED);
	st->responses++;
	__atomic_store_n(&w->done, w->done + 1, __ATOMIC_RELAXED);
	st->status[s]++;
	hdr_record(st->latency, lat);
	if (w->open)
		hdr_record(st->uncorrected, unc);
	sample_add(&st->sample, lat, unc);
	if (s < 400) {
		__atomic_store_n(&st->ok, st->ok + 1, __ATOMIC_RELAXED);
		per_second(w, now, true);
	} else {
		__atomic_store_n(&st->errors[LOAD_ERR_STATUS],
				 st->errors[LOAD_ERR_STATUS] + 1,
				 __ATOMIC_RELAXED);
		per_second(w, now, false);
	}
}

static void connect_failed(struct worker *w, struct conn *c, int errnum,
			   const char *why, int64_t now)
{
	conn_close(c);
	/* The request that waited for this connection fails with it, or,
	 * when none did, the next one that would have gone on it. */
	if (c->resend || take(w, c, now)) {
		if (!c->resend)
			c->sent = now;
		c->resend = false;
		if (c->measured) {
			if (why)
				reason(w, LOAD_ERR_CONNECT, "%s", why);
			else
				reason(w, LOAD_ERR_CONNECT, "%s",
				       errno_text(errnum));
		}
		end_error(w, c, LOAD_ERR_CONNECT, now);
	}
	c->retry_at = now + c->backoff;
	c->backoff = c->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : c->backoff * 2;
	timer_note(w, c->retry_at);
}

/*
 * The connection of the request c carries ended before any byte of its
 * response, or it was answered 408 Request Timeout (what a server may
 * send as it closes a connection it thinks idle: RFC 9110 15.5.9): if it
 * may go again (load_internal.h, note 5), close c and connect again to
 * send it. False when it fails (or is answered) for good.
 */
static bool resend(struct worker *w, struct conn *c, int64_t now)
{
	bool dropped = !c->got || (c->resp.state == HTTP_DONE &&
				   c->resp.status == 408);

	if (!dropped || !c->served || c->resent || !c->req->idempotent)
		return false;
	conn_close(c);
	c->resend = c->resent = true;
	if (c->measured)
		w->st.resent++;
	/* From the event loop, as request_failed does. */
	c->retry_at = now;
	timer_note(w, now);
	return true;
}

/* What to add to the reason of a failure that resend refused only because
 * of the method. */
static const char *not_resent(const struct conn *c)
{
	return c->served && !c->got && !c->resent && !c->req->idempotent ?
	       " (a reused connection; not idempotent, not sent again)" : "";
}

/* The request c carries failed (kind k): count it, reconnect. */
static void request_failed(struct worker *w, struct conn *c, enum load_err k,
			   int errnum, const char *why, int64_t now)
{
	if (c->measured) {
		if (why)
			reason(w, k, "%s", why);
		else
			reason(w, k, "%s", errno_text(errnum));
	}
	end_error(w, c, k, now);
	conn_close(c);
	/* Connect again from the event loop, not from here: a server that
	 * fails every request at once must not recurse. */
	c->retry_at = now;
	timer_note(w, now);
}

static void connected(struct worker *w, struct conn *c, int64_t now)
{
	c->state = CS_IDLE;
	c->deadline = 0;
	c->backoff = BACKOFF_MIN;
	c->served = 0;
	set_out(w, c, false);
	conn_next(w, c, now);
}

static void handshake(struct worker *w, struct conn *c, int64_t now)
{
	char why[200];
	int r = tls_handshake(c->tls);

	if (r == 1) {
		connected(w, c, now);
	} else if (r == TLS_WANT_READ || r == TLS_WANT_WRITE) {
		set_out(w, c, r == TLS_WANT_WRITE);
	} else if (errno) {
		connect_failed(w, c, errno, NULL, now);
	} else {
		tls_reason(c->tls, why, sizeof(why));
		connect_failed(w, c, 0, why, now);
	}
}

/* The TCP connection is up: TLS, or ready to send. */
static void tcp_up(struct worker *w, struct conn *c, int64_t now)
{
	const struct load_config *cfg = w->sh->c;

	if (!cfg->tls) {
		connected(w, c, now);
		return;
	}
	c->tls = tls_conn_new(w->sh->tls, c->fd, cfg->tls_host, c->session);
	if (!c->tls) {
		connect_failed(w, c, ENOMEM, NULL, now);
		return;
	}
	c->state = CS_HANDSHAKE;
	handshake(w, c, now);
}

void conn_connect(struct worker *w, struct conn *c, int64_t now)
{
	const struct load_config *cfg = w->sh->c;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.ptr = c };
	int one = 1, fd;

	fd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
	if (fd < 0) {
		connect_failed(w, c, errno, NULL, now);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->fd = fd;
	c->used = 0;
	if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev)) {
		connect_failed(w, c, errno, NULL, now);
		return;
	}
	c->want_out = true;
	c->deadline = now + (int64_t)(cfg->timeout * 1e9);
	timer_note(w, c->deadline);
	if (connect(fd, (const struct sockaddr *)&cfg->addr, cfg->addrlen) == 0)
		tcp_up(w, c, now);
	else if (errno == EINPROGRESS)
		c->state = CS_CONNECTING;
	else
		connect_failed(w, c, errno, NULL, now);
}

static void finish_connect(struct worker *w, struct conn *c, int64_t now)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len))
		err = errno;
	if (err)
		connect_failed(w, c, err, NULL, now);
	else
		tcp_up(w, c, now);
}

static ssize_t io_read(struct conn *c, char *buf, size_t n)
{
	ssize_t r;

	if (!c->tls) {
		r = recv(c->fd, buf, n, 0);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return IO_AGAIN;
		return r < 0 ? IO_FAIL : r;
	}
	r = tls_read(c->tls, buf, n);
	if (r == TLS_WANT_READ || r == TLS_WANT_WRITE) {
		set_out(c->w, c, r == TLS_WANT_WRITE);
		return IO_AGAIN;
	}
	return r;
}

static ssize_t io_write(struct conn *c, const char *buf, size_t n)
{
	ssize_t r;

	if (!c->tls) {
		r = send(c->fd, buf, n, MSG_NOSIGNAL);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return IO_AGAIN;
		return r < 0 ? IO_FAIL : r;
	}
	r = tls_write(c->tls, buf, n);
	if (r == TLS_WANT_READ || r == TLS_WANT_WRITE)
		return IO_AGAIN;
	return r;
}

/* Why the last io_* failed, for the counters. */
static void io_failed(struct worker *w, struct conn *c, enum load_err k,
		      int64_t now)
{
	char tls[200], why[300];
	int err = errno;

	if (resend(w, c, now))
		return;
	if (c->tls && !err)
		tls_reason(c->tls, tls, sizeof(tls));
	snprintf(why, sizeof(why), "%s%s", c->tls && !err ? tls :
		 errno_text(err), not_resent(c));
	request_failed(w, c, k, 0, why, now);
}

static bool parse(struct worker *w, struct conn *c, const char *buf,
		  size_t len, int64_t now);

/*
 * The write of c's request failed (a reset, a broken pipe), or (TLS) the
 * socket has data while the request is still being written: a server
 * may answer before it has read the whole request, 413 to a body too
 * large, and close with the rest unread, and its response is still in
 * the socket after the reset. Read what is there: true when that made a
 * whole response (recorded as any, and the connection then closed) or a
 * malformed one (a read error); false, with errno kept, when the write's
 * failure stands (or, TLS, the write goes on with what was read kept).
 * Over TLS the response is read as it comes, before the write fails:
 * OpenSSL reads nothing after a failed write.
 */
static bool early_response(struct worker *w, struct conn *c, bool failed,
			   int64_t now)
{
	int err = errno;

	c->state = CS_READING;
	/* the connection is closed after the response: a server that
	 * answers before the request is in has the rest unread */
	c->write_failed |= failed;
	for (int reads = 0; reads < READS_PER_EVENT; reads++) {
		ssize_t n;

		if (c->used == c->cap)
			c->buf = xgrow(c->buf, &c->cap, c->cap * 2, 1);
		n = c->tls ? tls_read(c->tls, c->buf + c->used,
				      c->cap - c->used)
			: recv(c->fd, c->buf + c->used, c->cap - c->used,
			       MSG_DONTWAIT);
		if (n <= 0)
			break;
		c->write_failed = true;
		if (c->measured)
			w->st.bytes_read += (uint64_t)n;
		c->got += (uint64_t)n;
		c->used += (size_t)n;
		if (!parse(w, c, c->buf, c->used, now))
			return true;
	}
	c->state = CS_WRITING;
	errno = err;
	return false;
}

static void do_write(struct worker *w, struct conn *c, int64_t now)
{
	const struct load_req *r = c->req;

	while (c->written < r->len) {
		ssize_t n = io_write(c, r->bytes + c->written,
				     r->len - c->written);

		if (n == IO_AGAIN) {
			set_out(w, c, true);
			return;
		}
		if (n < 0) {
			if (!early_response(w, c, true, now))
				io_failed(w, c, LOAD_ERR_WRITE, now);
			return;
		}
		c->written += (size_t)n;
	}
	if (c->measured)
		w->st.bytes_written += r->len;
	c->state = CS_READING;
	set_out(w, c, false);
}

void conn_next(struct worker *w, struct conn *c, int64_t now)
{
	if (c->state != CS_IDLE)
		return;
	if (c->resend) {
		/* Sent again: its due and send times stay (note 5). */
		c->resend = false;
	} else {
		if (!take(w, c, now))
			return;
		c->sent = now;
		c->resent = false;
		if (c->measured) {
			w->st.sends++;
			if (w->open) {
				hdr_record(w->st.lag, now - c->due);
				w->st.late += now - c->due > LOAD_LATE_NS;
			}
		}
	}
	c->got = 0;
	c->written = 0;
	c->write_failed = false;
	c->state = CS_WRITING;
	c->deadline = now + (int64_t)(w->sh->c->timeout * 1e9);
	timer_note(w, c->deadline);
	http_resp_start(&c->resp, c->req->head);
	do_write(w, c, now);
}

/* The response is complete: record it, then reuse or renew c. */
static void complete(struct worker *w, struct conn *c, int64_t now)
{
	record(w, c, now);
	c->served++;
	c->deadline = 0;
	if (!c->resp.keep_alive || c->req->close || c->write_failed ||
	    c->used || (c->tls && tls_pending(c->tls))) {
		/* The server closes, the request said it would (a server
		 * need not echo "Connection: close"), the request's write
		 * failed (early_response), or the server sent
		 * more than one response (in the buffer, or still inside
		 * TLS). */
		conn_close(c);
		conn_connect(w, c, now);
		return;
	}
	c->state = CS_IDLE;
	if (w->open) {
		conn_next(w, c, now);
		return;
	}
	/* The closed model sends once the whole batch of events is handled,
	 * as wrk does: a server at its limit then finds several requests at
	 * each wake-up. The latency counts from that send. */
	w->ready[w->nready++] = c;
}

void conn_flush(struct worker *w)
{
	int64_t now;

	if (!w->nready)
		return;
	now = monoclock_ns();
	for (size_t i = 0; i < w->nready; i++)
		conn_next(w, w->ready[i], now);
	w->nready = 0;
}

/*
 * Parse buf[0..len): c's buffer (what it kept, and what was read after
 * it), or the worker's scratch (read while c kept nothing). What the
 * parser leaves (part of a head or of a chunk line, or bytes after the
 * response) stays in c's buffer. True when the connection goes on
 * reading.
 */
static bool parse(struct worker *w, struct conn *c, const char *buf,
		  size_t len, int64_t now)
{
	struct error e;
	long n = http_resp_feed(&c->resp, buf, len, &e);
	size_t left;

	if (n < 0) {
		request_failed(w, c, LOAD_ERR_READ, 0, e.msg, now);
		return false;
	}
	left = len - (size_t)n;
	if (buf != c->buf) {
		if (left >= c->cap)
			c->buf = xgrow(c->buf, &c->cap, left + 1, 1);
		memcpy(c->buf, buf + n, left);
	} else if (n > 0 && left) {
		memmove(c->buf, c->buf + n, left);
	}
	c->used = left;
	if (c->resp.state == HTTP_DONE) {
		if (c->resp.status != 408 || !resend(w, c, now))
			complete(w, c, now);
		return false;
	}
	if (c->used == c->cap) {
		/* A head or a chunk line longer than the buffer. */
		size_t need = c->cap * 2;

		c->buf = xgrow(c->buf, &c->cap, need, 1);
	}
	return true;
}

/* EOF while c reads a response. */
static void closed(struct worker *w, struct conn *c, int64_t now)
{
	char why[200];

	if (http_resp_eof(&c->resp)) {
		complete(w, c, now);	/* a body delimited by the close */
		return;
	}
	if (resend(w, c, now))
		return;
	snprintf(why, sizeof(why), "connection closed %s%s", c->got ?
		 "before the response was complete" : "without a response",
		 not_resent(c));
	request_failed(w, c, LOAD_ERR_READ, 0, why, now);
}

/*
 * Read what the socket holds, at most READS_PER_EVENT buffers at a time:
 * a server that sends without end (a flood of 1xx, an endless body) would
 * otherwise keep this loop going for ever and the timers, this request's
 * deadline among them, would never be looked at. The descriptor is
 * level-triggered, so what is left is reported again.
 */
static void do_read(struct worker *w, struct conn *c)
{
	for (int reads = 0; reads < READS_PER_EVENT; reads++) {
		/* Plain http with nothing kept: into the worker's scratch,
		 * a body LOAD_SCRATCH bytes a recv() (a connection's buffer
		 * is READ_BUF: 100,000 of them). Not TLS: OpenSSL reads
		 * ahead already, and 16 KiB records copied out whole cost
		 * 1-2% more CPU a 100 KB response than 8 KiB at a time
		 * (bench/RESULTS.md) */
		bool scratch = !c->used && !c->tls;
		char *dst = scratch ? w->scratch : c->buf + c->used;
		size_t room = scratch ? LOAD_SCRATCH : c->cap - c->used;
		ssize_t n = io_read(c, dst, room);
		int64_t now = monoclock_ns();

		if (n == IO_AGAIN)
			return;
		if (n < 0) {
			io_failed(w, c, LOAD_ERR_READ, now);
			return;
		}
		if (n == 0) {
			closed(w, c, now);
			return;
		}
		if (c->measured)
			w->st.bytes_read += (uint64_t)n;
		c->got += (uint64_t)n;
		if (!scratch)
			c->used += (size_t)n;
		if (!parse(w, c, scratch ? dst : c->buf,
			   scratch ? (size_t)n : c->used, now))
			return;
		/* A short read emptied the socket; TLS may hold more. */
		if ((size_t)n < room && !(c->tls && tls_pending(c->tls)))
			return;
	}
	if (c->tls && tls_pending(c->tls) && !c->again) {
		c->again = true;
		w->again[w->nagain++] = c;
	}
}

void conn_again(struct worker *w)
{
	size_t n = w->nagain;

	/* Those queued meanwhile wait for the next turn of the loop. */
	for (size_t i = 0; i < n; i++) {
		struct conn *c = w->again[i];

		c->again = false;
		if (c->state == CS_READING && c->tls && tls_pending(c->tls))
			do_read(w, c);
	}
	memmove(w->again, w->again + n, (w->nagain - n) * sizeof(*w->again));
	w->nagain -= n;
}

/* Data or EOF on an idle connection: the server closed it (or broke the
 * protocol). Connect again, at once if it had served requests. */
static void idle_event(struct worker *w, struct conn *c, int64_t now)
{
	char b[256];
	ssize_t n = io_read(c, b, sizeof(b));

	if (n == IO_AGAIN)
		return;
	conn_close(c);
	if (c->served) {
		conn_connect(w, c, now);
		return;
	}
	c->retry_at = now + c->backoff;
	c->backoff = c->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : c->backoff * 2;
	timer_note(w, c->retry_at);
}

void conn_event(struct worker *w, struct conn *c, uint32_t events)
{
	switch (c->state) {
	case CS_CONNECTING:
		finish_connect(w, c, monoclock_ns());
		return;
	case CS_HANDSHAKE:
		handshake(w, c, monoclock_ns());
		return;
	case CS_WRITING:
		/* TLS: a response before the request is all written (an
		 * early 413) is read now; a write failing first would
		 * lose it (early_response) */
		if (c->tls && (events & EPOLLIN) &&
		    early_response(w, c, false, monoclock_ns()))
			return;
		do_write(w, c, monoclock_ns());
		/* read on: what came meanwhile, or the rest of a response
		 * begun early (OpenSSL may hold it) */
		if (c->state != CS_READING ||
		    (!(events & EPOLLIN) && !c->got))
			return;
		/* The response may be there already. */
		__attribute__((fallthrough));
	case CS_READING:
		do_read(w, c);
		return;
	case CS_IDLE:
		idle_event(w, c, monoclock_ns());
		return;
	case CS_DOWN:
		return;
	}
}

void conn_expire(struct worker *w, struct conn *c, int64_t now)
{
	char why[64];

	switch (c->state) {
	case CS_CONNECTING:
		connect_failed(w, c, ETIMEDOUT, NULL, now);
		return;
	case CS_HANDSHAKE:
		/* the TCP connection was made: the server did not finish
		 * the TLS handshake */
		snprintf(why, sizeof(why), "no TLS handshake within %gs",
			 w->sh->c->timeout);
		connect_failed(w, c, 0, why, now);
		return;
	case CS_WRITING:
	case CS_READING:
		snprintf(why, sizeof(why), "no response within %gs",
			 w->sh->c->timeout);
		request_failed(w, c, LOAD_ERR_TIMEOUT, 0, why, now);
		return;
	default:
		c->deadline = 0;
	}
}
