# store copy between SQLite stores stopped before its first result (the
# test hook YARDSTICK_TEST_COPY_PAUSE=DIR holds the copy there: its pid
# in DIR/pid, on until DIR/go; the signal comes meanwhile). A TO the copy
# made and copied nothing into is removed, with the directories it made
# for it, and the message says so; a TO that was there before (an empty
# file, an empty store), one another process has open, and one another
# process saved into meanwhile are kept. store_pg.sh stops a copy into
# PostgreSQL after its first result.
. "$(dirname "$0")/lib.sh"

for b in s1 s2 s3; do
	"$YS" run -q --runs 2 --warmup 0 --store "$T/from.db" -n $b -- "$YSFIX" exit 0 2>/dev/null ||
		{ echo "Bail out! cannot make the store to copy"; exit 1; }
done

# stopped_copy TO [BEFORE]: store copy from.db TO held by the hook,
# BEFORE (a shell command) run while it is held, then SIGINT; its exit
# code checked (130), stdout in $T/sc.out, stderr in $T/sc.err.
stopped_copy() {
	rm -rf "$T/pause" && mkdir "$T/pause" || return 1
	YARDSTICK_TEST_COPY_PAUSE=$T/pause "$YS" store copy "$T/from.db" "$1" >"$T/sc.out" 2>"$T/sc.err" &
	ypid=$!
	for i in $(seq 1 600); do [ -s "$T/pause/pid" ] && break; sleep 0.1; done
	[ "$(cat "$T/pause/pid" 2>/dev/null)" = $ypid ] || { kill $ypid; echo "the copy never paused"; return 1; }
	[ -z "${2:-}" ] || eval "$2" || { kill $ypid; touch "$T/pause/go"; wait $ypid; return 1; }
	kill -INT $ypid && touch "$T/pause/go"
	wait $ypid
	rc=$?
	[ $rc = 130 ] || { echo "exit $rc"; cat "$T/sc.out" "$T/sc.err"; return 1; }
	! grep -q "^copied" "$T/sc.out"
}

# 1. the copy made TO, and the directories new/sub for it: all gone
made_removed() {
	stopped_copy "$T/new/sub/to.db" &&
	grep -qx "yardstick store copy: interrupted by SIGINT: nothing was copied, so $T/new/sub/to.db, which this copy had made, was removed; 3 of the 3 results of $T/from.db not copied: the same copy again copies them (nothing twice)" "$T/sc.err" &&
	[ ! -e "$T/new" ] &&
	# the same copy again makes it and copies everything
	"$YS" store copy "$T/from.db" "$T/new/sub/to.db" >"$T/again.out" &&
	has "$T/again.out" "copied 3 results from $T/from.db to $T/new/sub/to.db, skipped 0 already there"
}
t "store copy stopped before its first result: the TO it made removed, its directories too, and said" made_removed

# 2. TO there before: an empty file (the copy made a store in it), then
# that empty store
before_kept() {
	: > "$T/empty.db" &&
	stopped_copy "$T/empty.db" &&
	grep -qx "yardstick store copy: interrupted by SIGINT: nothing was copied into $T/empty.db; 3 of the 3 results of $T/from.db not copied: the same copy again copies them (nothing twice)" "$T/sc.err" &&
	[ -s "$T/empty.db" ] &&
	stopped_copy "$T/empty.db" &&
	has "$T/sc.err" "nothing was copied into $T/empty.db;" &&
	[ -s "$T/empty.db" ] &&
	"$YS" history --store "$T/empty.db" >"$T/h.out" 2>&1
}
t "store copy stopped before its first result: a TO that was there before (an empty file, an empty store) kept" before_kept

# 3. another process (Python's sqlite3) has the TO the copy made open
held_kept() {
	stopped_copy "$T/held.db" '
		python3 - "$T/held.db" "$T/held" <<"PY" &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1])
assert c.execute("SELECT count(*) FROM results").fetchone() == (0,)
open(sys.argv[2] + ".open", "w").close()
while not os.path.exists(sys.argv[2] + ".done"):
    time.sleep(0.05)
