/*
 * Symbolization and DWARF unwinding with libdw (elfutils).
 *
 * Design notes:
 *
 * 1. Mappings are per pid, sorted and non-overlapping; a module (one per
 *    path, shared by every pid) is opened once, lazily, in its own offline
 *    Dwfl at bias 0. Addresses are therefore resolved as file addresses
 *    (the ELF's p_vaddr space), and the cache of resolved frames is keyed
 *    by file address: pid-independent, each distinct address of a module
 *    is resolved once, later lookups are one probe of a hash table.
 *
 * 2. A mapping's bias (unwind.c, note 3) is computed at its first lookup
 *    and kept with it.
 *
 * 3. The vdso is no file: it is read from our own copy of it (unwind.c,
 *    note 4), which every 64-bit process on this kernel shares.
 *
 * 4. Unwinding (unwind.c) needs the modules at their real addresses: a
 *    pid's unwinder is built at its first unwind from its file mappings
 *    and dropped when one of them changes; a forked child shares its
 *    parent's until one of them maps a file.
 *
 * libdw looks for separate debug info in /usr/lib/debug (build-id and
 * debuglink) and, when DEBUGINFOD_URLS is set, asks debuginfod servers:
 * set it empty to keep symbolization offline.
 */
#include <assert.h>
#include <dwarf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/dwlib.h"
#include "profile/jitmap.h"
#include "profile/symbolize.h"
#include "util/hashmap.h"
#include "util/strutil.h"

#define MAX_INLINE 32		/* frames kept per address */

/* Resolved frames of one file address: module->frames[first, first+n). */
struct cached {
	uint32_t first, n;		/* n >= 1 */
};

/* A function symbol, at its Dwfl address. name points into the ELF. */
struct sym {
	uint64_t start, size;
	const char *name;
	int rank;			/* the better alias ranks lower */
};

/* A CU's addresses, for files without .debug_aranges (clang's default),
 * where libdw 0.188 finds no CU for any address. */
struct cu_range {
	uint64_t start, end;
	Dwarf_Die *cu;			/* owned by the module's Dwfl */
};

struct module {
	char *path;
	char *name;			/* interned basename or "[vdso]" */
	int state;			/* 0 not opened, 1 open, -1 failed */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;			/* the main file, owned by dwfl */
	Dwarf_Addr dwfl_bias;		/* file address -> Dwfl address */
	struct sym *syms;		/* sorted by start, one per start */
	size_t nsyms;
	struct cu_range *cus;		/* sorted; built at the first miss */
	size_t ncus;
	bool cus_built;
	Dwarf_Addr cu_bias;
	/* file address -> cached, hashed by hash_u64: it is one-to-one, so
	 * the hash is the key, and the value is first << 32 | n */
	struct hashidx cache;
	struct frame *frames;
	size_t nframes, capframes;
};

struct mapping {
	uint64_t start, end, pgoff;
	struct module *mod;		/* NULL: anonymous */
	uint64_t bias;
	int bias_state;			/* 0 not computed, 1 ok, -1 none */
};

struct jit_sym {
	uint64_t start, end;
	char *name;			/* interned */
};

struct proc {
	uint32_t pid;
	struct mapping *maps;
	size_t nmaps, capmaps;
	bool jit_loaded;
	struct jit_sym *jit;
	size_t njit;
	struct unwind *unw;		/* NULL: build at the next unwind */
	bool unw_failed;		/* ... unless that failed */
};

struct symtab {
	bool lines;
	bool no_dw;			/* libdw cannot be loaded: [unknown] */
	struct hashidx strings, modules, procs;	/* of pointers */
	int vdso_fd;			/* -2 not tried, -1 unavailable */
	char *unknown, *jit_name;
};

/*
 * Sorted arrays of structs that begin with a uint64_t start (struct sym,
 * cu_range, jit_sym): order by start, and count the elements starting at
 * or below key (the last of them may contain key).
 */
static uint64_t start_of(const void *base, size_t i, size_t size)
{
	uint64_t v;

	memcpy(&v, (const char *)base + i * size, sizeof(v));
	return v;
}

