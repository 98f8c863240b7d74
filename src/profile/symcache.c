/*
 * The symbolizer's disk cache (symcache.h): its file format, its
 * directory and files, and the identity of an ELF file.
 *
 * Format, native byte order (the cache never leaves the machine):
 *   header: magic "YSSYMC\0\1", u32 version, u32 flags, the file's
 *     identity (5 x u64), the debug file's (5 x u64), u32 build-id
 *     length, 64 bytes of build-id, u32 debug path (string index or
 *     NONE), u32 strings, u32 entries, u32 frames, u64 payload length,
 *     u64 FNV-1a checksum of the payload;
 *   payload: the strings (u32 length, bytes without NUL), the entries
 *     (u64 address, u32 first, u32 n), the frames (u32 function, u32
 *     file, i32 line, u32 inlined).
 */
#include "profile/symcache.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/hashmap.h"
#include "util/strutil.h"

/* 2: PLT stubs named SYM@plt, code without a symbol named by its
 * function's start (MODULE+0xADDR): version 1 files named them otherwise;
 * 3: an IBT .plt's lazy entries named SYM@plt too (MODULE+0xADDR in 2) */
#define SYMCACHE_VERSION 3
#define MAX_FILE ((size_t)64 << 20)

static const char magic[8] = { 'Y', 'S', 'S', 'Y', 'M', 'C', 0, 1 };

/* --- reading and writing fields --- */

struct rd {
	const unsigned char *p;
	size_t left;
	bool bad;
};

static const void *take(struct rd *r, size_t n)
{
	const void *at = r->p;

	if (r->bad || n > r->left) {
		r->bad = true;
		return NULL;
	}
	r->p += n;
	r->left -= n;
	return at;
}

static uint32_t rd_u32(struct rd *r)
{
	const void *at = take(r, 4);
	uint32_t v = 0;

	if (at)
		memcpy(&v, at, 4);
	return v;
}

static uint64_t rd_u64(struct rd *r)
{
	const void *at = take(r, 8);
	uint64_t v = 0;

	if (at)
		memcpy(&v, at, 8);
	return v;
}

static void rd_ident(struct rd *r, struct symcache_ident *id)
{
	id->dev = rd_u64(r);
	id->ino = rd_u64(r);
	id->size = rd_u64(r);
	id->mtime_ns = rd_u64(r);
	id->ctime_ns = rd_u64(r);
}

struct wr {
	unsigned char *p;
	size_t n, cap;
};

static void put(struct wr *w, const void *v, size_t n)
{
	w->p = xgrow(w->p, &w->cap, w->n + n, 1);
	memcpy(w->p + w->n, v, n);
	w->n += n;
}

static void put_u32(struct wr *w, uint32_t v)
{
	put(w, &v, 4);
}

static void put_u64(struct wr *w, uint64_t v)
{
	put(w, &v, 8);
}

static void put_ident(struct wr *w, const struct symcache_ident *id)
{
	put_u64(w, id->dev);
	put_u64(w, id->ino);
	put_u64(w, id->size);
	put_u64(w, id->mtime_ns);
	put_u64(w, id->ctime_ns);
}

