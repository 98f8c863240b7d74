# yardstick mem on CPython programs: tests/fixtures/py/memfix.py allocates
# known sizes on known lines; with the Python frames walked by the agent
# (and PYTHONMALLOC=malloc, which yardstick sets), the bytes, allocations,
# temporaries, bytes live at the peak and leaked bytes of each of those
# lines must be exactly the fixture's own figures (sys.getsizeof), and the
# bytes at the peak tracemalloc's by-line figures, an independent
# measurement. Debian's python3.11 (static interpreter) always; the pyenv
# builds of this machine's developers (3.11.7, 3.12.1, 3.13.0: libpython)
# when they are there; 3.10, which the layout table does not know, must
# be named and attributed to native frames only.
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/py" && pwd)/memfix.py
PYENV=${PYENV_ROOT:-/root/.pyenv}/versions
# meson's MALLOC_PERTURB_ has glibc fill every block and every free: with
# PYTHONMALLOC=malloc each Python object is one, and the runs take minutes
unset MALLOC_PERTURB_

# python3 "$C" memfix.py EXPECT.json SPEEDSCOPE.json (mem_byline.py): every
# figure of EXPECT found at
# the fixture's lines (the innermost memfix.py frame of each stack).
C=$(dirname "$0")/mem_byline.py

# by_line PYTHON NAME [OPTION...]: mem's figures by line equal the
# fixture's
by_line() {
	py=$1 name=$2
	shift 2
	"$py" "$FIX" "$T/$name.tm.json" --tracemalloc || return 1
	"$YS" mem --no-store "$@" -o "$T/$name.speedscope.json" \
		-o "$T/$name.folded" -- "$py" "$FIX" "$T/$name.json" \
		2>"$T/$name.report" || { cat "$T/$name.report"; return 1; }
	python3 - "$T/$name.tm.json" "$T/$name.json" <<'PY' || return 1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
b["tracemalloc_peak"] = a["tracemalloc_peak"]
json.dump(b, open(sys.argv[2], "w"))
PY
	python3 "$C" memfix.py "$T/$name.json" "$T/$name.speedscope.json"
}

# frames NAME: the Python frames in every output, in place of the
# interpreter's, the native ones kept on both sides
frames() {
	# the report names a Python frame as every output does: its def
	# line (the executing line with --lines: lines_report below)
	bigdef=$(grep -n "^def big" "$FIX" | cut -d: -f1)
	has "$T/$1.report" "big (memfix.py:$bigdef)" &&
	has "$T/$1.report" "PyByteArray_Resize" &&
	# its module is [python], as record's column says, not [[python]]
	has "$T/$1.report" "big (memfix.py:$bigdef) [python]" &&
	! grep -qF "[[python]]" "$T/$1.report" &&
	grep -q ";<module> (memfix.py:1);main (memfix.py:[0-9]*);big (memfix.py:[0-9]*);.*PyByteArray_Resize" "$T/$1.folded" &&
	! grep -q "_PyEval_EvalFrameDefault;[^;]*big (memfix" "$T/$1.folded" &&
	grep -q "PyEval_EvalCode;.*<module> (memfix.py:1);main (memfix.py:[0-9]*);big (memfix" "$T/$1.folded"
}

run_version() {
	py=$1 name=$2
	t "$name: bytes, allocations, temporaries, peak, leaks by Python line" \
		by_line "$py" "$name"
	t "$name: Python frames replace the interpreter's, natives kept" \
		frames "$name"
}

run_version /usr/bin/python3.11 debian-3.11
for v in 3.11.7 3.12.1 3.13.0; do
	m=${v%.*}
	if [ -x "$PYENV/$v/bin/python$m" ]; then
		run_version "$PYENV/$v/bin/python$m" "pyenv-$v"
	else
		skip "pyenv $v: by Python line" "no pyenv build of $v here"
		skip "pyenv $v: frames" "no pyenv build of $v here"
	fi
