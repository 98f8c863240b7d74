# yardstick history: the store over time, filters, JSON, change points.
. "$(dirname "$0")/lib.sh"

cd "$T" && git init -q -b main repo && cd repo && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m one

t "no store yet: exit 2, naming it" sh -c '"$YS" history 2>"$T/h.err"; [ $? -eq 2 ] && grep -q "store.db" "$T/h.err"'
for i in 1 2 3 4 5 6; do "$YS" run -q --runs 5 -n fast -- "$YSFIX" sleep 1 2>/dev/null; done
for i in 1 2 3 4 5 6; do "$YS" run -q --runs 5 -n fast -- "$YSFIX" sleep 20 2>/dev/null; done
"$YS" run -q --runs 5 -n other -- "$YSFIX" exit 0 2>/dev/null
t "every run is stored: 13 rows, newest first" sh -c '
	"$YS" history --json - | python3 -c "
import json, sys; r = json.load(sys.stdin)[\"results\"]
assert len(r) == 13, len(r)
assert [x[\"id\"] for x in r] == sorted([x[\"id\"] for x in r], reverse=True)
assert r[0][\"benchmarks\"][0][\"name\"] == \"other\" and r[0][\"branch\"] == \"main\" and len(r[0][\"commit\"]) == 40"'
# One result of a benchmark: singular (before: "in 1 results of")
t "--detect of one result: '0 change points in 1 result of'" sh -c '
	"$YS" history other --detect >"$T/one.txt" &&
	grep -q "^0 change points in 1 result of .other.:" "$T/one.txt" || { cat "$T/one.txt"; exit 1; }'
t "a benchmark name and --limit filter" sh -c '
	"$YS" history fast --limit 4 --json - | python3 -c "
import json, sys; r = json.load(sys.stdin)[\"results\"]
assert len(r) == 4 and all(b[\"name\"] == \"fast\" for x in r for b in x[\"benchmarks\"]), r
assert r[0][\"benchmarks\"][0][\"median\"] > 0.019, r"'
t "--branch filters" sh -c '[ "$("$YS" history --branch nope --json - | python3 -c "import json,sys; print(len(json.load(sys.stdin)[\"results\"]))")" = 0 ]'
t "the table" sh -c '"$YS" history fast > "$T/h.txt" && grep -q "fast" "$T/h.txt" && grep -q "main" "$T/h.txt"'
# -q as every other command has it (before: "unknown option '-q'", exit 2):
# no table, no change points; --json is still written, the same document
t "-q: no table on stdout, --json still written" sh -c '
	"$YS" history fast --limit 3 --json "$T/full.json" >/dev/null &&
	"$YS" history -q fast --limit 3 --json "$T/q.json" >"$T/q.out" 2>"$T/q.err" &&
	[ ! -s "$T/q.out" ] && [ ! -s "$T/q.err" ] && cmp "$T/full.json" "$T/q.json" &&
	"$YS" history --quiet fast --detect >"$T/qd.out" && [ ! -s "$T/qd.out" ]'
t "... errors are still said" sh -c '
	"$YS" history -q --detect 2>"$T/qe.err"; [ $? -eq 2 ] && grep -q "needs a BENCHMARK" "$T/qe.err"'
# Change points are checked on designed results (series NAME STORE
# MS...: a result of 10 runs within 2% of each MS milliseconds, copied
# into STORE in order, so that its ids are 1, 2, ...): runs of real
# sleeps on a loaded machine blur the steps.
series() {
	python3 - "$T" "$@" <<'PY'
import json, random, sys
d, name, store, ms = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
r = random.Random(name)
for i, m in enumerate(ms):
    v = [float(m) * 1e-3 * r.uniform(0.98, 1.02) for _ in range(10)]
    json.dump({"schema": "yardstick/result/v1", "kind": "run",
               "created": "2026-01-01T00:%02d:00Z" % i,
               "benchmarks": [{"name": name, "command": ["sleep"],
                               "metrics": {"wall_time": {"unit": "s", "values": v}}}]},
              open("%s/%s%02d.json" % (d, name, i), "w"))
PY
	for f in "$T/$1"[0-9][0-9].json; do "$YS" store copy -q "$f" "$2" >/dev/null || return 1; done
}
series stepped "$T/step.db" 1 1 1 1 1 1 20 20 20 20 20 20
t "--detect finds the step from 1 ms to 20 ms" sh -c '
	"$YS" history stepped --store "$T/step.db" --detect > "$T/d.txt" && grep -q "^1 change point" "$T/d.txt" && grep -q "at result 7" "$T/d.txt"'
# a result whose every run timed out has no value: '-' and null, never 0
"$YS" run -q --runs 2 --warmup 0 -t 0.2s --ignore-failure -n hung -- "$YSFIX" sleep 5000 2>/dev/null
t "a result no run measured: '-' in the table, null in JSON" sh -c '
	"$YS" history hung > "$T/hung.txt" && grep "hung" "$T/hung.txt" | grep -q " -  *-$" &&
	! grep "hung" "$T/hung.txt" | grep -q " 0 s" &&
	"$YS" history hung --json - | python3 -c "
import json, sys; b = json.load(sys.stdin)[\"results\"][0][\"benchmarks\"][0]
assert b[\"n\"] == 0 and b[\"median\"] is None and b[\"p99\"] is None, b"' || cat "$T/hung.txt"
# The reviewer's series: a regression reverted 7 results later. Both
# edges are change points (with the split's right end fixed at the end of
# the history, none was found).
series reverted "$T/rev.db" 10 10 10 10 10 10 10 20 20 20 20 20 20 20 10 10 10 10 10 10 10
t "--detect finds a regression that was reverted, at both edges" sh -c '
	"$YS" history reverted --store "$T/rev.db" --detect > "$T/r.txt" && grep -q "^2 change points in 21 results" "$T/r.txt" &&
	grep -q "at result 8 " "$T/r.txt" && grep -q "at result 15 " "$T/r.txt"'
t "--detect needs a benchmark: exit 2" expect_exit 2 "$YS" history --detect
# a benchmark the store does not have printed "0 change points in 0
# results of ''" and exited 0
# -m with a typo showed 'no stored results match' and a note, exit 0
t "-m wall_tme: exit 2" expect_exit 2 "$YS" history -m wall_tme
t "... the metric it most likely meant" has "$T/stderr" \
	"yardstick history: -m 'wall_tme': no stored result has that metric; did you mean 'wall_time'?"
t "... a known metric no result has is no error: an empty history" sh -c '
	"$YS" history -m peak_heap >"$T/o" && grep -qx "no stored results match" "$T/o"'
# ... nor a metric of the vocabulary's own: a result's own metric (here
# items_done) that the filters leave out is an empty history, not a typo
# (it said "no stored result has that metric" and exited 2)
custom_metric() {
	python3 - "$T/cm.json" <<'PY' &&
import json, sys
json.dump({"schema": "yardstick/result/v1", "kind": "run",
           "benchmarks": [{"name": "w", "command": ["w"], "metrics": {
               "wall_time": {"unit": "s", "values": [0.01, 0.011, 0.012]},
               "items_done": {"unit": "count", "values": [5.0, 6.0, 7.0]}}}]},
          open(sys.argv[1], "w"))
PY
	"$YS" store copy "$T/cm.json" "$T/cm.db" >/dev/null &&
	"$YS" history --store "$T/cm.db" -m items_done >"$T/o" && grep -q "^ *1 .* w " "$T/o" &&
	"$YS" history --store "$T/cm.db" -m items_done --branch nope >"$T/o" 2>"$T/e" &&
	grep -qx "no stored results match" "$T/o" && [ ! -s "$T/e" ] &&
	expect_exit 2 "$YS" history --store "$T/cm.db" -m items_dne &&
	has "$T/stderr" "-m 'items_dne': no stored result has that metric"
}
t "... nor a result's own metric that the filters leave out: an empty history, exit 0" custom_metric
t "--detect of a benchmark no result has (a typo): exit 2" expect_exit 2 "$YS" history fsat --detect
t "... naming it and the name it most likely meant" has "$T/stderr" \
	"yardstick history: --detect: no stored result has a benchmark 'fsat'; did you mean 'fast'?"
t "... nothing near: where to look" sh -c '
	"$YS" history frobnicate -m peak_rss --detect 2>"$T/e" >"$T/o"; [ $? -eq 2 ] && [ ! -s "$T/o" ] &&
	grep -qx "yardstick history: --detect: no stored result has a benchmark '"'"'frobnicate'"'"' with metric peak_rss ('"'"'yardstick history'"'"' lists them)" "$T/e"'
t "a corrupt store: exit 2 naming it" sh -c '
	printf "this is not sqlite" > "$T/bad.db" && "$YS" history --store "$T/bad.db" 2>"$T/c.err"; [ $? -eq 2 ] && grep -q "bad.db" "$T/c.err"'
t "run with a corrupt store: exit 2, the JSON is still written" sh -c '
	"$YS" run -q --runs 2 --store "$T/bad.db" --json "$T/kept.json" -- "$YSFIX" exit 0 2>"$T/rc.err"; [ $? -eq 2 ] &&
	grep -q "bad.db" "$T/rc.err" && python3 -c "import json; json.load(open(\"$T/kept.json\"))"'
t "--no-store keeps nothing" sh -c '
	before=$("$YS" history --json - | python3 -c "import json,sys; print(len(json.load(sys.stdin)[\"results\"]))") &&
	"$YS" run -q --runs 2 --no-store -- "$YSFIX" exit 0 &&
	[ "$("$YS" history --json - | python3 -c "import json,sys; print(len(json.load(sys.stdin)[\"results\"]))")" = "$before" ]'
t "8 concurrent runs into one store lose nothing" sh -c '
	for i in 1 2 3 4 5 6 7 8; do "$YS" run -q --runs 20 --warmup 0 --store "$T/conc.db" -n "c$i" -- "$YSFIX" exit 0 2>/dev/null & done; wait
	"$YS" history --store "$T/conc.db" --json - | python3 -c "
import json, sys; r = json.load(sys.stdin)[\"results\"]
assert sorted(b[\"name\"] for x in r for b in x[\"benchmarks\"]) == [\"c%d\" % i for i in range(1, 9)], r
assert all(b[\"n\"] == 20 for x in r for b in x[\"benchmarks\"])"'
# A save appends to the store's log: the id it prints is the one the
# store gives it once a reader has moved the log in.
saved_ids() {
	"$YS" run --runs 3 --warmup 0 --store "$T/ids.db" -n first -- "$YSFIX" exit 0 2>"$T/id1" &&
	"$YS" run --runs 3 --warmup 0 --store "$T/ids.db" -n same -- "$YSFIX" exit 0 2>"$T/id2" &&
	"$YS" run --runs 3 --warmup 0 --store "$T/ids.db" -n same -- "$YSFIX" exit 0 2>"$T/id3" || return 1
	a=$(sed -n "s/^yardstick: saved as result \([0-9]*\) in .*ids.db$/\1/p" "$T/id2")
	b=$(sed -n "s/^yardstick: saved as result \([0-9]*\) in .*ids.db$/\1/p" "$T/id3")
	[ "$a" = 2 ] && [ "$b" = 3 ] && [ -s "$T/ids.db-log" ] || return 1
	"$YS" compare --store "$T/ids.db" --json "$T/ids.json" "$a" "$b" >/dev/null
	[ $? -le 1 ] && [ "$(stat -c %s "$T/ids.db-log")" = 32 ] &&
	python3 -c "
import json; c = json.load(open(\"$T/ids.json\"))
assert [x[\"benchmark\"] for x in c[\"comparisons\"]] == [\"same\"] * len(c[\"comparisons\"]) and c[\"comparisons\"], c
assert c[\"comparisons\"][0][\"baseline\"][\"n\"] == 3, c"
}
t "the id a save prints finds its result (compare by ids)" saved_ids
t "help" sh -c '"$YS" history --help | grep -q "detect"'

# Names with ESC, BEL, CR and a right-to-left override, stored by run:
# shown escaped, kept as they are in the JSON.
hostile_history() {
	name=$(printf 'red\033[31m\007\r\342\200\256x')
	"$YS" run -q --runs 2 --warmup 0 -n "$name" -- "$YSFIX" exit 0 2>/dev/null || return 1
	"$YS" history > "$T/h.out" 2>&1 && no_controls "$T/h.out" &&
	grep -qF 'red\x1b[31m\x07\x0d\u202ex' "$T/h.out" &&
	"$YS" history --json - "$name" | python3 -c "
import json, sys; d = json.load(sys.stdin)
assert d[\"results\"][0][\"benchmarks\"][0][\"name\"] == \"red\x1b[31m\x07\r\u202ex\", d"
}
t "outside text escaped on the terminal, kept in --json" hostile_history

# The move of a log (64 records) into the database, what a reader
# pays after 64 saves, costs what it must: the heap is not trimmed and grown again
# around each record (issue 30: 527 page faults more than a history of
# an empty log before, 60 after). Page faults, not time: a busy machine
# does not change them. The bound is glibc's heap's: in a sanitizer's
# build the sanitizer's allocator serves yardstick (mallopt does not
# reach it, and its shadow memory faults by itself), so there the move
# is checked and its faults printed.
move_faults() {
	store=$T/mv/results.db
	mkdir -p "$T/mv" || return 1
	i=0
	while [ $i -lt 64 ]; do
		YARDSTICK_STORE=$store "$YS" run -q --runs 1 --warmup 0 -- "$YSFIX" exit 0 2>/dev/null || return 1
		i=$((i + 1))
	done
	python3 - "$YS" "$store" "${YSB_SAN:-none}" <<'PY'
import os, resource, subprocess, sys
ys, store, san = sys.argv[1], sys.argv[2], sys.argv[3]
def faults():
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    subprocess.run([ys, "history", "-n", "1"], env=dict(os.environ, YARDSTICK_STORE=store),
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt - r0
log = store + "-log"
before = os.stat(log).st_size
move = faults()
assert before > 32 * 1024 and os.stat(log).st_size == 32, (before, os.stat(log).st_size)
empty = faults()
print(f"# page faults: moving {before} bytes of log {move}, a history of an empty log {empty}")
assert san not in ("", "none") or move - empty <= 200, (move, empty)
PY
}
t "moving a full save log into the store: at most 200 page faults more than with the log empty (glibc's heap; in a sanitizer's build the move only)" move_faults
finish
