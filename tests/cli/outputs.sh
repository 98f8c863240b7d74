# The output set, across every command and every output option it has:
# (a) "-" as the path gives a stdout that is exactly one document while the
#     report goes to stderr (without -q); (b) a path that cannot be written
#     is refused with exit 2 naming the option, before any work (the
#     program or the load never starts: its marker is absent); (c) two
#     outputs on stdout: exit 2; and at the end, one output that fails does
#     not stop the others.
. "$(dirname "$0")/lib.sh"
HTTPFIX=${HTTPFIX:?HTTPFIX must name the HTTP fixture server}
HEAPFIX=${HEAPFIX:?HEAPFIX must name the heap fixture program}
FX=$(dirname "$YSFIX")
export FX HEAPFIX
trap 'for f in "$T"/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done; rm -rf "$T"' EXIT

# valid KIND FILE: FILE is one document of KIND and nothing else.
valid() {
	python3 - "$@" <<'PY'
import csv, gzip, json, re, sys
import xml.etree.ElementTree as ET
kind, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
assert data, "empty"
if kind in ("json", "bmf"):
    json.loads(data.decode())          # trailing text: "Extra data"
elif kind in ("xml", "svg"):
    ET.fromstring(data)                 # one root element, nothing after
elif kind == "csv":
    rows = list(csv.reader(data.decode().splitlines()))
    assert len(rows) >= 2 and len({len(r) for r in rows}) == 1, rows[:5]
elif kind == "folded":
    for line in data.decode().splitlines():
        assert re.fullmatch(r".+ \d+", line), line
elif kind == "markdown":
    assert data.decode().lstrip().startswith(("|", "#", "**")), data[:200]
elif kind == "pprof":
    gzip.decompress(data)
else:
    raise SystemExit("unknown kind " + kind)
PY
}

# to_stdout KIND REPORT CMD...: CMD (which has an output "-") exits 0 or 1;
# its stdout is one KIND document without the report's text REPORT, its
# stderr has REPORT.
to_stdout() {
	kind=$1 report=$2
	shift 2
	"$@" >"$T/so.out" 2>"$T/so.err"
	rc=$?
	[ $rc -le 1 ] || { echo "exit $rc"; cat "$T/so.err"; return 1; }
	valid "$kind" "$T/so.out" || { head -c 2000 "$T/so.out"; return 1; }
	if grep -qF -- "$report" "$T/so.out"; then
		echo "the report is on stdout:"; head -c 2000 "$T/so.out"; return 1
	fi
	has "$T/so.err" "$report"
}

# refused OPTION PATH MARKER CMD...: CMD exits 2 naming OPTION and PATH,
# and MARKER (a file the work would make) does not exist.
refused() {
	opt=$1 path=$2 marker=$3
	shift 3
	rm -f "$marker"
	expect_exit 2 "$@" || return 1
	has "$T/stderr" "$opt: " && has "$T/stderr" "$path" &&
	{ [ ! -e "$marker" ] || { echo "the work ran: $marker exists"; return 1; }; }
}

# prog_to_stderr KIND REPORT CMD...: to_stdout, and the program's own
# output (PROGRAM-SAYS) went to stderr.
prog_to_stderr() {
	to_stdout "$@" </dev/null && has "$T/so.err" PROGRAM-SAYS
}

# two_stdout MESSAGE MARKER CMD...: exit 2 with MESSAGE, nothing on
# stdout, MARKER absent.
two_stdout() {
	msg=$1 marker=$2
	shift 2
	expect_exit 2 "$@" && has "$T/stderr" "$msg" && [ ! -s "$T/stdout" ] &&
	{ [ ! -e "$marker" ] || { echo "the work ran: $marker exists"; return 1; }; }
}

# as_file KIND REPORT FILE CMD...: to_stdout, and stdout is FILE's bytes
# (CMD is deterministic; FILE was written by the same command).
as_file() {
	kind=$1 report=$2 file=$3
	shift 3
	to_stdout "$kind" "$report" "$@" && cmp "$T/so.out" "$file"
}

