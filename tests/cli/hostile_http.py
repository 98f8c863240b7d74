"""A hostile HTTP/1.1 server for tests/cli/load_hostile.sh.

hostile_http.py MODE LOG [SEED]: listens on a free port of 127.0.0.1,
prints it, and serves GET requests (answer: 200, "ok") one thread a
connection, misbehaving by MODE; each thing it does is a line of LOG,
written before the client can see it, so that the log is the truth the
client's counts are checked against once the client has ended:

  reset    after reading a request: RST (at random, seeded: 30% of a
           connection's first requests, "rst-first", 10% of the others,
           "rst-reused"), else an answer ("ans")
  partial  every 4th request: the head and 5 of its 100 bytes, then a
           close ("partial"), else "ans"
  double   every 3rd request answered twice in one write ("double"),
           every 5th answered, then again 20 ms later ("late-double"),
           else "ans"
  early    every 3rd connection gets a response as soon as it is accepted,
           before any request ("early"); each request answered ("ans")
  hold     answers nothing ("held"), for ever
  stall    answers ("ans") up to 0.5 s after the first request, then holds
           every request ("held") until SEED seconds after the first,
           when it answers all it holds at once ("late-ans")

Every request it reads is a line "recv" first.
"""
import random
import socket
import struct
import sys
import threading
import time

MODE, LOG = sys.argv[1], sys.argv[2]
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 1
rng = random.Random(SEED)
BODY = b"ok"
RESP = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n" + BODY
PARTIAL = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabcde"

lock = threading.Lock()
log = open(LOG, "a", buffering=1)
counts = {"req": 0, "conn": 0}
first_at = []
held = []


def note(what):
    with lock:
        log.write(what + "\n")


def reset(c):
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()


def requests(c):
    """Each request's head read from c, until the client closes."""
    buf = b""
    while True:
        while b"\r\n\r\n" not in buf:
            try:
                d = c.recv(65536)
            except OSError:
                return
            if not d:
                return
            buf += d
        _, buf = buf.split(b"\r\n\r\n", 1)
        yield


def answer_late(c, resp, delay, what):
    time.sleep(delay)
    note(what)
    try:
        c.sendall(resp)
    except OSError:
        pass


def release_held():
    """stall: SEED s after the first request, answer all held at once."""
    time.sleep(max(0, SEED - (time.monotonic() - first_at[0])))
    with lock:
        hs = list(held)
        held.clear()
    for c in hs:
        note("late-ans")
        try:
            c.sendall(RESP)
        except OSError:
            pass


def act(c, k, nth_on_conn):
    """What to do with request k (the nth_on_conn of its connection):
    False when the connection is done."""
    if MODE == "reset":
        with lock:
            r = rng.random()
        if r < (0.3 if nth_on_conn == 0 else 0.1):
            note("rst-first" if nth_on_conn == 0 else "rst-reused")
            reset(c)
            return False
    elif MODE == "partial" and k % 4 == 0:
        note("partial")
        c.sendall(PARTIAL)
        c.close()
        return False
    elif MODE == "double" and k % 3 == 0:
        note("double")
        c.sendall(RESP + RESP)
        return True
    elif MODE == "double" and k % 5 == 0:
        note("ans")
        c.sendall(RESP)
        threading.Thread(target=answer_late, daemon=True,
                         args=(c, RESP, 0.02, "late-double")).start()
        return True
    elif MODE == "hold":
        note("held")
        return True
    elif MODE == "stall":
        with lock:
            if not first_at:
                first_at.append(time.monotonic())
                threading.Thread(target=release_held, daemon=True).start()
            late = time.monotonic() - first_at[0] > 0.5
            if late:
                held.append(c)
        if late:
            note("held")
            return True
    note("ans")
    c.sendall(RESP)
    return True


def serve(c, n):
    try:
        if MODE == "early" and n % 3 == 0:
            note("early")
            c.sendall(RESP)
        for i, _ in enumerate(requests(c)):
            with lock:
                counts["req"] += 1
                k = counts["req"]
            note("recv")
            if not act(c, k, i):
                return
    except OSError:
        pass


def main():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(128)
    print(s.getsockname()[1], flush=True)
    while True:
        c, _ = s.accept()
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with lock:
            counts["conn"] += 1
            n = counts["conn"]
        threading.Thread(target=serve, args=(c, n), daemon=True).start()


main()
