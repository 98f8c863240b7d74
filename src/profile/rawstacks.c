/*
 * Interned raw stacks: an array of (pid, address chain) entries in the
 * order first seen, with a hash index (util/hashmap.h). Adding a sample is
 * a hash, a probe and two additions; nothing is allocated for a chain seen
 * before.
 */
#include "profile/rawstacks.h"

#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/strutil.h"

/* Deepest stack kept; deeper ones are cut at the root side. */
#define MAX_DEPTH 512
/* Frames one address may expand to (inlined calls). */
#define MAX_INLINE 32

struct entry {
	uint64_t hash;
	uint32_t pid;
	uint32_t n;
	uint64_t *ips;
	uint64_t samples, period;
};

struct rawstacks {
	struct entry *v;
	size_t n, cap;
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
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].ips);
	free(r->v);
	hashidx_free(&r->index);
	free(r);
}

void rawstacks_add(struct rawstacks *r, uint32_t pid, const uint64_t *ips,
		   size_t n, uint64_t period)
{
	uint64_t h, v;
	struct entry *e;
	size_t pos;

	if (n > MAX_DEPTH)
		n = MAX_DEPTH;
	h = hash_of(pid, ips, n);
	for (v = hashidx_first(&r->index, h, &pos); v;
	     v = hashidx_next(&r->index, h, &pos)) {
		e = &r->v[v - 1];
		if (e->pid == pid && e->n == n &&
		    !memcmp(e->ips, ips, n * sizeof(*ips)))
			break;
	}
	if (!v) {
		r->v = xgrow(r->v, &r->cap, r->n + 1, sizeof(*r->v));
		e = &r->v[r->n++];
		*e = (struct entry){ .hash = h, .pid = pid, .n = (uint32_t)n };
		e->ips = xmalloc((n ? n : 1) * sizeof(*ips));
		memcpy(e->ips, ips, n * sizeof(*ips));
		hashidx_add(&r->index, h, r->n);
	}
	e->samples++;
	e->period += period;
}

static void flush_one(struct entry *e, struct symtab *s, struct profile *p,
		      uint32_t *ids, size_t max_ids)
{
	struct frame fr[MAX_INLINE];
	size_t depth = 0;
	int64_t values[2] = { (int64_t)e->samples, (int64_t)e->period };

	for (size_t i = 0; i < e->n; i++) {
		size_t k = symtab_lookup(s, e->pid, e->ips[i], i > 0, fr,
					 MAX_INLINE);

		for (size_t j = 0; j < k && depth < max_ids; j++) {
			ids[depth++] = profile_frame(p, &fr[j]);
			p->total_frames += (int64_t)e->samples;
			if (!strcmp(fr[j].function, "[unknown]"))
				p->unknown_frames += (int64_t)e->samples;
		}
	}
	if (depth == 0) {
		struct frame none = { .function = "[unknown]",
				      .module = "[unknown]" };

		ids[depth++] = profile_frame(p, &none);
	}
	profile_add(p, ids, depth, values);
}

void rawstacks_flush(struct rawstacks *r, uint32_t pid, int all,
		     struct symtab *s, struct profile *p)
{
	size_t max_ids = MAX_DEPTH * 4;
	uint32_t *ids = xmalloc(max_ids * sizeof(*ids));
	size_t kept = 0;

	for (size_t i = 0; i < r->n; i++) {
		struct entry *e = &r->v[i];

		if (!all && e->pid != pid) {
			r->v[kept++] = *e;
			continue;
		}
		flush_one(e, s, p, ids, max_ids);
		free(e->ips);
	}
	free(ids);
	if (kept < r->n) {
		/* Index the survivors again (no removal in a hashidx). */
		hashidx_free(&r->index);
		for (size_t i = 0; i < kept; i++)
			hashidx_add(&r->index, r->v[i].hash, i + 1);
		r->n = kept;
	}
}
