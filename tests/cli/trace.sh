# yardstick trace: threads with designed on-CPU and off-CPU times (tracefix),
# zones of designed durations (zonefix, libyardstick), both trace formats
# checked against their rules, the limits, Ctrl-C, the result and gate.
. "$(dirname "$0")/lib.sh"
FX=$(dirname "$YSFIX")
CLI=$(cd "$(dirname "$0")" && pwd)
export FX CLI

# The fixture measures each thread itself (its lifetime from just before
# pthread_create, CLOCK_THREAD_CPUTIME_ID, the time it slept or waited for
# the lock); the trace must agree within 2% (+ 2 ms of thread start and
# exit the fixture cannot see). The tables of the report on stderr.
t "tracefix: lifetime, on-CPU, blocked per thread as the threads measured them" sh -c '
	"$YS" trace --no-store -o "$T/tf.json" -o "$T/tf.perfetto-trace" -- "$FX/tracefix" 200 >"$T/tf.out" 2>"$T/tf.err" || { cat "$T/tf.err"; exit 1; }
	python3 - "$T/tf.out" "$T/tf.err" <<"PY"
import sys
own = {l.split()[0]: [int(x) / 1e6 for x in l.split()[2:]] for l in open(sys.argv[1])}
rows = {}
for l in open(sys.argv[2]):
    f = l.split()
    if len(f) == 8 and f[2] in ("spinner", "sleeper", "locker", "tracefix"):
        rows[f[2]] = [float(f[3]), float(f[4]), float(f[6]), float(f[7])]
assert set(own) == {"spinner", "sleeper", "locker"}, own
assert set(rows) == {"spinner", "sleeper", "locker", "tracefix"}, rows
def near(a, b, what):
    assert abs(a - b) <= 0.02 * max(a, b) + 2, (what, a, b)
for name, (life, cpu, wait) in own.items():
    tlife, ton, tblocked, tpre = rows[name]
    # on + off = lifetime, exactly as accounted
    assert abs(ton + tblocked + tpre - tlife) <= 0.01 + 1e-4 * tlife, (name, rows[name])
    near(tlife, life, name + " lifetime")
    near(ton, cpu, name + " on-CPU")
    if name != "spinner":
        near(tblocked, wait, name + " blocked")
        assert tblocked >= 196, (name, tblocked)
# the spinner never blocks; main waits (joins) nearly all its life
assert rows["spinner"][2] < 2, rows["spinner"]
assert rows["tracefix"][2] > 0.9 * rows["tracefix"][0], rows["tracefix"]
PY'

t "the Chrome JSON keeps the format's rules; thread names; its on-CPU spans are the table's" sh -c '
	python3 "$CLI/chrome_trace_check.py" "$T/tf.json" > "$T/tf.sum" &&
	python3 - "$T/tf.sum" "$T/tf.err" <<"PY"
import json, sys
s = json.load(open(sys.argv[1]))
names = {v["name"]: v for v in s.values()}
assert {"spinner", "sleeper", "locker", "tracefix"} <= set(names), names
for l in open(sys.argv[2]):
    f = l.split()
    if len(f) == 8 and f[2] in names:
        assert abs(names[f[2]]["oncpu_us"] / 1000 - float(f[4])) < 0.01, (f, names[f[2]])
PY'

