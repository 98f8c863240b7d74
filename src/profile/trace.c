/*
 * The timeline model (trace.h): threads and their CPU time from perf's
 * task and switch records, the events, interned strings.
 *
 * A thread's state machine, from the switch records in time order: it is
 * on a CPU from a switch-in to the next switch-out; that switch-out says
 * whether it was still runnable (preempted: it waits for a CPU until its
 * next switch-in) or not (blocked: a sleep, a lock, I/O). Before its
 * first switch record the state is not known: a switch-out first means
 * it ran since it started (the program's first thread runs its exec), a
 * switch-in first that it waited for a CPU since its FORK. A thread of
 * a process attached to (`trace --pid`) starts at the attach: asleep
 * then, it is blocked until its next record, else unknown as a new one.
 * Its lifetime (FORK, exec or attach to EXIT) is then exactly on +
 * preempted + blocked.
 *
 * With the wake-ups (the sched_wakeup tracepoint, trace.wakeups), a
 * blocked thread's wait ends at its wake-up: from there until its next
 * switch-in it is runnable and waits for a CPU, its scheduling delay
 * (perf sched timehist's "sch delay"), counted apart from blocked. Then
 * the lifetime is on + preempted + blocked + sched delay. A wake-up of a
 * thread not blocked (on a CPU, preempted, already woken) changes
 * nothing: a preempted thread was never asleep, its wait is preempted.
 * Without them the wake-up is not known and blocked holds both.
 */
#include "profile/trace.h"

#include "util/strutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ST_UNKNOWN, ST_ON, ST_PREEMPTED, ST_BLOCKED, ST_WOKEN };

void trace_init(struct trace *t, size_t max_events)
{
	memset(t, 0, sizeof(*t));
	t->max_events = max_events;
	hashidx_init(&t->thread_ix);
	hashidx_init(&t->tids);
	hashmap_init(&t->strings);
}

void trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->strings.cap; i++)
		if (t->strings.slots && t->strings.slots[i].key)
			free(t->strings.slots[i].value);
	hashmap_free(&t->strings);
	hashidx_free(&t->thread_ix);
	hashidx_free(&t->tids);
	free(t->sched);
	free(t->ev);
	free(t->threads);
	memset(t, 0, sizeof(*t));
}

const char *trace_intern(struct trace *t, const char *s)
{
	size_t len;
	char *v;

	if (!s)
		return NULL;
	len = strlen(s);
	v = hashmap_get(&t->strings, s, len);
	if (v)
		return v;
	v = xstrdup(s);
	hashmap_put(&t->strings, s, len, v, NULL);
	return v;
}

static void seen(struct trace *t, uint64_t time)
{
	if (!time)
		return;
	if (!t->first || time < t->first)
		t->first = time;
	if (time > t->last)
		t->last = time;
}

struct trace_event *trace_add(struct trace *t, enum trace_kind kind)
{
	struct trace_event *e;

	if (t->n >= t->max_events) {
		t->dropped++;
		return NULL;
	}
	t->ev = xgrow(t->ev, &t->cap, t->n + 1, sizeof(*t->ev));
	e = &t->ev[t->n++];
	memset(e, 0, sizeof(*e));
	e->kind = (uint8_t)kind;
	return e;
}

/* The live thread tid (the last one of that tid), or NULL. */
static struct trace_thread *find_thread(struct trace *t, uint32_t tid)
{
	struct trace_thread *found = NULL;
	size_t pos;
	uint64_t v;

	for (v = hashidx_first(&t->thread_ix, hash_u64(tid), &pos); v;
	     v = hashidx_next(&t->thread_ix, hash_u64(tid), &pos))
		if (t->threads[v - 1].tid == tid &&
		    (!found || v - 1 > (size_t)(found - t->threads)))
			found = &t->threads[v - 1];
	return found;
}

size_t trace_thread_at(const struct trace *t, uint32_t tid, uint64_t time)
{
	size_t pos, best = SIZE_MAX;
	uint64_t v;

	for (v = hashidx_first(&t->thread_ix, hash_u64(tid), &pos); v;
	     v = hashidx_next(&t->thread_ix, hash_u64(tid), &pos))
		if (t->threads[v - 1].tid == tid &&
		    (best == SIZE_MAX || t->threads[v - 1].start <= time))
			if (best == SIZE_MAX || v - 1 > best)
				best = v - 1;
	return best;
}

