/*
 * The symbolizer's public lookups (symbolize.h): frames of an address
 * and DWARF unwinding of a sampled stack (symtab_internal.h, note 4).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/dwlib.h"
#include "profile/symtab_internal.h"
#include "util/strutil.h"

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
	s->unknown = st_intern(s, "[unknown]");
	s->jit_name = st_intern(s, "[jit]");
	return s;
}

void symtab_use_cache(struct symtab *s, const char *dir)
{
	free(s->cache_dir);
	s->cache_dir = dir ? xstrdup(dir) : NULL;
}

void symtab_free(struct symtab *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->procs.cap; i++) {
		struct proc *p = st_table_slot(&s->procs, i);

		if (!p)
			continue;
		proc_clear(p);
		free(p);
	}
	for (size_t i = 0; i < s->modules.cap; i++) {
		struct module *md = st_table_slot(&s->modules, i);

		if (!md)
			continue;
		module_save_cache(s, md);
		module_free(md);
	}
	for (size_t i = 0; i < s->strings.cap; i++)
		free(st_table_slot(&s->strings, i));
	hashidx_free(&s->procs);
	hashidx_free(&s->modules);
	hashidx_free(&s->strings);
	hashidx_free(&s->synth_index);
	free(s->synth);
	if (s->vdso_fd >= 0)
		close(s->vdso_fd);
	free(s->cache_dir);
	free(s);
}

static int module_path_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct module *const *)a)->path,
		      (*(const struct module *const *)b)->path);
}

void symtab_each_module(const struct symtab *s,
			void (*fn)(void *arg, const char *name,
				   const char *path), void *arg)
{
	/* in the order of their paths: the index's order is its homes',
	 * keyed with a secret drawn per process (util/hashmap.h) */
	const struct module **v = xmalloc((s->modules.len + 1) * sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < s->modules.cap; i++) {
		const struct module *md = st_table_slot(&s->modules, i);

		if (md)
			v[n++] = md;
	}
	qsort(v, n, sizeof(*v), module_path_cmp);
	for (size_t i = 0; i < n; i++)
		fn(arg, v[i]->name, v[i]->path);
	free(v);
}

static uint64_t synth_hash(const struct frame *f)
{
	/* the strings are interned: equal strings, equal pointers */
	return hash_u64((uint64_t)(uintptr_t)f->function * 31 ^
			(uint64_t)(uintptr_t)f->file * 7 ^
			(uint64_t)(uintptr_t)f->module ^
			(uint64_t)(uint32_t)f->line << 40);
}

uint64_t symtab_synth(struct symtab *s, const struct frame *f)
{
	struct frame in = {
		.function = st_intern(s, f->function ? f->function
						     : "[unknown]"),
		.file = f->file ? st_intern(s, f->file) : NULL,
		.line = f->line,
		.module = st_intern(s, f->module ? f->module : "[unknown]"),
	};
	uint64_t h = synth_hash(&in), v;
	size_t pos;

	for (v = hashidx_first(&s->synth_index, h, &pos); v;
	     v = hashidx_next(&s->synth_index, h, &pos)) {
		const struct frame *o = &s->synth[v - 1];

		if (o->function == in.function && o->file == in.file &&
		    o->line == in.line && o->module == in.module)
			return SYMTAB_SYNTH | (v - 1);
	}
	s->synth = xgrow(s->synth, &s->capsynth, s->nsynth + 1,
			 sizeof(*s->synth));
	s->synth[s->nsynth++] = in;
	hashidx_add(&s->synth_index, h, s->nsynth);
	return SYMTAB_SYNTH | (s->nsynth - 1);
}

/* SYMTAB_IF_NAMED's stand-in number: bits 48 to 61 (user addresses
 * are below 2^47) */
#define STANDIN_SHIFT 48
#define STANDIN_MAX ((1ULL << (62 - STANDIN_SHIFT)) - 1)
#define ADDR_MASK ((1ULL << STANDIN_SHIFT) - 1)

uint64_t symtab_truncated(struct symtab *s)
{
	return symtab_synth(s, &(struct frame){ .function = SYMTAB_TRUNCATED,
						.module = SYMTAB_TRUNCATED });
}

uint64_t symtab_if_named(uint64_t addr, uint64_t standin)
{
	uint64_t k = standin ? (standin & ~SYMTAB_SYNTH) + 1 : 0;

	if ((addr & ~ADDR_MASK) || (standin && !(standin & SYMTAB_SYNTH)) ||
	    k > STANDIN_MAX)
		return addr;
	return addr | SYMTAB_IF_NAMED | k << STANDIN_SHIFT;
}

