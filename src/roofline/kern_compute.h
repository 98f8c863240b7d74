/*
 * The body of a compute kernel file (see kernels.h), included once per
 * instruction set with ROOFK_SUFFIX (scalar, sse2, avx2, avx512) and
 * ROOFK_VBYTES (8 for scalar, 16, 32, 64) defined. No include guard: a
 * template.
 */
#include "roofline/kernels.h"

#define ROOFK_CAT_(a, b) a##b
#define ROOFK_CAT(a, b) ROOFK_CAT_(a, b)
#define ROOFK_FN(prec) ROOFK_CAT(ROOFK_CAT(roofk_, prec), \
				 ROOFK_CAT(_, ROOFK_SUFFIX))

/* the ROOFK_NACC accumulators */
#define ROOFK_ACCS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) \
	X(10) X(11) X(12) X(13)

#define ROOFK_DECL(k) V a##k = b * (E)(k + 1);
#define ROOFK_STEP(k) a##k = a##k * b + c;
#define ROOFK_KEEP(k) __asm__("" : "+v"(a##k));
#define ROOFK_SUM(k) s += a##k;

#if ROOFK_VBYTES == 8
#define ROOFK_VECTOR(E) typedef E V
#define ROOFK_REDUCE(s) ((double)(s))
#else
#define ROOFK_VECTOR(E) typedef E V __attribute__((vector_size(ROOFK_VBYTES)))
#define ROOFK_REDUCE(s) roofk_reduce(&(s), sizeof(s) / sizeof(E), \
				     sizeof(E))
/* the sum of a vector's lanes */
static double roofk_reduce(const void *v, unsigned lanes, unsigned size)
{
	double r = 0;

	for (unsigned i = 0; i < lanes; i++)
		r += size == 8 ? ((const double *)v)[i] :
			((const float *)v)[i];
	return r;
}
#endif

/* b slightly below 1 and c small: every chain converges to c / (1 - b),
 * a normal number, so no denormal slows the loop down. */
#define ROOFK_KERNEL(prec, ET) \
double ROOFK_FN(prec)(uint64_t n) \
{ \
	typedef ET E; \
	ROOFK_VECTOR(E); \
	V b = (V){ 0 } + (E)0.99999, c = (V){ 0 } + (E)1e-5, s = (V){ 0 }; \
\
	__asm__("" : "+v"(b), "+v"(c)); \
	ROOFK_ACCS(ROOFK_DECL) \
	for (uint64_t i = 0; i < n; i++) { \
		ROOFK_ACCS(ROOFK_STEP) \
		ROOFK_ACCS(ROOFK_KEEP) \
	} \
	ROOFK_ACCS(ROOFK_SUM) \
	return ROOFK_REDUCE(s); \
}

ROOFK_KERNEL(fp64, double)
ROOFK_KERNEL(fp32, float)