struct trace_thread *trace_thread_new(struct trace *t, uint32_t pid,
				      uint32_t tid, uint64_t time)
{
	struct trace_thread *th;

	t->threads = xgrow(t->threads, &t->capthreads, t->nthreads + 1,
			   sizeof(*t->threads));
	th = &t->threads[t->nthreads++];
	memset(th, 0, sizeof(*th));
	th->pid = pid;
	th->tid = tid;
	th->start = th->since = time;
	th->last_delay = UINT64_MAX;
	hashidx_add(&t->thread_ix, hash_u64(tid), t->nthreads);
	if (!t->pid)
		t->pid = pid;
	return th;
}

static struct trace_thread *trace_thread(struct trace *t, uint32_t pid,
					 uint32_t tid, uint64_t time)
{
	struct trace_thread *th = find_thread(t, tid);

	seen(t, time);
	if (th && !th->exited)
		return th;
	return trace_thread_new(t, pid, tid, time);
}

/* Account the time since th->since to its state, up to time. */
static void account(struct trace_thread *th, uint64_t time)
{
	uint64_t d = time > th->since ? time - th->since : 0;

	switch (th->state) {
	case ST_ON:
		th->on_ns += d;
		break;
	case ST_PREEMPTED:
		th->preempted_ns += d;
		break;
	case ST_BLOCKED:
		th->blocked_ns += d;
		break;
	case ST_WOKEN:
		th->sched_delay_ns += d;
		th->last_delay = d;
		th->wakeups++;
		if (d > th->sched_delay_max_ns)
			th->sched_delay_max_ns = d;
		break;
	}
	if (time > th->since)
		th->since = time;
}

static void oncpu_slice(struct trace *t, const struct trace_thread *th,
			uint64_t end, uint8_t flags)
{
	struct trace_event *e = trace_add(t, TRACE_ONCPU);

	if (!e)
		return;
	e->pid = th->pid;
	e->tid = e->end_tid = th->tid;
	e->start = th->since;
	e->end = end > th->since ? end : th->since;
	e->flags = flags;
	if (th->last_delay != UINT64_MAX) {
		e->flags |= TRACE_AFTER_WAKEUP;
		e->value = (double)th->last_delay;
	}
}

static void apply_switch(struct trace *t, uint32_t pid, uint32_t tid,
			 uint64_t time, bool out, bool preempt)
{
	struct trace_thread *th = trace_thread(t, pid, tid, time);

	t->switches_seen = true;
	if (out) {
		uint8_t why = preempt ? TRACE_LEFT_PREEMPTED
				      : TRACE_LEFT_BLOCKED;

		if (th->state == ST_UNKNOWN || th->state == ST_ON) {
			th->state = ST_ON;
			oncpu_slice(t, th, time, why);
		}
		account(th, time);
		th->state = preempt ? ST_PREEMPTED : ST_BLOCKED;
		return;
	}
	if (th->state == ST_UNKNOWN)
		th->state = ST_PREEMPTED;	/* runnable since its fork */
	if (th->state != ST_ON) {
		th->last_delay = UINT64_MAX;	/* set by a woken wait */
		account(th, time);
		th->state = ST_ON;
	}
}

/* A wake-up ends a blocked wait (see the top); any other changes
 * nothing (a wake-up of a running task, a new task's first wait, which
 * was runnable since its FORK: preempted, as without the wake-ups). */
static void apply_wake(struct trace *t, uint32_t tid, uint64_t time)
{
	struct trace_thread *th = find_thread(t, tid);

	if (!th || th->exited || th->state != ST_BLOCKED)
		return;
	account(th, time);
	th->state = ST_WOKEN;
}

static void end_thread(struct trace *t, struct trace_thread *th,
		       uint64_t time)
{
	if (th->exited)
		return;
	if (th->state == ST_ON || (th->state == ST_UNKNOWN &&
				   t->switches_seen && th == t->threads)) {
		/* it ran to its end (its last switch-out may never come);
		 * the program's first thread runs from its exec on, another
		 * thread without a switch record never ran where perf saw */
		th->state = ST_ON;
		oncpu_slice(t, th, time, TRACE_LEFT_EXITED);
	}
	account(th, time);
	th->end = time > th->start ? time : th->start;
	th->exited = true;
}

static void apply_task(struct trace *t, uint32_t pid, uint32_t tid,
		       uint64_t time, bool exit)
{
	struct trace_thread *th;

	if (!exit) {
		struct trace_thread *main;

		th = find_thread(t, tid);
		if (th && !th->exited)
			return;		/* already seen */
		th = trace_thread(t, pid, tid, time);
		/* a new thread has its process's name until it names
		 * itself (a new process's comes with its FORK: trace_fork) */
		main = pid != tid ? find_thread(t, pid) : NULL;
		if (main && !th->name)
			th->name = main->name;
		return;
	}
	th = trace_thread(t, pid, tid, time);
	end_thread(t, th, time);
}

