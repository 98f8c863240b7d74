/*
 * The replay's table of live blocks (analyze_replay.h, struct live):
 * open addressing, linear probing, deletion by shifting back (no
 * tombstones slow a long run down). Probes never wrap around: a key's
 * home is one of the first mask + 1 cells, and a run that starts near
 * the end goes on into LIVE_SLACK cells after them. So the table doubles
 * in place (analyze_table.c): its memory grows, and each block moves at
 * most once, within it, where a new table touched twice the final size
 * (on python3's 3.3 M live blocks, the kernel zeroing the new tables'
 * pages was 17.5% of a `mem` run: bench/RESULTS.md). Included by
 * analyze.c and analyze_table.c only.
 */
#ifndef YS_HEAP_ANALYZE_TABLE_H
#define YS_HEAP_ANALYZE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "heap/analyze_replay.h"

/* Cells after the last home a run may take; a run that would go past
 * them makes the table double (at most half full, a run of 1024 cells
 * does not happen but by design of an adversary who knows mix). */
#define LIVE_SLACK 1024

/* The home of key k in l (below its mask): a mix of k with l's key, as
 * the traced program chooses the addresses (a run of blocks homed at the
 * end, given the mix, would make the table double without end). */
static inline size_t live_mix(const struct live *l, uint64_t k)
{
	k ^= l->key;
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdu;
	k ^= k >> 33;
	return (size_t)k;
}

/* Every cell of the table, homes and slack. */
static inline size_t live_cells(const struct live *l)
{
	return l->mask + 1 + LIVE_SLACK;
}

/* The cell of key, or the empty one where it would go; NULL if its run
 * goes past the slack (the table must double). */
static inline struct block *live_find(struct live *l, uint64_t key)
{
	size_t end = live_cells(l);

	for (size_t i = live_mix(l, key) & l->mask; i < end; i++)
		if (!l->b[i].ptr || l->b[i].ptr == key)
			return &l->b[i];
	return NULL;
}

/* Empty the cell at b, moving later cells of its run back: a cell j may
 * move to i (i < j) when its home is not after i. */
static inline void live_remove(struct live *l, struct block *b)
{
	size_t i = (size_t)(b - l->b), end = live_cells(l);

	l->n--;
	for (size_t j = i + 1; j < end && l->b[j].ptr; j++) {
		if ((live_mix(l, l->b[j].ptr) & l->mask) > i)
			continue;
		l->b[i] = l->b[j];
		i = j;
	}
	l->b[i].ptr = 0;
}

#endif
