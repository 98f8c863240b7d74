#!/bin/sh
# yardstick trace --pid: the timeline of a process running already, which
# it leaves running. attachfix (tests/fixtures) runs before the attach: a
# thread "busy" always on the CPU, a thread "sleeper" asleep 100 ms at a
# time (2 ms of CPU between), two child processes "kid"; SIGUSR1 after
# the attach starts a thread "late" and a child "latekid" that end
# 200 ms later. The busy thread's on-CPU time is checked against its CPU
# time in /proc/PID/task/TID/stat over a window enclosing the trace's,
# the sleeper's time off the CPU against "blocked"; the ends (--duration,
# Ctrl-C, the process's exit), both output formats, and the refusals;
# threads started at a high rate during the attach (stormfix), and the
# zone buffer of a process a `yardstick trace` started (zonefix --ticks).
. "$(dirname "$0")/lib.sh"
FX=$(dirname "$YSFIX")
CLI=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$T/tp"

# start_fix: attachfix started, its READY file there (20 s); P its pid
start_fix() {
	rm -f "$T/tp/ready"
	"$FX/attachfix" "$T/tp/ready" 2 &
	P=$!
	wait_file "$T/tp/ready" || { echo "attachfix did not start"; return 1; }
}

stop_fix() {
	kill $P 2>/dev/null
	wait $P 2>/dev/null
}

# cpu_ticks PID TID: the thread's utime + stime (clock ticks)
cpu_ticks() {
	sed 's/.*) //' "/proc/$1/task/$2/stat" | awk '{ print $12 + $13 }'
}

