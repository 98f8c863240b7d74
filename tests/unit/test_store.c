/*
 * Unit tests of src/store: a result saved and loaded back equal field for
 * field and bit for bit (NaN runs in their place), references picking the
 * right result among several, the history's filters, order and limit, 8
 * processes saving into one store at once, and every error a user meets:
 * a file that is not a store, a truncated store, a read-only file or
 * directory (as an unprivileged user: the test drops root; still read by
 * the reading commands), a store locked by another writer, a store of a
 * newer yardstick, a store another user could tamper with (their file,
 * -wal, directory or symlink, a directory every user may write to), a
 * path that is no regular file, and the default path rules.
 *
 * The tests include sqlite3.h only to do what yardstick never does: hold
 * a lock, downgrade or damage a store by hand.
 *
 * With YS_TEST_STORE_BACKEND=postgresql (and PGSOCK, the socket directory
 * of a server tests/cli/pg_server.sh started: the test `store_pg`), the
 * tests of the public API run against PostgreSQL stores, a database each
 * (store_loc), 32 writers instead of 8; and the PostgreSQL store's own:
 * 32 processes migrating one new database at once, a newer schema,
 * another program's table, copies between the backends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_log.h"
#include "util/fileio.h"
#include "util/strutil.h"

/* The size of a log with no record (store_log.h). */
#define LOG_HEADER 32

#define COMMIT_A1 "aaaa1111aaaa1111aaaa1111aaaa1111aaaa1111"
#define COMMIT_A2 "aaaa2222aaaa2222aaaa2222aaaa2222aaaa2222"
#define COMMIT_B "bbbb2222bbbb2222bbbb2222bbbb2222bbbb2222"

static char tmpdir[] = "/tmp/ys-test-store-XXXXXX";

/* tmpdir/name, in one of 16 static buffers used in turn: enough for the
 * paths one test holds at once (each test has its own store). */
static const char *tmp_path(const char *name)
{
	static char bufs[16][256];
	static unsigned next;
	char *p = bufs[next++ % 16];

	snprintf(p, sizeof(bufs[0]), "%s/%s", tmpdir, name);
	return p;
}

/* PostgreSQL mode: the server's socket directory, else NULL. */
static const char *pg_sock;

/* Run sql in database db of the test's server as its superuser; its
 * output (one value) in a static buffer. */
static const char *pg_sql(const char *db, const char *sql)
{
	static char out[4096];
	char *cmd = xasprintf("/usr/lib/postgresql/15/bin/psql -X -q -A -t "
			      "-v ON_ERROR_STOP=1 -h '%s' -U postgres -d '%s' "
			      "-c \"%s\"", pg_sock, db, sql);
	FILE *f = popen(cmd, "r");
	size_t n;

	assert_non_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	while (n && out[n - 1] == '\n')
		out[--n] = 0;
	assert_int_equal(pclose(f), 0);
	free(cmd);
	return out;
}

/*
 * Where a test keeps its store: the file tmpdir/name, or in PostgreSQL
 * mode a new database of its own named after it (a URL), in one of 16
 * static buffers used in turn.
 */
static const char *store_loc(const char *name)
{
	static char bufs[16][512];
	static unsigned next;
	char *p, db[64], *sql;
	size_t i;

	if (!pg_sock)
		return tmp_path(name);
	for (i = 0; name[i] && i < sizeof(db) - 1; i++)
		db[i] = isalnum((unsigned char)name[i]) ? name[i] : '_';
	db[i] = 0;
	sql = xasprintf("DROP DATABASE IF EXISTS %s; ", db);
	pg_sql("postgres", sql);
	free(sql);
	sql = xasprintf("CREATE DATABASE %s", db);
	pg_sql("postgres", sql);
	free(sql);
	p = bufs[next++ % 16];
	snprintf(p, sizeof(bufs[0]), "postgresql://postgres@/%s?host=%s", db,
		 pg_sock);
	return p;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct store *open_new(const char *path)
{
	struct store *s;
	struct error e;

	if (store_open(&s, path, STORE_CREATE, &e))
		fail_msg("%s", e.msg);
	return s;
}

/* The id of a save that must have succeeded. */
static long long saved(int ret, long long id, const struct error *e)
{
	if (ret)
		fail_msg("%s", e->msg);
	assert_true(id > 0);
	return id;
}

static long long save(struct store *s, const struct result *r)
{
	struct error e;
	long long id = 0;
	int ret = store_save(s, r, &id, &e);

	return saved(ret, id, &e);
}

/* Load ref, or id when ref is NULL; it must succeed. */
static void load(struct store *s, const char *ref, long long id,
		 struct result *r)
{
	struct error e;
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", id);
	if (store_load_ref(s, ref ? ref : buf, r, &e))
		fail_msg("%s: %s", ref ? ref : buf, e.msg);
}

/* The history for q; it must succeed. */
static size_t history(struct store *s, const struct store_query *q,
		      struct store_entry **en)
{
	struct error e;
	size_t n;

	if (store_history(s, q, en, &n, &e))
		fail_msg("%s", e.msg);
	return n;
}

/* Run sql on the file behind yardstick's back. */
static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static char *raw_text(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char *text;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	text = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return text;
}

static long long raw_int(const char *path, const char *sql)
{
	char *text = raw_text(path, sql);
	long long v = strtoll(text, NULL, 10);

	free(text);
	return v;
}

static bool same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(a));
}

/*
 * a and b the same result: their JSON byte for byte the same. The writer
 * puts every field of the model (settings, machine, git, commands,
 * parameters, exit codes, timeouts, unsupported, warnings, units, values,
 * summaries) and every real in its shortest round-trip form, so equal
 * text means equal bits; NaN is null, as it must stay in its run's place.
 */
static void assert_result_same(const struct result *a, const struct result *b)
{
	const char *pa = tmp_path("a.json"), *pb = tmp_path("b.json");
	struct error e;
	char *ja, *jb;

	assert_int_equal(result_write_json(a, pa, &e), 0);
	assert_int_equal(result_write_json(b, pb, &e), 0);
	assert_int_equal(file_read_all(pa, &ja, NULL, &e), 0);
	assert_int_equal(file_read_all(pb, &jb, NULL, &e), 0);
	assert_string_equal(ja, jb);
	free(ja);
	free(jb);
}

static void push_all(struct metric *m, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		metric_push(m, v[i]);
}

/*
 * Two benchmarks with everything a result can hold: quoted and non-ASCII
 * strings, a NaN and a string setting, the doubles that break naive
 * storage (-0 above all, which a REAL column turns into +0), NaN runs, an
 * all-NaN metric, a metric without values, memory above 2^63.
 */
static void build_rich(struct result *r)
{
	char *argv[] = { "./sort", "--n=1e6", "a b 'c' \"d\"", "ünï 🚀", NULL };
	static const double wall[] = { 0.0101, NAN, 2.0 / 3, 4.9e-324, -0.0,
					9007199254740994.0, 0.1 + 0.2 };
	static const double rss[] = { 1048576, NAN, 2e9, 3, 4, 5, 6 };
	static const double nan3[] = { NAN, NAN, NAN };
	struct benchmark *b;

	result_init(r, "run");
	r->created = xstrdup("2026-11-22T10:00:00Z");
	r->tool_version = xstrdup("0.1.0");
	r->machine = (struct machine){ xstrdup("host-a"), xstrdup("Linux 6.1"),
		xstrdup("AMD \"EPYC\""), xstrdup("performance"), 2,
		0xfffffffffffff000ULL, true };
	r->git = (struct git_info){ xstrdup(COMMIT_A1), xstrdup("feature/x"),
				    true };
	result_set_num(r, "warmup", 3);
	result_set_num(r, "seed", 42);
	result_set_num(r, "bootstrap_resamples", 200);
	result_set_str(r, "shell", "none");
	result_set_str(r, "empty", "");
	result_set_num(r, "unknown", NAN);
	result_set_num(r, "negzero", -0.0);
	b = result_add_benchmark(r, "sort 1e6 \"x\"", argv);
	benchmark_add_param(b, "n", "1000000");
	benchmark_add_param(b, "algo", "quick sort");
	for (int i = 0; i < 7; i++)
		benchmark_push_exit(b, i == 1 ? 137 : i == 2);
	b->timeouts = 1;
	push_all(benchmark_metric(b, "wall_time", "s"), wall, 7);
	push_all(benchmark_metric(b, "peak_rss", "bytes"), rss, 7);
	benchmark_add_unsupported(b, "cycles");
	benchmark_add_unsupported(b, "instructions");
	benchmark_add_warning(b, "run %d: exit status %d", 3, 1);
	benchmark_add_warning(b, "100%% of runs: <b>");
	b = result_add_benchmark(r, "no command", NULL);
	push_all(benchmark_metric(b, "wall_time", "s"), nan3, 3);
	benchmark_metric(b, "latency", "");
}

static void test_round_trip(void **state)
{
	const char *path = store_loc("round.db");
	struct store *s = open_new(path);
	struct result a, b, empty, back;
	long long id1, id2;

	build_rich(&a);
	id1 = save(s, &a);
	result_init(&empty, "load");	/* NULL everything, no benchmark */
	id2 = save(s, &empty);
	assert_true(id2 > id1);

	load(s, NULL, id1, &back);
	result_summarize(&a, 42, 200);
	assert_result_same(&a, &back);
	/* The NaNs are in their runs' places, -0 kept its sign. */
	assert_true(isnan(back.benchmarks[0].metrics[0].values[1]));
	assert_true(signbit(back.benchmarks[0].metrics[0].values[4]));
	result_free(&back);

	load(s, "latest", 0, &b);
	result_summarize(&empty, 1, 1000);
	assert_result_same(&empty, &b);
	result_free(&b);

	/* And from a new connection, after the WAL was checkpointed. */
	store_close(s);
	s = open_new(path);
	load(s, NULL, id1, &back);
	assert_result_same(&a, &back);
	result_free(&back);
	result_free(&a);
	result_free(&empty);
	store_close(s);
}

/* A small result tagged with a setting, on a commit and branch. */
static void build_tagged(struct result *r, int tag, const char *commit,
			 const char *branch)
{
	result_init(r, "run");
	r->git.commit = commit ? xstrdup(commit) : NULL;
	r->git.branch = branch ? xstrdup(branch) : NULL;
	result_set_num(r, "tag", tag);
	metric_push(benchmark_metric(result_add_benchmark(r, "t", NULL),
				     "wall_time", "s"), tag);
}

static double tag_of(struct store *s, const char *ref)
{
	struct result r;
	double tag;

	load(s, ref, 0, &r);
	assert_string_equal(r.settings[0].key, "tag");
	tag = r.settings[0].num;
	result_free(&r);
	return tag;
}

static void assert_ref_fails(struct store *s, const char *ref, int err,
			     const char *needle)
{
	struct result r;
	struct error e;
	char *quoted = xasprintf("'%s'", ref);

	assert_int_equal(store_load_ref(s, ref, &r, &e), -err);
	assert_non_null(strstr(e.msg, quoted));
	if (needle)
		assert_non_null(strstr(e.msg, needle));
	assert_int_equal(r.nbenchmarks, 0);
	result_free(&r);
	free(quoted);
}

