/*
 * CPython programs (included by agent.c only): at each traced allocation
 * the calling thread's own Python frames, walked in the process with the
 * layout of its CPython version (profile/pylayout.h), go with the native
 * stack in its STACK record (protocol.h), each a word: the code object's
 * id and the line. A code object's file and qualified name go once, in a
 * PYCODE record, when the agent first meets it.
 *
 * The program is CPython when the process has the interpreter's symbols
 * (_PyRuntime, Py_GetVersion: the static interpreter's or libpython's),
 * found at start-up with dlsym; its version (Py_Version, or the string of
 * Py_GetVersion before 3.11) must be in the layout table, else nothing is
 * walked and yardstick says why (header.py_status). PYTHONMALLOC=malloc
 * is put in the environment then, before the interpreter reads it, so
 * that objects are each a malloc of their own rather than a slice of
 * pymalloc's arenas; a value the user set is kept (header.py_malloc).
 *
 * The thread state is the interpreter's own: its accessor
 * (_PyThreadState_UncheckedGet, PyThreadState_GetUnchecked in 3.13),
 * which gives the thread holding the GIL (3.11: whichever thread that is,
 * so its thread_id must be ours) or none, and for a thread that let the
 * GIL go (C code between Py_BEGIN_ALLOW_THREADS and its end) the thread's
 * own, PyGILState_GetThisThreadState. Only the calling thread's frames
 * are walked: no other thread changes them meanwhile, with the GIL or
 * without it, so the reads are exact. Every pointer is still checked
 * before it is followed (not NULL, aligned, in the user half of the
 * address space), a code object must have PyCode_Type's address as its
 * type and a string PyUnicode_Type's, a walk stops after PY_WALK_MAX
 * frames: a layout that was wrong would stop the walk, not the program.
 *
 * Lines: PyCode_Addr2Line, the interpreter's own (it reads the code's
 * line table, allocates nothing), once per code object and instruction,
 * then from a per-thread cache.
 */
#include "profile/pylayout.h"

#define PY_WALK_MAX 4096		/* frames looked at per walk */
#define PY_CODES_BITS 16		/* code objects known */
#define PY_LINES_BITS 12		/* a thread's cached lines */

struct py_code_entry {
	_Atomic uint64_t key;		/* the code object's address */
	_Atomic uint64_t val;		/* check << 32 | id */
};

struct py_line_entry {
	uintptr_t code, instr;
	uint64_t check;
	uint64_t word;			/* id << 32 | line */
};

static struct {
	const struct py_layout *l;
	void *(*tstate)(void);
	void *(*own_tstate)(void);
	int (*addr2line)(void *, int);
	uintptr_t code_type, str_type;
	struct py_code_entry *codes;
	pthread_mutex_t lock;
	uint32_t next_id;
	bool on;
} py = { .lock = PTHREAD_MUTEX_INITIALIZER };

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

	if (!dlsym(RTLD_DEFAULT, "_PyRuntime") && !get_version)
		return;
	if (ver)
		v = (uint32_t)*ver;
	else
		v = get_version ? py_parse_version(get_version()) : 0;
	hdr->py_version = v ? v : 1;
	pm = getenv("PYTHONMALLOC");
	if (!pm)
		setenv("PYTHONMALLOC", "malloc", 1);
	else if (strcmp(pm, "malloc"))
		hdr->py_malloc = 1;
	if (!hdr->python) {
		hdr->py_status = HEAP_PY_OFF;
		return;
	}
	py.l = py_layout_of(v);
	py.tstate = (void *(*)(void))dlsym(RTLD_DEFAULT,
					   "PyThreadState_GetUnchecked");
	if (!py.tstate)
		py.tstate = (void *(*)(void))dlsym(
			RTLD_DEFAULT, "_PyThreadState_UncheckedGet");
	py.own_tstate = (void *(*)(void))dlsym(
		RTLD_DEFAULT, "PyGILState_GetThisThreadState");
	py.addr2line = (int (*)(void *, int))dlsym(RTLD_DEFAULT,
						   "PyCode_Addr2Line");
	py.code_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyCode_Type");
	py.str_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyUnicode_Type");
	if (!py.l || !py.tstate || !py.addr2line || !py.code_type ||
	    !py.str_type) {
		hdr->py_status = HEAP_PY_UNSUPPORTED;
		return;
	}
	py.codes = mmap(NULL, sizeof(*py.codes) << PY_CODES_BITS,
			PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (py.codes == MAP_FAILED) {
		hdr->py_status = HEAP_PY_UNSUPPORTED;
		return;
	}
	hdr->py_status = HEAP_PY_WALKED;
	py.on = true;
}