done

# threads: four allocate at once, with the GIL (bytearray, exact bytes
# of its object and buffer at its line) and without it (os.listdir's opendir, while other threads
# hold the GIL: every one under the worker's os.listdir line)
THF=$(dirname "$FIX")/memthreads.py
threads() {
	"$YS" mem --no-store -q -o "$T/th.speedscope.json" -- "$1" "$THF" \
		"$T/th.json" || return 1
	python3 - "$T/th.json" "$T/th.speedscope.json" <<'PY'
import json, sys
ex = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
frames = doc["shared"]["frames"]
prof = {p["name"]: p for p in doc["profiles"]}
def line_of(stack):
    for i in reversed(stack):
        f = frames[i]
        if f.get("file", "").endswith("/memthreads.py") and "line" in f:
            return f["line"]
keep = opendir = 0
for st, w in zip(prof["alloc_space"]["samples"],
                 prof["alloc_space"]["weights"]):
    # the bytearrays (object, buffer): with threads, the call's argument
    # tuple on the same line comes from the tuple free list or, when
    # another thread emptied it, from malloc: not counted
    if line_of(st) == ex["lines"]["keep"] and any(
            frames[i]["name"] in ("PyType_GenericAlloc",
                                  "PyByteArray_Resize") for i in st):
        keep += w
for st, w in zip(prof["alloc_objects"]["samples"],
                 prof["alloc_objects"]["weights"]):
    if line_of(st) == ex["lines"]["listdir"] and any(
            frames[i]["name"] == "__alloc_dir" for i in st):
        opendir += w
print("keep", keep, ex["allocated"]["keep"], "opendir", opendir,
      ex["opendirs"])
sys.exit(keep != ex["allocated"]["keep"] or opendir != ex["opendirs"])
PY
}
t "threads, with the GIL and without: Debian 3.11" threads /usr/bin/python3.11
for v in 3.12.1 3.13.0; do
	m=${v%.*}
	if [ -x "$PYENV/$v/bin/python$m" ]; then
		t "threads, with the GIL and without: pyenv $v" threads \
			"$PYENV/$v/bin/python$m"
	else
		skip "threads: pyenv $v" "no pyenv build of $v here"
	fi
done

# Each thread of a Python program gets the agent's tables of lines and a
# buffer of frames (136 KiB of mappings, the frames off the program's own
# stack): they go at the thread's end. 1500 short threads, one after the
# other, each allocating: the process's resident memory grows by less
# than 20 MiB from the 100th thread to the last (by 123 MiB when they
# stayed; 0.1-0.5 MiB now). Not VmSize: glibc may give a thread that
# starts while the one before is still ending an arena of its own, 64
# MiB of address space, whatever the agent does.
churn() {
	cat > "$T/churn.py" <<'PY'
import sys, threading
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
def work():
    x = [str(i) * 2 for i in range(50)]
at = None
for i in range(1500):
    th = threading.Thread(target=work)
    th.start()
    th.join()
    if i == 99:
        at = rss()
open(sys.argv[1], "w").write("%d %d\n" % (at, rss()))
PY
	"$YS" mem -q --no-store -- /usr/bin/python3.11 "$T/churn.py" "$T/churn" ||
		return 1
	read a b <"$T/churn"
	echo "# VmRSS after 100 threads ${a} kB, after 1500 ${b} kB"
	[ $((b - a)) -lt 20480 ]
}
t "1500 short Python threads: the agent's per-thread tables go with them" churn