static void test_refs(void **state)
{
	const char *path = store_loc("refs.db");
	struct store *s = open_new(path);
	static const struct {
		const char *commit, *branch;
	} saved[] = { { COMMIT_A1, "main" }, { COMMIT_B, "feature" },
		      { COMMIT_A1, "main" }, { COMMIT_A2, "feature" },
		      { NULL, NULL } };
	struct store *s2;
	struct result r;

	assert_ref_fails(s, "latest", STORE_ERR_NOTFOUND, path);
	for (int i = 0; i < 5; i++) {
		build_tagged(&r, i + 1, saved[i].commit, saved[i].branch);
		assert_int_equal(save(s, &r), i + 1);
		result_free(&r);
	}
	assert_true(tag_of(s, "latest") == 5);
	assert_true(tag_of(s, "2") == 2);
	assert_true(tag_of(s, "@aaaa1") == 3);
	assert_true(tag_of(s, "@AAAA1111") == 3);
	assert_true(tag_of(s, "@bbbb") == 2);
	assert_true(tag_of(s, "@" COMMIT_A2) == 4);
	assert_true(tag_of(s, "branch:main") == 3);
	assert_true(tag_of(s, "branch:feature") == 4);

	assert_ref_fails(s, "@aaaa", STORE_ERR_BADREF, "ambiguous");
	assert_ref_fails(s, "@aaaa", STORE_ERR_BADREF, COMMIT_A1);
	assert_ref_fails(s, "@aaaa", STORE_ERR_BADREF, COMMIT_A2);
	assert_ref_fails(s, "99", STORE_ERR_NOTFOUND, path);
	assert_ref_fails(s, "0", STORE_ERR_NOTFOUND, NULL);
	assert_ref_fails(s, "99999999999999999999999", STORE_ERR_NOTFOUND,
			 NULL);
	assert_ref_fails(s, "@cccc", STORE_ERR_NOTFOUND, NULL);
	assert_ref_fails(s, "branch:nope", STORE_ERR_NOTFOUND, NULL);
	assert_ref_fails(s, "@abc", STORE_ERR_BADREF, "hex digits");
	assert_ref_fails(s, "@xyzw", STORE_ERR_BADREF, "hex digits");
	assert_ref_fails(s, "branch:", STORE_ERR_BADREF, "branch:NAME");
	assert_ref_fails(s, "first", STORE_ERR_BADREF, "branch:NAME");

	/* What another process saves after our last read is seen. */
	s2 = open_new(path);
	build_tagged(&r, 6, NULL, NULL);
	save(s2, &r);
	result_free(&r);
	store_close(s2);
	assert_true(tag_of(s, "latest") == 6);
	store_close(s);
}

/* One benchmark of a history fixture: name and wall_time values. */
static void add_bench(struct result *r, const char *name, const double *v,
		      size_t n)
{
	struct benchmark *b = result_add_benchmark(r, name, NULL);

	if (n)
		push_all(benchmark_metric(b, "wall_time", "s"), v, n);
	metric_push(benchmark_metric(b, "peak_rss", "bytes"), 100);
}

/* The entries' "id:benchmark" joined by spaces, for one comparison. */
static void assert_entries(struct store *s, const struct store_query *q,
			   const char *want)
{
	struct store_entry *en;
	size_t n = history(s, q, &en);
	char got[256] = "";

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(got);

		snprintf(got + len, sizeof(got) - len, "%s%lld:%s",
			 i ? " " : "", en[i].id, en[i].benchmark);
	}
	assert_string_equal(got, want);
	if (!n)
		assert_null(en);
	store_entries_free(en, n);
}

/*
 * id 1: main, h1: a [1 2 3], b [10 NaN 30]
 * id 2: dev, h2: a [4 5 6 7]
 * id 3: main, h2, dirty: a [2 4], b (no wall_time)
 * id 4: main, h1: b [5]
 * Every benchmark has peak_rss; ids 1, 3, 4 have a commit and a time.
 */
static void history_fixture(struct store *s)
{
	static const struct {
		const char *commit, *branch, *host;
		bool dirty;
		const char *names;	/* benchmark names, a letter each */
		double v[2][4];
		size_t n[2];
	} fx[] = {
		{ COMMIT_A1, "main", "h1", false, "ab",
		  { { 1, 2, 3 }, { 10, NAN, 30 } }, { 3, 3 } },
		{ NULL, "dev", "h2", false, "a", { { 4, 5, 6, 7 } }, { 4 } },
		{ COMMIT_B, "main", "h2", true, "ab", { { 2, 4 } }, { 2, 0 } },
		{ COMMIT_A2, "main", "h1", false, "b", { { 5 } }, { 1 } },
	};

	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		struct result r;

		result_init(&r, "run");
		if (fx[i].commit) {
			r.created = xstrdup("2026-11-22T10:00:00Z");
			r.git.commit = xstrdup(fx[i].commit);
		}
		r.git.branch = xstrdup(fx[i].branch);
		r.git.dirty = fx[i].dirty;
		r.machine.hostname = xstrdup(fx[i].host);
		for (size_t j = 0; fx[i].names[j]; j++) {
			char name[2] = { fx[i].names[j], '\0' };

			add_bench(&r, name, fx[i].v[j], fx[i].n[j]);
		}
		save(s, &r);
		result_free(&r);
	}
}

/* A query, written inline. */
#define Q(...) (&(struct store_query){ __VA_ARGS__ })

static void test_history(void **state)
{
	const char *path = store_loc("history.db");
	struct store *s = open_new(path);
	struct store_entry *en;
	size_t n;

	history_fixture(s);
	assert_entries(s, NULL, "4:b 3:a 2:a 1:a 1:b");
	assert_entries(s, Q(.oldest_first = true), "1:a 1:b 2:a 3:a 4:b");
	assert_entries(s, Q(.oldest_first = true, .limit = 2), "1:a 1:b");
	assert_entries(s, Q(.limit = 2), "4:b 3:a");
	assert_entries(s, Q(.benchmark = "a"), "3:a 2:a 1:a");
	assert_entries(s, Q(.branch = "main"), "4:b 3:a 1:a 1:b");
	assert_entries(s, Q(.machine = "h2"), "3:a 2:a");
	assert_entries(s, Q(.benchmark = "b", .branch = "main",
			    .machine = "h1"), "4:b 1:b");
	assert_entries(s, Q(.metric = "peak_rss", .limit = 3), "4:b 3:a 3:b");
	assert_entries(s, Q(.metric = "nope"), "");
	assert_entries(s, Q(.branch = "nope"), "");

	/* The values, finite only, and their summary. */
	assert_int_equal(n = history(s, Q(.oldest_first = true), &en), 5);
	assert_int_equal(en[1].n, 2);		/* 10, NaN, 30 */
	assert_true(en[1].values[0] == 10 && en[1].values[1] == 30);
	assert_true(en[1].summary.n == 2 && en[1].summary.mean == 20 &&
		    en[1].summary.median == 20 && en[1].summary.min == 10 &&
		    en[1].summary.max == 30);
	assert_int_equal(en[2].n, 4);		/* 4, 5, 6, 7 */
	assert_true(en[2].summary.mean == 5.5);
	assert_true(fabs(en[2].summary.stddev - 1.2909944487358056) < 1e-15);
	assert_string_equal(en[0].commit, COMMIT_A1);
	assert_string_equal(en[0].branch, "main");
	assert_string_equal(en[0].machine, "h1");
	assert_null(en[2].commit);
	assert_null(en[2].created);
	assert_false(en[2].dirty);
	assert_true(en[3].dirty);
	store_entries_free(en, n);
	store_close(s);
}

/* Writer w's i-th result: name "wW-I", run k = w*1e6 + i*1e3 + k + 0.25
 * but NaN at run (w + i) % runs. WRITERS x SAVES on SQLite, PG_WRITERS x
 * PG_SAVES on PostgreSQL. */
#define WRITERS 8
#define SAVES 20
#define PG_WRITERS 32
#define PG_SAVES 5
#define RUNS 100

static double writer_value(int w, int i, int k)
{
	if (k == (w + i) % RUNS)
		return NAN;
	return w * 1e6 + i * 1e3 + k + 0.25;
}

static void build_writer(struct result *r, int w, int i)
{
	struct benchmark *b;
	struct metric *m;
	char name[32];

	result_init(r, "run");
	result_set_num(r, "bootstrap_resamples", 10);
	snprintf(name, sizeof(name), "w%d-%d", w, i);
	b = result_add_benchmark(r, name, NULL);
	m = benchmark_metric(b, "wall_time", "s");
	for (int k = 0; k < RUNS; k++) {
		metric_push(m, writer_value(w, i, k));
		benchmark_push_exit(b, k % 3);
	}
}

/* A child: wait for the start signal, open, save SAVES results, exit 0
 * or the error kind. */
static void writer(const char *path, int w, int saves, int start)
{
	struct store *s;
	struct error e;
	struct result r;
	long long id;
	char c;
	int ret;

	if (read(start, &c, 1) != 0)
		_exit(99);
	ret = store_open(&s, path, STORE_CREATE, &e);
	for (int i = 0; i < saves && !ret; i++) {
		build_writer(&r, w, i);
		ret = store_save(s, &r, &id, &e);
		result_free(&r);
	}
	if (ret)
		fprintf(stderr, "writer %d: %s\n", w, e.msg);
	store_close(s);
	_exit(-ret);
}

static void check_writer_result(struct store *s, long long id)
{
	struct result r;
	int w, i;

	load(s, NULL, id, &r);
	assert_int_equal(sscanf(r.benchmarks[0].name, "w%d-%d", &w, &i), 2);
	assert_int_equal(r.benchmarks[0].metrics[0].n, RUNS);
	assert_int_equal(r.benchmarks[0].nexit, RUNS);
	for (int k = 0; k < RUNS; k++) {
		assert_true(same_double(r.benchmarks[0].metrics[0].values[k],
					writer_value(w, i, k)));
		assert_int_equal(r.benchmarks[0].exit_codes[k], k % 3);
	}
	result_free(&r);
}

/* 8 processes (32 on PostgreSQL) create one store and save into it as
 * fast as they can: every result arrives whole, each under its own id. */
static void test_concurrent_writers(void **state)
{
	const char *path = pg_sock ? store_loc("concurrent") :
			   tmp_path("concurrent/.yardstick/results.db");
	int writers = pg_sock ? PG_WRITERS : WRITERS;
	int saves = pg_sock ? PG_SAVES : SAVES;
	bool seen[PG_WRITERS][SAVES] = { { false } };
	struct store_entry *en;
	struct error e;
	struct store *s;
	pid_t pids[PG_WRITERS];
	int start[2], status;
	size_t n;
	double t0;

	assert_int_equal(pipe(start), 0);
	for (int w = 0; w < writers; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			close(start[1]);
			writer(path, w, saves, start[0]);
		}
	}
	close(start[0]);
	t0 = now();
	close(start[1]);	/* all start at once */
	for (int w = 0; w < writers; w++) {
		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	print_message("%d writers x %d saves x %d runs: %.0f ms\n", writers,
		      saves, RUNS, (now() - t0) * 1e3);
	assert_int_equal(store_open(&s, path, STORE_READ, &e), 0);
	assert_int_equal(n = history(s, NULL, &en), writers * saves);
	for (size_t j = 0; j < n; j++) {
		int w, i;

		assert_int_equal(en[j].id, (long long)(n - j));
		assert_int_equal(sscanf(en[j].benchmark, "w%d-%d", &w, &i), 2);
		assert_false(seen[w][i]);
		seen[w][i] = true;
		assert_int_equal(en[j].n, RUNS - 1);
		check_writer_result(s, en[j].id);
	}
	store_entries_free(en, n);
	store_close(s);
}

