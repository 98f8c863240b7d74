# yardstick load --find-max: the capacity of servers of designed
# capacity (2 workers of 10 ms: 200 requests/s; 1: 100/s) found within
# 10%, the objectives' syntax, errors ending the search with their
# reasons, an errors objective, --max-rate, SIGINT keeping the steps
# measured, the result's steps and max_throughput, and gate on
# max_throughput.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/httpfix.sh"

t "help names --find-max and --slo" sh -c '"$YS" load --help | grep -q -- "--find-max" && "$YS" load --help | grep -q -- "--slo OBJECTIVE"'

# Bad objectives and options: exit 2 before anything is sent, the
# offending text quoted.
bad() {
	msg=$1
	shift
	expect_exit 2 "$YS" load --no-store "$@" http://127.0.0.1:1/ &&
		has "$T/stderr" "$msg"
}
t "--slo 'p99<': exit 2, the duration asked for" bad "--slo: 'p99<': expected a duration after the comparison" --find-max --slo 'p99<'
t "--slo 'latency<50ms': the two forms named" bad "'latency<50ms': expected 'pQ<DURATION' (as in 'p99<50ms') or 'errors<P%'" --find-max --slo 'latency<50ms'
t "--slo 'p100<1s': the percentile's range" bad "'p100<1s': the percentile must be above 0 and below 100" --find-max --slo 'p100<1s'
t "--slo 'errors<1': the percentage asked for" bad "'errors<1': expected a percentage after the comparison" --find-max --slo 'errors<1'
t "--slo 'errors<0%': never holds, the way out named" bad "'errors<0%' can never hold: say 'errors<=0%'" --find-max --slo 'errors<0%'
t "--slo 'p99.9999999999<1s': the requests it needs, refused" bad "'p99.9999999999<1s': judging it needs 2705495170991 requests a step, more than 1000000" --find-max --slo 'p99.9999999999<1s'
t "--slo 'errors<0.00001%': the same" bad "'errors<0.00001%': judging it needs" --find-max --slo 'errors<0.00001%'
t "the second --slo bad: named" bad "--slo: 'p99<5 parsecs'" --find-max --slo 'p99<50ms' --slo 'p99<5 parsecs'
t "--find-max without --slo" bad "--find-max needs an objective, as in --slo 'p99<50ms'" --find-max
t "--slo without --find-max" bad "go with --find-max" --slo 'p99<50ms'
t "--find-max with --rate" bad "--find-max chooses each step's rate and length: drop --rate" --find-max --slo 'p99<50ms' -R 100
t "--max-rate below --start-rate" bad "--max-rate 10 is below --start-rate 20" --find-max --slo 'p99<50ms' --start-rate 20 --max-rate 10

# The designed capacity: 2 workers, each 10 ms a request, queued first
# come first served in virtual time (httpfix --workers): 200/s exactly,
# however late the machine wakes the server. p99<100ms is loose enough
# that the knee is at the capacity: below it nothing queues (p50 10 ms),
# above it the queue grows for the whole step. At the capacity itself
# (the 200/s step) the queue neither drains nor grows, so the jitter of a
# busy machine queues requests there and the median may rise 1.5x: the
# knee is then the step before, 100/s (a CI run saw p50 42 ms at 200/s),
# and that is right. Retried: a machine so
# busy that the client itself cannot send 200/s on time fails a step
# below the capacity; the bounds never widen.
fix cap --delay 10 --workers 2
capacity() {
	"$YS" load --find-max --slo 'p99<100ms' --start-rate 100 \
		--step-duration 2s --json "$T/cap.json" "$U_cap" \
		>"$T/cap.out" 2>"$T/cap.err" || { cat "$T/cap.out" "$T/cap.err"; return 1; }
	py "d = load('$T/cap.json')
steps = [b for b in d['benchmarks'] if ' @ ' in b['name']]
mx = bench(d, '$U_cap')['metrics']['max_throughput']
print(open('$T/cap.out').read())
assert len(mx['values']) == 1 and 180 <= mx['values'][0] <= 220, ('max throughput', mx['values'])
assert 100 <= mx['knee_rate'] <= 220, ('knee', mx['knee_rate'])
assert mx['bracket_low'] < mx['bracket_high'] <= mx['bracket_low'] * 1.05 + 1e-9, mx
for b in steps:
    p, tp = b['parameters'], b['metrics']['throughput']
    assert float(p['offered_rate']) == tp['target_rate'], (p, tp['target_rate'])
    if tp['target_rate'] <= 150: assert p['slo_met'] == 'yes', b['name']
    if tp['target_rate'] >= 260: assert p['slo_met'] == 'no', b['name']
    assert p['slo_met'] == 'no' or b['metrics']['latency']['p99'] < 0.1, b['name']
found = {b['parameters'].get('found') for b in steps} - {None}
assert found in ({'max', 'knee'}, {'max knee'}), found
assert d['settings']['search'] == 'find_max' and d['settings']['model'] == 'open'
assert d['settings']['slo'] == 'p99<100ms,errors<=0%', d['settings']['slo']"
}
t "capacity 200/s found within 10% (retried 3x)" retry capacity
t "... the table: offered, achieved, p50, p99, errors, verdict" sh -c 'grep -q "offered/s *achieved/s *p50 *p99 *errors *verdict" "$T/cap.out" && grep -q "fail: p99<100ms: " "$T/cap.out" && grep -q "^  max throughput" "$T/cap.out" && grep -q "^  knee" "$T/cap.out"'
t "... saved in the store: history follows max_throughput" sh -c '"$YS" history --metric max_throughput | grep -q "127.0.0.1"'

