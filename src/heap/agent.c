/*
 * libyardstick-heap.so: the heap agent `yardstick mem` preloads into the
 * program it profiles. It replaces malloc and its relatives, forwards each
 * call to the allocator the program would have called (glibc's own
 * through its __libc_* entry points, or one after the agent in the
 * search order: agent_next.h) and
 * appends a record of it to the calling thread's slot of the segment
 * shared with yardstick (protocol.h). All analysis happens in yardstick.
 *
 * A traced call takes no lock and makes no system call (but for
 * libunwind's full walk, which fills the stack cache: the loader's lock):
 * a time stamp, a stack walk (a stack cached per thread, else libunwind's
 * x86-64 trace: agent_unwind.h; or the frame-pointer chain), a look-up in a table of stacks already sent, and two to four
 * words stored into the thread's slot. In sampled mode most calls are
 * not traced, only counted, on each entry point's fast path (fast_alloc,
 * fast_free). A full chunk of the slot (64 KiB of
 * records) is handed over to yardstick through the segment (a few stores,
 * no system call), or, when yardstick is a whole ring behind, after up
 * to 10 ms of waiting for it, written to the socket under a lock.
 *
 * Calls the agent makes into other code (libunwind, dl_iterate_phdr,
 * pthread functions) may allocate; a per-thread flag sends those, and any
 * call from a signal handler interrupting the agent, straight to glibc
 * untraced. Frees of blocks the agent never saw are recorded like any
 * other; yardstick ignores the ones it cannot match.
 *
 * Processes: the whole tree the program starts is traced, each program
 * image under its own number (protocol.h, images). Across an exec (a
 * wrapper script exec'ing the real program is common) the new image's
 * agent finds its process's image before it in the segment's table,
 * takes over the slots of the old image's threads and records the exec,
 * at which yardstick drops the old image's blocks. A forked child
 * becomes an image of its own in the fork itself (pthread_atfork): its
 * threads take slots of their own and it connects to yardstick anew
 * (the socket is its parent's). A process started with the agent
 * (posix_spawn, vfork and exec, a spawn of multiprocessing) whose
 * descriptors were closed asks yardstick for the segment on a
 * connection of its own.
 *
 * This file is built into its own shared object with no yardstick code
 * and no dependency beyond libc (libunwind is dlopen'ed, local to us).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <signal.h>
#include <time.h>

#include <unistd.h>
#include <x86intrin.h>

#include "heap/protocol.h"
#include "heap/stack_maps.h"
#include "heap/throttle.h"

#define EXPORT __attribute__((visibility("default")))
#define INLINE static inline __attribute__((always_inline))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

#include "heap/agent_next.h"
#include "heap/agent_pages.h"

enum { OFF, STARTING, ON };

static _Atomic int state = OFF;
static bool started;			/* init ran (traced or not) */
static struct heap_header *hdr;
static int sock = -1, shm_fd = -1;
static int sock_number;			/* the one we were handed */
static char sock_name[HEAP_NAME_MAX + 1];	/* where to connect again */
static int reconnects;
static dev_t sock_dev;			/* the socket's identity: a program */
static ino_t sock_ino;			/* may close it and reuse its number */
static uint32_t generation;		/* this image's number */
static int32_t my_pid;			/* the process this image is of */
static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t thread_key;
static uint64_t sample_bytes;
/* the throttle: a thread's HEAP_THROTTLE_WINDOW samples take at least
 * this many nanoseconds, or its interval doubles (0: no throttle;
 * heap/throttle.h) */
static uint64_t sample_window_ns;
static uint32_t ring_n;			/* buffers of a slot's ring we use */
static bool use_tsc;
static unsigned max_depth;
static bool use_unw;			/* walk with libunwind (else frame
					 * pointers): agent_unwind.h */
static _Atomic bool ending;		/* the process is exiting (agent_fini):
					 * the counts are published on each
					 * call of the thread that exits */
static _Atomic bool sending = true;	/* false once the socket failed:
					 * records stay in the slots (until
					 * full), the counts go on */

/* Stacks already sent: a direct-mapped cache of their hashes. A miss only
 * sends a stack again, which yardstick de-duplicates. */
#define SEEN_BITS 16
static _Atomic uint64_t *seen;
static _Atomic uint64_t seen_written[WRITTEN_WORDS(sizeof(uint64_t) << SEEN_BITS)];

