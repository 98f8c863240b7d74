/*
 * The allocation sites of a heap report as a profile: every site's return
 * addresses symbolized with the program's memory maps (the texts of
 * /proc/PID/maps the agent sent whenever new code was loaded), and a
 * CPython program's interpreter frames replaced by its Python frames.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap/analyze.h"
#include "heap/collect.h"
#include "heap/sitepath.h"
#include "profile/pystacks.h"
#include "profile/python_proc.h"
#include "profile/rawstacks.h"
#include "util/hashmap.h"
#include "util/strutil.h"

#define MAX_INLINE 16

/* The interpreter's frame that each run of Python frames replaces. */
#define PY_EVAL_FRAME "_PyEval_EvalFrameDefault"

/* The Python code objects of a trace, by program image and id. */
struct pycodes {
	const struct heap_report *r;
	struct hashidx ix;	/* index into r->pycodes + 1 */
	char **file, **name;	/* NUL-terminated copies */
	/* the profile frame of each Python frame word seen (its line and
	 * code: the word without HEAP_PY_END), so that a word repeated in
	 * many sites is named and interned once */
	struct hashidx seen;	/* index into memo + 1 */
	struct py_memo {
		uint64_t word;
		uint32_t gen, id;
	} *memo;
	size_t nmemo, capmemo;
	/* and per node of the store's Python trie: its frame's id for
	 * image node_gen[node] - 1 (0: none yet), so that most sites' frames
	 * are known without a look-up (NULL: each frame looked up, the
	 * reference heap_profile_by_frame) */
	uint32_t *node_id, *node_gen;
	size_t nnodes;
};

/*
 * What the rules below ask of a profile frame, worked out once per frame
 * id rather than with string compares on each of its appearances (a
 * libtorch program's report has hundreds of thousands of sites, each
 * dozens of frames deep).
 */
enum {
	FACT_KNOWN = 1,		/* the rest is worked out */
	FACT_EVAL = 2,		/* eval_frame */
	FACT_UNNAMED = 4,	/* interp_unnamed */
	FACT_AGENT = 8,		/* in the agent's module */
};

struct facts {
	uint8_t *kind;
	uint32_t *interp;	/* FACT_UNNAMED: its [CPython interpreter]
				 * frame's id + 1, 0 until named */
	size_t n;
	/* the interpreters' files the maps name, and where the cold part
	 * of each one's evaluation function lies (elfcold.h), read the
	 * first time a frame of the module asks */
	struct interp_file {
		char *base, *path;
		bool read;
		uint64_t lo, hi;	/* file addresses; 0, 0: none */
	} *files;
	size_t nfiles, capfiles;
};

static uint64_t pycode_hash(uint32_t gen, uint32_t id)
{
	uint64_t k = ((uint64_t)gen << 32 | id) * 0x9e3779b97f4a7c15u;

	return k ^ (k >> 29);
}

static void pycodes_init(struct pycodes *c, const struct heap_report *r,
			 bool by_frame)
{
	size_t native, python;

	memset(c, 0, sizeof(*c));
	c->r = r;
	if (!by_frame) {
		stackstore_nodes(r->stacks, &native, &python);
		c->nnodes = python + 1;
		c->node_id = xcalloc(c->nnodes, sizeof(*c->node_id));
		c->node_gen = xcalloc(c->nnodes, sizeof(*c->node_gen));
	}
	hashidx_init(&c->ix);
	hashidx_init(&c->seen);
	c->file = xcalloc(r->npycodes + 1, sizeof(char *));
	c->name = xcalloc(r->npycodes + 1, sizeof(char *));
	for (size_t i = 0; i < r->npycodes; i++) {
		const struct heap_pycode *pc = &r->pycodes[i];

		const char *base;

		c->file[i] = xstrndup(pc->file, pc->file_len);
		base = strrchr(c->file[i], '/');
		c->name[i] = xasprintf("%.*s (%s:%d)", (int)pc->name_len,
				       pc->name, base ? base + 1 : c->file[i],
				       pc->firstlineno);
		hashidx_add(&c->ix, pycode_hash(pc->gen, pc->id), i + 1);
	}
}

