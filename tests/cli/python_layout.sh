#!/bin/sh
# The CPython walker (src/profile/python.c) against the interpreters on
# this machine: Debian's python3.11 (always: scripts/deps.sh installs it
# with python3.11-dev) and pyenv's builds (when pyenv has them).
#  - its layout table equals what each version's own internal headers
#    say (tests/fixtures/py/layout.c compiled against them);
#  - its location-table decoder gives co_lines()'s line for every
#    instruction of every code object of a few stdlib modules;
#  - its walk of a live interpreter finds the frames CPython itself
#    reports (tests/fixtures/py/walkfix.py);
#  - versions it does not support are recognised and named.
. "$(dirname "$0")/lib.sh"
PYPROBE=${PYPROBE:?PYPROBE must name tests/fixtures/pyprobe}
FIX=$(cd "$(dirname "$0")/../fixtures/py" && pwd)
PYENV=${PYENV_ROOT:-/root/.pyenv}/versions

# "PYTHON INCLUDE_DIR" for every supported interpreter present
{
	echo "/usr/bin/python3.11 /usr/include/python3.11"
	for v in 3.11 3.12 3.13; do
		for d in "$PYENV"/$v.*; do
			[ -x "$d/bin/python$v" ] &&
				echo "$d/bin/python$v $d/include/python$v"
		done
	done
} >"$T/pythons"

layout_matches() { # PYTHON INCLUDE
	v=$("$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
	cc -w -I"$2" -I"$2/internal" -o "$T/layout" "$FIX/layout.c" &&
	"$T/layout" >"$T/want" && "$PYPROBE" layout "$v" >"$T/got" &&
	diff "$T/want" "$T/got"
}

lines_match() { # PYTHON
	"$1" - >"$T/lines.in" <<'PY' && "$PYPROBE" lines <"$T/lines.in"
import types, ast, inspect, json, csv, argparse, threading, asyncio
def codes(c):
    yield c
    for k in c.co_consts:
        if isinstance(k, types.CodeType):
            yield from codes(k)
for mod in (ast, inspect, json.decoder, csv, argparse, threading,
            asyncio.base_events):
    top = compile(open(mod.__file__).read(), mod.__file__, "exec")
    for c in codes(top):
        want = []
        for start, end, line in c.co_lines():
            for off in range(start, end, 2):
                want.append("%d:%d" % (off // 2, -1 if line is None else line))
        print(c.co_firstlineno, c.co_linetable.hex(), " ".join(want))
PY
}

walk_matches() { # PYTHON
	rm -f "$T/expect"
	"$1" "$FIX/walkfix.py" "$T/expect" & pid=$!
	i=0
	while [ ! -s "$T/expect" ] && [ $i -lt 300 ]; do
		sleep 0.1; i=$((i + 1))
	done
	"$PYPROBE" stack $pid >"$T/walk"; r=$?
	kill $pid; wait $pid 2>/dev/null
	[ $r = 0 ] || return 1
	# the walk's threads that the fixture listed, entry marks dropped
	python3 - "$T/expect" "$T/walk" <<'PY'
import sys
def threads(path):
    out, cur = {}, None
    for line in open(path):
        if line.startswith("thread "):
            cur = out.setdefault(line.split()[1], [])
        elif line.startswith("  ") and cur is not None:
            cur.append(line.replace(" entry", "").rstrip())
    return out
want, got = threads(sys.argv[1]), threads(sys.argv[2])
assert len(want) == 2, want
for tid, frames in want.items():
    assert got.get(tid) == frames, (tid, frames, got.get(tid))
print("ok", {t: len(f) for t, f in want.items()})
PY
}

while read -r py inc; do
	t "layout table equals $py's headers" layout_matches "$py" "$inc"
	t "line table decoded as $py's co_lines()" lines_match "$py"
	t "walk of $py finds its own frames" walk_matches "$py"
done <"$T/pythons"

# (the program is Python 2 as well as 3; "ready" written anew for each
# version: a file left from the one before let the probe race the start)
unsupported() { # PYTHON VERSION
	rm -f "$T/ready"
	"$1" -c 'import sys, time; sys.stdout.write("ready\n"); sys.stdout.flush(); time.sleep(600)' \
		>"$T/ready" & pid=$!
	i=0
	while [ ! -s "$T/ready" ] && [ $i -lt 300 ]; do
		sleep 0.1; i=$((i + 1))
	done
	"$PYPROBE" stack $pid >"$T/un"; kill $pid; wait $pid 2>/dev/null
	has "$T/un" "python $2 unsupported"
}
for v in 3.10 2.7; do
	for d in "$PYENV"/$v.*; do
		if [ -x "$d/bin/python$v" ]; then
			t "python $v recognised and refused" unsupported \
				"$d/bin/python$v" "$v"
		else
			skip "python $v recognised and refused" "no pyenv $v"
		fi
	done
done
finish
