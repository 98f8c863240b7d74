/*
 * Zones, marks, counters, async spans and thread names: the writer side
 * of the zone buffer (the protocol and its invariants: util/zonebuf.h).
 *
 * Tracing is on only when a reader started the program with
 * YARDSTICK_TRACE_FD naming a valid buffer: the constructor maps it and
 * sets ys__trace_on, which the header's inline functions test before
 * calling in here; otherwise nothing here runs.
 *
 * The one place of libyardstick with thread-locals on the hot path: each
 * thread's slot and write position (initial-exec TLS, no allocation and
 * no lock after the thread's first event, which claims the slot with one
 * atomic increment). Only the owning thread writes a slot; the reader
 * follows its committed offset.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/lib_internal.h"
#include "util/zonebuf.h"

int ys__trace_on;

/* ys_zone.id of a zone whose BEGIN was not recorded */
#define ZONE_LOST UINT32_MAX
/* ys__site.id of a site that found no name slot */
#define NAME_NONE UINT32_MAX
/* zones deeper than this are assumed recorded when text comes */
#define DEPTH_BITS 64

/* the layout, copied at attach (never re-read from the shared memory) */
static struct {
	struct zb_header *hdr;
	char *threads, *names;
	uint32_t nthreads, thread_bytes, nnames;
	int tsc;
} zb;

struct tstate {
	struct zb_thread *slot;	/* NULL: none claimed yet */
	char *recs;
	uint64_t pos, cap;	/* bytes written, room for records */
	uint32_t open;		/* recorded zones open (ENDs reserved) */
	uint32_t depth;		/* all zones open, recorded or not */
	uint64_t lostbits;	/* bit d: the zone at depth d was lost */
	int noslot;		/* found none: events go to lost_nobuf */
};

static __thread struct tstate ts __attribute__((tls_model("initial-exec")));

static inline uint64_t now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (zb.tsc) {
		uint32_t lo, hi;

		__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		return ((uint64_t)hi << 32) | lo;
	}
#endif
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static struct tstate *claim(struct tstate *t)
{
	uint32_t i;
	struct zb_thread *slot;

	if (t->noslot)
		return NULL;
	i = __atomic_fetch_add(&zb.hdr->next_thread, 1, __ATOMIC_RELAXED);
	if (i >= zb.nthreads) {
		t->noslot = 1;
		return NULL;
	}
	slot = (struct zb_thread *)(zb.threads + (uint64_t)i * zb.thread_bytes);
	/* the slot's pages now, not one fault per 4 KiB of records later
	 * (Linux 5.14; older kernels fault them in as they are written) */
	madvise(slot, zb.thread_bytes, MADV_POPULATE_WRITE);
	slot->pid = getpid();
	slot->tid = gettid();
	__atomic_store_n(&slot->claimed, 1, __ATOMIC_RELEASE);
	t->recs = (char *)(slot + 1);
	t->cap = zb.thread_bytes - sizeof *slot;
	t->pos = 0;
	t->slot = slot;
	return t;
}

/* The calling thread's state, its slot claimed; NULL: it has none. */
static inline struct tstate *self(void)
{
	struct tstate *t = &ts;

	if (__builtin_expect(t->slot != NULL, 1))
		return t;
	return claim(t);
}

static void lost(struct tstate *t)
{
	if (t)
		__atomic_store_n(&t->slot->lost, t->slot->lost + 1,
				 __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&zb.hdr->lost_nobuf, 1, __ATOMIC_RELAXED);
}

