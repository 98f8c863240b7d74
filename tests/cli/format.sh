# docs/result-format.md against the real output: every key, setting,
# metric (with its unit), metric extra and unsupported name that run, load
# and mem write is named in the document's key tables, and every key the
# fixed tables name is written. A new key that is not documented fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/httpfix.sh"
HEAPFIX=${HEAPFIX:?HEAPFIX must name the heap fixture}
DOC=$(cd "$(dirname "$0")/../.." && pwd)/docs/result-format.md

# check KIND FILE...: the python check of the files against the document.
check() {
	python3 - "$DOC" "$@" <<'PY'
import json, re, sys

doc, kind, files = sys.argv[1], sys.argv[2], sys.argv[3:]
tables, cur = {}, None
for line in open(doc):
    m = re.match(r"<!-- keys: (\S+) -->", line)
    if m:
        cur = tables.setdefault(m.group(1), {})
        continue
    if cur is None:
        continue
    if not line.startswith("|"):
        if line.strip():
            cur = None
        continue
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    k = re.fullmatch(r"`([^`]+)`", cells[0])
    if k:
        cur[k.group(1)] = cells[1] if len(cells) > 1 else ""
for t in ("top", "tool", "machine", "git", "benchmark", "metric",
          "outliers", "comparison", "complexity", "fit",
          "benchmark.optional", "timeline",
          "metrics." + kind, "settings." + kind):
    assert tables.get(t), f"{doc}: no key table '{t}'"
bad = []

def keys(where, obj, table, every=False):
    for k in obj:
        if re.fullmatch(r"status_\d{3}", k) and "status_NNN" in tables.get(table, {}):
            continue
        if k not in tables.get(table, {}):
            bad.append(f"{where}: key '{k}' is not in table '{table}'")
    if every:
        for k in tables[table]:
            if k not in obj:
                bad.append(f"{where}: table '{table}' names '{k}', not written")

metric_keys = set(tables["metric"]) | set(tables.get("metric.optional", {}))
for f in files:
    d = json.load(open(f))
    assert d["kind"] == kind, (f, d["kind"])
    top = dict(d)
    keys(f, top, "top")
    for k in ("schema", "tool", "created", "kind", "machine", "git",
              "settings", "benchmarks", "comparisons"):
        assert k in d, (f, k)
    keys(f + ": tool", d["tool"], "tool", True)
    keys(f + ": machine", d["machine"], "machine", True)
    keys(f + ": git", d["git"], "git", True)
    keys(f + ": settings", d["settings"], "settings." + kind)
    for c in d["comparisons"]:
        keys(f + ": comparisons", c, "comparison", True)
    for c in d.get("complexity", []):
        keys(f + ": complexity", c, "complexity", True)
        for x in c["fits"]:
            keys(f + ": fits", x, "fit", True)
    for b in d["benchmarks"]:
        w = f + ": " + b["name"]
        keys(w, {k: v for k, v in b.items() if k not in tables["benchmark.optional"]},
             "benchmark", True)
        if "timeline" in b:
            keys(w + ": timeline", b["timeline"], "timeline", True)
            n = {len(b["timeline"][k]) for k in tables["timeline"]}
            if len(n) != 1:
                bad.append(f"{w}: timeline arrays of lengths {n}")
        for h, x in b.get("histograms", {}).items():
            keys(f"{w}: histograms.{h}", x, "histogram", True)
        if "per_second" in b:
            keys(w + ": per_second", b["per_second"], "per_second", True)
        if ("histograms" in b or "per_second" in b) and kind != "load":
            bad.append(f"{w}: histograms or per_second in a '{kind}' result")
        if "warmup_wall_time" in b and kind != "run":
            bad.append(f"{w}: warmup_wall_time in a '{kind}' result")
        if "timeline" in b and kind != "mem":
            bad.append(f"{w}: timeline in a '{kind}' result")
        if kind == "mem" and "peak_heap" in b["metrics"]:
            if "timeline" not in b:
                bad.append(f"{w}: a complete heap trace without its timeline")
            elif max(b["timeline"]["heap"]) != b["metrics"]["peak_heap"]["values"][0]:
                bad.append(f"{w}: the timeline's largest heap is not peak_heap")
        for name in b["unsupported"]:
            if name not in tables["metrics." + kind]:
                bad.append(f"{w}: unsupported '{name}' is no metric of table 'metrics.{kind}'")
        for name, m in b["metrics"].items():
            if name not in tables["metrics." + kind]:
                bad.append(f"{w}: metric '{name}' is not in table 'metrics.{kind}'")
            elif tables["metrics." + kind][name] != m["unit"]:
                bad.append(f"{w}: metric '{name}' has unit '{m['unit']}', the document '{tables['metrics.' + kind][name]}'")
            keys(f"{w}: {name}", {k: v for k, v in m.items() if k in tables["metric"]},
                 "metric", True)
            if "process" in m and len(m["process"]) != len(m["values"]):
                bad.append(f"{w}: {name}: a process per value wanted")
            keys(f"{w}: {name} extras",
                 [k for k in m if k not in metric_keys], "extras." + kind)
            keys(f"{w}: {name}.outliers", m["outliers"], "outliers", True)
for x in bad:
    print(x)
sys.exit(1 if bad else 0)
PY
}

