/*
 * A store its opening made, removed when nothing went into it
 * (store_close_discard): `store copy` stopped before its first result
 * leaves no empty store behind, and no directory it made for it.
 *
 * Only what this opening made (lite_open found no file: s->made; the
 * directories store_prepare_path made), and only when it can be told
 * that nobody else has it:
 *  1. no result in the database, read through our connection, after the
 *     files' sizes and times are taken;
 *  2. no other connection: SQLite's unix VFS has every connection hold a
 *     read lock on the -shm file's "dead man's switch" byte (DMS_BYTE)
 *     as long as it is open; with ours closed, a write lock on it is
 *     refused while another process has the store open (an opener that
 *     comes later waits for it, or is told the store is busy);
 *  3. no record in the log, under its exclusive flock (an append holds
 *     it: store_log.c);
 *  4. the database, its -wal and the log the same files, of the same
 *     sizes and times as in 1: a process that opened the store, saved
 *     and closed after our query is seen here;
 * and the locks of 2 and 3 held until every file is unlinked. What
 * cannot be told: a process that has opened the database file but not
 * yet its -shm, in the instant between 1 and the unlink, would go on with
 * a file no longer there. That is why only a store made moments ago by
 * this very process, into which nothing was copied, is removed.
 */
#include "store/store_internal.h"
#include "store/store_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/strutil.h"

/* os_unix.c: UNIX_SHM_DMS, (22 + SQLITE_SHM_NLOCK) * 4 + SQLITE_SHM_NLOCK,
 * the byte of the -shm every connection read-locks while open. */
#define DMS_BYTE 128

/* The files of a store beside path, in the order they are unlinked:
 * the database first, so that nobody opens it again meanwhile. */
static const char *const suffixes[] = { "", "-wal", "-shm", "-journal",
					"-log" };

/* What is compared before and after (note 4): size and time of the
 * database, its -wal and its log. */
struct seen {
	struct stat st[3];
	bool there[3];
};

static void look(const char *path, struct seen *v)
{
	static const char *const which[] = { "", "-wal", "-log" };

	for (int i = 0; i < 3; i++) {
		char *p = xasprintf("%s%s", path, which[i]);

		v->there[i] = lstat(p, &v->st[i]) == 0;
		free(p);
	}
}

static bool same(const struct seen *a, const struct seen *b)
{
	for (int i = 0; i < 3; i++) {
		const struct stat *x = &a->st[i], *y = &b->st[i];

		if (a->there[i] != b->there[i])
			return false;
		if (a->there[i] && (x->st_dev != y->st_dev ||
		    x->st_ino != y->st_ino || x->st_size != y->st_size ||
		    x->st_mtim.tv_sec != y->st_mtim.tv_sec ||
		    x->st_mtim.tv_nsec != y->st_mtim.tv_nsec))
			return false;
	}
	return true;
}

/* Whether s holds no result (note 1). */
static bool no_result(struct store *s)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite.sqlite3_prepare_v2(s->db, "SELECT 1 FROM results LIMIT 1",
				      -1, &st, NULL) != SQLITE_OK)
		return false;
	rc = sqlite.sqlite3_step(st);
	(void)sqlite.sqlite3_finalize(st);
	return rc == SQLITE_DONE;
}

/* fd on path's side file suffix, locked as note 2 or 3 says: 1 when
 * there is no such file, -1 when it cannot be locked (in use), else 0
 * with *fd set. */
static int lock_side(const char *path, const char *suffix, int *fd)
{
	char *p = xasprintf("%s%s", path, suffix);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = DMS_BYTE, .l_len = 1 };
	bool shm = !strcmp(suffix, "-shm");
	int ok;

	*fd = open(p, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	free(p);
	if (*fd < 0)
		return errno == ENOENT ? 1 : -1;
	ok = shm ? fcntl(*fd, F_SETLK, &fl) : flock(*fd, LOCK_EX | LOCK_NB);
	if (!ok && !shm) {
		struct stat st;

		/* a record in the log: a save went in that way */
		ok = fstat(*fd, &st) || st.st_size > LOG_HEADER_SIZE ? -1 : 0;
	}
	if (ok) {
		close(*fd);
		*fd = -1;
		return -1;
	}
	return 0;
}

/* The directories the opening made, deepest first, as far as they are
 * empty. */
static void remove_dirs(const char *path, const char *top)
{
	char *d = store_dir_of(path);
	size_t n = strlen(top);

	while (strlen(d) >= n && !strncmp(d, top, n) && !rmdir(d)) {
		char *up;

		if (strlen(d) == n)
			break;
		up = store_dir_of(d);
		free(d);
		d = up;
	}
	free(d);
}

bool store_sqlite_discard(struct store *s)
{
	struct seen before, after;
	int shm = -1, log = -1;
	bool empty, gone = false;

	look(s->path, &before);
	empty = s->db && s->mode != STORE_READ && !s->copy_dir &&
		no_result(s);
	s->be->close(s);
	if (!empty || lock_side(s->path, "-shm", &shm) < 0 ||
	    lock_side(s->path, "-log", &log) < 0)
		goto out_unlock;
	look(s->path, &after);
	if (!same(&before, &after) || !after.there[0] ||
	    after.st[0].st_dev != s->made_dev ||
	    after.st[0].st_ino != s->made_ino)
		goto out_unlock;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++) {
		char *p = xasprintf("%s%s", s->path, suffixes[i]);

		(void)unlink(p);
		free(p);
	}
	gone = true;
out_unlock:
	if (shm >= 0)
		close(shm);
	if (log >= 0)
		close(log);
	if (gone && s->made_dir)
		remove_dirs(s->path, s->made_dir);
	return gone;
}
