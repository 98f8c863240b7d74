/*
 * libFuzzer target of the zone buffer's reader (src/util/zonebuf.c): the
 * buffer is memory the traced program writes, so any bytes over it must
 * read back without a fault, a hang or an unbounded allocation, and a
 * program's attempt to resize it (ftruncate, the SIGBUS of issue 25
 * case 1) must be refused by the seals. The input's first two bytes
 * choose the size to try (0: none) and how many threads the buffer has;
 * the rest is written over the mapping from its start, as a hostile
 * program could.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/zonebuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const off_t sizes[] = { 0, 1, 64, 4096, 1 << 20 };
	struct zb_snapshot s;
	struct zb_map m;
	struct error e;
	size_t n;

	if (size < 2)
		return 0;
	if (zb_create(&m, 1 + data[1] % 4, 256, 16, false, &e))
		abort();	/* a buffer this size is always made */
	/* the seals refuse every size but the buffer's own */
	if (sizes[data[0] % 5] && ftruncate(m.fd, sizes[data[0] % 5]) == 0 &&
	    (size_t)sizes[data[0] % 5] != m.size)
		abort();
	n = size - 2 < m.size ? size - 2 : m.size;
	memcpy(m.base, data + 2, n);
	if (zb_read(&m, &s, &e) == 0)
		zb_snapshot_free(&s);
	zb_close(&m);
	return 0;
}
