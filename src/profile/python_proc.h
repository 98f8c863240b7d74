/*
 * Recognising a CPython process from outside: its interpreter (a
 * libpython shared library or a static `python3.X` executable) among the
 * files of /proc/PID/maps, found by its symbols (_PyRuntime, or
 * Py_Initialize for versions before 3.7), its version read from the
 * binary (the Py_Version symbol, 3.11+; else the file's name,
 * "libpython3.10.so.1.0", "python2.7"), and the run-time addresses the
 * walker (python.h) needs. The file's symbols are read from its ELF
 * .dynsym and .symtab directly (no libdw: cheap enough to do while the
 * program runs).
 */
#ifndef YS_PROFILE_PYTHON_PROC_H
#define YS_PROFILE_PYTHON_PROC_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "profile/python.h"
#include "util/error.h"
#include "util/procdir.h"

struct py_proc {
	uint32_t pid;
	int major, minor;		/* 0 when not known */
	uint32_t hexversion;		/* Py_Version, 0 before 3.11 */
	char version[32];		/* "3.11.2", or "3.10" from a name */
	char path[PATH_MAX];		/* the interpreter's file */
	uint64_t lo, hi;		/* ... mapped at [lo, hi) */
	bool initialized;		/* _PyRuntime has an interpreter */
	/* t.l is NULL when the version is not supported; t.arg is &mem
	 * (a probe's: another process's memory, read through a live
	 * thread of it, picked again when it ends) */
	struct py_target t;
	struct procdir_mem mem;
	/* _PyEval_EvalFrameDefault at run time: [start, end) */
	uint64_t eval_start, eval_end;
	/* its cold part (elfcold.h), where a walk finds it running its
	 * unlikely code (an exception's): [start, end), 0 when none */
	uint64_t eval_cold_start, eval_cold_end;
	/* the functions a thread waits for the GIL in (take_gil where the
	 * symbol table has it, PyEval_RestoreThread, PyEval_AcquireThread,
	 * PyGILState_Ensure): [start, end), 0 when not found */
#define PY_GIL_FUNCS 4
	uint64_t gil_start[PY_GIL_FUNCS], gil_end[PY_GIL_FUNCS];
};

/*
 * Look for a CPython interpreter in process pid. Returns 1 and fills out
 * when one is mapped (out->t.l NULL when its version is not supported:
 * say so naming out->version), 0 when none is, -1 with e set when the
 * process's maps cannot be read. out->t reads with py_proc_read,
 * through out->mem: out->t.arg points into out, so a py_proc is not
 * copied but moved (py_proc_move).
 */
int py_proc_probe(uint32_t pid, struct py_proc *out, struct error *e);

/* *to = *from, reading through to->mem when from read through its own
 * (the thread it reads through, and its next pick, are to's alone:
 * from is not read through after). */
void py_proc_move(struct py_proc *to, const struct py_proc *from);

/* The cold part of the interpreter file path's _PyEval_EvalFrameDefault
 * (elfcold.h), for a report made after the process ended: 0 and its
 * file addresses [*lo, *hi), or -1. */
int py_eval_cold(const char *path, uint64_t *lo, uint64_t *hi);



/*
 * The code of the C library's condition variable waits in process pid
 * (pthread_cond_wait, pthread_cond_timedwait, pthread_cond_clockwait,
 * each version of them): up to max ranges [lo[i], hi[i]) at run time;
 * how many (0 when no C library is mapped or its symbols cannot be
 * read). In CPython 3.11 to 3.13 on Linux the interpreter's own code
 * waits on a condition variable for the GIL alone (take_gil, and
 * drop_gil until another thread took it); its locks are semaphores.
 */
size_t py_proc_condwaits(uint32_t pid, uint64_t *lo, uint64_t *hi,
			 size_t max);

/* Whether path (a mapping's, or a base name) is the C library's file:
 * libc.so.6, libc-2.31.so: its mapping is what py_proc_condwaits
 * reads. */
bool py_proc_is_libc(const char *path);

/* The same for the names path defines or imports (.dynsym only): an
 * imported name's value is 1. */
int py_elf_imports(const char *path, const char *const *names, size_t n,
		   uint64_t *values, uint64_t *sizes);

/*
 * Whether the command line argv (argv[0] looked up in PATH) runs CPython,
 * as far as can be told before it starts (python_exec.c): the program
 * itself (an ELF defining or importing the interpreter's entry points, a
 * file named python*), or a wrapper whose exec chain reaches one: env
 * and programs that run their operands, a shell's -c string or script,
 * a script's #! interpreter or the words of its text ("python3 app.py",
 * or "$@" with Python in its arguments).
 */
bool py_argv_runs_python(char *const *argv);

#endif
