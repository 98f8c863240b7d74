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
