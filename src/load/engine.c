/*
 * The load engine (load.h): the client threads, each an epoll loop over
 * its connections with its own timers and, in the open model, its share
 * of the schedule; then the merge of what they recorded.
 *
 * The run has a connect phase — every thread opens its connections and
 * waits for them (at most --timeout, and at most a second: those not up
 * then connect on during the run) — then all threads meet at a
 * barrier and the clock starts, so that neither the schedule nor the
 * first latencies include connection set-up.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "load/load_internal.h"
#include "util/strutil.h"

#define MAX_EVENTS 256
#define MAX_WAIT_NS 100000000	/* wake at least every 100 ms (--stop) */

static const char *const err_names[LOAD_ERR_KINDS] = {
	"connect", "read", "write", "timeout", "status",
};

const char *load_err_name(enum load_err k)
{
	return err_names[k];
}

uint64_t load_errors_total(const struct load_stats *s)
{
	uint64_t t = 0;

	for (int k = 0; k < LOAD_ERR_KINDS; k++)
		t += s->errors[k];
	return t;
}

void load_stats_init(struct load_stats *s, size_t sample_cap,
		     uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->latency = hdr_new(LOAD_HDR_LOWEST, LOAD_HDR_HIGHEST,
			     LOAD_HDR_SIGFIGS);
	s->uncorrected = hdr_new(LOAD_HDR_LOWEST, LOAD_HDR_HIGHEST,
				 LOAD_HDR_SIGFIGS);
	s->lag = hdr_new(LOAD_HDR_LOWEST, LOAD_HDR_HIGHEST, LOAD_HDR_SIGFIGS);
	s->unanswered = hdr_new(LOAD_HDR_LOWEST, LOAD_HDR_HIGHEST,
				LOAD_HDR_SIGFIGS);
	sample_init(&s->sample, sample_cap, seed);
}

void load_stats_free(struct load_stats *s)
{
	hdr_free(s->latency);
	hdr_free(s->uncorrected);
	hdr_free(s->lag);
	hdr_free(s->unanswered);
	sample_free(&s->sample);
	free(s->per_second);
	free(s->errors_per_second);
	memset(s, 0, sizeof(*s));
}

/* Check every deadline and retry, and find the next one. */
static void check_timers(struct worker *w, int64_t now)
{
	int64_t next = INT64_MAX;

	for (size_t i = 0; i < w->nconns; i++) {
		struct conn *c = &w->conns[i];

		if (c->deadline && c->deadline <= now)
			conn_expire(w, c, now);
		if (c->state == CS_DOWN && c->retry_at <= now)
			conn_connect(w, c, now);
		if (c->deadline && c->deadline < next)
			next = c->deadline;
		if (c->state == CS_DOWN && c->retry_at < next)
			next = c->retry_at;
	}
	/* Timers noted meanwhile (by the calls above) are later than now
	 * but may be earlier than what the scan saw. */
	w->next_check = w->next_check <= now ? next
		: (next < w->next_check ? next : w->next_check);
}

/* Open model: the time of the worker's schedule slot s. */
static int64_t slot_time(const struct worker *w, uint64_t s)
{
	return conn_due(w->sh, w->conns[s % w->nconns].g, s / w->nconns);
}

/*
 * Open model: when to stop sleeping for a send due at due. A sleeping
 * thread wakes some 50-100 us late on a virtual machine, and that delay
 * would be charged to the server: wake EARLY_NS before, then poll without
 * sleeping until the time comes.
 */
#define EARLY_NS 100000

static int64_t wake_time(int64_t due, int64_t now)
{
	return due - now <= EARLY_NS ? now : due - EARLY_NS;
}

/* Open model: give every slot that fell due to its connection if idle; a
 * busy one sends when its response comes (its due time is kept). */
