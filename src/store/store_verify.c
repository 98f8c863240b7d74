/*
 * Whether a store holds every result saved into it (store_verify): what
 * SQLite would otherwise hide. A -wal with damaged frames is replayed up
 * to the first bad frame and the rest dropped without a word; a damaged
 * page answers wrong or not at all. So: SQLite's quick_check (every
 * page's structure, every row well formed), then the ids, against the
 * save log's header, which holds the id the next save takes (store_log.c:
 * every save, appended or through SQLite, moves it on), so that results
 * saved and then lost show as ids missing at the top.
 */
#include "store/store_internal.h"
#include "store/store_log.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strutil.h"

/* The next id the log of the store at path holds, 0 when there is no
 * log or its header is damaged (the reading that moved the log in said
 * so). Read without the lock: a save at this moment only moves it on. */
static long long log_next_id(const char *path)
{
	unsigned char head[LOG_HEADER_SIZE];
	char *log = xasprintf("%s-log", path);
	int fd = open(log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct log_header h;
	bool ok = fd >= 0 &&
		  pread(fd, head, sizeof(head), 0) == (ssize_t)sizeof(head) &&
		  !log_header_get(head, sizeof(head), &h, NULL);

	if (fd >= 0)
		close(fd);
	free(log);
	return ok ? h.next_id : 0;
}

/* One row of one text column (NULL for none), malloc'd, into *out; an
 * SQLite result code. */
static int text_of(struct store *s, const char *sql, char **out)
{
	sqlite3_stmt *st;
	int rc = sqlite.sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	*out = NULL;
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite.sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *t = (const char *)sqlite.sqlite3_column_text(st, 0);

		*out = t ? xstrdup(t) : NULL;
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE) {
		rc = SQLITE_OK;
	}
	(void)sqlite.sqlite3_finalize(st);
	return rc;
}

/* The results saved and lost: the ids past the store's highest up to the
 * log's next id. 0, 1 with the message in e, or an SQLite result code's
 * -STORE_ERR_*. */
static int ids_missing(struct store *s, struct error *e)
{
	char *top = NULL;
	long long last, next = log_next_id(s->path);
	int rc = text_of(s, "SELECT coalesce(max(id), 0) FROM results", &top);

	last = top ? strtoll(top, NULL, 10) : 0;
	free(top);
	if (rc != SQLITE_OK)
		return store_fail(s, rc, e);
	if (next <= 1 || last >= next - 1)
		return 0;
	error_set(e, "'%s' is damaged: results %lld to %lld were saved into "
		  "it and are missing (its -wal or the database lost them, or "
		  "a save was killed before it finished)", s->path, last + 1,
		  next - 1);
	return 1;
}

void store_sqlite_warn_missing(struct store *s)
{
	struct error e;

	if (ids_missing(s, &e) == 1)
		store_warn("%s; `yardstick store copy` copies what is left",
			   e.msg);
}

int store_sqlite_verify(struct store *s, struct error *e)
{
	char *ok = NULL;
	int rc = text_of(s, "PRAGMA quick_check(1)", &ok);

	if (rc != SQLITE_OK) {
		free(ok);
		return store_fail(s, rc, e);
	}
	if (!ok || strcmp(ok, "ok")) {
		error_set(e, "'%s' is damaged (SQLite's check: %s)", s->path,
			  ok ? ok : "no answer");
		free(ok);
		return -STORE_ERR_CORRUPT;
	}
	free(ok);
	rc = ids_missing(s, e);
	return rc == 1 ? -STORE_ERR_CORRUPT : rc;
}

int store_verify(struct store *s, struct error *e)
{
	return s->be->verify ? s->be->verify(s, e) : 0;
}
