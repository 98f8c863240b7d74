# A measured program that misbehaves (tests/fixtures/hostfix.c) under run,
# record, trace and mem, and the tool killed at moments drawn at random:
# the tool never hangs nor crashes, exits as docs/cmd/*.md say, leaves no
# process behind, writes whole output files and counts what it measured.
. "$(dirname "$0")/lib.sh"
HOSTFIX=${HOSTFIX:?HOSTFIX must name tests/fixtures/hostfix}
HOSTFIX_STATIC=${HOSTFIX_STATIC:?HOSTFIX_STATIC must name hostfix_static}

# The moments are drawn at random; the seed is printed so that a failure
# can be replayed (FAULTS_SEED=N).
seed=${FAULTS_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
echo "# seed $seed"
_r=$seed
# rnd: R, the next number of 0 to 32767 (an LCG: sh has no $RANDOM)
rnd() {
	_r=$(((_r * 1103515245 + 12345) % 2147483648))
	R=$((_r / 65536 % 32768))
}

# gone PIDFILE: every pid of PIDFILE is dead within 30 s (a busy machine
# may take a moment to deliver a kill); one still running is named and
# killed.
gone() {
	k=0
	while [ -n "$(alive "$1")" ] && [ $k -lt 300 ]; do sleep 0.1; k=$((k + 1)); done
	left=$(alive "$1")
	[ -z "$left" ] && return 0
	echo "still running: $left"
	for p in $left; do kill -9 "$p"; done
	return 1
}

# whole DIR: every output file in DIR reads whole, and no temporary file
# is left beside them.
whole() {
	python3 - "$1" <<'PY'
import gzip, json, os, sys
d = sys.argv[1]
for f in sorted(os.listdir(d)):
    p = os.path.join(d, f)
    if f.endswith(".json"):
        json.load(open(p))
    elif f.endswith(".folded"):
        for line in open(p):
            stack, _, count = line.rstrip("\n").rpartition(" ")
            assert stack and count.isdigit(), (f, line)
    elif f.endswith(".csv"):
        rows = [r.split(",") for r in open(p).read().splitlines()]
        assert rows and all(len(r) == len(rows[0]) for r in rows), rows
    elif f not in ("pids", "err", "out", "store.db") and not f.startswith("store.db"):
        raise SystemExit("unexpected file %r in %s" % (f, d))
PY
}

# cmdline CMD DIR: the yardstick command line of CMD writing into DIR
cmdline() {
	case $1 in
	run) echo "run --runs 2 --warmup 0 --no-store --json $2/r.json --csv $2/r.csv --" ;;
	record) echo "record -o $2/p.folded --" ;;
	trace) echo "trace --no-store -o $2/t.json --" ;;
	mem) echo "mem --no-store --json $2/m.json --" ;;
	esac
}

# ---- the tool killed at a random moment -----------------------------------
# killed CMD SIG MODE ARG: yardstick CMD on hostfix MODE ARG (a program
# that runs for a minute), SIG sent to yardstick alone 0.1 to 1.6 s in;
# the program is gone, whatever the signal (0.1 to 1.6 s after it
# started, so that it did). With SIGKILL yardstick gets no
# chance to kill it: record's, trace's and mem's program outlived it.
killed() {
	cmd=$1 sig=$2
	shift 2
	rnd
	d=$T/k-$cmd-$sig-$1-$R
	mkdir -p "$d"
	delay=$(awk -v r=$R 'BEGIN { printf "%.2f", 0.1 + 1.5 * r / 32768 }')
	HOSTFIX_PIDS=$d/pids "$YS" $(cmdline "$cmd" "$d") "$HOSTFIX" "$@" \
		</dev/null >"$d/out" 2>"$d/err" &
	ys=$!
	# the moment is counted from the program's start: on a busy machine
	# yardstick's own start-up can take longer than 0.1 s (a signal
	# before the program runs is cli_signals')
	k=0
	while [ ! -s "$d/pids" ] && kill -0 "$ys" 2>/dev/null && [ $k -lt 300 ]; do
		sleep 0.1; k=$((k + 1))
	done
	sleep "$delay"
	kill -s "$sig" "$ys"
	k=0
	while kill -0 "$ys" 2>/dev/null && [ $k -lt 600 ]; do sleep 0.1; k=$((k + 1)); done
	if kill -0 "$ys" 2>/dev/null; then
		echo "yardstick $cmd still runs 60 s after SIG$sig at ${delay}s"; kill -9 "$ys"; return 1
	fi
	wait "$ys"
	rc=$?
	case $sig in INT) want=130 ;; TERM) want=143 ;; KILL) want=137 ;; esac
	[ "$rc" -eq "$want" ] || { echo "exit $rc, expected $want (SIG$sig at ${delay}s)"; cat "$d/err"; return 1; }
	[ -s "$d/pids" ] || { echo "the program never started (SIG$sig at ${delay}s)"; cat "$d/err"; return 1; }
	gone "$d/pids" || { echo "(SIG$sig at ${delay}s)"; return 1; }
	whole "$d"
}

# (the sanitized build sends one of the three signals, in turn over the
# programs, so that each command still gets each signal: the 36 cases
# took the normal build 91 s)
fh_case=0
for cmd in record trace mem run; do
	for mode in "sleep 60000" "setsid 60000" "blockall 60000"; do
		fh_case=$((fh_case + 1))
		fh_sig=0
		for sig in KILL INT TERM; do
			fh_sig=$((fh_sig + 1))
			san_build && [ $((fh_case % 3)) -ne $((fh_sig % 3)) ] && continue
			t "$cmd, SIG$sig at a random moment, hostfix $mode: the program gone" \
				killed $cmd $sig $mode
		done
	done
