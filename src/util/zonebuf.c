/*
 * The zone buffer's reader side (the protocol: zonebuf.h): creating the
 * shared memory a traced program writes its zones into, and reading back
 * its complete records, while it runs or after it died. Everything read
 * from the mapping is checked: the program can write anything there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/monoclock.h"
#include "util/strutil.h"
#include "util/zonebuf.h"

bool zb_tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t a, b, c, d;

	__asm__ __volatile__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
			     : "a"(0x80000000u), "c"(0));
	if (a < 0x80000007u)
		return false;
	__asm__ __volatile__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
			     : "a"(0x80000007u), "c"(0));
	return (d >> 8) & 1;
#else
	return false;
#endif
}

static uint64_t rdtsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#else
	return 0;
#endif
}

/* Whether the kernel keeps CLOCK_MONOTONIC on the TSC: it then found it
 * synchronized across CPUs (it switches away from a TSC it finds
 * unstable), so stamps of threads on different CPUs compare. */
static bool kernel_trusts_tsc(void)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/"
			"current_clocksource", "r");
	char buf[32] = "";
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, sizeof buf, f) && !strcmp(buf, "tsc\n");
	fclose(f);
	return ok;
}

/* A (tsc, monotonic ns) pair: the tightest of five brackets. */
static void clock_pair(uint64_t *tsc, int64_t *ns)
{
	int64_t best = INT64_MAX;

	for (int i = 0; i < 5; i++) {
		int64_t a = monoclock_ns();
		uint64_t t = rdtsc();
		int64_t b = monoclock_ns();

		if (b - a < best) {
			best = b - a;
			*tsc = t;
			*ns = a + (b - a) / 2;
		}
	}
}

int zb_create(struct zb_map *m, uint32_t nthreads, uint32_t thread_bytes,
	      uint32_t nnames, bool tsc, struct error *e)
{
	struct zb_header *h;
	uint64_t total;

	memset(m, 0, sizeof *m);
	m->fd = -1;
	thread_bytes = (thread_bytes + 7) & ~7u;
	if (thread_bytes < 256)
		thread_bytes = 256;
	if (nthreads == 0 || nnames == 0)
		return error_set(e, "zone buffer: no thread or name slots");
	if (thread_bytes > ZB_MAX_THREAD_BYTES)
		return error_set(e, "zone buffer: %u bytes a thread is more "
				 "than %u", thread_bytes, ZB_MAX_THREAD_BYTES);
	total = ZB_HEADER_BYTES + (uint64_t)nthreads * thread_bytes +
		(uint64_t)nnames * ZB_NAME_BYTES;
	if (total > ((uint64_t)1 << 40))
		return error_set(e, "zone buffer: %llu bytes is too large",
				 (unsigned long long)total);
	m->fd = memfd_create(ZB_MEMFD_NAME, MFD_ALLOW_SEALING);
	if (m->fd < 0)
		return error_errno(e, errno, "cannot create the zone buffer");
	if (ftruncate(m->fd, (off_t)total) < 0) {
		error_errno(e, errno, "cannot size the zone buffer to %llu bytes",
			    (unsigned long long)total);
		goto out_close;
	}
	/* design note 8: the program cannot shrink the file under the
	 * reader's mapping (a read past its end would be SIGBUS) */
	if (fcntl(m->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
		  F_SEAL_SEAL) < 0) {
		error_errno(e, errno, "cannot seal the zone buffer");
		goto out_close;
	}
	m->base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED,
		       m->fd, 0);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		error_errno(e, errno, "cannot map the zone buffer");
		goto out_close;
	}
	m->size = total;
	m->nthreads = nthreads;
	m->thread_bytes = thread_bytes;
	m->nnames = nnames;
	m->clock = tsc && zb_tsc_invariant() && kernel_trusts_tsc() ?
		   ZB_CLOCK_TSC : ZB_CLOCK_MONOTONIC;
	if (m->clock == ZB_CLOCK_TSC)
		clock_pair(&m->calib_tsc, &m->calib_ns);
	h = m->base;
	h->version = ZB_VERSION;
	h->header_bytes = ZB_HEADER_BYTES;
	h->total_bytes = total;
	h->nthreads = nthreads;
	h->thread_bytes = thread_bytes;
	h->nnames = nnames;
	h->clock = m->clock;
	h->threads_off = ZB_HEADER_BYTES;
	h->names_off = ZB_HEADER_BYTES + (uint64_t)nthreads * thread_bytes;
	h->calib_tsc = m->calib_tsc;
	h->calib_ns = m->calib_ns;
	__atomic_store_n(&h->magic, ZB_MAGIC, __ATOMIC_RELEASE);
	return 0;

