# yardstick report: the HTML page, opened in headless Chromium through the
# DevTools protocol (tests/cli/browser.py): no console error, no request,
# the numbers of fixtures known in advance read back from the rendered
# page, outside text shown as text, a screenshot that is not blank.
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
F=$T/fx
mkdir -p "$F" && python3 "$HERE/report_fixtures.py" "$F" || exit 1

# One Chromium for every page of the test (a start costs seconds), each
# page in a tab of its own.
. "$HERE/browser.sh"

# browse PAGE JS [SHOT]: open PAGE, evaluate JS (an expression whose value
# is JSON text), screenshot (at a third of the size) to SHOT; what
# happened in $T/b.json.
browse() {
	timeout 120 python3 "$HERE/browser.py" "$1" --eval "$2" --scale 0.35 \
		--screenshot "${3:-$T/shot.png}" > "$T/b.json"
}

# clean [MIN_COLOURS]: nothing went wrong in the last browse, and the
# screenshot has at least MIN_COLOURS colours (default 3: not blank).
clean() {
	python3 - "$T/b.json" "${1:-3}" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
for k in ("console", "exceptions", "requests", "dialogs"):
    assert b[k] == [], (k, b[k])
assert b["colours"] >= int(sys.argv[2]), ("blank screenshot", b["colours"])
PY
}

# value CODE: python CODE with v, the value the page's JS returned.
value() {
	python3 -c "
import json
v = json.loads(json.load(open('$T/b.json'))['value'])
$1
"
}

# the run view: tables, one distribution and one sequence per charted
# metric, the outlier of beta's cold start, p99 and the CI read back
run_view() {
	"$YS" report "$F/run.json" --charts all -o "$T/run.html" &&
	browse "$T/run.html" 'JSON.stringify({
	  p99: document.querySelector("[data-name=alpha] tr[data-metric=wall_time] td.p99").textContent,
	  med: document.querySelector("[data-name=alpha] tr[data-metric=wall_time] td.median").dataset.v,
	  ci: [...document.querySelectorAll("[data-name=alpha] tr[data-metric=wall_time] td.median-ci")].map(e => [e.dataset.lo, e.dataset.hi]),
	  dist: [...document.querySelectorAll("[data-name=alpha] .chart.dist g[data-metric]")].map(e => e.dataset.metric),
	  seq: document.querySelectorAll("[data-name=alpha] .chart.seq").length,
	  out_alpha: document.querySelectorAll("[data-name=alpha] .chart .outliers").length,
	  out_beta: [...document.querySelectorAll("[data-name=beta] .chart.dist .outliers")].map(e => e.dataset.n),
	  rows: document.querySelectorAll("[data-name=beta] table.summary tbody tr").length,
	  warm: [...document.querySelectorAll(".chart.dist g.warmup")].map(g => [g.closest("section.bench").dataset.name, g.closest("g[data-metric]").dataset.metric, g.dataset.n, g.querySelector("text").textContent,
	    [...g.querySelectorAll("circle.wdot")].map(c => [+c.dataset.v, +c.getAttribute("cx")]), g.closest("figure").querySelector("figcaption").textContent.split("; ")[1]])})' "$T/run.png" &&
	clean 20 && value '
assert v["p99"] == "99.01 ms", v
assert abs(float(v["med"]) - 0.0505) < 1e-12, v
lo, hi = map(float, v["ci"][0])
assert lo < 0.0505 < hi and hi - lo < 0.03, v
# wall_time, user_time: peak_rss is constant, one value: drawn too
assert v["dist"] == ["wall_time", "user_time", "peak_rss"], v
assert v["seq"] == 3 and v["out_alpha"] == 0, v
assert v["out_beta"] == ["1", "1"], v   # wall_time and user_time
assert v["rows"] == 3, v
# alpha'"'"'s warm-up runs apart, marked, on the axis (which reaches 250 ms)
[w] = v["warm"]
assert w[:4] == ["alpha", "wall_time", "3", "warm-up"], w
assert [d[0] for d in w[4]] == [0.25, 0.12] and w[4][0][1] > w[4][1][1] > 78, w
assert w[5] == "the 3 warm-up runs apart (hollow, top row: not in the statistics)", w'
}
t "run view: numbers read back from the rendered page, one chart per metric" run_view

default_charts() {
	"$YS" report "$F/run.json" -o "$T/d.html" &&
	browse "$T/d.html" 'JSON.stringify([...document.querySelectorAll(".chart.dist g[data-metric]")].map(e => e.dataset.metric))' &&
	clean && value 'assert v == ["wall_time", "wall_time"], v'
}
t "default: wall_time drawn, the other metrics are table rows" default_charts

scan_view() {
	"$YS" report "$F/scan.json" -o "$T/scan.html" &&
	browse "$T/scan.html" 'JSON.stringify({
	  fit: document.querySelector(".chart.scan .fit-label").textContent,
	  r2: document.querySelector(".chart.scan .fit-label").dataset.r2,
	  pts: document.querySelectorAll(".chart.scan circle.pt").length,
	  curve: document.querySelector(".chart.scan path.fit").getAttribute("d").split("L").length,
	  ys: [...document.querySelectorAll(".chart.scan circle.pt")].map(c => +c.getAttribute("cy"))})' &&
	clean && value '
