/*
 * The results store: opening (and creating) the SQLite file, migrating
 * its schema forward, the shared statement and error helpers, and the
 * default path. Saving is in store_save.c, loading and history in
 * store_query.c.
 *
 * The one thing to know before changing it: the schema is versioned by
 * PRAGMA user_version and only ever changes by appending a step to
 * migrations[] below — read the design notes above it first.
 */
#include "store/store_internal.h"
#include "store/store_log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/gitdir.h"
#include "util/strutil.h"

#define STORE_DIR ".yardstick"
#define STORE_FILE "results.db"
/* PRAGMA application_id of every yardstick store: "YSTK". */
#define STORE_APP_ID 0x5953544b

/*
 * Schema migrations — design notes.
 *
 *  1. PRAGMA user_version is the schema version. A new, empty file is
 *     version 0; migrations[v] takes a store from version v to v + 1, and
 *     the number of steps is the version this yardstick writes.
 *  2. A step is never edited once released: a change to the schema is a
 *     new step appended to the table, so that every older store can walk
 *     forward through the same steps a new one was built by.
 *  3. All pending steps and the new user_version are applied in one
 *     BEGIN IMMEDIATE transaction, and the version is read again inside
 *     it: when several processes open a new store at once, one migrates
 *     and the others, after waiting for the write lock, find nothing to
 *     do. A failed step leaves the store exactly as it was.
 *  4. A store whose version is above the last step's was written by a
 *     newer yardstick: it is refused (STORE_ERR_SCHEMA) rather than read
 *     half-understood or written in a shape the newer one cannot read.
 *  5. PRAGMA application_id marks a yardstick store. A database with
 *     another id, or with tables but neither id nor version, belongs to
 *     another program and is never touched.
 *  6. Per-run values and numeric settings live in columns declared
 *     without a type. A REAL column stores an integral double as an
 *     integer, which turns -0.0 into 0.0; an untyped column keeps every
 *     double bit for bit. NaN (a run that did not measure the metric) is
 *     stored as NULL and read back as NaN.
 *  7. Every table is a child of results, with ON DELETE CASCADE, so that
 *     deleting a result (by hand, or by a later `prune`) removes all of
 *     it. Positions (pos, run) keep the order of every list as saved.
 *  8. A store opened for reading (STORE_READ) is not migrated, so that a
 *     read-only store can be read: the queries must work on every older
 *     version. Steps so far only add indexes; a step that changes what
 *     the queries read must also teach them the older shape.
 */
static const char migrate_v1[] =
	"CREATE TABLE results ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" created TEXT, kind TEXT NOT NULL, tool_version TEXT,"
	" git_commit TEXT, git_branch TEXT, git_dirty INTEGER NOT NULL,"
	" hostname TEXT, os TEXT, cpu TEXT, cores INTEGER NOT NULL,"
	" memory_bytes INTEGER NOT NULL, governor TEXT,"
	" virtualized INTEGER NOT NULL);"
	"CREATE TABLE settings ("
	" result_id INTEGER NOT NULL REFERENCES results ON DELETE CASCADE,"
	" pos INTEGER NOT NULL, key TEXT NOT NULL, str TEXT, num,"
	" PRIMARY KEY (result_id, pos)) WITHOUT ROWID;"
	"CREATE TABLE benchmarks ("
	" id INTEGER PRIMARY KEY,"
	" result_id INTEGER NOT NULL REFERENCES results ON DELETE CASCADE,"
	" pos INTEGER NOT NULL, name TEXT NOT NULL,"
	" timeouts INTEGER NOT NULL, UNIQUE (result_id, pos));"
	"CREATE TABLE arguments ("
	" benchmark_id INTEGER NOT NULL REFERENCES benchmarks"
	" ON DELETE CASCADE, pos INTEGER NOT NULL, arg TEXT NOT NULL,"
	" PRIMARY KEY (benchmark_id, pos)) WITHOUT ROWID;"
	"CREATE TABLE parameters ("
	" benchmark_id INTEGER NOT NULL REFERENCES benchmarks"
	" ON DELETE CASCADE, pos INTEGER NOT NULL, name TEXT NOT NULL,"
	" value TEXT NOT NULL, PRIMARY KEY (benchmark_id, pos)) WITHOUT ROWID;"
	"CREATE TABLE exit_codes ("
	" benchmark_id INTEGER NOT NULL REFERENCES benchmarks"
	" ON DELETE CASCADE, run INTEGER NOT NULL, code INTEGER NOT NULL,"
	" PRIMARY KEY (benchmark_id, run)) WITHOUT ROWID;"
	"CREATE TABLE unsupported ("
	" benchmark_id INTEGER NOT NULL REFERENCES benchmarks"
	" ON DELETE CASCADE, pos INTEGER NOT NULL, metric TEXT NOT NULL,"
	" PRIMARY KEY (benchmark_id, pos)) WITHOUT ROWID;"
	"CREATE TABLE warnings ("
	" benchmark_id INTEGER NOT NULL REFERENCES benchmarks"
	" ON DELETE CASCADE, pos INTEGER NOT NULL, message TEXT NOT NULL,"
	" PRIMARY KEY (benchmark_id, pos)) WITHOUT ROWID;"
	"CREATE TABLE metrics ("
	" id INTEGER PRIMARY KEY,"
	" benchmark_id INTEGER NOT NULL REFERENCES benchmarks"
	" ON DELETE CASCADE, pos INTEGER NOT NULL, name TEXT NOT NULL,"
	" unit TEXT NOT NULL, UNIQUE (benchmark_id, pos));"
	"CREATE TABLE run_values ("
	" metric_id INTEGER NOT NULL REFERENCES metrics ON DELETE CASCADE,"
	" run INTEGER NOT NULL, value,"
	" PRIMARY KEY (metric_id, run)) WITHOUT ROWID;";

