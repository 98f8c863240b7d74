/*
 * Tests for the CPython walker (profile/python.h) on a fake 3.11 memory
 * image read through the callback: a good chain (names, lines, the
 * C-level entries), and every check a racing or hostile process could
 * fail — a loop, a misaligned or unreadable frame, a code pointer that is
 * not a code object, a chain deeper than asked, strings too long or of a
 * non-compact kind, a thread list that loops — and the location-table
 * decoder on hand-made entries of each form.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "profile/pystacks.h"
#include "profile/python.h"

#define B 0x10000000ULL		/* the fake image's address */
#define SIZE 0x10000
#define RUNTIME (B + 0x0000)
#define INTERP (B + 0x1000)
#define TSTATE (B + 0x2000)
#define CFRAME (B + 0x3000)
#define FRAME(i) (B + 0x4000 + (i) * 0x80)
#define CODE(i) (B + 0x8000 + (i) * 0x100)
#define STR(i) (B + 0xa000 + (i) * 0x100)
#define TAB (B + 0xd000)
#define CODE_TYPE (B + 0xf000)
#define UNICODE_TYPE (B + 0xf100)
#define BYTES_TYPE (B + 0xf200)

static uint8_t mem[SIZE];
static const struct py_layout *L;

static int fake_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	if (addr < B || addr + len > B + SIZE)
		return -1;
	memcpy(buf, mem + (addr - B), len);
	return 0;
}

/* system calls a walk would make: each read, each read of two */
static int calls;

static int counted_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	calls++;
	return fake_read(arg, addr, buf, len);
}

/* both or nothing, as process_vm_readv's two iovecs are to the walk */
static int counted_read2(void *arg, uint64_t a1, void *b1, size_t l1,
			 uint64_t a2, void *b2, size_t l2)
{
	calls++;
	if (fake_read(arg, a1, b1, l1) || fake_read(arg, a2, b2, l2))
		return -1;
	return 0;
}

static void put64(uint64_t addr, int32_t off, uint64_t v)
{
	memcpy(mem + (addr - B) + off, &v, 8);
}

static void put_str(int i, const char *s)
{
	put64(STR(i), L->ob_type, UNICODE_TYPE);
	put64(STR(i), L->str_length, strlen(s));
	mem[STR(i) - B + L->str_state] = PY_STATE_KIND(1) | PY_STATE_COMPACT |
					 PY_STATE_ASCII;
	memcpy(mem + (STR(i) - B) + L->str_ascii_size, s, strlen(s));
}

/* Location table of code 0: 2 code units with no column at line +0, then
 * 3 at line +2 (one-line form, code 12), then 1 without location. */
static const uint8_t table[] = {
	0x80 | 13 << 3 | 1, 0,		/* no column, delta 0, 2 units */
	0x80 | 12 << 3 | 2, 5, 9,	/* one line, delta 2, 3 units */
	0x80 | 15 << 3 | 0,		/* no location, 1 unit */
};

static void code(int i, const char *qual, int first)
{
	int32_t f = first;

	put64(CODE(i), L->ob_type, CODE_TYPE);
	put_str(2 * i, qual);
	put_str(2 * i + 1, "/app/main.py");
	put64(CODE(i), L->co_qualname, STR(2 * i));
	put64(CODE(i), L->co_filename, STR(2 * i + 1));
	put64(CODE(i), L->co_linetable, TAB);
	memcpy(mem + (CODE(i) - B) + L->co_firstlineno, &f, 4);
}

/* frames 0..n-1, 0 innermost, frame i running code i % 2 at lasti 3;
 * entry marks on the frames in entries */
static void chain(int n, unsigned entries)
{
	for (int i = 0; i < n; i++) {
		uint64_t c = CODE(i % 2);

		put64(FRAME(i), L->fr_code, c);
		put64(FRAME(i), L->fr_previous, i + 1 < n ? FRAME(i + 1) : 0);
		put64(FRAME(i), L->fr_instr,
		      c + (uint64_t)L->co_code_adaptive + 2 * 3);
		mem[FRAME(i) - B + L->fr_is_entry] = (entries >> i) & 1;
	}
}

