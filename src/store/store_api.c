/*
 * The store's public functions (store.h) and the statement calls of the
 * shared code, dispatched through the store's backend table
 * (store_internal.h): SQLite for a file, PostgreSQL for a postgresql://
 * or postgres:// URL. Nothing above src/store/ knows which one it talks
 * to.
 */
#include "store/store_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/strutil.h"

bool store_is_pg(const char *path)
{
	return !strncmp(path, "postgresql://", 13) ||
	       !strncmp(path, "postgres://", 11);
}

char *store_shown(const char *path)
{
	return store_is_pg(path) ? store_pg_shown(path) : xstrdup(path);
}

int store_known_version(struct store *s, long long v, int *version,
			struct error *e)
{
	if (v > store_version || v < 0) {
		error_set(e, "'%s' was written by a newer yardstick: its "
			  "schema version is %lld, this yardstick knows up to "
			  "%d", s->path, v, store_version);
		return -STORE_ERR_SCHEMA;
	}
	*version = (int)v;
	s->version = (int)v;
	return 0;
}

int store_stmt(struct store *s, enum store_stmt_id id, const char *sql,
	       struct store_st **out)
{
	struct store_st *st = &s->stmts[id];
	int rc;

	if (!st->lite && !st->pg) {
		st->s = s;
		rc = s->be->prepare(s, sql, st);
		if (rc != SQLITE_OK)
			return rc;
	}
	rc = s->be->reset(st);
	*out = st;
	return rc;
}

static int bind_one(struct store_st *st, int i, char type, va_list *ap)
{
	const struct store_backend *be = st->s->be;
	const char *str;
	double d;

	switch (type) {
	case 'i':
		return be->bind_int(st, i, va_arg(*ap, long long));
	case 'n': {
		long long v = va_arg(*ap, long long);

		return v < 0 ? be->bind_null(st, i) : be->bind_int(st, i, v);
	}
	case 't':
		str = va_arg(*ap, const char *);
		return str ? be->bind_text(st, i, str) : be->bind_null(st, i);
	case 'd':
		d = va_arg(*ap, double);
		if (isnan(d))
			return be->bind_null(st, i);
		return be->bind_double(st, i, d);
	}
	return SQLITE_MISUSE;
}

int store_bind(struct store_st *st, const char *fmt, ...)
{
	va_list ap;
	int rc = SQLITE_OK;

	va_start(ap, fmt);
	for (int i = 0; fmt[i] && rc == SQLITE_OK; i++)
		rc = bind_one(st, i + 1, fmt[i], &ap);
	va_end(ap);
	return rc;
}

int store_step(struct store_st *st)
{
	return st->s->be->step(st);
}

int store_reset(struct store_st *st)
{
	return st->s->be->reset(st);
}

long long store_col_int(struct store_st *st, int col)
{
	return st->s->be->col_int(st, col);
}

double store_col_double(struct store_st *st, int col)
{
	return st->s->be->col_double(st, col);
}

const char *store_col_text(struct store_st *st, int col)
{
	return st->s->be->col_text(st, col);
}

bool store_col_null(struct store_st *st, int col)
{
	return st->s->be->col_null(st, col);
}

int store_step_done(struct store_st *st)
{
	int rc = store_step(st);

	if (rc == SQLITE_ROW)
		rc = SQLITE_MISUSE;
	else if (rc == SQLITE_DONE)
		rc = store_reset(st);
	return rc;
}

int store_step_id(struct store_st *st, long long *id)
{
	int rc = store_step(st);

	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? SQLITE_MISUSE : rc;
	*id = store_col_int(st, 0);
	rc = store_step(st);
	return rc == SQLITE_DONE ? store_reset(st) :
	       rc == SQLITE_ROW ? SQLITE_MISUSE : rc;
}

int store_exec(struct store *s, const char *sql)
{
	return s->be->exec(s, sql);
}

int store_begin(struct store *s, bool write)
{
	return s->be->begin(s, write);
}

/*
 * Reset every cached statement: one left on a row (a lookup that wanted
 * the first row only) would hold its read snapshot past the end of the
 * transaction (SQLite: and keep checkpoints from reaching it). reset
 * returns the last step's error, which its caller has already handled.
 */
static void reset_all(struct store *s)
{
	for (int i = 0; i < SQ_COUNT; i++)
		if (s->stmts[i].lite || s->stmts[i].pg)
			(void)s->be->reset(&s->stmts[i]);
}

int store_commit(struct store *s)
{
	reset_all(s);
	return s->be->commit(s);
}

void store_rollback(struct store *s)
{
	reset_all(s);
	s->be->rollback(s);
}

int store_fail(struct store *s, int rc, struct error *e)
{
	return s->be->fail(s, rc, e);
}

char *store_column_str(struct store_st *st, int col)
{
	const char *t = store_col_text(st, col);

	return t ? xstrdup(t) : NULL;
}

int store_open(struct store **out, const char *path, enum store_mode mode,
	       struct error *e)
{
	struct store *s = xcalloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	s->be = store_is_pg(path) ? &store_pg_backend : &store_sqlite_backend;
	s->path = xstrdup(path);
	s->busy_ms = STORE_BUSY_MS;
	s->mode = mode;
	ret = s->be->open(s, mode, e);
	if (ret) {
		store_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	s->be->close(s);
	free(s->made_dir);
	free(s->path);
	free(s);
}

bool store_close_discard(struct store *s)
{
	bool gone = s && s->made && s->be->discard && s->be->discard(s);

	store_close(s);
	return gone;
}

int store_save(struct store *s, const struct result *r, long long *id,
	       struct error *e)
{
	bool dup;

	return s->be->save(s, r, NULL, 0, false, id, &dup, e);
}

int store_save_to(const char *path, const struct result *r, long long *id,
		  bool *move, struct error *e)
{
	struct store *s;
	int ret;

	if (move)
		*move = false;
	if (!store_is_pg(path))
		return store_sqlite_save_to(path, r, id, move, e);
	ret = store_open(&s, path, STORE_CREATE, e);
	if (!ret) {
		ret = store_save(s, r, id, e);
		store_close(s);
	}
	return ret;
}

int store_flush(const char *path, size_t *moved, struct error *e)
{
	struct store *s;
	int ret = store_open(&s, path, STORE_WRITE, e);

	if (moved)
		*moved = ret ? 0 : s->ingested;
	if (!ret)
		store_close(s);
	return ret;
}

void store_flush_after_save(const char *path)
{
	struct error e;

	if (store_flush(path, NULL, &e))
		store_warn("%s; the results stay in '%s-log' until a command "
			   "can open the store", e.msg, path);
}

void store_set_busy_timeout(struct store *s, int ms)
{
	s->be->set_busy(s, ms);
	s->busy_ms = ms;
}

const char *store_path(const struct store *s)
{
	return s->path;
}

void store_test_wait(const char *dir, const char *id)
{
	char *tmp = xasprintf("%s/pid.tmp", dir);
	char *path = xasprintf("%s/pid", dir);
	FILE *f = fopen(tmp, "w");

	if (f) {
		fprintf(f, "%s\n", id);
		if (!fclose(f))
			(void)rename(tmp, path);
	}
	free(path);
	free(tmp);
	path = xasprintf("%s/go", dir);
	for (int i = 0; i < 6000 && access(path, F_OK); i++)
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	free(path);
}