/* The lookups of store_load_ref's "@COMMIT" and "branch:NAME". */
static const char migrate_v2[] =
	"CREATE INDEX results_commit ON results (git_commit);"
	"CREATE INDEX results_branch ON results (git_branch);";

/* The fingerprint of every result (store_fingerprint), by which `store
 * copy` knows a result it copied before. NULL in the rows saved before:
 * a copy into the store fills them in first. */
static const char migrate_v3[] =
	"ALTER TABLE results ADD COLUMN fingerprint TEXT;"
	"CREATE INDEX results_fingerprint ON results (fingerprint);";

/* The process that measured each value (`bench --processes`: struct
 * metric.process), NULL when unknown; the queries read it from version 4
 * on (note 8). */
static const char migrate_v4[] =
	"ALTER TABLE run_values ADD COLUMN process INTEGER;";

const char *const store_migrations[] = { migrate_v1, migrate_v2, migrate_v3,
					  migrate_v4 };
#define STORE_VERSION ((int)(sizeof(store_migrations) / \
			     sizeof(store_migrations[0])))
const int store_version = STORE_VERSION;

/* The SQLite driver: the statement calls of store_backend. */
static int lite_prepare(struct store *s, const char *sql, struct store_st *st)
{
	return sqlite.sqlite3_prepare_v3(s->db, sql, -1,
					 SQLITE_PREPARE_PERSISTENT, &st->lite,
					 NULL);
}

static void lite_finalize(struct store_st *st)
{
	/* (NULL when SQLite could not even be loaded) */
	if (st->lite)
		(void)sqlite.sqlite3_finalize(st->lite);
	st->lite = NULL;
}

static int lite_reset(struct store_st *st)
{
	/* reset returns the error of the last step, already handled by
	 * whoever stepped it; the statement is reset either way. */
	sqlite.sqlite3_reset(st->lite);
	return sqlite.sqlite3_clear_bindings(st->lite);
}

static int lite_bind_int(struct store_st *st, int i, long long v)
{
	return sqlite.sqlite3_bind_int64(st->lite, i, v);
}

static int lite_bind_text(struct store_st *st, int i, const char *v)
{
	return sqlite.sqlite3_bind_text(st->lite, i, v, -1, SQLITE_STATIC);
}

static int lite_bind_double(struct store_st *st, int i, double v)
{
	return sqlite.sqlite3_bind_double(st->lite, i, v);
}

static int lite_bind_null(struct store_st *st, int i)
{
	return sqlite.sqlite3_bind_null(st->lite, i);
}

static int lite_step(struct store_st *st)
{
	return sqlite.sqlite3_step(st->lite);
}

static long long lite_col_int(struct store_st *st, int col)
{
	return sqlite.sqlite3_column_int64(st->lite, col);
}

