/*
 * Atomic output files: written to a temporary file beside the target and
 * renamed over it only once everything was written and flushed, so that a
 * failed or interrupted run never leaves a half-written file. The path "-"
 * means stdout (written directly; errors still checked). A symlink is
 * followed (its target is replaced); a device or FIFO (/dev/null, a named
 * pipe) is written in place, never replaced.
 */
#ifndef YS_UTIL_FILEIO_H
#define YS_UTIL_FILEIO_H

#include <stdbool.h>
#include <stdio.h>

#include "util/error.h"

struct atomic_file {
	FILE *fp;		/* write here */
	char *path;
	char *tmp;		/* NULL for stdout or a direct write */
	bool direct;		/* a device or FIFO, written in place */
};

int atomic_open(struct atomic_file *af, const char *path, struct error *e);
/* Flush, close and rename into place. Returns 0 or -1 (file removed). */
int atomic_commit(struct atomic_file *af, struct error *e);
/* Give up: close and remove the temporary file. */
void atomic_abort(struct atomic_file *af);

/* Whether path could be written: opens it as atomic_open does and gives
 * up at once. For checking outputs before a long measurement. */
int atomic_check(const char *path, struct error *e);

/* Read a whole file into a NUL-terminated malloc'd buffer. */
int file_read_all(const char *path, char **data, size_t *len,
		  struct error *e);

/*
 * A file yardstick ships beside its binary (the heap agent, the spawner):
 * $ENV if set (an error if it names nothing usable), else NAME next to
 * this executable (a build tree), else in LIBDIR/yardstick/ beside the
 * executable's directory (an install, wherever its prefix was moved), else
 * in the configured prefix's LIBDIR/yardstick. mode is access(2)'s (R_OK,
 * X_OK). A malloc'd path, or NULL with a message naming where it looked.
 */
char *find_helper(const char *name, const char *env, int mode,
		  struct error *e);

#endif
