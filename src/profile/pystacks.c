/*
 * Python frames in sampled stacks (pystacks.h). Per process: whether it
 * is a CPython (probed at its first sample, again after a new mapping),
 * its threads' PyThreadState by kernel tid, and its code objects read
 * once each (names, first line, location table), checked again at every
 * sample against the pointers the walk read (an address reused by
 * another code object is read afresh).
 */
#include "profile/pystacks.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "profile/python_proc.h"
#include "util/hashmap.h"
#include "util/strutil.h"
#include "util/term.h"

#include "profile/pystacks_internal.h"

struct pystacks *pystacks_new(struct symtab *s)
{
	struct pystacks *ps = xcalloc(1, sizeof(*ps));

	ps->s = s;
	ps->ready = true;
	return ps;
}

void pystacks_set_run(struct pystacks *ps, bool ready, const char *program)
{
	ps->ready = ready;
	free(ps->program);
	ps->program = program ? xstrdup(program) : NULL;
}

void pystacks_set_reader(struct pystacks *ps, const char *why)
{
	free(ps->reader_why);
	ps->reader_why = why && *why ? xstrdup(why) : NULL;
}

void pystacks_set_native(struct pystacks *ps)
{
	ps->native = true;
}

static void pyp_clear(struct pyp *p)
{
	for (size_t i = 0; i < p->ncodes; i++) {
		free(p->codes[i].name);
		free(p->codes[i].file);
		free(p->codes[i].tab);
	}
	free(p->codes);
	free(p->lines);
	free(p->tids);
	hashidx_free(&p->code_index);
	hashidx_free(&p->line_index);
	*p = (struct pyp){ .pid = p->pid };
}

void pystacks_free(struct pystacks *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->nprocs; i++) {
		pyp_clear(ps->procs[i]);
		free(ps->procs[i]);
	}
	for (size_t i = 0; i < ps->nwarnings; i++)
		free(ps->warnings[i]);
	free(ps->warnings);
	free(ps->program);
	free(ps->reader_why);
	free(ps->procs);
	free(ps->threads);
	for (size_t i = 0; i < ps->nheld; i++)
		free(ps->held[i].ips);
	free(ps->held);
	hashidx_free(&ps->proc_index);
	hashidx_free(&ps->thread_index);
	free(ps);
}

static struct pyp *pyp_find(struct pystacks *ps, uint32_t pid, bool create)
{
	uint64_t h = hash_u64(pid), v;
	struct pyp *p;
	size_t pos;

	for (v = hashidx_first(&ps->proc_index, h, &pos); v;
	     v = hashidx_next(&ps->proc_index, h, &pos))
		if (ps->procs[v - 1]->pid == pid)
			return ps->procs[v - 1];
	if (!create)
		return NULL;
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	ps->procs = xgrow(ps->procs, &ps->capprocs, ps->nprocs + 1,
			  sizeof(*ps->procs));
	ps->procs[ps->nprocs++] = p;
	hashidx_add(&ps->proc_index, h, ps->nprocs);
	return p;
}

void pystacks_mmap(struct pystacks *ps, uint32_t pid, const char *path)
{
	struct pyp *p = pyp_find(ps, pid, false);
	const char *base = strrchr(path, '/');

	/* the interpreter comes as a file of its own; other files (every
	 * library a program loads) are not worth reading maps again */
	base = base ? base + 1 : path;
	if (p && p->state != P_PYTHON && (!strncmp(base, "python", 6) ||
					  !strncmp(base, "libpython", 9)))
		p->dirty = true;
	/* the C library's waits are read again when it comes after a
	 * thread first left its CPU (a page fault of the start-up) */
	if (p && !p->ncond && py_proc_is_libc(base))
		p->cond_read = false;
}

void pystacks_fork(struct pystacks *ps, uint32_t pid, uint32_t ppid)
{
	(void)ppid;
	pystacks_exec(ps, pid);
}

void pystacks_exec(struct pystacks *ps, uint32_t pid)
{
	struct pyp *p = pyp_find(ps, pid, false);

	if (p)
		pyp_clear(p);
}

void pystacks_exit(struct pystacks *ps, uint32_t pid)
{
	pystacks_exec(ps, pid);
}

