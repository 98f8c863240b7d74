/* The avx2 kernels: see kernels.h. Built with avx2's flags only. */
#define ROOFK_SUFFIX avx2
#define ROOFK_VBYTES 32
#include "roofline/kern_compute.h"
#include "roofline/kern_memory.h"
