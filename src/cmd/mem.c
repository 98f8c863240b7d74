/*
 * `yardstick mem`: a heap profiler. The program runs with the heap agent
 * preloaded (src/heap/agent.c); its records are replayed into totals, the
 * peak, leaks, temporaries and allocation sites (src/heap/analyze.c),
 * symbolized into the profile model every exporter reads, and reported.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/mem.h"
#include "heap/timeline.h"
#include "measure/machine.h"
#include "measure/spawn.h"
#include "profile/symbolize.h"
#include "util/json_emit.h"
#include "util/fileio.h"
#include "util/outputs.h"
#include "util/strutil.h"
#include "util/term.h"
#include "util/monoclock.h"

const char mem_help[] =
"usage: yardstick mem [OPTIONS] -- PROGRAM [ARGS...]\n"
"\n"
"Trace every heap allocation PROGRAM makes (malloc, calloc, realloc,\n"
"reallocarray, free, posix_memalign, aligned_alloc, memalign, valloc,\n"
"pvalloc; C++ new and delete reach these) and report the peak heap and\n"
"when it happened, leaks, temporary allocations, allocation sizes, the\n"
"RSS, and the call stacks that cost the most.\n"
"\n"
"      --sample BYTES     trace on average one allocation per BYTES\n"
"                         allocated (e.g. 512k): low overhead; counts of\n"
"                         allocations, bytes and temporaries stay exact,\n"
"                         the peak, leaks and sites become estimates\n"
"      --unwind MODE      dwarf (default: libunwind, any binary) or fp\n"
"                         (frame pointers: faster, needs binaries built\n"
"                         with -fno-omit-frame-pointer)\n"
"      --depth N          frames kept per stack (default and most: 64)\n"
"  -n, --top N            sites in each list of the report (default 5)\n"
"  -o, --output FILE      write the profile (repeatable): .folded, .svg\n"
"                         (flame graph), .speedscope.json, .pb.gz (pprof,\n"
"                         with alloc_objects, alloc_space, inuse_objects,\n"
"                         inuse_space, temporary_objects, peak_space)\n"
"      --format FMT       folded, svg, speedscope or pprof, for -o files\n"
"                         whose name says nothing\n"
"      --cost COST        what folded and SVG outputs show: peak (bytes\n"
"                         live at the peak, default), allocated (bytes),\n"
"                         allocations, temporary, leaked (bytes)\n"
"      --lines            file:line of every frame\n"
"      --title TEXT       the flame graph's title\n"
"      --timeline FILE    an SVG of the heap and the RSS over time\n"
"      --json FILE        the result (kind \"mem\": peak_heap,\n"
"                         leaked_bytes, allocations, temporary_allocations,\n"
"                         peak_rss), for compare and gate; - is stdout\n"
"      --name NAME        the benchmark's name in the result (default: the\n"
"                         command line)\n"
"      --store PATH       the result store (default $YARDSTICK_STORE or\n"
"                         .yardstick/results.db)\n"
"      --no-store         do not keep the result in the store\n"
"  -q, --quiet            no report\n"
"\n"
"Definitions: sizes are the bytes asked for; the peak is the largest sum\n"
"of live blocks at any moment; leaked is what is still allocated at exit\n"
"(as heaptrack counts them). A temporary allocation is yardstick's own:\n"
"a block freed by the thread that allocated it before that thread\n"
"allocated or freed anything else (realloc is a free and an allocation).\n"
"heaptrack's differs: it counts a free as temporary when the event just\n"
"before it, in any thread, allocated a block of the same size from the\n"
"same stack, whichever block is freed; it counts more (a, b allocated\n"
"alike, then a freed: heaptrack 1, yardstick 0).\n"
"\n"
"If the program writes to the agent's descriptors (the highest two below\n"
"the descriptor limit), what it wrote is skipped; if it closes or replaces\n"
"its socket, the agent connects to yardstick again (up to 64 times).\n"
"Records that could still not be sent make the trace incomplete: a loud\n"
"warning, \"trace\": \"incomplete\" in the result's settings, the peak\n"
"and leaks listed as unsupported, the counts (exact) kept. The exit\n"
"status still is the program's.\n"
"\n"
"Only the program itself is traced: children it forks or execs run\n"
"untraced. A program that crashes is reported up to the crash. Its\n"
"standard input, output and error are its own, except that with an\n"
"output on stdout (--json -, -o -, --timeline -) the program's standard\n"
"output goes to stderr, so that stdout holds that output alone; the\n"
"report goes to stderr.\n"
"\n"
"Environment: YARDSTICK_HEAP_AGENT, the agent's path (default: beside\n"
"yardstick, or in its install's libdir/yardstick); YARDSTICK_MEM_TIMING=1,\n"
"where yardstick's own time went (the run, the replay, symbolizing).\n"
"\n"
"Exit status: 0 the program exited with 0; 1 it failed or crashed (the\n"
"report is still written); 2 bad usage, a program that cannot be found,\n"
"is statically linked or set-user-ID (a preloaded agent cannot work\n"
"there), or an output that cannot be written; 3 the store is locked,\n"
"read-only or another user's, or libdw (elfutils) cannot be loaded.\n";

enum {
	OPT_SAMPLE = 256, OPT_UNWIND, OPT_DEPTH, OPT_FORMAT, OPT_COST,
	OPT_LINES, OPT_TITLE, OPT_TIMELINE, OPT_JSON, OPT_NAME, OPT_STORE,
	OPT_NO_STORE
};

static const struct option long_opts[] = {
	{ "sample", required_argument, NULL, OPT_SAMPLE },
	{ "unwind", required_argument, NULL, OPT_UNWIND },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "top", required_argument, NULL, 'n' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "cost", required_argument, NULL, OPT_COST },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "no-store", no_argument, NULL, OPT_NO_STORE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct {
	const char *name;
	enum heap_type type;
	const char *unit;
} costs[] = {
	{ "peak", HEAP_T_PEAK_SPACE, "bytes" },
	{ "allocated", HEAP_T_ALLOC_SPACE, "bytes" },
	{ "allocations", HEAP_T_ALLOC_OBJECTS, "allocations" },
	{ "temporary", HEAP_T_TEMPORARY, "allocations" },
	{ "leaked", HEAP_T_INUSE_SPACE, "bytes" },
};

static int usage_error(const char *fmt, const char *arg)
{
	fputs("yardstick mem: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 2;
}

/* "524288", "512k", "512KiB", "1M", "1g": bytes, binary multiples. */
static int parse_size(const char *s, unsigned long long *out)
{
	char *end;
	double v = strtod(s, &end);
	double mult = 1;

	if (end == s || !(v > 0) || !isfinite(v))
		return -1;
	switch (*end) {
	case 'k': case 'K': mult = 1024; end++; break;
	case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
	}
	if (mult > 1 && *end == 'i')
		end++;
	if (*end == 'B' || (*end == 'b' && mult > 1))
		end++;
	if (*end || v * mult < 1 || v * mult > 1e15)
		return -1;
	*out = (unsigned long long)(v * mult);
	return 0;
}

