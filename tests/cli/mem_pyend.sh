# yardstick mem's list of what a CPython program's code kept at its end:
# the blocks live when the interpreter began to finalize (after the main
# module and the atexit handlers; Py_FinalizeEx then frees the modules'
# globals, so the leak list never shows them). tests/fixtures/py/pyend.py
# keeps 10 bytearrays of 4 MiB in a module-level list, or nothing, or
# leaves by os._exit, or drops them in an atexit handler; the bytes at
# the append's line (python_end_space, speedscope output) must be exactly
# the fixture's own figures (sys.getsizeof).
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/py" && pwd)/pyend.py
PYENV=${PYENV_ROOT:-/root/.pyenv}/versions
unset MALLOC_PERTURB_	# as mem_python.sh: a glibc fill of every block

# run PYTHON NAME MODE: mem's report, JSON, speedscope and folded (of the
# bytes live at the Python end) of the fixture
run() {
	"$YS" mem --no-store --json "$T/$2.json" -o "$T/$2.speedscope.json" \
		--cost python-end -o "$T/$2.folded" \
		-- "$1" "$FIX" "$3" "$T/$2.out" >"$T/$2.report" 2>&1 ||
		{ cat "$T/$2.report"; return 1; }
}

# at_line NAME TYPE: "LINE BYTES" of the fixture's lines (the innermost
# pyend.py frame of each stack) in the speedscope profile TYPE, one a
# line; nothing when there is no such profile
at_line() {
	python3 - "$T/$1.speedscope.json" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
frames = doc["shared"]["frames"]
got = {}
for prof in doc["profiles"]:
    if prof["name"] != sys.argv[2]:
        continue
    for stack, w in zip(prof["samples"], prof["weights"]):
        for i in reversed(stack):
            f = frames[i]
            if f.get("file", "").endswith("/pyend.py") and "line" in f:
                got[f["line"]] = got.get(f["line"], 0) + w
                break
for k in sorted(got):
    print(k, got[k])
PY
}

# metric NAME KEY: the value of metric KEY in the JSON result, or "none"
metric() {
	python3 - "$T/$1.json" "$2" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
m = b["metrics"].get(sys.argv[2])
print("none" if m is None else "%.0f" % m["values"][0])
PY
}

# keep NAME: the append's line holds exactly 10 bytearrays (object and
# buffer) and the list's item array; leaked shows none of it; the
# report's list has that line first, its total in the JSON
keep() {
	line=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["line"])' "$T/$1.out")
	want=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(10 * d["item"] + d["array"])' "$T/$1.out")
	got=$(at_line "$1" python_end_space | awk -v l="$line" '$1 == l { print $2 }')
	[ "$got" = "$want" ] ||
		{ echo "at line $line: got '$got', want $want"; return 1; }
	leaked=$(at_line "$1" inuse_space | awk -v l="$line" '$1 == l { print $2 }')
	[ -z "$leaked" ] || [ "$leaked" -lt 4194304 ] ||
		{ echo "leaked at line $line: $leaked"; return 1; }
	# the folded output of --cost python-end: keep's stacks hold it all
	fold=$(grep -F "keep (pyend.py:" "$T/$1.folded" | awk '{ s += $NF } END { print s }')
	[ "$fold" = "$want" ] ||
		{ echo "folded, keep: got '$fold', want $want"; return 1; }
	total=$(metric "$1" python_end_bytes)
	[ "$total" != none ] && [ "$total" -ge "$want" ] ||
		{ echo "python_end_bytes $total < $want"; return 1; }
	[ "$(metric "$1" python_end_blocks)" -ge 11 ] || return 1
	# the section's first site is the keep line's
	awk '/^live when the program.s Python code ended: /{ s = 1; next }
	     s && /^$/ { exit } s' "$T/$1.report" >"$T/$1.section"
	has "$T/$1.report" "live when the program's Python code ended: " &&
	sed -n 1p "$T/$1.section" | grep -q "MiB" &&
	sed -n '2,/^  *[0-9]/p' "$T/$1.section" | grep -q "keep (pyend.py:" ||
		{ cat "$T/$1.section"; return 1; }
}

