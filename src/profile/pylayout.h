/*
 * The layout of CPython's own structures that a walk of a thread's Python
 * frames reads, per supported CPython version: one entry of a table, so a
 * version is one entry plus a test. Plain C and header-only: the heap
 * agent (src/heap/agent_python.h, a shared object with no yardstick code)
 * includes it as well as yardstick.
 *
 * The offsets were measured with offsetof() against each version's own
 * headers (Py_BUILD_CORE, internal/pycore_frame.h, pycore_code.h) on
 * x86-64: Debian 12's python3.11 (3.11.2) and pyenv's 3.11.7 agree;
 * 3.12.1 and 3.13.0 as built by pyenv. The walk, in every version:
 *
 *   tstate = the thread's PyThreadState (its thread_id is the thread's
 *            pthread_self(): a thread state of another thread is never
 *            walked)
 *   frame  = 3.11, 3.12: tstate->cframe->current_frame
 *            3.13:       tstate->current_frame
 *   then frame->previous, up to NULL. A frame owned by the C stack
 *   (owner == owner_cstack, 3.12+: the entry frame each call of
 *   _PyEval_EvalFrameDefault pushes) is the boundary between two calls of
 *   the evaluation loop and runs no code; in 3.11 the frame a call of
 *   the loop entered has is_entry set. The frame's code object (its type
 *   is &PyCode_Type, checked), its instruction pointer (3.11, 3.12: the
 *   last instruction run; 3.13: the current one, both read as
 *   instr - code_adaptive bytes into the code, which PyCode_Addr2Line
 *   turns into a line), the code's co_filename and co_qualname (str).
 */
#ifndef YS_PROFILE_PYLAYOUT_H
#define YS_PROFILE_PYLAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define PY_LAYOUT_NONE 0xffff	/* the field does not exist */

struct py_layout {
	uint16_t version;		/* major << 8 | minor, 0x030b */
	/* PyThreadState */
	uint16_t ts_thread_id;		/* unsigned long */
	uint16_t ts_cframe;		/* _PyCFrame *, or NONE */
	uint16_t current_frame;		/* in *ts_cframe, else in the tstate */
	/* _PyInterpreterFrame */
	uint16_t f_code;		/* f_code / f_executable */
	uint16_t f_previous;
	uint16_t f_instr;		/* prev_instr / instr_ptr */
	uint16_t f_owner;		/* char */
	uint16_t f_is_entry;		/* bool (3.11), or NONE */
	uint16_t owner_cstack;		/* the C stack's owner value, or NONE */
	/* PyCodeObject */
	uint16_t co_filename, co_qualname, co_firstlineno, co_linetable;
	uint16_t co_code_adaptive;	/* the instructions, in the object */
	/* str: PyASCIIObject's size (a compact ASCII string's characters
	 * follow it), PyCompactUnicodeObject's (other compact strings') */
	uint16_t str_ascii_size, str_compact_size;
};

/* Fields at the same place in every version. */
#define PY_OB_TYPE	8	/* PyObject.ob_type */
#define PY_OB_SIZE	16	/* PyVarObject.ob_size: a code's size in
				 * 2-byte code units */
#define PY_STR_LENGTH	16	/* PyASCIIObject.length (characters) */
#define PY_STR_STATE	32	/* its state bits: kind 2-4, compact 5,
				 * ascii 6 */

static const struct py_layout py_layouts[] = {
	{ .version = 0x030b, .ts_thread_id = 152, .ts_cframe = 56,
	  .current_frame = 8, .f_code = 32, .f_previous = 48, .f_instr = 56,
	  .f_owner = 69, .f_is_entry = 68, .owner_cstack = PY_LAYOUT_NONE,
	  .co_filename = 112, .co_qualname = 128, .co_firstlineno = 72,
	  .co_linetable = 136, .co_code_adaptive = 184,
	  .str_ascii_size = 48, .str_compact_size = 72 },
	{ .version = 0x030c, .ts_thread_id = 136, .ts_cframe = 56,
	  .current_frame = 0, .f_code = 0, .f_previous = 8, .f_instr = 56,
	  .f_owner = 70, .f_is_entry = PY_LAYOUT_NONE, .owner_cstack = 3,
	  .co_filename = 112, .co_qualname = 128, .co_firstlineno = 68,
	  .co_linetable = 136, .co_code_adaptive = 192,
	  .str_ascii_size = 40, .str_compact_size = 56 },
	{ .version = 0x030d, .ts_thread_id = 152, .ts_cframe = PY_LAYOUT_NONE,
	  .current_frame = 72, .f_code = 0, .f_previous = 8, .f_instr = 56,
	  .f_owner = 70, .f_is_entry = PY_LAYOUT_NONE, .owner_cstack = 3,
	  .co_filename = 112, .co_qualname = 128, .co_firstlineno = 68,
	  .co_linetable = 136, .co_code_adaptive = 200,
	  .str_ascii_size = 40, .str_compact_size = 56 },
};

/* The layout of CPython hexversion (PY_VERSION_HEX, Py_Version), or NULL:
 * a version not in the table is not walked. */
static inline const struct py_layout *py_layout_of(uint32_t hexversion)
{
	uint16_t v = (uint16_t)(hexversion >> 16);

	for (size_t i = 0; i < sizeof(py_layouts) / sizeof(py_layouts[0]); i++)
		if (py_layouts[i].version == v)
			return &py_layouts[i];
	return NULL;
}

#endif
