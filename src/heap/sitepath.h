/*
 * The native frame ids of the heap's sites (heap_profile, sites.c), put
 * together from their paths in the stack store's trie (stackstore.h)
 * rather than looked up frame by frame: each trie node keeps the handle
 * of its address's ids (rawstacks.h, stackframes_addr) for the maps id
 * it was last read with, and the last site's ids are kept by node from
 * the root, so that a site, which mostly shares a long root side with
 * the one before it (the sites come in the order of their records), is
 * read only as far as it differs. On `import torch`: 117 M frame words
 * of 1.36 M sites, 2.8 M nodes.
 *
 * The one thing to keep: the ids are exactly those stackframes_ids gives
 * the site's frames written out (every one a return address, weight 1),
 * and its addresses are looked up in the same order (leaf first, none
 * beyond where it stops), so that the profile interns the same frames in
 * the same order. The chains stackframes_ids does not read as the sum of
 * their addresses (a stand-in, a leaf that is a thread's origin, more
 * ids than the room, none at all) are left to it.
 */
#ifndef YS_HEAP_SITEPATH_H
#define YS_HEAP_SITEPATH_H

#include <stddef.h>
#include <stdint.h>

#include "heap/stackstore.h"
#include "profile/profile.h"
#include "profile/rawstacks.h"

struct sitepath;

/* For the stacks of st, of at most max_depth native frames, read through
 * c into at most max_ids ids (stackframes_ids's max). Neither st nor c
 * may be freed before it; st may not change. */
struct sitepath *sitepath_new(const struct stackstore *st,
			      struct stackframes *c, uint32_t max_depth,
			      size_t max_ids);
void sitepath_free(struct sitepath *sp);

/*
 * The frame ids of s's native frames read with the mappings of pid (a
 * symtab id) into ids (room for max_ids), leaf first, and their frames
 * and unknown frames added to p's counts, as stackframes_ids(c, pid,
 * frames, s->depth, true, 1, ids, max_ids) would. Returns how many; 0
 * for a stack it leaves to stackframes_ids (p untouched then).
 */
size_t sitepath_ids(struct sitepath *sp, struct profile *p, uint32_t pid,
		    const struct stack_ref *s, uint32_t *ids);

#endif
