#!/bin/sh
# yardstick record on Python programs, side by side with cProfile (the
# standard library's deterministic profiler), on tests/fixtures/py/pyfix.py's
# CPU part (burn_a 70%, burn_b 30%), a real program, a CSV pipeline
# (bench/py/csvpipe.py: generate, parse, clean, aggregate), and
# tests/fixtures/py/shares.py (alpha, beta, gamma: 50, 30, 20% of its CPU
# time by design, each run for a slice of time.thread_time), all in one run:
#  1. the top 10 Python functions by self time from each, and how far they
#     agree: yardstick's self time of a Python function is the samples whose
#     innermost Python frame it is (the native code it calls included);
#     cProfile's is its tottime plus the tottime of the built-in functions
#     it calls (which cProfile lists apart), so that both measure the same
#     thing. Shares are of each tool's Python total.
#  2. wrong frames: Python frames are read after the sample, so under fast
#     switching (tests/fixtures/py/pyfix.py mix) some belong to the next call: the share
#     of libz samples put under a function that does not call zlib.
#  3. the wall time of the program alone, under `yardstick record` (default
#     rate) and under cProfile: interleaved rounds, medians and minimums
#     (the machine is shared: minimums are the cleaner figure).
#   bench/python_vs_cprofile.sh [build/yardstick] [ROUNDS] [PYTHON]
set -eu
ys=${1:-build/yardstick}
rounds=${2:-5}
py=${3:-/usr/bin/python3.11}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export XDG_CACHE_HOME="$dir/cache"

python3 - "$ys" "$rounds" "$py" "$dir" "$here/../tests/fixtures/py/pyfix.py" \
	"$here/py/csvpipe.py" "$here/../tests/fixtures/py/shares.py" <<'PY'
import os, pstats, re, statistics, subprocess, sys, time
ys, rounds, py, d, pyfix, csvpipe, sharespy = sys.argv[1:]
rounds = int(rounds)
progs = [("pyfix cpu", [pyfix, "cpu"]), ("csvpipe 200k", [csvpipe, "200000"]),
         ("shares 1.5", [sharespy, "1.5"])]
PYFRAME = re.compile(r"^(.*) \(([^()]+\.py):(\d+)\)$")

def ys_self(folded):
    self = {}
    for line in open(folded):
        st, n = line.rsplit(" ", 1)
        for f in reversed(st.split(";")):
            m = PYFRAME.match(f)
            if m:
                key = (m.group(2), int(m.group(3)))
                name = self.get(key, (m.group(1), 0))[0]
                self[key] = (name, self.get(key, (name, 0))[1] + int(n))
                break
    return {k: (name, v) for k, (name, v) in self.items()}

def cp_self(prof):
    st = pstats.Stats(prof).stats
    self = {}
    for (file, line, name), (cc, nc, tt, ct, callers) in st.items():
        if file == "~":
            # a built-in: its time to the Python functions calling it
            for (cf, cl, cn), edge in callers.items():
                if cf != "~":
                    k = (os.path.basename(cf), cl)
                    self[k] = (self.get(k, (cn, 0))[0], self.get(k, (cn, 0))[1] + edge[2])
            continue
        k = (os.path.basename(file), line)
        self[k] = (name, self.get(k, (name, 0))[1] + tt)
    return self

def inclusive(folded, prof, names, file):
    """Each function's inclusive samples (yardstick) and cumulative time
    (cProfile), for the functions names of file."""
    yt = {k: 0 for k in names}
    for line in open(folded):
        st, n = line.rsplit(" ", 1)
        for k in names:
            yt[k] += int(n) * (f";{k} ({file}:" in st)
    cs = pstats.Stats(prof).stats
    ct = {k: sum(v[3] for kk, v in cs.items()
                 if kk[2] == k and kk[0].endswith(file)) for k in names}
    return yt, ct

def top(self, n=10):
    tot = sum(v for _, v in self.values()) or 1
    return [(k, nm, 100 * v / tot) for k, (nm, v) in
            sorted(self.items(), key=lambda kv: -kv[1][1])[:n]]

