/*
 * Unit tests of src/profile/symbolize.c. Two sources of truth:
 * - the fixtures (tests/fixtures/symfix*.c*): programs that print their
 *   executable mappings and the addresses and __LINE__s of their own code;
 *   they have exited when we symbolize, as a profiled program has;
 * - this process itself: its /proc/self/maps fed in under getpid(), the
 *   addresses of its functions and libc's, and a stack sample of its own
 *   taken inside a chain of functions without frame pointers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "profile/rawstacks.h"
#include "profile/symcache.h"
#include "profile/sampler.h"
#include "profile/symbolize.h"
#include "util/strutil.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

/* A pid no live process has (the fixtures have exited anyway). */
#define FIX_PID 4190001u

/* Above any pid_max (2^22) and unique per test process, so that runs of
 * the plain and the sanitizer builds at once write different map files. */
static uint32_t jit_pid(void)
{
	return 5000000u + (uint32_t)getpid();
}

struct facts {
	uint64_t known, inline_pc, method;
	int inline_line, call_line;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* Run a fixture, feed its mappings to s under pid, return its facts. */
static void run_fixture(const char *name, struct symtab *s, uint32_t pid,
			struct facts *f)
{
	char cmd[PATH_MAX], line[4200], path[4096];
	unsigned long a, b, c;
	int nmaps = 0;
	FILE *fp;

	memset(f, 0, sizeof(*f));
	snprintf(cmd, sizeof(cmd), "%s/%s", FIXTURES_DIR, name);
	fp = popen(cmd, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "map %lx %lx %lx %4095[^\n]", &a, &b, &c,
			   path) == 4) {
			symtab_mmap(s, pid, a, b - a, c, path);
			nmaps++;
		} else if (sscanf(line, "known %lx", &a) == 1) {
			f->known = a;
		} else if (sscanf(line, "method %lx", &a) == 1) {
			f->method = a;
		} else if (sscanf(line, "inline %lx %d %d", &a, &f->inline_line,
				  &f->call_line) == 3) {
			f->inline_pc = a;
		}
	}
	assert_int_equal(pclose(fp), 0);
	assert_true(nmaps >= 2);
}

/* Feed this process's executable mappings under pid, as MMAP2 records
 * would. */
static void feed_self_but(struct symtab *s, uint32_t pid, uintptr_t lost);

static void feed_self(struct symtab *s, uint32_t pid)
{
	feed_self_but(s, pid, 0);
}

/* The executable mappings of this process, but the one holding lost
 * (its mmap record lost, as a reader that fell behind loses it; 0:
 * none). */
static void feed_self_but(struct symtab *s, uint32_t pid, uintptr_t lost)
{
	char line[4200], perms[8], path[4096];
	unsigned long start, end, off;
	FILE *fp = fopen("/proc/self/maps", "r");

	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095[^\n]", &start,
			   &end, perms, &off, path) < 4)
			continue;
		if (perms[2] == 'x' && !(lost >= start && lost < end))
			symtab_mmap(s, pid, start, end - start, off, path);
	}
	fclose(fp);
}

static const char *self_name(void)
{
	static char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	assert_true(n > 0);
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	return slash ? slash + 1 : exe;
}

static void test_known_function(void **state)
{
	const char *fixtures[] = { "symfix", "symfix_nopie" };

	for (size_t i = 0; i < 2; i++) {
		struct symtab *s = symtab_new(false);
		struct frame fr[8], again[8];
		struct facts f;

		run_fixture(fixtures[i], s, FIX_PID, &f);
		assert_int_equal(symtab_lookup(s, FIX_PID, f.known + 4, false,
					       fr, 8), 1);
		assert_string_equal(fr[0].function, "symfix_known");
		assert_string_equal(fr[0].module, fixtures[i]);
		assert_null(fr[0].file);
		assert_int_equal(fr[0].line, 0);
		assert_false(fr[0].inlined);
		assert_int_equal(fr[0].address, f.known + 4);
		/* a return address just past the entry is still inside */
		assert_int_equal(symtab_lookup(s, FIX_PID, f.known + 1, true,
					       again, 8), 1);
		assert_ptr_equal(again[0].function, fr[0].function);
		symtab_free(s);
	}
}

static void test_inline_frames(void **state)
{
	struct symtab *s = symtab_new(false);
	struct frame fr[8];
	struct facts f;

	run_fixture("symfix", s, FIX_PID, &f);
	assert_int_equal(symtab_lookup(s, FIX_PID, f.inline_pc, false, fr, 8),
			 2);
	assert_string_equal(fr[0].function, "symfix_square");
	assert_true(fr[0].inlined);
	assert_null(fr[0].file);
	assert_string_equal(fr[1].function, "symfix_outer");
	assert_false(fr[1].inlined);
	assert_string_equal(fr[1].module, "symfix");
	/* max 1 keeps the innermost */
	assert_int_equal(symtab_lookup(s, FIX_PID, f.inline_pc, false, fr, 1),
			 1);
	assert_string_equal(fr[0].function, "symfix_square");
	symtab_free(s);
}

/* With lines; symfix_noaranges is symfix without .debug_aranges, as
 * clang builds by default, where libdw 0.188 maps no address to a CU. */
static void test_inline_lines(void **state)
{
	const char *fixtures[] = { "symfix", "symfix_noaranges" };

	for (size_t i = 0; i < 2; i++) {
		struct symtab *s = symtab_new(true);
		struct frame fr[8];
		struct facts f;

		run_fixture(fixtures[i], s, FIX_PID, &f);
		assert_int_equal(f.inline_line, 36);	/* its own count */
		assert_int_equal(symtab_lookup(s, FIX_PID, f.inline_pc, false,
					       fr, 8), 2);
		assert_string_equal(fr[0].function, "symfix_square");
		assert_non_null(fr[0].file);
		assert_true(ends_with(fr[0].file, "/symfix.c"));
		assert_int_equal(fr[0].line, f.inline_line);
		assert_true(fr[0].inlined);
		assert_string_equal(fr[1].function, "symfix_outer");
		assert_non_null(fr[1].file);
		assert_true(ends_with(fr[1].file, "/symfix.c"));
		assert_int_equal(fr[1].line, f.call_line);
		assert_false(fr[1].inlined);
		symtab_free(s);
	}
}

static void test_cpp_demangled(void **state)
{
	struct symtab *s = symtab_new(true);
	struct frame fr[8];
	struct facts f;

	run_fixture("symfix_cpp", s, FIX_PID, &f);
	assert_int_equal(symtab_lookup(s, FIX_PID, f.method, false, fr, 8), 1);
	assert_string_equal(fr[0].function, "ns::Klass::method(int)");
	assert_string_equal(fr[0].module, "symfix_cpp");
	assert_non_null(fr[0].file);
	assert_true(ends_with(fr[0].file, "/symfix_cpp.cc"));
	symtab_free(s);
}

