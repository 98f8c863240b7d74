#!/bin/sh
# PyTorch's operators (profile/torchops.h), on Debian's python3-torch:
# - record and trace put a frame aten::OP outside the dispatcher's entry
#   at::_ops::OP::call, under the Python frame that called it
#   (tests/fixtures/py/torch_ops.py: conv_step calls conv2d, mm_step
#   addmm); the names are the library's own (its schema strings): for
#   each step of tests/fixtures/py/torch_names.py, torch.profiler's;
# - `yardstick import` reads torch.profiler's Chrome trace: on a real
#   profile of ResNet-18 its operator table agrees with torch's own
#   key_averages() of the same profile; on generated traces of designed
#   operators every self time, total and count is exact, and gate flags
#   an operator made 30% slower;
# - hostile traces are refused with a message naming the event, nothing
#   stored; a 200 MB trace is read in bounded memory.
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/py" && pwd)
GEN=$(dirname "$0")/torch_trace_gen.py
PY=/usr/bin/python3
export FIX PY

# ---- operator frames ----

# folded_has FILE PYFUNC OP: a stack where the Python frame PYFUNC
# (torch_ops.py) comes before (outside) the operator frame OP
folded_has() {
	python3 - "$@" <<'PY'
import sys
path, fn, op = sys.argv[1:4]
ok = 0
for line in open(path):
    fr = line.rsplit(" ", 1)[0].split(";")
    py = [i for i, f in enumerate(fr) if f.startswith(fn + " (torch_ops.py:")]
    ops = [i for i, f in enumerate(fr) if f == op]
    ok += bool(py and ops and py[0] < ops[-1])
assert ok, "no stack with %s before %s in %s" % (fn, op, path)
PY
}

record_ops() {
	"$YS" record -q -o "$T/ops.folded" -- "$PY" "$FIX/torch_ops.py" 300 &&
	folded_has "$T/ops.folded" conv_step aten::conv2d &&
	folded_has "$T/ops.folded" mm_step aten::addmm &&
	# the frame is the operator's, outside its entry point
	grep -q 'aten::conv2d;at::_ops::conv2d::call(' "$T/ops.folded"
}
t "record: aten::conv2d under conv_step, aten::addmm under mm_step (retried 3x: a sample's Python frames may be read too late)" retry record_ops

trace_ops() {
	"$YS" trace -q --no-store -o "$T/ops.trace.json" -- "$PY" "$FIX/torch_ops.py" 300 2>/dev/null
	python3 - "$T/ops.trace.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
st = [e["args"]["stack"].split(";") for e in ev
      if e.get("cat") == "sample" and "stack" in e.get("args", {})]
ok = [s for s in st if any(f.startswith("conv_step (torch_ops.py:") for f in s)
      and "aten::conv2d" in s]
assert ok, "no sample with conv_step and aten::conv2d"
s = ok[0]
assert [i for i, f in enumerate(s) if f.startswith("conv_step (")][0] < s.index("aten::conv2d")
PY
}
t "trace: samples' stacks carry aten::conv2d under conv_step (retried 3x)" retry trace_ops

# ---- operator names: the library's own, as torch.profiler's ----

