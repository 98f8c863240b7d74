/*
 * Copying a history between stores (store_copy), of either backend, and
 * the fingerprint by which a copy knows what it copied before.
 *
 * Idempotence. Every result carries a fingerprint (results.fingerprint,
 * schema version 3): a 128-bit FNV-1a hash of everything a save keeps,
 * field by field in store_insert's order, each with a tag and a length,
 * every double by its bits (NaN as one tag: NULL in the store). A result
 * and its copies have the same fingerprint in every store. A copy skips
 * a result whose fingerprint the destination already holds, in the same
 * write transaction as its insert, so that running it again, or two at
 * once, copies nothing twice. Rows saved before version 3 have none: a
 * copy fills them in first (it loads each such result of the destination
 * once).
 *
 * Ids. A copied result keeps its id when the destination has no result
 * with that id, else it takes the destination's next id (renumbered:
 * on_renumber tells the mapping). Copied into an empty store, a history
 * keeps every id, so references typed before still name the same result.
 */
#include "store/store_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strutil.h"

typedef unsigned __int128 u128;

/* FNV-1a, 128 bits: offset basis and prime. */
#define FNV_PRIME (((u128)0x0000000001000000ULL << 64) | 0x000000000000013BULL)
#define FNV_BASIS (((u128)0x6c62272e07bb0142ULL << 64) | 0x62b821756295c58dULL)

static void fp_bytes(u128 *h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		*h ^= b[i];
		*h *= FNV_PRIME;
	}
}

static void fp_u64(u128 *h, unsigned long long v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	fp_bytes(h, b, 8);
}

/* A string: a tag (NULL or not), its length, its bytes. */
static void fp_str(u128 *h, const char *s)
{
	fp_bytes(h, s ? "s" : "n", 1);
	if (s) {
		fp_u64(h, strlen(s));
		fp_bytes(h, s, strlen(s));
	}
}

static void fp_int(u128 *h, long long v)
{
	fp_bytes(h, "i", 1);
	fp_u64(h, (unsigned long long)v);
}

/* A double by its bits; every NaN alike (stored as NULL). */
static void fp_double(u128 *h, double d)
{
	unsigned long long bits;

	if (isnan(d)) {
		fp_bytes(h, "N", 1);
		return;
	}
	memcpy(&bits, &d, sizeof(bits));
	fp_bytes(h, "d", 1);
	fp_u64(h, bits);
}

static void fp_strings(u128 *h, char *const *v, size_t n)
{
	fp_int(h, (long long)n);
	for (size_t i = 0; i < n; i++)
		fp_str(h, v[i]);
}

static void fp_benchmark(u128 *h, const struct benchmark *b)
{
	fp_str(h, b->name);
	fp_int(h, (long long)b->timeouts);
	fp_strings(h, b->command, b->argc);
	fp_int(h, (long long)b->nparams);
	for (size_t i = 0; i < b->nparams; i++) {
		fp_str(h, b->params[i].name);
		fp_str(h, b->params[i].value);
	}
	fp_int(h, (long long)b->nexit);
	for (size_t i = 0; i < b->nexit; i++)
		fp_int(h, b->exit_codes[i]);
	fp_strings(h, b->unsupported, b->nunsupported);
	fp_strings(h, b->warnings, b->nwarnings);
	fp_int(h, (long long)b->nmetrics);
	for (size_t i = 0; i < b->nmetrics; i++) {
		const struct metric *m = &b->metrics[i];

		fp_str(h, m->name);
		fp_str(h, m->unit);
		fp_int(h, (long long)m->n);
		for (size_t k = 0; k < m->n; k++)
			fp_double(h, m->values[k]);
		/* only when known: the fingerprints of results without
		 * process ids stay those of the stores before them */
		for (size_t k = 0; m->process && k < m->n; k++)
			fp_int(h, m->process[k]);
	}
}

