/*
 * The HTTP load engine: N client threads, each an epoll loop over its
 * share of the connections, sending prebuilt HTTP/1.1 requests with
 * keep-alive, in one of two models:
 *
 *  - closed (rate 0): each connection sends its next request as soon as
 *    the previous response is complete — the most the server can take;
 *  - open (rate R): request i of the whole run is due at start + i / R,
 *    dealt round-robin to the connections. A connection still waiting
 *    for a response when its next request falls due sends it as soon as
 *    it can, and its latency is measured from when it was due: a server
 *    that stalls is charged for every request it held up (the correction
 *    for coordinated omission). The latency from the actual send is kept
 *    too.
 *
 * Everything is recorded per thread (HDR histograms in nanoseconds,
 * a latency sample, counters) and merged once the threads are done.
 * Nothing here prints.
 */
#ifndef YS_LOAD_LOAD_H
#define YS_LOAD_LOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "load/sample.h"
#include "stats/hdr.h"
#include "util/error.h"

/* One prebuilt request. */
struct load_req {
	char *bytes;
	size_t len;
	bool head;		/* a HEAD request: the response has no body */
	bool idempotent;	/* may be sent again (http_method_idempotent) */
	bool close;		/* says "Connection: close": the connection
				 * ends with its response */
};

struct load_stats;

struct load_config {
	struct sockaddr_storage addr;	/* where to connect */
	socklen_t addrlen;
	const char *hostport;		/* "host:port", for messages */
	bool tls;			/* https */
	const char *tls_host;		/* SNI and certificate name */
	bool insecure;			/* do not verify the certificate */
	const struct load_req *reqs;	/* sent in turn, over all threads */
	size_t nreqs;
	unsigned threads, connections;	/* 1 <= threads <= connections */
	double duration;		/* measured seconds (0: by requests) */
	uint64_t requests;		/* measured requests (0: by duration) */
	double warmup;			/* seconds sent but not recorded */
	double rate;			/* requests/s over all connections;
					 * 0: the closed model */
	/* A segment (segments > 1) of a test spread over several
	 * processes: connections and requests are this segment's share,
	 * rate the whole test's, and the open model's request k of the
	 * whole test's schedule, due at start + k / rate, is this
	 * segment's when k % segments == segment (its m-th, dealt to its
	 * connection m % connections). */
	unsigned segment, segments;
	int64_t start_at;		/* the schedule's origin, unix ns
					 * (CLOCK_REALTIME), or 0: once
					 * connected */
	double timeout;			/* per request, and per connect */
	size_t sample_cap;		/* latencies kept in the sample */
	bool held_in_latency;		/* the requests held at the end
					 * longer than every response count
					 * in latency (load_stats.held_slow);
					 * else all are only unanswered */
	uint64_t seed;
	volatile sig_atomic_t *stop;	/* becomes non-zero: stop now */
	/* Becomes non-zero (set by the caller, as from live): end the
	 * measured interval now, as its duration would end it — the
	 * caller has seen what it needed; not an interruption. May be
	 * NULL. */
	volatile sig_atomic_t *cut;
	/* Called from the calling thread about 5 times a second while the
	 * load runs, with the fraction done (by time, or by --requests);
	 * may be NULL. */
	void (*progress)(void *arg, double fraction);
	void *progress_arg;
	/* Called from the calling thread every live_interval seconds (> 0)
	 * while the run goes on, with the threads' counters and histograms
	 * read without stopping them (relaxed atomics; each count is of its
	 * own moment, within microseconds of the others): requests, ok,
	 * errors[], latency and uncorrected (min and max widened to their
	 * buckets' bounds) and elapsed (since the measured interval began;
	 * 0 in the warm-up) are filled, the rest is zero. May be NULL. */
	void (*live)(void *arg, const struct load_stats *snapshot);
	void *live_arg;
	double live_interval;
};

/* Kinds of failed requests. A response with a status other than 2xx or
 * 3xx is a LOAD_ERR_STATUS (and counted by status too). */
enum load_err {
	LOAD_ERR_CONNECT, LOAD_ERR_READ, LOAD_ERR_WRITE, LOAD_ERR_TIMEOUT,
	LOAD_ERR_STATUS, LOAD_ERR_KINDS
};

