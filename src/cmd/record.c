/*
 * `yardstick record`: a sampling CPU profiler. The sampler delivers raw
 * samples while the program runs; their user stacks (frame pointers, or
 * unwound from a stack copy with --call-graph dwarf) are interned as raw
 * address chains per process, and symbolized — each distinct address once —
 * when the process execs or the run ends, into the shared profile model
 * that every exporter reads.
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cmd/commands.h"
#include "cmd/cmdopts.h"
#include "util/options.h"
#include "measure/spawn.h"
#include "profile/output.h"
#include "profile/profile.h"
#include "profile/pystacks.h"
#include "profile/python_proc.h"
#include "profile/rawstacks.h"
#include "profile/sampler.h"
#include "profile/symbolize.h"
#include "profile/symcache.h"
#include "util/hashmap.h"
#include "util/stop.h"
#include "util/strutil.h"
#include "util/term.h"

static const char *const record_usage[] = {
	"[OPTIONS] -- PROGRAM [ARGS...]",
	"--diff BASE.folded NEW.folded -o DIFF.svg",
	NULL,
};

static const char record_description[] =
"Sample where PROGRAM spends its CPU time, in every thread and child\n"
"process it starts, and show the functions that cost the most; write\n"
"flame graphs and profiles for other viewers.\n";

static const char record_epilog[] =
"The program's standard input, output and error are its own (with -o -\n"
"its output goes to stderr, so that stdout holds the profile alone); the\n"
"report goes to stderr. Resolved symbols are kept per binary in\n"
"$XDG_CACHE_HOME/yardstick (~/.cache/yardstick), so that a later run\n"
"need not read the same debug information again. Functions are named\n"
"from the symbol table (.symtab, else a stripped library's exports in\n"
".dynsym), a separate debug file found by build-id under /usr/lib/debug\n"
"(Debian's -dbgsym packages; $YARDSTICK_DEBUG_DIR instead when set) and\n"
"DWARF; PLT stubs as SYM@plt; code no symbol covers by its module and\n"
"the start of its function in the unwind table (libx.so.5+0x1a2b0); and\n"
"only code nothing names as [unknown in MODULE], for which no Amdahl\n"
"bound is given (it may be many functions). A CPython program\n"
"(3.11, 3.12, 3.13) shows its own functions, files and lines in place of\n"
"the interpreter's evaluation frames, native frames kept above and below\n"
"(it is then unwound with dwarf unless -g says otherwise); other versions\n"
"are named and keep the interpreter's frames. Exit\n"
"status: 0 when the program exited with 0; 1 when it failed or crashed\n"
"(the profile up to then is still reported and written), or ran too\n"
"briefly for a single sample (nothing is written); 2 bad usage, a\n"
"program that does not exist, an unreadable --diff input; 3 perf events\n"
"are not permitted or not supported (the message says which sysctl or\n"
"capability would allow them), or cannot follow the program: it is\n"
"set-user-ID, set-group-ID, has file capabilities or cannot be read (or\n"
"runs such a program: no sample came although it used CPU time); 130\n"
"stopped by Ctrl-C (SIGINT), 143 by SIGTERM: the program and everything\n"
"it started are killed, the profile up to then is written, marked partial\n"
"(the flame graph's subtitle, first; the speedscope name; a pprof\n"
"comment; folded stacks have no place for it); a\n"
"second signal exits at once, writing nothing more. Processes the\n"
"program leaves running when it exits are killed, with a warning that\n"
"names them.\n";

struct record_args {
	struct sampler_opts so;
	bool call_graph_given;
	bool python;
	bool quiet;
	long top;
	struct profile_outputs out;
	const char *title;
	bool diff;
	const char *diff_base, *diff_new;
	char **argv;
};

static const struct opt_enum record_call_graphs[] = {
	{ "fp", false }, { "dwarf", true }, { NULL, 0 },
};

#define OPT_STRUCT struct record_args
static const struct opt_entry record_options[] = {
	{ OPT_COUNT('F', "freq", so.freq, 1, 100000), .metavar = "HZ",
	  .help = "samples per second" },
	{ OPT_STRING('e', "event", so.event), .metavar = "NAME",
	  .help = "the sampling event (default cpu-clock; cycles where the "
	  "machine has hardware counters)" },
	{ OPT_ENUM('g', "call-graph", so.dwarf, record_call_graphs),
	  OPT_SETS(call_graph_given),
	  .help = "fp (frame pointers; the default) or "
	  "dwarf (copy the user stack and unwind it with the binaries' CFI: "
	  "whole stacks without frame pointers; the default for a CPython "
	  "program with --python on)" },
	{ OPT_PYTHON(python) },
	{ OPT_FLAG(0, "idle", so.offcpu),
	  .help = "the time threads spend off the CPU too (sleeping, in "
	  "I/O, waiting for a lock or the GIL): each stack where a thread "
	  "left its CPU (blocked, not preempted), weighed by the time until "
	  "it ran again, under a root frame [idle] ([idle: GIL] for a "
	  "CPython thread waiting for the GIL)" },
	{ OPT_COUNT(0, "stack-size", so.stack_size, 64, SAMPLER_MAX_STACK),
	  .step = 8,
	  .help = "bytes of stack copied per sample with dwarf" },
	{ OPT_FLAG(0, "lines", out.lines),
	  .help = "file:line of every frame" },
	{ OPT_COUNT('n', "top", top, 1, LONG_MAX),
	  .help = "functions in the terminal report" },
	{ OPT_LIST('o', "output", out.paths, out.n), .metavar = "FILE",
	  .flags = OPT_FILES, .help = "write the profile (repeatable); the "
	  "format comes from the name: .folded (Brendan Gregg's folded "
	  "stacks), .svg (interactive flame graph), .speedscope.json, .pb.gz "
	  "(pprof)" },
	{ OPT_PROFILE_FORMAT(out.format) },
	{ OPT_STRING(0, "title", title), .metavar = "TEXT",
	  .help = "the flame graph's title" },
	{ OPT_FLAG(0, "diff", diff), .help = "a differential flame graph of "
	  "two .folded profiles, BASE and NEW, the operands: red grew, blue "
	  "shrank" },
	{ OPT_QUIET(quiet, "no terminal report") },
	OPT_HELP_ENTRY,
	OPT_END_ENTRY,
};

static void record_init(void *args)
{
	struct record_args *a = args;

	a->top = 20;
	a->python = true;
	a->so.freq = SAMPLER_DEFAULT_FREQ;
	a->so.stack_size = SAMPLER_DEFAULT_STACK;
}

const struct opt_cmd record_cmd = {
	.name = "record",
	.summary = "sampling CPU profiler: top functions, flame graphs, pprof",
	.usage = record_usage,
	.description = record_description,
	.epilog = record_epilog,
	.mode = OPT_PROGRAM,
	.opts = record_options,
	.args_size = sizeof(struct record_args),
	.init = record_init,
};

static int parse(struct record_args *a, int argc, char **argv)
{
	struct opt_rest rest;
	int ret;

	if (!opt_parse_or_exit(&record_cmd, argc, argv, a, &rest, &ret))
		return ret ? ret : 1;
	if (a->diff) {
		if (rest.dashdash - rest.first != 2 || a->out.n != 1) {
			fputs("yardstick record: --diff takes BASE.folded "
			      "NEW.folded and one -o FILE\n", stderr);
			return 2;
		}
		a->diff_base = argv[rest.first];
		a->diff_new = argv[rest.first + 1];
		return 0;
	}
	return program_and_outputs("record", argc, argv, rest.first,
				   rest.dashdash, &a->out, &a->argv);
}

struct idle_ent {
	uint32_t tid, pid;
	uint64_t *ips;
	size_t n;
	uint64_t out, carry;	/* left its CPU at; ns not yet added */
	bool gil;
};