assert v["fit"] == "best fit O(n), R² = 1.0000", v
assert float(v["r2"]) == 1 and v["pts"] == 5 and v["curve"] > 50, v
ys = v["ys"]  # log axes: n doubles, the cost doubles: equal steps up
steps = [ys[i] - ys[i + 1] for i in range(4)]
assert all(abs(s - steps[0]) < 0.3 and s > 10 for s in steps), ys'
}
t "scan view: the fitted O(n) curve and R² on log axes, a point per n" scan_view

imported_scan() {
	"$YS" report "$F/hfscan.json" -o "$T/hfscan.html" &&
	browse "$T/hfscan.html" 'JSON.stringify([document.querySelector("section.scan h3").textContent,
	  document.querySelector(".chart.scan .fit-label").textContent,
	  document.querySelectorAll(".chart.scan circle.pt").length])' &&
	clean && value 'assert v == ["scan: n (fitted by the report: the result has no fit)", "best fit O(n), R² = 1.0000", 5], v' &&
	"$YS" report "$F/run.json" -o "$T/noscan.html" && ! grep -q "class=\"scan\"" "$T/noscan.html"
}
t "a scan imported from hyperfine: fitted by the report" imported_scan

load_view() {
	"$YS" report "$F/load.json" -o "$T/load.html" &&
	browse "$T/load.html" 'JSON.stringify({
	  pct: Object.fromEntries([...document.querySelectorAll(".chart.spectrum text.pct")].map(e => [e.dataset.p, [e.textContent, +e.dataset.v]])),
	  series: document.querySelectorAll(".chart.spectrum circle").length,
	  ticks: [...document.querySelectorAll(".chart.spectrum text.tick")].map(e => e.textContent).filter(s => s[0] == "p"),
	  xs: [...document.querySelectorAll(".chart.spectrum text.pct")].map(e => +e.getAttribute("x")),
	  tput: document.querySelectorAll(".chart.seq g[data-metric=throughput]").length,
	  seqs: [...document.querySelectorAll(".chart.seq g[data-metric]")].map(g => [g.dataset.metric, g.closest("figure").querySelector("figcaption").textContent.split(",")[0]]),
	  erate: ["max", "mean"].map(c => +document.querySelector("tr[data-metric=error_rate] td." + c).dataset.v),
	  errors: document.querySelector("tr[data-metric=errors] td.median").textContent})' "$T/load.png" &&
	clean 10 && value '
p = v["pct"]
assert p["p99"][0] == "p99 990.0 ms" and abs(p["p99"][1] - 0.99001) < 1e-12, p
assert abs(p["p50"][1] - 0.5005) < 1e-12 and abs(p["p99.9"][1] - 0.999001) < 1e-12, p
assert v["series"] == 10, v     # corrected and uncorrected
assert v["ticks"] == ["p50", "p90", "p99", "p99.9", "p99.99"], v
xs = v["xs"]                    # a nines axis: p90, p99, p99.9 evenly spaced
assert abs((xs[2] - xs[1]) - (xs[3] - xs[2])) < 1, xs
assert v["tput"] == 1 and v["errors"] == "3", v
# the errors of each second drawn beside the throughput of each second
assert v["seqs"][1:] == [["throughput", "per second"], ["error_rate", "per second"]], v
assert v["erate"] == [2, 0.6], v'
}
t "load view: the percentile spectrum on a nines axis, p99 read back" load_view

# load --find-max: the capacity chart, a point per step at its offered
# rate, those that failed red, the max and the knee at 200/s.
capacity_view() {
	"$YS" report "$F/findmax.json" -o "$T/findmax.html" &&
	browse "$T/findmax.html" 'JSON.stringify({
	  pts: [...document.querySelectorAll(".chart.capacity-throughput circle")].map(c => [+c.dataset.offered, +c.dataset.met, c.classList.contains("worse"), +c.getAttribute("cx")]),
	  lat: document.querySelectorAll(".chart.capacity-latency circle").length,
	  tip: document.querySelector(".chart.capacity-throughput circle[data-offered=\"200\"] title").textContent,
	  marks: ["cap-max", "cap-knee"].map(k => [...document.querySelectorAll(".chart.capacity-throughput g." + k + " path")].map(p => +p.getAttribute("d").slice(1).split(" ")[0]))})' &&
	clean && value '