/* A pointer that may be followed: not NULL, aligned, user space. */
INLINE bool py_ptr_ok(uintptr_t p)
{
	return p >= 4096 && p < (UINT64_C(1) << 47) && !(p & 7);
}

INLINE uintptr_t py_word(uintptr_t base, uint16_t off)
{
	return *(const uintptr_t *)(base + off);
}

/* The thread's own thread state, or 0. */
static uintptr_t py_thread_state(void)
{
	unsigned long self = (unsigned long)pthread_self();
	uintptr_t ts = (uintptr_t)py.tstate();

	if (py_ptr_ok(ts) && py_word(ts, py.l->ts_thread_id) == self)
		return ts;
	ts = py.own_tstate ? (uintptr_t)py.own_tstate() : 0;
	if (py_ptr_ok(ts) && py_word(ts, py.l->ts_thread_id) == self)
		return ts;
	return 0;
}

/* A code's identity beyond its address (which a later code may reuse). */
INLINE uint32_t py_code_check(uintptr_t code)
{
	const struct py_layout *l = py.l;
	uint64_t h = py_word(code, l->co_filename) * 0x9e3779b97f4a7c15u;

	h ^= py_word(code, l->co_qualname);
	h *= 0xff51afd7ed558ccdu;
	h ^= py_word(code, l->co_linetable);
	h *= 0x9e3779b97f4a7c15u;
	h ^= (uint64_t)*(const int32_t *)(code + l->co_firstlineno);
	h *= 0xff51afd7ed558ccdu;
	return (uint32_t)(h >> 32) | 1;
}

/*
 * A str's text as UTF-8 into buf (at most cap bytes, whole characters):
 * compact strings only (every code object's), else "?". Returns the
 * length.
 */
static size_t py_str(uintptr_t s, char *buf, size_t cap)
{
	const struct py_layout *l = py.l;
	uint32_t bits, kind;
	int64_t len;
	size_t n = 0;
	const unsigned char *d;

	if (!py_ptr_ok(s) || py_word(s, PY_OB_TYPE) != py.str_type)
		goto unknown;
	bits = *(const uint32_t *)(s + PY_STR_STATE);
	len = *(const int64_t *)(s + PY_STR_LENGTH);
	kind = (bits >> 2) & 7;
	if (!(bits & (1u << 5)) || len < 0 || len > (1 << 24))
		goto unknown;
	if (bits & (1u << 6)) {
		n = (size_t)len < cap ? (size_t)len : cap;
		memcpy(buf, (const char *)(s + l->str_ascii_size), n);
		return n;
	}
	d = (const unsigned char *)(s + l->str_compact_size);
	for (int64_t i = 0; i < len; i++) {
		uint32_t c = kind == 1 ? d[i] : kind == 2 ?
			((const uint16_t *)d)[i] : ((const uint32_t *)d)[i];
		char u[4];
		size_t k;

		if (kind != 1 && kind != 2 && kind != 4)
			goto unknown;
		if (c < 0x80) {
			u[0] = (char)c;
			k = 1;
		} else if (c < 0x800) {
			u[0] = (char)(0xc0 | c >> 6);
			u[1] = (char)(0x80 | (c & 0x3f));
			k = 2;
		} else if (c < 0x10000) {
			u[0] = (char)(0xe0 | c >> 12);
			u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
			u[2] = (char)(0x80 | (c & 0x3f));
			k = 3;
		} else {
			u[0] = (char)(0xf0 | (c >> 18 & 7));
			u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
			u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
			u[3] = (char)(0x80 | (c & 0x3f));
			k = 4;
		}
		if (n + k > cap)
			break;
		memcpy(buf + n, u, k);
		n += k;
	}
	return n;
unknown:
	buf[0] = '?';
	return 1;
}

/* The PYCODE record of code id into s. */
static void py_send_code(struct heap_slot *s, uint32_t id, uintptr_t code)
{
	char text[2 * HEAP_PY_TEXT_MAX];
	size_t nf = py_str(py_word(code, py.l->co_filename), text,
			   HEAP_PY_TEXT_MAX);
	size_t nn = py_str(py_word(code, py.l->co_qualname), text + nf,
			   HEAP_PY_TEXT_MAX);
	size_t words = 3 + (nf + nn + 7) / 8;
	uint64_t *w = reserve(s, words);

	if (!w)
		return;
	w[0] = ((uint64_t)HEAP_REC_PYCODE << HEAP_TYPE_SHIFT) |
	       ((uint64_t)generation << 16) | words;
	w[1] = id;
	w[2] = (uint64_t)nf << 32 | nn;
	w[words - 1] = 0;
	memcpy(&w[3], text, nf + nn);
	commit(s, words);
}

/* The id of code (validated), a PYCODE record into s when it is new; 0
 * when the table is full. */
