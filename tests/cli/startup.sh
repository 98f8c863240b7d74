# yardstick's start-up loads only what every command needs: libdw, libelf,
# the C++ runtime and the decompressors they bring (liblzma, libbz2) are
# loaded by record and mem when they symbolize (src/profile/dwlib.c), and
# those still name C and C++ (demangled) functions.
. "$(dirname "$0")/lib.sh"
FX=$(dirname "$YSFIX")
export FX
LAZY="libdw.so libelf.so libstdc++.so liblzma.so libbz2.so"
export LAZY

# loaded NAME COMMAND...: run COMMAND with the dynamic loader's log of
# yardstick's process (and its children) in $T/ld.*, then list the
# libraries of $LAZY it loaded into $T/loaded.
loaded() {
	rm -f "$T"/ld.*
	LD_DEBUG=libs LD_DEBUG_OUTPUT="$T/ld" "$@" >"$T/stdout" 2>"$T/stderr" ||
		{ echo "failed: $*"; cat "$T/stderr"; return 1; }
	: >"$T/loaded"
	for lib in $LAZY; do
		grep -h "calling init: .*/$lib" "$T"/ld.* >>"$T/loaded" || true
	done
	# the log is there: libc's init is in it
	grep -q "calling init: .*/libc.so" "$T"/ld.* ||
		{ echo "no loader log"; ls "$T"; return 1; }
}
# none_loaded COMMAND...: COMMAND loads none of $LAZY.
none_loaded() {
	loaded "$@" || return 1
	[ ! -s "$T/loaded" ] || { echo "loaded at start-up:"; cat "$T/loaded"; return 1; }
}

"$YS" run -q --runs 10 --json "$T/a.json" -- true >/dev/null 2>&1
"$YS" run -q --runs 10 --json "$T/b.json" -- true >/dev/null 2>&1

t "--version loads none of libdw, libelf, libstdc++, liblzma, libbz2" \
	none_loaded "$YS" --version
t "run loads none of them" \
	none_loaded "$YS" run -q --runs 2 --no-store -- true
t "compare loads none of them" \
	none_loaded "$YS" compare "$T/a.json" "$T/b.json"
t "gate loads none of them" \
	none_loaded "$YS" gate --max-increase wall_time=1000% --baseline "$T/a.json" "$T/b.json"
t "history loads none of them" \
	none_loaded "$YS" history
t "help loads none of them" \
	none_loaded "$YS" help record

# record and mem load libdw when they symbolize, and name the functions
record_c() {
	loaded "$YS" record -q -o "$T/hot.folded" -- "$FX/hot" 300 &&
	grep -q "/libdw.so" "$T/loaded" &&
	grep -q ";hot_a;" "$T/hot.folded" || { cat "$T/hot.folded"; return 1; }
}
t "record loads libdw and names C functions" record_c
mem_cpp() {
	loaded "$YS" mem -q --no-store --cost allocations \
		-o "$T/cpp.folded" -- "$HEAPFIX_CPP" &&
	grep -q "/libdw.so" "$T/loaded" &&
	grep -q ";grow_vector(std::vector<int, std::allocator<int> >\*);" \
		"$T/cpp.folded" &&
	! grep -q "_Z" "$T/cpp.folded" || { cat "$T/cpp.folded"; return 1; }
}
t "mem loads libdw and names C++ functions demangled" mem_cpp

# Without libdw (a file that is no library bound over it in a mount
# namespace), record and mem refuse before running the program: exit 3
# naming the library and its package.
nodw() {
	dw=$(ldconfig -p | sed -n 's/.*libdw.so.1 (libc6,x86-64) => //p' |
		head -1)
	[ -n "$dw" ] || { echo "libdw.so.1 not in the loader's cache"; return 1; }
	unshare -m sh -c "mount --bind /dev/null '$dw' &&
		\"\$YS\" record -q -o '$T/x.folded' -- '$YSFIX' count '$T/ran1'
		echo \$? >'$T/rc1'
		\"\$YS\" mem -q --no-store -o '$T/y.folded' -- '$HEAPFIX' create '$T/ran2'
		echo \$? >'$T/rc2'" 2>"$T/stderr"
	[ "$(cat "$T/rc1")" = 3 ] && [ "$(cat "$T/rc2")" = 3 ] &&
	[ ! -e "$T/ran1" ] && [ ! -e "$T/ran2" ] &&
	[ "$(grep -c "cannot load 'libdw.so.1' (elfutils, .*apt-get install libdw1)$" "$T/stderr")" = 2 ] &&
	has "$T/stderr" "yardstick record: " && has "$T/stderr" "yardstick mem: "
}
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	t "record and mem without libdw: exit 3 naming it, nothing run" nodw
else
	skip "record and mem without libdw: exit 3" "needs root and a mount namespace"
fi

finish
