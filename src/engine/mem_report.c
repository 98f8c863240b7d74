/*
 * `yardstick mem`'s report on the terminal, and its result for --json and
 * the store (mem_run.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "engine/mem_run.h"

#include "engine/partial.h"
#include "config.h"
#include "measure/spawn.h"
#include "util/stop.h"
#include "profile/pystacks.h"
#include "profile/python.h"
#include "result/metrics.h"
#include "util/strutil.h"
#include "util/term.h"

#define MAX_FRAMES_SHOWN 8

/* 1234567 -> "1,234,567" */
static char *fmt_count(double v, char *buf, size_t n)
{
	char digits[32];
	size_t len, k = 0;

	snprintf(digits, sizeof(digits), "%.0f", v);
	len = strlen(digits);
	for (size_t i = 0; i < len && k + 2 < n; i++) {
		if (i && digits[i - 1] != '-' && (len - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = '\0';
	return buf;
}

static char *fmt_bytes(double v, char *buf, size_t n)
{
	return fmt_value(v, "bytes", buf, n);
}


/* yardstick's own memory for the trace: the most bytes of records it
 * held at once and the stacks' store at the end (an upper bound of what
 * both took at one moment); and its own peak RSS so far (the sites, the
 * symbols and the profile besides). */
static void print_held(const struct heap_report *r, FILE *fp, bool color)
{
	char a[64], b[64], c[64], d[64], e[64];
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		ru.ru_maxrss = 0;
	fprintf(fp, "  %s%-12s %14s  held (records %s, %s stack%s in %s), "
		"peak RSS %s%s\n",
		term_dim(color), "yardstick",
		fmt_bytes((double)(r->held_bytes + r->stack_bytes), a,
			  sizeof(a)),
		fmt_bytes((double)r->held_bytes, b, sizeof(b)),
		fmt_count((double)r->nstacks, c, sizeof(c)),
		plural_s(r->nstacks),
		fmt_bytes((double)r->stack_bytes, d, sizeof(d)),
		fmt_bytes((double)ru.ru_maxrss * 1024, e, sizeof(e)),
		term_reset(color));
}

/* The throttle's part in a sampled run (agent_sample.h): how many samples
 * were drawn at a raised interval, and the largest; false when none was. */
static bool throttle_note(const struct mem_run *m, char *buf, size_t n)
{
	const struct heap_report *r = &m->rep;
	char a[32], b[32];

	if (!r->estimated || !r->samples_raised || !r->samples)
		return false;
	snprintf(buf, n, "%.1f%% of %s samples at an interval raised up to %s: "
		 "threads sampling faster than --sample-rate %llu/s",
		 100.0 * (double)r->samples_raised / (double)r->samples,
		 fmt_count((double)r->samples, a, sizeof(a)),
		 fmt_bytes(ldexp((double)m->trace.sample_bytes,
				 (int)r->raised_max), b, sizeof(b)),
		 (unsigned long long)m->trace.sample_rate);
	return true;
}

static void print_totals(const struct mem_run *m, FILE *fp, bool color)
{
	const struct heap_report *r = &m->rep;
	char a[64], b[64], c[64];

	fputs(term_bold(color), fp);
	term_puts(fp, m->prof.command);	/* the command line, escaped */
	fprintf(fp, "%s: %.3f s\n", term_reset(color), m->trace.duration);
	if (heap_trace_incomplete(&m->trace))
		fprintf(fp, "  %sINCOMPLETE TRACE%s: the figures below cover "
			"only the records received (see the warnings)\n",
			term_bold(color), term_reset(color));
	fprintf(fp, "  %-12s %14s  (%s allocated, %s freed)\n", "allocations",
		fmt_count(r->allocations, a, sizeof(a)),
		fmt_bytes(r->bytes, b, sizeof(b)),
		fmt_count(r->frees, c, sizeof(c)));
	fprintf(fp, "  %-12s %14s  (%.1f%% of allocations)\n", "temporary",
		fmt_count(r->temporary, a, sizeof(a)),
		r->allocations > 0 ? 100 * r->temporary / r->allocations : 0);
	fprintf(fp, "  %-12s %14s  at %.3f s\n", "peak heap",
		fmt_bytes(r->peak, a, sizeof(a)), r->peak_t);
	fprintf(fp, "  %-12s %14s\n", "peak RSS",
		fmt_bytes(r->peak_rss, a, sizeof(a)));
	fprintf(fp, "  %-12s %14s  in %s block%s\n", "leaked",
		fmt_bytes(r->leaked_bytes, a, sizeof(a)),
		fmt_count(r->leaked_blocks, b, sizeof(b)),
		plural_s((uint64_t)llround(r->leaked_blocks)));
	if (r->estimated) {
		char note[160];

		fprintf(fp, "  %s(peak, leaks and sites estimated from a sample "
			"of one allocation per %s allocated)%s\n",
			term_dim(color), fmt_bytes((double)m->trace.sample_bytes,
						   a, sizeof(a)),
			term_reset(color));
		if (throttle_note(m, note, sizeof(note)))
			fprintf(fp, "  %s(%s)%s\n", term_dim(color), note,
				term_reset(color));
	}
	print_held(r, fp, color);
}

/*
 * The processes of the tree, when the program started any with the
 * agent: each one's own figures (its images across its execs: the
 * allocations summed, the largest peak, what its last image leaked).
 */
static void print_procs(const struct heap_report *r, FILE *fp, bool color)
{
	size_t n = 0, *root = xcalloc(r->nprocs, sizeof(size_t));
	bool *kept = xcalloc(r->nprocs, sizeof(bool));
	char a[64], b[64], c[64], d[64];

	/* a process: its first image and those that replaced it; one
	 * whose images are all launchers' is not the program's */
	for (size_t i = 1; i < r->nprocs; i++) {
		const struct heap_proc *pr = &r->procs[i];

		root[i] = pr->replaced ? root[pr->replaced] : i;
		if (!pr->launcher && !kept[root[i]])
			n += kept[root[i]] = true;
	}
	free(kept);
	if (n < 2 && !r->procs[0].seen) {
		free(root);
		return;
	}
	fprintf(fp, "\n%sprocesses%s (%zu; the figures above are the whole "
		"tree's, its peak the largest sum of their live blocks at one "
		"moment)\n", term_bold(color), term_reset(color), n);
	fprintf(fp, "  %8s %8s %14s %12s %12s %12s  %s\n", "pid", "parent",
		"allocations", "allocated", "peak", "leaked", "command");
	for (size_t i = 1; i < r->nprocs; i++) {
		struct heap_proc sum = { 0 };
		const char *cmd = r->procs[i].cmd;

		if (root[i] != i)
			continue;
		for (size_t k = i; k < r->nprocs; k++) {
			const struct heap_proc *pr = &r->procs[k];

			if (root[k] != i || pr->launcher)
				continue;
			sum.seen = true;
			sum.allocations += pr->allocations;
			sum.bytes += pr->bytes;
			sum.peak = fmax(sum.peak, pr->peak);
			sum.leaked_bytes += pr->leaked_bytes;
			cmd = pr->cmd;	/* its last image's */
		}
		if (!sum.seen)
			continue;	/* a launcher's, every image */
		fprintf(fp, "  %8d %8d %14s %12s %12s %12s  ", (int)r->procs[i].pid,
			(int)r->procs[i].ppid,
			fmt_count(sum.allocations, a, sizeof(a)),
			fmt_bytes(sum.bytes, b, sizeof(b)),
			fmt_bytes(sum.peak, c, sizeof(c)),
			fmt_bytes(sum.leaked_bytes, d, sizeof(d)));
		term_puts(fp, cmd);
		fprintf(fp, "%s\n", r->procs[i].parent ? " (forked)" : "");
	}
	if (r->procs[0].seen)
		fprintf(fp, "  %8s %8s %14s %12s %12s %12s  (processes beyond "
			"the first %d)\n", "?", "?",
			fmt_count(r->procs[0].allocations, a, sizeof(a)),
			fmt_bytes(r->procs[0].bytes, b, sizeof(b)),
			fmt_bytes(r->procs[0].peak, c, sizeof(c)),
			fmt_bytes(r->procs[0].leaked_bytes, d, sizeof(d)),
			HEAP_IMAGES - 1);
	free(root);
}

/* A power of two in bytes: "512 B", "4 KiB", "2 MiB". */
static void fmt_pow2(uint64_t v, char *buf, size_t n)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB",
					     "PiB", "EiB" };
	int u = 0;

	while (v >= 1024 && u < 6) {
		v /= 1024;
		u++;
	}
	snprintf(buf, n, "%llu %s", (unsigned long long)v, units[u]);
}

/* One row per size class: [2^(i-1), 2^i), and 0 on its own. */
static void print_sizes(const struct heap_report *r, FILE *fp, bool color)
{
	double most = 0;

	for (int i = 0; i < HEAP_HIST; i++)
		most = fmax(most, r->hist_count[i]);
	if (most <= 0)
		return;
	fprintf(fp, "\n%sallocation sizes%s %s(from, up to but not "
		"including)%s\n", term_bold(color), term_reset(color),
		term_dim(color), term_reset(color));
	for (int i = 0; i < HEAP_HIST; i++) {
		char lo[32], hi[32], n[32], range[80];
		int bar = (int)lround(30 * r->hist_count[i] / most);

		if (r->hist_count[i] <= 0)
			continue;
		fmt_pow2(heap_hist_low(i), lo, sizeof(lo));
		fmt_pow2(heap_hist_low(i + 1), hi, sizeof(hi));
		if (i == 0)
			snprintf(range, sizeof(range), "0 B");
		else if (i == HEAP_HIST - 1)
			snprintf(range, sizeof(range), "%s and more", lo);
		else
			snprintf(range, sizeof(range), "%s - %s", lo, hi);
		fprintf(fp, "  %-18s %5.1f%% %14s  ", range,
			100 * r->hist_count[i] / r->allocations,
			fmt_count(r->hist_count[i], n, sizeof(n)));
		for (int k = 0; k < bar; k++)
			fputs("▇", fp);
		fputc('\n', fp);
	}
}

static const struct profile *sort_prof;
static size_t sort_type;

static int by_value(const void *a, const void *b)
{
	int64_t x = sort_prof->stacks[*(const size_t *)a].values[sort_type];
	int64_t y = sort_prof->stacks[*(const size_t *)b].values[sort_type];

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The C library's frames under main and under a thread's function: the
 * same in every stack, so the report leaves them out (exports keep
 * them). */
static bool runtime_frame(const struct frame *f)
{
	return heap_root_frame(f->function);
}

/* One frame of a site, as every output names it. */
static void print_frame(const struct frame *f, bool indent, bool lines,
			FILE *fp, bool color)
{
	const char *base = f->file ? strrchr(f->file, '/') : NULL;

	/* names from the profiled program: escaped for the terminal */
	fprintf(fp, "%*s", indent ? 25 : 0, "");
	/* a Python frame as every output names it (pystacks.h); a native
	 * one with the line executing when known */
	if (pystacks_is_python(f)) {
		char *name = pystacks_label(f, lines);

		term_puts(fp, name);
		free(name);
	} else {
		term_puts(fp, f->function);
	}
	if (!pystacks_is_python(f) && f->file && f->line) {
		fputs(" (", fp);
		term_puts(fp, base ? base + 1 : f->file);
		fprintf(fp, ":%d)", f->line);
	}
	/* a module that is a bracketed name already ([python], [kernel],
	 * [vdso]) is not bracketed twice */
	if (f->module) {
		bool bracketed = f->module[0] == '[' &&
			f->module[strlen(f->module) - 1] == ']';

		fprintf(fp, " %s%s", term_dim(color), bracketed ? "" : "[");
		term_puts(fp, f->module);
		fprintf(fp, "%s%s", bracketed ? "" : "]", term_reset(color));
	}
	fputc('\n', fp);
}

/* "... N more frames", when N is not 0. */
static void print_more(size_t n, FILE *fp, bool color)
{
	if (n)
		fprintf(fp, "%25s%s... %zu more frames%s\n", "",
			term_dim(color), n, term_reset(color));
}

/*
 * A site's frames, innermost first, at most MAX_FRAMES_SHOWN of them. A
 * stack whose Python frames all lie past that cut — a PyTorch tensor's
 * storage is 30 to 50 native frames (the allocator, the dispatcher, the
 * operators) below the Python line that asked for it — shows its
 * innermost PY_NATIVE_SHOWN frames, then its Python frames (at most
 * MAX_FRAMES_SHOWN, without the interpreter's C frames between them):
 * the line of the program is what a reader of the report looks for, and
 * the -o outputs keep every frame.
 */
#define PY_NATIVE_SHOWN 4

static void print_frames(const struct profile *p, const struct stack *st,
			 bool lines, FILE *fp, bool color)
{
	size_t depth = st->depth, py, shown = 0, hidden = 0;

	while (depth > 1 && runtime_frame(&p->frames[st->frames[depth - 1]]))
		depth--;
	for (py = 0; py < depth; py++)
		if (pystacks_is_python(&p->frames[st->frames[py]]))
			break;
	if (py < MAX_FRAMES_SHOWN || py == depth) {
		for (size_t d = 0; d < depth && d < MAX_FRAMES_SHOWN; d++)
			print_frame(&p->frames[st->frames[d]], d > 0,
				    lines, fp, color);
		if (depth > MAX_FRAMES_SHOWN)
			print_more(depth - MAX_FRAMES_SHOWN, fp, color);
		return;
	}
	for (size_t d = 0; d < PY_NATIVE_SHOWN; d++)
		print_frame(&p->frames[st->frames[d]], d > 0, lines, fp,
			    color);
	print_more(py - PY_NATIVE_SHOWN, fp, color);
	for (size_t d = py; d < depth; d++) {
		const struct frame *f = &p->frames[st->frames[d]];

		if (pystacks_is_python(f) && shown < MAX_FRAMES_SHOWN) {
			print_frame(f, true, lines, fp, color);
			shown++;
		} else {
			hidden++;
		}
	}
	print_more(hidden, fp, color);
}

/*
 * The indexes of p's k stacks of most values[type] into order, most
 * first, the first of equal ones first (as a stable sort puts them); how
 * many there are. A report's few (k at most 64) are picked in one pass:
 * a trace of a PyTorch program has hundreds of thousands of stacks, and
 * sorting them all for each list cost more than the rest of the report.
 */
static size_t top_stacks(const struct profile *p, size_t type, size_t k,
			 size_t *order)
{
	size_t n = 0;

	if (k > 64) {
		for (size_t i = 0; i < p->nstacks; i++)
			order[i] = i;
		sort_prof = p;
		sort_type = type;
		qsort(order, p->nstacks, sizeof(*order), by_value);
		return p->nstacks;
	}
	for (size_t i = 0; i < p->nstacks && k; i++) {
		int64_t v = p->stacks[i].values[type];
		size_t j;

		if (n == k && v <= p->stacks[order[n - 1]].values[type])
			continue;
		j = n < k ? n++ : n - 1;
		for (; j > 0 && p->stacks[order[j - 1]].values[type] < v; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	return n;
}

static void print_sites(const struct mem_plan *a, const struct profile *p,
			size_t type, const char *title, double total,
			bool bytes, FILE *fp, bool color)
{
	size_t *order = xmalloc((p->nstacks + 1) * sizeof(*order));
	size_t shown = 0;
	size_t n = top_stacks(p, type, (size_t)a->top, order);

	for (size_t i = 0; i < n && shown < (size_t)a->top; i++) {
		const struct stack *st = &p->stacks[order[i]];
		double v = (double)st->values[type];
		char buf[64];

		if (v <= 0)
			break;
		if (!shown++)
			fprintf(fp, "\n%s%s%s\n", term_bold(color), title,
				term_reset(color));
		if (bytes)
			fmt_bytes(v, buf, sizeof(buf));
		else
			fmt_count(v, buf, sizeof(buf));
		fprintf(fp, "  %12s %6.1f%%   ", buf,
			total > 0 ? 100 * v / total : 0);
		print_frames(p, st, a->lines, fp, color);
	}
	free(order);
}

/*
 * A CPython program: what its Python code kept, the blocks live when its
 * interpreter began to finalize (analyze.h, py_ends), the sites of most
 * bytes first. None when it never did (os._exit, not CPython).
 */
static void print_pyend(const struct mem_run *m, FILE *fp, bool color)
{
	const struct heap_report *r = &m->rep;
	char title[160], a[64], b[64];

	if (!r->py_ends || m->prof.ntypes <= HEAP_T_PYEND_SPACE)
		return;
	snprintf(title, sizeof(title), "live when the program's Python code "
		 "ended: %s in %s blocks, at %.3f s",
		 fmt_bytes(r->pyend_bytes, a, sizeof(a)),
		 fmt_count(r->pyend_blocks, b, sizeof(b)), r->pyend_t);
	print_sites(m->p, &m->prof, HEAP_T_PYEND_SPACE, title,
		    r->pyend_bytes, true, fp, color);
}

/*
 * What ran in front of the program and is not in its figures (a pyenv
 * shim and its helpers, a wrapper that execs the program): one line.
 */
static void print_launchers(const struct heap_report *r, FILE *fp,
			    bool color)
{
	struct heap_launch l;
	char a[64];

	heap_launchers(r, &l);
	if (!l.processes && !l.images)
		return;
	fprintf(fp, "  %snot counted: ", term_dim(color));
	if (l.processes)
		fprintf(fp, "%zu launcher process%s%s", l.processes,
			plural_es(l.processes), l.images ? " and " : "");
	if (l.images)
		fprintf(fp, "%zu image%s the program's process exec'd away "
			"from", l.images, plural_s(l.images));
	fprintf(fp, " (");
	term_puts(fp, l.names);
	fprintf(fp, "; %s allocations%s)%s; --all-processes to include\n",
		fmt_count(l.allocations, a, sizeof(a)),
		r->estimated && !r->launch_exact ? ", estimated" : "",
		r->estimated && !r->launch_exact
		? "; the exact counts above include them" : "");
	fprintf(fp, "%s", term_reset(color));
}

void mem_report(const struct mem_run *m, FILE *fp)
{
	const struct mem_plan *a = m->p;
	const struct heap_report *r = &m->rep;
	const struct profile *p = &m->prof;
	bool color = term_use_color(fp);

	if (!m->trace.agent_started)
		return;
	print_totals(m, fp, color);
	print_launchers(r, fp, color);
	print_procs(r, fp, color);
	print_sizes(r, fp, color);
	print_sites(a, p, HEAP_T_PEAK_SPACE, "bytes live at the peak",
		    r->peak, true, fp, color);
	print_sites(a, p, HEAP_T_ALLOC_OBJECTS, "most allocations",
		    r->allocations, false, fp, color);
	print_sites(a, p, HEAP_T_TEMPORARY, "most temporary allocations",
		    r->temporary, false, fp, color);
	print_pyend(m, fp, color);
	print_sites(a, p, HEAP_T_INUSE_SPACE, "leaked", r->leaked_bytes, true,
		    fp, color);
}

/* ---- the result --------------------------------------------------------- */

static void add_metric(struct benchmark *b, const char *name,
		       const char *unit, double v)
{
	metric_push(benchmark_metric(b, name, unit), v);
}

void mem_build_result(struct mem_run *m)
{
	const struct mem_plan *a = m->p;
	const struct heap_report *rep = &m->rep;
	struct result *r = &m->res;
	struct benchmark *b;
	char *name, note[256];
	struct heap_launch launch;

	if (m->have_res)
		return;
	m->have_res = true;
	result_init(r, "mem");
	r->created = utc_timestamp();
	r->tool_version = xstrdup(YS_VERSION);
	machine_detect(&r->machine);
	r->git = m->git;
	memset(&m->git, 0, sizeof(m->git));
	result_set_num(r, "sample_bytes", (double)a->ho.sample_bytes);
	result_set_num(r, "sample_rate", (double)a->ho.sample_rate);
	if (m->rep.estimated) {
		result_set_num(r, "samples", (double)m->rep.samples);
		result_set_num(r, "samples_raised",
			       (double)m->rep.samples_raised);
		result_set_num(r, "sample_interval_max",
			       ldexp((double)a->ho.sample_bytes,
				     (int)m->rep.raised_max));
	}
	result_set_str(r, "unwind", a->ho.unwind == HEAP_UNWIND_FP ? "fp"
		       : "dwarf");
	result_set_num(r, "depth", a->ho.max_depth);
	result_mark_partial(r);
	name = a->name ? xstrdup(a->name) : argv_join(a->argv);
	b = result_add_benchmark(r, name, a->argv);
	free(name);
	if (m->trace.interrupted || stop_signal())
		benchmark_add_warning(b, "partial: the program was stopped by "
				      "a signal to yardstick; what it held "
				      "then counts as leaked");
	benchmark_push_exit(b, spawn_exit_code(m->trace.status));
	heap_launchers(rep, &launch);
	result_set_str(r, "processes", a->all_processes ? "all" : "program");
	result_set_num(r, "launchers", (double)(launch.processes +
						launch.images));
	result_set_str(r, "trace", !m->trace.agent_started ? "none"
		       : heap_trace_incomplete(&m->trace) ? "incomplete"
		       : "complete");
	if (m->trace.agent_started && (m->trace.header_damaged ||
					m->trace.overflow_threads)) {
		const char *lost[] = { METRIC_PEAK_HEAP, "leaked_bytes",
				       "allocations", "temporary_allocations",
				       "bytes_allocated", "leaked_blocks" };

		for (size_t i = 0; i < 6; i++)
			benchmark_add_unsupported(b, lost[i]);
		benchmark_add_warning(b, m->trace.header_damaged
				      ? "incomplete trace: the agent's memory "
					"was overwritten"
				      : "incomplete trace: threads not "
					"traced");
	} else if (m->trace.agent_started &&
		   heap_trace_incomplete(&m->trace)) {
		/* what the agent counted is exact; what the records say
		 * is not */
		add_metric(b, "allocations", "count",
			   (double)m->trace.counts.allocations);
		add_metric(b, "temporary_allocations", "count",
			   (double)m->trace.counts.temporary);
		add_metric(b, "bytes_allocated", "bytes",
			   (double)m->trace.counts.bytes);
		benchmark_add_unsupported(b, METRIC_PEAK_HEAP);
		benchmark_add_unsupported(b, "leaked_bytes");
		benchmark_add_unsupported(b, "leaked_blocks");
		benchmark_add_warning(b, "incomplete trace: allocations, "
				      "bytes_allocated and "
				      "temporary_allocations are exact, the "
				      "peak, the leaks and the sites are not "
				      "known");
	} else if (m->trace.agent_started) {
		add_metric(b, METRIC_PEAK_HEAP, "bytes", rep->peak);
		add_metric(b, "leaked_bytes", "bytes", rep->leaked_bytes);
		add_metric(b, "allocations", "count", rep->allocations);
		add_metric(b, "temporary_allocations", "count",
			   rep->temporary);
		add_metric(b, "bytes_allocated", "bytes", rep->bytes);
		add_metric(b, "leaked_blocks", "count", rep->leaked_blocks);
		if (rep->py_ends) {
			add_metric(b, METRIC_PYTHON_END_BYTES, "bytes",
				   rep->pyend_bytes);
			add_metric(b, METRIC_PYTHON_END_BLOCKS, "count",
				   rep->pyend_blocks);
		}
		for (size_t i = 0; i < rep->ntimeline; i++) {
			series_push(&b->timeline.t, rep->timeline[i].t);
			series_push(&b->timeline.heap, rep->timeline[i].heap);
			series_push(&b->timeline.rss, rep->timeline[i].rss);
		}
	} else {
		const char *lost[] = { METRIC_PEAK_HEAP, "leaked_bytes",
				       "allocations", "temporary_allocations" };

		for (size_t i = 0; i < 4; i++)
			benchmark_add_unsupported(b, lost[i]);
		benchmark_add_warning(b, "the heap agent did not start in the "
				      "program");
	}
	add_metric(b, METRIC_PEAK_RSS, "bytes", rep->peak_rss);
	if (rep->estimated)
		benchmark_add_warning(b, "sampled one allocation per %llu "
				      "bytes: peak_heap and leaked_bytes are "
				      "estimates",
				      (unsigned long long)a->ho.sample_bytes);
	if (throttle_note(m, note, sizeof(note)))
		benchmark_add_warning(b, "%s", note);
	if (m->trace.overflow_threads)
		benchmark_add_warning(b, "%u threads were not traced",
				      m->trace.overflow_threads);
	if (heap_failed_allocs_note(&m->trace, note, sizeof(note)))
		benchmark_add_warning(b, "%s", note);
	if (m->trace.stopped)
		benchmark_add_warning(b, "incomplete trace: the program closed "
				      "or replaced the agent's socket "
				      "(descriptor %d): sending stopped early",
				      m->trace.sock_fd);
	if (m->trace.garbage_bytes)
		benchmark_add_warning(b, "the program wrote %llu bytes into the "
				      "agent's socket (descriptor %d): "
				      "skipped",
				      (unsigned long long)m->trace.garbage_bytes,
				      m->trace.sock_fd);
	if (m->trace.lost_chunks || m->trace.counts.dropped)
		benchmark_add_warning(b, "incomplete trace: %llu chunks of "
				      "records lost, %llu records not sent",
				      (unsigned long long)m->trace.lost_chunks,
				      (unsigned long long)
				      m->trace.counts.dropped);
	if (rep->stacks_damaged)
		benchmark_add_warning(b, "%llu stacks could not be rebuilt "
				      "(each was sent as what differs from one "
				      "that did not arrive): their allocations "
				      "have no frames",
				      (unsigned long long)rep->stacks_damaged);
	result_summarize(r, 1, 0);
}

int mem_write_result(const char *path, void *run, struct error *e)
{
	struct mem_run *m = run;

	mem_build_result(m);
	return result_write_json(&m->res, path, e);
}
