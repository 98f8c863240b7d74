/* Machine fingerprint (CPU, cores, memory, kernel, governor, VM) and git
 * state, for every stored result. */
#include "measure/machine.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "util/gitdir.h"
#include "util/strutil.h"


/* First line of a small file, without its newline; NULL if unreadable. */
static char *read_line(const char *path)
{
	char buf[4096];
	FILE *fp = fopen(path, "r");
	size_t len;

	if (!fp)
		return NULL;
	if (!fgets(buf, sizeof(buf), fp)) {
		fclose(fp);
		return NULL;
	}
	fclose(fp);
	len = strcspn(buf, "\r\n");
	return xstrndup(buf, len);
}

void machine_read_cpuinfo(const char *path, char **cpu, bool *virtualized)
{
	FILE *fp = fopen(path, "r");
	char line[1024];

	*cpu = NULL;
	*virtualized = false;
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		char *colon = strchr(line, ':');

		/* The first CPU's block says it all: the kernel makes every
		 * other CPU's as it is read (a millisecond or more on a
		 * machine of many cores). */
		if (line[0] == '\n')
			break;
		if (!colon)
			continue;
		if (!*cpu && !strncmp(line, "model name", 10)) {
			char *v = colon + 1;

			v += strspn(v, " \t");
			*cpu = xstrndup(v, strcspn(v, "\n"));
		}
		if (!strncmp(line, "flags", 5) && strstr(colon, " hypervisor"))
			*virtualized = true;
	}
	fclose(fp);
}

char *machine_brand_name(const char raw[48])
{
	char s[49], *p, *q, *last = NULL;

	memcpy(s, raw, 48);
	s[48] = '\0';
	for (p = s; *p == ' '; p++)
		;
	for (q = s; *p; *q++ = *p++)
		if (!strchr(" \t\n\v\f\r", *p))
			last = q;
	if (!last)
		return NULL;
	last[1] = '\0';
	return xstrdup(s);
}

/*
 * The CPU's name and the hypervisor bit from the cpuid instruction, *cpu
 * malloc'd; false where there is no such instruction or brand string.
 * Only where /proc/cpuinfo names no model (machine_detect): what a
 * program's cpuid answers is not always the kernel's. Under PVM (a guest
 * kernel in a virtual machine of its own, user code running on the
 * outer one's CPU) the kernel said "AMD EPYC" and cpuid, run by a
 * program, "Oxide Virtual Turin-like Processor"; /proc/cpuinfo and
 * lscpu say the first, and so does a result. Reading /proc/cpuinfo's
 * first block costs 20-50 us of every result (the kernel formats the
 * CPU's frequency). (__cpuid is cpuid.h's macro: its functions would be
 * calls of a header's to calltrace.py.)
 */
static bool machine_cpuid(char **cpu, bool *virtualized)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int r[12], a, b, c, d;

	__cpuid(0x80000000, a, b, c, d);
	if (a < 0x80000004)
		return false;
	for (unsigned int k = 0; k < 3; k++)
		__cpuid(0x80000002 + k, r[4 * k], r[4 * k + 1], r[4 * k + 2],
			r[4 * k + 3]);
	*cpu = machine_brand_name((const char *)r);
	if (!*cpu)
		return false;
	__cpuid(1, a, b, c, d);
	*virtualized = c & (1u << 31);
	return true;
#else
	(void)cpu;
	(void)virtualized;
	return false;
#endif
}

void machine_detect(struct machine *m)
{
	struct utsname u;
	char host[HOST_NAME_MAX + 1];
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

	memset(m, 0, sizeof(*m));
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		m->hostname = xstrdup(host);
	}
	if (uname(&u) == 0)
		m->os = xasprintf("%s %s %s", u.sysname, u.release, u.machine);
	machine_read_cpuinfo("/proc/cpuinfo", &m->cpu, &m->virtualized);
	if (!m->cpu) {
		bool hyper = false;

		if (machine_cpuid(&m->cpu, &hyper))
			m->virtualized = m->virtualized || hyper;
	}
	m->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (pages > 0 && psize > 0)
		m->memory_bytes = (unsigned long long)pages * psize;
	m->governor = read_line(
		"/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	if (!m->virtualized && access("/sys/hypervisor/type", F_OK) == 0)
		m->virtualized = true;
}

/* Start `git status` with its output on a pipe; the answer is read by
 * git_detect_finish, so that the work of yardstick can go on meanwhile. */
static void dirty_start(struct git_probe *gp)
{
	/* static: child_wait may name argv[0] later */
	static char *const argv[] = { "git", "status", "--porcelain",
				      "--untracked-files=no", NULL };

	gp->fd = -1;
	if (gitdir_start_git(&gp->child, argv, NULL) == 0)
		gp->fd = gp->child.fd[1];
}

void git_detect_finish(struct git_probe *gp)
{
	struct error e;
	char c;

	if (gp->fd >= 0) {
		/* Any line of output means a changed tracked file. */
		gp->g->dirty = read(gp->fd, &c, 1) == 1;
		close(gp->fd);
		gp->fd = -1;
	}
	if (gp->child.pid > 0)
		child_wait(&gp->child, &e);
}

void git_detect_start(struct git_info *g, struct git_probe *gp, bool wanted)
{
	struct gitdir gd;
	struct error e;
	char *cwd;
	int found;

	memset(g, 0, sizeof(*g));
	gp->g = g;
	gp->child = (struct child){ 0 };
	gp->fd = -1;
	gp->warning[0] = '\0';
	if (!wanted)
		return;
	cwd = getcwd(NULL, 0);
	found = cwd ? gitdir_find(cwd, &gd, &e) : 1;
	free(cwd);
	if (found < 0) {
		snprintf(gp->warning, sizeof(gp->warning), "git state not "
			 "recorded: %s", e.msg);
		return;
	}
	if (found > 0)
		return;
	if (gitdir_head(&gd, &g->commit, &g->branch, &e))
		snprintf(gp->warning, sizeof(gp->warning), "git state not "
			 "recorded: %s", e.msg);
	gitdir_free(&gd);
	if (g->commit)
		dirty_start(gp);
}

void git_detect(struct git_info *g)
{
	struct git_probe gp;

	git_detect_start(g, &gp, true);
	git_detect_finish(&gp);
}

char *utc_timestamp(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
}

const char *git_detect_warning(const struct git_probe *gp)
{
	return gp->warning[0] ? gp->warning : NULL;
}
