#!/bin/sh
# One invocation of `yardstick run` at hyperfine's cost (issue 30, item
# 3): `yardstick run -q --runs 1 -- /bin/true`, the result saved in a
# store, against `hyperfine -N --runs 1 /bin/true`, both measured the same
# way, as a user pays them: whole processes, their exec, start, spawn of
# /bin/true, output and exit.
#
# The method, chosen to be fair to both:
#   - one judge for both: hyperfine -N measures each command RUNS times
#     (no shell; its own cost is outside what it measures, as for each
#     of the commands compared);
#   - ROUNDS rounds (5), interleaved: each round is one hyperfine
#     invocation per command, their order rotating from round to round,
#     so that a busy stretch of the machine falls on each of them alike;
#   - the store is a new one (YARDSTICK_STORE, its own directory) that
#     grows by the runs' saves: the save that takes the log to 1024
#     records starts its move into the database, which waits until the
#     saves stop for a second (docs/store.md, "What a save costs"): after
#     a command's runs, the script waits for it to end before the next
#     command (bench/store_moves.py) and says when it did, so that it
#     falls in no one's timings; `--no-store` beside it;
#   - cwd outside a git checkout (a temporary directory), as hyperfine
#     reads none; warm-up: hyperfine's --warmup 3 for each command.
# Per round: each command's median and sigma (of its RUNS wall times, from
# hyperfine's --export-json), the ratio of yardstick's median to
# hyperfine's and of the sigmas; then, over the rounds, the median of
# those ratios and their spread (min..max). Targets: median ratio <= 1.15,
# sigma ratio <= 1.
# Then what a save costs, by kind: SAVES one-run `run`s one after the
# other into a new store, each timed (wall, and CPU of the process tree),
# and sorted by what the save did, seen from the files: appended to the
# log; moved the log into the database (the log emptied: SQLite loaded,
# the records inserted in one transaction appended to the -wal); and
# moved it and checkpointed the -wal (it shrank: two fsyncs and a
# truncation). The first save, which makes the store, is shown apart.
# Also, in the same rounds: `run -q --runs 1 --no-counters` (no perf
# event: the kernel's cost of the first per-task perf event, below, is
# not paid), and with BASE=DIR/yardstick another build (the session's
# start, say). Then ISOLATED invocations one at a time, each after 1.5 s
# of quiet: the first per-task perf event after a second without any
# makes the kernel switch its scheduler hooks on and wait for an RCU
# grace period (kernel/events/core.c, account_event: static_branch_enable
# and synchronize_rcu; switched off again a second after the last such
# event closes), which a loop of back-to-back runs rarely pays and an
# invocation on its own always does; the wall of each, as a user sees it.
# With EXPEDITED=1 (root), /sys/kernel/rcu_expedited is 1 while the
# script runs (its value put back at the end): that wait becomes an
# expedited grace period (docs/cmd/run.md); EXPEDITED=0 sets it to 0.
# The value measured under is printed first.
#   [BASE=DIR/yardstick] [ISOLATED=5] [EXPEDITED=0|1] bench/one_invocation.sh [build/yardstick] [ROUNDS] [RUNS] [SAVES]
set -eu
ys=$(realpath "${1:-build/yardstick}")
rounds=${2:-5}
runs=${3:-200}
saves=${4:-1000}
base=${BASE:+$(realpath "$BASE")}
isolated=${ISOLATED:-5}
command -v hyperfine >/dev/null ||
	{ echo "hyperfine is missing (scripts/deps.sh bench)" >&2; exit 2; }
