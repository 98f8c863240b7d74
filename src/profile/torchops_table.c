/*
 * The operators' names a PyTorch library states itself: its schema
 * strings, read from its .rodata, as a table from the name of each
 * `at::_ops::<struct>` to the operator's name (profile/torchops.h).
 *
 * What .rodata holds (Debian's torch 1.13, libtorch_cpu.so): every
 * operator's schema, "add.Tensor(Tensor self, Tensor other, *, Scalar
 * alpha=1) -> Tensor" (torchgen's schema_str and the registration of
 * the schema), many again as "aten::add.Tensor(...) -> Tensor" (the
 * JIT's own registrations). The struct's name is the schema's name and
 * its overload name joined by '_' ("add_Tensor"; torchgen's
 * unambiguous_name), so a schema gives the split exactly. The structs'
 * `name` and `overload_name` constants are no help: the linker merges a
 * string into the tail of a longer one ("Tensor" is the end of some
 * "... -> Tensor"), so the overload names are not strings of their own.
 * The schemas are merged the same way: "erf.out(Tensor self, *,
 * Tensor(a!) out) -> Tensor(a!)" is the tail of "special_erf.out(...)",
 * the same signature. So each schema also stands for its tails: the
 * table takes a whole string's split first, a tail's only where no
 * whole string names the struct, and a struct two strings split
 * differently (of the same kind) is ambiguous, left to the rule.
 *
 * The library is untrusted input: every read is bounded by the buffer,
 * names are at most TOKEN_MAX bytes, and the table references the
 * buffer's bytes (it does not copy them).
 */
#include "profile/torchops.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/strutil.h"

#define ATEN "aten::"
#define TOKEN_MAX 128		/* longer names are no operator's (torch
				 * 1.13's longest: 57) */
/* The most entries (of torch 1.13's 3614 structs and their tails:
 * 29,992): a hostile file's table stays under 16 MiB; past it, no more
 * are added (the rule names what is missing) */
#define ENTRIES_MAX ((size_t)1 << 18)

enum { WHOLE, TAIL };

/* A struct name's split: op[0..oplen) and ov[0..ovlen) of the buffer. */
struct entry {
	const char *op, *ov;
	uint16_t oplen, ovlen;
	uint8_t kind;		/* WHOLE: a string's start; TAIL: its tail */
	bool ambiguous;		/* two of that kind split it differently */
};

struct torchops_table {
	struct entry *v;
	size_t n, cap;
	struct hashidx index;	/* by key_hash, entry + 1 */
	size_t schemas;		/* strings read as schemas */
};

/* The struct name op[_ov] into key (at least KEY_MAX bytes); its
 * length. */
#define KEY_MAX (2 * TOKEN_MAX + 1)
static size_t key_of(char *key, const char *op, size_t oplen, const char *ov,
		     size_t ovlen)
{
	memcpy(key, op, oplen);
	if (!ovlen)
		return oplen;
	key[oplen] = '_';
	memcpy(key + oplen + 1, ov, ovlen);
	return oplen + 1 + ovlen;
}

/* FNV-1a of key[0..n), as util/hashmap.h's hash_str. */
static uint64_t key_hash(const char *key, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)key[i]) * 0x100000001b3ULL;
	return h ^ h >> 32;
}

/* Whether e's struct name is key[0..n). */
static bool entry_is(const struct entry *e, const char *key, size_t n)
{
	size_t len = e->oplen + (e->ovlen ? 1u + e->ovlen : 0u);

	return len == n && !memcmp(key, e->op, e->oplen) &&
	       (!e->ovlen || (key[e->oplen] == '_' &&
			      !memcmp(key + e->oplen + 1, e->ov, e->ovlen)));
}

/* The entry of the struct name key[0..n) of hash h, or NULL. */
static struct entry *table_get(const struct torchops_table *t,
			       const char *key, size_t n, uint64_t h)
{
	size_t pos;

	for (uint64_t v = hashidx_first(&t->index, h, &pos); v;
	     v = hashidx_next(&t->index, h, &pos))
		if (entry_is(&t->v[v - 1], key, n))
			return &t->v[v - 1];
	return NULL;
}