out_close:
	close(m->fd);
	m->fd = -1;
	return -1;
}

int zb_open(struct zb_map *m, int fd, struct error *e)
{
	struct zb_header h;
	struct stat st;
	int seals;

	memset(m, 0, sizeof *m);
	m->fd = fd;
	if (fstat(fd, &st) < 0) {
		error_errno(e, errno, "cannot stat the zone buffer");
		goto out_close;
	}
	seals = fcntl(fd, F_GET_SEALS);
	if (!S_ISREG(st.st_mode) || seals < 0 || !(seals & F_SEAL_SHRINK) ||
	    st.st_size < (off_t)ZB_HEADER_BYTES) {
		error_set(e, "zone buffer: not a buffer sealed against "
			  "shrinking");
		goto out_close;
	}
	m->base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		error_errno(e, errno, "cannot map the zone buffer");
		goto out_close;
	}
	m->size = (size_t)st.st_size;
	memcpy(&h, m->base, sizeof h);
	if (!zb_layout_ok(&h, (uint64_t)st.st_size)) {
		error_set(e, "zone buffer: not the layout of version %u",
			  ZB_VERSION);
		goto out_close;
	}
	m->nthreads = h.nthreads;
	m->thread_bytes = h.thread_bytes;
	m->nnames = h.nnames;
	m->clock = h.clock;
	m->calib_tsc = h.calib_tsc;
	m->calib_ns = h.calib_ns;
	return 0;

out_close:
	zb_close(m);
	return -1;
}

void zb_close(struct zb_map *m)
{
	if (m->base)
		munmap(m->base, m->size);
	if (m->fd >= 0)
		close(m->fd);
	m->base = NULL;
	m->fd = -1;
}

void zb_env(const struct zb_map *m, char *buf, size_t len)
{
	snprintf(buf, len, "%s=%d", ZB_ENV_FD, m->fd);
}

void zb_env_path(const struct zb_map *m, char *buf, size_t len)
{
	snprintf(buf, len, "%s=/proc/%ld/fd/%d", ZB_ENV_PATH, (long)getpid(),
		 m->fd);
}

int64_t zb_to_ns(const struct zb_map *m, uint64_t ts, uint64_t tsc_now,
		 int64_t ns_now)
{
	double slope;

	if (m->clock != ZB_CLOCK_TSC)
		return (int64_t)ts;
	if (tsc_now <= m->calib_tsc)
		return m->calib_ns;
	slope = (double)(ns_now - m->calib_ns) /
		(double)(tsc_now - m->calib_tsc);
	return m->calib_ns +
	       (int64_t)((double)(int64_t)(ts - m->calib_tsc) * slope);
}

/* ---- reading ---- */

struct reader {
	const struct zb_map *m;
	uint64_t tsc_now;
	int64_t ns_now;
	char *arena;
	size_t used, cap;
	const char **names;	/* by id - 1; NULL: not ready */
	struct zb_snapshot *s;
	size_t cap_ev, cap_zones, cap_async;
	size_t *stack;		/* open zones of the thread being read */
	size_t nstack, cap_stack;
};

static const char *arena_copy(struct reader *r, const char *p, size_t n)
{
	char *q;

	n = strnlen(p, n);
	if (r->used + n + 1 > r->cap)
		return "";	/* cannot happen: the arena is sized first */
	q = r->arena + r->used;
	memcpy(q, p, n);
	q[n] = 0;
	r->used += n + 1;
	return q;
}

static void read_names(struct reader *r)
{
	const char *base = r->m->base;
	uint64_t off = ZB_HEADER_BYTES +
		       (uint64_t)r->m->nthreads * r->m->thread_bytes;

	r->names = xmalloc(r->m->nnames * sizeof *r->names);
	for (uint32_t i = 0; i < r->m->nnames; i++) {
		const struct zb_name *n = (const void *)(base + off +
							 (uint64_t)i * ZB_NAME_BYTES);
		uint32_t len = __atomic_load_n(&n->len, __ATOMIC_ACQUIRE);

		r->names[i] = NULL;
		if (len == 0)
			continue;
		if (len > sizeof n->text)
			len = sizeof n->text;
		r->names[i] = arena_copy(r, n->text, len - 1);
	}
}

