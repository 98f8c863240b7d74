# What another user may plant in yardstick's way, and the files it reads and
# writes when the disk is full, read-only, locked or damaged. Run as root:
# the hostile files are made as nobody, in a sticky directory like /tmp.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root to make files as nobody"
	exit 0
fi
chmod 755 "$T"
S=$T/shared
mkdir -m 1777 "$S"
ASNOBODY="setpriv --reuid nobody --regid nogroup --clear-groups"
asnobody() { $ASNOBODY "$@"; }
mkresult "$T/a.json" x 1 0 50
mkresult "$T/b.json" x 1.5 0 50
printf 'TOPSECRET\n' > "$T/secret"
chmod 600 "$T/secret"
export T S ASNOBODY

# --- outputs ---
asnobody ln -s "$T/secret" "$S/evil.json"
t "--json onto nobody's symlink to a root file: refused, the file intact" sh -c '
	"$YS" compare "$T/a.json" "$T/b.json" --json "$S/evil.json" >/dev/null 2>"$T/e1"; [ $? -eq 2 ] &&
	grep -q "refusing to follow the symlink" "$T/e1" && grep -q nobody "$T/e1" &&
	[ "$(cat "$T/secret")" = TOPSECRET ] && [ "$(stat -c %a "$T/secret")" = 600 ]'
asnobody ln -s "$T/created.json" "$S/dangle.json"
t "a dangling symlink of nobody's: nothing made where it points" sh -c '
	"$YS" compare "$T/a.json" "$T/b.json" --markdown "$S/dangle.json" >/dev/null 2>"$T/e2"; [ $? -eq 2 ] &&
	grep -q nobody "$T/e2" && [ ! -e "$T/created.json" ]'
asnobody mkfifo "$S/fifo"
t "nobody's FIFO as the output: refused at once, not waited on" sh -c '
	timeout 20 "$YS" compare "$T/a.json" "$T/b.json" --json "$S/fifo" >/dev/null 2>"$T/e3"; [ $? -eq 2 ] &&
	grep -q "refusing to write into" "$T/e3"'
asnobody sh -c 'echo theirs > "$S/theirs.json"'
t "nobody's file in a shared directory is not replaced" sh -c '
	"$YS" compare "$T/a.json" "$T/b.json" --json "$S/theirs.json" >/dev/null 2>"$T/e4"; [ $? -eq 2 ] &&
	grep -q "refusing to replace" "$T/e4" && [ "$(cat "$S/theirs.json")" = theirs ]'
t "root's own symlink is followed: the target replaced, its mode kept" sh -c '
	echo old > "$T/target.json" && chmod 600 "$T/target.json" && ln -s "$T/target.json" "$S/mine.json" &&
	"$YS" compare "$T/a.json" "$T/b.json" --json "$S/mine.json" >/dev/null &&
	[ -L "$S/mine.json" ] && [ "$(stat -c %a "$T/target.json")" = 600 ] &&
	python3 -c "import json; json.load(open(\"$T/target.json\"))"'
t "/dev/full: run --json says the disk is full" sh -c '
	"$YS" run -q --runs 2 --no-store --json /dev/full -- "$YSFIX" exit 0 2>"$T/e5"; [ $? -eq 2 ] &&
	grep -q "cannot write .*/dev/full.*: No space left on device" "$T/e5"'
t "/dev/full: compare --markdown and gate --junit say the disk is full" sh -c '
	"$YS" compare "$T/a.json" "$T/b.json" --markdown /dev/full >/dev/null 2>"$T/e6"; [ $? -eq 2 ] &&
	grep -q "No space left on device" "$T/e6" &&
	"$YS" gate -q -b "$T/a.json" "$T/b.json" --max-increase wall_time=100% --junit /dev/full 2>"$T/e7"; [ $? -eq 2 ] &&
	grep -q "No space left on device" "$T/e7"'
t "/dev/stdout and - still write to stdout: a pipe, a file appended to" sh -c '
	"$YS" compare "$T/a.json" "$T/b.json" --json /dev/stdout 2>/dev/null | grep -q "\"schema\"" &&
	"$YS" compare "$T/a.json" "$T/b.json" --json - 2>/dev/null | grep -q "\"schema\"" &&
	echo first > "$T/app.txt" && "$YS" compare "$T/a.json" "$T/b.json" --json /dev/stdout >>"$T/app.txt" &&
	[ "$(head -1 "$T/app.txt")" = first ] && grep -q "\"schema\"" "$T/app.txt"'

