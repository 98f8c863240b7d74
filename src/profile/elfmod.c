/*
 * A module of the symbolizer: one ELF file (shared by every process that
 * maps it) opened with libdw, its function symbols, and the frames (inlined
 * calls included) of its file addresses (symtab_internal.h, notes 1 and 3).
 */
#include <dwarf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/dwlib.h"
#include "profile/symtab_internal.h"
#include "util/strutil.h"

/* An fd for dwfl_report_elf to consume: a copy of the vdso's, -1 to let
 * libdwfl open the path, -2 when the vdso is unavailable. */
int module_report_fd(struct symtab *s, const struct module *md)
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

struct module *module_get(struct symtab *s, const char *path)
{
	uint64_t h = hash_str(path);
	struct module *md = st_table_find(&s->modules, h, module_eq, path);
	const char *slash;

	if (md)
		return md;
	md = xcalloc(1, sizeof(*md));
	md->path = xstrdup(path);
	slash = strrchr(path, '/');
	md->name = st_intern(s, slash ? slash + 1 : path);
	st_table_add(&s->modules, h, md);
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
static void module_read_syms(struct symtab *s, struct module *md)
{
	int n = dw.dwfl_module_getsymtab(md->mod);
	struct sym *plt;
	size_t k = 0, nplt = elfsyms_plt(s, md->elf, md->dwfl_bias, &plt);

	if (n < 0)
		n = 0;
	md->syms = xcalloc((size_t)n + nplt + 1, sizeof(*md->syms));
	if (nplt)
		memcpy(md->syms, plt, nplt * sizeof(*plt));
	md->nsyms = nplt;
	free(plt);
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
	elfsyms_bound(md->elf, md->dwfl_bias, md->syms, md->nsyms);
}

/* The function symbol containing Dwfl address a, or NULL (every symbol
 * is sized by now: elfsyms_bound). */
static const struct sym *module_sym(const struct module *md, uint64_t a)
{
	size_t k = st_count_at_or_below(md->syms, md->nsyms,
					sizeof(*md->syms), a);
	const struct sym *y = k ? &md->syms[k - 1] : NULL;

	return y && a - y->start < y->size ? y : NULL;
}

/*
 * The name of code at Dwfl address a that no symbol covers (note 6):
 * "MODULE+0xSTART", START the file address of the function whose FDE
 * covers a; NULL when no FDE covers it (a gap between functions, code
 * without unwind tables) or the module has no .eh_frame_hdr table.
 */
static char *module_unnamed(struct symtab *s, struct module *md,
			    Dwarf_Addr a)
{
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi;
	Dwarf_Frame *fr = NULL;
	char *str, *name;
	size_t k;

	if (!md->fdes_built) {
		md->fdes_built = true;
		md->nfdes = elfsyms_fde_starts(md->elf, md->dwfl_bias,
					       &md->fdes);
	}
	k = st_count_at_or_below(md->fdes, md->nfdes, sizeof(*md->fdes), a);
	cfi = dw.dwfl_module_eh_cfi(md->mod, &bias);
	/* the table says where functions start; the FDE itself whether
	 * it reaches a */
	if (!k || !cfi || a < bias ||
	    dw.dwarf_cfi_addrframe(cfi, a - bias, &fr) || !fr)
		return NULL;
	free(fr);
	str = xasprintf("%s+0x%" PRIx64, md->name,
			(uint64_t)(md->fdes[k - 1] - md->dwfl_bias));
	name = st_intern(s, str);
	free(str);
	return name;
}

/* Open the module once (symtab_internal.h, note 1): its ELF, not yet
 * its symbols (module_lookup reads them). Returns 0, or -1 if it cannot
 * be read. */
int module_open(struct symtab *s, struct module *md)
{
	int fd;

	if (md->state)
		return md->state > 0 ? 0 : -1;
	md->state = -1;
	if (s->no_dw)
		return -1;
	fd = module_report_fd(s, md);
	if (fd == -2 || !(md->dwfl = dw.dwfl_begin(&dwlib_offline_callbacks)))
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
	md->state = 1;
	return 0;
out_close:
	if (fd >= 0)
		close(fd);
	return -1;
}

/* --- the disk cache (symtab_internal.h, note 5) --- */

/* Add the frames fr[0..n) of file address rel to md's cache. */
static struct cached module_add(struct module *md, uint64_t rel,
				const struct frame *fr, size_t n)
{
	md->frames = xgrow(md->frames, &md->capframes, md->nframes + n,
			   sizeof(*md->frames));
	memcpy(md->frames + md->nframes, fr, n * sizeof(*fr));
	hashidx_add(&md->cache, hash_u64(rel), (uint64_t)md->nframes << 32 | n);
	md->ents = xgrow(md->ents, &md->capents, md->nents + 1,
			 sizeof(*md->ents));
	md->ents[md->nents++] = (struct symcache_entry){
		rel, (uint32_t)md->nframes, (uint32_t)n };
	md->nframes += n;
	return (struct cached){ (uint32_t)(md->nframes - n), (uint32_t)n };
}

/* Probe md's file and load its cache file, once. Returns 0 when md's
 * load segments are known (md->info), -1 when there is no cache or the
 * file cannot be probed. */
int module_probe(struct symtab *s, struct module *md)
{
	struct symcache c;
	char **names;

	if (md->probe)
		return md->probe > 0 ? 0 : -1;
	md->probe = -1;
	if (!s->cache_dir || s->no_dw || !strcmp(md->path, "[vdso]") ||
	    symcache_probe(md->path, &md->info, &md->key))
		return -1;
	md->probe = 1;
	md->key.flags = s->lines ? SYMCACHE_LINES : 0;
	if (symcache_load(s->cache_dir, &md->key, md->path, &c))
		return 0;
	names = xcalloc(c.nstrings + 1, sizeof(*names));
	for (size_t i = 0; i < c.nstrings; i++)
		names[i] = st_intern(s, c.strings[i]);
	for (size_t i = 0; i < c.nentries; i++) {
		const struct symcache_entry *en = &c.entries[i];
		struct frame fr[SYMCACHE_MAX_INLINE];
		size_t pos;

		if (hashidx_first(&md->cache, hash_u64(en->addr), &pos))
			continue;	/* resolved already */
		for (uint32_t j = 0; j < en->n; j++) {
			const struct symcache_frame *f = &c.frames[en->first + j];

			fr[j] = (struct frame){
				.function = names[f->function],
				.file = f->file == SYMCACHE_NONE
					? NULL : names[f->file],
				.line = f->line, .module = md->name,
				.inlined = f->inlined,
			};
		}
		module_add(md, en->addr, fr, en->n);
	}
	free(names);
	symcache_free(&c);
	return 0;
}

static int ent_cmp(const void *a, const void *b)
{
	return st_start_cmp(a, b);
}

/* A string's index in the cache being built, adding it if new. */
static uint32_t cache_string(struct symcache *c, struct hashidx *ix,
			     size_t *cap, char *str)
{
	uint64_t h = hash_u64((uintptr_t)str), v;
	size_t pos;

	if (!str)
		return SYMCACHE_NONE;
	for (v = hashidx_first(ix, h, &pos); v; v = hashidx_next(ix, h, &pos))
		if (c->strings[v - 1] == str)
			return (uint32_t)(v - 1);
	c->strings = xgrow(c->strings, cap, c->nstrings + 1,
			   sizeof(*c->strings));
	c->strings[c->nstrings++] = str;
	hashidx_add(ix, h, c->nstrings);
	return (uint32_t)(c->nstrings - 1);
}

/* Write md's cache file if it resolved new addresses with its DWARF. */
void module_save_cache(struct symtab *s, struct module *md)
{
	struct symcache c = { .key = md->key };
	struct hashidx ix = { 0 };
	size_t capstr = 0;
	const char *mainfile = NULL, *debugfile = NULL;
	char *debug = NULL;

	struct symcache_ident now;

	/* nor if the file changed since it was probed */
	if (!md->dirty || md->probe <= 0 || md->state <= 0 ||
	    symcache_ident(md->path, &now) ||
	    memcmp(&now, &md->key.file, sizeof(now)))
		return;
	dw.dwfl_module_info(md->mod, NULL, NULL, NULL, NULL, NULL, &mainfile,
			    &debugfile);
	if (debugfile && (!mainfile || strcmp(debugfile, mainfile))) {
		if (symcache_ident(debugfile, &c.key.debug))
			return;
		debug = xstrdup(debugfile);
		c.debug_path = debug;
		cache_string(&c, &ix, &capstr, debug);
	}
	qsort(md->ents, md->nents, sizeof(*md->ents), ent_cmp);
	c.entries = md->ents;
	c.nentries = md->nents;
	c.frames = xcalloc(md->nframes + 1, sizeof(*c.frames));
	for (size_t i = 0; i < md->nents; i++) {
		struct symcache_entry *en = &md->ents[i];
		uint32_t first = (uint32_t)c.nframes;

		for (uint32_t j = 0; j < en->n; j++) {
			struct frame *f = &md->frames[en->first + j];

			c.frames[c.nframes++] = (struct symcache_frame){
				cache_string(&c, &ix, &capstr, f->function),
				cache_string(&c, &ix, &capstr, f->file),
				f->line, f->inlined };
		}
		en->first = first;
	}
	symcache_save(s->cache_dir, md->path, &c);
	md->dirty = false;
	hashidx_free(&ix);
	free(c.strings);
	free(c.frames);
	free(debug);
}

/* The module's operator table, read from its .rodata the first time
 * (NULL when the module cannot be opened or has no .rodata). */
const struct torchops_table *module_torchops(struct symtab *s,
					     struct module *md)
{
	const char *ro;
	size_t len;

