# yardstick's start-up loads only what every command needs: libdw, libelf,
# the C++ runtime and the decompressors they bring (liblzma, libbz2, zlib)
# are loaded by record and mem when they symbolize (src/profile/dwlib.c),
# and those still name C and C++ (demangled) functions; SQLite is loaded
# when the store is opened (src/store/store.c), libpq when a PostgreSQL
# store is (src/store/store_pg.c), zlib also by a pprof output.
. "$(dirname "$0")/lib.sh"
FX=$(dirname "$YSFIX")
export FX
LAZY="libdw.so libelf.so libstdc++.so liblzma.so libbz2.so libz.so"

# loaded "LIB..." COMMAND...: run COMMAND with the dynamic loader's log of
# yardstick's process (and its children) in $T/ld.*, and list which of
# the libraries LIB... it loaded, and why, in $T/loaded. What the
# sanitizers' runtimes need themselves (libstdc++ for libubsan, in
# build-san) is left out: they are not yardstick's.
loaded() {
	libs=$1
	shift
	rm -f "$T"/ld.*
	LD_DEBUG=files LD_DEBUG_OUTPUT="$T/ld" "$@" >"$T/stdout" 2>"$T/stderr" ||
		{ echo "failed: $*"; cat "$T/stderr"; return 1; }
	: >"$T/loaded"
	for lib in $libs; do
		grep -hE "file=$lib.*(needed|dynamically loaded) by" "$T"/ld.* |
			grep -vE "needed by [^ ]*/lib(a|ub)san[.]so" \
			>>"$T/loaded" || true
	done
	# the log is there: libc is in it
	grep -q "file=libc.so.6 .*needed by" "$T"/ld.* ||
		{ echo "no loader log"; ls "$T"; return 1; }
}
# none_loaded "LIB..." COMMAND...: COMMAND loads none of LIB...
none_loaded() {
	loaded "$@" || return 1
	[ ! -s "$T/loaded" ] || { echo "loaded:"; cat "$T/loaded"; return 1; }
}

"$YS" run -q --runs 10 --json "$T/a.json" -- true >/dev/null 2>&1
"$YS" run -q --runs 10 --json "$T/b.json" -- true >/dev/null 2>&1

t "--version loads none of libdw, libelf, libstdc++, liblzma, libbz2, libz" \
	none_loaded "$LAZY" "$YS" --version
t "run loads none of them" \
	none_loaded "$LAZY" "$YS" run -q --runs 2 --no-store -- true
t "compare loads none of them" \
	none_loaded "$LAZY" "$YS" compare "$T/a.json" "$T/b.json"
t "gate loads none of them" \
	none_loaded "$LAZY" "$YS" gate --max-increase wall_time=1000% --baseline "$T/a.json" "$T/b.json"
t "history loads none of them" \
	none_loaded "$LAZY" "$YS" history
t "help loads none of them" \
	none_loaded "$LAZY" "$YS" help record

# jansson and inih are linked into yardstick (meson.build: a shared
# library more is 0.05 ms of every start): the loader maps neither, and
# the binary asks for no library but libc and libm
t "run maps no libjansson, no libinih: both are linked in" \
	none_loaded "libjansson.so libinih.so" "$YS" run -q --runs 2 -- true
t "... and yardstick needs only libc and libm (and sanitizer runtimes)" sh -c '
	n=$(readelf -d "$YS" | sed -n "s/.*(NEEDED).*\[\(.*\)\]/\1/p" | grep -vE "^lib(a|ub)san|^libstdc|^libgcc_s|^libdl|^libpthread|^librt" | sort | tr "\n" " ")
	[ "$n" = "libc.so.6 libm.so.6 " ] || { echo "NEEDED: $n"; exit 1; }'

# SQLite only where the store is opened
no_sqlite() {
	none_loaded libsqlite3.so "$YS" --version &&
	none_loaded libsqlite3.so "$YS" run -q --runs 2 --no-store -- true &&
	none_loaded libsqlite3.so "$YS" compare "$T/a.json" "$T/b.json" &&
	none_loaded libsqlite3.so "$YS" gate --max-increase wall_time=1000% \
		--baseline "$T/a.json" "$T/b.json"
}
t "--version, run --no-store, compare and gate of files load no SQLite" \
	no_sqlite
history_sqlite() {
	loaded libsqlite3.so "$YS" history &&
	grep -q "file=libsqlite3.so.0 .*dynamically loaded by" "$T/loaded" && has "$T/stdout" "true"
}
t "history loads SQLite and lists the stored results" history_sqlite
# libpq only where a PostgreSQL store is opened
pq_only_for_pg() {
	none_loaded libpq.so "$YS" run -q --runs 2 -- true &&
	none_loaded libpq.so "$YS" history &&
	expect_exit 3 "$YS" history --store "postgresql://u@/x?host=$T/none" &&
	LD_DEBUG=files LD_DEBUG_OUTPUT="$T/ldpq" "$YS" history --store "postgresql://u@/x?host=$T/none" 2>/dev/null
	grep -q "file=libpq.so.5 .*dynamically loaded by" "$T"/ldpq.*
}
t "run and history of a file load no libpq; a postgresql:// store loads it" pq_only_for_pg