static uint32_t site_id(ys__site *site, const char *name)
{
	uint32_t id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE), i, want;
	struct zb_name *n;
	size_t len;

	if (__builtin_expect(id != 0, 1))
		return id;
	i = __atomic_fetch_add(&zb.hdr->next_name, 1, __ATOMIC_RELAXED);
	if (i >= zb.nnames) {
		__atomic_fetch_add(&zb.hdr->lost_names, 1, __ATOMIC_RELAXED);
		want = NAME_NONE;
	} else {
		n = (struct zb_name *)(zb.names + (uint64_t)i * ZB_NAME_BYTES);
		len = name ? strnlen(name, sizeof n->text - 1) : 0;
		memcpy(n->text, name ? name : "", len);
		n->text[len] = 0;
		__atomic_store_n(&n->len, (uint32_t)len + 1, __ATOMIC_RELEASE);
		want = i + 1;
	}
	/* a racing thread may have registered the site: its id wins */
	if (__atomic_compare_exchange_n(&site->id, &id, want, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return want;
	return id;
}

/* Room for a record of size bytes plus the reserved ENDs (and ends more)?
 * Then write its header and return it; else count it lost. */
static inline struct zb_rec *reserve(struct tstate *t, size_t size,
				     uint32_t ends)
{
	if (t->pos + size + (uint64_t)(t->open + ends) * sizeof(struct zb_rec)
	    > t->cap) {
		lost(t);
		return NULL;
	}
	return (struct zb_rec *)(t->recs + t->pos);
}

static inline void commit(struct tstate *t, struct zb_rec *r, unsigned type,
			  size_t size, uint32_t name, uint64_t stamp)
{
	r->type = (uint8_t)type;
	r->flags = 0;
	r->size = (uint16_t)size;
	r->name = name;
	r->ts = stamp;
	t->pos += size;
	__atomic_store_n(&t->slot->committed, t->pos, __ATOMIC_RELEASE);
}

static inline void mark_depth(struct tstate *t, int lostzone)
{
	if (t->depth < DEPTH_BITS) {
		if (lostzone)
			t->lostbits |= (uint64_t)1 << t->depth;
		else
			t->lostbits &= ~((uint64_t)1 << t->depth);
	}
	t->depth++;
}

uint32_t ys__zbegin(ys__site *site, const char *name)
{
	struct tstate *t = self();
	uint32_t id;
	struct zb_rec *r;

	if (!t) {
		lost(NULL);
		return ZONE_LOST;
	}
	id = site_id(site, name);
	if (id == NAME_NONE || !(r = reserve(t, sizeof *r, 1))) {
		if (id == NAME_NONE)
			lost(t);
		mark_depth(t, 1);
		return ZONE_LOST;
	}
	mark_depth(t, 0);
	t->open++;
	commit(t, r, ZB_BEGIN, sizeof *r, id, now());
	return id;
}

void ys__zend(uint32_t id)
{
	uint64_t stamp = now();
	struct tstate *t = &ts;

	if (!t->slot) {
		/* no slot, or a zone begun before fork() in the parent */
		if (t->noslot)
			lost(NULL);
		return;
	}
	if (t->depth == 0)
		return;		/* begun before fork(): not this process's */
	t->depth--;
	if (id == ZONE_LOST) {
		lost(t);
		return;
	}
	if (t->open == 0)
		return;
	t->open--;
	/* the END's room was reserved at its BEGIN */
	commit(t, (struct zb_rec *)(t->recs + t->pos), ZB_END, sizeof(struct zb_rec),
	       id, stamp);
}

/* Is the innermost open zone recorded (text and values go to it)? */
static int inner_recorded(const struct tstate *t)
{
	if (t->depth == 0 || t->open == 0)
		return 0;
	if (t->depth > DEPTH_BITS)
		return 1;
	return !((t->lostbits >> (t->depth - 1)) & 1);
}

/* A record with a payload of plen bytes (padded to 8 with zeros). */
static void put(struct tstate *t, unsigned type, uint32_t name,
		const void *payload, size_t plen, uint64_t stamp)
{
	size_t size = sizeof(struct zb_rec) + ((plen + 7) & ~(size_t)7);
	struct zb_rec *r = reserve(t, size, 0);
	char *p;

	if (!r)
		return;
	p = (char *)(r + 1);
	memcpy(p, payload, plen);
	memset(p + plen, 0, size - sizeof *r - plen);
	commit(t, r, type, size, name, stamp);
}

static void put_text(struct tstate *t, unsigned type, uint32_t name,
		     const char *text, uint64_t stamp)
{
	put(t, type, name, text ? text : "",
	    text ? strnlen(text, ZB_TEXT_MAX) : 0, stamp);
}

void ys__ztext(const char *text)
{
	uint64_t stamp = now();
	struct tstate *t = self();

	if (!t || !inner_recorded(t)) {
		lost(t);
		return;
	}
	put_text(t, ZB_TEXT, 0, text, stamp);
}

void ys__zvalue(int64_t value)
{
	uint64_t stamp = now();
	struct tstate *t = self();

	if (!t || !inner_recorded(t)) {
		lost(t);
		return;
	}
	put(t, ZB_VALUE, 0, &value, sizeof value, stamp);
}

/* The thread and the site's name id of an event; NULL: counted lost. */
static struct tstate *event_of(ys__site *site, const char *name,
			       uint32_t *id)
{
	struct tstate *t = self();

	if (!t) {
		lost(NULL);
		return NULL;
	}
	*id = site_id(site, name);
	if (*id == NAME_NONE) {
		lost(t);
		return NULL;
	}
	return t;
}

void ys__mark(ys__site *site, const char *name, const char *text)
{
	uint64_t stamp = now();
	uint32_t id;
	struct tstate *t = event_of(site, name, &id);

	if (t)
		put_text(t, ZB_MARK, id, text, stamp);
}

void ys__counter(ys__site *site, const char *name, double value)
{
	uint64_t stamp = now();
	uint32_t id;
	struct tstate *t = event_of(site, name, &id);

	if (t)
		put(t, ZB_COUNTER, id, &value, sizeof value, stamp);
}

void ys__async(ys__site *site, const char *name, uint64_t aid, int end)
{
	uint64_t stamp = now();
	uint32_t id;
	struct tstate *t = event_of(site, name, &id);

	if (t)
		put(t, end ? ZB_ASYNC_END : ZB_ASYNC_BEGIN, id, &aid,
		    sizeof aid, stamp);
}

void ys__thread_name(const char *name)
{
	uint64_t stamp = now();
	struct tstate *t = self();
	size_t len;

	if (!t) {
		lost(NULL);
		return;
	}
	len = name ? strnlen(name, sizeof t->slot->name - 1) : 0;
	/* the slot's copy is read even when its records are full */
	memcpy(t->slot->name, name ? name : "", len);
	t->slot->name[len] = 0;
	put(t, ZB_THREAD_NAME, 0, t->slot->name, len, stamp);
}

/* After fork(), the child's only thread starts afresh: its own slot
 * (with its own pid) at its next event. */
static void after_fork_child(void)
{
	memset(&ts, 0, sizeof ts);
}

static int parse_fd(const char *v)
{
	char *end;
	long fd;

	if (!v || !*v)
		return -1;
	fd = strtol(v, &end, 10);
	if (*end || fd < 0 || fd > 1 << 20)
		return -1;
	return (int)fd;
}

/* The buffer behind fd mapped, its header checked; NULL if it is none
 * (*size: its size). */
static struct zb_header *map_buffer(int fd, size_t *size)
{
	struct stat st;
	void *p;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)ZB_HEADER_BYTES)
		return NULL;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (!zb_layout_ok(p, (uint64_t)st.st_size)) {
		munmap(p, (size_t)st.st_size);
		return NULL;
	}
	*size = (size_t)st.st_size;
	return p;
}

