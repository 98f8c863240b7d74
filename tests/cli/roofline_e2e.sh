# yardstick roofline end to end: this machine's ceilings measured
# (roofline --measure --quick, kept in the store), the fixtures of
# designed intensity (tests/fixtures/roofkern.c) run with their work
# declared (run --work), then placed: each classified as designed and
# none above its binding ceiling by more than 10%. The machine is shared
# and loaded, so only the class and that upper bound are asserted: a
# busy machine makes a benchmark slower, never faster than its roof, and
# the kernels sit far from every ridge point (2/24 FLOP/B against ridges
# of a few FLOP/B; the FMA loop at millions of FLOP/B).
. "$(dirname "$0")/lib.sh"

ROOFKERN=${ROOFKERN:?ROOFKERN must name tests/fixtures/roofkern}

# N doubles, REPS sweeps: the triad and daxpy from DRAM over 3 x 32 MiB
# and 2 x 32 MiB (beyond any L3 here), the daxpy in L1 over 2 x 8 KiB.
BIG=4194304
measure() {
	expect_exit 0 "$YS" roofline --measure --quick &&
	expect_exit 0 "$YS" roofline --machine --json "$T/m.json" &&
	has "$T/stdout" "ceilings: result " &&
	py "
d = load('$T/m.json')
c = d['ceilings']
assert any(x['type'] == 'compute' and x['threads'] == 1 and x['precision'] == 'fp64' for x in c), c
levels = {x['level'] for x in c if x['type'] == 'memory' and x['threads'] == 1 and x['pattern'] == 'triad'}
assert {'L1', 'DRAM'} <= levels, levels
"
}
t "roofline --measure --quick keeps this machine's ceilings; --machine finds them in the store" measure

# run_work NAME FLOPS BYTES ARGS...: the fixture run with its work declared
run_work() {
	name=$1 flops=$2 bytes=$3
	shift 3
	expect_exit 0 "$YS" run --runs 5 --no-store --json "$T/$name.json" \
		--work "flops=$flops" --work "bytes=$bytes" -n "$name" \
		"$ROOFKERN $*"
}

# The ceilings are the largest of their repetitions: a busy machine can
# only lower them, and a fixture then exceeds a ceiling measured too low.
# So they are measured interleaved with the fixtures, before (the
# measure above, or again on a retry) and after them, and the two
# measurements' repetitions pooled: each ceiling the largest of both.
place() {
	if [ -f "$T/placed.once" ]; then
		expect_exit 0 "$YS" roofline --measure --quick --no-store \
			--json "$T/m.json" || return 1
	fi
	: >"$T/placed.once"
	run_work triad "2*$BIG*20" "24*$BIG*20" triad $BIG 20 &&
	run_work fma "96*30000000" 384 fma 30000000 &&
	run_work daxpy_l1 "2*1024*400000" "24*1024*400000" daxpy 1024 400000 &&
	run_work daxpy_dram "2*$BIG*20" "24*$BIG*20" daxpy $BIG 20 &&
	expect_exit 0 "$YS" roofline --measure --quick --no-store \
		--json "$T/m2.json" &&
	py "
a, b = load('$T/m.json'), load('$T/m2.json')
after = {x['name']: x for x in b['benchmarks']}
for x in a['benchmarks']:
    for k, m in x['metrics'].items():
        m['values'] = m['values'] + after[x['name']]['metrics'][k]['values']
        m['max'] = max(m['values'])
json.dump(a, open('$T/pooled.json', 'w'))
" &&
	expect_exit 0 "$YS" roofline --ceilings "$T/pooled.json" "$T/triad.json" "$T/fma.json" \
		"$T/daxpy_l1.json" "$T/daxpy_dram.json" --json "$T/p.json" \
		-o "$T/p.svg" &&
	py "
d = load('$T/p.json')
p = {x['name']: x for x in d['points']}
for x in p.values():
    assert x['placed'] and x['verdict'], x
assert abs(p['triad']['arithmetic_intensity'] - 1 / 12) < 1e-12
# in a sanitized build too: the kernels are never instrumented
# (src/roofline/meson.build), so its ceilings are the machine's
for x in p.values():
    assert x['flops_per_second'] <= x['roof'] * 1.1, x
def level(x): return x['ceiling'].split()[0]
assert (p['triad']['bound'], level(p['triad'])) == ('memory', 'DRAM'), p['triad']
assert p['fma']['bound'] == 'compute', p['fma']
assert (p['daxpy_dram']['bound'], level(p['daxpy_dram'])) == ('memory', 'DRAM'), p['daxpy_dram']
assert p['daxpy_l1']['bound'] == 'memory' and level(p['daxpy_l1']) != 'DRAM', p['daxpy_l1']
print('# ' + '; '.join('%s: %s' % (k, v['verdict']) for k, v in sorted(p.items())))
"
}
t "the fixtures under the measured ceilings: triad and daxpy from DRAM memory-bound (DRAM), daxpy in L1 bound by a cache, the FMA loop compute-bound; none above its ceiling by 10% (ceilings measured before and after the fixtures, pooled; retried)" retry place

finish
