/*
 * The reader thread of the heap collector: it takes the chunks the agent
 * hands over through the shared segment, reads the socket's messages
 * and the processes' connections, and samples the RSS between reads
 * (collect_rss.c), while the main thread waits for the program; after
 * it ended, the records still in the shared slots are taken from there.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "heap/analyze.h"
#include "heap/collect_internal.h"
#include "util/strutil.h"
#include "util/monoclock.h"

/*
 * Walk s's records from where the last walk stopped, keeping where its
 * STACK and PYCODE records are, up to the end or one not all there yet
 * (more may come): while the records are in the cache, and while the
 * program runs, instead of in a pass of the replay's own.
 */
static void stream_scan(struct heap_trace *t, uint32_t i)
{
	struct heap_stream *s = &t->streams[i];
	/* in locals: the stores into s->stacks cannot alias them */
	const uint64_t *words = s->words;
	size_t at = s->scanned, n = s->n;
	uint64_t last = s->last_ts;

	while (at < n) {
		uint64_t w = words[at];
		uint32_t type = (uint32_t)(w >> HEAP_TYPE_SHIFT);

		if (heap_rec_stack(type) || type == HEAP_REC_PYCODE) {
			if (at + heap_rec_words(w) > n)
				break;
			if (t->live) {
				heap_live_record(t->live, i, s->base + at,
						 &words[at]);
			} else {
				s->stacks = xgrow(s->stacks, &s->capstacks,
						  s->nstacks + 1,
						  sizeof(size_t));
				s->stacks[s->nstacks++] = at;
			}
		} else if (type == HEAP_REC_BURST && at + 6 <= n) {
			last = words[at + 5] & HEAP_TS_MASK;
		} else if (type != HEAP_REC_PYCODE) {
			last = w & HEAP_TS_MASK;
		}
		at += heap_rec_words(w);
	}
	s->scanned = at;
	s->last_ts = last;
}

/*
 * Have the kernel put the pages of s after what it holds into memory
 * ahead of the copies, a few MiB with one call, rather than fault them
 * in one page at a time (a long trace is hundreds of MiB).
 */
#define PREFAULT (4u << 20)

static void stream_prefault(struct heap_stream *s)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t at = (uintptr_t)(s->words + s->n), end;
	uintptr_t lo = (uintptr_t)s->faulted, top;

	top = (uintptr_t)(s->words + s->cap) & ~(page - 1);
	if (lo < at || lo > top)
		lo = (at + page - 1) & ~(page - 1);
	if (lo >= top || lo - at >= PREFAULT / 2)
		return;
	end = lo + PREFAULT < top ? lo + PREFAULT : top;
	madvise((void *)lo, end - lo, MADV_POPULATE_WRITE);
	s->faulted = (uint64_t *)end;
}

void heap_stream_add(struct heap_trace *t, uint32_t i, const void *data,
		     size_t bytes)
{
	struct heap_stream *s = &t->streams[i];
	size_t words = bytes / 8;
	uint64_t *was = s->words;

	/* no whole word (an empty chunk: the program can hand one over):
	 * nothing to add, and a stream not yet made has no words to add
	 * them to */
	if (!words)
		return;
	s->words = xgrow(s->words, &s->cap, s->n + words, sizeof(uint64_t));
	if (s->words != was)
		s->faulted = NULL;
	if (s->cap * 8 >= 2 * PREFAULT)
		stream_prefault(s);
	memcpy(s->words + s->n, data, words * 8);
	s->n += words;
	stream_scan(t, i);
}

/*
 * Is the header at p (with its data, if complete) the agent's? 1: a whole
 * message, 0: a plausible header whose data has not all come yet, -1:
 * not a message (what the program wrote into the socket, or a message
 * cut by it).
 */
