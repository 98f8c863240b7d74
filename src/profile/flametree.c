/*
 * The flame graph's tree: stacks merged by (function, module) with two
 * hash indexes (util/hashmap.h), one interning keys, one finding a node's
 * child by key. The one invariant the rest relies on: nodes are created
 * after their parent, so index order visits parents first; ftree_build
 * uses it to place children without recursion.
 */
#include "profile/flametree.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

/* Length of the UTF-8 sequence at s that XML 1.0 allows, 0 if invalid:
 * well-formed (utf8_decode), and neither U+FFFE nor U+FFFF. */
static size_t xml_char_len(const char *s)
{
	uint32_t c;
	size_t len = utf8_decode(s, &c);

	return len && c != 0xfffe && c != 0xffff ? len : 0;
}

char *ftree_clean(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;
	char *out = xmalloc(n + 1);

	while (i < n) {
		size_t len = xml_char_len(s + i);

		if (!len) {
			out[o++] = '?';
			i++;
		} else if (u[i] < 0x20) {
			out[o++] = u[i] == '\t' || u[i] == '\n' ||
				   u[i] == '\r' ? ' ' : '?';
			i++;
		} else {
			memcpy(out + o, s + i, len);
			o += len;
			i += len;
		}
	}
	out[o] = '\0';
	return out;
}

void ftree_put_text(FILE *fp, const char *s)
{
	char *c = ftree_clean(s);

	fputs_xml(c, fp);
	free(c);
}

static uint32_t fnv(uint32_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* MurmurHash3's finalizer: FNV's low bits alone vary too little. */
static uint32_t fmix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return h ^ h >> 16;
}

uint32_t ftree_hash(const char *s)
{
	return fmix(fnv(2166136261u, s));
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The key of (function, module) cleaned, created if new; NULL or ""
 * module is none, NULL function "[unknown]". */
static uint32_t ftree_key(struct ftree_keys *ks, const char *function,
		   const char *module)
{
	char *f = ftree_clean(function ? function : "[unknown]");
	char *m = module && *module ? ftree_clean(module) : NULL;
	uint32_t h = fmix(fnv(fnv(2166136261u, f) ^ 0xff, m ? m : ""));
	uint64_t v;
	size_t pos;

	for (v = hashidx_first(&ks->index, h, &pos); v;
	     v = hashidx_next(&ks->index, h, &pos)) {
		const struct ftree_key *k = &ks->v[v - 1];

		if (!strcmp(k->function, f) && str_eq(k->module, m)) {
			free(f);
			free(m);
			return (uint32_t)(v - 1);
		}
	}
	ks->v = xgrow(ks->v, &ks->cap, ks->n + 1, sizeof(*ks->v));
	ks->v[ks->n] = (struct ftree_key){ f, m, h };
	hashidx_add(&ks->index, h, ks->n + 1);
	return (uint32_t)ks->n++;
}

uint32_t *ftree_keys_of(struct ftree_keys *ks, const struct profile *p)
{
	uint32_t *map = xmalloc(p->nframes * sizeof(*map));

	for (size_t i = 0; i < p->nframes; i++)
		map[i] = ftree_key(ks, p->frames[i].function,
				   p->frames[i].module);
	return map;
}

int ftree_key_cmp(const struct ftree_key *a, const struct ftree_key *b)
{
	int c = strcmp(a->function, b->function);

	if (c || str_eq(a->module, b->module))
		return c;
	if (!a->module || !b->module)
		return a->module ? 1 : -1;
	return strcmp(a->module, b->module);
}

void ftree_keys_free(struct ftree_keys *ks)
{
	for (size_t i = 0; i < ks->n; i++) {
		free(ks->v[i].function);
		free(ks->v[i].module);
	}
	free(ks->v);
	hashidx_free(&ks->index);
	memset(ks, 0, sizeof(*ks));
}

/* One-to-one (hash_u64 is), so the hash alone tells a node. */
static uint64_t node_hash(uint32_t parent, uint32_t key)
{
	return hash_u64((uint64_t)parent << 32 | key);
}

/* The child of parent with key, FTREE_NONE if none (or parent is). */
static uint32_t ftree_find(const struct ftree *t, uint32_t parent, uint32_t key)
{
	size_t pos;
	uint64_t v;

	if (parent == FTREE_NONE)
		return FTREE_NONE;
	v = hashidx_first(&t->index, node_hash(parent, key), &pos);
	return v ? (uint32_t)(v - 1) : FTREE_NONE;
}

static uint32_t tree_child(struct ftree *t, uint32_t parent, uint32_t key)
{
	uint32_t nd = ftree_find(t, parent, key);

	if (nd != FTREE_NONE)
		return nd;
	assert(t->n < FTREE_NONE);
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n] = (struct ftree_node){ key, parent, FTREE_NONE, FTREE_NONE,
					  t->v[parent].depth + 1, 0, 0 };
	hashidx_add(&t->index, node_hash(parent, key), t->n + 1);
	return (uint32_t)t->n++;
}

