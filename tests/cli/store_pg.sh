# The PostgreSQL store (store/store_pg.c): the commands on it, store copy
# between backends, 32 writers at once, a connection killed in the middle
# of a save, a server gone, the password never shown, and hostile URLs
# and databases. Run with YS_STORE_BACKEND=postgresql: lib.sh starts a
# server of its own (pg_server.sh) and points YARDSTICK_STORE at it.
. "$(dirname "$0")/lib.sh"
[ "${YS_STORE_BACKEND:-}" = postgresql ] || { echo "Bail out! run with YS_STORE_BACKEND=postgresql"; exit 1; }
U=$YARDSTICK_STORE

count() { pg_sql "$1" "SELECT count(*) FROM results"; }

check_1() {
	"$YS" run --runs 3 --warmup 0 -n one -- "$YSFIX" exit 0 >/dev/null 2>"$T/s1" &&
	"$YS" run --runs 3 --warmup 0 -n two -- "$YSFIX" exit 0 >/dev/null 2>"$T/s2" &&
	grep -q "saved as result 1 in $YARDSTICK_STORE" "$T/s1" &&
	grep -q "saved as result 2 in $YARDSTICK_STORE" "$T/s2" &&
	[ "$(pg_sql store.db "SELECT string_agg(id::text, ' ' ORDER BY id) FROM results")" = "1 2" ]
}
t "run saves into the PostgreSQL store; ids from the server" check_1

check_2() {
	"$YS" mem -q -- "$HEAPFIX" leak 10 1000 2>/dev/null >/dev/null;
	[ "$(pg_sql store.db "SELECT count(*) FROM results WHERE kind = 'mem'")" = 1 ] &&
	"$YS" history -m peak_heap > "$T/mh.txt" && grep -q " 3 " "$T/mh.txt"
}
t "mem saves there too; history shows it with -m peak_heap" check_2

check_3() {
	pg_sql store.db "UPDATE results SET git_commit = 'abcdef0123456789abcdef0123456789abcdef01', git_branch = 'topic' WHERE id = 1" &&
	"$YS" compare --json "$T/c.json" 1 @abcdef01 >/dev/null; [ $? -le 1 ] &&
	"$YS" compare --json "$T/c2.json" branch:topic 2 >/dev/null; [ $? -le 1 ] &&
	"$YS" gate --baseline branch:topic --max-increase wall_time=1000% 2 >/dev/null 2>&1; [ $? -le 1 ] &&
	expect_exit 2 "$YS" compare 1 99 && has "$T/stderr" "no result '99' in '$YARDSTICK_STORE'"
}
t "compare by id, latest, @COMMIT and branch:NAME on the PostgreSQL store" check_3

