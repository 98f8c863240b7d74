/*
 * What the heap agent (libyardstick-heap.so, preloaded into the profiled
 * program) and the yardstick process share: a memory segment of per-thread
 * event buffers and a socket.
 *
 * Each traced thread owns a slot of the segment and appends fixed-layout
 * records to its current chunk buffer. When the buffer is full the thread
 * hands it over to yardstick through the segment itself (the slot's ring:
 * no system call, no copy) and goes on in another buffer of the ring that
 * yardstick has taken back; if there is none (yardstick is behind) it
 * sleeps a little for one (up to 10 ms), and then writes the chunk to the
 * socket (a stream socketpair: a pipe would raise
 * SIGPIPE in the program if yardstick went away) as one message and
 * starts the same buffer again empty. Every chunk of a slot has a number
 * (seq), one after the other, whichever way it went. yardstick takes the
 * handed-over chunks while the program runs (it looks every millisecond
 * or so, no notification needed), reads the socket, and after the program
 * is gone (exit, crash, exec) takes what is left in every slot, so
 * nothing traced is lost, whatever way the program ended. The chunks of
 * one slot, in seq order, then its remainder, are in time order; yardstick
 * merges the slots by time stamp.
 *
 * The program can write anywhere in the segment (the agent's mapping is
 * in its address space): yardstick reads every field of it once, bounds
 * it, and copies a chunk out before it looks at it; it takes each seq of
 * a slot at most once, so a chunk handed over twice (or put back by the
 * program) is never counted twice. A chunk on the socket numbered M is
 * taken only after every handed-over chunk of that slot numbered below M
 * (the agent handed those over before it sent M).
 *
 * Everything here is plain C with fixed-size types: the agent includes it
 * without any other yardstick header.
 */
#ifndef YS_HEAP_PROTOCOL_H
#define YS_HEAP_PROTOCOL_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#define HEAP_MAGIC	0x79736870u	/* "yshp" */
#define HEAP_VERSION	12

/*
 * The environment variable through which yardstick hands the agent its
 * segment and socket: "SHMFD,SOCKFD,INODE,SOCKINODE,NAME", the inodes
 * the segment's and the socket's, so that an exec'd program that reuses
 * those descriptor numbers for other files is not mistaken for the traced
 * one, and the agent never writes into a socket of the program's that
 * took the number of ours; NAME the abstract Unix socket yardstick
 * listens on, where the agent connects again (at most HEAP_RECONNECTS
 * times) when the program closed or replaced its socket: it sends on one
 * connection at a time, and connects anew only when everything it sent
 * on the one before is there to read. On every connection of the traced
 * process yardstick first sends one byte with the segment's descriptor
 * (SCM_RIGHTS): an image after an exec whose SHMFD was closed takes it
 * from there.
 *
 * The program may write to, close or replace any descriptor, the agent's
 * too. SHMFD is open read-only: writes through it fail, and the agent
 * maps the segment through a read-write descriptor of its own, opened
 * from /proc/self/fd/SHMFD and closed once mapped. What the program
 * writes into the socket is found out by yardstick (every message has a
 * magic number and a check sum, every chunk of a slot a sequence number)
 * and skipped; a socket the program closed or replaced is connected anew
 * (its new descriptor close-on-exec: an image after an exec connects
 * again itself); if that fails, sending stops, not the counting
 * (heap_counts), and yardstick reports the trace incomplete.
 */
#define HEAP_RECONNECTS	64
#define HEAP_NAME_MAX	64	/* bytes of NAME */
#define HEAP_ENV	"YARDSTICK_HEAP"

#define HEAP_SLOTS	256		/* threads traced at one time */
#define HEAP_SLOT_BYTES	(64 * 1024)	/* of records per chunk */
#define HEAP_RING	16		/* chunk buffers per slot (a power
					 * of 2) */
#define HEAP_MAX_DEPTH	64		/* frames kept per stack */
#define HEAP_HIST	48		/* allocation size classes */

enum heap_unwind { HEAP_UNWIND_DWARF = 0, HEAP_UNWIND_FP = 1 };

