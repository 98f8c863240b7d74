/*
 * libFuzzer target of the expression parser (util/expr.h): any string
 * either parses or fails with "column N: ..." where N is a character of
 * the string or the one after its end; what parses evaluates, its
 * parameters set to 3, to a finite number or to a message of that form.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/expr.h"
#include "util/strutil.h"

/* Abort unless msg is "column N: ..." with 1 <= N <= chars + 1. */
static void check_message(const char *msg, const char *s)
{
	int col = 0, at = 0, chars = 0;

	for (const char *c = s; *c; c++)
		if (((unsigned char)*c & 0xC0) != 0x80)
			chars++;
	if (sscanf(msg, "column %d: %n", &col, &at) != 1 || at == 0 ||
	    col < 1 || col > chars + 1 || !msg[at])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	const char **names, **values;
	struct expr *x;
	struct error e;
	size_t n;
	double v;

	if (expr_parse(s, &x, &e)) {
		check_message(e.msg, s);
		free(s);
		return 0;
	}
	n = expr_param_count(x);
	names = xcalloc(n + 1, sizeof(char *));
	values = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		names[i] = expr_param_name(x, i);
		values[i] = "3";
		if (expr_param_column(x, i) < 1)
			abort();
	}
	if (expr_eval(x, names, values, n, &v, &e))
		check_message(e.msg, s);
	else if (!isfinite(v))
		abort();
	free(names);
	free(values);
	expr_free(x);
	free(s);
	return 0;
}
