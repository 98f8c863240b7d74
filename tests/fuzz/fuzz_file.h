/* The fuzzers' input as a file the readers open by path: a memfd named
 * /proc/self/fd/N in path. Returns the fd (to close), or -1. */
#ifndef YS_FUZZ_FILE_H
#define YS_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static inline int fuzz_file(const uint8_t *data, size_t size, char *path,
			    size_t n)
{
	int fd = memfd_create("fuzz", 0);

	if (fd >= 0 && write(fd, data, size) == (ssize_t)size) {
		snprintf(path, n, "/proc/self/fd/%d", fd);
		return fd;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

#endif
