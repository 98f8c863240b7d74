#!/bin/sh
# What libyardstick's allocation counting costs (libyardstick_alloc,
# src/lib/alloc.c), side by side in one run: the kernels of
# bench/alloc_cost.cc (malloc(24) + free, an unordered_map of 1000
# inserts, and held out of the tuning a std::map of 1000 inserts and a
# vector of 1000 push_back) under
#   native        a plain timed loop, without libyardstick
#   native+lib    the same loop linked with libyardstick.so (no timed
#                 region: the cost of linking it, which should be none)
#   native+alloc  the same loop linked with libyardstick_alloc too (its
#                 counting runs on every call, in a timed region or not)
#   gbench        Google Benchmark (its cpu_time, --benchmark_min_time=0.1)
#   ys            libyardstick with libyardstick_alloc, allocations
#                 counted (the default)
#   ys-off        the same program, --no-alloc-count
#   ys-unlinked   libyardstick without libyardstick_alloc (not counted)
# ROUNDS rounds, the programs' order rotating; per kernel the median over
# the rounds of each one's estimate and its ratio to native. Then, as
# times on a busy machine spread more than the differences sought, the
# instructions per iteration of native, native+lib and native+alloc,
# counted by valgrind (callgrind: runs of N and 2N iterations, the
# difference / N), which no other process disturbs.
#   bench/alloc_count_cost.sh [build] [ROUNDS]
# Needs libbenchmark-dev, g++ and valgrind (scripts/deps.sh bench).
set -eu
build=${1:-build}
rounds=${2:-7}
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
[ -f /usr/include/benchmark/benchmark.h ] ||
	{ echo "Google Benchmark is missing (scripts/deps.sh bench)" >&2; exit 2; }
[ -f "$build/libyardstick.so" ] && [ -f "$build/libyardstick_alloc.a" ] ||
	{ echo "no $build/libyardstick.so or libyardstick_alloc.a: build first (make)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
command -v valgrind >/dev/null ||
	{ echo "valgrind is missing (scripts/deps.sh bench)" >&2; exit 2; }
cxx="g++ -O2 -I$src/include"
lib="-L$build -Wl,-rpath,$build -Wl,--no-as-needed -lyardstick"
# what pkg-config --libs yardstick_alloc says, with the build's archive
alloc="-Wl,-u,ys__alloc_counts_v1 $build/libyardstick_alloc.a -ldl"
$cxx -DHARNESS_NATIVE -o "$dir/native" "$src/bench/alloc_cost.cc"
$cxx -DHARNESS_NATIVE -o "$dir/native_lib" "$src/bench/alloc_cost.cc" $lib
$cxx -DHARNESS_NATIVE -o "$dir/native_alloc" "$src/bench/alloc_cost.cc" \
	$alloc $lib
$cxx -DHARNESS_GBENCH -o "$dir/gbench" "$src/bench/alloc_cost.cc" \
	-lbenchmark -lpthread
$cxx -DHARNESS_YS -o "$dir/ys" "$src/bench/alloc_cost.cc" $alloc $lib -lpthread
$cxx -DHARNESS_YS -o "$dir/ys_unlinked" "$src/bench/alloc_cost.cc" $lib -lpthread
python3 - "$dir" "$rounds" <<'PY'
import json, statistics, subprocess, sys
d, rounds = sys.argv[1], int(sys.argv[2])
kernels = ["malloc24", "umap", "map", "vec"]

def native(exe):
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    return {k: float(v) for k, v in (l.split() for l in out.splitlines())}

def gbench():
    out = subprocess.run([f"{d}/gbench", "--benchmark_format=json",
                          "--benchmark_min_time=0.1"],
                         capture_output=True, text=True, check=True).stdout
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    # cpu_time: on a busy machine its real_time counts the preemptions
    return {b["name"]: b["cpu_time"] * scale[b["time_unit"]]
            for b in json.loads(out)["benchmarks"]}

def ys(exe, setting, *args):
    subprocess.run([f"{d}/{exe}", "--json", f"{d}/ys.json", *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    doc = json.load(open(f"{d}/ys.json"))
    assert doc["settings"]["allocations"] == setting, doc["settings"]
    return {b["name"]: b["metrics"]["time_per_op"]["median"] for b in doc["benchmarks"]}

tools = [("native", lambda: native(f"{d}/native")),
         ("native+lib", lambda: native(f"{d}/native_lib")),
         ("native+alloc", lambda: native(f"{d}/native_alloc")),
         ("gbench", gbench), ("ys", lambda: ys("ys", "counted")),
         ("ys-off", lambda: ys("ys", "off", "--no-alloc-count")),
         ("ys-unlinked", lambda: ys("ys_unlinked",
                                    "not counted (link -lyardstick_alloc)"))]
runs = {t: [] for t, _ in tools}
for r in range(rounds):
    for i in range(len(tools)):
        name, fn = tools[(i + r) % len(tools)]
        runs[name].append(fn())

def ns(s):
    return f"{s * 1e9:10.2f}"

for what, agg in (("median", statistics.median), ("minimum", min)):
    print(f"{rounds} rounds; per kernel the {what} over the rounds (ns per iteration), and / native")
    print(f"{'kernel':<9}" + "".join(f"{t:>12}" for t, _ in tools) + "".join(f"{t + '/n':>14}" for t, _ in tools[1:]))
    for k in kernels:
        med = {t: agg(e[k] for e in runs[t]) for t, _ in tools}
        print(f"{k:<9}" + "".join(f"{ns(med[t]):>12}" for t, _ in tools) +
              "".join(f"{med[t] / med['native']:14.3f}" for t, _ in tools[1:]))
    print()
print("per round, the ratio to that round's native (their spread, min..max):")

for k in kernels:
    print(f"  {k:<9}" + "".join(
        f" {t} {min(r):.3f}..{max(r):.3f}" for t in
        ("native+lib", "ys", "ys-unlinked")
        for r in [[e[k] / n[k] for e, n in zip(runs[t], runs["native"])]]))
print("per round, ys / ys-unlinked (the counting inside libyardstick's timed region):")
for k in kernels:
    r = sorted(e[k] / n[k] for e, n in zip(runs["ys"], runs["ys-unlinked"]))
    print(f"  {k:<9} median {statistics.median(r):.3f}  {r[0]:.3f}..{r[-1]:.3f}")
PY

echo
echo "instructions per iteration (valgrind --tool=callgrind, runs of N and 2N)"
printf '%-9s %12s %12s %12s %10s %10s\n' kernel native native+lib native+alloc lib/native alloc/native
ir() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for k in malloc24:200000 umap:200 map:200 vec:2000; do
	name=${k%%:*}
	n=${k#*:}
	set --
	for exe in native native_lib native_alloc; do
		set -- "$@" $(($(ir "$dir/$exe" "$name" $((2 * n))) - $(ir "$dir/$exe" "$name" "$n")))
	done
	python3 -c "
a, b, c = $1 / $n, $2 / $n, $3 / $n
print('%-9s %12.1f %12.1f %12.1f %10.4f %10.4f' % ('$name', a, b, c, b / a, c / a))"
done