static void warn_once(struct pystacks *ps, char *msg)
{
	for (size_t i = 0; i < ps->nwarnings; i++)
		if (!strcmp(ps->warnings[i], msg)) {
			free(msg);
			return;
		}
	ps->warnings = xgrow(ps->warnings, &ps->capwarnings,
			     ps->nwarnings + 1, sizeof(*ps->warnings));
	ps->warnings[ps->nwarnings++] = msg;
}

/* p is the CPython p->pp describes: supported, or a warning. */
static void pyp_found(struct pystacks *ps, struct pyp *p)
{
	if (p->pp.t.l && p->pp.eval_start) {
		p->state = P_PYTHON;
		return;
	}
	p->state = P_UNSUPPORTED;
	warn_once(ps, xasprintf("'%s': python %s is not supported (%s are): "
				"its stacks show the interpreter's C frames",
				p->pp.path, p->pp.version,
				py_layout_versions()));
}

static void probe(struct pystacks *ps, struct pyp *p)
{
	struct error e;
	int r = py_proc_probe(p->pid, &p->pp, &e);

	p->dirty = false;
	if (r <= 0) {
		p->state = P_NONE;
		return;
	}
	pyp_found(ps, p);
}

void pystacks_attach(struct pystacks *ps, uint32_t pid,
		     const struct py_proc *pp)
{
	struct pyp *p = pyp_find(ps, pid, true);

	pyp_clear(p);
	py_proc_move(&p->pp, pp);
	pyp_found(ps, p);
}

/* --- threads --- */

static uint64_t tstate_of(struct pyp *p, uint32_t tid)
{
	const struct py_target *t = &p->pp.t;
	uint64_t native;
	size_t i;

	for (i = 0; i < p->ntids && p->tids[i].tid != tid; i++)
		;
	/* a cached state is still tid's if it still says so */
	if (i < p->ntids && !t->read(t->arg, p->tids[i].tstate +
			(uint64_t)t->l->ts_native_thread_id, &native,
			sizeof(native)) && (uint32_t)native == tid)
		return p->tids[i].tstate;
	if (i == p->ntids) {
		p->tids = xgrow(p->tids, &p->captids, p->ntids + 1,
				sizeof(*p->tids));
		p->tids[p->ntids++].tid = tid;
	}
	return p->tids[i].tstate = py_thread_find(t, tid);
}

/* Reads of a threading.Thread's name that fail (a race with its
 * attributes' change) before its OS name is kept. */
#define PY_NAME_TRIES 8

/* The thread's name before Python's: "MainThread" for the process's
 * first thread, else the OS thread name. */
static void os_name(struct pystacks_thread *th)
{
	char path[64];
	ssize_t n;
	int fd;

	th->py_named = false;
	th->name_tries = 0;
	if (th->pid == th->tid) {
		snprintf(th->name, sizeof(th->name), "MainThread");
		return;
	}
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", th->pid,
		 th->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, th->name, sizeof(th->name) - 1);
	if (fd >= 0)
		close(fd);
	th->name[n > 0 ? n : 0] = '\0';
	th->name[strcspn(th->name, "\n")] = '\0';
}

static struct pystacks_thread *thread_rec(struct pystacks *ps, uint32_t pid,
					  uint32_t tid)
{
	uint64_t h = hash_u64((uint64_t)pid << 32 | tid), v;
	struct pystacks_thread *th;
	size_t pos;

	for (v = hashidx_first(&ps->thread_index, h, &pos); v;
	     v = hashidx_next(&ps->thread_index, h, &pos))
		if (ps->threads[v - 1].pid == pid &&
		    ps->threads[v - 1].tid == tid)
			return &ps->threads[v - 1];
	ps->threads = xgrow(ps->threads, &ps->capthreads, ps->nthreads + 1,
			    sizeof(*ps->threads));
	th = &ps->threads[ps->nthreads++];
	*th = (struct pystacks_thread){ .pid = pid, .tid = tid };
	hashidx_add(&ps->thread_index, h, ps->nthreads);
	os_name(th);
	return th;
}

/* --- code objects and frames --- */

static struct code_ent *code_of(struct pystacks *ps, struct pyp *p,
				const struct py_frame *fr);

/* threading.Thread's name of the thread whose walk (outermost frame
 * last) is in ps->frames: its outermost frame runs Thread._bootstrap of
 * threading.py, whose self is the Thread. Its name only when every read
 * checks out; the OS name stays otherwise. */
