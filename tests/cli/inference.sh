#!/bin/sh
# examples/inference (docs/inference.md) on Debian's PyTorch, ResNet-18 at
# 64x64: the pipeline as a benchmark file (per-call p50 <= p95 <= p99, the
# first call apart, allocations per call, one benchmark per batch size,
# stored and in history, the complexity fit over the batch), the pipeline
# as a whole script through run, and the batching server under trace while
# load drives it (its zones, threads and nesting, serialised and with the
# fix). Structural facts only: the machine is busy, so no check compares
# two times. PYTHON is the interpreter the package was built for,
# YS_PYTHONPATH the package in the build tree.
. "$(dirname "$0")/lib.sh"
CLI=$(dirname "$0")
EX=$(cd "$CLI/../../examples/inference" && pwd)
. "$CLI/pyenv.sh"
export CLI EX PYTHON PYTHONPATH
SMALL="--model resnet18 --size 64 --image 96x128"

# Every process that imports torch starts at once: on a busy machine the
# import is most of each one's time.
"$YS" bench --processes 1 --epochs 3 --store "$T/s.db" --json "$T/b.json" \
	-- "$PYTHON" "$EX/pipeline.py" --bench $SMALL --batches 1,2,4 \
	>"$T/b.out" 2>"$T/b.err" &
bench_pid=$!
"$YS" run --runs 1 --warmup 0 --no-store --json "$T/r.json" \
	-- "$PYTHON" "$EX/pipeline.py" $SMALL --calls 2 >"$T/r.out" 2>"$T/r.err" &
run_pid=$!
"$PYTHON" "$EX/pipeline.py" --image 12y4 >"$T/bad.out" 2>&1 &
bad_pid=$!
# the server under trace, on a free port (0) that its one line names; it
# exits a second after its last request. load sends 8 requests, however
# long they take (a request of the sanitizer build on a busy machine: seconds)
for mode in serial fixed; do
	flag=
	[ $mode = fixed ] && flag=--preprocess-in-handler
	"$YS" trace --no-store -o "$T/$mode.json" -- "$PYTHON" "$EX/server.py" 0 \
		$SMALL --image 240x320 --max-batch 4 --idle-exit 1 $flag \
		>"$T/$mode.out" 2>"$T/$mode.err" &
	echo $! >"$T/$mode.pid"
done

# wait_url MODE: the server's URL once it listens (at most 10 minutes:
# importing torch on a loaded machine)
wait_url() {
	i=0
	while [ $i -lt 600 ]; do
		u=$(sed -n 's/^listening on //p' "$T/$1.out" 2>/dev/null)
		[ -n "$u" ] && { echo "$u"; return 0; }
		kill -0 "$(cat "$T/$1.pid")" 2>/dev/null || break
		sleep 1
		i=$((i + 1))
	done
	cat "$T/$1.err" >&2
	return 1
}

for mode in serial fixed; do
	url=$(wait_url $mode) || url=
	echo "$url" >"$T/$mode.url"
	[ -n "$url" ] && "$YS" load --no-store -c 4 -n 8 -d 300s --timeout 120s --json "$T/$mode.load.json" \
		"$url" >"$T/$mode.load.out" 2>&1
	wait "$(cat "$T/$mode.pid")"
	echo $? >"$T/$mode.rc"
done
wait $bench_pid
echo $? >"$T/b.rc"
wait $run_pid
echo $? >"$T/r.rc"
wait $bad_pid
echo $? >"$T/bad.rc"

# ---- the pipeline as a benchmark file -----------------------------------

t "pipeline.py under bench: exit 0, one benchmark per batch size" sh -c '
	[ "$(cat "$T/b.rc")" = 0 ] || { cat "$T/b.err"; exit 1; }
	python3 -c "
