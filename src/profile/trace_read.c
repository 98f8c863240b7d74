/*
 * A Chrome Trace Event JSON file read back into the timeline model, for
 * the report's timeline view: what trace_write_chrome writes (X zones,
 * b/e async spans and on-CPU slices, i marks/samples/faults, C counters,
 * M thread and process names), and the same phases from other tools. The
 * file is untrusted input: its size is bounded (file_read_all), every
 * field is checked for type and range, and at most max_events events are
 * kept (the rest counted in dropped). Other phases (B/E, flow events...)
 * are not kept but counted (trace_read_stats).
 */
#include "profile/trace.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/strutil.h"


struct reader {
	struct trace *t;
	const char *path;
	struct hashmap open;	/* "cat\x1fid\x1fpid" -> size_t* (index + 1
				 * of the open b event, 0: none) */
	struct error *e;
	size_t index;		/* of the event being read */
};

static int bad(struct reader *r, const char *what)
{
	error_set(r->e, "cannot read '%s': event %zu: %s", r->path, r->index,
		  what);
	return -1;
}

static int get_u32(struct reader *r, json_t *o, const char *key,
		   uint32_t *out)
{
	json_t *v = json_object_get(o, key);

	*out = 0;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > UINT32_MAX) {
		char msg[64];

		snprintf(msg, sizeof(msg), "'%s' is not an integer 0..2^32-1",
			 key);
		return bad(r, msg);
	}
	*out = (uint32_t)json_integer_value(v);
	return 0;
}

/* a time in µs (ts, dur) as ns */
static int get_ns(struct reader *r, json_t *o, const char *key,
		  uint64_t *out)
{
	json_t *v = json_object_get(o, key);
	double us;

	*out = 0;
	if (!v)
		return 0;
	us = json_number_value(v);
	if (!json_is_number(v) || !(us >= 0 && us <= TRACE_US_MAX)) {
		char msg[64];

		snprintf(msg, sizeof(msg), "'%s' is not a time in µs from 0 to "
			 "9e15", key);
		return bad(r, msg);
	}
	*out = (uint64_t)llround(us * 1000);
	return 0;
}

static const char *get_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static struct trace_thread *thread_of(struct reader *r, uint32_t pid,
				      uint32_t tid)
{
	struct trace *t = r->t;
	uint64_t h = hash_u64(tid), v;
	size_t pos;

	/* the thread_ix of trace.c: by tid; a tid of two processes (a
	 * hand-made file) is two threads */
	for (v = hashidx_first(&t->thread_ix, h, &pos); v;
	     v = hashidx_next(&t->thread_ix, h, &pos))
		if (t->threads[v - 1].pid == pid && t->threads[v - 1].tid == tid)
			return &t->threads[v - 1];
	return trace_thread_new(t, pid, tid, UINT64_MAX);
}

static void seen(struct trace_thread *th, uint64_t start, uint64_t end)
{
	if (start < th->start)
		th->start = start;
	if (end > th->end)
		th->end = end;
}

static int meta(struct reader *r, json_t *o, uint32_t pid, uint32_t tid,
		const char *name)
{
	const char *v = get_str(json_object_get(o, "args"), "name");
	struct trace_thread *th;

	if (strcmp(name, "thread_name") && strcmp(name, "process_name"))
		return 0;
	if (!v)
		return bad(r, "a name without args.name");
	/* a process's name is its main thread's, which names that thread
	 * too unless it has its own */
	if (!strcmp(name, "process_name"))
		tid = pid;
	th = thread_of(r, pid, tid);
	if (!strcmp(name, "process_name"))
		th->process_name = trace_intern(r->t, v);
	if (!th->name || !strcmp(name, "thread_name"))
		th->name = trace_intern(r->t, v);
	return 0;
}

/* The key of a b/e pair: category, id (a string or a number), pid */
static char *span_key(json_t *o, uint32_t pid, size_t *len)
{
	json_t *id = json_object_get(o, "id");
	const char *cat = get_str(o, "cat");
	char num[32] = "";
	char *k;

	if (json_is_integer(id))
		snprintf(num, sizeof(num), "%lld",
			 (long long)json_integer_value(id));
	k = xasprintf("%s\x1f%s\x1f%u", cat ? cat : "",
		      json_is_string(id) ? json_string_value(id) : num, pid);
	*len = strlen(k);
	return k;
}

