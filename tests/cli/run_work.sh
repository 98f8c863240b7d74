# yardstick run --work NAME=EXPR: the work of a run declared as an
# expression over the --param scans, kept as the metrics work_flops and
# work_bytes and the settings of the same names; and the memory-traffic
# counter dram_bytes, which this machine (a KVM guest) cannot count.
. "$(dirname "$0")/lib.sh"

# --- values: exact, per run, per combination of the scans -------------
t "a scan gives work_flops 2e6 and 1.6e7 per run, work_bytes 24 n^2" sh -c '
	"$YS" run -q --runs 3 --param n=100,200 --work flops="2*{n}^3" \
		--work bytes="24*{n}^2" --json "$T/w.json" --csv "$T/w.csv" \
		"$YSFIX exit 0 {n}" 2>"$T/err"'
t "the JSON holds them, with their units and the expressions as settings" py "
d = load('$T/w.json')
assert d['settings']['work_flops'] == '2*{n}^3', d['settings']
assert d['settings']['work_bytes'] == '24*{n}^2', d['settings']
for name, f, by in (('$YSFIX exit 0 100', 2e6, 240000.0),
                    ('$YSFIX exit 0 200', 1.6e7, 960000.0)):
    b = bench(d, name)
    wf, wb = b['metrics']['work_flops'], b['metrics']['work_bytes']
    assert wf['unit'] == 'flop' and wb['unit'] == 'bytes', (wf, wb)
    assert wf['values'] == [f] * 3, wf['values']
    assert wb['values'] == [by] * 3, wb['values']
    assert wf['median'] == f and wf['stddev'] == 0, wf"
csv_has_work() {
	head -1 "$T/w.csv" | grep -q ",involuntary_switches,work_flops,work_bytes$\|,ipc,work_flops,work_bytes$" &&
	[ "$(grep -c ",2000000,240000$" "$T/w.csv")" = 3 ] &&
	[ "$(grep -c ",16000000,960000$" "$T/w.csv")" = 3 ]
}
t "the CSV has them too, a column each" csv_has_work
t "stored, and read back from the store" sh -c '
	"$YS" history -m work_flops --json - > "$T/h.json" && python3 -c "