/* What the callbacks share while the program runs. */
struct collector {
	struct record_args *a;
	struct symtab *sym;
	struct rawstacks *raw;
	struct profile *prof;
	struct pystacks *py;		/* NULL with --python off */
	uint64_t ips[512];
	uint64_t pyips[1024];		/* ips with Python frames in */
	uint64_t oncpu;			/* samples on the CPU */
	/* --idle: per thread, its stack when it last left its CPU (NULL
	 * while it runs), its root frame's addresses, what was added */
	struct idle_ent *idle;
	size_t nidle, capidle;
	struct hashidx idle_index;	/* idle + 1 by tid */
	uint64_t idle_root, gil_root, interval;
	uint64_t idle_samples, gil_samples;
};

/* A sample's stack, Python frames in, into c->pyips (or c->ips): its
 * length. gil non-NULL: a switch out (--idle), *gil whether a CPython
 * thread waits for the GIL in it. */
static size_t sample_stack(struct collector *c, const struct raw_sample *s,
			   const uint64_t **out, bool *gil)
{
	const uint64_t *ips = s->ips;
	size_t n = s->nips;

	/* the Python frames first, while the thread is where it was */
	if (c->py && gil)
		pystacks_capture_offcpu(c->py, s->pid, s->tid, s->time);
	else if (c->py)
		pystacks_capture(c->py, s->pid, s->tid, s->time);
	if (c->a->so.dwarf) {
		n = symtab_unwind(c->sym, s->pid, s->regs, s->nregs, s->stack,
				  s->stack_size, c->ips, 512);
		if (n == 0 && s->nips) {
			c->ips[0] = s->ips[0];
			n = 1;
		}
		ips = c->ips;
		if (c->py)
			pystacks_check(c->py, s->regs, s->nregs, s->stack,
				       s->stack_size);
	}
	if (gil)
		*gil = c->py && pystacks_gil_wait(c->py, s->pid, ips, n) == 1;
	if (c->py) {
		n = pystacks_merge(c->py, ips, n, c->pyips,
				   sizeof(c->pyips) / sizeof(c->pyips[0]) - 1);
		ips = c->pyips;
	}
	*out = ips;
	return n;
}

