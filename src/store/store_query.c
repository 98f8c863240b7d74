/*
 * Reading the store back: a result by reference (store_load_ref) and the
 * history of one metric (store_history), each inside one read transaction
 * so that it sees one snapshot even while other processes save.
 *
 * A loaded result must equal the saved one field for field and every
 * per-run value bit for bit: lists come back in their saved order (pos,
 * run), NULL strings stay NULL, and a NULL value is NaN in its run's
 * place.
 */
#include "result/metrics.h"
#include "store/store_internal.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"

/* Commit prefixes: at least this many hex digits, at most a SHA-256. */
#define REF_MIN_HEX 4
#define REF_MAX_HEX 64

/* The id in the first column of the statement's first row, if any. */
static int first_id(struct store_st *st, long long *id, bool *found)
{
	int rc = store_step(st);

	*found = rc == SQLITE_ROW;
	if (rc == SQLITE_ROW)
		*id = store_col_int(st, 0);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* A lowercased commit prefix from "@..." when it is 4..64 hex digits. */
static char *commit_prefix(const char *ref)
{
	size_t n = strlen(ref);
	char *p;

	if (n < REF_MIN_HEX || n > REF_MAX_HEX)
		return NULL;
	p = xstrdup(ref);
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)p[i])) {
			free(p);
			return NULL;
		}
		p[i] = (char)tolower((unsigned char)p[i]);
	}
	return p;
}

/*
 * The latest result whose commit starts with prefix; BADREF listing the
 * commits when the prefix matches more than one. The rows come newest
 * first, so the first row is the answer if the rest agree with it.
 */
static int ref_commit(struct store *s, const char *ref, long long *id,
		      bool *found, struct error *e)
{
	char *prefix = commit_prefix(ref + 1), *first = NULL, *glob;
	char list[512] = "";
	struct store_st *st;
	int rc, ret = 0;

	if (!prefix) {
		error_set(e, "bad reference '%s': a commit needs %d to %d hex "
			  "digits", ref, REF_MIN_HEX, REF_MAX_HEX);
		return -STORE_ERR_BADREF;
	}
	/* GLOB, unlike LIKE, is case-sensitive and so can use the index;
	 * the prefix is hex digits only, nothing GLOB would interpret. */
	glob = xasprintf("%s*", prefix);
	rc = store_stmt(s, SQ_REF_COMMIT, "SELECT id, git_commit FROM results "
			"WHERE git_commit GLOB ? ORDER BY id DESC", &st);
	if (rc == SQLITE_OK)
		rc = store_bind(st, "t", glob);
	*found = false;
	while (rc == SQLITE_OK && (rc = store_step(st)) == SQLITE_ROW) {
		const char *c = store_col_text(st, 1);
		size_t len = strlen(list);

		rc = SQLITE_OK;
		if (!*found) {
			*found = true;
			*id = store_col_int(st, 0);
			first = xstrdup(c);
			snprintf(list, sizeof(list), "%s", c);
		} else if (strcmp(c, first) && !strstr(list, c)) {
			snprintf(list + len, sizeof(list) - len, ", %s", c);
			ret = -STORE_ERR_BADREF;
		}
	}
	if (rc != SQLITE_DONE && rc != SQLITE_OK)
		ret = store_fail(s, rc, e);
	else if (ret)
		error_set(e, "ambiguous reference '%s' in '%s': it matches the "
			  "commits %s", ref, s->path, list);
	free(first);
	free(glob);
	free(prefix);
	return ret;
}

/* A whole string of decimal digits as an id (one too large for any id,
 * which then names no result, when it overflows). */
static bool parse_id(const char *ref, long long *id)
{
	if (!*ref || strspn(ref, "0123456789") != strlen(ref))
		return false;
	*id = strtoll(ref, NULL, 10);
	return true;
}

