# yardstick report --trace: the timeline of a real trace (zonefix, traced
# by `yardstick trace -o t.json`) rendered in headless Chromium
# (tests/cli/browser.py): no console error, no request, every thread name
# and zone name of the trace in the page, as many drawn zones of each name
# as the trace holds, a screenshot that is not blank; hostile names shown
# as text; the draw cap said; bad trace files refused with exit 2.
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
ZF=$(dirname "$YSFIX")/zonefix
export ZF HERE

# One Chromium for the pages of the test (as report.sh), stopped at exit.
. "$HERE/browser.sh"

# What the page shows, as JSON: thread rows' names, zone and mark names
# drawn (one entry per drawn item), async spans, counters, the zone
# table's names and counts, the cap note, whether any element came from
# the trace's strings (an <img> or a <script> besides the page's own).
PAGE_JS='JSON.stringify({
  threads: [...document.querySelectorAll(".tl-thread .tl-row")].map(e => e.firstChild.textContent),
  zones: [...document.querySelectorAll("g.tl-zone")].map(e => e.dataset.name),
  titles: [...document.querySelectorAll("g.tl-zone > title")].map(e => e.textContent),
  cpu: document.querySelectorAll("g.tl-cpu").length,
  asyncs: [...document.querySelectorAll("g.tl-async")].map(e => e.dataset.name),
  counters: [...document.querySelectorAll("g.tl-counter")].map(e => e.dataset.name),
  marks: [...document.querySelectorAll("g.tl-mark")].map(e => e.dataset.name),
  table: [...document.querySelectorAll("table.zones tr[data-zone]")].map(e => [e.dataset.zone, +e.querySelector(".count").textContent]),
  ticks: [...document.querySelectorAll("svg.tl > text.tick")].map(e => e.textContent),
  cap: (document.querySelector(".tl-cap") || {dataset: {}}).dataset.leftOut || null,
  imgs: document.querySelectorAll("img").length,
  scripts: document.querySelectorAll("script").length
})'
export PAGE_JS

# browse PAGE SHOT: open PAGE, evaluate PAGE_JS, screenshot; what happened
# in $T/b.json, checked: no console error, request, exception, dialog, a
# screenshot of more than 3 colours.
browse() {
	timeout 120 python3 "$HERE/browser.py" "$1" --eval "$PAGE_JS" \
		--scale 0.5 --screenshot "$2" > "$T/b.json" &&
	python3 - "$T/b.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
for k in ("console", "exceptions", "requests", "dialogs"):
    assert b[k] == [], (k, b[k])
assert b["colours"] >= 4, ("blank screenshot", b["colours"])
PY
}

