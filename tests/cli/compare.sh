# yardstick compare: verdicts on result sets with known shifts, every
# reference kind, the outputs, and bad input.
. "$(dirname "$0")/lib.sh"

mkresult "$T/base.json" sort 1 0
mkresult "$T/slow.json" sort 1.2 0
mkresult "$T/same.json" sort 1.005 0
mkresult "$T/b1000.json" sort 1 0 1000
mkresult "$T/c1000.json" sort 1.03 0 1000
mkresult "$T/other.json" other 1 0

# A count of 1 takes the singular (before: "(1 comparisons, ...").
mkload "$T/e0.json" 0 1000
mkload "$T/e5.json" 50 1000
t "one comparison: '(1 comparison, 2 tests: '" sh -c '
	"$YS" compare -m errors "$T/e0.json" "$T/e5.json" >"$T/one.txt" &&
	grep -q "^(1 comparison, 2 tests: a change counts" "$T/one.txt" || { cat "$T/one.txt"; exit 1; }'

t "a 20% slower candidate: verdict slower, +20%" sh -c '
	"$YS" compare --json "$T/c.json" "$T/base.json" "$T/slow.json" > "$T/c.txt" &&
	python3 -c "
import json; d = json.load(open(\"$T/c.json\"))
c = [r for r in d[\"comparisons\"] if r[\"metric\"] == \"wall_time\"][0]
assert c[\"verdict\"] == \"slower\", c
assert abs(c[\"change\"] - 0.2) < 1e-9, c
assert c[\"change_ci\"][0] > 0.02 and c[\"p_value\"] < 0.01
assert abs(c[\"baseline\"][\"median\"] - 0.011) < 1e-12 and abs(c[\"candidate\"][\"median\"] - 0.0132) < 1e-12
r = [r for r in d[\"comparisons\"] if r[\"metric\"] == \"peak_rss\"][0]
assert r[\"verdict\"] == \"unchanged\", r" && grep -q "slower" "$T/c.txt"'
t "a 0.5% change is below the noise threshold: unchanged" sh -c '
	"$YS" compare -q --json - "$T/base.json" "$T/same.json" | python3 -c "
import json, sys; c = json.load(sys.stdin)[\"comparisons\"][0]
assert c[\"verdict\"] == \"unchanged\", c"'
t "3% slower over 1000 runs: beyond the 2% noise threshold, tail quantiles slower after Holm" sh -c '
	"$YS" compare -q --json - "$T/b1000.json" "$T/c1000.json" | python3 -c "
import json, sys; d = json.load(sys.stdin); c = d[\"comparisons\"][0]
# 8: peak_rss, 1 MiB in every run of both, is no test of the family
assert d[\"correction\"] == \"holm\" and d[\"tests\"] == 8, d
assert c[\"change_ci\"][0] > 0.02 and c[\"p_value\"] < 0.01, c
assert all(p[\"verdict\"] == \"slower\" for p in c[\"percentiles\"]), c
# the median: p = 0.008 alone, not after Holm over 8 tests
assert c[\"verdict\"] == \"unchanged\" and c[\"p_adjusted\"] >= 0.01, c"'
t "--correction none: p is not adjusted" sh -c '
	"$YS" compare -q --correction none --json - "$T/b1000.json" "$T/c1000.json" | python3 -c "
import json, sys; d = json.load(sys.stdin); c = d[\"comparisons\"][0]
assert d[\"correction\"] == \"none\" and c[\"p_adjusted\"] == c[\"p_value\"], c"'
t "--noise 5: the same 3% is noise" sh -c '
	"$YS" compare -q --noise 5 --json - "$T/b1000.json" "$T/c1000.json" | python3 -c "
import json, sys; c = json.load(sys.stdin)[\"comparisons\"][0]
assert c[\"verdict\"] == \"unchanged\" and 0 < c[\"change_ci\"][0] and c[\"change_ci\"][1] < 0.05, c"'
t "benchmarks on one side only are listed" sh -c '
	"$YS" compare -q --json - "$T/base.json" "$T/other.json" | python3 -c "
import json, sys; d = json.load(sys.stdin)
assert d[\"only_in_baseline\"] == [\"sort\"] and d[\"only_in_candidate\"] == [\"other\"], d"'
t "--markdown: a table" sh -c '
	"$YS" compare -q --markdown "$T/c.md" "$T/base.json" "$T/slow.json" && grep -q "| sort | wall\\\\_time |" "$T/c.md" && grep -q "\*\*slower\*\*" "$T/c.md"'
t "store references: latest, id, @commit, branch:" sh -c '
	cd "$T" && git init -q -b main repo && cd repo && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m one &&
	"$YS" run -q --runs 5 -n s -- "$YSFIX" sleep 1 2>/dev/null &&
	git -c user.name=t -c user.email=t@t commit -q --allow-empty -m two && c2=$(git rev-parse HEAD) &&
	"$YS" run -q --runs 5 -n s -- "$YSFIX" sleep 40 2>/dev/null &&
	"$YS" compare -q --json "$T/refs.json" 1 latest &&
	python3 -c "
import json; c = json.load(open(\"$T/refs.json\"))[\"comparisons\"][0]
assert c[\"benchmark\"] == \"s\" and c[\"candidate\"][\"median\"] > c[\"baseline\"][\"median\"] + 0.02, c" &&
	"$YS" compare -q --json - "@$(echo $c2 | cut -c1-8)" branch:main | python3 -c "
import json, sys; c = json.load(sys.stdin)[\"comparisons\"][0]
assert c[\"baseline\"][\"median\"] == c[\"candidate\"][\"median\"], c"'
t "hyperfine and Google Benchmark files are result sets too" sh -c '
	hyperfine -N --runs 10 --export-json "$T/hf.json" "$YSFIX sleep 2" >/dev/null || exit 1
	"$YS" compare -q --json - "$T/hf.json" "$T/hf.json" | python3 -c "
import json, sys; c = json.load(sys.stdin)[\"comparisons\"]
assert c and c[0][\"verdict\"] == \"unchanged\", c"'
t "a missing file: exit 2 naming it" expect_exit 2 "$YS" compare "$T/nope.json" "$T/base.json"
t "... naming it" has "$T/stderr" "nope.json"
t "malformed JSON: exit 2 with the line and column" sh -c '
	printf "{\"schema\": \"yardstick/result/v1\",\n  \"benchmarks\": [1, }\n" > "$T/bad.json";
	"$YS" compare "$T/bad.json" "$T/base.json" 2>"$T/bad.err"; [ $? -eq 2 ] && grep -q "bad.json.*line 2" "$T/bad.err"'
t "an unknown store reference: exit 2" sh -c '
	"$YS" run -q --runs 2 -- "$YSFIX" exit 0 2>/dev/null; "$YS" compare 999 latest 2>"$T/ref.err"; [ $? -eq 2 ] && grep -q "999" "$T/ref.err"'
t "one result set only: exit 2" expect_exit 2 "$YS" compare "$T/base.json"
# powerless FILE RUNS SCALE: 9 benchmarks b1..b9 of RUNS runs each; b1's
# values times SCALE
powerless() {
	python3 - "$@" <<'PY'
import json, sys
path, n, scale = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
def vals(k):
    return [(0.010 + 0.0001 * i) * (scale if k == 1 else 1) for i in range(n)]
json.dump({"schema": "yardstick/result/v1", "kind": "run",
           "benchmarks": [{"name": "b%d" % k, "command": ["b%d" % k],
                           "metrics": {"wall_time": {"unit": "s", "values": vals(k)}}}
                          for k in range(1, 10)]}, open(path, "w"))
PY
}
powerless "$T/p5a.json" 5 1
powerless "$T/p5b.json" 5 400
powerless "$T/p8a.json" 8 1
powerless "$T/p8b.json" 8 400
# 9 rows, 72 tests: under Holm the first rejection needs p < 0.01 / 72,
# and 5 runs a side give at least 1/252: b1, 400 times slower, was
# "unchanged", as every row. Now every row is inconclusive and says that
# 8 runs a side could decide (1/12870 x 72 = 0.0056); its estimate,
# interval and p stay. At 8 runs b1 is slower, the others unchanged.
t "5 runs a side over 72 tests: inconclusive, not unchanged (a 400x slowdown among them); 8 runs: slower" sh -c '
	"$YS" compare --json "$T/p5.json" "$T/p5a.json" "$T/p5b.json" >"$T/p5.txt" &&
	grep -q "^inconclusive: 5 and 5 runs cannot show a change at alpha 0.01 over 72 tests (Holm.s correction): 8 runs a side could$" "$T/p5.txt" &&
	"$YS" compare -q --json "$T/p8.json" "$T/p8a.json" "$T/p8b.json" &&
	python3 -c "
import json
d = json.load(open(\"$T/p5.json\"))
assert d[\"tests\"] == 72, d[\"tests\"]
c = {r[\"benchmark\"]: r for r in d[\"comparisons\"]}
b1 = c[\"b1\"]
assert all(r[\"verdict\"] == \"inconclusive\" for r in c.values()), [r[\"verdict\"] for r in c.values()]
assert \"over 72 tests\" in b1[\"why\"] and \"8 runs a side could\" in b1[\"why\"], b1
assert abs(b1[\"p_value\"] - 1 / 252) < 1e-12 and b1[\"p_adjusted\"] is None, b1
assert abs(b1[\"change\"] - 399) < 1e-6 and b1[\"change_ci\"][0] > 100, b1
assert all(p[\"verdict\"] == \"inconclusive\" and \"why\" in p for p in b1[\"percentiles\"]), b1
d = json.load(open(\"$T/p8.json\"))
c = {r[\"benchmark\"]: r for r in d[\"comparisons\"]}
assert c[\"b1\"][\"verdict\"] == \"slower\" and \"why\" not in c[\"b1\"], c[\"b1\"]
assert all(c[\"b%d\" % k][\"verdict\"] == \"unchanged\" for k in range(2, 10)), c
"'
# mkm FILE METRIC V1,V2,... [NAME...]: benchmarks NAME (default x) with a
# metric's values
mkm() {
	python3 - "$@" <<'PY'
import json, sys
path, metric, vals = sys.argv[1], sys.argv[2], [float(v) for v in sys.argv[3].split(",")]
names = sys.argv[4:] or ["x"]
json.dump({"schema": "yardstick/result/v1", "kind": "run",
           "benchmarks": [{"name": n, "command": [n], "metrics": {metric: {"unit": "s", "values": vals}}} for n in names]},
          open(path, "w"))
PY
}
zeros=$(python3 -c 'print(",".join(["0"] * 30))')
sixes=$(python3 -c 'print(",".join(str(0.006 + 0.0001 * i) for i in range(30)))')
mkm "$T/z0.json" system_time "$zeros"
mkm "$T/z6.json" system_time "$sixes"
mkm "$T/some.json" involuntary_switches 0,0,0,0,1,1,1,1,1,2
mkm "$T/dup.json" wall_time 1,2,3 a a
mkm "$T/ten.json" wall_time "$(python3 -c 'import random; r = random.Random(1); print(",".join(str(0.010 + 0.0005 * r.random()) for _ in range(30)))')"
mkm "$T/thirty.json" wall_time "$(python3 -c 'import random; r = random.Random(2); print(",".join(str(0.030 + 0.0005 * r.random()) for _ in range(30)))')"
t "a median of 0 that becomes 6 ms: slower, not unchanged" sh -c '
	"$YS" compare -q --json - "$T/z0.json" "$T/z6.json" | python3 -c "
import json, sys; c = json.load(sys.stdin)[\"comparisons\"][0]
assert c[\"verdict\"] == \"slower\" and c[\"p_value\"] < 0.001, c"'
t "0 -> 0 and a bound from a median of 0: no nan printed" sh -c '
	"$YS" compare "$T/z0.json" "$T/z0.json" > "$T/zz.txt" && "$YS" compare "$T/some.json" "$T/some.json" >> "$T/zz.txt" &&
	"$YS" compare "$T/z0.json" "$T/z6.json" >> "$T/zz.txt" && "$YS" compare --markdown - "$T/z0.json" "$T/z6.json" >> "$T/zz.txt" &&
	! grep -qi "nan" "$T/zz.txt" && grep -q "from 0" "$T/zz.txt"'
t "p90, p95, p99: verdicts and intervals, the same as gate gives" sh -c '
	"$YS" compare -q --json "$T/pc.json" "$T/ten.json" "$T/thirty.json" &&
	"$YS" gate --baseline "$T/ten.json" --max-increase wall_time.p99=2% "$T/thirty.json" > "$T/pg.txt"; [ $? -eq 1 ] &&
	python3 -c "
import json; c = json.load(open(\"$T/pc.json\"))[\"comparisons\"][0]
p = {x[\"stat\"]: x for x in c[\"percentiles\"]}
assert sorted(p) == [\"p90\", \"p95\", \"p99\"], p
for s in p.values():
    assert s[\"verdict\"] == \"slower\" and s[\"change_ci\"][0] > 1.5 and s[\"p_value\"] < 0.01, s
lo, hi = p[\"p99\"][\"change_ci\"]
assert \"[%+.1f%%, %+.1f%%]\" % (100 * lo, 100 * hi) in open(\"$T/pg.txt\").read(), (lo, hi)"'
t "a result holding one benchmark twice: exit 2 naming the file and the benchmark" sh -c '
	"$YS" compare "$T/dup.json" "$T/base.json" 2>"$T/dup.err"; [ $? -eq 2 ] && grep -q "baseline .*dup.json.*benchmark .a. twice" "$T/dup.err" &&
	"$YS" compare "$T/base.json" "$T/dup.json" 2>"$T/dup.err"; [ $? -eq 2 ] && grep -q "candidate .*dup.json" "$T/dup.err"'
t "benchmarks on one side only: the terminal says which side lacks them" sh -c '
	"$YS" compare "$T/base.json" "$T/other.json" > "$T/side.txt" &&
	grep -q "missing from the candidate (only in the baseline): sort" "$T/side.txt" &&
	grep -q "missing from the baseline (only in the candidate): other" "$T/side.txt"'
t "help" sh -c '"$YS" help compare | grep -q "noise threshold"'

# A result file whose names, units, metric and parameter names hold ESC,
# BEL, CR, a C1 CSI, a right-to-left override and <img onerror>.
HOSTILE=$(cd "$(dirname "$0")/../data" && pwd)/hostile.json
hostile_compare() {
	"$YS" compare --markdown "$T/h.md" "$HOSTILE" "$HOSTILE" > "$T/h.out" 2>&1 || return 1
	no_controls "$T/h.out" "$T/h.md" || return 1
	! grep -q "<img" "$T/h.md" && grep -q "&lt;img" "$T/h.md" &&
	grep -qF 'bench x\x1b[31m\x07\x0d<img' "$T/h.out" && grep -qF '\u202e' "$T/h.out"
}
t "outside text escaped in the terminal table and --markdown" hostile_compare
# One verdict (issue 24): the same two files through compare, gate and
# report give the same estimate, interval and p. 7 runs a side: every
# labelling is counted (3,432), so p is exact and no budget can move it;
# the gate's threshold is compare's noise level, so both ask one question.
one_verdict() {
	python3 - "$T/ov_a.json" "$T/ov_b.json" <<'PY'
import json, math, random, sys
random.seed(24)
for path, scale in ((sys.argv[1], 1.0), (sys.argv[2], 1.255)):
    vals = [0.010 * math.exp(0.15 * random.gauss(0, 1)) * scale for _ in range(7)]
    json.dump({"schema": "yardstick/result/v1", "kind": "run",
               "benchmarks": [{"name": "sort", "command": ["sort"],
                               "metrics": {"wall_time": {"unit": "s", "values": vals}}}]},
              open(path, "w"))
PY
	"$YS" compare -q --correction none --json "$T/ov_c.json" "$T/ov_a.json" "$T/ov_b.json" &&
	{ "$YS" gate --baseline "$T/ov_a.json" --max-increase wall_time=2% \
		--markdown "$T/ov_g.md" "$T/ov_b.json" > "$T/ov_g.txt"; [ $? -le 1 ]; } &&
	"$YS" report --baseline "$T/ov_a.json" --max-increase wall_time=2% --correction none \
		"$T/ov_b.json" -o "$T/ov.html" &&
	python3 - "$T" <<'PY'
import json, re, sys
t = sys.argv[1]
c = json.load(open(t + "/ov_c.json"))["comparisons"][0]
html = open(t + "/ov.html").read()
row = re.search(r'<tr class="frow[^>]*>', html).group(0)
chk = re.search(r'<span class="check[^>]*>', html).group(0)
def attr(tag, name):
    return float(re.search(' ' + name + r'="([^"]*)"', tag).group(1))
# the report's compare row and gate cell, to the last digit
assert abs(attr(row, "data-ratio") - (1 + c["change"])) < 1e-12, (row, c)
assert abs(attr(row, "data-lo") - (1 + c["change_ci"][0])) < 1e-12, (row, c)
assert abs(attr(row, "data-hi") - (1 + c["change_ci"][1])) < 1e-12, (row, c)
assert attr(row, "data-p") == c["p_value"] == attr(chk, "data-p"), (row, chk, c)
assert attr(chk, "data-change") == c["change"], (chk, c)
assert attr(chk, "data-lo") == c["change_ci"][0] and attr(chk, "data-hi") == c["change_ci"][1], (chk, c)
# the gate's terminal report, as printed (one decimal, three digits of p)
pct = lambda v: "%+.1f%%" % (100 * v)
line = "change %s [%s, %s], p = %.3f" % (pct(c["change"]), pct(c["change_ci"][0]),
                                         pct(c["change_ci"][1]), c["p_value"])
out = open(t + "/ov_g.txt").read()
assert line in out, (line, out)
# one verdict: slower in compare is FAIL in the gate
assert (c["verdict"] == "slower") == ("FAIL" in out), (c, out)
assert c["method"] if "method" in c else True
PY
}
t "one verdict: compare, gate and report give the same estimate, interval and p" one_verdict
# ... and bench --baseline: the same values as bench results (time_per_op),
# the candidate written by a stand-in program; bench's comparison and
# compare's print the same line (estimate, interval, p, verdict)
one_verdict_bench() {
	python3 - "$T" <<'PY' || return 1
import json, sys
t = sys.argv[1]
for src, dst in (("ov_a", "ov_ab"), ("ov_b", "ov_bb")):
    d = json.load(open(t + "/" + src + ".json"))
    d["kind"] = "bench"
    m = d["benchmarks"][0]["metrics"]
    m["time_per_op"] = m.pop("wall_time")
    json.dump(d, open(t + "/" + dst + ".json", "w"))
PY
	printf '#!/bin/sh\ncat "%s" > "$YARDSTICK_BENCH_JSON"\n' "$T/ov_bb.json" >"$T/ovprog" &&
	chmod +x "$T/ovprog" &&
	"$YS" compare "$T/ov_ab.json" "$T/ov_bb.json" >"$T/ovb_c.txt" &&
	"$YS" bench --processes 1 --no-store --baseline "$T/ov_ab.json" -- "$T/ovprog" \
		>"$T/ovb_b.txt" 2>&1 &&
	line=$(grep "time_per_op *median" "$T/ovb_c.txt") && [ -n "$line" ] &&
	grep -qF "$line" "$T/ovb_b.txt" || { cat "$T/ovb_c.txt" "$T/ovb_b.txt"; return 1; }
}
t "... and bench --baseline prints compare's line, to the digit" one_verdict_bench
# errors of a load run: a count out of its requests, compared as a
# proportion by the exact conditional test of the odds ratio (0 of 600
# against 60 of 600 was "inconclusive", one value a side). Reference:
# SciPy 1.10.1, odds_ratio([[60, 540], [0, 600]], kind="conditional")
# .confidence_interval(0.95).low = 17.382775562041282; the p of "the odds
# ratio is at most 1.02", exact in rational arithmetic: 3.3165103201546e-19.
mkload "$T/e0.json" 0 600
mkload "$T/e60.json" 60 600
mkload "$T/e0old.json" 0 600 old
mkload "$T/e60old.json" 60 600 old
mkload "$T/e30.json" 30 600
mkload "$T/e30b.json" 30 600
t "errors 0 of 600 against 60 of 600: worse, odds +inf [+1638.3%, +inf], p exact" sh -c '
	"$YS" compare --json "$T/e.json" "$T/e0.json" "$T/e60.json" > "$T/e.txt" &&
	python3 -c "
import json; d = json.load(open(\"$T/e.json\")); c = d[\"comparisons\"][0]
assert c[\"metric\"] == \"errors\" and c[\"verdict\"] == \"worse\", c
assert c[\"statistic\"] == \"odds\" and c[\"ci_method\"] == \"exact conditional\", c
assert c[\"change\"] is None and c[\"change_ci\"][1] is None, c  # +inf: JSON null
assert abs(c[\"change_ci\"][0] - 16.382775562041282) < 1e-5, c
assert abs(c[\"p_value\"] / 3.3165103201546467e-19 - 1) < 1e-9, c
assert c[\"baseline\"][\"events\"] == 0 and c[\"baseline\"][\"trials\"] == 600, c
assert c[\"candidate\"][\"events\"] == 60 and abs(c[\"candidate\"][\"median\"] - 0.1) < 1e-15, c
assert c[\"percentiles\"] == [] and d[\"tests\"] == 2, d" &&
	grep -E "errors +odds +0 of 600 → 60 of 600 +\+∞ \[\+1638\.3%, \+∞\] +p < 0\.001 +worse" "$T/e.txt" >/dev/null'
# Only proportion rows: the footers name no Harrell-Davis estimate (there
# is none) and say how the odds rows are judged, in the terminal and in
# markdown.
t "errors only: no Harrell-Davis in the footers; the odds explained" sh -c '
	"$YS" compare --markdown "$T/e.md" "$T/e0.json" "$T/e60.json" > "$T/eo.txt" &&
	! grep -q Harrell "$T/eo.txt" "$T/e.md" &&
	grep -q "^(odds: events of trials, such as failed requests; the change is the odds ratio" "$T/eo.txt" &&
	grep -q "^A change counts when the one-sided test against ±2% gives p < 0.01 after Holm.s correction (2 tests). Odds rows are events of trials" "$T/e.md"'
t "errors 30 of 600 against 30 of 600: unchanged, odds +0.0% [-42.6%, +74.2%]" sh -c '
	"$YS" compare "$T/e30.json" "$T/e30b.json" | grep -E "30 of 600 → 30 of 600 +\+0\.0% \[-42\.6%, \+74\.2%\] +p = 0\.582 +unchanged" >/dev/null'
t "errors 60 of 600 against 30 of 600: better, odds -52.6% [-71.0%, -24.0%]" sh -c '
	"$YS" compare -q --json - "$T/e60.json" "$T/e30.json" | python3 -c "
import json, sys; c = json.load(sys.stdin)[\"comparisons\"][0]
# SciPy: statistic 0.47397135554887843, interval [0.29036076337918137, 0.75965095088150514]
assert c[\"verdict\"] == \"better\", c
assert abs(c[\"change\"] - (0.47397135554887843 - 1)) < 1e-6, c
assert abs(c[\"change_ci\"][0] - (0.29036076337918137 - 1)) < 1e-6, c
assert abs(c[\"change_ci\"][1] - (0.75965095088150514 - 1)) < 1e-6, c
# P(X <= 30 | odds ratio 0.98), exact
assert abs(c[\"p_value\"] / 0.00093378587515816774 - 1) < 1e-9, c"'
# The store keeps metrics, not load's counts: the requests come back as
# the metric load writes beside errors, and the store's comparison is the
# files' (it was inconclusive); a result saved without that metric (as
# load wrote before) is inconclusive, saying so.
t "errors from the store: judged as from the files; a result without its requests: inconclusive, saying so" sh -c '
	"$YS" store copy "$T/e0.json" "$T/e.db" >/dev/null && "$YS" store copy "$T/e60.json" "$T/e.db" >/dev/null &&
	"$YS" compare "$T/e0.json" "$T/e60.json" | grep "of 600 →" > "$T/e.files" &&
	"$YS" compare --store "$T/e.db" 1 2 | grep "of 600 →" > "$T/e.stored" &&
	grep -q "0 of 600 → 60 of 600 .*worse" "$T/e.stored" && cmp "$T/e.files" "$T/e.stored" &&
	"$YS" store copy "$T/e0old.json" "$T/e.db" >/dev/null && "$YS" store copy "$T/e60old.json" "$T/e.db" >/dev/null &&
	"$YS" compare --store "$T/e.db" 3 4 | grep -q "^inconclusive: a count of events out of trials that a side does not hold (a result saved before load kept its requests as a metric)"'
# A file past the 256 MiB bound is refused before it is read (it was read
# up to the bound first: 300 MiB of zeros took 311 MB of memory)
too_large() {
	truncate -s 300M "$T/huge.json" &&
	python3 - "$YS" "$T/huge.json" <<'PY'
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], "compare", sys.argv[2], sys.argv[2]],
                   capture_output=True, text=True)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
assert r.returncode == 2, r
assert "larger than 256 MiB" in r.stderr, r.stderr
assert rss < 128 * 1024, rss  # KiB
PY
}
t "a 300 MiB file: refused before it is read (exit 2, memory under 128 MiB)" too_large

# a --metric no benchmark has (a typo) compared nothing and exited 0
t "--metric wall_tme: exit 2" expect_exit 2 "$YS" compare -m wall_tme "$T/base.json" "$T/slow.json"
t "... naming it and what it most likely meant" has "$T/stderr" \
	"yardstick compare: --metric 'wall_tme': no benchmark of either result has it; did you mean 'wall_time'?"
t "... nothing near: no guess" sh -c '
	"$YS" compare -m frobnicate "$T/base.json" "$T/slow.json" 2>"$T/e"; [ $? -eq 2 ] &&
	grep -qx "yardstick compare: --metric '"'"'frobnicate'"'"': no benchmark of either result has it" "$T/e"'
# ... but a metric the vocabulary knows is no typo: bench's comparison
# names alloc_bytes_per_op whether or not the program counted allocations
t "--metric alloc_bytes_per_op, which neither has but the vocabulary knows: exit 0, nothing compared" sh -c '
	"$YS" compare -m alloc_bytes_per_op "$T/base.json" "$T/slow.json" >"$T/o" 2>"$T/e" &&
	! grep -q "did you mean" "$T/e" && grep -q "^(0 comparisons" "$T/o"'
t "--metric peak_rss, which both have: compared, exit 0" sh -c '
	"$YS" compare -m peak_rss "$T/base.json" "$T/slow.json" >"$T/o" && grep -q "peak_rss" "$T/o"'
# the footer explains '~' only when a row carries it: 200 runs a side
# have no approximate interval (it said '~: an approximate interval'
# under every table), 8 runs a side's tail quantiles do
t "no '~' in the rows: none in the footer" sh -c '
	"$YS" compare "$T/base.json" "$T/slow.json" >"$T/o" &&
	! grep -q "~[+-]" "$T/o" && grep -q "estimates Harrell-Davis)" "$T/o" && ! grep -q "approximate" "$T/o"'
mkresult "$T/base8.json" sort 1 0 8
mkresult "$T/slow8.json" sort 1.2 0 8
t "... '~' in a row: explained in the footer" sh -c '
	"$YS" compare "$T/base8.json" "$T/slow8.json" >"$T/o" &&
	grep -q "~+20.0%" "$T/o" && grep -q "; ~: an approximate interval)" "$T/o"'
finish