static void on_sample(void *arg, const struct raw_sample *s)
{
	struct collector *c = arg;
	const uint64_t *ips;
	size_t n = sample_stack(c, s, &ips, NULL);

	c->oncpu++;
	rawstacks_add(c->raw, s->pid, ips, n, s->period);
}

/* --idle: a thread left its CPU; its stack waits, under its root frame,
 * for the time it comes back */
static void on_offcpu(void *arg, const struct raw_sample *s)
{
	struct collector *c = arg;
	uint64_t h = hash_u64(s->tid), v;
	struct idle_ent *t = NULL;
	const uint64_t *ips;
	bool gil = true;
	size_t n, pos;

	for (v = hashidx_first(&c->idle_index, h, &pos); v;
	     v = hashidx_next(&c->idle_index, h, &pos))
		if (c->idle[v - 1].tid == s->tid) {
			t = &c->idle[v - 1];
			break;
		}
	if (!t) {
		c->idle = xgrow(c->idle, &c->capidle, c->nidle + 1,
				sizeof(*c->idle));
		t = &c->idle[c->nidle++];
		*t = (struct idle_ent){ .tid = s->tid };
		hashidx_add(&c->idle_index, h, c->nidle);
	}
	n = sample_stack(c, s, &ips, &gil);
	free(t->ips);
	t->ips = xmalloc((n + 1) * sizeof(*t->ips));
	memcpy(t->ips, ips, n * sizeof(*ips));
	t->ips[n] = gil ? c->gil_root : c->idle_root;
	t->n = n + 1;
	t->pid = s->pid;
	t->out = s->time;
	t->gil = gil;
}

static void on_switch(void *arg, uint32_t pid, uint32_t tid, uint64_t time,
		      bool out, bool preempt)
{
	struct collector *c = arg;
	uint64_t h = hash_u64(tid), v, k, dt;
	size_t pos;

	(void)pid;
	for (v = hashidx_first(&c->idle_index, h, &pos); v;
	     v = hashidx_next(&c->idle_index, h, &pos)) {
		struct idle_ent *t = &c->idle[v - 1];

		if (t->tid != tid || !t->ips)
			continue;
		/* the switch's record follows its sample: a thread taken
		 * off while still runnable waits for a CPU, not for
		 * anything of its own: not idle */
		if (out) {
			if (preempt) {
				free(t->ips);
				t->ips = NULL;
			}
			return;
		}
		/* in sampling intervals, the rest carried to its next
		 * time off */
		dt = time > t->out ? time - t->out : 0;
		t->carry += dt;
		k = t->carry / c->interval;
		t->carry %= c->interval;
		if (k) {
			rawstacks_add_n(c->raw, t->pid, t->ips, t->n, k,
					k * c->interval);
			c->idle_samples += k;
			c->gil_samples += t->gil ? k : 0;
		}
		free(t->ips);
		t->ips = NULL;
		return;
	}
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

	if (pid == ppid)
		return;
	symtab_fork(c->sym, pid, ppid);
	if (c->py)
		pystacks_fork(c->py, pid, ppid);
}