static const char *name_of(struct reader *r, uint32_t id)
{
	if (id == 0 || id > r->m->nnames || !r->names[id - 1])
		return "";
	return r->names[id - 1];
}

/* Room in array p (n used, *cap allocated, of elem bytes) for one more. */
static void *grow(void *p, size_t n, size_t *cap, size_t elem)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 64;
	return xrealloc(p, *cap * elem);
}

static struct zb_event *add_event(struct reader *r)
{
	struct zb_snapshot *s = r->s;

	s->events = grow(s->events, s->nevents, &r->cap_ev, sizeof *s->events);
	memset(&s->events[s->nevents], 0, sizeof *s->events);
	return &s->events[s->nevents++];
}

static void zone_open(struct reader *r, const struct zb_event *ev)
{
	struct zb_snapshot *s = r->s;
	struct zb_zone *z;

	s->zones = grow(s->zones, s->nzones, &r->cap_zones, sizeof *s->zones);
	z = &s->zones[s->nzones];
	memset(z, 0, sizeof *z);
	z->name = ev->name;
	z->text = "";
	z->thread = ev->thread;
	z->depth = (int)r->nstack;
	z->begin_ns = z->end_ns = ev->ns;
	z->unfinished = true;
	r->stack = grow(r->stack, r->nstack, &r->cap_stack, sizeof *r->stack);
	r->stack[r->nstack++] = s->nzones++;
}

/* Pair the zones of one thread's events (from index first). */
static void pair_zones(struct reader *r, size_t first, int64_t last_ns)
{
	struct zb_snapshot *s = r->s;

	r->nstack = 0;
	for (size_t i = first; i < s->nevents; i++) {
		const struct zb_event *ev = &s->events[i];
		struct zb_zone *top = r->nstack ?
			&s->zones[r->stack[r->nstack - 1]] : NULL;

		switch (ev->type) {
		case ZB_BEGIN:
			zone_open(r, ev);
			break;
		case ZB_END:
			if (!top)
				break;	/* begun before a fork: not ours */
			top->end_ns = ev->ns;
			top->unfinished = false;
			r->nstack--;
			break;
		case ZB_TEXT:
			if (top)
				top->text = ev->text;
			break;
		case ZB_VALUE:
			if (top) {
				top->value = ev->value;
				top->has_value = true;
			}
			break;
		}
	}
	for (size_t k = 0; k < r->nstack; k++)
		s->zones[r->stack[k]].end_ns = last_ns;
}

/* a + b, or UINT64_MAX: the counts come from the program's memory */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Decode one record into an event; false when it is malformed. */
static bool decode(struct reader *r, const struct zb_rec *rec,
		   const char *payload, struct zb_event *ev)
{
	size_t plen = rec->size - sizeof *rec;
	uint64_t u;

	ev->type = rec->type;
	ev->ns = zb_to_ns(r->m, rec->ts, r->tsc_now, r->ns_now);
	ev->name = name_of(r, rec->name);
	ev->text = "";
	switch (rec->type) {
	case ZB_BEGIN:
	case ZB_END:
		return true;
	case ZB_TEXT:
	case ZB_MARK:
	case ZB_THREAD_NAME:
		ev->text = arena_copy(r, payload, plen);
		return true;
	case ZB_VALUE:
	case ZB_COUNTER:
	case ZB_ASYNC_BEGIN:
	case ZB_ASYNC_END:
		if (plen < 8)
			return false;
		memcpy(&u, payload, 8);
		ev->value = (int64_t)u;
		memcpy(&ev->counter, payload, 8);
		if (rec->type != ZB_COUNTER)
			ev->counter = 0;
		return true;
	}
	return false;
}

/* The slot's committed offset (0 when unclaimed), taken before the names
 * are read: a record's name is ready before the record is committed. */
static uint64_t slot_committed(const struct zb_map *m, uint32_t slot)
{
	const struct zb_thread *t = (const void *)((const char *)m->base +
		ZB_HEADER_BYTES + (uint64_t)slot * m->thread_bytes);

	if (!__atomic_load_n(&t->claimed, __ATOMIC_ACQUIRE))
		return UINT64_MAX;
	return __atomic_load_n(&t->committed, __ATOMIC_ACQUIRE);
}