static void py_name(struct pystacks *ps, struct pyp *p,
		    struct pystacks_thread *th)
{
	static const char boot[] = "Thread._bootstrap (threading.py:";
	const struct py_frame *fr = &ps->frames[ps->nframes - 1];
	struct code_ent *c = code_of(ps, p, fr);
	const char *base;
	char name[sizeof(th->name)];
	uint64_t self;

	if (!c || strncmp(c->name, boot, sizeof(boot) - 1))
		return;
	base = strrchr(c->file, '/');
	th->name_tries++;
	if (strcmp(base ? base + 1 : c->file, "threading.py") ||
	    py_frame_local0(&p->pp.t, fr, &self) ||
	    py_attr_str(&p->pp.t, self, "_name", name, sizeof(name)) ||
	    !name[0])
		return;
	memcpy(th->name, name, sizeof(name));
	th->py_named = true;
}

/* --- code objects and frames --- */

static struct code_ent *code_of(struct pystacks *ps, struct pyp *p,
				const struct py_frame *fr)
{
	uint64_t h = hash_u64(fr->code), v;
	struct code_ent *c;
	struct py_code pc;
	const char *base;
	long len;
	size_t pos;

	/* every code object seen at this address: the one with these
	 * names, or a new entry (a line's synthetic address stays with
	 * its entry, so entries are never rewritten) */
	for (v = hashidx_first(&p->code_index, h, &pos); v;
	     v = hashidx_next(&p->code_index, h, &pos)) {
		c = &p->codes[v - 1];
		if (c->addr == fr->code &&
		    c->qualname_ptr == fr->qualname_ptr &&
		    c->filename_ptr == fr->filename_ptr)
			return c;
	}
	if (py_code_read(&p->pp.t, fr->code, &pc) ||
	    pc.qualname_ptr != fr->qualname_ptr ||
	    pc.filename_ptr != fr->filename_ptr ||
	    (len = py_code_linetable(&p->pp.t, &pc, ps->tab,
				     sizeof(ps->tab))) < 0)
		return NULL;
	p->codes = xgrow(p->codes, &p->capcodes, p->ncodes + 1,
			 sizeof(*p->codes));
	c = &p->codes[p->ncodes++];
	hashidx_add(&p->code_index, h, p->ncodes);
	base = strrchr(pc.filename, '/');
	c->addr = fr->code;
	c->qualname_ptr = pc.qualname_ptr;
	c->filename_ptr = pc.filename_ptr;
	c->name = xasprintf("%s (%s:%d)", pc.qualname,
			    base ? base + 1 : pc.filename, pc.firstlineno);
	c->file = xstrdup(pc.filename);
	c->firstlineno = pc.firstlineno;
	c->tablen = (size_t)len;
	c->tab = xmalloc(len ? (size_t)len : 1);
	memcpy(c->tab, ps->tab, (size_t)len);
	return c;
}

static uint64_t frame_addr(struct pystacks *ps, struct pyp *p,
			   struct code_ent *c, int line)
{
	uint32_t ci = (uint32_t)(c - p->codes);
	uint64_t h = hash_u64((uint64_t)ci << 32 ^ (uint32_t)line), v;
	struct frame f;
	size_t pos;

	for (v = hashidx_first(&p->line_index, h, &pos); v;
	     v = hashidx_next(&p->line_index, h, &pos)) {
		const struct line_ent *le = &p->lines[v - 1];

		if (le->code == ci && le->line == line)
			return le->addr;
	}
	f = (struct frame){ .function = c->name, .file = c->file,
			    .line = line > 0 ? line : 0,
			    .module = PYSTACKS_MODULE };
	p->lines = xgrow(p->lines, &p->caplines, p->nlines + 1,
			 sizeof(*p->lines));
	p->lines[p->nlines] = (struct line_ent){ ci, line,
						 symtab_synth(ps->s, &f) };
	hashidx_add(&p->line_index, h, ++p->nlines);
	return p->lines[p->nlines - 1].addr;
}

static bool is_eval(const struct pyp *p, const uint64_t *ips, size_t i)
{
	uint64_t a = i ? ips[i] - 1 : ips[0];

	/* its cold part runs in its frame, in its place (elfcold.h) */
	return (a >= p->pp.eval_start && a < p->pp.eval_end) ||
	       (a >= p->pp.eval_cold_start && a < p->pp.eval_cold_end);
}

