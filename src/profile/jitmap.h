/*
 * JIT maps: the /tmp/perf-PID.map files that JIT compilers (node
 * --perf-basic-prof, python3 -X perf) write to name the code they make.
 * Anyone may put a file at that path, so it is read warily: never through
 * a symlink, never blocking on a FIFO, only a regular file of one link
 * owned by us or by root, with lines and size capped.
 */
#ifndef YS_PROFILE_JITMAP_H
#define YS_PROFILE_JITMAP_H

#include <stddef.h>
#include <stdint.h>

/* Names longer than this are skipped; files larger are ignored. */
#define JITMAP_LINE_MAX 4096
#define JITMAP_SIZE_MAX (64u << 20)

struct jitmap_entry {
	uint64_t start, end;
	char *name;			/* malloc'd */
};

/*
 * The entries of the map at path, in file order, in *out (malloc'd, free
 * with jitmap_free); returns how many. A file that is missing or not to be
 * trusted has none. "START SIZE name" lines (hex numbers; the name runs to
 * the end of the line) are read; others are skipped.
 */
size_t jitmap_read(const char *path, struct jitmap_entry **out);
void jitmap_free(struct jitmap_entry *v, size_t n);

#endif