# load and trace save there too (bench: cli_bench_pg)
load_trace_saved() {
	"$HTTPFIX" --delay 1 >"$T/hf.port" 2>/dev/null &
	hf=$!
	i=0
	while [ ! -s "$T/hf.port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	"$YS" load -q -c 2 -n 20 "http://127.0.0.1:$(cat "$T/hf.port")/" >/dev/null 2>&1
	rc=$?
	kill $hf; wait $hf 2>/dev/null
	[ $rc = 0 ] &&
	"$YS" trace -q -- "$(dirname "$YSFIX")/tracefix" 20 >/dev/null 2>&1 &&
	[ "$(pg_sql store.db "SELECT string_agg(kind, ' ' ORDER BY id) FROM results WHERE kind IN ('load', 'trace')")" = "load trace" ] &&
	"$YS" history -m latency | grep -q "127.0.0.1"
}
t "load and trace save into the PostgreSQL store; history shows the load" load_trace_saved

# store copy: SQLite -> PostgreSQL -> SQLite, again and again
copy_round() {
	"$YS" run -q --runs 2 --warmup 0 --store "$T/a.db" -n c1 -- "$YSFIX" exit 0 2>/dev/null &&
	"$YS" run -q --runs 2 --warmup 0 --store "$T/a.db" -n c2 -- "$YSFIX" exit 0 2>/dev/null &&
	pg_createdb copy && CU=$(pg_url copy) &&
	"$YS" store copy "$T/a.db" "$CU" > "$T/cp1" &&
	has "$T/cp1" "copied 2 results from $T/a.db to $CU, skipped 0 already there" &&
	"$YS" store copy "$T/a.db" "$CU" > "$T/cp2" &&
	has "$T/cp2" "copied 0 results from $T/a.db to $CU, skipped 2 already there" &&
	[ "$(count copy)" = 2 ] &&
	"$YS" run --runs 2 --warmup 0 --store "$CU" -n c3 -- "$YSFIX" exit 0 >/dev/null 2>"$T/cp3e" &&
	has "$T/cp3e" "saved as result 3 in $CU" &&
	"$YS" store copy "$CU" "$T/b.db" > "$T/cp3" && has "$T/cp3" "copied 3 results" &&
	"$YS" store copy "$CU" "$T/a.db" > "$T/cp4" && has "$T/cp4" "copied 1 result from" &&
	has "$T/cp4" "skipped 2 already there" &&
	"$YS" store copy "$T/b.db" "$T/a.db" > "$T/cp5" && has "$T/cp5" "copied 0 results" &&
	# the same history everywhere, ids kept
	"$YS" history --store "$T/a.db" --json "$T/ha.json" >/dev/null &&
	"$YS" history --store "$CU" --json "$T/hp.json" >/dev/null &&
	"$YS" history --store "$T/b.db" --json "$T/hb.json" >/dev/null &&
	cmp "$T/ha.json" "$T/hp.json" && cmp "$T/ha.json" "$T/hb.json" &&
	# a result loaded from each store: the same values, bit for bit
	"$YS" compare --store "$T/b.db" --json "$T/x1.json" 1 3 >/dev/null; [ $? -le 1 ] &&
	"$YS" compare --store "$CU" --json "$T/x2.json" 1 3 >/dev/null; [ $? -le 1 ] &&
	python3 - "$T/x1.json" "$T/x2.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("benchmarks",):
    assert a.get(k) == b.get(k), (a.get(k), b.get(k))
assert a == b or a["comparisons"] == b["comparisons"]
PY
}
t "store copy SQLite -> PostgreSQL -> SQLite: idempotent, ids kept, the same history" copy_round

check_4() {
	"$YS" run -q --runs 2 --warmup 0 --store "$T/other.db" -n o1 -- "$YSFIX" exit 0 2>/dev/null &&
	"$YS" store copy "$T/a.db" "$T/other.db" > "$T/rn" &&
	has "$T/rn" "result 1 copied as 2" && has "$T/rn" "result 3 copied as 4" &&
	has "$T/rn" "copied 3 results"
}
t "store copy into a store with other results renumbers, and says so" check_4

# Bytes that are not UTF-8 (a name from a command line in another
# encoding): a UTF-8 database takes them as U+FFFD; the fingerprint kept
# with a copied result is the original's, so copies back and forth stay
# idempotent.
bad_utf8() {
	name=$(printf 'n\377x')
	"$YS" run -q --runs 2 --warmup 0 --store "$T/u.db" -n "$name" -- "$YSFIX" exit 0 2>/dev/null &&
	pg_createdb utf && UU=$(pg_url utf) &&
	"$YS" run -q --runs 2 --warmup 0 --store "$UU" -n "$name" -- "$YSFIX" exit 0 2>/dev/null &&
	[ "$(pg_sql utf "SELECT name FROM benchmarks")" = "$(printf 'n\357\277\275x')" ] &&
	"$YS" store copy "$T/u.db" "$UU" > "$T/u1" && has "$T/u1" "copied 1 result from" &&
	"$YS" store copy "$UU" "$T/u.db" > "$T/u2" && has "$T/u2" "copied 1 result from" &&
	has "$T/u2" "skipped 1 already there" &&
	"$YS" store copy "$T/u.db" "$UU" > "$T/u3" && has "$T/u3" "copied 0 results" &&
	"$YS" store copy "$UU" "$T/u.db" > "$T/u4" && has "$T/u4" "copied 0 results" &&
	[ "$(count utf)" = 2 ]
}
t "bytes that are not UTF-8: stored as U+FFFD, copies still idempotent" bad_utf8

check_5() {
	expect_exit 2 "$YS" store copy "$T/a.db" && expect_exit 2 "$YS" store move a b &&
	expect_exit 2 "$YS" store copy "$T/missing.db" "$T/new.db" && has "$T/stderr" "missing.db" &&
	"$YS" store copy --help | grep -q "copies nothing twice"
}
t "store copy: bad usage exits 2; --help describes it" check_5

check_6() {
	pg_createdb conc && CU=$(pg_url conc) &&
	for i in $(seq 1 32); do "$YS" run -q --runs 3 --warmup 0 --store "$CU" -n "w$i" -- "$YSFIX" exit 0 2>/dev/null & done; wait
	[ "$(count conc)" = 32 ] &&
	[ "$(pg_sql conc "SELECT count(DISTINCT name) FROM benchmarks")" = 32 ] &&
	[ "$(pg_sql conc "SELECT count(*) FROM run_values v JOIN metrics m ON m.id = v.metric_id WHERE m.name = 'wall_time'")" = 96 ]
}
t "32 concurrent writers, separate processes: 32 results, each whole" check_6

# A connection killed in the middle of a save (the test hook pauses it
# after its first INSERT): nothing of it is kept, the JSON is written,
# exit 3 naming the socket.
killed_save() {
	pg_createdb killed && KU=$(pg_url killed) &&
	"$YS" run -q --runs 2 --warmup 0 --store "$KU" -n before -- "$YSFIX" exit 0 2>/dev/null &&
	mkdir "$T/pause" || return 1
	{ YARDSTICK_TEST_STORE_PAUSE=$T/pause "$YS" run -q --runs 2 --warmup 0 --store "$KU" -n victim --json "$T/victim.json" -- "$YSFIX" exit 0 2>"$T/victim.err"; echo $? > "$T/victim.rc"; } &
	for i in $(seq 1 600); do [ -s "$T/pause/pid" ] && break; sleep 0.1; done
	[ -s "$T/pause/pid" ] || return 1
	[ "$(pg_sql killed "SELECT count(*) FROM results")" = 1 ] &&
	pg_sql killed "SELECT pg_terminate_backend($(cat "$T/pause/pid"))" >/dev/null &&
	touch "$T/pause/go" && wait &&
	[ "$(cat "$T/victim.rc")" = 3 ] &&
	has "$T/victim.err" "lost the connection to the PostgreSQL store '$KU'" &&
	has "$T/victim.err" "socket '$PGSOCK/.s.PGSQL.5432'" &&
	python3 -c "import json; d = json.load(open(\"$T/victim.json\")); assert d[\"benchmarks\"][0][\"name\"] == \"victim\"" &&
	[ "$(count killed)" = 1 ] &&
	[ "$(pg_sql killed "SELECT count(*) FROM benchmarks WHERE name = 'victim'")" = 0 ] &&
	[ "$(pg_sql killed "SELECT count(*) FROM metrics m LEFT JOIN benchmarks b ON b.id = m.benchmark_id WHERE b.id IS NULL")" = 0 ] &&
	"$YS" run -q --runs 2 --warmup 0 --store "$KU" -n after -- "$YSFIX" exit 0 2>/dev/null &&
	[ "$(count killed)" = 2 ]
}
t "a connection killed mid-save: no half result, the JSON written, exit 3" killed_save

# store copy stopped by Ctrl-C (SIGINT) in the middle: the test hook
# pauses the save of the first result; the signal comes then. The copy
# stops after that result (each is a transaction of its own): exit 130,
# what was copied and what was not on stderr, no line of a finished copy,
# the one result whole in TO; the same copy again copies the other two.
# Before: not a word (from a terminal, killed by the signal mid-save,
# exit 130; here, as a background job of sh, the SIGINT was ignored).
copy_stopped() {
	for b in s1 s2 s3; do
		"$YS" run -q --runs 2 --warmup 0 --store "$T/stop.db" -n $b -- "$YSFIX" exit 0 2>/dev/null || return 1
	done
	pg_createdb stopped && SU=$(pg_url stopped) && mkdir "$T/spause" || return 1
	YARDSTICK_TEST_STORE_PAUSE=$T/spause "$YS" store copy "$T/stop.db" "$SU" >"$T/sc.out" 2>"$T/sc.err" &
	ypid=$!
	for i in $(seq 1 600); do [ -s "$T/spause/pid" ] && break; sleep 0.1; done
	[ -s "$T/spause/pid" ] || { kill $ypid; return 1; }
	kill -INT $ypid && sleep 0.2 && touch "$T/spause/go"
	wait $ypid
	rc=$?
	[ $rc = 130 ] || { echo "exit $rc"; cat "$T/sc.out" "$T/sc.err"; return 1; }
	grep -qx "yardstick store copy: interrupted by SIGINT: 1 result copied into $SU, each whole; 2 of the 3 results of $T/stop.db not copied: the same copy again copies them (nothing twice)" "$T/sc.err" &&
	! grep -q "^copied" "$T/sc.out" &&
	[ "$(count stopped)" = 1 ] &&
	[ "$(pg_sql stopped "SELECT count(*) FROM benchmarks WHERE name = 's1'")" = 1 ] &&
	"$YS" store copy "$T/stop.db" "$SU" >"$T/sc2.out" &&
	has "$T/sc2.out" "copied 2 results from $T/stop.db to $SU, skipped 1 already there" &&
	[ "$(count stopped)" = 3 ]
}
t "store copy stopped by SIGINT: exit 130, what was copied said, the rest copied by the same copy again" copy_stopped

# Stopped before its first result (the copy's own hook): a PostgreSQL TO
# is kept, empty (its database was there before: an opening never makes
# one; store_copy.sh has the SQLite TO the copy made removed).
copy_stopped_first() {
	pg_createdb first && FU=$(pg_url first) && mkdir "$T/fpause" || return 1
	YARDSTICK_TEST_COPY_PAUSE=$T/fpause "$YS" store copy "$T/stop.db" "$FU" >"$T/fc.out" 2>"$T/fc.err" &
	ypid=$!
	for i in $(seq 1 600); do [ -s "$T/fpause/pid" ] && break; sleep 0.1; done
	[ -s "$T/fpause/pid" ] || { kill $ypid; return 1; }
	kill -INT $ypid && touch "$T/fpause/go"
	wait $ypid
	rc=$?
	[ $rc = 130 ] || { echo "exit $rc"; cat "$T/fc.out" "$T/fc.err"; return 1; }
	grep -qx "yardstick store copy: interrupted by SIGINT: nothing was copied into $FU; 3 of the 3 results of $T/stop.db not copied: the same copy again copies them (nothing twice)" "$T/fc.err" &&
	[ "$(count first)" = 0 ]
}
t "store copy into PostgreSQL stopped before its first result: exit 130, TO kept, nothing copied said" copy_stopped_first

# The password: never in stdout, stderr, history, nor libpq's messages.
password() {
	pw="s3cr:et@w%rd"
	enc="s3cr%3Aet%40w%25rd"
	{ echo "local all pwuser scram-sha-256"; cat "$PGDIR/data/pg_hba.conf"; } > "$T/hba" &&
	cat "$T/hba" > "$PGDIR/data/pg_hba.conf" &&
	pg_sql postgres "CREATE ROLE pwuser LOGIN PASSWORD '$pw'" &&
	pg_createdb pw && pg_sql postgres "ALTER DATABASE pw OWNER TO pwuser" &&
	pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" reload >/dev/null || return 1
	# the reload is asynchronous: wait until a wrong password is refused
	i=0
	while PGPASSWORD=wrong "$PGBIN/psql" -X -q -h "$PGSOCK" -U pwuser -d pw -c "SELECT 1" >/dev/null 2>&1 &&
	      [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ $i -lt 100 ] &&
	good="postgresql://pwuser:$enc@/pw?host=$PGSOCK" &&
	bad="postgresql://pwuser:wrong$enc@/pw?host=$PGSOCK" &&
	shown="postgresql://pwuser@/pw?host=$PGSOCK" &&
	"$YS" run --runs 2 --warmup 0 --store "$good" -n p -- "$YSFIX" exit 0 >"$T/pw.out" 2>"$T/pw.err" &&
	has "$T/pw.err" "saved as result 1 in $shown" &&
	"$YS" history --store "$good" >>"$T/pw.out" 2>>"$T/pw.err" &&
	"$YS" history --store "$good" --json - >>"$T/pw.out" 2>>"$T/pw.err" &&
	"$YS" compare --store "$good" 1 7 >>"$T/pw.out" 2>>"$T/pw.err";
	has "$T/pw.err" "no result '7' in '$shown'" &&
	"$YS" run --runs 2 --warmup 0 --store "$bad" -n p -- "$YSFIX" exit 0 >>"$T/pw.out" 2>"$T/bad.err";
	[ $? = 3 ] && has "$T/bad.err" "cannot connect to the PostgreSQL store '$shown' (socket '$PGSOCK/.s.PGSQL.5432')" &&
	has "$T/bad.err" "password authentication failed" &&
	YARDSTICK_STORE="postgresql://pwuser@/pw?host=$PGSOCK&password=$enc" "$YS" history >>"$T/pw.out" 2>>"$T/pw.err" &&
	YARDSTICK_STORE="postgresql://pwuser@/pw?host=$PGSOCK&password=x$enc" "$YS" history >>"$T/pw.out" 2>>"$T/bad.err";
	cat "$T/bad.err" >> "$T/pw.err" &&
	! grep -F -e "$pw" -e "$enc" -e "s3cr" "$T/pw.out" "$T/pw.err"
}
t "the password is never shown: not in messages, history, nor libpq's errors" password

check_7() {
	start=$(date +%s)
	expect_exit 3 "$YS" history --store "postgresql://u:hunter2@10.255.255.1:5439/db?connect_timeout=2" &&
	has "$T/stderr" "host '10.255.255.1', port 5439" && ! grep -q hunter2 "$T/stderr" &&
	[ $(( $(date +%s) - start )) -lt 60 ]
}
t "an unreachable host: exit 3 naming host and port, within the connect timeout" check_7

check_8() {
	expect_exit 3 "$YS" run -q --runs 2 --warmup 0 --store "postgresql://postgres@/x?host=$T/nosock" --json "$T/ns.json" -- sh -c "touch '$T/ns.ran'" &&
	has "$T/stderr" "socket '$T/nosock/.s.PGSQL.5432'" &&
	has "$T/stderr" "nothing was run (the store is checked before the runs)" &&
	[ ! -e "$T/ns.ran" ] && [ ! -e "$T/ns.json" ]
}
t "no server on the socket: exit 3 naming it, before the program runs" check_8

# Issue 25 case 18: a store that would refuse the result is found before
# the first run, by every command that saves: a wrong password (pwuser,
# made by the password check above) and a user who may only read. The
# program never runs (it would make a file).
prechecked() {
	bad="postgresql://pwuser:wrong@/pw?host=$PGSOCK" &&
	pg_sql postgres "CREATE ROLE reader LOGIN" &&
	pg_sql store.db "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader" &&
	ro="postgresql://reader@/store.db?host=$PGSOCK" || return 1
	for u in "$bad" "$ro"; do
		for cmd in run mem trace bench; do
			expect_exit 3 "$YS" $cmd --store "$u" -- sh -c "touch '$T/pre.ran'" &&
			has "$T/stderr" "nothing was run (the store is checked before the runs)" &&
			[ ! -e "$T/pre.ran" ] || { echo "$cmd --store $u"; return 1; }
		done
		expect_exit 3 "$YS" load --store "$u" -n 5 "http://127.0.0.1:9/" &&
		has "$T/stderr" "nothing was run" &&
		expect_exit 3 "$YS" roofline --measure --store "$u" &&
		has "$T/stderr" "nothing was run" || { echo "load/roofline --store $u"; return 1; }
	done
	"$YS" run --store "$bad" -- true 2>"$T/pre.err"; has "$T/pre.err" "password authentication failed" &&
	"$YS" run --store "$ro" -- true 2>"$T/pre.err"; has "$T/pre.err" "cannot write to 'postgresql://reader@/store.db?host=$PGSOCK': no right to insert into results, settings"
}
t "a wrong password, a read-only user: every saving command fails before running" prechecked

# The server stopped while the program runs (the program stops it): the
# result is kept in .yardstick/unsaved/, the message says where and the
# command that saves it; with the server back, that command saves it,
# once, and it reads back identical.
stopped_midway() (
	cd "$T" && pg_createdb mid && MU=$(pg_url mid) || exit 1
	if [ "$(id -u)" -eq 0 ]; then as="runuser -u postgres --"; else as=; fi
	cat > "$T/stopper.sh" <<STOP
[ -e "$T/stopped" ] && exit 0
touch "$T/stopped"
$as "$PGBIN/pg_ctl" -D "$PGDIR/data" -m fast -w stop >/dev/null
STOP
	expect_exit 3 "$YS" run --runs 3 --warmup 0 --store "$MU" -n mid -- sh "$T/stopper.sh" &&
	[ -e "$T/stopped" ] &&
	has "$T/stderr" "the result is kept in '$T/.yardstick/unsaved/" &&
	kept=$(sed -n "s/.*the result is kept in '\([^']*\)'.*/\1/p" "$T/stderr") &&
	has "$T/stderr" "save it later with: yardstick store copy '$kept' '$MU'" &&
	(cd / && pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w \
		-o "-k $PGDIR -c listen_addresses= -c fsync=off -c max_connections=120" \
		start >/dev/null) &&
	"$YS" store copy "$kept" "$MU" > "$T/mid.out" &&
	has "$T/mid.out" "copied 1 result from $kept to $MU as result 1" &&
	"$YS" store copy "$kept" "$MU" > "$T/mid.out" &&
	has "$T/mid.out" "skipped 1 already there (result 1)" &&
	[ "$(count mid)" = 1 ] &&
	pg_sql mid "SELECT b.name, m.name, v.run, v.value FROM results r JOIN benchmarks b ON b.result_id = r.id JOIN metrics m ON m.benchmark_id = b.id JOIN run_values v ON v.metric_id = m.id WHERE r.id = 1 ORDER BY b.pos, m.pos, v.run" > "$T/mid.dump" &&
	python3 - "$kept" "$T/mid.dump" <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))["benchmarks"][0]