static uint64_t checksum(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* --- the format --- */

void symcache_free(struct symcache *c)
{
	free(c->strings);
	free(c->entries);
	free(c->frames);
	free(c->blob);
	memset(c, 0, sizeof(*c));
}

static int parse_fail(struct symcache *out, struct error *e,
		      const char *what)
{
	symcache_free(out);
	error_set(e, "bad symbol cache: %s", what);
	return -1;
}

static int parse_payload(struct rd *r, struct symcache *out,
			 uint32_t debug_path, struct error *e)
{
	size_t blob_at = 0, total = r->left;

	/* every string takes 4 bytes at least, entries and frames 16 */
	if (out->nstrings > total / 4 || out->nentries > total / 16 ||
	    out->nframes > total / 16)
		return parse_fail(out, e, "counts larger than the file");
	out->strings = xcalloc(out->nstrings + 1, sizeof(*out->strings));
	out->blob = xmalloc(total + out->nstrings + 1);
	for (size_t i = 0; i < out->nstrings; i++) {
		uint32_t n = rd_u32(r);
		const char *s = take(r, n);

		if (!s)
			return parse_fail(out, e, "truncated string");
		if (memchr(s, '\0', n))
			return parse_fail(out, e, "NUL in a string");
		out->strings[i] = out->blob + blob_at;
		memcpy(out->blob + blob_at, s, n);
		out->blob[blob_at + n] = '\0';
		blob_at += n + 1;
	}
	out->entries = xcalloc(out->nentries + 1, sizeof(*out->entries));
	for (size_t i = 0; i < out->nentries; i++) {
		struct symcache_entry *en = &out->entries[i];

		en->addr = rd_u64(r);
		en->first = rd_u32(r);
		en->n = rd_u32(r);
		if (r->bad)
			return parse_fail(out, e, "truncated entry");
		if (i && en->addr <= out->entries[i - 1].addr)
			return parse_fail(out, e, "entries out of order");
		if (en->n < 1 || en->n > SYMCACHE_MAX_INLINE ||
		    (uint64_t)en->first + en->n > out->nframes)
			return parse_fail(out, e, "entry out of range");
	}
	out->frames = xcalloc(out->nframes + 1, sizeof(*out->frames));
	for (size_t i = 0; i < out->nframes; i++) {
		struct symcache_frame *f = &out->frames[i];
		uint32_t inl;

		f->function = rd_u32(r);
		f->file = rd_u32(r);
		f->line = (int32_t)rd_u32(r);
		inl = rd_u32(r);
		if (r->bad)
			return parse_fail(out, e, "truncated frame");
		if (f->function >= out->nstrings ||
		    (f->file != SYMCACHE_NONE && f->file >= out->nstrings) ||
		    f->line < 0 || inl > 1)
			return parse_fail(out, e, "frame out of range");
		f->inlined = inl;
	}
	if (r->left)
		return parse_fail(out, e, "trailing bytes");
	if (debug_path != SYMCACHE_NONE && debug_path >= out->nstrings)
		return parse_fail(out, e, "debug path out of range");
	out->debug_path = debug_path == SYMCACHE_NONE
			  ? NULL : out->strings[debug_path];
	return 0;
}

int symcache_parse(const void *buf, size_t len, struct symcache *out,
		   struct error *e)
{
	struct rd r = { buf, len, false };
	const void *m;
	uint32_t version, debug_path;
	uint64_t payload, sum;

	memset(out, 0, sizeof(*out));
	m = take(&r, sizeof(magic));
	if (!m || memcmp(m, magic, sizeof(magic)))
		return parse_fail(out, e, "not a symbol cache");
	version = rd_u32(&r);
	out->key.flags = rd_u32(&r);
	rd_ident(&r, &out->key.file);
	rd_ident(&r, &out->key.debug);
	out->key.build_id_len = rd_u32(&r);
	m = take(&r, sizeof(out->key.build_id));
	if (m)
		memcpy(out->key.build_id, m, sizeof(out->key.build_id));
	debug_path = rd_u32(&r);
	out->nstrings = rd_u32(&r);
	out->nentries = rd_u32(&r);
	out->nframes = rd_u32(&r);
	payload = rd_u64(&r);
	sum = rd_u64(&r);
	if (r.bad)
		return parse_fail(out, e, "truncated header");
	if (version != SYMCACHE_VERSION)
		return parse_fail(out, e, "another version");
	if (out->key.build_id_len > sizeof(out->key.build_id) ||
	    (out->key.flags & ~SYMCACHE_LINES))
		return parse_fail(out, e, "bad header");
	if (payload != r.left)
		return parse_fail(out, e, "truncated");
	if (checksum(r.p, r.left) != sum)
		return parse_fail(out, e, "checksum mismatch");
	return parse_payload(&r, out, debug_path, e);
}

void *symcache_encode(const struct symcache *c, size_t *len)
{
	struct wr w = { 0 }, pl = { 0 };
	uint32_t debug_path = SYMCACHE_NONE;

	for (size_t i = 0; i < c->nstrings; i++) {
		uint32_t n = (uint32_t)strlen(c->strings[i]);

		put_u32(&pl, n);
		put(&pl, c->strings[i], n);
		if (c->debug_path && c->strings[i] == c->debug_path)
			debug_path = (uint32_t)i;
	}
	for (size_t i = 0; i < c->nentries; i++) {
		put_u64(&pl, c->entries[i].addr);
		put_u32(&pl, c->entries[i].first);
		put_u32(&pl, c->entries[i].n);
	}
	for (size_t i = 0; i < c->nframes; i++) {
		put_u32(&pl, c->frames[i].function);
		put_u32(&pl, c->frames[i].file);
		put_u32(&pl, (uint32_t)c->frames[i].line);
		put_u32(&pl, c->frames[i].inlined);
	}
	put(&w, magic, sizeof(magic));
	put_u32(&w, SYMCACHE_VERSION);
	put_u32(&w, c->key.flags);
	put_ident(&w, &c->key.file);
	put_ident(&w, &c->key.debug);
	put_u32(&w, c->key.build_id_len);
	put(&w, c->key.build_id, sizeof(c->key.build_id));
	put_u32(&w, debug_path);
	put_u32(&w, (uint32_t)c->nstrings);
	put_u32(&w, (uint32_t)c->nentries);
	put_u32(&w, (uint32_t)c->nframes);
	put_u64(&w, pl.n);
	put_u64(&w, checksum(pl.p, pl.n));
	if (pl.n)
		put(&w, pl.p, pl.n);
	free(pl.p);
	*len = w.n;
	return w.p;
}

/* --- identities --- */

int symcache_ident(const char *path, struct symcache_ident *id)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return -1;
	*id = (struct symcache_ident){
		.dev = st.st_dev, .ino = st.st_ino, .size = (uint64_t)st.st_size,
		.mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u +
			    (uint64_t)st.st_mtim.tv_nsec,
		.ctime_ns = (uint64_t)st.st_ctim.tv_sec * 1000000000u +
			    (uint64_t)st.st_ctim.tv_nsec,
	};
	return 0;
}

