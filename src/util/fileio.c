/* Atomic output files, whole-file reads, the helpers beside the binary. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "util/fileio.h"
#include "util/strutil.h"

static mode_t umask_get(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

static const char *user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];

	if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) == 0 && res)
		snprintf(buf, len, "%s (uid %u)", res->pw_name, (unsigned)uid);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
	return buf;
}

bool owner_trusted(const struct stat *st)
{
	uid_t me = geteuid();
	const char *sudo;
	long v;

	if (st->st_uid == me)
		return true;
	/* git's rule for root run through sudo: the invoking user's files
	 * are trusted too */
	sudo = me == 0 ? getenv("SUDO_UID") : NULL;
	return sudo && parse_long(sudo, &v) == 0 && v >= 0 &&
	       (uid_t)v == st->st_uid;
}

int error_owner(struct error *e, const char *what, const char *path,
		const char *culprit, const struct stat *st)
{
	char owner[320], me[320];

	user_name(st->st_uid, owner, sizeof(owner));
	user_name(geteuid(), me, sizeof(me));
	if (!culprit || !strcmp(culprit, path))
		return error_set(e, "refusing %s '%s': it is owned by %s, not "
				 "by you, %s (dubious ownership, as git "
				 "says)", what, path, owner, me);
	return error_set(e, "refusing %s '%s': '%s' is owned by %s, not by "
			 "you, %s (dubious ownership, as git says)", what,
			 path, culprit, owner, me);
}

/*
 * Writes go through a cookie stream over the file descriptor so that the
 * errno of the first failed write(2) is kept: stdio's error flag is
 * sticky, errno is not, and a later call would otherwise report its own
 * unrelated errno (or none) for a full disk.
 */
struct sink {
	int fd;
	int err;		/* errno of the first failure, 0 if none */
	bool own;		/* close fd with the stream */
};

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	struct sink *k = cookie;
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(k->fd, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!k->err)
				k->err = w < 0 ? errno : EIO;
			return 0;	/* fopencookie: 0 is an error */
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

static int sink_close(void *cookie)
{
	struct sink *k = cookie;
	int ret = 0;

	if (k->own && close(k->fd) && errno != EINTR) {
		if (!k->err)
			k->err = errno;
		ret = -1;
	}
	free(k);
	return ret;
}

static FILE *sink_open(struct atomic_file *af, int fd, bool own)
{
	static const cookie_io_functions_t io = {
		.write = sink_write, .close = sink_close,
	};
	struct sink *k = xcalloc(1, sizeof(*k));
	FILE *fp;

	k->fd = fd;
	k->own = own;
	fp = fopencookie(k, "w", io);
	if (!fp) {
		free(k);
		return NULL;
	}
	af->sink = k;
	af->fd = fd;
	return fp;
}

/* The errno behind a failed stream operation: the sink's first write
 * error, else errno (when set by the failing call), else EIO. */
static int sink_errno(const struct atomic_file *af, int saved)
{
	if (af->sink && af->sink->err)
		return af->sink->err;
	return saved ? saved : EIO;
}

/* Whether dir (an absolute path) is a /proc/PID/fd directory, whose links
 * name open files (a pipe, a socket, the file the shell redirected
 * stdout to): to be opened through the link, never replaced. */
static bool is_fd_dir(const char *dir)
{
	const char *slash = strrchr(dir, '/');
	struct statfs sf;

	return slash && !strcmp(slash, "/fd") && statfs(dir, &sf) == 0 &&
	       sf.f_type == PROC_SUPER_MAGIC;
}

/*
 * The kernel's protected_symlinks rule, applied whatever the sysctl says
 * (and extended to FIFOs and files to replace, as protected_fifos and
 * protected_regular do): an entry of a directory is followed or replaced
 * only when it belongs to us or to the directory's owner. Someone who
 * may merely create files in a shared (sticky) directory cannot make us
 * write where their symlink points, into their FIFO, or over their file.
 */
static int check_entry(const char *dir, const char *name,
		       const struct stat *st, const char *path,
		       struct error *e)
{
	char owner[320], downer[320];
	struct stat dst;