pts = v["pts"]
assert [p[0] for p in pts] == [50, 100, 200, 300, 400], pts
assert [p[1] for p in pts] == [1, 1, 1, 0, 0] and [p[2] for p in pts] == [False, False, False, True, True], pts
assert pts[0][3] < pts[1][3] < pts[2][3] < pts[3][3] < pts[4][3], pts
# log x: 50 -> 100 as far as 100 -> 200
assert abs((pts[1][3] - pts[0][3]) - (pts[2][3] - pts[1][3])) < 1, pts
assert v["lat"] == 10, v
assert v["tip"] == "200/s offered: achieved 199 requests/s", v["tip"]
assert v["marks"] == [[pts[2][3]], [pts[2][3]]], v["marks"]' &&
	"$YS" report "$F/load.json" -o "$T/nocap.html" && ! grep -q "class=\"capacity\"" "$T/nocap.html"
}
t "load --find-max: the capacity chart, steps by offered rate, the max and the knee marked" capacity_view

mem_view() {
	"$YS" report "$F/mem.json" -o "$T/mem.html" &&
	browse "$T/mem.html" 'JSON.stringify([...document.querySelectorAll("table.summary tr[data-metric]")].map(r => [r.dataset.metric, r.querySelector(".median").textContent]))' &&
	clean && value '
assert v == [["peak_heap", "1.000 MiB"], ["leaked_bytes", "4.000 KiB"], ["allocations", "1.000 k"]], v'
}
t "mem view: the heap metrics in the table" mem_view

# mem's timeline: the heap and RSS over time, the peak read back
mem_timeline() {
	"$YS" report "$F/mem.json" -o "$T/memt.html" &&
	browse "$T/memt.html" '(() => {
	  const c = document.querySelector("[data-name=heapfix] .chart.timeline");
	  const p = c.querySelector("g.peak");
	  const box = c.querySelector("svg").getBoundingClientRect();
	  return JSON.stringify({peak: +p.dataset.v, t: +p.dataset.t, label: p.textContent,
	    runs: c.querySelector("path.rss").getAttribute("d").split("M").length - 1,
	    area: c.querySelector("path.heap-area").getAttribute("d").split("L").length,
	    cy: +p.querySelector("circle").getAttribute("cy"), h: box.height,
	    base: +c.querySelector("path.heap-area").getAttribute("d").match(/V([0-9.]+)/)[1],
	    rss3: +c.querySelector("path.rss").getAttribute("d").split(" ").pop()});
	})()' "$T/memt.png" &&
	clean 5 && value '
assert v["peak"] == 1048576 and v["t"] == 0.8, v
assert v["label"] == "peak 1.000 MiB at 800.0 ms", v
assert v["runs"] == 2 and v["area"] == 10 and v["h"] > 100, v   # RSS broken where not sampled
# the peak, 1 MiB, a third of the way up to RSS, 3 MiB
assert abs((v["base"] - v["cy"]) / (v["base"] - v["rss3"]) - 1 / 3) < 0.01, v' && python3 - "$F/mem.json" "$T/badtl.json" <<'PY' &&
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmarks"][0]["timeline"]["rss"].pop()
json.dump(d, open(sys.argv[2], "w"))
del d["benchmarks"][0]["timeline"]["rss"]
json.dump(d, open(sys.argv[2] + "2", "w"))
PY
	expect_exit 2 "$YS" report "$T/badtl.json" -o "$T/x.html" &&
	has "$T/stderr" "benchmarks[0].timeline: 't', 'heap' and 'rss' differ in length (10, 10, 9)" &&
	expect_exit 2 "$YS" report "$T/badtl.json2" -o "$T/x.html" &&
	has "$T/stderr" "benchmarks[0].timeline: missing key 'rss'"
}
t "mem view: heap and RSS timeline, the peak marked and read back" mem_timeline

# the comparison: ratios and CIs as compare --json computes them
compare_view() {
	"$YS" compare --json "$T/cmp.json" -q "$F/base.json" "$F/cand.json" &&
	"$YS" report --baseline "$F/base.json" "$F/cand.json" -o "$T/cmp.html" &&
	browse "$T/cmp.html" 'JSON.stringify([...document.querySelectorAll(".chart.forest tr.frow")].map(r => [r.cells[0].textContent, r.dataset.verdict, +r.dataset.ratio, +r.dataset.lo, +r.dataset.hi, r.querySelector(".ratio").textContent, getComputedStyle(r.querySelector(".verdict")).color]))' "$T/cmp.png" &&
	clean 10 && python3 - "$T/cmp.json" "$T/b.json" <<'PY'
import json, sys
c = {r["benchmark"]: r for r in json.load(open(sys.argv[1]))["comparisons"] if r["metric"] == "wall_time"}
rows = json.loads(json.load(open(sys.argv[2]))["value"])
assert [r[0] for r in rows] == ["slow", "same", "fast"], rows
want = {"slow": ("slower", 1.5), "same": ("unchanged", 1), "fast": ("faster", 0.5)}
for name, verdict, ratio, lo, hi, text, colour in rows:
    assert verdict == want[name][0] == c[name]["verdict"], (name, verdict, c[name])
    assert abs(ratio - want[name][1]) < 1e-12, (name, ratio)
    ci = c[name]["change_ci"]
    assert abs(lo - (1 + ci[0])) < 1e-9 and abs(hi - (1 + ci[1])) < 1e-9, (name, lo, hi, ci)
    assert text == "%.3f× [%.3f, %.3f]" % (ratio, lo, hi), text
colours = {r[1]: r[6] for r in rows}
assert len(set(colours.values())) == 3, colours   # a colour per verdict
PY
}
t "comparison view: forest plot rows, ratio and CI as compare computes them" compare_view

