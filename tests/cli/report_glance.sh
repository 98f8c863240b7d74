# yardstick report read at a glance, in headless Chromium (browser.py):
# each view (tests/cli/report_views.sh: a run of 2 commands, compare, load,
# mem, history outside git, trace, roofline) at 1280 and 800 px, measured
# from the DOM's geometry by report_glance.js: no two text boxes of a chart
# overlap, every axis title has its unit, every table fits or scrolls with
# its cue, no header breaks mid-word. Then the page's words per view.
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
sh "$HERE/report_views.sh" "$YS" "$T" >"$T/views.log" 2>&1 || { cat "$T/views.log"; echo "Bail out! views"; exit 1; }

. "$HERE/browser.sh"

# glance VIEW WIDTH: the view's page at WIDTH px has no problem
glance() {
	timeout 120 python3 "$HERE/browser.py" "$T/$1.html" --width "$2" \
		--height 900 --eval "$(cat "$HERE/report_glance.js")" > "$T/b.json" &&
	python3 - "$T/b.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
assert b["exceptions"] == [], b["exceptions"]
problems = json.loads(b["value"])
assert problems == [], json.dumps(problems, ensure_ascii=False)[:3000]
PY
}

for v in run compare load mem history trace roofline; do
	for w in 1280 800; do
		t "$v view at $w px: no overlapping text, units on axes, tables fit" glance "$v" "$w"
	done
done

# words JS PYCHECK: the value of JS on PAGE, checked by python PYCHECK (v)
words() {
	timeout 120 python3 "$HERE/browser.py" "$T/$1.html" --eval "$2" > "$T/b.json" &&
	python3 -c "
import json
v = json.loads(json.load(open('$T/b.json'))['value'])
$3
"
}
TEXT='JSON.stringify(document.body.innerText)'
# load: requests, not runs; no error axis without errors; no 4-dot plot
t "load speaks of requests, says no errors, no throughput dot plot" words load "$TEXT" "
import re
assert not re.search(r'\bruns?\b', v), [m for m in re.findall(r'.{30}\bruns?\b.{30}', v)]
assert 'no errors' in v, v[:2000]
"
t "load: no chart of error_rate, no distribution of 4 throughputs" words load \
	'JSON.stringify([...document.querySelectorAll(".chart")].map(c => c.querySelector("svg").getAttribute("aria-label")))' "
assert not any('error_rate' in c for c in v), v
assert not any('throughput' in c and 'distribution' in c for c in v), v
"
t "load: the 4,000-request sequence is binned (a median line, a band), not a solid band" words load \
	'JSON.stringify([...document.querySelectorAll(".chart.seq g[data-metric=latency] path.line")].map(p => [p.dataset.perBin || null, (p.getAttribute("d").match(/[ML]/g) || []).length]))' "
assert v == [['40', 100]], v
"
# mem: bytes, not CPU words; round binary ticks
t "mem speaks of bytes, not samples or Amdahl" words mem "$TEXT" "
for w in ('self samples', 'Amdahl', 'faster'):
    assert w not in v, w
assert 'the function with the most bytes itself, strdup, has 64.6% of them' in v, v[-1500:]
"
t "mem: the top table of the sites in bytes, each function's share" words mem \
	'JSON.stringify([...document.querySelectorAll("table.top tbody tr")].map(r => [...r.cells].map(c => c.textContent)))' "
# strdup: 716800 of 1110016 bytes, itself and with its callees
assert v[0] == ['strdup', '', '700.0 KiB (64.58%)', '700.0 KiB (64.58%)'], v
assert v[2] == ['main', '', '0 B (0.00%)', '1.059 MiB (100.00%)'], v
"
t "mem: byte ticks at round binary values" words mem \
	'JSON.stringify([...document.querySelectorAll(".chart text.tick")].map(t => t.textContent))' "
import re
bad = [s for s in v if re.search(r'[KMG]iB', s) and not re.fullmatch(r'[0-9]+(\.(25|5|75))? [KMG]iB', s)]
assert not bad, bad
"
t "single-value metrics are one number: no CI, stddev or p99" words mem \
	'JSON.stringify([[...document.querySelectorAll("table.summary th")].map(t => t.textContent), [...document.querySelectorAll("tr[data-metric=peak_heap] td")].map(t => t.textContent.trim())])' "
assert v == [['metric', 'value'], ['peak_heap', '1.000 MiB']], v
"
# the load's error count, one value among metrics of many: its value in
# the median's column, every other cell empty
t "one value among many: the value alone in its row" words load \
	'JSON.stringify([...document.querySelectorAll("tr[data-metric=errors] td:not(:first-child):not(.n)")].map(t => t.textContent.trim()))' "
assert v[0] == '0' and all(s == '' for s in v[1:]) and len(v) == 10, v
"
t "history outside git: ticks are ids or dates, not '-'" words history \
	'JSON.stringify([...document.querySelectorAll(".chart.history text.tick")].map(t => t.textContent))' "
assert v and '-' not in v, v
"
# the sentence on top is run's own judgement (the result's comparisons):
# its factor is the ratio of medians the result holds, inverted when
# faster; both commands on one axis, the faster one's median left
t "run of 2 commands: one shared axis and run's comparison on top" words run \
	'JSON.stringify({s: [...document.querySelectorAll(".verdict")].map(e => e.textContent),
	  strips: [...document.querySelectorAll(".chart.shared g.strip")].map(g => [g.dataset.name, +g.dataset.median, g.getBoundingClientRect().left]),
	  shared: document.querySelectorAll(".chart.shared").length})' "
import re
c = json.load(open('$T/fx/run2.json'))['comparisons']
assert len(c) == 1 and len(v['s']) == 1, (c, v)
c = c[0]
if c['verdict'] == 'unchanged':   # a machine too busy to tell: said so
    assert v['s'][0].startswith(\"no significant difference between '%s' and '%s'\" % (c['baseline'], c['candidate'])), (v, c)
else:
    f = 1 / c['ratio'] if c['ratio'] < 1 else c['ratio']
    m = re.search(r\"'(.*)' is ([0-9.]+)× (faster|slower) than '(.*?)'\", v['s'][0])
    assert m, v['s']
    assert m.group(1) == c['candidate'] and m.group(4) == c['baseline'], (m.groups(), c)
    assert abs(float(m.group(2)) - f) <= 0.01 * f, (m.group(2), f)
assert v['shared'] == 1 and [s[0] for s in v['strips']] == ['sleep 20ms', 'sleep 100ms'], v
assert v['strips'][0][1] < v['strips'][1][1], v
"
# each row of charts spans its column (at 1280 px, the column is 1100 px;
# a chart 640 px wide alone on its row left 460 px empty)
t "charts use the column's width" words run \
	'JSON.stringify([...document.querySelectorAll(".figs, section.result")].map(f => {
	  const rows = {};
	  [...f.children].filter(e => e.matches("figure.chart")).forEach(e => {
	    const r = e.getBoundingClientRect(); const k = Math.round(r.top);
	    rows[k] = rows[k] || [1e9, -1e9];
	    rows[k][0] = Math.min(rows[k][0], r.left); rows[k][1] = Math.max(rows[k][1], r.right); });
	  return [f.getBoundingClientRect().width, Object.values(rows).map(r => r[1] - r[0])];
	}))' "
assert any(rows for col, rows in v), v
for col, rows in v:
    for w in rows:
        assert w >= 0.9 * col, (w, col)
"
finish
