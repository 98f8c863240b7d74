#!/bin/sh
# yardstick record --pid: attached to a process running already, which it
# leaves running: a C program whose two functions spin 3:1 and which
# starts a thread after the attach (SIGUSR1), a Python script whose two
# functions spin 2:1 (/usr/bin/python3, and pyenv's shim when there),
# a process that exits while recorded, Ctrl-C, and the refusals; the
# child processes it had at the attach (C workers, a multiprocessing
# Pool, Python under a shell; one exiting, a zombie, another user's,
# --no-children), and the limit of open files.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/pid"
# SPIN(n), the C fixtures' busy loop: each function spins in its own
# body (no call to share, no tail call) on a chain of multiplies, whose
# cost per step does not depend on where the loop lies (a loop through
# memory ran 60:40 or 86:14 by alignment)
cat >"$T/pid/spin.h" <<'C'
static volatile unsigned long sink;

#define SPIN(n) do { \
	unsigned long x = sink; \
	for (unsigned long i = 0; i < (n); i++) { \
		x = x * 6364136223846793005UL + 1; \
		__asm__ volatile("" : "+r"(x)); \
	} \
	sink = x; \
} while (0)
C
cat >"$T/pid/spin.c" <<'C'
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "spin.h"

static volatile sig_atomic_t go;

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
	alive=$(running $P)
	kill $P
	wait $P 2>/dev/null
	attached_ok $rc $alive "$T/pid/c.err" || return 1
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

# rec_pid DURATION NAME: record --pid $P for DURATION s into
# $T/pid/NAME.folded, its stderr in NAME.err (shown), then $P killed;
# fails unless record exited 0
rec_pid() {
	"$YS" record --pid $P --duration "$1" -o "$T/pid/$2.folded" \
		2>"$T/pid/$2.err"
	rc=$?
	kill $P
	wait $P 2>/dev/null
	cat "$T/pid/$2.err"
	[ $rc = 0 ] || { echo "exit $rc"; return 1; }
}

attach_py() {
	rm -f "$T/pid/ready"
	"$1" "$T/pid/py21.py" 60 "$T/pid/ready" &
	P=$!
	wait_file "$T/pid/ready" || { kill $P; echo "not started"; return 1; }
	rec_pid 1.5 py || return 1
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
	attach_sigint "$T/pid/int.err" record --pid $P -o "$T/pid/int.folded"
	kill $P
	wait $P 2>/dev/null
	attached_ok $rc $alive "$T/pid/int.err" || return 1
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

# ---- the child processes PID had at the attach (not --no-children) ----
# kids MODE READY: a parent that forks its workers before anything
# attaches, then creates READY. pp: two workers passing a token, work_two
# (2 units) then work_one (1 unit), never both at once: 2:1 of CPU time
# whatever the scheduling; the parent idle. busy: the parent spins in
# parent_spin, the workers in work_two and work_one. exit MS: work_one's
# worker exits MS ms after the start, and the parent waits for it. zombie:
# a child that exits at once, never waited for; the parent spins. user
# UID: (as root) the worker of work_one becomes user UID, the parent (in
# work_two) user 65534, ptraceable by it. idle: the parent and two
# workers asleep.
cat >"$T/pid/kids.c" <<'C'
#define _GNU_SOURCE
#include <grp.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

__attribute__((noinline)) void work_two(void) { SPIN(2000000); }
__attribute__((noinline)) void work_one(void) { SPIN(1000000); }
__attribute__((noinline)) void parent_spin(void) { SPIN(1000000); }

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* a worker: killed with its parent */
static pid_t worker(void)
{
	pid_t parent = getpid(), p = fork();

	if (p == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
	}
	return p;
}

static void token(int in, int out, void (*work)(void))
{
	char c;

	for (;;) {
		if (read(in, &c, 1) != 1)
			_exit(0);
		work();
		if (write(out, &c, 1) != 1)
			_exit(0);
	}
}

static void ready(const char *path)
{
	close(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644));
}

