# yardstick mem and programs whose allocator the agent cannot come
# before: one built with a sanitizer whose runtime replaces malloc
# (refused before it runs, naming it: it aborted with the agent before
# its runtime, and mem blamed LD_PRELOAD), one that defines malloc itself
# (warned: an allocator of its own is not seen, mem reported 0
# allocations silently; a wrapper that passes its calls on to the next
# malloc, the agent's, is counted). src/heap/elfalloc.c reads it from the
# program's image. (mem_hostile.sh, foreign: an allocator preloaded after
# the agent, which it forwards to.)
. "$(dirname "$0")/lib.sh"

cat >"$T/asanprog.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	void *p = malloc(100);
	free(p);
	if (argc > 1)
		fclose(fopen(argv[1], "w"));
	return 0;
}
EOF
cat >"$T/ownmalloc.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
/* WRAP: each call passed on to the next malloc; else a bump allocator */
static char heap[1 << 22];
static size_t used;
#ifdef WRAP
void *malloc(size_t n)
{
	static void *(*next)(size_t);
	if (!next)
		next = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	return next(n);
}
void free(void *p)
{
	static void (*next)(void *);
	if (!next)
		next = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	next(p);
}
#else
void *malloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (used + n > sizeof(heap))
		return NULL;
	used += n;
	return heap + used - n;
}
void free(void *p) { (void)p; }
#endif
static void *volatile sink;	/* the calls kept: they are builtins */
int main(void)
{
	for (int i = 0; i < 100; i++) {
		void *p = malloc(12345);
		memset(p, 1, 12345);
		sink = p;
		free(sink);
	}
	return used > sizeof(heap);
}
EOF
asan() {
	cc -fsanitize=address -o "$T/asanprog" "$T/asanprog.c" || return 1
	"$T/asanprog" "$T/asan.native" && [ -e "$T/asan.native" ] &&
	expect_exit 2 "$YS" mem -- "$T/asanprog" "$T/asan.ran" &&
	has "$T/stderr" "built with AddressSanitizer" && [ ! -e "$T/asan.ran" ]
}
t "a program built with AddressSanitizer: exit 2, saying why, not run" asan
own_malloc() {
	cc -O1 $1 -o "$T/ownmalloc" "$T/ownmalloc.c" -ldl || return 1
	"$YS" mem --no-store -- "$T/ownmalloc" 2>"$T/own.err" ||
		{ cat "$T/own.err"; return 1; }
	has "$T/own.err" "warning: the program defines malloc itself" || return 1
	got=$(sed -n 's/^  8 KiB - 16 KiB *[0-9.]*% *\([0-9,]*\).*/\1/p' "$T/own.err")
	[ "${got:-0}" = "$2" ] || { cat "$T/own.err"; return 1; }
}
t "a program with an allocator of its own: warned, none of its calls seen" \
	own_malloc "" 0
t "a program that wraps malloc and passes calls on: warned, its calls counted" \
	own_malloc -DWRAP 100

finish
