/*
 * libyardstick: micro-benchmarks of C and C++ code whose results are
 * yardstick results (kind "bench"), for `yardstick compare`, `gate`,
 * `history` and `bench`. C11; compiles as C++ too. Reference:
 * docs/libyardstick.md.
 *
 *   #include <yardstick.h>
 *
 *   static void bm_hash(ys_state *s)
 *   {
 *       uint64_t n = (uint64_t)ys_param_int(s, "n"), h = 0;
 *       char *buf = make_input(n);          // setup: not timed
 *       ys_set_bytes(s, (double)n);         // declared work per iteration
 *       YS_LOOP(s) {                        // the timed region
 *           h = hash(buf, n);
 *           YS_KEEP(h);                     // keep the result alive
 *       }
 *       free(buf);                          // not timed either
 *   }
 *   YS_BENCHMARK_WITH("hash", bm_hash, "n=64,4096")
 *
 * Link with -lyardstick_main (which provides main) or call ys_main from
 * your own main. Every public name starts with ys_ or YS_ (ys__ and YS__:
 * private, may change).
 */
#ifndef YARDSTICK_H
#define YARDSTICK_H

#include <stdint.h>

#if !defined(__GNUC__) && !defined(__clang__)
#error "yardstick.h needs GCC or Clang (inline asm, constructors)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One thread's view of one benchmark while it runs. */
typedef struct ys_state ys_state;

/* A benchmark: called once per epoch (and per thread); it runs YS_LOOP
 * exactly once. What comes before and after the loop is not timed. */
typedef void (*ys_fn)(ys_state *s);

/*
 * Register a benchmark (called by the YS_BENCHMARK macros from a
 * constructor, before main). spec is "" or entries separated by ';':
 *   NAME=VALUES   a parameter: a list "1,10,100" or a range
 *                 START:END[:STEP] / START:END:*FACTOR (as `yardstick run
 *                 --param`); several parameters form the cartesian product
 *   threads=N     run the body on N threads together (a list scans it)
 *   group=NAME    interleave with the other benchmarks of group NAME and
 *                 compare them (the first registered is the baseline)
 * A bad spec is reported by ys_main (exit 2), naming the benchmark.
 */
void ys_register(const char *name, ys_fn fn, const char *spec,
		 const char *file, int line);

/* Run the benchmarks as the command line says (--help lists it); returns
 * the exit status: 0, 1 (a benchmark failed), 2 (bad usage), 3 (the
 * environment refused, e.g. --clock tsc without an invariant TSC). */
int ys_main(int argc, char **argv);

/* ---- inside a benchmark ---- */

/* Start the timed region; returns the iterations to run (YS_LOOP). */
uint64_t ys__begin(ys_state *s);
/* End the timed region (YS_LOOP calls it when the loop finishes). */
void ys__end(ys_state *s);

/*
 * The timed loop: runs its body ys_iterations(s) times. The clock starts
 * when the loop starts and stops when it ends; its cost per iteration is
 * one decrement and one branch.
 */
#define YS_LOOP(s)                                                          \
	for (uint64_t ys__n = ys__begin(s); ys__n-- ? 1 : (ys__end(s), 0);)

/* Iterations of this epoch (known before YS_LOOP: batch setup may size
 * its inputs by it). */
uint64_t ys_iterations(const ys_state *s);
/* The thread's index (0 .. ys_threads-1) and the number of threads. */
int ys_thread_index(const ys_state *s);
int ys_threads(const ys_state *s);

/* The value of parameter name (exits 2 naming it when the benchmark has
 * no such parameter or, _int and _double, when it is not a number). */
const char *ys_param(const ys_state *s, const char *name);
long long ys_param_int(const ys_state *s, const char *name);
double ys_param_double(const ys_state *s, const char *name);

/* Work done by ONE iteration (of one thread): items, bytes moved,
 * floating point operations. They give items_per_second,
 * bytes_per_second, flops_per_second and arithmetic_intensity. */
void ys_set_items(ys_state *s, double items);
void ys_set_bytes(ys_state *s, double bytes);
void ys_set_flops(ys_state *s, double flops);

