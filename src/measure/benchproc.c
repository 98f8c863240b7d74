/*
 * Running a benchmark program's processes (benchproc.h). One process at
 * a time, never two at once: two would measure each other. With more
 * than one process, each one's standard error goes to a memory file,
 * shown only when that process fails: the warnings of every process are
 * in its result, and twenty copies of them on the terminal would bury
 * the one that matters.
 */
#include "measure/benchproc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "result/procmerge.h"
#include "util/strutil.h"
#include "util/term.h"

/* The most of a failing process's standard error kept: its end. */
#define ERR_KEEP (64 * 1024)

/* The program of process i: A B B A A B B A ... with a baseline program,
 * the program alone without one. */
static int benchproc_which(size_t i, bool two)
{
	if (!two)
		return BENCHPROC_CAND;
	return i % 4 == 0 || i % 4 == 3 ? BENCHPROC_BASE : BENCHPROC_CAND;
}

/* The last ERR_KEEP bytes of the memory file fd into out->err_text. */
static void keep_stderr(int fd, struct benchproc_run *out)
{
	off_t end = lseek(fd, 0, SEEK_END);
	off_t from = end > ERR_KEEP ? end - ERR_KEEP : 0;
	ssize_t n;

	if (end <= 0)
		return;
	out->err_text = xcalloc((size_t)(end - from) + 1, 1);
	n = pread(fd, out->err_text, (size_t)(end - from), from);
	out->err_len = n > 0 ? (size_t)n : 0;
}

/* How the process ended, as out->fail (BENCHPROC_OK when it exited 0
 * within max_result). */
static enum benchproc_fail ended(const struct child *c, bool overflow)
{
	if (overflow)
		return BENCHPROC_OVERFLOW;
	if (c->interrupted || c->timed_out || !WIFEXITED(c->status) ||
	    WEXITSTATUS(c->status) != 0)
		return BENCHPROC_ENDED;
	return BENCHPROC_OK;
}

/* The result the process wrote, checked, into *part. */
static enum benchproc_fail read_part(const char *path, const char *data,
				     size_t len, struct result *part,
				     struct benchproc_run *out,
				     struct error *e)
{
	char *safe, *name;
	int ret;

	if (len == 0)
		return BENCHPROC_NO_RESULT;
	safe = term_safe(path);
	name = xasprintf("the result of '%s'", safe);
	ret = result_read_json_mem(part, name, data, len, e);
	free(name);
	free(safe);
	if (ret)
		return BENCHPROC_BAD_RESULT;
	if (!part->kind || strcmp(part->kind, "bench")) {
		out->kind = xstrdup(part->kind ? part->kind : "none");
		return BENCHPROC_KIND;
	}
	return part->nbenchmarks ? BENCHPROC_OK : BENCHPROC_EMPTY;
}

/* Start the process, read its pipe to its end and reap it: 0, or the
 * failure (out->child holds how it ended). *data is its result. */
static enum benchproc_fail spawn_one(const struct benchproc_plan *p,
				     int which, int errfd, char **data,
				     size_t *len, struct benchproc_run *out,
				     struct error *e)
{
	static const char *const env[] = {
		BENCHPROC_ENV "=/dev/fd/3", NULL,
	};
	struct child_fd_map map = { .to = BENCHPROC_FD };
	struct child *c = &out->child;
	bool overflow = false;
	int pfd[2], ret;

	memset(c, 0, sizeof(*c));
	c->path = p->path[which];
	c->argv = p->argv[which];
	c->env_add = env;
	c->io[0] = CHILD_IO_NULL;
	c->io[1] = p->show_output ? CHILD_IO_INHERIT : CHILD_IO_NULL;
	c->io[2] = errfd >= 0 ? CHILD_IO_FD : CHILD_IO_INHERIT;
	c->fd[2] = errfd;
	c->maps = &map;
	c->nmaps = 1;
	c->own_group = true;
	c->die_with_us = true;
	c->timeout = p->timeout;
	c->interrupt = p->interrupt;
	if (pipe2(pfd, O_CLOEXEC)) {
		error_set(e, "cannot create a pipe: %s", strerror(errno));
		return BENCHPROC_PIPE;
	}
	map.from = pfd[1];
	ret = child_start(c, e);
	close(pfd[1]);
	if (ret) {
		close(pfd[0]);
		return BENCHPROC_START;
	}
	ret = child_read_pipe(c, pfd[0], p->max_result, data, len, &overflow,
			      e) || child_wait(c, e);
	close(pfd[0]);
	/* the child ended (or was killed and reaped): the pointers into
	 * this frame go */
	c->maps = NULL;
	c->env_add = NULL;
	return ret ? BENCHPROC_PIPE : ended(c, overflow);
}

