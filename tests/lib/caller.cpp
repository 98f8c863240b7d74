// A C++ caller: yardstick.h compiles warning-free as C++ (-Wall -Wextra
// -pedantic), registration works from C++, and operator new's allocations
// are counted, once each, whether operator new calls our malloc (libstdc++)
// or not (a sanitizer's): two per iteration, the vector (24 bytes) and
// its 4096, and two deletes.
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include <yardstick.h>

static void bm_vector(ys_state *s)
{
	YS_LOOP(s) {
		std::vector<std::uint64_t> *v = new std::vector<std::uint64_t>(512);

		ys_keep(v->data());
		delete v;
	}
}
YS_BENCHMARK("cpp_vector", bm_vector)

static void bm_string(ys_state *s)
{
	long n = (long)ys_param_int(s, "n");
	std::string x(static_cast<std::size_t>(n), 'a');
	std::uint64_t h = 0;

	ys_set_bytes(s, static_cast<double>(n));
	YS_LOOP(s) {
		for (char c : x)
			h = h * 31 + static_cast<unsigned char>(c);
		YS_KEEP(h);
	}
}
YS_BENCHMARK_WITH("cpp_string", bm_string, "n=16,256")

/* a nothrow new that fails beside one that succeeds: the failed one
 * allocates nothing itself, but libstdc++'s throws and catches a
 * std::bad_alloc inside (its exception object: one allocation and its
 * free, of the size cpp_throw measures); a sanitizer's returns NULL */
static volatile std::size_t too_big = SIZE_MAX / 2;

static void bm_newfail(ys_state *s)
{
	YS_LOOP(s) {
		char *no = new (std::nothrow) char[too_big];
		int *yes = new (std::nothrow) int(7);

		ys_keep(no);
		ys_keep(yes);
		delete[] no;
		delete yes;
	}
}
YS_BENCHMARK("cpp_newfail", bm_newfail)

/* a std::bad_alloc thrown and caught: its exception object, one
 * allocation and its free */
static void bm_throw(ys_state *s)
{
	YS_LOOP(s) {
		try {
			throw std::bad_alloc();
		} catch (const std::bad_alloc &) {
			ys_clobber();
		}
	}
}
YS_BENCHMARK("cpp_throw", bm_throw)

int main(int argc, char **argv)
{
	return ys_main(argc, argv);
}
