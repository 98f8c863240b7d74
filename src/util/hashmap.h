/*
 * A small hash table from byte-string keys to pointers: open addressing
 * with linear probing, FNV-1a hashes, at most half full. Keys are copied
 * in; values belong to the caller. No removal (nothing needs it yet).
 */
#ifndef YS_UTIL_HASHMAP_H
#define YS_UTIL_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct hashmap_slot {
	char *key;		/* NULL: empty */
	size_t len;
	uint64_t hash;
	void *value;
};

struct hashmap {
	struct hashmap_slot *slots;
	size_t cap, len;
	size_t probes;		/* keys compared so far: lets a test check
				 * that lookups stay O(1) */
};

/* An empty map; nothing allocated until the first put. */
void hashmap_init(struct hashmap *m);
void hashmap_free(struct hashmap *m);

/* The value stored under key[0..len-1], or NULL. */
void *hashmap_get(struct hashmap *m, const void *key, size_t len);

/*
 * Store value under key[0..len-1] unless the key is there already.
 * Returns 0 when stored, 1 when the key was present (its value is left
 * and put in *old if old is not NULL).
 */
int hashmap_put(struct hashmap *m, const void *key, size_t len, void *value,
		void **old);

/*
 * An index for entries the caller keeps (in an array, or anywhere): it
 * maps a 64-bit hash, which the caller computes from its own key, to
 * values that are never 0 -- an array index + 1, or a pointer. Several
 * values may share a hash; the caller tells the right one by comparing
 * its entries:
 *
 *	size_t pos;
 *	for (v = hashidx_first(ix, h, &pos); v; v = hashidx_next(ix, h, &pos))
 *		if (same(entries[v - 1], key))
 *			return v - 1;
 *	hashidx_add(ix, h, n + 1);
 *
 * Open addressing, linear probing, at most half full; the hash is kept in
 * the slot, so growing never calls back into the caller's hash. A hash's
 * home slot is a mix of it with hash_secret, so that hashes chosen by
 * someone who can compute the caller's (a profiled program writing the
 * keys of a heap trace) do not meet in one run of slots, each look-up a
 * walk of all of them. No removal. Allocation failure aborts (xmalloc).
 */
struct hashidx_slot {
	uint64_t hash;
	uint64_t value;		/* 0: empty */
};

struct hashidx {
	struct hashidx_slot *slots;	/* huge_calloc's (util/hugemem.h):
					 * a large index is read at random */
	size_t cap, len;
	size_t mapped;
	uint64_t key;		/* hash_secret, from the first add */
};

void hashidx_init(struct hashidx *ix);
void hashidx_free(struct hashidx *ix);
/* Add value (not 0) under hash h; it must not be in the index yet. */
void hashidx_add(struct hashidx *ix, uint64_t h, uint64_t value);

/* The next value stored under hash h from *pos on, 0 when there is none. */
static inline uint64_t hashidx_next(const struct hashidx *ix, uint64_t h,
				    size_t *pos)
{
	size_t mask = ix->cap - 1;

	if (!ix->cap)
		return 0;
	for (size_t i = *pos;; i = (i + 1) & mask) {
		const struct hashidx_slot *s = &ix->slots[i];

		if (!s->value) {
			*pos = i;
			return 0;
		}
		if (s->hash == h) {
			*pos = (i + 1) & mask;
			return s->value;
		}
	}
}

/* A well-mixed 64-bit hash of an integer (MurmurHash3's finalizer; it is
 * one-to-one, so equal hashes mean equal integers), and FNV-1a of a
 * string, both for building a key's hash. */
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static inline uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h ^ h >> 32;	/* the high bits into the slot's */
}

/*
 * A random 64-bit value (not 0), drawn at the first call and the same for
 * the rest of the process: the key of tables whose keys a profiled
 * program chooses (hashidx's homes, the heap replay's live blocks and
 * stack tries). It cannot read yardstick's memory, so it cannot choose
 * keys that meet in one run of such a table. From getrandom, or if that
 * fails from the clock and an address.
 */
uint64_t hash_secret(void);

/* The first value stored under hash h (0: none); *pos is for _next. */
static inline uint64_t hashidx_first(const struct hashidx *ix, uint64_t h,
				     size_t *pos)
{
	*pos = (size_t)hash_u64(h ^ ix->key) & (ix->cap - 1);
	return hashidx_next(ix, h, pos);
}

#endif
