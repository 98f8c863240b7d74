# The one judge, differentially and against hostile input: 200 generated
# pairs of result files (tests/cli/judge_diff.py, new seeds every run,
# printed) judged alike, bit for bit, by compare --json, gate (terminal
# and --json) and report --baseline and as SciPy and an enumeration here
# judge them; a gate of 20 checks holding its family-wise false-alarm
# rate on 200 null gates; bench --baseline against compare; and inputs
# that must be refused, not judged.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3	# Debian's, with NumPy and SciPy (scripts/deps.sh)
GEN="$(dirname "$0")/judge_diff.py"

# new seeds each run (printed); rerun one with JUDGE_SEED=N. The
# sanitized build judges fewer cases: it looks for memory errors in the
# same code, and its yardstick is 5-10 times slower (200 pairs ran past
# 900 s at a load average of 25); the normal build carries the statistics.
if ! san_build; then PAIRS=100 GATES=200; else PAIRS=25 GATES=100; fi
seed() { echo "${JUDGE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"; }
for i in 1 2; do
	s=$(seed)
	echo "# judge_diff.py seed $s"
	t "$PAIRS generated pairs (seed $s): compare, gate and report give one estimate, interval, p and verdict; SciPy's Harrell-Davis; the exact p of small samples; the coverage of a known ratio" \
		sh -c 'mkdir -p "$T/p$2" && "$0" "$1" "$YS" "$T/p$2" --seed "$2" --pairs "$3" --null-gates 0' "$PY" "$GEN" "$s" "$PAIRS"
done
s=$(seed)
echo "# judge_diff.py seed $s (null gates)"
t "$GATES null gates of 20 checks (seed $s): Holm holds the family-wise rate at alpha 0.01, no correction does not" \
	sh -c 'mkdir -p "$T/n" && "$0" "$1" "$YS" "$T/n" --seed "$2" --pairs 0 --null-gates "$3"' "$PY" "$GEN" "$s" "$GATES"

# bench --baseline judges as compare does: the same data (bench's stored
# result), the same lines. The candidate's values are designed (a fake
# libyardstick program prints them in each of 6 processes), the baseline's
# 6 processes of 5 epochs.
s=$(seed)
echo "# bench seed $s"
bench_same() {
	$PY - "$T" "$1" <<'PY' || return 1
import json, sys, numpy as np
T, seed = sys.argv[1], int(sys.argv[2])
r = np.random.default_rng(seed)
k = float(r.choice([1.0, 1.05, 1.3]))
json.dump(list(1e-6 * k * r.lognormal(0, 0.2, 5)), open(T + "/bv.json", "w"))
b = list(1e-6 * r.lognormal(0, 0.2, 30))
proc = [i // 5 for i in range(30)]
json.dump({"schema": "yardstick/result/v1", "kind": "bench", "benchmarks": [
    {"name": "f", "metrics": {
        "time_per_op": {"unit": "s", "values": b, "process": proc},
        "allocs_per_op": {"unit": "count", "values": [3] * 30, "process": proc}}}]},
    open(T + "/bb.json", "w"))
PY
	FAKE_VALUES=$T/bv.json "$YS" bench --processes 6 --baseline "$T/bb.json" \
		-- "$PY" "$(dirname "$0")/judge_bench_fake.py" >"$T/bench.out" 2>&1 || { cat "$T/bench.out"; return 1; }
	sed -n '/^Against the baseline/,/^(.*comparisons/p' "$T/bench.out" | sed 1d >"$T/bench.cmp"
	"$YS" compare -m time_per_op -m allocs_per_op -m alloc_bytes_per_op \
		"$T/bb.json" latest >"$T/compare.cmp" || return 1
	grep -q "time_per_op" "$T/bench.cmp" && diff "$T/bench.cmp" "$T/compare.cmp"
}
t "bench --baseline prints compare's estimates, intervals, p and verdicts for the same data (seed $s)" bench_same "$s"

# ---- hostile input: refused with the file and the fault, exit 2 ----
$PY - "$T" <<'PY'
import json, sys
T = sys.argv[1]
def res(metrics, name="x"):
    return {"schema": "yardstick/result/v1", "kind": "run",
            "benchmarks": [{"name": name, "metrics": metrics}]}
v = [0.010 + 0.0001 * i for i in range(20)]
def w(p, d): open(T + "/" + p, "w").write(d if isinstance(d, str) else json.dumps(d))
w("s.json", res({"wall_time": {"unit": "s", "values": v}, "rss": {"unit": "bytes", "values": [1e6] * 20}}))
w("ms.json", res({"wall_time": {"unit": "ms", "values": [x * 1000 for x in v]}, "rss": {"unit": "bytes", "values": [1e6] * 20}}))
w("kib.json", res({"wall_time": {"unit": "s", "values": v}, "rss": {"unit": "KiB", "values": [1e3] * 20}}))
w("out.json", res({"wall_time": {"unit": "s", "values": v[:19] + [1e30]}}))
w("nan.json", '{"schema":"yardstick/result/v1","benchmarks":[{"name":"x","metrics":{"wall_time":{"unit":"s","values":[NaN,1]}}}]}')
w("inf.json", '{"schema":"yardstick/result/v1","benchmarks":[{"name":"x","metrics":{"wall_time":{"unit":"s","values":[1e999,1]}}}]}')
w("neg.json", res({"wall_time": {"unit": "s", "values": [-1, 1]}}))
w("dup.json", '{"schema":"yardstick/result/v1","benchmarks":[{"name":"x","metrics":{"wall_time":{"unit":"s","values":[1]},"wall_time":{"unit":"s","values":[2]}}}]}')
w("v9.json", '{"schema":"yardstick/result/v9","benchmarks":[]}')
w("trunc.json", json.dumps(res({"wall_time": {"unit": "s", "values": v}}))[:60])
PY
mkdir "$T/dir.json"
# run_cmd CMD BASE CAND: compare, gate or report on the pair
run_cmd() {
	case $1 in
	compare) "$YS" compare -q "$2" "$3" ;;
	gate) "$YS" gate -q --baseline "$2" --max-increase wall_time=5% \
		--max-increase rss=5% "$3" ;;
	report) "$YS" report --baseline "$2" "$3" -o "$T/r.html" ;;
	esac
}
# refused CMD BASE CAND TEXT: exit 2, TEXT in the message, no page
refused() {
	rm -f "$T/r.html"
	run_cmd "$1" "$2" "$3" >"$T/o" 2>"$T/e"
	rc=$?
	[ $rc = 2 ] || { echo "exit $rc"; cat "$T/o" "$T/e"; return 1; }
	grep -qF -- "$4" "$T/e" || { cat "$T/e"; return 1; }
	! grep -q 99900 "$T/o" && [ ! -e "$T/r.html" ]
}
for cmd in compare gate report; do
	t "$cmd: wall_time in s against ms is refused (exit 2), naming both units, not judged +99,900%" \
		refused $cmd "$T/s.json" "$T/ms.json" "metric 'wall_time' is in 's' in the baseline and in 'ms' in the candidate"
	t "$cmd: rss in KiB against bytes is refused (exit 2)" \
		refused $cmd "$T/kib.json" "$T/s.json" "metric 'rss' is in 'KiB' in the baseline and in 'bytes' in the candidate"
	for bad in nan inf neg dup v9 trunc dir; do
		t "$cmd: $bad.json is refused (exit 2) naming the file, nothing written" \
			refused $cmd "$T/s.json" "$T/$bad.json" "'$T/$bad.json'"
	done
