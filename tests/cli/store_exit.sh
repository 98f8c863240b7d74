# The exit code of a store that cannot be used is the same from every
# command that opens the store (the class the store puts in its error,
# util/error.h, read by error_exit_code): 2 for a damaged store (bad
# input), 3 for one the environment refuses (another user's file; locked,
# for a command that must write it). Each command is run against each
# store, and its message must name the store.
. "$(dirname "$0")/lib.sh"
HTTPFIX=${HTTPFIX:?HTTPFIX must name the HTTP fixture server}
BENCHFIX=${BENCHFIX:?BENCHFIX must name the benchmark fixture}
trap '[ -f "$T/http.pid" ] && kill "$(cat "$T/http.pid")" 2>/dev/null; rm -rf "$T"' EXIT

"$HTTPFIX" >"$T/http.port" 2>"$T/http.err" &
echo $! >"$T/http.pid"
i=0
while [ ! -s "$T/http.port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
URL=http://127.0.0.1:$(cat "$T/http.port")/
export URL BENCHFIX

# The commands that save a result, and those that read the store; each
# line a command's words, the store given by YARDSTICK_STORE.
savers='run -q --runs 2 -- $YSFIX exit 0
bench -q --min-time 0.01 --epochs 2 -- $BENCHFIX
mem -q -- $YSFIX exit 0
load -q -n 5 -c 1 $URL'
readers='compare latest latest
gate --baseline latest --max-increase wall_time=50% latest
history
report latest -o $T/r.html
export latest
roofline latest
roofline --machine
store copy $store $T/copy.db'

# each STORE CODE LIST: every command of LIST exits CODE against STORE and
# names it; prints the ones that do not.
each() {
	store=$1 want=$2 list=$3 bad=0
	echo "$list" | while read -r line; do
		eval "set -- $line"
		YARDSTICK_STORE=$store "$YS" "$@" >/dev/null 2>"$T/err"
		got=$?
		if [ "$got" != "$want" ] || ! grep -qF "$store" "$T/err"; then
			echo "yardstick $line: exit $got, not $want:"
			cat "$T/err"
			echo x >>"$T/bad"
		fi
	done
	[ ! -s "$T/bad" ]
}

# a file that is not a store: damaged input, 2
head -c 65536 /dev/urandom >"$T/bad.db"
t "a damaged store: 2 from every command that saves" each "$T/bad.db" 2 "$savers"
rm -f "$T/bad"
t "a damaged store: 2 from every command that reads" each "$T/bad.db" 2 "$readers"
rm -f "$T/bad"

# a store of another user's: refused, 3 (docs/ARCHITECTURE.md, security)
if [ "$(id -u)" = 0 ]; then
	YARDSTICK_STORE=$T/theirs.db "$YS" run -q --runs 2 -- "$YSFIX" exit 0 2>/dev/null
	chown nobody "$T/theirs.db"
	t "another user's store: 3 from every command that saves" each "$T/theirs.db" 3 "$savers"
	rm -f "$T/bad"
	t "another user's store: 3 from every command that reads" each "$T/theirs.db" 3 "$readers"
	rm -f "$T/bad"
else
	skip "another user's store: 3 from every command" "not root: cannot give a file away"
	skip "another user's store: 3 from every command that reads" "not root"
fi

# a store locked by another connection, without the log a save appends
# to: a save waits (10 s) and is refused, 3; the savers wait together
YARDSTICK_STORE=$T/locked.db "$YS" run -q --runs 2 -- "$YSFIX" exit 0 2>/dev/null
YARDSTICK_STORE=$T/locked.db "$YS" history >/dev/null 2>&1	# the log moved in
rm -f "$T/locked.db-log"
python3 -c "
import sqlite3, time, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute('BEGIN IMMEDIATE'); open(sys.argv[1] + '.held', 'w').close(); time.sleep(120)
" "$T/locked.db" &
lockpid=$!
while [ ! -e "$T/locked.db.held" ]; do sleep 0.1; done
locked_savers() {
	echo "$savers" | {
		n=0
		while read -r line; do
			n=$((n + 1))
			eval "set -- $line"
			( YARDSTICK_STORE=$T/locked.db "$YS" "$@" >/dev/null 2>"$T/lerr.$n"
			  echo $? >"$T/lrc.$n" ) &
		done
		wait
	}
	ok=0
	for rc in "$T"/lrc.*; do
		k=${rc##*.}
		if [ "$(cat "$rc")" != 3 ] || ! grep -q "locked.db.* is locked" "$T/lerr.$k"; then
			echo "saver $k: exit $(cat "$rc"), not 3:"
			cat "$T/lerr.$k"
			ok=1
		fi
	done
	[ "$(ls "$T"/lrc.* | wc -l)" = 4 ] && return $ok
}
t "a locked store without its log: 3 from every command that saves" locked_savers
kill "$lockpid" 2>/dev/null
wait "$lockpid" 2>/dev/null
finish