# peak RSS is the tree's largest process's: a multiprocessing child (fork,
# ending by os._exit, which runs no exit handler; spawn, a new
# interpreter) holding 60 MB while its parent holds ~20 (was the parent's
# alone: 21 MiB)
peak_rss_child() {
	cat > "$T/mprss.py" <<'PY'
import multiprocessing as mp, sys
def child():
    data = [bytearray(1_000_000) for _ in range(60)]
if __name__ == "__main__":
    mp.set_start_method(sys.argv[1])
    p = mp.Process(target=child); p.start(); p.join()
PY
	"$YS" mem --no-store --json "$T/mprss.json" -- /usr/bin/python3.11 "$T/mprss.py" "$1" \
		>/dev/null 2>"$T/mprss.err" || { cat "$T/mprss.err"; return 1; }
	python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['benchmarks'][0]['metrics']
v = m['peak_rss']['values'][0]
assert 62e6 <= v <= 140e6, v" "$T/mprss.json"
}
# a recursion deeper than the Python frames a stack keeps (128): the
# innermost ones under a [truncated] root, not under the interpreter's
# native root as if the outer frames were not there
deep_mem() {
	cat > "$T/deepmem.py" <<'PY'
import sys
sys.setrecursionlimit(10000)
keep = []
def leaf():
    keep.append(bytearray(10_000_000))
def rec(n):
    if n == 0:
        return leaf()
    return rec(n - 1)
rec(int(sys.argv[1]))
PY
	"$YS" mem -q --no-store -o "$T/deep$1.folded" -- /usr/bin/python3.11 "$T/deepmem.py" "$1" || return 1
	python3 - "$T/deep$1.folded" "$1" <<'PY'
import sys
depth = int(sys.argv[2])
rows = [l.rsplit(" ", 1) for l in open(sys.argv[1]) if "leaf (deepmem.py:" in l]
assert sum(int(n) for _, n in rows) >= 10_000_000, rows
for st, _ in rows:
    f = st.split(";")
    recs = sum(x.startswith("rec (deepmem.py:") for x in f)
    if depth > 200:
        assert f[0] == "[truncated]" and recs == 127, (f[:3], recs)
    else:
        assert f[0] == "_start" and "<module> (deepmem.py:1)" in f and recs == depth + 1, (f[:3], recs)
PY
}
t "a recursion 1500 deep: the innermost frames under [truncated]" deep_mem 1500
t "... 50 deep: all of them, under the native root" deep_mem 50

# the stacks' store (src/heap/stackstore.c) interns the stacks in both
# replays: deep_mem's recursion 300 deep (native stacks cut at the depth
# limit, Python frames torn past HEAP_PY_MAX; the interpreter's start-up
# stacks beside them) comes out the same by allocations (counts a run of
# CPython repeats exactly; the distinct raw stacks vary by a few percent
# from run to run, so their count is only looked for)
deep_replays() {
	for replay in live after; do
		PYTHONHASHSEED=0 YARDSTICK_MEM_REPLAY=$replay "$YS" mem --no-store \
			--cost allocations -o "$T/dm-$replay.folded" -- \
			/usr/bin/python3.11 "$T/deepmem.py" 300 2>"$T/dm-$replay.err" &&
		grep -q "^  yardstick .* held (records .*, [1-9][0-9,]* stacks in " \
			"$T/dm-$replay.err" || { cat "$T/dm-$replay.err"; return 1; }
	done
	cmp "$T/dm-live.folded" "$T/dm-after.folded" &&
	grep -q "^\[truncated\];rec (deepmem.py:[0-9]*);.*;leaf (deepmem.py:[0-9]*);" \
		"$T/dm-live.folded"
}
t "both replays: the same stacks, cut and torn ones too" deep_replays
t "peak RSS: a forked child's, ended by os._exit" peak_rss_child fork
t "peak RSS: a spawned child's" peak_rss_child spawn


# --unwind fp: CPython is built without frame pointers, so the native
# walk stops in the interpreter; the Python frames, walked by the agent
# all the same, go at its outer end
t "--unwind fp: exact by Python line all the same" by_line \
	/usr/bin/python3.11 fp --unwind fp

