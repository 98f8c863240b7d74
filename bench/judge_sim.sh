#!/bin/sh
# The judge's Monte Carlo harness at full size: 500 replications of every
# case of tests/stats/judge_sim.c (family-wise false alarms of an 18-check
# gate, tied counts at 1,001 and 1,500 runs a side, the boundary cases),
# the power of the gate with and without Holm's correction, and 500 null
# gates of the gate module (20 metrics of either direction x 3
# benchmarks: --wide-gates). The output goes into bench/RESULTS.md.
#   bench/judge_sim.sh [BUILD_DIR] [SEED]
set -eu
build=${1:-build}
seed=${2:-1}
exec nice "$build/tests/stats/judge_sim" --reps 500 --seed "$seed" --check --power \
	--wide-gates 500
