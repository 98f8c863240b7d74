/*
 * Tracepoint formats (tracepoint.h). The kernel writes these files, but
 * they are parsed as text that may lack what we look for: every number is
 * checked, a missing line is an error, never a default offset.
 */
#include "profile/tracepoint.h"

#include "util/fileio.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Where key starts in line (up to end), or NULL. */
static const char *find_in(const char *line, const char *end, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = line; p + klen <= end; p++)
		if (!memcmp(p, key, klen))
			return p;
	return NULL;
}

/* The unsigned number after key in line (up to its end), or -1. */
static int64_t number_after(const char *line, const char *end,
			    const char *key)
{
	const char *p = find_in(line, end, key);
	char *stop;
	unsigned long long v;

	if (!p)
		return -1;
	p += strlen(key);
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtoull(p, &stop, 10);
	if (errno || stop > end || v > INT64_MAX)
		return -1;
	return (int64_t)v;
}

/* Whether the declaration "field:TYPE NAME;" of line names field. */
static bool declares(const char *line, const char *end, const char *field)
{
	const char *semi = memchr(line, ';', (size_t)(end - line));
	size_t flen = strlen(field);
	const char *name;

	if (!semi || (size_t)(semi - line) < flen + 1)
		return false;
	name = semi - flen;
	return !memcmp(name, field, flen) &&
	       (name[-1] == ' ' || name[-1] == '\t' || name[-1] == '*');
}

int tp_format_parse(const char *text, const char *field, struct tp_format *f,
		    struct error *e)
{
	int64_t id = -1, off = -1, size = -1;

	for (const char *line = text; *line; ) {
		const char *end = strchr(line, '\n');

		if (!end)
			end = line + strlen(line);
		if (!strncmp(line, "ID:", 3))
			id = number_after(line, end, "ID: ");
		else if (find_in(line, end, "field:") &&
			 declares(line, end, field)) {
			off = number_after(line, end, "offset:");
			size = number_after(line, end, "size:");
		}
		line = *end ? end + 1 : end;
	}
	if (id < 0)
		return error_set(e, "no 'ID:' line in the tracepoint's format");
	if (off < 0 || size <= 0 || size > 8)
		return error_set(e, "no field '%s' (with its offset and a size "
				 "of 1 to 8 bytes) in the tracepoint's format",
				 field);
	f->id = (uint64_t)id;
	f->offset = (uint32_t)off;
	f->size = (uint32_t)size;
	return 0;
}

/* The tracefs directory: $YARDSTICK_TRACEFS when set (the tests), else
 * /sys/kernel/tracing or /sys/kernel/debug/tracing, the first with an
 * events directory; NULL when tracefs is not mounted. */
static const char *tp_tracefs(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing" };
	const char *env = getenv("YARDSTICK_TRACEFS");
	char path[4096];
	struct stat st;

	if (env && *env)
		return env;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", dirs[i]);
		/* tracefs is root's alone by default: there, but not for
		 * us, its format file's error says so */
		if ((!stat(path, &st) && S_ISDIR(st.st_mode)) ||
		    errno == EACCES)
			return dirs[i];
	}
	return NULL;
}

int tp_format_read(const char *event, const char *field, struct tp_format *f,
		   struct error *e)
{
	const char *dir = tp_tracefs();
	char path[4096], *text = NULL;
	size_t len;
	int ret;

	if (!dir)
		return error_set(e, "tracefs is not mounted (neither "
				 "/sys/kernel/tracing nor "
				 "/sys/kernel/debug/tracing has events)");
	snprintf(path, sizeof(path), "%s/events/%s/format", dir, event);
	if (file_read_all(path, &text, &len, e))
		return -1;
	ret = tp_format_parse(text, field, f, e);
	if (ret) {
		char why[sizeof(e->msg)];

		snprintf(why, sizeof(why), "%s", e->msg);
		error_set(e, "tracepoint '%s': %s", event, why);
	}
	free(text);
	return ret;
}
