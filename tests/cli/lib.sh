# A tiny TAP harness for the end-to-end tests. Each script sources this,
# calls t "description" COMMAND... for each check, and finish at the end.
# YS is the binary, YSFIX the fixture program, T a scratch directory.
set -u
YS=${YS:?YS must name the yardstick binary}
YSFIX=${YSFIX:?YSFIX must name the fixture program}
T=$(mktemp -d /tmp/ys-cli-XXXXXX)
export T YS YSFIX
# Every test keeps its results in its own store, never in the checkout.
YARDSTICK_STORE=$T/store.db
export YARDSTICK_STORE
trap 'rm -rf "$T"' EXIT
# YS_STORE_BACKEND=postgresql: the same checks against a PostgreSQL store,
# a server of the test's own (pg_server.sh), its database named store.db
# like the file so that the messages checked name it alike.
if [ "${YS_STORE_BACKEND:-}" = postgresql ]; then
	. "$(dirname "$0")/pg_server.sh"
	pg_start && pg_createdb store.db || { echo "Bail out! no PostgreSQL server"; exit 1; }
	YARDSTICK_STORE=$(pg_url store.db)
fi
export NO_COLOR=1 YARDSTICK_NO_PROGRESS=1
# python3 on PATH as the interpreter itself, never a pyenv shim
. "$(dirname "$0")/python3_first.sh"
python3_first "$T/.bin"
# The symbolizer's disk cache too: never the user's.
XDG_CACHE_HOME=$T/cache
export XDG_CACHE_HOME
n=0
failed=0

# san_build: true in the sanitized build (YSB_SAN: its -Db_sanitize). It
# looks for memory errors and undefined behaviour in the same code as the
# normal build, which carries the statistics and the sizes: a check of
# many repetitions or a large input runs fewer or smaller there.
san_build() {
	case ${YSB_SAN:-none} in none|'') return 1 ;; *) return 0 ;; esac
}

# t DESCRIPTION COMMAND...: the check passes when COMMAND exits 0.
t() {
	desc=$1
	shift
	n=$((n + 1))
	t_start=$(date +%s%N)
	if "$@" >"$T/.out" 2>&1; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		sed 's/^/# /' "$T/.out" | head -40
		failed=$((failed + 1))
	fi
	# what a check took, when over a second: where a suite's time goes
	t_ms=$((($(date +%s%N) - t_start) / 1000000))
	[ "$t_ms" -lt 1000 ] || echo "# took $t_ms ms"
}

# skip DESCRIPTION REASON: a check skipped, for a reason a user's machine
# can have (no root, no mount): never for a missing package, which
# scripts/deps.sh test installs. Counted and listed by scripts/test.sh.
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# expect_exit CODE COMMAND...: COMMAND exits with CODE; its stderr is kept
# in $T/stderr and stdout in $T/stdout.
expect_exit() {
	want=$1
	shift
	"$@" >"$T/stdout" 2>"$T/stderr"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "exit code $got, expected $want; stderr:"
		cat "$T/stderr"
		return 1
	fi
}

# has FILE TEXT: FILE contains TEXT (fixed string).
has() {
	grep -qF -- "$2" "$1" || { echo "'$1' lacks '$2':"; cat "$1"; return 1; }
}

# no_controls FILE...: no byte a terminal would obey (ESC, BEL, CR, the
# C1 CSI, a right-to-left override) in the files: outside text escaped.
no_controls() {
	python3 - "$@" <<'PY'
import sys
for f in sys.argv[1:]:
    d = open(f, "rb").read()
    for bad in (b"\x1b", b"\x07", b"\r", b"\xc2\x9b", b"\xe2\x80\xae"):
        assert bad not in d, (f, bad, d[:2000])
PY
}

# py CODE: run python3 code with the result JSON helpers.
py() {
	python3 -c "
import json, sys
def load(p): return json.load(open(p))
def bench(d, name): return [b for b in d['benchmarks'] if b['name'] == name][0]
def med(b, m='wall_time'): return b['metrics'][m]['median']
$1
"
}

finish() {
	echo "1..$n"
	[ "$failed" -eq 0 ]
}

