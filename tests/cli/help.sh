# yardstick help, --help, --version: generated from the command table.
. "$(dirname "$0")/lib.sh"

t "--version prints the version" sh -c '"$YS" --version | grep -qx "yardstick 0.1.0"'
t "help lists run" sh -c '"$YS" help | grep -q "^  run "'
t "help run equals run --help" sh -c '[ "$("$YS" help run)" = "$("$YS" run --help)" ]'
t "run --help documents the percentile definition" sh -c '"$YS" run --help | grep -q "type 7"'
t "an unknown command exits 2" expect_exit 2 "$YS" frobnicate
t "... naming it" has "$T/stderr" "'frobnicate' is not a command"
t "help of an unknown command exits 2" expect_exit 2 "$YS" help frobnicate
t "no arguments: usage on stderr, exit 2" expect_exit 2 "$YS"
t "... usage text" has "$T/stderr" "usage: yardstick COMMAND"
# Every command's help says where its report goes (stdout or stderr):
# the commands listed by `help`, so that a new one is checked too.
report_stream() {
	cmds=$("$YS" help | sed -n "s/^  \([a-z]*\) .*/\1/p" | grep -v "^help$")
	[ "$(echo "$cmds" | wc -l)" -ge 10 ] || { echo "commands: $cmds"; return 1; }
	for c in $cmds; do
		"$YS" $c --help | tr "\n" " " | grep -Eq "(report|table|output|listed|summary|metrics).{0,60}(stdout|stderr)|(stdout|stderr).{0,40}report" ||
			{ echo "'$c --help' does not say where its report goes"; return 1; }
	done
}
t "every command's --help says which stream its report goes to" report_stream
# help's line of report names every page it draws (--profile, --trace,
# --ceilings as README.md's table does), not the first three alone
t "help: report draws results, comparisons, histories, profiles, traces, rooflines" sh -c '
	"$YS" help | grep -q "^  report  *an HTML page of results, a comparison, a history, a profile, a trace, a roofline$" &&
	"$YS" report --help | grep -q -- "--profile FILE" && "$YS" report --help | grep -q -- "--trace FILE" &&
	"$YS" report --help | grep -q -- "--ceilings"'

# ---- a new user's mistakes ---------------------------------------------------
# An option's help that states its default is not told it again: load
# --step-duration said "(default 2s) (default 2s; above 0)", run --warmup
# "(... warmup_wall_time) (default 1)", 6 options in all.
default_once() {
	for c in $("$YS" help | sed -n "s/^  \([a-z]*\) .*/\1/p" | grep -vx "help\|completion"); do
		"$YS" doc markdown "$c" >"$T/md" || return 1
		if grep -E "\(default [^)]*\).*\(default " "$T/md"; then
			echo "$c: a default said twice"; return 1
		fi
	done
	"$YS" doc markdown load | grep -qF "hold each step at least T (default 2s) (above 0)" &&
	"$YS" doc markdown run | grep -qF "warmup\_wall\_time) |"
}
t "no option's help says its default twice" default_once
# a program's own option before '--' (`record ls -l`): where it goes
t "record ls -l: exit 2" expect_exit 2 "$YS" record ls -l
t "... the program's options go after '--'" has "$T/stderr" \
	"yardstick record: unknown option '-l'; if it is an option of 'ls', put the program after '--': yardstick record [OPTIONS] -- PROGRAM [ARGS...]"
t "run ls --color: exit 2, the same advice" expect_exit 2 "$YS" run --runs 1 ls --color
t "... naming the program" has "$T/stderr" \
	"yardstick run: unknown option '--color'; if it is an option of 'ls', put the program after '--': yardstick run [OPTIONS] -- PROGRAM [ARGS...]"
t "... not when the option is a typo of one of ours" sh -c '
	"$YS" mem ls --tpo 3 2>"$T/e"; [ $? -eq 2 ] &&
	grep -qx "yardstick mem: unknown option '"'"'--tpo'"'"'; did you mean '"'"'--top'"'"'?" "$T/e"'
t "... nor before the program" sh -c '
	"$YS" trace -l -- ls 2>"$T/e"; [ $? -eq 2 ] &&
	grep -qx "yardstick trace: unknown option '"'"'-l'"'"'" "$T/e"'
# `yardstick help help` is the usage, as `yardstick help` lists help
t "help help: the usage, exit 0" sh -c '
	"$YS" help help >"$T/o" 2>"$T/e" && [ ! -s "$T/e" ] &&
	grep -q "^usage: yardstick COMMAND" "$T/o"'
