#!/bin/sh
# What the log's move into the database does to the runs beside it
# (issue 30, item 3: one invocation's sigma, with the store). A loop of
# one-run `run -q --runs 1 -- /bin/true`, each saved, RUNS of them per
# round, into a store whose log is 1024 - RUNS/2 records short of its
# bound: the save half-way through the round starts the move (`store
# flush --idle 1s`, in the background), which waits until the saves stop
# for a second (since a3272f7: before, it ran at once, beside the
# round's runs after it; a BASE from before shows that). After each
# command the script waits for the move to end (bench/store_moves.py)
# and prints when it did. Each round measures, in turn (the order
# rotating):
#   - hyperfine -N --runs 1 /bin/true (no store: the reference sigma);
#   - YS run -q --runs 1, its store as described;
#   - with BASE=DIR/yardstick, that build the same way (the move before
#     it was paced, say);
#   - YS run -q --runs 1 --no-store (the same loop without the move).
# hyperfine -N, no warm-up (so that the move falls where it should), the
# wall times from --export-json. Per round: each one's median and sigma,
# and the ratio of each sigma to hyperfine's; then the median of those
# ratios over the rounds (min..max), and the sum of squares of the
# excess over the round's median in the RUNS/2 runs from the move on:
# what the move adds to a round's variance, in ms^2.
#   [BASE=DIR/yardstick] bench/save_move_sigma.sh [build/yardstick] [ROUNDS] [RUNS]
set -eu
ys=$(realpath "${1:-build/yardstick}")
rounds=${2:-5}
runs=${3:-300}
base=${BASE:+$(realpath "$BASE")}
command -v hyperfine >/dev/null ||
	{ echo "hyperfine is missing (scripts/deps.sh bench)" >&2; exit 2; }
[ -x "$ys" ] || { echo "'$ys' is not a program: build first (make)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$ys" "$rounds" "$runs" "$dir" "$base" "$(cd "$(dirname "$0")" && pwd)" <<'PY'
import json, os, shutil, statistics, subprocess, sys
ys, rounds, runs, d, base = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
sys.path.insert(0, sys.argv[6])
from store_moves import wait_moves
env = dict(os.environ, YARDSTICK_NO_PROGRESS="1")
# the template: a store whose log holds 1023 - runs // 2 records (the
# first save makes the store through SQLite, the others append)
tmpl = os.path.join(d, "tmpl")
os.mkdir(tmpl)
fill = 1024 - runs // 2
for i in range(fill):
    subprocess.run([ys, "run", "-q", "--runs", "1", "--store", f"{tmpl}/r.db", "--", "/bin/true"],
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
cmds = [("hyperfine -N --runs 1", None), ("run -q --runs 1 (store)", ys)]
if base:
    cmds.append(("BASE run -q --runs 1 (store)", base))
cmds.append(("run -q --runs 1 --no-store", "nostore"))
per = {name: [] for name, _ in cmds}
waited = {name: [] for name, _ in cmds}
for r in range(rounds):
    order = cmds[r % len(cmds):] + cmds[:r % len(cmds)]
    for name, prog in order:
        s = os.path.join(d, f"s{r}_{len(per[name])}")
        shutil.copytree(tmpl, s)
        if prog is None:
            c = "hyperfine -N --runs 1 /bin/true"
        elif prog == "nostore":
            c = f"{ys} run -q --runs 1 --no-store -- /bin/true"
        else:
            c = f"{prog} run -q --runs 1 --store {s}/r.db -- /bin/true"
        out = os.path.join(d, "h.json")
        subprocess.run(["hyperfine", "-N", "--style", "none", "--runs", str(runs),
                        "--export-json", out, c], env=env, check=True, cwd=d,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # the move waits for the saves to stop (store flush --idle 1s):
        # it ends after the runs, before the next command, or the store's
        # removal
        waited[name].append(wait_moves(f"{s}/r.db"))
        t = [x * 1e3 for x in json.load(open(out))["results"][0]["times"]]
        m = statistics.median(t)
        excess = sum(max(0.0, x - m) ** 2 for x in t[runs // 2 - 1:])
        per[name].append((m, statistics.stdev(t), excess))
        shutil.rmtree(s)
hf = per[cmds[0][0]]
print(f"{rounds} rounds of {runs} one-run runs, the move started by save {runs // 2} of each "
      "(store rows); wall ms: median, sigma; sigma / hyperfine's in the same round")
for name, _ in cmds:
    print(f"  {name}")
    for r, (m, s, ex) in enumerate(per[name]):
        line = f"    round {r + 1}: median {m:6.3f}  sigma {s:6.3f}  excess^2 after the move {ex:8.1f}"
        if name != cmds[0][0]:
            line += f"   sigma x{s / hf[r][1]:.3f}"
        print(line)
for name, _ in cmds:
    w = [x for x in waited[name] if x]
    if w:
        print(f"  {name}: the log's move ended {', '.join(f'{x:.2f}' for x in w)} s after the runs")
for name, _ in cmds[1:]:
    sr = [s / h[1] for (_, s, _), h in zip(per[name], hf)]
    mr = [m / h[0] for (m, _, _), h in zip(per[name], hf)]
    ex = [e for _, _, e in per[name]]
    print(f"  {name:30s} median x{statistics.median(mr):.3f}, sigma ratio {statistics.median(sr):.3f}"
          f" ({min(sr):.3f}..{max(sr):.3f}), excess^2 median {statistics.median(ex):.0f}")
PY
