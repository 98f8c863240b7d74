# A throw-away PostgreSQL 15 server for the store's tests, sourced by a
# test script (tests/cli/lib.sh with YS_STORE_BACKEND=postgresql, or
# tests/cli/store_pg.sh) or run alone around a command:
#
#   sh tests/cli/pg_server.sh COMMAND...   (PGSOCK, PGURL_BASE exported)
#
# pg_start makes a temporary directory, initdb's a cluster in it (as the
# `postgres` user when run as root: initdb refuses root), starts it on a
# Unix socket in that directory only (no TCP), and sets:
#   PGDIR       the directory (cluster in $PGDIR/data, socket in $PGDIR)
#   PGSOCK      the socket's directory ($PGDIR)
#   PGURL_BASE  postgresql://postgres@ : append /DB?host=$PGSOCK
# pg_stop stops it (immediate) and removes the directory; pg_start puts it
# in an EXIT trap (with what the trap ran before), so that a test that
# fails or is interrupted leaves no server behind.
# pg_createdb NAME makes a database; pg_url NAME prints its URL; pg_sql
# NAME SQL runs SQL in it (psql, as the superuser, no password).
PGBIN=/usr/lib/postgresql/15/bin

pg_as() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

pg_stop() {
	[ -n "${PGDIR:-}" ] || return 0
	if [ -f "$PGDIR/data/postmaster.pid" ]; then
		pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate -w stop \
			>/dev/null 2>&1
	fi
	rm -rf "$PGDIR"
	PGDIR=
}

pg_start() {
	[ -x "$PGBIN/initdb" ] || { echo "no $PGBIN/initdb: scripts/deps.sh test installs postgresql-15" >&2; return 1; }
	PGDIR=$(mktemp -d /tmp/ys-pg-XXXXXX) || return 1
	chmod 755 "$PGDIR"
	[ "$(id -u)" -eq 0 ] && chown postgres "$PGDIR"
	_pg_prev_trap=$(trap -p EXIT 2>/dev/null | sed "s/^trap -- '\(.*\)' EXIT$/\1/")
	# shellcheck disable=SC2064
	trap "pg_stop; ${_pg_prev_trap:-:}" EXIT
	trap 'exit 130' INT TERM
	pg_as "$PGBIN/initdb" -D "$PGDIR/data" -U postgres -A trust \
		--locale=C.UTF-8 -E UTF8 >"$PGDIR/initdb.log" 2>&1 ||
		{ cat "$PGDIR/initdb.log" >&2; return 1; }
	pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w \
		-o "-k $PGDIR -c listen_addresses= -c fsync=off -c max_connections=120" \
		start >/dev/null 2>&1 || { cat "$PGDIR/server.log" >&2; return 1; }
	PGSOCK=$PGDIR
	PGURL_BASE=postgresql://postgres@
	export PGDIR PGSOCK PGURL_BASE
}

pg_sql() {
	_db=$1
	shift
	"$PGBIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$PGSOCK" -U postgres \
		-d "$_db" -c "$*"
}

pg_createdb() {
	pg_sql postgres "CREATE DATABASE \"$1\""
}

pg_url() {
	printf '%s/%s?host=%s\n' "$PGURL_BASE" "$1" "$PGSOCK"
}

# run alone: a server around one command
if [ "${0##*/}" = pg_server.sh ] && [ $# -gt 0 ]; then
	set -u
	pg_start || exit 1
	"$@"
	rc=$?
	pg_stop
	exit $rc
fi
