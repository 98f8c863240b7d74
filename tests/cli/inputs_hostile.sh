# The commands that read files a user names (compare, gate, report,
# export, history, store copy, merge, import, roofline --ceilings) against
# hostile inputs, and the ones that write outputs stopped while they
# write: a truncated, binary, empty, unreadable or endless file, a
# directory where a file is expected, gate's --config the same, an output
# in a missing directory; SIGINT, SIGTERM and SIGHUP while an output is
# written. Each is one line on stderr that names the file and says why,
# the documented exit code (docs/cmd/*.md: 2 bad input, 128 + the
# signal), and no output file, whole or half-written, nor a temporary
# one beside it. (The stores' damage is store_faults' and store_exit's;
# the measured programs' faults_hostile's; the servers' load_hostile's;
# the segments' merge_faults'.)
. "$(dirname "$0")/lib.sh"

# two results of one benchmark, and the hostile files made of them
"$YS" run --runs 3 --warmup 0 --no-store -n t --json "$T/a.json" -- "$YSFIX" exit 0 >/dev/null 2>&1
"$YS" run --runs 3 --warmup 0 --no-store -n t --json "$T/b.json" -- "$YSFIX" exit 0 >/dev/null 2>&1
head -c 100 "$T/a.json" >"$T/truncated.json"
printf '\377\376\000binary\000\001' >"$T/binary.json"
: >"$T/empty.json"
mkdir -p "$T/dir.json" "$T/out"
# root reads a file of mode 000: unreadable is checked as nobody, when
# the test runs as root and setpriv is there, else as the user itself
cp "$T/a.json" "$T/secret.json"
chmod 600 "$T/secret.json"
chmod 755 "$T"
if [ "$(id -u)" = 0 ]; then
	as_other() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
	chmod 000 "$T/secret.json"
	as_other() { "$@"; }
fi

# one_line WANT ARGS...: yardstick ARGS exits WANT with exactly one line on
# stderr, which names $what (the file) and says $why.
one_line() {
	want=$1
	shift
	expect_exit "$want" ${AS:-} "$YS" "$@" || return 1
	[ "$(wc -l <"$T/stderr")" -eq 1 ] || { echo "not one line:"; cat "$T/stderr"; return 1; }
	has "$T/stderr" "'$what'" && has "$T/stderr" "$why"
}

# each BADFILE WHY: every reading command on BADFILE: exit 2, one line,
# the file and the reason named
each() {
	what=$1 why=$2
	for cmd in "compare $T/$1 $T/b.json" \
		   "gate --max-increase wall_time=5% --baseline $T/$1 $T/b.json" \
		   "report $T/$1 -o $T/out/r.html" "export $T/$1" \
		   "store copy $T/$1 $T/out/s.db" "merge -o $T/out/m.json $T/$1 $T/b.json" \
		   "import --no-store $T/$1" "roofline --machine --ceilings $T/$1"; do
		what=$T/$1
		# shellcheck disable=SC2086
		one_line 2 $cmd || { echo "(yardstick $cmd)"; return 1; }
	done
	[ -z "$(ls -A "$T/out")" ] || { echo "written:"; ls -la "$T/out"; return 1; }
}
t "a truncated result: exit 2, one line, from every reading command" each truncated.json "cannot read"
t "a binary file: exit 2, one line" each binary.json "cannot read"
t "an empty file: exit 2, one line" each empty.json "cannot read"
t "a directory: exit 2, one line saying so" each dir.json "Is a directory"
t "a missing file: exit 2, one line saying so" each missing.json "No such file or directory"
# unreadable CHECK ARGS...: CHECK with yardstick run as_other (the
# outputs writable: the input is what fails)
unreadable() {
	chmod 777 "$T/out"
	AS=as_other
	"$@"
	r=$?
	AS=
	return $r
}
can_unread=
{ [ "$(id -u)" != 0 ] || command -v setpriv >/dev/null; } && can_unread=1
if [ -n "$can_unread" ]; then
	t "a file the user cannot read: exit 2, one line saying so" \
		unreadable each secret.json "Permission denied"
else
	skip "a file the user cannot read" "root without setpriv"
fi

# ---- gate's --config -------------------------------------------------------
# config WHAT WHY: gate --config WHAT exits 2, one line naming it and why
config() {
	what=$1 why=$2
	one_line 2 gate --config "$1" --max-increase wall_time=5% --baseline "$T/a.json" "$T/b.json"
}
printf '[gate]\nmax-increase = wall_time=5%%\000\n' >"$T/nul.ini"
t "gate --config a directory: exit 2, said (inih read it as an empty file: no thresholds)" \
	config "$T/dir.json" "Is a directory"
