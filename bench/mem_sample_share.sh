#!/bin/sh
# Where `mem --sample`'s cost goes, as shares of the whole run, steadier
# than CPU ratios on a loaded machine (issue 30, item 2): `perf record -F
# 5000` of `yardstick mem -q --no-store --sample 524288 -- alloc_gen SEED
# SCALE`, the builds alternating, ROUNDS times each; per run, the share
# of the samples in the agent (its library, libunwind, libc's
# pthread_mutex_*: the program's process) and in the collector (the
# yardstick process). Each build is NAME=DIR (its yardstick and agent)
# or DIR; GEN is DIR/bench/alloc_gen of the first.
#   bench/mem_sample_share.sh SEED SCALE ROUNDS BUILD...
# Needs perf (scripts/deps.sh bench).
set -eu
seed=${1:?SEED} scale=${2:?SCALE} rounds=${3:?ROUNDS}
shift 3
[ $# -gt 0 ] || { echo "name at least one build" >&2; exit 2; }
first=${1#*=}
gen=$first/bench/alloc_gen
d=$(mktemp -d /tmp/mem-sample-share-XXXXXX)
trap 'rm -rf "$d"' EXIT
echo "seed $seed scale $scale: agent's and collector's share of perf's samples (5 kHz)"
for r in $(seq "$rounds"); do
	for b in "$@"; do
		name=${b%%=*} dir=${b#*=}
		perf record -q -F 5000 -o "$d/perf.data" -- "$dir/yardstick" mem -q \
			--no-store --sample 524288 -- "$gen" "$seed" "$scale" \
			/dev/null >/dev/null 2>&1
		perf report -i "$d/perf.data" --no-children -n \
			--sort comm,dso,sym 2>/dev/null | grep -v '^#' |
		awk -v name="$name" '
			NF >= 5 { all += $2 }
			$3 == "alloc_gen" && ($4 ~ /heap|unwind/ || $NF ~ /pthread_mutex/) { agent += $2 }
			$3 == "yardstick" { coll += $2 }
			END { printf "  %-12s agent %5.2f%%  collector %5.2f%%  (%d samples)\n",
			      name, 100 * agent / all, 100 * coll / all, all }'
	done
done