void store_fingerprint(const struct result *r, char out[33])
{
	const struct machine *m = &r->machine;
	u128 h = FNV_BASIS;

	fp_str(&h, r->created);
	fp_str(&h, r->kind);
	fp_str(&h, r->tool_version);
	fp_str(&h, r->git.commit);
	fp_str(&h, r->git.branch);
	fp_int(&h, r->git.dirty);
	fp_str(&h, m->hostname);
	fp_str(&h, m->os);
	fp_str(&h, m->cpu);
	fp_int(&h, m->cores);
	fp_int(&h, (long long)m->memory_bytes);
	fp_str(&h, m->governor);
	fp_int(&h, m->virtualized);
	fp_int(&h, (long long)r->nsettings);
	for (size_t i = 0; i < r->nsettings; i++) {
		fp_str(&h, r->settings[i].key);
		fp_str(&h, r->settings[i].str);
		if (!r->settings[i].str)
			fp_double(&h, r->settings[i].num);
	}
	fp_int(&h, (long long)r->nbenchmarks);
	for (size_t i = 0; i < r->nbenchmarks; i++)
		fp_benchmark(&h, &r->benchmarks[i]);
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)(h >> 64),
		 (unsigned long long)h);
}

/* Every id the statement of slot id (no parameter) returns, in order. */
static int list_ids(struct store *s, enum store_stmt_id slot, const char *sql,
		    long long **ids, size_t *n)
{
	struct store_st *st;
	size_t cap = 0;
	int rc = store_stmt(s, slot, sql, &st);

	*ids = NULL;
	*n = 0;
	while (rc == SQLITE_OK && (rc = store_step(st)) == SQLITE_ROW) {
		*ids = xgrow(*ids, &cap, *n + 1, sizeof(**ids));
		(*ids)[(*n)++] = store_col_int(st, 0);
		rc = SQLITE_OK;
	}
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The ids of s in a read transaction of their own. 0 or -STORE_ERR_*. */
static int read_ids(struct store *s, enum store_stmt_id slot, const char *sql,
		    bool write, long long **ids, size_t *n, struct error *e)
{
	int rc = store_begin(s, write);

	if (rc == SQLITE_OK)
		rc = list_ids(s, slot, sql, ids, n);
	if (rc == SQLITE_OK && !write)
		rc = store_commit(s);
	if (rc != SQLITE_OK) {
		int ret = store_fail(s, rc, e);

		store_rollback(s);
		free(*ids);
		*ids = NULL;
		return ret;
	}
	return 0;
}

/* The fingerprint stored with result id into fp, "" when none (saved
 * before schema version 3, or a store of version 2 read as it is). */
static void stored_fp(struct store *s, long long id, char fp[33])
{
	struct store_st *st;
	const char *t;

	fp[0] = 0;
	if (store_stmt(s, SQ_GET_FP, "SELECT fingerprint FROM results WHERE "
		       "id = ?", &st) != SQLITE_OK ||
	    store_bind(st, "i", id) != SQLITE_OK ||
	    store_step(st) != SQLITE_ROW)
		return;
	t = store_col_text(st, 0);
	if (t && strlen(t) == 32)
		memcpy(fp, t, 33);
	(void)store_reset(st);
}

/* Result id of s as saved (no summaries), and its fingerprint: the one
 * stored with it (the result may have been saved elsewhere, text made
 * UTF-8 on the way: its fingerprint is the original's), else computed. In
 * a read transaction. */
static int load_one(struct store *s, long long id, struct result *r,
		    char fp[33], struct error *e)
{
	int rc = store_begin(s, false);

	result_init(r, "run");
	if (rc == SQLITE_OK)
		rc = store_load_id(s, id, r);
	if (rc == SQLITE_OK) {
		stored_fp(s, id, fp);
		if (!fp[0])
			store_fingerprint(r, fp);
	}
	if (rc == SQLITE_OK)
		rc = store_commit(s);
	if (rc != SQLITE_OK) {
		int ret = store_fail(s, rc, e);

		store_rollback(s);
		return ret;
	}
	return 0;
}

/* The fingerprints of the results of s saved before schema version 3,
 * filled in, in one write transaction. 0 or -STORE_ERR_*. */
static int fill_fingerprints(struct store *s, struct error *e)
{
	long long *ids;
	size_t n;
	int rc, ret;

	ret = read_ids(s, SQ_NULL_FP, "SELECT id FROM results WHERE "
		       "fingerprint IS NULL ORDER BY id", true, &ids, &n, e);
	if (ret)
		return ret;
	rc = SQLITE_OK;
	for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
		struct result r;
		struct store_st *st;
		char fp[33];

		result_init(&r, "run");
		rc = store_load_id(s, ids[i], &r);
		store_fingerprint(&r, fp);
		result_free(&r);
		if (rc == SQLITE_OK)
			rc = store_stmt(s, SQ_SET_FP, "UPDATE results SET "
					"fingerprint = ? WHERE id = ?", &st);
		if (rc == SQLITE_OK)
			rc = store_bind(st, "ti", fp, ids[i]);
		if (rc == SQLITE_OK)
			rc = store_step_done(st);
	}
	free(ids);
	if (rc == SQLITE_OK)
		rc = store_commit(s);
	if (rc != SQLITE_OK) {
		ret = store_fail(s, rc, e);
		store_rollback(s);
	}
	return ret;
}

