/*
 * The hash table of hashmap.h. The capacity is a power of two and stays
 * at least twice the number of keys, so a probe sequence is short and
 * always ends at an empty slot.
 */
#include "util/hashmap.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "util/hugemem.h"
#include "util/strutil.h"

static uint64_t fnv1a(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

void hashmap_init(struct hashmap *m)
{
	memset(m, 0, sizeof(*m));
}

void hashmap_free(struct hashmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

/* The slot holding key, or the empty slot where it would go. */
static struct hashmap_slot *find(struct hashmap *m, const void *key,
				 size_t len, uint64_t hash)
{
	size_t i = (size_t)hash & (m->cap - 1);

	for (;;) {
		struct hashmap_slot *s = &m->slots[i];

		if (!s->key)
			return s;
		if (s->hash == hash && s->len == len) {
			m->probes++;
			if (!memcmp(s->key, key, len))
				return s;
		}
		i = (i + 1) & (m->cap - 1);
	}
}

void *hashmap_get(struct hashmap *m, const void *key, size_t len)
{
	if (!m->cap)
		return NULL;
	return find(m, key, len, fnv1a(key, len))->value;
}

static void grow(struct hashmap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 16;
	struct hashmap_slot *old = m->slots, *slots;
	size_t oldcap = m->cap;

	slots = xcalloc(cap, sizeof(*slots));
	m->slots = slots;
	m->cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key)
			*find(m, old[i].key, old[i].len, old[i].hash) = old[i];
	free(old);
}

int hashmap_put(struct hashmap *m, const void *key, size_t len, void *value,
		void **old)
{
	uint64_t hash = fnv1a(key, len);
	struct hashmap_slot *s;

	if (2 * (m->len + 1) > m->cap)
		grow(m);
	s = find(m, key, len, hash);
	if (s->key) {
		if (old)
			*old = s->value;
		return 1;
	}
	s->key = xmalloc(len ? len : 1);
	memcpy(s->key, key, len);
	s->len = len;
	s->hash = hash;
	s->value = value;
	m->len++;
	return 0;
}

void hashidx_init(struct hashidx *ix)
{
	memset(ix, 0, sizeof(*ix));
}

void hashidx_free(struct hashidx *ix)
{
	huge_free(ix->slots, ix->mapped);
	memset(ix, 0, sizeof(*ix));
}

/* Put (h, value) in the first empty slot of h's probe sequence (from
 * its home under key: hashidx_first). */
static void place(struct hashidx_slot *slots, size_t cap, uint64_t key,
		  uint64_t h, uint64_t value)
{
	size_t i = (size_t)hash_u64(h ^ key) & (cap - 1);

	while (slots[i].value)
		i = (i + 1) & (cap - 1);
	slots[i].hash = h;
	slots[i].value = value;
}

void hashidx_add(struct hashidx *ix, uint64_t h, uint64_t value)
{
	if (2 * (ix->len + 1) > ix->cap) {
		size_t cap = ix->cap ? 2 * ix->cap : 16;
		size_t mapped;
		struct hashidx_slot *slots = huge_calloc(cap, sizeof(*slots),
							 &mapped);

		if (!ix->cap)
			ix->key = hash_secret();
		for (size_t i = 0; i < ix->cap; i++)
			if (ix->slots[i].value)
				place(slots, cap, ix->key, ix->slots[i].hash,
				      ix->slots[i].value);
		huge_free(ix->slots, ix->mapped);
		ix->slots = slots;
		ix->cap = cap;
		ix->mapped = mapped;
	}
	place(ix->slots, ix->cap, ix->key, h, value);
	ix->len++;
}

uint64_t hash_secret(void)
{
	/* the process's one key: a static, as a table's key must not
	 * change while it holds anything, and drawing one per table would
	 * be a system call per table */
	static _Atomic uint64_t secret;
	uint64_t v = atomic_load_explicit(&secret, memory_order_relaxed);
	uint64_t none = 0;

	if (v)
		return v;
	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = hash_u64((uint64_t)ts.tv_sec << 32 ^ (uint64_t)ts.tv_nsec ^
			     (uint64_t)(uintptr_t)&ts);
	}
	v |= 1;
	if (!atomic_compare_exchange_strong(&secret, &none, v))
		v = none;	/* another thread's, drawn meanwhile */
	return v;
}