static void pycodes_free(struct pycodes *c)
{
	for (size_t i = 0; i < c->r->npycodes; i++) {
		free(c->file[i]);
		free(c->name[i]);
	}
	free(c->file);
	free(c->name);
	hashidx_free(&c->ix);
	hashidx_free(&c->seen);
	free(c->memo);
	free(c->node_id);
	free(c->node_gen);
}

/* The profile frame of Python frame word f (protocol.h) of image gen,
 * named the first time. */
static uint32_t py_frame(struct profile *p, struct pycodes *c, uint32_t gen,
			 uint64_t f)
{
	uint32_t id = HEAP_PY_CODE(f);
	uint64_t word = f & ~HEAP_PY_END;
	uint64_t h = pycode_hash(gen, id) ^ hash_u64(word);
	struct frame fr = { .function = "[unknown python code]",
			    .module = PYSTACKS_MODULE,
			    .line = (int)HEAP_PY_LINE(f) };
	struct py_memo *m;
	size_t pos;

	for (uint64_t v = hashidx_first(&c->seen, h, &pos); v;
	     v = hashidx_next(&c->seen, h, &pos)) {
		m = &c->memo[v - 1];
		if (m->word == word && m->gen == gen)
			return m->id;
	}
	for (uint64_t v = hashidx_first(&c->ix, pycode_hash(gen, id), &pos);
	     v; v = hashidx_next(&c->ix, pycode_hash(gen, id), &pos)) {
		const struct heap_pycode *pc = &c->r->pycodes[v - 1];

		if (pc->gen == gen && pc->id == id) {
			fr.function = c->name[v - 1];
			fr.file = c->file[v - 1];
			break;
		}
	}
	c->memo = xgrow(c->memo, &c->capmemo, c->nmemo + 1, sizeof(*c->memo));
	m = &c->memo[c->nmemo++];
	*m = (struct py_memo){ .word = word, .gen = gen,
			       .id = profile_frame(p, &fr) };
	hashidx_add(&c->seen, h, c->nmemo);
	return m->id;
}