# names_check PROF FOLDED_OR_TRACE: every operator frame in the stacks of
# each step of torch_names.py is a name torch.profiler gave an event of
# the same program (PROF), and each step's own operator is there: among
# them aten::conv2d (struct conv2d_padding) and aten::sort (sort_stable),
# which the rule alone named aten::conv2d_padding and aten::sort_stable.
names_check() {
	python3 - "$@" <<'PY'
import json, sys
prof = set(json.load(open(sys.argv[1])))
steps = {"add_step": "aten::add", "sum_step": "aten::sum",
         "bn_step": "aten::native_batch_norm",
         "conv_same_step": "aten::conv2d", "sort_step": "aten::sort"}
for want in steps.values():
    assert want in prof, ("torch.profiler lacks", want, sorted(prof))
if sys.argv[2].endswith(".json"):
    ev = json.load(open(sys.argv[2]))["traceEvents"]
    stacks = [e["args"]["stack"].split(";") for e in ev
              if e.get("cat") == "sample" and "stack" in e.get("args", {})]
else:
    stacks = [l.rsplit(" ", 1)[0].split(";") for l in open(sys.argv[2])]
seen = {}
for fr in stacks:
    for step in steps:
        at = [i for i, f in enumerate(fr)
              if f.startswith(step + " (torch_names.py:")]
        if at:
            seen.setdefault(step, set()).update(
                f for f in fr[at[0]:] if f.startswith("aten::"))
for step, want in steps.items():
    got = seen.get(step, set())
    assert want in got, (step, "lacks", want, sorted(got))
    assert got <= prof, (step, "names torch.profiler has not",
                         sorted(got - prof))
PY
}
t "torch.profiler's operator names of torch_names.py" \
	"$PY" "$FIX/torch_names.py" 20 profile "$T/names.prof.json"
record_names() {
	"$YS" record -q -o "$T/names.folded" -- "$PY" "$FIX/torch_names.py" 200 &&
	names_check "$T/names.prof.json" "$T/names.folded"
}
t "record: each step's operator frames are torch.profiler's names (aten::add, aten::sum, aten::native_batch_norm, aten::conv2d of conv2d_padding, aten::sort of sort_stable) (retried 3x)" retry record_names
trace_names() {
	"$YS" trace -q --no-store -o "$T/names.trace.json" -- "$PY" "$FIX/torch_names.py" 200 2>/dev/null &&
	names_check "$T/names.prof.json" "$T/names.trace.json"
}
t "trace: the same names in the samples' stacks (retried 3x)" retry trace_names

# ---- import: a real torch.profiler trace against key_averages() ----

t "torch.profiler on ResNet-18 (64x64, 2 inferences): trace and key_averages()" \
	"$PY" "$FIX/torch_resnet_trace.py" "$T/resnet.json" "$T/ka.json" 64 2
t "import: the operator table, stored" sh -c '
	"$YS" import --json "$T/resnet.res.json" "$T/resnet.json" >"$T/table" 2>"$T/err" &&
	grep -q "^aten::_slow_conv2d_forward\|^aten::" "$T/table" &&
	grep -q "saved" "$T/err" || { cat "$T/table" "$T/err"; exit 1; }'
# Self time is a duration less its children's, all rounded to whole µs in
# the file (torch's own are whole µs too): each instance's self time may
# differ by 1 µs per event in it (itself and its direct children). And
# where a child ends past its parent by that rounding, torch's
# key_averages() takes it for no child of that parent (its self time stays
# in the parent's) but a child of the nearest event that holds it whole
# (whose self time it takes off: torch gave aten::_convolution an instance
# of -1652 µs), while import counts it the parent's child (clipped, as it
# ran): such a child's whole duration is the rest of both tolerances,
# computed from the trace.
t "import: top operator by self time is key_averages()'s; top-5 self times agree within the rounding" \
	python3 - "$T/resnet.json" "$T/ka.json" "$T/resnet.res.json" "$T/table" <<'PY'
import json, sys
ev = [e for e in json.load(open(sys.argv[1])) if e.get("ph") == "X"]
ka = json.load(open(sys.argv[2]))
res = json.load(open(sys.argv[3]))
ys = {b["name"]: 1e6 * sum(b["metrics"]["self_time"]["values"])
      for b in res["benchmarks"]}