static void test_unknown(void **state)
{
	struct symtab *s = symtab_new(true);
	struct frame fr[4];
	struct facts f;

	run_fixture("symfix", s, FIX_PID, &f);
	assert_int_equal(symtab_lookup(s, FIX_PID, 0x1000, false, fr, 4), 1);
	assert_string_equal(fr[0].function, "[unknown]");
	assert_string_equal(fr[0].module, "[unknown]");
	assert_null(fr[0].file);
	/* a pid never seen */
	assert_int_equal(symtab_lookup(s, 77, f.known, false, fr, 4), 1);
	assert_string_equal(fr[0].function, "[unknown]");
	assert_string_equal(fr[0].module, "[unknown]");
	/* a file that cannot be read: its name, no function */
	symtab_mmap(s, 78, 0x400000, 0x1000, 0, "/nonexistent/libgone.so");
	assert_int_equal(symtab_lookup(s, 78, 0x400010, false, fr, 4), 1);
	assert_string_equal(fr[0].function, "[unknown]");
	assert_string_equal(fr[0].module, "libgone.so");
	symtab_free(s);
}

/*
 * The PLT of a program linked with -z ibtplt and lazy binding
 * (tests/fixtures/unkfix_ibt): the stubs that call out are in .plt.sec;
 * the first call of each goes through its lazy entry in .plt
 * (endbr64; push INDEX; jmp PLT0) and PLT0 to the loader. The lazy entry
 * is the function's stub too, named by its .rela.plt entry, INDEX; PLT0
 * is no function's (and never _init's, the symbol before: one sample of
 * a CI run was named so).
 */
static void test_plt_lazy(void **state)
{
	struct symtab *s = symtab_new(false);
	char path[PATH_MAX], want[160];
	struct frame fr[4];
	const uint64_t base = 0x555555554000ULL;

	char cmd[PATH_MAX + 64], line[512], name[128];
	size_t k = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/unkfix_ibt", FIXTURES_DIR);
	symtab_mmap(s, FIX_PID, base + 0x1000, 0x1000, 0x1000, path);
	/* each lazy entry: 16 bytes from 0x1030, in .rela.plt's order, as
	 * readelf lists it ("OFFSET INFO R_X86_64_JUMP_SLOT VALUE NAME") */
	snprintf(cmd, sizeof(cmd),
		 "readelf -rW '%s' | sed -n '/.rela.plt/,$p'", path);
	fp = popen(cmd, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "%*s %*s R_X86_64_JUMP_SLOT %*s %127[^@ +]",
			   name) == 1) {
			uint64_t a = 0x1030 + 0x10 * k++;

			snprintf(want, sizeof(want), "%s@plt", name);
			assert_int_equal(symtab_lookup(s, FIX_PID, base + a + 4,
						       false, fr, 4), 1);
			assert_string_equal(fr[0].function, want);
		}
	assert_int_equal(pclose(fp), 0);
	assert_int_equal(k, 6);
	assert_int_equal(symtab_lookup(s, FIX_PID, base + 0x1026, false, fr, 4),
			 1);
	print_message("# PLT0 %s\n", fr[0].function);
	assert_string_not_equal(fr[0].function, "_init");
	symtab_free(s);
}

/* symtab_each_module's callback: the paths met, in order. */
struct module_order {
	char paths[40][64];
	size_t n;
};

static void note_module(void *arg, const char *name, const char *path)
{
	struct module_order *o = arg;

	assert_true(o->n < 40);
	assert_non_null(strstr(path, name));
	snprintf(o->paths[o->n++], sizeof(o->paths[0]), "%s", path);
}

/*
 * The modules in the order of their paths, whatever the order they were
 * mapped in: what a caller makes of them (record's advice on a library,
 * which names one path of the case's module name) is the same on every
 * run, not the order of the modules' index, whose homes are keyed with
 * a secret drawn per process (util/hashmap.h, hash_secret).
 */
static void test_each_module_order(void **state)
{
	struct symtab *s = symtab_new(false);
	struct module_order o = { .n = 0 };

	(void)state;
	/* mapped in an order of their own: 7 is prime to 40 */
	for (unsigned i = 0; i < 40; i++) {
		char path[64];
		unsigned k = (i * 7) % 40;

		snprintf(path, sizeof(path), "/nonexistent/d%u/libm%02u.so",
			 k % 3, k);
		symtab_mmap(s, 90, 0x400000 + 0x10000 * (uint64_t)i, 0x1000,
			    0, path);
	}
	symtab_each_module(s, note_module, &o);
	assert_int_equal(o.n, 40);
	for (size_t i = 1; i < o.n; i++)
		assert_true(strcmp(o.paths[i - 1], o.paths[i]) < 0);
	symtab_free(s);
}

static void test_fork_exec_remap(void **state)
{
	struct symtab *s = symtab_new(false);
	struct frame fr[4];
	struct facts f;

	run_fixture("symfix", s, FIX_PID, &f);
	symtab_fork(s, FIX_PID + 1, FIX_PID);
	symtab_lookup(s, FIX_PID + 1, f.known, false, fr, 4);
	assert_string_equal(fr[0].function, "symfix_known");
	symtab_exec(s, FIX_PID + 1);
	symtab_lookup(s, FIX_PID + 1, f.known, false, fr, 4);
	assert_string_equal(fr[0].module, "[unknown]");
	symtab_lookup(s, FIX_PID, f.known, false, fr, 4);
	assert_string_equal(fr[0].function, "symfix_known");
	/* an anonymous mapping over the middle replaces that part only */
	symtab_mmap(s, FIX_PID, f.known, 16, 0, "//anon");
	symtab_lookup(s, FIX_PID, f.known + 4, false, fr, 4);
	assert_string_equal(fr[0].module, "[unknown]");
	symtab_lookup(s, FIX_PID, f.inline_pc, false, fr, 4);
	assert_string_equal(fr[1].function, "symfix_outer");
	symtab_free(s);
}

