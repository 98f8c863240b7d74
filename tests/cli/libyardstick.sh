#!/bin/sh
# libyardstick (include/yardstick.h, src/lib): benchmark programs with a
# known truth (tests/lib/*.c) and their command line, JSON and Google
# Benchmark JSON. Timing checks take the median over epochs and, when a
# run was disturbed (a busy machine), measure again (up to 3 times); the
# tolerances never widen.
. "$(dirname "$0")/lib.sh"
P=${YSB_PROOF:?}


list_names() {
	"$P" --list >"$T/list" || return 1
	cat >"$T/want" <<'LIST'
chain [L=50]
chain [L=100]
chain [L=150]
chain [L=200]
chain [L=250]
chain [L=300]
chain [L=350]
chain [L=400]
chain_cal
one
two
empty
alloc3
alloc_mix
setup
threads
work
LIST
	diff "$T/want" "$T/list"
}
t "--list prints every benchmark, parameters in the name" list_names

filter_json() {
	"$P" --filter '^chain \[L=(50|100)\]$' --epochs 3 --json "$T/f.json" \
		>"$T/f.out" 2>&1 || return 1
	py "d = load('$T/f.json')
names = [b['name'] for b in d['benchmarks']]
assert names == ['chain [L=50]', 'chain [L=100]'], names
for b in d['benchmarks']:
    assert list(b['parameters']) == ['L'], b['parameters']
    assert len(b['metrics']['time_per_op']['values']) == 3"
}
t "--filter REGEX keeps the matching benchmarks (parameters in the name)" filter_json

usage_errors() {
	expect_exit 2 "$P" --filter '(' && has "$T/stderr" "--filter: '('" &&
	expect_exit 2 "$P" --nope && has "$T/stderr" "unknown option '--nope'" &&
	expect_exit 2 "$P" --epochs 0 && has "$T/stderr" "--epochs: '0'" &&
	expect_exit 2 "$P" --epochs && has "$T/stderr" "--epochs: needs a value" &&
	expect_exit 2 "$P" --min-time 5x && has "$T/stderr" "--min-time: '5x'" &&
	expect_exit 2 "$P" --json= && has "$T/stderr" "--json: an empty value" &&
	expect_exit 2 "$P" --clock sundial && has "$T/stderr" "--clock: 'sundial'" &&
	expect_exit 2 "$P" --list=yes && has "$T/stderr" "--list: takes no value" &&
	expect_exit 2 "$P" stray && has "$T/stderr" "'stray': not an option" &&
	expect_exit 2 "$P" --filter nothing-matches &&
	has "$T/stderr" "no benchmark matches --filter 'nothing-matches'" &&
	expect_exit 2 "$P" --json "$T/no/such/dir/x.json" &&
	has "$T/stderr" "$T/no/such/dir/x.json" &&
	expect_exit 2 "$P" --json - --gbench-json - &&
	has "$T/stderr" "--json and --gbench-json both name '-'" &&
	expect_exit 0 "$P" --help && has "$T/stdout" "--gbench-json FILE" &&
	has "$T/stdout" "usage: ysbench_proof [OPTIONS]" &&
	has "$T/stdout" "--epochs N          measured epochs per benchmark (default 11" &&
	expect_exit 2 "$P" --epochs 100001 && has "$T/stderr" "--epochs: '100001'" &&
	expect_exit 2 "$P" --min-time 2d && has "$T/stderr" "--min-time: '2d'" &&
	expect_exit 2 "$P" --seed -1 && has "$T/stderr" "--seed: '-1'"
}
t "bad usage: exit 2 naming the option" usage_errors

badspec() {
	expect_exit 2 "$YSB_BADSPEC" &&
	has "$T/stderr" "benchmark 'bad' (" &&
	has "$T/stderr" "badspec.c:11): n: '10:1' is not START:END"
}
t "a bad registration spec: exit 2 naming the benchmark, file and line" badspec

noloop() {
	expect_exit 1 "$YSB_NOLOOP" --epochs 3 --json "$T/nl.json" \
		--gbench-json "$T/nl.gbench.json" &&
	py "d = load('$T/nl.json')
b = {x['name']: x for x in d['benchmarks']}
assert 'time_per_op' in b['ok']['metrics']
for n, msg in [('noloop', 'did not run YS_LOOP'),
               ('break', 'left YS_LOOP early'),
               ('fail', 'input file missing'),
               ('badwork', 'ys_set_flops(-1): the work of an iteration is a finite number'),
               ('infwork', 'ys_set_flops(inf): the work')]:
    assert b[n]['metrics'] == {}, b[n]
    assert any(msg in w for w in b[n]['warnings']), b[n]['warnings']
g = load('$T/nl.gbench.json')
e = [x for x in g['benchmarks'] if x['name'] == 'noloop']
assert len(e) == 1 and e[0]['error_occurred'] is True, e
assert 'did not run YS_LOOP' in e[0]['error_message']" &&
	"$YS" compare --json "$T/nlc.json" "$T/nl.gbench.json" \
		"$T/nl.gbench.json" >"$T/nlc.out" 2>&1 &&
	py "d = load('$T/nlc.json')
assert 'ok' in {c['benchmark'] for c in d['comparisons']}, d"
}
t "a body without YS_LOOP, a break out of it, ys_fail: failed, the others measured, exit 1" noloop

