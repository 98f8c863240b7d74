# yardstick run: bad input and faults. Each gives a clear message, the
# documented exit code, and loses nothing that was measured.
. "$(dirname "$0")/lib.sh"

# A daemon the command leaves behind (a grandchild that called setsid, so
# out of its process group) is gone when yardstick is done with the run,
# however the run ended. $T/gone PIDFILE: its pid is not running (within
# 30 s: a SIGKILL'ed process may take a moment on a busy machine; one
# still running is killed, not left to the next test). $T/waitfor FILE:
# until FILE is not empty (at most a minute); $T/waitlines FILE N: until
# FILE has N lines.
cat > "$T/gone" <<'EOF'
#!/bin/sh
p=$(cat "$1" 2>/dev/null); [ -n "$p" ] || { echo "no pid in $1"; exit 1; }
k=0; while kill -0 "$p" 2>/dev/null && [ $k -lt 300 ]; do sleep 0.1; k=$((k + 1)); done
if kill -0 "$p" 2>/dev/null; then kill -9 "$p"; echo "pid $p still running"; exit 1; fi
EOF
cat > "$T/waitfor" <<'EOF'
#!/bin/sh
k=0; while [ ! -s "$1" ] && [ $k -lt 600 ]; do sleep 0.1; k=$((k + 1)); done; [ -s "$1" ]
EOF
cat > "$T/waitlines" <<'EOF'
#!/bin/sh
k=0; while [ "$(cat "$1" 2>/dev/null | wc -l)" -lt "$2" ] && [ $k -lt 600 ]; do sleep 0.1; k=$((k + 1)); done
[ "$(wc -l < "$1")" -ge "$2" ]
EOF
chmod +x "$T/gone" "$T/waitfor" "$T/waitlines"

t "a program that does not exist: exit 2" expect_exit 2 "$YS" run -- no-such-prog-xyz
t "... naming it" has "$T/stderr" "'no-such-prog-xyz'"
t "... before any run" sh -c '
	"$YS" run "$YSFIX count $T/none" "no-such-prog-xyz" 2>/dev/null; [ $? -eq 2 ] && [ ! -e "$T/none" ]'
t "a file that is not executable: exit 2" expect_exit 2 "$YS" run -- /etc/passwd
t "... saying so" has "$T/stderr" "not an executable"
t "a failing command: exit 1" expect_exit 1 "$YS" run --runs 3 -- "$YSFIX" exit 3 "boom-on-stderr"
t "... with its exit code" has "$T/stderr" "failed with exit code 3"
t "... and the tail of its stderr" has "$T/stderr" "boom-on-stderr"
# One prefix for every message of the command, as the other commands have
# theirs (before, what stopped the runs, the left-out benchmarks, the
# stderr tail and the --ignore-failure hint said "yardstick:")
t "... every message of it starts 'yardstick run: '" sh -c '
	grep "^yardstick" "$T/stderr" >"$T/pfy"; [ "$(wc -l <"$T/pfy")" -ge 3 ] &&
	! grep -v "^yardstick run: " "$T/pfy" && grep -qx "yardstick run: use --ignore-failure to benchmark it anyway" "$T/pfy"'
t "a crashing command: the signal by name" sh -c '
	"$YS" run --runs 2 -- "$YSFIX" signal 11 2>"$T/sig"; [ $? -eq 1 ] && grep -q "killed by SIGSEGV" "$T/sig"'
t "... and is left out as the one that failed, not as one that never ran" sh -c '
	grep -q "the benchmark is left out: it failed before any measured run" "$T/sig" && ! grep -q "never ran" "$T/sig"'
