/*
 * Finding CPython in another process (python_proc.h): /proc/PID/maps
 * for the interpreter's file, its ELF symbols for the addresses.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "profile/python_proc.h"
#include "profile/elfcold.h"
#include "util/fileio.h"
#include "util/procdir.h"
#include "util/strutil.h"

/* The py_read_fn of another process: arg is its py_proc's mem
 * (procdir.h: read through a live thread, picked again when it ends). */
static int py_proc_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };

	return procdir_mem_readv(arg, &local, &remote, 1);
}

/* The py_read2_fn of another process: both ranges in one call. */
static int py_proc_read2(void *arg, uint64_t a1, void *b1, size_t l1,
			 uint64_t a2, void *b2, size_t l2)
{
	struct iovec local[2] = { { b1, l1 }, { b2, l2 } };
	struct iovec remote[2] = { { (void *)(uintptr_t)a1, l1 },
				   { (void *)(uintptr_t)a2, l2 } };

	return procdir_mem_readv(arg, local, remote, 2);
}

void py_proc_move(struct py_proc *to, const struct py_proc *from)
{
	*to = *from;
	if (from->t.arg == &from->mem)
		to->t.arg = &to->mem;
}

static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* Look names up in one symbol table section (sh) with its string table. */
static void scan_symtab(int fd, const Elf64_Shdr *sh, const Elf64_Shdr *str,
			const char *const *names, size_t n, uint64_t *values,
			uint64_t *sizes, bool undef)
{
	struct stat st;
	Elf64_Sym *syms;
	size_t count;
	char *strs;

	/* sizes from the file itself: no larger than it */
	if (sh->sh_entsize != sizeof(Elf64_Sym) || fstat(fd, &st) ||
	    sh->sh_size > (uint64_t)st.st_size ||
	    sh->sh_offset > (uint64_t)st.st_size - sh->sh_size ||
	    str->sh_size > (uint64_t)st.st_size ||
	    str->sh_offset > (uint64_t)st.st_size - str->sh_size)
		return;
	count = sh->sh_size / sizeof(Elf64_Sym);
	syms = xmalloc(sh->sh_size ? sh->sh_size : 1);
	strs = xmalloc(str->sh_size + 1);
	if (pread_all(fd, syms, sh->sh_size, sh->sh_offset) ||
	    pread_all(fd, strs, str->sh_size, str->sh_offset))
		goto out_free;
	strs[str->sh_size] = '\0';
	for (size_t i = 0; i < count; i++) {
		const char *nm;

		bool defined = syms[i].st_value &&
			       syms[i].st_shndx != SHN_UNDEF;

		if (syms[i].st_name >= str->sh_size || (!defined && !undef))
			continue;
		nm = strs + syms[i].st_name;
		for (size_t k = 0; k < n; k++) {
			if (values[k] || strcmp(nm, names[k]))
				continue;
			values[k] = defined ? syms[i].st_value : 1;
			sizes[k] = syms[i].st_size;
			/* a name listed twice takes its next definition
			 * in its next slot (py_proc_condwaits) */
			break;
		}
	}
out_free:
	free(syms);
	free(strs);
}

static int elf_symbols(const char *path, const char *const *names, size_t n,
		       uint64_t *values, uint64_t *sizes, bool undef,
		       bool dynsym_only)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	int fd, ret = -1;

	memset(values, 0, n * sizeof(*values));
	memset(sizes, 0, n * sizeof(*sizes));
	fd = file_open_regular(path);
	if (fd < 0)
		return -1;
	if (pread_all(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
	    eh.e_shnum >= SHN_LORESERVE)
		goto out_close;
	sh = xcalloc(eh.e_shnum, sizeof(*sh));
	if (pread_all(fd, sh, (size_t)eh.e_shnum * sizeof(*sh), eh.e_shoff))
		goto out_close;
	/* .dynsym first: its answers are the exported ones */
	for (int pass = 0; pass < 2 - dynsym_only; pass++) {
		uint32_t want = pass ? SHT_SYMTAB : SHT_DYNSYM;

		for (size_t i = 0; i < eh.e_shnum; i++)
			if (sh[i].sh_type == want && sh[i].sh_link < eh.e_shnum)
				scan_symtab(fd, &sh[i], &sh[sh[i].sh_link],
					    names, n, values, sizes, undef);
	}
	ret = 0;
out_close:
	free(sh);
	close(fd);
	return ret;
}