# the gate's thresholds: its verdicts beside the ratios, the same as
# `yardstick gate` gives, and a threshold on the median drawn at its ratio
gate_view() {
	"$YS" report --baseline "$F/base.json" "$F/cand.json" --max-increase wall_time=10% \
		--max-increase wall_time.p99=1ms --gate-limit wall_time=14ms -o "$T/gate.html" &&
	browse "$T/gate.html" 'JSON.stringify([...document.querySelectorAll(".chart.forest tr.frow")].map(r => [r.cells[0].textContent,
	  [...r.querySelectorAll(".check")].map(c => c.textContent),
	  [...r.querySelectorAll("path.thr")].map(p => [p.dataset.threshold, +p.dataset.ratio])]))' &&
	clean && value '
rows = {r[0]: r for r in v}
assert rows["slow"][1] == ["wall_time=10%: fail", "wall_time.p99=1ms: fail", "wall_time=14ms: fail"], rows["slow"]
assert rows["same"][1] == ["wall_time=10%: pass", "wall_time.p99=1ms: pass", "wall_time=14ms: pass"], rows["same"]
assert rows["fast"][1] == ["wall_time=10%: pass", "wall_time.p99=1ms: pass", "wall_time=14ms: pass"], rows["fast"]
# the median of base is 11 ms: 10% at 1.1, 14 ms at 14/11; p99 is not drawn
marks = dict(rows["same"][2])
assert abs(marks["wall_time=10%"] - 1.1) < 1e-12 and abs(marks["wall_time=14ms"] - 14 / 11) < 1e-9, marks
assert "wall_time.p99=1ms" not in marks, marks' &&
	for spec in "--max-increase wall_time=10%" "--max-increase wall_time.p99=1ms" "--limit wall_time=14ms"; do
		"$YS" gate -q --baseline "$F/base.json" $spec "$F/cand.json" >/dev/null 2>&1; g=$?
		"$YS" gate -q --baseline "$F/base.json" $spec "$F/base.json" >/dev/null 2>&1; b=$?
		[ "$g" = 1 ] && [ "$b" = 0 ] || { echo "gate $spec: $g $b"; return 1; }
	done &&
	expect_exit 2 "$YS" report --max-increase wall_time=10% "$F/cand.json" -o "$T/x.html" && has "$T/stderr" "--baseline" &&
	expect_exit 2 "$YS" report --baseline "$F/base.json" --max-increase wall_time=lots "$F/cand.json" -o "$T/x.html" && has "$T/stderr" "lots"
}
t "gate thresholds on the comparison: verdicts as gate gives them, median thresholds drawn" gate_view

# the gate's config: yardstick.ini's [gate] sections (or --config FILE),
# read as gate reads them, drawn and judged on the comparison; exit 0
gate_config() {
	mkdir -p "$T/gc" && cd "$T/gc" &&
	printf '[gate]\nalpha = 0.01\nmax-increase = wall_time=10%%\nlimit = wall_time=14ms\n[gate "sl*"]\nmax-increase = wall_time=20%%\n' > yardstick.ini &&
	"$YS" report --baseline "$F/base.json" "$F/cand.json" -o "$T/gc.html" &&
	mkdir -p "$T/gc2" && cp yardstick.ini "$T/gc2/g.ini" && cd "$T/gc2" &&
	"$YS" report --config g.ini --baseline "$F/base.json" "$F/cand.json" -o "$T/gc2.html" &&
	cmp -s "$T/gc.html" "$T/gc2.html" &&
	browse "$T/gc.html" 'JSON.stringify([...document.querySelectorAll(".chart.forest tr.frow")].map(r => [r.cells[0].textContent,
	  [...r.querySelectorAll(".check")].map(c => c.textContent),
	  Object.fromEntries([...r.querySelectorAll("path.thr")].map(p => [p.dataset.threshold, +p.dataset.ratio]))]))' &&
	clean && value '
rows = {r[0]: r for r in v}
assert rows["slow"][1] == ["wall_time=10%: fail", "wall_time=14ms: fail", "wall_time=20%: fail"], rows["slow"]
assert rows["same"][1] == ["wall_time=10%: pass", "wall_time=14ms: pass"], rows["same"]
assert abs(rows["slow"][2]["wall_time=20%"] - 1.2) < 1e-12 and abs(rows["same"][2]["wall_time=14ms"] - 14 / 11) < 1e-9, rows' &&
	cd "$T/gc" && "$YS" gate -q --baseline "$F/base.json" "$F/cand.json" >/dev/null 2>&1; [ $? = 1 ] &&
	printf '[gate]\nmax-increse = wall_time=1%%\n' > "$T/gc2/bad.ini" &&
	expect_exit 2 "$YS" report --config "$T/gc2/bad.ini" --baseline "$F/base.json" "$F/cand.json" -o "$T/x.html" &&
	has "$T/stderr" "max-increse" && [ ! -e "$T/x.html" ] &&
	expect_exit 2 "$YS" report --config "$T/gc2/none.ini" "$F/cand.json" -o "$T/x.html" && has "$T/stderr" "none.ini" &&
	"$YS" report "$F/cand.json" -o "$T/gc3.html"
}
t "gate thresholds from yardstick.ini or --config: judged and drawn on the comparison" gate_config