static void drop(unsigned id)
{
	if (setgroups(0, NULL) || setresgid(id, id, id) ||
	    setresuid(id, id, id))
		_exit(9);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[1] : "";
	double t0 = now();

	if (!strcmp(mode, "pp")) {
		int ab[2], ba[2];

		if (pipe(ab) || pipe(ba))
			return 1;
		if (worker() == 0)
			token(ba[0], ab[1], work_two);
		if (worker() == 0)
			token(ab[0], ba[1], work_one);
		if (write(ba[1], "x", 1) != 1)
			return 1;
		ready(argv[2]);
		for (;;)
			pause();
	}
	if (!strcmp(mode, "busy") || !strcmp(mode, "exit")) {
		double ms = argc > 3 ? atof(argv[3]) : 0;
		pid_t b;

		if (worker() == 0)
			for (;;)
				work_two();
		if ((b = worker()) == 0)
			for (;;) {
				work_one();
				if (ms > 0 && now() - t0 > ms / 1000)
					_exit(0);
			}
		ready(argv[2]);
		if (ms > 0) {
			waitpid(b, NULL, 0);
			for (;;)
				pause();
		}
		for (;;)
			parent_spin();
	}
	if (!strcmp(mode, "idle")) {
		if (worker() == 0 || worker() == 0)
			for (;;)
				pause();
		ready(argv[2]);
		for (;;)
			pause();
	}
	if (!strcmp(mode, "zombie")) {
		siginfo_t si;
		pid_t z = fork();

		if (z == 0)
			_exit(0);
		waitid(P_PID, (id_t)z, &si, WEXITED | WNOWAIT);
		ready(argv[2]);
		for (;;)
			parent_spin();
	}
	if (!strcmp(mode, "user") && argc > 3) {
		if (worker() == 0) {
			drop((unsigned)atoi(argv[3]));
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				work_one();
		}
		drop(65534);
		prctl(PR_SET_DUMPABLE, 1);
		ready(argv[2]);
		for (;;)
			work_two();
	}
	return 2;
}
C
cc -O1 -fno-omit-frame-pointer -o "$T/pid/kids" "$T/pid/kids.c" ||
	{ echo "Bail out! cannot build the kids fixture"; exit 1; }

# start_kids MODE [ARG]: the fixture started, its workers forked: P
start_kids() {
	rm -f "$T/pid/kready"
	"$T/pid/kids" "$1" "$T/pid/kready" ${2:-} &
	P=$!
	wait_file "$T/pid/kready"
}

stop_kids() {
	kill $P 2>/dev/null
	wait $P 2>/dev/null
}

# the workers' 2:1, the parent idle: only its children have samples
kids_pp() {
	start_kids pp || { stop_kids; return 1; }
	"$YS" record --pid $P --duration 1.5 -o "$T/pid/pp.folded" \
		2>"$T/pid/pp.err"
	rc=$?
	stop_kids
	cat "$T/pid/pp.err"
	[ $rc = 0 ] || { echo "exit $rc"; return 1; }
	has "$T/pid/pp.err" "attached to pid $P (kids) and 2 child processes for 1." &&
	shares "$T/pid/pp.folded" work_two work_one 66.7
}
t "record --pid: the 2 workers a C parent forked before the attach, 2:1 within 10 points, the parent idle (retried 3x)" retry kids_pp

# multiprocessing.Pool(2), started before the attach: two() and one()
# take turns in the workers, 2:1 by their work
cat >"$T/pid/pool.py" <<'PY'
import multiprocessing, sys
def two():
    s = 0
    for i in range(200000):
        s += i
    return s
def one():
    s = 0
    for i in range(100000):
        s += i
    return s
def task(k):
    return two() if k else one()
if __name__ == "__main__":
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(task, [0, 1])
        open(sys.argv[1], "w").close()
        while True:
            pool.map(task, [0, 1] * 4, chunksize=1)
PY
kids_pool() {
	rm -f "$T/pid/pready"
	/usr/bin/python3 "$T/pid/pool.py" "$T/pid/pready" 2>"$T/pid/pool.py.err" &
	P=$!
	wait_file "$T/pid/pready" || { kill $P; return 1; }
	"$YS" record --pid $P --duration 2 -o "$T/pid/pool.folded" \
		2>"$T/pid/pool.err"
	rc=$?
	kill $P
	wait $P 2>/dev/null
	cat "$T/pid/pool.err"
	[ $rc = 0 ] || { echo "exit $rc"; return 1; }
	has "$T/pid/pool.err" "and 2 child processes" &&
	has "$T/pid/pool.folded" "two (pool.py:2)" &&
	has "$T/pid/pool.folded" "one (pool.py:7)" &&
	shares "$T/pid/pool.folded" two one 66.7
}
t "record --pid of a multiprocessing.Pool(2) started before the attach: the workers' Python frames, two:one 2:1 within 10 points (retried 3x)" retry kids_pool