got = {}
for line in open(sys.argv[2]).read().split("\n"):
    if line:
        b, m, run, v = line.split("|")
        assert b == k["name"] == "mid", (b, k["name"])
        got.setdefault(m, []).append(None if v == "" else float(v))
want = {m: x["values"] for m, x in k["metrics"].items()}
assert len(want["wall_time"]) == 3, want
assert got == want, (got, want)
PY
)
t "the server stopped mid-run: the result kept on disk, saved later, identical" stopped_midway

check_9() {
	expect_exit 2 "$YS" history --store "postgresql://u@h/db?nosuchparam=1" && has "$T/stderr" "bad store URL"
}
t "a malformed URL: exit 2 naming it" check_9

check_10() {
	pg_sql postgres "CREATE DATABASE \"ys q'é x\"" &&
	OU="postgres://postgres@/ys%20q%27%C3%A9%20x?host=$PGSOCK" &&
	"$YS" run --runs 2 --warmup 0 --store "$OU" -n odd -- "$YSFIX" exit 0 >/dev/null 2>"$T/odd.err" &&
	has "$T/odd.err" "saved as result 1 in $OU" &&
	"$YS" history --store "$OU" | grep -q odd
}
t "odd characters in the database name: quote, space, unicode (a postgres:// URL)" check_10