/* Add the split (op, ov) of kind to t: a whole string's split replaces
 * tails' (module comment). */
static void table_add(struct torchops_table *t, const char *op, size_t oplen,
		      const char *ov, size_t ovlen, uint8_t kind)
{
	char key[KEY_MAX];
	size_t n = key_of(key, op, oplen, ov, ovlen);
	uint64_t h = key_hash(key, n);
	struct entry *e = table_get(t, key, n, h);
	struct entry nw = { .op = op, .ov = ov, .oplen = (uint16_t)oplen,
			    .ovlen = (uint16_t)ovlen, .kind = kind };

	if (e) {
		if (kind > e->kind)
			return;		/* a tail where a whole string is */
		if (kind < e->kind)
			*e = nw;
		else if (e->oplen != oplen)
			e->ambiguous = true;
		return;
	}
	if (t->n == ENTRIES_MAX)
		return;
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n++] = nw;
	hashidx_add(&t->index, h, t->n);
}

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The length of the word at s[0..n) (0 when longer than TOKEN_MAX). */
static size_t word(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && is_word(s[k]))
		k++;
	return k <= TOKEN_MAX ? k : 0;
}

/* Read the string s[0..n) (no NUL in it) if it is a schema,
 * "[aten::]NAME[.OVERLOAD](...) -> ...": its split and its tails'. */
static void read_string(struct torchops_table *t, const char *s, size_t n)
{
	const char *ov = "";
	size_t oplen, ovlen = 0, at;

	if (n > 6 && !memcmp(s, ATEN, 6)) {
		s += 6;
		n -= 6;
	}
	oplen = word(s, n);
	if (!oplen || is_digit(s[0]))
		return;
	at = oplen;
	if (at < n && s[at] == '.') {
		ov = s + at + 1;
		ovlen = word(ov, n - at - 1);
		if (!ovlen)
			return;
		at += 1 + ovlen;
	}
	if (at >= n || s[at] != '(' || !memmem(s + at, n - at, ") -> ", 5))
		return;
	t->schemas++;
	table_add(t, s, oplen, ov, ovlen, WHOLE);
	for (size_t k = 1; k < oplen; k++)
		if (!is_digit(s[k]))
			table_add(t, s + k, oplen - k, ov, ovlen, TAIL);
}

/*
 * One pass: every schema has ") -> ", a rare run of bytes that memmem
 * finds fast, so the scan goes from one to the next, each read from its
 * string's start (the NUL before it, never before the end of the last
 * string read: the walk back is bounded by the buffer once over) to its
 * end. Most of .rodata is no string at all.
 */
struct torchops_table *torchops_table_new(const char *buf, size_t len)
{
	struct torchops_table *t = xcalloc(1, sizeof(*t));
	const char *arrow;
	size_t p = 0;

	while (p < len && (arrow = memmem(buf + p, len - p, ") -> ", 5))) {
		size_t at = (size_t)(arrow - buf), start = at, end;
		const char *nul = memchr(arrow, '\0', len - at);

		while (start > p && buf[start - 1] != '\0')
			start--;
		end = nul ? (size_t)(nul - buf) : len;
		/* a schema begins with a letter or '_' (or "aten::") */
		if (is_word(buf[start]) && !is_digit(buf[start]))
			read_string(t, buf + start, end - start);
		p = end + 1;
	}
	return t;
}

void torchops_table_free(struct torchops_table *t)
{
	if (!t)
		return;
	hashidx_free(&t->index);
	free(t->v);
	free(t);
}

size_t torchops_table_schemas(const struct torchops_table *t)
{
	return t ? t->schemas : 0;
}

size_t torchops_table_op(const struct torchops_table *t, const char *s,
			 size_t n)
{
	const struct entry *e;

	if (!t || !n || n > KEY_MAX)
		return 0;
	e = table_get(t, s, n, key_hash(s, n));
	return e && !e->ambiguous ? e->oplen : 0;
}
