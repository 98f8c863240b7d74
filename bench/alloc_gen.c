/*
 * alloc_gen: allocation patterns made from a seed, each with its own
 * truth. A new pattern is one seed away: the seed picks the threads
 * (1-4), the calls per thread, the lifetime (a window of 1 to 8192
 * blocks, each call replacing a random one of them: 1 is all
 * temporaries), the sizes (four distributions, 8 bytes to 64 KiB), the
 * share of calls that grow or shrink a block by realloc (0-50%), the
 * allocation sites (2-16 functions) and the depth of the call under
 * them (0 to 12 extra frames). Built plainly, like a user's program.
 *
 *   alloc_gen SEED [SCALE [TRUTH]]
 *
 * SCALE multiplies the calls (default 1: 25,000 to 100,000 per thread).
 * The program prints what it did (TRUTH, or stdout), its own
 * allocations only (not the C library's):
 *
 *   pattern SEED threads T calls N window W sizes LO-HI realloc R% sites S depth 0-D
 *   total allocations A bytes B temporary T peak P leaked_blocks L leaked_bytes LB
 *   stack SITE DEPTH allocations A bytes B temporary T peak P leaked_blocks L leaked_bytes LB
 *
 * one "stack" line per stack (SITE the function that called malloc or
 * realloc, DEPTH the frames of `descend` under it). "peak" is what was
 * live at the heap's peak, which the program makes exact whatever the
 * threads' interleaving: half way through, each thread allocates a
 * block larger than every window's largest content together (at site
 * `peak_block`), waits at a barrier for the others, waits 2 ms, then
 * frees it first thing: the heap is at its largest while all of those
 * blocks are live, and at that moment every thread is standing still.
 * A temporary is a block freed (or realloc'd) by its thread before the
 * thread allocated or freed anything else. At the end each thread frees
 * its window except a quarter of it: those are the leaks.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SITES 16
#define MAX_DEPTH 13
#define MAX_THREADS 4

struct pattern {
	unsigned long long seed;
	int threads, sites, max_depth, realloc_pct;
	long calls;
	long window;
	int sizes;		/* size distribution, below */
};

/* The truth of one stack (site, depth). */
struct truth {
	long long allocations, bytes, temporary, peak, leaked_blocks,
		  leaked_bytes;
};

struct block {
	void *p;
	size_t size;
	int site, depth;
};

struct thread {
	const struct pattern *pat;
	int id;
	uint64_t rng;
	struct block *live;
	const void *last;	/* the thread's last event: an allocation of
				 * this block (NULL: a free, or none yet) */
	struct truth stacks[MAX_SITES][MAX_DEPTH];
	struct truth peak_stack;
	long long peak_live[MAX_SITES][MAX_DEPTH];
};

static pthread_barrier_t barrier;
/* the threads' windows: not on the heap, so that the program's only
 * allocations are the pattern's */
static struct block windows[MAX_THREADS][8192];
static size_t big_block;

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static const struct {
	size_t lo, hi;
	int log;		/* log-uniform rather than uniform */
} size_dist[4] = {
	{ 16, 271, 0 }, { 16, 1039, 0 }, { 8, 65536, 1 }, { 24, 88, 0 },
};

static size_t pick_size(const struct pattern *pt, uint64_t *x)
{
	size_t lo = size_dist[pt->sizes].lo, hi = size_dist[pt->sizes].hi;
	uint64_t r = splitmix(x);

	if (!size_dist[pt->sizes].log)
		return lo + r % (hi - lo + 1);
	/* log-uniform: a power of two between, then uniform within it */
	int bits = 3 + (int)(r % 14);	/* 8 .. 65536 */
	size_t base = (size_t)1 << bits;

	return base + (r >> 8) % base > hi ? hi : base + (r >> 8) % base;
}

/* One call at a site: malloc (old NULL) or realloc. The macro keeps the
 * call in the site's own function (no inlined helper frame). */
struct op {
	void *old;
	size_t size;
	void *ret;
};

#define SITE(n)								\
	static __attribute__((noipa)) void site_##n(struct op *o)	\
	{								\
		o->ret = o->old ? realloc(o->old, o->size)		\
				: malloc(o->size);			\
		__asm__ volatile("" ::: "memory");			\
	}
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7)
SITE(8) SITE(9) SITE(10) SITE(11) SITE(12) SITE(13) SITE(14) SITE(15)