/* The number of objects the dynamic linker has loaded when the maps were
 * last sent: a new one means new code, whose stacks need its mapping. */
static unsigned long long maps_adds;

/* A fork's child whose thread was inside the loader's lock (a signal
 * handler forked there: tstate.in_loader, in_walk): it is held for good,
 * dl_iterate_phdr would wait on it for ever, and no object can be loaded
 * or unloaded any more (after_fork_child). */
static bool loader_held;

/*
 * The image's unloads: dlcloses that removed an object (agent_unload.h).
 * Code loaded after one may sit at the addresses of the code it removed,
 * so the same return addresses are another stack: the count is part of
 * every stack's hash (a stack seen before an unload is sent again after
 * it), each STACK record says the count of the maps text it is to be
 * read with, and the maps are sent again after each unload (protocol.h).
 * maps_unloads: the count when the maps were last sent.
 */
static _Atomic uint32_t unloads;
static uint32_t maps_unloads;

/*
 * The code the unloads removed: the executable segments of the objects
 * gone, [lo, hi), the first n_gone of the table (written under
 * agent_unload.h's lock, n_gone stored after them); GONE_MAX + 1: more
 * than the table holds. libunwind's fast trace keeps the rule it learned
 * at each of those addresses, which the code loaded there since may not
 * follow (agent_unwind.h, walk_trace).
 */
#define GONE_MAX 256
static struct gone_range {
	uintptr_t lo, hi;
} gone[GONE_MAX];
static _Atomic uint32_t n_gone;
static pthread_mutex_t unload_lock = PTHREAD_MUTEX_INITIALIZER;

/* What every stack's hash starts from: the image's number << 40 plus its
 * unloads << 8, one load on the hot path (seed_stacks, agent_unload.h). */
static _Atomic uint64_t stack_seed;

/* After the image's number was set (one thread then: the start, a fork's
 * child). */
static void seed_stacks(void)
{
	atomic_store_explicit(&stack_seed,
			      ((uint64_t)generation << 40) +
			      ((uint64_t)atomic_load(&unloads) << 8),
			      memory_order_relaxed);
}

/*
 * Sampled mode's counts of a thread (tstate.counts), each a single add
 * on the fast path: the slot's heap_counts (protocol.h) are made from
 * them when published (agent_sample.h, counts_publish).
 */
struct thread_counts {
	/* by size class, all 64 of them: no clamp to HEAP_HIST on the fast
	 * path (those from HEAP_HIST - 1 on are its last when published) */
	uint64_t hist[64];
	uint64_t frees, temporary;
	/* the slot's bytes when taken, plus every countdown drawn since
	 * (net of what was left of the one before): the bytes allocated
	 * are this less what is left of the countdown now */
	int64_t drawn;
	/* these counts as they were when last added to the image's (at
	 * first the slot's: what its owners before counted) */
	struct heap_counts given;
};