# a shell whose children run Python: their CPython found, dwarf chosen
kids_sh_py() {
	rm -f "$T/pid/ready"
	sh -c '/usr/bin/python3 "$1" 60 "$2" & /usr/bin/python3 "$1" 60 "$2.b" & wait' \
		sh "$T/pid/py21.py" "$T/pid/ready" &
	P=$!
	wait_file "$T/pid/ready" && wait_file "$T/pid/ready.b" ||
		{ pkill -P $P; kill $P; return 1; }
	"$YS" record --pid $P --duration 1.5 -o "$T/pid/shpy.folded" \
		2>"$T/pid/shpy.err"
	rc=$?
	pkill -P $P
	kill $P
	wait $P 2>/dev/null
	cat "$T/pid/shpy.err"
	[ $rc = 0 ] || { echo "exit $rc"; return 1; }
	has "$T/pid/shpy.err" "(sh) and 2 child processes" &&
	has "$T/pid/shpy.folded" "two (py21.py:2)" &&
	shares "$T/pid/shpy.folded" two one 66.7
}
t "record --pid of a shell with two python3 children: their Python frames (retried 3x)" retry kids_sh_py

# a worker exits 2.5 s after the start (1 s into the recording) and is
# waited for: its samples kept, the other's too; the CPU time not
# counted twice (its time before the attach reaches the parent's
# children's time at the wait: 1.5 s more CPU, about 660 Hz effective)
kids_exit() {
	start_kids exit 2500 || { stop_kids; return 1; }
	sleep 1.5
	"$YS" record --pid $P --duration 2 -o "$T/pid/kexit.folded" \
		2>"$T/pid/kexit.err"
	rc=$?
	alive=$(running $P)
	stop_kids
	attached_ok $rc $alive "$T/pid/kexit.err" "the parent" || return 1
	has "$T/pid/kexit.err" "and 2 child processes" &&
	python3 - "$T/pid/kexit.folded" "$T/pid/kexit.err" <<'PYX'
import re, sys
n = {"work_two": 0, "work_one": 0}
for line in open(sys.argv[1]):
    st, c = line.rsplit(" ", 1)
    for f in n:
        n[f] += int(c) * (f in st.split(";"))
hz = int(re.search(r"\((\d+) Hz effective\)", open(sys.argv[2]).read()).group(1))
print(n, "Hz", hz)
assert n["work_two"] >= 100 and n["work_one"] >= 30, n
assert 800 <= hz <= 1250, hz
PYX
}
t "record --pid: a child exiting and waited for meanwhile: its samples kept, the CPU time counted once (retried 3x)" retry kids_exit

# a parent and its workers asleep: no sample, and the message says whose
# CPU time it gives (it said "process N used" for the whole tree's)
kids_idle() {
	start_kids idle || { stop_kids; return 1; }
	expect_exit 1 "$YS" record --pid $P --duration 0.3 \
		-o "$T/pid/kidle.folded"
	rc=$?
	stop_kids
	[ $rc = 0 ] &&
	has "$T/stderr" "no samples: process $P and its 2 child processes used" &&
	has "$T/stderr" "(they were idle)" && [ ! -e "$T/pid/kidle.folded" ]
}
t "record --pid of a sleeping parent and its 2 sleeping workers: no samples, the message names the tree" kids_idle

# a zombie child: passed over, said; the parent sampled
kids_zombie() {
	start_kids zombie || { stop_kids; return 1; }
	expect_exit 0 "$YS" record --pid $P --duration 0.5 \
		-o "$T/pid/zomb.folded"
	rc=$?
	stop_kids
	cat "$T/stderr"
	[ $rc = 0 ] &&
	has "$T/stderr" "1 child process passed over: exited, not yet waited for by its parent (zombie)" &&
	has "$T/stderr" "attached to pid $P (kids) for" &&
	has "$T/pid/zomb.folded" "parent_spin"
}
t "record --pid with a zombie child: passed over with a note, the parent sampled" kids_zombie

# --no-children: the parent alone
kids_nochildren() {
	start_kids busy || { stop_kids; return 1; }
	expect_exit 0 "$YS" record --pid $P --no-children --duration 0.5 \
		-o "$T/pid/noch.folded"
	rc=$?
	stop_kids
	cat "$T/stderr"
	[ $rc = 0 ] && has "$T/pid/noch.folded" "parent_spin" &&
	! grep -q "work_two\|work_one" "$T/pid/noch.folded" &&
	! grep -q "child process" "$T/stderr"
}
t "record --pid --no-children: the parent alone, its workers not sampled" kids_nochildren
# a child of another user: skipped with a warning, the rest sampled.
# Its worker is killed first, by root: the parent-death signal it asked
# for never comes, as the parent (user 65534) may not signal it (user
# 65533), and it spun on after every run of this test.
kill_user_kids() {
	pkill -KILL -P $P 2>/dev/null
	kill $P 2>/dev/null
	wait $P 2>/dev/null
}
kids_user() {
	U=$(mktemp -d /tmp/ys-pidu-XXXXXX)
	chmod 777 "$U"
	cp "$T/pid/kids" "$U/kids"
	rm -f "$U/ready"
	"$U/kids" user "$U/ready" 65533 &
	P=$!
	wait_file "$U/ready" || { kill_user_kids; rm -rf "$U"; return 1; }
	expect_exit 0 env XDG_CACHE_HOME="$U/cache" setpriv --reuid=65534 \
		--regid=65534 --clear-groups "$YS" record --pid $P \
		--duration 0.5 -o "$U/user.folded"
	rc=$?
	kill_user_kids
	cat "$T/stderr"
	ok=1
	[ $rc = 0 ] && has "$T/stderr" "warning: child process" &&
	has "$T/stderr" "(kids) not sampled: not permitted" &&
	has "$U/user.folded" "work_two" &&
	! grep -q work_one "$U/user.folded" && ok=0
	rm -rf "$U"
	return $ok
}
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	t "record --pid with a child of another user: skipped with a warning, the parent sampled" kids_user
else
	skip "record --pid with a child of another user" "not root"