/* Mark the benchmark failed (it is reported with the message, its
 * measurements dropped, and ys_main returns 1). */
void ys_fail(ys_state *s, const char *message);

/* ---- for bindings to other languages (the Python package) ---- */

/* ys_register with a pointer the body reads back with ys_data. */
void ys_register_data(const char *name, ys_fn fn, const char *spec,
		      const char *file, int line, void *data);
void *ys_data(const ys_state *s);

/* How many benchmarks are registered; ys_main_from(first, ...) is ys_main
 * over those registered from index first on only (a binding registers a
 * batch, runs it, and may register and run another later). */
unsigned long ys_registered(void);
int ys_main_from(unsigned long first, int argc, char **argv);

/* While the iterations are tuned (the warm-up, whose epochs are not
 * kept): 1 + the warm-up epoch (1: the instance's very first call of
 * the body); 0 in the measured epochs. */
int ys_warmup(const ys_state *s);

/* Add value to the benchmark's metric (a name of docs/result-format.md,
 * or one of the program's own) in unit ("s", "count", "bytes" ...):
 * the result holds every value given, in order. A metric the library
 * measures itself (allocs_per_op when its counters are off) is then the
 * caller's. */
void ys_value(ys_state *s, const char *metric, const char *unit,
	      double value);

/*
 * Keep-alive: the compiler must assume the object is read and written
 * here, so the computation of its value is not optimised away. YS_KEEP
 * takes the object itself (an lvalue of any size: a register operand when
 * it fits one, else a memory operand in place, never a copy); ys_keep
 * takes a pointer and also acts as ys_clobber (the object pointed to, and
 * anything reachable, is assumed read).
 */
#if defined(__clang__)
#define YS_KEEP(x) __asm__ __volatile__("" : "+r,m"(x))
#else
/* GCC: "+r,m" is refused ("impossible constraint") for some locals */
#define YS_KEEP(x) __asm__ __volatile__("" : "+m,r"(x))
#endif

