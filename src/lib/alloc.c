/*
 * Counting allocations inside the timed regions: this file defines
 * malloc, calloc, realloc, reallocarray, free and the aligned allocators,
 * counts the call when the calling thread is in a timed region
 * (lib_alloc_slot set by ys__begin, cleared by ys__end) and forwards it to
 * the next definition (the C library's, or another allocator's), found
 * with dlsym(RTLD_NEXT). A program linked with libyardstick calls these:
 * the executable and its libraries come before the C library in symbol
 * lookup. Outside a timed region (and with --no-alloc-count) a call costs
 * a thread-local load, two tests and a jump to the next allocator: keep
 * that path free of the counting (malloc_slow and co. are out of line).
 *
 * What is counted: an allocation is a malloc, calloc, aligned or
 * reallocating call, or a C++ operator new, that succeeded (its size in
 * bytes; realloc: the new size); a call that failed (NULL, or an error
 * from posix_memalign) counts nothing. A free is a free or operator
 * delete of a non-NULL pointer, or a realloc to size 0 that freed. Allocations made by
 * threads the body starts itself are not counted; an operator new that
 * throws leaves the rest of its timed region uncounted.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lib_internal.h"

__thread struct lib_alloc_count *lib_alloc_slot
	__attribute__((tls_model("initial-exec")));

/* malloc, calloc, realloc and free start at a function of this file
 * that finds the next one (so that their common path tests nothing else)
 * and then call that one directly. */
static void *malloc_first(size_t n);
static void *calloc_first(size_t k, size_t n);
static void *realloc_first(void *p, size_t n);
static void free_first(void *p);
static void *(*next_malloc)(size_t) = malloc_first;
static void *(*next_calloc)(size_t, size_t) = calloc_first;
static void *(*next_realloc)(void *, size_t) = realloc_first;
static void (*next_free)(void *) = free_first;
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

static void resolve(void)
{
	void *f;

	if (resolving)
		return;
	resolving = 1;
	/* a symbol not found leaves the first function in place: the arena
	 * serves it */
	if ((f = dlsym(RTLD_NEXT, "calloc")))
		next_calloc = (void *(*)(size_t, size_t))f;
	if ((f = dlsym(RTLD_NEXT, "malloc")))
		next_malloc = (void *(*)(size_t))f;
	if ((f = dlsym(RTLD_NEXT, "realloc")))
		next_realloc = (void *(*)(void *, size_t))f;
	if ((f = dlsym(RTLD_NEXT, "free")))
		next_free = (void (*)(void *))f;
	next_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT,
							 "memalign");
	next_posix_memalign = (int (*)(void **, size_t, size_t))
		dlsym(RTLD_NEXT, "posix_memalign");
	next_aligned_alloc = (void *(*)(size_t, size_t))
		dlsym(RTLD_NEXT, "aligned_alloc");
	next_valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
	next_pvalloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "pvalloc");
	resolving = 0;
}

__attribute__((constructor(101))) static void alloc_init(void)
{
	resolve();
}

/* Count an allocation of n bytes that succeeded (p non-NULL) on the
 * calling thread's counter, when it has one. A failed call counts
 * nothing: it allocated nothing, and its size (SIZE_MAX, say) would wrap
 * the byte counter. */
static inline void *counted(struct lib_alloc_count *c, void *p, size_t n)
{
	if (p) {
		c->allocs++;
		c->bytes += n;
	}
	return p;
}

/* The first calls: find the next allocator (dlsym may allocate itself:
 * the arena serves it, and whatever comes while it is not found). */
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

/* A block of the arena moved out (its size is not kept: copy what the
 * arena holds after it). */
static void *realloc_boot(void *p, size_t n)
{
	void *q = malloc(n);
	size_t avail = (size_t)(boot + sizeof(boot) - (char *)p);

	if (q && p)
		memcpy(q, p, n < avail ? n : avail);
	return q;
}

static void *realloc_first(void *p, size_t n)
{
	resolve();
	if (next_realloc != realloc_first)
		return next_realloc(p, n);
	return realloc_boot(p, n);
}

static void free_first(void *p)
{
	resolve();
	if (next_free != free_first)
		next_free(p);
}

/*
 * Each entry point: outside a timed region (no counter) one thread-local
 * load, a test and a jump to the next allocator; inside one (out of
 * line, so that the common path stays that), the call, and its result
 * counted when it succeeded.
 */
