/*
 * CPython's frames read from its memory (python.h). The layout table is
 * checked field by field against each version's own headers by
 * tests/cli/python_layout.sh: change an entry only with that test.
 *
 * Nothing here allocates or calls anything but memcpy/memset-class libc:
 * the heap agent links this file and runs it inside the profiled program.
 */
#include <stdio.h>
#include <string.h>

#include "profile/python.h"

static const struct py_layout layouts[] = {
	{
		.major = 3, .minor = 11,
		.rt_interp_head = 40, .rt_gil = 360, .rt_finalizing = 24,
		.is_next = 0, .is_threads_head = 16, .is_gil_ptr = -1,
		.gil_locked = 16, .gil_last_holder = 8,
		.ts_next = 8, .ts_interp = 16,
		.ts_thread_id = 152, .ts_native_thread_id = 160,
		.ts_cframe = 56, .ts_current_frame = -1,
		.cf_current_frame = 8,
		.fr_code = 32, .fr_previous = 48, .fr_instr = 56,
		.fr_is_entry = 68, .fr_owner = 69, .fr_size = 72,
		.instr_is_current = false, .owner_cstack = -1,
		.ob_type = 8, .ob_size = 16,
		.co_filename = 112, .co_name = 120, .co_qualname = 128,
		.co_linetable = 136, .co_firstlineno = 72,
		.co_code_adaptive = 184,
		.str_length = 16, .str_state = 32, .str_ascii_size = 48,
		.str_compact_size = 72, .bytes_sval = 32,
		.tp_flags = 168, .tp_basicsize = 32, .ht_cached_keys = 872,
		.tpf_managed_dict = 16, .tpf_inline_values = 0,
		.obj_values_ptr = -32, .obj_dict_ptr = -24,
		.dict_or_values = false, .obj_inline_values = -1,
		.values_valid = -1,
		.values_values = 0, .dict_keys = 32, .dict_values = 40,
		.dk_log2_index_bytes = 9, .dk_kind = 10, .dk_nentries = 24,
		.dk_indices = 32, .dk_entry_size = 24, .dk_uentry_size = 16,
	},
	{
		.major = 3, .minor = 12,
		.rt_interp_head = 40, .rt_gil = -1, .rt_finalizing = 24,
		.is_next = 0, .is_threads_head = 72, .is_gil_ptr = 384,
		.gil_locked = 16, .gil_last_holder = 8,
		.ts_next = 8, .ts_interp = 16,
		.ts_thread_id = 136, .ts_native_thread_id = 144,
		.ts_cframe = 56, .ts_current_frame = -1,
		.cf_current_frame = 0,
		.fr_code = 0, .fr_previous = 8, .fr_instr = 56,
		.fr_is_entry = -1, .fr_owner = 70, .fr_size = 72,
		.instr_is_current = false, .owner_cstack = 3,
		.ob_type = 8, .ob_size = 16,
		.co_filename = 112, .co_name = 120, .co_qualname = 128,
		.co_linetable = 136, .co_firstlineno = 68,
		.co_code_adaptive = 192,
		.str_length = 16, .str_state = 32, .str_ascii_size = 40,
		.str_compact_size = 56, .bytes_sval = 32,
		.tp_flags = 168, .tp_basicsize = 32, .ht_cached_keys = 880,
		.tpf_managed_dict = 16, .tpf_inline_values = 0,
		.obj_values_ptr = -1, .obj_dict_ptr = -24,
		.dict_or_values = true, .obj_inline_values = -1,
		.values_valid = -1,
		.values_values = 0, .dict_keys = 32, .dict_values = 40,
		.dk_log2_index_bytes = 9, .dk_kind = 10, .dk_nentries = 24,
		.dk_indices = 32, .dk_entry_size = 24, .dk_uentry_size = 16,
	},
	{
		.major = 3, .minor = 13,
		.rt_interp_head = 632, .rt_gil = -1, .rt_finalizing = 608,
		.is_next = 7264, .is_threads_head = 7344, .is_gil_ptr = 16,
		.gil_locked = 16, .gil_last_holder = 8,
		.ts_next = 8, .ts_interp = 16,
		.ts_thread_id = 152, .ts_native_thread_id = 160,
		.ts_cframe = -1, .ts_current_frame = 72,
		.cf_current_frame = -1,
		.fr_code = 0, .fr_previous = 8, .fr_instr = 56,
		.fr_is_entry = -1, .fr_owner = 70, .fr_size = 72,
		.instr_is_current = true, .owner_cstack = 3,
		.ob_type = 8, .ob_size = 16,
		.co_filename = 112, .co_name = 120, .co_qualname = 128,
		.co_linetable = 136, .co_firstlineno = 68,
		.co_code_adaptive = 200,
		.str_length = 16, .str_state = 32, .str_ascii_size = 40,
		.str_compact_size = 56, .bytes_sval = 32,
		.tp_flags = 168, .tp_basicsize = 32, .ht_cached_keys = 880,
		.tpf_managed_dict = 16, .tpf_inline_values = 4,
		.obj_values_ptr = -1, .obj_dict_ptr = -24,
		.dict_or_values = false, .obj_inline_values = 16,
		.values_valid = 3,
		.values_values = 8, .dict_keys = 32, .dict_values = 40,
		.dk_log2_index_bytes = 9, .dk_kind = 10, .dk_nentries = 24,
		.dk_indices = 32, .dk_entry_size = 24, .dk_uentry_size = 16,
	},
};

