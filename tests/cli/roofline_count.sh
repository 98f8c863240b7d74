#!/bin/sh
# yardstick roofline --count: ysflops's counts on tests/fixtures/flopkern.c,
# kernels whose FLOPs and bytes are known exactly, then the timing, the
# result and the ways it fails.
. "$(dirname "$0")/lib.sh"
K=${FLOPKERN:?}
KS=${FLOPKERN_STATIC:?}
N=1000000
N0=0000000	# the baseline: as many digits, so that atol's loads match

# count OUT MODE [N]: --count of one kernel, its report in $T/OUT.
count() {
	"$YS" roofline --count --runs 1 --no-store -- "$K" "$2" "${3:-$N}" \
		>"$T/$1" 2>"$T/$1.err" || { cat "$T/$1.err"; return 1; }
}

# line FILE LABEL: the number on the report's line LABEL (0 when absent).
line() {
	awk -v l="$2" '{ s = $0; sub(/^ +/, "", s) }
		index(s, l " ") == 1 { v = substr(s, length(l) + 1);
			sub(/^ +/, "", v); split(v, f, " "); print f[1]; found = 1 }
		END { if (!found) print 0 }' "$1"
}

# kernel MODE LABEL FLOPS [FMA_LABEL FMA_LANES]: FLOPs of MODE exact, all
# in the class LABEL (N iterations of a known instruction mix).
kernel() {
	count "$1.out" "$1" || return 1
	f=$(line "$T/$1.out" FLOPs)
	c=$(line "$T/$1.out" "$2")
	[ "$f" = "$3" ] && [ "$c" = "$3" ] ||
		{ echo "$1: FLOPs $f, $2 $c, want $3"; cat "$T/$1.out"; return 1; }
	if [ $# -ge 5 ]; then
		m=$(line "$T/$1.out" "$4")
		[ "$m" = "$5" ] ||
			{ echo "$1: $4 $m, want $5"; cat "$T/$1.out"; return 1; }
	fi
}

t "scalar FP64 (mulsd, addsd): 2 FLOPs an iteration, exact" \
	kernel scalar64 "fp64 scalar" 2000000
t "SSE2 packed FP64 (mulpd, addpd): both lanes counted" \
	kernel sse64 "fp64 128-bit" 4000000
t "SSE3 vaddsubpd: 2 FLOPs (VEX adds and subtracts both lanes)" \
	kernel addsub64 "fp64 128-bit" 2000000
t "AVX packed FP64 (vmulpd, vaddpd ymm): 4 lanes" \
	kernel avx64 "fp64 256-bit" 8000000
t "AVX2 FMA FP64 (vfmadd ymm): 4 lanes, 2 FLOPs each, 256-bit" \
	kernel fma64 "fp64 256-bit" 8000000 "fp64 FMA" 4000000
t "scalar FMA (vfmadd231sd): 2 FLOPs, scalar" \
	kernel fmas64 "fp64 scalar" 2000000 "fp64 FMA" 1000000
t "scalar FP32 (mulss, addss)" \
	kernel scalar32 "fp32 scalar" 2000000
t "SSE packed FP32: 4 lanes" \
	kernel sse32 "fp32 128-bit" 8000000
t "AVX packed FP32: 8 lanes" \
	kernel avx32 "fp32 256-bit" 16000000
t "AVX2 FMA FP32: 8 lanes, 2 FLOPs each" \
	kernel fma32 "fp32 256-bit" 16000000 "fp32 FMA" 8000000

# divide and square root: 1 FLOP a lane; the kernel adds 1 FLOP (x + 1.0)
# before its loop, in both runs
divsqrt() {
	count ds.out divsqrt64 && count ds0.out divsqrt64 "$N0" || return 1
	f=$(line "$T/ds.out" FLOPs)
	f0=$(line "$T/ds0.out" FLOPs)
	d=$(line "$T/ds.out" "fp64 div, sqrt")
	[ $((f - f0)) = 8000000 ] && [ "$f0" = 1 ] && [ "$d" = 8000000 ] ||
		{ echo "FLOPs $f - $f0, div/sqrt $d"; cat "$T/ds.out"; return 1; }
}
t "divide and square root: 1 FLOP a lane, counted apart" divsqrt

# bytes MODE LOADED STORED FLOPS: the bytes of N iterations, exact once the
# baseline (N = 0: start-up, libc) is subtracted, and the baseline under
# 1% of them
bytes() {
	count "$1.out" "$1" && count "$1.0.out" "$1" "$N0" || return 1
	l=$(line "$T/$1.out" "bytes loaded")
	s=$(line "$T/$1.out" "bytes stored")
	l0=$(line "$T/$1.0.out" "bytes loaded")
	s0=$(line "$T/$1.0.out" "bytes stored")
	f=$(line "$T/$1.out" FLOPs)
	[ $((l - l0)) = "$2" ] && [ $((s - s0)) = "$3" ] && [ "$f" = "$4" ] ||
		{ echo "loaded $l - $l0, stored $s - $s0, FLOPs $f"; return 1; }
	[ $((l0 * 100 < $2)) = 1 ] && [ $((s0 * 100 < $3 + 1)) = 1 ] ||
		{ echo "baseline $l0 loaded, $s0 stored: over 1%"; return 1; }
}
t "copy (ymm): 32 bytes loaded and 32 stored an iteration" \
	bytes copy 32000000 32000000 0
t "triad a = b + s*c (ymm): 64 loaded, 32 stored, 8 FLOPs" \
	bytes triad 64000000 32000000 8000000

# The result: kind run, timed natively, with the counted work per run.
result() {
	"$YS" roofline --count --runs 3 --no-store --json "$T/r.json" -- \
		"$K" fma64 "$N" >"$T/r.out" 2>"$T/r.err" || return 1
	py "
d = load('$T/r.json')
assert d['kind'] == 'run', d['kind']
b = d['benchmarks'][0]
s = d['settings']
assert s['work_flops'] == 'counted: ysflops', s
assert s['work_bytes'] == 'counted: ysflops', s
wf, wb = b['metrics']['work_flops'], b['metrics']['work_bytes']
assert wf['unit'] == 'flop' and wb['unit'] == 'bytes', (wf, wb)
assert wf['values'] == [8000000.0] * 3, wf['values']
assert wb['values'] == [s['counted_bytes_loaded'] + s['counted_bytes_stored']] * 3
assert len(b['metrics']['wall_time']['values']) == 3
assert s['counted_fp64_flops'] == 8000000 and s['counted_fma_lanes'] == 4000000
" && has "$T/r.out" "wall time" && has "$T/r.out" "fp64 256-bit"
}
t "result: kind run, 3 timed runs, work_flops and work_bytes per run" result

json_stdout() {
	"$YS" roofline --count --runs 1 --no-store --json - -- "$K" sse64 10 \
		>"$T/j.out" 2>"$T/j.err" &&
	py "d = json.load(open('$T/j.out')); assert d['kind'] == 'run'" &&
	has "$T/j.err" "Counted by ysflops"
}
t "--json -: the result alone on stdout, the report on stderr" json_stdout

stored() {
	"$YS" roofline --count --runs 1 -- "$K" sse64 10 >/dev/null \
		2>"$T/s.err" && [ -s "$YARDSTICK_STORE" ] &&
	"$YS" history --json "$T/h.json" >/dev/null 2>&1 &&
	py "d = load('$T/h.json'); assert 'sse64' in json.dumps(d), d"
}
t "saved in the store by default" stored

# fp64 OUT PROCESSES N128 N256 PROGRAM...: --count of PROGRAM counts
# N128 FP64 FLOPs of the 128-bit class and N256 of the 256-bit one, in
# PROCESSES processes.
fp64() {
	out=$1 procs=$2 n128=$3 n256=$4
	shift 4
	"$YS" roofline --count --runs 1 --no-store -- "$@" >"$T/$out" 2>&1 &&
	[ "$(line "$T/$out" "fp64 128-bit")" = "$n128" ] &&
	[ "$(line "$T/$out" "fp64 256-bit")" = "$n256" ] &&
	has "$T/$out" "$procs process" || { cat "$T/$out"; return 1; }
}
# A tree of processes: each counted under the tool, the totals summed.
t "children counted too: sh running two kernels, the sum of both" \
	fp64 tree.out 3 4000000 8000000 sh -c "'$K' fma64 $N && '$K' sse64 $N"
t "a fork counts from zero: the parent's work before it counted once" \
	fp64 fork.out 2 4000000 16000000 "$K" fork "$N"

t "a statically linked program is counted" \
	fp64 st.out 1 0 8000000 "$KS" avx64 "$N"

# Failures: nothing timed nor kept.
missing() {
	expect_exit 2 "$YS" roofline --count -- "$T/none" &&
	has "$T/stderr" "'$T/none'"
}
t "a missing program: exit 2, named" missing
badinterp() {
	printf '#!/nonexistent/interp\n' >"$T/-bad.sh" && chmod +x "$T/-bad.sh" &&
	(cd "$T" && expect_exit 2 "$YS" roofline --count -- ./-bad.sh) &&
	has "$T/stderr" "bad interpreter"
}
t "a script whose interpreter is missing: exit 2, said why" badinterp
t "a crashing program: exit 1, its partial counts said to be partial" sh -c '
	YARDSTICK_STORE=$T/c.db "$YS" roofline --count -- sh -c "\"$0\" sse64 1000 && kill -SEGV \$\$" \
		>"$T/c.out" 2>"$T/c.err"; [ $? = 1 ] &&
	grep -q PARTIAL "$T/c.err" && grep -q SIGSEGV "$T/c.err" &&
	grep -q "fp64 128-bit *4000$" "$T/c.err" && [ ! -e "$T/c.db" ] &&
	[ ! -s "$T/c.out" ]' "$K"
t "a program that fails: exit 1, nothing timed" sh -c '
	"$YS" roofline --count -- sh -c "exit 4" >"$T/f.out" 2>"$T/f.err"
	[ $? = 1 ] && grep -q "status 4" "$T/f.err" && ! grep -q "wall time" "$T/f.out"'
avx512() {
	mkdir -p "$T/t%p"	# valgrind expands % in --log-file: escaped
	TMPDIR=$T/t%p expect_exit 1 "$YS" roofline --count -- "$K" avx512 10 &&
	has "$T/stderr" "SIGILL" && has "$T/stderr" "AVX-512" &&
	has "$T/stderr" "PARTIAL"
}
t "AVX-512 code: exit 1, valgrind cannot run it, said so" avx512
escaped() {
	"$YS" roofline --count -- sh -c 'printf "\033[2Jgone\n" >&2; exit 3' \
		>"$T/esc.out" 2>"$T/esc.err"
	[ $? = 1 ] && grep -qF '\x1b[2Jgone' "$T/esc.err" &&
	no_controls "$T/esc.err"
}
t "the failed program's stderr shown escaped" escaped
t "no valgrind in PATH: exit 3, saying to install it" sh -c '
	PATH=/nonexistent "$YS" roofline --count -- "$0" sse64 1 2>"$T/v.err"
	[ $? = 3 ] && grep -q "apt-get install valgrind" "$T/v.err"' "$K"
t "no ysflops: exit 3, saying where it was looked for" sh -c '
	YARDSTICK_YSFLOPS=$T/none "$YS" roofline --count -- "$0" sse64 1 \
		2>"$T/y.err"; [ $? = 3 ] && grep -q YARDSTICK_YSFLOPS "$T/y.err"' "$K"
json_dir() {
	expect_exit 2 "$YS" roofline --count --json "$T" -- "$K" sse64 1 &&
	has "$T/stderr" "yardstick roofline: --json" && ! grep -q Counted "$T/stdout"
}
t "a tool that counts nothing (not ysflops): exit 3, nothing timed" sh -c '
	YARDSTICK_YSFLOPS=/bin/true "$YS" roofline --count -- "$0" sse64 1 \
		>"$T/nt.out" 2>"$T/nt.err"; [ $? = 3 ] &&
	grep -q "did not count" "$T/nt.err" && [ ! -s "$T/nt.out" ]' "$K"
t "--json to a directory: exit 2 before any count" json_dir
t "memcheck's options in VALGRIND_OPTS and ~/.valgrindrc: not ours" sh -c '
	mkdir -p "$T/home" && echo --leak-check=full >"$T/home/.valgrindrc" &&
	HOME=$T/home VALGRIND_OPTS=--track-origins=yes "$YS" roofline \
		--count --runs 1 --no-store -- "$0" sse64 10 >"$T/rc.out" 2>&1 &&
	grep -q "fp64 128-bit *40$" "$T/rc.out"' "$K"
t "--runs without --count: exit 2, not ignored" sh -c '
	"$YS" roofline --runs 3 2>"$T/r3.err"; [ $? = 2 ] &&
	grep -q -- "--runs" "$T/r3.err"'
if [ "$(id -u)" = 0 ]; then
	setuid() {
		cp "$K" "$T/suid" && chown nobody "$T/suid" &&
		chmod 4755 "$T/suid" &&
		expect_exit 3 "$YS" roofline --count -- "$T/suid" sse64 1 &&
		has "$T/stderr" "set-user-ID"
	}
	t "a set-user-ID program: exit 3, it would run unprivileged" setuid
else
	skip "a set-user-ID program: exit 3" "not root: cannot chown"
fi

# Ctrl-C while counting: exit 130, nothing kept, no directory nor
# process left behind.
interrupt() {
	mkdir -p "$T/tmp"
	TMPDIR=$T/tmp YARDSTICK_STORE=$T/i.db "$YS" roofline --count -- "$K" fma64 100000000000 \
		>"$T/i.out" 2>"$T/i.err" &
	pid=$!
	for i in $(seq 100); do
		ls "$T/tmp" | grep -q yardstick-count && break
		sleep 0.1
	done
	sleep 1
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc = 130 ] || { echo "exit $rc"; cat "$T/i.err"; return 1; }
	has "$T/i.err" "interrupted" && [ -z "$(ls "$T/tmp")" ] &&
	[ ! -e "$T/i.db" ] &&
	! pgrep -f "fma64 100000000000" >/dev/null
}
t "Ctrl-C while counting: exit 130, nothing left" interrupt

finish