# a program that execs Python (a wrapper script, pyenv's shims): the new
# image's agent walks its frames, its code objects kept apart from the
# image before's (PYCODE records of image 2)
exec_wrapper() {
	"$YS" mem --no-store -q -o "$T/ex.speedscope.json" -- sh -c \
		'exec /usr/bin/python3.11 "$0" "$1"' "$FIX" "$T/ex.json" ||
		return 1
	python3 "$C" memfix.py "$T/ex.json" "$T/ex.speedscope.json"
}
t "a wrapper that execs python3.11: exact by line" exec_wrapper

# one naming rule (issue 27 item 4): with --lines the report, the folded
# stacks and the SVG all name big by the line executing; without, all by
# its def line
lines_report() {
	"$YS" mem --no-store --lines -o "$T/lr.folded" -- /usr/bin/python3.11 \
		"$FIX" "$T/lr.json" 2>"$T/lr.report" || return 1
	big=$(python3 -c "import json; print(json.load(open('$T/lr.json'))['lines']['big'])")
	bigdef=$(grep -n "^def big" "$FIX" | cut -d: -f1)
	[ "$big" != "$bigdef" ] &&
	has "$T/lr.report" "big (memfix.py:$big)" &&
	has "$T/lr.folded" "big (memfix.py:$big)" &&
	! grep -q "big (memfix.py:$bigdef)" "$T/lr.report" "$T/lr.folded" &&
	! grep -q "big (memfix.py:$big)" "$T/debian-3.11.report" \
		"$T/debian-3.11.folded"
}
t "one naming rule: def line in report and folded, executing line with --lines" \
	lines_report

# exceptions: the interpreter runs a raise's and a catch's paths in the
# cold part of its evaluation function (profile/elfcold.h), which a stack
# walk finds in that function's place, unnamed in Debian's stripped
# python3. Each of 3 x 1000 raises allocates one traceback entry
# (PyTraceBack_Here) in raiser's frame: all 3000 are raiser's, and no
# site is left with its native frames (before, 9000 of its allocations
# were, with "7 allocation sites kept their native frames").
raises() {
	cat > "$T/raiser.py" <<'PY'
class Boom(Exception):
    pass


def raiser(n):
    d = {}
    for i in range(n):
        try:
            d[i]
        except KeyError:
            pass
        try:
            raise Boom(i)
        except Boom:
            pass
        try:
            from os import no_such_name  # noqa: F401
        except ImportError:
            pass


raiser(1000)
PY
	"$YS" mem --no-store --cost allocations -o "$T/raise.folded" -- \
		/usr/bin/python3.11 "$T/raiser.py" 2>"$T/raise.report" || return 1
	! grep -q "kept their native frames" "$T/raise.report" &&
	awk '/;raiser \(raiser.py:5\);PyTraceBack_Here [0-9]+$/ { n += $NF }
	     /PyTraceBack_Here [0-9]+$/ && !/raiser \(raiser.py:5\)/ &&
		/_PyRun_SimpleFileObject/ { bad += $NF }
	     END { print "# raiser tracebacks", n, "elsewhere", bad + 0
		   exit !(n == 3000 && bad == 0) }' "$T/raise.folded"
}
t "exceptions: the evaluation function's cold part is its Python frames" raises

# every output: the SVG and pprof name the fixture's functions too
outputs() {
	"$YS" mem --no-store -q --lines -o "$T/o.svg" -o "$T/o.pb.gz" -- \
		/usr/bin/python3.11 "$FIX" "$T/o.json" || return 1
	small=$(python3 -c "import json; print(json.load(open('$T/o.json'))['lines']['small'])")
	has "$T/o.svg" "many_small (memfix.py:$small)" &&
	gzip -dc "$T/o.pb.gz" | grep -aq "many_small" &&
	gzip -dc "$T/o.pb.gz" | grep -aq "memfix.py"
}
t "flame SVG and pprof name the Python functions" outputs

