#!/bin/sh
# Whether two builds of yardstick give mem the same profiles: each
# program below run under OLD's and NEW's `mem` with every --cost in
# folded form, exact and with --sample 1 (every block traced at its own
# weight: as deterministic as exact), with and without --lines: the
# folded files must be byte-identical. Some differ between two runs of
# one build (a CPython program's peak, gc, temporaries folded or not by
# HEAP_FOLD_GAP; the peak of forked children that run at once: timing),
# so a file that differs is made again under OLD, up to 4 times: the
# same as NEW's in one of them, it is as OLD's; else it is reported as
# variation, not a difference, when OLD differs from itself as well.
#
# Programs: tests/fixtures' heapfix (leaks, temporaries, reallocs, forked
# children: their images read with their parent's maps, threads), unwgen
# (stacks of every shape, 40 frames deep and more), heapfix_cpp (C++:
# inlined frames), a program that dlopens a library, dlcloses it and
# loads another at its addresses (stacks read with the maps of their
# unloads), and tests/fixtures/py/memfix.py (Python frames); with TORCH=1
# also `import torch` under /usr/bin/python3.11 (slow: ~1 min a run).
# PYTHONHASHSEED=0 for the Python programs.
#   bench/mem_profile_diff.sh OLD_BUILD NEW_BUILD [FIXTURES_BUILD]
# OLD_BUILD and NEW_BUILD: directories holding yardstick with its
# libyardstick-heap.so and yardstick-spawner (a build directory, or a
# copy of one's three files); FIXTURES_BUILD: where tests/fixtures were
# built (default NEW_BUILD). Exit 1
# when a file differs that OLD makes the same twice.
set -eu
old=${1:?usage: mem_profile_diff.sh OLD_BUILD NEW_BUILD [FIXTURES_BUILD]}
new=${2:?usage: mem_profile_diff.sh OLD_BUILD NEW_BUILD [FIXTURES_BUILD]}
fix=${3:-$new}/tests/fixtures
here=$(cd "$(dirname "$0")/.." && pwd)
for b in "$old" "$new"; do
	[ -x "$b/yardstick" ] || { echo "no $b/yardstick" >&2; exit 2; }
done
[ -x "$fix/heapfix" ] || { echo "no $fix/heapfix: build the tests (meson configure -Dtests=enabled)" >&2; exit 2; }
dir=$(mktemp -d /tmp/ys-profdiff-XXXXXX)
trap 'rm -rf "$dir"' EXIT
export XDG_CACHE_HOME=$dir/cache NO_COLOR=1 PYTHONHASHSEED=0

# the dlopen/dlclose program: two libraries, the second loaded where the
# first was
cat >"$dir/lib.c" <<'C'
#include <stdlib.h>
__attribute__((noinline)) void *NAME(size_t n) { return malloc(n); }
void *entry(size_t n) { return NAME(n); }
C
cat >"$dir/dl.c" <<'C'
#include <dlfcn.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		void *h = dlopen(argv[i], RTLD_NOW);
		void *(*e)(size_t) = h ? (void *(*)(size_t))dlsym(h, "entry")
				       : NULL;

		if (!e)
			return 1;
		for (int k = 0; k < 10 * i; k++) {
			void *p = e(1000 * i);

			if (k % 3)
				free(p);
		}
		dlclose(h);
	}
	return 0;
}
C
cc -O1 -g -fPIC -shared -DNAME=alloc_in_a -o "$dir/liba.so" "$dir/lib.c"
cc -O1 -g -fPIC -shared -DNAME=alloc_in_b -o "$dir/libb.so" "$dir/lib.c"
cc -O1 -g -o "$dir/dl" "$dir/dl.c" -ldl

# name|python|command: python: 1 for a CPython program
progs="leak|0|$fix/heapfix leak 10 1000
temp|0|$fix/heapfix temp 1000
reallocs|0|$fix/heapfix reallocs 2000
forks|0|$fix/heapfix forks 8
threads|0|$fix/heapfix threads
unwgen7|0|$fix/unwgen 7
unwgen11|0|$fix/unwgen 11
cpp|0|$fix/heapfix_cpp
dlclose|0|$dir/dl $dir/liba.so $dir/libb.so
memfix|1|python3 $here/tests/fixtures/py/memfix.py $dir/memfix.json"
[ "${TORCH:-0}" = 1 ] && progs="$progs
torch|1|/usr/bin/python3.11 -c import\ torch"

# run BUILD OUT NAME PY MODE LINES COMMAND...: the folded file of every
# cost into OUT.COST.folded
run() {
	b=$1 out=$2 py=$4 mode=$5 lines=$6
	shift 6
	costs="peak allocated allocations temporary leaked"
	[ "$py" = 1 ] && costs="$costs python-end"
	for c in $costs; do
		# shellcheck disable=SC2086
		"$b/yardstick" mem -q --no-store $mode $lines --cost "$c" \
			-o "$out.$c.folded" -- "$@" >/dev/null 2>&1 ||
			echo "  exit $? under $b: $* ($c)" >&2
	done
}

same=0 differ=0 varied=0 matched=0
echo "$progs" | while IFS='|' read -r name py cmd; do
	for mode in "" "--sample 1"; do
		for lines in "" "--lines"; do
			tag=$name$(echo "$mode$lines" | tr -d ' -')
			# shellcheck disable=SC2086
			eval "set -- $cmd"
			run "$old" "$dir/old.$tag" "$name" "$py" "$mode" "$lines" "$@"
			run "$new" "$dir/new.$tag" "$name" "$py" "$mode" "$lines" "$@"
			for f in "$dir"/old."$tag".*.folded; do
				g=$dir/new.${f#"$dir"/old.}
				if cmp -s "$f" "$g"; then
					same=$((same + 1))
					continue
				fi
				verdict=differs
				for k in 1 2 3 4; do
					[ -e "$dir/again$k.$tag.peak.folded" ] ||
						run "$old" "$dir/again$k.$tag" "$name" "$py" "$mode" "$lines" "$@"
					h=$dir/again$k.${f#"$dir"/old.}
					if cmp -s "$g" "$h"; then
						verdict=matched
						break
					fi
					cmp -s "$f" "$h" || verdict=varies
				done
				case $verdict in
				matched)
					matched=$((matched + 1))
					continue ;;
				varies)
					varied=$((varied + 1))
					echo "varies (OLD differs from itself, NEW is none of its 5): ${f#"$dir"/old.}"
					continue ;;
				esac
				differ=$((differ + 1))
				echo "DIFFERS: ${f#"$dir"/old.} ($(diff "$f" "$g" | grep -c '^[<>]') lines)"
			done
		done
	done
	echo "after $name: $same identical, $matched as one of OLD's runs, $differ differ, $varied vary under OLD too"
	[ "$differ" = 0 ] || exit 1
done
