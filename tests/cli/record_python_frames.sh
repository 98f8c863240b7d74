#!/bin/sh
# Python frames that survive wrappers, a loaded machine and a stripped
# interpreter (issue 27, items 1-3), on tests/fixtures/py/shares.py: alpha,
# beta and gamma take 50%, 30% and 20% of its thread's CPU time by design
# (each runs for a slice of time.thread_time, so load changes how long it
# takes, not its shares).
#   - wrappers: a shell script, env, sh -c, a venv's symlink, python -m,
#     a launcher script passing "$@" on, pyenv's shim (when pyenv is
#     there: not a Debian package): >= 95% of the CPython samples
#     running Python code carry Python frames, and the shares are
#     within 5 points;
#   - a wrapper that cannot be seen through: the summary names the cause
#     (not "read too late");
#   - children (multiprocessing fork and spawn) through sh -c, in record
#     and trace;
#   - Debian's stripped /usr/bin/python3.11: no more than 2% of samples
#     end in a frame without a name, the interpreter's unnamed code under
#     [CPython interpreter] where no Python frame takes it;
#   - a load of twice the cores (busy loops of the test's own): >= 95% and
#     the shares within 5 points.
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/py" && pwd)
PY=/usr/bin/python3.11
export FIX PY

# check_run REPORT FOLDED: of the python: line's samples that ran Python
# code, >= 95% with Python frames (the interpreter's start-up and
# shut-down, 2-3% of the samples, have none to show, and at most 6%
# may say so), and alpha, beta, gamma within 5 points of 50, 30, 20
# (over the samples that have them: 600 samples give a binomial spread
# of 2 points at most). Counted over all the samples of CPython, the
# shim's run failed CI at 1220 of 1300 (93.8%) under two suites on two
# cores; at a load of 4.8 here, 91.5-96.2% over all of them and
# 93.6-98.9% over those running Python code, four runs.
# The sanitized build: >= 85%. Its reader reads a sample's frames later
# (173 us on average, 2 ms at most, against tens of us), and the samples
# whose frames it read too late, after the thread had moved on, stay
# native: 90-94% through pyenv's shim (bash, then the interpreter) at a
# load of 4, where the normal build holds 95%.
min_share=0.95 min_pct=95
san_build && min_share=0.85 min_pct=85
export min_share
check_run() {
	python3 - "$1" "$2" <<'PY'
import os, re, sys
rep = open(sys.argv[1]).read()
m = re.search(r"^python: (\d+) samples of CPython, (\d+) with Python frames"
              r".*, (\d+) running no Python code", rep, re.M)
assert m, "no python: line"
cpy, merged, nopy = int(m.group(1)), int(m.group(2)), int(m.group(3))
# start-up and shut-down run no Python code: 2-3% of a 1.2 s run
assert nopy <= 0.06 * cpy, ("running no Python code", nopy, cpy)
ran = cpy - nopy
assert ran >= 600 and merged >= float(os.environ["min_share"]) * ran, \
    ("with frames", merged, ran)
tot = {}
for line in open(sys.argv[2]):
    st, n = line.rsplit(" ", 1)
    for f in set(st.split(";")):
        q = f.split(" (shares.py:")[0] if " (shares.py:" in f else None
        if q in ("alpha", "beta", "gamma"):
            tot[q] = tot.get(q, 0) + int(n)
s = sum(tot.values())
want = {"alpha": 50, "beta": 30, "gamma": 20}
for q, w in want.items():
    got = 100.0 * tot.get(q, 0) / s
    assert abs(got - w) <= 5, (q, round(got, 1), w, tot)
print("ok", merged, cpy, tot)
PY
}

# rec NAME CMD...: record CMD running shares.py, then check_run
rec() {
	name=$1
	shift
	"$YS" record -o "$T/$name.folded" -- "$@" 2>"$T/$name.rep" ||
		{ cat "$T/$name.rep"; return 1; }
	check_run "$T/$name.rep" "$T/$name.folded" ||
		{ cat "$T/$name.rep"; return 1; }
}

printf '#!/bin/sh\n# a project'"'"'s run script\ncd "$(dirname "$0")"\nexec %s "$@"\n' \
	"$PY" >"$T/run.sh"
printf '#!/bin/sh\nexec "$@"\n' >"$T/launch.sh"
chmod +x "$T/run.sh" "$T/launch.sh"
"$PY" -m venv --without-pip "$T/venv" || echo "Bail out! no venv"

t "record -- a shell script running python3" \
	retry rec script "$T/run.sh" "$FIX/shares.py" 1.2
t "record -- env python3" \
	retry rec env /usr/bin/env "$PY" "$FIX/shares.py" 1.2
t "record -- sh -c 'python3 ...'" \
	retry rec shc sh -c "cd /tmp && $PY $FIX/shares.py 1.2"
t "record -- a venv's python (a symlink)" \
	retry rec venv "$T/venv/bin/python" "$FIX/shares.py" 1.2
