"""The move of a store's log that a save starts (`store flush --idle 1s`,
docs/store.md) waits until the saves stop for a second, then runs: after
a timed loop of saves, on whatever runs next. A benchmark that times
something else after such a loop waits for it first (wait_moves), so
that the move is counted where it belongs: in no one's timings, and said
so."""
import os
import time


def flushes(db):
    """The pids of the `yardstick store flush` processes of store db."""
    want = os.fsencode(db)
    pids = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                a = f.read().split(b"\0")
        except OSError:
            continue
        if a[1:3] == [b"store", b"flush"] and want in a:
            pids.append(int(p))
    return pids


def wait_moves(db, timeout=120.0):
    """Wait until no flush of store db runs; the seconds waited (0.0 when
    none ran)."""
    t0 = time.monotonic()
    if not flushes(db):
        return 0.0
    while flushes(db):
        if time.monotonic() - t0 > timeout:
            raise SystemExit(f"a store flush of {db} still runs after {timeout:g} s")
        time.sleep(0.05)
    return time.monotonic() - t0
