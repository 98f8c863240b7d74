# python3_first DIR: when python3 on PATH is not the interpreter itself
# (a pyenv shim: bash running pyenv and its plugins on every call, 1.3 s
# a call against 0.16 s on the 2-core PVM guest, where a suite calls it
# about 2,000 times), DIR/python3 made a link to the interpreter it
# stands for and DIR put first on PATH (exported). Sourced by
# tests/cli/lib.sh and scripts/test.sh. The checks of the shims name
# them by path.
python3_first() {
	py3_real=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || py3_real=
	[ -n "$py3_real" ] && [ -x "$py3_real" ] &&
		[ "$py3_real" != "$(command -v python3)" ] || return 0
	mkdir -p "$1" && ln -sf "$py3_real" "$1/python3" &&
		PATH=$(cd "$1" && pwd):$PATH && export PATH
}
