/*
 * The save log beside a store, PATH-log: a save appends one record to it
 * (store_append: no SQLite at all), and every opening of the database
 * moves the records into it first (store_log_ingest), so that every
 * reader sees every saved result, in order. The bytes are store_log.h's.
 *
 * Ids. The log's header holds the id the next save takes; an appender
 * takes it and writes the header after its record, all under an
 * exclusive flock of the log. A save through SQLite (store_save) takes
 * the lock too and the larger of the header's id and SQLite's next, so
 * ids stay unique and increasing whichever way a result is saved, and
 * the log's order is the ids' order. The header is made by the first
 * save through SQLite, which knows the store's last id: a store without
 * a log is saved into through SQLite once.
 *
 * Ingestion inserts every record with its id in one transaction, then
 * empties the log (header kept). Killed between the two, the next
 * ingestion finds the records' ids in the store and skips them: nothing is
 * saved twice. A record whose id is in the store as another result (only
 * some other program writing the database could do that) is saved under
 * a new id, with a warning.
 *
 * Damage. An appender killed in the middle leaves bytes past the header's
 * end, which the next append writes over and ingestion ignores. A record
 * damaged in place (its crc does not match) is skipped with a warning,
 * every record before and after it kept (store_log_format.c's walk).
 *
 * A store the user cannot write (a read-only directory, root's store)
 * is read from a private copy (store.c): the records are ingested into the
 * copy, under a shared lock, and the log is left as it is.
 */
#include "store/store_internal.h"
#include "store/store_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/monoclock.h"
#include "util/strutil.h"

/* The bound past which a save moves the log into the store itself, so
 * that saves nobody reads cannot grow it without end. Readers move it
 * (every store_open does): the bound is for the saves of a loop that
 * reads nothing, and it is high so that such a loop's saves cost the
 * same, one append each (a move opens SQLite: about 3 ms before the
 * first record, issue 30's one-invocation sigma); moving 1024 one-run
 * results costs about 0.1 s of CPU, once. */
#define LOG_BOUND_RECORDS 1024
#define LOG_BOUND_BYTES ((unsigned long long)16 << 20)

static unsigned bound_records = LOG_BOUND_RECORDS;
static unsigned long long bound_bytes = LOG_BOUND_BYTES;

void store_set_log_bound(unsigned records, unsigned long long bytes)
{
	bound_records = records ? records : LOG_BOUND_RECORDS;
	bound_bytes = bytes ? bytes : LOG_BOUND_BYTES;
}

static void (*ingest_hook)(const char *path);

void store_set_ingest_hook(void (*fn)(const char *path))
{
	ingest_hook = fn;
}

static bool past_bound(const struct log_header *h)
{
	return h->records >= bound_records || h->end > bound_bytes;
}

/* Past twice the bound, the moves of it have failed (another program
 * holds the store, SQLite is missing, the store is damaged): saves go
 * through SQLite, which says why, and the log stays bounded. Between the
 * two, saves append while the move runs. */
static bool far_past_bound(const struct log_header *h)
{
	return h->records >= 2 * bound_records || h->end > 2 * bound_bytes;
}

/* Whether the append that made h out of old is the one to have the log
 * moved: the one that passes the bound, and every MOVE_RETRY-th after it
 * (a move that died; one that is still running costs the next only the
 * check of what it already moved). */
#define MOVE_RETRY 64
static bool move_due(const struct log_header *old, const struct log_header *h)
{
	return past_bound(h) && (!past_bound(old) || h->records % MOVE_RETRY == 0);
}

/*
 * The waiter's lock (store_log_wait_idle): an open-file-description
 * record lock on one byte of the log far past any record (saves lock the
 * log with flock, which does not see it, and never write there), so that
 * it belongs to the waiting process, is let go when it exits however it
 * ends, and costs no file of its own.
 */
static struct flock waiter_lock(short type)
{
	return (struct flock){ .l_type = type, .l_whence = SEEK_SET,
			       .l_start = (off_t)1 << 62, .l_len = 1 };
}

