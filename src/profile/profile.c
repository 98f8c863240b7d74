/*
 * The profile model: interning of frames and stacks, totals and the
 * per-function top list.
 *
 * Design notes:
 *  1. Frames and stacks live in the public arrays of struct profile; the
 *     private index (p->index) only holds open-addressing hash tables of
 *     ids into them plus each entry's hash, so growing a table never needs
 *     to rehash a string or a frame array.
 *  2. A table slot holds id + 1 (0 is empty) and tables stay at most half
 *     full, so every probe sequence ends at an empty slot.
 *  3. The frame key is (function, file, line, module, inlined); address is
 *     not part of it: the first address seen is kept.
 */
#include "profile/profile.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

struct table {
	uint32_t *slots;	/* id + 1, 0 = empty */
	size_t mask;		/* slot count - 1 (a power of two) */
	uint64_t *hash;		/* per id */
	size_t caphash;
};

struct profile_index {
	struct table frames, stacks;
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* FNV-1a; NULL hashes differently from "". */
static uint64_t hash_str(uint64_t h, const char *s)
{
	if (!s)
		return mix(h ^ 0x5bd1e995ULL);
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return mix(h ^ 0xff);
}

static uint64_t hash_frame(const struct frame *f)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = hash_str(h, f->function);
	h = hash_str(h, f->file);
	h = hash_str(h, f->module);
	h ^= (uint64_t)(unsigned)f->line * 2 + f->inlined;
	return mix(h);
}

static uint64_t hash_ids(const uint32_t *ids, size_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < n; i++) {
		h = (h ^ ids[i]) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	return mix(h);
}

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static bool frame_eq(const struct frame *a, const struct frame *b)
{
	return a->line == b->line && a->inlined == b->inlined &&
	       str_eq(a->function, b->function) && str_eq(a->file, b->file) &&
	       str_eq(a->module, b->module);
}

/* Make room for entry id (count = id + 1 entries after it is added). */
static void table_reserve(struct table *t, size_t count)
{
	size_t nslots = t->mask + 1;

	t->hash = xgrow(t->hash, &t->caphash, count, sizeof(*t->hash));
	if (t->slots && count * 2 <= nslots)
		return;
	while (count * 2 > nslots)
		nslots *= 2;
	free(t->slots);
	t->slots = xcalloc(nslots, sizeof(*t->slots));
	t->mask = nslots - 1;
	/* Reinsert ids 0..count-2 (the new one is inserted by the caller). */
	for (size_t id = 0; id + 1 < count; id++) {
		size_t i = t->hash[id] & t->mask;

		while (t->slots[i])
			i = (i + 1) & t->mask;
		t->slots[i] = (uint32_t)id + 1;
	}
}

static void table_free(struct table *t)
{
	free(t->slots);
	free(t->hash);
}

static struct profile_index *index_of(struct profile *p)
{
	struct profile_index *ix = p->index;

	if (!ix) {
		ix = xcalloc(1, sizeof(*ix));
		ix->frames.mask = 63;
		ix->stacks.mask = 1023;
		p->index = ix;
	}
	return ix;
}

void profile_init(struct profile *p, const struct sample_type *types,
		  size_t n)
{
	memset(p, 0, sizeof(*p));
	p->types = xcalloc(n, sizeof(*p->types));
	for (size_t i = 0; i < n; i++) {
		p->types[i].name = xstrdup(types[i].name);
		p->types[i].unit = xstrdup(types[i].unit);
	}
	p->ntypes = n;
}

void profile_free(struct profile *p)
{
	struct profile_index *ix = p->index;

	for (size_t i = 0; i < p->ntypes; i++) {
		free(p->types[i].name);
		free(p->types[i].unit);
	}
	free(p->types);
	for (size_t i = 0; i < p->nframes; i++) {
		free(p->frames[i].function);
		free(p->frames[i].file);
		free(p->frames[i].module);
	}
	free(p->frames);
	for (size_t i = 0; i < p->nstacks; i++) {
		free(p->stacks[i].frames);
		free(p->stacks[i].values);
	}
	free(p->stacks);
	if (ix) {
		table_free(&ix->frames);
		table_free(&ix->stacks);
		free(ix);
	}
	free(p->command);
	memset(p, 0, sizeof(*p));
}

/* The name of an unknown function of a known module (profile.h), malloc'd;
 * NULL when f's function or its module is not unknown. */
static char *unknown_in(const struct frame *f)
{
	const char *m = f->module;
	size_t n;

	if (f->function && strcmp(f->function, "[unknown]"))
		return NULL;
	if (!m || !*m || !strcmp(m, "[unknown]"))
		return NULL;
	n = strlen(m);
	if (n > 2 && m[0] == '[' && m[n - 1] == ']')	/* [kernel], [vdso] */
		return xasprintf("[unknown in %.*s]", (int)(n - 2), m + 1);
	return xasprintf("[unknown in %s]", m);
}

uint32_t profile_frame(struct profile *p, const struct frame *f)
{
	struct profile_index *ix = index_of(p);
	struct table *t = &ix->frames;
	struct frame key = *f, *nf;
	char *unknown = unknown_in(f);
	uint64_t h;
	size_t i;

	if (unknown)
		key.function = unknown;
	else if (!key.function)
		key.function = "[unknown]";
	h = hash_frame(&key);
	for (i = h & t->mask; t->slots && t->slots[i]; i = (i + 1) & t->mask) {
		uint32_t id = t->slots[i] - 1;

		if (t->hash[id] == h && frame_eq(&p->frames[id], &key)) {
			free(unknown);
			return id;
		}
	}
	assert(p->nframes < UINT32_MAX);
	table_reserve(t, p->nframes + 1);
	for (i = h & t->mask; t->slots[i]; i = (i + 1) & t->mask)
		;
	t->slots[i] = (uint32_t)p->nframes + 1;
	t->hash[p->nframes] = h;
	p->frames = xgrow(p->frames, &p->capframes, p->nframes + 1,
			  sizeof(*p->frames));
	nf = &p->frames[p->nframes];
	*nf = key;
	nf->function = xstrdup(key.function);
	nf->file = key.file ? xstrdup(key.file) : NULL;
	nf->module = key.module ? xstrdup(key.module) : NULL;
	free(unknown);
	return (uint32_t)p->nframes++;
}

