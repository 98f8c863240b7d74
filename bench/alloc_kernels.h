/*
 * The allocation-heavy kernels of bench/alloc_cost.cc, shared with
 * tests/lib/alloc_ir.cpp (which counts their instructions under
 * valgrind, with and without libyardstick_alloc): malloc24 (malloc(24) +
 * free), umap (an unordered_map<int,int> of 1000 inserts, built and
 * destroyed), map (std::map, 1000 inserts), vec (a vector growing by
 * 1000 push_back).
 */
#ifndef YS_BENCH_ALLOC_KERNELS_H
#define YS_BENCH_ALLOC_KERNELS_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>

static inline void keep(const void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

static inline void k_malloc24()
{
	void *p = malloc(24);

	keep(p);
	free(p);
}

static inline void k_umap()
{
	std::unordered_map<int, int> m;

	for (int i = 0; i < 1000; i++)
		m[i] = i;
	keep(&m);
}

static inline void k_map()
{
	std::map<int, int> m;

	for (int i = 0; i < 1000; i++)
		m[i] = i;
	keep(&m);
}

static inline void k_vec()
{
	std::vector<int> v;

	for (int i = 0; i < 1000; i++)
		v.push_back(i);
	keep(v.data());
}

#endif