# One run of most of the program, read by the checks below.
"$P" --filter '^(one|two|empty|alloc3|alloc_mix|setup|threads|work)$' \
	--epochs 7 --json "$T/p.json" --gbench-json "$T/g.json" \
	>"$T/p.out" 2>"$T/p.err"
prc=$?

schema() {
	[ $prc = 0 ] || { cat "$T/p.err"; return 1; }
	py "d = load('$T/p.json')
assert d['schema'] == 'yardstick/result/v1' and d['kind'] == 'bench'
s = d['settings']
for k in ['clock', 'clock_resolution', 'loop_overhead',
          'loop_cost_per_iteration', 'epoch_target', 'epochs', 'min_time',
          'seed', 'bootstrap_resamples', 'alpha']:
    assert k in s, k
assert s['clock'] == 'monotonic' and s['epochs'] == 7
assert 0 < s['clock_resolution'] < 1e-5, s
assert 0 < s['loop_overhead'] < 1e-4, s
for b in d['benchmarks']:
    assert b['command'] == ['$P', '--filter', '^(one|two|empty|alloc3|alloc_mix|setup|threads|work)\$', '--epochs', '7', '--json', '$T/p.json', '--gbench-json', '$T/g.json'], b['command']
    m = b['metrics']
    assert m['time_per_op']['unit'] == 's'
    assert len(m['time_per_op']['values']) == 7, b['name']
    assert m['time_per_op']['n'] == 7
    assert len(m['iterations']['values']) == 7
    assert all(v >= 1 for v in m['iterations']['values'])"
}
t "--json: result v1 kind bench, every epoch's time per iteration, the settings" schema

# ratio FILE OUT: the group's comparison in the result FILE and the table
# OUT. What the library claims is its interval: it holds the estimate,
# is no wider than 1.5:1, says slower, and reaches within 5% of the
# designed 2.0; the estimate is within 0.25 of 2.0 (0.1 was too tight
# for a loaded machine: two suites on two cores gave 2.15 in [1.99, 2.75]
# in CI, three times over). Not 2.0 inside it: the two loops are
# compiled apart, and their steps' latencies differ by up to 1% on a
# quiet machine (the sanitized build: 1.98 in [1.965, 1.994], chain_cal's
# step between the two), more under load (1.92-1.95 in intervals
# 0.01-0.02 wide, in the clean clone's run beside the other suite). The
# sentence prints the estimate and the interval.
ratio() {
	py "d = load('$1')
c = [c for c in d['comparisons'] if c['baseline'] == 'one']
assert len(c) == 1, d['comparisons']
c = c[0]
lo, hi = c['ratio_ci']
assert c['candidate'] == 'two' and c['metric'] == 'time_per_op', c
assert lo <= c['ratio'] <= hi and lo <= 2.0 * 1.05 and hi >= 2.0 * 0.95, c
assert abs(c['ratio'] - 2.0) <= 0.25 and hi / lo <= 1.5, c
assert c['verdict'] == 'slower', c
open('$T/ratio.txt', 'w').write('%.2f× slower than \\'one\\' [%.2f, %.2f]'
                               % (c['ratio'], lo, hi))" &&
	has "$2" "'two' is $(cat "$T/ratio.txt")"
}
# measured again into files of its own (the checks below read p.json)
remeasure_ratio() {
	"$P" --filter '^(one|two)$' --json "$T/r.json" >"$T/r.out" 2>&1 &&
	ratio "$T/r.json" "$T/r.out"
}
# the first try reads the run above; a retry measures the group again
ratio_try() {
	if [ -z "${ratio_tried:-}" ]; then
		ratio_tried=1
		ratio "$T/p.json" "$T/p.out" && return 0
	fi
	remeasure_ratio
}
t "a group: two variants of 2:1 cost: an interval within 5% of 2.0, the estimate within it and 0.25 of 2.0" retry ratio_try

empty_check() {
	py "d = load('$1')
b = bench(d, 'empty')
assert med(b, 'time_per_op') <= 0.5e-9, med(b, 'time_per_op')"
}
remeasure_empty() {
	"$P" --filter '^empty$' --json "$T/e.json" >/dev/null 2>&1 &&
	empty_check "$T/e.json"
}
t "an empty body: at most 0.5 ns" retry remeasure_empty