c.close()
PY
		for i in $(seq 1 600); do [ -e "$T/held.open" ] && break; sleep 0.1; done
		[ -e "$T/held.open" ]' &&
	touch "$T/held.done" && wait &&
	has "$T/sc.err" "nothing was copied into $T/held.db;" &&
	[ -e "$T/held.db" ] &&
	"$YS" store copy "$T/from.db" "$T/held.db" >"$T/h2.out" &&
	has "$T/h2.out" "copied 3 results"
}
t "store copy stopped before its first result: a TO it made that another process has open is kept" held_kept

# 4. another process saved a result into the TO the copy made
saved_kept() {
	stopped_copy "$T/saved.db" '"$YS" run -q --runs 2 --warmup 0 --store "$T/saved.db" -n other -- "$YSFIX" exit 0 2>/dev/null' &&
	has "$T/sc.err" "nothing was copied into $T/saved.db;" &&
	"$YS" history --store "$T/saved.db" >"$T/s.out" 2>&1 &&
	has "$T/s.out" "other"
}
t "store copy stopped before its first result: a TO it made that another process saved into is kept" saved_kept

# failed_copy TO: store copy gone.db TO held by the hook while gone.db's
# results are deleted (the first load then fails); its exit code checked
# (2), stderr in $T/fc.err.
failed_copy() {
	rm -f "$T"/gone.db* && "$YS" store copy "$T/from.db" "$T/gone.db" >/dev/null &&
	rm -rf "$T/pause" && mkdir "$T/pause" || return 1
	YARDSTICK_TEST_COPY_PAUSE=$T/pause "$YS" store copy "$T/gone.db" "$1" >"$T/fc.out" 2>"$T/fc.err" &
	ypid=$!
	for i in $(seq 1 600); do [ -s "$T/pause/pid" ] && break; sleep 0.1; done
	python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute('DELETE FROM results')
c.commit()" "$T/gone.db" || { kill $ypid; touch "$T/pause/go"; wait $ypid; return 1; }
	touch "$T/pause/go"
	wait $ypid
	rc=$?
	[ $rc = 2 ] || { echo "exit $rc"; cat "$T/fc.out" "$T/fc.err"; return 1; }
}

# 5. the copy failed before its first result: the error, then the TO it
# made removed with its directories, said; a TO there before kept
failed_removed() {
	failed_copy "$T/fnew/sub/to.db" &&
	has "$T/fc.err" "yardstick store copy: '$T/gone.db' is damaged" &&
	grep -qx "yardstick store copy: nothing was copied, so $T/fnew/sub/to.db, which this copy had made, was removed" "$T/fc.err" &&
	[ ! -e "$T/fnew" ] &&
	# into an empty file there before: the same failure keeps it
	: > "$T/fempty.db" &&
	failed_copy "$T/fempty.db" &&
	[ -s "$T/fempty.db" ] &&
	! grep -q "removed" "$T/fc.err"
}
t "store copy failed before its first result: the TO it made removed and said, one there before kept" failed_removed

# 6. a result file that cannot be saved (TO is not a store): nothing made
json_unsaved() {
	"$YS" run -q --runs 2 --warmup 0 --no-store --json "$T/r.json" -- "$YSFIX" exit 0 2>/dev/null &&
	echo "not a database, not at all, not one byte of one" > "$T/junk.db" &&
	! "$YS" store copy "$T/r.json" "$T/junk.db" >"$T/j.out" 2>"$T/j.err" &&
	has "$T/junk.db" "not a database" && ! grep -q "removed" "$T/j.err"
}
t "store copy of a result file into a file that is not a store: an error, the file untouched" json_unsaved

# 7. a TO whose path goes back up out of a directory the copy made
# (made/../kept/to.db): the store removed, but not kept, which was there
# before (it was, as the first directory made is a prefix of its path)
dotdot_kept() {
	mkdir "$T/kept" &&
	stopped_copy "$T/made/../kept/to.db" &&
	has "$T/sc.err" "nothing was copied, so $T/made/../kept/to.db, which this copy had made, was removed;" &&
	[ ! -e "$T/kept/to.db" ] &&
	[ -d "$T/kept" ]
}
t "store copy stopped before its first result: a directory there before, on a TO's path through .., kept" dotdot_kept

finish
