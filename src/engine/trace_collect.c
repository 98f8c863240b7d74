/*
 * The collection of `yardstick trace` (trace_run.h): the sampler of
 * `record` (profile/sampler.h) runs the program with context-switch
 * records as well as CPU samples, so that every thread's on-CPU slices
 * and why it left the CPU (preempted or blocked), its name, forks and
 * exits come from the kernel; a program linked with libyardstick adds
 * its zones, marks, counters and async spans through a shared buffer
 * (util/zonebuf.h) set up before its exec. All of it lands in one
 * timeline (profile/trace.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/attach.h"
#include "engine/follow.h"
#include "engine/trace_run.h"
#include "measure/spawn.h"
#include "profile/pystacks.h"
#include "profile/torchops.h"
#include "profile/python_proc.h"
#include "profile/symbolize.h"
#include "profile/symcache.h"
#include "util/monoclock.h"
#include "util/stop.h"
#include "util/strutil.h"
#include "util/zonebuf.h"

/* CPU samples wait for their process's exec or the end to be symbolized
 * (their addresses need the mappings of that moment). */
#define STACK_MAX 64

struct pending {
	uint32_t pid, tid;
	uint32_t sym;		/* pid, or symtab_retire's id after an exec */
	uint64_t time;
	size_t at, n;		/* ips[at .. at+n), leaf first */
};