# --- git discovery ---
mkdir "$S/work"
asnobody sh -c 'mkdir -p "$S/.git/refs/heads" && echo "ref: refs/heads/main" > "$S/.git/HEAD" &&
	echo 0123456789abcdef0123456789abcdef01234567 > "$S/.git/refs/heads/main"'
t "a .git of nobody's above: git state not recorded, with a warning naming it" sh -c '
	cd "$S/work" && "$YS" run -q --runs 2 --json "$T/g1.json" -- "$YSFIX" exit 0 2>"$T/e8" &&
	grep -q "warning: git state not recorded: refusing git repository .*$S.*nobody" "$T/e8" &&
	python3 -c "import json; g = json.load(open(\"$T/g1.json\"))[\"git\"]; assert g[\"commit\"] is None and g[\"branch\"] is None, g"'
t "... and the default store there is refused (exit 3), nothing made" sh -c '
	cd "$S/work" && env -u YARDSTICK_STORE "$YS" run -q --runs 2 --json "$T/g2.json" -- "$YSFIX" exit 0 2>"$T/e9"; [ $? -eq 3 ] &&
	grep -q "refusing git repository .*nobody" "$T/e9" && [ ! -e "$S/.yardstick" ] && [ -s "$T/g2.json" ]'
mkdir "$T/repo"
(cd "$T/repo" && git init -q -b main && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m one)
printf 'ref: refs/heads/../../../secret\n' > "$T/repo/.git/HEAD"
t "a HEAD leading out of .git: no commit, the file's line never recorded" sh -c '
	cd "$T/repo" && "$YS" run -q --runs 2 --json "$T/g3.json" -- "$YSFIX" exit 0 2>"$T/e10" &&
	grep -q "invalid ref" "$T/e10" && ! grep -q TOPSECRET "$T/g3.json" &&
	python3 -c "import json; g = json.load(open(\"$T/g3.json\"))[\"git\"]; assert g[\"commit\"] is None, g" &&
	"$YS" history --json - | python3 -c "import json,sys; r = json.load(sys.stdin)[\"results\"]; assert r[0][\"commit\"] is None, r[0]"'
printf 'ref: refs/heads/main\n' > "$T/repo/.git/HEAD"
t "a repository of one's own still gives commit and branch" sh -c '
	cd "$T/repo" && "$YS" run -q --runs 2 --json "$T/g4.json" -- "$YSFIX" exit 0 2>"$T/e11" &&
	! grep -q warning:.*git "$T/e11" &&
	python3 -c "import json; g = json.load(open(\"$T/g4.json\"))[\"git\"]; assert len(g[\"commit\"]) == 40 and g[\"branch\"] == \"main\", g"'

# --- stores ---
S2=$T/shared2
mkdir -m 1777 "$S2"
export S2
asnobody mkdir "$S2/.yardstick"
t "a .yardstick of nobody's: refused (exit 3) naming it, nothing stored" sh -c '
	cd "$S2" && env -u YARDSTICK_STORE "$YS" run -q --runs 2 -- "$YSFIX" exit 0 2>"$T/e12"; [ $? -eq 3 ] &&
	grep -q "refusing store .*\.yardstick.*nobody" "$T/e12" && [ -z "$(ls -A "$S2/.yardstick")" ]'
t "--store /dev/null: refused, no /dev/null-journal left" sh -c '
	rm -f /dev/null-journal; "$YS" run -q --runs 2 --store /dev/null -- "$YSFIX" exit 0 2>"$T/e13"; [ $? -eq 2 ] &&
	grep -q "not a regular file" "$T/e13" && [ ! -e /dev/null-journal ]'