/* The PT_LOAD program headers of the ELF file open on fd, at most max
 * into out: how many, or -1. */
static int elf_loads(int fd, Elf64_Phdr *out, size_t max)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	size_t n = 0;

	if (pread_all(fd, &eh, sizeof(eh), 0) ||
	    eh.e_phentsize != sizeof(Elf64_Phdr))
		return -1;
	for (size_t i = 0; i < eh.e_phnum && n < max; i++) {
		if (pread_all(fd, &ph, sizeof(ph),
			      eh.e_phoff + i * sizeof(ph)))
			return -1;
		if (ph.p_type == PT_LOAD)
			out[n++] = ph;
	}
	return (int)n;
}

/* Read a 4-byte value at virtual address vaddr of the file. */
static int elf_read_u32(const char *path, uint64_t vaddr, uint32_t *out)
{
	Elf64_Phdr ph[16];
	int fd, n, ret = -1;

	fd = file_open_regular(path);
	if (fd < 0)
		return -1;
	n = elf_loads(fd, ph, 16);
	for (int i = 0; i < n; i++)
		if (vaddr >= ph[i].p_vaddr &&
		    vaddr + 4 <= ph[i].p_vaddr + ph[i].p_filesz) {
			ret = pread_all(fd, out, 4, ph[i].p_offset + vaddr -
						    ph[i].p_vaddr);
			break;
		}
	close(fd);
	return ret;
}

/* The load bias of the file mapped at start from file offset pgoff. */
static int elf_bias(const char *path, uint64_t start, uint64_t pgoff,
		    uint64_t *bias)
{
	Elf64_Phdr ph[16];
	int fd, n;

	fd = file_open_regular(path);
	if (fd < 0)
		return -1;
	n = elf_loads(fd, ph, 16);
	close(fd);
	for (int i = 0; i < n; i++) {
		uint64_t align_off = ph[i].p_offset & ~(uint64_t)0xfff;

		if (pgoff < align_off || pgoff >= ph[i].p_offset +
						 ph[i].p_filesz)
			continue;
		*bias = start - (pgoff - align_off) -
			(ph[i].p_vaddr & ~(uint64_t)0xfff);
		return 0;
	}
	return -1;
}

/* "python3.11", "libpython3.10.so.1.0", "libpython3.6m.so": the version
 * in a name, or 0. */
static int name_version(const char *base, int *major, int *minor)
{
	const char *p = strstr(base, "python");

	if (!p || sscanf(p, "python%d.%d", major, minor) != 2 ||
	    *major < 2 || *major > 9 || *minor < 0 || *minor > 99)
		return 0;
	return 1;
}

static bool is_candidate(const char *path, const char *exe)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libpython", 9) || !strncmp(base, "python", 6) ||
	       !strcmp(path, exe);
}

enum {
	SYM_RUNTIME, SYM_VERSION, SYM_CODE, SYM_UNICODE, SYM_BYTES, SYM_EVAL,
	SYM_INIT, SYM_DICT, SYM_GIL0, NSYMS = SYM_GIL0 + PY_GIL_FUNCS
};
static const char *const sym_names[NSYMS] = {
	"_PyRuntime", "Py_Version", "PyCode_Type", "PyUnicode_Type",
	"PyBytes_Type", "_PyEval_EvalFrameDefault", "Py_Initialize",
	"PyDict_Type",
	/* where a thread waits for the GIL: take_gil (static: in .symtab
	 * only), and the exported entries that take it back */
	"take_gil", "PyEval_RestoreThread", "PyEval_AcquireThread",
	"PyGILState_Ensure",
};

