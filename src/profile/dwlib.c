/*
 * libdw, libelf and the C++ demangler loaded on first need (dwlib.h,
 * util/dynlib.h). libdw.so.1 brings libelf.so.1 (and libz, liblzma,
 * libbz2) as its own dependencies: its handle finds libelf's functions.
 */
#include "profile/dwlib.h"

#include <stdio.h>
#include <stdlib.h>

#include "profile/symcache.h"

union dwlib dw;
Dwfl_Callbacks dwlib_offline_callbacks, dwlib_process_callbacks;
/* libdwfl's search path for separate debug files: beside the file, in
 * its .debug directory, then under the debug root (symcache.h), where it
 * looks by build-id first. libdwfl keeps the pointer. */
static char debug_path[4200];
static char *debug_path_p = debug_path;

static struct dynlib dw_lib = DYNLIB(dw, DWLIB_FUNCTIONS, "libdw.so.1",
	"libdw1", "elfutils, which reads symbols and debug information");

int dwlib_load(struct error *e)
{
	if (dynlib_load(&dw_lib, e))
		return -1;
	snprintf(debug_path, sizeof(debug_path), ":.debug:%s",
		 symcache_debug_root());
	dwlib_offline_callbacks = (Dwfl_Callbacks){
		.find_elf = dw.dwfl_build_id_find_elf,
		.find_debuginfo = dw.dwfl_standard_find_debuginfo,
		.section_address = dw.dwfl_offline_section_address,
		.debuginfo_path = &debug_path_p,
	};
	dwlib_process_callbacks = (Dwfl_Callbacks){
		.find_elf = dw.dwfl_build_id_find_elf,
		.find_debuginfo = dw.dwfl_standard_find_debuginfo,
		.debuginfo_path = &debug_path_p,
	};
	return 0;
}

/* The C++ ABI's demangler, in libstdc++; elfutils exports none. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
		     int *status);
#define CXX_FUNCTIONS(X) X(__cxa_demangle)
static DYNLIB_TABLE(cxx_fns, CXX_FUNCTIONS) cxx;
static struct dynlib cxx_lib = DYNLIB(cxx, CXX_FUNCTIONS, "libstdc++.so.6",
	"libstdc++6", "the C++ runtime, for its demangler");

char *dwlib_demangle(const char *mangled)
{
	struct error e;
	int status = -1;
	char *d;

	if (dynlib_load(&cxx_lib, &e))
		return NULL;
	d = cxx.__cxa_demangle(mangled, NULL, NULL, &status);
	if (d && status) {
		free(d);
		d = NULL;
	}
	return d;
}
