#!/bin/sh
# Build and run every test twice: in the normal build and in an
# AddressSanitizer + UndefinedBehaviorSanitizer build. Ends with one line
# "tests: N passed, N failed" (", N skipped" when a check inside a test
# program or script was skipped: each is listed with its reason above).
# Two more builds are compiled, their suites not run (-Werror: a warning
# fails them), so that what a user or a distribution builds builds: a
# release build (-O3, NDEBUG: -Wformat-truncation sees through inlined
# calls, an assert's only variable goes unused) and a clang build of
# yardstick and its tests; a failed one counts as a failed "build" in
# the last line. Neither builds the fuzz targets (-Dfuzz=disabled: the
# normal build's binaries again, three quarters of a build's time).
# What they add to `make test` (about an hour) on the 2-core development
# machine: 1.5 to 3 min from nothing (89 s at a load average of 6, 180 s
# at 7 to 9; 126 s of CPU), 0.4 s when nothing changed; a release build
# with the fuzz targets took 13 min at a load average of 13.
set -u
normal=${1:-build}
san=${2:-build-san}
rel=${3:-build-rel}
clang=${4:-build-clang}
status=0

# configure DIR [MESON OPTIONS...] and build it
build_dir() {
	dir=$1
	shift
	# A build directory that `make` configured before cmocka was
	# installed has the tests off: turn them on.
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" -Dtests=enabled "$@" > "$dir.setup.log" 2>&1 ||
			{ cat "$dir.setup.log"; return 1; }
	else
		meson configure "$dir" -Dtests=enabled > "$dir.setup.log" 2>&1 ||
			{ cat "$dir.setup.log"; return 1; }
	fi
	ninja -C "$dir" >/dev/null || { ninja -C "$dir"; return 1; }
}

# Both builds first (the compilers use both cores), then both suites at
# once: most tests wait (on a child, a server, a timer) more than they
# compute, and every test holds when the suite runs twice at once.
build_dir "$normal" || status=1
# The sanitized build at -O1 (with -g and asserts, as -O0 had): its
# suite took 40% less CPU than at -O0 (the judge's and the gate's unit
# tests: 18.6 and 19.0 s against 10.9 and 13.5) and ASan's checks are
# the same; GCC's -O1 range analysis gives warnings -O0 never did
# (-Wformat-truncation), which -Werror makes this build's.
build_dir "$san" -Db_sanitize=address,undefined -Db_lundef=false \
	-Doptimization=1 -Ddebug=true || status=1
[ $status -eq 0 ] || { echo "tests: 0 passed, 1 failed (the build)"; exit 1; }

# compile only; the names of those that failed go to the summary
unbuilt=""
build_dir "$rel" -Dbuildtype=release -Dfuzz=disabled || unbuilt="$unbuilt $rel"
if command -v clang >/dev/null; then
	CC=clang build_dir "$clang" -Dfuzz=disabled || unbuilt="$unbuilt $clang"
else
	echo "$clang: no clang (scripts/deps.sh test installs it)"
	unbuilt="$unbuilt $clang"
fi

# python3 on PATH as the interpreter itself, for every test (the unit
# tests call it too): never a pyenv shim (tests/cli/python3_first.sh)
. "$(dirname "$0")/../tests/cli/python3_first.sh"
python3_first "$normal/python3-bin"

meson test -C "$normal" --print-errorlogs --num-processes 2 \
	> "$normal.test.log" 2>&1 &
normal_pid=$!
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	meson test -C "$san" --print-errorlogs --num-processes 2 \
	> "$san.test.log" 2>&1 &
san_pid=$!
wait $normal_pid || status=1
wait $san_pid || status=1
cat "$normal.test.log"
echo "== again under AddressSanitizer + UndefinedBehaviorSanitizer"
cat "$san.test.log"

YS_UNBUILT="$unbuilt" python3 - "$normal" "$san" <<'PY'
import itertools, json, os, re, sys
passed = failed = skipped = 0
# the compile-only builds that failed: one failed "build" each
unbuilt = os.environ.get("YS_UNBUILT", "").split()
skips = []
fails = []
times = []
for d in sys.argv[1:]:
    log = os.path.join(d, "meson-logs", "testlog.json")
    if not os.path.exists(log):
        failed += 1
        continue
    for line in open(log):
        try:
            r = json.loads(line)
        except ValueError:
            print(f"{log}: a line that is not JSON (was the suite run twice at once?)")
            failed += 1
            continue
        # checks skipped inside a test: TAP "# SKIP" and cmocka's SKIPPED
        for out in ((r.get("stdout") or "") + "\n" + (r.get("stderr") or "")).splitlines():
            if re.match(r"ok \d+ .*# SKIP", out) or "[  SKIPPED ]" in out:
                skips.append(f"{d}: {r['name']}: {out.strip()}")
        times.append((r.get("duration", 0.0), f"{os.path.basename(d)}: {r['name']}"))
        if r["result"] in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r["result"] == "SKIP":
            skipped += 1
        else:
            failed += 1
            # each failed check with the first lines it printed ("# ..."),
            # so that a failure on a machine whose logs are gone says why
            notok, lines = [], ((r.get("stdout") or "") + "\n" + (r.get("stderr") or "")).splitlines()
            for i, l in enumerate(lines):
                if l.startswith("not ok"):
                    notok.append(l.strip())
                    notok += ["  " + m.strip() for m in itertools.takewhile(
                        lambda m: m.startswith("#"), lines[i + 1:i + 9])]
            fails.append(f"{os.path.basename(d)}: {r['name']} ({r['result']})" +
                         "".join(f"\n    {l}" for l in notok[:40]))
skipped += len(skips)
times.sort(reverse=True)
print("the slowest tests (seconds):")
for sec, name in times[:12]:
    print(f"  {sec:7.1f}  {name}")
for s in skips:
    print(f"skipped: {s}")
for f in fails:
    print(f"failed: {f}")
for d in unbuilt:
    print(f"failed: the build in {d} (its errors above)")
failed += len(unbuilt)
print(f"tests: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else "") +
      (f" (the build{'s' if len(unbuilt) > 1 else ''} of {', '.join(unbuilt)})" if unbuilt else ""))
sys.exit(1 if failed else 0)
PY
[ $? -eq 0 ] || status=1
exit $status
