#!/bin/sh
# The commands' files call down, never across: a file of src/cmd/ may
# include the headers every command shares (commands.h, cmdopts.h) and
# its own command's header (run.h for run*.c, roofline.h for roofline*.c,
# mem.h for mem*.c), never another command's. An engine another command
# needs belongs in src/engine/ (docs/ARCHITECTURE.md, "The engines").
# The includes that remain are listed below with why; any other is
# printed and the exit is 1.
# Usage: scripts/cmdgraph.sh [SRCDIR] (default: src)
set -eu
src=${1:-src}

# FILE HEADER: none left (bench reports through engine/run_report.h,
# roofline --count times through engine/run.h and cmd/runplan.c).
known=""

bad=0
for f in "$src"/cmd/*.c; do
	file=${f##*/}
	base=${file%.c}
	own=${base%%_*}.h
	for h in $(sed -n 's/^#include "cmd\/\([^"]*\)".*/\1/p' "$f"); do
		case $h in
		commands.h | cmdopts.h | "$own") continue ;;
		esac
		case " $known " in
		*" $file:$h "*) continue ;;
		esac
		echo "across: src/cmd/$file includes cmd/$h (another command's: move what it needs into src/engine/)"
		bad=1
	done
done
exit $bad
