/*
 * The trace as Chrome's Trace Event Format (the JSON object form), which
 * chrome://tracing and ui.perfetto.dev open:
 *
 *   M  process_name / thread_name metadata, per process and thread
 *   X  a zone (complete event: ts, dur), on its thread
 *   b/e  an async span (cat "async", id) and a thread's on-CPU slice (cat
 *      "cpu", id its tid, on a track of its own so that it cannot break
 *      the nesting of the zones); the pair written together
 *   i  an instant (scope "t"), a CPU sample (cat "sample", args.stack), a
 *      page fault (cat "fault", args.ip)
 *   C  a counter
 *
 * ts and dur are microseconds of CLOCK_MONOTONIC with nanosecond
 * decimals. Every event is formatted whole before it is written, so that
 * the size cap (trace_write_opts.max_bytes) stops the file at an event
 * boundary and the document stays valid.
 */
#include "profile/trace.h"

#include "util/fileio.h"
#include "util/json_emit.h"
#include "util/strutil.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s as a JSON string, quoted: valid UTF-8 (U+FFFD for bad bytes), the
 * control characters escaped */
static void put_str(struct strbuf *b, const char *s)
{
	char *clean = json_utf8_dup(s ? s : "");
	char esc[8];

	strbuf_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)clean; *p; p++) {
		if (*p == '"' || *p == '\\') {
			strbuf_putc(b, '\\');
			strbuf_putc(b, (char)*p);
		} else if (*p < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			strbuf_puts(b, esc);
		} else {
			strbuf_putc(b, (char)*p);
		}
	}
	strbuf_putc(b, '"');
	free(clean);
}

static void putf(struct strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* before, v as a JSON number (null when it is NaN or infinite), after */
static void put_num(struct strbuf *b, const char *before, double v,
		    const char *after)
{
	char num[40];

	fmt_json_number(v, num, sizeof(num));
	strbuf_puts(b, before);
	strbuf_puts(b, num);
	strbuf_puts(b, after);
}

static void putf(struct strbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	strbuf_put(b, tmp, n < (int)sizeof(tmp) ? (size_t)n
						 : sizeof(tmp) - 1);
}

/* ns as µs with three decimals */
static void put_us(struct strbuf *b, const char *key, uint64_t ns)
{
	putf(b, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000,
	     (unsigned)(ns % 1000));
}

static void head(struct strbuf *b, const char *ph, const char *cat,
		 const char *name, uint32_t pid, uint32_t tid, uint64_t ts)
{
	putf(b, "{\"ph\":\"%s\",\"cat\":\"%s\",\"name\":", ph, cat);
	put_str(b, name);
	putf(b, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32, pid, tid);
	put_us(b, "ts", ts);
}

static const char *left_why(uint8_t flags)
{
	return flags & TRACE_LEFT_PREEMPTED ? "preempted"
	       : flags & TRACE_LEFT_BLOCKED ? "blocked" : "exited";
}

/* One event, whole, into b (emptied first). */
static void format_event(const struct trace_event *e, struct strbuf *b)
{
	char name[32];

	b->len = 0;
	switch (e->kind) {
	case TRACE_ONCPU:
		/* a track per thread, named so in the viewers */
		snprintf(name, sizeof(name), "on-CPU %" PRIu32, e->tid);
		head(b, "b", "cpu", name, e->pid, e->tid, e->start);
		putf(b, ",\"id\":\"cpu%" PRIu32 "\"", e->tid);
		/* the wait for a CPU after its wake-up, before this slice */
		if (e->flags & TRACE_AFTER_WAKEUP) {
			uint64_t ns = (uint64_t)e->value;

			putf(b, ",\"args\":{\"sched_delay_us\":%" PRIu64
			     ".%03u}", ns / 1000, (unsigned)(ns % 1000));
		}
		strbuf_puts(b, "},\n");
		head(b, "e", "cpu", name, e->pid, e->tid, e->end);
		putf(b, ",\"id\":\"cpu%" PRIu32 "\",\"args\":{\"left\":"
		     "\"%s\"}}", e->tid, left_why(e->flags));
		break;
	case TRACE_ZONE:
		head(b, "X", "zone", e->name, e->pid, e->tid, e->start);
		put_us(b, "dur", e->end - e->start);
		strbuf_puts(b, ",\"args\":{");
		putf(b, "\"depth\":%u", e->depth);
		if (e->flags & TRACE_ZONE_UNFINISHED)
			strbuf_puts(b, ",\"unfinished\":true");
		if (e->text) {
			strbuf_puts(b, ",\"text\":");
			put_str(b, e->text);
		}
		strbuf_puts(b, "}}");
		break;
	case TRACE_ASYNC:
		head(b, "b", "async", e->name, e->pid, e->tid, e->start);
		putf(b, ",\"id\":\"0x%" PRIx64 "\"},\n", e->id);
		head(b, "e", "async", e->name, e->pid, e->end_tid, e->end);
		putf(b, ",\"id\":\"0x%" PRIx64 "\"}", e->id);
		break;
	case TRACE_INSTANT:
		head(b, "i", "mark", e->name, e->pid, e->tid, e->start);
		strbuf_puts(b, ",\"s\":\"t\"");
		if (e->text) {
			strbuf_puts(b, ",\"args\":{\"text\":");
			put_str(b, e->text);
			strbuf_putc(b, '}');
		} else if (e->value) {
			put_num(b, ",\"args\":{\"value\":", e->value, "}");
		}
		strbuf_putc(b, '}');
		break;
	case TRACE_COUNTER:
		head(b, "C", "counter", e->name, e->pid, e->tid, e->start);
		strbuf_puts(b, ",\"args\":{");
		put_str(b, e->name);
		put_num(b, ":", e->value, "}}");
		break;
	case TRACE_FAULT:
		head(b, "i", "fault", e->name, e->pid, e->tid, e->start);
		putf(b, ",\"s\":\"t\",\"args\":{\"ip\":\"0x%" PRIx64 "\"}}",
		     e->id);
		break;
	case TRACE_SAMPLE:
		head(b, "i", "sample", e->name, e->pid, e->tid, e->start);
		strbuf_puts(b, ",\"s\":\"t\",\"args\":{\"stack\":");
		put_str(b, e->text);
		strbuf_puts(b, "}}");
		break;
	}
}

static void meta(struct strbuf *b, const char *what, uint32_t pid,
		 uint32_t tid, const char *name)
{
	putf(b, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%"
	     PRIu32 ",\"args\":{\"name\":", what, pid, tid);
	put_str(b, name);
	strbuf_puts(b, "}},\n");
}

/* A partial trace's marker: a global instant at its end, which the
 * viewers draw across every track (otherData says it too); written after
 * the events (its time is the last), in the room kept for the tail, so
 * that --max-size never cuts it. */
static void partial_marker(const struct trace *t, struct strbuf *b)
{
	char name[96];

	snprintf(name, sizeof(name), "partial: %s", t->partial);
	head(b, "i", "yardstick", name, t->pid, t->pid, t->last);
	strbuf_puts(b, ",\"s\":\"g\",\"args\":{\"yardstick.partial\":");
	put_str(b, t->partial);
	strbuf_puts(b, "}},\n");
}

/* The metadata: each process's name (its exec's), each thread's. */
static void format_meta(const struct trace *t, const char *fallback,
			struct strbuf *b)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct trace_thread *th = &t->threads[i];

		if (th->pid == th->tid)
			meta(b, "process_name", th->pid, th->pid,
			     th->process_name ? th->process_name :
			     th->name ? th->name : fallback);
	}
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct trace_thread *th = &t->threads[i];
		char nm[64];

		if (!th->name)
			snprintf(nm, sizeof(nm), "thread %" PRIu32, th->tid);
		meta(b, "thread_name", th->pid, th->tid,
		     th->name ? th->name : nm);
	}
}

