/* Discovery of a git repository and its HEAD, trusting no file in it. */
#include "util/gitdir.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/child.h"
#include "util/fileio.h"
#include "util/strutil.h"

/* Longest line taken from HEAD, a loose ref, a .git or commondir file. */
#define LINE_MAX_LEN 4096
/* Symbolic refs followed from HEAD before giving up (git: 5). */
#define SYMREF_HOPS 5

/*
 * The first line of a small regular file, without its newline: NULL with
 * errno set when it cannot be opened, is a symlink (O_NOFOLLOW), a FIFO or
 * a device (never opened blocking, never read), or is empty.
 */
static char *read_first_line(const char *path)
{
	char buf[LINE_MAX_LEN + 1];
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0) {
		errno = n ? errno : ENODATA;
		return NULL;
	}
	buf[n] = '\0';
	return xstrndup(buf, strcspn(buf, "\r\n"));
}

bool gitdir_ref_valid(const char *name)
{
	const char *comp = name;

	if (strncmp(name, "refs/", 5) || !strcmp(name, "@"))
		return false;
	for (const char *p = name; ; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '/' || !c) {
			size_t len = (size_t)(p - comp);

			/* empty ("//", trailing "/"), ".x", "x.lock" */
			if (!len || comp[0] == '.' ||
			    (len >= 5 && !strncmp(p - 5, ".lock", 5)))
				return false;
			if (!c)
				return p[-1] != '.';
			comp = p + 1;
			continue;
		}
		if (c < 0x20 || c == 0x7f || strchr(" ~^:?*[\\", c))
			return false;
		if ((c == '.' && p[1] == '.') || (c == '@' && p[1] == '{'))
			return false;
	}
}

/* Whether s is a full object name: 40 (SHA-1) or 64 (SHA-256) lowercase
 * hex digits. */
static bool is_oid(const char *s, size_t len)
{
	if (len != 40 && len != 64)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]) ||
		    isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* Most of `git config --get-all safe.directory` read. */
#define SAFE_OUT_MAX 65536

/* The output of `git config --get-all safe.directory`, run in / so that
 * only the system and global configuration count (git ignores the
 * setting in a repository's own), NUL-terminated; NULL without git. */
static char *safe_directories(void)
{
	char *argv[] = { "git", "config", "--get-all", "safe.directory",
			 NULL };
	struct child c;
	struct error e;
	size_t len = 0;
	char *out;
	ssize_t n;

	if (gitdir_start_git(&c, argv, "/"))
		return NULL;
	out = xmalloc(SAFE_OUT_MAX + 1);
	while (len < SAFE_OUT_MAX &&
	       ((n = read(c.fd[1], out + len, SAFE_OUT_MAX - len)) > 0 ||
		(n < 0 && errno == EINTR)))
		len += n > 0 ? (size_t)n : 0;
	out[len] = '\0';
	close(c.fd[1]);
	child_wait(&c, &e);
	return out;
}

/* Whether git's safe.directory trusts the work tree top: it lists "*",
 * top, or a directory above top followed by a slash and a star, as git
 * reads it. Asked once per gitdir. */
static bool listed_safe(struct gitdir *g)
{
	char *out, *line, *end;

	if (g->safe)
		return g->safe > 0;
	g->safe = -1;
	out = safe_directories();
	for (line = out; line && *line; line = end + !!*end) {
		size_t len;

		end = line + strcspn(line, "\n");
		len = (size_t)(end - line);
		if ((len == 1 && line[0] == '*') ||
		    (len == strlen(g->top) && !strncmp(line, g->top, len)) ||
		    (len >= 2 && !strncmp(end - 2, "/*", 2) &&
		     !strncmp(g->top, line, len - 1)))
			g->safe = 1;
	}
	free(out);
	return g->safe > 0;
}

/* Refuse path (a directory or the .git entry) unless the effective user
 * owns it or safe.directory lists the work tree; lstat so that a symlink
 * is judged by its own owner. */