zonefix_timeline() {
	"$YS" trace --no-store -o "$T/t.json" -- "$ZF" >/dev/null 2>"$T/t.err" || { cat "$T/t.err"; return 1; }
	"$YS" report --trace "$T/t.json" -o "$T/t.html" &&
	browse "$T/t.html" "$T/t.png" &&
	python3 - "$T/t.json" "$T/b.json" <<'PY'
import collections, json, sys
tr = json.load(open(sys.argv[1]))["traceEvents"]
v = json.loads(json.load(open(sys.argv[2]))["value"])
# one row per thread: a forked child (ASan's symbolizer) is a row too
threads = sorted(e["args"]["name"] for e in tr if e["ph"] == "M" and e["name"] == "thread_name")
zones = collections.Counter(e["name"] for e in tr if e["ph"] == "X")
asyncs = collections.Counter(e["name"] for e in tr if e["ph"] == "b" and e["cat"] == "async")
counters = {e["name"] for e in tr if e["ph"] == "C"}
marks = collections.Counter(e["name"] for e in tr if e["ph"] == "i" and e["cat"] == "mark")
cpu = sum(1 for e in tr if e["ph"] == "b" and e["cat"] == "cpu")
# zonefix's design: these names are in its trace
assert {"main", "worker-1", "worker-2"} <= set(threads), threads
assert zones["decode"] == 20 and asyncs and counters, (zones, asyncs, counters)
assert sorted(v["threads"]) == threads, (v["threads"], threads)
# every zone drawn once: as many of each name as the trace holds
assert collections.Counter(v["zones"]) == zones, (v["zones"], zones)
assert collections.Counter(v["asyncs"]) == asyncs, (v["asyncs"], asyncs)
assert set(v["counters"]) == counters, (v["counters"], counters)
assert collections.Counter(v["marks"]) == marks, (v["marks"], marks)
assert v["cpu"] == cpu, (v["cpu"], cpu)
assert dict(v["table"]) == dict(zones), (v["table"], zones)
# each zone's tooltip: its name (its text) and its duration, 4 digits
unit = {"s": 1e3, "ms": 1, "µs": 1e-3, "us": 1e-3, "ns": 1e-6}
durs = collections.defaultdict(list)
for e in tr:
    if e["ph"] == "X":
        txt = e.get("args", {}).get("text")
        durs[e["name"] + (" (%s)" % txt if txt else "")].append(e["dur"] / 1e3)
assert len(v["titles"]) == sum(zones.values()), v["titles"]
for t in v["titles"]:
    name, d = t.rsplit(": ", 1)
    num, u = d.split()
    ms = float(num) * unit[u]
    assert any(abs(ms - x) <= 0.001 * x + 1e-6 for x in durs[name]), (t, durs[name])
assert v["ticks"][0] == "0 ms" and len(v["ticks"]) >= 4, v["ticks"]
assert v["cap"] is None and v["imgs"] == 0 and v["scripts"] == 1, v
PY
}
t "zonefix's trace: every thread, zone, span, counter, mark and on-CPU slice drawn; the zone table" zonefix_timeline

# Dark mode: the timeline's colours are the page's variables.
dark_mode() {
	for m in light dark; do
		timeout 120 python3 "$HERE/browser.py" "$T/t.html" $([ $m = dark ] && echo --dark) --eval 'JSON.stringify([getComputedStyle(document.querySelector(".tl-zone rect")).fill, getComputedStyle(document.querySelector(".tl-zone text")).fill, getComputedStyle(document.body).backgroundColor])' > "$T/$m.json" || return 1
	done
	python3 - "$T/light.json" "$T/dark.json" <<'PY'
import json, sys
l, d = (json.loads(json.load(open(f))["value"]) for f in sys.argv[1:])
assert l[2] == "rgb(255, 255, 255)" and d[2] == "rgb(21, 24, 28)", (l, d)
assert l[0] != d[0] and l[1] != d[1] and d[1] == "rgb(230, 233, 237)", (l, d)
PY
}
t "dark mode: the zones and their names follow the page's colours" dark_mode