# the history: 12 stored results whose wall times are set to 10 ms (6)
# then 20 ms (6); the change point at the 7th, as history --detect says
history_view() {
	cd "$T" && git init -q -b main hrepo && cd hrepo &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
		git -c user.name=t -c user.email=t@t commit -q --allow-empty -m "c$i" &&
		"$YS" run -q --runs 5 --warmup 0 -n h -- "$YSFIX" exit 0 2>/dev/null || return 1
	done
	# the saves wait in the store's log: a command that opens the store
	# moves them into the database, where python edits them
	"$YS" history -n 1 >/dev/null &&
	python3 - "$YARDSTICK_STORE" <<'PY' || return 1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
ids = [r[0] for r in db.execute("SELECT id FROM results ORDER BY id")]
assert len(ids) == 12, ids
for k, rid in enumerate(ids):
    base = 0.010 if k < 6 else 0.020
    for (mid,) in db.execute("SELECT m.id FROM metrics m JOIN benchmarks b ON m.benchmark_id = b.id WHERE b.result_id = ? AND m.name = 'wall_time'", (rid,)).fetchall():
        for run in range(5):
            db.execute("UPDATE run_values SET value = ? WHERE metric_id = ? AND run = ?", (base * (1 + (run - 2) * 0.01), mid, run))
db.commit()
PY
	"$YS" history h --detect > "$T/detect.txt" &&
	cp_id=$(sed -n 's/.*at result \([0-9]*\) .*/\1/p' "$T/detect.txt") &&
	[ -n "$cp_id" ] &&
	"$YS" report --history h -o "$T/hist.html" &&
	browse "$T/hist.html" '(() => {
	  const pts = [...document.querySelectorAll(".chart.history .hpt")];
	  pts[0].dispatchEvent(new MouseEvent("click", {bubbles: true}));
	  const clicked = document.getElementById("hist-out").textContent;
	  pts[7].focus();
	  const focused = document.activeElement === pts[7];
	  pts[7].dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true}));
	  return JSON.stringify({n: pts.length, clicked, focused,
	    keyed: document.getElementById("hist-out").textContent,
	    first: pts[0].dataset.id, eighth: pts[7].dataset.id, commit0: pts[0].dataset.commit,
	    cps: [...document.querySelectorAll(".chart.history g.cp")].map(g => [g.dataset.id, +g.dataset.before, +g.dataset.after]),
	    band: document.querySelectorAll(".chart.history path.band").length});
	})()' "$T/hist.png" &&
	clean 10 && value "
cp_id = '$cp_id'
assert v['n'] == 12 and v['band'] == 1, v
assert v['cps'] == [[cp_id, 0.01, 0.02]], v
c0 = v['commit0']
assert len(c0) == 40 and v['clicked'].startswith('result %s · commit %s · branch main' % (v['first'], c0)), v
assert v['focused'] and v['keyed'].startswith('result %s ' % v['eighth']) and v['keyed'].endswith(' · median 20.00 ms'), v
assert v['clicked'].endswith(' · median 10.00 ms'), v"
}
t "history view: CI band, the change point history --detect finds, click and Enter show a result" history_view

since_limit() {
	cd "$T/hrepo" &&
	"$YS" report --history h --limit 4 -o "$T/h4.html" &&
	[ "$(grep -c 'class="hpt"' "$T/h4.html")" = 4 ] &&
	"$YS" report --history h --since 2999-01-01 -o "$T/h0.html" &&
	grep -q "no stored results match" "$T/h0.html" &&
	"$YS" report --history h --since 2000-01-01T00:00:00Z --branch main -o "$T/h12.html" &&
	[ "$(grep -c 'class="hpt"' "$T/h12.html")" = 12 ] &&
	"$YS" report --history h --branch nope -o "$T/hn.html" &&
	grep -q "no stored results match" "$T/hn.html" &&
	"$YS" report --history h --gate-limit wall_time=15ms --gate-limit wall_time.p99=1ms -o "$T/hl.html" &&
	[ "$(grep -c "<g class=\"limit\" data-threshold=\"wall_time=15ms\" data-v=\"0.015\"" "$T/hl.html")" = 1 ] &&
	! grep -q "wall_time.p99=1ms" "$T/hl.html" &&
	expect_exit 2 "$YS" report --history h --max-increase wall_time=5% -o "$T/x.html" && has "$T/stderr" "--baseline"
}
t "--history with --limit, --since, --branch, a gate limit drawn" since_limit