static void test_jit_map(void **state)
{
	struct symtab *s = symtab_new(true);
	const uint32_t jpid = jit_pid();
	char path[64];
	struct frame fr[4];
	FILE *fp;

	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", jpid);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("7f0000001000 100 LazyCompile:~add file.js:3\n"
	      "7f0000001100 80 jitted_two\n"
	      "garbage line\n"
	      "7f0000002000 10 Stub:CEntry\n", fp);
	assert_int_equal(fclose(fp), 0);
	symtab_mmap(s, jpid, 0x7f0000000000, 0x10000, 0, "//anon");

	symtab_lookup(s, jpid, 0x7f0000001010, false, fr, 4);
	assert_string_equal(fr[0].function, "LazyCompile:~add file.js:3");
	assert_string_equal(fr[0].module, "[jit]");
	assert_null(fr[0].file);
	symtab_lookup(s, jpid, 0x7f0000001100, false, fr, 4);
	assert_string_equal(fr[0].function, "jitted_two");
	/* a return address at the next symbol's start is the call's */
	symtab_lookup(s, jpid, 0x7f0000001100, true, fr, 4);
	assert_string_equal(fr[0].function, "LazyCompile:~add file.js:3");
	/* in no mapping at all, still in the map file */
	symtab_lookup(s, jpid, 0x7f000000200f, false, fr, 4);
	assert_string_equal(fr[0].function, "Stub:CEntry");
	symtab_lookup(s, jpid, 0x7f0000002010, false, fr, 4);
	assert_string_equal(fr[0].function, "[unknown]");
	assert_string_equal(fr[0].module, "[unknown]");
	symtab_lookup(s, jpid, 0x7f0000001180, false, fr, 4);
	assert_string_equal(fr[0].module, "[unknown]");
	unlink(path);
	symtab_free(s);
}

/* The function symtab gives for addr of jpid, with a fresh symtab (the
 * map is read once per process). */
static const char *jit_name(uint32_t jpid, uint64_t addr, char *buf,
			    size_t len)
{
	struct symtab *s = symtab_new(false);
	struct frame fr[1];

	symtab_mmap(s, jpid, 0x7f0000000000, 0x10000, 0, "//anon");
	symtab_lookup(s, jpid, addr, false, fr, 1);
	snprintf(buf, len, "%s", fr[0].function);
	symtab_free(s);
	return buf;
}

static void on_alarm(int sig)
{
	(void)sig;
	/* a blocked open of a FIFO: fail the test rather than hang it */
	_exit(97);
}

/*
 * A map file is opened without following symlinks and without blocking:
 * a FIFO (which would hang `record` for ever), a symlink to /dev/zero
 * (whose one endless line would grow to gigabytes), a file of another
 * user (who could name our symbols) or a hard link give no symbols; a
 * line too long is skipped, the lines around it kept; a file over 64 MiB
 * is ignored.
 */
static void test_jit_map_hostile(void **state)
{
	const uint32_t jpid = jit_pid();
	char path[64], name[256], *big;
	FILE *fp;

	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", jpid);
	signal(SIGALRM, on_alarm);
	alarm(20);
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_string_equal(jit_name(jpid, 0x7f0000001000, name,
				     sizeof(name)), "[unknown]");
	unlink(path);
	assert_int_equal(symlink("/dev/zero", path), 0);
	assert_string_equal(jit_name(jpid, 0x7f0000001000, name,
				     sizeof(name)), "[unknown]");
	unlink(path);
	alarm(0);

	/* a line over 4096 bytes between two good ones */
	big = xmalloc(10001);
	memset(big, 'x', 10000);
	big[10000] = '\0';
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "7f0000001000 100 before\n7f0000001100 100 %s\n"
		"7f0000001200 100 after\n7f0000001300 100 %s", big, big);
	assert_int_equal(fclose(fp), 0);
	free(big);
	assert_string_equal(jit_name(jpid, 0x7f0000001000, name,
				     sizeof(name)), "before");
	assert_string_equal(jit_name(jpid, 0x7f0000001100, name,
				     sizeof(name)), "[unknown]");
	assert_string_equal(jit_name(jpid, 0x7f0000001200, name,
				     sizeof(name)), "after");
	assert_string_equal(jit_name(jpid, 0x7f0000001300, name,
				     sizeof(name)), "[unknown]");

	/* over 64 MiB (sparse): ignored */
	assert_int_equal(truncate(path, 65 << 20), 0);
	assert_string_equal(jit_name(jpid, 0x7f0000001000, name,
				     sizeof(name)), "[unknown]");
	assert_int_equal(truncate(path, 0), 0);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("7f0000001000 100 injected\n", fp);
	assert_int_equal(fclose(fp), 0);
	if (geteuid() == 0) {
		char *hard = xasprintf("%s.link", path);

		/* another user's map */
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_string_equal(jit_name(jpid, 0x7f0000001000, name,
					     sizeof(name)), "[unknown]");
		assert_int_equal(chown(path, 0, 0), 0);
		assert_string_equal(jit_name(jpid, 0x7f0000001000, name,
					     sizeof(name)), "injected");
		/* a hard link (of some file of root's) */
		assert_int_equal(link(path, hard), 0);
		assert_string_equal(jit_name(jpid, 0x7f0000001000, name,
					     sizeof(name)), "[unknown]");
		unlink(hard);
		free(hard);
	}
	unlink(path);
}

static void test_self_and_libc(void **state)
{
	struct symtab *s = symtab_new(true);
	uint32_t pid = (uint32_t)getpid();
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	uint64_t addr;
	struct frame fr[8];
	size_t n;

	feed_self(s, pid);
	/* a function of this (PIE) program */
	addr = (uint64_t)(uintptr_t)&test_self_and_libc + 5;
	assert_int_equal(symtab_lookup(s, pid, addr, false, fr, 8), 1);
	assert_string_equal(fr[0].function, "test_self_and_libc");
	assert_string_equal(fr[0].module, self_name());
	assert_non_null(fr[0].file);
	assert_true(ends_with(fr[0].file, "/test_symbolize.c"));
	/* libc's malloc, not an interposer's: a shared library at a bias */
	assert_non_null(libc);
	addr = (uint64_t)(uintptr_t)dlsym(libc, "malloc");
	assert_true(addr != 0);
	n = symtab_lookup(s, pid, addr, false, fr, 8);
	assert_true(n >= 1);
	/* of the aliases malloc and __libc_malloc, perf's choice */
	assert_string_equal(fr[n - 1].function, "malloc");
	assert_string_equal(fr[n - 1].module, "libc.so.6");
	/* .symtab says "__libc_start_main@@GLIBC_2.34" */
	addr = (uint64_t)(uintptr_t)dlsym(libc, "__libc_start_main");
	n = symtab_lookup(s, pid, addr, false, fr, 8);
	assert_string_equal(fr[n - 1].function, "__libc_start_main");
	dlclose(libc);
	symtab_free(s);
}

/* The address of a dynamic symbol of our own vdso, read independently of
 * the symtab with libelf. 0 if there is no vdso. */
static uint64_t vdso_symbol(const char *want)
{
	const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)base;
	size_t size;
	char *copy;
	Elf *elf;
	Elf_Scn *scn = NULL;
	uint64_t addr = 0;

	if (!base)
		return 0;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	copy = malloc(size);
	assert_non_null(copy);
	memcpy(copy, base, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	assert_non_null(elf);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strcmp(name, want))
				addr = (uint64_t)(uintptr_t)base + sym.st_value;
		}
	}
	elf_end(elf);
	free(copy);
	return addr;
}

