/*
 * PyTorch's operators in profiles and traces. Two jobs, one home:
 *
 * - Operator frames (torchops.c, the names from the library's own
 *   schema strings by torchops_table.c): a native frame in one of the
 *   dispatcher's entry points, `at::_ops::<op>::call(...)` (exported by
 *   libtorch_cpu.so for every operator), names the operator the sample
 *   is in; record and trace put a frame `aten::<op>` just outside it, so
 *   that stacks read `forward (model.py:12);...;aten::conv2d;...;sgemm_`.
 *   Without torch no function has that name and nothing changes.
 * - torch.profiler's Chrome trace (torchops_trace.c): the operator
 *   events of `prof.export_chrome_trace(path)` read, as untrusted input,
 *   into the timeline model as zones, streamed so that memory is bounded
 *   by the events kept, not by the file.
 */
#ifndef YS_PROFILE_TORCHOPS_H
#define YS_PROFILE_TORCHOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/trace.h"
#include "util/error.h"

/* The frame function names an operator frame has ("aten::conv2d") and
 * the module they carry: the first when the library's own schemas named
 * it, the second when the rule did (torchops_frame_name's *exact). */
#define TORCHOPS_MODULE "[torch op]"
#define TORCHOPS_MODULE_RULE "[torch op, by rule]"

/*
 * A library's own names of its operators (torchops_table.c): from the
 * bytes of its .rodata (buf, len; untrusted: any bytes are read safely),
 * each `at::_ops` struct's name and the operator's name its schema
 * string gives it ("add.Tensor(Tensor self, ...) -> Tensor": the struct
 * add_Tensor is aten::add). The table references buf's bytes: buf must
 * outlive it. Never NULL; empty for a library without schemas.
 */
struct torchops_table;
struct torchops_table *torchops_table_new(const char *buf, size_t len);
void torchops_table_free(struct torchops_table *t);
/* The number of strings read as schemas (0 for NULL). */
size_t torchops_table_schemas(const struct torchops_table *t);
/* The length of the operator's name in the struct name s[0..n) by t:
 * 0 when t (or NULL) knows no such struct, or two of its schemas split
 * it differently. */
size_t torchops_table_op(const struct torchops_table *t, const char *s,
			 size_t n);

/* Whether function is a dispatcher's entry, `at::_ops::...::call(`,
 * and so may have an operator frame: cheap, to ask for a table only
 * then. */
bool torchops_is_entry(const char *function);

/*
 * The operator frame of a native frame named function: when function is
 * `at::_ops::<struct>::call(...)`, writes "aten::<op>" into out (at most
 * cap bytes with its NUL) and returns its length; 0 for any other
 * function (or one that does not fit). The struct's name is the
 * operator's name and its overload name joined by '_' ("add_Tensor",
 * "add_out"); the overload is dropped, as torch.profiler names its
 * events ("aten::add"). The split is ops's (the table of the library
 * the function is in, symbolize.h's symtab_torchops) where it knows the
 * struct; else, and when ops is NULL, a rule (torchops.c), right for
 * 91% of torch 1.13's operators. *exact (when exact is not NULL) says
 * which: true for the table.
 */
size_t torchops_frame_name(const char *function,
			   const struct torchops_table *ops, char *out,
			   size_t cap, bool *exact);

/* What torchops_read_trace read and left out. */
struct torchops_trace_stats {
	uint64_t events;	/* operator events kept as zones */
	uint64_t ignored;	/* events of other phases or categories */
	uint64_t clipped;	/* children that ended past their parent by
				 * less than the format's resolution (1 µs),
				 * ended with it */
	uint64_t threads;	/* distinct (pid, tid) */
};

/* The largest event object (bytes of its JSON text) read. */
#define TORCHOPS_MAX_EVENT_BYTES ((size_t)1 << 20)

/*
 * torch.profiler's Chrome trace at path (either form: a bare array of
 * events, as torch 1.13's legacy profiler writes it, or an object with
 * "traceEvents", as Kineto does) into t (trace_init'ed by the caller,
 * at most its max_events kept, the rest in dropped): each complete
 * event ("ph": "X") of an operator category (none, "cpu_op", "Operator",
 * "operator") a TRACE_ZONE, its thread the pair (pid, tid) numbered in
 * order of appearance; the events sorted by start. The file is read in
 * chunks: only the events are parsed, the rest is checked for balance.
 * Every event must have a name, ts and dur in µs (0 <= ts, 0 <= dur,
 * ts + dur at most 9e15 µs); on a thread, an event that starts inside
 * another must end inside it (up to the format's 1 µs: clipped).
 * Returns 0, or -1 with e naming the file and the event.
 */
int torchops_read_trace(struct trace *t, const char *path,
			struct torchops_trace_stats *st, struct error *e);

/* The same from memory (the fuzz target's entry); name for messages. */
int torchops_read_trace_mem(struct trace *t, const char *name,
			    const char *buf, size_t len,
			    struct torchops_trace_stats *st, struct error *e);

#endif