/* A realistic big result: 1000 runs of 12 metrics, timed. */
static void test_save_speed(void **state)
{
	const char *path = tmp_path("speed.db");
	struct store *s = open_new(path);
	struct result r, back;
	struct benchmark *b;
	struct error e;
	double t0, t_save, t_load;
	char name[32];

	result_init(&r, "run");
	result_set_num(&r, "bootstrap_resamples", 0);
	b = result_add_benchmark(&r, "big", NULL);
	for (int j = 0; j < 12; j++) {
		snprintf(name, sizeof(name), "metric%d", j);
		for (int k = 0; k < 1000; k++)
			metric_push(benchmark_metric(b, name, "s"),
				    k == j ? NAN : 1e-3 * (k + 1) / (j + 1));
	}
	for (int k = 0; k < 1000; k++)
		benchmark_push_exit(b, 0);
	save(s, &r);		/* statements prepared, WAL made */
	t0 = now();
	save(s, &r);
	t_save = now() - t0;
	t0 = now();
	assert_int_equal(store_load_ref(s, "latest", &back, &e), 0);
	t_load = now() - t0;
	result_summarize(&r, 1, 0);
	assert_result_same(&r, &back);
	print_message("save 1000 runs x 12 metrics: %.1f ms, load (with "
		      "summaries, no bootstrap): %.1f ms\n", t_save * 1e3,
		      t_load * 1e3);
	/* a bound that catches a complexity blow-up, not a speed target:
	 * speed is measured in bench/, never asserted in a test */
	assert_true(t_save < 30.0);
	assert_true(t_load < 30.0);
	result_free(&back);
	result_free(&r);
	store_close(s);
}

/* The size of path's -wal file; -1 when there is none. */
static off_t wal_size(const char *path)
{
	char *wal = xasprintf("%s-wal", path);
	struct stat st;
	off_t size = stat(wal, &st) == 0 ? st.st_size : -1;

	free(wal);
	return size;
}

/*
 * The durability choice of store.c: closing does not checkpoint, so a
 * saved result stays in the -wal (no fsync per save) and is read back
 * from there by the next opener; the -wal stays bounded however many
 * results go through it (a checkpoint once it passes 256 pages, and the
 * file cut back), while the store itself grows.
 */
static void test_wal_kept(void **state)
{
	const char *path = tmp_path("kept.db");
	struct store_entry *en;
	struct metric *m;
	struct result r;
	struct store *s;
	struct error e;
	struct stat st;
	off_t most = 0;
	size_t n;

	result_init(&r, "run");
	result_set_num(&r, "bootstrap_resamples", 0);
	m = benchmark_metric(result_add_benchmark(&r, "b", NULL),
			     "wall_time", "s");
	for (int k = 0; k < 4000; k++)
		metric_push(m, k + 0.5);
	for (int i = 0; i < 40; i++) {
		s = open_new(path);
		save(s, &r);
		store_close(s);
		if (i == 0)	/* not checkpointed, not removed */
			assert_true(wal_size(path) > 0);
		if (wal_size(path) > most)
			most = wal_size(path);
	}
	result_free(&r);
	s = open_new(path);
	assert_int_equal(store_history(s, NULL, &en, &n, &e), 0);
	assert_int_equal(n, 40);
	store_entries_free(en, n);
	store_close(s);
	raw_exec(path, "PRAGMA wal_checkpoint(TRUNCATE)");
	assert_int_equal(stat(path, &st), 0);
	print_message("40 saves: store %lld bytes, largest -wal %lld bytes\n",
		      (long long)st.st_size, (long long)most);
	/* Unbounded, the -wal would have grown past 5 MiB. */
	assert_true(st.st_size > 3 * 1024 * 1024);
	assert_true(most < 3 * 1024 * 1024 / 2);
}

static void write_file(const char *path, const void *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	assert_int_equal(close(fd), 0);
}

static void fill_junk(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 2654435761u >> 13);
}

/* The exit code each STORE_ERR_* must give (docs/store.md, the commands'
 * exit status): 3 when the environment refused, written out here apart
 * from the store's code that sets the class. */
static int store_err_exit(int err)
{
	switch (err) {
	case STORE_ERR_LOCKED:
	case STORE_ERR_READONLY:
	case STORE_ERR_UNSAFE:
	case STORE_ERR_NOLIB:
	case STORE_ERR_CONNECT:
		return 3;
	default:
		return 2;
	}
}

static void assert_open_fails(const char *path, enum store_mode mode,
			      int err, const char *needle)
{
	struct store *s;
	struct error e;
	char *quoted = xasprintf("'%s'", path);

	assert_int_equal(store_open(&s, path, mode, &e), -err);
	assert_int_equal(error_exit_code(&e), store_err_exit(err));
	assert_null(s);
	assert_non_null(strstr(e.msg, quoted));
	if (needle && !strstr(e.msg, needle))
		fail_msg("'%s' not in '%s'", needle, e.msg);
	free(quoted);
}

/* A missing store is not created unless asked, then with its
 * directories; a file that is not a store is refused, never touched. */
static void test_open_errors(void **state)
{
	const char *path = tmp_path("garbage.db"), *text = tmp_path("text.db");
	const char *other = tmp_path("other.db"), *none = tmp_path("none.db");
	const char *nested = tmp_path("deep/er/.yardstick/results.db");
	unsigned char junk[8192];
	struct stat st;

	assert_open_fails(none, STORE_READ, STORE_ERR_NOTFOUND, "no yardstick");
	assert_int_equal(stat(none, &st), -1);
	store_close(open_new(nested));
	assert_int_equal(stat(nested, &st), 0);

	fill_junk(junk, sizeof(junk));
	write_file(path, junk, sizeof(junk));
	assert_open_fails(path, STORE_CREATE, STORE_ERR_CORRUPT,
			  "is not a yardstick store (file is not a database)");
	write_file(text, "not a database\n", 15);
	assert_open_fails(text, STORE_READ, STORE_ERR_CORRUPT, "not a database");
	/* Some other program's SQLite database is left alone. */
	raw_exec(other, "CREATE TABLE t (x)");
	assert_open_fails(other, STORE_CREATE, STORE_ERR_CORRUPT, "another program");
	assert_int_equal(raw_int(other, "PRAGMA user_version"), 0);
}

/* A store of 50 small results (a few hundred KiB), its size in *size. */
static void make_store(const char *path, off_t *size)
{
	struct store *s = open_new(path);
	struct result r;
	struct stat st;

	build_writer(&r, 0, 0);
	for (int i = 0; i < 50; i++)
		save(s, &r);
	result_free(&r);
	store_close(s);
	/* Everything into the file itself, to damage it there (a writer
	 * leaves its results in the -wal). */
	raw_exec(path, "PRAGMA wal_checkpoint(TRUNCATE)");
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 64 * 1024);
	*size = st.st_size;
}

/* A store cut in the middle is found damaged at open; one with pages
 * overwritten in the middle, when they are read. */
static void test_damaged(void **state)
{
	const char *cut = tmp_path("cut.db"), *mid = tmp_path("mid.db");
	unsigned char junk[4096];
	struct store_entry *en;
	struct store *s;
	struct result r;
	struct error e;
	off_t size;
	size_t n;
	int fd;

	make_store(cut, &size);
	assert_int_equal(truncate(cut, size / 2), 0);
	assert_open_fails(cut, STORE_READ, STORE_ERR_CORRUPT, "is damaged");

	make_store(mid, &size);
	fill_junk(junk, sizeof(junk));
	fd = open(mid, O_WRONLY);
	for (off_t at = size / 2 / 4096 * 4096; at < size; at += 4096)
		assert_int_equal(pwrite(fd, junk, 4096, at), 4096);
	assert_int_equal(close(fd), 0);
	s = open_new(mid);
	assert_int_equal(store_load_ref(s, "latest", &r, &e),
			 -STORE_ERR_CORRUPT);
	assert_non_null(strstr(e.msg, mid));
	assert_int_equal(store_history(s, NULL, &en, &n, &e),
			 -STORE_ERR_CORRUPT);
	assert_non_null(strstr(e.msg, "is damaged"));
	result_free(&r);
	store_close(s);
}

/*
 * store_open of path as an unprivileged user (nobody, when the tests run
 * as root, who may write anything): the error kind and the message, back
 * through a pipe. A store opened for writing is saved into, to report
 * that; one opened for reading is read, the message giving the number of
 * entries ("n=2").
 */
static int open_as_nobody(const char *path, enum store_mode mode, char *msg,
			  size_t len)
{
	int fds[2], status;
	ssize_t got;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct error e = { .msg = "" };
		struct store_entry *en;
		struct store *s;
		struct result r;
		long long id;
		size_t n;
		int ret;

		close(fds[0]);
		if (geteuid() == 0 && (setgroups(0, NULL) || setgid(65534) ||
				       setuid(65534)))
			_exit(99);
		ret = store_open(&s, path, mode, &e);
		if (!ret && mode != STORE_READ) {
			build_tagged(&r, 1, NULL, NULL);
			ret = store_save(s, &r, &id, &e);
			store_close(s);
		} else if (!ret) {
			ret = store_history(s, NULL, &en, &n, &e);
			if (!ret) {
				snprintf(e.msg, sizeof(e.msg), "n=%zu", n);
				store_entries_free(en, n);
			}
			store_close(s);
		}
		if (ret < 0 && error_exit_code(&e) != store_err_exit(-ret))
			snprintf(e.msg, sizeof(e.msg), "exit code %d for "
				 "STORE_ERR %d", error_exit_code(&e), -ret);
		if (write(fds[1], e.msg, strlen(e.msg)) < 0)
			_exit(98);
		_exit(-ret);
	}
	close(fds[1]);
	got = read(fds[0], msg, len - 1);
	msg[got > 0 ? got : 0] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return -WEXITSTATUS(status);
}

static void assert_nobody_fails(const char *path, enum store_mode mode,
				int err, const char *needle)
{
	char msg[1024];
	char *quoted = xasprintf("'%s'", path);

	assert_int_equal(open_as_nobody(path, mode, msg, sizeof(msg)), -err);
	if (!strstr(msg, quoted) || !strstr(msg, needle))
		fail_msg("unexpected message: %s", msg);
	free(quoted);
}

static void assert_nobody_reads(const char *path, const char *count)
{
	char msg[1024];

	assert_int_equal(open_as_nobody(path, STORE_READ, msg, sizeof(msg)),
			 0);
	assert_string_equal(msg, count);
}

static void chown_nobody(const char *path)
{
	assert_int_equal(chown(path, 65534, 65534), 0);
}

/* A read-only file or directory refuses a save with the reason, and is
 * still read by the reading commands (opened read-only: no -shm to make
 * in a read-only directory), the results in its -wal included. */
