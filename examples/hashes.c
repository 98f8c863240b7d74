/*
 * The bundled libyardstick example (docs/cmd/bench.md): three
 * hash functions over keys of n bytes, in one group, so that they run
 * interleaved and their ratios come with a confidence interval; and two
 * ways to build a sorted copy of n ints, one of which allocates.
 *
 *   build/examples/hashes                 the table
 *   yardstick bench -- build/examples/hashes   the table, stored
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yardstick.h>

/* FNV-1a, 64-bit: a multiply per byte. */
static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* djb2: h * 33 + c, a shift and two adds per byte. */
static uint64_t djb2(const unsigned char *p, size_t n)
{
	uint64_t h = 5381;

	for (size_t i = 0; i < n; i++)
		h = h * 33 + p[i];
	return h;
}

/* Eight bytes at a time, mixed with MurmurHash3's finalizer. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static uint64_t word_hash(const unsigned char *p, size_t n)
{
	uint64_t h = n;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = mix64(h ^ w);
	}
	for (; i < n; i++)
		h = mix64(h ^ p[i]);
	return h;
}

/* A key of n pseudo-random bytes (setup: not timed). */
static unsigned char *make_key(size_t n)
{
	unsigned char *k = malloc(n ? n : 1);
	uint64_t x = 88172645463325252ULL;

	if (!k)
		abort();
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k[i] = (unsigned char)x;
	}
	return k;
}

#define HASH_BENCH(fn)                                                      \
	static void bm_##fn(ys_state *s)                                    \
	{                                                                   \
		size_t n = (size_t)ys_param_int(s, "n");                    \
		unsigned char *key = make_key(n);                           \
		ys_set_bytes(s, (double)n);                                 \
		YS_LOOP(s) {                                                \
			uint64_t h = fn(key, n);                            \
			YS_KEEP(h);                                         \
		}                                                           \
		free(key);                                                  \
	}                                                                   \
	YS_BENCHMARK_WITH(#fn, bm_##fn, "group=hash;n=16,1024")

HASH_BENCH(fnv1a)
HASH_BENCH(djb2)
HASH_BENCH(word_hash)

/* ---- a sorted copy of n ints: qsort into a new buffer, or in place --- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int *make_ints(size_t n)
{
	int *v = malloc(n * sizeof(*v));
	uint64_t x = 42;

	if (!v)
		abort();
	for (size_t i = 0; i < n; i++)
		v[i] = (int)(mix64(x++) >> 33);
	return v;
}

/* Allocates the copy on every call: 1 allocation of 4n bytes an op. */
static void bm_sorted_copy(ys_state *s)
{
	size_t n = (size_t)ys_param_int(s, "n");
	int *in = make_ints(n);

	ys_set_items(s, (double)n);
	YS_LOOP(s) {
		int *out = malloc(n * sizeof(*out));

		if (!out)
			abort();
		memcpy(out, in, n * sizeof(*out));
		qsort(out, n, sizeof(*out), cmp_int);
		ys_keep(out);
		free(out);
	}
	free(in);
}
YS_BENCHMARK_WITH("sorted_copy", bm_sorted_copy, "group=sort;n=1000")

/* Reuses one buffer made before the loop: no allocation in it. */
static void bm_sort_reused(ys_state *s)
{
	size_t n = (size_t)ys_param_int(s, "n");
	int *in = make_ints(n), *out = malloc(n * sizeof(*out));

	if (!out)
		abort();
	ys_set_items(s, (double)n);
	YS_LOOP(s) {
		memcpy(out, in, n * sizeof(*out));
		qsort(out, n, sizeof(*out), cmp_int);
		ys_keep(out);
	}
	free(out);
	free(in);
}
YS_BENCHMARK_WITH("sort_reused", bm_sort_reused, "group=sort;n=1000")
