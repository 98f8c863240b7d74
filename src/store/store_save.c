/*
 * Saving a result: every row of it inserted through the store's cached
 * statements, inside the BEGIN IMMEDIATE transaction of store_save or of
 * the log's ingestion (store_log.c), so that a save is all or nothing and
 * other processes see either none of it or all of it.
 *
 * BEGIN IMMEDIATE takes the write lock before the first insert: a writer
 * that must wait does so there, under the busy timeout, and never fails
 * half way through with a lock it cannot upgrade. The per-run values are
 * the bulk (runs x metrics rows), so their loop binds only what changes.
 */
#include "store/store_internal.h"

#include <math.h>

/* The results row, with the id want (> 0), or the next (0: NULL gives
 * AUTOINCREMENT's). */
static int save_head(struct store *s, const struct result *r,
		     long long want, long long *id)
{
	const struct machine *m = &r->machine;
	sqlite3_stmt *st;
	int rc;

	rc = store_stmt(s, SQ_INS_RESULT, "INSERT INTO results (created, "
			"kind, tool_version, git_commit, git_branch, git_dirty,"
			" hostname, os, cpu, cores, memory_bytes, governor, "
			"virtualized, id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			&st);
	if (rc == SQLITE_OK)
		rc = store_bind(st, "tttttitttiiti", r->created, r->kind,
				r->tool_version, r->git.commit, r->git.branch,
				(long long)r->git.dirty, m->hostname, m->os,
				m->cpu, (long long)m->cores,
				/* Above 2^63 wraps, and wraps back on load. */
				(long long)m->memory_bytes, m->governor,
				(long long)m->virtualized);
	if (rc == SQLITE_OK && want > 0)
		rc = sqlite.sqlite3_bind_int64(st, 14, want);
	if (rc == SQLITE_OK)
		rc = store_step_done(st);
	*id = sqlite.sqlite3_last_insert_rowid(s->db);
	return rc;
}

static int save_settings(struct store *s, const struct result *r,
			 long long id)
{
	sqlite3_stmt *st;
	int rc;

	rc = store_stmt(s, SQ_INS_SETTING, "INSERT INTO settings (result_id,"
			" pos, key, str, num) VALUES (?,?,?,?,?)", &st);
	for (size_t i = 0; i < r->nsettings && rc == SQLITE_OK; i++) {
		const struct setting *set = &r->settings[i];

		rc = store_bind(st, "iittd", id, (long long)i, set->key,
				set->str, set->str ? NAN : set->num);
		if (rc == SQLITE_OK)
			rc = store_step_done(st);
	}
	return rc;
}

/* Rows (benchmark_id, pos, text) of one of the string-list tables. */
static int save_strings(struct store *s, enum store_stmt_id slot,
			const char *sql, long long bid, char *const *v,
			size_t n)
{
	sqlite3_stmt *st;
	int rc;

	rc = store_stmt(s, slot, sql, &st);
	for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
		rc = store_bind(st, "iit", bid, (long long)i, v[i]);
		if (rc == SQLITE_OK)
			rc = store_step_done(st);
	}
	return rc;
}

static int save_params(struct store *s, const struct benchmark *b,
		       long long bid)
{
	sqlite3_stmt *st;
	int rc;

	rc = store_stmt(s, SQ_INS_PARAMETER, "INSERT INTO parameters "
			"(benchmark_id, pos, name, value) VALUES (?,?,?,?)",
			&st);
	for (size_t i = 0; i < b->nparams && rc == SQLITE_OK; i++) {
		rc = store_bind(st, "iitt", bid, (long long)i,
				b->params[i].name, b->params[i].value);
		if (rc == SQLITE_OK)
			rc = store_step_done(st);
	}
	return rc;
}

static int save_exits(struct store *s, const struct benchmark *b,
		      long long bid)
{
	sqlite3_stmt *st;
	int rc;

	rc = store_stmt(s, SQ_INS_EXIT, "INSERT INTO exit_codes "
			"(benchmark_id, run, code) VALUES (?,?,?)", &st);
	for (size_t i = 0; i < b->nexit && rc == SQLITE_OK; i++) {
		rc = store_bind(st, "iii", bid, (long long)i,
				(long long)b->exit_codes[i]);
		if (rc == SQLITE_OK)
			rc = store_step_done(st);
	}
	return rc;
}