static double lite_col_double(struct store_st *st, int col)
{
	return sqlite.sqlite3_column_double(st->lite, col);
}

static const char *lite_col_text(struct store_st *st, int col)
{
	return (const char *)sqlite.sqlite3_column_text(st->lite, col);
}

static bool lite_col_null(struct store_st *st, int col)
{
	return sqlite.sqlite3_column_type(st->lite, col) == SQLITE_NULL;
}

static int lite_exec(struct store *s, const char *sql)
{
	return sqlite.sqlite3_exec(s->db, sql, NULL, NULL, NULL);
}

static int lite_begin(struct store *s, bool write)
{
	return lite_exec(s, write ? "BEGIN IMMEDIATE" : "BEGIN");
}

static int lite_commit(struct store *s)
{
	return lite_exec(s, "COMMIT");
}

static void lite_rollback(struct store *s)
{
	if (!sqlite.sqlite3_get_autocommit(s->db))
		(void)lite_exec(s, "ROLLBACK");
}

/* The system's reason behind an SQLite I/O failure: the errno of the
 * failing call when SQLite kept one, else what the code says. */
static void os_reason(struct store *s, int rc, char *why, size_t len)
{
	int err = s->db ? sqlite.sqlite3_system_errno(s->db) : 0;

	if ((rc & 0xff) == SQLITE_FULL && (!err || err == ENOSPC))
		snprintf(why, len, "the disk is full");
	else if (err)
		snprintf(why, len, "%s", strerror(err));
	else
		snprintf(why, len, "%s", s->db ? sqlite.sqlite3_errmsg(s->db)
						: sqlite.sqlite3_errstr(rc));
}

/* The SQLite backend's error mapping (store.c): NOTADB and CORRUPT give
 * CORRUPT; BUSY and LOCKED give LOCKED; for a store opened for writing,
 * anything else READONLY when the file or its directory is not writable;
 * SQLite's READONLY codes READONLY; the rest IO, with the errno of the
 * system call that failed when SQLite kept it. */
static int store_sqlite_fail(struct store *s, int rc, struct error *e)
{
	char why[256];
	int ret;

	snprintf(why, sizeof(why), "%s",
		 s->db ? sqlite.sqlite3_errmsg(s->db) : sqlite.sqlite3_errstr(rc));
	switch (rc & 0xff) {
	case SQLITE_NOTADB:
		error_set(e, "'%s' is not a yardstick store (file is not a "
			  "database)", s->path);
		return -STORE_ERR_CORRUPT;
	case SQLITE_CORRUPT:
		error_set(e, "'%s' is damaged (%s)", s->path, why);
		return -STORE_ERR_CORRUPT;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		error_env(e, "'%s' is locked by another process (still busy "
			  "after %g s)", s->path, s->busy_ms / 1000.0);
		return -STORE_ERR_LOCKED;
	}
	if (s->mode != STORE_READ) {
		ret = store_readonly_reason(s->path, e);
		if (ret)
			return ret;
	}
	switch (rc & 0xff) {
	case SQLITE_READONLY:
		error_env(e, "cannot write to '%s': %s", s->path,
			  rc == SQLITE_READONLY ? "opened read-only" :
			  rc == SQLITE_READONLY_DBMOVED ? "the file was moved "
			  "or deleted while open" : why);
		return -STORE_ERR_READONLY;
	case SQLITE_FULL:
		os_reason(s, rc, why, sizeof(why));
		error_set(e, "cannot write to '%s': %s", s->path, why);
		return -STORE_ERR_IO;
	case SQLITE_CANTOPEN:
		os_reason(s, rc, why, sizeof(why));
		error_set(e, "cannot open '%s': %s", s->path, why);
		return -STORE_ERR_IO;
	case SQLITE_IOERR:
		os_reason(s, rc, why, sizeof(why));
		if (rc == SQLITE_IOERR_SHMOPEN || rc == SQLITE_IOERR_SHMSIZE ||
		    rc == SQLITE_IOERR_SHMMAP || rc == SQLITE_IOERR_SHMLOCK)
			error_set(e, "cannot use '%s': cannot make its shared "
				  "memory file '%s-shm': %s", s->path,
				  s->path, why);
		else
			error_set(e, "cannot use '%s': input/output error: %s",
				  s->path, why);
		return -STORE_ERR_IO;
	}
	error_set(e, "cannot use '%s': %s", s->path, why);
	return -STORE_ERR_IO;
}