/* The id that ref names. Returns 0 or -STORE_ERR_*. */
static int resolve_ref(struct store *s, const char *ref, long long *id,
		       struct error *e)
{
	struct store_st *st = NULL;
	long long want;
	bool found = false;
	int rc = SQLITE_OK;

	if (ref[0] == '@') {
		int ret = ref_commit(s, ref, id, &found, e);

		if (ret)
			return ret;
	} else if (!strcmp(ref, "latest")) {
		rc = store_stmt(s, SQ_REF_LATEST, "SELECT id FROM results "
				"ORDER BY id DESC LIMIT 1", &st);
	} else if (parse_id(ref, &want)) {
		rc = store_stmt(s, SQ_REF_ID, "SELECT id FROM results WHERE "
				"id = ?", &st);
		if (rc == SQLITE_OK)
			rc = store_bind(st, "i", want);
	} else if (!strncmp(ref, "branch:", 7) && ref[7]) {
		rc = store_stmt(s, SQ_REF_BRANCH, "SELECT id FROM results "
				"WHERE git_branch = ? ORDER BY id DESC LIMIT 1",
				&st);
		if (rc == SQLITE_OK)
			rc = store_bind(st, "t", ref + 7);
	} else {
		error_set(e, "bad reference '%s': expected latest, a result "
			  "id, @COMMIT or branch:NAME", ref);
		return -STORE_ERR_BADREF;
	}
	if (rc == SQLITE_OK && st)
		rc = first_id(st, id, &found);
	if (rc != SQLITE_OK)
		return store_fail(s, rc, e);
	if (!found) {
		error_set(e, "no result '%s' in '%s'", ref, s->path);
		return -STORE_ERR_NOTFOUND;
	}
	return 0;
}

static int load_head(struct store *s, long long id, struct result *r)
{
	struct machine *m = &r->machine;
	struct store_st *st;
	int rc;

	rc = store_stmt(s, SQ_GET_RESULT, "SELECT created, kind, tool_version,"
			" git_commit, git_branch, git_dirty, hostname, os, cpu,"
			" cores, memory_bytes, governor, virtualized FROM "
			"results WHERE id = ?", &st);
	if (rc == SQLITE_OK)
		rc = store_bind(st, "i", id);
	if (rc == SQLITE_OK)
		rc = store_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
	if (store_col_null(st, 1))
		return SQLITE_CORRUPT;
	free(r->kind);
	r->kind = store_column_str(st, 1);
	r->created = store_column_str(st, 0);
	r->tool_version = store_column_str(st, 2);
	r->git.commit = store_column_str(st, 3);
	r->git.branch = store_column_str(st, 4);
	r->git.dirty = store_col_int(st, 5) != 0;
	m->hostname = store_column_str(st, 6);
	m->os = store_column_str(st, 7);
	m->cpu = store_column_str(st, 8);
	m->cores = (int)store_col_int(st, 9);
	m->memory_bytes = (unsigned long long)store_col_int(st, 10);
	m->governor = store_column_str(st, 11);
	m->virtualized = store_col_int(st, 12) != 0;
	return SQLITE_OK;
}