/* The buffer by its path, for a process that kept the environment and
 * lost the descriptor (ZB_ENV_PATH); the mapping outlives the descriptor
 * opened for it. */
static struct zb_header *map_by_path(size_t *size)
{
	const char *path = getenv(ZB_ENV_PATH);
	struct zb_header *h;
	int fd;

	if (!path || strncmp(path, "/proc/", 6))
		return NULL;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	h = map_buffer(fd, size);
	close(fd);
	return h;
}

__attribute__((constructor)) static void zones_attach(void)
{
	struct zb_header *h;
	size_t size;
	void *p;

	h = map_buffer(parse_fd(getenv(ZB_ENV_FD)), &size);
	if (!h)
		h = map_by_path(&size);
	if (!h)
		return;
	p = h;
	zb.hdr = h;
	zb.threads = (char *)p + h->threads_off;
	zb.names = (char *)p + h->names_off;
	zb.nthreads = h->nthreads;
	zb.thread_bytes = h->thread_bytes;
	zb.nnames = h->nnames;
	zb.tsc = h->clock == ZB_CLOCK_TSC;
	__atomic_fetch_add(&h->attached, 1, __ATOMIC_RELAXED);
	pthread_atfork(NULL, NULL, after_fork_child);
	ys__trace_on = 1;
}
