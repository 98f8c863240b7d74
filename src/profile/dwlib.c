/*
 * libdw, libelf and the C++ demangler loaded on first need (dwlib.h,
 * util/dynlib.h). libdw.so.1 brings libelf.so.1 (and libz, liblzma,
 * libbz2) as its own dependencies: its handle finds libelf's functions.
 */
#include "profile/dwlib.h"

#include <stdlib.h>

#ifdef __SANITIZE_ADDRESS__
/*
 * Sanitizer builds only: the leak checker of gcc 12's sanitizers guesses
 * the bounds of a dlopen'ed library's thread-local block (libdw's, libelf's)
 * from a glibc 2.19 header that glibc no longer writes; when the block
 * happens to sit 16 bytes into a page it reads garbage and crashes at exit
 * ("Tracer caught signal 11"), by the luck of heap layout. Those blocks
 * hold error codes, no pointers: they need not be scanned. Options from
 * ASAN_OPTIONS still apply over this.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "intercept_tls_get_addr=0";
}
#endif

union dwlib dw;
Dwfl_Callbacks dwlib_offline_callbacks, dwlib_process_callbacks;

static struct dynlib dw_lib = DYNLIB(dw, DWLIB_FUNCTIONS, "libdw.so.1",
	"libdw1", "elfutils, which reads symbols and debug information");

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