# run: fixed runs with every optional setting, the shell, a numeric scan
# (complexity) and the counters (emulated where the PMU is missing);
# adaptive runs, sequential; no counters.
run_case() {
	printf 'x\n' >"$T/in"
	cpu=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
	YARDSTICK_EMULATE_PMU=1 "$YS" run --no-store -q -r 2 -w 0 -S -t 5 \
		--pin "$cpu" -p true -c true --input "$T/in" -P n=1,2,3 \
		--compare-metric peak_rss --json "$T/run1.json" \
		--work 'flops=2*{n}^3' --work 'bytes=24*{n}^2' \
		"sleep 0.00{n}" 2>"$T/run1.err" || { cat "$T/run1.err"; return 1; }
	"$YS" run --no-store -q -m 2 -M 2 --min-time 1ms --order sequential \
		--json "$T/run2.json" true "echo hi" 2>"$T/run2.err" ||
		{ cat "$T/run2.err"; return 1; }
	"$YS" run --no-store -q -r 2 -w 0 --no-counters \
		--json "$T/run3.json" true 2>"$T/run3.err" ||
		{ cat "$T/run3.err"; return 1; }
	"$YS" run --no-store -q -r 2 -w 0 -e task-clock,dram_bytes \
		--json "$T/run4.json" true 2>"$T/run4.err" ||
		{ cat "$T/run4.err"; return 1; }
	check run "$T/run1.json" "$T/run2.json" "$T/run3.json" "$T/run4.json"
}
t "run: every key of a fixed, scanned --shell run is documented" run_case

# roofline --count: a run result with the counted work.
count_case() {
	"$YS" roofline --count --runs 2 --no-store -q --json "$T/count.json" \
		-- "$(dirname "$YSFIX")/flopkern" triad 1000 2>"$T/count.err" ||
		{ cat "$T/count.err"; return 1; }
	check run "$T/count.json"
}
t "roofline --count: every key of its run result is documented" count_case

# mem: a complete trace, a sampled one with frame-pointer unwinding, a
# CPython program's.
mem_case() {
	"$YS" mem --no-store -q --json "$T/mem1.json" -- "$HEAPFIX" leak 10 \
		1000 2>"$T/mem1.err" || { cat "$T/mem1.err"; return 1; }
	"$YS" mem --no-store -q --sample 4k --unwind fp --json "$T/mem2.json" \
		-- "$HEAPFIX" temp 100 2>"$T/mem2.err" ||
		{ cat "$T/mem2.err"; return 1; }
	# a CPython program: its Python end's metrics too
	MALLOC_PERTURB_= "$YS" mem --no-store -q --json "$T/mem3.json" -- \
		/usr/bin/python3.11 -c 'k = [bytearray(100)]' \
		2>"$T/mem3.err" || { cat "$T/mem3.err"; return 1; }
	grep -q '"python_end_bytes"' "$T/mem3.json" &&
	grep -q '"python_end_blocks"' "$T/mem3.json" &&
	check mem "$T/mem1.json" "$T/mem2.json" "$T/mem3.json"
}
t "mem: every key of a heap profile is documented" mem_case

