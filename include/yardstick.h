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

#ifdef __cplusplus
}
#endif

#endif
