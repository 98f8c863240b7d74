/*
 * DWARF unwinding of sampled user stacks with libdwfl's frame API: the
 * engine behind symtab_unwind, which owns the mappings and hands this
 * module a process's files with their load biases.
 *
 * Design notes:
 *
 * 1. One Dwfl per process image: every file reported at its bias with
 *    dwfl_report_elf, then a process state attached (dwfl_attach_state)
 *    whose callbacks serve whichever sample is being unwound: the thread
 *    is the sample's, its registers the sample's (perf's numbering mapped
 *    to DWARF's), memory the stack copy [SP, SP + size), or, outside it,
 *    the mapped files' contents (code and read-only data are what a file
 *    holds; anything else is unknown). libdwfl walks the CFI (.eh_frame,
 *    else .debug_frame) and falls back to frame pointers where there is
 *    none.
 *
 * 2. The result is the sampled IP, then return addresses: callers look up
 *    every ip but the first with is_return (addr - 1). A frame interrupted
 *    by a signal holds the exact pc rather than a return address
 *    (dwfl_frame_pc says "activation"); it is returned as pc + 1 to keep
 *    that one rule.
 *
 * 3. The bias of a mapping (start, pgoff) of an ET_DYN file comes from the
 *    ELF's PT_LOAD headers: the segment whose file range (p_offset
 *    rounded down to a page, up to p_offset + p_filesz) holds pgoff puts
 *    file offset pgoff at p_vaddr - (p_offset - pgoff), which the kernel
 *    placed at start: bias = start - (p_vaddr - (p_offset - pgoff)).
 *    Executable segments win when two segments share a page. An ET_EXEC
 *    file is never moved: bias 0.
 *
 * 4. The vdso is no file. Every 64-bit process on a kernel gets the same
 *    image, so ours (getauxval(AT_SYSINFO_EHDR)) copied into a memfd
 *    stands in for the profiled one's, for its CFI and its symbols.
 */
#include <assert.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "profile/dwlib.h"
#include "profile/symcache.h"
#include "profile/sampler.h"
#include "profile/symbolize.h"
#include "util/fileio.h"
#include "util/strutil.h"

/* x86-64 DWARF register numbers of PERF_REG_X86_* (-1: none). */
static const int perf_to_dwarf[24] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, -1, -1, -1,	/* AX BX CX DX SI DI BP SP IP
						 * FLAGS CS SS */
	-1, -1, -1, -1,				/* DS ES FS GS */
	8, 9, 10, 11, 12, 13, 14, 15,		/* R8..R15 */
};
#define PERF_REG_SP 7
#define PERF_REG_IP 8
#define DWARF_NREGS 17			/* rax..r15, rip */
_Static_assert((SAMPLER_REGS >> 24) == 0 &&
	       (SAMPLER_REGS & (1ULL << PERF_REG_SP)) != 0 &&
	       (SAMPLER_REGS & (1ULL << PERF_REG_IP)) != 0,
	       "SAMPLER_REGS: general registers only, SP and IP included");

struct file {
	char *path;
	uint64_t bias;
	int fd;				/* for reads; -1 not open, -2 failed */
};

struct map {
	uint64_t start, end, pgoff;
	size_t file;
};

