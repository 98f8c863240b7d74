#!/bin/sh
# record's advice on slow libraries (src/profile/advice.c), one check per
# row of its table: blasfix (tests/fixtures/blasfix.c) spends a designed
# share of its CPU time in Debian's reference BLAS (dgemm_) or reference
# LAPACK (dsterf_), dlopen'ed by path whatever the alternatives point at;
# the advice names the file and the package, and its share agrees with the
# fixture's own clock. No advice below the threshold (20%), and none for a
# copy of the same file outside the system's library directories.
. "$(dirname "$0")/lib.sh"
BLASFIX=$(dirname "$YSFIX")/blasfix
# the reference builds, by their packages' own lists (libblas3, liblapack3:
# scripts/deps.sh test)
BLAS=$(dpkg -L libblas3 | grep '/blas/libblas\.so\.3$')
LAPACK=$(dpkg -L liblapack3 | grep '/lapack/liblapack\.so\.3$')
export BLASFIX BLAS LAPACK

# advised LIB ROUTINE FRACTION PACKAGE: record's advice names PACKAGE and
# the file, with a share within 8 points of the fraction the fixture
# measured on its own thread's CPU clock (its stdout)
advised() {
	"$YS" record -o "$T/a.folded" -- "$BLASFIX" "$1" "$2" 1.5 "$3" \
		>"$T/a.out" 2>"$T/a.err" || { cat "$T/a.err"; return 1; }
	python3 - "$T/a.out" "$T/a.err" "$4" "$(readlink -f "$1")" <<'PY'
import re, sys
truth = float(open(sys.argv[1]).read())
err, package, path = open(sys.argv[2]).read(), sys.argv[3], sys.argv[4]
lines = [l for l in err.splitlines() if l.startswith("advice: ")]
assert len(lines) == 1, err
m = re.match(r"advice: ([0-9.]+)% of the samples are in the reference "
             r"(BLAS|LAPACK) \((.*), Debian's package (\S+)\)", lines[0])
assert m, lines[0]
assert m.group(3) == path and m.group(4) == package, (lines[0], path)
assert "install libopenblas0-pthread" in lines[0], lines[0]
share = float(m.group(1)) / 100
assert abs(share - truth) <= 0.08, (share, truth)
PY
}

# not_advised LIB ROUTINE FRACTION: no advice line
not_advised() {
	"$YS" record -- "$BLASFIX" "$1" "$2" 1 "$3" >"$T/n.out" 2>"$T/n.err" ||
		{ cat "$T/n.err"; return 1; }
	grep -q " samples in " "$T/n.err" || { cat "$T/n.err"; return 1; }
	! grep -q "^advice:" "$T/n.err" || { cat "$T/n.err"; return 1; }
}

t "the reference BLAS, all the time in dgemm_: advice naming libblas3 and the file, its share the fixture's (8 points) (retried 3x)" \
	retry advised "$BLAS" gemm 1 libblas3
t "the reference BLAS at 40%: advice, its share the fixture's (retried 3x)" \
	retry advised "$BLAS" gemm 0.4 libblas3
t "the reference LAPACK, all the time in dsterf_ (no BLAS): advice naming liblapack3 (retried 3x)" \
	retry advised "$LAPACK" sterf 1 liblapack3
t "the reference LAPACK at 40%: advice, its share the fixture's (retried 3x)" \
	retry advised "$LAPACK" sterf 0.4 liblapack3
t "the reference BLAS at 5%: no advice" not_advised "$BLAS" gemm 0.05
t "the reference LAPACK at 5%: no advice" not_advised "$LAPACK" sterf 0.05
# the same file in a directory named blas outside the system's library
# directories (one's own build): no claim about it
mkdir -p "$T/lib/x86_64-linux-gnu/blas"
cp "$BLAS" "$T/lib/x86_64-linux-gnu/blas/libblas.so.3"
t "a copy of the reference BLAS outside /usr/lib, all the time in it: no advice" \
	not_advised "$T/lib/x86_64-linux-gnu/blas/libblas.so.3" gemm 1
t "--quiet: no advice either" sh -c '
	"$YS" record -q -- "$BLASFIX" "$BLAS" gemm 0.5 1 >/dev/null 2>"$T/q.err" &&
	! grep -q advice "$T/q.err"'
finish
