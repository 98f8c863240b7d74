# The manual: yardstick(1) and a page per command, and the options
# section of every docs/cmd page, all generated from the option tables,
# so that they list exactly what --help lists; and help that forgives
# typos ("did you mean").
. "$(dirname "$0")/lib.sh"
: "${BUILD_ROOT:?}" "${SOURCE_ROOT:?}" "${PREFIX:?}" "${MANDIR:?}"
cd "$T" || exit 1
MANPATH=$BUILD_ROOT/man
export MANPATH MANWIDTH=200

cmds=$("$YS" help | sed -n 's/^  \([a-z]*\) .*/\1/p' | grep -vx 'help\|completion')
t "help lists the commands, and completion" sh -c '
	[ -n "$1" ] && "$YS" help | grep -q "^  completion "' _ "$cmds"

# the long options of --help, of the rendered man page and of the docs
# page of one command, one a line, sorted
help_opts() {
	"$YS" "$1" --help | sed -n 's/^  \(-[^-], \|    \)--\([a-z0-9-]*\).*/\2/p' | sort
}
man_opts() {
	# the OPTIONS section only: the description may wrap a line at an
	# option it names ("--work, roofline --count ...")
	man "yardstick-$1" 2>/dev/null | sed -n '/^OPTIONS/,/^[A-Z]/p' |
		sed -n 's/^ *\(-[^-], \)\{0,1\}--\([a-z0-9-]*\).*/\2/p' | sort -u
}
doc_opts() {
	sed -n '/^<!-- generated from the option table/,/^<!-- end of the generated options/p' \
		"$SOURCE_ROOT/docs/cmd/$1.md" |
		sed -n 's/^| `\(-[^-], \)\{0,1\}--\([a-z0-9-]*\).*/\2/p' | sort
}
same_opts() {
	help_opts "$1" >"$T/help.$1" && man_opts "$1" >"$T/man.$1" &&
	doc_opts "$1" >"$T/doc.$1" && [ -s "$T/help.$1" ] &&
	{ diff "$T/help.$1" "$T/man.$1" && diff "$T/help.$1" "$T/doc.$1"; }
}
# the generated block of docs/cmd/NAME.md is what the binary writes now
doc_current() {
	"$YS" doc markdown "$1" >"$T/block.$1" &&
	python3 - "$SOURCE_ROOT/docs/cmd/$1.md" "$T/block.$1" <<'PY'
import sys
text, block = open(sys.argv[1]).read(), open(sys.argv[2]).read()
if block not in text:
    sys.exit(f"{sys.argv[1]}: its options section differs from `yardstick doc markdown`: run `make docs`")
PY
}
for c in $cmds; do
	t "$c: man yardstick-$c renders from the build tree (MANPATH)" sh -c '
		man "yardstick-$1" 2>&1 | grep -q "yardstick-$1 - "' _ "$c"
	t "$c: --help, the man page and docs/cmd/$c.md list the same options" same_opts "$c"
	t "$c: docs/cmd/$c.md's options section is the generated one" doc_current "$c"
done
t "man yardstick: the commands, the exit codes, NO_COLOR" sh -c '
	man yardstick >"$T/index" 2>&1 &&
	grep -q "yardstick-run(1)" "$T/index" && grep -q "EXIT STATUS" "$T/index" &&
	grep -q "NO_COLOR" "$T/index" && grep -q "^ *130, 143" "$T/index"'
t "the text of an option is the same in --help and in the page" sh -c '
	man yardstick-run | tr -s " \n" "  " | grep -q "exactly N measured runs of each command (at least 1)" &&
	"$YS" run --help | grep -q "exactly N measured runs of each command (at least 1)"'
t "a roff control character at a line start is guarded" sh -c '
	! "$YS" doc man run | grep -v "^\.\(TH\|SH\|SS\|TP\|B\|BR\|PP\|nf\|fi\) \{0,1\}" | grep -q "^[.'"'"']"'

installed() {
	meson install -C "$BUILD_ROOT" --no-rebuild --destdir "$T/dest" \
		>"$T/install.log" 2>&1 || { cat "$T/install.log"; return 1; }
	for c in $cmds; do
		[ -s "$T/dest$PREFIX/$MANDIR/man1/yardstick-$c.1" ] ||
			{ echo "no yardstick-$c.1"; return 1; }
	done
	MANPATH="$T/dest$PREFIX/$MANDIR" man yardstick-run | grep -q -- "--runs"
}
t "meson install puts every page in MANDIR/man1, and man reads them" installed

# ---- help that forgives ------------------------------------------------------
t "a mistyped command: did you mean (a transposition)" sh -c '
	"$YS" rnu 2>"$T/e"; [ $? -eq 2 ] && grep -q "'"'"'rnu'"'"' is not a command; did you mean '"'"'run'"'"'?" "$T/e"'
t "... a prefix" sh -c '
	"$YS" hist 2>"$T/e"; [ $? -eq 2 ] && grep -q "did you mean '"'"'history'"'"'?" "$T/e"'
t "... after help too" sh -c '
	"$YS" help gaet 2>"$T/e"; [ $? -eq 2 ] && grep -q "did you mean '"'"'gate'"'"'?" "$T/e"'
t "... nothing near: no guess" sh -c '
	"$YS" frobnicate 2>"$T/e"; [ $? -eq 2 ] && ! grep -q "did you mean" "$T/e"'
t "a mistyped option: did you mean" sh -c '
	"$YS" run --rnus 3 true 2>"$T/e"; [ $? -eq 2 ] &&
	grep -q "unknown option '"'"'--rnus'"'"'; did you mean '"'"'--runs'"'"'?" "$T/e"'
t "help completion and completion --help explain it" sh -c '
	"$YS" help completion | grep -q "yardstick completion bash|zsh|fish" &&
	"$YS" completion --help | grep -q "source <(yardstick completion bash)"'
finish