static int start_cmp(const void *a, const void *b)
{
	uint64_t x = start_of(a, 0, 0), y = start_of(b, 0, 0);

	return (x > y) - (x < y);
}

static size_t count_at_or_below(const void *base, size_t n, size_t size,
				uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (start_of(base, mid, size) <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The entry of t (an index of pointers) under hash h that eq accepts,
 * NULL if there is none. */
static void *table_find(struct hashidx *t, uint64_t h,
			bool (*eq)(const void *entry, const void *key),
			const void *key)
{
	size_t pos;

	for (uint64_t v = hashidx_first(t, h, &pos); v;
	     v = hashidx_next(t, h, &pos))
		if (eq((void *)(uintptr_t)v, key))
			return (void *)(uintptr_t)v;
	return NULL;
}

static void table_add(struct hashidx *t, uint64_t h, void *entry)
{
	hashidx_add(t, h, (uintptr_t)entry);
}

/* The i-th slot's entry, NULL if it is empty (to free them all). */
static void *table_slot(const struct hashidx *t, size_t i)
{
	return (void *)(uintptr_t)t->slots[i].value;
}

static bool str_eq(const void *entry, const void *key)
{
	return !strcmp(entry, key);
}

/* The symtab's copy of str, shared by every frame that names it. */
static char *intern(struct symtab *s, const char *str)
{
	uint64_t h = hash_str(str);
	char *copy = table_find(&s->strings, h, str_eq, str);

	if (copy)
		return copy;
	copy = xstrdup(str);
	table_add(&s->strings, h, copy);
	return copy;
}

/* A symbol's name without its version ("memcpy@@GLIBC_2.14" is memcpy),
 * demangled if it is a C++ one, interned. */
static char *intern_symbol(struct symtab *s, const char *name)
{
	size_t len = strcspn(name, "@");
	char *bare = xstrndup(name, len ? len : strlen(name)), *d = NULL, *out;

	if (!strncmp(bare, "_Z", 2))
		d = dwlib_demangle(bare);
	out = intern(s, d ? d : bare);
	free(d);
	free(bare);
	return out;
}

/* An fd for dwfl_report_elf to consume: a copy of the vdso's, -1 to let
 * libdwfl open the path, -2 when the vdso is unavailable. */
static int module_report_fd(struct symtab *s, const struct module *md)
{
	int fd;

	if (strcmp(md->path, "[vdso]"))
		return -1;
	if (s->vdso_fd == -2)
		s->vdso_fd = unwind_vdso_image();
	fd = s->vdso_fd < 0 ? -1 : fcntl(s->vdso_fd, F_DUPFD_CLOEXEC, 0);
	return fd >= 0 ? fd : -2;
}

/* --- modules --- */

static bool module_eq(const void *entry, const void *key)
{
	return !strcmp(((const struct module *)entry)->path, key);
}

static struct module *module_get(struct symtab *s, const char *path)
{
	uint64_t h = hash_str(path);
	struct module *md = table_find(&s->modules, h, module_eq, path);
	const char *slash;

	if (md)
		return md;
	md = xcalloc(1, sizeof(*md));
	md->path = xstrdup(path);
	slash = strrchr(path, '/');
	md->name = intern(s, slash ? slash + 1 : path);
	table_add(&s->modules, h, md);
	return md;
}

/* perf's choice among aliases: sized, then global over weak over local,
 * then fewer leading underscores ("malloc", not "__libc_malloc"). */
static int sym_rank(const GElf_Sym *sym, const char *name)
{
	int bind = GELF_ST_BIND(sym->st_info);
	int r = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
	int under = (int)strspn(name, "_");

	return (sym->st_size ? 0 : 64) + r * 16 + (under < 15 ? under : 15);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/*
 * The module's function symbols, sorted, the best alias of each address
 * kept. dwfl_module_addrinfo scans the whole symbol table per call: too
 * slow for thousands of addresses in a library with 10,000 symbols.
 */
static void module_read_syms(struct module *md)
{
	int n = dw.dwfl_module_getsymtab(md->mod);
	size_t k = 0;

	if (n <= 0)
		return;
	md->syms = xcalloc((size_t)n, sizeof(*md->syms));
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dw.dwfl_module_getsym_info(md->mod, i, &sym, &addr,
							   &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || shndx == SHN_UNDEF || !addr ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		md->syms[md->nsyms++] = (struct sym){
			.start = addr, .size = sym.st_size, .name = name,
			.rank = sym_rank(&sym, name),
		};
	}
	if (!md->nsyms)
		return;
	qsort(md->syms, md->nsyms, sizeof(*md->syms), sym_cmp);
	for (size_t i = 1; i < md->nsyms; i++)
		if (md->syms[i].start != md->syms[k].start)
			md->syms[++k] = md->syms[i];
	md->nsyms = k + 1;
}

/* The name of the function symbol containing Dwfl address a, or NULL. A
 * sizeless symbol reaches up to the next one. */
static const char *module_sym(const struct module *md, uint64_t a)
{
	size_t k = count_at_or_below(md->syms, md->nsyms, sizeof(*md->syms),
				     a);
	const struct sym *y = k ? &md->syms[k - 1] : NULL;

	return y && (!y->size || a - y->start < y->size) ? y->name : NULL;
}

/* Open the module once (note 1). Returns 0, or -1 if it cannot be read. */
static int module_open(struct symtab *s, struct module *md)
{
	int fd;

	if (md->state)
		return md->state > 0 ? 0 : -1;
	md->state = -1;
	if (s->no_dw)
		return -1;
	fd = module_report_fd(s, md);
	if (fd == -2 || !(md->dwfl = dw.dwfl_begin(&dw.offline_callbacks)))
		goto out_close;
	dw.dwfl_report_begin(md->dwfl);
	md->mod = dw.dwfl_report_elf(md->dwfl, md->name, md->path, fd, 0, true);
	if (!md->mod)
		goto out_close;
	fd = -1;		/* consumed */
	if (dw.dwfl_report_end(md->dwfl, NULL, NULL))
		return -1;
	md->elf = dw.dwfl_module_getelf(md->mod, &md->dwfl_bias);
	if (!md->elf)
		return -1;
	module_read_syms(md);
	md->state = 1;
	return 0;
out_close:
	if (fd >= 0)
		close(fd);
	return -1;
}

static void module_free(struct module *md)
{
	if (md->dwfl)
		dw.dwfl_end(md->dwfl);
	free(md->syms);
	free(md->cus);
	hashidx_free(&md->cache);
	free(md->frames);
	free(md->path);
	free(md);
}

/* --- resolving one file address of a module --- */

static void module_read_cus(struct module *md)
{
	Dwarf_Die *cu = NULL;
	size_t cap = 0;

	md->cus_built = true;
	while ((cu = dw.dwfl_module_nextcu(md->mod, cu, &md->cu_bias))) {
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;

		while ((off = dw.dwarf_ranges(cu, off, &base, &start, &end)) > 0) {
			md->cus = xgrow(md->cus, &cap, md->ncus + 1,
					sizeof(*md->cus));
			md->cus[md->ncus++] = (struct cu_range){ start, end, cu };
		}
	}
	if (md->ncus)
		qsort(md->cus, md->ncus, sizeof(*md->cus), start_cmp);
}

/* The CU holding Dwfl address a, with the bias of its addresses. */
static Dwarf_Die *module_cu(struct module *md, Dwarf_Addr a,
			    Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dw.dwfl_module_addrdie(md->mod, a, bias);
	size_t k;

	if (cu)
		return cu;
	if (!md->cus_built)
		module_read_cus(md);
	*bias = md->cu_bias;
	k = count_at_or_below(md->cus, md->ncus, sizeof(*md->cus), a - *bias);
	return k && a - *bias < md->cus[k - 1].end ? md->cus[k - 1].cu : NULL;
}

/* A DIE's function name: the linkage name demangled, else its name. */
static char *die_name(struct symtab *s, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dw.dwarf_formstring(dw.dwarf_attr_integrate(die, DW_AT_linkage_name,
						     &attr));
	if (!name)
		name = dw.dwarf_formstring(dw.dwarf_attr_integrate(
			die, DW_AT_MIPS_linkage_name, &attr));
	if (name)
		return intern_symbol(s, name);
	name = dw.dwarf_diename(die);
	return name ? intern(s, name) : NULL;
}

/* Tags whose DIEs may hold code at pc (and so its inlined calls). */
static bool holds_code(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
	       tag == DW_TAG_catch_block || tag == DW_TAG_entry_point;
}

/*
 * Append to chain[n..max) the DIEs under parent containing pc, outermost
 * first, entering only those that contain it (and namespaces, which have
 * no addresses). Returns the new length. One descent instead of the two
 * whole-CU walks of dwarf_getscopes + dwarf_getscopes_die.
 */
static int descend(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *chain,
		   int n, int max)
{
	Dwarf_Die child;

	if (n == max || dw.dwarf_child(parent, &child))
		return n;
	do {
		int tag = dw.dwarf_tag(&child), k;

		if (tag == DW_TAG_namespace) {
			k = descend(&child, pc, chain, n, max);
			if (k > n)
				return k;
		} else if (holds_code(tag) && dw.dwarf_haspc(&child, pc) == 1) {
			chain[n] = child;
			return descend(&child, pc, chain, n + 1, max);
		}
	} while (dw.dwarf_siblingof(&child, &child) == 0);
	return n;
}

/* The DIEs physically enclosing pc in the CU, innermost first: its
 * inlined instances up to the function they were inlined into. Returns
 * how many; *scopes is malloc'd. */
static int enclosing_dies(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **scopes)
{
	Dwarf_Die chain[MAX_INLINE * 2], *inner = NULL, die;
	int n = descend(cu, pc, chain, 0, MAX_INLINE * 2);

	*scopes = NULL;
	if (n > 0) {
		*scopes = xcalloc((size_t)n, sizeof(**scopes));
		for (int i = 0; i < n; i++)
			(*scopes)[i] = chain[n - 1 - i];
		return n;
	}
	/* Not found by descent (imported units, unusual nesting): the
	 * library's whole-CU search, then the chain of parents of the
	 * innermost scope, which unlike dwarf_getscopes' own result goes
	 * through the concrete inlined instances. */
	n = dw.dwarf_getscopes(cu, pc, &inner);
	if (n <= 0) {
		free(inner);
		return 0;
	}
	die = inner[0];
	free(inner);
	n = dw.dwarf_getscopes_die(&die, scopes);
	return n > 0 ? n : 0;
}

/* The call site of an inlined instance: its DW_AT_call_file/call_line. */
static void call_site(struct symtab *s, Dwarf_Die *die, Dwarf_Files *files,
		      char **file, int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	const char *f = NULL;

	*file = NULL;
	*line = 0;
	if (files && !dw.dwarf_formudata(dw.dwarf_attr(die, DW_AT_call_file, &attr),
				      &v))
		f = dw.dwarf_filesrc(files, v, NULL, NULL);
	if (f)
		*file = intern(s, f);
	if (!dw.dwarf_formudata(dw.dwarf_attr(die, DW_AT_call_line, &attr), &v) &&
	    v <= INT32_MAX)
		*line = (int)v;
}

/*
 * Resolve Dwfl address a of md into fr (innermost first, at most max):
 * one frame per inlined instance containing a, then the function, from
 * the ELF symbol table (DWARF's name when there is no symbol).
 */
static size_t resolve(struct symtab *s, struct module *md, Dwarf_Addr a,
		      struct frame *fr, size_t max)
{
	Dwarf_Addr dwbias;
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	const char *sname;
	char *file = NULL, *outer = NULL;
	int line = 0, ns = 0;
	size_t n = 0;

	cu = module_cu(md, a, &dwbias);
	if (cu && s->lines) {
		Dwarf_Line *l = dw.dwarf_getsrc_die(cu, a - dwbias);
		const char *f = l ? dw.dwarf_linesrc(l, NULL, NULL) : NULL;

		if (f && !dw.dwarf_lineno(l, &line))
			file = intern(s, f);
		else
			line = 0;
		if (dw.dwarf_getsrcfiles(cu, &files, NULL))
			files = NULL;
	}
	if (cu)
		ns = enclosing_dies(cu, a - dwbias, &scopes);
	for (int i = 0; i < ns && n + 1 < max; i++) {
		int tag = dw.dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram) {
			outer = die_name(s, &scopes[i]);
			break;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		char *name = die_name(s, &scopes[i]);

		fr[n++] = (struct frame){
			.function = name ? name : s->unknown, .file = file,
			.line = line, .module = md->name, .inlined = true,
		};
		call_site(s, &scopes[i], files, &file, &line);
		if (!s->lines) {
			file = NULL;
			line = 0;
		}
	}
	free(scopes);
	sname = module_sym(md, a);
	if (sname)
		outer = intern_symbol(s, sname);
	fr[n++] = (struct frame){
		.function = outer ? outer : s->unknown, .file = file,
		.line = line, .module = md->name,
	};
	return n;
}

/* The cached frames of file address rel, resolving them the first time. */
static struct cached module_lookup(struct symtab *s, struct module *md,
				   uint64_t rel)
{
	struct frame tmp[MAX_INLINE];
	uint64_t h = hash_u64(rel), v;
	size_t pos, n;

	v = hashidx_first(&md->cache, h, &pos);
	if (v)
		return (struct cached){ (uint32_t)(v >> 32), (uint32_t)v };
	if (module_open(s, md) == 0) {
		n = resolve(s, md, rel + md->dwfl_bias, tmp, MAX_INLINE);
	} else {
		tmp[0] = (struct frame){ .function = s->unknown,
					 .module = md->name };
		n = 1;
	}
	md->frames = xgrow(md->frames, &md->capframes, md->nframes + n,
			   sizeof(*md->frames));
	memcpy(md->frames + md->nframes, tmp, n * sizeof(*tmp));
	hashidx_add(&md->cache, h, (uint64_t)md->nframes << 32 | n);
	md->nframes += n;
	return (struct cached){ (uint32_t)(md->nframes - n), (uint32_t)n };
}

/* --- processes and their mappings --- */

/* Every lookup finds its process first: hash_u64 is one-to-one, so the
 * hash is the pid and the first match is it. */
static struct proc *proc_find(struct symtab *s, uint32_t pid, bool create)
{
	uint64_t h = hash_u64(pid);
	size_t pos;
	struct proc *p = (void *)(uintptr_t)hashidx_first(&s->procs, h, &pos);

	if (p || !create)
		return p;
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	table_add(&s->procs, h, p);
	return p;
}

static void proc_forget_unwinder(struct proc *p)
{
	unwind_unref(p->unw);
	p->unw = NULL;
	p->unw_failed = false;
}

/* Forget p's mappings (and what came from them), not p. */
static void proc_clear(struct proc *p)
{
	proc_forget_unwinder(p);
	free(p->maps);
	free(p->jit);
	*p = (struct proc){ .pid = p->pid };
}

/* The mapping containing addr, or NULL. */
static struct mapping *map_find(struct proc *p, uint64_t addr)
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

void symtab_exec(struct symtab *s, uint32_t pid)
{
	struct proc *p = proc_find(s, pid, false);

	if (p)
		proc_clear(p);
}

/* Bias of a file mapping (note 2). Returns 0, or -1 if none fits. */
static int map_bias(struct symtab *s, struct mapping *m, uint64_t *bias)
{
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
	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", p->pid);
	n = jitmap_read(path, &v);
	if (!n)
		return;
	p->jit = xcalloc(n, sizeof(*p->jit));
	for (size_t i = 0; i < n; i++)
		p->jit[i] = (struct jit_sym){ .start = v[i].start,
					      .end = v[i].end,
					      .name = intern(s, v[i].name) };
	p->njit = n;
	jitmap_free(v, n);
	qsort(p->jit, p->njit, sizeof(*p->jit), start_cmp);
}

/* The JIT symbol containing addr. */
static const struct jit_sym *jit_find(struct symtab *s, struct proc *p,
				      uint64_t addr)
{
	size_t k;

	if (!p->jit_loaded)
		jit_load(s, p);
	k = count_at_or_below(p->jit, p->njit, sizeof(*p->jit), addr);
	return k && addr < p->jit[k - 1].end ? &p->jit[k - 1] : NULL;
}

/* --- the public lookups --- */

int symtab_load(struct error *e)
{
	return dwlib_load(e);
}

struct symtab *symtab_new(bool lines)
{
	struct symtab *s = xcalloc(1, sizeof(*s));
	struct error e;

	s->lines = lines;
	s->no_dw = dwlib_load(&e) != 0;
	s->vdso_fd = -2;
	s->unknown = intern(s, "[unknown]");
	s->jit_name = intern(s, "[jit]");
	return s;
}

void symtab_free(struct symtab *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->procs.cap; i++) {
		struct proc *p = table_slot(&s->procs, i);

		if (!p)
			continue;
		proc_clear(p);
		free(p);
	}
	for (size_t i = 0; i < s->modules.cap; i++)
		if (table_slot(&s->modules, i))
			module_free(table_slot(&s->modules, i));
	for (size_t i = 0; i < s->strings.cap; i++)
		free(table_slot(&s->strings, i));
	hashidx_free(&s->procs);
	hashidx_free(&s->modules);
	hashidx_free(&s->strings);
	if (s->vdso_fd >= 0)
		close(s->vdso_fd);
	free(s);
}

/* When max is smaller than the inline chain, the innermost frames are
 * kept. */
size_t symtab_lookup(struct symtab *s, uint32_t pid, uint64_t addr,
		     bool is_return, struct frame *out, size_t max)
{
	uint64_t q = is_return && addr ? addr - 1 : addr, bias;
	struct proc *p = proc_find(s, pid, true);
	struct mapping *m = map_find(p, q);
	const struct jit_sym *j;
	size_t n = 1;

	assert(max > 0);
	if (m && m->mod && map_bias(s, m, &bias) == 0) {
		struct cached c = module_lookup(s, m->mod, q - bias);

		n = c.n < max ? c.n : max;
		memcpy(out, m->mod->frames + c.first, n * sizeof(*out));
	} else if (!(m && m->mod) && (j = jit_find(s, p, q))) {
		out[0] = (struct frame){ .function = j->name,
					 .module = s->jit_name };
	} else {
		out[0] = (struct frame){
			.function = s->unknown,
			.module = m && m->mod ? m->mod->name : s->unknown,
		};
	}
	for (size_t i = 0; i < n; i++)
		out[i].address = addr;
	return n;
}

/* --- unwinding (note 4) --- */

/* p's unwinder, of its file mappings at their biases. NULL if none. */
static struct unwind *unwinder_build(struct symtab *s, struct proc *p)
{
	struct unwind_map *maps = xcalloc(p->nmaps + 1, sizeof(*maps));
	struct unwind *u;
	size_t n = 0;

	if (s->no_dw) {
		free(maps);
		return NULL;
	}
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct mapping *m = &p->maps[i];
		uint64_t bias;

		if (!m->mod || map_bias(s, &p->maps[i], &bias))
			continue;
		maps[n] = (struct unwind_map){
			.name = m->mod->name, .path = m->mod->path,
			.start = m->start, .end = m->end, .pgoff = m->pgoff,
			.bias = bias, .fd = module_report_fd(s, m->mod),
		};
		n += maps[n].fd != -2;
	}
	u = unwind_new(p->pid, maps, n);
	free(maps);
	return u;
}

size_t symtab_unwind(struct symtab *s, uint32_t pid, const uint64_t *regs,
		     size_t nregs, const uint8_t *stack, size_t stack_size,
		     uint64_t *ips, size_t max)
{
	struct proc *p = proc_find(s, pid, true);

	if (max > 1 && !p->unw && !p->unw_failed) {
		p->unw = unwinder_build(s, p);
		p->unw_failed = !p->unw;
	}
	return unwind_stack(p->unw, pid, regs, nregs, stack, stack_size, ips,
			    max);
}
