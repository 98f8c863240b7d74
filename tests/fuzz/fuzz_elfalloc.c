/*
 * libFuzzer target of what mem reads of a program's ELF image
 * (heap/elfalloc.h): any bytes scan without reading outside them (the
 * sanitizers watch), and what comes out is one of the answers there are.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap/elfalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes: a read past them is caught */
	unsigned char *img = malloc(size ? size : 1);
	struct elf_alloc f;

	memcpy(img, data, size);
	elf_alloc_scan(img, size, &f);
	if (f.sanitizer && strcmp(f.sanitizer, "AddressSanitizer") &&
	    strcmp(f.sanitizer, "HWAddressSanitizer") &&
	    strcmp(f.sanitizer, "ThreadSanitizer") &&
	    strcmp(f.sanitizer, "MemorySanitizer") &&
	    strcmp(f.sanitizer, "LeakSanitizer"))
		abort();
	free(img);
	return 0;
}