bool store_log_move_waiting(const char *path)
{
	char *log = xasprintf("%s-log", path);
	int fd = open(log, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	struct flock fl = waiter_lock(F_WRLCK);
	bool waiting;

	free(log);
	if (fd < 0)
		return false;
	waiting = !fcntl(fd, F_OFD_GETLK, &fl) && fl.l_type != F_UNLCK;
	close(fd);
	return waiting;
}

/* The log's header read from fd, false when it cannot be. */
static bool header_now(int fd, struct log_header *h)
{
	unsigned char buf[LOG_HEADER_SIZE];
	const char *why;

	return pread(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) &&
	       !log_header_get(buf, sizeof(buf), h, &why);
}

bool store_log_wait_idle(const char *path, int idle_ms, int max_ms,
			 int *hold)
{
	char *log = xasprintf("%s-log", path);
	int fd = open(log, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	struct flock fl = waiter_lock(F_WRLCK);
	struct timespec nap = { 0, 50 * 1000000 };
	int64_t start = monoclock_ns(), quiet_since = start;
	struct log_header h = { 0 }, was = { 0 };
	bool known;

	free(log);
	*hold = -1;
	if (fd < 0)
		return true;
	if (fcntl(fd, F_OFD_SETLK, &fl)) {
		bool busy = errno == EAGAIN || errno == EACCES;

		close(fd);
		return !busy;
	}
	*hold = fd;
	known = header_now(fd, &was);
	for (;;) {
		int64_t now = monoclock_ns();

		if (!known || was.records == 0 ||
		    was.records >= bound_records + bound_records / 2 ||
		    was.end > bound_bytes + bound_bytes / 2 ||
		    now - quiet_since >= (int64_t)idle_ms * 1000000 ||
		    now - start >= (int64_t)max_ms * 1000000)
			return true;
		nanosleep(&nap, NULL);
		known = header_now(fd, &h);
		if (known && (h.records != was.records || h.end != was.end ||
			      h.next_id != was.next_id))
			quiet_since = monoclock_ns();
		was = h;
	}
}

static void (*warn_fn)(const char *msg);

void store_set_warn(void (*fn)(const char *msg))
{
	warn_fn = fn;
}

void store_warn(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!warn_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn_fn(msg);
}

struct log_file {
	int fd;
	char *path;
	struct log_header h;
	bool valid;		/* h was read from a good header */
	const char *why;	/* else why not (log_header_get), or NULL
				 * for a log shorter than a header */
	off_t size;
};

static void log_close(struct log_file *l)
{
	if (l->fd >= 0)
		close(l->fd);	/* and the lock with it */
	free(l->path);
	l->fd = -1;
	l->path = NULL;
}

/* -STORE_ERR_* for a failed write to the log, with the reason. */
static int write_error(const char *path, int err, struct error *e)
{
	if (err == ENOSPC) {
		error_set(e, "cannot write to '%s': the disk is full", path);
		return -STORE_ERR_IO;
	}
	error_errno(e, err, "cannot write to '%s'", path);
	if (err != EACCES && err != EPERM && err != EROFS)
		return -STORE_ERR_IO;
	error_mark(e, ERROR_ENV);
	return -STORE_ERR_READONLY;
}

/* flock op, waiting up to busy_ms. */
static int lock_wait(struct log_file *l, const char *db, int op, int busy_ms,
		     struct error *e)
{
	int64_t until = monoclock_ns() + (int64_t)busy_ms * 1000000;
	struct timespec nap = { 0, 1000000 };

	for (;;) {
		if (!flock(l->fd, op | LOCK_NB))
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			error_errno(e, errno, "cannot lock '%s'", l->path);
			return -STORE_ERR_IO;
		}
		if (monoclock_ns() >= until) {
			error_env(e, "'%s' is locked by another process (still "
				  "busy after %g s)", db, busy_ms / 1000.0);
			return -STORE_ERR_LOCKED;
		}
		nanosleep(&nap, NULL);
	}
}

/* Nothing past end counts: what an append that failed wrote there is cut
 * off, or, should that fail too, written over by the next append. */
static void cut_at(int fd, off_t end)
{
	if (ftruncate(fd, end))
		return;
}

/* A log root makes goes to the store's owner, as SQLite does with its
 * -wal and -shm. */
static void give_to_owner(int fd, const char *db)
{
	struct stat st;

	if (geteuid() || stat(db, &st) || !st.st_uid)
		return;
	if (fchown(fd, st.st_uid, st.st_gid))
		return;	/* then root's: trusted, and readable by the owner */
}

/* The log's size and header read (again: under a lock just taken).
 * false with errno set when the file cannot be looked at. */
static bool refresh(struct log_file *l)
{
	unsigned char head[LOG_HEADER_SIZE];
	struct stat st;

	if (fstat(l->fd, &st))
		return false;
	l->size = st.st_size;
	l->why = NULL;
	l->valid = pread(l->fd, head, sizeof(head), 0) == (ssize_t)sizeof(head)
		   && !log_header_get(head, sizeof(head), &l->h, &l->why);
	return true;
}

/*
 * Open db's log (made when create, with the database's permissions) and
 * lock it (exclusive for write, shared otherwise), waiting up to
 * busy_ms. Returns 0, 1 when there is no log and create is false, or
 * -STORE_ERR_* with e set.
 */
static int log_open(struct log_file *l, const char *db, bool write,
		    bool create, int busy_ms, struct error *e)
{
	struct stat st;
	mode_t mode = stat(db, &st) == 0 ? st.st_mode & 0666 : 0644;
	int ret;

	l->path = xasprintf("%s-log", db);
	l->fd = open(l->path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC |
		     O_NOFOLLOW | (create ? O_CREAT : 0), mode);
	if (l->fd < 0) {
		int err = errno;

		ret = err == ENOENT && !create ? 1 :
		      err == EACCES || err == EPERM || err == EROFS ?
		      -STORE_ERR_READONLY : err == ELOOP ? -STORE_ERR_UNSAFE :
		      -STORE_ERR_IO;
		if (ret < 0)
			error_errno(e, err, "cannot open '%s'", l->path);
		if (ret == -STORE_ERR_READONLY || ret == -STORE_ERR_UNSAFE)
			error_mark(e, ERROR_ENV);
		log_close(l);
		return ret;
	}
	if (create)
		give_to_owner(l->fd, db);
	if (fstat(l->fd, &st) || !S_ISREG(st.st_mode)) {
		error_set(e, "cannot use '%s': it is not a regular file",
			  l->path);
		log_close(l);
		return -STORE_ERR_IO;
	}
	if (st.st_uid != 0 && !owner_trusted(&st)) {
		error_owner(e, "store", db, l->path, &st);
		error_mark(e, ERROR_ENV);
		log_close(l);
		return -STORE_ERR_UNSAFE;
	}
	ret = lock_wait(l, db, write ? LOCK_EX : LOCK_SH, busy_ms, e);
	if (!ret && !refresh(l)) {
		error_errno(e, errno, "cannot use '%s'", l->path);
		ret = -STORE_ERR_IO;
	}
	if (ret)
		log_close(l);
	return ret;
}

static int put_header(struct log_file *l, const struct log_header *h,
		      struct error *e)
{
	unsigned char head[LOG_HEADER_SIZE];

	log_header_put(head, h);
	if (pwrite(l->fd, head, sizeof(head), 0) != (ssize_t)sizeof(head))
		return write_error(l->path, errno ? errno : EIO, e);
	l->h = *h;
	l->valid = true;
	return 0;
}

static int write_all(int fd, const unsigned char *p, size_t n, off_t at)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		p += w;
		n -= (size_t)w;
		at += w;
	}
	return 0;
}

