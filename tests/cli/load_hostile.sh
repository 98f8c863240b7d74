# yardstick load against hostile servers (tests/cli/hostile_http.py): a
# server that resets connections at random after reading a request, one
# that closes after a partial response, one that answers some requests
# twice, one that answers before the request, one that never answers and
# one that stalls and answers everything after the step ended. Each server
# logs what it did before the client can see it, so that once the client
# is done the log is the truth: every request counted once (answered, an
# error, or unanswered), the totals adding up to what was sent, each
# error of the class the server caused, and --find-max's verdict and fail
# line's figures those of what the server did.
. "$(dirname "$0")/lib.sh"
SERVER=$(dirname "$0")/hostile_http.py
trap 'for f in "$T"/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done; rm -rf "$T"' EXIT

# serve NAME MODE [SEED]: start a hostile server; its URL in $U_NAME, its
# log in $T/NAME.log
serve() {
	rm -f "$T/$1.port" "$T/$1.log"
	touch "$T/$1.log"
	python3 "$SERVER" "$2" "$T/$1.log" "${3:-1}" >"$T/$1.port" 2>"$T/$1.err" &
	echo $! >"$T/$1.pid"
	i=0
	while [ ! -s "$T/$1.port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	eval "U_$1=http://127.0.0.1:$(cat "$T/$1.port")/"
	export "U_$1"
}
unserve() {
	kill "$(cat "$T/$1.pid")" 2>/dev/null
	rm -f "$T/$1.pid"
}

# truth NAME JSON CHECK: CHECK (python) holds, with n (what the server
# logged: n['recv'], n['ans'], ...) and e, the errors metric's counts,
# ok, and r, the result's benchmark
truth() {
	python3 - "$T/$1.log" "$2" "$3" <<'PY'
import collections, json, sys
n = collections.Counter(open(sys.argv[1]).read().split())
d = json.load(open(sys.argv[2]))
r = d["benchmarks"][0]
e = r["metrics"]["errors"]
ok = r["metrics"]["throughput"]["ok"]
try:
    exec(sys.argv[3])
except AssertionError:
    print("server:", dict(n)); print("errors:", e); print("ok:", ok)
    raise
PY
}

N=300
# scenario NAME MODE SEED CHECK TEXT [ARGS...]: a server of MODE (SEED)
# loaded with N requests over 4 connections (or ARGS); CHECK (truth)
# holds once the client is done, and the summary says TEXT (if any)
scenario() {
	name=$1 mode=$2 seed=$3 check=$4 text=$5
	shift 5
	[ $# -gt 0 ] || set -- -n $N -c 4 -t 2 --timeout 5s
	serve "$name" "$mode" "$seed" &&
	timeout 120 "$YS" load --no-store --json "$T/$name.json" "$@" \
		"$(eval "echo \$U_$name")" >"$T/$name.out" 2>&1
	rc=$?
	[ $rc -le 1 ] && truth "$name" "$T/$name.json" "$check" &&
		{ [ -z "$text" ] || has "$T/$name.out" "$text"; }
	rc=$?
	unserve "$name"
	return $rc
}

# Resets: a connection's first request reset is a read error (nothing
# proves the server never acted on it); a later one is sent again once
# on a new connection (docs/cmd/load.md): the read errors are the first
# requests reset, resent the others, and every request ends once.
RESETS='
assert e["requests"] == '$N', e
assert ok + e["read"] + e["write"] + e["connect"] + e["timeout"] + e["status"] == '$N', e
assert e["read"] + e["write"] == n["rst-first"], (e, n)
assert e["resent"] == n["rst-reused"], (e, n)
assert ok == n["ans"], (ok, n)
assert n["recv"] == '$N' + e["resent"], (n, e)'
seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
echo "# reset seeds $seed, $((seed + 1))"
t "resets at random (seed $seed): each request once, errors and resends as the server did" \
	scenario rst reset "$seed" "$RESETS" ""
t "resets at random (seed $((seed + 1))): the same" \
	scenario rst reset $((seed + 1)) "$RESETS" ""

# A close after part of a response: a read error, not sent again.
t "a close after a partial response: a read error each, counted once" \
	scenario part partial 1 '
assert e["requests"] == '$N', e
assert e["read"] == n["partial"] and ok == n["ans"], (e, ok, n)
assert ok + e["read"] == '$N' and n["recv"] == '$N', (e, ok, n)' \
	"connection closed before the response was complete"

# Two answers to one request, at once or 20 ms apart, and an answer
# before the request: HTTP/1.1 cannot tell which request an answer is
# for, but each request ends once, and none fails.
ONCE='
assert e["requests"] == '$N' and ok == '$N', (e, ok)
assert n["recv"] <= '$N', n'
t "requests answered twice: each counted once" scenario double double 1 "$ONCE" ""
t "answers before the request: each request counted once" scenario early early 1 "$ONCE" ""

# Without --find-max, a server that never answers: every request times
# out, a timeout error each; the summary says so.
t "a server that never answers: a timeout each, the summary true" \
	scenario hold hold 1 '
assert e["requests"] == 8 and e["timeout"] == 8 and ok == 0, e
assert n["held"] == 8 and n["recv"] == 8, n' "no response within 0.3s" \
	-n 8 -c 4 --timeout 0.3s

# findmax NAME RATE: one step of --find-max at RATE against the server
# NAME, which must fail it (exit 1); $T/NAME.out and $T/NAME.json
findmax() {
	eval "url=\$U_$1"
	timeout 60 "$YS" load --no-store --find-max --slo 'p99<100ms' \
		--start-rate "$2" --max-rate "$2" --step-duration 1s \
		--step-requests 50 --timeout 30s --json "$T/$1.json" "$url" \
		>"$T/$1.out" 2>&1
	rc=$?
	[ $rc = 1 ] || { echo "exit $rc, not 1"; cat "$T/$1.out"; return 1; }
}

# --find-max, one step at 100/s (3.35 s: what p99 needs), against a
# server that answers for 0.5 s after its first request and then holds
# every request until after the step has ended (10 s), answering them
# all at once: those it held that had waited past the limit (100 ms)
# when the step ended count against p99<100ms, once each, and the fail
# line gives their number and share. The truth: the schedule is start +
# i / 100 s, so of the requests due the ones answered are the server's
# "ans", and those due up to 100 ms before the end that got none are the
# rest (to 2 either side: the server's clock starts at its first request,
# the client's at its connections' start).
stall() {
	serve stall stall 10 && findmax stall 100 || return 1
	python3 - "$T/stall.log" "$T/stall.out" "$T/stall.json" <<'PY'
import collections, json, re, sys
n = collections.Counter(open(sys.argv[1]).read().split())
out = open(sys.argv[2]).read()
print(out)
print("server:", dict(n))
m = re.search(r"p99<100ms: p99 [^,]*, but ([\d.]+)% over the limit with the (\d+) unanswered", out)
assert m, "no fail line with the unanswered"
share, late = float(m.group(1)), int(m.group(2))
ans = n["ans"]
d = json.load(open(sys.argv[3]))
st = [b for b in d["benchmarks"] if " @ " in b["name"]]
# due at i / 100 s for i up to 100 (elapsed - 0.1 s): waited past 100 ms
want = 100 * (st[0]["metrics"]["throughput"]["elapsed"] - 0.1) + 1 - ans
assert abs(late - want) <= 2, (late, want)
assert abs(share - 100 * late / (ans + late)) < 0.5, (share, late, ans)
assert len(st) == 1 and st[0]["parameters"]["slo_met"] == "no", st
e = st[0]["metrics"]["errors"]
# nothing failed: each request answered (ok) or unanswered, none twice
assert e["requests"] == st[0]["metrics"]["throughput"]["ok"] == ans, (e, n)
PY
	rc=$?
	unserve stall
	return $rc
}
t "find-max: a server that stalls and answers after the step: the unanswered counted once, the fail line's figures the server's" stall

# --find-max against a server that never answers: the step fails with
# no response and says how many requests it left unanswered: every one
# due in the step (at i / 50 s, i up to 50 x its length; to 2 either
# side), none counted as answered or failed
blackhole() {
	serve bh hold && findmax bh 50
	rc=$?
	unserve bh
	[ $rc = 0 ] || return 1
	python3 - "$T/bh.json" "$T/bh.out" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
out = open(sys.argv[2]).read()
print(out)
st = [b for b in d["benchmarks"] if " @ " in b["name"]]
assert len(st) == 1 and st[0]["parameters"]["slo_met"] == "no", st
assert st[0]["metrics"]["errors"]["requests"] == 0, st[0]["metrics"]["errors"]
m = re.search(r"errors<=0%: no response, (\d+) requests unanswered", out)
assert m, "no count of the unanswered"
want = 50 * st[0]["metrics"]["throughput"]["elapsed"] + 1
assert abs(int(m.group(1)) - want) <= 2, (m.group(1), want)
PY
}
t "find-max: a server that never answers: the step fails, nothing counted as answered" blackhole

finish
