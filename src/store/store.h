/*
 * The results store: every result set `run` (and `load`, `mem`, `bench`,
 * `trace`) produces, kept with every per-run value, for `history`,
 * `compare` and `gate`. A store is a SQLite file, or a PostgreSQL
 * database named by a postgresql:// or postgres:// URL (the shared store
 * of a team); the functions below work alike on both, and nothing outside
 * this module knows which one it talks to (store_internal.h has the
 * backends). This module is the only code that includes sqlite3.h and
 * libpq-fe.h.
 *
 * Concurrency: SQLite in WAL mode with a busy timeout, so that several
 * yardstick processes (8 concurrent `run`s in the tests) can write to one
 * store and none loses its result; PostgreSQL with one transaction per
 * save (32 concurrent writers in the tests). Errors name the file, or the
 * URL without its password.
 *
 * On SQLite, a save (store_save_to) is appended to the store's log,
 * PATH-log, without SQLite; store_open moves the log into the database
 * before anything else (store_log.c has the design). On PostgreSQL a save
 * goes to the server at once.
 */
#ifndef YS_STORE_STORE_H
#define YS_STORE_STORE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "result/result.h"
#include "util/error.h"

struct store;

/* Error kinds, returned negated by the functions below. */
enum store_err {
	STORE_ERR_IO = 1,	/* cannot create/open/read/write the file */
	STORE_ERR_CORRUPT = 2,	/* not a database, or a damaged one */
	STORE_ERR_LOCKED = 3,	/* still locked after the busy timeout */
	STORE_ERR_READONLY = 4,	/* the file or its directory is read-only */
	STORE_ERR_NOTFOUND = 5,	/* no such result (store_load_ref), no
				 * such file (store_open, create false) */
	STORE_ERR_SCHEMA = 6,	/* written by a newer yardstick */
	STORE_ERR_BADREF = 7,	/* a malformed or ambiguous reference */
	STORE_ERR_UNSAFE = 8,	/* owned by another user, or in a directory
				 * where another user could plant files */
	STORE_ERR_NOLIB = 9,	/* SQLite or libpq (dlopen'ed) cannot be
				 * loaded */
	STORE_ERR_CONNECT = 10,	/* the PostgreSQL server cannot be reached,
				 * refused us, or went away */
};

/* How store_open opens the file. */
enum store_mode {
	STORE_READ,		/* read only: the file must exist; works on a
				 * read-only file or directory */
	STORE_CREATE,		/* read and write, created if missing */
	STORE_WRITE,		/* read and write, the file must exist */
};

/*
 * The default path: $YARDSTICK_STORE if set and not empty, else
 * .yardstick/results.db under the git top-level directory of the current
 * directory (the nearest directory at or above it holding a .git
 * directory or file; git itself is not run), else under the current
 * directory. Absolute unless the current directory cannot be found.
 * malloc'd; NULL with a message (for -STORE_ERR_UNSAFE) when the
 * repository found belongs to another user (util/gitdir.h).
 */
char *store_default_path(struct error *e);

/*
 * Open the store at path as mode says (STORE_CREATE makes the file and
 * its directories when missing), migrating its schema forward in place
 * when writing. Returns 0 or -STORE_ERR_* with a message naming the file
 * and the reason: NOTFOUND when the file is missing (READ, WRITE);
 * READONLY when writing and the file or its directory cannot be written;
 * IO for a path that is no regular file (/dev/null), and for what the
 * system refused (the message carries its errno: disk full, ...);
 * CORRUPT for a file that is not a yardstick store or is damaged; SCHEMA
 * for a store of a newer yardstick (the message gives both versions);
 * UNSAFE when the file, its
 * -wal, -shm or -journal file or its directory belongs to another user
 * (root and the effective user are trusted) or the directory is writable
 * by every user; NOLIB when libsqlite3.so.0, loaded at the first open,
 * cannot be loaded. The busy timeout is 10 s.
 *
 * The records of the store's log are moved into the database first (for
 * STORE_READ too: as a writer when the user may write the store, else, and
 * when another process holds the database for more than a second, into a
 * private copy, the log left as it is). A damaged record is skipped with a
 * warning (store_set_warn).
 */
int store_open(struct store **out, const char *path, enum store_mode mode,
	       struct error *e);
