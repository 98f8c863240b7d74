/*
 * libFuzzer target of the readers of a Python interpreter's memory
 * (src/profile/python.c's walker, through the read callbacks
 * python_proc.c gives it, and pystacks.c, which merges what it reads into
 * native stacks): that memory is another process's, which changes under
 * the walk or was never an interpreter's, so any bytes there must give
 * frames or a walk error, never a fault, a hang or an unbounded
 * allocation. The fuzz bytes are the remote memory.
 *
 * Input: byte 0 the version (% 3: 3.11, 3.12, 3.13); byte 1 flags (bit 0:
 * two ranges a read, as process_vm_readv does, py_read2_fn; bit 1: the
 * native chain cut short; bits 2-3: its evaluation frames; bit 4: off-CPU
 * samples); the rest the memory at PY_BASE, _PyRuntime at its start.
 * The type objects are at fixed addresses outside it (PY_*_TYPE), the
 * interpreter's file at [PY_FILE_LO, PY_FILE_HI), its evaluation loop at
 * [PY_EVAL_LO, PY_EVAL_HI). tests/fuzz/seed_python_walk.c lays out the
 * seeds: a thread running three frames, the outermost
 * threading.Thread._bootstrap with a name. Built with -DFUZZ_SHOW (by
 * hand), the target prints the frames, lines and report it read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile/pystacks.h"
#include "profile/python_proc.h"
#include "profile/symbolize.h"

#include "fuzz_python.h"

struct mem {
	const uint8_t *p;
	size_t n;
};

static int mem_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct mem *m = arg;

	if (addr < PY_BASE || addr - PY_BASE > m->n ||
	    len > m->n - (addr - PY_BASE))
		return -1;
	memcpy(buf, m->p + (addr - PY_BASE), len);
	return 0;
}

static int mem_read2(void *arg, uint64_t a1, void *b1, size_t l1,
		     uint64_t a2, void *b2, size_t l2)
{
	return mem_read(arg, a1, b1, l1) || mem_read(arg, a2, b2, l2) ? -1 : 0;
}

/* Every frame's code object, its line, and the name of the thread a
 * _bootstrap frame runs for, as pystacks reads them. */
static void frames_read(const struct py_target *t, const struct py_frame *f,
			size_t n)
{
	static uint8_t tab[PY_LINETABLE_MAX];
	struct py_code c;
	char name[64];
	uint64_t self;
	long len;

	for (size_t i = 0; i < n; i++) {
		if (py_code_read(t, f[i].code, &c))
			continue;
		len = py_code_linetable(t, &c, tab, sizeof(tab));
		if (len >= 0)
			(void)py_linetable_line(tab, (size_t)len,
						c.firstlineno, f[i].lasti);
		name[0] = '\0';
		if (!py_frame_local0(t, &f[i], &self))
			(void)py_attr_str(t, self, "_name", name,
					  sizeof(name));
#ifdef FUZZ_SHOW
		fprintf(stderr, "  %s (%s:%d) line %d entry %d self %s\n",
			c.qualname, c.filename, c.firstlineno,
			len >= 0 ? py_linetable_line(tab, (size_t)len,
						     c.firstlineno,
						     f[i].lasti) : -2,
			f[i].entry, name);
#endif
	}
}

/* A sample of thread tid merged into a native chain of evals evaluation
 * frames, as record does it. */
static void sample(const struct py_proc *pp, uint32_t tid, uint8_t flags)
{
	struct symtab *s = symtab_new(false);
	struct pystacks *ps = pystacks_new(s);
	uint64_t ips[16], out[1024];
	unsigned evals = (flags >> 2) & 3;
	struct timespec ts;
	size_t n = 0;
	FILE *null = fopen("/dev/null", "w");

	ips[n++] = PY_FILE_HI + 0x100;		/* a library's leaf */
	for (unsigned k = 0; k < evals; k++) {
		ips[n++] = PY_FILE_LO + 0x10;	/* the interpreter's own */
		ips[n++] = PY_EVAL_LO + 0x20 + k;
	}
	ips[n++] = PY_FILE_HI + 0x200;		/* main, the C library's */
	/* pid = tid: the main thread, named without /proc */
	pystacks_attach(ps, tid, pp);
	for (int k = 0; k < 2; k++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (flags & 16)
			pystacks_capture_offcpu(ps, tid, tid, (uint64_t)ts.tv_sec *
						1000000000u + (uint64_t)ts.tv_nsec);
		else
			pystacks_capture(ps, tid, tid, (uint64_t)ts.tv_sec *
					 1000000000u + (uint64_t)ts.tv_nsec);
		(void)pystacks_merge(ps, ips, n, flags & 2, out, 1024);
	}
#ifdef FUZZ_SHOW
	fclose(null);
	null = stderr;
#endif
	if (null) {
		pystacks_fput_report(ps, false, null);
		fclose(null);
	}
	pystacks_free(ps);
	symtab_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int minor[3] = { 11, 12, 13 };
	static struct py_frame frames[PY_MAX_DEPTH];
	struct py_thread th[8];
	struct py_proc pp;
	struct mem m;
	enum py_walk_error err;
	int nth;

	if (size < 2)
		return 0;
	m = (struct mem){ data + 2, size - 2 };
	memset(&pp, 0, sizeof(pp));
	pp.t = (struct py_target){
		.l = py_layout_find(3, minor[data[0] % 3]),
		.runtime = PY_BASE, .code_type = PY_CODE_TYPE,
		.unicode_type = PY_UNICODE_TYPE, .bytes_type = PY_BYTES_TYPE,
		.dict_type = PY_DICT_TYPE, .read = mem_read,
		.read2 = data[1] & 1 ? mem_read2 : NULL, .arg = &m,
	};
	pp.major = 3;
	pp.minor = minor[data[0] % 3];
	pp.lo = PY_FILE_LO;
	pp.hi = PY_FILE_HI;
	pp.eval_start = PY_EVAL_LO;
	pp.eval_end = PY_EVAL_HI;
	snprintf(pp.path, sizeof(pp.path), "/fuzz/python3.%d", pp.minor);
	nth = py_threads(&pp.t, th, 8);
	for (int i = 0; i < nth && i < 4; i++) {
		size_t n = py_walk(&pp.t, th[i].tstate, frames, PY_MAX_DEPTH,
				   &err);

		frames_read(&pp.t, frames, n);
#ifdef FUZZ_SHOW
		fprintf(stderr, "thread %u: %zu frames (%s), gil %d\n",
			th[i].native_id, n, py_walk_strerror(err),
			py_gil_holder(&pp.t, th[i].tstate));
#endif
		(void)py_walk_strerror(err);
		(void)py_gil_holder(&pp.t, th[i].tstate);
		if (py_thread_find(&pp.t, th[i].native_id) == 0 &&
		    th[i].native_id)
			abort();	/* listed, so found */
	}
	sample(&pp, nth > 0 && th[0].native_id ? th[0].native_id : 1,
	       data[1]);
	return 0;
}