/* What the agent did with a CPython program (heap_header.py_status). */
enum heap_py {
	HEAP_PY_NONE = 0,	/* not a CPython program */
	HEAP_PY_WALKED = 1,	/* its Python frames were walked */
	HEAP_PY_UNSUPPORTED = 2,	/* a version not in the layout table:
					 * native frames only */
	HEAP_PY_OFF = 3,	/* --python off */
};

/*
 * A record is a sequence of 64-bit words. The first word holds the type in
 * its top 8 bits; the low 56 bits are a time stamp (TSC ticks, or
 * nanoseconds when the clock is not the TSC: see heap_header.clock) for
 * events, a frame count for a stack.
 *
 *   HEAP_REC_ALLOC      ts, ptr, size, stack  a block was handed out;
 *                                             in sampled mode the size
 *                                             word's top 8 bits are the
 *                                             doublings of the interval
 *                                             it was drawn under (the
 *                                             throttle: HEAP_ALLOC_SIZE,
 *                                             HEAP_ALLOC_RAISED)
 *   HEAP_REC_FREE       ts, ptr               a block was given back
 *   HEAP_REC_FREE_TEMP  ts, ptr               the same, and the block was
 *                                             the thread's last allocation
 *                                             with no free in between: a
 *                                             temporary
 *   HEAP_REC_BURST      t0, stack, count, bytes, max, t1
 *                                             count temporaries from one
 *                                             stack in a row, bytes in all,
 *                                             the largest max bytes, the
 *                                             first allocated at t0, the
 *                                             last freed at t1
 *   HEAP_REC_STACK      m|gen|n, hash, unloads, ip[0..n), py[0..m)
 *                                             a new stack, leaf first:
 *                                             return addresses, ip[0] the
 *                                             one into the caller of
 *                                             malloc; gen (bits 16-47 of
 *                                             the first word) the program
 *                                             image it is of; m (bits
 *                                             48-55) Python frames of a
 *                                             CPython program, innermost
 *                                             first (HEAP_PY_*); unloads
 *                                             the maps texts of image gen
 *                                             its addresses are read with
 *                                             (HEAP_MSG_MAPS)
 *   HEAP_REC_STACK_TAIL m|gen|n, hash, keep_py|keep|unloads, base,
 *                       ip[0..n), py[0..m)
 *                                             the same, sent as what
 *                                             differs from the slot's
 *                                             STACK or STACK_TAIL record
 *                                             before it, whose hash is
 *                                             base: the stack is ip, then
 *                                             the root-side keep return
 *                                             addresses of that one (its
 *                                             last keep), and py, then
 *                                             its root-side keep_py
 *                                             Python frames (the third
 *                                             word: unloads in bits 0-31,
 *                                             keep in 32-47, keep_py in
 *                                             48-63); hash is the whole
 *                                             stack's (stack tails below)
 *   HEAP_REC_PYCODE     gen|w, line|id, lens, text
 *                                             a Python code object the
 *                                             Python frames of image gen
 *                                             name by id (32 bits), its
 *                                             first line above: w the
 *                                             record's words, lens its
 *                                             file name's
 *                                             bytes << 32 | its qualified
 *                                             name's, then both (UTF-8),
 *                                             zero-padded to a word
 *   HEAP_REC_EXEC       ts, old << 32 | gen   the process exec'ed image
 *                                             gen over image old: every
 *                                             block of old is gone
 *   HEAP_REC_EXEC_PENDING ts, gen             image gen is about to exec
 *                                             (the new image may have no
 *                                             agent): the same, unless
 *   HEAP_REC_EXEC_FAILED  ts, gen             follows next in the stream:
 *                                             the exec failed
 *   HEAP_REC_END        ts, gen               the process of image gen
 *                                             (not the program) called
 *                                             _exit: its live blocks are
 *                                             its leaks, gone from the
 *                                             tree's heap
 *   HEAP_REC_PYEND      ts, gen               the CPython interpreter of
 *                                             image gen began to finalize
 *                                             (Py_FinalizeEx set
 *                                             _PyRuntime._finalizing:
 *                                             the main module, its
 *                                             non-daemon threads and the
 *                                             atexit handlers are done):
 *                                             stamped before the first
 *                                             traced call after it, once
 *                                             per image; its live blocks
 *                                             then are what the program's
 *                                             Python code kept
 *   HEAP_REC_IMAGE      ts, gen               the records of the slot
 *                                             from here on are of image
 *                                             gen (a thread of it took
 *                                             the slot)
 *
 * Images: every program image of the process tree has its own number gen
 * (1, 2, ... in the order they started, heap_header.images): the first
 * process's, each image after an exec, each forked child (which starts
 * with none of its parent's blocks: it frees its copies of them
 * unmatched, and the parent's stay live) and each process started with
 * the agent (spawn). A block is known by its image and address.
 *
 * A free is stamped before the block is released and an allocation after
 * it was obtained, so a block freed by one thread and handed to another
 * is freed first in time order. realloc is a free and an allocation.
 *
 * Stack tails: consecutive new stacks of a thread share most of their
 * root side (a deep call chain that allocates from many places), which
 * a STACK_TAIL leaves out. The agent sends one only within a chunk, on
 * the STACK record or STACK_TAIL its thread wrote last into the same
 * chunk of its own slot (the first stack of each chunk is whole: a lost
 * chunk loses only its own stacks), and only when it shares frames
 * with it. yardstick rebuilds a STACK_TAIL from the stack of the
 * slot's record before it in the stream only if that one's hash is
 * base (a hash is the stack's, as for the sites: equal hashes, equal
 * frames); else (a chunk lost, a slot taken over, what the program
 * wrote) the stack is damaged: counted, and its site is one whose
 * record was lost (no frames), as is every STACK_TAIL after it up to
 * a whole STACK record.
 *
 * Temporaries are the bulk of many programs' calls. The agent folds a
 * free of the block its thread just allocated into the allocation's
 * record, and a run of such pairs from one stack into one BURST record:
 * yardstick then counts them exactly, and takes the run as its largest
 * block live from the first allocation to the last free. Only a pair
 * that lasted less than HEAP_FOLD_GAP ticks (or nanoseconds) is folded
 * (a longer one stays an ALLOC and a FREE_TEMP), and it joins a run only
 * if it began less than that after the run's last free. So the records
 * the agent may still change are the slot's last one when it is an ALLOC
 * stamped less than HEAP_FOLD_GAP ago or a BURST whose last free was,
 * and a BURST just before such an ALLOC, and any of those while the
 * slot's owner is in a call (heap_slot.busy): yardstick takes the others
 * while the program runs. HEAP_FOLD_GAP is less than 1 us with
 * any TSC of 1 GHz or more, so a run never spans a pause of its thread or
 * a block's long life, in which other threads' events would be taken to
 * see its largest block live; only events closer than that, within the
 * merge's own uncertainty (analyze.c merges frees 1 us early), can. A process killed in the middle of a free may
 * lose that one pair.
 */
