/*
 * libFuzzer target of the JIT maps (src/profile/jitmap.c): a
 * /tmp/perf-PID.map is written by the profiled program, or by anyone.
 * Any bytes, as a file, read without a fault into entries that each
 * cover a non-empty range that does not wrap, with a non-empty name of
 * at most one line. jitmap_read refuses a symlink (a memfd's
 * /proc/self/fd/N is one), so the input goes to a real file.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/jitmap.h"

static char dir[] = "/tmp/ys-fuzz-jitmap-XXXXXX";
static bool made;	/* (mkdtemp's name may end in X too) */

static void remove_dir(void)
{
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[sizeof(dir) + 16];
	struct jitmap_entry *v;
	size_t n;
	FILE *fp;

	if (!made) {
		if (!mkdtemp(dir))
			abort();
		made = true;
		atexit(remove_dir);
	}
	snprintf(path, sizeof(path), "%s/map", dir);
	if (!(fp = fopen(path, "w")))
		abort();
	if (size && fwrite(data, 1, size, fp) != size)
		abort();
	if (fclose(fp))
		abort();
	n = jitmap_read(path, &v);
	unlink(path);
	if (n > size / 5 + 1)	/* "0 1 x\n" at least per entry */
		abort();
	for (size_t i = 0; i < n; i++)
		if (!(v[i].start < v[i].end) || !v[i].name[0] ||
		    strchr(v[i].name, '\n') || strlen(v[i].name) > JITMAP_LINE_MAX)
			abort();
	jitmap_free(v, n);
	return 0;
}