struct tstate {
	/* first, in one cache line: what the fast path reads */
	struct heap_slot *slot;
	void *last_alloc;		/* for temporaries */
	/* sampled mode: the bytes until the next sample while the entry
	 * points' fast path is open (the thread has its slot and is not
	 * busy in the agent), and then at least 1; 0 (or less, for the
	 * moment of a call's subtraction undone) while it is closed, the
	 * count then in left (fast_close) */
	int64_t sample_left;
	int64_t left;
	/* where in the slot (word index, and the slot's seq then) the last
	 * ALLOC and the last BURST record went: a temporary is folded into
	 * them while they are the last records of the slot */
	uint64_t alloc_pos, alloc_seq, burst_pos, burst_seq;
	/* ... and in which slot: NULL, none (a position and seq of 0 are
	 * real ones, the slot's first record, so they cannot mean none) */
	struct heap_slot *alloc_slot, *burst_slot;
	uint64_t rng;
	/* the throttle (agent_sample.h, heap/throttle.h): the countdown in
	 * left is drawn at sample_bytes << throttle.raised; the sampled
	 * block being recorded was drawn at << rec_raised; samples since
	 * the window began */
	struct heap_throttle throttle;
	uint8_t rec_raised;
	uint32_t window;
	uintptr_t stack_lo, stack_hi;	/* frame-pointer walk bounds */
	uintptr_t walk_lo;		/* a walk's lowest word of the stack:
					 * trace_alloc's frame */
	void *alt;			/* the agent's stack (agent_stack.h) */
	struct stack_set *cache;	/* stacks walked (agent_unwind.h) */
	struct py_line_entry *py_lines;	/* lines (agent_python.h) */
	_Atomic uint64_t py_lines_written[2];	/* its pages written */
	struct py_frame *py_frames;	/* a walk's frames, HEAP_PY_MAX: off
					 * the program's stack (8 KiB) */
	uint8_t busy, dead, rounds;
	uint8_t in_walk;		/* inside libunwind (agent_unwind.h) */
	uint8_t alt_failed;		/* its mapping failed */
	uint8_t in_scratch;		/* glibc's allocations from scratch */
	uint8_t in_getattr;		/* in pthread_getattr_np (agent_first.h) */
	uint8_t sample_locked;		/* holds a stripe's lock: its number + 1
					 * (agent_sample.h) */
	uint8_t fork_locked;		/* took it for a fork (sample_fork_*) */
	uint8_t masked;			/* signals blocked for the thread's
					 * first call; held: the mask before
					 * (signals 1-64) (signals_hold) */
	uint8_t in_unload;		/* in dlclose (agent_unload.h) */
	uint8_t in_loader;		/* in dl_iterate_phdr (check_maps) */
	uint32_t cache_unloads;		/* unloads when cache was last emptied
					 * (agent_unwind.h) */
	/* the stack the thread sent last (protocol.h, stack tails): its
	 * slot (NULL: none to send a tail on) and the chunk's seq then,
	 * its hash, its frames' counts, the frames in sent (record_stack) */
	struct heap_slot *sent_slot;
	uint64_t sent_seq, sent_hash;
	uint32_t sent_n, sent_m;
	struct sent_stack *sent;
	uint8_t sent_failed;		/* its mapping failed */
	uint64_t held;
	uint16_t scratch_used;		/* bytes of scratch handed out */
	/* what glibc allocates while stack_bounds asks it (scratch_alloc):
	 * SCRATCH_BYTES at the top of the agent's stack's mapping
	 * (agent_stack.h), NULL without one */
	unsigned char *scratch;
	/* sampled mode's exact counts: the slot's, kept here while the
	 * thread owns it and stored into it on a sampled call and at the
	 * thread's, the fork's, the exec's and the process's end
	 * (agent_sample.h, counts_publish) */
	struct thread_counts counts;
};
static __thread struct tstate tls __attribute__((tls_model("initial-exec")));

#include "heap/agent_sample.h"

/* ---- clock, stacks ------------------------------------------------------ */

/*
 * Plain rdtsc, not rdtscp: it costs half as much, and an allocation's
 * stamp comes after the stack walk, far from the instructions that got
 * the block. yardstick still merges frees slightly early (analyze.c) so
 * that a block handed from one thread to another is never seen allocated
 * before it was freed.
 */
INLINE uint64_t stamp(void)
{
	struct timespec ts;

	if (likely(use_tsc))
		return __rdtsc() & HEAP_TS_MASK;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec) & HEAP_TS_MASK;
}

static uint64_t hash_stack(void *const *ips, int n)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ (uint64_t)n ^
		     atomic_load_explicit(&stack_seed, memory_order_relaxed);

	for (int i = 0; i < n; i++) {
		h ^= (uint64_t)(uintptr_t)ips[i];
		h *= 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	return h | 1;	/* 0 marks an empty cache entry */
}

/*
 * The agent's own code: stack walks leave out its frames, from the walk's
 * own up to the entry point's (and its slow path's, whether or not the
 * compiler made the call to it a jump).
 */
static uintptr_t agent_lo, agent_hi;

INLINE bool in_agent(uintptr_t ip)
{
	return ip - agent_lo < agent_hi - agent_lo;
}