t "record -- python3 -m module" \
	retry rec mod env PYTHONPATH="$FIX" "$PY" -m shares 1.2
t "record -- a launcher passing \"\$@\" on" \
	retry rec launch "$T/launch.sh" "$PY" "$FIX/shares.py" 1.2
SHIM=${PYENV_ROOT:-/root/.pyenv}/shims/python3.11
if [ -x "$SHIM" ]; then
	t "record -- pyenv's shim (bash, pyenv exec, its 3.11)" \
		retry rec shim "$SHIM" "$FIX/shares.py" 1.2
else
	skip "record -- pyenv's shim" "no pyenv on this machine"
fi

# A wrapper whose interpreter comes from the environment: nothing to see
# before it runs. The summary says so, and how to get the frames.
hidden() {
	printf '#!/bin/sh\nexec "$INTERP" "$PROG" 0.3\n' >"$T/hidden.sh"
	chmod +x "$T/hidden.sh"
	INTERP=$PY PROG=$FIX/shares.py "$YS" record -o "$T/h.folded" -- \
		"$T/hidden.sh" 2>"$T/h.rep" || { cat "$T/h.rep"; return 1; }
	grep -q "because yardstick could not tell that '$T/hidden.sh' would run Python when it started it.*give -g dwarf" "$T/h.rep" &&
	grep -q " 0 read too late" "$T/h.rep" || { cat "$T/h.rep"; return 1; }
	# and with -g dwarf, the frames
	INTERP=$PY PROG=$FIX/shares.py "$YS" record -g dwarf -o "$T/h2.folded" \
		-- "$T/hidden.sh" 2>"$T/h2.rep" || { cat "$T/h2.rep"; return 1; }
	grep -q "alpha (shares.py:" "$T/h2.folded" || { cat "$T/h2.rep"; return 1; }
}
t "record -- a wrapper that hides its interpreter: the cause named" retry hidden

# multiprocessing's children under sh -c: each child's own Python frames
children() { # MODE
	"$YS" record -o "$T/c.folded" -- sh -c "$PY $FIX/pyfix.py $1" \
		2>"$T/c.rep" || { cat "$T/c.rep"; return 1; }
	grep -q "mp_work (pyfix.py:" "$T/c.folded" || { cat "$T/c.rep"; return 1; }
}
t "record -- sh -c: multiprocessing fork children's frames" retry children mp-fork
t "record -- sh -c: multiprocessing spawn children's frames" retry children mp-spawn
trace_children() {
	"$YS" trace --no-store -o "$T/tr.json" -- sh -c "$PY $FIX/pyfix.py mp-spawn" \
		2>"$T/tr.rep" || { cat "$T/tr.rep"; return 1; }
	grep -q "^python: [0-9]* samples of CPython, [1-9][0-9]* with Python frames" "$T/tr.rep" &&
	grep -q "mp_work (pyfix.py:" "$T/tr.json" || { cat "$T/tr.rep"; return 1; }
}
t "trace -- sh -c: multiprocessing spawn children's frames" retry trace_children

# Debian's python3.11 is stripped: its static functions have no names.
stripped() {
	"$YS" record -o "$T/s.folded" -- "$PY" "$FIX/pyfix.py" cpu deep \
		2>"$T/s.rep" || { cat "$T/s.rep"; return 1; }
	python3 - "$T/s.folded" <<'PY' || { cat "$T/s.rep"; return 1; }
import sys
tot = unnamed = interp = 0
for line in open(sys.argv[1]):
    st, n = line.rsplit(" ", 1)
    fr, n = st.split(";"), int(n)
    tot += n
    # a leaf without a name: [unknown...] or MODULE+0xADDR
    if fr[-1].startswith("[unknown") or "+0x" in fr[-1]:
        unnamed += n
    interp += n if "[CPython interpreter]" in fr else 0
    # where Python frames are, the interpreter's unnamed code is not
    assert not any(f.startswith("python3.11+0x") for f in fr), fr
assert tot >= 500 and unnamed <= 0.02 * tot, (unnamed, tot)
print("ok", unnamed, interp, tot)
PY
}
t "record -- Debian's stripped python3.11: <= 2% of samples end unnamed" retry stripped