/* The values of one metric: metric_id stays bound, run and value change
 * (a NaN binds NULL, note 6 of store.c). */
static int save_values(struct store *s, const struct metric *m,
		       long long mid)
{
	sqlite3_stmt *st;
	int rc;

	rc = store_stmt(s, SQ_INS_VALUE, "INSERT INTO run_values (metric_id,"
			" run, value) VALUES (?,?,?)", &st);
	if (rc == SQLITE_OK)
		rc = sqlite.sqlite3_bind_int64(st, 1, mid);
	for (size_t i = 0; i < m->n && rc == SQLITE_OK; i++) {
		rc = sqlite.sqlite3_bind_int64(st, 2, (long long)i);
		if (rc == SQLITE_OK)
			rc = isnan(m->values[i]) ? sqlite.sqlite3_bind_null(st, 3) :
			     sqlite.sqlite3_bind_double(st, 3, m->values[i]);
		if (rc == SQLITE_OK)
			rc = store_step_done(st);
	}
	return rc;
}

static int save_metrics(struct store *s, const struct benchmark *b,
			long long bid)
{
	sqlite3_stmt *st;
	int rc = SQLITE_OK;

	for (size_t i = 0; i < b->nmetrics && rc == SQLITE_OK; i++) {
		const struct metric *m = &b->metrics[i];

		rc = store_stmt(s, SQ_INS_METRIC, "INSERT INTO metrics "
				"(benchmark_id, pos, name, unit) VALUES "
				"(?,?,?,?)", &st);
		if (rc == SQLITE_OK)
			rc = store_bind(st, "iitt", bid, (long long)i, m->name,
					m->unit);
		if (rc == SQLITE_OK)
			rc = store_step_done(st);
		if (rc == SQLITE_OK)
			rc = save_values(s, m,
					 sqlite.sqlite3_last_insert_rowid(s->db));
	}
	return rc;
}

static int save_benchmark(struct store *s, const struct benchmark *b,
			  long long id, size_t pos)
{
	sqlite3_stmt *st;
	long long bid;
	int rc;

	rc = store_stmt(s, SQ_INS_BENCHMARK, "INSERT INTO benchmarks "
			"(result_id, pos, name, timeouts) VALUES (?,?,?,?)",
			&st);
	if (rc == SQLITE_OK)
		rc = store_bind(st, "iiti", id, (long long)pos, b->name,
				(long long)b->timeouts);
	if (rc == SQLITE_OK)
		rc = store_step_done(st);
	bid = sqlite.sqlite3_last_insert_rowid(s->db);
	if (rc == SQLITE_OK)
		rc = save_strings(s, SQ_INS_ARGUMENT, "INSERT INTO arguments "
				  "(benchmark_id, pos, arg) VALUES (?,?,?)",
				  bid, b->command, b->argc);
	if (rc == SQLITE_OK)
		rc = save_params(s, b, bid);
	if (rc == SQLITE_OK)
		rc = save_exits(s, b, bid);
	if (rc == SQLITE_OK)
		rc = save_strings(s, SQ_INS_UNSUPPORTED, "INSERT INTO "
				  "unsupported (benchmark_id, pos, metric) "
				  "VALUES (?,?,?)", bid, b->unsupported,
				  b->nunsupported);
	if (rc == SQLITE_OK)
		rc = save_strings(s, SQ_INS_WARNING, "INSERT INTO warnings "
				  "(benchmark_id, pos, message) VALUES "
				  "(?,?,?)", bid, b->warnings, b->nwarnings);
	if (rc == SQLITE_OK)
		rc = save_metrics(s, b, bid);
	return rc;
}

int store_insert(struct store *s, const struct result *r, long long want,
		 long long *id)
{
	int rc = save_head(s, r, want, id);

	if (rc == SQLITE_OK)
		rc = save_settings(s, r, *id);
	for (size_t i = 0; i < r->nbenchmarks && rc == SQLITE_OK; i++)
		rc = save_benchmark(s, &r->benchmarks[i], *id, i);
	return rc;
}