/* One integer from a query returning one row. */
static int query_int(struct store *s, const char *sql, long long *out)
{
	sqlite3_stmt *st;
	int rc = sqlite.sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite.sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite.sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE) {
		rc = SQLITE_CORRUPT;
	}
	if (rc == SQLITE_OK)
		rc = sqlite.sqlite3_finalize(st);
	else
		sqlite.sqlite3_finalize(st);
	return rc;
}

/*
 * The schema version in *version, after checking (notes 4 and 5) that the
 * file is a yardstick store, or an empty database to become one, that
 * this yardstick can read. Returns 0 or -STORE_ERR_*.
 */
static int read_version(struct store *s, int *version, struct error *e)
{
	long long app = 0, ver = 0, tables = 0;
	bool own = sqlite.sqlite3_get_autocommit(s->db);
	int rc;

	/* One snapshot for the three, or a migration committed between
	 * them would look like another program's database. */
	rc = own ? store_begin(s, false) : SQLITE_OK;
	if (rc == SQLITE_OK)
		rc = query_int(s, "PRAGMA application_id", &app);
	if (rc == SQLITE_OK)
		rc = query_int(s, "PRAGMA user_version", &ver);
	if (rc == SQLITE_OK)
		rc = query_int(s, "SELECT count(*) FROM sqlite_schema",
			       &tables);
	if (rc == SQLITE_OK && own)
		rc = store_commit(s);
	if (rc != SQLITE_OK) {
		int ret = store_fail(s, rc, e);

		if (own)
			store_rollback(s);
		return ret;
	}
	if (app != STORE_APP_ID && (app || ver || tables)) {
		error_set(e, "'%s' is not a yardstick store (a database of "
			  "another program)", s->path);
		return -STORE_ERR_CORRUPT;
	}
	return store_known_version(s, ver, version, e);
}

/* Apply the steps from version to STORE_VERSION; in a transaction. */
static int apply_steps(struct store *s, int version)
{
	char sql[96];
	int rc = SQLITE_OK;

	for (int v = version; v < STORE_VERSION && rc == SQLITE_OK; v++)
		rc = store_exec(s, store_migrations[v]);
	if (rc != SQLITE_OK)
		return rc;
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; "
		 "PRAGMA user_version = %d", STORE_APP_ID, STORE_VERSION);
	rc = store_exec(s, sql);
	if (rc == SQLITE_OK)
		s->version = STORE_VERSION;
	return rc;
}

/* Migrate the store forward in place (notes 1-3). */
static int migrate(struct store *s, struct error *e)
{
	int version, ret, rc;

	ret = read_version(s, &version, e);
	if (ret || version == STORE_VERSION)
		return ret;
	rc = store_begin(s, true);
	if (rc != SQLITE_OK)
		return store_fail(s, rc, e);
	ret = read_version(s, &version, e);
	if (!ret) {
		rc = version < STORE_VERSION ? apply_steps(s, version) :
		     SQLITE_OK;
		if (rc == SQLITE_OK)
			rc = store_commit(s);
		if (rc != SQLITE_OK)
			ret = store_fail(s, rc, e);
	}
	if (ret)
		store_rollback(s);
	return ret;
}

/*
 * Switch a new store to WAL, which lets readers go on while one process
 * writes (the mode is kept in the file: later opens find it set). Where
 * the file system cannot do WAL (no shared memory, as on some network
 * file systems) SQLite keeps its rollback journal, slower under
 * contention but as safe, so the answer is not checked.
 *
 * The switch needs the file to itself, and when several processes open a
 * new store at once SQLite reports SQLITE_BUSY at once rather than wait
 * (each holds a read lock the other waits for): retry until the busy
 * timeout has passed.
 */
static int use_wal(struct store *s)
{
	int rc, waited = 0;

	for (;;) {
		rc = store_exec(s, "PRAGMA journal_mode = WAL");
		if ((rc & 0xff) != SQLITE_BUSY || waited >= s->busy_ms)
			return rc;
		(void)sqlite.sqlite3_sleep(5);	/* returns the time slept */
		waited += 5;
	}
}

