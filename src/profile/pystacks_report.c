/*
 * Python frames in sampled stacks (pystacks.h): what is told of them
 * afterwards, the frames' labels, the threads seen and the summary.
 */
#include "profile/pystacks.h"
#include "profile/pystacks_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strutil.h"
#include "util/term.h"

static int pystacks_name_len(const struct frame *f)
{
	const char *paren = f->module && !strcmp(f->module, PYSTACKS_MODULE)
		? strrchr(f->function, '(') : NULL;

	return paren && paren > f->function ? (int)(paren - f->function - 1)
					    : (int)strlen(f->function);
}

bool pystacks_is_python(const struct frame *f)
{
	return f->module && !strcmp(f->module, PYSTACKS_MODULE);
}

char *pystacks_label(const struct frame *f, bool lines)
{
	const char *base = f->file ? strrchr(f->file, '/') : NULL;

	if (!lines || !f->file || !f->line)
		return xstrdup(f->function);
	/* a Python frame's name has its file and first line already: the
	 * executing line takes their place */
	return xasprintf("%.*s (%s:%d)", pystacks_name_len(f), f->function,
			 base ? base + 1 : f->file, f->line);
}

size_t pystacks_nthreads(const struct pystacks *ps)
{
	return ps->nthreads;
}

const struct pystacks_thread *pystacks_thread_at(const struct pystacks *ps,
						 size_t i)
{
	return &ps->threads[i];
}

void pystacks_stats(const struct pystacks *ps, struct pystacks_stats *st)
{
	*st = ps->st;
}

/* The causes of the samples kept native, each with its count, "" when
 * none. */
static void fput_causes(const struct pystacks *ps, FILE *fp)
{
	const struct pystacks_stats *st = &ps->st;

	if (st->unready) {
		fprintf(fp, "%" PRIu64 " because ", st->unready);
		if (ps->program) {
			fputs("yardstick could not tell that '", fp);
			term_puts(fp, ps->program);
			fputs("' would run Python when it started it, so its "
			      "stacks were not copied (CPython has no frame "
			      "pointers): give -g dwarf", fp);
		} else {
			fputs("-g fp was asked for, and CPython has no frame "
			      "pointers: give -g dwarf", fp);
		}
		fputs("; ", fp);
	}
	fprintf(fp, "%" PRIu64 " read too late", st->stale);
	if (st->stale && ps->reader_why) {
		fputs(" (", fp);
		term_puts(fp, ps->reader_why);
		fputc(')', fp);
	}
	fprintf(fp, ", %" PRIu64 " whose thread had left the sampled "
		"function, %" PRIu64 " unreadable, %" PRIu64 " whose "
		"evaluation frames and Python frames disagreed", st->changed,
		st->unreadable, st->mismatched);
}

void pystacks_fput_report(const struct pystacks *ps, bool quiet, FILE *fp)
{
	const struct pystacks_stats *st = &ps->st;
	uint64_t read = st->samples - st->stale - st->unready;

	for (size_t i = 0; i < ps->nwarnings; i++) {
		fputs("yardstick: ", fp);
		term_puts(fp, ps->warnings[i]);
		fputc('\n', fp);
	}
	if (quiet || !st->samples)
		return;
	fprintf(fp, "python: %" PRIu64 " samples of CPython, %" PRIu64
		" with Python frames, %" PRIu64 " kept native (", st->samples,
		st->merged, st->unreadable + st->mismatched + st->stale +
		st->changed + st->unready);
	fput_causes(ps, fp);
	fputc(')', fp);
	/* so that the three add up to the samples */
	fprintf(fp, ", %" PRIu64 " running no Python code (start-up, "
		"shut-down, threads Python does not know)", st->nopython);
	if (read)
		fprintf(fp, "; frames read %.0f µs after the sample on "
			"average, %.0f µs at most",
			st->lag_ns_sum / 1e3 / (double)read,
			st->lag_ns_max / 1e3);
	fputc('\n', fp);
	if (st->merged_cut)
		fprintf(fp, "python: %" PRIu64 " of the samples with Python "
			"frames had a native stack cut short (in code without "
			"unwind tables, such as a JIT's, or at the end of the "
			"stack copy): their outer Python frames come from the "
			"interpreter, their outer native frames from the "
			"thread's whole stack under the same outermost Python "
			"frame, before or after (%" PRIu64 " without one)\n",
			st->merged_cut, st->rootless);
	if (st->mismatched > st->samples / 2)
		fprintf(fp, "python: most native stacks lack the "
			"interpreter's evaluation frames%s\n",
			ps->ready ? "" : ": CPython has no frame pointers, "
			"unwind it with -g dwarf");
	for (size_t i = 0; i < ps->nthreads; i++) {
		const struct pystacks_thread *th = &ps->threads[i];

		fputs("  thread ", fp);
		term_puts(fp, th->name);
		fprintf(fp, " (pid %u tid %u): %" PRIu64 " samples", th->pid,
			th->tid, th->samples);
		if (th->gil_known)
			fprintf(fp, ", holding the GIL in %.0f%%",
				100.0 * th->gil / th->gil_known);
		fputc('\n', fp);
	}
}
