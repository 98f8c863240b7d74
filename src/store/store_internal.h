/*
 * What the store's files share: the store itself, its backend table, its
 * cache of prepared statements, and the one place that turns a result
 * code into -STORE_ERR_* and a message naming the store. Not part of the
 * contract: only src/store/ includes it.
 *
 * A statement is prepared once per store, on first use, and reused by
 * every later save or query; store_stmt hands it back reset and unbound.
 */
#ifndef YS_STORE_STORE_INTERNAL_H
#define YS_STORE_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <sys/types.h>

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
	SQ_GET_VALUES_V3,	/* a store before version 4: no process */
	SQ_HISTORY_NEWEST,
	SQ_HISTORY_OLDEST,
	SQ_HISTORY_KINDS,
	SQ_LOG_PRESENT,
	SQ_LOG_SEQ,
	SQ_INS_RESULT_ID,
	SQ_FIND_FP,
	SQ_ID_TAKEN,
	SQ_ALL_IDS,
	SQ_NULL_FP,
	SQ_SET_FP,
	SQ_GET_FP,
	SQ_COUNT
};

/*
 * The backends. A store is SQLite (a file: store.c, store_log.c,
 * store_path.c) or PostgreSQL (a postgresql:// URL: store_pg.c); the
 * public functions of store.h dispatch through the store's backend table,
 * and the shared code above the driver (saving in store_save.c, loading
 * and history in store_query.c, copying in store_copy.c) runs the same
 * SQL on both through the statement calls below: SQL written once, in
 * SQLite's dialect with ? placeholders, which the PostgreSQL driver
 * translates when it prepares it (store_sql_pg).
 *
 * The calls return SQLite result codes for both backends (SQLITE_OK,
 * SQLITE_ROW, SQLITE_DONE, an error), so that a chain of calls can stop at
 * the first failure; the public functions turn a failure into
 * -STORE_ERR_* with store_fail, whose message comes from the backend.
 */
struct store_st;

struct store_backend {
	const char *name;
	/* the statement calls (store_stmt and below) */
	int (*prepare)(struct store *s, const char *sql, struct store_st *st);
	void (*finalize)(struct store_st *st);
	int (*reset)(struct store_st *st);	/* also clears bindings */
	int (*bind_int)(struct store_st *st, int i, long long v);
	int (*bind_text)(struct store_st *st, int i, const char *v);
	int (*bind_double)(struct store_st *st, int i, double v);
	int (*bind_null)(struct store_st *st, int i);
	int (*step)(struct store_st *st);
	long long (*col_int)(struct store_st *st, int col);
	double (*col_double)(struct store_st *st, int col);
	const char *(*col_text)(struct store_st *st, int col);
	bool (*col_null)(struct store_st *st, int col);
	int (*exec)(struct store *s, const char *sql);
	int (*begin)(struct store *s, bool write);
	int (*commit)(struct store *s);
	void (*rollback)(struct store *s);
	int (*fail)(struct store *s, int rc, struct error *e);
	/* the store: open (s->path set), close, and a save of r in one
	 * transaction, as store_insert_unique says */
	int (*open)(struct store *s, enum store_mode mode, struct error *e);
	void (*close)(struct store *s);
	int (*save)(struct store *s, const struct result *r, const char *fp,
		    long long want, bool unique, long long *id, bool *dup,
		    struct error *e);
	/* whether a save could go in now, beyond what open checked (the
	 * rights to write); NULL: nothing more to check */
	int (*check_write)(struct store *s, struct error *e);
	/* store_verify; NULL: nothing to check */
	int (*verify)(struct store *s, struct error *e);
	void (*set_busy)(struct store *s, int ms);
	/* store_close_discard before store_close: close the connection and
	 * remove the store when its opening made it and it holds nothing;
	 * NULL: never removed */
	bool (*discard)(struct store *s);
};

extern const struct store_backend store_sqlite_backend;
extern const struct store_backend store_pg_backend;

/* A prepared statement of either backend. */
struct store_st {
	struct store *s;
	sqlite3_stmt *lite;		/* SQLite */
	struct store_pg_stmt *pg;	/* PostgreSQL (store_pg.c) */
};

struct store {
	const struct store_backend *be;
	sqlite3 *db;			/* SQLite */
	struct store_pg *pg;		/* PostgreSQL (store_pg.c) */
	char *path;	/* the file, or the URL without its password */
	int busy_ms;
	enum store_mode mode;
	char *copy_dir;	/* a private copy being read (open_copy), or NULL */
	/* the schema version, as last read or migrated to: a store opened
	 * for reading is not migrated, and the queries read its shape */
	int version;
	/* results the openings moved from the log into it (store_flush) */
	size_t ingested;
	/* what this opening made (STORE_CREATE found no file): the file, by
	 * its device and inode, and the first directory it made (made_dir,
	 * or NULL), which store_close_discard may remove (store_discard.c) */
	bool made;
	dev_t made_dev;
	ino_t made_ino;
	char *made_dir;
	struct store_st stmts[SQ_COUNT];
};

/* The cached statement for slot id, prepared from sql on first use, reset
 * and with its bindings cleared. */
int store_stmt(struct store *s, enum store_stmt_id id, const char *sql,
	       struct store_st **out);

/*
 * Bind parameters 1.. of st from the varargs as fmt says, one letter each:
 * 'i' long long, 'n' long long (a negative one binds NULL), 't' const
 * char * (NULL binds NULL), 'd' double (NaN binds NULL, as SQLite itself
 * would).
 */
int store_bind(struct store_st *st, const char *fmt, ...);

/* Step st, which must return no row (an INSERT), and reset it. */
int store_step_done(struct store_st *st);
/* Step st, an INSERT ... RETURNING id: *id gets it; st reset. */
int store_step_id(struct store_st *st, long long *id);

