#!/bin/sh
# Install the Debian packages yardstick needs to build, test and benchmark,
# but only those that are missing (so that a second call costs nothing).
# Usage: scripts/deps.sh [build|test|bench]
set -eu

# build: what configuring and building yardstick, its helpers and the
# bundled examples need (`make`, `make demo`). test: every tool a test
# calls, so that no test skips or fails for a missing package.
need="meson ninja-build pkg-config gcc g++ libc6-dev libjansson-dev libpfm4-dev libsqlite3-dev libinih-dev libdw-dev libelf-dev zlib1g-dev binutils libunwind-dev libssl-dev libpq-dev"
# the libraries yardstick loads with dlopen when a command first needs them
# (docs/ARCHITECTURE.md): nothing links them, so they are named here
need="$need libdw1 libelf1 libsqlite3-0 zlib1g libssl3 libpfm4 libstdc++6 libpq5"
# valgrind: its tool headers and archives build `roofline --count`'s
# tool (ysflops), and its launcher runs it
need="$need valgrind"
# the Python package's C extension (python/), built for Debian's python3
need="$need python3 python3-dev"
case "${1:-build}" in
test)  need="$need linux-perf libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0 python3-scipy python3-torch python3-torchvision libblas3 liblapack3 libcmocka-dev python3 python3-yaml python3.11-dev python3-pytest python3-pytest-benchmark clang libclang-rt-14-dev man-db bsdutils util-linux protobuf-compiler procps nodejs hyperfine git gzip coreutils time libcap2-bin strace mount zsh fish chromium fonts-dejavu-core postgresql-15 prometheus-pushgateway prometheus" ;;
bench) need="$need hyperfine python3 linux-perf heaptrack valgrind wrk nginx-light sqlite3 git util-linux libbenchmark-dev liblttng-ust-dev lttng-tools likwid" ;;
esac

missing=""
for p in $need; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "installing:$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
