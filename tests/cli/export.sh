# yardstick export and load --push: the Prometheus text formats checked by
# promtool, and pushes to a real Pushgateway (Debian's) on loopback whose
# /metrics gives back exactly the result's values, hostile names too.
. "$(dirname "$0")/lib.sh"
HTTPFIX=${HTTPFIX:?HTTPFIX must name the HTTP fixture server}
trap 'for f in "$T"/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done; rm -rf "$T"' EXIT

# A free loopback port (the kernel's pick, released for the server).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The Pushgateway on its own port and directory, no persistence file
# (Debian's default is /var/lib/prometheus/pushgateway.data, which every
# gateway started so would share and load: --persistence.file= empties
# it); $GW its URL. A port taken meanwhile: another one.
start_gateway() {
	mkdir -p "$T/gw"
	for try in 1 2 3 4 5; do
		port=$(free_port)
		(cd "$T/gw" && exec prometheus-pushgateway \
			--web.listen-address=127.0.0.1:$port \
			--persistence.file=) >"$T/gw/log" 2>&1 &
		echo $! >"$T/gw.pid"
		i=0
		while [ $i -lt 100 ]; do
			if python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/-/ready')" 2>/dev/null; then
				GW=http://127.0.0.1:$port
				return 0
			fi
			kill -0 "$(cat "$T/gw.pid")" 2>/dev/null || break
			sleep 0.1
			i=$((i + 1))
		done
		kill "$(cat "$T/gw.pid")" 2>/dev/null
	done
	echo "the Pushgateway did not start:"; cat "$T/gw/log"
	return 1
}

# The gateway's /metrics as JSON: [[name, {label: value}, value], ...],
# parsed with the text format's escapes.
gw_series() {
	python3 - "$GW" >"$1" <<'PY'
import json, re, sys, urllib.request
text = urllib.request.urlopen(sys.argv[1] + "/metrics").read().decode()
out = []
for line in text.split("\n"):
    if not line or line.startswith("#"):
        continue
    m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
    assert m, line
    labels, s, i = {}, m.group(3) or "", 0
    while i < len(s):
        j = s.index('="', i)
        name, i, v = s[i:j], j + 2, ""
        while s[i] != '"':
            if s[i] == "\\":
                v += {"\\": "\\", '"': '"', "n": "\n"}[s[i + 1]]
                i += 2
            else:
                v += s[i]
                i += 1
        labels[name] = v
        i += 1
        if i < len(s) and s[i] == ",":
            i += 1
    out.append([m.group(1), labels, float(m.group(4))])
json.dump(out, sys.stdout)
PY
}

t "the Pushgateway starts" start_gateway

# A run result with a hostile benchmark name and parameters: quotes,
# backslashes, a newline, slashes, UTF-8, parameter names that sanitize
# alike. Written by run so that reading it back gives the same summary.
NAME='a/b "q" \ x
y/ü'
t "a run result to export" sh -c '"$YS" run --runs 5 --no-store -q \
	--json "$T/r.json" -n "$1" -- "$YSFIX" sleep 1 >/dev/null 2>&1' sh "$NAME"
py "
d = load('$T/r.json'); b = d['benchmarks'][0]
b['parameters'] = {'a-b': 'v\"1\\\\\n', 'a.b': 'x/y', 'a_b': '', '9z': 'ü'}
json.dump(d, open('$T/rp.json', 'w'))
"

t "openmetrics: promtool check metrics passes" sh -c \
	'"$YS" export "$T/rp.json" >"$T/om.txt" && promtool check metrics <"$T/om.txt"'
om_ends() {
	has "$T/om.txt" "# UNIT yardstick_wall_time_seconds seconds" &&
		[ "$(tail -n 1 "$T/om.txt")" = "# EOF" ]
}
t "openmetrics: # UNIT lines and # EOF at the end" om_ends
t "prometheus 0.0.4: promtool passes, no # EOF nor # UNIT" sh -c \
	'"$YS" export --format prometheus "$T/rp.json" >"$T/prom.txt" &&
	 promtool check metrics <"$T/prom.txt" &&
	 ! grep -q "^# EOF" "$T/prom.txt" && ! grep -q "^# UNIT" "$T/prom.txt"'