static int check_trusted(struct gitdir *g, const char *path, bool follow,
			 struct error *e)
{
	struct stat st;

	if ((follow ? stat(path, &st) : lstat(path, &st)) != 0)
		return error_errno(e, errno, "cannot read '%s'", path);
	if (!owner_trusted(&st) && !listed_safe(g)) {
		error_owner(e, "git repository", g->top, path, &st);
		if (e) {
			size_t len = strlen(e->msg);

			snprintf(e->msg + len, sizeof(e->msg) - len, "; to "
				 "trust it: git config --global --add "
				 "safe.directory '%s'", g->top);
		}
		return -1;
	}
	return 0;
}

/* dir joined with a path read from a file (absolute or relative to dir);
 * NULL for an empty one. */
static char *join_read_path(const char *dir, const char *rel)
{
	if (!*rel)
		return NULL;
	if (rel[0] == '/')
		return xstrdup(rel);
	return xasprintf("%s/%s", dir, rel);
}

/* Whether path is a directory holding a HEAD: what git requires of a git
 * directory before it looks inside. */
static bool looks_like_gitdir(const char *path)
{
	struct stat st;
	char *head = xasprintf("%s/HEAD", path);
	bool yes = stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
		   lstat(head, &st) == 0 && S_ISREG(st.st_mode);

	free(head);
	return yes;
}

/*
 * g->dir and g->common from the .git entry at dotgit in g->top: the
 * directory itself, or the one a "gitdir: " file names; then its
 * commondir. A .git file naming no git directory leaves g->dir NULL (the
 * top-level still counts, as git treats a broken worktree); one that
 * names a directory of another user is refused.
 */
static int resolve_dirs(struct gitdir *g, const char *dotgit,
			const struct stat *st, struct error *e)
{
	char *line, *cpath;

	if (S_ISDIR(st->st_mode)) {
		g->dir = xstrdup(dotgit);
	} else {
		line = read_first_line(dotgit);
		if (line && !strncmp(line, "gitdir: ", 8))
			g->dir = join_read_path(g->top, line + 8);
		free(line);
		if (!g->dir || !looks_like_gitdir(g->dir)) {
			free(g->dir);
			g->dir = NULL;
			return 0;
		}
	}
	if (check_trusted(g, g->dir, true, e))
		return -1;
	cpath = xasprintf("%s/commondir", g->dir);
	line = read_first_line(cpath);
	free(cpath);
	if (line) {
		g->common = join_read_path(g->dir, line);
		free(line);
		if (!g->common || !looks_like_gitdir(g->common))
			return error_set(e, "'%s/commondir' names no git "
					 "directory", g->dir);
		if (check_trusted(g, g->common, true, e))
			return -1;
	} else {
		g->common = xstrdup(g->dir);
	}
	return 0;
}

int gitdir_find(const char *start, struct gitdir *g, struct error *e)
{
	char *dir = xstrdup(start);

	memset(g, 0, sizeof(*g));
	for (;;) {
		char *cand = xasprintf("%s/.git", strcmp(dir, "/") ? dir : "");
		char *slash;
		struct stat st;

		if (lstat(cand, &st) == 0) {
			int ret = 0;

			g->top = dir;
			if (S_ISLNK(st.st_mode) && stat(cand, &st))
				st.st_mode = S_IFREG;	/* dangling: no dir */
			if (check_trusted(g, g->top, true, e) ||
			    check_trusted(g, cand, false, e) ||
			    resolve_dirs(g, cand, &st, e)) {
				gitdir_free(g);
				ret = -1;
			}
			free(cand);
			return ret;
		}
		free(cand);
		slash = strrchr(dir, '/');
		if (!slash || !strcmp(dir, "/")) {
			free(dir);
			return 1;
		}
		if (slash == dir)
			slash[1] = '\0';	/* "/a" becomes "/" */
		else
			*slash = '\0';
	}
}

