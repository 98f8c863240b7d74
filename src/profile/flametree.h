/*
 * The tree a flame graph draws (private to src/profile/flamegraph.c): a
 * profile's stacks merged by (function, module), root first, each node's
 * value the total of everything at and above it, children in name order
 * and placed left to right. Keys are shared between trees, so two trees
 * built on one key table can be matched frame path by frame path (the
 * differential flame graph).
 *
 * Names in keys are already cleaned for XML (see ftree_clean). Nothing
 * here recurses: depth is bounded only by the data.
 */
#ifndef YS_PROFILE_FLAMETREE_H
#define YS_PROFILE_FLAMETREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"
#include "util/hashmap.h"

#define FTREE_NONE UINT32_MAX

/* A frame as drawn. */
struct ftree_key {
	char *function;
	char *module;		/* NULL when the profile names none */
	uint32_t hash;
};

struct ftree_keys {
	struct ftree_key *v;
	size_t n, cap;
	struct hashidx index;	/* key index + 1 by hash */
};

struct ftree_node {
	uint32_t key, parent;
	uint32_t child, next;	/* first child, next sibling, by name */
	uint32_t depth;		/* the root is 0 */
	int64_t value;		/* this frame's total: itself and above */
	int64_t off;		/* left edge, in value units from the root's */
};

/* Node 0 is the root ("all"); a parent's index is below its children's. */
struct ftree {
	struct ftree_node *v;
	size_t n, cap;
	struct hashidx index;	/* node index + 1 by (parent, key) */
	int64_t total;		/* the root's value */
};

/*
 * A malloc'd copy of s that is valid XML character data once escaped:
 * invalid UTF-8, surrogates, U+FFFE/U+FFFF and control characters become
 * '?', tabs and line breaks spaces — so that a name keeps its length
 * through an XML parser, which would turn "\r\n" into "\n".
 */
char *ftree_clean(const char *s);
/* Write s to fp as XML text or attribute value: ftree_clean, then
 * escaped (fputs_xml). For every string from outside in an SVG. */
void ftree_put_text(FILE *fp, const char *s);
/* A well-mixed 32-bit hash of s (FNV-1a, then MurmurHash3's finalizer). */
uint32_t ftree_hash(const char *s);

/* Per frame id of p, its key (malloc'd). */
uint32_t *ftree_keys_of(struct ftree_keys *ks, const struct profile *p);
/* Order by function, then module (none first). */
int ftree_key_cmp(const struct ftree_key *a, const struct ftree_key *b);
void ftree_keys_free(struct ftree_keys *ks);

/*
 * Merge the stacks of p, sample type type (stacks whose value is not
 * positive are skipped), keymap from ftree_keys_of; then sort and place
 * the children. t must be zeroed.
 */
void ftree_build(struct ftree *t, struct ftree_keys *ks,
		 const struct profile *p, size_t type,
		 const uint32_t *keymap);
void ftree_free(struct ftree *t);

/* Per node of from, the node of to at the same path, or FTREE_NONE. */
uint32_t *ftree_match(const struct ftree *from, const struct ftree *to);
/* The node after n depth-first (children in order), skipping n's subtree
 * unless descend; FTREE_NONE at the end. */
uint32_t ftree_next(const struct ftree *t, uint32_t n, bool descend);

#endif