import json
r = json.load(open(\"$T/h.json\"))[\"results\"][0]
got = {b[\"name\"].split()[-1]: b for b in r[\"benchmarks\"]}
for n, f in ((\"100\", 2e6), (\"200\", 1.6e7)):
    b = got[n]
    assert b[\"n\"] == 3 and b[\"median\"] == f and b[\"mean\"] == f and b[\"p99\"] == f, b
"'
t "compared like any metric" sh -c '
	"$YS" compare "$T/w.json" latest -m work_flops --json "$T/c.json" -q &&
	python3 -c "
import json
c = json.load(open(\"$T/c.json\"))[\"comparisons\"]
assert len(c) == 2 and all(x[\"metric\"] == \"work_flops\" for x in c), c
assert sorted(x[\"candidate\"][\"median\"] for x in c) == [2e6, 1.6e7], c
"'
gate_limits() {
	"$YS" gate -b "$T/w.json" --limit work_flops=20000000 latest > "$T/g1" 2>&1 &&
	expect_exit 1 "$YS" gate -b "$T/w.json" --limit work_flops=10000000 latest &&
	grep "^FAIL" "$T/stdout" | grep -q "exit 0 200: limit work_flops" &&
	[ "$(grep -c "^FAIL" "$T/stdout")" = 1 ]
}
t "gated like any metric: a limit on work_flops" gate_limits
report_attained() {
	"$YS" run --no-store --runs 2 --param n=100 --work flops="2*{n}^3" \
		--work bytes="24*{n}^2" "$YSFIX exit 0 {n}" > "$T/rep" 2>&1 &&
	has "$T/rep" "attained (--work)" && has "$T/rep" "GFLOP/s" &&
	has "$T/rep" "GB/s" && has "$T/rep" " 8.333 FLOP/byte" &&
	has "$T/rep" "2.000 Mflop"
}
t "the report shows the attained GFLOP/s and FLOP/byte" report_attained
report_many() {
	"$YS" run --no-store --runs 1 --param n=1:5 --work flops="{n}" \
		--work bytes="2*{n}" "$YSFIX exit 0 {n}" > "$T/many" 2>&1 &&
	has "$T/many" "GFLOP/s" && has "$T/many" "FLOP/byte" &&
	[ "$(grep -c " 0.5 *$" "$T/many")" = 5 ]
}
t "a scan of many: GFLOP/s and FLOP/byte columns" report_many
t "functions, precedence, a signed exponent and the signs − ×" py "
import subprocess
subprocess.run(['$YS', 'run', '-q', '--no-store', '--runs', '1', '--param',
    'n=8', '--work', 'flops={n}*log2({n})-2^2^-1*0+sqrt(max(16,{n}))',
    '--work', 'bytes=−2^2×−{n}', '--json', '$T/f.json', '--',
    '$YSFIX', 'exit', '0'], check=True)
b = load('$T/f.json')['benchmarks'][0]['metrics']
assert b['work_flops']['values'] == [28.0], b['work_flops']
assert b['work_bytes']['values'] == [32.0], b['work_bytes']"
t "without --param: a number only" py "
import subprocess
subprocess.run(['$YS', 'run', '-q', '--no-store', '--runs', '2',
    '--work', 'flops=1e9', '--json', '$T/n.json', '--', '$YSFIX', 'exit',
    '0'], check=True)
d = load('$T/n.json')
assert d['benchmarks'][0]['metrics']['work_flops']['values'] == [1e9] * 2
assert 'work_bytes' not in d['benchmarks'][0]['metrics']
assert 'work_bytes' not in d['settings']"
t "no --work: no work metric and no setting" py "
import subprocess
subprocess.run(['$YS', 'run', '-q', '--no-store', '--runs', '1',
    '--json', '$T/none.json', '--', '$YSFIX', 'exit', '0'], check=True)
d = load('$T/none.json')
assert not [m for m in d['benchmarks'][0]['metrics'] if m.startswith('work')]
assert 'work_flops' not in d['settings']"

# --- errors: exit 2 before anything runs, the column named ------------
# each error case: the expression, and the message expected on stderr
work_error() {
	rm -f "$T/ran"
	expect_exit 2 "$YS" run --no-store --runs 1 --param n=100,200 \
		--work "$1" "$YSFIX count $T/ran {n}" &&
	has "$T/stderr" "$2" && [ ! -e "$T/ran" ]
}
t "a syntax error names the column" work_error 'flops=2*{n}^^3' \
	"yardstick run: --work flops='2*{n}^^3': column 7: expected a number, a {parameter} or '('"
t "an unknown parameter is named with its column" work_error 'flops=2*{n}+{m}' \
	"--work flops='2*{n}+{m}': column 7: unknown parameter {m} (this command's --param: n)"
no_param() {
	expect_exit 2 "$YS" run --no-store --work "bytes=8*{n}" -- "$YSFIX" count "$T/ran" &&
	has "$T/stderr" "column 3: unknown parameter {n} (this command's --param: none)" &&
	[ ! -e "$T/ran" ]
}
t "without --param every parameter is unknown" no_param
t "division by zero names the benchmark" work_error 'flops=1/(200-{n})' \
	"--work flops='1/(200-{n})': benchmark '$YSFIX count $T/ran 200': column 2: division by zero (1/0)"
t "a result that is not finite names the benchmark" work_error 'bytes=10^({n}*4)' \
	"--work bytes='10^({n}*4)': benchmark '$YSFIX count $T/ran 100': column 3: 10^400 is not a finite number"
t "work below 0 names the benchmark" work_error 'flops=150-{n}' \
	"--work flops='150-{n}': benchmark '$YSFIX count $T/ran 200': -50 flops: work is never below 0"
t "log2 of 0" work_error 'flops=log2({n}-100)' "column 1: log2(0) is not a finite number"
t "an unclosed parenthesis" work_error 'flops=(2*{n}' "column 1: '(' without ')'"
t "an unknown function" work_error 'flops=log3({n})' "column 1: unknown function 'log3'"
t "a bare name" work_error 'flops=2*n' "column 3: 'n' is not a number; a parameter is written {n}"
t "an empty expression" work_error 'flops=' "column 1: empty expression"
t "NAME other than flops or bytes" work_error 'flop=2' \
	"--work: 'flop' is not a kind of work: flops or bytes"
t "no NAME=" work_error 'flops' "--work: 'flops' is not NAME=EXPR"
twice() {
	expect_exit 2 "$YS" run --no-store --work flops=1 --work flops=2 -- "$YSFIX" exit 0 &&
	has "$T/stderr" "--work: flops given twice"
}
t "flops twice" twice
not_number() {
	rm -f "$T/ran"
	expect_exit 2 "$YS" run --no-store --param s=a,b --work "flops={s}" "$YSFIX count $T/ran {s}" &&
	has "$T/stderr" "benchmark '$YSFIX count $T/ran a': column 1: {s} is 'a', not a number" &&
	[ ! -e "$T/ran" ]
}
t "a parameter that is not a number" not_number
controls() {
	expect_exit 2 "$YS" run --no-store --work "$(printf "flops=1\033[31m")" -- "$YSFIX" exit 0 &&
	no_controls "$T/stderr" && has "$T/stderr" "column 2: expected an operator"
}
t "control characters in the expression are escaped" controls
help_work() {
	"$YS" run --help > "$T/help" && has "$T/help" "--work NAME=EXPR" &&
	tr -s ' \n' '  ' < "$T/help" | grep -qF "unary minus (-2^2 = -4)"
}
t "run --help documents --work and its precedence" help_work

# --- dram_bytes: the memory controllers' traffic ----------------------
# This machine (a KVM guest) has no uncore PMU: dram_bytes must be named
# unsupported, never a metric of 0. Where the PMU exists and counting
# system-wide is refused, exit 3 naming the sysctl (tests/unit/
# test_counters.c drives both paths with a made-up sysfs).
dram_here() {
	if ls -d /sys/bus/event_source/devices/uncore_imc* \
		/sys/bus/event_source/devices/amd_umc_* >/dev/null 2>&1; then
		echo "this machine has memory-controller PMUs"
		return 0
	fi
	"$YS" run -q --no-store --runs 2 -e task-clock,dram_bytes --work bytes=64 \
		--json "$T/d.json" -- "$YSFIX" exit 0 ||
		{ echo "run: exit $?"; return 1; }
	python3 -c "
import json
b = json.load(open('$T/d.json'))['benchmarks'][0]
assert 'dram_bytes' in b['unsupported'], b['unsupported']
assert 'dram_bytes' not in b['metrics'], list(b['metrics'])
assert b['metrics']['task_clock']['values'][0] > 0
assert b['metrics']['work_bytes']['values'] == [64.0, 64.0]
" &&
	"$YS" run --no-store --runs 1 -e dram_bytes -- "$YSFIX" exit 0 > "$T/d.out" 2>&1 &&
	has "$T/d.out" "not supported on this machine: dram bytes"
}
t "dram_bytes is named unsupported here, never 0" dram_here
# A made-up memory controller (YARDSTICK_SYSFS): an "uncore_imc_0" whose
# cas_count_read is the software event page-faults (type 1, config 2),
# opened system-wide on every CPU as the real one would be on its
# socket's — so dram_bytes is 64 bytes a page fault of the whole machine
# while the run lasts: at least 64 x the 4096 pages the command touches.
fake_sysfs() {
	d=$1/bus/event_source/devices/uncore_imc_0
	mkdir -p "$d/format" "$d/events" &&
	echo 1 > "$d/type" && cat /sys/devices/system/cpu/online > "$d/cpumask" &&
	echo config:0-63 > "$d/format/event" &&
	echo event=0x2 > "$d/events/cas_count_read" &&
	echo 6.103515625e-05 > "$d/events/cas_count_read.scale" &&
	echo MiB > "$d/events/cas_count_read.unit"
}
dram_counted() {
	fake_sysfs "$T/sys" &&
	YARDSTICK_SYSFS=$T/sys "$YS" run -q --no-store --runs 3 -e dram_bytes \
		--json "$T/dc.json" -- "$YSFIX" touch 16 &&
	py "m = load('$T/dc.json')['benchmarks'][0]['metrics']['dram_bytes']
assert m['unit'] == 'bytes', m
assert len(m['values']) == 3, m
for v in m['values']:
    assert v >= 64 * 4096 and v % 64 == 0, m['values']"
}
t "dram_bytes where the PMU is: bytes, 64 a count, system-wide" dram_counted
dram_refused() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "ok: not root, no one to drop to"
		return 0
	fi
	S=$(mktemp -d /tmp/ys-dram-XXXXXX) && chmod 755 "$S" &&
	fake_sysfs "$S/sys" && chmod -R a+rX "$S" &&
	YARDSTICK_SYSFS=$S/sys expect_exit 3 setpriv --reuid=nobody \
		--regid=nogroup --clear-groups "$YS" run --no-store --runs 1 \
		-e task-clock,dram_bytes -- "$YSFIX" exit 0
	r=$?
	rm -rf "$S"
	[ $r = 0 ] &&
	has "$T/stderr" "yardstick run: --events: dram_bytes: the memory controllers' events ('uncore_imc_0/cas_count_read/') count the whole system, which is not permitted: the sysctl kernel.perf_event_paranoid is" &&
	has "$T/stderr" "system-wide counting needs 0 or lower (sysctl -w kernel.perf_event_paranoid=0), or grant the capability CAP_PERFMON"
}
if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ]; then
	t "dram_bytes refused to a user: exit 3 naming the sysctl" dram_refused
else
	skip "dram_bytes refused to a user: exit 3 naming the sysctl" \
		"kernel.perf_event_paranoid is 0 or lower: nothing is refused"
fi
dram_default() {
	"$YS" run -q --no-store --runs 1 --json "$T/dd.json" -- "$YSFIX" exit 0 &&
	! grep -q dram_bytes "$T/dd.json"
}
t "dram_bytes is not in the default set (system-wide: only when named)" dram_default

finish