t "gate --config a missing file: exit 2, the reason said" \
	config "$T/missing.ini" "No such file or directory"
t "gate --config a file with a NUL byte: exit 2, said" config "$T/nul.ini" "a NUL byte"
cp "$T/nul.ini" "$T/secret.ini"
chmod 600 "$T/secret.ini"
[ "$(id -u)" = 0 ] || chmod 000 "$T/secret.ini"
if [ -n "$can_unread" ]; then
	t "gate --config a file the user cannot read: exit 2, the reason said" \
		unreadable config "$T/secret.ini" "Permission denied"
else
	skip "gate --config a file the user cannot read" "root without setpriv"
fi
t "yardstick.ini a directory: exit 2 from a command that saves, said" sh -c '
	mkdir -p "$T/cwd/yardstick.ini" && cd "$T/cwd" &&
	env -u YARDSTICK_STORE "$YS" run --runs 1 --warmup 0 -- "$YSFIX" exit 0 >/dev/null 2>"$T/cwd.err"
	rc=$?
	[ $rc -eq 2 ] || { echo "exit $rc"; cat "$T/cwd.err"; exit 1; }
	grep -q "yardstick.ini.*Is a directory" "$T/cwd.err" || { cat "$T/cwd.err"; exit 1; }'

# ---- load --start-at: far times ----------------------------------------------
# seconds * 10^9 overflowed int64 past the year 2262 (UBSan's signed
# overflow in the sanitized build); now refused as any far time is
start_at() {
	what=$1 why=$2
	one_line 2 load --no-store --start-at "$1" http://127.0.0.1:9/
}
t "load --start-at 999999999999 (unix seconds): more than a day ahead, exit 2" \
	start_at 999999999999 "more than a day ahead"
t "load --start-at 9999-12-31T23:59:59Z: more than a day ahead, exit 2" \
	start_at 9999-12-31T23:59:59Z "more than a day ahead"
t "load --start-at 0000-01-01T00:00:00+23:59: in the past, exit 2" \
	start_at 0000-01-01T00:00:00+23:59 "s ago"

# ---- export --push to a hostile gateway ------------------------------------
# A server on a free port that resets each connection, holds it without
# an answer, answers bytes that are not HTTP, or closes after the
# request: exit 3 (docs/cmd/export.md), one line saying which.
cat >"$T/gw.py" <<'PY'
import socket, struct, sys, threading, time
mode = sys.argv[1]
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    if mode == "reset":
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        c.close()
    elif mode == "hold":
        threading.Thread(target=lambda c=c: (time.sleep(600), c.close()), daemon=True).start()
    elif mode == "garbage":
        c.recv(65536)
        c.sendall(b"\x00\xffHTTP/9 zzz\r\n\r\n")
        c.close()
    else:
        c.recv(65536)
        c.close()
PY
# gateway MODE WHY: export --push to a gateway MODE: exit 3, one line, WHY
gateway() {
	python3 "$T/gw.py" "$1" >"$T/gw.$1" &
	gw=$!
	k=0
	while [ ! -s "$T/gw.$1" ] && [ $k -lt 300 ]; do sleep 0.1; k=$((k + 1)); done
	what=http://127.0.0.1:$(cat "$T/gw.$1") why=$2
	one_line 3 export --push "$what" "$T/a.json"
	r=$?
	kill $gw
	return $r
}
# (the reset meets the connect, the write or the read: any of them)
t "export --push to a gateway that resets: exit 3, said" gateway reset "cannot push to the Pushgateway"
t "export --push to a gateway that never answers: exit 3 (10 s), said" gateway hold "no answer in time"
t "export --push to a gateway that answers garbage: exit 3, said" gateway garbage "malformed status line"
t "export --push to a gateway that closes at once: exit 3, said" gateway close "closed before the response ended"

# ---- outputs ---------------------------------------------------------------
# outputs in a missing directory: exit 2 before anything is written
missing_dir() {
	what=$T/nodir/x why="No such file or directory"
	one_line 2 report "$T/a.json" -o "$T/nodir/x" &&
	one_line 2 compare "$T/a.json" "$T/b.json" --json "$T/nodir/x" &&
	one_line 2 gate --json "$T/nodir/x" --max-increase wall_time=5% --baseline "$T/a.json" "$T/b.json" &&
	[ ! -e "$T/nodir" ]
}
t "an output in a missing directory: exit 2, one line, nothing made" missing_dir