alloc_check() {
	py "d = load('$1')
want = {'alloc3': (3, 192, 3), 'alloc_mix': (4, 212, 3),
        'setup': (0, 0, 0), 'one': (0, 0, 0)}
for name, (n, by, fr) in want.items():
    b = bench(d, name)
    m = b['metrics']
    assert m['allocs_per_op']['values'] == [n] * 7, (name, m['allocs_per_op']['values'])
    assert m['alloc_bytes_per_op']['values'] == [by] * 7, (name, m['alloc_bytes_per_op']['values'])
    assert m['frees_per_op']['values'] == [fr] * 7, (name, m['frees_per_op']['values'])
    assert m['alloc_bytes_per_op']['unit'] == 'bytes'"
}
t "allocations per iteration, exactly: 3 x 64 B is 3 and 192 B; calloc, realloc, the aligned ones; setup not counted" \
	alloc_check "$T/p.json"

alloc_shared() {
	"$YSB_PROOF_SHARED" --filter '^(alloc3|alloc_mix|setup|one)$' \
		--epochs 7 --json "$T/s.json" >/dev/null 2>&1 &&
	alloc_check "$T/s.json"
}
t "allocations counted with the shared library too (libyardstick_alloc in the executable, before a sanitizer's malloc)" alloc_shared

# Issue 25: linking libyardstick leaves the program's allocator alone;
# only libyardstick_alloc counts. Without it every allocation function
# the program calls is the C library's (a sanitizer's runtime's in
# build-san), never the program's own nor libyardstick's; the setting says
# how to count, the metrics are unsupported (not 0), in both outputs.
who_uncounted() {
	"$1" --where >"$T/where" || return 1
	[ "$(wc -l <"$T/where")" -eq 10 ] || return 1
	while read -r fn file; do
		case $file in
		*libyardstick* | *whomalloc*) echo "$fn: $file"; return 1 ;;
		esac
		if ! san_build; then
			case $file in
			*/libc.so.6) ;;
			*) echo "$fn: $file"; return 1 ;;
			esac
		fi
	done <"$T/where"
	ASAN_OPTIONS=${ASAN_OPTIONS:-}:allocator_may_return_null=1 \
	"$1" --epochs 3 --json "$T/w.json" --gbench-json "$T/wg.json" \
		>"$T/w.out" 2>/dev/null || return 1
	grep -q "^m64 .* -  *3$" "$T/w.out" || { cat "$T/w.out"; return 1; }
	py "d = load('$T/w.json')
assert d['settings']['allocations'] == 'not counted (link -lyardstick_alloc)', d['settings']
b = bench(d, 'm64')
for k in ['allocs_per_op', 'alloc_bytes_per_op', 'frees_per_op']:
    assert k in b['unsupported'] and k not in b['metrics'], b
g = load('$T/wg.json')
for e in g['benchmarks']:
    assert 'allocs_per_op' not in e and 'frees_per_op' not in e, e"
}
t "linked with static libyardstick but not libyardstick_alloc: malloc & co. are the C library's, nothing counted" \
	who_uncounted "$YSB_WHO_STATIC"
t "linked with shared libyardstick but not libyardstick_alloc: malloc & co. are the C library's, nothing counted" \
	who_uncounted "$YSB_WHO_SHARED"

who_counted() {
	"$1" --where >"$T/where" || return 1
	[ "$(wc -l <"$T/where")" -eq 10 ] &&
	! grep -v " .*ysbench_whomalloc_" "$T/where" || return 1
	"$1" --filter '^m64$' --epochs 5 --json "$T/w.json" >/dev/null 2>&1 &&
	py "d = load('$T/w.json')
assert d['settings']['allocations'] == 'counted', d['settings']
m = bench(d, 'm64')['metrics']
assert m['allocs_per_op']['values'] == [1] * 5, m['allocs_per_op']
assert m['alloc_bytes_per_op']['values'] == [64] * 5, m['alloc_bytes_per_op']
assert m['frees_per_op']['values'] == [1] * 5, m['frees_per_op']"
}
# The class: 400 calls of every entry point (failures, realloc to 0,
# free(NULL) among them), counted by the library and, from the calls' own
# results, by the program (--truth): the same numbers, every epoch.
who_mix() {
	ASAN_OPTIONS=${ASAN_OPTIONS:-}:allocator_may_return_null=1 \
	"$1" --truth >"$T/truth" 2>/dev/null &&
	ASAN_OPTIONS=${ASAN_OPTIONS:-}:allocator_may_return_null=1 \
	"$1" --filter '^mix$' --epochs 5 --json "$T/mix.json" >/dev/null 2>&1 &&
	py "a, by, fr = map(int, open('$T/truth').read().split())
assert a > 200 and fr > 200 and by > 100000, (a, by, fr)
m = bench(load('$T/mix.json'), 'mix')['metrics']
assert m['allocs_per_op']['values'] == [a] * 5, (a, m['allocs_per_op'])
assert m['alloc_bytes_per_op']['values'] == [by] * 5, (by, m['alloc_bytes_per_op'])
assert m['frees_per_op']['values'] == [fr] * 5, (fr, m['frees_per_op'])"
}
t "400 calls of every allocation entry point: counted as the calls' own results say (static libyardstick)" \
	who_mix "$YSB_WHO_STATIC_COUNTED"