# A trace made by hand: hostile names are text, never markup; 25,000
# zones: 20,000 drawn, the 5,000 left out said, all counted in the table.
hostile() {
	python3 - "$T/h.json" <<'PY'
import json, sys
bad = ["</script><script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\"'&amp;"]
ev = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": bad[1]}},
      {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": bad[0]}}]
for i, n in enumerate(bad):
    ev.append({"ph": "X", "cat": "zone", "name": n, "pid": 1, "tid": 1 + i % 2, "ts": 10 * i, "dur": 5, "args": {"depth": 0}})
ev.append({"ph": "i", "cat": "mark", "name": bad[0], "pid": 1, "tid": 1, "ts": 3, "s": "t"})
ev.append({"ph": "C", "cat": "counter", "name": bad[1], "pid": 1, "tid": 1, "ts": 4, "args": {bad[1]: 2}})
ev.append({"ph": "b", "cat": "async", "name": bad[2], "id": "0x1", "pid": 1, "tid": 1, "ts": 1})
ev.append({"ph": "e", "cat": "async", "name": bad[2], "id": "0x1", "pid": 1, "tid": 2, "ts": 20})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
json.dump({"traceEvents": [{"ph": "X", "name": "z", "pid": 1, "tid": 1, "ts": i, "dur": 0.5} for i in range(25000)]}, open(sys.argv[1] + ".big", "w"))
PY
	"$YS" report --trace "$T/h.json" -o "$T/h.html" &&
	browse "$T/h.html" "$T/h.png" &&
	python3 - "$T/b.json" <<'PY' &&
import json, sys
v = json.loads(json.load(open(sys.argv[1]))["value"])
bad = ["</script><script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\"'&amp;"]
assert sorted(v["threads"]) == sorted(bad[:2]), v["threads"]
assert sorted(v["zones"]) == sorted(bad), v["zones"]
assert v["marks"] == [bad[0]] and v["asyncs"] == [bad[2]], v
assert v["counters"] == [bad[1] + "." + bad[1]] or v["counters"] == [bad[1]], v["counters"]
assert v["imgs"] == 0 and v["scripts"] == 1, v
PY
	"$YS" report --trace "$T/h.json.big" -o "$T/big.html" &&
	browse "$T/big.html" "$T/big.png" &&
	python3 - "$T/b.json" "$T/big.html" <<'PY'
import json, os, sys
v = json.loads(json.load(open(sys.argv[1]))["value"])
assert len(v["zones"]) == 20000 and v["cap"] == "5000", (len(v["zones"]), v["cap"])
assert v["table"] == [["z", 25000]], v["table"]
assert os.path.getsize(sys.argv[2]) < 8 << 20, os.path.getsize(sys.argv[2])
PY
}
t "hostile names shown as text; 20,000 events drawn, the rest said and counted" hostile

# Bad trace files: exit 2, a message naming the file (and the event),
# no page written.
bad_files() {
	printf '{"traceEvents": [' > "$T/b1.json"
	printf '{"foo": 1}' > "$T/b2.json"
	printf '{"traceEvents": [{"ph": "X", "name": "a", "ts": -5, "dur": 1}]}' > "$T/b3.json"
	printf '{"traceEvents": [{"ph": "X", "name": "a", "pid": "x", "ts": 1}]}' > "$T/b4.json"
	printf '{"traceEvents": [7]}' > "$T/b5.json"
	head -c 67108865 /dev/zero | tr '\0' ' ' > "$T/b6.json"
	printf '{"traceEvents": [{"ph": "X", "name": "a", "ts": 5e15, "dur": 5e15}]}' > "$T/b7.json"
	printf '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1e16, "dur": 1}]}' > "$T/b8.json"
	for f in b1 b2 b3 b4 b5 b6 b7 b8 nonexistent; do
		"$YS" report --trace "$T/$f.json" -o "$T/$f.html" 2>"$T/$f.err"
		rc=$?
		[ $rc -eq 2 ] || { echo "$f: exit $rc"; return 1; }
		grep -q "yardstick report: .*'$T/$f.json'" "$T/$f.err" || { cat "$T/$f.err"; return 1; }
		[ ! -e "$T/$f.html" ] || { echo "$f: page written"; return 1; }
	done
	grep -q "event 0: 'ts'" "$T/b3.err" && grep -q "event 0: 'pid'" "$T/b4.err" &&
	grep -q "event 0: not an object" "$T/b5.err" && grep -q "no traceEvents" "$T/b2.err" &&
	grep -q "67108865 bytes, past the 64 MiB" "$T/b6.err" &&
	grep -q "event 0: 'ts' + 'dur' is past the end of time" "$T/b7.err" &&
	grep -q "event 0: 'ts' is not a time in µs from 0 to 9e15" "$T/b8.err"
}
t "bad trace files: exit 2 naming the file and the event, no page" bad_files

# Epoch µs in ts (Kineto's older traces, other tools): read, the zones
# where they are (refused before: the limit was 1.8e13 µs, "about 2^64
# ns", 1000 times too low, and the message said "not a time in µs >= 0")
epoch_ts() {
	printf '{"traceEvents": [%s,%s]}' \
		'{"ph": "X", "name": "p", "ts": 1623143089979893, "dur": 10, "pid": 1, "tid": 1}' \
		'{"ph": "X", "name": "c", "ts": 1623143089979895, "dur": 4, "pid": 1, "tid": 1}' \
		>"$T/epoch.json" &&
	"$YS" report --trace "$T/epoch.json" -o "$T/epoch.html" &&
	has "$T/epoch.html" ">p<" && has "$T/epoch.html" ">c<"
}
t "epoch µs in ts: read and drawn" epoch_ts

t "help" sh -c '"$YS" report --help | grep -q -- "--trace FILE"'
finish
