#!/bin/sh
# What the live view costs the load threads: `yardstick load` (closed
# model, the most the server takes) of this build against BASE, a build
# of the commit before the live view (its relaxed atomic stores on the hot
# path), and this build with `--push` to a local Pushgateway every 0.5 s
# (its control thread reads every histogram and pushes meanwhile), the
# three alternating for ROUNDS rounds (the order turns each round) against
# one httpfix on loopback. Prints requests/s of each run, the median and
# minimum per mode, and the ratios to BASE.
#   bench/load_live_cost.sh BASE_YARDSTICK [build] [ROUNDS] [DURATION] [CONNECTIONS]
set -eu
base=${1:?usage: $0 BASE_YARDSTICK [build] [ROUNDS] [DURATION] [CONNECTIONS]}
build=${2:-build}
rounds=${3:-7}
duration=${4:-3}
conns=${5:-16}
ys=$build/yardstick
fix=$build/tests/fixtures/httpfix
dir=$(mktemp -d /tmp/ys-live-bench-XXXXXX)
trap 'kill $(cat "$dir"/*.pid 2>/dev/null) 2>/dev/null; rm -rf "$dir"' EXIT
"$fix" >"$dir/port" 2>/dev/null &
echo $! >"$dir/fix.pid"
gwport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$dir" && exec prometheus-pushgateway --web.listen-address=127.0.0.1:$gwport \
	--persistence.file=) >/dev/null 2>&1 &
echo $! >"$dir/gw.pid"
sleep 1
url=http://127.0.0.1:$(cat "$dir/port")/
run() {	# MODE: requests/s
	case $1 in
	base) "$base" load --no-store -q -c "$conns" -d "$duration" --json "$dir/r.json" "$url" ;;
	new) "$ys" load --no-store -q -c "$conns" -d "$duration" --json "$dir/r.json" "$url" ;;
	push) "$ys" load --no-store -q -c "$conns" -d "$duration" --push "http://127.0.0.1:$gwport" \
		--push-interval 0.5s --json "$dir/r.json" "$url" ;;
	esac 2>/dev/null
	python3 -c "import json; print(json.load(open('$dir/r.json'))['benchmarks'][0]['metrics']['throughput']['rate'])"
}
modes="base new push"
for r in $(seq "$rounds"); do
	for m in $modes; do
		echo "$m $(run "$m")" | tee -a "$dir/all"
	done
	modes="$(echo $modes | cut -d' ' -f2-) $(echo $modes | cut -d' ' -f1)"
done
python3 - "$dir/all" <<'PY'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    m, x = line.split()
    v.setdefault(m, []).append(float(x))
print("requests/s  mode   median      min      max")
for m in ("base", "new", "push"):
    print("            %-5s %8.0f %8.0f %8.0f" % (m, statistics.median(v[m]), min(v[m]), max(v[m])))
for m in ("new", "push"):
    print("%s / base: median %.3f, min %.3f" % (m, statistics.median(v[m]) / statistics.median(v["base"]),
                                              min(v[m]) / min(v["base"])))
PY