# load: closed and open models, and a server answering 503 (status_503).
fix ok
fix s503 --status 503
load_case() {
	"$YS" load --no-store -q -c 2 -n 100 --json "$T/load1.json" "$U_ok" \
		2>"$T/load1.err" || { cat "$T/load1.err"; return 1; }
	"$YS" load --no-store -q -c 2 -R 100 -d 1s --json "$T/load2.json" \
		"$U_ok" 2>"$T/load2.err" || { cat "$T/load2.err"; return 1; }
	"$YS" load --no-store -q -c 1 -n 5 --json "$T/load3.json" "$U_s503" \
		2>"$T/load3.err"
	[ -s "$T/load3.json" ] || { cat "$T/load3.err"; return 1; }
	check load "$T/load1.json" "$T/load2.json" "$T/load3.json"
}
t "load: every key of closed, open and failing runs is documented" load_case
segment_case() {
	at=$(($(date +%s) + 1))
	"$YS" load --no-store -q -c 2 -R 100 -n 50 --segment 0/1 --start-at "$at" \
		--json "$T/seg.json" "$U_ok" 2>"$T/seg.err" &&
	"$YS" merge -q -o "$T/merged.json" "$T/seg.json" &&
	check load "$T/seg.json" "$T/merged.json"
}
t "load --segment and merge: every key is documented" segment_case
# load --find-max: two steps to --max-rate, their parameters, the
# max_throughput benchmark and the search's settings.
find_max_case() {
	"$YS" load --no-store -q --find-max --slo 'p50<1s' --start-rate 20 \
		--max-rate 40 --step-duration 0.3s --step-requests 5 \
		--json "$T/findmax.json" "$U_ok" 2>"$T/findmax.err" ||
		{ cat "$T/findmax.err"; return 1; }
	check load "$T/findmax.json"
}
t "load --find-max: every key is documented" find_max_case

# bench: a libyardstick program (tests/lib/proof.c): a group (its
# comparison), declared work, threads, allocations, counters; a failed
# benchmark; --clock tsc where the TSC is invariant.
bench_case() {
	"$YSB_PROOF" --filter '^(one|two|work|threads|alloc3|empty|chain \[L=(50|100|150)\])$' \
		--epochs 3 --json "$T/bench1.json" >/dev/null 2>"$T/bench1.err" ||
		{ cat "$T/bench1.err"; return 1; }
	"$YSB_NOLOOP" --epochs 2 --no-counters --json "$T/bench2.json" \
		>/dev/null 2>&1
	# through `yardstick bench`: the processes' results merged
	"$YS" bench -q --no-store --processes 2 --filter '^(one|two|alloc3)$' \
		--epochs 2 --json "$T/bench4.json" -- "$YSB_PROOF" 2>"$T/bench4.err" ||
		{ cat "$T/bench4.err"; return 1; }
	grep -q '"process"' "$T/bench4.json" || return 1
	files="$T/bench1.json $T/bench2.json $T/bench4.json"
	if "$YSB_PROOF" --filter '^one$' --epochs 2 --clock tsc \
		--json "$T/bench3.json" >/dev/null 2>&1; then
		files="$files $T/bench3.json"
	fi
	check bench $files
}
t "bench: every key of a libyardstick program's result is documented" bench_case

# trace: zonefix's zones (libyardstick), and a program without zones.
trace_case() {
	"$YS" trace --no-store -q --json "$T/trace1.json" -- \
		"$(dirname "$YSFIX")/zonefix" 2>"$T/trace1.err" ||
		{ cat "$T/trace1.err"; return 1; }
	"$YS" trace --no-store -q --json "$T/trace2.json" -- true \
		2>"$T/trace2.err" || { cat "$T/trace2.err"; return 1; }
	# and an imported torch.profiler trace (two operators, nested)
	printf '%s' '[{"ph":"X","name":"aten::linear","ts":0,"dur":10,"tid":1,"pid":"CPU functions"},{"ph":"X","name":"aten::addmm","ts":2,"dur":6,"tid":1,"pid":"CPU functions"}]' >"$T/torch.json"
	"$YS" import --no-store -q --json "$T/trace3.json" "$T/torch.json" ||
		return 1
	check trace "$T/trace1.json" "$T/trace2.json" "$T/trace3.json"
}
t "trace: every key of a trace's result is documented" trace_case
# roofline --measure: the ceilings, with their theoretical peaks
roofline_case() {
	"$YS" roofline --measure --quick --no-store -q --json "$T/roof.json" ||
		return 1
	check roofline "$T/roof.json"
}
t "roofline --measure: every key of the ceilings' result is documented" roofline_case

# The check itself catches an undocumented key: a result with one added.
bad_case() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmarks"][0]["metrics"]["wall_time"]["p42"] = 1
json.dump(d, open(sys.argv[2], "w"))' "$T/run3.json" "$T/bad.json" &&
	! check run "$T/bad.json" >"$T/bad.out" &&
	grep -q "p42" "$T/bad.out"
}
t "an undocumented key fails the check" bad_case

finish