/* The test hook: with YARDSTICK_TEST_COPY_PAUSE=DIR, a copy writes its
 * process id to DIR/pid before its first result and waits for DIR/go
 * (store_test_wait): a test stops it there, deterministically, before
 * anything was copied. */
static void test_pause(void)
{
	const char *dir = getenv("YARDSTICK_TEST_COPY_PAUSE");
	char pid[24];

	if (!dir || !*dir)
		return;
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	store_test_wait(dir, pid);
}

int store_copy(struct store *from, struct store *to,
	       struct store_copy_stats *stats, struct error *e)
{
	struct error damage;
	long long *ids;
	size_t n;
	int ret, bad;

	stats->total = stats->copied = stats->skipped = stats->renumbered = 0;
	stats->unreadable = 0;
	stats->stopped = false;
	/* a damaged source is copied as far as it can be read (a copy is
	 * how its results are rescued), then the damage reported */
	bad = store_verify(from, &damage);
	if (bad && bad != -STORE_ERR_CORRUPT) {
		*e = damage;
		return bad;
	}
	ret = fill_fingerprints(to, e);
	if (!ret)
		ret = read_ids(from, SQ_ALL_IDS, "SELECT id FROM results "
			       "ORDER BY id", false, &ids, &n, e);
	if (ret)
		return ret;
	stats->total = n;
	test_pause();
	for (size_t i = 0; i < n && !ret; i++) {
		struct result r;
		long long id = 0;
		bool dup = false;
		char fp[33];

		/* between two results: each is saved in a transaction of its
		 * own, so what is copied is whole */
		if (stats->stop && *stats->stop) {
			stats->stopped = true;
			break;
		}
		ret = load_one(from, ids[i], &r, fp, e);
		if (ret == -STORE_ERR_CORRUPT && bad) {
			result_free(&r);
			stats->unreadable++;
			ret = 0;
			continue;
		}
		if (!ret)
			ret = to->be->save(to, &r, fp, ids[i], true, &id, &dup,
					   e);
		result_free(&r);
		if (ret)
			break;
		if (dup)
			stats->skipped++;
		else
			stats->copied++;
		if (!dup && id != ids[i] && stats->on_renumber)
			stats->on_renumber(ids[i], id, stats->ctx);
		if (!dup && id != ids[i])
			stats->renumbered++;
	}
	free(ids);
	if (!ret && bad && !stats->stopped) {
		*e = damage;
		ret = bad;
	}
	return ret;
}
