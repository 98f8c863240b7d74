# yardstick mem and programs whose allocator the agent cannot come
# before: one built with a sanitizer whose runtime replaces malloc
# (refused before it runs, naming it: it aborted with the agent before
# its runtime, and mem blamed LD_PRELOAD), one that defines malloc itself
# (warned: an allocator of its own is not seen, mem reported 0
# allocations silently; a wrapper that passes its calls on to the next
# malloc, the agent's, is counted). src/heap/elfalloc.c reads it from the
# program's image. (mem_hostile.sh, foreign: an allocator preloaded after
# the agent, which it forwards to.) And an address-space limit too small
# for the agent's buffers.
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

# an address-space limit (ulimit -v) that leaves no room for the agent's
# buffers (258 MiB in yardstick and again in the program): refused before
# the program runs, saying so (yardstick said "out of memory" or "cannot
# start the heap reader thread"); a larger one: a warning, and the run.
# A sanitized yardstick cannot start under such a limit at all (its
# shadow memory): there the check is skipped.
as_limit() {
	(ulimit -v 200000 && "$YS" mem --no-store -- sh -c 'touch "$1"' sh "$T/as.ran") \
		2>"$T/as.err"
	[ $? -eq 2 ] && [ ! -e "$T/as.ran" ] &&
	grep -q "the address-space limit (ulimit -v) of 195 MiB leaves no room for mem" "$T/as.err" ||
		{ cat "$T/as.err"; return 1; }
	(ulimit -v 2000000 && "$YS" mem --no-store -- sh -c 'touch "$1"' sh "$T/as.ran") \
		>/dev/null 2>"$T/as.err" && [ -e "$T/as.ran" ] &&
	grep -q "warning: an address-space limit (ulimit -v) of 1953 MiB is set" "$T/as.err" ||
		{ cat "$T/as.err"; return 1; }
}
if ! san_build; then
	t "ulimit -v too small for the agent's buffers: exit 2, saying so, not run; a larger one: a warning" as_limit
else
	skip "ulimit -v too small for the agent's buffers" "a sanitized yardstick cannot start under an address-space limit"
fi

finish
