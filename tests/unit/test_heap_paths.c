/*
 * Unit tests of the sites' native frames read through their paths in the
 * stack store (src/heap/sitepath.c): one trace, generated from a seed,
 * symbolized by heap_profile and by heap_profile_by_frame (each frame
 * looked up, as before the paths), must give the same profile: the same
 * frames in the same order, the same stacks with the same values, the
 * same counts of frames and unknown frames, the same Python mismatches.
 *
 * The stacks share root sides at random depths with earlier ones (of any
 * slot), are 0 to 70 frames deep (the limit is 64: deeper ones are cut
 * ones, and a few are far deeper, damaged, past the room for ids), their
 * frames this program's functions, unmapped addresses ([unknown]) and
 * _start (a thread's origin: as a stack's leaf the stack ends there);
 * words with SYMTAB_IF_NAMED (a stand-in, or no frame at all), as a
 * damaged trace may have; the images are two, the first read with two maps texts (after one
 * unload and after two, the second text empty: the same addresses then
 * name nothing), and stacks of image 1 of either unloads, and of image
 * 2, follow each other, so that one trie node is read with several maps
 * ids in turn. Some stacks have Python frames, their evaluation frames a
 * function of this program named as CPython's, as many as the Python
 * frames' groups or not (mismatched: left native), torn at HEAP_PY_MAX.
 * Most stacks are sent as tails of their slot's last one (protocol.h,
 * HEAP_REC_STACK_TAIL), as the agent sends them, and a few as tails of a
 * base that is not the slot's last: damaged, their sites (and those of
 * the tails after them up to a whole stack) without frames.
 * Symbolized with this program's own /proc/self/maps.
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
#include "profile/symbolize.h"

#define NSTACKS 4000
#define NSLOTS 3
#define MAX_GEN_DEPTH 70
#define DAMAGED_DEPTH 1300	/* more ids than heap_profile's room */

#define FN(name)                                                        \
	__attribute__((noinline)) int name(volatile int *x)             \
	{                                                               \
		for (int i = 0; i < 3; i++)                             \
			*x += i;                                        \
		return *x;                                              \
	}
FN(paths_fn_a)
FN(paths_fn_b)
FN(paths_fn_c)
FN(paths_fn_d)
FN(paths_fn_e)
/* named as CPython's evaluation function: its frames take the Python
 * frames' place */
FN(_PyEval_EvalFrameDefault)

extern char _start[];

/* The addresses the stacks are made of. */
static uint64_t pick_addr(uint64_t r)
{
	static int (*const fns[])(volatile int *) = {
		paths_fn_a, paths_fn_b, paths_fn_c, paths_fn_d, paths_fn_e,
		_PyEval_EvalFrameDefault,
	};
	unsigned k = (unsigned)(r % 16);

	if (k < 12)
		return (uint64_t)(uintptr_t)fns[k % 6] + 1 + (r >> 8) % 8;
	if (k < 13)
		return 0x1000 + (r >> 8) % 64;	/* nothing mapped */
	/* a damaged trace's words as symtab_if_named makes them: shown if
	 * named, else a stand-in (the symtab's "[unknown]": a run of it
	 * shows once) or nothing */
	if (k == 13)
		return (r >> 8) % 16 ? 0x1000 + (r >> 12) % 64
				     : (0x1000 + (r >> 12) % 4) |
					       SYMTAB_IF_NAMED |
					       (uint64_t)((r >> 14) % 2) << 48;
	if (k == 14)
		return (uint64_t)(uintptr_t)_start + 2;
	return (uint64_t)(uintptr_t)_PyEval_EvalFrameDefault + 4;
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 17;
}

static void rec_pycode(struct heap_trace *t, int slot, uint32_t gen,
		       uint32_t id, const char *file, const char *name)
{
	uint64_t w[3 + 8] = { 0 };
	size_t nf = strlen(file), nn = strlen(name);
	size_t words = 3 + (nf + nn + 7) / 8;

	assert_true(words <= 11);
	w[0] = head(HEAP_REC_PYCODE, 0) | ((uint64_t)gen << 16) | words;
	w[1] = (uint64_t)10 << 32 | id;
	w[2] = (uint64_t)nf << 32 | nn;
	memcpy(&w[3], file, nf);
	memcpy((char *)&w[3] + nf, name, nn);
	put(t, slot, w, words);
}

/* A stack sent as a tail (protocol.h, HEAP_REC_STACK_TAIL): the hash of
 * the one it names as its base (0: sent whole), and the root-side
 * frames of that one it keeps. */
struct tail {
	uint64_t base;
	uint32_t keep, keep_py;
};

