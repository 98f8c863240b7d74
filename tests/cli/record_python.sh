#!/bin/sh
# yardstick record on Python programs (tests/fixtures/py/pyfix.py): the
# program's own functions in place of the interpreter's evaluation
# frames, native frames kept above and below, with Debian's python3.11
# (a static interpreter; always: scripts/deps.sh installs it) and pyenv's
# 3.11, 3.12 and 3.13 (shared libpython) when pyenv has them; versions
# the walker does not know are named and their stacks left native.
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/py" && pwd)
PYENV=${PYENV_ROOT:-/root/.pyenv}/versions
export FIX

{
	echo /usr/bin/python3.11
	for v in 3.11 3.12 3.13; do
		for d in "$PYENV"/$v.*; do
			[ -x "$d/bin/python$v" ] && echo "$d/bin/python$v"
		done
	done
} >"$T/pythons"

# check FOLDED: every designed behaviour of pyfix.py's parts in a folded
# profile (Python frames are "qualname (pyfix.py:FIRSTLINE)")
check() {
	python3 - "$1" <<'PY'
import sys
stacks = []
for line in open(sys.argv[1]):
    st, n = line.rsplit(" ", 1)
    stacks.append((st.split(";"), int(n)))
def name(f):
    return f.split(" (pyfix.py:")[0] if " (pyfix.py:" in f else None
tot = {}
for fr, n in stacks:
    for q in set(filter(None, map(name, fr))):
        tot[q] = tot.get(q, 0) + n
a, b = tot.get("burn_a", 0), tot.get("burn_b", 0)
# 70/30 within 5 points (the share's binomial spread at 500 samples is
# 2 points)
assert a + b >= 300 and abs(100 * a / (a + b) - 70) <= 5, ("cpu", a, b)
# the recursion: one stack holds all 50 levels, in order under part deep
assert any(sum(name(f) == "deep" for f in fr) == 50 for fr, _ in stacks), \
    ("deep", max(sum(name(f) == "deep" for f in fr) for fr, _ in stacks))
# the thread pool: each worker's function, under the pool's thread code
for w in ("work_x", "work_y", "work_z"):
    assert any(name(f) == w and any(g.startswith("_worker (thread.py:")
                                    for g in fr[:i])
               for fr, _ in stacks for i, f in enumerate(fr)), \
        (w, tot.get(w, 0), [";".join(fr[:4]) for fr, _ in stacks
                            if any(name(f) == w for f in fr)][:3])
# zlib: compress_data, then native frames down to libz's deflate
assert any(name(f) == "compress_data" and "deflate" in fr[i:] and
           all(name(g) is None for g in fr[i + 1:])
           for fr, _ in stacks for i, f in enumerate(fr)), "zlib"
# the generator and the coroutine under their own names
for g, caller in (("gen_burn", "gen"), ("coro_burn", None)):
    assert tot.get(g, 0) >= 5, (g, tot)
# the entry and the interpreter: <module> above it, no evaluation frame
# left where Python frames went in
assert tot.get("<module>", 0) > 0
print("ok", sorted(tot.items(), key=lambda x: -x[1])[:12])
PY
}

record_checks() { # PYTHON
	"$YS" record -o "$T/py.folded" -- "$1" "$FIX/pyfix.py" 2>"$T/rep" ||
		{ cat "$T/rep"; return 1; }
	grep -q "^python: [0-9]* samples of CPython" "$T/rep" &&
	grep -q "thread MainThread" "$T/rep" && check "$T/py.folded" ||
		{ grep -E "samples in|^python:|^  thread " "$T/rep" |
			cut -c1-400; return 1; }
}

while read -r py; do
	t "record -- $py: fixture's functions, recursion, threads, zlib, generator, coroutine" \
		retry record_checks "$py"
done <"$T/pythons"

# threads carry threading's names (the Thread object's _name: shared-keys
# values, a dict of its own, not ASCII), the OS name for none
named_threads() { # PYTHON
	"$YS" record -o "$T/n.folded" -- "$1" "$FIX/pyfix.py" named \
		2>"$T/nrep" || { cat "$T/nrep"; return 1; }
	for tn in MainThread worker_0 downloader скачать dicted; do
		grep -q "^  thread $tn (pid" "$T/nrep" ||
			{ echo "no thread $tn"; cat "$T/nrep"; return 1; }
	done
}

