# yardstick roofline REFS / --machine / --ceilings: benchmarks placed under
# ceilings made by hand (whose numbers, and so every verdict, are known in
# advance), the table, --json, the chart (-o FILE.svg, opened in headless
# Chromium), the report's roofline, hostile names, the errors; then the
# fixtures of designed intensity (tests/fixtures/roofkern.c) run for real.
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
ROOFKERN=${ROOFKERN:?ROOFKERN must name tests/fixtures/roofkern}

# The hand-made machine, 1 thread: fp64 scalar 8, sse2 16, avx2_fma 64
# GFLOP/s; triad bandwidth L1 256, L2 128, L3 64, DRAM 16 GB/s (ridge
# points 0.25, 0.5, 1 and 4 FLOP/B); fp32 avx2_fma 128; 2 threads: fp64
# avx2_fma 128 and DRAM 20.
python3 - "$T" <<'PY' || exit 1
import json, sys
T = sys.argv[1]
G = 1e9
def cpu(isa, prec, th, v):
    return {"name": "%s %s %d thread%s" % (prec, isa, th, "" if th == 1 else "s"),
            "parameters": {"ceiling": "compute", "isa": isa, "precision": prec,
                           "threads": str(th)},
            "metrics": {"flops_per_second": {"unit": "flop/s", "values": [v * 0.9, v, v * 0.95]}}}
def mem(level, pattern, th, size, v):
    return {"name": "%s %s %d thread%s" % (level, pattern, th, "" if th == 1 else "s"),
            "parameters": {"ceiling": "memory", "level": level, "pattern": pattern,
                           "threads": str(th), "bytes": str(size)},
            "metrics": {"bytes_per_second": {"unit": "bytes/s", "values": [v, v * 0.8]}}}
ceil = {"schema": "yardstick/result/v1", "kind": "roofline",
        "machine": {"hostname": "handmade", "cpu": "cpu", "cores": 2, "memory_bytes": 1 << 34},
        "benchmarks": [cpu("scalar", "fp64", 1, 8 * G), cpu("sse2", "fp64", 1, 16 * G),
                       cpu("avx2_fma", "fp64", 1, 64 * G), cpu("avx2_fma", "fp32", 1, 128 * G),
                       cpu("avx2_fma", "fp64", 2, 128 * G),
                       mem("L1", "triad", 1, 32768, 256 * G), mem("L2", "triad", 1, 1 << 20, 128 * G),
                       mem("L3", "triad", 1, 16 << 20, 64 * G), mem("DRAM", "triad", 1, 1 << 30, 16 * G),
                       mem("DRAM", "triad", 2, 1 << 30, 20 * G)]}
json.dump(ceil, open(T + "/ceil.json", "w"))

# The fixtures' work as run --work declares it, with wall times chosen:
# triad N=4M x 20 in 0.3 s, fma 2e7 x 96 in 0.06 s, daxpy N=1024 x 2e5
# in 0.03 s (in L1), N=4M x 20 in 0.4 s (from DRAM); a hostile name at
# 0.4 FLOP/B and 40 GFLOP/s, under L2's line (51.2) and above L3's (25.6).
def run(name, flops, nbytes, wall, params=None):
    m = {"wall_time": {"unit": "s", "values": [wall * 1.1, wall, wall * 0.9]}}
    if flops is not None:
        m["work_flops"] = {"unit": "flop", "values": [flops] * 3}
    if nbytes is not None:
        m["work_bytes"] = {"unit": "bytes", "values": [nbytes] * 3}
    b = {"name": name, "metrics": m}
    if params:
        b["parameters"] = params
    return b
N, R = 4194304, 20
hostile = "<b>&amp;\"q\" ']]> ünï 名前 \u202e" + "x" * 80
res = {"schema": "yardstick/result/v1", "kind": "run",
       "settings": {"work_flops": "2*{n}*{reps}", "work_bytes": "24*{n}*{reps}"},
       "benchmarks": [run("triad", 2 * N * R, 24 * N * R, 0.3),
                      run("fma", 96 * 2e7, 384, 0.06),
                      run("daxpy L1", 2 * 1024 * 2e5, 24 * 1024 * 2e5, 0.03),
                      run("daxpy DRAM", 2 * N * R, 24 * N * R, 0.4),
                      run("sleep", None, None, 0.1),
                      run("flops only", 1e9, None, 0.1),
                      run(hostile, 1e9, 2.5e9, 0.025),
                      run("fma 2 threads", 96 * 2e7, 384, 0.03, {"threads": "2"}),
                      run("fma 3 threads", 96 * 2e7, 384, 0.03, {"threads": "3"})]}
json.dump(res, open(T + "/work.json", "w"))
PY