static void read_thread(struct reader *r, uint32_t slot, uint64_t committed)
{
	struct zb_snapshot *s = r->s;
	const char *p = (const char *)r->m->base + ZB_HEADER_BYTES +
			(uint64_t)slot * r->m->thread_bytes;
	const struct zb_thread *t = (const void *)p;
	const char *recs = p + sizeof *t;
	uint64_t cap = r->m->thread_bytes - sizeof *t, pos = 0;
	struct zb_threadinfo *ti;
	size_t first = s->nevents;
	int64_t last_ns = 0;

	if (committed == UINT64_MAX)
		return;		/* not claimed */
	ti = &s->threads[s->nthreads];
	memset(ti, 0, sizeof *ti);
	ti->pid = t->pid;
	ti->tid = t->tid;
	memcpy(ti->name, t->name, sizeof ti->name - 1);
	ti->name[sizeof ti->name - 1] = 0;
	ti->lost = __atomic_load_n(&t->lost, __ATOMIC_RELAXED);
	if (committed > cap) {
		committed = cap;
		ti->corrupt = true;
	}
	while (pos + sizeof(struct zb_rec) <= committed) {
		struct zb_rec rec;
		struct zb_event *ev;

		memcpy(&rec, recs + pos, sizeof rec);
		if (rec.size < sizeof rec || rec.size % 8 ||
		    rec.size > committed - pos) {
			ti->corrupt = true;
			break;
		}
		ev = add_event(r);
		ev->thread = (uint32_t)s->nthreads;
		if (!decode(r, &rec, recs + pos + sizeof rec, ev)) {
			s->nevents--;
			ti->corrupt = true;
			break;
		}
		last_ns = ev->ns;
		pos += rec.size;
	}
	if (pos < committed && !ti->corrupt)
		ti->corrupt = true;
	ti->bytes = pos;
	s->lost = add_sat(s->lost, ti->lost);
	s->nthreads++;
	pair_zones(r, first, last_ns);
}

/* Order of async events: by key (pid, name, id), then time. */
static int async_key_cmp(const struct zb_event *x, const struct zb_event *y,
			 const struct zb_snapshot *s)
{
	int32_t px = s->threads[x->thread].pid, py = s->threads[y->thread].pid;
	int c;

	if (px != py)
		return px < py ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->value != y->value)
		return (uint64_t)x->value < (uint64_t)y->value ? -1 : 1;
	return 0;
}

static int cmp_async_ev(const void *a, const void *b, void *arg)
{
	const struct zb_event *x = *(struct zb_event *const *)a;
	const struct zb_event *y = *(struct zb_event *const *)b;
	int c = async_key_cmp(x, y, arg);

	if (c)
		return c;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->type - y->type;	/* a begin before an end */
}

static int cmp_async(const void *a, const void *b)
{
	const struct zb_async *x = a, *y = b;

	return (x->begin_ns > y->begin_ns) - (x->begin_ns < y->begin_ns);
}

static struct zb_async *add_async(struct reader *r)
{
	struct zb_snapshot *s = r->s;

	s->asyncs = grow(s->asyncs, s->nasyncs, &r->cap_async,
			 sizeof *s->asyncs);
	memset(&s->asyncs[s->nasyncs], 0, sizeof *s->asyncs);
	return &s->asyncs[s->nasyncs++];
}

/* Pair ASYNC_BEGIN and ASYNC_END by (pid, name, id), in time order: an
 * end closes the oldest open begin of its key. */
