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
 * and put in *old if old is not NULL), -1 when memory ran out.
 */
int hashmap_put(struct hashmap *m, const void *key, size_t len, void *value,
		void **old);

#endif