void store_close(struct store *s);
/*
 * Close s as store_close does, and remove it when its opening made it
 * (STORE_CREATE found no file: the file, its -wal, -shm and -log, and the
 * directories the opening made) and it still holds nothing: no result,
 * no record in its log, and no other process has it open or wrote to it
 * since (store_discard.c says how that is told, and the one instant it
 * cannot be). A store that was there before, a PostgreSQL store (its
 * database is never made by an opening) and a store opened by another
 * process meanwhile are kept. Returns true when it removed the store.
 */
bool store_close_discard(struct store *s);

/*
 * Save r into the store at path, created if missing, as store_save does:
 * the same id, the same errors. Once the store has a log (its first save
 * through SQLite makes it), a save is a record appended to path's log
 * (PATH-log) without opening the database; every store_open moves the
 * log into the database first, so every reader sees every saved result.
 * The save that takes the log past its bound (1024 records or 16 MiB),
 * and every 64th after it, has the log moved: with move NULL it moves it
 * itself; else it sets *move and the caller does (store_flush, from
 * another process: saves go on appending meanwhile, up to twice the
 * bound, past which they go through SQLite). Returns 0 or -STORE_ERR_*.
 */
int store_save_to(const char *path, const struct result *r, long long *id,
		  bool *move, struct error *e);
/* Move the log of the store at path into its database (what every
 * opening does first; nothing for PostgreSQL, which has no log), made if
 * *moved (when not NULL) gets the number of results moved (a
 * result the store held already is not counted). Returns 0 or
 * -STORE_ERR_*. */
int store_flush(const char *path, size_t *moved, struct error *e);
/* store_flush after a save: a failure is a warning (store_set_warn's
 * callback), the results staying in the log, which later saves and
 * openings move. */
void store_flush_after_save(const char *path);
/*
 * The wait of the move a save starts (store flush --idle): until no save
 * has appended to the log at path for idle_ms, or the log holds half as
 * much again as its bound (saves go through SQLite at twice), or max_ms
 * have passed, so that a loop of saves (one-run `run`s measured one after
 * another, issue 30's sigma) is not measured beside the move. One process
 * waits per store: true when this one does, *hold then an open file that
 * keeps the others out until closed (after the move); false when another
 * waits already (it moves the log: nothing to do here). A log that cannot
 * be opened is not waited for (true, *hold -1): the move says why.
 */
bool store_log_wait_idle(const char *path, int idle_ms, int max_ms,
			 int *hold);
/* Whether a process waits in store_log_wait_idle for the store at path:
 * a save does not start another. */
bool store_log_move_waiting(const char *path);

/* Where the store's warnings go (a damaged record of the log skipped, a
 * log that cannot be read): fn(msg), msg in the style of the errors; NULL
 * (the default) drops them. */
void store_set_warn(void (*fn)(const char *msg));
/* The bound past which a save moves the log into the database itself
 * (store_save_to): records records or bytes bytes, 0 for the default
 * (1024 records, 16 MiB). For tests, which lower it so that savers move
 * the log while others save, read or are killed. */
void store_set_log_bound(unsigned records, unsigned long long bytes);
/* For tests: fn(path) called by every move of the log into the database
 * between reading the records and committing them, the log not locked
 * (what others save, or move, meanwhile); NULL (the default): none. */
void store_set_ingest_hook(void (*fn)(const char *path));

/* How long a call waits for another process's lock before failing with
 * -STORE_ERR_LOCKED; ms <= 0 fails at once. */
void store_set_busy_timeout(struct store *s, int ms);

/* path as it may be shown (a message, a log): a PostgreSQL URL without
 * its password, a file as it is. malloc'd. */
char *store_shown(const char *path);

/* The path the store was opened with, as store_shown shows it. */
const char *store_path(const struct store *s);

/*
 * Save a result (every benchmark, parameter, per-run value, exit code,
 * unsupported metric, warning, the machine, git state, tool version and
 * settings) in one transaction. *id receives its id (> 0; every save gets
 * a higher id than all before it, and ids are never reused). Summaries,
 * comparisons and complexity fits are not stored: they are recomputed
 * from the values. The store's log is moved in first, in the same
 * transaction, and made if missing (its header then holds the next id,
 * for store_save_to). Returns 0 or -STORE_ERR_*.
 */
int store_save(struct store *s, const struct result *r, long long *id,
	       struct error *e);