/* A send more than this behind its due time counts as late. */
#define LOAD_LATE_NS 1000000

/* HDR histograms of the engine: 1 us to 1 h, 3 significant digits. */
#define LOAD_HDR_LOWEST 1000
#define LOAD_HDR_HIGHEST 3600000000000LL
#define LOAD_HDR_SIGFIGS 3

struct load_stats {
	struct hdr *latency;	/* from the due time (open model) or the
				 * send (closed), ns, every response, and
				 * the held_slow requests' waits */
	struct hdr *uncorrected;/* from the actual send, ns */
	struct hdr *lag;	/* send time - due time, ns (open model) */
	struct hdr *unanswered;	/* the measured requests that got no
				 * response by the end: how long each had
				 * waited (from its due time) when it
				 * failed, or when the run ended with it
				 * in flight or, open model, still unsent;
				 * a latency objective counts those that
				 * waited past its limit (load_search.c) */
	struct sample sample;	/* pairs (latency, uncorrected), ns */
	uint64_t *per_second;	/* 2xx/3xx responses completed in each
				 * second of the measured interval */
	uint64_t *errors_per_second;	/* requests failed in each second
					 * (nseconds too; NULL when none) */
	size_t nseconds;
	double elapsed;		/* seconds measured */
	double start_unix;	/* when the measured interval began, unix
				 * seconds */
	uint64_t requests;	/* requests that ended: a response or an
				 * error */
	uint64_t responses;	/* of which responses (any status) */
	uint64_t ok;		/* of which 2xx or 3xx */
	uint64_t sends, late;	/* requests sent; of which late (open) */
	uint64_t resent;	/* requests sent again on a new connection:
				 * the server closed a connection it had
				 * answered on before any byte of their
				 * response */
	uint64_t bytes_read, bytes_written;
	uint64_t held;		/* measured requests the run ended with
				 * that got no response, in flight or (open
				 * model) never sent */
	uint64_t held_slow;	/* of which those that had waited longer
				 * than every response: in latency (and its
				 * sample) at their wait, a lower bound */
	uint64_t errors[LOAD_ERR_KINDS];
	uint64_t status[600];	/* responses by status code */
	char reason[LOAD_ERR_KINDS][160];	/* what the first error of
						 * each kind was */
	bool interrupted;	/* stopped by *stop */
};

const char *load_err_name(enum load_err k);

/*
 * Run the load described by c. Returns 0 with *out filled (free with
 * load_stats_free) — whatever the server did; failed requests are counted
 * in it — or -1 when the run could not start (threads, epoll, TLS set-up),
 * with a message.
 */
int load_run(const struct load_config *c, struct load_stats *out,
	     struct error *e);
void load_stats_free(struct load_stats *s);
/* Empty stats with the engine's histograms and a sample of sample_cap. */
void load_stats_init(struct load_stats *s, size_t sample_cap,
		     uint64_t seed);
/* The largest count a result holds exactly (a JSON number read as a
 * double): every count of load_stats stays at most this. */
#define LOAD_COUNT_MAX (1ULL << 53)

/* Add src's counts, per-second counts (src's second i as dst's
 * i + offset) and histograms into dst; not the sample, nor elapsed.
 * Returns 0, or -1 with dst unchanged and a message naming the count
 * ("counts.requests ...", "counts.status_404 ...") when a sum would pass
 * LOAD_COUNT_MAX (a histogram's total INT64_MAX). */
int load_stats_add(struct load_stats *dst, const struct load_stats *src,
		   size_t offset, struct error *e);

/* Total errors of every kind. */
uint64_t load_errors_total(const struct load_stats *s);

/*
 * The throughput per second of the measured interval, for the result's
 * values: the 2xx/3xx responses of each whole second, and of a last
 * partial second of at least half a second scaled to a rate; a run
 * shorter than a second gives one value, ok / elapsed. *values is
 * malloc'd (NULL when *n is 0: nothing was measured).
 */
void load_rates(const struct load_stats *s, double **values, size_t *n);
/* The same of the failed requests (errors_per_second; under a second,
 * every error / elapsed): the result's error_rate. */
void load_error_rates(const struct load_stats *s, double **values,
		      size_t *n);

#endif
