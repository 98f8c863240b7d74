#!/bin/sh
# The allocation rule of docs/ARCHITECTURE.md ("Ownership, errors, OOM"):
# memory comes from the x* allocators of util/strutil.h, which abort when
# it runs out, so no code calls malloc, calloc, realloc, strdup, strndup,
# asprintf or vasprintf itself. Prints each call outside the exceptions
# (util/strutil.c, which implements the x* allocators; the heap agent and
# the spawner, separate binaries that link no util) and exits 1 when there
# is one. Usage: scripts/allocpolicy.sh [SRCDIR] (default: src)
set -eu
src=${1:-src}

bad=$(find "$src" -name '*.[ch]' | sort | while read -r f; do
	rel=${f#"$src"/}
	case $rel in
	util/strutil.c | heap/agent*.[ch] | measure/spawner_main.c) continue ;;
	esac
	# Drop comments and string literals roughly: a call is the name
	# followed by "(" not preceded by an identifier character.
	sed -e 's|/\*.*\*/||g' -e 's|"[^"]*"||g' "$f" |
	grep -nE '(^|[^A-Za-z0-9_])(malloc|calloc|realloc|strdup|strndup|v?asprintf)[[:space:]]*\(' |
	grep -vE '^[0-9]+:[[:space:]]*(\*|/\*)' |
	sed "s|^|$rel:|" || true
done)

if [ -n "$bad" ]; then
	echo "$bad"
	echo "allocpolicy: plain allocation outside the x* allocators" \
	     "(docs/ARCHITECTURE.md, \"Ownership, errors, OOM\")" >&2
	exit 1
fi
echo "allocpolicy: ok"