struct text_find {
	uintptr_t addr, lo, hi;
};

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct text_find *f = arg;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    f->addr - lo < ph->p_memsz) {
			f->lo = lo;
			f->hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

/* The executable segment holding the code at addr, into lo and hi (left
 * alone if there is none). */
static void text_of(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
	struct text_find f = { addr, 0, 0 };

	if (dl_iterate_phdr(find_text, &f)) {
		*lo = f.lo;
		*hi = f.hi;
	}
}

/* The frame of the agent's outermost function on the stack, from the one
 * at fp (in the agent): the one whose return address is the program's. */
static uintptr_t agent_frame(uintptr_t fp)
{
	for (int k = 0; k < 8 && in_agent(((const uintptr_t *)fp)[1]); k++)
		fp = *(const uintptr_t *)fp;
	return fp;
}

#include "heap/agent_stats.h"
#include "heap/agent_unwind.h"

#include "heap/agent_fp.h"

#include "heap/agent_stack.h"

/*
 * The frame-pointer chain from our caller's frame (agent_fp.h), bounded
 * by the thread's stack above our own frame: a frame pointer that is not
 * one ends the walk instead of faulting.
 */
__attribute__((noinline)) static int walk_fp(void **ips, int max,
					     uintptr_t fp, struct tstate *t)
{
	uintptr_t lo = fp > t->stack_lo ? fp : t->stack_lo;

	return heap_fp_walk(ips, max, fp, lo, t->stack_hi);
}

#include "heap/agent_first.h"

/* ---- sending ------------------------------------------------------------ */

#include "heap/agent_send.h"

static int count_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(unsigned long long *)arg = info->dlpi_adds;
	return 1;
}

/*
 * Called before a new stack is recorded: its code must be in the maps,
 * sent again when an object was loaded or unloaded since. Returns the
 * unloads of the maps sent last, which the stack is read with: its code
 * was on the thread's stack when it was walked, so it was loaded then and
 * is not unloaded yet (a newer text holds it too).
 */
static uint32_t check_maps(void)
{
	unsigned long long adds = 0;
	uint32_t u = atomic_load(&unloads), sent;

	if (unlikely(loader_held)) {
		adds = 1;	/* nothing is loaded any more: sent once */
	} else {
		tls.in_loader = 1;
		dl_iterate_phdr(count_adds, &adds);
		tls.in_loader = 0;
	}
	pthread_mutex_lock(&send_lock);
	if ((adds != maps_adds || u != maps_unloads) &&
	    atomic_load(&sending) && sock_ready()) {
		maps_adds = adds;
		maps_unloads = u;
		send_maps(u);
	}
	sent = maps_unloads;
	pthread_mutex_unlock(&send_lock);
	return sent;
}

/* The buffer of s being filled (whatever the program wrote in cur). */
INLINE uint64_t *slot_buf(struct heap_slot *s)
{
	return s->data[atomic_load_explicit((_Atomic uint32_t *)&s->cur,
					    memory_order_relaxed) &
		       (HEAP_RING - 1)];
}

/*
 * Hand the full buffer (used bytes, chunk seq) over to yardstick through
 * the ring (protocol.h) and move on to another buffer yardstick gave
 * back, the first one: the buffers' pages count in the program's RSS, and
 * while yardstick keeps up only two or three of them are ever touched.
 * false if none is free.
 */
static bool hand_over(struct heap_slot *s, uint64_t used, uint64_t seq)
{
	uint32_t cur = atomic_load_explicit((_Atomic uint32_t *)&s->cur,
					    memory_order_relaxed) &
		       (HEAP_RING - 1);
	uint32_t next = 0;
	struct heap_chunk *c = &s->ring[cur];

	while (next < ring_n &&
	       (next == cur ||
		atomic_load_explicit((_Atomic uint32_t *)&s->ring[next].full,
				     memory_order_acquire)))
		next++;
	if (next >= ring_n)
		return false;
	c->seq = seq;
	c->len = (uint32_t)used;
	atomic_store_explicit((_Atomic uint32_t *)&c->full, 1,
			      memory_order_release);
	/* the buffer is yardstick's now. Emptied first, as after a send
	 * (flush_slot): killed before that, the process leaves the chunk
	 * as its remainder under the same seq, which yardstick takes once */
	atomic_store_explicit((_Atomic uint64_t *)&s->used, 0,
			      memory_order_release);
	atomic_store_explicit((_Atomic uint64_t *)&s->seq, seq + 1,
			      memory_order_release);
	atomic_store_explicit((_Atomic uint32_t *)&s->cur, next,
			      memory_order_release);
	atomic_fetch_add_explicit((_Atomic uint64_t *)&s->handed, 1,
				  memory_order_release);
	atomic_fetch_add_explicit((_Atomic uint64_t *)&hdr->handed, 1,
				  memory_order_release);
	return true;
}

/*
 * Hand the buffer over, waiting a little for yardstick to give one back
 * when the ring is full: yardstick is behind, most often for want of a
 * processor, which a thread of ours sleeping gives it (the socket would
 * cost a copy on each side and more of the processor). At most
 * HAND_WAITS sleeps of HAND_SLEEP_NS: a yardstick that stopped taking
 * leaves the socket, which fails if it is gone. With a ring made smaller
 * (YARDSTICK_HEAP_RING, to try the socket path) no wait: the socket at
 * once.
 */
