/*
 * Unit tests of the store of a heap trace's stacks (src/heap/stackstore.c):
 * stacks generated from a seed -- root sides shared with earlier stacks
 * of any slot, branching at random depths, native depths from 0 to
 * HEAP_MAX_DEPTH and Python frames from 0 to HEAP_PY_MAX (HEAP_PY_END
 * marks among them), frame words 0 and all ones, the same stack again,
 * and a few deeper than the agent ever sends (a damaged trace) -- are
 * interned and written back. Each must come back word for word, equal
 * stacks must have equal refs, and each trie must have one node per
 * distinct non-empty root-first prefix, counted here naively.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heap/protocol.h"
#include "heap/stackstore.h"
#include "util/hashmap.h"

#define NSTACKS 3000
#define NSLOTS 5
#define DEEP_NATIVE 300		/* beyond HEAP_MAX_DEPTH: damaged */
#define DEEP_PY 255		/* a STACK record's most (8 bits) */

struct gen_stack {
	uint64_t native[DEEP_NATIVE];	/* root first */
	uint64_t py[DEEP_PY];		/* outermost first */
	uint32_t depth, npy, slot;
	struct stack_ref ref;
};

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 17;
}

/* A frame from a small set (so that prefixes meet again), with 0 and
 * all ones among them, or now and then any word; near the root (depth d
 * below 6) one of three, so that the trie is bushy there and drawn
 * frames meet nodes that other stacks made. Python's: a code, a line,
 * the end of an evaluation or not. */
static uint64_t draw_frame(uint64_t *seed, uint32_t d, bool python)
{
	uint64_t r = lcg(seed) % (d < 6 ? 3 : 16);

	if (r < 2)
		return r ? UINT64_MAX : 0;
	if (r == 2)
		return lcg(seed) << 20 ^ lcg(seed);
	if (python)
		return (r % 4 + 1) << 32 | (lcg(seed) % 3 + 1) |
		       (lcg(seed) % 3 == 0 ? HEAP_PY_END : 0);
	return 0x401000 + 16 * (r - 3);
}

/* n frames root first: the first `keep` of base (when there is one),
 * the rest drawn. */
static void fill(uint64_t *out, uint32_t n, const uint64_t *base,
		 uint32_t nbase, uint64_t *seed,
		 bool python)
{
	uint32_t keep = base ? (uint32_t)(lcg(seed) % (nbase + 1)) : 0;

	if (keep > n)
		keep = n;
	for (uint32_t d = 0; d < n; d++)
		out[d] = d < keep ? base[d] : draw_frame(seed, d, python);
}

static void generate(struct gen_stack *g, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		struct gen_stack *s = &g[i];
		const struct gen_stack *b = i ? &g[lcg(&seed) % i] : NULL;
		uint64_t kind = lcg(&seed) % 20;

		s->slot = (uint32_t)(lcg(&seed) % NSLOTS);
		if (b && kind == 0) {		/* the same stack again */
			memcpy(s, b, sizeof(*s));
			s->slot = (uint32_t)(lcg(&seed) % NSLOTS);
			continue;
		}
		s->depth = (uint32_t)(lcg(&seed) % (HEAP_MAX_DEPTH + 1));
		s->npy = (uint32_t)(lcg(&seed) % 3 ? 0 :
				    lcg(&seed) % (HEAP_PY_MAX + 1));
		if (kind == 1) {		/* damaged: deeper */
			s->depth = DEEP_NATIVE - (uint32_t)(lcg(&seed) % 8);
			s->npy = DEEP_PY - (uint32_t)(lcg(&seed) % 8);
		}
		fill(s->native, s->depth, b ? b->native : NULL,
		     b ? b->depth : 0, &seed, false);
		fill(s->py, s->npy, b ? b->py : NULL, b ? b->npy : 0, &seed,
		     true);
	}
}

/* Frames leaf first, as a STACK record has them. */
static void leaf_first(const uint64_t *root_first, uint32_t n,
		       uint64_t *out)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = root_first[n - 1 - i];
}

/* Distinct non-empty prefixes of the stacks' frames (native or Python),
 * counted naively: every prefix against every one before it. */
struct prefix {
	const uint64_t *w;
	uint32_t n;
};

static int prefix_cmp(const void *a, const void *b)
{
	const struct prefix *x = a, *y = b;
	uint32_t n = x->n < y->n ? x->n : y->n;

	for (uint32_t i = 0; i < n; i++)
		if (x->w[i] != y->w[i])
			return x->w[i] < y->w[i] ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

static size_t distinct_prefixes(const struct gen_stack *g, size_t n,
				bool python)
{
	size_t np = 0, distinct = 0;
	struct prefix *p;

	for (size_t i = 0; i < n; i++)
		np += python ? g[i].npy : g[i].depth;
	p = malloc((np + 1) * sizeof(*p));
	assert_non_null(p);
	np = 0;
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = 1; k <= (python ? g[i].npy : g[i].depth);
		     k++)
			p[np++] = (struct prefix){
				python ? g[i].py : g[i].native, k };
	qsort(p, np, sizeof(*p), prefix_cmp);
	for (size_t i = 0; i < np; i++)
		distinct += i == 0 || prefix_cmp(&p[i - 1], &p[i]) != 0;
	free(p);
	return distinct;
}

