/*
 * `yardstick trace`: a timeline of a program. The sampler of `record`
 * (profile/sampler.h) runs it with context-switch records as well as CPU
 * samples, so that every thread's on-CPU slices and why it left the CPU
 * (preempted or blocked), its name, forks and exits come from the kernel;
 * a program linked with libyardstick adds its zones, marks, counters and
 * async spans through a shared buffer (util/zonebuf.h) set up before its
 * exec. All of it lands in one timeline (profile/trace.h), written as
 * Chrome's trace JSON or Perfetto's protobuf, and summarized as tables
 * and a result of kind "trace".
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cmd/commands.h"
#include "cmd/cmdopts.h"
#include "util/options.h"
#include "cmd/trace.h"
#include "measure/spawn.h"
#include "profile/pystacks.h"
#include "profile/python_proc.h"
#include "profile/symbolize.h"
#include "profile/symcache.h"
#include "util/child.h"
#include "util/monoclock.h"
#include "util/outputs.h"
#include "util/stop.h"
#include "util/strutil.h"
#include "util/zonebuf.h"

static const char *const trace_usage[] = {
	"[OPTIONS] -- PROGRAM [ARGS...]",
	NULL,
};

static const char trace_description[] =
"Record a timeline of PROGRAM: when each of its threads ran on a CPU and\n"
"why it left it (preempted, or blocked: a sleep, a lock, I/O), CPU samples\n"
"with their stacks, thread and process names, and, when it uses\n"
"libyardstick's zones, its zones, marks, counters and async spans. Write\n"
"it for chrome://tracing and ui.perfetto.dev, and print the latency of\n"
"each zone (count, total, self time, p50/p95/p99/max, share of the wall\n"
"time), the slowest instances and each thread's on-CPU and waiting time.\n"
"A thread's \"blocked\" time runs from when it left the CPU, not runnable,\n"
"until its wake-up; its \"sch delay\" from the wake-up until it ran\n"
"again, waiting for a CPU (perf sched timehist's \"sch delay\"; a\n"
"preempted thread's wait, and a new thread's for its first CPU, are\n"
"\"preempted\"). The wake-ups come from the sched_wakeup tracepoint,\n"
"opened for the whole system: it needs tracefs mounted and\n"
"kernel.perf_event_paranoid 0 or less (or CAP_PERFMON, or root); without\n"
"it the delay is reported unknown (\"?\") and \"blocked\" includes it. The report goes to stderr, so that stdout stays the\n"
"program's own output (and a trace written with -o -).\n";

static const char trace_epilog[] =
"Open a .json trace in chrome://tracing (Load) or ui.perfetto.dev (Open\n"
"trace file), a .perfetto-trace in ui.perfetto.dev. Times in the trace\n"
"are CLOCK_MONOTONIC (perf's use_clockid, and libyardstick's clock):\n"
"microseconds in the JSON, nanoseconds in Perfetto's file. An on-CPU\n"
"slice that began after a wake-up carries its scheduling delay: the\n"
"JSON's \"b\" event the arg sched_delay_us, Perfetto's slice the debug\n"
"annotation sched_delay_ns (absent: preempted before, or not measured).\n"
"YARDSTICK_TRACEFS=DIR reads the tracepoints' formats under DIR. Nothing is\n"
"dropped silently: the report says how many records perf lost, how many\n"
"events went past --max-events and how many zone events libyardstick's\n"
"buffers could not hold. Ctrl-C (SIGINT) or SIGTERM to yardstick kills\n"
"the program and everything it started; what was collected is still\n"
"reported and written, marked partial (the JSON trace's otherData\n"
"\"partial\": true and a global marker event; the Perfetto trace's\n"
"instant \"partial: stopped by SIGINT\" on a track \"yardstick\", with the\n"
"debug annotation yardstick.partial; the report's first line; the\n"
"setting partial of the result); a second one\n"
"exits at once, writing nothing more. Processes the program leaves\n"
"running when it exits are killed, with a warning that names them.\n"
"Exit status: 0 when the program exited\n"
"with 0; 1 when it failed or was killed (the trace is still written); 2\n"
"bad usage, a program that does not exist, an output that cannot be\n"
"written; 3 perf events are not permitted or not supported here; 130\n"
"stopped by SIGINT, 143 by SIGTERM. A\n"
"CPython program's samples (3.11, 3.12, 3.13) carry its own functions,\n"
"files and lines in place of the interpreter's evaluation frames\n"
"(--python off: the raw frames).\n";

static const struct opt_enum trace_formats[] = {
	{ "auto", 0 }, { "chrome", 1 }, { "perfetto", 2 }, { NULL, 0 },
};

#define OPT_STRUCT struct trace_args
static const struct opt_entry trace_options[] = {
	{ OPT_LIST('o', "output", outs, nouts), .metavar = "FILE",
	  .flags = OPT_FILES, .help = "write the trace (repeatable); the "
	  "format comes from the name: .json (Chrome's trace event format), "
	  ".perfetto-trace or .pftrace (Perfetto's protobuf)" },
	{ OPT_ENUM(0, "format", format, trace_formats),
	  .help = "the format of every -o file, whatever its name" },
	{ OPT_COUNT('F', "freq", so.freq, 1, 100000), .metavar = "HZ",
	  .help = "CPU samples per second" },
	{ OPT_FLAG(0, "page-faults", so.page_faults),
	  .help = "every page fault of the program too: an instant with its "
	  "address, counted per thread" },
	{ OPT_PYTHON(python) },
	{ OPT_COUNT('n', "top", top, 1, LONG_MAX),
	  .help = "slowest zone instances in the report" },
	{ OPT_COUNT(0, "max-events", max_events, 1, 1L << 32),
	  .help = "events kept in memory (CPU samples waiting for their "
	  "symbols among them); those past it are counted as dropped" },
	{ OPT_SIZE(0, "max-size", max_size),
	  .help = "largest trace file: the trace stops there, with a message" },
	{ OPT_COUNT(0, "zone-threads", zone_threads, 1, 65536),
	  .help = "threads of the program that can record zones" },
	{ OPT_SIZE(0, "zone-buffer", zone_bytes),
	  .help = "zone buffer per thread (at most 1 GiB); events past it are "
	  "counted as lost" },
	{ OPT_OUTPUT(0, "json", json), .help = "the result (kind \"trace\": "
	  "one benchmark per zone name, its latency per instance; - for "
	  "stdout)" },
	{ OPT_STRING(0, "name", name), .metavar = "NAME",
	  .help = "prefix of the benchmarks' names (default: none)" },
	{ OPT_STORE_SAVE(store) },
	{ OPT_NO_STORE(no_store) },
	{ OPT_QUIET(quiet, "no report") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void trace_init_args(void *args)
{
	struct trace_args *a = args;

	a->top = 10;
	a->python = true;
	a->so.freq = SAMPLER_DEFAULT_FREQ;
	a->max_events = 4000000;
	a->max_size = 1ull << 30;
	a->zone_threads = ZB_DEFAULT_THREADS;
	a->zone_bytes = ZB_DEFAULT_THREAD_BYTES;
}

const struct opt_cmd trace_cmd = {
	.name = "trace",
	.summary = "timeline of a program: zones, threads on and off CPU, "
		   "samples; Chrome/Perfetto traces, zone latencies",
	.usage = trace_usage,
	.description = trace_description,
	.epilog = trace_epilog,
	.mode = OPT_PROGRAM,
	.opts = trace_options,
	.args_size = sizeof(struct trace_args),
	.init = trace_init_args,
};

/* ---- the outputs ---- */

