/*
 * The kernels bench/libyardstick_vs_gbench.sh measures with both Google
 * Benchmark (micro_gbench.cc) and libyardstick (micro_ys.c): the same
 * code, compiled the same way, so that the two measure the same work.
 * C and C++ alike.
 */
#ifndef YS_BENCH_MICRO_KERNELS_H
#define YS_BENCH_MICRO_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MICRO_COPY_BYTES 4096
#define MICRO_SORT_N 1000

/* An integer hash: the 64-bit finalizer of MurmurHash3. */
static inline uint64_t micro_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static inline int micro_int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The sort's input: MICRO_SORT_N pseudo-random ints, always the same. */
static inline void micro_sort_input(int *a)
{
	uint64_t s = 42;

	for (size_t i = 0; i < MICRO_SORT_N; i++)
		a[i] = (int)(micro_hash(s++) >> 33);
}

/* One operation of the sort kernel: copy the input, sort the copy. */
static inline void micro_sort(int *work, const int *input)
{
	memcpy(work, input, MICRO_SORT_N * sizeof(int));
	qsort(work, MICRO_SORT_N, sizeof(int), micro_int_cmp);
}

#endif
