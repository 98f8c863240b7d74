#!/bin/sh
# yardstick record --pid: attached to a process running already, which it
# leaves running: a C program whose two functions spin 3:1 and which
# starts a thread after the attach (SIGUSR1), a Python script whose two
# functions spin 2:1 (/usr/bin/python3, and pyenv's shim when there),
# a process that exits while recorded, Ctrl-C, and the refusals.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/pid"
cat >"$T/pid/spin.c" <<'C'
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static volatile unsigned long sink;
static volatile sig_atomic_t go;

/* each spins in its own body (no call to share, no tail call) on a
 * chain of multiplies, whose cost per step does not depend on where the
 * loop lies (a loop through memory ran 60:40 or 86:14 by alignment) */
#define SPIN(n) do { \
	unsigned long x = sink; \
	for (unsigned long i = 0; i < (n); i++) { \
		x = x * 6364136223846793005UL + 1; \
		__asm__ volatile("" : "+r"(x)); \
	} \
	sink = x; \
} while (0)

__attribute__((noinline)) void spin_three(void)
{
	SPIN(3000000);
}

__attribute__((noinline)) void spin_one(void)
{
	SPIN(1000000);
}

__attribute__((noinline)) void late_spin(void)
{
	SPIN(1000000);
}

static void *late(void *arg)
{
	for (;;)
		late_spin();
	return arg;
}

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

int main(void)
{
	pthread_t t;
	int started = 0;

	signal(SIGUSR1, on_usr1);
	for (;;) {
		spin_three();
		spin_one();
		if (go && !started) {
			pthread_create(&t, NULL, late, NULL);
			started = 1;
		}
	}
}
C
cat >"$T/pid/py21.py" <<'PY'
import sys, time
def two():
    s = 0
    for i in range(20000):
        s += i
    return s
def one():
    s = 0
    for i in range(10000):
        s += i
    return s
end = time.time() + float(sys.argv[1])
open(sys.argv[2], "w").close()
while time.time() < end:
    two()
    one()
PY
cc -O1 -fno-omit-frame-pointer -pthread -o "$T/pid/spin" "$T/pid/spin.c" ||
	{ echo "Bail out! cannot build the fixture"; exit 1; }

# wait_perf PID: until yardstick PID has its perf events open (10 s)
wait_perf() {
	for _ in $(seq 100); do
		ls -l /proc/"$1"/fd 2>/dev/null | grep -q perf_event && return 0
		sleep 0.1
	done
	return 1
}

# wait_file FILE: until FILE exists (20 s: pyenv's shim starts slowly)
wait_file() {
	for _ in $(seq 200); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# shares FOLDED A B WANT: A's share of A + B's samples within 10 points
# of WANT, from 50 samples of them up; prints the counts
shares() {
	python3 - "$@" <<'PYS'
import sys
f, a, b, want = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
na = nb = 0
for line in open(f):
    st, n = line.rsplit(" ", 1)
    fr = [x.split(" (")[0] for x in st.split(";")]
    na += int(n) * (a in fr)
    nb += int(n) * (b in fr)
print(a, na, b, nb)
assert na + nb >= 50, (na, nb)
assert abs(100 * na / (na + nb) - want) <= 10, (na, nb, 100 * na / (na + nb))
PYS
}

attach_c() {
	"$T/pid/spin" &
	P=$!
	"$YS" record --pid $P --duration 1.5 -o "$T/pid/c.folded" \
		2>"$T/pid/c.err" &
	R=$!
	wait_perf $R && sleep 0.2 && kill -USR1 $P
	wait $R
	rc=$?
	alive=0
	kill -0 $P 2>/dev/null && alive=1
	kill $P
	wait $P 2>/dev/null
	cat "$T/pid/c.err"
	[ $rc = 0 ] || { echo "exit $rc"; return 1; }
	[ $alive = 1 ] || { echo "the program did not survive"; return 1; }
	has "$T/pid/c.err" "attached to pid $P (spin) for 1." &&
	has "$T/pid/c.err" "its duration; it is still running" &&
	shares "$T/pid/c.folded" spin_three spin_one 75 &&
	# the thread started after the attach: followed (inherit)
	python3 - "$T/pid/c.folded" <<'PYL'
import sys
n = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[1])
        if "late_spin" in l)
print("late_spin", n)
assert n >= 5, n
PYL
}
t "record --pid: a C program's 3:1 functions within 10 points, the thread started after the attach followed, the program left running (retried 3x)" retry attach_c

attach_py() {
	rm -f "$T/pid/ready"
	"$1" "$T/pid/py21.py" 60 "$T/pid/ready" &
	P=$!
	wait_file "$T/pid/ready" || { kill $P; echo "not started"; return 1; }
	"$YS" record --pid $P --duration 1.5 -o "$T/pid/py.folded" \
		2>"$T/pid/py.err"
	rc=$?
	kill $P
	wait $P 2>/dev/null
	cat "$T/pid/py.err"
	[ $rc = 0 ] || { echo "exit $rc"; return 1; }
	has "$T/pid/py.folded" "two (py21.py:2)" &&
	has "$T/pid/py.folded" "<module> (py21.py:1)" &&
	shares "$T/pid/py.folded" two one 66.7
}
t "record --pid of /usr/bin/python3: Python frames, two:one 2:1 within 10 points (retried 3x)" retry attach_py /usr/bin/python3
SHIM=${PYENV_ROOT:-/root/.pyenv}/shims/python3
if [ -x "$SHIM" ]; then
	t "record --pid of a python3 started by pyenv's shim: Python frames, 2:1 (retried 3x)" retry attach_py "$SHIM"
