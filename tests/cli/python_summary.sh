#!/bin/sh
# record's and trace's `python:` line accounts for every sample of CPython
# (profile/pystacks.c): "N samples of CPython, A with Python frames, B
# kept native (...), C running no Python code (...)" with A + B + C = N.
# The old line left out the samples taken while no Python code ran (the
# interpreter's start-up and shut-down, a thread Python does not know):
# 8-14 of ~1000 in a 1 s program, 10 of 70 in a 20 ms one, so that the
# figures did not add up and nothing said where the rest went.
# Generated cases: a program of 1 s, one of 20 ms of CPU, threads,
# multiprocessing fork, -g fp (every sample kept native, "unready"),
# through sh -c; record and trace.
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/py" && pwd)
PY=/usr/bin/python3.11

cat >"$T/short.py" <<'PY'
import time


def burn():
    t = time.thread_time()
    while time.thread_time() - t < 0.02:
        pass


burn()
PY

# adds_up REPORT: the python: line's parts add up to its samples, and
# C > 0 where frames are read (the interpreter starts and ends in every
# run; with -g fp none are read, and every sample is kept native)
adds_up() {
	python3 - "$1" <<'PY'
import os, re, sys
rep = open(sys.argv[1]).read()
m = re.search(r"^python: (\d+) samples of CPython, (\d+) with Python "
              r"frames, (\d+) kept native \(.*\), (\d+) running no Python "
              r"code \(start-up, shut-down, threads Python does not know\)",
              rep, re.M)
assert m, "no python: line with its four parts:\n" + rep
n, a, b, c = map(int, m.groups())
assert n == a + b + c, (n, a, b, c)
# frames read (not -g fp): the start-up's samples are among them; in the
# sanitized build, whose reader reads a sample's frames later, those of a
# 20 ms program may all be kept native as read too late (21 of 21, once)
san = os.environ.get("YSB_SAN", "none") not in ("", "none")
assert n > 0 and (c > 0 or " because " in m.group(0) or (san and b > 0)), (n, a, b, c)
print("ok", n, a, b, c)
PY
}

# case NAME CMD...: yardstick CMD, then adds_up
case_() {
	name=$1
	shift
	"$YS" "$@" 2>"$T/$name.rep" >/dev/null || { cat "$T/$name.rep"; return 1; }
	adds_up "$T/$name.rep"
}
t "record: a 1 s program: the python: line adds up" \
	case_ long record -o "$T/l.folded" -- "$PY" "$FIX/shares.py" 0.5
t "record: a 20 ms program: the python: line adds up" \
	case_ short record -o "$T/s.folded" -- "$PY" "$T/short.py"
t "record: threads: the python: line adds up" \
	case_ pool record -o "$T/p.folded" -- "$PY" "$FIX/pyfix.py" pool
t "record: sh -c, multiprocessing fork: the python: line adds up" \
	case_ fork record -o "$T/f.folded" -- sh -c "$PY $FIX/pyfix.py mp-fork"
t "record -g fp (every sample kept native): the python: line adds up" \
	case_ fp record -g fp -o "$T/fp.folded" -- "$PY" "$FIX/shares.py" 0.3
t "trace: the python: line adds up" \
	case_ trace trace --no-store -o "$T/t.json" -- "$PY" "$FIX/shares.py" 0.5

finish