t "the checker refuses what breaks the rules" sh -c '
	for bad in "[{\"ph\":\"B\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1}]" \
	           "[{\"ph\":\"E\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1}]" \
	           "[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":5},{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":4}]" \
	           "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5},{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":9}]" \
	           "[{\"ph\":\"b\",\"cat\":\"c\",\"id\":1,\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1}]" \
	           "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"ts\":1,\"dur\":1}]"; do
		printf "%s" "$bad" > "$T/bad.json"
		python3 "$CLI/chrome_trace_check.py" "$T/bad.json" 2>/dev/null && { echo "passed: $bad"; exit 1; }
	done; true'

# The official schema subset (tests/cli/perfetto_trace.proto): every field
# known (protoc prints unknown ones as bare numbers), begins and ends pair.
t "the Perfetto trace decodes with protoc against Perfetto's schema" sh -c '
	protoc --decode=perfetto.protos.Trace -I"$CLI" "$CLI/perfetto_trace.proto" < "$T/tf.perfetto-trace" > "$T/tf.txt" || exit 1
	! grep -Eq "^ *[0-9]+[:{ ]" "$T/tf.txt" || { grep -E "^ *[0-9]+[:{ ]" "$T/tf.txt" | head; exit 1; }
	for n in spinner sleeper locker; do grep -q "thread_name: \"$n\"" "$T/tf.txt" || exit 1; done
	grep -q "clock_id: 3" "$T/tf.txt" && grep -q "timestamp_clock_id: 3" "$T/tf.txt" &&
	b=$(grep -c "type: TYPE_SLICE_BEGIN" "$T/tf.txt") && e=$(grep -c "type: TYPE_SLICE_END" "$T/tf.txt") &&
	[ "$b" -eq "$e" ] && [ "$b" -gt 10 ] &&
	j=$(grep -c "\"ph\":\"b\",\"cat\":\"cpu\"" "$T/tf.json") && [ "$j" -eq "$b" ] || { echo "$b $e $j"; exit 1; }
	[ $(stat -c %s "$T/tf.perfetto-trace") -lt $(stat -c %s "$T/tf.json") ]'

t "--format overrides the name; an unknown name is refused before the run" sh -c '
	"$YS" trace -q --no-store --format perfetto -o "$T/p.json" -- "$FX/tracefix" 20 >/dev/null &&
	protoc --decode=perfetto.protos.Trace -I"$CLI" "$CLI/perfetto_trace.proto" < "$T/p.json" >/dev/null &&
	{ "$YS" trace -o "$T/x.trace" -- "$FX/tracefix" 20 >"$T/x.out" 2>"$T/x.err"; [ $? -eq 2 ]; } &&
	grep -q "yardstick trace: -o .*x.trace.*: say the format" "$T/x.err" && [ ! -s "$T/x.out" ]'

t "--max-size: the file stops there, stays valid, and says so" sh -c '
	"$YS" trace --no-store --max-size 20k -o "$T/cap.json" -o "$T/cap.perfetto-trace" -- "$FX/tracefix" 100 >/dev/null 2>"$T/cap.err" &&
	grep -q "cap.json.: stopped at --max-size 20480 bytes: [0-9]* of [0-9]* events written, [1-9][0-9]* left out" "$T/cap.err" &&
	grep -q "cap.perfetto-trace.: stopped at --max-size" "$T/cap.err" &&
	[ $(stat -c %s "$T/cap.json") -le 20480 ] && [ $(stat -c %s "$T/cap.perfetto-trace") -le 20480 ] &&
	python3 "$CLI/chrome_trace_check.py" "$T/cap.json" >/dev/null &&
	protoc --decode=perfetto.protos.Trace -I"$CLI" "$CLI/perfetto_trace.proto" < "$T/cap.perfetto-trace" >/dev/null' 

t "--max-events: what is past it is counted as dropped, never silently" sh -c '
	"$YS" trace --no-store --max-events 50 -o "$T/me.json" -- "$FX/tracefix" 100 >/dev/null 2>"$T/me.err" &&
	grep -Eq "^trace of .* [1-9][0-9]* events past --max-events" "$T/me.err" &&
	python3 -c "
import json; d = json.load(open(\"$T/me.json\"))
assert d[\"otherData\"][\"dropped_events\"] > 0
assert len([e for e in d[\"traceEvents\"] if e[\"ph\"] != \"M\"]) <= 2 * 50" '

# Ctrl-C: the terminal sends SIGINT to the foreground process group;
# here the group of a setsid yardstick. The program dies of it, yardstick
# writes what it collected and exits 1.
t "Ctrl-C: the trace collected up to then is written" sh -c '
	setsid "$YS" trace --no-store -o "$T/int.json" -- "$FX/tracefix" forever >/dev/null 2>"$T/int.err" &
	pid=$!
	sleep 1.5
	kill -INT -$pid
	( sleep 60; kill -KILL -$pid 2>/dev/null ) &
	wait $pid; rc=$?
	[ $rc -eq 1 ] || { echo "rc $rc"; cat "$T/int.err"; exit 1; }
	grep -q "killed by SIGINT" "$T/int.err" &&
	python3 "$CLI/chrome_trace_check.py" "$T/int.json" > "$T/int.sum" &&
	python3 -c "
import json; s = json.load(open(\"$T/int.sum\"))
sp = [v for v in s.values() if v[\"name\"] == \"spinner\"]
assert sp and sp[0][\"oncpu_us\"] > 100000, s"'

t "help trace: usage, the formats, how to open them" sh -c '
	"$YS" help trace > "$T/h.txt" &&
	for s in "yardstick trace [OPTIONS] -- PROGRAM" ui.perfetto.dev chrome://tracing --max-size CLOCK_MONOTONIC .perfetto-trace; do
		grep -qF -- "$s" "$T/h.txt" || { echo "no $s"; cat "$T/h.txt"; exit 1; }
	done'

t "no program, a program that does not exist: exit 2" sh -c '
	{ "$YS" trace -o "$T/a.json" 2>"$T/e1"; [ $? -eq 2 ]; } && grep -q "no program" "$T/e1" &&
	{ "$YS" trace --no-store -- /nonexistent/prog 2>"$T/e2"; [ $? -eq 2 ]; } && grep -q "nonexistent" "$T/e2" &&
	[ ! -e "$T/a.json" ]'

finish
