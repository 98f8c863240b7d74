/*
 * libdw, libelf and the C++ demangler loaded on first need (see dwlib.h).
 * libdw.so.1 brings libelf.so.1 (and libz, liblzma, libbz2) as its own
 * dependencies, so its handle finds libelf's functions too.
 */
#include "profile/dwlib.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

struct dwlib dw;

static struct {
	bool tried, ok;
	char why[512];			/* the failure, when !ok */
} dw_state;

int dwlib_load(struct error *e)
{
	void *h;
	const char *missing = NULL;

	if (dw_state.tried)
		goto out;
	dw_state.tried = true;
	h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *err = dlerror();

		snprintf(dw_state.why, sizeof(dw_state.why), "%s",
			 err ? err : "not found");
		goto out;
	}
#define DWLIB_LOAD(name)						\
	if (!(*(void **)&dw.name = dlsym(h, #name)) && !missing)	\
		missing = #name;
	DWLIB_FUNCTIONS(DWLIB_LOAD)
#undef DWLIB_LOAD
	if (missing) {
		snprintf(dw_state.why, sizeof(dw_state.why),
			 "it has no '%s' (elfutils 0.158 or later needed)",
			 missing);
		dlclose(h);
		goto out;
	}
	dw.offline_callbacks = (Dwfl_Callbacks){
		.find_elf = dw.dwfl_build_id_find_elf,
		.find_debuginfo = dw.dwfl_standard_find_debuginfo,
		.section_address = dw.dwfl_offline_section_address,
	};
	dw.process_callbacks = (Dwfl_Callbacks){
		.find_elf = dw.dwfl_build_id_find_elf,
		.find_debuginfo = dw.dwfl_standard_find_debuginfo,
	};
	dw_state.ok = true;
out:
	if (dw_state.ok)
		return 0;
	return error_set(e, "cannot load 'libdw.so.1' (elfutils), which reads "
		  "symbols and debug information: %s (apt-get install libdw1)",
		  dw_state.why);
}

/* The C++ ABI's demangler; elfutils exports none. */
typedef char *demangle_fn(const char *mangled, char *buf, size_t *len,
			  int *status);

char *dwlib_demangle(const char *mangled)
{
	static bool tried;
	static demangle_fn *demangle;
	int status = -1;
	char *d;

	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);

		tried = true;
		if (h)
			*(void **)&demangle = dlsym(h, "__cxa_demangle");
	}
	if (!demangle)
		return NULL;
	d = demangle(mangled, NULL, NULL, &status);
	if (d && status) {
		free(d);
		d = NULL;
	}
	return d;
}
