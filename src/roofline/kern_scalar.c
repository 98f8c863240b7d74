/* The scalar compute kernels (SSE2 scalar mulsd/addsd, every x86-64),
 * and the clock's dependent adds: see kernels.h. */
#define ROOFK_SUFFIX scalar
#define ROOFK_VBYTES 8
#include "roofline/kern_compute.h"

#define ROOFK_ADD4 "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
#define ROOFK_ADD16 ROOFK_ADD4 ROOFK_ADD4 ROOFK_ADD4 ROOFK_ADD4

void roofk_clock(uint64_t n)
{
	uint64_t x = 0, one = 1;

	/* a register operand, not an immediate: some cores fold adds of
	 * immediates at rename, which would not take a cycle */
	while (n--)
		__asm__ volatile(ROOFK_ADD16 ROOFK_ADD16 ROOFK_ADD16
				 ROOFK_ADD16 : "+r"(x) : "r"(one));
}
