/*
 * Unit tests of src/util/pbwire.c, the protocol buffers encoder of pprof
 * and Perfetto. The bytes are checked against the examples of the wire
 * format's own documentation (protobuf.dev/programming-guides/encoding:
 * 150 as field 1 is 08 96 01, "testing" as field 2 is 12 07 74 65 73 74
 * 69 6e 67, that message nested as field 3 is 1a 03 08 96 01) and the
 * varint edges (every 7-bit boundary, 2^64 - 1, -1 as int64); then
 * generated messages are decoded by a reader written here from the
 * format's definition, independently of the encoder, and must give back
 * every field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/pbwire.h"
#include "util/strutil.h"

static void expect_bytes(const struct strbuf *b, const unsigned char *want,
			 size_t n)
{
	assert_int_equal(b->len, n);
	assert_memory_equal(b->s, want, n);
}

static void test_documented_examples(void **state)
{
	static const unsigned char f150[] = { 0x08, 0x96, 0x01 };
	static const unsigned char testing[] = { 0x12, 0x07, 't', 'e', 's',
						 't', 'i', 'n', 'g' };
	static const unsigned char nested[] = { 0x1a, 0x03, 0x08, 0x96, 0x01 };
	static const unsigned char one[] = { 0x09, 0, 0, 0, 0, 0, 0, 0xf0,
					     0x3f };
	struct strbuf b = { 0 }, m = { 0 };

	(void)state;
	pbwire_varint_field(&b, 1, 150);
	expect_bytes(&b, f150, sizeof(f150));
	b.len = 0;
	pbwire_bytes(&b, 2, "testing", 7);
	expect_bytes(&b, testing, sizeof(testing));
	b.len = 0;
	pbwire_varint_field(&m, 1, 150);
	pbwire_msg(&b, 3, &m);
	expect_bytes(&b, nested, sizeof(nested));
	assert_int_equal(m.len, 0);	/* emptied for the next message */
	b.len = 0;
	pbwire_double(&b, 1, 1.0);	/* 1.0 is 0x3ff0000000000000 */
	expect_bytes(&b, one, sizeof(one));
	free(b.s);
	free(m.s);
}

/* The varint of v by its definition: the 7-bit groups of v, least
 * significant first, every byte but the last with its high bit. */
static size_t varint_by_definition(uint64_t v, unsigned char *out)
{
	size_t n = 0;

	for (;;) {
		unsigned char g = (unsigned char)(v % 128);

		v /= 128;
		out[n++] = v ? (unsigned char)(g + 128) : g;
		if (!v)
			return n;
	}
}

static void test_varint_edges(void **state)
{
	struct strbuf b = { 0 };
	unsigned char want[16];

	(void)state;
	/* 2^(7k) - 1 and 2^(7k): the last value of k bytes, the first of
	 * k + 1 */
	for (int k = 1; k <= 9; k++) {
		uint64_t edge = (uint64_t)1 << (7 * k);

		for (uint64_t v = edge - 1; v <= edge; v++) {
			b.len = 0;
			pbwire_varint(&b, v);
			assert_int_equal(b.len, (size_t)k + (v == edge));
			expect_bytes(&b, want, varint_by_definition(v, want));
		}
	}
	b.len = 0;
	pbwire_varint(&b, 0);
	expect_bytes(&b, (const unsigned char *)"\0", 1);
	/* -1 as an int64: ten bytes, nine 0xff and 0x01 */
	b.len = 0;
	pbwire_varint(&b, (uint64_t)(int64_t)-1);
	assert_int_equal(b.len, PBWIRE_VARINT_MAX);
	for (int i = 0; i < 9; i++)
		assert_int_equal((unsigned char)b.s[i], 0xff);
	assert_int_equal((unsigned char)b.s[9], 0x01);
	/* proto3: a zero scalar is left out, unless asked for */
	b.len = 0;
	pbwire_uint(&b, 5, 0);
	assert_int_equal(b.len, 0);
	pbwire_varint_field(&b, 5, 0);
	expect_bytes(&b, (const unsigned char *)"\x28\x00", 2);
	/* a large field number: the tag is a varint too (field 2^29 - 1) */
	b.len = 0;
	pbwire_uint(&b, (1u << 29) - 1, 1);
	expect_bytes(&b, (const unsigned char *)"\xf8\xff\xff\xff\x0f\x01", 6);
	free(b.s);
}