YSR() { "$YS" roofline --ceilings "$T/ceil.json" "$@"; }

placed() {
	expect_exit 0 YSR "$T/work.json" --json "$T/r.json" -o "$T/r.svg" &&
	py "
d = load('$T/r.json')
assert d['schema'] == 'yardstick/roofline/v1'
assert d['ceilings_from'] == \"'$T/ceil.json'\", d['ceilings_from']
assert d['defaults'] == {'threads': 1, 'precision': 'fp64', 'pattern': 'triad'}
assert len(d['ceilings']) == 10
p = {x['name']: x for x in d['points']}
def near(a, b): assert abs(a - b) <= 1e-9 * abs(b), (a, b)
t = p['triad']
assert (t['bound'], t['ceiling']) == ('memory', 'DRAM triad 1 thread'), t
near(t['arithmetic_intensity'], 1 / 12)
near(t['flops_per_second'], 2 * 4194304 * 20 / 0.3)
near(t['roof'], 16e9 / 12)
near(t['fraction'], 2 * 4194304 * 20 / 0.3 / (16e9 / 12))
assert t['next'] == 'L3 triad 1 thread', t
assert t['flops_from'] == 'work_flops (2*{n}*{reps})', t
f = p['fma']
assert (f['bound'], f['ceiling'], f['next']) == ('compute', 'fp64 avx2_fma 1 thread', None), f
near(f['fraction'], 96 * 2e7 / 0.06 / 64e9)
a = p['daxpy L1']
assert (a['bound'], a['ceiling']) == ('memory', 'L1 triad 1 thread'), a
near(a['fraction'], 2 * 1024 * 2e5 / 0.03 / (256e9 / 12))
assert a['next'] == 'fp64 avx2_fma 1 thread', a
b = p['daxpy DRAM']
assert (b['bound'], b['ceiling']) == ('memory', 'DRAM triad 1 thread'), b
assert p['sleep']['placed'] is False
assert p['sleep']['reason'] == 'no work declared: use --work or --count'
assert p['flops only']['reason'] == 'no bytes declared: use --work bytes=EXPR or --count'
assert p['fma 2 threads']['ceiling'] == 'fp64 avx2_fma 2 threads'
assert p['fma 2 threads']['threads'] == 2
near(p['fma 2 threads']['fraction'], 96 * 2e7 / 0.03 / 128e9)
assert p['fma 3 threads']['reason'] == 'no fp64 compute ceiling for 3 threads'
h = [x for x in d['points'] if x['name'].startswith('<b>')][0]
assert h['name'].endswith('x' * 80) and '\u202e' in h['name'], h['name']
assert h['bound'] == 'memory' and h['ceiling'] == 'L2 triad 1 thread', h
"
}
t "REFS under --ceilings: each benchmark's bound, ceiling, fraction and next roof as computed by hand" placed

table() {
	expect_exit 0 YSR "$T/work.json" &&
	has "$T/stdout" "memory-bound (DRAM): 42% of the DRAM roof; L3 roof 9.5× away" &&
	has "$T/stdout" "compute-bound (fp64 avx2_fma): 50% of the compute roof" &&
	has "$T/stdout" "memory-bound (L1): 64% of the L1 roof; compute roof 4.7× away" &&
	has "$T/stdout" "not placed:" &&
	has "$T/stdout" "  sleep: no work declared: use --work or --count" &&
	has "$T/stdout" "  fma 3 threads: no fp64 compute ceiling for 3 threads" &&
	no_controls "$T/stdout"
}
t "the table: the verdicts in words, the benchmarks not placed listed with the reason" table

defaults() {
	expect_exit 0 YSR "$T/work.json" --point-threads 2 --json "$T/r2.json" -q &&
	[ ! -s "$T/stdout" ] &&
	py "
p = {x['name']: x for x in load('$T/r2.json')['points']}
assert p['triad']['ceiling'] == 'DRAM triad 2 threads', p['triad']
assert p['fma']['ceiling'] == 'fp64 avx2_fma 2 threads', p['fma']
assert p['fma 3 threads']['placed'] is False
" &&
	expect_exit 0 YSR "$T/work.json" --precision fp32 --json "$T/r3.json" &&
	py "
p = {x['name']: x for x in load('$T/r3.json')['points']}
assert p['fma']['ceiling'] == 'fp32 avx2_fma 1 thread', p['fma']
assert p['fma']['precision'] == 'fp32'
" &&
	expect_exit 0 YSR "$T/work.json" --pattern load --json "$T/r4.json" &&
	py "
p = {x['name']: x for x in load('$T/r4.json')['points']}
assert p['triad']['reason'] == 'no load bandwidth for 1 thread', p['triad']
"
}
t "--point-threads, --precision and --pattern choose the ceilings of the benchmarks that do not say theirs" defaults