t "400 calls of every allocation entry point: counted as the calls' own results say (shared libyardstick)" \
	who_mix "$YSB_WHO_SHARED_COUNTED"
t "with libyardstick_alloc (static libyardstick): malloc & co. are the program's, 1 allocation of 64 B and 1 free an iteration" \
	who_counted "$YSB_WHO_STATIC_COUNTED"
t "with libyardstick_alloc (shared libyardstick): malloc & co. are the program's, 1 allocation of 64 B and 1 free an iteration" \
	who_counted "$YSB_WHO_SHARED_COUNTED"

work() {
	py "d = load('$T/p.json')
b = bench(d, 'work')
m = b['metrics']
t = m['time_per_op']['values']
for k, per in [('items_per_second', 256), ('bytes_per_second', 4096),
               ('flops_per_second', 512)]:
    v = m[k]['values']
    assert len(v) == 7
    for a, b2 in zip(v, t):
        assert abs(a - per / b2) <= 1e-9 * a, (k, a, per / b2)
assert m['arithmetic_intensity']['values'] == [0.125] * 7
assert m['arithmetic_intensity']['unit'] == 'flop/byte'
assert m['flops_per_second']['unit'] == 'flop/s'
assert 'items_per_second' not in bench(d, 'one')['metrics']"
}
t "declared work: items/s, bytes/s, flop/s and arithmetic intensity per epoch" work

threads() {
	py "d = load('$T/p.json')
b = bench(d, 'threads')
assert b['parameters'] == {'threads': '2'}, b['parameters']
m = b['metrics']
for a, t in zip(m['items_per_second']['values'], m['time_per_op']['values']):
    assert abs(a - 2 / t) <= 1e-9 * a
assert b['warnings'] == [] or all('failed' not in w for w in b['warnings'])"
}
t "threads=2: both threads run the body; aggregate throughput = 2 / time per op" threads

counters() {
	py "d = load('$T/p.json')
names = ['task_clock', 'cycles', 'instructions', 'branches', 'branch_misses',
         'cache_references', 'cache_misses']
for b in d['benchmarks']:
    for n in names:
        assert (n in b['metrics']) != (n in b['unsupported']), (b['name'], n)
        if n in b['metrics']:
            assert len(b['metrics'][n]['values']) == 7
            assert b['metrics'][n]['unit'] == ('s' if n == 'task_clock' else 'count')
    if 'cycles' in b['metrics'] and b['name'] != 'empty':
        assert b['metrics']['cycles']['median'] > 0"
}
t "perf counters per iteration: counted ones are metrics, the others named unsupported, never 0" counters

noperf() {
	"$YSB_NOPERF" "$P" --filter '^one$' --epochs 3 --json "$T/np.json" \
		>/dev/null 2>"$T/np.err" || { cat "$T/np.err"; return 1; }
	py "b = bench(load('$T/np.json'), 'one')
names = ['task_clock', 'cycles', 'instructions', 'branches', 'branch_misses',
         'cache_references', 'cache_misses']
for n in names:
    assert n in b['unsupported'] and n not in b['metrics'], (n, b)
assert any('no perf counters' in w and 'perf_event_paranoid' in w
           for w in b['warnings']), b['warnings']
assert 'time_per_op' in b['metrics']" &&
	"$YSB_NOPERF" "$P" --filter '^one$' --epochs 3 --no-counters \
		--json "$T/np2.json" >/dev/null 2>&1 &&
	py "b = bench(load('$T/np2.json'), 'one')
assert not any('perf' in w for w in b['warnings']), b['warnings']"
}
t "perf refused: every counter named unsupported with a warning saying why, the times still measured" noperf