static inline void ys_keep(const void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

/* A compiler barrier: every store before it is done, every load after it
 * is done again. */
static inline void ys_clobber(void)
{
	__asm__ __volatile__("" : : : "memory");
}

/* ---- registration ---- */

#define YS__CAT2(a, b) a##b
#define YS__CAT(a, b) YS__CAT2(a, b)

#define YS_BENCHMARK_WITH(name, fn, spec)                                   \
	__attribute__((constructor)) static void YS__CAT(ys__reg_,          \
							 __LINE__)(void)    \
	{                                                                   \
		ys_register(name, fn, spec, __FILE__, __LINE__);            \
	}

/* A benchmark named name (a string) running fn. */
#define YS_BENCHMARK(name, fn) YS_BENCHMARK_WITH(name, fn, "")

/* A benchmark of group group (a string literal): interleaved with the
 * group's other benchmarks and compared with its first. */
#define YS_GROUP(group, name, fn) YS_BENCHMARK_WITH(name, fn, "group=" group)


/* ---- zones: a timeline for `yardstick trace` (docs/libyardstick.md) ----
 *
 * When the program is not started by `yardstick trace` (or another
 * reader), each of these costs one predictable branch on a global flag.
 * Names are string literals (each call site registers its name once, at
 * its first event); text is copied. Zones nest per thread. */

extern int ys__trace_on;	/* set before main when a reader is attached */

typedef struct ys__site {
	uint32_t id;		/* 0 until the first event of the call site */
} ys__site;

/* A zone begun (ys_zone_begin); pass it to ys_zone_end. */
typedef struct ys_zone {
	uint32_t id;		/* 0: not traced */
} ys_zone;

uint32_t ys__zbegin(ys__site *site, const char *name);
void ys__zend(uint32_t id);
void ys__ztext(const char *text);
void ys__zvalue(int64_t value);
void ys__mark(ys__site *site, const char *name, const char *text);
void ys__counter(ys__site *site, const char *name, double value);
void ys__async(ys__site *site, const char *name, uint64_t id, int end);
void ys__thread_name(const char *name);

static inline ys_zone ys__zone_begin(ys__site *site, const char *name)
{
	ys_zone z = { 0 };

	if (__builtin_expect(ys__trace_on, 0))
		z.id = ys__zbegin(site, name);
	return z;
}

/* End the zone z (the innermost open zone of the thread). */
static inline void ys_zone_end(ys_zone z)
{
	if (__builtin_expect(z.id != 0, 0))
		ys__zend(z.id);
}

static inline void ys__zone_cleanup(ys_zone *z)
{
	ys_zone_end(*z);
}

/* Is a reader recording the events (nonzero) or are they free no-ops? */
static inline int ys_tracing(void)
{
	return ys__trace_on;
}

/* Begin a zone named name (a string literal); returns it for
 * ys_zone_end, which must come on the same thread, zones nesting. */
#define ys_zone_begin(name)                                                 \
	__extension__({                                                     \
		static ys__site ys__s;                                      \
		ys__zone_begin(&ys__s, name);                               \
	})

/* Dynamic text (copied, at most 256 bytes) or an integer argument of the
 * thread's innermost open zone. */
static inline void ys_zone_text(const char *text)
{
	if (__builtin_expect(ys__trace_on, 0))
		ys__ztext(text);
}

static inline void ys_zone_value(int64_t value)
{
	if (__builtin_expect(ys__trace_on, 0))
		ys__zvalue(value);
}

/* An instant named name, with or without text. */
#define ys_mark(name) ys_mark_text(name, (const char *)0)
#define ys_mark_text(name, text)                                            \
	do {                                                                \
		static ys__site ys__s;                                      \
		if (__builtin_expect(ys__trace_on, 0))                      \
			ys__mark(&ys__s, name, text);                       \
	} while (0)

/* A counter named name takes the value value (a double) now. */
#define ys_counter(name, value)                                             \
	do {                                                                \
		static ys__site ys__s;                                      \
		if (__builtin_expect(ys__trace_on, 0))                      \
			ys__counter(&ys__s, name, (double)(value));         \
	} while (0)

/* An async span (a request): begins on one thread, ends on any thread of
 * the process; (name, id) pairs them. */
#define ys_async_begin(name, id) YS__ASYNC(name, id, 0)
#define ys_async_end(name, id) YS__ASYNC(name, id, 1)
#define YS__ASYNC(name, id, end)                                            \
	do {                                                                \
		static ys__site ys__s;                                      \
		if (__builtin_expect(ys__trace_on, 0))                      \
			ys__async(&ys__s, name, (uint64_t)(id), end);       \
	} while (0)

/* Name the calling thread in the trace (copied, at most 31 bytes). */
static inline void ys_thread_name(const char *name)
{
	if (__builtin_expect(ys__trace_on, 0))
		ys__thread_name(name);
}

/* A zone from here to the end of the enclosing block (C: the cleanup
 * attribute; C++: an RAII object). */
#define YS_ZONE(name) YS__ZONE(name, __COUNTER__)
#ifndef __cplusplus
#define YS__ZONE(name, n)                                                   \
	static ys__site YS__CAT(ys__zs_, n);                                \
	ys_zone YS__CAT(ys__zv_, n)                                         \
		__attribute__((cleanup(ys__zone_cleanup), unused)) =        \
			ys__zone_begin(&YS__CAT(ys__zs_, n), name)
#endif

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
/* C++: the zone of a scope, ended by the destructor. */
class ys_zone_scope {
public:
	ys_zone_scope(ys__site *site, const char *name)
		: z_(ys__zone_begin(site, name)) {}
	~ys_zone_scope() { ys_zone_end(z_); }
	ys_zone_scope(const ys_zone_scope &) = delete;
	ys_zone_scope &operator=(const ys_zone_scope &) = delete;

private:
	ys_zone z_;
};
#define YS__ZONE(name, n)                                                   \
	static ys__site YS__CAT(ys__zs_, n);                                \
	ys_zone_scope YS__CAT(ys__zv_, n)(&YS__CAT(ys__zs_, n), name)
#endif

#endif