# The class, not the case: another designed capacity, 1 worker of 10 ms
# (100/s), found within 10% too.
fix cap1 --delay 10 --workers 1
capacity1() {
	"$YS" load --no-store --find-max --slo 'p99<100ms' --start-rate 100 \
		--json "$T/cap1.json" "$U_cap1" >"$T/cap1.out" 2>&1 ||
		{ cat "$T/cap1.out"; return 1; }
	py "d = load('$T/cap1.json')
print(open('$T/cap1.out').read())
v = bench(d, '$U_cap1')['metrics']['max_throughput']['values'][0]
assert 90 <= v <= 110, ('max throughput', v)"
}
t "capacity 100/s (1 worker) found within 10% (retried 3x)" retry capacity1
unfix cap1

# gate on max_throughput like any metric: the result against itself
# passes, against a copy whose steps are those of another search (other
# rates: no step has the metric, none is a check) and whose max
# throughput is 15% lower fails.
py "d = load('$T/cap.json')
for b in d['benchmarks']: b['name'] = b['name'].replace('/s', '.0/s')
b = bench(d, '$U_cap'); m = b['metrics']['max_throughput']
m['values'] = [v * 0.85 for v in m['values']]
for k in list(m):
    if k not in ('unit', 'values'): del m[k]
json.dump(d, open('$T/less.json', 'w'))"
t "gate --max-decrease max_throughput=10%: the same result passes" expect_exit 0 "$YS" gate --baseline "$T/cap.json" --max-decrease max_throughput=10% "$T/cap.json"
t "... 15% less fails" expect_exit 1 "$YS" gate --baseline "$T/cap.json" --max-decrease max_throughput=10% "$T/less.json"
t "... naming max_throughput, the one check" sh -c 'grep -q "^FAIL .*max decrease max_throughput=10%" "$T/stdout" && [ "$(grep -c "max_throughput" "$T/stdout")" -le 2 ] || { cat "$T/stdout"; exit 1; }'
t "... 5% less passes" sh -c 'python3 -c "
import json; d = json.load(open(\"$T/less.json\"))
for b in d[\"benchmarks\"]:
    m = b[\"metrics\"].get(\"max_throughput\")
    if m: m[\"values\"] = [v / 0.85 * 0.95 for v in m[\"values\"]]
json.dump(d, open(\"$T/less5.json\", \"w\"))" && "$YS" gate --baseline "$T/cap.json" --max-decrease max_throughput=10% "$T/less5.json"'
# One rate's steps of two searches are the same benchmark, however they
# came out: slo_met, holds and found say how, not what was measured
# (before, a step found 'max' in one search and 'max knee' in another
# was missing from gate's checks).
py "d = load('$T/cap.json')
for b in d['benchmarks']:
    p = b.get('parameters', {})
    if 'offered_rate' in p:
        p['found'] = 'knee'; p['holds'] = '3'; p['slo_met'] = 'no' if p['slo_met'] == 'yes' else 'yes'
json.dump(d, open('$T/other.json', 'w'))"
t "gate: a rate's steps of two searches meet, whatever slo_met, holds and found say" sh -c '
	"$YS" gate --baseline "$T/cap.json" --max-increase latency.p99=10000% "$T/other.json" >"$T/g.out" 2>&1 &&
	! grep -qi "missing" "$T/g.out" && grep -q "@ 200/s" "$T/g.out" || { cat "$T/g.out"; exit 1; }'
unfix cap

# A server that resets every third connection's request: the first step
# fails on its errors, the search ends with them named (exit 1), the
# step is kept.
fix rst --reset-every 3
t "resets: exit 1" expect_exit 1 "$YS" load --find-max --slo 'p99<1s' --start-rate 50 --step-duration 0.5s --json "$T/rst.json" "$U_rst"
t "... no rate met, the reset named" sh -c 'grep -q "no rate met the objectives: the first step, 50/s, did not meet the objectives (errors<=0%: .*read [0-9]*: .*reset" "$T/stderr" || { cat "$T/stderr"; exit 1; }'
t "... the step kept in the result" py "d = load('$T/rst.json')
assert [b['name'] for b in d['benchmarks']] == ['$U_rst @ 50/s'], d['benchmarks']
e = d['benchmarks'][0]['metrics']['errors']; assert e['read'] >= 1, e
assert d['benchmarks'][0]['parameters']['slo_met'] == 'no'"
# An errors objective lets a server failing 2% of its requests pass,
# up to --max-rate.
fix f2 --fail-every 50
t "errors<10% with 2% of 503: passes to --max-rate (exit 0)" expect_exit 0 "$YS" load --no-store --find-max --slo 'p50<1s' --slo 'errors<10%' --start-rate 50 --max-rate 100 --step-duration 1s --step-requests 50 --json "$T/f2.json" "$U_f2"
t "... two steps, both passed, a warning that the cap was met" py "d = load('$T/f2.json')
steps = [b for b in d['benchmarks'] if ' @ ' in b['name']]
assert [b['metrics']['throughput']['target_rate'] for b in steps] == [50, 100], steps
assert all(b['parameters']['slo_met'] == 'yes' for b in steps)
assert any('--max-rate 100/s was met' in w for w in bench(d, '$U_f2')['warnings'])"
t "the same without an errors objective: the 503s fail it" sh -c '"$YS" load --no-store --find-max --slo "p50<1s" --start-rate 50 --step-duration 1s "$U_f2" >"$T/f2b.out" 2>&1; [ $? -eq 1 ] && grep -q "status 503" "$T/f2b.out" || { cat "$T/f2b.out"; exit 1; }'
unfix f2
unfix rst

# A step whose errors already fail it, whatever the rest of its requests
# would do, ends at once (before, a port where nothing listens held the
# first step for its 268 requests at 10/s: 33 s). Nothing listens on
# port 1: the first refused connection decides errors<=0%.
refused() {
	s=$(date +%s)
	"$YS" load --no-store --find-max --slo 'p99<100ms' \
		--json "$T/ref.json" http://127.0.0.1:1/ >"$T/ref.out" 2>&1
	rc=$? el=$(( $(date +%s) - s ))
	cat "$T/ref.out"
	[ $rc -eq 1 ] && [ $el -le 15 ] || { echo "exit $rc after $el s"; return 1; }
	grep -q "^ *10 *0 .* fail \[decided after [0-9.]* s\]: errors<=0%: 100% errors ([0-9]* of [0-9]*); connect [0-9]*: connection refused" "$T/ref.out" &&
	py "d = load('$T/ref.json')
st = [b for b in d['benchmarks'] if ' @ ' in b['name']]
assert len(st) == 1 and st[0]['parameters']['slo_met'] == 'no', st
e = st[0]['metrics']['errors']
assert 1 <= e['requests'] == e['connect'] < 268, e
assert st[0]['parameters']['holds'] == '1', st[0]['parameters']"
}
t "find-max against a refused port: the first step decided at once, exit 1" refused
# errors<10% against a server answering 500 to all: at 100/s a step
# (3.35 s) and its 2 holds again end at most 3 x 336 requests, so the
# 101st error decides it (about 1 s); the verdict the full step's: fail.
fix s500 --status 500
all500() {
	"$YS" load --no-store --find-max --slo 'p99<100ms' --slo 'errors<10%' \
		--start-rate 100 --json "$T/500.json" "$U_s500" >"$T/500.out" 2>&1
	rc=$?
	cat "$T/500.out"
	[ $rc -eq 1 ] && grep -q "fail \[decided after [0-9.]* s\]: errors<10%: 100% errors ([0-9]* of [0-9]*); status 500: [0-9]*" "$T/500.out" &&
	py "d = load('$T/500.json')
st = [b for b in d['benchmarks'] if ' @ ' in b['name']]
assert len(st) == 1 and st[0]['parameters']['slo_met'] == 'no', st
e = st[0]['metrics']['errors']
assert 101 <= e['requests'] == e['status_500'] < 336, e
assert st[0]['metrics']['throughput']['elapsed'] < 3.0, st[0]['metrics']['throughput']"
}
t "find-max, errors<10%, every response 500: decided by the 101st error" all500
unfix s500

# SIGINT in the second step: exit 130, the first step and the cut one
# kept, the result partial, the first step's max throughput in it; the
# cut one's row says it is not counted (before: "pass (unsure) ...
# [cut short]", which read like a pass).
fix intr --delay 1 --log "$T/intr.log"
t "SIGINT during a search: exit 130, the steps so far kept" sh -c '
	"$YS" load --find-max --slo "p50<1s" --start-rate 50 --step-duration 1s --step-requests 10 --json "$T/i.json" "$U_intr" >"$T/i.out" 2>"$T/i.err" &
	pid=$!; i=0
	while [ "$(grep -c "^--\$" "$T/intr.log" 2>/dev/null)" -lt 70 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	kill -INT $pid; wait $pid; rc=$?
	[ $rc -eq 130 ] || { echo "exit $rc"; cat "$T/i.err"; exit 1; }
	grep -q "interrupted: what was measured so far is kept" "$T/i.err" &&
	grep -q "^ *100 .*  not counted: cut short by a stop\$" "$T/i.out" &&
	! grep -q "pass.*cut short" "$T/i.out" &&
	python3 -c "
import json; d = json.load(open(\"$T/i.json\"))
names = [b[\"name\"] for b in d[\"benchmarks\"]]
assert names[:2] == [\"$U_intr @ 50/s\", \"$U_intr @ 100/s\"], names
assert names[-1] == \"$U_intr\" and d[\"settings\"][\"partial\"], (names, d[\"settings\"])
assert 40 <= d[\"benchmarks\"][-1][\"metrics\"][\"max_throughput\"][\"values\"][0] <= 55
"'
t "... and stored" sh -c '"$YS" history --metric max_throughput | grep -q "127.0.0.1"'
unfix intr

# The slowest requests of a step are those still unanswered when it
# ends: a server that holds every response due from 1.83 s to 2.33 s
# after its first request, in a 2 s step at 200/s, answers all the
# others at once. The ~15 requests sent from 1.83 s to 1.9 s have waited
# over 100 ms when the step ends (4% of it, 1% allowed): it fails, though
# every response it got was fast (the answered ones' p99 is under 100
# ms). Before, such requests were not counted at all and the step
# passed.
fix stall --stall-after 1830 --stall-for 500
t "requests unanswered at a step's end count against a latency objective" sh -c '
	"$YS" load --no-store --find-max --slo "p99<100ms" --start-rate 200 --max-rate 200 "$U_stall" >"$T/st.out" 2>&1
	[ $? -eq 1 ] && grep -q "p99<100ms: p99 .*, but .*% over the limit with the [0-9]* unanswered" "$T/st.out" || { cat "$T/st.out"; exit 1; }'
unfix stall
# Timeouts are slower than any limit under the timeout: 300 ms of stall
# at 100/s with --timeout 55ms times out ~24 requests of ~600 (4%), which
# an errors objective of 10% allows, but p99<50ms does not.
# (measured again, on a new server: its stall is once, from its first
# request, when the answered requests' own p99 went over 50 ms: a
# machine too busy to tell, as beside two test suites on 2 CPUs)
timeouts_count() {
	fix stall2 --stall-after 1000 --stall-for 300
	"$YS" load --no-store --find-max --slo "p99<50ms" --slo "errors<10%" --timeout 55ms --start-rate 100 --max-rate 100 --step-duration 3s "$U_stall2" >"$T/st2.out" 2>&1
	rc=$?
	unfix stall2
	[ $rc -eq 1 ] && grep -q "p99<50ms: p99 .*, but .*% over the limit with the [0-9]* unanswered" "$T/st2.out" || { sed 's/^/# /' "$T/st2.out"; return 1; }
}
t "timed-out requests count against a latency limit under the timeout" retry timeouts_count

finish