gbench() {
	py "d = load('$T/g.json')
r = load('$T/p.json')
for k in ['date', 'host_name', 'executable', 'num_cpus', 'mhz_per_cpu',
          'cpu_scaling_enabled', 'caches', 'library_build_type']:
    assert k in d['context'], k
it = [e for e in d['benchmarks'] if e['run_type'] == 'iteration']
ag = [e for e in d['benchmarks'] if e['run_type'] == 'aggregate']
for b in r['benchmarks']:
    mine = [e for e in it if e['run_name'] == b['name']]
    assert len(mine) == 7, (b['name'], len(mine))
    assert [e['repetition_index'] for e in mine] == list(range(7))
    for e, v, n in zip(mine, b['metrics']['time_per_op']['values'],
                       b['metrics']['iterations']['values']):
        assert e['time_unit'] == 'ns' and e['name'] == b['name']
        assert abs(e['real_time'] - v * 1e9) <= 1e-9 * max(1, e['real_time'])
        assert e['iterations'] == n and e['repetitions'] == 7
    aggs = sorted(e['aggregate_name'] for e in ag if e['run_name'] == b['name'])
    assert aggs == ['cv', 'mean', 'median', 'stddev'], aggs
w = [e for e in it if e['name'] == 'work'][0]
assert 'bytes_per_second' in w and 'items_per_second' in w
# one thread: cpu_time never above real_time (the task clock runs apart
# from CLOCK_MONOTONIC, and is read a read() outside the timed region)
one = [e for e in d['benchmarks'] if e['threads'] == 1 and e['run_type'] == 'iteration']
assert len(one) >= 40, len(one)
over = [(e['name'], e['cpu_time'], e['real_time']) for e in one if e['cpu_time'] > e['real_time']]
assert not over, over
for e in d['benchmarks']:
    if e['threads'] == 1 and e.get('aggregate_name') in ('mean', 'median'):
        assert e['cpu_time'] <= e['real_time'] * (1 + 1e-12), e" &&
	"$YS" compare --json "$T/c.json" "$T/g.json" "$T/g.json" >"$T/c.out" 2>&1 &&
	py "d = load('$T/c.json')
names = {c['benchmark'] for c in d['comparisons']}
assert {'alloc3', 'work', 'one', 'two'} <= names, names
w = [c for c in d['comparisons'] if c['benchmark'] == 'work' and c['metric'] == 'wall_time']
assert w and w[0]['baseline']['median'] > 0, w" &&
	"$YS" compare "$T/p.json" "$T/p.json" >"$T/c2.out" 2>&1 &&
	has "$T/c2.out" "alloc3"
}
t "--gbench-json: Google Benchmark's JSON (every epoch a repetition, the aggregates), read back by yardstick compare" gbench

env_json() {
	YARDSTICK_BENCH_JSON=$T/env.json "$P" --filter '^one$' --epochs 3 \
		>/dev/null 2>&1 &&
	py "assert [b['name'] for b in load('$T/env.json')['benchmarks']] == ['one']" &&
	"$P" --filter '^two$' --epochs 3 --json /dev/fd/3 3>"$T/fd.json" \
		>/dev/null 2>&1 &&
	py "assert [b['name'] for b in load('$T/fd.json')['benchmarks']] == ['two']" &&
	{ "$P" --filter '^one$' --epochs 3 --json /dev/fd/3 3>&1 >/dev/null \
		2>&1; } | python3 -c "import json, sys
assert json.load(sys.stdin)['benchmarks'][0]['name'] == 'one'" &&
	"$P" --filter '^two$' --epochs 3 --json - >"$T/stdout.json" 2>"$T/tab" &&
	py "assert load('$T/stdout.json')['kind'] == 'bench'" &&
	has "$T/tab" "time/op"
}
t "YARDSTICK_BENCH_JSON, --json /dev/fd/N (a file, a pipe) and --json - (the table then on stderr)" env_json

table() {
	has "$T/p.out" "time/op" && has "$T/p.out" "alloc3" &&
	! grep -q "$(printf '\r')" "$T/p.err" &&
	has "$T/p.err" "warning: 'empty': the body took no measurable time"
}
t "the table on stdout; no progress line off a terminal; warnings on stderr" table

few_epochs() {
	"$P" --filter '^one$' --epochs 3 --json "$T/few.json" >/dev/null 2>&1 &&
	py "b = bench(load('$T/few.json'), 'one')
assert any('only 3 epochs' in w and '--epochs' in w for w in b['warnings']), b['warnings']"
}
t "too few epochs: a warning saying what to do" few_epochs

