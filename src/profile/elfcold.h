/*
 * The cold part of a function: where GCC moves the code it expects to
 * run rarely (error paths, exceptions), a piece of its own ("FUNC.cold"
 * in a symbol table, which a stripped binary lacks) with its own entry
 * in the unwind table, reached from the function by conditional jumps.
 * Code running there runs in the function's frame: a stack walk shows
 * the cold part in the function's place, under no name. For CPython's
 * _PyEval_EvalFrameDefault (record's and mem's evaluation frames: a
 * Python program that raises and catches exceptions runs there).
 *
 * Found from the image alone: the unwind table entry (FDE, by the
 * sorted table of .eh_frame_hdr, PT_GNU_EH_FRAME) that most of the
 * function's conditional jumps (0f 80..8f rel32) out of itself land in,
 * when at least ELF_COLD_MIN_JUMPS and more than half of them do. The
 * image is untrusted: every offset and size is checked against its
 * length (tests/fuzz/fuzz_elfcold.c).
 */
#ifndef YS_PROFILE_ELFCOLD_H
#define YS_PROFILE_ELFCOLD_H

#include <stddef.h>
#include <stdint.h>

#define ELF_COLD_MIN_JUMPS 4

/*
 * The cold part of the function at file address [start, start + size)
 * of the 64-bit little-endian ELF image img[0..n): 0 and its file
 * addresses [*lo, *hi) (up to the next unwind table entry), or -1 when
 * the image shows none.
 */
int elf_cold_scan(const unsigned char *img, size_t n, uint64_t start,
		  uint64_t size, uint64_t *lo, uint64_t *hi);

/* The same of the file at path, read in pieces (its headers, the
 * function's bytes, the table: no more); -1 also when it cannot be
 * read. */
int elf_cold_file(const char *path, uint64_t start, uint64_t size,
		  uint64_t *lo, uint64_t *hi);

#endif