static void test_vdso(void **state)
{
	struct symtab *s = symtab_new(false);
	uint32_t pid = (uint32_t)getpid();
	uint64_t addr = vdso_symbol("__vdso_clock_gettime");
	struct frame fr[4];

	if (!addr) {
		symtab_free(s);
		skip();
	}
	feed_self(s, pid);
	assert_int_equal(symtab_lookup(s, pid, addr + 2, false, fr, 4), 1);
	assert_string_equal(fr[0].module, "[vdso]");
	assert_true(!strcmp(fr[0].function, "__vdso_clock_gettime") ||
		    !strcmp(fr[0].function, "clock_gettime"));
	symtab_free(s);
}

/*
 * A stack sample of this process. ys_regs_load stores the registers by
 * PERF_REG_X86_* index as they are once it has returned: IP is its return
 * address, SP the caller's stack pointer after the return.
 */
void ys_regs_load(uint64_t *regs);
__asm__(".text\n"
	".globl ys_regs_load\n"
	".hidden ys_regs_load\n"
	".type ys_regs_load, @function\n"
	"ys_regs_load:\n"
	"	movq %rax, 0(%rdi)\n"
	"	movq %rbx, 8(%rdi)\n"
	"	movq %rcx, 16(%rdi)\n"
	"	movq %rdx, 24(%rdi)\n"
	"	movq %rsi, 32(%rdi)\n"
	"	movq %rdi, 40(%rdi)\n"
	"	movq %rbp, 48(%rdi)\n"
	"	leaq 8(%rsp), %rax\n"
	"	movq %rax, 56(%rdi)\n"
	"	movq 0(%rsp), %rax\n"
	"	movq %rax, 64(%rdi)\n"
	"	movq $0, 72(%rdi)\n"
	"	movq $0, 80(%rdi)\n"
	"	movq $0, 88(%rdi)\n"
	"	movq $0, 96(%rdi)\n"
	"	movq $0, 104(%rdi)\n"
	"	movq $0, 112(%rdi)\n"
	"	movq $0, 120(%rdi)\n"
	"	movq %r8, 128(%rdi)\n"
	"	movq %r9, 136(%rdi)\n"
	"	movq %r10, 144(%rdi)\n"
	"	movq %r11, 152(%rdi)\n"
	"	movq %r12, 160(%rdi)\n"
	"	movq %r13, 168(%rdi)\n"
	"	movq %r14, 176(%rdi)\n"
	"	movq %r15, 184(%rdi)\n"
	"	ret\n"
	".size ys_regs_load, .-ys_regs_load\n");

struct capture {
	uint64_t perf_regs[24];
	uint64_t stack_end;		/* main's frame: live stack below */
	uint8_t stack[128 * 1024];
	size_t size;
};

/* Copy the live stack from SP up to main's frame (/proc/self/maps' [stack]
 * is the host's under valgrind), as the kernel does: word by word and
 * uninstrumented, since it crosses other frames' redzones. */
__attribute__((noinline, no_sanitize_address)) static void
copy_stack(struct capture *c)
{
	uint64_t sp = c->perf_regs[7];
	size_t n = c->stack_end - sp;
	const volatile uint64_t *src = (const volatile uint64_t *)sp;
	uint64_t *dst = (uint64_t *)c->stack;

	if (n > sizeof(c->stack))
		n = sizeof(c->stack);
	for (size_t i = 0; i < n / 8; i++)
		dst[i] = src[i];
	c->size = n / 8 * 8;
}

/* A call chain without frame pointers, no tail calls, no clones. */
#if defined(__GNUC__) && !defined(__clang__)
#define NOFP __attribute__((noinline, noipa, optimize("omit-frame-pointer")))
#else
#define NOFP __attribute__((noinline))
#endif
static volatile int chain_sink;

static NOFP int uw_f3(struct capture *c)
{
	ys_regs_load(c->perf_regs);
	copy_stack(c);
	return chain_sink + 3;
}

static NOFP int uw_f2(struct capture *c)
{
	return uw_f3(c) + chain_sink;
}

static NOFP int uw_f1(struct capture *c)
{
	return uw_f2(c) + chain_sink;
}

/* *state: main's frame address. */
static void test_unwind_self(void **state)
{
	static const char *const want[] = { "uw_f3", "uw_f2", "uw_f1",
					    "test_unwind_self" };
	struct symtab *s = symtab_new(false);
	uint32_t pid = (uint32_t)getpid();
	struct capture *c = calloc(1, sizeof(*c));
	uint64_t regs[64], ips[64];
	bool cut;
	size_t nregs = 0, n;
	struct frame fr[8];

	assert_non_null(c);
	feed_self(s, pid);
	c->stack_end = *(const uint64_t *)*state;
	assert_int_equal(uw_f1(c), 3);
	for (unsigned bit = 0; bit < 64; bit++)
		if (SAMPLER_REGS & (1ULL << bit))
			regs[nregs++] = bit < 24 ? c->perf_regs[bit] : 0;
	n = symtab_unwind(s, pid, regs, nregs, c->stack, c->size, ips, 64, &cut);
	assert_true(n >= 4);
	for (size_t i = 0; i < 4; i++) {
		size_t k = symtab_lookup(s, pid, ips[i], i > 0, fr, 8);

		assert_string_equal(fr[k - 1].function, want[i]);
	}
	assert_int_equal(ips[0], c->perf_regs[8]);
	/* a sample with too few registers is refused; max 1 is the IP */
	/* the copy ends at main's frame: the walk ran out of it */
	assert_true(cut);
	assert_int_equal(symtab_unwind(s, pid, regs, 3, c->stack, c->size,
				       ips, 64, &cut), 0);
	assert_true(cut);
	assert_int_equal(symtab_unwind(s, pid, regs, nregs, c->stack, c->size,
				       ips, 1, &cut), 1);
	assert_true(cut);
	/* without the stack: the IP, then whatever the registers give */
	assert_true(symtab_unwind(s, pid, regs, nregs, NULL, 0, ips, 64,
				  &cut) >= 1);
	assert_int_equal(ips[0], c->perf_regs[8]);
	free(c);
	symtab_free(s);
}

/* uw_f1 on a thread of its own, its whole stack copied: stack_end is the
 * top of the thread's stack mapping. */
static void *cut_thread(void *arg)
{
	struct capture *c = arg;
	pthread_attr_t a;
	void *lo;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &a))
		return NULL;
	pthread_attr_getstack(&a, &lo, &size);
	pthread_attr_destroy(&a);
	c->stack_end = (uint64_t)(uintptr_t)lo + size;
	uw_f1(c);
	return c;
}

