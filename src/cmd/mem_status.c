/*
 * What `yardstick mem` says on stderr about how the program and the
 * heap agent fared, and keeping its result in the store.
 */
#include <stdio.h>

#include "cmd/commands.h"
#include "cmd/mem.h"
#include "profile/python.h"
#include "util/strutil.h"

/* What became of a CPython program's Python frames. */
static void mem_print_python(const struct mem_run *m)
{
	const struct heap_trace *t = &m->trace;
	uint32_t v = t->py_version;

	char ver[32];

	py_version_string(v, ver, sizeof(ver));
	if (t->py_status == HEAP_PY_UNSUPPORTED)
		fprintf(stderr, "yardstick mem: warning: CPython %s is not "
			"supported (%s are): allocations are attributed to "
			"native frames only\n", ver, py_layout_versions());
	if (t->py_version && t->py_malloc)
		fprintf(stderr, "yardstick mem: warning: PYTHONMALLOC was set "
			"and is kept: objects in pymalloc's arenas are "
			"attributed to the allocation of their arena, not to "
			"their own Python line (unset it to let yardstick set "
			"PYTHONMALLOC=malloc)\n");
	if (m->rep.py_mismatched)
		fprintf(stderr, "yardstick mem: %zu allocation sites kept "
			"their native frames: their interpreter frames and "
			"their Python frames did not match\n",
			m->rep.py_mismatched);
}

void mem_print_status(const struct mem_run *m)
{
	char note[256];

	print_program_end("yardstick mem", "report", m->trace.status,
			  m->trace.strays, m->trace.stray_names);
	if (!m->trace.agent_started)
		fprintf(stderr, "yardstick mem: the heap agent did not start "
			"in the program (was LD_PRELOAD removed?): no heap "
			"figures\n");
	if (m->trace.header_damaged) {
		fprintf(stderr, "yardstick mem: warning: the agent's memory was "
			"overwritten: its figures cannot be trusted\n");
		return;
	}
	if (m->p->own_malloc)
		fprintf(stderr, "yardstick mem: warning: the program defines "
			"malloc itself: the agent sees only the calls it "
			"passes on (a wrapper's), none of an allocator of "
			"its own\n");
	if (m->trace.overflow_threads)
		fprintf(stderr, "yardstick mem: warning: %u threads were not "
			"traced: more than %d ran at once\n",
			m->trace.overflow_threads, HEAP_SLOTS);
	if (heap_failed_allocs_note(&m->trace, note, sizeof(note)))
		fprintf(stderr, "yardstick mem: warning: %s\n", note);
	mem_print_python(m);
	if (m->trace.unwind_failed)
		fprintf(stderr, "yardstick mem: libunwind could not be loaded: "
			"stacks were walked with frame pointers\n");
	if (m->trace.garbage_bytes)
		fprintf(stderr, "yardstick mem: warning: the program wrote %llu "
			"bytes into the agent's socket (descriptor %d); they "
			"were skipped\n",
			(unsigned long long)m->trace.garbage_bytes,
			m->trace.sock_fd);
	if (m->trace.stopped)
		fprintf(stderr, "yardstick mem: warning: the program closed the "
			"agent's socket (descriptor %d) or put another file in "
			"its place: sending stopped early\n", m->trace.sock_fd);
	if (m->trace.lost_chunks || m->trace.counts.dropped)
		fprintf(stderr, "yardstick mem: warning: %llu chunks of records "
			"were lost on the socket and %llu records could not be "
			"sent\n", (unsigned long long)m->trace.lost_chunks,
			(unsigned long long)m->trace.counts.dropped);
	if (m->rep.stacks_damaged)
		fprintf(stderr, "yardstick mem: warning: %llu stacks could not "
			"be rebuilt (each was sent as what differs from one that "
			"did not arrive): their allocations have no frames\n",
			(unsigned long long)m->rep.stacks_damaged);
	if (m->trace.sample_full)
		fprintf(stderr, "yardstick mem: too many sampled blocks live "
			"at once: later samples were not taken (use a larger "
			"--sample)\n");
	if (heap_trace_incomplete(&m->trace) && m->trace.overflow_threads)
		fprintf(stderr, "yardstick mem: warning: THE TRACE IS "
			"INCOMPLETE: no heap figure covers the threads not "
			"traced (the result says \"trace\": \"incomplete\" and "
			"lists them all as unsupported)\n");
	else if (heap_trace_incomplete(&m->trace))
		fprintf(stderr, "yardstick mem: warning: THE TRACE IS "
			"INCOMPLETE: the counts of allocations, bytes and "
			"temporaries are exact; the peak, the leaks and the sites "
			"are not (the result says \"trace\": \"incomplete\" and "
			"lists peak_heap and leaked_bytes as unsupported)\n");
}

int mem_save(const struct mem_args *a, struct mem_run *m)
{
	mem_build_result(m);
	return save_result(&m->res, a->store, a->quiet);
}
