/*
 * libFuzzer target of the symbolizer's disk cache files
 * (src/profile/symcache.c): any bytes either parse or fail with a
 * message; what parses has every index in range, entries in order and
 * strings without NUL, and encodes back to the same bytes. Each input is
 * also tried with its payload length and checksum made right, so that
 * the fuzzer reaches the payload's checks past the checksum.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/symcache.h"

#define HDR 196

static void check(const uint8_t *data, size_t size)
{
	struct symcache c;
	struct error e;
	void *again;
	size_t len;

	if (symcache_parse(data, size, &c, &e)) {
		if (!strstr(e.msg, "bad symbol cache: "))
			abort();
		return;
	}
	for (size_t i = 0; i < c.nentries; i++) {
		const struct symcache_entry *en = &c.entries[i];

		if ((i && en->addr <= c.entries[i - 1].addr) || !en->n ||
		    en->n > SYMCACHE_MAX_INLINE ||
		    (uint64_t)en->first + en->n > c.nframes)
			abort();
	}
	for (size_t i = 0; i < c.nframes; i++)
		if (c.frames[i].function >= c.nstrings ||
		    (c.frames[i].file != SYMCACHE_NONE &&
		     c.frames[i].file >= c.nstrings) || c.frames[i].line < 0)
			abort();
	for (size_t i = 0; i < c.nstrings; i++)
		(void)strlen(c.strings[i]);
	again = symcache_encode(&c, &len);
	if (len != size || memcmp(again, data, size))
		abort();
	free(again);
	symcache_free(&c);
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed;
	uint64_t n, h;

	check(data, size);
	if (size < HDR)
		return 0;
	fixed = malloc(size);
	memcpy(fixed, data, size);
	n = size - HDR;
	h = fnv(fixed + HDR, n);
	memcpy(fixed + HDR - 16, &n, 8);
	memcpy(fixed + HDR - 8, &h, 8);
	check(fixed, size);
	free(fixed);
	return 0;
}
