/*
 * What the engine's two files share: engine.c runs the threads, their
 * event loops, timers and the open model's schedule; conn.c is the state
 * machine of one connection. Internal to src/load.
 *
 * Design notes:
 *  1. Every connection belongs to one thread, and everything a thread
 *     records (histograms, sample, counters) is its own: the only shared
 *     write is the index of the next request of a requests file.
 *  2. A request is "taken" when a connected, idle connection may send:
 *     at once in the closed model, once due in the open one. A connect
 *     that fails takes the request it would have carried and ends it as a
 *     connect error, so a refused server still uses up --requests.
 *  3. Times are CLOCK_MONOTONIC nanoseconds. A response's completion time
 *     is taken once, after the read that completed it. The closed model
 *     sends the next requests after the whole batch of events, with one
 *     clock read for all of them (conn_flush).
 *  4. Level-triggered epoll, EPOLLIN always; EPOLLOUT only while a write
 *     or a connect waits, so that the usual request costs one send() and
 *     one recv() and no epoll_ctl.
 *  5. A server may close a kept-alive connection whenever it likes (after
 *     N requests, when idle) without saying so, and a request may be on
 *     its way when it does. So a request sent on a connection that had
 *     already carried a response, that ends in a read or write failure
 *     (EOF, reset) before any byte of its response, or is answered 408
 *     (a server's word that it closes a connection it thought idle), is
 *     sent again on a new connection — once, and only if its method is
 *     idempotent, as browsers and RFC 9112 9.3.1 do. It keeps its due and send times
 *     (its latency includes the retry) and counts in load_stats.resent;
 *     it fails for good only if the new connection fails (a connect
 *     error) or fails it too. Anything else that ends a connection in
 *     the middle of a response is a read error; a close while idle is no
 *     error at all: the connection is opened again.
 */
#ifndef YS_LOAD_LOAD_INTERNAL_H
#define YS_LOAD_LOAD_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "load/http.h"
#include "load/load.h"
#include "load/tls.h"
#include "util/monoclock.h"

enum conn_state {
	CS_DOWN,		/* no socket; connects again at retry_at */
	CS_CONNECTING,
	CS_HANDSHAKE,		/* TLS */
	CS_IDLE,		/* connected, no request */
	CS_WRITING,
	CS_READING,
};

struct worker;

struct conn {
	struct worker *w;
	int fd;
	enum conn_state state;
	bool want_out;		/* EPOLLOUT is in the interest set */
	bool measured;		/* the request it carries is recorded */
	bool resend;		/* that request goes again once connected
				 * (note 5) */
	bool resent;		/* that request was sent again already */
	bool write_failed;	/* its write failed: the connection ends
				 * with the response read after that */
	const struct load_req *req;
	size_t written;
	uint64_t served;	/* responses since it connected */
	int64_t due;		/* when its request was due */
	int64_t sent;		/* when that request went out (first) */
	uint64_t got;		/* bytes of its response read so far */
	int64_t deadline;	/* connect or request timeout; 0: none */
	int64_t retry_at;	/* CS_DOWN: when to connect again */
	int64_t backoff;	/* the next wait after a failed connect */
	uint64_t g;		/* its number among all connections */
	uint64_t slot;		/* open model: its requests taken so far */
	int64_t next_due;	/* open model: when the next one is due */
	struct tls_conn *tls;
	struct tls_session *session;	/* to resume on the next connection */
	bool no_resume;		/* a handshake resuming one failed: full
				 * handshakes from then on */
	bool again;		/* in the worker's again list */
	struct http_resp resp;
	char *buf;		/* read buffer: a head or a chunk line */
	size_t used, cap;
};

/* What the threads share; written before they run, except next_req. */
struct shared {
	const struct load_config *c;
	struct tls_ctx *tls;
	pthread_mutex_t mu;		/* guards ready, go and abort */
	pthread_cond_t cv;
	unsigned ready;			/* threads done connecting */
	unsigned finished;		/* threads done */
	bool go;			/* the clock started */
	bool abort;			/* a thread could not start */
	int64_t start;			/* the schedule's origin */
	int64_t start_real;		/* the same, CLOCK_REALTIME */
	int64_t measure;		/* start + warmup */
	int64_t end;			/* measure + duration, or INT64_MAX */
	double ns_per_req;		/* open model: 1e9 / rate */
	uint64_t next_req;		/* atomic: next of c->reqs */
};

struct worker {
	struct shared *sh;
	unsigned id;
	int ep;
	struct conn *conns;
	size_t nconns;
	bool running;		/* past the connect phase */
	bool open;		/* the open model */
	uint64_t budget;	/* measured requests it may still take */
	size_t inflight;	/* requests taken and not ended */
	bool spin;		/* closed model: poll before sleeping
				 * (engine.c, wait_or_spin) */
	int64_t next_check;	/* earliest deadline or retry_at */
	uint64_t cursor;	/* open model: next slot of its schedule */
	int64_t stopped;	/* when its loop ended */
	uint64_t done;		/* measured requests ended (written with
				 * relaxed atomics: read for the progress) */
	size_t cap_seconds;
	struct conn **ready;	/* closed model: idle, to send after the
				 * batch of events (conn_flush) */
	size_t nready;
	char *scratch;		/* LOAD_SCRATCH bytes: reads of a plain
				 * http connection that keeps nothing in
				 * its buffer */
	struct conn **again;	/* reading, with bytes inside TLS that epoll
				 * cannot see: read at the next turn
				 * (conn_again); 2 * nconns long */
	size_t nagain;
	struct load_stats st;	/* what it recorded */
	/* the measured requests its loop ended with, in flight or (open
	 * model) never sent: how long each had waited from its due time
	 * (held), and a sample of pairs (that wait, -1: no uncorrected
	 * latency, which is of responses only); load_run's merge settles
	 * them (settle_held) */
	struct hdr *held;
	struct sample held_sample;
	pthread_t thread;
};

/* A worker's held requests kept whole (more: a uniform sample). */
#define LOAD_HELD_MAX ((size_t)1 << 22)

/* A worker's read buffer for plain http: 64 KiB, a 100 KB body in two
 * recv() (the connections' own 8 KiB buffers took thirteen). */
#define LOAD_SCRATCH 65536

/* Note that something must happen at t. */
static inline void timer_note(struct worker *w, int64_t t)
{
	if (t < w->next_check)
		w->next_check = t;
}

/* conn.c */
void conn_init(struct worker *w, struct conn *c, uint64_t g);
void conn_release(struct worker *w, struct conn *c);
/* Open a new connection (c is CS_DOWN). */
void conn_connect(struct worker *w, struct conn *c, int64_t now);
/* epoll reported events on c. */
void conn_event(struct worker *w, struct conn *c, uint32_t events);
/* c is idle: send the next request if one may be taken. */
void conn_next(struct worker *w, struct conn *c, int64_t now);
/* Closed model: send the requests of the connections made idle by the
 * last batch of events. */
void conn_flush(struct worker *w);
/* Read on the connections whose reads stopped at their limit with bytes
 * inside TLS (w->again); the loop must not sleep while there are any. */
void conn_again(struct worker *w);
/* c's deadline passed. */
void conn_expire(struct worker *w, struct conn *c, int64_t now);
/* When the open model's request of connection g number slot is due. */
int64_t conn_due(const struct shared *sh, uint64_t g, uint64_t slot);
/* At the run's end (stopped): the measured request c still carries, and
 * in the open model those due on it before stopped that it never sent,
 * into the worker's held requests, as long as each has waited. */
void conn_unanswered(struct worker *w, struct conn *c, int64_t stopped);

#endif