cnt = {b["name"]: len(b["metrics"]["latency"]["values"]) for b in res["benchmarks"]}
# tolerance per operator: events in its instances, and clipped children
tol = {}
ev.sort(key=lambda e: (e["tid"], e["ts"], -e["dur"]))
stack = []
for e in ev:
    while stack and (stack[-1]["tid"] != e["tid"] or
                     stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]):
        stack.pop()
    tol[e["name"]] = tol.get(e["name"], 0) + 1
    if stack:
        p = stack[-1]
        tol[p["name"]] = tol.get(p["name"], 0) + 1
        if e["ts"] + e["dur"] > p["ts"] + p["dur"]:
            tol[p["name"]] += e["dur"]
            holds = [a for a in stack[:-1]
                     if a["ts"] + a["dur"] >= e["ts"] + e["dur"]]
            if holds:
                tol[holds[-1]["name"]] = tol.get(holds[-1]["name"], 0) + e["dur"]
    stack.append(e)
top = sorted(ka, key=lambda k: -ka[k]["self_us"])
mine = sorted(ys, key=lambda k: -ys[k])
assert top[0] == mine[0], (top[:3], mine[:3])
first = [l.split()[0] for l in open(sys.argv[4]) if l.startswith("aten::")][0]
assert first == top[0], ("table's first row", first, top[0])
for k in top[:5]:
    assert cnt[k] == ka[k]["count"], (k, cnt[k], ka[k]["count"])
    assert abs(ys[k] - ka[k]["self_us"]) <= tol[k], (k, ys[k], ka[k]["self_us"], tol[k])
PY

# ---- import: designed traces, exact ----

t "generated traces: base, same distribution, addmm 30% slower" sh -c '
	python3 "$0" nested "$T/base.json" 1.0 1 >"$T/want.json" &&
	python3 "$0" nested "$T/same.json" 1.0 2 >/dev/null &&
	python3 "$0" nested "$T/slow.json" 1.3 1 >/dev/null' "$GEN"
t "import: self time, total and count of each operator exact (2 threads, shuffled, other categories ignored)" sh -c '
	"$YS" import -q --no-store --json "$T/base.res.json" "$T/base.json" &&
	python3 - "$T/want.json" "$T/base.res.json" <<PY
import json, sys
want = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
got = {b["name"]: b for b in r["benchmarks"]}
assert sorted(got) == sorted(want), (sorted(got), sorted(want))
for k, w in want.items():
    m = got[k]["metrics"]
    assert len(m["latency"]["values"]) == w["count"], k
    assert abs(1e6 * sum(m["self_time"]["values"]) - w["self_us"]) < 1e-3, (k, w)
    assert abs(1e6 * sum(m["latency"]["values"]) - w["total_us"]) < 1e-3, (k, w)
assert r["settings"]["ignored_events"] == 400 and r["settings"]["threads"] == 2
PY'
t "gate: an operator's p99 30% slower fails --max-increase latency.p99=10%, naming aten::addmm" sh -c '
	"$YS" import -q "$T/slow.json" 2>/dev/null &&
	"$YS" gate --baseline "$T/base.res.json" --max-increase latency.p99=10% >"$T/gate.out" 2>&1
	[ $? = 1 ] && grep -q "aten::addmm" "$T/gate.out" || { cat "$T/gate.out"; exit 1; }'
t "gate: the same distribution (another seed) passes" sh -c '
	"$YS" import -q "$T/same.json" 2>/dev/null &&
	"$YS" gate --baseline "$T/base.res.json" --max-increase latency.p99=10% >"$T/gate.out" 2>&1 ||
	{ cat "$T/gate.out"; exit 1; }'

# ---- hostile traces ----

