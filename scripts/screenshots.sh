#!/bin/sh
# scripts/screenshots.sh YARDSTICK: a screenshot of each view of
# `yardstick report` (tests/cli/report_views.sh) at 1280 and 800 px into
# docs/img/report-VIEW-WIDTH.png, taken by headless Chromium
# (tests/cli/browser.py). `make screenshots`; look at them when you change
# a view, and commit them.
set -eu
YS=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/docs/img
W=$(mktemp -d /tmp/ys-shots-XXXXXX)
trap 'python3 "$ROOT/tests/cli/browser.py" --stop "$W/browser"; rm -rf "$W"' EXIT
mkdir -p "$OUT" "$W/browser"
sh "$ROOT/tests/cli/report_views.sh" "$YS" "$W" >"$W/views.log" 2>&1 ||
	{ cat "$W/views.log" >&2; exit 1; }
YS_BROWSER_DIR=$W/browser
export YS_BROWSER_DIR
timeout 60 python3 "$ROOT/tests/cli/browser.py" --start "$W/browser"
for v in run compare load mem history trace roofline; do
	for w in 1280 800; do
		timeout 120 python3 "$ROOT/tests/cli/browser.py" "$W/$v.html" \
			--width "$w" --height 1000 \
			--screenshot "$OUT/report-$v-$w.png" >/dev/null
		echo "docs/img/report-$v-$w.png"
	done
done
# docs/img/load-find-max.png: the capacity chart of a real search (about
# 25 s), against httpfix's 2 workers of 10 ms each: 200 requests/s
HTTPFIX=$(dirname "$YS")/tests/fixtures/httpfix
"$HTTPFIX" --delay 10 --workers 2 >"$W/fix.port" &
echo $! >"$W/fix.pid"
i=0
while [ ! -s "$W/fix.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
"$YS" load --no-store -q --find-max --slo 'p99<100ms' --start-rate 50 \
	--json "$W/findmax.json" "http://127.0.0.1:$(cat "$W/fix.port")/" || true
kill "$(cat "$W/fix.pid")"
"$YS" report "$W/findmax.json" -o "$W/findmax.html"
timeout 120 python3 "$ROOT/tests/cli/browser.py" "$W/findmax.html" \
	--width 1280 --height 560 --screenshot "$OUT/load-find-max.png" >/dev/null
echo docs/img/load-find-max.png
