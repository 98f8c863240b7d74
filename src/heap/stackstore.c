/*
 * Stacks as paths in two tries of frames (stackstore.h). A trie's nodes
 * are arrays by node id: parent, frame, and last, the child last found
 * under the node. They are hash-consed: a prefix is one node however many
 * stacks have it, found through last when the node has one child (most
 * do: a call path's frames until it branches, and a branching node's
 * last child is the likeliest next), else through a hash index (hashidx)
 * of the children of nodes that have more than one, by (parent, frame).
 * Nodes are never removed, so ids and the stack_refs made of them hold
 * as long as the store.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "heap/protocol.h"
#include "heap/stackstore.h"
#include "util/hashmap.h"
#include "util/strutil.h"

/* In last[]: the node has other children than that one, all in the
 * index (a node's only child is not). */
#define TRIE_MANY (UINT32_C(1) << 31)

struct trie {
	uint32_t *parent;	/* [0]: the root, its own parent */
	uint64_t *frame;
	uint32_t *last;		/* 0: no child yet */
	size_t n, cap;
	struct hashidx ix;	/* node id by trie_hash(parent, frame) */
	uint64_t key;		/* hash_secret: the frames are the traced
				 * program's, and with the hash known it could
				 * give (parent, frame) pairs one hash, each
				 * look-up then a walk of all of them */
};

/*
 * A slot's last stack in one trie: its nodes from the root, node[d] the
 * one of its first d + 1 frames root first, as far as the path has room
 * (a longer stack, possible only in a damaged trace, is looked up beyond
 * it).
 */
#define PATH_NATIVE HEAP_MAX_DEPTH
#define PATH_PYTHON HEAP_PY_MAX

struct slot_paths {
	uint32_t native[PATH_NATIVE], python[PATH_PYTHON];
	uint32_t nnative, npython;
};

struct stackstore {
	struct trie native, python;
	struct slot_paths *paths[HEAP_SLOTS];	/* made on the slot's first
						 * stack */
	size_t npaths;
	uint64_t stacks;
};

static void trie_init(struct trie *t)
{
	t->cap = 1024;
	t->parent = xmalloc(t->cap * sizeof(*t->parent));
	t->frame = xmalloc(t->cap * sizeof(*t->frame));
	t->last = xmalloc(t->cap * sizeof(*t->last));
	t->last[0] = 0;
	t->parent[0] = 0;
	t->frame[0] = 0;
	t->n = 1;
	hashidx_init(&t->ix);
	t->key = hash_secret();
}

static void trie_free(struct trie *t)
{
	free(t->parent);
	free(t->frame);
	free(t->last);
	hashidx_free(&t->ix);
}

static inline uint64_t trie_hash(const struct trie *t, uint32_t parent,
				 uint64_t frame)
{
	return hash_u64(frame ^ hash_u64(parent ^ t->key));
}

/* A new node: frame under parent, no children yet. */
static uint32_t trie_add(struct trie *t, uint32_t parent, uint64_t frame)
{
	uint32_t id;

	/* a node takes at least 16 bytes: 2^31 of them would be 32 GiB of
	 * stacks */
	assert(t->n < TRIE_MANY);
	if (t->n == t->cap) {
		t->cap *= 2;
		t->parent = xrealloc(t->parent, t->cap * sizeof(*t->parent));
		t->frame = xrealloc(t->frame, t->cap * sizeof(*t->frame));
		t->last = xrealloc(t->last, t->cap * sizeof(*t->last));
	}
	id = (uint32_t)t->n++;
	t->parent[id] = parent;
	t->frame[id] = frame;
	t->last[id] = 0;
	return id;
}

static void trie_index(struct trie *t, uint32_t id)
{
	hashidx_add(&t->ix, trie_hash(t, t->parent[id], t->frame[id]), id);
}

/*
 * The node of frame under parent, added if it is not there. Most nodes
 * have one child (the frames of a call path until it branches): a node's
 * only child is known from last[] alone, and only the children of a node
 * that has more than one are in the index.
 */
static uint32_t trie_child(struct trie *t, uint32_t parent, uint64_t frame)
{
	uint32_t last = t->last[parent], id = last & ~TRIE_MANY;
	uint64_t h;
	size_t pos;

	if (id && t->frame[id] == frame)
		return id;
	if (!id) {
		id = trie_add(t, parent, frame);
		t->last[parent] = id;
		return id;
	}
	h = trie_hash(t, parent, frame);
	if (!(last & TRIE_MANY)) {
		trie_index(t, id);	/* its only child until now */
	} else {
		for (uint64_t v = hashidx_first(&t->ix, h, &pos); v;
		     v = hashidx_next(&t->ix, h, &pos))
			if (t->parent[v] == parent && t->frame[v] == frame) {
				t->last[parent] = (uint32_t)v | TRIE_MANY;
				return (uint32_t)v;
			}
	}
	id = trie_add(t, parent, frame);
	hashidx_add(&t->ix, h, id);
	t->last[parent] = id | TRIE_MANY;
	return id;
}

/*
 * The leaf node of f[0..n) (leaf first) in t: the frames from the root
 * compared with the slot's last path[0..*len) first (room: path's size),
 * then the rest looked up; path becomes this stack's.
 */