static bool ident_eq(const struct symcache_ident *a,
		     const struct symcache_ident *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* The build-id note in a PT_NOTE segment's bytes, into key. */
static void find_build_id(const unsigned char *p, size_t n, size_t align,
			  struct symcache_key *key)
{
	size_t at = 0;

	while (n - at >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_at, desc_at, next;

		memcpy(&namesz, p + at, 4);
		memcpy(&descsz, p + at + 4, 4);
		memcpy(&type, p + at + 8, 4);
		name_at = at + 12;
		desc_at = name_at + (((size_t)namesz + align - 1) & ~(align - 1));
		next = desc_at + (((size_t)descsz + align - 1) & ~(align - 1));
		if (namesz > n || descsz > n || desc_at > n || next > n ||
		    desc_at + descsz > n)
			return;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(p + name_at, "GNU", 4) && descsz &&
		    descsz <= sizeof(key->build_id)) {
			key->build_id_len = descsz;
			memcpy(key->build_id, p + desc_at, descsz);
			return;
		}
		at = next;
	}
}

int symcache_probe(const char *path, struct elf_info *info,
		   struct symcache_key *key)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	struct stat st;
	int ret = -1;

	memset(info, 0, sizeof(*info));
	memset(key, 0, sizeof(*key));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || !eh.e_phnum ||
	    eh.e_phnum > 64 ||
	    pread(fd, ph, eh.e_phnum * sizeof(*ph), (off_t)eh.e_phoff) !=
		    (ssize_t)(eh.e_phnum * sizeof(*ph)))
		goto out;
	info->exec_type = eh.e_type == ET_EXEC;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD) {
			if (info->nloads == ELF_MAX_LOADS)
				goto out;
			info->loads[info->nloads++] = (struct elf_load){
				ph[i].p_offset, ph[i].p_vaddr, ph[i].p_filesz,
				(ph[i].p_flags & PF_X) != 0 };
		} else if (ph[i].p_type == PT_NOTE && !key->build_id_len &&
			   ph[i].p_filesz >= 12 && ph[i].p_filesz <= 65536) {
			unsigned char *notes = xmalloc(ph[i].p_filesz);
			size_t align = ph[i].p_align == 8 ? 8 : 4;

			if (pread(fd, notes, ph[i].p_filesz,
				  (off_t)ph[i].p_offset) ==
			    (ssize_t)ph[i].p_filesz)
				find_build_id(notes, ph[i].p_filesz, align, key);
			free(notes);
		}
	}
	if (symcache_ident(path, &key->file) == 0 &&
	    key->file.ino == (uint64_t)st.st_ino &&
	    key->file.dev == (uint64_t)st.st_dev)
		ret = 0;