/* The Python frames' addresses of a walk into addrs (innermost first),
 * and the start of each C-level evaluation's group in group[] (group[g]
 * = nframes). Returns the number of groups, or -1. torn: a walk cut at
 * PY_MAX_DEPTH, whose frames after the last entry are the innermost of
 * an evaluation whose outer frames were not read (then group[g] is where
 * they start, and they are not counted as a group). */
static int frames_to_addrs(struct pystacks *ps, struct pyp *p, size_t nfr,
			   uint64_t *addrs, size_t *group, size_t maxg,
			   bool torn)
{
	size_t g = 0;

	group[0] = 0;
	for (size_t i = 0; i < nfr; i++) {
		struct code_ent *c = code_of(ps, p, &ps->frames[i]);
		int line;

		if (!c)
			return -1;
		line = py_frame_line(c->tab, c->tablen, c->firstlineno,
				     ps->frames[i].lasti);
		addrs[i] = frame_addr(ps, p, c, line);
		if (ps->frames[i].entry) {
			if (++g > maxg)
				return -1;
			group[g] = i + 1;
		}
	}
	/* frames after the last entry belong to no evaluation: torn */
	return group[g] == nfr || torn ? (int)g : -1;
}

#define MAX_GROUPS 256
/* Python frames read per sample: as many as a stack keeps
 * (rawstacks.c), so that a recursion thousands deep costs the reader no
 * more than that (2048 frames took it ~1 ms a sample, and half the
 * samples were read too late); deeper, the innermost ones and
 * [truncated] (merge_deep) */
#define PYSTACKS_WALK_MAX 512

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void capture(struct pystacks *ps, uint32_t pid, uint32_t tid,
		    uint64_t time, bool offcpu);

void pystacks_capture(struct pystacks *ps, uint32_t pid, uint32_t tid,
		      uint64_t time)
{
	capture(ps, pid, tid, time, false);
}

void pystacks_capture_offcpu(struct pystacks *ps, uint32_t pid, uint32_t tid,
			     uint64_t time)
{
	capture(ps, pid, tid, time, true);
}

static void capture(struct pystacks *ps, uint32_t pid, uint32_t tid,
		    uint64_t time, bool offcpu)
{
	struct pyp *p = pyp_find(ps, pid, true);
	struct pystacks_thread *th;
	enum py_walk_error err;
	uint64_t tstate, lag;
	int gil;

	ps->cur = NULL;
	ps->proc = NULL;
	ps->cur_thread = 0;
	ps->unchecked = false;
	if (p->state == P_UNPROBED || (p->dirty && p->state != P_PYTHON))
		probe(ps, p);
	if (p->state != P_PYTHON)
		return;
	ps->proc = p;
	if (ps->native)
		return;
	ps->st.samples++;
	/* a run not set up for Python: its frames cannot be placed in
	 * the native stacks (no stack copies), so none are read */
	if (!ps->ready) {
		ps->st.unready++;
		return;
	}
	lag = now_ns() - time;
	if (time > now_ns() || lag > PYSTACKS_MAX_LAG_NS) {
		ps->st.stale++;
		return;
	}
	ps->cur = p;
	ps->cur_err = PY_WALK_OK;
	ps->nframes = 0;
	tstate = tstate_of(p, tid);
	/* a thread Python does not know (yet): no frames */
	if (!tstate)
		return;
	ps->nframes = py_walk(&p->pp.t, tstate, ps->frames, PYSTACKS_WALK_MAX,
			      &err);
	ps->cur_err = err;
	th = thread_rec(ps, pid, tid);
	ps->cur_thread = (size_t)(th - ps->threads) + 1;
	/* threading's name, read at the thread's first walk (anew when
	 * the tid comes back as another thread) */
	if (th->tstate != tstate) {
		if (th->tstate && th->py_named)
			os_name(th);
		th->tstate = tstate;
	}
	if (!th->py_named && th->name_tries < PY_NAME_TRIES && !err &&
	    ps->nframes)
		py_name(ps, p, th);
	/* its samples and share holding the GIL: on-CPU samples only */
	if (offcpu)
		goto out_lag;
	/* every 64th sample reads the name again: a thread renamed */
	if (++th->samples % 64 == 0 && th->py_named && !err && ps->nframes)
		py_name(ps, p, th);
	gil = py_gil_holder(&p->pp.t, tstate);
	if (gil >= 0) {
		th->gil_known++;
		th->gil += (uint64_t)gil;
	}
out_lag:
	ps->st.lag_ns_sum += lag;
	if (lag > ps->st.lag_ns_max)
		ps->st.lag_ns_max = lag;
}