static void pair_asyncs(struct reader *r)
{
	struct zb_snapshot *s = r->s;
	const struct zb_event **v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < s->nevents; i++)
		if (s->events[i].type == ZB_ASYNC_BEGIN ||
		    s->events[i].type == ZB_ASYNC_END)
			n++;
	if (!n)
		return;
	v = xmalloc(n * sizeof *v);
	n = 0;
	for (size_t i = 0; i < s->nevents; i++)
		if (s->events[i].type == ZB_ASYNC_BEGIN ||
		    s->events[i].type == ZB_ASYNC_END)
			v[n++] = &s->events[i];
	qsort_r(v, n, sizeof *v, cmp_async_ev, s);
	for (size_t i = 0; i < n;) {
		size_t j = i, open_first;

		while (j < n && !async_key_cmp(v[i], v[j], s))
			j++;
		open_first = s->nasyncs;
		for (size_t k = i; k < j; k++) {
			const struct zb_event *ev = v[k];
			struct zb_async *a = NULL;

			if (ev->type == ZB_ASYNC_END)
				for (size_t q = open_first; q < s->nasyncs; q++)
					if (s->asyncs[q].unfinished) {
						a = &s->asyncs[q];
						break;
					}
			if (ev->type == ZB_ASYNC_END && a) {
				a->end_ns = ev->ns;
				a->end_thread = ev->thread;
				a->unfinished = false;
				continue;
			}
			a = add_async(r);
			a->name = ev->name;
			a->id = (uint64_t)ev->value;
			a->begin_ns = a->end_ns = ev->ns;
			a->begin_thread = a->end_thread = ev->thread;
			if (ev->type == ZB_ASYNC_END)
				a->orphan_end = true;
			else
				a->unfinished = true;
		}
		i = j;
	}
	free(v);
	qsort(s->asyncs, s->nasyncs, sizeof *s->asyncs, cmp_async);
}

/* Whether the file still covers the mapping (design note 8): sealed, it
 * does; this is the check should a kernel or a copy of the descriptor
 * ever lack the seals. */
static int zb_check_size(const struct zb_map *m, struct error *e)
{
	struct stat st;

	if (fstat(m->fd, &st) < 0)
		return error_errno(e, errno, "cannot stat the zone buffer");
	if (st.st_size < 0 || (uint64_t)st.st_size < m->size)
		return error_set(e, "zone buffer: the program cut it to %lld "
				 "bytes of %zu", (long long)st.st_size, m->size);
	return 0;
}

int zb_read(const struct zb_map *m, struct zb_snapshot *s, struct error *e)
{
	const struct zb_header *h = m->base;
	struct reader r;
	uint32_t want;
	uint64_t *committed;

	memset(s, 0, sizeof *s);
	memset(&r, 0, sizeof r);
	if (!m->base)
		return error_set(e, "zone buffer: not created");
	if (zb_check_size(m, e))
		return -1;
	r.m = m;
	r.s = s;
	if (m->clock == ZB_CLOCK_TSC) {
		/* a line through two pairs: at least 20 ms apart */
		while (monoclock_ns() - m->calib_ns < 20000000) {
			struct timespec d = { 0, 1000000 };

			nanosleep(&d, NULL);
		}
		clock_pair(&r.tsc_now, &r.ns_now);
	}
	want = __atomic_load_n(&h->next_thread, __ATOMIC_ACQUIRE);
	s->threads_wanted = want;
	s->attached = __atomic_load_n(&h->attached, __ATOMIC_RELAXED);
	if (want > m->nthreads)
		want = m->nthreads;
	committed = xmalloc((want ? want : 1) * sizeof *committed);
	/* every string fits in what it is copied from: the names and the
	 * records read */
	r.cap = (size_t)m->nnames * (ZB_NAME_BYTES + 1);
	for (uint32_t i = 0; i < want; i++) {
		committed[i] = slot_committed(m, i);
		if (committed[i] != UINT64_MAX)
			r.cap += committed[i] < m->thread_bytes ?
				 committed[i] : m->thread_bytes;
	}
	r.arena = xmalloc(r.cap);
	s->strings = r.arena;
	read_names(&r);
	s->threads = xmalloc((want ? want : 1) * sizeof *s->threads);
	for (uint32_t i = 0; i < want; i++)
		read_thread(&r, i, committed[i]);
	free(committed);
	s->lost_nobuf = __atomic_load_n(&h->lost_nobuf, __ATOMIC_RELAXED);
	s->lost_names = __atomic_load_n(&h->lost_names, __ATOMIC_RELAXED);
	s->lost = add_sat(s->lost, s->lost_nobuf);
	for (size_t i = 0; i < s->nevents; i++) {
		if (!s->first_ns || s->events[i].ns < s->first_ns)
			s->first_ns = s->events[i].ns;
		if (s->events[i].ns > s->last_ns)
			s->last_ns = s->events[i].ns;
	}
	pair_asyncs(&r);
	free(r.names);
	free(r.stack);
	return 0;
}

void zb_snapshot_free(struct zb_snapshot *s)
{
	free(s->threads);
	free(s->events);
	free(s->zones);
	free(s->asyncs);
	free(s->strings);
	memset(s, 0, sizeof *s);
}