fi

# a parent that forks a short-lived child every 2 ms: the walk of its
# tree ends (it looked at the whole tree again until no process was new,
# which never came: the attach hung), its children sampled
cat >"$T/pid/storm.c" <<'C'
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void storm_child(void)
{
	for (unsigned long i = 0; i < 20000000; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	close(open(argv[argc - 1], O_WRONLY | O_CREAT, 0644));
	for (;;) {
		if (fork() == 0) {
			storm_child();
			_exit(0);
		}
		usleep(2000);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
}
C
cc -O1 -fno-omit-frame-pointer -o "$T/pid/storm" "$T/pid/storm.c" ||
	{ echo "Bail out! cannot build the storm fixture"; exit 1; }
fork_storm() {
	rm -f "$T/pid/sready"
	"$T/pid/storm" "$T/pid/sready" &
	P=$!
	wait_file "$T/pid/sready" || { kill $P; return 1; }
	sleep 0.3
	timeout 60 "$YS" record --pid $P --duration 0.5 \
		-o "$T/pid/storm.folded" 2>"$T/pid/storm.err"
	rc=$?
	kill $P
	wait $P 2>/dev/null
	sleep 0.3	# its last children end by themselves
	cat "$T/pid/storm.err"
	[ $rc = 0 ] || { echo "exit $rc"; return 1; }
	grep -Eq "attached to pid $P \(storm\) and [0-9]+ child process" "$T/pid/storm.err" &&
	has "$T/pid/storm.folded" "storm_child"
}
t "record --pid of a parent forking a child every 2 ms: the attach ends, the children sampled" fork_storm

# too few descriptors for an event per thread and CPU: said so, exit 3
few_fds() {
	rm -f "$T/pid/ready"
	/usr/bin/python3 -c '
import sys, threading, time
for _ in range(100):
    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
open(sys.argv[1], "w").close()
time.sleep(60)
' "$T/pid/ready" &
	P=$!
	wait_file "$T/pid/ready" || { kill $P; return 1; }
	(ulimit -Sn 64 && ulimit -Hn 64 && "$YS" record --pid $P \
		--duration 0.5 -o "$T/pid/few.folded") >"$T/pid/few.err" 2>&1
	rc=$?
	kill $P
	wait $P 2>/dev/null
	cat "$T/pid/few.err"
	[ $rc = 3 ] && has "$T/pid/few.err" "the limit of open files, 64, is reached" &&
	[ ! -e "$T/pid/few.folded" ]
}
t "record --pid past the limit of open files: exit 3 saying which limit" few_fds

# the thread whose events own the rings (the first listed, the main one)
# ends while another runs: its samples still wake the reader at once
# (with -g dwarf and --python on, at every sample), not at the 100 ms
# timeout that would leave a CPython's frames read too late: the reader's
# voluntary context switches, a sleep in poll each, over half a second
cat >"$T/pid/mainexit.c" <<'C'
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void worker_spin(void)
{
	for (unsigned long i = 0; i < 1000000; i++)
		sink += i;
}

static void *worker(void *arg)
{
	for (;;)
		worker_spin();
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	close(open(argv[argc - 1], O_WRONLY | O_CREAT, 0644));
	sleep(1);
	pthread_exit(NULL);
}
C
cc -O1 -fno-omit-frame-pointer -pthread -o "$T/pid/mainexit" "$T/pid/mainexit.c" ||
	{ echo "Bail out! cannot build the mainexit fixture"; exit 1; }
ctxt() {
	sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' /proc/"$1"/status
}
main_exits() {
	rm -f "$T/pid/mready"
	"$T/pid/mainexit" "$T/pid/mready" &
	P=$!
	wait_file "$T/pid/mready" || { kill $P; return 1; }
	"$YS" record --pid $P -g dwarf --duration 3 -o "$T/pid/mexit.folded" \
		2>"$T/pid/mexit.err" &
	R=$!
	sleep 2
	a=$(ctxt $R)
	sleep 0.5
	b=$(ctxt $R)
	wait $R
	rc=$?
	kill $P
	wait $P 2>/dev/null
	cat "$T/pid/mexit.err"
	echo "reader's voluntary switches in 0.5 s: $((b - a))"
	# at the timeout alone: 5 or 6; at every sample, as many as samples
	# (about 500, but the spinning thread may get a tenth of a CPU here)
	[ $rc = 0 ] && [ $((b - a)) -ge 15 ]
}
t "record --pid: the main thread ends, the other's samples still wake the reader at once (retried 3x)" retry main_exits

# threads started every 15 ms while record attaches to 1000 others
# (tests/fixtures/stormfix.c; trace_pid.sh checks each thread's samples):
# the ones started once the main thread's events were open inherit them
# and are listed again, and were sampled twice. storm_spin's samples are
# at most the storm threads' CPU time (/proc/self/task/TID/schedstat, in
# stormfix's report) at 999 Hz, and some (the storm starts once the
# attach has opened its first event, STORMFIX_GO; threads that spun
# before their listing may have none)
storm_record() {
	rm -f "$T/pid/stready" "$T/pid/streport" "$T/pid/stgo"
	STORMFIX_GO=$T/pid/stgo "$(dirname "$YSFIX")/stormfix" "$T/pid/stready" \
		"$T/pid/streport" 1000 100 20 15 &
	P=$!
	wait_file "$T/pid/stready" || { kill $P; return 1; }
	"$YS" record --pid $P -o "$T/pid/st.folded" 2>"$T/pid/st.err" &
	ysp=$!
	go_on_attach $ysp "$T/pid/stgo"
	wait $ysp
	rc=$?
	wait $P
	prc=$?
	cat "$T/pid/st.err"
	[ $rc = 0 ] && [ $prc = 0 ] || { echo "exit $rc, stormfix $prc"; return 1; }
	python3 - "$T/pid/st.folded" "$T/pid/streport" <<'PYS'
import sys
n = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[1])
        if "storm_spin" in l.rsplit(" ", 1)[0].split(";"))
ms = sum(int(l.split()[1]) / 1e6 for l in open(sys.argv[2]))
print("storm_spin samples", n, "storm threads' CPU ms", round(ms))
assert 20 <= n <= 1.15 * ms + 10, (n, ms)
PYS
}
t "record --pid while 100 threads start: their samples at most their CPU time (/proc), not twice it" storm_record