out:
	close(fd);
	return ret;
}

int elf_load_bias(const struct elf_info *info, uint64_t start,
		  uint64_t pgoff, uint64_t *bias)
{
	const struct elf_load *best = NULL;

	if (info->exec_type) {
		*bias = 0;
		return 0;
	}
	for (size_t i = 0; i < info->nloads; i++) {
		const struct elf_load *l = &info->loads[i];

		if (pgoff < (l->offset & ~0xfffULL) ||
		    pgoff >= l->offset + l->filesz)
			continue;
		if (!best || (l->exec && !best->exec))
			best = l;
	}
	if (!best)
		return -1;
	*bias = start - (best->vaddr - (best->offset - pgoff));
	return 0;
}

/* --- the directory and its files --- */

/* mkdir -p dir, the directories it makes of mode 0700. */
static void make_dirs(char *dir)
{
	for (char *p = dir + 1;; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = '\0';
		(void)mkdir(dir, 0700);
		*p = c;
		if (!c)
			break;
	}
}

/* An fd of dir if it is safe: a directory of ours nobody else can write
 * to. -1 otherwise. */
static int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || !owner_trusted(&st) ||
	    (st.st_mode & 022)) {
		close(fd);
		return -1;
	}
	return fd;
}

char *symcache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir;
	int fd;

	/* XDG: a relative XDG_CACHE_HOME is invalid and ignored */
	if (xdg && xdg[0] == '/') {
		dir = xasprintf("%s/yardstick", xdg);
	} else if (home && home[0] == '/') {
		dir = xasprintf("%s/.cache/yardstick", home);
	} else {
		return NULL;
	}
	fd = open_dir(dir);
	if (fd < 0) {
		make_dirs(dir);
		fd = open_dir(dir);
	}
	if (fd < 0) {
		free(dir);
		return NULL;
	}
	close(fd);
	return dir;
}

/* The file name of key in the cache: the build-id, else the path's
 * hash; and the lines flag. */
static char *file_name(const struct symcache_key *key, const char *path)
{
	char hex[2 * sizeof(key->build_id) + 1];

	if (!key->build_id_len) {
		return xasprintf("path-%016llx-%c.sym",
				 (unsigned long long)hash_str(path),
				 key->flags & SYMCACHE_LINES ? 'l' : 'f');
	}
	for (uint32_t i = 0; i < key->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", key->build_id[i]);
	return xasprintf("%s-%c.sym", hex,
			 key->flags & SYMCACHE_LINES ? 'l' : 'f');
}

/* The file name path's .gnu_debuglink section holds into name (at most
 * size bytes with its NUL; a name with a '/' is not one). Read with
 * pread, as symcache_probe reads. Returns 0, or -1 when there is none. */
static int read_debuglink(const char *path, char *name, size_t size)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), ret = -1;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL, str;
	char *names = NULL;

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum ||
	    eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum)
		goto out;
	sh = xmalloc(eh.e_shnum * sizeof(*sh));
	if (pread(fd, sh, eh.e_shnum * sizeof(*sh), (off_t)eh.e_shoff) !=
	    (ssize_t)(eh.e_shnum * sizeof(*sh)))
		goto out;
	str = sh[eh.e_shstrndx];
	if (!str.sh_size || str.sh_size > 65536)
		goto out;
	names = xmalloc(str.sh_size + 1);
	if (pread(fd, names, str.sh_size, (off_t)str.sh_offset) !=
	    (ssize_t)str.sh_size)
		goto out;
	names[str.sh_size] = '\0';
	for (size_t i = 0; i < eh.e_shnum; i++) {
		ssize_t n;

		if (sh[i].sh_name >= str.sh_size ||
		    strcmp(names + sh[i].sh_name, ".gnu_debuglink") ||
		    sh[i].sh_type == SHT_NOBITS)
			continue;
		n = pread(fd, name, size - 1, (off_t)sh[i].sh_offset);
		if (n <= 0)
			break;
		name[n] = '\0';
		if (*name && !strchr(name, '/') && strlen(name) < (size_t)n)
			ret = 0;
		break;
	}