[ -x "$ys" ] || { echo "'$ys' is not a program: build first (make)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/store"
python3 - "$ys" "$rounds" "$runs" "$dir" "$saves" "$base" "$isolated" "${EXPEDITED:-}" "$(cd "$(dirname "$0")" && pwd)" <<'PY'
import atexit, json, os, resource, statistics, subprocess, sys, time
ys, rounds, runs, d, saves = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
base, isolated, expedited, here = sys.argv[6], int(sys.argv[7]), sys.argv[8], sys.argv[9]
knob = "/sys/kernel/rcu_expedited"
was = open(knob).read().strip() if os.path.exists(knob) else "(none)"
if expedited:
    with open(knob, "w") as f:
        f.write(expedited)
    atexit.register(lambda: open(knob, "w").write(was))
print(f"{knob}: {open(knob).read().strip() if os.path.exists(knob) else '(none)'}"
      + (f" (was {was}, put back at the end)" if expedited else ""))
cmds = [("hyperfine -N --runs 1", "hyperfine -N --runs 1 /bin/true"),
        ("run -q --runs 1", f"{ys} run -q --runs 1 -- /bin/true"),
        ("run -q --runs 1 --no-store", f"{ys} run -q --runs 1 --no-store -- /bin/true"),
        ("run -q --runs 1 --no-counters", f"{ys} run -q --runs 1 --no-counters -- /bin/true")]
if base:
    cmds.append(("BASE run -q --runs 1", f"{base} run -q --runs 1 -- /bin/true"))
env = dict(os.environ, YARDSTICK_STORE=f"{d}/store/results.db",
           YARDSTICK_NO_PROGRESS="1")
sys.path.insert(0, here)
from store_moves import wait_moves
per = {name: [] for name, _ in cmds}
moves = []
for r in range(rounds):
    order = cmds[r % len(cmds):] + cmds[:r % len(cmds)]
    for k, (name, c) in enumerate(order):
        out = f"{d}/round{r}_{k}.json"
        subprocess.run(["hyperfine", "-N", "--style", "none", "--warmup", "3",
                        "--runs", str(runs), "--export-json", out, c],
                       check=True, env=env, cwd=d,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # the log's move a save started waits for the saves to stop, then
        # runs: not beside the next command's timings
        w = wait_moves(env["YARDSTICK_STORE"])
        if w:
            moves.append((r + 1, name, w))
        t = json.load(open(out))["results"][0]["times"]
        per[name].append((statistics.median(t), statistics.stdev(t), min(t)))
hf = per[cmds[0][0]]
print(f"{rounds} rounds of {runs} runs each (hyperfine -N, order rotating), "
      "wall time in ms: median, sigma, min; ratios to hyperfine's in the same round")
for r, name, w in moves:
    print(f"  round {r}: the log's move after '{name}' ended {w:.2f} s after its runs (waited for)")
for name, _ in cmds:
    print(f"  {name}")
    for r, (m, s, lo) in enumerate(per[name]):
        line = f"    round {r + 1}: median {m*1e3:6.3f}  sigma {s*1e3:6.3f}  min {lo*1e3:6.3f}"
        if name != cmds[0][0]:
            line += f"   median x{m / hf[r][0]:.3f}  sigma x{s / hf[r][1]:.3f}"
        print(line)
for name, _ in cmds[1:]:
    mr = [m / h[0] for (m, _, _), h in zip(per[name], hf)]
    sr = [s / h[1] for (_, s, _), h in zip(per[name], hf)]
    print(f"  {name:28s} median ratio {statistics.median(mr):.3f} ({min(mr):.3f}..{max(mr):.3f}),"
          f" sigma ratio {statistics.median(sr):.3f} ({min(sr):.3f}..{max(sr):.3f})")

# isolated invocations: each after 1.5 s of quiet, the commands in turn
if isolated:
    iso = {name: [] for name, _ in cmds}
    for i in range(isolated):
        for name, c in cmds:
            time.sleep(1.5)
            t0 = time.perf_counter()
            subprocess.run(c.split(), check=True, env=env, cwd=d,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            iso[name].append(time.perf_counter() - t0)
    print(f"{isolated} isolated invocations of each (1.5 s of quiet before each), wall in ms: median (min..max)")
    h = statistics.median(iso[cmds[0][0]])
    for name, _ in cmds:
        v = iso[name]
        print(f"  {name:32s} {statistics.median(v)*1e3:7.2f} ({min(v)*1e3:.2f}..{max(v)*1e3:.2f})"
              f"   x{statistics.median(v) / h:.2f} hyperfine's")

# what a save costs, by kind
os.makedirs(f"{d}/saves")
db = f"{d}/saves/results.db"
env = dict(env, YARDSTICK_STORE=db)
def size(p):
    try:
        return os.stat(p).st_size
    except FileNotFoundError:
        return 0
kinds = {}
for i in range(saves):
    log0, wal0 = size(db + "-log"), size(db + "-wal")
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([ys, "run", "-q", "--runs", "1", "--", "/bin/true"], check=True,
                   env=env, cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime
    log1, wal1 = size(db + "-log"), size(db + "-wal")
    if i == 0:
        kind = "the first (makes the store)"
    elif wal1 < wal0:
        kind = "moved the log, checkpointed the -wal"
    elif log1 < log0:
        kind = "moved the log into the database"
    else:
        kind = "appended to the log"
    kinds.setdefault(kind, []).append((wall, cpu))
print(f"what a save costs: {saves} one-run `run`s into a new store, one after the other; ms")
print(f"  {'kind':40s} {'count':>5s} {'wall med':>9s} {'wall max':>9s} {'CPU med':>8s} {'CPU max':>8s}")
for kind, v in kinds.items():
    w, c = [x[0] for x in v], [x[1] for x in v]
    print(f"  {kind:40s} {len(v):5d} {statistics.median(w)*1e3:9.2f} {max(w)*1e3:9.2f}"
          f" {statistics.median(c)*1e3:8.2f} {max(c)*1e3:8.2f}")
PY