/* A stack (leaf first) of image gen after unloads u, whole or as tl's
 * tail, and n allocations of 10 bytes from it, every other one freed. */
static void rec_site(struct heap_trace *t, int slot, uint32_t gen,
		     uint32_t u, uint64_t hash, const uint64_t *ips,
		     uint32_t depth, const uint64_t *py, uint32_t npy,
		     const struct tail *tl, uint64_t *ts)
{
	uint32_t keep = tl->base ? tl->keep : 0;
	uint32_t keep_py = tl->base ? tl->keep_py : 0;
	uint64_t st[4] = { head(tl->base ? HEAP_REC_STACK_TAIL
					 : HEAP_REC_STACK, 0) |
			   ((uint64_t)(npy - keep_py) << 48) |
			   ((uint64_t)gen << 16) | (depth - keep), hash,
			   u | (uint64_t)keep << 32 | (uint64_t)keep_py << 48,
			   tl->base };
	int n = 1 + (int)(hash % 3);

	put(t, slot, st, tl->base ? 4 : 3);
	put(t, slot, ips, depth - keep);
	put(t, slot, py, npy - keep_py);
	for (int i = 0; i < n; i++) {
		uint64_t ptr = 0x100000 + 0x100 * ++*ts;
		uint64_t w[4] = { head(HEAP_REC_ALLOC, *ts), ptr, 10 + i,
				  hash };

		put(t, slot, w, 4);
		if (i % 2) {
			uint64_t f[2] = { head(HEAP_REC_FREE, ++*ts), ptr };

			put(t, slot, f, 2);
		}
	}
}

/* Python frames for a native stack of ips[0..depth): as many groups as
 * its evaluation frames, or one more, or one fewer, or torn. */
static uint32_t gen_python(uint64_t *seed, const uint64_t *ips,
			   uint32_t depth, uint64_t *py)
{
	uint64_t eval = (uint64_t)(uintptr_t)_PyEval_EvalFrameDefault;
	uint32_t evals = 0, groups, n = 0;
	uint64_t r = lcg(seed);

	for (uint32_t i = 0; i < depth; i++)
		evals += ips[i] > eval && ips[i] < eval + 16;
	if (r % 4 == 0)
		return 0;
	groups = r % 4 == 1 ? evals + 1 : r % 4 == 2 && evals ? evals - 1
								: evals;
	if (r % 16 == 3) {	/* torn: no end mark on the last */
		for (; n < HEAP_PY_MAX; n++)
			py[n] = (uint64_t)(1 + lcg(seed) % 3) << 32 |
				(1 + n % 7);
		return n;
	}
	for (uint32_t g = 0; g < groups; g++) {
		uint32_t k = 1 + lcg(seed) % 3;

		for (uint32_t j = 0; j < k && n < HEAP_PY_MAX - 1; j++)
			py[n++] = (uint64_t)(1 + lcg(seed) % 3) << 32 |
				  (1 + lcg(seed) % 3) |
				  (j + 1 == k ? HEAP_PY_END : 0);
	}
	if (n)
		py[n - 1] |= HEAP_PY_END;
	return n;
}

static char *self_maps(void)
{
	FILE *fp = fopen("/proc/self/maps", "r");
	char *text = calloc(1, 1 << 20);

	assert_non_null(fp);
	assert_non_null(text);
	assert_true(fread(text, 1, (1 << 20) - 1, fp) > 0);
	fclose(fp);
	return text;
}

/* The frames two stacks share on their root side (a[0..an) and
 * b[0..bn), leaf first), as the agent counts them (agent_tail.h). */
static uint32_t shared_root(const uint64_t *a, uint32_t an, const uint64_t *b,
			    uint32_t bn)
{
	uint32_t k = 0;

	while (k < an && k < bn && a[an - 1 - k] == b[bn - 1 - k])
		k++;
	return k;
}

/* The stacks sent as tails, and of those the tails of a wrong base. */
struct tails {
	size_t sent, wrong;
};

/* Each slot's last stack, as the agent keeps it (agent_tail.h). */
struct last_stack {
	uint64_t ips[MAX_GEN_DEPTH], py[HEAP_PY_MAX], hash;
	uint32_t depth, npy;
};

/*
 * How stack i goes to slot (whose last stack is *l): whole, or as a tail
 * of *l where they share frames (most), and now and then a tail of a
 * base that is not the slot's last (damaged: its site has no frames,
 * nor has that of any tail after it up to a whole stack, as after a
 * lost chunk). *l becomes stack i.
 */