void pystacks_check(struct pystacks *ps, const uint64_t *regs,
		    size_t nregs, const uint8_t *stack, size_t stack_size)
{
	const struct py_frame *f = &ps->frames[0];
	uint64_t lo, hi, w;

	if (!ps->cur || ps->cur_err || !ps->nframes || !stack)
		return;
	lo = f->bytecode;
	hi = lo + 2 * (uint64_t)f->code_units;
	for (size_t i = 0; i < nregs; i++)
		if (regs[i] >= lo && regs[i] <= hi)
			return;
	for (size_t at = 0; at + 8 <= stack_size; at += 8) {
		memcpy(&w, stack + at, 8);
		if (w >= lo && w <= hi)
			return;
	}
	ps->unchecked = true;	/* pystacks_merge decides */
}

/* ips[i] as the merged stack keeps it: an address of the interpreter's
 * own file shown only if named (symbolize.h), else as standin (0:
 * not at all). Deciding it takes the file's symbols: after the run,
 * not while samples wait. */
static uint64_t interp_addr(const struct pyp *p, uint64_t ip,
			    uint64_t standin)
{
	if (ip < p->pp.lo || ip >= p->pp.hi)
		return ip;
	return symtab_if_named(ip, standin);
}

/* The frame that stands for a run of the interpreter's unnamed code in
 * a native stack. */
static uint64_t interp_frame(struct pystacks *ps, struct pyp *p)
{
	const char *base = strrchr(p->pp.path, '/');

	if (!p->interp_frame)
		p->interp_frame = symtab_synth(ps->s, &(struct frame){
			.function = PYSTACKS_INTERP,
			.module = (char *)(base ? base + 1 : p->pp.path) });
	return p->interp_frame;
}

/* The native chain ips[0..n) into out (at most max), each run of the
 * interpreter's unnamed frames one [CPython interpreter] frame. */
static size_t native_stack(struct pystacks *ps, struct pyp *p,
			   const uint64_t *ips, size_t n, uint64_t *out,
			   size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k < max; i++)
		out[k++] = p ? interp_addr(p, ips[i], interp_frame(ps, p))
			     : ips[i];
	return k;
}

/* The thread's native frames outside the outermost evaluation frame,
 * ips[from..n), kept for its samples cut short (pystacks_merge). */
static void keep_base(struct pystacks *ps, struct pyp *p, const uint64_t *ips,
		      size_t from, size_t n)
{
	struct pystacks_thread *th;
	uint32_t k = 0;
	bool had;

	if (!ps->cur_thread)
		return;
	th = &ps->threads[ps->cur_thread - 1];
	had = th->nbase && th->base_frame == ps->frames[ps->nframes - 1].addr &&
	      th->base_code == ps->frames[ps->nframes - 1].code;
	for (size_t i = from; i < n && k < PYSTACKS_BASE_MAX; i++)
		th->base[k++] = interp_addr(p, ips[i], 0);
	/* too deep to keep whole: none, rather than a false root */
	th->nbase = from + k == n ? k : 0;
	th->base_frame = ps->frames[ps->nframes - 1].addr;
	th->base_code = ps->frames[ps->nframes - 1].code;
	/* a base for a new outermost frame: held stacks may be its (the
	 * same one again, as nearly every whole stack brings, is no news:
	 * pystacks_release looks through the held stacks only for news) */
	ps->base_new |= th->nbase > 0 && !had;
}

/* The thread's base (keep_base) if its outermost Python frame is the
 * sample's, else NULL. */
static const struct pystacks_thread *base_of(const struct pystacks *ps)
{
	const struct pystacks_thread *th;
	const struct py_frame *outer = &ps->frames[ps->nframes - 1];

	if (!ps->cur_thread)
		return NULL;
	th = &ps->threads[ps->cur_thread - 1];
	return th->nbase && th->base_frame == outer->addr &&
	       th->base_code == outer->code ? th : NULL;
}

