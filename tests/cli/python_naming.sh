#!/bin/sh
# One naming rule for Python frames (issue 27, pystacks.h's
# pystacks_label): the same function is named alike in every output of
# record (terminal table, folded, SVG), mem (terminal report, folded, SVG)
# and trace (Chrome JSON, Perfetto): "strings_of (naming.py:DEF)", DEF its
# def line; with --lines (record, mem) "strings_of (naming.py:LINE)", LINE
# a line of its body executing, never the def line. Debian's python3.11
# (scripts/deps.sh installs it).
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/py" && pwd)/naming.py
PY=/usr/bin/python3.11
DEF=$(grep -n "^def strings_of" "$FIX" | cut -d: -f1)
export FIX PY DEF


t "record: table, folded, SVG by the def line" sh -c '
	"$YS" record -o "$T/r.folded" -o "$T/r.svg" -- "$PY" "$FIX" 2>"$T/r.table" >/dev/null || { cat "$T/r.table"; exit 1; }
	for f in r.table r.folded r.svg; do
		[ "$(grep -aoh "strings_of (naming\.py:[0-9]*)" "$T/$f" | sort -u)" = "strings_of (naming.py:$DEF)" ] ||
			{ echo "$f:"; grep -ao "strings_of (naming\.py:[0-9]*)" "$T/$f" | sort -u; exit 1; }
	done'
t "record --lines: table, folded, SVG by the line executing" sh -c '
	"$YS" record --lines -o "$T/rl.folded" -o "$T/rl.svg" -- "$PY" "$FIX" 2>"$T/rl.table" >/dev/null || { cat "$T/rl.table"; exit 1; }
	for f in rl.table rl.folded rl.svg; do
		n=$(grep -aoh "strings_of (naming\.py:[0-9]*)" "$T/$f" | sed "s/.*:\([0-9]*\))\$/\1/" | sort -un)
		[ -n "$n" ] || { echo "$f: not named"; exit 1; }
		for l in $n; do
			[ "$l" -gt "$DEF" ] && [ "$l" -le $((DEF + 4)) ] ||
				{ echo "$f: line $l outside the body (def $DEF)"; exit 1; }
		done
	done'
t "mem: report, folded, SVG by the def line" sh -c '
	"$YS" mem --no-store -o "$T/m.folded" -o "$T/m.svg" -- "$PY" "$FIX" 0.2 2>"$T/m.report" >/dev/null || { cat "$T/m.report"; exit 1; }
	for f in m.report m.folded m.svg; do
		[ "$(grep -aoh "strings_of (naming\.py:[0-9]*)" "$T/$f" | sort -u)" = "strings_of (naming.py:$DEF)" ] ||
			{ echo "$f:"; grep -ao "strings_of (naming\.py:[0-9]*)" "$T/$f" | sort -u; exit 1; }
	done'
t "mem --lines: report, folded, SVG by the line executing" sh -c '
	"$YS" mem --no-store --lines -o "$T/ml.folded" -o "$T/ml.svg" -- "$PY" "$FIX" 0.2 2>"$T/ml.report" >/dev/null || { cat "$T/ml.report"; exit 1; }
	for f in ml.report ml.folded ml.svg; do
		n=$(grep -aoh "strings_of (naming\.py:[0-9]*)" "$T/$f" | sed "s/.*:\([0-9]*\))\$/\1/" | sort -un)
		[ -n "$n" ] || { echo "$f: not named"; exit 1; }
		for l in $n; do
			[ "$l" -gt "$DEF" ] && [ "$l" -le $((DEF + 4)) ] ||
				{ echo "$f: line $l outside the body (def $DEF)"; exit 1; }
		done
	done'
t "trace: Chrome JSON and Perfetto by the def line" sh -c '
	"$YS" trace -q --no-store -o "$T/t.json" -o "$T/t.perfetto-trace" -- "$PY" "$FIX" >/dev/null 2>"$T/t.err" || { cat "$T/t.err"; exit 1; }
	for f in t.json t.perfetto-trace; do
		[ "$(grep -aoh "strings_of (naming\.py:[0-9]*)" "$T/$f" | sort -u)" = "strings_of (naming.py:$DEF)" ] ||
			{ echo "$f:"; grep -ao "strings_of (naming\.py:[0-9]*)" "$T/$f" | sort -u; exit 1; }
	done'

finish