/* The records part of the log: after the header, to the header's end
 * (to the file's end when the header is damaged: none of its fields is
 * trusted), malloc'd. */
static unsigned char *read_records(struct log_file *l, size_t *len,
				   size_t *base, struct error *e)
{
	size_t from = LOG_HEADER_SIZE;
	size_t to = (size_t)l->size, got = 0;
	unsigned char *buf;

	if (l->valid && l->h.end < to)
		to = (size_t)l->h.end;
	*base = from;
	*len = to > from ? to - from : 0;
	buf = xmalloc(*len + 1);
	while (got < *len) {
		ssize_t n = pread(l->fd, buf + got, *len - got,
				  (off_t)(from + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			error_errno(e, n < 0 ? errno : EIO, "cannot read '%s'",
				    l->path);
			free(buf);
			return NULL;
		}
		got += (size_t)n;
	}
	return buf;
}

struct ingest {
	struct store *s;
	const char *log;
	size_t damaged;		/* bytes skipped as damaged */
};

/* Whether result id is in the store; *same when it looks like r (a
 * record ingested before, its log not emptied). */
static int present(struct store *s, long long id, const struct result *r,
		   bool *found, bool *same)
{
	struct store_st *st;
	int rc = store_stmt(s, SQ_LOG_PRESENT, "SELECT created IS ?2 AND "
			    "kind IS ?3 AND hostname IS ?4 FROM results "
			    "WHERE id = ?1", &st);

	if (rc == SQLITE_OK)
		rc = store_bind(st, "ittt", id, r->created, r->kind,
				r->machine.hostname);
	if (rc == SQLITE_OK)
		rc = store_step(st);
	*found = rc == SQLITE_ROW;
	*same = *found && store_col_int(st, 0) == 1;
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		rc = store_reset(st);
	return rc;
}

/* The last id SQLite gave or was given (AUTOINCREMENT's sequence), of
 * those up to LOG_ID_MAX: a result a damaged log saved with a larger id
 * (an older yardstick did) stays, and ids go on from the others, rather
 * than the store failing every save (SQLite's next id past INT64_MAX is
 * SQLITE_FULL, "the disk is full"). */
static int last_id(struct store *s, long long *id)
{
	struct store_st *st;
	int rc = store_stmt(s, SQ_LOG_SEQ, "SELECT max(coalesce((SELECT seq "
			    "FROM sqlite_sequence WHERE name = 'results' AND "
			    "seq <= ?1), 0), coalesce((SELECT max(id) FROM "
			    "results WHERE id <= ?1), 0))", &st);

	if (rc == SQLITE_OK)
		rc = store_bind(st, "i", LOG_ID_MAX);
	if (rc == SQLITE_OK)
		rc = store_step(st);
	if (rc == SQLITE_ROW) {
		*id = store_col_int(st, 0);
		rc = store_reset(st);
	}
	return rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
}

static int ingest_record(void *ctx, long long id, struct result *r)
{
	struct ingest *in = ctx;
	bool found = false, same = false, range = id >= 1 && id <= LOG_ID_MAX;
	long long got = 0;
	int rc = SQLITE_OK;

	if (range)
		rc = present(in->s, id, r, &found, &same);
	if (rc != SQLITE_OK || same) {
		result_free(r);
		return rc;
	}
	/* an id taken, or out of range (a damaged header gave it): the
	 * result is kept under the store's next id (never SQLite's own,
	 * which a result saved with an id past INT64_MAX's reach jams) */
	if (!range || found)
		rc = last_id(in->s, &got);
	if (rc == SQLITE_OK)
		rc = store_insert(in->s, r, NULL, range && !found ? id : got + 1,
				  &got);
	if (rc == SQLITE_OK)
		in->s->ingested++;
	if (rc == SQLITE_OK && found)
		store_warn("result %lld of '%s' was saved as result %lld: "
			   "the id %lld was taken in '%s'", id, in->log, got,
			   id, in->s->path);
	else if (rc == SQLITE_OK && !range)
		store_warn("result %lld of '%s' was saved as result %lld: "
			   "its id was out of range", id, in->log, got);
	result_free(r);
	return rc;
}

static void ingest_damage(void *ctx, size_t off, size_t len, const char *why)
{
	struct ingest *in = ctx;

	in->damaged += len;
	store_warn("skipped %zu damaged bytes at offset %zu of '%s' (%s); "
		   "the records before and after them are kept", len, off,
		   in->log, why);
}

/* Every record of l into s, in the write transaction the caller opened.
 * Returns an SQLite result code, or -1 with e set when the log cannot
 * be read. */
static int ingest_locked(struct store *s, struct log_file *l,
			 struct error *e)
{
	struct ingest in = { s, l->path, 0 };
	struct log_walk w = { ingest_record, ingest_damage, &in };
	size_t len, base;
	unsigned char *buf = read_records(l, &len, &base, e);
	int rc;

	if (!buf)
		return -1;
	rc = log_walk(buf, len, base, &w);
	free(buf);
	return rc;
}

/* The whole log into a new file beside it, PATH-log.damaged-N (the
 * first N free): the name, malloc'd, or NULL with errno set. */
static char *copy_aside(struct log_file *l)
{
	unsigned char *buf = xmalloc((size_t)l->size + 1);
	char *name = NULL;
	struct stat st;
	ssize_t got = pread(l->fd, buf, (size_t)l->size, 0);
	int fd = -1, err = got == l->size ? 0 : got < 0 ? errno : EIO;

	for (int n = 1; !err && fd < 0 && n <= 1000; n++) {
		free(name);
		name = xasprintf("%s.damaged-%d", l->path, n);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
			  O_NOFOLLOW, fstat(l->fd, &st) ? 0600 :
			  st.st_mode & 0666);
		err = fd < 0 && errno != EEXIST ? errno : 0;
	}
	if (!err && fd < 0)
		err = EEXIST;
	if (!err)
		err = write_all(fd, buf, (size_t)l->size, 0);
	if (fd >= 0)
		close(fd);
	free(buf);
	if (err) {
		if (fd >= 0)
			unlink(name);
		free(name);
		errno = err;
		return NULL;
	}
	return name;
}

