/*
 * Files for the unit tests (after cmocka.h): write one, read one, check
 * what one holds, count what a directory holds; and doubles compared bit
 * for bit.
 */
#ifndef YS_TESTS_TESTFILES_H
#define YS_TESTS_TESTFILES_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"

static inline void put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_true(fputs(text, fp) >= 0);
	assert_int_equal(fclose(fp), 0);
}

/* The whole of path, malloc'd; the test fails when it cannot be read. */
static inline char *slurp(const char *path)
{
	struct error e;
	char *data;

	if (file_read_all(path, &data, NULL, &e))
		fail_msg("%s", e.msg);
	return data;
}

/* a and b the same bits: NaN equals NaN, 0 is not -0 */
static inline int same_double(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

static inline void assert_content(const char *path, const char *want)
{
	char *data;
	struct error e;

	if (file_read_all(path, &data, NULL, &e))
		fail_msg("%s", e.msg);
	assert_string_equal(data, want);
	free(data);
}

/* Entries of dir, but for those whose name starts with '.'. */
static inline int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

#endif
