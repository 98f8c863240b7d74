/*
 * The zone buffer: the shared memory through which a program linked with
 * libyardstick hands its zones, marks, counters, async spans and thread
 * names to `yardstick trace` (or any reader). This header is the
 * protocol: the layout the writer (src/lib/zones.c, inside the user's
 * program) and the reader (zonebuf.c, zb_read) agree on, and the reader's
 * functions. docs/libyardstick.md ("Zones") describes it for users.
 *
 * Design notes (invariants):
 *
 *  1. Who creates it. The reader creates an anonymous memfd (zb_create),
 *     sized and laid out (header, thread slots, name slots), and starts
 *     the program with the environment variable YARDSTICK_TRACE_FD=N
 *     naming that descriptor, inherited across exec (not close-on-exec in
 *     the program), and YARDSTICK_TRACE_PATH=/proc/READER/fd/N, the same
 *     file for a descendant that kept the environment and lost the
 *     descriptor (Python's subprocess and multiprocessing spawn close
 *     it). libyardstick's constructor maps it MAP_SHARED and
 *     checks magic, version and sizes; anything else (no variable, a
 *     descriptor that is not such a buffer) leaves tracing off, and every
 *     zone then costs one predictable branch on a global flag. Processes
 *     the program forks or execs with the same environment attach too:
 *     every thread slot carries its pid and tid.
 *
 *  2. Layout. [header: ZB_HEADER_BYTES][nthreads thread slots of
 *     thread_bytes each][nnames name slots of ZB_NAME_BYTES each]. A
 *     thread claims a slot at its first event (atomic increment of
 *     next_thread: no lock, no allocation afterwards); a thread that finds
 *     none counts its events in lost_nobuf. The program populates the
 *     slot's pages when it claims it (page faults later cost more than
 *     the zones). A slot is a struct zb_thread
 *     followed by the thread's records, written linearly (not a ring: the
 *     first events are kept; when full, later events are counted in the
 *     slot's lost, never silently dropped).
 *
 *  3. Records. Each is 8-byte aligned, starts with struct zb_rec (type,
 *     flags, size in bytes including the header, a multiple of 8, name
 *     id, timestamp) and never crosses the end of its slot. The writer
 *     writes the whole record, then release-stores the slot's committed
 *     (bytes of complete records). A reader acquire-loads committed and
 *     parses up to it: at any moment while the program runs, and after it
 *     died (the pages belong to the memfd the reader holds), it sees only
 *     complete records. A program that crashes keeps every event up to
 *     the crash; its zones still open are reported unfinished.
 *
 *  4. Names. Zones, marks, counters and async spans have static names
 *     (string literals). The first time a call site runs, it takes a name
 *     slot (atomic increment of next_name), writes the text, then
 *     release-stores the slot's len (text length + 1; 0 = not ready).
 *     Records carry the slot's 1-based index. Two threads racing on a new
 *     site may take two slots with the same text. Names are truncated to
 *     ZB_NAME_BYTES - 5 bytes. A site that finds no name slot is counted
 *     in lost_names, and its events as lost.
 *
 *  5. Zone nesting. Zones of one thread nest (BEGIN ... END closes the
 *     innermost). Every record is written only if the slot keeps room for
 *     the END of every recorded open zone (and a BEGIN for its own): an
 *     END of a recorded BEGIN always fits. An event that does not fit is
 *     lost (counted in the slot's lost); the END of a zone whose BEGIN was
 *     lost is lost too, and TEXT or VALUE for it are lost rather than
 *     given to an outer zone. So the recorded zones always pair up (or
 *     are unfinished at a crash).
 *
 *  6. Clock. Records carry header.clock units: ZB_CLOCK_MONOTONIC is
 *     CLOCK_MONOTONIC nanoseconds (the clock perf records carry with
 *     use_clockid); ZB_CLOCK_TSC is the raw time-stamp counter (rdtsc,
 *     9.5 ns here against 23 for clock_gettime), chosen by zb_create only
 *     where the TSC is invariant and the kernel's clocksource is the TSC
 *     (it found it synchronized across CPUs). The reader converts it to
 *     CLOCK_MONOTONIC nanoseconds by the line through two (tsc,
 *     monotonic) pairs: one taken by zb_create, one by zb_read. The
 *     program never converts.
 *
 *  7. A hostile or broken program can write anything in the mapping: the
 *     reader checks every size and offset against its own copy of the
 *     layout and stops a slot at the first bad record (counted in
 *     corrupt). Counts it keeps (lost) add up saturating.
 *
 *  8. The file under the mapping. zb_create seals the memfd against
 *     shrinking and growing (and against further seals): a program that
 *     ftruncates YARDSTICK_TRACE_FD gets EPERM, and the reader never
 *     touches a page past the end of the file (SIGBUS). zb_read checks
 *     the file's size (fstat) before reading all the same.
 */