/* The statement calls through st's backend. */
int store_step(struct store_st *st);
int store_reset(struct store_st *st);
long long store_col_int(struct store_st *st, int col);
double store_col_double(struct store_st *st, int col);
const char *store_col_text(struct store_st *st, int col);
bool store_col_null(struct store_st *st, int col);

/* Run sql, one or more statements returning no rows wanted. */
int store_exec(struct store *s, const char *sql);

/* Begin a read (write false) or a write transaction (SQLite: BEGIN
 * IMMEDIATE, which waits for the write lock up front). */
int store_begin(struct store *s, bool write);
/* Both reset every cached statement first (see reset_all). */
int store_commit(struct store *s);
/* Roll back after a failure; nothing to report. */
void store_rollback(struct store *s);

/* Turn the result code rc of a failed call into -STORE_ERR_* with a
 * message naming the store and the reason (the backend's fail). */
int store_fail(struct store *s, int rc, struct error *e);

/* A column as a malloc'd string, NULL when SQL NULL. */
char *store_column_str(struct store_st *st, int col);


/* Whether path names a PostgreSQL store (postgresql:// or postgres://). */
bool store_is_pg(const char *path);
/* A PostgreSQL URL without its password (store_shown). */
char *store_pg_shown(const char *url);

/* The schema migrations (store.c), in SQLite's dialect; the PostgreSQL
 * backend applies the same steps translated (store_sql_pg). */
extern const char *const store_migrations[];
extern const int store_version;
/* v, a store's schema version, in *version when this yardstick knows it;
 * else -STORE_ERR_SCHEMA, the message giving both versions. */
int store_known_version(struct store *s, long long v, int *version,
			struct error *e);


/*
 * The fingerprint of r (store_copy.c): 32 hex digits of a 128-bit hash
 * of everything a save keeps, in the order store_insert keeps it, so
 * that the same result has the same fingerprint in every store and after
 * any number of copies. Kept in results.fingerprint (schema version 3).
 */
void store_fingerprint(const struct result *r, char out[33]);

/*
 * Insert r, its fingerprint fp (NULL: store_fingerprint's), in the
 * caller's write transaction; when unique (store_copy.c), not if a result
 * with that fingerprint is there (then *id is that one's and *dup true):
 * with the id want when want > 0 and free, else with next when next > 0,
 * else the backend's next id. An SQLite result code.
 */
int store_insert_unique(struct store *s, const struct result *r,
			const char *fp, long long want, long long next,
			bool unique, long long *id, bool *dup);

/* Load every row of result id into r (result_init'ed), in the caller's
 * transaction, without summaries (store_query.c). An SQLite result code:
 * SQLITE_CORRUPT when there is no such result. */
int store_load_id(struct store *s, long long id, struct result *r);

/* The busy timeout of a new connection, and of the log's lock. */
#define STORE_BUSY_MS 10000

/* Insert every row of r, its id want (> 0) or the next (0), its
 * fingerprint fp (NULL: store_fingerprint's), in the caller's write
 * transaction; *id receives it. An SQLite result code. */
int store_insert(struct store *s, const struct result *r, const char *fp,
		 long long want, long long *id);

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
/* store_verify.c: the SQLite backend's verify. */
int store_sqlite_verify(struct store *s, struct error *e);
/* Its cheap half, for every reader: a warning (store_warn) naming the
 * results saved into s and missing from it. */
void store_sqlite_warn_missing(struct store *s);
/* store_log.c: the SQLite backend's save and save_to. */
int store_sqlite_save(struct store *s, const struct result *r,
		      const char *fp, long long want, bool unique,
		      long long *id, bool *dup, struct error *e);
int store_sqlite_save_to(const char *path, const struct result *r,
			 long long *id, bool *move, struct error *e);

/*
 * The tests' pauses (YARDSTICK_TEST_STORE_PAUSE in store_pg.c's save,
 * YARDSTICK_TEST_COPY_PAUSE in store_copy): id written to DIR/pid (whole:
 * renamed into place), then a wait, up to 60 s, for the file DIR/go.
 */
void store_test_wait(const char *dir, const char *id);

/* store_discard.c: the SQLite backend's discard (store_close_discard):
 * s's files and the directories its opening made removed, when it holds
 * nothing and nobody else has it open; s's connection closed either
 * way. true when removed. */
bool store_sqlite_discard(struct store *s);

/* store_path.c: the store's file and directory, before SQLite. */
bool store_not_writable(const char *path);	/* EACCES, EROFS, EPERM */
char *store_dir_of(const char *path);		/* malloc'd; "." without '/' */
/* The directory of the local store, .yardstick under the git top-level
 * directory or the current directory (store_default_path without
 * $YARDSTICK_STORE), malloc'd; NULL with a message as it says. */
char *store_local_dir(struct error *e);
/* -STORE_ERR_READONLY with the reason when the file or its directory is
 * not writable; else 0. */
int store_readonly_reason(const char *path, struct error *e);
/* The store's file checked (no links, not another user's, a regular
 * file), its directory made when mode creates; *made (when made is not
 * NULL and NULL on entry) gets the first directory it made after the
 * last one that was there, malloc'd: those below it it made too.
 * Returns 0 or -STORE_ERR_*. */
int store_prepare_path(const char *path, enum store_mode mode, char **made,
		       struct error *e);
/* Those checks of store_prepare_path(path, STORE_CREATE) that are about
 * the directory of path (made when missing) and the way to it, not the
 * file: where a store refused for its file's mode keeps its results
 * (store_unsaved.c). */
int store_prepare_dir(const char *path, struct error *e);

#endif
