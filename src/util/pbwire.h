/*
 * The protocol buffers wire format, written: the one encoder of the
 * formats yardstick writes as protobuf (pprof's Profile in
 * profile/pprof.c, Perfetto's Trace in profile/trace_perfetto.c). A
 * message is built into a struct strbuf field by field; a nested message
 * is built in a buffer of its own and appended with pbwire_msg, which
 * empties that buffer for the next one. Field numbers are the caller's
 * (its .proto); nothing here knows a schema.
 *
 * The encoding (protobuf.dev/programming-guides/encoding): a field is its
 * tag, the varint field << 3 | wire type, then its value: a varint (7
 * bits a byte, least significant first, the high bit set on every byte
 * but the last), 8 bytes little-endian (fixed64, double), or a varint
 * length and that many bytes (strings, bytes, messages, packed repeated
 * fields). A negative int64 is its two's complement as a uint64: 10
 * bytes.
 */
#ifndef YS_UTIL_PBWIRE_H
#define YS_UTIL_PBWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "util/strutil.h"

enum pbwire_type {
	PBWIRE_VARINT = 0,
	PBWIRE_I64 = 1,
	PBWIRE_LEN = 2,
};

/* The longest varint, in bytes (a uint64 takes 64/7 rounded up). */
#define PBWIRE_VARINT_MAX 10

/* v as a varint (no tag): the element of a packed repeated field. */
void pbwire_varint(struct strbuf *b, uint64_t v);
/* A varint field, written even when v is 0. */
void pbwire_varint_field(struct strbuf *b, unsigned field, uint64_t v);
/* A varint field left out when v is 0, as proto3 leaves out a scalar
 * with its default value. */
void pbwire_uint(struct strbuf *b, unsigned field, uint64_t v);
/* A double field (fixed64, the IEEE 754 bits little-endian). */
void pbwire_double(struct strbuf *b, unsigned field, double v);
/* A length-delimited field of n bytes at p (p may be NULL when n is 0). */
void pbwire_bytes(struct strbuf *b, unsigned field, const void *p, size_t n);
/* The nested message m as field of b; m is emptied (its memory kept) for
 * the next message. */
void pbwire_msg(struct strbuf *b, unsigned field, struct strbuf *m);

#endif