/*
 * Durability — the choice, and why.
 *
 * A writer runs in WAL mode with synchronous = NORMAL and does not
 * checkpoint when it closes (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE): a save is
 * a transaction appended to the -wal file, with no fsync at all. What is
 * committed survives a crash or a kill of yardstick (the -wal is replayed
 * by the next opener); a crash of the machine or a power cut may lose the
 * results saved since the last checkpoint, and never damages the store
 * (every frame of the -wal is checksummed). A writer that leaves more
 * than STORE_WAL_PAGES pages in the -wal checkpoints it at close and
 * truncates it (two fsyncs, once every few saves), which bounds that
 * window and the -wal that every opener replays (SQLite rebuilds the -shm
 * of a first connection from it, about 0.5 ms a MiB). SQLite's own
 * checkpoint at a commit (wal_autocheckpoint) is off: it only doubled the
 * work, as the -wal is not restarted before the process ends and the next
 * one, replaying it, finds every frame in it again. The checkpoint at
 * close does not wait: a reader holding the -wal postpones the truncation
 * to a later save. Checkpointing at every close instead cost two fsyncs,
 * a directory sync and an unlink per saved result: most of the time of a
 * one-run `yardstick run`.
 *
 * So a store's -wal and -shm files stay beside it between runs. A reader
 * that cannot use them (a read-only directory without the -shm) reads a
 * private copy of the store and its -wal (open_copy), never the file alone.
 *
 * A save itself does not come here at all once the store has its log
 * (store_log.c): it appends a record to PATH-log, which has the same
 * durability (no fsync: a crash of yardstick loses nothing, one of the
 * machine may), and the next opening commits the records here.
 */
#define STORE_WAL_PAGES 256

/* The connection's settings: busy timeout, foreign keys (for ON DELETE
 * CASCADE); for writing, WAL, synchronous NORMAL, no checkpoint on close
 * and a bounded -wal (the notes above). */
static int configure(struct store *s, enum store_mode mode, struct error *e)
{
	int rc;

	sqlite.sqlite3_extended_result_codes(s->db, 1);
	rc = sqlite.sqlite3_busy_timeout(s->db, s->busy_ms);
	if (rc == SQLITE_OK && mode != STORE_READ &&
	    sqlite.sqlite3_db_readonly(s->db, "main") == 1)
		rc = SQLITE_READONLY;
	if (rc == SQLITE_OK)
		rc = store_exec(s, "PRAGMA foreign_keys = ON");
	if (rc == SQLITE_OK && mode != STORE_READ)
		rc = use_wal(s);
	/* In WAL mode NORMAL syncs at checkpoints, not at every commit;
	 * the checkpoints are store_close's (no autocheckpoint). */
	if (rc == SQLITE_OK && mode != STORE_READ)
		rc = store_exec(s, "PRAGMA synchronous = NORMAL; "
				"PRAGMA wal_autocheckpoint = 0");
	if (rc == SQLITE_OK && mode != STORE_READ)
		rc = sqlite.sqlite3_db_config(s->db,
				SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	return rc == SQLITE_OK ? 0 : store_fail(s, rc, e);
}

/* "file:PATH?immutable=1", PATH percent-encoded (a ? or # would end
 * it). */
static char *immutable_uri(const char *path)
{
	size_t len = strlen(path);
	char *uri = xmalloc(5 + 3 * len + 13), *o = uri;

	memcpy(o, "file:", 5);
	o += 5;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (isalnum(*p) || strchr("/-._~", *p))
			*o++ = (char)*p;
		else
			o += snprintf(o, 4, "%%%02X", *p);
	}
	memcpy(o, "?immutable=1", 13);
	return uri;
}

/* Copy the file from to a new file to (in a private directory).
 * Returns an SQLite result code. */
static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = SQLITE_OK;
	char buf[65536];
	ssize_t n = 0, w;

	if (in < 0)
		return errno == ENOENT ? SQLITE_OK : SQLITE_CANTOPEN;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0)
		rc = SQLITE_CANTOPEN;
	while (rc == SQLITE_OK) {
		n = read(in, buf, sizeof(buf));
		if (n == 0)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = SQLITE_IOERR;
		for (ssize_t done = 0; rc == SQLITE_OK && done < n; done += w) {
			w = write(out, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w <= 0)
				rc = SQLITE_IOERR;
		}
	}
	close(in);
	if (out >= 0 && close(out))
		rc = SQLITE_IOERR;
	return rc;
}

