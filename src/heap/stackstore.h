/*
 * The stacks of a heap trace, interned: each STACK record's native return
 * addresses and Python frame words (protocol.h, HEAP_REC_STACK) as paths
 * in two tries of frames, one node per distinct root-first prefix (its
 * parent's node and its frame word), so that the root sides the stacks
 * of a program share are held once. A stack is then its leaf node and
 * frame count in each trie (struct stack_ref), and its frames are written
 * back, leaf first, exactly as the record had them (stackstore_native,
 * stackstore_python).
 *
 * Interning is cheap on the common case: a new stack of a slot shares a
 * long root side with the slot's last one, whose path the store keeps,
 * so frames are compared from the root against that path before any
 * look-up, and only those beyond the shared part are looked up or added;
 * a stack sent as a tail of the slot's last one (stackstore_intern_tail)
 * starts from that path's node at once.
 * Node 0 of each trie is the root (the empty stack).
 */
#ifndef YS_HEAP_STACKSTORE_H
#define YS_HEAP_STACKSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stackstore;

/* A stack in the store: its native frames' leaf node and count, its
 * Python frames' leaf node and count (0, 0: none). */
struct stack_ref {
	uint32_t native, depth;
	uint32_t python, npy;
};

struct stackstore *stackstore_new(void);
void stackstore_free(struct stackstore *st);

/*
 * Intern the stack of ips[0..depth) and py[0..npy), both leaf first (as
 * in a STACK record), met in slot's stream (slot < HEAP_SLOTS: whose last
 * stack the comparison starts from). Equal frames give equal nodes,
 * whatever the slot. Allocation failure aborts (xmalloc).
 */
struct stack_ref stackstore_intern(struct stackstore *st, uint32_t slot,
				   const uint64_t *ips, uint32_t depth,
				   const uint64_t *py, uint32_t npy);

/*
 * Intern a stack given by its tail (protocol.h, HEAP_REC_STACK_TAIL):
 * the root-side keep native frames and keep_py Python frames of slot's
 * last stack (the one it last interned), under ips[0..depth) and
 * py[0..npy) (leaf first: the frames beyond them), into *out. Returns
 * false, interning nothing, when that last stack has fewer frames than
 * kept, or the slot none: the caller makes sure it is the record's base.
 */
bool stackstore_intern_tail(struct stackstore *st, uint32_t slot,
			    uint32_t keep, const uint64_t *ips, uint32_t depth,
			    uint32_t keep_py, const uint64_t *py, uint32_t npy,
			    struct stack_ref *out);

/* The native frames of s into out (room for s->depth words), the Python
 * frames into out (room for s->npy): leaf first, as interned. */
void stackstore_native(const struct stackstore *st,
		       const struct stack_ref *s, uint64_t *out);
void stackstore_python(const struct stackstore *st,
		       const struct stack_ref *s, uint64_t *out);

/*
 * Node node (1 .. the trie's nodes, stackstore_nodes) of the native or
 * the Python trie: its frame word, and its parent (the node of the
 * frames further out; 0 the root) into *parent. For a caller that keeps
 * something of its own per node (heap/sitepath.h).
 */
uint64_t stackstore_native_node(const struct stackstore *st, uint32_t node,
				uint32_t *parent);
uint64_t stackstore_python_node(const struct stackstore *st, uint32_t node,
				uint32_t *parent);

/* What the store holds: bytes allocated, the stacks interned, and the
 * nodes of each trie other than its root (the distinct non-empty
 * root-first prefixes of the native and of the Python frames). */
size_t stackstore_bytes(const struct stackstore *st);
uint64_t stackstore_stacks(const struct stackstore *st);
void stackstore_nodes(const struct stackstore *st, size_t *native,
		      size_t *python);

#endif