while read -r py; do
	t "record -- $py: threads named as threading names them" \
		retry named_threads "$py"
done <"$T/pythons"

# --idle: the time off the CPU, under [idle] (sleeping: nap's 400 ms at
# least, its Python frames in), [idle: GIL] for threads waiting for the
# GIL; none of it without --idle
idle_checks() { # PYTHON
	"$YS" record --idle -o "$T/i.folded" -- "$1" "$FIX/pyfix.py" idle \
		2>"$T/irep" || { cat "$T/irep"; return 1; }
	grep -q "^idle: [0-9]* samples' worth off the CPU" "$T/irep" &&
	python3 - "$T/i.folded" <<'PY' || { cat "$T/irep"; return 1; }
import sys
idle = gil = nap = 0
for line in open(sys.argv[1]):
    st, n = line.rsplit(" ", 1)
    fr = st.split(";")
    idle += int(n) if fr[0] == "[idle]" else 0
    gil += int(n) if fr[0] == "[idle: GIL]" else 0
    nap += int(n) if fr[0] == "[idle]" and any(
        f.startswith("nap (pyfix.py:") for f in fr) else 0
# 20 sleeps of 20 ms are 400 samples' worth at 999 Hz, at least
assert idle >= 300 and nap >= 1 and gil >= 1, (idle, nap, gil)
PY
}

while read -r py; do
	t "record --idle -- $py: sleeping and GIL-waiting threads" \
		retry idle_checks "$py"
done <"$T/pythons"
# two threads running Python code take turns holding the GIL: a thread
# off its CPU waits for it alone (the program blocks on nothing else).
# Debian's python3.11 has no take_gil in its symbols (stripped, the
# function static): its waits, a condition variable the interpreter's
# own code waits on, went under [idle] (0 of 263 samples' worth under
# [idle: GIL] in one run); the C library's condition variable waits
# called from the interpreter's code are the GIL's
gil_turns() {
	"$YS" record --idle -o "$T/g.folded" -- /usr/bin/python3.11 -c "
import threading
def spin(n):
    x = 0
    for i in range(n):
        x += i
ts = [threading.Thread(target=spin, args=(4000000,)) for _ in range(2)]
for t in ts: t.start()
for t in ts: t.join()
" 2>"$T/grep" || { cat "$T/grep"; return 1; }
	python3 - "$T/g.folded" <<'PY' || { cat "$T/grep"; return 1; }
import sys
gil = other = 0
for line in open(sys.argv[1]):
    st, n = line.rsplit(" ", 1)
    fr = st.split(";")
    if any(f.startswith("spin (") for f in fr):
        gil += int(n) if fr[0] == "[idle: GIL]" else 0
        other += int(n) if fr[0] == "[idle]" else 0
# each thread waits while the other runs: about as long as it runs
assert gil >= 50 and gil >= 9 * other, (gil, other)
PY
}
t "record --idle -- python3.11 (stripped): GIL turns under [idle: GIL]" \
	retry gil_turns
# where a user may not have kernel-level events (paranoid 2, no
# CAP_PERFMON) the switches cannot be sampled: refused, not empty
if [ "$(id -u)" = 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ]; then
	t "--idle refused where context switches cannot be sampled" sh -c '
		su nobody -s /bin/sh -c "\"$YS\" record --idle -q -- true" 2>"$T/nob"
		[ $? = 3 ] && grep -q "perf_event_paranoid" "$T/nob"'
fi
# a user may lock kernel.perf_event_mlock_kb of perf rings per CPU, then
# ulimit -l: under a small limit (600 KiB here, as Debian's 8 MiB is on a
# machine of over 16 CPUs) the rings are made smaller and the program is
# recorded, with its Python frames, the report saying so (before: exit
# 3, "cannot map a perf ring buffer of 1024 KiB per CPU")
small_memlock() {
	d=$(mktemp -d) && chmod 777 "$d" &&
	sh -c 'ulimit -l 600 && exec setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"' sh \
		"$YS" record -o "$d/m.folded" -- /usr/bin/python3.11 \
		"$FIX/pyfix.py" cpu 2>"$T/ml" || { cat "$T/ml"; return 1; }
	grep -Eq "^the perf ring buffers: [0-9]+ KiB per CPU, not [0-9]+: what a user may lock" "$T/ml" &&
	grep -q "burn_a (pyfix.py:" "$d/m.folded" ||
		{ head -n 3 "$T/ml"; return 1; }
	rm -rf "$d"
}
if [ "$(id -u)" = 0 ]; then
	t "a user's small memlock limit: smaller rings, said so, the Python frames in" small_memlock
