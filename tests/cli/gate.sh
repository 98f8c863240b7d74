# yardstick gate: exit codes on result sets with known shifts, the config
# file, the reports, and bad input.
. "$(dirname "$0")/lib.sh"

mkresult "$T/base.json" sort 1 0 1000
mkresult "$T/slow20.json" sort 1.2 0 1000
mkresult "$T/p99_14.json" sort 1 0.014 1000
mkresult "$T/p99_16.json" sort 1 0.016 1000

t "a 20% shift fails a 10% threshold: exit 1" expect_exit 1 "$YS" gate --baseline "$T/base.json" --max-increase wall_time=10% "$T/slow20.json"
t "... the report says FAIL with the change" sh -c 'grep -q "^FAIL" "$T/stdout" && grep -q "+20.0%" "$T/stdout" && grep -q "1 of 1 checks failed" "$T/stdout"'
t "the same candidate passes a 25% threshold" expect_exit 0 "$YS" gate --baseline "$T/base.json" --max-increase wall_time=25% "$T/slow20.json"
t "p99 +14 ms passes a 15 ms threshold" expect_exit 0 "$YS" gate --baseline "$T/base.json" --max-increase wall_time.p99=15ms "$T/p99_14.json"
t "p99 +16 ms fails it" expect_exit 1 "$YS" gate --baseline "$T/base.json" --max-increase wall_time.p99=15ms "$T/p99_16.json"
t "identical result sets pass" expect_exit 0 "$YS" gate --baseline "$T/base.json" --max-increase wall_time=0% --max-increase peak_rss=0% "$T/base.json"
t "--limit: a ceiling on the candidate alone" sh -c '
	"$YS" gate --limit wall_time.p99=13ms "$T/base.json" >/dev/null && ! "$YS" gate --limit wall_time.p99=11ms "$T/base.json" >/dev/null'
t "yardstick.ini [gate] sections, with a pattern" sh -c '
	mkdir -p "$T/cfg" && cd "$T/cfg" && printf "[gate]\nalpha = 0.01\nmax-increase = wall_time=50%%\n[gate \"so*\"]\nmax-increase = wall_time=10%%\n[gate \"nomatch*\"]\nmax-increase = wall_time=1%%\n" > yardstick.ini &&
	"$YS" gate --baseline "$T/base.json" "$T/slow20.json" > "$T/ini.txt"; [ $? -eq 1 ] &&
	[ "$(grep -c "^FAIL" "$T/ini.txt")" -eq 1 ] && [ "$(grep -c "^pass" "$T/ini.txt")" -eq 1 ]'
t "--markdown and --junit reports" sh -c '
	"$YS" gate -q --baseline "$T/base.json" --max-increase wall_time=10% --max-increase peak_rss=10% --markdown "$T/g.md" --junit "$T/g.xml" "$T/slow20.json"; [ $? -eq 1 ] &&
	grep -q "regression found" "$T/g.md" && grep -q "❌" "$T/g.md" &&
	python3 -c "