/*
 * Load a result set by reference into *r (result_init'ed by the callee,
 * summaries computed with the stored settings "seed" and
 * "bootstrap_resamples", else RESULT_READ_SEED and RESULT_READ_RESAMPLES,
 * as result_read_json does): "latest", a decimal id, "@COMMIT" (the
 * latest result whose commit starts with COMMIT, at least 4 hex digits)
 * or "branch:NAME" (the latest on that branch). Every per-run value comes
 * back bit for bit, NaN where it was NaN. Returns 0 or -STORE_ERR_*:
 * NOTFOUND when nothing matches, BADREF for a malformed reference or a
 * commit prefix matching several commits (the message lists them); both
 * messages name the reference. On failure *r is left empty (result_free
 * is still safe).
 */
int store_load_ref(struct store *s, const char *ref, struct result *r,
		   struct error *e);

/* One row of the history listing. */
struct store_entry {
	long long id;
	char *created, *commit, *branch, *machine;	/* may be NULL */
	bool dirty;
	char *benchmark;
	char *unit;			/* of the requested metric */
	char *kind;			/* of the result: "run", "bench" */
	struct summary summary;		/* of the requested metric:
					 * stats_summarize of values, no
					 * bootstrap (CIs collapse) */
	size_t max_draws;		/* the result's setting
					 * bootstrap_max_draws as
					 * stats_max_draws reads it */
	double *values;			/* the measured (finite) per-run
					 * values in run order, malloc'd,
					 * never NULL; n of them (0 when no
					 * run measured the metric) */
	size_t n;
};

struct store_query {
	const char *benchmark;	/* exact name, NULL: all */
	const char *metric;	/* default "wall_time" */
	const char *branch;	/* NULL: all */
	const char *machine;	/* hostname, NULL: all */
	size_t limit;		/* 0: no limit */
	bool oldest_first;	/* default newest first */
};

/*
 * The history: one entry per (result, benchmark) that has the metric,
 * filtered by q, newest result first (or oldest first), a result's
 * benchmarks in their saved order; at most q->limit entries. *entries is
 * malloc'd (NULL when *n is 0); free with store_entries_free. Returns 0 or
 * -STORE_ERR_*.
 */
int store_history(struct store *s, const struct store_query *q,
		  struct store_entry **entries, size_t *n, struct error *e);
void store_entries_free(struct store_entry *entries, size_t n);

/* How many benchmarks the results of one kind hold. */
struct store_kind_count {
	char *kind;
	size_t n;
};

/*
 * For each kind of result, in name order, the number of (result,
 * benchmark) pairs that q's benchmark, branch and machine filters match,
 * whatever their metrics (q's metric and limit are not used): what a
 * history that shows some metrics must account for. *out is malloc'd;
 * free with store_kind_counts_free. Returns 0 or -STORE_ERR_*.
 */
int store_history_kinds(struct store *s, const struct store_query *q,
			struct store_kind_count **out, size_t *n,
			struct error *e);
void store_kind_counts_free(struct store_kind_count *v, size_t n);
/* Free what one entry holds. */
void store_entry_clear(struct store_entry *en);

/* The rows of one metric in a history view. */
struct store_history_section {
	const char *metric;		/* the caller's string */
	struct store_entry *v;
	size_t n;
};

/* A history of several metrics, each row once (store_history_view). */
struct store_history_view {
	struct store_history_section *sec;	/* nonempty ones, in the
						 * order of the metrics */
	size_t nsec;
	/* per kind of result, the benchmarks no section shows (n 0 for a
	 * kind all shown); none counted when q->limit is set */
	struct store_kind_count *unshown;
	size_t nunshown;
};

/*
 * The history of q (its metric unused) for each of metrics
 * (NULL-terminated, kept by the caller) in turn: each (result, benchmark)
 * under the first metric it has; with no q->limit, what none of them
 * covers counted by kind. Returns 0 or -STORE_ERR_*; free with
 * store_history_view_free.
 */
int store_history_view(struct store *s, const struct store_query *q,
		       const char *const *metrics,
		       struct store_history_view *out, struct error *e);
void store_history_view_free(struct store_history_view *v);