static struct tail gen_tail(uint64_t *seed, struct last_stack *l,
			    uint64_t hash, const uint64_t *ips,
			    uint32_t depth, const uint64_t *py, uint32_t npy,
			    struct tails *n)
{
	struct tail tl = { 0, 0, 0 };
	uint64_t r = lcg(seed);

	if (l->hash && depth <= MAX_GEN_DEPTH && r % 4) {
		tl.keep = shared_root(l->ips, l->depth, ips, depth);
		tl.keep_py = shared_root(l->py, l->npy, py, npy);
		if (tl.keep || tl.keep_py)
			tl.base = r % 64 == 1 ? l->hash ^ 0x10 : l->hash;
		n->sent += tl.base != 0;
		n->wrong += tl.base && r % 64 == 1;
	}
	if (depth > MAX_GEN_DEPTH) {	/* the agent's last: none */
		l->hash = 0;
		return tl;
	}
	memcpy(l->ips, ips, depth * sizeof(*ips));
	memcpy(l->py, py, npy * sizeof(*py));
	l->depth = depth;
	l->npy = npy;
	l->hash = hash;
	return tl;
}

static void gen_trace(struct heap_trace *t, uint64_t seed, struct tails *n)
{
	static uint64_t root[NSTACKS][MAX_GEN_DEPTH];	/* root first */
	static uint32_t rdepth[NSTACKS];
	static struct last_stack last[NSLOTS];
	uint64_t ips[DAMAGED_DEPTH], py[HEAP_PY_MAX], ts = 0;
	struct tail tl;

	memset(t, 0, sizeof(*t));
	memset(last, 0, sizeof(last));
	t->ticks_per_s = 1e9;
	t->duration = 1;
	t->max_depth = 64;
	t->nmaps = 3;
	t->maps = calloc(3, sizeof(*t->maps));
	t->maps_gen = calloc(3, sizeof(*t->maps_gen));
	t->maps_unloads = calloc(3, sizeof(*t->maps_unloads));
	assert_non_null(t->maps);
	assert_non_null(t->maps_gen);
	assert_non_null(t->maps_unloads);
	t->maps[0] = self_maps();
	t->maps_gen[0] = 1;
	t->maps_unloads[0] = 1;
	t->maps[1] = strdup("");
	t->maps_gen[1] = 1;
	t->maps_unloads[1] = 2;
	t->maps[2] = self_maps();
	t->maps_gen[2] = 2;
	for (uint32_t gen = 1; gen <= 2; gen++)
		for (uint32_t id = 1; id <= 5; id++) {
			char name[32];

			snprintf(name, sizeof(name), "code_%u_%u", gen, id);
			rec_pycode(t, 0, gen, id, "/src/prog.py", name);
		}
	for (size_t i = 0; i < NSTACKS; i++) {
		uint64_t r = lcg(&seed);
		uint32_t depth = r % 8 == 0 ? (uint32_t)(r >> 3) % 8
					    : 10 + (uint32_t)(r >> 3) %
						   (MAX_GEN_DEPTH - 9);
		uint32_t shared = 0, npy, gen = 1 + (r >> 12) % 2;
		uint32_t u = gen == 1 ? 1 + (uint32_t)(r >> 14) % 2 : 0;

		/* the root side of an earlier stack (often the last's) */
		if (i && (r >> 16) % 5) {
			size_t from = (r >> 19) % 3 ? i - 1
						    : (size_t)((r >> 21) % i);

			shared = rdepth[from] ? (uint32_t)(lcg(&seed) %
							    (rdepth[from] + 1))
					      : 0;
			if (shared > depth)
				shared = depth;
			memcpy(root[i], root[from], shared * sizeof(uint64_t));
		}
		for (uint32_t d = shared; d < depth; d++)
			root[i][d] = pick_addr(lcg(&seed));
		/* a run of stand-ins, shown once; a stack of no frames at
		 * all (one "[unknown]") */
		if (i % 40 == 3 && depth >= shared + 3)
			for (uint32_t d = depth - 3; d < depth; d++)
				root[i][d] = 0x1004 | SYMTAB_IF_NAMED |
					     UINT64_C(1) << 48;
		if (i % 97 == 5)
			for (uint32_t d = 0; d < depth; d++)
				root[i][d] = 0x1008 | SYMTAB_IF_NAMED;
		rdepth[i] = depth;
		for (uint32_t d = 0; d < depth; d++)
			ips[d] = root[i][depth - 1 - d];
		if (i % 500 == 7) {	/* damaged: past the room, its root
					 * side in functions of the C
					 * library no other stack has (that
					 * stackframes_ids never looks up:
					 * nor may heap_profile) */
			for (uint32_t d = depth; d < DAMAGED_DEPTH; d++)
				ips[d] = d < DAMAGED_DEPTH - 40
					 ? pick_addr(lcg(&seed) / 16 * 16 +
						     lcg(&seed) % 12)
					 : (uint64_t)(uintptr_t)fprintf +
						   (lcg(&seed) % 0x40000);
			depth = DAMAGED_DEPTH;
		}
		npy = gen_python(&seed, ips, depth, py);
		tl = gen_tail(&seed, &last[i % NSLOTS], 0x1000 + i, ips, depth,
			      py, npy, n);
		rec_site(t, (int)(i % NSLOTS), gen, u, 0x1000 + i, ips, depth,
			 py, npy, &tl, &ts);
	}
}

