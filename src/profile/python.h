/*
 * CPython's frames, read from the interpreter's memory: the one home of
 * the per-version layout table and of the frame walker that `record`,
 * `trace` and `mem` (through the heap agent) use.
 *
 * The walker follows _PyRuntime → interpreters → threads → the thread's
 * current _PyInterpreterFrame → previous ..., reading memory through a
 * callback (process_vm_readv for another process, plain loads inside
 * it), so it neither allocates nor depends on anything but libc: the
 * heap agent links it. Everything read is input from a running program
 * that does not stop for us: every pointer is checked (alignment, a code
 * object's type is PyCode_Type, bounded lengths, no loop, bounded depth)
 * and a walk that fails a check reports it instead of guessing.
 *
 * A version is one entry of the table in python.c; the test
 * tests/cli/python_layout.sh compiles a file against each installed
 * version's internal headers and compares every offset with the table.
 */
#ifndef YS_PROFILE_PYTHON_H
#define YS_PROFILE_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Offsets (bytes) in one CPython minor version's structures. A field a
 * version lacks is -1. */
struct py_layout {
	int major, minor;
	/* _PyRuntimeState */
	int32_t rt_interp_head;		/* interpreters.head */
	int32_t rt_gil;			/* ceval.gil, embedded (3.11) */
	int32_t rt_finalizing;		/* _finalizing: the thread state
					 * finalizing, set as Py_FinalizeEx
					 * begins to tear down (after the
					 * atexit handlers), 0 before */
	/* PyInterpreterState */
	int32_t is_next;
	int32_t is_threads_head;	/* threads.head */
	int32_t is_gil_ptr;		/* ceval.gil, a pointer (3.12+) */
	/* struct _gil_runtime_state */
	int32_t gil_locked, gil_last_holder;
	/* PyThreadState */
	int32_t ts_next, ts_interp, ts_thread_id, ts_native_thread_id;
	int32_t ts_cframe;		/* cframe (3.11, 3.12) */
	int32_t ts_current_frame;	/* current_frame (3.13+) */
	int32_t cf_current_frame;	/* _PyCFrame.current_frame */
	/* _PyInterpreterFrame */
	int32_t fr_code;		/* f_code; f_executable (3.13) */
	int32_t fr_previous;
	int32_t fr_instr;		/* prev_instr; instr_ptr (3.13) */
	int32_t fr_is_entry;		/* is_entry (3.11) */
	int32_t fr_owner;
	int32_t fr_size;		/* up to localsplus: what to read */
	bool instr_is_current;		/* instr_ptr: the instruction
					 * executing, not the one before */
	int owner_cstack;		/* FRAME_OWNED_BY_CSTACK: the shim
					 * frame of a C-level call (3.12+),
					 * -1 */
	/* PyObject, PyVarObject */
	int32_t ob_type, ob_size;
	/* PyCodeObject */
	int32_t co_filename, co_name, co_qualname, co_linetable;
	int32_t co_firstlineno, co_code_adaptive;
	/* PyASCIIObject, PyCompactUnicodeObject, PyBytesObject */
	int32_t str_length, str_state;
	int32_t str_ascii_size, str_compact_size;	/* data follows */
	int32_t bytes_sval;
	/* an instance's attributes (py_attr_str): PyTypeObject, its
	 * flags, PyHeapTypeObject's shared keys */
	int32_t tp_flags, tp_basicsize, ht_cached_keys;
	uint64_t tpf_managed_dict, tpf_inline_values;	/* 0: none */
	int32_t obj_values_ptr;		/* PyDictValues * at obj + this
					 * (3.11), -1 */
	int32_t obj_dict_ptr;		/* the managed dict at obj + this;
					 * tagged dict-or-values (3.12) */
	bool dict_or_values;		/* 3.12: odd = the values - 1 */
	int32_t obj_inline_values;	/* inline values at obj + this
					 * (3.13, = tp_basicsize), -1 */
	int32_t values_valid;		/* PyDictValues.valid (3.13), -1 */
	int32_t values_values;		/* PyDictValues.values */
	int32_t dict_keys, dict_values;	/* PyDictObject ma_keys, ma_values */
	int32_t dk_log2_index_bytes, dk_kind, dk_nentries, dk_indices;
	int32_t dk_entry_size, dk_uentry_size;	/* general, unicode */
};

/* PyASCIIObject.state's first byte: kind at bits 2-4, compact bit 5,
 * ascii bit 6 (the same in 3.11-3.13; the layout test checks it). */
#define PY_STATE_KIND(k) ((k) << 2)
#define PY_STATE_COMPACT 0x20
#define PY_STATE_ASCII 0x40

/* The layout of CPython major.minor, or NULL if it is not supported. */
const struct py_layout *py_layout_find(int major, int minor);
/* The versions supported, for messages: "3.11, 3.12, 3.13". */
const char *py_layout_versions(void);

/* Read len bytes at addr of the interpreter's memory into buf: 0, or -1
 * if they cannot be read. */
typedef int (*py_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);
/* Read two ranges at once (one system call: process_vm_readv with two
 * iovecs): 0 when both were read whole, -1 otherwise (the walk then reads
 * them one by one to tell which failed). */
typedef int (*py_read2_fn)(void *arg, uint64_t a1, void *b1, size_t l1,
			   uint64_t a2, void *b2, size_t l2);

/* Where an interpreter's objects are: its _PyRuntime and the type objects
 * a walk checks pointers against (run-time addresses). */
