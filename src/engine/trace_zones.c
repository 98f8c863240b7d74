/*
 * The zones, marks, counters, async spans and thread names a program
 * recorded through libyardstick (util/zonebuf.h), read once the program
 * has ended (its buffer is linear: nothing is overwritten while it runs),
 * into the timeline.
 */
#include <string.h>

#include "engine/trace_run.h"
#include "util/zonebuf.h"

static void add_zone(struct trace *t, const struct zb_snapshot *s,
		     const struct zb_zone *z)
{
	const struct zb_threadinfo *th = &s->threads[z->thread];
	struct trace_event *e = trace_add(t, TRACE_ZONE);

	if (!e)
		return;
	e->pid = (uint32_t)th->pid;
	e->tid = e->end_tid = (uint32_t)th->tid;
	e->start = (uint64_t)z->begin_ns;
	e->end = z->end_ns > z->begin_ns ? (uint64_t)z->end_ns : e->start;
	e->depth = (uint16_t)(z->depth < 0 ? 0 : z->depth > 65535 ? 65535
			      : z->depth);
	e->name = trace_intern(t, z->name);
	e->text = z->text && *z->text ? trace_intern(t, z->text) : NULL;
	e->value = z->has_value ? (double)z->value : 0;
	e->flags = z->unfinished ? TRACE_ZONE_UNFINISHED : 0;
}

static void add_async(struct trace *t, const struct zb_snapshot *s,
		      const struct zb_async *a)
{
	const struct zb_threadinfo *b = &s->threads[a->begin_thread];
	const struct zb_threadinfo *en = a->unfinished ? b
					 : &s->threads[a->end_thread];
	struct trace_event *e = trace_add(t, TRACE_ASYNC);

	if (!e)
		return;
	e->pid = (uint32_t)b->pid;
	e->tid = (uint32_t)b->tid;
	e->end_tid = (uint32_t)en->tid;
	e->start = (uint64_t)a->begin_ns;
	e->end = a->end_ns > a->begin_ns ? (uint64_t)a->end_ns : e->start;
	e->id = a->id;
	e->name = trace_intern(t, a->name);
	e->flags = a->unfinished ? TRACE_ZONE_UNFINISHED : 0;
}

static void add_point(struct trace *t, const struct zb_snapshot *s,
		      const struct zb_event *ev)
{
	const struct zb_threadinfo *th = &s->threads[ev->thread];
	struct trace_event *e;

	if (ev->type == ZB_THREAD_NAME) {
		trace_task_name(t, (uint32_t)th->pid, (uint32_t)th->tid,
				ev->text, (uint64_t)ev->ns);
		return;
	}
	if (ev->type != ZB_MARK && ev->type != ZB_COUNTER)
		return;
	e = trace_add(t, ev->type == ZB_MARK ? TRACE_INSTANT : TRACE_COUNTER);
	if (!e)
		return;
	e->pid = (uint32_t)th->pid;
	e->tid = e->end_tid = (uint32_t)th->tid;
	e->start = e->end = (uint64_t)ev->ns;
	e->name = trace_intern(t, ev->name);
	e->text = ev->text && *ev->text ? trace_intern(t, ev->text) : NULL;
	e->value = ev->counter;
}

void trace_add_zones(struct trace_run *r, const struct zb_map *zb,
		     int64_t from_ns)
{
	struct zb_snapshot s;
	struct error e;

	memset(&s, 0, sizeof(s));
	if (zb_read(zb, &s, &e)) {
		r->zones_error = true;
		return;
	}
	r->zones_attached = s.nthreads > 0 || s.threads_wanted > 0;
	r->zones_lost = s.lost;
	for (size_t i = 0; i < s.nthreads; i++)
		if (s.threads[i].corrupt)
			r->zones_corrupt++;
	for (size_t i = 0; i < s.nevents; i++)
		if (s.events[i].ns >= from_ns ||
		    s.events[i].type == ZB_THREAD_NAME)
			add_point(&r->tr, &s, &s.events[i]);
	for (size_t i = 0; i < s.nzones; i++)
		if (s.zones[i].begin_ns >= from_ns)
			add_zone(&r->tr, &s, &s.zones[i]);
	for (size_t i = 0; i < s.nasyncs; i++)
		if (s.asyncs[i].begin_ns >= from_ns)
			add_async(&r->tr, &s, &s.asyncs[i]);
	zb_snapshot_free(&s);
}