static void assert_str_equal_or_null(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_same_profile(const struct profile *a,
				const struct profile *b)
{
	assert_int_equal(a->ntypes, b->ntypes);
	assert_int_equal(a->nframes, b->nframes);
	for (size_t i = 0; i < a->nframes; i++) {
		const struct frame *x = &a->frames[i], *y = &b->frames[i];

		assert_str_equal_or_null(x->function, y->function);
		assert_str_equal_or_null(x->file, y->file);
		assert_str_equal_or_null(x->module, y->module);
		assert_int_equal(x->line, y->line);
		assert_int_equal(x->inlined, y->inlined);
	}
	assert_int_equal(a->nstacks, b->nstacks);
	for (size_t i = 0; i < a->nstacks; i++) {
		const struct stack *x = &a->stacks[i], *y = &b->stacks[i];

		assert_int_equal(x->depth, y->depth);
		assert_memory_equal(x->frames, y->frames,
				    x->depth * sizeof(*x->frames));
		assert_memory_equal(x->values, y->values,
				    a->ntypes * sizeof(*x->values));
	}
	assert_int_equal(a->total_frames, b->total_frames);
	assert_int_equal(a->unknown_frames, b->unknown_frames);
}

/* The profile of one seed's trace both ways; what it held, into *got
 * (that the trace had what the test means it to). */
struct seen {
	size_t stacks, origin_leaf, deep, unknown, python, mismatched;
	struct tails tails;
	size_t stacks_damaged;	/* the wrong bases' tails, and after them */
};

static void both_ways(uint64_t seed, bool lines, struct seen *seen)
{
	struct heap_trace t;
	struct heap_report r;
	struct profile p, ref;
	size_t mismatched;

	gen_trace(&t, seed, &seen->tails);
	assert_int_equal(heap_analyze(&t, &r), 0);
	seen->stacks_damaged += r.stacks_damaged;
	heap_profile_by_frame(&t, &r, lines, NULL, &ref);
	mismatched = r.py_mismatched;
	heap_profile(&t, &r, lines, NULL, &p);
	assert_int_equal(r.py_mismatched, mismatched);
	assert_same_profile(&p, &ref);
	seen->stacks += p.nstacks;
	seen->mismatched += mismatched;
	seen->unknown += p.unknown_frames > 0;
	for (size_t i = 0; i < p.nstacks; i++) {
		const struct frame *leaf = &p.frames[p.stacks[i].frames[0]];

		seen->origin_leaf += p.stacks[i].depth == 1 &&
				     !strcmp(leaf->function, "_start");
		seen->deep += p.stacks[i].depth >= 1000;
		for (size_t j = 0; j < p.stacks[i].depth; j++) {
			const char *m = p.frames[p.stacks[i].frames[j]].module;

			if (m && !strcmp(m, "[python]")) {
				seen->python++;
				break;
			}
		}
	}
	profile_free(&p);
	profile_free(&ref);
	heap_report_free(&r);
	heap_trace_free(&t);
}

static void test_same_profile(void **state)
{
	struct seen seen = { 0 };

	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++)
		both_ways(seed, seed % 2 == 0, &seen);
	/* the trace had what it is meant to */
	assert_true(seen.stacks > 1000);
	assert_true(seen.origin_leaf > 0);
	assert_true(seen.deep > 0);
	assert_true(seen.unknown > 0);
	assert_true(seen.python > 100);
	assert_true(seen.mismatched > 100);
	/* stacks sent as tails, most of them rebuilt, and damaged ones'
	 * sites (no frames) among them */
	assert_true(seen.tails.sent > 1000);
	assert_true(seen.tails.wrong > 0);
	assert_true(seen.stacks_damaged >= seen.tails.wrong);
	assert_true(seen.stacks_damaged < seen.tails.sent / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_profile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
