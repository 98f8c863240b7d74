/*
 * Tests for the cold part of a function (profile/elfcold.h) on hand-made
 * ELF images: the unwind table entry most of the function's conditional
 * jumps out of itself land in is found, with its bounds; too few jumps,
 * jumps split between two places, jumps past the table's last entry or
 * before its first, jumps within the function and unconditional ones
 * find none; a damaged header or table, and every truncation of the
 * image, find none or the same answer, without reading past the bytes
 * (the sanitizers watch). And the installed python3's evaluation
 * function, whose cold part Debian's build has.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/elfcold.h"
#include "profile/python_proc.h"

#define IMG 0x4000
#define HDR 0x200		/* .eh_frame_hdr */
#define FN 0x1000		/* the function: [FN, FN + FN_SIZE) */
#define FN_SIZE 0x400
#define OTHER 0x1400		/* another function */
#define COLD 0x2000		/* the cold part: [COLD, NEXT) */
#define NEXT 0x2400
#define LAST 0x3000		/* the table's last entry: no end known */

static uint8_t img[IMG];
static size_t at;		/* the next free byte of the function */

static void put32(size_t off, uint32_t v)
{
	memcpy(img + off, &v, sizeof(v));
}

static void build(void)
{
	static const uint32_t starts[] = { FN, OTHER, COLD, NEXT, LAST };
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph[2] = { { 0 } };
	size_t n = sizeof(starts) / sizeof(starts[0]);

	memset(img, 0x90, sizeof(img));	/* nop */
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_machine = EM_X86_64;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 2;
	memcpy(img, &eh, sizeof(eh));
	ph[0].p_type = PT_LOAD;
	ph[0].p_filesz = ph[0].p_memsz = IMG;
	ph[1].p_type = PT_GNU_EH_FRAME;
	ph[1].p_offset = ph[1].p_vaddr = HDR;
	ph[1].p_filesz = 12 + 8 * n;
	memcpy(img + sizeof(eh), ph, sizeof(ph));
	img[HDR] = 1;
	img[HDR + 1] = 0x1b;	/* pcrel sdata4 */
	img[HDR + 2] = 0x03;	/* udata4 */
	img[HDR + 3] = 0x3b;	/* datarel sdata4 */
	put32(HDR + 8, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		put32(HDR + 12 + 8 * i, starts[i] - HDR);
		put32(HDR + 16 + 8 * i, 0);
	}
	at = FN;
}

/* A conditional jump (je rel32) from the function to target. */
static void jcc(uint64_t target)
{
	img[at] = 0x0f;
	img[at + 1] = 0x84;
	put32(at + 2, (uint32_t)(int32_t)(target - (at + 6)));
	at += 6;
}

static void jmp(uint64_t target)	/* jmp rel32: not counted */
{
	img[at] = 0xe9;
	put32(at + 1, (uint32_t)(int32_t)(target - (at + 5)));
	at += 5;
}

static int scan(uint64_t *lo, uint64_t *hi)
{
	*lo = *hi = 0;
	return elf_cold_scan(img, sizeof(img), FN, FN_SIZE, lo, hi);
}

static void test_found(void **state)
{
	uint64_t lo, hi;

	(void)state;
	build();
	for (int i = 0; i < 6; i++)
		jcc(COLD + 0x10 * (uint64_t)i);
	jcc(OTHER + 4);
	jcc(OTHER + 8);
	for (int i = 0; i < 8; i++)	/* within itself: not counted */
		jcc(FN + 2);
	assert_int_equal(scan(&lo, &hi), 0);
	assert_int_equal(lo, COLD);
	assert_int_equal(hi, NEXT);
	/* a jump to the first byte of the next entry is not the cold
	 * part's */
	build();
	for (int i = 0; i < 4; i++)
		jcc(NEXT - 1);
	assert_int_equal(scan(&lo, &hi), 0);
	assert_int_equal(lo, COLD);
	build();
	for (int i = 0; i < 4; i++)
		jcc(NEXT);
	assert_int_equal(scan(&lo, &hi), 0);
	assert_int_equal(lo, NEXT);
	assert_int_equal(hi, LAST);
}