/* Whether path, mapped at start from pgoff, is a CPython interpreter:
 * 1 and out filled, or 0. */
static int probe_file(const char *path, uint64_t start, uint64_t pgoff,
		      struct py_proc *out)
{
	uint64_t v[NSYMS], sz[NSYMS], bias;
	uint32_t hex = 0;
	const char *base = strrchr(path, '/');
	bool named = !strncmp(base ? base + 1 : path, "python", 6) ||
		     !strncmp(base ? base + 1 : path, "libpython", 9);

	/* a program of another name embedding CPython exports its symbols
	 * (.dynsym); its whole .symtab is not worth reading */
	if (elf_symbols(path, sym_names, NSYMS, v, sz, false, !named) ||
	    (!v[SYM_RUNTIME] && !v[SYM_INIT]) ||
	    elf_bias(path, start, pgoff, &bias))
		return 0;
	snprintf(out->path, sizeof(out->path), "%s", path);
	base = base ? base + 1 : path;
	if (v[SYM_VERSION] && !elf_read_u32(path, v[SYM_VERSION], &hex) &&
	    (hex >> 24) >= 3) {
		out->hexversion = hex;
		out->major = (int)(hex >> 24);
		out->minor = (int)((hex >> 16) & 0xff);
		py_version_string(hex, out->version, sizeof(out->version));
	} else if (name_version(base, &out->major, &out->minor)) {
		snprintf(out->version, sizeof(out->version), "%d.%d",
			 out->major, out->minor);
	} else {
		snprintf(out->version, sizeof(out->version), "unknown");
	}
	/* a version is supported only when it is known from Py_Version and
	 * every address the walk checks against is there */
	if (hex && v[SYM_RUNTIME] && v[SYM_CODE] && v[SYM_UNICODE] &&
	    v[SYM_BYTES])
		out->t.l = py_layout_find(out->major, out->minor);
	out->t.runtime = v[SYM_RUNTIME] + bias;
	out->t.code_type = v[SYM_CODE] + bias;
	out->t.unicode_type = v[SYM_UNICODE] + bias;
	out->t.bytes_type = v[SYM_BYTES] + bias;
	out->t.dict_type = v[SYM_DICT] ? v[SYM_DICT] + bias : 0;
	for (int k = 0; k < PY_GIL_FUNCS; k++)
		if (v[SYM_GIL0 + k] && sz[SYM_GIL0 + k]) {
			out->gil_start[k] = v[SYM_GIL0 + k] + bias;
			out->gil_end[k] = out->gil_start[k] + sz[SYM_GIL0 + k];
		}
	if (v[SYM_EVAL]) {
		uint64_t lo, hi;

		out->eval_start = v[SYM_EVAL] + bias;
		out->eval_end = out->eval_start +
				(sz[SYM_EVAL] ? sz[SYM_EVAL] : 1);
		if (!elf_cold_file(path, v[SYM_EVAL], sz[SYM_EVAL], &lo, &hi)) {
			out->eval_cold_start = lo + bias;
			out->eval_cold_end = hi + bias;
		}
	}
	return 1;
}

int py_eval_cold(const char *path, uint64_t *lo, uint64_t *hi)
{
	static const char *const name[1] = { "_PyEval_EvalFrameDefault" };
	uint64_t v, sz;

	if (elf_symbols(path, name, 1, &v, &sz, false, false) || !v)
		return -1;
	return elf_cold_file(path, v, sz, lo, hi);
}

/* One line of /proc/PID/maps: its start, end and file offset, and its
 * path ("" for an anonymous mapping), cut at the newline in place.
 * false for a line that is not a mapping's. */
static bool maps_line(char *line, unsigned long long *start,
		      unsigned long long *end, unsigned long long *pgoff,
		      char **path)
{
	int path_at = 0;

	if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", start, end, pgoff,
		   &path_at) < 3 || !path_at)
		return false;
	*path = line + path_at;
	(*path)[strcspn(*path, "\n")] = '\0';
	return true;
}

