# The help of every command and the shell completions, both generated
# from the commands' option tables (src/cmd/options.c): the same text for
# `CMD --help`, `CMD -h` and `help CMD`; every option documented is
# accepted and every option accepted is documented; the completion
# scripts work in bash, are valid zsh and fish, and are installed.
. "$(dirname "$0")/lib.sh"
: "${BUILD_ROOT:?}" "${PREFIX:?}" "${DATADIR:?}" "${COMPLETIONS:?}"
cd "$T" || exit 1

"$YS" completion bash >"$T/yardstick.bash" 2>"$T/c.err"
"$YS" completion zsh >"$T/_yardstick" 2>>"$T/c.err"
"$YS" completion fish >"$T/yardstick.fish" 2>>"$T/c.err"
t "yardstick completion bash|zsh|fish: exit 0, no message" sh -c '
	[ -s "$T/yardstick.bash" ] && [ -s "$T/_yardstick" ] &&
	[ -s "$T/yardstick.fish" ] && [ ! -s "$T/c.err" ]'
t "yardstick completion csh: exit 2 naming it" sh -c '
	"$YS" completion csh 2>"$T/csh.err"; [ $? -eq 2 ] && grep -q "csh" "$T/csh.err"'

# The commands, from `yardstick help`.
cmds=$("$YS" help | sed -n 's/^  \([a-z]*\) .*/\1/p' | grep -vx 'help\|completion')
t "help lists the commands" [ "$(echo $cmds)" = "run compare gate history record load mem bench report trace roofline store export merge import" ]

# The options each command accepted before the tables (its getopt_long
# arrays): none may be lost.
old_run="warmup runs min-runs max-runs min-time timeout prepare cleanup input show-output ignore-failure pin order shell name param events no-counters reference compare-metric resamples seed json csv markdown quiet details bmf store no-store help"
old_compare="metric alpha noise resamples seed store json markdown quiet help"
old_gate="baseline max-increase max-decrease limit config alpha store markdown junit bmf inconclusive missing quiet help"
old_history="metric limit branch machine detect alpha store json help"
old_record="freq event call-graph stack-size lines top output format title diff quiet help"
old_load="connections threads duration requests rate warmup timeout method header body body-file requests-file insecure name histogram json sample seed store no-store quiet help"
old_mem="sample unwind depth top output format cost lines title timeline json name store no-store quiet help"
short_run="w r m M t p c i S n P e q h"
short_compare="m q h"
short_gate="b q h"
short_history="m n h"
short_record="F e g n o q h"
short_load="c t d n R w m H b k q h"
short_mem="n o q h"
old_bench="filter min-time epochs timeout max-result show-output baseline json csv markdown bmf store no-store quiet help"
short_bench="t b q h"
old_report="output charts baseline alpha noise max-increase max-decrease gate-limit history metric branch machine since limit profile open store help"
short_report="o m n h"
# trace came with its table: nothing from before
old_trace=""
short_trace="o F n q h"
# roofline came with its table too
old_roofline=""
short_roofline="o q h"
old_store=""
short_store="q h"

# same_help CMD: --help, -h and help CMD print one text, on stdout, exit 0
same_help() {
	"$YS" help "$1" >"$T/h1" && "$YS" "$1" --help >"$T/h2" &&
	"$YS" "$1" -h >"$T/h3" && cmp "$T/h1" "$T/h2" && cmp "$T/h1" "$T/h3" &&
	head -1 "$T/h1" | grep -q "^usage: yardstick $1 "
}

# documented CMD: the long options of --help and of the fish completion
# are the same set, holding every option the command accepted before
documented() {
	"$YS" "$1" --help | sed -n 's/^  \(-[^-], \|    \)--\([a-z0-9-]*\).*/\2/p' |
		sort >"$T/help.$1"
	grep "__fish_seen_subcommand_from $1'" "$T/yardstick.fish" |
		sed -n 's/.* -l \([a-z0-9-]*\).*/\1/p' | sort >"$T/fish.$1"
	[ -s "$T/help.$1" ] && cmp "$T/help.$1" "$T/fish.$1" || return 1
	eval "old=\${old_$1:-} short=\${short_$1:-}"
	for o in $old; do
		grep -qx -- "$o" "$T/help.$1" || { echo "--$o lost"; return 1; }
	done
	for s in $short; do
		"$YS" "$1" --help | grep -q -- "^  -$s, --" ||
			{ echo "-$s lost"; return 1; }
	done
}

# accepted CMD: each documented option is known to the parser (its
# value may be refused, it may not be unknown), and one that is not
# documented is unknown
accepted() {
	while read -r o; do
		"$YS" "$1" "--$o=x" </dev/null >/dev/null 2>"$T/acc.err"
		if grep -q "unknown option\|ambiguous option" "$T/acc.err"; then
			echo "--$o documented but refused:"; cat "$T/acc.err"
			return 1
		fi
	done <"$T/help.$1"
	"$YS" "$1" --no-such-option-xyz 2>"$T/acc.err"
	[ $? -eq 2 ] && grep -q "yardstick $1: unknown option '--no-such-option-xyz'" "$T/acc.err"
}

for c in $cmds; do
	t "$c: --help, -h and help $c print the same text" same_help "$c"
	t "$c: --help and the completions list the same options, none lost" documented "$c"
	t "$c: every documented option is accepted, an undocumented one refused" accepted "$c"