const struct py_layout *py_layout_find(int major, int minor)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].major == major && layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}

const char *py_layout_versions(void)
{
	return "3.11, 3.12, 3.13";
}

void py_version_string(uint32_t hexversion, char *buf, size_t size)
{
	snprintf(buf, size, "%u.%u.%u", hexversion >> 24,
		 (hexversion >> 16) & 0xff, (hexversion >> 8) & 0xff);
}

/* --- reading --- */

static int rd(const struct py_target *t, uint64_t addr, void *buf,
	      size_t len)
{
	if (addr < 4096 || addr + len < addr)
		return -1;
	return t->read(t->arg, addr, buf, len);
}

/* The len bytes at addr, read into buf, or looked at in place where the
 * target is this process (t->direct: the agent's walk of its own
 * thread's frames, which no other thread changes; a copy would fault
 * where the look does). NULL if they cannot be read. */
static const uint8_t *view(const struct py_target *t, uint64_t addr,
			   uint8_t *buf, size_t len)
{
	if (addr < 4096 || addr + len < addr)
		return NULL;
	if (t->direct)
		return (const uint8_t *)(uintptr_t)addr;
	return t->read(t->arg, addr, buf, len) ? NULL : buf;
}

static uint64_t u64_at(const uint8_t *b, int32_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static bool aligned_ptr(uint64_t p)
{
	return p >= 4096 && p % 8 == 0 && p < (1ULL << 56);
}

/* A pointer field at off of the object at addr (0 if it is null). */
static int rd_ptr(const struct py_target *t, uint64_t addr, int32_t off,
		  uint64_t *out)
{
	if (off < 0 || rd(t, addr + (uint64_t)off, out, sizeof(*out)))
		return -1;
	return 0;
}

/* --- threads --- */

/* Thread states are small arrays' worth; interpreters rarely more than a
 * few. Bounds against a list that loops or was freed under us. */
#define MAX_INTERPS 64
#define MAX_THREADS 4096

typedef int (*thread_fn)(void *arg, const struct py_thread *th);

static int thread_read(const struct py_target *t, uint64_t ts,
		       struct py_thread *th, uint64_t *next)
{
	const struct py_layout *l = t->l;
	uint8_t b[256];
	size_t need = (size_t)l->ts_native_thread_id + 8;

	if (need > sizeof(b) || (size_t)l->ts_next + 8 > sizeof(b) ||
	    rd(t, ts, b, need))
		return -1;
	th->tstate = ts;
	th->thread_id = u64_at(b, l->ts_thread_id);
	th->native_id = (uint32_t)u64_at(b, l->ts_native_thread_id);
	*next = u64_at(b, l->ts_next);
	return 0;
}

/* Call fn for every thread until it returns non-zero (its value). 0 when
 * every thread was seen, -1 when a list cannot be read. */
static int threads_each(const struct py_target *t, thread_fn fn, void *arg)
{
	const struct py_layout *l = t->l;
	uint64_t interp, ts, next;
	size_t ni = 0, nt = 0;
	struct py_thread th;
	int r;

	if (rd_ptr(t, t->runtime, l->rt_interp_head, &interp))
		return -1;
	for (; interp; ni++) {
		if (!aligned_ptr(interp) || ni >= MAX_INTERPS ||
		    rd_ptr(t, interp, l->is_threads_head, &ts))
			return -1;
		for (; ts; ts = next, nt++) {
			if (!aligned_ptr(ts) || nt >= MAX_THREADS ||
			    thread_read(t, ts, &th, &next))
				return -1;
			if ((r = fn(arg, &th)))
				return r;
		}
		if (rd_ptr(t, interp, l->is_next, &interp))
			return -1;
	}
	return 0;
}

struct thread_list {
	struct py_thread *out;
	size_t max, n;
};

static int thread_list_add(void *arg, const struct py_thread *th)
{
	struct thread_list *tl = arg;

	if (tl->n < tl->max)
		tl->out[tl->n++] = *th;
	return 0;
}

int py_threads(const struct py_target *t, struct py_thread *out, size_t max)
{
	struct thread_list tl = { out, max, 0 };

	if (threads_each(t, thread_list_add, &tl) < 0)
		return -1;
	return (int)tl.n;
}

struct thread_search {
	uint32_t tid;
	uint64_t found;
};

static int thread_match(void *arg, const struct py_thread *th)
{
	struct thread_search *ts = arg;

	if (th->native_id != ts->tid)
		return 0;
	ts->found = th->tstate;
	return 1;
}

uint64_t py_thread_find(const struct py_target *t, uint32_t tid)
{
	struct thread_search ts = { tid, 0 };

	return threads_each(t, thread_match, &ts) == 1 ? ts.found : 0;
}

int py_gil_holder(const struct py_target *t, uint64_t tstate)
{
	const struct py_layout *l = t->l;
	uint64_t gil, holder, interp;
	int locked;

	if (l->rt_gil >= 0) {
		gil = t->runtime + (uint64_t)l->rt_gil;
	} else {
		/* the GIL of the thread's interpreter (3.12+) */
		if (rd_ptr(t, tstate, l->ts_interp, &interp) ||
		    !aligned_ptr(interp) ||
		    rd_ptr(t, interp, l->is_gil_ptr, &gil) ||
		    !aligned_ptr(gil))
			return -1;
	}
	if (rd(t, gil + (uint64_t)l->gil_locked, &locked, sizeof(locked)) ||
	    rd_ptr(t, gil, l->gil_last_holder, &holder))
		return -1;
	return locked == 1 && holder == tstate;
}

/* --- frames --- */

/* Loop detection with constant memory (Brent): a chain that loops (a
 * frame freed and reused while we walk) comes back to the saved frame
 * within twice its period. */
struct loop {
	uint64_t saved;
	size_t power, lam;
};

static bool loop_step(struct loop *lp, uint64_t f)
{
	if (f == lp->saved)
		return false;
	if (++lp->lam >= lp->power) {
		lp->saved = f;
		lp->power *= 2;
		lp->lam = 0;
	}
	return true;
}

static uint64_t current_frame(const struct py_target *t, uint64_t tstate,
			      enum py_walk_error *err)
{
	const struct py_layout *l = t->l;
	uint64_t cf, f;

	if (l->ts_current_frame >= 0) {
		if (rd_ptr(t, tstate, l->ts_current_frame, &f))
			goto out_unreadable;
		return f;
	}
	if (rd_ptr(t, tstate, l->ts_cframe, &cf))
		goto out_unreadable;
	if (!aligned_ptr(cf)) {
		*err = PY_WALK_BAD_POINTER;
		return 0;
	}
	if (rd_ptr(t, cf, l->cf_current_frame, &f))
		goto out_unreadable;
	return f;
out_unreadable:
	*err = PY_WALK_UNREADABLE;
	return 0;
}

static bool is_code(const struct py_target *t, uint64_t code)
{
	uint64_t type;

	return aligned_ptr(code) && !rd_ptr(t, code, t->l->ob_type, &type) &&
	       type == t->code_type;
}

/* The code object at code of a frame from its first co_code_adaptive
 * bytes b, checked, with its names' pointers. */
static bool frame_code(const struct py_target *t, uint64_t code,
		       const uint8_t *b, struct py_frame *fr)
{
	const struct py_layout *l = t->l;

	if (u64_at(b, l->ob_type) != t->code_type)
		return false;
	fr->qualname_ptr = u64_at(b, l->co_qualname);
	fr->filename_ptr = u64_at(b, l->co_filename);
	fr->bytecode = code + (uint64_t)l->co_code_adaptive;
	fr->code_units = (uint32_t)(u64_at(b, l->ob_size) & 0xffffffff);
	return true;
}

/* The frame before the one being read: where it is, and whether it was
 * read into b (or why not). */
struct next_frame {
	uint64_t addr;		/* 0: none (the outermost frame) */
	enum py_walk_error why;	/* not read: BAD_POINTER, LOOP, UNREADABLE */
	uint8_t *buf;		/* where to read it */
	const uint8_t *b;	/* its bytes (buf, or in place: view) */
};

/* Read the code object at code (its first co_code_adaptive bytes into
 * cb, *cbp then where they are: view; code 0: none, a shim frame's) and
 * the frame before, nx, at once where the target can (t->read2: one
 * system call for both, half the walk's calls), else one by one, the
 * frame only after its code was read. Whether the code object was
 * read. */
static bool read_code_next(const struct py_target *t, struct loop *lp,
			   uint64_t code, uint8_t *cb, const uint8_t **cbp,
			   struct next_frame *nx)
{
	const struct py_layout *l = t->l;
	size_t cl = (size_t)l->co_code_adaptive, fl = (size_t)l->fr_size;
	bool want = false, code_ok = !code;

	nx->why = PY_WALK_OK;
	if (nx->addr && !aligned_ptr(nx->addr))
		nx->why = PY_WALK_BAD_POINTER;
	else if (nx->addr && !loop_step(lp, nx->addr))
		nx->why = PY_WALK_LOOP;
	else
		want = nx->addr != 0;
	if (code && (!aligned_ptr(code) || cl > 256))
		return false;
	*cbp = cb;
	nx->b = nx->buf;
	if (code && want && t->read2 && !t->direct &&
	    !t->read2(t->arg, code, cb, cl, nx->addr, nx->buf, fl))
		return true;
	if (code)
		code_ok = (*cbp = view(t, code, cb, cl)) != NULL;
	if (code_ok && want && !(nx->b = view(t, nx->addr, nx->buf, fl)))
		nx->why = PY_WALK_UNREADABLE;
	return code_ok;
}

size_t py_walk(const struct py_target *t, uint64_t tstate,
	       struct py_frame *out, size_t max, enum py_walk_error *err)
{
	const struct py_layout *l = t->l;
	struct loop lp = { 0, 1, 0 };
	uint8_t fb[2][128], cb[256];
	const uint8_t *b, *cbp;
	struct next_frame nx;
	int cur = 0;		/* fb[cur]: the frame being read, if copied */
	uint64_t f, code, instr;
	size_t n = 0;

	*err = PY_WALK_OK;
	if (max > PY_MAX_DEPTH)
		max = PY_MAX_DEPTH;
	if (!aligned_ptr(tstate)) {
		*err = PY_WALK_BAD_POINTER;
		return 0;
	}
	f = current_frame(t, tstate, err);
	if (!f || *err)
		return 0;
	if (!aligned_ptr(f) || !loop_step(&lp, f)) {
		*err = PY_WALK_BAD_POINTER;
		return 0;
	}
	if ((size_t)l->fr_size > sizeof(fb[0]) ||
	    !(b = view(t, f, fb[0], (size_t)l->fr_size))) {
		*err = PY_WALK_UNREADABLE;
		return 0;
	}
	for (;;) {
		bool shim = l->owner_cstack >= 0 &&
			    b[l->fr_owner] == (uint8_t)l->owner_cstack;

		nx.addr = u64_at(b, l->fr_previous);
		nx.buf = fb[cur ^ 1];
		/* the shim a C-level evaluation starts with: the frame above
		 * it is that evaluation's outermost */
		code = shim ? 0 : u64_at(b, l->fr_code);
		if (shim && n)
			out[n - 1].entry = true;
		if (!shim && n == max) {
			*err = PY_WALK_TOO_DEEP;
			break;
		}
		if (!read_code_next(t, &lp, code, cb, &cbp, &nx) ||
		    (!shim && !frame_code(t, code, cbp, &out[n]))) {
			*err = PY_WALK_BAD_CODE;
			break;
		}
		if (!shim) {
			instr = u64_at(b, l->fr_instr);
			out[n].addr = f;
			out[n].code = code;
			out[n].lasti = -1;
			if (instr >= code + (uint64_t)l->co_code_adaptive &&
			    instr - code < (1ULL << 30))
				out[n].lasti = (int32_t)((int64_t)(instr - code -
					(uint64_t)l->co_code_adaptive) / 2);
			out[n].entry = l->fr_is_entry >= 0 && b[l->fr_is_entry];
			n++;
		}
		if (!nx.addr)
			break;
		if (nx.why) {
			*err = nx.why;
			break;
		}
		f = nx.addr;
		b = nx.b;
		cur ^= 1;
	}
	return n;
}

const char *py_walk_strerror(enum py_walk_error e)
{
	switch (e) {
	case PY_WALK_OK:
		return "no error";
	case PY_WALK_UNREADABLE:
		return "memory cannot be read";
	case PY_WALK_BAD_POINTER:
		return "a misaligned or null frame pointer";
	case PY_WALK_BAD_CODE:
		return "a frame whose code is not a code object";
	case PY_WALK_LOOP:
		return "a frame chain that loops";
	case PY_WALK_TOO_DEEP:
		return "more frames than the walk takes";
	}
	return "unknown error";
}

/* --- code objects --- */

/* One code point as UTF-8 into out[*n..max-1] (the NUL kept room for). */
static void put_utf8(char *out, size_t max, size_t *n, uint32_t c)
{
	char u[4];
	size_t k;

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
	} else if (c < 0x110000) {
		u[0] = (char)(0xf0 | c >> 18);
		u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		k = 4;
	} else {
		u[0] = '?';
		k = 1;
	}
	if (*n + k < max) {
		memcpy(out + *n, u, k);
		*n += k;
	}
}