#define HAND_WAITS 40
#define HAND_SLEEP_NS 250000

static bool hand_over_wait(struct heap_slot *s, uint64_t used, uint64_t seq)
{
	int waits = ring_n == HEAP_RING ? HAND_WAITS : 0;

	if (used > HEAP_SLOT_BYTES || ring_n < 2)
		return false;
	for (int k = 0; k <= waits; k++) {
		struct timespec ts = { 0, HAND_SLEEP_NS };

		if (hand_over(s, used, seq))
			return true;
		if (k < waits)
			nanosleep(&ts, NULL);
	}
	return false;
}

static void flush_slot(struct heap_slot *s)
{
	uint64_t used = atomic_load_explicit((_Atomic uint64_t *)&s->used,
					     memory_order_relaxed);
	uint64_t seq = atomic_load_explicit((_Atomic uint64_t *)&s->seq,
					    memory_order_relaxed);
	bool ok;

	if (hand_over_wait(s, used, seq))
		return;
	if (!atomic_load_explicit(&sending, memory_order_relaxed))
		return;
	pthread_mutex_lock(&send_lock);
	ok = atomic_load(&sending);
	if (ok && !sock_ready()) {
		/* closed, or its number reused, and no new connection:
		 * never write into a file the program opened */
		stop_sending();
		ok = false;
	}
	ok = ok && send_msg(HEAP_MSG_CHUNK, (uint32_t)(s - hdr->slots), seq,
			    slot_buf(s), (uint32_t)used);
	pthread_mutex_unlock(&send_lock);
	if (!ok) {
		/* the records stay in the slot for yardstick to take after
		 * the end; later ones that do not fit are dropped, counted */
		return;
	}
	/* sent: the contents are yardstick's now. Emptied first: a process
	 * killed before that leaves the sent chunk as its remainder under
	 * the same seq, which yardstick knows it has; killed between the two
	 * stores, it leaves nothing. */
	atomic_store_explicit((_Atomic uint64_t *)&s->used, 0,
			      memory_order_release);
	atomic_store_explicit((_Atomic uint64_t *)&s->seq, seq + 1,
			      memory_order_release);
}

/* Room for n words in s; records are appended whole or not at all. */
INLINE uint64_t *reserve(struct heap_slot *s, size_t n)
{
	uint64_t used = atomic_load_explicit((_Atomic uint64_t *)&s->used,
					     memory_order_relaxed);

	if (unlikely(used + n * 8 > HEAP_SLOT_BYTES)) {
		flush_slot(s);
		used = atomic_load_explicit((_Atomic uint64_t *)&s->used,
					    memory_order_relaxed);
		if (used + n * 8 > HEAP_SLOT_BYTES) {
			/* could not send: the record is dropped */
			s->counts.dropped++;
			return NULL;
		}
	}
	return &slot_buf(s)[used / 8];
}

INLINE void commit(struct heap_slot *s, size_t n)
{
	uint64_t used = atomic_load_explicit((_Atomic uint64_t *)&s->used,
					     memory_order_relaxed);

	atomic_store_explicit((_Atomic uint64_t *)&s->used, used + n * 8,
			      memory_order_release);
}

#include "heap/agent_tail.h"

/* ---- slots and threads -------------------------------------------------- */

/* Close sampled mode's fast path (tstate.sample_left). */
INLINE void fast_close(struct tstate *t)
{
	int64_t n = t->sample_left;

	if (n > 0) {
		t->left = n;
		t->sample_left = 0;
	}
}

static struct heap_slot *slot_take(void)
{
	for (int i = 0; i < HEAP_SLOTS; i++) {
		uint32_t free = 0;

		if (atomic_compare_exchange_strong(
			    (_Atomic uint32_t *)&hdr->slots[i].state, &free, 1)) {
			struct heap_slot *s = &hdr->slots[i];
			uint64_t *w;

			s->tid = (uint32_t)gettid();
			s->pid = my_pid;
			/* the slot's records from here on are ours */
			w = reserve(s, 2);
			if (w) {
				w[0] = ((uint64_t)HEAP_REC_IMAGE <<
					HEAP_TYPE_SHIFT) | stamp();
				w[1] = generation;
				commit(s, 2);
			}
			return s;
		}
	}
	return NULL;
}

