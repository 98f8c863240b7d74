#!/bin/sh
# libyardstick installed (meson install, what `make install` runs): the
# header, the shared and static libraries, libyardstick_main and the
# pkg-config files; a user's program built against the installed tree
# with pkg-config and with a meson project's dependency('yardstick').
. "$(dirname "$0")/lib.sh"
BUILD_ROOT=${BUILD_ROOT:?}
san=${YSB_SAN:-none}
sanflags=
[ "$san" = none ] || sanflags="-fsanitize=$san"

cat >"$T/user.c" <<'C'
#include <stdlib.h>
#include <yardstick.h>

static void bm_three(ys_state *s)
{
	YS_LOOP(s) {
		void *a = malloc(64), *b = malloc(64), *c = malloc(64);

		ys_keep(a);
		ys_keep(b);
		ys_keep(c);
		free(a);
		free(b);
		free(c);
	}
}
YS_BENCHMARK_WITH("three", bm_three, "n=1,2")
#ifdef OWN_MAIN
int main(int argc, char **argv)
{
	return ys_main(argc, argv);
}
#endif
C

installed() {
	meson install -C "$BUILD_ROOT" --no-rebuild --destdir "$T/dest" \
		>"$T/install.log" 2>&1 || { cat "$T/install.log"; return 1; }
	pc=$(find "$T/dest" -name yardstick.pc)
	[ -n "$pc" ] || { echo "no yardstick.pc installed"; return 1; }
	libdir=$(dirname "$(dirname "$pc")")
	inc=$(find "$T/dest" -path '*/include/yardstick.h')
	[ -n "$inc" ] &&
	[ -f "$libdir/libyardstick.a" ] && [ -f "$libdir/libyardstick_main.a" ] &&
	[ -e "$libdir/libyardstick.so" ] && [ -f "$libdir/libyardstick_alloc.a" ] &&
	[ -f "$(dirname "$pc")/yardstick_main.pc" ] &&
	[ -f "$(dirname "$pc")/yardstick_alloc.pc" ] &&
	echo "$libdir" >"$T/libdir"
}
t "meson install: yardstick.h, libyardstick.so and .a, libyardstick_main.a, libyardstick_alloc.a, yardstick.pc, yardstick_alloc.pc" installed
libdir=$(cat "$T/libdir" 2>/dev/null)
PKG_CONFIG_PATH=$libdir/pkgconfig
PKG_CONFIG_SYSROOT_DIR=$T/dest
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

# check_run EXE counted|uncounted: it runs, and counts its three
# allocations when linked with libyardstick_alloc; without it they are
# unsupported (not 0) and the setting says how to count them
check_run() {
	LD_LIBRARY_PATH=$libdir "$1" --epochs 3 --json "$T/u.json" \
		>"$T/u.out" 2>&1 || { cat "$T/u.out"; return 1; }
	py "d = load('$T/u.json')
assert [b['name'] for b in d['benchmarks']] == ['three [n=1]', 'three [n=2]']
if '$2' == 'uncounted':
    assert d['settings']['allocations'] == 'not counted (link -lyardstick_alloc)', d['settings']
for b in d['benchmarks']:
    if '$2' == 'uncounted':
        assert 'allocs_per_op' in b['unsupported'] and 'allocs_per_op' not in b['metrics'], b
    else:
        assert b['metrics']['allocs_per_op']['values'] == [3, 3, 3], b
        assert b['metrics']['alloc_bytes_per_op']['values'] == [192] * 3"
}

with_pkgconfig() {
	flags=$(pkg-config --cflags --libs yardstick) || return 1
	case $flags in *"$T/dest"*) ;; *) echo "flags '$flags'"; return 1 ;; esac
	# shellcheck disable=SC2086
	cc -O2 $sanflags -o "$T/user_pc" "$T/user.c" -lyardstick_main $flags &&
	check_run "$T/user_pc" uncounted &&
	LD_LIBRARY_PATH=$libdir ldd "$T/user_pc" | grep -q "$libdir/libyardstick.so" &&
	# counted: the counting library too, put first (-u pulls it in anyway)
	aflags=$(pkg-config --libs yardstick_alloc yardstick) &&
	# shellcheck disable=SC2086
	cc -O2 $sanflags -o "$T/user_pc_alloc" "$T/user.c" $aflags -lyardstick_main $flags &&
	check_run "$T/user_pc_alloc" counted &&
	# static: the archive with what pkg-config --static adds
	static=$(pkg-config --static --libs yardstick | sed 's/-lyardstick\b/-l:libyardstick.a/') &&
	# shellcheck disable=SC2086
	cc -O2 $sanflags -DOWN_MAIN -o "$T/user_static" "$T/user.c" $(pkg-config --cflags yardstick) $static &&
	! LD_LIBRARY_PATH=$libdir ldd "$T/user_static" | grep -q libyardstick &&
	check_run "$T/user_static" uncounted &&
	static=$(pkg-config --static --libs yardstick_alloc | sed 's/-lyardstick\b/-l:libyardstick.a/') &&
	# shellcheck disable=SC2086
	cc -O2 $sanflags -DOWN_MAIN -o "$T/user_static_alloc" "$T/user.c" $(pkg-config --cflags yardstick) $static &&
	! LD_LIBRARY_PATH=$libdir ldd "$T/user_static_alloc" | grep -q libyardstick &&
	check_run "$T/user_static_alloc" counted
}
t "a program built with pkg-config --cflags --libs yardstick (shared, and static with --static), with and without yardstick_alloc" with_pkgconfig

with_meson() {
	mkdir -p "$T/proj" && cp "$T/user.c" "$T/proj/" &&
	cat >"$T/proj/meson.build" <<'M' &&
project('user', 'c')
executable('user_main', 'user.c', dependencies : dependency('yardstick_main'))
executable('user_own', 'user.c',
           dependencies : [dependency('yardstick'), dependency('yardstick_alloc')],
           c_args : ['-DOWN_MAIN'])
M
	opts=
	[ "$san" = none ] || opts="-Db_sanitize=$san -Db_lundef=false"
	# shellcheck disable=SC2086
	meson setup $opts "$T/proj/build" "$T/proj" >"$T/m.log" 2>&1 &&
	ninja -C "$T/proj/build" >>"$T/m.log" 2>&1 ||
		{ cat "$T/m.log"; return 1; }
	check_run "$T/proj/build/user_main" uncounted &&
	check_run "$T/proj/build/user_own" counted
}
t "a meson project: dependency('yardstick_main'), and dependency('yardstick') with dependency('yardstick_alloc')" with_meson

finish
