/*
 * libFuzzer target of the tracepoint format parser (profile/tracepoint.h):
 * any text either fails with a message naming what is missing, or gives
 * the field a size of 1 to 8 bytes; never a read past the text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/tracepoint.h"
#include "util/strutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	struct tp_format f;
	struct error e;

	if (tp_format_parse(s, "pid", &f, &e)) {
		if (!strstr(e.msg, "'ID:'") && !strstr(e.msg, "'pid'"))
			abort();
	} else if (f.size < 1 || f.size > 8) {
		abort();
	}
	free(s);
	return 0;
}