# a thread per request without end (stormfix NSTORM 0: a thread every
# 0.2 ms, each spinning 0.05 ms of its CPU time and exiting). The attach
# lists the threads again while new ones come, at most 8 times: it ends,
# and --duration after it. A sample in a new thread's first instructions
# (clone3 after the system call) is clone3 alone: it had 127 [unknown]
# frames behind it, the registers' garbage (87% of frames unknown)
storm_endless() {
	rm -f "$T/pid/seready"
	"$(dirname "$YSFIX")/stormfix" "$T/pid/seready" "$T/pid/serep" \
		100 0 0.05 0.2 &
	P=$!
	wait_file "$T/pid/seready" || { kill $P; return 1; }
	timeout 120 "$YS" record -F 20000 --pid $P --duration 0.3 \
		-o "$T/pid/se.folded" 2>"$T/pid/se.err"
	rc=$?
	# at the default rate: each thread ran less than a period
	timeout 120 "$YS" record --pid $P --duration 0.3 \
		-o "$T/pid/se2.folded" 2>"$T/pid/se2.err"
	rc2=$?
	kill $P
	wait $P
	cat "$T/pid/se.err" "$T/pid/se2.err"
	[ $rc = 0 ] || { echo "exit $rc (124: the attach did not end)"; return 1; }
	[ $rc2 = 0 ] || [ $rc2 = 1 ] || { echo "exit $rc2 at 999 Hz"; return 1; }
	python3 - "$T/pid/se.folded" "$T/pid/se2.err" $rc2 <<'PYS'
import re, sys
n = bad = 0
for l in open(sys.argv[1]):
    frames = l.rsplit(" ", 1)[0].split(";")
    if "clone3" in frames:
        n += 1
        bad += frames[0] != "clone3"
print(n, "stacks through clone3,", bad, "with frames beyond it")
assert bad == 0, bad
# no sample at 999 Hz: the message says why (the CPU time was not idle)
if sys.argv[3] == "1":
    err = open(sys.argv[2]).read()
    ms = float(re.search(r"used ([0-9.e+]+) ms of CPU time", err).group(1))
    if ms >= 10.02:
        assert "in threads that each ran less than a sampling period" in err, err
    else:
        assert "idle" in err, err
PYS
}
t "record --pid of a process starting a thread every 0.2 ms without end: the attach ends; a sample in clone3 has no frames beyond it" storm_endless