static void (*const sites[MAX_SITES])(struct op *) = {
	site_0, site_1, site_2, site_3, site_4, site_5, site_6, site_7,
	site_8, site_9, site_10, site_11, site_12, site_13, site_14, site_15,
};

static __attribute__((noipa)) void descend(int d, int s, struct op *o)
{
	if (d > 0)
		descend(d - 1, s, o);
	else
		sites[s](o);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

static __attribute__((noipa)) void *peak_block(size_t n)
{
	void *p = malloc(n);

	__asm__ volatile("" ::: "memory");
	return p;
}

static void die(const char *what)
{
	fprintf(stderr, "alloc_gen: %s\n", what);
	exit(2);
}

/* The free (or realloc's free) of b: a temporary if it was the thread's
 * last allocation. */
static void note_free(struct thread *t, const struct block *b)
{
	if (t->last == b->p)
		t->stacks[b->site][b->depth].temporary++;
	t->last = NULL;
}

static void note_alloc(struct thread *t, struct block *b)
{
	struct truth *s = &t->stacks[b->site][b->depth];

	s->allocations++;
	s->bytes += (long long)b->size;
	t->last = b->p;
}

static void one_call(struct thread *t)
{
	const struct pattern *pt = t->pat;
	uint64_t r = splitmix(&t->rng);
	struct block *b = &t->live[r % (uint64_t)pt->window];
	struct op o = { NULL, pick_size(pt, &t->rng), NULL };
	int site = (int)((r >> 32) % (uint64_t)pt->sites);
	int depth = (int)((r >> 40) % (uint64_t)(pt->max_depth + 1));

	if (b->p && (int)((r >> 48) % 100) < pt->realloc_pct) {
		o.old = b->p;
		note_free(t, b);
	} else if (b->p) {
		note_free(t, b);
		free(b->p);
	}
	descend(depth, site, &o);
	if (!o.ret)
		die("out of memory");
	*(volatile char *)o.ret = 1;
	b->p = o.ret;
	b->size = o.size;
	b->site = site;
	b->depth = depth;
	note_alloc(t, b);
}

/* The peak: every thread's big block live, every thread standing. */
static void peak_phase(struct thread *t)
{
	struct timespec pause = { 0, 2000000 };
	void *big = peak_block(big_block);

	if (!big)
		die("out of memory");
	*(volatile char *)big = 1;
	t->last = big;
	t->peak_stack.allocations++;
	t->peak_stack.bytes += (long long)big_block;
	for (long k = 0; k < t->pat->window; k++)
		if (t->live[k].p)
			t->peak_live[t->live[k].site][t->live[k].depth] +=
				(long long)t->live[k].size;
	pthread_barrier_wait(&barrier);
	nanosleep(&pause, NULL);
	/* the big block was this thread's last event: a temporary */
	t->peak_stack.temporary++;
	t->last = NULL;
	free(big);
}

static void *thread_main(void *arg)
{
	struct thread *t = arg;
	const struct pattern *pt = t->pat;
	long keep = pt->window / 4;

	for (long i = 0; i < pt->calls; i++) {
		if (i == pt->calls / 2)
			peak_phase(t);
		one_call(t);
	}
	/* the window freed but for a quarter of it: the leaks */
	for (long k = keep; k < pt->window; k++) {
		struct block *b = &t->live[k];

		if (!b->p)
			continue;
		note_free(t, b);
		free(b->p);
		b->p = NULL;
	}
	for (long k = 0; k < keep; k++) {
		struct block *b = &t->live[k];
		struct truth *s = &t->stacks[b->site][b->depth];

		if (!b->p)
			continue;
		s->leaked_blocks++;
		s->leaked_bytes += (long long)b->size;
	}
	return NULL;
}

static void make_pattern(struct pattern *pt, unsigned long long seed,
			 long scale)
{
	static const long lifetimes[] = { 1, 4, 64, 1024, 8192 };
	static const int reallocs[] = { 0, 5, 20, 50 };
	static const int depths[] = { 0, 3, 12 };
	uint64_t x = seed;

	pt->seed = seed;
	pt->threads = 1 + (int)(splitmix(&x) % MAX_THREADS);
	pt->calls = scale * 25000 * (long)(1 + splitmix(&x) % 4);
	pt->window = lifetimes[splitmix(&x) % 5];
	pt->sizes = (int)(splitmix(&x) % 4);
	pt->realloc_pct = reallocs[splitmix(&x) % 4];
	pt->sites = 2 + (int)(splitmix(&x) % (MAX_SITES - 1));
	pt->max_depth = depths[splitmix(&x) % 3];
}

static void add(struct truth *to, const struct truth *from)
{
	to->allocations += from->allocations;
	to->bytes += from->bytes;
	to->temporary += from->temporary;
	to->peak += from->peak;
	to->leaked_blocks += from->leaked_blocks;
	to->leaked_bytes += from->leaked_bytes;
}

static void print_truth(FILE *f, const char *what, const struct truth *s)
{
	fprintf(f, "%s allocations %lld bytes %lld temporary %lld peak %lld "
		"leaked_blocks %lld leaked_bytes %lld\n", what,
		s->allocations, s->bytes, s->temporary, s->peak,
		s->leaked_blocks, s->leaked_bytes);
}

static void report(FILE *f, const struct pattern *pt, struct thread *th)
{
	struct truth total = { 0 }, peak = { 0 };
	char what[64];

	fprintf(f, "pattern %llu threads %d calls %ld window %ld sizes "
		"%zu-%zu realloc %d%% sites %d depth 0-%d\n", pt->seed,
		pt->threads, pt->calls, pt->window, size_dist[pt->sizes].lo,
		size_dist[pt->sizes].hi, pt->realloc_pct, pt->sites,
		pt->max_depth);
	for (int i = 0; i < pt->threads; i++) {
		th[i].peak_stack.peak = (long long)big_block;
		add(&peak, &th[i].peak_stack);
		for (int s = 0; s < MAX_SITES; s++)
			for (int d = 0; d < MAX_DEPTH; d++)
				th[i].stacks[s][d].peak =
					th[i].peak_live[s][d];
	}
	add(&total, &peak);
	for (int s = 0; s < pt->sites; s++)
		for (int d = 0; d <= pt->max_depth; d++) {
			struct truth st = { 0 };

			for (int i = 0; i < pt->threads; i++)
				add(&st, &th[i].stacks[s][d]);
			add(&total, &st);
		}
	print_truth(f, "total", &total);
	print_truth(f, "stack peak_block 0", &peak);
	for (int s = 0; s < pt->sites; s++)
		for (int d = 0; d <= pt->max_depth; d++) {
			struct truth st = { 0 };

			for (int i = 0; i < pt->threads; i++)
				add(&st, &th[i].stacks[s][d]);
			if (!st.allocations)
				continue;
			/* DEPTH: frames of descend, the call at depth d
			 * going through d + 1 of them */
			snprintf(what, sizeof(what), "stack site_%d %d", s,
				 d + 1);
			print_truth(f, what, &st);
		}
}

int main(int argc, char **argv)
{
	static struct thread th[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	struct pattern pt;
	long scale = argc > 2 ? atol(argv[2]) : 1;
	FILE *out = stdout;

	if (argc < 2 || argc > 4 || scale < 1)
		die("usage: alloc_gen SEED [SCALE [TRUTH]]");
	make_pattern(&pt, strtoull(argv[1], NULL, 0), scale);
	/* larger than every window's largest content together */
	big_block = (size_t)pt.threads * (size_t)pt.window *
		    size_dist[pt.sizes].hi * 2 + (1u << 20);
	if (pthread_barrier_init(&barrier, NULL, (unsigned)pt.threads))
		die("no barrier");
	for (int i = 0; i < pt.threads; i++) {
		th[i].pat = &pt;
		th[i].id = i;
		th[i].rng = pt.seed * 0x2545f4914f6cdd1du + (uint64_t)i + 1;
		th[i].live = windows[i];
	}
	for (int i = 0; i < pt.threads; i++)
		if (pthread_create(&tid[i], NULL, thread_main, &th[i]))
			die("no thread");
	for (int i = 0; i < pt.threads; i++)
		pthread_join(tid[i], NULL);
	if (argc > 3 && !(out = fopen(argv[3], "w")))
		die("cannot write the truth");
	report(out, &pt, th);
	if (out != stdout)
		fclose(out);
	return 0;
}