void gitdir_free(struct gitdir *g)
{
	free(g->top);
	free(g->dir);
	free(g->common);
	memset(g, 0, sizeof(*g));
}

/* The object name of ref (valid) in packed-refs, or NULL. */
static char *packed_ref(const struct gitdir *g, const char *ref)
{
	char *path = xasprintf("%s/packed-refs", g->common);
	char line[LINE_MAX_LEN + 128], *val = NULL;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *fp;

	free(path);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    !(fp = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	while (fgets(line, sizeof(line), fp)) {
		size_t len = strcspn(line, "\n");
		char *sp = memchr(line, ' ', len);

		/* an over-long line is read on as several, none matching */
		line[len] = '\0';
		if (sp && !strcmp(sp + 1, ref) && is_oid(line, sp - line)) {
			val = xstrndup(line, (size_t)(sp - line));
			break;
		}
	}
	fclose(fp);
	return val;
}

/* The contents of ref (valid) in g: its loose file, else its line in
 * packed-refs; NULL for an unborn branch, or with *err set (an errno)
 * when the loose file exists and cannot be read (a symlink, a FIFO). */
static char *read_ref(const struct gitdir *g, const char *ref, int *err)
{
	char *path = xasprintf("%s/%s", g->common, ref);
	char *val = read_first_line(path);

	*err = 0;
	if (!val && errno != ENOENT && errno != ENOTDIR)
		*err = errno;
	else if (!val)
		val = packed_ref(g, ref);
	free(path);
	return val;
}

int gitdir_head(const struct gitdir *g, char **commit, char **branch,
		struct error *e)
{
	char *head, *val, *ref = NULL;
	int err = 0, ret = -1;

	*commit = *branch = NULL;
	if (!g->dir)
		return 0;
	head = xasprintf("%s/HEAD", g->dir);
	val = read_first_line(head);
	if (!val) {
		/* no HEAD: not a repository after all, as git would say */
		ret = errno == ENOENT ? 0 :
		      error_errno(e, errno, "cannot read '%s'", head);
		goto out_free;
	}
	for (int hop = 0; val && !strncmp(val, "ref: ", 5); hop++) {
		free(ref);
		ref = xstrdup(val + 5);
		free(val);
		val = NULL;
		if (!gitdir_ref_valid(ref) || hop == SYMREF_HOPS) {
			error_set(e, "'%s' leads to %s ref '%s'", head,
				  hop == SYMREF_HOPS ? "a loop at" :
				  "an invalid", ref);
			goto out_fail;
		}
		if (!hop && !strncmp(ref, "refs/heads/", 11))
			*branch = xstrdup(ref + 11);
		val = read_ref(g, ref, &err);
		if (err) {
			error_errno(e, err, "cannot read ref '%s/%s'",
				    g->common, ref);
			goto out_fail;
		}
	}
	/* only ever an object name: never some file's first line */
	if (val && is_oid(val, strlen(val))) {
		*commit = val;
		val = NULL;
	}
	ret = 0;
	goto out_free;

out_fail:
	free(*branch);
	*branch = NULL;
out_free:
	free(val);
	free(ref);
	free(head);
	return ret;
}

int gitdir_start_git(struct child *c, char *const *argv, const char *dir)
{
	struct error e;
	char *path;
	int r;

	if (spawn_resolve_program("git", &path, &e))
		return -1;
	*c = (struct child){
		.path = path, .argv = argv, .dir = dir,
		.io = { CHILD_IO_NULL, CHILD_IO_PIPE, CHILD_IO_NULL },
		/* a Ctrl-C is ours to handle: git, perhaps still asked
		 * while the runs go on, must finish its answer */
		.own_group = true,
	};
	r = child_start(c, &e);
	c->path = NULL;		/* spawned: the path is used no more */
	free(path);
	return r;
}