static void test_readonly(void **state)
{
	const char *dir = tmp_path("ro"), *rw = tmp_path("rw");
	const char *file_ro = tmp_path("rw/file-ro.db");
	const char *in_ro = tmp_path("ro/s.db"), *new = tmp_path("ro/new.db");
	const char *nested = tmp_path("ro/.yardstick/results.db");
	const char *copies = tmp_path("copies");
	char msg[1024];
	struct result r;
	struct store *s;
	struct stat st;

	assert_int_equal(chmod(tmpdir, 0755), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(rw, 0755), 0);
	build_tagged(&r, 1, NULL, NULL);
	for (int i = 0; i < 2; i++) {
		s = open_new(i ? in_ro : file_ro);
		save(s, &r);
		store_close(s);
	}
	result_free(&r);
	chown_nobody(dir);
	chown_nobody(rw);
	/* The writer's -wal, -shm and -log stay (store.c's durability
	 * notes, store_log.c); run by root, they are root's: given to the
	 * owner of the store, as SQLite does for its own. */
	for (int i = 0; i < 4; i++) {
		static const char *const side[] = { "", "-wal", "-shm",
						    "-log" };
		char *a = xasprintf("%s%s", file_ro, side[i]);
		char *b = xasprintf("%s%s", in_ro, side[i]);

		chown_nobody(a);
		chown_nobody(b);
		free(a);
		free(b);
	}

	/* Control: a writable store in a writable directory is fine. */
	assert_int_equal(open_as_nobody(file_ro, STORE_WRITE, msg,
					sizeof(msg)), 0);
	/* The file is read-only: no save, but it reads (both results). */
	assert_int_equal(chmod(file_ro, 0444), 0);
	assert_nobody_fails(file_ro, STORE_WRITE, STORE_ERR_READONLY,
			    "the file is read-only");
	assert_nobody_reads(file_ro, "n=2");
	/* The file is writable, its directory not (no -wal, -shm). */
	assert_int_equal(chmod(dir, 0555), 0);
	assert_nobody_fails(in_ro, STORE_WRITE, STORE_ERR_READONLY,
			    "is read-only");
	assert_nobody_reads(in_ro, "n=1");
	/* Both read-only. */
	assert_int_equal(chmod(in_ro, 0444), 0);
	assert_nobody_reads(in_ro, "n=1");
	/* A -wal without its -shm (removed, or not copied along) where no
	 * -shm can be made: the result is in the -wal only, and is read from
	 * a private copy of both (the file alone has no table yet), which
	 * is removed after; nothing is made beside the store. */
	assert_int_equal(unlink(tmp_path("ro/s.db-shm")), 0);
	assert_int_equal(mkdir(copies, 0700), 0);
	chown_nobody(copies);
	assert_int_equal(setenv("TMPDIR", copies, 1), 0);
	assert_nobody_reads(in_ro, "n=1");
	assert_int_equal(unsetenv("TMPDIR"), 0);
	assert_int_equal(stat(tmp_path("ro/s.db-shm"), &st), -1);
	assert_int_equal(rmdir(copies), 0);	/* empty: the copy is gone */
	assert_nobody_fails(new, STORE_CREATE, STORE_ERR_READONLY,
			    "is read-only");
	assert_nobody_fails(nested, STORE_CREATE, STORE_ERR_READONLY,
			    "cannot create directory");
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(chmod(tmpdir, 0700), 0);
}

/*
 * A store another user could read or tamper with is refused, naming the
 * culprit and its owner: a .yardstick directory or a store file of
 * another user (someone planting one in a shared directory would
 * receive root's results), a -wal file planted beside a store (it would be
 * replayed into it), a directory every user may write to. A path that is
 * no regular file is refused too, and nothing is made beside it.
 */
static void test_unsafe(void **state)
{
	const char *shared = tmp_path("shared");
	const char *planted = tmp_path("shared/.yardstick");
	const char *in_planted = tmp_path("shared/.yardstick/results.db");
	const char *mine = tmp_path("mine.db"), *wal = tmp_path("wal.db");
	const char *wal_file = tmp_path("wal.db-wal");
	struct store *s;
	struct stat st;
	int fd;

	assert_int_equal(mkdir(shared, 0777), 0);
	assert_int_equal(chmod(shared, 01777), 0);
	assert_int_equal(mkdir(planted, 0777), 0);
	chown_nobody(planted);
	assert_open_fails(in_planted, STORE_CREATE, STORE_ERR_UNSAFE,
			  "owned by nobody (uid 65534)");
	assert_int_equal(stat(in_planted, &st), -1);	/* nothing made */

	store_close(open_new(mine));
	chown_nobody(mine);
	assert_open_fails(mine, STORE_CREATE, STORE_ERR_UNSAFE, "nobody");
	assert_open_fails(mine, STORE_READ, STORE_ERR_UNSAFE, "nobody");

	store_close(open_new(wal));
	(void)unlink(wal_file);	/* the writer's own, replaced */
	fd = open(wal_file, O_WRONLY | O_CREAT | O_EXCL, 0666);
	assert_true(fd >= 0);
	close(fd);
	chown_nobody(wal_file);
	assert_open_fails(wal, STORE_CREATE, STORE_ERR_UNSAFE, "nobody");
	assert_open_fails(wal, STORE_READ, STORE_ERR_UNSAFE, "-wal'");
	assert_int_equal(unlink(wal_file), 0);
	s = open_new(wal);
	store_close(s);

	/* The shared sticky directory itself, where anyone could plant a
	 * -wal file: refused to root too, and to nobody. */
	assert_open_fails(tmp_path("shared/root.db"), STORE_CREATE,
			  STORE_ERR_UNSAFE, "writable by every user");
	assert_int_equal(chmod(tmpdir, 0755), 0);
	assert_nobody_fails(tmp_path("shared/s.db"), STORE_CREATE,
			    STORE_ERR_UNSAFE, "writable by every user");
	assert_int_equal(chmod(tmpdir, 0700), 0);

	/* No regular file: refused before SQLite makes its -journal. */
	assert_open_fails("/dev/null", STORE_CREATE, STORE_ERR_IO,
			  "not a regular file");
	assert_int_equal(stat("/dev/null-journal", &st), -1);
	assert_open_fails(tmp_path("shared"), STORE_READ, STORE_ERR_IO,
			  "is a directory");

	/* nobody's symlink on the way, to a directory of root's */
	assert_int_equal(mkdir(tmp_path("rootdir"), 0755), 0);
	assert_int_equal(symlink(tmp_path("rootdir"),
				 tmp_path("shared/link")), 0);
	assert_int_equal(lchown(tmp_path("shared/link"), 65534, 65534), 0);
	assert_open_fails(tmp_path("shared/link/s.db"), STORE_CREATE,
			  STORE_ERR_UNSAFE, "shared/link' is owned by nobody");
	assert_int_equal(stat(tmp_path("rootdir/s.db"), &st), -1);
	/* root's own symlink is followed */
	assert_int_equal(symlink(tmp_path("rootdir"), tmp_path("rootlink")),
			 0);
	store_close(open_new(tmp_path("rootlink/s.db")));
	assert_int_equal(stat(tmp_path("rootdir/s.db"), &st), 0);
}

/* Another connection holds the write lock: a save waits for the busy
 * timeout, then fails with LOCKED; once released, it succeeds. */
static void test_locked(void **state)
{
	const char *path = tmp_path("locked.db");
	struct store *s = open_new(path);
	struct store_entry *en;
	struct result r;
	struct error e;
	sqlite3 *other;
	long long id;
	double t0, waited;

	build_tagged(&r, 1, NULL, NULL);
	assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL,
				      NULL), SQLITE_OK);
	store_set_busy_timeout(s, 300);
	t0 = now();
	assert_int_equal(store_save(s, &r, &id, &e), -STORE_ERR_LOCKED);
	assert_int_equal(error_exit_code(&e), 3);
	waited = now() - t0;
	/* sqlite sleeps out the whole timeout before it gives up; the
	 * upper bound only says it does give up, however loaded the machine */
	assert_true(waited >= 0.29 && waited < 60);
	assert_non_null(strstr(e.msg, path));
	assert_non_null(strstr(e.msg, "locked"));
	/* Reading goes on meanwhile (WAL). */
	assert_int_equal(history(s, NULL, &en), 0);
	assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(store_save(s, &r, &id, &e), 0);
	assert_int_equal(id, 1);
	assert_int_equal(sqlite3_close(other), SQLITE_OK);
	result_free(&r);
	store_close(s);
}

static char *schema_of(const char *path)
{
	return raw_text(path, "SELECT group_concat(sql, ';') FROM (SELECT "
			"sql FROM sqlite_schema ORDER BY name)");
}

/* A version 1 store (v2 only adds indexes, v3 the fingerprint column)
 * migrates forward in place, its results intact; opening a current store
 * changes nothing; a store of a newer version is refused, the message
 * giving both versions. */
static void test_migration(void **state)
{
	const char *path = tmp_path("migrate.db");
	char *v2, *again;
	struct store *s = open_new(path);
	struct result r, back;

	build_rich(&r);
	save(s, &r);
	store_close(s);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 4);
	v2 = schema_of(path);
	raw_exec(path, "ALTER TABLE run_values DROP COLUMN process; "
		 "DROP INDEX results_fingerprint; ALTER TABLE results "
		 "DROP COLUMN fingerprint; DROP INDEX results_commit; "
		 "DROP INDEX results_branch; PRAGMA user_version = 1");

	s = open_new(path);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 4);
	again = schema_of(path);
	assert_string_equal(again, v2);
	load(s, "@aaaa1111", 0, &back);
	result_summarize(&r, 42, 200);
	assert_result_same(&r, &back);
	result_free(&back);
	store_close(s);
	free(again);

	s = open_new(path);
	store_close(s);
	again = schema_of(path);
	assert_string_equal(again, v2);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM results"), 1);
	assert_int_equal(raw_int(path, "SELECT journal_mode = 'wal' FROM "
				 "pragma_journal_mode"), 1);

	raw_exec(path, "PRAGMA user_version = 99");
	assert_open_fails(path, STORE_READ, STORE_ERR_SCHEMA, "newer yardstick");
	assert_open_fails(path, STORE_READ, STORE_ERR_SCHEMA, "is 99");
	assert_open_fails(path, STORE_READ, STORE_ERR_SCHEMA, "up to 4");
	free(again);
	free(v2);
	result_free(&r);
}

static long long save_to(const char *path, const struct result *r);

/* build_rich with the values of "sort" measured in processes: wall_time
 * in 3 (ids 0 0 1 1 2 2 5: the ids are kept as they are, not renumbered),
 * peak_rss without ids (one process). */
static void build_processes(struct result *r)
{
	static const unsigned ids[] = { 0, 0, 1, 1, 2, 2, 5 };
	struct metric *m;

	build_rich(r);
	m = benchmark_find_metric(&r->benchmarks[0], "wall_time");
	m->process = xcalloc(m->cap, sizeof(unsigned));
	memcpy(m->process, ids, sizeof(ids));
}

static void assert_ids_of(const struct result *r, bool with)
{
	static const unsigned ids[] = { 0, 0, 1, 1, 2, 2, 5 };
	const struct metric *m =
		benchmark_find_metric(&r->benchmarks[0], "wall_time");

	if (!with) {
		assert_null(m->process);
		return;
	}
	assert_non_null(m->process);
	assert_memory_equal(m->process, ids, sizeof(ids));
	assert_null(benchmark_find_metric(&r->benchmarks[0],
					  "peak_rss")->process);
}

/*
 * The process of every value (bench --processes) through the store: saved
 * and loaded equal, through SQLite and through the save log alike; a
 * result without them loads without them.
 */
