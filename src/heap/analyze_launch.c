/*
 * Launchers: what ran in front of the program (a pyenv shim and the
 * helpers it runs, `env`, `nice`, `sh -c '...; exec python3 app.py'`, a
 * wrapper script ending in `exec "$@"`) is kept apart from the program's
 * figures.
 *
 * The rule, decided from the table of images (protocol.h, images) and
 * the executable each image's memory maps name: the program is the last
 * image of the process yardstick started — what its execs ended in —
 * and every process that image started, at any depth (forked, or spawned
 * with the agent: its parent process's image then). A launcher is an
 * image that process exec'd away from that ran another executable than
 * the last one (bash for the pyenv shim, env, nice, sh), and every process
 * a launcher started. An image of the same executable (a program that
 * re-execs itself) is the program's, and so is what it started. So
 * `sh -c 'a | b'` (no exec) counts a and b; `sh -c 'a; exec b'` counts b
 * only; a program that never execs counts everything, as before. When
 * the last image exec'd into a program the agent could not follow
 * (exec_pending, no image after it), nothing is a launcher: there is no
 * program image to keep apart from.
 */
#include <stdio.h>
#include <string.h>

#include "heap/analyze_replay.h"

/* The last image of image 1's execs, 0 when it exec'd out of the trace. */
static uint32_t final_image(const struct heap_report *r,
			    const struct heap_trace *t)
{
	uint32_t last = 1;

	for (uint32_t k = 2; k < r->nprocs; k++)
		if (r->procs[k].replaced == last)
			last = k;
	if (last < t->nimages && t->images[last].exec_pending)
		return 0;
	return last;
}

/* The executable image gen's first maps text names (its lowest mapping
 * with a path: the executable's), into buf; "" when it sent none. */
static void image_exe(const struct heap_trace *t, uint32_t gen, char *buf,
		      size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < t->nmaps; i++) {
		const char *line = t->maps[i];

		if (t->maps_gen[i] != gen || !line)
			continue;
		while (*line) {
			size_t len = strcspn(line, "\n");
			const char *path = memchr(line, '/', len);

			if (path) {
				snprintf(buf, size, "%.*s",
					 (int)(len - (size_t)(path - line)), path);
				return;
			}
			line += len + (line[len] == '\n');
		}
	}
}

/* The image that started image k: the one it exec'd over, forked from,
 * or (spawned with the agent) its parent process's image then; 0: none
 * known. Images are numbered in the order they started, so it is < k. */
static uint32_t starter(const struct heap_report *r, uint32_t k)
{
	const struct heap_proc *pr = &r->procs[k];

	if (pr->replaced)
		return pr->replaced;
	if (pr->parent)
		return pr->parent;
	for (uint32_t j = k; j-- > 1; )
		if (r->procs[j].pid == pr->ppid)
			return j;
	return 0;
}

/* Is image k one of image 1's execs up to image last (before it)? */
static bool main_lineage(const struct heap_report *r, uint32_t k,
			 uint32_t last)
{
	for (uint32_t g = last; g; g = r->procs[g].replaced)
		if (g == k)
			return true;
	return false;
}

void replay_mark_launchers(struct heap_report *r, const struct heap_trace *t)
{
	char exe[256], other[256];
	uint32_t last;

	for (size_t k = 0; k < r->nprocs; k++)
		r->procs[k].launcher = false;
	if (t->all_processes || r->nprocs < 3)
		return;
	last = final_image(r, t);
	if (last <= 1)
		return;
	image_exe(t, last, exe, sizeof(exe));
	for (uint32_t k = 1; k < r->nprocs; k++) {
		uint32_t s;

		if (k == last || !r->procs[k].pid)
			continue;
		if (main_lineage(r, k, last)) {
			image_exe(t, k, other, sizeof(other));
			r->procs[k].launcher = !exe[0] || strcmp(exe, other);
			continue;
		}
		s = starter(r, k);
		r->procs[k].launcher = s && r->procs[s].launcher;
	}
}

/* The name of a launcher's command: its program's base name, and for a
 * shell or an interpreter running a script, the script's ("bash: pyenv"). */
static void launcher_name(const char *cmd, char *buf, size_t size)
{
	static const char *const shells[] = { "sh", "bash", "dash", "zsh",
					      "ksh", NULL };
	char word[HEAP_CMD_MAX + 1], arg[HEAP_CMD_MAX + 1] = "";
	const char *prog, *script;
	size_t n = strcspn(cmd, " ");

	memcpy(word, cmd, n);
	word[n] = '\0';
	if (cmd[n] == ' ') {
		const char *a = cmd + n + 1;
		size_t m = strcspn(a, " ");

		memcpy(arg, a, m);
		arg[m] = '\0';
	}
	prog = strrchr(word, '/') ? strrchr(word, '/') + 1 : word;
	script = strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg;
	for (int i = 0; shells[i]; i++)
		if (!strcmp(prog, shells[i]) && arg[0] && arg[0] != '-') {
			snprintf(buf, size, "%s: %s", prog, script);
			return;
		}
	snprintf(buf, size, "%s", prog[0] ? prog : "?");
}

/* Is name among the first n of names (separated by ", ")? */
static bool named(const char *names, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = names; (p = strstr(p, name)); p += len)
		if ((p == names || p[-1] == ' ') &&
		    (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

void heap_launchers(const struct heap_report *r, struct heap_launch *l)
{
	size_t shown = 0;

	memset(l, 0, sizeof(*l));
	for (size_t k = 1; k < r->nprocs; k++) {
		const struct heap_proc *pr = &r->procs[k];
		char name[2 * HEAP_CMD_MAX + 8];
		size_t used = strlen(l->names), size = sizeof(l->names);

		if (!pr->launcher)
			continue;
		l->allocations += pr->allocations;
		/* the program's own process before its exec: its images; any
		 * other process is one whatever it exec'd */
		if (pr->pid == r->procs[1].pid && !pr->parent)
			l->images++;
		else
			l->processes += !pr->replaced;
		launcher_name(pr->cmd, name, sizeof(name));
		if (named(l->names, name))
			continue;
		if (shown == 4) {
			if (used + 6 < size && !strstr(l->names, ", ..."))
				snprintf(l->names + used, size - used, ", ...");
			continue;
		}
		if (used + strlen(name) + 3 < size) {
			snprintf(l->names + used, size - used, "%s%s",
				 used ? ", " : "", name);
			shown++;
		}
	}
}