done

# ---- misbehaving programs --------------------------------------------------
# hostile CMD WANT MODE ARG...: yardstick CMD on hostfix MODE exits WANT
# within 2 minutes, nothing it started left running, its output whole.
hostile() {
	cmd=$1 want=$2
	shift 2
	rnd
	d=$T/h-$cmd-$1-$R
	mkdir -p "$d"
	HOSTFIX_PIDS=$d/pids timeout -s KILL 120 "$YS" $(cmdline "$cmd" "$d") \
		"${HF:-$HOSTFIX}" "$@" </dev/null >"$d/out" 2>"$d/err"
	rc=$?
	[ "$rc" -eq "$want" ] || { echo "exit $rc, expected $want"; tail -c 3000 "$d/err"; return 1; }
	gone "$d/pids" && whole "$d"
}

# crashed CMD MODE SIGNAME: the crash is exit 1, the signal named
crashed() {
	hostile "$1" 1 "$2" || return 1
	grep -q "$3" "$d/err" || { cat "$d/err"; return 1; }
}
for cmd in run record trace mem; do
	for c in segv:SIGSEGV bus:SIGBUS abort:SIGABRT stack:SIGSEGV; do
		t "$cmd: hostfix ${c%%:*} crashes: exit 1, ${c#*:} named" \
			crashed $cmd ${c%%:*} ${c#*:}
	done
done
# static: the statically linked hostfix
static() {
	HF=$HOSTFIX_STATIC hostile "$@"
}
for cmd in run trace mem; do
	for mode in "orphans 5" "execchain 5" "closeall 100" "dupover 100" "blockall 200" \
		    "setsid 200" "vfork" "clone3" "threads 100" "itimer 100" "nofile" \
		    "as 64" "flood 20" "stdin"; do
		t "$cmd: hostfix $mode: exit 0, nothing left running" hostile $cmd 0 $mode
	done
	# mem cannot preload its agent into a static program: exit 2
	[ $cmd = mem ] && want_static=2 || want_static=0
	t "$cmd: a statically linked hostfix execchain 3: exit $want_static" \
		static $cmd $want_static execchain 3
	t "$cmd: a script whose interpreter is missing, exec'd by the program: exit 1" \
		hostile $cmd 1 noshebang
done
# record_any MODE ARG: exit 0, or 1 for a program that ran too briefly
# for a sample (docs/cmd/record.md), nothing left running
record_any() {
	hostile record 0 "$@" >"$T/.any" && return 0
	[ "$rc" -eq 1 ] && grep -q "no samples" "$d/err" && gone "$d/pids" && whole "$d"
}
for mode in "orphans 5" "closeall 300" "dupover 300" "setsid 300" "threads 100" \
	    "itimer 300" "nofile" "flood 20" "execchain 5" "vfork" "clone3" "blockall 200"; do
	t "record: hostfix $mode: exit 0 or 1 (no sample), nothing left running" record_any $mode
done

# mem counts every allocation of a program that closes, dups over or
# exhausts the descriptors, or execs a chain: 100 blocks of 7777 bytes
# before the misbehaviour and 100 after, in each process of the chain.
memcount() {
	nallocs=$1
	shift
	HOSTFIX_ALLOCS=100 hostile mem 0 "$@" || return 1
	python3 - "$d/m.json" "$nallocs" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
got = b["metrics"]["allocations"]["values"][0]
assert got == int(sys.argv[2]), (got, sys.argv[2])
assert not [w for w in b["warnings"] if "returned NULL" in w], b["warnings"]
PY
}
for m in "200 closeall 50" "200 dupover 50" "200 nofile" "200 setsid 50" "200 blockall 50" \
	 "200 clone3" "500 execchain 3"; do
	set -- $m
	nal=$1
	shift
	t "mem: hostfix $*: $nal allocations counted" memcount $nal "$@"
done
# sigalloc: each allocation of the timer's handler counted, and the 200
sigalloc() {
	HOSTFIX_ALLOCS=100 hostile mem 0 sigalloc 10 || return 1
	python3 - "$d/m.json" "$(sed -n "s/^handler allocations //p" "$d/err")" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
got = b["metrics"]["allocations"]["values"][0]
assert int(sys.argv[2]) > 0 and got == 200 + int(sys.argv[2]), (got, sys.argv[2])
PY
}
t "mem: allocations in a 5 us timer's handler: each one counted" sigalloc

# Allocation calls that return NULL are counted and said (the agent's
# shared memory counts in the program's address space): N calls of
# malloc, calloc, realloc and aligned_alloc too large for any address
# space, and a program that caps its own address space at 64 MiB (it
# allocates 61 MiB alone, none under mem).
nomem() {
	hostile mem 0 nomem "$1" || return 1
	grep -q "warning: $1 allocation calls returned NULL" "$d/err" || { cat "$d/err"; return 1; }
	python3 - "$d/m.json" "$1" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
w = [w for w in b["warnings"] if "returned NULL" in w]
assert len(w) == 1 and w[0].startswith(sys.argv[2] + " allocation calls returned NULL"), b["warnings"]
PY
}
for k in 2 7 40; do
	t "mem: $k allocation calls that return NULL: $k said" nomem $k
done
capped() {
	hostile mem 0 as 64 || return 1
	grep -q "returned NULL: the program ran out of memory" "$d/err" || { cat "$d/err"; return 1; }
	grep -q "RLIMIT_AS" "$d/err"
}
t "mem: a program that caps its address space below the agent's: said" capped

finish