/*
 * A log whose header is damaged (any field out of its range: the next id,
 * the end, the count), once its records that check are in the store: set
 * aside for whoever wants to look at it (copied, so that a saver waiting
 * for the lock of this file still appends to the log), and said where.
 * The caller then empties the log under a good header: saves go on, ids
 * from the store's.
 */
static void set_aside(struct log_file *l)
{
	const char *why = l->why ? l->why : "shorter than its header";
	char *name = copy_aside(l);

	if (name)
		store_warn("the save log '%s' was damaged (%s): the results "
			   "it held that check were moved into the store, and "
			   "it was set aside as '%s'; saves go on", l->path,
			   why, name);
	else
		store_warn("the save log '%s' was damaged (%s): the results "
			   "it held that check were moved into the store; it "
			   "could not be set aside (%s) and is started again",
			   l->path, why, strerror(errno));
	free(name);
}

/* A log with damaged bytes among its records, the others in the store:
 * copied aside, and said where. */
static void set_aside_damage(struct log_file *l, size_t damaged)
{
	char *name = copy_aside(l);

	if (name)
		store_warn("a copy of '%s' with its %zu damaged bytes was set "
			   "aside as '%s'", l->path, damaged, name);
	else
		store_warn("'%s' could not be copied aside with its %zu "
			   "damaged bytes (%s)", l->path, damaged,
			   strerror(errno));
	free(name);
}