static void slot_give(struct heap_slot *s)
{
	/* a free slot is no process's (collect.c, proc_ended) */
	s->pid = 0;
	atomic_store_explicit((_Atomic uint32_t *)&s->state, 0,
			      memory_order_release);
}

/*
 * A thread's end: its slot goes back, records and all (the next owner
 * appends after them). The destructor re-arms itself for a few rounds so
 * that the frees other keys' destructors make are still traced.
 */
static void py_thread_free(struct tstate *t);

static void thread_exit(void *arg)
{
	struct tstate *t = arg;
	struct heap_slot *s;

	if (t->rounds++ < 2) {
		pthread_setspecific(thread_key, t);
		return;
	}
	fast_close(t);
	counts_give(t);
	/* the slot out of the thread's state before it is given back: a
	 * signal handler's call meanwhile borrows one (t->dead) instead of
	 * writing into a slot another thread may own already */
	s = t->slot;
	t->dead = 1;
	t->slot = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	if (s)
		slot_give(s);
	stack_cache_free(t);
	py_thread_free(t);
	sent_stack_free(t);
	alt_stack_free(t);
}

/* (signals held: thread_first) sp: the program's stack pointer */
static bool thread_start(struct tstate *t, uintptr_t sp)
{
	t->slot = slot_take();
	if (!t->slot) {
		atomic_fetch_add((_Atomic uint32_t *)&hdr->overflow_threads, 1);
		t->dead = 1;
		signals_release(t);
		return false;
	}
	pthread_setspecific(thread_key, t);
	t->rng = 0x853c49e6748fea9bu ^ ((uint64_t)gettid() << 17);
	/* both walks need them: unwind_stack caches only stacks inside */
	stack_bounds(t, sp);
	if (use_unw) {
		t->cache_unloads = atomic_load(&unloads);
		t->cache = stack_cache_new();
	}
	if (sample_bytes)
		t->left = sample_interval(t);
	counts_take(t, t->slot);	/* after the countdown's start */
	return true;
}

struct start_call {
	struct tstate *t;
	uintptr_t sp;
	bool ok;
};

static __attribute__((noinline)) void thread_start_body(void *arg)
{
	struct start_call *c = arg;

	c->ok = thread_start(c->t, c->sp);
}

/* thread_start on the agent's stack (pthread_getattr_np reads
 * /proc/self/maps through stdio for the main thread: not on the
 * program's stack, which may be a coroutine's near its end). */
static __attribute__((noinline)) bool thread_first(struct tstate *t)
{
	struct start_call c = { t, (uintptr_t)__builtin_frame_address(0),
				false };
	void *top;

	/* until leave: a handler running in the first call would find the
	 * thread busy, its own calls (a fork's child's too) untraced; from
	 * before the agent's stack is mapped (tests/cli/mem_hostile.sh,
	 * forksig, lost a third of its children's blocks to a handler
	 * running during the mapping) */
	signals_hold(t);
	top = alt_stack_top(t);

	if (likely(top != NULL))
		run_on_stack(top, thread_start_body, &c);
	else
		thread_start_body(&c);
	if (!c.ok)
		alt_stack_free(t);
	return c.ok;
}

/* ---- CPython, start-up -------------------------------------------------- */

#include "heap/agent_python.h"

#include "heap/agent_start.h"

/* ---- recording ---------------------------------------------------------- */

/*
 * The thread state if this call is to be traced (and marks it busy), or
 * NULL. Inlined into every entry point: the stack walks start in the
 * entry point's frame.
 */
INLINE struct tstate *enter(void)
{
	struct tstate *t = &tls;

	if (unlikely(atomic_load_explicit(&state, memory_order_relaxed) !=
		     ON)) {
		if (!started)
			start();
		if (atomic_load_explicit(&state, memory_order_relaxed) != ON)
			return NULL;
	}
	if (unlikely(t->busy))
		return NULL;
	t->busy = 1;
	fast_close(t);
	/* not busy here (read again: a signal handler's fork may have come
	 * since the store): a fork's child abandoned this call
	 * (after_fork_child), whose first call then would not keep the
	 * program's calls out: untraced */
	if (unlikely(!t->slot) && !t->dead &&
	    (!*(volatile uint8_t *)&t->busy || !thread_first(t))) {
		t->busy = 0;
		return NULL;
	}
	/* before any stamp: yardstick leaves the slot's last records alone
	 * while the call may still fold into them (protocol.h) */
	if (likely(t->slot != NULL))
		atomic_store_explicit((_Atomic uint32_t *)&t->slot->busy, 1,
				      memory_order_relaxed);
	py_check_end(t);
	return t;
}

