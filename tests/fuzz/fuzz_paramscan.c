/*
 * libFuzzer target of the parameter scans (src/util/paramscan.c), the
 * text of `run --param` and of libyardstick's benchmark specs: any
 * string either parses into a named scan of 1 to SCAN_MAX_VALUES values,
 * none of them NULL or empty, every one a number when the scan says it
 * is numeric, or fails with a message (a partial parse freed without a
 * leak). A range is bounded, so this ends quickly: libFuzzer's -timeout
 * catches one that does not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/number.h"
#include "util/paramscan.h"
#include "util/strutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	struct scan sc;
	struct error e;

	if (scan_parse(&sc, s, &e)) {
		if (!e.msg[0])
			abort();
	} else {
		if (!sc.name || !sc.name[0] || sc.n < 1 ||
		    sc.n > SCAN_MAX_VALUES)
			abort();
		for (size_t i = 0; i < sc.n; i++) {
			double v;

			if (!sc.values[i] || !sc.values[i][0])
				abort();
			if (sc.numeric && parse_double(sc.values[i], &v))
				abort();
		}
	}
	scan_free(&sc);
	free(s);
	return 0;
}