# A separate debug file (a -dbgsym package's, by build ID): pyenv's
# libpython3.11 stripped as Debian strips (.dynsym kept), its debug part
# under a debug root of our own: --python off shows the native frames,
# with unnamed code ([CPython interpreter]) without the file, none with
# it; the
# default view has no unnamed frame in either case where Python frames are
debug_file() { # PYENV_DIR
	lib=$1/lib/libpython3.11.so.1.0
	id=$(readelf -n "$lib" | sed -n 's/.*Build ID: //p')
	mkdir -p "$T/sl" "$T/nodbg" "$T/dbg/.build-id/$(echo "$id" | cut -c1-2)"
	strip --strip-all -o "$T/sl/libpython3.11.so.1.0" "$lib" &&
	objcopy --only-keep-debug "$lib" \
		"$T/dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" ||
		return 1
	for d in nodbg dbg; do
		for mode in off on; do
			PYTHONHOME=$1 LD_LIBRARY_PATH=$T/sl YARDSTICK_DEBUG_DIR=$T/$d \
			XDG_CACHE_HOME=$T/cache-$d "$YS" record -q --python $mode \
				-o "$T/$d-$mode.folded" -- "$1/bin/python3.11" \
				"$FIX/pyfix.py" cpu || return 1
		done
	done
	python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
def count(path, pred):
    c = 0
    for line in open(path):
        st, n = line.rsplit(" ", 1)
        c += int(n) * any(pred(f) for f in st.split(";"))
    return c
# the interpreter's unnamed code: MODULE+0xADDR, or (--python off
# names a run of it so too) [CPython interpreter]
unnamed = lambda f: (f.startswith("libpython3.11.so.1.0+0x") or
                     f.startswith("[CPython interpreter]"))
a, b = count(t + "/nodbg-off.folded", unnamed), count(t + "/dbg-off.folded", unnamed)
assert a > 0 and b == 0, ("stripped, debug file", a, b)
# where Python frames are, no unnamed interpreter frame
for d in ("nodbg", "dbg"):
    for line in open(f"{t}/{d}-on.folded"):
        fr = line.rsplit(" ", 1)[0].split(";")
        if any(" (pyfix.py:" in f for f in fr):
            assert not any(unnamed(f) for f in fr), (d, fr)
print("ok", a, b)
PY
}
PY311=$(ls -d "${PYENV_ROOT:-/root/.pyenv}"/versions/3.11.* 2>/dev/null | head -1)
if [ -n "$PY311" ] && [ -f "$PY311/lib/libpython3.11.so.1.0" ]; then
	t "record: a stripped libpython named from its debug file by build ID" \
		retry debug_file "$PY311"
else
	skip "record: a stripped libpython's debug file" "no pyenv 3.11 with a shared libpython here"
fi

# A load of twice the cores: busy loops of our own, ended by pid.
load_start() {
	pids=
	i=0
	while [ "$i" -lt $((2 * $(nproc))) ]; do
		sh -c 'while :; do :; done' &
		pids="$pids $!"
		i=$((i + 1))
	done
}
load_stop() {
	kill $pids
	wait $pids 2>/dev/null
}
loaded() {
	load_start
	rec load "$PY" "$FIX/shares.py" 1.2
	r=$?
	load_stop
	return $r
}

# Without the real-time priority (CAP_SYS_NICE dropped) under the same
# load about half the samples keep their native frames: the [python]
# rows' shares are then of the samples with Python frames, the report
# says so, and alpha's is still 50 within 5 points (over all samples it
# would be about 25); the cause names the refusal
renormalised() {
	load_start
	drop=
	[ "$(id -u)" = 0 ] && drop="setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice"
	$drop "$YS" record -n 200 -o "$T/rn.folded" -- "$PY" "$FIX/shares.py" 1.0 \
		2>"$T/rn.rep"
	r=$?
	load_stop
	[ "$r" = 0 ] || { cat "$T/rn.rep"; return 1; }
	python3 - "$T/rn.rep" <<'PY' || { cat "$T/rn.rep"; return 1; }
import re, sys
rep = open(sys.argv[1]).read()
m = re.search(r"^python: (\d+) samples of CPython, (\d+) with Python frames", rep, re.M)
cpy, merged = int(m.group(1)), int(m.group(2))
note = re.search(r"^the \[python\] rows' shares are of the (\d+) samples with "
                 r"Python frames, not of all (\d+)", rep, re.M)
if merged >= cpy:
    # nothing kept native: nothing to renormalise, and no note
    assert not note, "a note with nothing kept native"
    print("ok, nothing kept native this time")
    sys.exit(0)
assert note, "samples kept native and no note"
assert "cannot run the reader at real-time priority" in rep or \
    " 0 read too late" in rep, "the refusal not named"
row = re.search(r"^\s*([0-9.]+)%\s+([0-9.]+)%\s+\d+\s+alpha \(shares\.py:", rep, re.M)
assert row, "no alpha row"
assert abs(float(row.group(2)) - 50) <= 5, ("alpha", row.group(2), merged, cpy)
print("ok", merged, cpy, row.group(2))
PY
}
t "record, frames lost: [python] shares over the samples with Python frames, said so" \
	retry renormalised

# the reader's real-time priority is what holds this (without it, 45%:
# bench/RESULTS.md); a user without CAP_SYS_NICE or RLIMIT_RTPRIO cannot
# have it
if chrt -f 1 true 2>/dev/null; then
	t "record under a load of 2x the cores: >= $min_pct% with Python frames, shares within 5 points" \
		retry loaded
else
	skip "record under a load of 2x the cores" "real-time priority not permitted here"
fi

finish
