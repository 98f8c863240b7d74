/*
 * The symbolizer's processes: their mappings as mmap, fork and exec
 * records report them, the bias of each file mapping, and the JIT symbols
 * of /tmp/perf-PID.map (symtab_internal.h, note 2).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile/jitmap.h"
#include "profile/symtab_internal.h"
#include "util/procdir.h"
#include "util/strutil.h"

/* --- processes and their mappings --- */

/* Every lookup finds its process first: hash_u64 is one-to-one, so the
 * hash is the pid and the first match is it. */
struct proc *proc_find(struct symtab *s, uint32_t pid, bool create)
{
	uint64_t h = hash_u64(pid);
	size_t pos;
	struct proc *p = (void *)(uintptr_t)hashidx_first(&s->procs, h, &pos);

	if (p || !create)
		return p;
	p = xcalloc(1, sizeof(*p));
	p->pid = p->os_pid = pid;
	st_table_add(&s->procs, h, p);
	return p;
}

static void proc_forget_unwinder(struct proc *p)
{
	unwind_unref(p->unw);
	p->unw = NULL;
	p->unw_failed = false;
}

/* Forget p's mappings (and what came from them), not p. */
void proc_clear(struct proc *p)
{
	proc_forget_unwinder(p);
	free(p->maps);
	free(p->jit);
	*p = (struct proc){ .pid = p->pid, .os_pid = p->os_pid };
}

/* The mapping containing addr, or NULL. */
struct mapping *map_find(struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

/* Remove [start, end) from p's mappings, trimming or splitting the ones
 * it overlaps. Returns whether a file mapping was touched. */
static bool map_punch(struct proc *p, uint64_t start, uint64_t end)
{
	bool files = false;

	for (size_t i = 0; i < p->nmaps; i++) {
		struct mapping *m = &p->maps[i], right = *m;

		if (m->end <= start || m->start >= end)
			continue;
		files |= m->mod != NULL;
		right.pgoff += end > m->start ? end - m->start : 0;
		right.start = end;
		if (m->start < start && m->end > end) {
			/* split: keep the left part here, the right after */
			m->end = start;
			p->maps = xgrow(p->maps, &p->capmaps, p->nmaps + 1,
					sizeof(*p->maps));
			memmove(&p->maps[i + 2], &p->maps[i + 1],
				(p->nmaps - i - 1) * sizeof(*p->maps));
			p->maps[i + 1] = right;
			p->nmaps++;
			return files;
		}
		if (m->start < start) {
			m->end = start;
		} else if (m->end > end) {
			*m = right;
		} else {
			memmove(m, m + 1, (p->nmaps - i - 1) * sizeof(*m));
			p->nmaps--;
			i--;
		}
	}
	return files;
}

/* Whether path names a file with symbols: not anonymous memory ("//anon",
 * "[heap]", "/dev/zero", memfds: where JIT code lives) */
static bool path_is_file(const char *path)
{
	if (!strcmp(path, "[vdso]"))
		return true;
	return path[0] == '/' && path[1] != '/' &&
	       strncmp(path, "/dev/zero", 9) &&
	       strncmp(path, "/anon_hugepage", 14) &&
	       strncmp(path, "/memfd:", 7);
}

void symtab_mmap(struct symtab *s, uint32_t pid, uint64_t start,
		 uint64_t len, uint64_t pgoff, const char *path)
{
	struct proc *p = proc_find(s, pid, true);
	struct mapping m = { .start = start, .end = start + len,
			     .pgoff = pgoff };
	size_t i;

	if (!len || m.end < start)
		return;
	if (path && path_is_file(path))
		m.mod = module_get(s, path);
	if (map_punch(p, m.start, m.end) || m.mod)
		proc_forget_unwinder(p);
	p->maps = xgrow(p->maps, &p->capmaps, p->nmaps + 1, sizeof(*p->maps));
	for (i = p->nmaps; i > 0 && p->maps[i - 1].start > start; i--)
		p->maps[i] = p->maps[i - 1];
	p->maps[i] = m;
	p->nmaps++;
}

bool symtab_mmap_replaces(struct symtab *s, uint32_t pid, uint64_t start,
			  uint64_t len, const char *path)
{
	struct proc *p = proc_find(s, pid, false);
	struct module *mod;

	if (!p || !len || start + len < start || !path ||
	    !path_is_file(path))
		return false;
	mod = module_get(s, path);
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct mapping *m = &p->maps[i];

		if (m->start >= start + len)
			break;
		if (m->end > start && m->mod && m->mod != mod)
			return true;
	}
	return false;
}

uint32_t symtab_keep(struct symtab *s, uint32_t pid)
{
	struct proc *p = proc_find(s, pid, false), *r;
	uint32_t id = SYMTAB_RETIRED + s->retired++;

	if (!p)
		return id;
	r = proc_find(s, id, true);
	r->os_pid = p->os_pid;
	if (p->nmaps) {
		r->maps = xcalloc(p->nmaps, sizeof(*r->maps));
		memcpy(r->maps, p->maps, p->nmaps * sizeof(*r->maps));
		r->nmaps = r->capmaps = p->nmaps;
	}
	r->jit_loaded = p->jit_loaded;
	if (p->njit) {
		r->jit = xcalloc(p->njit, sizeof(*r->jit));
		memcpy(r->jit, p->jit, p->njit * sizeof(*r->jit));
		r->njit = p->njit;
	}
	return id;
}

/* One executable mapping of a maps text. */
struct maps_line {
	uint64_t start, end, off;
	char *path;		/* NULL: anonymous */
};

