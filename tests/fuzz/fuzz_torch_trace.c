/*
 * libFuzzer target of torch.profiler's trace reader
 * (profile/torchops_trace.c, `yardstick import`): any bytes either read
 * or fail with a message naming the input; what reads is consistent:
 * events sorted by start, each ending at or after its start within the
 * trace's first..last, on a numbered thread, and nested (an event that
 * starts inside another of its thread ends inside it, depths agreeing).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/torchops.h"

static void check(const struct trace *t, uint64_t threads)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_event *ev = &t->ev[i];

		if (ev->end < ev->start || ev->start < t->first ||
		    ev->end > t->last || ev->tid == 0 || ev->tid > threads ||
		    (i && ev->start < t->ev[i - 1].start))
			abort();
		/* the nearest earlier event of its thread that it starts
		 * inside holds it whole */
		for (size_t k = i; k-- > 0;) {
			const struct trace_event *p = &t->ev[k];

			if (p->tid != ev->tid || p->end <= ev->start)
				continue;
			if (ev->end > p->end || ev->depth <= p->depth)
				abort();
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct torchops_trace_stats st;
	struct trace t;
	struct error e;

	trace_init(&t, 2000);
	if (torchops_read_trace_mem(&t, "fuzz-input", (const char *)data,
				    size, &st, &e)) {
		if (!strstr(e.msg, "'fuzz-input'"))
			abort();
	} else {
		check(&t, st.threads);
	}
	trace_free(&t);
	return 0;
}
