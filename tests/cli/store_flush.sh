# The save log's move into the database: `yardstick store flush` does it
# when asked, and the save that fills the log (1024 records) has it done
# by a `store flush` of its own that it does not wait for: the save
# returns while another program holds the database, the move happens once
# it lets go, with no reader, and every result is there once.
. "$(dirname "$0")/lib.sh"

# log_records STORE: the records the header of STORE-log counts.
log_records() {
	python3 -c "import struct, sys; print(struct.unpack_from('<I', open(sys.argv[1] + '-log', 'rb').read(32), 12)[0])" "$1"
}

# ids STORE: the results' ids in the database itself (Python's sqlite3,
# not yardstick), "count distinct min max".
ids() {
	python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(*c.execute('SELECT count(*), count(DISTINCT id), min(id), max(id) FROM results').fetchone())" "$1"
}

flush_asked() {
	mkdir -p "$T/a" &&
	for i in 1 2 3 4; do
		"$YS" run -q --runs 1 --store "$T/a/s.db" -- "$YSFIX" exit 0 2>/dev/null || return 1
	done
	[ "$(log_records "$T/a/s.db")" = 3 ] &&
	[ "$(ids "$T/a/s.db")" = "1 1 1 1" ] &&
	"$YS" store flush "$T/a/s.db" > "$T/out" &&
	has "$T/out" "moved 3 results from the log into $T/a/s.db" &&
	[ "$(log_records "$T/a/s.db")" = 0 ] &&
	[ "$(ids "$T/a/s.db")" = "4 4 1 4" ] &&
	"$YS" store flush -q "$T/a/s.db" > "$T/out" && [ ! -s "$T/out" ] &&
	# the default store, as a save names it
	(cd "$T/a" && YARDSTICK_STORE="$T/a/s.db" "$YS" store flush) > "$T/out" &&
	has "$T/out" "moved 0 results"
}
t "store flush moves the log into the database, and says how many" flush_asked

t "store flush of no store: exit 2, named" \
	expect_exit 2 "$YS" store flush "$T/none.db"
t "  the message" has "$T/stderr" "no yardstick store at '$T/none.db'"
t "store flush of two stores: exit 2" \
	expect_exit 2 "$YS" store flush "$T/a/s.db" "$T/a/s.db"
t "store with an unknown subcommand names both" \
	expect_exit 2 "$YS" store push "$T/a/s.db"
t "  the message" has "$T/stderr" "(copy, flush)"