# mkresult FILE NAME SCALE SHIFT [N]: a yardstick result whose benchmark
# NAME has N (default 200) wall times spread evenly over [10 ms, 12 ms],
# multiplied by SCALE and moved by SHIFT seconds.
mkresult() {
	python3 - "$@" <<'PY'
import json, sys
path, name, scale, shift = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
n = int(sys.argv[5]) if len(sys.argv) > 5 else 200
vals = [(0.010 + 0.002 * i / (n - 1)) * scale + shift for i in range(n)]
json.dump({"schema": "yardstick/result/v1", "kind": "run",
           "benchmarks": [{"name": name, "command": [name],
                           "metrics": {"wall_time": {"unit": "s", "values": vals},
                                       "peak_rss": {"unit": "bytes", "values": [1048576.0] * n}}}]},
          open(path, "w"))
PY
}

# mkload FILE ERRORS REQUESTS [old]: a load result of one benchmark whose
# `errors` metric holds ERRORS failed requests of REQUESTS (all of them
# HTTP 500s), with the counts and the `requests` metric load writes beside
# it (with "old", without that metric, as load wrote before).
mkload() {
	python3 - "$@" <<'PY'
import json, sys
path, err, req = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
metrics = {"errors": {"unit": "count", "values": [err]}}
if sys.argv[4:] != ["old"]:
    metrics["requests"] = {"unit": "count", "values": [req]}
counts = {"requests": req, "responses": req, "ok": req - err, "sends": req,
          "late": 0, "resent": 0, "bytes_read": 0, "bytes_written": 0,
          "held": 0, "held_slow": 0, "connect": 0, "read": 0, "write": 0,
          "timeout": 0, "status": err}
if err:
    counts["status_500"] = err
json.dump({"schema": "yardstick/result/v1", "kind": "load",
           "settings": {"url": "http://127.0.0.1:8080/", "requests": req},
           "benchmarks": [{"name": "http://127.0.0.1:8080/", "command": [],
                           "metrics": metrics,
                           "per_second": {"start": 1795545380.5, "elapsed": 10,
                                          "ok": [req - err], "errors": [err]},
                           "counts": counts}]},
          open(path, "w"))
PY
}

# retry CHECK...: CHECK, a measurement and its assertions, passes within
# 3 measurements: a run disturbed by a busy machine (a vCPU the host took
# away for a while is invisible to the guest) is measured again; the
# tolerances never widen.
retry() {
	for try in 1 2 3; do
		if "$@"; then
			return 0
		fi
		echo "# measurement $try disturbed, measuring again"
	done
	return 1
}

