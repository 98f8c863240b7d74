/*
 * libFuzzer target of the cold-part finder (profile/elfcold.h): the
 * input is the function's file address and size (two little-endian
 * 32-bit words) and then an ELF image. Any bytes scan without reading
 * outside them (the sanitizers watch), and an answer found is checked
 * against a plain count: the answer is two neighbouring entries of the
 * table, and at least ELF_COLD_MIN_JUMPS of the function's conditional
 * jumps out of itself, more than half of them, land between the two.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/elfcold.h"

/* The reference: a linear walk where the finder searches. */
static void check(const uint8_t *img, size_t n, uint64_t start, uint64_t len,
		  uint64_t lo, uint64_t hi)
{
	Elf64_Ehdr eh;
	uint64_t hdr = 0, addr = 0, count = 0, code = 0, in = 0, out = 0;
	int found = 0, loaded = 0, pair = 0;

	if (lo >= hi || (lo <= start && start < hi))
		abort();
	memcpy(&eh, img, sizeof(eh));
	/* the program headers up to the two the finder used (it read no
	 * further) */
	for (size_t i = 0; i < eh.e_phnum && !(found && loaded); i++) {
		Elf64_Phdr ph;

		memcpy(&ph, img + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		/* the first of at least its fixed part (the finder read it
		 * and its table: they are within the bytes) */
		if (ph.p_type == PT_GNU_EH_FRAME && !found &&
		    ph.p_filesz >= 12) {
			uint32_t c;

			memcpy(&c, img + ph.p_offset + 8, 4);
			hdr = ph.p_offset;
			addr = ph.p_vaddr;
			count = c;
			found = 1;
		}
		/* a segment whose offset to the function wraps past 2^64
		 * is none (the finder skips it: its bytes would be read at
		 * the wrapped, small offset) */
		if (ph.p_type == PT_LOAD && !loaded && start >= ph.p_vaddr &&
		    start - ph.p_vaddr <= ph.p_filesz &&
		    len <= ph.p_filesz - (start - ph.p_vaddr) &&
		    ph.p_offset + (start - ph.p_vaddr) >= ph.p_offset &&
		    ph.p_offset + (start - ph.p_vaddr) <= n &&
		    len <= n - (ph.p_offset + (start - ph.p_vaddr)))
		{
			code = ph.p_offset + (start - ph.p_vaddr);
			loaded = 1;
		}
	}
	if (!found || !loaded)
		abort();
	for (uint64_t i = 0; i + 1 < count; i++) {
		int32_t a, b;

		memcpy(&a, img + hdr + 12 + 8 * i, 4);
		memcpy(&b, img + hdr + 20 + 8 * i, 4);
		pair |= addr + (uint64_t)(int64_t)a == lo &&
			addr + (uint64_t)(int64_t)b == hi;
	}
	if (!pair)
		abort();
	for (uint64_t i = 0; i + 6 <= len; i++) {
		const uint8_t *p = img + code + i;
		int32_t rel;
		uint64_t t;

		if (p[0] != 0x0f || (p[1] & 0xf0) != 0x80)
			continue;
		memcpy(&rel, p + 2, 4);
		t = start + i + 6 + (uint64_t)(int64_t)rel;
		if (t >= start && t - start < len)
			continue;
		out++;
		in += t >= lo && t < hi;
	}
	if (in < ELF_COLD_MIN_JUMPS || 2 * in <= out)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t start, len;
	uint64_t lo, hi;
	uint8_t *img;
	size_t n;

	if (size < 8)
		return 0;
	memcpy(&start, data, 4);
	memcpy(&len, data + 4, 4);
	n = size - 8;
	/* a copy of exactly n bytes: a read past them is caught */
	img = malloc(n ? n : 1);
	memcpy(img, data + 8, n);
	if (!elf_cold_scan(img, n, start, len, &lo, &hi))
		check(img, n, start, len, lo, hi);
	free(img);
	return 0;
}
