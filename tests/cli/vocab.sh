# The vocabulary of metrics (src/result/metrics.h) end to end: a bench
# program's result with a made-up rate (zorps/s) and time (frob_time) is
# judged in its own direction and unit by compare, gate, report, history
# and the exports; compare of two bench results leaves out the setting
# (iterations) and scales rates as the bench table does; gate thresholds
# carry units; history of a store of five kinds shows every one, and says
# what it cannot show.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
FX=$(dirname "$YSFIX")

# A libyardstick-like program: its result (kind bench) has a time per op,
# the setting iterations, a known rate, a made-up rate and a made-up time,
# 20 epochs each; SCALE makes every time longer and every rate lower.
cat >fakebench.py <<'PY'
#!/usr/bin/env python3
import json, os, sys
s = float(os.environ.get("SCALE", "1"))
only = os.environ.get("ONLY")
def m(unit, v0): return {"unit": unit, "values": [v0 * (1 + 1e-5 * i) for i in range(20)]}
ms = {"time_per_op": m("s", 1e-6 * s), "iterations": m("count", 1000 / s),
      "flops_per_second": m("flop/s", 2.044e9 / s),
      "zorps_per_second": m("zorps/s", 3e9 / s), "frob_time": m("s", 0.010 * s)}
if only:
    ms = {only: ms[only]}
json.dump({"schema": "yardstick/result/v1", "kind": "bench",
           "benchmarks": [{"name": "gemm", "parameters": {}, "command": sys.argv,
                           "metrics": ms}]},
          open(os.environ["YARDSTICK_BENCH_JSON"], "w"))
PY
chmod +x fakebench.py
"$YS" bench -q --store "$T/s.db" --json base.json -- ./fakebench.py >/dev/null 2>&1
SCALE=1.25 "$YS" bench -q --store "$T/s.db" --json cand.json --csv cand.csv \
	--markdown cand.md --bmf cand.bmf -- ./fakebench.py >/dev/null 2>&1

# ---- compare: the bench view -----------------------------------------------
compare_bench() {
	"$YS" compare --json c.json base.json cand.json >c.txt; [ $? -le 1 ] &&
	! grep -q iterations c.txt && python3 -c "
import json; c = json.load(open('c.json'))['comparisons']
v = {r['metric']: r['verdict'] for r in c}
assert 'iterations' not in v, v
assert v == {'time_per_op': 'slower', 'flops_per_second': 'worse',
             'zorps_per_second': 'worse', 'frob_time': 'slower'}, v"
}
t "compare of two bench results: iterations is not compared" compare_bench
compare_rates() {
	has c.txt "2.044 G flop/s" && has c.txt "1.635 G flop/s" &&
	has c.txt "3.000 G zorps/s" && ! grep -q "2044" c.txt
}
t "... rates carry SI prefixes, as the bench table writes them" compare_rates
bench_table() {
	"$YS" bench --no-store -- ./fakebench.py >b.txt 2>&1 &&
	has b.txt "2.044 G flop/s"
}
t "... and the bench table too" bench_table

# ---- gate: units, direction -----------------------------------------------
# refused SPEC... -- TEXT: gate with the threshold options SPEC... exits 2
# and its message has TEXT
refused() {
	text=$1
	shift
	"$YS" gate "$@" cand.json 2>g.err
	[ $? -eq 2 ] && has g.err "$text"
}
t "gate: a bare number on a made-up time is refused, exit 2" refused \
	"frob_time is measured in s: a time needs a unit: 15ms, 15s or 5%" \
	-b base.json --max-increase frob_time=15
t "gate: +2.5 ms of frob_time against 1ms fails" expect_exit 1 \
	"$YS" gate -q -b base.json --max-increase frob_time=1ms cand.json
t "gate: ... against 5ms passes" expect_exit 0 \
	"$YS" gate -q -b base.json --max-increase frob_time=5ms cand.json
t "gate: the made-up rate fell 20%: --max-decrease 10% fails" expect_exit 1 \
	"$YS" gate -q -b base.json --max-decrease zorps_per_second=10% cand.json
t "gate: ... a limit in G/s holds it" expect_exit 0 \
	"$YS" gate -q --limit zorps_per_second=2.5G/s cand.json
t "gate: a rate in bytes is not a rate of zorps" refused \
	"zorps_per_second is measured in zorps/s, the threshold is a rate" \
	--limit zorps_per_second=2GiB/s
