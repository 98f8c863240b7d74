#!/bin/sh
# Write the generated "Options" section of every docs/cmd/NAME.md from the
# option tables (`yardstick doc markdown NAME`): the block between its
# two marker comments is replaced, or appended to a page that has none.
# `make docs` runs it; the test cli_manual fails when a page differs.
# Usage: scripts/docs.sh YARDSTICK [DOCS_DIR]
set -eu
ys=$1
dir=${2:-$(dirname "$0")/../docs/cmd}
for name in $("$ys" help | sed -n 's/^  \([a-z]*\) .*/\1/p' | grep -vx 'help\|completion'); do
	page=$dir/$name.md
	[ -f "$page" ] || { echo "docs.sh: no page $page" >&2; exit 1; }
	"$ys" doc markdown "$name" >"$page.options"
	python3 - "$page" "$page.options" <<'PY'
import sys
page, block = sys.argv[1], open(sys.argv[2]).read()
text = open(page).read()
start = text.find("<!-- generated from the option table")
end_marker = "<!-- end of the generated options -->\n"
if start >= 0:
    end = text.index(end_marker, start) + len(end_marker)
    text = text[:start] + block + text[end:]
else:
    text = text.rstrip("\n") + "\n\n" + block
open(page, "w").write(text)
PY
	rm -f "$page.options"
done