# ---- store copy stopped ------------------------------------------------------
# 100 results copied from store to store, SIGINT 0.05 s and 0.2 s in:
# exit 130 (or 0, done first); a second copy brings the rest, each
# result once: none lost, none twice (each result is a transaction; the
# log's tail a kill may cut is set aside)
copy_stopped() {
	mkdir -p "$T/sc"
	python3 - "$T/a.json" "$T/sc" <<'PY' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
v = d["benchmarks"][0]["metrics"]["wall_time"]["values"]
for i in range(100):
    d["benchmarks"][0]["metrics"]["wall_time"]["values"] = [x * (1 + i / 1000) for x in v]
    json.dump(d, open("%s/r%03d.json" % (sys.argv[2], i), "w"))
PY
	for f in "$T"/sc/r*.json; do
		"$YS" store copy "$f" "$T/sc/src.db" >/dev/null 2>&1 || { echo "cannot save $f"; return 1; }
	done
	for delay in 0.05 0.2; do
		rm -f "$T"/sc/dst.db*
		env --default-signal=INT "$YS" store copy "$T/sc/src.db" "$T/sc/dst.db" \
			>/dev/null 2>"$T/sc/err" &
		ys=$!
		sleep $delay
		kill -INT $ys 2>/dev/null
		wait $ys
		rc=$?
		[ $rc -eq 130 ] || [ $rc -eq 0 ] || { echo "exit $rc after $delay s"; cat "$T/sc/err"; return 1; }
		"$YS" store copy "$T/sc/src.db" "$T/sc/dst.db" >"$T/sc/out" 2>&1 || { cat "$T/sc/out"; return 1; }
		got=$("$YS" history t --store "$T/sc/dst.db" 2>&1 | grep -c 'T[0-9:]*Z')
		[ "$got" -eq 100 ] || { echo "$got results after SIGINT at $delay s, expected 100"; cat "$T/sc/out"; return 1; }
	done
}
t "store copy stopped by SIGINT: 130, a second copy brings the rest, each result once" copy_stopped

# ---- stopped while an output is written ------------------------------------
# A result of 3000 benchmarks makes report write 20 MB; the signal is
# sent once its temporary file is there. On a machine so fast that the
# report is done first, it is tried again (up to 5 times), else skipped.
python3 - "$T/a.json" "$T/big.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
d["benchmarks"] = [dict(copy.deepcopy(b), name="b%d" % i) for i in range(3000)]
json.dump(d, open(sys.argv[2], "w"))
PY
# stopped SIG: report stopped by SIG while it writes: 128 + SIG, no
# output, no temporary file. (env --default-signal: sh starts a
# background job with SIGINT ignored, which yardstick keeps ignored.)
stopped() {
	sig=$1
	case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
	for try in 1 2 3 4 5; do
		d=$T/stop-$sig-$try
		mkdir -p "$d"
		env --default-signal=INT,TERM,HUP "$YS" report "$T/big.json" -o "$d/r.html" \
			>/dev/null 2>"$d/err" &
		ys=$!
		k=0
		while ! ls "$d"/r.html.tmp.* >/dev/null 2>&1 && kill -0 $ys 2>/dev/null && [ $k -lt 3000 ]; do
			sleep 0.01; k=$((k + 1))
		done
		kill -s "$sig" $ys 2>/dev/null
		wait $ys
		rc=$?
		[ "$rc" -eq 0 ] && [ -s "$d/r.html" ] && continue	# done first
		[ "$rc" -eq "$want" ] || { echo "exit $rc, expected $want"; cat "$d/err"; return 1; }
		left=$(ls -A "$d" | grep -v '^err$')
		[ -z "$left" ] || { echo "left behind after SIG$sig: $left"; return 1; }
		return 0
	done
	echo "# the report was written before SIG$sig each time"
}
for sig in INT TERM HUP; do
	t "report stopped by SIG$sig while it writes: 128 + SIG, no file, no temporary one" stopped $sig
done
ignored() {
	d=$T/ignored
	mkdir -p "$d"
	# nohup's SIGHUP stays ignored: the report is written whole
	(trap '' HUP; "$YS" report "$T/a.json" -o "$d/r.html" 2>"$d/err" &
	 ys=$!; sleep 0.05; kill -HUP $ys 2>/dev/null; wait $ys) || { cat "$d/err"; return 1; }
	grep -q '</html>' "$d/r.html"
}
t "a SIGHUP the caller ignores (nohup) stays ignored" ignored

finish
