/*
 * CPython programs (included by agent.c only): at each traced allocation
 * the calling thread's own Python frames, walked in the process by the
 * frame walker and layout table `record` uses too (profile/python.c,
 * linked into the agent, reading with plain loads), go with the native
 * stack in its STACK record (protocol.h), each a word: the code object's
 * id and the line. A code object's file, qualified name and first line go
 * once, in a PYCODE record, when the agent first meets it.
 *
 * The program is CPython when the process has the interpreter's symbols
 * (_PyRuntime, Py_GetVersion: the static interpreter's or libpython's),
 * found at start-up with dlsym; its version (Py_Version, or the string of
 * Py_GetVersion before 3.11) must be in the layout table, else nothing is
 * walked and yardstick names the version (header.py_status).
 * PYTHONMALLOC=malloc is put in the environment then, before the
 * interpreter reads it, so that objects are each a malloc of their own
 * rather than a slice of pymalloc's arenas; a value the user set is kept
 * (header.py_malloc).
 *
 * The thread state is the interpreter's own: its accessor
 * (_PyThreadState_UncheckedGet, PyThreadState_GetUnchecked in 3.13),
 * which gives the thread holding the GIL (3.11: whichever thread that is,
 * so its thread_id must be ours) or none, and for a thread that let the
 * GIL go (C code between Py_BEGIN_ALLOW_THREADS and its end) the thread's
 * own, PyGILState_GetThisThreadState. Only the calling thread's frames
 * are walked: no other thread changes them meanwhile, with the GIL or
 * without it, so the reads are exact. The walker still checks every
 * pointer before it follows it (python.h); a walk that fails a check
 * gives no Python frames rather than a wrong one.
 *
 * The end of the program's Python code: Py_FinalizeEx sets
 * _PyRuntime._finalizing once the main module, the non-daemon threads
 * and the atexit handlers are done, before it clears the modules. Every
 * traced call looks at it (py_check_end: a load, and one more in a
 * CPython program); the first to find it set writes a PYEND record
 * (protocol.h) stamped before its own, so that yardstick's replay takes
 * the blocks live then (os._exit never sets it: no record).
 *
 * Lines: PyCode_Addr2Line, the interpreter's own (it reads the code's
 * line table, allocates nothing), once per code object and instruction,
 * then from a per-thread cache.
 */
#include "profile/python.h"

#define PY_CODES_BITS 16		/* code objects known */
#define PY_LINES_BITS 12		/* a thread's cached lines */

struct py_code_entry {
	_Atomic uint64_t key;		/* the code object's address */
	_Atomic uint64_t val;		/* check << 32 | id */
};

struct py_line_entry {
	uint64_t code, check;
	int64_t lasti;
	uint64_t word;			/* id << 32 | line */
};
_Static_assert(WRITTEN_WORDS(sizeof(struct py_line_entry) << PY_LINES_BITS) <=
	       sizeof(((struct tstate *)0)->py_lines_written) /
	       sizeof(uint64_t), "a bit for each page of a thread's lines");

static struct {
	struct py_target t;
	void *(*tstate)(void);
	void *(*own_tstate)(void);
	int (*addr2line)(void *, int);
	struct py_code_entry *codes;
	/* its pages written (agent_pages.h) */
	_Atomic uint64_t codes_written[WRITTEN_WORDS(
		sizeof(struct py_code_entry) << PY_CODES_BITS)];
	pthread_mutex_t lock;
	uint32_t next_id;
	bool on;
	/* &_PyRuntime._finalizing until a PYEND record is written, NULL
	 * then or without one */
	_Atomic uintptr_t *_Atomic fin;
} py = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The walker's reads: the interpreter is this process. */
static int py_read_self(void *arg, uint64_t addr, void *buf, size_t len)
{
	memcpy(buf, (const void *)(uintptr_t)addr, len);
	return 0;
}

/* The CPython version's hex from "3.10.13 (main, ...": 0 if none. */
static uint32_t py_parse_version(const char *s)
{
	unsigned v[3] = { 0, 0, 0 };
	int k = 0;

	for (; *s && k < 3; s++) {
		if (*s >= '0' && *s <= '9')
			v[k] = v[k] * 10 + (unsigned)(*s - '0');
		else if (*s == '.')
			k++;
		else
			break;
	}
	if (v[0] > 255 || v[1] > 255 || v[2] > 255)
		return 0;
	return v[0] << 24 | v[1] << 16 | v[2] << 8;
}

