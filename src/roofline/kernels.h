/*
 * The kernels of the ceilings, one file per instruction set
 * (kern_scalar.c, kern_sse2.c, kern_avx2.c, kern_avx512.c), each compiled
 * with that set's flags only (src/roofline/meson.build), and called only
 * when cpuid says the CPU has it (measure.c dispatches).
 *
 * The compute kernels run ROOFK_NACC independent accumulators, each
 * updated a = a * b + c per iteration: enough chains to cover the
 * latency × throughput of the multiply-add pipes of any current core. An
 * empty asm statement takes every accumulator as an in/out register each
 * iteration, so the compiler can neither drop, merge, vectorize nor
 * reorder them; b and c go through one too, so it cannot fold them
 * either. The avx2_fma and avx512 files are built with -mfma: a * b + c
 * is one vfmadd (contraction); scalar and sse2 multiply and add apart.
 * tests/cli/roofline_measure.sh checks the instructions with objdump.
 *
 * The memory kernels stream over their arrays with the widest vector of
 * their file (loads kept alive by asm inputs, so nothing is dropped and
 * no copy becomes memcpy); n counts doubles, a multiple of ROOFK_ALIGN /
 * 8, arrays aligned to ROOFK_ALIGN.
 */
#ifndef YS_ROOFLINE_KERNELS_H
#define YS_ROOFLINE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#define ROOFK_NACC 14
#define ROOFK_ALIGN 256	/* bytes: 4 zmm, the widest unrolled step */

/* FLOPs of one iteration of a compute kernel with vectors of vbytes
 * bytes and elements of ebytes (8: FP64, 4: FP32). */
#define ROOFK_FLOPS(vbytes, ebytes) \
	((double)ROOFK_NACC * 2 * ((vbytes) / (ebytes)))

/* n iterations; returns the accumulators' sum (for a sink). */
double roofk_fp64_scalar(uint64_t n);
double roofk_fp32_scalar(uint64_t n);
double roofk_fp64_sse2(uint64_t n);
double roofk_fp32_sse2(uint64_t n);
double roofk_fp64_avx2(uint64_t n);
double roofk_fp32_avx2(uint64_t n);
double roofk_fp64_avx512(uint64_t n);
double roofk_fp32_avx512(uint64_t n);

/* reps sweeps: load a[0..n); copy b[i] = a[i]; triad a[i] = b[i] + s *
 * c[i]. */
void roofk_load_sse2(const double *a, size_t n, uint64_t reps);
void roofk_copy_sse2(double *b, const double *a, size_t n, uint64_t reps);
void roofk_triad_sse2(double *a, const double *b, const double *c,
		      double s, size_t n, uint64_t reps);
void roofk_load_avx2(const double *a, size_t n, uint64_t reps);
void roofk_copy_avx2(double *b, const double *a, size_t n, uint64_t reps);
void roofk_triad_avx2(double *a, const double *b, const double *c,
		      double s, size_t n, uint64_t reps);

/* n × ROOFK_CLOCK_ADDS dependent integer adds (one cycle each on every
 * x86-64 core): the core's clock is that count over the time taken. */
#define ROOFK_CLOCK_ADDS 64
void roofk_clock(uint64_t n);

#endif