/* The log emptied after its records were committed: its header keeps the
 * next id. A failure here loses nothing (the next ingestion skips what
 * is in the store), so it is only a warning. */
static void empty_log(struct log_file *l, long long next)
{
	struct log_header h = { 0, next, LOG_HEADER_SIZE };
	struct error e;

	if (l->valid && l->h.next_id > next)
		h.next_id = l->h.next_id;
	if (put_header(l, &h, &e) || ftruncate(l->fd, LOG_HEADER_SIZE))
		store_warn("cannot empty '%s' after moving its records into "
			   "the store: %s", l->path, strerror(errno));
}

/* Begin a write transaction, move the log l in (when records), and the
 * last id after them into *last. An SQLite result code, or -1 with e
 * set when the log cannot be read. */
static int begin_ingest(struct store *s, struct log_file *l, bool records,
			long long *last, struct error *e)
{
	int rc = store_begin(s, true);

	if (rc == SQLITE_OK && records)
		rc = ingest_locked(s, l, e);
	return rc == SQLITE_OK ? last_id(s, last) : rc;
}

/* An SQLite failure, or a log failure (rc -1, e already set): the
 * message first (ROLLBACK would replace SQLite's), then the rollback, and
 * the log closed. */
static int fail(struct store *s, struct log_file *l, int rc,
		struct error *e)
{
	int ret = rc == -1 ? -STORE_ERR_IO : store_fail(s, rc, e);

	store_rollback(s);
	log_close(l);
	return ret;
}

/*
 * After an ingestion that committed the records it read (snap, snap_len
 * bytes, every id below taken, the header's next id then), with the log
 * locked again: those records off its front, and whatever was appended
 * since moved to just after the header. When the log still begins with
 * snap, exactly that goes. Else another ingestion ran in between (it
 * took some or all of them, or more) and what goes is decided by the
 * ids: every record below taken. A failure loses nothing: the next
 * ingestion skips what the store holds.
 */