struct unwind {
	Dwfl *dwfl;
	unsigned refs;
	struct map *maps;		/* sorted by start */
	size_t nmaps;
	struct file *files;
	size_t nfiles;
	/* the sample being unwound, set by unwind_stack */
	pid_t tid;
	const uint64_t *regs;		/* indexed by PERF_REG_X86_* */
	const uint8_t *stack;
	size_t stack_size;
	uint64_t *ips;
	size_t n, max;
	bool past_copy;			/* a read of the stack above the copy
					 * failed: the walk ran out of it */
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind *u = arg;

	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

/* The word at addr of the file mapped there. */
static bool read_mapped(struct unwind *u, uint64_t addr, uint64_t *val)
{
	size_t lo = 0, hi = u->nmaps;
	const struct map *m;
	struct file *f;

	while (lo < hi) {	/* the first map starting after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (u->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr + sizeof(*val) > u->maps[lo - 1].end)
		return false;
	m = &u->maps[lo - 1];
	f = &u->files[m->file];
	if (f->fd == -1)
		f->fd = file_open_regular(f->path);
	if (f->fd < 0) {
		f->fd = -2;
		return false;
	}
	return pread(f->fd, val, sizeof(*val),
		     (off_t)(m->pgoff + (addr - m->start))) ==
	       (ssize_t)sizeof(*val);
}

#define STACK_REACH (64ULL << 20)

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct unwind *u = arg;
	uint64_t sp = u->regs[PERF_REG_SP], val;

	if (addr >= sp && u->stack_size >= sizeof(*result) &&
	    addr - sp <= u->stack_size - sizeof(*result)) {
		memcpy(result, u->stack + (addr - sp), sizeof(*result));
		return true;
	}
	if (!read_mapped(u, addr, &val)) {
		/* the stack goes on above the copy (a thread's stack is
		 * at most this far above its stack pointer) */
		if (addr >= sp && addr - sp < STACK_REACH)
			u->past_copy = true;
		return false;
	}
	*result = val;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind *u = arg;
	Dwarf_Word regs[DWARF_NREGS] = { 0 };

	for (size_t i = 0; i < 24; i++)
		if (perf_to_dwarf[i] >= 0)
			regs[perf_to_dwarf[i]] = u->regs[i];
	if (!dw.dwfl_thread_state_registers(thread, 0, DWARF_NREGS, regs))
		return false;
	dw.dwfl_thread_state_register_pc(thread, u->regs[PERF_REG_IP]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* The file of map m in u->files, added (and reported) if new: one per
 * path and bias. Consumes m->fd. */
static size_t add_file(struct unwind *u, const struct unwind_map *m,
		       size_t *reported)
{
	struct file *f;

	for (size_t i = 0; i < u->nfiles; i++) {
		if (u->files[i].bias == m->bias &&
		    !strcmp(u->files[i].path, m->path)) {
			if (m->fd >= 0)
				close(m->fd);
			return i;
		}
	}
	f = &u->files[u->nfiles];
	*f = (struct file){ .path = xstrdup(m->path), .bias = m->bias,
			    .fd = -1 };
	if (m->fd >= 0)
		f->fd = fcntl(m->fd, F_DUPFD_CLOEXEC, 0);
	/* Overlapping or unreadable files are left out: their frames end
	 * the walk, nothing else. */
	if (dw.dwfl_report_elf(u->dwfl, m->name, m->path, m->fd, m->bias, true))
		(*reported)++;
	else if (m->fd >= 0)
		close(m->fd);
	return u->nfiles++;
}

struct unwind *unwind_new(uint32_t pid, const struct unwind_map *maps,
			  size_t n)
{
	struct unwind *u = xcalloc(1, sizeof(*u));
	size_t reported = 0;

	u->refs = 1;
	u->maps = xcalloc(n ? n : 1, sizeof(*u->maps));
	u->files = xcalloc(n ? n : 1, sizeof(*u->files));
	u->dwfl = dw.dwfl_begin(&dwlib_process_callbacks);
	if (!u->dwfl) {
		for (size_t i = 0; i < n; i++)
			if (maps[i].fd >= 0)
				close(maps[i].fd);
		unwind_unref(u);
		return NULL;
	}
	dw.dwfl_report_begin(u->dwfl);
	for (size_t i = 0; i < n; i++) {
		assert(i == 0 || maps[i].start >= maps[i - 1].start);
		u->maps[i] = (struct map){
			.start = maps[i].start, .end = maps[i].end,
			.pgoff = maps[i].pgoff,
			.file = add_file(u, &maps[i], &reported),
		};
	}
	u->nmaps = n;
	if (dw.dwfl_report_end(u->dwfl, NULL, NULL) || !reported ||
	    !dw.dwfl_attach_state(u->dwfl, NULL, (pid_t)pid, &thread_callbacks,
			       u)) {
		unwind_unref(u);
		return NULL;
	}
	return u;
}

void unwind_ref(struct unwind *u)
{
	if (u)
		u->refs++;
}

void unwind_unref(struct unwind *u)
{
	if (!u || --u->refs)
		return;
	if (u->dwfl)
		dw.dwfl_end(u->dwfl);
	for (size_t i = 0; i < u->nfiles; i++) {
		if (u->files[i].fd >= 0)
			close(u->files[i].fd);
		free(u->files[i].path);
	}
	free(u->files);
	free(u->maps);
	free(u);
}

static int collect_frame(Dwfl_Frame *state, void *arg)
{
	struct unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dw.dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	if (u->n > 0 && activation)
		pc++;		/* note 2 */
	u->ips[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

size_t unwind_stack(struct unwind *u, uint32_t tid, const uint64_t *regs,
		    size_t nregs, const uint8_t *stack, size_t stack_size,
		    uint64_t *ips, size_t max, bool *cut)
{
	uint64_t perf_regs[24] = { 0 };
	size_t k = 0;

	*cut = true;
	if (!max || nregs < (size_t)__builtin_popcountll(SAMPLER_REGS))
		return 0;
	for (unsigned bit = 0; bit < 24; bit++)
		if (SAMPLER_REGS & (1ULL << bit))
			perf_regs[bit] = regs[k++];
	ips[0] = perf_regs[PERF_REG_IP];
	if (!u || max == 1)
		return 1;
	u->tid = tid ? (pid_t)tid : 1;
	u->regs = perf_regs;
	u->stack = stack;
	u->stack_size = stack ? stack_size : 0;
	u->ips = ips;
	u->n = 0;
	u->max = max;
	u->past_copy = false;
	/* The walk ends with an error at the outermost frame whatever
	 * happens: what was collected is the answer. */
	dw.dwfl_getthread_frames(u->dwfl, u->tid, collect_frame, u);
	u->regs = NULL;
	u->stack = NULL;
	u->ips = NULL;
	*cut = !u->n || u->n == max || u->past_copy;
	return u->n ? u->n : 1;
}

int unwind_bias(Elf *elf, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	struct elf_info info = { 0 };
	GElf_Phdr ph;
	GElf_Ehdr eh;
	size_t n;

	if (!dw.gelf_getehdr(elf, &eh) || dw.elf_getphdrnum(elf, &n))
		return -1;
	info.exec_type = eh.e_type == ET_EXEC;
	for (size_t i = 0; i < n && info.nloads < ELF_MAX_LOADS; i++)
		if (dw.gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			info.loads[info.nloads++] = (struct elf_load){
				ph.p_offset, ph.p_vaddr, ph.p_filesz,
				(ph.p_flags & PF_X) != 0 };
	return elf_load_bias(&info, start, pgoff, bias);
}

int unwind_vdso_image(void)
{
	const unsigned char *base;
	const Elf64_Ehdr *eh;
	size_t size, done = 0;
	int fd;

	base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	if (!base || memcmp(base, ELFMAG, SELFMAG))
		return -1;
	eh = (const Elf64_Ehdr *)base;
	/* the section headers come last in the image */
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || size > (1 << 20))
		return -1;
	fd = memfd_create("yardstick-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t w = write(fd, base + done, size - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	return fd;
}