static uint64_t py_sym(const char *name)
{
	return (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, name);
}

/*
 * At start-up (the thread busy): is this CPython, of which version, and
 * can its frames be walked? Sets hdr's py_* fields, and PYTHONMALLOC.
 */
static void py_detect(void)
{
	const unsigned long *ver = dlsym(RTLD_DEFAULT, "Py_Version");
	const char *(*get_version)(void) =
		(const char *(*)(void))dlsym(RTLD_DEFAULT, "Py_GetVersion");
	const char *pm;
	uint32_t v;
	bool keep;

	py.t.runtime = py_sym("_PyRuntime");
	if (!py.t.runtime && !get_version)
		return;
	if (ver)
		v = (uint32_t)*ver;
	else
		v = get_version ? py_parse_version(get_version()) : 0;
	/* in a tree of processes, an unsupported version is the one named */
	keep = hdr->py_status == HEAP_PY_UNSUPPORTED;
	if (!keep)
		hdr->py_version = v ? v : 1;
	pm = getenv("PYTHONMALLOC");
	if (!pm || !*pm)	/* empty: the interpreter takes it as unset */
		setenv("PYTHONMALLOC", "malloc", 1);
	else if (strcmp(pm, "malloc"))
		hdr->py_malloc = 1;
	if (!hdr->python) {
		hdr->py_status = HEAP_PY_OFF;
		return;
	}
	py.t.l = py_layout_find((int)(v >> 24), (int)((v >> 16) & 0xff));
	py.t.code_type = py_sym("PyCode_Type");
	py.t.unicode_type = py_sym("PyUnicode_Type");
	py.t.bytes_type = py_sym("PyBytes_Type");
	py.t.read = py_read_self;
	py.t.direct = true;
	py.tstate = (void *(*)(void))dlsym(RTLD_DEFAULT,
					   "PyThreadState_GetUnchecked");
	if (!py.tstate)
		py.tstate = (void *(*)(void))dlsym(
			RTLD_DEFAULT, "_PyThreadState_UncheckedGet");
	py.own_tstate = (void *(*)(void))dlsym(
		RTLD_DEFAULT, "PyGILState_GetThisThreadState");
	py.addr2line = (int (*)(void *, int))dlsym(RTLD_DEFAULT,
						   "PyCode_Addr2Line");
	if (!keep)
		hdr->py_status = HEAP_PY_UNSUPPORTED;
	if (!py.t.l || !py.t.runtime || !py.tstate || !py.addr2line ||
	    !py.t.code_type || !py.t.unicode_type || !py.t.bytes_type)
		return;
	py.codes = mmap(NULL, sizeof(*py.codes) << PY_CODES_BITS,
			PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (py.codes == MAP_FAILED)
		return;
	if (!keep)
		hdr->py_status = HEAP_PY_WALKED;
	py.on = true;
	if (py.t.l->rt_finalizing >= 0)
		atomic_store(&py.fin, (_Atomic uintptr_t *)(uintptr_t)
			     (py.t.runtime + (uint64_t)py.t.l->rt_finalizing));
}

/* Py_FinalizeEx began: the PYEND record, once per image, into the
 * thread's slot (or one borrowed, past its end). */
static __attribute__((noinline, cold)) void py_note_end(struct tstate *t)
{
	struct heap_slot *s;
	uint64_t *w;

	if (!atomic_exchange(&py.fin, NULL))
		return;		/* another thread wrote it */
	s = t->slot ? t->slot : slot_take();
	if (!s)
		return;
	w = reserve(s, 2);
	if (w) {
		w[0] = ((uint64_t)HEAP_REC_PYEND << HEAP_TYPE_SHIFT) | stamp();
		w[1] = generation;
		commit(s, 2);
	}
	if (s != t->slot)
		slot_give(s);
}

/* At a traced call, before its stamp: has the interpreter begun to
 * finalize? */
INLINE void py_check_end(struct tstate *t)
{
	_Atomic uintptr_t *f = atomic_load_explicit(&py.fin,
						    memory_order_relaxed);

	if (unlikely(f != NULL) &&
	    unlikely(atomic_load_explicit(f, memory_order_relaxed) != 0))
		py_note_end(t);
}

/* A pointer that may be followed: not NULL, aligned, user space. */
INLINE bool py_ptr_ok(uintptr_t p)
{
	return p >= 4096 && p < (UINT64_C(1) << 47) && !(p & 7);
}

/* The thread's own thread state, or 0. */
static uintptr_t py_thread_state(void)
{
	unsigned long self = (unsigned long)pthread_self();
	int32_t at = py.t.l->ts_thread_id;
	uintptr_t ts = (uintptr_t)py.tstate();

	if (py_ptr_ok(ts) && *(const unsigned long *)(ts + at) == self)
		return ts;
	ts = py.own_tstate ? (uintptr_t)py.own_tstate() : 0;
	if (py_ptr_ok(ts) && *(const unsigned long *)(ts + at) == self)
		return ts;
	return 0;
}

/* A code's identity beyond its address (which a later code may reuse):
 * its names' objects, as the walker compares them. */
INLINE uint32_t py_code_check(const struct py_frame *f)
{
	uint64_t h = f->qualname_ptr * 0x9e3779b97f4a7c15u;

	h ^= f->filename_ptr;
	h *= 0xff51afd7ed558ccdu;
	return (uint32_t)(h >> 32) | 1;
}

/* The PYCODE record of code id into s; false if the code cannot be
 * read. */
static bool py_send_code(struct heap_slot *s, uint32_t id,
			 const struct py_frame *f)
{
	struct py_code c;
	size_t nf, nn, words;
	uint64_t *w;

	if (py_code_read(&py.t, f->code, &c) ||
	    c.qualname_ptr != f->qualname_ptr ||
	    c.filename_ptr != f->filename_ptr)
		return false;
	nf = strnlen(c.filename, sizeof(c.filename));
	nn = strnlen(c.qualname, sizeof(c.qualname));
	if (nf > HEAP_PY_TEXT_MAX)
		nf = HEAP_PY_TEXT_MAX;
	if (nn > HEAP_PY_TEXT_MAX)
		nn = HEAP_PY_TEXT_MAX;
	words = 3 + (nf + nn + 7) / 8;
	w = reserve(s, words);
	if (!w)
		return true;
	w[0] = ((uint64_t)HEAP_REC_PYCODE << HEAP_TYPE_SHIFT) |
	       ((uint64_t)generation << 16) | words;
	w[1] = (uint64_t)(uint32_t)c.firstlineno << 32 | id;
	w[2] = (uint64_t)nf << 32 | nn;
	w[words - 1] = 0;
	memcpy(&w[3], c.filename, nf);
	memcpy((char *)&w[3] + nf, c.qualname, nn);
	commit(s, words);
	return true;
}

/* The id of the frame's code, a PYCODE record into s when it is new; 0
 * when the table is full or the code cannot be read. */
static uint32_t py_code_id(struct heap_slot *s, const struct py_frame *f,
			   uint32_t check)
{
	size_t mask = ((size_t)1 << PY_CODES_BITS) - 1;
	uint64_t code = f->code;
	size_t i = (size_t)((code * 0x9e3779b97f4a7c15u) >> 40) & mask;
	uint32_t id = 0;

	for (size_t k = 0; k <= mask; k++, i = (i + 1) & mask) {
		struct py_code_entry *e = &py.codes[i];
		uint64_t key;

		write_first(py.codes_written, py.codes, e);
		key = atomic_load_explicit(&e->key, memory_order_acquire);

		if (key == code) {
			uint64_t v = atomic_load_explicit(
				&e->val, memory_order_relaxed);

			if (v >> 32 == check)
				return (uint32_t)v;
			break;	/* another code at the address: a new id */
		}
		if (!key)
			break;
	}
	pthread_mutex_lock(&py.lock);
	for (size_t k = 0; k <= mask; k++, i = (i + 1) & mask) {
		struct py_code_entry *e = &py.codes[i];
		uint64_t key, v;

		write_first(py.codes_written, py.codes, e);
		key = atomic_load_explicit(&e->key, memory_order_relaxed);
		v = atomic_load_explicit(&e->val, memory_order_relaxed);

		if (key && key != code)
			continue;
		if (key == code && v >> 32 == check) {
			/* another thread made it meanwhile */
			id = (uint32_t)v;
			break;
		}
		if (!py_send_code(s, py.next_id + 1, f))
			break;
		id = ++py.next_id;
		atomic_store_explicit(&e->val, (uint64_t)check << 32 | id,
				      memory_order_relaxed);
		atomic_store_explicit(&e->key, code, memory_order_release);
		break;
	}
	pthread_mutex_unlock(&py.lock);
	return id;
}

/* The frame's word (protocol.h): its code's id and its line. */
static uint64_t py_frame_word(struct tstate *t, struct heap_slot *s,
			      const struct py_frame *f)
{
	uint32_t check = py_code_check(f), id;
	size_t i = (size_t)(((f->code ^ ((uint64_t)f->lasti << 9)) *
			     0x9e3779b97f4a7c15u) >> (64 - PY_LINES_BITS));
	struct py_line_entry *e = t->py_lines ? &t->py_lines[i] : NULL;
	int64_t size = *(const int64_t *)(uintptr_t)(f->code +
						     py.t.l->ob_size);
	int line;

	if (e)
		write_first(t->py_lines_written, t->py_lines, e);
	if (e && e->code == f->code && e->lasti == f->lasti &&
	    e->check == check)
		return e->word;
	id = py_code_id(s, f, check);
	if (!id)
		return 0;
	/* an instruction outside the code: its first line */
	line = py.addr2line((void *)(uintptr_t)f->code,
			    f->lasti >= 0 && f->lasti < size ?
			    f->lasti * 2 : -1);
	if (line < 0)
		line = 0;
	if (e) {
		e->code = f->code;
		e->lasti = f->lasti;
		e->check = check;
		e->word = (uint64_t)id << 32 | (uint32_t)line;
	}
	return (uint64_t)id << 32 | (uint32_t)line;
}

/*
 * The calling thread's Python frames, innermost first, into out (at most
 * HEAP_PY_MAX), as STACK record words; PYCODE records of new code objects
 * go into s first. Returns how many: none when the walk failed a check
 * (the innermost HEAP_PY_MAX of a deeper stack are kept).
 */
static __attribute__((noinline)) int py_walk_words(struct tstate *t,
						   struct heap_slot *s,
						   uint64_t *out)
{
	uintptr_t ts = py_thread_state();
	struct py_frame *fr;
	enum py_walk_error err;
	size_t n;

	if (!ts)
		return 0;
	if (!t->py_frames) {
		void *p = mmap(NULL, sizeof(*fr) * HEAP_PY_MAX,
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 0;
		t->py_frames = p;
	}
	fr = t->py_frames;
	n = py_walk(&py.t, ts, fr, HEAP_PY_MAX, &err);
	if (err && err != PY_WALK_TOO_DEEP)
		return 0;
	if (!t->py_lines) {
		void *p = mmap(NULL, sizeof(*t->py_lines) << PY_LINES_BITS,
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		t->py_lines = p == MAP_FAILED ? NULL : p;
	}
	for (size_t i = 0; i < n; i++) {
		out[i] = py_frame_word(t, s, &fr[i]);
		if (!out[i])
			return 0;
		if (fr[i].entry)
			out[i] |= HEAP_PY_END;
	}
	/* the outermost frame ends its evaluation's group; a walk cut at
	 * HEAP_PY_MAX leaves its last frame open (protocol.h) */
	if (n && err != PY_WALK_TOO_DEEP)
		out[n - 1] |= HEAP_PY_END;
	else if (n)
		out[n - 1] &= ~HEAP_PY_END;	/* an entry's too: cut */
	return (int)n;
}

/* A thread's end: its lines and frames go (a fork's child keeps its
 * copies, which are its own). */
static void py_thread_free(struct tstate *t)
{
	if (t->py_lines)
		munmap(t->py_lines, sizeof(*t->py_lines) << PY_LINES_BITS);
	if (t->py_frames)
		munmap(t->py_frames, sizeof(*t->py_frames) * HEAP_PY_MAX);
	t->py_lines = NULL;
	t->py_frames = NULL;
}

/* A stack hash h with the Python frames py[0..n) in it. */
static uint64_t py_hash(uint64_t h, const uint64_t *f, int n)
{
	for (int i = 0; i < n; i++) {
		h ^= f[i];
		h *= 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	return h | 1;
}
