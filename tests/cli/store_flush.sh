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
# make_log DIR LAST: the same up to id LAST (LAST - 1 records).
make_1023() { make_log "$1" 1023; }
make_log() {
	mkdir -p "$1" &&
	for i in 1 2; do
		"$YS" run -q --runs 1 --store "$1/s.db" -- "$YSFIX" exit 0 2>/dev/null || return 1
	done
	python3 - "$1/s.db" "$2" <<'PY'
import struct, sys, zlib
db, last = sys.argv[1], int(sys.argv[2])
log = open(db + "-log", "r+b")
data = log.read()
records, next_id, end = struct.unpack_from("<IqQ", data, 12)
rec = data[32:end]
magic, plen, rid, crc = struct.unpack_from("<IIqI", rec, 0)
payload = rec[20:20 + plen]
out = bytearray()
for i in range(3, last + 1):
    head = struct.pack("<Iq", plen, i)
    out += struct.pack("<IIqI", magic, plen, i, zlib.crc32(head, zlib.crc32(payload))) + payload
log.seek(end)
log.write(out)
log.seek(12)
log.write(struct.pack("<IqQ", last - 1, last + 1, end + len(out)))
log.close()
PY
}

# The move a save starts waits for the saves to stop (store flush --idle
# 1s): a loop of saves is not measured beside it (issue 30's sigma).
# From a log one short of its bound (ids 2-1023), saves one after another
# (as a loop of `run`s): the log is never moved while they come, unless
# a second passed without a save (a loaded machine's stall: then it may
# be); at most one flush process waits at any time (the every-64th
# save's retry starts none while it does); after the loop the log is
# moved, not before a second after the last save; every result once.
# With LAST 1530, the log passes 1.5 times its bound (1536) during the
# loop: moved then, the saves still coming.
# idle_loop DIR LAST SAVES MOVED_DURING (1: must be, 0: must not be)
idle_loop() {
	make_log "$1" "$2" &&
	python3 - "$1/s.db" "$YS" "$YSFIX" "$2" "$3" "$4" <<'PY'
import os, sqlite3, struct, subprocess, sys, time
db, ys, fix, last, saves, moved_during = sys.argv[1:7]
last, saves, moved_during = int(last), int(saves), moved_during == "1"

def records():
    return struct.unpack_from("<I", open(db + "-log", "rb").read(32), 12)[0]

# the flush processes: not counting a child of one (in the sanitized
# build, LeakSanitizer's tracer at its exit, which stops it: state t)
def flushers():
    found = {}
    for p in os.listdir("/proc"):
        try:
            a = open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")
            ppid = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1]
        except (OSError, IndexError):
            continue
        if a[1:3] == [b"store", b"flush"] and db.encode() in a:
            found[p] = ppid
    return sum(1 for p, pp in found.items() if pp not in found)

most, drop, gap_before_drop, prev_end = 0, None, 0.0, None
# the move past 1.5 times the bound takes its time to empty the log (a
# sanitized build under load: longer than 40 saves): the saves go on
# until it has, for 60 s at most
start, i = time.monotonic(), -1
while True:
    i += 1
    if i >= saves and not (moved_during and drop is None and
                           time.monotonic() - start < 60):
        break
    t0 = time.monotonic()
    gap = t0 - prev_end if prev_end else 0.0
    n0 = records()
    p = subprocess.run([ys, "run", "-q", "--runs", "1", "--store", db, "--", fix, "exit", "0"],
                       capture_output=True)
    assert p.returncode == 0, p.stderr
    prev_end = time.monotonic()
    if drop is None and i and n0 < last - 1 + i:
        drop, gap_before_drop = i, gap
    most = max(most, flushers())
assert most <= 1, f"{most} flush processes at once"
if moved_during:
    assert drop is not None, "the log was not moved at 1.5 times its bound"
elif drop is not None:
    assert gap_before_drop >= 0.9, \
        f"moved before save {drop} after a pause of {gap_before_drop:.2f} s"
end = time.monotonic()
# moved during the loop, the saves after the move stay in the log (under
# its bound: the next reader moves them)
while records() and drop is None and time.monotonic() - end < 60:
    time.sleep(0.05)
took = time.monotonic() - end
left = records()
if drop is None:
    assert left == 0, f"the log still holds {left} records a minute after"
    assert took >= 0.9, f"moved {took:.2f} s after the last save"
else:
    assert 0 < left < 1024, left
total = last + i
got = sqlite3.connect(db).execute(
    "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM results").fetchone()
assert got == (total - left, total - left, 1, total - left), (got, left)
print(f"# moved {'during the loop' if drop is not None else f'{took:.2f} s after it'};"
      f" at most {most} flush waiting")
PY
}
t "the move a save starts waits until the saves stop for a second, one flush process at most" \
	idle_loop "$T/idle" 1023 40 0
t "  and moves a log at 1.5 times its bound while the saves still come" \
	idle_loop "$T/idle2" 1530 40 1

# store flush --idle by hand while a flush waits: exit 0 at once, said so
idle_second() {
	make_log "$T/idle3" 1100 &&
	{ "$YS" store flush --idle 5s "$T/idle3/s.db" >"$T/idle3/first" & } &&
	for _ in $(seq 100); do
		python3 -c "
import fcntl, struct, sys
fd = open(sys.argv[1] + '-log', 'r+b')
fl = struct.pack('hhqqi', fcntl.F_WRLCK, 0, 1 << 62, 1, 0)
r = fcntl.fcntl(fd, 36, fl)  # F_OFD_GETLK
sys.exit(0 if struct.unpack('hhqqi', r)[0] != fcntl.F_UNLCK else 1)" "$T/idle3/s.db" && break
		sleep 0.1
	done &&
	"$YS" store flush --idle 1s "$T/idle3/s.db" >"$T/idle3/second" &&
	has "$T/idle3/second" "another flush waits to move the log of $T/idle3/s.db" &&
	wait &&
	has "$T/idle3/first" "moved 1099 results from the log into $T/idle3/s.db"
}
t "store flush --idle while another waits: exit 0 at once, said so; the first moves the log" idle_second

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
# the same while `store flush --idle` waits for the saves to stop, and
# just after (the move): stopped by Ctrl-C, SIGTERM (a CI's timeout) or
# SIGKILL, it loses nothing
idle_delays="0 0.3 0.9 1.05 1.2 1.5"
san_build && idle_delays="0.3 1.05 1.5"
t "store flush --idle stopped by Ctrl-C while it waits or moves loses no result and doubles none" \
	flush_interrupted ic SIGINT "$idle_delays" "--idle 1s"
t "  by SIGTERM" flush_interrupted it SIGTERM "$idle_delays" "--idle 1s"
t "  by SIGKILL" flush_interrupted ik SIGKILL "$idle_delays" "--idle 1s"

# a waiter killed: its lock goes with it, and the next flush --idle waits
# and moves the log itself (not "another flush waits")
idle_killed() {
	make_log "$T/idlek" 1100 &&
	"$YS" store flush --idle 30s "$T/idlek/s.db" >/dev/null &
	pid=$!
	sleep 0.5 &&
	kill -KILL "$pid" && { wait "$pid"; true; } &&
	"$YS" store flush --idle 200ms "$T/idlek/s.db" >"$T/idlek/out" &&
	has "$T/idlek/out" "moved 1099 results from the log into $T/idlek/s.db"
}
t "a killed store flush --idle leaves no lock behind: the next one moves the log" idle_killed

echo "1..$n"
[ "$failed" = 0 ]
