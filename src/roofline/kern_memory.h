/*
 * The body of a memory kernel file (see kernels.h), included with
 * ROOFK_SUFFIX and ROOFK_VBYTES defined, after kern_compute.h. Each step
 * moves four vectors; the loaded vectors go through an empty asm so that
 * every load stays and a copy is not turned into memcpy; the "memory"
 * clobber after each sweep makes the next one load again.
 */
typedef double ROOFK_CAT(roofk_vd_, ROOFK_SUFFIX)
	__attribute__((vector_size(ROOFK_VBYTES)));
#define VD ROOFK_CAT(roofk_vd_, ROOFK_SUFFIX)

/* Store the four vectors of a step at q + i, kept as computed. */
#define ROOFK_STORE4(q, i) do { \
	__asm__("" : "+v"(x0), "+v"(x1), "+v"(x2), "+v"(x3)); \
	(q)[(i)] = x0; \
	(q)[(i) + 1] = x1; \
	(q)[(i) + 2] = x2; \
	(q)[(i) + 3] = x3; \
} while (0)

void ROOFK_FN(load)(const double *a, size_t n, uint64_t reps)
{
	const VD *p = (const VD *)__builtin_assume_aligned(a, ROOFK_ALIGN);

	for (uint64_t r = 0; r < reps; r++) {
		for (size_t i = 0; i < n / (ROOFK_VBYTES / 8); i += 4) {
			VD x0 = p[i], x1 = p[i + 1], x2 = p[i + 2],
			   x3 = p[i + 3];

			__asm__("" : : "v"(x0), "v"(x1), "v"(x2), "v"(x3));
		}
		__asm__ volatile("" : : : "memory");
	}
}

void ROOFK_FN(copy)(double *b, const double *a, size_t n, uint64_t reps)
{
	const VD *p = (const VD *)__builtin_assume_aligned(a, ROOFK_ALIGN);
	VD *q = (VD *)__builtin_assume_aligned(b, ROOFK_ALIGN);

	for (uint64_t r = 0; r < reps; r++) {
		for (size_t i = 0; i < n / (ROOFK_VBYTES / 8); i += 4) {
			VD x0 = p[i], x1 = p[i + 1], x2 = p[i + 2],
			   x3 = p[i + 3];

			ROOFK_STORE4(q, i);
		}
		__asm__ volatile("" : : : "memory");
	}
}

void ROOFK_FN(triad)(double *a, const double *b, const double *c, double s,
		     size_t n, uint64_t reps)
{
	VD *pa = (VD *)__builtin_assume_aligned(a, ROOFK_ALIGN);
	const VD *pb = (const VD *)__builtin_assume_aligned(b, ROOFK_ALIGN);
	const VD *pc = (const VD *)__builtin_assume_aligned(c, ROOFK_ALIGN);
	VD vs = (VD){ 0 } + s;

	for (uint64_t r = 0; r < reps; r++) {
		for (size_t i = 0; i < n / (ROOFK_VBYTES / 8); i += 4) {
			VD x0 = pb[i] + vs * pc[i],
			   x1 = pb[i + 1] + vs * pc[i + 1],
			   x2 = pb[i + 2] + vs * pc[i + 2],
			   x3 = pb[i + 3] + vs * pc[i + 3];

			ROOFK_STORE4(pa, i);
		}
		__asm__ volatile("" : : : "memory");
	}
}