/* What store_find looks for. */
struct store_find_query {
	const char *kind;		/* the result's kind: "roofline" */
	const char *metric;		/* a metric some benchmark of it has */
	const struct machine *machine;	/* hostname, cpu, cores and
					 * memory_bytes must equal these */
	/* NULL, or whether a benchmark of this name is worth loading to
	 * look at its result (the history lists every result with the
	 * metric: a cheap filter before the load) */
	bool (*candidate)(const char *benchmark);
};

/*
 * The newest result matching q into *r (loaded as store_load_ref does:
 * *r must hold nothing before), its id into *id. Returns 0; 1 when none
 * matches; or -STORE_ERR_* with e set. On failure *r holds nothing
 * (result_free is safe on it).
 */
int store_find(struct store *s, const struct store_find_query *q,
	       struct result *r, long long *id, struct error *e);

/*
 * Whether a result could be saved into the store at path now, checked
 * before a command measures anything, so that a store that would refuse
 * the result is found before the runs rather than after them. For a
 * PostgreSQL store: the server reached, the schema one this yardstick
 * knows (made when the database holds none yet), and the user allowed
 * to write it (not a read-only session, INSERT on every table). For a
 * file, nothing: 0. Returns 0 or -STORE_ERR_* as store_open does
 * (READONLY when the user may not write).
 */
int store_check_save(const char *path, struct error *e);

/*
 * A result the store at path could not keep (store_save_to failed),
 * written as result JSON (docs/result-format.md) to a new file in the
 * directory unsaved/ beside the store file, or, for a PostgreSQL store,
 * beside the local store (.yardstick/unsaved/ under the git top-level
 * or the current directory), named by the time and the process:
 * unsaved/20261128T111216Z-4242.json. *kept gets its path (malloc'd).
 * `yardstick store copy FILE STORE` saves it later (store_add). Returns
 * 0 or -STORE_ERR_* (*kept NULL).
 */
int store_keep_unsaved(const char *path, const struct result *r,
		       char **kept, struct error *e);

/*
 * Save r into s unless s holds a result with its fingerprint already
 * (then *dup is true and *id that result's id): a result read back from
 * a file is saved once, however often it is added. Returns 0 or
 * -STORE_ERR_*.
 */
int store_add(struct store *s, const struct result *r, long long *id,
	      bool *dup, struct error *e);

/*
 * Whether s holds every result saved into it, as far as can be known:
 * for SQLite, SQLite's quick_check (every page and row well formed) and
 * the ids against the save log's next id (results saved and then lost
 * with a damaged -wal show as ids missing at the top: SQLite itself
 * drops a -wal's frames from the first damaged one without a word); for
 * PostgreSQL, nothing (the server keeps its own). Reads the whole
 * database: about as long as reading every result. Returns 0, or
 * -STORE_ERR_CORRUPT with a message naming the store and the damage
 * (the ids missing), or another -STORE_ERR_*.
 */
int store_verify(struct store *s, struct error *e);

/* What store_copy did. */
struct store_copy_stats {
	size_t total;		/* the results of from */
	size_t copied, skipped, renumbered;
	size_t unreadable;	/* results of a damaged from that could not
				 * be read */
	/* told each copied result that took another id, or NULL */
	void (*on_renumber)(long long from, long long to, void *ctx);
	void *ctx;
	/* set (a stop signal's number) to stop before the next result, or
	 * NULL; stopped: it did (the results after are not copied) */
	volatile sig_atomic_t *stop;
	bool stopped;
};

/*
 * Copy every result of from into to (of either backend; to opened for
 * writing), oldest first, each in a transaction of its own: a result
 * whose fingerprint to already holds is skipped (copied before, by this
 * copy or another), so running it again copies nothing twice. A result
 * keeps its id when to has none with that id, else takes to's next one
 * (stats->on_renumber). Returns 0 or -STORE_ERR_*; what was copied before
 * a failure stays copied. from is checked first (store_verify): a
 * damaged from is copied as far as it can be read (a result that cannot
 * be read counted in stats->unreadable), and then -STORE_ERR_CORRUPT
 * returned with store_verify's message: a copy never loses results
 * silently. *stats->stop set stops it between two results (0 returned,
 * stats->stopped): every result in to is whole, those not copied yet
 * are not there, and the same copy again copies them.
 */
int store_copy(struct store *from, struct store *to,
	       struct store_copy_stats *stats, struct error *e);

#endif