INLINE void leave(struct tstate *t)
{
	if (likely(t->slot != NULL))
		atomic_store_explicit((_Atomic uint32_t *)&t->slot->busy, 0,
				      memory_order_release);
	t->busy = 0;
	if (unlikely(atomic_load_explicit(&ending, memory_order_relaxed))) {
		counts_publish(t);	/* after agent_fini: at once */
		counts_to_image(t);
	} else if (sample_bytes && t->slot) {
		t->sample_left = t->left;	/* open again */
	}
	if (unlikely(t->masked))
		signals_release(t);	/* the thread's first call ends */
}

/* The slot to append to: the thread's, or for a thread past its end one
 * borrowed for this record. NULL for a call a fork's child abandoned
 * (after_fork_child: it began in the parent, whose it is; the child's
 * thread has no slot yet and is not dead). */
INLINE struct heap_slot *slot_of(struct tstate *t, bool *borrowed)
{
	*borrowed = false;
	if (likely(t->slot != NULL))
		return t->slot;
	if (!t->dead)
		return NULL;
	*borrowed = true;
	return slot_take();
}

/* *sent: the stack is known to have been sent (its cache entry says so);
 * set when it is sent, or found in seen. */
INLINE void record_alloc(struct tstate *t, void *p, size_t size,
			 const struct stack_ref *st, uint64_t h, bool *sent)
{
	bool borrowed;
	struct heap_slot *s = slot_of(t, &borrowed);
	uint64_t *w;

	if (!s)
		return;
	_Atomic uint64_t *e = &seen[h & ((1u << SEEN_BITS) - 1)];

	if (!*sent) {
		write_first(seen_written, seen, e);
		if (atomic_load_explicit(e, memory_order_relaxed) != h) {
			record_stack(t, s, h, st, borrowed);
			atomic_store_explicit(e, h, memory_order_relaxed);
		}
	}
	*sent = true;
	t->alloc_slot = NULL;
	w = reserve(s, 4);
	if (w) {
		w[0] = ((uint64_t)HEAP_REC_ALLOC << HEAP_TYPE_SHIFT) |
		       stamp();
		w[1] = (uint64_t)(uintptr_t)p;
		w[2] = size | (uint64_t)t->rec_raised << HEAP_SIZE_BITS;
		w[3] = h;
		commit(s, 4);
		if (!borrowed) {
			t->alloc_slot = s;
			t->alloc_pos = (uint64_t)(w - slot_buf(s));
			t->alloc_seq = s->seq;
		}
	}
	if (borrowed)
		slot_give(s);
}

INLINE void set_used(struct heap_slot *s, uint64_t words)
{
	atomic_store_explicit((_Atomic uint64_t *)&s->used, words * 8,
			      memory_order_release);
}

/*
 * A free of the thread's last allocation, whose ALLOC record is still the
 * slot's last one, the pair shorter than HEAP_FOLD_GAP: fold the pair
 * into the BURST record just before it if that is of the same stack and
 * ended less than HEAP_FOLD_GAP before the pair began, else turn it into
 * a BURST of its own. The
 * ALLOC record leaves the slot first, so that a process killed half-way
 * loses the pair, not the meaning of the records around it. Returns false
 * when the pair cannot be folded.
 */