static const char *const copy_names[] = { "/s.db", "/s.db-wal", "/s.db-shm" };

/* Remove the private copy open_copy made (SQLite's files, then the
 * directory). */
static void remove_copy(struct store *s)
{
	if (!s->copy_dir)
		return;
	for (size_t i = 0; i < 3; i++) {
		char *p = xasprintf("%s%s", s->copy_dir, copy_names[i]);

		(void)unlink(p);
		free(p);
	}
	(void)rmdir(s->copy_dir);
	free(s->copy_dir);
	s->copy_dir = NULL;
}

/*
 * Read a private copy of the store and its -wal (durability notes above
 * configure): where the -wal holds results but no -shm can be used, SQLite
 * cannot read the -wal in place, and the file alone would hide them.
 */
static int open_copy(struct store *s)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/yardstick-store-XXXXXX",
			      tmp && *tmp ? tmp : "/tmp");
	char *db, *wal;
	int rc;

	if (!mkdtemp(dir)) {
		free(dir);
		return SQLITE_CANTOPEN;
	}
	s->copy_dir = dir;
	db = xasprintf("%s%s", dir, copy_names[0]);
	wal = xasprintf("%s-wal", s->path);
	rc = copy_file(s->path, db);
	if (rc == SQLITE_OK) {
		char *to = xasprintf("%s%s", dir, copy_names[1]);

		rc = copy_file(wal, to);
		free(to);
	}
	free(wal);
	if (rc == SQLITE_OK)
		rc = sqlite.sqlite3_open_v2(db, &s->db, SQLITE_OPEN_READWRITE,
					    NULL);
	/* a copy to be removed: no checkpoint (and its fsyncs) at close */
	if (rc == SQLITE_OK)
		rc = sqlite.sqlite3_db_config(s->db,
				SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	free(db);
	return rc;
}

/* The size of path's -wal file (frames not checkpointed), 0 if none. */
static off_t wal_size(const char *path)
{
	char *wal = xasprintf("%s-wal", path);
	struct stat st;
	off_t size = stat(wal, &st) == 0 ? st.st_size : 0;

	free(wal);
	return size;
}

/* Open s->path as mode says. A store in WAL mode needs its -shm file
 * even to be read; where it cannot be made (a read-only directory) and
 * there is no -wal the file is read as immutable: nobody can be writing
 * it there. With a -wal, a private copy of both is read. */
static int open_db(struct store *s, enum store_mode mode, struct error *e)
{
	int flags = mode == STORE_READ ? SQLITE_OPEN_READONLY :
		    SQLITE_OPEN_READWRITE |
		    (mode == STORE_CREATE ? SQLITE_OPEN_CREATE : 0);
	int rc = sqlite.sqlite3_open_v2(s->path, &s->db, flags, NULL);
	long long v;

	if (rc == SQLITE_OK && mode == STORE_READ) {
		char *dir = store_dir_of(s->path);
		bool dir_ro = store_not_writable(dir);

		free(dir);
		rc = dir_ro ? query_int(s, "PRAGMA schema_version", &v)
			    : SQLITE_OK;
		if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_NOTADB &&
		    (rc & 0xff) != SQLITE_CORRUPT) {
			char *uri = immutable_uri(s->path);

			(void)sqlite.sqlite3_close(s->db);
			s->db = NULL;
			rc = wal_size(s->path) > 0 ? open_copy(s) :
			     sqlite.sqlite3_open_v2(uri, &s->db,
					     flags | SQLITE_OPEN_URI, NULL);
			free(uri);
		}
	}
	/* On failure s->db is still a handle to close, holding the message
	 * (NULL only when SQLite could not even allocate it). */
	return rc == SQLITE_OK ? configure(s, mode, e) : store_fail(s, rc, e);
}

/* A private copy of the store and its -wal, read (open_copy). */
static int open_private(struct store *s, struct error *e)
{
	int rc = open_copy(s);

	return rc == SQLITE_OK ? configure(s, STORE_READ, e)
			       : store_fail(s, rc, e);
}

/* Whether path's log holds more than its header: records to move into
 * the store (or an append that never finished, to cut). */
static bool log_pending(const char *path)
{
	char *log = xasprintf("%s-log", path);
	struct stat st;
	bool pending = stat(log, &st) == 0 && st.st_size > LOG_HEADER_SIZE;

	free(log);
	return pending;
}

