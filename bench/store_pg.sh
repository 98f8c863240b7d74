#!/bin/sh
# What a save costs a whole `yardstick run -q --runs 1 -- /bin/true` into a
# PostgreSQL store (a server of its own on a Unix socket, started by
# tests/cli/pg_server.sh, fsync off), beside the same into a SQLite store
# and with --no-store: yardstick itself times the three, interleaved
# rounds in a fresh random order, and prints median and min.
#   bench/store_pg.sh [build/yardstick] [RUNS]
set -eu
ys=$(realpath "${1:-build/yardstick}")
runs=${2:-40}
here=$(dirname "$(realpath "$0")")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
YS=$ys RUNS=$runs DIR=$dir sh "$here/../tests/cli/pg_server.sh" sh -c '
	. "'"$here"'/../tests/cli/pg_server.sh"
	pg_createdb bench >/dev/null
	url=$(pg_url bench)
	# the stores made and at rest (the SQLite log made by a first save)
	"$YS" run -q --runs 1 --store "$DIR/s.db" -- /bin/true 2>/dev/null
	"$YS" run -q --runs 1 --store "$url" -- /bin/true 2>/dev/null
	"$YS" run --no-store --runs "$RUNS" --warmup 3 -n sqlite -n postgresql -n no-store \
		"$YS run -q --runs 1 --store $DIR/s.db -- /bin/true" \
		"$YS run -q --runs 1 --store $url -- /bin/true" \
		"$YS run -q --runs 1 --no-store -- /bin/true" 2>/dev/null
	echo "results in the PostgreSQL store: $(pg_sql bench "SELECT count(*) FROM results")"'
