/*
 * Running a program under the heap agent and taking in its records: see
 * collect.h. One thread takes the chunks the agent hands over through the
 * shared segment, reads the socket (and samples the RSS between reads)
 * while the main thread waits for the program; after it ended, the
 * records still in the shared slots are taken from there.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "config.h"
#include "heap/collect.h"
#include "util/child.h"
#include "util/fileio.h"
#include "util/strutil.h"
#include "util/monoclock.h"

#define AGENT_NAME "libyardstick-heap.so"

char *heap_find_agent(struct error *e)
{
	return find_helper(AGENT_NAME, "YARDSTICK_HEAP_AGENT", R_OK, e);
}

/* The interpreter of a #! script, into buf, or false. */
static bool script_interpreter(const char *head, size_t n, char *buf,
			       size_t len)
{
	size_t i = 2, j = 0;

	if (n < 3 || head[0] != '#' || head[1] != '!')
		return false;
	while (i < n && (head[i] == ' ' || head[i] == '\t'))
		i++;
	while (i < n && j + 1 < len && head[i] != ' ' && head[i] != '\t' &&
	       head[i] != '\n')
		buf[j++] = head[i++];
	buf[j] = '\0';
	return j > 0;
}

static const char *elf_unpreloadable(int fd, const unsigned char *head,
				     size_t n)
{
	Elf64_Ehdr eh;

	if (n < sizeof(eh))
		return NULL;
	memcpy(&eh, head, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64)
		return "it is a 32-bit program and the agent is 64-bit";
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
			  (uint64_t)i * eh.e_phentsize)) != sizeof(ph))
			return NULL;
		if (ph.p_type == PT_INTERP)
			return NULL;
	}
	return "it is statically linked: there is no dynamic loader to "
	       "preload the agent with";
}

const char *heap_unpreloadable(const char *path)
{
	unsigned char head[256];
	char interp[PATH_MAX];
	const char *why = NULL;
	struct stat st;
	ssize_t n;
	int fd;

	for (int depth = 0; depth < 4; depth++) {
		if (stat(path, &st))
			return NULL;
		if (st.st_mode & (S_ISUID | S_ISGID))
			return "it is set-user-ID or set-group-ID: the dynamic "
			       "loader ignores LD_PRELOAD for it";
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return NULL;
		n = pread(fd, head, sizeof(head), 0);
		if (n >= 4 && !memcmp(head, ELFMAG, SELFMAG)) {
			why = elf_unpreloadable(fd, head, (size_t)n);
			close(fd);
			return why;
		}
		close(fd);
		if (n <= 0 || !script_interpreter((char *)head, (size_t)n,
						  interp, sizeof(interp)))
			return NULL;
		path = interp;
	}
	return NULL;
}

/* ---- the clock ---------------------------------------------------------- */

/* Is the TSC the same clock on every CPU, at a constant rate? */
static bool tsc_invariant(void)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool constant = false, nonstop = false;

	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, "flags", 5))
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(fp);
	return constant && nonstop;
}

/* ---- the reader thread -------------------------------------------------- */

struct reader {
	struct heap_trace *t;
	int sock;
	pid_t pid;
	double t0, rss_interval;
	long page;
	_Atomic int done;	/* 1: the program was reaped */
	struct heap_header *h;	/* the segment (what is in it: protocol.h) */
	uint64_t handed[HEAP_SLOTS];	/* the slot's count when last looked */
	bool waiting[HEAP_SLOTS];	/* chunks handed over after a gap */
	bool look_again;	/* one of waiting[] was set */
	uint64_t handed_all;	/* the header's count when last looked */
	uint64_t next_seq[HEAP_SLOTS];	/* the chunk expected next */
	int listener;		/* where the agent connects again */
	int status, statm;	/* /proc/PID/status and statm, read again
				 * and again (sample_rss) */
	unsigned long nsamples;	/* of the RSS */
	int shm;		/* the segment, sent on each connection */
	struct conn {
		int fd;
		char *buf;
		size_t len, cap;
	} *conns;		/* oldest first: [0] the socket the program
				 * inherited, then the connections of the
				 * processes of the tree */
	int nconns;
	size_t capconns;
	struct pollfd *polls;
	size_t cappolls;
	/* the processes of the tree seen alive (watch_procs) */
	struct watch {
		pid_t pid;
		unsigned long long start;	/* its start time (stat) */
	} *watch;
	size_t nwatch, capwatch;
	uint32_t watched;	/* images looked at */
};