/*
 * A walk cut at PY_MAX_DEPTH (a recursion deeper than that): its
 * innermost frames at the native chain's innermost evaluation frames, the
 * last of them at the evaluation they belong to, and there the stack ends
 * with a [truncated] frame (the outer Python frames and the native frames
 * further out are not known). 0 when the native chain has too few
 * evaluation frames for the frames read.
 */
static size_t merge_deep(struct pystacks *ps, struct pyp *p,
			 const uint64_t *ips, size_t n, size_t evals,
			 uint64_t *out, size_t max)
{
	size_t group[MAX_GROUPS + 1], k = 0, g = 0;
	int full = frames_to_addrs(ps, p, ps->nframes, ps->addrs, group,
				   MAX_GROUPS, true);

	if (full < 0 || evals < (size_t)full + 1 || max < 2)
		return 0;
	for (size_t i = 0; i < n && k < max - 1; i++) {
		if (!is_eval(p, ips, i)) {
			out[k++] = interp_addr(p, ips[i], 0);
			continue;
		}
		/* a whole group, or the last frames read */
		for (size_t j = group[g];
		     j < (g < (size_t)full ? group[g + 1] : ps->nframes) &&
		     k < max - 1; j++)
			out[k++] = ps->addrs[j];
		if (g++ == (size_t)full)
			break;
	}
	out[k++] = symtab_truncated(ps->s);
	return k;
}

size_t pystacks_merge(struct pystacks *ps, const uint64_t *ips, size_t n,
		      bool cut, uint64_t *out, size_t max)
{
	struct pyp *p = ps->cur;
	size_t group[MAX_GROUPS + 1], evals = 0, k = 0, g = 0, last = 0;
	int ngroups;

	ps->rootless = false;
	if (!p)
		goto out_native;
	ps->cur = NULL;
	for (size_t i = 0; i < n; i++)
		evals += is_eval(p, ips, i);
	/* the innermost frame's bytecode is nowhere in the copy: the
	 * thread had left it, unless the copy ends before the evaluation
	 * frame that holds it (a native chain cut short without one) */
	if (ps->unchecked && !(cut && !evals)) {
		ps->st.changed++;
		goto out_native;
	}
	if (ps->cur_err && ps->cur_err != PY_WALK_TOO_DEEP) {
		ps->st.unreadable++;
		goto out_native;
	}
	if (ps->cur_err == PY_WALK_TOO_DEEP) {
		k = merge_deep(ps, p, ips, n, evals, out, max);
		if (!k) {
			ps->st.unreadable++;
			goto out_native;
		}
		ps->st.merged++;
		ps->st.truncated++;
		ps->proc = NULL;
		return k;
	}
	ngroups = frames_to_addrs(ps, p, ps->nframes, ps->addrs, group,
				  MAX_GROUPS, false);
	if (ngroups < 0) {
		ps->st.unreadable++;
		goto out_native;
	}
	/* a native chain cut short holds the innermost evaluations only */
	if ((size_t)ngroups < evals || ((size_t)ngroups > evals && !cut)) {
		ps->st.mismatched++;
		goto out_native;
	}
	if (!ngroups) {
		ps->st.nopython++;
		goto out_native;
	}
	/* the interpreter's unnamed code goes to the Python frame that
	 * runs it, as py-spy shows it */
	for (size_t i = 0; i < n && k < max; i++) {
		if (!is_eval(p, ips, i)) {
			out[k++] = interp_addr(p, ips[i], 0);
			continue;
		}
		for (size_t j = group[g]; j < group[g + 1] && k < max; j++)
			out[k++] = ps->addrs[j];
		g++;
		last = i + 1;
	}
	if ((size_t)ngroups > evals) {
		/* the outer evaluations' frames, then the thread's base */
		const struct pystacks_thread *th = base_of(ps);

		for (size_t j = group[g]; j < group[ngroups] && k < max; j++)
			out[k++] = ps->addrs[j];
		for (uint32_t j = 0; th && j < th->nbase && k < max; j++)
			out[k++] = th->base[j];
		ps->st.merged_cut++;
		if (!th && ps->cur_thread) {
			ps->rootless = true;
			ps->rootless_frame = ps->frames[ps->nframes - 1].addr;
			ps->rootless_code = ps->frames[ps->nframes - 1].code;
		}
	} else if (!cut) {
		keep_base(ps, p, ips, last, n);
	}
	ps->st.merged++;
	ps->proc = NULL;
	return k;
out_native:
	p = ps->proc;
	ps->proc = NULL;
	k = native_stack(ps, p, ips, n, out, max);
	/* its outer frames missing: a [truncated] root, not a false one */
	return cut && k ? symtab_mark_cut(ps->s, out, k, out, max) : k;
}

