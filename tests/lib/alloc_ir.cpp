// What counting allocations costs a C++ program, in instructions
// (tests/cli/libyardstick.sh, under valgrind): containers that allocate
// through operator new and free through delete (plain, sized, array),
// run "KERNEL N" times. Built twice at -O2, without sanitizers: linked
// with libyardstick_alloc and without it.
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

static inline void keep(const void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

static void k_umap()
{
	std::unordered_map<int, int> m;

	for (int i = 0; i < 1000; i++)
		m[i] = i;
	keep(&m);
}

static void k_map()
{
	std::map<int, int> m;

	for (int i = 0; i < 1000; i++)
		m[i] = i;
	keep(&m);
}

static void k_vec()
{
	std::vector<int> v;

	for (int i = 0; i < 1000; i++)
		v.push_back(i);
	keep(v.data());
}

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