bool heap_root_frame(const char *function)
{
	static const char *const names[] = {
		"__libc_start_call_main", "__libc_start_main", "_start",
		"start_thread", "clone3", "clone", "__clone3", "__clone",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (function && !strcmp(function, names[i]))
			return true;
	return false;
}

static bool eval_frame(const struct profile *p, uint32_t id)
{
	const struct frame *f = &p->frames[id];

	size_t n = strlen(PY_EVAL_FRAME);

	/* or its cold part (elfcold.h) where a symbol table names it as
	 * GCC does: "_PyEval_EvalFrameDefault.cold" (".cold.N" of old) */
	return !f->inlined && f->function &&
	       !strncmp(f->function, PY_EVAL_FRAME, n) &&
	       (!f->function[n] || !strncmp(f->function + n, ".cold", 5));
}

/* Whether frame id is the interpreter's own code that no symbol names
 * (a stripped python3's static functions): "[unknown]", or
 * "python3.11+0x5cfad0", in a python3.X or libpython3.X module. */
static bool interp_unnamed(const struct profile *p, uint32_t id)
{
	const struct frame *f = &p->frames[id];
	const char *m = f->module, *fn = f->function;
	size_t len;

	if (f->inlined || !m || !fn ||
	    (strncmp(m, "python", 6) && strncmp(m, "libpython", 9)))
		return false;
	len = strlen(m);
	return !strcmp(fn, "[unknown]") || !strncmp(fn, "[unknown in ", 12) ||
	       (!strncmp(fn, m, len) && !strncmp(fn + len, "+0x", 3));
}

/* Note the interpreters' files among the mappings of a maps text. */
static void note_interps(struct facts *x, const char *text)
{
	for (const char *line = text; *line; ) {
		size_t len = strcspn(line, "\n");
		const char *path = memchr(line, '/', len);

		if (path) {
			size_t plen = len - (size_t)(path - line);
			char *full = xstrndup(path, plen);
			const char *base = strrchr(full, '/') + 1;
			bool seen = false;

			for (size_t i = 0; i < x->nfiles && !seen; i++)
				seen = !strcmp(x->files[i].path, full);
			if (!seen && (!strncmp(base, "python", 6) ||
				      !strncmp(base, "libpython", 9))) {
				x->files = xgrow(x->files, &x->capfiles,
						 x->nfiles + 1,
						 sizeof(*x->files));
				x->files[x->nfiles++] = (struct interp_file){
					.base = xstrdup(base), .path = full };
				full = NULL;
			}
			free(full);
		}
		line += len;
		if (*line == '\n')
			line++;
	}
}

/*
 * Whether frame id, the interpreter's unnamed code at "MODULE+0xSTART",
 * is its evaluation function's cold part: the function it stands for,
 * run in that function's frame (elfcold.h; the error paths an exception
 * takes run there).
 */
static bool eval_cold(struct facts *x, const struct profile *p, uint32_t id)
{
	const struct frame *f = &p->frames[id];
	size_t len = strlen(f->module);
	unsigned long long at;
	char *end;

	if (strncmp(f->function, f->module, len) ||
	    strncmp(f->function + len, "+0x", 3))
		return false;
	at = strtoull(f->function + len + 3, &end, 16);
	if (*end)
		return false;
	for (size_t i = 0; i < x->nfiles; i++) {
		struct interp_file *file = &x->files[i];

		if (strcmp(file->base, f->module))
			continue;
		if (!file->read) {
			file->read = true;
			if (py_eval_cold(file->path, &file->lo, &file->hi))
				file->lo = file->hi = 0;
		}
		if (at >= file->lo && at < file->hi)
			return true;
	}
	return false;
}

static __attribute__((noinline)) uint8_t fact_of(struct facts *x,
						     const struct profile *p,
						     uint32_t id)
{
	const char *m;

	if (id >= x->n) {
		size_t n = p->nframes > id ? p->nframes : (size_t)id + 1;

		x->kind = xrealloc(x->kind, n * sizeof(*x->kind));
		x->interp = xrealloc(x->interp, n * sizeof(*x->interp));
		memset(x->kind + x->n, 0, (n - x->n) * sizeof(*x->kind));
		memset(x->interp + x->n, 0, (n - x->n) * sizeof(*x->interp));
		x->n = n;
	}
	if (!(x->kind[id] & FACT_KNOWN)) {
		bool unnamed = interp_unnamed(p, id);

		m = p->frames[id].module;
		x->kind[id] = FACT_KNOWN |
			      (eval_frame(p, id) ||
			       (unnamed && eval_cold(x, p, id)) ? FACT_EVAL : 0) |
			      (unnamed ? FACT_UNNAMED : 0) |
			      (m && !strcmp(m, HEAP_AGENT_NAME) ? FACT_AGENT : 0);
	}
	return x->kind[id];
}

static inline uint8_t fact(struct facts *x, const struct profile *p,
			   uint32_t id)
{
	return id < x->n && x->kind[id] ? x->kind[id] : fact_of(x, p, id);
}

/* A site's Python frames, written out of the store (heap_report.stacks)
 * into heap_profile's buffers: leaf first, innermost first, with their
 * nodes, and their ids once py_ids has named them. */
struct site_frames {
	const uint64_t *py;
	const uint32_t *pynode;
	uint32_t *pyid;
	uint32_t npy, gen;
};

/* s's Python frame words and nodes out of the store. */
static void py_words(const struct stackstore *st, const struct stack_ref *s,
		     uint64_t *py, uint32_t *pynode)
{
	uint32_t node = s->python;

	for (uint32_t g = 0; g < s->npy; g++) {
		pynode[g] = node;
		py[g] = stackstore_python_node(st, node, &node);
	}
	assert(node == 0);
}

/*
 * The profile frames of all of s's Python frames into s->pyid, in their
 * order (py_frame's, when with_python used to name each as it put it in:
 * the profile's frames are interned in the same order), each node's
 * remembered for the next site through it.
 */
static void py_ids(struct profile *p, struct pycodes *c,
		   const struct site_frames *s)
{
	for (uint32_t g = 0; g < s->npy; g++) {
		uint32_t node = s->pynode[g];

		if (!c->node_id) {
			s->pyid[g] = py_frame(p, c, s->gen, s->py[g]);
			continue;
		}
		assert(node < c->nnodes);
		if (c->node_gen[node] != s->gen + 1) {
			c->node_id[node] = py_frame(p, c, s->gen, s->py[g]);
			c->node_gen[node] = s->gen + 1;
		}
		s->pyid[g] = c->node_id[node];
	}
}

/*
 * with_python for Python frames cut at HEAP_PY_MAX: the complete groups
 * at the innermost evaluation frames, the last frames at the evaluation
 * they belong to, and there the stack ends with a [truncated] frame (the
 * outer Python frames and the native frames further out are not known:
 * the native root under the innermost frames would be a false one).
 */
static size_t with_python_torn(struct profile *p, struct pycodes *c,
			       struct facts *x, const struct site_frames *s,
			       const uint32_t *ids, size_t n, uint32_t *out)
{
	size_t k = 0, g = 0;

	py_ids(p, c, s);
	for (size_t i = 0; i < n; i++) {
		if (!(fact(x, p, ids[i]) & FACT_EVAL)) {
			out[k++] = ids[i];
			continue;
		}
		while (g < s->npy) {
			uint64_t w = s->py[g];

			out[k++] = s->pyid[g++];
			if (w & HEAP_PY_END)
				break;
		}
		if (g == s->npy)
			break;
	}
	out[k++] = profile_frame(p, &(struct frame){
		.function = SYMTAB_TRUNCATED, .module = SYMTAB_TRUNCATED });
	return k;
}

/*
 * The native frame ids[0..n) with s's Python frames in place of the
 * interpreter's (leaf first), into out (room for n + s->npy); cut: the
 * native stack was cut at the depth limit, its outer end missing (it is
 * too when the walk stopped before a root frame: a frame-pointer walk
 * through code built without them). 0 when they do not fit
 * (heap_profile's comment in analyze.h).
 */
static size_t with_python(struct profile *p, struct pycodes *c,
			  struct facts *x, const struct site_frames *s,
			  const uint32_t *ids, size_t n, bool cut,
			  uint32_t *out)
{
	size_t k = 0, g = 0, evals = 0, groups = 0;
	/* a recursion deeper than HEAP_PY_MAX: its innermost frames, the
	 * last of them not an evaluation's outermost */
	bool torn = s->npy && !(s->py[s->npy - 1] & HEAP_PY_END);

	if (n && !heap_root_frame(p->frames[ids[n - 1]].function))
		cut = true;

	for (size_t i = 0; i < n; i++)
		evals += (fact(x, p, ids[i]) & FACT_EVAL) != 0;
	for (size_t i = 0; i < s->npy; i++)
		groups += (s->py[i] & HEAP_PY_END) != 0;
	if (torn)
		return evals > groups ? with_python_torn(p, c, x, s, ids, n,
							 out) : 0;
	if (evals > groups || (evals < groups && !cut))
		return 0;
	py_ids(p, c, s);
	for (size_t i = 0; i < n; i++) {
		if (g >= s->npy || !(fact(x, p, ids[i]) & FACT_EVAL)) {
			out[k++] = ids[i];
			continue;
		}
		do
			out[k++] = s->pyid[g];
		while (!(s->py[g++] & HEAP_PY_END) && g < s->npy);
	}
	while (g < s->npy)
		out[k++] = s->pyid[g++];
	return k;
}

static const struct sample_type heap_types[HEAP_NTYPES] = {
	[HEAP_T_ALLOC_OBJECTS] = { "alloc_objects", "count" },
	[HEAP_T_ALLOC_SPACE] = { "alloc_space", "bytes" },
	[HEAP_T_INUSE_OBJECTS] = { "inuse_objects", "count" },
	[HEAP_T_INUSE_SPACE] = { "inuse_space", "bytes" },
	[HEAP_T_TEMPORARY] = { "temporary_objects", "count" },
	[HEAP_T_PEAK_SPACE] = { "peak_space", "bytes" },
	[HEAP_T_PYEND_SPACE] = { "python_end_space", "bytes" },
};

/* Feed the executable mappings of one maps text to the symtab. */
static void load_maps(struct symtab *sym, uint32_t pid, const char *text)
{
	const char *line = text;

	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[4096 + 256], perms[8];
		unsigned long long start, stop, off, inode;
		int path_at = 0;

		if (len < sizeof(buf)) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			if (sscanf(buf, "%llx-%llx %7s %llx %*s %llu %n", &start,
				   &stop, perms, &off, &inode, &path_at) == 5 &&
			    path_at && perms[2] == 'x' && buf[path_at] == '/')
				symtab_mmap(sym, pid, start, stop - start, off,
					    buf + path_at);
		}
		line += len;
		if (*line == '\n')
			line++;
	}
}