# --python off: the interpreter's raw frames, no Python frame
python_off() {
	"$YS" mem --no-store -q --python off -o "$T/off.folded" -- \
		/usr/bin/python3.11 "$FIX" "$T/off.json" || return 1
	grep -q "_PyEval_EvalFrameDefault" "$T/off.folded" &&
	! grep -q "memfix.py" "$T/off.folded"
}
t "--python off keeps the interpreter's frames" python_off
# the stripped python3's unnamed code named as record names it (issue 27):
# one [CPython interpreter] frame in a native stack, left out of a stack
# with Python frames; never python3.11+0x5cfad0 nor [unknown in python3.11]
interp_named() {
	grep -q "\[CPython interpreter\]" "$T/off.folded" &&
	! grep -Eq "python3\.11\+0x|unknown in python3" "$T/off.folded" \
		"$T/debian-3.11.folded"
}
t "the interpreter's unnamed code: [CPython interpreter], --python on and off" \
	interp_named
t "--python takes on or off only" expect_exit 2 "$YS" mem --python maybe \
	-- /usr/bin/python3.11 -c pass

# PYTHONMALLOC: set by the agent unless the user set it, then kept, warned
pymalloc_env() {
	"$YS" mem --no-store -q -- /usr/bin/python3.11 -c \
		"import os; print(os.environ.get('PYTHONMALLOC'))" \
		>"$T/pm.out" 2>"$T/pm.err" || return 1
	[ "$(cat "$T/pm.out")" = malloc ] && ! grep -q PYTHONMALLOC "$T/pm.err"
}
t "PYTHONMALLOC=malloc set for a CPython program" pymalloc_env
pymalloc_empty() {
	PYTHONMALLOC= pymalloc_env
}
t "an empty PYTHONMALLOC (unset, to the interpreter) set too" pymalloc_empty
pymalloc_user() {
	PYTHONMALLOC=pymalloc "$YS" mem --no-store -q -- /usr/bin/python3.11 \
		-c "import os; print(os.environ['PYTHONMALLOC'])" \
		>"$T/pu.out" 2>"$T/pu.err" || return 1
	[ "$(cat "$T/pu.out")" = pymalloc ] &&
	has "$T/pu.err" "warning: PYTHONMALLOC was set and is kept"
}
t "a user's PYTHONMALLOC kept, with a warning" pymalloc_user
not_python() {
	"$YS" mem --no-store -q -- sh -c 'echo "${PYTHONMALLOC-unset}"' \
		>"$T/np.out" 2>"$T/np.err" || return 1
	[ "$(cat "$T/np.out")" = unset ] && ! grep -qi python "$T/np.err"
}
t "no PYTHONMALLOC, no Python message for other programs" not_python

# with jemalloc preloaded (as PyTorch's guides advise; yardstick too, as
# a user's shell has it), the agent forwards to it: the figures by line
# exact all the same, and a PyTorch program runs (it aborted in free()
# while the agent forwarded to glibc)
JEMALLOC=$(find /usr/lib /lib -name libjemalloc.so.2 2>/dev/null | head -1)
# (a sanitized yardstick cannot run over another allocator, ASan's blocks
# would reach it: there the interpreter alone gets it, after the agent,
# through a wrapper in front of it)
if ! san_build; then
	jemalloc() (
		export LD_PRELOAD="$JEMALLOC"
		"$@"
	)
	PYJ11=/usr/bin/python3.11 PYJ=/usr/bin/python3
else
	jemalloc() { "$@"; }
	for py in python3.11 python3; do
		printf '#!/bin/sh\nLD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}%s" exec /usr/bin/%s "$@"\n' \
			"$JEMALLOC" "$py" >"$T/j$py"
		chmod +x "$T/j$py"
	done
	PYJ11=$T/jpython3.11 PYJ=$T/jpython3
fi
t "jemalloc preloaded: exact by Python line all the same" \
	jemalloc by_line "$PYJ11" jemalloc