	if (owner_trusted(st))
		return 0;
	if (stat(*dir ? dir : "/", &dst))
		return error_errno(e, errno, "cannot open '%s'", path);
	if (dst.st_uid == st->st_uid)
		return 0;
	return error_set(e, "cannot open '%s': refusing to %s '%s/%s', owned "
			 "by %s in a directory owned by %s", path,
			 S_ISLNK(st->st_mode) ? "follow the symlink" :
			 S_ISREG(st->st_mode) ? "replace the file" :
			 "write into", dir, name,
			 user_name(st->st_uid, owner, sizeof(owner)),
			 user_name(dst.st_uid, downer, sizeof(downer)));
}

/* A path being resolved: cur, the directories walked so far (absolute,
 * without symlinks, "" for the root), and what is left of it at p (in
 * rest, which p points into). */
struct walk {
	char *cur, *rest, *p;
	int hops;
};

/*
 * The symlink next (a name in w->cur, its stat st) met as the component
 * of length len at w->p: checked by check_entry, then its target put in
 * front of the rest of the path. Returns 0, 1 when it is the last
 * component and a /proc/PID/fd link (open it as it is), or -1.
 */
static int walk_link(struct walk *w, const char *next, const struct stat *st,
		     size_t len, bool last, const char *path, struct error *e)
{
	char target[PATH_MAX], *more;
	ssize_t n;

	if (check_entry(w->cur, strrchr(next, '/') + 1, st, path, e))
		return -1;
	if (last && is_fd_dir(w->cur))
		return 1;
	n = readlink(next, target, sizeof(target) - 1);
	if (n < 0 || ++w->hops > 40)
		return error_errno(e, n < 0 ? errno : ELOOP, "cannot open "
				   "'%s'", path);
	target[n] = '\0';
	more = xasprintf("%s/%s", target, w->p + len);
	free(w->rest);
	w->p = w->rest = more;
	if (target[0] == '/')
		w->cur[0] = '\0';
	return 0;
}

/*
 * One step of resolve_output: the component at w->p. Returns 0 to go on,
 * 1 when the last component is reached (its length in *len, *magic set
 * for a /proc/PID/fd link), or -1.
 */
static int walk_step(struct walk *w, size_t *lenp, bool *magic,
		     const char *path, struct error *e)
{
	size_t len;
	struct stat st;
	char *next;
	bool last;
	int ret;

	w->p += strspn(w->p, "/");
	*lenp = len = strcspn(w->p, "/");
	if (!len)		/* path names a directory */
		return error_errno(e, EISDIR, "cannot open '%s'", path);
	last = !w->p[len + strspn(w->p + len, "/")];
	if ((len == 1 && w->p[0] == '.') ||
	    (len == 2 && !strncmp(w->p, "..", 2))) {
		char *slash = strrchr(w->cur, '/');

		if (len == 2 && slash)
			*slash = '\0';
		w->p += len;
		return last ? error_errno(e, EISDIR, "cannot open '%s'", path)
			    : 0;
	}
	next = xasprintf("%s/%.*s", w->cur, (int)len, w->p);
	if (lstat(next, &st)) {
		int err = errno;

		free(next);
		if (err == ENOENT && last)
			return 1;
		return error_errno(e, err, "cannot create '%s'", path);
	}
	if (S_ISLNK(st.st_mode)) {
		ret = walk_link(w, next, &st, len, last, path, e);
		free(next);
		*magic = ret == 1;
		return ret;
	}
	if (last || !S_ISDIR(st.st_mode)) {
		free(next);
		return last ? 1 : error_errno(e, ENOTDIR, "cannot create "
					      "'%s'", path);
	}
	free(w->cur);
	w->cur = next;
	w->p += len;
	return 0;
}

/*
 * Resolve path as realpath(3) would, but through the rule of
 * check_entry at each symlink, into its directory (*dir, absolute,
 * without symlinks) and its last component (*base, which need not exist).
 * *magic is set (and *dir, *base give the link) when the last component
 * is a /proc/PID/fd link such as /dev/stdout leads to: open it directly.
 */
static int resolve_output(const char *path, char **dirp, char **basep,
			  bool *magic, struct error *e)
{
	struct walk w = { .rest = xstrdup(path) };
	size_t len;
	int ret;

	*magic = false;
	w.p = w.rest;
	if (path[0] == '/') {
		w.cur = xstrdup("");
	} else if (!(w.cur = getcwd(NULL, 0))) {
		free(w.rest);
		return error_errno(e, errno, "cannot open '%s'", path);
	} else if (!strcmp(w.cur, "/")) {
		w.cur[0] = '\0';
	}
	while ((ret = walk_step(&w, &len, magic, path, e)) == 0)
		;
	if (ret > 0) {
		*dirp = xstrdup(*w.cur ? w.cur : "/");
		*basep = xstrndup(w.p, len);
	}
	free(w.cur);
	free(w.rest);
	return ret > 0 ? 0 : -1;
}

