/*
 * Finding the git repository of a directory and reading its HEAD, without
 * running git: for the git state of a result and the default store path.
 *
 * The one thing to know before changing it: every file read here may have
 * been planted by another user, so, as git does, a repository whose
 * top-level directory or git directory is owned by someone other than
 * the effective user is refused, unless git's safe.directory setting
 * (system or global, as `git config` reads it) lists it; every ref name read
 * from a file is checked as `git check-ref-format` would before it is
 * used as a path, and ref files are opened without following symlinks.
 * What comes out of a ref file is only ever a hexadecimal object name.
 */
#ifndef YS_UTIL_GITDIR_H
#define YS_UTIL_GITDIR_H

#include <stdbool.h>

#include "util/error.h"

struct child;

struct gitdir {
	char *top;	/* the work tree: the directory holding .git */
	char *dir;	/* the git directory (.git, or where a .git file
			 * points: a worktree's or a submodule's) */
	char *common;	/* where refs live: dir, or its commondir */
	int safe;	/* safe.directory lists top: 1 yes, -1 no, 0 not
			 * asked yet */
};

/*
 * The repository containing start (the nearest directory at or above it
 * holding a .git directory or file). Returns 0 and fills g (malloc'd
 * strings, free with gitdir_free), 1 when there is none, or -1 with a
 * message when the one found cannot be trusted: owned by another user
 * and not listed in safe.directory (the message names the directory and
 * both users), or a commondir that does not name a git directory.
 */
int gitdir_find(const char *start, struct gitdir *g, struct error *e);
void gitdir_free(struct gitdir *g);

/*
 * HEAD of g: *commit the full hexadecimal object name (NULL in a new
 * repository with no commit yet), *branch the branch name when HEAD is a
 * branch under refs/heads/ (NULL when detached). Both malloc'd. Returns 0,
 * or -1 with a message when HEAD or a ref it leads to is malformed (an
 * invalid ref name, a symlink, a loop).
 */
int gitdir_head(const struct gitdir *g, char **commit, char **branch,
		struct error *e);

/* Whether name is a valid full ref name under refs/ by the rules of
 * `git check-ref-format`. */
bool gitdir_ref_valid(const char *name);

/*
 * Start git (found in PATH) with argv in dir (NULL: here) through
 * util/child.h: stdin and stderr /dev/null, stdout on a pipe whose read
 * end is c->fd[1] (the caller's to close, before child_wait), in a
 * process group of its own (the terminal's Ctrl-C is not for it). Returns
 * 0, or -1 when there is no git or it cannot be started.
 */
int gitdir_start_git(struct child *c, char *const *argv, const char *dir);

#endif
