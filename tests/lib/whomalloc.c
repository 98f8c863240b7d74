/*
 * Where a program linked with libyardstick gets its allocator
 * (tests/cli/libyardstick.sh, issue 25): `--where` prints, for each
 * allocation function, the file that defines the one the program calls
 * (dladdr); otherwise it runs its benchmark, one malloc(64) and its free
 * per iteration. Linked without libyardstick_alloc, the functions are
 * the C library's and nothing is counted; with it, the executable's, 1
 * allocation of 64 bytes and 1 free per iteration.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
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
	if (argc == 2 && !strcmp(argv[1], "--where"))
		return where();
	return ys_main(argc, argv);
}