/*
 * Walk s's records from where the last walk stopped, keeping where its
 * STACK and PYCODE records are, up to the end or one not all there yet
 * (more may come): while the records are in the cache, and while the
 * program runs, instead of in a pass of the replay's own.
 */
static void stream_scan(struct heap_stream *s)
{
	/* in locals: the stores into s->stacks cannot alias them */
	const uint64_t *words = s->words;
	size_t at = s->scanned, n = s->n;

	while (at < n) {
		uint64_t w = words[at];

		if (w >> HEAP_TYPE_SHIFT == HEAP_REC_STACK ||
		    w >> HEAP_TYPE_SHIFT == HEAP_REC_PYCODE) {
			if (at + heap_rec_words(w) > n)
				break;
			s->stacks = xgrow(s->stacks, &s->capstacks,
					  s->nstacks + 1, sizeof(size_t));
			s->stacks[s->nstacks++] = at;
		}
		at += heap_rec_words(w);
	}
	s->scanned = at;
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

static void stream_add(struct heap_stream *s, const void *data, size_t bytes)
{
	size_t words = bytes / 8;
	uint64_t *was = s->words;

	s->words = xgrow(s->words, &s->cap, s->n + words, sizeof(uint64_t));
	if (s->words != was)
		s->faulted = NULL;
	if (s->cap * 8 >= 2 * PREFAULT)
		stream_prefault(s);
	memcpy(s->words + s->n, data, words * 8);
	s->n += words;
	stream_scan(s);
}

/* A "Name:   1234 kB" line of /proc/PID/status, in bytes; -1 if absent. */
static double status_kb(const char *buf, const char *name)
{
	const char *p = strstr(buf, name);

	return p ? strtod(p + strlen(name), NULL) * 1024 : -1;
}

/*
 * /proc/PID/NAME into buf (NUL-terminated) through *fd, opened the first
 * time and read from the start each time after (the kernel writes it
 * anew). Its length, or -1.
 */
static ssize_t proc_read_again(const struct reader *r, int *fd,
			       const char *name, char *buf, size_t size)
{
	ssize_t n;

	if (*fd < 0) {
		snprintf(buf, size, "/proc/%d/%s", (int)r->pid, name);
		*fd = open(buf, O_RDONLY | O_CLOEXEC);
		if (*fd < 0)
			return -1;
	}
	n = pread(*fd, buf, size - 1, 0);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* status is read for VmHWM every HWM_EVERY samples only */
#define HWM_EVERY 10

/*
 * The RSS now (for the timeline), from statm: its resident pages are
 * status's VmRSS, for a tenth of the cost. The peak so far: the RSS seen,
 * and now and then VmHWM (the agent reads the exact one at a normal exit).
 */
static void sample_rss(struct reader *r)
{
	char buf[4096];
	struct heap_trace *t = r->t;
	unsigned long long pages;
	double rss, hwm;

	if (proc_read_again(r, &r->statm, "statm", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%*s %llu", &pages) != 1 || !pages)
		return;		/* a zombie has no memory left */
	rss = (double)pages * (double)r->page;
	if (rss > t->hwm)
		t->hwm = rss;
	if (r->nsamples++ % HWM_EVERY == 0 &&
	    proc_read_again(r, &r->status, "status", buf, sizeof(buf)) > 0 &&
	    (hwm = status_kb(buf, "\nVmHWM:")) > t->hwm)
		t->hwm = hwm;
	t->rss = xgrow(t->rss, &t->caprss, t->nrss + 1, sizeof(*t->rss));
	t->rss[t->nrss].t = monoclock_s() - r->t0;
	t->rss[t->nrss].bytes = rss;
	t->nrss++;
}

/* A live process's start time (clock ticks since boot), 0 when it is gone
 * or a zombie. */
static unsigned long long proc_start(pid_t pid)
{
	char path[64], buf[1024], state;
	unsigned long long start;
	const char *p;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (heap_read_proc(path, buf, sizeof(buf)) <= 0 ||
	    !(p = strrchr(buf, ')')) ||
	    sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u "
		   "%*u %*d %*d %*d %*d %*d %*d %llu%n", &state, &start,
		   &n) != 2 || !n)
		return 0;
	return state == 'Z' || state == 'X' ? 0 : start + 1;
}

/*
 * Process pid ended: it can write no more, so the slots its threads held
 * go back (records and all: the next owner appends after them, as after
 * a thread's end), else a tree of many short processes would run out.
 */
static void proc_ended(struct reader *r, pid_t pid)
{
	struct heap_trace *t = r->t;

	for (uint32_t i = 0; i < HEAP_SLOTS; i++) {
		uint32_t owned = 1;

		/* owned, by pid (an owner clears pid before it lets go, and
		 * sets it right after it took the slot: a pid of a process
		 * gone on an owned slot is that process's) */
		if (__atomic_load_n(&r->h->slots[i].state, __ATOMIC_ACQUIRE) ==
		    1 && __atomic_load_n(&r->h->slots[i].pid,
					 __ATOMIC_ACQUIRE) == pid)
			__atomic_compare_exchange_n(&r->h->slots[i].state,
						    &owned, 0, false,
						    __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED);
	}

	t->ends = xgrow(t->ends, &t->capends, t->nends + 1, sizeof(*t->ends));
	t->ends[t->nends++] = (struct heap_end){ pid, monoclock_s() - r->t0 };
}

/*
 * The processes of the tree other than the program (protocol.h, images):
 * the new ones watched, the end of each watched one noted (gone, a
 * zombie, or its pid another process's), so that the tree's heap loses a
 * process's blocks when it ends (analyze.c).
 */
static void watch_procs(struct reader *r)
{
	uint32_t n = __atomic_load_n(&r->h->generation, __ATOMIC_ACQUIRE);

	if (n >= HEAP_IMAGES)
		n = HEAP_IMAGES - 1;
	for (size_t i = 0; i < r->nwatch; ) {
		if (proc_start(r->watch[i].pid) == r->watch[i].start) {
			i++;
			continue;
		}
		proc_ended(r, r->watch[i].pid);
		r->watch[i] = r->watch[--r->nwatch];
	}
	for (; r->watched < n; r->watched++) {
		pid_t pid = __atomic_load_n(&r->h->images[r->watched + 1].pid,
					    __ATOMIC_ACQUIRE);
		unsigned long long start;
		bool known = false;

		if (!pid)
			break;	/* its agent is writing it: next time */
		if (pid == r->pid || pid < 0)
			continue;
		for (size_t i = 0; i < r->nwatch && !known; i++)
			known = r->watch[i].pid == pid;
		if (known)
			continue;	/* an exec of a watched one */
		start = proc_start(pid);
		if (!start) {
			proc_ended(r, pid);
			continue;
		}
		r->watch = xgrow(r->watch, &r->capwatch, r->nwatch + 1,
				 sizeof(*r->watch));
		r->watch[r->nwatch++] = (struct watch){ pid, start };
	}
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

/* Chunk seq of slot i (not taken before): its records into the stream. */
static void accept_chunk(struct reader *r, uint32_t i, uint64_t seq,
			 const void *data, size_t len)
{
	struct heap_trace *t = r->t;

	/* chunks between were lost: cut by what the program wrote */
	t->lost_chunks += seq - r->next_seq[i];
	stream_add(&t->streams[i], data, len);
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
static bool take_handed(struct reader *r)
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
static void parse_messages(struct reader *r, struct conn *c, bool end)
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
			t->maps_gen[t->nmaps] = (uint32_t)h.seq;
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
 * reader_main). -1 at its end (EOF), 0 when all of it was read, 1 when
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
		parse_messages(r, c, false);
	}
	return 1;
}

/* Seconds between looks at the ring (reader_main) */
#define TAKE_MIN 0.0005
#define TAKE_MAX 0.004

/*
 * Read until the program was reaped and the connections are empty. Not
 * until EOF: a process the program started may hold the socket without
 * ever writing (its agent closes it, but a program without the agent
 * would not); what the program itself wrote is in the socket once it is
 * gone.
 */
static void *reader_main(void *arg)
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
			sample_rss(r);
			watch_procs(r);
			/* every millisecond at first: short programs too
			 * get an RSS curve */
			next_rss = now + (now - r->t0 < 0.02 ? 0.001
						   : r->rss_interval);
		}
		if (!reaped && now >= next_take) {
			/* often while the agent hands chunks over, less
			 * and less often while it does not */
			take_every = take_handed(r) ? TAKE_MIN
				     : fmin(take_every * 2, TAKE_MAX);
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
				parse_messages(r, c, true);
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
		parse_messages(r, &r->conns[i], true);
	watch_procs(r);
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

static void take_remainders(struct reader *r, struct heap_header *h)
{
	struct heap_trace *t = r->t;

	for (uint32_t i = 0; i < HEAP_SLOTS; i++) {
		struct heap_slot *s = &h->slots[i];
		uint64_t used, seq;
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
		stream_add(&t->streams[i], s->data[cur & (HEAP_RING - 1)],
			   used);
	}
	t->header_damaged = h->magic != HEAP_MAGIC ||
			    h->version != HEAP_VERSION ||
			    h->overflow_threads > (uint32_t)INT_MAX;
	t->overflow_threads = h->overflow_threads;
	t->unwind_failed = h->unwind_failed;
	t->sample_full = h->sample_full;
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

/* ---- spawning ----------------------------------------------------------- */

/* The environment the program gets on top of ours (child.h, env_add):
 * LD_PRELOAD naming the agent first, and our variable. */
static void child_env(char *add[3], const char *agent, int shm, int sock,
		      unsigned long long ino, unsigned long long sino,
		      const char *name)
{
	const char *preload = getenv("LD_PRELOAD");

	add[0] = preload && *preload
		? xasprintf("LD_PRELOAD=%s:%s", agent, preload)
		: xasprintf("LD_PRELOAD=%s", agent);
	add[1] = xasprintf("%s=%d,%d,%llu,%llu,%s", HEAP_ENV, shm, sock, ino,
			   sino, name);
	add[2] = NULL;
}

/*
 * The descriptor numbers the agent gets: high, out of the way of the
 * program's own (which takes the lowest free ones), below the limit.
 */
static void agent_fds(int *shm, int *sock)
{
	struct rlimit rl;
	long top = 1024;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)top)
		top = (long)rl.rlim_cur;
	*shm = (int)top - 2;
	*sock = (int)top - 1;
}

/*
 * The buffers of each slot's ring the agent is to use: HEAP_RING, or
 * YARDSTICK_HEAP_RING (1 to HEAP_RING; 1: every chunk through the socket,
 * to try that path).
 */
static bool ring_buffers(uint32_t *n, struct error *e)
{
	const char *v = getenv("YARDSTICK_HEAP_RING");
	char *end;
	long k;

	*n = HEAP_RING;
	if (!v)
		return true;
	errno = 0;
	k = strtol(v, &end, 10);
	if (errno || end == v || *end || k < 1 || k > HEAP_RING) {
		error_set(e, "YARDSTICK_HEAP_RING: expected 1 to %d, got '%s'",
			  HEAP_RING, v);
		return false;
	}
	*n = (uint32_t)k;
	return true;
}

static struct heap_header *make_segment(const struct heap_opts *o, int *fd,
					struct error *e)
{
	struct heap_header *h;
	uint32_t ring;

	if (!ring_buffers(&ring, e))
		return NULL;

	*fd = memfd_create("yardstick-heap", MFD_CLOEXEC);
	if (*fd < 0) {
		error_errno(e, errno, "cannot create the heap agent's memory");
		return NULL;
	}
	if (ftruncate(*fd, sizeof(*h))) {
		error_errno(e, errno, "cannot size the heap agent's memory");
		return NULL;
	}
	h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (h == MAP_FAILED) {
		error_errno(e, errno, "cannot map the heap agent's memory");
		return NULL;
	}
	h->magic = HEAP_MAGIC;
	h->version = HEAP_VERSION;
	h->sample_bytes = o->sample_bytes;
	h->unwind = o->unwind;
	h->max_depth = o->max_depth;
	h->ring = ring;
	h->python = o->python;
	return h;
}

/*
 * The segment read-only, for the program (protocol.h): a new open of the
 * memfd through /proc. Without /proc, shm itself.
 */
static int readonly_fd(int shm)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", shm);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : fcntl(shm, F_DUPFD_CLOEXEC, 0);
}