struct collector {
	struct trace_run *run;
	struct symtab *sym;
	struct pystacks *py;	/* native only with --python off */
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

/* A held sample's stack (pystacks_hold: held as pend's index), its
 * thread's outer native frames now appended: made again at the end of
 * ips */
static void restack(void *arg, uint32_t pid, const uint64_t *ips, size_t n,
		    uint64_t i)
{
	struct collector *c = arg;
	struct pending *p = &c->pend[i];

	(void)pid;
	if (n > STACK_MAX || n == p->n)
		return;
	c->ips = xgrow(c->ips, &c->capips, c->nips + n, sizeof(*c->ips));
	memcpy(c->ips + c->nips, ips, n * sizeof(*c->ips));
	p->at = c->nips;
	p->n = n;
	c->nips += n;
}

static void on_sample(void *arg, const struct raw_sample *s)
{
	struct collector *c = arg;
	const uint64_t *ips = s->ips;
	size_t n = s->nips;
	struct pending *p;
	bool cut = s->cut, deep = false;

	/* a CPython program (trace runs it with dwarf): its Python frames
	 * first, while the thread is where it was, then its C stack */
	if (c->py) {
		pystacks_capture(c->py, s->pid, s->tid, s->time);
		if (s->stack) {
			n = symtab_unwind(c->sym, s->pid, s->regs, s->nregs,
					  s->stack, s->stack_size, c->unwound,
					  512, &cut);
			ips = c->unwound;
			pystacks_check(c->py, s->regs, s->nregs, s->stack,
				       s->stack_size);
		}
		n = pystacks_merge(c->py, ips, n, cut, c->merged, 1024);
		ips = c->merged;
		/* a whole stack that gives held ones their outer frames */
		pystacks_release(c->py, false, restack, c);
	} else if (cut && n) {
		n = symtab_mark_cut(c->sym, ips, n, c->merged, 1024);
		ips = c->merged;
	}
	/* deeper: its innermost frames, and where the rest was */
	if (n > STACK_MAX) {
		n = symtab_mark_cut(c->sym, ips, n, c->merged, STACK_MAX);
		ips = c->merged;
		deep = true;
	}
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
	*p = (struct pending){ .pid = s->pid, .tid = s->tid, .sym = s->pid,
			       .time = s->time, .at = c->nips, .n = n };
	memcpy(c->ips + c->nips, ips, n * sizeof(*c->ips));
	c->nips += n;
	/* cut short before its thread's outer native frames were seen:
	 * made again when they are (pystacks_hold) */
	if (c->py && !deep)
		pystacks_hold(c->py, s->pid, ips, n, c->npend - 1);
}

/* A frame's name into names[nn], and outside a dispatcher's entry its
 * operator's (profile/torchops.h), named by the table of the file at
 * address a of the sample's process, when there is room; the new
 * count. */
static size_t add_frame(struct collector *c, const struct pending *p,
			uint64_t a, bool is_return, const char **names,
			size_t nn, const char *function)
{
	char op[256];

	names[nn++] = function;
	if (nn < STACK_MAX * 2 && torchops_is_entry(function) &&
	    torchops_frame_name(function, symtab_torchops(c->sym, p->sym, a,
							  is_return),
				op, sizeof(op), NULL))
		names[nn++] = trace_intern(&c->run->tr, op);
	return nn;
}

/* The pending samples into the timeline, each with its stack
 * "outermost;...;leaf", after the run (symbolizing takes time the
 * reader has not while the program runs). */
static void resolve(struct collector *c)
{
	struct trace *t = &c->run->tr;
	struct frame fr[8];
	const char *leaf;

	for (size_t i = 0; i < c->npend; i++) {
		struct pending *p = &c->pend[i];
		struct trace_event *e;
		const char *names[STACK_MAX * 2 + 1];
		size_t nn = 0;
		bool standin = false;

		for (size_t k = 0; k < p->n; k++) {
			uint64_t a = c->ips[p->at + k];
			size_t nf = symtab_lookup(c->sym, p->sym, a, k > 0,
						  fr, 8);
			/* a run of one stand-in (symbolize.h) shows once */
			bool st = (a & SYMTAB_IF_NAMED) && nf == 1 &&
				  !fr[0].address;

			if (st && standin && names[nn - 1] == fr[0].function)
				continue;
			standin = st;
			for (size_t f = 0; f < nf && nn < STACK_MAX * 2; f++)
				nn = add_frame(c, p, a, k > 0, names, nn,
					       fr[f].function);
			/* the inlined frames too many: the rest marked, as
			 * a stack cut deeper (the room is kept for it) */
			if (nn >= STACK_MAX * 2 && k + 1 < p->n) {
				names[nn++] = trace_intern(t, SYMTAB_TRUNCATED);
				break;
			}
		}
		c->stack.len = 0;
		for (size_t k = nn; k-- > 0;) {
			/* ';' separates the frames (the Chrome JSON's
			 * args.stack, the Perfetto writer splits there): in
			 * a name it becomes ':', as in folded stacks */
			for (const char *q = names[k]; *q; q++)
				strbuf_putc(&c->stack, *q == ';' ? ':' : *q);
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
	c->npend = 0;
	c->nips = 0;
}

/* pid execs: its pending samples keep the old image's mappings under a
 * new id (symtab_retire) */
static void retire(struct collector *c, uint32_t pid)
{
	uint32_t id = symtab_retire(c->sym, pid);

	for (size_t i = 0; i < c->npend; i++)
		if (c->pend[i].sym == pid)
			c->pend[i].sym = id;
}

static void on_mmap(void *arg, const struct raw_mmap *m)
{
	struct collector *c = arg;
	uint32_t kept = follow_mmap(c->sym, c->py, m);

	/* a library at another's addresses: the pending samples ran the
	 * other one */
	for (size_t i = 0; kept && i < c->npend; i++)
		if (c->pend[i].sym == m->pid)
			c->pend[i].sym = kept;
}

static void on_fork(void *arg, uint32_t pid, uint32_t ppid)
{
	struct collector *c = arg;

	follow_fork(c->sym, c->py, pid, ppid);
	trace_fork(&c->run->tr, pid, ppid, c->task_time);
}

/* The name of pid's main thread in t, or NULL. */
static const char *main_name(const struct trace *t, uint32_t pid)
{
	for (size_t k = 0; k < t->nthreads; k++)
		if (t->threads[k].pid == pid && t->threads[k].tid == pid)
			return t->threads[k].name;
	return NULL;
}

/* A Python thread's name as threading names it (Thread(name=...)), as
 * record's summary shows it, in place of the system's when that says
 * nothing more than the process's (every thread of a Python program is
 * "python3" there); a name the program gave its thread itself
 * (pthread_setname_np, prctl) is kept. */
static void python_thread_names(struct trace *t, const struct pystacks *py)
{
	for (size_t i = 0; i < pystacks_nthreads(py); i++) {
		const struct pystacks_thread *pt = pystacks_thread_at(py, i);

		if (!pt->py_named)
			continue;
		for (size_t k = 0; k < t->nthreads; k++) {
			struct trace_thread *th = &t->threads[k];
			const char *m;

			if (th->pid != pt->pid || th->tid != pt->tid)
				continue;
			m = main_name(t, th->pid);
			if (!th->name || (m && !strcmp(th->name, m)))
				th->name = trace_intern(t, pt->name);
		}
	}
}

static void on_comm(void *arg, uint32_t pid, const char *name, bool exec)
{
	struct collector *c = arg;

	(void)name;
	if (!exec)
		return;
	c->exec_pid = pid;
	retire(c, pid);
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
	/* the program ends with its last thread, which need not be the main
	 * one (a main thread that called pthread_exit ends first) */
	if (exit && pid == c->run->tr.pid && time > c->run->t_end)
		c->run->t_end = time;
}

static void on_task_comm(void *arg, uint32_t pid, uint32_t tid,
			 const char *name, uint64_t time)
{
	struct collector *c = arg;

	if (c->exec_pid == pid && pid == tid) {
		trace_exec_name(&c->run->tr, pid, name, time);
		trace_exec(&c->run->tr, pid, name, time);
	} else {
		trace_task_name(&c->run->tr, pid, tid, name, time);
	}
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

/* A thread there at the attach (trace --pid) */
static void on_attached(void *arg, uint32_t pid, uint32_t tid,
			const char *name, bool asleep, uint64_t time)
{
	struct collector *c = arg;

	trace_attached(&c->run->tr, pid, tid, name, asleep, time);
}

/* A CPython's C stacks have no frame pointers: unwind them (with
 * --python off too) when python (the program, or the process attached
 * to, runs CPython); and read its Python frames as soon as a sample
 * comes. program: what runs, for the Python summary. */
static void set_python(struct collector *c, struct trace_plan *p, bool python,
		       const char *program)
{
	if (python) {
		p->so.dwarf = true;
		p->so.prompt = p->python;
		p->so.stack_size = SAMPLER_PYTHON_STACK;
	}
	if (!p->python)
		pystacks_set_native(c->py);
	else
		pystacks_set_run(c->py, p->so.prompt, program);
}

/* The program's run: its zone buffer made, passed in its environment,
 * and the sampler run on it (c's CPython set up); the buffer's zones
 * into the timeline afterwards, by the caller (zb). */
static enum sampler_result run_program(struct collector *c,
				       struct trace_plan *p,
				       const struct sampler_callbacks *cb,
				       struct zb_map *zb, struct error *e)
{
	char env[64], envpath[96];
	const char *envs[3] = { env, envpath, NULL };
	enum sampler_result res;

	zb_env(zb, env, sizeof(env));
	zb_env_path(zb, envpath, sizeof(envpath));
	p->so.env_add = envs;
	set_python(c, p, py_argv_runs_python(p->argv), p->argv[0]);
	res = follow_sampler_run(&p->so, p->argv, cb, &c->run->st, e);
	p->so.env_add = NULL;
	return res;
}

/* The running process p->pid attached to (engine/attach.h), as record
 * --pid does: its CPython, in it or a descendant, unwound with dwarf. */
static enum sampler_result run_attached(struct collector *c,
					struct trace_plan *p,
					const struct sampler_callbacks *cb,
					struct zb_map *zb, int64_t *from,
					struct error *e)
{
	struct trace_run *r = c->run;
	enum sampler_result res;

	set_python(c, p, attach_runs_python(p->pid, p->so.children), r->name);
	/* the zones begun from now on, when it holds a buffer */
	*from = (int64_t)monoclock_ns();
	r->zones_pid = attach_zone_buffer(p->pid, p->so.children, zb);
	res = attach_sampler_run(&p->so, p->pid, p->duration, cb, &r->st, e);
	/* the end of what was traced: the duration's, a stop's or the
	 * process's exit */
	if (res == SAMPLER_OK)
		r->t_end = r->st.start_ns + (uint64_t)r->st.duration_ns;
	return res;
}

int trace_collect(struct trace_run *r, struct trace_plan *p, struct error *e)
{
	struct collector c = { .run = r };
	struct sampler_callbacks cb = {
		.arg = &c, .sample = on_sample, .mmap = on_mmap,
		.fork = on_fork, .comm = on_comm, .task = on_task,
		.task_comm = on_task_comm, .sched_switch = on_switch,
		.page_fault = on_fault, .wakeup = on_wakeup,
		.attached = on_attached,
	};
	struct zb_map zb = { .fd = -1 };
	enum sampler_result res;
	int64_t from = 0;
	char *cache;
	int ret = 0;

	if (p->pid) {
		ret = attach_check(p->pid, e);
		if (ret)
			return ret;
		r->name = attach_name(p->pid);
	}
	if (symtab_load(e))
		return 3;
	if (!p->pid &&
	    zb_create(&zb, (uint32_t)p->zone_threads,
		      (uint32_t)(p->zone_bytes > UINT32_MAX ? UINT32_MAX
				 : p->zone_bytes), ZB_DEFAULT_NAMES, true, e))
		return 3;
	p->so.switches = true;
	p->so.wakeups = true;
	c.sym = symtab_new(false);
	cache = symcache_dir();
	symtab_use_cache(c.sym, cache);
	free(cache);
	c.py = pystacks_new(c.sym);
	res = p->pid ? run_attached(&c, p, &cb, &zb, &from, e)
		     : run_program(&c, p, &cb, &zb, e);
	/* a program's trace, marked partial, when Ctrl-C stops it; an
	 * attached one ends so */
	if (!p->pid && (r->st.interrupted || stop_signal())) {
		char why[64];

		snprintf(why, sizeof(why), "stopped by %s", stop_signal()
			 ? stop_signal_name() : "an interrupt");
		r->tr.partial = trace_intern(&r->tr, why);
	}
	if (c.py)
		pystacks_set_reader(c.py, r->st.rt_why);
	if (res) {
		ret = error_exit_code(e);	/* SAMPLER_REFUSED: 3 */
	} else {
		pystacks_release(c.py, true, restack, &c);
		resolve(&c);
		if (!p->pid || r->zones_pid)
			trace_add_zones(r, &zb, from);
		if (!r->t_end)
			r->t_end = r->tr.last;
		r->tr.wakeups = r->st.wakeups;
		trace_finish(&r->tr, r->t_end);
		if (c.py)
			python_thread_names(&r->tr, c.py);
	}
	zb_close(&zb);
	if (c.py && !ret)
		pystacks_fput_report(c.py, p->quiet, stderr);
	pystacks_free(c.py);
	symtab_free(c.sym);
	free(c.pend);
	free(c.ips);
	free(c.stack.s);
	return ret;
}