struct py_target {
	const struct py_layout *l;
	uint64_t runtime, code_type, unicode_type, bytes_type;
	uint64_t dict_type;		/* 0: instance dicts not read */
	py_read_fn read;
	py_read2_fn read2;		/* NULL: two reads */
	bool direct;			/* this process: py_walk looks at the
					 * frames and code objects in place
					 * rather than copy them (read is
					 * still used for the rest) */
	void *arg;
};

/* A thread of the interpreter. */
struct py_thread {
	uint64_t tstate;		/* its PyThreadState */
	uint64_t thread_id;		/* threading.get_ident() */
	uint32_t native_id;		/* the kernel's tid */
};

/*
 * The threads of every interpreter, at most max into out. Returns how
 * many, or -1 if the lists cannot be read (a loop, an unreadable or
 * misaligned pointer).
 */
int py_threads(const struct py_target *t, struct py_thread *out, size_t max);

/* The PyThreadState whose native thread id is tid (0 if none) — 0 too
 * when the lists cannot be read. */
uint64_t py_thread_find(const struct py_target *t, uint32_t tid);

/* Whether the thread tstate holds the GIL: 1, 0, or -1 when it cannot be
 * known. */
int py_gil_holder(const struct py_target *t, uint64_t tstate);

/* One Python frame, innermost first in a walk. */
struct py_frame {
	uint64_t addr;			/* its _PyInterpreterFrame */
	uint64_t code;			/* its PyCodeObject */
	int32_t lasti;			/* the instruction (code units
					 * from the first), -1 if unknown */
	bool entry;			/* the outermost frame of one
					 * C-level evaluation: the frames up
					 * to here belong to one
					 * _PyEval_EvalFrameDefault */
	/* the code object's co_qualname and co_filename: a code object
	 * at an address seen before is the same one if they are equal */
	uint64_t qualname_ptr, filename_ptr;
	/* its bytecode: [code + co_code_adaptive, + 2 * code_units) */
	uint64_t bytecode;
	uint32_t code_units;
};

/* Why a walk stopped short. */
enum py_walk_error {
	PY_WALK_OK = 0,
	PY_WALK_UNREADABLE,		/* memory that cannot be read */
	PY_WALK_BAD_POINTER,		/* misaligned or null where a frame
					 * or object must be */
	PY_WALK_BAD_CODE,		/* a code pointer whose type is not
					 * PyCode_Type */
	PY_WALK_LOOP,			/* a frame seen twice */
	PY_WALK_TOO_DEEP,		/* more frames than max */
};

/*
 * The Python frames of thread tstate, innermost first, at most max
 * (PY_MAX_DEPTH or less) into out; *err says why the walk stopped short
 * (the frames before it are valid, but the caller should not use a
 * partial stack). Returns how many. Frames with no code object (3.13's
 * C-stack shims) are not frames; the shims mark `entry` on the frame
 * above them.
 */
#define PY_MAX_DEPTH 2048
size_t py_walk(const struct py_target *t, uint64_t tstate,
	       struct py_frame *out, size_t max, enum py_walk_error *err);

/* A string of the walk's errors, for messages. */
const char *py_walk_strerror(enum py_walk_error e);

/* What a code object says about itself; strings NUL-terminated UTF-8,
 * cut to their buffers. */
#define PY_NAME_MAX 256
#define PY_FILE_MAX 1024
#define PY_LINETABLE_MAX 65536
struct py_code {
	char qualname[PY_NAME_MAX];
	char filename[PY_FILE_MAX];
	int firstlineno;
	uint64_t linetable;		/* its bytes object */
	size_t linetable_len;
	/* the pointers the names came from: a code object at a reused
	 * address differs in one of them */
	uint64_t qualname_ptr, filename_ptr;
};

/* Read code object addr: 0, or -1 if it cannot be read or fails a check
 * (type, string kinds and lengths). */
int py_code_read(const struct py_target *t, uint64_t addr,
		 struct py_code *out);

/* Read the code object's location table (up to max bytes, at most
 * PY_LINETABLE_MAX) into buf: its length, or -1. */
long py_code_linetable(const struct py_target *t, const struct py_code *c,
		       uint8_t *buf, size_t max);

/*
 * The line of the instruction at lasti (code units) from a 3.11+ location
 * table (co_linetable) of a code object starting at firstlineno, or -1
 * when it has no line (or the table ends first).
 */
int py_linetable_line(const uint8_t *tab, size_t len, int firstlineno,
		      int lasti);

/*
 * The line a frame is at, as CPython tells it (PyCode_Addr2Line): a
 * frame entered and not yet at its first instruction (lasti -1, which a
 * sample can catch) is at its code's first line, else py_linetable_line.
 */
int py_frame_line(const uint8_t *tab, size_t len, int firstlineno,
		  int lasti);

/*
 * The str attribute name of the object at obj (an instance of a Python
 * class, its attributes in its managed dict or inline values), as UTF-8
 * into out (cut to max - 1 bytes): 0, or -1 when it cannot be read, is
 * absent or is not a str. Every pointer on the way is checked (types,
 * alignment, bounded tables).
 */
int py_attr_str(const struct py_target *t, uint64_t obj, const char *name,
		char *out, size_t max);

/* The first local (localsplus[0], `self` of a method) of frame fr: 0 or
 * -1. */
int py_frame_local0(const struct py_target *t, const struct py_frame *fr,
		    uint64_t *out);

/* "3.11.2" from a Py_Version value (0x030b02f0), into buf. */
void py_version_string(uint32_t hexversion, char *buf, size_t size);

#endif