static int msg_at(const char *p, size_t avail, struct heap_msg_header *h)
{
	if (avail < sizeof(*h))
		return 0;
	memcpy(h, p, sizeof(*h));
	if (h->magic != HEAP_MAGIC || h->len > HEAP_MSG_MAX ||
	    (h->type == HEAP_MSG_CHUNK ? h->slot >= HEAP_SLOTS ||
	     h->len > HEAP_SLOT_BYTES || h->len % 8
	     : h->type != HEAP_MSG_MAPS))
		return -1;
	if (avail - sizeof(*h) < h->len)
		return 0;
	return heap_msg_check(h, p + sizeof(*h)) == h->check ? 1 : -1;
}

/* The bytes at the start of chunk seq of slot i (len bytes) taken
 * already, while it was being filled (live_peek). */
static size_t peeked(struct reader *r, uint32_t i, uint64_t seq, size_t len)
{
	size_t off = r->peek_seq[i] == seq ? r->peek_off[i] : 0;

	return off <= len ? off : len;
}

/* Chunk seq of slot i (not taken before): its records into the stream. */
static void accept_chunk(struct reader *r, uint32_t i, uint64_t seq,
			 const void *data, size_t len)
{
	struct heap_trace *t = r->t;
	size_t skip = peeked(r, i, seq, len);

	/* chunks between were lost: cut by what the program wrote */
	t->lost_chunks += seq - r->next_seq[i];
	heap_stream_add(t, i, (const char *)data + skip, len - skip);
	r->next_seq[i] = seq + 1;
}

/*
 * The chunks of slot i handed over through its ring (protocol.h) and
 * numbered below `below`, in order: only the one expected next, one after
 * the other, or, with skip, also those after a gap (the chunks of the gap
 * were lost). The program can write anything there: every field is read
 * once and bounded, a chunk is copied out before it is looked at, a seq
 * taken before is not taken again. At most two rounds of the ring: a
 * program that keeps marking buffers handed over does not hold the reader
 * here. Notes in r->waiting[i] whether handed-over chunks are left after
 * a gap; returns how many were taken.
 */
static int ring_take(struct reader *r, uint32_t i, uint64_t below,
		     bool skip)
{
	struct heap_slot *s = &r->h->slots[i];
	int taken = 0;

	r->waiting[i] = false;
	for (int round = 0; round < 2 * HEAP_RING; round++) {
		struct heap_chunk *c = NULL;
		uint64_t seq = 0;
		uint32_t len, k;

		for (k = 0; k < HEAP_RING; k++) {
			struct heap_chunk *x = &s->ring[k];
			uint64_t q;

			if (!__atomic_load_n(&x->full, __ATOMIC_ACQUIRE))
				continue;
			q = __atomic_load_n(&x->seq, __ATOMIC_RELAXED);
			if (q < r->next_seq[i]) {
				/* taken before: a copy the program made */
				__atomic_store_n(&x->full, 0,
						 __ATOMIC_RELEASE);
				continue;
			}
			if (q >= below)
				continue;
			if (!c || q < seq) {
				c = x;
				seq = q;
			}
		}
		if (!c)
			return taken;
		if (seq != r->next_seq[i] && !skip) {
			r->waiting[i] = r->look_again = true;
			return taken;
		}
		len = __atomic_load_n(&c->len, __ATOMIC_RELAXED);
		/* a length that cannot be the agent's: the chunk is lost */
		if (len <= HEAP_SLOT_BYTES && len % 8 == 0) {
			accept_chunk(r, i, seq, s->data[c - s->ring], len);
			r->t->bytes_received += len;
		}
		__atomic_store_n(&c->full, 0, __ATOMIC_RELEASE);
		taken++;
	}
	r->waiting[i] = r->look_again = true;
	return taken;
}

/* Take what the agent handed over since the last look. Returns whether
 * anything was there. The slots are looked at only if the header's count
 * moved on (or chunks were left waiting): reading every slot's count
 * touches a page per slot. */