# The numbers: traced for 3 s, SIGUSR1 once attached.
numbers() {
	start_fix || return 1
	busy=$(awk '$1 == "busy" { print $2 }' "$T/tp/ready")
	c0=$(cpu_ticks $P $busy) w0=$(date +%s.%N)
	"$YS" trace --pid $P --duration 3 --no-store -o "$T/tp/n.json" \
		-o "$T/tp/n.perfetto-trace" 2>"$T/tp/n.err" &
	R=$!
	wait_perf $R && sleep 0.3 && kill -USR1 $P
	wait $R
	rc=$?
	c1=$(cpu_ticks $P $busy) w1=$(date +%s.%N)
	alive=$(running $P)
	stop_fix
	attached_ok $rc $alive "$T/tp/n.err" "the process" || return 1
	has "$T/tp/n.err" "attached to pid $P (attachfix) and 2 child processes for 3." &&
	has "$T/tp/n.err" "its duration; it is still running" &&
	has "$T/tp/n.err" "no zones: process $P has no zone buffer (libyardstick records zones only into a buffer handed to the program as it starts" &&
	python3 "$CLI/chrome_trace_check.py" "$T/tp/n.json" >/dev/null &&
	protoc --decode=perfetto.protos.Trace -I"$CLI" "$CLI/perfetto_trace.proto" \
		<"$T/tp/n.perfetto-trace" >"$T/tp/n.txt" &&
	has "$T/tp/n.txt" '"busy"' && has "$T/tp/n.txt" '"latekid"' &&
	python3 - "$T/tp/ready" "$T/tp/n.err" "$T/tp/n.json" $P $c0 $c1 $w0 $w1 \
		"$(getconf CLK_TCK)" <<'PY'
import json, sys
ready, err, js, pid = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
c0, c1, w0, w1, hz = map(float, sys.argv[5:10])
fix = [l.split() for l in open(ready)]
busy = int([f[1] for f in fix if f[0] == "busy"][0])
sleeper = int([f[1] for f in fix if f[0] == "sleeper"][0])
kids = {int(f[1]) for f in fix if f[0] == "kid"}
rows = {}
for l in open(err):
    f = l.split()
    if len(f) == 10 and f[0].isdigit() and f[1].isdigit():
        # lifetime, on-CPU, on%, blocked, sch delay ("?": unknown,
        # blocked holds it), max delay, preempted
        d = {k: float(f[k]) if f[k] != "?" else 0.0 for k in (3, 4, 6, 7, 9)}
        # lifetime, on, blocked (+ sch delay), preempted; ms
        rows[int(f[1])] = (int(f[0]), f[2], d[3], d[4], d[6] + d[7], d[9])
def row(tid):
    assert tid in rows, ("no row for thread", tid, rows)
    return rows[tid]
# every thread: on + off = lifetime, as accounted
for tid, (p, name, life, on, blocked, pre) in rows.items():
    assert abs(on + blocked + pre - life) <= 0.01 + 1e-4 * life, (tid, rows[tid])
# the process's threads there at the attach, named as they were
assert row(pid)[:2] == (pid, "attachfix"), row(pid)
assert row(busy)[:2] == (pid, "busy"), row(busy)
assert row(sleeper)[:2] == (pid, "sleeper"), row(sleeper)
# main waits in sigsuspend, asleep at the attach: blocked from the attach
# on (not waiting for a CPU until its first switch record, at SIGUSR1)
p, name, life, on, blocked, pre = row(pid)
assert blocked >= 0.95 * life and pre <= 50, ("main", row(pid))
# the busy thread: from the attach to the end, 3 s and the attach's own
# time; on the CPU no longer than /proc says it ran in a window that
# encloses the trace (+ 3 ticks of the kernel's accounting), and its share
# of its lifetime within half to 1.5 times the share /proc gives it
p, name, life, on, blocked, pre = row(busy)
cpu_ms = (c1 - c0) / hz * 1e3
wall_ms = (w1 - w0) * 1e3
print("busy", row(busy), "proc cpu ms", cpu_ms, "wall ms", wall_ms)
assert 2990 <= life <= 4500, ("busy lifetime", life)
assert on <= cpu_ms + 3e3 / hz, ("busy on-CPU above its CPU time", on, cpu_ms)
share, pshare = on / life, cpu_ms / wall_ms
assert 0.5 * pshare <= share <= 1.5 * pshare, ("busy on-CPU share", share, pshare)
# a spinning thread never blocks: its time off the CPU is preempted
assert blocked <= 0.05 * life, ("busy blocked", row(busy))
# the sleeper: asleep 100 ms for 2 ms of CPU, blocked nearly all the time
p, name, life, on, blocked, pre = row(sleeper)
assert blocked >= 0.6 * life and on <= 0.2 * life, ("sleeper", row(sleeper))
# the child processes it had: their main threads, named kid, asleep mostly
for k in kids:
    assert row(k)[:2] == (k, "kid"), row(k)
    assert row(k)[4] >= 0.5 * row(k)[2], ("kid blocked", row(k))
# what started after the attach: the thread late (200 ms) and the child
# process latekid, which ended before the trace did
late = [r for r in rows.values() if r[1] == "late"]
assert len(late) == 1 and late[0][0] == pid and 190 <= late[0][2] <= 2000, late
lk = [r for r in rows.values() if r[1] == "latekid"]
assert len(lk) == 1 and lk[0][0] not in kids | {pid} and 190 <= lk[0][2] <= 2000, lk
# the JSON: the sleeper left the CPU blocked each time it slept, at most
# once per 100 ms of its lifetime (its 2 ms of CPU between naps may take
# far longer on a busy machine, preempted), and every time it did it
# stayed off at least the 100 ms of its nap (nanosleep never returns
# early; the last nap may be cut by the end of the trace)
t = json.load(open(js))
spans = sorted((e["ts"], e["ph"], e.get("args", {}).get("left"))
               for e in t["traceEvents"]
               if e.get("cat") == "cpu" and e["tid"] == sleeper and e["ph"] in "be")
left, gaps = {}, []
for i, (ts, ph, why) in enumerate(spans):
    if ph != "e":
        continue
    left[why] = left.get(why, 0) + 1
    if why == "blocked" and i + 1 < len(spans):
        gaps.append((spans[i + 1][0] - ts) / 1e3)
print("sleeper left the CPU", left, "off after blocking (ms)", sorted(gaps)[:5])
assert 10 <= left.get("blocked", 0) <= life / 100 + 1, (left, life)
assert gaps and min(gaps) >= 99, sorted(gaps)
# its processes named as the report names them
names = {e["pid"]: e["args"]["name"] for e in t["traceEvents"]
         if e.get("ph") == "M" and e["name"] == "process_name"}
assert names.get(pid) == "attachfix" and all(names.get(k) == "kid" for k in kids), names
PY
}
t "trace --pid: busy thread on-CPU against /proc, the sleeper blocked, children and the thread and process started after the attach; JSON and Perfetto (retried 3x)" retry numbers