#define HEAP_FOLD_GAP	1000
#define HEAP_REC_ALLOC	1u
#define HEAP_REC_FREE	2u
#define HEAP_REC_STACK	3u
#define HEAP_REC_FREE_TEMP 4u
#define HEAP_REC_BURST	5u
#define HEAP_REC_EXEC	6u
#define HEAP_REC_EXEC_PENDING 7u
#define HEAP_REC_EXEC_FAILED 8u
#define HEAP_REC_PYCODE	9u
#define HEAP_REC_IMAGE	10u
#define HEAP_REC_END	11u
#define HEAP_REC_PYEND	12u
#define HEAP_REC_STACK_TAIL 13u
#define HEAP_STACK_GEN(w)	((uint32_t)((w) >> 16))
#define HEAP_STACK_DEPTH(w)	((uint32_t)((w) & 0xffff))
#define HEAP_STACK_PY(w)	((uint32_t)((w) >> 48) & 0xff)
/* A STACK or STACK_TAIL record's third word: the unloads, and of a
 * STACK_TAIL the frames kept of the one before */
#define HEAP_STACK_UNLOADS(w)	((uint32_t)(w))
#define HEAP_TAIL_KEEP(w)	((uint32_t)((w) >> 32) & 0xffff)
#define HEAP_TAIL_KEEP_PY(w)	((uint32_t)((w) >> 48))