# A log of 1023 records (2 saved, 1022 more made from the second, each
# with its own id and crc), then the save that takes it to 1024 while
# Python holds the database's write lock: that save returns at once
# (the move it starts waits for the lock, in the background; the old
# way the save itself waited, up to 10 s); once the lock is let go, the
# log is moved in by nobody but that background flush.
flush_apart() {
	mkdir -p "$T/b" &&
	for i in 1 2; do
		"$YS" run -q --runs 1 --store "$T/b/s.db" -- "$YSFIX" exit 0 2>/dev/null || return 1
	done
	python3 - "$T/b/s.db" "$YS" "$YSFIX" <<'PY'
import sqlite3, struct, subprocess, sys, time, zlib
db, ys, fix = sys.argv[1:4]
log = open(db + "-log", "r+b")
data = log.read()
records, next_id, end = struct.unpack_from("<IqQ", data, 12)
assert (records, next_id) == (1, 3), (records, next_id)
rec = data[32:end]
magic, plen, rid, crc = struct.unpack_from("<IIqI", rec, 0)
payload = rec[20:20 + plen]
assert len(rec) == 20 + plen and rid == 2
out = bytearray()
for i in range(3, 1025):
    head = struct.pack("<Iq", plen, i)
    c = zlib.crc32(head, zlib.crc32(payload))
    out += struct.pack("<IIqI", magic, plen, i, c) + payload
log.seek(end)
log.write(out)
log.seek(12)
log.write(struct.pack("<IqQ", 1023, 1025, end + len(out)))
log.close()

c = sqlite3.connect(db, timeout=0, isolation_level=None)
c.execute("BEGIN IMMEDIATE")
t0 = time.monotonic()
p = subprocess.Popen([ys, "run", "-q", "--runs", "1", "--store", db, "--", fix, "exit", "0"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
try:
    out, err = p.communicate(timeout=8)
except subprocess.TimeoutExpired:
    sys.exit("the save waited for the move (or left its pipes to it)")
took = time.monotonic() - t0
assert p.returncode == 0, (p.returncode, err)
assert b"saved as result 1025" in err, err
assert b"lock" not in err, err
n = struct.unpack_from("<I", open(db + "-log", "rb").read(32), 12)[0]
assert n == 1024, f"the log holds {n} records while the database is held, not 1024"
time.sleep(0.5)
c.execute("ROLLBACK")
c.close()
for _ in range(600):
    n = struct.unpack_from("<I", open(db + "-log", "rb").read(32), 12)[0]
    if n == 0:
        break
    time.sleep(0.1)
assert n == 0, f"the log still holds {n} records a minute after"
c = sqlite3.connect(db)
got = c.execute("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM results").fetchone()
assert got == (1025, 1025, 1, 1025), got
print(f"the save took {took:.3f} s with the database held")
PY
}
t "the save that fills the log returns; its flush moves it once the database is free" flush_apart
t "  history then: 1025 results, newest 1025" sh -c \
	'"$YS" history --store "$T/b/s.db" -n 1 | grep -q "^ *1025 "'

# Ctrl-C during `store flush`, at any moment of the move: the results
# are each in the database or the log, none lost; the next flush ends
# the move, with every result once. The log of 1023 records is made as
# above (no one holds the database); a copy per delay, SIGINT after it.
# The same with SIGKILL, as the OOM killer or a CI timeout ends the
# flush a save started: no handler runs, and nothing is lost either.
# make_1023 DIR: DIR/s.db, its log holding 1022 records (ids 2-1023).
make_1023() {
	mkdir -p "$1" &&
	for i in 1 2; do
		"$YS" run -q --runs 1 --store "$1/s.db" -- "$YSFIX" exit 0 2>/dev/null || return 1
	done
	python3 - "$1/s.db" <<'PY'
import struct, sys, zlib
db = sys.argv[1]
log = open(db + "-log", "r+b")
data = log.read()
records, next_id, end = struct.unpack_from("<IqQ", data, 12)
rec = data[32:end]
magic, plen, rid, crc = struct.unpack_from("<IIqI", rec, 0)
payload = rec[20:20 + plen]
out = bytearray()
for i in range(3, 1024):
    head = struct.pack("<Iq", plen, i)
    out += struct.pack("<IIqI", magic, plen, i, zlib.crc32(head, zlib.crc32(payload))) + payload
log.seek(end)
log.write(out)
log.seek(12)
log.write(struct.pack("<IqQ", 1022, 1024, end + len(out)))
log.close()
PY
}

# flush_interrupted DIR SIGNAL DELAYS [FLUSH OPTIONS]
flush_interrupted() {
	make_1023 "$T/$1" &&
	python3 - "$T/$1/s.db" "$YS" "$2" "$3" ${4-} <<'PY'
import os, shutil, signal, sqlite3, struct, subprocess, sys, time, zlib
db, ys, sig, delays = sys.argv[1:5]
sig = getattr(signal, sig)
extra = sys.argv[5:]
d = os.path.dirname(db)
names = [n for n in os.listdir(d) if n.startswith("s.db")]
stopped = finished = 0
for k, delay in enumerate(float(x) for x in delays.split()):
    w = os.path.join(d, f"w{k}")
    os.mkdir(w)
    for n in names:
        shutil.copy(os.path.join(d, n), w)
    wdb = os.path.join(w, "s.db")
    p = subprocess.Popen([ys, "store", "flush", "-q"] + extra + [wdb],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(delay)
    p.send_signal(sig)
    err = p.communicate(timeout=60)[1]
    if p.returncode == 0:
        finished += 1
    else:
        assert p.returncode in (-sig, 128 + sig), (delay, p.returncode, err)
        stopped += 1
    c = sqlite3.connect(wdb)
    inbase = {r[0] for r in c.execute("SELECT id FROM results")}
    c.close()
    n = struct.unpack_from("<I", open(wdb + "-log", "rb").read(32), 12)[0]
    assert len(inbase) + n >= 1023, (delay, len(inbase), n)
    r = subprocess.run([ys, "store", "flush", wdb], capture_output=True, text=True)
    assert r.returncode == 0, (delay, r.stderr)
    c = sqlite3.connect(wdb)
    got = c.execute("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM results").fetchone()
    assert got == (1023, 1023, 1, 1023), (delay, got, r.stdout)
    n = struct.unpack_from("<I", open(wdb + "-log", "rb").read(32), 12)[0]
    assert n == 0, (delay, n)
assert stopped > 0, "no flush was still running when its SIGINT came"
print(f"{stopped} flushes stopped by {sig.name}, {finished} done before it")
PY
}
# (the sanitized build: 5 moments of each, against 11 and 10: the
# eleven took it 28 s)
int_delays="0 0.005 0.01 0.02 0.04 0.07 0.1 0.15 0.2 0.3 0.5"
kill_delays="0 0.005 0.01 0.02 0.04 0.07 0.1 0.15 0.2 0.3"
san_build && int_delays="0 0.01 0.04 0.15 0.5" kill_delays="0.005 0.02 0.07 0.2 0.3"
t "store flush stopped by Ctrl-C at any moment loses no result and doubles none" \
	flush_interrupted c SIGINT "$int_delays"
t "store flush killed (SIGKILL) at any moment loses no result and doubles none" \
	flush_interrupted k SIGKILL "$kill_delays"

echo "1..$n"
[ "$failed" = 0 ]