#ifndef YS_UTIL_ZONEBUF_H
#define YS_UTIL_ZONEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define ZB_ENV_FD "YARDSTICK_TRACE_FD"
/* The same buffer by a path, /proc/READER_PID/fd/N: for a process that
 * keeps the environment but not the descriptor (multiprocessing's spawn
 * and forkserver, subprocess with close_fds, Python's default; a shell
 * that closes what it does not know). Tried when ZB_ENV_FD names no
 * buffer. */
#define ZB_ENV_PATH "YARDSTICK_TRACE_PATH"
/* The memfd's name: /proc/PID/fd/N of a process holding the buffer
 * links to "/memfd:yardstick-zones (deleted)" (zb_find) */
#define ZB_MEMFD_NAME "yardstick-zones"
#define ZB_MAGIC 0x31454e4f5a535953ull /* "YSZONE1" */
#define ZB_VERSION 1u
#define ZB_HEADER_BYTES 4096u
#define ZB_NAME_BYTES 128u
#define ZB_TEXT_MAX 256u /* dynamic text is truncated to this many bytes */

/* Sizes a reader may start with: 1 MiB a thread holds about 32000 zones
 * (a zone is 32 bytes, 64 with a text of up to 24 bytes). A thread's
 * slot is populated (committed memory) when the thread claims it, so
 * the memory used is thread_bytes per thread that records. */
#define ZB_DEFAULT_THREADS 256u
#define ZB_DEFAULT_THREAD_BYTES (1u << 20)
#define ZB_DEFAULT_NAMES 4096u
#define ZB_MAX_THREAD_BYTES (1u << 30)

enum zb_clock {
	ZB_CLOCK_MONOTONIC = 1,
	ZB_CLOCK_TSC = 2,
};

/* At offset 0. The first block is written by zb_create and only read
 * by the programs; the second is updated by the programs (atomics). */
struct zb_header {
	uint64_t magic;		/* ZB_MAGIC */
	uint32_t version;	/* ZB_VERSION */
	uint32_t header_bytes;	/* ZB_HEADER_BYTES */
	uint64_t total_bytes;	/* of the whole mapping */
	uint32_t nthreads;	/* thread slots */
	uint32_t thread_bytes;	/* bytes per slot, struct zb_thread included */
	uint32_t nnames;	/* name slots of ZB_NAME_BYTES */
	uint32_t clock;		/* enum zb_clock: the unit of zb_rec.ts */
	uint64_t threads_off;	/* offset of slot 0 */
	uint64_t names_off;	/* offset of name slot 0 (name id 1) */
	uint64_t calib_tsc;	/* ZB_CLOCK_TSC: a (tsc, monotonic ns) pair */
	int64_t calib_ns;	/* taken at zb_create */

	/* written by the programs, with atomics */
	uint32_t next_thread;	/* slots taken (may exceed nthreads) */
	uint32_t next_name;	/* name slots taken (may exceed nnames) */
	uint64_t lost_nobuf;	/* events of threads that found no slot */
	uint64_t lost_names;	/* call sites that found no name slot (their
				   events count in their slot's lost) */
	uint32_t attached;	/* processes that mapped it */
	uint32_t pad;
};

/* At the start of each thread slot; the records follow it. */
struct zb_thread {
	uint64_t committed;	/* bytes of complete records (release) */
	uint64_t lost;		/* events dropped: the slot was full */
	int32_t pid, tid;	/* of the owning thread (set before claimed) */
	uint32_t claimed;	/* 1 once pid and tid are set (release) */
	uint32_t pad;
	char name[32];		/* the last ys_thread_name, NUL-terminated */
};