history_config() {
	cd "$T/hrepo" &&
	printf '[gate]\nlimit = wall_time=15ms\nlimit = wall_time.p99=1ms\nmax-increase = wall_time=5%%\n[gate "other"]\nlimit = wall_time=12ms\n' > "$T/h.ini" &&
	"$YS" report --config "$T/h.ini" --history h -o "$T/hc.html" &&
	browse "$T/hc.html" 'JSON.stringify([...document.querySelectorAll(".chart.history g.limit")].map(g => [g.dataset.threshold, +g.dataset.v, g.textContent]))' &&
	clean && value 'assert v == [["wall_time=15ms", 0.015, "gate limit wall_time=15ms"]], v'
}
t "--history: the ceilings on the median of yardstick.ini's [gate] drawn" history_config

store_refs() {
	cd "$T/hrepo" &&
	"$YS" report latest branch:main "@$(git rev-parse HEAD)" -o "$T/refs.html" &&
	[ "$(grep -c '<section class="result"' "$T/refs.html")" = 3 ] &&
	has "$T/refs.html" '<h2>branch:main</h2>'
}
t "store references: latest, branch:NAME, @COMMIT" store_refs

# -o names a format the page is not: refused (exit 2, the formats
# named), nothing written; before, 'report latest -o r.pdf' wrote HTML
# into r.pdf with exit 0. .HTM and a name without an extension are taken.
wrong_ext() {
	cd "$T/hrepo" &&
	expect_exit 2 "$YS" report latest -o "$T/r.pdf" &&
	has "$T/stderr" "yardstick report: -o '$T/r.pdf': report writes an HTML page: name it .html or .htm (- for stdout)" &&
	[ ! -e "$T/r.pdf" ] &&
	expect_exit 0 "$YS" report latest -o "$T/r.HTM" &&
	expect_exit 0 "$YS" report latest -o "$T/page" &&
	has "$T/page" '<section class="result"'
}
t "-o r.pdf: refused, exit 2, the page's formats named" wrong_ext

imports() {
	"$YS" report "$F/hf.json" "$F/gb.json" -o "$T/imp.html" &&
	browse "$T/imp.html" 'JSON.stringify([...document.querySelectorAll("section.bench")].map(s => [s.dataset.name, s.querySelector("tr[data-metric=wall_time] td.median").textContent, s.querySelectorAll(".chart.dist").length]))' &&
	clean && value 'assert v == [["sleep 0.01", "10.50 ms", 1], ["BM_x", "110.0 ns", 0]], v'
	# (BM_x's 3 repetitions: their sequence shows each, a distribution
	# of 3 would add nothing: issue 29)
}
t "hyperfine and Google Benchmark files" imports

# outside text in every field: shown as text, no element, no script run
hostile() {
	cp "$F/hostile.json" "$F/<img src=x onerror=alert(9)>.json" &&
	"$YS" report --charts all --baseline "$F/hostile_base.json" "$F/<img src=x onerror=alert(9)>.json" -o "$T/hostile.html" &&
	browse "$T/hostile.html" 'JSON.stringify({
	  scripts: document.scripts.length, imgs: document.images.length,
	  handlers: [...document.querySelectorAll("*")].filter(e => [...e.attributes].some(a => a.name.startsWith("on"))).length,
	  names: [...document.querySelectorAll("section.bench h3")].map(e => e.textContent),
	  dnames: [...document.querySelectorAll("section.bench")].map(e => e.dataset.name),
	  frows: [...document.querySelectorAll("tr.frow td:first-child")].map(e => e.textContent),
	  h2: [...document.querySelectorAll("h2")].map(e => e.textContent),
	  meta: document.querySelector("section.result p.meta").textContent,
	  text: document.body.innerText.length})' "$T/hostile.png" &&
	clean 10 && value '
H = ["</script><script>alert(1)</script>", "<img src=x onerror=alert(2)>", "q\"uo\x27te&amp;", "ctl???[31m\u2028\u2029?end"]  # control characters and the bidi override shown as ?
assert v["scripts"] == 1 and v["imgs"] == 0 and v["handlers"] == 0, v
assert v["dnames"] == H, v
for h, n in zip(H, v["names"]):
    assert n.startswith(h + " [") or n == h, (h, n)
assert all(h in v["frows"] for h in H), v["frows"]
assert any("<img src=x onerror=alert(9)>.json" in h for h in v["h2"]), v["h2"]
assert H[0] in v["meta"] and H[1] in v["meta"] and H[2] in v["meta"], v["meta"]' &&
	! grep -q "<script><script>\|<img" "$T/hostile.html"
}
t "injection: names, commands, parameters, units, commits, file names appear as text" hostile