/* A str object (compact: every str a code object holds) into out as
 * UTF-8, cut to max - 1 bytes: 0, or -1. */
static int str_read(const struct py_target *t, uint64_t addr, char *out,
		    size_t max)
{
	const struct py_layout *l = t->l;
	uint8_t h[96], data[1024];
	uint64_t type, len;
	uint8_t state;
	size_t kind, hdr, take, n = 0;

	if (!aligned_ptr(addr) || (size_t)l->str_compact_size > sizeof(h) ||
	    rd(t, addr, h, (size_t)l->str_ascii_size))
		return -1;
	type = u64_at(h, l->ob_type);
	len = u64_at(h, l->str_length);
	state = h[l->str_state];
	kind = (((state) >> 2) & 7);
	if (type != t->unicode_type || !(state & PY_STATE_COMPACT) ||
	    (kind != 1 && kind != 2 && kind != 4) || len > (1u << 20))
		return -1;
	hdr = (size_t)((state & PY_STATE_ASCII) ? l->str_ascii_size
					       : l->str_compact_size);
	take = (size_t)len * kind;
	if (take > sizeof(data))
		take = sizeof(data) - sizeof(data) % kind;
	if (take && rd(t, addr + hdr, data, take))
		return -1;
	for (size_t i = 0; i < take; i += kind) {
		uint32_t c = kind == 1 ? data[i]
			   : kind == 2 ? (uint32_t)(data[i] | data[i + 1] << 8)
			   : (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 |
			     (uint32_t)data[i + 2] << 16 |
			     (uint32_t)data[i + 3] << 24;

		put_utf8(out, max, &n, c);
	}
	out[n] = '\0';
	return 0;
}

int py_code_read(const struct py_target *t, uint64_t addr,
		 struct py_code *out)
{
	const struct py_layout *l = t->l;
	uint8_t b[256], bh[64];
	uint64_t qual, file, tab, tab_len;
	int32_t first;

	if ((size_t)l->co_code_adaptive > sizeof(b) || !is_code(t, addr) ||
	    rd(t, addr, b, (size_t)l->co_code_adaptive))
		return -1;
	qual = u64_at(b, l->co_qualname);
	file = u64_at(b, l->co_filename);
	tab = u64_at(b, l->co_linetable);
	memcpy(&first, b + l->co_firstlineno, sizeof(first));
	if (str_read(t, qual, out->qualname, sizeof(out->qualname)) ||
	    str_read(t, file, out->filename, sizeof(out->filename)))
		return -1;
	if (!aligned_ptr(tab) || rd(t, tab, bh, (size_t)l->bytes_sval) ||
	    u64_at(bh, l->ob_type) != t->bytes_type)
		return -1;
	tab_len = u64_at(bh, l->ob_size);
	if (tab_len > PY_LINETABLE_MAX)
		return -1;
	out->firstlineno = first;
	out->linetable = tab;
	out->linetable_len = (size_t)tab_len;
	out->qualname_ptr = qual;
	out->filename_ptr = file;
	return 0;
}

/* --- instance attributes --- */

/* Keys tables and value arrays of an instance are small; bounds against
 * a table freed and reused under us. */
#define MAX_ATTR_ENTRIES 256

/* Entry index of the str key name in the dict keys table at keys, and the
 * value the entry itself holds (combined tables): 0, or -1. */
static int keys_find(const struct py_target *t, uint64_t keys,
		     const char *name, uint64_t *ix, uint64_t *value)
{
	const struct py_layout *l = t->l;
	uint8_t h[64], e[24];
	uint64_t nentries, entries, key;
	size_t esize;
	char kname[64];
	uint8_t log2ib;

	if (!aligned_ptr(keys) || (size_t)l->dk_indices > sizeof(h) ||
	    rd(t, keys, h, (size_t)l->dk_indices))
		return -1;
	log2ib = h[l->dk_log2_index_bytes];
	nentries = u64_at(h, l->dk_nentries);
	esize = (size_t)(h[l->dk_kind] == 0 ? l->dk_entry_size
					    : l->dk_uentry_size);
	if (log2ib > 20 || nentries > MAX_ATTR_ENTRIES || esize > sizeof(e))
		return -1;
	entries = keys + (uint64_t)l->dk_indices + (1ULL << log2ib);
	for (uint64_t i = 0; i < nentries; i++) {
		if (rd(t, entries + i * esize, e, esize))
			return -1;
		/* general entries: hash, key, value; unicode: key, value */
		key = u64_at(e, (int32_t)esize - 16);
		if (!key || str_read(t, key, kname, sizeof(kname)) ||
		    strcmp(kname, name))
			continue;
		*ix = i;
		*value = u64_at(e, (int32_t)esize - 8);
		return 0;
	}
	return -1;
}

/* The value at index ix of a PyDictValues at values. */
static int values_at(const struct py_target *t, uint64_t values,
		     uint64_t ix, uint64_t *out)
{
	return aligned_ptr(values) ? rd(t, values +
			(uint64_t)t->l->values_values + 8 * ix, out, 8) : -1;
}

/* The value of str key name in the dict at dict. */
static int dict_get(const struct py_target *t, uint64_t dict,
		    const char *name, uint64_t *out)
{
	const struct py_layout *l = t->l;
	uint64_t type, keys, values, ix, v;

	if (!t->dict_type || !aligned_ptr(dict) ||
	    rd_ptr(t, dict, l->ob_type, &type) || type != t->dict_type ||
	    rd_ptr(t, dict, l->dict_keys, &keys) ||
	    rd_ptr(t, dict, l->dict_values, &values) ||
	    keys_find(t, keys, name, &ix, &v))
		return -1;
	/* a split table's values are apart from its keys */
	if (values)
		return values_at(t, values, ix, out);
	*out = v;
	return 0;
}

int py_attr_str(const struct py_target *t, uint64_t obj, const char *name,
		char *out, size_t max)
{
	const struct py_layout *l = t->l;
	uint64_t type, flags, basic, values = 0, dict = 0, keys, ix, v;
	uint8_t valid;

	if (l->tp_flags < 0 || !aligned_ptr(obj) ||
	    rd_ptr(t, obj, l->ob_type, &type) || !aligned_ptr(type) ||
	    rd_ptr(t, type, l->tp_flags, &flags) ||
	    rd_ptr(t, type, l->tp_basicsize, &basic) ||
	    !(flags & l->tpf_managed_dict))
		return -1;
	/* (negative offsets: -1 is none) */
	if (l->obj_values_ptr != -1 &&
	    rd(t, obj + (uint64_t)(int64_t)l->obj_values_ptr, &values, 8))
		return -1;
	if (rd(t, obj + (uint64_t)(int64_t)l->obj_dict_ptr, &dict, 8))
		return -1;
	if (l->dict_or_values && (dict & 1)) {
		values = dict + 1;
		dict = 0;
	}
	if (l->tpf_inline_values && (flags & l->tpf_inline_values)) {
		/* the inline values, when still in use (valid) */
		if (basic != (uint64_t)l->obj_inline_values ||
		    rd(t, obj + basic + (uint64_t)l->values_valid, &valid, 1))
			return -1;
		if (valid)
			values = obj + basic;
	}
	if (values) {
		/* the keys are the class's shared keys */
		if (rd_ptr(t, type, l->ht_cached_keys, &keys) ||
		    keys_find(t, keys, name, &ix, &v) ||
		    values_at(t, values, ix, &v))
			return -1;
	} else if (dict_get(t, dict, name, &v)) {
		return -1;
	}
	return v ? str_read(t, v, out, max) : -1;
}

int py_frame_local0(const struct py_target *t, const struct py_frame *fr,
		    uint64_t *out)
{
	return aligned_ptr(fr->addr) ? rd_ptr(t, fr->addr, t->l->fr_size, out)
				     : -1;
}

long py_code_linetable(const struct py_target *t, const struct py_code *c,
		       uint8_t *buf, size_t max)
{
	size_t n = c->linetable_len < max ? c->linetable_len : max;

	if (n && rd(t, c->linetable + (uint64_t)t->l->bytes_sval, buf, n))
		return -1;
	return (long)n;
}

/* --- the location table (Objects/locations.md, 3.11+) --- */

struct ltab {
	const uint8_t *p, *end;
};

static int lt_varint(struct ltab *t, unsigned *out)
{
	unsigned v = 0, shift = 0;
	uint8_t b;

	do {
		if (t->p == t->end || shift > 28)
			return -1;
		b = *t->p++;
		v |= (unsigned)(b & 0x3f) << shift;
		shift += 6;
	} while (b & 0x40);
	*out = v;
	return 0;
}

static int lt_svarint(struct ltab *t, int *out)
{
	unsigned v;

	if (lt_varint(t, &v))
		return -1;
	*out = (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
	return 0;
}

/* One entry: its length in code units and its line (-1: none). Returns
 * 0, or -1 at the end or on a malformed entry. */
static int lt_entry(struct ltab *t, int *line, int *units)
{
	unsigned skip;
	uint8_t first;
	int code, delta;

	if (t->p == t->end || !((first = *t->p++) & 0x80))
		return -1;
	code = (first >> 3) & 15;
	*units = (first & 7) + 1;
	switch (code) {
	case 15:		/* no location */
		delta = 0;
		*line = -1;
		return 0;
	case 14:		/* long form: line, end line, columns */
		if (lt_svarint(t, &delta) || lt_varint(t, &skip) ||
		    lt_varint(t, &skip) || lt_varint(t, &skip))
			return -1;
		break;
	case 13:		/* no column */
		if (lt_svarint(t, &delta))
			return -1;
		break;
	case 12: case 11: case 10:	/* one line: two column bytes */
		delta = code - 10;
		if (t->end - t->p < 2)
			return -1;
		t->p += 2;
		break;
	default:		/* short form: one column byte */
		delta = 0;
		if (t->p == t->end)
			return -1;
		t->p++;
		break;
	}
	*line += delta;
	return 1;
}

int py_linetable_line(const uint8_t *tab, size_t len, int firstlineno,
		      int lasti)
{
	struct ltab t = { tab, tab + len };
	int line = firstlineno, at = 0, units, r, cur;

	if (lasti < 0)
		return -1;
	for (;;) {
		cur = line;
		r = lt_entry(&t, &cur, &units);
		if (r < 0)
			return -1;
		if (r == 1)
			line = cur;
		/* an entry without location leaves the running line as
		 * it was for the next one */
		if (lasti < at + units)
			return r == 1 ? line : -1;
		at += units;
	}
}

int py_frame_line(const uint8_t *tab, size_t len, int firstlineno,
		  int lasti)
{
	return lasti < 0 ? firstlineno
			 : py_linetable_line(tab, len, firstlineno, lasti);
}
