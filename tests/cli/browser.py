#!/usr/bin/env python3
"""Open a page in headless Chromium through the DevTools protocol and say
what happened, as one JSON object on stdout:

  console     console messages of level error or warning, and log entries
              (a Content-Security-Policy violation is one) of level error
  exceptions  uncaught exceptions
  requests    every request but the page's own file:// URL
  dialogs     alert(), confirm(), prompt() that opened
  value       what the expression given with --eval returned (JSON)
  colours     distinct colours in the screenshot (--screenshot)
  load_ms     navigation start to the load event, as the page measured it

Usage: browser.py PAGE [--eval JS] [--screenshot OUT.png] [--width W]
       [--height H] [--scale S] [--dark] [--print]
       browser.py --start DIR | --stop DIR

--dark emulates prefers-color-scheme: dark, --print the print media.
--start leaves a Chromium running with its profile in DIR, which the
pages opened with $YS_BROWSER_DIR=DIR then share (each in a new tab,
closed after): a start of Chromium costs seconds; --stop ends it.

Standard library only (the WebSocket client is below), so that it runs on
any python3; Chromium is Debian's `chromium` (scripts/deps.sh test).
"""
import base64, json, os, shutil, socket, struct, subprocess, sys, tempfile
import time, zlib


class WebSocket:
    """The client side of RFC 6455, enough for the DevTools protocol:
    masked text frames out; text, continuation, ping and close in."""

    def __init__(self, url):
        assert url.startswith("ws://")
        hostport, path = url[5:].split("/", 1)
        host, port = hostport.rsplit(":", 1)
        self.s = socket.create_connection((host, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket"
                        "\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                        "Sec-WebSocket-Version: 13\r\n\r\n"
                        % (path, hostport, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            c = self.s.recv(1)
            if not c:
                raise IOError("websocket handshake: connection closed")
            head += c
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise IOError("websocket handshake: " + head.decode(errors="replace"))

    def _read(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise IOError("websocket closed")
            b += c
        return b

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        if n < 126:
            hdr = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 65536:
            hdr = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            hdr = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        self.s.sendall(hdr + mask + bytes(b ^ mask[i % 4]
                                          for i, b in enumerate(data)))

    def recv(self):
        msg = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            data = self._read(n)
            op = b0 & 0x0F
            if op == 8:
                raise IOError("websocket closed by the browser")
            if op in (9, 10):
                continue
            msg += data
            if b0 & 0x80:
                return msg.decode()


def launch(profile, detach=False):
    """Start headless Chromium with its profile in the directory profile;
    returns the process once its DevTools port is open."""
    args = ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
            "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-background-networking",
            "--disable-component-update", "--disable-sync",
            "--user-data-dir=" + profile, "--remote-debugging-port=0",
            "about:blank"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            start_new_session=detach)
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.time() + 30
    while not os.path.exists(port_file) or \
            len(open(port_file).read().split()) < 2:
        if time.time() > deadline or proc.poll() is not None:
            proc.kill()
            raise IOError("chromium did not start")
        time.sleep(0.05)
    return proc


class Browser:
    def __init__(self, shared=None):
        """A Chromium of our own, or the one --start left in shared."""
        self.shared = shared
        if shared:
            self.dir = os.path.join(shared, "profile")
            self.proc = None
        else:
            self.dir = tempfile.mkdtemp(prefix="ys-chromium-")
            self.proc = launch(self.dir)
        port_file = os.path.join(self.dir, "DevToolsActivePort")
        port, path = open(port_file).read().split()[:2]
        self.ws = WebSocket("ws://127.0.0.1:%s%s" % (port, path))
        self.next_id = 0
        self.events = []
        self.target = None

    def call(self, method, session=None, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        while True:
            m = json.loads(self.ws.recv())
            self.dismiss(m)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise IOError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, name, timeout=30):
        deadline = time.time() + timeout
        self.ws.s.settimeout(timeout)
        while time.time() < deadline:
            for e in self.events:
                if e.get("method") == name:
                    return e
            m = json.loads(self.ws.recv())
            self.dismiss(m)
            self.events.append(m)
        raise IOError("no " + name)

    def dismiss(self, m):
        """An alert() would block the page: noted (by the caller, from
        the events) and dismissed at once."""
        if m.get("method") == "Page.javascriptDialogOpening":
            self.next_id += 1
            self.ws.send(json.dumps({
                "id": self.next_id, "sessionId": m.get("sessionId"),
                "method": "Page.handleJavaScriptDialog",
                "params": {"accept": False}}))

    def close(self):
        if self.shared:
            if self.target:
                self.call("Target.closeTarget", targetId=self.target)
            self.ws.s.close()
            return
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def png_colours(data):
    """Distinct pixel values of an 8-bit RGB or RGBA PNG (what Chromium
    writes), counted up to 1000."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack("!I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack("!IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), (depth, ctype)
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    seen = set()
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        if len(seen) < 1000:
            for x in range(0, stride, bpp * 7):
                seen.add(bytes(line[x:x + bpp]))
        prev = line
    return len(seen)


def start(d):
    proc = launch(os.path.join(d, "profile"), detach=True)
    open(os.path.join(d, "pid"), "w").write(str(proc.pid))


def stop(d):
    try:
        pid = int(open(os.path.join(d, "pid")).read())
        os.killpg(pid, 15)
        for _ in range(100):
            os.kill(pid, 0)
            time.sleep(0.05)
        os.killpg(pid, 9)
    except (OSError, ValueError):
        pass
    shutil.rmtree(os.path.join(d, "profile"), ignore_errors=True)


def main():
    argv = sys.argv[1:]
    if argv[0] in ("--start", "--stop"):
        (start if argv[0] == "--start" else stop)(argv[1])
        return
    page = os.path.abspath(argv.pop(0))
    opts = {"--eval": None, "--screenshot": None, "--width": "1200",
            "--height": "1600", "--scale": "1"}
    dark = printing = False
    while argv:
        a = argv.pop(0)
        if a == "--dark":
            dark = True
        elif a == "--print":
            printing = True
        else:
            opts[a] = argv.pop(0)
    url = "file://" + page
    b = Browser(os.environ.get("YS_BROWSER_DIR"))
    out = {"console": [], "exceptions": [], "requests": [], "dialogs": []}
    try:
        target = b.call("Target.createTarget", url="about:blank")["targetId"]
        b.target = target
        s = b.call("Target.attachToTarget", targetId=target,
                   flatten=True)["sessionId"]
        for dom in ("Page", "Runtime", "Log", "Network"):
            b.call(dom + ".enable", s)
        b.call("Emulation.setDeviceMetricsOverride", s,
               width=int(opts["--width"]), height=int(opts["--height"]),
               deviceScaleFactor=1, mobile=False)
        if dark or printing:
            b.call("Emulation.setEmulatedMedia", s,
                   media="print" if printing else "",
                   features=[{"name": "prefers-color-scheme",
                              "value": "dark" if dark else "light"}])
        b.events.clear()
        b.call("Page.navigate", s, url=url)
        b.wait_event("Page.loadEventFired")
        # late messages: give the page a moment, then read what came
        b.call("Runtime.evaluate", s, expression="new Promise(r => "
               "setTimeout(r, 200))", awaitPromise=True)
        if opts["--eval"]:
            r = b.call("Runtime.evaluate", s, expression=opts["--eval"],
                       returnByValue=True, awaitPromise=True)
            if "exceptionDetails" in r:
                out["exceptions"].append(r["exceptionDetails"].get("text"))
            out["value"] = r.get("result", {}).get("value")
        out["load_ms"] = b.call("Runtime.evaluate", s, returnByValue=True,
                                expression="performance.timing."
                                "loadEventEnd - performance.timing."
                                "navigationStart")["result"].get("value")
        if opts["--screenshot"]:
            # the viewport, scaled (--scale: a small one is checked in a
            # fraction of the time)
            shot = base64.b64decode(b.call(
                "Page.captureScreenshot", s, format="png",
                clip={"x": 0, "y": 0, "width": int(opts["--width"]),
                      "height": int(opts["--height"]),
                      "scale": float(opts["--scale"])})["data"])
            open(opts["--screenshot"], "wb").write(shot)
            out["colours"] = png_colours(shot)
        for e in b.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and \
                    p.get("type") in ("error", "warning", "assert"):
                out["console"].append(" ".join(str(a.get("value",
                    a.get("description"))) for a in p.get("args", [])))
            elif m == "Log.entryAdded" and \
                    p["entry"].get("level") in ("error", "warning"):
                out["console"].append(p["entry"].get("text"))
            elif m == "Runtime.exceptionThrown":
                out["exceptions"].append(p["exceptionDetails"].get("text"))
            elif m == "Network.requestWillBeSent" and \
                    p["request"]["url"] != url:
                out["requests"].append(p["request"]["url"])
            elif m == "Page.javascriptDialogOpening":
                out["dialogs"].append(p.get("message"))
    finally:
        b.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