/* Is a record of this type a stack (STACK or STACK_TAIL)? */
static inline int heap_rec_stack(uint32_t type)
{
	return type == HEAP_REC_STACK || type == HEAP_REC_STACK_TAIL;
}

/*
 * A Python frame of a STACK record, one word: the code's id (its PYCODE
 * record) in the top 32 bits, the line (0: unknown) in the low 31, and
 * HEAP_PY_END when the frame is the first one its call of the
 * interpreter's evaluation loop ran (the native stack's
 * _PyEval_EvalFrameDefault frames, innermost first, each stand for the
 * Python frames up to and including the next one so marked). The last
 * frame is marked, unless the walk was cut at HEAP_PY_MAX (a deeper
 * recursion: its innermost frames, then nothing of the outer ones).
 */
#define HEAP_PY_MAX	128		/* Python frames kept per stack */
#define HEAP_PY_END	(UINT64_C(1) << 31)
#define HEAP_PY_CODE(f)	((uint32_t)((f) >> 32))
#define HEAP_PY_LINE(f)	((uint32_t)((f) & 0x7fffffff))
#define HEAP_PY_TEXT_MAX 1024		/* bytes of a file or name kept */
#define HEAP_TYPE_SHIFT	56
#define HEAP_TS_MASK	((UINT64_C(1) << HEAP_TYPE_SHIFT) - 1)
/* An ALLOC record's third word: the size asked for, and (sampled mode)
 * how many times the thread's interval had doubled when the countdown
 * that crossed it was drawn: it stands for the interval
 * sample_bytes << raised (agent_sample.h, sample_throttle) */
#define HEAP_SIZE_BITS	56
#define HEAP_ALLOC_SIZE(w)	((w) & ((UINT64_C(1) << HEAP_SIZE_BITS) - 1))
#define HEAP_RAISED_MAX	24	/* doublings at most (a damaged record's
				 * more are taken as these) */
#define HEAP_ALLOC_RAISED(w)	((uint32_t)((w) >> HEAP_SIZE_BITS) < \
				 HEAP_RAISED_MAX ? \
				 (uint32_t)((w) >> HEAP_SIZE_BITS) : \
				 HEAP_RAISED_MAX)
/* mem --sample-rate's default: samples a second per thread */
#define HEAP_SAMPLE_RATE	10000

/* Words of the record whose first word is w (unknown types: 2, as a
 * free): how yardstick walks a stream. */
static inline uint64_t heap_rec_words(uint64_t w)
{
	switch (w >> HEAP_TYPE_SHIFT) {
	case HEAP_REC_ALLOC: return 4;
	case HEAP_REC_BURST: return 6;
	case HEAP_REC_STACK: return 3 + HEAP_STACK_DEPTH(w) + HEAP_STACK_PY(w);
	case HEAP_REC_STACK_TAIL:
		return 4 + HEAP_STACK_DEPTH(w) + HEAP_STACK_PY(w);
	case HEAP_REC_PYCODE:
		return HEAP_STACK_DEPTH(w) >= 3 ? HEAP_STACK_DEPTH(w) : 3;
	}
	return 2;
}

/* A message on the socket: this header, then len bytes (at most
 * HEAP_MSG_MAX). */
enum heap_msg {
	HEAP_MSG_CHUNK = 1,	/* records of slot `slot` */
	HEAP_MSG_MAPS = 2,	/* the text of /proc/self/maps of image
				 * HEAP_MAPS_GEN(seq), read after its
				 * HEAP_MAPS_UNLOADS(seq)-th unload */
};

/*
 * Unloads: an image's dlcloses that removed an object, counted by its
 * agent. An object loaded after one may be mapped where the removed one
 * was, its code at the other's return addresses: a stack is known by its
 * addresses and the image's unloads then (its hash has both, so the same
 * addresses after an unload are another STACK record), and it is read
 * with the maps texts of its image sent with that count of unloads (each
 * text all of the image's mappings then; the agent sends one after each
 * unload, before the next new stack).
 */
