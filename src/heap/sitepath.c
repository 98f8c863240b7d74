/*
 * A site's native frame ids from its path in the trie (sitepath.h).
 *
 * Design notes:
 *  1. The last site's ids are kept leaf first at the end of one buffer,
 *     the root's at its very end, so that the frames of a new site's
 *     shared root side are already in place and its own are written in
 *     front of them; by[d] says how many ids the path's first d + 1
 *     addresses (root first) have.
 *  2. A site is walked from its leaf out until it meets the last site's
 *     path at the same depth (the same node there is the same root-first
 *     prefix), with the same maps id; every node met on the way is
 *     looked up (its memo, else stackframes_addr) in that order, which is
 *     stackframes_ids's. Nothing of the walk is kept until the whole
 *     site is known to be a plain sum of its addresses.
 */
#include "heap/sitepath.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

struct sitepath {
	const struct stackstore *st;
	struct stackframes *c;
	/* per trie node: its address's handle for maps id pid[node]
	 * (0: none yet) */
	uint32_t *handle, *pid;
	size_t nnodes;
	/* the last site's path, root first (note 1) */
	uint32_t *node, *by, *unknown;
	uint32_t npath, path_pid;
	uint32_t max_depth;
	/* the walk's nodes and handles by depth (note 2) */
	uint32_t *walk_node, *walk_handle;
	uint32_t *buf;		/* room for max_ids */
	size_t max_ids;
};

struct sitepath *sitepath_new(const struct stackstore *st,
			      struct stackframes *c, uint32_t max_depth,
			      size_t max_ids)
{
	struct sitepath *sp = xcalloc(1, sizeof(*sp));
	size_t native, python;

	stackstore_nodes(st, &native, &python);
	sp->st = st;
	sp->c = c;
	sp->nnodes = native + 1;
	sp->handle = xcalloc(sp->nnodes, sizeof(*sp->handle));
	sp->pid = xcalloc(sp->nnodes, sizeof(*sp->pid));
	sp->max_depth = max_depth;
	sp->node = xcalloc(max_depth + 1, sizeof(*sp->node));
	sp->by = xcalloc(max_depth + 1, sizeof(*sp->by));
	sp->unknown = xcalloc(max_depth + 1, sizeof(*sp->unknown));
	sp->walk_node = xcalloc(max_depth + 1, sizeof(*sp->walk_node));
	sp->walk_handle = xcalloc(max_depth + 1, sizeof(*sp->walk_handle));
	sp->max_ids = max_ids;
	sp->buf = xcalloc(max_ids + 1, sizeof(*sp->buf));
	return sp;
}

void sitepath_free(struct sitepath *sp)
{
	if (!sp)
		return;
	free(sp->handle);
	free(sp->pid);
	free(sp->node);
	free(sp->by);
	free(sp->unknown);
	free(sp->walk_node);
	free(sp->walk_handle);
	free(sp->buf);
	free(sp);
}

/* The handle of node's address read with pid's mappings; *parent its
 * parent. */
static uint32_t handle_of(struct sitepath *sp, uint32_t node, uint32_t pid,
			  uint32_t *parent)
{
	uint64_t frame = stackstore_native_node(sp->st, node, parent);

	assert(node < sp->nnodes);
	if (!sp->handle[node] || sp->pid[node] != pid) {
		sp->handle[node] = stackframes_addr(sp->c, pid, frame, true);
		sp->pid[node] = pid;
	}
	return sp->handle[node];
}

/*
 * Walk s from its leaf out to where it meets the path (note 2): the
 * depth it meets it at (its first that many addresses, root first, are
 * the path's), the nodes and handles below into walk_*; -1 when the site
 * is stackframes_ids's (sitepath.h).
 */
static int walk(struct sitepath *sp, uint32_t pid, const struct stack_ref *s)
{
	uint32_t node = s->native, parent, d;
	struct stackframes_addr a;
	size_t bound = 0;

	/* the leaf's, even where it is on the path (as a frame further
	 * in, where its being an origin says nothing) */
	stackframes_addr_get(sp->c, handle_of(sp, node, pid, &parent), &a);
	if (a.origin)
		return -1;
	for (d = s->depth; d > 0; d--) {
		uint32_t h;

		if (d - 1 < sp->npath && sp->node[d - 1] == node)
			break;
		/* stackframes_ids stops looking up at max ids */
		if (bound >= sp->max_ids || !node)
			return -1;
		h = handle_of(sp, node, pid, &parent);
		stackframes_addr_get(sp->c, h, &a);
		if (a.standin)
			return -1;
		bound += a.n;
		sp->walk_node[d - 1] = node;
		sp->walk_handle[d - 1] = h;
		node = parent;
	}
	return (int)d;
}

size_t sitepath_ids(struct sitepath *sp, struct profile *p, uint32_t pid,
		    const struct stack_ref *s, uint32_t *ids)
{
	uint32_t depth = s->depth, len;
	size_t room = sp->max_ids;
	int join;

	if (!depth || depth > sp->max_depth)
		return 0;
	if (pid != sp->path_pid || !sp->npath) {
		sp->npath = 0;
		sp->path_pid = pid;
	}
	join = walk(sp, pid, s);
	if (join < 0)
		return 0;
	sp->npath = (uint32_t)join;
	for (uint32_t d = (uint32_t)join; d < depth; d++) {
		uint32_t before = d ? sp->by[d - 1] : 0;
		uint32_t unknown = d ? sp->unknown[d - 1] : 0;
		struct stackframes_addr a;

		stackframes_addr_get(sp->c, sp->walk_handle[d], &a);
		if (before + a.n > room)
			return 0;	/* stackframes_ids cuts it */
		if (a.n)
			memcpy(sp->buf + room - before - a.n, a.ids,
			       a.n * sizeof(*a.ids));
		sp->by[d] = before + a.n;
		sp->unknown[d] = unknown + a.unknown;
		sp->node[d] = sp->walk_node[d];
		sp->npath = d + 1;
	}
	len = sp->by[depth - 1];
	if (!len)
		return 0;	/* its "[unknown]" frame */
	memcpy(ids, sp->buf + room - len, len * sizeof(*ids));
	p->total_frames += len;
	p->unknown_frames += sp->unknown[depth - 1];
	return len;
}
