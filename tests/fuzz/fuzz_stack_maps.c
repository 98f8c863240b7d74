/*
 * libFuzzer target of the heap agent's reading of /proc/self/maps
 * (heap/stack_maps.h), against a reference written apart here: any bytes,
 * fed in pieces of sizes drawn from the input (the agent reads 1 KiB at a
 * time, the kernel hands out what it has), give the mapping that holds
 * the address, the end of the one before it and whether it is "[stack]",
 * as a whole-text reading of the same rules does.
 *
 * The input: 8 bytes of the address looked for (its low 16 bits also draw
 * the pieces' sizes), then the text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap/stack_maps.h"

struct ref {
	uintptr_t lo, hi, below;
	int stack;
};

/* n lowercase hexadecimal digits at s (1 to 16) followed by end */
static int ref_hex(const char *s, size_t len, char end, uintptr_t *v,
		   size_t *used)
{
	size_t n = 0;

	while (n < len && strchr("0123456789abcdef", s[n]) && s[n])
		n++;
	if (n < 1 || n > 16 || n >= len || s[n] != end)
		return 0;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v = *v * 16 + (uintptr_t)(s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10);
	*used = n + 1;
	return 1;
}

static void ref_find(const char *t, size_t n, uintptr_t addr, struct ref *r)
{
	uintptr_t last = 0;
	size_t at = 0;

	memset(r, 0, sizeof(*r));
	while (at < n) {
		const char *nl = memchr(t + at, '\n', n - at);
		size_t len = nl ? (size_t)(nl - (t + at)) : n - at;
		size_t keep = len > MAPS_LINE ? MAPS_LINE : len, u1, u2;
		const char *l = t + at;
		uintptr_t lo, hi;

		if (ref_hex(l, keep, '-', &lo, &u1) &&
		    ref_hex(l + u1, keep - u1, ' ', &hi, &u2) && hi > lo) {
			if (!r->hi && addr >= lo && addr < hi) {
				size_t e = keep;

				r->lo = lo;
				r->hi = hi;
				r->below = last;
				while (e && (l[e - 1] == ' ' || l[e - 1] == '\t'))
					e--;
				r->stack = len <= MAPS_LINE && e > 7 &&
					   !memcmp(l + e - 7, "[stack]", 7) &&
					   (l[e - 8] == ' ' || l[e - 8] == '\t');
			}
			last = hi;
		}
		at += len + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct maps_find f;
	struct ref r;
	uintptr_t addr = 0;
	const char *t;
	size_t n, at = 0;
	unsigned draw;

	if (size < 8)
		return 0;
	memcpy(&addr, data, 8);
	t = (const char *)data + 8;
	n = size - 8;
	draw = (unsigned)(addr & 0xffff) | 1;
	maps_find_init(&f, addr);
	while (at < n) {
		size_t piece;

		draw = draw * 1103515245u + 12345u;
		piece = 1 + (draw >> 16) % 1100;
		if (piece > n - at)
			piece = n - at;
		maps_feed(&f, t + at, piece);
		at += piece;
	}
	maps_finish(&f);
	ref_find(t, n, addr, &r);
	if (f.hi != r.hi || f.lo != r.lo || f.below != r.below ||
	    (int)f.stack != r.stack)
		abort();
	return 0;
}