# A CPython process: its samples carry its Python frames, as a program
# trace starts does (its C stacks unwound with dwarf)
python_frames() {
	# alpha, beta, gamma: 5:3:2 of its CPU (tests/fixtures/py/shares.py)
	/usr/bin/python3 "$CLI/../fixtures/py/shares.py" 600 &
	Q=$!
	sleep 1
	expect_exit 0 "$YS" trace --pid $Q --duration 1.5 --no-store -o "$T/tp/py.json"
	rc=$?
	kill $Q
	wait $Q 2>/dev/null
	[ $rc = 0 ] || return 1
	cat "$T/stderr"
	python3 - "$T/tp/py.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
st = [e["args"]["stack"] for e in t["traceEvents"]
      if e.get("ph") == "i" and e.get("cat") == "sample"]
n = {f: sum(1 for x in st if f + " (shares.py:" in x) for f in ("alpha", "beta", "gamma")}
print(len(st), "samples", n)
assert len(st) >= 20 and sum(n.values()) >= len(st) // 2, st[:5]
assert n["alpha"] > n["gamma"] > 0, n
PY
}
t "trace --pid of a python3: its samples carry its Python frames" python_frames

# Ctrl-C: what was traced is written, exit 0, the process runs on
interrupted() {
	start_fix || return 1
	attach_sigint "$T/tp/int.err" trace --pid $P \
		--json "$T/tp/int.result.json" -o "$T/tp/int.json"
	stop_fix
	attached_ok $rc $alive "$T/tp/int.err" "the process" || return 1
	has "$T/tp/int.err" "until stopped; it is still running" &&
	python3 "$CLI/chrome_trace_check.py" "$T/tp/int.json" >"$T/tp/int.sum" &&
	has "$T/tp/int.json" '"busy"' &&
	! grep -q '"partial"' "$T/tp/int.json" &&
	py "d = load('$T/tp/int.result.json'); assert d['kind'] == 'trace' and 'partial' not in json.dumps(d), d" &&
	has "$T/tp/int.err" "saved as result"
}
t "trace --pid stopped by SIGINT: the trace and the result written and stored, not partial, exit 0, the process still running" interrupted

# the process exits while traced: the trace up to its end, exit 0
exited() {
	start_fix || return 1
	"$YS" trace --pid $P --duration 60 --no-store -o "$T/tp/ex.json" 2>"$T/tp/ex.err" &
	R=$!
	wait_perf $R && sleep 0.5
	stop_fix
	wait $R
	rc=$?
	cat "$T/tp/ex.err"
	[ $rc = 0 ] || { echo "exit $rc"; return 1; }
	has "$T/tp/ex.err" "until it exited" &&
	python3 "$CLI/chrome_trace_check.py" "$T/tp/ex.json" >/dev/null &&
	awk '$3 == "busy" { if ($4 > 30000) exit 1; found = 1 } END { exit !found }' "$T/tp/ex.err"
}
t "trace --pid of a process that exits meanwhile: the trace up to its end, exit 0" exited

# --no-children: the process alone
nochildren() {
	start_fix || return 1
	expect_exit 0 "$YS" trace --pid $P --duration 0.5 --no-children --no-store
	rc=$?
	stop_fix
	[ $rc = 0 ] &&
	has "$T/stderr" "attached to pid $P (attachfix) for 0." &&
	! awk '$3 == "kid"' "$T/stderr" | grep -q .
}
t "trace --pid --no-children: the process alone, its children not traced" nochildren

# a zombie: exited, its pid still there (its parent never waits)
zombie() {
	sh -c 'true & exec sleep 30' &
	S=$!
	Z=
	for _ in $(seq 50); do
		Z=$(cat /proc/$S/task/$S/children 2>/dev/null | tr -d ' ')
		[ -n "$Z" ] && grep -q '^State:.Z' /proc/$Z/status 2>/dev/null && break
		sleep 0.1
	done
	expect_exit 2 "$YS" trace --pid "$Z" --no-store -o "$T/tp/z.json"
	rc=$?
	kill $S; wait $S 2>/dev/null
	[ $rc = 0 ] && has "$T/stderr" "process $Z exited as yardstick attached" &&
	[ ! -e "$T/tp/z.json" ]
}
t "trace --pid of a process that has exited (a zombie): exit 2, nothing written" zombie