bool heap_take_handed(struct reader *r)
{
	uint64_t all = __atomic_load_n(&r->h->handed, __ATOMIC_ACQUIRE);
	bool any = false;

	if (all == r->handed_all && !r->look_again)
		return false;
	r->handed_all = all;
	r->look_again = false;
	for (uint32_t i = 0; i < HEAP_SLOTS; i++) {
		uint64_t n = __atomic_load_n(&r->h->slots[i].handed,
					     __ATOMIC_ACQUIRE);

		if (n == r->handed[i] && !r->waiting[i])
			continue;
		r->handed[i] = n;
		if (ring_take(r, i, UINT64_MAX, false))
			any = true;
	}
	return any;
}

static void take_chunk(struct reader *r, const struct heap_msg_header *h,
		       const char *data)
{
	struct heap_trace *t = r->t;
	uint32_t i = h->slot;

	/* the chunks handed over before this one was sent come first */
	ring_take(r, i, h->seq, true);
	if (h->seq < r->next_seq[i]) {
		/* sent before: can only be a copy the program made */
		t->garbage_bytes += sizeof(*h) + h->len;
		return;
	}
	accept_chunk(r, i, h->seq, data, h->len);
	/* and those handed over after it, up to a gap */
	ring_take(r, i, UINT64_MAX, false);
}

/*
 * Take the messages at the start of c->buf; at the end (no more will
 * come) also what is left. Bytes that are not a whole message of the
 * agent's are skipped up to the next one and counted.
 */
void heap_parse_messages(struct reader *r, struct conn *c, bool end)
{
	struct heap_trace *t = r->t;
	size_t at = 0;

	while (at < c->len) {
		struct heap_msg_header h;
		const char *data = c->buf + at + sizeof(h);
		int k = msg_at(c->buf + at, c->len - at, &h);

		if (k == 0 && !end)
			break;
		if (k <= 0) {
			/* skip to the next magic number */
			uint32_t magic = HEAP_MAGIC;
			const char *next;
			size_t skip;

			next = memmem(c->buf + at + 1, c->len - at - 1,
				      &magic, sizeof(magic));
			skip = next ? (size_t)(next - (c->buf + at))
				    : c->len - at;
			t->garbage_bytes += skip;
			at += skip;
			continue;
		}
		if (h.type == HEAP_MSG_CHUNK) {
			take_chunk(r, &h, data);
		} else {
			t->maps = xrealloc(t->maps, (t->nmaps + 1) *
					   sizeof(char *));
			t->maps_gen = xrealloc(t->maps_gen, (t->nmaps + 1) *
					       sizeof(uint32_t));
			t->maps_unloads = xrealloc(t->maps_unloads,
						   (t->nmaps + 1) *
						   sizeof(uint32_t));
			t->maps_gen[t->nmaps] = HEAP_MAPS_GEN(h.seq);
			t->maps_unloads[t->nmaps] = HEAP_MAPS_UNLOADS(h.seq);
			t->maps[t->nmaps++] = xstrndup(data, h.len);
		}
		t->bytes_received += sizeof(h) + h.len;
		at += sizeof(h) + h.len;
	}
	if (at)		/* (a connection at its end has no buffer) */
		memmove(c->buf, c->buf + at, c->len - at);
	c->len -= at;
}

/* The segment's descriptor, for an image whose own was closed (agent.c,
 * fetch_segment): a byte and the descriptor. */
static void send_segment(int fd, int shm)
{
	char b = 0, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec v = { &b, 1 };
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	memset(ctl, 0, sizeof(ctl));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &shm, sizeof(shm));
	while (sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
	       errno == EINTR)
		;
}

/* Connections taken in all (each process of the tree connects at most
 * 1 + HEAP_RECONNECTS times) */
#define HEAP_CONNS_MAX 65536

/*
 * A connection of the agent's to the listener: a process of the tree
 * (the program, a child it forked, a process it started with the agent:
 * protocol.h, images), of our user; another user's is closed.
 */
static void accept_conn(struct reader *r)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd = accept4(r->listener, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (r->nconns >= HEAP_CONNS_MAX ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
	    cred.uid != getuid()) {
		close(fd);
		return;
	}
	send_segment(fd, r->shm);
	r->conns = xgrow(r->conns, &r->capconns, (size_t)r->nconns + 1,
			 sizeof(*r->conns));
	r->conns[r->nconns++] = (struct conn){ .fd = fd };
}

