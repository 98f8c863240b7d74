# The exit code of each failure class of `roofline --measure` and
# `import`, against what their pages of docs/cmd/ say: the engines return
# -1 with the error's class, and the command takes the code from the class
# (util/error.h, error_exit_code). Each check reads the code from the
# page's "Exit status" (the number before the words of the class), so the
# page and the binary cannot drift apart.
. "$(dirname "$0")/lib.sh"
DOCS=$(dirname "$0")/../../docs/cmd

# documented PAGE WORDS: the exit code the page lists before WORDS ("2 bad
# usage", "3 the environment refused")
documented() {
	python3 - "$DOCS/$1.md" "$2" <<'PY'
import re, sys
text = " ".join(open(sys.argv[1]).read().split())
m = re.search(r"(\d+) " + re.escape(sys.argv[2]), text)
assert m, "%s does not list '%s'" % (sys.argv[1], sys.argv[2])
print(m.group(1))
PY
}

# class PAGE WORDS MESSAGE COMMAND...: COMMAND exits with the code PAGE
# lists before WORDS, saying MESSAGE, and stores nothing
class() {
	page=$1 words=$2 msg=$3
	shift 3
	want=$(documented "$page" "$words") || { echo "$want"; return 1; }
	YARDSTICK_STORE=$T/never.db expect_exit "$want" "$@" &&
	has "$T/stderr" "$msg" && [ ! -e "$T/never.db" ]
}

# ---- roofline --measure ----
# (a sysfs with no cache topology at all is measured with cpuid's caches:
# tests/cli/roofline_measure.sh; one that describes a cache wrongly is
# the environment's refusal)
mkdir -p "$T/badsys/devices/system/cpu/cpu0/cache/index0"
for f in level:1 type:Data size:lots shared_cpu_list:0; do
	echo "${f#*:}" >"$T/badsys/devices/system/cpu/cpu0/cache/index0/${f%%:*}"
done
badsys() {
	YARDSTICK_SYSFS=$T/badsys class roofline "the environment refused" \
		"yardstick roofline: --measure: '$T/badsys/devices/system/cpu/cpu0/cache/index0/size'" \
		"$YS" roofline --measure --quick
}
t "roofline --measure, a cache sysfs describes wrongly: the environment refused" badsys
t "roofline --measure --threads beyond the CPUs: bad usage" \
	class roofline "bad usage" "--threads 65536: this process may run on" \
	"$YS" roofline --measure --quick --threads 65536

# ---- import ----
printf '{"traceEvents": [' >"$T/cut.json"
t "import of a trace that does not exist: cannot be read" \
	class import "bad usage or a trace that cannot be read" \
	"yardstick import: cannot open '$T/absent.json'" \
	"$YS" import "$T/absent.json"
t "import of a truncated trace: cannot be read" \
	class import "bad usage or a trace that cannot be read" \
	"yardstick import: cannot read '$T/cut.json'" \
	"$YS" import "$T/cut.json"
t "import with no trace: bad usage" \
	class import "bad usage" "no trace given" "$YS" import

# a store that cannot take the result: another user's (refused:
# docs/ARCHITECTURE.md, security)
theirs() {
	printf '[{"ph":"X","name":"aten::a","ts":1,"dur":5,"tid":1,"pid":1}]' \
		>"$T/good.json" &&
	YARDSTICK_STORE=$T/theirs.db "$YS" import -q "$T/good.json" &&
	chown nobody "$T/theirs.db" &&
	want=$(documented import "a store that cannot take the result") &&
	YARDSTICK_STORE=$T/theirs.db expect_exit "$want" "$YS" import -q \
		"$T/good.json" &&
	has "$T/stderr" "$T/theirs.db"
}
if [ "$(id -u)" = 0 ]; then
	t "import into another user's store: cannot take the result" theirs
else
	skip "import into another user's store: cannot take the result" "not root: cannot give a file away"
fi

# ---- report --open ----
# xdg-open that finds no browser (a server) exits 3: the page is written,
# and report exits with the environment's code (it said 2, bad usage)
mkdir "$T/bin" && printf '#!/bin/sh\necho "no method available for opening $1" >&2\nexit 3\n' >"$T/bin/xdg-open" &&
chmod +x "$T/bin/xdg-open"
mkresult "$T/r.json" sort 1 0
noopen() {
	want=$(documented report "the store is locked") || { echo "$want"; return 1; }
	PATH=$T/bin:$PATH expect_exit "$want" "$YS" report "$T/r.json" -o "$T/page.html" --open &&
	has "$T/stderr" "yardstick report: --open: xdg-open exited with status 3 (the page is written)" &&
	grep -q "<html" "$T/page.html"
}
t "report --open where xdg-open finds no browser: the environment's exit code, the page written" noopen
noxdg() {
	want=$(documented report "the store is locked") || { echo "$want"; return 1; }
	mkdir -p "$T/empty" && rm -f "$T/page2.html" &&
	PATH=$T/empty expect_exit "$want" "$YS" report "$T/r.json" -o "$T/page2.html" --open &&
	has "$T/stderr" "(the page is written)" && grep -q "<html" "$T/page2.html"
}
t "report --open without xdg-open: the same" noxdg

finish