for label, args in progs:
    folded, prof = f"{d}/y.folded", f"{d}/c.prof"
    r = subprocess.run([ys, "record", "-o", folded, "--", py] + args,
                       check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    pyline = [l for l in r.stderr.splitlines() if l.startswith("python:")]
    subprocess.run([py, "-m", "cProfile", "-o", prof] + args, check=True,
                   stdout=subprocess.DEVNULL)
    a, b = top(ys_self(folded)), top(cp_self(prof))
    print(f"\n== {label}: top 10 Python functions by self time (% of Python total)")
    print(f"{'yardstick record':<44} {'cProfile':<44}")
    for i in range(10):
        l = f"{a[i][1][:24]:<24} {a[i][0][0][:10]}:{a[i][0][1]:<4} {a[i][2]:5.1f}" if i < len(a) else ""
        r = f"{b[i][1][:24]:<24} {b[i][0][0][:10]}:{b[i][0][1]:<4} {b[i][2]:5.1f}" if i < len(b) else ""
        print(f"{l:<44} {r:<44}")
    # functions under 1% in both lists are noise (imports): left out
    a = [x for x in a if x[2] >= 1 or x[0] in {y[0] for y in b if y[2] >= 1}]
    b = [x for x in b if x[2] >= 1 or x[0] in {y[0] for y in a if y[2] >= 1}]
    ka, kb = {k for k, _, _ in a}, {k for k, _, _ in b}
    sa, sb = {k: s for k, _, s in a}, {k: s for k, _, s in b}
    both = ka | kb
    diff = sum(abs(sa.get(k, 0) - sb.get(k, 0)) for k in both) / 2
    if label.startswith("pyfix"):
        ya = yb = 0
        for line in open(folded):
            st, n = line.rsplit(" ", 1)
            ya += int(n) * (";burn_a (" in st)
            yb += int(n) * (";burn_b (" in st)
        cs = pstats.Stats(prof).stats
        ca = sum(v[3] for k, v in cs.items() if k[2] == "burn_a")
        cb = sum(v[3] for k, v in cs.items() if k[2] == "burn_b")
        print(f"burn_a : burn_b (designed 70 : 30), inclusive: yardstick "
              f"{100 * ya / (ya + yb):.1f} : {100 * yb / (ya + yb):.1f}, "
              f"cProfile {100 * ca / (ca + cb):.1f} : {100 * cb / (ca + cb):.1f}")
    if label.startswith("shares"):
        want = {"alpha": 50, "beta": 30, "gamma": 20}
        yt, ct = inclusive(folded, prof, want, "shares.py")
        ty, tc = sum(yt.values()) or 1, sum(ct.values()) or 1
        print("alpha : beta : gamma (designed 50 : 30 : 20), inclusive: "
              "yardstick " + " : ".join(f"{100 * yt[k] / ty:.1f}" for k in want) +
              ", cProfile " + " : ".join(f"{100 * ct[k] / tc:.1f}" for k in want))
    if label.startswith("csvpipe"):
        # the phases' true CPU shares (the program times itself, no
        # profiler), against each tool's inclusive share of them
        truth = {}
        for _ in range(3):
            r = subprocess.run([py] + args, check=True, text=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=dict(os.environ, CSVPIPE_TIMES="1"))
            for m in re.finditer(r"^phase (\w+) ([0-9.]+)$", r.stderr, re.M):
                truth.setdefault(m.group(1), []).append(float(m.group(2)))
        truth = {k: statistics.median(v) for k, v in truth.items()}
        yt, ct = inclusive(folded, prof, truth, "csvpipe.py")
        def shares(x):
            tot = sum(x.values()) or 1
            return {k: 100 * v / tot for k, v in x.items()}
        st_, sy, sc = shares(truth), shares(yt), shares(ct)
        print("phases, % of the four (inclusive): " + "; ".join(
            f"{k} true {st_[k]:.1f} yardstick {sy[k]:.1f} cProfile {sc[k]:.1f}"
            for k in truth))
        print(f"  distance from the truth (half the L1): yardstick "
              f"{sum(abs(sy[k] - st_[k]) for k in truth) / 2:.1f} points, "
              f"cProfile {sum(abs(sc[k] - st_[k]) for k in truth) / 2:.1f} points")
    print(f"agreement: {len(ka & kb)} of the {len(ka | kb)} functions of 1% or more in both; "
          f"share moved between them (half the L1 distance): {diff:.1f} points")
    print(pyline[0] if pyline else "python: no summary")

# 3. wrong frames: spin and squeeze alternate every millisecond or so
print(f"\n== wrong frames, {rounds} runs of pyfix.py mix (spin and squeeze alternating)")
for _ in range(rounds):
    r = subprocess.run([ys, "record", "-o", f"{d}/m.folded", "--", py, pyfix, "mix"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, PYFIX_SCALE="0.5"))
    good = bad = 0
    for line in open(f"{d}/m.folded"):
        st, n = line.rsplit(" ", 1)
        fr = st.split(";")
        pys = [f for f in fr if PYFRAME.match(f)]
        if not pys or not any("deflate" in f or "libz" in f for f in fr):
            continue
        if pys[-1].startswith("squeeze ("):
            good += int(n)
        else:
            bad += int(n)
    line = [l for l in r.stderr.splitlines() if l.startswith("python:")]
    print(f"  libz samples under squeeze {good}, elsewhere {bad} "
          f"({100 * bad / max(good + bad, 1):.1f}% wrong); {line[0][8:] if line else ''}")

print(f"\n== {rounds} interleaved rounds: wall time (s), and the program's "
      "own CPU time (s, its process_time: what a profiler costs it, apart "
      "from the profiler's own process)")
timed = os.path.join(os.path.dirname(csvpipe), "timed.py")
def run(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    cpu = float(re.findall(r"^cpu ([0-9.]+)$", r.stderr, re.M)[-1])
    return time.perf_counter() - t0, cpu
for label, args in progs:
    modes = {"native": [py, timed, "native"] + args,
             "yardstick record": [ys, "record", "-q", "-o", f"{d}/o.folded",
                                  "--", py, timed, "native"] + args,
             "cProfile": [py, timed, "cprofile"] + args}
    t = {m: [] for m in modes}
    for _ in range(rounds):
        for m, cmd in modes.items():
            t[m].append(run(cmd))
    print(f"{label}:")
    w0 = [w for w, _ in t["native"]]
    c0 = [c for _, c in t["native"]]
    for m in modes:
        w = [x for x, _ in t[m]]
        c = [x for _, x in t[m]]
        print(f"  {m:<17} wall median {statistics.median(w):6.3f} min {min(w):6.3f}"
              f" (x{statistics.median(w) / statistics.median(w0):.2f}, x{min(w) / min(w0):.2f})"
              f" | cpu median {statistics.median(c):6.3f} min {min(c):6.3f}"
              f" (x{statistics.median(c) / statistics.median(c0):.2f}, x{min(c) / min(c0):.2f})")
PY
