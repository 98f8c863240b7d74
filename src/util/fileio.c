/* Atomic output files, whole-file reads, the helpers beside the binary. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Where a symlink whose target does not exist yet points; NULL if path
 * is no symlink. */
static char *follow_dangling(const char *path)
{
	char *cur = xstrdup(path);

	for (int hops = 0; hops < 16; hops++) {
		char target[4096], *slash, *next;
		ssize_t n = readlink(cur, target, sizeof(target) - 1);

		if (n < 0)
			break;
		target[n] = '\0';
		slash = strrchr(cur, '/');
		next = target[0] == '/' || !slash
			? xstrdup(target)
			: xasprintf("%.*s/%s", (int)(slash - cur), cur, target);
		free(cur);
		cur = next;
	}
	if (!strcmp(cur, path)) {
		free(cur);
		return NULL;
	}
	return cur;
}

int atomic_open(struct atomic_file *af, const char *path, struct error *e)
{
	struct stat st;
	char *real;
	int fd;

	memset(af, 0, sizeof(*af));
	af->path = xstrdup(path);
	if (!strcmp(path, "-")) {
		af->fp = stdout;
		return 0;
	}
	/* A symlink is followed: the file it names is replaced, not it. */
	real = realpath(path, NULL);
	if (!real)
		real = follow_dangling(path);
	if (real) {
		free(af->path);
		af->path = real;
	}
	/* A device or a pipe (/dev/stdout, a FIFO) cannot be replaced by a
	 * rename: write to it directly. */
	if (stat(af->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		af->fp = fopen(af->path, "w");
		if (!af->fp) {
			error_errno(e, errno, "cannot open '%s'", path);
			free(af->path);
			return -1;
		}
		af->direct = true;
		return 0;
	}
	af->tmp = xasprintf("%s.tmp.XXXXXX", af->path);
	fd = mkstemp(af->tmp);
	if (fd < 0) {
		error_errno(e, errno, "cannot create '%s'", path);
		goto out_free;
	}
	/* mkstemp creates 0600; results are ordinary files. */
	fchmod(fd, 0644 & ~umask_get());
	af->fp = fdopen(fd, "w");
	if (!af->fp) {
		error_errno(e, errno, "cannot open '%s'", path);
		close(fd);
		unlink(af->tmp);
		goto out_free;
	}
	return 0;

out_free:
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
	return -1;
}

int atomic_commit(struct atomic_file *af, struct error *e)
{
	int ret = 0;

	if (!af->tmp) {
		if (fflush(af->fp) || ferror(af->fp))
			ret = error_errno(e, errno ? errno : EIO,
					  "cannot write to '%s'", af->direct
					  ? af->path : "stdout");
		if (af->direct && fclose(af->fp) && !ret)
			ret = error_errno(e, errno, "cannot write to '%s'",
					  af->path);
		free(af->path);
		memset(af, 0, sizeof(*af));
		return ret;
	}
	if (fflush(af->fp) || ferror(af->fp)) {
		ret = error_errno(e, errno ? errno : EIO, "cannot write '%s'",
				  af->path);
		fclose(af->fp);
		goto out_unlink;
	}
	if (fclose(af->fp)) {
		ret = error_errno(e, errno, "cannot write '%s'", af->path);
		goto out_unlink;
	}
	if (rename(af->tmp, af->path)) {
		ret = error_errno(e, errno, "cannot rename into '%s'",
				  af->path);
		goto out_unlink;
	}
	goto out_free;

out_unlink:
	unlink(af->tmp);
out_free:
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
	return ret;
}

void atomic_abort(struct atomic_file *af)
{
	if (af->tmp) {
		fclose(af->fp);
		unlink(af->tmp);
	} else if (af->direct) {
		fclose(af->fp);
	} else if (af->fp) {
		fflush(af->fp);
	}
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
}

int atomic_check(const char *path, struct error *e)
{
	struct atomic_file af;
	struct stat st;

	if (!strcmp(path, "-"))
		return 0;
	/* Opening a device or FIFO to check it would block or write. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return 0;
	if (atomic_open(&af, path, e))
		return -1;
	atomic_abort(&af);
	return 0;
}

int file_read_all(const char *path, char **data, size_t *lenp,
		  struct error *e)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!fp)
		return error_errno(e, errno, "cannot open '%s'", path);
	do {
		buf = xgrow(buf, &cap, len + 65536 + 1, 1);
		got = fread(buf + len, 1, cap - len - 1, fp);
		len += got;
	} while (got > 0);
	if (ferror(fp)) {
		error_errno(e, errno ? errno : EIO, "cannot read '%s'", path);
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