static __attribute__((noinline)) void *malloc_slow(struct lib_alloc_count *c,
						   size_t n)
{
	return counted(c, next_malloc(n), n);
}

void *malloc(size_t n)
{
	struct lib_alloc_count *c = lib_alloc_slot;

	if (__builtin_expect(c == NULL, 1))
		return next_malloc(n);
	return malloc_slow(c, n);
}

static __attribute__((noinline)) void *calloc_slow(struct lib_alloc_count *c,
						   size_t k, size_t n)
{
	size_t total;

	if (__builtin_mul_overflow(k, n, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return counted(c, next_calloc(k, n), total);
}

/* (the next calloc checks k x n for overflow itself) */
void *calloc(size_t k, size_t n)
{
	struct lib_alloc_count *c = lib_alloc_slot;

	if (__builtin_expect(c == NULL, 1))
		return next_calloc(k, n);
	return calloc_slow(c, k, n);
}

static __attribute__((noinline)) void free_slow(struct lib_alloc_count *c,
						void *p)
{
	if (c && p)
		c->frees++;
	if (!in_boot(p))
		next_free(p);
}

void free(void *p)
{
	struct lib_alloc_count *c = lib_alloc_slot;

	if (__builtin_expect(c == NULL && !in_boot(p), 1))
		next_free(p);
	else
		free_slow(c, p);
}

/* realloc to size 0 frees the block (glibc returns NULL); to another size
 * it is an allocation of the new size when it succeeds; when it fails
 * the block stays and nothing is counted. */
static __attribute__((noinline)) void *realloc_slow(struct lib_alloc_count *c,
						    void *p, size_t n)
{
	void *q;

	if (p && in_boot(p))
		return realloc_boot(p, n);
	q = next_realloc(p, n);
	if (c && p && n == 0 && !q)
		c->frees++;
	else if (c)
		counted(c, q, n);
	return q;
}

void *realloc(void *p, size_t n)
{
	struct lib_alloc_count *c = lib_alloc_slot;

	if (__builtin_expect(c == NULL && !in_boot(p), 1))
		return next_realloc(p, n);
	return realloc_slow(c, p, n);
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

void *memalign(size_t align, size_t n)
{
	struct lib_alloc_count *c = lib_alloc_slot;

	if (__builtin_expect(!next_memalign, 0))
		resolve();
	if (__builtin_expect(c != NULL, 0))
		return counted(c, next_memalign(align, n), n);
	return next_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	struct lib_alloc_count *c = lib_alloc_slot;
	int rc;

	if (__builtin_expect(!next_posix_memalign, 0))
		resolve();
	rc = next_posix_memalign(out, align, n);
	if (__builtin_expect(c != NULL, 0) && rc == 0)
		counted(c, *out, n);
	return rc;
}

void *aligned_alloc(size_t align, size_t n)
{
	struct lib_alloc_count *c = lib_alloc_slot;

	if (__builtin_expect(!next_aligned_alloc, 0))
		resolve();
	if (__builtin_expect(c != NULL, 0))
		return counted(c, next_aligned_alloc(align, n), n);
	return next_aligned_alloc(align, n);
}

void *valloc(size_t n)
{
	struct lib_alloc_count *c = lib_alloc_slot;

	if (__builtin_expect(!next_valloc, 0))
		resolve();
	if (__builtin_expect(c != NULL, 0))
		return counted(c, next_valloc(n), n);
	return next_valloc(n);
}

void *pvalloc(size_t n)
{
	struct lib_alloc_count *c = lib_alloc_slot;

	if (__builtin_expect(!next_pvalloc, 0))
		resolve();
	if (__builtin_expect(c != NULL, 0))
		return counted(c, next_pvalloc(n), n);
	return next_pvalloc(n);
}

/*
 * C++'s operator new and delete (their Itanium ABI names, size_t being
 * unsigned long): libstdc++'s call malloc and free, but a sanitizer's
 * runtime or another allocator may replace them, and then they would not
 * reach ours. Each is counted here and forwarded to the next definition;
 * while it runs, the thread's counter is off, so that the malloc it makes
 * is not counted twice. Outside a timed region each is a thread-local
 * load, a test and a jump (the counting is out of line, slow_*).
 */
#define NEW_FN(sym, params, args)                                           \
	static void *first_##sym params;                                    \
	static void *(*next_##sym) params = first_##sym;                    \
	static void *first_##sym params                                     \
	{                                                                   \
		void *f = dlsym(RTLD_NEXT, #sym);                           \
									    \
		if (!f) /* no C++ runtime after us */                       \
			return malloc(n);                                   \
		*(void **)&next_##sym = f;                                  \
		return next_##sym args;                                     \
	}                                                                   \
	static __attribute__((noinline)) void *slow_##sym params            \
	{                                                                   \
		struct lib_alloc_count *c = lib_alloc_slot;                 \
		void *p;                                                    \
									    \
		lib_alloc_slot = NULL;                                      \
		p = next_##sym args;                                        \
		lib_alloc_slot = c;                                         \
		return counted(c, p, n);                                    \
	}                                                                   \
	void *sym params;                                                   \
	void *sym params                                                    \
	{                                                                   \
		if (__builtin_expect(lib_alloc_slot == NULL, 1))            \
			return next_##sym args;                             \
		return slow_##sym args;                                     \
	}

#define DELETE_FN(sym, params, args)                                        \
	static void first_##sym params;                                     \
	static void (*next_##sym) params = first_##sym;                     \
	static void first_##sym params                                      \
	{                                                                   \
		void *f = dlsym(RTLD_NEXT, #sym);                           \
									    \
		if (!f) {                                                   \
			free(p);                                            \
			return;                                             \
		}                                                           \
		*(void **)&next_##sym = f;                                  \
		next_##sym args;                                            \
	}                                                                   \
	static __attribute__((noinline)) void slow_##sym params             \
	{                                                                   \
		struct lib_alloc_count *c = lib_alloc_slot;                 \
									    \
		if (p)                                                      \
			c->frees++;                                         \
		lib_alloc_slot = NULL;                                      \
		next_##sym args;                                            \
		lib_alloc_slot = c;                                         \
	}                                                                   \
	void sym params;                                                    \
	void sym params                                                     \
	{                                                                   \
		if (__builtin_expect(lib_alloc_slot == NULL, 1))            \
			next_##sym args;                                    \
		else                                                        \
			slow_##sym args;                                    \
	}

/* new, new[]; nothrow; aligned; aligned nothrow */
NEW_FN(_Znwm, (size_t n), (n))
NEW_FN(_Znam, (size_t n), (n))
NEW_FN(_ZnwmRKSt9nothrow_t, (size_t n, const void *t), (n, t))
NEW_FN(_ZnamRKSt9nothrow_t, (size_t n, const void *t), (n, t))
NEW_FN(_ZnwmSt11align_val_t, (size_t n, size_t a), (n, a))
NEW_FN(_ZnamSt11align_val_t, (size_t n, size_t a), (n, a))
NEW_FN(_ZnwmSt11align_val_tRKSt9nothrow_t,
       (size_t n, size_t a, const void *t), (n, a, t))
NEW_FN(_ZnamSt11align_val_tRKSt9nothrow_t,
       (size_t n, size_t a, const void *t), (n, a, t))
/* delete, delete[]; sized; nothrow; aligned; sized aligned */
DELETE_FN(_ZdlPv, (void *p), (p))
DELETE_FN(_ZdaPv, (void *p), (p))
DELETE_FN(_ZdlPvm, (void *p, size_t n), (p, n))
DELETE_FN(_ZdaPvm, (void *p, size_t n), (p, n))
DELETE_FN(_ZdlPvRKSt9nothrow_t, (void *p, const void *t), (p, t))
DELETE_FN(_ZdaPvRKSt9nothrow_t, (void *p, const void *t), (p, t))
DELETE_FN(_ZdlPvSt11align_val_t, (void *p, size_t a), (p, a))
DELETE_FN(_ZdaPvSt11align_val_t, (void *p, size_t a), (p, a))
DELETE_FN(_ZdlPvmSt11align_val_t, (void *p, size_t n, size_t a), (p, n, a))
DELETE_FN(_ZdaPvmSt11align_val_t, (void *p, size_t n, size_t a), (p, n, a))

/* An allocation through a pointer the compiler cannot see through, so
 * that it is not elided. */
static void *(*volatile probe_malloc)(size_t) = malloc;

bool lib_alloc_works(void)
{
	struct lib_alloc_count c = { 0, 0, 0 };
	void *p;

	lib_alloc_slot = &c;
	p = probe_malloc(24);
	lib_alloc_slot = NULL;
	free(p);
	return c.allocs == 1 && c.bytes == 24;
}