# The commands that attach to a running process (record --pid, trace
# --pid): wait_perf PID until yardstick PID has its perf events open
# (10 s); wait_file FILE until FILE exists (20 s: pyenv's shim starts
# slowly); running PID prints 1 when process PID runs, else 0;
# attached_ok RC RUNNING ERR [WHAT]: the command exited 0 and the process
# it attached to (WHAT, default "the program") still ran after it, its
# stderr ERR shown either way.
wait_perf() {
	for _ in $(seq 100); do
		ls -l /proc/"$1"/fd 2>/dev/null | grep -q perf_event && return 0
		sleep 0.1
	done
	return 1
}
wait_file() {
	for _ in $(seq 200); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
# go_on_attach YSPID GOFILE: GOFILE made once process YSPID (a yardstick
# attaching with --pid) has a perf event open (wait_perf), what
# tests/fixtures/stormfix.c's STORMFIX_GO waits for
go_on_attach() {
	wait_perf "$1"
	: >"$2"
}
running() {
	if kill -0 "$1" 2>/dev/null; then echo 1; else echo 0; fi
}
# attach_sigint ERR ARGS...: yardstick ARGS, attached to process $P,
# stopped by SIGINT once its events are open, its stderr in ERR; rc its
# exit code, alive (running) whether $P still ran after it.
attach_sigint() {
	err=$1
	shift
	"$YS" "$@" 2>"$err" &
	R=$!
	wait_perf $R && sleep 0.5
	kill -INT $R
	wait $R
	rc=$?
	alive=$(running $P)
}
attached_ok() {
	cat "$3"
	[ "$1" = 0 ] || { echo "exit $1"; return 1; }
	[ "$2" = 1 ] || { echo "${4:-the program} did not survive"; return 1; }
}

# attach_refusals CMD OUT [ARGS...]: yardstick CMD (record, trace) ARGS
# with --pid of no process (exit 2 naming it, OUT not written), with a
# program too, --duration or --no-children without --pid (exit 2, saying
# so), and of another
# user's process, as user nobody (exit 3 naming ptrace; root only).
attach_refusals() {
	cmd=$1 out=$2
	shift 2
	t "$cmd --pid of no process: exit 2, nothing written" \
		attach_no_pid "$cmd" "$out" "$@"
	t "$cmd --pid with a program too: exit 2" attach_usage \
		"give a program to run or --pid of a running process, not both" \
		"$cmd" --pid $$ "$@" -- true
	t "$cmd --duration without --pid: exit 2" attach_usage \
		"--duration is for --pid" "$cmd" --duration 1 "$@" -- true
	t "$cmd --no-children without --pid: exit 2" attach_usage \
		"--no-children is for --pid" "$cmd" --no-children "$@" -- true
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
		t "$cmd --pid of another user's process: exit 3 naming ptrace" \
			attach_not_ours "$cmd" "$@"
	else
		skip "$cmd --pid of another user's process" "not root"
	fi
}
attach_no_pid() {
	cmd=$1 out=$2
	shift 2
	true &
	gone=$!
	wait $gone
	expect_exit 2 "$YS" "$cmd" --pid $gone -o "$out" "$@" &&
	has "$T/stderr" "no process $gone" &&
	[ ! -e "$out" ]
}
attach_usage() {
	msg=$1
	shift
	expect_exit 2 "$YS" "$@" && has "$T/stderr" "$msg"
}
attach_not_ours() {
	cmd=$1
	shift
	expect_exit 3 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$YS" "$cmd" --pid 1 --duration 0.5 "$@" &&
	has "$T/stderr" "not permitted to sample process 1" &&
	has "$T/stderr" "ptrace"
}

# started PID: when process PID started (the kernel's start time, in clock
# ticks since boot: /proc/PID/stat's field 22, read after the command name,
# which may hold spaces)
started() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20
}
# NOTE_PID: a shell command that appends "PID START" of the shell running
# it to the file named by $KT_PIDS (a fixture's pid file)
NOTE_PID='echo "$$ $(sed '"'"'s/.*) //'"'"' /proc/$$/stat | cut -d'"'"' '"'"' -f20)" >>"$KT_PIDS"'

# alive PIDFILE: the pids of PIDFILE (lines "PID START") still running. A
# zombie is dead (its reaper, init here, may take its time). A pid whose
# process started at another time than START is another's: pids wrap
# (pid_max is 32768 here) and a busy test suite hands one out again, to a
# process or to a thread, within seconds.
alive() {
	cat "$1" 2>/dev/null | while read -r p s; do
		[ -e "/proc/$p" ] || continue
		grep -q '^State:.Z' "/proc/$p/status" 2>/dev/null && continue
		grep -q "^Tgid:.$p\$" "/proc/$p/status" 2>/dev/null || continue
		[ -z "$s" ] || [ "$(started "$p")" = "$s" ] || continue
		echo "$p"
	done
}

# build_pexit DIR: DIR/pexit, a program whose main thread calls
# pthread_exit while a worker spins 150 M steps (record.sh, trace.sh)
build_pexit() {
	mkdir -p "$1" && cat >"$1/pexit.c" <<'C'
#include <pthread.h>
volatile unsigned long sink;
static void *work(void *arg)
{
	unsigned long x = 1;
	for (long i = 0; i < (long)arg; i++)
		x = x * 6364136223846793005UL + 1;
	sink = x;
	return 0;
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, work, (void *)150000000L);
	pthread_exit(0);
}
C
	cc -O1 -pthread -o "$1/pexit" "$1/pexit.c"
}
