# The HTTP fixture server of the load tests (tests/fixtures/httpfix.c),
# sourced after lib.sh. HTTPFIX names the program; $T/NAME.pid its pids,
# stopped at exit.
HTTPFIX=${HTTPFIX:?HTTPFIX must name the HTTP fixture server}
trap 'for f in "$T"/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done; rm -rf "$T"' EXIT

# fix NAME ARGS...: start an httpfix called NAME; its port in $T/NAME.port,
# its URL in $U_NAME (exported, for sh -c).
fix() {
	name=$1
	shift
	# Not the port of an earlier one of that name: the redirection below
	# empties the file only once the background job runs.
	rm -f "$T/$name.port"
	"$HTTPFIX" "$@" >"$T/$name.port" 2>"$T/$name.err" &
	echo $! >"$T/$name.pid"
	i=0
	while [ ! -s "$T/$name.port" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	eval "U_$name=http://127.0.0.1:$(cat "$T/$name.port")/"
	export "U_$name"
}
# unfix NAME: stop it (SIGTERM: it writes --stats) and wait for it.
unfix() {
	kill "$(cat "$T/$1.pid")" 2>/dev/null
	i=0
	while kill -0 "$(cat "$T/$1.pid")" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	rm -f "$T/$1.pid"
}
