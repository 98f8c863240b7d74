/* The protocol buffers wire format, written (util/pbwire.h). */
#include "util/pbwire.h"

#include <string.h>

void pbwire_varint(struct strbuf *b, uint64_t v)
{
	char c[PBWIRE_VARINT_MAX];
	size_t n = 0;

	do {
		c[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	strbuf_put(b, c, n);
}

static void tag(struct strbuf *b, unsigned field, enum pbwire_type t)
{
	pbwire_varint(b, (uint64_t)field << 3 | t);
}

void pbwire_varint_field(struct strbuf *b, unsigned field, uint64_t v)
{
	tag(b, field, PBWIRE_VARINT);
	pbwire_varint(b, v);
}

void pbwire_uint(struct strbuf *b, unsigned field, uint64_t v)
{
	if (v)
		pbwire_varint_field(b, field, v);
}

void pbwire_double(struct strbuf *b, unsigned field, double v)
{
	uint64_t bits;
	char c[8];

	memcpy(&bits, &v, 8);
	for (int i = 0; i < 8; i++)	/* little-endian whatever the host */
		c[i] = (char)(bits >> (8 * i) & 0xff);
	tag(b, field, PBWIRE_I64);
	strbuf_put(b, c, 8);
}

void pbwire_bytes(struct strbuf *b, unsigned field, const void *p, size_t n)
{
	tag(b, field, PBWIRE_LEN);
	pbwire_varint(b, n);
	if (n)
		strbuf_put(b, p, n);
}

void pbwire_msg(struct strbuf *b, unsigned field, struct strbuf *m)
{
	pbwire_bytes(b, field, m->s, m->len);
	m->len = 0;
}
