/*
 * The symbolizer's shared state (symbolize.h is its interface), split by
 * job: intern.c (strings, demangling, sorted arrays), elfmod.c (a module:
 * ELF symbols, DWARF lines and inlines, with libdw), procmaps.c (processes,
 * their mappings and JIT maps), symbolize.c (the public lookups and
 * unwinding).
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
 * 5. With a cache directory (symtab_use_cache, symcache.h), a module's
 *    file is first probed without libdw (its load segments, for the
 *    biases, and its build-id) and the frames its cache file holds are
 *    loaded into its cache of resolved frames: libdw opens the module
 *    only for an address the cache lacks. At symtab_free the modules
 *    that resolved new addresses write their cache file again.
 *
 * 6. A module's symbols are its symbol table's functions (.symtab, else
 *    .dynsym: a stripped library's exports), its PLT stubs named SYM@plt
 *    (elfsyms.c), and a symbol without a size reaches up to the next one
 *    or to the end of its section, never into the next section (the PLT
 *    after .init is not _init). An address no symbol covers is named by
 *    the function its unwind table (.eh_frame, else .debug_frame) says it
 *    is in: MODULE+0xSTART, START the function's file address (the
 *    FDE's initial location, from .eh_frame_hdr's sorted table), as
 *    perf prints an address; only where no table covers it is it
 *    [unknown in MODULE].
 *
 * libdw looks for separate debug info under the debug root
 * (symcache_debug_root: $YARDSTICK_DEBUG_DIR, else /usr/lib/debug), by
 * build-id and debuglink, and, when DEBUGINFOD_URLS is set, asks
 * debuginfod servers: set it empty to keep symbolization offline.
 */
#ifndef YS_PROFILE_SYMTAB_INTERNAL_H
#define YS_PROFILE_SYMTAB_INTERNAL_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/symbolize.h"
#include "profile/symcache.h"
#include "profile/torchops.h"
#include "util/hashmap.h"

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
	bool final;			/* name is interned, as shown (a PLT
					 * stub's SYM@plt) */
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
	bool syms_read;			/* syms read (after state 1) */
	struct sym *syms;		/* sorted by start, one per start */
	size_t nsyms;
	uint64_t *fdes;			/* functions' starts (note 6): sorted,
					 * read at the first unnamed address */
	size_t nfdes;
	bool fdes_built;
	struct cu_range *cus;		/* sorted; built at the first miss */
	size_t ncus;
	bool cus_built;
	Dwarf_Addr cu_bias;
	/* file address -> cached, hashed by hash_u64: it is one-to-one, so
	 * the hash is the key, and the value is first << 32 | n */
	struct hashidx cache;
	struct frame *frames;
	size_t nframes, capframes;
	/* the disk cache (note 5): probe 0 not tried, 1 probed, -1 not
	 * possible; every resolved address (to save), and whether any is
	 * new */
	int probe;
	struct elf_info info;
	struct symcache_key key;
	struct symcache_entry *ents;
	size_t nents, capents;
	bool dirty;
	/* PyTorch's operators' names from the schema strings of .rodata
	 * (profile/torchops.h), read at the first dispatcher's entry
	 * asked about; it references the ELF's bytes */
	struct torchops_table *ops;
	bool ops_read;
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
	uint32_t os_pid;		/* pid, or the retired one's (JIT maps) */
	struct mapping *maps;
	size_t nmaps, capmaps;
	bool jit_loaded;
	struct jit_sym *jit;
	size_t njit;
	struct unwind *unw;		/* NULL: build at the next unwind */
	bool unw_failed;		/* ... unless that failed */
	uint64_t refreshed_ns;		/* proc_refresh's last reading */
};

struct symtab {
	bool lines;
	bool no_dw;			/* libdw cannot be loaded: [unknown] */
	struct hashidx strings, modules, procs;	/* of pointers */
	int vdso_fd;			/* -2 not tried, -1 unavailable */
	uint32_t retired;		/* symtab_retire's ids given */
	char *cache_dir;		/* NULL: no disk cache */
	char *unknown, *jit_name;
	struct frame *synth;		/* symtab_synth's frames */
	size_t nsynth, capsynth;
	struct hashidx synth_index;	/* synth + 1 */
};

/* intern.c: sorted arrays of structs that begin with a uint64_t start
 * (struct sym, cu_range, jit_sym): qsort order, and how many elements start
 * at or below key (the last of them may contain key). */
int st_start_cmp(const void *a, const void *b);
size_t st_count_at_or_below(const void *base, size_t n, size_t size,
			    uint64_t key);

/* intern.c: indexes of pointers (util/hashmap's hashidx) */
void *st_table_find(struct hashidx *t, uint64_t h,
		    bool (*eq)(const void *entry, const void *key),
		    const void *key);
void st_table_add(struct hashidx *t, uint64_t h, void *entry);
void *st_table_slot(const struct hashidx *t, size_t i);

/* intern.c: the symtab's copy of a string; of a symbol name, unversioned
 * and demangled */
char *st_intern(struct symtab *s, const char *str);
char *st_intern_symbol(struct symtab *s, const char *name);

/* elfmod.c: modules, one per path */
int module_report_fd(struct symtab *s, const struct module *md);
struct module *module_get(struct symtab *s, const char *path);
int module_open(struct symtab *s, struct module *md);
void module_free(struct module *md);
int module_probe(struct symtab *s, struct module *md);
void module_save_cache(struct symtab *s, struct module *md);
struct cached module_lookup(struct symtab *s, struct module *md,
			    uint64_t rel);
const struct torchops_table *module_torchops(struct symtab *s,
					     struct module *md);

/* elfsyms.c (note 6): the PLT stubs of elf, named, at Dwfl addresses
 * (file address + bias); *out is malloc'd, its names interned. And the
 * sizes of the sizeless symbols among syms (sorted, one per start). */
size_t elfsyms_plt(struct symtab *s, Elf *elf, uint64_t bias,
		   struct sym **out);
void elfsyms_bound(Elf *elf, uint64_t bias, struct sym *syms, size_t n);
/* The functions' starts .eh_frame_hdr's table lists, sorted, at Dwfl
 * addresses; *out is malloc'd. 0 when there is no table. */
size_t elfsyms_fde_starts(Elf *elf, uint64_t bias, uint64_t **out);
/* The bytes of elf's section name (SHT_PROGBITS, not compressed) and
 * their length in *len, its address in *addr (if addr); NULL when there
 * is none, or the file does not hold it all. They belong to elf. */
const void *elfsyms_section(Elf *elf, const char *name, size_t *len,
			    uint64_t *addr);

/* procmaps.c: processes, their mappings, their JIT symbols */
struct proc *proc_find(struct symtab *s, uint32_t pid, bool create);
void proc_clear(struct proc *p);
struct mapping *map_find(struct proc *p, uint64_t addr);
/*
 * The executable mappings /proc/PID/maps lists now that p does not know
 * (their mmap records lost: a reader that fell behind, a ring that
 * overflowed) added; true if any was. Only while the process is the
 * image p knows (each of p's file mappings still there: the maps are
 * read now, the sample was taken before, maybe before an exec). At most
 * once every PROC_REFRESH_NS per process; never for a retired one.
 */
#define PROC_REFRESH_NS 100000000ull
bool proc_refresh(struct symtab *s, struct proc *p);
int map_bias(struct symtab *s, struct mapping *m, uint64_t *bias);
const struct jit_sym *jit_find(struct symtab *s, struct proc *p,
			       uint64_t addr);

#endif