out:
	free(names);
	free(sh);
	close(fd);
	return ret;
}

/* Whether a file path's .gnu_debuglink names is now where libdwfl looks
 * for it (dwlib.c's path, ":.debug:ROOT"): beside path, in its .debug
 * directory, or under root at path's directory. */
static bool debuglink_present(const char *path, const char *root)
{
	char name[256], cand[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int dirlen;

	if (!slash || read_debuglink(path, name, sizeof(name)))
		return false;
	dirlen = (int)(slash - path);
	/* beside it: not the file itself (a debuglink naming its own file) */
	if ((size_t)snprintf(cand, sizeof(cand), "%.*s/%s", dirlen, path,
			     name) < sizeof(cand) &&
	    strcmp(cand, path) && access(cand, F_OK) == 0)
		return true;
	if ((size_t)snprintf(cand, sizeof(cand), "%.*s/.debug/%s", dirlen,
			     path, name) < sizeof(cand) &&
	    access(cand, F_OK) == 0)
		return true;
	return (size_t)snprintf(cand, sizeof(cand), "%s%.*s/%s", root,
				dirlen, path, name) < sizeof(cand) &&
	       access(cand, F_OK) == 0;
}

/* Whether the debug information a cache was made with is still what
 * libdw would find: the same separate debug file, or still none (by
 * build-id, or where file's .gnu_debuglink sends libdwfl). */
static bool debug_still(const struct symcache *c, const char *file)
{
	const struct symcache_key *k = &c->key;
	struct symcache_ident id;
	const char *urls = getenv("DEBUGINFOD_URLS");
	const char *root = symcache_debug_root();
	char path[PATH_MAX];
	size_t len;

	if (c->debug_path)
		return symcache_ident(c->debug_path, &id) == 0 &&
		       ident_eq(&id, &k->debug);
	/* none was found: none may have appeared where libdw looks by
	 * build-id or by debuglink, and no server may be asked */
	if (urls && *urls)
		return false;
	if (debuglink_present(file, root))
		return false;
	if (k->build_id_len < 2)
		return true;
	len = (size_t)snprintf(path, sizeof(path), "%s/.build-id/", root);
	for (uint32_t i = 0; i < k->build_id_len && len + 8 < sizeof(path);
	     i++)
		len += (size_t)snprintf(path + len, sizeof(path) - len,
					i == 1 ? "/%02x" : "%02x",
					k->build_id[i]);
	if (len + 8 >= sizeof(path))
		return false;
	memcpy(path + len, ".debug", 7);
	return access(path, F_OK) != 0;
}

const char *symcache_debug_root(void)
{
	const char *d = getenv("YARDSTICK_DEBUG_DIR");

	return d && *d == '/' ? d : "/usr/lib/debug";
}

int symcache_load(const char *dir, const struct symcache_key *key,
		  const char *path, struct symcache *out)
{
	char *name = file_name(key, path), *buf = NULL;
	int dfd = open_dir(dir), fd = -1, ret = -1;
	struct stat st;
	struct error e;
	size_t got = 0;

	memset(out, 0, sizeof(*out));
	if (dfd < 0)
		goto out;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    !owner_trusted(&st) || (size_t)st.st_size > MAX_FILE)
		goto out;
	buf = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0)
			goto out;
		got += (size_t)n;
	}
	if (symcache_parse(buf, got, out, &e))
		goto out;
	if (out->key.flags != key->flags ||
	    !ident_eq(&out->key.file, &key->file) ||
	    out->key.build_id_len != key->build_id_len ||
	    memcmp(out->key.build_id, key->build_id, key->build_id_len) ||
	    !debug_still(out, path)) {
		symcache_free(out);
		goto out;
	}
	/* used now: the trim keeps the recently used (its modification time
	 * is its last use; written at most once an hour) */
	if (time(NULL) - st.st_mtime > 3600)
		(void)futimens(fd, NULL);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	free(buf);
	free(name);
	return ret;
}

/* --- the bound on the cache's size --- */