static struct py_target target(void)
{
	return (struct py_target){ .l = L, .runtime = RUNTIME,
				   .code_type = CODE_TYPE,
				   .unicode_type = UNICODE_TYPE,
				   .bytes_type = BYTES_TYPE,
				   .read = fake_read };
}

static int setup(void **state)
{
	(void)state;
	L = py_layout_find(3, 11);
	assert_non_null(L);
	memset(mem, 0, sizeof(mem));
	put64(RUNTIME, L->rt_interp_head, INTERP);
	put64(INTERP, L->is_threads_head, TSTATE);
	put64(TSTATE, L->ts_native_thread_id, 1234);
	put64(TSTATE, L->ts_cframe, CFRAME);
	put64(CFRAME, L->cf_current_frame, FRAME(0));
	put64(TAB, L->ob_type, BYTES_TYPE);
	put64(TAB, L->ob_size, sizeof(table));
	memcpy(mem + (TAB - B) + L->bytes_sval, table, sizeof(table));
	code(0, "Parser.parse_row", 40);
	code(1, "main", 10);
	return 0;
}

static void test_good_chain(void **state)
{
	struct py_target t = target();
	struct py_frame fr[8];
	struct py_code c;
	enum py_walk_error err;
	uint8_t tab[64];
	long len;
	size_t n;

	(void)state;
	chain(3, 1u << 1 | 1u << 2);
	assert_int_equal(py_thread_find(&t, 1234), TSTATE);
	assert_int_equal(py_thread_find(&t, 99), 0);
	n = py_walk(&t, TSTATE, fr, 8, &err);
	assert_int_equal(err, PY_WALK_OK);
	assert_int_equal(n, 3);
	assert_false(fr[0].entry);
	assert_true(fr[1].entry);
	assert_true(fr[2].entry);
	assert_int_equal(fr[0].code, CODE(0));
	assert_int_equal(fr[1].code, CODE(1));
	assert_int_equal(fr[0].lasti, 3);
	assert_int_equal(py_code_read(&t, fr[0].code, &c), 0);
	assert_string_equal(c.qualname, "Parser.parse_row");
	assert_string_equal(c.filename, "/app/main.py");
	assert_int_equal(c.firstlineno, 40);
	len = py_code_linetable(&t, &c, tab, sizeof(tab));
	assert_int_equal(len, sizeof(table));
	/* units 0-1 line 40, 2-4 line 42, 5 none */
	assert_int_equal(py_linetable_line(tab, (size_t)len, 40, 3), 42);
}

static void test_loop(void **state)
{
	struct py_target t = target();
	struct py_frame fr[64];
	enum py_walk_error err;

	(void)state;
	chain(5, 0);
	put64(FRAME(4), L->fr_previous, FRAME(1));
	py_walk(&t, TSTATE, fr, 64, &err);
	assert_int_equal(err, PY_WALK_LOOP);
}

static void test_bad_pointers(void **state)
{
	struct py_target t = target();
	struct py_frame fr[8];
	enum py_walk_error err;
	size_t n;

	(void)state;
	chain(3, 4);
	put64(FRAME(1), L->fr_previous, FRAME(2) + 4);
	n = py_walk(&t, TSTATE, fr, 8, &err);
	assert_int_equal(err, PY_WALK_BAD_POINTER);
	assert_int_equal(n, 2);
	put64(FRAME(1), L->fr_previous, B + SIZE + 0x1000);
	py_walk(&t, TSTATE, fr, 8, &err);
	assert_int_equal(err, PY_WALK_UNREADABLE);
	/* a code pointer to something that is not a code object */
	put64(FRAME(1), L->fr_previous, FRAME(2));
	put64(FRAME(2), L->fr_code, STR(0));
	n = py_walk(&t, TSTATE, fr, 8, &err);
	assert_int_equal(err, PY_WALK_BAD_CODE);
	assert_int_equal(n, 2);
	assert_int_equal(py_code_read(&t, STR(0), &(struct py_code){ 0 }),
			 -1);
	/* a misaligned thread state */
	py_walk(&t, TSTATE + 3, fr, 8, &err);
	assert_int_equal(err, PY_WALK_BAD_POINTER);
}

