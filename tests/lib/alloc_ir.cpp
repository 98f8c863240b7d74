// What counting allocations costs a C++ program, in instructions
// (tests/cli/libyardstick.sh, under valgrind): containers that allocate
// through operator new and free through delete (plain, sized, array),
// run "KERNEL N" times. Built twice at -O2, without sanitizers: linked
// with libyardstick_alloc and without it.
#include <list>
#include <memory>
#include <set>
#include <string>

#include "alloc_kernels.h"	/* umap, map, vec: bench/alloc_cost.cc's */

static void k_list()
{
	std::list<long> l;

	for (long i = 0; i < 500; i++)
		l.push_front(i);
	keep(&l);
}

static void k_strings()
{
	std::set<std::string> s;

	for (int i = 0; i < 300; i++)
		s.insert(std::string(40, (char)('a' + i % 26)) + std::to_string(i));
	keep(&s);
}

static void k_shared()
{
	for (int i = 0; i < 300; i++) {
		auto p = std::make_shared<std::vector<char>>(64);
		std::unique_ptr<int[]> a(new int[16]);

		keep(p.get());
		keep(a.get());
	}
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)();
	} kernels[] = { { "umap", k_umap }, { "map", k_map }, { "vec", k_vec },
			{ "list", k_list }, { "strings", k_strings },
			{ "shared", k_shared } };

	if (argc != 3)
		return 2;
	for (const auto &k : kernels)
		if (!strcmp(argv[1], k.name)) {
			for (long i = atol(argv[2]); i > 0; i--)
				k.fn();
			return 0;
		}
	return 2;
}