static void test_process_round_trip(void **state)
{
	const char *path = store_loc("procs.db");
	struct store *s = open_new(path);
	struct result a, plain, back;
	long long id;

	build_processes(&a);
	build_rich(&plain);
	id = save(s, &a);
	load(s, NULL, id, &back);
	result_summarize(&a, 42, 200);
	assert_result_same(&a, &back);
	assert_ids_of(&back, true);
	result_free(&back);
	id = save(s, &plain);
	load(s, NULL, id, &back);
	assert_ids_of(&back, false);
	result_free(&back);
	store_close(s);
	if (!pg_sock) {		/* the save log is SQLite's */
		const char *lp = tmp_path("procs-log/s.db");
		struct error e;

		assert_int_equal(save_to(lp, &plain), 1);
		assert_int_equal(save_to(lp, &a), 2);	/* in the log */
		assert_int_equal(save_to(lp, &plain), 3);
		assert_int_equal(store_open(&s, lp, STORE_READ, &e), 0);
		load(s, "2", 0, &back);
		assert_result_same(&a, &back);
		assert_ids_of(&back, true);
		result_free(&back);
		load(s, "3", 0, &back);
		assert_ids_of(&back, false);
		result_free(&back);
		store_close(s);
	}
	result_free(&a);
	result_free(&plain);
}

/*
 * A store of version 3 (before the process column) opened read-only is
 * read as it is, without process ids (note 8 of store.c); opened to
 * write, it is migrated, its old values still without, a new result's
 * with.
 */
static void test_process_old_store(void **state)
{
	const char *path = tmp_path("procs-v3.db");
	struct store *s = open_new(path);
	struct result a, back;
	struct error e;
	long long id;

	build_processes(&a);
	id = save(s, &a);
	store_close(s);
	raw_exec(path, "ALTER TABLE run_values DROP COLUMN process; "
		 "PRAGMA user_version = 3");
	assert_int_equal(store_open(&s, path, STORE_READ, &e), 0);
	load(s, NULL, id, &back);
	assert_ids_of(&back, false);
	assert_int_equal(back.benchmarks[0].metrics[0].n, 7);
	result_free(&back);
	store_close(s);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 3);
	s = open_new(path);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 4);
	load(s, NULL, id, &back);
	assert_ids_of(&back, false);
	result_free(&back);
	id = save(s, &a);
	load(s, NULL, id, &back);
	assert_ids_of(&back, true);
	result_free(&back);
	store_close(s);
	result_free(&a);
}

/* ---- the save log (store_log.c) ---- */

static long long save_to(const char *path, const struct result *r)
{
	struct error e;
	long long id = 0;
	int ret = store_save_to(path, r, &id, NULL, &e);

	return saved(ret, id, &e);
}

static off_t size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* The store's warnings, kept for the test to look at. */
static char warnings[8192];
static int nwarnings;

static void keep_warning(const char *msg)
{
	size_t len = strlen(warnings);

	snprintf(warnings + len, sizeof(warnings) - len, "%s\n", msg);
	nwarnings++;
}

static void clear_warnings(void)
{
	warnings[0] = '\0';
	nwarnings = 0;
}

/* The ids of the results in the history of path, newest first, into ids
 * (at most max); how many. */
static size_t history_ids(const char *path, long long *ids, size_t max)
{
	struct store_entry *en;
	struct store *s;
	struct error e;
	size_t n, k = 0;

	if (store_open(&s, path, STORE_READ, &e))
		fail_msg("%s", e.msg);
	n = history(s, NULL, &en);
	for (size_t i = 0; i < n; i++) {
		if (k && ids[k - 1] == en[i].id)
			continue;	/* a result's next benchmark */
		assert_true(k < max);
		ids[k++] = en[i].id;
	}
	store_entries_free(en, n);
	store_close(s);
	return k;
}

static void assert_ids(const char *path, const long long *want, size_t n)
{
	long long got[64];

	assert_int_equal(history_ids(path, got, 64), n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

/*
 * The first save goes through SQLite and makes the log; the next ones
 * are appended to the log without touching the database, under the ids
 * they said, found by reference once a command opens the store, equal
 * field for field and bit for bit. A log moved in but not emptied (a
 * kill between the two) is not moved in twice; a save through SQLite
 * after logged ones takes the next id.
 */
static void test_log_save(void **state)
{
	const char *path = tmp_path("log/s.db"), *log = tmp_path("log/s.db-log");
	static const long long all[] = { 6, 5, 4, 3, 2, 1 };
	struct result rich, t, back;
	struct store *s;
	char *kept;
	size_t len;
	struct error e;

	build_rich(&rich);
	/* bytes that are not UTF-8 (a command's argument can hold any):
	 * kept as they are, as SQLite keeps them (JSON could not) */
	benchmark_add_param(&rich.benchmarks[1], "raw", "\xff\xfe-\xc3");
	build_tagged(&t, 7, COMMIT_B, "main");
	assert_int_equal(save_to(path, &rich), 1);
	assert_int_equal(size_of(log), LOG_HEADER);
	assert_int_equal(save_to(path, &rich), 2);
	assert_int_equal(save_to(path, &t), 3);
	assert_true(size_of(log) > LOG_HEADER);
	/* in the log only: the database has the first */
	assert_int_equal(raw_int(path, "SELECT count(*) FROM results"), 1);
	assert_int_equal(file_read_all(log, &kept, &len, &e), 0);

	assert_int_equal(store_open(&s, path, STORE_READ, &e), 0);
	load(s, "2", 0, &back);
	result_summarize(&rich, 42, 200);
	assert_result_same(&rich, &back);
	assert_string_equal(back.benchmarks[1].params[0].value,
			    "\xff\xfe-\xc3");
	result_free(&back);
	assert_true(tag_of(s, "latest") == 7);
	assert_true(tag_of(s, "@bbbb2222") == 7);
	assert_true(tag_of(s, "branch:main") == 7);
	store_close(s);
	assert_int_equal(size_of(log), LOG_HEADER);	/* emptied */
	assert_int_equal(raw_int(path, "SELECT count(*) FROM results"), 3);

	/* killed after the commit, before emptying the log */
	write_file(log, kept, len);
	assert_ids(path, all + 3, 3);
	assert_int_equal(size_of(log), LOG_HEADER);

	assert_int_equal(save_to(path, &t), 4);
	s = open_new(path);
	assert_int_equal(save(s, &t), 5);
	store_close(s);
	assert_int_equal(save_to(path, &t), 6);
	assert_ids(path, all, 6);
	free(kept);
	result_free(&rich);
	result_free(&t);
}

/* The log's header field at off (store_log.h), a u32. */
static unsigned log_u32(const char *log, off_t off)
{
	unsigned char b[4];
	int fd = open(log, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, b, 4, off), 4);
	close(fd);
	return b[0] | b[1] << 8 | b[2] << 16 | (unsigned)b[3] << 24;
}

/*
 * Damage: a byte of one record changed, the last record cut short while
 * the header counts it: each is skipped with a warning naming the log and
 * the offset, every other record kept. Bytes past the header's end (an
 * append killed before its header) are ignored, written over by the next
 * save, and not warned about.
 */
static void test_log_damage(void **state)
{
	const char *path = tmp_path("dmg.db"), *log = tmp_path("dmg.db-log");
	static const long long kept[] = { 7, 5, 4, 2, 1 };
	long long off[8];
	struct result t;
	unsigned char c;
	int fd;

	for (int i = 1; i <= 6; i++) {
		build_tagged(&t, i, NULL, NULL);
		assert_int_equal(save_to(path, &t), i);
		result_free(&t);
		off[i] = size_of(log);	/* the end of record i */
	}
	fd = open(log, O_RDWR);
	assert_true(fd >= 0);
	/* record 3 (from off[2]): a byte of its payload */
	assert_int_equal(pread(fd, &c, 1, off[2] + 30), 1);
	c ^= 0x40;
	assert_int_equal(pwrite(fd, &c, 1, off[2] + 30), 1);
	/* record 6: cut in the middle */
	assert_int_equal(ftruncate(fd, off[5] + 25), 0);
	close(fd);

	clear_warnings();
	store_set_warn(keep_warning);
	/* and junk after the cut, within the end the header gives */
	fd = open(log, O_WRONLY | O_APPEND);
	assert_int_equal(write(fd, "YSR1garbage", 11), 11);
	close(fd);
	assert_int_equal(log_u32(log, 24), off[6]);
	build_tagged(&t, 7, NULL, NULL);
	/* the header's end is past the file's: the save goes through SQLite,
	 * which moves the log in first */
	assert_int_equal(save_to(path, &t), 7);
	result_free(&t);
	assert_ids(path, kept, 5);
	store_set_warn(NULL);
	/* the two damages skipped, and the log copied aside with them */
	assert_int_equal(nwarnings, 3);
	if (!strstr(warnings, "skipped") || !strstr(warnings, log) ||
	    !strstr(warnings, "set aside as"))
		fail_msg("%s", warnings);
	{
		char *aside = xasprintf("%s.damaged-1", log);

		assert_int_equal(access(aside, R_OK), 0);
		unlink(aside);
		free(aside);
	}

	/* an append that never finished: ignored and written over */
	build_tagged(&t, 8, NULL, NULL);
	assert_int_equal(save_to(path, &t), 8);
	fd = open(log, O_WRONLY | O_APPEND);
	assert_int_equal(write(fd, "YSR1torn-record", 15), 15);
	close(fd);
	assert_int_equal(save_to(path, &t), 9);
	result_free(&t);
	clear_warnings();
	store_set_warn(keep_warning);
	assert_int_equal(history_ids(path, off, 8), 7);
	store_set_warn(NULL);
	assert_int_equal(nwarnings, 0);
}

/* Write the little-endian n-byte v at off of file path. */
static void put_le(const char *path, off_t off, unsigned long long v,
		   size_t n)
{
	unsigned char b[8];
	int fd = open(path, O_WRONLY);

	assert_true(n <= sizeof(b));
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, b, n, off), (ssize_t)n);
	close(fd);
}

/* One damage of the log's header: a field (its offset and width) and
 * the value written there. */
struct hdr_damage {
	off_t off;
	size_t width;
	unsigned long long value;
	const char *why;	/* what the warning says */
};

/*
 * Issue 25 case 16, as a class: every field of the log's header damaged,
 * each to values out of its range or inconsistent with another (the next
 * id 0, negative, INT64_MAX, past 2^53; the end inside the header, past
 * any log; a count the end cannot hold; another version or magic). Each
 * time: the save after the damage takes the store's next id (never the
 * damaged one), the log is set aside with the damaged header as it was
 * (the warning says where), the records in it that check are kept under
 * their ids, and the saves after it go on (the old store: "saved as
 * result 9223372036854775807", then "the disk is full" for ever).
 */
