/* The avx512 kernels: see kernels.h. Built with avx512's flags only. */
#define ROOFK_SUFFIX avx512
#define ROOFK_VBYTES 64
#include "roofline/kern_compute.h"