# a command that fails after some measured runs is kept with them; the
# ones after it never ran (it said "the one that failed" was left out)
printf '#!/bin/sh\nc=$(cat "$0.count" 2>/dev/null || echo 0); c=$((c + 1)); echo $c > "$0.count"; [ $c -lt 4 ]\n' > "$T/fail4.sh"
chmod +x "$T/fail4.sh"
t "a command failing at its 4th run: kept with 3, the others never ran" sh -c '
	"$YS" run --no-store --order sequential -w 0 -r 5 "$T/fail4.sh" true "sleep 0" 2>"$T/f4"; [ $? -eq 1 ] &&
	grep -q "2 of the 3 benchmarks never ran and are left out" "$T/f4" || { cat "$T/f4"; exit 1; }'
t "--ignore-failure records non-zero exits and goes on" sh -c '
	"$YS" run -q --runs 3 --ignore-failure --json "$T/if.json" -- "$YSFIX" exit 3 &&
	python3 -c "
import json; b = json.load(open(\"$T/if.json\"))[\"benchmarks\"][0]
assert b[\"exit_codes\"] == [3, 3, 3], b[\"exit_codes\"]"'
t "a failing command still writes what was measured to --json" sh -c '
	"$YS" run -q --runs 3 --warmup 0 --json "$T/fail.json" -- "$YSFIX" exit 4 2>/dev/null; [ $? -eq 1 ] &&
	python3 -c "
import json; b = json.load(open(\"$T/fail.json\"))[\"benchmarks\"][0]
assert b[\"exit_codes\"] == [4], b"'
t "--timeout kills a hanging run and its process group" sh -c '
	"$YS" run --runs 2 --warmup 0 --timeout 0.3 -- "$YSFIX" hang "$T/pid" 2>"$T/to"; rc=$?
	[ $rc -eq 1 ] && grep -q "timed out after 0.3s" "$T/to" && "$T/gone" "$T/pid"'
t "--timeout kills a daemon the command left (setsid) too" sh -c '
	"$YS" run -q --runs 1 --warmup 0 --timeout 0.3 -i -- "$YSFIX" daemon "$T/d1" hang 2>/dev/null
	[ $? -eq 0 ] && "$T/gone" "$T/d1"'
t "... and after a run that exits, with a warning" sh -c '
	"$YS" run -q --runs 2 --warmup 0 --json "$T/d2.json" -- "$YSFIX" daemon "$T/d2" 2>/dev/null &&
	"$T/gone" "$T/d2" && python3 -c "
import json; b = json.load(open(\"$T/d2.json\"))[\"benchmarks\"][0]
assert any(w.startswith(\"2 runs left processes running\") for w in b[\"warnings\"]), b[\"warnings\"]"'
t "... and on Ctrl-C" sh -c '
	"$YS" run -q --runs 1 --warmup 0 -- "$YSFIX" daemon "$T/d3" hang >/dev/null 2>&1 & pid=$!
	"$T/waitfor" "$T/d3" || { kill -9 $pid; exit 1; }
	kill -INT $pid; wait $pid; rc=$?
	[ $rc -eq 130 ] || { echo "exit $rc"; exit 1; }
	"$T/gone" "$T/d3"'
t "... and when yardstick itself is killed" sh -c '
	"$YS" run -q --runs 1 --warmup 0 -- "$YSFIX" daemon "$T/d4" hang >/dev/null 2>&1 & pid=$!
	"$T/waitfor" "$T/d4" || { kill -9 $pid; exit 1; }
	kill -KILL $pid; wait $pid
	"$T/gone" "$T/d4"'
t "--timeout with --ignore-failure counts timed-out runs" sh -c '
	"$YS" run -q --runs 2 --warmup 0 --timeout 100ms --ignore-failure --json "$T/to.json" -- "$YSFIX" hang &&
	python3 -c "
import json; b = json.load(open(\"$T/to.json\"))[\"benchmarks\"][0]
assert b[\"timeouts\"] == 2 and b[\"exit_codes\"] == [137, 137], b
assert b[\"metrics\"][\"wall_time\"][\"values\"] == [None, None], b
assert any(\"timed out\" in w for w in b[\"warnings\"])"'
t "per-run values stay in step with exit codes when runs time out" sh -c '
	rm -f "$T/alt"; "$YS" run -q --runs 4 --warmup 0 -i --timeout 3 --csv "$T/alt.csv" --json "$T/alt.json" -- "$YSFIX" alternate "$T/alt" 10 100000 &&
	python3 -c "
import csv, json
b = json.load(open(\"$T/alt.json\"))[\"benchmarks\"][0]; w = b[\"metrics\"][\"wall_time\"][\"values\"]
assert b[\"exit_codes\"] == [137, 0, 137, 0], b[\"exit_codes\"]
assert w[0] is None and w[2] is None and 0.01 <= w[1] < 3 and 0.01 <= w[3] < 3, w
assert b[\"metrics\"][\"wall_time\"][\"n\"] == 2
rows = list(csv.DictReader(open(\"$T/alt.csv\")))
assert [r[\"exit_code\"] for r in rows] == [\"137\", \"0\", \"137\", \"0\"]
assert rows[0][\"wall_time\"] == \"\" and float(rows[1][\"wall_time\"]) >= 0.01"'
t "Ctrl-C kills the child, writes what was measured, exits 130" sh -c '
	"$YS" run --runs 1000 --warmup 0 --prepare "echo >> $T/int.runs" --json "$T/int.json" -- "$YSFIX" sleep 100 >/dev/null 2>&1 &
	pid=$!; "$T/waitlines" "$T/int.runs" 4; kill -INT $pid; wait $pid; rc=$?
	[ $rc -eq 130 ] || { echo "exit $rc"; exit 1; }
	python3 -c "
import json; v = json.load(open(\"$T/int.json\"))[\"benchmarks\"][0][\"metrics\"][\"wall_time\"][\"values\"]
assert 3 <= len(v) < 1000, len(v)"'

t "Ctrl-C between short runs is never lost" sh -c '
	for i in 1 2 3; do
		"$YS" run -q --runs 100000 --warmup 0 -- "$YSFIX" exit 0 >/dev/null 2>&1 &
		pid=$!; sleep 0.7; kill -INT $pid
		k=0; while kill -0 $pid 2>/dev/null && [ $k -lt 300 ]; do sleep 0.1; k=$((k + 1)); done
		kill -0 $pid 2>/dev/null && { kill -9 $pid; echo "still running after SIGINT"; exit 1; }
		wait $pid; rc=$?; [ $rc -eq 130 ] || { echo "exit $rc"; exit 1; }
	done'
# A scan of 100,000 values interrupted after a second of runs: it exits
# 130 within seconds (it took 21 s), writes what ran, leaves out what never
# ran, and holds little per value not run (it held 5.6 KB per value before
# any run, and 40 KB with --json: 4 GB). $T/scan N: "RSS_KB SECONDS RAN".
cat > "$T/scan" <<'EOF'
#!/bin/sh
N=$1; D=$T/scan$N; mkdir -p "$D"
/usr/bin/time -f "%M" -o "$D/rss" "$YS" run --runs 1 --warmup 0 --json "$D/p.json" --param n=1:$N -- "$YSFIX" count "$D/c{n}" >/dev/null 2>"$D/err" &
p=$!
# interrupted once 50 values ran (a fixed sleep let a quiet machine finish
# the small scan before the signal)
k=0; while [ "$(ls "$D" | grep -c "^c")" -lt 50 ] && [ $k -lt 1200 ]; do sleep 0.05; k=$((k + 1)); done
y=$(pgrep -P $p -x yardstick); [ -n "$y" ] || { echo "no yardstick"; exit 1; }
t0=$(date +%s.%N); kill -INT $y; wait $p; rc=$?; t1=$(date +%s.%N)
[ $rc -eq 130 ] || { echo "exit $rc"; cat "$D/err"; exit 1; }
grep -q "benchmarks never ran and are left out" "$D/err" || { cat "$D/err"; exit 1; }
python3 -c "
import json, os; bs = json.load(open('$D/p.json'))['benchmarks']; ran = [f for f in os.listdir('$D') if f.startswith('c')]
assert 0 < len(bs) <= len(ran) and all(len(b['exit_codes']) == 1 for b in bs), (len(bs), len(ran))" || exit 1
echo "$(tail -1 "$D/rss") $(python3 -c "print($t1 - $t0)") $(ls "$D" | grep -c "^c")"
rm -rf "$D"
EOF
chmod +x "$T/scan"
t "a scan of 100,000 values: Ctrl-C honoured at once, little memory per value" sh -c '
	small=$("$T/scan" 1000) || { echo "$small"; exit 1; }
	big=$("$T/scan" 100000) || { echo "$big"; exit 1; }
	echo "1000: $small; 100000: $big"
	# under AddressSanitizer every allocation has redzones and freed
	# memory waits in quarantine: its RSS says nothing of ours
	asan=0; grep -q __asan_init "$YS" && asan=1
	python3 -c "
s, b = \"$small\".split(), \"$big\".split()
per = (float(b[0]) - float(s[0])) * 1024 / 99000
assert $asan or per < 4096, (per, s, b)
assert float(b[1]) < 10, b"'
t "an interrupted result says so" sh -c '
	"$YS" run -q --runs 100000 --warmup 0 --json "$T/int2.json" -- "$YSFIX" count "$T/int2.runs" >/dev/null 2>"$T/int2.err" &
	pid=$!; "$T/waitfor" "$T/int2.runs"; kill -INT $pid; wait $pid
	grep -q "interrupted" "$T/int2.err" && python3 -c "
import json; b = json.load(open(\"$T/int2.json\"))[\"benchmarks\"][0]
assert any(w.startswith(\"interrupted after\") for w in b[\"warnings\"]), b[\"warnings\"]"'
t "a failing --prepare: exit 1, its stderr, no --ignore-failure hint" sh -c '
	"$YS" run --runs 2 --prepare "echo FROM-PREP >&2; exit 4" -- "$YSFIX" exit 0 2>"$T/prep.err"; [ $? -eq 1 ] &&
	grep -q "prepare command .* failed with exit code 4" "$T/prep.err" && grep -q FROM-PREP "$T/prep.err" &&
	! grep -q "ignore-failure" "$T/prep.err"'
t "the stderr tail is from the failing run, not from --prepare" sh -c '
	"$YS" run --runs 2 --prepare "echo FROM-PREP >&2" -- "$YSFIX" exit 3 own-words 2>"$T/own.err"; [ $? -eq 1 ] &&
	grep -q own-words "$T/own.err" && ! grep -q FROM-PREP "$T/own.err"'
# runs 0 to 3 succeed, run 4 fails; each says which it is on stderr
cat > "$T/nth.sh" <<EOF
n=\$(cat "$T/nth" 2>/dev/null || echo 0)
echo \$((n + 1)) > "$T/nth"
echo words-of-run-\$n >&2
sleep 0.2
[ \$n -lt 4 ]
EOF
t "the stderr tail is from the failing run, not from the runs before it" sh -c '
	"$YS" run --no-store --runs 10 --warmup 0 -- /bin/sh "$T/nth.sh" 2>"$T/nth.err"; [ $? -eq 1 ] &&
	grep -q words-of-run-4 "$T/nth.err" && ! grep -q words-of-run-3 "$T/nth.err"'
t "stderr capture keeps a bounded tail of a flood" sh -c '
	"$YS" run --runs 1 --warmup 0 --shell "head -c 50000000 /dev/zero | tr \"\\0\" x >&2; echo LAST-WORDS >&2; exit 5" 2>"$T/flood.err"; [ $? -eq 1 ] &&
	grep -q LAST-WORDS "$T/flood.err" && [ $(wc -c < "$T/flood.err") -lt 20000 ]'
t "... and so does yardstick's own thread, with no spawner" sh -c '
	YARDSTICK_SPAWNER=/nonexistent "$YS" run --runs 1 --warmup 0 --shell "head -c 50000000 /dev/zero | tr \"\\0\" x >&2; echo LAST-WORDS >&2; exit 5" 2>"$T/flood2.err"; [ $? -eq 1 ] &&
	grep -q LAST-WORDS "$T/flood2.err" && grep -q "peak RSS below" "$T/flood2.err" && [ $(wc -c < "$T/flood2.err") -lt 20000 ]'
t "a script whose #! interpreter is missing: exit 2" sh -c '
	printf "#!/nonexistent/interp\n" > "$T/bad.sh" && chmod +x "$T/bad.sh" &&
	"$YS" run --runs 2 -- "$T/bad.sh" 2>"$T/bad.err"; [ $? -eq 2 ] && grep -q "interpreter" "$T/bad.err"'
t "--input from a pipe feeds every run" sh -c '
	echo data | "$YS" run -q --runs 4 --input - -- "$YSFIX" cat'
t "--input from an endless pipe: exit 2 at 64 MiB, before any run" sh -c '
	yes | timeout 60 "$YS" run --runs 1 --input - -- "$YSFIX" count "$T/endless" 2>"$T/endless.err"; rc=$?
	[ $rc -eq 2 ] || { echo "exit $rc"; exit 1; }
	[ ! -e "$T/endless" ] && grep -q "'"'"'-'"'"' holds more than 64 MiB" "$T/endless.err"'
t "--input a directory: exit 2 before any run" sh -c '
	"$YS" run --runs 2 --input /tmp -- "$YSFIX" count "$T/dir-none" 2>"$T/in.err"; [ $? -eq 2 ] &&
	[ ! -e "$T/dir-none" ] && grep -q "is a directory" "$T/in.err"'
t "--json /dev/null leaves the device a device" sh -c '
	"$YS" run -q --runs 2 --json /dev/null -- "$YSFIX" exit 0 && [ -c /dev/null ]'
t "--json through a symlink replaces its target, not the link" sh -c '
	ln -s "$T/target.json" "$T/link.json" && "$YS" run -q --runs 2 --json "$T/link.json" -- "$YSFIX" exit 0 &&
	[ -L "$T/link.json" ] && python3 -c "import json; json.load(open(\"$T/target.json\"))"'
t "an unwritable --json is found before any run" sh -c '
	"$YS" run --runs 2 --json "$T/no/such/dir/x.json" -- "$YSFIX" count "$T/unw" 2>/dev/null; [ $? -eq 2 ] && [ ! -e "$T/unw" ]'
t "--json - with --csv -: exit 2" expect_exit 2 "$YS" run --json - --csv - -- "$YSFIX" exit 0
t "... naming both" has "$T/stderr" "--json - and --csv - both want stdout"
t "--json - with --show-output: exit 2" expect_exit 2 "$YS" run --json - --show-output -- "$YSFIX" exit 0
t "--pin a CPU this machine lacks: exit 2" expect_exit 2 "$YS" run --pin 4000 -- "$YSFIX" exit 0
t "... naming --pin" has "$T/stderr" "--pin"
t "a comparison that cannot be made is said, not dropped" sh -c '
	"$YS" run -q --runs 3 --compare-metric major_faults "$YSFIX exit 0" "$YSFIX sleep 1" 2>"$T/nocmp.err" &&
	grep -q "no comparison of major_faults" "$T/nocmp.err"'
t "--max-runs below the default minimum lowers the minimum" sh -c '
	"$YS" run -q --max-runs 3 --min-time 0 --warmup 0 -- "$YSFIX" count "$T/mr" && [ "$(wc -l < "$T/mr")" -eq 3 ]'
t "a signal without a name is given by number" sh -c '
	"$YS" run --runs 1 -- "$YSFIX" signal 40 2>"$T/s40"; [ $? -eq 1 ] && grep -q "killed by signal 40" "$T/s40"'
t "a negative range keeps its end" sh -c '
	"$YS" run -q --runs 1 --warmup 0 --param n=-3:-1 --json "$T/neg.json" "$YSFIX echo {n}" &&
	python3 -c "
import json; bs = json.load(open(\"$T/neg.json\"))[\"benchmarks\"]
assert [b[\"parameters\"][\"n\"] for b in bs] == [\"-3\", \"-2\", \"-1\"], bs"'
t "--shell with a command after --" sh -c '
	"$YS" run -q --runs 5 --shell --json "$T/sh2.json" -- "$YSFIX" sleep 20 &&
	python3 -c "
import json; b = json.load(open(\"$T/sh2.json\"))[\"benchmarks\"][0]
assert b[\"command\"][:2] == [\"/bin/sh\", \"-c\"], b[\"command\"]
w = b[\"metrics\"][\"wall_time\"]
assert w[\"shell_subtracted\"] == 1 and all(x + w[\"shell_startup\"] >= 0.020 for x in w[\"values\"]), w"'

# --- bad option values: exit 2 naming the option ------------------------
for bad in "--runs -1" "--runs 0" "--runs x" "--warmup -2" "--timeout 5h" \
	   "--timeout 0" "--min-time abc" "--order random" "--pin x" \
	   "--param n=" "--param n=5:1" "--param n=1:10:*1" "--resamples -3" \
	   "--events bogus-event-xyz" "--compare-metric no_such_metric" \
	   "--reference nobody" "--resamples 50" "--json"; do
	opt=${bad%% *}
	t "$bad: exit 2" expect_exit 2 "$YS" run $bad -- "$YSFIX" exit 0
	t "$bad: the message names $opt" has "$T/stderr" "$opt"
done
t "an empty command: exit 2" expect_exit 2 "$YS" run ""
t "... saying it is empty" has "$T/stderr" "empty"
t "an unterminated quote: exit 2" expect_exit 2 "$YS" run "echo 'abc"
t "... saying so" has "$T/stderr" "unterminated quote"
t "more names than commands: exit 2" expect_exit 2 "$YS" run -n a -n b -- "$YSFIX" exit 0
t "no command: exit 2" expect_exit 2 "$YS" run --runs 3
t "an unknown option: exit 2" expect_exit 2 "$YS" run --frobnicate -- "$YSFIX" exit 0
t "... naming it" has "$T/stderr" "--frobnicate"
t "--json into a missing directory: exit 2, nothing written" sh -c '
	"$YS" run -q --runs 2 --json /nonexistent-dir/x.json -- "$YSFIX" exit 0 2>"$T/nd"; [ $? -eq 2 ] &&
	grep -q "/nonexistent-dir/x.json" "$T/nd"'
# a result made with more resamples than a reader takes could not be read
t "--resamples beyond a million: exit 2, for run and compare" sh -c '
	"$YS" run --resamples 2000000 -- "$YSFIX" exit 0 2>"$T/rs.err"; [ $? -eq 2 ] && grep -q "from 100 to 1000000" "$T/rs.err" &&
	"$YS" compare --resamples 2000000 "$T/none.json" "$T/none.json" 2>/dev/null; [ $? -eq 2 ]'
# Whichever result output is stdout, the table goes to stderr: --bmf -
# left it on stdout, inside the JSON.
t "an output on stdout keeps stdout to itself: --json, --csv, --markdown, --bmf" sh -c '
	for o in json csv markdown bmf; do
		"$YS" run --runs 2 --$o - -- "$YSFIX" exit 0 >"$T/so.$o" 2>"$T/se.$o" || exit 1
		! grep -q "Benchmark 1" "$T/so.$o" && grep -q "Benchmark 1" "$T/se.$o" || { echo "$o"; cat "$T/so.$o"; exit 1; }
	done
	python3 -c "import json; json.load(open(\"$T/so.json\")); json.load(open(\"$T/so.bmf\"))"'
t "... and /dev/stdout counts as stdout" sh -c '
	"$YS" run --runs 2 --json /dev/stdout -- "$YSFIX" exit 0 2>/dev/null | python3 -c "import json, sys; json.load(sys.stdin)"'
finish
