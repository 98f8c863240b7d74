/* Where fuzz_python_walk.c's remote memory and the objects it names are
 * (its seed generator, seed_python_walk.c, lays structures out there). */
#ifndef YS_FUZZ_PYTHON_H
#define YS_FUZZ_PYTHON_H

#define PY_BASE		0x100000u	/* the memory: _PyRuntime first */
#define PY_CODE_TYPE	0x7100u		/* the type objects: never read */
#define PY_UNICODE_TYPE	0x7200u
#define PY_BYTES_TYPE	0x7300u
#define PY_DICT_TYPE	0x7400u
#define PY_FILE_LO	0x400000u	/* the interpreter's file */
#define PY_FILE_HI	0x500000u
#define PY_EVAL_LO	0x401000u	/* _PyEval_EvalFrameDefault */
#define PY_EVAL_HI	0x402000u

#endif
