/*
 * Interned raw stacks: an array of (pid, address chain) entries in the
 * order first seen, with a hash index (util/hashmap.h). Adding a sample is
 * a hash, a probe and two additions; nothing is allocated for a chain seen
 * before.
 */
#include "profile/rawstacks.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "profile/torchops.h"
#include "util/hashmap.h"
#include "util/strutil.h"

/* Deepest stack kept; deeper ones are cut at the root side. */
#define MAX_DEPTH 512
/* The address that stands for the frames cut at MAX_DEPTH: no user
 * address, and no symtab_synth one */
#define RAWSTACKS_CUT (~0ULL)
/* Frames one address may expand to (inlined calls). */
#define MAX_INLINE 32

struct entry {
	uint64_t hash;
	uint32_t pid;
	uint32_t n;
	size_t at;		/* its chain: pool[at, at + n) */
	uint64_t samples, period;
};

struct rawstacks {
	struct entry *v;
	size_t n, cap;
	uint64_t *pool;		/* every entry's chain, one after another */
	size_t npool, cappool;
	struct hashidx index;	/* entry + 1 by hash */
};

static uint64_t hash_of(uint32_t pid, const uint64_t *ips, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ pid;

	for (size_t i = 0; i < n; i++) {
		h ^= ips[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

struct rawstacks *rawstacks_new(void)
{
	return xcalloc(1, sizeof(struct rawstacks));
}

void rawstacks_free(struct rawstacks *r)
{
	if (!r)
		return;
	free(r->pool);
	free(r->v);
	hashidx_free(&r->index);
	free(r);
}

void rawstacks_add(struct rawstacks *r, uint32_t pid, const uint64_t *ips,
		   size_t n, uint64_t period)
{
	rawstacks_add_n(r, pid, ips, n, 1, period);
}

void rawstacks_add_n(struct rawstacks *r, uint32_t pid, const uint64_t *ips,
		     size_t n, uint64_t samples, uint64_t period)
{
	uint64_t h, v;
	struct entry *e;
	size_t pos;

	uint64_t cut[MAX_DEPTH];

	/* deeper: the innermost frames, and a mark where the rest was
	 * (symtab_truncated, put in at the flush) rather than a false
	 * root */
	if (n > MAX_DEPTH) {
		memcpy(cut, ips, (MAX_DEPTH - 1) * sizeof(*ips));
		cut[MAX_DEPTH - 1] = RAWSTACKS_CUT;
		ips = cut;
		n = MAX_DEPTH;
	}
	h = hash_of(pid, ips, n);
	for (v = hashidx_first(&r->index, h, &pos); v;
	     v = hashidx_next(&r->index, h, &pos)) {
		e = &r->v[v - 1];
		if (e->pid == pid && e->n == n &&
		    !memcmp(r->pool + e->at, ips, n * sizeof(*ips)))
			break;
	}
	if (!v) {
		r->v = xgrow(r->v, &r->cap, r->n + 1, sizeof(*r->v));
		e = &r->v[r->n++];
		*e = (struct entry){ .hash = h, .pid = pid, .n = (uint32_t)n,
				     .at = r->npool };
		r->pool = xgrow(r->pool, &r->cappool, r->npool + n,
				sizeof(*r->pool));
		memcpy(r->pool + r->npool, ips, n * sizeof(*ips));
		r->npool += n;
		hashidx_add(&r->index, h, r->n);
	}
	e->samples += samples;
	e->period += period;
}

/* --- address chains into frame ids --- */

/* The frame ids of one (pid, address, is_return): ids[first, first+n). */
struct addr_ids {
	uint64_t addr;
	uint32_t pid, first, n;
	uint32_t unknown;	/* of its n frames, the "[unknown]" ones */
	bool is_return;
	bool standin;		/* SYMTAB_IF_NAMED's stand-in frame */
	bool origin;		/* a thread's first function (origin_of) */
};

/*
 * Where a thread begins: glibc's _start and clone entry points, whose
 * unwind tables mark the return address undefined. A sample in one of
 * them (the leaf: a new thread's first instructions, in clone3 after the
 * system call) has nothing beyond it, and a stack that goes on past it
 * goes on into whatever the registers held: it had 127 frames of
 * [unknown] behind it (a thread per request: 20% of the samples, 87% of
 * frames unknown). Reached by a return, one ends the native frames
 * already (what a stack holds after them, a Python thread's frames, is
 * kept).
 */
static bool origin_of(const struct frame *f)
{
	static const char *const names[] = {
		"clone3", "clone", "__clone3", "__clone",
	};
	const char *fn = f->function, *mod = f->module;

	if (!fn || f->inlined)
		return false;
	if (!strcmp(fn, "_start"))
		return true;
	/* glibc's: a program's own function may be called clone */
	if (!mod || strncmp(mod, "libc.so", 7))
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(fn, names[i]))
			return true;
	return false;
}

struct stackframes {
	struct symtab *s;
	struct profile *p;
	size_t max_inline;
	struct frame *fr;
	struct addr_ids *v;
	size_t n, cap;
	uint32_t *ids;
	bool *unknown;		/* per id: the symtab's "[unknown]" */
	size_t nids, capids, capunknown;
	struct hashidx index;	/* v + 1 */
	/* the index's last answers, by the hash's low bits (v + 1; 0
	 * none): the frames most stacks share (the program's outer ones,
	 * an interpreter's) found without the index's cache misses */
	uint32_t recent[4096];
};

struct stackframes *stackframes_new(struct symtab *s, struct profile *p,
				    size_t max_inline)
{
	struct stackframes *c = xcalloc(1, sizeof(*c));

	c->s = s;
	c->p = p;
	c->max_inline = max_inline;
	c->fr = xcalloc(max_inline, sizeof(*c->fr));
	return c;
}

void stackframes_free(struct stackframes *c)
{
	if (!c)
		return;
	free(c->fr);
	free(c->v);
	free(c->ids);
	free(c->unknown);
	hashidx_free(&c->index);
	free(c);
}

/* The ids of one address, interning its frames the first time. */
static const struct addr_ids *addr_ids(struct stackframes *c, uint32_t pid,
				       uint64_t addr, bool is_return)
{
	uint64_t h = hash_u64(addr ^ ((uint64_t)pid << 1 | is_return) *
				     0x9e3779b97f4a7c15ULL), v;
	struct addr_ids *a;
	size_t pos, k;

	v = c->recent[h % 4096];
	if (v) {
		a = &c->v[v - 1];
		if (a->addr == addr && a->pid == pid &&
		    a->is_return == is_return)
			return a;
	}
	for (v = hashidx_first(&c->index, h, &pos); v;
	     v = hashidx_next(&c->index, h, &pos)) {
		a = &c->v[v - 1];
		if (a->addr == addr && a->pid == pid &&
		    a->is_return == is_return) {
			c->recent[h % 4096] = (uint32_t)v;
			return a;
		}
	}
	k = symtab_lookup(c->s, pid, addr, is_return, c->fr, c->max_inline);
	c->v = xgrow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	a = &c->v[c->n++];
	*a = (struct addr_ids){ .addr = addr, .pid = pid,
				.first = (uint32_t)c->nids, .n = (uint32_t)k,
				.is_return = is_return,
				.standin = (addr & SYMTAB_IF_NAMED) && k == 1 &&
					   !c->fr[0].address };
	/* each frame, and outside a dispatcher's entry its operator's
	 * frame (profile/torchops.h): up to 2k ids */
	c->ids = xgrow(c->ids, &c->capids, c->nids + 2 * k, sizeof(*c->ids));
	c->unknown = xgrow(c->unknown, &c->capunknown, c->nids + 2 * k,
			   sizeof(*c->unknown));
	for (size_t j = 0; j < k; j++) {
		const char *fn = c->fr[j].function;
		char op[256];
		bool exact = false;

		a->origin |= origin_of(&c->fr[j]);
		c->ids[c->nids] = profile_frame(c->p, &c->fr[j]);
		c->unknown[c->nids++] = !strcmp(fn, "[unknown]");
		/* named by the table of the library it is in */
		if (torchops_is_entry(fn) &&
		    torchops_frame_name(fn, symtab_torchops(c->s, pid, addr,
							    is_return),
					op, sizeof(op), &exact)) {
			struct frame f = { .function = op,
					   .module = exact ? TORCHOPS_MODULE
						   : TORCHOPS_MODULE_RULE };

			c->ids[c->nids] = profile_frame(c->p, &f);
			c->unknown[c->nids++] = false;
		}
	}
	a->n = (uint32_t)(c->nids - a->first);
	for (size_t j = a->first; j < c->nids; j++)
		a->unknown += c->unknown[j];
	hashidx_add(&c->index, h, c->n);
	c->recent[h % 4096] = (uint32_t)c->n;
	return a;
}

uint32_t stackframes_addr(struct stackframes *c, uint32_t pid, uint64_t addr,
			  bool is_return)
{
	return (uint32_t)(addr_ids(c, pid, addr, is_return) - c->v) + 1;
}

void stackframes_addr_get(const struct stackframes *c, uint32_t handle,
			  struct stackframes_addr *out)
{
	const struct addr_ids *a;

	assert(handle >= 1 && handle <= c->n);
	a = &c->v[handle - 1];
	*out = (struct stackframes_addr){ .ids = c->ids + a->first,
					  .n = a->n, .unknown = a->unknown,
					  .standin = a->standin,
					  .origin = a->origin };
}

size_t stackframes_ids(struct stackframes *c, uint32_t pid,
		       const uint64_t *ips, size_t n, bool all_return,
		       int64_t weight, uint32_t *ids, size_t max)
{
	struct profile *p = c->p;
	size_t depth = 0;
	bool standin = false;

	for (size_t i = 0; i < n && depth < max; i++) {
		const struct addr_ids *a = addr_ids(c, pid, ips[i],
						    all_return || i > 0);
		size_t k = a->n < max - depth ? a->n : max - depth;

		/* a run of one stand-in shows once */
		if (a->standin && standin && ids[depth - 1] == c->ids[a->first])
			continue;
		standin = a->standin && k;
		if (!k)
			continue;	/* no frame (and maybe no ids yet: a
					 * NULL source, which memcpy may not
					 * take even for 0 bytes) */
		memcpy(ids + depth, c->ids + a->first, k * sizeof(*ids));
		depth += k;
		p->total_frames += (int64_t)k * weight;
		for (size_t j = 0; j < k; j++)
			p->unknown_frames += c->unknown[a->first + j] * weight;
		if (a->origin && i == 0)
			break;	/* nothing is beyond it */
	}
	if (depth == 0 && max > 0) {
		struct frame none = { .function = "[unknown]",
				      .module = "[unknown]" };

		ids[depth++] = profile_frame(p, &none);
	}
	return depth;
}

/* --- flushing --- */

static void flush_one(const struct rawstacks *r, const struct entry *e,
		      struct stackframes *c, struct profile *p, uint32_t *ids,
		      size_t max_ids)
{
	int64_t values[2] = { (int64_t)e->samples, (int64_t)e->period };
	uint64_t *last = r->pool + e->at + e->n - 1;
	size_t depth;

	if (e->n && *last == RAWSTACKS_CUT)
		*last = symtab_truncated(c->s);
	depth = stackframes_ids(c, e->pid, r->pool + e->at, e->n, false,
				(int64_t)e->samples, ids, max_ids);

	profile_add(p, ids, depth, values);
}

void rawstacks_rename(struct rawstacks *r, uint32_t pid, uint32_t to)
{
	bool any = false;

	for (size_t i = 0; i < r->n; i++) {
		struct entry *e = &r->v[i];

		if (e->pid != pid)
			continue;
		e->pid = to;
		e->hash = hash_of(to, r->pool + e->at, e->n);
		any = true;
	}
	if (!any)
		return;
	hashidx_free(&r->index);
	for (size_t i = 0; i < r->n; i++)
		hashidx_add(&r->index, r->v[i].hash, i + 1);
}

void rawstacks_flush(struct rawstacks *r, uint32_t pid, int all,
		     struct symtab *s, struct profile *p)
{
	size_t max_ids = MAX_DEPTH * 4;
	uint32_t *ids = xmalloc(max_ids * sizeof(*ids));
	struct stackframes *c = stackframes_new(s, p, MAX_INLINE);
	size_t kept = 0, npool = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->v[i];

		if (all || e->pid == pid)
			flush_one(r, e, c, p, ids, max_ids);
	}
	stackframes_free(c);
	free(ids);
	/* Keep the others, their chains moved down the pool in order. */
	for (size_t i = 0; i < r->n; i++) {
		struct entry e = r->v[i];

		if (all || e.pid == pid)
			continue;
		memmove(r->pool + npool, r->pool + e.at,
			e.n * sizeof(*r->pool));
		e.at = npool;
		npool += e.n;
		r->v[kept++] = e;
	}
	r->npool = npool;
	if (kept < r->n) {
		/* Index the survivors again (no removal in a hashidx). */
		hashidx_free(&r->index);
		for (size_t i = 0; i < kept; i++)
			hashidx_add(&r->index, r->v[i].hash, i + 1);
		r->n = kept;
	}
}
