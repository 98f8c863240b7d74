#!/bin/sh
# The module graph as the #include "MODULE/..." lines draw it, against the
# allowed graph of docs/ARCHITECTURE.md: every edge with the number of
# includes, then each edge the allowed graph does not have and each
# include of another module's private header (*_internal.h). Exit 1 when
# there is one. Usage: scripts/modgraph.sh [SRCDIR] (default: src)
set -eu
src=${1:-src}

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
	cmd) echo "util stats result store measure profile heap load" ;;
	main) echo "cmd" ;;
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
done; exit $bad; }
