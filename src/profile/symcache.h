/*
 * The symbolizer's disk cache: the frames of the file addresses of one
 * ELF file resolved so far (symtab_internal.h, note 5), so that a later
 * run finds them without opening the file's DWARF (for libc, its
 * separate debug info, compressed: most of the cost of symbolizing a
 * short run).
 *
 * A cache file is named by the file's build-id (or, without one, by a
 * hash of its path) and holds a key: the file's identity (device, inode,
 * size, modification and change times), its build-id, the identity of
 * the separate debug file its DWARF came from (or that none was found),
 * and the symtab's lines flag. A file whose key is not the current one
 * is ignored and replaced. Cache files are untrusted input: the parser
 * checks the format, a checksum and every index before anything is used.
 *
 * The directory is $XDG_CACHE_HOME/yardstick (~/.cache/yardstick), made
 * mode 0700; it, and every file in it, is used only when it belongs to
 * the effective user and (the directory) nobody else can write to it.
 * Files are written to a temporary name and renamed into place, so
 * concurrent writers leave one complete file.
 */
#ifndef YS_PROFILE_SYMCACHE_H
#define YS_PROFILE_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define SYMCACHE_MAX_INLINE 32	/* frames per address */
#define SYMCACHE_NONE UINT32_MAX	/* no string */

/* A file's identity (all 0: no file). */
struct symcache_ident {
	uint64_t dev, ino, size, mtime_ns, ctime_ns;
};

struct symcache_key {
	uint32_t flags;			/* SYMCACHE_LINES */
	struct symcache_ident file, debug;
	uint32_t build_id_len;		/* <= 64 */
	uint8_t build_id[64];
};
#define SYMCACHE_LINES 1u

struct symcache_frame {
	uint32_t function, file;	/* string index; file may be NONE */
	int32_t line;
	bool inlined;
};

/* Frames of one file address: frames[first, first + n). */
struct symcache_entry {
	uint64_t addr;
	uint32_t first, n;
};

struct symcache {
	struct symcache_key key;
	char *debug_path;		/* NULL: no separate debug file */
	char **strings;
	size_t nstrings;
	struct symcache_entry *entries;	/* addr ascending, distinct */
	size_t nentries;
	struct symcache_frame *frames;
	size_t nframes;
	char *blob;			/* the parsed strings live here */
};

/* Parse a cache file's bytes. Returns 0, or -1 with an error saying what
 * is wrong (out is then empty). */
int symcache_parse(const void *buf, size_t len, struct symcache *out,
		   struct error *e);
/* Encode c (its blob unused) into a malloc'd buffer of *len bytes. */
void *symcache_encode(const struct symcache *c, size_t *len);
void symcache_free(struct symcache *c);

/* The cache directory (created if missing), or NULL when there is none
 * or it is not safe to use (see above). Malloc'd. */
char *symcache_dir(void);

/* The cache file of key in dir, if there is a safe and valid one with
 * exactly this key (debug path included). Returns 0 and fills out, or
 * -1. */
int symcache_load(const char *dir, const struct symcache_key *key,
		  const char *path, struct symcache *out);
/* Write c for path into dir atomically. Returns 0 or -1. After a
 * write, the directory is trimmed to symcache_max_bytes(). */
int symcache_save(const char *dir, const char *path,
		  const struct symcache *c);

/* The cache's bound: $YARDSTICK_CACHE_MAX (bytes, or with a K, M or G
 * suffix), else SYMCACHE_DEFAULT_MAX; a value that is not one is told
 * (a warning on stderr, once) and the default used. */
#define SYMCACHE_DEFAULT_MAX ((uint64_t)256 << 20)
uint64_t symcache_max_bytes(void);

/* Trim the cache directory dfd: when its cache files (NAME.sym, regular,
 * the user's) add up to more than max bytes, remove the least recently
 * used (oldest modification time: a load refreshes it) until they are at
 * most 3/4 of max, never the file named keep (may be NULL); and remove
 * temporary files a killed writer left over an hour ago. Returns how
 * many files were removed. */
int symcache_trim(int dfd, uint64_t max, const char *keep);

/* --- an ELF file's identity and load segments, read without libelf --- */

struct elf_load {
	uint64_t offset, vaddr, filesz;
	bool exec;
};

#define ELF_MAX_LOADS 32
struct elf_info {
	bool exec_type;			/* ET_EXEC: loaded at its addresses */
	size_t nloads;
	struct elf_load loads[ELF_MAX_LOADS];
};

/* Read the 64-bit ELF file at path: its load segments, and into key its
 * identity and build-id (flags and debug left 0). Returns 0 or -1. */
int symcache_probe(const char *path, struct elf_info *info,
		   struct symcache_key *key);

/*
 * Where separate debug files are looked for by build-id
 * (ROOT/.build-id/xx/rest.debug, as Debian's -dbgsym packages install
 * them): $YARDSTICK_DEBUG_DIR when it is an absolute path (tests, a
 * sysroot), else /usr/lib/debug.
 */
const char *symcache_debug_root(void);

/* The identity of the file at path; -1 if it cannot be stat'ed. */
int symcache_ident(const char *path, struct symcache_ident *id);

/* The load bias of a file of load segments info mapped at start from file
 * offset pgoff (unwind.h's unwind_bias). Returns 0, or -1 if no segment
 * holds pgoff. */
int elf_load_bias(const struct elf_info *info, uint64_t start,
		  uint64_t pgoff, uint64_t *bias);

#endif