static uint32_t trie_intern(struct trie *t, uint32_t *path, uint32_t *len,
			    uint32_t room, const uint64_t *f, uint32_t n)
{
	uint32_t node = 0, d = 0, same = n < *len ? n : *len;

	while (d < same && t->frame[path[d]] == f[n - 1 - d])
		node = path[d++];
	for (; d < n; d++) {
		node = trie_child(t, node, f[n - 1 - d]);
		if (d < room)
			path[d] = node;
	}
	*len = n < room ? n : room;
	return node;
}

/* The frames of the path ending at leaf, n of them, leaf first. */
static void trie_frames(const struct trie *t, uint32_t leaf, uint32_t n,
			uint64_t *out)
{
	for (uint32_t i = 0; i < n; i++) {
		assert(leaf != 0 && leaf < t->n);
		out[i] = t->frame[leaf];
		leaf = t->parent[leaf];
	}
	assert(leaf == 0);
}

struct stackstore *stackstore_new(void)
{
	struct stackstore *st = xcalloc(1, sizeof(*st));

	trie_init(&st->native);
	trie_init(&st->python);
	return st;
}

void stackstore_free(struct stackstore *st)
{
	if (!st)
		return;
	trie_free(&st->native);
	trie_free(&st->python);
	for (size_t i = 0; i < HEAP_SLOTS; i++)
		free(st->paths[i]);
	free(st);
}

struct stack_ref stackstore_intern(struct stackstore *st, uint32_t slot,
				   const uint64_t *ips, uint32_t depth,
				   const uint64_t *py, uint32_t npy)
{
	struct slot_paths *p;
	struct stack_ref s = { .depth = depth, .npy = npy };

	assert(slot < HEAP_SLOTS);
	p = st->paths[slot];
	if (!p) {
		p = st->paths[slot] = xcalloc(1, sizeof(*p));
		st->npaths++;
	}
	s.native = trie_intern(&st->native, p->native, &p->nnative,
			       PATH_NATIVE, ips, depth);
	s.python = trie_intern(&st->python, p->python, &p->npython,
			       PATH_PYTHON, py, npy);
	st->stacks++;
	return s;
}

/*
 * The leaf node of the stack whose root-side keep frames are those of
 * path[0..*len) (keep <= *len) and whose others are f[0..n) (leaf
 * first); path becomes this stack's.
 */
static uint32_t trie_intern_tail(struct trie *t, uint32_t *path,
				 uint32_t *len, uint32_t room, uint32_t keep,
				 const uint64_t *f, uint32_t n)
{
	uint32_t node;

	assert(keep <= *len);
	node = keep ? path[keep - 1] : 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t d = (uint64_t)keep + i;

		node = trie_child(t, node, f[n - 1 - i]);
		if (d < room)
			path[d] = node;
	}
	*len = (uint64_t)keep + n < room ? keep + n : room;
	return node;
}

bool stackstore_intern_tail(struct stackstore *st, uint32_t slot,
			    uint32_t keep, const uint64_t *ips, uint32_t depth,
			    uint32_t keep_py, const uint64_t *py, uint32_t npy,
			    struct stack_ref *out)
{
	struct slot_paths *p;
	struct stack_ref s = { .depth = keep + depth, .npy = keep_py + npy };

	assert(slot < HEAP_SLOTS);
	p = st->paths[slot];
	/* both checked before either path changes */
	if (!p || keep > p->nnative || keep_py > p->npython)
		return false;
	s.native = trie_intern_tail(&st->native, p->native, &p->nnative,
				    PATH_NATIVE, keep, ips, depth);
	s.python = trie_intern_tail(&st->python, p->python, &p->npython,
				    PATH_PYTHON, keep_py, py, npy);
	st->stacks++;
	*out = s;
	return true;
}

void stackstore_native(const struct stackstore *st,
		       const struct stack_ref *s, uint64_t *out)
{
	trie_frames(&st->native, s->native, s->depth, out);
}

void stackstore_python(const struct stackstore *st,
		       const struct stack_ref *s, uint64_t *out)
{
	trie_frames(&st->python, s->python, s->npy, out);
}

static uint64_t trie_node(const struct trie *t, uint32_t node,
			  uint32_t *parent)
{
	assert(node != 0 && node < t->n);
	*parent = t->parent[node];
	return t->frame[node];
}

uint64_t stackstore_native_node(const struct stackstore *st, uint32_t node,
				uint32_t *parent)
{
	return trie_node(&st->native, node, parent);
}

uint64_t stackstore_python_node(const struct stackstore *st, uint32_t node,
				uint32_t *parent)
{
	return trie_node(&st->python, node, parent);
}

static size_t trie_bytes(const struct trie *t)
{
	return t->cap * (sizeof(*t->parent) + sizeof(*t->frame) +
			 sizeof(*t->last)) +
	       t->ix.cap * sizeof(*t->ix.slots);
}

size_t stackstore_bytes(const struct stackstore *st)
{
	return sizeof(*st) + trie_bytes(&st->native) +
	       trie_bytes(&st->python) +
	       st->npaths * sizeof(struct slot_paths);
}

uint64_t stackstore_stacks(const struct stackstore *st)
{
	return st->stacks;
}

void stackstore_nodes(const struct stackstore *st, size_t *native,
		      size_t *python)
{
	*native = st->native.n - 1;
	*python = st->python.n - 1;
}