# threads started every 15 ms while trace attaches to 1000 others (an
# event per thread and CPU, the threads listed again until none is new):
# each started once the main thread's events were open inherits them and
# is listed too (tests/fixtures/stormfix.c). Each spins 20 ms of its own
# CPU (/proc/self/task/TID/schedstat, in stormfix's report): its samples
# at 999 Hz are its CPU time, not twice it (one made after the attach
# began, from its start on: the time in the report is main's, just
# before pthread_create; one made before and first run after was
# sampled only once listed, maybe after it had spun), and its tid is one
# thread of the timeline (it was named twice, by each event's COMM)
storm_trace() {
	rm -f "$T/tp/sready" "$T/tp/sreport" "$T/tp/sgo"
	STORMFIX_GO=$T/tp/sgo "$FX/stormfix" "$T/tp/sready" "$T/tp/sreport" 1000 100 20 15 &
	P=$!
	wait_file "$T/tp/sready" || { kill $P; return 1; }
	"$YS" trace --pid $P --no-store -o "$T/tp/storm.json" \
		2>"$T/tp/storm.err" &
	ysp=$!
	# the storm once the attach has its first event (STORMFIX_GO): an
	# attach to the 1000 sleepers in a sanitized build on a loaded
	# machine outlasted a storm that began at once
	go_on_attach $ysp "$T/tp/sgo"
	wait $ysp
	rc=$?
	wait $P
	prc=$?
	grep -v '^ *[0-9]' "$T/tp/storm.err"
	[ $rc = 0 ] && [ $prc = 0 ] || { echo "exit $rc, stormfix $prc"; return 1; }
	has "$T/tp/storm.err" "until it exited" &&
	python3 - "$T/tp/storm.json" "$T/tp/sreport" "$T/tp/storm.err" <<'PY'
import json, sys
js, rep, err = sys.argv[1], sys.argv[2], sys.argv[3]
fix = {int(a): (int(b) / 1e6, int(c) / 1e3) for a, b, c in (l.split() for l in open(rep))}
t = json.load(open(js))
n = {}
for e in t["traceEvents"]:
    if e.get("ph") == "i" and e.get("cat") == "sample":
        n[e["tid"]] = n.get(e["tid"], 0) + 1
# the attach began at the trace's first event (the main thread's, listed
# first); a thread made after it inherited the main thread's events, on
# every CPU (sampler_attach.c: a thread's events enabled together)
t0 = min(e["ts"] for e in t["traceEvents"] if "ts" in e and e.get("ph") != "M")
rows = sorted((tid, round(ms, 1), n.get(tid, 0), start > t0 + 1000)
              for tid, (ms, start) in fix.items())
print("storm threads (tid, CPU ms, samples, made after the attach began):", rows)
over = [r for r in rows if r[2] > 1.25 * r[1] + 5]
assert not over, ("more samples than CPU time", over)
# how many are made after the attach depends on how long attaching to 1000
# threads takes (18 of 100 in a sanitized build at a load of 8): 5 are
# enough to see inherited events counted
after = [r for r in rows if r[3]]
under = [r for r in after if r[2] < 0.5 * r[1] - 5]
assert len(after) >= 5 and not under, ("fewer samples than CPU time", len(after), under)
# one thread per tid: in the JSON's thread names and the report's table
names = [(e["pid"], e["tid"]) for e in t["traceEvents"]
         if e.get("ph") == "M" and e["name"] == "thread_name"]
assert len(names) == len(set(names)), "a thread named twice"
tids = [int(l.split()[1]) for l in open(err)
        if len(l.split()) == 10 and l.split()[0].isdigit()]
assert len(tids) == len(set(tids)), "a thread in the table twice"
# each made after the attach began is in the table (one made before may
# have spun and gone to sleep before its events were open, and shows
# nothing: with ASan at a load of 5, attaching to the 1000 sleepers
# outlasted the process, and 651 threads showed)
made = {r[0] for r in after}
assert made <= set(tids), ("storm threads missing", made - set(tids))
PY
}
t "trace --pid while 100 threads start: each one's samples its CPU time (/proc), not twice it; one thread per tid" storm_trace