/* Every row of st, bound to id, given to fn in order. */
static int each_row(struct store_st *st, long long id,
		    int (*fn)(struct store_st *st, void *ctx), void *ctx)
{
	int rc = store_bind(st, "i", id);

	while (rc == SQLITE_OK && (rc = store_step(st)) == SQLITE_ROW)
		rc = fn(st, ctx);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int row_setting(struct store_st *st, void *ctx)
{
	struct result *r = ctx;
	const char *key = store_col_text(st, 0);
	const char *str = store_col_text(st, 1);

	if (!key)
		return SQLITE_CORRUPT;
	if (str)
		result_set_str(r, key, str);
	else
		result_set_num(r, key, store_col_null(st, 2) ? NAN : store_col_double(st, 2));
	return SQLITE_OK;
}

static int row_param(struct store_st *st, void *ctx)
{
	const char *name = store_col_text(st, 0);
	const char *value = store_col_text(st, 1);

	if (!name || !value)
		return SQLITE_CORRUPT;
	benchmark_add_param(ctx, name, value);
	return SQLITE_OK;
}

static int row_exit(struct store_st *st, void *ctx)
{
	benchmark_push_exit(ctx, (int)store_col_int(st, 0));
	return SQLITE_OK;
}

static int row_unsupported(struct store_st *st, void *ctx)
{
	const char *name = store_col_text(st, 0);

	if (!name)
		return SQLITE_CORRUPT;
	benchmark_add_unsupported(ctx, name);
	return SQLITE_OK;
}

static int row_warning(struct store_st *st, void *ctx)
{
	const char *msg = store_col_text(st, 0);

	if (!msg)
		return SQLITE_CORRUPT;
	benchmark_add_warning(ctx, "%s", msg);
	return SQLITE_OK;
}

/* A value (column 2) in its run's place, NULL as NaN, with its process
 * (column 1, from version 4 on). Every run has a row, so the runs come 0, 1, 2...;
 * anything else is damage, as is a process on some values only. */
static int row_value(struct store_st *st, void *ctx)
{
	struct metric *m = ctx;
	double v;
	long long proc;

	if (store_col_int(st, 0) != (long long)m->n)
		return SQLITE_CORRUPT;
	v = store_col_null(st, 2) ? NAN : store_col_double(st, 2);
	if (store_col_null(st, 1)) {
		if (m->process)
			return SQLITE_CORRUPT;
		metric_push(m, v);
		return SQLITE_OK;
	}
	proc = store_col_int(st, 1);
	if (proc < 0 || proc > RESULT_MAX_PROCESS || (m->n && !m->process))
		return SQLITE_CORRUPT;
	metric_push_process(m, v, (unsigned)proc);
	return SQLITE_OK;
}

static int get_values(struct store *s, long long mid, struct metric *m)
{
	struct store_st *st;
	int rc;

	if (s->version >= 4)
		rc = store_stmt(s, SQ_GET_VALUES, "SELECT run, process, value "
				"FROM run_values WHERE metric_id = ? ORDER BY "
				"run", &st);
	else	/* note 8 of store.c: an old store opened for reading */
		rc = store_stmt(s, SQ_GET_VALUES_V3, "SELECT run, NULL, value "
				"FROM run_values WHERE metric_id = ? ORDER BY "
				"run", &st);
	return rc == SQLITE_OK ? each_row(st, mid, row_value, m) : rc;
}

struct metric_ctx {
	struct store *s;
	struct benchmark *b;
};

static int row_metric(struct store_st *st, void *ctx)
{
	struct metric_ctx *c = ctx;
	const char *name = store_col_text(st, 1);
	const char *unit = store_col_text(st, 2);
	struct metric *m;

	if (!name || !unit)
		return SQLITE_CORRUPT;
	m = benchmark_metric(c->b, name, unit);
	return get_values(c->s, store_col_int(st, 0), m);
}

/* The statement of slot id run for benchmark bid, each row to fn. */
static int get_list(struct store *s, enum store_stmt_id id, const char *sql,
		    long long bid, int (*fn)(struct store_st *, void *),
		    void *ctx)
{
	struct store_st *st;
	int rc = store_stmt(s, id, sql, &st);

	return rc == SQLITE_OK ? each_row(st, bid, fn, ctx) : rc;
}

/* The command of benchmark bid as a NULL-terminated argv. */
static int get_argv(struct store *s, long long bid, char ***argv)
{
	struct store_st *st;
	size_t n = 0, cap = 1;
	int rc = store_stmt(s, SQ_GET_ARGUMENTS, "SELECT arg FROM arguments "
			    "WHERE benchmark_id = ? ORDER BY pos", &st);

	*argv = xcalloc(cap, sizeof(**argv));
	if (rc == SQLITE_OK)
		rc = store_bind(st, "i", bid);
	while (rc == SQLITE_OK && (rc = store_step(st)) == SQLITE_ROW) {
		char *arg = store_column_str(st, 0);

		rc = arg ? SQLITE_OK : SQLITE_CORRUPT;
		*argv = xgrow(*argv, &cap, n + 2, sizeof(**argv));
		(*argv)[n++] = arg;
		(*argv)[n] = NULL;
	}
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The lists of benchmark b (row bid), each in its saved order. */
static int load_lists(struct store *s, long long bid, struct benchmark *b)
{
	struct metric_ctx mc = { s, b };
	int rc;

	rc = get_list(s, SQ_GET_PARAMETERS, "SELECT name, value FROM "
		      "parameters WHERE benchmark_id = ? ORDER BY pos", bid,
		      row_param, b);
	if (rc == SQLITE_OK)
		rc = get_list(s, SQ_GET_EXITS, "SELECT code FROM exit_codes "
			      "WHERE benchmark_id = ? ORDER BY run", bid,
			      row_exit, b);
	if (rc == SQLITE_OK)
		rc = get_list(s, SQ_GET_UNSUPPORTED, "SELECT metric FROM "
			      "unsupported WHERE benchmark_id = ? ORDER BY pos",
			      bid, row_unsupported, b);
	if (rc == SQLITE_OK)
		rc = get_list(s, SQ_GET_WARNINGS, "SELECT message FROM "
			      "warnings WHERE benchmark_id = ? ORDER BY pos",
			      bid, row_warning, b);
	if (rc == SQLITE_OK)
		rc = get_list(s, SQ_GET_METRICS, "SELECT id, name, unit FROM "
			      "metrics WHERE benchmark_id = ? ORDER BY pos",
			      bid, row_metric, &mc);
	return rc;
}

struct bench_ctx {
	struct store *s;
	struct result *r;
};

static int row_benchmark(struct store_st *st, void *ctx)
{
	struct bench_ctx *c = ctx;
	long long bid = store_col_int(st, 0);
	const char *name = store_col_text(st, 1);
	struct benchmark *b;
	char **argv;
	int rc;

	if (!name)
		return SQLITE_CORRUPT;
	rc = get_argv(c->s, bid, &argv);
	if (rc != SQLITE_OK) {
		argv_free(argv);
		return rc;
	}
	b = result_add_benchmark(c->r, name, argv);
	argv_free(argv);
	b->timeouts = (size_t)store_col_int(st, 2);
	return load_lists(c->s, bid, b);
}

int store_load_id(struct store *s, long long id, struct result *r)
{
	struct bench_ctx bc = { s, r };
	struct store_st *st;
	int rc = load_head(s, id, r);

	if (rc == SQLITE_OK)
		rc = get_list(s, SQ_GET_SETTINGS, "SELECT key, str, num FROM "
			      "settings WHERE result_id = ? ORDER BY pos", id,
			      row_setting, r);
	if (rc == SQLITE_OK)
		rc = store_stmt(s, SQ_GET_BENCHMARKS, "SELECT id, name, "
				"timeouts FROM benchmarks WHERE result_id = ? "
				"ORDER BY pos", &st);
	if (rc == SQLITE_OK)
		rc = each_row(st, id, row_benchmark, &bc);
	return rc;
}

/* result_summarize with the stored seed and resamples, where they are
 * non-negative integers (as `run` writes them), else the readers'
 * defaults. */
static void summarize_as_saved(struct result *r)
{
	unsigned long long seed = RESULT_READ_SEED;
	size_t resamples = RESULT_READ_RESAMPLES;

	for (size_t i = 0; i < r->nsettings; i++) {
		const struct setting *set = &r->settings[i];
		bool is_seed = !strcmp(set->key, "seed");
		/* Rounds up to 2^64: below it the conversion is exact. */
		double max = is_seed ? 18446744073709551615.0 : 1e12;

		if (set->str || !(set->num >= 0 && set->num < max &&
				  set->num == floor(set->num)))
			continue;
		if (is_seed)
			seed = (unsigned long long)set->num;
		else if (!strcmp(set->key, "bootstrap_resamples"))
			resamples = (size_t)set->num;
	}
	result_summarize(r, seed, resamples);
}

int store_load_ref(struct store *s, const char *ref, struct result *r,
		   struct error *e)
{
	long long id;
	int ret, rc;

	result_init(r, "run");
	rc = store_begin(s, false);
	if (rc != SQLITE_OK)
		return store_fail(s, rc, e);
	ret = resolve_ref(s, ref, &id, e);
	if (!ret) {
		rc = store_load_id(s, id, r);
		if (rc == SQLITE_OK)
			rc = store_commit(s);
		if (rc != SQLITE_OK)
			ret = store_fail(s, rc, e);
	}
	store_rollback(s);
	if (!ret)
		summarize_as_saved(r);
	if (ret) {
		result_free(r);
		result_init(r, "run");
	}
	return ret;
}

/* The history's rows, newest or oldest result first; benchmarks of one
 * result in their saved order (the CASTs give PostgreSQL the type of a
 * parameter that may be NULL). ?5 is the limit (LLONG_MAX for none:
 * PostgreSQL refuses a negative one). */
#define HISTORY_SQL(order)						\
	"SELECT r.id, r.created, r.git_commit, r.git_branch, r.hostname," \
	" r.git_dirty, b.name, m.id, m.unit, r.kind,"			\
	" (SELECT min(st.num) FROM settings st WHERE st.result_id = r.id" \
	" AND st.key = 'bootstrap_max_draws' AND st.str IS NULL)"	\
	" FROM results r"						\
	" JOIN benchmarks b ON b.result_id = r.id"			\
	" JOIN metrics m ON m.benchmark_id = b.id"			\
	" WHERE m.name = ?1 AND (CAST(?2 AS TEXT) IS NULL OR b.name = ?2)" \
	" AND (CAST(?3 AS TEXT) IS NULL OR r.git_branch = ?3)"		\
	" AND (CAST(?4 AS TEXT) IS NULL OR r.hostname = ?4)"		\
	" ORDER BY r.id " order ", b.pos LIMIT ?5"

static int history_stmt(struct store *s, const struct store_query *q,
			struct store_st **st)
{
	long long limit = q->limit && q->limit < LLONG_MAX ?
			  (long long)q->limit : LLONG_MAX;
	int rc;

	if (q->oldest_first)
		rc = store_stmt(s, SQ_HISTORY_OLDEST, HISTORY_SQL("ASC"), st);
	else
		rc = store_stmt(s, SQ_HISTORY_NEWEST, HISTORY_SQL("DESC"), st);
	if (rc == SQLITE_OK)
		rc = store_bind(*st, "tttti",
				q->metric ? q->metric : METRIC_WALL_TIME,
				q->benchmark, q->branch, q->machine, limit);
	return rc;
}

/* One entry from the current row of the history statement. */
static int history_entry(struct store *s, struct store_st *st,
			 struct store_entry *en)
{
	struct metric m = { 0 };
	int rc;

	en->id = store_col_int(st, 0);
	en->created = store_column_str(st, 1);
	en->commit = store_column_str(st, 2);
	en->branch = store_column_str(st, 3);
	en->machine = store_column_str(st, 4);
	en->dirty = store_col_int(st, 5) != 0;
	en->benchmark = store_column_str(st, 6);
	en->unit = store_column_str(st, 8);
	en->kind = store_column_str(st, 9);
	en->max_draws = stats_max_draws(store_col_null(st, 10) ? NAN :
					store_col_double(st, 10));
	if (!en->benchmark || !en->unit || !en->kind)
		return SQLITE_CORRUPT;
	rc = get_values(s, store_col_int(st, 7), &m);
	if (rc == SQLITE_OK) {
		en->values = metric_measured(&m, &en->n);
		stats_summarize(en->values, en->n, NULL, 0, &en->summary);
	}
	free(m.values);
	free(m.process);
	return rc;
}

int store_history(struct store *s, const struct store_query *q,
		  struct store_entry **entries, size_t *n, struct error *e)
{
	static const struct store_query all = { 0 };
	struct store_entry *v = NULL;
	size_t cap = 0, count = 0;
	struct store_st *st;
	int rc, ret;

	*entries = NULL;
	*n = 0;
	rc = store_begin(s, false);
	if (rc == SQLITE_OK)
		rc = history_stmt(s, q ? q : &all, &st);
	while (rc == SQLITE_OK && (rc = store_step(st)) == SQLITE_ROW) {
		v = xgrow(v, &cap, count + 1, sizeof(*v));
		memset(&v[count], 0, sizeof(*v));
		rc = history_entry(s, st, &v[count++]);
	}
	if (rc == SQLITE_DONE)
		rc = store_commit(s);
	if (rc != SQLITE_OK) {
		ret = store_fail(s, rc, e);
		store_rollback(s);
		store_entries_free(v, count);
		return ret;
	}
	*entries = v;
	*n = count;
	return 0;
}

void store_entry_clear(struct store_entry *en)
{
	free(en->created);
	free(en->commit);
	free(en->branch);
	free(en->machine);
	free(en->benchmark);
	free(en->unit);
	free(en->kind);
	free(en->values);
	memset(en, 0, sizeof(*en));
}

void store_entries_free(struct store_entry *entries, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_entry_clear(&entries[i]);
	free(entries);
}

/* The benchmarks of each kind of result the filters of a history query
 * (benchmark, branch, machine; not the metric, not the limit) match. */
#define HISTORY_KINDS_SQL						\
	"SELECT r.kind, COUNT(*) FROM results r"			\
	" JOIN benchmarks b ON b.result_id = r.id"			\
	" WHERE (CAST(?1 AS TEXT) IS NULL OR b.name = ?1)"		\
	" AND (CAST(?2 AS TEXT) IS NULL OR r.git_branch = ?2)"		\
	" AND (CAST(?3 AS TEXT) IS NULL OR r.hostname = ?3)"		\
	" GROUP BY r.kind ORDER BY r.kind"

int store_history_kinds(struct store *s, const struct store_query *q,
			struct store_kind_count **out, size_t *n,
			struct error *e)
{
	struct store_kind_count *v = NULL;
	size_t cap = 0, count = 0;
	struct store_st *st;
	int rc, ret;

	*out = NULL;
	*n = 0;
	rc = store_begin(s, false);
	if (rc == SQLITE_OK)
		rc = store_stmt(s, SQ_HISTORY_KINDS, HISTORY_KINDS_SQL, &st);
	if (rc == SQLITE_OK)
		rc = store_bind(st, "ttt", q->benchmark, q->branch,
				q->machine);
	while (rc == SQLITE_OK && (rc = store_step(st)) == SQLITE_ROW) {
		v = xgrow(v, &cap, count + 1, sizeof(*v));
		v[count].kind = store_column_str(st, 0);
		v[count].n = (size_t)store_col_int(st, 1);
		rc = v[count++].kind ? SQLITE_OK : SQLITE_CORRUPT;
	}
	if (rc == SQLITE_DONE)
		rc = store_commit(s);
	if (rc != SQLITE_OK) {
		ret = store_fail(s, rc, e);
		store_rollback(s);
		store_kind_counts_free(v, count);
		return ret;
	}
	*out = v;
	*n = count;
	return 0;
}

void store_kind_counts_free(struct store_kind_count *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].kind);
	free(v);
}
