/*
 * Allocation patterns for bench/mem_patterns.sh, each one a way real
 * programs use the heap that the fast path for immediate temporaries does
 * not cover. Built plainly (as a user's program would be).
 *
 *   alloc_patterns window T N     T threads, each N allocations of 16 to
 *                                 1039 bytes, each replacing (freeing) a
 *                                 random one of 64 live blocks
 *   alloc_patterns prodcons N     one thread allocates N blocks of 16 to
 *                                 527 bytes, another frees them, through
 *                                 a queue of 1024
 *   alloc_patterns realloc N      N buffers grown by realloc, 16 bytes at
 *                                 a time, to 4 KiB, then freed
 *   alloc_patterns longlived N    N blocks of 24 to 87 bytes kept until
 *                                 the end (a growing heap: a parser's
 *                                 tree), then freed in allocation order
 *   alloc_patterns temps T N      T threads, each N malloc/free pairs of
 *                                 16 to 271 bytes (immediate temporaries)
 *   alloc_patterns deep N         N allocations of 48 bytes, each made at
 *                                 a call depth from 10 to 73 (a
 *                                 compiler's varied, deep stacks), each
 *                                 replacing one of 256 live blocks
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long n_allocs;
static void *volatile sink;

static uint32_t next(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort();
	memset(p, 1, n < 64 ? n : 64);
	return p;
}

static void *window(void *arg)
{
	void *live[64] = { 0 };
	uint32_t x = (uint32_t)(uintptr_t)arg * 2654435761u + 1;

	for (long i = 0; i < n_allocs; i++) {
		uint32_t r = next(&x);
		unsigned k = r >> 24 & 63;

		free(live[k]);
		live[k] = xmalloc(16 + (r & 1023));
	}
	for (int k = 0; k < 64; k++)
		free(live[k]);
	return NULL;
}

static void *temps(void *arg)
{
	uint32_t x = (uint32_t)(uintptr_t)arg * 2654435761u + 1;

	for (long i = 0; i < n_allocs; i++) {
		void *p = xmalloc(16 + (next(&x) & 255));

		sink = p;
		free(p);
	}
	return NULL;
}

/* A single-producer single-consumer ring of blocks. */
#define QCAP 1024
static void *queue[QCAP];
static long q_head, q_tail;	/* guarded by q_lock */
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;

static void *consumer(void *arg)
{
	for (long i = 0; i < n_allocs; i++) {
		void *p;

		pthread_mutex_lock(&q_lock);
		while (q_tail == q_head)
			pthread_cond_wait(&q_cond, &q_lock);
		p = queue[q_tail++ % QCAP];
		pthread_cond_signal(&q_cond);
		pthread_mutex_unlock(&q_lock);
		free(p);
	}
	return arg;
}

static void prodcons(void)
{
	uint32_t x = 12345;
	pthread_t t;

	pthread_create(&t, NULL, consumer, NULL);
	for (long i = 0; i < n_allocs; i++) {
		void *p = xmalloc(16 + (next(&x) & 511));

		pthread_mutex_lock(&q_lock);
		while (q_head - q_tail == QCAP)
			pthread_cond_wait(&q_cond, &q_lock);
		queue[q_head++ % QCAP] = p;
		pthread_cond_signal(&q_cond);
		pthread_mutex_unlock(&q_lock);
	}
	pthread_join(t, NULL);
}

static void grow(void)
{
	for (long i = 0; i < n_allocs; i++) {
		char *p = NULL;

		for (size_t size = 16; size <= 4096; size += 16) {
			char *q = realloc(p, size);

			if (!q)
				abort();
			q[size - 1] = 1;
			p = q;
		}
		sink = p;
		free(p);
	}
}

static void longlived(void)
{
	void **v = calloc((size_t)n_allocs, sizeof(*v));
	uint32_t x = 99;

	if (!v)
		abort();
	for (long i = 0; i < n_allocs; i++)
		v[i] = xmalloc(24 + (next(&x) & 63));
	for (long i = 0; i < n_allocs; i++)
		free(v[i]);
	free(v);
}

/* Recursion to depth d, then one allocation replacing a live one. */
static __attribute__((noinline)) void deep_alloc(int d, void **live,
						 uint32_t r)
{
	if (d > 0) {
		deep_alloc(d - 1, live, r);
		__asm__ volatile("" ::: "memory");	/* no tail call */
		return;
	}
	free(live[r & 255]);
	live[r & 255] = xmalloc(48);
}

static void deep(void)
{
	void *live[256] = { 0 };
	uint32_t x = 7;

	for (long i = 0; i < n_allocs; i++) {
		uint32_t r = next(&x);

		deep_alloc(10 + (int)(r >> 26), live, r);
	}
	for (int k = 0; k < 256; k++)
		free(live[k]);
}

static void threads(void *(*fn)(void *), int n)
{
	pthread_t t[64];

	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, fn, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int nt = 1;

	if (argc == 4 && (!strcmp(mode, "window") || !strcmp(mode, "temps"))) {
		nt = atoi(argv[2]);
		n_allocs = atol(argv[3]);
	} else if (argc == 3) {
		n_allocs = atol(argv[2]);
	}
	if (nt < 1 || nt > 64 || n_allocs < 1) {
		fprintf(stderr, "usage: alloc_patterns window|temps THREADS N"
			" | prodcons|realloc|longlived|deep N\n");
		return 2;
	}
	if (!strcmp(mode, "window"))
		threads(window, nt);
	else if (!strcmp(mode, "temps"))
		threads(temps, nt);
	else if (!strcmp(mode, "prodcons"))
		prodcons();
	else if (!strcmp(mode, "realloc"))
		grow();
	else if (!strcmp(mode, "longlived"))
		longlived();
	else if (!strcmp(mode, "deep"))
		deep();
	else {
		fprintf(stderr, "alloc_patterns: unknown pattern '%s'\n", mode);
		return 2;
	}
	return 0;
}