static void on_exit_pid(void *arg, uint32_t pid)
{
	struct collector *c = arg;

	if (c->py)
		pystacks_exit(c->py, pid);
}

static void on_comm(void *arg, uint32_t pid, const char *name, bool exec)
{
	struct collector *c = arg;

	(void)name;
	if (!exec)
		return;
	/* The old image's addresses need the old mappings: resolve them
	 * now, before the exec replaces them. */
	rawstacks_flush(c->raw, pid, 0, c->sym, c->prof);
	symtab_exec(c->sym, pid);
	if (c->py)
		pystacks_exec(c->py, pid);
}

static const struct sample_type record_types[] = {
	{ "samples", "count" },
	{ "cpu", "nanoseconds" },
};
/* with --idle: on and off the CPU */
static const struct sample_type record_idle_types[] = {
	{ "samples", "count" },
	{ "time", "nanoseconds" },
};

static void print_status(int status)
{
	if (WIFSIGNALED(status)) {
		const char *n = sigabbrev_np(WTERMSIG(status));

		if (n)
			fprintf(stderr, "yardstick: the program was killed by "
				"SIG%s; the profile covers it up to then\n", n);
		else
			fprintf(stderr, "yardstick: the program was killed by "
				"signal %d\n", WTERMSIG(status));
	} else if (WIFEXITED(status) && WEXITSTATUS(status)) {
		fprintf(stderr, "yardstick: the program exited with status "
			"%d\n", WEXITSTATUS(status));
	}
}

/* How the program ended (print_status), or that a signal stopped it, and
 * what it left running (progargs.c's print_program_end). */
static void print_end(const struct sampler_stats *st)
{
	if (st->interrupted || st->strays || stop_signal())
		print_program_end("yardstick record", "profile", st->status,
				  st->strays, st->stray_names);
	else
		print_status(st->status);
}

static void print_report(const struct record_args *a,
			 const struct profile *p,
			 const struct sampler_stats *st, FILE *fp)
{
	bool color = term_use_color(fp);
	int64_t total = profile_total(p, 0);
	struct profile_top *top = NULL;
	size_t ntop = 0;

	fprintf(fp, "%s%" PRId64 " samples%s in %.3f s, %.3f s of CPU (%.0f Hz "
		"effective), %" PRIu64 " lost, %.1f%% of frames unknown\n",
		term_bold(color), total, term_reset(color),
		st->duration_ns / 1e9, st->cpu_ns / 1e9, p->rate_hz, st->lost,
		p->total_frames ? 100.0 * p->unknown_frames / p->total_frames
				: 0.0);
	if (total == 0 || profile_top(p, 0, &top, &ntop))
		return;
	fprintf(fp, "%s%7s %7s %9s  %-40s %s%s\n", term_dim(color), "self",
		"total", "samples", "function", "module", term_reset(color));
	/* Symbol and module names come from the profiled program:
	 * escaped for the terminal. */
	for (size_t i = 0; i < ntop && i < (size_t)a->top; i++) {
		fprintf(fp, "%6.2f%% %6.2f%% %9" PRId64 "  ",
			100.0 * top[i].self / total,
			100.0 * top[i].total / total, top[i].self);
		term_pad(fp, top[i].function, 40, false);
		fputc(' ', fp);
		term_puts(fp, top[i].module ? top[i].module : "");
		fputc('\n', fp);
	}
	/* the first three in the table that are not in every sample (main
	 * and a leaf that all time goes through bound nothing) */
	for (size_t i = 0, said = 0; i < ntop && said < 3; i++) {
		double share = (double)top[i].total / total;

		if (share >= 1 || share <= 0 ||
		    !profile_names_function(top[i].function))
			continue;
		said++;
		fputs("if ", fp);
		term_puts(fp, top[i].function);
		fprintf(fp, " cost nothing, the program would be at most "
			"%.2f× faster\n", 1 / (1 - share));
	}
	free(top);
}

