#!/bin/sh
# Issue 24's held-out check: how often `yardstick bench --baseline-program
# OLD --max-increase time_per_op=5% -- NEW` flags a change, on a kernel
# the tests never saw (bench/verdict_kernel.c): an identical rebuild
# (verdict_a against verdict_b: must be flagged in at most 1.5% of the
# checks) and a 10% regression (verdict_a against verdict_slow: flagged
# in at least 90%), quiet and with a busy loop per core beside it; and,
# for comparison, the same with one process of 11 epochs a side (what
# `bench` did before --processes: the epochs of one process taken as
# independent). ROUNDS invocations of each, interleaved.
#   bench/processes_verdict.sh [build/yardstick] [ROUNDS] [PROCESSES]
# Prints, per case, the checks flagged (the gate's exit 1) and the
# inconclusive ones among them, and the median change it measured.
set -eu
ys=$(realpath "${1:-build/yardstick}")
rounds=${2:-20}
procs=${3:-20}
dir=$(dirname "$ys")/bench
for p in verdict_a verdict_b verdict_slow; do
	[ -x "$dir/$p" ] || { echo "$dir/$p is missing (ninja -C $(dirname "$ys"))" >&2; exit 2; }
done
tmp=$(mktemp -d)
busy=""
stop_busy() {
	for p in $busy; do kill "$p" 2>/dev/null || true; done
	for p in $busy; do wait "$p" 2>/dev/null || true; done
	busy=""
}
trap 'stop_busy; rm -rf "$tmp"' EXIT INT TERM
start_busy() {
	for c in $(seq "$(nproc)"); do
		sh -c 'while :; do :; done' &
		busy="$busy $!"
	done
}

# one CASE MODE NEW: one invocation, its verdict appended to $tmp/CASE
one() {
	case $2 in
	procs) opts="--processes $procs" ;;
	single) opts="--processes 1 --epochs 11" ;;
	esac
	# shellcheck disable=SC2086
	set +e
	"$ys" bench --no-store $opts --baseline-program "$dir/verdict_a" \
		--max-increase time_per_op=5% -- "$dir/$3" >"$tmp/out" 2>"$tmp/err"
	code=$?
	set -e
	verdict=$(sed -n 's/^\([A-Za-z]*\) *chain: max increase.*/\1/p' "$tmp/out")
	change=$(sed -n 's/.*median: .* change \([-+0-9.]*%\).*/\1/p' "$tmp/out")
	[ "$code" -le 1 ] || { echo "exit $code:"; cat "$tmp/err"; exit 1; } >&2
	echo "$code $verdict $change" >>"$tmp/$1"
}

for r in $(seq "$rounds"); do
	for load in quiet busy; do
		[ "$load" = busy ] && start_busy
		for mode in procs single; do
			one "$load-$mode-same" "$mode" verdict_b
			one "$load-$mode-slow" "$mode" verdict_slow
		done
		stop_busy
	done
	printf '.' >&2
done
echo >&2

printf '%s invocations of each, %s processes a side (single: 1 of 11 epochs)\n' "$rounds" "$procs"
printf '%-24s %8s %14s %14s\n' case flagged inconclusive "median change"
for load in quiet busy; do
	for mode in procs single; do
		for kind in same slow; do
			f="$tmp/$load-$mode-$kind"
			n=$(wc -l <"$f")
			flagged=$(awk '$1 == 1' "$f" | wc -l)
			inc=$(awk '$1 == 1 && $2 == "inconclusive"' "$f" | wc -l)
			med=$(awk '{ sub("%", "", $3); print $3 }' "$f" | sort -g |
			      awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) "%" }')
			printf '%-24s %3d/%-3d %6.1f%% %12d %14s\n' "$load-$mode-$kind" \
				"$flagged" "$n" "$(echo "100 * $flagged / $n" | bc -l)" "$inc" "$med"
		done
	done
done