mkdir "$T/nob"
"$YS" run -q --runs 3 -n kept --store "$T/nob/ro.db" -- "$YSFIX" exit 0 2>/dev/null
chown -R nobody:nogroup "$T/nob"
chmod 444 "$T/nob/ro.db"
t "a 0444 store is read by history and compare (as its owner)" sh -c '
	$ASNOBODY "$YS" history --store "$T/nob/ro.db" --json - 2>"$T/e14" |
	python3 -c "import json,sys; r = json.load(sys.stdin)[\"results\"]; assert r[0][\"benchmarks\"][0][\"name\"] == \"kept\", r" &&
	$ASNOBODY "$YS" compare latest latest --store "$T/nob/ro.db" >/dev/null'
t "... a save into it is refused (exit 3), the --json kept" sh -c '
	$ASNOBODY "$YS" run -q --runs 2 --store "$T/nob/ro.db" --json - -- "$YSFIX" exit 0 >"$T/k.json" 2>"$T/e15"; [ $? -eq 3 ] &&
	grep -q "read-only" "$T/e15" && python3 -c "import json; json.load(open(\"$T/k.json\"))"'
# The writer left its -wal (the result is there) and -shm; without the
# -shm, none can be made in a read-only directory: the -wal is still read.
rm -f "$T/nob/ro.db-shm"
chmod 555 "$T/nob"
t "a store in a read-only directory is read, its -wal too, no -shm made" sh -c '
	$ASNOBODY "$YS" history --store "$T/nob/ro.db" | grep -q kept && [ ! -e "$T/nob/ro.db-shm" ]'
chmod 755 "$T/nob"
"$YS" run -q --runs 3 -n theirs --store "$T/theirs.db" -- "$YSFIX" exit 0 2>/dev/null
chown nobody "$T/theirs.db"
t "a store file of nobody's is refused (exit 3), for reading too" sh -c '
	"$YS" run -q --runs 2 --store "$T/theirs.db" -- "$YSFIX" exit 0 2>"$T/e16"; [ $? -eq 3 ] &&
	grep -q "nobody" "$T/e16" && "$YS" history --store "$T/theirs.db" 2>"$T/e17"; [ $? -eq 3 ] && grep -q nobody "$T/e17"'

# --- locked and damaged stores lose nothing ---
"$YS" run -q --runs 3 -n before --store "$T/locked.db" -- "$YSFIX" exit 0 2>/dev/null
python3 -c "
import sqlite3, time, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute('BEGIN IMMEDIATE'); open(sys.argv[1] + '.held', 'w').close(); time.sleep(14); c.execute('ROLLBACK')
" "$T/locked.db" &
lockpid=$!
while [ ! -e "$T/locked.db.held" ]; do sleep 0.1; done
t "a locked store: history still reads it" sh -c '
	"$YS" history --store "$T/locked.db" | grep -q before'
# A save appends to the store's log, which needs no lock of the database:
# it goes on at once, and a reader shows it (from a private copy, the
# database being held).
t "a locked store: run saves into its log at once" sh -c '
	"$YS" run --runs 2 -n during --store "$T/locked.db" -- "$YSFIX" exit 0 2>"$T/e18" &&
	grep -q "saved as result 2 in .*locked.db" "$T/e18" && [ -s "$T/locked.db-log" ]'
t "a locked store: history shows the logged result too" sh -c '
	"$YS" history --store "$T/locked.db" --json - | python3 -c "
