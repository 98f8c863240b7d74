/*
 * Where a program linked with libyardstick gets its allocator
 * (tests/cli/libyardstick.sh, issue 25): `--where` prints, for each
 * allocation function, the file that defines the one the program calls
 * (dladdr); otherwise it runs its benchmark, one malloc(64) and its free
 * per iteration. Linked without libyardstick_alloc, the functions are
 * the C library's and nothing is counted; with it, the executable's, 1
 * allocation of 64 bytes and 1 free per iteration.
 *
 * "mix" is the class test of the counting: a sequence of 400 calls drawn
 * from every entry point (seed 25; sizes 0..4999, some too large, bad
 * alignments, overflowing products, realloc to 0, free(NULL)), the same
 * each iteration, every block freed at its end. `--truth` runs it once
 * and prints what the documented rules count, judged from the calls' own
 * results ("ALLOCS BYTES FREES"): the library must report the same.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yardstick.h>

static void *(*volatile alloc_fn)(size_t) = malloc;

static void bm_m64(ys_state *s)
{
	YS_LOOP(s) {
		void *p = alloc_fn(64);

		ys_keep(p);
		free(p);
	}
}
YS_BENCHMARK("m64", bm_m64)

/* ---- mix ---- */

struct truth {
	unsigned long long allocs, bytes, frees;
};

#define MIX_CALLS 400
#define MIX_LIVE 16

static struct { int kind; size_t n, k; } mix[MIX_CALLS];
static volatile size_t too_big = SIZE_MAX / 2;

static void mix_plan(void)
{
	uint64_t x = 25;

	for (int i = 0; i < MIX_CALLS; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		mix[i].kind = (int)(x >> 59) % 16;
		mix[i].n = (size_t)(x >> 20) % 5000;
		mix[i].k = 1 + (size_t)(x >> 40) % 8;
	}
}

static void got(struct truth *t, const void *p, size_t n)
{
	if (t && p) {
		t->allocs++;
		t->bytes += n;
	}
}

static void drop(struct truth *t, void **slot)
{
	if (t && *slot)
		t->frees++;
	free(*slot);
	*slot = NULL;
}

/* One call of the sequence on slot; t (when not NULL) counts it as the
 * rules say, from its result. */
static void mix_call(int i, void **slot, struct truth *t)
{
	size_t n = mix[i].n, k = mix[i].k;
	void *p = NULL, *q;

	switch (mix[i].kind) {
	case 0: case 1: p = malloc(n); got(t, p, n); break;
	case 2: p = calloc(k, n); got(t, p, k * n); break;
	case 3: p = memalign(64, n); got(t, p, n); break;
	case 4:
		if (posix_memalign(&p, 32, n) == 0)
			got(t, p, n);
		else
			p = NULL;
		break;
	case 5: p = aligned_alloc(16, n - n % 16); got(t, p, n - n % 16); break;
	case 6: p = valloc(n); got(t, p, n); break;
	case 7: p = pvalloc(n); got(t, p, n); break;
	case 8: case 9: /* realloc of the slot: grow, move, or from NULL */
		q = realloc(*slot, n + 1);
		got(t, q, n + 1);
		if (q)
			*slot = q;
		return;
	case 10: /* realloc to 0: frees (NULL back), or from NULL allocates */
		if (!*slot)
			return;
		q = realloc(*slot, 0);
		if (!q && t)
			t->frees++;
		else
			got(t, q, 0);
		*slot = q;
		return;
	case 11: /* reallocarray that overflows: fails, the block stays */
		q = reallocarray(*slot, too_big, k + 1);
		got(t, q, 0);
		if (q)
			*slot = q;
		return;
	case 12: /* failures: too large, bad alignment, overflowing product */
		p = malloc(too_big);
		got(t, p, too_big);
		q = calloc(too_big, k + 1);
		got(t, q, 0);
		if (posix_memalign(&q, 24, 64) == 0) {
			got(t, q, 64);
			free(q);
			if (t)
				t->frees++;
		}
		break;
	case 13: free(NULL); return;
	default: drop(t, slot); return;
	}
	if (p) {
		drop(t, slot);
		*slot = p;
	}
}

static void mix_run(struct truth *t)
{
	void *live[MIX_LIVE] = { 0 };

	for (int i = 0; i < MIX_CALLS; i++)
		mix_call(i, &live[i % MIX_LIVE], t);
	for (int i = 0; i < MIX_LIVE; i++)
		drop(t, &live[i]);
}

static void bm_mix(ys_state *s)
{
	YS_LOOP(s) {
		mix_run(NULL);
	}
}
YS_BENCHMARK("mix", bm_mix)

static int where(void)
{
	static const struct {
		const char *name;
		void *fn;
	} fns[] = {
		{ "malloc", (void *)malloc }, { "calloc", (void *)calloc },
		{ "realloc", (void *)realloc },
		{ "reallocarray", (void *)reallocarray },
		{ "free", (void *)free }, { "memalign", (void *)memalign },
		{ "posix_memalign", (void *)posix_memalign },
		{ "aligned_alloc", (void *)aligned_alloc },
		{ "valloc", (void *)valloc }, { "pvalloc", (void *)pvalloc },
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		Dl_info info;

		if (!dladdr(fns[i].fn, &info) || !info.dli_fname) {
			fprintf(stderr, "whomalloc: no file for '%s'\n",
				fns[i].name);
			return 1;
		}
		printf("%s %s\n", fns[i].name, info.dli_fname);
	}
	return 0;
}

int main(int argc, char **argv)
{
	mix_plan();
	if (argc == 2 && !strcmp(argv[1], "--where"))
		return where();
	if (argc == 2 && !strcmp(argv[1], "--truth")) {
		struct truth t = { 0, 0, 0 };

		mix_run(&t);
		printf("%llu %llu %llu\n", t.allocs, t.bytes, t.frees);
		return 0;
	}
	return ys_main(argc, argv);
}