static void test_too_deep(void **state)
{
	struct py_target t = target();
	struct py_frame fr[4];
	enum py_walk_error err;

	(void)state;
	chain(10, 1u << 9);
	assert_int_equal(py_walk(&t, TSTATE, fr, 4, &err), 4);
	assert_int_equal(err, PY_WALK_TOO_DEEP);
}

/* One walk with and without read2: the same frames and error; returns
 * the system calls of each through *one, *two. */
static size_t walk_both(size_t max, int *one, int *two)
{
	struct py_target t = target();
	struct py_frame a[16], b[16];
	enum py_walk_error ea, eb;
	size_t na, nb;

	t.read = counted_read;
	calls = 0;
	na = py_walk(&t, TSTATE, a, max, &ea);
	*one = calls;
	t.read2 = counted_read2;
	calls = 0;
	nb = py_walk(&t, TSTATE, b, max, &eb);
	*two = calls;
	assert_int_equal(ea, eb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(a[i].addr, b[i].addr);
		assert_int_equal(a[i].code, b[i].code);
		assert_int_equal(a[i].lasti, b[i].lasti);
		assert_int_equal(a[i].entry, b[i].entry);
		assert_int_equal(a[i].qualname_ptr, b[i].qualname_ptr);
		assert_int_equal(a[i].bytecode, b[i].bytecode);
	}
	return na;
}

/* A frame's code object and the frame before it read in one system call
 * (python.h's read2): the same walk, every frame and every error alike,
 * over generated chains (depths, C-level entries, shim frames, broken
 * links and code pointers), in d + 3 calls for d frames where one by one
 * took 2d + 2. */
static void test_read2_same_walk(void **state)
{
	static const uint64_t bad_links[] = { 4, 0x10, B + SIZE + 0x1000 };
	uint32_t x = 12345;
	int one, two;

	(void)state;
	for (int d = 1; d <= 12; d++) {
		memset(mem + (FRAME(0) - B), 0, 16 * 0x80);
		chain(d, 1u << (d - 1));
		assert_int_equal(walk_both(16, &one, &two), d);
		assert_int_equal(one, 2 * d + 2);
		assert_int_equal(two, d + 3);
	}
	for (int k = 0; k < 2000; k++) {
		int d = 1 + (int)((x = x * 1103515245u + 12345u) >> 16) % 12;
		int at = (int)((x = x * 1103515245u + 12345u) >> 16) % d;
		int what = (int)((x = x * 1103515245u + 12345u) >> 16) % 6;

		memset(mem + (FRAME(0) - B), 0, 16 * 0x80);
		chain(d, x >> 8);
		switch (what) {
		case 0:		/* a broken link */
		case 1:
		case 2:
			put64(FRAME(at), L->fr_previous,
			      FRAME(at) + bad_links[what]);
			break;
		case 3:		/* a loop */
			put64(FRAME(at), L->fr_previous, FRAME(at / 2));
			break;
		case 4:		/* not a code object */
			put64(FRAME(at), L->fr_code, STR(0));
			break;
		default:	/* a shim frame (3.11's C-level entry) */
			if (L->owner_cstack >= 0)
				mem[FRAME(at) - B + L->fr_owner] =
					(uint8_t)L->owner_cstack;
			break;
		}
		walk_both(1 + (size_t)(x >> 20) % 14, &one, &two);
		/* a pair that fails is read again one by one, once a walk */
		assert_true(two <= one + 1);
	}
}