static bool log_writable(const char *path)
{
	char *log = xasprintf("%s-log", path);
	bool ok = faccessat(AT_FDCWD, log, W_OK, AT_EACCESS) == 0;

	free(log);
	return ok;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/*
 * Whether the first page of the file path says what store_open would
 * find: an SQLite database, a yardstick store (application id) at this
 * yardstick's version, not cut short (its page count, where valid, fits
 * in the file). A page in the -wal not yet checkpointed is not seen:
 * store_fresh_header checkpoints a new store once.
 */
static bool header_ours(const char *path)
{
	unsigned char h[100];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	unsigned long long page, pages;
	bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		  pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h);

	if (fd >= 0)
		close(fd);
	if (!ok || memcmp(h, "SQLite format 3", 16) ||
	    be32(h + 68) != STORE_APP_ID || be32(h + 60) != STORE_VERSION)
		return false;
	page = (unsigned long long)h[16] << 8 | h[17];
	page = page == 1 ? 65536 : page;
	pages = be32(h + 28);
	/* the page count is valid when written by the same change */
	return be32(h + 24) != be32(h + 92) ||
	       (unsigned long long)st.st_size >= page * pages;
}

/*
 * The fast save's checks (store_log.c), the same as store_open's for
 * writing: no symlink or file to refuse (prepare_path), the file and its
 * directory writable, and the file a store of this version. Anything
 * else goes through SQLite, which says what is wrong.
 */
bool store_fast_ok(const char *path)
{
	struct error e;

	return !store_prepare_path(path, STORE_WRITE, NULL, &e) &&
	       !store_readonly_reason(path, NULL) && header_ours(path);
}

void store_fresh_header(struct store *s)
{
	/* Once per store: page 1 of a new store lives in the -wal until
	 * a checkpoint. Busy or failing, a later save tries again. */
	if (!header_ours(s->path))
		(void)store_exec(s, "PRAGMA wal_checkpoint(PASSIVE)");
}

/* How long a reader waits to move the log into the store before it
 * reads a private copy instead (ingest). */
#define STORE_READER_WAIT_MS 1000

/*
 * Move the log into the store s, opened for writing. A reader (mode
 * READ) does not wait for a writer that holds the store (an outside
 * sqlite3, a long save): after STORE_READER_WAIT_MS it reads a private
 * copy with the log moved into it, as a reader that may not write does.
 */
static int ingest(struct store *s, enum store_mode mode, struct error *e)
{
	int busy = s->busy_ms, ret;

	if (mode != STORE_READ)
		return store_log_ingest(s, false, e);
	if (busy > STORE_READER_WAIT_MS)
		store_set_busy_timeout(s, STORE_READER_WAIT_MS);
	ret = store_log_ingest(s, false, e);
	if (ret == -STORE_ERR_LOCKED) {
		for (int i = 0; i < SQ_COUNT; i++)
			lite_finalize(&s->stmts[i]);
		(void)sqlite.sqlite3_close(s->db);
		s->db = NULL;
		s->mode = STORE_READ;
		ret = open_private(s, e);
		if (!ret)
			ret = migrate(s, e);
		if (!ret)
			ret = store_log_ingest(s, true, e);
	}
	if (s->db)
		store_set_busy_timeout(s, busy);
	return ret;
}

union store_sqlite sqlite;
static struct dynlib sqlite_lib = DYNLIB(sqlite, STORE_SQLITE_FUNCTIONS,
	"libsqlite3.so.0", "libsqlite3-0", "SQLite, which keeps the store");