/* The open file descriptor written in place: a device, a FIFO, a
 * /proc/PID/fd link. */
static int open_direct(struct atomic_file *af, int fd, struct error *e)
{
	if (fd < 0)
		return error_errno(e, errno, "cannot open '%s'", af->path);
	af->fp = sink_open(af, fd, true);
	if (!af->fp) {
		int err = errno;

		close(fd);
		return error_errno(e, err, "cannot open '%s'", af->path);
	}
	af->direct = true;
	return 0;
}

/*
 * The temporary files open now, for atomic_unlink_temps: a signal
 * handler's view (the directory's descriptor and the name in it), hence
 * fixed slots and sig_atomic_t. A slot is taken after the file is made
 * and given back before it is renamed or removed; a file beyond the slots
 * is not listed (a second Ctrl-C would leave it).
 */
#define TEMPS_MAX 32
static struct {
	volatile sig_atomic_t dirfd;	/* -1: a free slot */
	char name[NAME_MAX + 1];
} temps[TEMPS_MAX] = { [0 ... TEMPS_MAX - 1] = { .dirfd = -1 } };

static void temps_add(int dirfd, const char *name)
{
	size_t len = strlen(name);

	if (len > NAME_MAX)
		return;
	for (size_t i = 0; i < TEMPS_MAX; i++)
		if (temps[i].dirfd < 0) {
			memcpy(temps[i].name, name, len + 1);
			temps[i].dirfd = dirfd;
			return;
		}
}

static void temps_remove(int dirfd, const char *name)
{
	for (size_t i = 0; name && i < TEMPS_MAX; i++)
		if (temps[i].dirfd == dirfd && !strcmp(temps[i].name, name))
			temps[i].dirfd = -1;
}

void atomic_unlink_temps(void)
{
	for (size_t i = 0; i < TEMPS_MAX; i++)
		if (temps[i].dirfd >= 0)
			unlinkat(temps[i].dirfd, temps[i].name, 0);
}

/* A new temporary file beside the target, O_EXCL, never a symlink. */
static int open_temp(struct atomic_file *af, struct error *e)
{
	unsigned long long seed = (unsigned long long)getpid() << 32 ^
				  (unsigned long long)(uintptr_t)af;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	seed ^= (unsigned long long)ts.tv_nsec * 0x9e3779b97f4a7c15ULL;
	for (int tries = 0; tries < 100; tries++) {
		int fd;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		free(af->tmp);
		af->tmp = xasprintf("%s.tmp.%06llx", af->base,
				    (seed >> 40) & 0xffffff);
		fd = openat(af->dirfd, af->tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			temps_add(af->dirfd, af->tmp);
			return fd;
		}
		if (errno != EEXIST)
			break;
	}
	error_errno(e, errno, "cannot create '%s'", af->path);
	free(af->tmp);
	af->tmp = NULL;
	return -1;
}

static void af_release(struct atomic_file *af)
{
	if (af->dirfd >= 0)
		close(af->dirfd);
	free(af->tmp);
	free(af->base);
	free(af->dir);
	free(af->path);
	memset(af, 0, sizeof(*af));
	af->dirfd = -1;
	af->fd = -1;
}

/* "-": stdout, through a sink so that a write error keeps its errno. */
static int open_stdout(struct atomic_file *af, struct error *e)
{
	/* what was printed before comes first */
	fflush(stdout);
	af->fp = sink_open(af, STDOUT_FILENO, false);
	if (!af->fp)
		return error_errno(e, errno, "cannot write to stdout");
	return 0;
}

/* A /proc/PID/fd link (/dev/stdout): opened through the link, the kernel
 * following it to the pipe, terminal or file it stands for. */