# little NAME: no line of the script holds more than a few KiB then but
# its imports' (the modules they load stay, about 1 MB: the interpreter's)
little() {
	at_line "$1" python_end_space >"$T/$1.lines"
	[ -s "$T/$1.lines" ] || { echo "no python_end_space"; return 1; }
	imports=$(grep -n "^import " "$FIX" | cut -d: -f1 | tr '\n' ' ')
	awk -v imp=" $imports" 'index(imp, " " $1 " ") { next }
	     $2 > 4096 { print "line " $1 ": " $2 " bytes"; bad = 1 }
	     END { exit bad }' "$T/$1.lines" &&
	has "$T/$1.report" "live when the program's Python code ended: "
}

# absent NAME: no such moment: no section, no profile, no metric
absent() {
	! grep -q "Python code ended:" "$T/$1.report" &&
	has "$T/$1.report" "--cost python-end: the program's Python code never ended" &&
	[ -z "$(at_line "$1" python_end_space)" ] &&
	! grep -q python_end_space "$T/$1.speedscope.json" &&
	[ "$(metric "$1" python_end_bytes)" = none ] &&
	[ "$(metric "$1" python_end_blocks)" = none ]
}

# a program that is not CPython: none of it
native() {
	"$YS" mem --no-store --json "$T/native.json" --cost python-end \
		-o "$T/native.speedscope.json" -- sh -c 'echo x' \
		>"$T/native.report" 2>&1 || { cat "$T/native.report"; return 1; }
	absent native
}

version() { # PYTHON NAME
	t "$2: kept in a module list: exactly at the append's line" \
		run "$1" "$2-keep" keep && t "$2: keep: figures" keep "$2-keep"
	t "$2: nothing kept: no line of the script above 4 KiB" \
		run "$1" "$2-none" none && t "$2: none: figures" little "$2-none"
	t "$2: dropped by an atexit handler, which ran before the moment" \
		run "$1" "$2-atexit" atexit &&
		t "$2: atexit: figures" little "$2-atexit"
	t "$2: os._exit: no such moment" run "$1" "$2-exit" exit &&
		t "$2: os._exit: no section, profile or metric" absent "$2-exit"
}

# tensors NAME: PyTorch's (Debian's python3.11 has it): the append's line
# holds the 10 storages of 1 MiB exactly, and each tensor's objects
# (TensorImpl, StorageImpl, the Python object: about 860 bytes) and the
# list's array, well under 1 KiB a tensor more
tensors() {
	line=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["line"])' "$T/$1.out")
	got=$(at_line "$1" python_end_space | awk -v l="$line" '$1 == l { print $2 }')
	[ -n "$got" ] && [ "$got" -ge 10485760 ] &&
		[ "$got" -le $((10485760 + 10 * 1024 + 128)) ] ||
		{ echo "at line $line: got '$got', want 10 MiB + < 10368"; return 1; }
	has "$T/$1.report" "live when the program's Python code ended: " &&
	awk '/^live when the program.s Python code ended: /{ s = 1; next }
	     s && /^$/ { exit } s' "$T/$1.report" >"$T/$1.section" &&
	sed -n 1p "$T/$1.section" | grep -q "10.00 MiB .*c10::alloc_cpu" &&
	sed -n '2,/^  *[0-9]/p' "$T/$1.section" | grep -q "keep_tensors (pyend.py:" ||
		{ cat "$T/$1.section"; return 1; }
}

t "not CPython: no section, profile or metric" native
version /usr/bin/python3.11 debian-3.11
# PyTorch's case in the normal build only: importing torch makes millions
# of allocations (the case took 161 of the test's 252 s in the normal
# build; the whole test 305 s in the sanitized one); its code paths are
# the small cases' (a note, not a skip)
if san_build; then
	echo "# PyTorch: in the normal build (the sanitized build reads the same paths on the cases above)"
elif /usr/bin/python3 -c 'import torch' 2>/dev/null; then
	t "PyTorch: 10 tensors kept in a module list" \
		run /usr/bin/python3 torch torch && t "PyTorch: figures" tensors torch
else
	skip "PyTorch" "no torch for /usr/bin/python3"
fi
for v in 3.12.1 3.13.0; do
	m=${v%.*}
	if [ -x "$PYENV/$v/bin/python$m" ]; then
		version "$PYENV/$v/bin/python$m" "pyenv-$v"
	else
		skip "pyenv $v" "no pyenv build of $v here"
	fi
done
finish