dup_refs() {
	"$YS" export "$T/rp.json" "$T/rp.json" >"$T/dup.txt" 2>"$T/dup.err" &&
		cmp "$T/dup.txt" "$T/om.txt" && has "$T/dup.err" "left out" &&
		promtool check metrics <"$T/dup.txt"
}
t "two refs of one result: no duplicate series, a warning" dup_refs
t "labels sanitized: param_a_b, param_a_b_2, param_a_b_3, param__9z" \
	has "$T/om.txt" 'param_a_b="v\"1\\\n",param_a_b_2="x/y",param_a_b_3="",param__9z="ü"'

t "export --push: exit 0" "$YS" export --push "$GW" "$T/rp.json"
gw_series "$T/gw1.json"
t "the pushed values read back equal the result's, names exact" py "
d = load('$T/rp.json'); b = d['benchmarks'][0]
got = load('$T/gw1.json')
n = 0
for name, unit in (('wall_time', 'seconds'), ('peak_rss', 'bytes')):
    m = b['metrics'][name]
    for stat in ('mean', 'stddev', 'min', 'max', 'median', 'p90', 'p95', 'p99'):
        s = [v for f, l, v in got if f == 'yardstick_%s_%s' % (name, unit)
             and l.get('statistic') == stat and l.get('benchmark') == b['name']]
        assert len(s) == 1, (name, stat, s)
        assert s[0] == m[stat], (name, stat, s[0], m[stat])
        n += 1
ls = [l for f, l, v in got if f == 'yardstick_wall_time_seconds']
assert ls and all(l['benchmark'] == b['name'] for l in ls), ls
assert all(l['param_a_b'] == 'v\"1\\\\\n' and l['param_a_b_3'] == '' for l in ls), ls[0]
assert all(l['job'] == 'yardstick' and l['machine'] == d['machine']['hostname'] for l in ls)
c = [v for f, l, v in got if f == 'yardstick_metric_values' and l['metric'] == 'wall_time']
assert c == [5.0], c
assert n == 16
"

# Errors: nothing listening; a path the gateway does not serve.
dead=$(free_port)
unreachable() {
	expect_exit 3 "$YS" export --push "http://127.0.0.1:$dead" "$T/rp.json" &&
		has "$T/stderr" "'http://127.0.0.1:$dead'" &&
		has "$T/stderr" "refused"
}
t "an unreachable gateway: exit 3, the URL named" unreachable
answers_404() {
	expect_exit 3 "$YS" export --push "$GW/nowhere" "$T/rp.json" &&
		has "$T/stderr" "'$GW/nowhere': it answered 404: 404 page not found"
}
t "a gateway that answers 404: exit 3, the status and its answer" answers_404
t "an unknown --format: exit 2" expect_exit 2 "$YS" export --format json "$T/rp.json"
bad_ref() {
	expect_exit 2 "$YS" export "$T/none.json" && has "$T/stderr" "none.json"
}
t "a REF that cannot be read: exit 2, named" bad_ref
t "--push-interval without --push: exit 2" \
	expect_exit 2 "$YS" load --push-interval 1s http://127.0.0.1:1/
t "--push-interval under 50ms: exit 2" \
	expect_exit 2 "$YS" load --push http://127.0.0.1:1 --push-interval 10ms http://127.0.0.1:1/