fi
t "no idle stacks without --idle" sh -c '
	"$YS" record -q -o "$T/ni.folded" -- /usr/bin/python3.11 \
		"$FIX/pyfix.py" idle && ! grep -q "^\[idle" "$T/ni.folded"'

# the outputs carry the Python frames: file and executing line in
# speedscope and pprof, "qualname (file:line)" with --lines
t "speedscope, pprof and --lines carry Python files and lines" sh -c '
	"$YS" record -q --lines -o "$T/l.speedscope.json" -o "$T/l.pb.gz" \
		-o "$T/l.folded" -- /usr/bin/python3.11 "$FIX/pyfix.py" zlib cpu &&
	python3 - "$T/l.speedscope.json" <<"PY" &&
import json, sys
d = json.load(open(sys.argv[1]))
fr = [f for f in d["shared"]["frames"] if f["name"].startswith("burn_a (")]
assert fr and all(f["file"].endswith("pyfix.py") and f["line"] > 20
                  for f in fr), fr
PY
	gzip -dc "$T/l.pb.gz" | grep -aq "pyfix.py" &&
	a=$(grep -n "^def burn_a" "$FIX/pyfix.py" | cut -d: -f1) &&
	u=$(grep -n "^def unit" "$FIX/pyfix.py" | cut -d: -f1) &&
	grep -Eq ";burn_a \(pyfix.py:$((a + 2))\);unit \(pyfix.py:($((u + 2))|$((u + 3)))\)" "$T/l.folded" &&
	! grep -q "(pyfix.py:[0-9]*) (pyfix" "$T/l.folded" &&
	! grep -q "_PyEval_EvalFrameDefault;burn_a" "$T/l.folded"'

# --python off (issue 27): the interpreter's own frames, named as a stack
# kept native is with --python on (a stripped python3's unnamed functions
# one [CPython interpreter] frame, not python3.11+0x...), and whole
# (unwound with dwarf: CPython has no frame pointers): >= 95% of the
# samples reach _start
t "--python off: the interpreter's own frames, named, whole stacks" sh -c '
	"$YS" record -q --python off -o "$T/off.folded" -- /usr/bin/python3.11 \
		"$FIX/pyfix.py" cpu && grep -q "_PyEval_EvalFrameDefault" "$T/off.folded" &&
	grep -q "\[CPython interpreter\]" "$T/off.folded" &&
	! grep -q "pyfix.py" "$T/off.folded" &&
	! grep -Eq "python3\.11\+0x|unknown in python3" "$T/off.folded" &&
	awk "{ t += \$NF } /^_start;/ { s += \$NF }
	     END { exit !(t >= 300 && s >= 0.95 * t) }" "$T/off.folded"'
t "--python takes on or off only" expect_exit 2 "$YS" record --python maybe -- true
t "... and says so" has "$T/stderr" "--python"

# frames are read after the sample: when calls alternate faster than
# that, a read that caught the next call is dropped, never put under the
# wrong caller (libz's frames belong under squeeze, never under spin)
no_wrong_caller() {
	"$YS" record -q -o "$T/mix.folded" -- /usr/bin/python3.11 "$FIX/pyfix.py" mix &&
	python3 - "$T/mix.folded" <<"PY"
import sys
good = bad = 0
for line in open(sys.argv[1]):
    st, n = line.rsplit(" ", 1)
    fr = st.split(";")
    py = [f for f in fr if " (pyfix.py:" in f]
    if py and any(f == "deflate" or "libz" in f for f in fr):
        if py[-1].startswith("squeeze ("):
            good += int(n)
        else:
            bad += int(n)
assert bad <= good // 100, ("wrong caller", good, bad)
# too few samples (a busy machine): measure again
sys.exit(0 if good >= 50 else 3)
PY
}
# a wrong caller fails at once; only too few samples are measured again
wrong_caller_checks() {
	for try in 1 2 3; do
		no_wrong_caller; r=$?
		[ $r = 3 ] || return $r
	done
	return 1
}
t "fast switching: native frames never under the wrong Python caller" wrong_caller_checks

