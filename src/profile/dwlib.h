/*
 * libdw and libelf (elfutils), and the C++ demangler, loaded with dlopen
 * when symbolization first needs them, not linked: linked, they and
 * what they pull in (libstdc++, liblzma, libbz2) were loaded and
 * relocated at every start of yardstick, `--version` included, for the
 * two commands (record, mem) that read symbols. Only their headers are
 * needed to build.
 *
 * elfmod.c and unwind.c call libdw through the table dw
 * (dw.dwfl_begin(...)), filled by dwlib_load (util/dynlib.h).
 */
#ifndef YS_PROFILE_DWLIB_H
#define YS_PROFILE_DWLIB_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "util/dynlib.h"
#include "util/error.h"

/* Every libdw and libelf function yardstick calls. */
#define DWLIB_FUNCTIONS(X)						\
	X(dwarf_attr) X(dwarf_attr_integrate) X(dwarf_child)		\
	X(dwarf_diename) X(dwarf_filesrc) X(dwarf_formstring)		\
	X(dwarf_formudata) X(dwarf_getscopes) X(dwarf_getscopes_die)	\
	X(dwarf_getsrc_die) X(dwarf_getsrcfiles) X(dwarf_haspc)		\
	X(dwarf_lineno) X(dwarf_linesrc) X(dwarf_ranges)		\
	X(dwarf_siblingof) X(dwarf_tag)					\
	X(dwfl_attach_state) X(dwfl_begin) X(dwfl_build_id_find_elf)	\
	X(dwfl_end) X(dwfl_frame_pc) X(dwfl_getthread_frames)		\
	X(dwfl_module_addrdie) X(dwfl_module_getelf) X(dwfl_module_info)\
	X(dwfl_module_getsym_info) X(dwfl_module_getsymtab)		\
	X(dwfl_module_nextcu) X(dwfl_offline_section_address)		\
	X(dwfl_report_begin) X(dwfl_report_elf) X(dwfl_report_end)	\
	X(dwfl_standard_find_debuginfo)					\
	X(dwfl_thread_state_register_pc)				\
	X(dwfl_thread_state_registers)					\
	X(elf_getphdrnum) X(gelf_getehdr) X(gelf_getphdr)		\
	X(elf_nextscn) X(elf_getscn) X(elf_getshdrstrndx) X(elf_strptr)	\
	X(elf_getdata) X(gelf_getshdr) X(gelf_getrela) X(gelf_getsym)	\
	X(dwfl_module_eh_cfi) X(dwarf_cfi_addrframe)

/* Valid once dwlib_load has returned 0. */
extern DYNLIB_TABLE(dwlib, DWLIB_FUNCTIONS) dw;

/* libdwfl's standard callbacks, valid once dwlib_load has returned 0:
 * files at the addresses they were reported at (elfmod.c), and a
 * process's files (unwind.c). libdwfl keeps the pointer it is given. */
extern Dwfl_Callbacks dwlib_offline_callbacks, dwlib_process_callbacks;

/*
 * Load libdw (once; later calls give the first answer). Returns 0, or -1
 * with an error naming the library that cannot be loaded and the
 * package to install.
 */
int dwlib_load(struct error *e);

/*
 * The demangled form of a C++ symbol name (malloc'ed, the caller frees
 * it), or NULL if it is not one or the C++ runtime (libstdc++.so.6,
 * loaded at the first call) cannot be loaded.
 */
char *dwlib_demangle(const char *mangled);

#endif
