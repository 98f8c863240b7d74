/*
 * Atomic output files: written to a temporary file beside the target and
 * renamed over it only once everything was written, flushed and synced,
 * so that a failed or interrupted run never leaves a half-written file.
 * The path "-" means stdout (written directly; errors still checked). A
 * file replaced keeps its mode. A device or FIFO (/dev/null, a named pipe,
 * /dev/stdout) is written in place, never replaced.
 *
 * Symlinks are followed (their target is replaced) only as the kernel's
 * protected_symlinks rule allows, whatever the sysctl says: a symlink is
 * followed, and a FIFO or a file written or replaced, only when it belongs
 * to the effective user or to the owner of its directory. So nobody who
 * can merely create files in a shared sticky directory (/tmp) can make
 * yardstick write where they choose. Every error message carries the
 * errno of the call that failed (a full disk is "No space left on
 * device", however late the write that met it).
 */
#ifndef YS_UTIL_FILEIO_H
#define YS_UTIL_FILEIO_H

#include <stdbool.h>
#include <stdio.h>

#include "util/error.h"

#include <sys/stat.h>

struct sink;

struct atomic_file {
	FILE *fp;		/* write here */
	char *path;		/* as given, for messages */
	char *dir, *base;	/* the target, symlinks resolved */
	char *tmp;		/* its temporary name in dir; NULL for stdout
				 * or a direct write */
	int dirfd, fd;
	struct sink *sink;	/* behind fp: keeps the write errno */
	bool direct;		/* a device or FIFO, written in place */
};

int atomic_open(struct atomic_file *af, const char *path, struct error *e);
/* Flush, close and rename into place. Returns 0 or -1 (file removed). */
int atomic_commit(struct atomic_file *af, struct error *e);
/* Give up: close and remove the temporary file. */
void atomic_abort(struct atomic_file *af);
/* Give up after a failed write: atomic_abort, with the message "cannot
 * write 'PATH': " and the errno of the write(2) that failed (EIO when no
 * write failed). Returns -1. */
int atomic_fail(struct atomic_file *af, struct error *e);

/* From a signal handler, to exit at once: remove the temporary file of
 * every atomic_file open now (their targets stay as they were).
 * Async-signal-safe. */
void atomic_unlink_temps(void);

/* Whether path could be written: opens it as atomic_open does and gives
 * up at once. For checking outputs before a long measurement. */
int atomic_check(const char *path, struct error *e);

/*
 * Whether a file or directory of owner st->st_uid may be trusted: it
 * belongs to the effective user (or, for root run by sudo, to SUDO_UID's
 * user, as git allows). error_owner fills the message refusing WHAT at
 * PATH because CULPRIT (PATH itself when NULL), whose stat is st, is not
 * trusted: "refusing WHAT 'PATH': 'CULPRIT' is owned by USER, not by
 * you, USER (...)". Returns -1.
 */
bool owner_trusted(const struct stat *st);
int error_owner(struct error *e, const char *what, const char *path,
		const char *culprit, const struct stat *st);

/*
 * Open path to read a file of bytes: a regular file, else -1 (errno
 * EINVAL). Never waits (a FIFO or a device that another program's maps
 * now name in place of its file is refused, not read). An fd, or -1.
 */
int file_open_regular(const char *path);

/*
 * Read a whole file ("-": stdin) into a NUL-terminated malloc'd buffer.
 * Every file read this way (results, folded profiles, request files, bodies)
 * is held in memory whole, so one of more than FILE_READ_MAX bytes, or an
 * endless one (/dev/zero, a pipe that never ends), is refused.
 */
#define FILE_READ_MAX ((size_t)256 << 20)
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