static int span(struct reader *r, json_t *o, char ph, uint32_t pid,
		uint32_t tid, uint64_t ts, const char *name)
{
	const char *cat = get_str(o, "cat");
	bool cpu = cat && !strcmp(cat, "cpu");
	struct trace_event *ev;
	size_t len, *slot;
	char *key = span_key(o, pid, &len);

	slot = hashmap_get(&r->open, key, len);
	if (ph == 'b') {
		ev = trace_add(r->t, cpu ? TRACE_ONCPU : TRACE_ASYNC);
		if (!slot) {
			slot = xcalloc(1, sizeof(*slot));
			hashmap_put(&r->open, key, len, slot, NULL);
		}
		*slot = 0;
		if (ev) {
			ev->pid = pid;
			ev->tid = ev->end_tid = tid;
			ev->start = ts;
			ev->end = UINT64_MAX;	/* open */
			ev->name = trace_intern(r->t, name);
			*slot = r->t->n;
		}
	} else if (slot && *slot) {
		const char *left = get_str(json_object_get(o, "args"), "left");

		ev = &r->t->ev[*slot - 1];
		ev->end = ts < ev->start ? ev->start : ts;
		ev->end_tid = tid;
		if (left)
			ev->flags = !strcmp(left, "preempted")
				    ? TRACE_LEFT_PREEMPTED
				    : !strcmp(left, "blocked")
				    ? TRACE_LEFT_BLOCKED : TRACE_LEFT_EXITED;
		*slot = 0;
	}
	free(key);
	return 0;
}

static void counter(struct reader *r, json_t *o, uint32_t pid,
		    uint32_t tid, uint64_t ts, const char *name)
{
	json_t *args = json_object_get(o, "args"), *v;
	struct trace_event *ev;
	const char *k;

	/* one event per numeric series (Chrome draws them stacked) */
	json_object_foreach(args, k, v) {
		char *full;

		if (!json_is_number(v) || !isfinite(json_number_value(v)))
			continue;
		ev = trace_add(r->t, TRACE_COUNTER);
		if (!ev)
			return;
		full = strcmp(k, name) ? xasprintf("%s.%s", name, k)
				       : xstrdup(name);
		ev->pid = pid;
		ev->tid = ev->end_tid = tid;
		ev->start = ev->end = ts;
		ev->name = trace_intern(r->t, full);
		ev->value = json_number_value(v);
		free(full);
	}
}

static void point(struct reader *r, json_t *o, uint32_t pid, uint32_t tid,
		  uint64_t ts, const char *name)
{
	const char *cat = get_str(o, "cat");
	json_t *args = json_object_get(o, "args");
	enum trace_kind k = !cat ? TRACE_INSTANT
			    : !strcmp(cat, "sample") ? TRACE_SAMPLE
			    : !strcmp(cat, "fault") ? TRACE_FAULT
			    : TRACE_INSTANT;
	struct trace_event *ev = trace_add(r->t, k);
	const char *text;

	if (!ev)
		return;
	ev->pid = pid;
	ev->tid = ev->end_tid = tid;
	ev->start = ev->end = ts;
	ev->name = trace_intern(r->t, name);
	text = get_str(args, k == TRACE_SAMPLE ? "stack" : "text");
	ev->text = text ? trace_intern(r->t, text) : NULL;
	if (json_is_number(json_object_get(args, "value")))
		ev->value = json_number_value(json_object_get(args, "value"));
}

static int zone(struct reader *r, json_t *o, uint32_t pid, uint32_t tid,
		uint64_t ts, const char *name)
{
	json_t *args = json_object_get(o, "args");
	json_t *depth = json_object_get(args, "depth");
	struct trace_event *ev;
	const char *text = get_str(args, "text");
	uint64_t dur;

	if (get_ns(r, o, "dur", &dur))
		return -1;
	if (ts + dur > (uint64_t)(TRACE_US_MAX * 1000))
		return bad(r, "'ts' + 'dur' is past the end of time");
	ev = trace_add(r->t, TRACE_ZONE);
	if (!ev)
		return 0;
	ev->pid = pid;
	ev->tid = ev->end_tid = tid;
	ev->start = ts;
	ev->end = ts + dur;
	ev->name = trace_intern(r->t, name);
	ev->text = text ? trace_intern(r->t, text) : NULL;
	if (json_is_integer(depth) && json_integer_value(depth) >= 0)
		ev->depth = (uint16_t)(json_integer_value(depth) > 65535
				       ? 65535 : json_integer_value(depth));
	if (json_is_true(json_object_get(args, "unfinished")))
		ev->flags = TRACE_ZONE_UNFINISHED;
	return 0;
}