static void run_schedule(struct worker *w, int64_t now)
{
	const struct shared *sh = w->sh;
	double round_ns = sh->ns_per_req * sh->c->connections *
			  (sh->c->segments > 1 ? sh->c->segments : 1);
	uint64_t round = (uint64_t)((double)(now - sh->start) / round_ns);

	/* Far behind (a rate beyond what this thread can even schedule):
	 * offer every connection its turn once and go on from the current
	 * round. Skipped slots lose nothing: a connection's own next_due
	 * keeps its backlog, sent back to back as responses come. */
	if (w->cursor / w->nconns + 1 < round) {
		for (size_t i = 0; i < w->nconns; i++)
			conn_next(w, &w->conns[i], now);
		w->cursor = round * w->nconns;
	}
	while (slot_time(w, w->cursor) <= now) {
		conn_next(w, &w->conns[w->cursor % w->nconns], now);
		w->cursor++;
	}
}

static int wait_events(struct worker *w, struct epoll_event *ev,
		       int64_t until, int64_t now)
{
	int64_t d = until - now;
	struct timespec ts;

	if (d < 0)
		d = 0;
	if (d > MAX_WAIT_NS)
		d = MAX_WAIT_NS;
	ts.tv_sec = d / 1000000000;
	ts.tv_nsec = d % 1000000000;
	return epoll_pwait2(w->ep, ev, MAX_EVENTS, &ts, NULL);
}

/*
 * Closed model, responses awaited: poll for up to SPIN_NS before a wait
 * that sleeps, while the events come that often. A thread asleep in
 * epoll is woken by the sender of what it waits for: on loopback the
 * server's own system call pays the wake-up (sock_def_readable and the
 * other CPU's interrupt), and where the server is the limit that is
 * the server's time. nginx's one worker doing TLS answered 7-10% fewer
 * requests to yardstick than to wrk, whose busier thread was asleep
 * less: sock_def_readable took 14% of the worker's samples under
 * yardstick and 5% under wrk (bench/RESULTS.md, session 25). The spin
 * stops when the last sleep was long (the events come seldom: a slow
 * server, few connections), so it costs at most SPIN_NS a sleep.
 */
#define SPIN_NS 50000

static int wait_or_spin(struct worker *w, struct epoll_event *ev,
			int64_t until, int64_t now)
{
	int64_t stop = now + SPIN_NS < until ? now + SPIN_NS : until;
	int n;

	if (w->spin && w->inflight && !w->open) {
		while (now < stop) {
			n = epoll_wait(w->ep, ev, MAX_EVENTS, 0);
			if (n)
				return n;
			/* a task that wants this CPU (the server's, on
			 * a busy machine) has it first */
			sched_yield();
			now = monoclock_ns();
		}
	}
	n = wait_events(w, ev, until, now);
	/* slept less than twice the spin: the next events likely come
	 * within one */
	w->spin = monoclock_ns() - now < 2 * SPIN_NS;
	return n;
}

static void dispatch(struct worker *w, struct epoll_event *ev, int n)
{
	for (int i = 0; i < n; i++)
		conn_event(w, ev[i].data.ptr, ev[i].events);
	if (w->nagain)
		conn_again(w);
	conn_flush(w);
}

static bool connecting(const struct worker *w)
{
	for (size_t i = 0; i < w->nconns; i++)
		if (w->conns[i].state == CS_CONNECTING ||
		    w->conns[i].state == CS_HANDSHAKE)
			return true;
	return false;
}

/* The connect phase's longest wait: connections not up by then go on
 * connecting while the run goes on (a server that accepts and never
 * finishes a TLS handshake held a 2 s run for its --timeout of 6 s
 * first). */
#define CONNECT_PHASE_MAX_NS 1000000000LL

/* Open the connections and wait for them, at most the timeout or
 * CONNECT_PHASE_MAX_NS. */
