/*
 * The profile model: interning of frames and stacks, totals and the
 * per-function top list.
 *
 * Design notes:
 *  1. Frames and stacks live in the public arrays of struct profile; the
 *     private index (p->index) only holds hash indexes (util/hashmap.h) of
 *     id + 1 by each entry's hash, so growing one never needs to rehash a
 *     string or a frame array.
 *  2. (What was note 2, the tables' layout, is util/hashmap.h's now.)
 *  3. The frame key is (function, file, line, module, inlined); address is
 *     not part of it: the first address seen is kept.
 */
#include "profile/profile.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/strutil.h"

struct profile_index {
	struct hashidx frames, stacks;
};

/* FNV-1a, chained from h; NULL hashes differently from "". */
static uint64_t hash_name(uint64_t h, const char *s)
{
	if (!s)
		return hash_u64(h ^ 0x5bd1e995ULL);
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return hash_u64(h ^ 0xff);
}

static uint64_t hash_frame(const struct frame *f)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = hash_name(h, f->function);
	h = hash_name(h, f->file);
	h = hash_name(h, f->module);
	h ^= (uint64_t)(unsigned)f->line * 2 + f->inlined;
	return hash_u64(h);
}

static uint64_t hash_ids(const uint32_t *ids, size_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < n; i++) {
		h = (h ^ ids[i]) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	return hash_u64(h);
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

static struct profile_index *index_of(struct profile *p)
{
	struct profile_index *ix = p->index;

	if (!ix) {
		ix = xcalloc(1, sizeof(*ix));
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
	for (size_t i = 0; i < p->nstacks; i++)
		free(p->stacks[i].values);	/* frames are in its block */
	free(p->stacks);
	if (ix) {
		hashidx_free(&ix->frames);
		hashidx_free(&ix->stacks);
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

bool profile_names_function(const char *function)
{
	return function && *function && strncmp(function, "[unknown", 8);
}

uint32_t profile_frame(struct profile *p, const struct frame *f)
{
	struct profile_index *ix = index_of(p);
	struct hashidx *t = &ix->frames;
	struct frame key = *f, *nf;
	char *unknown = unknown_in(f);
	uint64_t h, v;
	size_t pos;

	if (unknown)
		key.function = unknown;
	else if (!key.function)
		key.function = "[unknown]";
	h = hash_frame(&key);
	for (v = hashidx_first(t, h, &pos); v; v = hashidx_next(t, h, &pos)) {
		if (frame_eq(&p->frames[v - 1], &key)) {
			free(unknown);
			return (uint32_t)(v - 1);
		}
	}
	assert(p->nframes < UINT32_MAX);
	hashidx_add(t, h, p->nframes + 1);
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
	struct hashidx *t = &ix->stacks;
	struct stack *s;
	uint64_t h, v;
	size_t i, pos;

	assert(depth > 0);
	for (i = 0; i < depth; i++)
		assert(frames[i] < p->nframes);
	h = hash_ids(frames, depth);
	for (v = hashidx_first(t, h, &pos); v; v = hashidx_next(t, h, &pos)) {
		if (stack_eq(&p->stacks[v - 1], frames, depth)) {
			add_values(p, &p->stacks[v - 1], values);
			return v - 1;
		}
	}
	assert(p->nstacks < UINT32_MAX);
	hashidx_add(t, h, p->nstacks + 1);
	p->stacks = xgrow(p->stacks, &p->capstacks, p->nstacks + 1,
			  sizeof(*p->stacks));
	s = &p->stacks[p->nstacks];
	/* one block: the values, then the frames */
	s->values = xcalloc(1, p->ntypes * sizeof(*s->values) +
			       depth * sizeof(*s->frames));
	s->frames = (uint32_t *)(s->values + p->ntypes);
	memcpy(s->frames, frames, depth * sizeof(*s->frames));
	s->depth = depth;
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

int64_t profile_total_in(const struct profile *p, size_t t,
			 const char *module)
{
	int64_t sum = 0;

	assert(t < p->ntypes);
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct stack *st = &p->stacks[i];

		for (size_t d = 0; d < st->depth; d++) {
			const char *m = p->frames[st->frames[d]].module;

			if (m && !strcmp(m, module)) {
				sum += st->values[t];
				break;
			}
		}
	}
	return sum;
}

/*
 * profile_top groups frames by (function, module): the same function at
 * different lines, or inlined and not, is one entry; profile_top_lines by
 * (function, module, file, line). fn_of maps a frame id to its entry.
 */
struct top_ctx {
	struct profile_top *ents;
	size_t n, cap;
	struct hashidx index;	/* entry + 1 */
	size_t *seen;		/* per entry: last stack index + 1 counted */
	bool lines;
};

static uint32_t top_entry(struct top_ctx *c, const struct frame *f)
{
	const char *file = c->lines ? f->file : NULL;
	int line = c->lines ? f->line : 0;
	uint64_t h = hash_u64(hash_name(hash_name(hash_name(0, f->function),
						  f->module), file) ^
			      (uint64_t)(unsigned)line);
	uint64_t v;
	size_t pos;

	for (v = hashidx_first(&c->index, h, &pos); v;
	     v = hashidx_next(&c->index, h, &pos)) {
		struct profile_top *e = &c->ents[v - 1];

		if (str_eq(e->function, f->function) &&
		    str_eq(e->module, f->module) && str_eq(e->file, file) &&
		    e->line == line)
			return (uint32_t)(v - 1);
	}
	hashidx_add(&c->index, h, c->n + 1);
	c->ents = xgrow(c->ents, &c->cap, c->n + 1, sizeof(*c->ents));
	c->ents[c->n] = (struct profile_top){ f->function, f->module, 0, 0,
					      file, line };
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
	c = strcmp(x->module ? x->module : "", y->module ? y->module : "");
	if (c)
		return c;
	return (x->line > y->line) - (x->line < y->line);
}

static int top(const struct profile *p, size_t t, bool lines,
	       struct profile_top **out, size_t *n)
{
	struct top_ctx c = { .lines = lines };
	uint32_t *fn_of = xmalloc((p->nframes + 1) * sizeof(*fn_of));
	size_t kept = 0;

	assert(t < p->ntypes);
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
	hashidx_free(&c.index);
	free(c.seen);
	free(fn_of);
	*out = c.ents;
	*n = kept;
	return 0;
}

int profile_top(const struct profile *p, size_t t, struct profile_top **out,
		size_t *n)
{
	return top(p, t, false, out, n);
}

int profile_top_lines(const struct profile *p, size_t t,
		      struct profile_top **out, size_t *n)
{
	return top(p, t, true, out, n);
}