# exceptions: a raise and its catch run in the cold part of the
# interpreter's evaluation function (profile/elfcold.h), in that
# function's place on the stack; its samples are raise_loop's, not kept
# native as disagreeing with the Python frames (before: 81-99 of ~330)
raise_checks() {
	"$YS" record -o "$T/raise.folded" -- /usr/bin/python3.11 \
		"$FIX/pyfix.py" raise 2>"$T/raise.txt" || return 1
	python3 - "$T/raise.txt" "$T/raise.folded" <<"PY"
import re, sys
m = re.search(r"python: (\d+) samples of CPython, .*?(\d+) whose evaluation "
              r"frames and Python frames disagreed", open(sys.argv[1]).read())
total, bad = int(m.group(1)), int(m.group(2))
mine = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[2])
           if "raise_loop (pyfix.py:" in l)
print("# samples", total, "disagreeing", bad, "raise_loop", mine)
sys.exit(0 if total >= 100 and bad <= total // 20 and mine >= total // 2 else 1)
PY
}
t "exceptions: the evaluation function's cold part holds its Python frames" retry raise_checks

# a JIT's code (anonymous memory, no unwind tables, no frame pointer:
# oneDNN's kernels under PyTorch's convolutions, CPython 3.12's -X perf
# trampolines): the native walk stops there, short of the interpreter's
# evaluation frames; the Python frames still hold the sample, with the
# thread's outer native frames (before: kept native as disagreeing, a
# lone [unknown], 240 of 422 samples)
# (The JIT's samples lost would be a lone [unknown], outside jit_burn:
# counted against it, not jit_burn's share of all samples, which the
# interpreter's start-up and imports take more of on a slow or loaded
# machine: 47% in the sanitized build at a load of 4 on the PVM guest.)
jit_checks() {
	PYFIX_SCALE=2 "$YS" record -o "$T/jit.folded" -- /usr/bin/python3.11 \
		"$FIX/pyfix.py" jit 2>"$T/jit.txt" || return 1
	python3 - "$T/jit.txt" "$T/jit.folded" <<"PY"
import re, sys
m = re.search(r"python: (\d+) samples of CPython", open(sys.argv[1]).read())
total = int(m.group(1))
burn = jit = rooted = lone = 0
for l in open(sys.argv[2]):
    st, n = l.rsplit(" ", 1)
    n = int(n)
    if "jit_burn (pyfix.py:" in st:
        burn += n
        rooted += n * st.startswith("_start;")
        jit += n * st.endswith(";[unknown]")
    elif st.split(";")[-1] == "[unknown]" and "(pyfix.py:" not in st:
        lone += n
print("# samples", total, "jit_burn", burn, "in the JIT code", jit,
      "from _start", rooted, "[unknown] outside Python", lone)
sys.exit(0 if total >= 100 and burn >= 200 and lone <= burn // 10 and
         jit >= burn // 3 and rooted >= burn * 9 // 10 else 1)
PY
}
t "a JIT's code: the Python frames hold its samples, under the thread's root" retry jit_checks

# the same in a thread of its own, whose first samples are in the JIT's
# code: no whole stack of the thread is known yet, and those samples wait
# for the first (jit_py's) to give them the thread's root (before: a
# third of jit_burn's samples, the first round's, started at jit_outer,
# as did ~100 of 488 in the main thread on CI's loaded machine, where the
# samples before them had been read too late)
jit_thread_checks() {
	PYFIX_SCALE=2 "$YS" record -o "$T/jt.folded" -- /usr/bin/python3.11 \
		"$FIX/pyfix.py" jit-thread 2>"$T/jt.txt" || return 1
	python3 - "$T/jt.txt" "$T/jt.folded" <<"PY"
import re, sys
rep = open(sys.argv[1]).read()
m = re.search(r"python: (\d+) samples of CPython", rep)
burn = rooted = 0
roots = {}
for l in open(sys.argv[2]):
    st, n = l.rsplit(" ", 1)
    n = int(n)
    if "jit_burn (pyfix.py:" in st:
        burn += n
        r = st.split(";")[0]
        roots[r] = roots.get(r, 0) + n
# the thread's root: where jit_py's whole stacks start
top = max(roots, key=roots.get) if roots else None
rooted = roots.get(top, 0)
print("# samples", m and m.group(1), "jit_burn", burn, "roots", sorted(roots.items(), key=lambda x: -x[1])[:4])
assert top and "jit_" not in top and "(pyfix.py:" not in top, top
sys.exit(0 if burn >= 200 and rooted >= burn * 9 // 10 else 1)
PY
}
t "a JIT's code first in a thread: its samples wait for the thread's root" retry jit_thread_checks
# trace the same: each sample in its place in the timeline, its stack
# made again once the thread's root is known
jit_thread_trace() {
	PYFIX_SCALE=2 "$YS" trace --no-store -o "$T/jt.json" -- \
		/usr/bin/python3.11 "$FIX/pyfix.py" jit-thread 2>"$T/jtt.txt" ||
		{ cat "$T/jtt.txt"; return 1; }
	python3 - "$T/jt.json" <<"PY"
import json, sys
t = json.load(open(sys.argv[1]))
st = [e["args"]["stack"] for e in t["traceEvents"]
      if e.get("ph") == "i" and e.get("cat") == "sample"]
roots = {}
for x in st:
    if "jit_burn (pyfix.py:" in x:
        r = x.split(";")[0]
        roots[r] = roots.get(r, 0) + 1
burn = sum(roots.values())
top = max(roots, key=roots.get) if roots else None
print("# jit_burn", burn, "roots", sorted(roots.items(), key=lambda x: -x[1])[:4])
assert top and "jit_" not in top and "(pyfix.py:" not in top, top
sys.exit(0 if burn >= 200 and roots[top] >= burn * 9 // 10 else 1)
PY
}
t "  and in trace's timeline" retry jit_thread_trace

# a recursion deeper than the frames a stack keeps: the innermost frames,
# ending in a [truncated] root (before: at 3000 deep every sample kept
# native as unreadable, and at 1500 the stacks cut at 512 frames under a
# false root)
deep_checks() {
	"$YS" record -o "$T/deep.folded" -- /usr/bin/python3.11 \
		"$FIX/pyfix.py" deep3000 2>"$T/deep.txt" || return 1
	python3 - "$T/deep.folded" <<"PY"
import sys
leaf = cut = 0
for l in open(sys.argv[1]):
    st, n = l.rsplit(" ", 1)
    if "deep_leaf (pyfix.py:" in st:
        leaf += int(n)
        cut += int(n) * (st.startswith("[truncated];deeper (pyfix.py:"))
print("# deep_leaf", leaf, "under [truncated]", cut)
sys.exit(0 if leaf >= 50 and cut >= leaf * 9 // 10 else 1)
PY
}
t "a recursion 3000 deep: its innermost frames under [truncated]" retry deep_checks

# multiprocessing's children, forked and spawned (a new interpreter exec'd)
mp_children() { # METHOD: mp_work's samples in the children (2 x 100 units)
	"$YS" record -q -o "$T/mp.folded" -- /usr/bin/python3.11 "$FIX/pyfix.py" "mp-$1" &&
	python3 - "$T/mp.folded" <<"PY"
import sys
n = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[1]) if "mp_work (pyfix.py:" in l)
assert n >= 40, n
PY
}
t "multiprocessing children (fork) are Python too" retry mp_children fork
t "multiprocessing children (spawn: a new interpreter) are Python too" retry mp_children spawn
# forkserver: the children are the server's, which the program never waits
# for: their CPU time is the tree's all the same (it was 0.17 s for 2.3 s
# of samples: 13426 Hz "effective")
mp_cpu() {
	"$YS" record -o "$T/mpfs.folded" -- /usr/bin/python3.11 "$FIX/pyfix.py" mp-forkserver 2>"$T/mpfs.txt" &&
	python3 - "$T/mpfs.txt" <<"PY"
import re, sys
m = re.search(r"(\d+) samples in [\d.]+ s, ([\d.]+) s of CPU \((\d+) Hz effective\)", open(sys.argv[1]).read())
n, cpu, hz = int(m.group(1)), float(m.group(2)), int(m.group(3))
print("# samples", n, "cpu", cpu, "Hz", hz)
sys.exit(0 if n >= 100 and 600 <= hz <= 1300 else 1)
PY
}
t "multiprocessing children (forkserver): the tree's CPU time counts them" retry mp_cpu

# trace: the same Python frames in its samples' stacks
# trace names a Python thread as threading does, as record does (the
# thread table and its thread_name metadata said python3 for all)
t "trace: Python threads named as threading names them" sh -c '
	"$YS" trace --no-store -o "$T/tn.json" -- /usr/bin/python3.11 "$FIX/pyfix.py" named >"$T/tn.out" 2>"$T/tn.txt" &&
	python3 - "$T/tn.json" <<"PY"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
names = {e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
assert "downloader" in names and any(n.startswith("worker_") for n in names), names
PY'
# the threads table's columns stay under their headings whatever the
# names: threading names each of http.server's handler threads
# "Thread-1 (process_request_thread)", 33 columns, which pushed its
# row's figures 17 columns right of their headings; a name past 48
# columns is cut there (a thread's name is read at its samples: the
# threads run on the CPU)
t "trace: the threads table aligned with Python threads' long names" sh -c '
	"$YS" trace --no-store -- /usr/bin/python3 -c "
import threading, time
def process_request_thread():
    end = time.thread_time() + 0.05     # on the CPU: named at a sample
    while time.thread_time() < end:
        pass
ts = [threading.Thread(target=process_request_thread) for _ in range(2)]
ts.append(threading.Thread(target=process_request_thread, name=\"n\" * 60))
for t in ts: t.start()
for t in ts: t.join()
" 2>"$T/tl.txt" &&
	python3 - "$T/tl.txt" <<"PY"
import sys
lines = open(sys.argv[1]).read().split("\n")
i = lines.index("threads (ms)")
head = lines[i + 1]
end = head.index("lifetime") + len("lifetime")
rows = [l for l in lines[i + 2:] if l[:17].split() and l.split()[0].isdigit()]
names = [r[18:end - 11].rstrip() for r in rows]
assert "Thread-1 (process_request_thread)" in names, (names, lines)
assert "n" * 48 in names, names
assert len(rows) >= 4, lines
for r in rows:
    float(r[end - 10:end])          # the lifetime, under its heading
    assert r[end] == " " and r[end - 11] == " ", (r, head)
PY'
t "trace: samples' stacks hold the Python frames" sh -c '
	"$YS" trace -q --no-store -o "$T/t.json" -- /usr/bin/python3.11 "$FIX/pyfix.py" cpu 2>"$T/t.txt" &&
	python3 - "$T/t.json" "$FIX/pyfix.py" <<"PY"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
st = [e["args"]["stack"] for e in ev if e.get("cat") == "sample"]
src = open(sys.argv[2]).read().splitlines()
line = {f: src.index("def %s(%s):" % (f, "n" if f != "unit" else "")) + 1
        for f in ("burn_a", "burn_b", "unit")}
a = sum(";burn_a (pyfix.py:%d);unit (pyfix.py:%d)" % (line["burn_a"], line["unit"]) in s for s in st)
b = sum(";burn_b (pyfix.py:%d);unit (pyfix.py:%d)" % (line["burn_b"], line["unit"]) in s for s in st)
assert a + b >= 300 and abs(100 * a / (a + b) - 70) <= 5, (a, b, len(st))
assert not any("_PyEval_EvalFrameDefault;unit" in s for s in st)
PY'
t "trace --python off: the interpreter's frames, named" sh -c '
	"$YS" trace -q --no-store --python off -o "$T/t0.json" -- /usr/bin/python3.11 "$FIX/pyfix.py" zlib &&
	! grep -q "pyfix.py" "$T/t0.json" && grep -q "_PyEval_EvalFrameDefault" "$T/t0.json" &&
	grep -q "\[CPython interpreter\]" "$T/t0.json" &&
	! grep -Eq "python3\.11\+0x|unknown in python3" "$T/t0.json"'

# a version the walker does not know: named, its stacks left native
for v in 3.10 2.7; do
	set -- "$PYENV"/$v.*/bin/python$v
	if [ -x "$1" ]; then
		t "python $v: named and refused, native frames kept" sh -c '
			"$YS" record -o "$T/old.folded" -- "$1" -c "
for i in range(3000000): pass" 2>"$T/old.txt" &&
			grep -q "python $2 is not supported (3.11, 3.12, 3.13 are)" "$T/old.txt" &&
			! grep -q "^python: " "$T/old.txt" && [ -s "$T/old.folded" ]' sh "$1" "$v"
	else
		skip "python $v: named and refused" "no pyenv $v"
	fi
done
finish