check_11() {
	pg_createdb newer && NU=$(pg_url newer) &&
	"$YS" run -q --runs 2 --warmup 0 --store "$NU" -n x -- "$YSFIX" exit 0 2>/dev/null &&
	pg_sql newer "UPDATE yardstick_schema SET version = 99" &&
	expect_exit 2 "$YS" history --store "$NU" && has "$T/stderr" "newer yardstick" &&
	has "$T/stderr" "is 99, this yardstick knows up to 4" &&
	expect_exit 2 "$YS" run -q --runs 2 --warmup 0 --store "$NU" -n x -- "$YSFIX" exit 0 &&
	[ "$(count newer)" = 1 ]
}
t "a store of a newer yardstick is refused, both versions named" check_11

foreign_table() {
	pg_createdb foreign && pg_sql foreign "CREATE TABLE results (x int)" &&
	expect_exit 2 "$YS" run -q --runs 2 --warmup 0 --store "$(pg_url foreign)" -n x -- "$YSFIX" exit 0 &&
	has "$T/stderr" "is not a yardstick store" &&
	[ "$(pg_sql foreign "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")" = 1 ]
}
t "another program's results table: not a yardstick store, untouched" foreign_table

check_12() {
	pg_createdb altered && AU=$(pg_url altered) &&
	"$YS" run -q --runs 2 --warmup 0 --store "$AU" -n x -- "$YSFIX" exit 0 2>/dev/null &&
	pg_sql altered "ALTER TABLE metrics RENAME COLUMN unit TO units" &&
	expect_exit 2 "$YS" run -q --runs 2 --warmup 0 --store "$AU" -n y --json "$T/alt.json" -- "$YSFIX" exit 0 &&
	has "$T/stderr" "cannot use '$AU'" && has "$T/stderr" "unit" &&
	[ -s "$T/alt.json" ] && [ "$(count altered)" = 1 ] &&
	expect_exit 2 "$YS" compare --store "$AU" 1 latest && has "$T/stderr" "unit"
}
t "a table someone altered: a clear error, nothing half-saved, JSON written" check_12