static int parse_opt(struct mem_args *a, int c, const char *arg)
{
	unsigned long long size;
	long l;

	switch (c) {
	case OPT_SAMPLE:
		if (parse_size(arg, &size))
			return usage_error("--sample: '%s' is not a size in "
					   "bytes (e.g. 524288 or 512k)", arg);
		a->ho.sample_bytes = size;
		return 0;
	case OPT_UNWIND:
		if (!strcmp(arg, "fp"))
			a->ho.unwind = HEAP_UNWIND_FP;
		else if (!strcmp(arg, "dwarf"))
			a->ho.unwind = HEAP_UNWIND_DWARF;
		else
			return usage_error("--unwind: '%s' is not dwarf or fp",
					   arg);
		return 0;
	case OPT_DEPTH:
		if (parse_long(arg, &l) || l < 1 || l > HEAP_MAX_DEPTH)
			return usage_error("--depth: '%s' is not a number from "
					   "1 to 64", arg);
		a->ho.max_depth = (unsigned)l;
		return 0;
	case 'n':
		if (parse_long(arg, &l) || l < 1)
			return usage_error("--top: '%s' is not a number >= 1",
					   arg);
		a->top = l;
		return 0;
	case 'o': profile_outputs_add(&a->out, arg); return 0;
	case OPT_FORMAT:
		a->out.format = profile_fmt_named(arg);
		if (a->out.format == PROFILE_FMT_NONE)
			return usage_error("--format: '%s' is not folded, svg, "
					   "speedscope or pprof", arg);
		return 0;
	case OPT_COST:
		for (size_t i = 0; i < sizeof(costs) / sizeof(costs[0]); i++)
			if (!strcmp(arg, costs[i].name)) {
				a->cost = (int)i;
				return 0;
			}
		return usage_error("--cost: '%s' is not peak, allocated, "
				   "allocations, temporary or leaked", arg);
	case OPT_LINES: a->out.lines = true; return 0;
	case OPT_TITLE: a->title = arg; return 0;
	case OPT_TIMELINE: a->timeline = arg; return 0;
	case OPT_JSON: a->json = arg; return 0;
	case OPT_NAME: a->name = arg; return 0;
	case OPT_STORE: a->store = arg; return 0;
	case OPT_NO_STORE: a->no_store = true; return 0;
	case 'q': a->quiet = true; return 0;
	}
	return usage_error("unknown option%s", "");
}