#define HEAP_MAPS_GEN(seq)	((uint32_t)(seq))
#define HEAP_MAPS_UNLOADS(seq)	((uint32_t)((seq) >> 32))
struct heap_msg_header {
	uint32_t magic;
	uint32_t type;
	uint32_t slot;
	uint32_t len;
	uint64_t seq;		/* CHUNK: the slot's chunk number; MAPS: the
				 * program image and its unloads */
	uint64_t check;		/* heap_msg_check of the rest */
};
#define HEAP_MSG_MAX	(64u << 20)

/*
 * A 64-bit check sum of n bytes at p, continuing from h: four independent
 * lanes, so that it costs well under a nanosecond a word (the agent sums
 * every chunk it sends), mixed together at the end.
 */
static inline uint64_t heap_check_bytes(uint64_t h, const void *p,
					unsigned long n)
{
	const uint64_t k = 0x9e3779b97f4a7c15u;
	const unsigned char *c = (const unsigned char *)p;
	uint64_t l0 = h, l1 = h ^ 0x5851f42d4c957f2du, l2 = h + k, l3 = ~h;

	for (; n >= 32; n -= 32, c += 32) {
		uint64_t w[4];

		__builtin_memcpy(w, c, 32);
		l0 = (l0 ^ w[0]) * k;
		l1 = (l1 ^ w[1]) * k;
		l2 = (l2 ^ w[2]) * k;
		l3 = (l3 ^ w[3]) * k;
	}
	for (; n >= 8; n -= 8, c += 8) {
		uint64_t w;

		__builtin_memcpy(&w, c, 8);
		l0 = (l0 ^ w) * k;
		l0 ^= l0 >> 29;
	}
	if (n) {
		uint64_t w = 0;

		__builtin_memcpy(&w, c, n);
		l0 = (l0 ^ w ^ ((uint64_t)n << 59)) * k;
	}
	h = l0;
	h = ((h ^ (h >> 29)) ^ l1) * k;
	h = ((h ^ (h >> 29)) ^ l2) * k;
	h = ((h ^ (h >> 29)) ^ l3) * k;
	return h ^ (h >> 32);
}

/* The check sum of a message: its header's other fields and its data. */
static inline uint64_t heap_msg_check(const struct heap_msg_header *m,
				      const void *data)
{
	uint64_t h = heap_check_bytes(0x6a09e667f3bcc909u, m,
				      offsetof(struct heap_msg_header, check));

	return heap_check_bytes(h, data, m->len);
}

/*
 * Counters a slot's owners keep whatever the mode: every allocation and
 * free the agent saw, traced or not, so that sampled mode still reports
 * exact totals. Written only by the slot's owner; read by yardstick once
 * the program has ended.
 */
struct heap_counts {
	uint64_t allocations;	/* in the slots: not kept (the agent counts
				 * less), the sum of hist */
	uint64_t bytes;
	uint64_t frees;
	uint64_t temporary;	/* freed by the same thread with no
				 * allocation or free of it in between */
	uint64_t dropped;	/* events not recorded: no stack space */
	uint64_t hist[HEAP_HIST];	/* allocations by size class: 0,
					 * 1, 2-3, 4-7, ... (the last open) */
};

/*
 * A chunk buffer of a slot's ring, as the agent hands it over: full set
 * (release) after seq and len; yardstick copies the len bytes out, then
 * clears full (release), and the agent may fill the buffer again.
 */
struct heap_chunk {
	uint64_t seq;		/* the chunk's number */
	uint32_t full;		/* 1: handed over, 0: the agent's (atomic) */
	uint32_t len;		/* bytes of records */
};

struct heap_slot {
	uint32_t state;		/* 0 free, 1 owned (atomic) */
	uint32_t tid;
	uint64_t seq;		/* the number of the chunk being filled: of
				 * those before, handed over or sent
				 * (atomic) */
	uint64_t used;		/* bytes of it holding records (atomic) */
	uint32_t cur;		/* its buffer, data[cur] (atomic) */
	int32_t pid;		/* the process of its owner */
	uint32_t busy;		/* 1: its owner is in a traced call, from
				 * before it stamps anything to after its
				 * records are written (atomic): the last
				 * records may change (collect_live.c) */
	uint32_t pad;
	uint64_t handed;	/* chunks handed over, ever (atomic): a
				 * change tells yardstick to look */
	struct heap_counts counts;
	struct heap_chunk ring[HEAP_RING];
	uint64_t data[HEAP_RING][HEAP_SLOT_BYTES / 8];
};

