/*
 * Symbolization and DWARF unwinding with libdw. A `symtab` knows the
 * executable mappings of every profiled process (fed from the sampler's
 * MMAP2 records and /tmp/perf-PID.map JIT maps) and turns an address of a
 * process into frames: the function (C++ demangled), its inlined callees
 * with file:line when asked, and the module. Each distinct address is
 * resolved once. It also unwinds a sampled user stack (registers + stack
 * copy) into a chain of addresses through the modules' CFI.
 */
#ifndef YS_PROFILE_SYMBOLIZE_H
#define YS_PROFILE_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "util/error.h"

struct symtab;

/*
 * Load the libraries symbolization needs (libdw, libelf: dlopen'ed, once;
 * a command calls this before it runs anything, to fail early). Returns
 * 0, or -1 with an error naming the library and its package.
 */
int symtab_load(struct error *e);

/* A symtab; if symtab_load fails, every address gives [unknown]. */
struct symtab *symtab_new(bool lines);
void symtab_free(struct symtab *s);

/* Keep resolved frames in the disk cache in dir (symcache.h's
 * symcache_dir; NULL: none, the default): read at a module's first
 * lookup, written back at symtab_free when new addresses were
 * resolved. */
void symtab_use_cache(struct symtab *s, const char *dir);

/* A process's mapping of path at [start, start + len) from file offset
 * pgoff. Later mappings over the same range replace earlier ones. */
void symtab_mmap(struct symtab *s, uint32_t pid, uint64_t start,
		 uint64_t len, uint64_t pgoff, const char *path);
/* pid was forked from ppid: it starts with ppid's mappings. */
void symtab_fork(struct symtab *s, uint32_t pid, uint32_t ppid);
/* pid exec'ed: its mappings are gone. */
void symtab_exec(struct symtab *s, uint32_t pid);
/*
 * pid execs or exits, and its addresses are to be looked up later: its
 * mappings move to a new id (not a pid: SYMTAB_RETIRED and up), which
 * symtab_lookup takes in its place, and pid starts without mappings (as
 * after symtab_exec). Nothing is read or symbolized now: the reader goes
 * on with the samples that wait meanwhile. Returns the id.
 */
#define SYMTAB_RETIRED 0x80000000u
uint32_t symtab_retire(struct symtab *s, uint32_t pid);
/*
 * Whether a mapping of file path at [start, start + len) in pid would take
 * the place of a mapping of another file: a library unloaded (dlclose)
 * and another loaded at its addresses. Its samples so far need the old
 * mappings: symtab_keep them first.
 */
bool symtab_mmap_replaces(struct symtab *s, uint32_t pid, uint64_t start,
			  uint64_t len, const char *path);
/* A copy of pid's mappings (and JIT map) under a new id, as
 * symtab_retire's, for the addresses pid had so far; pid keeps its own.
 * Returns the id. */
uint32_t symtab_keep(struct symtab *s, uint32_t pid);

/*
 * The frames of address addr of pid, outermost last: the function
 * containing addr, preceded by the inlined calls within it (innermost
 * first). For a return address (callers' frames) pass is_return, so that
 * addr - 1 is looked up. Fills up to max frames into out and returns how
 * many (at least 1: an unknown address gives "[unknown]" in its module or
 * "[unknown]"). The strings of the frames belong to the symtab and stay
 * valid until symtab_free.
 */
size_t symtab_lookup(struct symtab *s, uint32_t pid, uint64_t addr,
		     bool is_return, struct frame *out, size_t max);

/*
 * The operator table (profile/torchops.h) of the file that holds address
 * addr of pid (is_return as for symtab_lookup): its schema strings, read
 * from its .rodata once, at the first call for that file; NULL for an
 * address of no file, a file that cannot be read or has no .rodata. Ask
 * only for a dispatcher's entry (torchops_is_entry): the first call
 * reads the whole section. It belongs to the symtab.
 */
struct torchops_table;
const struct torchops_table *symtab_torchops(struct symtab *s, uint32_t pid,
					     uint64_t addr, bool is_return);

/* Call fn(arg, name, path) for every file a profiled process mapped:
 * its module name (a frame's module: the basename) and its path as the
 * kernel reported it (links resolved), in the order of the paths. The
 * strings belong to the symtab. */
void symtab_each_module(const struct symtab *s,
			void (*fn)(void *arg, const char *name,
				   const char *path), void *arg);