static void test_log_header(void **state)
{
	static const struct hdr_damage cases[] = {
		{ 16, 8, 0, "next id" },
		{ 16, 8, (unsigned long long)-1, "next id" },
		{ 16, 8, 0x7fffffffffffffffULL, "next id" },
		{ 16, 8, ((unsigned long long)1 << 53) + 1, "next id" },
		{ 16, 8, 0x8000000000000000ULL, "next id" },
		{ 24, 8, 0, "end" },
		{ 24, 8, 31, "end" },
		{ 24, 8, (unsigned long long)1 << 62, "end" },
		{ 24, 8, 33, "record count" },
		{ 12, 4, 0, "record count" },
		{ 12, 4, 0xffffffffULL, "record count" },
		{ 12, 4, 1000, "record count" },
		{ 8, 4, 2, "version" },
		{ 0, 1, 'X', "no log header" },
	};
	static const long long want[] = { 7, 6, 5, 4, 3, 2, 1 };
	struct result t;

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct hdr_damage *c = &cases[k];
		char name[64], *log, *aside;
		unsigned char head[32], got[32];
		struct store *s;
		struct error e;
		int fd;

		snprintf(name, sizeof(name), "hdr%zu.db", k);
		log = xasprintf("%s-log", tmp_path(name));
		aside = xasprintf("%s.damaged-1", log);
		for (int i = 1; i <= 5; i++) {
			build_tagged(&t, i, NULL, NULL);
			assert_int_equal(save_to(tmp_path(name), &t), i);
			result_free(&t);
			if (i == 3) {	/* 1-3 in the database, 4-5 logged */
				assert_int_equal(store_open(&s, tmp_path(name),
						 STORE_WRITE, &e), 0);
				store_close(s);
			}
		}
		assert_int_equal(log_u32(log, 12), 2);
		put_le(log, c->off, c->value, c->width);
		fd = open(log, O_RDONLY);
		assert_int_equal(pread(fd, head, 32, 0), 32);
		close(fd);

		clear_warnings();
		store_set_warn(keep_warning);
		build_tagged(&t, 6, NULL, NULL);
		assert_int_equal(save_to(tmp_path(name), &t), 6);
		result_free(&t);
		store_set_warn(NULL);
		if (!strstr(warnings, "damaged") || !strstr(warnings, c->why) ||
		    !strstr(warnings, aside))
			fail_msg("case %zu: %s", k, warnings);
		/* set aside as it was */
		fd = open(aside, O_RDONLY);
		assert_true(fd >= 0);
		assert_int_equal(pread(fd, got, 32, 0), 32);
		close(fd);
		assert_memory_equal(got, head, 32);
		/* and the store goes on: the next save appends again */
		build_tagged(&t, 7, NULL, NULL);
		assert_int_equal(save_to(tmp_path(name), &t), 7);
		result_free(&t);
		assert_int_equal(log_u32(log, 12), 1);
		assert_ids(tmp_path(name), want, 7);
		free(log);
		free(aside);
	}
}

/*
 * A store an older yardstick jammed: a result saved under the id
 * INT64_MAX (AUTOINCREMENT's sequence at its end, where SQLite's next id
 * is "the disk is full") and a logged record with an id out of range.
 * Both results are kept; the saves go on from the ids below 2^53.
 */
static void test_log_jammed(void **state)
{
	const char *path = tmp_path("jam.db"), *log = tmp_path("jam.db-log");
	static const long long want[] = { 7, 6, 5, 4, 3, 2, 1 };
	struct result t;
	struct store *s;
	struct error e;
	long long id = 0;
	off_t rec;

	for (int i = 1; i <= 2; i++) {
		build_tagged(&t, i, NULL, NULL);
		assert_int_equal(save_to(path, &t), i);
		result_free(&t);
	}
	rec = size_of(log);
	raw_exec(path, "UPDATE sqlite_sequence SET seq = 9223372036854775807 "
		 "WHERE name = 'results'");
	/* record 3, logged under an id out of range: its id and crc */
	build_tagged(&t, 3, NULL, NULL);
	assert_int_equal(save_to(path, &t), 3);
	result_free(&t);
	{
		size_t len = (size_t)(size_of(log) - rec);
		unsigned char *b = malloc(len);
		int fd = open(log, O_RDWR);

		assert_int_equal(pread(fd, b, len, rec), (ssize_t)len);
		log_record_frame(b, len);
		log_record_set_id(b, 9223372036854775807LL);
		assert_int_equal(pwrite(fd, b, len, rec), (ssize_t)len);
		close(fd);
		free(b);
	}
	clear_warnings();
	store_set_warn(keep_warning);
	for (int i = 4; i <= 5; i++) {
		build_tagged(&t, i, NULL, NULL);
		assert_int_equal(save_to(path, &t), i);
		result_free(&t);
	}
	{
		long long got[8];

		size_t k = history_ids(path, got, 8);
		if (k != 5)
			fail_msg("%zu ids, first %lld; %s", k, got[0], warnings);
	}
	store_set_warn(NULL);
	if (!strstr(warnings, "out of range"))
		fail_msg("%s", warnings);
	/* saves go on: appended, and through SQLite */
	build_tagged(&t, 6, NULL, NULL);
	assert_int_equal(save_to(path, &t), 6);
	assert_int_equal(store_open(&s, path, STORE_WRITE, &e), 0);
	if (store_save(s, &t, &id, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(id, 7);
	store_close(s);
	result_free(&t);
	assert_ids(path, want, 7);
}

/*
 * A saver killed (SIGKILL) wherever it is, in the middle of an append
 * too: every save that returned is in the store, under the id it said,
 * nothing twice, and saves go on.
 */
static void log_killed(const char *path)
{
	long long said[64];
	size_t nsaid = 0, n;
	struct result r;
	int fds[2];
	pid_t pid;

	build_writer(&r, 1, 1);
	save_to(path, &r);		/* the log made */
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct result big;
		struct benchmark *b;

		close(fds[0]);
		result_init(&big, "run");
		b = result_add_benchmark(&big, "big", NULL);
		for (int k = 0; k < 50000; k++)
			metric_push(benchmark_metric(b, "wall_time", "s"), k);
		for (;;) {
			long long id = save_to(path, &big);

			if (write(fds[1], &id, sizeof(id)) != sizeof(id))
				_exit(1);
		}
	}
	close(fds[1]);
	while (nsaid < 8 && read(fds[0], &said[nsaid], sizeof(said[0])) ==
	       sizeof(said[0]))
		nsaid++;
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	while (nsaid < 64 && read(fds[0], &said[nsaid], sizeof(said[0])) ==
	       sizeof(said[0]))
		nsaid++;
	close(fds[0]);
	assert_true(save_to(path, &r) > said[nsaid - 1]);
	result_free(&r);
	{
		long long ids[80];
		struct store *s;
		struct result back;

		n = history_ids(path, ids, 80);
		/* what was said, maybe one whose saver died before saying
		 * it, the first and the last */
		assert_true(n >= nsaid + 2 && n <= nsaid + 3);
		for (size_t i = 1; i < n; i++)
			assert_true(ids[i] < ids[i - 1]);
		s = open_new(path);
		for (size_t i = 0; i < nsaid; i++) {
			char ref[32];

			snprintf(ref, sizeof(ref), "%lld", said[i]);
			load(s, ref, 0, &back);
			assert_string_equal(back.benchmarks[0].name, "big");
			assert_int_equal(back.benchmarks[0].metrics[0].n, 50000);
			result_free(&back);
		}
		store_close(s);
	}
}

static void test_log_killed(void **state)
{
	log_killed(tmp_path("kill.db"));
}

/*
 * The same with the bound lowered to 3 records or 1 MiB (a record here
 * is about 450 KB): the saver moves the log every other save or so, and
 * the kill lands in a move as often as in an append. The bound of 1024
 * records left no move before the kill (since the bound was raised from
 * 64, the test saw appends only).
 */
static void test_log_killed_moving(void **state)
{
	for (int i = 0; i < 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "killm%d.db", i);
		store_set_log_bound(3, 1 << 20);
		log_killed(tmp_path(name));
		store_set_log_bound(0, 0);
	}
}

/*
 * 8 processes save 20 results each at once, through the log, while a
 * reader opens the store again and again (moving the log in too): every result arrives once,
 * under the id its saver was given, the ids 1..161 without a gap.
 */
static void log_concurrent(const char *path)
{
	char name[WRITERS * SAVES + 2][32];
	int ids[2], done[2], status;
	pid_t pids[WRITERS], reader;
	struct store_entry *en;
	struct store *s;
	struct result r;
	struct error e;
	char line[64];
	size_t n;
	FILE *fp;

	build_writer(&r, 9, 9);
	assert_int_equal(save_to(path, &r), 1);
	result_free(&r);
	memset(name, 0, sizeof(name));
	assert_int_equal(pipe(ids), 0);
	assert_int_equal(pipe(done), 0);
	reader = fork();
	assert_true(reader >= 0);
	if (reader == 0) {
		char c;

		close(done[1]);
		close(ids[0]);
		close(ids[1]);
		fcntl(done[0], F_SETFL, O_NONBLOCK);
		while (read(done[0], &c, 1) < 0) {
			if (store_open(&s, path, STORE_READ, &e))
				_exit(1);
			if (store_history(s, NULL, &en, &n, &e))
				_exit(2);
			store_entries_free(en, n);
			store_close(s);
		}
		_exit(0);
	}
	close(done[0]);
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			close(ids[0]);
			for (int i = 0; i < SAVES; i++) {
				long long id;

				build_writer(&r, w, i);
				if (store_save_to(path, &r, &id, NULL, &e))
					_exit(1);
				snprintf(line, sizeof(line), "%lld w%d-%d\n",
					 id, w, i);
				if (write(ids[1], line, strlen(line)) < 0)
					_exit(2);
				result_free(&r);
			}
			_exit(0);
		}
	}
	close(ids[1]);
	fp = fdopen(ids[0], "r");
	n = 0;
	while (fgets(line, sizeof(line), fp)) {
		long long id;
		char nm[32];

		assert_int_equal(sscanf(line, "%lld %31s", &id, nm), 2);
		assert_true(id >= 2 && id <= WRITERS * SAVES + 1);
		assert_int_equal(name[id][0], '\0');	/* each id once */
		snprintf(name[id], sizeof(name[id]), "%s", nm);
		n++;
	}
	fclose(fp);
	assert_int_equal(n, WRITERS * SAVES);
	for (int w = 0; w < WRITERS; w++) {
		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	close(done[1]);
	assert_int_equal(waitpid(reader, &status, 0), reader);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	assert_int_equal(store_open(&s, path, STORE_READ, &e), 0);
	assert_int_equal(n = history(s, NULL, &en), WRITERS * SAVES + 1);
	for (size_t j = 0; j < n; j++) {
		assert_int_equal(en[j].id, (long long)(n - j));
		if (en[j].id > 1) {
			assert_string_equal(en[j].benchmark, name[en[j].id]);
			check_writer_result(s, en[j].id);
		}
	}
	store_entries_free(en, n);
	store_close(s);
}

static void test_log_concurrent(void **state)
{
	log_concurrent(tmp_path("logc/results.db"));
}

/*
 * The same with the bound lowered to 4 records: the savers move the log
 * too, racing each other and the reader (with the bound at 1024, 160
 * saves never reach it: only the reader moved).
 */
static void test_log_concurrent_moving(void **state)
{
	store_set_log_bound(4, 0);
	log_concurrent(tmp_path("logcm/results.db"));
	store_set_log_bound(0, 0);
}

/*
 * However many saves nobody reads, the log stays under its bound (1024
 * records): the save that reaches it moves it into the store, and none
 * before it opens the database (the store holds the first save alone,
 * the one that made it, until then: a save costs one append).
 */
static void test_log_bound(void **state)
{
	const char *path = tmp_path("bound.db"), *log = tmp_path("bound.db-log");
	struct result t;
	unsigned most = 0;

	build_tagged(&t, 1, NULL, NULL);
	for (int i = 0; i < 2100; i++) {
		save_to(path, &t);
		if (log_u32(log, 12) > most)
			most = log_u32(log, 12);
		if (i == 1023)	/* the first save, then 1023 in the log */
			assert_int_equal(raw_int(path, "SELECT count(*) "
						 "FROM results"), 1);
	}
	result_free(&t);
	assert_true(most == 1023);
	assert_true(raw_int(path, "SELECT count(*) FROM results") >=
		    2100 - 1023);
	assert_int_equal(raw_int(path, "SELECT max(id) FROM results") +
			 log_u32(log, 12), 2100);
}