static int event(struct reader *r, json_t *o, uint64_t *ignored)
{
	const char *ph = get_str(o, "ph"), *name;
	uint32_t pid, tid;
	uint64_t ts;

	if (!json_is_object(o))
		return bad(r, "not an object");
	if (!ph || strlen(ph) != 1)
		return bad(r, "no phase ('ph')");
	name = get_str(o, "name");
	if (get_u32(r, o, "pid", &pid) || get_u32(r, o, "tid", &tid) ||
	    get_ns(r, o, "ts", &ts))
		return -1;
	if (!name)
		name = "";
	switch (ph[0]) {
	case 'M':
		return meta(r, o, pid, tid, name);
	case 'X':
		return zone(r, o, pid, tid, ts, name);
	case 'b':
	case 'e':
		return span(r, o, ph[0], pid, tid, ts, name);
	case 'i':
	case 'I':
		point(r, o, pid, tid, ts, name);
		return 0;
	case 'C':
		counter(r, o, pid, tid, ts, name);
		return 0;
	default:
		(*ignored)++;
		return 0;
	}
}

static int by_start(const void *a, const void *b)
{
	const struct trace_event *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* the outer zone first */
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* Spans with no end end at the last time seen; the threads' lifetimes. */
static void finish(struct reader *r)
{
	struct trace *t = r->t;
	uint64_t first = UINT64_MAX, last = 0;

	for (size_t i = 0; i < t->n; i++) {
		struct trace_event *ev = &t->ev[i];

		if (ev->start < first)
			first = ev->start;
		if (ev->end != UINT64_MAX && ev->end > last)
			last = ev->end;
		if (ev->start > last)
			last = ev->start;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct trace_event *ev = &t->ev[i];

		if (ev->end == UINT64_MAX) {
			ev->end = last > ev->start ? last : ev->start;
			ev->flags |= TRACE_ZONE_UNFINISHED;
		}
		seen(thread_of(r, ev->pid, ev->tid), ev->start, ev->end);
	}
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].start == UINT64_MAX)
			t->threads[i].start = t->threads[i].end = first;
	t->first = t->n ? first : 0;
	t->last = t->n ? last : 0;
	if (t->n)
		qsort(t->ev, t->n, sizeof(*t->ev), by_start);
}

static int read_events(struct reader *r, json_t *root, struct trace_read_stats *st)
{
	json_t *evs = json_is_array(root) ? root
		      : json_object_get(root, "traceEvents");
	json_t *other = json_object_get(root, "otherData");
	json_t *o;

	if (!json_is_array(evs)) {
		error_set(r->e, "cannot read '%s': not a Chrome trace (no "
			  "traceEvents array)", r->path);
		return -1;
	}
	json_array_foreach(evs, r->index, o)
		if (event(r, o, &st->ignored))
			return -1;
	/* what the tracer itself lost */
	o = json_object_get(other, "dropped_events");
	if (json_is_integer(o) && json_integer_value(o) > 0)
		st->lost += (uint64_t)json_integer_value(o);
	o = json_object_get(other, "truncated_events");
	if (json_is_integer(o) && json_integer_value(o) > 0)
		st->lost += (uint64_t)json_integer_value(o);
	finish(r);
	return 0;
}

int trace_read_chrome(struct trace *t, const char *path, size_t max_events,
		      struct trace_read_stats *st, struct error *e)
{
	struct reader r = { .t = t, .path = path, .e = e };
	json_error_t jerr;
	json_t *root;
	char *data;
	size_t len;
	int ret;

	memset(st, 0, sizeof(*st));
	trace_init(t, max_events);
	if (file_read_all(path, &data, &len, e))
		return -1;
	/* jansson's tree takes about 15 times the text */
	if (len > TRACE_READ_MAX_BYTES) {
		free(data);
		error_set(e, "cannot read '%s': %zu bytes, past the %zu MiB a "
			  "trace read back may have (trace --max-size %zu "
			  "writes one that fits)", path, len,
			  (size_t)TRACE_READ_MAX_BYTES >> 20,
			  (size_t)TRACE_READ_MAX_BYTES);
		return -1;
	}
	root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	free(data);
	if (!root) {
		error_set(e, "cannot read '%s': line %d:%d: %s", path,
			  jerr.line, jerr.column, jerr.text);
		return -1;
	}
	hashmap_init(&r.open);
	ret = read_events(&r, root, st);
	json_decref(root);
	for (size_t i = 0; i < r.open.cap; i++)
		if (r.open.slots && r.open.slots[i].key)
			free(r.open.slots[i].value);
	hashmap_free(&r.open);
	if (ret)
		trace_free(t);
	return ret;
}