svg() {
	python3 - "$T/r.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
raw = open(sys.argv[1], encoding="utf-8").read()
assert "<b>" not in raw and "]]>" not in raw and "\u202e" not in raw, "unescaped"
root = ET.fromstring(raw)
ns = {"s": "http://www.w3.org/2000/svg"}
pts = root.findall(".//s:g[@class='rpt']", ns)
names = [g.get("data-name") for g in pts]
assert len(pts) == 6, names
assert set(names) >= {"triad", "fma", "daxpy L1", "daxpy DRAM"}, names
h = [g for g in pts if g.get("data-name").startswith("<b>")][0]
title = h.find("s:title", ns).text
assert title.startswith(h.get("data-name")[:20]), title
label = h.find("s:text", ns).text
assert label.endswith("…") and len(label) == 29, label
assert "memory-bound (L2)" in title, title
mems = root.findall(".//s:path[@class='roof-mem']", ns)
assert sorted(p.get("data-level") for p in mems) == ["DRAM", "L1", "L2", "L3"]
assert len(root.findall(".//s:path[@class='roof']", ns)) == 1
assert len(root.findall(".//s:path[@class='roof-low']", ns)) == 2
PY
}
t "-o r.svg: well-formed, a labelled line per ceiling, a point per placed benchmark, every name escaped and a long one cut in its label only" svg

. "$HERE/browser.sh"

browse_svg() {
	timeout 120 python3 "$HERE/browser.py" "$T/r.svg" --eval \
		'JSON.stringify([...document.querySelectorAll(".rpt")].map(g => [g.getAttribute("data-name"), g.querySelector("title").textContent, g.getBoundingClientRect().width > 0]))' \
		--screenshot "$T/svg.png" > "$T/b.json" &&
	python3 - "$T/b.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
for k in ("console", "exceptions", "requests", "dialogs"):
    assert b[k] == [], (k, b[k])
assert b["colours"] >= 4, b["colours"]
v = json.loads(b["value"])
names = {n: (title, shown) for n, title, shown in v}
title, shown = names["triad"]
assert shown
assert title.split("\n")[2] == "memory-bound (DRAM): 42% of the DRAM roof; L3 roof 9.5× away", title
h = [n for n in names if n.startswith("<b>&amp;\"q\" ']]>")]
assert h and names[h[0]][0].startswith(h[0]), names
PY
}
t "the chart in Chromium: drawn, no error or request, each point's tooltip (its <title>) holds its name and verdict as text" browse_svg

report() {
	expect_exit 0 "$YS" report "$T/work.json" --ceilings "$T/ceil.json" \
		-o "$T/rep.html" &&
	timeout 120 python3 "$HERE/browser.py" "$T/rep.html" --eval \
		'JSON.stringify([document.querySelectorAll("#roofline .rpt").length, [...document.querySelectorAll("#roofline .rpt title")].map(t => t.textContent.split("\n")[0])])' \
		--scale 0.35 --screenshot "$T/rep.png" > "$T/b.json" &&
	python3 - "$T/b.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
for k in ("console", "exceptions", "requests", "dialogs"):
    assert b[k] == [], (k, b[k])
n, names = json.loads(b["value"])
assert n == 6, (n, names)
assert "daxpy L1" in names and "fma 2 threads" in names, names
PY
}
t "report: the roofline section of the benchmarks with work declared, in Chromium" report

report_none() {
	expect_exit 0 "$YS" report "$T/work.json" -o "$T/rep2.html" &&
	has "$T/stderr" "no roofline: no ceilings stored for this machine" &&
	! grep -q 'id="roofline"' "$T/rep2.html"
}
t "report without ceilings stored: the page without the roofline, a note on stderr" report_none
# -q as every other command has it (before: "unknown option '-q'", exit 2)
t "report -q: the same page, without the note" sh -c '
	"$YS" report -q "$T/work.json" -o "$T/rep3.html" 2>"$T/q.err" && [ ! -s "$T/q.err" ] &&
	! grep -q "id=\"roofline\"" "$T/rep3.html" && [ -s "$T/rep3.html" ]'