static bool same_frames(const struct gen_stack *a, const struct gen_stack *b,
			bool python)
{
	if (python)
		return a->npy == b->npy &&
		       !memcmp(a->py, b->py, a->npy * sizeof(uint64_t));
	return a->depth == b->depth &&
	       !memcmp(a->native, b->native, a->depth * sizeof(uint64_t));
}

static void check_seed(uint64_t seed)
{
	struct gen_stack *g = calloc(NSTACKS, sizeof(*g));
	struct stackstore *st = stackstore_new();
	uint64_t in[DEEP_PY + DEEP_NATIVE], out[DEEP_PY + DEEP_NATIVE];
	uint64_t ips[DEEP_NATIVE], py[DEEP_PY];
	size_t nodes_native, nodes_python, repeats = 0;

	assert_non_null(g);
	generate(g, NSTACKS, seed);
	for (size_t i = 0; i < NSTACKS; i++) {
		leaf_first(g[i].native, g[i].depth, ips);
		leaf_first(g[i].py, g[i].npy, py);
		g[i].ref = stackstore_intern(st, g[i].slot, ips, g[i].depth,
					     py, g[i].npy);
		assert_int_equal(g[i].ref.depth, g[i].depth);
		assert_int_equal(g[i].ref.npy, g[i].npy);
	}
	assert_int_equal(stackstore_stacks(st), NSTACKS);
	/* every stack back, word for word, after all were interned */
	for (size_t i = 0; i < NSTACKS; i++) {
		memset(out, 0xa5, sizeof(out));
		leaf_first(g[i].native, g[i].depth, in);
		stackstore_native(st, &g[i].ref, out);
		assert_memory_equal(out, in, g[i].depth * sizeof(uint64_t));
		assert_true(out[g[i].depth] == 0xa5a5a5a5a5a5a5a5ULL);
		memset(out, 0xa5, sizeof(out));
		leaf_first(g[i].py, g[i].npy, in);
		stackstore_python(st, &g[i].ref, out);
		assert_memory_equal(out, in, g[i].npy * sizeof(uint64_t));
		assert_true(out[g[i].npy] == 0xa5a5a5a5a5a5a5a5ULL);
	}
	/* equal frames, equal refs (unequal ones cannot share a ref: they
	 * were written back different) */
	for (size_t i = 0; i < NSTACKS; i++)
		for (size_t j = 0; j < i; j++) {
			if (same_frames(&g[i], &g[j], false))
				assert_int_equal(g[i].ref.native,
						 g[j].ref.native);
			if (same_frames(&g[i], &g[j], true))
				assert_int_equal(g[i].ref.python,
						 g[j].ref.python);
			repeats += same_frames(&g[i], &g[j], false) &&
				   g[i].depth > 8;
		}
	assert_true(repeats > 0);	/* the generator made some */
	stackstore_nodes(st, &nodes_native, &nodes_python);
	assert_int_equal(nodes_native, distinct_prefixes(g, NSTACKS, false));
	assert_int_equal(nodes_python, distinct_prefixes(g, NSTACKS, true));
	assert_true(stackstore_bytes(st) > nodes_native * 12);
	stackstore_free(st);
	free(g);
}

static void test_generated(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++)
		check_seed(seed * 0x9e3779b97f4a7c15ULL);
}

/* The empty stack is the roots: a ref of zeros, nothing written. */
static void test_empty(void **state)
{
	struct stackstore *st = stackstore_new();
	struct stack_ref r = stackstore_intern(st, 0, NULL, 0, NULL, 0);
	size_t nn, np;

	(void)state;
	assert_int_equal(r.native, 0);
	assert_int_equal(r.python, 0);
	assert_int_equal(r.depth, 0);
	assert_int_equal(r.npy, 0);
	stackstore_native(st, &r, NULL);
	stackstore_python(st, &r, NULL);
	stackstore_nodes(st, &nn, &np);
	assert_int_equal(nn, 0);
	assert_int_equal(np, 0);
	stackstore_free(st);
}

/* By hand: a, a b, a c, a b (another slot), b a: nodes a, ab, ac, b, ba;
 * the two a b are one. */
static void test_by_hand(void **state)
{
	static const uint64_t ab[] = { 0xb, 0xa }, ac[] = { 0xc, 0xa },
			      a[] = { 0xa }, ba[] = { 0xa, 0xb };
	struct stackstore *st = stackstore_new();
	struct stack_ref r1, r2, r3, r4, r5;
	size_t nn, np;
	uint64_t out[2];

	(void)state;
	r1 = stackstore_intern(st, 0, a, 1, NULL, 0);
	r2 = stackstore_intern(st, 0, ab, 2, NULL, 0);
	r3 = stackstore_intern(st, 0, ac, 2, NULL, 0);
	r4 = stackstore_intern(st, 3, ab, 2, NULL, 0);
	r5 = stackstore_intern(st, 3, ba, 2, a, 1);
	assert_int_equal(r2.native, r4.native);
	assert_int_not_equal(r2.native, r3.native);
	assert_int_not_equal(r1.native, r2.native);
	assert_int_not_equal(r5.native, r2.native);
	stackstore_nodes(st, &nn, &np);
	assert_int_equal(nn, 5);
	assert_int_equal(np, 1);
	stackstore_native(st, &r5, out);
	assert_int_equal(out[0], 0xa);
	assert_int_equal(out[1], 0xb);
	stackstore_python(st, &r5, out);
	assert_int_equal(out[0], 0xa);
	stackstore_free(st);
}

