/*
 * Reading a JIT map (jitmap.h): what perf reads, opened more warily than
 * perf opens it, since the file sits in a directory everyone can write.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/jitmap.h"
#include "util/strutil.h"

/*
 * Open a JIT map: never following a symlink (to /dev/zero, to someone's
 * file), never blocking (a FIFO), and only a regular file of one link
 * owned by us or by root. The profiled process runs as we do, so its map
 * is ours; a map of another user could name its symbols. NULL when there
 * is none to trust.
 */
static FILE *jitmap_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *fp;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    (st.st_uid != geteuid() && st.st_uid != 0) ||
	    st.st_size > (off_t)JITMAP_SIZE_MAX || !(fp = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	return fp;
}

/* Lines over JITMAP_LINE_MAX are skipped, and all beyond JITMAP_SIZE_MAX
 * bytes (the file may grow while read). */
size_t jitmap_read(const char *path, struct jitmap_entry **out)
{
	char line[JITMAP_LINE_MAX + 2];
	size_t n = 0, cap = 0, total = 0;
	bool skipping = false;
	FILE *fp = jitmap_open(path);

	*out = NULL;
	if (!fp)
		return 0;
	while (total <= JITMAP_SIZE_MAX && fgets(line, sizeof(line), fp)) {
		size_t len = strlen(line);
		bool whole = len && line[len - 1] == '\n';
		uint64_t start, size;
		int off = 0;
		bool was_skipping = skipping;

		total += len;
		/* a line over the limit comes in pieces: skip them all */
		skipping = !whole && len == sizeof(line) - 1;
		if (was_skipping || skipping)
			continue;
		line[strcspn(line, "\r\n")] = '\0';
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %n", &start, &size,
			   &off) < 2 || !off || !line[off] || !size ||
		    start + size < start)
			continue;
		*out = xgrow(*out, &cap, n + 1, sizeof(**out));
		(*out)[n++] = (struct jitmap_entry){
			.start = start, .end = start + size,
			.name = xstrdup(line + off),
		};
	}
	fclose(fp);
	return n;
}

void jitmap_free(struct jitmap_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}