done
t "compare: a metric one side lacks is said (terminal, JSON, Markdown), not dropped without a word" sh -c '
	"$YS" compare "$T/s.json" "$T/kib.json" -m wall_time >/dev/null || exit 1
	'"$PY"' -c "
import json; d = {\"schema\": \"yardstick/result/v1\", \"benchmarks\": [{\"name\": \"x\", \"metrics\": {\"cpu_time\": {\"unit\": \"s\", \"values\": [1, 2]}}}]}
json.dump(d, open(\"$T/cpu.json\", \"w\"))"
	"$YS" compare --json "$T/c.json" --markdown "$T/c.md" "$T/s.json" "$T/cpu.json" >"$T/o" || exit 1
	grep -qF "x: metric wall_time not measured in the candidate (only in the baseline)" "$T/o" &&
	grep -qF "x: metric cpu_time not measured in the baseline (only in the candidate)" "$T/o" &&
	grep -qF "Not measured in the baseline (only in the candidate): x, metric cpu" "$T/c.md" &&
	'"$PY"' -c "
import json; d = json.load(open(\"$T/c.json\"))
assert {\"benchmark\": \"x\", \"metric\": \"rss\"} in d[\"metrics_only_in_baseline\"], d
assert d[\"metrics_only_in_candidate\"] == [{\"benchmark\": \"x\", \"metric\": \"cpu_time\"}], d" || { cat "$T/o"; exit 1; }'
t "compare: a metric every value of which is null on one side (every run timed out) is said, not dropped" sh -c '
	'"$PY"' -c "
import json; json.dump({\"schema\": \"yardstick/result/v1\", \"benchmarks\": [{\"name\": \"x\", \"metrics\": {\"wall_time\": {\"unit\": \"s\", \"values\": [None] * 5}}}]}, open(\"$T/nulls.json\", \"w\"))"
	"$YS" compare -m wall_time "$T/s.json" "$T/nulls.json" >"$T/o" &&
	grep -qF "x: metric wall_time not measured in the candidate (only in the baseline)" "$T/o" || { cat "$T/o"; exit 1; }'
t "compare: a value of 1e30 prints in exponent form, its unit whole, no 30-digit number" sh -c '
	"$YS" compare "$T/s.json" "$T/out.json" >"$T/o" || exit 1
	grep -q "e+29 s" "$T/o" && grep -qE "e\+3[0-9]%" "$T/o" && ! grep -qE "[0-9]{12}" "$T/o" || { cat "$T/o"; exit 1; }'
t "gate: the same, in its check" sh -c '
	"$YS" gate --baseline "$T/s.json" --max-increase wall_time.p99=5% "$T/out.json" >"$T/o"
	grep -q "e+29 s" "$T/o" && ! grep -qE "[0-9]{12}" "$T/o" || { cat "$T/o"; exit 1; }'
finish