static int on_opt(void *arg, int c, const char *val)
{
	return parse_opt(arg, c, val);
}

static int parse(struct mem_args *a, int argc, char **argv)
{
	const struct prog_parser pp = { "mem", ":n:o:qh", mem_help,
					long_opts, on_opt, a };
	int first, dashdash, r;

	r = parse_program_args(argc, argv, &pp, &first, &dashdash);
	if (r)
		return r;
	return program_and_outputs("mem", argc, argv, first, dashdash,
				   &a->out, &a->argv);
}

/*
 * At most one output on stdout; with one, the program's stdout goes to
 * stderr, so that stdout holds the output alone (a JSON document stays
 * one).
 */
static int check_stdout(struct mem_args *a)
{
	size_t n = a->out.n + 2;
	struct output_ref *v = xcalloc(n, sizeof(*v));
	struct error e;
	int k;

	for (size_t i = 0; i < a->out.n; i++)
		v[i] = (struct output_ref){ "-o", a->out.paths[i] };
	v[n - 2] = (struct output_ref){ "--json", a->json };
	v[n - 1] = (struct output_ref){ "--timeline", a->timeline };
	k = outputs_on_stdout(v, n, &e);
	free(v);
	if (k == -2) {
		fprintf(stderr, "yardstick mem: %s\n", e.msg);
		return 2;
	}
	a->ho.stdout_to_stderr = k >= 0;
	return 0;
}

/* Every file asked for must be writable before the program runs. */
static int check_outputs(struct mem_args *a)
{
	const char *extra[] = { a->timeline, a->json };
	struct error e;

	for (size_t i = 0; i < a->out.n; i++)
		if (atomic_check(a->out.paths[i], &e))
			goto bad;
	for (size_t i = 0; i < 2; i++)
		if (extra[i] && strcmp(extra[i], "-") &&
		    atomic_check(extra[i], &e))
			goto bad;
	return check_stdout(a);
bad:
	fprintf(stderr, "yardstick mem: %s\n", e.msg);
	return 2;
}

static int write_outputs(struct mem_args *a, struct mem_run *m)
{
	char sub[512];
	struct error e;
	int ret;

	snprintf(sub, sizeof(sub), "%s — %s", m->prof.command,
		 costs[a->cost].name);
	a->out.flame.title = a->title ? a->title : "yardstick mem";
	a->out.flame.subtitle = sub;
	a->out.flame.unit = costs[a->cost].unit;
	a->out.type = costs[a->cost].type;
	ret = profile_outputs_write(&a->out, &m->prof, "mem");
	if (a->timeline && heap_write_timeline(&m->rep, m->prof.command,
					       a->timeline, &e)) {
		fprintf(stderr, "yardstick mem: %s\n", e.msg);
		ret = 2;
	}
	if (a->json && mem_write_result(a, m, &e)) {
		fprintf(stderr, "yardstick mem: %s\n", e.msg);
		ret = 2;
	}
	return ret;
}

