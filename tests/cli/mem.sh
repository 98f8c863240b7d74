# yardstick mem: the heap of fixtures whose allocations are known in
# advance (tests/fixtures/heapfix.c, heapfix_cpp.cc), checked exactly; the
# outputs validated; the program's own behaviour (I/O, exit status, crash,
# fork, exec) kept; the refusals and errors.
#
# The margin: each figure is checked exactly at the fixture's own sites
# (the folded, speedscope or pprof outputs). Totals of the whole program
# also hold what the C library allocates for itself: heapfix uses no
# stdio, so today that is nothing, but a C library may keep a few blocks
# (glibc keeps one per thread for thread-local storage): totals are checked
# to be at least the designed figure and less than it plus LIBC_BYTES
# bytes and LIBC_BLOCKS blocks.
. "$(dirname "$0")/lib.sh"
HEAPFIX=${HEAPFIX:?HEAPFIX must name the heap fixture}
HEAPFIX_CPP=${HEAPFIX_CPP:?HEAPFIX_CPP must name the C++ heap fixture}
HEAPFIX_STATIC=${HEAPFIX_STATIC:?HEAPFIX_STATIC must name its static build}
LIBC_BYTES=65536
LIBC_BLOCKS=16
MIB=1048576
export HEAPFIX HEAPFIX_CPP HEAPFIX_STATIC LIBC_BYTES LIBC_BLOCKS MIB

# python3 "$H" COMMAND ...: the checks on mem's outputs.
H=$T/heap.py
cat > "$H" <<'PY'
import gzip, json, os, sys

def metrics(path):
    b = json.load(open(path))["benchmarks"][0]
    return {k: v["values"][0] for k, v in b["metrics"].items()}

def folded(path, leaf):
    """The folded stacks ending in leaf (";"-separated frames), summed."""
    total = 0
    for line in open(path):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        if (";" + stack).endswith(";" + leaf):
            total += int(n)
    return total

def speedscope(path, kind, leaf):
    d = json.load(open(path))
    names = [f["name"] for f in d["shared"]["frames"]]
    p = [p for p in d["profiles"] if p["name"] == kind][0]
    return sum(w for s, w in zip(p["samples"], p["weights"])
               if s and names[s[-1]] == leaf)

# pprof: a protobuf decoder of just what is needed, independent of ours
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i

def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i); v = b[i:i + n]; i += n
        elif wt == 1:
            v = b[i:i + 8]; i += 8
        elif wt == 5:
            v = b[i:i + 4]; i += 4
        else:
            raise ValueError("wire type %d" % wt)
        yield f, wt, v

def ints(wt, v):
    if wt == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i); out.append(x)
    return out

def pprof(path):
    """(sample type names, [(leaf function name, values)])"""
    strings, types, samples, locs, funcs = [], [], [], {}, {}
    for f, wt, v in fields(gzip.open(path).read()):
        if f == 6:
            strings.append(v.decode())
        elif f == 1:
            types.append(dict((g, x) for g, _, x in fields(v))[1])
        elif f == 2:
            s = {1: [], 2: []}
            for g, w, x in fields(v):
                if g in s:
                    s[g] += ints(w, x)
            samples.append(s)
        elif f == 4:
            loc = {"lines": []}
            for g, _, x in fields(v):
                if g == 1:
                    loc["id"] = x
                elif g == 4:
                    loc["lines"].append(dict((h, y) for h, _, y in fields(x)).get(1))
            locs[loc["id"]] = loc
        elif f == 5:
            fn = dict((g, x) for g, _, x in fields(v))
            funcs[fn[1]] = fn.get(2, 0)
    def leaf(s):
        return strings[funcs[locs[s[1][0]]["lines"][0]]]
    return [strings[t] for t in types], [(leaf(s), s[2]) for s in samples]

cmd, args = sys.argv[1], sys.argv[2:]
if cmd == "check":
    # check FILE EXPR: EXPR (over m, the metrics, and d, the result) holds
    m = metrics(args[0]); d = json.load(open(args[0]))
    lb, lk, mib = int(os.environ["LIBC_BYTES"]), int(os.environ["LIBC_BLOCKS"]), 1 << 20
    if not eval("(" + args[1] + ")"):
        sys.exit("false: %s\nmetrics: %s" % (args[1], m))
elif cmd == "folded":
    print(folded(args[0], args[1]))
elif cmd == "speedscope":
    print(speedscope(args[0], args[1], args[2]))
elif cmd == "pprof":
    types, samples = pprof(args[0])
    if len(args) == 1:
        print(" ".join(types))
    else:
        k = types.index(args[1])
        print(sum(v[k] for f, v in samples if f == args[2]))
PY

# mem ARGS... -- PROGRAM...: yardstick mem, quiet, not stored
mem() { "$YS" mem -q --no-store "$@"; }
# check FILE EXPR: see heap.py
check() { python3 "$H" check "$@"; }
# eq WANT COMMAND...: COMMAND prints WANT
eq() {
	want=$1
	shift
	got=$("$@") || return 1
	[ "$got" = "$want" ] || { echo "$*: got '$got', expected '$want'"; return 1; }
}
# static_ok: the static fixture could be linked (else it is a script)
static_ok() { head -c 4 "$HEAPFIX_STATIC" | grep -q ELF; }
# leaf KIND FILE FUNC: the speedscope profile KIND's value at stacks ending
# in FUNC
leaf() { python3 "$H" speedscope "$2" "$1" "$3"; }

# ---- leaks, peak, temporaries: exact at their sites ----------------------

leaks() {
	mem --json "$T/leak.json" --cost leaked -o "$T/leak.folded" \
		-o "$T/leak.speedscope.json" -- "$HEAPFIX" leak 10 1000 &&
	eq 10000 python3 "$H" folded "$T/leak.folded" "main;leak_blocks" &&
	eq 10 leaf inuse_objects "$T/leak.speedscope.json" leak_blocks &&
	eq 10 leaf alloc_objects "$T/leak.speedscope.json" leak_blocks &&
	eq 0 leaf temporary_objects "$T/leak.speedscope.json" leak_blocks &&
	check "$T/leak.json" 'lb > m["leaked_bytes"] - 10000 >= 0 and
		lk > m["leaked_blocks"] - 10 >= 0 and
		lk > m["allocations"] - 10 >= 0 and
		lb > m["peak_heap"] - 10000 >= 0'
}
t "leak 10 x 1000: leaked 10000 bytes in 10 blocks at leak_blocks" leaks