# ---- threads that come and go during the attach (churnfix) ----
# tests/fixtures/churnfix.c: a thread "long" spinning all along and relays
# of threads each spinning WORK_US of its CPU, starting its successor and
# ending (a relay's threads all descend from its first); after SIGUSR1
# they spin in spin_long and spin_relay_K for RUN_MS and report the CPU
# time spent in each (CLOCK_THREAD_CPUTIME_ID, read inside it), which at
# 999 Hz is what each function's samples must be: every relay's threads
# were started after the attach, and are followed only through the events
# their first inherited. The signal goes once the attach has ended: the
# number of record's perf events unchanged for 0.8 s.
# wait_attached PID: until yardstick PID's perf events stop growing (60 s)
wait_attached() {
	w_last=-1 w_same=0
	for _ in $(seq 600); do
		w_n=$(ls -l /proc/"$1"/fd 2>/dev/null | grep -c perf_event)
		if [ "$w_n" -gt 0 ] && [ "$w_n" = "$w_last" ]; then
			w_same=$((w_same + 1))
			[ $w_same -ge 8 ] && return 0
		else
			w_same=0
		fi
		w_last=$w_n
		sleep 0.1
	done
	return 1
}
# churn_run NAME NSLEEP NCHAINS WORK_US [pin]: churnfix attached to by
# record -F 999 --pid (its environment: $CHURN_ENV), SIGUSR1 once the
# attach ended, 1.5 s of work; NAME.folded, NAME.err, NAME.report
churn_run() {
	name=$1
	shift
	rm -f "$T/pid/$name.ready" "$T/pid/$name.report"
	"$(dirname "$YSFIX")/churnfix" "$T/pid/$name.ready" \
		"$T/pid/$name.report" $1 $2 $3 1500 ${4:-} &
	P=$!
	wait_file "$T/pid/$name.ready" || { kill $P; return 1; }
	env $CHURN_ENV "$YS" record -F 999 --pid $P \
		-o "$T/pid/$name.folded" 2>"$T/pid/$name.err" &
	R=$!
	if ! wait_attached $R; then
		echo "the attach did not end"
		kill $R $P
		wait $R $P
		return 1
	fi
	kill -USR1 $P
	wait $R
	rc=$?
	wait $P
	prc=$?
	cat "$T/pid/$name.err" "$T/pid/$name.report"
	[ $rc = 0 ] && [ $prc = 0 ] || { echo "exit $rc, churnfix $prc"; return 1; }
}
# churn_check NAME: spin_long's and each spin_relay_K's samples within
# [0.6, 1.25] of their CPU time at 999 Hz (15 samples of slack), each
# from 100 expected up (fewer: the machine too busy to tell, retried)
churn_check() {
	python3 - "$T/pid/$1.folded" "$T/pid/$1.report" <<'PYC'
import sys
n = {}
for l in open(sys.argv[1]):
    st, c = l.rsplit(" ", 1)
    for f in set(x.split(" (")[0] for x in st.split(";")):
        n[f] = n.get(f, 0) + int(c)
want = {}
for l in open(sys.argv[2]):
    w = l.split()
    fn = "spin_long" if w[0] == "long" else "spin_relay_" + w[1]
    want[fn] = int(w[1 if w[0] == "long" else 2]) * 999e-9
bad = []
for fn, x in sorted(want.items()):
    got = n.get(fn, 0)
    print(fn, "samples", got, "expected from its CPU time", round(x))
    if x < 100:
        bad.append("%s: %d expected, too few to tell" % (fn, x))
    elif not 0.6 * x - 15 <= got <= 1.25 * x + 15:
        bad.append("%s: %d samples, %d expected" % (fn, got, x))
assert not bad, bad
PYC
}
# 300 threads asleep and 4 relays of 2 ms threads (about 2000 threads
# a second)
churn_plain() {
	CHURN_ENV= churn_run churn 300 4 2000 && churn_check churn
}
t "record --pid while 4 relays of threads come and go: spin_long and each relay's function sampled at their CPU time (0.6-1.25x) (retried 3x)" retry churn_plain
# the attach pauses 200 ms after each thread's first event (the test hook
# YARDSTICK_TEST_ATTACH_PAUSE), and a relay's thread of 3 ms of CPU (more
# than a period: a thread of less has no sample whatever follows it) ends
# in between, having started its successor, which inherited the events
# open so far: they were left disabled (the thread's others failed,
# ESRCH), and so were the relay's every later thread's, never sampled:
# spin_relay_0 0 samples of 321, 357 and 859 expected. Enabled, they
# follow it on the CPUs opened before the thread ended: the relay is
# pinned to the first CPU, the one opened first (a machine of one CPU
# opens one event per thread: no window)
churn_pause() {
	CHURN_ENV=YARDSTICK_TEST_ATTACH_PAUSE=200 churn_run churnp 0 1 3000 pin &&
	churn_check churnp
}
desc="record --pid: a thread that ends while its events are opened (a 200 ms pause) leaves its successors sampled, spin_relay_0 at its CPU time (retried 3x)"
if [ "$(nproc)" -ge 2 ]; then
	t "$desc" retry churn_pause