t "gate: wall_time.p99=15 is refused with what to write" refused \
	"'wall_time.p99=15': a time needs a unit: 15ms, 15s or 5%" \
	-b base.json --max-increase wall_time.p99=15
t "gate: wall_time=2MiB is refused" refused \
	"wall_time is a time (s), 'MiB' is not" \
	-b base.json --max-increase wall_time=2MiB
printf "[gate]\nmax-increase = frob_time=3\n" >bad.ini
t "gate: yardstick.ini [gate] follows the same rule" refused \
	"a time needs a unit" --config bad.ini -b base.json

# ---- report, history, exports ----------------------------------------------
report_rate() {
	"$YS" report -o r.html base.json cand.json 2>/dev/null &&
	has r.html "zorps_per_second" && has r.html "G zorps/s"
}
t "report: the made-up rate is charted by default and scaled" report_rate
history_m() {
	"$YS" history --store "$T/s.db" -m zorps_per_second >h.txt &&
	has h.txt "2.400 G zorps/s" && has h.txt "3.000 G zorps/s"
}
t "history -m: the made-up metric in its unit" history_m
exports() {
	has cand.csv zorps_per_second && has cand.md "zorps" &&
	python3 -c "
import json; b = json.load(open('cand.bmf'))['gemm']
assert abs(b['latency']['value'] - 1250) < 1, b
assert abs(b['zorps_per_second']['value'] / 2.4e9 - 1) < 1e-3, b
assert 'iterations' not in b, b" &&
	"$YS" export cand.json >om.txt && has om.txt zorps_per_second
}
t "exports: CSV, Markdown, BMF, OpenMetrics have the made-up metrics; BMF no setting" exports

# ---- history of five kinds ------------------------------------------------
"$HTTPFIX" >port.txt 2>httpfix.err &
echo $! >httpfix.pid
trap 'kill "$(cat "$T/httpfix.pid")" 2>/dev/null; rm -rf "$T"' EXIT
i=0
while [ ! -s port.txt ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
K="$T/k.db"
"$YS" run -q --runs 3 --store "$K" -n runs -- "$YSFIX" exit 0 >/dev/null 2>&1
"$YS" bench -q --store "$K" -- ./fakebench.py >/dev/null 2>&1
"$YS" mem -q --store "$K" -- "$HEAPFIX" exit 0 >/dev/null 2>&1
"$YS" trace -q --store "$K" -o "$T/tr.json" -- "$FX/zonefix" >/dev/null 2>&1
"$YS" load -q --store "$K" -c 2 -d 300ms "http://127.0.0.1:$(cat port.txt)/" \
	>/dev/null 2>&1
five_kinds() {
	"$YS" history --store "$K" --json - 2>/dev/null | python3 -c "
import json, sys; d = json.load(sys.stdin)
kinds = {r['kind']: {b['metric'] for b in r['benchmarks']} for r in d['results']}
assert set(kinds) == {'run', 'bench', 'mem', 'trace', 'load'}, kinds
assert kinds['run'] == {'wall_time'} and kinds['bench'] == {'time_per_op'}, kinds
assert kinds['mem'] == {'peak_heap'} and kinds['load'] == {'latency'}, kinds
assert kinds['trace'] == {'latency'}, kinds
assert d['not_shown'] == [], d['not_shown']"
}
t "history of run, bench, mem, trace and load results shows every kind" five_kinds
five_table() {
	"$YS" history --store "$K" >k.txt && has k.txt "wall_time (run results):" &&
	has k.txt "peak_heap (mem results):" &&
	has k.txt "time_per_op (bench results):" && ! grep -q "^note" k.txt
}
t "... the table: one per headline metric, no note" five_table
noted() {
	ONLY=zorps_per_second "$YS" bench -q --store "$K" -- ./fakebench.py \
		>/dev/null 2>&1 &&
	"$YS" history --store "$K" >n.txt &&
	has n.txt "note: 1 benchmark of bench results not shown: no metric latency, wall_time" &&
	"$YS" history --store "$K" --json - 2>/dev/null | python3 -c "
import json, sys; d = json.load(sys.stdin)
assert d['not_shown'] == [{'kind': 'bench', 'benchmarks_not_shown': 1}], d['not_shown']" &&
	"$YS" history --store "$K" -m zorps_per_second >z.txt && has z.txt gemm
}
t "a result with no headline metric is counted in a note, not dropped" noted
finish
