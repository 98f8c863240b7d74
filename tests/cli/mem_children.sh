# yardstick mem follows the process tree: forked children (native and
# multiprocessing's fork), spawned ones (multiprocessing's spawn: a new
# python3.11 with the agent), a child killed by a signal, 20 at once. Each
# child's allocations at its own lines, exact (tests/fixtures/py/
# memchildren.py, tests/fixtures/heapfix.c forks); the parent's figures as
# without children; a child's free of the copy of a block it inherited
# leaves the parent's block alone; a child's blocks live at its end are
# its leaks and leave the tree's heap then.
. "$(dirname "$0")/lib.sh"
HEAPFIX=${HEAPFIX:?HEAPFIX must name the heap fixture}
FIX=$(cd "$(dirname "$0")/../fixtures/py" && pwd)/memchildren.py
PY=/usr/bin/python3.11
# meson's MALLOC_PERTURB_ makes PYTHONMALLOC=malloc runs take minutes
unset MALLOC_PERTURB_

# python3 "$C" memchildren.py EXPECT.json SPEEDSCOPE.json REPORT: every
# figure of EXPECT at the fixture's lines (the innermost memchildren.py
# frame of each stack), and every child's pid in the report's processes
C=$(dirname "$0")/mem_byline.py

# children MODE [N]: mem's figures by line are the fixture's
children() {
	name=$1-${2:-3}
	"$YS" mem --no-store --json "$T/$name.result.json" \
		-o "$T/$name.speedscope.json" -- "$PY" "$FIX" "$T/$name.json" \
		"$@" 2>"$T/$name.report" || { cat "$T/$name.report"; return 1; }
	python3 "$C" memchildren.py "$T/$name.json" \
		"$T/$name.speedscope.json" "$T/$name.report" ||
		{ cat "$T/$name.report"; return 1; }
}
t "multiprocessing fork: each child's bytes, blocks and leaks by its Python line" \
	children fork
t "multiprocessing spawn: each child's bytes and blocks by its Python line" \
	children spawn
t "subprocess.Popen of python3.11, twice: each child's bytes by line" \
	children run 2
t "os.system (children with the agent's socket inherited): bytes by line" \
	children system 3
t "a child killed by SIGKILL: what it allocated, leaked at its end" \
	children kill 1
t "20 children at once: each one's bytes by line" children fork 20

# The tree's peak is the most its processes held at once: five children
# one after the other, each holding 4 MB at its end, add one child's 4 MB
# to the parent's peak, not five.
serial_peak() {
	children serial 1 && children serial 5 || return 1
	python3 - "$T/serial-1.result.json" "$T/serial-5.result.json" <<'PY'
import json, sys
def peak(p):
    b = json.load(open(p))["benchmarks"][0]
    return b["metrics"]["peak_heap"]["values"][0]
one, five = peak(sys.argv[1]), peak(sys.argv[2])
print("peak with one child", one, "with five", five)
sys.exit(not (one >= 4_000_000 and five < one + 1_000_000))
PY
}
t "the tree's peak: children one after the other do not add up" serial_peak

# Native: heapfix forks N: the parent's block (4321 bytes, freed by each
# child in its copy) stays the parent's leak; each child's 1000 + i bytes
# its own leak, the fifth killed by SIGKILL; one row per process.
native_forks() {
	"$YS" mem --no-store --cost leaked -o "$T/nf.folded" \
		-o "$T/nf.speedscope.json" -- "$HEAPFIX" forks 8 \
		2>"$T/nf.report" || { cat "$T/nf.report"; return 1; }
	python3 - "$T/nf.folded" "$T/nf.report" <<'PY'
import re, sys
got = {}
for line in open(sys.argv[1]):
    stack, n = line.rsplit(" ", 1)
    got[stack.split(";")[-1]] = got.get(stack.split(";")[-1], 0) + int(n)
want = {"parent_keep": 4321,
        "fork_child_block": sum(1000 + i for i in range(8))}
rep = open(sys.argv[2]).read()
rows = re.findall(r"^ +\d+ +\d+ +1 +(\d+) B .*heapfix forks 8 \(forked\)$",
                  rep, re.M)
sizes = sorted(int(r) for r in rows)
print(got, sizes)
sys.exit(not (all(got.get(k) == v for k, v in want.items()) and
              sizes == [1000 + i for i in range(8)] and
              "processes (9;" in rep))
PY
}
t "native fork: each child its own blocks and leaks, the parent's untouched" \
	native_forks

# A daemon's double fork: the grandchild's parent is the child that forked
# it, which had exited by the time the grandchild's table row was read
# (getppid() then named yardstick, the reaper: 2 runs in 5); 5 runs
daemon_parent() {
	for i in 1 2 3 4 5; do
		"$YS" mem --no-store -- "$HEAPFIX" daemon 2>"$T/dp.report" || { cat "$T/dp.report"; return 1; }
		python3 - "$T/dp.report" <<'PY' || return 1
import re, sys
rows = re.findall(r"^ +(\d+) +(\d+) +(\d+) +.*heapfix daemon \(forked\)$",
                  open(sys.argv[1]).read(), re.M)
child = [r for r in rows if r[2] == "0"]
grand = [r for r in rows if r[2] == "1"]
assert len(child) == 1 and len(grand) == 1, rows
assert grand[0][1] == child[0][0], rows
PY
	done
}
t "a daemon's double fork: the grandchild's parent is the child" daemon_parent

# More processes than the agent's 256 slots, one after the other (half
# ending with _exit, half with exit): the slots of each ended one go back,
# every child's block is there, nothing untraced.
many_serial() {
	"$YS" mem --no-store --json "$T/ms.json" --cost leaked \
		-o "$T/ms.folded" -- "$HEAPFIX" forkseq 600 \
		2>"$T/ms.report" || { cat "$T/ms.report"; return 1; }
	grep -q "forkseq;fork_child_block 600000$" "$T/ms.folded" &&
	grep -q "^processes (601;" "$T/ms.report" &&
	! grep -q "not traced" "$T/ms.report" &&
	grep -q '"trace": *"complete"' "$T/ms.json" ||
		{ cat "$T/ms.report"; return 1; }
}
t "600 children one after the other: all traced, the slots reused" many_serial

finish