# bad NAME TEXT MESSAGE: import refuses the trace TEXT, exit 2, saying
# MESSAGE, and stores nothing (a store of its own, never created)
bad() {
	printf '%s' "$2" >"$T/bad-$1.json"
	YARDSTICK_STORE=$T/hostile.db expect_exit 2 "$YS" import "$T/bad-$1.json" &&
	has "$T/stderr" "yardstick import: cannot read '$T/bad-$1.json'" &&
	has "$T/stderr" "$3" &&
	[ "$(wc -c <"$T/stdout")" = 0 ] && [ ! -e "$T/hostile.db" ]
}
E='{"ph":"X","name":"aten::a","ts":1,"dur":5,"tid":1,"pid":1}'
t "hostile: malformed JSON in an event" bad json "[$E,{\"ph\":\"X\",}]" "event 1 (byte"
t "hostile: truncated" bad trunc "[$E,{\"ph\"" "unexpected end of file"
t "hostile: empty" bad empty "" "empty"
t "hostile: not an array or object" bad scalar "42" "not a JSON array or object"
t "hostile: no traceEvents" bad nokey '{"events":[]}' "no events"
t "hostile: an event is not an object" bad notobj "[$E,3]" "an event is not an object"
t "hostile: no name" bad noname '[{"ph":"X","ts":1,"dur":2}]' "'name' is missing"
t "hostile: no ts" bad nots '[{"ph":"X","name":"a","dur":2}]' "no 'ts'"
t "hostile: no dur" bad nodur '[{"ph":"X","name":"a","ts":2}]' "no 'dur'"
t "hostile: negative dur" bad negdur '[{"ph":"X","name":"a","ts":2,"dur":-1}]' "'dur' is not a time in µs"
t "hostile: huge dur" bad hugedur '[{"ph":"X","name":"a","ts":2,"dur":1e300}]' "'dur' is not a time in µs"
t "hostile: ts a string" bad strts '[{"ph":"X","name":"a","ts":"2","dur":1}]' "'ts' is not a time"
t "hostile: tid an object" bad tidobj '[{"ph":"X","name":"a","ts":2,"dur":1,"tid":{}}]' "'tid' is neither"
t "hostile: overlapping, not nested (by 3 µs)" bad overlap \
	'[{"ph":"X","name":"p","ts":0,"dur":10,"tid":1},{"ph":"X","name":"c","ts":5,"dur":8,"tid":1}]' \
	"event 1 ('c', ts 5.000 µs) starts inside another event of its thread but ends 3.000 µs after it: not nested"
t "hostile: a string where an event goes" bad strev "[\"x\",$E]" "an event is not an object"
t "hostile: ts past 9e15 µs (1e16: read before, every such start the same LONG_MIN)" bad bigts '[{"ph":"X","name":"a","ts":1e16,"dur":1}]' "'ts' is not a time in µs from 0 to 9e15"
t "hostile: ts under 9e15 µs, dur past it" bad bigdur '[{"ph":"X","name":"a","ts":8.9e15,"dur":2e14}]' "'dur' is not a time in µs from 0 to 9e15"
# Near the limit, times stay apart: two events 1 s apart at 8.9e15 µs
# (at 1e16 µs, which the limit 1.8e16 let in, llround's overflow made
# both start at the same LONG_MIN: q nested in p, p's self time 0, the
# trace 0 s long)
near_limit() {
	printf '[{"ph":"X","name":"p","ts":8900000000000000,"dur":10,"tid":1},%s]' \
		'{"ph":"X","name":"q","ts":8900000001000000,"dur":10,"tid":1}' \
		>"$T/near.json" &&
	"$YS" import --no-store --json "$T/near.res.json" "$T/near.json" \
		>"$T/out" && has "$T/out" "over 1.000 s" &&
	py "d = load('$T/near.res.json')
selves = [bench(d, x)['metrics']['self_time']['values'] for x in 'pq']
assert selves == [[1e-05], [1e-05]], selves"
}
t "ts near the limit (8.9e15 µs): starts exact, no false nesting" near_limit

t "epoch µs in ts (Kineto before relative times): read, durations exact" sh -c '
	printf "%s" "[{\"ph\":\"X\",\"name\":\"p\",\"ts\":1623143089979893,\"dur\":10,\"tid\":1},{\"ph\":\"X\",\"name\":\"c\",\"ts\":1623143089979895,\"dur\":4,\"tid\":1}]" >"$T/epoch.json" &&
	"$YS" import --no-store --json "$T/epoch.res.json" "$T/epoch.json" >"$T/out" &&
	python3 -c "