# a profile: the flame graph of profile/flamegraph.c inline, working
# (a click zooms), and the top table with Amdahl's bound
profile_view() {
	printf 'main;work;hot 60\nmain;work;cold 30\nmain;idle 9\nmain;</script><img src=x onerror=alert(3)> 1\n' > "$T/p.folded" &&
	"$YS" report --profile "$T/p.folded" -o "$T/prof.html" &&
	browse "$T/prof.html" '(() => {
	  const gs = [...document.querySelectorAll("#frames g")];
	  const before = document.getElementById("unzoom").getAttribute("class");
	  gs.find(g => g.querySelector("title").textContent.startsWith("work ")).dispatchEvent(new MouseEvent("click", {bubbles: true}));
	  return JSON.stringify({titles: gs.map(g => g.querySelector("title").textContent.split(" \u2014 ")[0]), before,
	    after: document.getElementById("unzoom").getAttribute("class"), imgs: document.images.length,
	    rows: [...document.querySelectorAll("table.top tbody tr")].map(r => [r.cells[0].textContent, r.querySelector(".self").textContent, r.querySelector(".amdahl").textContent]),
	    line: document.querySelector(".amdahl-line").textContent});
	})()' "$T/prof.png" &&
	clean 10 && value '
assert sorted(v["titles"]) == sorted(["all", "main", "idle", "work", "cold", "hot", "</script><img src=x onerror=alert(3)>"]), v
assert v["before"] == "btn off" and v["after"] == "btn" and v["imgs"] == 0, v
rows = {r[0]: r for r in v["rows"]}
assert rows["hot"][1:] == ["60.00%", "2.500×"] and rows["work"][2] == "10.000×" and rows["main"][2] == "–", rows
assert "hot, has 60.0% of them" in v["line"] and "at most 2.500× faster" in v["line"], v' &&
	printf 'main;x notanumber\n' > "$T/bad.folded" &&
	expect_exit 2 "$YS" report --profile "$T/bad.folded" -o "$T/x.html" && has "$T/stderr" "bad.folded"
}
t "profile view: the flame graph inline and working, the top table with Amdahl's bound" profile_view

# the flame graph by keyboard: the root in the tab order, the arrows move
# the focus between frames, Enter zooms (and on the root unzooms)
flame_keys() {
	browse "$T/prof.html" '(() => {
	  const gs = [...document.querySelectorAll("#frames g")];
	  const name = g => g.querySelector("title").textContent.split(" \u2014 ")[0];
	  const key = k => document.activeElement.dispatchEvent(new KeyboardEvent("keydown", {key: k, bubbles: true, cancelable: true}));
	  const tab = gs.filter(g => g.tabIndex === 0).map(name);
	  const root = document.getElementById("root");
	  root.focus();
	  const path = [name(document.activeElement)];
	  for (const k of ["ArrowUp", "ArrowUp", "ArrowRight", "ArrowRight", "ArrowUp", "ArrowUp", "ArrowDown", "ArrowUp"]) { key(k); path.push(name(document.activeElement)); }
	  const details = document.getElementById("details").textContent;
	  key("Enter");
	  const zoomed = document.getElementById("unzoom").getAttribute("class");
	  const width = +document.activeElement.querySelector("rect").getAttribute("width");
	  const hidden = gs.filter(g => g.getAttribute("class") === "h").map(name).sort();
	  root.focus(); key("Enter");
	  return JSON.stringify({tab, path, details, zoomed, width, hidden,
	    after: document.getElementById("unzoom").getAttribute("class"),
	    btns: ["unzoom", "search"].map(id => document.getElementById(id).tabIndex)});
	})()' &&
	clean && value '
assert v["tab"] == ["all"], v
# all, up to main, up to its leftmost callee, right twice, up to the
# leftmost callee of work (cold), up again: none (stays), down, up
assert v["path"] == ["all", "main", "</script><img src=x onerror=alert(3)>", "idle", "work", "cold", "cold", "work", "cold"], v
assert v["details"].startswith("cold \u2014 30 samples"), v
# Enter on cold zooms to it: the full width, its siblings and cousins hidden
assert v["zoomed"] == "btn" and v["width"] > 1000, v
assert v["hidden"] == sorted(["</script><img src=x onerror=alert(3)>", "hot", "idle"]), v
assert v["after"] == "btn off" and v["btns"] == [0, 0], v'
}
t "flame graph by keyboard: focusable frames, arrows move, Enter zooms" flame_keys

dark_print() {
	"$YS" report "$F/run.json" -o "$T/dark.html" &&
	timeout 120 python3 "$HERE/browser.py" "$T/dark.html" --dark --scale 0.35 --eval 'JSON.stringify([getComputedStyle(document.body).backgroundColor, getComputedStyle(document.querySelector(".dots")).stroke])' --screenshot "$T/dark.png" > "$T/b.json" &&
	clean && value 'assert v == ["rgb(21, 24, 28)", "rgb(110, 162, 255)"], v'
}
t "dark mode: the page and the charts follow prefers-color-scheme" dark_print