int trace_write_chrome(const struct trace *t, const struct trace_write_opts *o,
		       const char *path, struct trace_write_stats *st,
		       struct error *e)
{
	struct atomic_file af;
	struct strbuf b = { 0 }, mark = { 0 };
	char tail[400];
	uint64_t bytes;
	size_t i;
	int tlen;

	memset(st, 0, sizeof(*st));
	if (atomic_open(&af, path, e))
		return -1;
	strbuf_puts(&b, "{\"traceEvents\":[\n");
	format_meta(t, o->process_name, &b);
	fwrite(b.s, 1, b.len, af.fp);
	bytes = b.len;
	if (t->partial)
		partial_marker(t, &mark);
	for (i = 0; i < t->n; i++) {
		format_event(&t->ev[i], &b);
		strbuf_puts(&b, ",\n");
		if (o->max_bytes &&
		    bytes + b.len + mark.len + sizeof(tail) > o->max_bytes)
			break;
		fwrite(b.s, 1, b.len, af.fp);
		bytes += b.len;
		st->events++;
	}
	st->truncated = t->n - i;
	if (mark.len) {
		fwrite(mark.s, 1, mark.len, af.fp);
		bytes += mark.len;
	}
	free(mark.s);
	/* the last entry: the clock domain, so that no comma dangles */
	tlen = snprintf(tail, sizeof(tail), "{\"ph\":\"M\",\"name\":"
			"\"clock\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
			",\"args\":{\"domain\":\"CLOCK_MONOTONIC\"}}\n],"
			"\"displayTimeUnit\":\"ms\",\"otherData\":{\"clock\":"
			"\"CLOCK_MONOTONIC\",\"dropped_events\":%" PRIu64
			",\"truncated_events\":%" PRIu64 "%s%.64s%s}}\n",
			t->pid, t->pid, t->dropped, st->truncated,
			t->partial ? ",\"partial\":true,\"partial_reason\":\""
			: "", t->partial ? t->partial : "",
			t->partial ? "\"" : "");
	fwrite(tail, 1, (size_t)tlen, af.fp);
	st->bytes = bytes + (uint64_t)tlen;
	free(b.s);
	if (ferror(af.fp))
		return atomic_fail(&af, e);
	return atomic_commit(&af, e);
}