import json, sys; r = json.load(sys.stdin)[\"results\"]
assert [(x[\"id\"], x[\"benchmarks\"][0][\"name\"]) for x in r] == [(2, \"during\"), (1, \"before\")], r"'
# Without its log (as before its first save), a save goes through SQLite.
t "a locked store without its log: run waits, exits 3 naming it, the --json kept" sh -c '
	mv "$T/locked.db-log" "$T/locked.log.away" &&
	"$YS" run -q --runs 2 -n refused --store "$T/locked.db" --json "$T/l.json" -- "$YSFIX" exit 0 2>"$T/e18"; rc=$?
	mv "$T/locked.log.away" "$T/locked.db-log" && [ $rc -eq 3 ] &&
	grep -q "locked.db.* is locked" "$T/e18" && python3 -c "import json; json.load(open(\"$T/l.json\"))"'
wait $lockpid
t "... once released, nothing was lost and saves go on" sh -c '
	"$YS" run -q --runs 2 -n after --store "$T/locked.db" -- "$YSFIX" exit 0 2>/dev/null &&
	"$YS" history --store "$T/locked.db" --json - | python3 -c "
import json, sys; r = json.load(sys.stdin)[\"results\"]
assert [x[\"benchmarks\"][0][\"name\"] for x in r] == [\"after\", \"during\", \"before\"], r"'
"$YS" run -q --runs 3 -n x --store "$T/cut.db" -- "$YSFIX" exit 0 2>/dev/null
for i in 1 2 3 4 5 6 7 8; do "$YS" run -q --runs 50 -n "x$i" --store "$T/cut.db" -- "$YSFIX" exit 0 2>/dev/null; done
# all of it into the file, to damage it there (a writer leaves its -wal)
python3 -c "import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute('PRAGMA wal_checkpoint(TRUNCATE)')" "$T/cut.db"
truncate -s "$(( $(stat -c %s "$T/cut.db") / 2 ))" "$T/cut.db"
cp "$T/cut.db" "$T/cut.orig"
t "a damaged store: history and run say so (exit 2), the file untouched" sh -c '
	"$YS" history --store "$T/cut.db" 2>"$T/e19"; [ $? -eq 2 ] && grep -q "cut.db.* is damaged" "$T/e19" &&
	"$YS" run -q --runs 2 --store "$T/cut.db" --json "$T/c.json" -- "$YSFIX" exit 0 2>"$T/e20"; [ $? -eq 2 ] &&
	grep -q "cut.db" "$T/e20" && cmp "$T/cut.db" "$T/cut.orig" && [ ! -e "$T/cut.db-journal" ] &&
	python3 -c "import json; json.load(open(\"$T/c.json\"))"'

# --- a full and a read-only file system (needs mount: else skipped) ---
M=$T/mnt
mkdir "$M"
if mount -t tmpfs -o size=256k,mode=755 tmpfs "$M" 2>/dev/null; then
	trap 'umount "$M" 2>/dev/null; rm -rf "$T"' EXIT
	"$YS" run -q --runs 3 -n small --store "$M/s.db" -- "$YSFIX" exit 0 2>/dev/null
	dd if=/dev/zero of="$M/fill" bs=4k 2>/dev/null
	export M
	t "a full disk: the store says so (not 'disk I/O error'), the --json kept" sh -c '
		"$YS" run -q --runs 300 --store "$M/s.db" --json "$T/f.json" -- "$YSFIX" exit 0 2>"$T/e21"; [ $? -eq 2 ] &&
		grep -q "No space left on device\|the disk is full" "$T/e21" && ! grep -q "disk I/O error" "$T/e21" &&
		python3 -c "import json; json.load(open(\"$T/f.json\"))"'
	t "a full disk: --json into it says so, nothing half-written left" sh -c '
		"$YS" compare "$T/a.json" "$T/b.json" --json "$M/out.json" >/dev/null 2>"$T/e22"; [ $? -eq 2 ] &&
		grep -q "No space left on device" "$T/e22" && [ -z "$(ls "$M" | grep out.json)" ]'
	rm -f "$M/fill"
	mount -o remount,ro "$M"
	t "a read-only file system: history reads the store, run says why it cannot save" sh -c '
		"$YS" history --store "$M/s.db" | grep -q small &&
		"$YS" run -q --runs 2 --store "$M/s.db" -- "$YSFIX" exit 0 2>"$T/e23"; [ $? -eq 3 ] &&
		grep -q "read-only file system" "$T/e23"'
	umount "$M"
else
	skip "a full and a read-only file system" "mount is not permitted here"
fi

t "a store that is a dangling symlink: refused as one (not as 'writable by every user'), nothing made where it points" sh -c '
	mkdir -p "$T/dl" && ln -sf "$T/dl/nowhere.db" "$T/dl/store.db" &&
	"$YS" run -q --runs 1 --warmup 0 --no-store --json "$T/dl/r.json" -- "$YSFIX" exit 0 2>/dev/null &&
	"$YS" store copy "$T/dl/r.json" "$T/dl/store.db" >/dev/null 2>"$T/dl/e1"; [ $? -eq 3 ] &&
	grep -q "refusing store .*store.db.: it is a symbolic link to a file that does not exist" "$T/dl/e1" &&
	! grep -q "writable by every user" "$T/dl/e1" && [ ! -e "$T/dl/nowhere.db" ]'

finish