/*
 * A save that takes the log past its bound (lowered to 4) has the move
 * done elsewhere (*move), and the saves after it append meanwhile, up to
 * twice the bound; the one that finds the log there saves through SQLite
 * and moves it itself. Every result once, under the id its save gave.
 */
static void test_log_move_apart(void **state)
{
	const char *path = tmp_path("apart.db"), *log = tmp_path("apart.db-log");
	static const unsigned want_records[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 0 };
	static const bool want_move[] = { 0, 0, 0, 0, 1, 0, 0, 0, 0, 0 };
	long long want[10];
	struct result t;
	struct error e;

	store_set_log_bound(4, 0);
	for (int i = 0; i < 10; i++) {
		long long id = 0;
		bool move = true;

		build_tagged(&t, i + 1, NULL, NULL);
		if (store_save_to(path, &t, &id, &move, &e))
			fail_msg("%s", e.msg);
		result_free(&t);
		assert_int_equal(id, i + 1);
		assert_int_equal(log_u32(log, 12), want_records[i]);
		if (move != want_move[i])
			fail_msg("save %d: move %d", i + 1, move);
		want[9 - i] = i + 1;
	}
	store_set_log_bound(0, 0);
	assert_ids(path, want, 10);
}

static double secs_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * The wait of the move a save starts (store flush --idle), the bound
 * lowered to 4: it waits for idle_ms without appends; one waiter per
 * store (a second finds the first and returns false, the first's lock
 * seen by store_log_move_waiting until it lets go); a log at 1.5 times
 * its bound is moved without waiting; no log, or an empty one, is not
 * waited for.
 */