# the report's yardstick line: its memory for the trace, the stacks it
# kept (leak allocates from one stack), and its own peak RSS: at most
# what wait4 gives for yardstick's process (the largest of its own and
# of the processes it waited for, which share its pages until their
# exec: more than its own), and at least what a yardstick process takes
# mapped and touched (its binary, libc, jansson, its heap: over 1 MiB)
held_line() {
	python3 - "$YS" "$HEAPFIX" "$T/held.err" <<'PY'
import os, re, subprocess, sys
ys, fix, err = sys.argv[1:4]
with open(err, "w") as f:
    p = subprocess.Popen([ys, "mem", "--no-store", "--", fix, "leak", "10", "1000"],
                         stderr=f, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
text = open(err).read()
m = re.search(r"^  yardstick +[0-9.]+ [KM]iB  held \(records [0-9.]+ [KM]?i?B, "
              r"1 stack in [0-9.]+ KiB\), peak RSS ([0-9.]+) MiB$", text, re.M)
assert m, text
rss, total = float(m.group(1)), ru.ru_maxrss / 1024
print("peak RSS in the report", rss, "MiB; wait4's", round(total, 3), "MiB")
assert 1 <= rss <= total * 1.001 + 0.01, (rss, total)
PY
}
t "the report's yardstick line: records and 1 stack held, its own peak RSS" held_line

# the stacks the yardstick line counts: one per distinct stack of each
# program image. aligned allocates from 5 call sites (5 stacks); forks 3
# from 2 call paths, parent_keep in the parent and fork_child_block in 3
# forked children, each its own image: 4 stacks, though the profile
# shows 2 (a forked child's stacks are read with its own mappings)
stacks_counted() {
	"$YS" mem --no-store -- "$HEAPFIX" aligned 2>"$T/st5.err" >/dev/null &&
	grep -q "held (records .*, 5 stacks in " "$T/st5.err" &&
	"$YS" mem --no-store --cost allocations -o "$T/st4.folded" -- "$HEAPFIX" forks 3 \
		2>"$T/st4.err" >/dev/null &&
	grep -q "held (records .*, 4 stacks in " "$T/st4.err" &&
	[ "$(wc -l < "$T/st4.folded")" -eq 2 ]
}
t "the yardstick line's stacks: 5 call sites 5 stacks; 2 call paths in a parent and 3 forked children 4" stacks_counted

peak() {
	mem --json "$T/peak.json" --cost peak -o "$T/peak.folded" \
		-o "$T/peak.speedscope.json" -- "$HEAPFIX" peak 1 &&
	eq $((3 * MIB)) python3 "$H" folded "$T/peak.folded" "main;make_peak" &&
	eq 4 leaf alloc_objects "$T/peak.speedscope.json" make_peak &&
	eq $((7 * MIB / 2)) leaf alloc_space "$T/peak.speedscope.json" make_peak &&
	eq 0 leaf inuse_space "$T/peak.speedscope.json" make_peak &&
	check "$T/peak.json" 'lb > m["peak_heap"] - 3 * mib >= 0'
}
t "peak: 3 blocks of 1 MiB, one freed, 512 KiB: the peak is 3 MiB" peak

temps() {
	mem --json "$T/temp.json" --cost temporary -o "$T/temp.folded" \
		-o "$T/temp.speedscope.json" -- "$HEAPFIX" temp 1000 &&
	eq 1000 python3 "$H" folded "$T/temp.folded" "main;temp_loop" &&
	eq 0 python3 "$H" folded "$T/temp.folded" "main;not_temporary" &&
	mem --cost allocations -o "$T/tempa.folded" -- "$HEAPFIX" temp 1000 &&
	eq 1000 python3 "$H" folded "$T/tempa.folded" "main;temp_loop" &&
	eq 2 python3 "$H" folded "$T/tempa.folded" "main;not_temporary" &&
	eq 80 leaf peak_space "$T/temp.speedscope.json" not_temporary &&
	check "$T/temp.json" 'lk > m["temporary_allocations"] - 1000 >= 0 and
		lk > m["allocations"] - 1002 >= 0 and m["leaked_bytes"] < lb'
}
t "temp 1000: 1000 temporaries at temp_loop, 2 allocations that are not" temps

# The first records of a thread's slot (a stack of any depth, then the
# allocation): its first temporary must be counted, and fold into nothing
# but a run of temporaries of its own (agent.c's fold_temporary once took
# a stack record at the slot's position 0 for one).
first() {
	for u in dwarf fp; do
		for d in 0 1 2 3 4 5 6; do
			f=$T/first-$u-$d
			mem --unwind $u --json "$f.json" -o "$f.speedscope.json" -- \
				"$HEAPFIX" first $d &&
			eq 2 leaf alloc_objects "$f.speedscope.json" first_allocs &&
			eq 104096 leaf alloc_space "$f.speedscope.json" first_allocs &&
			eq 1 leaf temporary_objects "$f.speedscope.json" first_allocs &&
			eq 4096 leaf inuse_space "$f.speedscope.json" first_allocs &&
			check "$f.json" 'lk > m["allocations"] - 2 >= 0 and
				lb > m["peak_heap"] - 100000 >= 0' ||
			{ echo "--unwind $u, depth $d"; return 1; }
		done
	done
}
t "a thread's first allocation, a temporary, at any depth: counted, peak 100,000 B" first

realloc_chain() {
	mem --json "$T/rc.json" -o "$T/rc.speedscope.json" -- \
		"$HEAPFIX" reallocs 2000 &&
	eq 2000 leaf alloc_objects "$T/rc.speedscope.json" realloc_chain &&
	eq 2000 leaf temporary_objects "$T/rc.speedscope.json" realloc_chain &&
	eq $((8 * 2000 * 2001 / 2)) leaf alloc_space "$T/rc.speedscope.json" realloc_chain &&
	check "$T/rc.json" 'lb > m["peak_heap"] - 16000 >= 0'
}
t "2,000 reallocs of one block from the start: 2,000 allocations, all temporaries" realloc_chain

# The frame-pointer register holding garbage, 2^64 - 8 among others:
# the walk must stop, not overflow its bounds check and fault.
badfp() {
	for u in fp dwarf; do
		mem --unwind $u -o "$T/bf.speedscope.json" -- "$HEAPFIX" badfp &&
		eq 5 leaf inuse_objects "$T/bf.speedscope.json" call_with_fp ||
		{ echo "--unwind $u"; return 1; }
	done
}
t "--unwind fp: a garbage frame pointer (near 2^64) neither crashes the program nor loses the block" badfp

# yardstick's temporaries, not heaptrack's: blocks a and b of 64 bytes
# from one stack, then free(a), free(b). heaptrack counts free(a) (the
# allocation before it had a's size and stack); yardstick counts none (a
# is not the block last allocated).
samesize() {
	mem -o "$T/ss.speedscope.json" -- "$HEAPFIX" samesize &&
	eq 2 leaf alloc_objects "$T/ss.speedscope.json" same_size_block &&
	eq 0 leaf temporary_objects "$T/ss.speedscope.json" same_size_block
}
t "temporaries by yardstick's definition: a, b alike, free(a): none (heaptrack: 1)" samesize

# 8 threads x 1,000,000 allocations; the test's timeout guards deadlock.
# glibc allocates a block or two per thread for its thread-local storage:
# within LIBC_BLOCKS.
stress() {
	mem --json "$T/thr.json" -o "$T/thr.speedscope.json" -- \
		"$HEAPFIX" threads 8 1000000 &&
	eq 8000000 leaf alloc_objects "$T/thr.speedscope.json" thread_work &&
	eq 4000000 leaf temporary_objects "$T/thr.speedscope.json" thread_work &&
	eq 0 leaf inuse_objects "$T/thr.speedscope.json" thread_work &&
	check "$T/thr.json" 'lk > m["allocations"] - 8000000 >= 0 and
		lk > m["temporary_allocations"] - 4000000 >= 0 and
		m["leaked_bytes"] < lb'
}
t "8 threads x 1,000,000 allocations: exact counts, no crash or deadlock" stress

# A ring of 2 buffers per slot: the agent hands a chunk over through the
# segment when yardstick took the one before back, else sends it to the
# socket; yardstick puts each slot's chunks back in order from both.
stressmix() {
	YARDSTICK_HEAP_RING=2 mem --json "$T/tm.json" \
		-o "$T/tm.speedscope.json" -- "$HEAPFIX" threads 4 1000000 &&
	eq 4000000 leaf alloc_objects "$T/tm.speedscope.json" thread_work &&
	eq 2000000 leaf temporary_objects "$T/tm.speedscope.json" thread_work &&
	eq 0 leaf inuse_objects "$T/tm.speedscope.json" thread_work &&
	check "$T/tm.json" 'd["settings"]["trace"] == "complete" and
		lk > m["allocations"] - 4000000 >= 0 and
		m["leaked_bytes"] < lb'
}
t "chunks through the ring and the socket mixed (YARDSTICK_HEAP_RING=2): exact counts" stressmix

badring() {
	YARDSTICK_HEAP_RING=33 "$YS" mem -q --no-store -- "$HEAPFIX" exit 0 \
		2>"$T/br.err"
	[ $? -eq 2 ] && has "$T/br.err" "YARDSTICK_HEAP_RING: expected 1 to 16, got '33'"
}
t "YARDSTICK_HEAP_RING out of range: exit 2, naming it" badring

# The agent makes libunwind's own sigprocmask calls no-ops during its
# walks (agent_unwind.h): the program's calls, a signal handler's that
# lands in a walk included, must still change the mask. 200,000 walks at
# depths 0 to 599 with a profiling timer's handler checking its masks.
masks() {
	mem --cost allocations -o "$T/sig.folded" -- "$HEAPFIX" sigmask 200000 &&
	eq 200000 awk '/sig_alloc/ { s += $NF } END { print s }' "$T/sig.folded"
}
t "signal masks of the program and its handlers work under the agent" masks

reallocs() {
	mem --json "$T/re.json" -o "$T/re.speedscope.json" -- \
		"$HEAPFIX" realloc &&
	eq 6 leaf alloc_objects "$T/re.speedscope.json" grow_block &&
	eq 1850 leaf alloc_space "$T/re.speedscope.json" grow_block &&
	eq 6 leaf temporary_objects "$T/re.speedscope.json" grow_block &&
	eq 800 leaf peak_space "$T/re.speedscope.json" grow_block &&
	eq 0 leaf inuse_objects "$T/re.speedscope.json" grow_block &&
	check "$T/re.json" 'lk > m["allocations"] - 6 >= 0 and
		lb > m["peak_heap"] - 800 >= 0 and m["leaked_bytes"] < lb'
}
t "realloc: each growth a free and an allocation; realloc(p, 0) frees; failures keep the block" reallocs

callocs() {
	mem --json "$T/ca.json" -o "$T/ca.speedscope.json" -- \
		"$HEAPFIX" calloc &&
	eq 2 leaf alloc_objects "$T/ca.speedscope.json" calloc_blocks &&
	eq 1021 leaf inuse_space "$T/ca.speedscope.json" calloc_blocks &&
	check "$T/ca.json" 'lb > m["leaked_bytes"] - 1021 >= 0'
}
t "calloc: n x size bytes, zeroed; an overflowing calloc is no allocation" callocs

aligns() {
	page=$(getconf PAGESIZE) &&
	pv=$(( (5000 + page - 1) / page * page )) &&
	mem -o "$T/al.speedscope.json" -- "$HEAPFIX" aligned &&
	eq 5 leaf inuse_objects "$T/al.speedscope.json" aligned_blocks &&
	eq $((100 + 512 + 1000 + 3000 + pv)) \
		leaf inuse_space "$T/al.speedscope.json" aligned_blocks
}
t "posix_memalign, aligned_alloc, memalign, valloc, pvalloc: sizes, alignment" aligns

# ---- processes: fork, exec, crash, exit status, pass-through ------------

forkexec() {
	mem --json "$T/fe.json" --cost leaked -o "$T/fe.folded" -- \
		"$HEAPFIX" forkexec &&
	eq 777 python3 "$H" folded "$T/fe.folded" "forkexec;parent_leak" &&
	eq 10000 python3 "$H" folded "$T/fe.folded" "main;leak_blocks" &&
	check "$T/fe.json" '2 * lb > m["leaked_bytes"] - 10777 >= 0 and
		2 * lk > m["leaked_blocks"] - 11 >= 0'
}
t "a child forked and exec'd is traced: its leak and the parent's" forkexec

execself() {
	mem --json "$T/ex.json" --cost leaked -o "$T/ex.folded" \
		-o "$T/ex.speedscope.json" -- "$HEAPFIX" execself &&
	eq 1665 python3 "$H" folded "$T/ex.folded" "main;leak_blocks" &&
	eq 0 python3 "$H" folded "$T/ex.folded" "before_exec" &&
	eq 5 leaf alloc_objects "$T/ex.speedscope.json" before_exec &&
	eq 3 leaf inuse_objects "$T/ex.speedscope.json" leak_blocks &&
	check "$T/ex.json" 'lb > m["leaked_bytes"] - 1665 >= 0 and
		lk > m["leaked_blocks"] - 3 >= 0 and
		lb > m["peak_heap"] - 5 * 999 >= 0'
}
t "exec: traced on into the new image; the old image's blocks are not leaks" execself

# The program execs one the agent cannot be preloaded into (a wrapper
# script exec'ing a static binary): the old image's blocks are no more
# leaks than in execself, whether or not the new image is traced.
execstatic() {
	mem --json "$T/es.json" --cost leaked -o "$T/es.folded" -- \
		"$HEAPFIX" exec "$HEAPFIX_STATIC" exit 0 &&
	eq 0 python3 "$H" folded "$T/es.folded" "before_exec" &&
	check "$T/es.json" 'm["leaked_bytes"] < 5 * 999'
}
if static_ok; then
	t "an exec into a static program: the old image's blocks are not leaks" execstatic
else
	skip "an exec into a static program" "cc -static cannot link here"
fi

crash() {
	"$YS" mem --no-store --json "$T/cr.json" --cost leaked \
		-o "$T/cr.folded" -- "$HEAPFIX" crash 2>"$T/cr.err"
	[ $? -eq 1 ] || { echo "exit status is not 1"; cat "$T/cr.err"; return 1; }
	has "$T/cr.err" "SIGSEGV" &&
	grep -Eq "leaked +500 B +in 5 blocks" "$T/cr.err" &&
	eq 500 python3 "$H" folded "$T/cr.folded" "crash;leak_blocks" &&
	check "$T/cr.json" 'lb > m["leaked_bytes"] - 500 >= 0 and
		lk > m["leaked_blocks"] - 5 >= 0 and
		d["benchmarks"][0]["exit_codes"] != [0]'
}
t "a crash: exit 1, SIGSEGV named, what was traced up to it reported" crash

# A program killed outright leaves no VmHWM of its own (the agent reads it
# at a normal exit): its peak RSS is the most yardstick saw while it ran
# (collect.c's sample_rss), 64 MiB and more here, and not yardstick's.
killed_rss() {
	mem --json "$T/kr.json" -- python3 -c 'import os, time
x = bytearray(64 << 20)
time.sleep(0.3)
os.kill(os.getpid(), 9)'
	[ $? -eq 1 ] || { echo "exit status is not 1"; return 1; }
	check "$T/kr.json" '64 * mib <= m["peak_rss"] < 300 * mib'
}
t "killed: the peak RSS seen while it ran" killed_rss

# agent.c's flush_slot: "a crash between these two stores leaves a
# remainder yardstick knows it has by seq". heapfix halfsent plays that
# crash with one 1 MiB allocation: it must be counted once.
halfsent() {
	mem --json "$T/hs.json" -- "$HEAPFIX" halfsent
	check "$T/hs.json" 'm["allocations"] - 1 < lk and
		lb > m["bytes_allocated"] - mib >= 0'
}
t "killed after a flush sent its chunk but before emptying the slot: the chunk is counted once" halfsent

# The same through the ring (agent.c's hand_over): a chunk handed over and
# killed before moving on leaves it both handed over and the slot's
# remainder, under one seq; taken by yardstick while the program ran (it
# waits 200 ms first) or only after its end: counted once.
handkill() {
	mem --json "$T/hk$1.json" -- "$HEAPFIX" handkill "$1"
	check "$T/hk$1.json" 'm["allocations"] - 1 < lk and
		lb > m["bytes_allocated"] - mib >= 0'
}
t "killed after handing a chunk over before moving on: counted once" handkill 0
t "... and when yardstick took the chunk while the program ran" handkill 200

# ---- a program that writes to or closes the agent's descriptors ---------

# sockonly TEST: TEST with every chunk through the socket, none handed
# over through the segment (the agent's path when yardstick is behind)
sockonly() { (YARDSTICK_HEAP_RING=1; export YARDSTICK_HEAP_RING; "$@"); }

# 64 KiB of 0xff written to every descriptor from 3 up, the agent's
# segment and socket among them: the segment's descriptor is read-only,
# the bytes on the socket are skipped; nothing traced is lost.
fdwrite() {
	"$YS" mem -q --no-store --json "$T/fw.json" -- "$HEAPFIX" fdwrite 65536 100000 \
		2>"$T/fw.err" &&
	has "$T/fw.err" "wrote 65536 bytes into the agent's socket" &&
	! grep -q "INCOMPLETE\|threads were not traced" "$T/fw.err" &&
	check "$T/fw.json" 'd["settings"]["trace"] == "complete" and
		lk > m["allocations"] - 101000 >= 0 and
		lb > m["leaked_bytes"] - 1010000 >= 0 and
		lb > m["peak_heap"] - 1010000 >= 0 and
		any("65536 bytes" in w for w in d["benchmarks"][0]["warnings"])'
}
t "a program writing garbage to every descriptor: skipped, said, nothing lost" fdwrite
t "... every chunk through the socket" sockonly fdwrite

# Every descriptor closed, then 100,000 allocations: the agent connects
# to yardstick again; nothing is lost.
fdclose() {
	"$YS" mem -q --no-store --json "$T/fc.json" -- "$HEAPFIX" fdclose 100000 \
		2>"$T/fc.err" &&
	[ ! -s "$T/fc.err" ] &&
	check "$T/fc.json" 'd["settings"]["trace"] == "complete" and
		lk > m["allocations"] - 101000 >= 0 and
		lb > m["leaked_bytes"] - 1010000 >= 0 and
		lb > m["peak_heap"] - 1010000 >= 0'
}
t "a program closing every descriptor: the agent connects again, nothing lost" fdclose
t "... every chunk through the socket" sockonly fdclose

# 70 rounds of closing every descriptor and 3,000 allocations (a chunk of
# records each): the agent connects again 64 times, then gives up: the
# trace is marked incomplete, loudly; the counts are still exact. Every
# chunk through the socket (through the ring, the agent needs no socket).
fdchurn() {
	YARDSTICK_HEAP_RING=1 "$YS" mem -q --no-store --json "$T/fh.json" -- "$HEAPFIX" fdclose 3000 70 \
		2>"$T/fh.err" &&
	has "$T/fh.err" "INCOMPLETE" && has "$T/fh.err" "descriptor 1023" &&
	check "$T/fh.json" 'd["settings"]["trace"] == "incomplete" and
		lk > m["allocations"] - 211000 >= 0 and
		lb > m["bytes_allocated"] - 2110000 >= 0 and
		"peak_heap" not in m and "leaked_bytes" not in m and
		"peak_heap" in d["benchmarks"][0]["unsupported"] and
		any(w.startswith("incomplete trace")
		    for w in d["benchmarks"][0]["warnings"])'
}
t "a program closing the agent's socket again and again: in the end marked incomplete, loudly; counts exact" fdchurn

# After an exec, heapfix MODE leaks 3000 blocks of 10 bytes from
# leak_blocks in the new image: all of them traced, nothing lost.
# sockexec: the socket replaced by one of the program's, then the exec:
# the new image's agent sends nothing into it (its inode is not the
# agent's socket's) and connects to yardstick again. fdexec: every
# descriptor closed, then the exec: the new image's agent gets the
# segment from yardstick over a new connection.
exec_traced() {
	"$YS" mem -q --no-store --json "$T/$1.json" -o "$T/$1.speedscope.json" \
		-- "$HEAPFIX" "$1" 2>"$T/$1.err" &&
	[ ! -s "$T/$1.err" ] &&
	eq 3000 leaf inuse_objects "$T/$1.speedscope.json" leak_blocks &&
	check "$T/$1.json" 'd["settings"]["trace"] == "complete" and
		lk > m["allocations"] - 3010 >= 0 and
		lb > m["leaked_bytes"] - 30000 >= 0'
}
t "the socket replaced before an exec: the new image connects again, nothing lost" exec_traced sockexec
t "... every chunk through the socket" sockonly exec_traced sockexec
t "every descriptor closed before an exec: the new image is traced all the same" exec_traced fdexec
t "... every chunk through the socket" sockonly exec_traced fdexec

# 300 threads alive at once, 256 slots: the threads without one are not
# traced, and no heap figure can stand for the program: all unsupported.
manythreads() {
	"$YS" mem -q --no-store --json "$T/mt.json" -- "$HEAPFIX" manythreads 300 \
		2>"$T/mt.err" &&
	has "$T/mt.err" "threads were not traced" && has "$T/mt.err" "INCOMPLETE" &&
	check "$T/mt.json" 'd["settings"]["trace"] == "incomplete" and
		not any(k in m for k in ("peak_heap", "allocations",
					 "temporary_allocations", "leaked_bytes")) and
		"allocations" in d["benchmarks"][0]["unsupported"]'
}
t "more threads at once than slots: marked incomplete, no heap figure" manythreads

# A made-up message of the agent's with a good check sum, chunk 3 of a
# slot whose chunks 0 to 2 never came: chunks lost, said.
fdforge() {
	"$YS" mem -q --no-store --json "$T/ff.json" -- "$HEAPFIX" fdforge \
		2>"$T/ff.err" &&
	has "$T/ff.err" "3 chunks of records were lost" &&
	has "$T/ff.err" "INCOMPLETE" &&
	check "$T/ff.json" 'd["settings"]["trace"] == "incomplete" and
		lk > m["allocations"] - 2000 >= 0'
}
t "chunks of a slot missing from the socket: the trace marked incomplete" fdforge

# Chunks handed over again (replays of taken ones) and garbage in every
# other slot's ring: nothing counted twice, nothing lost, no crash.
scribble() {
	"$YS" mem -q --no-store --json "$T/sc.json" -- "$HEAPFIX" scribble \
		2>"$T/sc.err" &&
	check "$T/sc.json" 'd["settings"]["trace"] == "complete" and
		lk > m["allocations"] - 6000 >= 0 and
		lb > m["leaked_bytes"] - 60000 >= 0'
}
t "a program writing over the shared segment: no allocation counted twice, no crash" scribble

passthrough() {
	printf 'in 1\nin 2\n' | "$YS" mem --no-store -- "$HEAPFIX" echo "a b" c \
		>"$T/pt.out" 2>"$T/pt.err" &&
	printf 'in 1\nin 2\na b\nc\n' > "$T/pt.want" &&
	cmp "$T/pt.want" "$T/pt.out" &&
	has "$T/pt.err" "to stderr" && has "$T/pt.err" "peak heap"
}
t "stdin, stdout and stderr are the program's; the report is on stderr" passthrough

# --json -: stdout is the result alone, a valid document; the program's
# output goes to stderr. Two outputs on stdout: refused.
json_stdout() {
	printf 'in 1\n' | "$YS" mem -q --no-store --json - -- "$HEAPFIX" echo out \
		>"$T/js.out" 2>"$T/js.err" &&
	python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$T/js.out" &&
	has "$T/js.err" "in 1" && has "$T/js.err" "out" &&
	"$YS" mem -q --no-store --json "$T/js.file" -- "$HEAPFIX" leak 1 1 \
		>"$T/js2.out" &&
	"$YS" mem -q --no-store --json /dev/stdout -- "$HEAPFIX" echo x \
		</dev/null >"$T/js3.out" 2>/dev/null &&
	python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$T/js3.out" &&
	expect_exit 2 "$YS" mem -q --no-store --json - --timeline - -- \
		"$HEAPFIX" create "$T/js.ran" &&
	has "$T/stderr" "both want stdout" && [ ! -e "$T/js.ran" ]
}
t "--json -: the program's stdout goes to stderr, the JSON is valid; two outputs on stdout refused" json_stdout

status() {
	"$YS" mem --no-store -- "$HEAPFIX" exit 3 >"$T/st.out" 2>"$T/st.err"
	[ $? -eq 1 ] || { echo "exit status is not 1"; return 1; }
	has "$T/st.err" "exited with status 3" && has "$T/st.err" "peak heap" &&
	[ ! -s "$T/st.out" ] && mem -- "$HEAPFIX" exit 0
}
t "exit 3: yardstick exits 1 and still reports; exit 0: 0" status

python() {
	eq 42 "$YS" mem -q --no-store --json "$T/py.json" -- \
		python3 -c 'print(6*7)' &&
	check "$T/py.json" 'm["allocations"] > 100'
}
t "python3 -c 'print(6*7)' runs to completion and prints 42" python

cpp() {
	mem -o "$T/cpp.speedscope.json" -- "$HEAPFIX_CPP" &&
	s=$T/cpp.speedscope.json &&
	python3 - "$s" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = [f["name"] for f in d["shared"]["frames"]]
def at(kind, func):
    p = [p for p in d["profiles"] if p["name"] == kind][0]
    return sum(w for s, w in zip(p["samples"], p["weights"])
               if any(names[i].startswith(func) for i in s))
want = {("alloc_objects", "array_blocks"): 3,
        ("alloc_space", "array_blocks"): 1000 + 800 + 333,
        ("inuse_space", "array_blocks"): 333,
        ("temporary_objects", "array_blocks"): 0,
        # capacities 1, 2, 4, ... 1024 ints
        ("alloc_objects", "grow_vector"): 11,
        ("alloc_space", "grow_vector"): 4 * 2047,
        ("inuse_objects", "grow_vector"): 1,
        ("inuse_space", "grow_vector"): 4096,
        ("temporary_objects", "grow_vector"): 0}
got = {k: at(*k) for k in want}
assert got == want, got
PY
}
t "C++: new[]/delete[] and a growing std::vector" cpp

# The fixture's leaks are its own: char[333], the vector (24 bytes) and
# its last buffer (4096), 3 blocks. libstdc++'s emergency pool for
# exceptions (72,704 bytes, allocated at its start) was a fourth, in
# every C++ program: it is released at the end (__gnu_cxx::__freeres),
# as heaptrack and valgrind do.
cpp_leaks() {
	mem --json "$T/cppleak.json" -- "$HEAPFIX_CPP" &&
	check "$T/cppleak.json" 'm["leaked_bytes"] == 333 + 24 + 4096 and
		m["leaked_blocks"] == 3'
}
t "C++: the leaks are the program's, not libstdc++'s emergency pool (4,453 bytes in 3 blocks)" cpp_leaks

# ---- refusals and errors ------------------------------------------------

static() {
	expect_exit 2 "$YS" mem -- "$HEAPFIX_STATIC" create "$T/static.ran" &&
	has "$T/stderr" "statically linked" && [ ! -e "$T/static.ran" ]
}
setuid() {
	expect_exit 2 "$YS" mem -- "$T/suid" create "$T/suid.ran" &&
	has "$T/stderr" "set-user-ID" && [ ! -e "$T/suid.ran" ]
}
if static_ok; then
	t "a statically linked program: exit 2, saying why, not run" static
else
	skip "a statically linked program: exit 2" "cc -static cannot link here"
fi
if cp "$HEAPFIX" "$T/suid" && chmod u+s "$T/suid" &&
   [ -u "$T/suid" ]; then
	t "a set-user-ID program: exit 2, saying why, not run" setuid
else
	skip "a set-user-ID program: exit 2" "cannot set the set-user-ID bit"
fi

t "a program that does not exist: exit 2" expect_exit 2 "$YS" mem -- no-such-prog-xyz
t "... naming it" has "$T/stderr" "no-such-prog-xyz"

# bad OPTION ARGS...: exit 2, with OPTION named on stderr
bad() {
	opt=$1
	shift
	expect_exit 2 "$YS" mem "$@" -- "$HEAPFIX" create "$T/bad.ran" &&
	has "$T/stderr" "$opt" && [ ! -e "$T/bad.ran" ]
}
t "--sample 0: exit 2" bad --sample --sample 0
t "--sample x: exit 2" bad --sample --sample x
t "--sample-rate without --sample: exit 2" bad --sample-rate --sample-rate 100
t "--sample-rate -1: exit 2" bad --sample-rate --sample 4096 --sample-rate -1
t "--unwind x: exit 2" bad --unwind --unwind x
t "--cost x: exit 2" bad --cost --cost x
t "--depth 65: exit 2" bad --depth --depth 65
t "-o file.unknown: exit 2" bad "file.unknown" -o "$T/file.unknown"
t "an unknown option: exit 2" bad --frobnicate --frobnicate
t "no program: exit 2" sh -c '"$YS" mem -- 2>/dev/null; [ $? -eq 2 ] && "$YS" mem 2>/dev/null; [ $? -eq 2 ]'
t "an unwritable --json: exit 2 before the program runs" \
	bad /nonexistent-dir/r.json --json /nonexistent-dir/r.json
t "an unwritable -o: exit 2 before the program runs" \
	bad /nonexistent-dir/p.svg -o /nonexistent-dir/p.svg
t "an unwritable --timeline: exit 2 before the program runs" \
	bad /nonexistent-dir/t.svg --timeline /nonexistent-dir/t.svg

# ---- outputs ------------------------------------------------------------

result() {
	check "$T/leak.json" 'd["kind"] == "mem" and
		all(k in m for k in ("peak_heap", "leaked_bytes", "allocations",
				     "temporary_allocations", "peak_rss")) and
		d["benchmarks"][0]["metrics"]["peak_heap"]["unit"] == "bytes" and
		d["benchmarks"][0]["metrics"]["allocations"]["unit"] == "count" and
		m["peak_rss"] > 0'
}
t "--json: kind mem, with peak_heap, leaked_bytes, allocations, temporary_allocations, peak_rss" result

svg() {
	mem --title "<heap & co>" -o "$T/fg.svg" -- "$HEAPFIX" leak 10 1000 &&
	python3 -c "
import xml.dom.minidom, sys
xml.dom.minidom.parse(sys.argv[1])
text = open(sys.argv[1]).read()
assert 'leak_blocks' in text and '&lt;heap &amp; co&gt;' in text" "$T/fg.svg"
}
t "-o x.svg: a well-formed flame graph" svg

speedscope() {
	python3 - "$T/leak.speedscope.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
names = [p["name"] for p in d["profiles"]]
assert names == ["alloc_objects", "alloc_space", "inuse_objects",
                 "inuse_space", "temporary_objects", "peak_space"], names
for p in d["profiles"]:
    assert p["type"] == "sampled" and len(p["samples"]) == len(p["weights"])
units = {p["name"]: p["unit"] for p in d["profiles"]}
assert units["alloc_space"] == "bytes" and units["inuse_space"] == "bytes"
PY
}
t "-o x.speedscope.json: one profile per sample type" speedscope

pprof() {
	mem -o "$T/p.pb.gz" -- "$HEAPFIX" leak 10 1000 &&
	eq "alloc_objects alloc_space inuse_objects inuse_space temporary_objects peak_space" \
		python3 "$H" pprof "$T/p.pb.gz" &&
	eq 10000 python3 "$H" pprof "$T/p.pb.gz" inuse_space leak_blocks &&
	eq 10 python3 "$H" pprof "$T/p.pb.gz" alloc_objects leak_blocks &&
	gunzip -c "$T/p.pb.gz" | protoc --decode_raw >/dev/null
}
t "-o x.pb.gz: pprof with alloc_objects, alloc_space, inuse_objects, inuse_space" pprof

timeline() {
	mem --timeline "$T/t.svg" -- "$HEAPFIX" peak 1 &&
	python3 -c "
import xml.dom.minidom, sys
xml.dom.minidom.parse(sys.argv[1])" "$T/t.svg" &&
	has "$T/t.svg" "peak 3.000 MiB"
}
t "--timeline: a well-formed SVG, the peak labelled" timeline

sampled() {
	mem --sample 4096 --json "$T/s.json" --cost leaked -o "$T/s.folded" \
		-- "$HEAPFIX" leak 1000 1000 &&
	check "$T/s.json" 'abs(m["leaked_bytes"] - 1e6) < 3e5 and
		lk > m["allocations"] - 1000 >= 0 and
		any("estimate" in w for w in d["benchmarks"][0]["warnings"])' &&
	python3 -c "
import sys
v = int(sys.argv[1]); assert abs(v - 1e6) < 3e5, v" \
		"$(python3 "$H" folded "$T/s.folded" "main;leak_blocks")" &&
	mem --sample 4096 --json "$T/st.json" -- "$HEAPFIX" temp 100000 &&
	check "$T/st.json" 'lk > m["temporary_allocations"] - 100000 >= 0 and
		lk > m["allocations"] - 100002 >= 0'
}
t "--sample 4096: leaks estimated within 30%, counts still exact" sampled

# The throttle (agent_sample.h): a thread sampling faster than
# --sample-rate has its interval doubled, and each sample is weighed by
# the interval it was drawn at. heapfix leak 200000 1000 leaks 2e8 bytes
# in 0.2 s: at --sample 4096, ~49,000 samples, far above 1000 a second on
# any machine, so it is raised ~9 times (a run keeps ~100-200 samples, its
# estimate's spread ~12%; 16 runs' mean ~3%, so within 10% is more than 3
# sigma; weighed at 4096 it would be ~1/500 of the truth). The exact
# counts do not change.
throttle() {
	: >"$T/thr.txt"
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		mem --sample 4096 --sample-rate 1000 --json "$T/thr.json" \
			-- "$HEAPFIX" leak 200000 1000 &&
		python3 - "$T/thr.json" "$i" >>"$T/thr.txt" <<'PY' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
s, m = d["settings"], d["benchmarks"][0]["metrics"]
assert s["sample_rate"] == 1000 and s["samples_raised"] > 0, s
assert s["sample_interval_max"] >= 2 * 4096, s
assert s["samples"] >= s["samples_raised"], s
assert 200000 <= m["allocations"]["values"][0] < 200100, m["allocations"]
assert any("raised" in w for w in d["benchmarks"][0]["warnings"])
print(m["leaked_bytes"]["values"][0])
PY
	done
	python3 - "$T/thr.txt" <<'PY'
import statistics, sys
v = [float(x) for x in open(sys.argv[1])]
assert len(v) == 16, v
mean = statistics.mean(v)
assert abs(mean / 2e8 - 1) < 0.10, (mean, v)
PY
}
t "--sample-rate: a thread sampling faster has its interval raised, the estimates unbiased (16 runs' mean within 10%)" throttle
# with no throttle, nothing is raised
norate() {
	mem --sample 4096 --sample-rate 0 --json "$T/nr.json" \
		-- "$HEAPFIX" leak 20000 1000 &&
	check "$T/nr.json" 'd["settings"]["samples_raised"] == 0 and
		d["settings"]["sample_interval_max"] == 4096 and
		d["settings"]["samples"] > 1000'
}
t "--sample-rate 0: no interval raised" norate

# Sampled mode's fast path (agent.c: an allocation not sampled, a free of
# a block not sampled, counted and nothing more) in every entry point:
# with a sample every GiB, nearly every call takes it, and the counts are
# those of exact mode, one call at a time and from 8 threads at once.
samplecounts() {
	for args in "realloc" "calloc" "aligned" "reallocs 2000" "temp 1000" \
		    "samesize" "threads 8 100000"; do
		# shellcheck disable=SC2086 # the fixture's arguments
		mem --json "$T/sc-e.json" -- "$HEAPFIX" $args &&
		# shellcheck disable=SC2086
		mem --sample 1073741824 --json "$T/sc-s.json" -- \
			"$HEAPFIX" $args &&
		python3 - "$T/sc-e.json" "$T/sc-s.json" <<'CMP' ||
import json, sys
m = [json.load(open(f))["benchmarks"][0]["metrics"] for f in sys.argv[1:]]
for k in "allocations", "bytes_allocated", "temporary_allocations":
    e, s = (x[k]["values"][0] for x in m)
    assert e == s, "%s: exact %s, sampled %s" % (k, e, s)
CMP
		{ echo "heapfix $args"; return 1; }
	done
}
t "--sample: allocations, bytes and temporaries counted as in exact mode, by every entry point" samplecounts

fp() {
	mem --unwind fp --cost leaked -o "$T/fp.folded" -- \
		"$HEAPFIX" leak 10 1000 &&
	eq 10000 python3 "$H" folded "$T/fp.folded" "main;leak_blocks" &&
	eq 10000 python3 "$H" folded "$T/leak.folded" "main;leak_blocks"
}
t "--unwind fp: the same leak site as dwarf" fp

# Stack walks leave out the agent's frames, however many (agent.c's
# agent_frame: each entry point's fast path, then its rest out of line):
# with either unwinder, every entry point's block is at its caller.
entrysites() {
	for u in fp dwarf; do
		mem --unwind $u -o "$T/es-r.speedscope.json" -- \
			"$HEAPFIX" realloc &&
		eq 6 leaf alloc_objects "$T/es-r.speedscope.json" grow_block &&
		mem --unwind $u -o "$T/es-c.speedscope.json" -- \
			"$HEAPFIX" calloc &&
		eq 2 leaf alloc_objects "$T/es-c.speedscope.json" calloc_blocks &&
		mem --unwind $u -o "$T/es-a.speedscope.json" -- \
			"$HEAPFIX" aligned &&
		eq 5 leaf inuse_objects "$T/es-a.speedscope.json" aligned_blocks &&
		mem --unwind $u --sample 1 --sample-rate 0 \
			-o "$T/es-s.speedscope.json" -- \
			"$HEAPFIX" calloc &&
		eq 2 leaf alloc_objects "$T/es-s.speedscope.json" calloc_blocks ||
		{ echo "--unwind $u"; return 1; }
	done
}
t "every entry point's blocks at its caller, with either unwinder, sampled or not" entrysites

depth() {
	mem --depth 2 --cost leaked -o "$T/d.folded" -- "$HEAPFIX" leak 10 1000 &&
	eq "main;leak_blocks 10000" cat "$T/d.folded"
}
t "--depth 2: two frames per stack" depth

lines() {
	mem --lines --cost leaked -o "$T/l.folded" -- "$HEAPFIX" leak 10 1000 &&
	grep -Eq "leak_blocks \(heapfix\.c:[0-9]+\) 10000$" "$T/l.folded"
}
t "--lines: file:line in the folded stacks" lines

# ---- the symbolizer's disk cache (src/profile/symcache.h) ---------------

# symc_edit DIR FROM TO: in every cache file of DIR, the string FROM
# replaced by TO (same length) and the checksum made right again: a
# well-formed cache saying something else than the file's DWARF
symc_edit() {
	python3 - "$@" <<'PY'
import glob, struct, sys
d, a, b = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
for f in glob.glob(d + "/*.sym"):
    data = bytearray(open(f, "rb").read())
    hdr = 196
    payload = bytes(data[hdr:]).replace(a, b)
    h = 0xcbf29ce484222325
    for c in payload:
        h = ((h ^ c) * 0x100000001b3) & (2**64 - 1)
    data[hdr - 8:hdr] = struct.pack("<Q", h)
    open(f, "wb").write(bytes(data[:hdr]) + payload)
PY
}
symcache() {
	c=$T/symc && rm -rf "$c" &&
	XDG_CACHE_HOME=$c mem --lines -o "$T/c1.folded" -- "$HEAPFIX" leak 10 1000 &&
	has "$T/c1.folded" "leak_blocks (heapfix.c:" &&
	[ "$(stat -c %a "$c/yardstick")" = 700 ] &&
	ls "$c"/yardstick/*-l.sym >/dev/null &&
	# warm: the same output
	XDG_CACHE_HOME=$c mem --lines -o "$T/c2.folded" -- "$HEAPFIX" leak 10 1000 &&
	cmp "$T/c1.folded" "$T/c2.folded" &&
	# the cache is what is read: a planted name shows
	symc_edit "$c/yardstick" leak_blocks leak_blockZ &&
	XDG_CACHE_HOME=$c mem --lines -o "$T/c3.folded" -- "$HEAPFIX" leak 10 1000 &&
	has "$T/c3.folded" "leak_blockZ (heapfix.c:"
}
t "the disk cache: made 0700, read back, the same frames" symcache

symcache_untrusted() {
	c=$T/symc &&
	# the cache dir writable by others: not used
	chmod 770 "$c/yardstick" &&
	XDG_CACHE_HOME=$c mem --lines -o "$T/u1.folded" -- "$HEAPFIX" leak 10 1000 &&
	cmp "$T/c1.folded" "$T/u1.folded" && chmod 700 "$c/yardstick" &&
	# a cache file of another user: not used (and not replaced)
	for f in "$c"/yardstick/*.sym; do chown nobody "$f" || return 1; done &&
	XDG_CACHE_HOME=$c mem --lines -o "$T/u2.folded" -- "$HEAPFIX" leak 10 1000 &&
	cmp "$T/c1.folded" "$T/u2.folded" &&
	rm -f "$c"/yardstick/*.sym &&
	# a symlink in place of a cache file: not followed
	XDG_CACHE_HOME=$c mem --lines -o "$T/u3.folded" -- "$HEAPFIX" leak 10 1000 &&
	symc_edit "$c/yardstick" leak_blocks leak_blockZ &&
	mkdir "$c/other" && for f in "$c"/yardstick/*.sym; do
		mv "$f" "$c/other/" && ln -s "$c/other/${f##*/}" "$f" || return 1
	done &&
	XDG_CACHE_HOME=$c mem --lines -o "$T/u4.folded" -- "$HEAPFIX" leak 10 1000 &&
	cmp "$T/c1.folded" "$T/u4.folded" &&
	# a FIFO in place of a cache file: not waited on
	for f in "$c"/yardstick/*.sym; do
		rm -f "$f" && mkfifo "$f" || return 1
	done &&
	XDG_CACHE_HOME=$c timeout 60 "$YS" mem -q --no-store --lines \
		-o "$T/u5.folded" -- "$HEAPFIX" leak 10 1000 &&
	cmp "$T/c1.folded" "$T/u5.folded"
}
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	t "the disk cache: a directory others can write, another user's file, a symlink, a FIFO: not used" symcache_untrusted
else
	skip "the disk cache: untrusted files" "not root: cannot chown"
fi

symcache_corrupt() {
	c=$T/symk && rm -rf "$c" &&
	XDG_CACHE_HOME=$c mem -o "$T/k1.folded" -- "$HEAPFIX" leak 10 1000 &&
	for cut in 0 10 195 196 200 -1; do
		for f in "$c"/yardstick/*.sym; do
			if [ "$cut" = -1 ]; then
				# one byte of the payload changed
				python3 -c 'import sys; f = sys.argv[1]; d = bytearray(open(f, "rb").read()); d[-3] ^= 0x20; open(f, "wb").write(d)' "$f"
			else
				head -c "$cut" "$f" >"$f.x" && mv "$f.x" "$f"
			fi || return 1
		done &&
		XDG_CACHE_HOME=$c mem -o "$T/k2.folded" -- "$HEAPFIX" leak 10 1000 &&
		cmp "$T/k1.folded" "$T/k2.folded" || { echo "cut $cut"; return 1; }
		# rewritten whole
		for f in "$c"/yardstick/*.sym; do
			[ "$(stat -c %s "$f")" -gt 196 ] || { echo "$f not rewritten"; return 1; }
		done
	done
}
t "the disk cache: a truncated or corrupt cache file is ignored and replaced" symcache_corrupt

symcache_concurrent() {
	c=$T/symp && rm -rf "$c" &&
	for i in 1 2 3 4; do
		XDG_CACHE_HOME=$c mem -o "$T/p$i.folded" -- "$HEAPFIX" leak 10 1000 &
	done
	wait &&
	for i in 2 3 4; do cmp "$T/p1.folded" "$T/p$i.folded" || return 1; done &&
	# one complete file each, no temporary left
	[ -z "$(ls -A "$c/yardstick" | grep -v '\.sym$')" ] &&
	# planted names show: every file is whole and valid
	symc_edit "$c/yardstick" leak_blocks leak_blockZ &&
	XDG_CACHE_HOME=$c mem -o "$T/p5.folded" -- "$HEAPFIX" leak 10 1000 &&
	has "$T/p5.folded" "leak_blockZ"
}
t "the disk cache: four runs writing it at once leave whole files" symcache_concurrent

symcache_rebuilt() {
	c=$T/symr && rm -rf "$c" &&
	for f in alpha gamma; do
		printf '#include <stdlib.h>\nvoid *keep;\n__attribute__((noinline)) void %s(void) { keep = malloc(100); }\nint main(void) { %s(); return 0; }\n' $f $f >"$T/$f.c" &&
		cc -O0 -Wl,--build-id=none -o "$T/$f" "$T/$f.c" || return 1
	done &&
	[ "$(stat -c %s "$T/alpha")" = "$(stat -c %s "$T/gamma")" ] &&
	cp "$T/alpha" "$T/rebuilt" &&
	XDG_CACHE_HOME=$c mem --cost leaked -o "$T/r1.folded" -- "$T/rebuilt" &&
	has "$T/r1.folded" "alpha" && ls "$c"/yardstick/path-*.sym >/dev/null &&
	# the same path, inode, size and modification time: only its change
	# time tells it was rebuilt
	cat "$T/gamma" >"$T/rebuilt" && touch -r "$T/alpha" "$T/rebuilt" &&
	XDG_CACHE_HOME=$c mem --cost leaked -o "$T/r2.folded" -- "$T/rebuilt" &&
	has "$T/r2.folded" "gamma" && ! grep -q alpha "$T/r2.folded"
}
t "the disk cache: a binary without build-id rebuilt in place is not taken for the old one" symcache_rebuilt

symcache_bound() {
	c=$T/symb && rm -rf "$c" &&
	XDG_CACHE_HOME=$c mem --cost leaked -o "$T/b1.folded" -- "$T/alpha" &&
	one=$(du -bc "$c"/yardstick/*.sym | tail -1 | cut -f1) &&
	[ "$one" -gt 0 ] &&
	# room for one run's files, not two: the second run's save trims
	# the least recently used, and its own stays
	XDG_CACHE_HOME=$c YARDSTICK_CACHE_MAX=$((one + one / 4)) \
		mem --cost leaked -o "$T/b2.folded" -- "$T/gamma" &&
	has "$T/b2.folded" "gamma" &&
	total=$(du -bc "$c"/yardstick/*.sym | tail -1 | cut -f1) &&
	[ "$total" -le $((one + one / 4)) ] &&
	[ "$(ls "$c"/yardstick/*.sym | wc -l)" -ge 1 ] &&
	# with the bound, the cache still gives the right frames
	XDG_CACHE_HOME=$c YARDSTICK_CACHE_MAX=$((one + one / 4)) \
		mem --cost leaked -o "$T/b3.folded" -- "$T/gamma" &&
	has "$T/b3.folded" "gamma"
}
t "the disk cache: YARDSTICK_CACHE_MAX bounds it, the least recently used files go" symcache_bound

quiet() {
	"$YS" mem -q --no-store -- "$HEAPFIX" leak 1 1 2>"$T/q.err" &&
	[ ! -s "$T/q.err" ] &&
	"$YS" mem --no-store -- "$HEAPFIX" leak 1 1 2>"$T/nq.err" &&
	grep -Eq "leaked +1 B +in 1 block$" "$T/nq.err" &&
	has "$T/nq.err" "leak_blocks"
}
t "-q: no report; without it, the totals and the sites" quiet

# ---- the store, history, gate -------------------------------------------

store() {
	"$YS" mem -q --name heap-leak -- "$HEAPFIX" leak 10 1000 &&
	"$YS" history --json - | python3 -c "
import json, sys
r = json.load(sys.stdin)['results']
assert [b['name'] for x in r for b in x['benchmarks']] == ['heap-leak'], r"
}
t "with a store, the result is saved and yardstick history lists it" store

history_peak() {
	"$YS" history -m peak_heap heap-leak > "$T/h.txt" &&
	has "$T/h.txt" "heap-leak" && has "$T/h.txt" "9.766 KiB"
}
t "yardstick history -m peak_heap shows its peak" history_peak

gate() {
	mem --name peak --json "$T/g1.json" -- "$HEAPFIX" peak 1 &&
	mem --name peak --json "$T/g1b.json" -- "$HEAPFIX" peak 1 &&
	mem --name peak --json "$T/g2.json" -- "$HEAPFIX" peak 2 &&
	expect_exit 0 "$YS" gate -b "$T/g1.json" --max-increase peak_heap=10% \
		"$T/g1b.json" &&
	expect_exit 1 "$YS" gate -b "$T/g1.json" --max-increase peak_heap=10% \
		"$T/g2.json"
}
t "gate --max-increase peak_heap=10%: a peak twice the base's fails, an equal one passes" gate

t "help" sh -c '"$YS" mem --help | grep -q -- "--sample BYTES"'
# Outside text on the terminal: a program whose path holds ESC, BEL and
# CR; its command line heads the report.
mem_escaped() {
	e=$(printf "\033[31m\007\r")
	cp "$HEAPFIX" "$T/fix${e}x" &&
	"$YS" mem --no-store -- "$T/fix${e}x" exit 0 >"$T/esc.out" 2>&1 &&
	grep -qF 'fix\x1b[31m\x07\x0dx' "$T/esc.out" && no_controls "$T/esc.out"
}
t "the command line is escaped on the terminal" mem_escaped
finish
