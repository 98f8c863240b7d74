/*
 * The symbolizer's strings (interned, symbol names demangled) and its
 * sorted arrays and pointer indexes (symtab_internal.h).
 */
#include <stdlib.h>
#include <string.h>

#include "profile/dwlib.h"
#include "profile/symtab_internal.h"
#include "util/strutil.h"

/*
 * Sorted arrays of structs that begin with a uint64_t start (struct sym,
 * cu_range, jit_sym): order by start, and count the elements starting at
 * or below key (the last of them may contain key).
 */
static uint64_t start_of(const void *base, size_t i, size_t size)
{
	uint64_t v;

	memcpy(&v, (const char *)base + i * size, sizeof(v));
	return v;
}

int st_start_cmp(const void *a, const void *b)
{
	uint64_t x = start_of(a, 0, 0), y = start_of(b, 0, 0);

	return (x > y) - (x < y);
}

size_t st_count_at_or_below(const void *base, size_t n, size_t size,
			    uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (start_of(base, mid, size) <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The entry of t (an index of pointers) under hash h that eq accepts,
 * NULL if there is none. */
void *st_table_find(struct hashidx *t, uint64_t h,
		    bool (*eq)(const void *entry, const void *key),
		    const void *key)
{
	size_t pos;

	for (uint64_t v = hashidx_first(t, h, &pos); v;
	     v = hashidx_next(t, h, &pos))
		if (eq((void *)(uintptr_t)v, key))
			return (void *)(uintptr_t)v;
	return NULL;
}

void st_table_add(struct hashidx *t, uint64_t h, void *entry)
{
	hashidx_add(t, h, (uintptr_t)entry);
}

/* The i-th slot's entry, NULL if it is empty (to free them all). */
void *st_table_slot(const struct hashidx *t, size_t i)
{
	return (void *)(uintptr_t)t->slots[i].value;
}

static bool str_eq(const void *entry, const void *key)
{
	return !strcmp(entry, key);
}

/* The symtab's copy of str, shared by every frame that names it. */
char *st_intern(struct symtab *s, const char *str)
{
	uint64_t h = hash_str(str);
	char *copy = st_table_find(&s->strings, h, str_eq, str);

	if (copy)
		return copy;
	copy = xstrdup(str);
	st_table_add(&s->strings, h, copy);
	return copy;
}

/* A symbol's name without its version ("memcpy@@GLIBC_2.14" is memcpy),
 * demangled if it is a C++ one, interned. */
char *st_intern_symbol(struct symtab *s, const char *name)
{
	size_t len = strcspn(name, "@");
	char *bare = xstrndup(name, len ? len : strlen(name)), *d = NULL, *out;

	if (!strncmp(bare, "_Z", 2))
		d = dwlib_demangle(bare);
	out = st_intern(s, d ? d : bare);
	free(d);
	free(bare);
	return out;
}
