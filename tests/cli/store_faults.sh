# The SQLite store against damage and failure (issue 25, cases 16-18):
# random bytes over the database, its -wal and its save log, at offsets
# generated from several seeds: `store copy` never crashes, and never
# reports success while results are lost silently (every result comes
# through with its values, or the damage is named); a damaged log header
# is set aside and the saves go on; and a save that fails keeps the
# result in a file that `store copy` saves later, read back identical.
. "$(dirname "$0")/lib.sh"

# dump STORE: every per-run value of a store, one line each: result id,
# benchmark, metric, run, value (read with Python's sqlite3: the truth
# without yardstick).
dump() {
	python3 - "$1" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for row in c.execute("SELECT r.id, b.name, m.name, v.run, v.value FROM results r "
                     "JOIN benchmarks b ON b.result_id = r.id "
                     "JOIN metrics m ON m.benchmark_id = b.id "
                     "JOIN run_values v ON v.metric_id = m.id "
                     "ORDER BY r.id, b.pos, m.pos, v.run"):
    print("|".join(repr(x) for x in row))
PY
}

# The three layouts of six results (ids 1-6): "log", the last five still
# in the save log; "wal", all moved into the database, in its -wal; "db",
# all checkpointed into the database file. Their history, the truth.
templates() {
	mkdir -p "$T/log" &&
	for i in 1 2 3 4 5 6; do
		"$YS" run -q --runs 3 --warmup 0 --store "$T/log/s.db" -n "r$i" -- "$YSFIX" exit 0 2>/dev/null || return 1
	done
	cp -r "$T/log" "$T/wal" &&
	"$YS" history --store "$T/wal/s.db" >/dev/null &&
	cp -r "$T/wal" "$T/db" &&
	python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
assert c.execute('PRAGMA wal_checkpoint(TRUNCATE)').fetchone()[0] == 0
c.close()" "$T/db/s.db" &&
	[ -s "$T/log/s.db-log" ] && [ -s "$T/wal/s.db-wal" ] &&
	dump "$T/db/s.db" > "$T/truth" &&
	[ "$(cut -d'|' -f1 "$T/truth" | sort -u | tr '\n' ' ')" = "1 2 3 4 5 6 " ]
}
t "six results in three layouts: in the log, in the -wal, in the database" templates