# zones of a process that holds a zone buffer: zonefix --ticks, started by
# an outer `yardstick trace` (which made its buffer), writes a zone "tick"
# of 20 ms every 30 ms; trace --pid finds the buffer among its
# descriptors and reads the ticks begun since the attach: a run of the
# outer trace's own ticks, none missing, none from before, each at least
# its 20 ms of nanosleep
zones_attached() {
	rm -f "$T/tp/zready"
	"$YS" trace --no-store -o "$T/tp/outer.json" -- "$FX/zonefix" \
		--ticks "$T/tp/zready" 2>"$T/tp/outer.err" &
	O=$!
	wait_file "$T/tp/zready" || { kill -INT $O; wait $O; return 1; }
	Z=
	for q in $(pgrep -f -- "--ticks $T/tp/zready"); do
		[ "$(cat /proc/$q/comm 2>/dev/null)" = zonefix ] && Z=$q
	done
	[ -n "$Z" ] || { echo "no zonefix"; kill -INT $O; wait $O; return 1; }
	"$YS" trace --pid $Z --duration 1.5 --no-store -o "$T/tp/z.json" \
		2>"$T/tp/z.err"
	rc=$?
	kill -INT $O
	wait $O
	cat "$T/tp/z.err"
	[ $rc = 0 ] || { echo "exit $rc"; return 1; }
	grep -q '^tick ' "$T/tp/z.err" || return 1
	# a tick open at the end (20 ms of every 30) is one the trace ended
	# inside: the process went on
	if grep -q '^unfinished' "$T/tp/z.err"; then
		grep -q '^unfinished (open when the trace ended' "$T/tp/z.err" ||
			{ echo "unfinished, worded as an exit"; return 1; }
	fi
	python3 - "$T/tp/outer.json" "$T/tp/z.json" <<'PY'
import json, sys
# the ticks that ended (the one open at the end is unfinished)
def ticks(f):
    return sorted((e["ts"], e["dur"]) for e in json.load(open(f))["traceEvents"]
                  if e.get("ph") == "X" and e.get("name") == "tick" and
                  not e.get("args", {}).get("unfinished"))
outer, inner = ticks(sys.argv[1]), ticks(sys.argv[2])
print(len(outer), "ticks in the outer trace,", len(inner), "attached")
# at least a third of the 1.5 s's 50; each its 20 ms of nanosleep at
# least, and 30 ms after the one before (20 ms inside, 10 ms out)
assert len(inner) >= 15, len(inner)
assert all(d >= 20000 for _, d in inner), inner
assert all(b[0] - a[0] >= 29900 for a, b in zip(inner, inner[1:])), inner
# the same ticks as the outer trace's, a run of them with none missing,
# and the outer trace had ticks before the attach: they were left out
ts = [t for t, _ in outer]
i = min(range(len(ts)), key=lambda k: abs(ts[k] - inner[0][0]))
assert i > 0, "no tick before the attach"
run = outer[i:i + len(inner)]
assert all(abs(a[0] - b[0]) < 1 and abs(a[1] - b[1]) < 1
           for a, b in zip(run, inner)), (run[:3], inner[:3])
PY
}
t "trace --pid of a process started by yardstick trace: its zone buffer found and read, the ticks since the attach (retried 3x)" retry zones_attached

# a process started otherwise has no buffer: said why
zones_none() {
	rm -f "$T/tp/znready"
	"$FX/zonefix" --ticks "$T/tp/znready" &
	Z=$!
	wait_file "$T/tp/znready" || { kill $Z; return 1; }
	expect_exit 0 "$YS" trace --pid $Z --duration 0.3 --no-store
	rc=$?
	kill $Z
	wait $Z 2>/dev/null
	cat "$T/stderr"
	[ $rc = 0 ] &&
	has "$T/stderr" "no zones: process $Z has no zone buffer (libyardstick records zones only into a buffer handed to the program as it starts, YARDSTICK_TRACE_FD" &&
	has "$T/stderr" "none can be handed to it later"
}
t "trace --pid of a zone-writing process yardstick did not start: no zones, and why" zones_none

attach_refusals trace "$T/tp/none.json" --no-store
t "trace --pid --page-faults: exit 2" \
	attach_usage "--page-faults is for a program" trace --pid $$ --page-faults

finish
