/*
 * The store's file and its directory, checked before SQLite opens them:
 * made when missing, never through a symbolic or hard link, never another
 * user's; why a store cannot be written (store_internal.h).
 */
#include "store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/strutil.h"

bool store_not_writable(const char *path)
{
	if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0)
		return false;
	return errno == EACCES || errno == EROFS || errno == EPERM;
}

/* The directory of path, malloc'd ("." when path has no slash). */
char *store_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* -STORE_ERR_READONLY with the reason when the file or its directory
 * (where SQLite creates the -wal and -shm files) is not writable; else 0. */
int store_readonly_reason(const char *path, struct error *e)
{
	char *dir;
	int ret = 0;

	if (access(path, F_OK) == 0 && store_not_writable(path)) {
		error_env(e, "cannot write to '%s': %s", path,
			  errno == EROFS ? "it is on a read-only file system"
			  : "the file is read-only");
		return -STORE_ERR_READONLY;
	}
	dir = store_dir_of(path);
	if (store_not_writable(dir)) {
		if (errno == EROFS)
			error_env(e, "cannot write to '%s': it is on a "
				  "read-only file system", path);
		else
			error_env(e, "cannot write to '%s': its directory "
				  "'%s' is read-only", path, dir);
		ret = -STORE_ERR_READONLY;
	}
	free(dir);
	return ret;
}

/* mkdir -p dir, for path (named in the message); *made (when not NULL)
 * gets the first directory it made after the last one that was there
 * (the directories below it it made too), malloc'd, or NULL. Returns 0
 * or -STORE_ERR_*. */
static int store_make_dirs(const char *dir, const char *path, char **made,
			   struct error *e)
{
	char *d = xstrdup(dir);
	int ret = 0;

	for (char *p = d + 1; ; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = '\0';
		if (!mkdir(d, 0777)) {
			if (made && !*made)
				*made = xstrdup(d);
		} else if (errno == EEXIST) {
			/* below a directory made, one that was there: the
			 * path went back up out of it ("made/../old") or
			 * another process made it, and the directories
			 * below *made are no longer all ours */
			if (made) {
				free(*made);
				*made = NULL;
			}
		} else {
			ret = errno == EACCES || errno == EROFS ||
			      errno == EPERM ? -STORE_ERR_READONLY :
			      -STORE_ERR_IO;
			error_errno(e, errno, "cannot create directory '%s' "
				    "for '%s'", d, path);
			if (ret == -STORE_ERR_READONLY)
				error_mark(e, ERROR_ENV);
			break;
		}
		*p = c;
		if (!c)
			break;
	}
	free(d);
	return ret;
}

/* Trusted owners of a store: the effective user (util/fileio.h) and
 * root, who could read and write it anyway. */
static bool owner_ok(const struct stat *st)
{
	return st->st_uid == 0 || owner_trusted(st);
}

/* The files kept beside the store, which another user must not have
 * planted: a -wal file is replayed into the database, and so is the save
 * log (store_log.c). */
static const char *const side_files[] = { "-wal", "-shm", "-journal",
					  "-log" };
#define NSIDE (sizeof(side_files) / sizeof(side_files[0]))

/* No symlink on the way to path (absolute, or from the current
 * directory) may be another user's in a directory not theirs: the rule
 * of util/fileio.h's outputs (the kernel's protected_symlinks). */
static int check_links(const char *path, struct error *e)
{
	char *cwd = path[0] == '/' ? NULL : getcwd(NULL, 0);
	char *full, *p;
	int ret = 0;

	if (!cwd && path[0] != '/')
		return 0;	/* nothing to resolve against: SQLite fails */
	full = cwd ? xasprintf("%s/%s", cwd, path) : xstrdup(path);
	for (p = strchr(full + 1, '/'); !ret; p = strchr(p + 1, '/')) {
		struct stat st, dst;
		char c = p ? *p : '\0', *slash;

		if (p)
			*p = '\0';
		slash = strrchr(full, '/');
		if (lstat(full, &st) == 0 && S_ISLNK(st.st_mode) &&
		    !owner_ok(&st)) {
			bool theirs;

			*slash = '\0';
			theirs = stat(*full ? full : "/", &dst) == 0 &&
				 dst.st_uid == st.st_uid;
			*slash = '/';
			if (!theirs)
				ret = error_owner(e, "store", path, full, &st);
		}
		if (!p)
			break;
		*p = c;
	}
	free(full);
	free(cwd);
	return ret;
}