/* Whether f has no name: the symtab's "[unknown]", or MODULE+0xOFFSET
 * (a function the unwind tables know and no symbol names). */
static bool unnamed(const struct symtab *s, const struct frame *f)
{
	size_t len = f->module ? strlen(f->module) : 0;

	return f->function == s->unknown ||
	       (len && !strncmp(f->function, f->module, len) &&
		!strncmp(f->function + len, "+0x", 3));
}

static size_t lookup(struct symtab *s, uint32_t pid, uint64_t addr,
		     bool is_return, struct frame *out, size_t max);

/* When max is smaller than the inline chain, the innermost frames are
 * kept. */
size_t symtab_lookup(struct symtab *s, uint32_t pid, uint64_t addr,
		     bool is_return, struct frame *out, size_t max)
{
	uint64_t k;
	size_t n;

	if ((addr & SYMTAB_SYNTH) || !(addr & SYMTAB_IF_NAMED))
		return lookup(s, pid, addr, is_return, out, max);
	k = (addr & ~SYMTAB_IF_NAMED) >> STANDIN_SHIFT;
	n = lookup(s, pid, addr & ADDR_MASK, is_return, out, max);
	if (!n || !unnamed(s, &out[n - 1]))
		return n;
	if (!k)
		return 0;
	return lookup(s, pid, SYMTAB_SYNTH | (k - 1), false, out, max);
}

const struct torchops_table *symtab_torchops(struct symtab *s, uint32_t pid,
					     uint64_t addr, bool is_return)
{
	struct proc *p;
	struct mapping *m;

	if (addr & SYMTAB_SYNTH)
		return NULL;
	addr &= ADDR_MASK;
	if (is_return && addr)
		addr--;
	p = proc_find(s, pid, false);
	m = p ? map_find(p, addr) : NULL;
	return m && m->mod && !s->no_dw ? module_torchops(s, m->mod) : NULL;
}

static size_t lookup(struct symtab *s, uint32_t pid, uint64_t addr,
		     bool is_return, struct frame *out, size_t max)
{
	uint64_t q = is_return && addr ? addr - 1 : addr, bias;
	struct proc *p;
	struct mapping *m;
	const struct jit_sym *j;
	size_t n = 1;

	assert(max > 0);
	if (addr & SYMTAB_SYNTH) {
		uint64_t k = addr & ~SYMTAB_SYNTH;

		out[0] = k < s->nsynth ? s->synth[k] : (struct frame){
			.function = s->unknown, .module = s->unknown };
		out[0].address = 0;
		return 1;
	}
	p = proc_find(s, pid, true);
	m = map_find(p, q);
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

/* --- unwinding (symtab_internal.h, note 4) --- */

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

size_t symtab_mark_cut(struct symtab *s, const uint64_t *ips, size_t n,
		       uint64_t *out, size_t max)
{
	if (!max)
		return 0;
	if (n > max - 1)
		n = max - 1;
	if (out != ips)
		memmove(out, ips, n * sizeof(*ips));
	out[n] = symtab_truncated(s);
	return n + 1;
}

size_t symtab_unwind(struct symtab *s, uint32_t pid, const uint64_t *regs,
		     size_t nregs, const uint8_t *stack, size_t stack_size,
		     uint64_t *ips, size_t max, bool *cut)
{
	struct proc *p = proc_find(s, pid, true);
	struct mapping *m;
	size_t n;

	for (int pass = 0;; pass++) {
		if (max > 1 && !p->unw && !p->unw_failed) {
			p->unw = unwinder_build(s, p);
			p->unw_failed = !p->unw;
		}
		n = unwind_stack(p->unw, pid, regs, nregs, stack, stack_size,
				 ips, max, cut);
		m = n ? map_find(p, ips[n - 1] - (n > 1)) : NULL;
		/* stopped at an address no mapping holds: its mmap record
		 * may be lost (proc_refresh); with the mappings added (a
		 * file's drops the unwinder, rebuilt above), once more */
		if (pass || max < 2 || m || !proc_refresh(s, p))
			break;
	}
	/* the outermost frame in code of no file: a JIT's, which the
	 * walk cannot go past */
	if (!m || !m->mod)
		*cut = true;
	return n;
}