static void test_none(void **state)
{
	uint64_t lo, hi;

	(void)state;
	build();			/* no jump at all */
	assert_int_equal(scan(&lo, &hi), -1);
	for (int i = 0; i < ELF_COLD_MIN_JUMPS - 1; i++)
		jcc(COLD);
	assert_int_equal(scan(&lo, &hi), -1);	/* too few */
	jcc(COLD);
	assert_int_equal(scan(&lo, &hi), 0);
	for (int i = 0; i < ELF_COLD_MIN_JUMPS; i++)
		jcc(OTHER);
	assert_int_equal(scan(&lo, &hi), -1);	/* half, not more */

	build();			/* past the last entry */
	for (int i = 0; i < 8; i++)
		jcc(LAST + 0x10);
	assert_int_equal(scan(&lo, &hi), -1);
	build();			/* before the first */
	for (int i = 0; i < 8; i++)
		jcc(0x800);
	assert_int_equal(scan(&lo, &hi), -1);
	build();			/* unconditional: tail calls */
	for (int i = 0; i < 8; i++)
		jmp(COLD);
	assert_int_equal(scan(&lo, &hi), -1);
	build();			/* a jump cut by the function's end */
	at = FN + FN_SIZE - 5;
	jcc(COLD);
	assert_int_equal(scan(&lo, &hi), -1);
}

static void test_damaged(void **state)
{
	uint64_t lo, hi;

	(void)state;
	build();
	for (int i = 0; i < 6; i++)
		jcc(COLD);
	assert_int_equal(scan(&lo, &hi), 0);
	img[HDR + 3] = 0x1b;		/* a table encoding not read */
	assert_int_equal(scan(&lo, &hi), -1);
	img[HDR + 3] = 0x3b;
	put32(HDR + 8, 0x10000000);	/* more entries than bytes */
	assert_int_equal(scan(&lo, &hi), -1);
	put32(HDR + 8, 5);
	img[EI_CLASS] = ELFCLASS32;
	assert_int_equal(scan(&lo, &hi), -1);
	img[EI_CLASS] = ELFCLASS64;
	img[offsetof(Elf64_Ehdr, e_machine)] = EM_AARCH64;	/* not x86-64 */
	assert_int_equal(scan(&lo, &hi), -1);
	img[offsetof(Elf64_Ehdr, e_machine)] = EM_X86_64;
	assert_int_equal(scan(&lo, &hi), 0);
	/* a function reaching past its segment, or not in one */
	assert_int_equal(elf_cold_scan(img, sizeof(img), FN, IMG, &lo, &hi),
			 -1);
	assert_int_equal(elf_cold_scan(img, sizeof(img), IMG + 0x1000,
				       FN_SIZE, &lo, &hi), -1);
	assert_int_equal(elf_cold_scan(img, sizeof(img), UINT64_MAX - 8,
				       FN_SIZE, &lo, &hi), -1);
	/* every length cut short: none, or the whole image's answer */
	for (size_t n = 0; n < sizeof(img); n += 7) {
		uint8_t *cut = malloc(n ? n : 1);
		int r;

		memcpy(cut, img, n);
		r = elf_cold_scan(cut, n, FN, FN_SIZE, &lo, &hi);
		assert_true(r == -1 || (lo == COLD && hi == NEXT));
		free(cut);
	}
}

/* Debian's python3 (GCC, -O2 with profile feedback) has its evaluation
 * function's unlikely code in a part of its own, where the function's
 * own conditional jumps go, outside the function. */
static void test_installed_python(void **state)
{
	uint64_t lo = 0, hi = 0;

	(void)state;
	assert_int_equal(py_eval_cold("/usr/bin/python3", &lo, &hi), 0);
	assert_true(lo < hi);
	assert_true(hi - lo < (1u << 20));
	assert_int_equal(py_eval_cold("/nonexistent/python3", &lo, &hi), -1);
	assert_int_equal(py_eval_cold("/bin/sh", &lo, &hi), -1);
}

/* A FIFO where the maps named the interpreter's file (replaced since):
 * refused at once, not waited on for a writer. */
static void test_fifo(void **state)
{
	char dir[] = "/tmp/ys-elfcold-XXXXXX", path[64];
	uint64_t lo, hi;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/python3.11", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10);		/* a hang fails the test */
	assert_int_equal(py_eval_cold(path, &lo, &hi), -1);
	assert_int_equal(elf_cold_file(path, 0x1000, 0x100, &lo, &hi), -1);
	alarm(0);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_found),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_installed_python),
		cmocka_unit_test(test_fifo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