/*
 * Refuse a store another user could read or tamper with (design note
 * above store_open in store.h): the file, its side files and its
 * directory must belong to a trusted owner, the file and its side files
 * must not be writable by every user, and the directory must not
 * be writable by every user (where anyone could plant a -wal file in the
 * moment between our check and SQLite's open: even a sticky /tmp).
 */
static int check_safe(const char *path, bool files, struct error *e)
{
	char *real = realpath(path, NULL), *dir;
	struct stat st;
	int ret = 0;

	if (!real && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		/* a link to nothing: the file SQLite would make through it
		 * is where the link says, whose directory nobody judged (a
		 * link's own mode is 0777, which says nothing) */
		error_set(e, "refusing store '%s': it is a symbolic link to a "
			  "file that does not exist (make the store where "
			  "the link points, or give that path)", path);
		error_mark(e, ERROR_ENV);
		return -STORE_ERR_UNSAFE;
	}
	if (!real) {		/* a new file: judge its directory */
		char *d = store_dir_of(path), *rd = realpath(d, NULL);

		real = rd ? xasprintf("%s/%s", strcmp(rd, "/") ? rd : "",
				      strrchr(path, '/') ? strrchr(path, '/')
				      + 1 : path) : xstrdup(path);
		free(rd);
		free(d);
	}
	dir = store_dir_of(real);
	if (stat(dir, &st) == 0) {
		if (!owner_ok(&st))
			ret = error_owner(e, "store", path, dir, &st);
		else if (st.st_mode & S_IWOTH)
			ret = error_set(e, "refusing store '%s': its directory "
					"'%s' is writable by every user, who "
					"could plant its -wal file (keep the "
					"store in a directory of your own)",
					path, dir);
	}
	for (size_t i = 0; files && !ret && i <= NSIDE; i++) {
		char *p = i ? xasprintf("%s%s", real, side_files[i - 1])
			    : xstrdup(real);

		if (lstat(p, &st) == 0 && !owner_ok(&st))
			ret = error_owner(e, "store", path, p, &st);
		else if (lstat(p, &st) == 0 && (st.st_mode & S_IWOTH))
			ret = error_set(e, "refusing store '%s': '%s' is "
					"writable by every user, who could "
					"rewrite its results (chmod o-w '%s')",
					path, p, p);
		free(p);
	}
	free(dir);
	free(real);
	if (!ret)
		return 0;
	error_mark(e, ERROR_ENV);
	return -STORE_ERR_UNSAFE;
}

/* The store's file: a regular file, its directory made when creating,
 * NOTFOUND when missing and not creating. */
int store_prepare_path(const char *path, enum store_mode mode, char **made,
		       struct error *e)
{
	struct stat st;
	char *dir;
	int ret = check_links(path, e);

	if (ret) {
		error_mark(e, ERROR_ENV);
		return -STORE_ERR_UNSAFE;
	}
	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode)) {
			error_set(e, "cannot use '%s' as a store: %s", path,
				  S_ISDIR(st.st_mode) ? "it is a directory"
				  : "it is not a regular file");
			return -STORE_ERR_IO;
		}
		/* an empty file is SQLite's empty database: no store yet
		 * for a reader (it said "no such table: results"); a save
		 * makes one in it */
		if (st.st_size == 0 && mode != STORE_CREATE) {
			error_set(e, "no yardstick store at '%s' (an empty "
				  "file)", path);
			return -STORE_ERR_NOTFOUND;
		}
		return check_safe(path, true, e);
	}
	if (errno != ENOENT) {
		error_errno(e, errno, "cannot use '%s'", path);
		return -STORE_ERR_IO;
	}
	if (mode != STORE_CREATE) {
		error_set(e, "no yardstick store at '%s'", path);
		return -STORE_ERR_NOTFOUND;
	}
	dir = store_dir_of(path);
	ret = store_make_dirs(dir, path, made, e);
	free(dir);
	return ret ? ret : check_safe(path, true, e);
}

int store_prepare_dir(const char *path, struct error *e)
{
	char *dir;
	int ret = check_links(path, e);

	if (ret) {
		error_mark(e, ERROR_ENV);
		return -STORE_ERR_UNSAFE;
	}
	dir = store_dir_of(path);
	ret = store_make_dirs(dir, path, NULL, e);
	free(dir);
	return ret ? ret : check_safe(path, false, e);
}
