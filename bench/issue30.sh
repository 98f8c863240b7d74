#!/bin/sh
# Issue 30's four targets in one run, on one build, one after another (a
# quiet machine: run nothing beside it), each with the spread over
# ROUNDS rounds, as bench/RESULTS.md records them:
#   1. exact `mem` against native and heaptrack: bench/mem_heldout.txt's
#      seeds, three seeds drawn now (printed), and sqlite3, git log,
#      python3, cc1 (bench/mem_heldout.sh);
#   2. `mem --sample 524288` on 0.1 s and 2 s programs: three of the
#      list's seeds and three drawn now (bench/mem_sample_cost.sh);
#   3. one invocation, `run -q --runs 1 -- /bin/true`, against hyperfine
#      (bench/one_invocation.sh), and sigma beside the log's move
#      (bench/save_move_sigma.sh);
#   4. `load` against wrk over http and https, nginx and tiny_httpd
#      (bench/load_vs_wrk.sh).
# Each part's command is printed before its output.
#   bench/issue30.sh [build] [ROUNDS]
# PARTS="1 2 3 4" (default all) runs only those.
set -eu
B=${1:-build}
R=${2:-5}
PARTS=${PARTS:-1 2 3 4}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
scripts/deps.sh bench >/dev/null
[ -x "$B/yardstick" ] || ninja -C "$B" >/dev/null

seed() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; }
list=$(awk '$1 == "seed" { printf "%s ", $2 }' bench/mem_heldout.txt)
n1=$(seed) n2=$(seed) n3=$(seed) s1=$(seed) s2=$(seed) s3=$(seed)
echo "# $(date -u '+%F %T') UTC, $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# new seeds: exact $n1 $n2 $n3; sampled $s1 $s2 $s3"

run() {
	echo
	echo "\$ $*"
	"$@"
}

for p in $PARTS; do
	case $p in
	1) run env MEM_SEEDS="$list $n1 $n2 $n3" bench/mem_heldout.sh "$B" "$R" 4 ;;
	2) run bench/mem_sample_cost.sh "$B" "$R" "$B/bench/alloc_gen" \
		1006 3451 41385 "$s1" "$s2" "$s3" ;;
	3) run bench/one_invocation.sh "$B/yardstick" "$R" 300 300
	   run bench/save_move_sigma.sh "$B/yardstick" "$R" 300 ;;
	4) run env SLICES=4 bench/load_vs_wrk.sh "$B" "$R" 12
	   run env SLICES=4 SCHEME=https SIZES=1024 bench/load_vs_wrk.sh "$B" "$R" 12
	   run env SLICES=4 SERVER=tiny bench/load_vs_wrk.sh "$B" "$R" 12
	   run env SLICES=4 SERVER=tiny SCHEME=https SIZES=1024 \
		bench/load_vs_wrk.sh "$B" "$R" 12 ;;
	*) echo "bench/issue30.sh: no part $p (1-4)" >&2; exit 2 ;;
	esac
done