struct sort_ent {
	uint64_t k;		/* parent << 32 | rank of the key by name */
	uint32_t node;
};

static int key_ptr_cmp(const void *a, const void *b)
{
	return ftree_key_cmp(*(const struct ftree_key *const *)a,
			     *(const struct ftree_key *const *)b);
}

static int ent_cmp(const void *a, const void *b)
{
	const struct sort_ent *x = a, *y = b;

	return x->k < y->k ? -1 : x->k > y->k;
}

/* Link children in name order and place them left to right. */
static void tree_layout(struct ftree *t, const struct ftree_keys *ks)
{
	const struct ftree_key **byname = xmalloc(ks->n * sizeof(*byname));
	uint32_t *rank = xmalloc(ks->n * sizeof(*rank));
	struct sort_ent *ents = xmalloc(t->n * sizeof(*ents));

	for (size_t i = 0; i < ks->n; i++)
		byname[i] = &ks->v[i];
	qsort(byname, ks->n, sizeof(*byname), key_ptr_cmp);
	for (size_t i = 0; i < ks->n; i++)
		rank[byname[i] - ks->v] = (uint32_t)i;
	for (size_t i = 1; i < t->n; i++)
		ents[i - 1] = (struct sort_ent){
			(uint64_t)t->v[i].parent << 32 | rank[t->v[i].key],
			(uint32_t)i };
	qsort(ents, t->n - 1, sizeof(*ents), ent_cmp);
	for (size_t i = t->n - 1; i-- > 0;) {
		struct ftree_node *nd = &t->v[ents[i].node];

		nd->next = t->v[nd->parent].child;
		t->v[nd->parent].child = ents[i].node;
	}
	for (size_t i = 0; i < t->n; i++) {
		int64_t off = t->v[i].off;

		for (uint32_t c = t->v[i].child; c != FTREE_NONE;
		     c = t->v[c].next) {
			t->v[c].off = off;
			off += t->v[c].value;
		}
	}
	free(ents);
	free(rank);
	free(byname);
}

void ftree_build(struct ftree *t, struct ftree_keys *ks,
		 const struct profile *p, size_t type,
		 const uint32_t *keymap)
{
	uint32_t root = ftree_key(ks, "all", NULL);

	assert(type < p->ntypes);
	t->v = xgrow(t->v, &t->cap, 1, sizeof(*t->v));
	t->v[0] = (struct ftree_node){ root, FTREE_NONE, FTREE_NONE,
				       FTREE_NONE, 0, 0, 0 };
	t->n = 1;
	hashidx_free(&t->index);	/* empty, as the tree is */
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct stack *st = &p->stacks[s];
		int64_t v = st->values[type];
		uint32_t nd = 0;

		if (v <= 0)
			continue;
		t->v[0].value += v;
		for (size_t i = st->depth; i-- > 0;) {
			assert(st->frames[i] < p->nframes);
			nd = tree_child(t, nd, keymap[st->frames[i]]);
			t->v[nd].value += v;
		}
	}
	t->total = t->v[0].value;
	tree_layout(t, ks);
}

void ftree_free(struct ftree *t)
{
	free(t->v);
	hashidx_free(&t->index);
	memset(t, 0, sizeof(*t));
}

uint32_t *ftree_match(const struct ftree *from, const struct ftree *to)
{
	uint32_t *m = xmalloc(from->n * sizeof(*m));

	m[0] = 0;
	for (size_t i = 1; i < from->n; i++)
		m[i] = ftree_find(to, m[from->v[i].parent], from->v[i].key);
	return m;
}

uint32_t ftree_next(const struct ftree *t, uint32_t n, bool descend)
{
	if (descend && t->v[n].child != FTREE_NONE)
		return t->v[n].child;
	for (; n != 0; n = t->v[n].parent)
		if (t->v[n].next != FTREE_NONE)
			return t->v[n].next;
	return FTREE_NONE;
}
