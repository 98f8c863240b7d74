#!/bin/sh
# What saving a result to the store costs a whole `yardstick run -q --runs
# 1 -- /bin/true` (issue 12: 1.25x `hyperfine -N --runs 1 /bin/true`,
# store included), in one go, interleaved rounds in random order, pinned
# to one CPU, outside any git checkout:
#   - run with the store: a new store (it grows by the runs of the bench)
#     and a store of 1000 results; run --no-store; hyperfine -N --runs 1;
#   - the moving of a log of 64 records into the database (the work of a
#     saver at the bound, or of the next reader): `history -n 1` on a store
#     whose log holds 64 records, against `history -n 1` on the same store
#     with its log already moved in (each restored from a copy before
#     every run, the copy not timed).
# Prints per case the wall median and minimum, and the CPU (user + system,
# children's included) median and mean: the mean counts the saves that
# move the log in (one in 64). With YS_BEFORE naming another yardstick
# binary (a build of main), its run cases are measured in the same rounds,
# each with stores of its own.
#   bench/store_save.sh [build/yardstick] [ROUNDS] [CPU] [REPS]
set -eu
ys=$(realpath "${1:-build/yardstick}")
rounds=${2:-11}
cpu=${3:-1}
reps=${4:-10}
command -v hyperfine >/dev/null || { echo "hyperfine is missing (scripts/deps.sh bench)" >&2; exit 2; }
before=${YS_BEFORE:-}
[ -z "$before" ] || before=$(realpath "$before")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$ys" "$rounds" "$cpu" "$dir" "$reps" "$before" <<'PY'
import os, random, resource, shutil, statistics, subprocess, sys, time
ys, rounds, cpu, d, reps, before = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
pin = ["taskset", "-c", cpu]
quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
cases, prep = {}, {}
def env(store):
    os.makedirs(f"{d}/{store}", exist_ok=True)
    return dict(os.environ, YARDSTICK_STORE=f"{d}/{store}/results.db",
                YARDSTICK_NO_PROGRESS="1")
ONE = ["run", "-q", "--runs", "1", "--", "/bin/true"]
def fill(binary, store, n):
    e = env(store)
    for _ in range(n):
        subprocess.run([binary] + ONE, check=True, env=e, cwd=d, **quiet)
    # the log moved in, as a store of 1000 results at rest
    subprocess.run([binary, "history", "-n", "1"], check=True, env=e, cwd=d, **quiet)
def ours(tag, binary, s):
    cases[f"{tag}run, new store"] = ([binary] + ONE, env(f"{s}-new"))
    fill(binary, f"{s}-1000", 1000)
    cases[f"{tag}run, store of 1000"] = ([binary] + ONE, env(f"{s}-1000"))
    cases[f"{tag}run --no-store"] = ([binary, "run", "-q", "--runs", "1", "--no-store", "--", "/bin/true"], env(f"{s}-new"))
cases["hyperfine -N --runs 1"] = (["hyperfine", "-N", "--runs", "1", "/bin/true"], dict(os.environ))
ours("", ys, "after")
if before:
    ours("before: ", before, "before")
# the ingest: a store of 100 results plus 64 in its log, kept aside
fill(ys, "ing", 100)
e = env("ing")
db = f"{d}/ing/results.db"
for _ in range(64):      # a log of 64 records (a saver moves it at 1024)
    subprocess.run([ys] + ONE, check=True, env=e, cwd=d, **quiet)
with open(db + "-log", "rb") as f:
    f.seek(12)
    held = int.from_bytes(f.read(4), "little")
def snapshot(tag):
    os.makedirs(f"{d}/snap-{tag}", exist_ok=True)
    for suf in ("", "-wal", "-shm", "-log"):
        if os.path.exists(db + suf):
            shutil.copy2(db + suf, f"{d}/snap-{tag}/results.db{suf}")
def restore(tag):
    for suf in ("", "-wal", "-shm", "-log"):
        if os.path.exists(f"{d}/snap-{tag}/results.db{suf}"):
            shutil.copy2(f"{d}/snap-{tag}/results.db{suf}", db + suf)
snapshot("log")
subprocess.run([ys, "history", "-n", "1"], check=True, env=e, cwd=d, **quiet)
snapshot("nolog")
cases[f"history -n 1, {held} records in the log"] = ([ys, "history", "-n", "1"], e)
prep[f"history -n 1, {held} records in the log"] = lambda: restore("log")
cases["history -n 1, log empty"] = ([ys, "history", "-n", "1"], e)
prep["history -n 1, log empty"] = lambda: restore("nolog")
times = {k: [] for k in cases}
cpus = {k: [] for k in cases}
for _ in range(rounds):
    for k in random.sample(list(cases), len(cases)):
        argv, env_ = cases[k]
        for _ in range(reps):
            if k in prep:
                prep[k]()
            ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(pin + argv, check=True, env=env_, cwd=d, **quiet)
            times[k].append(time.perf_counter() - t0)
            ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[k].append(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime)
print(f"{rounds} interleaved rounds pinned to CPU {cpu}, {reps} runs of each case a round, "
      "whole processes (taskset's exec included), outside a git checkout; ms")
print(f"{'case':42} {'wall med':>9} {'wall min':>9} {'CPU med':>9} {'CPU mean':>9} {'/hf CPU med':>11}")
hf = statistics.median(cpus["hyperfine -N --runs 1"])
for k in cases:
    a, c = times[k], cpus[k]
    print(f"{k:42} {statistics.median(a)*1e3:9.2f} {min(a)*1e3:9.2f} "
          f"{statistics.median(c)*1e3:9.2f} {statistics.mean(c)*1e3:9.2f} "
          f"{statistics.median(c)/hf:10.2f}x")
PY
