/*
 * libFuzzer target of load's HTTP response parser: the first byte chooses
 * a HEAD request and the size of the pieces the rest arrives in. Whatever
 * the bytes, the parser never reads past what it was given, never consumes
 * more, and reaches the same verdict — error or not, state, status,
 * keep-alive, bytes consumed — fed in pieces as fed all at once: a
 * response must not parse differently because of how TCP cut it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load/http.h"

struct verdict {
	bool failed;
	struct http_resp p;
	size_t consumed;
};

/*
 * Feed data[0..size) in pieces of step bytes as the connection does:
 * what a call leaves unconsumed stays at the front of the buffer, the next
 * piece goes after it. Stops at an error, at HTTP_DONE, or at the end.
 */
static void run(const uint8_t *data, size_t size, size_t step, bool head,
		struct verdict *v)
{
	char *buf = malloc(size + 1);
	size_t have = 0, off = 0;

	if (!buf)
		abort();
	memset(v, 0, sizeof(*v));
	http_resp_start(&v->p, head);
	while (off < size && v->p.state != HTTP_DONE) {
		size_t add = size - off < step ? size - off : step;
		struct error e;
		long n;

		memcpy(buf + have, data + off, add);
		off += add;
		have += add;
		n = http_resp_feed(&v->p, buf, have, &e);
		if (n < 0) {
			if (!e.msg[0])
				abort();
			v->failed = true;
			break;
		}
		if ((size_t)n > have)
			abort();
		v->consumed += (size_t)n;
		memmove(buf, buf + n, have - (size_t)n);
		have -= (size_t)n;
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct verdict whole, pieces;
	bool head;
	size_t step;

	if (size < 1)
		return 0;
	head = data[0] & 1;
	step = (size_t)(data[0] >> 1) % 16 + 1;
	data++;
	size--;
	run(data, size, size ? size : 1, head, &whole);
	run(data, size, step, head, &pieces);
	/* A chunk line or the head that is cut may wait for bytes that the
	 * whole feed turns down at once, so only a settled verdict counts. */
	if (whole.failed != pieces.failed)
		abort();
	if (whole.failed)
		return 0;
	if (whole.p.state != pieces.p.state ||
	    whole.p.status != pieces.p.status ||
	    whole.p.keep_alive != pieces.p.keep_alive ||
	    whole.p.remaining != pieces.p.remaining ||
	    whole.consumed != pieces.consumed)
		abort();
	if (whole.consumed > size)
		abort();
	if (whole.p.state == HTTP_DONE &&
	    (whole.p.status < 200 || whole.p.status > 599))
		abort();
	if (whole.p.state != HTTP_HEAD &&
	    (whole.p.status < 100 || whole.p.status > 599))
		abort();
	/* EOF completes only a body delimited by the close. */
	if (http_resp_eof(&whole.p) !=
	    (pieces.p.state == HTTP_UNTIL_CLOSE))
		abort();
	return 0;
}
