/*
 * The collection of `yardstick record` (record_run.h): the sampler
 * delivers raw samples while the program runs; their user stacks (frame
 * pointers, or unwound from a stack copy with DWARF) are interned as raw
 * address chains per process, and symbolized — each distinct address
 * once — when the process execs or the run ends, into the shared profile
 * model that every exporter reads. With off-CPU sampling, a thread's
 * stack when it left its CPU is added, under an [idle] root, for the time
 * it stayed off.
 */
#include "engine/record_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/attach.h"
#include "engine/follow.h"
#include "measure/spawn.h"
#include "profile/pystacks.h"
#include "profile/python_proc.h"
#include "profile/rawstacks.h"
#include "profile/symbolize.h"
#include "profile/symcache.h"
#include "util/hashmap.h"
#include "util/stop.h"
#include "util/strutil.h"

struct idle_ent {
	uint32_t tid, pid;
	uint64_t *ips;
	size_t n;
	uint64_t out, carry;	/* left its CPU at; ns not yet added */
	bool gil;
};

/* What the callbacks share while the program runs. */
struct collector {
	const struct record_plan *p;
	struct record_run *run;
	struct symtab *sym;
	struct rawstacks *raw;
	struct profile *prof;
	struct pystacks *py;		/* native only with --python off */
	uint64_t ips[512];
	uint64_t pyips[1024];		/* ips with Python frames in */
	/* --idle: per thread, its stack when it last left its CPU (NULL
	 * while it runs), its root frame's addresses, what was added */
	struct idle_ent *idle;
	size_t nidle, capidle;
	struct hashidx idle_index;	/* idle + 1 by tid */
	uint64_t idle_root, gil_root;
};

/* A sample's stack, Python frames in, into c->pyips (or c->ips): its
 * length. gil non-NULL: a switch out (--idle), *gil whether a CPython
 * thread waits for the GIL in it. */
static size_t sample_stack(struct collector *c, const struct raw_sample *s,
			   const uint64_t **out, bool *gil)
{
	const uint64_t *ips = s->ips;
	size_t n = s->nips;
	bool cut = s->cut;

	/* the Python frames first, while the thread is where it was */
	if (c->py && gil)
		pystacks_capture_offcpu(c->py, s->pid, s->tid, s->time);
	else if (c->py)
		pystacks_capture(c->py, s->pid, s->tid, s->time);
	if (c->p->so.dwarf) {
		n = symtab_unwind(c->sym, s->pid, s->regs, s->nregs, s->stack,
				  s->stack_size, c->ips, 512, &cut);
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
		n = pystacks_merge(c->py, ips, n, cut, c->pyips,
				   sizeof(c->pyips) / sizeof(c->pyips[0]) - 1);
		ips = c->pyips;
	} else if (cut && n) {
		n = symtab_mark_cut(c->sym, ips, n, c->ips,
				   sizeof(c->ips) / sizeof(c->ips[0]));
		ips = c->ips;
	}
	*out = ips;
	return n;
}

static void add_stack(void *arg, uint32_t pid, const uint64_t *ips, size_t n,
		      uint64_t period)
{
	struct collector *c = arg;

	rawstacks_add(c->raw, pid, ips, n, period);
}

/* A sample's stack; one cut short before its thread's outer native
 * frames were seen waits for them (pystacks_hold) */
static void on_sample(void *arg, const struct raw_sample *s)
{
	struct collector *c = arg;
	const uint64_t *ips;
	size_t n = sample_stack(c, s, &ips, NULL);

	c->run->oncpu++;
	if (!c->py || !pystacks_hold(c->py, s->pid, ips, n, s->period))
		rawstacks_add(c->raw, s->pid, ips, n, s->period);
	pystacks_release(c->py, false, add_stack, c);
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
		k = t->carry / c->run->interval;
		t->carry %= c->run->interval;
		if (k) {
			rawstacks_add_n(c->raw, t->pid, t->ips, t->n, k,
					k * c->run->interval);
			c->run->idle_samples += k;
			c->run->gil_samples += t->gil ? k : 0;
		}
		free(t->ips);
		t->ips = NULL;
		return;
	}
}

