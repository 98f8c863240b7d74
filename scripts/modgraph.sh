#!/bin/sh
# The module graph as the #include "MODULE/..." lines draw it, against the
# allowed graph of docs/ARCHITECTURE.md: every edge with the number of
# includes, then each edge the allowed graph does not have and each
# include of another module's private header (*_internal.h). Given a build
# directory, also the calls: every symbol a module's archive (libysMODULE.a,
# meson.build) leaves undefined must be defined in the module itself, a
# module it may use or a system library, never in another module's
# archive. Exit 1 when there is one.
# Usage: scripts/modgraph.sh [SRCDIR [BUILDDIR]] (default: src)
set -eu
src=${1:-src}
build=${2:-}

# The allowed graph (target, issue 11): a module may include itself and
# these. Keep in step with docs/ARCHITECTURE.md.
allowed() {
	case $1 in
	util) echo "" ;;
	stats) echo "util" ;;
	result) echo "util stats" ;;
	store) echo "util stats result" ;;
	measure) echo "util stats result" ;;
	load) echo "util stats" ;;
	profile) echo "util stats measure" ;;
	heap) echo "util stats measure profile" ;;
	roofline) echo "util stats result" ;;
	report) echo "util stats result profile roofline" ;;
	engine) echo "util stats result store measure profile heap load roofline report" ;;
	cmd) echo "util stats result store measure profile heap load roofline report engine" ;;
	lib) echo "util stats result measure" ;;
	main) echo "cmd util" ;;
	esac
}

edges=$(find "$src" -name '*.[ch]' | sort | while read -r f; do
	rel=${f#"$src"/}
	case $rel in
	*/*) from=${rel%%/*} ;;
	*) from=main ;;
	esac
	sed -n 's/^#include "\([a-z]*\)\/\([^"]*\)".*/\1 \2/p' "$f" |
	while read -r to hdr; do
		[ "$to" = "$from" ] && continue
		echo "$from $to $rel $hdr"
	done
done)

echo "$edges" | awk 'NF { n[$1 " -> " $2]++ } END { for (e in n) print n[e], e }' |
	sort -k2
bad=0
echo "$edges" | { while read -r from to file hdr; do
	[ -n "$from" ] || continue
	ok=no
	for m in $(allowed "$from"); do
		[ "$m" = "$to" ] && ok=yes
	done
	if [ $ok = no ]; then
		echo "not allowed: $from -> $to ($file includes $to/$hdr)"
		bad=1
	fi
	case $hdr in
	*_internal.h)
		echo "private header: $file includes $to/$hdr"
		bad=1 ;;
	esac
done; exit $bad; } || bad=1

# The calls, from the archives: D lines say which module defines a symbol,
# A lines which modules a module may use, U lines what each leaves
# undefined (with the file), for one awk to judge.
[ -n "$build" ] || exit $bad
mods="util stats result store measure profile heap load roofline report engine cmd lib"
{
	for m in $mods; do
		nm -g --defined-only "$build/libys$m.a" |
			awk -v m="$m" 'NF == 3 { print "D", m, $3 }'
		echo "A $m $(allowed "$m")"
	done
	for m in $mods; do
		nm -A -u "$build/libys$m.a" | awk -v m="$m" '{
			f = $1; sub(/.*src_/, "", f); sub(/\.o:$/, "", f)
			sub("^" m "_", "", f); print "U", m, $NF, "src/" m "/" f }'
	done
} | awk '
$1 == "D" { owner[$3] = owner[$3] " " $2; next }
$1 == "A" { ok[$2, $2] = 1; for (i = 3; i <= NF; i++) ok[$2, $i] = 1; next }
$1 == "U" && ($3 in owner) {
	n = split(owner[$3], o, " "); good = 0
	for (i = 1; i <= n; i++) if (ok[$2, o[i]]) good = 1
	if (!good && !seen[$2, $3, $4]++) {
		print "not allowed: " $2 " ->" owner[$3] " (" $4 " calls " $3 ")"
		bad = 1
	}
}
END { exit bad }' || bad=1
exit $bad
