/* The sse2 kernels: see kernels.h. Built with sse2's flags only. */
#define ROOFK_SUFFIX sse2
#define ROOFK_VBYTES 16
#include "roofline/kern_compute.h"
#include "roofline/kern_memory.h"