# end_fails FILE... -- CMD...: CMD exits 2 naming /dev/full, yet every
# FILE was written.
end_fails() {
	files=
	while [ "$1" != -- ]; do files="$files $1"; shift; done
	shift
	expect_exit 2 "$@" && has "$T/stderr" "/dev/full" || return 1
	for f in $files; do
		[ -s "$f" ] || { echo "'$f' not written"; return 1; }
	done
}

# reader_gone FILE CHECK CMD...: CMD's report (stderr) goes into a pipe
# whose reader has gone before the program ends (`2>&1 | head` once head
# has its lines): CMD still exits 0 and writes FILE, and the Python
# expression CHECK holds of FILE's text d.
reader_gone() {
	file=$1 check=$2
	shift 2
	rm -f "$file" "$T/rg.rc"
	{ sleep 0.5; "$@" 2>&1; echo $? >"$T/rg.rc"; } | true
	[ "$(cat "$T/rg.rc")" = 0 ] || { echo "exit $(cat "$T/rg.rc")"; return 1; }
	[ -s "$file" ] || { echo "'$file' not written"; return 1; }
	python3 -c 'import json, sys; d = open(sys.argv[1]).read(); assert '"$check"', d[:2000]' "$file"
}

# The paths no command may write, even as root: under a missing
# directory, under a regular file, a directory itself.
mkdir "$T/adir"
: >"$T/plain"
BAD_PATHS="$T/no/such/dir/out $T/plain/out $T/adir"

