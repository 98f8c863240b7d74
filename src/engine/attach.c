/* A running process attached to, for record --pid and trace --pid
 * (attach.h). */
#include "engine/attach.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/python_proc.h"
#include "util/stop.h"
#include "util/strutil.h"

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
