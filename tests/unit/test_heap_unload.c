/*
 * Unit tests of the sites of a heap trace read with the maps of their
 * image's unloads (src/heap/sites.c, protocol.h): a library unloaded and
 * its addresses another's. Traces built by hand from the record formats,
 * symbolized with this program's own /proc/self/maps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap/analyze.h"
#include "heap/collect.h"
#include "heaprecs.h"

/* What the sites' addresses are in: a function of this program. */
__attribute__((noinline)) int unload_site_fn(volatile int *x)
{
	for (int i = 0; i < 4; i++)
		*x += i;
	return *x;
}

/* A stack of one frame, addr, of image 1 after its unloads u, and n
 * allocations of 10 bytes from it. */
static void site_of(struct heap_trace *t, uint64_t hash, uint32_t u,
		    uint64_t addr, int n, uint64_t *ts)
{
	uint64_t st[4] = { head(HEAP_REC_STACK, 0) | (1u << 16) | 1, hash, u,
			   addr };

	put(t, 0, st, 4);
	for (int i = 0; i < n; i++) {
		uint64_t w[4] = { head(HEAP_REC_ALLOC, ++*ts), 0x1000 * *ts,
				  10, hash };

		put(t, 0, w, 4);
	}
}

/* The allocations of the profile's stacks whose leaf is named fn (NULL:
 * any other name). */
static int64_t allocs_at(const struct profile *p, const char *fn)
{
	int64_t n = 0;

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct frame *f = &p->frames[p->stacks[i].frames[0]];
		bool named = f->function && !strcmp(f->function,
						    "unload_site_fn");

		if (fn ? named : !named)
			n += p->stacks[i].values[HEAP_T_ALLOC_OBJECTS];
	}
	return n;
}

/*
 * Image 1's maps: this program's (after its first unload), then none of
 * it mapped (after its second; the texts come in any order). Sites at one
 * address: of 1 unload (named by the first text), of 2 (nothing there),
 * of 3 (no text of its own: the one of the most unloads below, 2's), and
 * of none (below every text's, the text lost: the one of the fewest,
 * 1's).
 */
static void test_unloads(void **state)
{
	uint64_t addr = (uint64_t)(uintptr_t)unload_site_fn + 4, ts = 0;
	struct heap_trace t;
	struct heap_report r;
	struct profile p;
	FILE *fp = fopen("/proc/self/maps", "r");
	char *text = calloc(1, 1 << 20);

	(void)state;
	assert_non_null(fp);
	assert_non_null(text);
	assert_true(fread(text, 1, (1 << 20) - 1, fp) > 0);
	fclose(fp);
	memset(&t, 0, sizeof(t));
	t.ticks_per_s = 1e9;
	t.duration = 1;
	t.max_depth = 64;
	t.nmaps = 2;
	t.maps = calloc(2, sizeof(*t.maps));
	t.maps_gen = calloc(2, sizeof(*t.maps_gen));
	t.maps_unloads = calloc(2, sizeof(*t.maps_unloads));
	assert_non_null(t.maps);
	assert_non_null(t.maps_gen);
	assert_non_null(t.maps_unloads);
	/* the later text first: they are read in the order of unloads */
	t.maps[0] = strdup("");
	t.maps_gen[0] = 1;
	t.maps_unloads[0] = 2;
	t.maps[1] = text;
	t.maps_gen[1] = 1;
	t.maps_unloads[1] = 1;
	site_of(&t, 0x11, 1, addr, 3, &ts);
	site_of(&t, 0x22, 2, addr, 5, &ts);
	site_of(&t, 0x33, 3, addr, 7, &ts);
	site_of(&t, 0x44, 0, addr, 11, &ts);
	assert_int_equal(heap_analyze(&t, &r), 0);
	assert_int_equal(r.nsites, 4);
	heap_profile(&t, &r, false, NULL, &p);
	assert_int_equal(allocs_at(&p, "unload_site_fn"), 3 + 11);
	assert_int_equal(allocs_at(&p, NULL), 5 + 7);
	profile_free(&p);
	heap_report_free(&r);
	heap_trace_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unloads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