static int write_outputs(struct record_args *a, const struct profile *p,
			 struct output_set *outs)
{
	/* the marker of a partial profile before the command, which may be
	 * long */
	char *sub = xasprintf("%s%s%s%s — %" PRId64 " samples at %.0f Hz",
			      p->partial ? "partial: stopped by " : "",
			      p->partial ? p->partial : "",
			      p->partial ? " — " : "",
			      p->command ? p->command : "",
			      profile_total(p, 0), p->rate_hz);
	int ret;

	a->out.flame.title = a->title ? a->title : "yardstick record";
	a->out.flame.subtitle = sub;
	a->out.flame.unit = "samples";
	a->out.type = 0;
	a->out.prof = p;
	ret = write_output_set(outs, "yardstick record");
	a->out.flame.subtitle = NULL;
	free(sub);
	return ret;
}

/*
 * Not one sample: nothing to report or write. Returns 3 when the program
 * used CPU time for ten sampling periods or more, which cannot go without
 * a sample (perf events stopped following it: it exec'd a program that
 * changes credentials), else 1 (it ran too briefly for the rate).
 */
static int no_samples(const struct record_args *a,
		      const struct sampler_stats *st)
{
	double period = 1e9 / a->so.freq;

	if (st->cpu_ns >= 10 * period) {
		fprintf(stderr, "yardstick record: no samples, although the "
			"program used %.3g ms of CPU time: perf events stopped "
			"following it — it runs a program that changes "
			"credentials (set-user-ID, set-group-ID, file "
			"capabilities) or cannot be read; no profile written\n",
			st->cpu_ns / 1e6);
		return 3;
	}
	fprintf(stderr, "yardstick record: no samples: the program used %.3g "
		"ms of CPU time, a few sampling periods at %d Hz at most "
		"(raise --freq, or give it more work); no profile written\n",
		st->cpu_ns / 1e6, a->so.freq);
	return 1;
}

static int sampler_exit_code(enum sampler_result r)
{
	return r == SAMPLER_REFUSED ? 3 : 2;
}

