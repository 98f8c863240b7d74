#!/bin/sh
# What the symbols of the build say, checked (nm of every object):
#
# 1. No dead code. Every function a module exports (a global T symbol of
#    an object of a module's archive, libysMODULE.a.p/*.o) is called from
#    another object: another module, a program (yardstick, the spawner,
#    the heap agent), a test, a benchmark or an example; or from a fuzz
#    target (tests/fuzz/*.c, built by clang outside meson's objects: their
#    words count as calls). One called from its own file only is made
#    static; one called nowhere goes. The patterns of deadcode.allow are
#    the exceptions (libyardstick's public API and the allocator it
#    interposes: their callers are the user's programs).
# 2. No file passes for the C library. An object that defines a name the
#    C library exports (libc.so.6's dynamic symbols: memcpy, strlen,
#    free ...) makes every call to that name look like a call into its
#    module, to any tool that reads symbols. Only the files that interpose
#    on the C library on purpose may (the "libc:" lines of deadcode.allow:
#    libyardstick's and the heap agent's allocators); the spawner's own C
#    library names its functions splibc_* (src/measure/spawner_libc.c).
#
# Exit 1, naming each function and its file, when either fails.
# Usage: scripts/deadcode.sh BUILDDIR [SRCROOT [ALLOWFILE [LIBC]]]
set -eu
build=${1:?usage: deadcode.sh BUILDDIR [SRCROOT [ALLOWFILE [LIBC]]]}
root=${2:-$(dirname "$0")/..}
allow=${3:-$root/scripts/deadcode.allow}
libc=${4:-$(${CC:-cc} -print-file-name=libc.so.6)}
[ -d "$build" ] || { echo "deadcode: no build directory '$build'" >&2; exit 2; }
[ -r "$allow" ] || { echo "deadcode: cannot read '$allow'" >&2; exit 2; }
[ -r "$libc" ] || { echo "deadcode: cannot read the C library '$libc'" >&2; exit 2; }
objs=$(find "$build" -name '*.o' | sort)
[ -n "$objs" ] || { echo "deadcode: no object under '$build'" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
{
	grep -v '^#' "$allow" | awk 'NF == 1 { print "P", $1 }
		$1 == "libc:" { print "I", $2 }'
	nm -D --defined-only "$libc" | awk '{ sub(/@.*/, "", $3); print "L", $3 }'
	# one nm for all: "-A" puts "FILE:" before each line
	# shellcheck disable=SC2086
	nm -A -g --defined-only $objs | awk '{
		o = $1; sub(/:[^:]*$/, "", o)
		if ($2 == "T" && o ~ /\/libys[^\/]*\.a\.p\//) print "D", $3, o
		if (NF == 3) print "G", $3, o }'
	# shellcheck disable=SC2086
	nm -A -u $objs | awk '{ o = $1; sub(/:[^:]*$/, "", o); print "U", $NF, o }'
	cat "$root"/tests/fuzz/*.c 2>/dev/null |
		grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u |
		awk '{ print "U", $1, "fuzz" }'
} | awk '
function allowed(s,   i) {
	for (i = 1; i <= np; i++)
		if (s ~ pat[i])
			return 1
	return 0
}
# the source file of an object: .../libysutil.a.p/src_util_error.c.o ->
# src/util/error.c
function source(o) {
	sub(/.*\/src_/, "", o); sub(/\.o$/, "", o); sub(/_/, "/", o)
	return "src/" o
}
$1 == "P" { p = $2; gsub(/\*/, ".*", p); pat[++np] = "^" p "$"; next }
$1 == "I" { interposer[$2] = 1; next }
$1 == "L" { inlibc[$2] = 1; next }
$1 == "D" { def[$2] = $3; next }
$1 == "G" {
	if (($2 in inlibc) && !(source($3) in interposer))
		print "libc name: " $2 " (" source($3) "): the C library " \
			"defines it; give it a name of its own"
	next
}
$1 == "U" { used[$2] = 1; next }
END {
	for (s in def)
		if (!(s in used) && !allowed(s))
			print "dead: " s " (" source(def[s]) "): no other " \
				"file calls it; make it static or remove it"
}' | sort -u >"$out"
if [ -s "$out" ]; then
	cat "$out"
	exit 1
fi
echo "deadcode: every exported function has a caller elsewhere, and none" \
	"but the interposers' has a C library's name"