/* v as a size: decimal digits (util/number.h), then K, M or G or
 * nothing. Returns 0, or -1 when it is not one. */
static int parse_max(const char *v, uint64_t *out)
{
	unsigned long long n;
	const char *end;
	long l;

	if (parse_ulong_prefix(v, &end, &l))
		return -1;
	n = (unsigned long long)l;
	if (*end) {
		const char *units = "kmg", *u = strchr(units, *end | 0x20);
		int shift = u ? 10 * (int)(u - units + 1) : 0;

		if (!shift || end[1])
			return -1;
		n = n > (UINT64_MAX >> shift) ? UINT64_MAX : n << shift;
	}
	*out = (uint64_t)n;
	return 0;
}

uint64_t symcache_max_bytes(void)
{
	static bool told;
	const char *v = getenv("YARDSTICK_CACHE_MAX");
	uint64_t n;

	if (!v)
		return SYMCACHE_DEFAULT_MAX;
	if (!parse_max(v, &n))
		return n;
	if (!told) {	/* a cache setting does not fail a profile */
		told = true;
		fprintf(stderr, "yardstick: warning: YARDSTICK_CACHE_MAX: "
			"expected bytes, or a number with K, M or G, got "
			"'%s'; the symbol cache is bounded by the default "
			"256M\n", v);
	}
	return SYMCACHE_DEFAULT_MAX;
}

struct cfile {
	char *name;
	uint64_t size;
	struct timespec used;
};

static int by_use(const void *a, const void *b)
{
	const struct cfile *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool is_cache_name(const char *n)
{
	size_t len = strlen(n);

	return n[0] != '.' && len > 6 && !strcmp(n + len - 4, ".sym");
}

static bool is_stale_tmp(const char *n, const struct stat *st)
{
	size_t len = strlen(n);

	return n[0] == '.' && len > 4 && !strcmp(n + len - 4, ".tmp") &&
	       time(NULL) - st->st_mtime > 3600;
}

int symcache_trim(int dfd, uint64_t max, const char *keep)
{
	struct cfile *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *d;
	/* a description of its own: a dup would share dfd's offset */
	int removed = 0, fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY |
					       O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((d = readdir(dir))) {
		struct stat st;

		if (fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || !owner_trusted(&st))
			continue;
		/* a writer killed between its write and its rename */
		if (is_stale_tmp(d->d_name, &st)) {
			removed += !unlinkat(dfd, d->d_name, 0);
			continue;
		}
		if (!is_cache_name(d->d_name))
			continue;
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n].name = xstrdup(d->d_name);
		v[n].size = (uint64_t)st.st_size;
		v[n].used = st.st_mtim;
		total += v[n].size;
		n++;
	}
	closedir(dir);
	if (total > max) {
		/* down to 3/4 of the bound, so the next saves do not trim
		 * again at once; the least recently used first, never the
		 * file just written */
		uint64_t goal = max - max / 4;

		qsort(v, n, sizeof(*v), by_use);
		for (size_t i = 0; i < n && total > goal; i++) {
			if (keep && !strcmp(v[i].name, keep))
				continue;
			if (!unlinkat(dfd, v[i].name, 0)) {
				total -= v[i].size;
				removed++;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	return removed;
}

int symcache_save(const char *dir, const char *path,
		  const struct symcache *c)
{
	char *name = file_name(&c->key, path), *tmp;
	int dfd = open_dir(dir), fd = -1, ret = -1;
	size_t len, done = 0;
	unsigned char *buf = NULL;

	tmp = xasprintf(".%s.%ld.tmp", name, (long)getpid());
	if (dfd < 0)
		goto out;
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			      O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST && !unlinkat(dfd, tmp, 0))
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
				      O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out;
	buf = symcache_encode(c, &len);
	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (close(fd) == 0 && done == len &&
	    renameat(dfd, tmp, dfd, name) == 0)
		ret = 0;
	fd = -1;
	if (ret)
		unlinkat(dfd, tmp, 0);
	else
		symcache_trim(dfd, symcache_max_bytes(), name);
out:
	if (dfd >= 0)
		close(dfd);
	free(buf);
	free(tmp);
	free(name);
	return ret;
}
