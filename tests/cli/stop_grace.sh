# Ctrl-C as a user expects from Python itself (issue 30's leftovers, item
# 2): the program gets SIGINT, its helpers (multiprocessing's resource
# tracker) get their chance to clean up, then what is left is killed; a
# second Ctrl-C still kills at once. tests/fixtures/py/mpshm.py makes the
# shared memory /dev/shm/ysshm_TOKEN and forgets it (the tracker unlinks
# it once the program has ended), with a Pool of 2 workers busy. Under
# run, mem and record, fork and spawn, Ctrl-C (SIGINT to the foreground
# group, as a terminal sends it: yardstick is started in a session of its
# own) at a random moment (seed printed): yardstick exits 130, the
# segment is gone, no process of the run is left. A program that ignores
# SIGINT is killed at the grace's end; a second Ctrl-C ends it at once.
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/py" && pwd)/mpshm.py
PY=/usr/bin/python3.11
unset MALLOC_PERTURB_
seed=${STOP_GRACE_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
echo "# seed $seed (STOP_GRACE_SEED=$seed to repeat)"

D=$T/drive.py
cat > "$D" <<'PY'
"""drive.py YS SEED CMD MODE [ignore] [twice]: one stopped run, checked"""
import os, random, signal, subprocess, sys, time

ys, seed, cmd, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
ignore, twice = "ignore" in sys.argv[5:], "twice" in sys.argv[5:]
rng = random.Random("%d %s %s %s" % (seed, cmd, mode, sys.argv[5:]))
token = "%d_%d_%s_%s" % (os.getpid(), seed, cmd, mode)
tmp = os.environ["T"]
out = {"run": ["run", "-q", "--no-store", "--runs", "1"],
       "mem": ["mem", "-q", "--no-store"],
       "record": ["record", "-q", "-o", "%s/%s.folded" % (tmp, token)]}[cmd]
argv = [ys] + out + ["--", sys.argv[0].replace("drive.py", "python3"),
                     os.environ["FIX"], token, mode]
argv[-4] = os.environ["PY"]
if ignore:
    argv.append("ignore")
# a random moment: before the pool, while it starts, while it works
delay = rng.uniform(0.2, 2.5)
print("%s %s: Ctrl-C after %.2f s%s%s" % (cmd, mode, delay,
      " (SIGINT ignored)" if ignore else "", ", twice" if twice else ""))
p = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.DEVNULL,
                     stderr=open("%s/%s.err" % (tmp, token), "w"))
time.sleep(delay)
os.killpg(p.pid, signal.SIGINT)
t0 = time.monotonic()
if twice:
    time.sleep(0.3)
    os.killpg(p.pid, signal.SIGINT)
    t0 = time.monotonic()
try:
    code = p.wait(timeout=30)
except subprocess.TimeoutExpired:
    os.killpg(p.pid, signal.SIGKILL)
    print("yardstick still running 30 s after the Ctrl-C")
    sys.exit(1)
took = time.monotonic() - t0
bad = []
if code != 130:
    bad.append("exit %d, not 130" % code)
# the stop's grace (2 s), the leftovers' (0.2 + 2 s), the report: 8 s on
# a busy machine; a second Ctrl-C: at once, 1.5 s for a loaded machine
limit = 1.5 if twice else 8
if took > limit:
    bad.append("took %.2f s after the Ctrl-C, over %g" % (took, limit))
# a second Ctrl-C kills at once: what the tracker had to unlink may stay
if os.path.exists("/dev/shm/ysshm_" + token):
    os.unlink("/dev/shm/ysshm_" + token)
    if not twice:
        bad.append("/dev/shm/ysshm_%s left behind" % token)
left = []
for pid in os.listdir("/proc"):
    try:
        if pid.isdigit() and token.encode() in open("/proc/%s/cmdline" % pid, "rb").read():
            left.append(pid)
    except OSError:
        pass
for pid in left:
    os.kill(int(pid), signal.SIGKILL)
if left:
    bad.append("left running: %s" % left)
print("exit %d after %.2f s; %s" % (code, took, "; ".join(bad) or "clean"))
if bad:
    print(open("%s/%s.err" % (tmp, token)).read()[-2000:])
sys.exit(1 if bad else 0)
PY
export FIX PY
stopped() {
	python3 "$D" "$YS" "$seed" "$@"
}
for cmd in run mem record; do
	for mode in spawn fork; do
		t "$cmd, multiprocessing $mode, Ctrl-C at a random moment: exit 130, /dev/shm clean, nothing left" \
			stopped $cmd $mode
	done
done
t "run, a program that ignores SIGINT: killed at the grace's end, nothing left" \
	stopped run spawn ignore
t "mem, a program that ignores SIGINT: killed at the grace's end, nothing left" \
	stopped mem fork ignore
t "run, a second Ctrl-C: out at once, nothing left running" \
	stopped run spawn ignore twice
t "mem, a second Ctrl-C: out at once, nothing left running" \
	stopped mem spawn ignore twice
t "record, a second Ctrl-C: out at once, nothing left running" \
	stopped record fork ignore twice

finish
