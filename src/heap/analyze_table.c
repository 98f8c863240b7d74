/*
 * The live-block table's memory and its doubling (analyze_table.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "heap/analyze_table.h"
#include "util/hashmap.h"
#include "util/hugemem.h"
#include "util/strutil.h"

/* What cells cells of a table take, mapped (large tables: in whole huge
 * pages) or 0 (small ones: calloc's). */
static size_t table_bytes(size_t cells)
{
	return huge_bytes(cells, sizeof(struct block));
}

/*
 * The table's memory: zeroed, in huge pages where the kernel has them (a
 * large heap's table is far bigger than what the TLB covers with small
 * pages, and its look-ups are random: util/hugemem.h).
 */
static struct block *table_alloc(size_t cells, size_t *bytes)
{
	return huge_calloc(cells, sizeof(struct block), bytes);
}

void replay_blocks_free(struct block *b, size_t bytes)
{
	huge_free(b, bytes);
}

/* x into its run (l's cells otherwise as they are); false if the run goes
 * past the slack. */
static bool live_put(struct live *l, const struct block *x)
{
	struct block *b = live_find(l, x->ptr);

	if (!b)
		return false;
	*b = *x;
	return true;
}

/*
 * A new table of at least cap homes for old's blocks (and the n more at
 * more: blocks taken out of a table doubling in place that found no
 * room); doubled again while a run would go past the slack.
 */
static void table_rebuild(struct live *l, struct live old, size_t cap,
			  const struct block *more, size_t n)
{
	for (;; cap *= 2) {
		size_t i = 0, k = 0, cells = old.b ? live_cells(&old) : 0;

		l->b = table_alloc(cap + LIVE_SLACK, &l->bytes);
		l->mask = cap - 1;
		for (; i < cells; i++)
			if (old.b[i].ptr && !live_put(l, &old.b[i]))
				break;
		for (; i == cells && k < n; k++)
			if (!live_put(l, &more[k]))
				break;
		if (i == cells && k == n)
			break;
		replay_blocks_free(l->b, l->bytes);
	}
	if (old.b)
		replay_blocks_free(old.b, old.bytes);
}

/*
 * The table's memory doubled where it is (mremap), and each block moved
 * within it in one pass over the old homes in order, to cap homes. A
 * block at cell i whose home was h (h <= i) has its new one at h or at
 * h + the old size: at h, the cells from h up to i hold only blocks
 * already moved (or none), and it lands at i at the latest; at h + the
 * old size, the cells from there on hold only blocks moved; so no block
 * is ever put after one that has yet to move, whose leaving would cut a
 * run. The slack's blocks are taken out first and put back last. False
 * (the table as it was) if the memory cannot grow.
 */
static bool table_grow_in_place(struct live *l, size_t cap)
{
	size_t old_homes = l->mask + 1, bytes = table_bytes(cap + LIVE_SLACK);
	size_t nspill = 0, nmore = 0, capmore = 0;
	struct block *spill, *more = NULL;
	void *p;

	if (!l->bytes || !bytes)
		return false;
	p = mremap(l->b, l->bytes, bytes, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return false;
	huge_advise(p, bytes);
	l->b = p;
	l->bytes = bytes;
	spill = xmalloc(LIVE_SLACK * sizeof(*spill));
	for (size_t i = old_homes; i < old_homes + LIVE_SLACK; i++)
		if (l->b[i].ptr) {
			spill[nspill++] = l->b[i];
			l->b[i].ptr = 0;
		}
	l->mask = cap - 1;
	for (size_t i = 0; i < old_homes + nspill; i++) {
		/* the old homes' blocks in order, then the slack's */
		struct block x = i < old_homes ? l->b[i] : spill[i - old_homes];

		if (!x.ptr)
			continue;
		if (i < old_homes)
			l->b[i].ptr = 0;
		if (live_put(l, &x))
			continue;
		if (nmore == capmore) {
			capmore = capmore ? 2 * capmore : 64;
			more = xrealloc(more, capmore * sizeof(*more));
		}
		more[nmore++] = x;
	}
	if (nmore) {
		/* a run went past the slack. It cannot: a run from cell s past
		 * the end needs more blocks homed at s or after than the old
		 * table had cells from s - its size on. Kept all the same:
		 * all of it into a new table */
		size_t n = l->n;

		table_rebuild(l, *l, cap * 2, more, nmore);
		l->n = n;
	}
	free(more);
	free(spill);
	return true;
}

void replay_blocks_grow(struct live *l)
{
	size_t cap = l->b ? (l->mask + 1) * 2 : l->first ? l->first : 1 << 16;
	size_t n = l->n;

	if (!l->b)
		l->key = hash_secret();

	if (l->b && table_grow_in_place(l, cap))
		return;
	table_rebuild(l, *l, cap, NULL, 0);
	l->n = n;
}
