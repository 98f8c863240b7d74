/*
 * libFuzzer target of the store's save log (src/store/store_log_format.c):
 * any bytes, read as a whole log, walk to the end without a fault; every
 * damaged stretch lies inside the input, after the one before; every
 * record that decodes encodes to a record that decodes and encodes to
 * the same bytes again. log_record_at, at every offset, finds a record
 * only inside the input, and at offset 0 of a framed record finds it
 * whole, with its id. Each input is also framed as one record's payload
 * with its crc made right, so that the fuzzer reaches the decoder past
 * the crc.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_log.h"

struct ctx {
	size_t end, next;	/* the input's end, the next offset */
};

static void on_damage(void *arg, size_t off, size_t n, const char *why)
{
	struct ctx *c = arg;

	if (off < c->next || !n || off + n > c->end || !*why)
		abort();
	c->next = off + n;
}

static void no_damage(void *arg, size_t off, size_t n, const char *why)
{
	abort();
}

/* The record arg, decoded into r: r encodes to the same bytes. */
static int same_again(void *arg, long long id, struct result *r)
{
	size_t len;
	unsigned char *rec = log_record_encode(r, &len);

	log_record_set_id(rec, id);
	if (memcmp(rec, arg, len))
		abort();
	free(rec);
	result_free(r);
	return 1;
}

static int on_record(void *arg, long long id, struct result *r)
{
	struct ctx *c = arg;
	size_t len;
	unsigned char *rec = log_record_encode(r, &len);
	struct log_walk w = { same_again, no_damage, rec };

	log_record_set_id(rec, id);
	if (log_walk(rec, len, 0, &w) != 1)
		abort();
	free(rec);
	result_free(r);
	return 0;
}

/* log_record_at at every offset: a record only inside buf. */
static void each_offset(const unsigned char *buf, size_t len)
{
	for (size_t off = 0; off <= len; off++) {
		long long id;
		size_t n = log_record_at(buf, len, off, &id);

		if (n && (n < LOG_FRAME_SIZE || n > len - off))
			abort();
	}
}

static void walk(const unsigned char *buf, size_t len, size_t base)
{
	struct ctx c = { base + len, base };
	struct log_walk w = { on_record, on_damage, &c };

	(void)log_walk(buf, len, base, &w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct log_header h;
	unsigned char *rec;

	if (!log_header_get(data, size, &h, NULL))
		walk(data + LOG_HEADER_SIZE, size - LOG_HEADER_SIZE,
		     LOG_HEADER_SIZE);
	else
		walk(data, size, 0);
	rec = malloc(size + LOG_FRAME_SIZE);
	if (!rec)
		return 0;
	if (size)
		memcpy(rec + LOG_FRAME_SIZE, data, size);
	log_record_frame(rec, size + LOG_FRAME_SIZE);
	log_record_set_id(rec, 1);
	walk(rec, size + LOG_FRAME_SIZE, 0);
	{
		long long id = 0;

		if (log_record_at(rec, size + LOG_FRAME_SIZE, 0, &id) !=
		    size + LOG_FRAME_SIZE || id != 1)
			abort();
	}
	each_offset(data, size);
	free(rec);
	return 0;
}