static void apply_name(struct trace *t, uint32_t pid, uint32_t tid,
		       const char *name, uint64_t time, bool exec)
{
	struct trace_thread *th = trace_thread(t, pid, tid, time);

	th->name = name;
	if (pid == tid && (exec || !th->process_name))
		th->process_name = name;
}

static void apply_fork(struct trace *t, uint32_t pid, uint32_t ppid,
		       uint64_t time)
{
	struct trace_thread *child = trace_thread(t, pid, pid, time);
	struct trace_thread *parent = find_thread(t, ppid);

	if (parent && !child->name)
		child->name = parent->name;
	/* the forking thread's name, as the kernel gives the child */
	if (!child->process_name)
		child->process_name = child->name;
}

/* A thread there at the attach (trace_attached): named, and asleep
 * then, blocked from then on until its next record says otherwise. */
static void apply_attach(struct trace *t, uint32_t pid, uint32_t tid,
			 const char *name, bool asleep, uint64_t time)
{
	struct trace_thread *th = trace_thread(t, pid, tid, time);

	if (name && *name) {
		th->name = name;
		if (pid == tid)
			th->process_name = name;
	}
	if (asleep && th->state == ST_UNKNOWN) {
		th->state = ST_BLOCKED;
		th->since = time;
	}
}

/* ---- the kernel's records, kept until trace_finish replays them in
 * time order (they come merged from the per-CPU rings a pass at a time,
 * so a thread's switch on one CPU may come after its EXIT on another) */

enum { R_ATTACH, R_TASK, R_FORKNAME, R_NAME, R_EXECNAME, R_OUT, R_WAKE, R_IN, R_EXIT };

/* Whether tid was seen in a record of ours; with add, now it is. */
static bool tid_seen(struct trace *t, uint32_t tid, bool add)
{
	size_t pos;
	uint64_t v, h = hash_u64(tid);

	for (v = hashidx_first(&t->tids, h, &pos); v;
	     v = hashidx_next(&t->tids, h, &pos))
		if (v == (uint64_t)tid + 1)
			return true;
	if (add)
		hashidx_add(&t->tids, h, (uint64_t)tid + 1);
	return false;
}

static void keep(struct trace *t, uint8_t kind, uint32_t pid, uint32_t tid,
		 uint64_t time, bool preempt, const char *name, uint32_t ppid)
{
	struct trace_sched *r;

	if (kind != R_WAKE)
		tid_seen(t, tid, true);

	if (!t->pid)
		t->pid = pid;
	seen(t, time);
	if (t->nsched + t->n >= t->max_events) {
		t->dropped++;
		return;
	}
	t->sched = xgrow(t->sched, &t->capsched, t->nsched + 1,
			 sizeof(*t->sched));
	r = &t->sched[t->nsched++];
	*r = (struct trace_sched){ .time = time, .pid = pid, .tid = tid,
				   .kind = kind, .preempt = preempt,
				   .name = name, .ppid = ppid,
				   .seq = t->nsched };
}

void trace_task(struct trace *t, uint32_t pid, uint32_t tid, uint64_t time,
		bool exit)
{
	keep(t, exit ? R_EXIT : R_TASK, pid, tid, time, false, NULL, 0);
}

void trace_task_name(struct trace *t, uint32_t pid, uint32_t tid,
		     const char *name, uint64_t time)
{
	keep(t, R_NAME, pid, tid, time, false, trace_intern(t, name), 0);
}

void trace_exec_name(struct trace *t, uint32_t pid, const char *name,
		     uint64_t time)
{
	keep(t, R_EXECNAME, pid, pid, time, false, trace_intern(t, name), 0);
}

void trace_attached(struct trace *t, uint32_t pid, uint32_t tid,
		    const char *name, bool asleep, uint64_t time)
{
	/* preempt holds asleep */
	keep(t, R_ATTACH, pid, tid, time, asleep, trace_intern(t, name), 0);
}

void trace_switch(struct trace *t, uint32_t pid, uint32_t tid,
		  uint64_t time, bool out, bool preempt)
{
	keep(t, out ? R_OUT : R_IN, pid, tid, time, preempt, NULL, 0);
}