/* A memory file for a process's standard error, numbered above
 * BENCHPROC_FD (the child's descriptors are given before its stdio: a 3
 * would be taken over by the result pipe); -1 when none can be made (the
 * process then writes to ours). */
static int stderr_file(void)
{
	int fd = memfd_create("yardstick-bench-stderr", MFD_CLOEXEC);
	int high;

	if (fd < 0 || fd > BENCHPROC_FD)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, BENCHPROC_FD + 1);
	close(fd);
	return high;
}

/* Process i of program which, merged into out->res[which]. */
static enum benchproc_fail one_process(const struct benchproc_plan *p,
				       bool capture, int which, size_t i,
				       struct benchproc_run *out,
				       struct error *e)
{
	struct result part;
	char *data = NULL;
	size_t len = 0;
	int errfd = -1;
	enum benchproc_fail f;

	memset(&part, 0, sizeof(part));	/* the reader initializes it */
	if (capture)
		errfd = stderr_file();
	f = spawn_one(p, which, errfd, &data, &len, out, e);
	if (f == BENCHPROC_OK)
		f = read_part(p->path[which], data, len, &part, out, e);
	if (f == BENCHPROC_OK &&
	    result_merge_process(&out->res[which], &part, (unsigned)i, e))
		f = BENCHPROC_MERGE;
	if (f != BENCHPROC_OK && errfd >= 0)
		keep_stderr(errfd, out);
	if (errfd >= 0)
		close(errfd);
	result_free(&part);
	free(data);
	return f;
}

/* Processes from out->nrun up to total, each program's merged result
 * finished again after them. */
static int run_more(const struct benchproc_plan *p, struct benchproc_run *out,
		    size_t total, struct error *e)
{
	bool two = p->path[BENCHPROC_BASE] != NULL;
	bool capture = total > 1;

	out->order = xrealloc(out->order, total ? total : 1);
	for (size_t i = out->nrun; i < total && out->fail == BENCHPROC_OK;
	     i++) {
		int which = benchproc_which(i, two);

		if (p->interrupt && *p->interrupt) {
			out->fail = BENCHPROC_INTERRUPTED;
			break;
		}
		out->order[out->nrun++] = (unsigned char)which;
		out->which = which;
		out->fail = one_process(p, capture, which, i, out, e);
		if (out->child.strays && !out->strays)
			snprintf(out->stray_names, sizeof(out->stray_names),
				 "%s", out->child.stray_names);
		out->strays += out->child.strays;
		if (out->fail == BENCHPROC_OK)
			out->done[which]++;
	}
	for (int k = 0; k < 2; k++)
		if (out->done[k])
			result_merge_finish(&out->res[k], out->done[k]);
	return out->fail == BENCHPROC_OK ? 0 : -1;
}

int benchproc_run(const struct benchproc_plan *p, struct benchproc_run *out,
		  struct error *e)
{
	bool two = p->path[BENCHPROC_BASE] != NULL;

	memset(out, 0, sizeof(*out));
	result_init(&out->res[0], NULL);
	result_init(&out->res[1], NULL);
	return run_more(p, out, (size_t)p->processes * (two ? 2 : 1), e);
}

int benchproc_more(const struct benchproc_plan *p, struct benchproc_run *out,
		   unsigned processes, struct error *e)
{
	bool two = p->path[BENCHPROC_BASE] != NULL;
	size_t total = (size_t)processes * (two ? 2 : 1);

	if (out->fail != BENCHPROC_OK || total <= out->nrun)
		return out->fail == BENCHPROC_OK ? 0 : -1;
	return run_more(p, out, total, e);
}

void benchproc_free(struct benchproc_run *out)
{
	result_free(&out->res[0]);
	result_free(&out->res[1]);
	free(out->order);
	free(out->kind);
	free(out->err_text);
	memset(out, 0, sizeof(*out));
}
