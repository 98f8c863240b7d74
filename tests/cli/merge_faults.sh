# yardstick merge against segments whose counts contradict each other
# (issue 25, cases 8 and 3): real segments of one test, then each
# rewritten one key at a time; every contradiction is refused with exit
# 2, naming the file and the key, writing nothing, changing no segment;
# the untouched segments still merge.
. "$(dirname "$0")/lib.sh"
HTTPFIX=${HTTPFIX:?HTTPFIX must name the HTTP fixture server}
trap 'for f in "$T"/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done; rm -rf "$T"' EXIT

# Every 3rd request answered 503 (3, not 2 or 4: the two segments
# alternate, and each must see some): the segments hold ok requests, failed
# ones and two status codes, so that every sum below has terms.
"$HTTPFIX" --fail-every 3 >"$T/fix.port" 2>"$T/fix.err" &
echo $! >"$T/fix.pid"
i=0
while [ ! -s "$T/fix.port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
U=http://127.0.0.1:$(cat "$T/fix.port")/

# Segments 0/2 and 1/2 of an open-model test (send_lag too), started
# together, in $T/seg.0.json and $T/seg.1.json.
make_segments() {
	at=$(python3 -c 'import time; print("%.3f" % (time.time() + 1.0))')
	for s in 0 1; do
		"$YS" load --no-store -q --segment $s/2 --start-at "$at" -c 2 \
			--rate 200 -n 200 --json "$T/seg.$s.json" "$U" \
			2>"$T/seg.$s.err" &
		echo $! >"$T/seg.$s.pid"
	done
	for s in 0 1; do
		wait "$(cat "$T/seg.$s.pid")" || { cat "$T/seg.$s.err"; return 1; }
		rm -f "$T/seg.$s.pid"
	done
}
t "two real segments of one test" make_segments
t "the segments have ok and failed requests, 503s, send lags" py "
for s in (0, 1):
    c = load('$T/seg.%d.json' % s)['benchmarks'][0]['counts']
    assert c['requests'] == 100 and 0 < c['ok'] < 100, c
    assert c['status'] == c['status_503'] > 0 and c['ok'] == c['status_200'], c
"
md5sum "$T/seg.0.json" "$T/seg.1.json" >"$T/sums"

# fault NAME KEY PYTHON [BOTH]: segment 1 (both segments with BOTH) with
# PYTHON applied to its benchmark b (json), written as $T/NAME.1.json
# ($T/NAME.0.json); merge must exit 2 naming that file and KEY, write
# nothing, and leave the files as they were.
fault() {
	name=$1 key=$2 code=$3 both=${4:-}
	first=$T/seg.0.json
	py "
import copy
for s in ((0, 1) if '$both' else (1,)):
    d = load('$T/seg.%d.json' % s)
    b = d['benchmarks'][0]
$(printf '%s\n' "$code" | sed 's/^/    /')
    json.dump(d, open('$T/$name.%d.json' % s, 'w'))
" || return 1
	[ -n "$both" ] && first=$T/$name.0.json
	bad=$T/$name.1.json
	[ -n "$both" ] && bad=$first
	cp "$first" "$T/$name.before.0" && cp "$T/$name.1.json" "$T/$name.before.1"
	expect_exit 2 "$YS" merge -o "$T/x.json" "$first" "$T/$name.1.json" || return 1
	has "$T/stderr" "'$bad'" && has "$T/stderr" "$key" &&
		[ ! -e "$T/x.json" ] &&
		cmp -s "$first" "$T/$name.before.0" &&
		cmp -s "$T/$name.1.json" "$T/$name.before.1" || { cat "$T/stderr"; return 1; }
}

# case 8 as reported: ok = 10^12 against the requests
t "counts.ok 10^12 against 100 requests" fault ok_huge "counts.ok: '1000000000000' is more than the 100 requests" \
	"b['counts']['ok'] = 10**12"
t "counts.ok one above the requests" fault ok_above "counts.ok: " \
	"b['counts']['ok'] = b['counts']['requests'] + 1"
t "a negative count" fault negative "counts.read: '-1' is not a count" \
	"b['counts']['read'] = -1"
t "a count of 1e300" fault huge "counts.bytes_read: '1e+300' is not a count" \
	"b['counts']['bytes_read'] = 1e300"
t "a count that is not an integer" fault fraction "counts.ok: '2.5' is not a count" \
	"b['counts']['ok'] = 2.5"
t "a count above 2^53" fault above53 "counts.bytes_written: '9007199254740993' is not a count" \
	"b['counts']['bytes_written'] = 2**53 + 1"
t "a count that is a string" fault string "counts.sends: expected a count" \
	"b['counts']['sends'] = '5'"
t "a per-second count that is negative" fault ps_negative "per_second.ok[0]: '-1' is not a count" \
	"b['per_second']['ok'][0] = -1"
t "ok and the error kinds do not add up to requests" fault kinds "counts.requests: '100', but ok and the error kinds" \
	"b['counts']['timeout'] += 1"
t "requests one more than ok and the error kinds" fault requests "counts.requests: '101'" \
	"b['counts']['requests'] += 1"
t "responses not ok + status" fault responses "counts.responses: " \
	"b['counts']['responses'] += 1"
t "status_503 off from status" fault status_code "counts.status: " \
	"b['counts']['status_503'] -= 1"
t "status_200 off from ok" fault status_ok "the status_NNN below 400 add up to" \
	"b['counts']['status_200'] += 1"
t "late above sends" fault late "counts.late: " \
	"b['counts']['late'] = b['counts']['sends'] + 1"
t "per-second ok sums off from counts.ok" fault ps_ok "per_second.ok: adds up to" \
	"b['per_second']['ok'][0] += 1"
t "per-second errors sums off from the failed requests" fault ps_errors "per_second.errors: adds up to" \
	"b['per_second']['errors'][-1] += 1"
t "elapsed 0 with requests" fault elapsed "per_second.elapsed: '0' for 100 requests" \
	"b['per_second']['elapsed'] = 0"
t "elapsed negative" fault elapsed_neg "per_second: elapsed: '-1' is not seconds" \
	"b['per_second']['elapsed'] = -1.0"
t "elapsed 1e300" fault elapsed_huge "per_second: elapsed: '1e+300' is not seconds" \
	"b['per_second']['elapsed'] = 1e300"
t "elapsed 1e9: the message's range leaves it out" fault elapsed_1e9 "per_second: elapsed: '1e+09' is not seconds (from 0, below 1e9)" \
	"b['per_second']['elapsed'] = 1e9"
t "a bucket's count that takes the sum past 2^63 - 1: named where it does" fault bucket_sum \
	"the counts add up past 2^63 - 1" \
	"h = b['histograms']['latency']; h['buckets'][0][1] = 2**63 - 1"
t "a segment setting 5/2: said so, not 'no setting'" fault seg_5of2 "its setting 'segment' is not I/N" \
	"d['settings']['segment'] = '5/2'"
# a histogram consistent in itself (a bucket and its count one more) but
# not with the responses it histograms
for h in latency latency_uncorrected send_lag; do
	key=responses
	[ $h = send_lag ] && key=sends
	t "histograms.$h count off from counts.$key" fault "hist_$h" \
		"histograms.$h: count '" \
		"h = b['histograms']['$h']; h['buckets'][0][1] += 1; h['count'] += 1"
done
# case 3: sums across segments. Counts of 2^62 are refused where they
# are read; two segments each holding 2^53 bytes (the most a count may
# be) add up past it, refused when added, naming the second segment.
t "two segments of 2^62 requests each" fault two62 "counts.requests: '4611686018427387904' is not a count" \
	"c = b['counts']; c['requests'] = c['responses'] = c['ok'] = c['status_200'] = 2**62" both
two53() {
	fault two53 "with the segments before it, counts.bytes_read 9007199254740992 and 9007199254740992 add up to more than 2^53" \
		"b['counts']['bytes_read'] = 2**53" both
	# the second segment is the one named
	has "$T/stderr" "'$T/two53.1.json': with the segments before it"
}
t "two segments of 2^53 bytes each: the sum is refused, naming the second" two53

merge_good() {
	"$YS" merge -q -o "$T/good.json" "$T/seg.0.json" "$T/seg.1.json" &&
	py "
b = load('$T/good.json')['benchmarks'][0]
assert b['counts']['requests'] == 200, b['counts']
segs = [load('$T/seg.%d.json' % s)['benchmarks'][0] for s in (0, 1)]
for k in ('ok', 'status', 'status_503', 'responses', 'sends'):
    assert b['counts'][k] == sum(s['counts'][k] for s in segs), k
assert sum(b['per_second']['ok']) == b['counts']['ok']
assert b['histograms']['latency']['count'] == b['counts']['responses']
"
}
t "the untouched segments still merge, the sums whole" merge_good
# -o naming another format than the result's JSON: refused (exit 2),
# nothing written (before: JSON in m.pdf, exit 0)
t "-o m.pdf: refused, exit 2, .json named" sh -c '
	"$YS" merge -o "$T/m.pdf" "$T/seg.0.json" "$T/seg.1.json" 2>"$T/m.err"
	[ $? -eq 2 ] && [ ! -e "$T/m.pdf" ] &&
	grep -qxF "yardstick merge: -o '"'"'$T/m.pdf'"'"': merge writes a result (JSON): name it .json (- for stdout)" "$T/m.err" || { cat "$T/m.err"; exit 1; }'
t "the untouched segments are unchanged" eval 'md5sum "$T/seg.0.json" "$T/seg.1.json" | cmp -s - "$T/sums"'

finish