# Every damage: a layout, the file (db, -wal, -log), a seed giving the
# offset and the bytes (and a few fixed offsets: each header). The copy's
# exit status is 0, 2 or 3 (a crash or a sanitizer's report fails), and
# either the copy holds every result with its values, or the copy failed
# saying why, or its warnings name the damage.
damage() {
	python3 - "$T" "$YS" <<'PY'
import os, random, shutil, sqlite3, subprocess, sys
T, YS = sys.argv[1], sys.argv[2]
def dump(path):
    c = sqlite3.connect(path)
    rows = c.execute("SELECT r.id, b.name, m.name, v.run, v.value FROM results r "
                     "JOIN benchmarks b ON b.result_id = r.id "
                     "JOIN metrics m ON m.benchmark_id = b.id "
                     "JOIN run_values v ON v.metric_id = m.id "
                     "ORDER BY r.id, b.pos, m.pos, v.run").fetchall()
    c.close()
    return ["|".join(repr(x) for x in r) for r in rows]
want = open(T + "/truth").read().split("\n")[:-1]
cases = []
for layout, suffix in (("log", "-log"), ("wal", "-wal"), ("db", "")):
    size = os.path.getsize("%s/%s/s.db%s" % (T, layout, suffix))
    fixed = [0, 8, 16, 24, 32, 40, size // 2, size - 8]
    for k in range(14):
        rng = random.Random(k * 7919 + len(suffix))
        off = fixed[k] if k < len(fixed) else rng.randrange(size)
        n = rng.randint(1, 64)
        cases.append((layout, suffix, off, bytes(rng.randrange(256) for _ in range(n))))
bad = []
named = lost = 0
for i, (layout, suffix, off, junk) in enumerate(cases):
    d = "%s/case%d" % (T, i)
    shutil.copytree("%s/%s" % (T, layout), d)
    with open("%s/s.db%s" % (d, suffix), "r+b") as f:
        f.seek(off)
        f.write(junk)
    p = subprocess.run([YS, "store", "copy", d + "/s.db", d + "/out.db"],
                       capture_output=True, text=True)
    err = p.stderr
    what = "%s%s at %d (%d bytes): exit %d, %s" % (layout, suffix, off, len(junk), p.returncode, err.strip()[:300])
    if p.returncode not in (0, 2, 3) or "Sanitizer" in err or "runtime error" in err:
        bad.append("crash: " + what)
        continue
    got = dump(d + "/out.db") if os.path.exists(d + "/out.db") else []
    said = any(w in err for w in ("damaged", "missing", "not a yardstick store",
                                  "not a database"))
    if p.returncode and not err.strip():
        bad.append("failed without a word: " + what)
    if got != want:
        lost += 1
        # reported: a failure (exit 2 or 3, its message), or the damage
        # named in a warning
        if p.returncode == 0 and not said:
            bad.append("lost silently: " + what)
    if said:
        named += 1
    shutil.rmtree(d)
print("%d cases: %d lost results, each reported (exit 2 or 3, or a warning); %d named the damage" % (len(cases), lost, named))
assert lost > 0 and named > 0, "the damage never mattered: the test tests nothing"
assert not bad, "\n".join(bad)
PY
}
t "random bytes over the log, the -wal, the database: no crash, no silent loss" damage

# Issue 25 case 17 itself: the -wal's later frames damaged, SQLite drops
# the results in them without a word; the copy names the ids missing.
wal_tail() {
	rm -rf "$T/wt" && cp -r "$T/wal" "$T/wt" &&
	python3 -c "
import os, sys
p = sys.argv[1]
size = os.path.getsize(p)
with open(p, 'r+b') as f:
    f.seek(size - 3000)
    f.write(os.urandom(64))" "$T/wt/s.db-wal" &&
	expect_exit 2 "$YS" store copy "$T/wt/s.db" "$T/wt/out.db" &&
	has "$T/stderr" "'$T/wt/s.db' is damaged: results" &&
	has "$T/stderr" "were saved into it and are missing" &&
	"$YS" history --store "$T/wt/s.db" >/dev/null 2>"$T/wt.err" &&
	has "$T/wt.err" "warning: '$T/wt/s.db' is damaged: results" &&
	# the copy holds what was left, and is whole itself
	"$YS" history --store "$T/wt/out.db" >/dev/null 2>"$T/wt2.err" &&
	! grep -q "damaged" "$T/wt2.err"
}
t "a damaged -wal drops results: store copy names the ids missing (exit 2), history warns" wal_tail

# Issue 25 case 16 from the command line: the log's next id INT64_MAX.
header_jam() {
	rm -rf "$T/hj" && mkdir "$T/hj" &&
	for i in 1 2; do "$YS" run -q --runs 2 --warmup 0 --store "$T/hj/s.db" -n "h$i" -- "$YSFIX" exit 0 2>/dev/null || return 1; done
	python3 -c "
import struct, sys
with open(sys.argv[1], 'r+b') as f:
    f.seek(16); f.write(struct.pack('<q', 2**63 - 1))" "$T/hj/s.db-log" &&
	"$YS" run --runs 2 --warmup 0 --store "$T/hj/s.db" -n h3 -- "$YSFIX" exit 0 >/dev/null 2>"$T/hj.err" &&
	has "$T/hj.err" "saved as result 3 in" &&
	has "$T/hj.err" "the next id is out of range" &&
	has "$T/hj.err" "set aside as '$T/hj/s.db-log.damaged-1'" &&
	"$YS" run --runs 2 --warmup 0 --store "$T/hj/s.db" -n h4 -- "$YSFIX" exit 0 >/dev/null 2>"$T/hj2.err" &&
	has "$T/hj2.err" "saved as result 4 in" &&
	[ "$("$YS" history --store "$T/hj/s.db" | grep -c ' h[1-4] ')" = 4 ]
}
t "a log header whose next id is INT64_MAX: set aside, ids go on at 3, 4" header_jam

# Damaged bytes among the log's records (a good header): the records
# around them go into the store, and the log, damage and all, is copied
# aside as a damaged header's is (it was dropped for good)
record_damage() {
	rm -rf "$T/rd" && mkdir "$T/rd" &&
	for i in 1 2 3 4; do "$YS" run -q --runs 2 --warmup 0 --store "$T/rd/s.db" -n "r$i" -- "$YSFIX" exit 0 2>/dev/null || return 1; done
	[ -s "$T/rd/s.db-log" ] || { echo "no log"; return 1; }
	cp "$T/rd/s.db-log" "$T/rd/before" &&
	python3 -c "
import os, sys
p = sys.argv[1]; size = os.path.getsize(p)
with open(p, 'r+b') as f:
    f.seek(size // 2); f.write(b'\xff' * 20)" "$T/rd/s.db-log" &&
	cp "$T/rd/s.db-log" "$T/rd/damaged" &&
	"$YS" history --store "$T/rd/s.db" >"$T/rd/h.out" 2>"$T/rd.err" || { cat "$T/rd.err"; return 1; }
	has "$T/rd.err" "damaged bytes" &&
	has "$T/rd.err" "set aside as '$T/rd/s.db-log.damaged-1'" &&
	cmp -s "$T/rd/damaged" "$T/rd/s.db-log.damaged-1" &&
	[ "$(grep -c ' r[1-4] ' "$T/rd/h.out")" -ge 2 ]
}
t "damaged bytes among the log's records: the others kept, the log copied aside" record_damage

# same_values RESULT.json DUMP: the values of the result file's one
# benchmark are those of result 1 in DUMP (dump's lines), bit for bit,
# every metric, in run order.
same_values() {
	python3 - "$1" "$2" <<'PY'
import json, math, sys
k = json.load(open(sys.argv[1]))["benchmarks"][0]
rows = [l.split("|") for l in open(sys.argv[2]).read().split("\n") if l]
got = {}
for rid, b, m, run, v in rows:
    assert rid == "1" and eval(b) == k["name"], (rid, b)
    got.setdefault(eval(m), []).append(eval(v))
want = {m: x["values"] for m, x in k["metrics"].items()}
assert len(want["wall_time"]) == 3, want
assert got == want, (got, want)
PY
}

# A save that fails keeps the result beside the store, and says how to
# save it; `store copy FILE.json STORE` does, once, values identical.
unsaved() {
	rm -rf "$T/us" && mkdir "$T/us" && echo "not a store" > "$T/us/s.db" &&
	expect_exit 2 "$YS" run --runs 3 --warmup 0 --store "$T/us/s.db" -n kept -- "$YSFIX" exit 0 &&
	has "$T/stderr" "the result is kept in '$T/us/unsaved/" &&
	kept=$(sed -n "s/.*the result is kept in '\([^']*\)'.*/\1/p" "$T/stderr") &&
	[ -s "$kept" ] &&
	has "$T/stderr" "save it later with: yardstick store copy '$kept' '$T/us/s.db'" &&
	"$YS" store copy "$kept" "$T/us/good.db" > "$T/us.out" &&
	has "$T/us.out" "copied 1 result from $kept to $T/us/good.db as result 1" &&
	"$YS" store copy "$kept" "$T/us/good.db" > "$T/us.out" &&
	has "$T/us.out" "skipped 1 already there (result 1)" &&
	dump "$T/us/good.db" > "$T/us.dump" &&
	same_values "$kept" "$T/us.dump" &&
	# no TO: the store a save would use ($YARDSTICK_STORE)
	YARDSTICK_STORE="$T/us/default.db" "$YS" store copy "$kept" > "$T/us.out" &&
	has "$T/us.out" "copied 1 result from $kept to $T/us/default.db as result 1" &&
	dump "$T/us/default.db" > "$T/us.dump" &&
	same_values "$kept" "$T/us.dump"
}
t "a failed save keeps the result in unsaved/; store copy saves it once, values identical; without TO into the default store" unsaved

# A store file (or its -log, -wal) every user may write: anyone could
# rewrite the results a gate compares against. Refused for reading and
# saving, naming the file (exit 3, as another user's store); a save keeps
# its result in unsaved/ beside it, which stays usable.
world_writable() {
	rm -rf "$T/ww" && mkdir "$T/ww" &&
	"$YS" run -q --runs 2 --warmup 0 --store "$T/ww/s.db" -n w -- "$YSFIX" exit 0 2>/dev/null &&
	chmod 666 "$T/ww/s.db" &&
	expect_exit 3 "$YS" history --store "$T/ww/s.db" &&
	has "$T/stderr" "'$T/ww/s.db' is writable by every user" &&
	expect_exit 3 "$YS" run --runs 2 --warmup 0 --store "$T/ww/s.db" -n w -- "$YSFIX" exit 0 &&
	has "$T/stderr" "the result is kept in '$T/ww/unsaved/" &&
	chmod 644 "$T/ww/s.db" && chmod 666 "$T/ww/s.db-log" &&
	expect_exit 3 "$YS" history --store "$T/ww/s.db" &&
	has "$T/stderr" "'$T/ww/s.db-log' is writable by every user" &&
	chmod 644 "$T/ww/s.db-log" &&
	expect_exit 0 "$YS" history --store "$T/ww/s.db"
}
t "a store file or side file writable by every user: refused (exit 3), the result kept in unsaved/" world_writable

# An empty file (0 bytes: SQLite's empty database) is no store yet to a
# reader: history, compare and store flush said "no such table: results";
# now "no yardstick store" as for a missing file (exit 2), and a save
# makes the store in it.
empty_store() {
	mkdir -p "$T/em" && : > "$T/em/s.db" || return 1
	expect_exit 2 "$YS" history --store "$T/em/s.db" &&
	grep -q "no yardstick store at '$T/em/s.db' (an empty file)" "$T/stderr" &&
	expect_exit 2 "$YS" compare --store "$T/em/s.db" latest latest &&
	grep -q "no yardstick store at '$T/em/s.db' (an empty file)" "$T/stderr" &&
	expect_exit 2 "$YS" store flush "$T/em/s.db" &&
	expect_exit 0 "$YS" run -q --runs 2 --store "$T/em/s.db" -- true &&
	expect_exit 0 "$YS" history --store "$T/em/s.db" &&
	grep -q "true" "$T/stdout"
}
t "an empty file as the store: no store yet to a reader (exit 2, said), a save makes one" empty_store

finish
