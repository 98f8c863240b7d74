/*
 * The store's save log, PATH-log beside the database PATH: the format.
 * A save appends one framed record to it, without SQLite; every command
 * that opens the database first moves the log's records into it
 * (store_log.c). This part knows only bytes: the header, the framing, the
 * record of a result, and the walk over a log that may be damaged. It
 * uses no SQLite and no file, so that it can be fuzzed alone.
 *
 * Layout, every integer little-endian:
 *
 *   header (32 bytes): "YSTKLOG\n", u32 version (1), u32 records,
 *                      i64 next_id, u64 end
 *   record:            u32 magic "YSR1", u32 length of the payload,
 *                      i64 id, u32 crc, payload
 *
 * next_id is the id the next save takes (1 to LOG_ID_MAX); end is where
 * the records end (records is 0 exactly when end is the header's size):
 * bytes past it are an append that never finished (a writer killed before
 * it updated the header) and are written over by the next one. The crc
 * (CRC-32 of the payload, then the length and id fields) finds a record
 * damaged in place; the walk then skips to the next record that checks.
 */
#ifndef YS_STORE_STORE_LOG_H
#define YS_STORE_STORE_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result/result.h"

#define LOG_HEADER_SIZE 32
#define LOG_FRAME_SIZE 20
/* The largest payload a record may have. */
#define LOG_RECORD_MAX ((size_t)1 << 30)
/* The largest id a log may give: 2^53, the largest integer a JSON reader
 * (a double) keeps exact; far beyond any real store, and far enough from
 * INT64_MAX that no id arithmetic overflows. */
#define LOG_ID_MAX ((long long)1 << 53)
/* The largest end a header may give (the log is kept near its bound, 16
 * MiB, store_log.c; a record is at most LOG_RECORD_MAX). */
#define LOG_END_MAX ((unsigned long long)1 << 40)

struct log_header {
	unsigned records;	/* records before end */
	long long next_id;
	unsigned long long end;	/* offset past the last record */
};

void log_header_put(unsigned char buf[LOG_HEADER_SIZE],
		    const struct log_header *h);
/* 0, or -1 when buf is no log header of this version or one of its
 * fields is out of its range or inconsistent with another (a damaged
 * header): *why (when why is not NULL) then says which, else NULL. */
int log_header_get(const unsigned char *buf, size_t len,
		   struct log_header *h, const char **why);

/*
 * r as a framed record (frame and payload) in a malloc'd buffer of *len
 * bytes, with id 0: log_record_set_id puts the id in (and completes the
 * crc) once it is known. It keeps what store_save keeps, byte for byte
 * (strings as they are, every double's bits): summaries, comparisons and
 * fits are not kept.
 */
unsigned char *log_record_encode(const struct result *r, size_t *len);
void log_record_set_id(unsigned char *rec, long long id);
/* The frame of a record of len bytes whose payload is in place after
 * LOG_FRAME_SIZE bytes, with id 0 (what log_record_encode does last). */
void log_record_frame(unsigned char *rec, size_t len);

/* The whole length (frame and payload) of the record that checks at
 * buf[off] of len bytes, its id in *id; 0 when none does (damage, or the
 * end). Its payload is not decoded. */
size_t log_record_at(const unsigned char *buf, size_t len, size_t off,
		     long long *id);

/*
 * Walk the records in buf[0..len), the part of a log after its header
 * (base: its offset in the file, for the messages). Each record that
 * checks and decodes goes to on_record (the result is the callee's to
 * free with result_free); each damaged stretch (a bad frame, a crc that
 * does not match, a payload that does not decode) to on_damage, with its
 * offset and length in the file and why. Stops at the first non-zero
 * return of on_record, and returns it; else 0.
 */
struct log_walk {
	int (*on_record)(void *ctx, long long id, struct result *r);
	void (*on_damage)(void *ctx, size_t off, size_t len,
			  const char *why);
	void *ctx;
};
int log_walk(const unsigned char *buf, size_t len, size_t base,
	     const struct log_walk *w);

#endif
