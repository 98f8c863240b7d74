/*
 * Seeds of fuzz_python_walk: a CPython's memory laid out at the offsets
 * of python.c's layout table for each version, as the walk reads it:
 * _PyRuntime, an interpreter, its GIL, one thread state (tid 4242) whose
 * current frame is the innermost of three, in two C-level evaluations
 * (3.11: is_entry; 3.12+: shim frames), code objects with str names and
 * a location table, and the outermost frame threading.Thread._bootstrap,
 * whose self's managed dict names the thread "Worker-1". Not built by
 * meson (a tool run by hand):
 *
 *   cc -std=gnu11 -D_GNU_SOURCE -Isrc -Itests/fuzz -o /tmp/pyseed \
 *      tests/fuzz/seed_python_walk.c src/profile/python.c
 *   /tmp/pyseed tests/fuzz/corpus/python_walk
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "profile/python.h"
#include "fuzz_python.h"

#define SIZE 0x9000
enum {
	INTERP = 0x1000, GIL = 0x3000, TSTATE = 0x3100, CFRAME = 0x3300,
	FRAME = 0x3400,		/* frames 0x100 apart */
	CODE = 0x4000,		/* code objects 0x400 apart */
	STR = 0x5000,		/* strings 0x80 apart */
	TAB = 0x6000,		/* the location table */
	SELF = 0x7040, TYPE = 0x7800, DICT = 0x8000, KEYS = 0x8100,
};

static uint8_t mem[SIZE];

static void p64(uint32_t off, uint64_t v)
{
	memcpy(mem + off, &v, 8);
}

static uint64_t A(uint32_t off)
{
	return PY_BASE + off;
}

/* An ASCII str at STR + 0x80 * i: its address. */
static uint64_t str(const struct py_layout *l, int i, const char *s)
{
	uint32_t o = STR + 0x80u * (uint32_t)i;

	p64(o + (uint32_t)l->ob_type, PY_UNICODE_TYPE);
	p64(o + (uint32_t)l->str_length, strlen(s));
	mem[o + (uint32_t)l->str_state] = PY_STATE_COMPACT | PY_STATE_ASCII |
					  PY_STATE_KIND(1);
	memcpy(mem + o + (uint32_t)l->str_ascii_size, s, strlen(s));
	return A(o);
}

static uint64_t code(const struct py_layout *l, int i, const char *qual,
		     const char *file, int first, uint64_t tab)
{
	uint32_t o = CODE + 0x400u * (uint32_t)i;
	int32_t f = first;

	p64(o + (uint32_t)l->ob_type, PY_CODE_TYPE);
	p64(o + (uint32_t)l->ob_size, 24);	/* code units */
	p64(o + (uint32_t)l->co_qualname, str(l, 3 * i, qual));
	p64(o + (uint32_t)l->co_name, str(l, 3 * i + 1, qual));
	p64(o + (uint32_t)l->co_filename, str(l, 3 * i + 2, file));
	p64(o + (uint32_t)l->co_linetable, tab);
	memcpy(mem + o + l->co_firstlineno, &f, 4);
	return A(o);
}

/* Frame k at FRAME + 0x100 k: code (0: a shim), the one before, the
 * instruction (code units into the code), entry (3.11). */
static uint64_t frame(const struct py_layout *l, int k, uint64_t c,
		      uint64_t prev, int unit, int entry)
{
	uint32_t o = FRAME + 0x100u * (uint32_t)k;

	p64(o + (uint32_t)l->fr_code, c);
	p64(o + (uint32_t)l->fr_previous, prev);
	if (c)
		p64(o + (uint32_t)l->fr_instr,
		    c + (uint64_t)l->co_code_adaptive + 2u * (uint64_t)unit);
	if (l->fr_is_entry >= 0)
		mem[o + (uint32_t)l->fr_is_entry] = (uint8_t)entry;
	if (!c)
		mem[o + (uint32_t)l->fr_owner] = (uint8_t)l->owner_cstack;
	return A(o);
}