# an option before the command
t "yardstick --versoin: did you mean --version" expect_exit 2 "$YS" --versoin
t "... said so" has "$T/stderr" "yardstick: unknown option '--versoin'; did you mean '--version'?"
t "yardstick --json x run: a command's options go after it" expect_exit 2 "$YS" --json x run
t "... said so" has "$T/stderr" \
	"yardstick: unknown option '--json' (yardstick's own are --help and --version; a command's go after its name: yardstick COMMAND [OPTIONS])"
# a mistyped subcommand of store, as a mistyped command
t "store cpy: exit 2" expect_exit 2 "$YS" store cpy a.db b.db
t "... did you mean 'copy'" has "$T/stderr" "yardstick store: unknown subcommand 'cpy'; did you mean 'copy'?"
t "store frobnicate: the subcommands listed" sh -c '
	"$YS" store frobnicate 2>"$T/e"; [ $? -eq 2 ] &&
	grep -qx "yardstick store: unknown subcommand '"'"'frobnicate'"'"' (copy, flush)" "$T/e"'
# One long option, one short form: the table of every command's options,
# read from its --help (what a user reads). A long option that has a
# short form in one command has the same one wherever it exists, except
# where that letter is the command's own, documented, for another option
# (each listed with its reason). Before: record and trace --duration,
# roofline --threads and --runs, report --baseline had none.
short_forms() {
	cmds=$("$YS" help | sed -n "s/^  \([a-z]*\) .*/\1/p" | grep -vx "help\|completion")
	[ "$(echo "$cmds" | wc -l)" -ge 15 ] || { echo "commands: $cmds"; return 1; }
	for c in $cmds; do
		"$YS" $c --help | sed -n "s/^  -\(.\), --\([a-z0-9-]*\).*/$c \1 \2/p; s/^      --\([a-z0-9-]*\).*/$c - \1/p"
	done >"$T/optab"
	python3 - "$T/optab" <<'PY'
import collections, sys
# (command, long option): the command's own option that has the letter
# the others give this one (documented; kept), or None: the same name
# for another thing (gate's --limit is a ceiling of a metric, not
# history's and report's count of rows, -n)
own = {
    ("load", "timeout"): "threads", ("gate", "limit"): None,
    ("import", "name"): "top", ("mem", "name"): "top",
    ("trace", "name"): "top", ("load", "name"): "requests",
}
rows = [l.split() for l in open(sys.argv[1])]
assert len(rows) > 200, len(rows)
shorts = collections.defaultdict(set)
for c, s, l in rows:
    if s != "-":
        shorts[l].add(s)
bad = [f"--{l}: -{' -'.join(sorted(v))}" for l, v in shorts.items() if len(v) > 1]
for c, s, l in rows:
    if s == "-" and shorts.get(l) and (c, l) not in own:
        bad.append(f"{c} --{l} lacks -{min(shorts[l])}, which " +
                   ", ".join(sorted({x for x, y, z in rows if z == l and y != "-"})) + " give it")
for (c, l), other in own.items():
    assert [c, "-", l] in rows, (c, l, "no longer without a short form: drop it from the list")
    assert other is None or [c, min(shorts[l]), other] in rows, (c, l, other)
assert not bad, "\n".join(bad)
PY
}
t "one long option, one short form, in every command's --help" short_forms
t "... -d, --duration in record and trace as in load" sh -c '
	"$YS" record --help | grep -q "^  -d, --duration T" && "$YS" trace --help | grep -q "^  -d, --duration T" &&
	"$YS" record -d 0 --pid 1 2>"$T/e"; [ $? -eq 2 ] && grep -q "^yardstick record: --duration: .0. is not a duration" "$T/e"'
# one metavar per kind of value: every duration option is 'T' (record
# --duration was 'TIME'), every size 'BYTES'
metavars() {
	"$YS" doc numbers >"$T/numbers" || return 1
	while read -r c o kind rest; do
		case $kind in duration) mv=T ;; size) mv=BYTES ;; *) continue ;; esac
		"$YS" "$c" --help | grep -qE -- "$o $mv( |\$)" ||
			{ echo "$c $o: not '$o $mv'"; return 1; }
	done <"$T/numbers"
}
t "every duration option's value is T, every size's BYTES" metavars
# `run python3 app.py`: two commands, the second no program; it said only
# "program 'app.py' not found in PATH"
t "run echo no-such-word: exit 2 before any run" expect_exit 2 "$YS" run --no-store --runs 1 echo no-such-word
t "... one command whose quotes were forgotten, said" has "$T/stderr" \
	"yardstick run: program 'no-such-word' not found in PATH; each argument of run is a whole command: to run 'echo no-such-word', quote it or put it after '--'"
t "... not for a single command" sh -c '
	"$YS" run --no-store --runs 1 no-such-word 2>"$T/e"; [ $? -eq 2 ] &&
	grep -qx "yardstick run: program '"'"'no-such-word'"'"' not found in PATH" "$T/e"'
finish