static int lite_open(struct store *s, enum store_mode mode, struct error *e)
{
	const char *path = s->path;
	bool pending, copy = false;

	struct stat st;
	bool missing;
	int ret;

	if (dynlib_load(&sqlite_lib, e))
		return -STORE_ERR_NOLIB;
	/* what this opening makes, store_close_discard may remove */
	missing = mode == STORE_CREATE && lstat(path, &st) && errno == ENOENT;
	ret = store_prepare_path(path, mode, missing ? &s->made_dir : NULL, e);
	if (ret)
		return ret;
	/* A writer's -wal and -shm may already be there (durability notes
	 * above configure): SQLite would write through them, but a store in
	 * a directory we cannot write stays read-only to us, as when SQLite
	 * had to make them. */
	pending = log_pending(path);
	if (pending && mode == STORE_READ) {
		/* the log's records go in first: a reader that may write
		 * does it as a writer; one that may not, into a copy */
		if (!store_readonly_reason(path, NULL) && log_writable(path))
			s->mode = STORE_WRITE;
		else
			copy = true;
	}
	ret = s->mode != STORE_READ ? store_readonly_reason(path, e) : 0;
	if (!ret)
		ret = copy ? open_private(s, e) : open_db(s, s->mode, e);
	if (!ret) {
		int version;

		ret = s->mode == STORE_READ && !copy ?
		      read_version(s, &version, e) : migrate(s, e);
	}
	if (!ret && pending)
		ret = copy ? store_log_ingest(s, true, e) : ingest(s, mode, e);
	/* a reader is told of results saved and lost (store_verify) */
	if (!ret && mode == STORE_READ)
		store_sqlite_warn_missing(s);
	if (!ret && missing && stat(path, &st) == 0) {
		s->made = true;
		s->made_dev = st.st_dev;
		s->made_ino = st.st_ino;
	}
	return ret;
}

static void lite_set_busy(struct store *s, int ms)
{
	/* Cannot fail on an open connection: SQLite returns SQLITE_OK. */
	if (s->db)
		(void)sqlite.sqlite3_busy_timeout(s->db, ms);
}

static void lite_close(struct store *s)
{
	/* finalize returns the last step's error, handled when it happened;
	 * with every statement finalized close cannot be busy. Closing does
	 * not checkpoint: the -wal stays (durability notes above
	 * configure). */
	for (int i = 0; i < SQ_COUNT; i++)
		lite_finalize(&s->stmts[i]);
	/* The bound on the -wal (durability notes above configure); busy
	 * or failing, it is tried again at a later close. */
	if (s->db && s->mode != STORE_READ &&
	    wal_size(s->path) > (off_t)STORE_WAL_PAGES * 4096) {
		(void)sqlite.sqlite3_busy_timeout(s->db, 0);
		(void)store_exec(s, "PRAGMA wal_checkpoint(TRUNCATE)");
	}
	if (s->db)
		(void)sqlite.sqlite3_close(s->db);
	s->db = NULL;	/* closed once (store_sqlite_discard closes first) */
	remove_copy(s);
}

const struct store_backend store_sqlite_backend = {
	.name = "SQLite",
	.prepare = lite_prepare, .finalize = lite_finalize,
	.reset = lite_reset, .bind_int = lite_bind_int,
	.bind_text = lite_bind_text, .bind_double = lite_bind_double,
	.bind_null = lite_bind_null, .step = lite_step,
	.col_int = lite_col_int, .col_double = lite_col_double,
	.col_text = lite_col_text, .col_null = lite_col_null,
	.exec = lite_exec, .begin = lite_begin, .commit = lite_commit,
	.rollback = lite_rollback, .fail = store_sqlite_fail,
	.open = lite_open, .close = lite_close, .save = store_sqlite_save,
	.set_busy = lite_set_busy, .verify = store_sqlite_verify,
	.discard = store_sqlite_discard,
};

char *store_local_dir(struct error *e)
{
	struct gitdir g;
	char *cwd, *dir;
	int found;

	cwd = getcwd(NULL, 0);
	if (!cwd)
		return xstrdup(STORE_DIR);
	found = gitdir_find(cwd, &g, e);
	if (found < 0) {
		size_t len = e ? strlen(e->msg) : 0;

		if (e)
			snprintf(e->msg + len, sizeof(e->msg) - len, "; choose "
				 "a store with --store or YARDSTICK_STORE");
		error_mark(e, ERROR_ENV);	/* -STORE_ERR_UNSAFE */
		free(cwd);
		return NULL;
	}
	dir = xasprintf("%s/" STORE_DIR, strcmp(found ? cwd : g.top, "/") ?
			(found ? cwd : g.top) : "");
	if (!found)
		gitdir_free(&g);
	free(cwd);
	return dir;
}

char *store_default_path(struct error *e)
{
	const char *env = getenv("YARDSTICK_STORE");
	char *dir, *path;

	if (env && *env)
		return xstrdup(env);
	dir = store_local_dir(e);
	if (!dir)
		return NULL;
	path = xasprintf("%s/" STORE_FILE, dir);
	free(dir);
	return path;
}