/*
 * Read what c holds now, up to a few MiB (the ring is looked at between:
 * heap_reader_main). -1 at its end (EOF), 0 when all of it was read, 1 when
 * there is more. The agent writes to one connection at a time and
 * connects anew only after everything it sent on the one before is in
 * that one: reading the connections oldest first, none before the ones
 * before it are read to the end of what they hold, keeps every slot's
 * chunks in order.
 */
static int read_conn(struct reader *r, struct conn *c)
{
	for (int k = 0; k < 4; k++) {
		ssize_t n;

		c->buf = xgrow(c->buf, &c->cap, c->len + (1 << 20), 1);
		n = recv(c->fd, c->buf + c->len, c->cap - c->len,
			 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 && errno == EAGAIN ? 0 : -1;
		c->len += (size_t)n;
		heap_parse_messages(r, c, false);
	}
	return 1;
}

/* Seconds between looks at the ring (heap_reader_main) */
#define TAKE_MIN 0.0005
#define TAKE_MAX 0.004

/*
 * Read until the program was reaped and the connections are empty. Not
 * until EOF: a process the program started may hold the socket without
 * ever writing (its agent closes it, but a program without the agent
 * would not); what the program itself wrote is in the socket once it is
 * gone.
 */
void *heap_reader_main(void *arg)
{
	struct reader *r = arg;
	double next_rss = 0, next_take = 0, take_every = TAKE_MIN;

	for (;;) {
		struct pollfd *p;
		double now = monoclock_s(), wake;
		bool reaped = r->done;
		struct timespec wait;
		int np = 0;

		if (!reaped && now >= next_rss) {
			heap_sample_rss(r);
			heap_watch_procs(r);
			/* every millisecond at first: short programs too
			 * get an RSS curve */
			next_rss = now + (now - r->t0 < 0.02 ? 0.001
						   : r->rss_interval);
		}
		if (!reaped && now >= next_take) {
			/* often while the agent hands chunks over, less
			 * and less often while it does not */
			take_every = heap_take_handed(r) ? TAKE_MIN
				     : fmin(take_every * 2, TAKE_MAX);
			heap_live_step(r);
			next_take = now + take_every;
		}
		wake = reaped ? now : fmin(next_rss, next_take);
		wait.tv_sec = (time_t)(wake - now);
		wait.tv_nsec = (long)((wake - now - (double)wait.tv_sec) * 1e9);
		r->polls = xgrow(r->polls, &r->cappolls, (size_t)r->nconns + 1,
				 sizeof(*r->polls));
		p = r->polls;
		p[np++] = (struct pollfd){ r->listener, POLLIN, 0 };
		for (int i = 0; i < r->nconns; i++)
			p[np++] = (struct pollfd){ r->conns[i].fd, POLLIN, 0 };
		if (ppoll(p, (nfds_t)np, &wait, NULL) <= 0) {
			if (reaped)
				break;
			continue;
		}
		if (p[0].revents)
			accept_conn(r);
		for (int i = 0; i < r->nconns; i++) {
			struct conn *c = &r->conns[i];
			int k = c->fd >= 0 ? read_conn(r, c) : 0;

			if (k > 0)
				break;	/* the later ones after it */
			if (k < 0) {
				heap_parse_messages(r, c, true);
				close(c->fd);
				c->fd = -1;
				/* all taken: a tree of many processes does not
				 * keep a buffer each */
				free(c->buf);
				c->buf = NULL;
				c->len = c->cap = 0;
			}
		}
	}
	for (int i = 0; i < r->nconns; i++)
		heap_parse_messages(r, &r->conns[i], true);
	heap_watch_procs(r);
	return NULL;
}

/* ---- after the end: what the slots still hold --------------------------- */

/*
 * Was anything ever written in slot i's header (its counts, positions and
 * ring)? The header of a slot no thread took is a hole of the segment's
 * file, all zeros: reading it would only fault in zeroed pages, a page a
 * slot (and free them again when the segment goes). In doubt, yes.
 */
static bool slot_written(const struct reader *r, uint32_t i)
{
	off_t lo = (off_t)offsetof(struct heap_header, slots) +
		   (off_t)i * (off_t)sizeof(struct heap_slot);
	off_t d = lseek(r->shm, lo, SEEK_DATA);

	if (d < 0)
		return errno != ENXIO;
	return d < lo + (off_t)offsetof(struct heap_slot, data);
}

void heap_take_remainders(struct reader *r, struct heap_header *h)
{
	struct heap_trace *t = r->t;

	for (uint32_t i = 0; i < HEAP_SLOTS; i++) {
		struct heap_slot *s = &h->slots[i];
		uint64_t used, seq;
		size_t skip;
		uint32_t cur;

		if (!slot_written(r, i))
			continue;
		used = __atomic_load_n(&s->used, __ATOMIC_ACQUIRE);
		seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		cur = __atomic_load_n(&s->cur, __ATOMIC_ACQUIRE);

		/* handed over and not taken yet, whatever the gaps */
		ring_take(r, i, UINT64_MAX, true);

		t->counts.bytes += s->counts.bytes;
		t->counts.frees += s->counts.frees;
		t->counts.temporary += s->counts.temporary;
		t->counts.dropped += s->counts.dropped;
		for (int k = 0; k < HEAP_HIST; k++) {
			t->counts.hist[k] += s->counts.hist[k];
			t->counts.allocations += s->counts.hist[k];
		}
		/* chunks sent that did not arrive whole */
		if (seq > r->next_seq[i])
			t->lost_chunks += seq - r->next_seq[i];
		if (!used || used > HEAP_SLOT_BYTES || used % 8)
			continue;
		/* sent or handed over just before the program died, seq not
		 * yet moved on (or a number the program wrote there) */
		if (seq < r->next_seq[i])
			continue;
		skip = peeked(r, i, seq, used);
		heap_stream_add(t, i, (const char *)s->data[cur & (HEAP_RING - 1)] +
			   skip, used - skip);
	}
	t->header_damaged = h->magic != HEAP_MAGIC ||
			    h->version != HEAP_VERSION ||
			    h->overflow_threads > (uint32_t)INT_MAX;
	t->overflow_threads = h->overflow_threads;
	t->unwind_failed = h->unwind_failed;
	t->sample_full = h->sample_full;
	t->failed_allocs = h->failed_allocs;
	t->stopped = h->stopped;
	t->py_version = h->py_version;
	t->py_status = h->py_status;
	t->py_malloc = h->py_malloc;
	t->agent_started = h->owner_pid != 0;
	/* the images of the tree (protocol.h), as many as were numbered */
	t->nimages = __atomic_load_n(&h->generation, __ATOMIC_ACQUIRE);
	t->images_lost = t->nimages >= HEAP_IMAGES ?
			 t->nimages - (HEAP_IMAGES - 1) : 0;
	t->nimages = t->nimages >= HEAP_IMAGES ? HEAP_IMAGES : t->nimages + 1;
	t->images = xcalloc(t->nimages, sizeof(*t->images));
	memcpy(t->images, h->images, t->nimages * sizeof(*t->images));
	if ((double)h->exit_hwm > t->hwm)
		t->hwm = (double)h->exit_hwm;
}

bool heap_trace_incomplete(const struct heap_trace *t)
{
	return t->stopped || t->lost_chunks || t->counts.dropped ||
	       t->overflow_threads || t->header_damaged;
}

int heap_failed_allocs_note(const struct heap_trace *t, char *buf,
			    size_t size)
{
	if (!t->failed_allocs)
		return 0;
	snprintf(buf, size, "%llu allocation call%s returned NULL: the "
		 "program ran out of memory (the heap agent's %zu MiB of "
		 "shared memory count in its address space: a limit such as "
		 "RLIMIT_AS comes sooner under mem)",
		 (unsigned long long)t->failed_allocs,
		 plural_s(t->failed_allocs), sizeof(struct heap_header) >> 20);
	return 1;
}