/* The wake-ups come system-wide (sampler.c, design note 8): only those of
 * a task of ours, which some record named before (its switch-out comes
 * before its wake-up), are kept. */
void trace_wakeup(struct trace *t, uint32_t tid, uint64_t time)
{
	if (tid_seen(t, tid, false))
		keep(t, R_WAKE, 0, tid, time, false, NULL, 0);
}

/* by time; at one time a thread starts, is named, leaves a CPU, is
 * woken (and comes onto another), then ends; else in the order they
 * came */
static int by_time(const void *a, const void *b)
{
	const struct trace_sched *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void replay(struct trace *t)
{
	qsort(t->sched, t->nsched, sizeof(*t->sched), by_time);
	/* whether perf gave switch records at all, known before the first
	 * thread ends: a main thread that ends before any thread's first
	 * switch (pthread_exit right after pthread_create) ran, too */
	for (size_t i = 0; i < t->nsched && !t->switches_seen; i++)
		t->switches_seen = t->sched[i].kind == R_OUT ||
				   t->sched[i].kind == R_IN;
	for (size_t i = 0; i < t->nsched; i++) {
		const struct trace_sched *r = &t->sched[i];

		switch (r->kind) {
		case R_ATTACH:
			apply_attach(t, r->pid, r->tid, r->name, r->preempt,
				     r->time);
			break;
		case R_TASK:
			apply_task(t, r->pid, r->tid, r->time, false);
			break;
		case R_FORKNAME:
			apply_fork(t, r->pid, r->ppid, r->time);
			break;
		case R_NAME:
		case R_EXECNAME:
			apply_name(t, r->pid, r->tid, r->name, r->time,
				   r->kind == R_EXECNAME);
			break;
		case R_OUT:
		case R_IN:
			apply_switch(t, r->pid, r->tid, r->time,
				     r->kind == R_OUT, r->preempt);
			break;
		case R_WAKE:
			apply_wake(t, r->tid, r->time);
			break;
		case R_EXIT:
			apply_task(t, r->pid, r->tid, r->time, true);
			break;
		}
	}
	free(t->sched);
	t->sched = NULL;
	t->nsched = t->capsched = 0;
}

void trace_fork(struct trace *t, uint32_t pid, uint32_t ppid,
		uint64_t time)
{
	struct trace_event *e;

	keep(t, R_FORKNAME, pid, pid, time, false, NULL, ppid);
	e = trace_add(t, TRACE_INSTANT);
	if (!e)
		return;
	e->pid = e->tid = e->end_tid = pid;
	e->start = e->end = time;
	e->name = trace_intern(t, "fork");
	e->value = ppid;
}

void trace_exec(struct trace *t, uint32_t pid, const char *name,
		uint64_t time)
{
	struct trace_event *e = trace_add(t, TRACE_INSTANT);

	if (!e)
		return;
	e->pid = e->tid = e->end_tid = pid;
	e->start = e->end = time;
	e->name = trace_intern(t, "exec");
	e->text = trace_intern(t, name);
}

static int by_start(const void *a, const void *b)
{
	const struct trace_event *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* the enclosing zone first */
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

/* Threads only the program's own events name (zones of a program perf
 * could not follow) get theirs; page faults are counted per thread. */
static void event_threads(struct trace *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_event *e = &t->ev[i];
		size_t k = trace_thread_at(t, e->tid, e->start);

		if (e->kind == TRACE_ONCPU)
			continue;
		if (k == SIZE_MAX) {
			trace_thread_new(t, e->pid, e->tid, e->start);
			k = t->nthreads - 1;
		}
		if (e->kind == TRACE_FAULT)
			t->threads[k].faults++;
	}
}

void trace_finish(struct trace *t, uint64_t time)
{
	if (time < t->last)
		time = t->last;
	/* A zone or span the program never ended ran at least until then:
	 * ended where it began, a viewer would draw 0 s where the program
	 * spent its last seconds (the report's table counts it so too). */
	for (size_t i = 0; i < t->n; i++) {
		struct trace_event *e = &t->ev[i];

		if ((e->kind == TRACE_ZONE || e->kind == TRACE_ASYNC) &&
		    (e->flags & TRACE_ZONE_UNFINISHED) && e->end < time)
			e->end = time;
	}
	replay(t);
	event_threads(t);
	for (size_t i = 0; i < t->nthreads; i++)
		end_thread(t, &t->threads[i], time);
	if (t->n)
		qsort(t->ev, t->n, sizeof(*t->ev), by_start);
}