static void test_bad_strings(void **state)
{
	struct py_target t = target();
	struct py_code c;

	(void)state;
	put64(STR(0), L->str_length, 1ULL << 40);
	assert_int_equal(py_code_read(&t, CODE(0), &c), -1);
	put64(STR(0), L->str_length, 3);
	/* not compact */
	mem[STR(0) - B + L->str_state] = PY_STATE_KIND(1);
	assert_int_equal(py_code_read(&t, CODE(0), &c), -1);
	/* a compact UCS-2 string, into UTF-8 */
	mem[STR(0) - B + L->str_state] = PY_STATE_KIND(2) | PY_STATE_COMPACT;
	put64(STR(0), L->str_length, 2);
	memcpy(mem + (STR(0) - B) + L->str_compact_size, "\xe9\x00\x3b\x04",
	       4);
	assert_int_equal(py_code_read(&t, CODE(0), &c), 0);
	assert_string_equal(c.qualname, "\xc3\xa9\xd0\xbb");
	/* a location table larger than the bound */
	put64(TAB, L->ob_size, PY_LINETABLE_MAX + 1);
	assert_int_equal(py_code_read(&t, CODE(0), &c), -1);
}

static void test_thread_loop(void **state)
{
	struct py_target t = target();
	struct py_thread th[4];

	(void)state;
	put64(TSTATE, L->ts_next, TSTATE);
	assert_int_equal(py_threads(&t, th, 4), -1);
	assert_int_equal(py_thread_find(&t, 99), 0);
}

static void test_linetable_forms(void **state)
{
	/* long form: delta -1... from 7: line 6 for 1 unit; short form
	 * (code 0) keeps the line for 2 units; a truncated entry ends it */
	static const uint8_t t[] = {
		0x80 | 14 << 3 | 0, 3, 0, 0, 0,	/* svarint 3: -1 */
		0x80 | 0 << 3 | 1, 7,		/* short, 2 units */
		0x80 | 11 << 3 | 0,		/* one line +1, cut */
	};

	(void)state;
	assert_int_equal(py_linetable_line(t, sizeof(t), 7, 0), 6);
	assert_int_equal(py_linetable_line(t, sizeof(t), 7, 2), 6);
	assert_int_equal(py_linetable_line(t, sizeof(t), 7, 3), -1);
	assert_int_equal(py_linetable_line(t, sizeof(t), 7, -1), -1);
	assert_int_equal(py_linetable_line(t, 0, 7, 0), -1);
	/* a frame as CPython tells it: entered, not yet at its first
	 * instruction, at its first line (a sample caught burn_a so, and
	 * its speedscope frame had no line) */
	assert_int_equal(py_frame_line(t, sizeof(t), 7, -1), 7);
	assert_int_equal(py_frame_line(t, sizeof(t), 7, 0), 6);
	assert_int_equal(py_frame_line(t, sizeof(t), 7, 3), -1);
}

/* One naming rule in every output (pystacks_label): a Python frame by its
 * def line, the executing line with lines; a native frame by its name,
 * "name (file:line)" with lines when the line is known. */
static void test_naming_rule(void **state)
{
	struct frame py = { .function = "Pool.big (memfix.py:37)",
			    .file = "/srv/app/memfix.py", .line = 39,
			    .module = PYSTACKS_MODULE };
	struct frame nat = { .function = "deflate", .file = "/src/deflate.c",
			     .line = 120, .module = "libz.so.1" };
	struct frame noline = { .function = "g (a.py:3)",
				.module = PYSTACKS_MODULE };
	const struct { struct frame *f; bool lines; const char *want; } c[] = {
		{ &py, false, "Pool.big (memfix.py:37)" },
		{ &py, true, "Pool.big (memfix.py:39)" },
		{ &nat, false, "deflate" },
		{ &nat, true, "deflate (deflate.c:120)" },
		{ &noline, false, "g (a.py:3)" },
		{ &noline, true, "g (a.py:3)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *got = pystacks_label(c[i].f, c[i].lines);

		assert_string_equal(got, c[i].want);
		free(got);
	}
	assert_true(pystacks_is_python(&py));
	assert_false(pystacks_is_python(&nat));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_good_chain, setup),
		cmocka_unit_test_setup(test_loop, setup),
		cmocka_unit_test_setup(test_bad_pointers, setup),
		cmocka_unit_test_setup(test_too_deep, setup),
		cmocka_unit_test_setup(test_read2_same_walk, setup),
		cmocka_unit_test_setup(test_bad_strings, setup),
		cmocka_unit_test_setup(test_thread_loop, setup),
		cmocka_unit_test_setup(test_linetable_forms, setup),
		cmocka_unit_test(test_naming_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
