/*
 * ys_main over a batch of the registry: a binding to another language
 * (the Python package, python/yardstick) registers its benchmarks when
 * the program asks to run them, and may do so more than once in a
 * process (yardstick.bench(fn) each time). Each batch is parsed and run
 * once: ys_main sees the registry from the batch's first entry on, and
 * the whole registry is put back afterwards.
 */
#include "lib/lib_internal.h"

unsigned long ys_registered(void)
{
	return (unsigned long)lib_registry.n;
}

int ys_main_from(unsigned long first, int argc, char **argv)
{
	struct lib_registry all = lib_registry;
	int rc;

	if (first > all.n)
		first = all.n;
	lib_registry.regs = all.regs + first;
	lib_registry.n = all.n - first;
	lib_registry.cap = all.cap - first;
	rc = ys_main(argc, argv);
	/* nothing registers while a batch runs: only the view changed */
	lib_registry = all;
	return rc;
}
