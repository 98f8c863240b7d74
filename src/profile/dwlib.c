/*
 * libdw, libelf and the C++ demangler loaded on first need (dwlib.h,
 * util/dynlib.h). libdw.so.1 brings libelf.so.1 (and libz, liblzma,
 * libbz2) as its own dependencies: its handle finds libelf's functions.
 */
#include "profile/dwlib.h"

#include <stdlib.h>

union dwlib dw;
Dwfl_Callbacks dwlib_offline_callbacks, dwlib_process_callbacks;

static const char *const dw_names[] = { DWLIB_FUNCTIONS(DYNLIB_NAME) };
static struct dynlib dw_lib = {
	.soname = "libdw.so.1", .package = "libdw1",
	.purpose = "elfutils, which reads symbols and debug information",
	.names = dw_names, .fn = dw.fn,
	.n = sizeof(dw_names) / sizeof(dw_names[0]),
};

_Static_assert(sizeof(dw.fn) == sizeof(dw), "dw: a pointer per function");

int dwlib_load(struct error *e)
{
	if (dynlib_load(&dw_lib, e))
		return -1;
	dwlib_offline_callbacks = (Dwfl_Callbacks){
		.find_elf = dw.dwfl_build_id_find_elf,
		.find_debuginfo = dw.dwfl_standard_find_debuginfo,
		.section_address = dw.dwfl_offline_section_address,
	};
	dwlib_process_callbacks = (Dwfl_Callbacks){
		.find_elf = dw.dwfl_build_id_find_elf,
		.find_debuginfo = dw.dwfl_standard_find_debuginfo,
	};
	return 0;
}

/* The C++ ABI's demangler, in libstdc++; elfutils exports none. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
		     int *status);
#define CXX_FUNCTIONS(X) X(__cxa_demangle)
static union {
	struct {
		CXX_FUNCTIONS(DYNLIB_FIELD)
	};
	void *fn[0 CXX_FUNCTIONS(DYNLIB_COUNT)];
} cxx;
static const char *const cxx_names[] = { CXX_FUNCTIONS(DYNLIB_NAME) };
static struct dynlib cxx_lib = {
	.soname = "libstdc++.so.6", .package = "libstdc++6",
	.purpose = "the C++ runtime, for its demangler",
	.names = cxx_names, .fn = cxx.fn, .n = 1,
};

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