static void layout(const struct py_layout *l)
{
	/* 8 units at line first + 1, 8 at first + 3, 8 at first + 4 */
	static const uint8_t lt[] = { 0xef, 0x02, 0xef, 0x04, 0xdf, 0x01,
				      0x05 };
	uint64_t tab = A(TAB), c0, c1, c2, f3, f1, s1 = 0, s2 = 0;
	bool shims = l->owner_cstack >= 0;

	memset(mem, 0, sizeof(mem));
	p64(TAB + (uint32_t)l->ob_type, PY_BYTES_TYPE);
	p64(TAB + (uint32_t)l->ob_size, sizeof(lt));
	memcpy(mem + TAB + l->bytes_sval, lt, sizeof(lt));
	c0 = code(l, 0, "Worker.step", "/srv/app/work.py", 10, tab);
	c1 = code(l, 1, "Worker.run", "/srv/app/work.py", 20, tab);
	c2 = code(l, 2, "Thread._bootstrap", "/usr/lib/python3/threading.py",
		  990, tab);
	/* innermost first: f0 -> f1 [-> shim] -> f3 [-> shim] */
	if (shims)
		s2 = frame(l, 4, 0, 0, 0, 0);
	f3 = frame(l, 3, c2, s2, 17, 1);
	p64(FRAME + 0x300u + (uint32_t)l->fr_size, A(SELF));
	if (shims)
		s1 = frame(l, 2, 0, f3, 0, 0);
	f1 = frame(l, 1, c1, shims ? s1 : f3, 9, 1);
	frame(l, 0, c0, f1, 3, 0);
	/* the thread, its interpreter, the GIL it holds */
	p64((uint32_t)l->rt_interp_head, A(INTERP));
	p64(INTERP + (uint32_t)l->is_threads_head, A(TSTATE));
	p64(TSTATE + (uint32_t)l->ts_interp, A(INTERP));
	p64(TSTATE + (uint32_t)l->ts_thread_id, 0x7f0000001234);
	p64(TSTATE + (uint32_t)l->ts_native_thread_id, 4242);
	if (l->ts_current_frame >= 0) {
		p64(TSTATE + (uint32_t)l->ts_current_frame, A(FRAME));
	} else {
		p64(TSTATE + (uint32_t)l->ts_cframe, A(CFRAME));
		p64(CFRAME + (uint32_t)l->cf_current_frame, A(FRAME));
	}
	{
		uint32_t g = l->rt_gil >= 0 ? (uint32_t)l->rt_gil : GIL;

		if (l->rt_gil < 0)
			p64(INTERP + (uint32_t)l->is_gil_ptr, A(GIL));
		mem[g + (uint32_t)l->gil_locked] = 1;
		p64(g + (uint32_t)l->gil_last_holder, A(TSTATE));
	}
	/* self: a class instance, its attributes in a managed dict */
	p64(SELF + (uint32_t)l->ob_type, A(TYPE));
	p64(TYPE + (uint32_t)l->tp_flags, l->tpf_managed_dict);
	p64(TYPE + (uint32_t)l->tp_basicsize, 16);
	p64(SELF + (uint32_t)(int32_t)l->obj_dict_ptr, A(DICT));
	p64(DICT + (uint32_t)l->ob_type, PY_DICT_TYPE);
	p64(DICT + (uint32_t)l->dict_keys, A(KEYS));
	mem[KEYS + (uint32_t)l->dk_log2_index_bytes] = 3;
	mem[KEYS + (uint32_t)l->dk_kind] = 1;	/* unicode keys */
	p64(KEYS + (uint32_t)l->dk_nentries, 2);
	{
		uint32_t e = KEYS + (uint32_t)l->dk_indices + 8;

		p64(e, str(l, 20, "_target"));
		p64(e + 8, str(l, 21, "run"));
		p64(e + 16, str(l, 22, "_name"));
		p64(e + 24, str(l, 23, "Worker-1"));
	}
}

static int save(const char *dir, const char *name, int ver, int flags)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fputc(ver, f);
	fputc(flags, f);
	fwrite(mem, 1, sizeof(mem), f);
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const char *const names[3] = { "py311", "py312", "py313" };
	char name[64];
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: pyseed DIR\n");
		return 2;
	}
	for (int v = 0; v < 3; v++) {
		layout(py_layout_find(3, 11 + v));
		/* two evaluations, whole and one-call reads; cut short with
		 * one; off-CPU with three (mismatched) */
		snprintf(name, sizeof(name), "%s-eval2", names[v]);
		bad |= save(argv[1], name, v, 2 << 2);
		snprintf(name, sizeof(name), "%s-eval2-read2", names[v]);
		bad |= save(argv[1], name, v, 1 | 2 << 2);
		snprintf(name, sizeof(name), "%s-cut1", names[v]);
		bad |= save(argv[1], name, v, 2 | 1 << 2);
		snprintf(name, sizeof(name), "%s-offcpu3", names[v]);
		bad |= save(argv[1], name, v, 16 | 3 << 2);
	}
	return bad;
}