else
	skip "$desc" "one CPU: one event per thread, no window"
fi

# the main thread has called pthread_exit before the attach (a zombie
# leader: /proc/PID/maps reads empty, /proc/PID/exe cannot be read,
# process_vm_readv of PID fails): the mappings, the executable and the
# Python frames are read through a live thread, and the worker's samples
# are named (they were all [unknown])
# wait_zombie_leader PID: until PID's main thread has exited (20 s)
wait_zombie_leader() {
	for _ in $(seq 200); do
		grep -q '^State:.Z' /proc/"$1"/status 2>/dev/null && return 0
		sleep 0.1
	done
	echo "the main thread of $1 did not exit"
	return 1
}
main_gone_c() {
	rm -f "$T/pid/mready"
	"$T/pid/mainexit" "$T/pid/mready" &
	P=$!
	wait_file "$T/pid/mready" && wait_zombie_leader $P ||
		{ kill $P; return 1; }
	[ ! -s /proc/$P/maps ] || { echo "its maps are not empty"; kill $P; return 1; }
	rec_pid 1 mgone || return 1
	has "$T/pid/mgone.err" "0.0% of frames unknown" &&
	python3 - "$T/pid/mgone.folded" <<'PYM'
import sys
n = w = 0
for l in open(sys.argv[1]):
    st, c = l.rsplit(" ", 1)
    n += int(c)
    w += int(c) * ("worker_spin" in st.split(";"))
print("samples", n, "in worker_spin", w)
assert n >= 20 and w >= 0.9 * n, (n, w)
PYM
}
t "record --pid of a C program whose main thread has exited: the worker's samples named (maps read through a live thread)" main_gone_c

cat >"$T/pid/mgone.py" <<'PY'
import ctypes, sys, threading
def spin_a():
    s = 0
    for i in range(20000):
        s += i
    return s
def loop():
    while True:
        spin_a()
threading.Thread(target=loop, daemon=True).start()
open(sys.argv[1], "w").close()
ctypes.CDLL(None).pthread_exit(None)
PY
main_gone_py() {
	rm -f "$T/pid/pmready"
	/usr/bin/python3 "$T/pid/mgone.py" "$T/pid/pmready" &
	P=$!
	wait_file "$T/pid/pmready" && wait_zombie_leader $P ||
		{ kill $P; return 1; }
	rec_pid 1.5 pmgone || return 1
	python3 - "$T/pid/pmgone.folded" <<'PYM'
import sys
n = py = 0
for l in open(sys.argv[1]):
    st, c = l.rsplit(" ", 1)
    fr = st.split(";")
    n += int(c)
    py += int(c) * ("spin_a (mgone.py:2)" in fr and "loop (mgone.py:7)" in fr)
print("samples", n, "in spin_a under loop", py)
assert n >= 20 and py >= 0.8 * n, (n, py)
PYM
}
t "record --pid of a python3 whose main thread has exited (pthread_exit): its thread's Python frames" main_gone_py

# The main thread has exited, and the thread the reads go through exits
# too, then the next: leavers (C and Python) starts NLEAVE threads first
# (the lowest thread ids: procdir.c picks the first), then a
# burner, and exits its main thread; once the file GO is there (touched
# when record has its perf events open) the leavers exit 0.4 s apart,
# while the burner spins in before_exits, then, once all have exited, in
# after_exits. Samples after the exits are named as before them (Python's
# were not: the reads went through the first thread picked and failed
# once it had exited: 0 of 1179 samples of after_exits named, 15% of all)
cat >"$T/pid/leavers.c" <<'C'
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define NLEAVE 4
#define STEP_MS 400

#include "spin.h"

static atomic_int gone;
static const char *go;

