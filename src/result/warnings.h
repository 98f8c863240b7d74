/*
 * A result's warnings said once: the same warning of many benchmarks is
 * one line naming them. Warnings are "the same" when they differ only in
 * their numbers ("coefficient of variation 12.1%" and "... 69.3%"); the
 * line then shows each number's range over the benchmarks ("12.1-69.3%").
 */
#ifndef YS_RESULT_WARNINGS_H
#define YS_RESULT_WARNINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "result/result.h"

struct warning_group {
	char *text;		/* the warning, each number as its range */
	const char **names;	/* the benchmarks, in result order */
	size_t nnames;
};

/* r's warnings grouped, in the order each group first appears, leaving
 * out those skip says (skip NULL: none). Returns the number of groups;
 * *out is allocated (warnings_free). */
size_t warnings_group(const struct result *r, bool (*skip)(const char *w),
		      struct warning_group **out);
void warnings_free(struct warning_group *g, size_t n);

#endif