import xml.etree.ElementTree as ET; r = ET.parse(\"$T/g.xml\").getroot()
s = r.find(\"testsuite\"); cases = s.findall(\"testcase\")
assert len(cases) == 2 and s.get(\"failures\") == \"1\", ET.tostring(r)
assert cases[0].find(\"failure\") is not None and cases[1].find(\"failure\") is None"'
t "gate against the store: --baseline branch:main, NEW defaults to latest" sh -c '
	cd "$T" && git init -q -b main g && cd g && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m one &&
	"$YS" run -q --runs 20 -n s -- "$YSFIX" sleep 2 2>/dev/null &&
	git checkout -q -b feature && "$YS" run -q --runs 20 -n s -- "$YSFIX" sleep 12 2>/dev/null &&
	"$YS" gate --baseline branch:main --max-increase wall_time=3ms > "$T/st.txt"; [ $? -eq 1 ] && grep -q "^FAIL" "$T/st.txt"'
t "a malformed threshold: exit 2" expect_exit 2 "$YS" gate --baseline "$T/base.json" --max-increase wall_time=3parsecs "$T/base.json"
t "... quoting it" has "$T/stderr" "'3parsecs'"
t "a time threshold on a byte metric: exit 2" expect_exit 2 "$YS" gate --baseline "$T/base.json" --max-increase peak_rss=5ms "$T/base.json"
t "a threshold on a metric nobody has (a typo): exit 2" expect_exit 2 "$YS" gate --baseline "$T/base.json" --max-increase wall_tme=1% "$T/base.json"
t "... naming it" has "$T/stderr" "no metric 'wall_tme'"
t "no threshold: exit 2" expect_exit 2 "$YS" gate --baseline "$T/base.json" "$T/base.json"
t "--max-increase without --baseline: exit 2" expect_exit 2 "$YS" gate --max-increase wall_time=1% "$T/base.json"
t "a baseline that does not exist: exit 2" expect_exit 2 "$YS" gate --baseline "$T/none.json" --max-increase wall_time=1% "$T/base.json"
t "a bad key in yardstick.ini: exit 2 naming it" sh -c '
	printf "[gate]\nmax-increse = wall_time=1%%\n" > "$T/bad.ini" &&
	"$YS" gate --config "$T/bad.ini" --baseline "$T/base.json" "$T/base.json" 2>"$T/ini.err"; [ $? -eq 2 ] && grep -q "max-increse" "$T/ini.err"'
t "--bmf writes the candidate in Bencher Metric Format" sh -c '
	"$YS" gate --limit wall_time=1s --bmf - "$T/slow20.json" 2>/dev/null | python3 -c "
import json, sys; d = json.load(sys.stdin)
l = d[\"sort\"][\"latency\"]
assert abs(l[\"value\"] - 13.2e6) < 1, l
assert l[\"lower_value\"] <= l[\"value\"] <= l[\"upper_value\"]"'
t "run --bmf too" sh -c '
	"$YS" run -q --runs 3 -n x --bmf "$T/run.bmf" -- "$YSFIX" sleep 1 2>/dev/null && python3 -c "
import json; d = json.load(open(\"$T/run.bmf\")); assert d[\"x\"][\"latency\"][\"value\"] > 1e6, d"'
t "yardstick.ini: an empty pattern and alpha in a pattern section: exit 2" sh -c '
	printf "[gate \"\"]\nmax-increase = wall_time=1%%\n" > "$T/e.ini" &&
	"$YS" gate --config "$T/e.ini" --baseline "$T/base.json" "$T/base.json" 2>"$T/e.err"; [ $? -eq 2 ] && grep -q "empty pattern" "$T/e.err" &&
	printf "[gate \"s*\"]\nalpha = 0.05\n" > "$T/a.ini" &&
	"$YS" gate --config "$T/a.ini" --baseline "$T/base.json" "$T/base.json" 2>"$T/a.err"; [ $? -eq 2 ] && grep -q "alpha belongs in" "$T/a.err"'
# throughput: more is better; 200 per-second rates around 1000 req/s, and
# the same 30% lower or 2% lower
mkthroughput() {
	python3 - "$@" <<'PY'
import json, sys
path, scale = sys.argv[1], float(sys.argv[2])
vals = [(1000 + 20 * ((i * 7) % 11)) * scale for i in range(200)]
json.dump({"schema": "yardstick/result/v1", "kind": "load",
           "benchmarks": [{"name": "api", "command": ["api"],
                           "metrics": {"throughput": {"unit": "count", "values": vals}}}]},
          open(path, "w"))
PY
}
mkthroughput "$T/tp.json" 1
mkthroughput "$T/tp70.json" 0.7
mkthroughput "$T/tp98.json" 0.98
t "--max-decrease: throughput 30% lower fails a 5% threshold" sh -c '
	"$YS" gate --baseline "$T/tp.json" --max-decrease throughput=5% "$T/tp70.json" >"$T/dec.out"; [ $? -eq 1 ] &&
	grep -q "FAIL.*max decrease throughput=5%" "$T/dec.out" && grep -q "decrease beyond the threshold, and significant" "$T/dec.out"'
t "--max-decrease: 2% lower passes a 5% threshold; a rise never fails it" sh -c '
	"$YS" gate --baseline "$T/tp.json" --max-decrease throughput=5% "$T/tp98.json" >/dev/null &&
	"$YS" gate --baseline "$T/tp70.json" --max-decrease throughput=5% "$T/tp.json" >/dev/null'
t "--max-decrease in yardstick.ini" sh -c '
	printf "[gate]\nmax-decrease = throughput=5%%\n" > "$T/dec.ini" &&
	"$YS" gate --config "$T/dec.ini" --baseline "$T/tp.json" "$T/tp70.json" >/dev/null; [ $? -eq 1 ]'
t "help" sh -c '"$YS" gate --help | grep -q "max-increase" && "$YS" gate --help | grep -q "max-decrease"'

# A result file whose names and units hold ESC, BEL, CR, a C1 CSI, a
# right-to-left override and <img onerror>: the unit was written raw into
# JUnit XML (not well-formed) and Markdown.
HOSTILE=$(cd "$(dirname "$0")/../data" && pwd)/hostile.json
hostile_gate() {
	"$YS" gate --baseline "$HOSTILE" --max-increase wall_time=10% \
		--junit "$T/h.xml" --markdown "$T/h.md" "$HOSTILE" > "$T/h.out" 2>&1 || return 1
	no_controls "$T/h.out" "$T/h.md" "$T/h.xml" || return 1
	python3 -c "
import sys, xml.etree.ElementTree as E
tc = E.parse(sys.argv[1]).getroot().find(\"testsuite/testcase\")
assert tc.get(\"classname\").startswith(\"bench x?[31m?\\r<img src=x\"), tc.get(\"classname\")
assert \"1.000 sx?[31m?\\r<img\" in tc.find(\"system-out\").text, tc.find(\"system-out\").text" "$T/h.xml" || return 1
	! grep -q "<img" "$T/h.md" && grep -q "1.000 sx?\\\\\[31m? &lt;img" "$T/h.md" &&
	grep -qF 'median: 1.000 sx\x1b[31m\x07\x0d<img' "$T/h.out"
}
t "outside text escaped in the terminal, JUnit XML and --markdown" hostile_gate
hostile_gate_error() {
	expect_exit 2 "$YS" gate --baseline "$HOSTILE" --limit wall_time=1s "$HOSTILE" &&
	no_controls "$T/stderr" && grep -qF 'measured in sx\x1b[31m' "$T/stderr"
}
t "... and in error messages" hostile_gate_error
finish
