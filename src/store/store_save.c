/*
 * Saving a result: every row of it inserted through the store's cached
 * statements, inside the BEGIN IMMEDIATE transaction of store_save or of
 * the log's ingestion (store_log.c), so that a save is all or nothing and
 * other processes see either none of it or all of it.
 *
 * The same SQL for both backends (store_internal.h): ids come back by
 * RETURNING, which SQLite (3.35 and later) and PostgreSQL both have.
 *
 * BEGIN IMMEDIATE takes the write lock before the first insert: a writer
 * that must wait does so there, under the busy timeout, and never fails
 * half way through with a lock it cannot upgrade. The per-run values are
 * the bulk (runs x metrics rows), so their loop binds only what changes.
 */
#include "store/store_internal.h"

#include <math.h>

/* The results row, with the id want (> 0), or the backend's next (0):
 * SQLite's AUTOINCREMENT, PostgreSQL's identity. The same columns and
 * values, the id column only when wanted. */
#define INS_RESULT(idcol, idval) "INSERT INTO results (created, kind, "	\
	"tool_version, git_commit, git_branch, git_dirty, hostname, os, "  \
	"cpu, cores, memory_bytes, governor, virtualized, fingerprint"	   \
	idcol ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?" idval ") RETURNING id"

static int save_head(struct store *s, const struct result *r,
		     const char *fp, long long want, long long *id)
{
	const struct machine *m = &r->machine;
	struct store_st *st;
	char own[33];
	int rc;

	if (!fp) {
		store_fingerprint(r, own);
		fp = own;
	}
	if (want > 0)
		rc = store_stmt(s, SQ_INS_RESULT_ID,
				INS_RESULT(", id", ",?"), &st);
	else
		rc = store_stmt(s, SQ_INS_RESULT, INS_RESULT("", ""), &st);
	if (rc == SQLITE_OK)
		rc = store_bind(st, "tttttitttiitit", r->created, r->kind,
				r->tool_version, r->git.commit, r->git.branch,
				(long long)r->git.dirty, m->hostname, m->os,
				m->cpu, (long long)m->cores,
				/* Above 2^63 wraps, and wraps back on load. */
				(long long)m->memory_bytes, m->governor,
				(long long)m->virtualized, fp);
	if (rc == SQLITE_OK && want > 0)
		rc = s->be->bind_int(st, 15, want);
	if (rc == SQLITE_OK)
		rc = store_step_id(st, id);
	return rc;
}

static int save_settings(struct store *s, const struct result *r,
			 long long id)
{
	struct store_st *st;
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
	struct store_st *st;
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
	struct store_st *st;
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
	struct store_st *st;
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

/* The values of one metric: metric_id stays bound, run, value and process
 * change (a NaN binds NULL, note 6 of store.c; no process, NULL). */
static int save_values(struct store *s, const struct metric *m,
		       long long mid)
{
	struct store_st *st;
	int rc;

	/* (" value," would be typed by store_sql_pg's dialect: it is the
	 * last column named) */
	rc = store_stmt(s, SQ_INS_VALUE, "INSERT INTO run_values (metric_id,"
			" run, process, value) VALUES (?,?,?,?)", &st);
	for (size_t i = 0; i < m->n && rc == SQLITE_OK; i++) {
		rc = store_bind(st, "iind", mid, (long long)i,
				m->process ? (long long)m->process[i] : -1LL,
				m->values[i]);
		if (rc == SQLITE_OK)
			rc = store_step_done(st);
	}
	return rc;
}

static int save_metrics(struct store *s, const struct benchmark *b,
			long long bid)
{
	struct store_st *st;
	long long mid = 0;
	int rc = SQLITE_OK;

	for (size_t i = 0; i < b->nmetrics && rc == SQLITE_OK; i++) {
		const struct metric *m = &b->metrics[i];

		rc = store_stmt(s, SQ_INS_METRIC, "INSERT INTO metrics "
				"(benchmark_id, pos, name, unit) VALUES "
				"(?,?,?,?) RETURNING id", &st);
		if (rc == SQLITE_OK)
			rc = store_bind(st, "iitt", bid, (long long)i, m->name,
					m->unit);
		if (rc == SQLITE_OK)
			rc = store_step_id(st, &mid);
		if (rc == SQLITE_OK)
			rc = save_values(s, m, mid);
	}
	return rc;
}

static int save_benchmark(struct store *s, const struct benchmark *b,
			  long long id, size_t pos)
{
	struct store_st *st;
	long long bid = 0;
	int rc;

	rc = store_stmt(s, SQ_INS_BENCHMARK, "INSERT INTO benchmarks "
			"(result_id, pos, name, timeouts) VALUES (?,?,?,?) "
			"RETURNING id", &st);
	if (rc == SQLITE_OK)
		rc = store_bind(st, "iiti", id, (long long)pos, b->name,
				(long long)b->timeouts);
	if (rc == SQLITE_OK)
		rc = store_step_id(st, &bid);
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

int store_insert(struct store *s, const struct result *r, const char *fp,
		 long long want, long long *id)
{
	int rc = save_head(s, r, fp, want, id);

	if (rc == SQLITE_OK)
		rc = save_settings(s, r, *id);
	for (size_t i = 0; i < r->nbenchmarks && rc == SQLITE_OK; i++)
		rc = save_benchmark(s, &r->benchmarks[i], *id, i);
	return rc;
}

/* After rc of binding st: the id in the first column of its first row,
 * if any; st reset. */
static int first_row_id(struct store_st *st, int rc, long long *id,
			bool *found)
{
	if (rc == SQLITE_OK)
		rc = store_step(st);
	*found = rc == SQLITE_ROW;
	if (*found)
		*id = store_col_int(st, 0);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? store_reset(st) : rc;
}

/* The id of the result with fingerprint fp, if any. */
static int find_fp(struct store *s, const char *fp, long long *id,
		   bool *found)
{
	struct store_st *st = NULL;
	int rc = store_stmt(s, SQ_FIND_FP, "SELECT id FROM results WHERE "
			    "fingerprint = ? ORDER BY id LIMIT 1", &st);

	if (rc == SQLITE_OK)
		rc = store_bind(st, "t", fp);
	return first_row_id(st, rc, id, found);
}

static int id_taken(struct store *s, long long id, bool *taken)
{
	struct store_st *st = NULL;
	long long same;
	int rc = store_stmt(s, SQ_ID_TAKEN, "SELECT id FROM results WHERE "
			    "id = ?", &st);

	if (rc == SQLITE_OK)
		rc = store_bind(st, "i", id);
	return first_row_id(st, rc, &same, taken);
}

int store_insert_unique(struct store *s, const struct result *r,
			const char *fp, long long want, long long next,
			bool unique, long long *id, bool *dup)
{
	bool taken = false;
	char own[33];
	int rc = SQLITE_OK;

	*dup = false;
	if (!fp) {
		store_fingerprint(r, own);
		fp = own;
	}
	if (unique) {
		rc = find_fp(s, fp, id, dup);
		if (rc != SQLITE_OK || *dup)
			return rc;
	}
	if (want > 0)
		rc = id_taken(s, want, &taken);
	if (rc != SQLITE_OK)
		return rc;
	return store_insert(s, r, fp, want > 0 && !taken ? want : next, id);
}
