#!/bin/sh
# Gate a pull request's micro-benchmarks against its merge base, both
# built and measured now, on the same CI runner (docs/ci-recipe.md): the
# merge base is built in a git worktree of its own, and `yardstick bench
# --baseline-program` runs the two builds' benchmark programs in
# alternating processes (OLD NEW NEW OLD ...), so that neither another
# day's machine nor this runner's drift reads as a regression.
#
#   examples/ci/bench-merge-base.sh [--dry-run] BASE_REF PROGRAM [SPEC...]
#
# BASE_REF  what the pull request merges into (origin/main)
# PROGRAM   the benchmark program's path inside a build (build/bench/micro)
# SPEC      --max-increase thresholds (default time_per_op=5%)
#
# Environment: BUILD, the build command run at the top of each checkout
# (default "meson setup build && ninja -C build"); YS, yardstick (default
# yardstick on PATH); BENCH_OPTS, more options of `yardstick bench`
# (--processes 20, --filter ...); OUT, where base.json and pr.json go
# (default the current directory). --dry-run prints the steps instead of
# running them. Exit status: yardstick bench's (1: a threshold broken),
# or 2 for bad usage, or the failing step's.
set -eu

dry=false
if [ "${1:-}" = --dry-run ]; then
	dry=true
	shift
fi
if [ $# -lt 2 ]; then
	echo "usage: $0 [--dry-run] BASE_REF PROGRAM [SPEC...]" >&2
	exit 2
fi
base_ref=$1
prog=$2
shift 2
[ $# -gt 0 ] || set -- time_per_op=5%
build=${BUILD:-"meson setup build && ninja -C build"}
ys=${YS:-yardstick}
out=${OUT:-$PWD}

# step CMD...: run it, or print it with --dry-run
step() {
	if $dry; then
		printf '+'
		printf ' %s' "$@"
		printf '\n'
	else
		"$@"
	fi
}

top=$(git rev-parse --show-toplevel)
base=$(git merge-base HEAD "$base_ref")
wt=$(mktemp -d "${TMPDIR:-/tmp}/merge-base.XXXXXX")
cleanup() {
	step git -C "$top" worktree remove --force "$wt/src" || true
	rm -rf "$wt"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step git -C "$top" worktree add --detach "$wt/src" "$base"
step sh -c "cd \"\$1\" && $build" build "$wt/src"
step sh -c "cd \"\$1\" && $build" build "$top"

gates=""
for spec in "$@"; do
	gates="$gates --max-increase $spec"
done
# shellcheck disable=SC2086  # BENCH_OPTS and gates are word lists
step "$ys" bench --no-store ${BENCH_OPTS:-} $gates \
	--baseline-program "$wt/src/$prog" \
	--baseline-json "$out/base.json" --json "$out/pr.json" \
	-- "$top/$prog"