/* The executable mappings /proc/PID/maps lists now, into *out; how many,
 * or -1 when it cannot be read. */
static long read_maps(uint32_t pid, struct maps_line **out)
{
	char path[96], line[4096 + 256], perms[8];
	size_t n = 0, cap = 0;
	FILE *fp;

	*out = NULL;
	procdir_path(pid, "maps", path, sizeof(path));
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long start, end, off;
		int at = 0;
		char *file;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end,
			   perms, &off, &at) != 4 || !at || perms[2] != 'x' ||
		    end <= start)
			continue;
		file = line + at;
		file[strcspn(file, "\n")] = '\0';
		*out = xgrow(*out, &cap, n + 1, sizeof(**out));
		(*out)[n++] = (struct maps_line){ start, end, off,
						  *file ? xstrdup(file) : NULL };
	}
	fclose(fp);
	return (long)n;
}

/* Whether the process is still the image p knows: each file mapping p
 * holds is in the text at its place (an exec since, or a library
 * unloaded, and it is not: its mappings are not p's to add). */
static bool same_image(const struct proc *p, const struct maps_line *v,
		       size_t n)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct mapping *m = &p->maps[i];
		bool found = false;

		if (!m->mod || !strcmp(m->mod->name, "[vdso]"))
			continue;
		for (size_t k = 0; k < n && !found; k++)
			found = v[k].start <= m->start && m->end <= v[k].end &&
				v[k].path && !strcmp(v[k].path, m->mod->path);
		if (!found)
			return false;
	}
	return true;
}

bool proc_refresh(struct symtab *s, struct proc *p)
{
	struct maps_line *v;
	struct timespec ts;
	bool added = false;
	uint64_t now;
	long n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (p->pid >= SYMTAB_RETIRED ||
	    (p->refreshed_ns && now - p->refreshed_ns < PROC_REFRESH_NS))
		return false;
	p->refreshed_ns = now;
	n = read_maps(p->os_pid, &v);
	if (n > 0 && same_image(p, v, (size_t)n))
		for (long i = 0; i < n; i++) {
			if (map_find(p, v[i].start))
				continue;
			symtab_mmap(s, p->pid, v[i].start,
				    v[i].end - v[i].start, v[i].off,
				    v[i].path);
			added = true;
		}
	for (long i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	return added;
}

void symtab_fork(struct symtab *s, uint32_t pid, uint32_t ppid)
{
	struct proc *parent = proc_find(s, ppid, false);
	struct proc *p = proc_find(s, pid, true);

	if (p == parent)
		return;
	proc_clear(p);
	if (!parent || !parent->nmaps)
		return;
	p->maps = xcalloc(parent->nmaps, sizeof(*p->maps));
	memcpy(p->maps, parent->maps, parent->nmaps * sizeof(*p->maps));
	p->nmaps = p->capmaps = parent->nmaps;
	p->unw = parent->unw;
	p->unw_failed = parent->unw_failed;
	unwind_ref(p->unw);
}

uint32_t symtab_retire(struct symtab *s, uint32_t pid)
{
	struct proc *p = proc_find(s, pid, false), *r;
	uint32_t id = SYMTAB_RETIRED + s->retired++;

	if (!p)
		return id;
	r = proc_find(s, id, true);
	/* the old image's mappings and JIT map, not its unwinder: its
	 * stacks are unwound already */
	proc_forget_unwinder(p);
	*r = *p;
	r->pid = id;
	*p = (struct proc){ .pid = pid, .os_pid = pid };
	return id;
}

void symtab_exec(struct symtab *s, uint32_t pid)
{
	struct proc *p = proc_find(s, pid, false);

	if (p)
		proc_clear(p);
}

/* Bias of a file mapping (symtab_internal.h, note 2). Returns 0, or -1
 * if none fits. */
int map_bias(struct symtab *s, struct mapping *m, uint64_t *bias)
{
	if (!m->bias_state && module_probe(s, m->mod) == 0)
		m->bias_state = elf_load_bias(&m->mod->info, m->start,
					      m->pgoff, &m->bias) == 0 ? 1 : -1;
	if (!m->bias_state)
		m->bias_state = module_open(s, m->mod) == 0 &&
				unwind_bias(m->mod->elf, m->start, m->pgoff,
					    &m->bias) == 0 ? 1 : -1;
	*bias = m->bias;
	return m->bias_state > 0 ? 0 : -1;
}

/* --- JIT maps: /tmp/perf-PID.map (jitmap.c reads them) --- */

static void jit_load(struct symtab *s, struct proc *p)
{
	char path[64];
	struct jitmap_entry *v;
	size_t n;

	p->jit_loaded = true;
	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", p->os_pid);
	n = jitmap_read(path, &v);
	if (!n)
		return;
	p->jit = xcalloc(n, sizeof(*p->jit));
	for (size_t i = 0; i < n; i++)
		p->jit[i] = (struct jit_sym){ .start = v[i].start,
					      .end = v[i].end,
					      .name = st_intern(s, v[i].name) };
	p->njit = n;
	jitmap_free(v, n);
	qsort(p->jit, p->njit, sizeof(*p->jit), st_start_cmp);
}

/* The JIT symbol containing addr. */
const struct jit_sym *jit_find(struct symtab *s, struct proc *p,
			       uint64_t addr)
{
	size_t k;

	if (!p->jit_loaded)
		jit_load(s, p);
	k = st_count_at_or_below(p->jit, p->njit, sizeof(*p->jit), addr);
	return k && addr < p->jit[k - 1].end ? &p->jit[k - 1] : NULL;
}
