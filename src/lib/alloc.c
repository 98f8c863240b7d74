/*
 * libyardstick_alloc: counting a benchmark's allocations. This file is a
 * library of its own (libyardstick_alloc.a), linked into the executable
 * only when the program asks for counting (-lyardstick_alloc, meson's
 * yardstick_alloc_dep): a program that does not link it keeps the C
 * library's malloc, untouched. libyardstick finds it through
 * ys__alloc_counts_v1 (alloc.h), a weak reference.
 *
 * It defines malloc, calloc, realloc, reallocarray, free, the aligned
 * allocators and C++'s operator new and delete, and forwards each to the
 * next definition (the C library's, or an allocator linked after it),
 * found with dlsym(RTLD_NEXT). Defined in the executable, they come
 * before every shared library's, a sanitizer's runtime included.
 *
 * Design notes (the cost is the product: bench/alloc_count_cost.sh):
 *  1. Every call that succeeded is counted, on a thread-local counter,
 *     always: no test of "in a timed region". libyardstick reads the
 *     counters when a timed region starts and ends and keeps the
 *     difference. A branch-free count is cheaper inside a timed region
 *     than a test that sends the counting out of line; outside one the
 *     counting costs a few instructions nobody times.
 *  2. The thread-locals are local-exec (-ftls-model=local-exec, the
 *     model of an executable's own): one %fs-relative add, no GOT load.
 *     So this object must be linked into the executable, not into a
 *     shared library (the linker refuses it there).
 *  3. malloc & co. start at a function that finds the next one
 *     (resolve), then call it through a pointer: the common path tests
 *     nothing. While dlsym looks them up it may allocate: a static arena
 *     serves it, and free and realloc check for its blocks only when it
 *     served any (their pointer then goes through *_boot).
 *  4. C++: libstdc++'s operator new calls malloc and its delete calls
 *     free, so counting those counts new and delete. The first call of
 *     any of them probes the next new and delete: when they reach this
 *     file's malloc and free (libstdc++), each of ours is a jump to the
 *     next one and counts nothing itself; when they do not (a sanitizer's
 *     runtime, an allocator replacing them), each counts the call. Either
 *     way a new is counted once. When the next ones are libstdc++'s, ours
 *     do what libstdc++'s do without going through them (fast_*): a new
 *     calls the next malloc and counts it, and hands a failure to
 *     libstdc++'s new (its new-handler loop, std::bad_alloc); a delete
 *     counts and calls the next free. A new/delete pair then costs no
 *     more instructions than the C library's alone under libstdc++'s
 *     (whose sized delete calls the unsized one, which calls free, each
 *     through the PLT): bench/alloc_count_cost.sh.
 *
 * What is counted: an allocation is a malloc, calloc, aligned or
 * reallocating call, or a C++ operator new, that succeeded (its size in
 * bytes; realloc: the new size); a call that failed (NULL, or an error
 * from posix_memalign) counts nothing. A free is a free or operator
 * delete of a non-NULL pointer, or a realloc to size 0 that freed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"

static __thread struct ys__alloc_counts counts;

const struct ys__alloc_counts *ys__alloc_counts_v1(void)
{
	return &counts;
}

static inline void *counted(void *p, size_t n)
{
	if (__builtin_expect(p != NULL, 1)) {
		counts.allocs++;
		counts.bytes += n;
	}
	return p;
}

/* ---- finding the next allocator ---- */

static void *malloc_first(size_t n);
static void *calloc_first(size_t k, size_t n);
static void *realloc_first(void *p, size_t n);
static void free_first(void *p);
static void *(*next_malloc)(size_t) = malloc_first;
static void *(*next_calloc)(size_t, size_t) = calloc_first;
static void *(*next_realloc)(void *, size_t) = realloc_first;
static void (*next_free)(void *) = free_first;
/* the next realloc and free themselves (next_*: maybe through *_boot) */
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static void *(*next_memalign)(size_t, size_t);
static int (*next_posix_memalign)(void **, size_t, size_t);
static void *(*next_aligned_alloc)(size_t, size_t);
static void *(*next_valloc)(size_t);
static void *(*next_pvalloc)(size_t);

/* While dlsym looks the functions up it may allocate itself: from this
 * arena, never freed. */
static _Alignas(64) char boot[16384];
static size_t boot_used;
static int resolving;

static void *boot_alloc(size_t n)
{
	size_t at = (boot_used + 15) & ~(size_t)15;

	if (n > sizeof(boot) - at)
		return NULL;
	boot_used = at + n;
	return boot + at;
}

static bool in_boot(const void *p)
{
	return (uintptr_t)p - (uintptr_t)boot < sizeof(boot);
}

static void free_boot(void *p)
{
	if (!in_boot(p) && real_free)
		real_free(p);
}

