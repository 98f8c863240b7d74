/*
 * What a program's ELF image says of its allocator, for `mem`: whether
 * it defines malloc itself (an allocator of its own, or a wrapper: its
 * calls reach the agent only through it) and whether it is built with a
 * sanitizer whose runtime replaces malloc and must come first (the
 * program aborts with the agent preloaded). Read from the image's
 * dynamic symbols and needed libraries (section headers: an image
 * without them says nothing). The image is untrusted: every offset and
 * size is checked against its length (tests/fuzz/fuzz_elfalloc.c).
 */
#ifndef YS_HEAP_ELFALLOC_H
#define YS_HEAP_ELFALLOC_H

#include <stdbool.h>
#include <stddef.h>

struct elf_alloc {
	bool defines_malloc;	/* malloc, free, calloc or realloc defined */
	const char *sanitizer;	/* "AddressSanitizer", ...: NULL, none */
};

/* Scan the n bytes of a 64-bit ELF image at img into f (zeroed first). */
void elf_alloc_scan(const unsigned char *img, size_t n, struct elf_alloc *f);

#endif