# ---- run --------------------------------------------------------------
M=$T/run.ran
for opt in --json --csv --markdown --bmf; do
	kind=${opt#--}
	t "run $opt - without -q: stdout is the $kind alone, the table on stderr" \
		to_stdout "$kind" "Benchmark 1" "$YS" run --no-store --runs 2 --warmup 0 "$opt" - -- "$YSFIX" exit 0
	for p in $BAD_PATHS; do
		t "run $opt '$p': exit 2 before any run" refused "$opt" "$p" "$M" \
			"$YS" run --no-store --runs 2 --warmup 0 "$opt" "$p" -- "$YSFIX" count "$M"
	done
done
t "run --bmf /dev/stdout: the table on stderr" \
	to_stdout json "Benchmark 1" "$YS" run --no-store --runs 2 --warmup 0 --bmf /dev/stdout -- "$YSFIX" exit 0
t "run --json - --bmf -: exit 2 naming both, nothing run" two_stdout \
	"--json - and --bmf - both want stdout" "$M" \
	"$YS" run --no-store --runs 2 --json - --bmf - -- "$YSFIX" count "$M"
t "run --csv - --markdown /dev/stdout: exit 2" two_stdout \
	"--csv - and --markdown '/dev/stdout' both want stdout" "$M" \
	"$YS" run --no-store --runs 2 --csv - --markdown /dev/stdout -- "$YSFIX" count "$M"
t "run --bmf - --show-output: exit 2" two_stdout \
	"--bmf - and --show-output both want stdout" "$M" \
	"$YS" run --no-store --runs 2 --bmf - --show-output -- "$YSFIX" count "$M"
t "run --json F --csv F (one file twice): exit 2 before any run" two_stdout \
	"are the same file" "$M" \
	"$YS" run --no-store --runs 2 --json "$T/same" --csv "$T/./same" -- "$YSFIX" count "$M"
devnull() {
	"$YS" run -q --no-store --runs 2 --json /dev/null --csv /dev/null -- "$YSFIX" exit 0 >/dev/null
}
t "run --json /dev/null --csv /dev/null >/dev/null: no stdout conflict" devnull
t "run: an output that fails at the end (/dev/full) does not stop the others" \
	end_fails "$T/full.csv" -- \
	"$YS" run -q --no-store --runs 2 --json /dev/full --csv "$T/full.csv" -- "$YSFIX" exit 0
# A result past stdio's buffer fails while it is written, not at the end:
# the message still says why (it said only "cannot write '/dev/full'",
# and so did a full disk, for --json and for the result kept in unsaved/)
full_midway() {
	long=$(python3 -c 'print("x" * 20000)')
	expect_exit 2 "$YS" run -q --no-store --runs 2 -n "$long" --json /dev/full -- "$YSFIX" exit 0 &&
	has "$T/stderr" "cannot write '/dev/full': No space left on device"
}
t "run: --json that fails midway (/dev/full, a 20 kB name) names the cause" full_midway

# ---- compare ------------------------------------------------------------
mkresult "$T/base.json" bench 1 0
mkresult "$T/cand.json" bench 1.2 0
for opt in --json --markdown; do
	kind=${opt#--}
	"$YS" compare -q "$opt" "$T/cmp.$kind" "$T/base.json" "$T/cand.json"
	t "compare $opt - without -q: stdout is the $kind alone, the report on stderr, as in a file" \
		as_file "$kind" "→" "$T/cmp.$kind" "$YS" compare "$opt" - "$T/base.json" "$T/cand.json"
	for p in $BAD_PATHS; do
		t "compare $opt '$p': exit 2 naming it" refused "$opt" "$p" "$T/none" \
			"$YS" compare "$opt" "$p" "$T/base.json" "$T/cand.json"
	done
done
t "compare --json - --markdown -: exit 2 naming both" two_stdout \
	"--json - and --markdown - both want stdout" "$T/none" \
	"$YS" compare --json - --markdown - "$T/base.json" "$T/cand.json"
t "compare: --json fails at the end (/dev/full), --markdown is still written" \
	end_fails "$T/full.md" -- \
	"$YS" compare -q --json /dev/full --markdown "$T/full.md" "$T/base.json" "$T/cand.json"

# ---- gate ---------------------------------------------------------------
for spec in "--markdown markdown" "--junit xml" "--bmf json"; do
	opt=${spec% *} kind=${spec#* }
	"$YS" gate -q --limit wall_time=1s "$opt" "$T/gate.$kind" "$T/cand.json"
	t "gate $opt - without -q: stdout is the $kind alone, the report on stderr, as in a file" \
		as_file "$kind" "→" "$T/gate.$kind" "$YS" gate --limit wall_time=1s "$opt" - "$T/cand.json"
	for p in $BAD_PATHS; do
		t "gate $opt '$p': exit 2 naming it" refused "$opt" "$p" "$T/none" \
			"$YS" gate --limit wall_time=1s "$opt" "$p" "$T/cand.json"
	done
done
t "gate --junit - --bmf /dev/stdout: exit 2 naming both" two_stdout \
	"--junit - and --bmf '/dev/stdout' both want stdout" "$T/none" \
	"$YS" gate --limit wall_time=1s --junit - --bmf /dev/stdout "$T/cand.json"
t "gate: --bmf fails at the end (/dev/full), --markdown and --junit are still written" \
	end_fails "$T/full.gmd" "$T/full.xml" -- \
	"$YS" gate -q --limit wall_time=1s --bmf /dev/full --markdown "$T/full.gmd" --junit "$T/full.xml" "$T/cand.json"

# ---- history ------------------------------------------------------------
"$YS" run -q --runs 2 --warmup 0 -- "$YSFIX" exit 0 >/dev/null 2>&1
"$YS" history --json "$T/hist.json" >/dev/null
t "history --json -: stdout is the JSON alone, the rows on stderr, as in a file" \
	as_file json "commit    branch" "$T/hist.json" "$YS" history --json -
t "history --detect --json -: stdout is the JSON alone, the change points on stderr" \
	to_stdout json "change points in" "$YS" history --detect --json - "$YSFIX exit 0"
for p in $BAD_PATHS; do
	t "history --json '$p': exit 2 naming it" refused --json "$p" "$T/none" \
		"$YS" history --json "$p"
done

# ---- load ---------------------------------------------------------------
rm -f "$T/srv.port"
"$HTTPFIX" --stats "$T/srv.stats" >"$T/srv.port" 2>"$T/srv.err" &
echo $! >"$T/srv.pid"
i=0
while [ ! -s "$T/srv.port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
U=http://127.0.0.1:$(cat "$T/srv.port")/
export U
for p in $BAD_PATHS; do
	t "load --json '$p': exit 2 naming it" refused --json "$p" "$T/none" \
		"$YS" load --no-store -c 1 -n 5 --json "$p" "$U"
done
kill "$(cat "$T/srv.pid")"
i=0
while [ ! -s "$T/srv.stats" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
t "... no request was sent" has "$T/srv.stats" "requests 0"
"$HTTPFIX" >"$T/srv2.port" 2>"$T/srv2.err" &
echo $! >"$T/srv2.pid"
i=0
while [ ! -s "$T/srv2.port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
U2=http://127.0.0.1:$(cat "$T/srv2.port")/
t "load --json - without -q: stdout is the JSON alone, the summary on stderr" \
	to_stdout json "closed model" "$YS" load --no-store -c 1 -n 20 --json - "$U2"

# ---- mem ----------------------------------------------------------------
M=$T/mem.ran
for spec in "--json json" "--timeline svg" "-o folded" "-o svg"; do
	opt=${spec% *} kind=${spec#* }
	fmt=
	[ "$opt" = -o ] && fmt="--format $kind"
	t "mem $opt - $fmt: stdout is the $kind alone, the report and the program's output on stderr" \
		prog_to_stderr "$kind" "peak heap" "$YS" mem --no-store $fmt "$opt" - -- "$HEAPFIX" exec "$HEAPFIX" echo PROGRAM-SAYS
	for p in $BAD_PATHS; do
		t "mem $opt '$p': exit 2 before the program runs" refused "$opt" "$p" "$M" \
			"$YS" mem --no-store $fmt "$opt" "$p" -- "$HEAPFIX" create "$M"
	done
done
t "mem -o - --json -: exit 2 naming both, the program not run" two_stdout \
	"-o - and --json - both want stdout" "$M" \
	"$YS" mem --no-store --format folded -o - --json - -- "$HEAPFIX" create "$M"

# ---- record -------------------------------------------------------------
M=$T/record.ran
for spec in folded svg speedscope pprof; do
	for p in $BAD_PATHS; do
		t "record -o '$p' --format $spec: exit 2 before the program runs" refused -o "$p" "$M" \
			"$YS" record --format "$spec" -o "$p" -- "$YSFIX" count "$M"
	done
done
t "record -o - -o /dev/stdout: exit 2 naming both, the program not run" two_stdout \
	"-o - and -o '/dev/stdout' both want stdout" "$M" \
	"$YS" record --format folded -o - -o /dev/stdout -- "$YSFIX" count "$M"
t "record -o F.folded -o F.folded: exit 2, the program not run" two_stdout \
	"are the same file" "$M" \
	"$YS" record -o "$T/p.folded" -o "$T/p.folded" -- "$YSFIX" count "$M"
t "record --diff -o '$T/adir': exit 2 naming it" refused -o "$T/adir" "$T/none" \
	"$YS" record --diff -o "$T/adir" "$T/x.folded" "$T/y.folded"
diff_svg() {
	"$YS" record --diff -o - "$T/d1.folded" "$T/d2.folded" >"$T/diff.out" &&
	valid svg "$T/diff.out"
}
# sampling needs perf events: without them, record exits 3
"$YS" record -q -o "$T/probe.folded" -- "$FX/hot" 50 >/dev/null 2>&1
if [ $? -ne 3 ]; then
	for spec in "folded folded" "svg svg" "speedscope json" "pprof pprof"; do
		fmt=${spec% *} kind=${spec#* }
		t "record -o - --format $fmt: stdout is the $kind alone, the report and the program's output on stderr" \
			prog_to_stderr "$kind" "Hz effective" "$YS" record --format "$fmt" -o - -- \
			sh -c 'echo PROGRAM-SAYS; exec "$FX/hot" 200'
	done
	"$YS" record -q -o "$T/d1.folded" -- "$FX/hot" 100
	"$YS" record -q -o "$T/d2.folded" -- "$FX/hot" 100
	t "record --diff -o -: stdout is the SVG alone" diff_svg
	t "record: a reader of the report that went away: exit 0, the profile written" \
		reader_gone "$T/rg.folded" 'all(l.rsplit(" ", 1)[1].isdigit() for l in d.splitlines()) and sum(int(l.rsplit(" ", 1)[1]) for l in d.splitlines() if ";work;" in l and "spin" in l) >= 50' \
		"$YS" record -o "$T/rg.folded" -- "$FX/hot" 100
	t "trace: a reader of the report that went away: exit 0, the trace written" \
		reader_gone "$T/rg.json" 'sum(1 for e in json.loads(d)["traceEvents"] if e.get("ph") == "X" and e["name"] == "decode") == 20' \
		"$YS" trace --no-store -o "$T/rg.json" -- "$FX/zonefix"
	t "trace of a Python program (its summary printed as the collection ends): the same" \
		reader_gone "$T/rg.json" 'any(e.get("ph") == "M" and e["name"] == "process_name" for e in json.loads(d)["traceEvents"])' \
		"$YS" trace --no-store -o "$T/rg.json" -- python3 -c "sum(range(3000000))"
else
	skip "record -o -: stdout is the profile alone" "perf events are not permitted here"
fi
t "mem: a reader of the report that went away: exit 0, the result written" \
	reader_gone "$T/rg.json" 'json.loads(d)["benchmarks"][0]["metrics"]["leaked_blocks"]["values"] == [10]' \
	"$YS" mem --no-store --json "$T/rg.json" -- "$HEAPFIX" leak 10 1000
# run and bench report on stdout: a reader that went away (`| head`)
# loses the table's rest (exit 2, said on stderr), not the runs' outputs
table_gone() {
	file=$1 check=$2
	shift 2
	rm -f "$file" "$T/rg.rc"
	{ sleep 0.5; "$@" 2>"$T/rg.err"; echo $? >"$T/rg.rc"; } | true
	[ "$(cat "$T/rg.rc")" = 2 ] || { echo "exit $(cat "$T/rg.rc")"; cat "$T/rg.err"; return 1; }
	grep -Eq "^yardstick( run| bench)?: cannot write to stdout" "$T/rg.err" &&
	! grep -q "stdout: Success" "$T/rg.err" &&
	python3 -c 'import json, sys; d = open(sys.argv[1]).read(); assert '"$check"', d[:2000]' "$file"
}
t "run: a reader of the table that went away: the JSON written with every run" \
	table_gone "$T/rg.json" '[len(b["metrics"]["wall_time"]["values"]) for b in json.loads(d)["benchmarks"]] == [5, 5]' \
	"$YS" run --no-store --runs 5 --json "$T/rg.json" "$YSFIX exit 0" "$YSFIX exit 0"
t "bench: a reader of the table that went away: the JSON written" \
	table_gone "$T/rg.json" 'len(json.loads(d)["benchmarks"]) >= 1' \
	"$YS" bench --no-store --json "$T/rg.json" -- "$FX/benchfix"

# (d) one output option given twice with two files: the first was
# dropped unwritten, exit 0; now refused, exit 2, before any run
t "run --json a.json --json b.json: exit 2 before any run" sh -c '
	cd "$T" && "$YS" run --no-store --runs 1 --json a.json --json b.json -- "$YSFIX" exit 0 2>"$T/e"; [ $? -eq 2 ] &&
	grep -qx "yardstick run: --json: given twice ('"'"'a.json'"'"', then '"'"'b.json'"'"'): it writes one file" "$T/e" &&
	[ ! -e a.json ] && [ ! -e b.json ]'
t "report -o twice: the same" sh -c '
	"$YS" report -o "$T/p1.html" -o "$T/p2.html" latest 2>"$T/e"; [ $? -eq 2 ] &&
	grep -q "yardstick report: --output: given twice" "$T/e"'
t "... the same file twice is no conflict" sh -c '
	cd "$T" && "$YS" run -q --no-store --runs 1 --json same.json --json same.json -- "$YSFIX" exit 0 2>/dev/null && [ -s same.json ]'

# (e) a file whose name says another format than the option writes
# (--json r.md): one line of warning on stderr, naming the option, the
# file and both formats; the file written as the option says, exit 0.
# Before: nothing said. A name that fits, or says no known format, or
# stdout: nothing.
misnamed() (
	cd "$T" && rm -f mis.* && "$YS" run --no-store --runs 2 --warmup 0 --markdown mis.json --json mis.csv --csv mis.csv.txt --bmf mis.bmf.json -- "$YSFIX" exit 0 >/dev/null 2>"$T/mis.err" &&
	[ "$(grep -c "^yardstick run: warning: " "$T/mis.err")" = 2 ] &&
	grep -qx "yardstick run: warning: --markdown 'mis.json': its name says JSON (.json); it is written as Markdown" "$T/mis.err" &&
	grep -qx "yardstick run: warning: --json 'mis.csv': its name says CSV (.csv); it is written as JSON" "$T/mis.err" &&
	valid json mis.csv && valid markdown mis.json && valid csv mis.csv.txt && valid bmf mis.bmf.json
)
t "run --markdown F.json --json F.csv: a warning each, the files written as asked" misnamed
t "compare --json F.md: the warning, exit 0, the JSON written" sh -c '
	cd "$T" && "$YS" run -q --runs 2 --warmup 0 -n m -- "$YSFIX" exit 0 2>/dev/null && "$YS" run -q --runs 2 --warmup 0 -n m -- "$YSFIX" exit 0 2>/dev/null &&
	"$YS" compare -q --json cmp.md --markdown cmp.json~ 1 2 2>"$T/e" &&
	grep -qx "yardstick compare: warning: --json '"'"'cmp.md'"'"': its name says Markdown (.md); it is written as JSON" "$T/e" &&
	[ "$(wc -l <"$T/e")" = 1 ] && python3 -c "import json; json.load(open(\"cmp.md\"))"'
misnamed_profilers() (
	cd "$T" && "$YS" mem -q --no-store --timeline tl.json -- "$HEAPFIX" leak 10 1000 >/dev/null 2>"$T/e" &&
	grep -qx "yardstick mem: warning: --timeline 'tl.json': its name says JSON (.json); it is written as SVG" "$T/e" &&
	valid svg tl.json &&
	"$YS" trace -q --no-store --format perfetto -o tr.json -- "$YSFIX" exit 0 >/dev/null 2>"$T/e2" &&
	grep -qx "yardstick trace: warning: -o 'tr.json': its name says JSON (.json); it is written as a Perfetto trace" "$T/e2" &&
	[ -s tr.json ] && ! python3 -c "import json; json.load(open(\"tr.json\"))" 2>/dev/null
)
t "mem --timeline F.json, trace --format perfetto -o F.json: the same" misnamed_profilers
t "names that fit, say nothing known, or stdout: no warning" sh -c '
	cd "$T" && "$YS" run --no-store --runs 2 --warmup 0 --json ok.json --markdown ok.markdown --csv ok.txt -- "$YSFIX" exit 0 >/dev/null 2>"$T/e" &&
	! grep "warning: --" "$T/e" &&
	"$YS" history -q --json - >/dev/null 2>"$T/e2" && [ ! -s "$T/e2" ] &&
	"$YS" gate -q --baseline 1 --max-increase wall_time=1000000% --junit g.xml --bmf g.json 2 2>"$T/e3"; [ $? -le 1 ] && ! grep "warning: --" "$T/e3"'

finish