/*
 * The one naming rule of record's (pystacks.h, PYSTACKS_INTERP), in place
 * over ids[0..n): in a stack with Python frames the interpreter's unnamed
 * code is left out (its bytes the Python frame's that runs it); in a
 * native stack each run of it is one [CPython interpreter] frame. The
 * new length.
 */
static size_t name_interp(struct profile *p, struct facts *x, uint32_t *ids,
			  size_t n, bool python)
{
	size_t k = 0;
	bool run = false;

	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		bool unnamed = (fact(x, p, id) & FACT_UNNAMED) != 0;

		if (unnamed && (python || run))
			continue;
		run = unnamed;
		if (unnamed && !x->interp[id])
			x->interp[id] = 1 + profile_frame(p, &(struct frame){
				.function = PYSTACKS_INTERP,
				.module = p->frames[id].module });
		ids[k++] = unnamed ? x->interp[id] - 1 : id;
	}
	return k;
}

/*
 * ids[0..n) without the agent's frames, in place; the new length. The
 * agent leaves its own leading frames out as it walks; one of its
 * functions that the program calls and that calls on into code that
 * allocates (its pthread_getattr_np, agent_first.h) would be in the
 * middle of the stack, where the program's caller called glibc's.
 */
static size_t drop_agent(const struct profile *p, struct facts *x,
			 uint32_t *ids, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!(fact(x, p, ids[i]) & FACT_AGENT))
			ids[k++] = ids[i];
	return k;
}