static void drop_ingested(struct log_file *l, const unsigned char *snap,
			  size_t snap_len, long long taken, long long next)
{
	struct error e;
	size_t len, base, off = 0, n, keep, count = 0;
	unsigned char *buf = read_records(l, &len, &base, &e);
	struct log_header h = l->h;
	long long id;

	if (!buf)
		return;
	if (len >= snap_len && !memcmp(buf, snap, snap_len))
		off = snap_len;
	/* else the front: every record below taken, and damaged bytes */
	else
		while (off < len && (!(n = log_record_at(buf, len, off, &id)) ||
				     id < taken))
			off += n ? n : 1;
	keep = off;
	/* what stays: its records counted (damage among them stays too,
	 * for the next ingestion to name and drop) */
	for (; off < len; off += n ? n : 1)
		count += (n = log_record_at(buf, len, off, &id)) != 0;
	if (keep == len)
		empty_log(l, next);
	else if (keep > 0) {
		h.records = (unsigned)count;
		h.end = LOG_HEADER_SIZE + (len - keep);
		if (h.next_id < next)
			h.next_id = next;
		/* the records kept written first: killed before the header,
		 * the log holds each of them twice, and ingestion skips the
		 * second (the same result under the same id) */
		int err = write_all(l->fd, buf + keep, len - keep,
				    LOG_HEADER_SIZE);

		if (err)
			errno = err;	/* (write_all returns it) */
		if (err || put_header(l, &h, &e) ||
		    ftruncate(l->fd, (off_t)h.end))
			store_warn("cannot empty '%s' of the results moved "
				   "into the store: %s", l->path,
				   strerror(errno));
	}
	free(buf);
}

/*
 * Every record of a good log into the store, without holding the log
 * while SQLite works: the records read under the lock, the lock let go
 * (saves append meanwhile), the records committed, then the lock taken
 * again and what was committed dropped from the log. Appenders thus
 * never wait for a move into SQLite (the saver that finds the log past
 * its bound moves it from another process: save.c).
 */
static int ingest_unlocked(struct store *s, struct log_file *l,
			   struct error *e)
{
	long long taken = l->h.next_id, last = 0;
	struct ingest in = { s, l->path, 0 };
	struct log_walk w = { ingest_record, ingest_damage, &in };
	size_t len, base;
	unsigned char *buf = read_records(l, &len, &base, e);
	int rc;

	if (!buf) {
		log_close(l);
		return -STORE_ERR_IO;
	}
	(void)flock(l->fd, LOCK_UN);
	if (ingest_hook)
		ingest_hook(s->path);
	rc = store_begin(s, true);
	if (rc == SQLITE_OK)
		rc = log_walk(buf, len, base, &w);
	if (rc == SQLITE_OK)
		rc = last_id(s, &last);
	if (rc == SQLITE_OK)
		rc = store_commit(s);
	if (rc != SQLITE_OK) {
		free(buf);
		return fail(s, l, rc, e);
	}
	/* relocked: a failure here leaves the records in the log as well
	 * as in the store, which the next ingestion skips */
	if (!lock_wait(l, s->path, LOCK_EX, s->busy_ms, e) &&
	    refresh(l) && l->valid) {
		/* damaged bytes among the records (skipped above): the log
		 * as it is, copied aside first, as a damaged header's is,
		 * so that whoever wants to recover what they held can */
		if (in.damaged)
			set_aside_damage(l, in.damaged);
		drop_ingested(l, buf, len, taken, last + 1);
	}
	free(buf);
	log_close(l);
	return 0;
}

int store_log_ingest(struct store *s, bool copy, struct error *e)
{
	struct log_file l;
	long long last = 0;
	int ret, rc;

	ret = log_open(&l, s->path, !copy, false, s->busy_ms, e);
	if (ret == 1)
		return 0;
	if (ret && copy) {
		/* what we may not read, we cannot show */
		store_warn("%s: the results saved there are not shown", e->msg);
		return 0;
	}
	if (ret)
		return ret;
	if (l.valid && (l.size <= LOG_HEADER_SIZE ||
			l.h.end <= LOG_HEADER_SIZE)) {
		if (!copy && l.size > LOG_HEADER_SIZE)
			empty_log(&l, l.h.next_id);	/* a torn append */
		log_close(&l);
		return 0;
	}
	if (!copy && l.valid)
		return ingest_unlocked(s, &l, e);
	/* a damaged header, or a private copy: the log held throughout */
	rc = begin_ingest(s, &l, true, &last, e);
	if (rc == SQLITE_OK)
		rc = store_commit(s);
	if (rc != SQLITE_OK)
		return fail(s, &l, rc, e);
	if (!copy && !l.valid)
		set_aside(&l);
	else if (!l.valid)
		store_warn("the save log '%s' is damaged (%s): the results it "
			   "holds that check are shown; a command that may "
			   "write the store sets it aside", l.path,
			   l.why ? l.why : "shorter than its header");
	if (!copy)
		empty_log(&l, last + 1);
	log_close(&l);
	return 0;
}

