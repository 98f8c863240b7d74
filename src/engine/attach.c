/* A running process attached to, for record --pid and trace --pid
 * (attach.h). */
#include "engine/attach.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/python_proc.h"
#include "util/procdir.h"
#include "util/stop.h"
#include "util/strutil.h"
#include "util/zonebuf.h"

int attach_check(uint32_t pid, struct error *e)
{
	if (kill((pid_t)pid, 0) == 0)
		return 0;
	if (errno == ESRCH) {
		error_set(e, "no process %u", pid);
		return 2;
	}
	if (errno == EPERM) {
		error_set(e, "not permitted to sample process %u: it is "
			  "another user's (perf events on a process need the "
			  "right to ptrace it: run yardstick as its user, or as "
			  "root)", pid);
		return 3;
	}
	return 0;
}

bool attach_runs_python(uint32_t pid, bool children)
{
	struct py_proc pp;
	struct error pe;
	uint32_t *kids = NULL;
	size_t n;
	bool py = false;

	if (py_proc_probe(pid, &pp, &pe) == 1)
		return true;
	if (!children)
		return false;
	n = sampler_descendants(pid, &kids);
	for (size_t i = 0; i < n && !py; i++)
		py = py_proc_probe(kids[i], &pp, &pe) == 1;
	free(kids);
	return py;
}

/* Whether path names the zone buffer's memfd ("/memfd:NAME (deleted)"). */
static bool is_zone_memfd(const char *path)
{
	static const char prefix[] = "/memfd:" ZB_MEMFD_NAME;
	size_t n = sizeof(prefix) - 1;

	return !strncmp(path, prefix, n) && (!path[n] || path[n] == ' ');
}

/* The buffer behind path (/proc/P/fd/N or /proc/P/map_files/LO-HI)
 * opened into m: whether it is one (zb_open). */
static bool open_zones(const char *path, struct zb_map *m)
{
	struct error e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd >= 0 && zb_open(m, fd, &e) == 0;
}

/* Process p's buffer: a descriptor of it, else a mapping of it. */
static bool zones_of(uint32_t p, struct zb_map *m)
{
	char dir[64], path[384], link[256], *line = NULL;
	struct dirent *d;
	bool found = false;
	size_t cap = 0;
	DIR *fds;
	FILE *fp;

	snprintf(dir, sizeof(dir), "/proc/%u/fd", p);
	fds = opendir(dir);
	while (fds && !found && (d = readdir(fds))) {
		ssize_t n;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = '\0';
		found = is_zone_memfd(link) && open_zones(path, m);
	}
	if (fds)
		closedir(fds);
	procdir_path(p, "maps", path, sizeof(path));
	fp = found ? NULL : fopen(path, "re");
	while (fp && !found && getline(&line, &cap, fp) > 0) {
		unsigned long long lo, hi;
		int at = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi,
			   &at) < 2 || !at || !is_zone_memfd(line + at))
			continue;
		snprintf(path, sizeof(path), "/proc/%u/map_files/%llx-%llx", p,
			 lo, hi);
		found = open_zones(path, m);
	}
	free(line);
	if (fp)
		fclose(fp);
	return found;
}

uint32_t attach_zone_buffer(uint32_t pid, bool children, struct zb_map *m)
{
	uint32_t *kids = NULL, got = 0;
	size_t n;

	if (zones_of(pid, m))
		return pid;
	if (!children)
		return 0;
	n = sampler_descendants(pid, &kids);
	for (size_t i = 0; i < n && !got; i++)
		if (zones_of(kids[i], m))
			got = kids[i];
	free(kids);
	return got;
}

char *attach_name(uint32_t pid)
{
	char path[64], buf[64] = "?";
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	fp = fopen(path, "re");
	if (fp) {
		if (!fgets(buf, sizeof(buf), fp))
			snprintf(buf, sizeof(buf), "?");
		buf[strcspn(buf, "\n")] = '\0';
		fclose(fp);
	}
	return xstrdup(buf);
}

enum sampler_result attach_sampler_run(struct sampler_opts *o, uint32_t pid,
				       double duration,
				       const struct sampler_callbacks *cb,
				       struct sampler_stats *st,
				       struct error *e)
{
	o->interrupt = stop_flag();
	return sampler_attach(o, pid, (uint64_t)(duration * 1e9), cb, st, e);
}
