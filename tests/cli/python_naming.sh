#!/bin/sh
# One naming rule for Python frames (issue 27, pystacks.h's
# pystacks_label): the same function is named alike in every output of
# record (terminal table, folded, SVG), mem (terminal report, folded, SVG)
# and trace (Chrome JSON, Perfetto): "strings_of (naming.py:DEF)", DEF its
# def line; with --lines (record, mem) "strings_of (naming.py:LINE)", LINE
# a line of its body executing (the def line only for a frame caught
# before its first instruction, as CPython says it). Debian's python3.11
# (scripts/deps.sh installs it).
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/py" && pwd)/naming.py
PY=/usr/bin/python3.11
DEF=$(grep -n "^def strings_of" "$FIX" | cut -d: -f1)
export FIX PY DEF

# def_only FILE...: each FILE names strings_of by its def line, and only so
def_only() {
	for f in "$@"; do
		[ "$(grep -aoh "strings_of (naming\.py:[0-9]*)" "$T/$f" | sort -u)" = "strings_of (naming.py:$DEF)" ] ||
			{ echo "$f:"; grep -ao "strings_of (naming\.py:[0-9]*)" "$T/$f" | sort -u; return 1; }
	done
}
# body_only FILE...: each FILE names strings_of by lines of its body; the
# def line only rarely: it is what CPython itself says of a frame that has
# not run its first instruction yet (PyFrame_GetLineNumber), which a
# sample can catch (record reads the frames of a running process). In a
# folded FILE it holds at most 10% of strings_of's weight.
body_only() {
	for f in "$@"; do
		lns=$(grep -aoh "strings_of (naming\.py:[0-9]*)" "$T/$f" | sed "s/.*:\([0-9]*\))\$/\1/" | sort -un)
		[ -n "$lns" ] || { echo "$f: not named"; return 1; }
		body=0
		for l in $lns; do
			[ "$l" -ge "$DEF" ] && [ "$l" -le $((DEF + 4)) ] ||
				{ echo "$f: line $l outside the body (def $DEF)"; return 1; }
			[ "$l" -gt "$DEF" ] && body=1
		done
		[ "$body" = 1 ] || { echo "$f: no line of the body"; return 1; }
		case $f in
		*.folded)
			awk -v def="strings_of (naming.py:$DEF)" '
				/strings_of \(naming\.py:/ { all += $NF; if (index($0, def)) at_def += $NF }
				END { if (at_def > 0.1 * all) { printf "the def line has %d of %d\n", at_def, all; exit 1 } }' "$T/$f" ||
				return 1 ;;
		esac
	done
}
# run NAME: record, mem or trace (with its options) on the fixture, its
# report or table in $T/NAME.report, its outputs $T/NAME.*
run() {
	base=$1
	shift
	"$YS" "$@" -- "$PY" "$FIX" $ARG 2>"$T/$base.report" >/dev/null ||
		{ cat "$T/$base.report"; return 1; }
}

ARG=
t "record: table, folded, SVG by the def line" eval '
	run r record -o "$T/r.folded" -o "$T/r.svg" &&
	def_only r.report r.folded r.svg'
t "record --lines: table, folded, SVG by the line executing" eval '
	run rl record --lines -o "$T/rl.folded" -o "$T/rl.svg" &&
	body_only rl.report rl.folded rl.svg'
t "trace: Chrome JSON and Perfetto by the def line" eval '
	run t trace -q --no-store -o "$T/t.json" -o "$T/t.perfetto-trace" &&
	def_only t.json t.perfetto-trace'
ARG=0.2		# mem: 0.2 s of the work is enough
t "mem: report, folded, SVG by the def line" eval '
	run m mem --no-store -o "$T/m.folded" -o "$T/m.svg" &&
	def_only m.report m.folded m.svg'
t "mem --lines: report, folded, SVG by the line executing" eval '
	run ml mem --no-store --lines -o "$T/ml.folded" -o "$T/ml.svg" &&
	body_only ml.report ml.folded ml.svg'

finish
