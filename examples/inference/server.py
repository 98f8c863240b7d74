#!/usr/bin/env python3
"""A tiny batching HTTP inference server of pipeline.py's model, the shape
of the profiling guides' second practice project (a server whose
throughput plateaus as the batch grows).

    python3 server.py PORT [--model resnet18] [--size 224]
                           [--image 480x640] [--max-batch 8]
                           [--max-wait 5ms] [--preprocess-in-handler]
                           [--idle-exit T] [--threads 1]

GET /infer classifies one camera frame (random, standing for the decoded
upload) and answers {"class": K, "batch": N}; GET /health answers "ok".
Each connection's handler thread puts its request in one queue; one
batcher thread takes up to --max-batch requests, waiting at most
--max-wait for more after the first, and runs them through the model as
one batch.

The plateau: by default the batcher also pre-processes each request's
frame (resize, scale, normalise), one after the other, while the model
waits: pre-processing is serialised in the one thread that matters.
--preprocess-in-handler is the fix: each handler thread pre-processes its
own frame before queueing it (torch releases the GIL in its kernels, so
the handlers' resizes overlap each other and the model).

Zones (`yardstick trace -- python3 server.py ...`, docs/inference.md):
    main thread      preprocess, model, softmax: one warm-up call
    handler threads  request > [preprocess] > queue_wait
    batcher thread   collect, then batch > [preprocess ...] > model > softmax
and an async span "queued" per request, from the handler's put to the
batcher's take; the counter "batch_size". The server warms the model up,
prints one line when it listens, its URL (PORT 0 picks a free port), and
stops on SIGTERM or SIGINT, or --idle-exit after its last request ended
(none in flight), finishing the batches queued.
"""
import argparse
import json
import queue
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import torch

import yardstick

import pipeline


def duration(text):
    """'5ms', '0.2s', '300us' or seconds as a number, in seconds."""
    t = text.strip()
    for unit, scale in (("ms", 1e-3), ("us", 1e-6), ("s", 1.0)):
        if t.endswith(unit):
            t, s = t[:-len(unit)], scale
            break
    else:
        s = 1.0
    try:
        v = float(t) * s
    except ValueError:
        v = -1
    if not v >= 0:
        raise argparse.ArgumentTypeError(f"duration '{text}': expected a "
                                         "number with s, ms or us")
    return v


class Pending:
    """One request in the queue: its input, and its answer when done."""
    __slots__ = ("id", "frame", "x", "done", "top", "batch", "error")

    def __init__(self, rid, frame, x):
        self.id, self.frame, self.x = rid, frame, x
        self.done = threading.Event()
        self.top = self.batch = self.error = None


STOP = object()      # the batcher's last item