/* CPU seconds of this process (the machine's load does not count) */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Frames a traced program chose knowing the trie's hash without a key
 * (hash_u64(frame ^ hash_u64(parent))): 100,000 nodes a_i under the root,
 * each with two children, 0x1234 and C ^ hash_u64(a_i), whose pairs
 * (a_i, child) all had the hash hash_u64(C): one chain in the index,
 * each new child's look-up a walk of it (40,000 pairs took 5 s, 100,000
 * would take 30). Keyed (hash_secret), the hashes are spread: the test
 * gives up past 3 s of CPU, and each stack must still come back.
 */
static void test_chosen_frames(void **state)
{
	struct stackstore *st = stackstore_new();
	const uint32_t n = 100000;
	double t0 = cpu_s();
	uint64_t ips[2], out[2];
	struct stack_ref a, b;

	(void)state;
	for (uint32_t i = 0; i < n; i++) {
		ips[1] = 0x700000 + (uint64_t)i * 16;	/* root first: a_i */
		ips[0] = 0x1234;
		a = stackstore_intern(st, 0, ips, 2, NULL, 0);
		ips[0] = 0xc0ffee ^ hash_u64(3 * i + 1);	/* a_i's node */
		b = stackstore_intern(st, 0, ips, 2, NULL, 0);
		assert_int_equal(b.native, 3 * i + 3);
		stackstore_native(st, &b, out);
		assert_true(out[0] == ips[0] && out[1] == ips[1]);
		stackstore_native(st, &a, out);
		assert_true(out[0] == 0x1234 && out[1] == ips[1]);
		if (i % 1000 == 0 && cpu_s() - t0 > 3)
			fail_msg("%u of %u pairs in %.1f s of CPU: the index's "
				 "look-ups walk one chain", i, n,
				 cpu_s() - t0);
	}
	stackstore_free(st);
}

/*
 * Tails (stackstore_intern_tail): a b c (leaf first) in slot 1, then d
 * under its root-side 2 (d b c) is the node interning d b c whole gives;
 * kept 0 (e alone), all of the last (e again: under e, f: f e) and more
 * than the last has (refused, the slot's path as it was: g under its 1
 * is g e); a slot with no stack refuses any.
 */
static void test_tail(void **state)
{
	static const uint64_t abc[] = { 0xa, 0xb, 0xc }, d[] = { 0xd },
			      dbc[] = { 0xd, 0xb, 0xc }, e[] = { 0xe },
			      f[] = { 0xf }, g[] = { 0x9 }, py[] = { 0x77 };
	struct stackstore *st = stackstore_new();
	struct stack_ref r, w;
	uint64_t out[3];

	(void)state;
	assert_false(stackstore_intern_tail(st, 1, 0, d, 1, 0, NULL, 0, &r));
	stackstore_intern(st, 1, abc, 3, py, 1);
	assert_true(stackstore_intern_tail(st, 1, 2, d, 1, 1, NULL, 0, &r));
	w = stackstore_intern(st, 2, dbc, 3, py, 1);
	assert_int_equal(r.native, w.native);
	assert_int_equal(r.depth, 3);
	assert_int_equal(r.python, w.python);
	assert_int_equal(r.npy, 1);
	assert_true(stackstore_intern_tail(st, 1, 0, e, 1, 0, NULL, 0, &r));
	stackstore_native(st, &r, out);
	assert_int_equal(r.depth, 1);
	assert_int_equal(out[0], 0xe);
	assert_int_equal(r.npy, 0);
	assert_true(stackstore_intern_tail(st, 1, 1, f, 1, 0, NULL, 0, &r));
	stackstore_native(st, &r, out);
	assert_int_equal(r.depth, 2);
	assert_int_equal(out[0], 0xf);
	assert_int_equal(out[1], 0xe);
	assert_false(stackstore_intern_tail(st, 1, 3, g, 1, 0, NULL, 0, &r));
	assert_false(stackstore_intern_tail(st, 1, 0, g, 1, 1, NULL, 0, &r));
	assert_true(stackstore_intern_tail(st, 1, 1, g, 1, 0, NULL, 0, &r));
	stackstore_native(st, &r, out);
	assert_int_equal(out[0], 0x9);
	assert_int_equal(out[1], 0xe);
	stackstore_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_by_hand),
		cmocka_unit_test(test_chosen_frames),
		cmocka_unit_test(test_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