import json
d = json.load(open(\"$T/b.json\"))
names = [b[\"name\"] for b in d[\"benchmarks\"]]
assert names == [\"infer [batch=1]\", \"infer [batch=2]\", \"infer [batch=4]\"], names
"'
t "... per call: p50 <= p95 <= p99 of the calls timed one by one, the first call apart, allocations per call" python3 -c "
import json
d = json.load(open('$T/b.json'))
for b in d['benchmarks']:
    m = b['metrics']
    c = m['call_time']
    assert len(c['values']) >= 12, (b['name'], len(c['values']))
    assert 0 < c['median'] <= c['p95'] <= c['p99'], (b['name'], c)
    f = m['first_call_time']
    assert len(f['values']) == 1 and f['values'][0] > 0, (b['name'], f)
    # the interpreter's allocations of one call: the zones, the
    # tensors' Python objects; a call makes some, and the same
    # number whatever the batch (the model's graph is the same)
    assert m['allocs_per_op']['median'] > 0, (b['name'], m['allocs_per_op'])
a = [b['metrics']['allocs_per_op']['median'] for b in d['benchmarks']]
assert max(a) - min(a) <= 0.05 * max(a), a
"
t "... the complexity fit of time_per_op over batch (3 values)" python3 -c "
import json
d = json.load(open('$T/b.json'))
fits = [f for f in d.get('complexity', []) if f.get('parameter') == 'batch']
assert len(fits) == 1, d.get('complexity')
assert fits[0].get('best'), fits[0]
"
t "... stored: history lists each batch size" sh -c '
	"$YS" history --store "$T/s.db" >"$T/h.out" 2>&1 || { cat "$T/h.out"; exit 1; }
	for b in 1 2 4; do grep -qF "infer [batch=$b]" "$T/h.out" || { cat "$T/h.out"; exit 1; }; done'

# ---- the whole script through run ---------------------------------------

t "run -- python3 pipeline.py: exit 0, the script's line, a wall time" sh -c '
	[ "$(cat "$T/r.rc")" = 0 ] || { cat "$T/r.err"; exit 1; }
	python3 -c "
import json
d = json.load(open(\"$T/r.json\"))
(b,) = d[\"benchmarks\"]
assert b[\"metrics\"][\"wall_time\"][\"values\"][0] > 0, b
"'

# ---- the server under trace and load ------------------------------------

# zones MODE: the trace's zones checked (chrome_trace_check.py's summary)
# against the server's design, and the requests against load's count
zones() {
	[ "$(cat "$T/$1.rc")" = 0 ] || { cat "$T/$1.err"; return 1; }
	python3 "$CLI/chrome_trace_check.py" "$T/$1.json" >"$T/$1.sum" || return 1
	python3 - "$1" "$T/$1.sum" "$T/$1.load.json" "$T/$1.json" <<'PY'
import json, sys
mode, summ = sys.argv[1], json.load(open(sys.argv[2]))
load = json.load(open(sys.argv[3]))["benchmarks"][0]["metrics"]
ok = len(load["latency"]["values"])
assert ok > 0, load
by = {}
for th in summ.values():
    for name, ts, dur, depth in th["zones"]:
        by.setdefault((th["name"], name, depth), []).append(dur)
got = {k: len(v) for k, v in by.items()}
req = got.get(("handler", "request", 0), 0)
# every request load saw answered is one request zone (more: those in
# flight when load stopped, answered to a closed connection)
assert req >= ok, (got, ok)
assert got.get(("handler", "queue_wait", 1)) == req, got
batches = got.get(("batcher", "batch", 0), 0)
assert 0 < batches <= req, got
for z in ("model", "softmax"):
    assert got.get(("batcher", z, 1)) == batches, (z, got)
assert got.get(("batcher", "collect", 0), 0) >= batches, got
# one pre-processing per request: serialised in the batcher, inside its
# batch; with the fix, in the request's own handler thread
where = ("batcher", "preprocess", 1) if mode == "serial" \
    else ("handler", "preprocess", 1)
assert got.get(where) == req, (mode, got)
assert sum(n for (th, z, d), n in got.items()
           if z == "preprocess" and th != "main") == req, got
# the server's warm-up, one call in the main thread before it listens
for z in ("preprocess", "model", "softmax"):
    assert got.get(("main", z, 0)) == 1, (z, got)
# every request queued once: an async span from its handler to the batcher
ev = json.load(open(sys.argv[4]))["traceEvents"]
tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"] == "thread_name"}
b = [e for e in ev if e["ph"] == "b" and e["name"] == "queued"]
e = [e for e in ev if e["ph"] == "e" and e["name"] == "queued"]
assert len(b) == len(e) == req, (len(b), len(e), req)
assert all(tname.get((x["pid"], x["tid"])) == "handler" for x in b)
assert all(tname.get((x["pid"], x["tid"])) == "batcher" for x in e)
PY
}
t "server: answers load's requests, no error" sh -c '
	for m in serial fixed; do
		python3 -c "
import json
m = json.load(open(\"$T/$m.load.json\"))[\"benchmarks\"][0][\"metrics\"]
assert m[\"errors\"][\"values\"][0] == 0, m[\"errors\"]
assert len(m[\"latency\"][\"values\"]) > 0
" || { cat "$T/$m.load.out" "$T/$m.err"; exit 1; }
	done'
t "... trace: request > queue_wait in handlers; collect, batch > preprocess, model, softmax in the batcher; one queued span per request" zones serial
t "... --preprocess-in-handler: request > preprocess in the handlers, none in the batcher" zones fixed

# ---- bad input ----------------------------------------------------------

t "pipeline.py: a bad image size is an error naming it, exit 2" sh -c '
	[ "$(cat "$T/bad.rc")" = 2 ] &&
	grep -qF "image size '"'"'12y4'"'"': expected HEIGHTxWIDTH" "$T/bad.out" || { cat "$T/bad.out"; exit 1; }'
finish