import json; r = json.load(open(\"$T/epoch.res.json\"))
b = {x[\"name\"]: x[\"metrics\"] for x in r[\"benchmarks\"]}
assert abs(b[\"p\"][\"self_time\"][\"values\"][0] - 6e-6) < 1e-12, b
assert abs(b[\"c\"][\"latency\"][\"values\"][0] - 4e-6) < 1e-12, b"'
many_names() {
	python3 -c '
import json, sys
ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::op%d" % i, "pid": 1, "tid": 1 + i % 50000, "ts": i * 10, "dur": 5} for i in range(200000)]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))' "$T/many.json" &&
	timeout 300 "$YS" import --no-store "$T/many.json" >"$T/many.txt" &&
	grep -q "200000 operator events on 50000 threads" "$T/many.txt" &&
	grep -q "^\.\.\. 199980 more operators" "$T/many.txt"
}
# (its table, not --json: a result of 200,000 benchmarks is 250 MB,
# which took 78 s of a loaded machine's disk against 6 s of CPU)
t "200,000 distinct operators on 50,000 threads: imported in linear time (a table searched name by name took minutes)" many_names
t "hostile: unbalanced brackets" bad unbal "[$E}" "unbalanced brackets"
t "hostile: data after the end" bad after "[$E] [" "data after the trace's end"
long_event() {
	python3 -c 'import sys; sys.stdout.write("[{\"ph\":\"X\",\"name\":\"" + "a" * (1 << 21) + "\"}]")' >"$T/long.json" &&
	expect_exit 2 "$YS" import --no-store "$T/long.json" && has "$T/stderr" "longer than 1 MiB"
}
t "hostile: an event of more than 1 MiB" long_event
t "a child ending 1 µs past its parent (the rounding) is clipped, counted, kept" sh -c '
	printf "%s" "[{\"ph\":\"X\",\"name\":\"p\",\"ts\":0,\"dur\":10,\"tid\":1},{\"ph\":\"X\",\"name\":\"c\",\"ts\":5,\"dur\":6,\"tid\":1}]" >"$T/clip.json" &&
	"$YS" import --no-store --json "$T/clip.res.json" "$T/clip.json" >"$T/out" &&
	grep -q "1 ends clipped" "$T/out" &&
	python3 -c "
import json; r = json.load(open(\"$T/clip.res.json\"))
b = {x[\"name\"]: x[\"metrics\"] for x in r[\"benchmarks\"]}
assert abs(b[\"p\"][\"self_time\"][\"values\"][0] - 5e-6) < 1e-12, b
assert abs(b[\"c\"][\"latency\"][\"values\"][0] - 5e-6) < 1e-12, b"'

# ---- a 200 MB trace, bounded memory ----

# Under AddressSanitizer freed memory waits in a quarantine (256 MB by
# default) before reuse: a small one, so that the RSS measured is the
# reader's own.
# The sanitized build reads 48 MB (still 1/4 of the RSS bound's worth of
# events past it, and the reading as in chunks): 200 took it 56 s.
big_mb=200; san_build && big_mb=48
big_trace() {
	events=$(python3 "$GEN" big "$T/big.json" $big_mb) &&
	[ "$(stat -c %s "$T/big.json")" -ge $((big_mb << 20)) ] &&
	ASAN_OPTIONS=${ASAN_OPTIONS:-}:quarantine_size_mb=4 /usr/bin/time -f "%M" -o "$T/rss" \
		"$YS" import --no-store --max-events 100000 "$T/big.json" >"$T/out" &&
	grep -q ": $events operator events on 1 thread over" "$T/out" &&
	grep -q "$((events - 100000)) past --max-events dropped" "$T/out" &&
	[ "$(tail -1 "$T/rss")" -lt 65536 ] || { cat "$T/out" "$T/rss"; rm -f "$T/big.json"; return 1; }
	rm -f "$T/big.json"
}
t "a $big_mb MB trace: read in chunks, 100000 events kept, the rest counted; peak RSS under 64 MB" big_trace
finish
