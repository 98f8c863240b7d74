#!/bin/sh
# The quick loop of a developer: the normal build only, then the unit
# tests, every fuzz target over its corpus once (the seeds replayed, no
# fuzzing: YS_FUZZ_SEEDS_ONLY), and the command-line tests that take under
# a second (meson's suite 'quick'). Left to `make test` (suite 'slow'):
# the store's tests again on a PostgreSQL server (store_pg) and the
# judge's Monte Carlo harness (judge_sim). `make test` is still the whole
# suite in both builds, what CI runs.
set -u
build=${1:-build}
start=$(date +%s)
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" -Dtests=enabled >"$build.setup.log" 2>&1 ||
		{ cat "$build.setup.log"; exit 1; }
else
	meson configure "$build" -Dtests=enabled >"$build.setup.log" 2>&1 ||
		{ cat "$build.setup.log"; exit 1; }
fi
ninja -C "$build" >/dev/null || { ninja -C "$build"; exit 1; }
YS_FUZZ_SEEDS_ONLY=1 meson test -C "$build" --print-errorlogs --num-processes 2 \
	--suite unit --suite fuzz --suite quick >"$build.check.log" 2>&1
status=$?
grep -E "^ *[0-9]+/[0-9]+ " "$build.check.log" | grep -v " OK " || true
ok=$(grep -c " OK " "$build.check.log")
bad=$(grep -cE " (FAIL|ERROR|TIMEOUT) " "$build.check.log")
# the slowest tests, so that what makes the loop slow is seen
echo "the slowest tests (seconds):"
sed -nE 's|^ *[0-9]+/[0-9]+ [^/]*/ ([^ ]+) +[A-Z]+ +([0-9.]+)s.*|\2 \1|p' \
	"$build.check.log" | sort -rn | head -5 | sed 's/^/  /'
echo "check: $ok passed, $bad failed in $(( $(date +%s) - start )) s (log: $build.check.log)"
exit $status