/* A block of the arena moved out (its size is not kept: copy what the
 * arena holds after it). */
static void *realloc_boot(void *p, size_t n)
{
	void *q;
	size_t avail;

	if (!p || !in_boot(p))
		return real_realloc ? real_realloc(p, n) : next_malloc(n);
	q = next_malloc(n);
	avail = (size_t)(boot + sizeof(boot) - (char *)p);
	if (q)
		memcpy(q, p, n < avail ? n : avail);
	return q;
}

static void *sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* Find the next allocator (once; a call made meanwhile, by dlsym, is
 * served by the arena). What dlsym allocates is not the program's: the
 * calling thread's counters are left as they were. */
static void resolve(void)
{
	struct ys__alloc_counts saved = counts;
	void *f;

	if (resolving)
		return;
	resolving = 1;
	/* a symbol not found leaves the first function in place: the arena
	 * serves it */
	if ((f = sym("calloc")))
		next_calloc = (void *(*)(size_t, size_t))f;
	if ((f = sym("malloc")))
		next_malloc = (void *(*)(size_t))f;
	real_realloc = (void *(*)(void *, size_t))sym("realloc");
	real_free = (void (*)(void *))sym("free");
	next_memalign = (void *(*)(size_t, size_t))sym("memalign");
	next_posix_memalign = (int (*)(void **, size_t, size_t))
		sym("posix_memalign");
	next_aligned_alloc = (void *(*)(size_t, size_t))sym("aligned_alloc");
	next_valloc = (void *(*)(size_t))sym("valloc");
	next_pvalloc = (void *(*)(size_t))sym("pvalloc");
	/* the arena's blocks, if it served any, must not reach the next
	 * free or realloc */
	if (boot_used || next_malloc == malloc_first ||
	    next_calloc == calloc_first || !real_free || !real_realloc) {
		next_free = free_boot;
		next_realloc = realloc_boot;
	} else {
		next_free = real_free;
		next_realloc = real_realloc;
	}
	resolving = 0;
	counts = saved;
}

__attribute__((constructor(101))) static void alloc_init(void)
{
	if (next_free == free_first)
		resolve();
}

static void *malloc_first(size_t n)
{
	resolve();
	return next_malloc != malloc_first ? next_malloc(n) : boot_alloc(n);
}

static void *calloc_first(size_t k, size_t n)
{
	size_t total;

	resolve();
	if (next_calloc != calloc_first)
		return next_calloc(k, n);
	if (__builtin_mul_overflow(k, n, &total))
		return NULL;
	return boot_alloc(total);	/* static storage: zeroed */
}

static void *realloc_first(void *p, size_t n)
{
	resolve();
	return next_realloc != realloc_first ? next_realloc(p, n)
					     : realloc_boot(p, n);
}

static void free_first(void *p)
{
	resolve();
	if (next_free != free_first)
		next_free(p);
}

/* ---- the C entry points ---- */

void *malloc(size_t n)
{
	return counted(next_malloc(n), n);
}

/* (a product k x n that overflows fails in the next calloc: counted
 * only when it succeeded, k x n is exact) */
void *calloc(size_t k, size_t n)
{
	return counted(next_calloc(k, n), k * n);
}

void free(void *p)
{
	counts.frees += p != NULL;
	next_free(p);
}

/* realloc to size 0 frees the block (glibc returns NULL); to another size
 * it is an allocation of the new size when it succeeds; when it fails
 * the block stays and nothing is counted. */
void *realloc(void *p, size_t n)
{
	void *q = next_realloc(p, n);

	if (q) {
		counts.allocs++;
		counts.bytes += n;
	} else if (p && n == 0) {
		counts.frees++;
	}
	return q;
}