__attribute__((noinline)) void before_exits(void) { SPIN(1000000); }
__attribute__((noinline)) void after_exits(void) { SPIN(1000000); }

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static void *leaver(void *arg)
{
	while (access(go, F_OK))
		nap_ms(10);
	nap_ms(((long)arg + 1) * STEP_MS);
	atomic_fetch_add(&gone, 1);
	return NULL;
}

static void *burner(void *arg)
{
	while (atomic_load(&gone) < NLEAVE)
		before_exits();
	for (;;)
		after_exits();
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	go = argv[2];
	for (long i = 0; i < NLEAVE; i++)
		pthread_create(&t, NULL, leaver, (void *)i);
	pthread_create(&t, NULL, burner, NULL);
	close(open(argv[1], O_WRONLY | O_CREAT, 0644));
	pthread_exit(NULL);
}
C
cc -O1 -fno-omit-frame-pointer -pthread -o "$T/pid/leavers" "$T/pid/leavers.c" ||
	{ echo "Bail out! cannot build the leavers fixture"; exit 1; }
cat >"$T/pid/leavers.py" <<'PY'
import ctypes, os, sys, threading, time
ready, go = sys.argv[1], sys.argv[2]
NLEAVE, STEP = 4, 0.4
gone = []
def leaver(i):
    while not os.path.exists(go):
        time.sleep(0.01)
    time.sleep((i + 1) * STEP)
    gone.append(i)
def before_exits():
    s = 0
    for i in range(20000):
        s += i
    return s
def after_exits():
    s = 0
    for i in range(20000):
        s += i
    return s
def burner():
    while len(gone) < NLEAVE:
        before_exits()
    while True:
        after_exits()
for i in range(NLEAVE):
    threading.Thread(target=leaver, args=(i,), daemon=True).start()
threading.Thread(target=burner, daemon=True).start()
open(ready, "w").close()
ctypes.CDLL(None).pthread_exit(None)
PY
# leavers_run NAME PROGRAM...: PROGRAM (given READY GO) started, its
# main thread gone, recorded for 4 s into NAME.folded, GO touched once
# the perf events are open; every leaver gone by the end
leavers_run() {
	name=$1
	shift
	rm -f "$T/pid/lready" "$T/pid/lgo"
	"$@" "$T/pid/lready" "$T/pid/lgo" &
	P=$!
	wait_file "$T/pid/lready" && wait_zombie_leader $P ||
		{ kill $P; return 1; }
	[ "$(ls /proc/$P/task | wc -l)" = 6 ] || { echo "not 6 threads"; kill $P; return 1; }
	"$YS" record --pid $P --duration 4 -o "$T/pid/$name.folded" \
		2>"$T/pid/$name.err" &
	R=$!
	wait_perf $R || { kill $R $P; return 1; }
	touch "$T/pid/lgo"
	wait $R
	rc=$?
	left=$(ls /proc/$P/task | wc -l)
	kill $P
	wait $P 2>/dev/null
	cat "$T/pid/$name.err"
	[ $rc = 0 ] || { echo "exit $rc"; return 1; }
	# the zombie leader and the burner
	[ "$left" = 2 ] || { echo "$left threads left, not 2: the leavers did not all exit"; return 1; }
}
leavers_c() {
	leavers_run lvc "$T/pid/leavers" || return 1
	python3 - "$T/pid/lvc.folded" <<'PYM'
import sys
n = before = after = 0
for l in open(sys.argv[1]):
    st, c = l.rsplit(" ", 1)
    fr = st.split(";")
    n += int(c)
    before += int(c) * ("before_exits" in fr)
    after += int(c) * ("after_exits" in fr)
print("samples", n, "before_exits", before, "after_exits", after)
assert after >= 20 and before + after >= 0.9 * n, (n, before, after)
PYM
}
t "record --pid of a C program whose main thread and then, one after another, the threads read through exit: the samples after their exits named" leavers_c
leavers_py() {
	leavers_run lvpy /usr/bin/python3 "$T/pid/leavers.py" || return 1
	python3 - "$T/pid/lvpy.folded" <<'PYM'
import sys
n = before = after = 0
for l in open(sys.argv[1]):
    st, c = l.rsplit(" ", 1)
    fr = st.split(";")
    n += int(c)
    before += int(c) * ("before_exits (leavers.py:10)" in fr)
    after += int(c) * ("after_exits (leavers.py:15)" in fr and "burner (leavers.py:20)" in fr)
print("samples", n, "in before_exits", before, "in after_exits under burner", after)
assert after >= 20 and before + after >= 0.8 * n, (n, before, after)
PYM
}
t "record --pid of a python3 whose main thread and then, one after another, the threads read through exit: the Python frames after their exits" leavers_py

attach_refusals record "$T/pid/none.folded"

finish