done

# ---- bash ------------------------------------------------------------------

# comp WORDS...: COMPREPLY of _yardstick for the command line WORDS (the
# last is the word being completed), one a line, in $T/reply
comp() {
	bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_yardstick && printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$COMPLETIONS/yardstick" "$@" >"$T/reply" 2>&1
}
run_ru() {
	comp yardstick run --ru && grep -qx -- --runs "$T/reply"
}
t "bash: 'yardstick run --ru' completes to --runs" run_ru
order() {
	comp yardstick run --order "" && sort "$T/reply" | tr '\n' ' ' |
		grep -qx "interleaved sequential "
}
t "bash: 'yardstick run --order ' offers interleaved and sequential" order
format_eq() {
	comp yardstick mem --format = s &&
		[ "$(sort "$T/reply" | tr '\n' ' ')" = "speedscope svg " ]
}
t "bash: 'yardstick mem --format=s' offers speedscope and svg" format_eq
inconclusive() {
	comp yardstick gate --baseline a.json --inconclusive p &&
		[ "$(cat "$T/reply")" = pass ]
}
t "bash: 'gate --inconclusive p' offers pass" inconclusive
files() {
	: >"$T/out-result.json" &&
	comp yardstick run --json "$T/out-" && grep -qx "$T/out-result.json" "$T/reply" &&
	comp yardstick record -o "$T/out-" && grep -qx "$T/out-result.json" "$T/reply"
}
t "bash: an output file option completes files" files
commands() {
	comp yardstick compa && [ "$(cat "$T/reply")" = compare ] &&
	comp yardstick co && [ "$(sort "$T/reply" | tr '\n' ' ')" = "compare completion " ] &&
	comp yardstick help ga && [ "$(cat "$T/reply")" = gate ]
}
t "bash: command names, and after help" commands
subcommands() {
	comp yardstick store "" && [ "$(sort "$T/reply" | tr '\n' ' ')" = "copy flush " ] &&
	comp yardstick store c && [ "$(cat "$T/reply")" = copy ] &&
	comp yardstick store f && [ "$(cat "$T/reply")" = flush ] &&
	comp yardstick store --q && grep -qx -- --quiet "$T/reply" &&
	: >"$T/from.db" && comp yardstick store copy "$T/fro" &&
	grep -qx "$T/from.db" "$T/reply" &&
	comp yardstick completion "" &&
	[ "$(sort "$T/reply" | tr '\n' ' ')" = "bash fish zsh " ]
}
t "bash: 'store ' offers copy and flush, then files; 'completion ' the shells" subcommands
shorts() {
	comp yardstick load -m "" && ! grep -q . "$T/reply" &&
	comp yardstick compare --m && grep -qx -- --metric "$T/reply" &&
	grep -qx -- --markdown "$T/reply"
}
t "bash: a free value offers nothing, a prefix every option it starts" shorts

# ---- zsh, fish -------------------------------------------------------------

t "zsh -n accepts the zsh completion" zsh -n "$COMPLETIONS/_yardstick"
t "... which starts with #compdef yardstick" sh -c 'head -1 "$COMPLETIONS/_yardstick" | grep -qx "#compdef yardstick"'
t "fish -n accepts the fish completion" fish -n "$COMPLETIONS/yardstick.fish"
zsh_enum() {
	grep -q -- "--order='\[.*\]:[^:]*:(interleaved sequential)'" "$COMPLETIONS/_yardstick" &&
	grep -q -- "--json='\[.*\]:FILE:_files'" "$COMPLETIONS/_yardstick"
}
t "zsh: --order offers its values, --json files" zsh_enum
fish_enum() {
	grep -q -- "-l order -x -a 'interleaved sequential'" "$COMPLETIONS/yardstick.fish" &&
	grep -q -- "-l json -r -F" "$COMPLETIONS/yardstick.fish"
}
t "fish: --order offers its values, --json files" fish_enum
t "zsh and fish: store's first word is copy or flush" sh -c '
	grep -q "1:subcommand:(copy flush)" "$COMPLETIONS/_yardstick" &&
	grep -q "__fish_seen_subcommand_from store'"'"' -f -a '"'"'copy flush'"'"'" "$COMPLETIONS/yardstick.fish"'
t "the built scripts are the binary's" sh -c '
	cmp "$COMPLETIONS/yardstick" "$T/yardstick.bash" &&
	cmp "$COMPLETIONS/_yardstick" "$T/_yardstick" &&
	cmp "$COMPLETIONS/yardstick.fish" "$T/yardstick.fish"'

# ---- install ---------------------------------------------------------------

installed() {
	meson install -C "$BUILD_ROOT" --no-rebuild --destdir "$T/dest" \
		>"$T/install.log" 2>&1 || { cat "$T/install.log"; return 1; }
	d="$T/dest$PREFIX/$DATADIR"
	cmp "$d/bash-completion/completions/yardstick" "$T/yardstick.bash" &&
	cmp "$d/zsh/site-functions/_yardstick" "$T/_yardstick" &&
	cmp "$d/fish/vendor_completions.d/yardstick.fish" "$T/yardstick.fish"
}
t "meson install --destdir puts the three completions in place" installed
finish