struct trace_output {
	struct trace_run *run;
	const char *path;
	int format;		/* 1 chrome, 2 perfetto */
	struct trace_write_stats st;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int format_of(const struct trace_args *a, const char *path)
{
	if (a->format)
		return a->format;
	if (ends_with(path, ".json"))
		return 1;
	if (ends_with(path, ".perfetto-trace") || ends_with(path, ".pftrace"))
		return 2;
	return 0;
}

static int write_trace(const char *path, void *ctx, struct error *e)
{
	struct trace_output *o = ctx;
	const struct trace_args *a = o->run->a;
	struct trace_write_opts wo = { .max_bytes = a->max_size,
				       .process_name = a->argv[0] };
	int ret;

	ret = o->format == 1
	      ? trace_write_chrome(&o->run->tr, &wo, path, &o->st, e)
	      : trace_write_perfetto(&o->run->tr, &wo, path, &o->st, e);
	if (ret == 0 && o->st.truncated)
		fprintf(stderr, "yardstick trace: -o '%s': stopped at "
			"--max-size %" PRIu64 " bytes: %" PRIu64 " of %zu "
			"events written, %" PRIu64 " left out (raise "
			"--max-size)\n", path, a->max_size, o->st.events,
			o->run->tr.n, o->st.truncated);
	return ret;
}

/* ---- collecting ---- */

/* CPU samples wait for their process's exec or the end to be symbolized
 * (their addresses need the mappings of that moment). */
#define STACK_MAX 64

struct pending {
	uint32_t pid, tid;
	uint64_t time;
	size_t at, n;		/* ips[at .. at+n), leaf first */
};

struct collector {
	struct trace_run *run;
	struct symtab *sym;
	struct pystacks *py;	/* NULL with --python off */
	uint64_t unwound[512];	/* a CPython's stack, unwound (dwarf) */
	uint64_t merged[1024];	/* ... with its Python frames */
	struct pending *pend;
	size_t npend, cappend;
	uint64_t *ips;
	size_t nips, capips;
	struct strbuf stack;
	uint64_t task_time;	/* of the last FORK or EXIT */
	uint32_t exec_pid;	/* an exec whose COMM (and time) follows */
};

static void on_sample(void *arg, const struct raw_sample *s)
{
	struct collector *c = arg;
	const uint64_t *ips = s->ips;
	size_t n = s->nips;
	struct pending *p;

	/* a CPython program (trace runs it with dwarf): its Python frames
	 * first, while the thread is where it was, then its C stack */
	if (c->py) {
		pystacks_capture(c->py, s->pid, s->tid, s->time);
		if (s->stack) {
			n = symtab_unwind(c->sym, s->pid, s->regs, s->nregs,
					  s->stack, s->stack_size, c->unwound,
					  512);
			ips = c->unwound;
			pystacks_check(c->py, s->regs, s->nregs, s->stack,
				       s->stack_size);
		}
		n = pystacks_merge(c->py, ips, n, c->merged, 1024);
		ips = c->merged;
	}
	n = n < STACK_MAX ? n : STACK_MAX;
	if (!n)
		return;
	/* bounded like the events they become */
	if (c->npend + c->run->tr.n >= c->run->tr.max_events) {
		c->run->tr.dropped++;
		return;
	}
	c->pend = xgrow(c->pend, &c->cappend, c->npend + 1,
			sizeof(*c->pend));
	c->ips = xgrow(c->ips, &c->capips, c->nips + n, sizeof(*c->ips));
	p = &c->pend[c->npend++];
	*p = (struct pending){ .pid = s->pid, .tid = s->tid,
			       .time = s->time, .at = c->nips, .n = n };
	memcpy(c->ips + c->nips, ips, n * sizeof(*c->ips));
	c->nips += n;
}

/* The pending samples of pid (0: all) into the timeline, each with its
 * stack "outermost;...;leaf"; the rest stay pending. */
static void resolve(struct collector *c, uint32_t pid)
{
	struct trace *t = &c->run->tr;
	struct frame fr[8];
	const char *leaf;
	size_t keep = 0;

	for (size_t i = 0; i < c->npend; i++) {
		struct pending *p = &c->pend[i];
		struct trace_event *e;
		const char *names[STACK_MAX * 2];
		size_t nn = 0;

		if (pid && p->pid != pid) {
			c->pend[keep++] = *p;
			continue;
		}
		for (size_t k = 0; k < p->n && nn < STACK_MAX * 2; k++) {
			size_t nf = symtab_lookup(c->sym, p->pid,
						  c->ips[p->at + k], k > 0,
						  fr, 8);

			for (size_t f = 0; f < nf && nn < STACK_MAX * 2; f++)
				names[nn++] = fr[f].function;
		}
		c->stack.len = 0;
		for (size_t k = nn; k-- > 0;) {
			strbuf_puts(&c->stack, names[k]);
			if (k)
				strbuf_putc(&c->stack, ';');
		}
		leaf = nn ? names[0] : "[unknown]";
		e = trace_add(t, TRACE_SAMPLE);
		if (!e)
			continue;
		e->pid = p->pid;
		e->tid = e->end_tid = p->tid;
		e->start = e->end = p->time;
		e->name = trace_intern(t, leaf);
		e->text = trace_intern(t, c->stack.s ? c->stack.s : "");
	}
	c->npend = keep;
	if (!keep)
		c->nips = 0;
}

static void on_mmap(void *arg, const struct raw_mmap *m)
{
	struct collector *c = arg;

	symtab_mmap(c->sym, m->pid, m->start, m->len, m->pgoff, m->path);
	if (c->py)
		pystacks_mmap(c->py, m->pid, m->path);
}

static void on_fork(void *arg, uint32_t pid, uint32_t ppid)
{
	struct collector *c = arg;

	symtab_fork(c->sym, pid, ppid);
	if (c->py && pid != ppid)
		pystacks_fork(c->py, pid, ppid);
	trace_fork(&c->run->tr, pid, ppid, c->task_time);
}

static void on_comm(void *arg, uint32_t pid, const char *name, bool exec)
{
	struct collector *c = arg;

	(void)name;
	if (!exec)
		return;
	c->exec_pid = pid;
	resolve(c, pid);
	symtab_exec(c->sym, pid);
	if (c->py)
		pystacks_exec(c->py, pid);
}

static void on_task(void *arg, uint32_t pid, uint32_t tid, uint64_t time,
		    bool exit)
{
	struct collector *c = arg;

	if (exit && pid == tid && c->py)
		pystacks_exit(c->py, pid);
	c->task_time = time;
	trace_task(&c->run->tr, pid, tid, time, exit);
	if (exit && pid == tid && pid == c->run->tr.pid && !c->run->t_end)
		c->run->t_end = time;
}

static void on_task_comm(void *arg, uint32_t pid, uint32_t tid,
			 const char *name, uint64_t time)
{
	struct collector *c = arg;

	trace_task_name(&c->run->tr, pid, tid, name, time);
	if (c->exec_pid == pid && pid == tid)
		trace_exec(&c->run->tr, pid, name, time);
	c->exec_pid = 0;
}

static void on_fault(void *arg, uint32_t pid, uint32_t tid, uint64_t time,
		     uint64_t ip)
{
	struct collector *c = arg;
	struct trace *t = &c->run->tr;
	struct trace_event *e;

	e = trace_add(t, TRACE_FAULT);
	if (!e)
		return;
	e->pid = pid;
	e->tid = e->end_tid = tid;
	e->start = e->end = time;
	e->id = ip;
	e->name = trace_intern(t, "page fault");
}

static void on_switch(void *arg, uint32_t pid, uint32_t tid, uint64_t time,
		      bool out, bool preempt)
{
	struct collector *c = arg;

	trace_switch(&c->run->tr, pid, tid, time, out, preempt);
}

static void on_wakeup(void *arg, uint32_t tid, uint64_t time)
{
	struct collector *c = arg;

	trace_wakeup(&c->run->tr, tid, time);
}

/* Whether argv0 (looked up in PATH) runs CPython. */
static bool trace_is_python(const char *argv0)
{
	char *path = NULL;
	struct error e;
	bool is;

	if (spawn_resolve_program(argv0, &path, &e))
		return false;
	is = py_program_is_python(path);
	free(path);
	return is;
}

static int collect(struct trace_run *r, struct trace_args *a)
{
	struct collector c = { .run = r };
	struct sampler_callbacks cb = {
		.arg = &c, .sample = on_sample, .mmap = on_mmap,
		.fork = on_fork, .comm = on_comm, .task = on_task,
		.task_comm = on_task_comm, .sched_switch = on_switch,
		.page_fault = on_fault, .wakeup = on_wakeup,
	};
	struct sigaction ign, old_quit;
	struct zb_map zb;
	struct error e;
	char env[64], *cache;
	const char *envs[2] = { env, NULL };
	enum sampler_result res;
	int ret = 0;

	if (symtab_load(&e)) {
		fprintf(stderr, "yardstick trace: %s\n", e.msg);
		return 3;
	}
	if (zb_create(&zb, (uint32_t)a->zone_threads,
		      (uint32_t)(a->zone_bytes > UINT32_MAX ? UINT32_MAX
				 : a->zone_bytes), ZB_DEFAULT_NAMES, true, &e)) {
		fprintf(stderr, "yardstick trace: %s\n", e.msg);
		return 3;
	}
	zb_env(&zb, env, sizeof(env));
	a->so.env_add = envs;
	a->so.switches = true;
	a->so.wakeups = true;
	c.sym = symtab_new(false);
	cache = symcache_dir();
	symtab_use_cache(c.sym, cache);
	free(cache);
	/* a CPython's C stacks have no frame pointers: unwind them; and
	 * read its Python frames as soon as a sample comes */
	if (a->python && (c.py = pystacks_new(c.sym)) &&
	    trace_is_python(a->argv[0])) {
		a->so.dwarf = true;
		a->so.prompt = true;
	}
	/* Ctrl-\ is for the program (it resets SIGQUIT before its exec);
	 * Ctrl-C, SIGTERM stop it (util/stop.h): yardstick stays to drain
	 * the buffers and write the trace, marked partial. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGQUIT, &ign, &old_quit);
	a->so.interrupt = stop_flag();
	res = sampler_run(&a->so, a->argv, &cb, &r->st, &e);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (r->st.interrupted || stop_signal()) {
		char why[64];

		snprintf(why, sizeof(why), "stopped by %s", stop_signal()
			 ? stop_signal_name() : "an interrupt");
		r->tr.partial = trace_intern(&r->tr, why);
	}
	if (res) {
		fprintf(stderr, "yardstick trace: %s\n", e.msg);
		ret = res == SAMPLER_REFUSED ? 3 : 2;
	} else {
		resolve(&c, 0);
		trace_add_zones(r, &zb);
		if (!r->t_end)
			r->t_end = r->tr.last;
		r->tr.wakeups = r->st.wakeups;
		trace_finish(&r->tr, r->t_end);
	}
	zb_close(&zb);
	if (c.py && !ret)
		pystacks_fput_report(c.py, a->quiet, stderr);
	pystacks_free(c.py);
	symtab_free(c.sym);
	free(c.pend);
	free(c.ips);
	free(c.stack.s);
	return ret;
}

static int trace_main(struct trace_args *a)
{
	struct trace_run r;
	struct output_set outs;
	struct trace_output *to;
	struct git_probe gp;
	int ret;

	memset(&r, 0, sizeof(r));
	r.a = a;
	trace_init(&r.tr, (size_t)a->max_events);
	outputs_init(&outs);
	to = xcalloc(a->nouts + 1, sizeof(*to));
	for (size_t i = 0; i < a->nouts; i++) {
		to[i] = (struct trace_output){ .run = &r,
					       .path = a->outs[i],
					       .format = format_of(a,
							a->outs[i]) };
		outputs_add(&outs, "-o", a->outs[i], to[i].format == 1
			    ? "json" : "perfetto", write_trace, &to[i]);
	}
	outputs_add(&outs, "--json", a->json, "json", trace_write_result,
		    &r);
	ret = check_output_set(&outs, "yardstick trace");
	if (!ret && !a->no_store)
		ret = save_check(a->store);
	if (ret)
		goto out;
	a->so.stdout_to_stderr = outputs_stdout(&outs);
	ret = program_stop_start("yardstick trace");
	if (ret)
		goto out;
	git_detect_start(&r.git, &gp);
	ret = collect(&r, a);
	git_detect_finish(&gp);
	if (ret) {
		free(r.git.commit);
		free(r.git.branch);
		goto out;
	}
	print_program_end("yardstick trace", "trace", r.st.status,
			  r.st.strays, r.st.stray_names);
	if (!a->quiet)
		trace_report(&r, stderr);
	ret = write_output_set(&outs, "yardstick trace");
	if (!ret && !a->no_store)
		ret = trace_save(&r);
	ret = program_exit_code(ret, r.st.status);
	if (r.have_res)
		result_free(&r.res);
	free(r.git.commit);
	free(r.git.branch);
out:
	outputs_free(&outs);
	free(to);
	trace_free(&r.tr);
	return ret;
}

int cmd_trace(int argc, char **argv)
{
	struct trace_args a = { 0 };
	struct opt_rest rest;
	int ret;

	if (!opt_parse_or_exit(&trace_cmd, argc, argv, &a, &rest, &ret))
		goto out;
	ret = program_and_outputs("trace", argc, argv, rest.first,
				  rest.dashdash, NULL, &a.argv);
	for (size_t i = 0; ret == 0 && i < a.nouts; i++)
		if (!format_of(&a, a.outs[i])) {
			fprintf(stderr, "yardstick trace: -o '%s': say the "
				"format with its name (.json, "
				".perfetto-trace, .pftrace) or --format\n",
				a.outs[i]);
			ret = 2;
		}
	if (ret == 0 && (a.zone_bytes > ZB_MAX_THREAD_BYTES ||
			 a.zone_bytes * (uint64_t)a.zone_threads >
			 ((uint64_t)1 << 40))) {
		fprintf(stderr, "yardstick trace: --zone-buffer: %" PRIu64
			" bytes a thread for %ld threads: at most 1 GiB a "
			"thread and 1 TiB in all\n", a.zone_bytes,
			a.zone_threads);
		ret = 2;
	}
	if (ret == 0)
		ret = trace_main(&a);
out:
	free(a.outs);
	return ret;
}