static uint32_t py_code_id(struct heap_slot *s, uintptr_t code,
			   uint32_t check)
{
	size_t mask = ((size_t)1 << PY_CODES_BITS) - 1;
	size_t i = (size_t)((code * 0x9e3779b97f4a7c15u) >> 40) & mask;
	uint32_t id = 0;

	for (size_t k = 0; k <= mask; k++, i = (i + 1) & mask) {
		struct py_code_entry *e = &py.codes[i];
		uint64_t key = atomic_load_explicit(&e->key,
						    memory_order_acquire);

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
		uint64_t key = atomic_load_explicit(&e->key,
						    memory_order_relaxed);

		if (key && key != code)
			continue;
		if (key == code && atomic_load_explicit(&e->val,
				memory_order_relaxed) >> 32 == check) {
			/* another thread made it meanwhile */
			pthread_mutex_unlock(&py.lock);
			return (uint32_t)atomic_load_explicit(
				&e->val, memory_order_relaxed);
		}
		id = ++py.next_id;
		atomic_store_explicit(&e->val, (uint64_t)check << 32 | id,
				      memory_order_relaxed);
		atomic_store_explicit(&e->key, code, memory_order_release);
		break;
	}
	pthread_mutex_unlock(&py.lock);
	if (id)
		py_send_code(s, id, code);
	return id;
}

/* The frame's word (protocol.h): its code's id and its line. */
static uint64_t py_frame_word(struct tstate *t, struct heap_slot *s,
			      uintptr_t code, uintptr_t instr)
{
	const struct py_layout *l = py.l;
	uint32_t check = py_code_check(code), id;
	size_t i = (size_t)(((code ^ (instr << 9)) * 0x9e3779b97f4a7c15u) >>
			    (64 - PY_LINES_BITS));
	struct py_line_entry *e = t->py_lines ? &t->py_lines[i] : NULL;
	int64_t size = (int64_t)py_word(code, PY_OB_SIZE) * 2;
	int64_t at = (int64_t)(instr - (code + l->co_code_adaptive));
	int line;

	if (e && e->code == code && e->instr == instr && e->check == check)
		return e->word;
	id = py_code_id(s, code, check);
	if (!id)
		return 0;
	/* an instruction outside the code: its first line */
	line = py.addr2line((void *)code,
			    at >= 0 && at < size ? (int)at : -1);
	if (line < 0)
		line = 0;
	if (e) {
		e->code = code;
		e->instr = instr;
		e->check = check;
		e->word = (uint64_t)id << 32 | (uint32_t)line;
	}
	return (uint64_t)id << 32 | (uint32_t)line;
}

/*
 * The calling thread's Python frames, innermost first, into out (at most
 * max), as STACK record words; PYCODE records of new code objects go
 * into s first. Returns how many.
 */
static int py_walk(struct tstate *t, struct heap_slot *s, uint64_t *out,
		   int max)
{
	const struct py_layout *l = py.l;
	uintptr_t ts = py_thread_state(), frame;
	int n = 0;

	if (!ts)
		return 0;
	if (l->ts_cframe != PY_LAYOUT_NONE) {
		uintptr_t cf = py_word(ts, l->ts_cframe);

		if (!py_ptr_ok(cf))
			return 0;
		frame = py_word(cf, l->current_frame);
	} else {
		frame = py_word(ts, l->current_frame);
	}
	if (!t->py_lines)
		t->py_lines = mmap(NULL, sizeof(*t->py_lines) << PY_LINES_BITS,
				   PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->py_lines == MAP_FAILED)
		t->py_lines = NULL;
	for (int k = 0; k < PY_WALK_MAX && n < max && py_ptr_ok(frame); k++) {
		uint8_t owner = *(const uint8_t *)(frame + l->f_owner);
		uintptr_t code, instr;
		uint64_t w;

		if (owner == l->owner_cstack) {
			/* the boundary between two calls of the loop */
			if (n)
				out[n - 1] |= HEAP_PY_END;
			frame = py_word(frame, l->f_previous);
			continue;
		}
		code = py_word(frame, l->f_code);
		if (!py_ptr_ok(code) || py_word(code, PY_OB_TYPE) != py.code_type)
			break;
		instr = py_word(frame, l->f_instr);
		w = py_frame_word(t, s, code, instr);
		if (!w)
			break;
		if (l->f_is_entry != PY_LAYOUT_NONE &&
		    *(const uint8_t *)(frame + l->f_is_entry))
			w |= HEAP_PY_END;
		out[n++] = w;
		frame = py_word(frame, l->f_previous);
	}
	if (n)
		out[n - 1] |= HEAP_PY_END;
	return n;
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