/*
 * The symtab ids the sites' addresses are read with: each image's
 * mappings as its maps texts of one count of unloads give them
 * (protocol.h), sorted by image and unloads. An image whose library was
 * unloaded and another loaded at its addresses has the stacks of before
 * read with the mappings of before, under symtab_keep's id (as record
 * keeps a process's mappings when a file is mapped over another's), and
 * those of after with its own number as the pid.
 */
struct maps_ids {
	struct maps_id {
		uint32_t gen, unloads, id;
	} *v;
	size_t n, cap;
};

/* A maps text's place: its image, its unloads, its number (as it came). */
struct text_key {
	uint32_t gen, unloads;
	size_t i;
};

/* Texts by image, then unloads, then as they came. */
static int text_cmp(const void *a, const void *b)
{
	const struct text_key *x = a, *y = b;

	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	if (x->unloads != y->unloads)
		return x->unloads < y->unloads ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static void maps_id_add(struct maps_ids *m, uint32_t gen, uint32_t unloads,
			uint32_t id)
{
	m->v = xgrow(m->v, &m->cap, m->n + 1, sizeof(*m->v));
	m->v[m->n++] = (struct maps_id){ gen, unloads, id };
}

/* Each image's texts into sym, an id per count of unloads into m. */
static void load_texts(struct symtab *sym, const struct heap_trace *t,
		       struct facts *x, struct maps_ids *m)
{
	struct text_key *order = xmalloc((t->nmaps + 1) * sizeof(*order));

	for (size_t i = 0; i < t->nmaps; i++)
		order[i] = (struct text_key){
			t->maps_gen[i],
			t->maps_unloads ? t->maps_unloads[i] : 0, i };
	qsort(order, t->nmaps, sizeof(*order), text_cmp);
	for (size_t k = 0; k < t->nmaps; k++) {
		uint32_t gen = order[k].gen, u = order[k].unloads;
		bool next = k + 1 < t->nmaps && order[k + 1].gen == gen;

		load_maps(sym, gen, t->maps[order[k].i]);
		note_interps(x, t->maps[order[k].i]);
		if (next && order[k + 1].unloads == u)
			continue;
		/* the last text of these unloads: the mappings so far are
		 * theirs, kept apart if more unloads follow, whose texts
		 * then start from nothing (each one all of the image's) */
		if (next) {
			maps_id_add(m, gen, u, symtab_keep(sym, gen));
			symtab_exec(sym, gen);
		} else {
			maps_id_add(m, gen, u, gen);
		}
	}
	free(order);
}

/* The id site s's addresses are read with: its image's mappings of its
 * unloads, else of the most unloads below, else of the fewest (a text
 * lost), else the image's number (no text). */
static uint32_t maps_id_of(const struct maps_ids *m,
			   const struct heap_site *s)
{
	size_t lo = 0, hi = m->n;

	/* the first entry above (gen, unloads) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct maps_id *e = &m->v[mid];

		if (e->gen < s->gen ||
		    (e->gen == s->gen && e->unloads <= s->unloads))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && m->v[lo - 1].gen == s->gen)
		return m->v[lo - 1].id;
	if (lo < m->n && m->v[lo].gen == s->gen)
		return m->v[lo].id;
	return s->gen;
}

static int64_t round_value(double v)
{
	return (int64_t)(v + 0.5);
}

/* heap_profile's buffers: a site's frames, written out of the store,
 * and their ids (ids: room for max, pyids: max + the most Python frames
 * of a site + 1; py, pynode, pyid: the most Python frames + 1). */
struct site_bufs {
	uint64_t *ips, *py;
	uint32_t *pynode, *pyid;
	uint32_t *ids, *pyids;
	size_t max;
};

/* What heap_profile reads the sites with. */
struct site_ctx {
	struct profile *p;
	struct stackframes *c;
	struct sitepath *path;	/* NULL: every frame looked up */
	struct pycodes *pc;
	struct facts *x;
	const struct maps_ids *m;
	const struct stackstore *st;
	struct site_bufs b;
};

/* The ids of s's native frames read with maps id pid into ids. */
static size_t native_ids(struct site_ctx *sc, uint32_t pid,
			 const struct heap_site *s, uint32_t *ids)
{
	size_t depth = sc->path ? sitepath_ids(sc->path, sc->p, pid,
					       &s->stack, ids)
				: 0;

	if (depth)
		return depth;
	stackstore_native(sc->st, &s->stack, sc->b.ips);
	return stackframes_ids(sc->c, pid, sc->b.ips, s->stack.depth, true, 1,
			       ids, sc->b.max);
}

static void add_site(struct site_ctx *sc, const struct heap_site *s,
		     bool cut, size_t *mismatched)
{
	struct profile *p = sc->p;
	struct facts *x = sc->x;
	struct site_bufs *b = &sc->b;
	struct site_frames f = { b->py, b->pynode, b->pyid, s->stack.npy,
				 s->gen };
	uint32_t *ids = b->ids;
	int64_t v[HEAP_NTYPES];
	size_t depth;

	v[HEAP_T_ALLOC_OBJECTS] = round_value(s->allocations);
	v[HEAP_T_ALLOC_SPACE] = round_value(s->bytes);
	v[HEAP_T_INUSE_OBJECTS] = round_value(s->leaked_blocks);
	v[HEAP_T_INUSE_SPACE] = round_value(s->leaked_bytes);
	v[HEAP_T_TEMPORARY] = round_value(s->temporary);
	v[HEAP_T_PEAK_SPACE] = round_value(s->peak_bytes);
	v[HEAP_T_PYEND_SPACE] = round_value(s->pyend_bytes);
	depth = native_ids(sc, maps_id_of(sc->m, s), s, ids);
	depth = drop_agent(p, x, ids, depth);
	if (f.npy) {
		size_t k;

		py_words(sc->st, &s->stack, b->py, b->pynode);
		k = with_python(p, sc->pc, x, &f, ids, depth, cut, b->pyids);

		if (k) {
			depth = k;
			ids = b->pyids;
		} else {
			(*mismatched)++;
		}
	}
	depth = name_interp(p, x, ids, depth, ids == b->pyids);
	profile_add(p, ids, depth, v);
}

/* Each image's mappings into sym: a forked child's its forebear's, and
 * each image's own under its number (load_texts). */
static void load_all_maps(struct symtab *sym, const struct heap_trace *t,
			  struct facts *x, struct maps_ids *m)
{
	/* a forked child's image has its parent's mappings (its stacks may
	 * be ones its parent walked and sent): the nearest forebear's that
	 * sent any, first */
	for (uint32_t g = 1; g < t->nimages; g++) {
		uint32_t a = g;
		bool found = false;

		for (int hops = 0; !found && hops < 64 && t->images[a].parent &&
		     t->images[a].parent < a; hops++) {
			a = t->images[a].parent;
			for (size_t i = 0; i < t->nmaps; i++)
				if (t->maps_gen[i] == a) {
					load_maps(sym, g, t->maps[i]);
					found = true;
				}
		}
	}
	/* each program image's mappings under its own number as its pid
	 * (those before an unload under ids of their own) */
	load_texts(sym, t, x, m);
}

/* heap_profile, the sites' frames read through their paths (sitepath.h,
 * the Python trie's memo) or, by_frame, each looked up (the reference). */
static void profile_sites(const struct heap_trace *t, struct heap_report *r,
			  bool lines, const char *cache_dir, struct profile *p,
			  bool by_frame)
{
	struct symtab *sym = symtab_new(lines);
	struct site_ctx sc = { .p = p, .b = { .max = HEAP_MAX_DEPTH *
						      MAX_INLINE } };
	struct site_bufs *b = &sc.b;
	uint32_t depth = 0, npy = 0;
	struct facts x = { 0 };
	struct maps_ids m = { 0 };
	struct pycodes pc;

	symtab_use_cache(sym, cache_dir);
	/* the Python end's type only for a program that had one: the
	 * profile of any other is as before it was added */
	profile_init(p, heap_types, r->py_ends ? HEAP_NTYPES
					     : HEAP_NTYPES - 1);
	load_all_maps(sym, t, &x, &m);
	pycodes_init(&pc, r, by_frame);
	r->py_mismatched = 0;
	/* a damaged trace's stacks may be deeper than the agent's limits */
	for (size_t i = 0; i < r->nsites; i++) {
		if (r->sites[i].stack.depth > depth)
			depth = r->sites[i].stack.depth;
		if (r->sites[i].stack.npy > npy)
			npy = r->sites[i].stack.npy;
	}
	sc.c = stackframes_new(sym, p, MAX_INLINE);
	if (!by_frame)
		sc.path = sitepath_new(r->stacks, sc.c, depth, b->max);
	sc.pc = &pc;
	sc.x = &x;
	sc.m = &m;
	sc.st = r->stacks;
	b->ips = xmalloc((depth + 1) * sizeof(*b->ips));
	b->py = xmalloc((npy + 1) * sizeof(*b->py));
	b->pynode = xmalloc((npy + 1) * sizeof(*b->pynode));
	b->pyid = xmalloc((npy + 1) * sizeof(*b->pyid));
	b->ids = xmalloc(b->max * sizeof(*b->ids));
	b->pyids = xmalloc((b->max + npy + 1) * sizeof(*b->pyids));
	for (size_t i = 0; i < r->nsites; i++)
		if (heap_site_counted(r, &r->sites[i]))
			add_site(&sc, &r->sites[i],
				 r->sites[i].stack.depth >= t->max_depth,
				 &r->py_mismatched);
	pycodes_free(&pc);
	free(x.kind);
	free(x.interp);
	for (size_t i = 0; i < x.nfiles; i++) {
		free(x.files[i].base);
		free(x.files[i].path);
	}
	free(x.files);
	free(m.v);
	sitepath_free(sc.path);
	stackframes_free(sc.c);
	p->duration_ns = (int64_t)(t->duration * 1e9);
	free(b->ips);
	free(b->py);
	free(b->pynode);
	free(b->pyid);
	free(b->ids);
	free(b->pyids);
	symtab_free(sym);
}

void heap_profile(const struct heap_trace *t, struct heap_report *r,
		  bool lines, const char *cache_dir, struct profile *p)
{
	profile_sites(t, r, lines, cache_dir, p, false);
}

void heap_profile_by_frame(const struct heap_trace *t,
			   struct heap_report *r, bool lines,
			   const char *cache_dir, struct profile *p)
{
	profile_sites(t, r, lines, cache_dir, p, true);
}