/* held stacks, addresses in all: at most 4 Mi (32 MiB) */
#define HELD_IPS_MAX (4u << 20)

bool pystacks_hold(struct pystacks *ps, uint32_t pid, const uint64_t *ips,
		   size_t n, uint64_t tag)
{
	struct held *h;

	if (!ps->rootless || n > UINT32_MAX ||
	    ps->held_ips + n > HELD_IPS_MAX)
		return false;
	ps->rootless = false;
	ps->held = xgrow(ps->held, &ps->capheld, ps->nheld + 1,
			 sizeof(*ps->held));
	h = &ps->held[ps->nheld++];
	*h = (struct held){ .pid = pid, .n = (uint32_t)n,
			    .thread = ps->cur_thread,
			    .frame = ps->rootless_frame,
			    .code = ps->rootless_code, .tag = tag };
	h->ips = xmalloc((n + PYSTACKS_BASE_MAX) * sizeof(*h->ips));
	memcpy(h->ips, ips, n * sizeof(*ips));
	ps->held_ips += n;
	return true;
}

void pystacks_release(struct pystacks *ps, bool all, pystacks_emit_fn emit,
		      void *arg)
{
	size_t kept = 0;

	if (!ps || !ps->nheld || (!all && !ps->base_new))
		return;
	ps->base_new = false;
	for (size_t i = 0; i < ps->nheld; i++) {
		struct held *h = &ps->held[i];
		const struct pystacks_thread *th = &ps->threads[h->thread - 1];
		bool based = th->nbase && th->base_frame == h->frame &&
			     th->base_code == h->code;

		if (!based && !all) {
			ps->held[kept++] = *h;
			continue;
		}
		if (based) {
			memcpy(h->ips + h->n, th->base,
			       th->nbase * sizeof(*th->base));
			h->n += th->nbase;
		} else {
			ps->st.rootless++;
		}
		emit(arg, h->pid, h->ips, h->n, h->tag);
		ps->held_ips -= h->n - (based ? th->nbase : 0);
		free(h->ips);
	}
	ps->nheld = kept;
}

/*
 * Whether a stack of p, whose interpreter has no take_gil in its symbol
 * table (Debian's stripped python3.11: the function is static), waits
 * for the GIL: its innermost frame in the interpreter's file called a
 * condition variable wait of the C library (py_proc_condwaits). Two
 * threads running Python code take turns through that wait, which the
 * exported entries (PyEval_RestoreThread ...) never see: without it, a
 * thread waiting its turn was counted [idle], not [idle: GIL].
 */
static int gil_condwait(struct pyp *p, const uint64_t *ips, size_t n)
{
	if (!p->cond_read) {
		p->ncond = py_proc_condwaits(p->pid, p->cond_lo, p->cond_hi,
					     sizeof(p->cond_lo) /
					     sizeof(p->cond_lo[0]));
		p->cond_read = true;
	}
	for (size_t i = 1; i < n; i++) {
		uint64_t callee = i > 1 ? ips[i - 1] - 1 : ips[0];

		if (ips[i] < p->pp.lo || ips[i] >= p->pp.hi)
			continue;
		for (size_t k = 0; k < p->ncond; k++)
			if (callee >= p->cond_lo[k] && callee < p->cond_hi[k])
				return 1;
		return 0;
	}
	return 0;
}

int pystacks_gil_wait(struct pystacks *ps, uint32_t pid, const uint64_t *ips,
		      size_t n)
{
	struct pyp *p = pyp_find(ps, pid, false);

	if (!p || p->state != P_PYTHON)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = i ? ips[i] - 1 : ips[0];

		for (int k = 0; k < PY_GIL_FUNCS; k++)
			if (a >= p->pp.gil_start[k] && a < p->pp.gil_end[k])
				return 1;
	}
	return p->pp.gil_start[0] ? 0 : gil_condwait(p, ips, n);
}