static int open_fd_link(struct atomic_file *af, struct error *e)
{
	char *link = xasprintf("%s/%s", af->dir, af->base);
	int fd = open(link, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	free(link);
	/* a file the shell opened for us (> or >>): after what is there,
	 * never over it */
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		(void)fcntl(fd, F_SETFL, O_APPEND);
	return open_direct(af, fd, e);
}

/*
 * The temporary file for a regular target; a file replaced gives it its
 * mode, and its owner when we may (root); set-id bits are not carried
 * over. Returns its descriptor or -1 (nothing left behind).
 */
static int open_replacement(struct atomic_file *af, const struct stat *old,
			    struct error *e)
{
	int fd = open_temp(af, e);

	if (fd < 0)
		return -1;
	if (fchmod(fd, old ? old->st_mode & 0777 : 0644 & ~umask_get())) {
		error_errno(e, errno, "cannot create '%s'", af->path);
		close(fd);
		temps_remove(af->dirfd, af->tmp);
		unlinkat(af->dirfd, af->tmp, 0);
		return -1;
	}
	if (old && (old->st_uid != geteuid() || old->st_gid != getegid()))
		(void)!fchown(fd, old->st_uid, old->st_gid);
	return fd;
}

/* The target's directory, held open so that the file is made and renamed
 * in the directory that was checked, whatever is renamed meanwhile; and
 * what is there now (*exists, *st). */
static int open_dir(struct atomic_file *af, struct stat *st, bool *exists,
		    struct error *e)
{
	af->dirfd = open(af->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (af->dirfd < 0)
		af->dirfd = open(af->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (af->dirfd < 0)
		return error_errno(e, errno, "cannot open '%s'", af->path);
	*exists = fstatat(af->dirfd, af->base, st, AT_SYMLINK_NOFOLLOW) == 0;
	if (!*exists)
		return 0;
	if (S_ISLNK(st->st_mode))	/* swapped in since resolved */
		return error_errno(e, ELOOP, "cannot open '%s'", af->path);
	if (S_ISDIR(st->st_mode))
		return error_errno(e, EISDIR, "cannot open '%s'", af->path);
	if ((S_ISREG(st->st_mode) || S_ISFIFO(st->st_mode) ||
	     S_ISSOCK(st->st_mode)) &&
	    check_entry(af->dir, af->base, st, af->path, e))
		return -1;
	return 0;
}

/*
 * atomic_open, or with check_only everything but opening a device or
 * FIFO (which would block or consume) and keeping the temporary file.
 */
static int open_output(struct atomic_file *af, const char *path,
		       bool check_only, struct error *e)
{
	struct stat st;
	bool magic, exists;
	int fd, ret = -1;

	memset(af, 0, sizeof(*af));
	af->dirfd = af->fd = -1;
	af->path = xstrdup(path);
	if (!strcmp(path, "-")) {
		ret = check_only ? 0 : open_stdout(af, e);
		goto out_done;
	}
	if (resolve_output(path, &af->dir, &af->base, &magic, e))
		goto out_done;
	if (magic) {
		ret = check_only ? 0 : open_fd_link(af, e);
		goto out_done;
	}
	if (open_dir(af, &st, &exists, e))
		goto out_done;
	if (exists && !S_ISREG(st.st_mode)) {
		/* A device or a pipe (/dev/null, a FIFO) cannot be replaced
		 * by a rename: write to it directly. */
		ret = check_only ? 0 : open_direct(af, openat(af->dirfd,
			af->base, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NOCTTY |
			O_CLOEXEC), e);
		goto out_done;
	}
	fd = open_replacement(af, exists ? &st : NULL, e);
	if (fd < 0)
		goto out_done;
	if (!check_only)
		af->fp = sink_open(af, fd, true);
	if (!af->fp) {
		if (!check_only)
			error_errno(e, errno, "cannot create '%s'", path);
		close(fd);
		temps_remove(af->dirfd, af->tmp);
		unlinkat(af->dirfd, af->tmp, 0);
	}
	ret = af->fp || check_only ? 0 : -1;

out_done:
	/* a check, a failure: nothing kept */
	if (check_only || ret)
		af_release(af);
	return ret;
}

int atomic_open(struct atomic_file *af, const char *path, struct error *e)
{
	return open_output(af, path, false, e);
}

int atomic_commit(struct atomic_file *af, struct error *e)
{
	const char *what = strcmp(af->path, "-") ? af->path : "stdout";
	int ret = 0, werr;

	errno = 0;
	if (fflush(af->fp) || ferror(af->fp))
		ret = error_errno(e, sink_errno(af, errno), "cannot write "
				  "'%s'", what);
	/* a regular file is on disk before it replaces the old one */
	if (!ret && af->tmp && fsync(af->fd))
		ret = error_errno(e, errno, "cannot write '%s'", what);
	/* fclose frees the sink: its write error is taken first; close(2)'s
	 * comes back through errno */
	werr = af->sink->err;
	errno = 0;
	if (fclose(af->fp) && !ret)
		ret = error_errno(e, errno ? errno : werr ? werr : EIO,
				  "cannot write '%s'", what);
	af->sink = NULL;
	af->fp = NULL;
	if (af->tmp) {
		temps_remove(af->dirfd, af->tmp);
		if (!ret && renameat(af->dirfd, af->tmp, af->dirfd, af->base))
			ret = error_errno(e, errno, "cannot rename into '%s'",
					  what);
		/* The directory is not synced: after a power cut the old
		 * file may be back, never a half-written one (and syncing it
		 * cost 10 ms an output on this machine's ext4). */
		if (ret)
			unlinkat(af->dirfd, af->tmp, 0);
	}
	af_release(af);
	return ret;
}

int atomic_fail(struct atomic_file *af, struct error *e)
{
	int err = sink_errno(af, 0);

	error_errno(e, err, "cannot write '%s'",
		    strcmp(af->path, "-") ? af->path : "stdout");
	atomic_abort(af);
	return -1;
}

void atomic_abort(struct atomic_file *af)
{
	if (af->fp)
		fclose(af->fp);
	if (af->tmp) {
		temps_remove(af->dirfd, af->tmp);
		unlinkat(af->dirfd, af->tmp, 0);
	}
	af_release(af);
}

int atomic_check(const char *path, struct error *e)
{
	struct atomic_file af;

	return open_output(&af, path, true, e);
}

int file_open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

int file_read_all(const char *path, char **data, size_t *lenp,
		  struct error *e)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	struct stat st;

	if (!fp)
		return error_errno(e, errno, "cannot open '%s'", path);
	/* a file known too large is refused before it is read: reading it
	 * up to the bound took 0.5 GB of memory */
	if (fp != stdin && fstat(fileno(fp), &st) == 0 &&
	    S_ISREG(st.st_mode) && (uintmax_t)st.st_size > FILE_READ_MAX) {
		fclose(fp);
		return error_set(e, "cannot read '%s': larger than %zu MiB",
				 path, (size_t)FILE_READ_MAX >> 20);
	}
	do {
		buf = xgrow(buf, &cap, len + 65536 + 1, 1);
		got = fread(buf + len, 1, cap - len - 1, fp);
		len += got;
	} while (got > 0 && len <= FILE_READ_MAX);
	if (len > FILE_READ_MAX || ferror(fp)) {
		if (len > FILE_READ_MAX)
			error_set(e, "cannot read '%s': larger than %zu MiB",
				  path, FILE_READ_MAX >> 20);
		else
			error_errno(e, errno ? errno : EIO,
				    "cannot read '%s'", path);
		free(buf);
		if (fp != stdin)
			fclose(fp);
		return -1;
	}
	if (fp != stdin)
		fclose(fp);
	buf[len] = '\0';
	*data = buf;
	if (lenp)
		*lenp = len;
	return 0;
}

char *find_helper(const char *name, const char *env, int mode,
		  struct error *e)
{
	const char *set = getenv(env);
	char exe[PATH_MAX], *slash, *p;
	ssize_t n;

	if (set && *set) {
		if (access(set, mode) == 0)
			return xstrdup(set);
		error_errno(e, errno, "%s: cannot %s '%s'", env,
			    mode == X_OK ? "execute" : "read", set);
		return NULL;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			p = xasprintf("%s/%s", exe, name);
			if (access(p, mode) == 0)
				return p;
			free(p);
			p = xasprintf("%s/../%s/%s", exe, YS_HELPER_RELDIR, name);
			if (YS_HELPER_RELDIR[0] != '/' && access(p, mode) == 0)
				return p;
			free(p);
		}
	}
	p = xasprintf("%s/%s", YS_HELPER_DIR, name);
	if (access(p, mode) == 0)
		return p;
	free(p);
	error_set(e, "%s is not next to yardstick, nor in ../%s/ from it, nor "
		  "in %s (set %s to its path)", name, YS_HELPER_RELDIR,
		  YS_HELPER_DIR, env);
	return NULL;
}