torch_jemalloc() {
	jemalloc "$YS" mem --no-store -- "$PYJ" -c '
import torch
m = torch.nn.Linear(64, 64)
for _ in range(10):
    m(torch.randn(8, 64))
keep = [bytes(1000) for _ in range(5000)]' 2>"$T/tj.err" ||
		{ cat "$T/tj.err"; return 1; }
	tj_n=$(sed -n 's/^  allocations *\([0-9,]*\).*/\1/p' "$T/tj.err" | tr -d ,)
	[ "${tj_n:-0}" -ge 5000 ] || { cat "$T/tj.err"; return 1; }
}
t "jemalloc preloaded: a PyTorch program runs, its allocations counted" \
	torch_jemalloc

# a version the table does not know: named, native frames only
if [ -x "$PYENV/3.10.13/bin/python3.10" ]; then
	old() {
		"$YS" mem --no-store -o "$T/old.folded" -- \
			"$PYENV/3.10.13/bin/python3.10" "$FIX" "$T/old.json" \
			2>"$T/old.err" || return 1
		has "$T/old.err" "warning: CPython 3.10.13 is not supported" &&
		has "$T/old.err" "native frames only" &&
		grep -q "_PyEval_EvalFrameDefault" "$T/old.folded" &&
		! grep -q "memfix.py" "$T/old.folded"
	}
	t "CPython 3.10: named, refused, native frames only" old
else
	skip "CPython 3.10: named, refused" "no pyenv build of 3.10.13 here"
fi

# A PyTorch tensor's storage is allocated 30 to 50 native frames below the
# Python line that asked for it: the report's site shows the innermost
# native frames, then the Python frames (the report used to show the 8
# innermost frames only, all of them the allocator's and the
# dispatcher's). tests/fixtures/py/torch_alloc.py keeps 4 convolution
# outputs of 2 MiB each; sampled one per 64 KiB, a 2 MiB block is always
# taken (p = 1 - e^-32), so the site holds 8.000 MiB at the peak (no
# throttle: a raised interval would make it an estimate).
torch_site() {
	tfix=$(dirname "$FIX")/torch_alloc.py
	tdef=$(grep -n "^def keep_outputs" "$tfix" | cut -d: -f1)
	"$YS" mem --no-store --sample 64k --sample-rate 0 -n 1 -- \
		/usr/bin/python3 "$tfix" \
		>/dev/null 2>"$T/torch.report" ||
		{ cat "$T/torch.report"; return 1; }
	# the first site under "bytes live at the peak", to the next list
	sed -n '/^bytes live at the peak/,/^$/p' "$T/torch.report" \
		>"$T/torch.site"
	python3 - "$T/torch.site" "$tdef" <<'PY' || { cat "$T/torch.report"; return 1; }
import re, sys
lines = open(sys.argv[1]).read().split("\n")[1:]
first = lines[0].split()
assert first[:2] == ["8.000", "MiB"], lines[0]
assert first[3].startswith("c10::alloc_cpu"), lines[0]
frames = [l.strip() for l in lines if l.strip()]
more = [i for i, f in enumerate(frames) if re.fullmatch(r"\.\.\. \d+ more frames", f)]
py = [i for i, f in enumerate(frames) if f.endswith("[python]")]
want = "keep_outputs (torch_alloc.py:%s) [python]" % sys.argv[2]
assert want in frames, (want, frames)
# native frames first, the cut, then the Python frames, innermost first
assert more and py and more[0] < py[0], frames
assert frames.index(want) < frames.index("<module> (torch_alloc.py:1) [python]")
assert len(frames) <= 4 + 1 + 8 + 1, frames
PY
}
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
	t "a PyTorch tensor's site: its Python lines under its native frames" \
		torch_site
else
	skip "a PyTorch tensor's site" "no torch for /usr/bin/python3"
fi

finish
