/*
 * Heap traces written by hand for the unit tests (protocol.h's records):
 * words appended to a slot's stream, a record's first word.
 */
#ifndef YS_TESTS_HEAPRECS_H
#define YS_TESTS_HEAPRECS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap/collect.h"
#include "heap/protocol.h"

/* w[0..n) at the end of slot's stream (cmocka's assert_non_null: include
 * after cmocka.h). */
static inline void put(struct heap_trace *t, int slot, const uint64_t *w,
		       size_t n)
{
	struct heap_stream *s = &t->streams[slot];

	if (s->n + n > s->cap) {
		s->cap = 2 * (s->n + n);
		s->words = realloc(s->words, s->cap * sizeof(uint64_t));
		assert_non_null(s->words);
	}
	memcpy(s->words + s->n, w, n * sizeof(uint64_t));
	s->n += n;
}

/* A record's first word: its type and time stamp (or frame count). */
static inline uint64_t head(uint32_t type, uint64_t ts)
{
	return ((uint64_t)type << HEAP_TYPE_SHIFT) | (ts & HEAP_TS_MASK);
}

#endif