else
	skip "record --pid of a python3 started by pyenv's shim" "no pyenv"
fi

# the process exits while recorded: the profile up to its end, exit 0
attach_exit() {
	rm -f "$T/pid/ready"
	/usr/bin/python3 "$T/pid/py21.py" 1.5 "$T/pid/ready" &
	P=$!
	wait_file "$T/pid/ready" || return 1
	expect_exit 0 "$YS" record --pid $P -o "$T/pid/exit.folded" ||
		return 1
	wait $P
	cat "$T/stderr"
	has "$T/stderr" "until it exited" &&
	has "$T/pid/exit.folded" "two (py21.py:2)"
}
t "record --pid of a process that exits meanwhile: its profile written, exit 0" attach_exit

# Ctrl-C: yardstick stops and writes; the program runs on
attach_int() {
	"$T/pid/spin" &
	P=$!
	"$YS" record --pid $P -o "$T/pid/int.folded" 2>"$T/pid/int.err" &
	R=$!
	wait_perf $R && sleep 0.5
	kill -INT $R
	wait $R
	rc=$?
	alive=0
	kill -0 $P 2>/dev/null && alive=1
	kill $P
	wait $P 2>/dev/null
	cat "$T/pid/int.err"
	[ $rc = 0 ] || { echo "exit $rc"; return 1; }
	[ $alive = 1 ] || { echo "the program did not survive"; return 1; }
	has "$T/pid/int.err" "until stopped; it is still running" &&
	has "$T/pid/int.folded" "spin_three"
}
t "record --pid stopped by SIGINT: the profile written, exit 0, the program still running" attach_int

# --idle: a loop that sleeps 50 ms at a time is off the CPU nearly all
# the second (its sleeps are followed: inherit); kernel-level context
# switches need perf_event_paranoid 1 or root
attach_idle() {
	sh -c 'while :; do sleep 0.05; done' &
	P=$!
	expect_exit 0 "$YS" record --pid $P --duration 1 --idle \
		-o "$T/pid/idle.folded"
	rc=$?
	kill $P
	wait $P 2>/dev/null
	[ $rc = 0 ] || return 1
	cat "$T/stderr"
	has "$T/pid/idle.folded" "[idle]" &&
	sed -En 's/^idle: ([0-9]+) samples.*/\1/p' "$T/stderr" |
		awk '{ print "idle", $1; exit !($1 >= 300 && $1 <= 3000) }'
}
if [ "$(id -u)" = 0 ] ||
   [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ]; then
	t "record --pid --idle: a sleeping loop's second off the CPU, 300 to 3000 samples' worth" attach_idle
else
	skip "record --pid --idle" "perf_event_paranoid above 1, not root"
fi

# 200 threads on every CPU: more events than a soft limit of 256
# descriptors holds (the hard limit is raised to)
many_threads() {
	rm -f "$T/pid/ready"
	/usr/bin/python3 -c '
import sys, threading, time
for _ in range(200):
    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
open(sys.argv[1], "w").close()
end = time.time() + 60
while time.time() < end:
    pass
' "$T/pid/ready" &
	P=$!
	wait_file "$T/pid/ready" || { kill $P; return 1; }
	(ulimit -Sn 256 && "$YS" record --pid $P --duration 0.5 \
		-o "$T/pid/many.folded") >"$T/pid/many.err" 2>&1
	rc=$?
	kill $P
	wait $P 2>/dev/null
	cat "$T/pid/many.err"
	[ $rc = 0 ] && has "$T/pid/many.folded" "<module> (<string>:1)"
}
if [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 1024 ]; then
	t "record --pid of 200 threads under a soft limit of 256 descriptors" many_threads
else
	skip "record --pid of 200 threads" "hard descriptor limit under 1024"
fi

no_pid() {
	true &
	P=$!
	wait $P
	expect_exit 2 "$YS" record --pid $P -o "$T/pid/none.folded" &&
	has "$T/stderr" "no process $P" &&
	[ ! -e "$T/pid/none.folded" ]
}
t "record --pid of no process: exit 2, nothing written" no_pid
t "record --pid with a program too: exit 2" \
	expect_exit 2 "$YS" record --pid $$ -- true
t "record --duration without --pid: exit 2" \
	expect_exit 2 "$YS" record --duration 1 -- true

not_ours() {
	expect_exit 3 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$YS" record --pid 1 --duration 0.5 &&
	has "$T/stderr" "not permitted to sample process 1" &&
	has "$T/stderr" "ptrace"
}
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	t "record --pid of another user's process: exit 3 naming ptrace" not_ours
else
	skip "record --pid of another user's process" "not root"
fi

finish