/* A program image of the process tree (protocol: images above), written
 * by its agent when it starts. */
#define HEAP_IMAGES	4096
#define HEAP_CMD_MAX	44
struct heap_image {
	int32_t pid;
	int32_t ppid;		/* its parent process */
	uint32_t parent;	/* forked from that image, 0: not forked */
	uint32_t replaced;	/* exec'd over that image, 0: none */
	uint32_t exec_pending;	/* 1: it called exec (agent_exec.h) */
	char cmd[HEAP_CMD_MAX];	/* its command line, arguments separated
				 * by spaces, cut (not NUL-terminated when
				 * full) */
	/* sampled mode: the image's exact counts (its threads' part of
	 * their slots'), added by each thread as it gives its slot back and
	 * by the image's end (exit, _exit, exec) for all of them (atomic
	 * adds); counted: 1 once that end added them, so that they are
	 * whole (not for an image killed or still running) */
	uint32_t counted;
	struct heap_counts counts;
};

struct heap_header {
	uint32_t magic, version;
	/* set by yardstick */
	uint64_t sample_bytes;	/* 0: every allocation is traced */
	uint32_t unwind;	/* enum heap_unwind */
	uint32_t max_depth;
	uint32_t clock;		/* 1: stamps are TSC ticks (yardstick checked
				 * it is invariant and calibrates it), 0:
				 * CLOCK_MONOTONIC nanoseconds */
	uint32_t ring;		/* buffers of each slot's ring the agent
				 * uses, 1 to HEAP_RING; 1: none is handed
				 * over, every chunk goes to the socket.
				 * With all of them, the agent waits a
				 * little for a buffer before it uses the
				 * socket; with fewer, it does not */
	/* set by the agent */
	int32_t owner_pid;	/* the process that traces (atomic) */
	uint32_t generation;	/* images started in the process tree
				 * (atomic): the last one's number */
	uint32_t overflow_threads;	/* threads not traced: no slot */
	uint32_t unwind_failed;	/* 1: libunwind missing, fp used */
	uint32_t sample_full;	/* sampled mode: the table of sampled
				 * blocks was full; later samples lost */
	uint64_t exit_hwm;	/* the largest VmHWM (bytes) the agent read
				 * at a process's end (exit or _exit) in
				 * the tree, 0 if none (atomic) */
	uint32_t stopped;	/* 1: sending stopped early: the socket was
				 * closed or is no longer ours (counting
				 * went on) */
	uint32_t full_walks;	/* set by yardstick: 1, every libunwind walk
				 * a full one, no cache, no fast trace
				 * (YARDSTICK_HEAP_UNWIND=full, the
				 * reference for tests) */
	uint64_t handed;	/* chunks handed over by all slots, ever
				 * (atomic): a change tells yardstick to
				 * look at the slots */
	/* CPython programs: set by yardstick */
	uint32_t python;	/* 1: walk their Python frames (--python) */
	/* set by the agent (of the last image that started) */
	uint32_t py_version;	/* Py_Version of the CPython it runs, 0: the
				 * program is none */
	uint32_t py_status;	/* enum heap_py */
	uint32_t py_malloc;	/* 1: PYTHONMALLOC was set, to other than
				 * "malloc", before the agent started: kept */
	/* set by the agent */
	uint64_t failed_allocs;	/* allocation calls that returned NULL for
				 * a size above 0 (atomic): out of memory,
				 * or an address-space limit (RLIMIT_AS)
				 * the agent's segment counts in */
	/* set by yardstick: sampled mode's throttle, samples a second a
	 * thread takes at most (0: no limit; agent_sample.h) */
	uint64_t sample_rate;
	uint64_t reserved[1];
	struct heap_slot slots[HEAP_SLOTS];
	struct heap_image images[HEAP_IMAGES];	/* by number, [0] unused */
};

/*
 * A small /proc file into buf (NUL-terminated), with system calls only:
 * the agent must not allocate. Returns its length, or -1.
 */
static inline long heap_read_proc(const char *path, char *buf,
				  unsigned long size)
{
	long n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = (long)read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

#endif
