/*
 * Parameter scans: "NAME=VALUES", VALUES a list "1,10,100" or a range
 * START:END[:STEP] / START:END:*FACTOR. `run --param` and libyardstick's
 * benchmark specs take the same syntax from here.
 */
#ifndef YS_UTIL_PARAMSCAN_H
#define YS_UTIL_PARAMSCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

struct scan {
	char *name;
	char **values;
	size_t n;
	bool numeric;	/* every value a number */
};

/* A range gives at most this many values. */
#define SCAN_MAX_VALUES 100000

/*
 * Parse arg ("NAME=VALUES") into s (zeroed first). Range values are
 * formatted without a decimal point when whole. On failure the message
 * says what is wrong ("'x' is not NAME=VALUES", "n: '5:1' is not
 * START:END[:STEP] ..."); s may hold a partial parse: scan_free it.
 */
int scan_parse(struct scan *s, const char *arg, struct error *e);
void scan_free(struct scan *s);

#endif
