/*
 * The allocation-heavy program of bench/mem_overhead.sh: THREADS threads,
 * each making PAIRS malloc/free pairs of 16 to 271 bytes, with a small
 * set of blocks kept live (one in 64 allocations replaces one of 256
 * slots), so that there is a peak and frees of older blocks as well as
 * temporaries. Built plainly (as a user's program would be).
 *
 * usage: alloc_heavy THREADS PAIRS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long pairs;

static void *work(void *arg)
{
	void *keep[256] = { 0 };
	unsigned x = (unsigned)(size_t)arg * 2654435761u + 1;
	void *volatile sink;

	for (long i = 0; i < pairs; i++) {
		size_t size;
		void *p;

		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		size = 16 + (x & 255);
		p = malloc(size);
		if (!p)
			abort();
		sink = p;
		if ((x >> 8 & 63) == 0) {
			unsigned k = x >> 16 & 255;

			free(keep[k]);
			keep[k] = p;
		} else {
			free(sink);
		}
	}
	for (int k = 0; k < 256; k++)
		free(keep[k]);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t t[64];

	pairs = argc > 2 ? atol(argv[2]) : 5000000;
	if (n < 1 || n > 64 || pairs < 1) {
		fprintf(stderr, "usage: alloc_heavy THREADS PAIRS\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, work, (void *)(size_t)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