static void on_mmap(void *arg, const struct raw_mmap *m)
{
	struct collector *c = arg;
	uint32_t kept = follow_mmap(c->sym, c->py, m);

	/* a library at another's addresses: the samples so far ran the
	 * other one (the held ones too) */
	if (kept) {
		pystacks_release(c->py, true, add_stack, c);
		rawstacks_rename(c->raw, m->pid, kept);
	}
}

static void on_fork(void *arg, uint32_t pid, uint32_t ppid)
{
	struct collector *c = arg;

	follow_fork(c->sym, c->py, pid, ppid);
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
	/* The old image's addresses need the old mappings: they are kept
	 * under a new id and resolved after the run, not now, while the
	 * new image's samples wait for their Python frames. */
	rawstacks_rename(c->raw, pid, symtab_retire(c->sym, pid));
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

/* record_prepare of a running process: there, ours to sample, and a
 * CPython (in it or, with its children, in one of them) unwound with
 * dwarf (its C stacks have no frame pointers). */
static int prepare_pid(struct record_plan *p, struct error *e)
{
	int ret = attach_check(p->pid, e);

	if (ret)
		return ret;
	if (attach_runs_python(p->pid, p->so.children)) {
		p->so.dwarf |= !p->call_graph_given;
		if (!p->stack_size_given)
			p->so.stack_size = SAMPLER_PYTHON_STACK;
	}
	p->so.prompt = p->python && p->so.dwarf;
	if (symtab_load(e))
		return 3;
	return 0;
}

int record_prepare(struct record_plan *p, struct error *e)
{
	char *path = NULL;
	struct error pe;

	if (p->pid)
		return prepare_pid(p, e);
	if (spawn_resolve_program(p->argv[0], &path, e))
		return 2;
	if (spawn_exec_privileged(path, &pe) == 1) {
		error_set(e, "cannot profile it: %s, and the kernel stops perf "
			  "events at the exec of a program that changes "
			  "credentials or cannot be read (run yardstick as the "
			  "user it runs as, or profile a copy without the set-ID "
			  "bits or capabilities)", pe.msg);
		free(path);
		return 3;
	}
	/* a CPython's C stacks have no frame pointers: unwind them where
	 * the exec chain reaches one (its C frames are wanted with
	 * --python off too), reading its frames promptly */
	if (py_argv_runs_python(p->argv)) {
		p->so.dwarf |= !p->call_graph_given;
		if (!p->stack_size_given)
			p->so.stack_size = SAMPLER_PYTHON_STACK;
	}
	p->so.prompt = p->python && p->so.dwarf;
	free(path);
	/* libdw, loaded now rather than after the run */
	if (symtab_load(e))
		return 3;
	return 0;
}

/* The collector of r for plan p, its symbol table and stacks made. */
static void collector_init(struct collector *c, struct record_run *r,
			   const struct record_plan *p,
			   struct sampler_callbacks *cb)
{
	char *cache = symcache_dir();

	c->p = p;
	c->run = r;
	c->prof = &r->prof;
	c->sym = symtab_new(p->lines);
	symtab_use_cache(c->sym, cache);
	free(cache);
	c->raw = rawstacks_new();
	/* --python off too: the interpreter's unnamed frames named alike */
	c->py = pystacks_new(c->sym);
	if (!p->python)
		pystacks_set_native(c->py);
	else
		pystacks_set_run(c->py, p->so.prompt, p->call_graph_given ? NULL
					 : p->argv ? p->argv[0] : r->name);
	if (p->so.offcpu) {
		cb->offcpu = on_offcpu;
		cb->sched_switch = on_switch;
		c->run->interval = (uint64_t)(1e9 / p->so.freq);
		c->idle_root = symtab_synth(c->sym, &(struct frame){
			.function = "[idle]", .module = "[idle]" });
		c->gil_root = symtab_synth(c->sym, &(struct frame){
			.function = "[idle: GIL]", .module = "[idle]" });
	}
}

/* symtab_each_module's callback: the modules into a growing array. */
struct module_list {
	struct advice_module *v;
	size_t n, cap;
};

static void add_module(void *arg, const char *name, const char *path)
{
	struct module_list *l = arg;

	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = (struct advice_module){ name, path };
}

/* The advice on the profile: known slow libraries it sits in. */
static void find_advice(struct record_run *r, struct symtab *sym)
{
	struct module_list l = { 0 };

	symtab_each_module(sym, add_module, &l);
	r->nadvice = advice_find(&r->prof, 0, l.v, l.n, r->advice,
				 sizeof(r->advice) / sizeof(r->advice[0]));
	free(l.v);
}

/* The profile's figures once the run ended; what r keeps of c. */
static void collector_finish(struct collector *c, struct record_run *r,
			     const struct record_plan *p)
{
	struct profile *pr = &r->prof;

	pystacks_release(c->py, true, add_stack, c);
	rawstacks_flush(c->raw, 0, 1, c->sym, pr);
	pr->duration_ns = r->st.duration_ns;
	pr->lost = (int64_t)r->st.lost;
	pr->period = p->so.freq ? (int64_t)(1e9 / p->so.freq) : 0;
	pr->period_type = 1;
	/* Samples per second of CPU the program used: the rate each
	 * thread was sampled at, whatever the number of threads. */
	pr->rate_hz = r->st.cpu_ns > 0 ?
		      (double)r->oncpu / (r->st.cpu_ns / 1e9) : 0;
	/* a stop ends an attached recording as its duration does */
	if (!p->pid && (r->st.interrupted || stop_signal()))
		pr->partial = stop_signal_name();
	find_advice(r, c->sym);
}

static void collector_free(struct collector *c)
{
	for (size_t i = 0; i < c->nidle; i++)
		free(c->idle[i].ips);
	free(c->idle);
	hashidx_free(&c->idle_index);
	rawstacks_free(c->raw);
}

int record_collect(struct record_run *r, struct record_plan *p,
		   struct error *e)
{
	struct collector c;
	struct sampler_callbacks cb = { .arg = &c, .sample = on_sample,
					.mmap = on_mmap, .fork = on_fork,
					.comm = on_comm, .exit = on_exit_pid };
	enum sampler_result res;

	memset(&c, 0, sizeof(c));
	profile_init(&r->prof, p->so.offcpu ? record_idle_types
			       : record_types, 2);
	if (p->pid) {
		r->name = attach_name(p->pid);
		r->prof.command = xasprintf("pid %u (%s)", p->pid, r->name);
	} else {
		r->prof.command = argv_join(p->argv);
	}
	collector_init(&c, r, p, &cb);
	/* the profile, marked partial, when Ctrl-C stops it */
	if (p->pid) {
		res = attach_sampler_run(&p->so, p->pid, p->duration, &cb,
					 &r->st, e);
	} else {
		res = follow_sampler_run(&p->so, p->argv, &cb, &r->st, e);
	}
	if (p->pid && r->st.children) {
		free(r->prof.command);
		r->prof.command = xasprintf("pid %u (%s) and %zu child "
					    "process%s", p->pid, r->name,
					    r->st.children,
					    plural_es(r->st.children));
	}
	if (c.py)
		pystacks_set_reader(c.py, r->st.rt_why);
	if (!res)
		collector_finish(&c, r, p);
	r->py = c.py;
	r->sym = c.sym;
	collector_free(&c);
	if (res)
		return error_exit_code(e);	/* SAMPLER_REFUSED: 3 */
	return 0;
}

void record_run_free(struct record_run *r)
{
	pystacks_free(r->py);
	symtab_free(r->sym);
	free(r->name);
	profile_free(&r->prof);
}