/*
 * Whether a walk stopped short of the thread's outermost frame: not when
 * the copy holds the thread's whole stack (the walk ends at its first
 * frame, whose unwind rule says it has no caller); when the copy ends
 * before that, and when the walk reaches max.
 */
static void test_unwind_cut(void **state)
{
	static const char *const want[] = { "uw_f3", "uw_f2", "uw_f1",
					    "cut_thread" };
	struct symtab *s = symtab_new(false);
	uint32_t pid = (uint32_t)getpid();
	struct capture *c = calloc(1, sizeof(*c));
	uint64_t regs[64], ips[64];
	size_t nregs = 0, n, whole;
	struct frame fr[8];
	pthread_t th;
	void *ret = NULL;
	bool cut;

	(void)state;
	assert_non_null(c);
	feed_self(s, pid);
	assert_int_equal(pthread_create(&th, NULL, cut_thread, c), 0);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_ptr_equal(ret, c);
	/* the copy holds it all */
	assert_int_equal(c->size, (c->stack_end - c->perf_regs[7]) / 8 * 8);
	for (unsigned bit = 0; bit < 64; bit++)
		if (SAMPLER_REGS & (1ULL << bit))
			regs[nregs++] = bit < 24 ? c->perf_regs[bit] : 0;
	whole = symtab_unwind(s, pid, regs, nregs, c->stack, c->size, ips, 64,
			      &cut);
	assert_true(whole >= 5);
	for (size_t i = 0; i < 4; i++) {
		size_t k = symtab_lookup(s, pid, ips[i], i > 0, fr, 8);

		assert_string_equal(fr[k - 1].function, want[i]);
	}
	assert_false(cut);
	/* at max */
	assert_int_equal(symtab_unwind(s, pid, regs, nregs, c->stack, c->size,
				       ips, whole - 1, &cut), whole - 1);
	assert_true(cut);
	assert_int_equal(symtab_unwind(s, pid, regs, nregs, c->stack, c->size,
				       ips, whole, &cut), whole);
	assert_true(cut);
	/* the copy ends in uw_f3's frame */
	n = symtab_unwind(s, pid, regs, nregs, c->stack, 16, ips, 64, &cut);
	assert_true(n < whole);
	assert_true(cut);
	free(c);
	symtab_free(s);
}

/*
 * The same stack, with the mmap record of the test's own code lost: the
 * unwinder stops at the first address no mapping holds, reads the maps
 * again and unwinds it whole (before, the stack was that one address);
 * not when the process is no longer the image the symtab knows.
 */