static int record(struct record_args *a, struct output_set *outs)
{
	struct profile p;
	struct collector c = { .a = a };
	struct sampler_callbacks cb = { .arg = &c, .sample = on_sample,
					.mmap = on_mmap, .fork = on_fork,
					.comm = on_comm, .exit = on_exit_pid };
	struct sampler_stats st = { 0 };
	struct sigaction ign, old_quit;
	struct error e;
	char *path = NULL, *cache;
	enum sampler_result r;
	int ret;

	/* An output that cannot be written is found before the run; with
	 * one on stdout, the program's stdout goes to stderr. */
	profile_outputs_to_set(&a->out, outs);
	ret = check_output_set(outs, "yardstick record");
	if (ret)
		return ret;
	a->so.stdout_to_stderr = outputs_stdout(outs);
	ret = program_stop_start("yardstick record");
	if (ret)
		return ret;
	if (spawn_resolve_program(a->argv[0], &path, &e)) {
		fprintf(stderr, "yardstick record: %s\n", e.msg);
		return 2;
	}
	if (spawn_exec_privileged(path, &e) == 1) {
		fprintf(stderr, "yardstick record: cannot profile it: %s, and "
			"the kernel stops perf events at the exec of a program "
			"that changes credentials or cannot be read (run "
			"yardstick as the user it runs as, or profile a copy "
			"without the set-ID bits or capabilities)\n", e.msg);
		free(path);
		return 3;
	}
	/* a CPython's C stacks have no frame pointers: unwind them */
	if (a->python && py_program_is_python(path)) {
		a->so.dwarf |= !a->call_graph_given;
		a->so.prompt = true;
	}
	free(path);
	/* libdw, loaded now rather than after the run */
	if (symtab_load(&e)) {
		fprintf(stderr, "yardstick record: %s\n", e.msg);
		return 3;
	}
	profile_init(&p, a->so.offcpu ? record_idle_types : record_types, 2);
	p.command = argv_join(a->argv);
	c.prof = &p;
	c.sym = symtab_new(a->out.lines);
	cache = symcache_dir();
	symtab_use_cache(c.sym, cache);
	free(cache);
	c.raw = rawstacks_new();
	c.py = a->python ? pystacks_new(c.sym) : NULL;
	if (a->so.offcpu) {
		cb.offcpu = on_offcpu;
		cb.sched_switch = on_switch;
		c.interval = (uint64_t)(1e9 / a->so.freq);
		c.idle_root = symtab_synth(c.sym, &(struct frame){
			.function = "[idle]", .module = "[idle]" });
		c.gil_root = symtab_synth(c.sym, &(struct frame){
			.function = "[idle: GIL]", .module = "[idle]" });
	}
	/* Ctrl-\ is for the program (it resets SIGQUIT before its exec);
	 * Ctrl-C, SIGTERM stop it (util/stop.h): yardstick stays to drain
	 * the buffers and write the profile, marked partial. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGQUIT, &ign, &old_quit);
	a->so.interrupt = stop_flag();
	r = sampler_run(&a->so, a->argv, &cb, &st, &e);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (r) {
		fprintf(stderr, "yardstick record: %s\n", e.msg);
		ret = sampler_exit_code(r);
		goto out_free;
	}
	rawstacks_flush(c.raw, 0, 1, c.sym, &p);
	p.duration_ns = st.duration_ns;
	p.lost = (int64_t)st.lost;
	p.period = a->so.freq ? (int64_t)(1e9 / a->so.freq) : 0;
	p.period_type = 1;
	/* Samples per second of CPU the program used: the rate each
	 * thread was sampled at, whatever the number of threads. */
	p.rate_hz = st.cpu_ns > 0 ? (double)c.oncpu / (st.cpu_ns / 1e9) : 0;
	print_end(&st);
	if (st.interrupted || stop_signal())
		p.partial = stop_signal_name();
	if (profile_total(&p, 0) == 0) {
		ret = program_exit_code(no_samples(a, &st), st.status);
		goto out_free;
	}
	/* stdout is the program's: the report goes to stderr. */
	if (!a->quiet)
		print_report(a, &p, &st, stderr);
	if (c.py)
		pystacks_fput_report(c.py, a->quiet, stderr);
	if (a->so.offcpu && !a->quiet)
		fprintf(stderr, "idle: %" PRIu64 " samples' worth off the CPU "
			"(%.3f s), %" PRIu64 " of them waiting for the GIL; %"
			PRIu64 " on it\n", c.idle_samples,
			(double)(c.idle_samples * c.interval) / 1e9,
			c.gil_samples, c.oncpu);
	ret = program_exit_code(write_outputs(a, &p, outs), st.status);
out_free:
	for (size_t i = 0; i < c.nidle; i++)
		free(c.idle[i].ips);
	free(c.idle);
	hashidx_free(&c.idle_index);
	rawstacks_free(c.raw);
	pystacks_free(c.py);
	symtab_free(c.sym);
	profile_free(&p);
	return ret;
}

/* What --diff writes: the two profiles as one flame graph. */
struct diff_graph {
	struct profile base, cand;
	struct flame_opts fo;
};

static int write_diff(const char *path, void *graph, struct error *e)
{
	struct diff_graph *d = graph;

	return profile_write_diff_flamegraph(&d->base, &d->cand, &d->fo, path,
					     e);
}

static int diff(const struct record_args *a, struct output_set *outs)
{
	struct diff_graph d = { .fo = { .title = a->title ? a->title
					: "yardstick record --diff",
					.unit = "samples" } };
	struct error e;
	char sub[512];
	int ret;

	outputs_add(outs, "-o", a->out.paths[0], "svg", write_diff, &d);
	ret = check_output_set(outs, "yardstick record");
	if (ret)
		return ret;
	if (profile_read_folded(&d.base, a->diff_base, &e)) {
		fprintf(stderr, "yardstick record: %s\n", e.msg);
		return 2;
	}
	if (profile_read_folded(&d.cand, a->diff_new, &e)) {
		fprintf(stderr, "yardstick record: %s\n", e.msg);
		profile_free(&d.base);
		return 2;
	}
	snprintf(sub, sizeof(sub), "%s → %s: red grew, blue shrank",
		 a->diff_base, a->diff_new);
	d.fo.subtitle = sub;
	ret = write_output_set(outs, "yardstick record");
	profile_free(&d.base);
	profile_free(&d.cand);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a = { 0 };
	struct output_set outs;
	int ret;

	outputs_init(&outs);
	ret = parse(&a, argc, argv);
	if (ret == 0)
		ret = a.diff_base ? diff(&a, &outs) : record(&a, &outs);
	else if (ret == 1)
		ret = 0;
	outputs_free(&outs);
	profile_outputs_free(&a.out);
	return ret;
}