# load --push: a 3 s test pushes every 0.5 s; /metrics read twice while
# it runs shows counts that grow, and after it the result's own counts.
"$HTTPFIX" --delay 1 >"$T/fix.port" 2>"$T/fix.err" &
echo $! >"$T/fix.pid"
i=0
while [ ! -s "$T/fix.port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
U=http://127.0.0.1:$(cat "$T/fix.port")/
"$YS" load --no-store -c 2 -d 3 --rate 200 --push "$GW" \
	--push-interval 0.5s --name 'live "load"/x' --json "$T/l.json" "$U" \
	>"$T/l.out" 2>"$T/l.err" &
lpid=$!
sleep 1.3
gw_series "$T/mid1.json"
sleep 1
gw_series "$T/mid2.json"
wait $lpid
echo $? >"$T/l.rc"
gw_series "$T/end.json"
t "load --push: exit 0" sh -c '[ "$(cat "$T/l.rc")" = 0 ] || { cat "$T/l.err"; false; }'
t "load --push: counts grow while it runs, final ones equal the result's" py "
def get(p, fam, **kw):
    s = [v for f, l, v in load(p) if f == fam and l.get('benchmark') == 'live \"load\"/x'
         and all(l.get(k) == w for k, w in kw.items())]
    assert len(s) <= 1, s
    return s[0] if s else None
a = get('$T/mid1.json', 'yardstick_load_requests_total')
b = get('$T/mid2.json', 'yardstick_load_requests_total')
assert a is not None and b is not None and 0 < a < b, (a, b)
assert get('$T/mid1.json', 'yardstick_load_running') == 1
r = load('$T/l.json')['benchmarks'][0]['metrics']
assert get('$T/end.json', 'yardstick_load_requests_total') == r['errors']['requests']
assert get('$T/end.json', 'yardstick_load_ok_total') == r['throughput']['ok']
assert get('$T/end.json', 'yardstick_load_errors_total', kind='status') == r['errors']['status']
assert get('$T/end.json', 'yardstick_load_running') == 0
p99 = get('$T/end.json', 'yardstick_load_latency_seconds', statistic='p99', window='cumulative')
assert p99 == r['latency']['p99'], (p99, r['latency']['p99'])
assert get('$T/mid2.json', 'yardstick_load_latency_seconds', statistic='p50', window='interval') > 0
"
t "load --push: several pushes said" has "$T/l.err" "pushes to"

# Two segments of one test on one machine: a group each (segment in the
# grouping key), neither replacing the other.
segments_push() {
	at=$(($(date +%s) + 1))
	for s in 0 1; do
		"$YS" load --no-store -q -c 2 --rate 100 -n 100 --segment $s/2 \
			--start-at "$at" --push "$GW" --name seg "$U" 2>/dev/null &
		echo $! >"$T/seg$s.pid"
	done
	wait "$(cat "$T/seg0.pid")" && wait "$(cat "$T/seg1.pid")" || return 1
	rm -f "$T/seg0.pid" "$T/seg1.pid"
	gw_series "$T/segs.json"
	py "
s = sorted((l['segment'], v) for f, l, v in load('$T/segs.json')
           if f == 'yardstick_load_requests_total' and l.get('benchmark') == 'seg')
assert s == [('0/2', 50.0), ('1/2', 50.0)], s
"
}
t "load --segment --push: one group per segment" segments_push

# a --push URL without its scheme is bad usage, refused before anything
# is read or measured: export said exit 3 (as an unreachable gateway),
# load ran its whole test first, then exited 1
t "export --push localhost:9091: exit 2" expect_exit 2 "$YS" export --push localhost:9091 "$T/nothing.json"
t "... naming the URL" has "$T/stderr" "yardstick export: --push: URL 'localhost:9091': must start with http:// or https://"
t "load --push localhost:9091: exit 2, before any request" sh -c '
	YARDSTICK_STORE=$T/never.db "$YS" load -d 30s --push localhost:9091 http://127.0.0.1:1/ 2>"$T/e"; [ $? -eq 2 ] &&
	grep -qx "yardstick load: --push: URL '"'"'localhost:9091'"'"': must start with http:// or https://" "$T/e" &&
	[ ! -e "$T/never.db" ]'

finish
