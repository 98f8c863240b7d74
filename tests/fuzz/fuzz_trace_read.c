/*
 * libFuzzer target of the Chrome trace reader (profile/trace_read.c, the
 * report's --trace): any bytes either read or fail with a message naming
 * the file; what reads is consistent (every event ends at or after its
 * start, within the trace's first..last, on a known thread), and written
 * back by trace_write_chrome and read again it keeps its zones.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "profile/trace.h"

static size_t zones(const struct trace *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->ev[i].kind == TRACE_ZONE;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], tmp[] = "/tmp/ys-fuzz-trace-XXXXXX";
	struct trace_write_opts o = { 0 };
	struct trace_write_stats ws;
	struct trace_read_stats st;
	struct trace t, back;
	struct error e;
	int f, fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (trace_read_chrome(&t, path, 10000, &st, &e)) {
		if (!strstr(e.msg, path))
			abort();
		close(fd);
		return 0;
	}
	for (size_t i = 0; i < t.n; i++) {
		const struct trace_event *ev = &t.ev[i];
		bool known = false;

		if (ev->end < ev->start || ev->start < t.first ||
		    ev->end > t.last || (i && ev->start < t.ev[i - 1].start))
			abort();
		for (size_t k = 0; k < t.nthreads && !known; k++)
			known = t.threads[k].pid == ev->pid &&
				t.threads[k].tid == ev->tid;
		if (!known)
			abort();
	}
	f = mkstemp(tmp);
	if (f >= 0) {
		close(f);
		o.process_name = "fuzz";
		if (trace_write_chrome(&t, &o, tmp, &ws, &e) ||
		    trace_read_chrome(&back, tmp, 10000, &st, &e))
			abort();
		if (zones(&back) != zones(&t))
			abort();
		trace_free(&back);
		unlink(tmp);
	}
	trace_free(&t);
	close(fd);
	return 0;
}