void *reallocarray(void *p, size_t k, size_t n)
{
	size_t total;

	if (__builtin_mul_overflow(k, n, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, total);
}

/* The aligned ones are rare: each checks that the lookup was done. */
#define ENSURE(f)                                                           \
	do {                                                                \
		if (__builtin_expect(!(f), 0))                              \
			resolve();                                          \
		if (!(f)) {                                                 \
			errno = ENOMEM;                                     \
			return 0;                                           \
		}                                                           \
	} while (0)

void *memalign(size_t align, size_t n)
{
	ENSURE(next_memalign);
	return counted(next_memalign(align, n), n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	int rc;

	if (__builtin_expect(!next_posix_memalign, 0))
		resolve();
	if (!next_posix_memalign)
		return ENOMEM;
	rc = next_posix_memalign(out, align, n);
	if (rc == 0)
		counted(*out, n);
	return rc;
}

void *aligned_alloc(size_t align, size_t n)
{
	ENSURE(next_aligned_alloc);
	return counted(next_aligned_alloc(align, n), n);
}

void *valloc(size_t n)
{
	ENSURE(next_valloc);
	return counted(next_valloc(n), n);
}

void *pvalloc(size_t n)
{
	ENSURE(next_pvalloc);
	return counted(next_pvalloc(n), n);
}

/* ---- C++'s operator new and delete (design note 4) ---- */

enum cxx_mode { CXX_UNKNOWN, CXX_THROUGH_MALLOC, CXX_COUNT_HERE };

static enum cxx_mode new_mode, delete_mode;

/* Whether the next operator new and delete reach this file's malloc and
 * free: one new(1) and its delete, the calling thread's counters
 * restored afterwards. No C++ runtime after this file (a C program):
 * ours call malloc and free, which count. */
static void cxx_probe(void)
{
	struct ys__alloc_counts before = counts, mid;
	void *(*nw)(size_t) = (void *(*)(size_t))sym("_Znwm");
	void (*del)(void *) = (void (*)(void *))sym("_ZdlPv");
	void *p;

	if (!nw || !del) {
		__atomic_store_n(&delete_mode, CXX_THROUGH_MALLOC,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&new_mode, CXX_THROUGH_MALLOC,
				 __ATOMIC_RELAXED);
		return;
	}
	p = nw(1);
	mid = counts;
	del(p);
	__atomic_store_n(&delete_mode, counts.frees > mid.frees
				       ? CXX_THROUGH_MALLOC : CXX_COUNT_HERE,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&new_mode, mid.allocs > before.allocs
				    ? CXX_THROUGH_MALLOC : CXX_COUNT_HERE,
			 __ATOMIC_RELAXED);
	counts = before;
}

static enum cxx_mode cxx_mode(enum cxx_mode *m)
{
	if (__atomic_load_n(m, __ATOMIC_RELAXED) == CXX_UNKNOWN)
		cxx_probe();
	return __atomic_load_n(m, __ATOMIC_RELAXED);
}

/* Is f in libstdc++ (whose new calls malloc and whose delete calls free,
 * and nothing else a program could observe)? */
static bool in_libstdcxx(void *f)
{
	Dl_info info;

	return dladdr(f, &info) && info.dli_fname &&
	       strstr(info.dli_fname, "libstdc++.so");
}

/*
 * Each operator: next_X starts at first_X, which looks the next
 * definition up (real_X) and points next_X at it (it counts through
 * malloc), at fast_X (it is libstdc++'s: design note 4) or at count_X (it counts here: a new that succeeded, a delete
 * of a non-NULL pointer once, whatever frees it counted beneath, a sized
 * delete calling the unsized one, say). No next definition: malloc or
 * free stand in. Allocations the runtime makes for itself during a new
 * are counted as what they are: libstdc++'s nothrow new that fails
 * throws, and catches, a std::bad_alloc, whose object is allocated (one
 * malloc and its free).
 */
#define SET_NEXT(sym_, mode_, fast_)                                        \
	do {                                                                \
		void *f = sym(#sym_);                                       \
		void *to = (void *)count_##sym_, *fast = (void *)(fast_);   \
									    \
		*(void **)&real_##sym_ = f;                                 \
		if (f && cxx_mode(&mode_) == CXX_THROUGH_MALLOC)            \
			to = fast && in_libstdcxx(f) ? fast : f;            \
		__atomic_store_n((void **)&next_##sym_, to,                 \
				 __ATOMIC_RELAXED);                         \
	} while (0)

#define NEW_FN(sym_, params, args, fast_)                                   \
	static void *first_##sym_ params;                                   \
	static void *(*next_##sym_) params = first_##sym_;                  \
	static void *(*real_##sym_) params; /* (again: FAST_NEW) */         \
	static void *count_##sym_ params                                    \
	{                                                                   \
		if (!real_##sym_) /* no C++ runtime after us */             \
			return malloc(n);                                   \
		return counted(real_##sym_ args, n);                        \
	}                                                                   \
	static void *first_##sym_ params                                    \
	{                                                                   \
		SET_NEXT(sym_, new_mode, fast_);                            \
		return next_##sym_ args;                                    \
	}                                                                   \
	void *sym_ params;                                                  \
	void *sym_ params                                                   \
	{                                                                   \
		return next_##sym_ args;                                    \
	}

#define DELETE_FN(sym_, params, args, fast_)                                \
	static void first_##sym_ params;                                    \
	static void (*next_##sym_) params = first_##sym_;                   \
	static void (*real_##sym_) params;                                  \
	static void count_##sym_ params                                     \
	{                                                                   \
		uint64_t frees = counts.frees;                              \
									    \
		if (!real_##sym_) {                                         \
			free(p);                                            \
			return;                                             \
		}                                                           \
		real_##sym_ args;                                           \
		counts.frees = frees + (p != NULL);                         \
	}                                                                   \
	static void first_##sym_ params                                     \
	{                                                                   \
		SET_NEXT(sym_, delete_mode, fast_);                         \
		next_##sym_ args;                                           \
	}                                                                   \
	void sym_ params;                                                   \
	void sym_ params                                                    \
	{                                                                   \
		next_##sym_ args;                                           \
	}

/*
 * libstdc++'s new and delete, done here (design note 4). A new whose
 * malloc failed is handed to libstdc++'s own (real_X, set before next_X
 * points here), which calls malloc again, counted if it succeeds, runs
 * the new-handler and throws or returns NULL as the standard says.
 */
#define FAST_NEW(sym_, params, args)                                        \
	static void *(*real_##sym_) params;                                 \
	static void *fast_##sym_ params                                     \
	{                                                                   \
		void *p = next_malloc(n);                                   \
									    \
		if (__builtin_expect(p != NULL, 1)) {                       \
			counts.allocs++;                                    \
			counts.bytes += n;                                  \
			return p;                                           \
		}                                                           \
		return real_##sym_ args;                                    \
	}

#define FAST_DELETE(sym_, params)                                           \
	static void fast_##sym_ params                                      \
	{                                                                   \
		counts.frees += p != NULL;                                  \
		next_free(p);                                               \
	}

#define UNUSED __attribute__((unused))
FAST_NEW(_Znwm, (size_t n), (n))
FAST_NEW(_Znam, (size_t n), (n))
FAST_NEW(_ZnwmRKSt9nothrow_t, (size_t n, const void *t), (n, t))
FAST_NEW(_ZnamRKSt9nothrow_t, (size_t n, const void *t), (n, t))
FAST_DELETE(_ZdlPv, (void *p))
FAST_DELETE(_ZdaPv, (void *p))
FAST_DELETE(_ZdlPvm, (void *p, size_t n UNUSED))
FAST_DELETE(_ZdaPvm, (void *p, size_t n UNUSED))
FAST_DELETE(_ZdlPvRKSt9nothrow_t, (void *p, const void *t UNUSED))
FAST_DELETE(_ZdaPvRKSt9nothrow_t, (void *p, const void *t UNUSED))

/* new, new[]; nothrow; aligned; aligned nothrow (the aligned ones go
 * through libstdc++'s: its aligned_alloc rounds the size up) */
NEW_FN(_Znwm, (size_t n), (n), fast__Znwm)
NEW_FN(_Znam, (size_t n), (n), fast__Znam)
NEW_FN(_ZnwmRKSt9nothrow_t, (size_t n, const void *t), (n, t),
       fast__ZnwmRKSt9nothrow_t)
NEW_FN(_ZnamRKSt9nothrow_t, (size_t n, const void *t), (n, t),
       fast__ZnamRKSt9nothrow_t)
NEW_FN(_ZnwmSt11align_val_t, (size_t n, size_t a), (n, a), NULL)
NEW_FN(_ZnamSt11align_val_t, (size_t n, size_t a), (n, a), NULL)
NEW_FN(_ZnwmSt11align_val_tRKSt9nothrow_t,
       (size_t n, size_t a, const void *t), (n, a, t), NULL)
NEW_FN(_ZnamSt11align_val_tRKSt9nothrow_t,
       (size_t n, size_t a, const void *t), (n, a, t), NULL)
/* delete, delete[]; sized; nothrow; aligned; sized aligned */
DELETE_FN(_ZdlPv, (void *p), (p), fast__ZdlPv)
DELETE_FN(_ZdaPv, (void *p), (p), fast__ZdaPv)
DELETE_FN(_ZdlPvm, (void *p, size_t n), (p, n), fast__ZdlPvm)
DELETE_FN(_ZdaPvm, (void *p, size_t n), (p, n), fast__ZdaPvm)
DELETE_FN(_ZdlPvRKSt9nothrow_t, (void *p, const void *t), (p, t),
	  fast__ZdlPvRKSt9nothrow_t)
DELETE_FN(_ZdaPvRKSt9nothrow_t, (void *p, const void *t), (p, t),
	  fast__ZdaPvRKSt9nothrow_t)
DELETE_FN(_ZdlPvSt11align_val_t, (void *p, size_t a), (p, a), NULL)
DELETE_FN(_ZdaPvSt11align_val_t, (void *p, size_t a), (p, a), NULL)
DELETE_FN(_ZdlPvmSt11align_val_t, (void *p, size_t n, size_t a), (p, n, a),
	  NULL)
DELETE_FN(_ZdaPvmSt11align_val_t, (void *p, size_t n, size_t a), (p, n, a),
	  NULL)
