#!/bin/sh
# scripts/deadcode.sh finds what it must, on a build of its own: a module
# (libysfoo.a.p) exporting a function called from a program, one called
# only inside its own file, one called nowhere, one of the public API
# (ys_*), one called only from a fuzz target, and one named as the C
# library's strlen; then the same with every fault fixed must pass.
set -u
SRC_ROOT=${SRC_ROOT:?SRC_ROOT must name the source tree}
# lib.sh's harness (t, finish, the scratch directory T); no yardstick
# binary is run
YS=/bin/true YSFIX=/bin/true
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/b/libysfoo.a.p" "$T/b/prog.p" "$T/root/tests/fuzz"
cat >"$T/a.c" <<'C'
int foo_local(int x) { return x + 1; }
int foo_used(int x) { return foo_local(x); }
int foo_dead(int x) { return x * 2; }
int ys_public(int x) { return x; }
int foo_fuzzed(int x) { return x - 1; }
C
cat >"$T/libc.c" <<'C'
unsigned long strlen(const char *s) { unsigned long n = 0; while (s[n]) n++; return n; }
C
echo 'int foo_used(int); int main(void) { return foo_used(1); }' >"$T/main.c"
echo 'int foo_fuzzed(int); int LLVMFuzzerTestOneInput(void) { return foo_fuzzed(0); }' \
	>"$T/root/tests/fuzz/fuzz_foo.c"
printf 'ys_*\nlibc: src/foo/alloc.c\n' >"$T/allow"
cc -c -o "$T/b/libysfoo.a.p/src_foo_a.c.o" "$T/a.c" &&
cc -fno-builtin -c -o "$T/b/libysfoo.a.p/src_foo_libc.c.o" "$T/libc.c" &&
cc -c -o "$T/b/prog.p/src_main.c.o" "$T/main.c" || {
	echo "Bail out! cannot compile the fixtures"; exit 1; }
libc=$(cc -print-file-name=libc.so.6)
run() { sh "$SRC_ROOT/scripts/deadcode.sh" "$T/b" "$T/root" "$T/allow" "$libc"; }

finds() {
	run >"$T/o"; rc=$?
	cat "$T/o"
	[ $rc = 1 ] &&
	grep -q "^dead: foo_dead (src/foo/a.c)" "$T/o" &&
	grep -q "^dead: foo_local (src/foo/a.c)" "$T/o" &&
	grep -q "^libc name: strlen (src/foo/libc.c)" "$T/o" &&
	grep -q "^dead: strlen (src/foo/libc.c)" "$T/o" &&
	[ "$(wc -l <"$T/o")" = 4 ]
}
d="finds the function called nowhere, the one called from its own file only, and a C library name; not the called, the public nor the fuzzed"
t "$d" finds

interposer() {
	mv "$T/b/libysfoo.a.p/src_foo_libc.c.o" "$T/b/libysfoo.a.p/src_foo_alloc.c.o"
	run >"$T/o"
	cat "$T/o"
	! grep -q "libc name" "$T/o"
}
d="a file the allow list names as an interposer may define C library names"
t "$d" interposer

clean() {
	rm "$T/b/libysfoo.a.p/src_foo_alloc.c.o"
	echo 'int foo_dead(int); int foo_local(int); int g(void) { return foo_dead(1) + foo_local(1); }' >"$T/c.c"
	cc -c -o "$T/b/prog.p/src_c.c.o" "$T/c.c" && run
}
d="with every function called from another file: exit 0"
t "$d" clean

finish