printed() {
	"$YS" report "$F/big.json" -o "$T/print.html" &&
	timeout 120 python3 "$HERE/browser.py" "$T/print.html" --print --scale 0.35 --eval 'JSON.stringify([getComputedStyle(document.querySelector("nav")).display,
	  [...new Set([...document.querySelectorAll("section.bench")].map(e => getComputedStyle(e).contentVisibility))],
	  getComputedStyle(document.querySelector("figure")).breakInside])' --screenshot "$T/print.png" > "$T/b.json" &&
	clean && value 'assert v == ["none", ["visible"], "avoid"], v'
}
t "print: no navigation, every benchmark laid out, figures kept whole" printed

size_check() {
	"$YS" report "$F/big.json" -o "$T/big.html" &&
	size=$(wc -c < "$T/big.html") &&
	echo "# 100 benchmarks x 1000 runs: $size bytes" &&
	[ "$size" -lt 2000000 ] &&
	browse "$T/big.html" 'JSON.stringify([document.querySelectorAll("section.bench").length, document.querySelectorAll(".chart.dist").length])' &&
	clean && value 'assert v == [100, 100], v' &&
	python3 -c "import json; print('# opened in', json.load(open('$T/b.json'))['load_ms'], 'ms')"
}
t "100 benchmarks x 1000 runs: under 2 MB, opens cleanly" size_check

big_load() {
	"$YS" report "$F/bigload.json" -o "$T/bigload.html" &&
	size=$(wc -c < "$T/bigload.html") && [ "$size" -lt 100000 ] &&
	browse "$T/bigload.html" 'JSON.stringify([document.querySelectorAll(".chart.seq g[data-metric=latency] .odots").length,
	  +document.querySelector(".chart.seq g[data-metric=latency] .outliers").dataset.n,
	  document.querySelector(".chart.seq g[data-metric=latency] path.line").getAttribute("d").split("M").length - 1,
	  +document.querySelector(".chart.seq g[data-metric=latency] path.line").dataset.perBin])' &&
	clean && value 'assert v == [1, 20, 1, 1000], v'
}
# (a line per pixel column of 100,000 noisy latencies was a solid band:
# 100 bins of 1000, their medians one line, issue 29)
t "a load sample of 100,000: a page under 100 kB, the 20 spikes marked, 100 bins of 1000" big_load

usage() {
	expect_exit 2 "$YS" report "$F/run.json" && has "$T/stderr" "-o FILE" &&
	expect_exit 2 "$YS" report -o "$T/x.html" && has "$T/stderr" "REF" &&
	expect_exit 2 "$YS" report --baseline "$F/run.json" -o "$T/x.html" &&
	expect_exit 2 "$YS" report --history h --since yesterday -o "$T/x.html" && has "$T/stderr" "'yesterday'" &&
	expect_exit 2 "$YS" report --branch main "$F/run.json" -o "$T/x.html" && has "$T/stderr" "--history" &&
	expect_exit 2 "$YS" report "$F/nope.json" -o "$T/x.html" && has "$T/stderr" "nope.json" &&
	expect_exit 2 "$YS" report --open "$F/run.json" -o - &&
	expect_exit 2 "$YS" report "$F/run.json" -o "$T/no/such/dir/x.html" && has "$T/stderr" "x.html" &&
	[ ! -e "$T/x.html" ]
}
t "usage errors: exit 2, naming the argument, nothing written" usage

stdout_and_open() {
	"$YS" report "$F/run.json" -o - > "$T/out.html" &&
	head -c 15 "$T/out.html" | grep -q "<!DOCTYPE html>" &&
	mkdir -p "$T/bin" && printf '#!/bin/sh\necho "$@" > "%s/opened"\n' "$T" > "$T/bin/xdg-open" &&
	chmod +x "$T/bin/xdg-open" &&
	PATH="$T/bin:$PATH" "$YS" report --open "$F/run.json" -o "$T/o.html" &&
	[ "$(cat "$T/opened")" = "$T/o.html" ]
}
t "-o - writes stdout; --open runs xdg-open on the page" stdout_and_open

# errors of load results: the forest plot shows the judge's numbers as
# compare and gate do (the odds ratio's exact interval: SciPy 1.10.1's
# odds_ratio([[60, 540], [0, 600]], kind="conditional") gives 17.3828)
mkload "$T/e0.json" 0 600
mkload "$T/e60.json" 60 600
t "report --baseline: errors as a proportion, the judge's interval and verdict" sh -c '
	"$YS" report --baseline "$T/e0.json" "$T/e60.json" --max-increase errors=2% -o "$T/err.html" &&
	grep -q "errors: odds ratio of the candidate" "$T/err.html" &&
	grep -q "<td>0 of 600</td><td>60 of 600</td>" "$T/err.html" &&
	grep -Eq "class=\"frow worse\" data-verdict=\"worse\" data-ratio=\"\" data-lo=\"17\.3827755[0-9]*\" data-hi=\"\"" "$T/err.html" &&
	grep -q "class=\"check fails\" data-verdict=\"fail\"" "$T/err.html"'

t "help" sh -c '"$YS" help report | grep -q -- "--baseline" && "$YS" report --help | grep -q -- "--history"'
finish