static void test_unwind_lost_mmap(void **state)
{
	static const char *const want[] = { "uw_f3", "uw_f2", "uw_f1",
					    "test_unwind_lost_mmap" };
	struct symtab *s = symtab_new(false);
	uint32_t pid = (uint32_t)getpid();
	struct capture *c = calloc(1, sizeof(*c));
	uint64_t regs[64], ips[64];
	bool cut;
	size_t nregs = 0, n;
	struct frame fr[8];

	assert_non_null(c);
	feed_self_but(s, pid, (uintptr_t)uw_f3);
	c->stack_end = *(const uint64_t *)*state;
	assert_int_equal(uw_f1(c), 3);
	for (unsigned bit = 0; bit < 64; bit++)
		if (SAMPLER_REGS & (1ULL << bit))
			regs[nregs++] = bit < 24 ? c->perf_regs[bit] : 0;
	n = symtab_unwind(s, pid, regs, nregs, c->stack, c->size, ips, 64, &cut);
	assert_true(n >= 4);
	for (size_t i = 0; i < 4; i++) {
		size_t k = symtab_lookup(s, pid, ips[i], i > 0, fr, 8);

		assert_string_equal(fr[k - 1].function, want[i]);
	}
	symtab_free(s);
	/* a file mapping the process no longer has (it exec'd since the
	 * sample, say): its maps now are another image's, not added (the
	 * unwind itself may go on by the frame pointers: a sanitized build
	 * keeps them) */
	s = symtab_new(false);
	feed_self_but(s, pid, (uintptr_t)uw_f3);
	symtab_mmap(s, pid, 0x10000, 0x1000, 0, "/usr/bin/true");
	symtab_unwind(s, pid, regs, nregs, c->stack, c->size, ips, 64, &cut);
	n = symtab_lookup(s, pid, (uint64_t)(uintptr_t)uw_f3, false, fr, 8);
	assert_true(n >= 1);
	assert_string_not_equal(fr[n - 1].function, "uw_f3");
	free(c);
	symtab_free(s);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* 1,000,000 lookups of 5,000 distinct addresses of libc (with lines). */
static void test_lookup_speed(void **state)
{
	enum { DISTINCT = 5000, LOOKUPS = 1000000 };
	struct symtab *s = symtab_new(true);
	uint32_t pid = (uint32_t)getpid();
	uint64_t *addrs = calloc(DISTINCT, sizeof(*addrs));
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	uint64_t base = (uint64_t)(uintptr_t)dlsym(libc, "malloc");
	struct frame fr[8];
	size_t unknown = 0;
	double t0, t1, t2;

	assert_non_null(addrs);
	feed_self(s, pid);
	/* 5,000 addresses 97 bytes apart around malloc: inside libc text */
	for (size_t i = 0; i < DISTINCT; i++)
		addrs[i] = base - DISTINCT / 2 * 97 + i * 97;
	t0 = now();
	for (size_t i = 0; i < DISTINCT; i++) {
		symtab_lookup(s, pid, addrs[i], true, fr, 8);
		unknown += !strcmp(fr[0].function, "[unknown]");
	}
	t1 = now();
	for (size_t i = 0; i < LOOKUPS; i++)
		symtab_lookup(s, pid, addrs[(i * 7919) % DISTINCT], true, fr,
			      8);
	t2 = now();
	print_message("symbolize: %d distinct libc addresses resolved in "
		      "%.3f s (%zu unknown); %d lookups in %.3f s\n",
		      DISTINCT, t1 - t0, unknown, LOOKUPS, t2 - t1);
	/* how many are unknown depends on libc's debug symbols (libc6-dbg):
	 * only exported functions are named without them */
	assert_true(unknown < DISTINCT);
	/* a bound that catches a complexity blow-up, not a speed target:
	 * speed is measured in bench/, never asserted in a test */
	assert_true(t2 - t1 < 60.0);
	dlclose(libc);
	free(addrs);
	symtab_free(s);
}

/* The folded text of p's samples. */
static char *folded_of(const struct profile *p)
{
	char path[] = "/tmp/ys-folded-XXXXXX", *text;
	struct error e;
	int fd = mkstemp(path);
	FILE *fp;
	long n;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(profile_write_folded(p, 0, path, &e), 0);
	fp = fopen(path, "r");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	text = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(text, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	unlink(path);
	return text;
}

/* A stack deeper than rawstacks keeps (512): its innermost 511 frames and
 * a [truncated] root, not a false root at the 512th. */
static void test_rawstacks_truncated(void **state)
{
	static const struct sample_type types[] = {
		{ "samples", "count" }, { "cpu", "nanoseconds" } };
	struct symtab *s = symtab_new(false);
	struct rawstacks *r = rawstacks_new();
	uint32_t pid = (uint32_t)getpid();
	uint64_t ips[600], base = (uint64_t)(uintptr_t)&test_rawstacks_truncated;
	struct profile got;
	char *g, *root;
	size_t frames = 1;

	(void)state;
	feed_self(s, pid);
	profile_init(&got, types, 2);
	for (size_t i = 0; i < 600; i++)
		ips[i] = base + i % 7;
	rawstacks_add(r, pid, ips, 600, 10);
	rawstacks_add(r, pid, ips, 100, 10);
	rawstacks_flush(r, 0, 1, s, &got);
	g = folded_of(&got);
	/* two stacks: the deep one under [truncated], 512 frames in all
	 * (inline frames aside, one per address here); the other whole */
	root = strstr(g, SYMTAB_TRUNCATED ";");
	assert_non_null(root);
	assert_true(root == g || root[-1] == '\n');
	for (const char *q = root; *q && *q != ' '; q++)
		frames += *q == ';';
	assert_int_equal(frames, 512);
	assert_int_equal(strstr(root + 1, SYMTAB_TRUNCATED) == NULL, 1);
	free(g);
	profile_free(&got);
	rawstacks_free(r);
	symtab_free(s);
}

/* rawstacks: a flush of one pid keeps the others' chains (moved in the
 * pool) for a later flush, and a chain added again after it is the same
 * entry; what comes out is what symbolizing each sample gives. */
static void test_rawstacks_flush(void **state)
{
	static const struct sample_type types[] = {
		{ "samples", "count" }, { "cpu", "nanoseconds" } };
	struct symtab *s = symtab_new(false);
	struct rawstacks *r = rawstacks_new();
	uint32_t pid = (uint32_t)getpid(), other = pid + 7, ids[64];
	uint64_t base = (uint64_t)(uintptr_t)&test_rawstacks_flush;
	uint64_t lc = (uint64_t)(uintptr_t)&qsort;
	struct profile got[2], want[2];
	struct stackframes *c[2];
	unsigned x = 3;
	char *g, *w;

	(void)state;
	feed_self(s, pid);
	feed_self(s, other);
	for (int i = 0; i < 2; i++) {
		profile_init(&got[i], types, 2);
		profile_init(&want[i], types, 2);
		c[i] = stackframes_new(s, &want[i], 32);
	}
	for (int round = 0; round < 2; round++) {
		for (int k = 0; k < 300; k++) {
			uint64_t ips[5];
			size_t n = 1 + (size_t)k % 5, depth;
			uint32_t who = k % 3 ? other : pid;
			int64_t v[2] = { 1, 10 };

			x = x * 1103515245 + 12345;
			for (size_t i = 0; i < n; i++)
				ips[i] = ((x >> (i * 3)) & 1 ? base : lc) +
					 ((x >> (i * 5 + 8)) % 7);
			/* the first round's pid goes in the first flush,
			 * everything else in the second */
			rawstacks_add(r, who, ips, n, 10);
			depth = stackframes_ids(c[round || who != pid], who,
						ips, n, false, 1, ids, 64);
			profile_add(&want[round || who != pid], ids, depth, v);
		}
		if (round == 0)
			rawstacks_flush(r, pid, 0, s, &got[0]);
	}
	rawstacks_flush(r, 0, 1, s, &got[1]);
	for (int i = 0; i < 2; i++) {
		g = folded_of(&got[i]);
		w = folded_of(&want[i]);
		assert_true(strlen(w) > 100);
		assert_string_equal(g, w);
		free(g);
		free(w);
		stackframes_free(c[i]);
		profile_free(&got[i]);
		profile_free(&want[i]);
	}
	rawstacks_free(r);
	symtab_free(s);
}

/* An exec'ed image's stacks, kept under symtab_retire's id, are named
 * after the run by the old mappings, whatever the pid maps since; each
 * retirement has its own id, above every pid. */
static void test_retire(void **state)
{
	static const struct sample_type types[] = {
		{ "samples", "count" }, { "cpu", "nanoseconds" } };
	struct symtab *s = symtab_new(false);
	struct rawstacks *r = rawstacks_new();
	struct profile got;
	struct frame fr[4];
	struct facts f;
	uint32_t id, id2;
	uint64_t ips[2];
	char *g;

	(void)state;
	run_fixture("symfix", s, FIX_PID, &f);
	symtab_fork(s, FIX_PID + 1, FIX_PID);
	ips[0] = f.known;
	ips[1] = f.known + 1;	/* a return address: symfix_known again */
	rawstacks_add(r, FIX_PID + 1, ips, 2, 10);
	rawstacks_add(r, FIX_PID, ips, 1, 10);
	id = symtab_retire(s, FIX_PID + 1);
	rawstacks_rename(r, FIX_PID + 1, id);
	assert_true(id >= SYMTAB_RETIRED);
	/* the new image maps other things where the old code was */
	symtab_mmap(s, FIX_PID + 1, f.known & ~0xfffULL, 0x100000, 0, "//anon");
	symtab_lookup(s, FIX_PID + 1, f.known, false, fr, 4);
	assert_string_equal(fr[0].module, "[unknown]");
	/* the same chain under the pid again is a new entry */
	rawstacks_add(r, FIX_PID + 1, ips, 2, 10);
	id2 = symtab_retire(s, FIX_PID + 1);
	assert_true(id2 != id && id2 >= SYMTAB_RETIRED);
	rawstacks_rename(r, FIX_PID + 1, id2);
	/* a pid never seen retires to an id that names nothing */
	assert_true(symtab_retire(s, 77) > id2);
	profile_init(&got, types, 2);
	rawstacks_flush(r, 0, 1, s, &got);
	g = folded_of(&got);
	assert_non_null(strstr(g, "symfix_known;symfix_known 1\n"));
	assert_non_null(strstr(g, "[unknown];[unknown] 1\n"));
	assert_non_null(strstr(g, "\nsymfix_known 1\n") ||
			!strncmp(g, "symfix_known 1\n", 15));
	free(g);
	profile_free(&got);
	rawstacks_free(r);
	symtab_free(s);
}

/* symtab_if_named: an address shown only if named, else its stand-in
 * (or nothing), decided at lookup; a run of one stand-in shows once */
static void test_if_named(void **state)
{
	static const struct sample_type types[] = {
		{ "samples", "count" }, { "cpu", "nanoseconds" } };
	struct symtab *s = symtab_new(false);
	struct profile p;
	struct stackframes *c;
	struct frame fr[4];
	struct facts f;
	uint32_t ids[16];
	uint64_t st, gone = 0x400010, chain[6];
	size_t n;
	char *g;

	(void)state;
	run_fixture("symfix", s, FIX_PID, &f);
	symtab_mmap(s, FIX_PID, 0x400000, 0x1000, 0, "/nonexistent/libgone.so");
	st = symtab_synth(s, &(struct frame){ .function = "[stand-in]",
					      .module = "libgone.so" });
	/* named: as is */
	n = symtab_lookup(s, FIX_PID, symtab_if_named(f.known, st), false, fr, 4);
	assert_int_equal(n, 1);
	assert_string_equal(fr[0].function, "symfix_known");
	assert_int_equal(fr[0].address, f.known);
	/* unnamed: the stand-in, or nothing */
	n = symtab_lookup(s, FIX_PID, symtab_if_named(gone, st), false, fr, 4);
	assert_int_equal(n, 1);
	assert_string_equal(fr[0].function, "[stand-in]");
	assert_int_equal(symtab_lookup(s, FIX_PID, symtab_if_named(gone, 0),
				       false, fr, 4), 0);
	/* what does not fit is left as it is */
	assert_int_equal(symtab_if_named(1ULL << 50, st), 1ULL << 50);
	assert_int_equal(symtab_if_named(gone, 12345), gone);
	/* leaf first: two unnamed, named, unnamed, unnamed dropped, named */
	chain[0] = symtab_if_named(gone, st);
	chain[1] = symtab_if_named(gone + 8, st);
	chain[2] = symtab_if_named(f.known + 1, st);
	chain[3] = symtab_if_named(gone + 16, st);
	chain[4] = symtab_if_named(gone + 24, 0);
	chain[5] = f.known + 1;
	profile_init(&p, types, 2);
	c = stackframes_new(s, &p, 8);
	n = stackframes_ids(c, FIX_PID, chain, 6, false, 1, ids, 16);
	assert_int_equal(n, 4);
	profile_add(&p, ids, n, (int64_t[]){ 1, 10 });
	g = folded_of(&p);
	assert_string_equal(g, "symfix_known;[stand-in];symfix_known;"
			       "[stand-in] 1\n");
	free(g);
	stackframes_free(c);
	profile_free(&p);
	symtab_free(s);
}

/* The frames of addr as one line of text, for comparing. */
static void frames_text(struct symtab *s, uint32_t pid, uint64_t addr,
			bool is_return, char *out, size_t size)
{
	struct frame fr[32];
	size_t n = symtab_lookup(s, pid, addr, is_return, fr, 32), at = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && at < size; i++)
		at += (size_t)snprintf(out + at, size - at, "%s|%s|%d|%s|%d;",
				       fr[i].function,
				       fr[i].file ? fr[i].file : "-",
				       fr[i].line, fr[i].module, fr[i].inlined);
}

/* With the disk cache: the same frames from a cold cache (libdw), a warm
 * one (the cache file alone) and none, for a PIE and a non-PIE fixture
 * (their biases found without libdw when the cache is warm), inlined
 * frames, lines or not, and libc. */
static void test_disk_cache(void **state)
{
	const char *fixtures[] = { "symfix", "symfix_nopie" };
	char dir[] = "/tmp/ys-symcache-XXXXXX", want[6][2048], got[2048];
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	uint64_t lib[3] = {
		(uint64_t)(uintptr_t)dlsym(libc, "malloc") + 3,
		(uint64_t)(uintptr_t)dlsym(libc, "qsort") + 9,
		(uint64_t)(uintptr_t)dlsym(libc, "__libc_start_main") + 1,
	};
	uint32_t pid = (uint32_t)getpid();

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (int lines = 0; lines < 2; lines++)
	for (size_t i = 0; i < 2; i++)
	for (int pass = 0; pass < 3; pass++) {
		/* pass 0: no cache; 1: cold (written); 2: warm (read) */
		struct symtab *s = symtab_new(lines);
		struct facts f;
		uint64_t addrs[3];

		if (pass)
			symtab_use_cache(s, dir);
		run_fixture(fixtures[i], s, FIX_PID, &f);
		feed_self(s, pid);
		addrs[0] = f.known;
		addrs[1] = f.inline_pc;
		addrs[2] = f.method;
		for (size_t k = 0; k < 6; k++) {
			uint32_t p = k < 3 ? FIX_PID : pid;
			uint64_t a = k < 3 ? addrs[k] : lib[k - 3];
			char *dst = pass ? got : want[k];

			if (!a)
				continue;
			frames_text(s, p, a, k == 5, dst, sizeof(got));
			if (pass)
				assert_string_equal(got, want[k]);
		}
		symtab_free(s);
		/* the files are there after the cold pass */
		if (pass == 1) {
			char cmd[200];

			snprintf(cmd, sizeof(cmd), "ls %s/*-%c.sym >/dev/null",
				 dir, lines ? 'l' : 'f');
			assert_int_equal(system(cmd), 0);
		}
	}
	{
		char cmd[200];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
	}
	dlclose(libc);
}

/* stackframes_ids, which interns each address's frames once, gives the
 * frame ids, the counts of frames and of unknown frames of a lookup of
 * every address, also when max cuts a stack inside an inline chain. */
static void test_stackframes(void **state)
{
	static const struct sample_type types[] = { { "samples", "count" } };
	struct symtab *s = symtab_new(true);
	uint32_t pid = (uint32_t)getpid();
	struct profile want, got;
	struct frame fr[32];
	struct stackframes *c;
	uint64_t ips[6];
	uint32_t ids[64], wids[64];
	unsigned x = 7;

	(void)state;
	feed_self(s, pid);
	profile_init(&want, types, 1);
	profile_init(&got, types, 1);
	c = stackframes_new(s, &got, 32);
	for (int k = 0; k < 400; k++) {
		size_t n = 1 + k % 6, max = 1 + k % 9, depth = 0, gd;
		bool all_return = k % 3 == 0;

		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245 + 12345;
			/* this program, libc, unmapped memory */
			ips[i] = (x >> 9) % 3 == 0 ? 0x10 + (x >> 20) % 4
				 : (x >> 9) % 3 == 1
				 ? (uint64_t)(uintptr_t)&test_stackframes +
					   (x >> 20) % 64
				 : (uint64_t)(uintptr_t)&malloc + (x >> 20) % 64;
		}
		for (size_t i = 0; i < n && depth < max; i++) {
			size_t m = symtab_lookup(s, pid, ips[i],
						 all_return || i > 0, fr, 32);

			for (size_t j = 0; j < m && depth < max; j++) {
				wids[depth++] = profile_frame(&want, &fr[j]);
				want.total_frames += 3;
				if (!strcmp(fr[j].function, "[unknown]"))
					want.unknown_frames += 3;
			}
		}
		gd = stackframes_ids(c, pid, ips, n, all_return, 3, ids, max);
		assert_int_equal(gd, depth ? depth : 1);
		for (size_t d = 0; d < depth; d++)
			assert_string_equal(got.frames[ids[d]].function,
					    want.frames[wids[d]].function);
	}
	assert_int_equal(got.total_frames, want.total_frames);
	assert_int_equal(got.unknown_frames, want.unknown_frames);
	assert_true(got.unknown_frames > 0);
	assert_int_equal(got.nframes, want.nframes);
	stackframes_free(c);
	profile_free(&want);
	profile_free(&got);
	symtab_free(s);
}