static int start(const struct heap_opts *o, struct child *c,
		 struct heap_header *h, int shm, int sock[2], const char *name,
		 struct heap_trace *t, struct error *e)
{
	int bufsize = 4 << 20, ro = readonly_fd(shm), to[2];
	struct child_fd_map maps[2];
	struct stat st, sst;
	char *env[3];
	int r;

	if (ro < 0 || fstat(ro, &st)) {
		r = error_errno(e, errno, "cannot pass the heap agent its "
				"descriptors");
		goto out;
	}
	setsockopt(sock[0], SOL_SOCKET, SO_RCVBUF, &bufsize, sizeof(bufsize));
	setsockopt(sock[1], SOL_SOCKET, SO_SNDBUF, &bufsize, sizeof(bufsize));
	h->clock = tsc_invariant() ? 1 : 0;
	agent_fds(&to[0], &to[1]);
	t->shm_fd = to[0];
	t->sock_fd = to[1];
	if (fstat(sock[1], &sst)) {
		r = error_errno(e, errno, "cannot pass the heap agent its "
				"descriptors");
		goto out;
	}
	child_env(env, o->agent, to[0], to[1], (unsigned long long)st.st_ino,
		  (unsigned long long)sst.st_ino, name);
	/* the segment and the socket at the agent's numbers; in our process
	 * group, so that a terminal's Ctrl-C reaches the program */
	maps[0] = (struct child_fd_map){ ro, to[0] };
	maps[1] = (struct child_fd_map){ sock[1], to[1] };
	c->env_add = (const char *const *)env;
	c->maps = maps;
	c->nmaps = 2;
	if (o->stdout_to_stderr) {
		c->io[1] = CHILD_IO_FD;
		c->fd[1] = STDERR_FILENO;
	}
	t->ts0 = h->clock ? (__rdtsc() & HEAP_TS_MASK)
			  : ((uint64_t)(monoclock_s() * 1e9) & HEAP_TS_MASK);
	r = child_start(c, e);
	t->pid = c->pid;
	c->env_add = NULL;
	c->maps = NULL;
	free(env[0]);
	free(env[1]);
out:
	close(sock[1]);
	sock[1] = -1;
	if (ro >= 0)
		close(ro);
	return r;
}