int store_sqlite_save(struct store *s, const struct result *r,
		      const char *fp, long long want, bool unique,
		      long long *id, bool *dup, struct error *e)
{
	struct log_file l;
	struct log_header h = { 0 }, old = { 0 };
	long long last = 0, rid = 0, next = 0;
	bool damaged;
	int ret, rc;

	*dup = false;
	ret = log_open(&l, s->path, true, true, s->busy_ms, e);
	if (ret)
		return ret;
	damaged = !l.valid && l.size > 0;
	rc = begin_ingest(s, &l, l.size > LOG_HEADER_SIZE || !l.valid, &last,
			  e);
	/* the next id: the header's or SQLite's, whichever is larger (a
	 * copy's wanted id, when free, is below it and takes none) */
	if (rc == SQLITE_OK)
		next = l.valid && l.h.next_id > last ? l.h.next_id : last + 1;
	if (rc == SQLITE_OK)
		rc = store_insert_unique(s, r, fp, want, next, unique, &rid,
					 dup);
	/* set aside before its header is written over (the commit that
	 * keeps its records follows) */
	if (rc == SQLITE_OK && damaged)
		set_aside(&l);
	if (rc == SQLITE_OK) {
		/* the header written before the commit: should the commit
		 * not follow, an id is skipped, never given twice */
		h = l.valid ? l.h : (struct log_header){ 0, 0,
							  LOG_HEADER_SIZE };
		old = h;
		h.next_id = !*dup && rid >= next ? rid + 1 : next;
		if (put_header(&l, &h, e))
			rc = -1;
	}
	if (rc == SQLITE_OK)
		rc = store_commit(s);
	/* a commit that failed skips no id after all: the header as it
	 * was (store_verify counts an id the header gave and the store
	 * lacks as a result lost) */
	if (rc != SQLITE_OK && rc != -1 && l.valid && old.next_id > 0 &&
	    old.next_id < h.next_id)
		(void)put_header(&l, &old, NULL);
	if (rc != SQLITE_OK)
		return fail(s, &l, rc, e);
	empty_log(&l, h.next_id);
	log_close(&l);
	store_fresh_header(s);
	*id = rid;
	return 0;
}

/*
 * The fast save (store.h): 1 when the store is not ready for it (no
 * store, no log yet, a store to check, a path to refuse: store_save
 * through SQLite says why), else 0 or -STORE_ERR_*.
 */
static int append(const char *path, const struct result *r, long long *id,
		  bool *due, struct error *e)
{
	struct log_file l;
	struct log_header h, old;
	unsigned char *rec;
	size_t len;
	int ret, err;

	/* (a result without a kind is refused by the database's schema:
	 * SQLite says so at once rather than the log's reader later) */
	if (!r->kind || !store_fast_ok(path))
		return 1;
	rec = log_record_encode(r, &len);
	ret = log_open(&l, path, true, false, STORE_BUSY_MS, e);
	if (ret == -STORE_ERR_LOCKED || (!ret && (!l.valid ||
			(off_t)l.h.end > l.size || far_past_bound(&l.h)))) {
		free(rec);
		log_close(&l);
		return ret ? ret : 1;
	}
	if (ret) {
		free(rec);
		return 1;
	}
	h = old = l.h;
	log_record_set_id(rec, h.next_id);
	err = write_all(l.fd, rec, len, (off_t)h.end);
	free(rec);
	if (err) {
		ret = write_error(l.path, err, e);
		cut_at(l.fd, (off_t)h.end);
		log_close(&l);
		return ret;
	}
	*id = h.next_id;
	h.next_id++;
	h.records++;
	h.end += len;
	ret = put_header(&l, &h, e);
	*due = move_due(&old, &h);
	log_close(&l);
	return ret;
}

int store_sqlite_save_to(const char *path, const struct result *r,
			 long long *id, bool *move, struct error *e)
{
	struct store *s;
	bool due = false;
	int ret = append(path, r, id, &due, e);

	if (ret == 1) {
		ret = store_open(&s, path, STORE_CREATE, e);
		if (!ret) {
			ret = store_save(s, r, id, e);
			store_close(s);
		}
		return ret;
	}
	if (ret || !due)
		return ret;
	if (move) {
		*move = true;
		return 0;
	}
	/* past the bound: the records into the store (an opening does it) */
	store_flush_after_save(path);
	return 0;
}