# record and mem load libdw when they symbolize, and name the functions
record_c() {
	loaded "$LAZY" "$YS" record -q -o "$T/hot.folded" -- "$FX/hot" 300 &&
	grep -q "file=libdw.so.1 .*dynamically loaded by" "$T/loaded" &&
	grep -q ";hot_a;" "$T/hot.folded" || { cat "$T/hot.folded"; return 1; }
}
t "record loads libdw and names C functions" record_c
mem_cpp() {
	loaded "$LAZY" "$YS" mem -q --no-store --cost allocations \
		-o "$T/cpp.folded" -- "$HEAPFIX_CPP" &&
	grep -q "file=libdw.so.1 .*dynamically loaded by" "$T/loaded" &&
	grep -q ";grow_vector(std::vector<int, std::allocator<int> >\*);" \
		"$T/cpp.folded" &&
	! grep -q "_Z" "$T/cpp.folded" || { cat "$T/cpp.folded"; return 1; }
}
t "mem loads libdw and names C++ functions demangled" mem_cpp

# Without a library (/dev/null bound over it in a mount namespace), the
# commands that need it refuse: exit 3 naming it and its package.
# without SONAME SCRIPT: run SCRIPT (sh) without SONAME, stderr in $T/stderr.
without() {
	f=$(ldconfig -p | sed -n "s/.*$1 (libc6,x86-64) => //p" | head -1)
	[ -n "$f" ] || { echo "$1 not in the loader's cache"; return 1; }
	unshare -m sh -c "mount --bind /dev/null '$f' && $2" 2>"$T/stderr"
}
# record and mem before running the program
nodw() {
	without libdw.so.1 "
		\"\$YS\" record -q -o '$T/x.folded' -- '$YSFIX' count '$T/ran1'
		echo \$? >'$T/rc1'
		\"\$YS\" mem -q --no-store -o '$T/y.folded' -- '$HEAPFIX' create '$T/ran2'
		echo \$? >'$T/rc2'"
	[ "$(cat "$T/rc1")" = 3 ] && [ "$(cat "$T/rc2")" = 3 ] &&
	[ ! -e "$T/ran1" ] && [ ! -e "$T/ran2" ] &&
	[ "$(grep -c "cannot load 'libdw.so.1' (elfutils, .*apt-get install libdw1)$" "$T/stderr")" = 2 ] &&
	has "$T/stderr" "yardstick record: " && has "$T/stderr" "yardstick mem: "
}
# run keeps its outputs and fails to store into a store without its log
# (made by its first save, through SQLite); history fails; run --no-store
# works. A store with its log (the default one here) takes the save into
# the log without SQLite, and shows it once SQLite is back.
nosqlite() {
	without libsqlite3.so.0 "
		\"\$YS\" run -q --runs 2 --store '$T/nolog.db' --json '$T/s.json' -- true
		echo \$? >'$T/rc1'
		\"\$YS\" history
		echo \$? >'$T/rc2'
		\"\$YS\" run -q --runs 2 --no-store -- true
		echo \$? >'$T/rc3'
		\"\$YS\" run -q --runs 2 -n logged-without-sqlite -- true
		echo \$? >'$T/rc4'"
	[ "$(cat "$T/rc1")" = 3 ] && [ "$(cat "$T/rc2")" = 3 ] &&
	[ "$(cat "$T/rc3")" = 0 ] && [ "$(cat "$T/rc4")" = 0 ] && [ -s "$T/s.json" ] &&
	[ "$(grep -c "cannot load 'libsqlite3.so.0' (SQLite, .*apt-get install libsqlite3-0)$" "$T/stderr")" = 2 ] &&
	"$YS" history | grep -q logged-without-sqlite
}
# a PostgreSQL store without libpq: exit 3 naming it, before any run (a
# remote store is checked first: nothing is measured to be lost)
nopq() {
	without libpq.so.5 "
		\"\$YS\" run -q --runs 2 --store 'postgresql://u@/x?host=$T' --json '$T/pq.json' -- true
		echo \$? >'$T/rc1'"
	[ "$(cat "$T/rc1")" = 3 ] && [ ! -e "$T/pq.json" ] &&
	grep -q "cannot load 'libpq.so.5' (libpq, .*apt-get install libpq5)" "$T/stderr"
}
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	t "record and mem without libdw: exit 3 naming it, nothing run" nodw
	t "run and history without SQLite: exit 3 naming it" nosqlite
	t "run into a PostgreSQL store without libpq: exit 3 naming it" nopq
else
	skip "record and mem without libdw: exit 3" "needs root and a mount namespace"
	skip "run and history without SQLite: exit 3" "needs root and a mount namespace"
	skip "run into a PostgreSQL store without libpq: exit 3" "needs root and a mount namespace"
fi

finish