/* The TSC's rate from two readings of both clocks around the run. */
static void calibrate(struct heap_trace *t, const struct heap_header *h,
		      double s0, double s1)
{
	uint64_t tsc1 = __rdtsc() & HEAP_TS_MASK;

	t->ticks_per_s = 1e9;
	if (h->clock && s1 > s0 && tsc1 > t->ts0)
		t->ticks_per_s = (double)(tsc1 - t->ts0) / (s1 - s0);
}

/*
 * The listening socket the agent connects to again (protocol.h), at an
 * abstract name of its own (random: other users' processes see the names
 * in /proc/net/unix, and a connection from any process but the traced
 * one is refused), into name. -1 with a message on failure.
 */
static int make_listener(char *name, struct error *e)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	unsigned char rnd[8] = { 0 };
	size_t len;
	int fd;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		uint64_t x = (uint64_t)monoclock_s() * 1e9 * 0x9e3779b97f4a7c15u;

		memcpy(rnd, &x, sizeof(rnd));
	}
	snprintf(name, HEAP_NAME_MAX + 1, "yardstick-heap-%d-"
		 "%02x%02x%02x%02x%02x%02x%02x%02x", (int)getpid(), rnd[0],
		 rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
	len = strlen(name);
	memcpy(a.sun_path + 1, name, len);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a,
			   (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				       1 + len)) || listen(fd, 128)) {
		error_errno(e, errno, "cannot create the heap agent's socket");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int heap_collect(const struct heap_opts *o, const char *path,
		 char *const *argv, struct heap_trace *t, struct error *e)
{
	struct reader r = { .t = t, .listener = -1, .status = -1,
			    .statm = -1 };
	char name[HEAP_NAME_MAX + 1];
	struct heap_header *h;
	struct sigaction ign, old_quit;
	struct child c = { .path = path, .argv = argv,
			   .interrupt = o->interrupt };
	sigset_t stops, old_mask;
	pthread_t thread;
	int shm = -1, sock[2] = { -1, -1 }, ret = -1;
	double s0, t_maxrss;

	memset(t, 0, sizeof(*t));
	t->sample_bytes = o->sample_bytes;
	t->max_depth = o->max_depth;
	h = make_segment(o, &shm, e);
	if (!h)
		goto out;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock)) {
		error_errno(e, errno, "cannot create the heap agent's socket");
		goto out;
	}
	r.listener = make_listener(name, e);
	if (r.listener < 0)
		goto out;
	/* A terminal's Ctrl-\ is for the program: yardstick stays to
	 * report. Its Ctrl-C reaches both: the caller's stop handler
	 * (stop.h) sets o->interrupt, and the program is killed. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGQUIT, &ign, &old_quit);
	s0 = monoclock_s();
	if (start(o, &c, h, shm, sock, name, t, e))
		goto out_signals;
	r.shm = shm;
	r.h = h;
	r.conns = xgrow(NULL, &r.capconns, 1, sizeof(*r.conns));
	r.conns[0] = (struct conn){ .fd = sock[0] };
	sock[0] = -1;
	r.nconns = 1;
	r.pid = t->pid;
	r.t0 = s0;
	r.rss_interval = o->rss_interval > 0 ? o->rss_interval : 0.01;
	r.page = sysconf(_SC_PAGESIZE);
	/* the stop signals must reach this thread, which waits */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stops, &old_mask);
	if (pthread_create(&thread, NULL, reader_main, &r)) {
		pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
		error_set(e, "cannot start the heap reader thread");
		child_kill(&c);
		goto out_signals;
	}
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	if (child_wait(&c, e)) {
		r.done = 1;
		pthread_join(thread, NULL);
		goto out_signals;
	}
	t->status = c.status;
	t->interrupted = c.interrupted;
	t->strays = c.strays;
	memcpy(t->stray_names, c.stray_names, sizeof(t->stray_names));
	t->duration = monoclock_s() - s0;
	t_maxrss = (double)c.ru.ru_maxrss * 1024;
	r.done = 1;
	pthread_join(thread, NULL);
	calibrate(t, h, s0, s0 + t->duration);
	take_remainders(&r, h);
	/* wait4's figure includes the memory of yardstick, which the child
	 * shared until its exec: the program's own is its VmHWM, read by the
	 * agent at exit and sampled from /proc while it ran */
	t->peak_rss = t->hwm > 0 ? t->hwm : t_maxrss;
	ret = 0;
out_signals:
	sigaction(SIGQUIT, &old_quit, NULL);
out:
	for (int i = 0; i < r.nconns; i++) {
		if (r.conns[i].fd >= 0)
			close(r.conns[i].fd);
		free(r.conns[i].buf);
	}
	free(r.conns);
	free(r.polls);
	free(r.watch);
	if (r.listener >= 0)
		close(r.listener);
	if (r.status >= 0)
		close(r.status);
	if (r.statm >= 0)
		close(r.statm);
	if (h && h != MAP_FAILED)
		munmap(h, sizeof(*h));
	for (int i = 0; i < 2; i++)
		if (sock[i] >= 0)
			close(sock[i]);
	if (shm >= 0)
		close(shm);
	return ret;
}

void heap_trace_free(struct heap_trace *t)
{
	for (int i = 0; i < HEAP_SLOTS; i++) {
		free(t->streams[i].words);
		free(t->streams[i].stacks);
	}
	for (size_t i = 0; i < t->nmaps; i++)
		free(t->maps[i]);
	free(t->maps);
	free(t->maps_gen);
	free(t->rss);
	free(t->images);
	free(t->ends);
	memset(t, 0, sizeof(*t));
}