INLINE bool fold_temporary(struct tstate *t, struct heap_slot *s, void *p,
			   uint64_t ts)
{
	uint64_t used = atomic_load_explicit((_Atomic uint64_t *)&s->used,
					     memory_order_relaxed) / 8;
	uint64_t at = t->alloc_pos, *w, *b, *buf;
	uint64_t size, h, t0;
	bool quick;

	if (t->alloc_slot != s || t->alloc_seq != s->seq || used != at + 4)
		return false;
	buf = slot_buf(s);
	w = &buf[at];
	if (w[0] >> HEAP_TYPE_SHIFT != HEAP_REC_ALLOC ||
	    w[1] != (uint64_t)(uintptr_t)p)
		return false;
	t->alloc_slot = NULL;	/* folded, or not: that record is done */
	size = w[2];
	h = w[3];
	t0 = w[0] & HEAP_TS_MASK;
	/* a block live longer than the gap is no run's: a run's largest
	 * block is taken to be live all along */
	quick = (int64_t)(ts - t0) < HEAP_FOLD_GAP;
	b = &buf[t->burst_pos];
	if (quick && t->burst_slot == s && t->burst_seq == s->seq &&
	    t->burst_pos + 6 == at &&
	    b[0] >> HEAP_TYPE_SHIFT == HEAP_REC_BURST && b[1] == h &&
	    (int64_t)(t0 - b[5]) < HEAP_FOLD_GAP) {
		set_used(s, at);
		b[2]++;
		b[3] += size;
		if (size > b[4])
			b[4] = size;
		b[5] = ts;
		return true;
	}
	/* a longer pair stays an ALLOC and a FREE_TEMP: a last ALLOC older
	 * than the gap then never changes, and yardstick can take it while
	 * the program runs (collect_live.c) */
	if (!quick || at + 6 > HEAP_SLOT_BYTES / 8)
		return false;
	set_used(s, at);
	w[0] = ((uint64_t)HEAP_REC_BURST << HEAP_TYPE_SHIFT) | t0;
	w[1] = h;
	w[2] = 1;
	w[3] = size;
	w[4] = size;
	w[5] = ts;
	set_used(s, at + 6);
	t->burst_slot = s;
	t->burst_pos = at;
	t->burst_seq = s->seq;
	return true;
}

INLINE void record_free(struct tstate *t, void *p, uint64_t ts, bool temp)
{
	bool borrowed;
	struct heap_slot *s = slot_of(t, &borrowed);
	uint64_t *w;

	if (!s)
		return;
	if (temp && !borrowed && !sample_bytes && fold_temporary(t, s, p, ts))
		return;
	w = reserve(s, 2);
	if (w) {
		w[0] = ((uint64_t)(temp ? HEAP_REC_FREE_TEMP : HEAP_REC_FREE)
			<< HEAP_TYPE_SHIFT) | ts;
		w[1] = (uint64_t)(uintptr_t)p;
		commit(s, 2);
	}
	if (borrowed)
		slot_give(s);
}

#include "heap/agent_count.h"

#include "heap/agent_trace.h"

/* The line the thread's next record goes to (the collector read it
 * last), fetched ahead of the record. (No slot: a fork's child whose
 * thread was between the fast path's test and this.) */
INLINE void record_prefetch(const struct tstate *t)
{
	const struct heap_slot *s = t->slot;

	if (s)
		__builtin_prefetch(&slot_buf((struct heap_slot *)s)[s->used / 8], 1);
}

/*
 * Sampled mode: an entry point's slow path with the fast path open is a
 * call that crosses a sample. The lines its record will need (the stack
 * cache's, where the record goes) are fetched before glibc's allocator
 * runs, which hides their misses: the program's work since the last
 * sample has pushed them out of the processor's caches. Inlined into the
 * slow path: the walk starts from its frame, as trace_alloc's does.
 */
INLINE void sample_prefetch(const struct tstate *t)
{
	uintptr_t fp1;

	if (!sample_bytes || t->sample_left <= 0 || !t->slot)
		return;
	record_prefetch(t);
	if (!use_unw || !t->cache)
		return;
	fp1 = agent_frame((uintptr_t)__builtin_frame_address(0));
	stack_prefetch(t, ((const uintptr_t *)fp1)[1], fp1 + 16,
		       ((const uintptr_t *)fp1)[0]);
}

/* After an allocation of size bytes at p by the entry point. */
INLINE void after_alloc(struct tstate *t, void *p, size_t size)
{
	count_alloc(t, p, size);
	if (!sample_bytes || sample_alloc(t, p, size))
		trace_alloc(t, p, size);
}

/* Is the free of p to be recorded? (In sampled mode: was p sampled? It
 * is asked before the block is released, while no other thread can be
 * handed it.) */
INLINE bool traced_free(void *p)
{
	return !sample_bytes || sample_free(p);
}

/* After the free of p (stamped ts if traced). */
INLINE void trace_free(struct tstate *t, void *p, uint64_t ts, bool traced)
{
	bool temp = count_free(t, p);

	if (traced)
		record_free(t, p, ts, temp);
}

#include "heap/agent_exec.h"

#include "heap/agent_unload.h"

/* ---- the entry points --------------------------------------------------- */

#include "heap/agent_entry.h"