errors() {
	expect_exit 2 "$YS" roofline &&
	has "$T/stderr" "give the results to place (REF...)" &&
	expect_exit 3 "$YS" roofline --machine &&
	has "$T/stderr" "no ceilings stored for this machine" &&
	has "$T/stderr" "run 'yardstick roofline --measure'" &&
	expect_exit 3 "$YS" roofline "$T/work.json" &&
	has "$T/stderr" "no ceilings stored for this machine" &&
	expect_exit 2 YSR --machine "$T/work.json" &&
	has "$T/stderr" "--machine shows the ceilings: it takes no REF" &&
	expect_exit 2 "$YS" roofline --ceilings "$T/work.json" "$T/work.json" &&
	has "$T/stderr" "the ceilings of '$T/work.json': a result of kind 'run', not 'roofline'" &&
	expect_exit 2 YSR "$T/ceil.json" &&
	has "$T/stderr" "holds ceilings, not benchmarks: give it with --ceilings; the benchmarks to place are results with work (run --work, roofline --count -- PROGRAM)" &&
	expect_exit 2 YSR "$T/work.json" -o "$T/r.png" &&
	has "$T/stderr" "-o '$T/r.png': the chart is written as SVG only" &&
	expect_exit 2 YSR "$T/missing.json" &&
	has "$T/stderr" "missing.json" &&
	expect_exit 2 YSR "$T/work.json" --precision fp16 &&
	expect_exit 2 YSR "$T/work.json" --point-threads 0 &&
	expect_exit 2 "$YS" roofline --measure --pattern copy &&
	has "$T/stderr" "place benchmarks, not with --measure" &&
	[ ! -e "$T/r.png" ]
}
t "errors: no REF, no stored ceilings (exit 3), --machine with a REF, ceilings of another kind, a REF of ceilings, -o not .svg, a missing file" errors

machine_given() {
	expect_exit 0 YSR --machine --json "$T/m.json" &&
	has "$T/stdout" "fp64 avx2_fma 1 thread" &&
	has "$T/stdout" "64.00 GFLOP/s" &&
	has "$T/stdout" "DRAM triad 1 thread" &&
	has "$T/stdout" "ridge points under the compute roof: L1 0.25 FLOP/B, L2 0.5 FLOP/B, L3 1 FLOP/B, DRAM 4 FLOP/B" &&
	py "
d = load('$T/m.json')
assert d['points'] == []
c = {x['name']: x for x in d['ceilings']}
assert c['fp64 avx2_fma 1 thread']['flops_per_second'] == 64e9
assert c['L3 triad 1 thread']['bytes_per_second'] == 64e9
assert c['L3 triad 1 thread']['bytes'] == 16 << 20
"
}
t "--machine --ceilings FILE: the ceilings listed, their ridge points, --json" machine_given

# The fixtures run for real: their work is declared by hand in the
# result (what run --work stores) and placed under ceilings made so large
# that only the intensity decides: the triad and the daxpys (2 FLOPs per
# 24 bytes) are far left of every ridge, the FMA loop far right.
fixtures() {
	expect_exit 0 "$YS" run --runs 3 --warmup 0 --no-store \
		--json "$T/fx.json" -n triad -n fma -n daxpy \
		"$ROOFKERN triad 1048576 10" "$ROOFKERN fma 10000000" \
		"$ROOFKERN daxpy 1024 100000" &&
	python3 - "$T" <<'PY'
import json, sys
T = sys.argv[1]
d = json.load(open(T + "/fx.json"))
work = {"triad": (2 * 1048576 * 10, 24 * 1048576 * 10),
        "fma": (96 * 10000000, 384),
        "daxpy": (2 * 1024 * 100000, 24 * 1024 * 100000)}
for b in d["benchmarks"]:
    f, by = work[b["name"]]
    n = len(b["metrics"]["wall_time"]["values"])
    b["metrics"]["work_flops"] = {"unit": "flop", "values": [f] * n}
    b["metrics"]["work_bytes"] = {"unit": "bytes", "values": [by] * n}
json.dump(d, open(T + "/fxw.json", "w"))
c = json.load(open(T + "/ceil.json"))
for b in c["benchmarks"]:
    for m in b["metrics"].values():
        m["values"] = [v * 1000 for v in m["values"]]
json.dump(c, open(T + "/big.json", "w"))
PY
	expect_exit 0 "$YS" roofline --ceilings "$T/big.json" "$T/fxw.json" \
		--json "$T/fx-r.json" &&
	py "
p = {x['name']: x for x in load('$T/fx-r.json')['points']}
assert p['triad']['ceiling'] == 'DRAM triad 1 thread', p['triad']
assert p['daxpy']['ceiling'] == 'DRAM triad 1 thread', p['daxpy']
assert p['fma']['bound'] == 'compute', p['fma']
assert abs(p['triad']['arithmetic_intensity'] - 1 / 12) < 1e-12
assert p['fma']['arithmetic_intensity'] == 96 * 10000000 / 384
"
}
t "the fixtures run: their designed intensities place the triad and daxpy on a memory line, the FMA loop under the compute roof" fixtures

finish