/* A name slot; the id in records is its index + 1. */
struct zb_name {
	uint32_t len;		/* strlen(text) + 1 once ready (release) */
	char text[ZB_NAME_BYTES - 4];
};

enum zb_type {
	ZB_BEGIN = 1,	   /* a zone starts (name) */
	ZB_END = 2,	   /* the innermost open zone ends (name: its name) */
	ZB_TEXT = 3,	   /* text for the innermost open zone: payload */
	ZB_VALUE = 4,	   /* an int64 argument of the innermost open zone */
	ZB_MARK = 5,	   /* an instant (name); payload: text, may be empty */
	ZB_COUNTER = 6,	   /* a counter's new value (name): payload double */
	ZB_ASYNC_BEGIN = 7, /* an async span starts: payload uint64 id */
	ZB_ASYNC_END = 8,  /* the span (name, id) ends, on any thread */
	ZB_THREAD_NAME = 9, /* the thread's name: payload text */
};

/* Every record starts so; size includes it. The payload (size - 16
 * bytes) is: TEXT, MARK, THREAD_NAME text, NUL-padded; VALUE int64;
 * COUNTER double; ASYNC_* uint64 id; BEGIN, END none. */
struct zb_rec {
	uint8_t type;		/* enum zb_type */
	uint8_t flags;		/* 0 */
	uint16_t size;		/* bytes, multiple of 8, >= 16 */
	uint32_t name;		/* name id, 0 for none */
	uint64_t ts;		/* header.clock units */
};

/* Whether header h (a copy: the program may write the mapping) has the
 * layout zb_create gives a buffer of size bytes. Writer and reader
 * alike check a buffer they did not make with it. */
static inline bool zb_layout_ok(const struct zb_header *h, uint64_t size)
{
	uint64_t threads, names;

	if (h->magic != ZB_MAGIC || h->version != ZB_VERSION ||
	    h->header_bytes != ZB_HEADER_BYTES || h->total_bytes != size ||
	    h->nthreads == 0 || h->nnames == 0 || h->thread_bytes % 8 ||
	    h->thread_bytes < 256 || h->thread_bytes > ZB_MAX_THREAD_BYTES ||
	    (h->clock != ZB_CLOCK_MONOTONIC && h->clock != ZB_CLOCK_TSC))
		return false;
	threads = (uint64_t)h->nthreads * h->thread_bytes;
	names = (uint64_t)h->nnames * ZB_NAME_BYTES;
	return h->threads_off == ZB_HEADER_BYTES &&
	       h->names_off == ZB_HEADER_BYTES + threads &&
	       size == h->names_off + names;
}

/* ---- the reader ---- */

/* A created buffer: its descriptor (to pass as YARDSTICK_TRACE_FD) and
 * the reader's mapping. */
struct zb_map {
	int fd;
	void *base;
	size_t size;
	/* the reader's own copy of the layout (never re-read from memory
	 * the program can write) */
	uint32_t nthreads, thread_bytes, nnames, clock;
	uint64_t calib_tsc;
	int64_t calib_ns;
};

/*
 * Create a buffer with nthreads slots of thread_bytes (rounded up to a
 * multiple of 8; at least 256, at most ZB_MAX_THREAD_BYTES) and nnames
 * name slots; its clock the TSC when tsc is true and the TSC can be
 * trusted (design note 6), else CLOCK_MONOTONIC. The descriptor is NOT
 * close-on-exec (the program inherits it). Returns 0, or -1 with e set.
 */
int zb_create(struct zb_map *m, uint32_t nthreads, uint32_t thread_bytes,
	      uint32_t nnames, bool tsc, struct error *e);
/* Whether the TSC runs at a constant rate (CPUID 0x80000007 EDX bit 8). */
bool zb_tsc_invariant(void);
/*
 * The buffer another reader made, which a running process maps (its
 * descriptor opened through /proc: `trace --pid`), into m, read-only:
 * fd (taken: closed with m, or on failure) must be a memfd sealed
 * against shrinking (design note 8) whose header has zb_create's layout
 * (zb_layout_ok); the layout and clock calibration are copied from it
 * once. Returns 0, or -1 with e set.
 */
