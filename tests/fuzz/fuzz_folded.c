/*
 * libFuzzer target of the folded-stack reader: any bytes either read or
 * fail with a message naming the file; what reads, written back and read
 * again, gives the same totals.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], tmp[] = "/tmp/ys-fuzz-folded-XXXXXX";
	struct profile p, back;
	struct error e;
	int t, fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (profile_read_folded(&p, path, &e)) {
		if (!strstr(e.msg, path))
			abort();
		close(fd);
		return 0;
	}
	/* Counts are never negative, so neither is any stack's value. */
	for (size_t i = 0; i < p.nstacks; i++)
		if (p.stacks[i].values[0] <= 0)
			abort();
	t = mkstemp(tmp);
	if (t >= 0) {
		close(t);
		if (profile_write_folded(&p, 0, tmp, &e) ||
		    profile_read_folded(&back, tmp, &e))
			abort();
		if (profile_total(&back, 0) != profile_total(&p, 0))
			abort();
		profile_free(&back);
		unlink(tmp);
	}
	profile_free(&p);
	close(fd);
	return 0;
}
