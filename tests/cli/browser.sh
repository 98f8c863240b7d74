# Sourced (after lib.sh, with HERE this directory) by the tests that open
# pages: one headless Chromium (browser.py --start) for every page of the
# test, each page in a tab of its own (a start costs seconds); stopped,
# and $T removed, at exit.
YS_BROWSER_DIR=$T/browser
export YS_BROWSER_DIR
mkdir -p "$YS_BROWSER_DIR" &&
	timeout 60 python3 "$HERE/browser.py" --start "$YS_BROWSER_DIR" || exit 1
trap 'python3 "$HERE/browser.py" --stop "$YS_BROWSER_DIR"; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