static bool stack_eq(const struct stack *s, const uint32_t *frames,
		     size_t depth)
{
	return s->depth == depth &&
	       !memcmp(s->frames, frames, depth * sizeof(*frames));
}

static void add_values(struct profile *p, struct stack *s,
		       const int64_t *values)
{
	for (size_t t = 0; t < p->ntypes; t++)
		s->values[t] += values[t];
}

size_t profile_add(struct profile *p, const uint32_t *frames, size_t depth,
		   const int64_t *values)
{
	struct profile_index *ix = index_of(p);
	struct table *t = &ix->stacks;
	struct stack *s;
	uint64_t h;
	size_t i;

	assert(depth > 0);
	for (i = 0; i < depth; i++)
		assert(frames[i] < p->nframes);
	h = hash_ids(frames, depth);
	for (i = h & t->mask; t->slots && t->slots[i]; i = (i + 1) & t->mask) {
		uint32_t id = t->slots[i] - 1;

		if (t->hash[id] == h && stack_eq(&p->stacks[id], frames, depth)) {
			add_values(p, &p->stacks[id], values);
			return id;
		}
	}
	assert(p->nstacks < UINT32_MAX);
	table_reserve(t, p->nstacks + 1);
	for (i = h & t->mask; t->slots[i]; i = (i + 1) & t->mask)
		;
	t->slots[i] = (uint32_t)p->nstacks + 1;
	t->hash[p->nstacks] = h;
	p->stacks = xgrow(p->stacks, &p->capstacks, p->nstacks + 1,
			  sizeof(*p->stacks));
	s = &p->stacks[p->nstacks];
	s->frames = xmalloc(depth * sizeof(*s->frames));
	memcpy(s->frames, frames, depth * sizeof(*s->frames));
	s->depth = depth;
	s->values = xcalloc(p->ntypes, sizeof(*s->values));
	add_values(p, s, values);
	return p->nstacks++;
}

int64_t profile_total(const struct profile *p, size_t t)
{
	int64_t sum = 0;

	assert(t < p->ntypes);
	for (size_t i = 0; i < p->nstacks; i++)
		sum += p->stacks[i].values[t];
	return sum;
}

/*
 * profile_top groups frames by (function, module): the same function at
 * different lines, or inlined and not, is one entry. fn_of maps a frame id
 * to its entry.
 */
struct top_ctx {
	struct profile_top *ents;
	size_t n, cap;
	uint32_t *slots;	/* entry + 1 */
	size_t mask;
	size_t *seen;		/* per entry: last stack index + 1 counted */
};

static uint32_t top_entry(struct top_ctx *c, const struct frame *f)
{
	uint64_t h = mix(hash_str(hash_str(0, f->function), f->module));
	size_t i;

	for (i = h & c->mask; c->slots[i]; i = (i + 1) & c->mask) {
		struct profile_top *e = &c->ents[c->slots[i] - 1];

		if (str_eq(e->function, f->function) &&
		    str_eq(e->module, f->module))
			return c->slots[i] - 1;
	}
	/* The table has a slot per frame, twice over: never full. */
	c->slots[i] = (uint32_t)c->n + 1;
	c->ents = xgrow(c->ents, &c->cap, c->n + 1, sizeof(*c->ents));
	c->ents[c->n] = (struct profile_top){ f->function, f->module, 0, 0 };
	return (uint32_t)c->n++;
}

static int top_cmp(const void *a, const void *b)
{
	const struct profile_top *x = a, *y = b;
	int c;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	c = strcmp(x->function, y->function);
	if (c)
		return c;
	return strcmp(x->module ? x->module : "", y->module ? y->module : "");
}

int profile_top(const struct profile *p, size_t t, struct profile_top **out,
		size_t *n)
{
	struct top_ctx c = { 0 };
	uint32_t *fn_of = xmalloc((p->nframes + 1) * sizeof(*fn_of));
	size_t nslots = 16, kept = 0;

	assert(t < p->ntypes);
	while (nslots < p->nframes * 2)
		nslots *= 2;
	c.slots = xcalloc(nslots, sizeof(*c.slots));
	c.mask = nslots - 1;
	for (size_t i = 0; i < p->nframes; i++)
		fn_of[i] = top_entry(&c, &p->frames[i]);
	c.seen = xcalloc(c.n + 1, sizeof(*c.seen));
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct stack *st = &p->stacks[s];
		int64_t v = st->values[t];

		if (!v)
			continue;
		c.ents[fn_of[st->frames[0]]].self += v;
		for (size_t d = 0; d < st->depth; d++) {
			uint32_t e = fn_of[st->frames[d]];

			/* Recursion: each function counts once per stack. */
			if (c.seen[e] == s + 1)
				continue;
			c.seen[e] = s + 1;
			c.ents[e].total += v;
		}
	}
	for (size_t i = 0; i < c.n; i++)
		if (c.ents[i].self || c.ents[i].total)
			c.ents[kept++] = c.ents[i];
	if (kept > 1)
		qsort(c.ents, kept, sizeof(*c.ents), top_cmp);
	free(c.slots);
	free(c.seen);
	free(fn_of);
	*out = c.ents;
	*n = kept;
	return 0;
}