static int prepare(struct mem_args *a, char **path)
{
	const char *why;
	struct error e;

	if (spawn_resolve_program(a->argv[0], path, &e)) {
		fprintf(stderr, "yardstick mem: %s\n", e.msg);
		return 2;
	}
	why = heap_unpreloadable(*path);
	if (why) {
		fprintf(stderr, "yardstick mem: cannot trace '%s': %s\n",
			*path, why);
		return 2;
	}
	a->ho.agent = heap_find_agent(&e);
	if (!a->ho.agent) {
		fprintf(stderr, "yardstick mem: %s\n", e.msg);
		return 2;
	}
	if (check_outputs(a))
		return 2;
	/* libdw, for the sites (see mem()), loaded before the run */
	if ((!a->quiet || a->out.n) && symtab_load(&e)) {
		fprintf(stderr, "yardstick mem: %s\n", e.msg);
		return 3;
	}
	return 0;
}

static int mem(struct mem_args *a)
{
	struct mem_run m;
	struct error e;
	char *path = NULL;
	double t0, t1;
	int ret;

	memset(&m, 0, sizeof(m));
	ret = prepare(a, &path);
	if (ret)
		goto out;
	git_detect_start(&m.git, &m.git_probe);
	if (heap_collect(&a->ho, path, a->argv, &m.trace, &e)) {
		fprintf(stderr, "yardstick mem: %s\n", e.msg);
		git_detect_finish(&m.git_probe);
		ret = 2;
		goto out;
	}
	t0 = monoclock_s();
	heap_analyze(&m.trace, &m.rep);
	t1 = monoclock_s();
	/* the sites are symbolized for the report and the -o outputs only:
	 * most of the cost of a short run (libc's debug information) */
	if (!a->quiet || a->out.n)
		heap_profile(&m.trace, &m.rep, a->out.lines, &m.prof);
	/* where the time went, for bench/mem_overhead.sh's readers */
	if (getenv("YARDSTICK_MEM_TIMING"))
		fprintf(stderr, "yardstick mem: run %.3f s, replay %.3f s, "
			"symbolize %.3f s; %llu bytes of records, %llu "
			"events\n", m.trace.duration, t1 - t0,
			monoclock_s() - t1,
			(unsigned long long)m.trace.bytes_received,
			(unsigned long long)m.rep.events);
	m.prof.command = argv_join(a->argv);
	mem_print_status(&m);
	if (!a->quiet)
		mem_report(a, &m, stderr);
	git_detect_finish(&m.git_probe);
	if (git_detect_warning(&m.git_probe))
		fprintf(stderr, "yardstick: warning: %s\n",
			git_detect_warning(&m.git_probe));
	ret = write_outputs(a, &m);
	if (!ret && !a->no_store && m.trace.agent_started)
		ret = mem_save(a, &m);
	if (!ret && !(WIFEXITED(m.trace.status) &&
		      WEXITSTATUS(m.trace.status) == 0))
		ret = 1;
	profile_free(&m.prof);
	heap_report_free(&m.rep);
	heap_trace_free(&m.trace);
	if (m.have_res)
		result_free(&m.res);
	free(m.git.commit);
	free(m.git.branch);
out:
	free(path);
	free((char *)a->ho.agent);
	return ret;
}

int cmd_mem(int argc, char **argv)
{
	struct mem_args a = { .top = 5 };
	int ret;

	a.ho.unwind = HEAP_UNWIND_DWARF;
	a.ho.max_depth = HEAP_MAX_DEPTH;
	ret = parse(&a, argc, argv);
	if (ret == 0)
		ret = mem(&a);
	else if (ret == 1)
		ret = 0;
	free(a.out.paths);
	return ret;
}