class Batcher(threading.Thread):
    """The one thread that runs the model, a batch at a time."""

    def __init__(self, model, args):
        super().__init__(name="batcher", daemon=True)
        self.model, self.args = model, args
        self.q = queue.Queue()

    def submit(self, p):
        yardstick.async_begin("queued", p.id)
        self.q.put(p)

    def collect(self):
        """The first request, then more until max_batch or max_wait."""
        with yardstick.zone("collect"):
            batch = [self.q.get()]
            deadline = time.monotonic() + self.args.max_wait
            while len(batch) < self.args.max_batch and batch[-1] is not STOP:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                try:
                    batch.append(self.q.get(timeout=left))
                except queue.Empty:
                    break
        for p in batch:
            if p is not STOP:
                yardstick.async_end("queued", p.id)
        return batch

    def run_batch(self, batch):
        size = self.args.size
        with yardstick.zone("batch"):
            yardstick.zone_value(len(batch))
            yardstick.counter("batch_size", len(batch))
            if self.args.preprocess_in_handler:
                xs = [p.x for p in batch]
            else:
                # serialised: the model waits for every frame's resize
                xs = [pipeline.preprocess(p.frame, size) for p in batch]
            _, top = pipeline.classify(
                pipeline.run_model(self.model, torch.cat(xs)))
        for p, k in zip(batch, top.tolist()):
            p.top, p.batch = k, len(batch)
            p.done.set()

    def answer(self, batch):
        """Run the batch; a failure is every request's answer (500), so
        that no handler waits for ever."""
        try:
            self.run_batch(batch)
        except Exception as e:
            for p in batch:
                p.error = f"{type(e).__name__}: {e}"
                p.done.set()

    def run(self):
        yardstick.thread_name("batcher")
        while True:
            batch = self.collect()
            if batch[-1] is STOP:
                if batch[:-1]:
                    self.answer(batch[:-1])
                return
            self.answer(batch)

    def stop(self):
        """Finish what is queued, then end (the interpreter must not exit
        while the thread is inside torch)."""
        self.q.put(STOP)
        self.join()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"       # keep-alive, as load uses it
    server_version = "yardstick-example"

    def log_message(self, fmt, *args):  # no line per request
        pass

    def reply(self, code, body, ctype="application/json"):
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        srv = self.server
        if self.path == "/health":
            return self.reply(200, "ok\n", "text/plain")
        if self.path != "/infer":
            return self.reply(404, json.dumps({"error": "no such path"}))
        if not srv.named.get(threading.get_ident()):
            srv.named[threading.get_ident()] = True
            yardstick.thread_name("handler")
        srv.busy(1)
        try:
            with yardstick.zone("request"):
                p = self.infer_one(srv)
        finally:
            srv.busy(-1)
        if p.error:
            return self.reply(500, json.dumps({"error": p.error}))
        self.reply(200, json.dumps({"class": p.top, "batch": p.batch}))

    def infer_one(self, srv):
        rid = srv.next_id()
        args = srv.args
        frame = pipeline.make_frames(1, args.image, rid)
        x = None
        if args.preprocess_in_handler:
            x = pipeline.preprocess(frame, args.size)
        p = Pending(rid, frame, x)
        with yardstick.zone("queue_wait"):
            srv.batcher.submit(p)
            p.done.wait()
        return p


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port, batcher, args):
        super().__init__(("127.0.0.1", port), Handler)
        self.batcher, self.args = batcher, args
        self.named = {}
        self.lock = threading.Lock()
        self.count = 0
        self.inflight = 0
        self.last = None

    def handle_error(self, request, client_address):
        """A client that went away (load stops with requests in flight)
        is not the server's error: no traceback for it."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def next_id(self):
        with self.lock:
            self.count += 1
            return self.count

    def busy(self, n):
        """n requests more (or fewer) in flight; the time of the last."""
        with self.lock:
            self.inflight += n
            self.last = time.monotonic()

    def idle_for(self):
        """Seconds since the last request ended, with none in flight
        (None: still busy, or none came yet)."""
        with self.lock:
            if self.inflight or self.last is None:
                return None
            return time.monotonic() - self.last


def parser():
    p = argparse.ArgumentParser(
        description="A batching HTTP inference server (resize, ResNet, "
        "softmax; random weights).")
    p.add_argument("port", type=int, help="the port on 127.0.0.1 (0: a "
                   "free one, which the line it prints names)")
    p.add_argument("--model", default="resnet18", choices=pipeline.MODELS)
    p.add_argument("--size", type=pipeline.positive, default=224,
                   help="the model's input side in pixels (default 224)")
    p.add_argument("--image", type=pipeline.image_size, default=(480, 640),
                   help="the frames' size, HEIGHTxWIDTH (default 480x640)")
    p.add_argument("--max-batch", type=pipeline.positive, default=8,
                   help="requests per batch at most (default 8)")
    p.add_argument("--max-wait", type=duration, default=0.005,
                   help="how long a batch waits for more requests after "
                   "its first (default 5ms)")
    p.add_argument("--preprocess-in-handler", action="store_true",
                   help="pre-process in each request's handler thread, "
                   "not in the batcher (the fix)")
    p.add_argument("--idle-exit", type=duration, default=None,
                   help="exit after this long without a request, once "
                   "one came")
    p.add_argument("--threads", type=pipeline.positive, default=1,
                   help="torch's intra-op threads (default 1)")
    return p


def watch_idle(srv, idle):
    """Stop the server idle seconds after its last request ended."""
    while True:
        time.sleep(min(idle, 0.1))
        t = srv.idle_for()
        if t is not None and t > idle:
            srv.shutdown()
            return


def main(argv):
    args = parser().parse_args(argv)
    if not 0 <= args.port < 65536:
        parser().error(f"port '{args.port}': expected 0 to 65535")
    torch.set_num_threads(args.threads)
    yardstick.thread_name("main")
    model = pipeline.build(args.model)
    # warm up before the first request: the first call of a model pays
    # for its allocations and kernels' set-up
    pipeline.infer(model, pipeline.make_frames(1, args.image), args.size)
    batcher = Batcher(model, args)
    try:
        srv = Server(args.port, batcher, args)
    except OSError as e:
        print(f"server.py: cannot listen on port {args.port}: "
              f"{e.strerror}", file=sys.stderr)
        return 1
    batcher.start()
    # SIGTERM and SIGINT end serve_forever from another thread, so that
    # the process exits 0 with its zones written
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: threading.Thread(
            target=srv.shutdown, daemon=True).start())
    if args.idle_exit is not None:
        threading.Thread(target=watch_idle, args=(srv, args.idle_exit),
                         daemon=True).start()
    print(f"listening on http://127.0.0.1:{srv.server_address[1]}/infer",
          flush=True)
    srv.serve_forever(poll_interval=0.1)
    srv.server_close()
    batcher.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