static void connect_phase(struct worker *w, struct epoll_event *ev)
{
	const struct load_config *c = w->sh->c;
	int64_t now = monoclock_ns();
	int64_t wait = (int64_t)(c->timeout * 1e9);
	int64_t until = now + (wait < CONNECT_PHASE_MAX_NS ? wait
							  : CONNECT_PHASE_MAX_NS);

	for (size_t i = 0; i < w->nconns; i++)
		conn_connect(w, &w->conns[i], now);
	while (connecting(w) && now < until && !*c->stop) {
		int n = wait_events(w, ev, until, now);

		if (n > 0)
			dispatch(w, ev, n);
		now = monoclock_ns();
	}
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Wait (in steps, for *stop) until monotonic time t. */
static void wait_until(const struct load_config *c, int64_t t)
{
	for (;;) {
		int64_t left = t - monoclock_ns();
		struct timespec ts;

		if (left <= 0 || *c->stop)
			return;
		if (left > MAX_WAIT_NS)
			left = MAX_WAIT_NS;
		ts.tv_sec = 0;
		ts.tv_nsec = left;
		nanosleep(&ts, NULL);
	}
}

/* The schedule's origin: now, or --start-at's time on the monotonic
 * clock (passed already: the origin stays there, and what fell due
 * meanwhile is late). The caller waits for it. */
static void start_clock(struct shared *sh)
{
	const struct load_config *c = sh->c;
	int64_t mono = monoclock_ns(), real = realtime_ns();

	sh->start = c->start_at ? mono + (c->start_at - real) : mono;
	sh->start_real = c->start_at ? c->start_at : real;
	sh->measure = sh->start + (int64_t)(c->warmup * 1e9);
	sh->end = c->duration > 0 ? sh->measure + (int64_t)(c->duration * 1e9)
				  : INT64_MAX;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct epoll_event ev[MAX_EVENTS];
	int64_t now;

	/* Wake-ups on time to the microsecond, for the open model. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	connect_phase(w, ev);
	pthread_mutex_lock(&sh->mu);
	sh->ready++;
	pthread_cond_broadcast(&sh->cv);
	while (!sh->go)
		pthread_cond_wait(&sh->cv, &sh->mu);
	pthread_mutex_unlock(&sh->mu);
	if (sh->abort)
		return NULL;
	w->running = true;
	now = monoclock_ns();
	for (size_t i = 0; i < w->nconns; i++) {
		if (w->open)
			w->conns[i].next_due = conn_due(sh, w->conns[i].g, 0);
		conn_next(w, &w->conns[i], now);
	}
	for (;;) {
		int64_t until;
		int n;

		now = monoclock_ns();
		if (*sh->c->stop) {
			w->st.interrupted = true;
			break;
		}
		if (now >= sh->end || (!w->budget && !w->inflight) ||
		    (sh->c->cut && *sh->c->cut))
			break;
		if (w->open)
			run_schedule(w, now);
		if (now >= w->next_check)
			check_timers(w, now);
		until = sh->end < w->next_check ? sh->end : w->next_check;
		if (w->open && slot_time(w, w->cursor) < until)
			until = wake_time(slot_time(w, w->cursor), now);
		if (w->nagain)
			until = now;
		n = wait_or_spin(w, ev, until, now);
		if (n > 0 || w->nagain)
			dispatch(w, ev, n > 0 ? n : 0);
	}
	w->stopped = now < sh->end ? now : sh->end;
	for (size_t i = 0; i < w->nconns; i++)
		conn_unanswered(w, &w->conns[i], w->stopped);
	pthread_mutex_lock(&sh->mu);
	sh->finished++;
	pthread_cond_broadcast(&sh->cv);
	pthread_mutex_unlock(&sh->mu);
	return NULL;
}

/* The fraction of the run done: by time, or by requests. */
static double fraction_done(struct worker *ws, const struct shared *sh)
{
	const struct load_config *c = sh->c;
	uint64_t done = 0;
	double f;

	if (c->duration > 0) {
		f = (double)(monoclock_ns() - sh->start) / (double)(sh->end - sh->start);
	} else {
		for (unsigned t = 0; t < c->threads; t++)
			done += __atomic_load_n(&ws[t].done, __ATOMIC_RELAXED);
		f = (double)done / (double)c->requests;
	}
	return f > 1 ? 1 : f;
}

/* The live view of the run for load_config.live (load.h says what is
 * in it), read while the threads go on. */
static void snapshot(struct worker *ws, const struct shared *sh,
		     struct load_stats *out)
{
	const struct load_config *c = sh->c;
	int64_t now = monoclock_ns();

	load_stats_init(out, 1, 0);
	for (unsigned t = 0; t < c->threads; t++) {
		const struct load_stats *w = &ws[t].st;

		out->requests += __atomic_load_n(&w->requests,
						 __ATOMIC_RELAXED);
		out->ok += __atomic_load_n(&w->ok, __ATOMIC_RELAXED);
		for (int k = 0; k < LOAD_ERR_KINDS; k++)
			out->errors[k] += __atomic_load_n(&w->errors[k],
							  __ATOMIC_RELAXED);
		hdr_add_live(out->latency, w->latency);
		hdr_add_live(out->uncorrected, c->rate > 0 ? w->uncorrected
							    : w->latency);
	}
	out->elapsed = now > sh->measure ? (double)(now - sh->measure) / 1e9
					 : 0;
}

/* The next live call after one at t. */
static int64_t next_live(const struct shared *sh, int64_t t)
{
	return t + (int64_t)(sh->c->live_interval * 1e9);
}

/* Wait for the threads to finish, reporting progress meanwhile, and the
 * live view every live_interval (outside the lock: a callback may take
 * its time, the threads never wait for it). */
static void watch(struct worker *ws, struct shared *sh, unsigned started)
{
	const struct load_config *c = sh->c;
	int64_t live_at = c->live ? next_live(sh, sh->start) : INT64_MAX;

	pthread_mutex_lock(&sh->mu);
	while (sh->finished < started) {
		struct timespec ts;
		int64_t wait = 200000000, now = monoclock_ns();

		if (live_at - now < wait)
			wait = live_at - now > 0 ? live_at - now : 0;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += wait;
		while (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&sh->cv, &sh->mu, &ts);
		if (sh->finished >= started)
			break;
		pthread_mutex_unlock(&sh->mu);
		if (c->progress)
			c->progress(c->progress_arg, fraction_done(ws, sh));
		if (monoclock_ns() >= live_at) {
			struct load_stats snap;

			snapshot(ws, sh, &snap);
			c->live(c->live_arg, &snap);
			load_stats_free(&snap);
			live_at = next_live(sh, live_at);
			if (live_at < monoclock_ns())
				live_at = next_live(sh, monoclock_ns());
		}
		pthread_mutex_lock(&sh->mu);
	}
	pthread_mutex_unlock(&sh->mu);
}

/* Enough file descriptors for every connection, if the hard limit
 * allows. */
static void raise_nofile(unsigned connections)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)connections + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static int workers_init(struct worker *ws, struct shared *sh,
			struct error *e)
{
	const struct load_config *c = sh->c;

	for (unsigned t = 0; t < c->threads; t++) {
		struct worker *w = &ws[t];
		/* Measured requests split evenly, the first ones one more. */
		uint64_t share = c->requests / c->threads +
				 (t < c->requests % c->threads);

		w->sh = sh;
		w->id = t;
		w->open = c->rate > 0;
		w->budget = c->requests ? share : UINT64_MAX;
		w->next_check = INT64_MAX;
		w->ep = epoll_create1(EPOLL_CLOEXEC);
		if (w->ep < 0)
			return error_errno(e, errno, "cannot create an epoll "
					   "instance");
		load_stats_init(&w->st, c->sample_cap,
			   c->seed + 0x9e3779b97f4a7c15ULL * (t + 1));
		w->held = hdr_new(LOAD_HDR_LOWEST, LOAD_HDR_HIGHEST,
				  LOAD_HDR_SIGFIGS);
		sample_init(&w->held_sample, LOAD_HELD_MAX,
			    c->seed + 0x632be59bd9b4e019ULL * (t + 1));
		if (c->duration > 0) {
			w->cap_seconds = (size_t)c->duration + 2;
			w->st.per_second = xcalloc(w->cap_seconds,
						   sizeof(uint64_t));
			w->st.errors_per_second = xcalloc(w->cap_seconds,
							  sizeof(uint64_t));
		}
		/* Connection g goes to thread g % threads. */
		w->nconns = c->connections / c->threads +
			    (t < c->connections % c->threads);
		w->conns = xcalloc(w->nconns, sizeof(*w->conns));
		w->ready = xcalloc(w->nconns, sizeof(*w->ready));
		/* Room for each connection twice: conn_again queues
		 * them anew behind those it goes through. */
		w->again = xcalloc(2 * w->nconns, sizeof(*w->again));
		w->scratch = xmalloc(LOAD_SCRATCH);
		for (size_t i = 0; i < w->nconns; i++)
			conn_init(w, &w->conns[i], t + i * c->threads);
	}
	return 0;
}

/* Counts of n seconds at p made room for m (> n), the new ones 0. */
static uint64_t *grow_seconds(uint64_t *p, size_t n, size_t m)
{
	p = xrealloc(p, m * sizeof(uint64_t));
	memset(p + n, 0, (m - n) * sizeof(uint64_t));
	return p;
}

/* a + b in *sum; false when it would pass LOAD_COUNT_MAX. */
static bool count_add(uint64_t a, uint64_t b, uint64_t *sum)
{
	return !__builtin_add_overflow(a, b, sum) && *sum <= LOAD_COUNT_MAX;
}

/* Whether a count of dst + src would pass LOAD_COUNT_MAX: -1 (with a
 * message naming it) or 0. */
static int add_overflows(const struct load_stats *dst,
			 const struct load_stats *src, size_t offset,
			 struct error *e)
{
	const struct { const char *name; uint64_t a, b; } c[] = {
		{ "requests", dst->requests, src->requests },
		{ "responses", dst->responses, src->responses },
		{ "ok", dst->ok, src->ok },
		{ "sends", dst->sends, src->sends },
		{ "late", dst->late, src->late },
		{ "resent", dst->resent, src->resent },
		{ "bytes_read", dst->bytes_read, src->bytes_read },
		{ "bytes_written", dst->bytes_written, src->bytes_written },
		{ "held", dst->held, src->held },
		{ "held_slow", dst->held_slow, src->held_slow },
	};
	const char *more = "add up to more than 2^53, the largest count a "
			   "result holds exactly";
	uint64_t sum;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (!count_add(c[i].a, c[i].b, &sum))
			return error_set(e, "counts.%s %llu and %llu %s",
					 c[i].name, (unsigned long long)c[i].a,
					 (unsigned long long)c[i].b, more);
	for (int k = 0; k < LOAD_ERR_KINDS; k++)
		if (!count_add(dst->errors[k], src->errors[k], &sum))
			return error_set(e, "counts.%s %llu and %llu %s",
					 load_err_name(k),
					 (unsigned long long)dst->errors[k],
					 (unsigned long long)src->errors[k],
					 more);
	for (int s = 0; s < 600; s++)
		if (!count_add(dst->status[s], src->status[s], &sum))
			return error_set(e, "counts.status_%d %llu and %llu %s",
					 s, (unsigned long long)dst->status[s],
					 (unsigned long long)src->status[s],
					 more);
	for (size_t i = 0; i < src->nseconds && i + offset < dst->nseconds;
	     i++)
		if (!count_add(dst->per_second[i + offset], src->per_second[i],
			       &sum) ||
		    !count_add(dst->errors_per_second[i + offset],
			       src->errors_per_second[i], &sum))
			return error_set(e, "per_second second %zu: the counts "
					 "%s", i + offset, more);
	if (hdr_count(dst->latency) > INT64_MAX - hdr_count(src->latency) ||
	    hdr_count(dst->uncorrected) > INT64_MAX -
					  hdr_count(src->uncorrected) ||
	    hdr_count(dst->lag) > INT64_MAX - hdr_count(src->lag) ||
	    hdr_count(dst->unanswered) > INT64_MAX -
					 hdr_count(src->unanswered))
		return error_set(e, "histograms: the counts add up to more "
				 "than 2^63 - 1");
	return 0;
}

int load_stats_add(struct load_stats *dst, const struct load_stats *src,
		   size_t offset, struct error *e)
{
	if (add_overflows(dst, src, offset, e))
		return -1;
	dst->requests += src->requests;
	dst->responses += src->responses;
	dst->ok += src->ok;
	dst->sends += src->sends;
	dst->late += src->late;
	dst->resent += src->resent;
	dst->bytes_read += src->bytes_read;
	dst->bytes_written += src->bytes_written;
	dst->held += src->held;
	dst->held_slow += src->held_slow;
	dst->interrupted |= src->interrupted;
	for (int k = 0; k < LOAD_ERR_KINDS; k++) {
		dst->errors[k] += src->errors[k];
		if (!dst->reason[k][0])
			memcpy(dst->reason[k], src->reason[k],
			       sizeof(dst->reason[k]));
	}
	for (int s = 0; s < 600; s++)
		dst->status[s] += src->status[s];
	if (src->nseconds && src->nseconds + offset > dst->nseconds) {
		size_t n = src->nseconds + offset;

		dst->per_second = grow_seconds(dst->per_second, dst->nseconds,
					       n);
		dst->errors_per_second = grow_seconds(dst->errors_per_second,
						      dst->nseconds, n);
		dst->nseconds = n;
	}
	for (size_t i = 0; i < src->nseconds; i++) {
		dst->per_second[i + offset] += src->per_second[i];
		dst->errors_per_second[i + offset] +=
			src->errors_per_second[i];
	}
	/* cannot fail: the parameters are the engine's, the sums checked */
	(void)hdr_merge(dst->latency, src->latency);
	(void)hdr_merge(dst->uncorrected, src->uncorrected);
	(void)hdr_merge(dst->lag, src->lag);
	(void)hdr_merge(dst->unanswered, src->unanswered);
	return 0;
}

/* A bucket of held waits: into latency above its slowest response
 * (settle_held), else into unanswered. */
struct held_split {
	struct load_stats *st;
	int64_t top;
	uint64_t slow;
};

static int split_bucket(int64_t value, int64_t count, void *arg)
{
	struct held_split *h = arg;

	if (value > h->top) {
		hdr_record_n(h->st->latency, value, count);
		h->slow += (uint64_t)count;
	} else {
		hdr_record_n(h->st->unanswered, value, count);
	}
	return 0;
}

/*
 * w's held requests (struct worker): each waited at least its wait, so
 * one that waited longer than every response of the run (top) is slower
 * than all of them, and counts in latency at its wait, a lower bound (a
 * server that stalled until the end is charged for the requests it held,
 * not only those it answered); the others, which a response might yet
 * have come to in time (the last few in flight at the end of any run),
 * count only as unanswered. Into *above, a sample of the first, as a
 * uniform sample of them (sample_merge takes it with the others).
 */
static void settle_held(struct worker *w, int64_t top, struct sample *above,
			uint64_t seed)
{
	struct held_split h = { &w->st, top, 0 };
	const struct sample *all = &w->held_sample;
	bool whole = all->n == all->seen;

	sample_init(above, LOAD_HELD_MAX, seed);
	/* each wait as it was, when all were kept; past LOAD_HELD_MAX by
	 * their buckets, and the values get a uniform share of them (which
	 * under-represents them) */
	if (!whole)
		hdr_foreach_bucket(w->held, split_bucket, &h);
	for (size_t i = 0; i < all->n; i++) {
		if (all->a[i] <= top) {
			if (whole)
				hdr_record(w->st.unanswered, all->a[i]);
			continue;
		}
		sample_add(above, all->a[i], all->b[i]);
		if (whole) {
			hdr_record(w->st.latency, all->a[i]);
			h.slow++;
		}
	}
	w->st.held_slow += h.slow;
	w->st.held += (uint64_t)hdr_count(w->held);
}

static void merge(struct worker *ws, const struct shared *sh,
		  struct load_stats *out)
{
	const struct load_config *c = sh->c;
	struct sample **samples = xcalloc(2 * (size_t)c->threads,
					  sizeof(*samples));
	struct sample *above = xcalloc(c->threads, sizeof(*above));
	int64_t stopped = sh->measure, top = 0;

	memset(out, 0, sizeof(*out));
	out->latency = hdr_new(LOAD_HDR_LOWEST, LOAD_HDR_HIGHEST,
			       LOAD_HDR_SIGFIGS);
	out->uncorrected = hdr_new(LOAD_HDR_LOWEST, LOAD_HDR_HIGHEST,
				   LOAD_HDR_SIGFIGS);
	out->lag = hdr_new(LOAD_HDR_LOWEST, LOAD_HDR_HIGHEST,
			   LOAD_HDR_SIGFIGS);
	out->unanswered = hdr_new(LOAD_HDR_LOWEST, LOAD_HDR_HIGHEST,
				  LOAD_HDR_SIGFIGS);
	for (unsigned t = 0; t < c->threads; t++)
		if (hdr_count(ws[t].st.latency) &&
		    hdr_max(ws[t].st.latency) > top)
			top = hdr_max(ws[t].st.latency);
	if (!c->held_in_latency)
		top = INT64_MAX;	/* none: all only unanswered */
	for (unsigned t = 0; t < c->threads; t++) {
		/* Closed model: the send is the due time, both are one (of
		 * the responses: before the held waits join latency) */
		if (c->rate <= 0)
			hdr_merge(out->uncorrected, ws[t].st.latency);
		settle_held(&ws[t], top, &above[t],
			    c->seed ^ (0xd1b54a32d192ed03ULL * (t + 1)));
		samples[c->threads + t] = &above[t];
		/* a run's counts stay far below 2^53 */
		(void)load_stats_add(out, &ws[t].st, 0, NULL);
		samples[t] = &ws[t].st.sample;
		if (ws[t].stopped > stopped)
			stopped = ws[t].stopped;
	}
	sample_merge(&out->sample, samples, 2 * (size_t)c->threads,
		     c->sample_cap, c->seed);
	for (unsigned t = 0; t < c->threads; t++)
		sample_free(&above[t]);
	free(above);
	out->elapsed = (double)(stopped - sh->measure) / 1e9;
	out->start_unix = (double)(sh->start_real + (sh->measure - sh->start))
			  / 1e9;
	if (out->elapsed < 0)
		out->elapsed = 0;
	/* Open model, every one of --requests ended: N requests at R/s are
	 * N slots of 1/R (a segment's, every segments-th), so the interval
	 * is N/R at least, not the time to the last response, (N - 1)/R
	 * and a little: 3 requests at 10/s, answered at once, read 15/s,
	 * 20 read 10.53/s. */
	if (c->rate > 0 && c->requests && out->requests == c->requests) {
		double span = (double)c->requests *
			      (c->segments > 1 ? c->segments : 1) / c->rate;

		if (out->elapsed < span)
			out->elapsed = span;
	}
	free(samples);
}

static void workers_free(struct worker *ws, unsigned n)
{
	for (unsigned t = 0; t < n; t++) {
		struct worker *w = &ws[t];

		for (size_t i = 0; w->conns && i < w->nconns; i++)
			conn_release(w, &w->conns[i]);
		free(w->conns);
		free(w->ready);
		free(w->again);
		free(w->scratch);
		if (w->ep >= 0)
			close(w->ep);
		if (w->st.latency)
			load_stats_free(&w->st);
		hdr_free(w->held);
		if (w->held_sample.a)
			sample_free(&w->held_sample);
	}
	free(ws);
}

int load_run(const struct load_config *c, struct load_stats *out,
	     struct error *e)
{
	struct shared sh = { .c = c };
	struct worker *ws = xcalloc(c->threads, sizeof(*ws));
	unsigned started = 0;
	int ret = -1;

	for (unsigned t = 0; t < c->threads; t++)
		ws[t].ep = -1;
	raise_nofile(c->connections);
	sh.ns_per_req = c->rate > 0 ? 1e9 / c->rate : 0;
	if (c->tls && !(sh.tls = tls_ctx_new(c->insecure, c->connections, e)))
		goto out_free;
	if (workers_init(ws, &sh, e))
		goto out_free;
	pthread_mutex_init(&sh.mu, NULL);
	pthread_cond_init(&sh.cv, NULL);
	for (; started < c->threads; started++) {
		int rc = pthread_create(&ws[started].thread, NULL, worker_main,
					&ws[started]);

		if (rc) {
			error_errno(e, rc, "cannot start a client thread");
			break;
		}
	}
	/* Once every thread is connected, the clock starts for all. */
	pthread_mutex_lock(&sh.mu);
	while (sh.ready < started)
		pthread_cond_wait(&sh.cv, &sh.mu);
	sh.abort = started < c->threads;
	if (!sh.abort) {
		start_clock(&sh);
		pthread_mutex_unlock(&sh.mu);
		wait_until(c, sh.start);
		pthread_mutex_lock(&sh.mu);
	}
	sh.go = true;
	pthread_cond_broadcast(&sh.cv);
	pthread_mutex_unlock(&sh.mu);
	if (!sh.abort)
		watch(ws, &sh, started);
	for (unsigned t = 0; t < started; t++)
		pthread_join(ws[t].thread, NULL);
	pthread_cond_destroy(&sh.cv);
	pthread_mutex_destroy(&sh.mu);
	if (!sh.abort) {
		merge(ws, &sh, out);
		ret = 0;
	}

out_free:
	workers_free(ws, c->threads);
	tls_ctx_free(sh.tls);
	if (ret)	/* threads, descriptors, the TLS library: the machine's */
		error_mark(e, ERROR_ENV);
	return ret;
}

/* The rates of counts of each second (total in all), as load_rates. */
static void rates(const struct load_stats *s, const uint64_t *counts,
		  uint64_t total, double **values, size_t *n)
{
	size_t whole = (size_t)s->elapsed, k = 0;
	double part = s->elapsed - (double)whole;

	*values = NULL;
	*n = 0;
	if (s->elapsed <= 0)
		return;
	if (whole == 0) {
		*values = xmalloc(sizeof(double));
		(*values)[0] = (double)total / s->elapsed;
		*n = 1;
		return;
	}
	*values = xmalloc((whole + 1) * sizeof(double));
	for (size_t i = 0; i < whole; i++)
		(*values)[k++] = i < s->nseconds ? (double)counts[i] : 0;
	if (part >= 0.5)
		(*values)[k++] = (whole < s->nseconds
				  ? (double)counts[whole] : 0) / part;
	*n = k;
}

void load_rates(const struct load_stats *s, double **values, size_t *n)
{
	rates(s, s->per_second, s->ok, values, n);
}

void load_error_rates(const struct load_stats *s, double **values,
		      size_t *n)
{
	rates(s, s->errors_per_second, load_errors_total(s), values, n);
}
