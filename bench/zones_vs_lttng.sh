#!/bin/sh
# The cost of one zone (begin + end) of libyardstick against two LTTng-UST
# tracepoints (begin, end; one integer field each) on the same loop
# (bench/zones_cost.c, built with meson: liblttng-ust-dev, scripts/deps.sh
# bench): libyardstick untraced (the program not started by a reader) and
# traced (under a zone buffer, checked: every zone recorded, none lost);
# LTTng-UST without a tracing session (its disabled cost) and, where
# `lttng` can run a session here (a session daemon running, or one this
# script starts and stops: root, or the user's own), with one recording
# the two events (its enabled cost, default channel: discard mode).
# ROUNDS interleaved rounds, the order of the modes rotated every round;
# each run prints the best of 7 timings of an N-iteration loop less the
# best of 7 of the same loop without the zone, over N. Prints per mode the
# median and the minimum over the rounds (ns per zone) and the ratios.
#   bench/zones_vs_lttng.sh [build] [ROUNDS] [N]
set -eu
build=${1:-build}
rounds=${2:-7}
n=${3:-200000}
prog="$build/bench/zones_cost"
[ -x "$prog" ] || { echo "no $prog: build first (make)" >&2; exit 2; }
"$prog" lttng 10 >/dev/null 2>&1 ||
	{ echo "$prog was built without LTTng-UST (scripts/deps.sh bench)" >&2; exit 2; }
python3 - "$prog" "$rounds" "$n" <<'PY'
import os, shutil, statistics, subprocess, sys, tempfile, time
prog, rounds, n = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def run(args, env=None):
    out = subprocess.run([prog] + args, capture_output=True, text=True,
                         check=True, env=env).stdout.split()
    return float(out[1])

def lttng(*args):
    return subprocess.run(["lttng"] + list(args), capture_output=True,
                          text=True).returncode == 0

# a session daemon: one already running, else our own (stopped at the end)
sessiond = None
enabled = shutil.which("lttng") is not None
if enabled and not lttng("list"):
    if shutil.which("lttng-sessiond"):
        sessiond = subprocess.Popen(["lttng-sessiond", "--no-kernel"],
                                    stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
        for _ in range(50):
            time.sleep(0.1)
            if lttng("list"):
                break
    enabled = lttng("list")
tmp = tempfile.mkdtemp()

def lttng_on():
    lttng("create", "ysbench-zones", "--output=" + tmp + "/trace")
    lttng("enable-event", "-u", "ysbench:*")
    lttng("start")
    try:
        return run(["lttng", n])
    finally:
        lttng("stop")
        lttng("destroy", "ysbench-zones")
        shutil.rmtree(tmp + "/trace", ignore_errors=True)

def traced():
    out = subprocess.run([prog, "--traced", n], capture_output=True,
                         text=True)
    if out.returncode:
        sys.exit("zones_cost --traced failed: " + out.stderr.strip())
    return float(out.stdout.split()[1])

modes = [("libyardstick untraced", lambda: run(["ys", n])),
         ("libyardstick traced", traced),
         ("LTTng-UST no session", lambda: run(["lttng", n]))]

if enabled:
    modes.append(("LTTng-UST session", lttng_on))
res = {m: [] for m, _ in modes}
try:
    for r in range(rounds):
        order = modes[r % len(modes):] + modes[:r % len(modes)]
        for name, fn in order:
            res[name].append(fn())
finally:
    if sessiond:
        sessiond.terminate()
        sessiond.wait()
    shutil.rmtree(tmp, ignore_errors=True)

print(f"ns per zone (begin + end), N={n}, {rounds} interleaved rounds "
      f"(best of 7 loops each, less the empty loop)")
print(f"{'mode':<24} {'median':>8} {'min':>8}")
med = {}
for name, _ in modes:
    v = res[name]
    med[name] = statistics.median(v)
    print(f"{name:<24} {med[name]:8.2f} {min(v):8.2f}")
def ratio(a, b):
    ma, mb = med[a], med[b]
    return f"{ma / mb:.2f}" if min(ma, mb) > 0.05 else "n/a (below resolution)"
print(f"traced:   libyardstick / LTTng-UST session = "
      + (ratio("libyardstick traced", "LTTng-UST session") if enabled
         else "not measured (no lttng session here)"))
print(f"disabled: libyardstick / LTTng-UST no session = "
      + ratio("libyardstick untraced", "LTTng-UST no session"))
print("targets: traced <= 25 ns: " +
      ("met" if med["libyardstick traced"] <= 25 else "NOT met") +
      f" ({med['libyardstick traced']:.2f}); untraced <= 2 ns: " +
      ("met" if med["libyardstick untraced"] <= 2 else "NOT met") +
      f" ({med['libyardstick untraced']:.2f})")
PY
