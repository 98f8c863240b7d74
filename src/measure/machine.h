/*
 * The machine fingerprint and the git state a result was measured under.
 * Both are read from /proc, /sys and .git directly; only the dirty check
 * asks git itself.
 */
#ifndef YS_MEASURE_MACHINE_H
#define YS_MEASURE_MACHINE_H

#include <stdbool.h>
#include <sys/types.h>

#include "result/result.h"
#include "util/child.h"

/* Fill m (strings malloc'd, owned by the result). Never fails: what cannot
 * be read stays NULL or 0. */
void machine_detect(struct machine *m);

/* The CPU's name as the kernel gives it (the first "model name" of the
 * cpuinfo file at path, its first CPU's block only) into *cpu, malloc'd,
 * NULL when there is none (an ARM kernel names no model); *virtualized
 * when that block's flags have "hypervisor". */
void machine_read_cpuinfo(const char *path, char **cpu, bool *virtualized);

/* The name the kernel makes of a 48-byte cpuid brand string
 * (arch/x86/kernel/cpu/common.c, get_model_name): up to its first NUL,
 * leading spaces skipped, trailing white space cut; malloc'd, NULL when
 * nothing is left. */
char *machine_brand_name(const char raw[48]);

/* Fill g for the repository containing the current directory; all NULL
 * outside git, and in a repository that cannot be trusted (owned by
 * another user, a HEAD leading outside it: see util/gitdir.h), which
 * git_detect_warning then explains. Runs `git status` for the dirty flag
 * when git exists. */
void git_detect(struct git_info *g);

/* The same in two steps: commit and branch at once, the dirty flag (a
 * `git status` of some milliseconds in a large checkout) when finished, so
 * that the caller's work in between overlaps with it (`run`: the runs).
 * git_detect_finish may be called more than once. Only where the state is
 * kept (wanted: the result is stored or written as a result file): else
 * nothing is asked, g is left empty and gp made one that finishes at once
 * (`git status` stats every tracked file: in yardstick's own checkout
 * of 809 files, 4.3 ms of CPU, 5% of `mem --sample` on a 0.1 s program). */
struct git_probe {
	struct git_info *g;
	struct child child;	/* git status; pid 0: none */
	int fd;			/* its output; -1: none */
	char warning[1100];	/* why the repository was ignored, or "" */
};
void git_detect_start(struct git_info *g, struct git_probe *gp,
		      bool wanted);
void git_detect_finish(struct git_probe *gp);
/* Why the repository found was ignored, for the command to print as a
 * warning; NULL when nothing was ignored. */
const char *git_detect_warning(const struct git_probe *gp);

/* Current UTC time as ISO 8601, malloc'd. */
char *utc_timestamp(void);

#endif