int zb_open(struct zb_map *m, int fd, struct error *e);
/* Unmap and close. */
void zb_close(struct zb_map *m);
/* "YARDSTICK_TRACE_FD=N" for the program's environment, N our m->fd:
 * for a program that inherits it as it is. Given under another number
 * (util/child.h's child_fd_map), write that number instead. */
void zb_env(const struct zb_map *m, char *buf, size_t len);
/* "YARDSTICK_TRACE_PATH=/proc/PID/fd/N", PID ours and N m->fd: the
 * buffer for a descendant that lost the descriptor (ZB_ENV_PATH). */
void zb_env_path(const struct zb_map *m, char *buf, size_t len);

/* One event as read back. Timestamps in CLOCK_MONOTONIC ns. */
struct zb_event {
	uint8_t type;		/* enum zb_type */
	uint32_t thread;	/* index into zb_snapshot.threads */
	int64_t ns;
	const char *name;	/* "" for none */
	const char *text;	/* TEXT, MARK, THREAD_NAME; else "" */
	int64_t value;		/* VALUE; ASYNC_* id */
	double counter;		/* COUNTER */
};

struct zb_threadinfo {
	int32_t pid, tid;
	char name[32];
	uint64_t lost;		/* events dropped: its slot was full */
	uint64_t bytes;		/* of complete records */
	bool corrupt;		/* stopped at a malformed record */
};

/* A zone: a BEGIN and its END on one thread. */
struct zb_zone {
	const char *name;
	const char *text;	/* the last TEXT while it was innermost, "" */
	int64_t value;		/* the last VALUE, when has_value */
	bool has_value;
	bool unfinished;	/* no END (the program died or is running):
				   end_ns is the thread's last timestamp */
	uint32_t thread;	/* index into zb_snapshot.threads */
	int depth;		/* 0 outermost */
	int64_t begin_ns, end_ns;
};

/* An async span: ASYNC_BEGIN and ASYNC_END of the same (pid, name, id). */
struct zb_async {
	const char *name;
	uint64_t id;
	uint32_t begin_thread, end_thread; /* end_thread: when !unfinished */
	bool unfinished;	/* no end seen (end_ns = begin_ns) */
	bool orphan_end;	/* an end without a begin (begin_ns = end_ns) */
	int64_t begin_ns, end_ns;
};

struct zb_snapshot {
	struct zb_threadinfo *threads;
	size_t nthreads;
	struct zb_event *events; /* per thread in order, threads in slot order */
	size_t nevents;
	struct zb_zone *zones;	 /* per thread, in order of BEGIN */
	size_t nzones;
	struct zb_async *asyncs; /* in order of begin */
	size_t nasyncs;
	uint64_t lost;		/* events lost: the slots' + lost_nobuf */
	uint64_t lost_nobuf;	/* events of threads that found no slot */
	uint64_t lost_names;	/* call sites that found no name slot */
	uint32_t threads_wanted; /* threads that asked for a slot */
	uint32_t attached;	 /* processes that mapped the buffer: 0, the
				    program does not use libyardstick (or
				    closed the descriptor before exec) */
	int64_t first_ns, last_ns; /* over all events (0 when none) */
	char *strings;		 /* owns every string above */
};

/*
 * Read every complete record now (the program may be running or dead)
 * into s: threads, events, zones paired per thread, async spans paired
 * per (pid, name, id). Returns 0, or -1 with e set (out of memory).
 * Malformed slots are read up to the bad record and flagged.
 */
int zb_read(const struct zb_map *m, struct zb_snapshot *s, struct error *e);
void zb_snapshot_free(struct zb_snapshot *s);

/* TSC to CLOCK_MONOTONIC ns with m's calibration and a pair taken now
 * (zb_read does it; exposed for a reader converting other stamps). */
int64_t zb_to_ns(const struct zb_map *m, uint64_t ts, uint64_t tsc_now,
		 int64_t ns_now);

#endif