/* ---- an independent reader ------------------------------------------ */

struct reader {
	const unsigned char *p, *end;
};

static int read_varint(struct reader *r, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p == r->end)
			return -1;
		*v |= (uint64_t)(*r->p & 0x7f) << shift;
		if (!(*r->p++ & 0x80))
			return 0;
	}
	return -1;
}

struct field {
	unsigned num, type;
	uint64_t v;			/* varint, fixed64 */
	const unsigned char *data;	/* length-delimited */
	size_t len;
};

static int read_field(struct reader *r, struct field *f)
{
	uint64_t tag;

	if (read_varint(r, &tag))
		return -1;
	f->num = (unsigned)(tag >> 3);
	f->type = (unsigned)(tag & 7);
	if (f->type == 0)
		return read_varint(r, &f->v);
	if (f->type == 1) {
		if (r->end - r->p < 8)
			return -1;
		f->v = 0;
		for (int i = 7; i >= 0; i--)
			f->v = f->v << 8 | r->p[i];
		r->p += 8;
		return 0;
	}
	if (f->type != 2 || read_varint(r, &f->v) ||
	    f->v > (uint64_t)(r->end - r->p))
		return -1;
	f->data = r->p;
	f->len = (size_t)f->v;
	r->p += f->len;
	return 0;
}

/* xorshift64*: the generated messages' values */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* A value spread over every varint length: a random number of bits. */
static uint64_t any_value(uint64_t *s)
{
	unsigned bits = (unsigned)(next(s) % 65);

	return bits == 64 ? next(s) : next(s) & (((uint64_t)1 << bits) - 1);
}

/* Messages of random fields, each with a nested message of random
 * fields: the reader must find every field, its number, type and value,
 * in order, and nothing after. */
static void test_generated_messages(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		struct strbuf outer = { 0 }, inner = { 0 };
		uint64_t vals[8], inner_vals[8];
		char text[64];
		double d;
		unsigned nf = 1 + (unsigned)(next(&seed) % 8), ni;
		unsigned fnum = 1 + (unsigned)(next(&seed) % ((1u << 29) - 1));
		size_t tlen = (size_t)(next(&seed) % sizeof(text));
		struct reader r, ri;
		struct field f;
		uint64_t bits;

		ni = (unsigned)(next(&seed) % 8);
		for (unsigned i = 0; i < ni; i++) {
			inner_vals[i] = any_value(&seed);
			pbwire_varint_field(&inner, i + 1, inner_vals[i]);
		}
		for (unsigned i = 0; i < nf; i++) {
			vals[i] = any_value(&seed);
			pbwire_varint_field(&outer, fnum, vals[i]);
		}
		for (size_t i = 0; i < tlen; i++)
			text[i] = (char)next(&seed);
		pbwire_bytes(&outer, 2, text, tlen);
		pbwire_msg(&outer, 3, &inner);
		bits = next(&seed);
		memcpy(&d, &bits, 8);
		pbwire_double(&outer, 4, d);

		r.p = (const unsigned char *)outer.s;
		r.end = r.p + outer.len;
		for (unsigned i = 0; i < nf; i++) {
			assert_int_equal(read_field(&r, &f), 0);
			assert_int_equal(f.num, fnum);
			assert_int_equal(f.type, 0);
			assert_true(f.v == vals[i]);
		}
		assert_int_equal(read_field(&r, &f), 0);
		assert_int_equal(f.num, 2);
		assert_int_equal(f.type, 2);
		assert_int_equal(f.len, tlen);
		assert_memory_equal(f.data, text, tlen);
		assert_int_equal(read_field(&r, &f), 0);
		assert_int_equal(f.num, 3);
		assert_int_equal(f.type, 2);
		ri.p = f.data;
		ri.end = f.data + f.len;
		for (unsigned i = 0; i < ni; i++) {
			struct field g;

			assert_int_equal(read_field(&ri, &g), 0);
			assert_int_equal(g.num, i + 1);
			assert_true(g.v == inner_vals[i]);
		}
		assert_true(ri.p == ri.end);
		assert_int_equal(read_field(&r, &f), 0);
		assert_int_equal(f.num, 4);
		assert_int_equal(f.type, 1);
		assert_true(f.v == bits);
		assert_true(r.p == r.end);
		free(outer.s);
		free(inner.s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_documented_examples),
		cmocka_unit_test(test_varint_edges),
		cmocka_unit_test(test_generated_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