static void test_log_wait_idle(void **state)
{
	const char *path = tmp_path("idle.db"), *log = tmp_path("idle.db-log");
	struct timespec t0;
	struct result t;
	struct error e;
	int hold = -2, hold2 = -2;

	assert_true(store_log_wait_idle(path, 100000, 200000, &hold));
	assert_int_equal(hold, -1);	/* no log: nothing to wait for */
	store_set_log_bound(4, 0);
	for (int i = 0; i < 5; i++) {
		long long id = 0;
		bool move = false;

		build_tagged(&t, i + 1, NULL, NULL);
		if (store_save_to(path, &t, &id, &move, &e))
			fail_msg("%s", e.msg);
		result_free(&t);
	}
	assert_int_equal(log_u32(log, 12), 4);
	assert_false(store_log_move_waiting(path));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_true(store_log_wait_idle(path, 300, 200000, &hold));
	assert_true(secs_since(&t0) >= 0.3);
	assert_true(hold >= 0);
	assert_true(store_log_move_waiting(path));
	assert_false(store_log_wait_idle(path, 100000, 200000, &hold2));
	assert_int_equal(hold2, -1);
	close(hold);
	assert_false(store_log_move_waiting(path));

	/* 6 records: 1.5 times the bound, moved at once, however long the
	 * wait asked for */
	for (int i = 5; i < 7; i++) {
		build_tagged(&t, i + 1, NULL, NULL);
		save_to(path, &t);
		result_free(&t);
	}
	assert_int_equal(log_u32(log, 12), 6);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_true(store_log_wait_idle(path, 100000, 200000, &hold));
	assert_true(secs_since(&t0) < 50);
	close(hold);

	/* moved: an empty log is not waited for either */
	if (store_flush(path, NULL, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(log_u32(log, 12), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_true(store_log_wait_idle(path, 100000, 200000, &hold));
	assert_true(secs_since(&t0) < 50);
	close(hold);
	store_set_log_bound(0, 0);
}

/* The hook of test_log_move_meanwhile: what happens while a move has
 * read the log and not yet committed. */
static int meanwhile_saves, meanwhile_flush;

static void save_one(const char *path, int tag)
{
	struct result t;

	build_tagged(&t, tag, NULL, NULL);
	assert_true(save_to(path, &t) > 0);
	result_free(&t);
}

static void save_meanwhile(const char *path)
{
	for (int i = 0; i < meanwhile_saves; i++)
		save_one(path, 100 + i);
	if (meanwhile_flush) {
		pid_t pid = fork();
		int st;

		/* another process moves the log in too, at this very point
		 * (what was saved meanwhile with it), then one more save */
		if (pid == 0) {
			store_set_ingest_hook(NULL);
			_exit(store_flush(path, NULL, &(struct error){ 0 }) ?
			      1 : 0);
		}
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		save_one(path, 200);
	}
}

/*
 * Saves while a move has read the log but not committed (the log is not
 * locked then): they are appended, not waited for; the move takes out of
 * the log what it committed, and keeps them, moved to its front. With
 * another move (another process) in between too, which took the same
 * records and the new ones, then a save after it: nothing twice, nothing
 * lost. Each case with 0, 1 and 3 saves meanwhile.
 */
static void test_log_move_meanwhile(void **state)
{
	for (int k = 0; k < 6; k++) {
		char name[32], *log;
		long long want[16], id = 0;
		size_t n = 0, in_log;
		struct result t;
		struct store *s;
		struct error e;

		snprintf(name, sizeof(name), "meanwhile%d.db", k);
		log = xasprintf("%s-log", tmp_path(name));
		for (int i = 0; i < 4; i++) {
			build_tagged(&t, i + 1, NULL, NULL);
			assert_int_equal(save_to(tmp_path(name), &t), i + 1);
			result_free(&t);
		}
		meanwhile_saves = (int[]){ 0, 1, 3 }[k % 3];
		meanwhile_flush = k >= 3;
		store_set_ingest_hook(save_meanwhile);
		if (store_flush(tmp_path(name), NULL, &e))
			fail_msg("%s", e.msg);
		store_set_ingest_hook(NULL);
		/* the log holds what was saved meanwhile, but what the other
		 * move took */
		in_log = meanwhile_flush ? 1 : (size_t)meanwhile_saves;
		if (log_u32(log, 12) != in_log)
			fail_msg("case %d: %u records in the log, not %zu", k,
				 log_u32(log, 12), in_log);
		assert_int_equal(size_of(log) == 32, in_log == 0);
		for (int i = 4 + meanwhile_saves + meanwhile_flush; i >= 1; i--)
			want[n++] = i;
		assert_ids(tmp_path(name), want, n);
		assert_int_equal(log_u32(log, 12), 0);
		/* and saves go on, ids after them */
		build_tagged(&t, 9, NULL, NULL);
		assert_int_equal(store_open(&s, tmp_path(name), STORE_WRITE,
					    &e), 0);
		assert_int_equal(store_save(s, &t, &id, &e), 0);
		store_close(s);
		result_free(&t);
		assert_int_equal(id, (long long)n + 1);
		free(log);
	}
}

/*
 * A store the user cannot write (root's, read by nobody): its readers see
 * the logged results, moved into a private copy; the log is left as it
 * is, for its owner's next command.
 */
static void test_log_readonly(void **state)
{
	const char *path = tmp_path("lro/s.db"), *log = tmp_path("lro/s.db-log");
	struct result t;
	off_t size;

	build_tagged(&t, 1, NULL, NULL);
	for (int i = 0; i < 3; i++)
		save_to(path, &t);
	result_free(&t);
	size = size_of(log);
	assert_true(size > LOG_HEADER);
	assert_int_equal(chmod(tmpdir, 0755), 0);
	assert_nobody_reads(path, "n=3");
	assert_int_equal(size_of(log), size);
	/* its own directory read-only */
	assert_int_equal(chmod(tmp_path("lro"), 0555), 0);
	assert_nobody_reads(path, "n=3");
	assert_int_equal(chmod(tmp_path("lro"), 0755), 0);
	assert_int_equal(chmod(tmpdir, 0700), 0);
	assert_int_equal(size_of(log), size);
	assert_int_equal(history_ids(path, (long long[4]){ 0 }, 4), 3);
	assert_int_equal(size_of(log), LOG_HEADER);
}

/*
 * The history's entries carry their result's setting bootstrap_max_draws
 * (a report's history summarizes the values with it, as the result
 * did): 1000000 as `load` writes it, from the database and from the
 * log; the default budget without it, for a string and for a value that
 * is no whole number.
 */
static void test_history_max_draws(void **state)
{
	const char *path = tmp_path("hmd/s.db");
	static const double set[] = { 1000000, NAN, 0.5, 1000000, -1 };
	static const size_t want[] = { 1000000, STATS_BOOTSTRAP_BUDGET,
				       STATS_BOOTSTRAP_BUDGET, 1000000,
				       STATS_BOOTSTRAP_BUDGET };
	struct store_entry *en;
	struct store *s;
	size_t n;

	for (int i = 0; i < 5; i++) {
		struct result t;

		build_tagged(&t, i, NULL, NULL);
		if (i == 1)
			result_set_str(&t, "bootstrap_max_draws", "1000");
		else
			result_set_num(&t, "bootstrap_max_draws", set[i]);
		save_to(path, &t);	/* the first into the database, the
					 * others into the log */
		result_free(&t);
	}
	s = open_new(path);
	assert_int_equal(n = history(s, NULL, &en), 5);
	for (size_t j = 0; j < n; j++)	/* newest first */
		if (en[j].max_draws != want[n - 1 - j])
			fail_msg("result %lld: max_draws %zu, expected %zu",
				 en[j].id, en[j].max_draws, want[n - 1 - j]);
	store_entries_free(en, n);
	store_close(s);
}

/* store_default_path, run in tmpdir/rel, is want (under tmpdir unless
 * absolute). */
static void assert_default(const char *rel, const char *want)
{
	const char *dir = tmp_path(rel);
	const char *expect = want[0] == '/' ? want : tmp_path(want);
	char *old = getcwd(NULL, 0), *got;

	assert_int_equal(chdir(dir), 0);
	got = store_default_path(NULL);
	assert_int_equal(chdir(old), 0);
	assert_string_equal(got, expect);
	free(got);
	free(old);
}

static void test_default_path(void **state)
{
	const char *env = getenv("YARDSTICK_STORE");
	char *saved = env ? xstrdup(env) : NULL;
	char *cmd = xasprintf("cd '%s' && mkdir -p repo/a/b worktree/sub "
			      "plain/sub && git init -q repo && echo 'gitdir: "
			      "/nowhere' > worktree/.git", tmpdir);

	assert_int_equal(system(cmd), 0);
	setenv("YARDSTICK_STORE", "/some/where/else.db", 1);
	assert_default("repo/a/b", "/some/where/else.db");
	setenv("YARDSTICK_STORE", "", 1);	/* empty counts as unset */
	assert_default("repo/a/b", "repo/.yardstick/results.db");
	unsetenv("YARDSTICK_STORE");
	assert_default("repo/a/b", "repo/.yardstick/results.db");
	assert_default("repo", "repo/.yardstick/results.db");
	/* A .git file (worktree, submodule) marks a top-level too. */
	assert_default("worktree/sub", "worktree/.yardstick/results.db");
	/* Outside git: the current directory (unless /tmp is in a repo). */
	if (access("/tmp/.git", F_OK) && access("/.git", F_OK))
		assert_default("plain/sub", "plain/sub/.yardstick/results.db");
	/* A repository of another user: no default store, and why. */
	if (geteuid() == 0) {
		struct error e;
		char *old = getcwd(NULL, 0);
		char *own = xasprintf("chown -R nobody '%s/repo'", tmpdir);

		assert_int_equal(system(own), 0);
		assert_int_equal(chdir(tmp_path("repo/a/b")), 0);
		assert_null(store_default_path(&e));
		assert_int_equal(chdir(old), 0);
		assert_non_null(strstr(e.msg, "owned by nobody"));
		assert_non_null(strstr(e.msg, "safe.directory"));
		assert_non_null(strstr(e.msg, "--store"));
		free(own);
		free(old);
	}
	if (saved)
		setenv("YARDSTICK_STORE", saved, 1);
	free(saved);
	free(cmd);
}

/* ---- store_copy, between the backends ---- */

static void renumber_seen(long long from, long long to, void *ctx)
{
	long long *last = ctx;

	last[0] = from;
	last[1] = to;
}

/* Copy from into to: the counts as expected. */
static void assert_copy(const char *from, const char *to, size_t copied,
			size_t skipped, size_t renumbered)
{
	long long last[2] = { 0, 0 };
	struct store_copy_stats st = { .on_renumber = renumber_seen,
				       .ctx = last };
	struct store *a = NULL, *b = NULL;
	struct error e;

	if (store_open(&a, from, STORE_READ, &e) ||
	    store_open(&b, to, STORE_CREATE, &e))
		fail_msg("%s", e.msg);
	if (store_copy(a, b, &st, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(st.copied, copied);
	assert_int_equal(st.skipped, skipped);
	assert_int_equal(st.renumbered, renumbered);
	store_close(a);
	store_close(b);
}

/* Result id of the stores at a and b: the same, bit for bit. */
static void assert_same_in(const char *a, long long ida, const char *b,
			   long long idb)
{
	struct store *sa = open_new(a), *sb = open_new(b);
	struct result ra, rb;

	load(sa, NULL, ida, &ra);
	load(sb, NULL, idb, &rb);
	assert_result_same(&ra, &rb);
	result_free(&ra);
	result_free(&rb);
	store_close(sa);
	store_close(sb);
}

/*
 * A history copied from SQLite into the store of the backend under test
 * and back into a new SQLite file: every result the same, bit for bit,
 * under its id; a second copy copies nothing (the fingerprint); a copy
 * into a store holding other results renumbers them and says so; a
 * SQLite store saved before the fingerprints had them filled in.
 */
static void test_copy(void **state)
{
	/* copies: tmp_path's buffers are reused by assert_result_same */
	char *src = xstrdup(tmp_path("copy-src.db"));
	char *back = xstrdup(tmp_path("copy-back.db"));
	char *mid = xstrdup(store_loc("copy_mid"));
	char *other = xstrdup(store_loc("copy_other"));
	struct store *s = open_new(src);
	struct result r;

	build_rich(&r);
	save(s, &r);
	result_free(&r);
	for (int i = 0; i < 3; i++) {
		build_tagged(&r, i, i ? COMMIT_B : COMMIT_A1, "main");
		save(s, &r);
		result_free(&r);
	}
	store_close(s);

	assert_copy(src, mid, 4, 0, 0);
	assert_copy(src, mid, 0, 4, 0);
	for (long long id = 1; id <= 4; id++)
		assert_same_in(src, id, mid, id);
	s = open_new(mid);		/* the next id after the kept ones */
	build_tagged(&r, 9, NULL, "dev");
	assert_int_equal(save(s, &r), 5);
	result_free(&r);
	store_close(s);
	assert_copy(mid, back, 5, 0, 0);
	assert_copy(back, mid, 0, 5, 0);
	assert_copy(mid, src, 1, 4, 0);
	for (long long id = 1; id <= 5; id++)
		assert_same_in(back, id, src, id);

	s = open_new(other);
	build_tagged(&r, 42, NULL, NULL);
	save(s, &r);
	result_free(&r);
	store_close(s);
	assert_copy(src, other, 5, 0, 5);
	assert_copy(src, other, 0, 5, 0);
	assert_same_in(src, 1, other, 2);

	/* rows saved before schema version 3 have no fingerprint: filled in
	 * by the next copy into the store, which then skips them */
	raw_exec(back, "UPDATE results SET fingerprint = NULL");
	assert_copy(src, back, 0, 5, 0);
	assert_int_equal(raw_int(back, "SELECT count(*) FROM results WHERE "
				 "fingerprint IS NULL"), 0);
	free(src);
	free(back);
	free(mid);
	free(other);
}

/* ---- the PostgreSQL store's own ---- */

#define MIGRATORS 32

/* 32 processes open one new database at once: one migrates under the
 * advisory lock, the others find nothing to do; all save. */
static void test_pg_migration_race(void **state)
{
	const char *url = store_loc("race");
	pid_t pids[MIGRATORS];
	int start[2], status;

	assert_int_equal(pipe(start), 0);
	for (int w = 0; w < MIGRATORS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			close(start[1]);
			writer(url, w, 1, start[0]);
		}
	}
	close(start[0]);
	close(start[1]);
	for (int w = 0; w < MIGRATORS; w++) {
		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_string_equal(pg_sql("race", "SELECT count(*) || ' ' || "
				   "max(version) FROM yardstick_schema"),
			    "1 4");
	assert_string_equal(pg_sql("race", "SELECT count(*) FROM results"),
			    "32");
}

/* A database of a newer yardstick, one with another program's table, a
 * malformed URL, a server that is not there: refused, clearly. */
static void test_pg_refused(void **state)
{
	const char *newer = store_loc("newer"), *foreign = store_loc("foreign_tbl");
	char *nosock = xasprintf("postgresql://u:pw1234@/x?host=%s/none&"
				 "sslpassword=ssl9876", tmpdir);
	struct store *s = open_new(newer);
	struct result r;
	struct error e;

	build_tagged(&r, 1, NULL, NULL);
	save(s, &r);
	result_free(&r);
	store_close(s);
	pg_sql("newer", "UPDATE yardstick_schema SET version = 7");
	assert_open_fails(newer, STORE_READ, STORE_ERR_SCHEMA, "is 7, this "
			  "yardstick knows up to 4");
	assert_open_fails(newer, STORE_CREATE, STORE_ERR_SCHEMA, newer);

	pg_sql("foreign_tbl", "CREATE TABLE results (x int)");
	assert_open_fails(foreign, STORE_CREATE, STORE_ERR_CORRUPT,
			  "not a yardstick store");
	assert_string_equal(pg_sql("foreign_tbl", "SELECT to_regclass("
				   "'yardstick_schema') IS NULL"), "t");

	/* a lock held past the busy timeout (the copies' advisory lock,
	 * held by another session): LOCKED, as SQLite's busy timeout */
	{
		char *cmd = xasprintf("/usr/lib/postgresql/15/bin/psql -X -q "
			"-h '%s' -U postgres -d newer -c 'SELECT "
			"pg_advisory_lock(1498633292), pg_sleep(60)' "
			">/dev/null 2>&1 &", pg_sock);
		struct store *a, *b;
		struct store_copy_stats st = { 0 };

		assert_int_equal(system(cmd), 0);
		free(cmd);
		for (int i = 0; strcmp(pg_sql("newer", "SELECT count(*) FROM "
				"pg_locks WHERE locktype = 'advisory'"), "1");
		     i++) {
			assert_true(i < 1500);	/* 30 s */
			usleep(20000);
		}
		pg_sql("newer", "UPDATE yardstick_schema SET version = 4");
		a = open_new(tmp_path("locked-src.db"));
		build_tagged(&r, 2, NULL, NULL);
		save(a, &r);
		result_free(&r);
		b = open_new(newer);
		store_set_busy_timeout(b, 200);
		assert_int_equal(store_copy(a, b, &st, &e), -STORE_ERR_LOCKED);
		assert_non_null(strstr(e.msg, "is locked by another session"));
		store_close(a);
		store_close(b);
		pg_sql("postgres", "SELECT count(pg_terminate_backend(pid)) "
		       "FROM pg_locks WHERE locktype = 'advisory'");
		pg_sql("newer", "UPDATE yardstick_schema SET version = 7");
	}
	/* malformed URLs holding a password: libpq's message, which would
	 * quote it, is not shown; an '@' not written %40 is refused */
	{
		static const char *const bad[][2] = {
			{ "postgresql://u:ab%zzcd@/x", "zzcd" },
			{ "postgresql://u:p@ss@h/x", "ss@" },
			{ "postgresql://u@h/x?password=%zzsecret", "secret" },
			{ "postgresql://u:s3cr3t@[::1/x", "s3cr3t" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			assert_int_equal(store_open(&s, bad[i][0], STORE_READ,
						    &e), -STORE_ERR_BADREF);
			assert_non_null(strstr(e.msg, "bad store URL"));
			if (strstr(e.msg, bad[i][1]))
				fail_msg("'%s' shows '%s'", e.msg, bad[i][1]);
		}
	}
	assert_open_fails("postgresql://u@h/db?bogus=1", STORE_READ,
			  STORE_ERR_BADREF, "bad store URL");
	/* the server's socket named, the URL shown without the password */
	assert_int_equal(store_open(&s, nosock, STORE_READ, &e),
			 -STORE_ERR_CONNECT);
	assert_null(s);
	assert_non_null(strstr(e.msg, "/none/.s.PGSQL.5432"));
	assert_non_null(strstr(e.msg, "'postgresql://u@/x?host="));
	assert_null(strstr(e.msg, "pw1234"));
	assert_null(strstr(e.msg, "ssl9876"));
	free(nosock);
}

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("chmod -R u+w '%s'; rm -rf '%s'", tmpdir, tmpdir);
	int ret = system(cmd);

	free(cmd);
	return ret;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_process_round_trip),
		cmocka_unit_test(test_process_old_store),
		cmocka_unit_test(test_refs),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_concurrent_writers),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_save_speed),
		cmocka_unit_test(test_wal_kept),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_readonly),
		cmocka_unit_test(test_unsafe),
		cmocka_unit_test(test_locked),
		cmocka_unit_test(test_migration),
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_log_save),
		cmocka_unit_test(test_log_damage),
		cmocka_unit_test(test_log_header),
		cmocka_unit_test(test_log_jammed),
		cmocka_unit_test(test_log_killed),
		cmocka_unit_test(test_log_killed_moving),
		cmocka_unit_test(test_log_concurrent),
		cmocka_unit_test(test_log_concurrent_moving),
		cmocka_unit_test(test_log_bound),
		cmocka_unit_test(test_log_move_apart),
		cmocka_unit_test(test_log_wait_idle),
		cmocka_unit_test(test_log_move_meanwhile),
		cmocka_unit_test(test_history_max_draws),
		cmocka_unit_test(test_log_readonly),
	};
	/* the tests of the public API, and PostgreSQL's own */
	const struct CMUnitTest pg_tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_process_round_trip),
		cmocka_unit_test(test_refs),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_concurrent_writers),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_pg_migration_race),
		cmocka_unit_test(test_pg_refused),
	};
	const char *backend = getenv("YS_TEST_STORE_BACKEND");

	if (backend && !strcmp(backend, "postgresql")) {
		pg_sock = getenv("PGSOCK");
		if (!pg_sock || !*pg_sock) {
			fputs("YS_TEST_STORE_BACKEND=postgresql needs PGSOCK "
			      "(tests/cli/pg_server.sh)\n", stderr);
			return 1;
		}
		return cmocka_run_group_tests(pg_tests, setup, teardown);
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