# The dependent chain: time per iteration against L, least squares. On a
# loaded machine each benchmark's epochs scatter, and the slope with
# them: the tolerance is 3% plus three standard errors of the slope and
# of the step, each from its own epochs' spread (1.4826 x MAD / sqrt(n),
# the median's scale), never less. The residuals do not widen it, so a
# chain that is not linear still fails.
# The step is measured before the series and after it (this host's speed
# has moved by 2x within a minute: 2.66 ns a step, then a slope of 1.42
# ns): when the two differ by more than their tolerance, the host changed
# speed in between and the try is measured again (up to 5 tries); else
# the step is their mean and the tolerance widened by half their
# difference.
linear_try() {
	"$P" --filter '^chain_cal$' --json "$T/chain0.json" >/dev/null 2>&1 &&
	"$P" --filter '^chain' --json "$T/chain.json" >/dev/null 2>&1 ||
		return 2
	py "import math, sys
def se(b):
    v = sorted(b['metrics']['time_per_op']['values'])
    m = v[len(v) // 2]
    mad = sorted(abs(x - m) for x in v)[len(v) // 2]
    return 1.2533 * 1.4826 * mad / math.sqrt(len(v))
d = load('$T/chain.json')
cals = [bench(load('$T/chain0.json'), 'chain_cal'), bench(d, 'chain_cal')]
c = [med(b, 'time_per_op') / 20000 for b in cals]
c_se = [se(b) / 20000 for b in cals]
shift = abs(c[1] / c[0] - 1)
if shift > 0.03 + 3 * math.hypot(c_se[0] / c[0], c_se[1] / c[1]):
    print('# the step moved from %.4g to %.4g ns across the series' % (c[0] * 1e9, c[1] * 1e9))
    sys.exit(3)
cal = (c[0] + c[1]) / 2
cal_se = math.hypot(c_se[0], c_se[1]) / 2
bs = [b for b in d['benchmarks'] if b['name'].startswith('chain [')]
pts = [(int(b['parameters']['L']), med(b, 'time_per_op'), se(b)) for b in bs]
n = len(pts)
mx = sum(x for x, _, _ in pts) / n
my = sum(y for _, y, _ in pts) / n
sxx = sum((x - mx) ** 2 for x, _, _ in pts)
slope = sum((x - mx) * (y - my) for x, y, _ in pts) / sxx
icpt = my - slope * mx
slope_se = math.sqrt(sum(((x - mx) * e) ** 2 for x, _, e in pts)) / sxx
tol = 0.03 + 3 * math.hypot(slope_se / slope, cal_se / cal) + shift / 2
print('# step %.4g ns (%.4g, %.4g), slope %.4g ns, intercept %.3g ns, tolerance %.2f%%' % (cal * 1e9, c[0] * 1e9, c[1] * 1e9, slope * 1e9, icpt * 1e9, 100 * tol))
assert abs(slope / cal - 1) <= tol, (slope, cal, tol)
# ~0: a slope off by tol moves the intercept by tol of the mean time
# (the least-squares line goes through the mean point), so that is its
# bound: under it, a fixed cost of an iteration shows
assert abs(icpt) <= tol * my, (icpt, cal, pts, tol)
f = [f for f in d['complexity'] if f['name'] == 'chain']
assert len(f) == 1 and f[0]['parameter'] == 'L', d['complexity']
fits = {x['model']: x for x in f[0]['fits']}
# O(n); or, on a busy machine, O(n log n) by a hair: over L = 50..400 the
# two differ by less than the epochs' noise, and the fit picks the higher
# R^2 (src/stats/fit.c), so O(n) must then be as good to 1e-3 and its
# coefficient the step
assert f[0]['best'] == 'O(n)' or (f[0]['best'] == 'O(n log n)' and
    fits['O(n)']['r2'] >= f[0]['r2'] - 1e-3), d['complexity']
assert f[0]['metric'] == 'time_per_op' and abs(fits['O(n)']['coefficient'] / cal - 1) <= tol"
}
linear() {
	for try in 1 2 3 4 5; do
		linear_try && return 0
		echo "# measurement $try disturbed, measuring again"
	done
	return 1
}
t "a dependent chain: time linear in its length (slope within 3% of the step measured before and after it, intercept within 3% of the shortest, widened by the epochs' own spread; retried)" linear

# ---- issue 25: hostile input (tests/lib/hostile.c) ----
H=${YSB_HOSTILE:?}

too_short() {
	"$H" --filter '^tiny$' --epochs 5 --json "$T/tiny.json" \
		--gbench-json "$T/tiny.g.json" >"$T/tiny.out" 2>"$T/tiny.err" ||
		{ cat "$T/tiny.err"; return 1; }
	py "b = bench(load('$T/tiny.json'), 'tiny')
m = b['metrics']
assert 'time_per_op' in m
for k in ['items_per_second', 'bytes_per_second']:
    assert k not in m, (k, m[k])
assert any('too short to time' in w and 'no rate' in w for w in b['warnings']), b['warnings']
g = load('$T/tiny.g.json')
for e in g['benchmarks']:
    assert 'items_per_second' not in e and 'bytes_per_second' not in e, e" &&
	has "$T/tiny.err" "warning: 'tiny': the body took no measurable time" &&
	# the table: '-' for op/s and the throughput
	grep '^tiny ' "$T/tiny.out" | grep -Eq '\] +- +- ' ||
		{ cat "$T/tiny.out"; return 1; }
}
t "an empty body with declared work: too short to time, no rate (result, table, gbench), a warning" too_short

huge_work() {
	"$H" --filter '^huge$' --epochs 3 --json "$T/huge.json" \
		>/dev/null 2>"$T/huge.err" || { cat "$T/huge.err"; return 1; }
	py "b = bench(load('$T/huge.json'), 'huge')
m = b['metrics']
assert 'bytes_per_second' not in m, m['bytes_per_second']
assert m['items_per_second']['median'] > 0
assert any('ys_set_bytes(1e+308) overflows the rate' in w for w in b['warnings']), b['warnings']" &&
	has "$T/huge.err" "warning: 'huge': ys_set_bytes(1e+308) overflows the rate: bytes_per_second left out"
}
t "declared work whose rate overflows a double: left out with a warning naming the benchmark" huge_work

alloc_fail() {
	# a sanitizer's allocator must return NULL too, not stop the program
	ASAN_OPTIONS=${ASAN_OPTIONS:-}:allocator_may_return_null=1 \
	"$H" --filter '^allocfail$' --epochs 5 --json "$T/af.json" \
		>/dev/null 2>"$T/af.err" || { cat "$T/af.err"; return 1; }
	py "m = bench(load('$T/af.json'), 'allocfail')['metrics']
assert m['allocs_per_op']['values'] == [1] * 5, m['allocs_per_op']
assert m['alloc_bytes_per_op']['values'] == [16] * 5, m['alloc_bytes_per_op']
assert m['frees_per_op']['values'] == [1] * 5, m['frees_per_op']"
}
t "failed allocations (every entry point: too large, bad alignment, overflowing products) count nothing" alloc_fail

big_params() {
	"$H" --list >"$T/hl" || return 1
	for k in 9007199254740993 9007199254740994 9007199254740995; do
		for j in 9223372036854775806 -9223372036854775808; do
			grep -qxF "big [k=$k, j=$j]" "$T/hl" ||
				{ echo "no 'big [k=$k, j=$j]'"; cat "$T/hl"; return 1; }
		done
	done
	# the body fails unless ys_param_int gives back the spec's integer
	"$H" --filter '^big' --epochs 1 --json "$T/big.json" >/dev/null 2>&1 &&
	py "d = load('$T/big.json')
ks = sorted(int(b['parameters']['k']) for b in d['benchmarks'])
assert ks == sorted([2**53 + 1, 2**53 + 2, 2**53 + 3] * 2), ks
assert all(b['name'].startswith('big [k=') and '#' not in b['name'] for b in d['benchmarks'])
# an empty body: no complexity fit through times too short to tell
assert not d.get('complexity'), d['complexity']"
}
t "parameters above 2^53: exact from the spec to the name and ys_param_int" big_params

collide() {
	"$H" --list >"$T/hl2" && grep -qxF 'a [k=1]' "$T/hl2" &&
	grep -qxF 'a [k=1] #2' "$T/hl2" &&
	"$H" --filter '^a ' --epochs 3 --json "$T/col.json" >/dev/null 2>&1 &&
	"$YS" compare --json "$T/colc.json" "$T/col.json" "$T/col.json" \
		>/dev/null 2>&1 &&
	py "d = load('$T/colc.json')
names = sorted(c['benchmark'] for c in d['comparisons'] if c['metric'] == 'time_per_op')
assert names == ['a [k=1]', 'a [k=1] #2'], names"
}
t "a name that equals another once its parameters are added is made unique (and compare tells them apart)" collide

no_alloc_count() {
	"$P" --filter '^alloc3$' --epochs 3 --no-alloc-count \
		--json "$T/nac.json" >/dev/null 2>&1 &&
	py "d = load('$T/nac.json')
assert d['settings']['allocations'] == 'off', d['settings']
b = bench(d, 'alloc3')
for k in ['allocs_per_op', 'alloc_bytes_per_op', 'frees_per_op']:
    assert k in b['unsupported'] and k not in b['metrics'], (k, b)" &&
	expect_exit 2 "$P" --no-alloc-count=yes &&
	has "$T/stderr" "--no-alloc-count: takes no value"
}
t "--no-alloc-count: the allocation metrics unsupported, the setting 'off'" no_alloc_count

thread_fail() {
	expect_exit 1 "$H" --filter '^tfail' --epochs 3 &&
	has "$T/stderr" "warning: 'tfail [threads=2]': failed: thread 1 gave up" &&
	has "$T/stderr" "warning: 'tfail [threads=3]': failed: thread 1 gave up"
}
t "a thread benchmark's failure names the benchmark (also when every benchmark failed alike)" thread_fail

# What counting costs a C++ program (issue 25: +2.72% on umap before,
# target <= 2%): instructions per iteration of containers built and
# destroyed, counted by valgrind (runs of N and 2N, the difference / N:
# no other process on the machine changes it), linked with
# libyardstick_alloc against the same program without it.
alloc_ir() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
alloc_cost() {
	for k in umap:10 map:10 vec:100 list:20 strings:10 shared:10; do
		name=${k%%:*}
		iters=${k#*:}
		set --
		for exe in "${YSB_ALLOC_IR_NATIVE:?}" "${YSB_ALLOC_IR_COUNTED:?}"; do
			a=$(alloc_ir "$exe" "$name" "$iters") &&
			b=$(alloc_ir "$exe" "$name" $((2 * iters))) &&
			[ -n "$a" ] && [ -n "$b" ] || return 1
			set -- "$@" $((b - a))
		done
		py "native, counted = $1 / $iters, $2 / $iters
print('# %-8s native %10.1f  counted %10.1f  %+.2f%%' % ('$name', native, counted, 100 * (counted / native - 1)))
assert native > 1000 and counted <= 1.02 * native, ('$name', native, counted)" || return 1
	done
}
t "allocation counting costs a C++ program at most 2% more instructions (valgrind; umap, map, vector, list, strings, shared_ptr)" alloc_cost

# keep-alive and clobber, by gcc and clang at -O2 and -O3
for built in ${YSB_BUILT:-}; do
	kind=${built%%:*}
	rest=${built#*:}
	cc=${rest%%:*}
	rest=${rest#*:}
	opt=${rest%%:*}
	exe=${rest#*:}
	if [ "$kind" = cpp ]; then
		cpp_check() {
			# a failed nothrow new: NULL from a sanitizer's too
			ASAN_OPTIONS=${ASAN_OPTIONS:-}:allocator_may_return_null=1 \
			"$1" --json "$T/cpp.json" >/dev/null 2>&1 &&
			py "d = load('$T/cpp.json')
v = bench(d, 'cpp_vector')['metrics']
assert v['allocs_per_op']['median'] == 2, v['allocs_per_op']
assert v['alloc_bytes_per_op']['median'] == 24 + 4096, v['alloc_bytes_per_op']
assert v['frees_per_op']['median'] == 2, v['frees_per_op']
s = [b for b in d['benchmarks'] if b['name'] == 'cpp_string [n=256]'][0]
assert 'bytes_per_second' in s['metrics']
x = bench(d, 'cpp_throw')['metrics']
assert x['allocs_per_op']['median'] == 1, x['allocs_per_op']
assert x['frees_per_op']['median'] == 1, x['frees_per_op']
e = x['alloc_bytes_per_op']['median']
assert e > 8, e
f = bench(d, 'cpp_newfail')['metrics']
# 1 allocation of 4 bytes; with libstdc++, the bad_alloc its failed
# nothrow new throws and catches inside: e bytes more, allocated and freed
k = f['allocs_per_op']['median'] - 1
assert k in (0, 1) and ('${YSB_SAN:-none}' == 'none') == (k == 1), (k, f['allocs_per_op'])
assert f['alloc_bytes_per_op']['median'] == 4 + k * e, (e, f['alloc_bytes_per_op'])
assert f['frees_per_op']['median'] == 1 + k, f['frees_per_op']"
		}
		t "a C++ caller ($cc $opt, -pedantic): registration, ys_main, operator new counted, a failed nothrow new not" cpp_check "$exe"
		continue
	fi
	keep_check() {
		"$1" --json "$T/keep.json" >/dev/null 2>&1 || return 1
		py "d = load('$T/keep.json')
def r(name):
    a = med(bench(d, name + ' [n=100]'), 'time_per_op')
    b = med(bench(d, name + ' [n=1000]'), 'time_per_op')
    return a, b
a, b = r('none')
assert b < 2 * a + 1e-9, ('without a keep-alive the chain stays', a, b)
for k in ['keep', 'keep_ptr', 'keep_big', 'store_clobber']:
    a, b = r(k)
    assert 7 <= b / a <= 13, (k, a, b)
# keep_inner's x is the body's own: its iterations are independent, and
# an out-of-order core overlaps the end of one short chain with the start
# of the next, so n=100 may take less than a tenth of n=1000 (13.1x with
# clang on a 2-vCPU VM, in every measurement: not noise). Its truth is
# the step's latency, keep's serial chain: n=1000 within 10% of keep's.
a, b = r('keep_inner')
ka, kb = r('keep')
assert b / a >= 7 and abs(b / kb - 1) <= 0.10, ('keep_inner', a, b, 'keep', ka, kb)
a, b = r('store_none')
if '$2' == 'gcc':
    assert b < 2 * a + 1e-9, ('without ys_clobber gcc keeps the dead store', a, b)
else:
    print('# clang keeps the store without ys_clobber too: %.3g -> %.3g' % (a, b))"
	}
	t "keep-alive and clobber ($cc $opt): without, the body is removed; with, time x10 for work x10 (medians of the epochs; retried)" \
		retry keep_check "$exe" "$cc"
done

finish