int py_proc_probe(uint32_t pid, struct py_proc *out, struct error *e)
{
	char maps[96], exe[PATH_MAX], line[PATH_MAX + 128], last[PATH_MAX] = "";
	ssize_t n;
	FILE *fp;
	int found = 0;

	memset(out, 0, sizeof(*out));
	out->pid = pid;
	out->t.read = py_proc_read;
	out->t.read2 = py_proc_read2;
	/* its memory read through a live thread: a main thread that
	 * called pthread_exit has none (util/procdir.h) */
	procdir_mem_init(&out->mem, pid);
	out->t.arg = &out->mem;
	procdir_path(pid, "exe", maps, sizeof(maps));
	n = readlink(maps, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	procdir_path(pid, "maps", maps, sizeof(maps));
	fp = fopen(maps, "re");
	if (!fp)
		return error_errno(e, errno, "cannot read '%s'", maps);
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long start, end, pgoff;
		size_t path_len;
		char *path;

		if (!maps_line(line, &start, &end, &pgoff, &path))
			continue;
		/* the interpreter's mappings, one after another */
		if (found) {
			if (strcmp(path, out->path))
				break;
			out->hi = end;
			continue;
		}
		/* one probe per file: its first mapping */
		if (path[0] != '/' || !strcmp(path, last))
			continue;
		/* a bounded copy, not snprintf: with the sanitizers' checks
		 * at -O2, GCC takes path for NULL here and -Wformat-truncation
		 * stops the build */
		path_len = strnlen(path, sizeof(last) - 1);
		memcpy(last, path, path_len);
		last[path_len] = '\0';
		if (is_candidate(path, exe) &&
		    (found = probe_file(path, start, pgoff, out))) {
			out->lo = start;
			out->hi = end;
		}
	}
	fclose(fp);
	if (found && out->t.l) {
		uint64_t head = 0;

		out->initialized = !py_proc_read(out->t.arg, out->t.runtime +
			(uint64_t)out->t.l->rt_interp_head, &head,
			sizeof(head)) && head;
	}
	return found;
}

bool py_proc_is_libc(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5);
}

size_t py_proc_condwaits(uint32_t pid, uint64_t *lo, uint64_t *hi,
			 size_t max)
{
	/* each name twice: .dynsym has a default version and a compat one
	 * of each (pthread_cond_timedwait@@GLIBC_2.3.2 and @GLIBC_2.2.5),
	 * and elf_symbols gives a name's first definition to its first
	 * slot, the next one to the next slot */
	static const char *const names[] = {
		"pthread_cond_wait", "pthread_cond_wait",
		"pthread_cond_timedwait", "pthread_cond_timedwait",
		"pthread_cond_clockwait", "pthread_cond_clockwait",
	};
	enum { N = sizeof(names) / sizeof(names[0]) };
	uint64_t v[N] = { 0 }, sz[N] = { 0 }, bias;
	char maps[96], line[PATH_MAX + 128];
	size_t k = 0;
	FILE *fp;

	procdir_path(pid, "maps", maps, sizeof(maps));
	fp = fopen(maps, "re");
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long start, end, pgoff;
		char *path;

		if (!maps_line(line, &start, &end, &pgoff, &path) ||
		    path[0] != '/' || !py_proc_is_libc(path))
			continue;
		/* its first mapping: the bias of the whole file */
		if (!elf_symbols(path, names, N, v, sz, false, true) &&
		    !elf_bias(path, start, pgoff, &bias))
			for (size_t i = 0; i < N && k < max; i++)
				if (v[i] > 1 && sz[i]) {
					lo[k] = v[i] + bias;
					hi[k++] = v[i] + bias + sz[i];
				}
		break;
	}
	fclose(fp);
	return k;
}

int py_elf_imports(const char *path, const char *const *names, size_t n,
		   uint64_t *values, uint64_t *sizes)
{
	return elf_symbols(path, names, n, values, sizes, true, true);
}