/* Write a file of size bytes into dir, last used at the given second. */
static void cache_file(const char *dir, const char *name, size_t size,
		       time_t used)
{
	char path[300], *buf = calloc(1, size + 1);
	struct timespec ts[2] = { { used, 0 }, { used, 0 } };
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, size, f), size);
	fclose(f);
	free(buf);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static bool cache_has(const char *dir, const char *name)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* The cache's bound: over it, the least recently used files go first,
 * down to 3/4 of the bound; the file just written stays even when it is
 * the oldest; under the bound nothing goes; a killed writer's temporary
 * file goes after an hour, not before; other files are not touched. And
 * YARDSTICK_CACHE_MAX's forms. */
static void test_cache_trim(void **state)
{
	char dir[] = "/tmp/ys-symtrim-XXXXXX", text[512];
	time_t now = time(NULL);
	int dfd, saved;
	FILE *told;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	/* 10 files of 1000 B, a.sym the oldest ... j.sym the newest */
	for (int i = 0; i < 10; i++) {
		char name[16];

		snprintf(name, sizeof(name), "%c-f.sym", 'a' + i);
		cache_file(dir, name, 1000, now - 10000 + i * 100);
	}
	cache_file(dir, "notes.txt", 50000, now - 90000);
	cache_file(dir, ".x-f.sym.123.tmp", 10, now - 7200);
	cache_file(dir, ".y-f.sym.124.tmp", 10, now - 60);
	/* under the bound: only the stale temporary file goes */
	assert_int_equal(symcache_trim(dfd, 10000, NULL), 1);
	assert_false(cache_has(dir, ".x-f.sym.123.tmp"));
	assert_true(cache_has(dir, ".y-f.sym.124.tmp"));
	for (int i = 0; i < 10; i++) {
		char name[16];

		snprintf(name, sizeof(name), "%c-f.sym", 'a' + i);
		assert_true(cache_has(dir, name));
	}
	/* a bound of 8000: down to 6000, the four oldest go, but not b,
	 * the one just written: a, c, d, e */
	assert_int_equal(symcache_trim(dfd, 8000, "b-f.sym"), 4);
	for (int i = 0; i < 10; i++) {
		char name[16];

		snprintf(name, sizeof(name), "%c-f.sym", 'a' + i);
		assert_int_equal(cache_has(dir, name),
				 !strchr("acde", 'a' + i));
	}
	assert_true(cache_has(dir, "notes.txt"));
	/* a use refreshes: f becomes the newest, so g goes before it */
	cache_file(dir, "f-f.sym", 1000, now);
	assert_int_equal(symcache_trim(dfd, 5000, NULL), 3);
	assert_true(cache_has(dir, "f-f.sym"));
	assert_false(cache_has(dir, "b-f.sym"));
	assert_false(cache_has(dir, "g-f.sym"));
	assert_false(cache_has(dir, "h-f.sym"));
	assert_true(cache_has(dir, "i-f.sym"));
	close(dfd);

	setenv("YARDSTICK_CACHE_MAX", "4096", 1);
	assert_int_equal(symcache_max_bytes(), 4096);
	setenv("YARDSTICK_CACHE_MAX", "3k", 1);
	assert_int_equal(symcache_max_bytes(), 3072);
	setenv("YARDSTICK_CACHE_MAX", "2G", 1);
	assert_int_equal(symcache_max_bytes(), (uint64_t)2 << 30);
	setenv("YARDSTICK_CACHE_MAX", "0", 1);
	assert_int_equal(symcache_max_bytes(), 0);
	/* not a size: the default, and a warning (once) that says so */
	fflush(stderr);
	saved = dup(2);
	told = tmpfile();
	assert_non_null(told);
	dup2(fileno(told), 2);
	setenv("YARDSTICK_CACHE_MAX", "12x", 1);
	assert_int_equal(symcache_max_bytes(), SYMCACHE_DEFAULT_MAX);
	setenv("YARDSTICK_CACHE_MAX", "-5", 1);
	assert_int_equal(symcache_max_bytes(), SYMCACHE_DEFAULT_MAX);
	setenv("YARDSTICK_CACHE_MAX", "5MB", 1);
	assert_int_equal(symcache_max_bytes(), SYMCACHE_DEFAULT_MAX);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(told);
	n = fread(text, 1, sizeof(text) - 1, told);
	text[n] = '\0';
	fclose(told);
	assert_non_null(strstr(text, "YARDSTICK_CACHE_MAX: expected bytes, "
				     "or a number with K, M or G, got '12x'"));
	assert_null(strstr(strstr(text, "got") + 1, "got"));
	unsetenv("YARDSTICK_CACHE_MAX");
	assert_int_equal(symcache_max_bytes(), SYMCACHE_DEFAULT_MAX);
	assert_int_equal(system("rm -rf /tmp/ys-symtrim-*"), 0);
}

int main(void)
{
	uint64_t main_frame = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_function),
		cmocka_unit_test(test_inline_frames),
		cmocka_unit_test(test_inline_lines),
		cmocka_unit_test(test_cpp_demangled),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_plt_lazy),
		cmocka_unit_test(test_fork_exec_remap),
		cmocka_unit_test(test_jit_map),
		cmocka_unit_test(test_jit_map_hostile),
		cmocka_unit_test(test_self_and_libc),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test_prestate(test_unwind_self, &main_frame),
		cmocka_unit_test_prestate(test_unwind_lost_mmap, &main_frame),
		cmocka_unit_test(test_unwind_cut),
		cmocka_unit_test(test_lookup_speed),
		cmocka_unit_test(test_stackframes),
		cmocka_unit_test(test_disk_cache),
		cmocka_unit_test(test_cache_trim),
		cmocka_unit_test(test_rawstacks_flush),
		cmocka_unit_test(test_rawstacks_truncated),
		cmocka_unit_test(test_retire),
		cmocka_unit_test(test_if_named),
		cmocka_unit_test(test_each_module_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