check_13() (
	pg_createdb ini && mkdir "$T/ini" && cd "$T/ini" &&
	printf "store = %s\n\n[gate]\nalpha = 0.05\n" "$(pg_url ini)" > yardstick.ini &&
	env -u YARDSTICK_STORE "$YS" run -q --runs 2 --warmup 0 -n ini -- "$YSFIX" exit 0 2>/dev/null &&
	[ "$(count ini)" = 1 ] &&
	"$YS" run -q --runs 2 --warmup 0 -n env -- "$YSFIX" exit 0 2>/dev/null &&
	[ "$(count ini)" = 1 ] &&
	env -u YARDSTICK_STORE "$YS" history | grep -q " ini "
)
t "store = URL in yardstick.ini selects it; YARDSTICK_STORE wins over it" check_13

check_14() {
	"$YS" report --history one -o "$T/h.html" && grep -q "one" "$T/h.html"
}
t "report --history reads the PostgreSQL store" check_14

check_15() {
	pg_as "$PGBIN/pg_ctl" -D "$PGDIR/data" -m fast -w stop >/dev/null &&
	expect_exit 3 "$YS" run -q --runs 2 --warmup 0 -n gone --json "$T/gone.json" -- "$YSFIX" exit 0 &&
	has "$T/stderr" "cannot connect to the PostgreSQL store" && has "$T/stderr" "$PGSOCK" &&
	has "$T/stderr" "nothing was run" && [ ! -e "$T/gone.json" ]
}
t "the server stopped: exit 3 naming the socket, before anything runs" check_15

finish