/*
 * Synthetic frames: frames that are not code at an address (an
 * interpreter's, such as Python's, profile/pystacks.h) travel through the
 * raw address chains as an address with SYMTAB_SYNTH set, which
 * symtab_lookup turns back into the frame (one, whatever is_return). No
 * user address has that bit. symtab_synth interns f (its strings copied;
 * equal frames give the same address) and returns its address.
 */
#define SYMTAB_SYNTH (1ULL << 63)
uint64_t symtab_synth(struct symtab *s, const struct frame *f);

/* The frame that ends a stack cut at a depth limit, where its outer
 * frames are not known: "[truncated]" (a symtab_synth address), so that a
 * flame graph shows the cut rather than a false root. */
#define SYMTAB_TRUNCATED "[truncated]"
uint64_t symtab_truncated(struct symtab *s);

/* A native stack ips[0, n) whose outer frames are missing (the kernel's
 * callchain limit, the end of a dwarf stack copy) into out[0, max), leaf
 * first as ips, its innermost frames then symtab_truncated: its length.
 * ips may be out. */
size_t symtab_mark_cut(struct symtab *s, const uint64_t *ips, size_t n,
		       uint64_t *out, size_t max);

/*
 * An address shown only if the symtab names its function, decided when
 * it is looked up (after the run, not while samples wait): addr with
 * SYMTAB_IF_NAMED set and a stand-in frame's number. When the function
 * has no name ("[unknown]", or MODULE+0xOFFSET from the unwind tables),
 * symtab_lookup gives the stand-in (a symtab_synth address; 0 for none:
 * no frame at all). stackframes_ids shows a run of one stand-in once.
 * Returns addr as is when the stand-in's number does not fit.
 */
#define SYMTAB_IF_NAMED (1ULL << 62)
uint64_t symtab_if_named(uint64_t addr, uint64_t standin);

/*
 * Unwind a user stack sampled in dwarf mode: regs as in sampler.h's
 * SAMPLER_REGS, stack a copy from SP upwards. Writes up to max return
 * addresses (the sampled IP first) to ips and returns how many.
 * Look up ips[0] as is and every later one with is_return. Returns 0 when
 * regs has fewer than SAMPLER_REGS' registers (or max is 0), just the IP
 * when the process's files give nothing to unwind with. *cut says whether
 * the walk stopped short of the thread's outermost frame: at max, at the
 * end of the stack copy, or at code no file holds (a JIT's: no unwind
 * tables), so that the frames further out are missing, not absent.
 */
size_t symtab_unwind(struct symtab *s, uint32_t pid, const uint64_t *regs,
		     size_t nregs, const uint8_t *stack, size_t stack_size,
		     uint64_t *ips, size_t max, bool *cut);

/*
 * The unwinder behind symtab_unwind (unwind.c), for symbolize.c, which
 * owns the mappings: one process image's files reported to libdwfl at
 * their load biases, with a process state fed by the sample at hand.
 */
struct unwind;

/* A file mapping of the process: [start, end) of path from file offset
 * pgoff, its ELF moved by bias; fd (consumed) holds the file, or -1 to
 * open path. Mappings of one file at one bias share their fd. */
struct unwind_map {
	const char *name, *path;
	int fd;
	uint64_t start, end, pgoff, bias;
};

/* An unwinder of maps[0..n) (sorted by start) for pid with one
 * reference, or NULL if no file could be reported. Every fd is consumed
 * either way. */
struct unwind *unwind_new(uint32_t pid, const struct unwind_map *maps,
			  size_t n);
void unwind_ref(struct unwind *u);
void unwind_unref(struct unwind *u);

/* symtab_unwind's walk with u (NULL: only the IP is known), for thread
 * tid. Memory outside the stack copy is read from the mapped files. */
size_t unwind_stack(struct unwind *u, uint32_t tid, const uint64_t *regs,
		    size_t nregs, const uint8_t *stack, size_t stack_size,
		    uint64_t *ips, size_t max, bool *cut);

/* The load bias of an ELF file (libelf's Elf) mapped at start from file
 * offset pgoff: what its p_vaddr addresses were moved by. Returns 0, or
 * -1 if none of its segments holds pgoff. */
struct Elf;
int unwind_bias(struct Elf *elf, uint64_t start, uint64_t pgoff,
		uint64_t *bias);

/* A new memfd holding a copy of our own vdso, which is every 64-bit
 * process's vdso on this kernel, or -1. The caller owns it. */
int unwind_vdso_image(void);

#endif