	if (md->ops_read)
		return md->ops;
	md->ops_read = true;
	if (module_open(s, md))
		return NULL;
	ro = elfsyms_section(md->elf, ".rodata", &len, NULL);
	if (ro)
		md->ops = torchops_table_new(ro, len);
	return md->ops;
}

void module_free(struct module *md)
{
	torchops_table_free(md->ops);	/* before the ELF it references */
	if (md->dwfl)
		dw.dwfl_end(md->dwfl);
	free(md->syms);
	free(md->fdes);
	free(md->cus);
	hashidx_free(&md->cache);
	free(md->frames);
	free(md->ents);
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
		qsort(md->cus, md->ncus, sizeof(*md->cus), st_start_cmp);
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
	k = st_count_at_or_below(md->cus, md->ncus, sizeof(*md->cus), a - *bias);
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
		return st_intern_symbol(s, name);
	name = dw.dwarf_diename(die);
	return name ? st_intern(s, name) : NULL;
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
		*file = st_intern(s, f);
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
	const struct sym *sym;
	char *file = NULL, *outer = NULL;
	int line = 0, ns = 0;
	size_t n = 0;

	cu = module_cu(md, a, &dwbias);
	if (cu && s->lines) {
		Dwarf_Line *l = dw.dwarf_getsrc_die(cu, a - dwbias);
		const char *f = l ? dw.dwarf_linesrc(l, NULL, NULL) : NULL;

		if (f && !dw.dwarf_lineno(l, &line))
			file = st_intern(s, f);
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
	sym = module_sym(md, a);
	if (sym)
		outer = sym->final ? (char *)sym->name
				   : st_intern_symbol(s, sym->name);
	if (!outer)
		outer = module_unnamed(s, md, a);
	fr[n++] = (struct frame){
		.function = outer ? outer : s->unknown, .file = file,
		.line = line, .module = md->name,
	};
	return n;
}

/* The cached frames of file address rel, resolving them the first time. */
struct cached module_lookup(struct symtab *s, struct module *md,
			    uint64_t rel)
{
	struct frame tmp[MAX_INLINE];
	uint64_t v;
	size_t pos, n;

	v = hashidx_first(&md->cache, hash_u64(rel), &pos);
	if (v)
		return (struct cached){ (uint32_t)(v >> 32), (uint32_t)v };
	if (module_open(s, md) == 0) {
		/* the symbols when the first address is named, not when the
		 * file is opened for its bias while the program runs (a
		 * separate debug file looked for, libdebuginfod loaded) */
		if (!md->syms_read) {
			md->syms_read = true;
			module_read_syms(s, md);
		}
		n = resolve(s, md, rel + md->dwfl_bias, tmp, MAX_INLINE);
	} else {
		tmp[0] = (struct frame){ .function = s->unknown,
					 .module = md->name };
		n = 1;
	}
	md->dirty |= md->probe > 0 && md->state > 0;
	return module_add(md, rel, tmp, n);
}
