#!/bin/sh
# report_views.sh YS DIR: one page of each view of `yardstick report`
# into DIR (run.html: a run of 2 commands (measured: sleep 20 and 100 ms), compare, load, mem, history
# (outside git), trace, roofline), from results whose shape is the
# issue's (a 4,000-request load with no errors, single-value mem
# metrics, ...). Used by tests/cli/report_glance.sh and `make screenshots`.
set -eu
YS=$1
D=$(cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$D/fx"
python3 "$HERE/report_fixtures.py" "$D/fx"
python3 - "$D/fx" <<'PY'
import json, sys
d = sys.argv[1]
def res(kind, benchmarks):
    return {"schema": "yardstick/result/v1", "kind": kind,
            "created": "2026-11-22T10:00:00Z", "benchmarks": benchmarks}
# a load of 4,000 requests, no errors, 4 seconds of throughput
lat = [0.002 + 0.001 * ((i * 7919) % 1000) / 1000 + (0.02 if i % 997 == 0 else 0)
       for i in range(4000)]
json.dump(res("load", [{"name": "http://127.0.0.1:8080/", "command": [], "metrics": {
    "latency": {"unit": "s", "values": lat},
    "latency_uncorrected": {"unit": "s", "values": [v * 0.9 for v in lat]},
    "throughput": {"unit": "requests/s", "values": [1000, 1001, 999, 1000]},
    "error_rate": {"unit": "errors/s", "values": [0, 0, 0, 0]},
    "errors": {"unit": "count", "values": [0]}}}]), open(d + "/load4000.json", "w"))
# a trace: two threads, nested zones
ev = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": t, "args": {"name": n}}
      for t, n in ((1, "main"), (2, "worker"))]
for k in range(20):
    ev.append({"ph": "X", "name": "frame", "pid": 1, "tid": 1, "ts": k * 1000, "dur": 900})
    ev.append({"ph": "X", "name": "decode", "pid": 1, "tid": 2, "ts": k * 1000 + 100, "dur": 500})
json.dump({"traceEvents": ev, "displayTimeUnit": "ms"}, open(d + "/trace.json", "w"))
# a machine's ceilings and two benchmarks with work declared
G = 1e9
ceil = res("roofline", [
    {"name": "fp64 avx2_fma 1 thread", "parameters": {"ceiling": "compute", "isa": "avx2_fma",
     "precision": "fp64", "threads": "1"},
     "metrics": {"flops_per_second": {"unit": "flop/s", "values": [32 * G]}}},
    {"name": "DRAM triad 1 thread", "parameters": {"ceiling": "memory", "level": "DRAM",
     "pattern": "triad", "threads": "1", "bytes": str(1 << 30)},
     "metrics": {"bytes_per_second": {"unit": "bytes/s", "values": [12 * G]}}}])
json.dump(ceil, open(d + "/ceil.json", "w"))
work = res("run", [{"name": n, "metrics": {
    "wall_time": {"unit": "s", "values": [w * 1.05, w, w * 0.95]},
    "work_flops": {"unit": "flop", "values": [f] * 3},
    "work_bytes": {"unit": "bytes", "values": [b] * 3}}}
    for n, f, b, w in (("triad", 1.6e8, 1.9e9, 0.2), ("fma", 1.9e9, 384, 0.08))])
json.dump(work, open(d + "/work.json", "w"))
# mem's folded allocation sites: bytes by call stack
open(d + "/mem.folded", "w").write("main;add;strdup 716800\nmain;grow 131072\n"
                                   "main;add;grow 262144\n")
PY
F=$D/fx
# outside git, in a store of our own
H=$(mktemp -d /tmp/ys-views-XXXXXX)
trap 'rm -rf "$H"' EXIT
cd "$H"
GIT_CEILING_DIRECTORIES=/tmp YARDSTICK_STORE=$H/store.db
export GIT_CEILING_DIRECTORIES YARDSTICK_STORE
# a run of 2 commands, measured: its comparison is run's own
"$YS" run -q --runs 15 -n "sleep 20ms" -n "sleep 100ms" --json "$F/run2.json" \
	'sleep 0.02' 'sleep 0.1' >/dev/null
"$YS" report "$F/run2.json" -o "$D/run.html"
"$YS" report --baseline "$F/base.json" "$F/cand.json" -o "$D/compare.html"
"$YS" report "$F/load4000.json" -o "$D/load.html"
"$YS" report "$F/mem.json" --profile "$F/mem.folded" -o "$D/mem.html"
"$YS" report --trace "$F/trace.json" -o "$D/trace.html"
"$YS" report "$F/work.json" --ceilings "$F/ceil.json" -o "$D/roofline.html"
# history outside git: results stored from a directory no repository holds
for i in 1 2 3 4 5; do
	"$YS" run -q --runs 5 --warmup 0 -n hist -- true >/dev/null
done
"$YS" report --history hist -o "$D/history.html"
