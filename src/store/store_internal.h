/*
 * What store.c (opening, migrations, saving) and store_query.c (loading,
 * history) share: the store itself, its cache of prepared statements, and
 * the one place that turns an SQLite result code into -STORE_ERR_* and a
 * message naming the file. Not part of the contract: only src/store/
 * includes it.
 *
 * A statement is prepared once per store, on first use, and reused by
 * every later save or query; store_stmt hands it back reset and unbound.
 */
#ifndef YS_STORE_STORE_INTERNAL_H
#define YS_STORE_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>

#include "store/store.h"
#include "util/dynlib.h"

/* SQLite, loaded with dlopen by store_open (util/dynlib.h), called
 * through this table: sqlite.sqlite3_step(st). */
#define STORE_SQLITE_FUNCTIONS(X)					\
	X(sqlite3_bind_double) X(sqlite3_bind_int64)			\
	X(sqlite3_bind_null) X(sqlite3_bind_text)			\
	X(sqlite3_busy_timeout) X(sqlite3_clear_bindings)		\
	X(sqlite3_close) X(sqlite3_column_double)			\
	X(sqlite3_column_int64) X(sqlite3_column_text)			\
	X(sqlite3_column_type) X(sqlite3_db_config)		\
	X(sqlite3_db_readonly)			\
	X(sqlite3_errmsg) X(sqlite3_errstr) X(sqlite3_exec)		\
	X(sqlite3_extended_result_codes) X(sqlite3_finalize)		\
	X(sqlite3_get_autocommit) X(sqlite3_last_insert_rowid)		\
	X(sqlite3_open_v2) X(sqlite3_prepare_v2)			\
	X(sqlite3_prepare_v3) X(sqlite3_reset) X(sqlite3_sleep)		\
	X(sqlite3_step) X(sqlite3_system_errno)
extern DYNLIB_TABLE(store_sqlite, STORE_SQLITE_FUNCTIONS) sqlite;

/* One slot per distinct SQL text in the cache. */
enum store_stmt_id {
	SQ_INS_RESULT,
	SQ_INS_SETTING,
	SQ_INS_BENCHMARK,
	SQ_INS_ARGUMENT,
	SQ_INS_PARAMETER,
	SQ_INS_EXIT,
	SQ_INS_UNSUPPORTED,
	SQ_INS_WARNING,
	SQ_INS_METRIC,
	SQ_INS_VALUE,
	SQ_REF_LATEST,
	SQ_REF_ID,
	SQ_REF_COMMIT,
	SQ_REF_BRANCH,
	SQ_GET_RESULT,
	SQ_GET_SETTINGS,
	SQ_GET_BENCHMARKS,
	SQ_GET_ARGUMENTS,
	SQ_GET_PARAMETERS,
	SQ_GET_EXITS,
	SQ_GET_UNSUPPORTED,
	SQ_GET_WARNINGS,
	SQ_GET_METRICS,
	SQ_GET_VALUES,
	SQ_HISTORY_NEWEST,
	SQ_HISTORY_OLDEST,
	SQ_LOG_PRESENT,
	SQ_LOG_SEQ,
	SQ_COUNT
};

struct store {
	sqlite3 *db;
	char *path;
	int busy_ms;
	enum store_mode mode;
	char *copy_dir;	/* a private copy being read (open_copy), or NULL */
	sqlite3_stmt *stmts[SQ_COUNT];
};

/*
 * The helpers below return SQLite result codes (SQLITE_OK is 0), so that a
 * chain of calls can stop at the first failure; the public functions turn
 * a failure into -STORE_ERR_* with store_fail, before anything else runs
 * on the connection (the message comes from sqlite3_errmsg).
 */

/* The cached statement for slot id, prepared from sql on first use, reset
 * and with its bindings cleared. */
int store_stmt(struct store *s, enum store_stmt_id id, const char *sql,
	       sqlite3_stmt **out);

/*
 * Bind parameters 1.. of st from the varargs as fmt says, one letter each:
 * 'i' long long, 't' const char * (NULL binds NULL), 'd' double (NaN
 * binds NULL, as SQLite itself would).
 */
int store_bind(sqlite3_stmt *st, const char *fmt, ...);

/* Step st, which must return no row (an INSERT), and reset it. */
int store_step_done(sqlite3_stmt *st);

/* Run sql, one or more statements returning no rows wanted. */
int store_exec(struct store *s, const char *sql);

/* Begin a read (write false: BEGIN, deferred) or a write (BEGIN
 * IMMEDIATE, which waits for the write lock up front) transaction. */
int store_begin(struct store *s, bool write);
/* Both reset every cached statement first (see reset_all). */
int store_commit(struct store *s);
/* Roll back after a failure. An error here only means SQLite has already
 * rolled back on its own, so there is nothing to report. */
void store_rollback(struct store *s);

/*
 * Turn the SQLite result code rc of a failed call into -STORE_ERR_* with
 * a message naming the file and the reason: NOTADB and CORRUPT give
 * CORRUPT; BUSY and LOCKED give LOCKED; for a store opened for writing,
 * anything else READONLY when the file or its directory is not writable;
 * SQLite's READONLY codes READONLY; the rest IO, with the errno of the
 * system call that failed when SQLite kept it (a full disk, a -shm file
 * that cannot be made).
 */
int store_fail(struct store *s, int rc, struct error *e);

/* A column as a malloc'd string, NULL when SQL NULL. */
char *store_column_str(sqlite3_stmt *st, int col);

/* The busy timeout of a new connection, and of the log's lock. */
#define STORE_BUSY_MS 10000

/* Insert every row of r, its id want (> 0) or the next (0), in the
 * caller's write transaction; *id receives it. An SQLite result code. */
int store_insert(struct store *s, const struct result *r, long long want,
		 long long *id);

/* The save log (store_log.c). Move the records of s's log into s (into a
 * private copy when copy, the log then left as it is). 0 or
 * -STORE_ERR_*. */
int store_log_ingest(struct store *s, bool copy, struct error *e);
/* Warnings of the store's work (store_set_warn). */
void store_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* store.c for store_log.c: whether the store at path may be appended to
 * without SQLite (store.c says what is checked), and, after a save
 * through SQLite, its file's header brought up to date for that check. */
bool store_fast_ok(const char *path);
void store_fresh_header(struct store *s);

/* store_path.c: the store's file and directory, before SQLite. */
bool store_not_writable(const char *path);	/* EACCES, EROFS, EPERM */
char *store_dir_of(const char *path);		/* malloc'd; "." without '/' */
/* -STORE_ERR_READONLY with the reason when the file or its directory is
 * not writable; else 0. */
int store_readonly_reason(const char *path, struct error *e);
/* The store's file checked (no links, not another user's, a regular
 * file), its directory made when mode creates. Returns 0 or
 * -STORE_ERR_*. */
int store_prepare_path(const char *path, enum store_mode mode,
		       struct error *e);

#endif
